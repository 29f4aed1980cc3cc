/* tests/fuzz/fuzz_units.c — libFuzzer harness for the unit parser: every
 * kind, any text; a parsed value must print and parse back (make fuzz). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 256)
        return 0;
    char text[257];
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    UnitKind kind = (UnitKind)(data[0] % UNIT_KIND_COUNT);
    double v;
    char err[128], buf[64];
    if (unit_parse(text, kind, &v, err, sizeof err) == 0 && isfinite(v)) {
        unit_format(v, kind, buf, sizeof buf);
        double back;
        if (unit_parse(buf, kind, &back, err, sizeof err) != 0)
            abort(); /* what we print we must read */
    }
    return 0;
}
