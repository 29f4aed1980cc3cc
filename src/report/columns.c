/* report/columns.c — the summary's columns and how each is read off a
 * RunRow (see columns.h). */
#include "columns.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/param.h"
#include "core/strategy.h"
#include "core/text.h"
#include "core/units.h"

const ReportCol report_cols[] = {
    {"scenario", "", RC_TEXT, RF_PLAIN, "name of the row (with the swept values)"},
    {"series", "", RC_TEXT, RF_PLAIN, "chart line the row belongs to"},
    {"status", "", RC_TEXT, RF_PLAIN, "ok, oom (does not fit in memory) or error"},
    {"error", "", RC_TEXT, RF_PLAIN, "why the row could not be evaluated"},
    {"system", "", RC_TEXT, RF_PLAIN, "system template"},
    {"model", "", RC_TEXT, RF_PLAIN, "model template"},
    {"devices", "", RC_INT, RF_PLAIN, "accelerators"},
/* the strategy's axes, from core/strategy.h's table */
#define AXIS_COL(ID, field, ctype, ptype, choices, lo, hi, def, walk, unit, abbr, label, help)               \
    {#field, unit, (ptype) == P_INT ? RC_INT : RC_TEXT, RF_PLAIN, help},
    STRATEGY_AXES(AXIS_COL){"global_batch", "samples", RC_INT, RF_PLAIN, "samples per optimizer step"},
    {"precision", "", RC_TEXT, RF_PLAIN, "training precision"},
    {"framework", "", RC_TEXT, RF_PLAIN, "training stack the system runs (templates/frameworks)"},
    {"codesign_points", "", RC_INT, RF_PLAIN,
     "co-design: design points (splits of the derived device's budget) the search evaluated"},
    {"codesign_gain", "x", RC_NUM, RF_PLAIN,
     "co-design: time to train with the template's split / with the split found (above 1: faster)"},
    {"strategies_searched", "", RC_INT, RF_PLAIN,
     "strategies the search evaluated for the row's auto fields (empty: the row gave its strategy)"},
    {"strategies_feasible", "", RC_INT, RF_PLAIN, "of those, the ones that fit in memory"},
    {"strategies_pruned", "", RC_INT, RF_PLAIN,
     "candidates skipped as equivalent to one evaluated (sequence parallelism with tp 1, ZeRO with dp 1, "
     "rank "
     "orders that differ only in a degree-1 axis)"},
    {"step_time_s", "s", RC_NUM, RF_SECONDS, "time of one optimizer step"},
    {"step_time_s_lo", "s", RC_NUM, RF_SECONDS,
     "low end of the 90 % prediction interval of the step time (validation residuals)"},
    {"step_time_s_hi", "s", RC_NUM, RF_SECONDS, "high end of the 90 % prediction interval of the step time"},
    {"samples_per_s", "samples/s", RC_NUM, RF_RATE, "training throughput"},
    {"steps", "", RC_NUM, RF_PLAIN, "optimizer steps to train"},
    {"epochs", "", RC_NUM, RF_PLAIN, "epochs over the dataset the training takes (convergence curve)"},
    {"time_to_train_days_bcrit_half", "days", RC_NUM, RF_DAYS,
     "time to train if the convergence curve's critical batch were half the template's, or at the low end "
     "of the range the curve states (b_crit_low; sensitivity)"},
    {"time_to_train_days_bcrit_double", "days", RC_NUM, RF_DAYS,
     "time to train if the convergence curve's critical batch were twice the template's, or at the high "
     "end of the range the curve states (b_crit_high; sensitivity)"},
    {"convergence", "", RC_TEXT, RF_PLAIN,
     "measured: the global batch lies in the range the convergence curve's source measured; extrapolated: "
     "outside it; '; curve of X': the curve was measured on another model; empty: an explicit amount"},
    {"time_to_train_s", "s", RC_NUM, RF_SECONDS, "steps x step time"},
    {"time_to_train_days", "days", RC_NUM, RF_DAYS, "time to train in days"},
    {"time_to_train_days_lo", "days", RC_NUM, RF_DAYS, "low end of the time to train (prediction interval)"},
    {"time_to_train_days_hi", "days", RC_NUM, RF_DAYS, "high end of the time to train (prediction interval)"},
    {"goodput", "", RC_NUM, RF_PERCENT,
     "share of the wall-clock time that trains; interruptions, checkpoints and restarts take the rest "
     "(empty: the system template states no failure rate)"},
    {"time_to_train_days_failures", "days", RC_NUM, RF_DAYS,
     "expected time to train with interruptions, checkpoints and restarts (Daly 2006)"},
    {"mtti_hours", "h", RC_NUM, RF_PLAIN,
     "the job's mean time to interruption: 1 / (devices x failures per device-hour)"},
    {"checkpoint_s", "s", RC_NUM, RF_SECONDS,
     "one checkpoint (weights and optimizer state) at the system's storage bandwidth"},
    {"checkpoint_interval_s", "s", RC_NUM, RF_SECONDS, "training time between checkpoints: Daly's optimum"},
    {"model_tflops_per_device", "TFLOP/s", RC_NUM, RF_RATE,
     "model FLOPs (no recompute) per second per device"},
    {"mfu", "", RC_NUM, RF_PERCENT, "model FLOPs utilisation of the precision's dense peak"},
    {"hfu", "", RC_NUM, RF_PERCENT, "hardware FLOPs utilisation (recompute counted)"},
    {"scaling_efficiency", "", RC_NUM, RF_PERCENT,
     "throughput per device against the smallest device count of the same series and model; above 100 % when "
     "the search finds a better strategy (or the per-device batch grows) at the larger count"},
    {"speedup", "x", RC_NUM, RF_PLAIN,
     "time-to-train of the baseline series at the same devices and model / this row's"},
    {"speedup_bcrit_half", "x", RC_NUM, RF_PLAIN,
     "the speedup with the convergence curve's critical batch halved (or at its stated low end)"},
    {"speedup_bcrit_double", "x", RC_NUM, RF_PLAIN,
     "the speedup with the convergence curve's critical batch doubled (or at its stated high end)"},
    {"speedup_best", "x", RC_NUM, RF_PLAIN,
     "best against best: the baseline series' best time-to-train at any device count / this series' best "
     "(same model)"},
    {"speedup_best_bcrit_half", "x", RC_NUM, RF_PLAIN,
     "best against best with the critical batch halved, or at its stated low end (each series' own best)"},
    {"speedup_best_bcrit_double", "x", RC_NUM, RF_PLAIN,
     "best against best with the critical batch doubled, or at its stated high end (each series' own best)"},
    {"memory_per_device_gib", "GiB", RC_NUM, RF_GIB, "memory of the most loaded device"},
    {"memory_capacity_gib", "GiB", RC_NUM, RF_GIB, "device memory capacity"},
    {"fits_memory", "", RC_TEXT, RF_PLAIN, "yes when the strategy fits"},
    {"bottleneck", "", RC_TEXT, RF_PLAIN, "largest component of the step (and what limits it)"},
    {"weights_gib", "GiB", RC_NUM, RF_GIB, "16-bit weights per device"},
    {"gradients_gib", "GiB", RC_NUM, RF_GIB, "fp32 gradients per device"},
    {"optimizer_gib", "GiB", RC_NUM, RF_GIB, "fp32 master weights and Adam moments per device"},
    {"activations_gib", "GiB", RC_NUM, RF_GIB, "stored activations per device"},
    {"tp_tier", "", RC_TEXT, RF_PLAIN, "network tier of tensor-parallel collectives"},
    {"pp_tier", "", RC_TEXT, RF_PLAIN, "network tier of pipeline transfers"},
    {"dp_tier", "", RC_TEXT, RF_PLAIN, "network tier of data-parallel collectives"},
    {"device_power_w", "W", RC_NUM, RF_WATTS, "average power of one device over the step"},
    {"system_power_w", "W", RC_NUM, RF_WATTS, "whole system at the wall (nodes, switches, PUE)"},
    {"energy_per_step_j", "J", RC_NUM, RF_PLAIN, "system energy of one step"},
    {"energy_to_train_kwh", "kWh", RC_NUM, RF_KWH, "system energy to train"},
    {"energy_to_train_kwh_lo", "kWh", RC_NUM, RF_KWH,
     "low end of the energy to train (prediction interval, at the predicted power)"},
    {"energy_to_train_kwh_hi", "kWh", RC_NUM, RF_KWH,
     "high end of the energy to train (prediction interval)"},
    {"cost_usd", "USD", RC_NUM, RF_PLAIN, "accelerator-hours x list price (empty: no price in the template)"},
    {"cost_usd_lo", "USD", RC_NUM, RF_PLAIN, "low end of the cost (prediction interval)"},
    {"cost_usd_hi", "USD", RC_NUM, RF_PLAIN, "high end of the cost (prediction interval)"},
    {"purchase_usd", "USD", RC_NUM, RF_PLAIN,
     "buying the nodes (whole racks for rack-scale systems) at the template's price (empty: no price)"},
    {"energy_cost_usd", "USD", RC_NUM, RF_PLAIN, "the run's energy at the wall x electricity_price"},
    {"tco_usd", "USD", RC_NUM, RF_PLAIN,
     "total cost of owning for the run: the purchase over amortisation_years and the site's facility cost "
     "(per kW of peak IT power), pro rata of the run's time, plus its energy"},
    {"tco_year_usd", "USD", RC_NUM, RF_PLAIN,
     "total cost of owning for a year of full use: the year's share of the purchase, the facility and a "
     "year's energy at the run's power"},
    {"break_even_use", "", RC_NUM, RF_PERCENT,
     "share of the amortisation years the system must be busy for buying to cost less than renting"},
    {"peak_power_w", "W", RC_NUM, RF_WATTS,
     "system power at the wall while every device computes (held to its cap): what the facility provisions"},
    {"power_swing_w", "W", RC_NUM, RF_WATTS,
     "the drop from peak when every device waits on the same collective or checkpoint (at its static "
     "power): the swing a synchronous step puts on the grid"},
    {"power_dip_w", "W", RC_NUM, RF_WATTS,
     "the drop once a step, while every device waits on the exposed data-parallel exchange: the swing, "
     "or less where the site's ramp_limit holds the power up through a short wait (0: no common wait)"},
    {"power_ramp_w_per_s", "W/s", RC_NUM, RF_PLAIN,
     "the fastest change of the power at the wall: the site's ramp_limit (empty: none, the power steps "
     "with the work)"},
    {"ramp_hold_share", "", RC_NUM, RF_PERCENT,
     "share of the energy burnt holding the power up to meet the site's ramp_limit (in the energy, cost "
     "and carbon)"},
    {"co2e_operational_t", "t", RC_NUM, RF_PLAIN,
     "operational carbon: energy to train at the wall x the site's grid intensity, tonnes CO2e"},
    {"co2e_embodied_t", "t", RC_NUM, RF_PLAIN,
     "embodied carbon: the run's share of making its devices and nodes over service_life, tonnes CO2e "
     "(empty: the device template gives no die area or carbon per area)"},
    {"co2e_t", "t", RC_NUM, RF_PLAIN, "operational and embodied carbon, tonnes CO2e"},
    {"clock_plan_saving", "", RC_NUM, RF_PERCENT,
     "clock plan: the share of the energy to train saved with the pipeline stages off the critical path at "
     "lower clocks, the step no slower (Perseus)"},
    {"clock_plan_min_clock", "", RC_NUM, RF_PERCENT,
     "clock plan: the lowest stage clock, a fraction of the row's (100 %: no stage slows)"},
    {"energy_to_train_kwh_plan", "kWh", RC_NUM, RF_KWH, "energy to train at the wall with the clock plan"},
    {"interval_basis", "", RC_TEXT, RF_PLAIN,
     "the validation runs the prediction interval comes from (stack, one node or several, count)"},
};
const int report_ncols = (int)(sizeof report_cols / sizeof report_cols[0]);

static int text(char *buf, size_t n, const char *s)
{
    text_put(buf, n, s);
    return 0;
}

/* An axis's cell: the resolved value when the row evaluated, else what was
 * asked for, where 'auto' that the search never resolved stays 'auto'
 * rather than showing its internal marker; empty where the axis means
 * nothing (the layers recomputed without a full recompute). */
static int axis_cell(StrategyAxis a, const Strategy *shown, double *num, char *t, size_t n)
{
    if (!strategy_axis_applies(shown, a))
        return strategy_axes[a].ptype == P_INT ? 1 : 0;
    const int v = strategy_get(shown, a);
    if (v == AUTO_VALUE || strategy_axes[a].ptype != P_INT) {
        strategy_value_text(a, v, t, n);
        return 0;
    }
    *num = v;
    return 1;
}

/* The numeric figures of a result: column name, field, divisor (the unit
 * the column is in). */
typedef struct {
    const char *name;
    size_t off;
    double div;
} Figure;
static const Figure figures[] = {
    {"step_time_s", offsetof(Result, step_time_s), 1},
    {"samples_per_s", offsetof(Result, samples_per_s), 1},
    {"steps", offsetof(Result, steps), 1},
    {"epochs", offsetof(Result, epochs), 1},
    {"time_to_train_s", offsetof(Result, time_to_train_s), 1},
    {"time_to_train_days", offsetof(Result, time_to_train_s), 86400.0},
    {"goodput", offsetof(Result, failures.goodput), 1},
    {"time_to_train_days_failures", offsetof(Result, failures.wall_s), 86400.0},
    {"mtti_hours", offsetof(Result, failures.mtti_s), 3600.0},
    {"checkpoint_s", offsetof(Result, failures.write_s), 1},
    {"checkpoint_interval_s", offsetof(Result, failures.interval_s), 1},
    {"model_tflops_per_device", offsetof(Result, model_tflops_per_device), 1},
    {"mfu", offsetof(Result, mfu), 1},
    {"hfu", offsetof(Result, hfu), 1},
    {"scaling_efficiency", offsetof(Result, scaling_efficiency), 1},
    {"speedup", offsetof(Result, speedup), 1},
    {"speedup_bcrit_half", offsetof(Result, speedup_bcrit_half), 1},
    {"speedup_bcrit_double", offsetof(Result, speedup_bcrit_double), 1},
    {"speedup_best", offsetof(Result, speedup_best), 1},
    {"speedup_best_bcrit_half", offsetof(Result, speedup_best_bcrit_half), 1},
    {"speedup_best_bcrit_double", offsetof(Result, speedup_best_bcrit_double), 1},
    {"time_to_train_days_bcrit_half", offsetof(Result, ttt_bcrit_half_s), 86400.0},
    {"time_to_train_days_bcrit_double", offsetof(Result, ttt_bcrit_double_s), 86400.0},
    {"memory_per_device_gib", offsetof(Result, mem_total_bytes), GIB_BYTES},
    {"memory_capacity_gib", offsetof(Result, mem_capacity_bytes), GIB_BYTES},
    {"weights_gib", offsetof(Result, mem_weights_bytes), GIB_BYTES},
    {"gradients_gib", offsetof(Result, mem_grads_bytes), GIB_BYTES},
    {"optimizer_gib", offsetof(Result, mem_optimizer_bytes), GIB_BYTES},
    {"activations_gib", offsetof(Result, mem_activations_bytes), GIB_BYTES},
    {"device_power_w", offsetof(Result, device_power_w), 1},
    {"system_power_w", offsetof(Result, system_power_w), 1},
    {"energy_per_step_j", offsetof(Result, energy_per_step_j), 1},
    {"energy_to_train_kwh", offsetof(Result, energy_to_train_j), 3.6e6},
    {"cost_usd", offsetof(Result, cost_usd), 1},
    {"purchase_usd", offsetof(Result, purchase_usd), 1},
    {"energy_cost_usd", offsetof(Result, energy_cost_usd), 1},
    {"tco_usd", offsetof(Result, tco_usd), 1},
    {"tco_year_usd", offsetof(Result, tco_year_usd), 1},
    {"break_even_use", offsetof(Result, break_even_use), 1},
    {"peak_power_w", offsetof(Result, peak_power_w), 1},
    {"power_swing_w", offsetof(Result, power_swing_w), 1},
    {"power_dip_w", offsetof(Result, power_dip_w), 1},
    {"power_ramp_w_per_s", offsetof(Result, power_ramp_w_s), 1},
    {"ramp_hold_share", offsetof(Result, ramp_hold_share), 1},
    {"co2e_operational_t", offsetof(Result, co2e_operational_t), 1},
    {"co2e_embodied_t", offsetof(Result, co2e_embodied_t), 1},
    {"co2e_t", offsetof(Result, co2e_t), 1},
    {"clock_plan_saving", offsetof(Result, clock_plan_saving), 1},
    {"clock_plan_min_clock", offsetof(Result, plan_min_clock), 1},
    {"energy_to_train_kwh_plan", offsetof(Result, energy_to_train_plan_j), 3.6e6},
};

/* How each column is read off a row, worked out once from its name (the
 * writers read every cell of every row: no name is compared per cell). */
typedef enum {
    RD_NONE, /* no reader: a bug (tests/test_report.c reads every column) */
    RD_SCENARIO,
    RD_STATUS,
    RD_ERROR,
    RD_AXIS,
    RD_SERIES,
    RD_SYSTEM,
    RD_MODEL,
    RD_PRECISION,
    RD_FRAMEWORK,
    RD_DEVICES,
    RD_GLOBAL_BATCH, /* the readers above read a row that did not evaluate too */
    RD_CODESIGN_POINTS,
    RD_CODESIGN_GAIN,
    RD_SEARCHED,
    RD_FEASIBLE,
    RD_PRUNED,
    RD_FITS,
    RD_BOTTLENECK,
    RD_TP_TIER,
    RD_PP_TIER,
    RD_DP_TIER,
    RD_CONVERGENCE,
    RD_BASIS,
    RD_FIGURE
} ReadKind;

typedef struct {
    size_t off; /* RD_FIGURE: the Result field, */
    double div; /* in the column's unit, */
    ReadKind kind;
    int interval; /* times the interval's low (1) or high (2) end, or not (0) */
} Reader;

static Reader reader_of(int i)
{
    static const struct {
        const char *name;
        ReadKind kind;
    } named[] = {
        {"scenario", RD_SCENARIO},
        {"status", RD_STATUS},
        {"error", RD_ERROR},
        {"series", RD_SERIES},
        {"system", RD_SYSTEM},
        {"model", RD_MODEL},
        {"precision", RD_PRECISION},
        {"framework", RD_FRAMEWORK},
        {"devices", RD_DEVICES},
        {"global_batch", RD_GLOBAL_BATCH},
        {"codesign_points", RD_CODESIGN_POINTS},
        {"codesign_gain", RD_CODESIGN_GAIN},
        {"strategies_searched", RD_SEARCHED},
        {"strategies_feasible", RD_FEASIBLE},
        {"strategies_pruned", RD_PRUNED},
        {"fits_memory", RD_FITS},
        {"bottleneck", RD_BOTTLENECK},
        {"tp_tier", RD_TP_TIER},
        {"pp_tier", RD_PP_TIER},
        {"dp_tier", RD_DP_TIER},
        {"convergence", RD_CONVERGENCE},
        {"interval_basis", RD_BASIS},
    };
    Reader rd = {0, 1, RD_NONE, 0};
    const char *name = report_cols[i].name;
    if (i >= REPORT_AXIS0 && i < REPORT_AXIS0 + AXIS_COUNT)
        return rd.kind = RD_AXIS, rd;
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++)
        if (!strcmp(named[k].name, name))
            return rd.kind = named[k].kind, rd;
    /* a _lo / _hi column: the base figure times the interval's end */
    char base[64];
    const size_t nl = strlen(name);
    if (nl > 3 && nl < sizeof base && (!strcmp(name + nl - 3, "_lo") || !strcmp(name + nl - 3, "_hi"))) {
        rd.interval = !strcmp(name + nl - 3, "_lo") ? 1 : 2;
        memcpy(base, name, nl - 3);
        base[nl - 3] = '\0';
        name = base;
    }
    for (size_t k = 0; k < sizeof figures / sizeof figures[0]; k++)
        if (!strcmp(figures[k].name, name)) {
            rd.kind = RD_FIGURE;
            rd.off = figures[k].off;
            rd.div = figures[k].div;
            return rd;
        }
    return (Reader){0, 1, RD_NONE, 0};
}

