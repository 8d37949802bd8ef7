#ifndef RACK_CJACK_H
#define RACK_CJACK_H
#include <jack/jack.h>
#include <jack/types.h>
#include <stdint.h>
#include <stddef.h>

/// Non-variadic wrapper around jack_client_open (Swift cannot call C variadics).
/// server_name may be NULL (JACK_DEFAULT_SERVER or "default").
jack_client_t *rack_jack_client_open(const char *client_name, jack_options_t options,
                                     jack_status_t *status, const char *server_name);

/// The engine's render entry point as the process callback calls it.
typedef int (*rack_render_fn)(void *engine, uint32_t frames,
                              const float *in_left, const float *in_right,
                              float *out_left, float *out_right);

typedef struct rack_jack rack_jack_t;

/// One JACK MIDI event of the cycle: its frame offset and its bytes (valid during the cycle).
typedef struct {
    uint32_t frame;
    uint32_t size;
    const uint8_t *data;
} rack_midi_event_t;

/// The MIDI stage as the process callback calls it, before the render: the cycle's input
/// events (in frame order), and room for `out_capacity` 3-byte messages to send at frame 0;
/// returns how many it wrote.
typedef uint32_t (*rack_midi_fn)(void *midi, void *engine, uint32_t frames,
                                 const rack_midi_event_t *events, uint32_t count,
                                 uint8_t *out, uint32_t out_capacity);

/// Most MIDI input events one cycle passes on (more are dropped and counted): 10,000 events
/// a second at a 4096-frame period at 48 kHz is 853 a cycle.
#define RACK_MIDI_EVENTS_PER_CYCLE 2048
/// Most feedback messages one cycle sends.
#define RACK_MIDI_OUT_PER_CYCLE 64

/// Creates the process-callback context for an open client: registers in_1 in_2 out_1 out_2
/// and sets the process, xrun, shutdown (plain and info), sample-rate, port-registration,
/// buffer-size and freewheel callbacks. Returns NULL
/// (and closes nothing) if a port cannot be registered. Render calls are split into chunks
/// of at most max_frames. start_time is the engine's sample time when the first cycle runs.
/// engine may be NULL if the context is held (rack_jack_hold) before activation and given
/// one with rack_jack_replace_engine before it is released.
rack_jack_t *rack_jack_create(jack_client_t *client, void *engine, rack_render_fn render, uint32_t max_frames,
                              int64_t start_time);
/// Frees the context (after jack_client_close, or deactivate).
void rack_jack_destroy(rack_jack_t *c);

/// The client's ports, by index: the audio pair in and out, then MIDI in and out (these two
/// exist only once rack_jack_enable_midi succeeded).
enum rack_port {
    RACK_PORT_IN_1, RACK_PORT_IN_2, RACK_PORT_OUT_1, RACK_PORT_OUT_2, RACK_PORT_MIDI_IN, RACK_PORT_MIDI_OUT,
    RACK_PORT_COUNT
};
/// The JACK short name of port `index` (`in_1` …), NULL for an index past the last.
const char *rack_jack_port_short_name(int index);
/// The port `index` (see `enum rack_port`), NULL when it is not registered.
jack_port_t *rack_jack_port(rack_jack_t *c, int index);

/// Registers midi_in and midi_out and runs `fn` with `midi` every cycle (call before
/// jack_activate). Returns 0 when a port cannot be registered (the rack runs without MIDI).
int rack_jack_enable_midi(rack_jack_t *c, void *midi, rack_midi_fn fn);
/// MIDI input events dropped because a cycle had more than RACK_MIDI_EVENTS_PER_CYCLE, and
/// feedback messages the output buffer had no room for.
uint64_t rack_jack_midi_dropped(const rack_jack_t *c);

/// Sets JACK metadata pretty names on the ports ("<client_name> input L" …) and on the client
/// ("<client_name> effects"), so that two racks read apart in a patchbay.
/// Returns the number of properties that could not be set (0 when all went through).
int rack_jack_set_pretty_names(rack_jack_t *c, const char *client_name);
/// Removes the properties set above (before closing the client).
void rack_jack_remove_pretty_names(rack_jack_t *c);

