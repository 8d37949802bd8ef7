/* A minimal LV2 host for the plugin's hostile-host tests: it dlopens the plugin's shared object,
 * instantiates it through lv2_descriptor with urid:map and an LV2_Options feature announcing
 * bufsz:maxBlockLength, and runs stereo float input through it in blocks of a given pattern.
 *
 *   lv2host -l LIB [-r RATE] [-m MAXBLOCK] [-b B1,B2,...] -i IN.f32 -o OUT.f32 [-p PORTS]
 *           [-c PORT=VALUE]... [-s FRAME:PORT=VALUE]... [-u PORT]... [-n INSTANCES] [-a] [-z] [-V]
 *
 * IN/OUT: interleaved stereo float32. -m 0: no maxBlockLength option. -b: block lengths, cycled
 * (0 is a run() of 0 frames). -p: how many ports. -c: a control's value before the first run.
 * -s: a control's value from the first run() that starts at or after FRAME. -u: a port left
 * unconnected. -n: instances run side by side, outputs to OUT, OUT.1, ... -a: a second pass after
 * deactivate/activate, appended to the output; -z: that second pass reads silence. -t: print the CPU time spent inside run() (this
 * thread's clock) to stderr. -V: after the last run(), print "port<TAB>INDEX<TAB>VALUE" for every
 * control port of the first instance (the meters' outputs among them). Exit 1 on any failure. */
#include <dlfcn.h>
#include <lv2/atom/atom.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/core/lv2.h>
#include <lv2/options/options.h>
#include <lv2/urid/urid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PORTS 64
#define MAX_SETS 64
#define MAX_URIS 64

static const char *uris[MAX_URIS];
static int n_uris;
static LV2_URID map_uri(LV2_URID_Map_Handle h, const char *uri) {
    (void)h;
    for (int i = 0; i < n_uris; i++) if (!strcmp(uris[i], uri)) return (LV2_URID)(i + 1);
    if (n_uris == MAX_URIS) return 0;
    uris[n_uris++] = uri;
    return (LV2_URID)n_uris;
}

static void fail(const char *what) { fprintf(stderr, "lv2host: %s\n", what); exit(1); }

typedef struct { long frame; int port; float value; int done; } Set;

