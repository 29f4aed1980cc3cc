/* report/stream.c — a study too large to hold (batch/run.h run_stream):
 * its CSVs written as the rows pass, into a staging folder of their own,
 * and only the rows the report needs kept (report/keep.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/dist.h"
#include "io/atomic.h"
#include "io/folder.h"
#include "report/report.h"

/* A streamed run's CSVs as the rows pass, and the rows its report keeps. */
static const char *const stream_files[4] = {"summary.csv", "breakdown.csv", "runners_up.csv", "design.csv"};
static const RptRowWriter stream_writers[4] = {rpt_summary_row, rpt_breakdown_row, rpt_runners_row,
                                               rpt_design_row};
typedef struct {
    FILE *f[4];   /* as stream_files; NULL: not written */
    char *buf[4]; /* their buffers (file_write_buffer; NULL: stdio's own) */
    RptKeep *keep;
    RptSpool spool; /* every row's RptDetail (the workbook lists them all); f NULL: none */
    RptDetail *det; /* ... the row's, made there */
    int spool_bad;
} StreamOut;

static void stream_row(void *ctx, const RunRow *rr, int index)
{
    StreamOut *o = ctx;
    for (int i = 0; i < 4; i++)
        if (o->f[i])
            stream_writers[i](o->f[i], rr);
    rpt_keep_add(o->keep, rr, index);
    if (o->spool.f && !o->spool_bad) {
        if (rpt_detail_of(rr, o->det) || rpt_detail_write(o->spool.f, o->det)) {
            o->spool_bad = errno ? errno : ENOMEM;
        } else {
            o->spool.n++;
            o->spool.evaluated += o->det->evaluated;
        }
    }
}

int rpt_stream_table(TemplateDB *db, const Table *t, int jobs, int top_k, RunProgress progress, void *pctx,
                     const char *dir, unsigned formats, int detail_max, Run *run, char *sdir, size_t sn,
                     RptSpool *spool, Diag *d)
{
    StreamOut o = {{NULL, NULL, NULL, NULL}, {NULL, NULL, NULL, NULL}, NULL, {NULL, 0, 0}, NULL, 0};
    *spool = (RptSpool){NULL, 0, 0};
    memset(run, 0, sizeof *run);
    long total;
    if (run_count_checked(t, &total, d)) /* before any folder is made */
        return 1;
    const int rank0 = dist_rank() == 0;
    int ok = 1;
    if (rank0 && (formats & RPT_CSV)) {
        if (folder_stage_open(dir, sdir, sn)) {
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
                o.buf[i] = file_write_buffer(o.f[i]); /* a buffer at a time, not a write a row */
                stream_writers[i](o.f[i], NULL);
            }
        }
    }
    errno = 0;
    if (rank0 && ok && !(o.keep = rpt_keep_new(t->path, detail_max))) {
        diag_set(d, t->path, 0, 0, "cannot start the report's scratch: %s (scratch files go in %s: TMPDIR)",
                 strerror(errno ? errno : ENOMEM), scratch_dir());
        ok = 0;
    }
    /* a workbook that lists every row: their cells kept in a file */
    if (rank0 && ok && (formats & RPT_XLSX) && total <= (detail_max > 0 ? detail_max : RPT_DETAIL_MAX)) {
        o.det = calloc(1, sizeof *o.det);
        o.spool.f = o.det ? scratch_file() : NULL;
        if (!o.spool.f) {
            diag_set(d, t->path, 0, 0,
                     "no scratch file for the workbook's rows: %s (scratch files go in %s: TMPDIR)",
                     strerror(o.det ? errno : ENOMEM), scratch_dir());
            ok = 0;
        }
    }
    int rc = 0;
    if (!dist_all_ok(ok)) { /* every rank stops here, or none */
        if (ok)
            diag_set(d, t->path, 0, 0, "rank 0 of this MPI run could not start the run");
        rc = 2;
    }
    RunStats st;
    if (!rc && run_stream(db, t, jobs, top_k, progress, pctx, stream_row, &o, &st, d))
        rc = 1;
    for (int i = 0; i < 4; i++)
        if (o.f[i] && (ferror(o.f[i]) | fclose(o.f[i])) && !rc) {
            diag_set(d, dir, 0, 0, "cannot write %s: %s", stream_files[i], strerror(errno));
            rc = 2;
        }
    for (int i = 0; i < 4; i++)
        free(o.buf[i]); /* after their streams are closed */
    if (!rc && rank0 && rpt_keep_finish(o.keep, &st, run)) {
        diag_set(d, t->path, 0, 0, "out of memory for the rows the report keeps");
        rc = 1;
    }
    if (!rc && o.spool.f && (o.spool_bad || fflush(o.spool.f))) {
        diag_set(d, dir, 0, 0, "cannot keep the workbook's rows in a temporary file: %s",
                 strerror(o.spool_bad ? o.spool_bad : errno));
        rc = 2;
    }
    rpt_keep_free(o.keep);
    if (o.det)
        rpt_detail_free(o.det);
    free(o.det);
    if (!rc)
        *spool = o.spool;
    else if (o.spool.f)
        fclose(o.spool.f);
    return rc;
}
