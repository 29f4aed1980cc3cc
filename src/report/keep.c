/* report/keep.c — what a streamed run's report needs of its rows, kept as
 * they pass (batch/run.h run_stream).  The report's readers of a whole run
 * (the series and their points, the recommendation, the sensitivity row,
 * the question, the baselines, the Inputs and About sheets) each look at
 * a few rows: the first of something, or the best so far.  Every such row
 * is kept here by the same rule the reader applies, so that the readers,
 * given the kept rows in table order, find what they would have found in
 * the whole run; counts that rows cannot carry (scenarios per table line,
 * the failures, the warnings, the totals) are kept as counts and lists.
 * Memory: bounded by the series, device counts, models, systems and table
 * lines, and by the failures; not by the rows. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/keymap.h"
#include "core/text.h"
#include "io/atomic.h"
#include "report.h"

/* A kept row: a deep copy (its provenance and runners-up; its warnings are
 * kept apart), with its index among the scenarios. */
typedef struct {
    int idx; /* -1: empty */
    RunRow *row;
} Held;

static void held_clear(Held *h)
{
    if (h->row) {
        scenario_source_free(&h->row->src);
        free(h->row->top);
        free(h->row);
    }
    h->row = NULL;
    h->idx = -1;
}

static int held_set(Held *h, const RunRow *rr, int idx)
{
    RunRow *c = malloc(sizeof *c);
    if (!c)
        return -1;
    *c = *rr;
    c->src.warnings = (Notes){0};
    c->src.over = (ProvList){0};
    c->top = NULL;
    c->ntop = 0;
    if (rr->src.over.n > 0) {
        c->src.over.p = malloc(sizeof *c->src.over.p * (size_t)rr->src.over.n);
        if (!c->src.over.p) {
            free(c);
            return -1;
        }
        memcpy(c->src.over.p, rr->src.over.p, sizeof *c->src.over.p * (size_t)rr->src.over.n);
        c->src.over.n = c->src.over.cap = rr->src.over.n;
    }
    if (rr->ntop > 0) {
        c->top = malloc(sizeof *c->top * (size_t)rr->ntop);
        if (!c->top) {
            free(c->src.over.p);
            free(c);
            return -1;
        }
        memcpy(c->top, rr->top, sizeof *c->top * (size_t)rr->ntop);
        c->ntop = rr->ntop;
    }
    held_clear(h);
    h->row = c;
    h->idx = idx;
    return 0;
}

/* Helds by key (a KeyMap's ids index v). */
typedef struct {
    KeyMap map;
    Held *v;
    int *count; /* rows that gave each key (the Inputs blocks) */
    int *tag;   /* a number of each key's (its table line) */
    size_t cap;
} HeldMap;

static Held *held_at(HeldMap *m, const char *key)
{
    const int id = keymap_id(&m->map, key, NULL);
    if (id < 0)
        return NULL;
    if ((size_t)id >= m->cap) {
        size_t c = m->cap ? m->cap * 2 : 16;
        while (c <= (size_t)id)
            c *= 2;
        Held *v = realloc(m->v, sizeof *v * c);
        if (!v)
            return NULL;
        m->v = v;
        int *n = realloc(m->count, sizeof *n * c);
        if (!n)
            return NULL;
        m->count = n;
        int *t = realloc(m->tag, sizeof *t * c);
        if (!t)
            return NULL;
        m->tag = t;
        for (size_t i = m->cap; i < c; i++) {
            m->v[i] = (Held){-1, NULL};
            m->count[i] = m->tag[i] = 0;
        }
        m->cap = c;
    }
    return &m->v[id];
}

static void heldmap_free(HeldMap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        held_clear(&m->v[i]);
    free(m->v);
    free(m->count);
    free(m->tag);
    keymap_free(&m->map);
    memset(m, 0, sizeof *m);
}

