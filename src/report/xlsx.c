/* report/xlsx.c — the workbook NAME.xlsx (DESIGN.md §7), with libxlsxwriter:
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
 *   Sensitivity the fastest scenario with each main parameter -10 % and
 *              +10 %: a table and a tornado chart;
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

#ifndef DF_VERSION
#define DF_VERSION "0.0.0"
#endif

#define XL_MAX_CHARS    32767   /* characters in one cell */
#define XL_LAST_ROW     1048575 /* 0-based index of Excel's last row */
#define INPUTS_MAX_ROWS 1000000
/* Scenarios the per-scenario sheets (Scenarios, Breakdown, Runners-up,
 * Design, Errors) list one by one.  A larger study lists there the rows of
 * interest only (each series' best at each device count, the recommended
 * and the varied row) and says so: the CSVs hold every row, and the
 * workbook stays small enough to write and to open (a million rows of 45
 * columns took more than 20 GiB in libxlsxwriter). */
#define MAXW 160 /* columns whose width is tracked */

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

typedef struct {
    lxw_worksheet *ws;
    const char *name;
    double w[MAXW]; /* widest text seen per column, in characters */
} Sheet;

typedef struct {
    lxw_workbook *wb;
    const ReportInput *in;
    const Run *run;
    RptSeriesSet set;
    double tunit_s;    /* time to train is shown in this unit (s): days, hours or minutes */
    const char *tunit; /* its name: "days", "hours", "minutes" */
    double eunit_j;    /* energy to train is shown in this unit (J): kWh, MWh or GWh */
    const char *eunit;
    lxw_error err; /* first error libxlsxwriter returned */
    char *buf;     /* cleaned cell text */
    size_t bufsz;
    lxw_format *title, *subtitle, *note, *section, *head, *head_num, *wrap, *wrap_low, *bold, *mono;
    lxw_format *days, *pct, *intf, *kw, *mwh, *usd, *speedup, *secs, *secs0, *general, *sci;
    lxw_format *oom, *error;
    lxw_format *cell;        /* table text: indented so that it never touches a right-aligned number */
    lxw_format *colfmt[128]; /* per summary column */
    int *detail;             /* rows the per-scenario sheets list, ascending; NULL: every row */
    int ndetail;
    int detail_max; /* the most rows a per-scenario sheet lists */
} X;

/* The rows the per-scenario sheets list: every row, or for a study of more
 * than RPT_DETAIL_MAX scenarios its rows of interest.  Returns 0, -1 when out
 * of memory. */
static int choose_detail(X *x)
{
    const Run *run = x->run;
    x->detail = NULL;
    x->ndetail = run->n;
    const int max = x->in->detail_max > 0 ? x->in->detail_max : RPT_DETAIL_MAX;
    x->detail_max = max;
    if (run_total(run) <= max)
        return 0;
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
    char why[1024];
    const int rec = rpt_recommend(run, why, sizeof why);
    if (rec >= 0)
        mark[rec] = 1;
    if (x->in->sens && x->in->sens->row >= 0)
        mark[x->in->sens->row] = 1;
    x->ndetail = 0;
    for (int i = 0; i < run->n && x->ndetail < max; i++)
        if (mark[i])
            x->detail[x->ndetail++] = i;
    free(mark);
    return 0;
}

/* The k-th row the per-scenario sheets list. */
static const RunRow *detail_row(const X *x, int k)
{
    return &x->run->row[x->detail ? x->detail[k] : k];
}

static void check(X *x, lxw_error e)
{
    if (e != LXW_NO_ERROR && x->err == LXW_NO_ERROR)
        x->err = e;
}

static void widen(Sheet *sh, int col, double w)
{
    if (col >= 0 && col < MAXW && w > sh->w[col])
        sh->w[col] = w;
}

static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s && *s != '\n'; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* User or program text, always as a string cell. */
static void put_text(X *x, Sheet *sh, int row, int col, const char *s, lxw_format *f)
{
    if (row > XL_LAST_ROW)
        return;
    rpt_clean_text(s, x->buf, x->bufsz);
    if (!x->buf[0]) {
        if (f)
            check(x, worksheet_write_blank(sh->ws, (lxw_row_t)row, (lxw_col_t)col, f));
        return;
    }
    check(x, worksheet_write_string(sh->ws, (lxw_row_t)row, (lxw_col_t)col, x->buf, f ? f : x->cell));
    widen(sh, col, (double)utf8_chars(x->buf) + (f ? 0 : 1));
}

/* Text that may run over the neighbouring empty cells (titles, notes). */
static void put_long(X *x, Sheet *sh, int row, int col, const char *s, lxw_format *f)
{
    rpt_clean_text(s, x->buf, x->bufsz);
    check(x, worksheet_write_string(sh->ws, (lxw_row_t)row, (lxw_col_t)col, x->buf, f));
}

static double num_width(double v)
{
    double a = fabs(v);
    int digits = a >= 1 ? (int)floor(log10(a)) + 1 : 1;
    const int separators = digits / 3; /* a thousands separator per 3 digits */
    return digits + separators + 4;
}

/* A number, or an empty cell when it is not finite. */
static void put_num(X *x, Sheet *sh, int row, int col, double v, lxw_format *f)
{
    if (row > XL_LAST_ROW)
        return;
    if (!isfinite(v)) {
        if (f)
            check(x, worksheet_write_blank(sh->ws, (lxw_row_t)row, (lxw_col_t)col, f));
        return;
    }
    check(x, worksheet_write_number(sh->ws, (lxw_row_t)row, (lxw_col_t)col, v, f));
    widen(sh, col, num_width(v));
}

/* A table header: wrapped at spaces, so the column need only be as wide as
 * its longest word (and the autofilter button). */
static void put_header_as(X *x, Sheet *sh, int row, int col, const char *s, lxw_format *f)
{
    rpt_clean_text(s, x->buf, x->bufsz);
    check(x, worksheet_write_string(sh->ws, (lxw_row_t)row, (lxw_col_t)col, x->buf, f));
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
    widen(sh, col, word + 2);
}

static void put_header(X *x, Sheet *sh, int row, int col, const char *s)
{
    put_header_as(x, sh, row, col, s, x->head);
}

/* Height of a header row of `lines` wrapped lines. */
static void header_height(Sheet *sh, int row, int lines)
{
    worksheet_set_row(sh->ws, (lxw_row_t)row, 15.0 * lines + 2, NULL);
}

/* A table column's header: "name [unit]", or the name alone. */
/* What a summary column shows in this workbook: its times to train in the
 * study's unit (minutes, hours or days) and its energies to train in kWh,
 * MWh or GWh; *unit says which.  Returns the factor from the CSV's unit. */
static double col_scale(const X *x, const ReportCol *c, const char **unit)
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
static void put_col_header(X *x, Sheet *sh, int row, int col, const ReportCol *c)
{
    char head[160];
    const char *unit, *label = rpt_col_label(c->name);
    col_scale(x, c, &unit);
    if (unit[0])
        snprintf(head, sizeof head, "%s [%s]", label ? label : c->name, unit);
    else
        snprintf(head, sizeof head, "%s", label ? label : c->name);
    put_header_as(x, sh, row, col, head, c->type == RC_TEXT ? x->head : x->head_num); /* over its numbers */
}

static void finish_sheet(Sheet *sh, double min_w, double max_w)
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
 * columns prints one page wide, or, past 24 columns, a page for every 18
 * (fitting 90 columns on one page's width leaves them unreadable; the
 * sheets that are that wide repeat their first column). */
static void page_setup(Sheet *sh, int header_row, int ncols)
{
    worksheet_set_landscape(sh->ws);
    worksheet_set_paper(sh->ws, 9); /* A4 */
    worksheet_fit_to_pages(sh->ws, ncols > 24 ? (uint16_t)((ncols + 17) / 18) : 1, 0);
    worksheet_set_margins(sh->ws, 0.4, 0.4, 0.5, 0.5);
    if (header_row >= 0)
        worksheet_repeat_rows(sh->ws, (lxw_row_t)header_row, (lxw_row_t)header_row);
}

