/* report/sheet_summary.c — the workbook's Summary sheet: the study's title
 * and question, the best scenario of each series, speedups as formulas
 * with cached values, and native charts of time-to-train, efficiency and
 * system power against devices (log-2 axis, one line per series), the
 * speedup and Pareto charts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook.h"

enum {
    B_SERIES,
    B_SCEN,
    B_TIME,
    B_RANGE,
    B_SPEEDUP,
    B_DEV,
    B_SYS,
    B_STRAT,
    B_SPS,
    B_MFU,
    B_SCALE,
    B_POWER,
    B_ENERGY,
    B_COST,
    B_GOODPUT,
    B_WALL,
    B_LIMIT,
    B_NCOL
};

/* The answer's merged range: the best table's first columns (series to
 * strategy, about 150 characters wide in the shipped studies), and the
 * bold characters a line of it is taken to hold, low, so that its row is
 * never too short. */
#define SUMMARY_ANSWER_COLS  (B_STRAT + 1)
#define SUMMARY_ANSWER_CHARS 110

/* The four charts of a model, two by two: each 288 px high by this scale
 * (tall enough that a legend of ten series leaves room to plot), over
 * rows of 20 px; a block of four and a spare row. */
#define SUMMARY_CHART_YSCALE 1.6
#define SUMMARY_CHART_ROWS   24
#define SUMMARY_BLOCK_ROWS   (2 * SUMMARY_CHART_ROWS + 1)

/* Chart-data block columns. */
enum {
    D_SERIES,
    D_SCEN,
    D_DEV,
    D_TIME,
    D_MFU,
    D_SCALE,
    D_POWER,
    D_TLO,
    D_THI,
    D_SPEEDUP,
    D_COST,
    D_ENERGY,
    D_NCOL
};

/* Speedup of row b over reference row a: a formula from cell references
 * with its value cached, or "n/a".  ra, rb: 0-based rows of the best table. */
static void put_speedup(X *x, Sheet *sh, int row, int col, const RunRow *a, int ra, const RunRow *b, int rb,
                        int by_time)
{
    char ca[8], f[96];
    double v = NAN;
    if (by_time && xl_has_ttt(a) && xl_has_ttt(b)) {
        rpt_col_letters(B_TIME, ca);
        v = a->r.time_to_train_s / b->r.time_to_train_s;
        snprintf(f, sizeof f, "=%s%d/%s%d", ca, ra + 1, ca, rb + 1);
    } else if (isfinite(a->r.samples_per_s) && isfinite(b->r.samples_per_s) && a->r.samples_per_s > 0) {
        rpt_col_letters(B_SPS, ca);
        v = b->r.samples_per_s / a->r.samples_per_s;
        snprintf(f, sizeof f, "=%s%d/%s%d", ca, rb + 1, ca, ra + 1);
    }
    if (!isfinite(v)) {
        xl_put_text(x, sh, row, col, "n/a", NULL);
        return;
    }
    xl_check(x, worksheet_write_formula_num(sh->ws, (lxw_row_t)row, (lxw_col_t)col, f, x->speedup, v));
    xl_widen(sh, col, 7);
}

/* v to three significant figures, as %.3g writes it below 1,000 and as a
 * whole number with thousands separators from there (11,900, not
 * 1.19e+04): a range a reader takes in at a glance. */
static void sig3(double v, char *buf, size_t n)
{
    if (!(fabs(v) >= 1000.0) || !isfinite(v)) {
        snprintf(buf, n, "%.3g", v);
        return;
    }
    const double p = pow(10.0, floor(log10(fabs(v))) - 2.0);
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", round(v / p) * p);
    const char *d = digits;
    size_t at = 0;
    if (*d == '-' && at + 1 < n)
        buf[at++] = *d++;
    const size_t len = strlen(d);
    for (size_t k = 0; k < len && at + 2 < n; k++) {
        if (k > 0 && (len - k) % 3 == 0)
            buf[at++] = ',';
        buf[at++] = d[k];
    }
    buf[at] = '\0';
}

static void best_row(X *x, Sheet *sh, int row, const RptSeries *s)
{
    xl_put_text(x, sh, row, B_SERIES, s->name, x->bold);
    if (s->best < 0) {
        xl_put_text(x, sh, row, B_SCEN, "no scenario of this series fits and runs", x->note);
        return;
    }
    const RunRow *rr = &x->run->row[s->best];
    const Result *r = &rr->r;
    /* no scenario of the series meets its constraints: the best of all,
     * greyed, and what it misses where the table says what limits it */
    char misses[160];
    const int missed = rpt_misses(rr, misses, sizeof misses);
    xl_put_text(x, sh, row, B_SCEN, rr->sc.name, missed ? x->note : NULL);
    if (x->set.by_ttt)
        xl_put_num(x, sh, row, B_TIME, xl_ttt_shown(x, rr), x->days);
    else
        xl_put_num(x, sh, row, B_TIME, r->step_time_s, x->secs);
    int lines = 1; /* of the row's wrapped cells */
    if (isfinite(r->interval_lo) && isfinite(r->interval_hi)) {
        /* a global batch beyond what its convergence curve's source
         * measured, a batch a device below what its stack was validated
         * at: said here too, not only on the Scenarios sheet */
        char range[128], lo[32], hi[32];
        sig3(xl_shown_time(x, rr, r->interval_lo), lo, sizeof lo);
        sig3(xl_shown_time(x, rr, r->interval_hi), hi, sizeof hi);
        snprintf(range, sizeof range, "%s to %s%s%s", lo, hi,
                 x->set.by_ttt && r->conv_extrapolated > 0 ? "; curve extrapolated" : "",
                 r->batch_below ? "; batch below the validated" : "");
        xl_put_text(x, sh, row, B_RANGE, range, x->wrap_low); /* wrapped, as the strategy below */
        lines = (int)((xl_utf8_chars(range) + 35) / 36);
    } else {
        xl_put_text(x, sh, row, B_RANGE, "none (ideal stack)", x->note);
    }
    xl_put_num(x, sh, row, B_DEV, rr->sc.devices, x->intf);
    char sys_stack[2 * NAME_MAX_LEN + 8];
    snprintf(sys_stack, sizeof sys_stack, "%s; %s", rr->sc.system.name, rr->sc.system.framework.name);
    xl_put_text(x, sh, row, B_SYS, sys_stack, NULL);
    char st[256];
    strategy_describe(&r->st, 1, st, sizeof st);
    xl_put_text(x, sh, row, B_STRAT, st, x->wrap_low); /* wrapped past the sheet's widest column (40) */
    const int st_lines = (int)((xl_utf8_chars(st) + 35) / 36);
    if (st_lines > lines)
        lines = st_lines;
    if (lines > 1)
        xl_header_height(sh, row, lines);
    xl_put_num(x, sh, row, B_SPS, r->samples_per_s, x->kw);
    xl_put_num(x, sh, row, B_MFU, r->mfu, x->pct);
    xl_put_num(x, sh, row, B_SCALE, r->scaling_efficiency, x->pct);
    xl_put_num(x, sh, row, B_POWER, r->system_power_w / 1e3, x->kw);
    xl_put_num(x, sh, row, B_ENERGY, r->energy_to_train_j / x->eunit_j, x->mwh);
    const double cost = r->cost_usd; /* evaluate.c's: price x devices x time to train */
    if (isfinite(cost))
        xl_put_num(x, sh, row, B_COST, cost, x->usd);
    else
        xl_put_text(x, sh, row, B_COST, "unknown", x->note);
    if (isfinite(r->failures.goodput)) { /* the system states its failure rate */
        xl_put_num(x, sh, row, B_GOODPUT, r->failures.goodput, x->pct);
        xl_put_num(x, sh, row, B_WALL, r->failures.wall_s / x->tunit_s, x->days);
    } else {
        xl_put_text(x, sh, row, B_GOODPUT, "not stated", x->note);
    }
    if (missed) {
        char limit[400];
        snprintf(limit, sizeof limit, "%s; %s", misses, r->bottleneck);
        xl_put_text(x, sh, row, B_LIMIT, limit, x->note);
    } else {
        xl_put_text(x, sh, row, B_LIMIT, r->bottleneck, NULL);
    }
}

