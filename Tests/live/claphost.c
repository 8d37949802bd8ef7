/* A minimal CLAP host for the CLAP plugin's tests: it dlopens rack.clap, takes `clap_entry`,
 * the plugin factory and its one plugin, and runs stereo float input through it in blocks of a
 * given pattern, with parameter events at chosen frames.
 *
 *   claphost -l LIB [-r RATE] [-m MAXBLOCK] [-b B1,B2,...] [-i IN.f32 -o OUT.f32]
 *            [-c ID=VALUE]... [-s FRAME:ID=VALUE]... [-L STATE] [-S STATE] [-a] [-P] [-x]
 *            [-t ID=TEXT]... [-M FRAME:STATE] [-V] [-R FRAME]
 *
 * IN/OUT: interleaved stereo float32. -b: block lengths, cycled (0 is a process() of 0 frames).
 * -c: a parameter's value before activation (params.flush). -s: a CLAP_EVENT_PARAM_VALUE at
 * absolute FRAME, given to the process() call that holds that frame, at its offset (VALUE may be
 * nan). -L: load a state (state.load) before activation; -S: save the state after processing.
 * -a: a second pass after deactivate/activate, appended. -P: print the descriptor and every
 * parameter (id, name, min, max, default, flags, module, value_to_text of the default and
 * text_to_value of that text). -x: the hostile calls (process before activate, unknown ids,
 * a bad state, a wrong plugin id); prints "hostile: ok". -t: prints "text<TAB>TEXT<TAB>VALUE",
 * text_to_value's answer ("none" when it takes none). -M: load a state while active, before the
 * first process() that starts at or after FRAME. -V: after the last process(), prints
 * "meter<TAB>NAME<TAB>VALUE" for every read-only parameter (get_value). -R: reset() before the
 * first process() that starts at or after FRAME. Exit 1 on any failure. */
#include <clap/entry.h>
#include <clap/ext/audio-ports.h>
#include <clap/ext/latency.h>
#include <clap/ext/params.h>
#include <clap/ext/state.h>
#include <clap/plugin-factory.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 256

static void fail(const char *what) { fprintf(stderr, "claphost: %s\n", what); exit(1); }

typedef struct { long frame; clap_id id; double value; } Set;
typedef struct { clap_event_param_value_t *events; uint32_t count; } List;

static uint32_t list_size(const clap_input_events_t *l) { return ((const List *)l->ctx)->count; }
static const clap_event_header_t *list_get(const clap_input_events_t *l, uint32_t i) {
    const List *list = l->ctx;
    return i < list->count ? &list->events[i].header : NULL;
}
static bool out_push(const clap_output_events_t *l, const clap_event_header_t *e) { (void)l; (void)e; return true; }

static clap_event_param_value_t param_event(uint32_t time, clap_id id, double value) {
    clap_event_param_value_t e = {{sizeof e, time, CLAP_CORE_EVENT_SPACE_ID, CLAP_EVENT_PARAM_VALUE, 0},
                                  id, NULL, -1, -1, -1, -1, value};
    return e;
}

static const void *host_extension(const clap_host_t *h, const char *id) { (void)h; (void)id; return NULL; }
static void host_request(const clap_host_t *h) { (void)h; }
static const clap_host_t host = {CLAP_VERSION_INIT, NULL, "claphost", "rack tests", "", "1",
                                 host_extension, host_request, host_request, host_request};

typedef struct { char *data; size_t size, cap, pos; } Buffer;
static int64_t buf_write(const clap_ostream_t *s, const void *p, uint64_t n) {
    Buffer *b = s->ctx;
    if (b->size + n > b->cap) { b->cap = (b->size + n) * 2; b->data = realloc(b->data, b->cap); }
    memcpy(b->data + b->size, p, n);
    b->size += n;
    return (int64_t)n;
}
/* Reads in pieces of at most 7 bytes: the plugin must loop. */
static int64_t buf_read(const clap_istream_t *s, void *p, uint64_t n) {
    Buffer *b = s->ctx;
    uint64_t k = b->size - b->pos < n ? b->size - b->pos : n;
    if (k > 7) k = 7;
    memcpy(p, b->data + b->pos, k);
    b->pos += k;
    return (int64_t)k;
}

