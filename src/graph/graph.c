/* graph/graph.c — entry of the graph engine: checks the shape-changing
 * strategy parameters, dispatches on the model kind (transformer.c for
 * MODEL_TRANSFORMER, the single-GEMM kernel study here), and holds the op
 * helpers the builders share and Megatron-LM's closed-form parameter and
 * FLOP counts (Narayanan et al. 2021, "Efficient Large-Scale Language Model
 * Training on GPU Clusters Using Megatron-LM", eqs. 2 and 3).
 * Units: FLOP, bytes, element counts. */
#include "graph/graph.h"

#include <stddef.h>
#include <string.h>

#include "graph/graph_internal.h"

/* ---- op helpers --------------------------------------------------------- */

void graph_sink_init(OpSink *k, OpList *list, const char *list_name, Diag *d)
{
    k->list = list;
    k->list_name = list_name;
    k->d = d;
    k->failed = 0;
    k->scope = SCOPE_LAYER;
}

GraphScope graph_scope_raise(OpSink *k, GraphScope scope)
{
    const GraphScope was = k->scope;
    if (scope > k->scope)
        k->scope = scope;
    return was;
}

void graph_emit(OpSink *k, const Op *op)
{
    if (k->failed)
        return;
    if (k->list->n >= GRAPH_MAX_OPS) {
        k->failed = diag_set(k->d, NULL, 0, 0, "too many operations in list '%s' (at most %d)", k->list_name,
                             GRAPH_MAX_OPS);
        return;
    }
    Op *out = &k->list->op[k->list->n++];
    *out = *op;
    if (k->scope > out->scope)
        out->scope = k->scope;
}

Op graph_gemm_op_bytes(const char *name, Component comp, int64_t batch, int64_t m, int64_t n, int64_t k,
                       double bytes)
{
    Op op = {0};
    op.name = name;
    op.kind = OP_GEMM;
    op.comp = comp;
    op.batch = batch;
    op.m = m;
    op.n = n;
    op.k = k;
    op.flops = 2.0 * (double)batch * (double)m * (double)n * (double)k;
    op.bytes = bytes;
    return op;
}

Op graph_gemm_op(const char *name, Component comp, int64_t batch, int64_t m, int64_t n, int64_t k,
                 double in_bytes, double out_bytes)
{
    double bm = (double)m, bn = (double)n, bk = (double)k;
    double bytes = (double)batch * ((bm * bk + bk * bn) * in_bytes + bm * bn * out_bytes);
    return graph_gemm_op_bytes(name, comp, batch, m, n, k, bytes);
}

Op graph_membound_op(const char *name, Component comp, double bytes, double flops)
{
    Op op = {0};
    op.name = name;
    op.kind = OP_MEMBOUND;
    op.comp = comp;
    op.bytes = bytes;
    op.flops = flops;
    return op;
}

Op graph_comm_op(const char *name, Collective coll, double comm_bytes)
{
    Op op = {0};
    op.name = name;
    op.kind = OP_COMM;
    op.comp = COMP_TP_COMM;
    op.coll = coll;
    op.comm_bytes = comm_bytes;
    return op;
}

double graph_gemm_flops(const OpList *l)
{
    double sum = 0.0;
    for (int i = 0; i < l->n; i++)
        if (l->op[i].kind == OP_GEMM)
            sum += l->op[i].flops * op_runs(&l->op[i]);
    return sum;
}

int graph_act_elem_bytes(Precision p)
{
    return (int)precision_value_bytes(p);
}

double graph_gemm_elem_bytes(Precision p)
{
    return precision_operand_bytes(p);
}

/* ---- MODEL_GEMM: one matrix multiply for kernel studies ------------------ */

/* One forward GEMM [m x k].[k x n], batch 1, on one device: the microbatch,
 * tp and recompute do not apply; no backward, no parameters; the operands
 * A, B and C are the device memory it holds (act_bytes_per_layer).  Inputs are read at the GEMM input element
 * size, the output written at the activation size (so (mk + kn + mn) * e except for fp8, whose 1-byte inputs
 * give a 2-byte output). */
