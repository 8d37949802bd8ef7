/*
 * A tiny JACK client that proves rtprobe works: it calls the probe hooks the way rack does
 * (weak symbols around the render) and, depending on its mode, does forbidden things in its
 * process callback or not.
 *
 *   probe_selftest clean SECONDS   pure arithmetic           -> probe counts must all be 0
 *   probe_selftest dirty SECONDS   malloc+free, mutex, write, futex wait -> counted once a cycle
 *   probe_selftest slow SECONDS    pure arithmetic for 60 % of the period of CPU time a cycle
 *                                  -> the probe's callback timing shows it
 *
 * Build: cc -O2 -o probe_selftest probe_selftest.c -ljack -lpthread
 * Run:   LD_PRELOAD=librtprobe.so RACK_PROBE_OUT=out.json JACK_DEFAULT_SERVER=NAME ./probe_selftest ...
 */
#include <fcntl.h>
#include <jack/jack.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void rack_probe_enter(void) __attribute__((weak));
void rack_probe_leave(void) __attribute__((weak));

static jack_port_t *out;
static int dirty, slow;
static double period_seconds;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile float phase;
static int devnull = -1;
static int futex_word = 1;
static char *volatile keep; /* so the compiler cannot drop the malloc/free pair */

static int process(jack_nframes_t n, void *arg) {
    (void)arg;
    if (rack_probe_enter)
        rack_probe_enter();
    float *buf = jack_port_get_buffer(out, n);
    for (jack_nframes_t i = 0; i < n; i++) {
        phase += 0.01f;
        if (phase > 1.0f)
            phase -= 2.0f;
        buf[i] = phase * 0.1f;
    }
    if (slow) {
        /* spins on the thread's CPU clock (clock_gettime is no call the probe counts) */
        struct timespec t0, t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        do {
            phase += 0.001f;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        } while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 < 0.6 * period_seconds);
    }
    if (dirty) {
        keep = malloc(64 + (n & 7));
        memset(keep, 1, 64);
        buf[0] += keep[3] * 0.0f;
        free(keep);
        pthread_mutex_lock(&mutex);
        pthread_mutex_unlock(&mutex);
        if (write(devnull, "x", 1) < 0)
            buf[0] = 0;
        /* a futex wait on a word that does not hold the expected value returns at once */
        syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    }
    if (rack_probe_leave)
        rack_probe_leave();
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "clean") && strcmp(argv[1], "dirty") && strcmp(argv[1], "slow"))) {
        fprintf(stderr, "usage: probe_selftest clean|dirty|slow SECONDS\n");
        return 64;
    }
    dirty = !strcmp(argv[1], "dirty");
    slow = !strcmp(argv[1], "slow");
    double seconds = atof(argv[2]);
    devnull = open("/dev/null", O_WRONLY);
    jack_status_t status;
    jack_client_t *client = jack_client_open("probe_selftest", JackNoStartServer, &status);
    if (!client) {
        fprintf(stderr, "probe_selftest: no JACK server (status 0x%x)\n", status);
        return 69;
    }
    period_seconds = (double)jack_get_buffer_size(client) / jack_get_sample_rate(client);
    out = jack_port_register(client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    jack_set_process_callback(client, process, NULL);
    if (jack_activate(client)) {
        fprintf(stderr, "probe_selftest: cannot activate\n");
        return 69;
    }
    usleep((useconds_t)(seconds * 1e6));
    jack_deactivate(client);
    jack_client_close(client);
    return 0;
}
