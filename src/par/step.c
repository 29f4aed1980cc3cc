/* par/step.c — step time, breakdown and memory of one scenario.
 *
 * Schedule (Narayanan et al., SC'21, "Efficient Large-Scale Language Model
 * Training on GPU Clusters Using Megatron-LM"): m = global_batch / (dp *
 * microbatch) microbatches; with t_f, t_b the forward and backward time of
 * one microbatch on the slowest stage (tensor-parallel collectives
 * included: Megatron blocks on them), 1F1B with v interleaved chunks takes
 * (m + (pp - 1) / v) * (t_f + t_b), i.e. a bubble fraction (pp - 1) / (v m).
 * Then the exposed stage-to-stage transfers, the exposed data-parallel
 * gradient exchange (a fraction dp_overlap of it hidden under the last
 * microbatch's backward pass) and the optimizer step.
 *
 * Memory (Korthikanti et al., MLSys'23, "Reducing Activation Recomputation
 * in Large Transformer Models"; Rajbhandari et al., SC'20, ZeRO): 16-bit
 * weights, fp32 gradients, 12 bytes of fp32 master weights and Adam moments
 * per parameter, sharded over dp by ZeRO stages 1-3; activations of the
 * microbatches in flight: under 1F1B the first stage holds pp of them, i.e.
 * about all layers' worth of one microbatch, times 1 + (pp-1)/(pp v) when
 * interleaved.
 *
 * Ranks are placed tensor innermost, then data, then pipeline unless the
 * scenario's placement says otherwise; net_group says how each group lands
 * on nodes and so which tier it uses.
 *
 * This file costs the graph's operations and puts the parts together, in
 * six named stages (layout, work, held, pipeline, exchange, finish; see
 * "the stages of a step" below); the
 * schedule (schedule.c), the memory (memory.c) and the data-parallel
 * exchange (comm.c) are pure functions of their own (parts.h), each tested
 * against its formula in tests/test_step.c.
 * Seconds, bytes, FLOP. */
#include "step.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/strategy.h"
#include "graph/graph.h"
#include "net/net.h"
#include "par/parts.h"
#include "power/power.h"
#include "core/text.h"

typedef struct {
    double t[COMP_COUNT];            /* seconds by component */
    double bound_t[BOUND_COUNT];     /* GEMM seconds by what limits them */
    double inter_bytes, intra_bytes; /* per device, on each network tier */
    double e[COMP_COUNT];            /* dynamic energy by component, joules, one device */
    double e_inter;                  /* scale-out link energy (NICs, optics), one device */
} Costs;

typedef struct {
    const System *sys;
    const Device *dev;     /* at the DVFS clock: rates and energies */
    const Device *nominal; /* at the nominal clock: GEMM tiling (memoised) */
    double phi;            /* clock / nominal */
    Precision prec;
    Group tp_group;
    Group ep_group;  /* the expert-parallel all-to-all's */
    Group etp_group; /* the expert-tensor-parallel collectives' */
    GemmCache *cache;
    double tp_overlap;   /* fraction of TP collectives the stack hides under GEMMs (0: none) */
    GemmOn *gemm;        /* nominal's GEMM projection and memo set, found once */
    const PwrDvfs *dvfs; /* nominal's DVFS constants (the clock plan's voltages) */
    double v_near;       /* pwr_voltage_near(nominal, phi), from the clock's own solve */
    int v_near_rc;       /* ... and its status */
    double pace;         /* the slowest device's compute time over the median one's (pace_factor) */
    TokenRoute route;    /* the model's routing, for DeepEP's once-per-destination dispatch */
    OpTrace *trace;      /* where cost_list records each op (step_trace), or NULL */
} Ctx;

/* The fraction of the device's SMs the stack's hidden data- and
 * tensor-parallel collectives hold while they run (Framework.comm_sms):
 * the compute beside them loses it (comm_overlap_cost). */
static double comm_lost(const System *sys)
{
    const double sms = (double)sys->device.sms, c = (double)sys->framework.comm_sms;
    return sms > 0 ? fmin(1.0, c / sms) : 0.0;
}

/* The precision a GEMM runs in: with fp8 training and a stack that keeps
 * fp8 to the linear layers (Transformer Engine), attention and the LM head
 * stay bf16 unless the stack runs them in fp8 too (fp8_attention,
 * fp8_head). */
static Precision op_precision(const Ctx *x, const Op *op)
{
    const Framework *fw = &x->sys->framework;
    if ((x->prec != PREC_FP8 && x->prec != PREC_FP4) || !fw->fp8_linear_only)
        return x->prec;
    /* what a stack runs in fp8 beside the linear layers runs in fp8, not
     * fp4 (TE's fp8 attention; Megatron's MXFP8 output projection) */
    if (op->comp == COMP_ATTENTION || !strncmp(op->name, "attn.", 5))
        return fw->fp8_attention ? PREC_FP8 : PREC_BF16;
    if (op->comp == COMP_EMBED_HEAD)
        return fw->fp8_head && !strncmp(op->name, "head", 4) && (op->name[4] == '\0' || op->name[4] == '.')
                   ? PREC_FP8
                   : PREC_BF16;
    return x->prec;
}

/* Whether the stack replays the op as part of a CUDA graph. */
static int op_captured(GraphsKind graphs, const Op *op)
{
    switch (graphs) {
    case GRAPHS_FULL:
        return 1;
    case GRAPHS_PARTIAL:
        return op->scope != SCOPE_OUTSIDE;
    case GRAPHS_ROUTER:
        return op->scope == SCOPE_ROUTER;
    case GRAPHS_NONE:
    default:
        return 0;
    }
}

/* The host's time for a captured op: none, except that each run of
 * captured ops in a list is one graph replay, a host call as an op's
 * dispatch is (Transformer Engine's graphed callables, Megatron-Core's
 * per-layer cuda_graph_scope: the captured forward or backward of a layer's
 * region replays once a microbatch).  A whole-step graph replays once a
 * step: nothing a list. */
static double graph_replay_host(GraphsKind graphs, const OpList *l, int i, double host_op)
{
    if (graphs == GRAPHS_FULL)
        return 0.0;
    return i == 0 || !op_captured(graphs, &l->op[i - 1]) ? host_op : 0.0;
}

/* A gradient GEMM of the backward pass (its name ends .dgrad or .wgrad). */
static int gemm_is_grad(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcmp(dot, ".dgrad") || !strcmp(dot, ".wgrad"));
}

/* The rate of a fused attention block's kernel under the stack's
 * flash_attention, as a fraction of the device's best (1 for any other op). */
static double attention_rate(const Ctx *x, const char *name)
{
    const FlashKind flash = x->sys->framework.flash;
    if ((flash != FLASH_FA2 && flash != FLASH_FLEX) ||
        (strncmp(name, "attn.qk", 7) && strncmp(name, "attn.av", 7)))
        return 1.0;
    const double f = flash == FLASH_FA2 ? x->dev->fa2_eff
                     : name[7] == '.'   ? x->dev->flex_bwd_eff /* a backward block */
                                        : x->dev->flex_fwd_eff;
    return f > 0 ? f : 1.0;
}

/* A memory-bound op's device time, one run: its bytes at the memory-bound
 * rate, or, an accumulating scatter (Op.scatter: PyTorch's index_put_ with
 * accumulate, index_add_, scatter_add_ in 16 bits), at the device's
 * scatter_add bytes per clock per SM where that is slower: those kernels
 * accumulate an element or a row at a time, far below the HBM rate (on
 * B200 the backward of a mixture of experts' token gather takes 1.85 ms for
 * 805 MB of rows, a seventh of the streaming rate: validation/kernels/
 * scatter_add.csv), and are not bound by HBM, so the rate goes with the
 * SMs and their clock.  *scatter_bound: whether that rate set the time. */
static double scatter_time(const Device *dev, const Op *op, int *scatter_bound)
{
    const double t = membound_time(dev, op->bytes, op->flops);
    const double rate = dev->scatter_bpc * (double)dev->sms * dev->clock_hz;
    const double ts = op->scatter && rate > 0 ? op->bytes / rate : 0.0;
    *scatter_bound = ts > t;
    return fmax(t, ts);
}

/* Whether a stack runs a grouped op's runs as one PyTorch grouped-GEMM
 * kernel (Framework.grouped_kernel: torch._grouped_mm, or torchao's
 * scaled grouped GEMM in fp8) rather than a cuBLAS GEMM each. */
static int torch_grouped(const Ctx *x, const Op *op)
{
    return op->grouped && x->sys->framework.grouped_kernel == GROUPED_TORCH;
}

/* One GEMM op's device time in precision prec (op_precision): its runs
 * at the clock and pace, at the stack's fused-attention rate where it is
 * part of a fused block, or as one grouped kernel at the device's
 * grouped-GEMM rate (torch_grouped).  The tiling is chosen at the nominal
 * clock (and memoised); at phi x the clock, compute and the on-chip levels
 * take 1/phi as long, HBM the same. */
static double gemm_op_time(const Ctx *x, const Op *op, Precision prec, GemmCost *g)
{
    gemm_cost_on(x->gemm, prec, op->batch, op->m, op->n, op->k, g);
    if (x->phi != 1.0)
        gemm_at_clock(g, x->phi, x->nominal->launch_s);
    if (torch_grouped(x, op)) {
        /* one kernel over the rank's experts, one launch for them all; in
         * 16 bits torch._grouped_mm's CUTLASS kernel runs each expert's
         * tiles at the device's grouped-GEMM rate (its fp8 scaled
         * counterparts are not measured below the dense rate) */
        const double f = (prec == PREC_BF16 || prec == PREC_FP16) && x->dev->grouped_mm_eff > 0
                             ? x->dev->grouped_mm_eff
                             : 1.0;
        const double launch = x->nominal->launch_s;
        const double one = g->time_s > launch ? g->time_s - launch : 0.0;
        return (op_runs(op) * one / f + launch) * x->pace;
    }
    const double t = op_runs(op) * (g->time_s + (op->conv_call ? x->dev->conv_call_s : 0.0)) * x->pace;
    return t / attention_rate(x, op->name);
}

/* A fused attention block's softmax: one exponential a score on the
 * special-function units (MUFU.EX2), in the forward (attn.qk) and again
 * where the backward rebuilds the probabilities (attn.qk.remat).  The
 * kernel pipelines them with the block's MMAs (FlashAttention-3's ping-
 * pong, FlashAttention-4, cuDNN), so the block takes the longer of the
 * two: what the exponentials take beyond the MMAs of the block's GEMMs
 * (the op at i and the attn.* GEMMs after it up to the next block) is
 * returned, 0 where they hide.  Blackwell doubled the Tensor Cores' rate
 * over Hopper's but kept 16 exponentials a clock per SM, which makes the
 * forward exponential-bound at small heads or in fp8; Blackwell Ultra
 * doubles the exponentials (Device.exp_per_clock).  The attention GEMMs
 * here write their scores through HBM (the tile model's output), which
 * the validation data need, and a score's 2-byte write outlasts its
 * exponential on every shipped device: the bound binds on a device with
 * few special-function units. */
