/* perf/gemm.c — time of one GEMM on one device: tiles, waves and the
 * traffic at each memory level (DeepFlow §III).  Seconds, bytes, FLOP.
 *
 * C[batch][m x n] = A[batch][m x k] . B[batch][k x n], output-stationary:
 * every thread block (one per SM at a time) owns a Tm x Tn tile of C, keeps
 * its accumulator in registers and walks k in steps of Tk, staging Tm x Tk
 * and Tk x Tn slabs of A and B in shared memory (double-buffered).
 *
 * For each candidate tile (a fixed list, largest first: the matrix units'
 * tiles, or the SIMT kernels' narrower ones for a GEMM on the vector units;
 * no random sampling, unlike DeepFlow's implementation) the time is
 * DeepFlow's hierarchical
 * roofline (Ardalani, Pal, Gupta, "DeepFlow", §III: the kernel time is the
 * largest of its compute time and the time each memory level needs for the
 * bytes it moves):
 *
 *   t = max(compute, L1, L2, HBM) + launch
 *
 * and the chosen tile is the one with the smallest t (ties: the larger
 * tile).  Registers are not modelled: level_s[MEM_REG] and
 * level_bytes[MEM_REG] are 0 (the accumulator never leaves the register
 * file inside the k loop, and operand reads from registers are not a
 * bottleneck of a tensor-core GEMM).
 *
 *   compute  waves = ceil(tiles / sms), tiles = batch * ceil(m/Tm) *
 *            ceil(n/Tn): wave quantisation and tile quantisation as in
 *            NVIDIA's "Matrix Multiplication Background" user guide (a
 *            partial tile costs a full tile, a partial wave a full wave);
 *            compute = waves * 2 * Tm * Tn * ceil(k/Tk)*Tk / (rate / sms),
 *            rate = matrix peak * matrix_eff (the fitted large-GEMM
 *            fraction, MAMF).
 *   L1       shared memory -> registers/tensor cores: each tile reads its
 *            whole A panel (Tm x K) and B panel (K x Tn) once, padding
 *            included (the MMAs run on whole tiles):
 *            tiles * (Tm + Tn) * ceil(k/Tk)*Tk * elem, at the aggregate L1
 *            bandwidth (no fitted fraction exists for L1).
 *   L2       L2 -> shared memory: every tile loads its panels from L2 (as
 *            XLA's GPU dot cost model does, gpu_dot_fusion_cost_model.cc
 *            CalculateL2Bytes), but only the rows that exist: loads of a
 *            partial tile are predicated off / zero-filled by the copy
 *            engine, so A is read ceil(n/Tn) times and B ceil(m/Tm) times:
 *            batch * (ceil(n/Tn) * m + ceil(m/Tm) * n) * k * elem, plus the
 *            output m * n * batch * elem_out written through L2; at
 *            L2 bandwidth * l2_eff.
 *   HBM      the L2 holds the panels of the tiles that run at once: an
 *            L2 block of Bm x Bn tiles, Bm * Bn ~ min(sms, tiles of one
 *            batch entry), square-ish (tile rasterisation / swizzling),
 *            shrunk until its panels (Bm*Tm + Bn*Tn) x K fit in the L2
 *            capacity.  A is then read ceil(n/(Bn*Tn)) times and B
 *            ceil(m/(Bm*Tm)) times:
 *            batch * (m*k*elem * ceil(n/(Bn Tn)) + k*n*elem * ceil(m/(Bm Tm)))
 *            + batch * m * n * elem_out, never less than the compulsory
 *            traffic batch * ((m*k + k*n) * elem + m*n*elem_out), and only
 *            the compulsory traffic when A, B and C of the batch entries in
 *            flight at once fit in L2; at HBM bandwidth * hbm_eff.
 *
 * Bytes per element: fp32 and tf32 4, fp16 and bf16 2, fp8 1; the output has
 * the input precision except fp8, whose output is bf16 (2 bytes).
 *
 * Rate of an unsupported precision (matrix_flops[p] == 0): the next wider
 * supported one, fp8 -> bf16 -> fp16 -> tf32 -> fp32 (fp16 and bf16 go
 * straight to tf32, then fp32), as a framework would upcast; the element
 * sizes stay those of p.  When no matrix rate applies (fp32 on NVIDIA GPUs)
 * the GEMM runs on the vector units at vector_flops * vector_eff.
 *
 * Degenerate inputs: a shape with a dimension < 1 does no work and costs 0
 * (no launch).  An L1 or L2 bandwidth <= 0 means that level is not
 * modelled (0 s); an HBM bandwidth or compute rate <= 0 gives an infinite
 * time.  sms < 1 is taken as 1.
 *
 * Bound: the largest of the four terms (compute first among equals), or
 * launch when launch_s exceeds all of them.
 *
 * Pure and thread-safe: no state but const tables and the caller's cache.
 * Memo: GemmCache, caller-owned (one per thread), open addressing over (batch, m, n, k,
 * precision) for the one device whose copy the cache holds; a call with a
 * device that differs in any field empties it first. */
