/* core/units.c — values with units, parsed and printed at the edges (see
 * units.h).  Inside the model every quantity is a double in SI: s, B, B/s,
 * FLOP, FLOP/s, Hz, W, J, J/bit, J/FLOP, V, m; areas are in mm^2 and edge
 * bandwidth densities in B/s per mm.
 *
 * A value is "[$] number [unit]" with optional whitespace around and between.
 * The number is [sign] digits [. digits] [e [sign] digits]: no hex, inf or
 * nan.  A unit is [prefix] base, matched against a flat table of bases per
 * kind.  Prefixes: k/K M G T P E Z Y are powers of 1000, Ki Mi Gi Ti Pi Ei
 * powers of 1024, m u/µ n p f powers of 1/1000, c 1/100 (lengths, areas).
 * 'b' is a bit and 'B' a byte.  The case of b/B, m/M and p/P matters; the
 * words FLOP and Hz, and their (large only) prefixes, may be in any case:
 * "ghz", "mflop/s" (mega: no one means milli-FLOP/s or millihertz here).
 *
 * Locale: the number is validated by our own scanner and then converted
 * with strtod().  The program never calls setlocale(), so strtod runs in
 * the "C" locale and the decimal point is '.'.  Were a locale with a decimal
 * comma ever set, strtod would stop early, the end pointers would disagree
 * and the value would be rejected ("not a number") rather than misread.
 *
 * No state but const tables, no allocation: safe from any thread. */
#include "units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which prefixes a base takes, and how it is matched. */
enum {
    PFX_BIG = 1 << 0,    /* k K M G T P E Z Y: powers of 1000 */
    PFX_BIN = 1 << 1,    /* Ki Mi Gi Ti Pi Ei: powers of 1024 */
    PFX_SMALL = 1 << 2,  /* m u µ n p f: powers of 1/1000 */
    PFX_CENTI = 1 << 3,  /* c: 1/100 */
    PFX_ICASE = 1 << 4,  /* large prefixes in any case ("ghz") */
    BASE_ICASE = 1 << 5, /* base in any case ("flop/s", "hz") */
    PFX_SQUARED = 1 << 6 /* prefix applies squared (mm^2) */
};

typedef struct {
    const char *text;
    int exp10;   /* power of ten */
    int exp1024; /* power of 1024 */
    int set;     /* PFX_BIG, PFX_BIN, PFX_SMALL or PFX_CENTI */
} Prefix;

#define MICRO_SIGN "\xC2\xB5" /* U+00B5, UTF-8 */
#define GREEK_MU   "\xCE\xBC" /* U+03BC, UTF-8 */

static const Prefix prefixes[] = {
    {"k", 3, 0, PFX_BIG},         {"K", 3, 0, PFX_BIG},    {"M", 6, 0, PFX_BIG},
    {"G", 9, 0, PFX_BIG},         {"T", 12, 0, PFX_BIG},   {"P", 15, 0, PFX_BIG},
    {"E", 18, 0, PFX_BIG},        {"Z", 21, 0, PFX_BIG},   {"Y", 24, 0, PFX_BIG},
    {"Ki", 0, 1, PFX_BIN},        {"Mi", 0, 2, PFX_BIN},   {"Gi", 0, 3, PFX_BIN},
    {"Ti", 0, 4, PFX_BIN},        {"Pi", 0, 5, PFX_BIN},   {"Ei", 0, 6, PFX_BIN},
    {"m", -3, 0, PFX_SMALL},      {"u", -6, 0, PFX_SMALL}, {MICRO_SIGN, -6, 0, PFX_SMALL},
    {GREEK_MU, -6, 0, PFX_SMALL}, {"n", -9, 0, PFX_SMALL}, {"p", -12, 0, PFX_SMALL},
    {"f", -15, 0, PFX_SMALL},     {"c", -2, 0, PFX_CENTI},
};

/* One base unit of a kind: value_SI = number * mult * 10^exp10 * prefix. */
typedef struct {
    UnitKind kind;
    const char *base;
    double mult;
    int exp10;
    int flags;
} UnitDef;

#define BIGS      (PFX_BIG | PFX_BIN)
#define SI_ALL    (PFX_BIG | PFX_SMALL)
#define FLOP_CASE (PFX_BIG | PFX_ICASE | BASE_ICASE)

/* Bases per kind, in enum order; the first match of another kind names
 * that kind in "unit 'X' is a size, not a bandwidth". */
