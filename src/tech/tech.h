/* tech/tech.h — the micro-architecture generator: a technology (what one
 * unit of silicon costs in area and energy, and how fast it switches at a
 * voltage) plus budgets (die area, power, die edge, and how each is split)
 * give a Device and the bandwidth of its two network tiers, as DeepFlow's
 * architecture generation engine (AGE) does (Ardalani, Pal, Gupta; DESIGN
 * §6.7): area -> matrix units and SRAM banks, power -> voltage and clock
 * (alpha-power law, Sakurai & Newton 1990), die edge and package area ->
 * HBM stacks and network links.
 *
 * Units: SI everywhere (s, B, B/s, Hz, W, J, J/bit, J/FLOP, V) except areas,
 * which are mm^2 (field names end in _mm2), and lengths of die edge inside
 * the generator (mm, names end in _mm; the budget's edge_m is SI) and
 * densities per mm of edge.  Budget splits are fractions.
 *
 * Everything here is pure: structs in, structs out, no I/O, no globals. */
#ifndef DF_TECH_H
#define DF_TECH_H

#include "core/diag.h"
#include "core/param.h"
#include "core/types.h"

/* The generator's inputs (TechPart, VCurve, SramTech, DramTech, Technology,
 * Budget, DeriveSpec) are plain values in core/types.h: a device carries its
 * DeriveSpec, so the loader and the overrides need no generator. */

/* How the derivation came out, for reports, the Inputs sheet and tests. */
typedef struct {
    double perimeter_mm;
    int mcus, bundles;
    double core_v, core_hz;
    double core_dyn_w, core_leak_w; /* at core_v, core_hz */
    const char *core_limit;         /* "power", "v_max" or "v_min" */
    double banks[3];                /* TP_REG, TP_L1, TP_L2, whole device */
    double sram_bytes[3];           /* whole device */
    double sram_leak_w[3];
    const char *sram_limit[3]; /* "power" or "ports" */
    int stacks, stacks_by_area, stacks_by_controller, stacks_by_edge;
    const char *dram_limit; /* "package area", "controller area" or "die edge" */
    double dram_pins, dram_v, dram_pin_rate_bytes_per_s, dram_static_w;
    const char *dram_power_limit;                                           /* "power", "v_max" or "v_min" */
    double links[2], links_by_edge[2], links_by_area[2], links_by_power[2]; /* intra, inter */
    double part_w[TP_COUNT]; /* power each part draws at full activity */
    double total_w;          /* sum of part_w: <= tdp_w */
    double static_w;         /* leakage of core, SRAM and DRAM */
} TechDetail;

/* Rate of a supply curve at V relative to its rate at v_nominal:
 * h(V)/h(v_nominal) (1 at v_nominal, 0 at or below v_threshold). */
double tech_rate_factor(const VCurve *c, double v);

/* Operating point of a block on curve c under a power cap.  At v_nominal
 * and full rate the block draws dyn_nom_w (dynamic) and leak_nom_w
 * (static, taken proportional to V).  Finds the highest V in
 * [v_min, v_max] with P(V) <= cap_w by bisection; at v_min, if that is still
 * too much, it slows the rate at fixed voltage.  Writes V and the rate
 * relative to nominal (f / f_nominal).  Returns 0, or -1 when the cap does
 * not even cover the leakage at v_min.  Pure; usable by DVFS. */
int tech_operating_point(const VCurve *c, double dyn_nom_w, double leak_nom_w, double cap_w, double *v_out,
                         double *rate_out, const char **limit_out);

/* Checks a technology and a budget for consistency (ordering of voltages,
 * positive sizes, splits that sum to at most 1).  0 or -1 with d filled. */
int tech_check(const Technology *t, Diag *d);
int tech_budget_check(const Budget *b, Diag *d);

/* Derive a device and its two network tiers.  out gets every Device field
 * but launch_s and hbm_reserved_bytes (0) and name (the technology's);
 * intra/inter are the technology's link templates with bw_bytes_per_s
 * (per device, per direction) derived, 0 when the tier has no links or no
 * power.  Returns 0, or -1 with d saying which input to change. */
int tech_derive(const Technology *t, const Budget *b, Device *out, Network *intra, Network *inter, Diag *d);

/* tech_derive that also reports how it came out (detail may be NULL). */
int tech_derive_detail(const Technology *t, const Budget *b, Device *out, Network *intra, Network *inter,
                       TechDetail *detail, Diag *d);

/* A device with a derive: block as the model sees it: the generator's
 * device from dev->derive, with the fields the generator does not model
 * (name, launch overhead, reserved HBM, stream-K, fp8 efficiency) and every
 * pinned field (set explicitly by a template or a row) taken from dev; the
 * spec and the pins stay, so resolving again gives the same device.
 * intra/inter (may be NULL) get the derived tiers.  0, or -1 with d naming
 * the derive keys at fault. */
int tech_resolve_device(const Device *dev, Device *out, Network *intra, Network *inter, Diag *d);

/* The system as the model sees it: a derive: device resolved, and each
 * network tier marked `derived: yes` given the generator's bandwidth and
 * energy per bit for it.  0, or -1 with d saying what to change. */
int tech_resolve_system(System *sys, Diag *d);

/* A TemplateDB check (io/template.h): a device template's derive: block
 * must give a device; other templates pass. */
int tech_template_check(const ParamTable *t, const void *obj, Diag *d);

/* Power a derived device draws at full activity: static (idle_w) plus the
 * fp16 matrix peak at its energy per FLOP plus every memory level at its
 * bandwidth plus both tiers at their bandwidth in both directions. */
double tech_full_power_w(const Device *dev, const Network *intra, const Network *inter);

#endif
