/* io/sweep.h — sweep cells of the scenario table (DESIGN.md §4) and the
 * expansion of one row into the cartesian product of its sweeps.
 * The caller owns what these return and frees it with the matching
 * sweep_free_* (both accept NULL). */
#ifndef DF_SWEEP_H
#define DF_SWEEP_H

#include <stddef.h>

#include "core/diag.h"
#include "io/table.h"

#define SWEEP_MAX_VALUES 10000   /* values of one sweep cell */
#define SWEEP_MAX_ROWS   1000000 /* scenarios one row may expand to */
#define SWEEP_SUFFIX_MAX 256

/* 1 if the cell is written as a sweep:
 *   a list      any cell holding '|':  "8|16|32", "1 TB/s|2 TB/s"
 *   a range     a cell that starts like a number and holds "..":
 *               "8..1024*2"  geometric, start..end*factor (factor > 1, start > 0)
 *               "1..4+1"     arithmetic, start..end+step (step > 0)
 * Range ends, factors and steps are plain numbers (no units); the end is
 * included when a value hits it within 1e-9 relative.  Anything else
 * ("../x.yaml", "a..b") is a single value. */
int sweep_is_sweep(const char *cell);

/* The values of one cell: list items trimmed (an empty item is an error),
 * range values printed as integers ("64") when whole, else with %.6g; a
 * cell that is not a sweep gives n = 1 and a copy of the cell.  Returns 0,
 * or -1 with the reason in err (values NULL, n 0). */
int sweep_values(const char *cell, char ***values, int *n, char *err, size_t errlen);
void sweep_free_values(char **values, int n);

typedef struct {
    char **val;                    /* val[ncol]: the row's cells with one value of each sweep */
    char suffix[SWEEP_SUFFIX_MAX]; /* "devices=64,tp=8": swept columns in column order; "" if none */
} SweepRow;

/* Expand row r of table t into *nout rows (1 when it has no sweep), the
 * first swept column varying slowest.  The rows, their val arrays and the
 * strings are one allocation: rows may be reordered, but their strings must
 * not be freed one by one.  A suffix too long for SweepRow is cut at a
 * character boundary and ends in "...".  Returns 0, or -1 with d filled:
 * the row's own error if it has one, or
 * "column 'devices': bad sweep '8..x*2': <reason>" at the cell. */
int sweep_expand_row(const Table *t, const TableRow *r, SweepRow **out, int *nout, Diag *d);

/* The same expansion one scenario at a time, in the same order, holding
 * only the row's values (a million-scenario row in kilobytes).  open: 0,
 * or -1 with d filled as sweep_expand_row would (nothing to close); at:
 * scenario i of it->n, valid until the next call; close frees. */
typedef struct {
    const Table *t;
    int ncol;
    char ***vals; /* vals[j][k]: column j's k-th value */
    char **one;   /* a cell of one value: its text, the table's own (vals[j] is &one[j]) */
    int *nv;
    int *swept;
    long n; /* scenarios */
    SweepRow row;
} SweepIter;

int sweep_iter_open(const Table *t, const TableRow *r, SweepIter *it, Diag *d);
const SweepRow *sweep_iter_at(SweepIter *it, long i);
void sweep_iter_close(SweepIter *it);

/* How many scenarios row r expands to, without building them: 1 for a row
 * that fails (one over SWEEP_MAX_ROWS too: it is reported as one failed
 * scenario). */
long sweep_count_row(const Table *t, const TableRow *r);

/* n and ncol are not needed (one allocation) but say what rows holds. */
void sweep_free_rows(SweepRow *rows, int n, int ncol);

#endif
