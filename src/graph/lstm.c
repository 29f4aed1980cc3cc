/* graph/lstm.c — LSTM models as op lists, in DeepFlow's decomposition
 * (Ardalani, Pal, Gupta, "DeepFlow"; Pal et al., IEEE Micro 2019,
 * "Optimizing multi-GPU parallelization strategies for deep learning
 * training"): per layer and timestep the gate GEMM (b, I + R, 4D), the
 * pointwise gate math, the projection GEMM (b, D, P) of an LSTMP layer
 * (Sak et al. 2014), and the softmax over the vocabulary; with DeepFlow's
 * kernel splits of the gate GEMM over the tensor-parallel group (RC, CR) and
 * layer pipelining across timesteps.  Two shapes:
 *  - language model (BigLSTM, Jozefowicz et al. 2016, "Exploring the Limits
 *    of Language Modeling"; f-lm's BIGLSTM): `layers` identical LSTMP
 *    layers, embedding on the first stage, (sampled) softmax on the last;
 *  - seq2seq (GNMT, Wu et al. 2016, as the MLPerf reference / NVIDIA GNMT v2
 *    builds it): enc_layers = dec_layers LSTM layers, the first encoder
 *    layer bidirectional, the second taking both directions (2D), residual
 *    connections, normalized Bahdanau attention on the first decoder layer's
 *    output whose context is concatenated to the input of every later
 *    decoder layer (2D), a shared source/target embedding and a classifier.
 * Units: FLOP, bytes, element counts.  b = microbatch (sequences), t = tp,
 * T = timesteps, D = cell size (hidden), P = projection (0: none), R = width
 * of a layer's output and recurrent input (P or D), I = a layer's input
 * width, V = vocabulary, S = sampled classes, e = bytes per activation.
 *
 * Choices, each stated once here:
 *  - Gate GEMM: DeepFlow counts (b, I + R, 4D) per step.  Here its input
 *    half is fused over time, one GEMM (b T, I, 4D) per layer ("gates.x"; no
 *    recurrence runs through it, as cuDNN does), and only the recurrent half
 *    (b, R, 4D) runs per step ("gates.h").  Same FLOPs.  Backward: the
 *    recurrent data gradient runs per step; the input data gradient and one
 *    weight gradient of [W_x; W_h] over the concatenated input run fused
 *    over time (m or k = b T).
 *  - Timesteps: every per-step op (the recurrent GEMM, the cell, the
 *    projection, their collectives) is one op of one step's shape that
 *    repeats T times (Op.repeat): the step model charges each of the T
 *    dependent kernels its own wave quantisation, launch, output write and
 *    collective latency.  (One GEMM of batch T would pack the steps into
 *    shared waves as if they were independent, which the recurrence
 *    forbids.)  A layer is a fixed number of ops whatever T.
 *  - Pointwise gate math, one fused kernel per step (cuDNN): read the 4D
 *    pre-activations and c(t-1), write the activated gates (kept for
 *    backward), c(t) and h(t): 11 e bytes and 20 FLOPs per cell (DeepFlow's 5
 *    per gate element); backward reads dh, the gates, c(t-1), c(t), dc(t+1)
 *    and writes the gate gradients and dc(t): 13 e bytes, 40 FLOPs per cell.
 *    DeepFlow charges unfused ops (13 accesses per gate element).
 *  - Kernel (tensor) parallelism, DeepFlow's splits of the gate GEMM
 *    (lstm_split; auto takes the one with less traffic per layer, which is RC
 *    for BigLSTM and GNMT):
 *      RC: each rank owns the 4 gates of D/t cells (columns 4D/t); the
 *        pointwise math is local; an LSTMP projection is row-parallel
 *        (Megatron-style) and all-reduces b P per step; without projection
 *        h is all-gathered (b D per step).  Backward mirrors it: the
 *        recurrent data gradient all-reduces b P (or reduce-scatters b D)
 *        per step, the input data gradient once per layer (b T I).
 *      CR: each rank owns I/t + R/t rows of the weights (the reduction
 *        dimension) and all 4D columns: the partial pre-activations are
 *        reduce-scattered (b 4D per step) so each rank runs its D/t cells;
 *        the projection reduce-scatters b P.  Backward all-gathers the gate
 *        gradients (b 4D) and the projection's output gradient (b P) per
 *        step.  Inputs and outputs stay sharded (I/t, R/t).
 *    comm_bytes is always the full buffer.  The embedding is split by
 *    columns (RC all-gathers its output); the softmax and the attention are
 *    split by classes / attention columns (Megatron's vocab-parallel head:
 *    three small fp32 all-reduces for the loss); under CR their input is
 *    all-gathered first and their input gradient reduce-scattered.
 *  - Softmax: the output GEMM (b T, R, C) with C = V, or C = S sampled
 *    classes shared by the batch (TensorFlow's sampled_softmax_loss, as
 *    BigLSTM trains): the S + b T weight rows are gathered first, their
 *    gradient scatter-added back.  Cross-entropy traffic as the transformer
 *    head's (e-byte logits, fp32 softmax).
 *  - Embedding lookup: b T rows of I read and written; backward a
 *    scatter-add into the touched rows.
 *  - GNMT as layer units: the step model repeats identical units, so a unit
 *    is one encoder layer (input D, T_src steps) and one decoder layer
 *    (input 2D: the layer below and the attention context, T_tgt steps),
 *    and layers = enc_layers: this is Wu et al.'s placement, one encoder and
 *    one decoder layer per GPU.  The true stack differs in three layers: the
 *    reverse direction of encoder layer 1 (an extra LSTM), encoder layer 2's
 *    2D input and decoder layer 1's D input; the reverse LSTM and the
 *    attention go to the first stage (first_fwd/first_bwd, the first unit's
 *    GPU in Wu et al.), and the other two cancel (exactly in parameters, in
 *    FLOPs when T_src = T_tgt).  Each unit has a residual add (GNMT's start
 *    at the third layer: two of eight overcounted, a cheap op).  Every
 *    layer's input has dropout (BigLSTM 10 %, GNMT 20 %).  The encoder's
 *    output travelling back to the first stage for the attention keys is
 *    not counted.
 *  - Attention (normalized Bahdanau, GNMT v2): keys and query projections
 *    (GEMMs over b T_src and b T_tgt rows), an additive score per (target,
 *    source) pair over A = D columns: unfused (Model.attention) it
 *    materialises the b T_tgt T_src A sum and its tanh (4 e bytes per
 *    element, as PyTorch's reference does); fused it reads the projections
 *    and writes the scores.  Then a softmax over the source and the context
 *    GEMM.  Computed in one go for all target steps after the first decoder
 *    layer (GNMT v2 feeds no context back into that layer).
 *  - Parameters: per layer 4D (I + R) weights + lstm_biases x 4D biases
 *    (+ D P projection, no bias), embedding V I, softmax V R + V bias (0
 *    when tied), GNMT attention 2 A D + 2 A + 1 (query, keys, v, the
 *    normalisation scalar and bias).  params_embedding also holds the
 *    first-stage extras (GNMT's reverse encoder LSTM and attention).
 *  - model_flops_per_sample: 3 x the forward GEMM FLOPs of one sequence on
 *    the true, unsharded architecture (the additive score's dot with v and
 *    the true-class logits of a sampled softmax are vector work, not
 *    counted); hw_flops_per_sample: the GEMM FLOPs this shard executes
 *    (padded classes, recompute) x t / b.
 *  - Activations kept for backward, per layer, microbatch and device:
 *    b T [e (4D/t gates + D/t cells + D/t pre-projection outputs (LSTMP) +
 *    the layer output R + the dropped input I) + I (dropout mask)], R and I
 *    divided by t under CR.  Full recompute keeps the layer input; selective
 *    recompute has nothing to drop (no attention core per layer) and keeps
 *    everything.  Sequence parallelism does not apply (ignored).
 *  - Pipelining: a stage starts one timestep after the one before it
 *    (wavefront = seq_len: fill and drain cost (pp - 1)/T of a stage time,
 *    Pal et al. 2019), and passes b T R e bytes per microbatch (GNMT: the
 *    encoder and decoder outputs and the context, b (T_src + 2 T_tgt) D e;
 *    divided by t under CR, whose outputs are sharded).  pp may not exceed
 *    the layer units (BigLSTM: 2, GNMT-8: 8). */
