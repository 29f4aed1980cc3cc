/* core/strategy.c — the arithmetic every strategy must satisfy, shared by
 * the scenario builder (io) and the strategy search (search). */
#include "strategy.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/param.h"
#include "core/text.h"

/* The pipeline schedule's own rules (see PpSchedule in core/types.h). */
static int strategy_check_schedule(const Scenario *sc, Diag *d)
{
    const PpSchedule s = sc->st.pp_schedule;
    const int pp = sc->st.pp, v = sc->st.interleave, dp = sc->st.dp, mb = sc->st.microbatch;
    if (sc->st.pp_split == SPLIT_ENDS && sc->model.kind != MODEL_TRANSFORMER)
        return diag_set(d, NULL, 0, 0,
                        "pp_split ends gives the embedding and the loss a layer's place, which a "
                        "transformer's identical layers allow; use even");
    if ((int)s == AUTO_VALUE || s == SCHED_1F1B)
        return 0;
    const char *name = schedule_name(s);
    if (s == SCHED_INTERLEAVED) {
        if (v == 1)
            return diag_set(
                d, NULL, 0, 0,
                "pp_schedule interleaved needs model chunks to interleave (interleave > 1, or auto)");
        return 0;
    }
    if (v > 1)
        return diag_set(d, NULL, 0, 0,
                        "pp_schedule %s runs one model chunk per stage: use interleave 1 (found %d)", name,
                        v);
    if (pp == 1)
        return diag_set(d, NULL, 0, 0, "pp_schedule %s needs pipeline parallelism (pp > 1)", name);
    if (sc->model.kind != MODEL_TRANSFORMER)
        return diag_set(
            d, NULL, 0, 0,
            "pp_schedule %s is modelled for transformers (their backward passes split into input- "
            "and weight-gradient GEMMs); use 1f1b",
            name);
    if (s == SCHED_DUALPIPE && pp > 0 && pp % 2)
        return diag_set(
            d, NULL, 0, 0,
            "pp_schedule dualpipe feeds microbatches from both ends of the pipeline: pp (%d) must be "
            "even",
            pp);
    if (s == SCHED_DUALPIPE && dp > 0 && mb > 0 && sc->st.global_batch > 0 &&
        (sc->st.global_batch / ((int64_t)dp * mb)) % 2)
        return diag_set(
            d, NULL, 0, 0,
            "pp_schedule dualpipe feeds half the microbatches from each end: their count (global_batch "
            "/ (dp x microbatch) = %lld) must be even",
            (long long)(sc->st.global_batch / ((int64_t)dp * mb)));
    return 0;
}

