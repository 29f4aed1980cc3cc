/* calib/fit.c — the calibration fit (see calib.h). */
#include "calib.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/evaluate.h"

#define US 1e6, " us" /* written in microseconds */
#define AS 1.0, ""    /* written as it is */
const CalParamDef cal_param[CAL_NPARAM] = {
    [CAL_GEMM] = {"gemm_efficiency", offsetof(Framework, gemm_eff), 1, AS, 0.30, 1.50, 0.01,
                  "no run's step time depends on its GEMMs"},
    [CAL_OVERHEAD] = {"op_overhead", offsetof(Framework, host_op_s), 0, US, 0.0, 300e-6, 5e-6,
                      "no run has kernels short enough for the host's dispatch time to show"},
    [CAL_TP_OVERLAP] = {"tp_overlap", offsetof(Framework, tp_overlap), 0, AS, 0.0, 1.0, 0.025,
                        "no run has tensor-parallel collectives the stack can hide (the model overlaps them "
                        "only with tp > 1, "
                        "seq_parallel yes and the tensor group inside a node)"},
    [CAL_DP_OVERLAP] = {"dp_overlap", offsetof(Framework, dp_overlap), 0, AS, 0.0, 1.0, 0.025,
                        "no run exchanges gradients between data-parallel ranks (dp > 1) under a backward "
                        "pass"},
    [CAL_COMM_INTRA] = {"comm_efficiency.intra", offsetof(Framework, comm_intra), 1, AS, 0.20, 2.0, 0.02,
                        "no run has collectives inside a node that its step time depends on"},
    [CAL_COMM_INTER] = {"comm_efficiency.inter", offsetof(Framework, comm_inter), 1, AS, 0.20, 2.0, 0.02,
                        "no run has collectives between nodes that its step time depends on"},
    [CAL_LAT_INTRA] = {"comm_latency.intra", offsetof(Framework, comm_alpha_intra), 0, US, 0.0, 50e-6, 0.5e-6,
                       "no run has collectives inside a node that its step time depends on"},
    [CAL_LAT_INTER] = {"comm_latency.inter", offsetof(Framework, comm_alpha_inter), 0, US, 0.0, 50e-6, 0.5e-6,
                       "no run has collectives between nodes that its step time depends on"},
};
#undef US
#undef AS

double cal_get(const Scenario *sc, CalParam p)
{
    const void *f = (const char *)&sc->system.framework + cal_param[p].field;
    const double v = *(const double *)f;
    return cal_param[p].zero_is_one && !(v > 0) ? 1.0 : v;
}

void cal_set(Scenario *sc, CalParam p, double v)
{
    void *f = (char *)&sc->system.framework + cal_param[p].field;
    *(double *)f = v;
}

double cal_shown(CalParam p, double v)
{
    return v * cal_param[p].shown;
}

/* ---- predictions, memoised by parameter vector -------------------------- */

typedef struct {
    double v[CAL_NPARAM];
    double *pred; /* NULL: empty slot */
} Entry;

typedef struct {
    const CalInput *in;
    Entry *e;
    size_t cap, used;
    GemmCache *cache;
    Scenario *work; /* the scenario being evaluated */
    double *zeros;  /* n predictions of 0, what an allocation failure gives */
    long evals;
    int oom; /* out of memory: predictions are 0 */
} Memo;

static uint64_t vec_hash(const double *v)
{
    uint64_t h = 1469598103934665603ull;
    for (int p = 0; p < CAL_NPARAM; p++) {
        uint64_t b;
        memcpy(&b, &v[p], sizeof b);
        h = (h ^ b) * 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

static int memo_grow(Memo *m)
{
    const size_t cap = m->cap ? 2 * m->cap : 1024;
    Entry *e = calloc(cap, sizeof *e);
    if (!e)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->e[i].pred)
            continue;
        size_t j = vec_hash(m->e[i].v) & (cap - 1);
        while (e[j].pred)
            j = (j + 1) & (cap - 1);
        e[j] = m->e[i];
    }
    free(m->e);
    m->e = e;
    m->cap = cap;
    return 0;
}

