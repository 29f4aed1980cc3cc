/* report/xlsx.c — the workbook NAME.xlsx (DESIGN.md §7), with libxlsxwriter;
 * this file is the writer (formats, cells, the sheets in order), each sheet
 * is report/sheet_*.c:
 *   Summary    the study's title and question, the best scenario of each
 *              series, speedups as formulas with cached values, and native
 *              charts of time-to-train, efficiency and system power against
 *              devices (log-2 axis, one line per series);
 *   Scenarios  every summary column (columns.c) with units and number
 *              formats, autofilter, frozen header and name column, MFU data
 *              bars, oom and error rows marked;
 *   Breakdown  time and energy of every step component per scenario and a
 *              stacked bar chart of the best scenarios;
 *   Runners-up (with --top K only) the search's K best strategies of every
 *              row it resolved;
 *   Design     (co-designed rows only) the budget splits and the derived
 *              device at the template's split and at the one found;
 *   Sensitivity each model's answer with each main parameter -10 % and
 *              +10 %: a table and a tornado chart per model;
 *   Inputs     every resolved parameter of every scenario and its origin;
 *   Errors     every failed row with file, line, column and message;
 *   About      version, command line, date, SHA-256 of the files read,
 *              assumptions and a glossary.
 * Rules: text from the user is always written with worksheet_write_string
 * (never as a formula), cleaned to valid UTF-8 without control characters;
 * a non-finite number is an empty cell, never a number; formulas are built
 * from cell references only.  The document date is the caller's (never the
 * clock) so that the same inputs give the same bytes.  The file is written
 * to a temporary name beside the target and renamed. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "core/sha256.h"
#include "core/text.h"
#include "core/units.h"
#include "io/atomic.h"
#include "report.h"
#include "workbook.h"

/* ---- text helpers (exported for the tests) ----------------------------- */

