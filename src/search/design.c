/* search/design.c — the co-design search over a derive: device's budget
 * splits (see design.h for the method). */
#include "design.h"
#include "core/text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int design_needed(const Scenario *sc)
{
    return sc->codesign != CODESIGN_NONE;
}

/* One split of the budget: which array and which of its parts move. */
typedef struct {
    double *f; /* into the candidate's Budget */
    int parts[TP_COUNT];
    int n;
    double total; /* the template's sum of those parts, kept */
} Simplex;

typedef struct {
    const Scenario *sc;
    SearchEval eval;
    GemmCache *cache;
    Scenario cand;
    Simplex s[3];
    int ns;
    int evals;
    int have;
    Result best, t;
    Budget best_budget;
    char first_err[256];
} Design;

/* Evaluate the candidate's current budget into g->t: 1 when it is
 * feasible (fits, within the power and cost budgets).  The best feasible
 * point of all starts is kept. */
static int try_point(Design *g)
{
    if (g->evals >= DESIGN_MAX_EVALS)
        return 0;
    g->evals++;
    Result *t = &g->t;
    const int rc = g->eval(&g->cand, g->cache, t);
    const Scenario *sc = g->sc;
    const char *why = rc || t->status == STATUS_ERROR ? t->error
                      : t->status != STATUS_OK        ? "no strategy fits in memory"
                      : sc->power_budget_w > 0 && t->system_power_w > sc->power_budget_w
                          ? "above the power budget"
                      : sc->budget_usd > 0 && isfinite(t->cost_usd) && t->cost_usd > sc->budget_usd
                          ? "above the cost budget"
                          : NULL;
    if (why) {
        if (!g->first_err[0])
            snprintf(g->first_err, sizeof g->first_err, "%s", why);
        return 0;
    }
    if (!g->have || merit_better(merit_of(t), merit_of(&g->best))) {
        g->best = *t;
        g->best_budget = g->cand.system.device.derive.budget;
        g->have = 1;
    }
    return 1;
}

/* Pattern search from the candidate's budget: a move is kept when it beats
 * this start's point so far (an infeasible start accepts the first
 * feasible move). */
static void pattern_search(Design *g)
{
    Budget *b = &g->cand.system.device.derive.budget;
    Result *cur = malloc(sizeof *cur);
    if (!cur)
        return;
    int have = try_point(g);
    if (have)
        *cur = g->t;
    for (double step = 0.04; step >= 0.0025 && g->evals < DESIGN_MAX_EVALS;) {
        int improved = 0;
        for (int k = 0; k < g->ns; k++) {
            Simplex *s = &g->s[k];
            for (int i = 0; i < s->n; i++)
                for (int j = 0; j < s->n; j++) {
                    const int pi = s->parts[i], pj = s->parts[j];
                    if (i == j || s->f[pi] < step)
                        continue;
                    const Budget keep = *b;
                    s->f[pi] -= step;
                    s->f[pj] += step;
                    if (s->f[pi] < 1e-12) /* a share moved away whole: 0, not rounding residue */
                        s->f[pi] = 0;
                    if (try_point(g) && (!have || merit_better(merit_of(&g->t), merit_of(cur)))) {
                        *cur = g->t;
                        have = improved = 1;
                    } else {
                        *b = keep;
                    }
                }
        }
        if (!improved)
            step /= 2;
    }
    free(cur);
}

/* A uniform point of the simplex with the given total (sorted uniforms'
 * gaps), from a 64-bit linear congruential generator (Knuth's MMIX
 * constants): reproducible for a seed, independent of the platform. */
static double next_uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / 9007199254740992.0; /* 53 bits in [0, 1) */
}

