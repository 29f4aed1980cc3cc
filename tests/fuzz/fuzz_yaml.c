/* tests/fuzz/fuzz_yaml.c — libFuzzer harness for the YAML reader (ytree):
 * aliases, duplicate keys, deep nesting and malformed documents must give
 * a diagnostic, never a crash or an exponential blow-up (make fuzz). */
#include <stddef.h>
#include <stdint.h>

#include "io/ytree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Diag d;
    diag_clear(&d);
    YNode *n = ytree_parse("fuzz.yaml", (const char *)data, size, &d);
    ytree_free(n);
    return 0;
}