/* A round number at or above v (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x a power of ten). */
static double nice_ceil(double v)
{
    if (!(v > 0))
        return 1;
    double p = pow(10, floor(log10(v)));
    static const double steps[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] * p >= v * (1 - 1e-12))
            return steps[i] * p;
    return 10 * p;
}

static unsigned pow2_floor(double v)
{
    unsigned p = 1;
    while ((double)p * 2 <= v && p < (1u << 30))
        p *= 2;
    return p;
}

static void style_xy_chart(lxw_chart *c, const char *title, const char *yname, double dmin, double dmax)
{
    chart_title_set_name(c, title);
    lxw_chart_font tf = {.size = 12, .bold = 1};
    chart_title_set_name_font(c, &tf);
    chart_axis_set_name(c->x_axis, "devices (log scale, base 2)");
    chart_axis_set_name(c->y_axis, yname);
    chart_axis_set_log_base(c->x_axis, 2);
    chart_axis_set_major_unit(c->x_axis, 2); /* one tick per doubling (a factor on a log axis) */
    if (dmin > 0) {
        unsigned lo = pow2_floor(dmin), hi = pow2_floor(dmax);
        if ((double)hi < dmax)
            hi *= 2;
        if (hi == lo)
            hi = lo * 2;
        chart_axis_set_min(c->x_axis, lo);
        /* a hair above the last power of two: a point exactly at the
         * maximum of a log axis is clipped by some readers */
        chart_axis_set_max(c->x_axis, hi * 1.001);
    }
    chart_axis_set_num_format(c->x_axis, "#,##0");
    chart_axis_major_gridlines_set_visible(c->x_axis, LXW_TRUE);
    chart_legend_set_position(c, LXW_CHART_LEGEND_BOTTOM);
    chart_show_blanks_as(c, LXW_CHART_BLANKS_AS_GAP);
}

/* One colour per system (a series' band lines share it), the Okabe-Ito
 * colours of the gnuplot charts; one dash and marker per strategy (the
 * series' variant within its system and model). */
static const lxw_color_t series_palette[] = {0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7,
                                             0xE69F00, 0x56B4E9, 0x000000, 0xF0E442};
#define NPALETTE ((int)(sizeof series_palette / sizeof series_palette[0]))

static void style_series(lxw_chart_series *cs, const RptSeries *s, int lines)
{
    static const uint8_t dash[RPT_STYLE_VARIANTS] = {
        LXW_CHART_LINE_DASH_SOLID, LXW_CHART_LINE_DASH_DASH, LXW_CHART_LINE_DASH_ROUND_DOT,
        LXW_CHART_LINE_DASH_DASH_DOT, LXW_CHART_LINE_DASH_LONG_DASH_DOT_DOT};
    static const uint8_t marker[RPT_STYLE_VARIANTS] = {LXW_CHART_MARKER_CIRCLE, LXW_CHART_MARKER_SQUARE,
                                                       LXW_CHART_MARKER_TRIANGLE, LXW_CHART_MARKER_DIAMOND,
                                                       LXW_CHART_MARKER_STAR};
    const lxw_color_t col = series_palette[s->colour % NPALETTE];
    if (lines) {
        lxw_chart_line ln = {.color = col, .width = 2.25, .dash_type = dash[s->variant % RPT_STYLE_VARIANTS]};
        chart_series_set_line(cs, &ln);
    }
    chart_series_set_marker_type(cs, marker[s->variant % RPT_STYLE_VARIANTS]);
    chart_series_set_marker_size(cs, 6);
    lxw_chart_fill mf = {.color = col};
    lxw_chart_line ml = {.color = col};
    chart_series_set_marker_fill(cs, &mf);
    chart_series_set_marker_line(cs, &ml);
}

/* A chart series over rows r1..r2 of the data sheet: x from column xc, y
 * from column yc, its name a reference to the cell (name_row, D_SERIES) so
 * that no user text is ever parsed as a formula or a range.  NULL when
 * the chart takes no more series. */
static lxw_chart_series *block_series(lxw_chart *c, const char *sheet, int r1, int r2, int xc, int yc,
                                      int name_row)
{
    lxw_chart_series *cs = chart_add_series(c, NULL, NULL);
    if (!cs)
        return NULL;
    chart_series_set_categories(cs, sheet, (lxw_row_t)r1, (lxw_col_t)xc, (lxw_row_t)r2, (lxw_col_t)xc);
    chart_series_set_values(cs, sheet, (lxw_row_t)r1, (lxw_col_t)yc, (lxw_row_t)r2, (lxw_col_t)yc);
    chart_series_set_name_range(cs, sheet, (lxw_row_t)name_row, D_SERIES);
    return cs;
}

/* The chart helpers from row h (issue 27): the study's deadline and power
 * budget as two points across the devices (where every row states the
 * same), and each model's recommended scenario (recs, rpt_recommended).  Sets x->marks_*. */
static void chart_marks_data(X *x, Sheet *sh, int h, double dmin, double dmax, const int *recs, int n)
{
    const Run *run = x->run;
    double deadline, power;
    rpt_study_constraints(run, &deadline, &power);
    x->marks_row = h;
    x->marks_deadline = x->set.by_ttt && deadline > 0;
    x->marks_power = power > 0;
    xl_put_long(
        x, sh, h, 0,
        "Chart helpers: the study's deadline and power budget across the devices, and the recommended "
        "scenarios (the red marks of the charts)",
        x->section);
    for (int e = 0; e < 2; e++) {
        xl_put_text(x, sh, h + 1 + e, D_SERIES, "constraint", x->note);
        xl_put_num(x, sh, h + 1 + e, D_DEV, e ? dmax : dmin, x->intf);
        if (x->marks_deadline)
            xl_put_num(x, sh, h + 1 + e, D_TIME, deadline / x->tunit_s, x->days);
        if (x->marks_power)
            xl_put_num(x, sh, h + 1 + e, D_POWER, power / 1e3, x->kw);
    }
    x->nmarks = 0;
    for (int k = 0; k < n; k++) {
        const RunRow *rr = &run->row[recs[k]];
        if (!rpt_meets(rr))
            continue;
        x->marks_group[x->nmarks] = -1;
        for (int i = 0; i < x->set.n; i++)
            if (!strcmp(x->set.s[i].name, rr->sc.series))
                x->marks_group[x->nmarks] = x->set.s[i].group;
        const int r = h + 3 + x->nmarks++;
        xl_put_text(x, sh, r, D_SERIES, rr->sc.series, x->note);
        xl_put_text(x, sh, r, D_SCEN, rr->sc.name, x->note);
        xl_put_num(x, sh, r, D_DEV, rr->sc.devices, x->intf);
        xl_put_num(x, sh, r, D_TIME, xl_has_ttt(rr) ? xl_ttt_shown(x, rr) : NAN, x->days);
        xl_put_num(x, sh, r, D_POWER, rr->r.system_power_w / 1e3, x->kw);
    }
}

/* A chart series of helper rows r1..r2 (x: devices, y: column col). */
static lxw_chart_series *mark_series(lxw_chart *c, const char *sheet, int r1, int r2, int col,
                                     const char *name)
{
    lxw_chart_series *cs = chart_add_series(c, NULL, NULL);
    if (!cs)
        return NULL;
    chart_series_set_categories(cs, sheet, (lxw_row_t)r1, D_DEV, (lxw_row_t)r2, D_DEV);
    chart_series_set_values(cs, sheet, (lxw_row_t)r1, (lxw_col_t)col, (lxw_row_t)r2, (lxw_col_t)col);
    chart_series_set_name(cs, name);
    return cs;
}

/* The marks of a time or power chart of model group (-1: every model):
 * the constraint as a red dashed line, the model's recommended scenario
 * as a red circle. */
