#include "cjack_private.h"
#include <jack/metadata.h>
#include <jack/midiport.h>
#include <jack/session.h>
#include <jack/uuid.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stddef.h>
#include <time.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic int wake_fd = -1;

void rack_wake_install(int fd) { atomic_store(&wake_fd, fd); }

/// A byte to the control thread's wake pipe (async-signal-safe; a full pipe already wakes).
/// Called from JACK's notification thread and the stop signals' handler, never from `process`.
static void wake_control(void) {
    int fd = atomic_load(&wake_fd);
    if (fd < 0) return;
    char one = 1;
    ssize_t n = write(fd, &one, 1);
    (void)n;
}

jack_client_t *rack_jack_client_open(const char *client_name, jack_options_t options,
                                     jack_status_t *status, const char *server_name) {
    if (server_name != NULL) {
        return jack_client_open(client_name, options | JackServerName, status, server_name);
    }
    return jack_client_open(client_name, options, status);
}


/// The JACK short names of the ports, by enum rack_port.
static const char *const port_names[RACK_PORT_COUNT] = {"in_1", "in_2", "out_1", "out_2", "midi_in", "midi_out"};


/// The MIDI stage: collects the cycle's input events, lets the engine's MIDI router schedule
/// them (and say what to send back), writes its feedback at frame 0. Realtime-safe: the JACK
/// MIDI calls are made for the process thread, the arrays live in the context.
static void run_midi(struct rack_jack *c, jack_nframes_t nframes) {
    void *in = jack_port_get_buffer(c->ports[RACK_PORT_MIDI_IN], nframes);
    void *out = jack_port_get_buffer(c->ports[RACK_PORT_MIDI_OUT], nframes);
    if (out) jack_midi_clear_buffer(out);
    uint32_t count = 0;
    if (in) {
        uint32_t n = jack_midi_get_event_count(in);
        for (uint32_t i = 0; i < n; i++) {
            jack_midi_event_t e;
            if (jack_midi_event_get(&e, in, i) != 0) continue;
            if (count == RACK_MIDI_EVENTS_PER_CYCLE) {
                atomic_fetch_add_explicit(&c->midi_dropped, 1, memory_order_relaxed);
                continue;
            }
            c->midi_events[count].frame = e.time < nframes ? e.time : nframes - 1;
            c->midi_events[count].size = (uint32_t)e.size;
            c->midi_events[count].data = e.buffer;
            count++;
        }
    }
    uint32_t sent = c->midi_fn(c->midi, c->engine, nframes, c->midi_events, count, c->midi_out, RACK_MIDI_OUT_PER_CYCLE);
    for (uint32_t i = 0; out && i < sent && i < RACK_MIDI_OUT_PER_CYCLE; i++) {
        if (jack_midi_event_write(out, 0, c->midi_out + 3 * i, 3) != 0)
            atomic_fetch_add_explicit(&c->midi_dropped, 1, memory_order_relaxed);
    }
}

static int process(jack_nframes_t nframes, void *arg) {
    struct rack_jack *c = arg;
    struct timespec t0, t1;
    if (atomic_load_explicit(&c->hold, memory_order_acquire)) {
        float *ol = jack_port_get_buffer(c->ports[RACK_PORT_OUT_1], nframes);
        float *orr = jack_port_get_buffer(c->ports[RACK_PORT_OUT_2], nframes);
        if (ol) memset(ol, 0, sizeof(float) * nframes);
        if (orr) memset(orr, 0, sizeof(float) * nframes);
        if (c->ports[RACK_PORT_MIDI_OUT])
            jack_midi_clear_buffer(jack_port_get_buffer(c->ports[RACK_PORT_MIDI_OUT], nframes));
        atomic_store_explicit(&c->held, 1, memory_order_release);
        return 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (rack_probe_enter) rack_probe_enter();

    const float *in_l = jack_port_get_buffer(c->ports[RACK_PORT_IN_1], nframes);
    const float *in_r = jack_port_get_buffer(c->ports[RACK_PORT_IN_2], nframes);
    float *out_l = jack_port_get_buffer(c->ports[RACK_PORT_OUT_1], nframes);
    float *out_r = jack_port_get_buffer(c->ports[RACK_PORT_OUT_2], nframes);

    uint32_t s = atomic_load_explicit(&c->seq, memory_order_relaxed);
    atomic_store_explicit(&c->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&c->cycle_frame, jack_last_frame_time(c->client), memory_order_relaxed);
    atomic_store_explicit(&c->engine_time, c->rendered, memory_order_relaxed);
    atomic_store_explicit(&c->seq, s + 2, memory_order_release);
    atomic_store_explicit(&c->mapping_valid, 1, memory_order_release);

    if (c->midi_fn) run_midi(c, nframes);

    uint32_t done = 0;
    while (done < nframes) {
        uint32_t n = nframes - done;
        if (n > c->max_frames) n = c->max_frames;
        c->render(c->engine, n, in_l + done, in_r + done, out_l + done, out_r + done);
        done += n;
    }
    c->rendered += nframes;
    atomic_fetch_add_explicit(&c->cycles, 1, memory_order_relaxed);

    if (rack_probe_leave) rack_probe_leave();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int64_t ns = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec);
    uint64_t w = atomic_load_explicit(&c->timing_write, memory_order_relaxed);
    c->timings[w % TIMING_SLOTS] = ns > 0xffffffffLL ? 0xffffffffu : (uint32_t)ns;
    atomic_store_explicit(&c->timing_write, w + 1, memory_order_release);
    return 0;
}