#include "graph/graph_internal.h"

/* Rough vector FLOPs per element (see the header comment). */
static const double FLOPS_CELL = 20.0;     /* per cell: 5 per gate element (DeepFlow) */
static const double FLOPS_CELL_BWD = 40.0; /* per cell, backward */
static const double FLOPS_DROPOUT = 2.0;   /* mask, scale */
static const double FLOPS_RESIDUAL = 1.0;  /* add */
static const double FLOPS_SCORE = 8.0;     /* add, tanh, multiply by v, sum */
static const double FLOPS_SOFTMAX = 5.0;   /* max, sub, exp, sum, div */
static const double FLOPS_XENT = 5.0;      /* max, sub, exp, sum, log */

static const int64_t GATES = 4;

/* Op names of one LSTM layer, by role. */
typedef struct {
    const char *dropout, *gates_x, *gates_h, *gates_rs, *cell, *proj, *proj_ar, *proj_rs, *h_ag, *residual;
    const char *residual_bwd, *proj_dgrad_ag, *proj_dgrad, *cell_bwd, *gates_ag, *gates_h_dgrad,
        *gates_h_dgrad_ar, *gates_h_dgrad_rs, *gates_x_dgrad, *gates_x_dgrad_ar, *gates_x_dgrad_rs,
        *gates_wgrad, *proj_wgrad, *dropout_bwd;
} Names;

#define LSTM_NAMES(P)                                                                                        \
    {                                                                                                        \
        P "dropout", P "gates.x", P "gates.h", P "gates.reducescatter", P "cell", P "proj",                  \
            P "proj.allreduce", P "proj.reducescatter", P "h.allgather", P "residual", P "residual.bwd",     \
            P "proj.dgrad.allgather", P "proj.dgrad", P "cell.bwd", P "gates.allgather", P "gates.h.dgrad",  \
            P "gates.h.dgrad.allreduce", P "gates.h.dgrad.reducescatter", P "gates.x.dgrad",                 \
            P "gates.x.dgrad.allreduce", P "gates.x.dgrad.reducescatter", P "gates.wgrad", P "proj.wgrad",   \
            P "dropout.bwd"                                                                                  \
    }

