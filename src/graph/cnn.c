/* graph/cnn.c — a convolutional network (a CnnNet layer list, graph/cnn.h)
 * as op lists for one microbatch on one device: convolutions as implicit
 * GEMMs (DESIGN §6.1: M = N·Ho·Wo, K = Cin·kh·kw, N_gemm = Cout, with the
 * backward data-gradient GEMM (M, K, Cout) and weight-gradient GEMM
 * (K, Cout, M) of the same FLOPs), batch norm, ReLU, pooling, concat, the
 * residual add, dropout and softmax + cross-entropy as memory-bound ops,
 * fully connected layers as GEMMs.  Model parallelism: the kernel split
 * (each of tp devices computes ceil(Cout/tp) output channels of every conv
 * and fc layer, then all-gathers the output; backward reduce-scatters the
 * input gradient); a top-level layer run whole on one device where that
 * is faster; branch placement at a concat (Pal et al., IEEE Micro
 * 2019, "Optimizing multi-GPU parallelization strategies for deep learning
 * training", whose DLPlacer places the branches of Inception modules on
 * different devices: each device runs its branches whole, one all-gather
 * of the module's output); and a pipeline that cuts the top-level layers into
 * GraphParams.pp contiguous stages balanced in forward + backward GEMM
 * FLOPs and in HBM bytes; the graph lists the heaviest stage (graph.h:
 * layers = pp).
 * Also the parameter count, MACs, and stored activations.
 * Units: FLOP, bytes, element counts; N = microbatch (images),
 * e = activation bytes per element (2 for fp16/bf16/fp8, 4 for fp32/tf32),
 * e_in = GEMM input bytes per element (1 for fp8).
 *
 * Choices, each stated once here:
 *  - Parameters: conv weights Cout·Cin·kh·kw, batch norm's scale and shift
 *    (2 per channel; running statistics are buffers, not parameters), biases
 *    where a layer has one, fc weights and bias: what torchvision counts
 *    (ResNet-50: 25,557,032; Inception-V3 without its auxiliary head:
 *    23,834,568).  MACs: convolutions and fc layers only, forward, one
 *    image (ResNet-50 at 224: 4.09 G; Inception-V3 at 299: 5.71 G).
 *  - model_flops_per_sample = 3 x 2 x MACs (forward, data and weight
 *    gradients); hw_flops_per_sample counts what the tensor-parallel group
 *    runs: no data gradient for a layer whose input needs none (the first
 *    convolution), the padded ceil(Cout/tp) shards of every device, each
 *    placed branch once, and the forward again under full recompute.
 *  - GEMM bytes are the implicit-GEMM minimum: the input tensor (not the
 *    kh·kw-times larger im2col matrix), the weights and the output, once.
 *    (The perf engine prices the shape as a plain GEMM.)  A conv bias is
 *    taken as fused into the GEMM epilogue (neither shipped net has one).
 *  - The stack's layout (GraphParams.nchw_transposes, .winograd; step.c
 *    sets them from Framework.conv_layout and the precision's unit).  NCHW
 *    on tensor cores: cuDNN transposes each operand of every convolution
 *    to NHWC and back, a read and a write of the tensor in a kernel of its
 *    own: forward the input and the output, the data gradient its two, the
 *    weight gradient its own copies of the input and the output gradient.
 *    NCHW on the vector units (fp32 where the device has no fp32 matrix
 *    unit): 3x3 stride-1 convolutions and their data gradients as Winograd
 *    F(2x2,3x3) (Lavin and Gray, CVPR 2016), see winograd() below, and
 *    so are their weight gradients (cuDNN's non-fused Winograd, what its
 *    algorithm search picks for them in DeepBench's V100 layers:
 *    winograd_wgrad).  Measured on one V100
 *    (validation/small_batch, skb-pt): ResNet-50 at 128 images, AMP 152.20
 *    ms NCHW against 110.93 NHWC, fp32 342.37 NCHW against 412.84 NHWC.
 *  - A convolution's weight gradient, K x Cout outputs summed over the
 *    N·Ho·Wo positions, runs split-K as cuDNN and cuBLAS run it: a batched
 *    GEMM of s slices of the reduction plus a memory-bound sum of the fp32
 *    partials (wgrad_split below says how s is chosen).  Unsplit, the early
 *    layers' few output tiles would occupy a handful of SMs for
 *    milliseconds.
 *  - Memory-bound traffic, per element of the tensors named, as PyTorch
 *    eager with cuDNN runs them: batch norm forward 3 passes (statistics
 *    read, normalise read + write), backward 5 (two reads of x and dy, write
 *    dx); ReLU 2 / 3; max pool in + out forward, 2 (in + out) backward
 *    (x, y, dy read, dx written); average pool in + out both ways; concat
 *    reads the branches and writes the output, and its backward copies the
 *    slices out again (2 x output); the residual add 3 x output; where a
 *    tensor feeds k consumers (a block's paths, a concat's branches) the
 *    backward adds k - 1 gradients (3 x input each); dropout 2e + 1 bytes
 *    (1-byte mask); softmax + cross-entropy e + 4 (fp32 probabilities).
 *  - Stored activations (what backward reads), counted once per tensor per
 *    device: a conv's or fc's input, batch norm's input, ReLU's output,
 *    max pool's input and output, dropout's 1-byte mask, the fp32 softmax.
 *    A pipeline stage holds its own tensors plus the input it receives when
 *    its first layer saves it.
 *  - Kernel split: batch norm and ReLU run on the ceil(Cout/tp)-channel
 *    shard (they are per-channel), then an all-gather of the full output
 *    (comm_bytes = N·Ho·Wo·Cout·e) before the next layer, which needs all
 *    channels; pooling, concat, add, dropout and softmax run replicated on
 *    full tensors.  Backward: each device holds the full output gradient
 *    (replicated), takes its shard, and reduce-scatters its partial input
 *    gradient (comm_bytes = N·H·W·Cin·e) unless the input needs none: the
 *    layer before wants only its own channels' share of it (the ops
 *    between, per channel or per position, run on a share as well).
 *  - A layer run whole (issue 26; as DLPlacer puts Inception-V3's stem on
 *    one GPU): a top-level convolution under branch or auto placement, with
 *    rates, runs unsplit on one device (no all-gather, no reduce-scatter)
 *    where its estimated time so is below the kernel split's, and a
 *    top-level pool after it follows it there; the first layer after them
 *    that the whole group runs has the tensor sent on first (a pipelined
 *    broadcast, COLL_P2P of its bytes) and its gradient brought back
 *    (another).  The greedy choice, layer by layer, does not look ahead to
 *    that send.
 *  - Branch placement (Model.cnn_split): a concat's branches go to the tp
 *    devices whole, by longest processing time first on their forward +
 *    backward GEMM FLOPs (Graham 1969: the most FLOPs first, each to the
 *    device with the fewest so far); with more devices than branches the
 *    rest idle, so tp x the busiest device's FLOPs >= the module's.  A
 *    device runs its branches' layer chains unsplit with no communication
 *    (a concat nested in a branch runs whole too), writes their outputs
 *    into its slice of the module output (the concat copy of its channels)
 *    and one all-gather fills the rest (shards padded to the device with
 *    the most channels, as NCCL gathers equal shards: comm_bytes = tp ·
 *    N·Ho·Wo·max_c·e).  Backward: each device sums its branches' input
 *    gradients and one reduce-scatter (N·H·W·Cin·e) sums the devices'.  The
 *    graph lists the slowest device: the one with the largest estimated
 *    time (below), or without rates the most FLOPs.  Layers outside
 *    concats keep the kernel split.  params_per_layer counts tp x the
 *    parameters that device holds (its branches whole), which the step
 *    model divides by tp.  cnn_split: kernel, branch, or auto (the
 *    default): per concat the one of lower estimated time on the listed
 *    device, with GraphParams.rates (step.c: the device's sustained GEMM
 *    rate, HBM bandwidth and launch time, the tp group's all-gather latency
 *    and bandwidth): a GEMM flops / rate + launch, a memory-bound op bytes
 *    / bandwidth + launch, an all-gather latency + bytes / bandwidth, an
 *    all-reduce twice that; the kernel split's estimate walks every branch
 *    split, branch placement the listed device's branches and its two
 *    collectives (the concat copy is left out of both).  Without rates
 *    (graph_build called on its own) auto keeps the kernel split.  Each
 *    concat is walked once more per mode it estimates (a dry walk: counts
 *    only, nothing kept).
 *  - Pipeline: the units are the top-level layers with repeats expanded
 *    (a concat module or residual block is one unit).  A stage's time is
 *    about a F + b B (F its GEMM FLOPs, B the HBM bytes of its ops) for a
 *    device's a and b, which the graph does not know; balancing F alone
 *    leaves the first, high-resolution, memory-bound stage at about twice
 *    the mean stage time (Inception-V3 and ResNet-50, pp = 4 and 8, V100).
 *    So the partition minimises the largest share of either F or B that a
 *    stage holds (bisection on the bound with a greedy fill, optimal for
 *    contiguous stages), and the graph lists the stage with the largest
 *    F share + B share (heaviest_stage).  params_per_layer (tp x what one
 *    device holds) and act_bytes_per_layer are the largest of any stage
 *    (the step model uses them for the most loaded device's memory and
 *    gradient exchange); stage_boundary_bytes is the largest activation
 *    crossing a cut, full size per microbatch.  The early layers' thin GEMMs also run below
 *    peak, which neither F nor B sees: Inception-V3's stem stage at pp = 2
 *    is ~1.3x the listed one on V100 (the other cases checked, pp = 2 to
 *    8 on V100 and H100, are within 10 %); a step model that costs every
 *    stage on the device would remove this.
 *  - Op lists hold GRAPH_MAX_OPS ops and a net has hundreds of kernels, so
 *    ops fold into repeated ones (Op.repeat): GEMMs of one name and shape
 *    (a `repeat:` layer, or like layers elsewhere in the stage) become one
 *    GEMM that runs once per layer, memory-bound ops and collectives of one
 *    name one op that runs once per kernel or collective with their mean
 *    bytes.  Every kernel keeps its launch (and host dispatch) and every
 *    collective its latency; FLOPs and bytes are kept exactly.  The time is
 *    exact for the GEMMs (one shape, one cost), for the memory-bound ops
 *    (bytes / bandwidth + launch while bandwidth-bound, which every CNN
 *    memory-bound op is) and for collectives inside a node (alpha-beta,
 *    linear in bytes); across nodes the cheapest algorithm is picked per
 *    size, a concave cost, so the mean overstates a mix slightly.
 *  - Recompute: full keeps each unit's input and recomputes the stage's
 *    forward in backward (working set: the largest unit); selective has no
 *    attention core to drop in a CNN and is the same as none. */
