/* graph/graph_internal.h — what the graph builders share inside src/graph:
 * the per-kind builders that graph_build() dispatches to, and small helpers
 * that make ops and append them to an OpList without overflowing it.  Not
 * part of the engine's public API (include graph.h for that). */
#ifndef DF_GRAPH_INTERNAL_H
#define DF_GRAPH_INTERNAL_H

#include "graph/graph.h"

/* Appends ops to one OpList.  The first failure (list full) is recorded in
 * d and every later append is ignored, so a builder can emit a whole list
 * and check `failed` once at the end. */
typedef struct {
    OpList *list;
    const char *list_name; /* "layer_fwd", ... for the diagnostic */
    Diag *d;
    int failed;       /* 0, or -1 after the first overflow */
    GraphScope scope; /* ops appended get at least this scope (SCOPE_LAYER < ROUTER < OUTSIDE) */
} OpSink;

void graph_sink_init(OpSink *k, OpList *list, const char *list_name, Diag *d);
/* Raise the sink's scope to at least `scope` (never lower it); the scope it
 * had, for the caller to restore. */
GraphScope graph_scope_raise(OpSink *k, GraphScope scope);
void graph_emit(OpSink *k, const Op *op);

/* batch x [m x k].[k x n]: flops 2*batch*m*n*k; bytes: both inputs read at
 * in_bytes per element, the output written once at out_bytes. */
Op graph_gemm_op(const char *name, Component comp, int64_t batch, int64_t m, int64_t n, int64_t k,
                 double in_bytes, double out_bytes);
/* The same shape with the HBM bytes given by the caller (fused kernels). */
Op graph_gemm_op_bytes(const char *name, Component comp, int64_t batch, int64_t m, int64_t n, int64_t k,
                       double bytes);
Op graph_membound_op(const char *name, Component comp, double bytes, double flops);
Op graph_comm_op(const char *name, Collective coll, double comm_bytes);

/* Bytes per element by precision.  Activations (stored tensors, membound
 * ops, collectives): 2 for fp16/bf16/fp8 (fp8 training keeps activations and
 * TP messages in bf16, as Transformer Engine does), 4 for fp32/tf32.  GEMM
 * inputs: the same, except 1 for fp8. */
int graph_act_elem_bytes(Precision p);
double graph_gemm_elem_bytes(Precision p);

/* Builders.  g arrives zeroed; each returns 0, or -1 with d filled. */
int transformer_build(const Model *m, const GraphParams *p, Graph *g, Diag *d);
int gemmmodel_build(const Model *m, const GraphParams *p, Graph *g, Diag *d);
int cnn_build(const Model *m, const GraphParams *p, Graph *g, Diag *d); /* graph/cnn.c */
int lstmmodel_build(const Model *m, const GraphParams *p, Graph *g, Diag *d);

#endif
