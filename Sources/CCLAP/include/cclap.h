#ifndef RACK_CCLAP_H
#define RACK_CCLAP_H
// The CLAP plugin's C side (plugin.c: the entry, the factory, the plugin and its extensions,
// built against the CLAP headers of dpf-source) and the Swift functions it calls (RackCLAPPlugin,
// `@_cdecl`, not exported from the shared object).
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *rack_clap_create(void);
void rack_clap_destroy(void *instance);
bool rack_clap_activate(void *instance, double sample_rate, uint32_t max_frames);
void rack_clap_deactivate(void *instance);
void rack_clap_set(void *instance, uint32_t id, double value);
void rack_clap_reset(void *instance);
bool rack_clap_render(void *instance, uint32_t frames, const float *in_l, const float *in_r, float *out_l, float *out_r);
uint32_t rack_clap_param_count(void);
uint32_t rack_clap_table_count(void);
int32_t rack_clap_meter_index(uint32_t id);
float rack_clap_meter_floor(void);
void rack_clap_meters_start(void *instance);
void rack_clap_meters(void *instance, float *levels);
bool rack_clap_param_info(uint32_t index, uint32_t *id, uint32_t *flags, double *range, char *name, ptrdiff_t name_size,
                          char *module, ptrdiff_t module_size);
bool rack_clap_get(void *instance, uint32_t id, double *value);
bool rack_clap_value_to_text(uint32_t id, double value, char *text, ptrdiff_t size);
bool rack_clap_text_to_value(uint32_t id, const char *text, double *value);
ptrdiff_t rack_clap_state_save(void *instance, char *buffer, ptrdiff_t size);
bool rack_clap_state_decode(const char *text, double *values, ptrdiff_t count);
void rack_clap_take(void *instance, const double *values);
int32_t rack_clap_param_index(void *instance, uint32_t id);

/// The runtime probe's hooks (as the LV2 plugin's: weak, NULL without the probe).
void rack_probe_enter(void) __attribute__((weak));
void rack_probe_leave(void) __attribute__((weak));

#endif
