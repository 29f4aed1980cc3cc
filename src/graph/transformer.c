/* graph/transformer.c — a GPT/BERT/Llama-style transformer as op lists: one
 * layer, one microbatch b, one tensor-parallel shard t, split as Megatron-LM
 * splits it (Shoeybi et al. 2019: QKV and MLP-up column-parallel, output
 * projection and MLP-down row-parallel; Korthikanti et al. 2022: sequence
 * parallelism and selective recompute), plus the embedding (first stage) and
 * the LM head with cross-entropy (last stage).  Also the parameter count,
 * the model and hardware FLOPs per sample and the stored activation bytes.
 * Units: FLOP, bytes, element counts; s = seq_len, h = hidden, a = heads,
 * kv = kv_heads, f = ffn, V = vocab, e = bytes per activation element.
 *
 * Choices, each stated once here:
 *  - Element sizes: activations, membound traffic and TP messages at 2 bytes
 *    (fp16, bf16, fp8) or 4 (fp32, tf32).  GEMM inputs at the same size,
 *    except fp8 where they are read at 1 byte; GEMM outputs are written at
 *    the activation size.  Stored activations for fp8: the inputs of the
 *    four linear layers (qkv, proj, mlp_up, mlp_down), which backward needs
 *    for the weight gradients, are kept as Transformer Engine keeps them, in
 *    fp8 (1 byte); the residual stream, Q, K, V and the MLP's inner tensors
 *    stay 16-bit.
 *  - GEMM bytes are the minimum traffic: both inputs read once, output
 *    written once.  Comm ops carry comm_bytes only (bytes = 0).
 *  - Membound FLOPs are rough per-element operation counts (table below);
 *    they only matter for the vector-unit roofline check.
 *  - Dropout is present as in Megatron GPT, for every model (Llama trains
 *    without it: this slightly overstates its traffic and stored masks).
 *  - Rotary positions: a membound "rope" op rotates Q and K after the qkv
 *    GEMM (and "rope.bwd" in backward); learned positions are an add in
 *    the embedding stage.
 *  - Unfused attention materialises the b*a/t*s*s scores: softmax + mask +
 *    dropout moves read scores (e) + write probs (e) + write the dropout mask
 *    (1) + read probs (e) + write dropped probs (e) = 4e + 1 bytes per score.
 *    GQA keys and values are expanded per query head there (as Megatron's
 *    unfused path does), so the batched GEMMs have batch b*a/t.
 *  - Fused (flash) attention is two OP_GEMMs "attn.qk" and "attn.av" with
 *    the FLOPs of QK^T and PV but bytes of Q, K, V, O and the fp32 row
 *    statistics only (no s*s traffic, no softmax op).  With a causal mask
 *    the kernel skips the score blocks above the diagonal (FlashAttention's
 *    causal path, 128-row blocks): of nb = ceil(s/128) block rows it runs
 *    nb(nb+1)/2 blocks, so the key length each query row sees is
 *    s (nb+1)/(2 nb).  Unfused attention computes every score and masks.  Its backward has five
 *    GEMMs: the flash kernel rematerialises S = QK^T ("attn.qk.remat"), then
 *    dP, dV, dQ, dK.  The remat is counted in hardware FLOPs.
 *  - Backward of a weight GEMM [m x k].[k x n]: X.dgrad (m x n).(n x k) and
 *    X.wgrad (k x m).(m x n); of an attention GEMM: two data gradients.
 *    Membound backward: about the forward traffic (norms also add the
 *    residual-stream gradient: 4 tensors; activations read grad and input).
 *  - Tensor-parallel comm: without sequence parallelism an all-reduce after
 *    each row-parallel GEMM forward and after each column-parallel dgrad;
 *    with it all-gather before the column-parallel GEMMs and reduce-scatter
 *    after the row-parallel ones, mirrored in backward.  Megatron re-gathers
 *    the sequence-sharded input for the wgrad GEMMs in backward overlapped
 *    with the dgrad GEMM; that hidden re-gather is not listed.  comm_bytes is
 *    always the full s*b*h*e buffer.
 *  - Vocab: shapes use V padded to a multiple of 128*t (Megatron's
 *    make-vocab-size-divisible-by 128); parameters and model FLOPs use the
 *    given V.  kv heads are replicated when t > kv (t must then be a
 *    multiple of kv); parameters and model FLOPs count them once.
 *  - Parameters: Megatron GPT (mlp gelu) has biases on every linear layer;
 *    SwiGLU models (Llama) have none; layernorm has 2h, RMSNorm h.  The final
 *    norm is counted, which Megatron's closed form leaves out (2h).
 *  - model_flops_per_sample: 3 x forward GEMM FLOPs of the whole unsharded
 *    model with the given V, attention score/context GEMMs included.
 *    hw_flops_per_sample: the GEMM FLOPs this shard really executes
 *    (forward, backward, recompute, flash remat, padded vocab, replicated kv
 *    heads) x t / b.
 *  - Activations: Korthikanti et al. 2022 term by term, with e-byte tensors
 *    and 1-byte dropout masks, generalised to GQA and SwiGLU (the stored
 *    tensor widths follow the real shapes; for gelu MHA with f = 4h and
 *    e = 2 it is exactly 34 + 5as/h). */
#include "graph/graph_internal.h"

#include <math.h>
#include <string.h>

/* Rough vector FLOPs per element (see the header comment). */
static const double FLOPS_LAYERNORM = 8.0;   /* mean, variance, normalise, scale, shift */
static const double FLOPS_RMSNORM = 5.0;     /* square, sum, rsqrt-scale, weight */
static const double FLOPS_GELU = 10.0;       /* tanh approximation */
static const double FLOPS_SWIGLU = 6.0;      /* silu(gate) * up */
static const double FLOPS_ROPE = 3.0;        /* rotate pairs: 2 mul + 1 add */
static const double FLOPS_SOFTMAX = 9.0;     /* scale, mask, max, sub, exp, sum, div, dropout x2 */
static const double FLOPS_DROPOUT_RES = 3.0; /* mask, scale, residual add */
static const double FLOPS_XENT = 5.0;        /* max, sub, exp, sum, log */

/* Megatron-LM pads the vocabulary to a multiple of this times tp. */
static const int64_t VOCAB_PAD = 128;

/* Shapes of one layer on one shard. */
typedef struct {
    int64_t s, b, h, a, kv, f, v, vp, t, l;
    int64_t c;  /* context-parallel degree: this rank's queries are s/c of the sequence */
    int64_t sq; /* query rows of the sequence on this rank: s/c */
    /* mixture of experts (moe = 0: a dense MLP) */
    int moe;
    int64_t E, topk, ep, E_l;   /* routed experts, experts a token goes to, expert-parallel degree, E/ep */
    int64_t etp;                /* expert-tensor-parallel degree: an expert's inner size split over etp */
    int64_t f_e, f_e_l, n_up_e; /* one expert's inner size, /etp, its up projection's columns on this shard */
    int64_t shared;             /* shared experts (f_e each, split over the attention's t) */
    int64_t f_s_l, n_up_s; /* the shared experts' inner size on this shard (shared f_e / t), up columns */
    double rows_loc;       /* tokens this rank routes: s*b/t (Megatron-Core runs MoE with SP) */
    int64_t m_e;           /* tokens of the busiest local expert */
    int64_t hd;            /* head dimension h/a */
    /* multi-head latent attention (mla = 0: none): the query and key-value
     * bottlenecks (ql 0: queries projected directly), the decoupled rotary
     * width; a query-key pair spans hd_qk, a value hd_v (hd both without) */
    int mla;
    int64_t ql, kvl, rope, hd_qk, hd_v;
    int64_t s_kv;        /* key length the fused attention kernel runs per query row (causal: ~s/2) */
    int64_t kd_qk, kd_v; /* the head widths the fused kernel computes at (FlexAttention: a power of two) */
    int64_t a_l;         /* query heads on this shard: a/t */
    int64_t kv_l;        /* kv heads on this shard: kv/t, or 1 replicated when t > kv */
    int64_t n_qkv;       /* qkv output columns on this shard */
    int64_t f_l;         /* f/t */
    int64_t n_up;        /* mlp_up output columns: f/t, 2f/t for SwiGLU (gate and up fused) */
    int64_t rows;        /* tokens in the microbatch: s*b */
    double rows_seq;     /* tokens in the sequence-parallel regions on this shard: s*b/t with SP */
    int sp;              /* sequence parallelism (only when t > 1) */
    int swiglu, rms, rotary, learned, fused;
    int split;          /* SwiGLU's gate and up projections as two GEMMs (GraphParams.split_gate_up) */
    int dropless;       /* MoE without a capacity: the tokens per expert go to the host */
    int fused_dispatch; /* MoE: DeepEP's fused dispatch and combine, not all-to-alls */
    int score_apart;    /* MoE: the routed outputs weighted in kernels of their own (moe_score) */
    int index_permute;  /* MoE: the permutation by PyTorch's indexing, its backward an accumulating scatter */
    int scatter_combine; /* MoE: the combine by scatter_add_ (atomic adds) */
    int sort;            /* MoE: the re-sort by local expert (SortKind): chunks, an index gather, padded */
    int seq_experts;     /* MoE: one module per local expert (SequentialMLP), each op dispatched alone */
    int per_op;          /* selective recompute as PyTorch's per-op policy (dense layers) */
    int saves_a2a;       /* ... keeping the expert all-to-alls' outputs and their split sizes' copy */
    int unfused;         /* eager element-wise kernels (eager_traffic) */
    int eager_rope, eager_act; /* the rotary embedding, the activation eager whatever unfused says */
    int dropout;               /* dropout masks on the embedding and the residual branches */
    int unfused_xent;          /* the loss op by op on an fp32 copy of the logits (xent_bytes) */
    int64_t window;            /* sliding-window attention (0: none) */
    double window_share;       /* share of the layers with it */
    Recompute recompute;
    double e;          /* activation bytes per element */
    double e_in;       /* GEMM input bytes per element */
    int quant;         /* linear-layer operands quantized by kernels of their own (fp8, fp4) */
    int quant_current; /* ... from the tensor's own amax: the cast not fused into the producer */
    int quant_rowwise; /* ... a scale a row: the transposed copy quantized in passes of its own */
} Dims;

/* Fill d and fail (an explicit return, so static analysers need not know
 * that diag_set returns -1). */
#define CHECK_FAIL(...)                                                                                      \
    do {                                                                                                     \
        diag_set(d, NULL, 0, 0, __VA_ARGS__);                                                                \
        return -1;                                                                                           \
    } while (0)