int gemmmodel_build(const Model *m, const GraphParams *p, Graph *g, Diag *d)
{
    if (m->m < 1 || m->n < 1 || m->k < 1)
        return diag_set(d, NULL, 0, 0, "gemm m, n and k must be >= 1, got m=%lld n=%lld k=%lld",
                        (long long)m->m, (long long)m->n, (long long)m->k);
    double e_in = graph_gemm_elem_bytes(p->precision);
    double e_out = graph_act_elem_bytes(p->precision);
    OpSink k;
    graph_sink_init(&k, &g->layer_fwd, "layer_fwd", d);
    Op op = graph_gemm_op("gemm", COMP_GEMM, 1, m->m, m->n, m->k, e_in, e_out);
    graph_emit(&k, &op);
    if (k.failed)
        return -1;
    g->layers = 1;
    g->act_bytes_per_layer = op.bytes;
    g->model_flops_per_sample = op.flops;
    g->hw_flops_per_sample = op.flops;
    g->recompute_flops_per_sample = 0.0;
    g->bytes_per_elem = (int)e_out;
    return 0;
}

/* ---- entry --------------------------------------------------------------- */

/* An empty graph: every list empty and every figure 0.  The op arrays are
 * not cleared (96 KB, most of an evaluation's memory traffic): an op is
 * written whole when it is appended and never read past a list's n. */
static void graph_clear(Graph *g)
{
    OpList *lists[] = {&g->layer_fwd, &g->layer_bwd, &g->layer_recompute, &g->first_fwd, &g->first_bwd,
                       &g->last_fwd,  &g->last_bwd,  &g->dense_fwd,       &g->dense_bwd, &g->dense_recompute};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        lists[i]->n = 0;
    memset((char *)g + offsetof(Graph, layers), 0, sizeof *g - offsetof(Graph, layers));
}

int graph_build(const Model *m, const GraphParams *p, Graph *g, Diag *d)
{
    graph_clear(g);
    if ((unsigned)p->precision >= (unsigned)PREC_COUNT)
        return diag_set(d, NULL, 0, 0, "unknown precision (%d)", (int)p->precision);
    if ((unsigned)p->recompute > (unsigned)RECOMPUTE_FULL)
        return diag_set(d, NULL, 0, 0, "unknown recompute mode (%d)", (int)p->recompute);
    if (m->kind != MODEL_GEMM) { /* what every graph with a batch and a split needs */
        if (p->tp < 1)
            return diag_set(d, NULL, 0, 0, "tp must be >= 1, got %d", p->tp);
        if (p->microbatch < 1)
            return diag_set(d, NULL, 0, 0, "microbatch must be >= 1, got %d", p->microbatch);
    }
    switch (m->kind) {
    case MODEL_TRANSFORMER:
        return transformer_build(m, p, g, d);
    case MODEL_GEMM:
        return gemmmodel_build(m, p, g, d);
    case MODEL_LSTM:
        return lstmmodel_build(m, p, g, d);
    case MODEL_CNN:
        return cnn_build(m, p, g, d);
    case MODEL_KIND_COUNT:
    default:
        break;
    }
    return diag_set(d, NULL, 0, 0, "unknown model kind (%d)", (int)m->kind);
}

/* ---- Megatron-LM closed forms ------------------------------------------- */

/* Narayanan et al. 2021, eq. 2: 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)).
 * Counts the layers' weights, biases and two layernorms and the word and
 * position embeddings; not the final layernorm (2h). */
double graph_megatron_params(int layers, int hidden, int vocab, int seq_len)
{
    double l = layers, h = hidden, v = vocab, s = seq_len;
    return 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (v + s) / (12.0 * l * h));
}

/* Narayanan et al. 2021, eq. 3 without the recompute forward (72 instead of
 * 96, 12 instead of 16): 72 B s l h^2 (1 + s/(6h) + V/(12 l h)). */
double graph_megatron_flops(double batch, int layers, int hidden, int vocab, int seq_len)
{
    double l = layers, h = hidden, v = vocab, s = seq_len;
    return 72.0 * batch * s * l * h * h * (1.0 + s / (6.0 * h) + v / (12.0 * l * h));
}