static const UnitDef units[] = {
    {UNIT_FRACTION, "%", 1.0, -2, 0},

    {UNIT_BYTES, "B", 1.0, 0, BIGS},
    {UNIT_BYTES, "byte", 1.0, 0, BIGS},
    {UNIT_BYTES, "bytes", 1.0, 0, BIGS},
    {UNIT_BYTES, "b", 0.125, 0, BIGS},
    {UNIT_BYTES, "bit", 0.125, 0, BIGS},
    {UNIT_BYTES, "bits", 0.125, 0, BIGS},

    {UNIT_BANDWIDTH, "B/s", 1.0, 0, BIGS},
    {UNIT_BANDWIDTH, "Bps", 1.0, 0, BIGS},
    {UNIT_BANDWIDTH, "b/s", 0.125, 0, BIGS},
    {UNIT_BANDWIDTH, "bit/s", 0.125, 0, BIGS},
    {UNIT_BANDWIDTH, "bps", 0.125, 0, BIGS},

    {UNIT_FLOPS, "FLOP/s", 1.0, 0, FLOP_CASE},
    {UNIT_FLOPS, "FLOPS", 1.0, 0, FLOP_CASE},

    {UNIT_FLOP, "FLOP", 1.0, 0, FLOP_CASE},
    {UNIT_FLOP, "FLOPs", 1.0, 0, PFX_BIG | PFX_ICASE}, /* count, by case */

    {UNIT_FREQUENCY, "Hz", 1.0, 0, PFX_BIG | PFX_ICASE | BASE_ICASE},

    {UNIT_TIME, "s", 1.0, 0, PFX_SMALL},
    {UNIT_TIME, "sec", 1.0, 0, PFX_SMALL},
    {UNIT_TIME, "min", 60.0, 0, 0},
    {UNIT_TIME, "h", 3600.0, 0, 0},
    {UNIT_TIME, "hr", 3600.0, 0, 0},
    {UNIT_TIME, "d", 86400.0, 0, 0},
    {UNIT_TIME, "day", 86400.0, 0, 0},
    {UNIT_TIME, "days", 86400.0, 0, 0},
    {UNIT_TIME, "hours", 3600.0, 0, 0},
    {UNIT_TIME, "minutes", 60.0, 0, 0},

    {UNIT_POWER, "W", 1.0, 0, SI_ALL},
    {UNIT_POWER_RATE, "W/s", 1.0, 0, SI_ALL},

    {UNIT_ENERGY, "J", 1.0, 0, SI_ALL},
    {UNIT_ENERGY, "Wh", 3600.0, 0, SI_ALL},

    {UNIT_ENERGY_PER_BIT, "J/bit", 1.0, 0, SI_ALL},
    {UNIT_ENERGY_PER_BIT, "J/b", 1.0, 0, SI_ALL},
    {UNIT_ENERGY_PER_BIT, "J/B", 0.125, 0, SI_ALL},
    {UNIT_ENERGY_PER_BIT, "J/byte", 0.125, 0, SI_ALL},

    {UNIT_ENERGY_PER_FLOP, "J/FLOP", 1.0, 0, SI_ALL | BASE_ICASE},

    {UNIT_VOLTAGE, "V", 1.0, 0, SI_ALL},

    {UNIT_LENGTH, "m", 1.0, 0, SI_ALL | PFX_CENTI},

    {UNIT_AREA_MM2, "m2", 1.0, 6, PFX_SMALL | PFX_CENTI | PFX_SQUARED},
    {UNIT_AREA_MM2, "m^2", 1.0, 6, PFX_SMALL | PFX_CENTI | PFX_SQUARED},
    {UNIT_AREA_MM2, "m\xC2\xB2", 1.0, 6, PFX_SMALL | PFX_CENTI | PFX_SQUARED},

    {UNIT_BANDWIDTH_PER_MM, "B/s/mm", 1.0, 0, BIGS},
    {UNIT_BANDWIDTH_PER_MM, "Bps/mm", 1.0, 0, BIGS},
    {UNIT_BANDWIDTH_PER_MM, "b/s/mm", 0.125, 0, BIGS},
    {UNIT_BANDWIDTH_PER_MM, "bit/s/mm", 0.125, 0, BIGS},
    {UNIT_BANDWIDTH_PER_MM, "bps/mm", 0.125, 0, BIGS},

    {UNIT_MONEY, "$", 1.0, 0, 0},
    {UNIT_MONEY, "USD", 1.0, 0, BASE_ICASE},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* "not <this>" in messages, by kind. */
static const char *const kind_noun[UNIT_KIND_COUNT] = {
    [UNIT_NUMBER] = "a number",
    [UNIT_INTEGER] = "an integer",
    [UNIT_FRACTION] = "a fraction",
    [UNIT_BYTES] = "a size",
    [UNIT_BANDWIDTH] = "a bandwidth",
    [UNIT_FLOPS] = "a compute rate",
    [UNIT_FLOP] = "a FLOP count",
    [UNIT_FREQUENCY] = "a frequency",
    [UNIT_TIME] = "a time",
    [UNIT_POWER] = "a power",
    [UNIT_POWER_RATE] = "a rate of change of power",
    [UNIT_ENERGY] = "an energy",
    [UNIT_ENERGY_PER_BIT] = "an energy per bit",
    [UNIT_ENERGY_PER_FLOP] = "an energy per FLOP",
    [UNIT_VOLTAGE] = "a voltage",
    [UNIT_LENGTH] = "a length",
    [UNIT_AREA_MM2] = "an area",
    [UNIT_BANDWIDTH_PER_MM] = "a bandwidth per mm",
    [UNIT_MONEY] = "money",
};

static const char *const kind_expect[UNIT_KIND_COUNT] = {
    [UNIT_NUMBER] = "a number",
    [UNIT_INTEGER] = "an integer",
    [UNIT_FRACTION] = "a fraction (0..1 or %)",
    [UNIT_BYTES] = "a size (B, GB, GiB, TB)",
    [UNIT_BANDWIDTH] = "a bandwidth (B/s, GB/s, TB/s, Gb/s)",
    [UNIT_FLOPS] = "a compute rate (TFLOP/s)",
    [UNIT_FLOP] = "a FLOP count (FLOP, GFLOP, TFLOP)",
    [UNIT_FREQUENCY] = "a frequency (Hz, MHz, GHz)",
    [UNIT_TIME] = "a time (us, ms, s, min, h, days)",
    [UNIT_POWER] = "a power (W, kW)",
    [UNIT_POWER_RATE] = "a rate of change of power (W/s, MW/s)",
    [UNIT_ENERGY] = "an energy (J, kJ, kWh)",
    [UNIT_ENERGY_PER_BIT] = "an energy per bit (pJ/bit)",
    [UNIT_ENERGY_PER_FLOP] = "an energy per FLOP (pJ/FLOP)",
    [UNIT_VOLTAGE] = "a voltage (V, mV)",
    [UNIT_LENGTH] = "a length (m, mm, um, nm)",
    [UNIT_AREA_MM2] = "an area (mm^2, um^2)",
    [UNIT_BANDWIDTH_PER_MM] = "a bandwidth per mm of edge (GB/s/mm, Tb/s/mm)",
    [UNIT_MONEY] = "an amount of money ($2.5, $30M, 30e6 USD)",
};

static const char *const kind_si[UNIT_KIND_COUNT] = {
    [UNIT_NUMBER] = "",
    [UNIT_INTEGER] = "",
    [UNIT_FRACTION] = "",
    [UNIT_BYTES] = "B",
    [UNIT_BANDWIDTH] = "B/s",
    [UNIT_FLOPS] = "FLOP/s",
    [UNIT_FLOP] = "FLOP",
    [UNIT_FREQUENCY] = "Hz",
    [UNIT_TIME] = "s",
    [UNIT_POWER] = "W",
    [UNIT_POWER_RATE] = "W/s",
    [UNIT_ENERGY] = "J",
    [UNIT_ENERGY_PER_BIT] = "J/bit",
    [UNIT_ENERGY_PER_FLOP] = "J/FLOP",
    [UNIT_VOLTAGE] = "V",
    [UNIT_LENGTH] = "m",
    [UNIT_AREA_MM2] = "mm^2",
    [UNIT_BANDWIDTH_PER_MM] = "B/s/mm",
    [UNIT_MONEY] = "$",
};

/* Longest unit text quoted back in a message. */
#define UNIT_QUOTE_MAX 32

/* ---- small helpers ---------------------------------------------------- */

/* snprintf that tolerates buf == NULL (then n is taken as 0).  Bounded, so
 * the analyzer's Annex K advice does not apply; its va_list warning is a
 * clang-tidy 14 false positive that appears for every file but the first
 * when several are checked in one run (diag.c gets it too). */
__attribute__((format(printf, 3, 4))) static int fmt(char *buf, size_t n, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    /* NOLINTNEXTLINE(clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling,clang-analyzer-valist.Uninitialized)
     */
    int r = vsnprintf(buf, buf ? n : 0, f, ap);
    va_end(ap);
    return r;
}

/* Write the reason into err (if any) and return -1. */
__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *f, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, f);
        /* NOLINTNEXTLINE(clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling,clang-analyzer-valist.Uninitialized)
         */
        vsnprintf(err, errlen, f, ap);
        va_end(ap);
    }
    return -1;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static char ascii_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static int same_text(const char *a, const char *b, size_t n, int icase)
{
    for (size_t i = 0; i < n; i++) {
        char x = a[i], y = b[i];
        if (icase) {
            x = ascii_lower(x);
            y = ascii_lower(y);
        }
        if (x != y)
            return 0;
    }
    return 1;
}

