/* batch/evaluate.h — the one entry every caller uses: a Scenario in, a
 * Result out (step, memory, power, time-to-train).  Pure and thread-safe;
 * the GEMM cache is the caller's (one per thread), or NULL. */
#ifndef DF_EVALUATE_H
#define DF_EVALUATE_H

#include <stddef.h>

#include "core/diag.h"
#include "core/param.h"
#include "core/types.h"
#include "perf/perf.h"
#include "search/search.h"

/* The scenario as the model sees it, in place: a derive: device run through
 * the generator (tech/tech.h) with its pinned fields kept, network tiers
 * that take their links from it, wire-level links worked out from their
 * wires.  Idempotent; evaluate_cached() does it itself, the report calls it
 * to show the resolved figures.  0, or -1 with d->msg saying why. */
int evaluate_resolve(Scenario *sc, Diag *d);

/* A template as the model sees it (deepflow templates KIND NAME): a
 * derive: device, or a system of one, run through the generator into out
 * (a copy of in otherwise; t is the template's parameter table).  *note:
 * the line that says what is derived ("" when nothing is).  Returns 0, or
 * -1 when it cannot be derived (d says why; out holds the template as
 * written). */
int evaluate_template(const ParamTable *t, const void *in, void *out, const char **note, Diag *d);

int evaluate_cached(const Scenario *sc, GemmCache *cache, Result *r);

/* evaluate_cached that also keeps the search's best top->k strategies
 * (top->n of them; 0 when nothing was searched or none fits). */
int evaluate_top(const Scenario *sc, GemmCache *cache, Result *r, SearchTop *top);

static inline int evaluate(const Scenario *sc, Result *r)
{
    return evaluate_cached(sc, NULL, r);
}

#endif
