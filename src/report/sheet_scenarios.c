/* report/sheet_scenarios.c — the workbook's Scenarios sheet: every summary
 * column (columns.c) with units and number formats, autofilter, frozen
 * header and name column, MFU data bars, oom and error rows marked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook.h"

void xl_sheet_scenarios(X *x, Sheet *sh)
{
    const Run *run = x->run;
    char text[600];
    int top = 0; /* the header's row */
    if (x->detail) {
        snprintf(text, sizeof text,
                 "The %d scenario%s of interest of %d (each series' best at each device count and the "
                 "recommended one): summary.csv, beside this workbook, has every scenario.",
                 x->ndetail, x->ndetail == 1 ? "" : "s", run_total(run));
        xl_put_long(x, sh, top++, 0, text, x->note);
    }
    double scale[128] = {0}; /* each listed column's, below */
    const char *unit;
    for (int i = 0; i < report_ncols && i < 128; i++) {
        xl_put_col_header(x, sh, top, i, &report_cols[i]);
        scale[i] = xl_col_scale(x, &report_cols[i], &unit);
    }
    xl_header_height(sh, top, 2); /* before the rows: the sheet is written a row at a time */
    const int rows = x->ndetail;
    for (int r = 0; r < rows; r++) {
        const RptDetail *d = xl_detail(x, r);
        for (int i = 0; i < d->ncol && i < report_ncols && i < 128; i++) {
            if (d->text_at[i] < 0)
                xl_put_num(x, sh, top + r + 1, i, d->num[i] * scale[i], x->colfmt[i]);
            else
                xl_put_text(x, sh, top + r + 1, i, rpt_detail_text(d, d->text_at[i]), NULL);
        }
    }
    xl_widen(sh, xl_col_index("mfu"), 10); /* room for the data bars */
    if (sh->w[xl_col_index("error")] > 60)
        sh->w[xl_col_index("error")] = 60;
    worksheet_freeze_panes(sh->ws, (lxw_row_t)(top + 1), 1);
    xl_check(x, worksheet_autofilter(sh->ws, (lxw_row_t)top, 0, (lxw_row_t)(top + (rows > 0 ? rows : 1)),
                                     (lxw_col_t)(report_ncols - 1)));
    if (rows > 0) {
        const lxw_row_t first = (lxw_row_t)(top + 1), last = (lxw_row_t)(top + rows);
        int mfu = xl_col_index("mfu");
        lxw_conditional_format bar;
        memset(&bar, 0, sizeof bar);
        bar.type = LXW_CONDITIONAL_DATA_BAR;
        bar.bar_color = 0x63BE7B;
        bar.bar_solid = 1;
        bar.min_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
        bar.min_value = 0;
        bar.max_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
        bar.max_value = 1;
        xl_check(
            x, worksheet_conditional_format_range(sh->ws, first, (lxw_col_t)mfu, last, (lxw_col_t)mfu, &bar));
        char letters[8], formula[64];
        rpt_col_letters(xl_col_index("status"), letters);
        static const char *const what[2] = {"oom", "error"};
        for (int k = 0; k < 2; k++) {
            lxw_conditional_format cf;
            memset(&cf, 0, sizeof cf);
            cf.type = LXW_CONDITIONAL_TYPE_FORMULA;
            snprintf(formula, sizeof formula, "=$%s%d=\"%s\"", letters, top + 2, what[k]);
            cf.value_string = formula;
            cf.format = k ? x->error : x->oom;
            xl_check(x, worksheet_conditional_format_range(sh->ws, first, 0, last,
                                                           (lxw_col_t)(report_ncols - 1), &cf));
        }
    }
    xl_finish_sheet(sh, 6, 60);
    xl_page_setup(sh, top, report_ncols);
    worksheet_repeat_columns(sh->ws, 0, 0);
}