/* 10^e for 0 <= e; exact up to 1e22. */
static double pow10i(int e)
{
    static const double p10[] = {
        1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30,
    };
    if (e >= 0 && e < (int)COUNT(p10))
        return p10[e];
    return pow(10.0, e);
}

/* x * 10^e, dividing for negative e so that "5 us" is the double nearest
 * to 5e-6. */
static double times_pow10(double x, int e)
{
    return e >= 0 ? x * pow10i(e) : x / pow10i(-e);
}

/* ---- parsing ---------------------------------------------------------- */

/* End of "[sign] digits [. digits] [e [sign] digits]" at s (at least one
 * digit in the mantissa), or NULL. */
static const char *scan_number(const char *s)
{
    const char *p = s;
    int digits = 0;
    if (*p == '+' || *p == '-')
        p++;
    while (is_digit(*p)) {
        p++;
        digits++;
    }
    if (*p == '.') {
        p++;
        while (is_digit(*p)) {
            p++;
            digits++;
        }
    }
    if (!digits)
        return NULL;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-')
            q++;
        if (is_digit(*q)) {
            while (is_digit(*q))
                q++;
            p = q;
        }
    }
    return p;
}

typedef struct {
    double mult;
    int exp10;
    int exp1024;
} Scale;

static const Prefix *find_prefix(const char *s, size_t len, int flags)
{
    /* exact case first; then, where the base allows it, a large prefix in
     * any case ("g" for G, "m" for M: such bases take no small prefixes) */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !(flags & PFX_ICASE))
            break;
        for (size_t i = 0; i < COUNT(prefixes); i++) {
            const Prefix *p = &prefixes[i];
            if (!(p->set & flags) || strlen(p->text) != len)
                continue;
            if (pass == 1 && p->set != PFX_BIG)
                continue;
            if (same_text(s, p->text, len, pass == 1))
                return p;
        }
    }
    return NULL;
}

