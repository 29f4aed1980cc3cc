/* graph/graph.h — a model as lists of operations for one microbatch on one
 * device shard: FLOPs, bytes and GEMM shapes of each op, forward and
 * backward.  Built by graph_build() from the Model and the parts of the
 * strategy that change shapes (tp, sequence parallelism, microbatch,
 * precision, recompute).  Pure: no I/O, no globals; the Graph is a plain
 * value with fixed-size arrays. */
#ifndef DF_GRAPH_H
#define DF_GRAPH_H

#include <stdint.h>

#include "core/diag.h"
#include "core/types.h"

typedef enum {
    OP_GEMM,     /* batch x [m x k] . [k x n]; weights or activations */
    OP_MEMBOUND, /* elementwise / reduction: bytes moved through HBM, flops on vector units */
    OP_COMM,     /* a collective over the tensor-parallel group */
} OpKind;

typedef enum {
    COLL_ALLREDUCE,
    COLL_REDUCESCATTER,
    COLL_ALLGATHER,
    COLL_P2P,
    COLL_ALLTOALL,
    COLL_COUNT
} Collective;

/* Where an op sits for a stack's CUDA graphs (Framework.cuda_graphs): the
 * static-shape work of a layer (attention, norms, dense MLP, shared
 * experts), a mixture of experts' router (and its top-k), or outside what a
 * layer's graphs capture: a transformer's embedding, head and loss, and a
 * dropless mixture of experts' token path, whose shapes change every step
 * (permutation, dispatch, expert GEMMs, combine). */
typedef enum { SCOPE_LAYER, SCOPE_ROUTER, SCOPE_OUTSIDE } GraphScope;

/* One kernel or collective, or `repeat` of them run one after the other
 * (an LSTM's timesteps, a CNN's layers of one shape): the other fields
 * describe one run, and the step model charges every run its time, energy,
 * launch and latency. */
typedef struct {
    const char *name; /* static string: "qkv", "mlp_up.dgrad", "softmax" ... */
    OpKind kind;
    Component comp; /* breakdown component it is charged to */
    /* OP_GEMM: */
    int64_t batch, m, n, k;
    /* every op, one run: */
    double flops;  /* FLOPs (GEMM: 2*batch*m*n*k) */
    double bytes;  /* minimum HBM bytes read + written (GEMM: inputs + output once) */
    int repeat;    /* the op runs this many times in sequence; 0 or 1 = once */
    int sync;      /* the host waits for the device before dispatching it (a device-to-host copy of sizes) */
    int conv_call; /* OP_GEMM: a convolution's pass, one library call: each run also costs the device's
                      conv_call_overhead */
    int rnn_step;  /* OP_MEMBOUND: a recurrent cell, one per step: each run also costs the device's
                      rnn_step_overhead */
    int grouped;   /* the repeat runs are launched by one host call from a C++ loop (a grouped GEMM): one
                      dispatch and a kernel launch for each further run */
    int scatter;   /* OP_MEMBOUND: an accumulating scatter (index_put_ with accumulate, index_add_,
                      scatter_add_): at most the device's scatter_add rate */
    /* OP_COMM: */
    int group; /* OP_COMM: 0 the tensor-parallel group, GROUP_EP the expert-parallel one, GROUP_ETP the
                  expert-tensor-parallel one */
    Collective coll;
    double comm_bytes; /* message size per device (the full buffer, as NCCL counts it) */
    int fanout;        /* COLL_ALLTOALL of tokens: copies of each token in comm_bytes (top-k; 0: 1) */
    double hide;       /* OP_COMM: the share its layer's weight gradient covers (GraphParams.dgrad_overlap) */
    GraphScope scope;  /* what CUDA graphs of a stack capture it (Framework.cuda_graphs) */
} Op;

#define GROUP_EP  1
#define GROUP_ETP 2

/* How many times an op runs (its repeat, at least 1). */
static inline int op_runs(const Op *op)
{
    return op->repeat > 1 ? op->repeat : 1;
}

#define GRAPH_MAX_OPS 96

typedef struct {
    Op op[GRAPH_MAX_OPS];
    int n;
} OpList;

