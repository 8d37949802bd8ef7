#include "clv2.h"

void rack_lv2_run(LV2_Handle instance, uint32_t frames) {
    if (rack_probe_enter) rack_probe_enter();
    rack_lv2_render(instance, frames);
    if (rack_probe_leave) rack_probe_leave();
}
