/* perf/perf.h — time of one kernel on one device.
 *   gemm_time:     tiled GEMM model (DeepFlow's hierarchical roofline with
 *                  wave quantisation), see gemm.c.
 *   membound_time: bytes / achievable HBM bandwidth + launch.
 * Seconds, bytes, FLOP.  Pure and thread-safe; the GEMM memo is a
 * caller-owned cache. */
#ifndef DF_PERF_H
#define DF_PERF_H

#include <stdint.h>

#include "core/types.h"

typedef enum { BOUND_COMPUTE, BOUND_L1, BOUND_L2, BOUND_HBM, BOUND_LAUNCH, BOUND_COUNT } Bound;

typedef struct {
    double time_s;                  /* total, including launch */
    double compute_s;               /* compute time of the chosen tiling (with wave quantisation) */
    double level_s[MEM_LEVELS];     /* traffic time per memory level */
    double level_bytes[MEM_LEVELS]; /* bytes moved at each level */
    Bound bound;                    /* what limits it */
    int tile_m, tile_n, tile_k;     /* chosen output tile and k step (L1 level) */
    double waves;                   /* number of waves over the SMs */
    int split_k;                    /* k loop split over this many SMs per tile (1: none; 0: stream-K) */
} GemmCost;

/* Memo of GEMM costs by shape for one device; owned by the caller (one
 * per thread).  The cache keeps the GemmDevice it was filled for and
 * empties itself when called with a device whose projection differs, so a
 * device changed in place (DVFS, a search) never gets stale costs. */
/* What the GEMM model reads of a device, and all it can read: the cost is
 * computed from this projection only, so a memo keyed on the whole of it
 * can never serve a stale cost after a device field it depends on changes.
 * All doubles (no padding): compared with memcmp. */
typedef struct {
    double matrix_flops[PREC_COUNT];
    double vector_flops, sms, stream_k, launch_s;
    double matrix_eff, matrix_eff_fp8, vector_eff, hbm_eff, l2_eff;
    double reg_capacity, l1_capacity, l1_bw, l2_capacity, l2_bw, hbm_bw;
} GemmDevice;

#define GEMM_CACHE_SLOTS 1024
/* The devices a memo holds at once (a study mixes systems): the one used
 * longest ago gives way to a new one. */
#define GEMM_CACHE_DEVICES 4
typedef struct {
    struct {
        int64_t batch, m, n, k;
        int prec;
        GemmCost cost;
        int used;
    } slot[GEMM_CACHE_SLOTS];
    GemmDevice dev;
    int have_dev;
    long last; /* the lookup that used it last */
} GemmCacheSet;
typedef struct {
    GemmCacheSet set[GEMM_CACHE_DEVICES];
    long hits, misses;
    int mru;      /* the set used last, looked at first (a scenario's GEMMs are on one device) */
    long cleared; /* sets given to another device so far */
} GemmCache;

void gemm_cache_init(GemmCache *c);

/* A GEMM's time and bound at clock phi x the one it was costed at:
 * compute and the on-chip levels take 1/phi as long, HBM the same; the
 * bound is the largest term, launch when the launch overhead exceeds all
 * of them; time = that term + launch_s.  gemm_cost applies it at phi 1, the
 * step model at the DVFS clock: one rule. */
void gemm_at_clock(GemmCost *g, double phi, double launch_s);

/* Cost of batch x [m x k].[k x n] in precision p on dev.  cache may be NULL.
 * m, n, k, batch >= 1. */
void gemm_cost(const Device *dev, Precision p, int64_t batch, int64_t m, int64_t n, int64_t k,
               GemmCache *cache, GemmCost *out);

/* A device's projection and its set in a memo, found once for the many
 * GEMMs of one evaluation: gemm_cost_on(on, ...) gives what
 * gemm_cost(dev, ..., cache, ...) gives, without projecting the device and
 * comparing it with the memo's at each GEMM.  cache may be NULL. */
typedef struct {
    GemmDevice gd;
    GemmCache *cache;
    int set;      /* its set in cache */
    long cleared; /* cache->cleared when it was found (another device's since: found again) */
} GemmOn;
void gemm_on(const Device *dev, GemmCache *cache, GemmOn *on);
void gemm_cost_on(GemmOn *on, Precision p, int64_t batch, int64_t m, int64_t n, int64_t k, GemmCost *out);

/* A memory-bound kernel: bytes through HBM at achievable bandwidth, flops on
 * the vector units at achievable rate; the larger of the two + launch. */
double membound_time(const Device *dev, double bytes, double flops);

const char *bound_name(Bound b);

#endif
