/* report/workbook.h — what the workbook's sheets share (internal to
 * report/): the writer's state, its formats, and the cell writers that keep
 * the rules of report/xlsx.c (text never a formula, cleaned; a non-finite
 * number an empty cell; column widths tracked).  One file per sheet,
 * report/sheet_*.c, writes through these. */
#ifndef DF_REPORT_WORKBOOK_H
#define DF_REPORT_WORKBOOK_H

#include <stddef.h>
#include <xlsxwriter.h>

#include "report.h"

#ifndef DF_VERSION
#define DF_VERSION "0.0.0"
#endif

#define XL_MAX_CHARS  32767   /* characters in one cell */
#define XL_LAST_ROW   1048575 /* 0-based index of Excel's last row */
#define MAXW          160     /* columns whose width is tracked */
#define XL_NUMFMT_MAX 64      /* number formats xl_numfmt keeps one format of */

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
    int marks_row;     /* Summary: the chart helpers' first row (constraint lines, recommended points), -1 */
    int marks_deadline, marks_power; /* ... whether they hold the study's deadline, power budget */
    int nmarks;                      /* ... the recommended points there */
    int marks_group[RPT_MODELS_MAX]; /* ... and each one's chart (model group) */
    const char *eunit;
    lxw_error err; /* first error libxlsxwriter returned */
    char *buf;     /* cleaned cell text */
    size_t bufsz;
    lxw_format *title, *subtitle, *note, *section, *head, *head_num, *wrap, *wrap_low, *wrap_note, *bold,
        *mono, *answer;
    lxw_format *days, *pct, *intf, *kw, *mwh, *usd, *speedup, *secs, *secs0, *general, *sci;
    lxw_format *oom, *error;
    lxw_format *cell;        /* table text: indented so that it never touches a right-aligned number */
    lxw_format *colfmt[128]; /* per summary column */
    int *detail;             /* rows the per-scenario sheets list, ascending; NULL: every row */
    int ndetail;
    int nevaluated; /* ... of them evaluated (xl_evaluated) */
    int detail_max; /* the most rows a per-scenario sheet lists */
    RptDetail *det; /* the listed row xl_detail gave last (the ... det_at-th), -1: none */
    int det_at;
    struct {
        char nf[96];
        lxw_format *f;
    } numfmt[XL_NUMFMT_MAX]; /* the formats xl_numfmt made, by number format */
    int nnumfmt;
} X;

/* ---- the writer (report/xlsx.c) ---------------------------------------- */

/* What the per-scenario sheets show of the k-th row they list (made from
 * the run's row, or read from a streamed run's file: the sheets go through
 * their rows in order, each sheet from the first).  A file that cannot be
 * read fails the workbook (an empty record is returned). */
const RptDetail *xl_detail(X *x, int k);
void xl_check(X *x, lxw_error e);
void xl_widen(Sheet *sh, int col, double w);
size_t xl_utf8_chars(const char *s);
/* User or program text, always as a string cell. */
void xl_put_text(X *x, Sheet *sh, int row, int col, const char *s, lxw_format *f);
/* Text that may run over the neighbouring empty cells (titles, notes). */
void xl_put_long(X *x, Sheet *sh, int row, int col, const char *s, lxw_format *f);
/* A number, or an empty cell when it is not finite. */
void xl_put_num(X *x, Sheet *sh, int row, int col, double v, lxw_format *f);
void xl_put_header(X *x, Sheet *sh, int row, int col, const char *s);
/* The same over a column of numbers: right-aligned, as they are. */
void xl_put_header_num(X *x, Sheet *sh, int row, int col, const char *s);
/* Height of a header row of `lines` wrapped lines. */
void xl_header_height(Sheet *sh, int row, int lines);
/* A table column's header: "name [unit]", or the name alone. */
/* What a summary column shows in this workbook: its times to train in the
 * study's unit (minutes, hours or days) and its energies to train in kWh,
 * MWh or GWh; *unit says which.  Returns the factor from the CSV's unit. */
double xl_col_scale(const X *x, const ReportCol *c, const char **unit);
/* A summary column's header: its label and the unit it shows. */
void xl_put_col_header(X *x, Sheet *sh, int row, int col, const ReportCol *c);
void xl_finish_sheet(Sheet *sh, double min_w, double max_w);
/* Landscape A4, the header row repeated on each page; a table of ncols
 * columns prints one page wide, or, past 24 columns, a page for every 18
 * (fitting 90 columns on one page's width leaves them unreadable; the
 * sheets that are that wide repeat their first column). */
void xl_page_setup(Sheet *sh, int header_row, int ncols);
lxw_format *xl_numfmt(X *x, const char *nf);
int xl_col_index(const char *name);
int xl_evaluated(const RunRow *rr);
/* Time to train in the workbook's unit (days, hours or minutes: the unit
 * that suits the study's best times). */
double xl_ttt_shown(const X *x, const RunRow *rr);
int xl_has_ttt(const RunRow *rr);
double xl_shown_time(const X *x, const RunRow *p, double f);

/* A native chart with its top-left corner in column A of row, offset and
 * scaled (1: libxlsxwriter's 480 x 288 px). */
void xl_insert_chart(X *x, Sheet *sh, int row, lxw_chart *c, int x_offset, int y_offset, double x_scale,
                     double y_scale);

/* ---- the sheets (report/sheet_*.c), in the workbook's order ---------- */

void xl_sheet_scenarios(X *x, Sheet *sh);
void xl_sheet_summary(X *x, Sheet *sh);
void xl_sheet_breakdown(X *x, Sheet *sh);
void xl_sheet_runners_up(X *x, Sheet *sh);
void xl_sheet_design(X *x, Sheet *sh);
void xl_sheet_sensitivity(X *x, Sheet *sh);
void xl_sheet_inputs(X *x, Sheet *sh);
void xl_sheet_errors(X *x, Sheet *sh);
void xl_sheet_about(X *x, Sheet *sh);

#endif
