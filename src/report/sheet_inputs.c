/* report/sheet_inputs.c — the workbook's Inputs sheet: every resolved
 * parameter of every scenario and its origin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook.h"

#define INPUTS_MAX_ROWS 1000000

typedef struct {
    X *x;
    Sheet *sh;
    const RunRow *rr;
    const TableRow *tr;     /* the row's table line, or NULL */
    int sys_col, model_col; /* its system and model cells, or -1 */
    int row;
    int truncated;
    char label[256]; /* the Scenario cell of this block */
    int sweep;       /* the block stands for several scenarios of one table row */
} InputsCtx;

static int is_default(const ParamDef *def, const void *obj)
{
    const void *f = (const char *)obj + def->offset;
    switch (def->type) {
    case P_DOUBLE:
        return *(const double *)f == def->def;
    case P_INT:
    case P_BOOL:
    case P_ENUM:
        return *(const int *)f == (int)def->def;
    case P_INT64:
        return *(const int64_t *)f == (int64_t)def->def;
    case P_STRING:
    case P_SUB:
        return *(const char *)f == '\0';
    default: /* kinds added later: no derived value known */
        return 1;
    }
}

/* Where a resolved parameter came from: a cell of the table, a line of a
 * template, "default" or "derived" (computed from other values). */
static void origin(const InputsCtx *c, const char *key, const ParamDef *def, const void *obj, char *out,
                   size_t n)
{
    const ScenarioSource *src = &c->rr->src;
    const Prov *p = prov_find(&src->over, key);
    if (p) {
        snprintf(out, n, "%s:%d:%d", p->file ? p->file : "", p->line, p->col);
        return;
    }
    /* an override of an enclosing object (system.device=h100 sets every system.device.* key) */
    char pre[256];
    snprintf(pre, sizeof pre, "%s", key);
    for (char *dot = strrchr(pre, '.'); dot; dot = strrchr(pre, '.')) {
        *dot = '\0';
        p = prov_find(&src->over, pre);
        if (p) {
            snprintf(out, n, "%s:%d:%d (through '%s')", p->file ? p->file : "", p->line, p->col, pre);
            return;
        }
    }
    static const char *const bases[2] = {"system", "model"};
    for (int b = 0; b < 2; b++) {
        const Template *t = b ? src->model : src->system;
        const int cell = b ? c->model_col : c->sys_col;
        size_t l = strlen(bases[b]);
        if (!t || strncmp(key, bases[b], l))
            continue;
        if (key[l] == '\0') {
            if (cell >= 0)
                snprintf(out, n, "%s:%d:%d -> %s", c->x->in->table->path, table_cell_line(c->tr, cell),
                         table_cell_col(c->tr, cell), t->path);
            else
                snprintf(out, n, "%s", t->path);
            return;
        }
        if (key[l] == '.') {
            p = prov_find(&t->prov, key + l + 1);
            if (p) {
                snprintf(out, n, "%s:%d", p->file ? p->file : t->path, p->line);
                return;
            }
        }
    }
    snprintf(out, n, "%s", is_default(def, obj) ? "default" : "derived");
}

/* Whether a model key means anything for a model of this kind (the
 * Inputs sheet leaves out LSTM fields for a transformer, and so on). */
static int key_applies(const char *key, ModelKind kind)
{
    static const struct {
        const char *key;
        int kinds; /* bit per ModelKind */
    } only[] = {
        {"model.kv_heads", 1 << MODEL_TRANSFORMER},
        {"model.ffn", 1 << MODEL_TRANSFORMER},
        {"model.mlp", 1 << MODEL_TRANSFORMER},
        {"model.norm", 1 << MODEL_TRANSFORMER},
        {"model.position", 1 << MODEL_TRANSFORMER},
        {"model.causal", 1 << MODEL_TRANSFORMER},
        {"model.heads", 1 << MODEL_TRANSFORMER},
        {"model.proj", 1 << MODEL_LSTM},
        {"model.samples", 1 << MODEL_LSTM},
        {"model.enc_layers", 1 << MODEL_LSTM},
        {"model.dec_layers", 1 << MODEL_LSTM},
        {"model.tgt_len", 1 << MODEL_LSTM},
        {"model.lstm_biases", 1 << MODEL_LSTM},
        {"model.lstm_split", 1 << MODEL_LSTM},
        {"model.image_size", 1 << MODEL_CNN},
        {"model.channels", 1 << MODEL_CNN},
        {"model.classes", 1 << MODEL_CNN},
        {"model.cnn_split", 1 << MODEL_CNN},
        {"model.m", 1 << MODEL_GEMM},
        {"model.n", 1 << MODEL_GEMM},
        {"model.k", 1 << MODEL_GEMM},
        {"model.sparse_grads", (1 << MODEL_LSTM) | (1 << MODEL_TRANSFORMER)},
    };
    for (size_t i = 0; i < sizeof only / sizeof only[0]; i++)
        if (!strcmp(key, only[i].key))
            return (only[i].kinds >> kind) & 1;
    return 1;
}