static Buffer read_file(const char *path) {
    Buffer b = {0};
    FILE *f = fopen(path, "rb");
    if (!f) fail("cannot open a file");
    fseek(f, 0, SEEK_END);
    b.size = b.cap = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    b.data = malloc(b.size + 1);
    if (fread(b.data, 1, b.size, f) != b.size) fail("short file");
    fclose(f);
    return b;
}

static const clap_plugin_t *create(const clap_plugin_factory_t *factory, const char *id) {
    const clap_plugin_t *p = factory->create_plugin(factory, &host, id);
    if (!p || !p->init(p)) fail("create_plugin or init failed");
    return p;
}

static void print_params(const clap_plugin_t *p, const clap_plugin_params_t *params) {
    printf("plugin\t%s\t%s\t%s\t", p->desc->id, p->desc->name, p->desc->vendor);
    for (const char *const *f = p->desc->features; *f; f++) printf("%s%s", *f, f[1] ? "," : "\n");
    const clap_plugin_latency_t *lat = p->get_extension(p, CLAP_EXT_LATENCY);
    const clap_plugin_audio_ports_t *ports = p->get_extension(p, CLAP_EXT_AUDIO_PORTS);
    clap_audio_port_info_t in, out;
    if (!lat || !ports || !ports->get(p, 0, true, &in) || !ports->get(p, 0, false, &out)) fail("no latency or audio ports");
    printf("ports\t%u:%u\t%u:%u\t%s\t%u\n", ports->count(p, true), ports->count(p, false), in.channel_count,
           out.channel_count, in.port_type, in.flags & out.flags & CLAP_AUDIO_PORT_IS_MAIN);
    printf("latency\t%u\n", lat->get(p));
    for (uint32_t i = 0; i < params->count(p); i++) {
        clap_param_info_t info;
        char text[256];
        double back = NAN, value = NAN;
        if (!params->get_info(p, i, &info) || !params->get_value(p, info.id, &value)) fail("get_info or get_value failed");
        if (!params->value_to_text(p, info.id, info.default_value, text, sizeof text)) fail("value_to_text failed");
        if (!params->text_to_value(p, info.id, text, &back)) fail("text_to_value failed");
        printf("param\t%u\t%s\t%.17g\t%.17g\t%.17g\t%u\t%s\t%s\t%.17g\t%.17g\n", info.id, info.name, info.min_value,
               info.max_value, info.default_value, info.flags, info.module, text, back, value);
    }
}

static void print_meters(const clap_plugin_t *p, const clap_plugin_params_t *params) {
    for (uint32_t i = 0; i < params->count(p); i++) {
        clap_param_info_t info;
        double value;
        if (!params->get_info(p, i, &info)) fail("get_info failed");
        if (!(info.flags & CLAP_PARAM_IS_READONLY)) continue;
        if (!params->get_value(p, info.id, &value)) fail("get_value of a meter failed");
        printf("meter\t%s\t%.17g\n", info.name, value);
    }
}

static void hostile(const clap_plugin_factory_t *factory, const clap_plugin_t *p, const clap_plugin_params_t *params,
                    const clap_plugin_state_t *state) {
    if (factory->create_plugin(factory, &host, "org.example.other")) fail("a wrong plugin id made a plugin");
    if (factory->get_plugin_descriptor(factory, 1)) fail("a second descriptor");
    float zeros[64] = {0}, out_l[64], out_r[64];
    float *ins[2] = {zeros, zeros}, *outs[2] = {out_l, out_r};
    clap_audio_buffer_t in = {ins, NULL, 2, 0, 0}, out = {outs, NULL, 2, 0, 0};
    clap_event_param_value_t ev[3] = {param_event(0, 0xFFFFFFFFu, 1), param_event(1, 12345, 1), param_event(2, 0, NAN)};
    List list = {ev, 3};
    clap_input_events_t events = {&list, list_size, list_get};
    clap_output_events_t oevents = {NULL, out_push};
    clap_process_t pr = {-1, 64, NULL, &in, &out, 1, 1, &events, &oevents};
    if (p->process(p, &pr) != CLAP_PROCESS_ERROR) fail("process before activate did not fail");
    double v;
    char text[64];
    if (params->get_value(p, 12345, &v)) fail("get_value of an unknown id");
    if (params->value_to_text(p, 12345, 0, text, sizeof text)) fail("value_to_text of an unknown id");
    if (params->text_to_value(p, 12345, "1", &v)) fail("text_to_value of an unknown id");
    Buffer bad = {"not a state", 11, 11, 0};
    clap_istream_t is = {&bad, buf_read};
    if (state->load(p, &is)) fail("a bad state loaded");
    if (!p->activate(p, 48000, 1, 64)) fail("activate failed");
    pr.frames_count = 0;
    if (p->process(p, &pr) != CLAP_PROCESS_CONTINUE) fail("process of 0 frames failed");
    pr.frames_count = 64;
    pr.audio_outputs_count = 0;   // no output buffers at all: rendered into the plugin's sink
    pr.audio_inputs_count = 0;
    if (p->process(p, &pr) != CLAP_PROCESS_CONTINUE) fail("process without buffers failed");
    p->deactivate(p);
    if (p->activate(p, 4000, 1, 64)) fail("activate at 4 kHz succeeded");
    printf("hostile: ok\n");
}

