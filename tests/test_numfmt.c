/* tests/test_numfmt.c — core/numfmt.h: numfmt_g6 writes what printf's
 * "%.6g" writes, byte for byte, on every kind of double (a property test
 * over millions of values of a fixed pseudo-random sequence, and the edge
 * cases by name); and report/messages.c's grouping of failed rows'
 * messages, which a streamed run does as the rows pass. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numfmt.h"
#include "report/report.h"

static void check(double v)
{
    char got[NUMFMT_G6_MAX + 8], want[64];
    const int n = numfmt_g6(v, got);
    snprintf(want, sizeof want, "%.6g", v);
    if (strcmp(got, want))
        fail_msg("%.17g: numfmt_g6 wrote '%s', printf '%s'", v, got, want);
    assert_int_equal(n, (int)strlen(want));
    assert_true(n < NUMFMT_G6_MAX);
}

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* Every bit pattern that is a double: all exponents, subnormals, both signs. */
static void test_random_bits(void **st)
{
    (void)st;
    for (long i = 0; i < 1000000; i++) {
        uint64_t r = next();
        double v;
        memcpy(&v, &r, sizeof v);
        check(v);
    }
}

/* The numbers a report holds: seconds, days, watts, fractions, counts. */
static void test_report_magnitudes(void **st)
{
    (void)st;
    for (long i = 0; i < 1000000; i++) {
        const double m = (double)(next() >> 11) / 9007199254740992.0; /* [0, 1) */
        const int e = (int)(next() % 40) - 20;
        check((i & 1 ? -1 : 1) * m * pow(10, e));
    }
}

/* Decimal values at six and seven digits, and halfway between two six-digit
 * numbers (the ties printf rounds on the exact binary value). */
static void test_ties_and_short_decimals(void **st)
{
    (void)st;
    for (long i = 0; i < 500000; i++) {
        const long d = (long)(next() % 10000000);
        const int e = (int)(next() % 30) - 15;
        check((double)d * pow(10, e));
        check(((double)(next() % 2000000) + 0.5) * pow(10, e));
        check((double)d / 1e6);
    }
    for (long d = 999990; d <= 1000010; d++) { /* around a carry into a seventh digit */
        check((double)d);
        check((double)d * 10 + 5);
        check((double)d / 1e11);
    }
}

/* Whole numbers to a million and past it, where the digits are written
 * as they are, and the values just beside the six-digit limit. */
static void test_whole_numbers(void **st)
{
    (void)st;
    for (long k = 0; k <= 1000010; k++) {
        check((double)k);
        check(-(double)k);
    }
    check(999999.49999999988);
    check(999999.50000000012);
    check(0.99999999999999989);
    check(1.0000000000000002);
}

static void test_named_cases(void **st)
{
    (void)st;
    const double v[] = {0.0,
                        -0.0,
                        1.0,
                        -1.0,
                        0.1,
                        1e-4,
                        9.99999e-5,
                        9.999995e-5,
                        1e-5,
                        123456.0,
                        1234567.0,
                        999999.0,
                        999999.5,
                        9999995.0,
                        1e6,
                        1e100,
                        1e-100,
                        4.9406564584124654e-324,
                        2.2250738585072014e-308,
                        1.7976931348623157e308,
                        86400.0,
                        3.6e6,
                        0.5,
                        2.5,
                        1234565.0,
                        INFINITY,
                        -INFINITY,
                        NAN};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        check(v[i]);
    char b[NUMFMT_G6_MAX];
    numfmt_g6(0.000123456789, b);
    assert_string_equal(b, "0.000123457");
    numfmt_g6(-1234567.0, b);
    assert_string_equal(b, "-1.23457e+06");
    numfmt_g6(1e-300, b);
    assert_string_equal(b, "1e-300");
}

/* A grouper writing into memory (said_text gives what it wrote). */
typedef struct {
    char *text;
    size_t len;
    FILE *f;
} Said;

static RptSaid *said_open(Said *m)
{
    m->text = NULL;
    m->len = 0;
    m->f = open_memstream(&m->text, &m->len);
    assert_non_null(m->f);
    RptSaid *s = rpt_said_new(m->f);
    assert_non_null(s);
    return s;
}

static const char *said_text(Said *m, RptSaid *s)
{
    rpt_said_finish(s);
    fclose(m->f);
    return m->text;
}

/* rpt_said_*: one message many rows share is said once, at its first row,
 * with its table lines (ten, then "..."); distinct messages in order of
 * their first row. */
static void test_said_grouping(void **st)
{
    (void)st;
    Said m;
    RptSaid *s = said_open(&m);
    rpt_said_add(s, "t.csv:2:3: bad", 2);
    rpt_said_add(s, "tpl.yaml:4:1: broken", 3);
    rpt_said_add(s, "t.csv:2:3: bad", 2);
    rpt_said_add(s, "tpl.yaml:4:1: broken", 5);
    rpt_said_add(s, "t.csv:9:1: alone", 9);
    for (int line = 10; line < 22; line++)
        rpt_said_add(s, "tpl.yaml:7:1: many", line);
    const char *text = said_text(&m, s);
    assert_string_equal(text,
                        "t.csv:2:3: bad (the same for 2 scenarios, table line 2)\n"
                        "tpl.yaml:4:1: broken (the same for 2 scenarios, table lines 3, 5)\n"
                        "t.csv:9:1: alone\n"
                        "tpl.yaml:7:1: many (the same for 12 scenarios, table lines 10, 11, 12, 13, 14, "
                        "15, 16, 17, 18, 19, ...)\n");
    free(m.text);
}

/* Past RPT_SAID_GROUPS distinct messages the groups so far are said and a
 * new set begins: memory stays bounded, every message is still said. */
static void test_said_bounded(void **st)
{
    (void)st;
    Said m;
    RptSaid *s = said_open(&m);
    char msg[64];
    const int n = 10000;
    for (int i = 0; i < n; i++) {
        snprintf(msg, sizeof msg, "t.csv:%d:1: bad", i + 2);
        assert_int_equal(rpt_said_add(s, msg, i + 2), 0);
    }
    const char *text = said_text(&m, s);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, n);
    assert_true(strncmp(text, "t.csv:2:1: bad\n", 15) == 0);
    assert_non_null(strstr(text, "t.csv:10001:1: bad\n"));
    free(m.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_bits),
        cmocka_unit_test(test_report_magnitudes),
        cmocka_unit_test(test_ties_and_short_decimals),
        cmocka_unit_test(test_whole_numbers),
        cmocka_unit_test(test_named_cases),
        cmocka_unit_test(test_said_grouping),
        cmocka_unit_test(test_said_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
