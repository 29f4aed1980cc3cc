/* search/search.h — the best feasible strategy for a scenario whose tp,
 * pp, dp, microbatch, interleave, recompute or placement say `auto` (DESIGN.md §6.9):
 * every consistent combination is evaluated and the fastest to train wins
 * (time-to-train, else time per sample), ties broken by energy.
 * Deterministic (candidates in a fixed order, strict comparisons).  Pure. */
#ifndef DF_SEARCH_H
#define DF_SEARCH_H

#include "core/types.h"
#include "perf/perf.h"

/* 1 when sc has a field the search must resolve. */
int search_needed(const Scenario *sc);

/* The evaluation the search calls for each candidate (evaluate's fixed-
 * strategy path). */
typedef int (*SearchEval)(const Scenario *sc, GemmCache *cache, Result *r);

/* Fills r with the best candidate's result (r->searched = candidates
 * evaluated).  Returns 0, or -1 with r->status = STATUS_ERROR (no
 * candidate satisfies the constraints) — when candidates exist but none
 * fits in memory, r is the least-memory one with status oom. */
int search_strategy(const Scenario *sc, SearchEval eval, GemmCache *cache, Result *r);

#endif
