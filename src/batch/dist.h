/* batch/dist.h — one run across processes (MPI; `make MPI=1`).
 *
 * Every rank reads the same table and templates and expands the same rows;
 * rank 0 hands out chunks of rows on request (guided self-scheduling:
 * rows differ in cost by orders of magnitude), evaluates rows on its own
 * threads meanwhile, and receives each chunk's results; it alone writes
 * the report.  Ranks other than 0 say nothing on stdout and stderr except
 * a failure of their own.  Without MPI (the default build) there is one
 * rank and every function is trivial. */
#ifndef DF_DIST_H
#define DF_DIST_H

#include <stddef.h>

/* Start MPI when built with it (argc and argv as main's); silences the
 * output of ranks other than 0.  0, or -1 when MPI could not start. */
int dist_init(int *argc, char ***argv);

/* Finish MPI (every rank, at the end of main). */
void dist_finish(void);

/* This process's rank (0 without MPI) and the number of ranks (1). */
int dist_rank(void);
int dist_size(void);

/* Ranks on this machine (1 without MPI): a rank's share of its cores. */
int dist_local_size(void);

/* Collective: 1 when every rank passes ok != 0, else 0 (every rank must
 * call it at the same point). */
int dist_all_ok(int ok);

/* A job the ranks share: n items; rank 0 evaluates items on its own
 * threads, taking them one at a time from *next, while it serves chunks
 * to the other ranks.  pack writes item i's result into buf (at most cap
 * bytes) and returns its size (0: does not fit); unpack reads it back on
 * rank 0 and returns the bytes it used (0: malformed); eval evaluates
 * items [a, b) on a worker rank. */
typedef struct {
    int n;
    size_t item_max; /* the most bytes one item's result packs into */
    void *ctx;
    size_t (*pack)(void *ctx, int i, unsigned char *buf, size_t cap);
    size_t (*unpack)(void *ctx, int i, const unsigned char *buf, size_t len);
    void (*eval)(void *ctx, int a, int b);
    /* rank 0 only: shared with its evaluating threads */
    void *next; /* atomic_int: the next item nobody has taken */
    void *done; /* atomic_int: items whose results are in */
    void (*progress)(int done, int total, void *ctx);
    void *progress_ctx;
} DistJob;

/* Rank 0: serve chunks until every item's result is in and every other
 * rank has been told to stop.  Other ranks: ask for chunks, evaluate and
 * send them, until told to stop.  0, or -1 with a message in err when a
 * rank failed (rank 0 then ends the job). */
int dist_share(DistJob *job, char *err, size_t n);

#endif
