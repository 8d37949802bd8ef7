#ifndef RACK_CLV2_H
#define RACK_CLV2_H
// The LV2 C API as the plugin sees it (the specification's headers, from lv2-dev), and the one
// piece of feature parsing done in C: the host's block-size options.
#include <lv2/core/lv2.h>
#include <stdint.h>

/// The largest `run()` length the host announces: `bufsz:maxBlockLength` from the
/// `LV2_Options` feature (mapped through `urid:map`); 0 when the host does not say.
uint32_t rack_lv2_max_block_length(const LV2_Feature *const *features);

#endif
