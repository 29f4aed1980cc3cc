/* core/strategy.h — the consistency rules of a parallelism strategy: the
 * degrees multiply to the devices, the global batch splits over the data
 * replicas and microbatches, the layers over the pipeline's model chunks,
 * the heads over the tensor ranks.  Pure; no positions (the caller says
 * where the strategy was written). */
#ifndef DF_STRATEGY_H
#define DF_STRATEGY_H

#include <stddef.h>

#include "core/diag.h"
#include "core/types.h"

/* The axes of a Strategy: STRATEGY_AXES in core/types.h. */
typedef enum {
#define STRATEGY_AXIS_ENUM(ID, ...) AXIS_##ID,
    STRATEGY_AXES(STRATEGY_AXIS_ENUM)
#undef STRATEGY_AXIS_ENUM
        AXIS_COUNT
} StrategyAxis;

/* What the table says of one axis. */
typedef struct {
    const char *name;           /* the field and column name: "seq_parallel" */
    int ptype;                  /* ParamType (core/param.h): P_INT, P_BOOL or P_ENUM */
    const char *const *choices; /* P_ENUM: the NULL-terminated names */
    double def;                 /* the default */
    int walk;                   /* the search's order (see above) */
    const char *unit, *abbr, *label, *help;
} AxisInfo;

extern const AxisInfo strategy_axes[AXIS_COUNT];

/* The value of an axis in s (an enum as its int; AUTO_VALUE: auto), and
 * setting it. */
int strategy_get(const Strategy *s, StrategyAxis a);
void strategy_set(Strategy *s, StrategyAxis a, int v);

/* The value v of axis a as the reports print it: "auto", a number, "yes" /
 * "no", or an enum's name. */
void strategy_value_text(StrategyAxis a, int v, char *buf, size_t n);

/* 0 when axis a means nothing in s (the layers a full recompute
 * recomputes, without a full recompute), else 1. */
int strategy_axis_applies(const Strategy *s, StrategyAxis a);

/* Every axis of s, in the table's order, that applies: "tp 8, cp 1, ...,
 * placement tp-dp-pp" (the keys a scenario table takes).  brief: by their
 * short headings, and only tp, pp, dp, the microbatch and the axes whose
 * value is not the table's default ("tp 8, pp 4, dp 2, mb 1, sp yes"). */
void strategy_describe(const Strategy *s, int brief, char *buf, size_t n);

/* The axes of a rank order, innermost first (0 the tp x cp block, 1 dp,
 * 2 pp). */
void placement_order(Placement p, int order[3]);

/* 1 when candidate c's value of axis a evaluates exactly as a value the
 * search tries before it (lower in the axis's order) does: sequence
 * parallelism with tp 1, ZeRO with dp 1, a schedule of one stage, 1f1b
 * over chunks (the interleaved schedule), a rank order that differs only
 * in where a degree-1 axis goes.  The search skips such candidates. */
int strategy_equivalent(const Scenario *c, StrategyAxis a);

/* The axis a column name names, or -1. */
int strategy_axis_find(const char *name);

/* Bit AXIS_x set for each axis of s left to the search (AUTO_VALUE; not
 * the ones the step model resolves). */
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