int strategy_check(const Scenario *sc, Diag *d)
{
    int tp = sc->st.tp, pp = sc->st.pp, dp = sc->st.dp, mb = sc->st.microbatch, v = sc->st.interleave;
    const int cp = sc->st.cp;
    if (tp > 0 && pp > 0 && dp > 0 && cp == 1 && (int64_t)tp * pp * dp != sc->devices)
        return diag_set(d, NULL, 0, 0, "tp x pp x dp (%d x %d x %d = %lld) must equal devices (%d)", tp, pp,
                        dp, (long long)tp * pp * dp, sc->devices);
    if (tp > 0 && pp > 0 && dp > 0 && cp > 1 && (int64_t)tp * cp * pp * dp != sc->devices)
        return diag_set(d, NULL, 0, 0, "tp x cp x pp x dp (%d x %d x %d x %d = %lld) must equal devices (%d)",
                        tp, cp, pp, dp, (long long)tp * cp * pp * dp, sc->devices);
    const int ep = sc->st.ep;
    if (ep > 1 && !(sc->model.kind == MODEL_TRANSFORMER && sc->model.experts > 0))
        return diag_set(d, NULL, 0, 0, "ep (%d): expert parallelism splits a mixture of experts; use ep 1",
                        ep);
    if (ep > 1 && sc->model.experts % ep)
        return diag_set(d, NULL, 0, 0, "experts (%d) must be divisible by ep (%d)", sc->model.experts, ep);
    const int etp = sc->st.etp, moe = sc->model.kind == MODEL_TRANSFORMER && sc->model.experts > 0;
    if (etp > 0 && !moe)
        return diag_set(
            d, NULL, 0, 0,
            "etp (%d): expert-tensor parallelism splits a mixture of experts' experts; leave it 0 "
            "(as tp)",
            etp);
    if (moe && tp > 0 && dp > 0 && ep > 0 && etp != AUTO_VALUE && cp > 0) {
        const int e = etp > 0 ? etp : tp;
        const int64_t grid = (int64_t)tp * cp * dp;
        if (grid % ((int64_t)e * ep))
            return diag_set(
                d, NULL, 0, 0,
                "etp x ep (%d x %d) must divide tp x cp x dp (%d x %d x %d = %lld): the expert layers "
                "fold their ranks as etp x ep x edp over the attention's tp x cp x dp ranks",
                e, ep, tp, cp, dp, (long long)grid);
    }
    if (cp > 1 && sc->model.kind != MODEL_TRANSFORMER)
        return diag_set(d, NULL, 0, 0,
                        "cp (%d): context parallelism splits a transformer's sequence; use cp 1", cp);
    if (cp > 1 && sc->model.seq_len % (2 * cp))
        return diag_set(
            d, NULL, 0, 0,
            "seq_len (%d) must be divisible by 2 x cp (2 x %d): each rank takes two chunks of the "
            "sequence, one early and one late, so that the causal mask loads them alike",
            sc->model.seq_len, cp);
    if (dp > 0 && mb > 0 && sc->st.global_batch > 0 && sc->st.global_batch % ((int64_t)dp * mb))
        return diag_set(d, NULL, 0, 0,
                        "global_batch (%lld) must be a multiple of dp x microbatch (%d x %d = %lld)",
                        (long long)sc->st.global_batch, dp, mb, (long long)dp * mb);
    if (sc->model.kind == MODEL_TRANSFORMER) {
        /* (with the ends split the embedding and the loss fill two chunks' places) */
        const int slots = sc->model.layers + (sc->st.pp_split == SPLIT_ENDS && pp > 1 ? 2 : 0);
        if (pp > 0 && v > 0 && slots < pp * v)
            return diag_set(d, NULL, 0, 0,
                            "layers (%d) must split over pp x interleave (%d x %d = %d): at least one "
                            "layer per model chunk%s",
                            sc->model.layers, pp, v, pp * v,
                            slots > sc->model.layers ? " (with the embedding and the loss in two places)"
                                                     : "");
        if (tp > 0 && sc->model.heads % tp)
            return diag_set(d, NULL, 0, 0, "heads (%d) must be divisible by tp (%d)", sc->model.heads, tp);
    }
    if (sc->model.kind == MODEL_CNN && v > 1)
        return diag_set(d, NULL, 0, 0,
                        "interleave (%d) needs identical layers to deal out; a CNN's pipeline stages are "
                        "balanced partitions (use interleave 1)",
                        v);
    if (pp == 1 && v > 1)
        return diag_set(d, NULL, 0, 0, "interleave (%d) needs pipeline parallelism (pp > 1)", v);
    return strategy_check_schedule(sc, d);
}

const char *const schedule_names[SCHED_COUNT + 1] = {"1f1b", "interleaved", "zero-bubble", "dualpipe", NULL};

const char *const split_names[SPLIT_COUNT + 1] = {"even", "ends", NULL};

const char *schedule_name(PpSchedule s)
{
    if ((int)s == AUTO_VALUE)
        return "auto";
    return (unsigned)s < SCHED_COUNT ? schedule_names[s] : "?";
}

const AxisInfo strategy_axes[AXIS_COUNT] = {
#define AXIS_INFO(ID, field, ctype, ptype, choices, lo, hi, def, walk, unit, abbr, label, help)              \
    {#field, ptype, choices, def, walk, unit, abbr, label, help},
    STRATEGY_AXES(AXIS_INFO)
#undef AXIS_INFO
};

int strategy_get(const Strategy *s, StrategyAxis a)
{
    switch (a) {
#define AXIS_GET(ID, field, ...)                                                                             \
    case AXIS_##ID:                                                                                          \
        return (int)s->field;
        STRATEGY_AXES(AXIS_GET)
#undef AXIS_GET
    case AXIS_COUNT:
        break;
    }
    return 0;
}

void strategy_set(Strategy *s, StrategyAxis a, int v)
{
    switch (a) {
#define AXIS_SET(ID, field, ctype, ...)                                                                      \
    case AXIS_##ID:                                                                                          \
        s->field = (ctype)v;                                                                                 \
        break;
        STRATEGY_AXES(AXIS_SET)
#undef AXIS_SET
    case AXIS_COUNT:
        break;
    }
}

void strategy_value_text(StrategyAxis a, int v, char *buf, size_t n)
{
    const AxisInfo *ax = &strategy_axes[a];
    size_t at = 0; /* without printf: a few cells of every row */
    if (v == AUTO_VALUE)
        text_cat(buf, n, &at, "auto");
    else if (ax->ptype == P_BOOL)
        text_cat(buf, n, &at, v ? "yes" : "no");
    else if (ax->ptype == P_ENUM) {
        int k = 0;
        while (k < v && ax->choices[k])
            k++;
        text_cat(buf, n, &at, ax->choices[k] ? ax->choices[k] : "?");
    } else
        text_cat_long(buf, n, &at, v);
}

int strategy_axis_applies(const Strategy *s, StrategyAxis a)
{
    if (a == AXIS_RECOMPUTE_LAYERS)
        return s->recompute == RECOMPUTE_FULL || (int)s->recompute == AUTO_VALUE;
    return 1;
}

void strategy_describe(const Strategy *s, int brief, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int a = 0; a < AXIS_COUNT && at < n; a++) {
        const int v = strategy_get(s, (StrategyAxis)a);
        if (!strategy_axis_applies(s, (StrategyAxis)a) ||
            (brief && v == (int)strategy_axes[a].def && a != AXIS_TP && a != AXIS_PP && a != AXIS_MICROBATCH))
            continue;
        char t[32];
        strategy_value_text((StrategyAxis)a, v, t, sizeof t);
        const int w = snprintf(buf + at, n - at, "%s%s %s", at ? ", " : "",
                               brief ? strategy_axes[a].abbr : strategy_axes[a].name, t);
        if (w < 0)
            return;
        at += (size_t)w;
    }
}

