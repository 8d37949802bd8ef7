#ifndef RACK_CSNDFILE_H
#define RACK_CSNDFILE_H
#include <sndfile.h>
#include <samplerate.h>
#endif
