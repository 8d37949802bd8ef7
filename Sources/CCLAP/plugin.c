// The CLAP plugin's C side: `clap_entry` (the shared object's only exported symbol), the factory
// with its one descriptor, the plugin's callbacks and its extensions (audio-ports, params, state,
// latency). What rack does is in Swift (RackCLAPPlugin, the rack_clap_* functions); this file
// only speaks CLAP. `process` walks the host's events here, in C, so the realtime Swift code
// sees plain numbers: it renders up to each parameter event's frame, then applies it.
#include "cclap.h"
#include <clap/entry.h>
#include <clap/ext/audio-ports.h>
#include <clap/ext/latency.h>
#include <clap/ext/params.h>
#include <clap/ext/state.h>
#include <clap/plugin-factory.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/// Largest state `load` accepts, in bytes (a state is about 20 bytes per parameter).
#define STATE_LIMIT 65536
/// Room for the parameters' values of a state loaded while active (the table has 13 rows).
#define MAX_PARAMS 64
/// Room for the meters' levels (there are 3: PluginMeter).
#define MAX_METERS 8

typedef struct {
    clap_plugin_t plugin;
    void *rack;      // the Swift instance
    bool active;
    /// A state loaded while active, for the audio thread to take at its next `process`: the
    /// main thread writes `pending`, then sets `pending_ready` (release); `process` sees it set
    /// (acquire), takes the values and clears it. One value handed over: a lock-free
    /// single-producer/single-consumer slot.
    double pending[MAX_PARAMS];
    atomic_bool pending_ready;
    /// The meters' levels (dBFS) after the last `process`, by PluginMeter order: the audio
    /// thread stores them, `get_value` on the main thread loads them (each on its own).
    _Atomic float meters[MAX_METERS];
    uint32_t meter_count;   // how many of them there are (read once, at creation)
} Instance;

static uint32_t meter_count(void) { return rack_clap_param_count() - rack_clap_table_count(); }

static const char *features[] = {CLAP_PLUGIN_FEATURE_AUDIO_EFFECT, CLAP_PLUGIN_FEATURE_REVERB,
                                       CLAP_PLUGIN_FEATURE_FILTER, CLAP_PLUGIN_FEATURE_STEREO, NULL};

/// The id is reverse-DNS as CLAP asks; rack has no domain of its own (see the README), so it is
/// the project's name under "org", never to change: hosts save sessions under it.
static const clap_plugin_descriptor_t descriptor = {
    .clap_version = CLAP_VERSION_INIT,
    .id = "org.rack.effects",
    .name = "rack effects",
    .vendor = "rack maintainers",
    .url = "",
    .manual_url = "",
    .support_url = "",
    .version = "1",
    .description = "resonant low-pass filter and stereo reverb",
    .features = features,
};

static Instance *self(const clap_plugin_t *p) { return (Instance *)p->plugin_data; }

static bool plugin_init(const clap_plugin_t *p) { (void)p; return true; }

static void plugin_destroy(const clap_plugin_t *p) {
    Instance *i = self(p);
    rack_clap_destroy(i->rack);
    free(i);
}

static bool plugin_activate(const clap_plugin_t *p, double rate, uint32_t min_frames, uint32_t max_frames) {
    (void)min_frames;
    Instance *i = self(p);
    i->active = rack_clap_activate(i->rack, rate, max_frames);
    return i->active;
}

static void plugin_deactivate(const clap_plugin_t *p) {
    Instance *i = self(p);
    if (atomic_load_explicit(&i->pending_ready, memory_order_acquire)) {   // no process() runs now
        rack_clap_take(i->rack, i->pending);
        atomic_store_explicit(&i->pending_ready, false, memory_order_relaxed);
    }
    rack_clap_deactivate(i->rack);
    i->active = false;
}

static bool plugin_start_processing(const clap_plugin_t *p) { return self(p)->active; }
static void plugin_stop_processing(const clap_plugin_t *p) { (void)p; }
/// `reset` [audio-thread, active]: the engine's history goes (tail, filter state), the values stay.
static void plugin_reset(const clap_plugin_t *p) {
    Instance *i = self(p);
    if (i->active) rack_clap_reset(i->rack);
}

static void channels(const clap_audio_buffer_t *buffers, uint32_t count, float **left, float **right) {
    *left = *right = NULL;
    if (count < 1 || !buffers[0].data32 || buffers[0].channel_count < 1) return;
    *left = buffers[0].data32[0];
    *right = buffers[0].channel_count >= 2 ? buffers[0].data32[1] : NULL;
}

static const clap_event_param_value_t *param_event(const clap_event_header_t *h) {
    if (!h || h->space_id != CLAP_CORE_EVENT_SPACE_ID || h->type != CLAP_EVENT_PARAM_VALUE) return NULL;
    if (h->size < sizeof(clap_event_param_value_t)) return NULL;
    return (const clap_event_param_value_t *)h;
}