typedef struct {
    /* One transformer layer (or LSTM layer, CNN block), one microbatch,
     * one tensor-parallel shard. */
    OpList layer_fwd;
    OpList layer_bwd;       /* data- and weight-gradient work; no recompute */
    OpList layer_recompute; /* forward work redone in backward under the scenario's recompute */
    /* Embedding on the first stage, LM head + loss on the last. */
    OpList first_fwd, first_bwd;
    OpList last_fwd, last_bwd;
    /* A mixture of experts with dense layers (the first few, or all but
     * every n-th): one dense layer's lists beside the MoE layer's above,
     * for layers_dense of the layers. */
    OpList dense_fwd, dense_bwd, dense_recompute;
    int layers;       /* how many times layer_* repeats over the whole model */
    int layers_dense; /* of them, with dense_* in place of layer_* (0: none) */
    /* Multi-token prediction modules on the last stage, each a layer (as
     * layer_*; its projection, embedding and head in last_*). */
    int mtp;
    double params_mtp;        /* of params_total, the modules' (the embedding and head shared) */
    double params_mtp_expert; /* of those, their routed experts' */
    /* Parameter counts, whole model (not sharded).  Per layer: the average
     * over the layers where they differ (dense and MoE layers). */
    double params_total;
    double params_per_layer;
    double params_expert_per_layer; /* of those, the routed experts' (all of them, unsharded) */
    double params_embedding;        /* input embedding (+ learned positions) */
    double params_head;             /* LM head when not tied; 0 when tied */
    /* Width of the vocabulary tables (elements per row: the embedding's
     * and the head's), whose gradients may be row-sparse (model key
     * sparse_grads); 0: the model has none. */
    double embed_row, head_row;
    /* Model FLOPs of one sample, forward + backward, whole model, without
     * recompute (for MFU); the GEMM FLOPs the shards execute (recompute,
     * padding, replicated heads, a fused kernel's causal skip and
     * rematerialisation: the graph's own count); and the FLOPs the
     * scenario's activation recompute adds to the model's (HFU counts the
     * model's and these against MFU's peak, Korthikanti et al. 2022,
     * Sec. 5, so that HFU >= MFU). */
    double model_flops_per_sample;
    double hw_flops_per_sample;
    double recompute_flops_per_sample;
    /* Activation bytes stored per layer (the average over unlike layers) per microbatch per device
     * (Korthikanti et al. 2022, with tp / sp / recompute applied), and the
     * extra working set of one layer while it recomputes. */
    double act_bytes_per_layer;
    double act_bytes_recompute_working;
    double act_bytes_first; /* embedding-stage extras (e.g. embedding output) */
    double act_bytes_last;  /* LM-head logits and loss buffers */
    int bytes_per_elem;     /* one activation value as the stages exchange it: 2 for 16-bit and for fp8 or fp4
                             * training (whose GEMM operands alone are low-precision), 4 for fp32/tf32 */
    /* Pipelining.  A graph whose layers are identical (transformer, LSTM)
     * lists one layer and sets `layers`; the step model gives each stage
     * ceil(layers / (pp v)) v of them.  A graph of unlike layers (CNN)
     * lists the ops of its heaviest pipeline stage for GraphParams.pp and
     * sets layers = pp.  wavefront: units one microbatch is pipelined in
     * (1; an LSTM pipelines its timesteps across layer stages, Pal et al.
     * 2019, so a stage starts after one timestep, not one microbatch). */
    int wavefront;
    /* 1: the first stage's first layer is bidirectional (GNMT's encoder):
     * its output needs the whole sequence, so the wavefront starts only
     * after the first stage has run every unit (and drains likewise). */
    int serial_first;
    /* Bytes of the activation a stage sends to the next, per microbatch
     * (0: none or not pipelined). */
    double stage_boundary_bytes;
} Graph;

/* Rough rates of one device and of its tensor-parallel group, for a
 * builder that chooses between ways of splitting a layer by estimated time
 * (graph/cnn.c: kernel split or branch placement of a concat).  All 0:
 * unknown, and the builder keeps its default. */
