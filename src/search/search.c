/* search/search.c — exhaustive search over the strategy axes a scenario
 * leaves open.  Each axis (core/types.h's STRATEGY_AXES) lists its
 * candidate values; a depth-first
 * walk sets one axis per level, drops a partial strategy as soon as it is
 * inconsistent (tp x pp must divide the devices, the global batch must
 * split into microbatches, ...) or equivalent to one already walked, and
 * evaluates every complete one.  At microseconds per evaluation even the
 * all-auto space of a trillion-parameter model on a thousand devices
 * (hundreds of thousands of candidates) takes seconds, so no heuristic
 * pruning is needed and the answer is the true optimum of the model.
 * Adding an axis: its line in STRATEGY_AXES (core/types.h) gives its
 * place in the walk; an enum or yes/no axis is walked over all its values,
 * an integer one needs its candidate list in axis_values; its consistency
 * rules go in strategy_check, its equivalences in strategy_equivalent
 * (core/strategy.c). */
#include "search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/param.h"
#include "core/strategy.h"
#include "core/units.h"
#include "core/text.h"

int search_needed(const Scenario *sc)
{
    /* dp 0: not given, derived from the devices and the other degrees */
    return strategy_auto_mask(&sc->st) != 0 || sc->st.dp == 0 || sc->replica_batch == AUTO_VALUE;
}

#define MAX_CHOICES 64

static int divisors(int n, int limit, int *out)
{
    int k = 0;
    for (int d = 1; d <= n && d <= limit && k < MAX_CHOICES; d++)
        if (n % d == 0)
            out[k++] = d;
    return k;
}

/* Pipeline stages cannot outnumber the layers a graph repeats (an LSTM
 * encoder-decoder pipelines encoder+decoder layer pairs). */
static int layer_units(const Model *m)
{
    if (m->kind == MODEL_TRANSFORMER)
        return m->layers;
    if (m->kind == MODEL_LSTM)
        return m->layers > 0 ? m->layers : m->enc_layers;
    return 1 << 20;
}

void search_candidate(const Result *r, Candidate *c)
{
    memset(c, 0, sizeof *c);
    c->st = r->st;
    c->merit = merit_of(r);
    c->step_time_s = r->step_time_s;
    c->mfu = r->mfu;
    c->mem_total_bytes = r->mem_total_bytes;
    snprintf(c->bottleneck, sizeof c->bottleneck, "%s", r->bottleneck);
}

/* Keep r among the k best, best first (a later equal one goes after). */
static void top_insert(SearchTop *top, const Result *r)
{
    if (!top || top->k <= 0)
        return;
    const Merit s = merit_of(r);
    int at = top->n;
    while (at > 0 && merit_better(s, top->c[at - 1].merit))
        at--;
    if (at >= top->k)
        return;
    int last = top->n < top->k ? top->n : top->k - 1;
    memmove(&top->c[at + 1], &top->c[at], sizeof top->c[0] * (size_t)(last - at));
    search_candidate(r, &top->c[at]);
    if (top->n < top->k)
        top->n++;
}

/* The axes the walk sets, in the table's walk order (core/strategy.h). */
typedef struct {
    StrategyAxis ax[AXIS_COUNT];
    int n;
} WalkOrder;

static WalkOrder walk_order(void)
{
    WalkOrder o = {{AXIS_TP}, 0};
    for (int a = 0; a < AXIS_COUNT; a++) { /* insertion by walk, the table's order among equals */
        if (strategy_axes[a].walk <= 0)
            continue;
        int at = o.n++;
        while (at > 0 && strategy_axes[o.ax[at - 1]].walk > strategy_axes[a].walk) {
            o.ax[at] = o.ax[at - 1];
            at--;
        }
        o.ax[at] = (StrategyAxis)a;
    }
    return o;
}

typedef struct {
    const Scenario *sc;
    WalkOrder order;
    SearchEval eval;
    GemmCache *cache;
    SearchTop *top;
    Scenario cand;
    int count, feasible, pruned;
    double space;
    int have, have_oom;
    Result best, best_oom, t;
    char last_err[256];
} Walk;

/* The values axis `ax` may take given the axes above it: the scenario's
 * when it gives one; for `auto`, every name of an enum, no and yes, or the
 * degrees below. */
