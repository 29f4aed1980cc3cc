/* batch/sensitivity.c — which knob matters (see sensitivity.h): a scenario
 * as it was evaluated (its co-designed split, its resolved strategy)
 * re-evaluated with each main hardware and stack parameter 10 % lower and
 * 10 % higher, one at a time. */
#include "sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/evaluate.h"
#include "power/power.h"

typedef void (*Knob)(Scenario *sc, double f);

static void k_peak(Scenario *sc, double f)
{
    for (int p = 0; p < PREC_COUNT; p++)
        sc->system.device.matrix_flops[p] *= f;
    sc->system.device.vector_flops *= f;
}
static void k_hbm_bw(Scenario *sc, double f)
{
    sc->system.device.mem[MEM_HBM].bw_bytes_per_s *= f;
}
static void k_hbm_cap(Scenario *sc, double f)
{
    sc->system.device.mem[MEM_HBM].capacity_bytes *= f;
}
static void k_l2_bw(Scenario *sc, double f)
{
    sc->system.device.mem[MEM_L2].bw_bytes_per_s *= f;
}
static void k_l2_cap(Scenario *sc, double f)
{
    sc->system.device.mem[MEM_L2].capacity_bytes *= f;
}
static void k_intra_bw(Scenario *sc, double f)
{
    sc->system.intra.bw_bytes_per_s *= f;
    sc->system.intra.link_bw_bytes_per_s *= f;
}
static void k_inter_bw(Scenario *sc, double f)
{
    sc->system.inter.bw_bytes_per_s *= f;
    sc->system.inter.link_bw_bytes_per_s *= f;
}
static void k_latency(Scenario *sc, double f)
{
    sc->system.intra.latency_s *= f;
    sc->system.inter.latency_s *= f;
}
static void k_gemm_eff(Scenario *sc, double f)
{
    sc->system.framework.gemm_eff =
        (sc->system.framework.gemm_eff > 0 ? sc->system.framework.gemm_eff : 1.0) * f;
}
static void k_host(Scenario *sc, double f)
{
    sc->system.framework.host_op_s *= f;
    sc->system.device.launch_s *= f;
}
static void k_tdp(Scenario *sc, double f)
{
    sc->system.device.tdp_w *= f;
    sc->power_cap_w *= f;
}
static void k_flop_energy(Scenario *sc, double f)
{
    for (int p = 0; p < PREC_COUNT; p++)
        sc->system.device.energy_j_per_flop[p] *= f;
}
static void k_mem_energy(Scenario *sc, double f)
{
    for (int l = 0; l < MEM_LEVELS; l++)
        sc->system.device.mem[l].energy_j_per_bit *= f;
}
static void k_node_power(Scenario *sc, double f)
{
    sc->system.node_overhead_w *= f;
    sc->system.switch_w_per_device *= f;
}
static void k_pue(Scenario *sc, double f)
{
    sc->system.pue = pwr_pue(&sc->system) * f;
}

static const struct {
    const char *name;
    Knob apply;
} knobs[] = {
    {"matrix and vector peak", k_peak},
    {"HBM bandwidth", k_hbm_bw},
    {"HBM capacity", k_hbm_cap},
    {"L2 bandwidth", k_l2_bw},
    {"L2 capacity", k_l2_cap},
    {"scale-up (intra-node) bandwidth", k_intra_bw},
    {"scale-out (inter-node) bandwidth", k_inter_bw},
    {"network latency (both tiers)", k_latency},
    {"stack GEMM efficiency", k_gemm_eff},
    {"host and launch overhead per op", k_host},
    {"device power limit (TDP or cap)", k_tdp},
    {"energy per FLOP", k_flop_energy},
    {"memory energy per bit", k_mem_energy},
    {"node and switch power", k_node_power},
    {"facility PUE", k_pue},
};
#define NKNOBS ((int)(sizeof knobs / sizeof knobs[0]))

static double time_of(const Result *r, int per_sample)
{
    return per_sample ? 1.0 / r->samples_per_s : r->time_to_train_s;
}

static double energy_of(const Result *r, int per_sample)
{
    return per_sample ? r->energy_per_step_j : r->energy_to_train_j;
}

/* A knob whose change leaves no feasible strategy (memory) matters most. */
static double impact(const double v[2])
{
    return isfinite(v[0]) && isfinite(v[1]) ? fmax(fabs(v[0]), fabs(v[1])) : INFINITY;
}