#include "graph/cnn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph_internal.h"

/* Fill the diagnostic and fail with an explicit -1, so that static
 * analysers need not know that diag_set returns -1 (a tensor index < 0). */
#define FAIL(...)                                                                                            \
    do {                                                                                                     \
        diag_set(__VA_ARGS__);                                                                               \
        return -1;                                                                                           \
    } while (0)

/* Rough vector FLOPs per element (only for the vector-unit roofline). */
static const double FLOPS_BN = 6.0; /* sum, sum of squares, normalise, scale, shift */
static const double FLOPS_BN_BWD = 10.0;
static const double FLOPS_SOFTMAX = 5.0; /* max, sub, exp, sum, log */

typedef struct {
    int c, h, w;
} Shape;

typedef struct {
    double bytes; /* on one device */
    int saved;    /* some layer keeps it for backward */
    int grad;     /* it needs a gradient (some parameter is upstream) */
} Tensor;

typedef struct {
    Op *op;
    int n, cap;
} OpBuf;

/* One top-level layer (repeats expanded): what a pipeline cuts between. */
typedef struct {
    double fwd_flops, bwd_flops; /* GEMM FLOPs run on one shard, one microbatch */
    double bytes;                /* HBM bytes of its GEMM and memory-bound ops, forward + backward */
    double params;               /* whole (unsplit) */
    double dev_params;           /* tp x the parameters one device holds (kernel split: = params) */
    double macs;                 /* one image, forward, unsplit */
    double group_flops;          /* GEMM FLOPs the whole tp group runs, forward + backward */
    double group_fwd_flops;      /* of them forward */
    double saved_internal;       /* bytes of the tensors it creates and saves, one device */
    double in_bytes;             /* its input, one device */
    double out_bytes;            /* its output, full, one microbatch (a stage's message) */
    int needs_input;             /* it saves its input */
    int out_saved;               /* it saves its own output (a ReLU) */
} Unit;

typedef struct {
    const CnnNet *net;
    Diag *d;
    int64_t nb;    /* images per microbatch */
    int64_t tp;    /* devices a layer splits over: the group, or 1 inside a placed branch */
    int64_t group; /* the tensor-parallel group (GraphParams.tp) */
    CnnSplit split;
    GraphRates rates;
    int rated;  /* rates known: estimate the time of what is walked */
    double est; /* estimated seconds of the ops walked on one device (rated) */
    double e, e_in;
    int classes; /* the softmax width to check; 0: none */
    int layers;  /* leaf layers walked so far */
    Tensor *t;
    int nt, cap_t;
    Unit u; /* the unit being walked */
    Unit *units;
    int n_units, cap_units;
    OpBuf *fwd, *bwd; /* where ops go; NULL: count only */
    int oom;
    int whole;    /* the current activation lives on one device of the group (a top-level layer run whole) */
    int nchw;     /* GraphParams.nchw_transposes */
    int winograd; /* GraphParams.winograd */
    int dgrad_overlap; /* GraphParams.dgrad_overlap */
} Walk;

/* ---- small helpers ------------------------------------------------------- */

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int oom(Walk *w)
{
    w->oom = 1;
    FAIL(w->d, w->net->path, 0, 0, "out of memory while building the cnn graph");
}

/* The array p with room for `need` elements of `size` bytes (capacity in
 * *cap): p itself, or a larger copy; NULL when out of memory (p stays). */
static void *grow(void *p, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return p;
    int c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(p, (size_t)c * size);
    if (q)
        *cap = c;
    return q;
}

static int tensor_new(Walk *w, double bytes, int grad)
{
    Tensor *t = grow(w->t, &w->cap_t, w->nt + 1, sizeof *t);
    if (!t)
        return oom(w);
    w->t = t;
    w->t[w->nt] = (Tensor){bytes, 0, grad};
    return w->nt++;
}

static void push(Walk *w, OpBuf *b, const Op *op)
{
    if (!b || w->oom)
        return;
    Op *ops = grow(b->op, &b->cap, b->n + 1, sizeof *ops);
    if (!ops) {
        oom(w);
        return;
    }
    b->op = ops;
    b->op[b->n++] = *op;
}

/* Estimated seconds of an op on one device (GraphRates): FLOPs at the
 * sustained GEMM rate or bytes at the HBM rate, plus a launch; a
 * collective as latency + buffer / bandwidth of an all-gather, twice for an
 * all-reduce (a ring reduce-scatter and all-gather). */
static double est_op(const Walk *w, const Op *op)
{
    const GraphRates *r = &w->rates;
    if (op->kind == OP_GEMM)
        return op->flops / r->flop_s + r->launch_s;
    if (op->kind == OP_MEMBOUND)
        return op->bytes / r->hbm_bytes_s + r->launch_s;
    const double f = op->coll == COLL_ALLREDUCE ? 2.0 : 1.0;
    return f * (r->coll_latency_s + op->comm_bytes / r->coll_bytes_s);
}

/* Count an op in the unit (GEMM FLOPs, HBM bytes, estimated time) and keep
 * it when the unit's ops are wanted. */
static void add_op(Walk *w, int bwd, const Op *op)
{
    if (op->kind == OP_GEMM) {
        const double group = op->flops * (double)w->tp; /* every device of a split runs its shard */
        if (bwd) {
            w->u.bwd_flops += op->flops;
        } else {
            w->u.fwd_flops += op->flops;
            w->u.group_fwd_flops += group;
        }
        w->u.group_flops += group;
    }
    if (op->kind != OP_COMM)
        w->u.bytes += op->bytes;
    if (w->rated)
        w->est += est_op(w, op);
    push(w, bwd ? w->bwd : w->fwd, op);
}

/* A convolution pass's GEMM: one library call (conv_call). */
static void add_conv(Walk *w, int bwd, Op *op)
{
    op->conv_call = 1;
    add_op(w, bwd, op);
}

/* A convolution pass as one GEMM. */
static void conv_gemm(Walk *w, int bwd, const char *name, int64_t m, int64_t n, int64_t k, double bytes)
{
    Op op = graph_gemm_op_bytes(name, COMP_GEMM, 1, m, n, k, bytes);
    add_conv(w, bwd, &op);
}

static void membound(Walk *w, int bwd, const char *name, Component comp, double bytes, double flops)
{
    Op op = graph_membound_op(name, comp, bytes, flops);
    add_op(w, bwd, &op);
}

