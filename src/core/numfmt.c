/* core/numfmt.c — "%.6g" without printf (see numfmt.h). */
#include "core/numfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The powers of ten a double holds exactly. */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Their inverses, rounded to the nearest double (not exact): a
 * multiplication where a division would be exact costs one more unit in
 * the last place of the scaled value, 1e-10 against the 1e-6 tie margin. */
static const double pow10_inv[23] = {1e0,   1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                                     1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15,
                                     1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};
/* a x 10^k (|k| up to about 650): each step one correctly rounded
 * multiplication or division, so the result is within a few units in the
 * last place. */
static double scale10(double a, int k)
{
    for (; k > 22; k -= 22)
        a *= 1e22;
    for (; k < -22; k += 22)
        a /= 1e22;
    return k >= 0 ? a * pow10_exact[k] : a * pow10_inv[-k];
}

static int slow(double v, char *out)
{
    return snprintf(out, NUMFMT_G6_MAX, "%.6g", v);
}

int numfmt_g6(double v, char *out)
{
    if (!isfinite(v))
        return slow(v, out);
    char *p = out;
    if (signbit(v))
        *p++ = '-';
    const double a = fabs(v);
    if (a == 0) {
        *p++ = '0';
        *p = '\0';
        return (int)(p - out);
    }
    /* a whole number of at most six digits (a third of a report's cells):
     * as it is */
    if (a >= 1.0 && a < 999999.5) {
        uint32_t u = (uint32_t)a;
        if ((double)u == a) {
            char rev[6];
            int k = 0;
            for (; u; u /= 10u)
                rev[k++] = (char)('0' + u % 10u);
            while (k)
                *p++ = rev[--k];
            *p = '\0';
            return (int)(p - out);
        }
    }
    /* the decimal exponent: floor(log10 a) is est or est + 1; a = m 2^e2,
     * m in [0.5, 1), e2 read from the bits (frexp for a subnormal) */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int e2 = (int)(bits >> 52) - 1022;
    if (e2 == -1022)
        frexp(a, &e2);
    const int e = e2 - 1; /* floor(e log10 2), exact for |e| < 1650 */
    int x = e >= 0 ? (e * 78913) >> 18 : -((-e * 78913 + (1 << 18) - 1) >> 18);
    double s = scale10(a, 5 - x);
    /* one more correctly rounded step where the estimate was one off:
     * within a unit in the last place of s, far inside the tie margin */
    if (s >= 999999.5) {
        x++;
        s /= 10.0;
    } else if (s < 99999.5) {
        x--;
        s *= 10.0;
    }
    /* six digits, rounded to nearest; a seventh digit of 5 and then
     * nothing (to within the scaling's error) is a tie printf decides on
     * the exact value */
    const uint32_t whole = (uint32_t)s; /* floor: s is positive, below 10^6 */
    const double frac = s - (double)whole;
    if (fabs(frac - 0.5) < 1e-6 || whole < 99999u || whole > 999999u)
        return slow(v, out);
    uint32_t d = whole + (frac > 0.5);
    if (d >= 1000000u) {
        d /= 10u;
        x++;
    }
    char dig[6];
    for (int i = 5; i >= 0; i--, d /= 10u)
        dig[i] = (char)('0' + d % 10u);
    int last = 5; /* the last digit kept: trailing zeros go */
    while (last > 0 && dig[last] == '0')
        last--;
    if (x < -4 || x >= 6) {
        *p++ = dig[0];
        if (last > 0) {
            *p++ = '.';
            for (int i = 1; i <= last; i++)
                *p++ = dig[i];
        }
        *p++ = 'e';
        *p++ = x < 0 ? '-' : '+';
        const int ax = x < 0 ? -x : x;
        if (ax >= 100)
            *p++ = (char)('0' + ax / 100);
        *p++ = (char)('0' + ax / 10 % 10);
        *p++ = (char)('0' + ax % 10);
    } else if (x >= 0) {
        for (int i = 0; i <= x; i++)
            *p++ = dig[i];
        if (last > x) {
            *p++ = '.';
            for (int i = x + 1; i <= last; i++)
                *p++ = dig[i];
        }
    } else {
        *p++ = '0';
        *p++ = '.';
        for (int i = -1; i > x; i--)
            *p++ = '0';
        for (int i = 0; i <= last; i++)
            *p++ = dig[i];
    }
    *p = '\0';
    return (int)(p - out);
}