enum {
    H_FIRST_TTT,  /* series: the first usable row with a time to train (RptSeriesSet.by_ttt) */
    H_BEST,       /* the best usable row (sensitivity, the closing paragraph, the series' best) */
    H_CONSTRAINT, /* recommendation: the first built row with a constraint */
    H_ANY_TTT,    /* recommendation: the first ok row with a time to train */
    H_BUDGET,     /* ... the first built row with a budget */
    H_DMIN,       /* the question: the first row of the fewest devices */
    H_DMAX,       /* ... of the most */
    H_COUNT
};

enum {
    M_SERIES, /* series: its first built row */
    M_SERIES_BEST,
    M_POINT,      /* series and devices: the best usable row */
    M_MODEL,      /* the question: first built row of each model */
    M_SYSTEM,     /* ... of each system */
    M_BASE_FIRST, /* baselines, series and model: the first compared row */
    M_BASE_BEST,  /* ... the first of the largest speedup */
    M_BASE_AT,    /* ... and devices: the first compared row */
    M_BASE_SLOW,  /* ... and devices: the first compared row not faster than its baseline */
    M_LINE,       /* Inputs: the first built row of each table line */
    M_STACK,      /* About: the first built row of each training stack */
    M_MODEL_TTT,  /* recommendation, per model: the first ok row with a time to train */
    M_REC,        /* ... the cheapest that meets the constraints */
    M_FAST,       /* ... the fastest */
    M_GREEN,      /* ... the least energy */
    M_UNPRICED,   /* ... and system: the first ok row without a cost */
    M_SHORT,      /* ... and rank: the RPT_SHORTLIST_MAX cheapest that meet the constraints */
    M_QUESTION,   /* ... the first built row of each question it answers, and of the one past them */
    M_COUNT
};

struct RptKeep {
    const char *input; /* the table's path, for the failures' messages */
    int detail_max;
    int inputs_max;        /* the table lines the Inputs sheet lists */
    int line_last, listed; /* the table line of the latest built row, and whether it is listed */
    int lines_more;        /* table lines past the listed ones ... */
    long lines_more_scen;  /* ... and their built scenarios */
    int nfail_more;        /* failures past the first detail_max */
    FILE *said_file;       /* every failure's message, grouped (report/messages.c) */
    RptSaid *said;
    Held h[H_COUNT];
    HeldMap m[M_COUNT];
    int designed, oom;
    long meets; /* the rows that meet their constraints */
    RunFail *fail;
    int nfail, failcap;
    KeyMap warn;
    KeyMap questions; /* the first RPT_MODELS_MAX + 1 questions (model and amount), in the order their
                       * first built rows come */
    KeyMap series;    /* the first RPT_SERIES_MAX series, in the order their first built rows come */
    int series_more;  /* a series past them came */
};

RptKeep *rpt_keep_new(const char *input, int detail_max)
{
    RptKeep *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->input = input;
    k->detail_max = detail_max > 0 ? detail_max : RPT_DETAIL_MAX;
    k->inputs_max = rpt_inputs_lines(detail_max);
    k->line_last = -1;
    if (!(k->said_file = scratch_file()) || !(k->said = rpt_said_new(k->said_file))) {
        rpt_keep_free(k);
        return NULL;
    }
    for (int i = 0; i < H_COUNT; i++)
        k->h[i].idx = -1;
    return k;
}

void rpt_keep_free(RptKeep *k)
{
    if (!k)
        return;
    for (int i = 0; i < H_COUNT; i++)
        held_clear(&k->h[i]);
    for (int i = 0; i < M_COUNT; i++)
        heldmap_free(&k->m[i]);
    for (int i = 0; i < k->nfail; i++)
        run_fail_free(&k->fail[i]);
    free(k->fail);
    keymap_free(&k->warn);
    keymap_free(&k->questions);
    keymap_free(&k->series);
    rpt_said_finish(k->said);
    if (k->said_file)
        fclose(k->said_file);
    free(k);
}