static void comm(Walk *w, int bwd, const char *name, Collective coll, double comm_bytes)
{
    Op op = graph_comm_op(name, coll, comm_bytes);
    add_op(w, bwd, &op);
}

/* A split layer's input-gradient reduce-scatter where the stack copies it
 * on a stream of its own (GraphParams.dgrad_overlap; TensorFlow 1.x: its
 * gradient of a convolution or a matmul creates the input gradient's op
 * before the weight gradient's, and a tensor bound for another GPU is
 * copied on the device-to-device stream once the compute stream has made
 * it): the layer's weight-gradient kernels, which do not wait for it, run
 * beside it.  dgrad_comm emits the collective; the caller sets est0 to
 * the walk's estimate where the weight gradient starts, and dgrad_window,
 * after it, marks the share it covers. */
typedef struct {
    int at;        /* the collective's index in w->bwd, -1: not kept */
    double coll_s; /* its estimated time */
    double est0;   /* w->est when the weight gradient starts */
} DgradComm;

static DgradComm dgrad_comm(Walk *w, const char *name, double comm_bytes)
{
    DgradComm c = {w->bwd ? w->bwd->n : -1, 0, 0};
    Op op = graph_comm_op(name, COLL_REDUCESCATTER, comm_bytes);
    if (w->rated)
        c.coll_s = est_op(w, &op);
    add_op(w, 1, &op);
    return c;
}

/* After the weight gradient's ops: the share of the collective they cover
 * (their estimated time over its, at most 1) on a stack that overlaps
 * them, marked on the kept op (Op.hide) and taken off the estimate.  A
 * peer copy runs on the copy engines, so the compute loses no SMs to it. */
static void dgrad_window(Walk *w, const DgradComm *c)
{
    const double window = w->est - c->est0;
    if (!w->dgrad_overlap || !(c->coll_s > 0) || !(window > 0)) /* coll_s: estimated only with rates */
        return;
    const double share = fmin(1.0, window / c->coll_s);
    w->est -= share * c->coll_s;
    if (c->at >= 0 && w->bwd && c->at < w->bwd->n && !w->oom)
        w->bwd->op[c->at].hide = share;
}

/* Weight gradient (m x n) = (m x k).(k x n) with k = N·Ho·Wo, tens of
 * thousands to a million, and a small m x n: cuDNN and cuBLAS split such a
 * reduction over k (split-K) so that enough thread blocks run.  Split into
 * s slices of k (a batched GEMM of batch s, fp32 partial sums) and a
 * reduction of the s partials, with s = ceil(SPLITK_TILES / output tiles of
 * SPLITK_TILE^2), no slice shorter than SPLITK_MIN_K.  The op's shape has
 * k/s rounded up; its FLOPs are the exact 2 m n k.  in_bytes: the two
 * operands read once. */
static const int64_t SPLITK_TILE = 128;  /* a large tensor-core output tile */
static const int64_t SPLITK_TILES = 256; /* tiles to keep ~2 waves of a 100+ SM device busy */
static const int64_t SPLITK_MIN_K = 512; /* shortest k slice */
static const int64_t SIMT_MIN_TILE = 32; /* the smallest side of a SIMT GEMM tile (perf/gemm.c) */

static void wgrad_split(Walk *w, const char *name, int64_t m, int64_t n, int64_t k, double in_bytes)
{
    int64_t tiles = ceil_div(m, SPLITK_TILE) * ceil_div(n, SPLITK_TILE);
    int64_t s = ceil_div(SPLITK_TILES, tiles);
    if (s > k / SPLITK_MIN_K)
        s = k / SPLITK_MIN_K;
    if (s <= 1) {
        conv_gemm(w, 1, name, m, n, k, in_bytes + (double)m * n * w->e);
        return;
    }
    const double partials = (double)s * (double)m * (double)n;
    membound(w, 1, "wgrad.splitk_reduce", COMP_MEMBOUND, partials * 4.0 + (double)m * n * w->e, partials);
    Op op = graph_gemm_op_bytes(name, COMP_GEMM, s, m, n, ceil_div(k, s), in_bytes + partials * 4.0);
    op.flops = 2.0 * (double)m * (double)n * (double)k; /* the last slice is shorter */
    add_conv(w, 1, &op);
}

/* The N x ceil(H/2) x ceil(W/2) 2x2 output tiles of a Winograd F(2x2,3x3) pass. */
static int64_t winograd_tiles(const Walk *w, int h, int wd)
{
    return w->nb * (int64_t)((h + 1) / 2) * ((wd + 1) / 2);
}

/* A Winograd pass of an h x wd, cin -> cout 3x3 convolution as a
 * convolution call; HFU counts the layer's direct FLOPs, beyond the op's
 * multiplications. */
static void add_winograd(Walk *w, int bwd, Op *op, int h, int wd, int64_t cin, int64_t cout)
{
    add_conv(w, bwd, op);
    const double direct = 2.0 * 9.0 * (double)w->nb * h * wd * (double)cin * (double)cout;
    const double more = (direct - op->flops) * (double)w->tp;
    w->u.group_flops += more;
    if (!bwd)
        w->u.group_fwd_flops += more;
}

/* A 3x3 stride-1 convolution (forward, or its data gradient, also one)
 * on the vector units as cuDNN's Winograd F(2x2,3x3) (Lavin and Gray): every 2x2
 * output tile from a 4x4 input tile in 16 multiplications where the direct
 * form takes 36, i.e. 16 GEMMs of (tiles x c_in) . (c_in x c_out) over the
 * N x ceil(H/2) x ceil(W/2) tiles, with the transforms in the kernel.
 * Bytes: the input, the transformed filter (16 / 9 of the weights) and the
 * output, once.  HFU counts the layer's direct FLOPs (what it computes),
 * the op its multiplications (its time and energy). */
static void winograd(Walk *w, int bwd, const char *name, int h, int wd, int64_t cin, int64_t cout,
                     double bytes)
{
    Op op = graph_gemm_op_bytes(name, COMP_GEMM, 16, winograd_tiles(w, h, wd), cout, cin, bytes);
    add_winograd(w, bwd, &op, h, wd, cin, cout);
}

/* The weight gradient of such a convolution as cuDNN's non-fused Winograd
 * (CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED): the input and the
 * output gradient transformed tile by tile, then 16 GEMMs of (c_in x tiles)
 * . (tiles x c_out) summed over the N x ceil(H/2) x ceil(W/2) tiles, and
 * the 16 c_in x c_out products transformed back to the 3x3 filters.
 * Bytes: the input, the output gradient and the 16 transformed filter
 * gradients (fp32), once.  HFU counts the direct FLOPs, as winograd(). */
static void winograd_wgrad(Walk *w, const char *name, int h, int wd, int64_t cin, int64_t cout, double bytes)
{
    Op op = graph_gemm_op_bytes(name, COMP_GEMM, 16, cin, cout, winograd_tiles(w, h, wd),
                                bytes + 16.0 * (double)cin * cout * 4.0);
    add_winograd(w, 1, &op, h, wd, cin, cout);
}

/* NCHW tensors around a tensor-core convolution, which reads and writes
 * NHWC: cuDNN transposes each operand in a kernel of its own, a read and a
 * write of the tensor (`elems` elements). */
static void nchw_transpose(Walk *w, int bwd, double elems)
{
    membound(w, bwd, "conv.nchw_transpose", COMP_MEMBOUND, 2.0 * elems * w->e, 0.0);
}

/* Output size of a window: 'same' gives ceil(in / s); otherwise
 * floor((in + 2p - k) / s) + 1, or 0 when the window does not fit. */
static int out_dim(int in, int k, int s, int p)
{
    if (p == CNN_PAD_SAME)
        return (in + s - 1) / s;
    int span = in + 2 * p - k;
    return span < 0 ? 0 : span / s + 1;
}

static int count_layer(Walk *w, const CnnLayer *L)
{
    if (++w->layers > CNN_MAX_LAYERS)
        FAIL(w->d, w->net->path, L->line, L->col, "the net has more than %d layers once repeats are expanded",
             CNN_MAX_LAYERS);
    return 0;
}

static int shrink_error(Walk *w, const CnnLayer *L, const char *kind, const Shape *s)
{
    char pad[32];
    if (L->ph == CNN_PAD_SAME)
        snprintf(pad, sizeof pad, "same");
    else
        snprintf(pad, sizeof pad, "%dx%d", L->ph, L->pw);
    FAIL(w->d, w->net->path, L->line, L->col,
         "%s: a %dx%d window with stride %dx%d and padding %s shrinks the %dx%d input below 1x1", kind, L->kh,
         L->kw, L->sh, L->sw, pad, s->h, s->w);
}

