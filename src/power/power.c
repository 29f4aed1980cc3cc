/* power/power.c — energy per op, DVFS by the alpha-power law, system power
 * (see power.h for the equations and their sources). */
#include "power.h"

#include <math.h>

#define BITS 8.0

static double flop_energy(const Device *dev, Precision p)
{
    /* an unsupported precision runs on the next wider unit, as perf does */
    const Precision run = precision_fallback(dev->energy_j_per_flop, p);
    return run < PREC_COUNT ? dev->energy_j_per_flop[run] : 0.0;
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
static double dvfs_alpha(const Device *dev)
{
    return dev->dvfs_alpha > 0 ? dev->dvfs_alpha : 1.3;
}

/* The clock's dependence on V, (V - Vt)^a / V; clock_ratio divides it by
 * its value at the nominal voltage (nominal computed once by the caller
 * that asks many times). */
static double clock_shape(const Device *dev, double v)
{
    return v <= dev->v_threshold ? 0 : pow(v - dev->v_threshold, dvfs_alpha(dev)) / v;
}

static double clock_ratio_of(const Device *dev, double v, double nominal)
{
    return v <= dev->v_threshold ? 0 : clock_shape(dev, v) / nominal;
}

static double clock_ratio(const Device *dev, double v)
{
    return clock_ratio_of(dev, v, clock_shape(dev, dev->v_nominal));
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

/* Where clock_ratio crosses phi, to ~1e-15 V by Newton's method on the
 * clock's shape (x - vt)^a / x, clamped to [lo, hi]: 0, or -1 when it does
 * not converge. */
static int voltage_root(const Device *dev, double phi, double lo, double hi, double nominal, double *root)
{
    const double vt = dev->v_threshold, a = dvfs_alpha(dev);
    double x = hi;
    for (int i = 0; i < 12; i++) {
        const double d = x - vt, p = pow(d, a - 1.0);
        const double f = p * d / x / nominal - phi, slope = p * (a * x - d) / (x * x) / nominal;
        if (!(slope > 0))
            return -1;
        double next = x - f / slope;
        next = next < lo ? lo : next > hi ? hi : next;
        if (fabs(next - x) < 1e-15) {
            *root = next;
            return 0;
        }
        x = next;
    }
    return -1;
}

/* The bisection of pwr_voltage over [lo, hi] (root: Newton's, where known). */
static double voltage_bisect(const Device *dev, double phi, double lo, double hi, double nominal, int known,
                             double root)
{
    /* Bisection down to adjacent doubles.  Where the midpoint is further
     * than `margin` from the root Newton found, the comparison's outcome is
     * certain (the ratio is increasing and its rounding error is worth
     * ~1e-16 V) and is not computed: the same steps, the same result, a
     * third of the pow() calls. */
    const double margin = 1e-13 * hi;
    for (int i = 0; i < 60; i++) { /* clock_ratio is increasing in V above Vt */
        const double mid = 0.5 * (lo + hi);
        const int settled = mid == lo || mid == hi; /* adjacent doubles: one more step, then no change */
        const int below = known && mid < root - margin   ? 1
                          : known && mid > root + margin ? 0
                                                         : clock_ratio_of(dev, mid, nominal) < phi;
        if (below)
            lo = mid;
        else
            hi = mid;
        if (settled)
            break;
    }
    return 0.5 * (lo + hi);
}

void pwr_dvfs(const Device *dev, PwrDvfs *c)
{
    c->has = has_dvfs(dev);
    c->lo = dev->v_min > dev->v_threshold ? dev->v_min : dev->v_threshold;
    c->hi = dev->v_nominal;
    c->nominal = c->has ? clock_shape(dev, dev->v_nominal) : 0.0;
    c->ratio_lo = c->has ? clock_ratio_of(dev, c->lo, c->nominal) : 0.0;
}

/* Where the clock ratio crosses phi on a device with a DVFS range: 0 with
 * *v (the bisection's double) and *known, *root (Newton's, where it
 * converged); -1 when phi is out of the range. */
static int voltage_solve(const Device *dev, const PwrDvfs *c, double phi, double *v, int *known, double *root)
{
    if (phi > 1.0 + 1e-12 || phi < c->ratio_lo - 1e-12)
        return -1;
    *root = 0;
    *known = voltage_root(dev, phi, c->lo, c->hi, c->nominal, root) == 0;
    *v = voltage_bisect(dev, phi, c->lo, c->hi, c->nominal, *known, *root);
    return 0;
}

int pwr_voltage(const Device *dev, double phi, double *v)
{
    if (!has_dvfs(dev)) {
        *v = dev->v_nominal;
        return phi == 1.0 ? 0 : -1;
    }
    PwrDvfs c;
    pwr_dvfs(dev, &c);
    int known;
    double root;
    return voltage_solve(dev, &c, phi, v, &known, &root);
}

int pwr_voltage_near(const Device *dev, double phi, double *v)
{
    PwrDvfs c;
    pwr_dvfs(dev, &c);
    return pwr_voltage_near_at(dev, &c, phi, v);
}

int pwr_voltage_near_at(const Device *dev, const PwrDvfs *c, double phi, double *v)
{
    if (!c->has || phi == 1.0) {
        *v = dev->v_nominal;
        return !c->has && phi != 1.0 ? -1 : 0;
    }
    if (phi > 1.0 + 1e-12 || phi < c->ratio_lo - 1e-12)
        return -1;
    if (voltage_root(dev, phi, c->lo, c->hi, c->nominal, v) == 0)
        return 0;
    int known; /* Newton did not converge: the bisection's */
    double root;
    return voltage_solve(dev, c, phi, v, &known, &root);
}

void pwr_scale_device(const Device *dev, double phi, Device *out)
{
    PwrDvfs c;
    pwr_dvfs(dev, &c);
    double v_near;
    int near_rc;
    pwr_scale_device_near(dev, &c, phi, out, &v_near, &near_rc);
}

void pwr_scale_device_near(const Device *dev, const PwrDvfs *c, double phi, Device *out, double *v_near,
                           int *near_rc)
{
    *out = *dev;
    double v = dev->v_nominal, root = 0;
    int known = 0;
    if (phi != 1.0 && c->has && voltage_solve(dev, c, phi, &v, &known, &root) == 0) {
        *v_near = known ? root : v; /* the estimate from the same solve: Newton's, else the bisection's */
        *near_rc = 0;
    } else { /* nothing solved: the nominal voltage, or out of reach */
        v = dev->v_nominal;
        *near_rc = pwr_voltage_near_at(dev, c, phi, v_near);
    }
    if (phi == 1.0)
        return;
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
    const double nodes = system_nodes(sys, devices);
    const double it = devices * (device_w + sys->switch_w_per_device) + nodes * sys->node_overhead_w;
    return it * pwr_pue(sys);
}

double pwr_pue(const System *sys)
{
    return sys->pue > 0 ? sys->pue : 1.0;
}

double pwr_ramp_hold(double swing_w, double wait_s, double limit_w_s, double *dip_w)
{
    const double swing = swing_w > 0 ? swing_w : 0;
    if (!(wait_s > 0) || swing == 0) {
        *dip_w = 0;
        return 0;
    }
    if (!(limit_w_s > 0)) {
        *dip_w = swing;
        return 0;
    }
    const double edge = swing / limit_w_s;
    if (2 * edge <= wait_s) {
        *dip_w = swing;
        return swing * edge;
    }
    *dip_w = limit_w_s * wait_s / 2;
    return swing * wait_s - *dip_w * wait_s / 2;
}

double pwr_device_embodied_kg(const Device *dev)
{
    const Embodied *e = &dev->embodied;
    if (!(e->die_mm2 > 0) || !(e->logic_kg_cm2 > 0))
        return NAN;
    return e->die_mm2 / 100.0 * e->logic_kg_cm2 + dev->mem[MEM_HBM].capacity_bytes / 1e9 * e->memory_kg_gb +
           e->package_kg;
}
