/* batch/run.c — table rows to scenarios (sweeps expanded, names made
 * unique), evaluation on a pool of threads (each with its own GEMM memo;
 * rows are handed out by an atomic counter, results land in their own
 * slot, so the output order is the input order whatever -j is), then the
 * per-series scaling efficiency. */
#include "run.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "batch/dist.h"
#include "batch/evaluate.h"
#include "core/keymap.h"
#include "core/text.h"
#include "core/units.h"
#include "io/atomic.h"
#include "io/sweep.h"

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    return strndup(path, (size_t)(slash - path) + (slash == path));
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

/* The first of the n sorted keys not below want (n when none). */
static int key_lower_bound(const Key *k, int n, const Key *want)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (key_cmp(&k[mid], want) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
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

/* A built row whose name an earlier row (at first_line) already used. */
static void fail_duplicate(RunRow *rr, const char *path, int col, int first_line)
{
    if (!rr->built)
        return;
    char name[sizeof rr->sc.name];
    snprintf(name, sizeof name, "%s", rr->sc.name);
    diag_set(&rr->diag, path, rr->line, col, "column 'scenario': name '%s' is already used at line %d", name,
             first_line);
    scenario_source_free(&rr->src);
    row_fail(rr, name);
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
        fail_duplicate(&run->row[k[i].idx], path, name_col[k[i].idx], run->row[k[first].idx].line);
    }
    free(k);
}

int run_count_checked(const Table *t, long *total, Diag *d)
{
    *total = 0;
    int over_at = 0;
    for (int i = 0; i < t->nrow; i++) {
        *total += sweep_count_row(t, &t->row[i]);
        if (!over_at && *total > RUN_MAX_SCENARIOS)
            over_at = t->row[i].line;
    }
    if (over_at)
        return diag_set(
            d, t->path, over_at, 0,
            "the table gives %ld scenarios (its sweeps together), more than %d (the limit reached at "
            "this row): narrow the sweeps or split the table",
            *total, RUN_MAX_SCENARIOS);
    return 0;
}

long run_count(const Table *t)
{
    long total = 0;
    for (int i = 0; i < t->nrow; i++)
        total += sweep_count_row(t, &t->row[i]);
    return total;
}

/* What building a table's scenarios needs, once. */
typedef struct {
    TemplateDB *db;
    const Table *t;
    char *reldir;
    int c_name, c_series;
    Setting *set;       /* a row's settings: the columns' meanings resolved once */
    Scenario *defaults; /* what every row starts from (scenario_defaults), made once */
    char *own_series;   /* per column: a swept value of it makes a series of its own (swept_series) */
} Builder;

static void builder_close(Builder *b)
{
    free(b->defaults);
    free(b->own_series);
    free(b->set);
    free(b->reldir);
    memset(b, 0, sizeof *b);
}

static int builder_open(Builder *b, TemplateDB *db, const Table *t, Diag *d)
{
    memset(b, 0, sizeof *b);
    b->db = db;
    b->t = t;
    b->reldir = dir_of(t->path);
    b->set = calloc((size_t)(t->ncol > 0 ? t->ncol : 1), sizeof *b->set);
    b->own_series = calloc((size_t)(t->ncol > 0 ? t->ncol : 1), 1);
    b->defaults = malloc(sizeof *b->defaults);
    b->c_name = table_col(t, "scenario");
    b->c_series = table_col(t, "series");
    if (!b->reldir || !b->set || !b->defaults || !b->own_series) {
        builder_close(b);
        return diag_set(d, t->path, 0, 0, "out of memory");
    }
    for (int c = 0; c < t->ncol; c++) {
        const char *col = t->col_name[c];
        b->set[c].name = col;
        scenario_resolve(&b->set[c]);
        /* a hardware, technology or stack value (a dotted template path), power_cap, precision */
        b->own_series[c] = strchr(col, '.') || !strcasecmp(col, "power_cap") || !strcasecmp(col, "precision");
    }
    scenario_defaults(b->defaults);
    return 0;
}

/* The name of table row i (0-based) before its sweep values. */
static void base_name(const Builder *b, int i, const TableRow *tr, char *base, size_t n)
{
    if (b->c_name >= 0 && tr->cell[b->c_name].text[0])
        text_put(base, n, tr->cell[b->c_name].text);
    else
        snprintf(base, n, "row %d", i + 1);
}

_Static_assert(offsetof(RunRow, sc) == 0, "row_reset clears what follows the scenario");

/* A row slot emptied for its next scenario: all but the scenario (which a
 * build copies whole from the defaults, or its caller clears) and the
 * buffer of its override list, which a streamed window's slot keeps
 * (window_free) for its next row. */
static void row_reset(RunRow *rr)
{
    const ProvList over = rr->src.over;
    memset((char *)rr + sizeof rr->sc, 0, sizeof *rr - sizeof rr->sc);
    rr->src.over.p = over.p;
    rr->src.over.cap = over.cap;
}