static int softmax_block_start(const Op *op)
{
    return !strcmp(op->name, "attn.qk") || !strcmp(op->name, "attn.qk.remat");
}

static double softmax_excess(const Ctx *x, const OpList *l, int i, double t_first)
{
    const Op *op = &l->op[i];
    const double rate = x->dev->exp_per_clock * (double)x->dev->sms * x->dev->clock_hz;
    if (!(rate > 0) || !softmax_block_start(op))
        return 0.0;
    const double t_exp = op_runs(op) * (double)op->batch * (double)op->m * (double)op->n / rate * x->pace;
    double t_mma = t_first;
    for (int j = i + 1; j < l->n && t_mma < t_exp; j++) {
        const Op *b = &l->op[j];
        if (b->kind != OP_GEMM || strncmp(b->name, "attn.", 5) || softmax_block_start(b))
            break;
        GemmCost g;
        t_mma += gemm_op_time(x, b, op_precision(x, b), &g);
    }
    return fmax(0.0, t_exp - t_mma);
}

_Static_assert(OP_TRACE_MAX >= OP_TRACE_LISTS * GRAPH_MAX_OPS, "an op trace holds every op of every list");

/* The trace to record list `label` into: x's, the first time the list is
 * costed (a list costed twice, the recompute's, is recorded once). */
static OpTrace *trace_for(const Ctx *x, const char *label)
{
    OpTrace *t = x->trace;
    if (!t)
        return NULL;
    for (int i = 0; i < t->nlisted; i++)
        if (!strcmp(t->listed[i], label))
            return NULL;
    if (t->nlisted >= OP_TRACE_LISTS)
        return NULL;
    t->listed[t->nlisted++] = label;
    return t;
}

static void trace_op(OpTrace *t, const char *label, const Op *op, Component comp, int runs, double device_s,
                     double host_s, const char *bound)
{
    if (!t || t->n >= OP_TRACE_MAX)
        return;
    const int gemm = op->kind == OP_GEMM;
    t->op[t->n++] = (OpCost){.list = label,
                             .name = op->name,
                             .kind = gemm                  ? "gemm"
                                     : op->kind == OP_COMM ? "collective"
                                                           : "memory",
                             .comp = comp,
                             .runs = runs,
                             .batch = gemm ? op->batch : 0,
                             .m = gemm ? op->m : 0,
                             .n = gemm ? op->n : 0,
                             .k = gemm ? op->k : 0,
                             .bytes = op->kind == OP_COMM ? op->comm_bytes : op->bytes,
                             .flops = op->flops,
                             .device_s = device_s,
                             .host_s = host_s,
                             .bound = bound};
}

/* Cost one op list.  Ops run in order on one stream; the host dispatches
 * them ahead of the device, so the list takes max(device time, ops x host
 * dispatch time): the excess is charged to COMP_HOST.  Ops the stack
 * replays as CUDA graphs (Framework.cuda_graphs) are not dispatched one by
 * one: a run of them costs one dispatch, its graph's replay
 * (graph_replay_host).  An op that repeats
 * r times (Op.repeat) costs r runs: r x its time, energy and link bytes,
 * and r dispatches, or where one host call launches them all from C++ (a
 * grouped GEMM, Op.grouped) one dispatch and a kernel launch
 * (launch_overhead) for each further run; a GEMM's cost is looked up
 * once.  A stack that overlaps tensor-parallel communication with the
 * GEMMs (Megatron-Core's tp_comm_overlap) hides the fraction tp_overlap of
 * the list's collective time, at most the list's GEMM time. */
static void cost_list(const Ctx *x, const OpList *l, const char *label, int recompute, Costs *c)
{
    OpTrace *trace = trace_for(x, label);
    double device = 0, host = 0, t_gemm = 0, t_coll = 0;
    double t_op[GRAPH_MAX_OPS]; /* each op's device time, for the segments between host syncs */
    double h_op[GRAPH_MAX_OPS]; /* and the host's time dispatching it (none where a graph replays it) */
    int syncs = 0;
    const double host_op = x->sys->framework.host_op_s;
    const GraphsKind graphs = x->sys->framework.cuda_graphs;
    for (int i = 0; i < l->n; i++) {
        const Op *op = &l->op[i];
        const double r = op_runs(op);
        syncs += op->sync != 0;
        double t = 0, rescale_t = 0;
        const char *bound = "memory";
        Component comp = recompute ? COMP_RECOMPUTE : op->comp;
        double e = 0;
        if (op->kind == OP_GEMM) {
            GemmCost g;
            const Precision prec = op_precision(x, op);
            t = gemm_op_time(x, op, prec, &g);
            const double exp_excess =
                op->comp == COMP_ATTENTION && x->dev->exp_per_clock > 0 ? softmax_excess(x, l, i, t) : 0.0;
            t += exp_excess;
            e = r * pwr_gemm_energy(x->dev, prec, op->flops, &g);
            const int rowwise = prec == PREC_FP8 && x->sys->framework.fp8_scaling == FP8_SCALING_ROWWISE;
            const int grad = rowwise && gemm_is_grad(op->name);
            if (rowwise && !grad) {
                const double f = x->sys->framework.fp8_rowwise_gemm;
                t /= f > 0 ? f : 1.0;
            }
            c->bound_t[g.bound] += t;
            bound = exp_excess > 0 ? "exp (SFU)" : bound_name(g.bound);
            t_gemm += t;
            if (grad) {
                /* row-wise scales in a gradient GEMM: the tensor-wise kernel
                 * with unit scales, the scales applied to its bf16 output by
                 * a kernel of its own (torchao float8/float8_ops.py,
                 * addmm_float8_unwrapped; pytorch/ao#1325, #2184) */
                const double out = (double)op->batch * (double)op->m * (double)op->n;
                const double tr = r * membound_time(x->dev, 4.0 * out, out) * x->pace;
                c->t[COMP_MEMBOUND] += tr;
                c->e[COMP_MEMBOUND] += r * pwr_membound_energy(x->dev, 4.0 * out, out);
                device += tr;
                rescale_t = tr;
            }
        } else if (op->kind == OP_MEMBOUND) {
            int scatter_bound;
            t = r * (scatter_time(x->dev, op, &scatter_bound) + (op->rnn_step ? x->dev->rnn_step_s : 0.0)) *
                x->pace;
            if (scatter_bound)
                bound = "scatter";
            e = r * pwr_membound_energy(x->dev, op->bytes, op->flops);
        } else {
            const int ep_op = op->group == GROUP_EP;
            CollCost cc;
            if (ep_op && op->coll == COLL_ALLTOALL && x->sys->framework.dispatcher == DISPATCH_DEEPEP) {
                TokenRoute rt = x->route;
                rt.topk = op->fanout;
                net_alltoall_tokens(x->sys, &x->ep_group, op->comm_bytes, &rt, &cc);
            } else {
                net_collective(x->sys,
                               ep_op                    ? &x->ep_group
                               : op->group == GROUP_ETP ? &x->etp_group
                                                        : &x->tp_group,
                               op->coll, op->comm_bytes, &cc);
            }
            /* a split CNN layer's input-gradient copy under its weight
             * gradient (Op.hide: the builder marks it where the stack
             * overlaps them; copy engines, no SMs taken) */
            t = r * cc.time_s * (1.0 - fmin(1.0, op->hide));
            c->inter_bytes += r * cc.inter_bytes;
            c->intra_bytes += r * cc.intra_bytes;
            e = r * pwr_link_energy(&x->sys->intra, cc.intra_bytes);
            c->e_inter += r * pwr_link_energy(&x->sys->inter, cc.inter_bytes);
            comp = ep_op ? COMP_EP_COMM : COMP_TP_COMM;
            bound = "network";
            if (!ep_op)
                t_coll += t;
        }
        c->t[comp] += t;
        c->e[comp] += e;
        device += t;
        t_op[i] = t + rescale_t;
        /* a grouped GEMM: one dispatch, and the host's launch of each
         * further expert's kernel (one kernel for them all under
         * torch._grouped_mm; none on a stack without host time); a
         * captured op: its graph's replay, once a run of them */
        h_op[i] = host_op <= 0              ? 0.0
                  : op_captured(graphs, op) ? graph_replay_host(graphs, l, i, host_op)
                  : torch_grouped(x, op)    ? host_op
                  : op->grouped             ? host_op + (r - 1.0) * x->nominal->launch_s
                                            : r * host_op;
        if (rescale_t > 0 && h_op[i] > 0 && !op_captured(graphs, op))
            h_op[i] += r * host_op; /* each rescale's own dispatch */
        host += h_op[i];
        trace_op(trace, label, op, comp, (int)r, t_op[i], h_op[i], bound);
    }
    const double device_all = device;
    if (x->tp_overlap > 0 && t_coll > 0) {
        const double hidden = comm_hidden(t_coll, x->tp_overlap, t_gemm, comm_lost(x->sys));
        c->t[COMP_TP_COMM] -= hidden;
        device -= hidden;
    }
    if (syncs) {
        /* the host cannot run ahead past a sync: it waits there for the
         * device to drain, and from the sync on the device waits for each op
         * until the host has dispatched it (a two-stage flow shop: an op
         * starts when the device is free and the op dispatched), so a
         * segment after a sync takes max over its ops k of (host time to
         * dispatch ops up to k + device time of ops from k), at least its
         * first op's dispatch more than its device time.  Before a list's
         * first sync the host comes ahead from the list before: that
         * segment takes the longer of its device and host times.  The
         * hidden TP share is spread over the ops. */
        const double f = device_all > 0 ? device / device_all : 1.0;
        double seg_dev = 0, seg_host = 0, excess = 0, done = 0;
        int after = 0;
        for (int i = 0; i <= l->n; i++) {
            if (i == l->n || l->op[i].sync) {
                excess += after ? done - seg_dev * f : fmax(0.0, seg_host - seg_dev * f);
                seg_dev = seg_host = done = 0;
                after = 1;
            }
            if (i < l->n) {
                seg_host += h_op[i];
                seg_dev += t_op[i];
                done = fmax(done, seg_host) + t_op[i] * f;
            }
        }
        c->t[COMP_HOST] += excess;
        return;
    }
    if (host > device)
        c->t[COMP_HOST] += host - device;
}

/* The rough rates a graph builder may choose by (GraphRates): the device
 * at its nominal clock (so that the choice does not move with DVFS), and an
 * all-gather on the tensor-parallel group as latency + bytes / bandwidth,
 * fitted through its cost at 1 MiB and 64 MiB (exact for the alpha-beta
 * ring inside a node). */
