/* tech/tech.c — the micro-architecture generator (DESIGN §6.7): technology
 * plus area, power and die-edge budgets -> a Device and the bandwidth of its
 * network tiers.  The structure follows DeepFlow's architecture generation
 * engine (AGE; Ardalani, Pal, Gupta, nanocad-lab/DeepFlow hw_component.py),
 * re-derived here, with these equations:
 *
 *   core     units  = floor(A_core / a_unit)                          (AGE)
 *            bundles = floor(units / units_per_bundle)                (AGE)
 *            f(V)   = f_nom (V-Vt)^a/V / ((Vn-Vt)^a/Vn)     (Sakurai-Newton
 *                     alpha-power law; AGE uses a = 2)
 *            P(V)   = P_nom (V/Vn)^2 f(V)/f_nom + P_leak (V/Vn),  P = C V^2 f,
 *                     with C calibrated so that the nominal point draws
 *                     units x FLOP/clk x f_nom x E_FLOP(nominal)
 *            V      = the highest V in [v_min, v_max] with P(V) <= share of
 *                     TDP (bisection); at v_min the clock alone slows (AGE's
 *                     "margin voltage" rule, which is the same thing)
 *            peak   = units x FLOP/clk x f; E_FLOP(V) = E_nom (V/Vn)^2
 *   SRAM     banks  = floor((1-o) A / (bank_area + (1-o) bundles a_port)):
 *                     cell area = (A - ports)(1-o), ports = banks x bundles
 *                     x a_port (AGE's crossbar of bank-to-bundle links)
 *            bw     = min((P - P_leak) / E_bit, banks x port B/clk x f)
 *                     (AGE: power-limited only)
 *   DRAM     stacks = min(package room / footprint, controller area /
 *                     area per stack, die edge x pins/mm / pins per stack)
 *                     (AGE: the first two; the edge bound is ours: a stack
 *                     whose PHY finds no edge cannot be attached)
 *            pins at the rate the I/O supply reaches under the DRAM share
 *                     minus refresh power: same alpha-power law (AGE)
 *   links    n      = min(edge x links/mm, area / area per link,
 *                     power / (rate x E_bit)); bandwidth per direction =
 *                     n x rate / 2 (links counted both ways, the networks
 *                     templates' convention).  AGE instead scales the link
 *                     clock by the alpha-power law; here lanes run at their
 *                     rated speed and the power share decides how many are
 *                     lit, as SerDes are power-gated per lane, not DVFS'd.
 *
 * Units: SI, areas in mm^2, die edge in mm.  Pure: no I/O, no globals. */
#include "tech.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/param.h"

#define SUM_SLACK    1e-9 /* splits may sum to 1 within rounding */
#define FLOOR_SLACK  1e-9 /* 244.5 / 0.38 computed as 643.4: floor exact counts robustly */
#define BISECT_STEPS 200

_Static_assert((int)TP_REG == (int)MEM_REG && (int)TP_L1 == (int)MEM_L1 && (int)TP_L2 == (int)MEM_L2,
               "SRAM parts line up with memory levels");

static double count_floor(double x)
{
    return x > 0 ? floor(x + FLOOR_SLACK) : 0;
}

static double dmin(double a, double b)
{
    return a < b ? a : b;
}

/* ---- supply curve ----------------------------------------------------- */

/* h(V) = (V - Vt)^alpha / V: the alpha-power-law speed (Sakurai & Newton,
 * IEEE JSSC 25(2), 1990: drain current ~ (V - Vt)^alpha, delay ~ C V / I). */
static double speed(const VCurve *c, double v)
{
    if (v <= c->v_threshold || v <= 0)
        return 0;
    return pow(v - c->v_threshold, c->alpha) / v;
}

double tech_rate_factor(const VCurve *c, double v)
{
    double hn = speed(c, c->v_nominal);
    return hn > 0 ? speed(c, v) / hn : 0;
}

/* Power at V and full rate: C V^2 f dynamic plus leakage ~ V. */
static double power_at(const VCurve *c, double dyn_nom_w, double leak_nom_w, double v)
{
    double s = v / c->v_nominal;
    return dyn_nom_w * s * s * tech_rate_factor(c, v) + leak_nom_w * s;
}