static int cmp_impact(const void *a, const void *b)
{
    const SensKnob *x = a, *y = b;
    const double ix = impact(x->time), iy = impact(y->time);
    if (ix != iy)
        return ix > iy ? -1 : 1;
    const double ex = impact(x->energy), ey = impact(y->energy);
    return ex > ey ? -1 : ex < ey ? 1 : strcmp(x->name, y->name);
}

int run_sensitivity(const Run *run, int row, Sensitivity *out)
{
    memset(out, 0, sizeof *out);
    out->row = row;
    if (row < 0 || row >= run->n)
        return out->row = -1, -1;
    const RunRow *best = &run->row[out->row];
    Scenario *base = malloc(sizeof *base), *sc = malloc(sizeof *sc);
    Result *r = malloc(sizeof *r);
    GemmCache *cache = malloc(sizeof *cache);
    if (!base || !sc || !r || !cache) {
        free(base);
        free(sc);
        free(r);
        free(cache);
        out->row = -1;
        return -1;
    }
    gemm_cache_init(cache);
    /* the scenario as it was evaluated: the co-designed split, the
     * generator's device as figures, the strategy the search chose */
    *base = best->sc;
    if (best->r.design_evals > 0)
        base->system.device.derive.budget = best->r.design_budget;
    base->codesign = CODESIGN_NONE;
    Diag d;
    int rc = evaluate_resolve(base, &d);
    base->system.device.derive.name[0] = '\0';
    base->system.intra.from_device = base->system.inter.from_device = 0;
    base->system.intra.wire_pitch_um = base->system.inter.wire_pitch_um = 0;
    base->system.intra.edge_mm = base->system.inter.edge_mm = 0;
    const Result *b = &best->r;
    /* every axis as evaluated (a field-by-field copy had left cp, ep and
     * recompute_layers to be searched again under each change) */
    base->st = b->st;
    base->replica_batch = 0;
    if (base->power_cap_w <= 0)
        base->power_cap_w = b->power_cap_w;
    out->per_sample = !isfinite(b->time_to_train_s);
    if (rc == 0 && evaluate_cached(base, cache, r) == 0 && r->status == STATUS_OK) {
        const double drawn_w = r->device_power_w; /* the row as evaluated */
        out->time = time_of(r, out->per_sample);
        out->energy = energy_of(r, out->per_sample);
        for (int k = 0; k < NKNOBS && out->n < SENS_MAX; k++) {
            SensKnob *o = &out->k[out->n];
            snprintf(o->name, sizeof o->name, "%s", knobs[k].name);
            for (int s = 0; s < 2; s++) {
                *sc = *base;
                knobs[k].apply(sc, s ? 1.0 + SENS_STEP : 1.0 - SENS_STEP);
                o->status[s] = evaluate_cached(sc, cache, r) ? STATUS_ERROR : r->status;
                o->time[s] = o->status[s] == STATUS_OK ? time_of(r, out->per_sample) / out->time - 1.0 : NAN;
                o->energy[s] =
                    o->status[s] == STATUS_OK ? energy_of(r, out->per_sample) / out->energy - 1.0 : NAN;
            }
            out->n++;
        }
        qsort(out->k, (size_t)out->n, sizeof out->k[0], cmp_impact);
        /* the clock plans' front: the row as evaluated, then its device
         * power capped at tenths below what it draws (so that each cap
         * binds), each point slower; it ends where the clock stops
         * falling (the DVFS floor) */
        double last_clock = 2.0;
        for (int k = 0; k < SENS_FRONT; k++) {
            *sc = *base;
            if (k > 0)
                sc->power_cap_w = drawn_w * (1.0 - 0.1 * k);
            if (evaluate_cached(sc, cache, r) || r->status != STATUS_OK ||
                !(r->clock_scale < last_clock - 1e-6))
                break;
            ClockPoint *p = &out->front[out->nfront++];
            p->cap_w = sc->power_cap_w;
            p->clock = last_clock = r->clock_scale;
            p->time = time_of(r, out->per_sample);
            p->energy = energy_of(r, out->per_sample);
            p->energy_plan = p->energy * (1.0 - r->clock_plan_saving);
        }
        if (out->nfront < 2)
            out->nfront = 0; /* one point is no front */
    } else {
        out->row = -1;
    }
    free(base);
    free(sc);
    free(r);
    free(cache);
    return out->row < 0 ? -1 : 0;
}
