/* scripts/bench_gemm.c — how many GEMM cost evaluations per second
 * (perf/gemm.c) one thread does on an A100-SXM4-80GB, without the memo
 * (every call runs the tile search) and with it (a pool of 256 shapes, as a
 * model's layers repeat a handful of GEMMs).  Wall clock, CLOCK_MONOTONIC. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "perf/perf.h"

#define CALLS 1000000L
#define POOL 256

/* The A100 of tests/test_perf.c (datasheet figures, fitted fractions). */
static Device a100(void)
{
    Device d = {.name = "A100-SXM4-80GB"};
    d.matrix_flops[PREC_TF32] = 156e12;
    d.matrix_flops[PREC_FP16] = 312e12;
    d.matrix_flops[PREC_BF16] = 312e12;
    d.vector_flops = 19.5e12;
    d.sms = 108;
    d.clock_hz = 1.41e9;
    d.mem[MEM_REG].capacity_bytes = 256.0 * 1024;
    d.mem[MEM_L1].capacity_bytes = 164.0 * 1024;
    d.mem[MEM_L1].bw_bytes_per_s = 128.0 * 108 * 1.41e9;
    d.mem[MEM_L2].capacity_bytes = 40.0 * 1024 * 1024;
    d.mem[MEM_L2].bw_bytes_per_s = 5120.0 * 1.41e9;
    d.mem[MEM_HBM].capacity_bytes = 80.0 * 1024 * 1024 * 1024;
    d.mem[MEM_HBM].bw_bytes_per_s = 2.039e12;
    d.launch_s = 4e-6;
    d.matrix_eff = 0.87;
    d.vector_eff = 0.90;
    d.hbm_eff = 0.86;
    d.l2_eff = 0.817;
    return d;
}

typedef struct {
    int64_t batch, m, n, k;
    Precision p;
} Shape;

/* Deterministic varied shapes: dimensions from 1 to 65536, mostly
 * multiples of 64 as in transformer layers, some odd. */
static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static int64_t dim(uint64_t *s)
{
    int64_t v = (int64_t)(lcg(s) % 1024) + 1;
    return lcg(s) % 4 ? v * 64 : v * 7 + 1;
}

static void make_shapes(Shape *sh, long n, uint64_t seed)
{
    static const Precision precs[] = {PREC_BF16, PREC_FP16, PREC_TF32, PREC_FP32};
    for (long i = 0; i < n; i++) {
        sh[i].batch = (int64_t)(lcg(&seed) % 4) + 1;
        sh[i].m = dim(&seed);
        sh[i].n = dim(&seed);
        sh[i].k = dim(&seed);
        sh[i].p = precs[lcg(&seed) % 4];
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    Device dev = a100();
    enum { DISTINCT = 4096 };
    Shape *shapes = malloc(DISTINCT * sizeof *shapes);
    GemmCache *cache = malloc(sizeof *cache);
    if (!shapes || !cache) {
        fprintf(stderr, "bench_gemm: out of memory\n");
        free(shapes);
        free(cache);
        return 1;
    }
    make_shapes(shapes, DISTINCT, 42);

    double sum = 0.0;
    GemmCost c;
    double t0 = now_s();
    for (long i = 0; i < CALLS; i++) {
        const Shape *s = &shapes[i % DISTINCT];
        gemm_cost(&dev, s->p, s->batch, s->m, s->n, s->k, NULL, &c);
        sum += c.time_s;
    }
    double t_nocache = now_s() - t0;

    gemm_cache_init(cache);
    t0 = now_s();
    for (long i = 0; i < CALLS; i++) {
        const Shape *s = &shapes[i % POOL];
        gemm_cost(&dev, s->p, s->batch, s->m, s->n, s->k, cache, &c);
        sum += c.time_s;
    }
    double t_cache = now_s() - t0;

    printf("gemm_cost on %s, %ld calls each (checksum %.6g s)\n", dev.name, CALLS, sum);
    printf("  no cache:            %.3g evaluations/s (%.0f ns each)\n", CALLS / t_nocache,
           t_nocache / CALLS * 1e9);
    printf("  cache, %d shapes:   %.3g evaluations/s (%.0f ns each; %ld hits, %ld misses)\n",
           POOL, CALLS / t_cache, t_cache / CALLS * 1e9, cache->hits, cache->misses);
    free(shapes);
    free(cache);
    return 0;
}
