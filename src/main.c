/* main.c — the command line: run a scenario table, evaluate one scenario,
 * list templates.  Only this file, io/ and report/ touch files. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch/dist.h"
#include "batch/run.h"
#include "core/units.h"
#include "io/atomic.h"
#include "io/scenario.h"
#include "io/table.h"
#include "core/param.h"
#include "core/strategy.h"
#include "io/template.h"
#include "report/report.h"
#include "tech/tech.h"

#ifndef DF_VERSION
#define DF_VERSION "0.0.0"
#endif

enum { EXIT_OK = 0, EXIT_ROWS_FAILED = 1, EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_OUTPUT = 4 };

/* The longest -o folder name: the report's own paths under it
 * (charts/.tmp-render-PID-time_to_train.png and the like) must fit the
 * 1,400-byte path buffers, never be cut. */
#define RUN_MAX_OUT_PATH 1000

static const char usage_text[] =
    "usage: deepflow run SCENARIOS.csv [-o DIR] [-j THREADS] [--formats xlsx,csv,png,svg] [--top K] "
    "[--quiet]\n"
    "       deepflow eval KEY=VALUE ... [--format text|csv] [--top K]\n"
    "       deepflow templates [KIND [NAME]]\n"
    "       deepflow --help | --version\n";

static const char help_text[] =
    "deepflow — full-stack pathfinding for distributed deep-learning training.\n"
    "\n"
    "  run SCENARIOS.csv   evaluate every row of a scenario table and write the\n"
    "                      report to reports/NAME/ (NAME.xlsx, summary.csv,\n"
    "                      breakdown.csv, charts/*.dat,*.gp,*.png,*.svg)\n"
    "      -o, --output DIR    write the report to DIR instead\n"
    "      -f, --formats LIST  what to write, of xlsx,csv,png,svg (default all);\n"
    "                          the workbook date is $SOURCE_DATE_EPOCH or the table's\n"
    "                          modification time, so a rerun gives the same bytes\n"
    "      -j, --jobs N        threads (default: all cores)\n"
    "      -k, --top K         keep the search's K best strategies of each row with an\n"
    "                          auto field: a Runners-up sheet and runners_up.csv\n"
    "      -q, --quiet         no progress line\n"
    "      -t, --templates DIR templates folder (default $DEEPFLOW_TEMPLATES, ./templates, or the installed "
    "ones)\n"
    "  eval KEY=VALUE ...  one scenario, a readable breakdown on stdout, e.g.\n"
    "                      deepflow eval system=dgx-h100 model=gpt3-175b devices=1024 tp=8 pp=16 \\\n"
    "                          microbatch=1 global_batch=1536 train_tokens=300e9\n"
    "      --format csv        print the summary header and row instead\n"
    "      --top K             list the search's K best strategies after the breakdown\n"
    "  templates [KIND]    list the templates (devices, networks, systems, models,\n"
    "                      technology, convergence, frameworks)\n"
    "  templates KIND NAME every parameter of one template, as the loader resolves it\n"
    "\n";

static const char help_tail[] =
    "and any dotted template path such as model.layers or\n"
    "system.device.hbm.bandwidth.  Values may carry units (80 GiB, 3.35 TB/s,\n"
    "400 Gb/s, 700 W, 5 us).  A table cell may sweep: 8|16|32 or 8..1024*2.  The\n"
    "fields marked auto may be left to the search, which evaluates every\n"
    "consistent choice and keeps the fastest to train.\n"
    "\n"
    "Exit status: 0 every row evaluated, 1 some rows failed, 2 usage error,\n"
    "3 unreadable input, 4 output could not be written.\n";

/* The scenario table's columns, from the parameter table itself (never a
 * second, hand-kept list): "name", "name (a|b|c)", "name (0-3|auto)". */
static void print_columns(void)
{
    const ParamTable *t = &param_scenario_table;
    int col = 0;
    const char *lead = "Keys and columns: ";
    fputs(lead, stdout);
    col = (int)strlen(lead);
    for (size_t i = 0; i < t->count; i++) {
        const ParamDef *def = &t->defs[i];
        char item[200];
        size_t l = (size_t)snprintf(item, sizeof item, "%s", def->key);
        if (def->type == P_ENUM) {
            for (int k = 0; def->choices[k] && l < sizeof item; k++)
                l += (size_t)snprintf(item + l, sizeof item - l, "%s%s", k ? "|" : " (", def->choices[k]);
            if (l < sizeof item)
                snprintf(item + l, sizeof item - l, "%s)", def->auto_ok ? "|auto" : "");
        } else if (def->type == P_BOOL) {
            snprintf(item + l, sizeof item - l, " (yes|no%s)", def->auto_ok ? "|auto" : "");
        } else if (def->auto_ok) {
            snprintf(item + l, sizeof item - l, " (auto)");
        }
        const int w = (int)strlen(item) + 1; /* with its comma */
        if (col + 1 + w > 78) {
            fputs("\n", stdout);
            col = 0;
        } else if (i > 0) {
            fputs(" ", stdout);
            col++;
        }
        printf("%s,", item);
        col += w;
    }
    fputs("\n", stdout);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "deepflow: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    return EXIT_USAGE;
}

static int init_templates(TemplateDB *db, const char *dir)
{
    Diag d;
    diag_clear(&d);
    if (tdb_init(db, dir, &d)) {
        char msg[1200];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "deepflow: %s\n", msg);
        return -1;
    }
    db->check = tech_template_check; /* a derive: device's budget is checked where it is written */
    return 0;
}

/* ---- run -------------------------------------------------------------- */

typedef struct {
    int tty;
    struct timespec t0;
} Progress;

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

static void progress_line(int done, int total, void *ctx)
{
    Progress *p = ctx;
    if (!p->tty)
        return;
    double el = since(&p->t0);
    double rate = el > 0 ? done / el : 0;
    double eta = rate > 0 ? (total - done) / rate : 0;
    fprintf(stderr, "\r%d/%d scenarios, %.0f/s, ETA %.0f s   ", done, total, rate, eta);
    if (done == total)
        fputs("\n", stderr);
}