/* A table row whose sweeps cannot be expanded: one failed scenario. */
static void build_unexpanded(const Builder *b, int i, const TableRow *tr, const Diag *ed, RunRow *rr)
{
    char base[128];
    base_name(b, i, tr, base, sizeof base);
    row_reset(rr);
    memset(&rr->sc, 0, sizeof rr->sc);
    rr->line = tr->line;
    rr->diag = *ed;
    row_fail(rr, base);
}

/* A swept hardware, technology or stack value (a dotted template path,
 * power_cap, precision) is a series of its own, so that the charts and
 * the Summary show its effect rather than the best over it (issue 27):
 * "N5 co-designed (tdp=700 W)" (the path's last part; the series name
 * kept whole where the values would not fit). */
static void swept_series(const Builder *b, const TableRow *tr, const SweepRow *sw, char *series, size_t n,
                         int *base)
{
    const Table *t = b->t;
    char s[2 * NAME_MAX_LEN];
    size_t len = (size_t)snprintf(s, sizeof s, "%s", series);
    const size_t blen = len;
    int k = 0;
    for (int c = 0; c < t->ncol && c < tr->ncell && len < sizeof s; c++) {
        const char *col = t->col_name[c];
        if (!b->own_series[c] || !sweep_is_sweep(tr->cell[c].text))
            continue;
        const char *last = strrchr(col, '.');
        len += (size_t)snprintf(s + len, sizeof s - len, "%s%s=%s", k++ ? "; " : " (", last ? last + 1 : col,
                                sw->val[c]);
    }
    if (k && len < sizeof s)
        len += (size_t)snprintf(s + len, sizeof s - len, ")");
    if (k && len < n && !text_escape_inplace(s, n) &&
        strlen(s) < n) {                                   /* echoed: control characters escaped */
        *base = !strncmp(s, series, blen) ? (int)blen : 0; /* the name before the values, where kept */
        memcpy(series, s, strlen(s) + 1);
    }
}

/* Scenario sw of table row i into rr: built, or failed with its diagnostic. */
static void build_one(Builder *b, int i, const TableRow *tr, const SweepRow *sw, RunRow *rr)
{
    const Table *t = b->t;
    Setting *set = b->set;
    char base[128];
    base_name(b, i, tr, base, sizeof base);
    row_reset(rr); /* the scenario: copied by the build, cleared where the row fails before it */
    rr->line = tr->line;
    for (int c = 0; c < t->ncol; c++) {
        set[c].name = t->col_name[c];
        set[c].text = sw->val[c];
        set[c].line = table_cell_line(tr, c);
        set[c].col = table_cell_col(tr, c);
        set[c].hline = t->header_line;
        set[c].hcol = t->col_col[c];
    }
    char name[sizeof base + SWEEP_SUFFIX_MAX + 4];
    if (sw->suffix[0])
        snprintf(name, sizeof name, "%s [%s]", base, sw->suffix);
    else
        text_put(name, sizeof name, base);
    diag_clear(&rr->diag);
    /* echoed everywhere: control and bidi characters as visible escapes */
    char shown[sizeof name * 8];
    text_escape(name, shown, sizeof shown);
    text_copy(name, sizeof name, shown);
    if (strlen(shown) >= sizeof rr->sc.name) {
        /* cut, two scenarios of one sweep would share a name */
        diag_set(&rr->diag, t->path, tr->line, b->c_name >= 0 ? table_cell_col(tr, b->c_name) : 0,
                 "scenario name with its sweep values ('%s') is %zu bytes, more than %zu: shorten the "
                 "name in column 'scenario'",
                 shown, strlen(shown), sizeof rr->sc.name - 1);
        memset(&rr->sc, 0, sizeof rr->sc);
        row_fail(rr, name);
        return;
    }
    if (scenario_build_from(b->db, t->path, b->reldir, set, t->ncol, tr->line, b->defaults, &rr->sc, &rr->src,
                            &rr->diag)) {
        /* one of a sweep's scenarios: say which */
        if (sw->suffix[0] && !strcmp(rr->diag.file, t->path) && !strstr(rr->diag.msg, name)) {
            char msg[DIAG_MSG_MAX + 600];
            snprintf(msg, sizeof msg, "scenario '%s': %s", name, rr->diag.msg);
            text_copy(rr->diag.msg, sizeof rr->diag.msg, msg);
        }
        scenario_source_free(&rr->src);
        row_fail(rr, name);
        return;
    }
    text_copy(rr->sc.name, sizeof rr->sc.name, name); /* fits: checked above */
    if (b->c_series < 0 || !sw->val[b->c_series][0])
        text_put(rr->sc.series, sizeof rr->sc.series, rr->sc.system.name);
    swept_series(b, tr, sw, rr->sc.series, sizeof rr->sc.series, &rr->sc.series_base);
    rr->built = 1;
}

/* The column of row rr's name cell (0 when none). */
static int name_col_of(const Builder *b, const TableRow *tr)
{
    return b->c_name >= 0 ? table_cell_col(tr, b->c_name) : 0;
}

