/*
 * midisend: a JACK MIDI source (and feedback reader) for the live tests. Writes MIDI events at
 * exact frame offsets, marks chosen events with a click on an audio port (so a recording shows
 * the frame each one was written at), puts a steady DC level on another audio port (a steady
 * input for gain measurements), and records the MIDI it receives on its input.
 *
 *   midisend SCHEDULE SECONDS [-o MIDI_DEST]... [-i MIDI_SOURCE] [-d AUDIO_DEST]... [-l LEVEL]
 *            [-t AUDIO_DEST -T AUDIO_SOURCE]
 *
 * Ports: midisend:out (MIDI out), midisend:in (MIDI in), midisend:click and midisend:dc (audio),
 * midisend:tick (audio out) and midisend:tock (audio in).
 * -o connects out to MIDI_DEST, -i connects MIDI_SOURCE to in, -d connects dc to AUDIO_DEST,
 * -l sets the DC level (default 0.5); "-p 1" registers out as a physical port (as a hardware
 * controller's capture port appears), for `rack run --connect`.
 *
 * The cycle probe: -t connects tick to AUDIO_DEST (another client's input), -T connects
 * AUDIO_SOURCE (that client's output) to tock. tick carries a level of its own every cycle, so
 * the other client's output changes in every cycle its process callback runs; a cycle in which
 * tock is bit for bit the previous cycle's is one the server did not run that client in between
 * two of ours, and what we read from its ports then (MIDI too) is its last buffer again.
 * Connect -o before -t/-T: the client's output then reaches us through the loop's feedback
 * connection, read at the start of our next cycle, like its MIDI out with -i.
 *
 * SCHEDULE: one event a line, "FRAME BYTE BYTE ...", FRAME counted from the fifth cycle after
 * the connections are made (a new connection may take a cycle or two to be in the graph), bytes in hex; "BYTE*N" repeats a byte N times (long SysEx). A line
 * starting with "!" also puts 1.0 on the click port at that frame. Lines must be in frame order.
 *
 * Runs SECONDS from the start, then prints "sent N failed M" (events JACK had no room for),
 * one line per MIDI event received, "recv FRAME HEX...", FRAME counted from the start like the
 * schedule, and with the probe "cycles N" (cycles compared), one "stale FRAME" per cycle whose
 * tock was the previous cycle's (FRAME: that cycle's first) and one "xrun FRAME" per xrun the
 * server reported (FRAME: the server's frame when the notice came, on another thread, so a
 * cycle or more after the cycle it is about); exits 0. Exit 69: no server; 66: a connection
 * failed; 65: bad schedule.
 *
 * Build: cc -O2 -o midisend midisend.c -ljack
 */
#include <jack/jack.h>
#include <jack/midiport.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    long frame;
    int click;
    size_t size;
    unsigned char *data;
} event_t;

#define MAX_RECV 65536

static jack_port_t *out_port, *in_port, *click_port, *dc_port, *tick_port, *tock_port;
static event_t *events;
static size_t nevents, next_event;
static long now_frame;               /* frames since the start (process thread) */
static _Atomic int armed;
static _Atomic long elapsed;
static _Atomic size_t sent, failed;
static float level = 0.5f;
static int skip = 4;
static struct { long frame; unsigned char bytes[3]; int size; } received[MAX_RECV];
static _Atomic size_t nreceived;
/* The cycle probe (-t/-T, see the top): the cycles whose tock was the previous cycle's, bit for
 * bit (the other client was not run between them), how many were compared, and the xruns. */
#define MAX_STALE 65536
#define MAX_PERIOD 8192
static float last_tock[MAX_PERIOD];
static int have_tock;
static long stale[MAX_STALE];
static _Atomic size_t nstale;
static _Atomic long ncompared;
static int probe;                        /* -T given */
static long xruns[MAX_STALE];
static _Atomic size_t nxruns;
static _Atomic long cycle_start_frame;   /* jack_last_frame_time of frame 0 of the schedule */

static jack_client_t *client;

/* The server's xrun notifications, at the frame the server was at when it was told (counted
 * like the schedule; it comes on another thread, a cycle or so after the cycle it is about). */
