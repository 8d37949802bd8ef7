// Names the calling thread in the kernel (/proc/PID/task/TID/comm, top -H, gdb): Swift's Glibc
// module does not declare pthread_setname_np (a GNU extension).
#define _GNU_SOURCE
#include "csndfile.h"

#include <pthread.h>

int rack_name_this_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
