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

typedef struct {
    Scenario sc; /* valid when built */
    ScenarioSource src;
    Result r;
    int built; /* 1: sc is valid and was evaluated */
    int line;  /* table line of the row */
    Diag diag; /* when !built or r.status == STATUS_ERROR: why */
} RunRow;

typedef struct {
    RunRow *row;
    int n;
    int n_ok, n_oom, n_error;
} Run;

typedef void (*RunProgress)(int done, int total, void *ctx);

/* Build and evaluate every row of t.  threads >= 1.  progress may be NULL;
 * it is called from the calling thread only. */
int run_table(TemplateDB *db, const Table *t, int threads, RunProgress progress, void *ctx, Run *run);

/* Evaluate already-built rows (used by run_table and by `eval`). */
void run_evaluate(Run *run, int threads, RunProgress progress, void *ctx);

void run_free(Run *run);

#endif