/* Does unit text s[0..len) read as [prefix] def->base?  Fills *sc. */
static int match_unit(const UnitDef *def, const char *s, size_t len, Scale *sc)
{
    size_t bl = strlen(def->base);
    if (len < bl || !same_text(s + len - bl, def->base, bl, (def->flags & BASE_ICASE) != 0))
        return 0;
    sc->mult = def->mult;
    sc->exp10 = def->exp10;
    sc->exp1024 = 0;
    size_t pl = len - bl;
    if (pl == 0)
        return 1;
    const Prefix *p = find_prefix(s, pl, def->flags);
    if (!p)
        return 0;
    sc->exp10 += (def->flags & PFX_SQUARED) ? 2 * p->exp10 : p->exp10;
    sc->exp1024 = p->exp1024;
    return 1;
}

static int find_unit(UnitKind kind, const char *s, size_t len, Scale *sc)
{
    for (size_t i = 0; i < COUNT(units); i++)
        if (units[i].kind == kind && match_unit(&units[i], s, len, sc))
            return 1;
    return 0;
}

/* The kind (other than `skip`) a unit text belongs to, or UNIT_KIND_COUNT. */
static UnitKind unit_owner(const char *s, size_t len, UnitKind skip)
{
    Scale sc;
    for (size_t i = 0; i < COUNT(units); i++)
        if (units[i].kind != skip && match_unit(&units[i], s, len, &sc))
            return units[i].kind;
    return UNIT_KIND_COUNT;
}

/* "unit 'TB' is a size, not a bandwidth" or "unknown unit 'XB'". */
static int fail_unit(char *err, size_t errlen, const char *u, size_t len, UnitKind kind)
{
    int q = len > UNIT_QUOTE_MAX ? UNIT_QUOTE_MAX : (int)len;
    const char *more = len > UNIT_QUOTE_MAX ? "..." : "";
    UnitKind owner = unit_owner(u, len, kind);
    /* "300B" for a count: a suffix meant as a multiplier */
    if (kind == UNIT_NUMBER && len == 1 && strchr("kKMBGT", u[0]))
        return fail(err, errlen,
                    "'%c' is not a multiplier here: write the number in full or with e, as 300e9 or 1.5e6",
                    u[0]);
    if (owner == UNIT_KIND_COUNT)
        return fail(err, errlen, "unknown unit '%.*s%s'", q, u, more);
    const char *is = owner == UNIT_FRACTION ? "a percentage" : kind_noun[owner];
    return fail(err, errlen, "unit '%.*s%s' is %s, not %s", q, u, more, is, kind_noun[kind]);
}

