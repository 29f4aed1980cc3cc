/* batch/run.c — table rows to scenarios (sweeps expanded, names made
 * unique), evaluation on a pool of threads (each with its own GEMM memo;
 * rows are handed out by an atomic counter, results land in their own
 * slot, so the output order is the input order whatever -j is), then the
 * per-series scaling efficiency. */
#include "run.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "batch/dist.h"
#include "batch/evaluate.h"
#include "core/text.h"
#include "core/units.h"
#include "io/sweep.h"

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    return strndup(path, (size_t)(slash - path) + (slash == path));
}

static RunRow *push_row(Run *run, int *cap)
{
    if (run->n == *cap) {
        int c = *cap ? *cap * 2 : 64;
        RunRow *v = realloc(run->row, sizeof *v * (size_t)c);
        if (!v)
            return NULL;
        run->row = v;
        *cap = c;
    }
    RunRow *r = &run->row[run->n++];
    memset(r, 0, sizeof *r);
    return r;
}

static void row_fail(RunRow *rr, const char *name)
{
    rr->built = 0;
    rr->r.status = STATUS_ERROR;
    text_copy(rr->sc.name, sizeof rr->sc.name, name);
    diag_format(&rr->diag, rr->r.error, sizeof rr->r.error);
}

/* Rows ordered by (a, b, devices, input order): groups of a series and
 * model, or of a name, are then contiguous, so the per-group passes below
 * cost n log n instead of n^2 string comparisons (sweeps reach 10^6 rows). */
typedef struct {
    const char *a, *b;
    int devices;
    int idx;
} Key;

static int key_cmp(const void *x, const void *y)
{
    const Key *p = x, *q = y;
    int c = strcmp(p->a, q->a);
    if (!c)
        c = strcmp(p->b, q->b);
    if (!c)
        c = (p->devices > q->devices) - (p->devices < q->devices);
    return c ? c : (p->idx > q->idx) - (p->idx < q->idx);
}

/* Keys (series, model, devices) of every row, sorted; NULL when out of memory. */
static Key *series_keys(const Run *run)
{
    Key *k = malloc(sizeof *k * (size_t)(run->n > 0 ? run->n : 1));
    if (!k)
        return NULL;
    for (int i = 0; i < run->n; i++)
        k[i] = (Key){run->row[i].sc.series, run->row[i].sc.model.name, run->row[i].sc.devices, i};
    qsort(k, (size_t)run->n, sizeof *k, key_cmp);
    return k;
}

/* Names are unique: a repeat is an error of the later row, which names the
 * first.  name_col[i]: column of row i's name cell (0 when none). */
static void unique_names(Run *run, const char *path, const int *name_col)
{
    Key *k = malloc(sizeof *k * (size_t)(run->n > 0 ? run->n : 1));
    if (!k)
        return;
    for (int i = 0; i < run->n; i++)
        k[i] = (Key){run->row[i].sc.name, "", 0, i};
    qsort(k, (size_t)run->n, sizeof *k, key_cmp);
    for (int i = 1, first = 0; i < run->n; i++) {
        if (strcmp(k[first].a, k[i].a)) {
            first = i; /* a new name: the first row that uses it */
            continue;
        }
        RunRow *rr = &run->row[k[i].idx];
        if (!rr->built)
            continue;
        char name[sizeof rr->sc.name];
        snprintf(name, sizeof name, "%s", rr->sc.name);
        diag_set(&rr->diag, path, rr->line, name_col[k[i].idx],
                 "column 'scenario': name '%s' is already used at line %d", name,
                 run->row[k[first].idx].line);
        scenario_source_free(&rr->src);
        row_fail(rr, name);
    }
    free(k);
}