int tech_operating_point(const VCurve *c, double dyn_nom_w, double leak_nom_w, double cap_w, double *v_out,
                         double *rate_out, const char **limit_out)
{
    const char *limit = "power";
    double v, rate;
    if (power_at(c, dyn_nom_w, leak_nom_w, c->v_max) <= cap_w) {
        v = c->v_max; /* the cap is not reached: run at the highest voltage */
        rate = tech_rate_factor(c, v);
        limit = "v_max";
    } else if (power_at(c, dyn_nom_w, leak_nom_w, c->v_min) > cap_w) {
        /* DVFS floor: hold v_min, slow the clock until C V^2 f fits */
        double s = c->v_min / c->v_nominal;
        double leak = leak_nom_w * s;
        if (leak >= cap_w || dyn_nom_w <= 0)
            return -1;
        v = c->v_min;
        rate = (cap_w - leak) / (dyn_nom_w * s * s);
        limit = "v_min";
    } else {
        double lo = c->v_min, hi = c->v_max; /* P(lo) <= cap < P(hi); P rises with V */
        for (int i = 0; i < BISECT_STEPS && hi - lo > 1e-13; i++) {
            double mid = 0.5 * (lo + hi);
            if (power_at(c, dyn_nom_w, leak_nom_w, mid) <= cap_w)
                lo = mid;
            else
                hi = mid;
        }
        v = lo;
        rate = tech_rate_factor(c, v);
    }
    *v_out = v;
    *rate_out = rate;
    if (limit_out)
        *limit_out = limit;
    return 0;
}

/* ---- validation ------------------------------------------------------- */

static int check_curve(const VCurve *c, const char *key, Diag *d)
{
    if (!(c->v_threshold >= 0 && c->v_threshold < c->v_min && c->v_min <= c->v_nominal &&
          c->v_nominal <= c->v_max))
        return diag_set(d, NULL, 0, 0,
                        "technology: keys '%s.voltage.*': need 0 <= threshold < min <= nominal <= max, "
                        "got threshold %g V, min %g V, nominal %g V, max %g V",
                        key, c->v_threshold, c->v_min, c->v_nominal, c->v_max);
    if (!(c->alpha >= 1 && c->alpha <= 3))
        return diag_set(d, NULL, 0, 0, "technology: key '%s.alpha': expected 1 to 3, got %g", key, c->alpha);
    return 0;
}

static int need_positive(double v, const char *key, Diag *d)
{
    if (!(v > 0) || !isfinite(v))
        return diag_set(d, NULL, 0, 0, "technology: key '%s': must be positive, got %g", key, v);
    return 0;
}