#include "perf.h"

#include <string.h>

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int m, n, k;
} Tile;

/* Candidate thread-block tiles, largest first (by Tm*Tn, then Tm, then Tk),
 * so that among equal times the first, larger tile wins.  A tile is a
 * candidate when its double-buffered A and B slabs, 2 (Tm Tk + Tk Tn) elem,
 * fit the per-SM L1 (shared memory) capacity and its fp32 accumulator,
 * Tm Tn 4 bytes, fits the per-SM register file; when none fits, the smallest
 * tile alone is used.  256 x 256 (an accumulator as large as a 256 KiB
 * register file) also stands for Hopper's 2-CTA clusters of 128 x 256 tiles,
 * whose TMA multicast gives them the L2 traffic of one 256 x 256 tile. */
static const Tile GEMM_TILES[] = {
    {256, 256, 64}, {256, 256, 32}, {256, 128, 64}, {256, 128, 32}, {128, 256, 64}, {128, 256, 32},
    {256, 64, 64},  {256, 64, 32},  {128, 128, 64}, {128, 128, 32}, {64, 256, 64},  {64, 256, 32},
    {128, 64, 64},  {128, 64, 32},  {64, 128, 64},  {64, 128, 32},  {64, 64, 64},   {64, 64, 32},
};
#define GEMM_NTILES ((int)(sizeof GEMM_TILES / sizeof GEMM_TILES[0]))

/* Thread-block tiles of a GEMM on the vector units (fp32 FMA, no matrix
 * rate): the SIMT sgemm kernels, largest first.  CUTLASS's SIMT generator
 * (NVIDIA/cutlass python/cutlass_library/generator.py, GenerateSM50_Simt)
 * emits 128x128, 128x64, 64x128, 64x64, 128x32 and 32x128 with k steps of
 * 8; cuBLAS's Volta kernels carry the same names (volta_sgemm_128x32_nn,
 * ...).  No 256-wide tile (its accumulator would fill the register file),
 * and a 32-wide one where the matrix kernels' smallest is 64: a recurrent
 * step's or a small batch's GEMM pays for 32 columns, not 64. */
static const Tile SIMT_TILES[] = {
    {128, 128, 8}, {128, 64, 8}, {64, 128, 8}, {64, 64, 8}, {128, 32, 8}, {32, 128, 8},
};
#define SIMT_NTILES ((int)(sizeof SIMT_TILES / sizeof SIMT_TILES[0]))

/* Largest split-K factor tried. */
#define GEMM_MAX_SPLIT 16

/* Relative margin by which a candidate must beat the best so far: equal
 * times (to rounding) keep the larger tile. */
#define GEMM_TIE_REL 1e-12

/* Linear-probe length of the memo before it evicts the home slot. */
#define GEMM_CACHE_PROBE 8

typedef struct {
    int64_t batch, m, n, k;
    double elem;     /* bytes per input element */
    double elem_out; /* bytes per output element */
} Shape;

typedef struct {
    double compute_s;
    double level_s[MEM_LEVELS];
    double level_bytes[MEM_LEVELS];
    double waves;
    double t; /* max of the above, without launch */
} Eval;

/* An empty set for device dev (NULL: for none yet). */
static void set_clear(GemmCacheSet *set, const GemmDevice *dev)
{
    for (size_t i = 0; i < GEMM_CACHE_SLOTS; i++)
        set->slot[i].used = 0;
    set->have_dev = dev != NULL;
    if (dev)
        set->dev = *dev;
    set->last = 0;
}

