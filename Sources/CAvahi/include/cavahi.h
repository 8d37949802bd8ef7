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

/* Starts advertising `_oscjson._tcp` on `http_port` and `_osc._udp` on `osc_port` (a negative
 * port leaves that service out) under `name`, IPv4 only, each on the interface with that index
 * (-1: every interface). Returns at once: Avahi's thread connects to the daemon. With no
 * daemon it waits silently for one to appear (with no system bus, it tries again after 2 s,
 * 4 s, … up to every 64 s); after a daemon restart it registers again; a name taken on the
 * network becomes "NAME #2" and so on. NULL (and *error, an Avahi error code) only when the
 * thread cannot be started. */
rack_avahi *rack_avahi_start(const char *name, int http_port, int http_interface, int osc_port,
                             int osc_interface, rack_avahi_event event, void *context, int *error);

/* Withdraws the services, stops Avahi's thread and frees everything (NULL: nothing). */
void rack_avahi_stop(rack_avahi *advertiser);

/* Avahi's text for an error code. */
const char *rack_avahi_strerror(int error);

#endif
