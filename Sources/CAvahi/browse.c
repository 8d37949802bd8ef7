#include "cavahi.h"

#include <stdlib.h>
#include <string.h>

#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-common/address.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>

/* The waits before a new attempt to reach the system bus, as for advertising (shim.c). */
#define RETRY_FIRST_SECONDS 2
#define RETRY_MAX_SECONDS 64

struct rack_avahi_browser {
    AvahiThreadedPoll *poll;
    AvahiClient *client;            /* NULL while waiting to reconnect */
    AvahiServiceBrowser *browser;   /* NULL until the daemon runs (and again after it is gone) */
    AvahiTimeout *reconnect;        /* armed while there is no working client */
    int retry_seconds;
    char *type;                     /* the service type browsed */
    char *txt_key;                  /* the TXT key whose value is reported */
    rack_avahi_browse_event event;
    void *context;
};

static void browser_client_changed(AvahiClient *client, AvahiClientState state, void *userdata);
static void browser_arm_reconnect(struct rack_avahi_browser *b);

/* Forgets the browser and every resolver (the caller frees the client, which frees them) and
 * tells the caller that nothing is known any more. */
static void forget_all(struct rack_avahi_browser *b) {
    if (b->browser) {
        avahi_service_browser_free(b->browser);
        b->browser = NULL;
    }
    b->event(b->context, b, RACK_AVAHI_ALL_LOST, NULL);
}

static void resolved(AvahiServiceResolver *resolver, AvahiIfIndex interface, AvahiProtocol protocol,
                     AvahiResolverEvent event, const char *name, const char *type, const char *domain,
                     const char *host_name, const AvahiAddress *address, uint16_t port, AvahiStringList *txt,
                     AvahiLookupResultFlags flags, void *userdata) {
    struct rack_avahi_browser *b = userdata;
    (void)protocol; (void)type; (void)domain;
    if (event == AVAHI_RESOLVER_FOUND && address && address->proto == AVAHI_PROTO_INET) {
        char text[AVAHI_ADDRESS_STR_MAX];
        avahi_address_snprint(text, sizeof text, address);
        char *key = NULL, *value = NULL;
        AvahiStringList *entry = avahi_string_list_find(txt, b->txt_key);
        if (entry) avahi_string_list_get_pair(entry, &key, &value, NULL);
        rack_avahi_service found = {
            .interface = interface, .name = name, .host = host_name, .address = text, .port = port,
            .txt_value = value, .local = (flags & AVAHI_LOOKUP_RESULT_LOCAL) != 0,
        };
        b->event(b->context, b, RACK_AVAHI_FOUND, &found);
        avahi_free(key);
        avahi_free(value);
    }
    /* One answer is all that is wanted: a later change is announced as a new service. The end
     * is told while `name` still belongs to the resolver. */
    rack_avahi_service ended = { .interface = interface, .name = name };
    b->event(b->context, b, RACK_AVAHI_RESOLVE_ENDED, &ended);
    avahi_service_resolver_free(resolver);
}

int rack_avahi_browse_resolve(rack_avahi_browser *b, const rack_avahi_service *s) {
    if (!b->client || !s || !s->name || !s->type) return -1;
    return avahi_service_resolver_new(b->client, s->interface, s->protocol, s->name, s->type, s->domain,
                                      AVAHI_PROTO_INET, 0, resolved, b) ? 0 : -1;
}

static void browsed(AvahiServiceBrowser *browser, AvahiIfIndex interface, AvahiProtocol protocol,
                    AvahiBrowserEvent event, const char *name, const char *type, const char *domain,
                    AvahiLookupResultFlags flags, void *userdata) {
    struct rack_avahi_browser *b = userdata;
    (void)browser; (void)flags;
    switch (event) {
    case AVAHI_BROWSER_NEW: {
        /* The caller decides whether and when to resolve it (a flood waits in its bounded queue). */
        rack_avahi_service announced = { .interface = interface, .name = name, .protocol = protocol,
                                         .type = type, .domain = domain };
        b->event(b->context, b, RACK_AVAHI_ANNOUNCED, &announced);
        break;
    }
    case AVAHI_BROWSER_REMOVE: {
        rack_avahi_service lost = { .interface = interface, .name = name };
        b->event(b->context, b, RACK_AVAHI_LOST, &lost);
        break;
    }
    case AVAHI_BROWSER_FAILURE:
        /* The daemon refused: start over with a new client, from the timer rather than
         * inside this browser's own callback. */
        b->event(b->context, b, RACK_AVAHI_ALL_LOST, NULL);
        browser_arm_reconnect(b);
        break;
    case AVAHI_BROWSER_ALL_FOR_NOW:
    case AVAHI_BROWSER_CACHE_EXHAUSTED:
        break;
    }
}