static Reader readers[sizeof report_cols / sizeof report_cols[0]];
static pthread_once_t readers_once = PTHREAD_ONCE_INIT;

static void readers_init(void)
{
    for (int i = 0; i < report_ncols; i++)
        readers[i] = reader_of(i);
}

int report_value(int i, const RunRow *rr, double *num, char *t, size_t n)
{
    pthread_once(&readers_once, readers_init);
    const Reader *rd = &readers[i];
    const Scenario *sc = &rr->sc;
    const Result *r = &rr->r;
    const int ok = rr->built && r->status != STATUS_ERROR;
    *num = NAN;
    t[0] = '\0';
    switch (rd->kind) {
    case RD_SCENARIO:
        return text(t, n, sc->name);
    case RD_STATUS:
        return text(t, n, rr->built ? status_name(r->status) : "error");
    case RD_ERROR:
        return text(t, n, ok ? "" : r->error);
    default:
        break;
    }
    if (!rr->built)
        return report_cols[i].type == RC_TEXT ? 0 : 1;
    switch (rd->kind) {
    case RD_AXIS:
        return axis_cell((StrategyAxis)(i - REPORT_AXIS0), ok ? &r->st : &sc->st, num, t, n);
    case RD_SERIES:
        return text(t, n, sc->series);
    case RD_SYSTEM:
        return text(t, n, sc->system.name);
    case RD_MODEL:
        return text(t, n, sc->model.name);
    case RD_PRECISION:
        return text(t, n, precision_name(sc->precision));
    case RD_FRAMEWORK:
        return text(t, n, sc->system.framework.name);
    case RD_DEVICES:
        return *num = sc->devices, 1;
    case RD_GLOBAL_BATCH:
        return *num = (double)(ok ? r->st.global_batch : sc->st.global_batch), 1;
    default:
        break;
    }
    if (rd->kind == RD_NONE)
        return -1; /* a column without a reader: tests/test_report.c fails on it */
    if (!ok)
        return report_cols[i].type == RC_TEXT ? 0 : 1;
    switch (rd->kind) {
    case RD_CODESIGN_POINTS:
        return *num = r->design_evals > 0 ? r->design_evals : NAN, 1;
    case RD_CODESIGN_GAIN:
        return *num = r->design_evals > 0 ? r->design_start_s / merit_time(merit_of(r)) : NAN, 1;
    case RD_SEARCHED:
        return *num = r->searched > 0 ? r->searched : NAN, 1;
    case RD_FEASIBLE:
        return *num = r->searched > 0 ? r->search_feasible : NAN, 1;
    case RD_PRUNED:
        return *num = r->searched > 0 ? r->search_pruned : NAN, 1;
    case RD_FITS:
        return text(t, n, r->fits_memory ? "yes" : "no");
    case RD_BOTTLENECK:
        return text(t, n, r->bottleneck);
    case RD_TP_TIER:
        return text(t, n, r->tp_tier);
    case RD_PP_TIER:
        return text(t, n, r->pp_tier);
    case RD_DP_TIER:
        return text(t, n, r->dp_tier);
    case RD_CONVERGENCE: {
        if (r->conv_extrapolated < 0)
            return text(t, n, "");
        const char *of = sc->model.convergence.measured_model;
        const int borrowed = of[0] && strcmp(of, sc->model.name);
        snprintf(t, n, "%s%s%s", r->conv_extrapolated ? "extrapolated" : "measured",
                 borrowed ? "; curve of " : "", borrowed ? of : "");
        return 0;
    }
    case RD_BASIS:
        return text(t, n, r->interval_basis);
    default: { /* RD_FIGURE */
        double raw;
        memcpy(&raw, (const char *)r + rd->off, sizeof raw);
        const double scale = rd->interval == 1 ? r->interval_lo : rd->interval == 2 ? r->interval_hi : 1.0;
        *num = raw / rd->div * scale;
        return 1;
    }
    }
}