/// Renders [from, to) of the block.
static void render(Instance *i, const clap_process_t *pr, uint32_t from, uint32_t to) {
    float *in_l, *in_r, *out_l, *out_r;
    channels(pr->audio_inputs, pr->audio_inputs_count, &in_l, &in_r);
    channels(pr->audio_outputs, pr->audio_outputs_count, &out_l, &out_r);
    rack_clap_render(i->rack, to - from, in_l ? in_l + from : NULL, in_r ? in_r + from : NULL,
                     out_l ? out_l + from : NULL, out_r ? out_r + from : NULL);
}

/// `process`: the block split at each parameter event's frame (events come in time order; an
/// event past the block applies at its end), bracketed by the runtime probe's hooks.
static clap_process_status plugin_process(const clap_plugin_t *p, const clap_process_t *pr) {
    Instance *i = self(p);
    if (!i->active || !pr) return CLAP_PROCESS_ERROR;
    if (rack_probe_enter) rack_probe_enter();
    if (atomic_load_explicit(&i->pending_ready, memory_order_acquire)) {
        rack_clap_take(i->rack, i->pending);
        atomic_store_explicit(&i->pending_ready, false, memory_order_release);
    }
    rack_clap_meters_start(i->rack);
    uint32_t frames = pr->frames_count, done = 0;
    uint32_t n = pr->in_events ? pr->in_events->size(pr->in_events) : 0;
    for (uint32_t k = 0; k < n; k++) {
        const clap_event_param_value_t *e = param_event(pr->in_events->get(pr->in_events, k));
        if (!e) continue;
        uint32_t at = e->header.time < frames ? e->header.time : frames;
        if (at > done) { render(i, pr, done, at); done = at; }
        rack_clap_set(i->rack, e->param_id, e->value);
    }
    render(i, pr, done, frames);
    float levels[MAX_METERS];
    rack_clap_meters(i->rack, levels);
    for (uint32_t m = 0; m < i->meter_count; m++) atomic_store_explicit(&i->meters[m], levels[m], memory_order_relaxed);
    if (rack_probe_leave) rack_probe_leave();
    return CLAP_PROCESS_CONTINUE;
}

// ---- audio-ports: one stereo pair, main

static uint32_t ports_count(const clap_plugin_t *p, bool is_input) { (void)p; (void)is_input; return 1; }

static bool ports_get(const clap_plugin_t *p, uint32_t index, bool is_input, clap_audio_port_info_t *info) {
    (void)p;
    if (index != 0 || !info) return false;
    memset(info, 0, sizeof *info);
    info->id = 0;
    strcpy(info->name, is_input ? "In" : "Out");
    info->flags = CLAP_AUDIO_PORT_IS_MAIN;
    info->channel_count = 2;
    info->port_type = CLAP_PORT_STEREO;
    info->in_place_pair = CLAP_INVALID_ID;
    return true;
}

static const clap_plugin_audio_ports_t audio_ports = {ports_count, ports_get};

// ---- params: the parameter table's rows

static uint32_t params_count(const clap_plugin_t *p) { (void)p; return rack_clap_param_count(); }

static bool params_info(const clap_plugin_t *p, uint32_t index, clap_param_info_t *info) {
    (void)p;
    if (!info) return false;
    memset(info, 0, sizeof *info);
    double range[3];
    if (!rack_clap_param_info(index, &info->id, &info->flags, range, info->name, sizeof info->name,
                              info->module, sizeof info->module)) return false;
    info->min_value = range[0];
    info->max_value = range[1];
    info->default_value = range[2];
    return true;
}

/// `get_value`: a state loaded while active and not yet taken by `process` already counts; a
/// meter reads its level after the last `process` (the floor before the first).
static bool params_value(const clap_plugin_t *p, clap_id id, double *value) {
    Instance *i = self(p);
    if (!value) return false;
    int32_t meter = rack_clap_meter_index(id);
    if (meter >= 0) {
        *value = atomic_load_explicit(&i->meters[meter], memory_order_relaxed);
        return true;
    }
    if (atomic_load_explicit(&i->pending_ready, memory_order_acquire)) {
        int32_t index = rack_clap_param_index(i->rack, id);
        if (index < 0) return false;
        *value = i->pending[index];
        return true;
    }
    return rack_clap_get(i->rack, id, value);
}

static bool params_to_text(const clap_plugin_t *p, clap_id id, double value, char *text, uint32_t size) {
    (void)p;
    return text && size > 0 && rack_clap_value_to_text(id, value, text, size);
}

static bool params_from_text(const clap_plugin_t *p, clap_id id, const char *text, double *value) {
    (void)p;
    return text && value && rack_clap_text_to_value(id, text, value);
}

/// `flush`: parameter events outside `process` (the values take effect at the next block).
static void params_flush(const clap_plugin_t *p, const clap_input_events_t *in, const clap_output_events_t *out) {
    (void)out;
    if (!in) return;
    uint32_t n = in->size(in);
    for (uint32_t k = 0; k < n; k++) {
        const clap_event_param_value_t *e = param_event(in->get(in, k));
        if (e) rack_clap_set(self(p)->rack, e->param_id, e->value);
    }
}