static void chart_marks(X *x, Sheet *sh, lxw_chart *c, int group, int col)
{
    if (x->marks_row < 0 || (col != D_TIME && col != D_POWER))
        return;
    const int h = x->marks_row;
    if (col == D_TIME ? x->marks_deadline : x->marks_power) {
        lxw_chart_series *cs =
            mark_series(c, sh->name, h + 1, h + 2, col, col == D_TIME ? "deadline" : "power budget");
        if (cs) {
            lxw_chart_line ln = {.color = 0xC00000, .width = 1.5, .dash_type = LXW_CHART_LINE_DASH_DASH};
            chart_series_set_line(cs, &ln);
            chart_series_set_marker_type(cs, LXW_CHART_MARKER_NONE);
        }
    }
    for (int k = 0; k < x->nmarks; k++) {
        if (col == D_TIME && !x->set.by_ttt)
            break;
        if (group >= 0 && x->marks_group[k] != group)
            continue;
        lxw_chart_series *cs = mark_series(c, sh->name, h + 3 + k, h + 3 + k, col, "recommended");
        if (!cs)
            continue;
        chart_series_set_marker_type(cs, LXW_CHART_MARKER_CIRCLE);
        chart_series_set_marker_size(cs, 11);
        lxw_chart_line no_line;
        memset(&no_line, 0, sizeof no_line);
        no_line.none = LXW_TRUE;
        chart_series_set_line(cs, &no_line);
        lxw_chart_fill no_fill;
        memset(&no_fill, 0, sizeof no_fill);
        no_fill.none = LXW_TRUE;
        chart_series_set_marker_fill(cs, &no_fill);
        lxw_chart_line border = {.color = 0xC00000, .width = 2};
        chart_series_set_marker_line(cs, &border);
    }
}

static void summary_chart(X *x, Sheet *sh, const int *blk, int group, int col, const char *title0,
                          const char *yname, const char *yfmt, int ylog, double dmin, double dmax, int row,
                          int xoff)
{
    /* a study of several models: one chart per model (group >= 0) */
    char title[200];
    int first = -1, part = 1, parts = 1; /* a row of the model's; which of its charts */
    for (int i = 0; group >= 0 && i < x->set.n && first < 0; i++)
        if (x->set.s[i].group == group && x->set.s[i].npt > 0) {
            first = x->set.s[i].pt[0];
            part = x->set.s[i].part;
            parts = x->set.s[i].parts;
        }
    if (first >= 0 && parts > 1)
        snprintf(title, sizeof title, "%s (part %d of %d): %s", x->run->row[first].sc.model.name, part, parts,
                 title0);
    else if (first >= 0)
        snprintf(title, sizeof title, "%s: %s", x->run->row[first].sc.model.name, title0);
    else
        snprintf(title, sizeof title, "%s", title0);
    lxw_chart *c = workbook_add_chart(x->wb, LXW_CHART_SCATTER_STRAIGHT_WITH_MARKERS);
    if (!c) {
        xl_check(x, LXW_ERROR_MEMORY_MALLOC_FAILED);
        return;
    }
    style_xy_chart(c, title, yname, dmin, dmax);
    double ymax = 0;
    for (int i = 0; i < x->set.n; i++)
        for (int k = 0; k < x->set.s[i].npt; k++) {
            const RunRow *p = &x->run->row[x->set.s[i].pt[k]];
            double v = col == D_MFU     ? p->r.mfu
                       : col == D_SCALE ? p->r.scaling_efficiency
                       : col == D_POWER ? p->r.system_power_w / 1e3
                                        : NAN;
            if (isfinite(v) && v > ymax)
                ymax = v;
        }
    if (ylog) {
        chart_axis_set_log_base(c->y_axis, 10);
    } else {
        /* explicit bounds: some readers scale the axis to the first series only */
        chart_axis_set_min(c->y_axis, 0);
        if (ymax > 0)
            chart_axis_set_max(c->y_axis, nice_ceil(ymax * 1.05));
    }
    chart_axis_set_num_format(c->y_axis, yfmt);
    int nmain = 0;
    for (int i = 0; i < x->set.n; i++) {
        const RptSeries *s = &x->set.s[i];
        if (s->npt == 0 || (group >= 0 && s->group != group))
            continue;
        lxw_chart_series *cs = block_series(c, sh->name, blk[i], blk[i] + s->npt - 1, D_DEV, col, blk[i]);
        if (!cs)
            continue;
        nmain++;
        style_series(cs, s, 1);
    }
    /* the time chart: each series' 90 % prediction interval as thin dashed
     * low and high lines, out of the legend */
    int nband = 0;
    for (int i = 0; col == D_TIME && i < x->set.n; i++) {
        const RptSeries *s = &x->set.s[i];
        if (s->npt == 0 || (group >= 0 && s->group != group) ||
            !isfinite(x->run->row[s->pt[0]].r.interval_lo))
            continue;
        for (int e = 0; e < 2; e++) {
            lxw_chart_series *cs =
                block_series(c, sh->name, blk[i], blk[i] + s->npt - 1, D_DEV, e ? D_THI : D_TLO, blk[i]);
            if (!cs)
                continue;
            lxw_chart_line ln = {.color = series_palette[s->colour % NPALETTE],
                                 .width = 0.75,
                                 .dash_type = LXW_CHART_LINE_DASH_DASH};
            chart_series_set_line(cs, &ln);
            chart_series_set_marker_type(cs, LXW_CHART_MARKER_NONE);
            nband++;
        }
    }
    if (nband > 0 && nband <= 62) {
        int16_t del[64];
        for (int k = 0; k < nband; k++)
            del[k] = (int16_t)(nmain + k);
        del[nband] = -1;
        chart_legend_delete_series(c, del);
    }
    chart_marks(x, sh, c, group, col);
    xl_insert_chart(x, sh, row, c, 4 + xoff, 6, 1.3, SUMMARY_CHART_YSCALE);
}

/* One chart per model whose series have a baseline: the speedup over the
 * baseline against devices, with the break-even line at 1 (where a series
 * crosses it, it starts to win).  Below the chart data, from row `row`. */
static int speedup_charts(X *x, Sheet *sh, const int *blk, double dmin, double dmax, int row)
{
    const Run *run = x->run;
    int nchart = 0;
    /* the break-even line: two points at the device range's ends */
    const int line_row = row;
    xl_put_text(x, sh, line_row, D_SERIES, "break-even (1.0x)", x->note);
    xl_put_num(x, sh, line_row, D_DEV, dmin, x->intf);
    xl_put_num(x, sh, line_row + 1, D_DEV, dmax, x->intf);
    xl_put_num(x, sh, line_row, D_SPEEDUP, 1.0, x->speedup);
    xl_put_num(x, sh, line_row + 1, D_SPEEDUP, 1.0, x->speedup);
    for (int i = 0; i < x->set.n; i++) {
        const RptSeries *s = &x->set.s[i];
        if (s->npt == 0 || !run->row[s->pt[0]].sc.baseline[0])
            continue;
        const char *model = run->row[s->pt[0]].sc.model.name;
        int seen = 0; /* a chart for this model already made */
        for (int j = 0; j < i && !seen; j++)
            seen = x->set.s[j].npt > 0 && run->row[x->set.s[j].pt[0]].sc.baseline[0] &&
                   !strcmp(run->row[x->set.s[j].pt[0]].sc.model.name, model);
        if (seen)
            continue;
        lxw_chart *c = workbook_add_chart(x->wb, LXW_CHART_SCATTER_STRAIGHT_WITH_MARKERS);
        if (!c) {
            xl_check(x, LXW_ERROR_MEMORY_MALLOC_FAILED);
            return ((nchart + 1) / 2) * 18;
        }
        char title[160];
        snprintf(title, sizeof title, "%s: speedup over the baseline vs devices", model);
        style_xy_chart(c, title, "speedup (time to train of the baseline / the series') (log scale)", dmin,
                       dmax);
        chart_axis_set_log_base(c->y_axis, 2);
        for (int j = i; j < x->set.n; j++) {
            const RptSeries *t = &x->set.s[j];
            if (t->npt == 0 || !run->row[t->pt[0]].sc.baseline[0] ||
                strcmp(run->row[t->pt[0]].sc.model.name, model))
                continue;
            lxw_chart_series *cs =
                block_series(c, sh->name, blk[j], blk[j] + t->npt - 1, D_DEV, D_SPEEDUP, blk[j]);
            if (!cs)
                continue;
            style_series(cs, t, 1);
        }
        lxw_chart_series *ref = block_series(c, sh->name, line_row, line_row + 1, D_DEV, D_SPEEDUP, line_row);
        if (ref) {
            lxw_chart_line ln = {.color = 0x7F7F7F, .width = 1.0, .dash_type = LXW_CHART_LINE_DASH_DASH};
            chart_series_set_line(ref, &ln);
            chart_series_set_marker_type(ref, LXW_CHART_MARKER_NONE);
        }
        xl_insert_chart(x, sh, row + 3 + (nchart / 2) * 18, c, 4 + (nchart % 2) * 640, 6, 1.3, 1.15);
        nchart++;
    }
    return ((nchart + 1) / 2) * 18; /* rows the charts take */
}