int tech_check(const Technology *t, Diag *d)
{
    char key[64];
    if (need_positive(t->mcu_area_mm2, "mcu.area", d) ||
        need_positive(t->mcu_flops_per_clock, "mcu.flops_per_clock", d) ||
        need_positive(t->f_nominal_hz, "logic.frequency", d) ||
        need_positive(t->energy_j_per_flop[PREC_FP16], "energy.fp16", d) ||
        need_positive(t->energy_j_per_flop[PREC_FP32], "energy.fp32", d))
        return -1;
    if (t->rate[PREC_FP16] != 1)
        return diag_set(d, NULL, 0, 0, "technology: key 'rate.fp16': fp16 is the reference rate, 1; got %g",
                        t->rate[PREC_FP16]);
    for (int p = 0; p < PREC_COUNT; p++) {
        if (t->rate[p] < 0)
            return diag_set(d, NULL, 0, 0, "technology: key 'rate.%s': must be >= 0",
                            precision_name((Precision)p));
        if (t->rate[p] > 0 && !(t->energy_j_per_flop[p] > 0))
            return diag_set(d, NULL, 0, 0,
                            "technology: key 'energy.%s': required, since rate.%s is %g (the units run it)",
                            precision_name((Precision)p), precision_name((Precision)p), t->rate[p]);
    }
    if (check_curve(&t->logic, "logic", d) || check_curve(&t->dram.io, "dram", d))
        return -1;
    if (t->leakage_w_per_mm2 < 0)
        return diag_set(d, NULL, 0, 0, "technology: key 'logic.leakage_w_per_mm2': must be >= 0");
    for (int l = TP_REG; l <= TP_L2; l++) {
        const SramTech *s = &t->sram[l];
        const char *n = tech_part_name((TechPart)l);
        snprintf(key, sizeof key, "%s.bit_area", n);
        if (need_positive(s->bit_area_mm2, key, d))
            return -1;
        snprintf(key, sizeof key, "%s.bank", n);
        if (need_positive(s->bank_bytes, key, d))
            return -1;
        snprintf(key, sizeof key, "%s.energy", n);
        if (need_positive(s->energy_j_per_bit, key, d))
            return -1;
        if (!(s->overhead >= 0 && s->overhead < 1))
            return diag_set(d, NULL, 0, 0,
                            "technology: key '%s.overhead': expected 0 <= overhead < 1, got %g", n,
                            s->overhead);
        if (s->port_area_mm2 < 0 || s->port_bytes_per_clock < 0 || s->leakage_w_per_bit < 0)
            return diag_set(d, NULL, 0, 0, "technology: keys '%s.port_*', '%s.leakage_per_bit': must be >= 0",
                            n, n);
    }
    const DramTech *m = &t->dram;
    if (need_positive(m->stack_capacity_bytes, "dram.stack_capacity", d) ||
        need_positive(m->pins, "dram.pins", d) ||
        need_positive(m->pin_rate_bytes_per_s, "dram.pin_rate", d) ||
        need_positive(m->energy_j_per_bit, "dram.energy", d) ||
        need_positive(m->footprint_mm2, "dram.footprint", d) ||
        need_positive(m->controller_area_mm2, "dram.controller_area", d) ||
        need_positive(m->pins_per_mm, "dram.pins_per_mm", d))
        return -1;
    if (m->leakage_w_per_bit < 0 || t->intra_link_area_mm2 < 0 || t->inter_link_area_mm2 < 0)
        return diag_set(
            d, NULL, 0, 0,
            "technology: keys 'dram.leakage_per_bit', 'intra_link_area', 'inter_link_area': must be >= 0");
    const double eff[4] = {t->matrix_eff, t->vector_eff, t->hbm_eff, t->l2_eff};
    static const char *const eff_key[4] = {"matrix", "vector", "hbm", "l2"};
    for (int i = 0; i < 4; i++)
        if (!(eff[i] > 0 && eff[i] <= 1))
            return diag_set(d, NULL, 0, 0,
                            "technology: key 'efficiency.%s': expected a fraction in (0, 1], got %g",
                            eff_key[i], eff[i]);
    return 0;
}

static int check_split(const double *f, const char *what, Diag *d)
{
    double sum = 0;
    for (int p = 0; p < TP_COUNT; p++) {
        if (!(f[p] >= 0 && f[p] <= 1))
            return diag_set(d, NULL, 0, 0, "derive: key '%s.%s': expected a fraction in [0, 1], got %g", what,
                            tech_part_name((TechPart)p), f[p]);
        sum += f[p];
    }
    if (sum > 1 + SUM_SLACK)
        return diag_set(d, NULL, 0, 0, "derive: keys '%s.*': the shares sum to %.6g, more than the whole (1)",
                        what, sum);
    return 0;
}

int tech_budget_check(const Budget *b, Diag *d)
{
    if (!(b->die_area_mm2 > 0) || !isfinite(b->die_area_mm2))
        return diag_set(d, NULL, 0, 0, "derive: key 'area.die': must be positive, got %g", b->die_area_mm2);
    if (!(b->package_area_mm2 >= b->die_area_mm2))
        return diag_set(d, NULL, 0, 0,
                        "derive: key 'area.package': must be at least the die (%g mm^2), got %g mm^2",
                        b->die_area_mm2, b->package_area_mm2);
    if (!(b->tdp_w > 0) || !isfinite(b->tdp_w))
        return diag_set(d, NULL, 0, 0, "derive: key 'power.tdp': must be positive, got %g", b->tdp_w);
    if (!(b->edge_m >= 0) || !isfinite(b->edge_m))
        return diag_set(d, NULL, 0, 0, "derive: key 'perimeter.edge': must be >= 0 (0: a square die)");
    if (b->mcus_per_bundle < 1)
        return diag_set(d, NULL, 0, 0, "derive: key 'bundle.mcus': must be at least 1, got %d",
                        b->mcus_per_bundle);
    if (!(b->vector_flops_per_clock > 0))
        return diag_set(d, NULL, 0, 0, "derive: key 'bundle.vector_flops_per_clock': must be positive");
    if (check_split(b->area, "area", d) || check_split(b->power, "power", d) ||
        check_split(b->perimeter, "perimeter", d))
        return -1;
    for (int p = 0; p < TP_COUNT; p++)
        if (b->perimeter[p] > 0 && p != TP_DRAM && p != TP_INTRA && p != TP_INTER)
            return diag_set(d, NULL, 0, 0,
                            "derive: key 'perimeter.%s': only dram, intra and inter use the die edge",
                            tech_part_name((TechPart)p));
    return 0;
}