static int axis_values(const Walk *w, StrategyAxis ax, int *v)
{
    const Scenario *sc = w->sc;
    const int n = sc->devices;
    int k = 0;
    const int asked = strategy_get(&sc->st, ax);
    if (asked != AUTO_VALUE)
        return v[0] = asked, 1;
    const AxisInfo *info = &strategy_axes[ax];
    if (info->ptype == P_BOOL) {
        v[0] = 0;
        v[1] = 1;
        return 2;
    }
    if (info->ptype == P_ENUM) {
        while (k < MAX_CHOICES && info->choices[k])
            v[k] = k, k++;
        return k;
    }
    switch (ax) {
    case AXIS_TP:
        return divisors(n, 64, v);
    case AXIS_CP:
        /* the sequence in 2 cp chunks (a causal-balanced split); transformers only */
        if (sc->model.kind != MODEL_TRANSFORMER)
            return v[0] = 1, 1;
        {
            const int rest = n / (w->cand.st.tp > 0 ? w->cand.st.tp : 1); /* the space's count: tp not set */
            for (int c = 1; c <= 64 && c <= rest && k < MAX_CHOICES; c++)
                if (rest % c == 0 && (c == 1 || sc->model.seq_len % (2 * c) == 0))
                    v[k++] = c;
        }
        return k;
    case AXIS_PP:
        return divisors(n / (w->cand.st.tp * (w->cand.st.cp > 0 ? w->cand.st.cp : 1)),
                        layer_units(&sc->model), v);
    case AXIS_EP:
    case AXIS_ETP: {
        /* the experts fold as etp x ep x edp over the tp x cp x dp ranks:
         * ep divides the experts, etp the grid left by ep; dense: ep 1,
         * etp 0 (as tp) */
        if (sc->model.kind != MODEL_TRANSFORMER || sc->model.experts < 1)
            return v[0] = ax == AXIS_EP ? 1 : 0, 1;
        const Strategy *c = &w->cand.st; /* (the space's count: the axes above may still be open) */
        const long tp = c->tp > 0 ? c->tp : 1, grid = c->dp > 0 ? tp * (c->cp > 0 ? c->cp : 1) * c->dp : n;
        const long etp = c->etp > 0 ? c->etp : c->etp == 0 ? tp : 1;
        const long rest = ax == AXIS_EP ? (grid % etp ? 0 : grid / etp) : grid / (c->ep > 0 ? c->ep : 1);
        for (int e = 1; e <= 256 && e <= rest && k < MAX_CHOICES; e++)
            if (rest % e == 0 && (ax == AXIS_ETP || sc->model.experts % e == 0))
                v[k++] = e;
        return k;
    }
    case AXIS_MICROBATCH:
        for (int b = 1; b <= 1024 && k < MAX_CHOICES; b *= 2)
            if (sc->replica_batch <= 0 || (b <= sc->replica_batch && sc->replica_batch % b == 0))
                v[k++] = b;
        return k;
    case AXIS_INTERLEAVE: {
        static const int cand[] = {1, 2, 3, 4, 6, 8};
        for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
            v[k++] = cand[i];
        return k;
    }
    case AXIS_ZERO:
        for (int z = 0; z <= 3; z++)
            v[k++] = z;
        return k;
    default: /* an integer axis without a candidate list: the walk never reaches it (walk <= 0) */
        break;
    }
    return 0;
}

typedef enum { ENTER_OK, ENTER_INVALID, ENTER_EQUIVALENT } Enter;

/* Set axis ax to value x on the candidate: whether the partial strategy
 * is consistent, and not equivalent to one walked before. */