/* A strategy field the table left to the search: its resolved value. */
static int resolved_value(const RunRow *rr, const char *key, char *buf, size_t n)
{
    const Result *r = &rr->r;
    if (rr->r.status == STATUS_ERROR)
        return 0;
    const int a = strategy_axis_find(key);
    if (a >= 0) {
        char v[32];
        strategy_value_text((StrategyAxis)a, strategy_get(&r->st, (StrategyAxis)a), v, sizeof v);
        return snprintf(buf, n, "auto: %s", v), 1;
    }
    if (!strcmp(key, "replica_batch") && r->st.dp > 0)
        return snprintf(buf, n, "auto: %lld", (long long)(r->st.global_batch / r->st.dp)), 1;
    return 0;
}

static void inputs_visit(const char *key, const ParamDef *def, const void *obj, void *ctx)
{
    InputsCtx *c = ctx;
    if (c->row > INPUTS_MAX_ROWS) {
        c->truncated = 1;
        return;
    }
    if (!key_applies(key, c->rr->sc.model.kind))
        return;
    char value[256], from[1400];
    if (def->type == P_SUB)
        snprintf(value, sizeof value, "%s", (const char *)obj + def->offset);
    else
        param_format(def, obj, value, sizeof value);
    if (!strcmp(value, "auto")) {
        if (c->sweep)
            snprintf(value, sizeof value, "auto (per scenario: see the Scenarios sheet)");
        else
            resolved_value(c->rr, key, value, sizeof value);
    }
    origin(c, key, def, obj, from, sizeof from);
    xl_put_text(c->x, c->sh, c->row, 0, c->label, NULL);
    xl_put_text(c->x, c->sh, c->row, 1, key, NULL);
    xl_put_text(c->x, c->sh, c->row, 2, value, NULL);
    xl_put_text(c->x, c->sh, c->row, 3, from, NULL);
    xl_put_text(c->x, c->sh, c->row, 4, def->help ? def->help : "", NULL);
    c->row++;
}

static const TableRow *table_row_at(const Table *t, int line)
{
    for (int i = 0; i < t->nrow; i++)
        if (t->row[i].line == line)
            return &t->row[i];
    return NULL;
}

typedef struct {
    int line;  /* the table line */
    int first; /* its first built scenario */
    int more;  /* how many more it expanded to */
} InputsBlock;

static int cmp_line_index(const void *a, const void *b)
{
    const int *p = a, *q = b; /* (line, index) pairs */
    return p[0] != q[0] ? (p[0] > q[0]) - (p[0] < q[0]) : (p[1] > q[1]) - (p[1] < q[1]);
}

static int cmp_block_first(const void *a, const void *b)
{
    const InputsBlock *p = a, *q = b;
    return (p->first > q->first) - (p->first < q->first);
}

/* The built scenarios grouped by their table line, in order of first
 * appearance (n log n: a million-row sweep is one block).  Returns the
 * blocks (the caller frees them) and their count in *n; NULL with *n > 0
 * when out of memory. */
static InputsBlock *inputs_blocks(const Run *run, int *n)
{
    if (run->lines) { /* a streamed run counted them as they passed (the listed ones) */
        *n = run->nlines;
        InputsBlock *blk = run->nlines ? malloc(sizeof *blk * (size_t)run->nlines) : NULL;
        for (int i = 0; blk && i < run->nlines; i++)
            blk[i] = (InputsBlock){run->lines[i].line, run->lines[i].first, run->lines[i].count - 1};
        return blk;
    }
    int nb = 0;
    for (int i = 0; i < run->n; i++)
        nb += run->row[i].built != 0;
    *n = nb;
    if (!nb)
        return NULL;
    int *pair = malloc(sizeof *pair * 2 * (size_t)nb);
    InputsBlock *blk = malloc(sizeof *blk * (size_t)nb);
    if (!pair || !blk) {
        free(pair);
        free(blk);
        return NULL;
    }
    for (int i = 0, k = 0; i < run->n; i++)
        if (run->row[i].built) {
            pair[2 * k] = run->row[i].line;
            pair[2 * k + 1] = i;
            k++;
        }
    qsort(pair, (size_t)nb, 2 * sizeof *pair, cmp_line_index);
    int m = 0;
    for (int k = 0; k < nb; k++) {
        if (m && blk[m - 1].line == pair[2 * k]) {
            blk[m - 1].more++;
            continue;
        }
        blk[m++] = (InputsBlock){pair[2 * k], pair[2 * k + 1], 0};
    }
    free(pair);
    qsort(blk, (size_t)m, sizeof *blk, cmp_block_first);
    *n = m;
    return blk;
}

