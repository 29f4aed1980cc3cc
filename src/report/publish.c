/* report/publish.c — the report as one unit: every format asked for
 * written into a staging folder beside the output folder and moved into
 * place together (io/atomic.h), what failed said on stderr, and the
 * closing paragraph on stdout (the scenarios' counts, the fastest, the
 * recommendation, the baselines' crossovers, the co-design's gains and
 * where the report is). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/strategy.h"
#include "io/atomic.h"
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

int rpt_publish(const ReportInput *in, const char *dir, unsigned formats)
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