static void base_name(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out && !strcasecmp(dot, ".csv"))
        *dot = '\0';
}

/* The command line as run, each argument quoted for a POSIX shell when it
 * needs it (for the workbook's About sheet). */
static void join_command(int argc, char **argv, char *out, size_t n)
{
    size_t len = (size_t)snprintf(out, n, "deepflow");
    for (int i = 0; i < argc && len + 1 < n; i++) {
        const char *a = argv[i];
        int plain = *a != '\0';
        for (const char *p = a; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%", *p))
                plain = 0;
        out[len++] = ' ';
        if (plain) {
            len += (size_t)snprintf(out + len, n - len, "%s", a);
        } else {
            out[len++] = '\'';
            for (const char *p = a; *p && len + 5 < n; p++) {
                if (*p == '\'') {
                    memcpy(out + len, "'\\''", 4);
                    len += 4;
                } else {
                    out[len++] = *p;
                }
            }
            if (len + 1 < n)
                out[len++] = '\'';
        }
        if (len >= n)
            len = n - 1;
        out[len] = '\0';
    }
}

/* A CSV a streamed run wrote as the rows passed, into the staging folder. */
static int move_streamed(const char *from, const char *file, const char *to, char *err, size_t n)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", from, file);
    if (rename(path, to) == 0)
        return 0;
    snprintf(err, n, "%s: %s", to, strerror(errno));
    return -1;
}

/* Write every format asked for into dir; print what failed to stderr and
 * the closing paragraph to stdout.  Returns 0, or -1 when some output could
 * not be written (every other output is still attempted). */
