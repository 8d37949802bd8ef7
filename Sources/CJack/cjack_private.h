/* The rack JACK client's context, shared by the files of this module (not part of its public
 * header, cjack.h: Swift sees only the opaque rack_jack_t). */
#ifndef RACK_CJACK_PRIVATE_H
#define RACK_CJACK_PRIVATE_H

#include "cjack.h"
#include <stdatomic.h>
#include <stdint.h>

/// Slots of the per-cycle DSP timings ring (`rack_jack_take_timings`).
#define TIMING_SLOTS 8192

struct rack_jack {
    jack_client_t *client;
    jack_port_t *ports[RACK_PORT_COUNT];  // by enum rack_port; the MIDI pair NULL without MIDI
    void *midi;
    rack_midi_fn midi_fn;
    rack_midi_event_t midi_events[RACK_MIDI_EVENTS_PER_CYCLE];
    uint8_t midi_out[3 * RACK_MIDI_OUT_PER_CYCLE];
    _Atomic uint64_t midi_dropped;
    void *engine;
    rack_render_fn render;
    uint32_t max_frames;
    int64_t rendered;               // process thread only
    _Atomic uint64_t xruns;
    _Atomic uint64_t cycles;
    _Atomic int shut_down;
    // The threads that delivered a shutdown notice (Linux thread ids; 0: none): jackd2's
    // notification thread, and its process thread when a cycle's wait failed.
    _Atomic int shutdown_threads[2];
    _Atomic uint32_t buffer_size;
    _Atomic int connections_changed;
    _Atomic int ports_registered;   // a port of any client appeared (connect wanted peers)
    _Atomic uint64_t ports_unregistered;   // ports of any client gone, counted
    _Atomic uint32_t sample_rate;   // from the sample-rate callback
    // Engine hold: while `hold` is set the process callback outputs silence and leaves the
    // engine alone; it acknowledges with `held` from a cycle that did not render, so once the
    // control thread sees `held` it may replace the engine (and `rendered`) before releasing.
    _Atomic int hold;
    _Atomic int held;
    // Seqlock: the process thread publishes (cycle frame, engine time) pairs.
    _Atomic uint32_t seq;
    _Atomic uint32_t cycle_frame;
    _Atomic int64_t engine_time;
    _Atomic int mapping_valid;      // 0 after an engine swap until the next cycle publishes
    // DSP time per cycle, ns: single producer (process thread), single consumer.
    uint32_t timings[TIMING_SLOTS];
    _Atomic uint64_t timing_write;
    uint64_t timing_read;
};

#endif