void gemm_cache_init(GemmCache *c)
{
    for (int d = 0; d < GEMM_CACHE_DEVICES; d++)
        set_clear(&c->set[d], NULL);
    c->hits = 0;
    c->misses = 0;
    c->mru = 0;
    c->cleared = 0;
}

/* Achievable FLOP/s of the whole device for a GEMM in precision p. */
static double gemm_rate(const GemmDevice *dev, Precision p)
{
    const Precision q = precision_fallback(dev->matrix_flops, p);
    if (q == PREC_COUNT)
        return dev->vector_flops * dev->vector_eff;
    /* fp8 GEMMs reach a smaller fraction of their peak (MAMF: H100 0.71
     * against 0.80 in bf16); fp4 at fp8's fraction (no published fp4 GEMM
     * sweep to fit) */
    const double eff =
        (q == PREC_FP8 || q == PREC_FP4) && dev->matrix_eff_fp8 > 0 ? dev->matrix_eff_fp8 : dev->matrix_eff;
    return dev->matrix_flops[q] * eff;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Seconds to move bytes at bw; a level with bw <= 0 is not modelled. */
static double level_time(double bytes, double bw)
{
    if (bytes <= 0.0 || bw <= 0.0)
        return 0.0;
    return bytes / bw;
}

/* Does tile t fit the per-SM memory: double-buffered A and B slabs in L1
 * (shared memory), the fp32 accumulator in the register file? */
static int tile_fits(const GemmDevice *dev, const Tile *t, double elem)
{
    double smem = 2.0 * ((double)t->m * t->k + (double)t->k * t->n) * elem;
    double acc = (double)t->m * t->n * 4.0;
    return smem <= dev->l1_capacity && acc <= dev->reg_capacity;
}

/* HBM bytes of one candidate (see the header: L2 block of Bm x Bn tiles). */
static double hbm_bytes(const GemmDevice *dev, const Shape *s, const Tile *t, int64_t tiles_m,
                        int64_t tiles_n, int sms)
{
    double a = (double)s->m * (double)s->k * s->elem;     /* one A, bytes */
    double b = (double)s->k * (double)s->n * s->elem;     /* one B */
    double c = (double)s->m * (double)s->n * s->elem_out; /* one C */
    double compulsory = (double)s->batch * (a + b + c);
    double l2cap = dev->l2_capacity;

    /* Whole problem of the batch entries in flight at once fits in L2:
     * every byte comes from HBM once. */
    int64_t per_entry = tiles_m * tiles_n;
    int64_t live = ceil_div(sms, per_entry);
    if (live > s->batch)
        live = s->batch;
    if ((double)live * (a + b + c) <= l2cap)
        return compulsory;

    /* Square-ish block of the tiles that run concurrently. */
    int64_t conc = per_entry < sms ? per_entry : sms;
    int64_t bm = (int64_t)floor(sqrt((double)conc));
    if (bm < 1)
        bm = 1;
    if (bm > tiles_m)
        bm = tiles_m;
    int64_t bn = conc / bm;
    if (bn > tiles_n)
        bn = tiles_n;
    if (bn < 1)
        bn = 1;
    bm = conc / bn;
    if (bm > tiles_m)
        bm = tiles_m;
    if (bm < 1)
        bm = 1;

    /* Shrink the longer side until the block's panels fit in L2. */
    double panel_row = (double)s->k * s->elem; /* bytes of one row of a panel */
    for (;;) {
        double rows_a = fmin((double)(bm * t->m), (double)s->m);
        double rows_b = fmin((double)(bn * t->n), (double)s->n);
        if ((rows_a + rows_b) * panel_row <= l2cap || (bm == 1 && bn == 1))
            break;
        if ((rows_a >= rows_b && bm > 1) || bn == 1)
            bm--;
        else
            bn--;
    }

    double reads =
        (double)s->batch * (a * (double)ceil_div(tiles_n, bn) + b * (double)ceil_div(tiles_m, bm)) +
        (double)s->batch * c;
    return reads > compulsory ? reads : compulsory;
}

/* Split-K (cuBLAS heuristics; CUTLASS split-K and stream-K, Osama et al.,
 * PPoPP'23): when a shape has fewer output tiles than SMs, the k loop of
 * each tile is cut into `split` parts that run on different SMs, each
 * writing an fp32 partial tile that a reduction reads back through L2. */
static void eval_tile(const GemmDevice *dev, const Shape *s, const Tile *t, int split, double rate_sm,
                      int sms, Eval *e)
{
    int64_t tiles_m = ceil_div(s->m, t->m);
    int64_t tiles_n = ceil_div(s->n, t->n);
    int64_t tiles = s->batch * tiles_m * tiles_n;
    int64_t ksteps = ceil_div(s->k, t->k);
    double out = (double)s->batch * (double)s->m * (double)s->n * s->elem_out;
    double kpad, waves, partials;
    if (split > 0) { /* data-parallel tiles, split-K when split > 1 */
        waves = (double)ceil_div(tiles * split, sms);
        kpad = (double)(ceil_div(ksteps, split) * t->k); /* k of one split, padded */
        partials =
            split > 1 ? 2.0 * (double)split * (double)s->batch * (double)s->m * (double)s->n * 4.0 : 0.0;
    } else { /* stream-K: the tiles' k steps dealt evenly over the SMs; the
              * tiles an SM shares write and read back an fp32 partial */
        waves = (double)ceil_div(tiles * ksteps, sms) / (double)ksteps;
        kpad = (double)(ksteps * t->k);
        partials = 2.0 * (double)sms * (double)t->m * (double)t->n * 4.0;
    }

    *e = (Eval){0};
    e->waves = waves;
    /* Wave quantisation: each wave takes one full tile's time on one SM. */
    double tile_flop = 2.0 * (double)t->m * (double)t->n * kpad;
    e->compute_s = rate_sm > 0.0 ? waves * tile_flop / rate_sm : INFINITY;

    /* L1: panels of every tile, padding included. */
    e->level_bytes[MEM_L1] = (double)tiles * (double)(t->m + t->n) * (double)(ksteps * t->k) * s->elem;
    e->level_s[MEM_L1] = level_time(e->level_bytes[MEM_L1], dev->l1_bw);

    /* L2: panels of every tile, existing rows only, plus the output (and
     * the split-K partials, written and read back). */
    e->level_bytes[MEM_L2] = (double)s->batch *
                                 ((double)tiles_n * (double)s->m + (double)tiles_m * (double)s->n) *
                                 (double)s->k * s->elem +
                             out + partials;
    e->level_s[MEM_L2] = level_time(e->level_bytes[MEM_L2], dev->l2_bw * dev->l2_eff);

    /* HBM: panels re-read once per L2 block, at least compulsory. */
    e->level_bytes[MEM_HBM] = hbm_bytes(dev, s, t, tiles_m, tiles_n, sms);
    double hbm_bw = dev->hbm_bw * dev->hbm_eff;
    e->level_s[MEM_HBM] = hbm_bw > 0.0 ? e->level_bytes[MEM_HBM] / hbm_bw : INFINITY;

    e->t = e->compute_s;
    for (int l = MEM_L1; l < MEM_LEVELS; l++)
        if (e->level_s[l] > e->t)
            e->t = e->level_s[l];
}

static void gemm_compute(const GemmDevice *dev, Precision p, int64_t batch, int64_t m, int64_t n, int64_t k,
                         GemmCost *out)
{
    *out = (GemmCost){0};
    out->bound = BOUND_COMPUTE;
    if (batch < 1 || m < 1 || n < 1 || k < 1)
        return;

    int sms = dev->sms >= 1 ? (int)dev->sms : 1;
    Shape s = {batch, m, n, k, precision_operand_bytes(p), precision_value_bytes(p)};
    double rate_sm = gemm_rate(dev, p) / sms;

    /* the matrix units' tiles, or the SIMT kernels' where none has a rate */
    const int simt = precision_fallback(dev->matrix_flops, p) == PREC_COUNT;
    const Tile *tiles_all = simt ? SIMT_TILES : GEMM_TILES;
    const int ntiles = simt ? SIMT_NTILES : GEMM_NTILES;
    int any_fits = 0;
    for (int i = 0; i < ntiles; i++)
        if (tile_fits(dev, &tiles_all[i], s.elem)) {
            any_fits = 1;
            break;
        }

    Eval best = {0};
    int best_i = -1, best_split = 1; /* 0: stream-K */
    for (int i = 0; i < ntiles; i++) {
        const Tile *t = &tiles_all[i];
        /* With nothing fitting, only the smallest (last) tile is tried. */
        if (any_fits ? !tile_fits(dev, t, s.elem) : i != ntiles - 1)
            continue;
        /* split-K only while the splits still fill idle SMs */
        const int64_t tiles = s.batch * ceil_div(s.m, t->m) * ceil_div(s.n, t->n);
        const int64_t ksteps = ceil_div(s.k, t->k);
        for (int split = 0; split <= GEMM_MAX_SPLIT && split <= ksteps; split++) {
            if (split == 0 && (!(dev->stream_k > 0) || tiles % sms == 0))
                continue; /* stream-K only helps a partial last wave */
            if (split > 1 && tiles * (split - 1) >= sms)
                break;
            Eval e;
            eval_tile(dev, &s, t, split, rate_sm, sms, &e);
            if (best_i < 0 || e.t < best.t * (1.0 - GEMM_TIE_REL)) {
                best = e;
                best_i = i;
                best_split = split;
            }
        }
    }

    const Tile *t = &tiles_all[best_i];
    out->compute_s = best.compute_s;
    for (int l = 0; l < MEM_LEVELS; l++) {
        out->level_s[l] = best.level_s[l];
        out->level_bytes[l] = best.level_bytes[l];
    }
    out->tile_m = t->m;
    out->tile_n = t->n;
    out->tile_k = t->k;
    out->waves = best.waves;
    out->split_k = best_split;

    gemm_at_clock(out, 1.0, dev->launch_s);
}

void gemm_at_clock(GemmCost *g, double phi, double launch_s)
{
    /* compute and the on-chip levels scale with the clock, HBM does not;
     * the bound is the largest term (compute first among equals), launch
     * when the launch overhead alone exceeds all of them */
    double worst = g->compute_s / phi;
    Bound b = BOUND_COMPUTE;
    static const Bound level_bound[MEM_LEVELS] = {BOUND_COMPUTE, BOUND_L1, BOUND_L2, BOUND_HBM};
    for (int l = MEM_L1; l < MEM_LEVELS; l++) {
        const double s = l == MEM_HBM ? g->level_s[l] : g->level_s[l] / phi;
        if (s > worst) {
            worst = s;
            b = level_bound[l];
        }
    }
    g->bound = launch_s > worst ? BOUND_LAUNCH : b;
    g->time_s = worst + launch_s;
}

/* splitmix64 finaliser: a well-mixed 64-bit hash step. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static void gemm_device(const Device *d, GemmDevice *g)
{
    memset(g, 0, sizeof *g);
    for (int p = 0; p < PREC_COUNT; p++)
        g->matrix_flops[p] = d->matrix_flops[p];
    g->vector_flops = d->vector_flops;
    g->sms = d->sms;
    g->stream_k = d->stream_k;
    g->launch_s = d->launch_s;
    g->matrix_eff = d->matrix_eff;
    g->matrix_eff_fp8 = d->matrix_eff_fp8;
    g->vector_eff = d->vector_eff;
    g->hbm_eff = d->hbm_eff;
    g->l2_eff = d->l2_eff;
    g->reg_capacity = d->mem[MEM_REG].capacity_bytes;
    g->l1_capacity = d->mem[MEM_L1].capacity_bytes;
    g->l1_bw = d->mem[MEM_L1].bw_bytes_per_s;
    g->l2_capacity = d->mem[MEM_L2].capacity_bytes;
    g->l2_bw = d->mem[MEM_L2].bw_bytes_per_s;
    g->hbm_bw = d->mem[MEM_HBM].bw_bytes_per_s;
}

static size_t cache_home(Precision p, int64_t batch, int64_t m, int64_t n, int64_t k)
{
    /* each field times its own odd constant, then one finaliser: the slot
     * only decides where a cost is kept, never what it is */
    const uint64_t h = (uint64_t)batch * 0x9e3779b97f4a7c15ULL ^ (uint64_t)m * 0xc2b2ae3d27d4eb4fULL ^
                       (uint64_t)n * 0x165667b19e3779f9ULL ^ (uint64_t)k * 0xd6e8feb86659fd93ULL ^
                       (uint64_t)p * 0xff51afd7ed558ccdULL;
    return (size_t)(mix64(h) % GEMM_CACHE_SLOTS);
}

