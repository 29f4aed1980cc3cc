/* tests/test_perf.c — the GEMM and memory-bound kernel models (perf/) on
 * A100-SXM4-80GB and H100-SXM5-80GB built from datasheet figures, against
 * the measurements in reference/hardware-facts.md §2 and the model's
 * invariants (wave quantisation, bandwidth scaling, monotonicity, memo,
 * determinism). */
#include "testutil.h"

#include <stdlib.h>

#include "perf/perf.h"

#define KiB 1024.0
#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * 1024.0 * 1024.0)

/* A100-SXM4-80GB.  hardware-facts §1: 108 SMs at 1.41 GHz, bf16 312 TFLOP/s,
 * tf32 156, fp32 vector 19.5; 192 KB L1 of which <= 164 KB shared (the
 * tiles live in shared memory), 256 KB registers per SM; 40 MB L2; 80 GB
 * HBM2e at 2,039 GB/s.  L1 bandwidth: 128 B/clk per SM (32 banks x 4 B) x
 * 108 x 1.41 GHz = 19.5 TB/s.  L2 bandwidth: 5,120 B/clk (A100 whitepaper)
 * x 1.41 GHz = 7.22 TB/s, which agrees with the 7,050 GB/s of DeepFlow's
 * own a100_80GB.yaml [GTC 2021].  Fitted: matrix_eff 0.87 = MAMF 271.2/312
 * (§2a); hbm_eff 0.86 = STREAM triad 1,759/2,039 (§2b); l2_eff 0.817, the
 * H100 fraction below (no A100 measurement at hand: an estimate);
 * vector_eff 0.90 (an estimate, only used by membound_time). */
static Device a100(void)
{
    Device d = {.name = "A100-SXM4-80GB"};
    d.matrix_flops[PREC_TF32] = 156e12;
    d.matrix_flops[PREC_FP16] = 312e12;
    d.matrix_flops[PREC_BF16] = 312e12;
    d.vector_flops = 19.5e12;
    d.sms = 108;
    d.clock_hz = 1.41e9;
    d.mem[MEM_REG].capacity_bytes = 256 * KiB;
    d.mem[MEM_L1].capacity_bytes = 164 * KiB;
    d.mem[MEM_L1].bw_bytes_per_s = 128.0 * 108 * 1.41e9;
    d.mem[MEM_L2].capacity_bytes = 40 * MiB;
    d.mem[MEM_L2].bw_bytes_per_s = 5120.0 * 1.41e9;
    d.mem[MEM_HBM].capacity_bytes = 80 * GiB;
    d.mem[MEM_HBM].bw_bytes_per_s = 2.039e12;
    d.launch_s = 4e-6;
    d.matrix_eff = 0.87;
    d.vector_eff = 0.90;
    d.hbm_eff = 0.86;
    d.l2_eff = 0.817;
    return d;
}

/* H100-SXM5-80GB.  hardware-facts §1: 132 SMs at 1.83 GHz (the tensor-peak
 * clock), bf16 989.4 TFLOP/s, tf32 494.7, fp8 1,978.9, fp32 vector 66.9;
 * 256 KB L1 of which <= 228 KB shared, 256 KB registers; 50 MB L2; 80 GB
 * HBM3 at 3.35 TB/s.  L1 bandwidth 128 B/clk x 132 x 1.83 GHz = 30.9 TB/s.
 * L2 bandwidth 8,138 GB/s (DeepFlow's H100_SXM5_80GB.yaml, "NCU L2 peak
 * traffic"); l2_eff = 6.65 / 8.138 = 0.817, 6.65 TB/s being the measured H100
 * L2 bandwidth in XLA's GPU dot cost model (openxla/xla,
 * xla/service/gpu/model/gpu_dot_fusion_cost_model.cc).  Fitted: matrix_eff
 * 0.80 = MAMF 794.5/989.4 (§2a); hbm_eff 0.90 (STREAM on H100 PCIe reaches
 * 92 %, §2b). */