/* Money as people type it: "[$] amount [multiplier] [USD | $]", where the
 * amount may group its thousands with commas ("$30,000,000") and the
 * multiplier is k/K (thousand), M (million), B or bn (billion) or T
 * (trillion): "$30M", "$30 M", "30e6 USD", "$1.2 B".  M is a million here:
 * no one means a thousandth of a dollar.  p..end is trimmed and non-empty;
 * dollar says a leading '$' was taken. */
static int parse_money(const char *p, const char *end, int dollar, double *out, char *err, size_t errlen)
{
    static const struct {
        const char *text;
        int exp10;
    } mults[] = {{"bn", 9}, {"k", 3}, {"K", 3}, {"M", 6}, {"B", 9}, {"T", 12}};
    static const char hint[] = "write $30M, $30 M, 30e6 USD or $30,000,000";
    char num[64];
    size_t n = 0;
    const char *s = p;
    if (*s == '+' || *s == '-')
        num[n++] = *s++;
    /* the whole part, its thousands grouped by commas or not */
    int group = 0, grouped = 0;
    for (; s < end && (is_digit(*s) || (*s == ',' && group > 0)); s++) {
        if (*s == ',') {
            if ((grouped && group != 3) || group > 3)
                return fail(err, errlen, "not a number: %s", hint);
            grouped = 1;
            group = 0;
            continue;
        }
        if (n + 1 >= sizeof num)
            return fail(err, errlen, "not a number");
        num[n++] = *s;
        group++;
    }
    if (grouped && group != 3)
        return fail(err, errlen, "not a number: %s", hint);
    /* the fraction and the exponent, as every other value reads them */
    size_t left = (size_t)(end - s);
    if (n + left >= sizeof num)
        left = sizeof num - n - 1;
    memcpy(num + n, s, left);
    num[n + left] = '\0';
    char *num_end = (char *)scan_number(num);
    if (!num_end)
        return unit_owner(p, (size_t)(end - p), UNIT_KIND_COUNT) != UNIT_KIND_COUNT
                   ? fail(err, errlen, "missing number")
                   : fail(err, errlen, "not a number: %s", hint);
    s += num_end - (num + n);
    *num_end = '\0';
    double v = strtod(num, NULL);
    /* the multiplier, then the currency */
    while (s < end && is_space(*s))
        s++;
    for (size_t i = 0; i < COUNT(mults); i++) {
        const size_t ml = strlen(mults[i].text);
        const char *after = s + ml;
        if ((size_t)(end - s) >= ml && !strncmp(s, mults[i].text, ml) &&
            (after == end || is_space(*after) || *after == '$' || *after == 'U' || *after == 'u')) {
            v = times_pow10(v, mults[i].exp10);
            s = after;
            break;
        }
    }
    while (s < end && is_space(*s))
        s++;
    const size_t ulen = (size_t)(end - s);
    const int q = ulen > UNIT_QUOTE_MAX ? UNIT_QUOTE_MAX : (int)ulen;
    if (ulen > 0 && (dollar || !((ulen == 3 && same_text(s, "USD", 3, 1)) || (ulen == 1 && *s == '$')))) {
        if (!dollar && unit_owner(s, ulen, UNIT_MONEY) != UNIT_KIND_COUNT)
            return fail_unit(err, errlen, s, ulen, UNIT_MONEY);
        return fail(err, errlen, "unexpected '%.*s' after the amount: %s", q, s, hint);
    }
    if (!isfinite(v))
        return fail(err, errlen, "number out of range");
    if (out)
        *out = v == 0 ? 0.0 : v; /* no "-0" */
    return 0;
}