typedef struct {
    double flop_s;         /* GEMM FLOP/s one device sustains */
    double hbm_bytes_s;    /* HBM bytes/s of a memory-bound op */
    double launch_s;       /* per kernel */
    double coll_latency_s; /* per all-gather on the tp group (a ring all-reduce: twice) */
    double coll_bytes_s;   /* all-gather buffer bytes per second on the tp group */
} GraphRates;

typedef struct {
    int tp;           /* tensor-parallel degree (>= 1) */
    int seq_parallel; /* 0/1 */
    int microbatch;   /* samples */
    Precision precision;
    Recompute recompute;
    int pp; /* pipeline stages (>= 1): graphs of unlike layers partition on it */
    GraphRates rates;
    int flash;          /* the training stack has fused (flash) attention: used when the model says auto */
    int cp;             /* context-parallel degree (0 or 1: none): a rank holds s/cp of each sequence */
    int ep;             /* expert-parallel degree (0 or 1: none): a rank holds experts/ep of each layer's */
    int etp;            /* expert-tensor-parallel degree: each expert's inner size split over etp (0: tp) */
    int quant_casts;    /* fp8/fp4: the stack quantizes linear-layer operands in kernels of their own */
    int quant_current;  /* ... from each tensor's own amax (current scaling, NVFP4): found before the cast */
    int quant_rowwise;  /* ... a scale a row, so each orientation is quantized from the 16-bit tensor */
    int sel_per_op;     /* selective recompute as PyTorch's per-op policy (torchtitan), not Megatron's */
    int sel_saves_a2a;  /* ... keeping the expert all-to-alls' outputs (not redone in recompute) */
    int unfused;        /* eager PyTorch: norms, rotary and activations as separate element-wise kernels */
    int eager_rope;     /* the rotary embedding as eager kernels, whatever unfused says */
    int eager_act;      /* the MLP's activation as eager kernels, whatever unfused says */
    int split_gate_up;  /* a gated MLP's gate and up projections as two GEMMs, not one of twice the width */
    int unfused_xent;   /* the LM loss op by op on an fp32 copy of the logits, not one fused kernel */
    int fused_dispatch; /* mixture of experts: a fused token dispatcher (DeepEP) rather than all-to-alls */
    int sequential_experts; /* mixture of experts: one module per local expert, each op dispatched alone */
    int nchw_transposes; /* a CNN in NCHW on tensor cores: each convolution's operands transposed to NHWC */
    int winograd; /* a CNN in NCHW on the vector units: 3x3 stride-1 convolutions as Winograd F(2x2,3x3) */
    int dgrad_overlap;   /* a CNN: a split layer's input-gradient exchange runs beside its weight gradient */
    int moe_score_apart; /* mixture of experts: the routed outputs weighted by their scores in kernels of
                            their own before the combine (torchtitan), not inside the unpermute
                            (Megatron-Core) */
    int moe_index_permute;   /* ... the permutation by PyTorch's indexing: its gradient a scatter-add */
    int moe_scatter_combine; /* ... the combine by scatter_add_ (atomic adds), not a gather */
    int moe_sort;            /* ... the re-sort by local expert (SortKind): an index gather, padded */
} GraphParams;

/* Whether a model's attention runs fused: its own choice, else the stack's. */
static inline int graph_attention_fused(const Model *m, const GraphParams *p)
{
    return m->attention == ATTN_FUSED || (m->attention == ATTN_AUTO && p->flash);
}

/* Build the graph.  Returns 0, or -1 with d filled when the model cannot be
 * built with these parameters (e.g. heads not divisible by tp). */
int graph_build(const Model *m, const GraphParams *p, Graph *g, Diag *d);

/* Sum of the FLOPs of the OP_GEMM ops of a list, every run counted. */
double graph_gemm_flops(const OpList *l);

/* Megatron-LM's parameter count of a GPT model:
 * 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)) (Narayanan et al. 2021, eq. 2). */
double graph_megatron_params(int layers, int hidden, int vocab, int seq_len);

/* Megatron-LM's FLOPs per iteration with batch B, no recompute:
 * 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) (Narayanan et al. 2021, eq. 3 without
 * the recompute forward). */
double graph_megatron_flops(double batch, int layers, int hidden, int vocab, int seq_len);

#endif