static Device h100(void)
{
    Device d = {.name = "H100-SXM5-80GB"};
    d.matrix_flops[PREC_TF32] = 494.7e12;
    d.matrix_flops[PREC_FP16] = 989.4e12;
    d.matrix_flops[PREC_BF16] = 989.4e12;
    d.matrix_flops[PREC_FP8] = 1978.9e12;
    d.vector_flops = 66.9e12;
    d.sms = 132;
    d.clock_hz = 1.83e9;
    d.mem[MEM_REG].capacity_bytes = 256 * KiB;
    d.mem[MEM_L1].capacity_bytes = 228 * KiB;
    d.mem[MEM_L1].bw_bytes_per_s = 128.0 * 132 * 1.83e9;
    d.mem[MEM_L2].capacity_bytes = 50 * MiB;
    d.mem[MEM_L2].bw_bytes_per_s = 8.138e12;
    d.mem[MEM_HBM].capacity_bytes = 80 * GiB;
    d.mem[MEM_HBM].bw_bytes_per_s = 3.35e12;
    d.launch_s = 4e-6;
    d.matrix_eff = 0.80;
    d.vector_eff = 0.90;
    d.hbm_eff = 0.90;
    d.l2_eff = 6.65 / 8.138;
    return d;
}

static double gemm_flop(int64_t batch, int64_t m, int64_t n, int64_t k)
{
    return 2.0 * (double)batch * (double)m * (double)n * (double)k;
}

static void report(const char *what, const Device *d, int64_t m, int64_t n, int64_t k, const GemmCost *c)
{
    print_message("%s on %s: %lld x %lld x %lld: %.2f us, %.1f TFLOP/s, tile %dx%dx%d, "
                  "%.0f waves, %s-bound (compute %.2f, L1 %.2f, L2 %.2f, HBM %.2f us)\n",
                  what, d->name, (long long)m, (long long)n, (long long)k, c->time_s * 1e6,
                  gemm_flop(1, m, n, k) / c->time_s / 1e12, c->tile_m, c->tile_n, c->tile_k, c->waves,
                  bound_name(c->bound), c->compute_s * 1e6, c->level_s[MEM_L1] * 1e6,
                  c->level_s[MEM_L2] * 1e6, c->level_s[MEM_HBM] * 1e6);
}

static void assert_cost_equal(const GemmCost *a, const GemmCost *b)
{
    assert_true(a->time_s == b->time_s);
    assert_true(a->compute_s == b->compute_s);
    for (int l = 0; l < MEM_LEVELS; l++) {
        assert_true(a->level_s[l] == b->level_s[l]);
        assert_true(a->level_bytes[l] == b->level_bytes[l]);
    }
    assert_int_equal(a->bound, b->bound);
    assert_int_equal(a->tile_m, b->tile_m);
    assert_int_equal(a->tile_n, b->tile_n);
    assert_int_equal(a->tile_k, b->tile_k);
    assert_true(a->waves == b->waves);
}

/* 8192^3 bf16 is compute-bound and within 5 % of the fitted achievable rate
 * (MAMF: A100 271.2 TFLOP/s, H100 794.5; cuBLAS 8192^3 on H100 797.8). */
static void test_large_gemm_a100(void **state)
{
    (void)state;
    Device d = a100();
    GemmCost c;
    gemm_cost(&d, PREC_BF16, 1, 8192, 8192, 8192, NULL, &c);
    report("bf16", &d, 8192, 8192, 8192, &c);
    assert_int_equal(c.bound, BOUND_COMPUTE);
    assert_rel(gemm_flop(1, 8192, 8192, 8192) / c.time_s, 0.87 * 312e12, 0.05);
}

static void test_large_gemm_h100(void **state)
{
    (void)state;
    Device d = h100();
    GemmCost c;
    gemm_cost(&d, PREC_BF16, 1, 8192, 8192, 8192, NULL, &c);
    report("bf16", &d, 8192, 8192, 8192, &c);
    assert_int_equal(c.bound, BOUND_COMPUTE);
    assert_rel(gemm_flop(1, 8192, 8192, 8192) / c.time_s, 0.80 * 989.4e12, 0.05);
}

/* Skinny GEMMs on H100, bf16, N = 12288, K = 5376 (hardware-facts §2a,
 * vLLM #49363): M = 1 -> 2.87 TFLOP/s (46 us, bandwidth-bound), M = 16 ->
 * 46.5, M = 64 -> 182.6, M = 128 -> 352.6 TFLOP/s. */