static lxw_format *numfmt(X *x, const char *nf)
{
    lxw_format *f = workbook_add_format(x->wb);
    format_set_num_format(f, nf);
    return f;
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
    x->wrap_low = workbook_add_format(wb); /* a table cell that wraps, on its row's line like the others */
    format_set_text_wrap(x->wrap_low);
    x->bold = workbook_add_format(wb);
    format_set_bold(x->bold);
    format_set_indent(x->bold, 1);
    x->cell = workbook_add_format(wb);
    format_set_indent(x->cell, 1);
    x->mono = workbook_add_format(wb);
    format_set_font_name(x->mono, "DejaVu Sans Mono");
    format_set_font_size(x->mono, 9);
    x->days = numfmt(x, rpt_num_format(RC_NUM, RF_DAYS));
    x->pct = numfmt(x, "0.0%");
    x->intf = numfmt(x, "#,##0");
    x->kw = numfmt(x, "#,##0.0");
    x->mwh = numfmt(x, "#,##0.0");
    x->usd = numfmt(x, "\"$\"#,##0");
    x->speedup = numfmt(x, "0.00\"\xC3\x97\"");
    format_set_bold(x->speedup);
    x->secs = numfmt(x, rpt_num_format(RC_NUM, RF_SECONDS));
    x->secs0 = numfmt(x, "[=0]0;[<0.01]0.000###;#,##0.000");
    x->general = numfmt(x, "General");
    x->sci = numfmt(x, "[=0]0;[<100]0.000;#,##0");
    x->oom = workbook_add_format(wb);
    format_set_bg_color(x->oom, 0xFCE4D6);
    x->error = workbook_add_format(wb);
    format_set_bg_color(x->error, 0xF4CCCC);
    format_set_font_color(x->error, 0x9C0006);
    for (int i = 0; i < report_ncols && i < 128; i++)
        x->colfmt[i] = report_cols[i].type == RC_TEXT
                           ? NULL
                           : numfmt(x, rpt_num_format(report_cols[i].type, report_cols[i].format));
}

static int col_index(const char *name)
{
    for (int i = 0; i < report_ncols; i++)
        if (!strcmp(report_cols[i].name, name))
            return i;
    return -1;
}

static int evaluated(const RunRow *rr)
{
    return rr->built && rr->r.status != STATUS_ERROR;
}

/* ---- Scenarios ---------------------------------------------------------- */

static void sheet_scenarios(X *x, Sheet *sh)
{
    const Run *run = x->run;
    char text[600];
    int top = 0; /* the header's row */
    if (x->detail) {
        snprintf(text, sizeof text,
                 "The %d scenario%s of interest of %d (each series' best at each device count and the "
                 "recommended one): summary.csv, beside this workbook, has every scenario.",
                 x->ndetail, x->ndetail == 1 ? "" : "s", run_total(run));
        put_long(x, sh, top++, 0, text, x->note);
    }
    double scale[128];
    const char *unit;
    for (int i = 0; i < report_ncols && i < 128; i++) {
        put_col_header(x, sh, top, i, &report_cols[i]);
        scale[i] = col_scale(x, &report_cols[i], &unit);
    }
    const int rows = x->ndetail;
    for (int r = 0; r < rows; r++) {
        const RunRow *rr = detail_row(x, r);
        for (int i = 0; i < report_ncols && i < 128; i++) {
            double v;
            if (report_value(i, rr, &v, text, sizeof text))
                put_num(x, sh, top + r + 1, i, v * scale[i], x->colfmt[i]);
            else
                put_text(x, sh, top + r + 1, i, text, NULL);
        }
    }
    header_height(sh, top, 2);
    widen(sh, col_index("mfu"), 10); /* room for the data bars */
    if (sh->w[col_index("error")] > 60)
        sh->w[col_index("error")] = 60;
    worksheet_freeze_panes(sh->ws, (lxw_row_t)(top + 1), 1);
    check(x, worksheet_autofilter(sh->ws, (lxw_row_t)top, 0, (lxw_row_t)(top + (rows > 0 ? rows : 1)),
                                  (lxw_col_t)(report_ncols - 1)));
    if (rows > 0) {
        const lxw_row_t first = (lxw_row_t)(top + 1), last = (lxw_row_t)(top + rows);
        int mfu = col_index("mfu");
        lxw_conditional_format bar;
        memset(&bar, 0, sizeof bar);
        bar.type = LXW_CONDITIONAL_DATA_BAR;
        bar.bar_color = 0x63BE7B;
        bar.bar_solid = 1;
        bar.min_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
        bar.min_value = 0;
        bar.max_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
        bar.max_value = 1;
        check(x,
              worksheet_conditional_format_range(sh->ws, first, (lxw_col_t)mfu, last, (lxw_col_t)mfu, &bar));
        char letters[8], formula[64];
        rpt_col_letters(col_index("status"), letters);
        static const char *const what[2] = {"oom", "error"};
        for (int k = 0; k < 2; k++) {
            lxw_conditional_format cf;
            memset(&cf, 0, sizeof cf);
            cf.type = LXW_CONDITIONAL_TYPE_FORMULA;
            snprintf(formula, sizeof formula, "=$%s%d=\"%s\"", letters, top + 2, what[k]);
            cf.value_string = formula;
            cf.format = k ? x->error : x->oom;
            check(x, worksheet_conditional_format_range(sh->ws, first, 0, last, (lxw_col_t)(report_ncols - 1),
                                                        &cf));
        }
    }
    finish_sheet(sh, 6, 60);
    page_setup(sh, top, report_ncols);
    worksheet_repeat_columns(sh->ws, 0, 0);
}

/* ---- Summary ------------------------------------------------------------ */

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

/* The time a chart or table shows for a row (days to train or step
 * seconds), times f: 1, or an end of the prediction interval. */
static double shown_time(const X *x, const RunRow *p, double f);

/* Time to train in the workbook's unit (days, hours or minutes: the unit
 * that suits the study's best times). */
static double ttt_shown(const X *x, const RunRow *rr)
{
    return rr->r.time_to_train_s / x->tunit_s;
}

/* Days when the median best time to train is 2 days or more, hours when 2
 * hours or more, else minutes. */
static void choose_time_unit(X *x)
{
    x->tunit_s = rpt_time_unit(x->run, &x->set, &x->tunit);
    x->eunit_j = rpt_energy_unit(x->run, &x->set, &x->eunit);
}

static int has_ttt(const RunRow *rr)
{
    return isfinite(rr->r.time_to_train_s) && rr->r.time_to_train_s > 0;
}

/* Speedup of row b over reference row a: a formula from cell references
 * with its value cached, or "n/a".  ra, rb: 0-based rows of the best table. */
static void put_speedup(X *x, Sheet *sh, int row, int col, const RunRow *a, int ra, const RunRow *b, int rb,
                        int by_time)
{
    char ca[8], f[96];
    double v = NAN;
    if (by_time && has_ttt(a) && has_ttt(b)) {
        rpt_col_letters(B_TIME, ca);
        v = a->r.time_to_train_s / b->r.time_to_train_s;
        snprintf(f, sizeof f, "=%s%d/%s%d", ca, ra + 1, ca, rb + 1);
    } else if (isfinite(a->r.samples_per_s) && isfinite(b->r.samples_per_s) && a->r.samples_per_s > 0) {
        rpt_col_letters(B_SPS, ca);
        v = b->r.samples_per_s / a->r.samples_per_s;
        snprintf(f, sizeof f, "=%s%d/%s%d", ca, rb + 1, ca, ra + 1);
    }
    if (!isfinite(v)) {
        put_text(x, sh, row, col, "n/a", NULL);
        return;
    }
    check(x, worksheet_write_formula_num(sh->ws, (lxw_row_t)row, (lxw_col_t)col, f, x->speedup, v));
    widen(sh, col, 7);
}

static double shown_time(const X *x, const RunRow *p, double f)
{
    if (x->set.by_ttt)
        return has_ttt(p) ? ttt_shown(x, p) * f : NAN;
    return p->r.step_time_s * f;
}

