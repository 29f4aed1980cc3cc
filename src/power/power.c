/* power/power.c — energy per op, DVFS by the alpha-power law, system power
 * (see power.h for the equations and their sources). */
#include "power.h"

#include <math.h>

#define BITS 8.0

static double flop_energy(const Device *dev, Precision p)
{
    double e = dev->energy_j_per_flop[p];
    /* an unsupported precision runs on the next wider unit, as perf does */
    for (int q = (int)p; e <= 0 && q > 0; q--)
        e = dev->energy_j_per_flop[q - 1];
    return e;
}

double pwr_gemm_energy(const Device *dev, Precision p, double flops, const GemmCost *g)
{
    double e = flops * flop_energy(dev, p);
    for (int l = 0; l < MEM_LEVELS; l++)
        e += g->level_bytes[l] * BITS * dev->mem[l].energy_j_per_bit;
    return e;
}

double pwr_membound_energy(const Device *dev, double bytes, double flops)
{
    const double per_bit = dev->mem[MEM_HBM].energy_j_per_bit + dev->mem[MEM_L2].energy_j_per_bit +
                           dev->mem[MEM_L1].energy_j_per_bit;
    return bytes * BITS * per_bit + flops * flop_energy(dev, PREC_FP32);
}

double pwr_link_energy(const Network *net, double bytes)
{
    return bytes * BITS * net->energy_j_per_bit;
}

/* f(V) / f(V0) by the alpha-power law. */
static double clock_ratio(const Device *dev, double v)
{
    const double vt = dev->v_threshold, a = dev->dvfs_alpha > 0 ? dev->dvfs_alpha : 1.3;
    const double v0 = dev->v_nominal;
    if (v <= vt)
        return 0;
    return (pow(v - vt, a) / v) / (pow(v0 - vt, a) / v0);
}

static int has_dvfs(const Device *dev)
{
    return dev->v_nominal > 0 && dev->v_threshold >= 0 && dev->v_nominal > dev->v_threshold;
}

double pwr_min_clock(const Device *dev)
{
    if (!has_dvfs(dev))
        return 1.0;
    double vmin = dev->v_min > dev->v_threshold ? dev->v_min : dev->v_threshold;
    return clock_ratio(dev, vmin);
}

int pwr_voltage(const Device *dev, double phi, double *v)
{
    if (!has_dvfs(dev)) {
        *v = dev->v_nominal;
        return phi == 1.0 ? 0 : -1;
    }
    double lo = dev->v_min > dev->v_threshold ? dev->v_min : dev->v_threshold, hi = dev->v_nominal;
    if (phi > 1.0 + 1e-12 || phi < clock_ratio(dev, lo) - 1e-12)
        return -1;
    for (int i = 0; i < 60; i++) { /* clock_ratio is increasing in V above Vt */
        double mid = 0.5 * (lo + hi);
        if (clock_ratio(dev, mid) < phi)
            lo = mid;
        else
            hi = mid;
    }
    *v = 0.5 * (lo + hi);
    return 0;
}

void pwr_scale_device(const Device *dev, double phi, Device *out)
{
    *out = *dev;
    if (phi == 1.0)
        return;
    double v = dev->v_nominal;
    if (pwr_voltage(dev, phi, &v) != 0)
        v = dev->v_nominal;
    const double r = dev->v_nominal > 0 ? v / dev->v_nominal : 1.0;
    for (int p = 0; p < PREC_COUNT; p++) {
        out->matrix_flops[p] *= phi;
        out->energy_j_per_flop[p] *= r * r;
    }
    out->vector_flops *= phi;
    out->clock_hz *= phi;
    for (int l = MEM_REG; l <= MEM_L2; l++) {
        out->mem[l].bw_bytes_per_s *= phi;
        out->mem[l].energy_j_per_bit *= r * r;
    }
    out->idle_w *= r;
}

double pwr_system_power(const System *sys, int devices, double device_w)
{
    const int per_node = sys->devices_per_node > 0 ? sys->devices_per_node : 1;
    const double nodes = ceil((double)devices / per_node);
    const double it = devices * (device_w + sys->switch_w_per_device) + nodes * sys->node_overhead_w;
    return it * (sys->pue > 0 ? sys->pue : 1.0);
}