/* Two parameter vectors equal, value by value (the grid's values are
 * computed the same way each time, so equal points compare equal). */
static int vec_equal(const double *a, const double *b)
{
    for (int p = 0; p < CAL_NPARAM; p++)
        if (a[p] != b[p])
            return 0;
    return 1;
}

static void memo_free(Memo *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->e[i].pred);
    free(m->e);
    free(m->cache);
    free(m->work);
    free(m->zeros);
}

/* Each run's predicted step time at parameter vector v (0: none). */
static const double *predict(Memo *m, const double *v)
{
    if (m->used * 10 >= m->cap * 7 && memo_grow(m)) {
        m->oom = 1;
        return m->zeros;
    }
    size_t j = vec_hash(v) & (m->cap - 1);
    for (; m->e[j].pred; j = (j + 1) & (m->cap - 1))
        if (vec_equal(m->e[j].v, v))
            return m->e[j].pred;
    const CalInput *in = m->in;
    double *pred = malloc((size_t)in->n * sizeof *pred);
    if (!pred) {
        m->oom = 1;
        return m->zeros;
    }
    for (int i = 0; i < in->n; i++) {
        *m->work = in->sc[i];
        for (int p = 0; p < CAL_NPARAM; p++)
            cal_set(m->work, (CalParam)p, v[p]);
        Result r;
        const int bad = evaluate_cached(m->work, m->cache, &r);
        pred[i] = !bad && r.status != STATUS_ERROR && isfinite(r.step_time_s) && r.step_time_s > 0
                      ? r.step_time_s
                      : 0.0;
        m->evals++;
    }
    memcpy(m->e[j].v, v, sizeof m->e[j].v);
    m->e[j].pred = pred;
    m->used++;
    return pred;
}

/* Mean |predicted / measured - 1| over the runs but `skip` (-1: none); a
 * run the model gives no time for counts 1. */
static double objective(const Memo *m, const double *pred, int skip)
{
    const CalInput *in = m->in;
    double s = 0;
    int k = 0;
    for (int i = 0; i < in->n; i++) {
        if (i == skip)
            continue;
        s += pred[i] > 0 ? fabs(pred[i] / in->measured[i] - 1.0) : 1.0;
        k++;
    }
    return k ? s / k : 0.0;
}

static double grid_at(CalParam p, int k)
{
    return cal_param[p].lo + k * cal_param[p].step;
}

static int grid_n(CalParam p)
{
    const CalParamDef *g = &cal_param[p];
    return (int)floor((g->hi - g->lo) / g->step + 0.5) + 1;
}

/* Coordinate descent from v over the free parameters, without run skip. */
static void descend(Memo *m, double *v, const int *free_p, int skip)
{
    for (int round = 0; round < 30; round++) {
        int changed = 0;
        for (int p = 0; p < CAL_NPARAM; p++) {
            if (!free_p[p])
                continue;
            const double cur = v[p];
            double best = cur, best_o = objective(m, predict(m, v), skip);
            for (int k = 0; k < grid_n((CalParam)p); k++) {
                v[p] = grid_at((CalParam)p, k);
                const double o = objective(m, predict(m, v), skip);
                /* a clear improvement, or as good and nearer where it was */
                if (o < best_o - 1e-12 || (o <= best_o + 1e-12 && fabs(v[p] - cur) < fabs(best - cur))) {
                    best = v[p];
                    best_o = o;
                }
            }
            v[p] = best;
            changed |= best != cur;
        }
        if (!changed)
            break;
    }
}

/* ---- the fit ------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile_sorted(const double *s, int n, double q)
{
    if (n == 1)
        return s[0];
    const double pos = q * (n - 1);
    const int i = (int)floor(pos);
    if (i >= n - 1)
        return s[n - 1];
    return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

void cal_interval(const double *ratio, int n, Interval *iv)
{
    memset(iv, 0, sizeof *iv);
    if (n < 1)
        return;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return;
    memcpy(s, ratio, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    iv->lo = fmin(1.0 - 1.645 * CAL_NOISE, quantile_sorted(s, n, 0.05));
    iv->hi = fmax(1.0 + 1.645 * CAL_NOISE, quantile_sorted(s, n, 0.95));
    iv->runs = n;
    double err = 0;
    int in = 0;
    for (int i = 0; i < n; i++) {
        err += fabs(1.0 / ratio[i] - 1.0);
        in += ratio[i] >= iv->lo && ratio[i] <= iv->hi;
    }
    iv->mean_err = err / n;
    iv->coverage = (double)in / n;
    free(s);
}

/* The runs whose own best value of p (the others at the fit) lies beyond
 * bound: their names, comma-separated, into buf. */