int main(int argc, char **argv) {
    const char *lib = NULL, *in_path = NULL, *out_path = NULL;
    double rate = 48000;
    int32_t max_block = 4096;
    long blocks[256]; int n_blocks = 0;
    int n_ports = 9, instances = 1, twice = 0, timed = 0, values = 0, silent_again = 0;
    double run_seconds = 0;
    float initial[MAX_PORTS]; int has_initial[MAX_PORTS] = {0};
    int unconnected[MAX_PORTS] = {0};
    Set sets[MAX_SETS]; int n_sets = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-a")) { twice = 1; continue; }
        if (!strcmp(a, "-t")) { timed = 1; continue; }
        if (!strcmp(a, "-V")) { values = 1; continue; }
        if (!strcmp(a, "-z")) { silent_again = 1; continue; }
        if (!v) fail("an option needs a value");
        i++;
        if (!strcmp(a, "-l")) lib = v;
        else if (!strcmp(a, "-r")) rate = atof(v);
        else if (!strcmp(a, "-m")) max_block = atoi(v);
        else if (!strcmp(a, "-i")) in_path = v;
        else if (!strcmp(a, "-o")) out_path = v;
        else if (!strcmp(a, "-p")) n_ports = atoi(v);
        else if (!strcmp(a, "-n")) instances = atoi(v);
        else if (!strcmp(a, "-u")) unconnected[atoi(v)] = 1;
        else if (!strcmp(a, "-b")) {
            char *s = strdup(v);
            for (char *t = strtok(s, ","); t && n_blocks < 256; t = strtok(NULL, ",")) blocks[n_blocks++] = atol(t);
        } else if (!strcmp(a, "-c")) {
            int p; float x;
            if (sscanf(v, "%d=%f", &p, &x) != 2 || p < 0 || p >= MAX_PORTS) fail("bad -c");
            initial[p] = x; has_initial[p] = 1;
        } else if (!strcmp(a, "-s")) {
            if (n_sets == MAX_SETS || sscanf(v, "%ld:%d=%f", &sets[n_sets].frame, &sets[n_sets].port, &sets[n_sets].value) != 3) fail("bad -s");
            n_sets++;
        } else fail("unknown option");
    }
    if (!lib || !in_path || !out_path || n_ports > MAX_PORTS || instances < 1 || instances > 8) fail("usage: see the source");
    if (!n_blocks) blocks[n_blocks++] = 256;

    FILE *f = fopen(in_path, "rb");
    if (!f) fail("cannot open input");
    fseek(f, 0, SEEK_END);
    long frames = ftell(f) / (long)(2 * sizeof(float));
    fseek(f, 0, SEEK_SET);
    float *in = malloc(sizeof(float) * 2 * (size_t)frames);
    if (fread(in, sizeof(float) * 2, (size_t)frames, f) != (size_t)frames) fail("short input");
    fclose(f);

    void *so = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!so) { fprintf(stderr, "lv2host: %s\n", dlerror()); return 1; }
    LV2_Descriptor_Function entry = (LV2_Descriptor_Function)dlsym(so, "lv2_descriptor");
    if (!entry) fail("no lv2_descriptor");
    const LV2_Descriptor *d = entry(0);
    if (!d || entry(1)) fail("expected exactly one plugin");

    LV2_URID_Map map = {NULL, map_uri};
    LV2_Options_Option options[] = {
        {LV2_OPTIONS_INSTANCE, 0, map_uri(NULL, LV2_BUF_SIZE__maxBlockLength), sizeof(int32_t), map_uri(NULL, LV2_ATOM__Int), &max_block},
        {LV2_OPTIONS_INSTANCE, 0, 0, 0, 0, NULL},
    };
    LV2_Feature map_feature = {LV2_URID__map, &map}, options_feature = {LV2_OPTIONS__options, options};
    const LV2_Feature *features[] = {&map_feature, &options_feature, NULL};
    const LV2_Feature *no_options[] = {&map_feature, NULL};

    long largest = 1;
    for (int b = 0; b < n_blocks; b++) if (blocks[b] > largest) largest = blocks[b];
    LV2_Handle h[8];
    float *audio[8][4], control[8][MAX_PORTS];
    for (int k = 0; k < instances; k++) {
        h[k] = d->instantiate(d, rate, "", max_block > 0 ? features : no_options);
        if (!h[k]) fail("instantiate failed");
        for (int c = 0; c < 4; c++) audio[k][c] = calloc((size_t)largest, sizeof(float));
        for (int p = 0; p < n_ports; p++) {
            if (unconnected[p]) continue;
            if (p < 4) d->connect_port(h[k], (uint32_t)p, audio[k][p]);
            else {
                control[k][p] = has_initial[p] ? initial[p] : 0;
                d->connect_port(h[k], (uint32_t)p, &control[k][p]);
            }
        }
        d->activate(h[k]);
    }
    float *block = malloc(sizeof(float) * 2 * (size_t)largest);
    FILE *out[8];
    for (int k = 0; k < instances; k++) {
        char name[4096];
        if (k == 0) snprintf(name, sizeof name, "%s", out_path); else snprintf(name, sizeof name, "%s.%d", out_path, k);
        out[k] = fopen(name, "wb");
        if (!out[k]) fail("cannot open output");
    }
    for (int pass = 0; pass < (twice ? 2 : 1); pass++) {
        if (pass == 1) {
            for (int k = 0; k < instances; k++) {
                d->deactivate(h[k]);
                for (int p = 4; p < n_ports; p++) control[k][p] = has_initial[p] ? initial[p] : 0;
                d->activate(h[k]);
            }
            for (int s = 0; s < n_sets; s++) sets[s].done = 0;
        }
        long pos = 0;
        for (int b = 0; pos < frames; b = (b + 1) % n_blocks) {
            long n = blocks[b] < frames - pos ? blocks[b] : frames - pos;
            for (int s = 0; s < n_sets; s++) {
                if (!sets[s].done && sets[s].frame <= pos) {
                    for (int k = 0; k < instances; k++) control[k][sets[s].port] = sets[s].value;
                    sets[s].done = 1;
                }
            }
            for (int k = 0; k < instances; k++) {
                for (long i = 0; i < n; i++) {
                    audio[k][0][i] = pass == 1 && silent_again ? 0 : in[2 * (pos + i)];
                    audio[k][1][i] = pass == 1 && silent_again ? 0 : in[2 * (pos + i) + 1];
                }
                struct timespec t0, t1;
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
                d->run(h[k], (uint32_t)n);
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
                run_seconds += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
                for (long i = 0; i < n; i++) {
                    block[2 * i] = unconnected[2] ? 0 : audio[k][2][i];
                    block[2 * i + 1] = unconnected[3] ? 0 : audio[k][3][i];
                }
                fwrite(block, sizeof(float) * 2, (size_t)n, out[k]);
            }
            pos += n;
        }
    }
    if (values)
        for (int p = 4; p < n_ports; p++) if (!unconnected[p]) printf("port\t%d\t%.9g\n", p, control[0][p]);
    for (int k = 0; k < instances; k++) {
        d->deactivate(h[k]);
        d->cleanup(h[k]);
        fclose(out[k]);
    }
    if (timed) fprintf(stderr, "lv2host: %.6f s of CPU in run() for %ld frames\n", run_seconds, frames * (twice ? 2 : 1) * instances);
    return 0;
}
