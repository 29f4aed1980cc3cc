/* report/study.c — a study from its table to its report: every row
 * evaluated (streamed when the study is larger than the workbook lists one
 * by one), the failed rows and warnings printed, the sensitivity worked out
 * and the report published.  The command line (main.c) only parses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/dist.h"
#include "io/folder.h"
#include "report/report.h"

int rpt_study(const Study *s)
{
    /* a study of more than a few windows of rows is streamed: its rows
     * pass, its CSVs are written as they do, only the rows the report
     * needs are kept, and, where the workbook lists every row, what its
     * per-scenario sheets show of each is kept in a file (DEEPFLOW_DETAIL_MAX
     * lowers the size the workbook lists, DEEPFLOW_STREAM streams any study
     * and DEEPFLOW_NO_STREAM holds every row, for tests) */
    const char *dm = getenv("DEEPFLOW_DETAIL_MAX");
    const long dml = dm ? strtol(dm, NULL, 10) : 0;
    const int detail_max = dml > 0 && dml <= RPT_DETAIL_MAX ? (int)dml : 0;
    long held_max = detail_max > 0 ? detail_max : RPT_DETAIL_MAX;
    if (held_max > RPT_STREAM_MIN)
        held_max = RPT_STREAM_MIN;
    const int streamed =
        (run_count(s->table) > held_max || getenv("DEEPFLOW_STREAM")) && !getenv("DEEPFLOW_NO_STREAM");
    /* one writer at a time: the folder's lock, held to the end (rank 0
     * writes the report) */
    int lock = -1;
    if (dist_rank() == 0) {
        const int held = folder_lock(s->dir, !s->no_wait, &lock);
        if (held) {
            if (held > 0)
                fprintf(stderr, "deepflow: another run is writing %s (--no-wait): nothing was run\n", s->dir);
            else
                fprintf(stderr, "deepflow: cannot %s %s: %s\n", held == -1 ? "create" : "lock", s->dir,
                        strerror(errno));
            return STUDY_OUTPUT;
        }
    }
    Run run;
    Diag rd;
    diag_clear(&rd);
    char sdir[1200] = "";
    RptSpool spool = {NULL, 0, 0};
    const int got =
        streamed ? rpt_stream_table(s->db, s->table, s->jobs, s->top_k, s->progress, s->progress_ctx, s->dir,
                                    s->formats, detail_max, &run, sdir, sizeof sdir, &spool, &rd)
                 : run_table(s->db, s->table, s->jobs, s->top_k, s->progress, s->progress_ctx, &run, &rd);
    if (got) {
        char msg[1200];
        diag_format(&rd, msg, sizeof msg);
        fprintf(stderr, "deepflow: %s (no report written)\n", msg);
        if (sdir[0])
            folder_stage_abort(sdir);
        if (lock >= 0)
            close(lock);
        return got == 2 ? STUDY_OUTPUT : STUDY_INPUT;
    }
    if (dist_rank() > 0) { /* rank 0 has every result and writes the report */
        run_free(&run);
        return STUDY_OK;
    }
    rpt_print_warnings(s->db, &run);
    rpt_print_row_errors(&run, s->input);

    int rc = run.n_error ? STUDY_ROWS_FAILED : STUDY_OK;
    RptTornados sens;
    const int have_sens = rpt_sensitivity(&run, &sens) == 0;
    RptSeriesSet set; /* the series and their bests, once for every writer */
    const int have_set = rpt_series_build(&run, &set) == 0;
    ReportInput rin = {.run = &run,
                       .set = have_set ? &set : NULL,
                       .table = s->table,
                       .db = s->db,
                       .name = s->name,
                       .command = s->command,
                       .created = s->created,
                       .sens = have_sens ? &sens : NULL,
                       .resolve = s->resolve,
                       .detail_max = detail_max,
                       .streamed = sdir[0] ? sdir : NULL,
                       .detail = spool,
                       .force = s->force};
    if (rpt_publish(&rin, s->dir, s->formats) != 0)
        rc = STUDY_OUTPUT;
    if (sdir[0])
        folder_stage_abort(sdir); /* what was not moved into the report (an unused design.csv) */
    if (lock >= 0)
        close(lock);
    if (have_set)
        rpt_series_free(&set);
    if (spool.f)
        fclose(spool.f);
    run_free(&run);
    return rc;
}