static int on_xrun(void *arg) {
    (void)arg;
    size_t k = atomic_load(&nxruns);
    long start = atomic_load(&cycle_start_frame);
    if (k < MAX_STALE && start) { xruns[k] = (long)jack_frame_time(client) - start; atomic_store(&nxruns, k + 1); }
    return 0;
}

static int process(jack_nframes_t n, void *arg) {
    (void)arg;
    float *click = jack_port_get_buffer(click_port, n);
    float *dc = jack_port_get_buffer(dc_port, n);
    void *out = jack_port_get_buffer(out_port, n);
    void *in = jack_port_get_buffer(in_port, n);
    jack_midi_clear_buffer(out);
    memset(click, 0, sizeof(float) * n);
    for (jack_nframes_t i = 0; i < n; i++) dc[i] = level;
    float *tick = jack_port_get_buffer(tick_port, n);
    float *tock = jack_port_get_buffer(tock_port, n);
    static unsigned cycle;
    cycle++;
    for (jack_nframes_t i = 0; i < n; i++) tick[i] = 0.001f * (float)(cycle % 997 + 1);
    if (!atomic_load(&armed)) return 0;
    if (skip > 0) {             /* a new connection may take a cycle or two to be in the graph */
        skip--;
        if (skip == 0) atomic_store(&cycle_start_frame, (long)jack_last_frame_time(client) + (long)n);
        return 0;
    }
    if (probe && n <= MAX_PERIOD) {
        if (have_tock) atomic_fetch_add(&ncompared, 1);
        if (have_tock && !memcmp(tock, last_tock, sizeof(float) * n)) {
            size_t k = atomic_load(&nstale);
            if (k < MAX_STALE) { stale[k] = now_frame; atomic_store(&nstale, k + 1); }
        }
        memcpy(last_tock, tock, sizeof(float) * n);
        have_tock = 1;
    }
    while (next_event < nevents && events[next_event].frame < now_frame + (long)n) {
        event_t *e = &events[next_event++];
        long off = e->frame - now_frame;
        if (off < 0) off = 0;
        if (jack_midi_event_write(out, (jack_nframes_t)off, e->data, e->size) == 0) atomic_fetch_add(&sent, 1);
        else atomic_fetch_add(&failed, 1);
        if (e->click) click[off] = 1.0f;
    }
    uint32_t count = jack_midi_get_event_count(in);
    for (uint32_t i = 0; i < count; i++) {
        jack_midi_event_t ev;
        size_t k = atomic_load(&nreceived);
        if (k >= MAX_RECV || jack_midi_event_get(&ev, in, i) != 0) continue;
        received[k].frame = now_frame + ev.time;
        received[k].size = ev.size > 3 ? 3 : (int)ev.size;
        memcpy(received[k].bytes, ev.buffer, received[k].size);
        atomic_store(&nreceived, k + 1);
    }
    now_frame += n;
    atomic_store(&elapsed, now_frame);
    return 0;
}

