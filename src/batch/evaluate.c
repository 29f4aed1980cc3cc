/* batch/evaluate.c — evaluate(): the step model at the nominal clock; when
 * the device would draw more than its cap (the scenario's power_cap, else
 * its TDP), the clock is lowered by DVFS (power.h) to the fastest one that
 * meets the cap and the step is re-timed, so a cap costs time; then system
 * power, energy and time to train.  Numbers the model cannot compute stay
 * NaN (written as empty cells), never 0. */
#include "evaluate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "net/net.h"
#include "par/step.h"
#include "power/power.h"
#include "scale/scale.h"
#include "search/design.h"
#include "search/search.h"
#include "tech/tech.h"

static void reset(Result *r)
{
    memset(r, 0, sizeof *r);
    r->time_to_train_s = NAN;
    r->failures = (Goodput){NAN, NAN, NAN, NAN, NAN};
    r->steps = NAN;
    r->scaling_efficiency = NAN;
    r->device_power_w = NAN;
    r->system_power_w = NAN;
    r->energy_per_step_j = NAN;
    r->energy_to_train_j = NAN;
    r->cost_usd = NAN;
    r->purchase_usd = r->energy_cost_usd = r->tco_usd = r->tco_year_usd = r->break_even_use = NAN;
    r->peak_power_w = r->power_swing_w = NAN;
    r->power_ramp_w_s = r->power_dip_w = r->ramp_hold_j = r->ramp_hold_share = NAN;
    r->co2e_operational_t = r->co2e_embodied_t = r->co2e_t = NAN;
    r->plan_min_clock = r->clock_plan_saving = r->energy_to_train_plan_j = NAN;
    r->epochs = NAN;
    r->interval_lo = NAN;
    r->interval_hi = NAN;
    r->conv_extrapolated = -1;
    r->ttt_bcrit_half_s = r->ttt_bcrit_double_s = NAN;
    r->speedup_bcrit_half = r->speedup_bcrit_double = NAN;
    r->speedup_best = r->speedup_best_bcrit_half = r->speedup_best_bcrit_double = NAN;
    for (int i = 0; i < COMP_COUNT; i++)
        r->comp_energy_j[i] = NAN;
}

static double device_power(const Result *r)
{
    return r->device_energy_j / r->step_time_s;
}

/* The compute phases a power limiter can hold on their own: each runs for
 * milliseconds a layer (the limiter's window), long enough for the clock
 * to follow its power, not only the step's average. */
static const Component hot_phases[] = {COMP_GEMM, COMP_ATTENTION, COMP_RECOMPUTE, COMP_EMBED_HEAD};

static double hottest_phase(const Result *r)
{
    double p = 0;
    for (size_t i = 0; i < sizeof hot_phases / sizeof hot_phases[0]; i++) {
        const Component c = hot_phases[i];
        if (r->comp_time_s[c] > 0)
            p = fmax(p, r->comp_energy_j[c] / r->comp_time_s[c]);
    }
    return p;
}

/* What the limiter holds to the cap: the step's average power and its
 * hottest phase's.  The phases count at `rated` of the model's power: the
 * device's matrix rates are measured under its TDP, so at the nominal
 * clock its hottest phase draws at most the TDP (rated = TDP / that
 * phase's modelled power where the model puts it above).  A cap at the TDP
 * is then bound by the average alone, as the rates already carry the
 * limit; a cap below it (a 700 W part run at 500 W) throttles the GEMMs
 * first, as the limiter does. */
static double limited_power(const Result *r, double rated)
{
    return fmax(device_power(r), rated * hottest_phase(r));
}

/* The prediction interval of the scenario's training stack on its regime
 * (one node or several), from the out-of-sample residuals of the stack's
 * validation sources; a regime without runs borrows the other's.  A row
 * whose stack, device generation or model class no validation source
 * covers gets the interval of every source's residuals (the widest
 * honest one) and says so.  A mixture of experts or an LSTM takes the range
 * of its class's own measured runs where the stack has one (never fitted
 * on: the published MoE runs, the V100 LSTM runs), widened by every
 * source's where the row is otherwise not covered. */
