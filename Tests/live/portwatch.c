/*
 * portwatch: a JACK client that says when ports appear, so a test can time a client's port
 * registration without opening a client of its own for each look (opening one takes the
 * server's attention, and under load that alone measured 3 s).
 *
 *   portwatch           joins the server, prints "ready", then one line per port registered
 *                       from then on: "SECONDS NAME", SECONDS the CLOCK_MONOTONIC time (the
 *                       clock of Python's time.monotonic) at which the server's notice came
 *                       in; exits at the end of stdin.
 *
 * Exit 69: no server. Build: cc -O2 -o portwatch portwatch.c -ljack
 */
#include <jack/jack.h>
#include <stdio.h>
#include <time.h>

static jack_client_t *client;

/* Called on the client's notification thread (not the realtime one): printing here is fine. */
static void registered(jack_port_id_t id, int yes, void *arg) {
    (void)arg;
    if (!yes) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    jack_port_t *port = jack_port_by_id(client, id);
    printf("%.6f %s\n", (double)now.tv_sec + now.tv_nsec / 1e9, port ? jack_port_name(port) : "?");
    fflush(stdout);
}

int main(void) {
    jack_status_t status;
    client = jack_client_open("portwatch", JackNoStartServer, &status);
    if (!client) {
        fprintf(stderr, "portwatch: no JACK server (status 0x%x)\n", status);
        return 69;
    }
    jack_set_port_registration_callback(client, registered, NULL);
    if (jack_activate(client)) return 69;
    printf("ready\n");
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin)) {}
    jack_client_close(client);
    return 0;
}
