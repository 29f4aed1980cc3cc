/* batch/run.h — the batch runner: a scenario table in, one RunRow per
 * expanded scenario out (in input order), evaluated on N threads, with the
 * per-series scaling efficiency filled in.  Rows that could not be built
 * carry their diagnostic and are still reported.  A Run owns its rows;
 * run_free releases them. */
#ifndef DF_RUN_H
#define DF_RUN_H

#include <stdio.h>

#include "core/diag.h"
#include "core/types.h"
#include "io/scenario.h"
#include "io/table.h"
#include "io/template.h"
#include "search/search.h"

typedef struct {
    Scenario sc; /* valid when built */
    ScenarioSource src;
    Result r;
    int built;      /* 1: sc is valid and was evaluated */
    int line;       /* table line of the row */
    Diag diag;      /* when !built or r.status == STATUS_ERROR: why */
    Candidate *top; /* the search's best strategies, best first (Run.top_k > 0), or NULL */
    int ntop;
} RunRow;

/* One failed scenario of a streamed run, as the Errors sheet shows it
 * (its stderr message goes to Run.said). */
typedef struct {
    int line, col; /* where the error is (col 0: none) */
    char *name, *file, *msg;
} RunFail;

/* The built scenarios of one table line (a streamed run): how many, and
 * the first of them (an index into Run.row). */
typedef struct {
    int line, first, count;
} RunLine;

typedef struct {
    RunRow *row;
    int n;
    int n_ok, n_oom, n_error;
    int top_k; /* runners-up kept per searched row (0: none) */
    /* A streamed run (run_stream) keeps only the rows its report needs
     * (report/keep.c); then, besides them: */
    int total;     /* the study's scenarios (0: n, every row is here) */
    int *index;    /* row[i]'s index among them */
    RunFail *fail; /* the first failed scenarios, as many as the workbook lists (its detail_max) */
    int nfail;
    int nfail_more; /* the failed scenarios past those */
    FILE *said;     /* every failure's message on stderr, grouped (report/messages.c), or NULL */
    RunLine *lines; /* built scenarios per table line, in order of first appearance: */
    int nlines;     /* the first RPT_INPUTS_LINES lines (the Inputs sheet's blocks) */
    int lines_more; /* the table lines past those, and their scenarios */
    long lines_more_scenarios;
    char **warn; /* the rows' warnings, distinct, sorted */
    int nwarn;
    int designed;    /* 1: some row was co-designed */
    long meets;      /* a streamed run: the scenarios that meet their constraints (report/keep.c) */
    int series_more; /* a streamed run: it had series past the ones the report lists (report/keep.c) */
} Run;

/* The study's scenarios: Run.total, or n when every row is kept. */
static inline int run_total(const Run *run)
{
    return run->total ? run->total : run->n;
}

/* The most runners-up a row keeps (--top K). */
#define RUN_MAX_TOP 100

typedef void (*RunProgress)(int done, int total, void *ctx);

/* The most scenarios one table may give, all rows' sweeps together: what
 * a workbook sheet holds (1,048,576 rows) with room for its headers. */
#define RUN_MAX_SCENARIOS 1000000

/* The scenarios t gives, all rows' sweeps together (a row that fails
 * counts 1). */
long run_count(const Table *t);

/* The same, 0; or -1 with d filled when more than RUN_MAX_SCENARIOS (said
 * up front, before any work). */
int run_count_checked(const Table *t, long *total, Diag *d);

/* Build and evaluate every row of t.  threads >= 1; top_k: runners-up to
 * keep for each row whose strategy the search chose (0..RUN_MAX_TOP).  progress may be NULL;
 * it is called from the calling thread only.  Returns 0, or -1 with d
 * filled and nothing evaluated when the table gives more than
 * RUN_MAX_SCENARIOS scenarios or their rows cannot be allocated: a row is
 * never dropped without a word. */
int run_table(TemplateDB *db, const Table *t, int threads, int top_k, RunProgress progress, void *ctx,
              Run *run, Diag *d);

/* A table too large to hold, streamed: every scenario is built and
 * evaluated (threads, and the other ranks of an MPI run), then handed to
 * fn in table order, complete (its scaling efficiency and speedup filled
 * in as run_table fills them), with its index among the table's
 * scenarios.  The row is valid only during the call.  Memory: a window of
 * rows, a 128-bit hash per name, per-series references; the results wait
 * in a temporary file between the two passes.  stats: the counts.  Returns
 * 0, or -1 with d filled (fn may have been called for some rows).  In an
 * MPI run only rank 0 calls fn. */
typedef void (*RunRowFn)(void *ctx, const RunRow *rr, int index);
typedef struct {
    int n, n_ok, n_oom, n_error, top_k;
} RunStats;

int run_stream(TemplateDB *db, const Table *t, int threads, int top_k, RunProgress progress, void *pctx,
               RunRowFn fn, void *ctx, RunStats *stats, Diag *d);

/* Evaluate already-built rows (used by run_table and by `eval`). */
void run_evaluate(Run *run, int threads, RunProgress progress, void *ctx);

/* The table column an evaluation error is about (Result.error_key), when
 * the row set it (or an enclosing template column): its column, else 0. */
int run_error_col(const RunRow *rr);

void run_free(Run *run);

/* 1 when some row was co-designed (its design search ran). */
int run_designed(const Run *run);

/* A failed row's message as stderr says it ("file:line:col: ..."; an
 * evaluation error at the cell of its column), input the table's path. */
void run_error_message(const RunRow *rr, const char *input, char *msg, size_t n);

/* A failed row as the Errors sheet shows it: 0, or -1 when out of
 * memory.  run_fail_free frees the strings. */
int run_fail_of(const RunRow *rr, const char *input, RunFail *f);
void run_fail_free(RunFail *f);

#endif
