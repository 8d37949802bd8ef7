/*
 * slowunmap: an LD_PRELOAD library that makes every 12-byte munmap take 30 ms longer. jackd2's
 * client library (1.9.21) unmaps a departing client's 12-byte futex under its synchro lock, on
 * its notification thread, right after it delivered the shutdown notice of a server that went
 * away; a thread preempted there, as under load, holds that lock for as long. The library's
 * jack_client_close cancels the notification thread wherever it is: cancelled inside that
 * window, it leaves the lock held and the close waits on it for ever. This widens the window
 * so that a test meets the race in most restarts instead of one in a few hundred.
 * SLOWUNMAP_MS sets the delay (default 30): longer, it makes the close itself slow.
 *
 * Build: cc -shared -fPIC -O2 -o libslowunmap.so slowunmap.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int munmap(void *addr, size_t length) {
    static int (*real)(void *, size_t);
    if (!real) real = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
    if (length == 12) {
        const char *ms = getenv("SLOWUNMAP_MS");
        long delay = ms ? atol(ms) : 30;
        struct timespec pause = {delay / 1000, (delay % 1000) * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return real(addr, length);
}