static void test_skinny_gemm_h100(void **state)
{
    (void)state;
    Device d = h100();
    static const int64_t ms[] = {1, 16, 64, 128};
    static const double measured_tflops[] = {2.87, 46.5, 182.6, 352.6};
    for (int i = 0; i < 4; i++) {
        GemmCost c;
        gemm_cost(&d, PREC_BF16, 1, ms[i], 12288, 5376, NULL, &c);
        report("skinny bf16", &d, ms[i], 12288, 5376, &c);
        double tflops = gemm_flop(1, ms[i], 12288, 5376) / c.time_s / 1e12;
        print_message("  measured %.2f TFLOP/s (%.2f us): predicted/measured %.3f\n", measured_tflops[i],
                      gemm_flop(1, ms[i], 12288, 5376) / measured_tflops[i] / 1e12 * 1e6,
                      tflops / measured_tflops[i]);
        assert_int_equal(c.bound, BOUND_HBM);
        assert_true(tflops < 1.5 * measured_tflops[i] && tflops > measured_tflops[i] / 1.5);
    }
    GemmCost c1;
    gemm_cost(&d, PREC_BF16, 1, 1, 12288, 5376, NULL, &c1);
    assert_rel(c1.time_s, 46e-6, 0.25);
}

/* fp32 runs on the vector units (A100 has no fp32 matrix rate): the SIMT
 * kernels' tiles, at most 128 wide, down to 32 columns.  A recurrent step
 * (N = 16) pays for 32 columns there, where the tensor-core kernels of the
 * same shape in fp16 pay for 64; a large fp32 GEMM keeps 128 x 128. */
static void test_simt_tiles(void **state)
{
    (void)state;
    Device d = a100();
    GemmCost f32, f16, big;
    gemm_cost(&d, PREC_FP32, 1, 8192, 16, 2048, NULL, &f32);
    gemm_cost(&d, PREC_FP16, 1, 8192, 16, 2048, NULL, &f16);
    gemm_cost(&d, PREC_FP32, 1, 8192, 8192, 8192, NULL, &big);
    report("fp32", &d, 8192, 16, 2048, &f32);
    assert_int_equal(f32.tile_n, 32);
    assert_int_equal(f32.tile_m, 128);
    assert_int_equal(f32.tile_k, 8);
    assert_true(f16.tile_n >= 64);
    assert_int_equal(big.tile_m, 128);
    assert_int_equal(big.tile_n, 128);
    /* compute-bound at the vector rate, within the wave quantisation */
    assert_rel(gemm_flop(1, 8192, 8192, 8192) / big.time_s, 0.90 * 19.5e12, 0.05);
}

/* Wave quantisation (NVIDIA, "Matrix Multiplication Background"): with the
 * tile fixed, 109 tiles on 108 SMs take two waves, twice the compute time of
 * 108 tiles.  The A100 here has no per-SM memory, so only the smallest tile
 * (64 x 64 x 32) is used and cannot change between the two shapes. */
static void test_wave_quantisation(void **state)
{
    (void)state;
    Device d = a100();
    d.mem[MEM_L1].capacity_bytes = 0.0;
    d.mem[MEM_REG].capacity_bytes = 0.0;
    GemmCost c108, c109;
    gemm_cost(&d, PREC_BF16, 1, 108 * 64, 64, 8192, NULL, &c108);
    gemm_cost(&d, PREC_BF16, 1, 109 * 64, 64, 8192, NULL, &c109);
    assert_int_equal(c108.tile_m, 64);
    assert_int_equal(c108.tile_n, 64);
    assert_int_equal(c108.tile_k, 32);
    assert_int_equal(c109.tile_m, 64);
    assert_true(c108.waves == 1.0);
    assert_true(c109.waves == 2.0);
    assert_rel(c109.compute_s, 2.0 * c108.compute_s, 1e-12);

    /* The same with batch instead of rows. */
    gemm_cost(&d, PREC_BF16, 108, 64, 64, 8192, NULL, &c108);
    gemm_cost(&d, PREC_BF16, 109, 64, 64, 8192, NULL, &c109);
    assert_rel(c109.compute_s, 2.0 * c108.compute_s, 1e-12);

    /* On the real A100 a compute-bound shape of exactly 108 tiles of
     * 256 x 256 (12 x 9) runs in one wave; one row more needs a 13th row of
     * tiles, and the best tiling is then clearly slower than the 0.03 %
     * extra work a plain roofline would charge. */
    Device a = a100();
    GemmCost full, plus1;
    gemm_cost(&a, PREC_BF16, 1, 12 * 256, 9 * 256, 8192, NULL, &full);
    gemm_cost(&a, PREC_BF16, 1, 12 * 256 + 1, 9 * 256, 8192, NULL, &plus1);
    report("108 tiles", &a, 12 * 256, 9 * 256, 8192, &full);
    report("108 tiles + 1 row", &a, 12 * 256 + 1, 9 * 256, 8192, &plus1);
    assert_int_equal(full.bound, BOUND_COMPUTE);
    int64_t tiles =
        ((12 * 256 + full.tile_m - 1) / full.tile_m) * ((9 * 256 + full.tile_n - 1) / full.tile_n);
    assert_int_equal(tiles % 108, 0);
    assert_true(full.waves == (double)(tiles / 108));
    assert_true(plus1.time_s > 1.05 * full.time_s);
}

