#ifndef RACK_CSNDFILE_H
#define RACK_CSNDFILE_H
#include <sndfile.h>
#include <samplerate.h>

/// Until rack_tempfile_disarm(): SIGINT, SIGTERM and SIGHUP (unless ignored at start) remove
/// `path`, then the process dies of the signal. One path at a time; -1 when it is too long.
int rack_tempfile_arm(const char *path);
/// Restores the signal dispositions rack_tempfile_arm() replaced.
void rack_tempfile_disarm(void);

/// Names the calling thread (15 bytes at most, as Linux keeps); 0 or an errno value.
int rack_name_this_thread(const char *name);
#endif