static void browser_arm_reconnect(struct rack_avahi_browser *b) {
    struct timeval when;
    avahi_elapse_time(&when, (unsigned)b->retry_seconds * 1000, 0);
    avahi_threaded_poll_get(b->poll)->timeout_update(b->reconnect, &when);
    if (b->retry_seconds < RETRY_MAX_SECONDS) b->retry_seconds *= 2;
}

/* A client made on Avahi's thread, outside any client's callback (as in shim.c). */
static void browser_reconnect(AvahiTimeout *timeout, void *userdata) {
    struct rack_avahi_browser *b = userdata;
    (void)timeout;
    avahi_threaded_poll_get(b->poll)->timeout_update(b->reconnect, NULL);
    if (b->client) {
        forget_all(b);
        avahi_client_free(b->client);   /* frees its resolvers too */
        b->client = NULL;
    }
    int error = 0;
    b->client = avahi_client_new(avahi_threaded_poll_get(b->poll), AVAHI_CLIENT_NO_FAIL, browser_client_changed, b, &error);
    if (!b->client) browser_arm_reconnect(b);
}

static void browser_client_changed(AvahiClient *client, AvahiClientState state, void *userdata) {
    struct rack_avahi_browser *b = userdata;
    switch (state) {
    case AVAHI_CLIENT_S_RUNNING:
        b->retry_seconds = RETRY_FIRST_SECONDS;
        if (!b->browser) {
            /* During avahi_client_new the client is not stored yet: the resolvers need it. */
            b->client = client;
            b->browser = avahi_service_browser_new(client, AVAHI_IF_UNSPEC, AVAHI_PROTO_INET, b->type, NULL, 0,
                                                   browsed, b);
        }
        b->event(b->context, b, RACK_AVAHI_DAEMON_RUNNING, NULL);
        break;
    case AVAHI_CLIENT_S_COLLISION:
    case AVAHI_CLIENT_S_REGISTERING:
        break;
    case AVAHI_CLIENT_CONNECTING:
        /* No daemon (yet, or any more): what it showed is gone with it. */
        forget_all(b);
        break;
    case AVAHI_CLIENT_FAILURE:
        forget_all(b);
        if (client == b->client) browser_arm_reconnect(b);
        break;
    }
}

rack_avahi_browser *rack_avahi_browse_start(const char *type, const char *txt_key,
                                            rack_avahi_browse_event event, void *context, int *error) {
    *error = 0;
    struct rack_avahi_browser *b = calloc(1, sizeof *b);
    if (!b) {
        *error = AVAHI_ERR_NO_MEMORY;
        return NULL;
    }
    b->event = event;
    b->context = context;
    b->retry_seconds = RETRY_FIRST_SECONDS;
    if (!(b->type = avahi_strdup(type)) || !(b->txt_key = avahi_strdup(txt_key)) || !(b->poll = avahi_threaded_poll_new())) {
        *error = AVAHI_ERR_NO_MEMORY;
        rack_avahi_browse_stop(b);
        return NULL;
    }
    const AvahiPoll *api = avahi_threaded_poll_get(b->poll);
    struct timeval now;
    avahi_elapse_time(&now, 0, 0);
    if (!(b->reconnect = api->timeout_new(api, &now, browser_reconnect, b))) {
        *error = AVAHI_ERR_NO_MEMORY;
        rack_avahi_browse_stop(b);
        return NULL;
    }
    if (avahi_threaded_poll_start(b->poll) < 0) {
        *error = AVAHI_ERR_FAILURE;
        rack_avahi_browse_stop(b);
        return NULL;
    }
    return b;
}

void rack_avahi_browse_stop(rack_avahi_browser *b) {
    if (!b) return;
    if (b->poll) avahi_threaded_poll_stop(b->poll);   /* joins the thread: no event after this */
    if (b->browser) avahi_service_browser_free(b->browser);
    if (b->client) avahi_client_free(b->client);
    if (b->reconnect) avahi_threaded_poll_get(b->poll)->timeout_free(b->reconnect);
    if (b->poll) avahi_threaded_poll_free(b->poll);
    avahi_free(b->type);
    avahi_free(b->txt_key);
    free(b);
}
