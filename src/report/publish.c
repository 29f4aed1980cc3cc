/* report/publish.c — the report as one unit: every format asked for
 * written into a staging folder beside the output folder and moved into
 * place together (io/atomic.h), what failed said on stderr, and the
 * closing paragraph on stdout (the scenarios' counts, the fastest, the
 * recommendation, the baselines' crossovers, the co-design's gains and
 * where the report is). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strategy.h"
#include "io/atomic.h"
#include "io/folder.h"
#include "report/report.h"

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

/* What the report has written so far, for the closing paragraph. */
typedef struct {
    char s[2048];
    size_t n;
} Written;

static void written_add(Written *w, const char *what)
{
    if (w->n < sizeof w->s)
        w->n += (size_t)snprintf(w->s + w->n, sizeof w->s - w->n, "%s%s", w->n ? ", " : "", what);
    if (w->n >= sizeof w->s)
        w->n = sizeof w->s - 1;
}

static int csv_summary(const ReportInput *in, const char *path, char *err, size_t n)
{
    return rpt_summary_csv(in->run, path, err, n);
}

static int csv_breakdown(const ReportInput *in, const char *path, char *err, size_t n)
{
    return rpt_breakdown_csv(in->run, path, err, n);
}

static int csv_runners(const ReportInput *in, const char *path, char *err, size_t n)
{
    return rpt_runners_up_csv(in->run, path, err, n);
}

static int csv_sensitivity(const ReportInput *in, const char *path, char *err, size_t n)
{
    return rpt_sensitivity_csv(in->run, in->sens, path, err, n);
}

static int csv_design(const ReportInput *in, const char *path, char *err, size_t n)
{
    return rpt_design_csv(in->run, path, err, n);
}

static int always(const ReportInput *in)
{
    (void)in;
    return 1;
}

static int has_top(const ReportInput *in)
{
    return in->run->top_k > 0;
}

static int csv_front(const ReportInput *in, const char *path, char *err, size_t n)
{
    return rpt_clock_front_csv(in->run, in->sens, path, err, n);
}

static int has_front(const ReportInput *in)
{
    return rpt_fronts(in->sens) > 0;
}

static int has_sens(const ReportInput *in)
{
    return in->sens != NULL;
}

static int has_design(const ReportInput *in)
{
    return run_designed(in->run);
}

/* The report's CSVs: each written when the study has it (by its writer, or
 * moved from a streamed run's folder when it streams); without it, the
 * new report has none (an earlier run's, listed in its manifest, is not
 * carried over). */
typedef struct {
    const char *file;
    int (*wanted)(const ReportInput *in);
    int streams; /* a streamed run wrote it as the rows passed */
    int (*write)(const ReportInput *in, const char *path, char *err, size_t n);
} CsvOut;

static const CsvOut csvs[] = {
    {"summary.csv", always, 1, csv_summary},           {"breakdown.csv", always, 1, csv_breakdown},
    {"runners_up.csv", has_top, 1, csv_runners},       /* --top */
    {"sensitivity.csv", has_sens, 0, csv_sensitivity}, /* which knob matters */
    {"clock_front.csv", has_front, 0, csv_front},      /* run slower, save more */
    {"design.csv", has_design, 1, csv_design},         /* the co-design's changes */
};

/* One CSV into the staging folder: 0, or 1 when it failed (said on
 * stderr). */
static int publish_csv(const ReportInput *in, const CsvOut *c, const char *stage, Written *w)
{
    char path[1400], err[1600];
    snprintf(path, sizeof path, "%s/%s", stage, c->file);
    if (!c->wanted(in))
        return 0;
    if (in->streamed && c->streams ? move_streamed(in->streamed, c->file, path, err, sizeof err)
                                   : c->write(in, path, err, sizeof err)) {
        fprintf(stderr, "deepflow: cannot write %s\n", err);
        return 1;
    }
    written_add(w, c->file);
    return 0;
}