static void runs_beyond(Memo *m, const double *fit, CalParam p, double bound, char *buf, size_t len)
{
    const CalInput *in = m->in;
    double v[CAL_NPARAM];
    memcpy(v, fit, sizeof v);
    size_t used = 0;
    int listed = 0, more = 0;
    buf[0] = 0;
    for (int i = 0; i < in->n; i++) {
        double best = fit[p], best_e = INFINITY;
        for (int k = 0; k < grid_n(p); k++) {
            v[p] = grid_at(p, k);
            const double *pred = predict(m, v);
            const double e = pred[i] > 0 ? fabs(pred[i] / in->measured[i] - 1.0) : INFINITY;
            if (e < best_e) {
                best_e = e;
                best = v[p];
            }
        }
        if (best <= bound)
            continue;
        if (listed == 5) {
            more++;
            continue;
        }
        const int w = snprintf(buf + used, len - used, "%s%s", listed ? ", " : "", in->sc[i].name);
        if (w > 0 && used + (size_t)w < len)
            used += (size_t)w;
        listed++;
    }
    if (more && used + 20 < len)
        snprintf(buf + used, len - used, " and %d more", more);
}

/* The physical bound of p for this stack: an efficiency of 1 (for the
 * tiers' multipliers, 1 over the tier's own efficiency); the others' grids
 * hold only physical values. */
static double phys_bound(const Scenario *sc, CalParam p)
{
    switch (p) {
    case CAL_GEMM:
        return 1.0;
    case CAL_COMM_INTRA:
        return sc->system.intra.efficiency > 0 ? 1.0 / sc->system.intra.efficiency : INFINITY;
    case CAL_COMM_INTER:
        return sc->system.inter.efficiency > 0 ? 1.0 / sc->system.inter.efficiency : INFINITY;
    default:
        return INFINITY;
    }
}

static int check_input(const CalInput *in, Diag *d)
{
    for (int p = 0; p < CAL_NPARAM; p++) {
        if (!(in->ask >> p & 1))
            continue;
        for (int i = 1; i < in->n; i++)
            if (cal_get(&in->sc[i], (CalParam)p) != cal_get(&in->sc[0], (CalParam)p))
                return diag_set(
                    d, NULL, 0, 0,
                    "runs %s and %s give %s different values (%g and %g): calibrate fits one value "
                    "for all; leave it out of the table or out of --fit",
                    in->sc[0].name, in->sc[i].name, cal_param[p].key,
                    cal_shown((CalParam)p, cal_get(&in->sc[0], (CalParam)p)),
                    cal_shown((CalParam)p, cal_get(&in->sc[i], (CalParam)p)));
    }
    for (int i = 0; i < in->n; i++)
        if (!(in->measured[i] > 0) || !isfinite(in->measured[i]))
            return diag_set(d, NULL, 0, 0, "run %s: the measured step time must be a positive number",
                            in->sc[i].name);
    return 0;
}

/* Which asked parameters some run's prediction depends on (across the
 * whole grid, the others at the base). */
static void pinned(Memo *m, const double *base, unsigned ask, int *free_p, CalResult *out)
{
    for (int p = 0; p < CAL_NPARAM; p++) {
        free_p[p] = 0;
        if (!(ask >> p & 1))
            continue;
        double v[CAL_NPARAM];
        memcpy(v, base, sizeof v);
        v[p] = cal_param[p].lo;
        const double *lo = predict(m, v);
        v[p] = grid_at((CalParam)p, grid_n((CalParam)p) - 1);
        const double *hi = predict(m, v);
        for (int i = 0; i < m->in->n && !free_p[p]; i++)
            free_p[p] = lo[i] > 0 && hi[i] > 0 && fabs(lo[i] / hi[i] - 1.0) > 1e-3;
        if (!free_p[p])
            snprintf(out->note[p], sizeof out->note[p], "not fitted: %s; the base stack's value",
                     cal_param[p].unused);
    }
}