/* The rows of the Inputs sheet a printout holds: one page. */
#define INPUTS_PRINT_ROWS 60

void xl_sheet_inputs(X *x, Sheet *sh)
{
    const Table *t = x->in->table;
    static const char *const heads[5] = {"Scenario", "Parameter", "Value", "Origin", "Meaning"};
    for (int c = 0; c < 5; c++)
        xl_put_header(x, sh, 0, c, heads[c]);
    InputsCtx c = {.x = x, .sh = sh, .sys_col = -1, .model_col = -1, .row = 1};
    int csys = table_col(t, "system"), cmod = table_col(t, "model");
    Scenario *res = malloc(sizeof *res);
    Diag d;
    if (!res) {
        xl_put_text(x, sh, 1, 0, "(out of memory: the inputs are not listed)", x->note);
        xl_finish_sheet(sh, 8, 70);
        return;
    }
    /* one block per table row: its sweep's scenarios share every parameter
     * but the swept ones, whose origin is the row's cell */
    int nblk = 0;
    InputsBlock *blk = inputs_blocks(x->run, &nblk);
    if (!blk && nblk) {
        free(res);
        xl_put_text(x, sh, 1, 0, "(out of memory: the inputs are not listed)", x->note);
        xl_finish_sheet(sh, 8, 70);
        return;
    }
    /* the first table lines, one block each; the others counted (a
     * streamed run counted them as they passed) */
    const int max_lines = rpt_inputs_lines(x->in->detail_max);
    int first_end = 0;
    const int listed = nblk < max_lines ? nblk : max_lines;
    long more_lines = x->run->lines_more, more_scen = x->run->lines_more_scenarios;
    for (int b = listed; b < nblk; b++) {
        more_lines++;
        more_scen += 1 + blk[b].more;
    }
    for (int b = 0; b < listed; b++) {
        const RunRow *rr = &x->run->row[blk[b].first];
        const int more = blk[b].more;
        c.sweep = more > 0;
        if (more)
            snprintf(c.label, sizeof c.label, "%s (and %d more of table line %d)", rr->sc.name, more,
                     rr->line);
        else
            snprintf(c.label, sizeof c.label, "%s", rr->sc.name);
        const TableRow *tr = table_row_at(t, rr->line);
        c.rr = rr;
        c.tr = tr;
        c.sys_col = tr && csys >= 0 && csys < tr->ncell ? csys : -1;
        c.model_col = tr && cmod >= 0 && cmod < tr->ncell ? cmod : -1;
        /* the figures the model used: a derive: device as derived (the
         * first scenario's, for a sweep), wires worked out; as given when
         * they cannot be (the Errors sheet says why) */
        *res = rr->sc;
        diag_clear(&d);
        if (x->in->resolve && x->in->resolve(res, &d))
            *res = rr->sc;
        param_walk(&param_scenario_table, res, "", inputs_visit, &c);
        if (b == 0)
            first_end = c.row; /* printed: the first table line's block */
    }
    free(blk);
    free(res);
    const int last = c.row - 1; /* the last parameter's row */
    if (c.truncated)
        xl_put_text(x, sh, c.row++, 0, "(truncated: too many parameters for one sheet)", x->note);
    if (more_lines > 0) {
        char text[300];
        snprintf(text, sizeof text,
                 "... and %ld more table lines (%ld scenarios): this sheet lists the first %d; their inputs "
                 "are their own cells of %s, and summary.csv has every scenario.",
                 more_lines, more_scen, listed, t->path);
        xl_put_long(x, sh, c.row++, 0, text, x->note);
    }
    if (last > 0)
        xl_check(x, worksheet_autofilter(sh->ws, 0, 0, (lxw_row_t)last, 4));
    worksheet_freeze_panes(sh->ws, 1, 1);
    if (sh->w[3] > 70)
        sh->w[3] = 70;
    xl_finish_sheet(sh, 8, 70);
    xl_page_setup(sh, 0, 0);
    /* printed: the first table line's first parameters, a page (the sheet
     * holds every listed line's, for the screen) */
    if (first_end > INPUTS_PRINT_ROWS || listed > 1)
        xl_check(x, worksheet_print_area(
                        sh->ws, 0, 0,
                        (lxw_row_t)((first_end < INPUTS_PRINT_ROWS ? first_end : INPUTS_PRINT_ROWS) - 1), 4));
}