const ReportCol runner_cols[] = {
    {"scenario", "", RC_TEXT, RF_PLAIN, "the row whose auto fields the search resolved"},
    {"rank", "", RC_INT, RF_PLAIN, "1: the strategy the row reports; 2, 3, ...: the runners-up"},
    STRATEGY_AXES(AXIS_COL){"global_batch", "samples", RC_INT, RF_PLAIN, "samples per optimizer step"},
    {"step_time_s", "s", RC_NUM, RF_SECONDS, "time of one optimizer step"},
    {"time_to_train_days", "days", RC_NUM, RF_DAYS, "time to train (empty: the row gives no amount)"},
    {"slower_than_best", "", RC_NUM, RF_PERCENT,
     "how much longer than rank 1 it takes to train (per sample when there is no amount)"},
    {"mfu", "", RC_NUM, RF_PERCENT, "model FLOPs utilisation"},
    {"memory_per_device_gib", "GiB", RC_NUM, RF_GIB, "memory of the most loaded device"},
    {"energy_to_train_kwh", "kWh", RC_NUM, RF_KWH, "system energy to train"},
    {"bottleneck", "", RC_TEXT, RF_PLAIN, "largest component of the step"},
};
#undef AXIS_COL
const int runner_ncols = (int)(sizeof runner_cols / sizeof runner_cols[0]);