/* Keep rr in h when h is empty (first) or when better says so. */
static void keep_if(RptKeep *k, Held *h, const RunRow *rr, int idx, int better)
{
    if (!h) {
        k->oom = 1;
        return;
    }
    if ((h->idx < 0 || better) && held_set(h, rr, idx))
        k->oom = 1;
}

static void keep_failure(RptKeep *k, const RunRow *rr)
{
    char said[1200];
    run_error_message(rr, k->input, said, sizeof said);
    if (rpt_said_add(k->said, said, rr->line))
        k->oom = 1;
    /* the Errors sheet's fields, for as many as it lists */
    if (k->nfail >= k->detail_max) {
        k->nfail_more++;
        return;
    }
    if (k->nfail == k->failcap) {
        const int cap = k->failcap ? 2 * k->failcap : 256;
        RunFail *v = realloc(k->fail, sizeof *v * (size_t)cap);
        if (!v) {
            k->oom = 1;
            return;
        }
        k->fail = v;
        k->failcap = cap;
    }
    if (run_fail_of(rr, k->input, &k->fail[k->nfail])) {
        run_fail_free(&k->fail[k->nfail]);
        k->oom = 1;
        return;
    }
    k->nfail++;
}

/* The shortlist of question q (rpt_shortlist): the RPT_SHORTLIST_MAX
 * cheapest rows that meet their constraints, in order, ties to the
 * earlier row; rr goes in at its rank and the last one out. */
static void keep_shortlist(RptKeep *k, const char *q, const RunRow *rr, int idx)
{
    char key[NAME_MAX_LEN + 128];
    int id[RPT_SHORTLIST_MAX];
    for (int i = 0; i < RPT_SHORTLIST_MAX; i++) { /* every slot first: a later one may move the array */
        snprintf(key, sizeof key, "%s#%d", q, i);
        if (!held_at(&k->m[M_SHORT], key)) {
            k->oom = 1;
            return;
        }
        id[i] = keymap_id(&k->m[M_SHORT].map, key, NULL);
    }
    Held *v = k->m[M_SHORT].v;
    int p = 0;
    while (p < RPT_SHORTLIST_MAX && v[id[p]].idx >= 0 && !rpt_cheaper(&rr->r, &v[id[p]].row->r))
        p++;
    if (p == RPT_SHORTLIST_MAX)
        return;
    held_clear(&v[id[RPT_SHORTLIST_MAX - 1]]);
    for (int j = RPT_SHORTLIST_MAX - 1; j > p; j--)
        v[id[j]] = v[id[j - 1]];
    v[id[p]] = (Held){-1, NULL};
    if (held_set(&v[id[p]], rr, idx))
        k->oom = 1;
}

/* The key of a row's question (a model and an amount of training), only
 * ever compared: the name with its length, and the amounts' bits in hex
 * (not %.17g, which costs more than the rest of the row's keeping). */
static void question_key(char *q, size_t n, const Scenario *sc)
{
    static const char hex[] = "0123456789abcdef";
    const double amount[3] = {sc->train_tokens, sc->train_samples, sc->epochs};
    size_t len = 0;
    text_cat_long(q, n, &len, (long)strlen(sc->model.name));
    text_cat(q, n, &len, ":");
    text_cat(q, n, &len, sc->model.name);
    if (len + 3 * 17 + 1 > n)
        return; /* cannot be: the name fits its NAME_MAX_LEN */
    char *p = q + len;
    for (int i = 0; i < 3; i++) {
        uint64_t bits;
        const double v = isnan(amount[i]) ? NAN : amount[i] == 0 ? 0.0 : amount[i]; /* one NaN, one zero */
        memcpy(&bits, &v, sizeof bits);
        *p++ = ' ';
        for (int b = 60; b >= 0; b -= 4)
            *p++ = hex[(bits >> b) & 15];
    }
    *p = '\0';
}