static void graph_rates(const Device *nominal, Precision prec, const System *sys, const Group *tp_group,
                        GraphRates *out)
{
    const Precision run = precision_fallback(nominal->matrix_flops, prec);
    const double peak = run < PREC_COUNT ? nominal->matrix_flops[run] : nominal->vector_flops;
    out->flop_s = peak * nominal->matrix_eff;
    out->hbm_bytes_s = nominal->mem[MEM_HBM].bw_bytes_per_s * nominal->hbm_eff;
    out->launch_s = nominal->launch_s;
    const double s1 = 1048576.0, s2 = 64.0 * 1048576.0;
    CollCost c1, c2;
    net_collective(sys, tp_group, COLL_ALLGATHER, s1, &c1);
    net_collective(sys, tp_group, COLL_ALLGATHER, s2, &c2);
    if (c2.time_s > c1.time_s) {
        out->coll_bytes_s = (s2 - s1) / (c2.time_s - c1.time_s);
        out->coll_latency_s = fmax(0.0, c1.time_s - s1 / out->coll_bytes_s);
    }
}

static void costs_add(Costs *dst, const Costs *src, double scale)
{
    for (int i = 0; i < COMP_COUNT; i++) {
        dst->t[i] += scale * src->t[i];
        dst->e[i] += scale * src->e[i];
    }
    dst->e_inter += scale * src->e_inter;
    for (int i = 0; i < BOUND_COUNT; i++)
        dst->bound_t[i] += scale * src->bound_t[i];
    dst->inter_bytes += scale * src->inter_bytes;
    dst->intra_bytes += scale * src->intra_bytes;
}

static double costs_total(const Costs *c)
{
    double s = 0;
    for (int i = 0; i < COMP_COUNT; i++)
        if (i != COMP_DP_HIDDEN)
            s += c->t[i];
    return s;
}

/* "a (b)", or "a" when b is NULL, into buf (n bytes, cut to fit): names
 * for the breakdown, built without printf in the evaluation's path. */
static void label(char *buf, size_t n, const char *a, const char *b)
{
    size_t at = 0;
    const char *parts[] = {a, b ? " (" : "", b ? b : "", b ? ")" : ""};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        for (const char *p = parts[i]; *p && at + 1 < n; p++)
            buf[at++] = *p;
    if (n)
        buf[at] = '\0';
}

static void tier_name(char *buf, size_t n, const Group *g, const CollCost *c)
{
    if (g->p <= 1)
        label(buf, n, "none", NULL);
    else
        label(buf, n,
              c->tier && strcmp(c->tier, "none") ? c->tier
              : g->nodes > 1                     ? "inter"
                                                 : "intra",
              algorithm_name(c->algo));
}

/* Rank strides of the tp, dp and pp groups for a placement order
 * (innermost first): the innermost kind has stride 1, the next the size of
 * the innermost, the outermost the product of the two. */
static void placement_strides(Placement pl, int tp, int dp, int pp, long stride[3])
{
    int o[3];
    placement_order(pl, o);
    const int size[3] = {tp, dp, pp};
    stride[o[0]] = 1;
    stride[o[1]] = size[o[0]];
    stride[o[2]] = (long)size[o[0]] * size[o[1]];
}

/* Context parallelism (ring attention, as Megatron-Core's): each of the cp
 * ranks holds s/cp of every sequence; its queries meet the keys and values
 * of all cp chunks, which travel round the ring, one chunk a step, while
 * the rank computes attention on the chunk it has (Liu et al. 2023, "Ring
 * Attention with Blockwise Transformers").  Forward: cp - 1 sends of a
 * chunk's K and V; backward: K, V and their gradients, twice the bytes.
 * A transfer hides under the attention of one block (1/cp of the layer's
 * attention time): the excess of each of the cp - 1 steps is exposed.
 * A full recompute runs the forward ring again in the backward pass. */
static void cp_ring(const Ctx *x, const Scenario *sc, const Group *cp_group, double t_attn_f, double t_attn_b,
                    Costs *lf, Costs *lb)
{
    const int cp = cp_group->p;
    const double chunk = comm_cp_chunk(&sc->model, sc->st.tp, cp, sc->st.microbatch, sc->precision);
    const double sends = cp - 1;
    /* forward; backward (K, V and their gradients); a full recompute's
     * second forward in the backward pass */
    const double bytes[3] = {chunk, 2.0 * chunk, chunk}, attn[3] = {t_attn_f, t_attn_b, t_attn_f};
    const int passes = sc->st.recompute == RECOMPUTE_FULL ? 3 : 2;
    for (int pass = 0; pass < passes; pass++) {
        CollCost c;
        net_collective(x->sys, cp_group, COLL_P2P, bytes[pass], &c);
        Costs *t = pass ? lb : lf;
        t->t[COMP_CP_COMM] += comm_cp_exposed(cp, c.time_s, attn[pass] / cp);
        t->e[COMP_CP_COMM] += sends * pwr_link_energy(&x->sys->intra, c.intra_bytes);
        t->e_inter += sends * pwr_link_energy(&x->sys->inter, c.inter_bytes);
        t->intra_bytes += sends * c.intra_bytes;
        t->inter_bytes += sends * c.inter_bytes;
    }
}

static int fail(Result *r, const char *msg)
{
    r->status = STATUS_ERROR;
    text_copy(r->error, sizeof r->error, msg);
    return -1;
}

/* fail, naming the scenario key the error is about (the workbook's Errors
 * sheet and the messages point at it) */
static int fail_at(Result *r, const char *key, const char *msg)
{
    fail(r, msg);
    text_copy(r->error_key, sizeof r->error_key, key);
    return -1;
}

/* Activations of the most loaded device under a block recompute: of the
 * stage's lps layers, rc recompute (they keep only their input) and the
 * others keep everything (the set a layer needs while it recomputes, the
 * full-recompute graph's working figure); one layer's working set while
 * any recomputes. */
static double block_activations(const Graph *g, int pp, double lps, double rc, double inflight, double ileave)
{
    const double per_layer =
        (rc * g->act_bytes_per_layer + (lps - rc) * g->act_bytes_recompute_working) / lps;
    return mem_activations(pp, per_layer, lps, g->act_bytes_first, g->act_bytes_last, inflight, ileave,
                           rc > 0 ? g->act_bytes_recompute_working : 0.0);
}

/* ---- the stages of a step ------------------------------------------------
 * step_evaluate runs six named stages, each a pure function from the
 * structs before it to its own: layout (the degrees, the schedule, the
 * groups placed), work (the graph and its costs per layer and stage), held
 * (what the most loaded device holds), pipeline (the bounding stage, the
 * fill and drain, the stage sends), exchange (the data-parallel gradients,
 * the optimizer) and finish (the result's time, energy, utilisation,
 * memory and bottleneck). */

typedef struct {
    int tp, pp, dp, mb, v, cp;
    int dpc;          /* dp x cp: the ranks that hold the same weights */
    int ep, etp;      /* the experts' degrees (etp: tp unless the scenario folds them apart) */
    int edp;          /* tp x cp x dp / (etp x ep): the ranks that hold the same experts */
    int dual;         /* the schedule is DualPipe */
    PpSchedule sched; /* the schedule that runs (1f1b with one stage) */
    PpSplit split;    /* how the layers split over the stages (even with one stage) */
    Group dp_group, pp_group, cp_group, edp_group;
} Layout;

typedef struct {
    const Graph *g; /* own, or a memo's (StepGraphMemo) */
    Graph own;
    Costs lf, lb, lr, ff, fb, tf, tb; /* one layer (lr: its recompute alone), the ends, one microbatch */
    Costs first, last, middle;        /* the first, the last and a middle stage, one microbatch */
    double w_layer;                   /* a layer's weight-gradient GEMMs (the split schedules defer them) */
    double lps;                       /* layers of the most loaded stage (a middle one) */
    double lps_first, lps_last;       /* layers of the first and the last stage */
    long m_micro;                     /* microbatches per step */
} Work;

typedef struct {
    double p_first, p_last, p_dev,
        p_exp;     /* parameters of the first, last, most loaded device; its experts' */
    double wb, gb; /* bytes per parameter: weight, gradient */
    double copy_b; /* and the 16-bit copy beside the master (0: none kept, or no master) */
    OptimizerSpec os;
    double opt_b;        /* bytes per parameter the optimizer reads and writes: its state and the master */
    double act;          /* activations at the schedule's peak */
    double unrecomputed; /* layers of the stage a block recompute leaves alone */
} Held;

typedef struct {
    Costs step;      /* the step so far */
    double t_stage;  /* one microbatch on the bounding stage: t_f + t_b */
    double t_b_last; /* the last microbatch's backward pass (the exchange hides under it) */
} Pipe;

/* Layout (stage 1): the degrees as they run, the pipeline schedule, and
 * each group of ranks placed on the nodes (x's tp, ep and etp groups, L's
 * others). */
