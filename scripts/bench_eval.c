/* scripts/bench_eval.c — evaluations per second of the whole model
 * (evaluate(): graph, GEMM tiles, networks, schedule, memory, power and
 * DVFS, time-to-train) on shipped templates, one thread:
 *   1. GPT-3 175B on 1,024 A100s, a fixed strategy, with a warm GEMM memo
 *      (what a search or a sweep pays per point);
 *   2. the same without the memo (a cold scenario);
 *   3. the strategy search for that scenario (tp, pp, microbatch,
 *      interleave and recompute all 'auto'): strategies per second.
 * Run from the repository root (it reads templates/).  CLOCK_MONOTONIC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch/evaluate.h"
#include "io/scenario.h"
#include "io/template.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int build(TemplateDB *db, Scenario *sc, const char *const *kv, int n)
{
    ScenarioSource src;
    Diag d;
    diag_clear(&d);
    int rc = scenario_build_kv(db, "bench", kv, NULL, n, sc, &src, &d);
    scenario_source_free(&src);
    if (rc)
        fprintf(stderr, "bench_eval: %s\n", d.msg);
    return rc;
}

int main(void)
{
    TemplateDB db;
    Diag d;
    if (tdb_init(&db, "templates", &d)) {
        fprintf(stderr, "bench_eval: run from the repository root (%s)\n", d.msg);
        return 1;
    }
    static const char *const fixed[] = {"system=dgx-a100-80g", "model=gpt3-175b", "devices=1024", "tp=8",
                                        "pp=16", "microbatch=1", "global_batch=1536", "recompute=full"};
    static const char *const open[] = {"system=dgx-a100-80g", "model=gpt3-175b", "devices=1024", "tp=auto",
                                       "pp=auto", "microbatch=auto", "global_batch=1536", "recompute=auto",
                                       "interleave=auto"};
    Scenario sc, so;
    if (build(&db, &sc, fixed, 8) || build(&db, &so, open, 9))
        return 1;
    GemmCache *cache = malloc(sizeof *cache);
    if (!cache)
        return 1;
    gemm_cache_init(cache);
    Result r;
    const int warm = 20000, cold = 2000, searches = 20;
    double t0 = now();
    for (int i = 0; i < warm; i++)
        evaluate_cached(&sc, cache, &r);
    double t1 = now();
    for (int i = 0; i < cold; i++)
        evaluate_cached(&sc, NULL, &r);
    double t2 = now();
    long strategies = 0;
    for (int i = 0; i < searches; i++) {
        evaluate_cached(&so, cache, &r);
        strategies += r.searched;
    }
    double t3 = now();
    printf("bench_eval: scenario, warm memo: %8.0f evaluations/s (%.1f us each; %.2f M per core-minute)\n",
           warm / (t1 - t0), 1e6 * (t1 - t0) / warm, 60e-6 * warm / (t1 - t0));
    printf("bench_eval: scenario, no memo:   %8.0f evaluations/s (%.1f us each)\n", cold / (t2 - t1),
           1e6 * (t2 - t1) / cold);
    printf("bench_eval: search:              %8.0f strategies/s (%ld strategies in %d searches, %.1f ms "
           "each)\n",
           strategies / (t3 - t2), strategies, searches, 1e3 * (t3 - t2) / searches);
    free(cache);
    tdb_free(&db);
    return 0;
}
