/* tests/testutil.h — helpers shared by the cmocka tests.  cmocka 1.1.5 has
 * no assert_double_equal and its assert_float_equal compares as float, so
 * doubles are checked here with a relative tolerance. */
#ifndef DF_TESTUTIL_H
#define DF_TESTUTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

/* |a - b| <= rel * max(|a|, |b|), or both exactly equal. */
#define assert_rel(a, b, rel) _assert_rel((double)(a), (double)(b), (rel), #a, #b, __FILE__, __LINE__)

static inline void _assert_rel(double a, double b, double rel, const char *sa, const char *sb,
                               const char *file, int line)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (a == b || (isfinite(a) && isfinite(b) && fabs(a - b) <= rel * m))
        return;
    print_error("%s = %.9g, %s = %.9g differ by more than %.3g relative\n", sa, a, sb, b, rel);
    _fail(file, line);
}

#endif