/* Expand and build every row of t (nothing evaluated): 0, or -1 with d. */
static int build_rows(TemplateDB *db, const Table *t, int top_k, Run *run, Diag *d)
{
    memset(run, 0, sizeof *run);
    run->top_k = top_k < 0 ? 0 : top_k > RUN_MAX_TOP ? RUN_MAX_TOP : top_k;
    /* count first: the limit is said up front, and every row is allocated
     * before any is built, so none can go missing later */
    long total = 0;
    int over_at = 0;
    for (int i = 0; i < t->nrow; i++) {
        total += sweep_count_row(t, &t->row[i]);
        if (!over_at && total > RUN_MAX_SCENARIOS)
            over_at = t->row[i].line;
    }
    if (over_at)
        return diag_set(
            d, t->path, over_at, 0,
            "the table gives %ld scenarios (its sweeps together), more than %d (the limit reached at "
            "this row): narrow the sweeps or split the table",
            total, RUN_MAX_SCENARIOS);
    int cap = (int)(total > 0 ? total : 1);
    run->row = calloc((size_t)cap, sizeof *run->row);
    if (!run->row)
        return diag_set(d, t->path, 0, 0, "out of memory for the table's %ld scenarios (%.1f GiB)", total,
                        (double)total * (double)sizeof *run->row / GIB_BYTES);
    char *reldir = dir_of(t->path);
    if (!reldir) {
        run_free(run);
        return diag_set(d, t->path, 0, 0, "out of memory");
    }
    int c_name = table_col(t, "scenario"), c_series = table_col(t, "series");
    Setting *set = calloc((size_t)(t->ncol > 0 ? t->ncol : 1), sizeof *set);
    if (!set) {
        free(reldir);
        run_free(run);
        return diag_set(d, t->path, 0, 0, "out of memory");
    }
    int short_of = 0; /* the line of a row that found no room: never dropped silently */
    for (int i = 0; i < t->nrow && !short_of; i++) {
        const TableRow *tr = &t->row[i];
        char base[128];
        if (c_name >= 0 && tr->cell[c_name].text[0])
            snprintf(base, sizeof base, "%s", tr->cell[c_name].text);
        else
            snprintf(base, sizeof base, "row %d", i + 1);
        SweepRow *sw = NULL;
        int nsw = 0;
        Diag ed;
        diag_clear(&ed);
        if (sweep_expand_row(t, tr, &sw, &nsw, &ed)) {
            RunRow *rr = push_row(run, &cap);
            if (!rr) {
                short_of = tr->line;
                break;
            }
            rr->line = tr->line;
            rr->diag = ed;
            row_fail(rr, base);
            continue;
        }
        for (int e = 0; e < nsw; e++) {
            RunRow *rr = push_row(run, &cap);
            if (!rr) {
                short_of = tr->line;
                break;
            }
            rr->line = tr->line;
            for (int c = 0; c < t->ncol; c++) {
                set[c].name = t->col_name[c];
                set[c].text = sw[e].val[c];
                set[c].line = tr->cell[c].line;
                set[c].col = tr->cell[c].col;
                set[c].hline = t->header_line;
                set[c].hcol = t->col_col[c];
            }
            char name[sizeof base + SWEEP_SUFFIX_MAX + 4];
            if (sw[e].suffix[0])
                snprintf(name, sizeof name, "%s [%s]", base, sw[e].suffix);
            else
                snprintf(name, sizeof name, "%s", base);
            diag_clear(&rr->diag);
            /* echoed everywhere: control and bidi characters as visible escapes */
            char shown[sizeof name * 8];
            text_escape(name, shown, sizeof shown);
            text_copy(name, sizeof name, shown);
            if (strlen(shown) >= sizeof rr->sc.name) {
                /* cut, two scenarios of one sweep would share a name */
                diag_set(
                    &rr->diag, t->path, tr->line, c_name >= 0 ? tr->cell[c_name].col : 0,
                    "scenario name with its sweep values ('%s') is %zu bytes, more than %zu: shorten the "
                    "name in column 'scenario'",
                    shown, strlen(shown), sizeof rr->sc.name - 1);
                row_fail(rr, name);
                continue;
            }
            if (scenario_build(db, t->path, reldir, set, t->ncol, tr->line, &rr->sc, &rr->src, &rr->diag)) {
                /* one of a sweep's scenarios: say which */
                if (sw[e].suffix[0] && !strcmp(rr->diag.file, t->path) && !strstr(rr->diag.msg, name)) {
                    char msg[DIAG_MSG_MAX + 600];
                    snprintf(msg, sizeof msg, "scenario '%s': %s", name, rr->diag.msg);
                    text_copy(rr->diag.msg, sizeof rr->diag.msg, msg);
                }
                scenario_source_free(&rr->src);
                row_fail(rr, name);
                continue;
            }
            text_copy(rr->sc.name, sizeof rr->sc.name, name); /* fits: checked above */
            if (c_series < 0 || !sw[e].val[c_series][0])
                snprintf(rr->sc.series, sizeof rr->sc.series, "%s", rr->sc.system.name);
            rr->built = 1;
        }
        free(sw);
    }
    free(set);
    free(reldir);
    if (short_of) {
        run_free(run);
        return diag_set(d, t->path, short_of, 0, "out of memory for the scenarios of this row");
    }
    /* the name cell's column of each row: rows follow the table's order */
    int *name_col = calloc((size_t)(run->n > 0 ? run->n : 1), sizeof *name_col);
    if (name_col) {
        for (int i = 0, j = 0; i < run->n; i++) {
            while (j < t->nrow && t->row[j].line != run->row[i].line)
                j++;
            name_col[i] = c_name >= 0 && j < t->nrow ? t->row[j].cell[c_name].col : 0;
        }
        unique_names(run, t->path, name_col);
        free(name_col);
    }
    return 0;
}