static int alloc_result(CalResult *out, int n)
{
    out->pred_base = calloc((size_t)n, sizeof *out->pred_base);
    out->pred_in = calloc((size_t)n, sizeof *out->pred_in);
    out->pred_loo = calloc((size_t)n, sizeof *out->pred_loo);
    out->outlier = calloc((size_t)n, sizeof *out->outlier);
    return out->pred_base && out->pred_in && out->pred_loo && out->outlier ? 0 : -1;
}

/* Leave-one-out: each run predicted by the fit without it; the fitted
 * values' jackknife standard errors. */
static int leave_one_out(Memo *m, const double *fit, const int *free_p, CalResult *out)
{
    const int n = m->in->n;
    double *loo_v = malloc((size_t)n * CAL_NPARAM * sizeof *loo_v);
    if (!loo_v)
        return -1;
    for (int i = 0; i < n; i++) {
        double *v = loo_v + (size_t)i * CAL_NPARAM;
        memcpy(v, fit, CAL_NPARAM * sizeof *v);
        descend(m, v, free_p, i);
        out->pred_loo[i] = predict(m, v)[i];
    }
    for (int p = 0; p < CAL_NPARAM; p++) {
        if (!free_p[p])
            continue;
        double mean = 0, ss = 0;
        for (int i = 0; i < n; i++)
            mean += loo_v[(size_t)i * CAL_NPARAM + p] / n;
        for (int i = 0; i < n; i++) {
            const double dv = loo_v[(size_t)i * CAL_NPARAM + p] - mean;
            ss += dv * dv;
        }
        out->se[p] = sqrt((double)(n - 1) / n * ss);
    }
    free(loo_v);
    return 0;
}

/* Runs beyond 3 robust standard deviations (1.4826 x the median absolute
 * deviation, never below CAL_NOISE) of the log out-of-sample residuals'
 * median. */
static void outliers(const CalInput *in, CalResult *out)
{
    const int n = in->n;
    double *r = malloc((size_t)n * sizeof *r), *a = malloc((size_t)n * sizeof *a);
    if (r && a) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (out->pred_loo[i] > 0)
                r[k++] = log(in->measured[i] / out->pred_loo[i]);
        memcpy(a, r, (size_t)k * sizeof *a);
        qsort(a, (size_t)k, sizeof *a, cmp_double);
        const double med = k ? quantile_sorted(a, k, 0.5) : 0;
        for (int i = 0; i < k; i++)
            a[i] = fabs(r[i] - med);
        qsort(a, (size_t)k, sizeof *a, cmp_double);
        const double sd = fmax(CAL_NOISE, k ? 1.4826 * quantile_sorted(a, k, 0.5) : 0);
        for (int i = 0; i < n; i++)
            out->outlier[i] =
                out->pred_loo[i] <= 0 || fabs(log(in->measured[i] / out->pred_loo[i]) - med) > 3.0 * sd;
    }
    free(r);
    free(a);
}