/* Expand and build every row of t (nothing evaluated): 0, or -1 with d. */
static int build_rows(TemplateDB *db, const Table *t, int top_k, Run *run, Diag *d)
{
    memset(run, 0, sizeof *run);
    run->top_k = top_k < 0 ? 0 : top_k > RUN_MAX_TOP ? RUN_MAX_TOP : top_k;
    /* count first: the limit is said up front, and every row is allocated
     * before any is built, so none can go missing later */
    long total;
    if (run_count_checked(t, &total, d))
        return -1;
    run->row = calloc((size_t)(total > 0 ? total : 1), sizeof *run->row);
    if (!run->row)
        return diag_set(d, t->path, 0, 0, "out of memory for the table's %ld scenarios (%.1f GiB)", total,
                        (double)total * (double)sizeof *run->row / GIB_BYTES);
    Builder b;
    if (builder_open(&b, db, t, d)) {
        run_free(run);
        return -1;
    }
    int *name_col = calloc((size_t)(total > 0 ? total : 1), sizeof *name_col);
    for (int i = 0; i < t->nrow; i++) {
        const TableRow *tr = &t->row[i];
        SweepIter it;
        Diag ed;
        diag_clear(&ed);
        if (sweep_iter_open(t, tr, &it, &ed)) {
            build_unexpanded(&b, i, tr, &ed, &run->row[run->n++]);
            continue;
        }
        for (long e = 0; e < it.n && run->n < total; e++) {
            if (name_col)
                name_col[run->n] = name_col_of(&b, tr);
            build_one(&b, i, tr, sweep_iter_at(&it, e), &run->row[run->n++]);
        }
        sweep_iter_close(&it);
    }
    builder_close(&b);
    if (name_col) {
        unique_names(run, t->path, name_col);
        free(name_col);
    }
    return 0;
}

static void evaluate_rows(Run *run, int threads, GemmCache *caches, RunProgress progress, void *ctx,
                          int tallied);
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
    evaluate_rows(run, threads, NULL, progress, ctx, 1);
    return 0;
}