static Enter enter(Walk *w, StrategyAxis ax, int x)
{
    const Scenario *sc = w->sc;
    Scenario *c = &w->cand;
    const int n = sc->devices;
    const int open = strategy_get(&sc->st, ax) == AUTO_VALUE;
    strategy_set(&c->st, ax, x);
    if (x < 1 && (ax == AXIS_TP || ax == AXIS_CP || ax == AXIS_PP || ax == AXIS_EP || ax == AXIS_MICROBATCH))
        return ENTER_INVALID; /* a degree is at least 1 (the table's ranges say so) */
    switch (ax) {
    case AXIS_TP:
        return n % x ? ENTER_INVALID : ENTER_OK;
    case AXIS_CP:
        return n % ((long)c->st.tp * x) ? ENTER_INVALID : ENTER_OK;
    case AXIS_PP: {
        const int mp = c->st.tp * x; /* the model-parallel bounds: tp x pp */
        const long used = (long)mp * c->st.cp;
        if (n % used || mp < sc->min_mp || mp > sc->max_mp)
            return ENTER_INVALID;
        c->st.dp = sc->st.dp > 0 ? sc->st.dp : (int)(n / used);
        return used * c->st.dp != n ? ENTER_INVALID : ENTER_OK;
    }
    case AXIS_MICROBATCH: {
        /* an explicit global batch stays; a replica batch scales with dp;
         * else one microbatch per replica */
        c->st.global_batch = sc->st.global_batch > 0 && !sc->replica_batch ? sc->st.global_batch
                             : sc->replica_batch > 0 ? (int64_t)sc->replica_batch * c->st.dp
                                                     : (int64_t)x * c->st.dp;
        if (c->st.global_batch < c->st.dp) { /* no microbatch can help: said so, not the last one tried */
            snprintf(w->last_err, sizeof w->last_err,
                     "tp %d x pp %d leaves dp %d, more replicas than global_batch %lld has samples", c->st.tp,
                     c->st.pp, c->st.dp, (long long)c->st.global_batch);
            return ENTER_INVALID;
        }
        if (c->st.global_batch % ((int64_t)x * c->st.dp)) {
            snprintf(w->last_err, sizeof w->last_err,
                     "tp %d x pp %d leaves dp %d, and global_batch %lld is not a multiple of microbatch %d x "
                     "dp %d",
                     c->st.tp, c->st.pp, c->st.dp, (long long)c->st.global_batch, x, c->st.dp);
            return ENTER_INVALID;
        }
        return ENTER_OK;
    }
    case AXIS_INTERLEAVE:
        return x > 1 && c->st.pp == 1 ? ENTER_INVALID : ENTER_OK;
    default:
        break;
    }
    return open && strategy_equivalent(c, ax) ? ENTER_EQUIVALENT : ENTER_OK;
}

static void leaf(Walk *w)
{
    Diag d;
    diag_clear(&d);
    if (strategy_check(&w->cand, &d)) {
        text_copy(w->last_err, sizeof w->last_err, d.msg);
        return;
    }
    w->count++;
    Result *t = &w->t;
    if (w->eval(&w->cand, w->cache, t)) {
        snprintf(w->last_err, sizeof w->last_err, "%s", t->error);
        return;
    }
    if (t->status == STATUS_OK) {
        w->feasible++;
        top_insert(w->top, t);
        if (!w->have || merit_better(merit_of(t), merit_of(&w->best)))
            w->best = *t;
        w->have = 1;
    } else if (!w->have_oom || t->mem_total_bytes < w->best_oom.mem_total_bytes) {
        w->best_oom = *t;
        w->have_oom = 1;
    }
}

/* Candidates below level `level` of the walk: the product of the
 * remaining axes' sizes, for the pruned count. */
static double below(const Walk *w, int level)
{
    double p = 1;
    int v[MAX_CHOICES];
    for (int l = level + 1; l < w->order.n; l++)
        p *= axis_values(w, w->order.ax[l], v);
    return p;
}

static void walk(Walk *w, int level)
{
    if (level == w->order.n) {
        leaf(w);
        return;
    }
    const StrategyAxis ax = w->order.ax[level];
    int v[MAX_CHOICES];
    const int n = axis_values(w, ax, v);
    for (int i = 0; i < n; i++) {
        Enter e = enter(w, ax, v[i]);
        if (e == ENTER_EQUIVALENT)
            w->pruned += (int)below(w, level);
        if (e == ENTER_OK)
            walk(w, level + 1);
    }
}

/* Every combination of the open axes' values (pp's from the devices). */
static double space_size(const Walk *w)
{
    int v[MAX_CHOICES];
    double s = 1;
    for (int l = 0; l < w->order.n; l++) {
        const StrategyAxis a = w->order.ax[l];
        s *= a != AXIS_PP                 ? axis_values(w, a, v)
             : w->sc->st.pp == AUTO_VALUE ? divisors(w->sc->devices, layer_units(&w->sc->model), v)
                                          : 1;
    }
    return s;
}