static int write_report(const ReportInput *in, const char *dir, unsigned formats)
{
    const Run *run = in->run;
    char path[1400], err[1600], written[2048] = "";
    size_t wl = 0;
    int failed = 0;
    if (mkdir_p(dir)) {
        fprintf(stderr, "deepflow: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/charts", dir);
    const int swept = atomic_sweep_stale(dir) + atomic_sweep_stale(path);
    if (swept)
        fprintf(stderr, "deepflow: note: removed %d temporar%s in %s that an interrupted run left\n", swept,
                swept == 1 ? "y" : "ies", dir);
    /* the report is one unit: written into a staging folder beside it and
     * moved into place together at the end (io/atomic.h) */
    char stage[1200], fin[1400], charts_final[1400];
    if (atomic_stage_open(dir, stage, sizeof stage)) {
        fprintf(stderr, "deepflow: cannot create a staging folder in %s: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(charts_final, sizeof charts_final, "%s/charts", dir);
    if (formats & RPT_XLSX) {
        snprintf(path, sizeof path, "%s/%s.xlsx", stage, in->name);
        if (rpt_xlsx_write(in, path, err, sizeof err)) {
            fprintf(stderr, "deepflow: cannot write %s\n", err);
            failed = 1;
        } else {
            wl += (size_t)snprintf(written + wl, sizeof written - wl, "%s%s.xlsx", wl ? ", " : "", in->name);
        }
    }
    if (formats & RPT_CSV) {
        static const char *const csvs[2] = {"summary.csv", "breakdown.csv"};
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s/%s", stage, csvs[i]);
            int r = in->streamed ? move_streamed(in->streamed, csvs[i], path, err, sizeof err)
                    : i          ? rpt_breakdown_csv(run, path, err, sizeof err)
                                 : rpt_summary_csv(run, path, err, sizeof err);
            if (r) {
                fprintf(stderr, "deepflow: cannot write %s\n", err);
                failed = 1;
            } else {
                wl += (size_t)snprintf(written + wl, sizeof written - wl, "%s%s", wl ? ", " : "", csvs[i]);
            }
        }
    }
    if (formats & RPT_CSV) {
        /* the runners-up of --top; without it, an earlier run's file would
         * describe other results: it goes */
        snprintf(path, sizeof path, "%s/runners_up.csv", stage);
        snprintf(fin, sizeof fin, "%s/runners_up.csv", dir);
        if (run->top_k > 0) {
            if (in->streamed ? move_streamed(in->streamed, "runners_up.csv", path, err, sizeof err)
                             : rpt_runners_up_csv(run, path, err, sizeof err)) {
                fprintf(stderr, "deepflow: cannot write %s\n", err);
                failed = 1;
            } else {
                wl += (size_t)snprintf(written + wl, sizeof written - wl, "%srunners_up.csv", wl ? ", " : "");
            }
        } else if (unlink(fin) && errno != ENOENT) {
            fprintf(stderr, "deepflow: cannot remove the earlier %s: %s\n", fin, strerror(errno));
            failed = 1;
        }
    }
    if (formats & RPT_CSV) { /* which knob matters */
        snprintf(path, sizeof path, "%s/sensitivity.csv", stage);
        snprintf(fin, sizeof fin, "%s/sensitivity.csv", dir);
        if (in->sens) {
            if (rpt_sensitivity_csv(run, in->sens, path, err, sizeof err)) {
                fprintf(stderr, "deepflow: cannot write %s\n", err);
                failed = 1;
            } else {
                wl +=
                    (size_t)snprintf(written + wl, sizeof written - wl, "%ssensitivity.csv", wl ? ", " : "");
            }
        } else if (unlink(fin) && errno != ENOENT) {
            fprintf(stderr, "deepflow: cannot remove the earlier %s: %s\n", fin, strerror(errno));
            failed = 1;
        }
    }
    if (formats & RPT_CSV) { /* the co-design's changes; gone when no row was co-designed */
        const int designed = run_designed(run);
        snprintf(path, sizeof path, "%s/design.csv", stage);
        snprintf(fin, sizeof fin, "%s/design.csv", dir);
        if (designed) {
            if (in->streamed ? move_streamed(in->streamed, "design.csv", path, err, sizeof err)
                             : rpt_design_csv(run, path, err, sizeof err)) {
                fprintf(stderr, "deepflow: cannot write %s\n", err);
                failed = 1;
            } else {
                wl += (size_t)snprintf(written + wl, sizeof written - wl, "%sdesign.csv", wl ? ", " : "");
            }
        } else if (unlink(fin) && errno != ENOENT) {
            fprintf(stderr, "deepflow: cannot remove the earlier %s: %s\n", fin, strerror(errno));
            failed = 1;
        }
    }
    if (formats & (RPT_PNG | RPT_SVG)) {
        RptChartsDone cd;
        snprintf(path, sizeof path, "%s/charts", stage);
        ReportInput staged = *in;
        staged.charts_final = charts_final;
        if (rpt_charts_write(&staged, path, formats, &cd, err, sizeof err)) {
            fprintf(stderr, "deepflow: cannot write %s\n", err);
            failed = 1;
        }
        if (cd.no_gnuplot)
            fprintf(stderr,
                    "deepflow: note: gnuplot was not found, so the charts are written as .dat and .gp "
                    "files in %s but not rendered (install gnuplot and run gnuplot on each .gp there)\n",
                    charts_final);
        const int images = cd.charts * (((formats & RPT_PNG) != 0) + ((formats & RPT_SVG) != 0));
        char how[96] = "";
        if (cd.rendered && cd.rendered == images)
            snprintf(how, sizeof how, ", rendered to %s",
                     (formats & RPT_PNG) && (formats & RPT_SVG) ? "PNG and SVG"
                     : (formats & RPT_PNG)                      ? "PNG"
                                                                : "SVG");
        else if (cd.rendered) /* never claim the images that failed */
            snprintf(how, sizeof how, ", %d of %d images rendered", cd.rendered, images);
        if (cd.charts)
            wl += (size_t)snprintf(written + wl, sizeof written - wl,
                                   "%scharts/ (%d chart%s as .dat and .gp%s)", wl ? ", " : "", cd.charts,
                                   cd.charts == 1 ? "" : "s", how);
    }
    char bad[1400];
    if (atomic_stage_publish(stage, dir, bad, sizeof bad)) {
        if (bad[0])
            fprintf(stderr, "deepflow: cannot write %s: %s\n", bad, strerror(errno));
        else
            fprintf(stderr, "deepflow: cannot move the report from %s into %s: %s\n", stage, dir,
                    strerror(errno));
        atomic_stage_abort(stage);
        failed = 1;
    }
    if (wl >= sizeof written)
        wl = sizeof written - 1;

    /* the closing paragraph */
    int best = -1;
    for (int i = 0; i < run->n; i++) {
        const RunRow *rr = &run->row[i];
        if (rr->built && rr->r.status == STATUS_OK && (best < 0 || rpt_better(rr, i, &run->row[best], best)))
            best = i;
    }
    printf("%s: %d scenario%s: %d ok, %d out of memory, %d failed.", in->table->path, run_total(run),
           run_total(run) == 1 ? "" : "s", run->n_ok, run->n_oom, run->n_error);
    if (best >= 0) {
        const RunRow *b = &run->row[best];
        if (isfinite(b->r.time_to_train_s)) {
            double t = b->r.time_to_train_s;
            printf(" Fastest: '%s' (series %s) trains in %.3g %s on %d device%s.", b->sc.name, b->sc.series,
                   t >= 86400  ? t / 86400
                   : t >= 3600 ? t / 3600
                               : t / 60,
                   t >= 86400  ? "days"
                   : t >= 3600 ? "hours"
                               : "minutes",
                   b->sc.devices, b->sc.devices == 1 ? "" : "s");
        } else
            printf(" Fastest: '%s' (series %s) runs %.4g samples/s on %d device%s.", b->sc.name, b->sc.series,
                   b->r.samples_per_s, b->sc.devices, b->sc.devices == 1 ? "" : "s");
    }
    {
        char rec[2048];
        if (rpt_recommend(run, rec, sizeof rec) >= 0 || run->n_ok > 0)
            printf(" %s", rec);
    }
    RptBaseline cmp[64];
    int ncmp = rpt_baselines(run, cmp, 64);
    for (int k = 0; k < ncmp; k++) {
        if (cmp[k].crossover)
            printf(" %s beats %s from %d devices on (best %.2fx at %d).", cmp[k].series, cmp[k].baseline,
                   cmp[k].crossover, cmp[k].best, cmp[k].best_devices);
        else
            printf(" %s never beats %s for good (best %.2fx at %d).", cmp[k].series, cmp[k].baseline,
                   cmp[k].best, cmp[k].best_devices);
    }
    { /* co-design: what the split search gained, per series (its best row) */
        RptSeriesSet set;
        if (rpt_series_build(run, &set) == 0) {
            for (int i = 0; i < set.n; i++) {
                if (set.s[i].best < 0)
                    continue;
                const Result *r = &run->row[set.s[i].best].r;
                if (r->design_evals <= 0)
                    continue;
                printf(" Co-design: %s is %.2fx faster than its template's split (%d design points).",
                       set.s[i].name, r->design_start_s / merit_time(merit_of(r)), r->design_evals);
            }
            rpt_series_free(&set);
        }
    }
    if (wl)
        printf(" Report in %s/: %s.", dir, written);
    if (failed)
        printf(" Some of the report could not be written (see the messages above).");
    if (run->n_error)
        printf(" The failed rows are listed above%s.",
               (formats & RPT_XLSX) ? " and in the workbook's Errors sheet" : "");
    printf("\n");
    return failed ? -1 : 0;
}

/* The failed rows' messages on stderr, in table order; one message many
 * rows share (a broken template they all name) is printed once with the
 * table lines it affects. */
typedef struct {
    char *msg;
    int row;  /* index among the scenarios */
    int line; /* its table line */
} RowMsg;

typedef struct {
    int first; /* index of its first entry in the sorted RowMsg array */
    int count;
    int row; /* its first row, for the order of printing */
} MsgGroup;

static int cmp_rowmsg(const void *a, const void *b)
{
    const RowMsg *x = a, *y = b;
    int c = strcmp(x->msg, y->msg);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

static int cmp_group(const void *a, const void *b)
{
    const MsgGroup *x = a, *y = b;
    return (x->row > y->row) - (x->row < y->row);
}

static void print_row_errors(const Run *run, const char *input)
{
    /* a streamed run has its failures apart: its rows are not all kept */
    const int nmsg = run->fail ? run->nfail : run->n;
    const size_t cap = (size_t)(nmsg > 0 ? nmsg : 1);
    RowMsg *v = calloc(cap, sizeof *v);
    MsgGroup *g = calloc(cap, sizeof *g);
    int n = 0, ng = 0;
    for (int i = 0; i < nmsg; i++) {
        char msg[1200];
        int line;
        if (run->fail) {
            snprintf(msg, sizeof msg, "%s", run->fail[i].said);
            line = run->fail[i].row_line;
        } else {
            const RunRow *rr = &run->row[i];
            if (rr->built && rr->r.status != STATUS_ERROR)
                continue;
            run_error_message(rr, input, msg, sizeof msg);
            line = rr->line;
        }
        if (!v || !g || !(v[n].msg = strdup(msg))) {
            fprintf(stderr, "%s\n", msg); /* no memory to group: say it as it comes */
            continue;
        }
        v[n].row = run->fail ? run->fail[i].index : i;
        v[n++].line = line;
    }
    if (v && g) {
        qsort(v, (size_t)n, sizeof *v, cmp_rowmsg);
        for (int i = 0; i < n; i++) {
            if (i == 0 || strcmp(v[i].msg, v[i - 1].msg))
                g[ng++] = (MsgGroup){i, 0, v[i].row};
            g[ng - 1].count++;
        }
        qsort(g, (size_t)ng, sizeof *g, cmp_group);
        for (int k = 0; k < ng; k++) {
            const RowMsg *e = &v[g[k].first];
            if (g[k].count == 1) {
                fprintf(stderr, "%s\n", e->msg);
                continue;
            }
            /* the table lines (a sweep's scenarios share theirs), the first ten */
            fprintf(stderr, "%s (the same for %d scenarios, table line", e->msg, g[k].count);
            int shown = 0, last = -1, more = 0;
            for (int i = 0; i < g[k].count; i++) {
                const int line = e[i].line;
                if (line == last)
                    continue;
                if (shown == 10) {
                    more = 1;
                    break;
                }
                fprintf(stderr, "%s %d",
                        shown ? "," : (g[k].count > 1 && line != e[g[k].count - 1].line ? "s" : ""), line);
                shown++;
                last = line;
            }
            fprintf(stderr, "%s)\n", more ? ", ..." : "");
        }
    }
    for (int i = 0; i < n; i++)
        free(v[i].msg);
    free(v);
    free(g);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The warnings of the templates read and of the rows, each once (a sweep's
 * scenarios share their cells' warnings), on stderr. */
static void print_warnings(const TemplateDB *db, const Run *run)
{
    for (int i = 0; i < db->n; i++)
        for (int k = 0; k < db->t[i]->warnings.n; k++)
            fprintf(stderr, "%s\n", db->t[i]->warnings.s[k]);
    for (int i = 0; i < run->nwarn; i++) /* a streamed run's, distinct and sorted already */
        fprintf(stderr, "%s\n", run->warn[i]);
    int n = 0;
    for (int i = 0; i < run->n; i++)
        n += run->row[i].src.warnings.n;
    if (!n)
        return;
    char **v = malloc(sizeof *v * (size_t)n);
    if (!v)
        return;
    n = 0;
    for (int i = 0; i < run->n; i++)
        for (int k = 0; k < run->row[i].src.warnings.n; k++)
            v[n++] = run->row[i].src.warnings.s[k];
    qsort(v, (size_t)n, sizeof *v, cmp_str);
    for (int i = 0; i < n; i++)
        if (i == 0 || strcmp(v[i], v[i - 1]))
            fprintf(stderr, "%s\n", v[i]);
    free(v);
}

/* --top K: 1 to RUN_MAX_TOP. */
static int parse_top(const char *s, int *k)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > RUN_MAX_TOP)
        return -1;
    *k = (int)v;
    return 0;
}

/* A streamed run's CSVs as the rows pass, and the rows its report keeps. */
static const char *const stream_files[4] = {"summary.csv", "breakdown.csv", "runners_up.csv", "design.csv"};
static const RptRowWriter stream_writers[4] = {rpt_summary_row, rpt_breakdown_row, rpt_runners_row,
                                               rpt_design_row};
typedef struct {
    FILE *f[4]; /* as stream_files; NULL: not written */
    RptKeep *keep;
} StreamOut;

static void stream_row(void *ctx, const RunRow *rr, int index)
{
    StreamOut *o = ctx;
    for (int i = 0; i < 4; i++)
        if (o->f[i])
            stream_writers[i](o->f[i], rr);
    rpt_keep_add(o->keep, rr, index);
}

/* run_table for a study too large to hold (batch/run.h run_stream): the
 * CSVs go into a staging folder of their own in dir (sdir; the report
 * takes them from there), the rows the report needs into run.  Returns 0,
 * 1 with d filled when the table cannot be run, 2 when the CSVs cannot be
 * written. */
static int stream_table(TemplateDB *db, const Table *t, int jobs, int top_k, Progress *pr, const char *dir,
                        unsigned formats, int detail_max, Run *run, char *sdir, size_t sn, Diag *d)
{
    StreamOut o = {{NULL, NULL, NULL, NULL}, NULL};
    memset(run, 0, sizeof *run);
    long total;
    if (run_count_checked(t, &total, d)) /* before any folder is made */
        return 1;
    const int rank0 = dist_rank() == 0;
    int ok = 1;
    if (rank0 && (formats & RPT_CSV)) {
        if (mkdir_p(dir) || atomic_stage_open(dir, sdir, sn)) {
            diag_set(d, dir, 0, 0, "cannot create a folder for the CSVs: %s", strerror(errno));
            sdir[0] = '\0';
            ok = 0;
        }
        for (int i = 0; ok && i < 4; i++) {
            if (i == 2 && top_k <= 0)
                continue;
            char path[1400];
            snprintf(path, sizeof path, "%s/%s", sdir, stream_files[i]);
            if (!(o.f[i] = fopen(path, "w"))) {
                diag_set(d, path, 0, 0, "cannot write: %s", strerror(errno));
                ok = 0;
            } else {
                stream_writers[i](o.f[i], NULL);
            }
        }
    }
    if (rank0 && ok && !(o.keep = rpt_keep_new(t->path, detail_max))) {
        diag_set(d, t->path, 0, 0, "out of memory");
        ok = 0;
    }
    int rc = 0;
    if (!dist_all_ok(ok)) { /* every rank stops here, or none */
        if (ok)
            diag_set(d, t->path, 0, 0, "rank 0 of this MPI run could not start the run");
        rc = 2;
    }
    RunStats st;
    if (!rc && run_stream(db, t, jobs, top_k, progress_line, pr, stream_row, &o, &st, d))
        rc = 1;
    for (int i = 0; i < 4; i++)
        if (o.f[i] && (ferror(o.f[i]) | fclose(o.f[i])) && !rc) {
            diag_set(d, dir, 0, 0, "cannot write %s: %s", stream_files[i], strerror(errno));
            rc = 2;
        }
    if (!rc && rank0 && rpt_keep_finish(o.keep, &st, run)) {
        diag_set(d, t->path, 0, 0, "out of memory for the rows the report keeps");
        rc = 1;
    }
    rpt_keep_free(o.keep);
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"jobs", required_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"templates", required_argument, NULL, 't'},
        {"formats", required_argument, NULL, 'f'},
        {"top", required_argument, NULL, 'k'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *tdir = NULL;
    /* threads: this machine's cores, shared among the MPI ranks on it */
    int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN) / dist_local_size(), quiet = 0, top_k = 0, c;
    if (jobs < 1)
        jobs = 1;
    unsigned formats = RPT_ALL;
    char command[4096]; /* before getopt_long permutes argv */
    join_command(argc, argv, command, sizeof command);
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:j:qt:f:k:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1024)
                return usage_error("-j: expected a thread count from 1 to 1024, got '%s'", optarg);
            jobs = (int)v;
            break;
        }
        case 'k':
            if (parse_top(optarg, &top_k))
                return usage_error("--top: expected a count of strategies from 1 to 100, got '%s'", optarg);
            break;
        case 'q':
            quiet = 1;
            break;
        case 't':
            tdir = optarg;
            break;
        case 'f': {
            char ferr[200];
            if (rpt_parse_formats(optarg, &formats, ferr, sizeof ferr))
                return usage_error("%s", ferr);
            break;
        }
        default:
            fputs(usage_text, stderr);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1)
        return usage_error("run: expected one scenario table%s", optind < argc ? ", got several" : "");
    const char *input = argv[optind];
    if (out) { /* an output folder that cannot be one is a usage error, before any work */
        struct stat ost;
        if (!*out)
            return usage_error("%s", "-o: expected an output folder, got an empty name");
        if (strlen(out) > RUN_MAX_OUT_PATH) {
            char why[96];
            snprintf(why, sizeof why, "-o: the folder's name is %zu bytes, more than %d", strlen(out),
                     RUN_MAX_OUT_PATH);
            return usage_error("%s", why);
        }
        if (stat(out, &ost) == 0 && !S_ISDIR(ost.st_mode))
            return usage_error("-o: '%s' is a file, not a folder", out);
    }

    Diag d;
    diag_clear(&d);
    Table t;
    if (table_read(input, &t, &d)) {
        char msg[1200];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "deepflow: %s\n", msg);
        return EXIT_INPUT;
    }
    TemplateDB db;
    if (init_templates(&db, tdir)) {
        table_free(&t);
        return EXIT_INPUT;
    }
    char dir[1024], name[256], terr[300];
    base_name(input, name, sizeof name);
    if (!name[0] || !strcmp(name, ".") || !strcmp(name, "..")) { /* '...csv' would write to reports/.. */
        tdb_free(&db);
        table_free(&t);
        return usage_error("run: the table's file name '%s' gives no report name; rename the file", input);
    }
    time_t created;
    if (rpt_document_time(input, &created, terr, sizeof terr)) {
        fprintf(stderr, "deepflow: %s\n", terr);
        tdb_free(&db);
        table_free(&t);
        return EXIT_USAGE;
    }
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else
        snprintf(dir, sizeof dir, "reports/%s", name);

    Progress pr = {!quiet && isatty(fileno(stderr)), {0, 0}};
    clock_gettime(CLOCK_MONOTONIC, &pr.t0);
    /* a study larger than the workbook lists one by one is streamed: its
     * rows pass, its CSVs are written as they do, and only the rows the
     * report needs are kept (DEEPFLOW_DETAIL_MAX lowers that size, for
     * tests; DEEPFLOW_NO_STREAM holds every row regardless) */
    const char *dm = getenv("DEEPFLOW_DETAIL_MAX");
    const long dml = dm ? strtol(dm, NULL, 10) : 0;
    const int detail_max = dml > 0 && dml <= RPT_DETAIL_MAX ? (int)dml : 0;
    const int streamed =
        run_count(&t) > (detail_max > 0 ? detail_max : RPT_DETAIL_MAX) && !getenv("DEEPFLOW_NO_STREAM");
    Run run;
    Diag rd;
    diag_clear(&rd);
    char sdir[1200] = "";
    const int got = streamed ? stream_table(&db, &t, jobs, top_k, &pr, dir, formats, detail_max, &run, sdir,
                                            sizeof sdir, &rd)
                             : run_table(&db, &t, jobs, top_k, progress_line, &pr, &run, &rd);
    if (got) {
        char msg[1200];
        diag_format(&rd, msg, sizeof msg);
        fprintf(stderr, "deepflow: %s (no report written)\n", msg);
        if (sdir[0])
            atomic_stage_abort(sdir);
        tdb_free(&db);
        table_free(&t);
        return got == 2 ? EXIT_OUTPUT : EXIT_INPUT;
    }
    if (dist_rank() > 0) { /* rank 0 has every result and writes the report */
        run_free(&run);
        tdb_free(&db);
        table_free(&t);
        return EXIT_OK;
    }
    print_warnings(&db, &run);
    print_row_errors(&run, input);

    int rc = run.n_error ? EXIT_ROWS_FAILED : EXIT_OK;
    RptSensitivity sens;
    const int have_sens = rpt_sensitivity(&run, &sens) == 0;
    ReportInput rin = {&run,
                       &t,
                       &db,
                       name,
                       command,
                       created,
                       have_sens ? &sens : NULL,
                       NULL,
                       detail_max,
                       sdir[0] ? sdir : NULL};
    if (write_report(&rin, dir, formats) != 0)
        rc = EXIT_OUTPUT;
    if (sdir[0])
        atomic_stage_abort(sdir); /* what was not moved into the report (an unused design.csv) */
    run_free(&run);
    tdb_free(&db);
    table_free(&t);
    return rc;
}