static const Names NAMES_LM = LSTM_NAMES("");
static const Names NAMES_ENC = LSTM_NAMES("enc.");
static const Names NAMES_DEC = LSTM_NAMES("dec.");
static const Names NAMES_REV = LSTM_NAMES("enc.rev.");

#undef LSTM_NAMES

/* Shapes of the model on one shard. */
typedef struct {
    int64_t b, t;     /* microbatch, tp */
    int64_t d, p, r;  /* cell D, projection P (0: none), output/recurrent width R */
    int64_t v, c, cl; /* vocab, softmax classes C (S or V), classes on this shard */
    int64_t ts, tt;   /* source and target timesteps (tt = 0 for a language model) */
    int64_t units;    /* layers (LM) or encoder/decoder layer pairs */
    int64_t a;        /* attention width A */
    int seq2seq, cr, fused_attn, tied;
    double biases; /* bias vectors per gate block */
    Recompute recompute;
    double e, e_in;
} Dims;

/* One LSTM layer. */
typedef struct {
    int64_t in;    /* input width I */
    int64_t steps; /* T */
    int residual;
    const Names *nm;
} Layer;

#define CHECK_FAIL(...)                                                                                      \
    do {                                                                                                     \
        diag_set(d, NULL, 0, 0, __VA_ARGS__);                                                                \
        return -1;                                                                                           \
    } while (0)

/* Wire bytes per layer and microbatch of each split (ring: all-gather and
 * reduce-scatter move the buffer once, all-reduce twice; the (t-1)/t factor
 * is common), for lstm_split = auto. */
static int cheaper_split_is_cr(const Dims *x, int64_t in)
{
    double b = (double)x->b, T = (double)x->ts, D = (double)x->d, P = (double)x->p;
    double rc = x->p ? T * 4.0 * b * P + 2.0 * b * T * (double)in : T * 2.0 * b * D + b * T * (double)in;
    double cr = T * 2.0 * (4.0 * b * D + b * P);
    return cr < rc;
}

static int check_dims(const Model *m, const GraphParams *p, Dims *x, Diag *d)
{
    /* tp and microbatch >= 1: checked by graph_build */
    if (m->seq_len < 1)
        CHECK_FAIL("seq_len must be >= 1, got %d", m->seq_len);
    if (m->hidden < 1)
        CHECK_FAIL("hidden must be >= 1, got %d", m->hidden);
    if (m->vocab < 1)
        CHECK_FAIL("vocab must be >= 1, got %d", m->vocab);
    if (m->proj < 0 || m->samples < 0 || m->tgt_len < 0 || m->enc_layers < 0 || m->dec_layers < 0)
        CHECK_FAIL("proj, samples, tgt_len, enc_layers and dec_layers must be >= 0");
    if (m->samples > m->vocab)
        CHECK_FAIL("samples (%d) must not exceed vocab (%d)", m->samples, m->vocab);
    int seq2seq = m->enc_layers > 0 || m->dec_layers > 0;
    if (seq2seq) {
        if (m->enc_layers < 2)
            CHECK_FAIL("enc_layers must be >= 2 (a bidirectional layer and the one above it), "
                       "got %d",
                       m->enc_layers);
        if (m->dec_layers != m->enc_layers)
            CHECK_FAIL("dec_layers (%d) must equal enc_layers (%d): a layer unit is one encoder "
                       "and one decoder layer",
                       m->dec_layers, m->enc_layers);
        if (m->proj > 0)
            CHECK_FAIL("proj is not supported for a seq2seq (enc_layers) LSTM");
    } else if (m->layers < 1) {
        CHECK_FAIL("layers must be >= 1, got %d", m->layers);
    }
    int64_t units = seq2seq ? m->enc_layers : m->layers;
    if (p->pp > units)
        CHECK_FAIL("pp (%d) exceeds the LSTM's %lld layer units: each stage needs one", p->pp,
                   (long long)units);
    int64_t t = p->tp;
    if (m->hidden % t != 0)
        CHECK_FAIL("hidden (%d) must be divisible by tp (%lld)", m->hidden, (long long)t);

    *x = (Dims){0};
    x->b = p->microbatch;
    x->t = t;
    x->d = m->hidden;
    x->p = m->proj;
    x->r = m->proj > 0 ? m->proj : m->hidden;
    x->v = m->vocab;
    x->c = m->samples > 0 ? m->samples : m->vocab;
    x->cl = (x->c + t - 1) / t;
    x->seq2seq = seq2seq;
    x->ts = m->seq_len;
    x->tt = seq2seq ? (m->tgt_len > 0 ? m->tgt_len : m->seq_len) : 0;
    x->units = units;
    x->a = m->hidden;
    x->fused_attn = graph_attention_fused(m, p);
    x->tied = m->tied_embeddings != 0;
    x->biases = m->lstm_biases > 0 ? m->lstm_biases : 1;
    x->recompute = p->recompute;
    x->e = graph_act_elem_bytes(p->precision);
    x->e_in = graph_gemm_elem_bytes(p->precision);
    if (t > 1) {
        if (m->lstm_split == LSTM_SPLIT_CR)
            x->cr = 1;
        else if (m->lstm_split == LSTM_SPLIT_AUTO)
            x->cr = cheaper_split_is_cr(x, x->r);
    }
    if (x->cr && x->r % t != 0)
        CHECK_FAIL("proj (%lld) must be divisible by tp (%lld) with the CR split", (long long)x->r,
                   (long long)t);
    return 0;
}