uint64_t rack_jack_xruns(const rack_jack_t *c);
/// True (once) when a connection of any port changed since the last call.
int rack_jack_take_connections_changed(rack_jack_t *c);
/// True (once) when a port of any client was registered since the last call.
int rack_jack_take_ports_registered(rack_jack_t *c);
/// How many ports (of any client) went away since the client was created.
uint64_t rack_jack_ports_unregistered(const rack_jack_t *c);
/// The server's sample rate as the sample-rate callback last reported it.
uint32_t rack_jack_sample_rate(const rack_jack_t *c);
/// Settles the rate after activation: if the callback has not changed it from `announced`
/// (the library's answer before activation), stores `now` (its answer after the first cycle)
/// and returns it; else returns what the callback said.
uint32_t rack_jack_settle_sample_rate(rack_jack_t *c, uint32_t announced, uint32_t now);

/// Engine hold, for replacing the engine under a running client: `hold` makes the process
/// callback output silence without touching the engine; `is_held` says a cycle has done so
/// (from then on the engine is free); `replace_engine` only while held; `release` resumes.
void rack_jack_hold(rack_jack_t *c);
int rack_jack_is_held(const rack_jack_t *c);
int rack_jack_holding(const rack_jack_t *c);
void rack_jack_replace_engine(rack_jack_t *c, void *engine, uint32_t max_frames, int64_t start_time);
void rack_jack_release(rack_jack_t *c);

/// The client name the server gave us (what other clients see), into buf. 1 if found.
int rack_jack_real_client_name(rack_jack_t *c, char *buf, size_t size);
/// jack_get_version_string(): "1.9.21" from jackd2's library, "3.0.0.0 (using PipeWire
/// 0.3.65)" from PipeWire's.
const char *rack_jack_library_version(void);

uint64_t rack_jack_cycles(const rack_jack_t *c);
int rack_jack_is_shut_down(const rack_jack_t *c);
/// After a shutdown notice: waits (at most timeout_ms) until the threads that delivered it have
/// ended. jackd2's notification thread goes on after the notice (it drops the server's other
/// clients under a lock of the library's), and jack_client_close cancels it at once wherever
/// it is: cancelled under that lock, it leaves the lock held and the close waits on it for
/// ever. Once the server is gone the thread ends by itself. 1 when they ended, 0 on timeout.
int rack_jack_await_shutdown_threads(const rack_jack_t *c, int timeout_ms);
uint32_t rack_jack_buffer_size(const rack_jack_t *c);

/// The frame time (jack_last_frame_time) of the latest cycle and the engine sample time at
/// its start, read consistently. Returns 0 before the first cycle.
int rack_jack_time_mapping(const rack_jack_t *c, uint32_t *cycle_frame, int64_t *engine_time);

/// Takes up to max DSP times (ns per process cycle, oldest first) measured since the last call.
int rack_jack_take_timings(rack_jack_t *c, uint32_t *out, int max);

/// Installs SIGINT/SIGTERM handlers that only set a flag and wake the control thread
/// (`rack_wake_install`; both async-signal-safe), for the control loop to see. Call before
/// announcing readiness.
/// The control thread's wake: `fd` is the write end of a non-blocking pipe the control thread
/// polls beside its socket. JACK's notification callbacks that need the control thread (the
/// server going away, a sample rate or buffer size, a port registered or gone, a connection
/// made or undone) and the stop signals write a byte to it; the process callback never does.
/// -1 (the start): no wake.
void rack_wake_install(int fd);

void rack_signals_install(void);
int rack_signals_stop_requested(void);

/// Hooks a runtime probe (an LD_PRELOADed library counting heap, lock and I/O calls) may
/// define: called around every render on the process thread. Weak: absent in normal runs.
void rack_probe_enter(void) __attribute__((weak));
void rack_probe_leave(void) __attribute__((weak));
#endif