/* ---- eval ------------------------------------------------------------- */

static void print_size(const char *label, double bytes)
{
    printf("  %-22s %10.2f GiB\n", label, bytes / GIB_BYTES);
}

/* prefix, v in the reader's unit, suffix, and the prediction interval's
 * ends in brackets when the row has one. */
static void print_ranged(void (*fmt)(double, char *, size_t), double v, const Result *r, int ranged,
                         const char *prefix, const char *suffix)
{
    char a[64], lo[64], hi[64];
    fmt(v, a, sizeof a);
    printf("%s%s%s", prefix, a, suffix);
    if (ranged) {
        fmt(v * r->interval_lo, lo, sizeof lo);
        fmt(v * r->interval_hi, hi, sizeof hi);
        printf(" (%s to %s)", lo, hi);
    }
}

/* The runners-up: one column per axis (core/strategy.h's table), each as
 * wide as its heading or its widest value. */
static void print_top(const RunRow *rr)
{
    int width[AXIS_COUNT];
    char cell[AXIS_COUNT][32];
    for (int a = 0; a < AXIS_COUNT; a++) {
        width[a] = (int)strlen(strategy_axes[a].abbr);
        for (int k = 0; k < rr->ntop; k++) {
            strategy_value_text((StrategyAxis)a, strategy_get(&rr->top[k].st, (StrategyAxis)a), cell[a],
                                sizeof cell[a]);
            if ((int)strlen(cell[a]) > width[a])
                width[a] = (int)strlen(cell[a]);
        }
    }
    printf("best strategies (rank 1 is the one above)\n  %4s", "rank");
    for (int a = 0; a < AXIS_COUNT; a++)
        printf(" %*s", width[a], strategy_axes[a].abbr);
    printf(" %12s %8s %6s %9s\n", "step", "slower", "MFU", "memory");
    const double t0 = merit_time(rr->top[0].merit);
    for (int k = 0; k < rr->ntop; k++) {
        const Candidate *c = &rr->top[k];
        printf("  %4d", k + 1);
        for (int a = 0; a < AXIS_COUNT; a++) {
            if (strategy_axis_applies(&c->st, (StrategyAxis)a))
                strategy_value_text((StrategyAxis)a, strategy_get(&c->st, (StrategyAxis)a), cell[a],
                                    sizeof cell[a]);
            else
                snprintf(cell[a], sizeof cell[a], "-");
            printf(" %*s", width[a], cell[a]);
        }
        char stime[32];
        unit_format(c->step_time_s, UNIT_TIME, stime, sizeof stime);
        printf(" %12s %7.1f%% %5.1f%% %5.1f GiB\n", stime, 100 * (merit_time(c->merit) / t0 - 1),
               100 * c->mfu, c->mem_total_bytes / GIB_BYTES);
    }
}