int unit_parse(const char *text, UnitKind kind, double *out, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if ((unsigned)kind >= UNIT_KIND_COUNT)
        return fail(err, errlen, "unknown unit kind %d", (int)kind);
    if (!text)
        return fail(err, errlen, "missing number");
    /* a bare whole number of up to 15 digits (most cells): exact, as strtod reads it */
    if (kind != UNIT_MONEY) {
        size_t k = 0;
        double w = 0;
        for (; k < 16 && is_digit(text[k]); k++)
            w = w * 10.0 + (double)(text[k] - '0');
        if (k > 0 && k < 16 && text[k] == '\0') {
            if (out)
                *out = w;
            return 0;
        }
    }

    const char *p = text;
    while (is_space(*p))
        p++;
    const char *end = p + strlen(p);
    while (end > p && is_space(end[-1]))
        end--;
    if (p == end)
        return fail(err, errlen, "missing number");

    int dollar = 0, minus = 0;
    if ((*p == '-' || *p == '+') && p + 1 < end && p[1] == '$') { /* "-$5", as money is printed */
        minus = *p == '-';
        p++;
    }
    if (*p == '$') {
        dollar = 1;
        p++;
        while (p < end && is_space(*p))
            p++;
        if (p == end)
            return fail(err, errlen, "missing number");
    }

    if (kind == UNIT_MONEY) {
        if (minus && (*p == '-' || *p == '+'))
            return fail(err, errlen, "not a number");
        const int rc = parse_money(p, end, dollar, out, err, errlen);
        if (rc == 0 && minus && out && *out != 0)
            *out = -*out;
        return rc;
    }

    const char *num_end = scan_number(p);
    if (!num_end) {
        /* "GB" alone is a missing number; "inf", "nan", "abc" are not numbers */
        const char *u = p;
        if (*u == '+' || *u == '-')
            u++;
        if (u < end && unit_owner(u, (size_t)(end - u), UNIT_KIND_COUNT) != UNIT_KIND_COUNT)
            return fail(err, errlen, "missing number");
        return fail(err, errlen, "not a number");
    }
    /* "0x1F" (hex), "1,5", "1.2.3", "3 4": a number followed by more number */
    const char *u = num_end;
    while (u < end && is_space(*u))
        u++;
    size_t ulen = (size_t)(end - u);
    if (ulen > 0) {
        const char *digits = (*p == '+' || *p == '-') ? p + 1 : p;
        int hex = (*num_end == 'x' || *num_end == 'X') && num_end - digits == 1 && *digits == '0';
        if (hex || is_digit(*u) || *u == '.' || *u == ',' || *u == '_')
            return fail(err, errlen, "not a number");
    }

    char *q = NULL;
    double v = strtod(p, &q);
    if (q != num_end)
        return fail(err, errlen, "not a number");
    if (!isfinite(v))
        return fail(err, errlen, "number out of range");

    if (dollar && kind != UNIT_MONEY)
        return fail(err, errlen, "unit '$' is money, not %s", kind_noun[kind]);
    if (dollar && ulen > 0)
        return fail(err, errlen, "unexpected '%.*s' after the amount",
                    ulen > UNIT_QUOTE_MAX ? UNIT_QUOTE_MAX : (int)ulen, u);

    if (ulen > 0) {
        Scale sc;
        if (kind == UNIT_NUMBER || kind == UNIT_INTEGER || !find_unit(kind, u, ulen, &sc))
            return fail_unit(err, errlen, u, ulen, kind);
        v = ldexp(times_pow10(v * sc.mult, sc.exp10), 10 * sc.exp1024);
        if (!isfinite(v))
            return fail(err, errlen, "number out of range");
    }

    if (kind == UNIT_INTEGER) {
        if (v != floor(v))
            return fail(err, errlen, "not an integer");
        if (fabs(v) > 9007199254740992.0) /* 2^53 */
            return fail(err, errlen, "integer out of range");
    }
    if (v == 0)
        v = 0.0; /* no "-0" */
    if (out)
        *out = v;
    return 0;
}

const char *unit_expect(UnitKind kind)
{
    if ((unsigned)kind >= UNIT_KIND_COUNT)
        return "a value";
    return kind_expect[kind];
}

const char *unit_si(UnitKind kind)
{
    if ((unsigned)kind >= UNIT_KIND_COUNT)
        return "";
    return kind_si[kind];
}

/* ---- printing --------------------------------------------------------- */

/* One printed unit: the value is shown as v / 10^exp10 followed by label. */
typedef struct {
    int exp10;
    const char *label;
} Step;

