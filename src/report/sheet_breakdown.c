/* report/sheet_breakdown.c — the workbook's Breakdown sheet: time and
 * energy of every step component per scenario and a stacked bar chart of
 * the best scenarios. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook.h"

/* One table of every evaluated scenario against every component, from row
 * r and column c0; returns the row after it.  A table that the sheet cannot
 * hold whole says in its title how many of the scenarios it shows. */
static int breakdown_table(X *x, Sheet *sh, int r, int c0, int energy)
{
    char head[320];
    const int ne = x->nevaluated;
    const int room = XL_LAST_ROW - (r + 1); /* rows below the title and header */
    const char *what = energy ? "energy per step" : "time per step", *unit = energy ? "J" : "s";
    if (x->detail)
        snprintf(head, sizeof head,
                 "The scenarios of interest (%d of %d): %s by component [%s] (breakdown.csv has them all)",
                 ne, run_total(x->run), what, unit);
    else if (ne > room)
        snprintf(head, sizeof head,
                 "All scenarios: %s by component [%s]: the first %d of %d (a sheet holds 1,048,576 rows; "
                 "breakdown.csv has them all)",
                 what, unit, room, ne);
    else
        snprintf(head, sizeof head, "All scenarios: %s by component [%s]", what, unit);
    xl_put_long(x, sh, r++, c0, head, x->section);
    int ah = r;
    xl_put_header(x, sh, ah, c0, "Scenario");
    xl_put_header(x, sh, ah, c0 + 1, "Series");
    xl_put_header(x, sh, ah, c0 + 2, energy ? "step [J]" : "step [s]");
    for (int k = 0; k < COMP_COUNT; k++) {
        snprintf(head, sizeof head, "%s [%s]", component_name((Component)k), unit);
        xl_put_header(x, sh, ah, c0 + 3 + k, head);
    }
    xl_header_height(sh, ah, 2);
    int row = ah + 1;
    for (int i = 0; i < x->ndetail && row <= XL_LAST_ROW; i++) {
        const RptDetail *d = xl_detail(x, i);
        if (!d->evaluated)
            continue;
        xl_put_text(x, sh, row, c0, rpt_detail_text(d, d->name), NULL);
        xl_put_text(x, sh, row, c0 + 1, rpt_detail_text(d, d->series), NULL);
        if (energy)
            xl_put_num(x, sh, row, c0 + 2, d->energy_per_step_j, x->sci);
        else
            xl_put_num(x, sh, row, c0 + 2, d->step_time_s, x->secs0);
        for (int k = 0; k < COMP_COUNT; k++)
            xl_put_num(x, sh, row, c0 + 3 + k, energy ? d->comp_energy_j[k] : d->comp_time_s[k],
                       energy ? x->sci : x->secs0);
        row++;
    }
    if (row == ah + 1)
        xl_put_text(x, sh, row++, c0, "(no scenario was evaluated)", x->note);
    else if (!energy)
        xl_check(x, worksheet_autofilter(sh->ws, (lxw_row_t)ah, (lxw_col_t)c0, (lxw_row_t)(row - 1),
                                         (lxw_col_t)(c0 + 2 + COMP_COUNT)));
    return row + 1;
}