static int step_layout(const Scenario *sc, Ctx *x, Layout *L, Result *r)
{
    const System *sys = &sc->system;
    const Model *mdl = &sc->model;
    const int tp = sc->st.tp, pp = sc->st.pp, dp = sc->st.dp, mb = sc->st.microbatch, v = sc->st.interleave;
    const int cp = sc->st.cp > 1 ? sc->st.cp : 1;
    const int dpc = dp * cp; /* the ranks that hold the same weights: gradients and ZeRO span dp x cp */
    const int ep = sc->st.ep > 1 ? sc->st.ep : 1; /* experts split over ep ranks */
    r->st = sc->st;                               /* the strategy as evaluated */
    if (tp < 1 || pp < 1 || dp < 1 || mb < 1 || v < 1 || (int)sc->st.pp_schedule == AUTO_VALUE)
        return fail(r, "the strategy is not resolved (auto needs the search)");
    if (r->st.pp_schedule == SCHED_1F1B && v > 1) /* 1F1B over chunks: the interleaved schedule */
        r->st.pp_schedule = SCHED_INTERLEAVED;
    const PpSchedule sched = pp > 1 ? r->st.pp_schedule : SCHED_1F1B;
    /* a 16- or 8-bit format the device has no matrix units for would run
     * at another format's rate with this one's bytes: not a real device */
    if ((sc->precision == PREC_FP4 || sc->precision == PREC_FP8 || sc->precision == PREC_BF16 ||
         sc->precision == PREC_FP16) &&
        !(sys->device.matrix_flops[sc->precision] > 0)) {
        char msg[200];
        snprintf(msg, sizeof msg, "precision %s: the %s has no %s matrix units (its peak.%s is 0)",
                 precision_name(sc->precision), sys->device.name, precision_name(sc->precision),
                 precision_name(sc->precision));
        return fail_at(r, "precision", msg);
    }
    /* a graph of the whole step replays fixed shapes; a dropless mixture of
     * experts' tokens per expert change every step and go to the host */
    if (sys->framework.cuda_graphs == GRAPHS_FULL && sc->model.experts > 0 &&
        !(sc->model.capacity_factor > 0)) {
        return fail_at(
            r, "system.framework.cuda_graphs",
            "cuda_graphs full: a graph of the whole step needs fixed shapes, and a dropless mixture "
            "of experts (capacity_factor 0) sends its tokens per expert to the host every layer; set "
            "model.capacity_factor (token dropping) or cuda_graphs partial");
    }

    /* Activation offloading (Megatron-Core's cpu_offloading): its
     * TransformerConfig refuses it with more than one pipeline stage and
     * with recomputation; the copies need a host link. */
    const int off = sys->framework.offload_layers;
    if (off > 0) {
        const char *why = mdl->kind != MODEL_TRANSFORMER       ? "offloads a transformer's layers"
                          : pp > 1                             ? "needs pp 1 (Megatron-Core refuses "
                                                                 "CPU offloading with pipeline "
                                                                 "parallelism)"
                          : sc->st.recompute != RECOMPUTE_NONE ? "needs recompute none (Megatron-"
                                                                 "Core refuses CPU offloading with "
                                                                 "activation recomputation)"
                          : !(sys->host_bw_bytes_per_s > 0)    ? "needs system.host_link, the "
                                                                 "bandwidth it copies over"
                                                               : NULL;
        if (why) {
            char msg[200];
            snprintf(msg, sizeof msg, "system.framework.offload_layers %d %s", off, why);
            return fail_at(r, "system.framework.offload_layers", msg);
        }
    }

    /* The context-parallel ranks sit right outside the tensor ranks (a
     * block of tp x cp, as Megatron-Core orders them); the data-parallel
     * gradient exchange spans dp x cp ranks (they hold the same weights). */
    long stride[3] = {1, 1, 1}; /* the tp x cp block, dp, pp */
    placement_strides(sc->st.placement, tp * cp, dp, pp, stride);
    net_group(sys, tp, stride[0], &x->tp_group);
    /* Megatron-Core overlaps TP communication only with sequence
     * parallelism on (it asserts it) [MCore-mpc], and Transformer Engine's
     * userbuffers only among GPUs of one NVLink domain [TE-ovl]: a tensor
     * group that spans nodes blocks on its collectives. */
    if (sc->st.seq_parallel && tp > 1 && x->tp_group.nodes <= 1)
        x->tp_overlap = sys->framework.tp_overlap;
    net_group(sys, cp, stride[0] * tp, &L->cp_group);
    net_group(sys, dpc, cp > 1 && stride[1] > stride[0] * tp ? stride[0] * tp : stride[1], &L->dp_group);
    net_group(sys, pp, stride[2], &L->pp_group);
    /* The expert layers fold their ranks (Megatron-Core's MoE parallel
     * folding, Liu et al. 2025): etp x ep x edp over the tp x cp x dp
     * ranks, the expert-tensor ranks innermost, then the expert-parallel
     * ones; the experts' gradients go over the edp ranks that hold the
     * same experts.  With etp = tp and no cp that is the tp group and ep
     * consecutive data-parallel ranks. */
    const int moe = mdl->kind == MODEL_TRANSFORMER && mdl->experts > 0;
    const int etp = moe && sc->st.etp > 0 ? sc->st.etp : tp;
    if (moe)
        r->st.etp = etp;
    const int edp = tp * cp * dp / (etp * ep);
    if (stride[0] == 1 && stride[1] == (long)tp * cp) { /* the tp x cp x dp ranks are contiguous */
        net_group(sys, etp, 1, &x->etp_group);
        net_group(sys, ep, etp, &x->ep_group);
        net_group(sys, edp, (long)etp * ep, &L->edp_group);
    } else if (etp == tp && dpc % ep == 0) {
        x->etp_group = x->tp_group;
        net_group(sys, ep, stride[1], &x->ep_group);
        net_group(sys, dpc / ep, stride[1] * ep, &L->edp_group);
    } else {
        char msg[200];
        snprintf(
            msg, sizeof msg,
            "etp %d x ep %d over tp %d x cp %d x dp %d: folding the experts over the tensor, context and "
            "data-parallel ranks needs them adjacent (placement tp-dp-pp)",
            etp, ep, tp, cp, dp);
        return fail(r, msg);
    }

    L->tp = tp, L->pp = pp, L->dp = dp, L->mb = mb, L->v = v, L->cp = cp, L->dpc = dpc;
    L->ep = ep, L->etp = etp, L->edp = edp, L->sched = sched, L->dual = sched == SCHED_DUALPIPE;
    L->split = r->st.pp_split = pp > 1 ? sc->st.pp_split : SPLIT_EVEN;
    return 0;
}

/* A mixture of experts with dense layers (graph.h): the layer the stages
 * repeat becomes the average of the MoE and the dense one, weighted by
 * their counts; its deferred weight gradients likewise.  A stage is costed
 * as the average mix (the first dense layers of DeepSeek-V3 are not put on
 * the first stage: 3 of 61 layers, within 2 % of its time). */
static void blend_dense(const Ctx *x, const Scenario *sc, const Graph *g, Work *w)
{
    Costs df = {0}, db = {0}, dr = {0}, mix = {0};
    cost_list(x, &g->dense_fwd, "dense layer forward", 0, &df);
    cost_list(x, &g->dense_bwd, "dense layer backward", 0, &db);
    const double w_dense = 0.5 * db.t[COMP_GEMM];
    cost_list(x, &g->dense_recompute, "dense layer recompute", 1, &db);
    if (sc->st.recompute == RECOMPUTE_FULL && sc->st.recompute_layers != 0)
        cost_list(x, &g->dense_recompute, "dense layer recompute", 1, &dr);
    const double sd = (double)g->layers_dense / (double)g->layers, sm = 1.0 - sd;
    Costs *own[3] = {&w->lf, &w->lb, &w->lr};
    const Costs *dense[3] = {&df, &db, &dr};
    for (int i = 0; i < 3; i++) {
        mix = (Costs){0};
        costs_add(&mix, own[i], sm);
        costs_add(&mix, dense[i], sd);
        *own[i] = mix;
    }
    w->w_layer = sm * w->w_layer + sd * w_dense;
}

/* Work (stage 2): the graph of one microbatch, one layer's and the ends'
 * costs, and the first and the last stage's (before a block recompute
 * leaves some layers out). */
/* The model's graph for this layout and stack (ops of one microbatch). */
static int build_graph(const Scenario *sc, const Ctx *x, const Layout *L, Work *w, StepGraphMemo *memo,
                       Result *r)
{
    const System *sys = &sc->system;
    const Model *mdl = &sc->model;
    const int tp = L->tp;
    const Framework *fw = &sys->framework;
    GraphParams gp;
    memset(&gp, 0, sizeof gp); /* padding too: a memo compares it whole */
    gp.tp = tp;
    gp.seq_parallel = sc->st.seq_parallel;
    gp.microbatch = L->mb;
    gp.precision = sc->precision;
    gp.recompute = sc->st.recompute;
    gp.pp = L->pp;
    gp.flash = fw->flash;
    gp.cp = L->cp;
    gp.ep = L->ep;
    gp.etp = L->etp;
    gp.quant_casts = fw->fp8_casts;
    /* NVFP4's second-level scale is the tensor's own amax ("s_global =
     * global_amax / (fp8_max * fp4_max)", TE's NVFP4 guide): found before
     * the cast as under current scaling, whatever the fp8 recipe */
    gp.quant_rowwise = sc->precision == PREC_FP8 && fw->fp8_scaling == FP8_SCALING_ROWWISE;
    gp.quant_current =
        sc->precision == PREC_FP4 || fw->fp8_scaling == FP8_SCALING_CURRENT || gp.quant_rowwise;
    gp.sel_per_op = fw->selective == SELECTIVE_PER_OP;
    gp.sel_saves_a2a = gp.sel_per_op && fw->sel_saves_a2a;
    gp.unfused = !fw->fused_elementwise;
    gp.eager_rope = fw->eager_rotary;
    gp.eager_act = fw->eager_activation;
    gp.split_gate_up = !fw->fused_gate_up;
    gp.unfused_xent = !fw->fused_xent;
    gp.sequential_experts = !fw->grouped_gemm;
    gp.fused_dispatch = fw->dispatcher == DISPATCH_DEEPEP;
    const int moe = mdl->kind == MODEL_TRANSFORMER && mdl->experts > 0;
    gp.moe_score_apart = moe && fw->moe_score_apart;
    gp.moe_index_permute = moe && fw->moe_permute == PERMUTE_INDEX;
    gp.moe_scatter_combine = moe && fw->moe_combine == COMBINE_SCATTER_ADD;
    gp.moe_sort = moe ? (int)fw->moe_sort : SORT_CHUNKS;
    if (mdl->kind == MODEL_CNN && fw->conv_layout == LAYOUT_NCHW) {
        const int matrix = precision_fallback(x->nominal->matrix_flops, sc->precision) < PREC_COUNT;
        gp.nchw_transposes = matrix;
        gp.winograd = !matrix;
    }
    if (mdl->kind == MODEL_CNN && tp > 1) { /* the one builder that chooses by time (at the nominal clock) */
        graph_rates(x->nominal, sc->precision, sys, &x->tp_group, &gp.rates);
        gp.dgrad_overlap = fw->dgrad_comm_overlap;
    }
    /* byte for byte on purpose: both were cleared whole (padding too) and
     * copied with memcpy, and a difference can only miss the memo */
    const int same = memo && memo->valid && memo->model == mdl &&
                     !memcmp(&memo->gp, &gp, sizeof gp); // NOLINT(bugprone-suspicious-memory-comparison)
    if (same) {
        w->g = &memo->g; /* this model and strategy's, built at another clock */
        return 0;
    }
    Graph *g = memo ? &memo->g : &w->own;
    if (memo)
        memo->valid = 0;
    Diag d;
    diag_clear(&d);
    if (graph_build(mdl, &gp, g, &d))
        return fail(r, d.msg);
    if (memo) {
        memo->valid = 1;
        memo->model = mdl;
        memcpy(&memo->gp, &gp, sizeof gp);
    }
    w->g = g;
    return 0;
}

/* Per stage, one microbatch: the first and the last stage carry the
 * embedding and the head; the slowest of them bounds the pipeline.
 * Layers of the most loaded stage: chunks of ceil(L / (pp v)) layers when
 * they do not split evenly (the rest of the stages carry fewer). */
static void stage_costs(const Layout *L, const Graph *g, Work *w)
{
    const int pp = L->pp, v = L->v;
    const Costs *lf = &w->lf, *lb = &w->lb, *ff = &w->ff, *fb = &w->fb, *tf = &w->tf, *tb = &w->tb;
    Costs *first = &w->first, *last = &w->last;
    sched_split(g->layers, g->mtp, pp, v, L->split, &w->lps_first, &w->lps, &w->lps_last);
    costs_add(first, lf, w->lps_first);
    costs_add(first, lb, w->lps_first);
    costs_add(first, ff, 1);
    costs_add(first, fb, 1);
    costs_add(last, lf, w->lps_last);
    costs_add(last, lb, w->lps_last);
    if (L->split == SPLIT_ENDS && pp > 2) { /* only then can a middle stage bound the pipeline */
        costs_add(&w->middle, lf, w->lps);
        costs_add(&w->middle, lb, w->lps);
    }
    costs_add(last, tf, 1);
    costs_add(last, tb, 1);
    if (pp == 1) {
        costs_add(first, tf, 1);
        costs_add(first, tb, 1);
    }
}