static void prediction_interval(const Scenario *sc, Result *r)
{
    const Framework *fw = &sc->system.framework;
    const int multi = sc->devices > sc->system.devices_per_node;
    const Interval *own = multi ? &fw->multi_node : &fw->single_node;
    const Interval *other = multi ? &fw->single_node : &fw->multi_node;
    const Interval *iv = own->lo > 0 ? own : other;
    const char *gen = sc->system.device.generation, *cls = model_class_name(&sc->model);
    const int moe = !strcmp(cls, "moe") && fw->moe.lo > 0;
    const int lstm = !strcmp(cls, "lstm") && fw->lstm.lo > 0;
    char why[128] = "";
    /* a row of a validated model class with fewer samples a device than any
     * of the class's runs (the V100 CNN rows: make validate) */
    r->batch_below =
        fw->min_batch > 0 && r->st.microbatch < fw->min_batch && text_word_listed(fw->model_classes, cls);
    if (iv->runs <= 0)
        snprintf(why, sizeof why, "%s",
                 other->runs <= 0 ? "no validation run of its own"
                 : multi          ? "no multi-node validation run"
                                  : "no single-node validation run");
    else if (!gen[0] || !text_word_listed(fw->generations, gen))
        snprintf(why, sizeof why, "no validation run on a %s device", gen[0] ? gen : "derived or unnamed");
    else if (!moe && !lstm && !text_word_listed(fw->model_classes, cls))
        snprintf(why, sizeof why, "no validation run of a %s model", cls);
    else if (fw->max_devices > 0 && sc->devices > fw->max_devices)
        snprintf(why, sizeof why, "beyond the %d devices of its largest validation run", fw->max_devices);
    if (r->batch_below) { /* said beside any other reason: the Summary flags it */
        const size_t at = strlen(why);
        snprintf(why + at, sizeof why - at, "%sbelow the %d samples a device it was validated at",
                 at ? "; " : "", fw->min_batch);
    }
    if (!(iv->lo > 0)) {
        snprintf(r->interval_basis, sizeof r->interval_basis, "none: %s is not a prediction", fw->name);
        return;
    }
    if (moe || lstm) { /* the class's own runs' range, widened by every source's where the stack or device is
                          not covered */
        const Interval *cr = moe ? &fw->moe : &fw->lstm;
        r->interval_lo = cr->lo;
        r->interval_hi = cr->hi;
        if (why[0] && fw->uncovered.lo > 0) {
            r->interval_lo = fmin(r->interval_lo, fw->uncovered.lo);
            r->interval_hi = fmax(r->interval_hi, fw->uncovered.hi);
        }
        size_t at = 0; /* "%s: mixture of experts, %d published MoE runs%s%s" without printf */
        char *b = r->interval_basis;
        const size_t n = sizeof r->interval_basis;
        text_cat(b, n, &at, fw->name);
        text_cat(b, n, &at, moe ? ": mixture of experts, " : ": LSTM, ");
        text_cat_long(b, n, &at, cr->runs);
        text_cat(b, n, &at, moe ? " published MoE runs" : " measured LSTM runs");
        text_cat(b, n, &at, why[0] ? "; " : "");
        text_cat(b, n, &at, why);
        return;
    }
    if (why[0] && fw->uncovered.lo > 0)
        iv = &fw->uncovered;
    r->interval_lo = iv->lo;
    r->interval_hi = iv->hi;
    /* "%s: %s; every source's range (%d runs)" or "%s, %s: %d runs", without printf (every row) */
    size_t at = 0;
    char *b = r->interval_basis;
    const size_t n = sizeof r->interval_basis;
    text_cat(b, n, &at, fw->name);
    text_cat(b, n, &at, why[0] ? ": " : ", ");
    text_cat(b, n, &at, why[0] ? why : iv == &fw->multi_node ? "multi-node" : "single-node");
    text_cat(b, n, &at, why[0] ? "; every source's range (" : ": ");
    text_cat_long(b, n, &at, iv->runs);
    text_cat(b, n, &at, why[0] ? " runs)" : " runs");
}

#define YEAR_H 8766.0 /* hours in a year (365.25 days) */

/* Buying instead of renting (Result.purchase_usd ...): whole nodes (a
 * rack-scale system: whole racks) at the template's purchase price; the
 * energy at the wall at the site's price; owning, a year's fixed cost F
 * (the purchase over the amortisation years Y, and the site's facility
 * cost per kW of IT power the system is provisioned for, its peak) over
 * the run's share of a year, plus the run's energy; a year of full use
 * adds a year of energy E.  Buying beats renting above the use u that
 * solves F + u E = u R, with R a year of rental. */