#undef CHECK_FAIL

/* ---- emit helpers -------------------------------------------------------- */

static void gemm(OpSink *k, const Dims *x, const char *name, Component comp, int64_t batch, int64_t m,
                 int64_t n, int64_t kk)
{
    Op op = graph_gemm_op(name, comp, batch, m, n, kk, x->e_in, x->e);
    graph_emit(k, &op);
}

static void membound(OpSink *k, const char *name, Component comp, double bytes, double flops)
{
    Op op = graph_membound_op(name, comp, bytes, flops);
    graph_emit(k, &op);
}

static void comm(OpSink *k, const Dims *x, const char *name, Collective coll, double comm_bytes)
{
    if (x->t == 1)
        return;
    Op op = graph_comm_op(name, coll, comm_bytes);
    graph_emit(k, &op);
}

/* Width of a tensor that stays sharded under CR and is whole under RC. */
static int64_t io_width(const Dims *x, int64_t w)
{
    return x->cr ? w / x->t : w;
}

/* Before a vocab- or column-parallel op (head, attention): CR leaves its
 * input sharded, so gather it. */
static void io_gather(OpSink *k, const Dims *x, const char *name, double elems)
{
    if (x->cr)
        comm(k, x, name, COLL_ALLGATHER, elems * x->e);
}

/* The partial input gradient of a column-parallel op, combined for the
 * layer below: CR and RC without projection want their D/t slice
 * (reduce-scatter), an RC LSTMP layer the whole P (all-reduce). */
static void io_grad(OpSink *k, const Dims *x, const char *ar_name, const char *rs_name, double elems)
{
    if (!x->cr && x->p > 0)
        comm(k, x, ar_name, COLL_ALLREDUCE, elems * x->e);
    else
        comm(k, x, rs_name, COLL_REDUCESCATTER, elems * x->e);
}

/* Per-step ops: one step's op, run `steps` times in sequence. */
static void gemm_steps(OpSink *k, const Dims *x, const char *name, int64_t steps, int64_t m, int64_t n,
                       int64_t kk)
{
    Op op = graph_gemm_op(name, COMP_GEMM, 1, m, n, kk, x->e_in, x->e);
    op.repeat = (int)steps;
    graph_emit(k, &op);
}

/* A cell of every step: the RNN library's per-step work (the device's
 * rnn_step_overhead) goes with it. */
static void cell_steps(OpSink *k, const char *name, int64_t steps, double bytes, double flops)
{
    Op op = graph_membound_op(name, COMP_MEMBOUND, bytes, flops);
    op.repeat = (int)steps;
    op.rnn_step = 1;
    graph_emit(k, &op);
}

static void comm_steps(OpSink *k, const Dims *x, const char *name, int64_t steps, Collective coll,
                       double comm_bytes)
{
    if (x->t == 1)
        return;
    Op op = graph_comm_op(name, coll, comm_bytes);
    op.repeat = (int)steps;
    graph_emit(k, &op);
}

/* ---- one LSTM layer ------------------------------------------------------ */

static void lstm_forward(OpSink *k, const Dims *x, const Layer *L)
{
    const Names *nm = L->nm;
    int64_t b = x->b, t = x->t, T = L->steps, D = x->d, P = x->p;
    int64_t n = x->cr ? GATES * D : GATES * D / t; /* gate columns on this shard */
    int64_t kin = io_width(x, L->in), krec = io_width(x, x->r);
    int64_t dl = D / t;                    /* cells on this shard */
    double cells = (double)b * (double)dl; /* cells of one step */
    double in = (double)b * (double)T * (double)kin;
    double e = x->e;

    membound(k, nm->dropout, COMP_MEMBOUND, in * (2.0 * e + 1.0), in * FLOPS_DROPOUT);
    gemm(k, x, nm->gates_x, COMP_GEMM, 1, b * T, n, kin);
    /* one step, T times */
    gemm_steps(k, x, nm->gates_h, T, b, n, krec);
    if (x->cr)
        comm_steps(k, x, nm->gates_rs, T, COLL_REDUCESCATTER, (double)b * (double)(GATES * D) * e);
    cell_steps(k, nm->cell, T, cells * 11.0 * e, cells * FLOPS_CELL);
    if (P > 0) {
        gemm_steps(k, x, nm->proj, T, b, P, dl);
        if (x->cr)
            comm_steps(k, x, nm->proj_rs, T, COLL_REDUCESCATTER, (double)b * (double)P * e);
        else
            comm_steps(k, x, nm->proj_ar, T, COLL_ALLREDUCE, (double)b * (double)P * e);
    } else if (!x->cr) {
        comm_steps(k, x, nm->h_ag, T, COLL_ALLGATHER, (double)b * (double)D * e);
    }
    if (L->residual) {
        double out = (double)b * (double)T * (double)krec;
        membound(k, nm->residual, COMP_MEMBOUND, 3.0 * out * e, out * FLOPS_RESIDUAL);
    }
}