static int step_work(const Scenario *sc, const Ctx *x, const Layout *L, Work *w, StepGraphMemo *memo,
                     Result *r)
{
    const System *sys = &sc->system;
    const int dp = L->dp, mb = L->mb, cp = L->cp;
    Costs *lf = &w->lf, *lb = &w->lb, *lr = &w->lr, *ff = &w->ff, *fb = &w->fb, *tf = &w->tf, *tb = &w->tb;
    Costs *first = &w->first, *last = &w->last;
    const Costs zero = {0};
    *lf = *lb = *lr = *ff = *fb = *tf = *tb = *first = *last = w->middle = zero;
    if (build_graph(sc, x, L, w, memo, r))
        return -1;
    const Graph *g = w->g;

    const int off = sys->framework.offload_layers;
    if (off > 0 && off >= g->layers) {
        char msg[200];
        snprintf(
            msg, sizeof msg,
            "system.framework.offload_layers %d: the model has %d layers, and Megatron-Core offloads fewer "
            "than all of them",
            off, g->layers);
        return fail_at(r, "system.framework.offload_layers", msg);
    }

    w->m_micro = (long)(sc->st.global_batch / ((int64_t)dp * mb));
    if (w->m_micro < 1)
        return fail(r, "global_batch is smaller than dp x microbatch");

    label(r->tp_tier, sizeof r->tp_tier, "none", NULL);
    label(r->dp_tier, sizeof r->dp_tier, "none", NULL);
    label(r->pp_tier, sizeof r->pp_tier, "none", NULL);
    /* One layer, one microbatch. */
    cost_list(x, &g->layer_fwd, "layer forward", 0, lf);
    cost_list(x, &g->layer_bwd, "layer backward", 0, lb);
    /* the weight-gradient GEMMs: half the backward's (dW = X^T dY beside
     * dX = dY W^T, the same FLOPs), the part the split schedules defer */
    w->w_layer = 0.5 * lb->t[COMP_GEMM];
    cost_list(x, &g->layer_recompute, "layer recompute", 1, lb);
    /* lr: the recompute alone (a block recompute leaves it out of some layers) */
    if (sc->st.recompute == RECOMPUTE_FULL && sc->st.recompute_layers != 0)
        cost_list(x, &g->layer_recompute, "layer recompute", 1, lr);
    Costs mf = *lf, mbk = *lb; /* a MoE layer's, for the prediction modules */
    if (g->layers_dense > 0)
        blend_dense(x, sc, g, w);
    cost_list(x, &g->first_fwd, "first stage forward", 0, ff);
    cost_list(x, &g->first_bwd, "first stage backward", 0, fb);
    cost_list(x, &g->last_fwd, "last stage forward", 0, tf);
    cost_list(x, &g->last_bwd, "last stage backward", 0, tb);
    {
        CollCost probe;
        net_collective(sys, &x->tp_group, COLL_ALLREDUCE, 1e6, &probe);
        tier_name(r->tp_tier, sizeof r->tp_tier, &x->tp_group, &probe);
    }
    if (cp > 1) { /* the context-parallel ring, per layer and microbatch */
        const double t_attn_f = lf->t[COMP_ATTENTION], t_attn_b = lb->t[COMP_ATTENTION];
        cp_ring(x, sc, &L->cp_group, t_attn_f, t_attn_b, lf, lb);
        if (g->mtp > 0)
            cp_ring(x, sc, &L->cp_group, t_attn_f, t_attn_b, &mf, &mbk);
    }
    /* the multi-token prediction modules' layers, on the last stage with
     * their projections and heads */
    costs_add(tf, &mf, g->mtp);
    costs_add(tb, &mbk, g->mtp);

    stage_costs(L, g, w);
    return 0;
}

/* ZeRO-3 / FSDP weights kept gathered from a step's first forward to its
 * last backward (Framework.reshard: no; auto under a pipeline schedule,
 * whose PyTorch loop keeps them after each backward but the last). */
static int fsdp_keeps(const Scenario *sc, int pp, int dpc)
{
    const ReshardKind k = sc->system.framework.reshard;
    return sc->st.zero >= 3 && dpc > 1 && (k == RESHARD_NO || (k == RESHARD_AUTO && pp > 1));
}

/* Of a group of n ranks' 16-bit weights, the share a rank adds by
 * gathering them whole: all of them beside its shard of fp32 parameters
 * (whole), the others' shards beside its own 16-bit one; none alone. */
static double gathered_share(int n, int whole)
{
    return n > 1 ? (whole ? 1.0 : 1.0 - 1.0 / n) : 0.0;
}

/* Held (stage 3): what the most loaded device holds: its parameters, their
 * state under ZeRO, and the activations of the microbatches in flight (a
 * block recompute's layers resolved: the fewest that fit when auto). */
static void step_held(const Scenario *sc, const Device *dev, const Layout *L, const Work *w, Held *h,
                      Result *r)
{
    const Model *mdl = &sc->model;
    const Graph *g = w->g;
    const int tp = L->tp, pp = L->pp, v = L->v, dpc = L->dpc, ep = L->ep, etp = L->etp, edp = L->edp;
    const int dual = L->dual;
    const double lps = w->lps;
    const long m_micro = w->m_micro;
    /* Parameters held by the most loaded device. */
    /* (a mixture of experts: this device's E/ep experts of each layer) */
    const double ppl =
        (g->params_per_layer - g->params_expert_per_layer) / tp + g->params_expert_per_layer / etp / ep;
    double p_first = w->lps_first * ppl + g->params_embedding / tp;
    /* (the last stage: the prediction modules too) */
    const double p_mtp = (g->params_mtp - g->params_mtp_expert) / tp + g->params_mtp_expert / etp / ep;
    double p_last =
        w->lps_last * ppl + (g->params_head > 0 ? g->params_head : g->params_embedding) / tp + p_mtp;
    if (pp == 1)
        p_first = p_last = lps * ppl + g->params_embedding / tp + g->params_head / tp + p_mtp;
    /* (DualPipe: the ends' ranks hold the first stage and the last) */
    const double p_ends = p_first > p_last ? p_first : p_last, p_middle = pp > 2 ? lps * ppl : 0.0;
    const double p_dev = h->p_dev = dual ? p_first + p_last : p_ends > p_middle ? p_ends : p_middle;
    /* of p_dev, the experts' (the prediction modules' on the last stage) */
    const double p_exp = h->p_exp = (dual ? 2 : 1) * lps * g->params_expert_per_layer / etp / ep +
                                    (dual || p_dev == p_last ? g->params_mtp_expert / etp / ep : 0.0);
    h->p_first = p_first;
    h->p_last = p_last;

    /* The state the most loaded device holds and its activations: a block
     * recompute (Megatron's --recompute-method block) recomputes k layers
     * of each of the stage's v model chunks and keeps the others'
     * activations; auto takes the fewest that fit, at least one. */
    const OptimizerSpec os = h->os = optimizer_spec(mdl->optimizer);
    const double wb = h->wb = precision_value_bytes(sc->precision);
    const double master_b = wb == 4.0 ? 0.0 : 4.0;
    /* the weights the device keeps: the 16-bit copy (the master with the
     * optimizer state), or, where the stack's fp32 parameters are the
     * masters, those (16-bit copies exist only for the layer in use) */
    const int in_params = sc->system.framework.master == MASTER_PARAMS && master_b > 0;
    h->copy_b = master_b > 0 && !in_params ? wb : 0.0;
    const double keep_wb = in_params ? master_b : wb, keep_master = in_params ? 0.0 : master_b;
    /* the optimizer's state and master copy, 16-bit where the stack keeps
     * them so (optimizer_state) */
    const OptStateKind ost = sc->system.framework.opt_state;
    const double held = optimizer_held_bytes(os, ost, wb, keep_master);
    h->opt_b = optimizer_held_bytes(os, ost, wb, master_b);
    /* gradient buffers: fp32 (Megatron's main_grad), or the 16-bit
     * weights' own type where the stack keeps them so (DeepSpeed's engine
     * accumulates and all-reduces fp16/bf16 gradients) */
    const double gb = h->gb =
        sc->system.framework.grad == GRAD_16BIT && wb < STEP_GRAD_BYTES ? 2.0 : STEP_GRAD_BYTES;
    /* (ZeRO shards the experts over the ranks that hold the same ones) */
    const StateBytes state = mem_state(p_dev - p_exp, dpc, sc->st.zero, keep_wb, gb, held);
    const StateBytes est = mem_state(p_exp, edp, sc->st.zero, keep_wb, gb, held);
    r->mem_weights_bytes = state.weights + est.weights;
    r->mem_grads_bytes = state.grads + est.grads;
    if (fsdp_keeps(sc, pp, dpc)) {
        /* the 16-bit weights gathered whole for the step (beside the
         * shards of fp32 parameters, or in place of the 16-bit shard), and
         * the gradients the microbatches accumulate unsharded in their type
         * until the last backward reduce-scatters them (PyTorch's
         * pipelining: set_requires_gradient_sync(False) before it); a rank
         * alone in its group (the experts at edp 1) has nothing to gather
         * and keeps what it holds (NeMo AutoModel leaves them out of FSDP) */
        const double own_exp = edp > 1 ? p_exp : 0.0;
        r->mem_weights_bytes +=
            ((p_dev - p_exp) * gathered_share(dpc, in_params) + own_exp * gathered_share(edp, in_params)) *
            wb;
        if (m_micro > 1)
            r->mem_grads_bytes += (p_dev - p_exp + own_exp) * wb;
    }
    r->mem_optimizer_bytes = state.optimizer + est.optimizer;
    r->mem_workspace_bytes = dev->hbm_reserved_bytes;
    double inflight, ileave;
    sched_inflight(m_micro, pp, v, &inflight, &ileave);
    if (dual)
        inflight = sched_inflight_dualpipe(m_micro, pp);
    const int chunk_layers = (int)(lps / v + 0.5);
    int k_rc = chunk_layers; /* layers of each chunk that recompute (full recompute) */
    double act = 0;
    if (sc->st.recompute == RECOMPUTE_FULL && sc->st.recompute_layers != 0 &&
        mdl->kind == MODEL_TRANSFORMER) {
        const double fixed =
            r->mem_weights_bytes + r->mem_grads_bytes + r->mem_optimizer_bytes + r->mem_workspace_bytes;
        if (sc->st.recompute_layers != AUTO_VALUE)
            k_rc = sc->st.recompute_layers < chunk_layers ? sc->st.recompute_layers : chunk_layers;
        else
            /* at least one: a full recompute of no layer is recompute
             * none, its own strategy (its graph keeps what a recompute
             * would redo, and its host and device time add as one list) */
            for (k_rc = 1; k_rc < chunk_layers; k_rc++)
                if (fixed + block_activations(g, pp, lps, (double)k_rc * v, inflight, ileave) <=
                    dev->mem[MEM_HBM].capacity_bytes)
                    break;
        act = block_activations(g, pp, lps, (double)k_rc * v, inflight, ileave);
    } else if (sc->system.framework.offload_layers > 0) {
        /* Offloaded layers (one stage, step_layout) keep nothing on the
         * device once their copy is done: at the forward's end the others
         * are resident; while layer i + 1 runs forward layer i's copy is
         * still in flight (two layers, Transformer Engine's double buffer) */
        const double resident = fmax(lps - (double)sc->system.framework.offload_layers, fmin(2.0, lps));
        act = mem_activations(pp, g->act_bytes_per_layer, resident, g->act_bytes_first, g->act_bytes_last,
                              inflight, ileave, 0.0);
        /* one microbatch's at a time: each comes back in its own backward */
        r->mem_host_bytes = sc->system.framework.offload_layers * g->act_bytes_per_layer;
    } else {
        act = mem_activations(pp, g->act_bytes_per_layer, lps, g->act_bytes_first, g->act_bytes_last,
                              inflight, ileave,
                              sc->st.recompute == RECOMPUTE_FULL ? g->act_bytes_recompute_working : 0.0);
    }
    if (dual) /* the ends' ranks also keep the head's activations of their last-stage chunks */
        act += g->act_bytes_last;
    r->st.recompute_layers = sc->st.recompute == RECOMPUTE_FULL ? k_rc : 0;
    /* the layers of the stage that do not recompute */
    h->unrecomputed = lps - (double)k_rc * v;
    h->act = act;
}

