/* search/search.c — exhaustive search over the strategies a scenario leaves
 * open.  The space is small for one scenario (divisors of the device count
 * for tp and pp, powers of two for the microbatch, three recompute modes,
 * a few interleave factors): at microseconds per evaluation, a few hundred
 * candidates cost about a millisecond, so no pruning heuristic is needed
 * and the answer is the true optimum of the model. */
#include "search.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/strategy.h"

int search_needed(const Scenario *sc)
{
    return sc->tp == AUTO_VALUE || sc->pp == AUTO_VALUE || sc->dp == AUTO_VALUE || sc->dp == 0 ||
           sc->microbatch == AUTO_VALUE || sc->interleave == AUTO_VALUE || (int)sc->recompute == AUTO_VALUE ||
           (int)sc->placement == AUTO_VALUE || sc->replica_batch == AUTO_VALUE;
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

/* Better: faster to train (or per sample), then less energy. */
static int better(const Result *a, const Result *b)
{
    double ta = isfinite(a->time_to_train_s) ? a->time_to_train_s : a->step_time_s / a->samples_per_s;
    double tb = isfinite(b->time_to_train_s) ? b->time_to_train_s : b->step_time_s / b->samples_per_s;
    if (isfinite(a->time_to_train_s) != isfinite(b->time_to_train_s))
        return isfinite(a->time_to_train_s);
    if (ta != tb)
        return ta < tb;
    double ea = isfinite(a->energy_to_train_j) ? a->energy_to_train_j : a->energy_per_step_j;
    double eb = isfinite(b->energy_to_train_j) ? b->energy_to_train_j : b->energy_per_step_j;
    return ea < eb;
}

/* replica_batch = auto: the best of the powers of two from 1 to
 * REPLICA_MAX samples per replica (a team tunes the per-device batch of
 * data parallelism too: the baseline must be the best of it), each with
 * the rest of the strategy searched. */
#define REPLICA_MAX 1024

static int search_replica(const Scenario *sc, SearchEval eval, GemmCache *cache, Result *r)
{
    Result best, t;
    int have = 0, count = 0;
    char last[256] = "";
    for (int rb = 1; rb <= REPLICA_MAX; rb *= 2) {
        Scenario c = *sc;
        c.replica_batch = rb;
        c.global_batch = c.dp > 0 ? (int64_t)rb * c.dp : 0;
        int rc = search_needed(&c) ? search_strategy(&c, eval, cache, &t) : eval(&c, cache, &t);
        count += t.searched > 0 ? t.searched : 1;
        if (rc == 0 && t.status == STATUS_OK) {
            if (!have || better(&t, &best))
                best = t;
            have = 1;
        } else if (t.error[0]) {
            snprintf(last, sizeof last, "%s", t.error);
        }
    }
    if (!have) {
        memset(r, 0, sizeof *r);
        r->status = STATUS_ERROR;
        snprintf(r->error, sizeof r->error, "no replica batch from 1 to %d gives a strategy that fits%s%s",
                 REPLICA_MAX, last[0] ? ": " : "", last);
        r->searched = count;
        return -1;
    }
    *r = best;
    r->searched = count;
    return 0;
}

int search_strategy(const Scenario *sc, SearchEval eval, GemmCache *cache, Result *r)
{
    if (sc->replica_batch == AUTO_VALUE)
        return search_replica(sc, eval, cache, r);
    int tps[MAX_CHOICES], pps[MAX_CHOICES], mbs[MAX_CHOICES], vs[8], rcs[3];
    int ntp, npp, nmb = 0, nv = 0, nrc = 0;
    const int n = sc->devices;
    ntp = sc->tp == AUTO_VALUE ? divisors(n, 64, tps) : (tps[0] = sc->tp, 1);
    if (sc->recompute == (Recompute)AUTO_VALUE) {
        rcs[nrc++] = RECOMPUTE_NONE;
        rcs[nrc++] = RECOMPUTE_SELECTIVE;
        rcs[nrc++] = RECOMPUTE_FULL;
    } else {
        rcs[nrc++] = sc->recompute;
    }
    /* every rank order when the placement is open (pipeline neighbours in
     * one node, tensor groups across nodes, ...) */
    const int npl = sc->placement == (Placement)AUTO_VALUE ? PLACE_COUNT : 1;
    if (sc->interleave == AUTO_VALUE) {
        static const int cand[] = {1, 2, 3, 4, 6, 8};
        for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
            vs[nv++] = cand[i];
    } else {
        vs[nv++] = sc->interleave;
    }
    if (sc->microbatch == AUTO_VALUE) {
        for (int b = 1; b <= 1024 && nmb < MAX_CHOICES; b *= 2)
            if (sc->replica_batch <= 0 || (b <= sc->replica_batch && sc->replica_batch % b == 0))
                mbs[nmb++] = b;
    } else {
        mbs[nmb++] = sc->microbatch;
    }

    int have = 0, have_oom = 0, count = 0;
    Result best, best_oom, t;
    char last_err[256] = "";
    for (int i = 0; i < ntp; i++) {
        const int tp = tps[i];
        if (n % tp)
            continue;
        npp = sc->pp == AUTO_VALUE ? divisors(n / tp, layer_units(&sc->model), pps) : (pps[0] = sc->pp, 1);
        for (int j = 0; j < npp; j++) {
            const int pp = pps[j];
            const int mp = tp * pp;
            if (n % mp || mp < sc->min_mp || mp > sc->max_mp)
                continue;
            const int dp = (sc->dp > 0) ? sc->dp : n / mp;
            if ((long)tp * pp * dp != n)
                continue;
            for (int k = 0; k < nmb; k++) {
                const int mb = mbs[k];
                /* an explicit global batch stays; a replica batch scales
                 * with dp; else one microbatch per replica */
                int64_t gb = sc->global_batch > 0 && !sc->replica_batch ? sc->global_batch
                             : sc->replica_batch > 0                    ? (int64_t)sc->replica_batch * dp
                                                                        : (int64_t)mb * dp;
                if (gb % ((int64_t)mb * dp)) {
                    snprintf(last_err, sizeof last_err,
                             "tp %d x pp %d leaves dp %d, and global_batch %lld is not a multiple of "
                             "microbatch %d x dp %d",
                             tp, pp, dp, (long long)gb, mb, dp);
                    continue;
                }
                for (int a = 0; a < nv; a++) {
                    if (vs[a] > 1 && pp == 1)
                        continue;
                    for (int c = 0; c < nrc * npl; c++) {
                        Scenario cand = *sc;
                        cand.placement =
                            sc->placement == (Placement)AUTO_VALUE ? (Placement)(c / nrc) : sc->placement;
                        cand.tp = tp;
                        cand.pp = pp;
                        cand.dp = dp;
                        cand.microbatch = mb;
                        cand.global_batch = gb;
                        cand.interleave = vs[a];
                        cand.recompute = (Recompute)rcs[c % nrc];
                        Diag d;
                        diag_clear(&d);
                        if (strategy_check(&cand, &d)) {
                            snprintf(last_err, sizeof last_err, "%s", d.msg);
                            continue;
                        }
                        count++;
                        if (eval(&cand, cache, &t)) {
                            snprintf(last_err, sizeof last_err, "%s", t.error);
                            continue;
                        }
                        if (t.status == STATUS_OK) {
                            if (!have || better(&t, &best))
                                best = t;
                            have = 1;
                        } else if (!have_oom || t.mem_total_bytes < best_oom.mem_total_bytes) {
                            best_oom = t;
                            have_oom = 1;
                        }
                    }
                }
            }
        }
    }
    if (have) {
        *r = best;
    } else if (have_oom) {
        *r = best_oom;
        snprintf(r->error, sizeof r->error, "no strategy fits in memory; the smallest needs %.1f GiB",
                 best_oom.mem_total_bytes / 1073741824.0);
    } else {
        memset(r, 0, sizeof *r);
        r->status = STATUS_ERROR;
        snprintf(r->error, sizeof r->error,
                 "the search found no strategy for %d devices with %d <= tp x pp <= %d%s%s", n, sc->min_mp,
                 sc->max_mp, last_err[0] ? "; the last one tried: " : "", last_err);
        r->searched = count;
        return -1;
    }
    r->searched = count;
    return 0;
}
