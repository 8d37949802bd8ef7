#include "cavahi.h"

#include <stdlib.h>

#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>

/* Seconds before the first new attempt to reach the system bus after a failed one; each
 * further failure doubles the wait, up to RETRY_MAX_SECONDS. */
#define RETRY_FIRST_SECONDS 2
#define RETRY_MAX_SECONDS 64

struct rack_avahi {
    AvahiThreadedPoll *poll;
    AvahiClient *client;      /* NULL while waiting to reconnect */
    AvahiEntryGroup *group;   /* NULL until the daemon runs (and again after it is gone) */
    AvahiTimeout *reconnect;  /* armed while there is no working client */
    int retry_seconds;        /* the wait before the next attempt */
    char *name;               /* the service name in use (changes on a collision) */
    int http_port, http_interface;
    AvahiStringList *http_txt; /* the HTTP service's TXT record (NULL: none) */
    int osc_port, osc_interface;
    rack_avahi_event event;
    void *context;
};

static void client_changed(AvahiClient *client, AvahiClientState state, void *userdata);

static AvahiIfIndex interface_index(int index) { return index < 0 ? AVAHI_IF_UNSPEC : index; }

static void drop_group(struct rack_avahi *a) {
    if (a->group) {
        avahi_entry_group_free(a->group);
        a->group = NULL;
    }
}

/* Takes the next name ("rack" → "rack #2" → "rack #3" …). */
static void rename_after_collision(struct rack_avahi *a) {
    char *next = avahi_alternative_service_name(a->name);
    if (next) {
        avahi_free(a->name);
        a->name = next;
    }
}

static void register_services(struct rack_avahi *a, AvahiClient *client);

static void group_changed(AvahiEntryGroup *group, AvahiEntryGroupState state, void *userdata) {
    struct rack_avahi *a = userdata;
    switch (state) {
    case AVAHI_ENTRY_GROUP_ESTABLISHED:
        a->event(a->context, RACK_AVAHI_ESTABLISHED, a->name);
        break;
    case AVAHI_ENTRY_GROUP_COLLISION:
        /* Another host uses the name: withdraw and register under the next one. */
        rename_after_collision(a);
        avahi_entry_group_reset(group);
        register_services(a, avahi_entry_group_get_client(group));
        break;
    case AVAHI_ENTRY_GROUP_FAILURE:
        a->event(a->context, RACK_AVAHI_FAILED, avahi_strerror(avahi_client_errno(avahi_entry_group_get_client(group))));
        break;
    case AVAHI_ENTRY_GROUP_UNCOMMITED:
    case AVAHI_ENTRY_GROUP_REGISTERING:
        break;
    }
}

/* Adds the services to an empty group and commits it; a name already registered locally
 * (another rack on this machine) is renamed at once. */
static void register_services(struct rack_avahi *a, AvahiClient *client) {
    if (!a->group && !(a->group = avahi_entry_group_new(client, group_changed, a))) {
        a->event(a->context, RACK_AVAHI_FAILED, avahi_strerror(avahi_client_errno(client)));
        return;
    }
    if (!avahi_entry_group_is_empty(a->group)) return;   /* registered already */
    for (int attempt = 0; attempt < 100; attempt++) {
        int r = 0;
        if (a->http_port >= 0)
            r = avahi_entry_group_add_service_strlst(a->group, interface_index(a->http_interface), AVAHI_PROTO_INET, 0,
                                                     a->name, "_oscjson._tcp", NULL, NULL, (uint16_t)a->http_port, a->http_txt);
        if (r == 0 && a->osc_port >= 0)
            r = avahi_entry_group_add_service_strlst(a->group, interface_index(a->osc_interface), AVAHI_PROTO_INET, 0,
                                                     a->name, "_osc._udp", NULL, NULL, (uint16_t)a->osc_port, NULL);
        if (r == 0) r = avahi_entry_group_commit(a->group);
        if (r == 0) return;
        avahi_entry_group_reset(a->group);
        if (r != AVAHI_ERR_COLLISION) {
            a->event(a->context, RACK_AVAHI_FAILED, avahi_strerror(r));
            return;
        }
        rename_after_collision(a);
    }
    a->event(a->context, RACK_AVAHI_FAILED, avahi_strerror(AVAHI_ERR_COLLISION));
}