static void lstm_backward(OpSink *k, const Dims *x, const Layer *L)
{
    const Names *nm = L->nm;
    int64_t b = x->b, t = x->t, T = L->steps, D = x->d, P = x->p, R = x->r;
    int64_t n = x->cr ? GATES * D : GATES * D / t;
    int64_t kin = io_width(x, L->in), krec = io_width(x, R);
    int64_t dl = D / t;
    double cells = (double)b * (double)dl;
    double in = (double)b * (double)T * (double)kin;
    double e = x->e;

    if (L->residual) {
        double out = (double)b * (double)T * (double)krec;
        membound(k, nm->residual_bwd, COMP_MEMBOUND, 3.0 * out * e, out * FLOPS_RESIDUAL);
    }
    /* one step, T times */
    if (P > 0) {
        if (x->cr)
            comm_steps(k, x, nm->proj_dgrad_ag, T, COLL_ALLGATHER, (double)b * (double)P * e);
        gemm_steps(k, x, nm->proj_dgrad, T, b, dl, P);
    }
    cell_steps(k, nm->cell_bwd, T, cells * 13.0 * e, cells * FLOPS_CELL_BWD);
    if (x->cr) {
        comm_steps(k, x, nm->gates_ag, T, COLL_ALLGATHER, (double)b * (double)(GATES * D) * e);
        gemm_steps(k, x, nm->gates_h_dgrad, T, b, R / t, GATES * D);
    } else {
        gemm_steps(k, x, nm->gates_h_dgrad, T, b, R, GATES * D / t);
        if (P > 0)
            comm_steps(k, x, nm->gates_h_dgrad_ar, T, COLL_ALLREDUCE, (double)b * (double)P * e);
        else
            comm_steps(k, x, nm->gates_h_dgrad_rs, T, COLL_REDUCESCATTER, (double)b * (double)D * e);
    }
    /* Fused over time: the input gradient, its TP reduction (RC), and one
     * weight gradient of [W_x; W_h] over the concatenated [x; r(t-1)]. */
    gemm(k, x, nm->gates_x_dgrad, COMP_GEMM, 1, b * T, kin, n);
    if (!x->cr)
        io_grad(k, x, nm->gates_x_dgrad_ar, nm->gates_x_dgrad_rs, (double)b * (double)T * (double)L->in);
    gemm(k, x, nm->gates_wgrad, COMP_GEMM, 1, kin + krec, n, b * T);
    if (P > 0)
        gemm(k, x, nm->proj_wgrad, COMP_GEMM, 1, dl, P, b * T);
    membound(k, nm->dropout_bwd, COMP_MEMBOUND, in * (2.0 * e + 1.0), in * FLOPS_DROPOUT);
}

/* ---- the layer unit ------------------------------------------------------ */

static void unit_layers(const Dims *x, Layer out[2], int *n)
{
    if (x->seq2seq) {
        out[0] = (Layer){x->d, x->ts, 1, &NAMES_ENC};
        out[1] = (Layer){2 * x->d, x->tt, 1, &NAMES_DEC};
        *n = 2;
    } else {
        out[0] = (Layer){x->r, x->ts, 0, &NAMES_LM};
        *n = 1;
    }
}

static void unit_forward(OpSink *k, const Dims *x)
{
    Layer L[2];
    int n;
    unit_layers(x, L, &n);
    for (int i = 0; i < n; i++)
        lstm_forward(k, x, &L[i]);
}

static void unit_backward(OpSink *k, const Dims *x)
{
    Layer L[2];
    int n;
    unit_layers(x, L, &n);
    for (int i = n - 1; i >= 0; i--)
        lstm_backward(k, x, &L[i]);
}

/* Full recompute: the forward unit again (compute as COMP_RECOMPUTE,
 * collectives as they are).  Selective: nothing to drop. */
static void unit_recompute(OpSink *k, const Dims *x, const OpList *fwd)
{
    if (x->recompute != RECOMPUTE_FULL)
        return;
    for (int i = 0; i < fwd->n; i++) {
        Op op = fwd->op[i];
        if (op.kind != OP_COMM)
            op.comp = COMP_RECOMPUTE;
        graph_emit(k, &op);
    }
}

/* ---- embedding, attention, softmax --------------------------------------- */

/* Rows of the embedding lookup: the source tokens, and the target tokens of
 * a seq2seq model (shared table). */
static double embed_rows(const Dims *x)
{
    return (double)x->b * (double)(x->ts + x->tt);
}

static int64_t embed_width(const Dims *x)
{
    return x->seq2seq ? x->d : x->r;
}