static double elems(const Walk *w, const Shape *s)
{
    return (double)w->nb * (double)s->c * (double)s->h * (double)s->w;
}

/* A layer's parameters: the whole count, and tp x what one device holds
 * (a kernel-split layer 1/tp of them, a layer of a placed branch all). */
static void add_params(Walk *w, double p)
{
    w->u.params += p;
    w->u.dev_params += p * (double)w->group / (double)w->tp;
}

/* ---- layers ---------------------------------------------------------------- */

static int walk_seq(Walk *w, const CnnSeq *q, int in, Shape *s, int depth);

static int layer_conv(Walk *w, const CnnLayer *L, int in, Shape *s)
{
    int ho = out_dim(s->h, L->kh, L->sh, L->ph), wo = out_dim(s->w, L->kw, L->sw, L->pw);
    if (ho < 1 || wo < 1)
        return shrink_error(w, L, "conv", s);
    const int64_t cin = s->c, cout = L->out, cl = ceil_div(cout, w->tp);
    const int64_t m = w->nb * (int64_t)ho * wo, k = cin * L->kh * L->kw;
    const double x = elems(w, s), raw = (double)m * (double)cl, e = w->e, ei = w->e_in;
    const int grad_in = w->t[in].grad;

    add_params(w, (double)cout * (double)k + (L->bn ? 2.0 * (double)cout : 0.0) +
                      (L->bias ? (double)cout : 0.0));
    w->u.macs += (double)ho * wo * (double)cout * (double)k;

    const int wino = w->winograd && L->kh == 3 && L->kw == 3 && L->sh == 1 && L->sw == 1;
    if (w->nchw)
        nchw_transpose(w, 0, x);
    if (wino)
        winograd(w, 0, "conv.winograd", ho, wo, cin, cl, (x + 16.0 * (double)cin * cl) * ei + raw * e);
    else
        conv_gemm(w, 0, "conv", m, cl, k, (x + (double)k * cl) * ei + raw * e);
    if (w->nchw)
        nchw_transpose(w, 0, raw);
    w->t[in].saved = 1; /* the weight gradient reads it */
    int cur = tensor_new(w, raw * e, 1);
    if (cur < 0)
        return -1;
    if (L->bn) {
        membound(w, 0, "bn", COMP_MEMBOUND, 3.0 * raw * e, FLOPS_BN * raw);
        w->t[cur].saved = 1; /* batch norm's input */
        if ((cur = tensor_new(w, raw * e, 1)) < 0)
            return -1;
    }
    if (L->relu) {
        membound(w, 0, "relu", COMP_MEMBOUND, 2.0 * raw * e, raw);
        if ((cur = tensor_new(w, raw * e, 1)) < 0)
            return -1;
        w->t[cur].saved = 1; /* ReLU's output */
    }
    if (w->tp > 1) {
        double full = (double)m * (double)cout * e;
        comm(w, 0, "conv.allgather", COLL_ALLGATHER, full);
        if ((cur = tensor_new(w, full, 1)) < 0)
            return -1;
    }
    /* backward, last first (the list is reversed at the end) */
    DgradComm rs = {-1, 0, 0};
    if (grad_in) {
        if (w->tp > 1)
            rs = dgrad_comm(w, "conv.dgrad.reducescatter", x * e);
        if (w->nchw) /* the gradients, in and out (backward lists run last first) */
            nchw_transpose(w, 1, x);
        if (wino)
            winograd(w, 1, "conv.dgrad.winograd", s->h, s->w, cl, cin,
                     raw * e + 16.0 * (double)cin * cl * ei + x * e);
        else
            conv_gemm(w, 1, "conv.dgrad", m, k, cl, raw * e + (double)k * cl * ei + x * e);
        if (w->nchw)
            nchw_transpose(w, 1, raw);
    }
    /* as cuDNN's algorithm search, Winograd only where it does less work once
     * the reduction over c_in (Winograd) or 9 c_in (direct) is padded to a
     * SIMT tile's 32 (perf/gemm.c): never for a first layer of 3 channels */
    rs.est0 = w->est;
    if (wino && 4 * ceil_div(cin, SIMT_MIN_TILE) < ceil_div(9 * cin, SIMT_MIN_TILE))
        winograd_wgrad(w, "conv.wgrad.winograd", ho, wo, cin, cl, (x + raw) * ei);
    else
        wgrad_split(w, "conv.wgrad", k, cl, m, (x + raw) * ei);
    if (w->nchw) { /* the weight gradient's own copies of the input and the output gradient */
        nchw_transpose(w, 1, x);
        nchw_transpose(w, 1, raw);
    }
    dgrad_window(w, &rs);
    if (L->bn)
        membound(w, 1, "bn.bwd", COMP_MEMBOUND, 5.0 * raw * e, FLOPS_BN_BWD * raw);
    if (L->relu)
        membound(w, 1, "relu.bwd", COMP_MEMBOUND, 3.0 * raw * e, raw);
    s->c = (int)cout;
    s->h = ho;
    s->w = wo;
    return cur;
}

static int layer_pool(Walk *w, const CnnLayer *L, int in, Shape *s)
{
    int ho = out_dim(s->h, L->kh, L->sh, L->ph), wo = out_dim(s->w, L->kw, L->sw, L->pw);
    if (ho < 1 || wo < 1)
        return shrink_error(w, L, "pool", s);
    Shape o = {s->c, ho, wo};
    const double x = elems(w, s), y = elems(w, &o), e = w->e;
    const int max = L->pool == CNN_POOL_MAX, grad = w->t[in].grad;
    membound(w, 0, max ? "maxpool" : "avgpool", COMP_MEMBOUND, (x + y) * e, y * L->kh * L->kw);
    int out = tensor_new(w, y * e, grad);
    if (out < 0)
        return -1;
    if (max) { /* cuDNN's backward reads x, y and dy */
        w->t[in].saved = 1;
        w->t[out].saved = 1;
    }
    if (grad)
        membound(w, 1, max ? "maxpool.bwd" : "avgpool.bwd", COMP_MEMBOUND, (max ? 2.0 * (x + y) : x + y) * e,
                 x);
    *s = o;
    return out;
}

static int layer_global_pool(Walk *w, int in, Shape *s)
{
    Shape o = {s->c, 1, 1};
    const double x = elems(w, s), y = elems(w, &o), e = w->e;
    const int grad = w->t[in].grad;
    membound(w, 0, "global_avg_pool", COMP_MEMBOUND, (x + y) * e, x);
    if (grad)
        membound(w, 1, "global_avg_pool.bwd", COMP_MEMBOUND, (x + y) * e, x);
    *s = o;
    return tensor_new(w, y * e, grad);
}

static int layer_fc(Walk *w, const CnnLayer *L, int in, Shape *s)
{
    const int64_t f = (int64_t)s->c * s->h * s->w, out = L->out, ol = ceil_div(out, w->tp);
    const int64_t nb = w->nb;
    const double e = w->e, ei = w->e_in, y = (double)nb * (double)ol;
    const int grad_in = w->t[in].grad;
    add_params(w, (double)f * (double)out + (L->bias ? (double)out : 0.0));
    w->u.macs += (double)f * (double)out;

    Op op = graph_gemm_op("fc", COMP_GEMM, 1, nb, ol, f, ei, e);
    add_op(w, 0, &op);
    w->t[in].saved = 1;
    int cur = tensor_new(w, y * e, 1);
    if (cur < 0)
        return -1;
    if (L->relu) {
        membound(w, 0, "relu", COMP_MEMBOUND, 2.0 * y * e, y);
        if ((cur = tensor_new(w, y * e, 1)) < 0)
            return -1;
        w->t[cur].saved = 1;
    }
    if (w->tp > 1) {
        comm(w, 0, "fc.allgather", COLL_ALLGATHER, (double)nb * (double)out * e);
        if ((cur = tensor_new(w, (double)nb * (double)out * e, 1)) < 0)
            return -1;
    }
    DgradComm rs = {-1, 0, 0};
    if (grad_in) {
        if (w->tp > 1)
            rs = dgrad_comm(w, "fc.dgrad.reducescatter", (double)nb * (double)f * e);
        op = graph_gemm_op("fc.dgrad", COMP_GEMM, 1, nb, f, ol, ei, e);
        add_op(w, 1, &op);
    }
    rs.est0 = w->est;
    op = graph_gemm_op("fc.wgrad", COMP_GEMM, 1, f, ol, nb, ei, e);
    add_op(w, 1, &op);
    dgrad_window(w, &rs);
    if (L->relu)
        membound(w, 1, "relu.bwd", COMP_MEMBOUND, 3.0 * y * e, y);
    *s = (Shape){(int)out, 1, 1};
    return cur;
}

