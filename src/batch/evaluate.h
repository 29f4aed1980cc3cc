/* batch/evaluate.h — the one entry every caller uses: a Scenario in, a
 * Result out (step, memory, power, time-to-train).  Pure and thread-safe;
 * the GEMM cache is the caller's (one per thread), or NULL. */
#ifndef DF_EVALUATE_H
#define DF_EVALUATE_H

#include <stddef.h>

#include "core/types.h"
#include "perf/perf.h"

int evaluate_cached(const Scenario *sc, GemmCache *cache, Result *r);

static inline int evaluate(const Scenario *sc, Result *r)
{
    return evaluate_cached(sc, NULL, r);
}

#endif
