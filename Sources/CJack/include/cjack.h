#ifndef RACK_CJACK_H
#define RACK_CJACK_H
#include <jack/jack.h>
#include <jack/types.h>
#include <jack/midiport.h>

/// Non-variadic wrapper around jack_client_open (Swift cannot call C variadics).
/// server_name may be NULL (JACK_DEFAULT_SERVER or "default").
jack_client_t *rack_jack_client_open(const char *client_name, jack_options_t options,
                                     jack_status_t *status, const char *server_name);
#endif