size_t rpt_clean_text(const char *in, char *out, size_t n)
{
    if (n == 0)
        return 0;
    const unsigned char *s = (const unsigned char *)(in ? in : "");
    size_t o = 0, chars = 0;
    while (*s && chars < XL_MAX_CHARS) {
        unsigned cp;
        int len = text_utf8_decode(s, &cp);
        const char *put;
        size_t plen;
        char one[1], esc[24];
        if (!len || cp == 0xFFFE || cp == 0xFFFF) {
            put = "\xEF\xBF\xBD"; /* U+FFFD */
            plen = 3;
            len = len ? len : 1;
        } else if ((cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7F) {
            one[0] = ' ';
            put = one;
            plen = 1;
        } else if (cp >= 0x80 && text_unsafe(cp)) { /* C1 and bidi controls: shown, not obeyed */
            if (cp < 0x100)
                snprintf(esc, sizeof esc, "\\x%02X", cp);
            else
                snprintf(esc, sizeof esc, "\\u{%04X}", cp);
            put = esc;
            plen = strlen(esc);
        } else {
            put = (const char *)s;
            plen = (size_t)len;
        }
        if (o + plen > n - 1)
            break;
        memcpy(out + o, put, plen);
        o += plen;
        s += len;
        chars++;
    }
    out[o] = '\0';
    return o;
}

void rpt_sheet_name(const char *in, char *out, size_t n)
{
    char clean[512];
    rpt_clean_text(in, clean, sizeof clean);
    const char *s = clean;
    while (*s == '\'')
        s++;
    size_t o = 0;
    int chars = 0;
    while (*s && chars < 31) {
        unsigned cp;
        int len = text_utf8_decode((const unsigned char *)s, &cp);
        if (!len)
            len = 1;
        if (o + (size_t)len >= n)
            break;
        if (strchr("[]:*?/\\", *s) || *s == '\n' || *s == '\t')
            out[o++] = '_';
        else {
            memcpy(out + o, s, (size_t)len);
            o += (size_t)len;
        }
        s += len;
        chars++;
    }
    while (o > 0 && (out[o - 1] == '\'' || out[o - 1] == ' '))
        o--;
    out[o] = '\0';
    if (o == 0)
        snprintf(out, n, "Sheet");
    else if (!strcmp(out, "History") || !strcmp(out, "history"))
        snprintf(out, n, "History_"); /* reserved by Excel */
}

int rpt_formula_like(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '=' || *s == '+' || *s == '-' || *s == '@';
}

const char *rpt_num_format(RcType type, RcFormat format)
{
    if (type == RC_TEXT)
        return "@";
    if (type == RC_INT)
        return "#,##0";
    switch (format) {
    case RF_DAYS: /* trainings of minutes show their digits, long ones a tenth of a day */
        return "[<0.1]0.0000;[<10]0.00;#,##0.0";
    case RF_PERCENT:
        return "0.0%";
    case RF_WATTS:
    case RF_KWH:
        return "#,##0";
    case RF_GIB:
        return "0.0";
    case RF_SECONDS:
        return "[<0.01]0.000###;[<1000]0.000;#,##0";
    case RF_RATE:
        return "#,##0.0";
    case RF_PLAIN:
        break;
    }
    return "[<100]0.000;#,##0";
}

void rpt_col_letters(int col, char out[8])
{
    char tmp[8];
    int n = 0;
    col++;
    while (col > 0 && n < 7) {
        int r = (col - 1) % 26;
        tmp[n++] = (char)('A' + r);
        col = (col - 1) / 26;
    }
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = '\0';
}

/* ---- the writer's state ------------------------------------------------ */

/* ---- the writer's state ------------------------------------------------ */

/* Scenarios the per-scenario sheets (Scenarios, Breakdown, Runners-up,
 * Design, Errors) list one by one.  A larger study lists there the rows of
 * interest only (each series' best at each device count, the recommended
 * and the varied row) and says so: the CSVs hold every row, and the
 * workbook stays small enough to write and to open (a million rows of 45
 * columns took more than 20 GiB in libxlsxwriter).
 * The rows the per-scenario sheets list: every row, or for a study of more
 * than RPT_DETAIL_MAX scenarios its rows of interest.  Returns 0, -1 when out
 * of memory. */
static int choose_detail(X *x)
{
    const Run *run = x->run;
    x->detail = NULL;
    x->ndetail = run->n;
    x->det_at = -1;
    if (!(x->det = calloc(1, sizeof *x->det)))
        return -1;
    const int max = x->in->detail_max > 0 ? x->in->detail_max : RPT_DETAIL_MAX;
    x->detail_max = max;
    if (x->in->detail.f) { /* every row, as the stream kept them */
        x->ndetail = x->in->detail.n;
        x->nevaluated = x->in->detail.evaluated;
        return 0;
    }
    if (run_total(run) <= max) {
        for (int i = 0; i < run->n; i++)
            x->nevaluated += xl_evaluated(&run->row[i]);
        return 0;
    }
    unsigned char *mark = calloc((size_t)run->n, 1);
    x->detail = malloc(sizeof *x->detail * (size_t)max);
    if (!mark || !x->detail) {
        free(mark);
        free(x->detail);
        x->detail = NULL;
        return -1;
    }
    for (int i = 0; i < x->set.n; i++) {
        const RptSeries *s = &x->set.s[i];
        if (s->best >= 0)
            mark[s->best] = 1;
        for (int k = 0; k < s->npt; k++)
            mark[s->pt[k]] = 1;
    }
    int recs[RPT_MODELS_MAX];
    const int nrec = rpt_recommended(run, recs, RPT_MODELS_MAX);
    for (int k = 0; k < nrec; k++)
        mark[recs[k]] = 1;
    for (int k = 0; x->in->sens && k < x->in->sens->n; k++)
        mark[x->in->sens->s[k].row] = 1;
    x->ndetail = 0;
    for (int i = 0; i < run->n && x->ndetail < max; i++)
        if (mark[i]) {
            x->detail[x->ndetail++] = i;
            x->nevaluated += xl_evaluated(&run->row[i]);
        }
    free(mark);
    return 0;
}

static void detail_free(X *x)
{
    free(x->detail);
    x->detail = NULL;
    if (x->det)
        rpt_detail_free(x->det);
    free(x->det);
    x->det = NULL;
}

const RptDetail *xl_detail(X *x, int k)
{
    if (k == x->det_at)
        return x->det;
    FILE *f = x->in->detail.f;
    int bad = 0;
    if (!f) {
        bad = rpt_detail_of(&x->run->row[x->detail ? x->detail[k] : k], x->det) != 0;
        x->det_at = k;
    } else {
        if (k < x->det_at || x->det_at < 0) { /* a sheet starting over */
            bad = fseek(f, 0, SEEK_SET) != 0;
            x->det_at = -1;
        }
        while (!bad && x->det_at < k)
            if (rpt_detail_read(f, x->det))
                bad = 1;
            else
                x->det_at++;
    }
    if (bad) { /* nothing to list: the sheets write no cell of it */
        xl_check(x, f ? LXW_ERROR_READING_TMPFILE : LXW_ERROR_MEMORY_MALLOC_FAILED);
        RptDetail *d = x->det;
        d->evaluated = d->ncol = d->ndesign = d->ntop = 0;
        x->det_at = -1;
    }
    return x->det;
}

void xl_check(X *x, lxw_error e)
{
    if (e != LXW_NO_ERROR && x->err == LXW_NO_ERROR)
        x->err = e;
}

void xl_widen(Sheet *sh, int col, double w)
{
    if (col >= 0 && col < MAXW && w > sh->w[col])
        sh->w[col] = w;
}

size_t xl_utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s && *s != '\n'; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* User or program text, always as a string cell. */
void xl_put_text(X *x, Sheet *sh, int row, int col, const char *s, lxw_format *f)
{
    if (row > XL_LAST_ROW)
        return;
    rpt_clean_text(s, x->buf, x->bufsz);
    if (!x->buf[0]) {
        if (f)
            xl_check(x, worksheet_write_blank(sh->ws, (lxw_row_t)row, (lxw_col_t)col, f));
        return;
    }
    xl_check(x, worksheet_write_string(sh->ws, (lxw_row_t)row, (lxw_col_t)col, x->buf, f ? f : x->cell));
    xl_widen(sh, col, (double)xl_utf8_chars(x->buf) + (f ? 0 : 1));
}

/* Text that may run over the neighbouring empty cells (titles, notes). */
void xl_put_long(X *x, Sheet *sh, int row, int col, const char *s, lxw_format *f)
{
    rpt_clean_text(s, x->buf, x->bufsz);
    xl_check(x, worksheet_write_string(sh->ws, (lxw_row_t)row, (lxw_col_t)col, x->buf, f));
}

static double num_width(double v)
{
    double a = fabs(v);
    int digits = a >= 1 ? (int)floor(log10(a)) + 1 : 1;
    const int separators = digits / 3; /* a thousands separator per 3 digits */
    return digits + separators + 4;
}

/* A number, or an empty cell when it is not finite. */
void xl_put_num(X *x, Sheet *sh, int row, int col, double v, lxw_format *f)
{
    if (row > XL_LAST_ROW)
        return;
    if (!isfinite(v)) {
        if (f)
            xl_check(x, worksheet_write_blank(sh->ws, (lxw_row_t)row, (lxw_col_t)col, f));
        return;
    }
    xl_check(x, worksheet_write_number(sh->ws, (lxw_row_t)row, (lxw_col_t)col, v, f));
    xl_widen(sh, col, num_width(v));
}

/* A table header: wrapped at spaces, so the column need only be as wide as
 * its longest word (and the autofilter button). */
static void put_header_as(X *x, Sheet *sh, int row, int col, const char *s, lxw_format *f)
{
    rpt_clean_text(s, x->buf, x->bufsz);
    xl_check(x, worksheet_write_string(sh->ws, (lxw_row_t)row, (lxw_col_t)col, x->buf, f));
    double word = 0, w = 0;
    for (const char *p = x->buf;; p++) {
        if (*p == ' ' || *p == '\0') {
            word = w > word ? w : word;
            w = 0;
            if (!*p)
                break;
        } else if (((unsigned char)*p & 0xC0) != 0x80) {
            w++;
        }
    }
    xl_widen(sh, col, word + 2);
}

void xl_put_header(X *x, Sheet *sh, int row, int col, const char *s)
{
    put_header_as(x, sh, row, col, s, x->head);
}

void xl_put_header_num(X *x, Sheet *sh, int row, int col, const char *s)
{
    put_header_as(x, sh, row, col, s, x->head_num);
}

/* Height of a header row of `lines` wrapped lines. */
void xl_header_height(Sheet *sh, int row, int lines)
{
    worksheet_set_row(sh->ws, (lxw_row_t)row, 15.0 * lines + 2, NULL);
}

/* A table column's header: "name [unit]", or the name alone. */
/* What a summary column shows in this workbook: its times to train in the
 * study's unit (minutes, hours or days) and its energies to train in kWh,
 * MWh or GWh; *unit says which.  Returns the factor from the CSV's unit. */
double xl_col_scale(const X *x, const ReportCol *c, const char **unit)
{
    *unit = c->unit;
    if (c->format == RF_DAYS) {
        *unit = x->tunit;
        return 86400.0 / x->tunit_s;
    }
    if (c->format == RF_KWH) {
        *unit = x->eunit;
        return 3.6e6 / x->eunit_j;
    }
    return 1.0;
}

/* A summary column's header: its label and the unit it shows. */
void xl_put_col_header(X *x, Sheet *sh, int row, int col, const ReportCol *c)
{
    char head[160];
    const char *unit, *label = rpt_col_label(c->name);
    xl_col_scale(x, c, &unit);
    if (unit[0])
        snprintf(head, sizeof head, "%s [%s]", label ? label : c->name, unit);
    else
        snprintf(head, sizeof head, "%s", label ? label : c->name);
    put_header_as(x, sh, row, col, head, c->type == RC_TEXT ? x->head : x->head_num); /* over its numbers */
}

void xl_finish_sheet(Sheet *sh, double min_w, double max_w)
{
    for (int c = 0; c < MAXW; c++) {
        if (sh->w[c] <= 0)
            continue;
        double w = sh->w[c] + 1;
        w = w < min_w ? min_w : w > max_w ? max_w : w;
        worksheet_set_column(sh->ws, (lxw_col_t)c, (lxw_col_t)c, w, NULL);
    }
}

/* Landscape A4, the header row repeated on each page; a table of ncols
 * columns prints one page wide, or, past 24 columns, a page for every 26,
 * three at most (fitting 90 columns on one page's width leaves them
 * unreadable, and a page for every 18 took the Scenarios sheet alone to
 * five pages; the sheets that are that wide repeat their first column). */
void xl_page_setup(Sheet *sh, int header_row, int ncols)
{
    worksheet_set_landscape(sh->ws);
    worksheet_set_paper(sh->ws, 9); /* A4 */
    worksheet_fit_to_pages(sh->ws, ncols > 24 ? (uint16_t)(ncols > 3 * 26 ? 3 : (ncols + 25) / 26) : 1, 0);
    worksheet_set_margins(sh->ws, 0.4, 0.4, 0.5, 0.5);
    if (header_row >= 0)
        worksheet_repeat_rows(sh->ws, (lxw_row_t)header_row, (lxw_row_t)header_row);
}

lxw_format *xl_numfmt(X *x, const char *nf)
{
    /* one format a number format: libxlsxwriter hashes a duplicate's
     * properties again on every cell it formats (it keeps the index on the
     * first of equal formats only) */
    for (int i = 0; i < x->nnumfmt; i++)
        if (!strcmp(x->numfmt[i].nf, nf))
            return x->numfmt[i].f;
    lxw_format *f = workbook_add_format(x->wb);
    format_set_num_format(f, nf);
    if (f && x->nnumfmt < XL_NUMFMT_MAX && strlen(nf) < sizeof x->numfmt[0].nf) {
        snprintf(x->numfmt[x->nnumfmt].nf, sizeof x->numfmt[0].nf, "%s", nf);
        x->numfmt[x->nnumfmt++].f = f;
    }
    return f;
}

void xl_insert_chart(X *x, Sheet *sh, int row, lxw_chart *c, int x_offset, int y_offset, double x_scale,
                     double y_scale)
{
    lxw_chart_options o;
    memset(&o, 0, sizeof o);
    o.x_offset = x_offset;
    o.y_offset = y_offset;
    o.x_scale = x_scale;
    o.y_scale = y_scale;
    xl_check(x, worksheet_insert_chart_opt(sh->ws, (lxw_row_t)row, 0, c, &o));
}

/* A table header: bold on blue, ruled below, wrapped, at the bottom of
 * its cell; right-aligned over numbers. */
static lxw_format *header_format(lxw_workbook *wb, int right)
{
    lxw_format *f = workbook_add_format(wb);
    format_set_bold(f);
    format_set_bg_color(f, 0xD9E1F2);
    format_set_bottom(f, LXW_BORDER_THIN);
    format_set_align(f, LXW_ALIGN_VERTICAL_BOTTOM);
    if (right)
        format_set_align(f, LXW_ALIGN_RIGHT);
    format_set_text_wrap(f);
    return f;
}

static void make_formats(X *x)
{
    lxw_workbook *wb = x->wb;
    x->title = workbook_add_format(wb);
    format_set_bold(x->title);
    format_set_font_size(x->title, 16);
    x->subtitle = workbook_add_format(wb);
    format_set_font_size(x->subtitle, 12);
    format_set_italic(x->subtitle);
    x->note = workbook_add_format(wb);
    format_set_font_color(x->note, 0x595959);
    x->section = workbook_add_format(wb);
    format_set_bold(x->section);
    format_set_font_size(x->section, 12);
    x->head = header_format(wb, 0);
    x->head_num = header_format(wb, 1);
    x->wrap = workbook_add_format(wb);
    format_set_text_wrap(x->wrap);
    format_set_align(x->wrap, LXW_ALIGN_VERTICAL_TOP);
    x->wrap_note = workbook_add_format(wb); /* a note (grey) that wraps in a merged range */
    format_set_text_wrap(x->wrap_note);
    format_set_align(x->wrap_note, LXW_ALIGN_VERTICAL_TOP);
    format_set_font_color(x->wrap_note, 0x595959);
    x->wrap_low = workbook_add_format(wb); /* a table cell that wraps, on its row's line like the others */
    format_set_text_wrap(x->wrap_low);
    x->bold = workbook_add_format(wb);
    format_set_bold(x->bold);
    format_set_indent(x->bold, 1);
    x->answer = workbook_add_format(wb); /* the Summary's answer: bold, wrapped in its merged range */
    format_set_bold(x->answer);
    format_set_text_wrap(x->answer);
    format_set_align(x->answer, LXW_ALIGN_VERTICAL_TOP);
    x->cell = workbook_add_format(wb);
    format_set_indent(x->cell, 1);
    x->mono = workbook_add_format(wb);
    format_set_font_name(x->mono, "DejaVu Sans Mono");
    format_set_font_size(x->mono, 9);
    x->days = xl_numfmt(x, rpt_num_format(RC_NUM, RF_DAYS));
    x->pct = xl_numfmt(x, "0.0%");
    x->intf = xl_numfmt(x, "#,##0");
    x->kw = xl_numfmt(x, "#,##0.0");
    x->mwh = xl_numfmt(x, "#,##0.0");
    x->usd = xl_numfmt(x, "\"$\"#,##0");
    x->speedup = workbook_add_format(wb); /* bold: not the plain number format's */
    format_set_num_format(x->speedup, "0.00\"\xC3\x97\"");
    format_set_bold(x->speedup);
    x->secs = xl_numfmt(x, rpt_num_format(RC_NUM, RF_SECONDS));
    x->secs0 = xl_numfmt(x, "[=0]0;[<0.01]0.000###;#,##0.000");
    x->general = xl_numfmt(x, "General");
    x->sci = xl_numfmt(x, "[=0]0;[<100]0.000;#,##0");
    x->oom = workbook_add_format(wb);
    format_set_bg_color(x->oom, 0xFCE4D6);
    x->error = workbook_add_format(wb);
    format_set_bg_color(x->error, 0xF4CCCC);
    format_set_font_color(x->error, 0x9C0006);
    for (int i = 0; i < report_ncols && i < 128; i++)
        x->colfmt[i] = report_cols[i].type == RC_TEXT
                           ? NULL
                           : xl_numfmt(x, rpt_num_format(report_cols[i].type, report_cols[i].format));
}

int xl_col_index(const char *name)
{
    for (int i = 0; i < report_ncols; i++)
        if (!strcmp(report_cols[i].name, name))
            return i;
    return -1;
}

int xl_evaluated(const RunRow *rr)
{
    return rr->built && rr->r.status != STATUS_ERROR;
}

/* Days when the median best time to train is 2 days or more, hours when 2
 * hours or more, else minutes. */
static void choose_time_unit(X *x)
{
    x->tunit_s = rpt_time_unit(x->run, &x->set, &x->tunit);
    x->eunit_j = rpt_energy_unit(x->run, &x->set, &x->eunit);
    x->marks_row = -1; /* the Summary sets its chart helpers' row */
}

/* Time to train in the workbook's unit (days, hours or minutes: the unit
 * that suits the study's best times). */
double xl_ttt_shown(const X *x, const RunRow *rr)
{
    return rr->r.time_to_train_s / x->tunit_s;
}

int xl_has_ttt(const RunRow *rr)
{
    return isfinite(rr->r.time_to_train_s) && rr->r.time_to_train_s > 0;
}

double xl_shown_time(const X *x, const RunRow *p, double f)
{
    if (x->set.by_ttt)
        return xl_has_ttt(p) ? xl_ttt_shown(x, p) * f : NAN;
    return p->r.step_time_s * f;
}

/* Adds the sheets the run has (Runners-up when it kept them, --top K;
 * Design when a row was co-designed) and writes them in the workbook's
 * order.  Returns the sheets' array for the caller to free. */
static Sheet *write_sheets(X *x)
{
    const ReportInput *in = x->in;
    const int designed = run_designed(in->run);
    enum {
        S_SUMMARY,
        S_SCENARIOS,
        S_BREAKDOWN,
        S_RUNNERS,
        S_DESIGN,
        S_SENS,
        S_INPUTS,
        S_ERRORS,
        S_ABOUT,
        S_COUNT
    };
    static const char *const all[S_COUNT] = {"Summary",     "Scenarios", "Breakdown", "Runners-up", "Design",
                                             "Sensitivity", "Inputs",    "Errors",    "About"};
    const int want[S_COUNT] = {1, 1, 1, in->run->top_k > 0, designed, in->sens && in->sens->n > 0, 1, 1, 1};
    Sheet *sh = calloc(S_COUNT, sizeof *sh);
    Sheet *at[S_COUNT] = {NULL};
    char sname[S_COUNT][64];
    for (int i = 0, k = 0; sh && i < S_COUNT; i++) {
        if (!want[i])
            continue;
        at[i] = &sh[k++];
        rpt_sheet_name(all[i], sname[i], sizeof sname[i]);
        at[i]->name = sname[i];
        /* the per-scenario sheets write their rows in order and hold a
         * row at a time (libxlsxwriter takes the mode per sheet from the
         * workbook's option when the sheet is added) */
        x->wb->options.constant_memory = i == S_SCENARIOS || i == S_BREAKDOWN;
        at[i]->ws = workbook_add_worksheet(x->wb, sname[i]);
        x->wb->options.constant_memory = LXW_FALSE;
        if (!at[i]->ws)
            xl_check(x, LXW_ERROR_MEMORY_MALLOC_FAILED);
    }
    if (sh && x->err == LXW_NO_ERROR) {
        xl_sheet_summary(x, at[S_SUMMARY]);
        xl_sheet_scenarios(x, at[S_SCENARIOS]);
        xl_sheet_breakdown(x, at[S_BREAKDOWN]);
        if (at[S_RUNNERS])
            xl_sheet_runners_up(x, at[S_RUNNERS]);
        if (at[S_DESIGN])
            xl_sheet_design(x, at[S_DESIGN]);
        if (at[S_SENS])
            xl_sheet_sensitivity(x, at[S_SENS]);
        xl_sheet_inputs(x, at[S_INPUTS]);
        xl_sheet_errors(x, at[S_ERRORS]);
        xl_sheet_about(x, at[S_ABOUT]);
        worksheet_activate(at[S_SUMMARY]->ws);
        if (x->run->n_error)
            worksheet_set_tab_color(at[S_ERRORS]->ws, 0xC00000);
    }
    return sh;
}

/* libxlsxwriter prints its own "[ERROR] ..." lines to stderr; ours (with
 * the path and the reason) is the one the user gets: its are silenced for
 * the close, where it writes the file.  The report is written by one
 * thread, after the evaluation. */
static lxw_error close_quietly(lxw_workbook *wb)
{
    fflush(stderr);
    const int saved_err = dup(STDERR_FILENO);
    const int devnull = open("/dev/null", O_WRONLY);
    if (saved_err >= 0 && devnull >= 0)
        dup2(devnull, STDERR_FILENO);
    if (devnull >= 0)
        close(devnull);
    const lxw_error e = workbook_close(wb);
    fflush(stderr);
    if (saved_err >= 0) {
        dup2(saved_err, STDERR_FILENO);
        close(saved_err);
    }
    return e;
}

int rpt_xlsx_write(const ReportInput *in, const char *path, char *err, size_t n)
{
    AtomicFile a = {0};
    if (!atomic_open(&a, path)) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    X x;
    memset(&x, 0, sizeof x);
    x.in = in;
    x.run = in->run;
    x.bufsz = 4 * XL_MAX_CHARS + 1;
    x.buf = malloc(x.bufsz);
    int own_set = 0;
    const int no_set = !x.buf || rpt_series_of(in, &x.set, &own_set);
    if (no_set || choose_detail(&x)) {
        if (!no_set && own_set)
            rpt_series_free(&x.set);
        detail_free(&x);
        free(x.buf);
        atomic_abort(&a);
        snprintf(err, n, "%s: out of memory", path);
        errno = ENOMEM;
        return -1;
    }
    choose_time_unit(&x);
    lxw_workbook_options opt = {.constant_memory = LXW_FALSE, .tmpdir = NULL, .use_zip64 = LXW_FALSE};
    x.wb = workbook_new_opt(a.tmp, &opt);
    if (!x.wb) {
        detail_free(&x);
        free(x.buf);
        if (own_set)
            rpt_series_free(&x.set);
        atomic_abort(&a);
        snprintf(err, n, "%s: cannot start the workbook", path);
        errno = EIO;
        return -1;
    }
    make_formats(&x);

    char title[300], q[700], comments[200];
    rpt_clean_text(in->table->title[0] ? in->table->title : in->name, title, sizeof title);
    rpt_question(in->run, &x.set, q, sizeof q);
    snprintf(comments, sizeof comments, "Written by deepflow %s", DF_VERSION);
    lxw_doc_properties props;
    memset(&props, 0, sizeof props);
    props.title = title;
    props.subject = q;
    props.author = "deepflow";
    props.comments = comments;
    props.created = in->created;
    xl_check(&x, workbook_set_properties(x.wb, &props));

    Sheet *sh = write_sheets(&x);
    lxw_error e = close_quietly(x.wb);
    free(sh);
    free(x.buf);
    if (own_set)
        rpt_series_free(&x.set);
    detail_free(&x);
    if (x.err == LXW_NO_ERROR)
        x.err = e;
    if (x.err != LXW_NO_ERROR) {
        int saved = errno ? errno : EIO;
        atomic_abort(&a);
        if (errno) /* the system's reason (no space, no permission) with the library's */
            snprintf(err, n, "%s: %s (%s)", path, strerror(saved), lxw_strerror(x.err));
        else
            snprintf(err, n, "%s: %s", path, lxw_strerror(x.err));
        errno = saved;
        return -1;
    }
    if (atomic_commit(&a)) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