/* Column-split table: each rank reads its I/t columns of the b T rows and
 * writes them; RC all-gathers the whole input. */
static void embed_forward(OpSink *k, const Dims *x)
{
    double rows = embed_rows(x), w = (double)embed_width(x);
    membound(k, "embed", COMP_EMBED_HEAD, 2.0 * rows * w / (double)x->t * x->e, 0.0);
    if (!x->cr)
        comm(k, x, "embed.allgather", COLL_ALLGATHER, rows * w * x->e);
}

/* Scatter-add of this rank's gradient columns into the touched rows. */
static void embed_backward(OpSink *k, const Dims *x)
{
    double el = embed_rows(x) * (double)embed_width(x) / (double)x->t;
    membound(k, "embed.wgrad", COMP_EMBED_HEAD, 3.0 * el * x->e, el);
}

/* Normalized Bahdanau attention of GNMT v2, split over the A attention
 * columns (keys, query, score) and the D context columns. */
static void attention_forward(OpSink *k, const Dims *x)
{
    int64_t b = x->b, t = x->t, ts = x->ts, tt = x->tt, D = x->d, al = x->a / t;
    double e = x->e;
    double pairs = (double)b * (double)tt * (double)ts;
    double el = pairs * (double)al;
    io_gather(k, x, "attn.keys.allgather", (double)b * (double)ts * (double)D);
    gemm(k, x, "attn.keys", COMP_ATTENTION, 1, b * ts, al, D);
    io_gather(k, x, "attn.query.allgather", (double)b * (double)tt * (double)D);
    gemm(k, x, "attn.query", COMP_ATTENTION, 1, b * tt, al, D);
    if (x->fused_attn) /* read the projections, write fp32 partial scores */
        membound(k, "attn.score", COMP_ATTENTION,
                 (double)b * (double)(tt + ts) * (double)al * e + pairs * 4.0, el * FLOPS_SCORE);
    else /* write the sum, read it and write its tanh, read the tanh for v */
        membound(k, "attn.score", COMP_ATTENTION, el * 4.0 * e + pairs * 4.0, el * FLOPS_SCORE);
    comm(k, x, "attn.score.allreduce", COLL_ALLREDUCE, pairs * 4.0);
    membound(k, "attn.softmax", COMP_ATTENTION, pairs * (4.0 + e), pairs * FLOPS_SOFTMAX);
    gemm(k, x, "attn.context", COMP_ATTENTION, b, tt, D / t, ts);
    if (!x->cr)
        comm(k, x, "attn.context.allgather", COLL_ALLGATHER, (double)b * (double)tt * (double)D * e);
}

static void attention_backward(OpSink *k, const Dims *x)
{
    int64_t b = x->b, t = x->t, ts = x->ts, tt = x->tt, D = x->d, al = x->a / t;
    double e = x->e;
    double pairs = (double)b * (double)tt * (double)ts;
    double el = pairs * (double)al;
    gemm(k, x, "attn.context.dgrad_probs", COMP_ATTENTION, b, tt, ts, D / t);
    comm(k, x, "attn.probs.allreduce", COLL_ALLREDUCE, pairs * 4.0);
    gemm(k, x, "attn.context.dgrad_values", COMP_ATTENTION, b, ts, D / t, tt);
    membound(k, "attn.softmax.bwd", COMP_ATTENTION, pairs * 3.0 * e, pairs * FLOPS_SOFTMAX);
    if (x->fused_attn) /* recompute the score: read q, k and the score grad, write dq, dk */
        membound(k, "attn.score.bwd", COMP_ATTENTION,
                 2.0 * (double)b * (double)(tt + ts) * (double)al * e + pairs * e, 2.0 * el * FLOPS_SCORE);
    else /* read the tanh, write the sum's grad, read it twice to reduce into dq and dk */
        membound(k, "attn.score.bwd", COMP_ATTENTION, el * 4.0 * e + pairs * e, 2.0 * el * FLOPS_SCORE);
    gemm(k, x, "attn.query.dgrad", COMP_ATTENTION, 1, b * tt, D, al);
    io_grad(k, x, "attn.query.dgrad.allreduce", "attn.query.dgrad.reducescatter",
            (double)b * (double)tt * (double)D);
    gemm(k, x, "attn.query.wgrad", COMP_ATTENTION, 1, D, al, b * tt);
    gemm(k, x, "attn.keys.dgrad", COMP_ATTENTION, 1, b * ts, D, al);
    io_grad(k, x, "attn.keys.dgrad.allreduce", "attn.keys.dgrad.reducescatter",
            (double)b * (double)ts * (double)D);
    gemm(k, x, "attn.keys.wgrad", COMP_ATTENTION, 1, D, al, b * ts);
}

/* Rows of the softmax: the target steps of a seq2seq model, else all. */
static int64_t head_rows(const Dims *x)
{
    return x->b * (x->seq2seq ? x->tt : x->ts);
}

/* Sampled softmax: gather the S sampled and b T true-class rows of the
 * vocab-parallel softmax weights (about 1/t of them on each shard) and take
 * the true-class logits. */
static double sampled_rows(const Dims *x)
{
    return ((double)x->c + (double)head_rows(x)) / (double)x->t;
}

