/* report/sheet_design.c — the workbook's Design sheet: (co-designed rows
 * only) the budget splits and the derived device at the template's split
 * and at the one found. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook.h"

void xl_sheet_design(X *x, Sheet *sh)
{
    char text[600];
    xl_put_long(x, sh, 0, 0, "What the co-design search changed", x->title);
    xl_put_long(
        x, sh, 1, 0,
        "For every co-designed row: each share of the derived device's die area, power and die edge at the "
        "template's split and at the split the search found jointly with the strategy, the device that "
        "follows from each (the micro-architecture generator), and the time and energy to train.",
        x->note);
    static const char *const heads[6] = {"Scenario",       "Quantity",    "Unit",
                                         "Template split", "Co-designed", "Change"};
    for (int c = 0; c < 6; c++)
        xl_put_header(x, sh, 3, c, heads[c]);
    lxw_format *pct = xl_numfmt(x, "+0.0%;-0.0%;0.0%");
    lxw_format *num = xl_numfmt(x, "[<0.001]0.00000;[<10]0.000;#,##0.0");
    int row = 4;
    for (int i = 0; i < x->ndetail && row <= XL_LAST_ROW; i++) {
        const RptDetail *d = xl_detail(x, i);
        const RptDesignRow *v = d->design;
        for (int j = 0; j < d->ndesign && row <= XL_LAST_ROW; j++, row++) {
            snprintf(text, sizeof text, "%s", rpt_detail_text(d, d->name));
            xl_put_text(x, sh, row, 0, text, j == 0 ? x->bold : NULL);
            xl_put_text(x, sh, row, 1, v[j].quantity, NULL);
            xl_put_text(x, sh, row, 2, v[j].unit, NULL);
            xl_put_num(x, sh, row, 3, v[j].start, num);
            xl_put_num(x, sh, row, 4, v[j].best, num);
            if (v[j].start != 0)
                xl_put_num(x, sh, row, 5, v[j].best / v[j].start - 1.0, pct);
        }
    }
    if (row > 4)
        xl_check(x, worksheet_autofilter(sh->ws, 3, 0, (lxw_row_t)(row - 1), 5));
    xl_header_height(sh, 3, 2);
    worksheet_freeze_panes(sh->ws, 4, 1);
    xl_finish_sheet(sh, 8, 40);
    xl_page_setup(sh, 3, 0);
}
