#include "clibLo.h"