static int load(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t cap = 1024;
    events = calloc(cap, sizeof *events);
    char *line = NULL;
    size_t len = 0;
    long last = -1;
    while (getline(&line, &len, f) > 0) {
        char *p = line;
        int click = 0;
        if (*p == '!') { click = 1; p++; }
        char *end;
        long frame = strtol(p, &end, 10);
        if (end == p) continue;                  /* blank or comment */
        if (frame < last) return -2;
        last = frame;
        size_t size = 0, bcap = 16;
        unsigned char *data = malloc(bcap);
        p = end;
        for (;;) {
            while (*p == ' ' || *p == '\t') p++;
            if (*p == '\n' || *p == 0 || *p == '#') break;
            unsigned long byte = strtoul(p, &end, 16);
            if (end == p || byte > 255) return -3;
            p = end;
            unsigned long times = 1;
            if (*p == '*') { times = strtoul(p + 1, &end, 10); p = end; }
            for (unsigned long k = 0; k < times; k++) {
                if (size == bcap) { bcap *= 2; data = realloc(data, bcap); }
                data[size++] = (unsigned char)byte;
            }
        }
        if (nevents == cap) { cap *= 2; events = realloc(events, cap * sizeof *events); }
        events[nevents++] = (event_t){frame, click, size, data};
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: midisend SCHEDULE SECONDS [-o DEST]... [-i SOURCE] [-d DEST]... [-l LEVEL]\n");
        return 64;
    }
    if (load(argv[1]) != 0) {
        fprintf(stderr, "midisend: bad schedule %s\n", argv[1]);
        return 65;
    }
    double seconds = atof(argv[2]);
    jack_status_t status;
    client = jack_client_open("midisend", JackNoStartServer, &status);
    if (!client) {
        fprintf(stderr, "midisend: no JACK server (status 0x%x)\n", status);
        return 69;
    }
    for (int a = 3; a + 1 < argc; a += 2)
        if (!strcmp(argv[a], "-l")) level = (float)atof(argv[a + 1]);
    unsigned long physical = 0;
    for (int a = 3; a + 1 < argc; a += 2)
        if (!strcmp(argv[a], "-p") && atoi(argv[a + 1])) physical = JackPortIsPhysical | JackPortIsTerminal;
    out_port = jack_port_register(client, "out", JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput | physical, 0);
    in_port = jack_port_register(client, "in", JACK_DEFAULT_MIDI_TYPE, JackPortIsInput, 0);
    click_port = jack_port_register(client, "click", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    dc_port = jack_port_register(client, "dc", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    tick_port = jack_port_register(client, "tick", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    tock_port = jack_port_register(client, "tock", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    if (!out_port || !in_port || !click_port || !dc_port || !tick_port || !tock_port) {
        fprintf(stderr, "midisend: cannot register ports\n");
        return 70;
    }
    jack_set_process_callback(client, process, NULL);
    jack_set_xrun_callback(client, on_xrun, NULL);
    if (jack_activate(client)) {
        fprintf(stderr, "midisend: cannot activate\n");
        return 69;
    }
    for (int a = 3; a + 1 < argc; a += 2) {
        int rc = 0;
        /* A loaded server may answer a connection late: try for up to 2 s. */
        for (int tries = 0; tries < 20; tries++) {
            if (!strcmp(argv[a], "-o")) rc = jack_connect(client, jack_port_name(out_port), argv[a + 1]);
            else if (!strcmp(argv[a], "-i")) rc = jack_connect(client, argv[a + 1], jack_port_name(in_port));
            else if (!strcmp(argv[a], "-d")) rc = jack_connect(client, jack_port_name(dc_port), argv[a + 1]);
            else if (!strcmp(argv[a], "-t")) rc = jack_connect(client, jack_port_name(tick_port), argv[a + 1]);
            else if (!strcmp(argv[a], "-T")) { rc = jack_connect(client, argv[a + 1], jack_port_name(tock_port)); probe = 1; }
            if (rc == 0 || rc == EEXIST) { rc = 0; break; }
            usleep(100000);
        }
        if (rc) {
            fprintf(stderr, "midisend: cannot connect %s %s\n", argv[a], argv[a + 1]);
            jack_client_close(client);
            return 66;
        }
    }
    atomic_store(&armed, 1);
    long total = (long)(seconds * jack_get_sample_rate(client));
    int waited_ms = 0, limit_ms = (int)(seconds * 1000) + 5000;
    while (atomic_load(&elapsed) < total && waited_ms < limit_ms) {
        usleep(10000);
        waited_ms += 10;
    }
    jack_deactivate(client);
    jack_client_close(client);
    printf("sent %zu failed %zu\n", atomic_load(&sent), atomic_load(&failed));
    size_t k = atomic_load(&nreceived);
    for (size_t i = 0; i < k; i++) {
        printf("recv %ld", received[i].frame);
        for (int b = 0; b < received[i].size; b++) printf(" %02x", received[i].bytes[b]);
        printf("\n");
    }
    if (probe) printf("cycles %ld\n", atomic_load(&ncompared));
    for (size_t i = 0; i < atomic_load(&nstale); i++) printf("stale %ld\n", stale[i]);
    for (size_t i = 0; i < atomic_load(&nxruns); i++) printf("xrun %ld\n", xruns[i]);
    return 0;
}