static void best_row(X *x, Sheet *sh, int row, const RptSeries *s)
{
    put_text(x, sh, row, B_SERIES, s->name, x->bold);
    if (s->best < 0) {
        put_text(x, sh, row, B_SCEN, "no scenario of this series fits and runs", x->note);
        return;
    }
    const RunRow *rr = &x->run->row[s->best];
    const Result *r = &rr->r;
    put_text(x, sh, row, B_SCEN, rr->sc.name, NULL);
    if (x->set.by_ttt)
        put_num(x, sh, row, B_TIME, ttt_shown(x, rr), x->days);
    else
        put_num(x, sh, row, B_TIME, r->step_time_s, x->secs);
    if (isfinite(r->interval_lo) && isfinite(r->interval_hi)) {
        char range[64];
        snprintf(range, sizeof range, "%.3g to %.3g", shown_time(x, rr, r->interval_lo),
                 shown_time(x, rr, r->interval_hi));
        put_text(x, sh, row, B_RANGE, range, NULL);
    } else {
        put_text(x, sh, row, B_RANGE, "none (ideal stack)", x->note);
    }
    put_num(x, sh, row, B_DEV, rr->sc.devices, x->intf);
    char sys_stack[2 * NAME_MAX_LEN + 8];
    snprintf(sys_stack, sizeof sys_stack, "%s; %s", rr->sc.system.name, rr->sc.system.framework.name);
    put_text(x, sh, row, B_SYS, sys_stack, NULL);
    char st[256];
    strategy_describe(&r->st, 1, st, sizeof st);
    put_text(x, sh, row, B_STRAT, st, x->wrap_low); /* wrapped past the sheet's widest column (40) */
    const size_t chars = utf8_chars(st);
    if (chars > 36)
        header_height(sh, row, (int)((chars + 35) / 36));
    put_num(x, sh, row, B_SPS, r->samples_per_s, x->kw);
    put_num(x, sh, row, B_MFU, r->mfu, x->pct);
    put_num(x, sh, row, B_SCALE, r->scaling_efficiency, x->pct);
    put_num(x, sh, row, B_POWER, r->system_power_w / 1e3, x->kw);
    put_num(x, sh, row, B_ENERGY, r->energy_to_train_j / x->eunit_j, x->mwh);
    const double cost = r->cost_usd; /* evaluate.c's: price x devices x time to train */
    if (isfinite(cost))
        put_num(x, sh, row, B_COST, cost, x->usd);
    else
        put_text(x, sh, row, B_COST, "unknown", x->note);
    if (isfinite(r->failures.goodput)) { /* the system states its failure rate */
        put_num(x, sh, row, B_GOODPUT, r->failures.goodput, x->pct);
        put_num(x, sh, row, B_WALL, r->failures.wall_s / x->tunit_s, x->days);
    } else {
        put_text(x, sh, row, B_GOODPUT, "not stated", x->note);
    }
    put_text(x, sh, row, B_LIMIT, r->bottleneck, NULL);
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
    static const uint8_t dash[4] = {LXW_CHART_LINE_DASH_SOLID, LXW_CHART_LINE_DASH_DASH,
                                    LXW_CHART_LINE_DASH_ROUND_DOT, LXW_CHART_LINE_DASH_DASH_DOT};
    static const uint8_t marker[4] = {LXW_CHART_MARKER_CIRCLE, LXW_CHART_MARKER_SQUARE,
                                      LXW_CHART_MARKER_TRIANGLE, LXW_CHART_MARKER_DIAMOND};
    const lxw_color_t col = series_palette[s->colour % NPALETTE];
    if (lines) {
        lxw_chart_line ln = {.color = col, .width = 2.25, .dash_type = dash[s->variant % 4]};
        chart_series_set_line(cs, &ln);
    }
    chart_series_set_marker_type(cs, marker[s->variant % 4]);
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
        check(x, LXW_ERROR_MEMORY_MALLOC_FAILED);
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
    lxw_chart_options o;
    memset(&o, 0, sizeof o);
    o.x_offset = 4 + xoff;
    o.y_offset = 6;
    o.x_scale = 1.3;
    o.y_scale = 1.15;
    check(x, worksheet_insert_chart_opt(sh->ws, (lxw_row_t)row, 0, c, &o));
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
    put_text(x, sh, line_row, D_SERIES, "break-even (1.0x)", x->note);
    put_num(x, sh, line_row, D_DEV, dmin, x->intf);
    put_num(x, sh, line_row + 1, D_DEV, dmax, x->intf);
    put_num(x, sh, line_row, D_SPEEDUP, 1.0, x->speedup);
    put_num(x, sh, line_row + 1, D_SPEEDUP, 1.0, x->speedup);
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
            check(x, LXW_ERROR_MEMORY_MALLOC_FAILED);
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
        lxw_chart_options o;
        memset(&o, 0, sizeof o);
        o.x_offset = 4 + (nchart % 2) * 640;
        o.y_offset = 6;
        o.x_scale = 1.3;
        o.y_scale = 1.15;
        check(x, worksheet_insert_chart_opt(sh->ws, (lxw_row_t)(row + 3 + (nchart / 2) * 18), 0, c, &o));
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
    /* the front: sort the points by cost, keep each one faster than every
     * cheaper one */
    int n = 0, cap = 0;
    for (int i = 0; i < x->set.n; i++)
        cap += x->set.s[i].npt;
    int *idx = cap ? malloc(sizeof *idx * (size_t)cap) : NULL;
    if (!idx)
        return 0;
    for (int i = 0; i < x->set.n; i++)
        for (int k = 0; k < x->set.s[i].npt; k++) {
            const RunRow *p = &run->row[x->set.s[i].pt[k]];
            if (isfinite(pareto_value(p, ax->col)) && has_ttt(p))
                idx[n++] = x->set.s[i].pt[k];
        }
    if (n < 2) {
        free(idx);
        return 0;
    }
    for (int i = 1; i < n; i++) /* insertion sort by cost: a few hundred points */
        for (int j = i;
             j > 0 && pareto_value(&run->row[idx[j]], ax->col) < pareto_value(&run->row[idx[j - 1]], ax->col);
             j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    char text[200];
    snprintf(text, sizeof text, "Pareto front: no other scenario is both faster and %s", ax->noun);
    put_long(x, sh, row, 0, text, x->section);
    put_header(x, sh, row + 1, D_SERIES, "Series");
    put_header(x, sh, row + 1, D_SCEN, "Scenario");
    put_header(x, sh, row + 1, D_DEV, "Devices");
    char th[48];
    snprintf(th, sizeof th, "Time to train [%s]", x->tunit);
    put_header(x, sh, row + 1, D_TIME, th);
    put_header(x, sh, row + 1, ax->col, ax->head);
    int r0 = row + 2, r = r0;
    double best = INFINITY;
    lxw_format *f = ax->col == D_COST ? x->usd : ax->col == D_POWER ? x->kw : x->mwh;
    for (int i = 0; i < n; i++) {
        const RunRow *p = &run->row[idx[i]];
        if (!(p->r.time_to_train_s < best))
            continue;
        best = p->r.time_to_train_s;
        put_text(x, sh, r, D_SERIES, p->sc.series, NULL);
        put_text(x, sh, r, D_SCEN, p->sc.name, NULL);
        put_num(x, sh, r, D_DEV, p->sc.devices, x->intf);
        put_num(x, sh, r, D_TIME, ttt_shown(x, p), x->days);
        put_num(x, sh, r, ax->col, pareto_value(p, ax->col), f);
        r++;
    }
    free(idx);
    lxw_chart *c = workbook_add_chart(x->wb, LXW_CHART_SCATTER);
    if (!c) {
        check(x, LXW_ERROR_MEMORY_MALLOC_FAILED);
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
    lxw_chart_series *front = chart_add_series(c, NULL, NULL);
    if (front && r > r0) {
        chart_series_set_categories(front, sh->name, (lxw_row_t)r0, (lxw_col_t)ax->col, (lxw_row_t)(r - 1),
                                    (lxw_col_t)ax->col);
        chart_series_set_values(front, sh->name, (lxw_row_t)r0, D_TIME, (lxw_row_t)(r - 1), D_TIME);
        chart_series_set_name(front, "Pareto front");
        lxw_chart_line ln = {.color = 0x000000, .width = 1.5, .dash_type = LXW_CHART_LINE_DASH_DASH};
        chart_series_set_line(front, &ln);
        chart_series_set_marker_type(front, LXW_CHART_MARKER_NONE);
    }
    lxw_chart_options o;
    memset(&o, 0, sizeof o);
    o.x_offset = 4;
    o.y_offset = 6;
    o.x_scale = 2.0;
    o.y_scale = 1.4;
    check(x, worksheet_insert_chart_opt(sh->ws, (lxw_row_t)(r + 2), 0, c, &o));
    return r + 2 - row + (int)(288.0 * o.y_scale / 20.0) + 3; /* default rows are 20 px */
}

static void sheet_summary(X *x, Sheet *sh)
{
    const Run *run = x->run;
    const Table *t = x->in->table;
    char line[1024], q[700];
    put_long(x, sh, 0, 0, t->title[0] ? t->title : x->in->name, x->title);
    rpt_question(run, &x->set, q, sizeof q);
    put_long(x, sh, 1, 0, q, x->subtitle);
    snprintf(line, sizeof line, "%d scenario%s from %s: %d ok, %d out of memory, %d failed%s. deepflow %s.",
             run_total(run), run_total(run) == 1 ? "" : "s", t->path, run->n_ok, run->n_oom, run->n_error,
             run->n_error ? " (see the Errors sheet)" : "", DF_VERSION);
    put_long(x, sh, 2, 0, line, x->note);
    worksheet_set_row(sh->ws, 0, 24, NULL);
    /* the answer: the recommendation under the study's constraints */
    char rec[2048];
    rpt_recommend(run, rec, sizeof rec);
    put_long(x, sh, 3, 0, rec, x->bold);

    /* the best scenario of each series */
    int r = 5;
    put_long(x, sh, r++, 0, "Best scenario of each series", x->section);
    put_long(x, sh, r++, 0,
             x->set.by_ttt ? "Best = the shortest time to train among the scenarios that fit in memory; "
                             "speedup = the reference's time to train over the series' time to train."
                           : "Best = the highest throughput among the scenarios that fit in memory "
                             "(no time to train is known); speedup = throughput over the reference's.",
             x->note);
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
        put_header(x, sh, r, c, heads[c]);
    widen(sh, B_SPEEDUP, (double)utf8_chars(sp) / 3 + 3);
    header_height(sh, r, 3);
    r++;
    int first = r;
    for (int i = 0; i < x->set.n; i++)
        best_row(x, sh, first + i, &x->set.s[i]);
    if (ref >= 0) /* against the reference series: the same model only */
        for (int i = 0; i < x->set.n; i++) {
            if (x->set.s[i].best < 0)
                continue;
            const RunRow *a = &run->row[x->set.s[ref].best], *b = &run->row[x->set.s[i].best];
            if (strcmp(a->sc.model.name, b->sc.model.name))
                put_text(x, sh, first + i, B_SPEEDUP, "other model", x->note);
            else
                put_speedup(x, sh, first + i, B_SPEEDUP, a, first + ref, b, first + i, x->set.by_ttt);
        }
    if (x->set.n == 0)
        put_text(x, sh, first, B_SERIES, "(no scenario was evaluated)", x->note);
    r = first + (x->set.n ? x->set.n : 1) + 1;

    /* the comparisons the table asked for with its baseline column */
    RptBaseline cmp[64];
    int ncmp = rpt_baselines(run, cmp, 64);
    if (ncmp > 0) {
        put_long(x, sh, r++, 0, "Against the baseline series at the same device count", x->section);
        put_long(x, sh, r++, 0,
                 "Crossover = the smallest device count from which the series trains faster than its "
                 "baseline at every larger count; speedup = the baseline's time to train over the series'.",
                 x->note);
        static const char *const ch[6] = {"Series",       "Baseline",    "Model", "Crossover [devices]",
                                          "Best speedup", "At [devices]"};
        for (int c = 0; c < 6; c++)
            put_header(x, sh, r, c, ch[c]);
        header_height(sh, r, 2);
        r++;
        for (int k = 0; k < ncmp; k++, r++) {
            put_text(x, sh, r, 0, cmp[k].series, x->bold);
            put_text(x, sh, r, 1, cmp[k].baseline, NULL);
            put_text(x, sh, r, 2, cmp[k].model, NULL);
            if (cmp[k].crossover)
                put_num(x, sh, r, 3, cmp[k].crossover, x->intf);
            else
                put_text(x, sh, r, 3, "never", NULL);
            put_num(x, sh, r, 4, cmp[k].best, x->speedup);
            put_num(x, sh, r, 5, cmp[k].best_devices, x->intf);
        }
        r++;
    }

    /* speedups between every pair of series */
    if (x->set.n >= 3 && x->set.n <= 40) {
        put_long(
            x, sh, r++, 0,
            "Speedup of the row's series over the column's series (best scenario of each; the same model "
            "only: one model's time to train says nothing of another's)",
            x->section);
        put_header(x, sh, r, 0, "Series");
        for (int j = 0; j < x->set.n; j++)
            put_header(x, sh, r, 1 + j, x->set.s[j].name);
        header_height(sh, r, 3);
        r++;
        for (int i = 0; i < x->set.n; i++, r++) {
            put_text(x, sh, r, 0, x->set.s[i].name, x->bold);
            for (int j = 0; j < x->set.n; j++) {
                const RptSeries *a = &x->set.s[j], *b = &x->set.s[i];
                if (a->best < 0 || b->best < 0)
                    put_text(x, sh, r, 1 + j, "n/a", NULL);
                else if (strcmp(run->row[a->best].sc.model.name, run->row[b->best].sc.model.name))
                    put_text(x, sh, r, 1 + j, "other model", x->note);
                else
                    put_speedup(x, sh, r, 1 + j, &run->row[a->best], first + j, &run->row[b->best], first + i,
                                x->set.by_ttt);
            }
        }
        r++;
    }

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
    int data_row = chart_row + 37 * (ngroup > 1 ? ngroup : 1);
    /* printed, each block of charts starts a page (never a chart cut in two) */
    lxw_row_t breaks[66];
    int nbreak = 0;
    for (int k = 0; k < (ngroup > 1 ? ngroup : 1) && nbreak < 64; k++)
        if (chart_row + 37 * k > 0)
            breaks[nbreak++] = (lxw_row_t)(chart_row + 37 * k);
    breaks[nbreak++] = (lxw_row_t)data_row;
    breaks[nbreak] = 0;
    check(x, worksheet_set_h_pagebreaks(sh->ws, breaks));
    put_long(x, sh, data_row, 0,
             "Chart data: the best scenario of each series at each device count (scenarios with status ok)",
             x->section);
    char dt[48], dlo[48], dhi[48], axis[64];
    snprintf(dt, sizeof dt, "Time to train [%s]", x->tunit);
    snprintf(dlo, sizeof dlo, "Time to train, low [%s]", x->tunit);
    snprintf(dhi, sizeof dhi, "Time to train, high [%s]", x->tunit);
    snprintf(axis, sizeof axis, "time to train [%s] (log scale)", x->tunit);
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
        put_header(x, sh, dh, c, dheads[c]);
    header_height(sh, dh, 3);
    int rr0 = dh + 1;
    int *blk = calloc((size_t)(x->set.n + 1), sizeof *blk);
    double dmin = 0, dmax = 0;
    int npoints = 0;
    for (int i = 0; i < x->set.n; i++) {
        const RptSeries *s = &x->set.s[i];
        if (blk)
            blk[i] = rr0;
        for (int k = 0; k < s->npt; k++, rr0++) {
            const RunRow *p = &run->row[s->pt[k]];
            put_text(x, sh, rr0, D_SERIES, s->name, NULL);
            put_num(x, sh, rr0, D_DEV, p->sc.devices, x->intf);
            put_text(x, sh, rr0, D_SCEN, p->sc.name, NULL);
            if (x->set.by_ttt)
                put_num(x, sh, rr0, D_TIME, has_ttt(p) ? ttt_shown(x, p) : NAN, x->days);
            else
                put_num(x, sh, rr0, D_TIME, p->r.step_time_s, x->secs);
            put_num(x, sh, rr0, D_MFU, p->r.mfu, x->pct);
            put_num(x, sh, rr0, D_SCALE, p->r.scaling_efficiency, x->pct);
            put_num(x, sh, rr0, D_POWER, p->r.system_power_w / 1e3, x->kw);
            put_num(x, sh, rr0, D_TLO, shown_time(x, p, p->r.interval_lo), x->set.by_ttt ? x->days : x->secs);
            put_num(x, sh, rr0, D_THI, shown_time(x, p, p->r.interval_hi), x->set.by_ttt ? x->days : x->secs);
            put_num(x, sh, rr0, D_SPEEDUP, p->r.speedup, x->speedup);
            put_num(x, sh, rr0, D_COST, p->r.cost_usd, x->usd);
            put_num(x, sh, rr0, D_ENERGY, p->r.energy_to_train_j / 3.6e9, x->mwh);
            if (!dmin || p->sc.devices < dmin)
                dmin = p->sc.devices;
            if (p->sc.devices > dmax)
                dmax = p->sc.devices;
            npoints++;
        }
    }

    /* four native charts, two by two, above the chart data (for each model) */
    if (npoints > 0 && blk) {
        const int dx = 640, dy = 18;
        for (int k = 0; k < (ngroup > 1 ? ngroup : 1); k++) {
            const int g = ngroup > 1 ? groups[k] : -1, at = chart_row + 37 * k;
            summary_chart(
                x, sh, blk, g, D_TIME, x->set.by_ttt ? "Time to train vs devices" : "Step time vs devices",
                x->set.by_ttt ? axis : "step time [s] (log scale)", "General", 1, dmin, dmax, at, 0);
            summary_chart(x, sh, blk, g, D_MFU, "MFU vs devices", "model FLOPs utilisation", "0%", 0, dmin,
                          dmax, at, dx);
            summary_chart(x, sh, blk, g, D_SCALE, "Scaling efficiency vs devices", "scaling efficiency", "0%",
                          0, dmin, dmax, at + dy, 0);
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
    } else {
        put_long(x, sh, chart_row, 0, "No scenario fits and runs: there is nothing to chart.", x->note);
    }
    free(blk);
    free(groups);
    finish_sheet(sh, 8, 40);
    page_setup(sh, -1, 0);
}

/* ---- Breakdown ---------------------------------------------------------- */

/* One table of every evaluated scenario against every component, from row
 * r and column c0; returns the row after it.  A table that the sheet cannot
 * hold whole says in its title how many of the scenarios it shows. */
static int breakdown_table(X *x, Sheet *sh, int r, int c0, int energy)
{
    char head[320];
    int ne = 0;
    for (int i = 0; i < x->ndetail; i++)
        ne += evaluated(detail_row(x, i));
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
    put_long(x, sh, r++, c0, head, x->section);
    int ah = r;
    put_header(x, sh, ah, c0, "Scenario");
    put_header(x, sh, ah, c0 + 1, "Series");
    put_header(x, sh, ah, c0 + 2, energy ? "step [J]" : "step [s]");
    for (int k = 0; k < COMP_COUNT; k++) {
        snprintf(head, sizeof head, "%s [%s]", component_name((Component)k), unit);
        put_header(x, sh, ah, c0 + 3 + k, head);
    }
    header_height(sh, ah, 2);
    int row = ah + 1;
    for (int i = 0; i < x->ndetail && row <= XL_LAST_ROW; i++) {
        const RunRow *rr = detail_row(x, i);
        if (!evaluated(rr))
            continue;
        put_text(x, sh, row, c0, rr->sc.name, NULL);
        put_text(x, sh, row, c0 + 1, rr->sc.series, NULL);
        if (energy)
            put_num(x, sh, row, c0 + 2, rr->r.energy_per_step_j, x->sci);
        else
            put_num(x, sh, row, c0 + 2, rr->r.step_time_s, x->secs0);
        for (int k = 0; k < COMP_COUNT; k++)
            put_num(x, sh, row, c0 + 3 + k, energy ? rr->r.comp_energy_j[k] : rr->r.comp_time_s[k],
                    energy ? x->sci : x->secs0);
        row++;
    }
    if (row == ah + 1)
        put_text(x, sh, row++, c0, "(no scenario was evaluated)", x->note);
    else if (!energy)
        check(x, worksheet_autofilter(sh->ws, (lxw_row_t)ah, (lxw_col_t)c0, (lxw_row_t)(row - 1),
                                      (lxw_col_t)(c0 + 2 + COMP_COUNT)));
    return row + 1;
}

static void sheet_breakdown(X *x, Sheet *sh)
{
    const Run *run = x->run;
    char head[160];
    put_long(x, sh, 0, 0, "Where the time of one training step goes", x->title);
    put_long(
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
    put_long(x, sh, r++, 0,
             per_sample ? "Best scenario of each series, per sample (their steps differ in global batch)"
                        : "Best scenario of each series",
             x->section);
    int bh = r;
    put_header(x, sh, bh, 0, "Series");
    put_header(x, sh, bh, 1, "Scenario");
    put_header(x, sh, bh, 2, per_sample ? "per sample [s]" : "step [s]");
    for (int k = 0; k < nc; k++) {
        snprintf(head, sizeof head, "%s [s]", component_name((Component)comp[k]));
        put_header(x, sh, bh, 3 + k, head);
    }
    header_height(sh, bh, 2);
    int b0 = bh + 1, nb = 0;
    for (int i = 0; i < x->set.n; i++) {
        const RptSeries *s = &x->set.s[i];
        if (s->best < 0)
            continue;
        const RunRow *rr = &run->row[s->best];
        const double per = per_sample && rr->r.st.global_batch > 0 ? 1.0 / rr->r.st.global_batch : 1.0;
        int row = b0 + nb++;
        put_text(x, sh, row, 0, s->name, x->bold);
        put_text(x, sh, row, 1, rr->sc.name, NULL);
        put_num(x, sh, row, 2, rr->r.step_time_s * per, x->secs0);
        for (int k = 0; k < nc; k++)
            put_num(x, sh, row, 3 + k, rr->r.comp_time_s[comp[k]] * per, x->secs0);
    }
    if (nb == 0)
        put_text(x, sh, b0, 0, "(no scenario fits and runs)", x->note);
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
            lxw_chart_options o;
            memset(&o, 0, sizeof o);
            o.x_offset = 4;
            o.y_offset = 4;
            o.x_scale = 2.2;
            o.y_scale = 1.1 + 0.08 * (nb > 12 ? 12 : nb);
            check(x, worksheet_insert_chart_opt(sh->ws, (lxw_row_t)r, 0, c, &o));
            r += (int)(288.0 * o.y_scale / 20.0) + 2; /* default rows are 20 px */
        }
    }
    int ne = 0;
    for (int i = 0; i < x->ndetail; i++)
        ne += evaluated(detail_row(x, i));
    if (r + 2 * (ne + 3) <= XL_LAST_ROW) { /* time above energy */
        r = breakdown_table(x, sh, r, 0, 0);
        breakdown_table(x, sh, r, 0, 1);
    } else { /* side by side: each table then holds every scenario a sheet can */
        breakdown_table(x, sh, r, 0, 0);
        breakdown_table(x, sh, r, 3 + COMP_COUNT + 1, 1);
    }
    finish_sheet(sh, 8, 36);
    page_setup(sh, -1, 0);
}

/* ---- Runners-up (--top K) ---------------------------------------------- */

static void sheet_runners_up(X *x, Sheet *sh)
{
    const Run *run = x->run;
    char text[600];
    lxw_format *fmt[64];
    put_long(x, sh, 0, 0, "The search's best strategies for each row it resolved", x->title);
    snprintf(text, sizeof text,
             "Rank 1 is the strategy the row reports; ranks 2 to %d are the next best the search evaluated "
             "(fastest to train, then least energy). Only strategies that fit in memory are listed.",
             run->top_k);
    put_long(x, sh, 1, 0, text, x->note);
    double scale[64];
    const char *unit;
    for (int i = 0; i < runner_ncols && i < 64; i++) {
        fmt[i] = runner_cols[i].type == RC_TEXT
                     ? NULL
                     : numfmt(x, rpt_num_format(runner_cols[i].type, runner_cols[i].format));
        put_col_header(x, sh, 3, i, &runner_cols[i]);
        scale[i] = col_scale(x, &runner_cols[i], &unit);
    }
    int row = 4;
    for (int r = 0; r < x->ndetail && row <= XL_LAST_ROW; r++) {
        const RunRow *rr = detail_row(x, r);
        for (int k = 0; k < rr->ntop && row <= XL_LAST_ROW; k++, row++)
            for (int i = 0; i < runner_ncols && i < 64; i++) {
                double v;
                if (runner_value(i, rr, k, &v, text, sizeof text))
                    put_num(x, sh, row, i, v * scale[i], fmt[i]);
                else
                    put_text(x, sh, row, i, text, k == 0 ? x->bold : NULL);
            }
    }
    if (row == 4)
        put_text(x, sh, 4, 0, "No row left a strategy field to the search (auto).", x->note);
    else
        check(x, worksheet_autofilter(sh->ws, 3, 0, (lxw_row_t)(row - 1), (lxw_col_t)(runner_ncols - 1)));
    header_height(sh, 3, 2);
    worksheet_freeze_panes(sh->ws, 4, 1);
    finish_sheet(sh, 6, 40);
    page_setup(sh, 3, 0);
}

/* ---- Design (co-design) ------------------------------------------------ */

static void sheet_design(X *x, Sheet *sh)
{
    char text[600];
    put_long(x, sh, 0, 0, "What the co-design search changed", x->title);
    put_long(
        x, sh, 1, 0,
        "For every co-designed row: each share of the derived device's die area, power and die edge at the "
        "template's split and at the split the search found jointly with the strategy, the device that "
        "follows from each (the micro-architecture generator), and the time and energy to train.",
        x->note);
    static const char *const heads[6] = {"Scenario",       "Quantity",    "Unit",
                                         "Template split", "Co-designed", "Change"};
    for (int c = 0; c < 6; c++)
        put_header(x, sh, 3, c, heads[c]);
    lxw_format *pct = numfmt(x, "+0.0%;-0.0%;0.0%");
    lxw_format *num = numfmt(x, "[<0.001]0.00000;[<10]0.000;#,##0.0");
    RptDesignRow v[RPT_DESIGN_MAX];
    int row = 4;
    for (int i = 0; i < x->ndetail && row <= XL_LAST_ROW; i++) {
        const RunRow *rr = detail_row(x, i);
        const int n = rpt_design_rows(rr, v, RPT_DESIGN_MAX);
        for (int j = 0; j < n && row <= XL_LAST_ROW; j++, row++) {
            snprintf(text, sizeof text, "%s", rr->sc.name);
            put_text(x, sh, row, 0, text, j == 0 ? x->bold : NULL);
            put_text(x, sh, row, 1, v[j].quantity, NULL);
            put_text(x, sh, row, 2, v[j].unit, NULL);
            put_num(x, sh, row, 3, v[j].start, num);
            put_num(x, sh, row, 4, v[j].best, num);
            if (v[j].start != 0)
                put_num(x, sh, row, 5, v[j].best / v[j].start - 1.0, pct);
        }
    }
    if (row > 4)
        check(x, worksheet_autofilter(sh->ws, 3, 0, (lxw_row_t)(row - 1), 5));
    header_height(sh, 3, 2);
    worksheet_freeze_panes(sh->ws, 4, 1);
    finish_sheet(sh, 8, 40);
    page_setup(sh, 3, 0);
}

/* ---- Sensitivity (tornado) ---------------------------------------------- */

static void sheet_sensitivity(X *x, Sheet *sh)
{
    const Sensitivity *s = x->in->sens;
    char text[700];
    put_long(x, sh, 0, 0, "Which parameter matters", x->title);
    snprintf(text, sizeof text,
             "'%s' (the study's fastest scenario, its strategy%s kept) with each main hardware and stack "
             "parameter 10 %% lower and 10 %% higher, one at a time: the change of its %s and energy. Most "
             "sensitive first; 'no strategy fits' where the change leaves it out of memory.",
             x->run->row[s->row].sc.name,
             x->run->row[s->row].r.design_evals > 0 ? " and co-designed split" : "",
             s->per_sample ? "time per sample" : "time to train");
    put_long(x, sh, 1, 0, text, x->note);
    static const char *const heads[6] = {"Parameter",    "time -10 %",   "time +10 %",
                                         "energy -10 %", "energy +10 %", "Note"};
    for (int c = 0; c < 6; c++)
        put_header(x, sh, 3, c, heads[c]);
    lxw_format *pct = numfmt(x, "+0.00%;-0.00%;0.00%");
    const int r0 = 4;
    for (int k = 0; k < s->n; k++) {
        const SensKnob *o = &s->k[k];
        put_text(x, sh, r0 + k, 0, o->name, NULL);
        for (int j = 0; j < 2; j++) {
            put_num(x, sh, r0 + k, 1 + j, o->time[j], pct);
            put_num(x, sh, r0 + k, 3 + j, o->energy[j], pct);
        }
        if (o->status[0] != STATUS_OK || o->status[1] != STATUS_OK)
            put_text(x, sh, r0 + k, 5,
                     o->status[0] != STATUS_OK ? "-10 %: no strategy fits" : "+10 %: no strategy fits",
                     x->note);
    }
    header_height(sh, 3, 2);
    finish_sheet(sh, 10, 40);
    lxw_chart *c = workbook_add_chart(x->wb, LXW_CHART_BAR);
    if (c && s->n > 0) {
        chart_title_set_name(c,
                             s->per_sample ? "Change of the time per sample" : "Change of the time to train");
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
            chart_series_set_values(cs, sh->name, (lxw_row_t)r0, (lxw_col_t)(1 + j),
                                    (lxw_row_t)(r0 + s->n - 1), (lxw_col_t)(1 + j));
            chart_series_set_name(cs, j ? "parameter +10 %" : "parameter -10 %");
            lxw_chart_fill fill = {.color = colour[j]};
            chart_series_set_fill(cs, &fill);
        }
        lxw_chart_options o;
        memset(&o, 0, sizeof o);
        o.x_offset = 4;
        o.y_offset = 4;
        o.x_scale = 2.0;
        o.y_scale = 1.6;
        check(x, worksheet_insert_chart_opt(sh->ws, (lxw_row_t)(r0 + s->n + 2), 0, c, &o));
    }
    page_setup(sh, 3, 0);
}

/* ---- Inputs ------------------------------------------------------------- */

typedef struct {
    X *x;
    Sheet *sh;
    const RunRow *rr;
    const TableCell *sys_cell, *model_cell; /* the row's system and model cells, or NULL */
    int row;
    int truncated;
    char label[256]; /* the Scenario cell of this block */
    int sweep;       /* the block stands for several scenarios of one table row */
} InputsCtx;

static int is_default(const ParamDef *def, const void *obj)
{
    const void *f = (const char *)obj + def->offset;
    switch (def->type) {
    case P_DOUBLE:
        return *(const double *)f == def->def;
    case P_INT:
    case P_BOOL:
    case P_ENUM:
        return *(const int *)f == (int)def->def;
    case P_INT64:
        return *(const int64_t *)f == (int64_t)def->def;
    case P_STRING:
    case P_SUB:
        return *(const char *)f == '\0';
    default: /* kinds added later: no derived value known */
        return 1;
    }
}

/* Where a resolved parameter came from: a cell of the table, a line of a
 * template, "default" or "derived" (computed from other values). */
static void origin(const InputsCtx *c, const char *key, const ParamDef *def, const void *obj, char *out,
                   size_t n)
{
    const ScenarioSource *src = &c->rr->src;
    const Prov *p = prov_find(&src->over, key);
    if (p) {
        snprintf(out, n, "%s:%d:%d", p->file ? p->file : "", p->line, p->col);
        return;
    }
    /* an override of an enclosing object (system.device=h100 sets every system.device.* key) */
    char pre[256];
    snprintf(pre, sizeof pre, "%s", key);
    for (char *dot = strrchr(pre, '.'); dot; dot = strrchr(pre, '.')) {
        *dot = '\0';
        p = prov_find(&src->over, pre);
        if (p) {
            snprintf(out, n, "%s:%d:%d (through '%s')", p->file ? p->file : "", p->line, p->col, pre);
            return;
        }
    }
    static const char *const bases[2] = {"system", "model"};
    for (int b = 0; b < 2; b++) {
        const Template *t = b ? src->model : src->system;
        const TableCell *cell = b ? c->model_cell : c->sys_cell;
        size_t l = strlen(bases[b]);
        if (!t || strncmp(key, bases[b], l))
            continue;
        if (key[l] == '\0') {
            if (cell)
                snprintf(out, n, "%s:%d:%d -> %s", c->x->in->table->path, cell->line, cell->col, t->path);
            else
                snprintf(out, n, "%s", t->path);
            return;
        }
        if (key[l] == '.') {
            p = prov_find(&t->prov, key + l + 1);
            if (p) {
                snprintf(out, n, "%s:%d", p->file ? p->file : t->path, p->line);
                return;
            }
        }
    }
    snprintf(out, n, "%s", is_default(def, obj) ? "default" : "derived");
}

/* Whether a model key means anything for a model of this kind (the
 * Inputs sheet leaves out LSTM fields for a transformer, and so on). */
static int key_applies(const char *key, ModelKind kind)
{
    static const struct {
        const char *key;
        int kinds; /* bit per ModelKind */
    } only[] = {
        {"model.kv_heads", 1 << MODEL_TRANSFORMER},
        {"model.ffn", 1 << MODEL_TRANSFORMER},
        {"model.mlp", 1 << MODEL_TRANSFORMER},
        {"model.norm", 1 << MODEL_TRANSFORMER},
        {"model.position", 1 << MODEL_TRANSFORMER},
        {"model.causal", 1 << MODEL_TRANSFORMER},
        {"model.heads", 1 << MODEL_TRANSFORMER},
        {"model.proj", 1 << MODEL_LSTM},
        {"model.samples", 1 << MODEL_LSTM},
        {"model.enc_layers", 1 << MODEL_LSTM},
        {"model.dec_layers", 1 << MODEL_LSTM},
        {"model.tgt_len", 1 << MODEL_LSTM},
        {"model.lstm_biases", 1 << MODEL_LSTM},
        {"model.lstm_split", 1 << MODEL_LSTM},
        {"model.image_size", 1 << MODEL_CNN},
        {"model.channels", 1 << MODEL_CNN},
        {"model.classes", 1 << MODEL_CNN},
        {"model.cnn_split", 1 << MODEL_CNN},
        {"model.m", 1 << MODEL_GEMM},
        {"model.n", 1 << MODEL_GEMM},
        {"model.k", 1 << MODEL_GEMM},
        {"model.sparse_grads", (1 << MODEL_LSTM) | (1 << MODEL_TRANSFORMER)},
    };
    for (size_t i = 0; i < sizeof only / sizeof only[0]; i++)
        if (!strcmp(key, only[i].key))
            return (only[i].kinds >> kind) & 1;
    return 1;
}

/* A strategy field the table left to the search: its resolved value. */
static int resolved_value(const RunRow *rr, const char *key, char *buf, size_t n)
{
    const Result *r = &rr->r;
    if (rr->r.status == STATUS_ERROR)
        return 0;
    const int a = strategy_axis_find(key);
    if (a >= 0) {
        char v[32];
        strategy_value_text((StrategyAxis)a, strategy_get(&r->st, (StrategyAxis)a), v, sizeof v);
        return snprintf(buf, n, "auto: %s", v), 1;
    }
    if (!strcmp(key, "replica_batch") && r->st.dp > 0)
        return snprintf(buf, n, "auto: %lld", (long long)(r->st.global_batch / r->st.dp)), 1;
    return 0;
}

static void inputs_visit(const char *key, const ParamDef *def, const void *obj, void *ctx)
{
    InputsCtx *c = ctx;
    if (c->row > INPUTS_MAX_ROWS) {
        c->truncated = 1;
        return;
    }
    if (!key_applies(key, c->rr->sc.model.kind))
        return;
    char value[256], from[1400];
    if (def->type == P_SUB)
        snprintf(value, sizeof value, "%s", (const char *)obj + def->offset);
    else
        param_format(def, obj, value, sizeof value);
    if (!strcmp(value, "auto")) {
        if (c->sweep)
            snprintf(value, sizeof value, "auto (per scenario: see the Scenarios sheet)");
        else
            resolved_value(c->rr, key, value, sizeof value);
    }
    origin(c, key, def, obj, from, sizeof from);
    put_text(c->x, c->sh, c->row, 0, c->label, NULL);
    put_text(c->x, c->sh, c->row, 1, key, NULL);
    put_text(c->x, c->sh, c->row, 2, value, NULL);
    put_text(c->x, c->sh, c->row, 3, from, NULL);
    put_text(c->x, c->sh, c->row, 4, def->help ? def->help : "", NULL);
    c->row++;
}

static const TableRow *table_row_at(const Table *t, int line)
{
    for (int i = 0; i < t->nrow; i++)
        if (t->row[i].line == line)
            return &t->row[i];
    return NULL;
}

typedef struct {
    int line;  /* the table line */
    int first; /* its first built scenario */
    int more;  /* how many more it expanded to */
} InputsBlock;

static int cmp_line_index(const void *a, const void *b)
{
    const int *p = a, *q = b; /* (line, index) pairs */
    return p[0] != q[0] ? (p[0] > q[0]) - (p[0] < q[0]) : (p[1] > q[1]) - (p[1] < q[1]);
}

static int cmp_block_first(const void *a, const void *b)
{
    const InputsBlock *p = a, *q = b;
    return (p->first > q->first) - (p->first < q->first);
}

/* The built scenarios grouped by their table line, in order of first
 * appearance (n log n: a million-row sweep is one block).  Returns the
 * blocks (the caller frees them) and their count in *n; NULL with *n > 0
 * when out of memory. */
static InputsBlock *inputs_blocks(const Run *run, int *n)
{
    if (run->lines) { /* a streamed run counted them as they passed */
        *n = run->nlines;
        InputsBlock *blk = run->nlines ? malloc(sizeof *blk * (size_t)run->nlines) : NULL;
        for (int i = 0; blk && i < run->nlines; i++)
            blk[i] = (InputsBlock){run->lines[i].line, run->lines[i].first, run->lines[i].count - 1};
        return blk;
    }
    int nb = 0;
    for (int i = 0; i < run->n; i++)
        nb += run->row[i].built != 0;
    *n = nb;
    if (!nb)
        return NULL;
    int *pair = malloc(sizeof *pair * 2 * (size_t)nb);
    InputsBlock *blk = malloc(sizeof *blk * (size_t)nb);
    if (!pair || !blk) {
        free(pair);
        free(blk);
        return NULL;
    }
    for (int i = 0, k = 0; i < run->n; i++)
        if (run->row[i].built) {
            pair[2 * k] = run->row[i].line;
            pair[2 * k + 1] = i;
            k++;
        }
    qsort(pair, (size_t)nb, 2 * sizeof *pair, cmp_line_index);
    int m = 0;
    for (int k = 0; k < nb; k++) {
        if (m && blk[m - 1].line == pair[2 * k]) {
            blk[m - 1].more++;
            continue;
        }
        blk[m++] = (InputsBlock){pair[2 * k], pair[2 * k + 1], 0};
    }
    free(pair);
    qsort(blk, (size_t)m, sizeof *blk, cmp_block_first);
    *n = m;
    return blk;
}

static void sheet_inputs(X *x, Sheet *sh)
{
    const Table *t = x->in->table;
    static const char *const heads[5] = {"Scenario", "Parameter", "Value", "Origin", "Meaning"};
    for (int c = 0; c < 5; c++)
        put_header(x, sh, 0, c, heads[c]);
    InputsCtx c = {x, sh, NULL, NULL, NULL, 1, 0, "", 0};
    int csys = table_col(t, "system"), cmod = table_col(t, "model");
    Scenario *res = malloc(sizeof *res);
    Diag d;
    if (!res) {
        put_text(x, sh, 1, 0, "(out of memory: the inputs are not listed)", x->note);
        finish_sheet(sh, 8, 70);
        return;
    }
    /* one block per table row: its sweep's scenarios share every parameter
     * but the swept ones, whose origin is the row's cell */
    int nblk = 0;
    InputsBlock *blk = inputs_blocks(x->run, &nblk);
    if (!blk && nblk) {
        free(res);
        put_text(x, sh, 1, 0, "(out of memory: the inputs are not listed)", x->note);
        finish_sheet(sh, 8, 70);
        return;
    }
    for (int b = 0; b < nblk; b++) {
        const RunRow *rr = &x->run->row[blk[b].first];
        const int more = blk[b].more;
        c.sweep = more > 0;
        if (more)
            snprintf(c.label, sizeof c.label, "%s (and %d more of table line %d)", rr->sc.name, more,
                     rr->line);
        else
            snprintf(c.label, sizeof c.label, "%s", rr->sc.name);
        const TableRow *tr = table_row_at(t, rr->line);
        c.rr = rr;
        c.sys_cell = tr && csys >= 0 && csys < tr->ncell ? &tr->cell[csys] : NULL;
        c.model_cell = tr && cmod >= 0 && cmod < tr->ncell ? &tr->cell[cmod] : NULL;
        /* the figures the model used: a derive: device as derived (the
         * first scenario's, for a sweep), wires worked out; as given when
         * they cannot be (the Errors sheet says why) */
        *res = rr->sc;
        diag_clear(&d);
        if (x->in->resolve && x->in->resolve(res, &d))
            *res = rr->sc;
        param_walk(&param_scenario_table, res, "", inputs_visit, &c);
    }
    free(blk);
    free(res);
    if (c.truncated)
        put_text(x, sh, c.row, 0, "(truncated: too many parameters for one sheet)", x->note);
    if (c.row > 1)
        check(x, worksheet_autofilter(sh->ws, 0, 0, (lxw_row_t)(c.row - 1), 4));
    worksheet_freeze_panes(sh->ws, 1, 1);
    if (sh->w[3] > 70)
        sh->w[3] = 70;
    finish_sheet(sh, 8, 70);
    page_setup(sh, 0, 0);
}

/* ---- Errors ------------------------------------------------------------- */

static void sheet_errors(X *x, Sheet *sh)
{
    static const char *const heads[5] = {"Scenario", "File", "Line", "Column", "Message"};
    for (int c = 0; c < 5; c++)
        put_header(x, sh, 0, c, heads[c]);
    int row = 1, more = 0;
    const Run *run = x->run;
    /* a streamed run keeps its failures apart from its rows */
    for (int i = 0; i < (run->fail ? run->nfail : run->n); i++) {
        if (!run->fail && evaluated(&run->row[i]))
            continue;
        if (row > x->detail_max) {
            more++;
            continue;
        }
        RunFail own = {0, 0, 0, 0, NULL, NULL, NULL, NULL};
        const RunFail *f = run->fail ? &run->fail[i] : &own;
        if (!run->fail && run_fail_of(&run->row[i], x->in->table->path, i, 1, &own)) {
            run_fail_free(&own);
            continue;
        }
        put_text(x, sh, row, 0, f->name, NULL);
        put_text(x, sh, row, 1, f->file, NULL);
        put_num(x, sh, row, 2, f->line, NULL);
        if (f->col)
            put_num(x, sh, row, 3, f->col, NULL);
        put_text(x, sh, row, 4, f->msg, NULL);
        row++;
        if (!run->fail)
            run_fail_free(&own);
    }
    if (row == 1)
        put_text(x, sh, 1, 0, "No errors: every row was evaluated.", x->note);
    else
        check(x, worksheet_autofilter(sh->ws, 0, 0, (lxw_row_t)(row - 1), 4));
    if (more) {
        char text[200];
        snprintf(
            text, sizeof text,
            "... and %d more failed scenarios: summary.csv, beside this workbook, has every one with its "
            "error.",
            more);
        put_long(x, sh, row, 0, text, x->note);
    }
    worksheet_freeze_panes(sh->ws, 1, 0);
    if (sh->w[4] > 100)
        sh->w[4] = 100;
    finish_sheet(sh, 8, 100);
    page_setup(sh, 0, 0);
}

/* ---- About -------------------------------------------------------------- */

static void file_sha256(const char *path, char out[SHA256_HEX_LEN])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(out, SHA256_HEX_LEN, "unreadable: %s", strerror(errno));
        return;
    }
    Sha256 s;
    uint8_t d[SHA256_DIGEST_LEN], buf[65536];
    size_t k;
    sha256_init(&s);
    while ((k = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&s, buf, k);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(out, SHA256_HEX_LEN, "unreadable");
        return;
    }
    sha256_final(&s, d);
    sha256_to_hex(d, out);
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *const assumptions[] = {
    "Every quantity is computed in SI units (s, B, FLOP, W, J); the workbook shows days, GiB, kW, MWh.",
    "GEMM time: a tiled model with wave quantisation and the traffic at each memory level (DeepFlow's "
    "hierarchical roofline), at the achievable fraction of peak the device template states.",
    "Memory-bound operations: bytes moved over the achievable HBM bandwidth, plus kernel launch overhead.",
    "Pipeline: 1F1B schedule, bubble fraction (pp - 1) / (interleave x microbatches) (Narayanan et al. "
    "2021).",
    "Collectives: alpha-beta cost on the network tier they cross; ring all-reduce moves 2(p - 1)/p of the "
    "data; tensor- and data-parallel communication is hidden under compute only as far as the training "
    "stack's tp_overlap and dp_overlap say.",
    "The training stack (templates/frameworks) is what a competent team runs on the hardware's generation: "
    "its GEMM efficiency and host overhead are fitted on public measurements; 'ideal' is an upper bound, not "
    "a prediction.",
    "Ranges (the *_lo and *_hi columns): the 5th to 95th percentile of measured / predicted step time over "
    "the public runs of the stack's family and regime, each predicted by a fit made without its own source "
    "(make validate); a row whose stack, device generation or model class no run covers gets every source's "
    "range. Energy and cost scale with the time at the predicted power.",
    "Memory: mixed-precision Adam (16-bit weights, gradients and fp32 master weights and moments, sharded "
    "by ZeRO) and activations after Korthikanti et al. 2022; a strategy that does not fit is 'oom'.",
    "Power: energy per FLOP and per bit moved plus static power; system power adds node overhead, "
    "switches and the facility PUE.",
    "Time to train = optimizer steps x step time; energy to train = system power x time to train; cost = "
    "price per device-hour x devices x hours, where the system template has a price.",
    "Scaling efficiency compares each scenario with the smallest device count of its series and model.",
};