void rpt_keep_add(RptKeep *k, const RunRow *rr, int idx)
{
    if (!k)
        return;
    for (int w = 0; w < rr->src.warnings.n; w++)
        if (keymap_id(&k->warn, rr->src.warnings.s[w], NULL) < 0)
            k->oom = 1;
    if (!rr->built || rr->r.status == STATUS_ERROR)
        keep_failure(k, rr);
    if (!rr->built)
        return;
    const Scenario *sc = &rr->sc;
    const Result *r = &rr->r;
    const int usable = r->status == STATUS_OK;
    char key[3 * NAME_MAX_LEN + 300];
    Held *h;
    if (r->design_evals > 0)
        k->designed = 1;
    /* the series (rpt_series_build): the first RPT_SERIES_MAX it lists */
    int listed = keymap_find(&k->series, sc->series) >= 0;
    if (!listed && k->series.n < RPT_SERIES_MAX) {
        listed = 1;
        if (keymap_id(&k->series, sc->series, NULL) < 0)
            k->oom = 1;
    } else if (!listed) {
        k->series_more = 1;
    }
    if (listed)
        keep_if(k, held_at(&k->m[M_SERIES], sc->series), rr, idx, 0);
    if (usable) {
        if (isfinite(r->time_to_train_s) && r->time_to_train_s > 0)
            keep_if(k, &k->h[H_FIRST_TTT], rr, idx, 0);
        if (listed) {
            h = held_at(&k->m[M_SERIES_BEST], sc->series);
            keep_if(k, h, rr, idx, h && h->idx >= 0 && rpt_series_better(rr, idx, h->row, h->idx));
            size_t at = 0; /* "%zu:%s %d" without printf */
            text_cat_long(key, sizeof key, &at, (long)strlen(sc->series));
            text_cat(key, sizeof key, &at, ":");
            text_cat(key, sizeof key, &at, sc->series);
            text_cat(key, sizeof key, &at, " ");
            text_cat_long(key, sizeof key, &at, sc->devices);
            h = held_at(&k->m[M_POINT], key);
            keep_if(k, h, rr, idx, h && h->idx >= 0 && rpt_better(rr, idx, h->row, h->idx));
        }
        h = &k->h[H_BEST];
        keep_if(k, h, rr, idx, h->idx >= 0 && rpt_better(rr, idx, h->row, h->idx));
    }
    /* the recommendation (rpt_recommend) */
    if (rpt_asked(sc))
        keep_if(k, &k->h[H_CONSTRAINT], rr, idx, 0);
    if (rr->built && sc->budget_usd > 0)
        keep_if(k, &k->h[H_BUDGET], rr, idx, 0);
    if (usable && isfinite(r->time_to_train_s))
        keep_if(k, &k->h[H_ANY_TTT], rr, idx, 0);
    /* ... one decision per model and amount of training, for the questions
     * it answers: the first RPT_MODELS_MAX in the order their first built
     * rows come (and the first built row of the one past them, which says
     * there are more); a question whose first rows are out of memory holds
     * its place among them as it does with every row held */
    char q[NAME_MAX_LEN + 96];
    question_key(q, sizeof q, sc);
    int qid = keymap_find(&k->questions, q);
    if (qid < 0 && k->questions.n <= RPT_MODELS_MAX) { /* one of the first: its place in the order */
        if ((qid = keymap_id(&k->questions, q, NULL)) < 0)
            k->oom = 1;
    } else if (qid < 0) {
        qid = RPT_MODELS_MAX + 1; /* past them: not kept (a million questions would take a map of its own) */
    }
    if (qid >= 0 && qid <= RPT_MODELS_MAX)
        keep_if(k, held_at(&k->m[M_QUESTION], q), rr, idx, 0);
    const int answered = qid >= 0 && qid < RPT_MODELS_MAX;
    if (answered && r->status == STATUS_OK && isfinite(r->time_to_train_s)) {
        keep_if(k, held_at(&k->m[M_MODEL_TTT], q), rr, idx, 0);
        if (!isfinite(r->cost_usd)) {
            snprintf(key, sizeof key, "%s %s", q, sc->system.name);
            keep_if(k, held_at(&k->m[M_UNPRICED], key), rr, idx, 0);
        }
    }
    if (rpt_meets(rr) && rpt_asked(sc)) /* the shortlist: a row that asks nothing is not on it */
        k->meets++;
    if (answered && rpt_meets(rr)) {
        if (rpt_asked(sc))
            keep_shortlist(k, q, rr, idx);
        Held *f = held_at(&k->m[M_FAST], q), *g = held_at(&k->m[M_GREEN], q), *c = held_at(&k->m[M_REC], q);
        keep_if(k, f, rr, idx, f && f->idx >= 0 && r->time_to_train_s < f->row->r.time_to_train_s);
        keep_if(k, g, rr, idx, g && g->idx >= 0 && r->energy_to_train_j < g->row->r.energy_to_train_j);
        keep_if(k, c, rr, idx, c && c->idx >= 0 && rpt_cheaper(r, &c->row->r));
    }
    /* the question (rpt_question) */
    keep_if(k, held_at(&k->m[M_MODEL], sc->model.name), rr, idx, 0);
    keep_if(k, held_at(&k->m[M_SYSTEM], sc->system.name), rr, idx, 0);
    keep_if(k, &k->h[H_DMIN], rr, idx, k->h[H_DMIN].idx >= 0 && sc->devices < k->h[H_DMIN].row->sc.devices);
    keep_if(k, &k->h[H_DMAX], rr, idx, k->h[H_DMAX].idx >= 0 && sc->devices > k->h[H_DMAX].row->sc.devices);
    /* the baselines (rpt_baselines): by series and model */
    if (sc->baseline[0] && isfinite(r->speedup)) {
        snprintf(key, sizeof key, "%zu:%s%s", strlen(sc->series), sc->series, sc->model.name);
        keep_if(k, held_at(&k->m[M_BASE_FIRST], key), rr, idx, 0);
        h = held_at(&k->m[M_BASE_BEST], key);
        keep_if(k, h, rr, idx, h && h->idx >= 0 && !(h->row->r.speedup >= r->speedup));
        snprintf(key, sizeof key, "%zu:%s%zu:%s %d", strlen(sc->series), sc->series, strlen(sc->model.name),
                 sc->model.name, sc->devices);
        keep_if(k, held_at(&k->m[M_BASE_AT], key), rr, idx, 0);
        if (r->speedup <= 1.0)
            keep_if(k, held_at(&k->m[M_BASE_SLOW], key), rr, idx, 0);
    }
    /* Inputs: the table line's first scenario and how many it gave, for
     * the lines it lists (a line's scenarios come one after the other) */
    if (rr->line != k->line_last) {
        k->line_last = rr->line;
        k->listed = k->m[M_LINE].map.n < (size_t)k->inputs_max;
        k->lines_more += !k->listed;
    }
    if (k->listed) {
        size_t at = 0;
        text_cat_long(key, sizeof key, &at, rr->line);
        h = held_at(&k->m[M_LINE], key);
        keep_if(k, h, rr, idx, 0);
        if (h) {
            k->m[M_LINE].count[h - k->m[M_LINE].v]++;
            k->m[M_LINE].tag[h - k->m[M_LINE].v] = rr->line;
        }
    } else {
        k->lines_more_scen++;
    }
    /* About: each training stack */
    if (sc->system.framework.name[0])
        keep_if(k, held_at(&k->m[M_STACK], sc->system.framework.name), rr, idx, 0);
}