/* The smallest power of two at least n (n >= 1). */
static int64_t pow2_ceil(int64_t n)
{
    int64_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

static int check_dims(const Model *m, const GraphParams *p, Dims *x, Diag *d)
{
    /* tp and microbatch >= 1: checked by graph_build */
    if (m->seq_len < 1)
        CHECK_FAIL("seq_len must be >= 1, got %d", m->seq_len);
    if (m->layers < 1)
        CHECK_FAIL("layers must be >= 1, got %d", m->layers);
    if (m->hidden < 1)
        CHECK_FAIL("hidden must be >= 1, got %d", m->hidden);
    if (m->heads < 1)
        CHECK_FAIL("heads must be >= 1, got %d", m->heads);
    if (m->vocab < 1)
        CHECK_FAIL("vocab must be >= 1, got %d", m->vocab);
    int kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
    int f = m->ffn > 0 ? m->ffn : 4 * m->hidden;
    int t = p->tp;
    if (m->hidden % m->heads != 0)
        CHECK_FAIL("hidden (%d) must be divisible by heads (%d)", m->hidden, m->heads);
    if (m->heads % t != 0)
        CHECK_FAIL("heads (%d) must be divisible by tp (%d)", m->heads, t);
    if (m->heads % kv != 0)
        CHECK_FAIL("heads (%d) must be divisible by kv_heads (%d)", m->heads, kv);
    if (t <= kv && kv % t != 0)
        CHECK_FAIL("kv_heads (%d) must be divisible by tp (%d)", kv, t);
    if (t > kv && t % kv != 0)
        CHECK_FAIL("tp (%d) must be a multiple of kv_heads (%d) when it exceeds them", t, kv);
    if (f % t != 0)
        CHECK_FAIL("ffn (%d) must be divisible by tp (%d)", f, t);
    int sp = p->seq_parallel && t > 1;
    const int c = p->cp > 1 ? p->cp : 1;
    if (c > 1 && m->seq_len % (2 * c) != 0)
        CHECK_FAIL("seq_len (%d) must be divisible by 2 x cp (2 x %d)", m->seq_len, c);
    if (c > 1 && !graph_attention_fused(m, p))
        CHECK_FAIL(
            "context parallelism (cp %d) runs attention as a ring of fused (flash) blocks: the model's "
            "attention is unfused",
            c);
    if (sp && m->seq_len % t != 0)
        CHECK_FAIL("seq_len (%d) must be divisible by tp (%d) with sequence parallelism", m->seq_len, t);
    if (sp && p->cp > 1 && (m->seq_len / p->cp) % t != 0)
        CHECK_FAIL("seq_len / cp (%d / %d) must be divisible by tp (%d) with sequence parallelism",
                   m->seq_len, p->cp, t);

    *x = (Dims){0};
    x->s = m->seq_len;
    x->c = c;
    x->sq = m->seq_len / c;
    x->b = p->microbatch;
    x->h = m->hidden;
    x->a = m->heads;
    x->kv = kv;
    x->f = f;
    x->v = m->vocab;
    x->t = t;
    x->l = m->layers;
    int64_t pad = VOCAB_PAD * x->t;
    x->vp = (x->v + pad - 1) / pad * pad;
    x->hd = m->head_dim > 0 ? m->head_dim : x->h / x->a;
    x->a_l = x->a / x->t;
    x->kv_l = x->t <= x->kv ? x->kv / x->t : 1;
    x->n_qkv = (x->a_l + 2 * x->kv_l) * x->hd;
    x->mla = m->kv_lora_rank > 0;
    x->ql = x->mla ? m->q_lora_rank : 0;
    x->kvl = x->mla ? m->kv_lora_rank : 0;
    x->rope = x->mla ? m->rope_head_dim : 0;
    x->hd_qk = x->hd + x->rope;
    x->hd_v = x->mla && m->v_head_dim > 0 ? m->v_head_dim : x->hd;
    x->f_l = x->f / x->t;
    x->swiglu = m->mlp == MLP_SWIGLU;
    x->n_up = x->swiglu ? 2 * x->f_l : x->f_l;
    x->rows = x->sq * x->b; /* this rank's tokens: s/c of each sequence */
    x->sp = sp;
    x->rows_seq = (double)x->rows / (sp ? (double)x->t : 1.0);
    x->rms = m->norm == NORM_RMSNORM;
    x->rotary = m->position == POS_ROTARY;
    x->learned = m->position == POS_LEARNED;
    x->dropout = m->dropout != 0;
    x->fused = graph_attention_fused(m, p);
    /* FlexAttention's Triton kernels stage a head at the next power of two
     * of its width ("launching blocks w/ head_dim rounded to the next valid
     * power", pytorch/pytorch#133495; "head dims round up to a power of two,
     * so 160, 192, 224 and 256 all stage what 256 does", #198228): a latent
     * attention's 192-wide query-key head computes as 256 */
    x->kd_qk = p->flash == FLASH_FLEX ? pow2_ceil(x->hd_qk) : x->hd_qk;
    x->kd_v = p->flash == FLASH_FLEX ? pow2_ceil(x->hd_v) : x->hd_v;
    x->s_kv = x->s;
    if (x->fused && m->causal) {
        const int64_t blk = 128, nb = (x->s + blk - 1) / blk;
        x->s_kv = (x->s * (nb + 1) + 2 * nb - 1) / (2 * nb); /* integer ceiling */
    }
    x->window = m->window > 0 && m->window < x->s ? m->window : 0;
    x->window_share = x->window ? (m->window_layers > 0 ? m->window_layers : 1.0) : 0.0;
    if (x->fused && x->window) {
        /* a query block meets the key blocks its window reaches (and the
         * diagonal one), on the windowed share of the layers; the layers
         * repeat one graph, so it carries the average key length */
        const int64_t blk = 128, near = ((x->window + blk - 1) / blk + 1) * blk;
        const double win = (double)(near < x->s_kv ? near : x->s_kv);
        x->s_kv = (int64_t)ceil((1.0 - x->window_share) * (double)x->s_kv + x->window_share * win);
    }
    if (m->experts > 0) {
        x->moe = 1;
        x->E = m->experts;
        x->topk = m->experts_per_token > 0 ? m->experts_per_token : 1;
        x->ep = p->ep > 1 ? p->ep : 1;
        /* group-limited routing: whole groups of experts, and enough of
         * them for a token's top-k */
        if (m->groups_per_token > 0 && m->expert_groups <= 1)
            CHECK_FAIL("groups_per_token (%d) needs expert_groups, the groups the experts fall in",
                       m->groups_per_token);
        if (m->expert_groups > 1) {
            if (m->experts % m->expert_groups != 0)
                CHECK_FAIL("experts (%d) must be divisible by expert_groups (%d)", m->experts,
                           m->expert_groups);
            if (m->groups_per_token > m->expert_groups)
                CHECK_FAIL("groups_per_token (%d) must be at most expert_groups (%d)", m->groups_per_token,
                           m->expert_groups);
            const int from = m->groups_per_token > 0 ? m->groups_per_token : m->expert_groups;
            if ((long long)from * (m->experts / m->expert_groups) < x->topk)
                CHECK_FAIL("groups_per_token (%d) groups of %d experts cannot hold a token's %d experts "
                           "(experts_per_token)",
                           from, m->experts / m->expert_groups, (int)x->topk);
        }
        if (x->E % x->ep != 0)
            CHECK_FAIL("experts (%d) must be divisible by ep (%lld)", m->experts, (long long)x->ep);
        x->E_l = x->E / x->ep;
        x->etp = p->etp > 0 ? p->etp : t;
        x->f_e = m->expert_ffn > 0 ? m->expert_ffn : f;
        if (x->f_e % x->etp != 0)
            CHECK_FAIL("expert_ffn (%lld) must be divisible by etp (%lld)", (long long)x->f_e,
                       (long long)x->etp);
        x->f_e_l = x->f_e / x->etp;
        x->n_up_e = x->swiglu ? 2 * x->f_e_l : x->f_e_l;
        x->shared = m->shared_experts;
        if (x->shared > 0 && x->f_e % t != 0)
            CHECK_FAIL("expert_ffn (%lld) must be divisible by tp (%d): the shared experts split over tp",
                       (long long)x->f_e, t);
        x->f_s_l = x->shared * (x->f_e / t);
        x->n_up_s = x->swiglu ? 2 * x->f_s_l : x->f_s_l;
        x->rows_loc = (double)x->rows / (double)t;
        /* each rank routes its rows/t tokens; the ep ranks send each other
         * their rows/t x k token-expert pairs, and each etp group gathers
         * its members': a rank's E/ep experts take (rows/t) etp k of them,
         * the busiest rank its share times the imbalance, at most the
         * capacity (token dropping).  Without expert parallelism one rank
         * holds every expert and takes every pair whatever the routing:
         * no imbalance */
        const double imb = x->ep > 1 && m->expert_imbalance >= 1 ? m->expert_imbalance : 1.0;
        const double cap = m->capacity_factor > 0 ? fmin(imb, m->capacity_factor) : imb;
        x->dropless = !(m->capacity_factor > 0);
        x->fused_dispatch = p->fused_dispatch;
        x->score_apart = p->moe_score_apart;
        x->index_permute = p->moe_index_permute;
        x->scatter_combine = p->moe_scatter_combine;
        x->sort = p->moe_sort;
        x->seq_experts = p->sequential_experts;
        x->m_e = (int64_t)ceil(x->rows_loc * (double)x->etp * (double)x->topk / (double)x->E_l * cap);
        if (x->m_e < 1)
            x->m_e = 1;
    }
    x->recompute = p->recompute;
    x->per_op = p->sel_per_op;
    x->saves_a2a = p->sel_saves_a2a;
    x->unfused = p->unfused;
    x->eager_rope = p->eager_rope;
    x->eager_act = p->eager_act;
    x->split = x->swiglu && p->split_gate_up;
    x->unfused_xent = p->unfused_xent;
    x->e = graph_act_elem_bytes(p->precision);
    x->e_in = graph_gemm_elem_bytes(p->precision);
    x->quant = p->quant_casts && x->e_in < x->e;
    x->quant_current = x->quant && p->quant_current;
    x->quant_rowwise = x->quant_current && p->quant_rowwise;
    return 0;
}

#undef CHECK_FAIL

/* ---- emit helpers -------------------------------------------------------- */

static void gemm(OpSink *k, const Dims *x, const char *name, Component comp, int64_t batch, int64_t m,
                 int64_t n, int64_t kk)
{
    /* the experts' GEMMs run one expert after another, each at its own
     * small shape's efficiency: Transformer Engine's GroupedLinear is one
     * Python call whose C++ loop launches a cuBLASLt GEMM per local expert
     * (te_general_grouped_gemm; NVIDIA/TransformerEngine
     * pytorch/module/grouped_linear.py and csrc/extensions/gemm.cpp at
     * d0067d0) */
    const int per_expert = batch > 1 && !strncmp(name, "expert_", 7);
    Op op = graph_gemm_op(name, comp, per_expert ? 1 : batch, m, n, kk, x->e_in, x->e);
    if (per_expert) {
        op.repeat = (int)batch;
        /* Megatron-Core's SequentialMLP (moe_grouped_gemm off): a module per
         * expert, each GEMM a Python call of its own */
        op.grouped = !x->seq_experts;
    }
    graph_emit(k, &op);
}

static void gemm_bytes(OpSink *k, const char *name, int64_t batch, int64_t m, int64_t n, int64_t kk,
                       double bytes)
{
    Op op = graph_gemm_op_bytes(name, COMP_ATTENTION, batch, m, n, kk, bytes);
    graph_emit(k, &op);
}

/* Data- and weight-gradient GEMMs of the forward [m x kk].[kk x n]. */
static void gemm_grads(OpSink *k, const Dims *x, const char *dname, const char *wname, Component comp,
                       int64_t m, int64_t n, int64_t kk)
{
    gemm(k, x, dname, comp, 1, m, kk, n);
    gemm(k, x, wname, comp, 1, kk, n, m);
}

/* Eager PyTorch runs a norm, the rotary embedding and SwiGLU as chains of
 * element-wise kernels, each a pass over HBM (Hugging Face's Llama):
 * RMSNorm casts to fp32, squares, averages, scales, casts back and weights
 * (36 bytes an element against a fused kernel's 4); the rotary embedding
 * multiplies by cos, negates and concatenates the halves, multiplies by sin
 * and adds (20 against 4); SwiGLU's silu and product (10 against 6).  The
 * factor on a fused op's traffic.  A stack may fuse its norms and run the
 * rotary embedding or the activation eagerly all the same (eager_rope,
 * eager_act: NeMo AutoModel's TE norms beside its own rotary code). */
static double eager_traffic(const Dims *x, const char *name)
{
    if (!strncmp(name, "rope", 4))
        return x->unfused || x->eager_rope ? 5.0 : 1.0;
    if (!strncmp(name, "swiglu", 6))
        return x->unfused || x->eager_act ? 10.0 / 6.0 : 1.0;
    if (!x->unfused)
        return 1.0;
    if (!strncmp(name, "ln", 2) || !strncmp(name, "final_norm", 10))
        return x->rms ? 9.0 : 1.0;
    return 1.0;
}

static void membound(OpSink *k, const char *name, Component comp, double bytes, double flops)
{
    Op op = graph_membound_op(name, comp, bytes, flops);
    graph_emit(k, &op);
}

/* A memory-bound op that is, where `scatter`, an accumulating scatter (Op.scatter) */
static void membound_scatter(OpSink *k, const char *name, double bytes, double flops, int scatter)
{
    Op op = graph_membound_op(name, COMP_MEMBOUND, bytes, flops);
    op.scatter = scatter;
    graph_emit(k, &op);
}

/* A memory-bound op over the local experts' tokens (the eager chain of
 * kernels where the stack runs one: eager_traffic): one kernel, or with one
 * module per expert (SequentialMLP) one kernel and one host dispatch per
 * expert, each over its share. */
static void expert_membound(OpSink *k, const Dims *x, const char *name, double bytes, double flops,
                            int64_t experts)
{
    Op op = graph_membound_op(name, COMP_MEMBOUND, bytes * eager_traffic(x, name), flops);
    if (x->seq_experts && experts > 1) {
        op.bytes /= (double)experts;
        op.flops /= (double)experts;
        op.repeat = (int)experts;
    }
    graph_emit(k, &op);
}

/* A memory-bound op an eager stack runs as a chain of kernels. */
static void membound_x(OpSink *k, const Dims *x, const char *name, Component comp, double bytes, double flops)
{
    membound(k, name, comp, bytes * eager_traffic(x, name), flops);
}

/* The quantization of a linear layer's operand for its low-precision GEMMs
 * (fp8, fp4), as Transformer Engine does it: a row-wise copy for this GEMM
 * and a column-wise (transposed) one for the other gradient GEMM, since
 * Hopper's fp8 tensor cores take only K-major operands and Blackwell's
 * block-scaled formats scale along the other axis [TE handling transposes;
 * nvte_cast_transpose].  A kernel of its own reads the e-byte tensor and
 * writes both q-byte copies: e + 2q bytes an element.  Fused into the norm
 * or activation that produces the operand (LayerNormLinear, LayerNormMLP,
 * the activation's backward with cast_transpose_dbias), the producer writes
 * q bytes instead of the e its op counts and the column-wise copy reads
 * and writes q: 3q - e an element, never below 0.  An amax per tensor is
 * taken in the same pass (one FLOP an element).  Under current scaling
 * (Framework.fp8_scaling) the scale is the tensor's own amax, known only
 * after a pass over all of it ("two tensor reads per quantization: one to
 * compute amax, one to cast", Transformer Engine's FP8 Current Scaling
 * guide): the producer writes the e-byte tensor and the cast reads it and
 * writes both copies, e + 2q an element where the producer is a norm or an
 * activation that takes the amax as it writes (TE's FUSED_NORM_AMAX_FP8:
 * "Compute norm and amax in high precision, then quantize to FP8"), 2e +
 * 2q where a pass of its own must find the amax first.  Row-wise scaling
 * (torchao's Float8 rowwise recipe: a scale a row, for the row-wise copy
 * along the operand's last axis, for the transposed one along its first)
 * cannot take both copies' scales from one amax: each copy is an amax and a
 * cast over the 16-bit tensor of its own, e + q or 2e + q for the row-wise
 * copy as above and 2e + q for the transposed one (torchao
 * float8/float8_linear.py, matmul_with_hp_or_float8_args: the backward
 * re-quantizes the saved high-precision input, weight and output gradient
 * with axiswise_dim 0). */
static void quantize_n(OpSink *k, const Dims *x, const char *name, double elems, int fused, int64_t experts)
{
    if (!x->quant)
        return;
    const double q = x->e_in, e = x->e;
    const double per = x->quant_rowwise   ? (fused ? 3.0 * e : 4.0 * e) + 2.0 * q
                       : x->quant_current ? (fused ? e : 2.0 * e) + 2.0 * q
                       : fused            ? fmax(0.0, 3.0 * q - e)
                                          : e + 2.0 * q;
    if (per > 0)
        expert_membound(k, x, name, elems * per, elems, experts);
}

static void quantize(OpSink *k, const Dims *x, const char *name, double elems, int fused)
{
    quantize_n(k, x, name, elems, fused, 1);
}

static void comm(OpSink *k, const char *name, Collective coll, double comm_bytes)
{
    Op op = graph_comm_op(name, coll, comm_bytes);
    graph_emit(k, &op);
}

/* An all-to-all on the expert-parallel group (token dispatch or combine):
 * this rank's token-expert pairs, a hidden vector each, and `extra` bytes
 * beside them; `sync`: the host waits for the device before it; nothing
 * with ep 1. */
static void a2a_x(OpSink *k, const Dims *x, const char *name, double extra, int sync)
{
    if (x->ep <= 1)
        return;
    Op op = graph_comm_op(name, COLL_ALLTOALL, x->rows_loc * (double)x->topk * (double)x->h * x->e + extra);
    op.group = GROUP_EP;
    op.fanout = (int)x->topk;
    op.comp = COMP_EP_COMM;
    op.sync = sync;
    graph_emit(k, &op);
}

static void a2a(OpSink *k, const Dims *x, const char *name)
{
    a2a_x(k, x, name, 0.0, 0);
}

/* The expert-tensor-parallel group's collective on the dispatched pairs
 * (Megatron-Core's all-to-all dispatcher: an all-gather after the
 * dispatch, a reduce-scatter before the combine; their reverse backward):
 * the etp members' pairs, a hidden vector each; nothing with etp 1. */
static void etp_coll(OpSink *k, const Dims *x, const char *name, Collective coll)
{
    if (x->etp <= 1)
        return;
    Op op = graph_comm_op(name, coll, x->rows_loc * (double)x->etp * (double)x->topk * (double)x->h * x->e);
    op.group = GROUP_ETP;
    graph_emit(k, &op);
}

/* Data- and weight-gradient GEMMs of a batch of forward [m x kk].[kk x n]. */
static void gemm_grads_b(OpSink *k, const Dims *x, const char *dname, const char *wname, int64_t batch,
                         int64_t m, int64_t n, int64_t kk)
{
    gemm(k, x, dname, COMP_GEMM, batch, m, kk, n);
    gemm(k, x, wname, COMP_GEMM, batch, kk, n, m);
}

static double full_buffer(const Dims *x)
{
    return (double)x->rows * (double)x->h * x->e;
}

static double norm_flops(const Dims *x)
{
    return x->rms ? FLOPS_RMSNORM : FLOPS_LAYERNORM;
}

/* All-gather of the sequence-sharded activations before a column-parallel
 * GEMM (sequence parallelism only). */
static void sp_gather(OpSink *k, const Dims *x, const char *name)
{
    if (x->sp)
        comm(k, name, COLL_ALLGATHER, full_buffer(x));
}

/* The same before a GEMM whose operand the stack quantizes (fp8, fp4): the
 * rank quantizes its own rows and the group gathers them in the narrow
 * type (Transformer Engine's LayerNormLinear and grad_output_preprocess
 * pass the quantizer to gather_along_first_dim: "FP8 all-gather is
 * supported", its FP8 scaling guides), q bytes an element. */
static void sp_gather_q(OpSink *k, const Dims *x, const char *name)
{
    if (x->sp)
        comm(k, name, COLL_ALLGATHER, full_buffer(x) * (x->quant ? x->e_in / x->e : 1.0));
}

/* After a row-parallel GEMM forward or a column-parallel dgrad: all-reduce,
 * or reduce-scatter with sequence parallelism; nothing when t = 1. */
static void tp_reduce(OpSink *k, const Dims *x, const char *ar_name, const char *rs_name)
{
    if (x->t == 1)
        return;
    if (x->sp)
        comm(k, rs_name, COLL_REDUCESCATTER, full_buffer(x));
    else
        comm(k, ar_name, COLL_ALLREDUCE, full_buffer(x));
}

/* ---- one layer ----------------------------------------------------------- */

/* The attention core: a query-key pair spans hd_qk, a value hd_v (both
 * the head dimension, except under latent attention). */
static void attention_forward(OpSink *k, const Dims *x)
{
    int64_t batch = x->b * x->a_l;
    if (x->fused) {
        /* this rank's queries (s/c of the sequence) against the keys of the
         * whole sequence, which the context-parallel ring brings past */
        double q = (double)(batch * x->sq * x->hd_qk);          /* Q elements */
        double o = (double)(batch * x->sq * x->hd_v);           /* O elements */
        double kh = (double)(x->b * x->kv_l * x->s * x->hd_qk); /* K elements */
        double vh = (double)(x->b * x->kv_l * x->s * x->hd_v);  /* V elements */
        double stats = (double)batch * (double)x->sq * 4.0;     /* fp32 logsumexp per row */
        gemm_bytes(k, "attn.qk", batch, x->sq, x->s_kv, x->kd_qk, (q + kh) * x->e_in);
        gemm_bytes(k, "attn.av", batch, x->sq, x->kd_v, x->s_kv, vh * x->e_in + o * x->e + stats);
        return;
    }
    double scores = (double)batch * (double)x->s * (double)x->s;
    gemm(k, x, "attn.scores", COMP_ATTENTION, batch, x->s, x->s, x->hd_qk);
    membound(k, "attn.softmax", COMP_ATTENTION, scores * (4.0 * x->e + 1.0), scores * FLOPS_SOFTMAX);
    gemm(k, x, "attn.context", COMP_ATTENTION, batch, x->s, x->hd_v, x->s);
}

static void attention_backward(OpSink *k, const Dims *x)
{
    int64_t batch = x->b * x->a_l;
    if (x->fused) {
        double q = (double)(batch * x->sq * x->hd_qk), o = (double)(batch * x->sq * x->hd_v);
        double kh = (double)(x->b * x->kv_l * x->s * x->hd_qk);
        double vh = (double)(x->b * x->kv_l * x->s * x->hd_v);
        double stats = (double)batch * (double)x->sq * 4.0;
        gemm_bytes(k, "attn.qk.remat", batch, x->sq, x->s_kv, x->kd_qk, (q + kh) * x->e_in + stats);
        gemm_bytes(k, "attn.av.dgrad_probs", batch, x->sq, x->s_kv, x->kd_v,
                   o * x->e + vh * x->e_in + o * x->e); /* dO, V, O (rowsum dO*O) */
        gemm_bytes(k, "attn.av.dgrad_v", batch, x->sq, x->kd_v, x->s_kv, vh * x->e);
        gemm_bytes(k, "attn.qk.dgrad_q", batch, x->sq, x->kd_qk, x->s_kv, q * x->e);
        gemm_bytes(k, "attn.qk.dgrad_k", batch, x->sq, x->kd_qk, x->s_kv, kh * x->e);
        return;
    }
    double scores = (double)batch * (double)x->s * (double)x->s;
    gemm(k, x, "attn.context.dgrad_probs", COMP_ATTENTION, batch, x->s, x->s, x->hd_v); /* dO V^T */
    gemm(k, x, "attn.context.dgrad_v", COMP_ATTENTION, batch, x->s, x->hd_v, x->s);     /* P^T dO */
    /* read dropped-probs grad (e), mask (1), probs (e); write scores grad (e) */
    membound(k, "attn.softmax.bwd", COMP_ATTENTION, scores * (3.0 * x->e + 1.0), scores * FLOPS_SOFTMAX);
    gemm(k, x, "attn.scores.dgrad_q", COMP_ATTENTION, batch, x->s, x->hd_qk, x->s); /* dS K */
    gemm(k, x, "attn.scores.dgrad_k", COMP_ATTENTION, batch, x->s, x->hd_qk, x->s); /* dS^T Q */
}

/* Width of the latent attention's compressed tensors: the query bottleneck,
 * the key-value one and the shared rotary key. */
static int64_t mla_latent(const Dims *x)
{
    return x->ql + x->kvl + x->rope;
}

/* The attention's input projections.  Without latent attention one fused
 * column-parallel qkv GEMM over the gathered sequence.  With it as
 * Megatron-Core runs it (DeepSeek-V2 2.1, DeepSeek-V3 2.1.1): the down
 * projections (to the query bottleneck, and to the compressed key-value
 * and the rotary key) on the rank's own sequence rows, their outputs
 * normed and gathered over tp (the latent, not the hidden, crosses the
 * group), then the column-parallel up projections by head, and the keys
 * assembled per head from their compressed part and the shared rotary
 * one. */
static void qkv_forward(OpSink *k, const Dims *x)
{
    if (!x->mla) {
        sp_gather_q(k, x, "ln1.allgather");
        quantize(k, x, "qkv.quant", (double)x->rows * (double)x->h, 1); /* fused into ln1 */
        gemm(k, x, "qkv", COMP_GEMM, 1, x->rows, x->n_qkv, x->h);
        return;
    }
    const int64_t own = x->sp ? (int64_t)ceil(x->rows_seq) : x->rows;
    const double e = x->e;
    quantize(k, x, "qkv.quant", (double)own * (double)x->h, 1);
    if (x->ql > 0)
        gemm(k, x, "q_down", COMP_GEMM, 1, own, x->ql, x->h);
    else
        gemm(k, x, "q_proj", COMP_GEMM, 1, x->rows, x->a_l * x->hd_qk, x->h);
    gemm(k, x, "kv_down", COMP_GEMM, 1, own, x->kvl + x->rope, x->h);
    membound_x(k, x, "ln1.latent", COMP_MEMBOUND, 2.0 * (double)own * (double)(x->ql + x->kvl) * e,
               (double)own * (double)(x->ql + x->kvl) * norm_flops(x));
    if (x->sp)
        comm(k, "latent.allgather", COLL_ALLGATHER, (double)x->rows * (double)mla_latent(x) * e);
    quantize(k, x, "latent.quant", (double)x->rows * (double)(x->ql + x->kvl), 1);
    if (x->ql > 0)
        gemm(k, x, "q_up", COMP_GEMM, 1, x->rows, x->a_l * x->hd_qk, x->ql);
    gemm(k, x, "kv_up", COMP_GEMM, 1, x->rows, x->a_l * (x->hd + x->hd_v), x->kvl);
    /* K per head: its compressed part and the shared rotary key, written once */
    membound(k, "k.assemble", COMP_MEMBOUND,
             (double)x->rows * (double)(x->a_l * (x->hd + x->hd_qk) + x->rope) * e, 0.0);
}

/* Their backward: the up projections' input gradients are partial sums
 * over the tensor ranks (reduced onto the latent, the rank's rows with
 * sequence parallelism), the down projections' run on the rank's rows and
 * need no reduction of the hidden-wide gradient.  (The down projections'
 * weight gradients, duplicated over tp, are reduced once a step with the
 * norms'; not listed.) */
static void qkv_backward(OpSink *k, const Dims *x)
{
    /* the attention's input gradients (latent attention: Q, and K's and V's per-head parts) */
    const int64_t n_in = x->mla ? x->a_l * (x->hd_qk + x->hd + x->hd_v) : x->n_qkv;
    quantize(k, x, "qkv.bwd.quant", (double)x->rows * (double)n_in, 0);
    if (!x->mla) {
        gemm_grads(k, x, "qkv.dgrad", "qkv.wgrad", COMP_GEMM, x->rows, x->n_qkv, x->h);
        tp_reduce(k, x, "qkv.dgrad.allreduce", "qkv.dgrad.reducescatter");
        return;
    }
    const int64_t own = x->sp ? (int64_t)ceil(x->rows_seq) : x->rows;
    const double e = x->e, lat = (double)x->rows * (double)mla_latent(x) * e;
    membound(k, "k.assemble.bwd", COMP_MEMBOUND,
             (double)x->rows * (double)(x->a_l * (x->hd + x->hd_qk) + x->rope) * e, 0.0);
    gemm_grads(k, x, "kv_up.dgrad", "kv_up.wgrad", COMP_GEMM, x->rows, x->a_l * (x->hd + x->hd_v), x->kvl);
    if (x->ql > 0)
        gemm_grads(k, x, "q_up.dgrad", "q_up.wgrad", COMP_GEMM, x->rows, x->a_l * x->hd_qk, x->ql);
    if (x->t > 1) {
        if (x->sp)
            comm(k, "latent.dgrad.reducescatter", COLL_REDUCESCATTER, lat);
        else
            comm(k, "latent.dgrad.allreduce", COLL_ALLREDUCE, lat);
    }
    membound_x(k, x, "ln1.latent.bwd", COMP_MEMBOUND, 4.0 * (double)own * (double)(x->ql + x->kvl) * e,
               2.0 * (double)own * (double)(x->ql + x->kvl) * norm_flops(x));
    gemm_grads(k, x, "kv_down.dgrad", "kv_down.wgrad", COMP_GEMM, own, x->kvl + x->rope, x->h);
    if (x->ql > 0) {
        gemm_grads(k, x, "q_down.dgrad", "q_down.wgrad", COMP_GEMM, own, x->ql, x->h);
    } else {
        gemm_grads(k, x, "q_proj.dgrad", "q_proj.wgrad", COMP_GEMM, x->rows, x->a_l * x->hd_qk, x->h);
        tp_reduce(k, x, "q_proj.dgrad.allreduce", "q_proj.dgrad.reducescatter");
    }
}

/* Elements the rotary embedding turns: every query and key head's, or
 * under latent attention the queries' rotary part and the one shared key. */
static double rope_elems(const Dims *x)
{
    if (x->mla)
        return (double)x->rows * (double)((x->a_l + 1) * x->rope);
    return (double)x->rows * (double)((x->a_l + x->kv_l) * x->hd);
}

static double rope_bytes(const Dims *x)
{
    return 2.0 * rope_elems(x) * x->e;
}

static double rope_flops(const Dims *x)
{
    return rope_elems(x) * FLOPS_ROPE;
}

/* Where a stack runs a SwiGLU's gate projection apart from its up
 * projection (x->split), the gate's op beside the up projection's op name. */
static const char *gate_op(const char *up)
{
    static const char *const pairs[][2] = {
        {"mlp_up", "mlp_gate"},
        {"expert_up", "expert_gate"},
        {"shared_up", "shared_gate"},
        {"mlp_up.quant", "mlp_gate.quant"},
        {"expert_up.quant", "expert_gate.quant"},
        {"mlp_up.bwd.quant", "mlp_gate.bwd.quant"},
        {"expert_up.bwd.quant", "expert_gate.bwd.quant"},
        {"mlp_up.dgrad", "mlp_gate.dgrad"},
        {"mlp_up.wgrad", "mlp_gate.wgrad"},
        {"expert_up.dgrad", "expert_gate.dgrad"},
        {"expert_up.wgrad", "expert_gate.wgrad"},
        {"shared_up.dgrad", "shared_gate.dgrad"},
        {"shared_up.wgrad", "shared_gate.wgrad"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (!strcmp(up, pairs[i][0]))
            return pairs[i][1];
    return up;
}

/* One MLP (or a batch of experts' MLPs): up projection, activation, down
 * projection, over m tokens each, f_l inner columns on this shard.  A
 * SwiGLU's gate and up projections are one GEMM of n_up = 2 f_l columns,
 * or, where the stack runs them apart (x->split: torchtitan's w1 and w3),
 * two of f_l, each reading the input.  Under fp8 each linear casts its own
 * input in eager PyTorch; a compiled stack (fused_elementwise) computes the
 * two identical casts of one tensor once.  In backward each gives an input
 * gradient that autograd sums: an add kernel of its own in eager PyTorch,
 * folded into the norm's backward where the stack compiles. */
static void mlp_forward(OpSink *k, const Dims *x, int64_t batch, int64_t m, int64_t f_l, int64_t n_up,
                        const char *up, const char *down, int dense)
{
    const double elems = (double)batch * (double)m * (double)f_l, e = x->e;
    const double flops = elems * (x->swiglu ? FLOPS_SWIGLU : FLOPS_GELU);
    /* a dense MLP's input comes from its norm (fused); experts' from the permutation */
    const int64_t ex = dense ? 1 : batch; /* the experts' ops, one per expert under SequentialMLP */
    const char *quant = dense ? "mlp_up.quant" : "expert_up.quant";
    const double in = (double)batch * (double)m * (double)x->h;
    const int64_t n_each = x->split ? n_up / 2 : n_up; /* each up-side GEMM's columns */
    if (x->split) {
        if (x->unfused)
            quantize_n(k, x, gate_op(quant), in, dense, ex);
        gemm(k, x, gate_op(up), COMP_GEMM, batch, m, n_each, x->h);
    }
    quantize_n(k, x, quant, in, dense, ex);
    gemm(k, x, up, COMP_GEMM, batch, m, n_each, x->h);
    if (x->swiglu) /* read gate and up, write f/t */
        expert_membound(k, x, "swiglu", elems * 3.0 * e, flops, ex);
    else
        expert_membound(k, x, "gelu", elems * 2.0 * e, flops, ex);
    quantize_n(k, x, dense ? "mlp_down.quant" : "expert_down.quant", elems, 1,
               ex); /* fused into the activation */
    gemm(k, x, down, COMP_GEMM, batch, m, x->h, f_l);
}

static void mlp_backward(OpSink *k, const Dims *x, int64_t batch, int64_t m, int64_t f_l, int64_t n_up,
                         const char *down_d, const char *down_w, const char *up_d, const char *up_w,
                         int dense)
{
    const double elems = (double)batch * (double)m * (double)f_l, e = x->e;
    const double flops = elems * (x->swiglu ? FLOPS_SWIGLU : FLOPS_GELU);
    /* the incoming gradient of the down projection's output: a kernel of its own */
    const int64_t ex = dense ? 1 : batch;
    quantize_n(k, x, dense ? "mlp_down.bwd.quant" : "expert_down.bwd.quant",
               (double)batch * (double)m * (double)x->h, 0, ex);
    gemm_grads_b(k, x, down_d, down_w, batch, m, x->h, f_l);
    if (x->swiglu) /* read grad f/t and gate, up; write grads of gate, up */
        expert_membound(k, x, "swiglu.bwd", elems * 5.0 * e, 2.0 * flops, ex);
    else /* read grad and input, write grad */
        expert_membound(k, x, "gelu.bwd", elems * 3.0 * e, 2.0 * flops, ex);
    /* the up projection's output gradient: fused into the activation's backward */
    const char *quant = dense ? "mlp_up.bwd.quant" : "expert_up.bwd.quant";
    const int64_t n_each = x->split ? n_up / 2 : n_up; /* each up-side GEMM's columns */
    const double grads = (double)batch * (double)m * (double)n_each;
    if (x->split) {
        quantize_n(k, x, gate_op(quant), grads, 1, ex);
        gemm_grads_b(k, x, gate_op(up_d), gate_op(up_w), batch, m, n_each, x->h);
    }
    quantize_n(k, x, quant, grads, 1, ex);
    gemm_grads_b(k, x, up_d, up_w, batch, m, n_each, x->h);
    if (x->split && x->unfused) { /* the two input gradients summed: read both, write one */
        const double in = (double)batch * (double)m * (double)x->h;
        expert_membound(k, x, dense ? "mlp_up.dgrad.sum" : "expert_up.dgrad.sum", 3.0 * in * e, in, ex);
    }
}

/* The small kernels of a dropless mixture of experts' routing and token
 * path, as Megatron-Core launches them with its fused router and fused
 * permutation (moe_router_fusion, moe_permute_fusion), counted in its code
 * (NVIDIA/Megatron-LM megatron/core/transformer/moe/router.py,
 * token_dispatcher.py, moe_utils.py, fused_a2a.py at d98e8a6): besides the gating GEMM and the fused top-k,
 * the router's auxiliary-loss scores, tokens per expert, fused load-balancing loss and its logging (7
 * kernels; forced balancing in benchmarks adds 2), and in backward the loss scaler, the loss's, scores' and
 * top-k's gradients, the logits' gradient sum and the gate's main_grad (7).  The all-to-all dispatcher counts
 * the tokens per rank (6 kernels and an all-gather of the counts over the expert-parallel group), copies 4
 * split tensors to the host, builds the permutation's row map (3 Triton kernels), sends each pair's routing
 * probability behind its token, and with several local experts sorts the received tokens by expert (a map and
 * a pass) and back (a copy, a map and a pass).  DeepEP's dispatch takes a top-k, a layout and a notify
 * kernel, and its combine a notify kernel; the received tokens become a multi-hot map (1) before the same
 * permutation. */
enum {
    MOE_ROUTER_FWD = 7,
    MOE_ROUTER_BWD = 6, /* and the gate's main_grad, an op of its own */
    DEEPEP_TOPK_BWD = 2,
    MOE_COUNT_KERNELS = 6,
    MOE_D2H_COPIES = 4,
    MOE_ROW_MAP_KERNELS = 3,
    MOE_SORT_MAP_KERNELS = 1,
    MOE_UNSORT_MAP_KERNELS = 2,
    DEEPEP_DISPATCH_KERNELS = 2,
};

/* count kernels of a few bytes each: their cost is their launch */
static void small_kernels(OpSink *k, const char *name, int count, double bytes)
{
    if (count <= 0)
        return;
    Op op = graph_membound_op(name, COMP_MEMBOUND, bytes, 0.0);
    op.repeat = count;
    graph_emit(k, &op);
}

/* The all-gather of the tokens per expert over the expert-parallel group
 * (int64 counts, a few bytes). */
static void ep_counts(OpSink *k, const Dims *x, double bytes)
{
    if (x->ep <= 1)
        return;
    Op op = graph_comm_op("moe.counts.allgather", COLL_ALLGATHER, bytes);
    op.group = GROUP_EP;
    op.comp = COMP_EP_COMM;
    graph_emit(k, &op);
}

/* The elements of the (token, expert) pairs a rank routes: tokens x top-k
 * x hidden. */
static double moe_pair_elems(const Dims *x)
{
    return x->rows_loc * (double)x->topk * (double)x->h;
}

/* The all-to-all dispatcher sorts a rank's received tokens by its several
 * local experts (and back); DeepEP's layout needs no sort.  A stack that
 * pads each expert's rows for torch._grouped_mm (SORT_INDEX_PADDED: torchtitan's
 * indices_padding_wrapper, "If EP is not used, we need to pad the indices
 * to prepare for grouped_mm; otherwise, EP will handle the padding", at
 * bb308da) re-sorts them even without expert parallelism, copying the
 * tokens twice: "x = torch.vstack((x, x.new_zeros((x.shape[-1]))))" then
 * "x = x[permuted_indices, :]" (torchtitan/models/moe/utils.py _permute,
 * and ExpertParallel's at f738a03). */
static int sorts_by_expert(const Dims *x)
{
    return !x->fused_dispatch && x->E_l > 1 && (x->ep > 1 || x->sort == SORT_INDEX_PADDED);
}

/* The routed outputs weighted by their routing scores apart from the
 * combine (Framework.moe_score_apart; torchtitan's MoE.forward at f738a03,
 * bb308da and 36a4b69: "routed_output = (routed_output.to(torch.float32) *
 * top_scores_experts_sorted.reshape(-1, 1)).to(x.dtype)", then
 * "out.scatter_add(dim=0, index=token_indices_experts_sorted,
 * src=routed_output)", the scatter-add being the unpermute): per element of
 * the n = tokens x top-k x hidden pairs, eager, a cast up (e + 4 bytes), the
 * multiply (8) and a cast down (4 + e), and in backward the casts' and the
 * multiply's gradients (the input's, 8, and the scores', a reduction over
 * the fp32 copy the multiply saved, 8); compiled (fused_elementwise), one
 * pass each way (2e, and 3e back).  With DeepEP the rank multiplies the
 * received outputs in 16 bits before unpermuting them
 * (torchtitan/distributed/deepep/deepep.py combine_tokens at 36a4b69): 2e,
 * and 4e back in two kernels eager. */
static void moe_score(OpSink *k, const Dims *x, int bwd)
{
    if (!x->score_apart)
        return;
    const double n = moe_pair_elems(x), e = x->e;
    if (!x->unfused) {
        membound(k, bwd ? "moe.score.bwd" : "moe.score", COMP_MEMBOUND, n * (bwd ? 3.0 : 2.0) * e,
                 n * (bwd ? 2.0 : 1.0));
        return;
    }
    if (x->fused_dispatch) {
        Op op = graph_membound_op(bwd ? "moe.score.bwd" : "moe.score", COMP_MEMBOUND, n * 2.0 * e, n);
        op.repeat = bwd ? 2 : 1;
        graph_emit(k, &op);
        return;
    }
    Op cast =
        graph_membound_op(bwd ? "moe.score.cast.bwd" : "moe.score.cast", COMP_MEMBOUND, n * (e + 4.0), 0.0);
    cast.repeat = 2;
    graph_emit(k, &cast);
    membound(k, bwd ? "moe.score.mul.bwd" : "moe.score.mul", COMP_MEMBOUND, n * (bwd ? 16.0 : 8.0),
             n * (bwd ? 2.0 : 1.0));
}

/* A mixture-of-experts MLP (GShard, Switch; Megatron-Core's all-to-all
 * dispatcher): the router scores the experts; the tokens go to the ranks of
 * their experts (all-to-all over the ep group), each rank runs its E/ep
 * experts as a batch of GEMMs over the busiest expert's tokens, the results
 * come back (all-to-all); shared experts run on every token.  The router
 * and the dispatcher's preprocessing (with the all-to-all dispatcher, the
 * permutation too) are what a stack's router-scope CUDA graphs capture
 * (moe_router, moe_preprocess). */
static void moe_forward(OpSink *k, const Dims *x)
{
    const int64_t rl = (int64_t)ceil(x->rows_loc);
    /* a tokens x experts table of 4-byte values (scores, the row map); the
     * tokens per expert of every rank (int64) */
    const double table = x->rows_loc * (double)x->E * 4.0, counts = (double)(x->E * x->ep) * 8.0;
    const GraphScope outer = graph_scope_raise(k, SCOPE_ROUTER), router = k->scope;
    /* dropless routing: the permutation, the all-to-all's split sizes and
     * the grouped GEMM need the tokens per expert on the host, a
     * device-to-host copy the host waits for before the dispatch
     * (Megatron-Core's alltoall dispatcher, d2h_event.synchronize(); DeepEP's
     * host spin on its received counts); with a capacity the sizes are
     * known.  The token path's shapes then change every step: no CUDA graph
     * captures it (the router before and the shared experts after it,
     * yes). */
    const GraphScope path = x->dropless ? SCOPE_OUTSIDE : outer;
    gemm(k, x, "router", COMP_GEMM, 1, rl, x->E, x->h);
    membound(k, "router.topk", COMP_MEMBOUND, x->rows_loc * (double)x->E * 2.0 * 4.0,
             x->rows_loc * (double)x->E * 4.0);
    small_kernels(k, "router.aux", MOE_ROUTER_FWD, table);
    /* tokens gathered by expert before the dispatch and scattered back (and
     * weighted) after the combine: each pair read and written once */
    const double pairs = moe_pair_elems(x) * x->e;
    if (!x->fused_dispatch) {
        small_kernels(k, "moe.counts", MOE_COUNT_KERNELS, counts);
        ep_counts(k, x, counts);
        if (x->dropless) {
            k->scope = SCOPE_OUTSIDE;
            small_kernels(k, "moe.d2h", MOE_D2H_COPIES, counts);
            k->scope = router;
        }
        small_kernels(k, "moe.permute.map", MOE_ROW_MAP_KERNELS, table);
        /* without an all-to-all the grouped GEMM's split sizes are what the host waits for */
        Op permute = graph_membound_op("moe.permute", COMP_MEMBOUND, 2.0 * pairs, 0.0);
        permute.sync = x->dropless && x->ep <= 1;
        graph_emit(k, &permute);
        k->scope = path;
        /* each pair's routing probability goes in an all-to-all of its own
         * right behind the tokens' (4 bytes a pair): counted as the
         * tokens' bytes, not as a second exchange's latency */
        a2a_x(k, x, "moe.dispatch", x->rows_loc * (double)x->topk * 4.0, x->dropless);
    } else {
        small_kernels(k, "moe.topk", 1, table);
        k->scope = path;
        small_kernels(k, "moe.dispatch.layout", DEEPEP_DISPATCH_KERNELS, counts);
        a2a_x(k, x, "moe.dispatch", 0.0, x->dropless);
        small_kernels(k, "moe.multihot", 1, table);
        small_kernels(k, "moe.permute.map", MOE_ROW_MAP_KERNELS, table);
        membound(k, "moe.permute", COMP_MEMBOUND, 2.0 * pairs, 0.0);
    }
    const int sort = sorts_by_expert(x);
    if (sort) { /* the received tokens in expert order */
        small_kernels(k, "moe.sort.map", MOE_SORT_MAP_KERNELS, counts);
        membound(k, "moe.sort", COMP_MEMBOUND, (x->sort == SORT_INDEX_PADDED ? 4.0 : 2.0) * pairs, 0.0);
    }
    etp_coll(k, x, "moe.etp.allgather", COLL_ALLGATHER);
    mlp_forward(k, x, x->E_l, x->m_e, x->f_e_l, x->n_up_e, "expert_up", "expert_down", 0);
    etp_coll(k, x, "moe.etp.reducescatter", COLL_REDUCESCATTER);
    if (sort) {
        small_kernels(k, "moe.unsort.map", MOE_UNSORT_MAP_KERNELS, counts);
        membound(k, "moe.unsort", COMP_MEMBOUND, 2.0 * pairs, 0.0);
    }
    if (x->fused_dispatch) { /* DeepEP: back in token order, then its combine */
        moe_score(k, x, 0);
        membound_scatter(k, "moe.unpermute", 2.0 * pairs, pairs / x->e, x->scatter_combine);
        small_kernels(k, "moe.combine.notify", 1, counts);
        a2a(k, x, "moe.combine");
    } else {
        a2a(k, x, "moe.combine");
        moe_score(k, x, 0);
        membound_scatter(k, "moe.unpermute", 2.0 * pairs, pairs / x->e, x->scatter_combine);
    }
    k->scope = outer;
    if (x->shared > 0)
        mlp_forward(k, x, 1, x->rows, x->f_s_l, x->n_up_s, "shared_up", "shared_down", 0);
}

static void moe_backward(OpSink *k, const Dims *x)
{
    if (x->shared > 0)
        mlp_backward(k, x, 1, x->rows, x->f_s_l, x->n_up_s, "shared_down.dgrad", "shared_down.wgrad",
                     "shared_up.dgrad", "shared_up.wgrad", 0);
    const double pairs = moe_pair_elems(x) * x->e;
    const double table = x->rows_loc * (double)x->E * 4.0, counts = (double)(x->E * x->ep) * 8.0;
    const GraphScope outer = k->scope;
    if (x->dropless)
        graph_scope_raise(k, SCOPE_OUTSIDE);
    const int sort = sorts_by_expert(x);
    if (x->fused_dispatch) { /* DeepEP's cached dispatch carries the combine's gradient */
        small_kernels(k, "moe.combine.bwd.notify", 1, counts);
        a2a(k, x, "moe.combine.bwd");
        membound(k, "moe.unpermute.bwd", COMP_MEMBOUND, 2.0 * pairs, pairs / x->e);
        moe_score(k, x, 1);
    } else {
        membound(k, "moe.unpermute.bwd", COMP_MEMBOUND, 2.0 * pairs, pairs / x->e);
        moe_score(k, x, 1);
        a2a(k, x, "moe.combine.bwd");
    }
    if (sort)
        membound(k, "moe.unsort.bwd", COMP_MEMBOUND, 2.0 * pairs, 0.0);
    etp_coll(k, x, "moe.etp.reducescatter.bwd", COLL_ALLGATHER);
    mlp_backward(k, x, x->E_l, x->m_e, x->f_e_l, x->n_up_e, "expert_down.dgrad", "expert_down.wgrad",
                 "expert_up.dgrad", "expert_up.wgrad", 0);
    etp_coll(k, x, "moe.etp.allgather.bwd", COLL_REDUCESCATTER);
    /* the gathers' gradients: where they are PyTorch's indexing, each an
     * accumulating scatter (index_put_ with accumulate, index_add_) */
    if (sort)
        membound_scatter(k, "moe.sort.bwd", 2.0 * pairs, 0.0, x->sort != SORT_CHUNKS);
    if (x->fused_dispatch) {
        membound_scatter(k, "moe.permute.bwd", 2.0 * pairs, 0.0, x->index_permute);
        small_kernels(k, "moe.multihot.bwd", 1, table);
        small_kernels(k, "moe.dispatch.bwd.notify", 1, counts);
        a2a(k, x, "moe.dispatch.bwd");
    } else {
        a2a(k, x, "moe.dispatch.bwd");
        membound_scatter(k, "moe.permute.bwd", 2.0 * pairs, 0.0, x->index_permute);
    }
    /* the MoE input's gradient: the tokens' path and the router's summed */
    membound(k, "moe.input.bwd", COMP_MEMBOUND, 3.0 * x->rows_loc * (double)x->h * x->e, 0.0);
    k->scope = outer;
    graph_scope_raise(k, SCOPE_ROUTER);
    small_kernels(k, "router.aux.bwd", MOE_ROUTER_BWD + (x->fused_dispatch ? DEEPEP_TOPK_BWD : 0), table);
    gemm_grads(k, x, "router.dgrad", "router.wgrad", COMP_GEMM, (int64_t)ceil(x->rows_loc), x->E, x->h);
    small_kernels(k, "router.main_grad", 1, (double)(x->E * x->h) * 4.0);
    k->scope = outer;
}

/* The residual add after a branch: with dropout the fused
 * bias-dropout-add reads the branch (e) and the residual (e) and writes the
 * mask (1) and the sum (e); without it a plain add. */
static void residual_forward(OpSink *k, const Dims *x, const char *with, const char *without)
{
    const double seq = x->rows_seq * (double)x->h, e = x->e;
    if (x->dropout)
        membound(k, with, COMP_MEMBOUND, seq * (3.0 * e + 1.0), seq * FLOPS_DROPOUT_RES);
    else
        membound(k, without, COMP_MEMBOUND, seq * 3.0 * e, seq);
}

/* A dropout pass over a sequence-region tensor that is not fused into an
 * add (the embedding's, and the backward of every dropout): read the
 * tensor (e) and the mask (1), write the result (e); none without dropout. */
static void dropout_pass(OpSink *k, const Dims *x, const char *name)
{
    const double seq = x->rows_seq * (double)x->h;
    if (x->dropout)
        membound(k, name, COMP_MEMBOUND, seq * (2.0 * x->e + 1.0), seq * 2.0);
}

static void layer_forward(OpSink *k, const Dims *x)
{
    double seq = x->rows_seq * (double)x->h; /* elements of a sequence-region s*b*h tensor */
    double e = x->e;

    membound_x(k, x, "ln1", COMP_MEMBOUND, 2.0 * seq * e, seq * norm_flops(x));
    qkv_forward(k, x);
    if (x->rotary)
        membound_x(k, x, "rope", COMP_MEMBOUND, rope_bytes(x), rope_flops(x));
    attention_forward(k, x);
    quantize(k, x, "proj.quant", (double)x->rows * (double)(x->a_l * x->hd_v), 0); /* attention's output */
    gemm(k, x, "proj", COMP_GEMM, 1, x->rows, x->h, x->a_l * x->hd_v);
    tp_reduce(k, x, "proj.allreduce", "proj.reducescatter");
    residual_forward(k, x, "dropout_residual1", "residual1");
    membound_x(k, x, "ln2", COMP_MEMBOUND, 2.0 * seq * e, seq * norm_flops(x));
    /* a mixture of experts routes the rank's own tokens; only its shared
     * experts, like a dense MLP, need the sequence gathered over tp */
    const int tp_mlp = !x->moe || x->shared > 0;
    if (tp_mlp)
        sp_gather_q(k, x, "ln2.allgather");
    if (x->moe)
        moe_forward(k, x);
    else
        mlp_forward(k, x, 1, x->rows, x->f_l, x->n_up, "mlp_up", "mlp_down", 1);
    if (tp_mlp)
        tp_reduce(k, x, "mlp_down.allreduce", "mlp_down.reducescatter");
    residual_forward(k, x, "dropout_residual2", "residual2");
}

static void layer_backward(OpSink *k, const Dims *x)
{
    double seq = x->rows_seq * (double)x->h;
    double e = x->e;

    /* the branch's gradient through its mask; without dropout the sum's
     * gradient is the branch's as it is (no kernel) */
    dropout_pass(k, x, "dropout_residual2.bwd");
    const int tp_mlp = !x->moe || x->shared > 0;
    if (tp_mlp)
        sp_gather_q(k, x, "mlp_down.bwd.allgather");
    if (x->moe)
        moe_backward(k, x);
    else
        mlp_backward(k, x, 1, x->rows, x->f_l, x->n_up, "mlp_down.dgrad", "mlp_down.wgrad", "mlp_up.dgrad",
                     "mlp_up.wgrad", 1);
    if (tp_mlp)
        tp_reduce(k, x, "mlp_up.dgrad.allreduce", "mlp_up.dgrad.reducescatter");
    /* read grad and saved input, add the residual-stream grad, write */
    membound_x(k, x, "ln2.bwd", COMP_MEMBOUND, 4.0 * seq * e, 2.0 * seq * norm_flops(x));
    dropout_pass(k, x, "dropout_residual1.bwd");
    sp_gather_q(k, x, "proj.bwd.allgather");
    quantize(k, x, "proj.bwd.quant", (double)x->rows * (double)x->h, 0);
    gemm_grads(k, x, "proj.dgrad", "proj.wgrad", COMP_GEMM, x->rows, x->h, x->a_l * x->hd_v);
    attention_backward(k, x);
    if (x->rotary)
        membound_x(k, x, "rope.bwd", COMP_MEMBOUND, rope_bytes(x), rope_flops(x));
    qkv_backward(k, x);
    membound_x(k, x, "ln1.bwd", COMP_MEMBOUND, 4.0 * seq * e, 2.0 * seq * norm_flops(x));
}

/* PyTorch's per-op selective recompute (torchtitan's policy): of the
 * layer's matmuls in call order (q, k, v, o, w1, [w3,] w2) the output of
 * every second one is not kept, so k, o and w3 (SwiGLU) or w2 (GELU) are
 * redone; our fused GEMMs hold several of them.  The share of an op's
 * output columns to redo (0: kept). */
static double per_op_redo(const Dims *x, const char *name)
{
    const double q = (double)(x->a_l * x->hd), kv = (double)(x->kv_l * x->hd);
    if (!strcmp(name, "qkv"))
        return kv / (q + 2.0 * kv); /* k */
    if (!strcmp(name, "proj"))
        return 1.0; /* o */
    /* latent attention: wq (or wq_a, wq_b), wkv_a, wkv_b, wo */
    if (!strcmp(name, "kv_down"))
        return x->ql > 0 ? 0.0 : 1.0;
    if (!strcmp(name, "q_up") || !strcmp(name, "kv_up"))
        return x->ql > 0 ? 1.0 : 0.0;
    if (!strcmp(name, "mlp_up") || !strcmp(name, "shared_up"))
        return x->split ? 1.0 : x->swiglu ? 0.5 : 0.0; /* w3 of w1 | w3, or w3 alone */
    if (!strcmp(name, "mlp_down") || !strcmp(name, "shared_down"))
        return x->swiglu ? 0.0 : 1.0; /* w2 is the 6th matmul without a gate */
    /* the experts' grouped GEMMs are not on the save list (aten.mm is) */
    if (!strncmp(name, "expert_", 7))
        return 1.0;
    return 0.0;
}

/* Selective: the attention core (the COMP_ATTENTION ops) again, or under
 * the per-op policy every memory-bound op, the matmuls it did not keep
 * (per_op_redo) and every all-gather (its save list keeps the
 * reduce-scatters, "_c10d_functional.reduce_scatter_tensor", not the
 * gathered sequence-parallel inputs, which backward needs again for the
 * matmuls it redoes and the weight gradients), the attention kept, and the
 * expert-parallel exchanges too unless the stack's save list keeps their
 * outputs (torchtitan from September 2025: all_to_all_single and the
 * device-to-host copy of the split sizes, pytorch/torchtitan#1672); full:
 * the whole forward layer again, its TP collectives included.  Compute ops
 * are charged to COMP_RECOMPUTE, collectives stay COMP_TP_COMM. */
static void layer_recompute(OpSink *k, const Dims *x, const OpList *fwd)
{
    if (x->recompute == RECOMPUTE_NONE)
        return;
    for (int i = 0; i < fwd->n; i++) {
        Op op = fwd->op[i];
        if (x->recompute == RECOMPUTE_SELECTIVE && x->per_op) {
            if (op.kind == OP_COMM) {
                /* the token path is redone, its all-to-alls with it
                 * unless they are kept */
                const int kept_ep = op.group == GROUP_EP && x->saves_a2a;
                if (!kept_ep && (op.coll == COLL_ALLGATHER || op.group == GROUP_EP || op.group == GROUP_ETP))
                    graph_emit(k, &op);
                continue;
            }
            if (x->saves_a2a && x->ep > 1 && !strcmp(op.name, "moe.d2h"))
                continue; /* the split sizes' copy to the host is kept too */
            if (op.comp == COMP_ATTENTION)
                continue;
            if (op.kind == OP_GEMM) {
                const double f = per_op_redo(x, op.name);
                if (f <= 0)
                    continue;
                if (f < 1) { /* a part of a fused GEMM's columns */
                    const int64_t n = (int64_t)llround((double)op.n * f);
                    op = graph_gemm_op(op.name, COMP_RECOMPUTE, op.batch, op.m, n > 0 ? n : 1, op.k, x->e_in,
                                       x->e);
                }
            }
            op.comp = COMP_RECOMPUTE;
            graph_emit(k, &op);
            continue;
        }
        if (x->recompute == RECOMPUTE_SELECTIVE && op.comp != COMP_ATTENTION)
            continue;
        if (op.kind != OP_COMM)
            op.comp = COMP_RECOMPUTE;
        graph_emit(k, &op);
    }
}

/* ---- embedding and head -------------------------------------------------- */

/* Vocab-parallel embedding (each shard gathers the rows of its vocab range,
 * about 1/t of the tokens, and writes a full s*b*h with zeros elsewhere),
 * combined over the TP group: all-reduce, or reduce-scatter into the
 * sequence-parallel region (with learned positions Megatron all-reduces,
 * adds the positions and then splits, which needs no comm). */
static void first_forward(OpSink *k, const Dims *x)
{
    double sbh = (double)x->rows * (double)x->h;
    double e = x->e;
    membound(k, "embed", COMP_EMBED_HEAD, sbh * e / (double)x->t + sbh * e, 0.0);
    if (x->t > 1) {
        if (x->sp && !x->learned)
            comm(k, "embed.reducescatter", COLL_REDUCESCATTER, full_buffer(x));
        else
            comm(k, "embed.allreduce", COLL_ALLREDUCE, full_buffer(x));
    }
    if (x->learned) /* read words and positions, write */
        membound(k, "embed.pos", COMP_EMBED_HEAD, 2.0 * sbh * e + (double)x->s * (double)x->h * e, sbh);
    dropout_pass(k, x, "embed.dropout");
}

/* Dropout backward, the all-gather mirroring the split/reduce-scatter, and
 * the embedding gradient as a scatter-add: read the incoming grad, read and
 * write the touched rows of this shard (the dense zero-fill of a V/t x h
 * gradient that PyTorch also does is not counted). */
static void first_backward(OpSink *k, const Dims *x)
{
    double sbh = (double)x->rows * (double)x->h;
    double e = x->e;
    dropout_pass(k, x, "embed.dropout.bwd");
    sp_gather(k, x, "embed.bwd.allgather");
    if (x->learned) /* sum over the batch into s x h */
        membound(k, "embed.pos.wgrad", COMP_EMBED_HEAD, sbh * e + (double)x->s * (double)x->h * e, sbh);
    membound(k, "embed.wgrad", COMP_EMBED_HEAD, sbh * e + 2.0 * sbh * e / (double)x->t, sbh / (double)x->t);
}

/* HBM bytes per logit the cross-entropy moves, forward and backward.
 * Fused (one kernel each way): read the e-byte logits, write the fp32
 * softmax, read it again for the normaliser (e + 8); backward reads the
 * softmax and writes the e-byte gradient (4 + e).  Op by op, as
 * Megatron-LM's vocab_parallel_cross_entropy runs on `logits.float()`
 * (megatron/core/tensor_parallel/cross_entropy.py): the fp32 copy (read e,
 * write 4), the row max (read 4), the max subtracted into a new tensor
 * (read 4, write 4), exp in place (4 + 4), the row sum (4), the division
 * in place (4 + 4): 36 + e; backward scales the saved softmax in place by
 * the loss gradient (4 + 4) and casts it back (read 4, write e): 12 + e,
 * 52 bytes a 16-bit logit against the fused 16.  PyTorch's cross_entropy on
 * upcast logits (log_softmax's three passes, nll_loss, and their backward)
 * moves about as much (48). */
static double xent_bytes(const Dims *x, int backward)
{
    if (backward)
        return x->unfused_xent ? 12.0 + x->e : 4.0 + x->e;
    return x->unfused_xent ? 36.0 + x->e : x->e + 8.0;
}

/* Final norm, vocab-parallel LM head (column-parallel over the padded V),
 * vocab-parallel cross-entropy in fp32 (xent_bytes); three small
 * all-reduces of s*b fp32 values (max, sum of exp, target logit) combine it
 * over the TP group. */
static void last_forward(OpSink *k, const Dims *x)
{
    double seq = x->rows_seq * (double)x->h;
    int64_t vl = x->vp / x->t;
    double logits = (double)x->rows * (double)vl;
    membound_x(k, x, "final_norm", COMP_MEMBOUND, 2.0 * seq * x->e, seq * norm_flops(x));
    sp_gather(k, x, "head.allgather");
    gemm(k, x, "head", COMP_EMBED_HEAD, 1, x->rows, vl, x->h);
    membound(k, "xent", COMP_EMBED_HEAD, logits * xent_bytes(x, 0), logits * FLOPS_XENT);
    if (x->t > 1) {
        double small = (double)x->rows * 4.0;
        comm(k, "xent.max.allreduce", COLL_ALLREDUCE, small);
        comm(k, "xent.sumexp.allreduce", COLL_ALLREDUCE, small);
        comm(k, "xent.target.allreduce", COLL_ALLREDUCE, small);
    }
}

/* Logits gradient (read the fp32 softmax, write the e-byte grad), head dgrad
 * and wgrad, the TP reduction of the head's input gradient, norm backward. */
static void last_backward(OpSink *k, const Dims *x)
{
    double seq = x->rows_seq * (double)x->h;
    int64_t vl = x->vp / x->t;
    double logits = (double)x->rows * (double)vl;
    membound(k, "xent.bwd", COMP_EMBED_HEAD, logits * xent_bytes(x, 1), logits * 2.0);
    gemm_grads(k, x, "head.dgrad", "head.wgrad", COMP_EMBED_HEAD, x->rows, vl, x->h);
    tp_reduce(k, x, "head.dgrad.allreduce", "head.dgrad.reducescatter");
    membound_x(k, x, "final_norm.bwd", COMP_MEMBOUND, 3.0 * seq * x->e, 2.0 * seq * norm_flops(x));
}

/* The ops of the multi-token prediction modules besides their layers
 * (DeepSeek-V3 2.2, as Megatron-Core places them on the last stage): the
 * shared embedding looked up again, the two norms of the hidden state and
 * of the embedding, their concatenation projected 2h -> h (column-parallel,
 * gathered), and after the module's layer the final norm, the shared head
 * and the loss again.  Each op runs once per module (repeat). */
static void mtp_repeat(OpSink *k, int from, int mtp)
{
    for (int i = from; i < k->list->n; i++)
        k->list->op[i].repeat = mtp;
}

static void mtp_forward(OpSink *k, const Dims *x, int mtp)
{
    if (mtp < 1)
        return;
    const int from = k->list->n;
    const double sbh = (double)x->rows * (double)x->h, seq = x->rows_seq * (double)x->h, e = x->e;
    membound(k, "mtp.embed", COMP_EMBED_HEAD, sbh * e / (double)x->t + sbh * e, 0.0);
    membound_x(k, x, "mtp.norms", COMP_MEMBOUND, 4.0 * seq * e, 2.0 * seq * norm_flops(x));
    sp_gather(k, x, "mtp.allgather");
    gemm(k, x, "mtp.proj", COMP_GEMM, 1, x->rows, x->h / x->t, 2 * x->h);
    if (x->t > 1)
        comm(k, x->sp ? "mtp.proj.reducescatter" : "mtp.proj.allgather",
             x->sp ? COLL_REDUCESCATTER : COLL_ALLGATHER, full_buffer(x));
    last_forward(k, x);
    mtp_repeat(k, from, mtp);
}

static void mtp_backward(OpSink *k, const Dims *x, int mtp)
{
    if (mtp < 1)
        return;
    const int from = k->list->n;
    const double sbh = (double)x->rows * (double)x->h, seq = x->rows_seq * (double)x->h, e = x->e;
    last_backward(k, x);
    if (x->t > 1)
        comm(k, "mtp.proj.bwd.allgather", COLL_ALLGATHER, full_buffer(x));
    gemm_grads(k, x, "mtp.proj.dgrad", "mtp.proj.wgrad", COMP_GEMM, x->rows, x->h / x->t, 2 * x->h);
    tp_reduce(k, x, "mtp.proj.dgrad.allreduce", "mtp.proj.dgrad.reducescatter");
    membound_x(k, x, "mtp.norms.bwd", COMP_MEMBOUND, 6.0 * seq * e, 4.0 * seq * norm_flops(x));
    membound(k, "mtp.embed.wgrad", COMP_EMBED_HEAD, sbh * e + 2.0 * sbh * e / (double)x->t,
             sbh / (double)x->t);
    mtp_repeat(k, from, mtp);
}

/* ---- counts -------------------------------------------------------------- */

/* The attention's weight matrices (no norms, no biases): q, k, v and the
 * output projection, or latent attention's down and up projections. */
static double attn_matrices(const Dims *x)
{
    const double h = (double)x->h, a = (double)x->a;
    if (!x->mla) {
        const double kvw = (double)(x->kv * x->hd), qw = (double)(x->a * x->hd);
        return 2.0 * h * qw + 2.0 * h * kvw;
    }
    const double q =
        x->ql > 0 ? h * (double)x->ql + (double)x->ql * a * (double)x->hd_qk : h * a * (double)x->hd_qk;
    const double kv = h * (double)(x->kvl + x->rope) + (double)x->kvl * a * (double)(x->hd + x->hd_v);
    return q + kv + a * (double)x->hd_v * h;
}

/* One layer's parameters, and of them the routed experts'. */
static void layer_params(const Dims *x, double *all, double *experts)
{
    double h = (double)x->h, f = (double)x->f;
    double kvw = (double)(x->kv * x->hd);
    double qw = (double)(x->a * x->hd); /* width of Q (and of the attention output): h unless head_dim */
    double attn = attn_matrices(x) + (double)(x->ql + x->kvl); /* (latent attention's two norms) */
    double mlp = (x->swiglu ? 3.0 : 2.0) * h * f;
    double norm = x->rms ? h : 2.0 * h;
    double bias = x->swiglu ? 0.0 : (qw + 2.0 * kvw) + h + f + h; /* qkv, proj, mlp_up, mlp_down */
    *experts = 0;
    if (x->moe) { /* the routed experts, the shared ones and the router in place of the MLP */
        const double one = (x->swiglu ? 3.0 : 2.0) * h * (double)x->f_e;
        *experts = (double)x->E * one;
        mlp = *experts + (double)x->shared * one + (double)x->E * h;
        bias = x->swiglu ? 0.0 : (qw + 2.0 * kvw) + h;
    }
    *all = attn + mlp + 2.0 * norm + bias;
}

/* Parameters: n_moe layers as x, n_dense as xd (a mixture of experts'
 * dense layers), the embedding and the head, and the multi-token
 * prediction modules (each a MoE layer, a 2h x h projection and three
 * norms; DeepSeek-V3 2.2: the embedding and the head shared). */
static void count_params(const Dims *x, const Dims *xd, double n_moe, double n_dense, const Model *m,
                         Graph *g)
{
    double h = (double)x->h, v = (double)x->v;
    double norm = x->rms ? h : 2.0 * h;
    double p_moe, e_moe, p_dense = 0, e_dense = 0;
    layer_params(x, &p_moe, &e_moe);
    if (n_dense > 0)
        layer_params(xd, &p_dense, &e_dense);
    const double n = n_moe + n_dense;
    g->params_per_layer = (n_moe * p_moe + n_dense * p_dense) / n;
    g->params_expert_per_layer = (n_moe * e_moe + n_dense * e_dense) / n;
    g->params_embedding = v * h + (x->learned ? (double)x->s * h : 0.0);
    g->params_head = m->tied_embeddings ? 0.0 : v * h;
    g->embed_row = h;
    g->head_row = m->tied_embeddings ? 0.0 : h;
    g->params_mtp = (double)g->mtp * (p_moe + 2.0 * h * h + 3.0 * norm);
    g->params_mtp_expert = (double)g->mtp * e_moe;
    g->params_total = n * g->params_per_layer + g->params_embedding + g->params_head + norm + g->params_mtp;
}

/* Model FLOPs of one layer, one sample, forward: its GEMMs (the attention
 * scores and context included, the experts a token passes through). */
static double layer_model_flops(const Dims *x)
{
    double s = (double)x->s, h = (double)x->h, f = (double)x->f;
    /* keys a query meets, as Megatron counts them (the whole sequence, the
     * causal mask not subtracted), on average over the layers */
    const double s_att = x->window ? (1.0 - x->window_share) * s + x->window_share * (double)x->window : s;
    double layer = 2.0 * s * attn_matrices(x)                                      /* q, k, v, proj */
                   + 2.0 * s * s_att * (double)x->a * (double)(x->hd_qk + x->hd_v) /* scores + context */
                   + 2.0 * s * h * f * (x->swiglu ? 2.0 : 1.0)                     /* mlp_up */
                   + 2.0 * s * f * h;                                              /* mlp_down */
    if (x->moe) { /* the experts a token passes through (routed and shared), and the router */
        const double fe = (double)x->f_e, active = (double)(x->topk + x->shared);
        layer -= 2.0 * s * h * f * (x->swiglu ? 2.0 : 1.0) + 2.0 * s * f * h;
        layer += active * (2.0 * s * h * fe * (x->swiglu ? 2.0 : 1.0) + 2.0 * s * fe * h) +
                 2.0 * s * h * (double)x->E;
    }
    return layer;
}

static void count_flops(const Dims *x, const Dims *xd, double n_moe, double n_dense, Graph *g)
{
    const double s = (double)x->s, h = (double)x->h, mtp = (double)g->mtp;
    const double f_moe = layer_model_flops(x), f_dense = n_dense > 0 ? layer_model_flops(xd) : 0.0;
    double head = 2.0 * s * h * (double)x->v;
    /* a prediction module: its layer, its 2h -> h projection and the head again */
    const double f_mtp = mtp * (f_moe + 2.0 * s * 2.0 * h * h + head);
    g->model_flops_per_sample = 3.0 * (n_moe * f_moe + n_dense * f_dense + head + f_mtp);

    const double moe_layer = graph_gemm_flops(&g->layer_fwd) + graph_gemm_flops(&g->layer_bwd) +
                             graph_gemm_flops(&g->layer_recompute);
    const double dense_layer = graph_gemm_flops(&g->dense_fwd) + graph_gemm_flops(&g->dense_bwd) +
                               graph_gemm_flops(&g->dense_recompute);
    double ends = graph_gemm_flops(&g->first_fwd) + graph_gemm_flops(&g->first_bwd) +
                  graph_gemm_flops(&g->last_fwd) + graph_gemm_flops(&g->last_bwd);
    /* the ops are one rank's: 1/t of the heads, 1/c of the sequence */
    g->hw_flops_per_sample = ((n_moe + mtp) * moe_layer + n_dense * dense_layer + ends) * (double)x->t *
                             (double)x->c / (double)x->b;
    g->recompute_flops_per_sample = ((n_moe + mtp) * graph_gemm_flops(&g->layer_recompute) +
                                     n_dense * graph_gemm_flops(&g->dense_recompute)) *
                                    (double)x->t * (double)x->c / (double)x->b;
}

/* Korthikanti et al. 2022, Sec. 4, per layer, microbatch and device: the
 * tensors that backward needs.  Sequence-region tensors (divided by t with
 * SP): the inputs of ln1, qkv, ln2 and mlp_up (4 tensors of e bytes) and two
 * dropout masks (1 byte): 4e + 2 = 10 for e = 2.  Tensor-parallel tensors:
 * Q, K, V, the proj input, and the MLP tensors (gelu: its input and output;
 * SwiGLU: gate, up and output), e bytes each: 24/t for gelu MHA, f = 4h.
 * Unfused attention: softmax output and dropped probs (e) and the dropout
 * mask (1): (2e + 1) a s^2 b / t = 5as/h per sbh.  Flash attention keeps
 * only the fp32 row statistics (4 b a s / t); selective recompute keeps
 * neither.  Full recompute keeps the layer input (e s b h, /t with SP) and
 * needs the unrecomputed figure as working set while a layer recomputes. */
static void layer_activations(const Dims *x, double *kept, double *work)
{
    double sb = (double)x->rows, h = (double)x->h, e = x->e;
    const double e8 = x->e_in < x->e ? x->e_in : x->e; /* linear-layer inputs: fp8 copies under fp8 */
    /* ln1 and ln2 inputs (e), qkv and mlp_up inputs (e8), two dropout masks */
    double seq_region = x->rows_seq * h * (2.0 * e + 2.0 * e8 + (x->dropout ? 2.0 : 0.0));
    /* Q and K, V (e); proj input (e8); MLP: gelu input (e) and output =
     * mlp_down input (e8), or SwiGLU gate and up (e) and output (e8) */
    double widths_e =
        (double)(x->a_l * x->hd + 2 * x->kv_l * x->hd) + (double)x->f_l * (x->swiglu ? 2.0 : 1.0);
    double widths_8 = (double)(x->a_l * x->hd) + (double)x->f_l;
    if (x->mla) { /* Q and K of hd_qk, V of hd_v; the normed latent (the up projections' input) */
        widths_e = (double)(x->a_l * (2 * x->hd_qk + x->hd_v)) + (double)x->f_l * (x->swiglu ? 2.0 : 1.0);
        widths_8 = (double)(x->a_l * x->hd_v + x->ql + x->kvl) + (double)x->f_l;
    }
    double tp_region = sb * (widths_e * e + widths_8 * e8);
    if (x->moe) { /* the experts' tensors over their tokens, and the dispatched tokens, for the dense MLP's */
        const double fw = (double)x->f_e_l * ((x->swiglu ? 2.0 : 1.0) * e + e8);
        tp_region -= sb * (double)x->f_l * ((x->swiglu ? 2.0 : 1.0) * e + e8);
        const double fs = (double)x->f_s_l * ((x->swiglu ? 2.0 : 1.0) * e + e8);
        tp_region +=
            (double)x->E_l * (double)x->m_e * (fw + h * e) + sb * fs + x->rows_loc * (double)x->E * 4.0;
        /* the weighting's saved input: the fp32 copy eager, the outputs compiled or under DeepEP */
        if (x->score_apart)
            tp_region += moe_pair_elems(x) * (x->unfused && !x->fused_dispatch ? 4.0 : e);
    }
    double batch = (double)(x->b * x->a_l);
    double core =
        x->fused ? batch * (double)x->sq * 4.0 : batch * (double)x->s * (double)x->s * (2.0 * e + 1.0);
    double all = seq_region + tp_region + core;
    switch (x->recompute) {
    case RECOMPUTE_SELECTIVE:
        if (x->per_op) {
            /* the layer's input, the kept matmul outputs (q, v, w1, and w2
             * with a gate) and the attention's output and row statistics;
             * in a mixture of experts the router's scores and the shared
             * experts' kept outputs, the token path (its all-to-alls and
             * grouped GEMMs) redone */
            const double q = (double)(x->a_l * x->hd), kv = (double)(x->kv_l * x->hd);
            const double mlp =
                x->moe ? (double)x->E + (x->shared > 0 ? (double)x->f_s_l + (x->swiglu ? h : 0.0) : 0.0)
                       : (double)x->f_l + (x->swiglu ? h : 0.0);
            const double widths = q + kv + mlp + q;
            *kept = x->rows_seq * h * e + sb * widths * e + (double)(x->b * x->a_l) * x->sq * 4.0;
            /* a save list that keeps the all-to-alls' outputs is not
             * charged for them: where it was measured (torchtitan#1672,
             * DeepSeek-V3 16B, EP 4, 32,768 tokens a GPU) the peak went
             * from 70.02 to 74.53 GiB, where the two exchanges' received
             * tokens would be about 42 GB over its 26 layers */
            *work = all;
            break;
        }
        *kept = seq_region + tp_region;
        *work = core;
        break;
    case RECOMPUTE_FULL:
        *kept = x->rows_seq * h * e;
        *work = all;
        break;
    case RECOMPUTE_NONE:
    default:
        *kept = all;
        *work = 0.0;
        break;
    }
}

/* Activations per layer (the average of n_moe layers as x and n_dense as
 * xd; the recompute working set of the larger), and the ends'.  The
 * prediction modules on the last stage keep a layer's, their projection's
 * input (2h) and another head's. */
static void count_activations(const Dims *x, const Dims *xd, double n_moe, double n_dense, Graph *g)
{
    double sb = (double)x->rows, h = (double)x->h, e = x->e;
    double kept, work, kept_d = 0, work_d = 0;
    layer_activations(x, &kept, &work);
    if (n_dense > 0)
        layer_activations(xd, &kept_d, &work_d);
    g->act_bytes_per_layer = (n_moe * kept + n_dense * kept_d) / (n_moe + n_dense);
    g->act_bytes_recompute_working = work > work_d ? work : work_d;
    /* Embedding: its dropout mask, if any (the embedding output is layer 1's input,
     * already counted there).  Head: final-norm input and head input (e
     * bytes each, /t with SP), the fp32 softmax kept for the logits
     * gradient and the e-byte logits alive while the loss is computed (op
     * by op, with the fp32 copy beside the tensor the max is subtracted
     * into: 4 bytes a logit more). */
    g->act_bytes_first = x->dropout ? x->rows_seq * h : 0.0;
    double logits = sb * (double)x->vp / x->t; /* vp is a multiple of t */
    g->act_bytes_last = 2.0 * x->rows_seq * h * e + logits * (x->unfused_xent ? 8.0 : 4.0) + logits * e;
    g->act_bytes_last += (double)g->mtp * (kept + 2.0 * x->rows_seq * h * e + logits * (4.0 + e));
}

int transformer_build(const Model *m, const GraphParams *p, Graph *g, Diag *d)
{
    Dims x = {0};
    if (check_dims(m, p, &x, d) != 0)
        return -1;
    /* a mixture of experts with dense layers: the first dense_layers, and
     * of the others all but every moe_every-th (Megatron-Core's
     * moe_layer_freq); their MLP is the dense one of ffn */
    const int every = m->moe_every > 1 ? m->moe_every : 1;
    const int n_moe = x.moe ? (m->layers - m->dense_layers) / every : 0;
    const int n_dense = x.moe ? m->layers - n_moe : 0;
    Dims xd = x;
    xd.moe = 0;
    g->mtp = m->mtp_layers > 0 ? m->mtp_layers : 0;

    OpSink k[10];
    graph_sink_init(&k[0], &g->layer_fwd, "layer_fwd", d);
    graph_sink_init(&k[1], &g->layer_bwd, "layer_bwd", d);
    graph_sink_init(&k[2], &g->layer_recompute, "layer_recompute", d);
    graph_sink_init(&k[3], &g->first_fwd, "first_fwd", d);
    graph_sink_init(&k[4], &g->first_bwd, "first_bwd", d);
    graph_sink_init(&k[5], &g->last_fwd, "last_fwd", d);
    graph_sink_init(&k[6], &g->last_bwd, "last_bwd", d);
    graph_sink_init(&k[7], &g->dense_fwd, "dense_fwd", d);
    graph_sink_init(&k[8], &g->dense_bwd, "dense_bwd", d);
    graph_sink_init(&k[9], &g->dense_recompute, "dense_recompute", d);
    /* the embedding, head and loss lie outside the layers a partial CUDA graph captures */
    for (int i = 3; i <= 6; i++)
        k[i].scope = SCOPE_OUTSIDE;
    layer_forward(&k[0], &x);
    layer_backward(&k[1], &x);
    layer_recompute(&k[2], &x, &g->layer_fwd);
    first_forward(&k[3], &x);
    first_backward(&k[4], &x);
    last_forward(&k[5], &x);
    mtp_forward(&k[5], &x, g->mtp);
    mtp_backward(&k[6], &x, g->mtp);
    last_backward(&k[6], &x);
    if (n_dense > 0) {
        layer_forward(&k[7], &xd);
        layer_backward(&k[8], &xd);
        layer_recompute(&k[9], &xd, &g->dense_fwd);
    }
    for (int i = 0; i < 10; i++)
        if (k[i].failed)
            return -1;

    g->layers = m->layers;
    g->layers_dense = n_dense;
    g->bytes_per_elem = (int)x.e;
    const double nm = x.moe ? (double)n_moe : (double)m->layers;
    count_params(&x, &xd, nm, (double)n_dense, m, g);
    count_flops(&x, &xd, nm, (double)n_dense, g);
    count_activations(&x, &xd, nm, (double)n_dense, g);
    return 0;
}