/* ---- the parts -------------------------------------------------------- */

typedef struct {
    const Technology *t;
    const Budget *b;
    TechDetail *x;
    Diag *d;
} Gen;

static double share_area(const Gen *g, TechPart p)
{
    return g->b->die_area_mm2 * g->b->area[p];
}

static double share_power(const Gen *g, TechPart p)
{
    return g->b->tdp_w * g->b->power[p];
}

/* Matrix units, bundles, and the voltage and clock the core share allows. */
static int derive_core(const Gen *g, Device *out)
{
    const Technology *t = g->t;
    TechDetail *x = g->x;
    double a_core = share_area(g, TP_CORE);
    x->mcus = (int)dmin(count_floor(a_core / t->mcu_area_mm2), 1e9);
    x->bundles = x->mcus / g->b->mcus_per_bundle;
    if (x->bundles < 1)
        return diag_set(g->d, NULL, 0, 0,
                        "derive: key 'area.core': %.4g mm^2 holds %d matrix units of %.4g mm^2, fewer than "
                        "one bundle of %d",
                        a_core, x->mcus, t->mcu_area_mm2, g->b->mcus_per_bundle);
    /* C calibrated on the technology's energy per FLOP at the nominal point */
    double dyn_nom = x->mcus * t->mcu_flops_per_clock * t->f_nominal_hz * t->energy_j_per_flop[PREC_FP16];
    double leak_nom = t->leakage_w_per_mm2 * a_core;
    double cap = share_power(g, TP_CORE), rate;
    if (tech_operating_point(&t->logic, dyn_nom, leak_nom, cap, &x->core_v, &rate, &x->core_limit))
        return diag_set(g->d, NULL, 0, 0,
                        "derive: key 'power.core': %.4g W does not cover the core's leakage, %.4g W at the "
                        "lowest voltage (%g V)",
                        cap, leak_nom * t->logic.v_min / t->logic.v_nominal, t->logic.v_min);
    double s = x->core_v / t->logic.v_nominal;
    x->core_hz = t->f_nominal_hz * rate;
    x->core_dyn_w = dyn_nom * s * s * rate;
    x->core_leak_w = leak_nom * s;
    x->part_w[TP_CORE] = x->core_dyn_w + x->core_leak_w;

    for (int p = 0; p < PREC_COUNT; p++) {
        out->matrix_flops[p] = x->mcus * t->mcu_flops_per_clock * t->rate[p] * x->core_hz;
        out->energy_j_per_flop[p] = t->energy_j_per_flop[p] * s * s; /* E = C V^2 */
    }
    out->vector_flops = x->bundles * g->b->vector_flops_per_clock * x->core_hz;
    out->sms = x->bundles;
    out->clock_hz = x->core_hz;
    out->v_nominal = x->core_v;
    out->v_threshold = t->logic.v_threshold;
    out->v_min = t->logic.v_min;
    out->dvfs_alpha = t->logic.alpha;
    return 0;
}