/* A memory-bound kernel: doubling HBM bandwidth halves the time less launch. */
static void test_membound_bandwidth(void **state)
{
    (void)state;
    Device d = a100();
    double bytes = 3.0e9;
    double t1 = membound_time(&d, bytes, 1e6);
    Device d2 = d;
    d2.mem[MEM_HBM].bw_bytes_per_s *= 2.0;
    double t2 = membound_time(&d2, bytes, 1e6);
    assert_rel(t2 - d.launch_s, (t1 - d.launch_s) / 2.0, 1e-12);
    assert_rel(t1, bytes / (2.039e12 * 0.86) + 4e-6, 1e-12);

    /* Zero terms: launch only; flops only on the vector units. */
    assert_rel(membound_time(&d, 0.0, 0.0), d.launch_s, 1e-15);
    assert_rel(membound_time(&d, 0.0, 1.755e12), 0.1 + d.launch_s, 1e-12);
    /* The larger term wins. */
    assert_rel(membound_time(&d, 1e9, 1e15), 1e15 / (19.5e12 * 0.9) + d.launch_s, 1e-12);
}

/* Doubling HBM bandwidth also halves the HBM term of a GEMM, and a skinny
 * (HBM-bound) GEMM's time less launch. */
static void test_gemm_hbm_scaling(void **state)
{
    (void)state;
    Device d = h100();
    Device d2 = d;
    d2.mem[MEM_HBM].bw_bytes_per_s *= 2.0;
    GemmCost c1, c2;
    gemm_cost(&d, PREC_BF16, 1, 1, 12288, 5376, NULL, &c1);
    gemm_cost(&d2, PREC_BF16, 1, 1, 12288, 5376, NULL, &c2);
    assert_int_equal(c1.bound, BOUND_HBM);
    assert_int_equal(c2.bound, BOUND_HBM);
    assert_rel(c2.level_s[MEM_HBM], c1.level_s[MEM_HBM] / 2.0, 1e-12);
    assert_rel(c2.time_s - d.launch_s, (c1.time_s - d.launch_s) / 2.0, 1e-12);
}

/* Larger k never takes less time; a second batch entry never less. */
static void test_monotonic(void **state)
{
    (void)state;
    Device devs[2] = {a100(), h100()};
    static const int64_t dims[] = {1, 7, 64, 100, 128, 1000, 1024, 3000, 4096, 12288};
    static const Precision precs[] = {PREC_BF16, PREC_FP32, PREC_FP8, PREC_TF32};
    int nd = (int)(sizeof dims / sizeof dims[0]);
    for (int di = 0; di < 2; di++)
        for (int pi = 0; pi < 4; pi++)
            for (int i = 0; i < nd; i++)
                for (int j = 0; j < nd; j++) {
                    double prev = 0.0;
                    for (int64_t k = 1; k <= 65536; k = k * 3 + 1) {
                        GemmCost c, cb;
                        gemm_cost(&devs[di], precs[pi], 1, dims[i], dims[j], k, NULL, &c);
                        assert_true(c.time_s >= prev);
                        assert_true(c.time_s > 0.0 && isfinite(c.time_s));
                        prev = c.time_s;
                        gemm_cost(&devs[di], precs[pi], 2, dims[i], dims[j], k, NULL, &cb);
                        assert_true(cb.time_s >= c.time_s);
                    }
                }
}

/* The memo: a second call hits and returns the identical result; results
 * with and without a cache agree; many shapes (more than the slots) stay
 * right under eviction. */
