/* report/sheet_sensitivity.c — the workbook's Sensitivity sheet: each
 * model's answer (else the study's fastest scenario) with each main
 * parameter -10 % and +10 %: a table and a tornado chart per model, each
 * starting a printed page. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook.h"

/* Rows a tornado chart covers: 288 px by 1.6 over 20 px rows. */
#define TORNADO_ROWS 24

/* 1 when point k of the front is not beaten on both time and energy (with
 * the clock plan) by another. */
static int on_front(const Sensitivity *s, int k)
{
    const ClockPoint *p = &s->front[k];
    for (int j = 0; j < s->nfront; j++) {
        const ClockPoint *o = &s->front[j];
        if (j != k && o->time <= p->time && o->energy_plan <= p->energy_plan &&
            (o->time < p->time || o->energy_plan < p->energy_plan))
            return 0;
    }
    return 1;
}

/* Run slower, save more (issue 31): the tornado's scenario at lower power
 * caps, its time and energy at one clock and with the clock plan: a table
 * beside the tornado's (its header at row rh) and a chart of energy
 * against time beside the tornado's chart (at row rc). */
#define FRONT_COL 7 /* the front's table, right of the tornado's (printed beside it, one page a model) */

static void clock_front(X *x, Sheet *sh, int rh, int rc, const Sensitivity *s, const char *question)
{
    if (s->nfront == 0)
        return;
    char text[600];
    const int ps = s->per_sample;
    snprintf(
        text, sizeof text,
        "Run slower, save more%s%s: the device power cap lowered by tenths (DVFS lowers the clock to meet "
        "it), at one clock for every stage and with the clock plan (the stages off the critical path "
        "slower still, the step no slower). On the front: no other point is both faster and lower in "
        "energy.",
        question ? ": " : "", question ? question : "");
    xl_put_long(x, sh, rh - 1, FRONT_COL, text, x->note);
    int r = rh;
    const char *heads[6] = {"Power cap [W]",
                            "Clock",
                            ps ? "Time per sample [s]" : "Time to train [days]",
                            ps ? "Energy per step [kWh]" : "Energy to train [MWh]",
                            ps ? "Energy per step, clock plan [kWh]" : "Energy to train, clock plan [MWh]",
                            "On the front"};
    for (int c = 0; c < 6; c++)
        xl_put_header_num(x, sh, r, FRONT_COL + c, heads[c]);
    xl_header_height(sh, r, 3);
    const int r0 = ++r;
    const double tdiv = ps ? 1.0 : 86400.0, ediv = ps ? 3.6e6 : 3.6e9;
    for (int k = 0; k < s->nfront; k++, r++) {
        const ClockPoint *p = &s->front[k];
        xl_put_num(x, sh, r, FRONT_COL, p->cap_w, x->intf);
        xl_put_num(x, sh, r, FRONT_COL + 1, p->clock, x->pct);
        xl_put_num(x, sh, r, FRONT_COL + 2, p->time / tdiv, ps ? x->secs : x->days);
        xl_put_num(x, sh, r, FRONT_COL + 3, p->energy / ediv, x->mwh);
        xl_put_num(x, sh, r, FRONT_COL + 4, p->energy_plan / ediv, x->mwh);
        xl_put_text(x, sh, r, FRONT_COL + 5, on_front(s, k) ? "yes" : "no", NULL);
    }
    lxw_chart *c = workbook_add_chart(x->wb, LXW_CHART_SCATTER_STRAIGHT_WITH_MARKERS);
    if (!c)
        return;
    chart_title_set_name(c, ps ? "Energy per step against time per sample"
                               : "Energy to train against time to train");
    lxw_chart_font tf = {.size = 12, .bold = 1};
    chart_title_set_name_font(c, &tf);
    chart_axis_set_name(c->x_axis, heads[2]);
    chart_axis_set_name(c->y_axis, heads[3]);
    chart_legend_set_position(c, LXW_CHART_LEGEND_TOP);
    static const char *const names[2] = {"one clock", "with the clock plan"};
    static const uint32_t colour[2] = {0x0072B2, 0x009E73};
    for (int j = 0; j < 2; j++) {
        lxw_chart_series *cs = chart_add_series(c, NULL, NULL);
        if (!cs)
            continue;
        chart_series_set_categories(cs, sh->name, (lxw_row_t)r0, FRONT_COL + 2,
                                    (lxw_row_t)(r0 + s->nfront - 1), FRONT_COL + 2);
        chart_series_set_values(cs, sh->name, (lxw_row_t)r0, (lxw_col_t)(FRONT_COL + 3 + j),
                                (lxw_row_t)(r0 + s->nfront - 1), (lxw_col_t)(FRONT_COL + 3 + j));
        chart_series_set_name(cs, names[j]);
        lxw_chart_line ln = {.color = colour[j], .width = 2};
        chart_series_set_line(cs, &ln);
        lxw_chart_fill fill = {.color = colour[j]};
        chart_series_set_marker_fill(cs, &fill);
    }
    xl_insert_chart(x, sh, rc, c, 4 + 960 + 40, 4, 1.6, 1.6); /* beside the tornado (2 x 480 px wide) */
}

/* One tornado from sheet row r: its heading, note, table and chart.
 * Returns the first row after it. */
