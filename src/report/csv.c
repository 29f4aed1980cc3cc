/* report/csv.c — summary.csv (one row per scenario, the columns of
 * columns.c) and breakdown.csv (tidy: scenario, component, time_s,
 * energy_j).  RFC 4180 quoting; numbers %.6g with '.' (the program never
 * calls setlocale); non-finite numbers are empty cells. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/numfmt.h"
#include "core/text.h"

#include "io/atomic.h"
#include "report.h"
#include "report/columns.h"

void rpt_number(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        buf[0] = '\0';
    else if (n >= NUMFMT_G6_MAX)
        numfmt_g6(v, buf);
    else
        snprintf(buf, n, "%.6g", v);
}

/* CSV lines, built in memory and written a line (or more) at a time; a
 * line longer than the buffer goes out in pieces. */
typedef struct {
    FILE *f;
    size_t n;
    char p[8192];
} Line;

static void line_init(Line *l, FILE *f)
{
    l->f = f;
    l->n = 0;
}

static void line_flush(Line *l)
{
    if (l->n)
        fwrite(l->p, 1, l->n, l->f);
    l->n = 0;
}

static void line_put(Line *l, const char *s, size_t k)
{
    if (l->n + k > sizeof l->p) {
        line_flush(l);
        if (k > sizeof l->p) {
            fwrite(s, 1, k, l->f);
            return;
        }
    }
    memcpy(l->p + l->n, s, k);
    l->n += k;
}

static void line_char(Line *l, char c)
{
    if (l->n == sizeof l->p)
        line_flush(l);
    l->p[l->n++] = c;
}

/* The bytes of a CSV field holding s: as it is, or quoted with its quotes
 * doubled; returns their length (out holds 2 strlen(s) + 3). */
static size_t field_bytes(const char *s, char *out)
{
    const size_t k = strlen(s);
    if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' && (!k || s[k - 1] != ' ')) {
        memcpy(out, s, k + 1);
        return k;
    }
    char *q = out;
    *q++ = '"';
    for (; *s; s++) {
        if (*s == '"')
            *q++ = '"';
        *q++ = *s;
    }
    *q++ = '"';
    *q = '\0';
    return (size_t)(q - out);
}

/* A text cell's field: one that starts with = + - @ or a tab or carriage
 * return is taken as a formula by spreadsheets (CSV injection, OWASP): it
 * gets a leading apostrophe, which a spreadsheet shows as text and a
 * script can strip.  Numbers are never changed.  out holds TEXT_FIELD_MAX. */
#define TEXT_ESCAPED_MAX 1100
#define TEXT_FIELD_MAX   (2 * (TEXT_ESCAPED_MAX + 1) + 3)
static size_t text_field(const char *raw, char *out)
{
    char s[TEXT_ESCAPED_MAX + 1]; /* escaped: control and bidi characters, invalid UTF-8 (core/text.h) */
    s[0] = '\'';
    text_escape(raw, s + 1, TEXT_ESCAPED_MAX);
    const int formula = s[1] && strchr("=+-@\t\r", s[1]);
    return field_bytes(formula ? s : s + 1, out);
}

static void put_text(Line *l, const char *raw)
{
    char field[TEXT_FIELD_MAX];
    const size_t k = text_field(raw, field);
    line_put(l, field, k);
}

void rpt_csv_text(FILE *f, const char *raw)
{
    char field[TEXT_FIELD_MAX];
    const size_t k = text_field(raw, field);
    fwrite(field, 1, k, f);
}

/* A number cell, as rpt_number writes it. */
static void put_number(Line *l, double v)
{
    if (!isfinite(v))
        return;
    if (l->n + NUMFMT_G6_MAX > sizeof l->p)
        line_flush(l);
    l->n += (size_t)numfmt_g6(v, l->p + l->n); /* formatted in place */
}

/* One cell as a column reader gave it (columns.h): a number (kind != 0,
 * v) or text (kind 0, in buf). */
