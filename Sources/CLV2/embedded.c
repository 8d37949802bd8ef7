// What the Embedded Swift standard library leaves to the platform, for the plugin's build
// (scripts/build-plugins; SwiftPM builds do not compile this file: the full runtime has it).
#define _GNU_SOURCE
#include <locale.h>
#include <stdlib.h>

/// `Double(String)`'s parser: strtod in the C locale (a host's own locale, with a decimal
/// comma, never changes how rack reads a number). Returns where parsing stopped.
const char *_swift_stdlib_strtod_clocale(const char *text, double *result) {
    static locale_t c;
    if (!c) c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    char *end;
    *result = c ? strtod_l(text, &end, c) : strtod(text, &end);
    return end;
}