int runner_value(int i, const RunRow *rr, int rank, double *num, char *t, size_t n)
{
    const Candidate *c = &rr->top[rank];
    const char *name = runner_cols[i].name;
    *num = NAN;
    t[0] = '\0';
    if (!strcmp(name, "scenario"))
        return text(t, n, rr->sc.name);
    if (i >= RUNNER_AXIS0 && i < RUNNER_AXIS0 + AXIS_COUNT)
        return axis_cell((StrategyAxis)(i - RUNNER_AXIS0), &c->st, num, t, n);
    if (!strcmp(name, "bottleneck"))
        return text(t, n, c->bottleneck);
    double v = NAN;
    if (!strcmp(name, "rank"))
        v = rank + 1;
    else if (!strcmp(name, "global_batch"))
        v = (double)c->st.global_batch;
    else if (!strcmp(name, "step_time_s"))
        v = c->step_time_s;
    else if (!strcmp(name, "time_to_train_days"))
        v = c->merit.time_to_train_s / 86400.0;
    else if (!strcmp(name, "slower_than_best"))
        v = merit_time(c->merit) / merit_time(rr->top[0].merit) - 1.0;
    else if (!strcmp(name, "mfu"))
        v = c->mfu;
    else if (!strcmp(name, "memory_per_device_gib"))
        v = c->mem_total_bytes / GIB_BYTES;
    else if (!strcmp(name, "energy_to_train_kwh"))
        v = c->merit.energy_to_train_j / 3.6e6;
    else
        return -1; /* a column without a reader: tests/test_report.c fails on it */
    *num = v;
    return 1;
}