static void arm_reconnect(struct rack_avahi *a) {
    struct timeval when;
    avahi_elapse_time(&when, (unsigned)a->retry_seconds * 1000, 0);
    avahi_threaded_poll_get(a->poll)->timeout_update(a->reconnect, &when);
    if (a->retry_seconds < RETRY_MAX_SECONDS) a->retry_seconds *= 2;
}

/* A client (the first, or one in place of a failed one), made on Avahi's thread, outside any
 * client's callback; with no daemon it waits for one (AVAHI_CLIENT_NO_FAIL); with no system bus
 * it fails, and the next attempt is armed. */
static void reconnect(AvahiTimeout *timeout, void *userdata) {
    struct rack_avahi *a = userdata;
    (void)timeout;
    avahi_threaded_poll_get(a->poll)->timeout_update(a->reconnect, NULL);
    if (a->client) {
        drop_group(a);
        avahi_client_free(a->client);
        a->client = NULL;
    }
    int error = 0;
    a->client = avahi_client_new(avahi_threaded_poll_get(a->poll), AVAHI_CLIENT_NO_FAIL, client_changed, a, &error);
    if (!a->client) arm_reconnect(a);
}

static void client_changed(AvahiClient *client, AvahiClientState state, void *userdata) {
    struct rack_avahi *a = userdata;
    switch (state) {
    case AVAHI_CLIENT_S_RUNNING:
        /* The daemon runs (at start, after a restart, or after the host name settled). */
        a->retry_seconds = RETRY_FIRST_SECONDS;
        register_services(a, client);
        break;
    case AVAHI_CLIENT_S_COLLISION:
    case AVAHI_CLIENT_S_REGISTERING:
        /* The host name changes: withdraw until the daemon runs again. */
        if (a->group) avahi_entry_group_reset(a->group);
        break;
    case AVAHI_CLIENT_CONNECTING:
        /* No daemon (yet, or any more): the group went with it. */
        drop_group(a);
        break;
    case AVAHI_CLIENT_FAILURE:
        /* The connection is lost (the daemon or the bus went away): start over with a new
         * client, from the timer rather than inside this client's own callback. During
         * avahi_client_new the client is not ours yet: reconnect sees that failure itself. */
        drop_group(a);
        if (client == a->client) arm_reconnect(a);
        break;
    }
}

rack_avahi *rack_avahi_start(const char *name, int http_port, int http_interface, const char *http_txt,
                             int osc_port, int osc_interface, rack_avahi_event event, void *context, int *error) {
    *error = 0;
    struct rack_avahi *a = calloc(1, sizeof *a);
    if (!a) {
        *error = AVAHI_ERR_NO_MEMORY;
        return NULL;
    }
    a->http_port = http_port;
    a->http_interface = http_interface;
    a->osc_port = osc_port;
    a->osc_interface = osc_interface;
    a->event = event;
    a->context = context;
    if (!(a->name = avahi_strdup(name)) || (http_txt && !(a->http_txt = avahi_string_list_new(http_txt, NULL)))
        || !(a->poll = avahi_threaded_poll_new())) {
        *error = AVAHI_ERR_NO_MEMORY;
        rack_avahi_stop(a);
        return NULL;
    }
    a->retry_seconds = RETRY_FIRST_SECONDS;
    /* The client is made on Avahi's thread at once: talking to D-Bus never holds up the caller. */
    const AvahiPoll *api = avahi_threaded_poll_get(a->poll);
    struct timeval now;
    avahi_elapse_time(&now, 0, 0);
    if (!(a->reconnect = api->timeout_new(api, &now, reconnect, a))) {
        *error = AVAHI_ERR_NO_MEMORY;
        rack_avahi_stop(a);
        return NULL;
    }
    if (avahi_threaded_poll_start(a->poll) < 0) {
        *error = AVAHI_ERR_FAILURE;
        rack_avahi_stop(a);
        return NULL;
    }
    return a;
}

void rack_avahi_stop(rack_avahi *a) {
    if (!a) return;
    if (a->poll) avahi_threaded_poll_stop(a->poll);   /* joins the thread (if it was started) */
    drop_group(a);                                      /* withdraws the services */
    if (a->client) avahi_client_free(a->client);
    if (a->reconnect) avahi_threaded_poll_get(a->poll)->timeout_free(a->reconnect);
    if (a->poll) avahi_threaded_poll_free(a->poll);
    avahi_free(a->name);
    avahi_string_list_free(a->http_txt);
    free(a);
}

const char *rack_avahi_strerror(int error) { return avahi_strerror(error); }