static int fit_checked(Memo *m, const CalInput *in, CalResult *out, Diag *d)
{
    double base[CAL_NPARAM], v[CAL_NPARAM];
    for (int p = 0; p < CAL_NPARAM; p++)
        base[p] = v[p] = out->base[p] = out->value[p] = cal_get(&in->sc[0], (CalParam)p);
    const double *pb = predict(m, base);
    memcpy(out->pred_base, pb, (size_t)in->n * sizeof *pb);
    for (int i = 0; i < in->n; i++)
        if (!(out->pred_base[i] > 0))
            return diag_set(d, NULL, 0, 0, "run %s: the model gives no step time for it", in->sc[i].name);
    out->err_base = objective(m, out->pred_base, -1);

    int free_p[CAL_NPARAM];
    pinned(m, base, in->ask, free_p, out);
    char names[400] = "";
    size_t used = 0;
    for (int p = 0; p < CAL_NPARAM; p++)
        if (free_p[p]) {
            out->nfit++;
            const int w =
                snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", cal_param[p].key);
            if (w > 0 && used + (size_t)w < sizeof names)
                used += (size_t)w;
        }
    if (out->nfit == 0)
        return diag_set(d, NULL, 0, 0,
                        "no run's predicted step time depends on the parameters asked for: nothing to fit");
    if (in->n < CAL_MIN_RUNS(out->nfit))
        return diag_set(
            d, NULL, 0, 0,
            "%d run%s cannot fit %d parameter%s (%s): at least %d are needed, two a parameter and "
            "one to leave out",
            in->n, in->n == 1 ? "" : "s", out->nfit, out->nfit == 1 ? "" : "s", names,
            CAL_MIN_RUNS(out->nfit));

    descend(m, v, free_p, -1);
    for (int p = 0; p < CAL_NPARAM; p++) {
        if (!free_p[p])
            continue;
        const double bound = phys_bound(&in->sc[0], (CalParam)p);
        if (v[p] > bound + 1e-9) {
            char who[300];
            runs_beyond(m, v, (CalParam)p, bound, who, sizeof who);
            return diag_set(
                d, NULL, 0, 0,
                "%s would be %.3g, above its physical bound %.3g (%s): the run%s that pull it there: "
                "%s; check their measured figures and units",
                cal_param[p].key, cal_shown((CalParam)p, v[p]), cal_shown((CalParam)p, bound),
                p == CAL_GEMM ? "the device's best-kernel GEMM rate" : "the tier's whole bandwidth",
                strchr(who, ',') || strstr(who, " more") ? "s" : "", who[0] ? who : "none alone");
        }
        out->fitted[p] = 1;
        out->value[p] = v[p];
        const int k_last = grid_n((CalParam)p) - 1;
        out->at_edge[p] = v[p] <= cal_param[p].lo + 1e-12 || v[p] >= grid_at((CalParam)p, k_last) - 1e-12;
        snprintf(out->note[p], sizeof out->note[p], "fitted%s",
                 out->at_edge[p] ? " (at the end of its range: the runs would take it further)" : "");
    }
    const double *pi = predict(m, v);
    memcpy(out->pred_in, pi, (size_t)in->n * sizeof *pi);
    out->err_in = objective(m, out->pred_in, -1);
    if (leave_one_out(m, v, free_p, out))
        return diag_set(d, NULL, 0, 0, "out of memory");
    out->err_loo = objective(m, out->pred_loo, -1);
    outliers(in, out);
    return 0;
}

int cal_fit(const CalInput *in, CalResult *out, Diag *d)
{
    memset(out, 0, sizeof *out);
    if (in->n < 1)
        return diag_set(d, NULL, 0, 0, "no runs to calibrate on");
    if (check_input(in, d))
        return -1;
    if (alloc_result(out, in->n))
        return diag_set(d, NULL, 0, 0, "out of memory for %d runs", in->n);
    Memo m = {.in = in};
    m.cache = malloc(sizeof *m.cache);
    m.work = malloc(sizeof *m.work);
    m.zeros = calloc((size_t)in->n, sizeof *m.zeros);
    if (!m.cache || !m.work || !m.zeros || memo_grow(&m)) {
        memo_free(&m);
        return diag_set(d, NULL, 0, 0, "out of memory");
    }
    gemm_cache_init(m.cache);
    int rc = fit_checked(&m, in, out, d);
    if (!rc && m.oom)
        rc = diag_set(d, NULL, 0, 0, "out of memory while fitting");
    out->evaluations = m.evals;
    memo_free(&m);
    return rc;
}

void cal_result_free(CalResult *r)
{
    free(r->pred_base);
    free(r->pred_in);
    free(r->pred_loo);
    free(r->outlier);
    r->pred_base = r->pred_in = r->pred_loo = NULL;
    r->outlier = NULL;
}