/* One SRAM level: banks from area, bandwidth from power (and ports). */
static int derive_sram(const Gen *g, TechPart lvl, Device *out)
{
    const SramTech *s = &g->t->sram[lvl];
    TechDetail *x = g->x;
    const char *n = tech_part_name(lvl);
    double area = share_area(g, lvl);
    double bank_area = s->bank_bytes * 8 * s->bit_area_mm2;
    double keep = 1 - s->overhead;
    double banks = count_floor(keep * area / (bank_area + keep * x->bundles * s->port_area_mm2));
    int per_sm = lvl != TP_L2; /* registers and L1 belong to one bundle each */
    if (per_sm)
        banks = floor(banks / x->bundles) * x->bundles;
    if (banks < 1)
        return diag_set(g->d, NULL, 0, 0,
                        "derive: key 'area.%s': %.4g mm^2 holds no %s bank of %.4g mm^2 (%g B)%s", n, area, n,
                        bank_area, s->bank_bytes, per_sm ? " for every bundle" : "");
    double bytes = banks * s->bank_bytes;
    double leak = s->leakage_w_per_bit * bytes * 8;
    double cap = share_power(g, lvl);
    if (!(cap > leak))
        return diag_set(g->d, NULL, 0, 0,
                        "derive: key 'power.%s': %.4g W does not cover the leakage of %.4g MiB of %s, %.4g W",
                        n, cap, bytes / 1048576.0, n, leak);
    double bw = (cap - leak) / (8 * s->energy_j_per_bit);
    x->sram_limit[lvl] = "power";
    if (s->port_bytes_per_clock > 0 && banks * s->port_bytes_per_clock * x->core_hz < bw) {
        bw = banks * s->port_bytes_per_clock * x->core_hz;
        x->sram_limit[lvl] = "ports";
    }
    x->banks[lvl] = banks;
    x->sram_bytes[lvl] = bytes;
    x->sram_leak_w[lvl] = leak;
    x->part_w[lvl] = leak + bw * 8 * s->energy_j_per_bit;
    MemSpec *m = &out->mem[lvl]; /* TP_REG, TP_L1, TP_L2 == MEM_REG, MEM_L1, MEM_L2 */
    m->capacity_bytes = per_sm ? bytes / x->bundles : bytes;
    m->bw_bytes_per_s = bw;
    m->energy_j_per_bit = s->energy_j_per_bit;
    return 0;
}

/* HBM stacks from package room, controller area and die edge; their
 * bandwidth from the DRAM power share. */
static int derive_dram(const Gen *g, Device *out)
{
    const DramTech *m = &g->t->dram;
    TechDetail *x = g->x;
    const Budget *b = g->b;
    double by_area = count_floor((b->package_area_mm2 - b->die_area_mm2) / m->footprint_mm2);
    double by_ctrl = count_floor(share_area(g, TP_DRAM) / m->controller_area_mm2);
    double by_edge = count_floor(x->perimeter_mm * b->perimeter[TP_DRAM] * m->pins_per_mm / m->pins);
    x->stacks_by_area = (int)dmin(by_area, 1e6);
    x->stacks_by_controller = (int)dmin(by_ctrl, 1e6);
    x->stacks_by_edge = (int)dmin(by_edge, 1e6);
    x->stacks = x->stacks_by_area;
    x->dram_limit = "package area";
    if (x->stacks_by_controller < x->stacks) {
        x->stacks = x->stacks_by_controller;
        x->dram_limit = "controller area";
    }
    if (x->stacks_by_edge < x->stacks) {
        x->stacks = x->stacks_by_edge;
        x->dram_limit = "die edge";
    }
    if (x->stacks < 1)
        return diag_set(g->d, NULL, 0, 0,
                        "derive: no HBM stack fits (%s): room beside the die %.4g mm^2 (%.4g per stack), "
                        "'area.dram' %.4g mm^2 (%.4g per stack), 'perimeter.dram' %.4g mm (%.4g per stack)",
                        x->dram_limit, b->package_area_mm2 - b->die_area_mm2, m->footprint_mm2,
                        share_area(g, TP_DRAM), m->controller_area_mm2,
                        x->perimeter_mm * b->perimeter[TP_DRAM], m->pins / m->pins_per_mm);
    double bytes = x->stacks * m->stack_capacity_bytes;
    double cap = share_power(g, TP_DRAM);
    x->dram_static_w = m->leakage_w_per_bit * bytes * 8;
    x->dram_pins = x->stacks * m->pins;
    double dyn_nom = x->dram_pins * m->pin_rate_bytes_per_s * 8 * m->energy_j_per_bit;
    double rate;
    if (!(cap > x->dram_static_w) || tech_operating_point(&m->io, dyn_nom, 0, cap - x->dram_static_w,
                                                          &x->dram_v, &rate, &x->dram_power_limit))
        return diag_set(g->d, NULL, 0, 0,
                        "derive: key 'power.dram': %.4g W does not cover the refresh of %d stacks, %.4g W",
                        cap, x->stacks, x->dram_static_w);
    double s = x->dram_v / m->io.v_nominal;
    x->dram_pin_rate_bytes_per_s = m->pin_rate_bytes_per_s * rate;
    MemSpec *h = &out->mem[MEM_HBM];
    h->capacity_bytes = bytes;
    h->bw_bytes_per_s = x->dram_pins * x->dram_pin_rate_bytes_per_s;
    h->energy_j_per_bit = m->energy_j_per_bit * s * s;
    x->part_w[TP_DRAM] = x->dram_static_w + h->bw_bytes_per_s * 8 * h->energy_j_per_bit;
    return 0;
}