static void evaluate_rows(Run *run, int threads, RunProgress progress, void *ctx);
static void tally(Run *run);

int run_table(TemplateDB *db, const Table *t, int threads, int top_k, RunProgress progress, void *ctx,
              Run *run, Diag *d)
{
    int rc = build_rows(db, t, top_k, run, d);
    /* the ranks of an MPI run go on together or not at all */
    if (!dist_all_ok(rc == 0)) {
        if (rc == 0) {
            run_free(run);
            return diag_set(d, t->path, 0, 0,
                            "another rank of this MPI run could not build the table's rows");
        }
        return rc;
    }
    evaluate_rows(run, threads, progress, ctx);
    return 0;
}

/* Rows [next, end) handed out one at a time to a pool of threads. */
typedef struct {
    Run *run;
    atomic_int next;
    atomic_int done;
    int end;
} Pool;

static void evaluate_row(Run *run, GemmCache *cache, int i)
{
    RunRow *rr = &run->row[i];
    if (!rr->built)
        return;
    SearchTop top = {NULL, 0, 0};
    if (run->top_k > 0 && search_needed(&rr->sc) && (top.c = calloc((size_t)run->top_k, sizeof *top.c)))
        top.k = run->top_k;
    if (evaluate_top(&rr->sc, cache, &rr->r, top.c ? &top : NULL))
        diag_set(&rr->diag, "", 0, 0, "%s", rr->r.error);
    if (top.n > 0) {
        rr->top = top.c;
        rr->ntop = top.n;
    } else {
        free(top.c);
    }
}

static void *worker(void *arg)
{
    Pool *p = arg;
    GemmCache *cache = malloc(sizeof *cache);
    if (cache)
        gemm_cache_init(cache);
    for (;;) {
        int i = atomic_fetch_add(&p->next, 1);
        if (i >= p->end)
            break;
        evaluate_row(p->run, cache, i);
        atomic_fetch_add(&p->done, 1);
    }
    free(cache);
    return NULL;
}

/* Scaling efficiency against the smallest device count of the series (and
 * model): (T0 N0) / (T N) on time-to-train when known, else per-device
 * throughput.  The reference is the first ok row of the group in (devices,
 * input) order. */