/* The expert all-to-all the schedule hides (on step, whose compute it runs
 * under); returns the share of the stage sends left exposed (DualPipe's
 * unpaired chunks; 1 otherwise). */
static double hide_expert_comm(const System *sys, int dual, int pp, long m_micro, Costs *step)
{
    /* DualPipe pairs each forward chunk with another microbatch's backward
     * chunk and hides their all-to-all under each other's compute; only
     * the unpaired chunks of the warm-up and the drain, about pp of each
     * rank's 2 m, show it */
    const double dual_exposed = dual ? fmin(1.0, pp / (2.0 * (double)m_micro)) : 1.0;
    /* A stack that overlaps the expert all-to-all the same way within
     * 1F1B (Megatron-Core's overlap_moe_expert_parallel_comm: a forward
     * paired with another microbatch's backward) leaves the warm-up's
     * forwards and the drain's backwards unpaired, max(1, pp - 1) of each
     * rank's m.  Either hides at most the compute it runs under, and the
     * compute runs meanwhile on the SMs the all-to-all's kernels leave it
     * (DeepSeek-V3's report: 20 of the H800's 132), so it takes
     * sms / (sms - c) as long. */
    const double paired = dual                        ? 1.0 - dual_exposed
                          : sys->framework.ep_overlap ? 1.0 - fmin(1.0, fmax(1.0, pp - 1.0) / (double)m_micro)
                                                      : 0.0;
    if (paired > 0) {
        const double compute = step->t[COMP_GEMM] + step->t[COMP_ATTENTION] + step->t[COMP_MEMBOUND] +
                               step->t[COMP_EMBED_HEAD] + step->t[COMP_RECOMPUTE];
        const double hidden = paired * fmin(step->t[COMP_EP_COMM], compute);
        /* never worse than not overlapping: kernels holding half the SMs
         * or more gain nothing */
        const double sms = (double)sys->device.sms, c = (double)sys->framework.ep_comm_sms;
        const double gain = sms > c ? fmax(0.0, 1.0 - c / (sms - c)) : 0.0;
        step->t[COMP_EP_COMM] -= hidden * gain;
    }
    return dual_exposed;
}

/* Stage-to-stage transfers: an activation forward and a gradient
 * backward per microbatch and chunk, blocking as in Megatron-LM; with
 * sequence parallelism (or its scatter/gather optimisation) each
 * tensor-parallel rank sends 1/tp of it.  An interleaved pipeline on a
 * stack that overlaps them (Framework.pp_overlap, Megatron-Core's
 * overlap_p2p_comm) posts each chunk's sends on their own stream and waits
 * for them only before their tensor is used, a chunk later: a steady-state
 * send shows only what it takes beyond one chunk's forward (activations)
 * or backward (gradients) on the bounding stage (t_f and t_b a microbatch,
 * over v chunks); the fill's and the drain's 2 (pp - 1) sends have nothing
 * to run under. */
static void stage_sends(const Scenario *sc, const Layout *L, const Graph *g, long m_micro, double exposed,
                        double t_f, double t_b, Costs *step, Result *r)
{
    const System *sys = &sc->system;
    const Model *mdl = &sc->model;
    const int tp = L->tp, pp = L->pp, mb = L->mb, v = L->v, cp = L->cp;
    if (pp > 1 && (mdl->kind == MODEL_TRANSFORMER || g->stage_boundary_bytes > 0)) {
        double msg = g->stage_boundary_bytes > 0
                         ? g->stage_boundary_bytes
                         : (double)mdl->seq_len / cp * mb * mdl->hidden * g->bytes_per_elem / tp;
        /* A graph pipelined in units (an LSTM's timesteps) hands each unit
         * over as it is done: wave messages of 1/wave the size, each paying
         * the link's latency (Pal et al. 2019's layer pipelining). */
        const int units = g->wavefront > 1 ? g->wavefront : 1;
        CollCost p2p;
        net_collective(sys, &L->pp_group, COLL_P2P, msg / units, &p2p);
        const double sends = sched_p2p_sends(m_micro, pp, v, units);
        if (sys->framework.pp_overlap && v > 1 && !L->dual) {
            const double ts = p2p.time_s, steady = (double)v * m_micro * units;
            const double edges = sends - 2.0 * steady; /* 2 (pp - 1) units */
            step->t[COMP_PP_COMM] = edges * ts + steady * (fmax(0.0, ts - t_f / v) + fmax(0.0, ts - t_b / v));
        } else {
            step->t[COMP_PP_COMM] = p2p.time_s * sends * exposed;
        }
        step->e[COMP_PP_COMM] = pwr_link_energy(&sys->intra, p2p.intra_bytes * sends);
        step->e_inter += pwr_link_energy(&sys->inter, p2p.inter_bytes * sends);
        step->inter_bytes += p2p.inter_bytes * sends;
        step->intra_bytes += p2p.intra_bytes * sends;
        tier_name(r->pp_tier, sizeof r->pp_tier, &L->pp_group, &p2p);
    }
}

/* Pipeline (stage 4): the stage that bounds the pipeline, m of its
 * microbatches, the schedule's fill and drain, and the stage-to-stage
 * sends (what a DualPipe hides left out). */
static void step_pipeline(const Scenario *sc, const Layout *L, Work *w, const Held *h, Pipe *o, Result *r)
{
    const System *sys = &sc->system;
    const Graph *g = w->g;
    const int pp = L->pp, v = L->v, dual = L->dual;
    const PpSchedule sched = L->sched;
    const double lps = w->lps, unrecomputed = h->unrecomputed, w_layer = w->w_layer;
    const long m_micro = w->m_micro;
    Costs *first = &w->first, *last = &w->last, *middle = &w->middle;
    const Costs *lr = &w->lr, *lb = &w->lb, *fb = &w->fb, *tb = &w->tb;
    if (unrecomputed > 0) {
        costs_add(first, lr, -unrecomputed);
        costs_add(last, lr, -unrecomputed);
        costs_add(middle, lr, -unrecomputed);
    }
    Costs ends = {0}; /* DualPipe: a microbatch on the ends' ranks, half through each stage */
    costs_add(&ends, first, 0.5);
    costs_add(&ends, last, 0.5);
    /* the stage that bounds the pipeline: an end's (with the embedding or
     * the head), or a middle one's when the ends carry fewer layers */
    const Costs *stage = dual ? &ends : (pp == 1 || costs_total(first) >= costs_total(last)) ? first : last;
    if (!dual && pp > 2 && L->split == SPLIT_ENDS && costs_total(middle) > costs_total(stage))
        stage = middle;
    const double t_stage = o->t_stage = costs_total(stage); /* t_f + t_b */
    o->t_b_last = (stage == first  ? w->lps_first
                   : stage == last ? w->lps_last
                                   : lps) *
                      costs_total(lb) -
                  unrecomputed * costs_total(lr) +
                  (dual             ? 0.5 * (costs_total(fb) + costs_total(tb))
                   : stage == first ? costs_total(fb)
                   : stage == last  ? costs_total(tb)
                                    : 0.0);

    Costs *step = &o->step;
    *step = (Costs){0};
    costs_add(step, stage, (double)m_micro);
    /* Activation offloading (one stage): each offloaded layer's saved
     * activations go to host memory under the next layer's forward and come
     * back under the backward of the layer after it (Transformer Engine's
     * double-buffered handler waits for the previous copy before a layer
     * goes on); a copy longer than that compute shows. */
    const int off = sc->system.framework.offload_layers;
    if (off > 0 && sc->system.host_bw_bytes_per_s > 0) {
        const double t_copy = g->act_bytes_per_layer / sc->system.host_bw_bytes_per_s;
        step->t[COMP_OFFLOAD] =
            (double)m_micro * off *
            (fmax(0.0, t_copy - costs_total(&w->lf)) + fmax(0.0, t_copy - costs_total(&w->lb)));
    }
    /* Fill and drain: (pp - 1) / v stage-times, divided by the units a
     * microbatch is pipelined in (an LSTM's timesteps).  Each at the
     * slowest stage's time, although the stages without the head pass the
     * fill on faster in a free-running pipeline ((m - 1) t_max + sum_i
     * t_i): vTrain's single-node runs (Megatron-DeepSpeed), whose last
     * stage carries a head of 2-3 layers' cost, measure the slowest
     * stage's fill: at pp 4 the mean error stays near pp 1's (-3 to -7 %
     * by model size, pp 1 -0.3 to -7 %), where charging each stage its
     * own time gives -10 to -18 %. */
    if (sched == SCHED_ZERO_BUBBLE || dual) {
        /* the split schedules (schedule.c): the weight gradients fill the
         * bubble; DualPipe's overlapped forward and backward chunks hide
         * their all-to-all and stage sends */
        const double t_w = lps * w_layer;
        const double t_fb = t_stage - stage->t[COMP_EP_COMM];
        step->t[COMP_PP_BUBBLE] = sched_bubble_split(sched, pp, t_stage, o->t_b_last, t_w, t_fb);
    } else {
        step->t[COMP_PP_BUBBLE] = sched_bubble(pp, v, t_stage, g->wavefront, g->serial_first);
    }
    const double dual_exposed = hide_expert_comm(sys, dual, pp, m_micro, step);
    stage_sends(sc, L, g, m_micro, dual_exposed, fmax(0.0, t_stage - o->t_b_last), o->t_b_last, step, r);
}

/* The collectives a data-parallel exchange of p parameters is issued as:
 * ZeRO-3 one a layer (FSDP's units); a stack with a bucket size buckets
 * of max(dp_bucket, dp_bucket_per_rank x the group's ranks) parameters
 * (Megatron-Core's max(40M, 1M x dp)); without one, ZeRO-1/2 one a layer
 * (FSDP's SHARD_GRAD_OP units) and an all-reduce one collective; for a
 * stack that hides it as if in endless small buckets (dp_continuous, the
 * ideal one) none (comm_bucket_exposed's continuous case). */