static void head_forward(OpSink *k, const Dims *x)
{
    int64_t rows = head_rows(x), R = x->r;
    double logits = (double)rows * (double)x->cl;
    io_gather(k, x, "softmax.allgather", (double)rows * (double)R);
    if (x->c < x->v)
        membound(k, "softmax.gather", COMP_EMBED_HEAD, 2.0 * sampled_rows(x) * (double)R * x->e,
                 2.0 * (double)rows / (double)x->t * (double)R);
    gemm(k, x, "softmax", COMP_EMBED_HEAD, 1, rows, x->cl, R);
    membound(k, "xent", COMP_EMBED_HEAD, logits * (x->e + 8.0), logits * FLOPS_XENT);
    double small = (double)rows * 4.0;
    comm(k, x, "xent.max.allreduce", COLL_ALLREDUCE, small);
    comm(k, x, "xent.sumexp.allreduce", COLL_ALLREDUCE, small);
    comm(k, x, "xent.target.allreduce", COLL_ALLREDUCE, small);
}

static void head_backward(OpSink *k, const Dims *x)
{
    int64_t rows = head_rows(x), R = x->r;
    double logits = (double)rows * (double)x->cl;
    membound(k, "xent.bwd", COMP_EMBED_HEAD, logits * (4.0 + x->e), logits * 2.0);
    gemm(k, x, "softmax.dgrad", COMP_EMBED_HEAD, 1, rows, R, x->cl);
    gemm(k, x, "softmax.wgrad", COMP_EMBED_HEAD, 1, x->cl, R, rows);
    if (x->c < x->v) /* read the row gradients, read and write the touched rows */
        membound(k, "softmax.scatter", COMP_EMBED_HEAD, 3.0 * sampled_rows(x) * (double)R * x->e,
                 sampled_rows(x) * (double)R);
    io_grad(k, x, "softmax.dgrad.allreduce", "softmax.dgrad.reducescatter", (double)rows * (double)R);
}

static void first_forward(OpSink *k, const Dims *x)
{
    embed_forward(k, x);
    if (x->seq2seq) {
        Layer rev = {x->d, x->ts, 0, &NAMES_REV};
        lstm_forward(k, x, &rev);
        attention_forward(k, x);
    }
}

static void first_backward(OpSink *k, const Dims *x)
{
    if (x->seq2seq) {
        Layer rev = {x->d, x->ts, 0, &NAMES_REV};
        attention_backward(k, x);
        lstm_backward(k, x, &rev);
    }
    embed_backward(k, x);
}

/* ---- counts -------------------------------------------------------------- */

/* Weights of one LSTM layer with input width `in`. */
static double lstm_params(const Dims *x, int64_t in)
{
    double D = (double)x->d, P = (double)x->p;
    return (double)GATES * D * ((double)in + (double)x->r) + x->biases * (double)GATES * D + D * P;
}

/* Forward GEMM FLOPs of one sequence through one LSTM layer. */
static double lstm_flops(const Dims *x, int64_t in, int64_t steps)
{
    double D = (double)x->d;
    return 2.0 * (double)steps * ((double)GATES * D * ((double)in + (double)x->r) + D * (double)x->p);
}

static void count_params(const Dims *x, Graph *g)
{
    double D = (double)x->d, V = (double)x->v, A = (double)x->a, R = (double)x->r;
    if (x->seq2seq) {
        g->params_per_layer = lstm_params(x, x->d) + lstm_params(x, 2 * x->d);
        double attention = 2.0 * A * D + 2.0 * A + 1.0;
        g->params_embedding = V * D + lstm_params(x, x->d) + attention;
    } else {
        g->params_per_layer = lstm_params(x, x->r);
        g->params_embedding = V * R;
    }
    g->params_head = x->tied ? 0.0 : V * R + V;
    g->embed_row = x->seq2seq ? D : R;
    g->head_row = x->tied ? 0.0 : R + 1.0; /* weights and bias */
    g->params_total = (double)x->units * g->params_per_layer + g->params_embedding + g->params_head;
}

static void count_flops(const Dims *x, Graph *g)
{
    double fwd;
    if (x->seq2seq) {
        double L = (double)x->units, D = (double)x->d, A = (double)x->a;
        double ts = (double)x->ts, tt = (double)x->tt;
        double enc = 2.0 * lstm_flops(x, x->d, x->ts) + lstm_flops(x, 2 * x->d, x->ts) +
                     (L - 2.0) * lstm_flops(x, x->d, x->ts);
        double dec = lstm_flops(x, x->d, x->tt) + (L - 1.0) * lstm_flops(x, 2 * x->d, x->tt);
        double attn = 2.0 * ts * D * A + 2.0 * tt * D * A + 2.0 * tt * ts * D;
        fwd = enc + dec + attn + 2.0 * tt * D * (double)x->c;
    } else {
        fwd =
            (double)x->units * lstm_flops(x, x->r, x->ts) + 2.0 * (double)x->ts * (double)x->r * (double)x->c;
    }
    g->model_flops_per_sample = 3.0 * fwd;

    double unit = graph_gemm_flops(&g->layer_fwd) + graph_gemm_flops(&g->layer_bwd) +
                  graph_gemm_flops(&g->layer_recompute);
    double ends = graph_gemm_flops(&g->first_fwd) + graph_gemm_flops(&g->first_bwd) +
                  graph_gemm_flops(&g->last_fwd) + graph_gemm_flops(&g->last_bwd);
    g->hw_flops_per_sample = ((double)x->units * unit + ends) * (double)x->t / (double)x->b;
    g->recompute_flops_per_sample =
        (double)x->units * graph_gemm_flops(&g->layer_recompute) * (double)x->t / (double)x->b;
}