/* What a Pareto chart weighs time to train against: the cost, the system
 * power or the energy to train. */
typedef struct {
    int col;            /* the chart data's column */
    const char *noun;   /* "cheaper" */
    const char *head;   /* the table's header */
    const char *axis;   /* the chart's x axis */
    const char *title;  /* the chart's title */
    const char *numfmt; /* x axis number format */
} ParetoAxis;

static double pareto_value(const RunRow *p, int col)
{
    return col == D_COST    ? p->r.cost_usd
           : col == D_POWER ? p->r.system_power_w / 1e3
                            : p->r.energy_to_train_j / 3.6e9;
}

/* Time to train against one cost (money, power, energy) for the best
 * scenario of each series at each device count, and the Pareto front of
 * all of them (no other point is both faster and cheaper by that cost):
 * what each extra dollar, watt or joule buys.  Its cells and chart go from
 * row `row`; returns the rows they take (0: nothing to chart). */
static int pareto_chart(X *x, Sheet *sh, const int *blk, int row, const ParetoAxis *ax)
{
    const Run *run = x->run;
    if (!x->set.by_ttt)
        return 0;
    /* a front per question (model and amount of training: one model's
     * time says nothing of another's): sort the points by question, then
     * cost, and keep each one faster than every cheaper one */
    int n = 0, cap = 0;
    for (int i = 0; i < x->set.n; i++)
        cap += x->set.s[i].npt;
    int *idx = cap ? malloc(sizeof *idx * 2 * (size_t)cap) : NULL;
    if (!idx)
        return 0;
    int *q = idx + cap, rep[RPT_MODELS_MAX];
    for (int i = 0; i < x->set.n; i++)
        for (int k = 0; k < x->set.s[i].npt; k++) {
            const RunRow *p = &run->row[x->set.s[i].pt[k]];
            if (isfinite(pareto_value(p, ax->col)) && xl_has_ttt(p))
                idx[n++] = x->set.s[i].pt[k];
        }
    if (n < 2) {
        free(idx);
        return 0;
    }
    const int nq = rpt_questions(run, idx, n, q, rep, RPT_MODELS_MAX);
    for (int i = 1; i < n; i++) /* insertion sort by question and cost: a few hundred points */
        for (int j = i; j > 0 && (q[j] < q[j - 1] ||
                                  (q[j] == q[j - 1] && pareto_value(&run->row[idx[j]], ax->col) <
                                                           pareto_value(&run->row[idx[j - 1]], ax->col)));
             j--) {
            int t = idx[j], tq = q[j];
            idx[j] = idx[j - 1], q[j] = q[j - 1];
            idx[j - 1] = t, q[j - 1] = tq;
        }
    char text[200];
    snprintf(text, sizeof text, "Pareto front%s: no other scenario %sis both faster and %s",
             nq > 1 ? " of each model" : "", nq > 1 ? "of the model " : "", ax->noun);
    xl_put_long(x, sh, row, 0, text, x->section);
    xl_put_header(x, sh, row + 1, D_SERIES, "Series");
    xl_put_header(x, sh, row + 1, D_SCEN, "Scenario");
    xl_put_header_num(x, sh, row + 1, D_DEV, "Devices");
    char th[48];
    snprintf(th, sizeof th, "Time to train [%s]", x->tunit);
    xl_put_header_num(x, sh, row + 1, D_TIME, th);
    xl_put_header_num(x, sh, row + 1, ax->col, ax->head);
    int r0 = row + 2, r = r0, front_row[RPT_MODELS_MAX + 1];
    double best = INFINITY;
    lxw_format *f = ax->col == D_COST ? x->usd : ax->col == D_POWER ? x->kw : x->mwh;
    for (int i = 0; i < n; i++) {
        const RunRow *p = &run->row[idx[i]];
        if (i == 0 || q[i] != q[i - 1]) {
            best = INFINITY;
            front_row[q[i]] = r;
        }
        if (!(p->r.time_to_train_s < best))
            continue;
        best = p->r.time_to_train_s;
        xl_put_text(x, sh, r, D_SERIES, p->sc.series, NULL);
        xl_put_text(x, sh, r, D_SCEN, p->sc.name, NULL);
        xl_put_num(x, sh, r, D_DEV, p->sc.devices, x->intf);
        xl_put_num(x, sh, r, D_TIME, xl_ttt_shown(x, p), x->days);
        xl_put_num(x, sh, r, ax->col, pareto_value(p, ax->col), f);
        r++;
    }
    front_row[nq] = r;
    free(idx);
    lxw_chart *c = workbook_add_chart(x->wb, LXW_CHART_SCATTER);
    if (!c) {
        xl_check(x, LXW_ERROR_MEMORY_MALLOC_FAILED);
        return r - row;
    }
    chart_title_set_name(c, ax->title);
    char yname[64];
    snprintf(yname, sizeof yname, "time to train [%s] (log scale)", x->tunit);
    chart_axis_set_name(c->x_axis, ax->axis);
    chart_axis_set_name(c->y_axis, yname);
    chart_axis_set_log_base(c->x_axis, 10);
    chart_axis_set_log_base(c->y_axis, 10);
    chart_axis_set_num_format(c->x_axis, ax->numfmt);
    chart_legend_set_position(c, LXW_CHART_LEGEND_BOTTOM);
    for (int i = 0; i < x->set.n; i++) {
        const RptSeries *s = &x->set.s[i];
        if (s->npt == 0 || !isfinite(pareto_value(&run->row[s->pt[0]], ax->col)))
            continue;
        lxw_chart_series *cs =
            block_series(c, sh->name, blk[i], blk[i] + s->npt - 1, ax->col, D_TIME, blk[i]);
        if (!cs)
            continue;
        style_series(cs, s, 0);
    }
    for (int k = 0; k < nq; k++) {
        const int a = front_row[k], b = (k + 1 < nq ? front_row[k + 1] : r) - 1;
        lxw_chart_series *front = b >= a ? chart_add_series(c, NULL, NULL) : NULL;
        if (!front)
            continue;
        char label[RPT_QUESTION_MAX + 16], name[RPT_QUESTION_MAX];
        rpt_question_labels(run, rep, nq, k, name, sizeof name);
        snprintf(label, sizeof label, nq > 1 ? "Pareto front: %s" : "Pareto front", name);
        chart_series_set_categories(front, sh->name, (lxw_row_t)a, (lxw_col_t)ax->col, (lxw_row_t)b,
                                    (lxw_col_t)ax->col);
        chart_series_set_values(front, sh->name, (lxw_row_t)a, D_TIME, (lxw_row_t)b, D_TIME);
        chart_series_set_name(front, label);
        static const uint8_t dash[4] = {LXW_CHART_LINE_DASH_DASH, LXW_CHART_LINE_DASH_ROUND_DOT,
                                        LXW_CHART_LINE_DASH_LONG_DASH, LXW_CHART_LINE_DASH_DASH_DOT};
        lxw_chart_line ln = {.color = 0x000000, .width = 1.5, .dash_type = dash[k % 4]};
        chart_series_set_line(front, &ln);
        chart_series_set_marker_type(front, LXW_CHART_MARKER_NONE);
    }
    const double y_scale = 1.4;
    xl_insert_chart(x, sh, r + 2, c, 4, 6, 2.0, y_scale);
    return r + 2 - row + (int)(288.0 * y_scale / 20.0) + 3; /* default rows are 20 px */
}

