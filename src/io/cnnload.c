/* io/cnnload.c — a CNN's layer list, the `net:` key of a models template,
 * read from its YAML tree (io/ytree.h) into a CnnNet (graph/cnn.h), with
 * every fault reported at its file:line:col.  Shapes are then checked by
 * graph/cnn.c (cnn_check) from the model's image_size and channels.
 *
 * The format.  `net:` is a list of layers, run in order.  A layer is a
 * mapping with one key, its type, whose value maps the layer's keys:
 *
 *   net:
 *     - conv: {out: 64, kernel: 7, stride: 2, pad: 3, bn: yes, relu: yes}
 *     - pool: {op: max, kernel: 3, stride: 2, pad: 1}
 *     - block:                          # residual: main + shortcut, added
 *         repeat: 2
 *         main:
 *           - conv: {out: 64, kernel: 1, bn: yes, relu: yes}
 *           - conv: {out: 64, kernel: 3, pad: same, bn: yes}
 *         relu: yes                     # after the add
 *     - concat:                         # branches on one input
 *         branches:
 *           - [conv: {out: 64, kernel: 1, bn: yes, relu: yes}]
 *           - - pool: {op: avg, kernel: 3, stride: 1, pad: 1}
 *             - conv: {out: 32, kernel: 1, bn: yes, relu: yes}
 *     - global_avg_pool
 *     - dropout: {rate: 0.5}
 *     - fc: {out: 1000}
 *     - softmax
 *
 * A layer with no keys may be written as its bare type (`- softmax`).
 * Types and keys (* required; pairs are N or [height, width]):
 *   conv             out* (channels), kernel* (pair), stride (pair, 1),
 *                    pad (same | valid | pair of pixels each side, valid),
 *                    bn (no), relu (no), bias (no with bn, else yes)
 *   pool             op* (max | avg), kernel* (pair), stride (pair,
 *                    = kernel), pad (as conv's, valid)
 *   fc               out* (features; flattens C x H x W), bias (yes), relu (no)
 *   concat           branches*: a list of layer lists, each run on the
 *                    concat's input; outputs (same H x W) joined on channels
 *   block            main*: a layer list; shortcut: a layer list (absent or
 *                    []: identity); the two outputs (same C x H x W) are
 *                    added; relu (no) after the add
 *   global_avg_pool  average over H x W
 *   dropout          rate (0.5; does not change the cost)
 *   softmax          softmax with the cross-entropy loss; its width must
 *                    equal the model's classes when that is set
 * Every type takes repeat (1): the layer N times in a row, each on the
 * previous one's output (a block's shapes follow, so a repeated block may
 * see a different input width the first time).
 * Output sizes: floor((in + 2 pad - kernel) / stride) + 1; 'same' gives
 * ceil(in / stride) (TensorFlow).
 * Limits (errors, not crashes): containers nested at most CNN_MAX_DEPTH
 * deep, CNN_MAX_BRANCHES branches, repeat <= CNN_MAX_REPEAT, at most
 * CNN_MAX_LAYERS layers once repeats are expanded.  YAML anchors and
 * aliases are rejected by ytree. */
#include "cnnload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *path;
    Diag *d;
    CnnLayer *layer;
    int n_layers, cap_layers;
    CnnSeq *seq;
    int n_seqs, cap_seqs;
} Parser;

/* Keys of each layer type; required ones first, counted by nreq. */
typedef struct {
    const char *name;
    const char *const *keys;
    CnnKind kind;
    int nreq;
} TypeSpec;

static const char *const conv_keys[] = {"out",  "kernel", "stride", "pad", "bn",
                                        "relu", "bias",   "repeat", NULL};
static const char *const pool_keys[] = {"op", "kernel", "stride", "pad", "repeat", NULL};
static const char *const fc_keys[] = {"out", "bias", "relu", "repeat", NULL};
static const char *const concat_keys[] = {"branches", "repeat", NULL};
static const char *const block_keys[] = {"main", "shortcut", "relu", "repeat", NULL};
static const char *const gap_keys[] = {"repeat", NULL};
static const char *const dropout_keys[] = {"rate", "repeat", NULL};
static const char *const softmax_keys[] = {"repeat", NULL};