static int layer_dropout(Walk *w, int in, const Shape *s)
{
    const double x = elems(w, s), e = w->e;
    const int grad = w->t[in].grad;
    membound(w, 0, "dropout", COMP_MEMBOUND, x * (2.0 * e + 1.0), 2.0 * x);
    int mask = tensor_new(w, x, 0);
    if (mask < 0)
        return -1;
    w->t[mask].saved = 1;
    if (grad)
        membound(w, 1, "dropout.bwd", COMP_MEMBOUND, x * (2.0 * e + 1.0), 2.0 * x);
    return tensor_new(w, x * e, grad);
}

static int layer_softmax(Walk *w, const CnnLayer *L, int in, const Shape *s)
{
    const int64_t width = (int64_t)s->c * s->h * s->w, classes = w->classes;
    if (classes > 0 && width != classes)
        FAIL(w->d, w->net->path, L->line, L->col,
             "softmax: its input has %lld features but the model has classes: %lld", (long long)width,
             (long long)classes);
    const double x = elems(w, s), e = w->e;
    membound(w, 0, "softmax_xent", COMP_EMBED_HEAD, x * (e + 4.0), FLOPS_SOFTMAX * x);
    int probs = tensor_new(w, x * 4.0, 0);
    if (probs < 0)
        return -1;
    w->t[probs].saved = 1;
    if (w->t[in].grad)
        membound(w, 1, "softmax_xent.bwd", COMP_EMBED_HEAD, x * (4.0 + e), 2.0 * x);
    return tensor_new(w, x * 4.0, 0);
}

/* Gradients of a tensor read by k consumers are summed in backward. */
static void fork_grads(Walk *w, int in, int consumers)
{
    if (w->t[in].grad && consumers > 1)
        membound(w, 1, "fork.grad_add", COMP_MEMBOUND, 3.0 * (consumers - 1) * w->t[in].bytes,
                 (double)(consumers - 1) * w->t[in].bytes / w->e);
}

/* ---- branch placement ------------------------------------------------------ */

/* One branch of a concat walked whole on one device, without keeping
 * anything: what it would add. */
typedef struct {
    double flops, fwd_flops; /* GEMM FLOPs, forward + backward and forward */
    double params, macs, est;
    int layers, grad;
    Shape s; /* its output */
} Branch;

/* What a dry run changes in a walk, kept to be put back (dry_begin,
 * dry_end): the unit, the estimate, the layer and tensor counts, the
 * input's saved flag, whether the activation is held whole, the split and
 * where ops go. */
typedef struct {
    Unit u;
    double est;
    int layers, nt, saved, whole;
    int64_t tp;
    OpBuf *fwd, *bwd;
} DryState;

/* Start a dry run from `in` on tp devices: no ops kept, the estimate from 0. */
static DryState dry_begin(Walk *w, int in, int64_t tp)
{
    const DryState d = {w->u, w->est, w->layers, w->nt, w->t[in].saved, w->whole, w->tp, w->fwd, w->bwd};
    w->est = 0;
    w->tp = tp;
    w->fwd = w->bwd = NULL;
    return d;
}

static void dry_end(Walk *w, int in, const DryState *d)
{
    w->u = d->u;
    w->est = d->est;
    w->layers = d->layers;
    w->nt = d->nt;
    w->t[in].saved = d->saved;
    w->whole = d->whole;
    w->tp = d->tp;
    w->fwd = d->fwd;
    w->bwd = d->bwd;
}

/* Walk q on tp devices from `in` as a dry run: no ops, no tensors, the unit
 * and the layer count as they were; *br gets what the walk added (flops at
 * tp: one device's share). */
static int dry_walk(Walk *w, const CnnSeq *q, int in, int64_t tp, const Shape *s, int depth, Branch *br)
{
    const DryState d = dry_begin(w, in, tp);
    w->u = (Unit){0};
    Shape o = *s;
    int out = walk_seq(w, q, in, &o, depth);
    if (out >= 0)
        *br = (Branch){w->u.fwd_flops + w->u.bwd_flops,
                       w->u.fwd_flops,
                       w->u.params,
                       w->u.macs,
                       w->est,
                       w->layers - d.layers,
                       w->t[out].grad,
                       o};
    dry_end(w, in, &d);
    return out < 0 ? -1 : 0;
}

/* Branch placement of a concat over the tp group. */
typedef struct {
    Branch br[CNN_MAX_BRANCHES];
    int dev[CNN_MAX_BRANCHES]; /* the device of each branch */
    int busy;                  /* the device the graph lists (place_branches) */
    int max_c;                 /* output channels of the device with the most */
} BranchPlan;

/* Longest processing time first (Graham 1969): branches by FLOPs, most
 * first, each to the device with the fewest FLOPs so far (ties: the lower
 * index).  The device listed is the slowest: the largest estimated time
 * when the walk is rated (a device with fewer FLOPs may have more
 * memory-bound work, e.g. a pooling branch), else the most FLOPs (ties:
 * the lower index). */
static void place_branches(int nb, int64_t tp, int rated, BranchPlan *bp)
{
    const int nd = tp < nb ? (int)tp : nb; /* more devices than branches: the rest idle */
    double load[CNN_MAX_BRANCHES] = {0}, est[CNN_MAX_BRANCHES] = {0};
    int chan[CNN_MAX_BRANCHES] = {0}, order[CNN_MAX_BRANCHES];
    for (int b = 0; b < nb; b++) { /* insertion sort, stable */
        int j = b;
        while (j > 0 && bp->br[order[j - 1]].flops < bp->br[b].flops) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = b;
    }
    for (int i = 0; i < nb; i++) {
        int d = 0;
        for (int c = 1; c < nd; c++)
            if (load[c] < load[d])
                d = c;
        bp->dev[order[i]] = d;
        load[d] += bp->br[order[i]].flops;
        est[d] += bp->br[order[i]].est;
        chan[d] += bp->br[order[i]].s.c;
    }
    const double *slow = rated ? est : load;
    bp->busy = 0;
    bp->max_c = 0;
    for (int d = 0; d < nd; d++) {
        if (slow[d] > slow[bp->busy])
            bp->busy = d;
        if (chan[d] > bp->max_c)
            bp->max_c = chan[d];
    }
}

/* The all-gather of a placed concat's output: NCCL gathers equal shards,
 * so each device's is padded to the largest (max_c channels). */
static double placed_gather_bytes(const Walk *w, const BranchPlan *bp, const Shape *o)
{
    return (double)w->tp * (double)bp->max_c * (double)w->nb * (double)o->h * (double)o->w * w->e;
}

/* How a concat splits over the group: 1 branch placement (bp filled), 0
 * kernel split, -1 error.  cnn_split: kernel, branch, or auto: branch
 * placement when its estimated time on the listed device (its branches
 * whole, one all-gather of the output, one reduce-scatter of the input
 * gradient) is below the kernel split's (every branch on ceil(Cout/tp)
 * channels, its collectives); without rates auto keeps the kernel split. */
static int concat_mode(Walk *w, const CnnLayer *L, int in, const Shape *s, int depth, BranchPlan *bp)
{
    const int nb = L->nseq;
    if (w->tp <= 1 || nb < 2 || w->split == CNN_SPLIT_KERNEL || (w->split == CNN_SPLIT_AUTO && !w->rated))
        return 0;
    for (int b = 0; b < nb; b++)
        if (dry_walk(w, &w->net->seq[L->seq + b], in, 1, s, depth + 1, &bp->br[b]))
            return -1;
    place_branches(nb, w->tp, w->rated, bp);
    if (w->split == CNN_SPLIT_BRANCH)
        return 1;
    double placed = 0, kernel = 0;
    Shape o = bp->br[0].s;
    o.c = 0;
    for (int b = 0; b < nb; b++) {
        o.c += bp->br[b].s.c;
        if (bp->dev[b] == bp->busy)
            placed += bp->br[b].est;
        Branch k;
        if (dry_walk(w, &w->net->seq[L->seq + b], in, w->tp, s, depth + 1, &k))
            return -1;
        kernel += k.est;
    }
    Op ag = graph_comm_op("concat.allgather", COLL_ALLGATHER, placed_gather_bytes(w, bp, &o));
    placed += est_op(w, &ag);
    if (w->t[in].grad) {
        Op ar = graph_comm_op("concat.dgrad.reducescatter", COLL_REDUCESCATTER, elems(w, s) * w->e);
        placed += est_op(w, &ar);
    }
    return placed < kernel;
}

