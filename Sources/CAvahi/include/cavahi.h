#ifndef RACK_CAVAHI_H
#define RACK_CAVAHI_H

/* DNS-SD advertising through the Avahi daemon (libavahi-client), on Avahi's own threaded poll:
 * nothing here runs on the caller's thread after rack_avahi_start returns, and no call blocks
 * waiting for the daemon. */

/* What happened, for the caller's log line. */
enum {
    /* Every service is registered (again, after a daemon restart or a rename); `text` is the
     * service name in use. */
    RACK_AVAHI_ESTABLISHED = 0,
    /* The daemon refused the services; `text` is its reason. */
    RACK_AVAHI_FAILED = 1,
};

/* Called on Avahi's thread; `text` is valid during the call only. */
typedef void (*rack_avahi_event)(void *context, int event, const char *text);

typedef struct rack_avahi rack_avahi;

/* Starts advertising `_oscjson._tcp` on `http_port` (with the one TXT string `http_txt`,
 * "key=value", unless NULL) and `_osc._udp` on `osc_port` (a negative
 * port leaves that service out) under `name`, IPv4 only, each on the interface with that index
 * (-1: every interface). Returns at once: Avahi's thread connects to the daemon. With no
 * daemon it waits silently for one to appear (with no system bus, it tries again after 2 s,
 * 4 s, … up to every 64 s); after a daemon restart it registers again; a name taken on the
 * network becomes "NAME #2" and so on. NULL (and *error, an Avahi error code) only when the
 * thread cannot be started. */
rack_avahi *rack_avahi_start(const char *name, int http_port, int http_interface, const char *http_txt,
                             int osc_port, int osc_interface, rack_avahi_event event, void *context, int *error);

/* Withdraws the services, stops Avahi's thread and frees everything (NULL: nothing). */
void rack_avahi_stop(rack_avahi *advertiser);

/* --- Browsing: the services of one type on the network, resolved to an IPv4 address --- */

/* What a browser saw. */
enum {
    /* A service was resolved (announced, or announced again). */
    RACK_AVAHI_FOUND = 0,
    /* The service `interface`/`name` was withdrawn. */
    RACK_AVAHI_LOST = 1,
    /* The daemon is gone, refused, or not reached yet: every service seen so far is to be
     * forgotten (browsing waits for a daemon). */
    RACK_AVAHI_ALL_LOST = 2,
    /* The daemon answers: browsing runs. */
    RACK_AVAHI_DAEMON_RUNNING = 3,
    /* A service was announced (not resolved yet): the caller may resolve it now, from this
     * call, with rack_avahi_browse_resolve, or later from another event's call. */
    RACK_AVAHI_ANNOUNCED = 4,
    /* A resolve the caller started ended (after its RACK_AVAHI_FOUND, if it found one): a
     * place for another is free. `interface` and `name` are set. */
    RACK_AVAHI_RESOLVE_ENDED = 5,
};

/* One service; the strings are valid during the call only. For RACK_AVAHI_LOST and
 * RACK_AVAHI_RESOLVE_ENDED only `interface` and `name` are set; for RACK_AVAHI_ANNOUNCED
 * `interface`, `name`, `protocol`, `type` and `domain` (what rack_avahi_browse_resolve needs). */
typedef struct {
    int interface;           /* the interface index it was seen on */
    const char *name;        /* the service name */
    const char *host;        /* the host name it runs on ("studio-b.local") */
    const char *address;     /* that host's IPv4 address, dotted */
    int port;
    const char *txt_value;   /* the value of the TXT key asked for; NULL when it has none */
    int local;               /* announced by this machine */
    int protocol;            /* the protocol it was announced over (an AvahiProtocol) */
    const char *type;        /* the service type ("_oscjson._tcp") */
    const char *domain;      /* the domain ("local") */
} rack_avahi_service;

typedef struct rack_avahi_browser rack_avahi_browser;

/* Called on Avahi's thread; `service` is NULL for RACK_AVAHI_ALL_LOST and RACK_AVAHI_DAEMON_RUNNING. */
typedef void (*rack_avahi_browse_event)(void *context, rack_avahi_browser *browser, int event,
                                        const rack_avahi_service *service);

/* Starts browsing `type` ("_oscjson._tcp") over IPv4 on every interface, reporting each
 * announcement; the caller resolves those it wants (rack_avahi_browse_resolve), as many at a
 * time as it decides. Returns at once, as rack_avahi_start does, and like it waits for a
 * daemon and reconnects after a restart. NULL (and *error) only when the thread cannot be
 * started. */
rack_avahi_browser *rack_avahi_browse_start(const char *type, const char *txt_key,
                                            rack_avahi_browse_event event, void *context, int *error);

/* Resolves the announced `service` once (RACK_AVAHI_FOUND if it resolves to IPv4, then
 * RACK_AVAHI_RESOLVE_ENDED either way). Only from within an event call, on Avahi's thread.
 * 0 when the resolve started, -1 when it could not (no RACK_AVAHI_RESOLVE_ENDED follows). */
int rack_avahi_browse_resolve(rack_avahi_browser *browser, const rack_avahi_service *service);

/* Stops Avahi's thread (no event comes after it returns) and frees everything (NULL: nothing). */
void rack_avahi_browse_stop(rack_avahi_browser *browser);

/* Avahi's text for an error code. */
const char *rack_avahi_strerror(int error);

#endif