static double dp_buckets(const Framework *fw, int zero, double p, int ranks, double layers)
{
    if (fw->dp_continuous)
        return 0.0;
    if (zero >= 3)
        return fmax(1.0, layers);
    const double size = fmax(fw->dp_bucket, fw->dp_bucket_per_rank * ranks);
    if (size > 0)
        return fmax(1.0, ceil(p / size));
    return zero >= 1 ? fmax(1.0, layers) : 1.0;
}

/* Exchange (stage 5): the data-parallel gradient exchange, partly hidden
 * under the backward passes, and the optimizer step over the local
 * (ZeRO-sharded) parameters. */
static void step_exchange(const Scenario *sc, const Device *dev, double pace, const Layout *L, const Work *w,
                          const Held *h, Pipe *o, Result *r)
{
    const System *sys = &sc->system;
    const Model *mdl = &sc->model;
    const Framework *fw = &sys->framework;
    const Graph *g = w->g;
    const int tp = L->tp, pp = L->pp, dp = L->dp, dpc = L->dpc, ep = L->ep, edp = L->edp;
    const double lps = w->lps, p_first = h->p_first, p_last = h->p_last, p_dev = h->p_dev, p_exp = h->p_exp;
    const double wb = h->wb, gb = h->gb, t_stage = o->t_stage, t_b_last = o->t_b_last;
    const OptimizerSpec os = h->os;
    const long m_micro = w->m_micro;
    Costs *step = &o->step;
    /* Row-sparse gradients (model sparse_grads; TensorFlow's IndexedSlices,
     * exchanged by Horovod as all-gathers of values and indices): the
     * vocabulary tables on this device touch only the rows of the
     * replica's tokens per step (at most; repeats make it fewer), a
     * sampled softmax also its samples; a full softmax's gradient is dense.
     * Vocab-parallel tables hold V/tp rows. */
    double sp_params = 0, sp_touched = 0, sp_bytes = 0; /* on this device */
    if (mdl->sparse_grads && mdl->vocab > 0 && sc->st.zero == 0) {
        const double V = (double)mdl->vocab;
        const double tokens = (double)sc->st.global_batch / dp * (mdl->seq_len > 0 ? mdl->seq_len : 1);
        const int has_embed = pp == 1 || p_first >= p_last, has_head = pp == 1 || p_last > p_first;
        const double rows[2] = {fmin(V, tokens), mdl->samples > 0 ? fmin(V, tokens + mdl->samples) : V};
        const double width[2] = {has_embed ? g->embed_row : 0.0, has_head ? g->head_row : 0.0};
        for (int i = 0; i < 2; i++) {
            if (width[i] <= 0)
                continue;
            sp_params += V * width[i] / tp;
            sp_touched += rows[i] * width[i] / tp;
            sp_bytes += rows[i] / tp * (width[i] * STEP_GRAD_BYTES + 8.0); /* fp32 values + int64 index */
        }
    }

    /* Data-parallel gradient exchange (comm.c), partly hidden under the
     * last microbatch's backward pass (ZeRO-3's weight all-gathers under
     * every microbatch's compute: comm_dp_hidden_step). */
    if (dpc > 1 && p_dev > 0) {
        DpExchange ex;
        /* a pipeline schedule reduces on the last backward only (PyTorch's
         * pipelining: "accumulate gradients on previous steps and reduce
         * them on the last step") */
        const int sync_each = fw->grad_sync_each && pp == 1, keep = fsdp_keeps(sc, pp, dpc);
        /* the experts' share over the ranks that hold the same experts */
        const double p_shared = ep > 1 ? p_dev - p_exp : p_dev;
        comm_dp_exchange(sys, &L->dp_group, p_shared, sc->st.zero, m_micro, sync_each, keep, wb, gb,
                         sp_params, sp_bytes, dp_buckets(fw, sc->st.zero, p_shared, dpc, lps), &ex);
        if (ep > 1 && p_exp > 0 && L->edp_group.p > 1) {
            DpExchange ee;
            comm_dp_exchange(sys, &L->edp_group, p_exp, sc->st.zero, m_micro, sync_each, keep, wb, gb, 0, 0,
                             dp_buckets(fw, sc->st.zero, p_exp, L->edp_group.p, lps), &ee);
            ex.time_s += ee.time_s;
            ex.intra_bytes += ee.intra_bytes;
            ex.inter_bytes += ee.inter_bytes;
            ex.gather_s += ee.gather_s;
            ex.allgather_s += ee.allgather_s;
            ex.buckets = fmax(ex.buckets, ee.buckets);
        }
        step->inter_bytes += ex.inter_bytes;
        step->intra_bytes += ex.intra_bytes;
        tier_name(r->dp_tier, sizeof r->dp_tier, &L->dp_group, &ex.first);
        /* weights kept gathered: their one all-gather runs ahead of the
         * first microbatch's forward, the only compute that needs them
         * before they are whole (and the earlier microbatches' extra
         * reduce-scatters beside theirs) */
        const double t_f_first = fmax(0.0, t_stage - t_b_last); /* the first microbatch's forward */
        const double ahead_s =
            keep ? t_f_first + (sync_each ? (m_micro - 1.0) * t_stage : 0.0) : (double)m_micro * t_stage;
        const double hidden =
            comm_dp_hidden_step(&ex, fw->dp_overlap, t_b_last, t_f_first, ahead_s, lps, comm_lost(sys));
        step->t[COMP_DP_COMM] = ex.time_s - hidden;
        const double f_exposed = ex.time_s > 0 ? (ex.time_s - hidden) / ex.time_s : 1.0;
        step->e[COMP_DP_COMM] = f_exposed * pwr_link_energy(&sys->intra, ex.intra_bytes);
        step->e[COMP_DP_HIDDEN] = (1 - f_exposed) * pwr_link_energy(&sys->intra, ex.intra_bytes);
        step->e_inter += pwr_link_energy(&sys->inter, ex.inter_bytes);
        step->t[COMP_DP_HIDDEN] = hidden;
    }

    /* Optimizer over the local (ZeRO-sharded) parameters: reads the
     * gradient, reads and writes its state and (16-bit training) the fp32
     * master weights, writes the 16-bit copy (none where the parameters
     * are the masters). */
    if (p_dev > 0) {
        double p_opt = sc->st.zero >= 1 ? (p_dev - p_exp) / dpc + p_exp / edp : p_dev;
        /* TensorFlow's sparse updates (SGD, RMSProp, Adagrad) touch only
         * the gradient's rows; Adam and LAMB decay every moment */
        if (sp_params > 0 && (mdl->optimizer == OPT_SGD_MOMENTUM || mdl->optimizer == OPT_RMSPROP ||
                              mdl->optimizer == OPT_ADAGRAD))
            p_opt -= sp_params - sp_touched;
        const double bytes = p_opt * (gb + 2.0 * h->opt_b + h->copy_b);
        step->t[COMP_OPTIMIZER] = membound_time(dev, bytes, os.flops * p_opt) * pace;
        step->e[COMP_OPTIMIZER] = pwr_membound_energy(dev, bytes, os.flops * p_opt);
    }
}

/* Clock plan (issue 31; Perseus, Chung et al., SOSP 2024): a stage with
 * less work per microbatch than the bounding one waits each microbatch;
 * run at a lower clock, it finishes just in time, and the step is no
 * slower.  Its clock-bound work (GEMMs, attention, recompute, embedding
 * and head) stretches by 1/phi, the rest (memory-bound ops, exposed
 * collectives) does not: phi = s / (T - f), no lower than the device's
 * DVFS floor.  Each stage saves its clock-bound dynamic energy x (1 -
 * (V'/V)^2) and its leakage x (1 - V'/V) over the microbatches'
 * steady state.  Under 1F1B, a stage's warm-up forwards wait as well:
 * stage k runs F1..F(pp-k) and then waits for B1, and F2..F(pp-k) may
 * each stretch by a backward's time at no cost to the critical chain
 * (every stage stretching its warm-up forwards alike delays no forward
 * past the moment the last stage needs it; F1 stays on time), so they run
 * lower still; stage k has min(pp-k-1, m-1) of them, the last none.  Into
 * r: the saving per device per step (the stages' mean) and the lowest
 * steady-state stage clock (the warm-up forwards' are not counted: they
 * mostly reach the floor); none with one stage or DualPipe (whose ranks
 * hold both ends). */
/* The clock (over the running one) at which work c just fills span: its
 * clock-bound part (GEMMs, attention, recompute, embedding and head)
 * stretches by 1/phi, the rest does not; no lower than floor.  Into *q
 * its voltage over v0, into *eb that part's dynamic energy.  0, or -1 when
 * it cannot run lower (no clock-bound work, no slack, out of reach). */
static int plan_clock(const Ctx *x, const Device *nom, const Costs *c, double span, double floor, double v0,
                      double *phi, double *q, double *eb)
{
    static const Component bound[] = {COMP_GEMM, COMP_ATTENTION, COMP_RECOMPUTE, COMP_EMBED_HEAD};
    double sb = 0;
    *eb = 0;
    for (size_t j = 0; j < sizeof bound / sizeof bound[0]; j++) {
        sb += c->t[bound[j]];
        *eb += c->e[bound[j]];
    }
    const double fixed = costs_total(c) - sb;
    if (!(sb > 0) || !(span - fixed > sb))
        return -1; /* the bounding stage, or one as long */
    *phi = sb / (span - fixed);
    if (*phi < floor)
        *phi = floor;
    double v = v0;
    if (*phi >= 1.0 || pwr_voltage_near_at(nom, x->dvfs, x->phi * *phi, &v) != 0)
        return -1;
    *q = v / v0;
    return 0;
}