static int layer_concat(Walk *w, const CnnLayer *L, int in, Shape *s, int depth)
{
    BranchPlan bp;
    const int placed = concat_mode(w, L, in, s, depth, &bp);
    if (placed < 0)
        return -1;
    int own = L->nseq; /* branches on the listed device */
    if (placed) {
        own = 0;
        for (int b = 0; b < L->nseq; b++)
            own += bp.dev[b] == bp.busy;
        /* backward, last first: the device's partial input gradient,
         * summed over the group once */
        if (w->t[in].grad)
            comm(w, 1, "concat.dgrad.reducescatter", COLL_REDUCESCATTER, elems(w, s) * w->e);
    }
    fork_grads(w, in, own);
    Shape o = {0, 0, 0};
    int grad = 0, own_c = 0;
    const int64_t tp = w->tp;
    if (placed)
        w->tp = 1; /* the device runs its branches whole */
    for (int b = 0; b < L->nseq; b++) {
        Shape sb = *s;
        if (placed && bp.dev[b] != bp.busy) { /* on another device: counted, not listed */
            const Branch *br = &bp.br[b];
            w->u.params += br->params;
            w->u.macs += br->macs;
            w->u.group_flops += br->flops;
            w->u.group_fwd_flops += br->fwd_flops;
            w->layers += br->layers;
            sb = br->s;
            grad |= br->grad;
        } else {
            int out = walk_seq(w, &w->net->seq[L->seq + b], in, &sb, depth + 1);
            if (out < 0)
                return -1;
            grad |= w->t[out].grad;
            own_c += sb.c;
        }
        if (b > 0 && (sb.h != o.h || sb.w != o.w))
            FAIL(w->d, w->net->path, L->line, L->col,
                 "concat: branch %d gives %dx%d but branch 1 gives %dx%d (H x W must agree)", b + 1, sb.h,
                 sb.w, o.h, o.w);
        o.c += sb.c;
        o.h = sb.h;
        o.w = sb.w;
    }
    w->tp = tp;
    if (w->layers > CNN_MAX_LAYERS)
        FAIL(w->d, w->net->path, L->line, L->col, "the net has more than %d layers once repeats are expanded",
             CNN_MAX_LAYERS);
    const double y = elems(w, &o), e = w->e;
    /* placed: the device writes its branches' slices, the all-gather the rest */
    const double copied = placed ? y * (double)own_c / (double)o.c : y;
    membound(w, 0, "concat", COMP_MEMBOUND, 2.0 * copied * e, 0.0);
    if (placed)
        comm(w, 0, "concat.allgather", COLL_ALLGATHER, placed_gather_bytes(w, &bp, &o));
    if (grad)
        membound(w, 1, "concat.bwd", COMP_MEMBOUND, 2.0 * copied * e, 0.0);
    *s = o;
    return tensor_new(w, y * e, grad);
}

static int layer_block(Walk *w, const CnnLayer *L, int in, Shape *s, int depth)
{
    const CnnSeq *main_path = &w->net->seq[L->seq], *shortcut = &w->net->seq[L->seq + 1];
    fork_grads(w, in, 2);
    Shape sm = *s, ss = *s;
    int om = walk_seq(w, main_path, in, &sm, depth + 1);
    if (om < 0)
        return -1;
    int os = shortcut->n ? walk_seq(w, shortcut, in, &ss, depth + 1) : in;
    if (os < 0)
        return -1;
    if (sm.c != ss.c || sm.h != ss.h || sm.w != ss.w)
        FAIL(w->d, w->net->path, L->line, L->col,
             "block: the main path gives %dx%dx%d but the %s gives %dx%dx%d (C x H x W must agree)", sm.c,
             sm.h, sm.w, shortcut->n ? "shortcut" : "identity shortcut", ss.c, ss.h, ss.w);
    const double y = elems(w, &sm), e = w->e;
    const int grad = w->t[om].grad || w->t[os].grad;
    membound(w, 0, "add", COMP_MEMBOUND, 3.0 * y * e, y);
    int cur = tensor_new(w, y * e, grad);
    if (cur < 0)
        return -1;
    if (L->relu) {
        membound(w, 0, "relu", COMP_MEMBOUND, 2.0 * y * e, y);
        if ((cur = tensor_new(w, y * e, grad)) < 0)
            return -1;
        w->t[cur].saved = 1;
        if (grad)
            membound(w, 1, "relu.bwd", COMP_MEMBOUND, 3.0 * y * e, y);
    }
    *s = sm;
    return cur;
}

/* A tensor that one device holds (a layer run whole), wanted by the whole
 * group: that device sends it on (a pipelined broadcast: S over each
 * link), and backward brings the group's gradient of it back (S). */
static void unwhole(Walk *w, int in)
{
    if (!w->whole)
        return;
    w->whole = 0;
    comm(w, 0, "whole.broadcast", COLL_P2P, w->t[in].bytes);
    if (w->t[in].grad)
        comm(w, 1, "whole.dgrad.reduce", COLL_P2P, w->t[in].bytes);
}

/* The estimated time of conv layer L on tp devices, walked dry. */
static double conv_est(Walk *w, const CnnLayer *L, int in, const Shape *s, int64_t tp)
{
    const DryState d = dry_begin(w, in, tp);
    Shape o = *s;
    if (tp > 1)
        unwhole(w, in);
    const int out = layer_conv(w, L, in, &o);
    const double est = out < 0 ? -1.0 : w->est;
    dry_end(w, in, &d);
    return est;
}

/* Whether a top-level convolution runs whole on one device (1) rather than
 * split over the group (0), as a placer puts Inception-V3's stem on one GPU
 * (Pal et al. 2019; issue 26): where its all-gather and reduce-scatter of
 * large, early activations cost more than the compute the split saves.
 * Only with rates (the estimate), never under cnn_split kernel; -1 error. */
static int conv_whole(Walk *w, const CnnLayer *L, int in, const Shape *s)
{
    if (w->group <= 1 || w->tp != w->group || !w->rated || w->split == CNN_SPLIT_KERNEL)
        return 0;
    const double split = conv_est(w, L, in, s, w->group), whole = conv_est(w, L, in, s, 1);
    if (split < 0 || whole < 0)
        return -1;
    return whole < split;
}

static int walk_one(Walk *w, const CnnLayer *L, int in, Shape *s, int depth)
{
    if (L->kind != CNN_CONCAT && L->kind != CNN_BLOCK && count_layer(w, L))
        return -1;
    /* a layer run whole leaves its output on one device: a top-level pool
     * follows it there, anything else takes it back to the group */
    if (L->kind != CNN_CONV && !(L->kind == CNN_POOL && depth == 1))
        unwhole(w, in);
    switch (L->kind) {
    case CNN_CONV: {
        const int whole = depth == 1 ? conv_whole(w, L, in, s) : 0; /* a top-level layer (walk_net) */
        if (whole < 0)
            return -1;
        if (!whole) {
            unwhole(w, in);
            return layer_conv(w, L, in, s);
        }
        const int64_t tp = w->tp;
        w->tp = 1; /* the device runs it whole, as a placed branch */
        const int out = layer_conv(w, L, in, s);
        w->tp = tp;
        w->whole = 1;
        return out;
    }
    case CNN_POOL:
        return layer_pool(w, L, in, s);
    case CNN_FC:
        return layer_fc(w, L, in, s);
    case CNN_CONCAT:
        return layer_concat(w, L, in, s, depth);
    case CNN_BLOCK:
        return layer_block(w, L, in, s, depth);
    case CNN_GLOBAL_AVG_POOL:
        return layer_global_pool(w, in, s);
    case CNN_DROPOUT:
        return layer_dropout(w, in, s);
    case CNN_SOFTMAX:
        return layer_softmax(w, L, in, s);
    case CNN_KIND_COUNT:
    default:
        break;
    }
    FAIL(w->d, w->net->path, L->line, L->col, "unknown layer kind (%d)", (int)L->kind);
}

static int walk_seq(Walk *w, const CnnSeq *q, int in, Shape *s, int depth)
{
    if (depth > CNN_MAX_DEPTH)
        FAIL(w->d, w->net->path, 0, 0, "layers nested more than %d deep", CNN_MAX_DEPTH);
    for (int i = 0; i < q->n; i++) {
        const CnnLayer *L = &w->net->layer[q->first + i];
        for (int r = 0; r < L->repeat; r++)
            if ((in = walk_one(w, L, in, s, depth)) < 0)
                return -1;
    }
    return in;
}