/* GemmDevice is doubles only (perf.h): compared whole, every field, so
 * that a field added to it is part of the memo's key by construction. */
_Static_assert(sizeof(GemmDevice) % sizeof(double) == 0, "GemmDevice holds doubles only");

/* Bit for bit: no padding to compare (doubles only), and a -0.0 that
 * meets a 0.0 only empties the memo, never serves a stale cost. */
static int same_gemm_device(const GemmDevice *a, const GemmDevice *b)
{
    /* bit for bit on purpose (above): doubles' several representations of
     * one value can only miss the memo */
    return memcmp(a, b, sizeof *a) == 0; // NOLINT(bugprone-suspicious-memory-comparison)
}

/* on->gd's set in cache (the last used first), else the one used longest
 * ago, emptied for it. */
static void gemm_on_found(GemmCache *cache, GemmOn *on)
{
    int d = cache->mru;
    if (!(cache->set[d].have_dev && same_gemm_device(&cache->set[d].dev, &on->gd))) {
        d = 0;
        while (d < GEMM_CACHE_DEVICES &&
               !(cache->set[d].have_dev && same_gemm_device(&cache->set[d].dev, &on->gd)))
            d++;
    }
    if (d == GEMM_CACHE_DEVICES) {
        d = 0;
        for (int i = 1; i < GEMM_CACHE_DEVICES; i++)
            if (cache->set[i].last < cache->set[d].last)
                d = i;
        set_clear(&cache->set[d], &on->gd);
        cache->cleared++;
    }
    cache->mru = d;
    on->cache = cache;
    on->set = d;
    on->cleared = cache->cleared;
}