/* The charts into the staging folder (stage/charts; they end up in
 * charts_final): 0, or 1 when some failed (said on stderr). */
static int publish_charts(const ReportInput *in, const char *stage, const char *charts_final,
                          unsigned formats, Written *w)
{
    char path[1400], err[1600];
    int failed = 0;
    RptChartsDone cd;
    snprintf(path, sizeof path, "%s/charts", stage);
    if (rpt_charts_write(in, path, formats, &cd, err, sizeof err)) {
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
    if (cd.charts) {
        char what[160];
        snprintf(what, sizeof what, "charts/ (%d chart%s as .dat and .gp%s)", cd.charts,
                 cd.charts == 1 ? "" : "s", how);
        written_add(w, what);
    }
    return failed;
}

/* The closing paragraph on stdout: the scenarios' counts, the fastest, the
 * recommendation, the baselines' crossovers, the co-design's gains, where
 * the report is and what failed. */
static void closing(const ReportInput *in, const char *dir, unsigned formats, const Written *w, int failed)
{
    const Run *run = in->run;
    int best = -1;
    for (int i = 0; i < run->n; i++) {
        const RunRow *rr = &run->row[i];
        if (rr->built && rr->r.status == STATUS_OK && (best < 0 || rpt_better(rr, i, &run->row[best], best)))
            best = i;
    }
    printf("%s: %d scenario%s: %d ok, %d out of memory, %d failed.", in->table->path, run_total(run),
           run_total(run) == 1 ? "" : "s", run->n_ok, run->n_oom, run->n_error);
    /* with times to train, the recommendation names each model's fastest */
    if (best >= 0 && !isfinite(run->row[best].r.time_to_train_s)) {
        const RunRow *b = &run->row[best];
        printf(" Fastest: '%s' (series %s) runs %.4g samples/s on %d device%s.", b->sc.name, b->sc.series,
               b->r.samples_per_s, b->sc.devices, b->sc.devices == 1 ? "" : "s");
    }
    {
        char rec[RPT_ANSWER_MAX];
        if (rpt_recommend(run, rec, sizeof rec) >= 0 || run->n_ok > 0) {
            for (char *c = strchr(rec, '\n'); c; c = strchr(c, '\n'))
                *c = ' '; /* one paragraph */
            printf(" %s", rec);
        }
    }
    RptBaseline cmp[64];
    int ncmp = rpt_baselines(run, cmp, 64);
    for (int k = 0; k < ncmp; k++) {
        char bvb[RPT_BVB_MAX];
        rpt_fmt_bvb(&cmp[k], bvb, sizeof bvb);
        if (cmp[k].crossover)
            printf(" %s beats %s from %d devices on (best %.2fx at %d%s).", cmp[k].series, cmp[k].baseline,
                   cmp[k].crossover, cmp[k].best, cmp[k].best_devices, bvb);
        else
            printf(" %s never beats %s for good (best %.2fx at %d%s).", cmp[k].series, cmp[k].baseline,
                   cmp[k].best, cmp[k].best_devices, bvb);
    }
    { /* what the swept values change; co-design: what the split search gained, per series (its best row) */
        RptSeriesSet set;
        int own;
        if (rpt_series_of(in, &set, &own) == 0) {
            char *sweeps = malloc(RPT_SWEEPS_TEXT_MAX);
            if (sweeps && rpt_sweep_effects(run, &set, sweeps, RPT_SWEEPS_TEXT_MAX) > 0) {
                for (char *c = strchr(sweeps, '\n'); c; c = strchr(c, '\n'))
                    *c = ' '; /* one paragraph */
                printf(" %s", sweeps);
            }
            free(sweeps);
            RptClaim *claims = calloc(RPT_CLAIMS_MAX, sizeof *claims);
            char *line = malloc(RPT_CLAIM_TEXT_MAX);
            const int nclaim = claims && line ? rpt_claims(run, &set, in->table, claims, RPT_CLAIMS_MAX) : 0;
            for (int k = 0; k < nclaim; k++) {
                rpt_fmt_claim(&claims[k], in->table->path, line, RPT_CLAIM_TEXT_MAX);
                if (claims[k].holds >= 0)
                    printf(" %s", line);
                else
                    fprintf(stderr, "deepflow: %s\n", line);
            }
            if (in->table->claims_more)
                fprintf(stderr, "deepflow: %s: more than %d claims: the first %d are checked\n",
                        in->table->path, TABLE_CLAIMS_MAX, TABLE_CLAIMS_MAX);
            free(line);
            free(claims);
            for (int i = 0; i < set.n; i++) {
                if (set.s[i].best < 0)
                    continue;
                const Result *r = &run->row[set.s[i].best].r;
                if (r->design_evals <= 0)
                    continue;
                printf(" Co-design: %s is %.2fx faster than its template's split (%d design points).",
                       set.s[i].name, r->design_start_s / merit_time(merit_of(r)), r->design_evals);
            }
            if (own)
                rpt_series_free(&set);
        }
    }
    if (w->n)
        printf(" Report in %s/: %s.", dir, w->s);
    if (failed)
        printf(" Some of the report could not be written (see the messages above).");
    if (run->n_error)
        printf(" The failed rows are listed above%s.",
               (formats & RPT_XLSX) ? " and in the workbook's Errors sheet" : "");
    printf("\n");
}

int rpt_publish(const ReportInput *in, const char *dir, unsigned formats)
{
    char path[1400], err[1600];
    Written w = {"", 0};
    int failed = 0;
    const int swept = folder_sweep(dir);
    if (swept)
        fprintf(stderr,
                "deepflow: note: removed %d unfinished report%s beside %s that an interrupted run left\n",
                swept, swept == 1 ? "" : "s", dir);
    /* the report is one unit: written whole into a staging folder beside
     * dir, then put in dir's place in one step (io/folder.h) */
    char stage[1200], charts_final[1400];
    if (folder_stage_open(dir, stage, sizeof stage)) {
        fprintf(stderr, "deepflow: cannot create a staging folder beside %s: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(charts_final, sizeof charts_final, "%s/charts", dir);
    if (formats & RPT_XLSX) {
        snprintf(path, sizeof path, "%s/%s.xlsx", stage, in->name);
        if (rpt_xlsx_write(in, path, err, sizeof err)) {
            fprintf(stderr, "deepflow: cannot write %s\n", err);
            failed = 1;
        } else {
            snprintf(path, sizeof path, "%s.xlsx", in->name);
            written_add(&w, path);
        }
    }
    if (formats & RPT_CSV)
        for (size_t i = 0; i < sizeof csvs / sizeof csvs[0]; i++)
            failed |= publish_csv(in, &csvs[i], stage, &w);
    if (formats & (RPT_PNG | RPT_SVG))
        failed |= publish_charts(in, stage, charts_final, formats, &w);
    FolderNote note;
    memset(&note, 0, sizeof note);
    const int pub = failed ? -1 : folder_publish(stage, dir, in->force, &note);
    if (pub) {
        folder_stage_abort(stage);
        if (pub > 0 || note.why[0])
            fprintf(stderr, "deepflow: %s\n", note.why);
        fprintf(stderr, "deepflow: nothing of the new report was published: %s is as it was\n", dir);
        failed = 1;
        w.n = 0;
        w.s[0] = '\0';
    } else {
        if (note.kept)
            fprintf(stderr, "deepflow: note: kept %d file%s in %s that deepflow did not write: %s\n",
                    note.kept, note.kept == 1 ? "" : "s", dir, note.names);
        if (note.replaced)
            fprintf(stderr,
                    "deepflow: note: --force: replaced %d file%s in %s that deepflow did not write: %s\n",
                    note.replaced, note.replaced == 1 ? "" : "s", dir, note.replaced_names);
    }
    closing(in, dir, formats, &w, failed);
    return failed ? -1 : 0;
}