/* The whole net, unit by unit; ops of units [emit_first, emit_last) go to
 * fwd / bwd.  Returns 0 with w->units filled and *out the output shape. */
static int walk_net(Walk *w, int image_size, int channels, int emit_first, int emit_last, OpBuf *fwd,
                    OpBuf *bwd, Shape *out)
{
    const CnnNet *net = w->net;
    if (!net || net->n_seqs < 1 || net->seq[0].n < 1)
        FAIL(w->d, NULL, 0, 0, "the cnn model has no layer list (key 'net')");
    if (image_size < 1 || channels < 1)
        FAIL(w->d, net->path, 0, 0, "a cnn model needs image_size and channels >= 1, got %d and %d",
             image_size, channels);
    Shape s = {channels, image_size, image_size};
    int cur = tensor_new(w, elems(w, &s) * w->e, 0);
    if (cur < 0)
        return -1;
    const CnnSeq *q = &net->seq[0];
    for (int i = 0; i < q->n; i++) {
        const CnnLayer *L = &net->layer[q->first + i];
        for (int r = 0; r < L->repeat; r++) {
            int idx = w->n_units;
            w->fwd = idx >= emit_first && idx < emit_last ? fwd : NULL;
            w->bwd = w->fwd ? bwd : NULL;
            w->u = (Unit){0};
            w->u.in_bytes = w->t[cur].bytes;
            int alias = tensor_new(w, w->t[cur].bytes, w->t[cur].grad);
            if (alias < 0)
                return -1;
            int o = walk_one(w, L, alias, &s, 1);
            if (o < 0 || w->oom)
                return -1;
            w->u.needs_input = w->t[alias].saved;
            for (int j = alias + 1; j < w->nt; j++)
                if (w->t[j].saved)
                    w->u.saved_internal += w->t[j].bytes;
            w->u.out_saved = o != alias && w->t[o].saved;
            w->u.out_bytes = w->t[o].bytes;
            Unit *units = grow(w->units, &w->cap_units, w->n_units + 1, sizeof *units);
            if (!units)
                return oom(w);
            w->units = units;
            w->units[w->n_units++] = w->u;
            cur = o;
        }
    }
    w->fwd = w->bwd = NULL;
    *out = s;
    return 0;
}

static void walk_free(Walk *w)
{
    free(w->t);
    free(w->units);
    w->t = NULL;
    w->units = NULL;
}

int cnn_check(const CnnNet *net, int image_size, int channels, int classes, CnnStats *st, Diag *d)
{
    Walk w = {0};
    w.net = net;
    w.d = d;
    w.nb = 1;
    w.tp = w.group = 1;
    w.e = w.e_in = 2.0;
    w.classes = classes;
    Shape o;
    int rc = walk_net(&w, image_size, channels, 0, 0, NULL, NULL, &o);
    if (rc == 0 && st) {
        *st = (CnnStats){0};
        for (int i = 0; i < w.n_units; i++) {
            st->params += w.units[i].params;
            st->macs += w.units[i].macs;
        }
        st->layers = w.layers;
        st->units = w.n_units;
        st->out_c = o.c;
        st->out_h = o.h;
        st->out_w = o.w;
    }
    walk_free(&w);
    return rc;
}

/* ---- pipeline partition ---------------------------------------------------- */

/* Stages a greedy left-to-right fill needs with no stage above cap in
 * either resource (a[], b[]: each unit's share of the whole). */
static int greedy_stages(const double *a, const double *b, int n, double cap)
{
    int k = 1;
    double sa = 0, sb = 0;
    for (int i = 0; i < n; i++) {
        if (a[i] > cap || b[i] > cap)
            return n + 1;
        if (sa + a[i] > cap || sb + b[i] > cap) {
            k++;
            sa = a[i];
            sb = b[i];
        } else {
            sa += a[i];
            sb += b[i];
        }
    }
    return k;
}

/* Split the units 0..n-1 into pp >= 1 contiguous non-empty stages (n >=
 * pp) minimising the largest share of either resource a stage holds:
 * bisection on the bound (the greedy fill is optimal for a given bound,
 * feasibility being monotone in it), then a fill that also leaves one unit
 * for every stage still to come.  Writes first[0..pp]. */
static void partition(const double *a, const double *b, int n, int pp, int *first)
{
    double lo = 0, hi = 1;
    for (int i = 0; i < n; i++) {
        if (a[i] > lo)
            lo = a[i];
        if (b[i] > lo)
            lo = b[i];
    }
    if (greedy_stages(a, b, n, lo) > pp) {
        for (int it = 0; it < 200 && hi - lo > 1e-12; it++) {
            double mid = 0.5 * (lo + hi);
            if (greedy_stages(a, b, n, mid) <= pp)
                hi = mid;
            else
                lo = mid;
        }
    } else {
        hi = lo;
    }
    int st = 0;
    double sa = 0, sb = 0;
    first[0] = 0;
    for (int i = 0; i < n; i++) {
        int later = pp - st - 1; /* stages after the current one */
        if (i > first[st] && later > 0 && (sa + a[i] > hi || sb + b[i] > hi || n - i <= later)) {
            first[++st] = i;
            sa = sb = 0;
        }
        sa += a[i];
        sb += b[i];
    }
    first[pp] = n;
}

/* ---- the graph ------------------------------------------------------------- */

typedef struct {
    Walk w;
    int *first;    /* pp + 1 */
    double *cost;  /* per unit: forward + backward GEMM FLOPs */
    double *bytes; /* per unit: HBM bytes */
    int pp;
} Plan;

static void plan_free(Plan *p)
{
    walk_free(&p->w);
    free(p->first);
    free(p->cost);
    free(p->bytes);
}

static int plan_make(const Model *m, const GraphParams *p, Plan *pl, Diag *d)
{
    *pl = (Plan){0};
    /* tp and microbatch >= 1: checked by graph_build */
    if (p->pp < 1)
        FAIL(d, NULL, 0, 0, "pp must be >= 1, got %d", p->pp);
    Walk *w = &pl->w;
    w->net = m->cnn;
    w->d = d;
    w->nb = p->microbatch;
    w->tp = w->group = p->tp;
    w->split = m->cnn_split;
    w->rates = p->rates;
    w->rated = p->rates.flop_s > 0 && p->rates.hbm_bytes_s > 0 && p->rates.coll_bytes_s > 0;
    w->e = graph_act_elem_bytes(p->precision);
    w->e_in = graph_gemm_elem_bytes(p->precision);
    w->nchw = p->nchw_transposes;
    w->winograd = p->winograd;
    w->dgrad_overlap = p->dgrad_overlap;
    w->classes = m->classes;
    Shape o;
    if (walk_net(w, m->image_size, m->channels, 0, 0, NULL, NULL, &o))
        return -1;
    const int n = w->n_units;
    if (p->pp > n)
        FAIL(d, NULL, 0, 0,
             "pp (%d) exceeds the %d top-level layers of the net, which a pipeline cuts between", p->pp, n);
    pl->pp = p->pp;
    pl->first = malloc(sizeof *pl->first * (size_t)(p->pp + 1));
    pl->cost = malloc(sizeof *pl->cost * (size_t)n);
    pl->bytes = malloc(sizeof *pl->bytes * (size_t)n);
    if (!pl->first || !pl->cost || !pl->bytes)
        return oom(w);
    double f_all = 0, b_all = 0;
    for (int i = 0; i < n; i++) {
        pl->cost[i] = w->units[i].fwd_flops + w->units[i].bwd_flops;
        pl->bytes[i] = w->units[i].bytes;
        f_all += pl->cost[i];
        b_all += pl->bytes[i];
    }
    /* shares of the whole net's FLOPs and bytes */
    double *fa = calloc((size_t)n, sizeof *fa), *fb = calloc((size_t)n, sizeof *fb);
    if (!fa || !fb) {
        free(fa);
        free(fb);
        return oom(w);
    }
    for (int i = 0; i < n; i++) {
        fa[i] = f_all > 0 ? pl->cost[i] / f_all : 0;
        fb[i] = b_all > 0 ? pl->bytes[i] / b_all : 0;
    }
    partition(fa, fb, n, p->pp, pl->first);
    free(fa);
    free(fb);
    return 0;
}

static double stage_sum(const Plan *pl, const double *per_unit, int s)
{
    double sum = 0;
    for (int i = pl->first[s]; i < pl->first[s + 1]; i++)
        sum += per_unit[i];
    return sum;
}

