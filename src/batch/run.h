/* batch/run.h — the batch runner: a scenario table in, one RunRow per
 * expanded scenario out (in input order), evaluated on N threads, with the
 * per-series scaling efficiency filled in.  Rows that could not be built
 * carry their diagnostic and are still reported.  A Run owns its rows;
 * run_free releases them. */
#ifndef DF_RUN_H
#define DF_RUN_H

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

typedef struct {
    RunRow *row;
    int n;
    int n_ok, n_oom, n_error;
    int top_k; /* runners-up kept per searched row (0: none) */
} Run;

/* The most runners-up a row keeps (--top K). */
#define RUN_MAX_TOP 100

typedef void (*RunProgress)(int done, int total, void *ctx);

/* The most scenarios one table may give, all rows' sweeps together: what
 * a workbook sheet holds (1,048,576 rows) with room for its headers. */
#define RUN_MAX_SCENARIOS 1000000

/* Build and evaluate every row of t.  threads >= 1; top_k: runners-up to
 * keep for each row whose strategy the search chose (0..RUN_MAX_TOP).  progress may be NULL;
 * it is called from the calling thread only.  Returns 0, or -1 with d
 * filled and nothing evaluated when the table gives more than
 * RUN_MAX_SCENARIOS scenarios or their rows cannot be allocated: a row is
 * never dropped without a word. */
int run_table(TemplateDB *db, const Table *t, int threads, int top_k, RunProgress progress, void *ctx,
              Run *run, Diag *d);

/* Evaluate already-built rows (used by run_table and by `eval`). */
void run_evaluate(Run *run, int threads, RunProgress progress, void *ctx);

/* The table column an evaluation error is about (Result.error_key), when
 * the row set it (or an enclosing template column): its column, else 0. */
int run_error_col(const RunRow *rr);

void run_free(Run *run);

#endif