/* The title, the question, the counts and the recommendation: rows 0-3. */
static void summary_head(X *x, Sheet *sh)
{
    const Run *run = x->run;
    const Table *t = x->in->table;
    char line[1024], q[700];
    xl_put_long(x, sh, 0, 0, t->title[0] ? t->title : x->in->name, x->title);
    rpt_question(run, &x->set, q, sizeof q);
    xl_put_long(x, sh, 1, 0, q, x->subtitle);
    snprintf(line, sizeof line, "%d scenario%s from %s: %d ok, %d out of memory, %d failed%s. deepflow %s.",
             run_total(run), run_total(run) == 1 ? "" : "s", t->path, run->n_ok, run->n_oom, run->n_error,
             run->n_error ? " (see the Errors sheet)" : "", DF_VERSION);
    xl_put_long(x, sh, 2, 0, line, x->note);
    worksheet_set_row(sh->ws, 0, 24, NULL);
    /* the answer: the recommendation under the study's constraints */
    char rec[RPT_ANSWER_MAX];
    rpt_recommend(run, rec, sizeof rec);
    /* wrapped in the width of the tables below (a line per model), not
     * spilled to the right, where it widened the printed page past reading */
    rpt_clean_text(rec, x->buf, x->bufsz);
    xl_check(x, worksheet_merge_range(sh->ws, 3, 0, 3, SUMMARY_ANSWER_COLS - 1, x->buf, x->answer));
    int lines = 0;
    for (const char *p = x->buf; *p;) {
        const char *e = strchr(p, '\n');
        const size_t l = e ? (size_t)(e - p) : strlen(p);
        lines += (int)((l + SUMMARY_ANSWER_CHARS - 1) / SUMMARY_ANSWER_CHARS);
        p += l + (e ? 1 : 0);
    }
    worksheet_set_row(sh->ws, 3, 15.5 * (lines > 0 ? lines : 1), NULL);
}

/* A note too long for one line, wrapped in the answer's width at row r
 * (its row made tall enough).  Returns the next row. */
static int wrapped_note(X *x, Sheet *sh, int r, const char *text)
{
    rpt_clean_text(text, x->buf, x->bufsz);
    xl_check(x, worksheet_merge_range(sh->ws, (lxw_row_t)r, 0, (lxw_row_t)r, SUMMARY_ANSWER_COLS - 1, x->buf,
                                      x->wrap_note));
    const size_t lines = strlen(text) / (SUMMARY_ANSWER_CHARS + 20) + 1; /* plain text: a fifth more a line */
    worksheet_set_row(sh->ws, (lxw_row_t)r, 15.5 * (double)lines, NULL);
    return r + 1;
}

/* The shortlist from row r (issue 27): every scenario that meets its
 * deadline, budget and power budget, cheapest first, per model and amount
 * of training (the first RPT_SHORTLIST_MAX of each), with its time, cost,
 * energy and power, the time and the cost with their 90 % range, and the
 * nodes it takes.  Only where a row states a constraint.  Returns the next
 * free row. */
static int shortlist_table(X *x, Sheet *sh, int r)
{
    const Run *run = x->run;
    int asked = 0;
    for (int i = 0; i < run->n && !asked; i++)
        asked = run->row[i].built && rpt_asked(&run->row[i].sc);
    if (!asked)
        return r;
    int *rows = NULL, *q = NULL, rep[RPT_MODELS_MAX], nq = 0;
    long meets = 0;
    const int n = rpt_shortlist(run, &rows, &q, rep, &nq, &meets);
    if (n < 0)
        return r;
    char text[300];
    snprintf(text, sizeof text, "Shortlist: the scenarios that meet every constraint, cheapest first");
    xl_put_long(x, sh, r++, 0, text, x->section);
    snprintf(text, sizeof text,
             "%ld scenario%s of the study meet%s the constraints it states%s; cost and "
             "time with "
             "their 90 %% range (validation); power at the wall, the facility's share included (PUE).",
             meets, meets == 1 ? "" : "s", meets == 1 ? "s" : "",
             n < meets ? "; the cheapest of each model are listed" : "");
    xl_put_long(x, sh, r++, 0, text, x->note);
    if (n > 0) {
        /* each figure the listed rows share, else "each row's" */
        const Scenario *s0 = &run->row[rows[0]].sc;
        int same_price = 1, same_fac = 1, same_grid = 1;
        for (int i = 1; i < n; i++) {
            const Scenario *si = &run->row[rows[i]].sc;
            same_price &= si->electricity_usd_kwh == s0->electricity_usd_kwh;
            same_fac &= si->site.facility_usd_kw_year == s0->site.facility_usd_kw_year;
            same_grid &= si->site.grid_gco2_kwh == s0->site.grid_gco2_kwh;
        }
        char price[80] = "each row's price", fac[120] = "each row's site's facility cost",
             grid[80] = "each row's site's";
        if (same_price)
            snprintf(price, sizeof price, "$%.4g", s0->electricity_usd_kwh);
        if (same_fac && s0->site.facility_usd_kw_year > 0)
            snprintf(fac, sizeof fac,
                     "a facility at $%.4g per kW of peak IT power a year (site.facility_cost)",
                     s0->site.facility_usd_kw_year);
        else if (same_fac)
            snprintf(fac, sizeof fac, "no facility cost (set site.facility_cost)");
        if (same_grid)
            snprintf(grid, sizeof grid, "%.4g g", s0->site.grid_gco2_kwh);
        char buy[1200];
        snprintf(
            buy, sizeof buy,
            "To buy instead: whole nodes (racks) at the system template's price (a list price, a quotation "
            "or an estimate: see its sources); energy at %s a kWh (electricity_price); %s; no staff cost; "
            "buying costs less than renting where the system is busy more than the share shown of %.3g "
            "years (amortisation_years). CO2e: the energy at %s a kWh (site.grid_intensity) and the run's "
            "share of making its devices and nodes over %.3g years (service_life, LLMCarbon's model); peak "
            "power: every device computing; swing: all of them waiting on one collective.",
            price, fac, s0->amortisation_years, grid, s0->service_life_years);
        r = wrapped_note(x, sh, r, buy);
    }
    if (n == 0) {
        xl_put_text(x, sh, r++, B_SERIES, "(none: relax a constraint or widen the sweep)", x->note);
        free(rows);
        free(q);
        return r + 1;
    }
    char th[48], eh[48];
    snprintf(th, sizeof th, "Time to train [%s]", x->tunit);
    snprintf(eh, sizeof eh, "Energy to train [%s]", x->eunit);
    /* its own columns, side by side (their widths are the sheet's) */
    enum {
        S_SERIES,
        S_SCEN,
        S_TIME,
        S_RANGE,
        S_COST,
        S_COSTR,
        S_DEV,
        S_SYS,
        S_ENERGY,
        S_POWER,
        S_PURCH,
        S_ECOST,
        S_BREAK,
        S_CO2,
        S_PEAK,
        S_SWING,
        S_NCOL
    };
    const char *heads[S_NCOL] = {"Series",
                                 "Scenario",
                                 th,
                                 "90 % range (validation)",
                                 "Cost to train (rent) [USD]",
                                 "Cost range",
                                 "Devices",
                                 "System; nodes or racks",
                                 eh,
                                 "Power at the wall [kW]",
                                 "Purchase [USD]",
                                 "Energy cost [USD]",
                                 "Break-even use, buy vs rent",
                                 "CO2e [t]",
                                 "Peak power [kW]",
                                 "Power swing [kW]"};
    for (int c = 0; c < S_NCOL; c++)
        if (c == S_SERIES || c == S_SCEN || c == S_RANGE || c == S_COSTR || c == S_SYS)
            xl_put_header(x, sh, r, c, heads[c]);
        else /* over numbers, right-aligned as they are */
            xl_put_header_num(x, sh, r, c, heads[c]);
    xl_header_height(sh, r, 3);
    r++;
    for (int i = 0; i < n; i++, r++) {
        if (nq > 1 && (i == 0 || q[i] != q[i - 1])) { /* a model's block */
            char name[RPT_QUESTION_MAX];
            rpt_question_labels(run, rep, nq, q[i], name, sizeof name);
            xl_put_text(x, sh, r++, S_SERIES, name, x->section);
        }
        const RunRow *rr = &run->row[rows[i]];
        const Result *res = &rr->r;
        xl_put_text(x, sh, r, S_SERIES, rr->sc.series, x->bold);
        xl_put_text(x, sh, r, S_SCEN, rr->sc.name, NULL);
        xl_put_num(x, sh, r, S_TIME, xl_ttt_shown(x, rr), x->days);
        char range[160];
        const int ranged = isfinite(res->interval_lo) && isfinite(res->interval_hi);
        if (ranged) {
            snprintf(range, sizeof range, "%.3g to %.3g", xl_shown_time(x, rr, res->interval_lo),
                     xl_shown_time(x, rr, res->interval_hi));
            xl_put_text(x, sh, r, S_RANGE, range, NULL);
        }
        if (isfinite(res->cost_usd)) {
            xl_put_num(x, sh, r, S_COST, res->cost_usd, x->usd);
            if (ranged) { /* rental: the cost follows the time */
                char lo[48], hi[48];
                rpt_fmt_money(res->cost_usd * res->interval_lo, lo, sizeof lo);
                rpt_fmt_money(res->cost_usd * res->interval_hi, hi, sizeof hi);
                snprintf(range, sizeof range, "%s to %s", lo, hi);
                xl_put_text(x, sh, r, S_COSTR, range, NULL);
            }
        } else {
            xl_put_text(x, sh, r, S_COST, "unknown", x->note);
        }
        xl_put_num(x, sh, r, S_DEV, rr->sc.devices, x->intf);
        const int nodes = system_nodes(&rr->sc.system, rr->sc.devices);
        char sys[NAME_MAX_LEN + 48];
        snprintf(sys, sizeof sys, "%s; %d %s%s", rr->sc.system.name, nodes,
                 rr->sc.system.devices_per_node >= RACK_SCALE_DEVICES ? "rack" : "node",
                 nodes == 1 ? "" : "s");
        xl_put_text(x, sh, r, S_SYS, sys, NULL);
        xl_put_num(x, sh, r, S_ENERGY, res->energy_to_train_j / x->eunit_j, x->mwh);
        xl_put_num(x, sh, r, S_POWER, res->system_power_w / 1e3, x->kw);
        if (isfinite(res->purchase_usd))
            xl_put_num(x, sh, r, S_PURCH, res->purchase_usd, x->usd);
        else
            xl_put_text(x, sh, r, S_PURCH, "no price", x->note);
        xl_put_num(x, sh, r, S_ECOST, res->energy_cost_usd, x->usd);
        if (isinf(res->break_even_use))
            xl_put_text(x, sh, r, S_BREAK, "never", x->note);
        else if (res->break_even_use > 1)
            xl_put_text(x, sh, r, S_BREAK, "over 100 %: rent", x->note);
        else
            xl_put_num(x, sh, r, S_BREAK, res->break_even_use, x->pct);
        if (isfinite(res->co2e_t))
            xl_put_num(x, sh, r, S_CO2, res->co2e_t, x->intf);
        else
            xl_put_text(x, sh, r, S_CO2, "embodied unknown", x->note);
        xl_put_num(x, sh, r, S_PEAK, res->peak_power_w / 1e3, x->kw);
        xl_put_num(x, sh, r, S_SWING, res->power_swing_w / 1e3, x->kw);
    }
    free(rows);
    free(q);
    return r + 1;
}