static void clock_plan(const Scenario *sc, const Ctx *x, const Layout *L, const Work *w, const Held *h,
                       const Pipe *o, Result *r)
{
    r->plan_saved_device_j = 0;
    r->plan_min_clock = 1.0;
    const int pp = L->pp;
    const Device *nom = &sc->system.device;
    if (pp < 2 || L->dual || !(o->t_stage > 0))
        return;
    Costs mid = w->middle;
    if (!(costs_total(&mid) > 0)) { /* an even split: a middle stage carries lps layers */
        costs_add(&mid, &w->lf, w->lps);
        costs_add(&mid, &w->lb, w->lps);
        if (h->unrecomputed > 0)
            costs_add(&mid, &w->lr, -h->unrecomputed);
    }
    const Costs *stages[3] = {&w->first, &mid, &w->last};
    const double count[3] = {1, pp - 2, 1};
    const double v0 = x->v_near; /* pwr_voltage_near(nom, x->phi), solved with the clock */
    if (x->v_near_rc != 0 || !(v0 > 0))
        return;
    const double floor = pwr_min_clock(nom) / x->phi, T = o->t_stage;
    double saved = 0, qs[3] = {1, 1, 1}; /* each stage's voltage in its steady state, over v0 */
    for (int k = 0; k < 3; k++) {
        double phi, q, eb;
        if (count[k] <= 0 || plan_clock(x, nom, stages[k], T, floor, v0, &phi, &q, &eb))
            continue;
        qs[k] = q;
        saved += count[k] * (double)w->m_micro * (eb * (1 - q * q) + x->dev->idle_w * T * (1 - q));
        if (phi < r->plan_min_clock)
            r->plan_min_clock = phi;
    }
    /* the warm-up forwards, from their steady-state clock down: a first
     * stage's, and the middle ones' (stage k of them, min(pp-k-1, m-1)) */
    if (L->sched == SCHED_1F1B && L->v == 1 && o->t_b_last > 0) {
        Costs fwd[2];
        memset(fwd, 0, sizeof fwd);
        costs_add(&fwd[0], &w->lf, w->lps_first);
        costs_add(&fwd[0], &w->ff, 1);
        costs_add(&fwd[1], &w->lf, w->lps);
        const long m1 = w->m_micro - 1;
        double warm[2] = {(double)(pp - 1 < m1 ? pp - 1 : m1), 0};
        for (int k = 1; k <= pp - 2; k++)
            warm[1] += (double)(pp - k - 1 < m1 ? pp - k - 1 : m1);
        for (int k = 0; k < 2; k++) {
            /* each may take its own time and a backward's */
            const double allowed = costs_total(&fwd[k]) + o->t_b_last;
            double phi, q, eb;
            if (!(warm[k] > 0) || plan_clock(x, nom, &fwd[k], allowed, floor, v0, &phi, &q, &eb) ||
                !(q < qs[k]))
                continue; /* none, or no lower than its steady state */
            saved += warm[k] * (eb * (qs[k] * qs[k] - q * q) + x->dev->idle_w * allowed * (qs[k] - q));
        }
    }
    r->plan_saved_device_j = saved / pp;
}

/* Finish (stage 6): the step's time, energy and breakdown into the
 * result, throughput and utilisation, the memory total and the
 * bottleneck. */
static int step_finish(const Scenario *sc, const Ctx *x, const Layout *L, const Work *w, const Held *h,
                       const Pipe *o, Result *r)
{
    const Device *dev = x->dev;
    const Graph *g = w->g;
    const Costs *step = &o->step;
    const int tp = L->tp, cp = L->cp, mb = L->mb;
    const double lps = w->lps, unrecomputed = h->unrecomputed, act = h->act;
    r->step_time_s = costs_total(step);
    for (int i = 0; i < COMP_COUNT; i++)
        r->comp_time_s[i] = step->t[i];
    /* Device energy of the step: dynamic energy of each component plus
     * leakage over its time (hidden DP communication overlaps other
     * components, whose time already carries the leakage). */
    r->device_energy_j = 0;
    for (int i = 0; i < COMP_COUNT; i++) {
        double e = step->e[i] + (i == COMP_DP_HIDDEN ? 0.0 : dev->idle_w * step->t[i]);
        r->comp_energy_j[i] = e;
        r->device_energy_j += e;
    }
    r->inter_link_energy_j = step->e_inter;
    r->intra_bytes = step->intra_bytes;
    r->inter_bytes = step->inter_bytes;
    r->clock_scale = x->phi;

    /* Throughput and utilisation. */
    const double samples = (double)sc->st.global_batch;
    r->samples_per_s = samples / r->step_time_s;
    r->params_total = g->params_total;
    r->model_flops_per_step = g->model_flops_per_sample * samples;
    /* hardware FLOPs: the model's, counted as MFU counts them, and what
     * recompute redoes, so that HFU >= MFU on every row */
    double redo = g->recompute_flops_per_sample * samples;
    if (unrecomputed > 0) /* the recompute FLOPs of the layers that keep their activations */
        redo -= unrecomputed / lps *
                ((double)(g->layers - g->layers_dense) * graph_gemm_flops(&g->layer_recompute) +
                 (double)g->layers_dense * graph_gemm_flops(&g->dense_recompute)) *
                tp * cp / mb * samples;
    r->hardware_flops_per_step = r->model_flops_per_step + (redo > 0 ? redo : 0.0);
    /* utilisation of the nominal peak, whatever clock DVFS chose */
    const Precision run = precision_fallback(x->nominal->matrix_flops, sc->precision);
    const double peak = run < PREC_COUNT ? x->nominal->matrix_flops[run] : x->nominal->vector_flops;
    r->model_tflops_per_device = r->model_flops_per_step / r->step_time_s / sc->devices / 1e12;
    r->mfu = r->model_flops_per_step / (r->step_time_s * sc->devices * peak);
    r->hfu = r->hardware_flops_per_step / (r->step_time_s * sc->devices * peak);

    /* Memory of the most loaded device (memory.c, schedule.c): the state as
     * set above, the activations as chosen there. */
    r->mem_activations_bytes = act;
    r->mem_total_bytes = r->mem_weights_bytes + r->mem_grads_bytes + r->mem_optimizer_bytes +
                         r->mem_activations_bytes + r->mem_workspace_bytes;
    r->mem_capacity_bytes = dev->mem[MEM_HBM].capacity_bytes;
    /* offloaded activations in the devices' share of their node's host memory */
    const System *sys = &sc->system;
    r->mem_host_capacity_bytes =
        sys->host_memory_bytes > 0
            ? sys->host_memory_bytes / (sys->devices_per_node > 0 ? sys->devices_per_node : 1)
            : 0.0;
    const int device_full = r->mem_total_bytes > r->mem_capacity_bytes;
    const int host_full = r->mem_host_capacity_bytes > 0 && r->mem_host_bytes > r->mem_host_capacity_bytes;
    r->fits_memory = !device_full && !host_full;

    /* Bottleneck: the largest component; GEMMs say what limits them. */
    int worst = 0;
    for (int i = 1; i < COMP_COUNT; i++)
        if (i != COMP_DP_HIDDEN && step->t[i] > step->t[worst])
            worst = i;
    if (device_full) {
        label(r->bottleneck, sizeof r->bottleneck, "memory capacity", NULL);
    } else if (host_full) {
        label(r->bottleneck, sizeof r->bottleneck, "host memory capacity", NULL);
    } else if (worst == COMP_GEMM || worst == COMP_ATTENTION || worst == COMP_EMBED_HEAD ||
               worst == COMP_RECOMPUTE) {
        int b = 0;
        for (int i = 1; i < BOUND_COUNT; i++)
            if (step->bound_t[i] > step->bound_t[b])
                b = i;
        label(r->bottleneck, sizeof r->bottleneck, component_name((Component)worst), bound_name((Bound)b));
    } else {
        label(r->bottleneck, sizeof r->bottleneck, component_name((Component)worst), NULL);
    }
    r->status = r->fits_memory ? STATUS_OK : STATUS_OOM;
    if (!isfinite(r->step_time_s) || r->step_time_s <= 0)
        return fail(r, "the step time is not finite (a zero bandwidth or rate in a template?)");
    return 0;
}

int step_evaluate(const Scenario *sc, double phi, GemmCache *cache, Result *r)
{
    return step_evaluate_memo(sc, phi, cache, NULL, r);
}

static int step_run(const Scenario *sc, double phi, GemmCache *cache, StepGraphMemo *memo, OpTrace *trace,
                    Result *r)
{
    /* a stack whose collectives reach another share of a tier's bandwidth
     * than the network template says, or pay more per step
     * (comm_efficiency, comm_latency; deepflow calibrate): the scenario
     * with those tiers' efficiencies scaled and latencies raised */
    const Framework *fw = &sc->system.framework;
    if ((fw->comm_intra > 0 && fw->comm_intra != 1.0) || (fw->comm_inter > 0 && fw->comm_inter != 1.0) ||
        fw->comm_alpha_intra > 0 || fw->comm_alpha_inter > 0) {
        Scenario adj = *sc;
        Framework *af = &adj.system.framework;
        if (af->comm_intra > 0)
            adj.system.intra.efficiency *= af->comm_intra;
        if (af->comm_inter > 0) {
            adj.system.inter.efficiency *= af->comm_inter;
            adj.system.pod.efficiency *= af->comm_inter;
        }
        adj.system.intra.alpha_extra = af->comm_alpha_intra;
        adj.system.inter.alpha_extra = af->comm_alpha_inter;
        adj.system.pod.alpha_extra = af->comm_alpha_inter;
        af->comm_intra = af->comm_inter = 1.0;
        af->comm_alpha_intra = af->comm_alpha_inter = 0;
        return step_run(&adj, phi, cache, memo, trace, r); /* the graph: sc's model and strategy */
    }
    const System *sys = &sc->system;
    /* the device as the training stack drives it, at the nominal clock and
     * at the DVFS clock */
    Device nominal = sys->device, scaled;
    const double stack_eff = sys->framework.gemm_eff > 0 ? sys->framework.gemm_eff : 1.0;
    nominal.matrix_eff *= stack_eff;
    nominal.matrix_eff_fp8 *= stack_eff;
    PwrDvfs dvfs;
    pwr_dvfs(&nominal, &dvfs);
    double v_near = nominal.v_nominal;
    int v_near_rc = 0;
    const Device *dev = &nominal; /* at the nominal clock, as it is: not a copy */
    if (phi != 1.0) {
        pwr_scale_device_near(&nominal, &dvfs, phi, &scaled, &v_near, &v_near_rc);
        dev = &scaled;
    } else {
        v_near_rc = pwr_voltage_near_at(&nominal, &dvfs, phi, &v_near);
    }
    GemmOn gemm;
    gemm_on(&nominal, cache, &gemm);
    Ctx x = {.sys = sys,
             .dev = dev,
             .nominal = &nominal,
             .phi = phi,
             .prec = sc->precision,
             .cache = cache,
             .gemm = &gemm,
             .dvfs = &dvfs,
             .v_near = v_near,
             .v_near_rc = v_near_rc,
             .pace = 1.0, /* until the layout gives the device count */
             /* (its topk is each all-to-all's own copies: cost_list) */
             .route = {.experts = sc->model.experts,
                       .groups = sc->model.expert_groups,
                       .per_token = sc->model.groups_per_token},
             .trace = trace};
    Layout L;
    Work w;
    Held h;
    Pipe o;
    if (step_layout(sc, &x, &L, r))
        return -1;
    /* every device of the step waits for the slowest: its compute sets the pace */
    x.pace = pace_factor(sys->speed_spread, (double)L.tp * L.pp * L.dpc);
    if (step_work(sc, &x, &L, &w, memo, r))
        return -1;
    step_held(sc, x.dev, &L, &w, &h, r);
    step_pipeline(sc, &L, &w, &h, &o, r);
    step_exchange(sc, x.dev, x.pace, &L, &w, &h, &o, r);
    clock_plan(sc, &x, &L, &w, &h, &o, r);
    return step_finish(sc, &x, &L, &w, &h, &o, r);
}

int step_evaluate_memo(const Scenario *sc, double phi, GemmCache *cache, StepGraphMemo *memo, Result *r)
{
    return step_run(sc, phi, cache, memo, NULL, r);
}

int step_trace(const Scenario *sc, double phi, GemmCache *cache, OpTrace *t, Result *r)
{
    t->n = t->nlisted = 0;
    return step_run(sc, phi, cache, NULL, t, r);
}