static void buy_or_rent(const Scenario *sc, Result *r)
{
    const double kwh = r->energy_to_train_j / 3.6e6;
    const double nodes = system_nodes(&sc->system, sc->devices), years = sc->amortisation_years;
    r->energy_cost_usd = kwh * sc->electricity_usd_kwh;
    if (!(sc->system.price_purchase_node > 0) || !(years > 0))
        return;
    r->purchase_usd = nodes * sc->system.price_purchase_node;
    const double facility_year = isfinite(r->peak_power_w) ? sc->site.facility_usd_kw_year * r->peak_power_w /
                                                                 pwr_pue(&sc->system) / 1e3
                                                           : 0.0;
    const double fixed_year = r->purchase_usd / years + facility_year,
                 energy_year = r->system_power_w / 1e3 * YEAR_H * sc->electricity_usd_kwh;
    r->tco_usd = fixed_year * r->time_to_train_s / (YEAR_H * 3600.0) + r->energy_cost_usd;
    r->tco_year_usd = fixed_year + energy_year;
    if (!(sc->system.price_per_device_hour > 0))
        return;
    const double rent_year = sc->system.price_per_device_hour * sc->devices * YEAR_H;
    r->break_even_use = rent_year > energy_year ? fixed_year / (rent_year - energy_year) : INFINITY;
}

/* What the facility sees (before the components' energies are scaled to
 * the whole system): every device computing at the busy components' power
 * (held to the cap), and every device waiting at its static power on the
 * same collective or checkpoint, as a synchronous step does; the system
 * power of each (links_w: the scale-out links' at the wall), and their
 * difference. */
static void facility_power(const Scenario *sc, double links_w, Result *r)
{
    static const Component busy[] = {COMP_GEMM,       COMP_ATTENTION, COMP_MEMBOUND,
                                     COMP_EMBED_HEAD, COMP_RECOMPUTE, COMP_OPTIMIZER};
    double t = 0, e = 0;
    for (size_t i = 0; i < sizeof busy / sizeof busy[0]; i++) {
        t += r->comp_time_s[busy[i]];
        e += r->comp_energy_j[busy[i]];
    }
    const Device *dev = &sc->system.device;
    double p_busy = t > 0 ? e / t : r->device_power_w;
    if (r->power_cap_w > 0 && p_busy > r->power_cap_w)
        p_busy = r->power_cap_w;
    if (p_busy < r->device_power_w)
        p_busy = r->device_power_w;
    r->peak_power_w = pwr_system_power(&sc->system, sc->devices, p_busy) + links_w;
    r->power_swing_w = r->peak_power_w - pwr_system_power(&sc->system, sc->devices, dev->idle_w);
    /* Once a step every device waits on the exposed data-parallel
     * exchange; a site that limits the ramp holds the power up through it,
     * and what that burns is drawn from the wall like any other power. */
    const double limit = sc->site.ramp_limit_w_s;
    r->power_ramp_w_s = limit > 0 ? limit : NAN;
    r->ramp_hold_j = pwr_ramp_hold(r->power_swing_w, r->comp_time_s[COMP_DP_COMM], limit, &r->power_dip_w);
    r->system_power_w += r->ramp_hold_j / r->step_time_s;
}

/* The run's carbon: its energy at the wall at the site's grid intensity,
 * and its time's share of the service life of what it runs on. */
static void carbon(const Scenario *sc, Result *r)
{
    r->co2e_operational_t = r->energy_to_train_j / 3.6e6 * sc->site.grid_gco2_kwh / 1e6;
    const double dev_kg = pwr_device_embodied_kg(&sc->system.device);
    if (!isfinite(dev_kg) || !(sc->service_life_years > 0))
        return;
    const double made_kg =
        sc->devices * dev_kg + system_nodes(&sc->system, sc->devices) * sc->system.embodied_node_kg;
    r->co2e_embodied_t = made_kg / 1e3 * r->time_to_train_s / (sc->service_life_years * YEAR_H * 3600.0);
    r->co2e_t = r->co2e_operational_t + r->co2e_embodied_t;
}