static void print_eval(const RunRow *rr)
{
    const Scenario *sc = &rr->sc;
    const Result *r = &rr->r;
    if (sc->global_batch_defaulted && sc->model.kind != MODEL_GEMM)
        fprintf(stderr,
                "deepflow eval: note: no global_batch given, so microbatch x dp = %lld samples per step; the "
                "model's training batch is usually far larger (set global_batch=...)\n",
                (long long)sc->st.global_batch);
    char a[64];
    printf("scenario     %s\n", sc->name);
    printf("system       %s: %s, %d per node; stack %s\n", sc->system.name, sc->system.device.name,
           sc->system.devices_per_node, sc->system.framework.name);
    if (sc->model.kind == MODEL_GEMM)
        printf("model        %s: GEMM %lld x %lld x %lld (%s)\n", sc->model.name, (long long)sc->model.m,
               (long long)sc->model.k, (long long)sc->model.n, precision_name(sc->precision));
    else if (r->status == STATUS_ERROR) /* the graph was never built: no parameter count to show */
        printf("model        %s: %s\n", sc->model.name, model_kind_name(sc->model.kind));
    else
        printf("model        %s: %s, %.4g B parameters\n", sc->model.name, model_kind_name(sc->model.kind),
               r->params_total / 1e9);
    const int err = r->status == STATUS_ERROR;
    char st[512]; /* on an error what was asked for ('auto' where the search never resolved it) */
    strategy_describe(err ? &sc->st : &r->st, 0, st, sizeof st);
    printf("strategy     devices %d: %s; global batch %lld, %s\n", sc->devices, st,
           (long long)(err ? sc->st.global_batch : r->st.global_batch), precision_name(sc->precision));
    if (r->status == STATUS_ERROR) {
        printf("status       error: %s\n", r->error);
        return;
    }
    if (r->status == STATUS_OOM)
        printf("status       oom: needs %.1f GiB per device, the device has %.1f GiB\n",
               r->mem_total_bytes / GIB_BYTES, r->mem_capacity_bytes / GIB_BYTES);
    else
        printf("status       ok\n");
    const int ranged = isfinite(r->interval_lo) && isfinite(r->interval_hi);
    unit_format(r->step_time_s, UNIT_TIME, a, sizeof a);
    printf("step time    %s  (%.6g samples/s)", a, r->samples_per_s);
    if (ranged) {
        char lo[64], hi[64];
        unit_format(r->step_time_s * r->interval_lo, UNIT_TIME, lo, sizeof lo);
        unit_format(r->step_time_s * r->interval_hi, UNIT_TIME, hi, sizeof hi);
        printf("; 90 %% range %s to %s", lo, hi);
    }
    printf("\n");
    printf("interval     %s\n", r->interval_basis);
    printf("throughput   %.4g TFLOP/s per device; MFU %.1f %%, HFU %.1f %%\n", r->model_tflops_per_device,
           100 * r->mfu, 100 * r->hfu);
    printf("bottleneck   %s\n", r->bottleneck);
    if (r->searched)
        printf("search       best of %d strategies evaluated, %d fit in memory, %d skipped as equivalent, of "
               "%.0f combinations (fastest to train, then least energy)\n",
               r->searched, r->search_feasible, r->search_pruned, r->search_space);
    if (sc->model.kind == MODEL_GEMM)
        printf("bound        %s\n", strstr(r->bottleneck, "(compute)") ? "compute-bound" : "memory-bound");
    if (r->design_evals) {
        const double now_s = merit_time(merit_of(r));
        printf("codesign     %s: %d design points; %.4g x faster than the template's split",
               codesign_name(sc->codesign), r->design_evals, r->design_start_s / now_s);
        static const char *const what[3] = {"area", "power", "edge"};
        const double *from[3] = {sc->system.device.derive.budget.area, sc->system.device.derive.budget.power,
                                 sc->system.device.derive.budget.perimeter};
        const double *to[3] = {r->design_budget.area, r->design_budget.power, r->design_budget.perimeter};
        for (int k = 0; k < 3; k++) {
            printf("\n             %-6s", what[k]);
            for (int p = 0; p < TP_COUNT; p++)
                if (from[k][p] > 0 || to[k][p] > 0)
                    printf(" %s %.3f->%.3f", tech_part_name((TechPart)p), from[k][p], to[k][p]);
        }
        printf("\n");
    }
    if (isfinite(r->time_to_train_s)) {
        printf("to train     %.0f steps", r->steps);
        print_ranged(rpt_fmt_duration, r->time_to_train_s, r, ranged, ", ", "");
        printf("\n");
        const Goodput *g = &r->failures;
        if (isfinite(g->goodput) && isfinite(g->wall_s)) {
            char wall[48], mtti[48], every[48];
            rpt_fmt_duration(g->wall_s, wall, sizeof wall);
            rpt_fmt_duration(g->mtti_s, mtti, sizeof mtti);
            rpt_fmt_duration(g->interval_s, every, sizeof every);
            printf("failures     goodput %.1f %%: %s to train, interrupted every %s on average, a %.3g s "
                   "checkpoint every %s\n",
                   100 * g->goodput, wall, mtti, g->write_s, every);
        } else if (isfinite(g->goodput)) {
            printf("failures     goodput 0: interruptions (every %.3g s) come faster than a checkpoint "
                   "(%.3g s) can be written\n",
                   g->mtti_s, g->write_s);
        }
    }
    printf("breakdown    %-18s %12s %7s\n", "component", "time", "share");
    for (int c = 0; c < COMP_COUNT; c++) {
        if (r->comp_time_s[c] <= 0)
            continue;
        unit_format(r->comp_time_s[c], UNIT_TIME, a, sizeof a);
        printf("             %-18s %12s %6.1f%%%s\n", component_name((Component)c), a,
               100 * r->comp_time_s[c] / r->step_time_s, c == COMP_DP_HIDDEN ? " (hidden, not in step)" : "");
    }
    printf("collectives  tensor: %s, pipeline: %s, data: %s\n", r->tp_tier, r->pp_tier, r->dp_tier);
    printf("power        device %.0f W (cap %.0f W, clock %.0f %% of nominal), system %.4g kW at the wall\n",
           r->device_power_w, r->power_cap_w, 100 * r->clock_scale, r->system_power_w / 1e3);
    if (r->energy_per_step_j >= 1e6)
        printf("energy       %.4g MJ per step (system)", r->energy_per_step_j / 1e6);
    else
        printf("energy       %.4g kJ per step (system)", r->energy_per_step_j / 1e3);
    if (isfinite(r->energy_to_train_j))
        print_ranged(rpt_fmt_energy, r->energy_to_train_j, r, ranged, ", ", " to train");
    if (isfinite(r->cost_usd))
        print_ranged(rpt_fmt_money, r->cost_usd, r, ranged, ", ", " at list price");
    printf("\n");
    printf("memory per device (most loaded)\n");
    print_size("weights", r->mem_weights_bytes);
    print_size("gradients", r->mem_grads_bytes);
    print_size("optimizer state", r->mem_optimizer_bytes);
    print_size("activations", r->mem_activations_bytes);
    print_size("runtime reserve", r->mem_workspace_bytes);
    print_size("total", r->mem_total_bytes);
    print_size("capacity", r->mem_capacity_bytes);
    if (rr->ntop > 0)
        print_top(rr);
}

