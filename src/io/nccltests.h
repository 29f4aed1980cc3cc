/* io/nccltests.h — the console output of NVIDIA's nccl-tests programs
 * (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf),
 * read exactly as they print it, and turned into the measured
 * bus-bandwidth curve of a network tier (Network.busbw).
 *
 * The text: "#" lines (the header, "# Using devices" with one
 * "#  Rank N Group G Pid P on HOST device D [...] NAME" line a rank, the
 * column names "#  size count type redop root time algbw busbw #wrong
 * time algbw busbw #wrong" and their units), then one line a message size,
 * then "# Out of bounds values" and "# Avg bus bandwidth".  The program is
 * named by its "# Collective test starting: PROGRAM" line (nccl-tests 2.17
 * and later), else by the file's name.  Columns are found by their names
 * in the header line, so versions without redop/root read the same.  The
 * out-of-place busbw is the measurement (nccl-tests' bus bandwidth is
 * defined so that it compares with a link's speed for every collective). */
#ifndef DF_NCCLTESTS_H
#define DF_NCCLTESTS_H

#include <stddef.h>

#include "core/diag.h"
#include "core/types.h"
#include "graph/graph.h"

#define NCCL_MAX_ROWS 64

typedef struct {
    Collective coll;
    char program[32]; /* all_reduce_perf, ... */
    int ranks;        /* "# Rank" lines */
    int hosts;        /* distinct host names among them: 1 is one node */
    int n;
    double size[NCCL_MAX_ROWS];  /* bytes, as the program counts a message (its "size" column) */
    double busbw[NCCL_MAX_ROWS]; /* bytes/s, out of place */
} NcclRun;

/* Parse len bytes printed by a program; path names the file in messages
 * and, when the text does not name its program, names it.  0, or -1 with
 * d at the line at fault. */
int nccl_parse(const char *path, const char *text, size_t len, NcclRun *out, Diag *d);

/* nccl_parse on a file's contents. */
int nccl_read(const char *path, NcclRun *out, Diag *d);

/* The measured curve of a tier of `bandwidth` bytes/s from n runs on it:
 * each row a point (the all-reduce size that puts as many bytes on the
 * wire, the busbw over the bandwidth), rows of 0 bus bandwidth left out,
 * points at one size averaged, at most CURVE_MAX_POINTS spread over the
 * sizes.  *plateau: the largest fraction measured; *ranks: the largest
 * run's ranks.  0, or -1 with d when no row measured anything. */
int nccl_curve(const NcclRun *runs, int n, double bandwidth, Points *out, double *plateau, int *ranks,
               Diag *d);

#endif