void placement_order(Placement p, int order[3])
{
    static const int o[PLACE_COUNT][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const int *po = o[(unsigned)p < PLACE_COUNT ? p : 0];
    for (int i = 0; i < 3; i++)
        order[i] = po[i];
}

/* The rank order restricted to the axes of degree > 1 (tp 0, dp 1, pp 2,
 * innermost first): two placements with the same key lay ranks out alike. */
static int placement_key(Placement p, int tp, int dp, int pp)
{
    int order[3];
    placement_order(p, order);
    const int size[3] = {tp, dp, pp};
    int key = 0;
    for (int i = 0; i < 3; i++)
        if (size[order[i]] > 1)
            key = key * 4 + order[i] + 1;
    return key;
}

int strategy_equivalent(const Scenario *c, StrategyAxis a)
{
    const Strategy *s = &c->st;
    switch (a) {
    case AXIS_SEQ_PARALLEL: /* sequence parallelism splits over the tensor ranks: none with tp 1 */
        return s->seq_parallel && s->tp == 1;
    case AXIS_ZERO: /* sharding over one replica shards nothing (row-sparse gradients are exchanged
                       differently under ZeRO, so those models keep it) */
        return s->zero > 0 && s->dp == 1 && !c->model.sparse_grads;
    case AXIS_PP_SCHEDULE: /* one stage runs no schedule; 1f1b over chunks is the interleaved one */
        return (s->pp == 1 && s->pp_schedule != SCHED_1F1B) ||
               (s->pp_schedule == SCHED_1F1B && s->interleave > 1);
    case AXIS_PP_SPLIT: /* one stage has no split */
        return s->pp == 1 && s->pp_split != SPLIT_EVEN;
    case AXIS_PLACEMENT:
        for (int q = 0; q < (int)s->placement; q++)
            if (placement_key((Placement)q, s->tp * s->cp, s->dp, s->pp) ==
                placement_key(s->placement, s->tp * s->cp, s->dp, s->pp))
                return 1;
        return 0;
    default:
        return 0;
    }
}

int strategy_axis_find(const char *name)
{
    for (int a = 0; a < AXIS_COUNT; a++)
        if (!strcmp(strategy_axes[a].name, name))
            return a;
    return -1;
}

unsigned strategy_auto_mask(const Strategy *s)
{
    unsigned m = 0;
    for (int a = 0; a < AXIS_COUNT; a++)
        if (strategy_axes[a].walk >= 0 && strategy_get(s, (StrategyAxis)a) == AUTO_VALUE)
            m |= 1u << a;
    return m;
}

const char *strategy_axis_name(StrategyAxis a)
{
    return (unsigned)a < AXIS_COUNT ? strategy_axes[a].name : "?";
}

Merit merit_of(const Result *r)
{
    return (Merit){r->time_to_train_s, r->samples_per_s, r->energy_to_train_j, r->energy_per_step_j};
}

double merit_time(Merit m)
{
    return isfinite(m.time_to_train_s) && m.time_to_train_s > 0 ? m.time_to_train_s : 1.0 / m.samples_per_s;
}

int merit_better(Merit a, Merit b)
{
    const int fa = isfinite(a.time_to_train_s) && a.time_to_train_s > 0;
    const int fb = isfinite(b.time_to_train_s) && b.time_to_train_s > 0;
    if (fa != fb)
        return fa;
    if (fa && a.time_to_train_s != b.time_to_train_s)
        return a.time_to_train_s < b.time_to_train_s;
    if (!fa) {
        const int ga = isfinite(a.samples_per_s), gb = isfinite(b.samples_per_s);
        if (ga != gb)
            return ga;
        if (ga && a.samples_per_s != b.samples_per_s)
            return a.samples_per_s > b.samples_per_s;
    }
    if (isfinite(a.energy_to_train_j) && isfinite(b.energy_to_train_j))
        return a.energy_to_train_j < b.energy_to_train_j;
    return isfinite(a.energy_per_step_j) && isfinite(b.energy_per_step_j) &&
           a.energy_per_step_j < b.energy_per_step_j;
}