static int cmd_eval(int argc, char **argv)
{
    const char *format = "text", *tdir = NULL;
    int top_k = 0;
    const char **kv = calloc((size_t)argc, sizeof *kv);
    int *line = calloc((size_t)argc, sizeof *line);
    int n = 0, rc = EXIT_OK;
    if (!kv || !line) {
        free(kv);
        free(line);
        return EXIT_USAGE;
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strncmp(arg, "--format=", 9)) {
            format = arg + 9;
        } else if (!strcmp(arg, "--format") && i + 1 < argc) {
            format = argv[++i];
        } else if (!strncmp(arg, "--top=", 6) || (!strcmp(arg, "--top") && i + 1 < argc)) {
            const char *v = arg[5] == '=' ? arg + 6 : argv[++i];
            if (parse_top(v, &top_k)) {
                rc = usage_error("eval: --top: expected a count of strategies from 1 to 100, got '%s'", v);
                break;
            }
        } else if (!strncmp(arg, "--templates=", 12)) {
            tdir = arg + 12;
        } else if (!strchr(arg, '=') || arg[0] == '=') {
            rc = usage_error(strchr(arg, '=')
                                 ? "eval: expected KEY=VALUE, got '%s'"
                                 : "eval: expected KEY=VALUE, got '%s' (a value with a space, such "
                                   "as power_cap=700 kW, must be quoted: 'power_cap=700 kW')",
                             arg);
            break;
        } else {
            kv[n] = arg;
            line[n++] = i; /* messages name the argument */
        }
    }
    if (rc == EXIT_OK && strcmp(format, "text") && strcmp(format, "csv"))
        rc = usage_error("eval: --format must be text or csv, got '%s'", format);
    TemplateDB db;
    int have_db = 0;
    if (rc == EXIT_OK) {
        if (init_templates(&db, tdir))
            rc = EXIT_INPUT;
        else
            have_db = 1;
    }
    if (rc == EXIT_OK) {
        Run run = {0};
        run.row = calloc(1, sizeof *run.row);
        run.n = run.row ? 1 : 0;
        RunRow *rr = run.row;
        if (rr && scenario_build_kv(&db, "<command line>", kv, line, n, &rr->sc, &rr->src, &rr->diag)) {
            char msg[1200];
            if (rr->diag.line > 0 && rr->diag.line < argc && !strcmp(rr->diag.file, "<command line>"))
                fprintf(stderr, "deepflow eval: argument %d (%s): %s\n", rr->diag.line, argv[rr->diag.line],
                        rr->diag.msg);
            else if (!strcmp(rr->diag.file, "<command line>"))
                fprintf(stderr, "deepflow eval: %s\n", rr->diag.msg); /* the arguments as a whole */
            else {
                diag_format(&rr->diag, msg, sizeof msg);
                fprintf(stderr, "deepflow eval: %s\n", msg);
            }
            /* a fault in the arguments is a usage error; one in a template the row's failure */
            rc = !strcmp(rr->diag.file, "<command line>") ? EXIT_USAGE : EXIT_ROWS_FAILED;
        } else if (rr) {
            snprintf(rr->sc.name, sizeof rr->sc.name, "eval");
            snprintf(rr->sc.series, sizeof rr->sc.series, "%s", rr->sc.system.name);
            rr->built = 1;
            run.top_k = top_k;
            run_evaluate(&run, 1, NULL, NULL);
            print_warnings(&db, &run);
            if (!strcmp(format, "csv")) {
                rpt_summary_row(stdout, NULL);
                rpt_summary_row(stdout, rr);
            } else {
                print_eval(rr);
            }
            if (rr->r.status == STATUS_ERROR)
                rc = EXIT_ROWS_FAILED;
        }
        run_free(&run);
    }
    if (have_db)
        tdb_free(&db);
    free(kv);
    free(line);
    return rc;
}

