/*
 * portcycle: a JACK client whose input port is removed and made again under the same name on
 * demand, as WirePlumber does to a sink's ports when it configures the sink (right after a
 * server restart): the links to the port go with it, though nobody undid them.
 *
 *   portcycle NAME       joins as NAME with one audio input, NAME:in; prints "ready"; then for
 *                        each line "cycle" on stdin unregisters NAME:in and registers it again
 *                        at once, printing "cycled"; exits 0 at the end of stdin.
 *
 * Exit 69: no server; 70: a port cannot be registered.
 * Build: cc -O2 -o portcycle portcycle.c -ljack
 */
#include <jack/jack.h>
#include <stdio.h>
#include <string.h>

static int process(jack_nframes_t n, void *arg) {
    (void)n; (void)arg;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: portcycle NAME\n");
        return 64;
    }
    jack_status_t status;
    jack_client_t *client = jack_client_open(argv[1], JackNoStartServer | JackUseExactName, &status);
    if (!client) {
        fprintf(stderr, "portcycle: no JACK server (status 0x%x)\n", status);
        return 69;
    }
    jack_port_t *port = jack_port_register(client, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    if (!port) return 70;
    jack_set_process_callback(client, process, NULL);
    if (jack_activate(client)) return 69;
    printf("ready\n");
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "cycle", 5) != 0) continue;
        jack_port_unregister(client, port);
        port = jack_port_register(client, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
        if (!port) return 70;
        printf("cycled\n");
        fflush(stdout);
    }
    jack_client_close(client);
    return 0;
}