/* Rows [next, end) handed out one at a time to a pool of threads. */
typedef struct {
    Run *run;
    atomic_int next;
    atomic_int done;
    int end;
    GemmCache *caches; /* one GEMM memo per thread that outlives the pool (NULL: each its own) */
    atomic_int worker; /* the threads started, each taking the next memo */
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
    GemmCache *cache = p->caches ? &p->caches[atomic_fetch_add(&p->worker, 1)] : malloc(sizeof *cache);
    if (cache && !p->caches)
        gemm_cache_init(cache);
    for (;;) {
        int i = atomic_fetch_add(&p->next, 1);
        if (i >= p->end)
            break;
        evaluate_row(p->run, cache, i);
        atomic_fetch_add(&p->done, 1);
    }
    if (!p->caches)
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
        for (int lo = key_lower_bound(k, run->n, &want);
             lo < run->n && !strcmp(k[lo].a, want.a) && !strcmp(k[lo].b, want.b) &&
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

/* A series' best times to train (same model) at any device count: as
 * computed, and with the critical batch halved and doubled, each its own
 * minimum over the series' ok rows (NaN: none finite). */
typedef struct {
    double ttt, half, dbl;
} Best;

static void best_add(Best *b, const Result *r)
{
    if (isfinite(r->time_to_train_s) && !(b->ttt <= r->time_to_train_s))
        b->ttt = r->time_to_train_s;
    if (isfinite(r->ttt_bcrit_half_s) && !(b->half <= r->ttt_bcrit_half_s))
        b->half = r->ttt_bcrit_half_s;
    if (isfinite(r->ttt_bcrit_double_s) && !(b->dbl <= r->ttt_bcrit_double_s))
        b->dbl = r->ttt_bcrit_double_s;
}

/* Best against best (issue 26): the baseline's best over the series'. */
static void best_apply(const Best *base, const Best *own, Result *r)
{
    r->speedup_best = base->ttt / own->ttt;
    r->speedup_best_bcrit_half = base->half / own->half;
    r->speedup_best_bcrit_double = base->dbl / own->dbl;
}

/* Best against best for every row with a baseline series (Best). */
static void best_speedups(Run *run, const Key *k)
{
    Best *gb = malloc(sizeof *gb * (size_t)(run->n > 0 ? run->n : 1)); /* by key position: its group's */
    if (!gb)
        return;
    for (int g = 0; g < run->n;) {
        int end = g + 1;
        while (end < run->n && !strcmp(k[end].a, k[g].a) && !strcmp(k[end].b, k[g].b))
            end++;
        Best b = {NAN, NAN, NAN};
        for (int i = g; i < end; i++) {
            const RunRow *rr = &run->row[k[i].idx];
            if (rr->built && rr->r.status == STATUS_OK)
                best_add(&b, &rr->r);
        }
        for (int i = g; i < end; i++)
            gb[i] = b;
        g = end;
    }
    for (int i = 0; i < run->n; i++) {
        RunRow *a = &run->row[k[i].idx];
        a->r.speedup_best = a->r.speedup_best_bcrit_half = a->r.speedup_best_bcrit_double = NAN;
        if (!a->built || a->r.status != STATUS_OK || !a->sc.baseline[0])
            continue;
        const Key want = {a->sc.baseline, a->sc.model.name, INT_MIN, -1};
        const int lo = key_lower_bound(k, run->n, &want);
        if (lo < run->n && !strcmp(k[lo].a, want.a) && !strcmp(k[lo].b, want.b))
            best_apply(&gb[lo], &gb[i], &a->r);
    }
    free(gb);
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

/* Rows [a, b) on this process's threads (caches: threads GEMM memos, or
 * NULL). */
static void pool_range(Run *run, int a, int b, int threads, GemmCache *caches, RunProgress progress,
                       void *ctx)
{
    Pool p = {run, a, 0, b, caches, 0};
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

/* A result in a spill or an MPI message: a map of its nonzero 8-byte
 * words, then those words (a result is mostly empty text and zeros: about
 * a third of its 1.8 KB travels). */
enum { RESULT_WORDS = sizeof(Result) / sizeof(uint64_t), RESULT_MAP = (RESULT_WORDS + 7) / 8 };
_Static_assert(sizeof(Result) % sizeof(uint64_t) == 0, "a Result packs as 8-byte words");

/* The most bytes a row packs into (row_pack), with top_k runners-up. */
static size_t row_item_max(int top_k)
{
    return 2 * sizeof(int) + RESULT_MAP + sizeof(Result) + (size_t)top_k * sizeof(Candidate);
}

static size_t result_pack(const Result *r, unsigned char *out)
{
    uint64_t w[RESULT_WORDS];
    memcpy(w, r, sizeof w);
    unsigned char *map = out, *p = out + RESULT_MAP;
    memset(map, 0, RESULT_MAP);
    for (size_t i = 0; i < RESULT_WORDS; i++)
        if (w[i]) {
            map[i / 8] |= (unsigned char)(1u << (i % 8));
            memcpy(p, &w[i], sizeof w[i]);
            p += sizeof w[i];
        }
    return (size_t)(p - out);
}

/* The bytes of a packed result at in (len available): 0 when it runs past len. */
static size_t result_unpack(const unsigned char *in, size_t len, Result *r)
{
    if (len < RESULT_MAP)
        return 0;
    uint64_t w[RESULT_WORDS] = {0};
    const unsigned char *p = in + RESULT_MAP, *end = in + len;
    for (size_t i = 0; i < RESULT_WORDS; i++) {
        if (in[i / 8] & (1u << (i % 8))) {
            if ((size_t)(end - p) < sizeof w[i])
                return 0;
            memcpy(&w[i], p, sizeof w[i]);
            p += sizeof w[i];
        }
    }
    memcpy(r, w, sizeof w);
    return (size_t)(p - in);
}

static size_t row_pack(void *ctx, int i, unsigned char *buf, size_t cap)
{
    const RunRow *rr = &((Shared *)ctx)->run->row[i];
    int head[2] = {rr->built && rr->diag.msg[0], rr->ntop};
    if (row_item_max(rr->ntop) > cap)
        return 0;
    memcpy(buf, head, sizeof head);
    size_t at = sizeof head;
    at += result_pack(&rr->r, buf + at);
    if (rr->ntop) {
        memcpy(buf + at, rr->top, (size_t)rr->ntop * sizeof *rr->top);
        at += (size_t)rr->ntop * sizeof *rr->top;
    }
    return at;
}

static size_t row_unpack(void *ctx, int i, const unsigned char *buf, size_t len)
{
    Run *run = ((Shared *)ctx)->run;
    RunRow *rr = &run->row[i];
    int head[2];
    if (len < sizeof head)
        return 0;
    memcpy(head, buf, sizeof head);
    if (head[1] < 0 || head[1] > run->top_k)
        return 0;
    Result r;
    const size_t rlen = result_unpack(buf + sizeof head, len - sizeof head, &r);
    const size_t tops = (size_t)head[1] * sizeof *rr->top, need = sizeof head + rlen + tops;
    if (!rlen || need > len)
        return 0;
    if (!rr->built) /* nothing was evaluated: the row keeps its own diagnostic */
        return need;
    rr->r = r;
    if (head[0])
        diag_set(&rr->diag, "", 0, 0, "%s", rr->r.error);
    if (head[1] > 0 && (rr->top = malloc(tops))) {
        memcpy(rr->top, buf + sizeof head + rlen, tops);
        rr->ntop = head[1];
    }
    return need;
}

static void row_range(void *ctx, int a, int b)
{
    Shared *s = ctx;
    pool_range(s->run, a, b, s->threads, NULL, NULL, NULL);
}

/* Every row, on this process's threads and, in an MPI run, on the other
 * ranks' (rank 0 gathers every result; the others keep only their own);
 * then, when tallied, the counts and the per-series figures. */
static void evaluate_rows(Run *run, int threads, GemmCache *caches, RunProgress progress, void *ctx,
                          int tallied)
{
    if (dist_size() < 2) {
        pool_range(run, 0, run->n, threads, caches, progress, ctx);
        if (tallied)
            tally(run);
        return;
    }
    /* the pool and the other ranks' ranges each make their threads' memos */
    Shared s = {run, threads};
    Pool p = {run, 0, 0, run->n, NULL, 0};
    DistJob job = {
        run->n, row_item_max(run->top_k), &s, row_pack, row_unpack, row_range, &p.next, &p.done, progress,
        ctx};
    pthread_t *tid = NULL;
    int started = dist_rank() == 0 ? pool_start(&p, threads, &tid) : 0;
    char err[300];
    dist_share(&job, err, sizeof err); /* a failed rank ends the job there */
    pool_join(tid, started);
    if (tallied)
        tally(run);
}

void run_evaluate(Run *run, int threads, RunProgress progress, void *ctx)
{
    pool_range(run, 0, run->n, threads, NULL, progress, ctx);
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
        best_speedups(run, k);
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
    free(run->index);
    for (int i = 0; i < run->nfail; i++)
        run_fail_free(&run->fail[i]);
    free(run->fail);
    if (run->said)
        fclose(run->said);
    free(run->lines);
    for (int i = 0; i < run->nwarn; i++)
        free(run->warn[i]);
    free(run->warn);
    memset(run, 0, sizeof *run);
}

int run_designed(const Run *run)
{
    if (run->total)
        return run->designed;
    for (int i = 0; i < run->n; i++)
        if (run->row[i].built && run->row[i].r.design_evals > 0)
            return 1;
    return 0;
}

void run_error_message(const RunRow *rr, const char *input, char *msg, size_t n)
{
    if (rr->diag.file[0]) {
        diag_format(&rr->diag, msg, n);
        return;
    }
    /* an evaluation error: at the cell of the column it is about */
    Diag d;
    diag_set(&d, input, rr->line, run_error_col(rr), "scenario '%s': %s", rr->sc.name, rr->r.error);
    diag_format(&d, msg, n);
}

int run_fail_of(const RunRow *rr, const char *input, RunFail *f)
{
    memset(f, 0, sizeof *f);
    const Diag *d = &rr->diag;
    f->line = d->line ? d->line : rr->line;
    f->col = d->col ? d->col : run_error_col(rr); /* an evaluation error: its column */
    f->name = strdup(rr->sc.name);
    f->file = strdup(d->file[0] ? d->file : input);
    f->msg = strdup(d->msg[0] ? d->msg : rr->r.error);
    return f->name && f->file && f->msg ? 0 : -1;
}

void run_fail_free(RunFail *f)
{
    free(f->name);
    free(f->file);
    free(f->msg);
    memset(f, 0, sizeof *f);
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

/* ---- a streamed run ------------------------------------------------------
 * Rows are built and evaluated a window at a time (pass 1), their results
 * written to a temporary file; the per-series figures that need other rows
 * (scaling efficiency, speedup over a baseline) come from references kept
 * per series and model and per (series, model, devices); pass 2 builds the
 * rows again, reads their results back and hands each, complete, to the
 * caller in table order.  What stays in memory: one window of rows, a
 * 128-bit hash of every name (their uniqueness), the references. */

#define STREAM_WINDOW 1024

/* Names seen: two 64-bit hashes (a collision of both is ~1e-27 at a
 * million names), the first row that used the name and its line. */
typedef struct {
    uint64_t h1, h2;
    int idx, line; /* idx -1: empty */
} NameSlot;

typedef struct {
    NameSlot *slot;
    size_t cap; /* half as many again as the rows */
} NameSet;

static int nameset_init(NameSet *ns, long rows)
{
    ns->cap = (size_t)rows + (size_t)rows / 2 + 16; /* at most two thirds full */
    ns->slot = malloc(sizeof *ns->slot * ns->cap);
    if (!ns->slot)
        return -1;
    for (size_t i = 0; i < ns->cap; i++)
        ns->slot[i].idx = -1;
    return 0;
}

/* The slot of name s: its first user, or an empty slot where it goes. */
static NameSlot *nameset_find(const NameSet *ns, const char *s)
{
    uint64_t h1, h2;
    key_hash2(s, &h1, &h2);
    for (size_t i = (size_t)(h1 % ns->cap);; i = i + 1 == ns->cap ? 0 : i + 1) {
        NameSlot *e = &ns->slot[i];
        if (e->idx < 0) {
            e->h1 = h1;
            e->h2 = h2;
            return e;
        }
        if (e->h1 == h1 && e->h2 == h2)
            return e;
    }
}

/* "len:series len:model" and, for a cell, " devices": unambiguous whatever
 * the names hold. */
static void group_key(const char *series, const char *model, int devices, char *buf, size_t n)
{
    /* "%zu:%s%zu:%s %d", without printf (a few times a row) */
    size_t at = 0;
    text_cat_long(buf, n, &at, (long)strlen(series));
    text_cat(buf, n, &at, ":");
    text_cat(buf, n, &at, series);
    text_cat_long(buf, n, &at, (long)strlen(model));
    text_cat(buf, n, &at, ":");
    text_cat(buf, n, &at, model);
    if (devices > 0) {
        text_cat(buf, n, &at, " ");
        text_cat_long(buf, n, &at, devices);
    }
}

/* The reference of a (series, model) group for scaling efficiency: its
 * first ok row in (devices, table) order, and its best times to train at
 * any device count (the speedups of series against their baselines); of a
 * (series, model, devices) cell for speedups: its first ok row in table
 * order. */
typedef struct {
    int have, devices;
    double ttt, sps;
    Best best;
} GroupRef;
typedef struct {
    int have, devices;
    double ttt, sps, half, dbl;
} CellRef;

/* Ids of keys by two 64-bit hashes (a collision of both is ~1e-27 at a
 * million keys, as the name set's): the references' keys are never read
 * back, so they are not kept. */
typedef struct {
    uint64_t h1, h2;
    int id1; /* the id + 1; 0: empty */
} HashSlot;
typedef struct {
    HashSlot *slot;
    size_t cap, n; /* cap a power of two, at least twice n */
} HashIds;

/* The slot of key (h1, h2): its own, or the empty one where it goes. */
static HashSlot *hashids_slot(const HashIds *m, uint64_t h1, uint64_t h2)
{
    for (size_t i = h1 & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        HashSlot *e = &m->slot[i];
        if (!e->id1 || (e->h1 == h1 && e->h2 == h2))
            return e;
    }
}

/* The id of key: its own, or n (and n grows); -1 when out of memory. */
static int hashids_id(HashIds *m, const char *key)
{
    if (2 * (m->n + 1) > m->cap) {
        const size_t cap = m->cap ? 2 * m->cap : 1024;
        HashIds grown = {calloc(cap, sizeof *grown.slot), cap, m->n};
        if (!grown.slot)
            return -1;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slot[i].id1)
                *hashids_slot(&grown, m->slot[i].h1, m->slot[i].h2) = m->slot[i];
        free(m->slot);
        *m = grown;
    }
    uint64_t h1, h2;
    key_hash2(key, &h1, &h2);
    HashSlot *e = hashids_slot(m, h1, h2);
    if (!e->id1)
        *e = (HashSlot){h1, h2, (int)++m->n};
    return e->id1 - 1;
}

/* The id of key, or -1 when it was never given one. */
static int hashids_find(const HashIds *m, const char *key)
{
    if (!m->cap)
        return -1;
    uint64_t h1, h2;
    key_hash2(key, &h1, &h2);
    return hashids_slot(m, h1, h2)->id1 - 1;
}

typedef struct {
    HashIds groups, cells;
    GroupRef *group;
    CellRef *cell;
    size_t ngroup_cap, ncell_cap;
    int no_cells; /* no row names a baseline (the table has no such column): no speedups, no cells */
} Refs;

/* An array v of *cap elements of size with room for element id, the new
 * ones zeroed: v itself, or grown (*cap too), or NULL (id < 0 or out of
 * memory; v is kept). */
static void *ref_room(void *v, size_t *cap, size_t size, int id)
{
    if (id < 0)
        return NULL;
    if ((size_t)id < *cap)
        return v;
    size_t c = *cap ? *cap * 2 : 64;
    while (c <= (size_t)id)
        c *= 2;
    char *nv = realloc(v, size * c);
    if (!nv)
        return NULL;
    memset(nv + size * *cap, 0, size * (c - *cap));
    *cap = c;
    return nv;
}

static GroupRef *group_at(Refs *rf, const char *key)
{
    const int id = hashids_id(&rf->groups, key);
    GroupRef *v = ref_room(rf->group, &rf->ngroup_cap, sizeof *v, id);
    if (!v)
        return NULL;
    rf->group = v;
    return &v[id];
}

static CellRef *cell_at(Refs *rf, const char *key)
{
    const int id = hashids_id(&rf->cells, key);
    CellRef *v = ref_room(rf->cell, &rf->ncell_cap, sizeof *v, id);
    if (!v)
        return NULL;
    rf->cell = v;
    return &v[id];
}

static const GroupRef *group_find(const Refs *rf, const char *key)
{
    const int id = hashids_find(&rf->groups, key);
    return id < 0 ? NULL : &rf->group[id];
}

static const CellRef *cell_find(const Refs *rf, const char *key)
{
    const int id = hashids_find(&rf->cells, key);
    return id < 0 ? NULL : &rf->cell[id];
}

/* Pass 1: an evaluated row's part in the references.  -1: out of memory. */
static int refs_add(Refs *rf, const RunRow *rr)
{
    if (!rr->built || rr->r.status != STATUS_OK)
        return 0;
    char key[2 * NAME_MAX_LEN + 200];
    group_key(rr->sc.series, rr->sc.model.name, 0, key, sizeof key);
    GroupRef *g = group_at(rf, key);
    if (!g)
        return -1;
    if (!g->have || rr->sc.devices < g->devices) {
        const Best best = g->have ? g->best : (Best){NAN, NAN, NAN};
        *g = (GroupRef){1, rr->sc.devices, rr->r.time_to_train_s, rr->r.samples_per_s, best};
    }
    best_add(&g->best, &rr->r);
    if (rf->no_cells)
        return 0;
    group_key(rr->sc.series, rr->sc.model.name, rr->sc.devices, key, sizeof key);
    CellRef *c = cell_at(rf, key);
    if (!c)
        return -1;
    if (!c->have)
        *c = (CellRef){1,
                       rr->sc.devices,
                       rr->r.time_to_train_s,
                       rr->r.samples_per_s,
                       rr->r.ttt_bcrit_half_s,
                       rr->r.ttt_bcrit_double_s};
    return 0;
}

/* Pass 2: the row's scaling efficiency and speedups, as scaling_efficiency
 * and speedups compute them over a whole run. */
static void refs_apply(const Refs *rf, RunRow *a)
{
    char key[2 * NAME_MAX_LEN + 200];
    if (a->built && a->r.status != STATUS_ERROR) {
        group_key(a->sc.series, a->sc.model.name, 0, key, sizeof key);
        const GroupRef *ref = group_find(rf, key);
        if (ref && ref->have) {
            double na = a->sc.devices, n0 = ref->devices;
            if (isfinite(a->r.time_to_train_s) && isfinite(ref->ttt))
                a->r.scaling_efficiency = (ref->ttt * n0) / (a->r.time_to_train_s * na);
            else
                a->r.scaling_efficiency = (a->r.samples_per_s / na) / (ref->sps / n0);
        }
    }
    a->r.speedup = NAN;
    a->r.speedup_bcrit_half = a->r.speedup_bcrit_double = NAN;
    a->r.speedup_best = a->r.speedup_best_bcrit_half = a->r.speedup_best_bcrit_double = NAN;
    if (!a->built || a->r.status != STATUS_OK || !a->sc.baseline[0])
        return;
    group_key(a->sc.series, a->sc.model.name, 0, key, sizeof key);
    const GroupRef *own = group_find(rf, key);
    group_key(a->sc.baseline, a->sc.model.name, 0, key, sizeof key);
    const GroupRef *base = group_find(rf, key);
    if (own && base && own->have && base->have)
        best_apply(&base->best, &own->best, &a->r);
    group_key(a->sc.baseline, a->sc.model.name, a->sc.devices, key, sizeof key);
    const CellRef *b = cell_find(rf, key);
    if (!b || !b->have)
        return;
    if (isfinite(a->r.time_to_train_s) && isfinite(b->ttt)) {
        a->r.speedup = b->ttt / a->r.time_to_train_s;
        a->r.speedup_bcrit_half = b->half / a->r.ttt_bcrit_half_s;
        a->r.speedup_bcrit_double = b->dbl / a->r.ttt_bcrit_double_s;
    } else
        a->r.speedup = a->r.samples_per_s / b->sps;
}

static void refs_free(Refs *rf)
{
    free(rf->groups.slot);
    free(rf->cells.slot);
    free(rf->group);
    free(rf->cell);
    memset(rf, 0, sizeof *rf);
}

/* One pass over every scenario: build each into the window (with its name
 * checked against the set: pass 1 adds, pass 2 only looks), and hand each
 * full window to flush.  0, or -1 when flush fails. */
typedef struct Stream Stream;
struct Stream {
    Builder b;
    NameSet names;
    Refs refs;
    Run win; /* the window: row[0..n) */
    long done;
    int pass;
    FILE *spill;
    unsigned char *buf;
    size_t bufcap;
    RunRowFn fn;
    void *ctx;
    RunStats *stats;
    int threads;
    GemmCache *caches; /* the threads' GEMM memos, kept from window to window */
    RunProgress progress;
    void *pctx;
    long total;
};

static void window_free(Run *win)
{
    for (int i = 0; i < win->n; i++) {
        /* the override list's buffer stays for the slot's next row */
        scenario_source_clear(&win->row[i].src);
        free(win->row[i].top);
        win->row[i].top = NULL;
        win->row[i].ntop = 0;
    }
    win->n = 0;
}

static int flush_window(Stream *s)
{
    Run *win = &s->win;
    Shared sh = {win, s->threads};
    const size_t item_max = row_item_max(win->top_k);
    if (s->pass == 1) {
        evaluate_rows(win, s->threads, s->caches, NULL, NULL, 0);
        for (int i = 0; dist_rank() == 0 && i < win->n; i++) {
            const RunRow *rr = &win->row[i];
            if (!rr->built || rr->r.status == STATUS_ERROR)
                s->stats->n_error++;
            else if (rr->r.status == STATUS_OOM)
                s->stats->n_oom++;
            else
                s->stats->n_ok++;
            size_t len = row_pack(&sh, i, s->buf, item_max);
            if (!len || refs_add(&s->refs, rr) || fwrite(&len, sizeof len, 1, s->spill) != 1 ||
                fwrite(s->buf, 1, len, s->spill) != len)
                return -1;
        }
        s->done += win->n;
        if (s->progress && dist_rank() == 0)
            s->progress((int)s->done, (int)s->total, s->pctx);
    } else {
        for (int i = 0; i < win->n; i++) {
            size_t len;
            if (fread(&len, sizeof len, 1, s->spill) != 1 || len > item_max ||
                fread(s->buf, 1, len, s->spill) != len || row_unpack(&sh, i, s->buf, len) != len)
                return -1;
            refs_apply(&s->refs, &win->row[i]);
            s->fn(s->ctx, &win->row[i], (int)(s->done + i));
        }
        s->done += win->n;
    }
    window_free(win);
    return 0;
}

static int stream_pass(Stream *s)
{
    const Table *t = s->b.t;
    long idx = 0;
    s->done = 0;
    for (int i = 0; i < t->nrow; i++) {
        const TableRow *tr = &t->row[i];
        SweepIter it;
        Diag ed;
        diag_clear(&ed);
        const int bad = sweep_iter_open(t, tr, &it, &ed);
        const long n = bad ? 1 : it.n;
        for (long e = 0; e < n; e++, idx++) {
            RunRow *rr = &s->win.row[s->win.n++];
            if (bad)
                build_unexpanded(&s->b, i, tr, &ed, rr);
            else
                build_one(&s->b, i, tr, sweep_iter_at(&it, e), rr);
            NameSlot *ns = nameset_find(&s->names, rr->sc.name);
            if (ns->idx < 0) {
                ns->idx = (int)idx;
                ns->line = rr->line;
            } else if (ns->idx != idx) {
                fail_duplicate(rr, t->path, name_col_of(&s->b, tr), ns->line);
            }
            if (s->win.n == STREAM_WINDOW && flush_window(s)) {
                if (!bad)
                    sweep_iter_close(&it);
                return -1;
            }
        }
        if (!bad)
            sweep_iter_close(&it);
    }
    return s->win.n ? flush_window(s) : 0;
}

int run_stream(TemplateDB *db, const Table *t, int threads, int top_k, RunProgress progress, void *pctx,
               RunRowFn fn, void *ctx, RunStats *stats, Diag *d)
{
    memset(stats, 0, sizeof *stats);
    Stream s;
    memset(&s, 0, sizeof s);
    s.fn = fn;
    s.ctx = ctx;
    s.stats = stats;
    s.threads = threads;
    s.progress = progress;
    s.pctx = pctx;
    s.win.top_k = top_k < 0 ? 0 : top_k > RUN_MAX_TOP ? RUN_MAX_TOP : top_k;
    stats->top_k = s.win.top_k;
    int rc = run_count_checked(t, &s.total, d);
    stats->n = (int)s.total;
    if (!rc && builder_open(&s.b, db, t, d))
        rc = -1;
    s.refs.no_cells = table_col(t, "baseline") < 0;
    if (!rc) {
        s.win.row = calloc(STREAM_WINDOW, sizeof *s.win.row);
        s.bufcap = row_item_max(s.win.top_k);
        s.buf = malloc(s.bufcap);
        s.spill = dist_rank() == 0 ? scratch_file() : NULL;
        const int nc = threads > 1 ? threads : 1;
        if ((s.caches = malloc(sizeof *s.caches * (size_t)nc)))
            for (int i = 0; i < nc; i++)
                gemm_cache_init(&s.caches[i]);
        if (!s.win.row || !s.buf || !s.caches || nameset_init(&s.names, s.total) ||
            (dist_rank() == 0 && !s.spill))
            rc = diag_set(d, t->path, 0, 0,
                          "out of memory, or no scratch file in %s (TMPDIR), for a streamed run",
                          scratch_dir());
    }
    /* the ranks of an MPI run go on together or not at all */
    if (!dist_all_ok(rc == 0) && rc == 0)
        rc = diag_set(d, t->path, 0, 0, "another rank of this MPI run could not start the run");
    if (!rc) {
        s.pass = 1;
        if (stream_pass(&s))
            rc = diag_set(d, t->path, 0, 0, "cannot keep the results of the first pass: %s", strerror(errno));
    }
    if (!rc && dist_rank() == 0) {
        s.pass = 2;
        rewind(s.spill);
        if (stream_pass(&s))
            rc = diag_set(d, t->path, 0, 0, "cannot read back the results of the first pass");
    }
    window_free(&s.win);
    for (int i = 0; s.win.row && i < STREAM_WINDOW; i++)
        scenario_source_free(&s.win.row[i].src);
    free(s.win.row);
    free(s.buf);
    free(s.caches);
    free(s.names.slot);
    refs_free(&s.refs);
    if (s.spill)
        fclose(s.spill);
    builder_close(&s.b);
    return rc;
}