static void sheet_about(X *x, Sheet *sh)
{
    const ReportInput *in = x->in;
    char date[64], hash[SHA256_HEX_LEN], line[256];
    struct tm tm;
    gmtime_r(&in->created, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm);
    int r = 0;
    put_long(x, sh, r++, 0, "About this report", x->title);
    r++;
    put_text(x, sh, r, 0, "Tool", x->bold);
    snprintf(line, sizeof line, "deepflow %s", DF_VERSION);
    put_long(x, sh, r++, 1, line, NULL);
    put_text(x, sh, r, 0, "Command", x->bold);
    put_long(x, sh, r++, 1, in->command ? in->command : "", NULL);
    put_text(x, sh, r, 0, "Date", x->bold);
    snprintf(line, sizeof line, "%s (SOURCE_DATE_EPOCH when set, else when the scenario table last changed)",
             date);
    put_long(x, sh, r++, 1, line, NULL);
    r++;

    put_long(x, sh, r++, 0, "Files read (SHA-256)", x->section);
    put_header(x, sh, r, 0, "Role");
    put_header(x, sh, r, 1, "File");
    put_header(x, sh, r, 2, "SHA-256");
    r++;
    file_sha256(in->table->path, hash);
    put_text(x, sh, r, 0, "scenario table", NULL);
    put_text(x, sh, r, 1, in->table->path, NULL);
    put_text(x, sh, r++, 2, hash, x->mono);
    const TemplateDB *db = in->db;
    const char **paths = db && db->n ? malloc(sizeof *paths * (size_t)db->n) : NULL;
    int np = 0;
    for (int i = 0; paths && i < db->n; i++) {
        int dup = 0;
        for (int j = 0; j < np; j++)
            dup |= !strcmp(paths[j], db->t[i]->path);
        if (!dup)
            paths[np++] = db->t[i]->path;
    }
    if (np)
        qsort(paths, (size_t)np, sizeof *paths, cmp_path);
    for (int i = 0; i < np; i++) {
        file_sha256(paths[i], hash);
        put_text(x, sh, r, 0, "template", NULL);
        put_text(x, sh, r, 1, paths[i], NULL);
        put_text(x, sh, r++, 2, hash, x->mono);
    }
    free(paths);
    r++;

    put_long(x, sh, r++, 0, "Main assumptions of the model", x->section);
    for (size_t i = 0; i < sizeof assumptions / sizeof assumptions[0]; i++) {
        snprintf(line, sizeof line, "%zu.", i + 1);
        put_text(x, sh, r, 0, line, NULL);
        put_long(x, sh, r++, 1, assumptions[i], NULL);
    }
    r++;

    put_long(x, sh, r++, 0, "Training stacks of this report and how well they predict", x->section);
    static const char *const sheads[8] = {"Stack",    "Regime", "Runs", "Mean |error| (source left out)",
                                          "In range", "Low",    "High", "Validated on"};
    for (int c = 0; c < 8; c++)
        put_header(x, sh, r, c, sheads[c]);
    r++;
    for (int i = 0; i < x->run->n; i++) {
        const Framework *fw = &x->run->row[i].sc.system.framework;
        int seen = !x->run->row[i].built || !fw->name[0];
        for (int j = 0; j < i && !seen; j++)
            seen = x->run->row[j].built && !strcmp(x->run->row[j].sc.system.framework.name, fw->name);
        if (seen)
            continue;
        const Interval *iv[4] = {&fw->single_node, &fw->multi_node, &fw->uncovered, &fw->moe};
        static const char *const regime[4] = {"one node", "several nodes", "a row no run covers",
                                              "mixture of experts"};
        for (int k = 0; k < 4; k++) {
            if (k >= 2 && !(iv[k]->lo > 0))
                continue;
            put_text(x, sh, r, 0, fw->name, NULL);
            put_text(x, sh, r, 1, regime[k], NULL);
            if (!(iv[k]->lo > 0)) {
                put_text(x, sh, r++, 2, "none: an upper bound, not a prediction", x->note);
                continue;
            }
            if (iv[k]->runs > 0)
                put_num(x, sh, r, 2, iv[k]->runs, x->intf);
            else
                put_text(x, sh, r, 2, "none of its own: every source's range", x->note);
            if (iv[k]->runs > 0 && iv[k]->mean_err > 0)
                put_num(x, sh, r, 3, iv[k]->mean_err, x->pct);
            if (iv[k]->runs > 0 && iv[k]->coverage > 0)
                put_num(x, sh, r, 4, iv[k]->coverage, x->pct);
            put_num(x, sh, r, 5, iv[k]->lo, NULL);
            put_num(x, sh, r, 6, iv[k]->hi, NULL);
            if (k < 2 && fw->generations[0]) {
                char cov[2 * NAME_MAX_LEN + 8];
                snprintf(cov, sizeof cov, "%s; %s", fw->generations, fw->model_classes);
                put_text(x, sh, r, 7, cov, NULL);
            }
            r++;
        }
    }
    put_long(
        x, sh, r++, 0,
        "Error = predicted / measured step time - 1 on public training runs (vTrain's A100 iterations and "
        "the published runs of validation/published), each predicted by the stack family's fit made "
        "without the run's own source; Low and High: the 90 % range of measured / predicted step time; In "
        "range: the share of the runs inside a range built without their own source too. The README's "
        "validation table has them per source.",
        x->note);
    r++;

    put_long(x, sh, r++, 0, "Glossary of the Scenarios columns", x->section);
    put_header(x, sh, r, 0, "Column");
    put_header(x, sh, r, 1, "In summary.csv");
    put_header(x, sh, r, 2, "Unit in summary.csv");
    put_header(x, sh, r, 3, "Meaning");
    r++;
    for (int i = 0; i < report_ncols; i++, r++) {
        const char *label = rpt_col_label(report_cols[i].name);
        put_text(x, sh, r, 0, label ? label : report_cols[i].name, NULL);
        put_text(x, sh, r, 1, report_cols[i].name, x->mono);
        put_text(x, sh, r, 2,
                 report_cols[i].format == RF_PERCENT ? "fraction (% in this workbook)" : report_cols[i].unit,
                 NULL);
        put_text(x, sh, r, 3, report_cols[i].help, NULL);
    }
    finish_sheet(sh, 8, 80);
    page_setup(sh, -1, 0);
}

