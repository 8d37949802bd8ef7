/*
 * netloop: plays a test signal into one JACK port and records another in the same process
 * callback, so the recording's offset from what was played is the round trip's latency in
 * frames, exact to the sample.
 *
 *   netloop OUTFILE SECONDS DEST_PORT SOURCE_PORT...
 *
 * The signal: bursts of white noise (amplitude 0.25, deterministic) 0.25 s long, one every
 * second, silence between them. Joins $JACK_DEFAULT_SERVER (never starts one), registers out
 * and one input per SOURCE_PORT, connects out to DEST_PORT and each SOURCE_PORT to its input,
 * skips the first two periods after that, then plays and records SECONDS. Writes OUTFILE as
 * interleaved native-endian float32: the played sample, then one column per SOURCE_PORT.
 * Prints the sample rate on stdout and exits 0. Exit 69: no server; 66: a port cannot be
 * connected; 74: write error; 75: did not complete within SECONDS + 5 s; 64: usage.
 *
 * Build: cc -O2 -o netloop netloop.c -ljack
 */
#include <jack/jack.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_SOURCES 4

static jack_port_t *out, *inputs[MAX_SOURCES];
static int nsources;
static float *buffer;          /* interleaved: played, then the sources */
static size_t total_frames, burst_frames, period_frames;
static _Atomic size_t done;
static _Atomic int armed;
static int skip = 2;
static uint32_t noise = 22222;

static float next_sample(size_t frame) {
    noise = noise * 1664525u + 1013904223u;
    if (frame % period_frames >= burst_frames)
        return 0.0f;
    return 0.25f * ((float)(noise >> 8) / 8388608.0f - 1.0f);
}

static int process(jack_nframes_t n, void *arg) {
    (void)arg;
    float *play = jack_port_get_buffer(out, n);
    size_t at = atomic_load(&done);
    if (!atomic_load(&armed) || skip > 0 || at >= total_frames) {
        if (atomic_load(&armed) && skip > 0)
            skip--;
        for (jack_nframes_t i = 0; i < n; i++)
            play[i] = 0.0f;
        return 0;
    }
    const int columns = nsources + 1;
    for (jack_nframes_t i = 0; i < n; i++) {
        float s = (at + i < total_frames) ? next_sample(at + i) : 0.0f;
        play[i] = s;
        if (at + i < total_frames)
            buffer[(at + i) * columns] = s;
    }
    for (int p = 0; p < nsources; p++) {
        const float *in = jack_port_get_buffer(inputs[p], n);
        for (jack_nframes_t i = 0; i < n && at + i < total_frames; i++)
            buffer[(at + i) * columns + 1 + p] = in[i];
    }
    atomic_store(&done, at + n < total_frames ? at + n : total_frames);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 5 || argc - 4 > MAX_SOURCES) {
        fprintf(stderr, "usage: netloop OUTFILE SECONDS DEST_PORT SOURCE_PORT...\n");
        return 64;
    }
    const double seconds = atof(argv[2]);
    nsources = argc - 4;
    jack_client_t *client = jack_client_open("netloop", JackNoStartServer, NULL);
    if (!client) {
        fprintf(stderr, "netloop: no JACK server\n");
        return 69;
    }
    const jack_nframes_t rate = jack_get_sample_rate(client);
    total_frames = (size_t)(seconds * rate);
    burst_frames = rate / 4;
    period_frames = rate;
    buffer = calloc(total_frames * (size_t)(nsources + 1), sizeof(float));
    out = jack_port_register(client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    for (int p = 0; p < nsources; p++) {
        char name[16];
        snprintf(name, sizeof name, "in_%d", p + 1);
        inputs[p] = jack_port_register(client, name, JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    }
    jack_set_process_callback(client, process, NULL);
    if (!buffer || !out || jack_activate(client) != 0) {
        fprintf(stderr, "netloop: cannot set up the client\n");
        return 69;
    }
    if (jack_connect(client, jack_port_name(out), argv[3]) != 0) {
        fprintf(stderr, "netloop: cannot connect to %s\n", argv[3]);
        return 66;
    }
    for (int p = 0; p < nsources; p++)
        if (jack_connect(client, argv[4 + p], jack_port_name(inputs[p])) != 0) {
            fprintf(stderr, "netloop: cannot connect %s\n", argv[4 + p]);
            return 66;
        }
    atomic_store(&armed, 1);
    for (int waited = 0; atomic_load(&done) < total_frames; waited++) {
        if (waited > (int)((seconds + 5) * 100)) {
            fprintf(stderr, "netloop: recorded %zu of %zu frames\n", atomic_load(&done), total_frames);
            return 75;
        }
        usleep(10000);
    }
    jack_deactivate(client);
    jack_client_close(client);
    FILE *f = fopen(argv[1], "wb");
    size_t count = total_frames * (size_t)(nsources + 1);
    if (!f || fwrite(buffer, sizeof(float), count, f) != count || fclose(f) != 0) {
        fprintf(stderr, "netloop: cannot write %s\n", argv[1]);
        return 74;
    }
    printf("%u\n", rate);
    return 0;
}
