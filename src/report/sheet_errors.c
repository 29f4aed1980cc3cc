/* report/sheet_errors.c — the workbook's Errors sheet: every failed row
 * with file, line, column and message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook.h"

void xl_sheet_errors(X *x, Sheet *sh)
{
    static const char *const heads[5] = {"Scenario", "File", "Line", "Column", "Message"};
    for (int c = 0; c < 5; c++)
        xl_put_header(x, sh, 0, c, heads[c]);
    const Run *run = x->run;
    int row = 1, more = run->nfail_more; /* a streamed run keeps only the failures listed */
    /* a streamed run keeps its failures apart from its rows */
    for (int i = 0; i < (run->fail ? run->nfail : run->n); i++) {
        if (!run->fail && xl_evaluated(&run->row[i]))
            continue;
        if (row > x->detail_max) {
            more++;
            continue;
        }
        RunFail own = {0, 0, NULL, NULL, NULL};
        const RunFail *f = run->fail ? &run->fail[i] : &own;
        if (!run->fail && run_fail_of(&run->row[i], x->in->table->path, &own)) {
            run_fail_free(&own);
            continue;
        }
        xl_put_text(x, sh, row, 0, f->name, NULL);
        xl_put_text(x, sh, row, 1, f->file, NULL);
        xl_put_num(x, sh, row, 2, f->line, NULL);
        if (f->col)
            xl_put_num(x, sh, row, 3, f->col, NULL);
        xl_put_text(x, sh, row, 4, f->msg, NULL);
        row++;
        if (!run->fail)
            run_fail_free(&own);
    }
    if (row == 1)
        xl_put_text(x, sh, 1, 0, "No errors: every row was evaluated.", x->note);
    else
        xl_check(x, worksheet_autofilter(sh->ws, 0, 0, (lxw_row_t)(row - 1), 4));
    if (more) {
        char text[200];
        snprintf(
            text, sizeof text,
            "... and %d more failed scenarios: summary.csv, beside this workbook, has every one with its "
            "error.",
            more);
        xl_put_long(x, sh, row, 0, text, x->note);
    }
    worksheet_freeze_panes(sh->ws, 1, 0);
    if (sh->w[4] > 100)
        sh->w[4] = 100;
    xl_finish_sheet(sh, 8, 100);
    xl_page_setup(sh, 0, 0);
}