static void random_split(Simplex *s, uint64_t *state)
{
    double cut[TP_COUNT + 1] = {0};
    const int n = s->n;
    for (int i = 0; i < n - 1; i++)
        cut[i] = next_uniform(state);
    for (int i = 1; i < n - 1; i++) /* insertion sort of n - 1 cuts */
        for (int j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
            const double x = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = x;
        }
    double prev = 0;
    for (int i = 0; i < n; i++) {
        const double c = i < n - 1 ? cut[i] : 1.0;
        s->f[s->parts[i]] = s->total * (c - prev);
        prev = c;
    }
}

static void add_simplex(Design *g, double *f, const int *parts, int n)
{
    Simplex *s = &g->s[g->ns++];
    s->f = f;
    s->n = 0;
    s->total = 0;
    for (int i = 0; i < n; i++) {
        s->parts[s->n++] = parts[i];
        s->total += f[parts[i]];
    }
}

int design_search(const Scenario *sc, SearchEval eval, GemmCache *cache, Result *r)
{
    Design *g = calloc(1, sizeof *g);
    if (!g) {
        memset(r, 0, sizeof *r);
        r->status = STATUS_ERROR;
        snprintf(r->error, sizeof r->error, "out of memory for the co-design search");
        return -1;
    }
    g->sc = sc;
    g->eval = eval;
    g->cache = cache;
    g->cand = *sc;
    g->cand.codesign = CODESIGN_NONE; /* the points themselves are plain scenarios */
    if (!sc->system.device.derive.name[0]) {
        free(g);
        memset(r, 0, sizeof *r);
        r->status = STATUS_ERROR;
        snprintf(
            r->error, sizeof r->error,
            "codesign: device '%s' has no derive: block, so it has no splits to optimise (name a derived "
            "device, e.g. system.device=derived-n5)",
            sc->system.device.name);
        return -1;
    }
    Budget *b = &g->cand.system.device.derive.budget;
    static const int all[TP_COUNT] = {TP_REG, TP_L1, TP_L2, TP_CORE, TP_DRAM, TP_INTRA, TP_INTER};
    static const int edge[3] = {TP_DRAM, TP_INTRA, TP_INTER};
    if (sc->codesign == CODESIGN_AREA || sc->codesign == CODESIGN_SPLITS || sc->codesign == CODESIGN_ALL)
        add_simplex(g, b->area, all, TP_COUNT);
    if (sc->codesign == CODESIGN_POWER || sc->codesign == CODESIGN_SPLITS || sc->codesign == CODESIGN_ALL)
        add_simplex(g, b->power, all, TP_COUNT);
    if (sc->codesign == CODESIGN_ALL)
        add_simplex(g, b->perimeter, edge, 3);

    /* the starting design first: its figures are the baseline of the gain */
    const Budget start = *b;
    double start_s = NAN, start_e = NAN;
    if (try_point(g)) {
        start_s = merit_time(merit_of(&g->t));
        start_e = isfinite(g->t.energy_to_train_j) ? g->t.energy_to_train_j : g->t.energy_per_step_j;
    }
    uint64_t state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uint32_t)sc->codesign_seed;
    const int starts = sc->codesign_starts > 0 ? sc->codesign_starts : 1;
    for (int k = 0; k < starts; k++) {
        *b = start;
        if (k > 0)
            for (int i = 0; i < g->ns; i++)
                random_split(&g->s[i], &state);
        pattern_search(g);
    }
    int rc = 0;
    if (g->have) {
        *r = g->best;
        r->design_budget = g->best_budget;
    } else {
        memset(r, 0, sizeof *r);
        r->status = STATUS_ERROR;
        char msg[sizeof g->first_err + 80];
        snprintf(msg, sizeof msg, "codesign: no split of the budget gives a feasible design (%s)",
                 g->first_err[0] ? g->first_err : "every point failed");
        text_copy(r->error, sizeof r->error, msg);
        snprintf(r->error_key, sizeof r->error_key, "codesign");
        rc = -1;
    }
    r->design_evals = g->evals;
    r->design_start_s = start_s;
    r->design_start_energy_j = start_e;
    free(g);
    return rc;
}
