/* par/step.h — one training step of a scenario: the graph of one
 * microbatch costed on the device (perf) and the networks (net), put
 * through the pipeline schedule, plus data-parallel gradient exchange and
 * the optimizer; memory per device; MFU/HFU; the bottleneck.  Pure. */
#ifndef DF_STEP_H
#define DF_STEP_H

#include "core/types.h"
#include "graph/graph.h"
#include "perf/perf.h"

/* Tunables of the step model that are conventions, not fits. */
#define STEP_GRAD_BYTES 4.0 /* fp32 gradient accumulation (Megatron-LM main_grad) */

/* Evaluate sc's step into r (strategy fields must be resolved: no auto)
 * with the device clocked at phi x nominal (1: nominal; see power.h).
 * Fills times, per-component device energy (dynamic + leakage), link
 * energy, memory.  cache: this thread's GEMM memo (may be NULL).  Returns 0
 * (r->status ok or oom) or -1 with r->status = STATUS_ERROR and r->error
 * saying why. */
int step_evaluate(const Scenario *sc, double phi, GemmCache *cache, Result *r);

/* A scenario's graph kept between its evaluations at other clocks (the
 * search for the fastest clock under a power cap): the graph does not
 * depend on the clock, only on the model and the strategy.  The caller
 * owns it (valid 0 before the first use) and uses it with one Scenario
 * while that scenario does not change. */
typedef struct {
    int valid;
    const Model *model;
    GraphParams gp;
    Graph g;
} StepGraphMemo;

/* step_evaluate, building sc's graph only where memo (may be NULL) does
 * not hold it.  Results are identical. */
int step_evaluate_memo(const Scenario *sc, double phi, GemmCache *cache, StepGraphMemo *memo, Result *r);

/* step_evaluate at the clock phi, recording every op of the scenario's
 * lists into t (caller-owned; its contents are replaced).  r is what
 * step_evaluate gives. */
int step_trace(const Scenario *sc, double phi, GemmCache *cache, OpTrace *t, Result *r);

#endif