static int tornado_block(X *x, Sheet *sh, int r, const Sensitivity *s, const char *question, int many)
{
    char text[900];
    const char *name = x->run->row[s->row].sc.name;
    if (many) /* the question; the note under it names the scenario */
        xl_put_long(x, sh, r++, 0, question, x->section);
    snprintf(text, sizeof text,
             "'%s' (%s, its strategy%s kept) with each main hardware and stack "
             "parameter 10 %% lower and 10 %% higher, one at a time: the change of its %s and energy. Most "
             "sensitive first; 'no strategy fits' where the change leaves it out of memory.",
             name, s->recommended ? "the Summary's answer for its model" : "the study's fastest scenario",
             x->run->row[s->row].r.design_evals > 0 ? " and co-designed split" : "",
             s->per_sample ? "time per sample" : "time to train");
    xl_put_long(x, sh, r++, 0, text, x->note);
    r++;
    static const char *const heads[6] = {"Parameter",    "time -10 %",   "time +10 %",
                                         "energy -10 %", "energy +10 %", "Note"};
    xl_put_header(x, sh, r, 0, heads[0]);
    for (int c = 1; c < 5; c++)
        xl_put_header_num(x, sh, r, c, heads[c]);
    xl_put_header(x, sh, r, 5, heads[5]);
    xl_header_height(sh, r, 2);
    const int rh = r;
    lxw_format *pct = xl_numfmt(x, "+0.00%;-0.00%;0.00%");
    const int r0 = r + 1;
    for (int k = 0; k < s->n; k++) {
        const SensKnob *o = &s->k[k];
        xl_put_text(x, sh, r0 + k, 0, o->name, NULL);
        for (int j = 0; j < 2; j++) {
            xl_put_num(x, sh, r0 + k, 1 + j, o->time[j], pct);
            xl_put_num(x, sh, r0 + k, 3 + j, o->energy[j], pct);
        }
        if (o->status[0] != STATUS_OK || o->status[1] != STATUS_OK)
            xl_put_text(x, sh, r0 + k, 5,
                        o->status[0] != STATUS_OK ? "-10 %: no strategy fits" : "+10 %: no strategy fits",
                        x->note);
    }
    r = r0 + s->n + 1;
    clock_front(x, sh, rh, r, s, many ? question : NULL);
    lxw_chart *c = s->n > 0 ? workbook_add_chart(x->wb, LXW_CHART_BAR) : NULL;
    if (!c)
        return r;
    if (many)
        snprintf(text, sizeof text, "%s: change of the %s", question,
                 s->per_sample ? "time per sample" : "time to train");
    else
        snprintf(text, sizeof text, "Change of the %s", s->per_sample ? "time per sample" : "time to train");
    chart_title_set_name(c, text);
    lxw_chart_font tf = {.size = 12, .bold = 1};
    chart_title_set_name_font(c, &tf);
    /* a bar chart's categories run up its y axis (libxlsxwriter keeps
     * Excel's naming): reversed, the most sensitive is on top, and the
     * labels sit at the left edge, clear of the bars */
    chart_axis_set_num_format(c->x_axis, "0%");
    chart_axis_set_reverse(c->y_axis);
    chart_axis_set_label_position(c->y_axis, LXW_CHART_AXIS_LABEL_POSITION_LOW);
    chart_set_series_overlap(c, 100);
    chart_set_series_gap(c, 40);
    chart_legend_set_position(c, LXW_CHART_LEGEND_TOP);
    static const uint32_t colour[2] = {0x0072B2, 0xD55E00};
    for (int j = 0; j < 2; j++) {
        lxw_chart_series *cs = chart_add_series(c, NULL, NULL);
        if (!cs)
            continue;
        chart_series_set_categories(cs, sh->name, (lxw_row_t)r0, 0, (lxw_row_t)(r0 + s->n - 1), 0);
        chart_series_set_values(cs, sh->name, (lxw_row_t)r0, (lxw_col_t)(1 + j), (lxw_row_t)(r0 + s->n - 1),
                                (lxw_col_t)(1 + j));
        chart_series_set_name(cs, j ? "parameter +10 %" : "parameter -10 %");
        lxw_chart_fill fill = {.color = colour[j]};
        chart_series_set_fill(cs, &fill);
    }
    xl_insert_chart(x, sh, r, c, 4, 4, 2.0, 1.6);
    return r + TORNADO_ROWS + 2;
}

void xl_sheet_sensitivity(X *x, Sheet *sh)
{
    const RptTornados *t = x->in->sens;
    char text[300];
    xl_put_long(x, sh, 0, 0, "Which parameter matters", x->title);
    int r = 1;
    if (t->n > 1) {
        if (t->more)
            snprintf(text, sizeof text,
                     "One tornado per model, on the Summary's answer for it; %d more models are not varied "
                     "(the first %d are).",
                     t->more, RPT_TORNADO_MAX);
        else
            snprintf(text, sizeof text, "One tornado per model, on the Summary's answer for it.");
        xl_put_long(x, sh, r++, 0, text, x->note);
        r++;
    }
    lxw_row_t breaks[RPT_TORNADO_MAX + 1] = {0}; /* each tornado after the first starts a page */
    for (int k = 0; k < t->n; k++) {
        if (k > 0)
            breaks[k - 1] = (lxw_row_t)r;
        r = tornado_block(x, sh, r, &t->s[k], t->question[k], t->n > 1);
    }
    xl_finish_sheet(sh, 10, 40);
    xl_page_setup(sh, t->n == 1 ? 3 : -1, 0);
    if (t->n > 1)
        xl_check(x, worksheet_set_h_pagebreaks(sh->ws, breaks));
}
