#ifndef RACK_CLIBLO_H
#define RACK_CLIBLO_H
#include <lo/lo.h>
#endif