/* The best scenario of each series from row r, with its speedup over the
 * reference series (the first with a best).  *first: the table's first
 * data row.  Returns the next free row. */
static int best_table(X *x, Sheet *sh, int r, int *first_out)
{
    const Run *run = x->run;
    xl_put_long(x, sh, r++, 0, "Best scenario of each series", x->section);
    xl_put_long(x, sh, r++, 0,
                x->set.by_ttt
                    ? "Best = the shortest time to train among the scenarios that fit in memory and "
                      "meet their constraints (deadline, budget, power, carbon) (where none does, among all, "
                      "greyed, with what it misses); speedup = the reference's time to train over the "
                      "series' time to "
                      "train."
                    : "Best = the highest throughput among the scenarios that fit in memory and "
                      "meet their constraints (where none does, among all, greyed; no time to train "
                      "is known); speedup = throughput over the reference's.",
                x->note);
    if (x->set.more) {
        char more[200];
        snprintf(more, sizeof more,
                 "The study has more than %d series: the first %d (in table order) are listed and drawn; "
                 "summary.csv has every scenario.",
                 RPT_SERIES_MAX, RPT_SERIES_MAX);
        xl_put_long(x, sh, r++, 0, more, x->note);
    }
    int ref = -1;
    for (int i = 0; i < x->set.n && ref < 0; i++)
        if (x->set.s[i].best >= 0)
            ref = i;
    char sp[200], th[48], eh[48], wh[64];
    snprintf(wh, sizeof wh, "With failures [%s]", x->tunit);
    snprintf(sp, sizeof sp, "Speedup vs %s", ref >= 0 ? x->set.s[ref].name : "the first series");
    snprintf(eh, sizeof eh, "Energy to train [%s]", x->eunit);
    snprintf(th, sizeof th, "Time to train [%s]", x->tunit);
    const char *heads[B_NCOL] = {"Series",
                                 "Best scenario",
                                 x->set.by_ttt ? th : "Step time [s]",
                                 "90 % range (validation)",
                                 sp,
                                 "Devices",
                                 "System; training stack",
                                 "Strategy (axes not at their default)",
                                 "Throughput [samples/s]",
                                 "MFU",
                                 "Scaling efficiency",
                                 "System power [kW]",
                                 eh,
                                 "Cost to train [USD]",
                                 "Goodput",
                                 wh,
                                 "What limits it"};
    for (int c = 0; c < B_NCOL; c++)
        if (c == B_SERIES || c == B_SCEN || c == B_RANGE || c == B_SYS || c == B_STRAT || c == B_LIMIT)
            xl_put_header(x, sh, r, c, heads[c]);
        else /* over numbers, right-aligned as they are */
            xl_put_header_num(x, sh, r, c, heads[c]);
    xl_widen(sh, B_SPEEDUP, (double)xl_utf8_chars(sp) / 3 + 3);
    xl_header_height(sh, r, 3);
    r++;
    int first = r;
    for (int i = 0; i < x->set.n; i++)
        best_row(x, sh, first + i, &x->set.s[i]);
    if (ref >= 0) /* against the reference series: the same model only */
        for (int i = 0; i < x->set.n; i++) {
            if (x->set.s[i].best < 0)
                continue;
            const RunRow *a = &run->row[x->set.s[ref].best], *b = &run->row[x->set.s[i].best];
            const char *other = rpt_other_question(&a->sc, &b->sc);
            if (other)
                xl_put_text(x, sh, first + i, B_SPEEDUP, other, x->note);
            else
                put_speedup(x, sh, first + i, B_SPEEDUP, a, first + ref, b, first + i, x->set.by_ttt);
        }
    if (x->set.n == 0)
        xl_put_text(x, sh, first, B_SERIES, "(no scenario was evaluated)", x->note);
    *first_out = first;
    return first + (x->set.n ? x->set.n : 1) + 1;
}

/* The comparisons the table asked for with its baseline column, from row
 * r.  Returns the next free row. */
