/* search/design.h — hardware co-design: the budget splits of a derive:
 * device (how its die area, its power and its die edge are shared among
 * matrix units, register files, L1, L2, HBM interfaces and the two link
 * tiers) optimised jointly with the strategy, for the scenario's
 * objective (fastest to train, then least energy) under its power and cost
 * budgets.  Discrete choices (technology node, die size, TDP, link
 * technology, devices per node) are enumerated exactly by sweeping them in
 * the table; this engine optimises the continuous splits.
 *
 * Method: deterministic pattern search on each split's simplex (the
 * template's share total is kept; a move hands `step` of one part's share
 * to another, every ordered pair in turn; an improving move is kept, and
 * the step halves when no move improves, from 0.04 to 0.0025), from the
 * template's split and codesign_starts - 1 random splits drawn with a
 * seeded generator (uniform on the simplex), so the same seed gives the
 * same answer.  Every design point is a full evaluation (the generator,
 * the strategy search, DVFS, time to train).  Pure; no globals. */
#ifndef DF_DESIGN_H
#define DF_DESIGN_H

#include "core/types.h"
#include "perf/perf.h"
#include "search/search.h"

/* 1 when the scenario asks for co-design. */
int design_needed(const Scenario *sc);

/* The most design points one search evaluates (all starts together). */
#define DESIGN_MAX_EVALS 20000

/* Optimise the scenario's splits; eval evaluates one design point
 * (resolution, strategy search and all).  r gets the best point's result
 * with design_budget, design_evals and the starting split's figures.
 * Returns 0, or -1 with r->status = STATUS_ERROR when no point was
 * feasible (the starting design's reason). */
int design_search(const Scenario *sc, SearchEval eval, GemmCache *cache, Result *r);

#endif
