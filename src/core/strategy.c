/* core/strategy.c — the arithmetic every strategy must satisfy, shared by
 * the scenario builder (io) and the strategy search (search). */
#include "strategy.h"

#include <math.h>
#include <stdint.h>

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
    if (ep > 1 && dp > 0 && dp % ep)
        return diag_set(
            d, NULL, 0, 0,
            "dp (%d) must be a multiple of ep (%d): the expert-parallel ranks are data-parallel ranks", dp,
            ep);
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
        if (pp > 0 && v > 0 && sc->model.layers < pp * v)
            return diag_set(d, NULL, 0, 0,
                            "layers (%d) must split over pp x interleave (%d x %d = %d): at least one "
                            "layer per model chunk",
                            sc->model.layers, pp, v, pp * v);
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
    return 0;
}

unsigned strategy_auto_mask(const Strategy *s)
{
    const int v[AXIS_COUNT] = {s->tp,           s->pp,         s->dp,
                               s->microbatch,   s->interleave, (int)s->recompute,
                               s->seq_parallel, s->zero,       (int)s->placement,
                               s->cp,           s->ep};
    unsigned m = 0;
    for (int a = 0; a < AXIS_COUNT; a++)
        if (v[a] == AUTO_VALUE)
            m |= 1u << a;
    return m;
}

const char *strategy_axis_name(StrategyAxis a)
{
    static const char *const n[AXIS_COUNT] = {"tp",        "pp",           "dp",   "microbatch", "interleave",
                                              "recompute", "seq_parallel", "zero", "placement",  "cp",
                                              "ep"};
    return (unsigned)a < AXIS_COUNT ? n[a] : "?";
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