static int baseline_table(X *x, Sheet *sh, int r)
{
    const Run *run = x->run;
    RptBaseline cmp[64];
    int ncmp = rpt_baselines(run, cmp, 64);
    if (ncmp > 0) {
        xl_put_long(x, sh, r++, 0, "Against the baseline series", x->section);
        xl_put_long(
            x, sh, r++, 0,
            "Crossover = the smallest device count from which the series trains faster than its "
            "baseline at every larger count; speedup = the baseline's time to train over the series'.",
            x->note);
        xl_put_long(
            x, sh, r++, 0,
            "Best against best = the baseline's best time to train at any device count over the "
            "series' best; its range over the critical batch's (halved to doubled, or the curve's own).",
            x->note);
        xl_put_long(x, sh, r++, 0,
                    "It is the product of its two parts, at the two best rows: fewer samples to train (the "
                    "baseline's over the series': a smaller global batch needs fewer epochs, by the "
                    "convergence curve) and throughput (the series' samples per second over the baseline's).",
                    x->note);
        static const char *const ch[10] = {"Series",
                                           "Baseline",
                                           "Model",
                                           "Crossover [devices]",
                                           "Best speedup",
                                           "At [devices]",
                                           "Best against best",
                                           "Range over the critical batch",
                                           "... from fewer samples",
                                           "... from throughput"};
        for (int c = 0; c < 10; c++)
            if (c < 3)
                xl_put_header(x, sh, r, c, ch[c]);
            else
                xl_put_header_num(x, sh, r, c, ch[c]);
        xl_header_height(sh, r, 2);
        r++;
        lxw_format *times = xl_numfmt(x, "0.00\"\xC3\x97\""); /* the two parts: factors, not bold */
        for (int k = 0; k < ncmp; k++, r++) {
            xl_put_text(x, sh, r, 0, cmp[k].series, x->bold);
            xl_put_text(x, sh, r, 1, cmp[k].baseline, NULL);
            xl_put_text(x, sh, r, 2, cmp[k].model, NULL);
            if (cmp[k].crossover)
                xl_put_num(x, sh, r, 3, cmp[k].crossover, x->intf);
            else
                xl_put_text(x, sh, r, 3, "never", NULL);
            xl_put_num(x, sh, r, 4, cmp[k].best, x->speedup);
            xl_put_num(x, sh, r, 5, cmp[k].best_devices, x->intf);
            if (isfinite(cmp[k].bvb)) {
                char range[64];
                /* no spread: a fixed amount of training, or the same samples either way */
                if (cmp[k].bvb_hi - cmp[k].bvb_lo >= 0.005)
                    snprintf(range, sizeof range, "%.2fx to %.2fx", cmp[k].bvb_lo, cmp[k].bvb_hi);
                else
                    snprintf(range, sizeof range, "the same at either end");
                xl_put_num(x, sh, r, 6, cmp[k].bvb, x->speedup);
                xl_put_text(x, sh, r, 7, range, NULL);
                xl_put_num(x, sh, r, 8, cmp[k].from_samples, times);
                xl_put_num(x, sh, r, 9, cmp[k].from_rate, times);
            }
        }
        r++;
    }
    return r;
}

/* The published claims the table states (# claim:), each against the
 * study's own figure, from row r.  Returns the next free row. */
static int claims_table(X *x, Sheet *sh, int r)
{
    RptClaim *c = calloc(RPT_CLAIMS_MAX, sizeof *c);
    const int n = c ? rpt_claims(x->run, &x->set, x->in->table, c, RPT_CLAIMS_MAX) : 0;
    if (n > 0) {
        xl_put_long(x, sh, r++, 0, "Published claims against this study", x->section);
        xl_put_long(x, sh, r++, 0,
                    "Each claim the table states (# claim:) of a series against its baseline, and the "
                    "study's own figure: speedup and energy to train as in the tables above, bandwidth, "
                    "power and energy at the two series' best scenarios.",
                    x->note);
        static const char *const ch[7] = {"Series",     "Baseline", "Claim", "Claimed",
                                          "This study", "Holds",    "Source"};
        for (int k = 0; k < 7; k++)
            xl_put_header(x, sh, r, k, ch[k]);
        r++;
        for (int k = 0; k < n; k++, r++) {
            char v[64];
            xl_put_text(x, sh, r, 0, c[k].series[0] ? c[k].series : "(not understood)", x->bold);
            if (c[k].holds < 0) {
                char why[300];
                snprintf(why, sizeof why, "not checked (line %d): %s", c[k].line, c[k].error);
                xl_put_long(x, sh, r, 2, why, NULL);
                continue;
            }
            rpt_fmt_claim_value(&c[k], v, sizeof v);
            xl_put_text(x, sh, r, 1, c[k].baseline, NULL);
            xl_put_text(x, sh, r, 2, rpt_claim_metric_name(c[k].metric), NULL);
            xl_put_text(x, sh, r, 3, c[k].stated, NULL);
            xl_put_text(x, sh, r, 4, v, NULL);
            xl_put_text(x, sh, r, 5, c[k].holds ? "yes" : "no", x->bold);
            xl_put_long(x, sh, r, 6, c[k].source, NULL);
            char why[256];
            rpt_fmt_claim_why(&c[k], why, sizeof why);
            if (why[0]) {
                char line[300];
                snprintf(line, sizeof line, "Why: %s.", why);
                xl_put_long(x, sh, ++r, 2, line, x->note);
            }
        }
        r++;
    }
    free(c);
    return r;
}

/* A section of sentences from row r: its title, then each sentence of
 * text ('\n' between them, consumed) wrapped in the answer's width; nothing
 * where text is empty.  Returns the next free row. */
static int sentences(X *x, Sheet *sh, int r, const char *title, char *text)
{
    if (!text[0])
        return r;
    xl_put_long(x, sh, r++, 0, title, x->section);
    for (char *p = text; *p;) {
        char *e = strchr(p, '\n');
        if (e)
            *e = '\0';
        const size_t l = strlen(p);
        r = wrapped_note(x, sh, r, p);
        p = e ? e + 1 : p + l;
    }
    return r + 1;
}

/* What the swept values change (issue 27), a sentence per swept series,
 * and the energy and carbon of each model's answer (issue 31), from row
 * r.  Returns the next free row. */
static int sweeps_and_energy(X *x, Sheet *sh, int r)
{
    char *text = malloc(RPT_SWEEPS_TEXT_MAX);
    if (!text)
        return r;
    if (rpt_sweep_effects(x->run, &x->set, text, RPT_SWEEPS_TEXT_MAX) > 0)
        r = sentences(x, sh, r, "What the swept values change", text);
    if (rpt_energy_sentences(x->run, text, RPT_SWEEPS_TEXT_MAX) > 0)
        r = sentences(x, sh, r, "Energy and carbon of the answer", text);
    free(text);
    return r;
}

/* Speedups between every pair of series (3 to 40 of them), from row r;
 * first: the best table's first data row.  Returns the next free row. */
static int pair_table(X *x, Sheet *sh, int r, int first)
{
    const Run *run = x->run;
    if (x->set.n >= 3 && x->set.n <= 40) {
        xl_put_long(
            x, sh, r++, 0,
            "Speedup of the row's series over the column's series (best scenario of each; the same model "
            "and amount of training only: one question's time to train says nothing of another's)",
            x->section);
        xl_put_header(x, sh, r, 0, "Series");
        for (int j = 0; j < x->set.n; j++)
            xl_put_header_num(x, sh, r, 1 + j, x->set.s[j].name);
        xl_header_height(sh, r, 3);
        r++;
        for (int i = 0; i < x->set.n; i++, r++) {
            xl_put_text(x, sh, r, 0, x->set.s[i].name, x->bold);
            for (int j = 0; j < x->set.n; j++) {
                const RptSeries *a = &x->set.s[j], *b = &x->set.s[i];
                if (a->best < 0 || b->best < 0)
                    xl_put_text(x, sh, r, 1 + j, "n/a", NULL);
                else if (rpt_other_question(&run->row[a->best].sc, &run->row[b->best].sc))
                    xl_put_text(x, sh, r, 1 + j,
                                rpt_other_question(&run->row[a->best].sc, &run->row[b->best].sc), x->note);
                else
                    put_speedup(x, sh, r, 1 + j, &run->row[a->best], first + j, &run->row[b->best], first + i,
                                x->set.by_ttt);
            }
        }
        r++;
    }
    return r;
}

/* The chart data below the charts: the best scenario of each series at each
 * device count, from row data_row; blk[i]: series i's first row.  Sets the
 * device range and the number of points; returns the row after the data. */
