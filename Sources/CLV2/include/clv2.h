#ifndef RACK_CLV2_H
#define RACK_CLV2_H
// The LV2 C API as the plugin sees it (the specification's headers, from lv2-dev), and the one
// piece of feature parsing done in C: the host's block-size options.
#include <lv2/core/lv2.h>
#include <stdint.h>

/// The largest `run()` length the host announces: `bufsz:maxBlockLength` from the
/// `LV2_Options` feature (mapped through `urid:map`); 0 when the host does not say.
uint32_t rack_lv2_max_block_length(const LV2_Feature *const *features);

/// Hooks a runtime probe (an LD_PRELOADed library counting heap, lock and I/O calls) may
/// define, as the JACK client's: weak, so without the probe they are NULL.
void rack_probe_enter(void) __attribute__((weak));
void rack_probe_leave(void) __attribute__((weak));

/// The descriptor's `run`: `rack_lv2_render` bracketed by the probe's hooks (C, because the
/// realtime Swift code may call only what the compiler can check).
void rack_lv2_run(LV2_Handle instance, uint32_t frames);

/// The plugin's render, defined in Swift (`@_cdecl`, not exported from the shared object).
void rack_lv2_render(LV2_Handle instance, uint32_t frames);

#endif
