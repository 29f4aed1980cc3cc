/* report/detail.c — what the workbook's per-scenario sheets show of a row
 * (RptDetail), made from the row and kept in a file: a streamed study
 * lists every row there without holding them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workbook.h"

/* s appended to d's texts; its offset, or -1 when out of memory */
static int add_text(RptDetail *d, const char *s)
{
    const size_t n = strlen(s) + 1;
    if (d->ntext + n > d->cap) {
        size_t cap = d->cap ? d->cap : 4096;
        while (cap < d->ntext + n)
            cap *= 2;
        char *t = realloc(d->text, cap);
        if (!t)
            return -1;
        d->text = t;
        d->cap = cap;
    }
    memcpy(d->text + d->ntext, s, n);
    const int at = (int)d->ntext;
    d->ntext += n;
    return at;
}

int rpt_detail_of(const RunRow *rr, RptDetail *d)
{
    char t[RPT_DETAIL_TEXT];
    d->ntext = 0;
    d->evaluated = xl_evaluated(rr);
    d->step_time_s = rr->r.step_time_s;
    d->energy_per_step_j = rr->r.energy_per_step_j;
    memcpy(d->comp_time_s, rr->r.comp_time_s, sizeof d->comp_time_s);
    memcpy(d->comp_energy_j, rr->r.comp_energy_j, sizeof d->comp_energy_j);
    if ((d->name = add_text(d, rr->sc.name)) < 0 || (d->series = add_text(d, rr->sc.series)) < 0)
        return -1;
    d->ncol = report_ncols < RPT_DETAIL_COLS ? report_ncols : RPT_DETAIL_COLS;
    for (int i = 0; i < d->ncol; i++) {
        d->text_at[i] = -1;
        if (!report_value(i, rr, &d->num[i], t, sizeof t) && (d->text_at[i] = add_text(d, t)) < 0)
            return -1;
    }
    memset(d->design, 0, sizeof d->design); /* the file holds whole records, not stray bytes */
    d->ndesign = rpt_design_rows(rr, d->design, RPT_DESIGN_MAX);
    if (d->ndesign < 0)
        d->ndesign = 0;
    d->ntop = !rr->top ? 0 : rr->ntop < RUN_MAX_TOP ? rr->ntop : RUN_MAX_TOP;
    d->ntopcol = runner_ncols < RPT_RUNNER_COLS ? runner_ncols : RPT_RUNNER_COLS;
    for (int k = 0; k < d->ntop; k++)
        for (int i = 0; i < d->ntopcol; i++) {
            const int j = k * d->ntopcol + i;
            d->top_text[j] = -1;
            if (!runner_value(i, rr, k, &d->top_num[j], t, sizeof t) && (d->top_text[j] = add_text(d, t)) < 0)
                return -1;
        }
    return 0;
}

/* ---- the file: each record's scalars, then its arrays, then its texts --- */

#define PUT(p, n) (fwrite((p), sizeof *(p), (size_t)(n), f) == (size_t)(n))
#define GET(p, n) (fread((p), sizeof *(p), (size_t)(n), f) == (size_t)(n))

int rpt_detail_write(FILE *f, const RptDetail *d)
{
    const int head[8] = {d->evaluated, d->name, d->series,  d->ncol,
                         d->ndesign,   d->ntop, d->ntopcol, (int)d->ntext};
    const int nt = d->ntop * d->ntopcol;
    return PUT(head, 8) && PUT(&d->step_time_s, 1) && PUT(&d->energy_per_step_j, 1) &&
                   PUT(d->comp_time_s, COMP_COUNT) && PUT(d->comp_energy_j, COMP_COUNT) &&
                   PUT(d->num, d->ncol) && PUT(d->text_at, d->ncol) && PUT(d->design, d->ndesign) &&
                   PUT(d->top_num, nt) && PUT(d->top_text, nt) && PUT(d->text, d->ntext)
               ? 0
               : -1;
}

int rpt_detail_read(FILE *f, RptDetail *d)
{
    int head[8];
    if (!GET(head, 8))
        return -1;
    if (head[3] < 0 || head[3] > RPT_DETAIL_COLS || head[4] < 0 || head[4] > RPT_DESIGN_MAX || head[5] < 0 ||
        head[5] > RUN_MAX_TOP || head[6] < 0 || head[6] > RPT_RUNNER_COLS || head[7] < 0)
        return -1; /* not a record this program wrote */
    d->evaluated = head[0];
    d->name = head[1];
    d->series = head[2];
    d->ncol = head[3];
    d->ndesign = head[4];
    d->ntop = head[5];
    d->ntopcol = head[6];
    const size_t ntext = (size_t)head[7];
    if (ntext > d->cap) {
        char *t = realloc(d->text, ntext);
        if (!t)
            return -1;
        d->text = t;
        d->cap = ntext;
    }
    d->ntext = ntext;
    const int nt = d->ntop * d->ntopcol;
    return GET(&d->step_time_s, 1) && GET(&d->energy_per_step_j, 1) && GET(d->comp_time_s, COMP_COUNT) &&
                   GET(d->comp_energy_j, COMP_COUNT) && GET(d->num, d->ncol) && GET(d->text_at, d->ncol) &&
                   GET(d->design, d->ndesign) && GET(d->top_num, nt) && GET(d->top_text, nt) &&
                   GET(d->text, d->ntext)
               ? 0
               : -1;
}

void rpt_detail_free(RptDetail *d)
{
    if (d) {
        free(d->text);
        d->text = NULL;
        d->ntext = d->cap = 0;
    }
}