static const Step steps_bytes[] = {
    {0, "B"}, {3, "kB"}, {6, "MB"}, {9, "GB"}, {12, "TB"}, {15, "PB"}, {18, "EB"},
};
static const Step steps_bandwidth[] = {
    {0, "B/s"}, {3, "kB/s"}, {6, "MB/s"}, {9, "GB/s"}, {12, "TB/s"}, {15, "PB/s"}, {18, "EB/s"},
};
static const Step steps_flops[] = {
    {0, "FLOP/s"},   {3, "kFLOP/s"},  {6, "MFLOP/s"},  {9, "GFLOP/s"},
    {12, "TFLOP/s"}, {15, "PFLOP/s"}, {18, "EFLOP/s"}, {21, "ZFLOP/s"},
};
static const Step steps_flop[] = {
    {0, "FLOP"},   {3, "kFLOP"},  {6, "MFLOP"},  {9, "GFLOP"},  {12, "TFLOP"},
    {15, "PFLOP"}, {18, "EFLOP"}, {21, "ZFLOP"}, {24, "YFLOP"},
};
static const Step steps_frequency[] = {
    {0, "Hz"}, {3, "kHz"}, {6, "MHz"}, {9, "GHz"}, {12, "THz"},
};
static const Step steps_time[] = {
    {-15, "fs"}, {-12, "ps"}, {-9, "ns"}, {-6, "us"}, {-3, "ms"}, {0, "s"},
};
static const Step steps_power[] = {
    {-9, "nW"}, {-6, "uW"}, {-3, "mW"}, {0, "W"}, {3, "kW"}, {6, "MW"}, {9, "GW"},
};
static const Step steps_power_rate[] = {
    {0, "W/s"},
    {3, "kW/s"},
    {6, "MW/s"},
    {9, "GW/s"},
};
static const Step steps_energy[] = {
    {-15, "fJ"}, {-12, "pJ"}, {-9, "nJ"}, {-6, "uJ"}, {-3, "mJ"}, {0, "J"},
    {3, "kJ"},   {6, "MJ"},   {9, "GJ"},  {12, "TJ"}, {15, "PJ"},
};
static const Step steps_energy_per_bit[] = {{-12, "pJ/bit"}};
static const Step steps_energy_per_flop[] = {{-12, "pJ/FLOP"}};
static const Step steps_voltage[] = {{0, "V"}};
static const Step steps_length[] = {
    {-12, "pm"}, {-9, "nm"}, {-6, "um"}, {-3, "mm"}, {0, "m"}, {3, "km"},
};
static const Step steps_area[] = {{0, "mm^2"}};
static const Step steps_bandwidth_per_mm[] = {
    {0, "B/s/mm"}, {3, "kB/s/mm"}, {6, "MB/s/mm"}, {9, "GB/s/mm"}, {12, "TB/s/mm"}, {15, "PB/s/mm"},
};

/* x rounded to the 4 significant digits that %.4g will show. */
static double round4(double x)
{
    char tmp[32];
    fmt(tmp, sizeof tmp, "%.3e", x);
    return strtod(tmp, NULL);
}

/* v with the largest unit in steps whose mantissa is >= 1 (after rounding
 * to 4 digits, so 999.96e9 is "1 TB/s", not "1000 GB/s"); the smallest unit
 * when none is; the unit 10^0 (else the first) for zero. */
static int format_steps(double v, const Step *steps, size_t count, char *buf, size_t n)
{
    const Step *st = &steps[0];
    double r = round4(fabs(v));
    if (r == 0) {
        for (size_t i = 0; i < count; i++)
            if (steps[i].exp10 == 0)
                st = &steps[i];
        return fmt(buf, n, "0 %s", st->label);
    }
    for (size_t i = 0; i < count; i++)
        if (r >= times_pow10(1.0, steps[i].exp10))
            st = &steps[i];
    double m = times_pow10(r, -st->exp10);
    if (!isfinite(m) && st->exp10 != 0) /* beyond what the prefixed unit can hold: the base unit */
        return fmt(buf, n, "%s%.4g %s", v < 0 ? "-" : "", r, st->label + 1);
    return fmt(buf, n, "%s%.4g %s", v < 0 ? "-" : "", m, st->label);
}

/* Sizes that are whole KiB/MiB/GiB/TiB/PiB (mantissa below 1024) print in
 * binary units, "80 GiB"; others in decimal, "40 GB". */
