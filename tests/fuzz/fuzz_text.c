/* tests/fuzz/fuzz_text.c — libFuzzer harness for the text every writer
 * echoes: core/text.h's escaping (messages, names, summary.csv) and the
 * workbook's cell cleaning (report/xlsx.c).  Any bytes in; what comes out
 * must be valid UTF-8 with no control or bidi character left (the
 * workbook keeps tab and newline), escaping must not lose text (the length
 * it reports is what it writes when there is room), and it must be stable:
 * escaping escaped text changes nothing (make fuzz). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "report/report.h"

static void check_clean(const char *s, int allow_tab_nl)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned cp;
        int k = text_utf8_decode(p, &cp);
        if (!k)
            abort(); /* not UTF-8 */
        if (text_unsafe(cp) && !(allow_tab_nl && (cp == '\t' || cp == '\n')))
            abort(); /* a control or bidi character got through */
        p += k;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *in = malloc(size + 1);
    if (!in)
        return 0;
    memcpy(in, data, size);
    in[size] = '\0';
    char out[4096 * 9 + 16];
    const size_t need = text_escape(in, out, sizeof out);
    if (need != strlen(out))
        abort(); /* there was room: all of it written */
    check_clean(out, 0);
    char again[sizeof out];
    if (text_escape(out, again, sizeof again) != need || strcmp(out, again))
        abort(); /* escaped text is already safe */
    char small[17];
    text_escape(in, small, sizeof small); /* cut: still NUL-terminated, still clean */
    if (strlen(small) > 16)
        abort();
    check_clean(small, 0);
    char cell[4096 * 9 + 16];
    rpt_clean_text(in, cell, sizeof cell);
    check_clean(cell, 1);
    free(in);
    return 0;
}