/* Headers a reader of the workbook understands; the CSV name stays in the
 * glossary beside each. */
static const struct {
    const char *name, *label;
} col_labels[] = {
    {"scenario", "Scenario"},
    {"series", "Series"},
    {"status", "Status"},
    {"error", "Error"},
    {"system", "System"},
    {"model", "Model"},
    {"devices", "Devices"},
    {"global_batch", "Global batch"},
    {"precision", "Precision"},
    {"framework", "Training stack"},
    {"codesign_points", "Co-design points"},
    {"codesign_gain", "Co-design gain"},
    {"strategies_searched", "Strategies searched"},
    {"strategies_feasible", "Strategies that fit"},
    {"strategies_pruned", "Strategies skipped as equivalent"},
    {"step_time_s", "Step time"},
    {"step_time_s_lo", "Step time, low"},
    {"step_time_s_hi", "Step time, high"},
    {"samples_per_s", "Throughput"},
    {"steps", "Steps"},
    {"epochs", "Epochs"},
    {"time_to_train_days_bcrit_half", "Time to train, critical batch halved"},
    {"time_to_train_days_bcrit_double", "Time to train, critical batch doubled"},
    {"convergence", "Convergence curve"},
    {"time_to_train_s", "Time to train"},
    {"time_to_train_days", "Time to train"},
    {"time_to_train_days_lo", "Time to train, low"},
    {"time_to_train_days_hi", "Time to train, high"},
    {"goodput", "Goodput"},
    {"time_to_train_days_failures", "Time to train with failures"},
    {"mtti_hours", "Mean time to interruption"},
    {"checkpoint_s", "Checkpoint write"},
    {"checkpoint_interval_s", "Checkpoint interval"},
    {"model_tflops_per_device", "Model throughput per device"},
    {"mfu", "Model FLOPs utilisation"},
    {"hfu", "Hardware FLOPs utilisation"},
    {"scaling_efficiency", "Scaling efficiency"},
    {"speedup", "Speedup over baseline"},
    {"speedup_bcrit_half", "Speedup, critical batch halved"},
    {"speedup_bcrit_double", "Speedup, critical batch doubled"},
    {"speedup_best", "Speedup, best against best"},
    {"speedup_best_bcrit_half", "Best against best, critical batch halved"},
    {"speedup_best_bcrit_double", "Best against best, critical batch doubled"},
    {"memory_per_device_gib", "Memory per device"},
    {"memory_capacity_gib", "Memory capacity"},
    {"fits_memory", "Fits in memory"},
    {"bottleneck", "Bottleneck"},
    {"weights_gib", "Weights"},
    {"gradients_gib", "Gradients"},
    {"optimizer_gib", "Optimizer state"},
    {"activations_gib", "Activations"},
    {"tp_tier", "Tensor-parallel network"},
    {"pp_tier", "Pipeline network"},
    {"dp_tier", "Data-parallel network"},
    {"device_power_w", "Device power"},
    {"system_power_w", "System power at the wall"},
    {"energy_per_step_j", "Energy per step"},
    {"energy_to_train_kwh", "Energy to train"},
    {"energy_to_train_kwh_lo", "Energy to train, low"},
    {"energy_to_train_kwh_hi", "Energy to train, high"},
    {"cost_usd", "Cost"},
    {"cost_usd_lo", "Cost, low"},
    {"cost_usd_hi", "Cost, high"},
    {"purchase_usd", "Purchase"},
    {"energy_cost_usd", "Energy cost"},
    {"tco_usd", "Owning, the run's share"},
    {"tco_year_usd", "Owning, a year"},
    {"break_even_use", "Buy beats rent from a use of"},
    {"peak_power_w", "Peak power at the wall"},
    {"power_swing_w", "Power swing"},
    {"power_dip_w", "Power dip each step"},
    {"power_ramp_w_per_s", "Ramp limit"},
    {"ramp_hold_share", "Energy holding the ramp"},
    {"co2e_operational_t", "Operational CO2e"},
    {"co2e_embodied_t", "Embodied CO2e"},
    {"co2e_t", "CO2e"},
    {"clock_plan_saving", "Clock plan saves"},
    {"clock_plan_min_clock", "Clock plan, lowest stage clock"},
    {"energy_to_train_kwh_plan", "Energy to train, clock plan"},
    {"interval_basis", "Range from"},
    {"rank", "Rank"},
    {"slower_than_best", "Slower than rank 1"},
};

const char *rpt_col_label(const char *name)
{
    const int a = strategy_axis_find(name);
    if (a >= 0)
        return strategy_axes[a].label;
    for (size_t i = 0; i < sizeof col_labels / sizeof col_labels[0]; i++)
        if (!strcmp(col_labels[i].name, name))
            return col_labels[i].label;
    return NULL;
}