static int evaluate_fixed(const Scenario *sc, GemmCache *cache, Result *r)
{
    reset(r);
    StepGraphMemo memo; /* the graph, built once for the clocks the cap's search tries */
    memo.valid = 0;
    if (step_evaluate_memo(sc, 1.0, cache, &memo, r))
        return -1;
    const Device *dev = &sc->system.device;
    const double cap = sc->power_cap_w > 0 ? sc->power_cap_w : dev->tdp_w;
    const double hot = hottest_phase(r);
    const double rated = dev->tdp_w > 0 && hot > dev->tdp_w ? dev->tdp_w / hot : 1.0;
    if (cap > 0 && limited_power(r, rated) > cap) {
        /* Power falls monotonically with the clock (V^2 f dynamic, V
         * leakage): bisect for the fastest clock within the cap. */
        double lo = pwr_min_clock(dev), hi = 1.0;
        Result t;
        reset(&t);
        if (lo >= 1.0 || step_evaluate_memo(sc, lo, cache, &memo, &t) || limited_power(&t, rated) > cap) {
            const Result *low = lo < 1.0 && t.step_time_s > 0 ? &t : r;
            const double avg = device_power(low), need = limited_power(low, rated);
            r->status = STATUS_ERROR;
            snprintf(r->error, sizeof r->error,
                     "the device cannot meet its %.0f W power cap: %s %.0f W even at its lowest "
                     "clock (voltage.min) or has no DVFS range",
                     cap, need > avg ? "its GEMMs draw" : "it draws", need);
            snprintf(r->error_key, sizeof r->error_key, "%s",
                     sc->power_cap_w > 0 ? "power_cap" : "system.device");
            return -1;
        }
        /* Illinois (regula falsi) on P(phi) - cap over [lo, hi]: P is
         * smooth and monotone, so a handful of evaluations find the
         * fastest feasible clock to 1e-4; the feasible end is kept. */
        Result best = t;
        double f_lo = limited_power(&t, rated) - cap, f_hi = limited_power(r, rated) - cap;
        int side = 0;
        for (int i = 0; i < 40 && hi - lo > 1e-4; i++) {
            double mid = lo - f_lo * (hi - lo) / (f_hi - f_lo);
            if (!(mid > lo && mid < hi))
                mid = 0.5 * (lo + hi);
            reset(&t);
            if (step_evaluate_memo(sc, mid, cache, &memo, &t))
                break;
            double f = limited_power(&t, rated) - cap;
            if (f <= 0) {
                lo = mid;
                f_lo = f;
                best = t;
                if (side == -1)
                    f_hi *= 0.5;
                side = -1;
                if (f > -1e-6 * cap)
                    break;
            } else {
                hi = mid;
                f_hi = f;
                if (side == 1)
                    f_lo *= 0.5;
                side = 1;
            }
        }
        *r = best;
    }
    r->power_cap_w = cap;
    if (r->status == STATUS_OK && r->clock_scale < 0.995) { /* DVFS held the clock down: the cap binds too */
        static const char cap_note[] = "; power cap";
        const size_t l = strlen(r->bottleneck);
        if (l + sizeof cap_note <= sizeof r->bottleneck)
            memcpy(r->bottleneck + l, cap_note, sizeof cap_note);
    }
    r->device_power_w = device_power(r);
    const double links_w = sc->devices * r->inter_link_energy_j / r->step_time_s * pwr_pue(&sc->system);
    r->system_power_w = pwr_system_power(&sc->system, sc->devices, r->device_power_w) + links_w;
    facility_power(sc, links_w, r);
    r->energy_per_step_j = r->system_power_w * r->step_time_s;
    r->ramp_hold_share = r->ramp_hold_j / r->energy_per_step_j;
    r->clock_plan_saving = r->plan_saved_device_j * sc->devices * pwr_pue(&sc->system) / r->energy_per_step_j;
    /* Per-component energies are the whole system's: every device's
     * share, and the rest (nodes, switches, NICs, PUE) as system_overhead. */
    double devices_e = 0;
    for (int i = 0; i < COMP_COUNT; i++) {
        if (i == COMP_SYSTEM)
            continue;
        r->comp_energy_j[i] *= sc->devices;
        devices_e += r->comp_energy_j[i];
    }
    r->comp_energy_j[COMP_SYSTEM] = r->energy_per_step_j - devices_e;
    r->comp_time_s[COMP_SYSTEM] = 0;

    char why[128];
    double steps;
    double epochs;
    r->conv_extrapolated = scale_extrapolated(sc);
    if (scale_steps(sc, &steps, &epochs, why, sizeof why) == 0) {
        r->steps = steps;
        r->epochs = epochs;
        r->time_to_train_s = steps * r->step_time_s;
        r->energy_to_train_j = r->system_power_w * r->time_to_train_s;
        r->energy_to_train_plan_j = r->energy_to_train_j * (1 - r->clock_plan_saving);
        if (r->conv_extrapolated >= 0) {
            double s2, e2;
            double lo, hi;
            scale_band(&sc->model.convergence, &lo, &hi);
            if (scale_steps_scaled(sc, lo, &s2, &e2, why, sizeof why) == 0)
                r->ttt_bcrit_half_s = s2 * r->step_time_s;
            if (scale_steps_scaled(sc, hi, &s2, &e2, why, sizeof why) == 0)
                r->ttt_bcrit_double_s = s2 * r->step_time_s;
        }
        if (sc->system.price_per_device_hour > 0)
            r->cost_usd = sc->system.price_per_device_hour * sc->devices * r->time_to_train_s / 3600.0;
        buy_or_rent(sc, r);
        carbon(sc, r);
    }
    return 0;
}

