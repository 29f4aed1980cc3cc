/* core/strategy.h — the consistency rules of a parallelism strategy: the
 * degrees multiply to the devices, the global batch splits over the data
 * replicas and microbatches, the layers over the pipeline's model chunks,
 * the heads over the tensor ranks.  Pure; no positions (the caller says
 * where the strategy was written). */
#ifndef DF_STRATEGY_H
#define DF_STRATEGY_H

#include "core/diag.h"
#include "core/types.h"

/* The axes of a Strategy, for masks and messages. */
typedef enum {
    AXIS_TP,
    AXIS_PP,
    AXIS_DP,
    AXIS_MICROBATCH,
    AXIS_INTERLEAVE,
    AXIS_RECOMPUTE,
    AXIS_SEQ_PARALLEL,
    AXIS_ZERO,
    AXIS_PLACEMENT,
    AXIS_CP,
    AXIS_EP,
    AXIS_COUNT
} StrategyAxis;

/* Bit AXIS_x set for each field left to the search (AUTO_VALUE). */
unsigned strategy_auto_mask(const Strategy *s);

/* The column name of an axis ("tp", "seq_parallel"). */
const char *strategy_axis_name(StrategyAxis a);

/* What makes one evaluated strategy (or scenario) better than another: a
 * known time to train (positive, finite) wins over none, then the shorter
 * one; without one, more samples per second; then less energy (to train
 * when both know it, else per step).  The search, the co-design search and
 * the report's "best" all rank by this one rule. */
typedef struct {
    double time_to_train_s, samples_per_s, energy_to_train_j, energy_per_step_j;
} Merit;

Merit merit_of(const Result *r);

/* The time the ranking compares first: the time to train when known, else
 * the time per sample (1 / samples per second). */
double merit_time(Merit m);

/* 1 when a is strictly better than b, 0 when it is not (worse or equal). */
int merit_better(Merit a, Merit b);

/* Check tp*cp*pp*dp = devices, global batch over dp*microbatch, layers over
 * pp*interleave, heads over tp, interleave only with a pipeline.  Fields
 * set to auto are skipped.  Returns 0 or -1 with d->msg. */
int strategy_check(const Scenario *sc, Diag *d);

#endif
