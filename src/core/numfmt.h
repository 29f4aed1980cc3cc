/* core/numfmt.h — numbers as the CSVs write them, without printf: the
 * output of printf's "%.6g" byte for byte (C locale), at a fraction of its
 * cost.  A report writes about a hundred numbers a row; glibc's printf
 * spends most of a row's time on them (multi-precision arithmetic for
 * every digit).  Here the six digits come from one scaling in double
 * precision, whose error (a few units in the last place, under 1e-9 of a
 * digit) can only matter when the seventh digit is a 5 followed by
 * nothing but zeros to within that error: those values, and only those,
 * go to snprintf. */
#ifndef DF_NUMFMT_H
#define DF_NUMFMT_H

#include <stddef.h>

/* The longest text numfmt_g6 writes, with its terminator ("-1.23457e-308"). */
#define NUMFMT_G6_MAX 16

/* v as snprintf(out, NUMFMT_G6_MAX, "%.6g", v) writes it (non-finite
 * values too: "inf", "-nan"); returns its length. */
int numfmt_g6(double v, char *out);

#endif