static void scaling_efficiency(Run *run, const Key *k)
{
    for (int g = 0; g < run->n;) {
        int end = g + 1;
        while (end < run->n && !strcmp(k[end].a, k[g].a) && !strcmp(k[end].b, k[g].b))
            end++;
        const RunRow *ref = NULL;
        for (int i = g; i < end && !ref; i++) {
            const RunRow *b = &run->row[k[i].idx];
            if (b->built && b->r.status == STATUS_OK)
                ref = b;
        }
        for (int i = g; ref && i < end; i++) {
            RunRow *a = &run->row[k[i].idx];
            if (!a->built || a->r.status == STATUS_ERROR)
                continue;
            double na = a->sc.devices, n0 = ref->sc.devices;
            if (isfinite(a->r.time_to_train_s) && isfinite(ref->r.time_to_train_s))
                a->r.scaling_efficiency = (ref->r.time_to_train_s * n0) / (a->r.time_to_train_s * na);
            else
                a->r.scaling_efficiency = (a->r.samples_per_s / na) / (ref->r.samples_per_s / n0);
        }
        g = end;
    }
}

/* Speedup over the row's baseline series: the first ok row of that series
 * with the same model and device count, time-to-train over time-to-train
 * (else throughput over throughput). */
static void speedups(Run *run, const Key *k)
{
    for (int i = 0; i < run->n; i++) {
        RunRow *a = &run->row[i];
        a->r.speedup = NAN;
        a->r.speedup_bcrit_half = a->r.speedup_bcrit_double = NAN;
        if (!a->built || a->r.status != STATUS_OK || !a->sc.baseline[0])
            continue;
        /* the first key not below (baseline, model, devices) */
        const Key want = {a->sc.baseline, a->sc.model.name, a->sc.devices, -1};
        int lo = 0, hi = run->n;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (key_cmp(&k[mid], &want) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < run->n && !strcmp(k[lo].a, want.a) && !strcmp(k[lo].b, want.b) &&
               k[lo].devices == want.devices;
             lo++) {
            const RunRow *b = &run->row[k[lo].idx];
            if (!b->built || b->r.status != STATUS_OK)
                continue;
            if (isfinite(a->r.time_to_train_s) && isfinite(b->r.time_to_train_s)) {
                a->r.speedup = b->r.time_to_train_s / a->r.time_to_train_s;
                a->r.speedup_bcrit_half = b->r.ttt_bcrit_half_s / a->r.ttt_bcrit_half_s;
                a->r.speedup_bcrit_double = b->r.ttt_bcrit_double_s / a->r.ttt_bcrit_double_s;
            } else
                a->r.speedup = a->r.samples_per_s / b->r.samples_per_s;
            break;
        }
    }
}

/* Start up to threads pool threads (0 started: the caller works alone). */
static int pool_start(Pool *p, int threads, pthread_t **tid)
{
    int rows = p->end - atomic_load(&p->next);
    if (threads < 1)
        threads = 1;
    if (threads > rows)
        threads = rows > 0 ? rows : 1;
    *tid = calloc((size_t)threads, sizeof **tid);
    int started = 0;
    for (int i = 0; *tid && i < threads; i++)
        if (pthread_create(&(*tid)[i], NULL, worker, p) == 0)
            started++;
    return started;
}

static void pool_join(pthread_t *tid, int started)
{
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    free(tid);
}

/* Rows [a, b) on this process's threads. */
static void pool_range(Run *run, int a, int b, int threads, RunProgress progress, void *ctx)
{
    Pool p = {run, a, 0, b};
    pthread_t *tid;
    int started = pool_start(&p, threads, &tid);
    if (started == 0) {
        worker(&p);
    } else if (progress) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        while (atomic_load(&p.done) < b - a) {
            progress(atomic_load(&p.done), b - a, ctx);
            nanosleep(&ts, NULL);
        }
    }
    pool_join(tid, started);
    if (progress)
        progress(b - a, b - a, ctx);
}

/* ---- across MPI ranks: the rows' results travel as bytes ---------------
 * a row: [int evaluation failed][int runners-up][Result][Candidate x n].
 * Every rank runs the same binary on the same rows. */

typedef struct {
    Run *run;
    int threads;
} Shared;

