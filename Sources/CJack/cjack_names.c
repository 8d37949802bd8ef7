/* The names others see the rack by: JACK metadata pretty names for its client and ports, and
 * the client name the server gives it. Called on the control thread, never from `process`. */
#include "cjack_private.h"
#include <jack/metadata.h>
#include <jack/session.h>
#include <jack/uuid.h>
#include <stdio.h>
#include <string.h>

int rack_jack_set_pretty_names(rack_jack_t *c, const char *client_name) {
    /* "<client> input L" …: two racks in one patchbay read apart ("fx input L", "verb input L"). */
    static const char *what[RACK_PORT_COUNT] = {"input L", "input R", "output L", "output R",
                                                "MIDI control in", "MIDI feedback out"};
    char pretty[512];
    int failed = 0;
    for (int i = 0; i < RACK_PORT_COUNT; i++) {
        if (!c->ports[i]) continue;
        jack_uuid_t u = jack_port_uuid(c->ports[i]);
        snprintf(pretty, sizeof pretty, "%s %s", client_name, what[i]);
        if (jack_set_property(c->client, u, JACK_METADATA_PRETTY_NAME, pretty, "text/plain") != 0) failed++;
    }
    char client_pretty_name[512];
    snprintf(client_pretty_name, sizeof client_pretty_name, "%s effects", client_name);
    char *uuid_text = jack_client_get_uuid(c->client);
    if (uuid_text) {
        jack_uuid_t cu;
        if (jack_uuid_parse(uuid_text, &cu) != 0 ||
            jack_set_property(c->client, cu, JACK_METADATA_PRETTY_NAME, client_pretty_name, "text/plain") != 0) failed++;
        jack_free(uuid_text);
    } else {
        failed++;
    }
    return failed;
}

void rack_jack_remove_pretty_names(rack_jack_t *c) {
    for (int i = 0; i < RACK_PORT_COUNT; i++)
        if (c->ports[i]) jack_remove_properties(c->client, jack_port_uuid(c->ports[i]));
    char *uuid_text = jack_client_get_uuid(c->client);
    if (uuid_text) {
        jack_uuid_t cu;
        if (jack_uuid_parse(uuid_text, &cu) == 0) jack_remove_properties(c->client, cu);
        jack_free(uuid_text);
    }
}

int rack_jack_real_client_name(rack_jack_t *c, char *buf, size_t size) {
    if (size == 0) return 0;
    buf[0] = 0;
    // What the server calls us. PipeWire 0.3.65 renames a taken name (rack → rack-49) for
    // everyone else but keeps the requested one in jack_get_client_name and even in its own
    // port names; the server's name for our uuid is the one others see.
    char *uuid = jack_client_get_uuid(c->client);
    if (uuid) {
        char *name = jack_get_client_name_by_uuid(c->client, uuid);
        if (name) {
            snprintf(buf, size, "%s", name);
            jack_free(name);
        }
        jack_free(uuid);
    }
    if (!buf[0]) {
        const char *port = jack_port_name(c->ports[RACK_PORT_IN_1]);
        const char *colon = port ? strchr(port, ':') : NULL;
        if (colon) snprintf(buf, size, "%.*s", (int)(colon - port), port);
    }
    if (!buf[0]) snprintf(buf, size, "%s", jack_get_client_name(c->client));
    return buf[0] != 0;
}