static void put_cell(Line *l, int kind, double v, const char *buf)
{
    if (kind)
        put_number(l, v);
    else
        put_text(l, buf);
}

void rpt_summary_row(FILE *f, const RunRow *rr)
{
    Line l;
    line_init(&l, f);
    char buf[512];
    for (int i = 0; i < report_ncols; i++) {
        if (i)
            line_char(&l, ',');
        if (!rr) {
            line_put(&l, report_cols[i].name, strlen(report_cols[i].name));
            continue;
        }
        double v;
        const int kind = report_value(i, rr, &v, buf, sizeof buf); /* before v is read */
        put_cell(&l, kind, v, buf);
    }
    line_char(&l, '\n');
    line_flush(&l);
}

int rpt_write_atomic(const char *path, void (*body)(FILE *, const void *), const void *ctx, char *err,
                     size_t n)
{
    AtomicFile a = {0};
    FILE *f = atomic_open(&a, path);
    if (!f) {
        const int e = errno;
        atomic_abort(&a);
        snprintf(err, n, "%s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    body(f, ctx);
    if (atomic_commit(&a)) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* A whole run's CSV: the writer's header, then its lines for each row. */
typedef struct {
    const Run *run;
    RptRowWriter row;
} RowsCsv;

static void rows_body(FILE *f, const void *ctx)
{
    const RowsCsv *c = ctx;
    c->row(f, NULL);
    for (int i = 0; i < c->run->n; i++)
        c->row(f, &c->run->row[i]);
}

int rpt_rows_csv(const Run *run, RptRowWriter row, const char *path, char *err, size_t n)
{
    const RowsCsv c = {run, row};
    return rpt_write_atomic(path, rows_body, &c, err, n);
}

int rpt_summary_csv(const Run *run, const char *path, char *err, size_t n)
{
    return rpt_rows_csv(run, rpt_summary_row, path, err, n);
}

void rpt_breakdown_row(FILE *f, const RunRow *rr)
{
    if (!rr) {
        fputs("scenario,component,time_s,energy_j\n", f);
        return;
    }
    if (!rr->built || rr->r.status == STATUS_ERROR)
        return;
    Line l;
    line_init(&l, f);
    char name[TEXT_FIELD_MAX]; /* escaped once for the row's lines */
    const size_t name_len = text_field(rr->sc.name, name);
    for (int c = 0; c < COMP_COUNT; c++) {
        line_put(&l, name, name_len);
        line_char(&l, ',');
        const char *comp = component_name((Component)c);
        line_put(&l, comp, strlen(comp));
        line_char(&l, ',');
        put_number(&l, rr->r.comp_time_s[c]);
        line_char(&l, ',');
        put_number(&l, rr->r.comp_energy_j[c]);
        line_char(&l, '\n');
    }
    line_flush(&l);
}

int rpt_breakdown_csv(const Run *run, const char *path, char *err, size_t n)
{
    return rpt_rows_csv(run, rpt_breakdown_row, path, err, n);
}

void rpt_runners_row(FILE *f, const RunRow *rr)
{
    Line l;
    line_init(&l, f);
    if (!rr) {
        for (int i = 0; i < runner_ncols; i++) {
            if (i)
                line_char(&l, ',');
            line_put(&l, runner_cols[i].name, strlen(runner_cols[i].name));
        }
        line_char(&l, '\n');
    }
    char buf[256];
    for (int k = 0; rr && k < rr->ntop; k++) {
        for (int i = 0; i < runner_ncols; i++) {
            if (i)
                line_char(&l, ',');
            double v;
            const int kind = runner_value(i, rr, k, &v, buf, sizeof buf); /* before v is read */
            put_cell(&l, kind, v, buf);
        }
        line_char(&l, '\n');
    }
    line_flush(&l);
}

int rpt_runners_up_csv(const Run *run, const char *path, char *err, size_t n)
{
    return rpt_rows_csv(run, rpt_runners_row, path, err, n);
}
