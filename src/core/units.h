/* core/units.h — values with units, parsed and printed only at the edges.
 * Internally everything is SI: s, B, B/s, FLOP, FLOP/s, Hz, W, J, V, m
 * (mm^2 where a field name says so).  Decimal prefixes (k M G T P) are powers
 * of 1000, binary ones (Ki Mi Gi Ti) powers of 1024; 'b' is a bit, 'B' a
 * byte (Redis memtoull style: GB != GiB). */
#ifndef DF_UNITS_H
#define DF_UNITS_H

#include <stddef.h>

/* Bytes in a GiB (2^30): what the reports print memory in. */
#define GIB_BYTES 1073741824.0

typedef enum {
    UNIT_NUMBER,           /* plain real number, no unit allowed (except none) */
    UNIT_INTEGER,          /* plain integer */
    UNIT_FRACTION,         /* 0..1, also accepts "87 %" */
    UNIT_BYTES,            /* B, kB, MB, GB, TB, KiB, MiB, GiB, TiB, b, Gb ... */
    UNIT_BANDWIDTH,        /* B/s: GB/s, TB/s, GiB/s, Gb/s, Tb/s ... */
    UNIT_FLOPS,            /* FLOP/s: TFLOP/s, PFLOP/s (also TFLOPS) */
    UNIT_FLOP,             /* FLOP, GFLOP, TFLOP */
    UNIT_FREQUENCY,        /* Hz, MHz, GHz */
    UNIT_TIME,             /* s, ms, us, ns, ps, min, h, d */
    UNIT_POWER,            /* W, kW, MW */
    UNIT_POWER_RATE,       /* W/s: kW/s, MW/s (how fast a power changes) */
    UNIT_ENERGY,           /* J, kJ, MJ, Wh, kWh, MWh */
    UNIT_ENERGY_PER_BIT,   /* J/bit: pJ/bit, fJ/bit */
    UNIT_ENERGY_PER_FLOP,  /* J/FLOP: pJ/FLOP, fJ/FLOP */
    UNIT_VOLTAGE,          /* V, mV */
    UNIT_LENGTH,           /* m, mm, um, nm */
    UNIT_AREA_MM2,         /* mm^2 (stored in mm^2), um^2 */
    UNIT_BANDWIDTH_PER_MM, /* B/s per mm of die edge: Tb/s/mm, GB/s/mm (stored B/s/mm) */
    UNIT_MONEY,            /* $ (plain number, optional leading '$') */
    UNIT_KIND_COUNT
} UnitKind;

/* Parse text such as "3.35 TB/s" as a value of the given kind, into SI.
 * Whitespace around and between number and unit is allowed; a value with no
 * unit is taken in the kind's SI unit.  On failure returns -1 and writes a
 * short reason into err (e.g. "unit 'TB' is a size, not a bandwidth"). */
int unit_parse(const char *text, UnitKind kind, double *out, char *err, size_t errlen);

/* 1 when the text names a unit after its number ("30 days", "$5"); 0 for
 * a bare number ("30"). */
int unit_given(const char *text);

/* 1 when the text's unit is one of bits ("80 Gib", "2 Mb", "16 bits"): for
 * a size, almost always a slip for bytes (GiB, MB), worth a warning. */
int unit_is_bits(const char *text);

/* What a value of this kind looks like, for "expected ..." messages:
 * e.g. "a bandwidth (B/s, GB/s, TB/s, Gb/s)". */
const char *unit_expect(UnitKind kind);

/* The SI unit written in output headers, e.g. "B/s"; "" for numbers. */
const char *unit_si(UnitKind kind);

/* Print v in a readable unit of the kind ("3.35 TB/s", "80 GiB" for sizes
 * that are exact binary multiples, else decimal).  %.4g precision. */
int unit_format(double v, UnitKind kind, char *buf, size_t n);

#endif
