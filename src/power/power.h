/* power/power.h — energy and power (DESIGN.md §6.6).
 *   energy of an op  = FLOPs x energy/FLOP (its precision)
 *                    + bytes x 8 x energy/bit at every memory level it moves them through
 *   energy of a collective = bits on each tier x that link's energy/bit
 *   static energy    = idle (leakage) power x time
 * DVFS by the alpha-power law (Sakurai & Newton, JSSC 1990; as DeepFlow):
 *   f ∝ (V - Vt)^alpha / V,  dynamic energy per operation ∝ V^2,
 *   leakage power ∝ V (first order).
 * Pure.  Joules, watts, volts. */
#ifndef DF_POWER_H
#define DF_POWER_H

#include "core/types.h"
#include "perf/perf.h"

/* Dynamic energy of one GEMM whose cost model moved g->level_bytes. */
double pwr_gemm_energy(const Device *dev, Precision p, double flops, const GemmCost *g);

/* Dynamic energy of a memory-bound op: its bytes cross HBM, L2 and L1
 * once each; its FLOPs run on the fp32 vector units. */
double pwr_membound_energy(const Device *dev, double bytes, double flops);

/* Energy of bytes sent over a link (per sending device). */
double pwr_link_energy(const Network *net, double bytes);

/* The supply voltage at which the device runs at phi x its nominal clock
 * (alpha-power law, solved by bisection between v_min and v_nominal).
 * Returns -1 when phi cannot be reached within [v_min, v_nominal]. */
int pwr_voltage(const Device *dev, double phi, double *v);

/* The same voltage by Newton's method alone, to about 1e-15 V: a third of
 * pwr_voltage's cost, for estimates (the clock plan's savings) that need
 * not be the bisection's exact double; falls back to pwr_voltage where
 * Newton does not converge. */
int pwr_voltage_near(const Device *dev, double phi, double *v);

/* What pwr_voltage_near computes of a device before it solves: made once
 * for the many clocks of one evaluation (the clock plan's stages). */
typedef struct {
    int has;         /* the device has a DVFS range */
    double lo, hi;   /* the voltages it spans */
    double nominal;  /* the clock's shape at the nominal voltage */
    double ratio_lo; /* the clock ratio at lo */
} PwrDvfs;
void pwr_dvfs(const Device *dev, PwrDvfs *c);
/* pwr_voltage_near(dev, phi, v), c from pwr_dvfs(dev): the same value. */
int pwr_voltage_near_at(const Device *dev, const PwrDvfs *c, double phi, double *v);

/* The lowest clock fraction the device can run at (its v_min). */
double pwr_min_clock(const Device *dev);

/* A copy of dev running at phi x its nominal clock: compute rates and the
 * on-chip memories (registers, L1, L2) scale with the clock, HBM does not;
 * per-FLOP and on-chip per-bit energies scale with (V/V0)^2, idle power
 * with V/V0. */
void pwr_scale_device(const Device *dev, double phi, Device *out);

/* pwr_scale_device, c from pwr_dvfs(dev), with what pwr_voltage_near(dev,
 * phi) gives (*near_rc, *v_near) from the same solve. */
void pwr_scale_device_near(const Device *dev, const PwrDvfs *c, double phi, Device *out, double *v_near,
                           int *near_rc);

/* Whole-system power at the wall for `devices` accelerators drawing
 * device_w each: + per-node overhead, + fabric switches, x PUE. */
double pwr_system_power(const System *sys, int devices, double device_w);

/* The system's PUE (1 where the template leaves it unset). */
double pwr_pue(const System *sys);

/* A synchronous step's dip at the wall under a ramp limit (issue 31).
 * swing_w: the drop were every device to stop at once; wait_s: how long
 * all of them wait together; limit_w_s: the fastest the wall power may
 * change (0: no limit, the power follows the work as a step).  The
 * power is lowered at the limit and is back at its peak when the work
 * resumes, as a smoother that knows the step's period does (devices burn
 * power in the wait).  *dip_w: the depth reached.  Returns the energy
 * burnt over dropping at once, J: swing^2 / limit when the wait holds
 * both edges (2 swing / limit), else swing x wait - dip x wait / 2. */
double pwr_ramp_hold(double swing_w, double wait_s, double limit_w_s, double *dip_w);

/* The carbon of making one device, kg CO2e (LLMCarbon, Faiz et al., ICLR
 * 2024: die area x carbon per area of its node, memory x carbon per GB,
 * and the package); NaN when the template gives no die area or no carbon
 * per area. */
double pwr_device_embodied_kg(const Device *dev);

#endif