void gemm_on(const Device *dev, GemmCache *cache, GemmOn *on)
{
    assert(dev && on);
    gemm_device(dev, &on->gd);
    on->cache = cache;
    on->set = 0;
    on->cleared = 0;
    if (cache)
        gemm_on_found(cache, on);
}

void gemm_cost_on(GemmOn *on, Precision p, int64_t batch, int64_t m, int64_t n, int64_t k, GemmCost *out)
{
    assert(on && out);
    GemmCache *cache = on->cache;
    if (!cache || batch < 1 || m < 1 || n < 1 || k < 1) {
        gemm_compute(&on->gd, p, batch, m, n, k, out);
        return;
    }
    if (on->cleared != cache->cleared) /* a set was given to another device since: find this one's again */
        gemm_on_found(cache, on);
    cache->mru = on->set;
    GemmCacheSet *set = &cache->set[on->set];
    set->last = cache->hits + cache->misses + 1;
    size_t home = cache_home(p, batch, m, n, k);
    size_t free_slot = GEMM_CACHE_SLOTS;
    for (size_t i = 0; i < GEMM_CACHE_PROBE; i++) {
        size_t j = (home + i) % GEMM_CACHE_SLOTS;
        if (!set->slot[j].used) { /* slots are never freed: the key is not further on */
            free_slot = j;
            break;
        }
        if (set->slot[j].batch == batch && set->slot[j].m == m && set->slot[j].n == n &&
            set->slot[j].k == k && set->slot[j].prec == (int)p) {
            cache->hits++;
            *out = set->slot[j].cost;
            return;
        }
    }

    cache->misses++;
    gemm_compute(&on->gd, p, batch, m, n, k, out);
    size_t j = free_slot != GEMM_CACHE_SLOTS ? free_slot : home; /* full probe: evict home */
    set->slot[j].batch = batch;
    set->slot[j].m = m;
    set->slot[j].n = n;
    set->slot[j].k = k;
    set->slot[j].prec = (int)p;
    set->slot[j].cost = *out;
    set->slot[j].used = 1;
}

void gemm_cost(const Device *dev, Precision p, int64_t batch, int64_t m, int64_t n, int64_t k,
               GemmCache *cache, GemmCost *out)
{
    GemmOn on;
    gemm_on(dev, cache, &on);
    gemm_cost_on(&on, p, batch, m, n, k, out);
}