/* One network tier: lanes from the edge, the area and the power share. */
static int derive_links(const Gen *g, TechPart tier, const Network *tech_net, double link_area_mm2,
                        Network *net)
{
    TechDetail *x = g->x;
    int i = tier == TP_INTRA ? 0 : 1;
    const char *n = tech_part_name(tier);
    *net = *tech_net;
    double edge = x->perimeter_mm * g->b->perimeter[tier];
    if (edge > 0 && !(net->links_per_mm > 0 && net->link_bw_bytes_per_s > 0))
        return diag_set(g->d, NULL, 0, 0,
                        "derive: key 'perimeter.%s': the %s link technology '%s' has no links_per_mm and "
                        "link_bandwidth, so die edge cannot carry it (set the share to 0 or pick an "
                        "on-package kind)",
                        n, n, net->name);
    double by_edge = count_floor(edge * net->links_per_mm);
    double by_area = link_area_mm2 > 0 ? count_floor(share_area(g, tier) / link_area_mm2) : by_edge;
    double bits_w = net->link_bw_bytes_per_s * 8 * net->energy_j_per_bit; /* W per lit link */
    double by_power = bits_w > 0 ? count_floor(share_power(g, tier) / bits_w) : by_edge;
    double links = dmin(by_edge, dmin(by_area, by_power));
    x->links_by_edge[i] = by_edge;
    x->links_by_area[i] = by_area;
    x->links_by_power[i] = by_power;
    x->links[i] = links;
    net->bw_bytes_per_s = links * net->link_bw_bytes_per_s / 2; /* per direction */
    x->part_w[tier] = links * bits_w;
    return 0;
}

int tech_derive_detail(const Technology *t, const Budget *b, Device *out, Network *intra, Network *inter,
                       TechDetail *detail, Diag *d)
{
    TechDetail local = {0};
    TechDetail *x = detail ? detail : &local;
    memset(x, 0, sizeof *x);
    if (tech_check(t, d) || tech_budget_check(b, d))
        return -1;
    Device dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "%s", t->name);
    /* AGE takes the die as square: edge = 4 sqrt(area) */
    x->perimeter_mm = b->edge_m > 0 ? b->edge_m * 1e3 : 4 * sqrt(b->die_area_mm2);
    Gen g = {t, b, x, d};
    Network ni, ne;
    if (derive_core(&g, &dev) || derive_sram(&g, TP_REG, &dev) || derive_sram(&g, TP_L1, &dev) ||
        derive_sram(&g, TP_L2, &dev) || derive_dram(&g, &dev) ||
        derive_links(&g, TP_INTRA, &t->intra, t->intra_link_area_mm2, &ni) ||
        derive_links(&g, TP_INTER, &t->inter, t->inter_link_area_mm2, &ne))
        return -1;
    dev.tdp_w = b->tdp_w;
    x->static_w = x->core_leak_w + x->sram_leak_w[TP_REG] + x->sram_leak_w[TP_L1] + x->sram_leak_w[TP_L2] +
                  x->dram_static_w;
    dev.idle_w = x->static_w;
    dev.matrix_eff = t->matrix_eff;
    dev.vector_eff = t->vector_eff;
    dev.hbm_eff = t->hbm_eff;
    dev.l2_eff = t->l2_eff;
    dev.fa2_eff = 1.0; /* no FlashAttention-2 measurement on a derived device: its best attention */
    dev.flex_fwd_eff = dev.flex_bwd_eff = 1.0; /* nor a FlexAttention one */
    dev.grouped_mm_eff = 1.0;                  /* nor a grouped GEMM one */
    /* exp_per_clock stays 0 (the memset): the generator sizes no special-function units; scatter_bpc
     * too: no scatter kernel measured on a derived device (the memory-bound rate) */
    dev.embodied = t->embodied; /* the node's carbon per cm2 of the budget's die */
    dev.embodied.die_mm2 = b->die_area_mm2;
    x->total_w = 0;
    for (int p = 0; p < TP_COUNT; p++)
        x->total_w += x->part_w[p];
    *out = dev;
    if (intra)
        *intra = ni;
    if (inter)
        *inter = ne;
    return 0;
}

