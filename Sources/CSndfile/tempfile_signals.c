// Removes one temporary file when the process is stopped by SIGINT, SIGTERM or SIGHUP, then
// lets the signal take its default course, so the process dies of it (a shell reports
// 128 + the signal: 130, 143, 129) and whoever started it sees why.
#include "csndfile.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static char armed_path[4096];
static volatile sig_atomic_t armed = 0;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction previous[3];
static int installed = 0;

static void on_stop_signal(int sig) {
    if (armed) unlink(armed_path);   // async-signal-safe
    signal(sig, SIG_DFL);
    raise(sig);
}

int rack_tempfile_arm(const char *path) {
    size_t length = strlen(path);
    if (length >= sizeof armed_path) return -1;
    armed = 0;
    memcpy(armed_path, path, length + 1);
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop_signal;
        sigemptyset(&sa.sa_mask);
        for (int i = 0; i < 3; i++) {
            struct sigaction old;
            sigaction(stop_signals[i], NULL, &old);
            previous[i] = old;
            // A signal the process was started to ignore (nohup) stays ignored.
            if (old.sa_handler == SIG_IGN) continue;
            sigaction(stop_signals[i], &sa, NULL);
        }
        installed = 1;
    }
    armed = 1;
    return 0;
}

void rack_tempfile_disarm(void) {
    armed = 0;
    if (!installed) return;
    for (int i = 0; i < 3; i++) sigaction(stop_signals[i], &previous[i], NULL);
    installed = 0;
}