/* ---- templates -------------------------------------------------------- */

static void print_param(const char *key, const ParamDef *def, const void *obj, void *ctx)
{
    (void)ctx;
    char value[512];
    if (def->type == P_SUB)
        snprintf(value, sizeof value, "%s", (const char *)obj + def->offset);
    else
        param_format(def, obj, value, sizeof value);
    printf("%-36s %s\n", key, value);
}

static int cmd_templates(int argc, char **argv)
{
    static const char *const kinds[] = {"devices",    "networks",    "systems",   "models",
                                        "technology", "convergence", "frameworks"};
    static const ParamTable *const tables[] = {
        &param_device_table,     &param_network_table,     &param_system_table,   &param_model_table,
        &param_technology_table, &param_convergence_table, &param_framework_table};
    TemplateDB db;
    if (init_templates(&db, NULL))
        return EXIT_INPUT;
    if (argc > 2) { /* one template, every parameter as the loader resolved it */
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            if (strcasecmp(argv[1], kinds[k]))
                continue;
            Diag d;
            diag_clear(&d);
            const Template *t = tdb_get(&db, tables[k], argv[2], NULL, &d);
            if (!t) {
                char msg[1200];
                diag_format(&d, msg, sizeof msg);
                fprintf(stderr, "deepflow templates: %s\n", msg);
                tdb_free(&db);
                return EXIT_INPUT;
            }
            printf("# %s (%s)\n", argv[2], t->path);
            /* a derive: device (or a system of one) as the model will see it */
            void *obj = malloc(tables[k]->struct_size);
            if (!obj) {
                tdb_free(&db);
                fprintf(stderr, "deepflow templates: out of memory\n");
                return EXIT_INPUT;
            }
            memcpy(obj, t->obj, tables[k]->struct_size);
            int rc = 0;
            if (tables[k] == &param_device_table && ((Device *)obj)->derive.name[0]) {
                rc = tech_resolve_device(t->obj, obj, NULL, NULL, &d);
                printf("# derived by the generator from derive: below; keys the file sets are kept\n");
            } else if (tables[k] == &param_system_table && ((System *)obj)->device.derive.name[0]) {
                rc = tech_resolve_system(obj, &d);
                printf(
                    "# device derived by the generator from device.derive; keys set explicitly are kept\n");
            }
            if (rc) {
                memcpy(obj, t->obj, tables[k]->struct_size);
                printf("# cannot derive: %s\n", d.msg);
            }
            param_walk(tables[k], obj, "", print_param, NULL);
            free(obj);
            tdb_free(&db);
            return EXIT_OK;
        }
    }
    int found = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (argc > 1 && strcasecmp(argv[1], kinds[k]))
            continue;
        found = 1;
        char **names;
        int n;
        if (tdb_list(&db, kinds[k], &names, &n) || n == 0)
            continue;
        printf("%s:\n", kinds[k]);
        for (int i = 0; i < n; i++) {
            printf("  %s\n", names[i]);
            free(names[i]);
        }
        free(names);
    }
    tdb_free(&db);
    if (!found)
        return usage_error("templates: unknown kind '%s' (devices, networks, systems, models, technology, "
                           "convergence, frameworks)",
                           argv[1]);
    return EXIT_OK;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        fputs("\n", stdout);
        fputs(help_text, stdout);
        print_columns();
        fputs(help_tail, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("deepflow %s\n", DF_VERSION);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "eval"))
        return cmd_eval(argc - 1, argv + 1);
    if (!strcmp(cmd, "templates"))
        return cmd_templates(argc - 1, argv + 1);
    return usage_error("unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    if (dist_init(&argc, &argv)) {
        fputs("deepflow: MPI could not start\n", stderr);
        return EXIT_USAGE;
    }
    int rc = dispatch(argc, argv);
    dist_finish();
    /* rank 0 speaks for the run, its status included: mpirun then reports
     * rank 0's status, not another rank's copy of it */
    return dist_rank() > 0 ? EXIT_OK : rc;
}