static int on_xrun(void *arg) {
    struct rack_jack *c = arg;
    atomic_fetch_add_explicit(&c->xruns, 1, memory_order_relaxed);
    return 0;
}

/// Remembers the calling thread as one that delivered a shutdown notice (at most two: jackd2
/// says it from its notification thread, and from the process thread when a wait failed).
static void note_shutdown_thread(struct rack_jack *c) {
    int tid = (int)syscall(SYS_gettid);
    for (int i = 0; i < 2; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&c->shutdown_threads[i], &expected, tid) || expected == tid) return;
    }
}

static void on_shutdown(jack_status_t code, const char *reason, void *arg) {
    (void)code; (void)reason;
    struct rack_jack *c = arg;
    note_shutdown_thread(c);
    atomic_store(&c->shut_down, 1);
    wake_control();
}

/// PipeWire's JACK (0.3.65) calls only the plain shutdown callback; jackd2 calls the info one
/// first, and the plain one when a second thread says the same.
static void on_plain_shutdown(void *arg) {
    struct rack_jack *c = arg;
    note_shutdown_thread(c);
    atomic_store(&c->shut_down, 1);
    wake_control();
}

int rack_jack_await_shutdown_threads(const rack_jack_t *cc, int timeout_ms) {
    struct rack_jack *c = (struct rack_jack *)cc;
    pid_t pid = getpid();
    for (int waited = 0;; waited++) {
        int running = 0;
        for (int i = 0; i < 2; i++) {
            int tid = atomic_load(&c->shutdown_threads[i]);
            if (tid != 0 && !(syscall(SYS_tgkill, pid, tid, 0) != 0 && errno == ESRCH)) running = 1;
        }
        if (!running) return 1;
        if (waited >= timeout_ms) return 0;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

static int on_sample_rate(jack_nframes_t rate, void *arg) {
    struct rack_jack *c = arg;
    atomic_store(&c->sample_rate, rate);
    wake_control();
    return 0;
}

static void on_port_registration(jack_port_id_t port, int registered, void *arg) {
    (void)port;
    struct rack_jack *c = arg;
    if (registered) atomic_store(&c->ports_registered, 1);
    else atomic_fetch_add(&c->ports_unregistered, 1);
    wake_control();
}

static int on_buffer_size(jack_nframes_t nframes, void *arg) {
    struct rack_jack *c = arg;
    atomic_store(&c->buffer_size, nframes);
    wake_control();
    return 0;
}

static void on_port_connect(jack_port_id_t a, jack_port_id_t b, int connect, void *arg) {
    (void)a; (void)b; (void)connect;
    struct rack_jack *c = arg;
    atomic_store(&c->connections_changed, 1);
    wake_control();
}

rack_jack_t *rack_jack_create(jack_client_t *client, void *engine, rack_render_fn render, uint32_t max_frames,
                              int64_t start_time) {
    struct rack_jack *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->client = client;
    c->engine = engine;
    c->render = render;
    c->max_frames = max_frames;
    c->rendered = start_time;
    for (int i = RACK_PORT_IN_1; i <= RACK_PORT_OUT_2; i++) {
        c->ports[i] = jack_port_register(client, port_names[i], JACK_DEFAULT_AUDIO_TYPE,
                                         i <= RACK_PORT_IN_2 ? JackPortIsInput : JackPortIsOutput, 0);
        if (!c->ports[i]) {
            for (int j = 0; j < i; j++) jack_port_unregister(client, c->ports[j]);
            free(c);
            return NULL;
        }
    }
    atomic_store(&c->buffer_size, jack_get_buffer_size(client));
    atomic_store(&c->sample_rate, jack_get_sample_rate(client));
    jack_set_process_callback(client, process, c);
    jack_set_xrun_callback(client, on_xrun, c);
    jack_on_shutdown(client, on_plain_shutdown, c);
    jack_on_info_shutdown(client, on_shutdown, c);
    jack_set_sample_rate_callback(client, on_sample_rate, c);
    jack_set_port_registration_callback(client, on_port_registration, c);
    jack_set_buffer_size_callback(client, on_buffer_size, c);
    jack_set_port_connect_callback(client, on_port_connect, c);
    return c;
}

void rack_jack_destroy(rack_jack_t *c) { free(c); }

const char *rack_jack_port_short_name(int index) {
    return (index >= 0 && index < RACK_PORT_COUNT) ? port_names[index] : NULL;
}

jack_port_t *rack_jack_port(rack_jack_t *c, int index) {
    return (index >= 0 && index < RACK_PORT_COUNT) ? c->ports[index] : NULL;
}

int rack_jack_enable_midi(rack_jack_t *c, void *midi, rack_midi_fn fn) {
    jack_port_t **in = &c->ports[RACK_PORT_MIDI_IN], **out = &c->ports[RACK_PORT_MIDI_OUT];
    *in = jack_port_register(c->client, port_names[RACK_PORT_MIDI_IN], JACK_DEFAULT_MIDI_TYPE, JackPortIsInput, 0);
    *out = jack_port_register(c->client, port_names[RACK_PORT_MIDI_OUT], JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput, 0);
    if (!*in || !*out) {
        if (*in) jack_port_unregister(c->client, *in);
        if (*out) jack_port_unregister(c->client, *out);
        *in = *out = NULL;
        return 0;
    }
    c->midi = midi;
    c->midi_fn = fn;
    return 1;
}

uint64_t rack_jack_midi_dropped(const rack_jack_t *c) { return atomic_load(&((struct rack_jack *)c)->midi_dropped); }
uint64_t rack_jack_xruns(const rack_jack_t *c) { return atomic_load(&((struct rack_jack *)c)->xruns); }
int rack_jack_take_connections_changed(rack_jack_t *c) { return atomic_exchange(&c->connections_changed, 0); }
int rack_jack_take_ports_registered(rack_jack_t *c) { return atomic_exchange(&c->ports_registered, 0); }
uint64_t rack_jack_ports_unregistered(const rack_jack_t *c) { return atomic_load(&((struct rack_jack *)c)->ports_unregistered); }
uint32_t rack_jack_sample_rate(const rack_jack_t *c) { return atomic_load(&((struct rack_jack *)c)->sample_rate); }
uint32_t rack_jack_settle_sample_rate(rack_jack_t *c, uint32_t announced, uint32_t now) {
    uint32_t expected = announced;
    if (atomic_compare_exchange_strong(&c->sample_rate, &expected, now)) return now;
    return expected;   // the callback said otherwise since: that is the newer word
}

void rack_jack_hold(rack_jack_t *c) {
    atomic_store(&c->held, 0);
    atomic_store(&c->hold, 1);
}
int rack_jack_is_held(const rack_jack_t *c) { return atomic_load(&((struct rack_jack *)c)->held); }
int rack_jack_holding(const rack_jack_t *c) { return atomic_load(&((struct rack_jack *)c)->hold); }
void rack_jack_replace_engine(rack_jack_t *c, void *engine, uint32_t max_frames, int64_t start_time) {
    // Only while held: the process thread does not touch these now, and reads them after it
    // sees the release below.
    c->engine = engine;
    c->max_frames = max_frames;
    c->rendered = start_time;
    // The published (frame, engine time) pair belongs to the old engine.
    atomic_store(&c->mapping_valid, 0);
}
void rack_jack_release(rack_jack_t *c) {
    atomic_store(&c->held, 0);
    atomic_store_explicit(&c->hold, 0, memory_order_release);
}

uint64_t rack_jack_cycles(const rack_jack_t *c) { return atomic_load(&((struct rack_jack *)c)->cycles); }
int rack_jack_is_shut_down(const rack_jack_t *c) { return atomic_load(&((struct rack_jack *)c)->shut_down); }
uint32_t rack_jack_buffer_size(const rack_jack_t *c) { return atomic_load(&((struct rack_jack *)c)->buffer_size); }

int rack_jack_time_mapping(const rack_jack_t *cc, uint32_t *cycle_frame, int64_t *engine_time) {
    struct rack_jack *c = (struct rack_jack *)cc;
    if (atomic_load(&c->cycles) == 0 || !atomic_load_explicit(&c->mapping_valid, memory_order_acquire)) return 0;
    for (;;) {
        uint32_t s1 = atomic_load_explicit(&c->seq, memory_order_acquire);
        if (s1 & 1) continue;
        uint32_t f = atomic_load_explicit(&c->cycle_frame, memory_order_relaxed);
        int64_t t = atomic_load_explicit(&c->engine_time, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&c->seq, memory_order_relaxed) == s1) {
            *cycle_frame = f;
            *engine_time = t;
            return 1;
        }
    }
}

int rack_jack_take_timings(rack_jack_t *c, uint32_t *out, int max) {
    uint64_t w = atomic_load_explicit(&c->timing_write, memory_order_acquire);
    if (w - c->timing_read > TIMING_SLOTS) c->timing_read = w - TIMING_SLOTS;
    int n = 0;
    while (c->timing_read < w && n < max) out[n++] = c->timings[c->timing_read++ % TIMING_SLOTS];
    return n;
}

const char *rack_jack_library_version(void) { return jack_get_version_string(); }

static volatile sig_atomic_t stop_requested = 0;

static void on_stop_signal(int sig) {
    (void)sig;
    stop_requested = 1;
    wake_control();
}

void rack_signals_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int rack_signals_stop_requested(void) { return stop_requested; }
