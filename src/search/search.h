/* search/search.h — the best feasible strategy for a scenario whose
 * strategy axes (core/types.h's STRATEGY_AXES) or replica_batch say `auto` (DESIGN.md §6.9): every consistent
 * combination of the open axes is evaluated and the fastest to train wins
 * (time-to-train, else time per sample), ties broken by energy.  The only
 * pruning is of candidates equivalent to one already evaluated (the same
 * model inputs: sequence parallelism with tp 1, ZeRO with dp 1, rank orders
 * that differ only in where a degree-1 axis goes), so it can never drop
 * the optimum.  Deterministic (candidates in a fixed order, strict
 * comparisons).  Pure. */
#ifndef DF_SEARCH_H
#define DF_SEARCH_H

#include <stdint.h>

#include "core/strategy.h"
#include "core/types.h"
#include "perf/perf.h"

/* 1 when sc has a field the search must resolve. */
int search_needed(const Scenario *sc);

/* The evaluation the search calls for each candidate (evaluate's fixed-
 * strategy path). */
typedef int (*SearchEval)(const Scenario *sc, GemmCache *cache, Result *r);

/* One evaluated strategy, for the runners-up: what it was and what it
 * gave. */
typedef struct {
    Strategy st;
    Merit merit; /* time and energy to train (NaN: no amount), samples/s: how it ranks (core/strategy.h) */
    double step_time_s, mfu, mem_total_bytes;
    char bottleneck[32];
} Candidate;

/* The k best feasible candidates, best first (the caller's array of k). */
typedef struct {
    Candidate *c;
    int k, n;
} SearchTop;

/* Fills r with the best candidate's result (r->searched = candidates
 * evaluated, r->search_feasible, r->search_pruned, r->search_space) and,
 * when top is not NULL, top with the best k.  Returns 0, or -1 with
 * r->status = STATUS_ERROR (no candidate satisfies the constraints) — when
 * candidates exist but none fits in memory, r is the least-memory one with
 * status oom. */
int search_strategy(const Scenario *sc, SearchEval eval, GemmCache *cache, Result *r, SearchTop *top);

/* The candidate a result describes. */
void search_candidate(const Result *r, Candidate *c);

#endif
