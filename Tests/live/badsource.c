/*
 * badsource: a misbehaving upstream JACK client. Plays a quiet sine into a port and, now and
 * then, a sample that is not audio (NaN, +Inf, -Inf, 1e30 in turn), to check that rack
 * replaces them, stays finite and counts them.
 *
 *   badsource PORT SECONDS INTERVAL_MS
 *
 * Joins $JACK_DEFAULT_SERVER (never starts one), registers out_1, connects it to PORT, and
 * runs SECONDS. Bad samples are written only between 0.3 s after the connection exists and
 * 0.3 s before the end, one every INTERVAL_MS (at the first frame of a period), so that every
 * one of them reaches PORT. Prints the number of bad samples written on stdout and exits 0.
 * Exit 69: no server; 66: the port cannot be connected; 75: ran short.
 *
 * Build: cc -O2 -o badsource badsource.c -ljack -lm
 */
#include <jack/jack.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static jack_port_t *out;
static _Atomic int armed;
static size_t frames_armed;      /* frames since armed */
static size_t total_frames, margin_frames, interval_frames, next_bad;
static _Atomic size_t bad_written;
static double phase, step;

static int process(jack_nframes_t n, void *arg) {
    (void)arg;
    float *buf = jack_port_get_buffer(out, n);
    for (jack_nframes_t i = 0; i < n; i++) {
        buf[i] = (float)(0.1 * sin(phase));
        phase += step;
    }
    if (!atomic_load(&armed))
        return 0;
    if (frames_armed >= next_bad && frames_armed >= margin_frames
        && frames_armed + n + margin_frames <= total_frames) {
        static const float bad[4] = {NAN, INFINITY, -INFINITY, 1e30f};
        size_t k = atomic_load(&bad_written);
        buf[0] = bad[k % 4];
        atomic_store(&bad_written, k + 1);
        next_bad = frames_armed + interval_frames;
    }
    frames_armed += n;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: badsource PORT SECONDS INTERVAL_MS\n");
        return 64;
    }
    jack_status_t status;
    jack_client_t *client = jack_client_open("badsource", JackNoStartServer, &status);
    if (!client) {
        fprintf(stderr, "badsource: no JACK server (status 0x%x)\n", status);
        return 69;
    }
    double rate = jack_get_sample_rate(client);
    total_frames = (size_t)(atof(argv[2]) * rate);
    margin_frames = (size_t)(0.3 * rate);
    interval_frames = (size_t)(atof(argv[3]) / 1000 * rate);
    step = 2 * M_PI * 220.0 / rate;
    out = jack_port_register(client, "out_1", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    if (!out) {
        fprintf(stderr, "badsource: cannot register out_1\n");
        return 70;
    }
    jack_set_process_callback(client, process, NULL);
    if (jack_activate(client)) {
        fprintf(stderr, "badsource: cannot activate\n");
        return 69;
    }
    if (jack_connect(client, jack_port_name(out), argv[1])) {
        fprintf(stderr, "badsource: cannot connect to %s\n", argv[1]);
        jack_client_close(client);
        return 66;
    }
    atomic_store(&armed, 1);
    int waited_ms = 0, limit_ms = (int)(atof(argv[2]) * 1000) + 5000;
    while (frames_armed < total_frames && waited_ms < limit_ms) {
        usleep(10000);
        waited_ms += 10;
    }
    jack_deactivate(client);
    jack_client_close(client);
    printf("%zu\n", atomic_load(&bad_written));
    if (frames_armed < total_frames) {
        fprintf(stderr, "badsource: ran only %zu of %zu frames\n", frames_armed, total_frames);
        return 75;
    }
    return 0;
}