int main(int argc, char **argv) {
    const char *lib = NULL, *in_path = NULL, *out_path = NULL, *load = NULL, *save = NULL, *mid_state = NULL;
    long mid_frame = -1, reset_frame = -1;
    double rate = 48000;
    uint32_t max_block = 4096;
    long blocks[256]; int n_blocks = 0, twice = 0, print = 0, hostile_calls = 0, meters = 0;
    Set sets[MAX_EVENTS], initial[MAX_EVENTS]; int n_sets = 0, n_initial = 0, n_texts = 0;
    const char *texts[MAX_EVENTS];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-a")) { twice = 1; continue; }
        if (!strcmp(a, "-P")) { print = 1; continue; }
        if (!strcmp(a, "-x")) { hostile_calls = 1; continue; }
        if (!strcmp(a, "-V")) { meters = 1; continue; }
        if (!v) fail("an option needs a value");
        i++;
        if (!strcmp(a, "-l")) lib = v;
        else if (!strcmp(a, "-r")) rate = atof(v);
        else if (!strcmp(a, "-m")) max_block = (uint32_t)atol(v);
        else if (!strcmp(a, "-i")) in_path = v;
        else if (!strcmp(a, "-o")) out_path = v;
        else if (!strcmp(a, "-L")) load = v;
        else if (!strcmp(a, "-R")) reset_frame = atol(v);
        else if (!strcmp(a, "-S")) save = v;
        else if (!strcmp(a, "-M")) { char *c = strchr(v, ':'); if (!c) fail("bad -M"); mid_frame = atol(v); mid_state = c + 1; }
        else if (!strcmp(a, "-t")) { if (n_texts == MAX_EVENTS) fail("too many -t"); texts[n_texts++] = v; }
        else if (!strcmp(a, "-b")) {
            char *s = strdup(v);
            for (char *t = strtok(s, ","); t && n_blocks < 256; t = strtok(NULL, ",")) blocks[n_blocks++] = atol(t);
        } else if (!strcmp(a, "-c")) {
            if (n_initial == MAX_EVENTS || sscanf(v, "%u=%lf", &initial[n_initial].id, &initial[n_initial].value) != 2) fail("bad -c");
            n_initial++;
        } else if (!strcmp(a, "-s")) {
            if (n_sets == MAX_EVENTS || sscanf(v, "%ld:%u=%lf", &sets[n_sets].frame, &sets[n_sets].id, &sets[n_sets].value) != 3) fail("bad -s");
            n_sets++;
        } else fail("unknown option");
    }
    if (!lib) fail("usage: see the source");
    if (!n_blocks) blocks[n_blocks++] = 256;

    void *so = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!so) { fprintf(stderr, "claphost: %s\n", dlerror()); return 1; }
    const clap_plugin_entry_t *entry = dlsym(so, "clap_entry");
    if (!entry || !clap_version_is_compatible(entry->clap_version) || !entry->init(lib)) fail("no usable clap_entry");
    const clap_plugin_factory_t *factory = entry->get_factory(CLAP_PLUGIN_FACTORY_ID);
    if (!factory || factory->get_plugin_count(factory) != 1) fail("expected a factory with one plugin");
    const char *id = factory->get_plugin_descriptor(factory, 0)->id;
    const clap_plugin_t *p = create(factory, id);
    const clap_plugin_params_t *params = p->get_extension(p, CLAP_EXT_PARAMS);
    const clap_plugin_state_t *state = p->get_extension(p, CLAP_EXT_STATE);
    if (!params || !state) fail("no params or state extension");
    if (print) print_params(p, params);
    for (int t = 0; t < n_texts; t++) {
        char *text = strchr(texts[t], '=');
        double value;
        if (!text) fail("bad -t");
        if (params->text_to_value(p, (clap_id)strtoul(texts[t], NULL, 10), text + 1, &value))
            printf("text\t%s\t%.17g\n", text + 1, value);
        else printf("text\t%s\tnone\n", text + 1);
    }
    if (hostile_calls) hostile(factory, p, params, state);
    if (!in_path || !out_path) { p->destroy(p); entry->deinit(); return 0; }

    if (load) {
        Buffer b = read_file(load);
        clap_istream_t is = {&b, buf_read};
        if (!state->load(p, &is)) fail("state load failed");
    }
    clap_event_param_value_t ev[MAX_EVENTS];
    List list = {ev, 0};
    clap_input_events_t events = {&list, list_size, list_get};
    clap_output_events_t oevents = {NULL, out_push};
    for (int k = 0; k < n_initial; k++) ev[list.count++] = param_event(0, initial[k].id, initial[k].value);
    params->flush(p, &events, &oevents);

    Buffer in = read_file(in_path);
    long frames = (long)(in.size / (2 * sizeof(float)));
    const float *input = (const float *)in.data;
    long largest = 1;
    for (int b = 0; b < n_blocks; b++) if (blocks[b] > largest) largest = blocks[b];
    float *chan[4];
    for (int c = 0; c < 4; c++) chan[c] = calloc((size_t)largest, sizeof(float));
    float *block = malloc(sizeof(float) * 2 * (size_t)largest);
    FILE *out = fopen(out_path, "wb");
    if (!out) fail("cannot open output");
    clap_audio_buffer_t ain = {chan, NULL, 2, 0, 0}, aout = {chan + 2, NULL, 2, 0, 0};
    for (int pass = 0; pass < (twice ? 2 : 1); pass++) {
        if (pass == 1) p->deactivate(p);
        if (!p->activate(p, rate, 1, max_block)) fail("activate failed");
        if (!p->start_processing(p)) fail("start_processing failed");
        long pos = 0;
        for (int b = 0; pos < frames; b = (b + 1) % n_blocks) {
            long n = blocks[b] < frames - pos ? blocks[b] : frames - pos;
            list.count = 0;
            for (int s = 0; s < n_sets; s++)   /* -s in time order, as CLAP asks of events */
                if (sets[s].frame >= pos && sets[s].frame < pos + n)
                    ev[list.count++] = param_event((uint32_t)(sets[s].frame - pos), sets[s].id, sets[s].value);
            if (mid_state && mid_frame >= 0 && pos >= mid_frame) {
                Buffer b = read_file(mid_state);
                clap_istream_t is = {&b, buf_read};
                if (!state->load(p, &is)) fail("state load while active failed");
                mid_frame = -1;
            }
            if (reset_frame >= 0 && pos >= reset_frame) { p->reset(p); reset_frame = -1; }
            for (long i = 0; i < n; i++) { chan[0][i] = input[2 * (pos + i)]; chan[1][i] = input[2 * (pos + i) + 1]; }
            clap_process_t pr = {pos, (uint32_t)n, NULL, &ain, &aout, 1, 1, &events, &oevents};
            if (p->process(p, &pr) != CLAP_PROCESS_CONTINUE) fail("process failed");
            for (long i = 0; i < n; i++) { block[2 * i] = chan[2][i]; block[2 * i + 1] = chan[3][i]; }
            fwrite(block, sizeof(float) * 2, (size_t)n, out);
            pos += n;
        }
        p->stop_processing(p);
    }
    fclose(out);
    if (meters) print_meters(p, params);
    if (save) {
        Buffer b = {0};
        clap_ostream_t os = {&b, buf_write};
        if (!state->save(p, &os)) fail("state save failed");
        FILE *f = fopen(save, "wb");
        if (!f || fwrite(b.data, 1, b.size, f) != b.size) fail("cannot write the state");
        fclose(f);
    }
    p->deactivate(p);
    p->destroy(p);
    entry->deinit();
    return 0;
}