/* Stored bytes of one LSTM layer (see the header comment). */
static double lstm_act(const Dims *x, const Layer *L)
{
    double bt = (double)x->b * (double)L->steps;
    int64_t cells = x->d / x->t;
    double dl = (double)cells;
    double in = (double)io_width(x, L->in), out = (double)io_width(x, x->r);
    double per = x->e * ((double)GATES * dl + dl + (x->p > 0 ? dl : 0.0) + out + in) + in;
    return bt * per;
}

static double lstm_input(const Dims *x, const Layer *L)
{
    return (double)x->b * (double)L->steps * (double)io_width(x, L->in) * x->e;
}

static void count_activations(const Dims *x, Graph *g)
{
    Layer L[2];
    int n;
    unit_layers(x, L, &n);
    double all = 0.0, input = 0.0;
    for (int i = 0; i < n; i++) {
        all += lstm_act(x, &L[i]);
        input += lstm_input(x, &L[i]);
    }
    if (x->recompute == RECOMPUTE_FULL) {
        g->act_bytes_per_layer = input;
        g->act_bytes_recompute_working = all;
    } else {
        g->act_bytes_per_layer = all;
        g->act_bytes_recompute_working = 0.0;
    }
    double e = x->e;
    /* First stage: token ids (8 bytes); GNMT's reverse encoder LSTM and the
     * attention's projections, probabilities and (unfused) tanh. */
    g->act_bytes_first = embed_rows(x) * 8.0;
    if (x->seq2seq) {
        Layer rev = {x->d, x->ts, 0, &NAMES_REV};
        double b = (double)x->b, ts = (double)x->ts, tt = (double)x->tt;
        int64_t acols = x->a / x->t;
        double al = (double)acols;
        g->act_bytes_first += lstm_act(x, &rev) + b * (ts + tt) * al * e + b * tt * ts * e;
        if (!x->fused_attn)
            g->act_bytes_first += b * tt * ts * al * e;
    }
    /* Last stage: the head input, the e-byte logits and their fp32 softmax,
     * the gathered rows of a sampled softmax. */
    double rows = (double)head_rows(x);
    double logits = rows * (double)x->cl;
    g->act_bytes_last = rows * (double)x->r * e + logits * (4.0 + e);
    if (x->c < x->v)
        g->act_bytes_last += sampled_rows(x) * (double)x->r * e;
}

/* ---- build --------------------------------------------------------------- */

#define NLISTS 7

/* Emit every list; g arrives zeroed (graph_build). */
static int emit_all(const Dims *x, Graph *g, Diag *d)
{
    OpSink k[NLISTS];
    graph_sink_init(&k[0], &g->layer_fwd, "layer_fwd", d);
    graph_sink_init(&k[1], &g->layer_bwd, "layer_bwd", d);
    graph_sink_init(&k[2], &g->layer_recompute, "layer_recompute", d);
    graph_sink_init(&k[3], &g->first_fwd, "first_fwd", d);
    graph_sink_init(&k[4], &g->first_bwd, "first_bwd", d);
    graph_sink_init(&k[5], &g->last_fwd, "last_fwd", d);
    graph_sink_init(&k[6], &g->last_bwd, "last_bwd", d);
    unit_forward(&k[0], x);
    unit_backward(&k[1], x);
    unit_recompute(&k[2], x, &g->layer_fwd);
    first_forward(&k[3], x);
    first_backward(&k[4], x);
    head_forward(&k[5], x);
    head_backward(&k[6], x);
    for (int i = 0; i < NLISTS; i++)
        if (k[i].failed)
            return -1;
    return 0;
}

int lstmmodel_build(const Model *m, const GraphParams *p, Graph *g, Diag *d)
{
    Dims x = {0};
    if (check_dims(m, p, &x, d) != 0)
        return -1;
    if (emit_all(&x, g, d) != 0)
        return -1;

    g->layers = (int)x.units;
    g->bytes_per_elem = (int)x.e;
    count_params(&x, g);
    count_flops(&x, g);
    count_activations(&x, g);
    g->wavefront = (int)x.ts;
    g->serial_first = x.seq2seq; /* GNMT's first encoder layer is bidirectional */
    double boundary = x.seq2seq ? (double)x.b * (double)(x.ts + 2 * x.tt) * (double)x.d
                                : (double)x.b * (double)x.ts * (double)x.r;
    g->stage_boundary_bytes = boundary * x.e / (x.cr ? (double)x.t : 1.0);
    return 0;
}