static void test_memo(void **state)
{
    (void)state;
    Device d = a100();
    GemmCache *cache = malloc(sizeof *cache);
    assert_non_null(cache);
    gemm_cache_init(cache);
    GemmCost a, b, ref;
    gemm_cost(&d, PREC_BF16, 4, 2048, 1536, 4096, cache, &a);
    assert_int_equal(cache->misses, 1);
    assert_int_equal(cache->hits, 0);
    gemm_cost(&d, PREC_BF16, 4, 2048, 1536, 4096, cache, &b);
    assert_int_equal(cache->misses, 1);
    assert_int_equal(cache->hits, 1);
    assert_cost_equal(&a, &b);
    gemm_cost(&d, PREC_BF16, 4, 2048, 1536, 4096, NULL, &ref);
    assert_cost_equal(&a, &ref);

    /* Same shape, other precision or device: different keys. */
    Device h = h100();
    gemm_cost(&d, PREC_FP16, 4, 2048, 1536, 4096, cache, &b);
    gemm_cost(&h, PREC_BF16, 4, 2048, 1536, 4096, cache, &b);
    assert_int_equal(cache->misses, 3);

    for (int rep = 0; rep < 2; rep++)
        for (int64_t i = 1; i <= 3000; i++) {
            int64_t m = 64 * (1 + i % 37), n = 128 * (1 + i % 23), k = 256 + i;
            gemm_cost(&d, PREC_BF16, 1, m, n, k, cache, &a);
            gemm_cost(&d, PREC_BF16, 1, m, n, k, NULL, &ref);
            assert_cost_equal(&a, &ref);
        }
    free(cache);
}

/* The memo holds GEMM_CACHE_DEVICES devices at once: going back to one
 * still held hits; a device more evicts the one used longest ago, and its
 * shapes are costed afresh, identical to an uncached call. */
static void test_memo_devices(void **state)
{
    (void)state;
    GemmCache *cache = malloc(sizeof *cache);
    assert_non_null(cache);
    gemm_cache_init(cache);
    Device dev[GEMM_CACHE_DEVICES + 1];
    for (int i = 0; i <= GEMM_CACHE_DEVICES; i++) {
        dev[i] = h100();
        dev[i].matrix_eff *= 1.0 - 0.01 * i; /* a device of its own for the memo */
    }
    GemmCost c, ref;
    for (int i = 0; i < GEMM_CACHE_DEVICES; i++)
        gemm_cost(&dev[i], PREC_BF16, 1, 4096, 4096, 4096, cache, &c);
    assert_int_equal(cache->misses, GEMM_CACHE_DEVICES);
    for (int i = 0; i < GEMM_CACHE_DEVICES; i++) { /* every one still held */
        gemm_cost(&dev[i], PREC_BF16, 1, 4096, 4096, 4096, cache, &c);
        gemm_cost(&dev[i], PREC_BF16, 1, 4096, 4096, 4096, NULL, &ref);
        assert_cost_equal(&c, &ref);
    }
    assert_int_equal(cache->hits, GEMM_CACHE_DEVICES);
    /* one more device takes the place of device 0, the one used longest ago */
    gemm_cost(&dev[GEMM_CACHE_DEVICES], PREC_BF16, 1, 4096, 4096, 4096, cache, &c);
    assert_int_equal(cache->misses, GEMM_CACHE_DEVICES + 1);
    gemm_cost(&dev[1], PREC_BF16, 1, 4096, 4096, 4096, cache, &c);
    assert_int_equal(cache->hits, GEMM_CACHE_DEVICES + 1);
    gemm_cost(&dev[0], PREC_BF16, 1, 4096, 4096, 4096, cache, &c);
    assert_int_equal(cache->misses, GEMM_CACHE_DEVICES + 2);
    gemm_cost(&dev[0], PREC_BF16, 1, 4096, 4096, 4096, NULL, &ref);
    assert_cost_equal(&c, &ref);
    free(cache);
}

/* Two fresh caches give identical results, call after call. */
static void test_determinism(void **state)
{
    (void)state;
    Device d = h100();
    GemmCache *c1 = malloc(sizeof *c1);
    GemmCache *c2 = malloc(sizeof *c2);
    assert_non_null(c1);
    assert_non_null(c2);
    gemm_cache_init(c1);
    gemm_cache_init(c2);
    for (int64_t i = 0; i < 200; i++) {
        GemmCost a, b;
        int64_t m = 1 + 97 * i, n = 4096 - 13 * i, k = 512 + 31 * i;
        gemm_cost(&d, (Precision)(i % PREC_COUNT), 1 + i % 3, m, n, k, c1, &a);
        gemm_cost(&d, (Precision)(i % PREC_COUNT), 1 + i % 3, m, n, k, c2, &b);
        assert_cost_equal(&a, &b);
    }
    assert_true(c1->misses == c2->misses && c1->hits == c2->hits);
    free(c1);
    free(c2);
}

