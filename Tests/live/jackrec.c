/*
 * jackrec: records JACK ports to a raw float32 file, exactly as the samples arrive (NaN and Inf
 * included), so the live tests can check them. jack_rec from jackd2 writes integer PCM only.
 *
 *   jackrec OUTFILE SECONDS PORT...
 *
 * Joins $JACK_DEFAULT_SERVER (never starts one), connects each PORT to an input of its own,
 * skips the first two periods after the connections exist, records SECONDS of audio, writes
 * OUTFILE as interleaved native-endian float32 (one column per PORT), prints the sample rate
 * on stdout and exits 0. Exit 69: no server; 66: a port cannot be connected; 74: write error;
 * 75: the recording did not complete within SECONDS + 5 s.
 *
 * With JACKREC_STARTED=PATH in the environment it also creates PATH (empty) once the recording
 * holds its first 20 ms, so a test can act on a capture that has a lead-in, whatever the delay
 * between the connections appearing and the first recorded frame.
 *
 * With JACKREC_CYCLES=PATH it also writes PATH: one line "INDEX FRAME XRUNS" a recorded cycle
 * (the cycle's first frame in OUTFILE, its frame time (jack_last_frame_time) and the xrun
 * notifications received so far, which arrive on another thread, a little later), then a line
 * "xruns N": the xrun notifications the server sent the recorder while it recorded. A cycle
 * whose frame time is not the last one's plus its frames comes after a server xrun (the server
 * skipped cycles of the recorder, or of the clients before it, or reset its frame timer).
 *
 * With JACKREC_PLAY=PATH (interleaved native-endian float32, two columns) and
 * JACKREC_PLAY_PORTS="PORT PORT" it also plays PATH from its outputs out_1 and out_2, connected
 * to those two ports, from the first recorded frame on (silence before and after); with no PORT
 * to record, it only plays (for SECONDS). A client that plays into what it records would close
 * a loop, which PipeWire does not run: one plays, another records.
 *
 * Build: cc -O2 -o jackrec jackrec.c -ljack
 */
#include <errno.h>
#include <jack/jack.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PORTS 8

static jack_port_t *inputs[MAX_PORTS];
static int nports;
static float *buffer;        /* interleaved */
static size_t total_frames;  /* to record */
static _Atomic size_t recorded;
static _Atomic int armed;    /* set by main once connected */
static _Atomic int cycles;   /* process calls, armed or not */
static int skip = 2;
static jack_client_t *client;
struct cycle { size_t index; jack_nframes_t frame; int xruns; };
static struct cycle *cycle_log;   /* one entry a recorded cycle */
static size_t cycle_log_size;
static _Atomic size_t cycles_logged;
static _Atomic int xruns;         /* while recording */
static jack_port_t *outputs[2];   /* JACKREC_PLAY */
static float *play;               /* interleaved stereo */
static size_t play_frames;

static int on_xrun(void *arg) {
    (void)arg;
    if (atomic_load(&armed) && atomic_load(&recorded) < total_frames)
        atomic_fetch_add(&xruns, 1);
    return 0;
}