static const clap_plugin_params_t params = {params_count, params_info, params_value, params_to_text,
                                            params_from_text, params_flush};

// ---- state: the parameters' values as text (RackCLAPPlugin's CLAPState)

static bool state_save(const clap_plugin_t *p, const clap_ostream_t *stream) {
    char buffer[STATE_LIMIT];
    ptrdiff_t length = rack_clap_state_save(self(p)->rack, buffer, sizeof buffer);
    if (!stream || length >= (ptrdiff_t)sizeof buffer) return false;
    for (ptrdiff_t done = 0; done < length;) {
        int64_t n = stream->write(stream, buffer + done, (uint64_t)(length - done));
        if (n <= 0) return false;
        done += n;
    }
    return true;
}

static bool state_load(const clap_plugin_t *p, const clap_istream_t *stream) {
    static char buffer[STATE_LIMIT + 1];   // main thread only (CLAP's rule for the state)
    size_t length = 0;
    if (!stream) return false;
    for (;;) {
        if (length == STATE_LIMIT) return false;
        int64_t n = stream->read(stream, buffer + length, STATE_LIMIT - length);
        if (n < 0) return false;
        if (n == 0) break;
        length += (size_t)n;
    }
    buffer[length] = 0;
    if (strlen(buffer) != length) return false;   // a NUL inside: not a state
    Instance *i = self(p);
    uint32_t count = rack_clap_table_count();
    double values[MAX_PARAMS];
    if (count > MAX_PARAMS || !rack_clap_state_decode(buffer, values, count)) return false;
    if (!i->active) {   // no process() runs: the values are the plugin's at once
        rack_clap_take(i->rack, values);
        return true;
    }
    // Active: handed to the audio thread. A second load before process() took the first fails.
    if (atomic_load_explicit(&i->pending_ready, memory_order_acquire)) return false;
    memcpy(i->pending, values, sizeof(double) * count);
    atomic_store_explicit(&i->pending_ready, true, memory_order_release);
    return true;
}

static const clap_plugin_state_t state = {state_save, state_load};

// ---- latency: none

static uint32_t latency_get(const clap_plugin_t *p) { (void)p; return 0; }
static const clap_plugin_latency_t latency = {latency_get};

static const void *plugin_extension(const clap_plugin_t *p, const char *id) {
    (void)p;
    if (!id) return NULL;
    if (!strcmp(id, CLAP_EXT_AUDIO_PORTS)) return &audio_ports;
    if (!strcmp(id, CLAP_EXT_PARAMS)) return &params;
    if (!strcmp(id, CLAP_EXT_STATE)) return &state;
    if (!strcmp(id, CLAP_EXT_LATENCY)) return &latency;
    return NULL;
}

static void plugin_on_main_thread(const clap_plugin_t *p) { (void)p; }

// ---- the factory and the entry

static uint32_t factory_count(const clap_plugin_factory_t *f) { (void)f; return 1; }

static const clap_plugin_descriptor_t *factory_descriptor(const clap_plugin_factory_t *f, uint32_t index) {
    (void)f;
    return index == 0 ? &descriptor : NULL;
}

static const clap_plugin_t *factory_create(const clap_plugin_factory_t *f, const clap_host_t *host, const char *id) {
    (void)f;
    if (!host || !id || strcmp(id, descriptor.id) != 0 || meter_count() > MAX_METERS) return NULL;
    Instance *i = calloc(1, sizeof *i);
    if (!i) return NULL;
    atomic_init(&i->pending_ready, false);
    i->meter_count = meter_count();
    for (uint32_t m = 0; m < MAX_METERS; m++) atomic_init(&i->meters[m], rack_clap_meter_floor());
    i->rack = rack_clap_create();
    i->plugin = (clap_plugin_t){
        .desc = &descriptor, .plugin_data = i,
        .init = plugin_init, .destroy = plugin_destroy, .activate = plugin_activate,
        .deactivate = plugin_deactivate, .start_processing = plugin_start_processing,
        .stop_processing = plugin_stop_processing, .reset = plugin_reset, .process = plugin_process,
        .get_extension = plugin_extension, .on_main_thread = plugin_on_main_thread,
    };
    return &i->plugin;
}

static const clap_plugin_factory_t factory = {factory_count, factory_descriptor, factory_create};

static bool entry_init(const char *path) { (void)path; return true; }
static void entry_deinit(void) {}
static const void *entry_factory(const char *id) {
    return id && !strcmp(id, CLAP_PLUGIN_FACTORY_ID) ? &factory : NULL;
}

CLAP_EXPORT const clap_plugin_entry_t clap_entry = {CLAP_VERSION_INIT, entry_init, entry_deinit, entry_factory};