/* ---- the workbook ------------------------------------------------------- */

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
    const int no_set = !x.buf || rpt_series_build(in->run, &x.set);
    if (no_set || choose_detail(&x)) {
        if (!no_set)
            rpt_series_free(&x.set);
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
        free(x.detail);
        free(x.buf);
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
    check(&x, workbook_set_properties(x.wb, &props));

    /* optional sheets: Runners-up when the run kept them (--top K), Design
     * when a row was co-designed */
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
        at[i]->ws = workbook_add_worksheet(x.wb, sname[i]);
        if (!at[i]->ws)
            check(&x, LXW_ERROR_MEMORY_MALLOC_FAILED);
    }
    if (sh && x.err == LXW_NO_ERROR) {
        sheet_summary(&x, at[S_SUMMARY]);
        sheet_scenarios(&x, at[S_SCENARIOS]);
        sheet_breakdown(&x, at[S_BREAKDOWN]);
        if (at[S_RUNNERS])
            sheet_runners_up(&x, at[S_RUNNERS]);
        if (at[S_DESIGN])
            sheet_design(&x, at[S_DESIGN]);
        if (at[S_SENS])
            sheet_sensitivity(&x, at[S_SENS]);
        sheet_inputs(&x, at[S_INPUTS]);
        sheet_errors(&x, at[S_ERRORS]);
        sheet_about(&x, at[S_ABOUT]);
        worksheet_activate(at[S_SUMMARY]->ws);
        if (x.run->n_error)
            worksheet_set_tab_color(at[S_ERRORS]->ws, 0xC00000);
    }
    /* libxlsxwriter prints its own "[ERROR] ..." lines to stderr; ours (with
     * the path and the reason) is the one the user gets: its are silenced
     * for the close, where it writes the file.  The report is written by
     * one thread, after the evaluation. */
    fflush(stderr);
    const int saved_err = dup(STDERR_FILENO);
    const int devnull = open("/dev/null", O_WRONLY);
    if (saved_err >= 0 && devnull >= 0)
        dup2(devnull, STDERR_FILENO);
    if (devnull >= 0)
        close(devnull);
    lxw_error e = workbook_close(x.wb);
    fflush(stderr);
    if (saved_err >= 0) {
        dup2(saved_err, STDERR_FILENO);
        close(saved_err);
    }
    free(sh);
    free(x.buf);
    rpt_series_free(&x.set);
    free(x.detail);
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
