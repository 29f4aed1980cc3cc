/* report/csv.c — summary.csv (one row per scenario, the columns of
 * columns.c) and breakdown.csv (tidy: scenario, component, time_s,
 * energy_j).  RFC 4180 quoting; numbers %.6g with '.' (the program never
 * calls setlocale); non-finite numbers are empty cells. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/text.h"

#include "io/atomic.h"
#include "report.h"
#include "report/columns.h"

void rpt_number(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        buf[0] = '\0';
    else
        snprintf(buf, n, "%.6g", v);
}

static void put_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' && (!*s || s[strlen(s) - 1] != ' ')) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A text cell: one that starts with = + - @ or a tab or carriage return is
 * taken as a formula by spreadsheets (CSV injection, OWASP): it gets a
 * leading apostrophe, which a spreadsheet shows as text and a script can
 * strip.  Numbers are written by put_field and never changed. */
void rpt_csv_text(FILE *f, const char *raw)
{
    char s[1100]; /* escaped: control and bidi characters, invalid UTF-8 (core/text.h) */
    text_escape(raw, s, sizeof s);
    if (s[0] && strchr("=+-@\t\r", s[0])) {
        char buf[sizeof s + 1];
        snprintf(buf, sizeof buf, "'%s", s);
        put_field(f, buf);
        return;
    }
    put_field(f, s);
}

/* One cell as a column reader gave it (columns.h): a number (kind != 0,
 * v; buf is scratch) or text (kind 0, in buf). */
static void put_cell(FILE *f, int kind, double v, char *buf, size_t n)
{
    if (kind) {
        rpt_number(buf, n, v);
        put_field(f, buf);
    } else {
        rpt_csv_text(f, buf);
    }
}

void rpt_summary_row(FILE *f, const RunRow *rr)
{
    char buf[512];
    for (int i = 0; i < report_ncols; i++) {
        if (i)
            fputc(',', f);
        if (!rr) {
            fputs(report_cols[i].name, f);
            continue;
        }
        double v;
        const int kind = report_value(i, rr, &v, buf, sizeof buf); /* before v is read */
        put_cell(f, kind, v, buf, sizeof buf);
    }
    fputc('\n', f);
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
    char t[64], e[64];
    for (int c = 0; c < COMP_COUNT; c++) {
        rpt_csv_text(f, rr->sc.name);
        rpt_number(t, sizeof t, rr->r.comp_time_s[c]);
        rpt_number(e, sizeof e, rr->r.comp_energy_j[c]);
        fprintf(f, ",%s,%s,%s\n", component_name((Component)c), t, e);
    }
}

int rpt_breakdown_csv(const Run *run, const char *path, char *err, size_t n)
{
    return rpt_rows_csv(run, rpt_breakdown_row, path, err, n);
}

void rpt_runners_row(FILE *f, const RunRow *rr)
{
    if (!rr) {
        for (int i = 0; i < runner_ncols; i++) {
            if (i)
                fputc(',', f);
            fputs(runner_cols[i].name, f);
        }
        fputc('\n', f);
        return;
    }
    char buf[256];
    for (int k = 0; k < rr->ntop; k++) {
        for (int i = 0; i < runner_ncols; i++) {
            if (i)
                fputc(',', f);
            double v;
            const int kind = runner_value(i, rr, k, &v, buf, sizeof buf); /* before v is read */
            put_cell(f, kind, v, buf, sizeof buf);
        }
        fputc('\n', f);
    }
}

int rpt_runners_up_csv(const Run *run, const char *path, char *err, size_t n)
{
    return rpt_rows_csv(run, rpt_runners_row, path, err, n);
}