static int cmp_held(const void *a, const void *b)
{
    const Held *x = *(const Held *const *)a, *y = *(const Held *const *)b;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The index in run->row of scenario idx (binary search; -1: not kept). */
static int kept_at(const Run *run, int idx)
{
    int lo = 0, hi = run->n;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (run->index[mid] < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < run->n && run->index[lo] == idx ? lo : -1;
}

int rpt_keep_finish(RptKeep *k, const RunStats *st, Run *run)
{
    memset(run, 0, sizeof *run);
    if (k->oom)
        return -1;
    /* the table lines' first scenarios, before the rows move */
    const HeldMap *lm = &k->m[M_LINE];
    int *line_first = malloc(sizeof *line_first * (lm->map.n ? lm->map.n : 1));
    if (!line_first)
        return -1;
    for (size_t i = 0; i < lm->map.n; i++)
        line_first[i] = lm->v[i].idx;
    size_t nh = H_COUNT;
    for (int m = 0; m < M_COUNT; m++)
        nh += k->m[m].map.n;
    Held **all = malloc(sizeof *all * (nh ? nh : 1));
    if (!all) {
        free(line_first);
        return -1;
    }
    size_t n = 0;
    for (int i = 0; i < H_COUNT; i++)
        if (k->h[i].idx >= 0)
            all[n++] = &k->h[i];
    for (int m = 0; m < M_COUNT; m++)
        for (size_t i = 0; i < k->m[m].map.n; i++)
            if (k->m[m].v[i].idx >= 0)
                all[n++] = &k->m[m].v[i];
    qsort(all, n, sizeof *all, cmp_held);
    run->row = calloc(n ? n : 1, sizeof *run->row);
    run->index = calloc(n ? n : 1, sizeof *run->index);
    if (!run->row || !run->index) {
        free(all);
        free(line_first);
        run_free(run);
        return -1;
    }
    /* one row per scenario: the first copy moves in, the others stay (and go with k) */
    for (size_t i = 0; i < n; i++) {
        if (run->n && run->index[run->n - 1] == all[i]->idx)
            continue;
        run->index[run->n] = all[i]->idx;
        run->row[run->n++] = *all[i]->row;
        free(all[i]->row);
        all[i]->row = NULL;
        all[i]->idx = -1;
    }
    free(all);
    run->total = st->n > 0 ? st->n : 1;
    run->n_ok = st->n_ok;
    run->n_oom = st->n_oom;
    run->n_error = st->n_error;
    run->top_k = st->top_k;
    run->designed = k->designed;
    run->meets = k->meets;
    run->series_more = k->series_more;
    /* the table lines' blocks, in order of first appearance (as the ids) */
    run->lines = calloc(lm->map.n ? lm->map.n : 1, sizeof *run->lines);
    if (!run->lines) {
        free(line_first);
        run_free(run);
        return -1;
    }
    for (size_t i = 0; i < lm->map.n; i++)
        run->lines[run->nlines++] = (RunLine){lm->tag[i], kept_at(run, line_first[i]), lm->count[i]};
    free(line_first);
    run->lines_more = k->lines_more;
    run->lines_more_scenarios = k->lines_more_scen;
    run->fail = k->fail;
    run->nfail = k->nfail;
    run->nfail_more = k->nfail_more;
    k->fail = NULL;
    k->nfail = k->failcap = 0;
    rpt_said_finish(k->said); /* what is left of the grouped messages */
    k->said = NULL;
    if (fflush(k->said_file)) {
        run_free(run);
        return -1;
    }
    run->said = k->said_file;
    k->said_file = NULL;
    /* the warnings, sorted (each once) */
    run->warn = calloc(k->warn.n ? k->warn.n : 1, sizeof *run->warn);
    if (!run->warn) {
        run_free(run);
        return -1;
    }
    for (size_t j = 0; j < k->warn.cap; j++)
        if (k->warn.key[j]) {
            run->warn[run->nwarn++] = k->warn.key[j];
            k->warn.key[j] = NULL;
        }
    qsort(run->warn, (size_t)run->nwarn, sizeof *run->warn, cmp_text);
    return 0;
}