int tech_derive(const Technology *t, const Budget *b, Device *out, Network *intra, Network *inter, Diag *d)
{
    return tech_derive_detail(t, b, out, intra, inter, NULL, d);
}

double tech_full_power_w(const Device *dev, const Network *intra, const Network *inter)
{
    double w = dev->idle_w + dev->matrix_flops[PREC_FP16] * dev->energy_j_per_flop[PREC_FP16];
    for (int l = 0; l < MEM_LEVELS; l++)
        w += dev->mem[l].bw_bytes_per_s * 8 * dev->mem[l].energy_j_per_bit;
    if (intra)
        w += 2 * intra->bw_bytes_per_s * 8 * intra->energy_j_per_bit;
    if (inter)
        w += 2 * inter->bw_bytes_per_s * 8 * inter->energy_j_per_bit;
    return w;
}

int tech_resolve_device(const Device *dev, Device *out, Network *intra, Network *inter, Diag *d)
{
    Device x;
    if (tech_derive(&dev->derive.technology, &dev->derive.budget, &x, intra, inter, d))
        return -1;
    /* what the generator does not model: the template's (or its default) */
    snprintf(x.name, sizeof x.name, "%s", dev->name);
    x.launch_s = dev->launch_s;
    x.hbm_reserved_bytes = dev->hbm_reserved_bytes;
    x.stream_k = dev->stream_k;
    x.matrix_eff_fp8 = dev->matrix_eff_fp8;
    snprintf(x.generation, sizeof x.generation, "%s", dev->generation);
    x.fa2_eff = dev->fa2_eff;
    x.flex_fwd_eff = dev->flex_fwd_eff;
    x.flex_bwd_eff = dev->flex_bwd_eff;
    x.grouped_mm_eff = dev->grouped_mm_eff;
    x.exp_per_clock = dev->exp_per_clock;
    x.scatter_bpc = dev->scatter_bpc;
    /* what a template or a row set explicitly wins over the derivation */
    const ParamTable *t = &param_device_table;
    for (size_t i = 0; i < t->count && i < 64; i++)
        if ((dev->pinned >> i) & 1 && t->defs[i].type != P_SUB)
            memcpy((char *)&x + t->defs[i].offset, (const char *)dev + t->defs[i].offset,
                   param_size(&t->defs[i]));
    x.derive = dev->derive;
    x.pinned = dev->pinned;
    *out = x;
    return 0;
}

/* A tier that takes its links from the device: the generator's bandwidth
 * and energy per bit on the system's fabric. */
static int take_tier(Network *net, const Network *derived, const char *tier, const char *device, Diag *d)
{
    if (!net->from_device)
        return 0;
    if (!derived)
        return diag_set(d, NULL, 0, 0,
                        "system.%s: network '%s' takes its links from a derive: device (derived: yes), but "
                        "device '%s' has no derive: block",
                        tier, net->name, device);
    if (!(derived->bw_bytes_per_s > 0))
        return diag_set(d, NULL, 0, 0,
                        "system.%s: network '%s' takes its links from device '%s', whose budget gives the "
                        "%s links no share (derive: keys 'area.%s', 'power.%s', 'perimeter.%s')",
                        tier, net->name, device, tier, tier, tier, tier);
    net->bw_bytes_per_s = derived->bw_bytes_per_s;
    net->link_bw_bytes_per_s = derived->link_bw_bytes_per_s;
    net->energy_j_per_bit = derived->energy_j_per_bit;
    return 0;
}

int tech_resolve_system(System *sys, Diag *d)
{
    Network ni, ne;
    const int derived = sys->device.derive.name[0] != '\0';
    if (derived) {
        Device dev;
        if (tech_resolve_device(&sys->device, &dev, &ni, &ne, d)) {
            char msg[DIAG_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", d->msg);
            return diag_set(d, NULL, 0, 0, "device '%s': %s", sys->device.name, msg);
        }
        sys->device = dev;
    }
    if (take_tier(&sys->intra, derived ? &ni : NULL, "intra", sys->device.name, d) ||
        take_tier(&sys->inter, derived ? &ne : NULL, "inter", sys->device.name, d))
        return -1;
    return 0;
}

int tech_template_check(const ParamTable *t, const void *obj, Diag *d)
{
    if (t != &param_device_table || !((const Device *)obj)->derive.name[0])
        return 0;
    Device dev;
    return tech_resolve_device(obj, &dev, NULL, NULL, d);
}