static int chart_data(X *x, Sheet *sh, int data_row, int *blk, double *dmin_out, double *dmax_out,
                      int *npoints_out)
{
    const Run *run = x->run;
    xl_put_long(
        x, sh, data_row, 0,
        "Chart data: the best scenario of each series at each device count (scenarios with status ok)",
        x->section);
    char dt[48], dlo[48], dhi[48];
    snprintf(dt, sizeof dt, "Time to train [%s]", x->tunit);
    snprintf(dlo, sizeof dlo, "Time to train, low [%s]", x->tunit);
    snprintf(dhi, sizeof dhi, "Time to train, high [%s]", x->tunit);
    const char *dheads[D_NCOL] = {"Series",
                                  "Scenario",
                                  "Devices",
                                  x->set.by_ttt ? dt : "Step time [s]",
                                  "MFU",
                                  "Scaling efficiency",
                                  "System power [kW]",
                                  x->set.by_ttt ? dlo : "Step time, low [s]",
                                  x->set.by_ttt ? dhi : "Step time, high [s]",
                                  "Speedup over baseline",
                                  "Cost to train [USD]",
                                  "Energy to train [MWh]"};
    int dh = data_row + 1;
    for (int c = 0; c < D_NCOL; c++)
        if (c == D_SERIES || c == D_SCEN)
            xl_put_header(x, sh, dh, c, dheads[c]);
        else
            xl_put_header_num(x, sh, dh, c, dheads[c]);
    xl_header_height(sh, dh, 3);
    int rr0 = dh + 1;
    double dmin = 0, dmax = 0;
    int npoints = 0;
    for (int i = 0; i < x->set.n; i++) {
        const RptSeries *s = &x->set.s[i];
        if (blk)
            blk[i] = rr0;
        for (int k = 0; k < s->npt; k++, rr0++) {
            const RunRow *p = &run->row[s->pt[k]];
            xl_put_text(x, sh, rr0, D_SERIES, s->name, NULL);
            xl_put_num(x, sh, rr0, D_DEV, p->sc.devices, x->intf);
            xl_put_text(x, sh, rr0, D_SCEN, p->sc.name, NULL);
            if (x->set.by_ttt)
                xl_put_num(x, sh, rr0, D_TIME, xl_has_ttt(p) ? xl_ttt_shown(x, p) : NAN, x->days);
            else
                xl_put_num(x, sh, rr0, D_TIME, p->r.step_time_s, x->secs);
            xl_put_num(x, sh, rr0, D_MFU, p->r.mfu, x->pct);
            xl_put_num(x, sh, rr0, D_SCALE, p->r.scaling_efficiency, x->pct);
            xl_put_num(x, sh, rr0, D_POWER, p->r.system_power_w / 1e3, x->kw);
            xl_put_num(x, sh, rr0, D_TLO, xl_shown_time(x, p, p->r.interval_lo),
                       x->set.by_ttt ? x->days : x->secs);
            xl_put_num(x, sh, rr0, D_THI, xl_shown_time(x, p, p->r.interval_hi),
                       x->set.by_ttt ? x->days : x->secs);
            xl_put_num(x, sh, rr0, D_SPEEDUP, p->r.speedup, x->speedup);
            xl_put_num(x, sh, rr0, D_COST, p->r.cost_usd, x->usd);
            xl_put_num(x, sh, rr0, D_ENERGY, p->r.energy_to_train_j / 3.6e9, x->mwh);
            if (!dmin || p->sc.devices < dmin)
                dmin = p->sc.devices;
            if (p->sc.devices > dmax)
                dmax = p->sc.devices;
            npoints++;
        }
    }
    *dmin_out = dmin;
    *dmax_out = dmax;
    *npoints_out = npoints;
    return rr0;
}

/* Four native charts, two by two, at chart_row for each model (groups[k]
 * of ngroup), then the speedup and the Pareto charts below the data. */
static void summary_charts(X *x, Sheet *sh, const int *blk, const int *groups, int ngroup, int chart_row,
                           double dmin, double dmax, int rr0)
{
    char axis[64];
    snprintf(axis, sizeof axis, "time to train [%s] (log scale)", x->tunit);
    const int dx = 640, dy = SUMMARY_CHART_ROWS;
    for (int k = 0; k < (ngroup > 1 ? ngroup : 1); k++) {
        const int g = ngroup > 1 ? groups[k] : -1, at = chart_row + SUMMARY_BLOCK_ROWS * k;
        summary_chart(x, sh, blk, g, D_TIME,
                      x->set.by_ttt ? "Time to train vs devices" : "Step time vs devices",
                      x->set.by_ttt ? axis : "step time [s] (log scale)", "General", 1, dmin, dmax, at, 0);
        summary_chart(x, sh, blk, g, D_MFU, "MFU vs devices", "model FLOPs utilisation", "0%", 0, dmin, dmax,
                      at, dx);
        summary_chart(x, sh, blk, g, D_SCALE, "Scaling efficiency vs devices", "scaling efficiency", "0%", 0,
                      dmin, dmax, at + dy, 0);
        /* power grows with the devices over decades: a log axis, as the device axis */
        summary_chart(x, sh, blk, g, D_POWER, "System power vs devices", "system power [kW] (log scale)",
                      "#,##0", 1, dmin, dmax, at + dy, dx);
    }
    int below = speedup_charts(x, sh, blk, dmin, dmax, rr0 + 1);
    static const ParetoAxis axes[3] = {
        {D_COST, "cheaper", "Cost to train [USD]", "cost to train at list price [USD] (log scale)",
         "Time to train vs cost (best of each series at each device count)", "$#,##0"},
        {D_POWER, "draws less power", "System power [kW]", "system power at the wall [kW] (log scale)",
         "Time to train vs system power (best of each series at each device count)", "#,##0"},
        {D_ENERGY, "uses less energy", "Energy to train [MWh]", "energy to train [MWh] (log scale)",
         "Time to train vs energy to train (best of each series at each device count)", "#,##0"},
    };
    int at = rr0 + 4 + below;
    for (int k = 0; k < 3; k++)
        at += pareto_chart(x, sh, blk, at, &axes[k]);
}

void xl_sheet_summary(X *x, Sheet *sh)
{
    summary_head(x, sh);
    int first = 0;
    int r = shortlist_table(x, sh, 5);
    r = best_table(x, sh, r, &first);
    r = baseline_table(x, sh, r);
    r = claims_table(x, sh, r);
    r = sweeps_and_energy(x, sh, r);
    r = pair_table(x, sh, r, first);

    /* chart data: the best scenario of each series at each device count;
     * above it, four charts for each model that has points */
    int chart_row = r;
    int ngroup = 0, *groups = calloc((size_t)(x->set.ngroup + 1), sizeof *groups);
    for (int g = 0; groups && g < x->set.ngroup; g++)
        for (int i = 0; i < x->set.n; i++)
            if (x->set.s[i].group == g && x->set.s[i].npt > 0) {
                groups[ngroup++] = g;
                break;
            }
    /* the chart helpers (constraint lines, recommended points), then the data */
    const int marks_row = chart_row + SUMMARY_BLOCK_ROWS * (ngroup > 1 ? ngroup : 1);
    int recs[RPT_MODELS_MAX];
    const int nrec = rpt_recommended(x->run, recs, RPT_MODELS_MAX);
    int data_row = marks_row + 3 + (nrec > 0 ? nrec : 0) + 2;
    /* printed, each block of charts starts a page (never a chart cut in two) */
    lxw_row_t breaks[66];
    int nbreak = 0;
    for (int k = 0; k < (ngroup > 1 ? ngroup : 1) && nbreak < 64; k++)
        if (chart_row + SUMMARY_BLOCK_ROWS * k > 0)
            breaks[nbreak++] = (lxw_row_t)(chart_row + SUMMARY_BLOCK_ROWS * k);
    breaks[nbreak++] = (lxw_row_t)marks_row;
    breaks[nbreak] = 0;
    xl_check(x, worksheet_set_h_pagebreaks(sh->ws, breaks));
    int *blk = calloc((size_t)(x->set.n + 1), sizeof *blk);
    double dmin = 0, dmax = 0;
    int npoints = 0;
    const int rr0 = chart_data(x, sh, data_row, blk, &dmin, &dmax, &npoints);
    if (npoints > 0 && blk) {
        chart_marks_data(x, sh, marks_row, dmin, dmax, recs, nrec);
        summary_charts(x, sh, blk, groups, ngroup, chart_row, dmin, dmax, rr0);
    } else
        xl_put_long(x, sh, chart_row, 0, "No scenario fits and runs: there is nothing to chart.", x->note);
    free(blk);
    free(groups);
    xl_finish_sheet(sh, 8, 40);
    xl_page_setup(sh, -1, 0);
    /* printed: the answer, the tables and the charts; the chart helpers and
     * data, the speedup and Pareto charts below them stay on the screen (and
     * in charts/) */
    const int last_col = x->set.n >= 3 && x->set.n <= 40 && x->set.n + 1 > B_NCOL ? x->set.n : B_NCOL - 1;
    xl_check(x, worksheet_print_area(sh->ws, 0, 0, (lxw_row_t)(marks_row - 1), (lxw_col_t)last_col));
    x->marks_row = -1;
}