/* Unsupported precisions fall back: fp8 on A100 runs at the bf16 rate; fp32
 * (no fp32 matrix rate) on the vector units. */
static void test_precision_fallback(void **state)
{
    (void)state;
    Device d = a100();
    GemmCost c8, c16, c32;
    gemm_cost(&d, PREC_FP8, 1, 8192, 8192, 8192, NULL, &c8);
    gemm_cost(&d, PREC_BF16, 1, 8192, 8192, 8192, NULL, &c16);
    gemm_cost(&d, PREC_FP32, 1, 8192, 8192, 8192, NULL, &c32);
    assert_rel(c8.compute_s / c8.waves / ((double)c8.tile_m * c8.tile_n),
               c16.compute_s / c16.waves / ((double)c16.tile_m * c16.tile_n), 1e-12);
    assert_int_equal(c32.bound, BOUND_COMPUTE);
    assert_rel(gemm_flop(1, 8192, 8192, 8192) / c32.time_s, 19.5e12 * 0.9, 0.05);
    /* fp8 moves half the bytes of bf16 through HBM (output stays 2 B). */
    assert_true(c8.level_bytes[MEM_HBM] < c16.level_bytes[MEM_HBM]);
}

/* Tiny GEMMs are launch-bound; empty ones cost nothing; the names. */
static void test_launch_and_names(void **state)
{
    (void)state;
    Device d = h100();
    GemmCost c;
    gemm_cost(&d, PREC_BF16, 1, 8, 8, 8, NULL, &c);
    assert_int_equal(c.bound, BOUND_LAUNCH);
    assert_true(c.time_s >= d.launch_s);
    gemm_cost(&d, PREC_BF16, 1, 0, 8, 8, NULL, &c);
    assert_true(c.time_s == 0.0);
    assert_string_equal(bound_name(BOUND_COMPUTE), "compute");
    assert_string_equal(bound_name(BOUND_L1), "L1");
    assert_string_equal(bound_name(BOUND_L2), "L2");
    assert_string_equal(bound_name(BOUND_HBM), "HBM");
    assert_string_equal(bound_name(BOUND_LAUNCH), "launch");
    assert_string_equal(bound_name(BOUND_COUNT), "?");
}

/* The traffic at each level: L1 >= L2 panel traffic >= HBM >= compulsory. */
static void test_level_bytes(void **state)
{
    (void)state;
    Device d = a100();
    GemmCost c;
    gemm_cost(&d, PREC_BF16, 1, 8192, 8192, 8192, NULL, &c);
    double compulsory = (3.0 * 8192 * 8192) * 2.0;
    assert_true(c.level_bytes[MEM_HBM] >= compulsory);
    assert_true(c.level_bytes[MEM_L2] >= c.level_bytes[MEM_HBM]);
    assert_true(c.level_bytes[MEM_L1] + 8192.0 * 8192 * 2 >= c.level_bytes[MEM_L2]);
    assert_true(c.level_bytes[MEM_REG] == 0.0 && c.level_s[MEM_REG] == 0.0);
    /* A problem that fits in L2 reads each byte from HBM once. */
    gemm_cost(&d, PREC_BF16, 1, 1024, 1024, 1024, NULL, &c);
    assert_rel(c.level_bytes[MEM_HBM], 3.0 * 1024 * 1024 * 2, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_gemm_a100),    cmocka_unit_test(test_large_gemm_h100),
        cmocka_unit_test(test_skinny_gemm_h100),   cmocka_unit_test(test_wave_quantisation),
        cmocka_unit_test(test_membound_bandwidth), cmocka_unit_test(test_gemm_hbm_scaling),
        cmocka_unit_test(test_monotonic),          cmocka_unit_test(test_memo),
        cmocka_unit_test(test_memo_devices),       cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_precision_fallback), cmocka_unit_test(test_launch_and_names),
        cmocka_unit_test(test_level_bytes),        cmocka_unit_test(test_simt_tiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