/* The stage the graph lists, the one likely slowest.  With t_s = a F_s +
 * b B_s for a device's unknown a, b >= 0 (F GEMM FLOPs, B HBM bytes), a
 * stage's share of the step is w f_s + (1 - w) b_s, where f_s, b_s are
 * its shares of the net's FLOPs and bytes and w the GEMM fraction of the
 * time; w = 1/2 (CNNs on GPUs spend about half their time in memory-bound
 * work) makes it f_s + b_s (ties: more FLOPs).  Listing any real stage
 * never overstates the pipeline's time. */
static int heaviest_stage(const Plan *pl)
{
    double f_all = 0, b_all = 0;
    for (int s = 0; s < pl->pp; s++) {
        f_all += stage_sum(pl, pl->cost, s);
        b_all += stage_sum(pl, pl->bytes, s);
    }
    int heavy = 0;
    double best = -1, best_f = -1;
    for (int s = 0; s < pl->pp; s++) {
        double f = stage_sum(pl, pl->cost, s), b = stage_sum(pl, pl->bytes, s);
        double score = (f_all > 0 ? f / f_all : 0) + (b_all > 0 ? b / b_all : 0);
        if (score > best || (score == best && f > best_f)) {
            best = score;
            best_f = f;
            heavy = s;
        }
    }
    return heavy;
}

int cnn_stages(const Model *m, const GraphParams *p, double *flops, double *bytes, int *first_unit, int max,
               Diag *d)
{
    Plan pl;
    if (plan_make(m, p, &pl, d)) {
        plan_free(&pl);
        return -1;
    }
    for (int s = 0; s < pl.pp && s < max; s++) {
        if (flops)
            flops[s] = stage_sum(&pl, pl.cost, s);
        if (bytes)
            bytes[s] = stage_sum(&pl, pl.bytes, s);
        if (first_unit)
            first_unit[s] = pl.first[s];
    }
    int n = pl.pp;
    plan_free(&pl);
    return n;
}

/* Ops that fold into one repeated op: GEMMs of one name and shape,
 * memory-bound ops and collectives of one name. */
static int same_op(const Op *a, const Op *b)
{
    if (a->kind != b->kind || a->comp != b->comp || strcmp(a->name, b->name) != 0)
        return 0;
    if (a->kind == OP_GEMM)
        return a->batch == b->batch && a->m == b->m && a->n == b->n && a->k == b->k;
    if (a->kind == OP_COMM)
        return a->coll == b->coll;
    return 1;
}

/* Fold the raw ops (one per kernel or collective, in walk order, or reversed
 * for backward) into the list: each folded op repeats once per raw op, with
 * their mean FLOPs and bytes (their sums while folding, divided at the
 * end), so that repeat x one run is the raw ops' total, and a collective's
 * hidden share their mean weighed by bytes. */
static void fold_into(OpSink *k, const OpBuf *raw, int reverse)
{
    const int first = k->list->n;
    for (int r = 0; r < raw->n; r++) {
        const Op *op = &raw->op[reverse ? raw->n - 1 - r : r];
        Op *hit = NULL;
        for (int j = first; j < k->list->n && !hit; j++)
            if (same_op(&k->list->op[j], op))
                hit = &k->list->op[j];
        if (!hit) {
            Op one = *op;
            one.repeat = 1;
            one.hide *= one.comm_bytes; /* weighed by bytes while folding */
            graph_emit(k, &one);
            continue;
        }
        hit->repeat++;
        hit->flops += op->flops;
        hit->bytes += op->bytes;
        hit->hide += op->hide * op->comm_bytes;
        hit->comm_bytes += op->comm_bytes;
    }
    for (int j = first; j < k->list->n; j++) {
        Op *op = &k->list->op[j];
        op->hide = op->comm_bytes > 0 ? op->hide / op->comm_bytes : 0.0;
        op->flops /= op->repeat;
        op->bytes /= op->repeat;
        op->comm_bytes /= op->repeat;
    }
}

/* The graph of a plan: the heaviest stage's ops, folded, and the counts. */
static int build(const Model *m, const GraphParams *p, const Plan *pl, OpBuf *fwd, OpBuf *bwd, Graph *g,
                 Diag *d)
{
    const Unit *u = pl->w.units;
    const int n = pl->w.n_units, pp = pl->pp;
    const int heavy = heaviest_stage(pl);

    /* Walk again, keeping the heaviest stage's ops. */
    Walk w2 = {0};
    w2.net = m->cnn;
    w2.d = d;
    w2.nb = pl->w.nb;
    w2.tp = pl->w.tp;
    w2.group = pl->w.group;
    w2.split = pl->w.split;
    w2.rates = pl->w.rates;
    w2.rated = pl->w.rated;
    w2.e = pl->w.e;
    w2.e_in = pl->w.e_in;
    w2.nchw = pl->w.nchw;
    w2.winograd = pl->w.winograd;
    w2.dgrad_overlap = pl->w.dgrad_overlap;
    w2.classes = pl->w.classes;
    Shape o;
    int bad = walk_net(&w2, m->image_size, m->channels, pl->first[heavy], pl->first[heavy + 1], fwd, bwd, &o);
    walk_free(&w2);
    if (bad)
        return -1;

    OpSink k[3];
    graph_sink_init(&k[0], &g->layer_fwd, "layer_fwd", d);
    graph_sink_init(&k[1], &g->layer_bwd, "layer_bwd", d);
    graph_sink_init(&k[2], &g->layer_recompute, "layer_recompute", d);
    fold_into(&k[0], fwd, 0);
    fold_into(&k[1], bwd, 1);
    if (p->recompute == RECOMPUTE_FULL)
        for (int i = 0; i < g->layer_fwd.n; i++) {
            Op op = g->layer_fwd.op[i];
            if (op.kind != OP_COMM)
                op.comp = COMP_RECOMPUTE;
            graph_emit(&k[2], &op);
        }
    if (k[0].failed || k[1].failed || k[2].failed)
        return -1;

    /* Counts over the whole net and per stage. */
    double params = 0, macs = 0, run = 0, run_fwd = 0, boundary = 0, working = 0;
    double stage_params_max = 0, stage_act_max = 0;
    for (int s = 0; s < pp; s++) {
        double sp = 0, act = 0, ckpt = 0;
        for (int i = pl->first[s]; i < pl->first[s + 1]; i++) {
            sp += u[i].dev_params;
            act += u[i].saved_internal;
            if (u[i].needs_input && !(i > pl->first[s] && u[i - 1].out_saved))
                act += u[i].in_bytes;
            ckpt += u[i].in_bytes;
            double ws = u[i].saved_internal + (u[i].needs_input ? u[i].in_bytes : 0.0);
            if (ws > working)
                working = ws;
        }
        if (p->recompute == RECOMPUTE_FULL)
            act = ckpt;
        if (sp > stage_params_max)
            stage_params_max = sp;
        if (act > stage_act_max)
            stage_act_max = act;
        if (s > 0 && u[pl->first[s] - 1].out_bytes > boundary)
            boundary = u[pl->first[s] - 1].out_bytes;
    }
    for (int i = 0; i < n; i++) {
        params += u[i].params;
        macs += u[i].macs;
        run += u[i].group_flops;
        run_fwd += u[i].group_fwd_flops;
    }
    if (p->recompute == RECOMPUTE_FULL)
        run += run_fwd;

    g->layers = pp;
    g->wavefront = 1;
    g->params_total = params;
    g->params_per_layer = stage_params_max;
    g->model_flops_per_sample = 3.0 * 2.0 * macs;
    g->hw_flops_per_sample = run / (double)p->microbatch;
    g->recompute_flops_per_sample = p->recompute == RECOMPUTE_FULL ? run_fwd / (double)p->microbatch : 0.0;
    g->act_bytes_per_layer = stage_act_max;
    g->act_bytes_recompute_working = p->recompute == RECOMPUTE_FULL ? working : 0.0;
    g->bytes_per_elem = (int)pl->w.e;
    g->stage_boundary_bytes = pp > 1 ? boundary : 0.0;
    return 0;
}

int cnn_build(const Model *m, const GraphParams *p, Graph *g, Diag *d)
{
    Plan pl;
    OpBuf fwd = {0}, bwd = {0};
    int rc = plan_make(m, p, &pl, d);
    if (rc == 0)
        rc = build(m, p, &pl, &fwd, &bwd, g, d);
    free(fwd.op);
    free(bwd.op);
    plan_free(&pl);
    return rc;
}