static const TypeSpec types[] = {
    {"conv", conv_keys, CNN_CONV, 2},
    {"pool", pool_keys, CNN_POOL, 2},
    {"fc", fc_keys, CNN_FC, 1},
    {"concat", concat_keys, CNN_CONCAT, 1},
    {"block", block_keys, CNN_BLOCK, 1},
    {"global_avg_pool", gap_keys, CNN_GLOBAL_AVG_POOL, 0},
    {"dropout", dropout_keys, CNN_DROPOUT, 0},
    {"softmax", softmax_keys, CNN_SOFTMAX, 0},
};

#define N_TYPES ((int)(sizeof types / sizeof types[0]))

/* Largest window, stride, padding or channel count accepted. */
static const long MAX_WINDOW = 4096;
static const long MAX_WIDTH = 1L << 24;

/* ---- suggestions ------------------------------------------------------------ */

static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int prev[64], cur[64];
    for (int j = 0; j <= lb; j++)
        prev[j] = j;
    for (int i = 1; i <= la; i++) {
        cur[0] = i;
        for (int j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof prev);
    }
    return prev[lb];
}

/* The candidate nearest to word, or NULL when none is close. */
static const char *nearest(const char *word, const char *const *cands, int n)
{
    const char *best = NULL;
    int bd = 99;
    for (int i = 0; i < n; i++) {
        int dd = edit_distance(word, cands[i]);
        if (dd < bd) {
            bd = dd;
            best = cands[i];
        }
    }
    int len = (int)strlen(word);
    return bd <= (len > 6 ? 3 : len > 3 ? 2 : 1) ? best : NULL;
}

/* ---- arrays ------------------------------------------------------------------ */

static int oom(Parser *p)
{
    return diag_set(p->d, p->path, 0, 0, "out of memory while reading the layer list");
}

/* A capacity of at least need, doubling from 64. */
static int grown(int cap, int need)
{
    int c = cap ? cap : 64;
    while (c < need)
        c *= 2;
    return c;
}

/* Append `add` zeroed layer records; the index of the first, or -1. */
static int reserve_layers(Parser *p, int add)
{
    if (p->n_layers + add > p->cap_layers) {
        int c = grown(p->cap_layers, p->n_layers + add);
        CnnLayer *q = realloc(p->layer, (size_t)c * sizeof *q);
        if (!q)
            return -1;
        p->layer = q;
        p->cap_layers = c;
    }
    memset(p->layer + p->n_layers, 0, (size_t)add * sizeof *p->layer);
    p->n_layers += add;
    return p->n_layers - add;
}

/* Append `add` zeroed sequences; the index of the first, or -1. */
static int reserve_seqs(Parser *p, int add)
{
    if (p->n_seqs + add > p->cap_seqs) {
        int c = grown(p->cap_seqs, p->n_seqs + add);
        CnnSeq *q = realloc(p->seq, (size_t)c * sizeof *q);
        if (!q)
            return -1;
        p->seq = q;
        p->cap_seqs = c;
    }
    memset(p->seq + p->n_seqs, 0, (size_t)add * sizeof *p->seq);
    p->n_seqs += add;
    return p->n_seqs - add;
}

/* ---- values ------------------------------------------------------------------ */

static int bad_value(Parser *p, const YNode *v, const char *type, const char *key, const char *expect)
{
    if (v->kind != YN_SCALAR)
        return diag_set(p->d, p->path, v->line, v->col, "%s: key '%s': expected %s, got a %s", type, key,
                        expect, v->kind == YN_MAP ? "mapping" : "list");
    return diag_set(p->d, p->path, v->line, v->col, "%s: key '%s': expected %s, got '%s'", type, key, expect,
                    v->text);
}

