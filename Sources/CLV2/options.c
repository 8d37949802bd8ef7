#include "clv2.h"
#include <lv2/buf-size/buf-size.h>
#include <lv2/options/options.h>
#include <lv2/urid/urid.h>
#include <lv2/atom/atom.h>
#include <string.h>

static const void *feature_data(const LV2_Feature *const *features, const char *uri) {
    if (!features) return NULL;
    for (const LV2_Feature *const *f = features; *f; ++f) {
        if ((*f)->URI && strcmp((*f)->URI, uri) == 0) return (*f)->data;
    }
    return NULL;
}

/// An integer option's value (atom:Int or atom:Long), or -1 when it has another type.
static int64_t option_integer(const LV2_Options_Option *o, LV2_URID atom_int, LV2_URID atom_long) {
    if (!o->value) return -1;
    if (o->type == atom_int && o->size == sizeof(int32_t)) return *(const int32_t *)o->value;
    if (o->type == atom_long && o->size == sizeof(int64_t)) return *(const int64_t *)o->value;
    return -1;
}

uint32_t rack_lv2_max_block_length(const LV2_Feature *const *features) {
    const LV2_URID_Map *map = feature_data(features, LV2_URID__map);
    const LV2_Options_Option *options = feature_data(features, LV2_OPTIONS__options);
    if (!map || !options) return 0;
    LV2_URID max_block = map->map(map->handle, LV2_BUF_SIZE__maxBlockLength);
    LV2_URID atom_int = map->map(map->handle, LV2_ATOM__Int);
    LV2_URID atom_long = map->map(map->handle, LV2_ATOM__Long);
    for (const LV2_Options_Option *o = options; o->key || o->value; ++o) {
        if (o->key != max_block) continue;
        int64_t v = option_integer(o, atom_int, atom_long);
        if (v > 0 && v <= UINT32_MAX) return (uint32_t)v;
    }
    return 0;
}