static int process(jack_nframes_t n, void *arg) {
    (void)arg;
    atomic_fetch_add(&cycles, 1);
    if (!atomic_load(&armed))
        return 0;
    size_t done = atomic_load(&recorded);
    if (skip > 0 || done >= total_frames) {
        skip -= skip > 0;
        for (int c = 0; play && c < 2; c++)
            memset(jack_port_get_buffer(outputs[c], n), 0, n * sizeof(float));
        return 0;
    }
    size_t logged = atomic_load(&cycles_logged);
    if (logged < cycle_log_size) {
        cycle_log[logged] = (struct cycle){done, jack_last_frame_time(client), atomic_load(&xruns)};
        atomic_store(&cycles_logged, logged + 1);
    }
    size_t count = n;
    if (count > total_frames - done)
        count = total_frames - done;
    for (int c = 0; play && c < 2; c++) {
        float *out = jack_port_get_buffer(outputs[c], n);
        for (size_t i = 0; i < n; i++)
            out[i] = done + i < play_frames ? play[(done + i) * 2 + c] : 0.0f;
    }
    for (int p = 0; p < nports; p++) {
        const float *in = jack_port_get_buffer(inputs[p], n);
        for (size_t i = 0; i < count; i++)
            buffer[(done + i) * nports + p] = in[i];
    }
    atomic_store(&recorded, done + count);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < (getenv("JACKREC_PLAY") ? 3 : 4) || argc - 3 > MAX_PORTS) {
        fprintf(stderr, "usage: jackrec OUTFILE SECONDS PORT...\n");
        return 64;
    }
    const char *path = argv[1];
    double seconds = atof(argv[2]);
    nports = argc - 3;
    jack_status_t status;
    /* A name of its own each run: rack wants back every connection it saw made, so a recorder
     * that came back under the same name would be wired by rack too (and might be wired to
     * ports this run does not record). */
    char name[32];
    snprintf(name, sizeof name, "jackrec-%d", (int)getpid());
    client = jack_client_open(name, JackNoStartServer, &status);
    if (!client) {
        fprintf(stderr, "jackrec: no JACK server (status 0x%x)\n", status);
        return 69;
    }
    for (int p = 0; p < nports; p++) {
        char name[32];
        snprintf(name, sizeof name, "in_%d", p + 1);
        inputs[p] = jack_port_register(client, name, JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
        if (!inputs[p]) {
            fprintf(stderr, "jackrec: cannot register %s\n", name);
            return 70;
        }
    }
    const char *play_path = getenv("JACKREC_PLAY"), *play_ports = getenv("JACKREC_PLAY_PORTS");
    if (play_path) {
        FILE *f = fopen(play_path, "rb");
        long bytes = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
        play_frames = bytes > 0 ? (size_t)bytes / (2 * sizeof(float)) : 0;
        play = play_frames ? malloc(play_frames * 2 * sizeof(float)) : NULL;
        if (!play || fseek(f, 0, SEEK_SET) != 0 || fread(play, 2 * sizeof(float), play_frames, f) != play_frames) {
            fprintf(stderr, "jackrec: cannot read %s\n", play_path);
            return 66;
        }
        fclose(f);
        outputs[0] = jack_port_register(client, "out_1", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
        outputs[1] = jack_port_register(client, "out_2", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
        if (!outputs[0] || !outputs[1]) {
            fprintf(stderr, "jackrec: cannot register out_1, out_2\n");
            return 70;
        }
    }
    jack_set_process_callback(client, process, NULL);
    jack_set_xrun_callback(client, on_xrun, NULL);
    if (jack_activate(client)) {
        fprintf(stderr, "jackrec: cannot activate\n");
        return 69;
    }
    /* The rate the server runs us at: PipeWire's libjack answers before the first cycle with
     * its configured default, which a busy graph need not run at. */
    for (int waited_ms = 0; atomic_load(&cycles) == 0 && waited_ms < 5000; waited_ms++)
        usleep(1000);
    jack_nframes_t rate = jack_get_sample_rate(client);
    total_frames = (size_t)(seconds * rate + 0.5);
    buffer = calloc(total_frames * nports + 1, sizeof(float));
    const char *cycles_path = getenv("JACKREC_CYCLES");
    if (cycles_path) {
        cycle_log_size = total_frames / 16 + 16;   /* periods of 16 frames and more */
        cycle_log = calloc(cycle_log_size, sizeof *cycle_log);
    }
    if (!buffer || (cycles_path && !cycle_log)) {
        fprintf(stderr, "jackrec: out of memory\n");
        return 70;
    }
    for (int p = 0; p < nports; p++) {
        int r = jack_connect(client, argv[3 + p], jack_port_name(inputs[p]));
        if (r != 0 && r != EEXIST) {
            fprintf(stderr, "jackrec: cannot connect %s\n", argv[3 + p]);
            jack_client_close(client);
            return 66;
        }
    }
    if (play) {
        char left[256], right[256];
        if (!play_ports || sscanf(play_ports, "%255s %255s", left, right) != 2
            || jack_connect(client, jack_port_name(outputs[0]), left)
            || jack_connect(client, jack_port_name(outputs[1]), right)) {
            fprintf(stderr, "jackrec: cannot connect out_1, out_2 to JACKREC_PLAY_PORTS\n");
            jack_client_close(client);
            return 66;
        }
    }
    atomic_store(&armed, 1);
    const char *started_path = getenv("JACKREC_STARTED");
    size_t lead_in = (size_t)(0.020 * rate);
    int waited_ms = 0, limit_ms = (int)(seconds * 1000) + 5000;
    while (atomic_load(&recorded) < total_frames && waited_ms < limit_ms) {
        usleep(1000);
        waited_ms += 1;
        if (started_path && atomic_load(&recorded) >= lead_in) {
            FILE *started = fopen(started_path, "w");
            if (started)
                fclose(started);
            started_path = NULL;
        }
    }
    jack_deactivate(client);
    jack_client_close(client);
    size_t got = atomic_load(&recorded);
    FILE *f = fopen(path, "wb");
    if (!f || (nports && fwrite(buffer, sizeof(float) * nports, got, f) != got) || fclose(f)) {
        fprintf(stderr, "jackrec: cannot write %s\n", path);
        return 74;
    }
    if (cycles_path) {
        FILE *c = fopen(cycles_path, "w");
        size_t logged = atomic_load(&cycles_logged);
        for (size_t i = 0; c && i < logged; i++)
            fprintf(c, "%zu %u %d\n", cycle_log[i].index, (unsigned)cycle_log[i].frame, cycle_log[i].xruns);
        if (!c || fprintf(c, "xruns %d\n", atomic_load(&xruns)) < 0 || fclose(c)) {
            fprintf(stderr, "jackrec: cannot write %s\n", cycles_path);
            return 74;
        }
    }
    printf("%u\n", rate);
    if (got < total_frames) {
        fprintf(stderr, "jackrec: only %zu of %zu frames recorded\n", got, total_frames);
        return 75;
    }
    return 0;
}