void xl_sheet_breakdown(X *x, Sheet *sh)
{
    const Run *run = x->run;
    char head[160];
    xl_put_long(x, sh, 0, 0, "Where the time of one training step goes", x->title);
    xl_put_long(
        x, sh, 1, 0,
        "Seconds (and joules) per optimizer step by component. The components add up to the step time; "
        "dp_comm_hidden is data-parallel communication overlapped with the backward pass, not part of it.",
        x->note);
    /* components that appear in the step time */
    int comp[COMP_COUNT], nc = 0;
    for (int c = 0; c < COMP_COUNT; c++)
        if (c != COMP_DP_HIDDEN)
            comp[nc++] = c;

    int r = 3;
    const int per_sample = rpt_breakdown_per_sample(run, &x->set);
    xl_put_long(x, sh, r++, 0,
                per_sample ? "Best scenario of each series, per sample (their steps differ in global batch)"
                           : "Best scenario of each series",
                x->section);
    int bh = r;
    xl_put_header(x, sh, bh, 0, "Series");
    xl_put_header(x, sh, bh, 1, "Scenario");
    xl_put_header(x, sh, bh, 2, per_sample ? "per sample [s]" : "step [s]");
    for (int k = 0; k < nc; k++) {
        snprintf(head, sizeof head, "%s [s]", component_name((Component)comp[k]));
        xl_put_header(x, sh, bh, 3 + k, head);
    }
    xl_header_height(sh, bh, 2);
    int b0 = bh + 1, nb = 0;
    for (int i = 0; i < x->set.n; i++) {
        const RptSeries *s = &x->set.s[i];
        if (s->best < 0)
            continue;
        const RunRow *rr = &run->row[s->best];
        const double per = per_sample && rr->r.st.global_batch > 0 ? 1.0 / rr->r.st.global_batch : 1.0;
        int row = b0 + nb++;
        xl_put_text(x, sh, row, 0, s->name, x->bold);
        xl_put_text(x, sh, row, 1, rr->sc.name, NULL);
        xl_put_num(x, sh, row, 2, rr->r.step_time_s * per, x->secs0);
        for (int k = 0; k < nc; k++)
            xl_put_num(x, sh, row, 3 + k, rr->r.comp_time_s[comp[k]] * per, x->secs0);
    }
    if (nb == 0)
        xl_put_text(x, sh, b0, 0, "(no scenario fits and runs)", x->note);
    r = b0 + (nb ? nb : 1) + 1;
    if (nb > 0) {
        lxw_chart *c = workbook_add_chart(x->wb, LXW_CHART_BAR_STACKED);
        if (c) {
            chart_title_set_name(c, per_sample ? "Time per sample of the best scenario of each series"
                                               : "Time per step of the best scenario of each series");
            lxw_chart_font tf = {.size = 12, .bold = 1};
            chart_title_set_name_font(c, &tf);
            chart_axis_set_name(c->y_axis, per_sample ? "time per sample [s]" : "time per step [s]");
            chart_axis_set_num_format(c->y_axis, "General");
            chart_legend_set_position(c, LXW_CHART_LEGEND_RIGHT);
            chart_set_series_gap(c, 50);
            for (int k = 0; k < nc; k++) {
                int any = 0;
                for (int i = 0; i < x->set.n; i++)
                    if (x->set.s[i].best >= 0 && run->row[x->set.s[i].best].r.comp_time_s[comp[k]] > 0)
                        any = 1;
                if (!any)
                    continue;
                lxw_chart_series *cs = chart_add_series(c, NULL, NULL);
                if (!cs)
                    continue;
                chart_series_set_categories(cs, sh->name, (lxw_row_t)b0, 0, (lxw_row_t)(b0 + nb - 1), 0);
                chart_series_set_values(cs, sh->name, (lxw_row_t)b0, (lxw_col_t)(3 + k),
                                        (lxw_row_t)(b0 + nb - 1), (lxw_col_t)(3 + k));
                chart_series_set_name_range(cs, sh->name, (lxw_row_t)bh, (lxw_col_t)(3 + k));
            }
            const double y_scale = 1.1 + 0.08 * (nb > 12 ? 12 : nb);
            xl_insert_chart(x, sh, r, c, 4, 4, 2.2, y_scale);
            r += (int)(288.0 * y_scale / 20.0) + 2; /* default rows are 20 px */
        }
    }
    const int printed = r; /* printed: the best of each series and its chart; the tables of every
                              scenario below are for the screen (and breakdown.csv) */
    const int ne = x->nevaluated;
    if (r + 2 * (ne + 3) <= XL_LAST_ROW) { /* time above energy */
        r = breakdown_table(x, sh, r, 0, 0);
        breakdown_table(x, sh, r, 0, 1);
    } else { /* side by side: each table then holds every scenario a sheet can */
        breakdown_table(x, sh, r, 0, 0);
        breakdown_table(x, sh, r, 3 + COMP_COUNT + 1, 1);
    }
    xl_finish_sheet(sh, 8, 36);
    xl_page_setup(sh, -1, 0);
    if (printed > 2)
        xl_check(x,
                 worksheet_print_area(sh->ws, 0, 0, (lxw_row_t)(printed - 1), (lxw_col_t)(3 + COMP_COUNT)));
}