static int search_axes(const Scenario *sc, SearchEval eval, GemmCache *cache, Result *r, SearchTop *top)
{
    Walk *w = calloc(1, sizeof *w);
    if (!w) {
        memset(r, 0, sizeof *r);
        r->status = STATUS_ERROR;
        snprintf(r->error, sizeof r->error, "out of memory for the strategy search");
        return -1;
    }
    w->sc = sc;
    w->eval = eval;
    w->cache = cache;
    w->top = top;
    w->cand = *sc;
    w->order = walk_order();
    w->space = space_size(w);
    walk(w, 0);
    int rc = 0;
    if (w->have) {
        *r = w->best;
    } else if (w->have_oom) {
        *r = w->best_oom;
        snprintf(r->error, sizeof r->error, "no strategy fits in memory; the smallest needs %.1f GiB",
                 w->best_oom.mem_total_bytes / GIB_BYTES);
    } else {
        memset(r, 0, sizeof *r);
        r->status = STATUS_ERROR;
        char msg[sizeof w->last_err + 160];
        snprintf(msg, sizeof msg, "the search found no strategy for %d devices with %d <= tp x pp <= %d%s%s",
                 sc->devices, sc->min_mp, sc->max_mp, w->last_err[0] ? "; the last one tried: " : "",
                 w->last_err);
        text_copy(r->error, sizeof r->error, msg);
        snprintf(r->error_key, sizeof r->error_key, "%s",
                 sc->st.global_batch > 0 ? "global_batch" : "devices");
        rc = -1;
    }
    r->searched = w->count;
    r->search_feasible = w->feasible;
    r->search_pruned = w->pruned;
    r->search_space = w->space;
    free(w);
    return rc;
}

/* replica_batch = auto: the best of the powers of two from 1 to
 * REPLICA_MAX samples per replica (a team tunes the per-device batch of
 * data parallelism too: the baseline must be the best of it), each with
 * the rest of the strategy searched. */
#define REPLICA_MAX 1024

static int search_replica(const Scenario *sc, SearchEval eval, GemmCache *cache, Result *r, SearchTop *top)
{
    Result best, t;
    int have = 0, count = 0, feasible = 0, pruned = 0;
    double space = 0;
    char last[256] = "";
    for (int rb = 1; rb <= REPLICA_MAX; rb *= 2) {
        Scenario c = *sc;
        c.replica_batch = rb;
        c.st.global_batch = c.st.dp > 0 ? (int64_t)rb * c.st.dp : 0;
        int rc;
        if (search_needed(&c)) {
            rc = search_axes(&c, eval, cache, &t, top);
            count += t.searched;
            feasible += t.search_feasible;
            pruned += t.search_pruned;
            space += t.search_space;
        } else {
            rc = eval(&c, cache, &t);
            count++;
            space++;
            if (rc == 0 && t.status == STATUS_OK) {
                feasible++;
                top_insert(top, &t);
            }
        }
        if (rc == 0 && t.status == STATUS_OK) {
            if (!have || merit_better(merit_of(&t), merit_of(&best)))
                best = t;
            have = 1;
        } else if (t.error[0]) {
            snprintf(last, sizeof last, "%s", t.error);
        }
    }
    if (!have) {
        memset(r, 0, sizeof *r);
        r->status = STATUS_ERROR;
        char msg[sizeof last + 80];
        snprintf(msg, sizeof msg, "no replica batch from 1 to %d gives a strategy that fits%s%s", REPLICA_MAX,
                 last[0] ? ": " : "", last);
        text_copy(r->error, sizeof r->error, msg);
        r->searched = count;
        return -1;
    }
    *r = best;
    r->searched = count;
    r->search_feasible = feasible;
    r->search_pruned = pruned;
    r->search_space = space;
    return 0;
}

int search_strategy(const Scenario *sc, SearchEval eval, GemmCache *cache, Result *r, SearchTop *top)
{
    if (top)
        top->n = 0;
    if (sc->replica_batch == AUTO_VALUE)
        return search_replica(sc, eval, cache, r, top);
    return search_axes(sc, eval, cache, r, top);
}