static int format_bytes(double v, char *buf, size_t n)
{
    static const char *const bin[] = {"", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double a = fabs(v);
    if (a >= 1024 && a == floor(a)) {
        for (int k = (int)COUNT(bin) - 1; k >= 1; k--) {
            double s = ldexp(1.0, 10 * k);
            if (fmod(a, s) != 0)
                continue;
            if (a / s < 1024)
                return fmt(buf, n, "%s%.4g %s", v < 0 ? "-" : "", a / s, bin[k]);
            break;
        }
    }
    return format_steps(v, steps_bytes, COUNT(steps_bytes), buf, n);
}

#define STEPS(a) (a), COUNT(a), buf, n

/* Times up to 1,000 s in SI steps ("75 us", "12.5 s"); longer ones in the
 * units people plan in ("10 min", "36 h", "30 days"), which read back. */
static int format_time(double v, char *buf, size_t n)
{
    static const struct {
        double s, from;
        const char *label;
    } big[] = {{86400.0, 2 * 86400.0, "days"}, {3600.0, 2 * 3600.0, "h"}, {60.0, 1000.0, "min"}};
    for (size_t i = 0; i < COUNT(big); i++)
        if (fabs(v) >= big[i].from)
            return fmt(buf, n, "%.4g %s", v / big[i].s, big[i].label);
    return format_steps(v, STEPS(steps_time));
}

/* "$2.5", "$250 k", "$2 M", "$1.2 B": up to nine digits, so that an amount
 * as given ("$1.234567 M") reads back, in forms the parser takes. */
static int format_money(double v, char *buf, size_t n)
{
    static const struct {
        double mult;
        const char *label;
    } steps[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}};
    for (size_t i = 0; i < COUNT(steps); i++)
        if (fabs(v) >= steps[i].mult)
            return fmt(buf, n, "%s$%.9g %s", v < 0 ? "-" : "", fabs(v) / steps[i].mult, steps[i].label);
    return fmt(buf, n, "%s$%.9g", v < 0 ? "-" : "", fabs(v));
}

int unit_format(double v, UnitKind kind, char *buf, size_t n)
{
    if (isnan(v))
        return fmt(buf, n, "nan");
    if (isinf(v))
        return fmt(buf, n, "%s", v > 0 ? "inf" : "-inf");
    if (v == 0)
        v = 0.0; /* no "-0" */
    switch (kind) {
    case UNIT_INTEGER:
        if (v == floor(v) && fabs(v) <= 9007199254740992.0)
            return fmt(buf, n, "%.0f", v);
        return fmt(buf, n, "%.6g", v);
    case UNIT_BYTES:
        return format_bytes(v, buf, n);
    case UNIT_BANDWIDTH:
        return format_steps(v, STEPS(steps_bandwidth));
    case UNIT_FLOPS:
        return format_steps(v, STEPS(steps_flops));
    case UNIT_FLOP:
        return format_steps(v, STEPS(steps_flop));
    case UNIT_FREQUENCY:
        return format_steps(v, STEPS(steps_frequency));
    case UNIT_TIME:
        return format_time(v, buf, n);
    case UNIT_POWER:
        return format_steps(v, STEPS(steps_power));
    case UNIT_POWER_RATE:
        return format_steps(v, STEPS(steps_power_rate));
    case UNIT_ENERGY:
        return format_steps(v, STEPS(steps_energy));
    case UNIT_ENERGY_PER_BIT:
        return format_steps(v, STEPS(steps_energy_per_bit));
    case UNIT_ENERGY_PER_FLOP:
        return format_steps(v, STEPS(steps_energy_per_flop));
    case UNIT_VOLTAGE:
        return format_steps(v, STEPS(steps_voltage));
    case UNIT_LENGTH:
        return format_steps(v, STEPS(steps_length));
    case UNIT_AREA_MM2:
        return format_steps(v, STEPS(steps_area));
    case UNIT_BANDWIDTH_PER_MM:
        return format_steps(v, STEPS(steps_bandwidth_per_mm));
    case UNIT_MONEY:
        return format_money(v, buf, n);
    case UNIT_NUMBER:
    case UNIT_FRACTION:
    case UNIT_KIND_COUNT:
    default:
        return fmt(buf, n, "%.6g", v);
    }
}

int unit_given(const char *text)
{
    const char *p = text;
    while (is_space(*p))
        p++;
    if (*p == '$')
        return 1;
    const char *e = scan_number(p);
    if (!e)
        return 0;
    while (is_space(*e))
        e++;
    return *e != '\0';
}

int unit_is_bits(const char *text)
{
    const char *p = text;
    while (is_space(*p))
        p++;
    const char *num_end = scan_number(p);
    if (!num_end)
        return 0;
    while (is_space(*num_end))
        num_end++;
    size_t l = strlen(num_end);
    while (l && is_space(num_end[l - 1]))
        l--;
    if (!l || memchr(num_end, '/', l))
        return 0;
    return num_end[l - 1] == 'b' || (l >= 3 && !strncmp(num_end + l - 3, "bit", 3)) ||
           (l >= 4 && !strncmp(num_end + l - 4, "bits", 4));
}
