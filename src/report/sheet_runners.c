/* report/sheet_runners.c — the workbook's Runners-up sheet: (with --top K
 * only) the search's K best strategies of every row it resolved. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook.h"

void xl_sheet_runners_up(X *x, Sheet *sh)
{
    const Run *run = x->run;
    char text[600];
    lxw_format *fmt[64];
    xl_put_long(x, sh, 0, 0, "The search's best strategies for each row it resolved", x->title);
    snprintf(text, sizeof text,
             "Rank 1 is the strategy the row reports; ranks 2 to %d are the next best the search evaluated "
             "(fastest to train, then least energy). Only strategies that fit in memory are listed.",
             run->top_k);
    xl_put_long(x, sh, 1, 0, text, x->note);
    double scale[64] = {0}; /* each listed column's, below */
    const char *unit;
    for (int i = 0; i < runner_ncols && i < 64; i++) {
        fmt[i] = runner_cols[i].type == RC_TEXT
                     ? NULL
                     : xl_numfmt(x, rpt_num_format(runner_cols[i].type, runner_cols[i].format));
        xl_put_col_header(x, sh, 3, i, &runner_cols[i]);
        scale[i] = xl_col_scale(x, &runner_cols[i], &unit);
    }
    int row = 4;
    for (int r = 0; r < x->ndetail && row <= XL_LAST_ROW; r++) {
        const RptDetail *d = xl_detail(x, r);
        for (int k = 0; k < d->ntop && row <= XL_LAST_ROW; k++, row++)
            for (int i = 0; i < d->ntopcol && i < runner_ncols && i < 64; i++) {
                const int j = k * d->ntopcol + i;
                if (d->top_text[j] < 0)
                    xl_put_num(x, sh, row, i, d->top_num[j] * scale[i], fmt[i]);
                else
                    xl_put_text(x, sh, row, i, rpt_detail_text(d, d->top_text[j]), k == 0 ? x->bold : NULL);
            }
    }
    if (row == 4)
        xl_put_text(x, sh, 4, 0, "No row left a strategy field to the search (auto).", x->note);
    else
        xl_check(x, worksheet_autofilter(sh->ws, 3, 0, (lxw_row_t)(row - 1), (lxw_col_t)(runner_ncols - 1)));
    xl_header_height(sh, 3, 2);
    worksheet_freeze_panes(sh->ws, 4, 1);
    xl_finish_sheet(sh, 6, 40);
    xl_page_setup(sh, 3, 0);
}