static size_t row_pack(void *ctx, int i, unsigned char *buf, size_t cap)
{
    const RunRow *rr = &((Shared *)ctx)->run->row[i];
    int head[2] = {rr->built && rr->diag.msg[0], rr->ntop};
    size_t need = sizeof head + sizeof rr->r + (size_t)rr->ntop * sizeof *rr->top;
    if (need > cap)
        return 0;
    memcpy(buf, head, sizeof head);
    memcpy(buf + sizeof head, &rr->r, sizeof rr->r);
    if (rr->ntop)
        memcpy(buf + sizeof head + sizeof rr->r, rr->top, (size_t)rr->ntop * sizeof *rr->top);
    return need;
}

static size_t row_unpack(void *ctx, int i, const unsigned char *buf, size_t len)
{
    Run *run = ((Shared *)ctx)->run;
    RunRow *rr = &run->row[i];
    int head[2];
    if (len < sizeof head + sizeof rr->r)
        return 0;
    memcpy(head, buf, sizeof head);
    if (head[1] < 0 || head[1] > run->top_k)
        return 0;
    size_t need = sizeof head + sizeof rr->r + (size_t)head[1] * sizeof *rr->top;
    if (need > len)
        return 0;
    if (!rr->built) /* nothing was evaluated: the row keeps its own diagnostic */
        return need;
    memcpy(&rr->r, buf + sizeof head, sizeof rr->r);
    if (head[0])
        diag_set(&rr->diag, "", 0, 0, "%s", rr->r.error);
    if (head[1] > 0 && (rr->top = malloc((size_t)head[1] * sizeof *rr->top))) {
        memcpy(rr->top, buf + sizeof head + sizeof rr->r, (size_t)head[1] * sizeof *rr->top);
        rr->ntop = head[1];
    }
    return need;
}

static void row_range(void *ctx, int a, int b)
{
    Shared *s = ctx;
    pool_range(s->run, a, b, s->threads, NULL, NULL);
}

/* Every row, on this process's threads and, in an MPI run, on the other
 * ranks' (rank 0 gathers every result; the others keep only their own). */
static void evaluate_rows(Run *run, int threads, RunProgress progress, void *ctx)
{
    if (dist_size() < 2) {
        run_evaluate(run, threads, progress, ctx);
        return;
    }
    Shared s = {run, threads};
    Pool p = {run, 0, 0, run->n};
    DistJob job = {run->n,     2 * sizeof(int) + sizeof(Result) + (size_t)run->top_k * sizeof(Candidate),
                   &s,         row_pack,
                   row_unpack, row_range,
                   &p.next,    &p.done,
                   progress,   ctx};
    pthread_t *tid = NULL;
    int started = dist_rank() == 0 ? pool_start(&p, threads, &tid) : 0;
    char err[300];
    dist_share(&job, err, sizeof err); /* a failed rank ends the job there */
    pool_join(tid, started);
    tally(run);
}

void run_evaluate(Run *run, int threads, RunProgress progress, void *ctx)
{
    pool_range(run, 0, run->n, threads, progress, ctx);
    tally(run);
}

/* Counts by outcome, then the per-series figures that need every row. */
static void tally(Run *run)
{
    run->n_ok = run->n_oom = run->n_error = 0;
    for (int i = 0; i < run->n; i++) {
        RunRow *rr = &run->row[i];
        if (!rr->built || rr->r.status == STATUS_ERROR)
            run->n_error++;
        else if (rr->r.status == STATUS_OOM)
            run->n_oom++;
        else
            run->n_ok++;
    }
    Key *k = series_keys(run);
    if (k) {
        scaling_efficiency(run, k);
        speedups(run, k);
        free(k);
    }
}

void run_free(Run *run)
{
    for (int i = 0; i < run->n; i++) {
        scenario_source_free(&run->row[i].src);
        free(run->row[i].top);
    }
    free(run->row);
    memset(run, 0, sizeof *run);
}

int run_error_col(const RunRow *rr)
{
    char key[64];
    snprintf(key, sizeof key, "%s", rr->r.error_key);
    while (key[0]) {
        const Prov *p = prov_find(&rr->src.over, key);
        if (p)
            return p->col;
        char *dot = strrchr(key, '.');
        if (!dot)
            break;
        *dot = '\0';
    }
    return 0;
}
