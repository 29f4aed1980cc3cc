/* batch/evaluate.h — the one entry every caller uses: a Scenario in, a
 * Result out (step, memory, power, time-to-train).  Pure and thread-safe;
 * the GEMM cache is the caller's (one per thread), or NULL. */
#ifndef DF_EVALUATE_H
#define DF_EVALUATE_H

#include <stddef.h>

#include "core/diag.h"
#include "core/types.h"
#include "perf/perf.h"
#include "search/search.h"

/* The scenario as the model sees it, in place: a derive: device run through
 * the generator (tech/tech.h) with its pinned fields kept, network tiers
 * that take their links from it, wire-level links worked out from their
 * wires.  Idempotent; evaluate_cached() does it itself, the report calls it
 * to show the resolved figures.  0, or -1 with d->msg saying why. */
int evaluate_resolve(Scenario *sc, Diag *d);

int evaluate_cached(const Scenario *sc, GemmCache *cache, Result *r);

/* evaluate_cached that also keeps the search's best top->k strategies
 * (top->n of them; 0 when nothing was searched or none fits). */
int evaluate_top(const Scenario *sc, GemmCache *cache, Result *r, SearchTop *top);

static inline int evaluate(const Scenario *sc, Result *r)
{
    return evaluate_cached(sc, NULL, r);
}

#endif