int evaluate_resolve(Scenario *sc, Diag *d)
{
    if (tech_resolve_system(&sc->system, d))
        return -1;
    /* wire-level links: their figures follow from the wires (a scenario
     * may have swept the pitch or the reach) */
    net_wire_derive(&sc->system.intra);
    net_wire_derive(&sc->system.inter);
    return 0;
}

static int needs_resolve(const System *s)
{
    return s->device.derive.name[0] || s->intra.from_device || s->inter.from_device ||
           s->intra.wire_pitch_um > 0 || s->inter.wire_pitch_um > 0 || s->intra.edge_mm > 0 ||
           s->inter.edge_mm > 0;
}

/* One design point: resolved, its strategy searched when open, its
 * prediction interval attached. */
static int evaluate_point(const Scenario *sc, GemmCache *cache, Result *r, SearchTop *top)
{
    Scenario resolved;
    if (needs_resolve(&sc->system)) {
        resolved = *sc;
        Diag d;
        diag_clear(&d);
        if (evaluate_resolve(&resolved, &d)) {
            reset(r);
            r->status = STATUS_ERROR;
            text_copy(r->error, sizeof r->error, d.msg);
            snprintf(r->error_key, sizeof r->error_key, "system.device");
            return -1;
        }
        sc = &resolved;
    }
    if (top)
        top->n = 0;
    int rc =
        search_needed(sc) ? search_strategy(sc, evaluate_fixed, cache, r, top) : evaluate_fixed(sc, cache, r);
    r->intra_bw_bytes_per_s = sc->system.intra.bw_bytes_per_s;
    r->inter_bw_bytes_per_s = sc->system.inter.bw_bytes_per_s;
    if (r->status != STATUS_ERROR) {
        prediction_interval(sc, r);
        /* goodput ranks nothing: once, for the strategy chosen */
        scale_goodput(sc, r->time_to_train_s, r->params_total, &r->failures);
    }
    return rc;
}

static int evaluate_design_point(const Scenario *sc, GemmCache *cache, Result *r)
{
    return evaluate_point(sc, cache, r, NULL);
}

int evaluate_top(const Scenario *sc, GemmCache *cache, Result *r, SearchTop *top)
{
    if (top)
        top->n = 0;
    if (!design_needed(sc))
        return evaluate_point(sc, cache, r, top);
    const int rc = design_search(sc, evaluate_design_point, cache, r);
    for (int k = 0; rc == 0 && k < 2; k++) { /* the two devices the report compares */
        Scenario dev = *sc;
        if (k)
            dev.system.device.derive.budget = r->design_budget;
        Diag d;
        diag_clear(&d);
        if (evaluate_resolve(&dev, &d))
            continue;
        const Device *v = &dev.system.device;
        r->design_device[k].matrix_flops = v->matrix_flops[sc->precision];
        r->design_device[k].clock_hz = v->clock_hz;
        r->design_device[k].sms = v->sms;
        r->design_device[k].l2_bytes = v->mem[MEM_L2].capacity_bytes;
        r->design_device[k].l2_bytes_s = v->mem[MEM_L2].bw_bytes_per_s;
        r->design_device[k].hbm_bytes = v->mem[MEM_HBM].capacity_bytes;
        r->design_device[k].hbm_bytes_s = v->mem[MEM_HBM].bw_bytes_per_s;
        r->design_device[k].idle_w = v->idle_w;
    }
    if (rc == 0 && top) { /* the runners-up of the best design's strategy */
        Scenario best = *sc;
        best.codesign = CODESIGN_NONE;
        best.system.device.derive.budget = r->design_budget;
        Result t;
        evaluate_point(&best, cache, &t, top);
    }
    return rc;
}

int evaluate_cached(const Scenario *sc, GemmCache *cache, Result *r)
{
    return evaluate_top(sc, cache, r, NULL);
}

int evaluate_template(const ParamTable *t, const void *in, void *out, const char **note, Diag *d)
{
    memcpy(out, in, t->struct_size);
    *note = "";
    int rc = 0;
    if (t == &param_device_table && ((Device *)out)->derive.name[0]) {
        rc = tech_resolve_device(in, out, NULL, NULL, d);
        *note = "# derived by the generator from derive: below; keys the file sets are kept";
    } else if (t == &param_system_table && ((System *)out)->device.derive.name[0]) {
        rc = tech_resolve_system(out, d);
        *note = "# device derived by the generator from device.derive; keys set explicitly are kept";
    }
    if (rc) {
        memcpy(out, in, t->struct_size);
        return -1;
    }
    return 0;
}