static int parse_long(const char *s, long *out)
{
    if (!*s)
        return -1;
    errno = 0;
    char *end;
    long x = strtol(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = x;
    return 0;
}

static int get_int(Parser *p, const YNode *v, const char *type, const char *key, long lo, long hi, int *out)
{
    long x;
    if (v->kind != YN_SCALAR || parse_long(v->text, &x) || x < lo || x > hi) {
        char exp[96];
        snprintf(exp, sizeof exp, "an integer in [%ld, %ld]", lo, hi);
        return bad_value(p, v, type, key, exp);
    }
    *out = (int)x;
    return 0;
}

/* N or [h, w] in [lo, hi]; -1 (no message) when v is neither. */
static int pair_of(const YNode *v, long lo, long hi, int *h, int *w)
{
    long a, b;
    if (v->kind == YN_SCALAR && !parse_long(v->text, &a) && a >= lo && a <= hi) {
        *h = *w = (int)a;
        return 0;
    }
    if (v->kind == YN_SEQ && v->n == 2 && v->val[0]->kind == YN_SCALAR && v->val[1]->kind == YN_SCALAR &&
        !parse_long(v->val[0]->text, &a) && !parse_long(v->val[1]->text, &b) && a >= lo && a <= hi &&
        b >= lo && b <= hi) {
        *h = (int)a;
        *w = (int)b;
        return 0;
    }
    return -1;
}

static int get_pair(Parser *p, const YNode *v, const char *type, const char *key, long lo, long hi, int *h,
                    int *w)
{
    if (pair_of(v, lo, hi, h, w) == 0)
        return 0;
    char exp[128];
    snprintf(exp, sizeof exp, "an integer in [%ld, %ld] or a list [height, width] of them", lo, hi);
    return bad_value(p, v, type, key, exp);
}

static int get_pad(Parser *p, const YNode *v, const char *type, int *h, int *w)
{
    if (v->kind == YN_SCALAR && !strcmp(v->text, "same")) {
        *h = *w = CNN_PAD_SAME;
        return 0;
    }
    if (v->kind == YN_SCALAR && !strcmp(v->text, "valid")) {
        *h = *w = 0;
        return 0;
    }
    if (pair_of(v, 0, MAX_WINDOW, h, w) == 0)
        return 0;
    char exp[160];
    snprintf(exp, sizeof exp, "same, valid, an integer in [0, %ld] or a list [height, width] of them",
             MAX_WINDOW);
    return bad_value(p, v, type, "pad", exp);
}

static int get_bool(Parser *p, const YNode *v, const char *type, const char *key, int *out)
{
    static const char *const yes[] = {"yes", "true", "on", "1"}, *const no[] = {"no", "false", "off", "0"};
    if (v->kind == YN_SCALAR)
        for (int i = 0; i < 4; i++) {
            if (!strcasecmp(v->text, yes[i])) {
                *out = 1;
                return 0;
            }
            if (!strcasecmp(v->text, no[i])) {
                *out = 0;
                return 0;
            }
        }
    return bad_value(p, v, type, key, "yes or no");
}

/* ---- layers ------------------------------------------------------------------ */

static int parse_seq(Parser *p, const YNode *list, int depth, int seq, const char *what);

static int parse_layer(Parser *p, const YNode *item, int depth, int idx)
{
    const YNode *tnode, *params = NULL;
    if (item->kind == YN_SCALAR) {
        tnode = item;
    } else if (item->kind == YN_MAP && item->n == 1) {
        tnode = item->key[0];
        params = item->val[0];
    } else if (item->kind == YN_MAP) {
        return diag_set(
            p->d, p->path, item->line, item->col,
            "a layer is a mapping with one key, its type (e.g. 'conv: {out: 64, kernel: 3}'), got %d keys",
            item->n);
    } else {
        return diag_set(
            p->d, p->path, item->line, item->col,
            "a layer is a mapping with one key, its type (e.g. 'conv: {out: 64, kernel: 3}'), got a list");
    }
    const TypeSpec *ts = NULL;
    for (int i = 0; i < N_TYPES; i++)
        if (!strcmp(tnode->text, types[i].name))
            ts = &types[i];
    if (!ts) {
        const char *names[N_TYPES];
        for (int i = 0; i < N_TYPES; i++)
            names[i] = types[i].name;
        const char *sug = nearest(tnode->text, names, N_TYPES);
        if (sug)
            return diag_set(p->d, p->path, tnode->line, tnode->col,
                            "unknown layer type '%s' (did you mean '%s'?)", tnode->text, sug);
        return diag_set(p->d, p->path, tnode->line, tnode->col,
                        "unknown layer type '%s' (known: conv, pool, fc, concat, block, global_avg_pool, "
                        "dropout, softmax)",
                        tnode->text);
    }
    /* `- softmax:` with no value is a bare type */
    if (params && params->kind == YN_SCALAR && !params->quoted && !params->text[0])
        params = NULL;
    if (params && params->kind != YN_MAP)
        return diag_set(p->d, p->path, params->line, params->col,
                        "%s: expected a mapping of the layer's keys (e.g. {out: 64, kernel: 3}), got %s",
                        ts->name, params->kind == YN_SEQ ? "a list" : "a scalar");
    const char *type = ts->name;
    /* unknown keys, then required ones */
    int nkeys = 0;
    while (ts->keys[nkeys])
        nkeys++;
    for (int i = 0; params && i < params->n; i++) {
        const YNode *k = params->key[i];
        int known = 0;
        for (int j = 0; j < nkeys; j++)
            known |= !strcmp(k->text, ts->keys[j]);
        if (known)
            continue;
        const char *sug = nearest(k->text, ts->keys, nkeys);
        if (sug)
            return diag_set(p->d, p->path, k->line, k->col, "%s: unknown key '%s' (did you mean '%s'?)", type,
                            k->text, sug);
        return diag_set(p->d, p->path, k->line, k->col, "%s: unknown key '%s'", type, k->text);
    }
    for (int j = 0; j < ts->nreq; j++)
        if (!params || !ytree_get(params, ts->keys[j]))
            return diag_set(p->d, p->path, item->line, item->col, "%s: missing key '%s'", type, ts->keys[j]);

    CnnLayer L = {0};
    L.kind = ts->kind;
    L.line = tnode->line;
    L.col = tnode->col;
    L.repeat = 1;
    L.sh = L.sw = 1;
    L.bias = ts->kind == CNN_FC;
    L.rate = 0.5;
    int stride_set = 0, bias_set = 0;
    const YNode *v;
    if (params) {
        if ((v = ytree_get(params, "repeat")) && get_int(p, v, type, "repeat", 1, CNN_MAX_REPEAT, &L.repeat))
            return -1;
        if ((v = ytree_get(params, "out")) && get_int(p, v, type, "out", 1, MAX_WIDTH, &L.out))
            return -1;
        if ((v = ytree_get(params, "kernel")) && get_pair(p, v, type, "kernel", 1, MAX_WINDOW, &L.kh, &L.kw))
            return -1;
        if ((v = ytree_get(params, "stride"))) {
            if (get_pair(p, v, type, "stride", 1, MAX_WINDOW, &L.sh, &L.sw))
                return -1;
            stride_set = 1;
        }
        if ((v = ytree_get(params, "pad")) && get_pad(p, v, type, &L.ph, &L.pw))
            return -1;
        if ((v = ytree_get(params, "bn")) && get_bool(p, v, type, "bn", &L.bn))
            return -1;
        if ((v = ytree_get(params, "relu")) && get_bool(p, v, type, "relu", &L.relu))
            return -1;
        if ((v = ytree_get(params, "bias"))) {
            if (get_bool(p, v, type, "bias", &L.bias))
                return -1;
            bias_set = 1;
        }
        if ((v = ytree_get(params, "op"))) {
            if (v->kind == YN_SCALAR && !strcmp(v->text, "max"))
                L.pool = CNN_POOL_MAX;
            else if (v->kind == YN_SCALAR && !strcmp(v->text, "avg"))
                L.pool = CNN_POOL_AVG;
            else
                return bad_value(p, v, type, "op", "max or avg");
        }
        if ((v = ytree_get(params, "rate"))) {
            char *end = NULL;
            double r = v->kind == YN_SCALAR ? strtod(v->text, &end) : -1.0;
            if (v->kind != YN_SCALAR || !v->text[0] || *end || !(r >= 0.0 && r < 1.0))
                return bad_value(p, v, type, "rate", "a number in [0, 1)");
            L.rate = r;
        }
    }
    if (ts->kind == CNN_CONV && !bias_set)
        L.bias = !L.bn;
    if (ts->kind == CNN_POOL && !stride_set) {
        L.sh = L.kh;
        L.sw = L.kw;
    }
    if (ts->kind == CNN_CONCAT || ts->kind == CNN_BLOCK) {
        if (depth >= CNN_MAX_DEPTH)
            return diag_set(p->d, p->path, tnode->line, tnode->col,
                            "%s: layers nested more than %d deep (concat and block inside each other)", type,
                            CNN_MAX_DEPTH);
        if (ts->kind == CNN_CONCAT) {
            const YNode *br = ytree_get(params, "branches");
            if (br->kind != YN_SEQ || br->n < 1)
                return bad_value(p, br, type, "branches", "a list of layer lists");
            if (br->n > CNN_MAX_BRANCHES)
                return diag_set(p->d, p->path, br->line, br->col, "concat: %d branches (at most %d)", br->n,
                                CNN_MAX_BRANCHES);
            int first = reserve_seqs(p, br->n);
            if (first < 0)
                return oom(p);
            L.seq = first;
            L.nseq = br->n;
            p->layer[idx] = L;
            for (int b = 0; b < br->n; b++) {
                char what[48];
                snprintf(what, sizeof what, "concat: branch %d", b + 1);
                if (parse_seq(p, br->val[b], depth + 1, first + b, what))
                    return -1;
            }
            return 0;
        }
        int first = reserve_seqs(p, 2);
        if (first < 0)
            return oom(p);
        L.seq = first;
        L.nseq = 2;
        p->layer[idx] = L;
        if (parse_seq(p, ytree_get(params, "main"), depth + 1, first, "block: key 'main'"))
            return -1;
        const YNode *sc = ytree_get(params, "shortcut");
        if (sc && !(sc->kind == YN_SEQ && sc->n == 0) &&
            parse_seq(p, sc, depth + 1, first + 1, "block: key 'shortcut'"))
            return -1;
        return 0;
    }
    p->layer[idx] = L;
    return 0;
}

/* A list of layers into seq[seq] (reserved by the caller). */
static int parse_seq(Parser *p, const YNode *list, int depth, int seq, const char *what)
{
    if (list->kind != YN_SEQ)
        return diag_set(p->d, p->path, list->line, list->col, "%s: expected a list of layers, got %s", what,
                        list->kind == YN_MAP ? "a mapping" : "a scalar");
    if (list->n < 1)
        return diag_set(p->d, p->path, list->line, list->col, "%s: an empty list of layers", what);
    if (p->n_layers + list->n > CNN_MAX_LAYERS)
        return diag_set(p->d, p->path, list->line, list->col, "the net has more than %d layers",
                        CNN_MAX_LAYERS);
    int first = reserve_layers(p, list->n);
    if (first < 0)
        return oom(p);
    p->seq[seq] = (CnnSeq){first, list->n};
    for (int i = 0; i < list->n; i++)
        if (parse_layer(p, list->val[i], depth, first + i))
            return -1;
    return 0;
}

void cnnload_free(void *ptr)
{
    CnnNet *net = ptr;
    if (!net)
        return;
    free(net->path);
    free(net->layer);
    free(net->seq);
    free(net);
}

CnnNet *cnnload_parse(const YNode *list, const char *path, Diag *d)
{
    Parser p = {0};
    p.path = path;
    p.d = d;
    CnnNet *net = calloc(1, sizeof *net);
    int ok = net && (net->path = strdup(path ? path : "")) && reserve_seqs(&p, 1) == 0;
    if (!ok)
        oom(&p);
    else
        ok = parse_seq(&p, list, 0, 0, "key 'net'") == 0;
    if (!ok) {
        free(p.layer);
        free(p.seq);
        cnnload_free(net);
        return NULL;
    }
    net->layer = p.layer;
    net->n_layers = p.n_layers;
    net->seq = p.seq;
    net->n_seqs = p.n_seqs;
    return net;
}

int cnnload_template(const YNode *root, const char *path, Model *model, CnnNet **out, Diag *d)
{
    *out = NULL;
    const YNode *key = NULL, *list = NULL;
    for (int i = 0; i < root->n; i++)
        if (!strcmp(root->key[i]->text, "net")) {
            key = root->key[i];
            list = root->val[i];
        }
    if (model->kind != MODEL_CNN) {
        if (key)
            return diag_set(d, path, key->line, key->col,
                            "key 'net': only a cnn model has a layer list (kind is '%s')",
                            model_kind_name(model->kind));
        return 0;
    }
    if (!list && !model->cnn)
        return diag_set(d, path, root->line, root->col,
                        "missing required key 'net' (the layer list of a cnn model)");
    if (model->image_size < 1)
        return diag_set(d, path, root->line, root->col,
                        "missing required key 'image_size' (cnn input height and width, pixels)");
    if (model->channels < 1)
        return diag_set(d, path, root->line, root->col,
                        "missing required key 'channels' (cnn input channels)");
    if (!list) /* a base's net, re-checked with this template's image_size */
        return cnn_check(model->cnn, model->image_size, model->channels, model->classes, NULL, d);
    CnnNet *net = cnnload_parse(list, path, d);
    if (!net)
        return -1;
    if (cnn_check(net, model->image_size, model->channels, model->classes, NULL, d)) {
        cnnload_free(net);
        return -1;
    }
    model->cnn = net;
    *out = net;
    return 0;
}
