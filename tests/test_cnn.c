/* tests/test_cnn.c — CNN graphs (graph/cnn.c) and their layer lists
 * (io/cnnload.c): the shipped ResNet-50 and Inception-V3 templates against
 * published parameter and multiply-accumulate counts (torchvision's, which
 * an independent count of the same layer structure reproduces exactly), a
 * convolution as an implicit GEMM, the invariants of the kernel split
 * (shard FLOPs x tp = whole) and of the pipeline partition (stages sum to
 * the whole, the heaviest is at least the mean, the cut is optimal), the
 * loader's exact messages, and a whole scenario through evaluate(). */
#include "testdb.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/evaluate.h"
#include "core/param.h"
#include "graph/cnn.h"
#include "graph/graph.h"
#include "graph/graph_internal.h"
#include "io/cnnload.h"
#include "io/scenario.h"
#include "io/template.h"
#include "io/ytree.h"

static const Model *model(const char *name)
{
    Diag d;
    diag_clear(&d);
    const Template *t = tdb_get(&db, &param_model_table, name, ".", &d);
    if (!t) {
        char msg[1024];
        diag_format(&d, msg, sizeof msg);
        print_error("%s\n", msg);
    }
    assert_non_null(t);
    if (!t)
        return NULL;
    const Model *m = t->obj;
    assert_int_equal(m->kind, MODEL_CNN);
    assert_non_null(m->cnn);
    return m;
}

static GraphParams params(int tp, int pp, int mb)
{
    GraphParams p = {0};
    p.tp = tp;
    p.pp = pp;
    p.microbatch = mb;
    p.precision = PREC_FP16;
    p.recompute = RECOMPUTE_NONE;
    return p;
}

static void build(const Model *m, const GraphParams *p, Graph *g)
{
    Diag d;
    diag_clear(&d);
    int rc = graph_build(m, p, g, &d);
    if (rc)
        print_error("graph_build: %s\n", d.msg);
    assert_int_equal(rc, 0);
}

static double gemm_flops(const Graph *g)
{
    return graph_gemm_flops(&g->layer_fwd) + graph_gemm_flops(&g->layer_bwd);
}

/* Runs of the ops called `name` in a list (kernels launched, collectives
 * started). */
static int runs(const OpList *l, const char *name)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->op[i].name, name))
            n += op_runs(&l->op[i]);
    return n;
}

/* ---- counts of the shipped nets ----------------------------------------- */

/* ResNet-50 v1 (He et al. 2016): the downsampling stride on the first 1x1
 * of three blocks instead of their 3x3 removes 1.5 H^2 w^2 MACs from each
 * (H the block's input side, w its width: 56/128, 28/256, 14/512), 4.5 x
 * 56^2 x 128^2 = 231,211,008 in all; the parameters are the same. */
static void test_resnet50_v1_counts(void **state)
{
    (void)state;
    const Model *m = model("resnet50-v1");
    CnnStats st;
    Diag d;
    assert_int_equal(cnn_check(m->cnn, m->image_size, m->channels, m->classes, &st, &d), 0);
    assert_rel(st.params, 25557032.0, 0);
    assert_rel(st.macs, 4089184256.0 - 231211008.0, 0);
    assert_rel(st.macs, 3.8e9, 0.03); /* He et al. Table 1: 3.8 x 10^9 */
}

/* torchvision.models.resnet50 (v1.5): ResNet50_Weights.IMAGENET1K_V1 lists
 * num_params 25,557,032 and GFLOPS 4.09 (multiply-accumulates, 224 x 224).
 * The exact MAC count 4,089,184,256 is an independent sum over the same
 * layers (conv Ho·Wo·Cout·Cin·kh·kw plus fc 2048 x 1000). */
static void test_resnet50_counts(void **state)
{
    (void)state;
    const Model *m = model("resnet50");
    assert_int_equal(m->image_size, 224);
    assert_int_equal(m->channels, 3);
    assert_int_equal(m->classes, 1000);
    assert_rel(m->dataset_samples, 1281167.0, 0);
    CnnStats st;
    Diag d;
    assert_int_equal(cnn_check(m->cnn, m->image_size, m->channels, m->classes, &st, &d), 0);
    assert_rel(st.params, 25557032.0, 0);
    assert_rel(st.macs, 4089184256.0, 0);
    assert_rel(st.macs, 4.09e9, 0.03); /* the published figure, +-3 % */
    assert_rel(st.params, 25.6e6, 0.03);
    assert_int_equal(st.units, 21); /* conv, pool, 16 blocks, pool, fc, softmax */
    assert_int_equal(st.out_c, 1000);
    print_message("ResNet-50: %.0f parameters, %.4g MACs per image, %d layers\n", st.params, st.macs,
                  st.layers);

    Graph g;
    GraphParams p = params(1, 1, 32);
    build(m, &p, &g);
    assert_rel(g.params_total, 25557032.0, 0);
    assert_rel(g.params_per_layer, g.params_total, 0); /* one stage */
    assert_int_equal(g.layers, 1);
    assert_rel(g.model_flops_per_sample, 6.0 * 4089184256.0, 1e-15);
    /* all GEMMs of one microbatch: forward 2 MACs, backward 4, less the data
     * gradient of the first convolution (its input is the image) */
    double conv1 = 112.0 * 112 * 64 * 147;
    assert_rel(gemm_flops(&g) / 32.0, 6.0 * 4089184256.0 - 2.0 * conv1, 1e-12);
    assert_rel(g.hw_flops_per_sample, gemm_flops(&g) / 32.0, 1e-12);
    assert_true(g.layer_fwd.n <= GRAPH_MAX_OPS && g.layer_bwd.n <= GRAPH_MAX_OPS);
    /* Every kernel keeps its launch: 53 convolutions (49 + 4 projection
     * shortcuts), each with batch norm, forward; 52 data gradients. */
    assert_int_equal(runs(&g.layer_fwd, "conv"), 53);
    assert_int_equal(runs(&g.layer_fwd, "bn"), 53);
    assert_int_equal(runs(&g.layer_bwd, "conv.dgrad"), 52);
    assert_int_equal(runs(&g.layer_bwd, "conv.wgrad"), 53);
    /* the repeated blocks' convolutions are one op each, run per block */
    int repeated = 0;
    for (int i = 0; i < g.layer_fwd.n; i++)
        if (g.layer_fwd.op[i].kind == OP_GEMM) {
            assert_int_equal(g.layer_fwd.op[i].batch, 1);
            repeated += g.layer_fwd.op[i].repeat > 1;
        }
    assert_true(repeated > 0);
}

/* Inception-V3 without its auxiliary head: torchvision's 27,161,264 (with
 * the head, Inception_V3_Weights.IMAGENET1K_V1) less the head's 3,326,696
 * = 23,834,568; timm lists 23.8 M and 5.7 GMACs; torchvision GFLOPS 5.71 at
 * 299 x 299. The exact 5,713,216,096 is an independent sum as above. */
static void test_inception_counts(void **state)
{
    (void)state;
    const Model *m = model("inception-v3");
    assert_int_equal(m->image_size, 299);
    CnnStats st;
    Diag d;
    assert_int_equal(cnn_check(m->cnn, m->image_size, m->channels, m->classes, &st, &d), 0);
    assert_rel(st.params, 27161264.0 - 3326696.0, 0);
    assert_rel(st.params, 23.9e6, 0.03);
    assert_rel(st.macs, 5713216096.0, 0);
    assert_rel(st.macs, 5.71e9, 0.03);
    assert_int_equal(st.layers, 111); /* 94 conv, 13 pool, dropout, fc, softmax, global pool */
    assert_int_equal(st.units, 22);
    print_message("Inception-V3: %.0f parameters, %.4g MACs per image, %d layers\n", st.params, st.macs,
                  st.layers);
    Graph g;
    GraphParams p = params(1, 1, 64);
    build(m, &p, &g);
    assert_rel(g.params_total, 23834568.0, 0);
    assert_rel(g.model_flops_per_sample, 6.0 * 5713216096.0, 1e-15);
    /* 94 convolutions, each with batch norm and ReLU; 15 concats (11
     * modules, and two nested 1x3 / 3x1 pairs in each of the last two) */
    assert_int_equal(runs(&g.layer_fwd, "conv"), 94);
    assert_int_equal(runs(&g.layer_fwd, "relu"), 94);
    assert_int_equal(runs(&g.layer_bwd, "bn.bwd"), 94);
    assert_int_equal(runs(&g.layer_fwd, "concat"), 15);
    assert_true(g.layer_fwd.n <= GRAPH_MAX_OPS && g.layer_bwd.n <= GRAPH_MAX_OPS);
}

/* ---- a convolution as an implicit GEMM --------------------------------- */

static CnnNet *parse(const char *yaml, Diag *d)
{
    YNode *root = ytree_parse("net.yaml", yaml, strlen(yaml), d);
    if (!root)
        return NULL;
    CnnNet *net = cnnload_parse(root, "net.yaml", d);
    ytree_free(root);
    return net;
}

/* A net that must parse. */
static CnnNet *parse_ok(const char *yaml)
{
    Diag d;
    diag_clear(&d);
    CnnNet *net = parse(yaml, &d);
    if (!net)
        print_error("%s\n", d.msg);
    assert_non_null(net);
    return net;
}

static const Op *find(const OpList *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->op[i].name, name))
            return &l->op[i];
    return NULL;
}

/* ResNet-50's conv2_x 3x3 layer shape, 64 -> 64 channels at 56 x 56, after
 * a 1x1 conv that gives it an input needing a gradient; microbatch 8:
 * M = 8·56·56 = 25,088, K = 64·3·3 = 576, N = 64. */
static void test_conv_implicit_gemm(void **state)
{
    (void)state;
    CnnNet *net = parse_ok("- conv: {out: 64, kernel: 1, bn: yes, relu: yes}\n"
                           "- conv: {out: 64, kernel: 3, pad: 1, bn: yes, relu: yes}\n");
    Model m = {.name = "two convs", .kind = MODEL_CNN, .image_size = 56, .channels = 64, .cnn = net};
    GraphParams p = params(1, 1, 8);
    Graph g;
    build(&m, &p, &g);
    const int64_t M = (int64_t)8 * 56 * 56, K = 576, N = 64;
    int seen = 0;
    for (int i = 0; i < g.layer_fwd.n; i++) {
        const Op *op = &g.layer_fwd.op[i];
        if (op->kind == OP_GEMM && op->k == K) {
            assert_int_equal(op->m, M);
            assert_int_equal(op->n, N);
            assert_int_equal(op->batch, 1);
            assert_rel(op->flops, 2.0 * M * N * K, 0);
            seen++;
        }
    }
    assert_int_equal(seen, 1);
    /* data gradient (M, K, Cout): m = M, n = K, k = Cout */
    const Op *dg = find(&g.layer_bwd, "conv.dgrad");
    assert_non_null(dg);
    assert_int_equal(dg->m, M);
    assert_int_equal(dg->n, K);
    assert_int_equal(dg->k, N);
    /* weight gradient (K, Cout, M), split over M: batch x k covers M */
    int wg = 0;
    for (int i = 0; i < g.layer_bwd.n; i++) {
        const Op *op = &g.layer_bwd.op[i];
        if (op->kind == OP_GEMM && !strcmp(op->name, "conv.wgrad") && op->m == K) {
            assert_int_equal(op->n, N);
            assert_true(op->batch * op->k >= M && (op->batch - 1) * op->k < M);
            assert_rel(op->flops, 2.0 * K * N * M, 1e-15);
            wg++;
        }
    }
    assert_int_equal(wg, 1);
    /* the first conv reads the input image: no data gradient for it */
    assert_int_equal(runs(&g.layer_bwd, "conv.dgrad"), 1);
    cnnload_free(net);
}

/* ---- kernel split ------------------------------------------------------- */

static void test_tp_split(void **state)
{
    (void)state;
    const char *names[] = {"resnet50", "inception-v3"};
    for (int i = 0; i < 2; i++) {
        const Model *m = model(names[i]);
        Graph g1, gt;
        GraphParams p = params(1, 1, 32);
        build(m, &p, &g1);
        for (int tp = 2; tp <= 8; tp *= 2) {
            p = params(tp, 1, 32);
            build(m, &p, &gt);
            /* every channel count of both nets divides by 8 (1000 classes too) */
            assert_rel(gemm_flops(&gt) * tp, gemm_flops(&g1), 1e-12);
            assert_rel(gt.hw_flops_per_sample, g1.hw_flops_per_sample, 1e-12);
            assert_rel(gt.params_total, g1.params_total, 0);
            /* one all-gather of every split layer's full output forward, one
             * reduce-scatter of every input gradient backward (the layer
             * before, split by channel too, wants its channels' share) */
            const Op *ag = find(&gt.layer_fwd, "conv.allgather");
            const Op *ar = find(&gt.layer_bwd, "conv.dgrad.reducescatter");
            assert_non_null(ag);
            assert_non_null(ar);
            assert_int_equal(ag->kind, OP_COMM);
            assert_int_equal(ag->coll, COLL_ALLGATHER);
            assert_int_equal(ar->coll, COLL_REDUCESCATTER);
            assert_true(find(&g1.layer_fwd, "conv.allgather") == NULL);
            /* one collective per split layer: every one keeps its latency */
            assert_int_equal(runs(&gt.layer_fwd, "conv.allgather"), runs(&gt.layer_fwd, "conv"));
            assert_int_equal(runs(&gt.layer_bwd, "conv.dgrad.reducescatter"),
                             runs(&gt.layer_bwd, "conv.dgrad"));
            /* kernel split shards the activations that are per channel */
            assert_true(gt.act_bytes_per_layer < g1.act_bytes_per_layer);
        }
    }
}

/* ---- branch placement ---------------------------------------------------- */

/* Ops of one kind in a list, and their runs. */
static int kind_runs(const OpList *l, OpKind kind)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        if (l->op[i].kind == kind)
            n += op_runs(&l->op[i]);
    return n;
}

/* A stem conv (kernel split) and a module of four 1x1 branches of 60, 40,
 * 30 and 30 channels, microbatch 4, 16 x 16 x 8 input.  Longest processing
 * time first on 2 devices: 60 -> d0, 40 -> d1, 30 -> d1 (70), 30 -> d0
 * (90): the listed device runs the 60- and a 30-channel branch whole. */
static void test_branch_placement(void **state)
{
    (void)state;
    CnnNet *net = parse_ok("- conv: {out: 16, kernel: 3, pad: 1, bn: yes, relu: yes}\n"
                           "- concat:\n"
                           "    branches:\n"
                           "      - [conv: {out: 60, kernel: 1, bn: yes, relu: yes}]\n"
                           "      - [conv: {out: 40, kernel: 1, bn: yes, relu: yes}]\n"
                           "      - [conv: {out: 30, kernel: 1, bn: yes, relu: yes}]\n"
                           "      - [conv: {out: 30, kernel: 1, bn: yes, relu: yes}]\n");
    Model m = {.name = "module", .kind = MODEL_CNN, .image_size = 16, .channels = 8, .cnn = net};
    m.cnn_split = CNN_SPLIT_BRANCH;
    Graph g1, g;
    GraphParams p = params(1, 1, 4);
    build(&m, &p, &g1);
    p = params(2, 1, 4);
    build(&m, &p, &g);
    const double pix = 4.0 * 16 * 16, e = 2.0;
    /* the stem splits its 16 channels; the branches run whole */
    int convs = 0, chans = 0;
    for (int i = 0; i < g.layer_fwd.n; i++) {
        const Op *op = &g.layer_fwd.op[i];
        if (op->kind != OP_GEMM || op->k != 16)
            continue;
        convs += op_runs(op);
        chans += (int)op->n * op_runs(op);
        assert_true(op->n == 60 || op->n == 30);
    }
    assert_int_equal(convs, 2);
    assert_int_equal(chans, 90);
    assert_non_null(find(&g.layer_fwd, "conv.allgather")); /* the stem's */
    assert_int_equal(runs(&g.layer_fwd, "conv.allgather"), 1);
    /* the module: one all-gather of its output (shards padded to the
     * larger, 90 channels) forward, one all-reduce of its input gradient
     * backward, nothing else */
    assert_int_equal(runs(&g.layer_fwd, "concat.allgather"), 1);
    assert_rel(find(&g.layer_fwd, "concat.allgather")->comm_bytes, 2.0 * 90 * pix * e, 0);
    assert_int_equal(kind_runs(&g.layer_fwd, OP_COMM), 2);
    assert_int_equal(runs(&g.layer_bwd, "concat.dgrad.reducescatter"), 1);
    assert_rel(find(&g.layer_bwd, "concat.dgrad.reducescatter")->comm_bytes, 16.0 * pix * e, 0);
    assert_int_equal(kind_runs(&g.layer_bwd, OP_COMM), 1); /* the stem reads the image: no dgrad */
    /* FLOPs: the module's 90 of 160 channels on the busiest device, half the
     * stem's; the counts of the whole net unchanged */
    const double stem = 2.0 * pix * 16 * 72, branch = 2.0 * pix * 16; /* per output channel */
    const double fwd = graph_gemm_flops(&g.layer_fwd);
    assert_rel(fwd, stem / 2 + 90 * branch, 1e-12);
    assert_rel(graph_gemm_flops(&g1.layer_fwd), stem + 160 * branch, 1e-12);
    assert_true(2 * gemm_flops(&g) >= gemm_flops(&g1));
    assert_rel(g.params_total, g1.params_total, 0);
    assert_rel(g.model_flops_per_sample, g1.model_flops_per_sample, 0);
    assert_rel(g.hw_flops_per_sample, g1.hw_flops_per_sample, 1e-12); /* the group runs each branch once */
    /* the busiest device holds its branches' weights whole (tp x them) */
    const double bw = 16.0 + 2.0; /* per branch channel: 1x1 weights + bn */
    assert_rel(g.params_per_layer, (16.0 * 72 + 2.0 * 16) + 2.0 * 90 * bw, 1e-12);

    /* 4 and 8 devices: a branch each (the rest idle), the 60 listed */
    for (int tp = 4; tp <= 8; tp *= 2) {
        p = params(tp, 1, 4);
        build(&m, &p, &g);
        assert_rel(graph_gemm_flops(&g.layer_fwd), stem / tp + 60 * branch, 1e-12);
        assert_rel(find(&g.layer_fwd, "concat.allgather")->comm_bytes, tp * 60.0 * pix * e, 0);
        assert_true(tp * gemm_flops(&g) >= gemm_flops(&g1));
    }
    /* kernel: every conv split, a collective each */
    m.cnn_split = CNN_SPLIT_KERNEL;
    p = params(2, 1, 4);
    build(&m, &p, &g);
    assert_int_equal(runs(&g.layer_fwd, "conv.allgather"), 5);
    assert_null(find(&g.layer_fwd, "concat.allgather"));
    assert_rel(2 * gemm_flops(&g), gemm_flops(&g1), 1e-12);
    /* auto without rates (graph_build called directly): the kernel split */
    m.cnn_split = CNN_SPLIT_AUTO;
    build(&m, &p, &g);
    assert_int_equal(runs(&g.layer_fwd, "conv.allgather"), 5);
    cnnload_free(net);
}

/* Inception-V3 with its modules' branches placed: whole branches, one
 * all-gather and one input all-reduce per module (11 modules; the nested
 * 1x3 / 3x1 concats of the last two run whole on their device), the stem's
 * 5 convolutions and the fc kernel-split. */
static void test_inception_branch_placement(void **state)
{
    (void)state;
    Model m = *model("inception-v3");
    m.cnn_split = CNN_SPLIT_BRANCH;
    Graph g1, g;
    GraphParams p = params(1, 1, 32);
    build(&m, &p, &g1);
    for (int tp = 2; tp <= 8; tp *= 2) {
        p = params(tp, 1, 32);
        build(&m, &p, &g);
        assert_int_equal(runs(&g.layer_fwd, "concat.allgather"), 11);
        assert_int_equal(runs(&g.layer_bwd, "concat.dgrad.reducescatter"), 11);
        assert_int_equal(runs(&g.layer_fwd, "conv.allgather"), 5);
        assert_int_equal(runs(&g.layer_fwd, "fc.allgather"), 1);
        assert_int_equal(kind_runs(&g.layer_fwd, OP_COMM), 11 + 5 + 1);
        assert_true(runs(&g.layer_fwd, "conv") < 94);
        /* imbalance is real: tp x the busiest device's FLOPs >= the whole */
        assert_true(tp * gemm_flops(&g) >= gemm_flops(&g1));
        assert_rel(g.params_total, 23834568.0, 0);
        assert_rel(g.model_flops_per_sample, g1.model_flops_per_sample, 0);
        assert_rel(g.hw_flops_per_sample, g1.hw_flops_per_sample, 1e-12);
        print_message("Inception-V3, branches on %d devices: busiest %.3g of %.3g GEMM FLOPs per device "
                      "(%.2fx the even share)\n",
                      tp, gemm_flops(&g), gemm_flops(&g1) / tp, tp * gemm_flops(&g) / gemm_flops(&g1));
    }
}

/* A placer's stem (issue 26): with rates, a top-level convolution runs
 * whole on one device where its all-gather and reduce-scatter of large
 * early activations cost more than the compute the split saves; the pool
 * after it follows it there, and the stem's output is sent on once (and
 * its gradient brought back) before the first module.  A slow device
 * against a fast link keeps the split; cnn_split kernel never runs whole. */
static void test_whole_stem(void **state)
{
    (void)state;
    Model m = *model("inception-v3");
    m.cnn_split = CNN_SPLIT_BRANCH;
    Graph g1, g;
    GraphParams p = params(1, 1, 32);
    build(&m, &p, &g1);
    p = params(2, 1, 32);
    p.rates = (GraphRates){.flop_s = 80e12,
                           .hbm_bytes_s = 800e9,
                           .launch_s = 5e-6,
                           .coll_latency_s = 10e-6,
                           .coll_bytes_s = 40e9};
    build(&m, &p, &g);
    assert_int_equal(runs(&g.layer_fwd, "conv.allgather"), 0);
    assert_int_equal(runs(&g.layer_bwd, "conv.dgrad.reducescatter"), 0);
    assert_int_equal(runs(&g.layer_fwd, "whole.broadcast"), 1);
    assert_int_equal(runs(&g.layer_bwd, "whole.dgrad.reduce"), 1);
    const double e = 2.0; /* fp16 */
    assert_rel(find(&g.layer_fwd, "whole.broadcast")->comm_bytes, 32.0 * 35 * 35 * 192 * e, 1e-12);
    assert_int_equal(find(&g.layer_fwd, "whole.broadcast")->coll, COLL_P2P);
    assert_rel(g.params_total, 23834568.0, 0);
    assert_rel(g.hw_flops_per_sample, g1.hw_flops_per_sample, 1e-12);
    /* a device 1,000 times slower against the same link: split */
    p.rates.flop_s = 80e9;
    p.rates.hbm_bytes_s = 800e6;
    build(&m, &p, &g);
    assert_int_equal(runs(&g.layer_fwd, "conv.allgather"), 5);
    assert_int_equal(runs(&g.layer_fwd, "whole.broadcast"), 0);
    /* the kernel split splits every layer, whatever the rates */
    m.cnn_split = CNN_SPLIT_KERNEL;
    p.rates.flop_s = 80e12;
    p.rates.hbm_bytes_s = 800e9;
    build(&m, &p, &g);
    assert_int_equal(runs(&g.layer_fwd, "whole.broadcast"), 0);
    assert_true(runs(&g.layer_fwd, "conv.allgather") > 5);
}

/* ---- input-gradient exchange beside the weight gradient ------------------ */

/* A stack that copies a split layer's input gradient on a stream of its own
 * (GraphParams.dgrad_overlap, TensorFlow 1.x): the builder marks the share
 * of each input-gradient reduce-scatter that the layer's weight gradient
 * covers by its rough rates, at most all of it; nothing else is marked,
 * and nothing at all without the flag.  A conv stem (it reads the image:
 * no input gradient) and an fc of 10 outputs on 2 devices, 4 images of
 * 16 x 16 x 16: the fc's weight gradient is 2 x 4,096 x 5 x 4 FLOPs plus a
 * launch, its input gradient 4 x 4,096 fp16 values reduce-scattered. */
static void test_dgrad_overlap(void **state)
{
    (void)state;
    CnnNet *net = parse_ok("- conv: {out: 16, kernel: 3, pad: 1, bn: yes, relu: yes}\n"
                           "- fc: {out: 10}\n");
    Model m = {.name = "two", .kind = MODEL_CNN, .image_size = 16, .channels = 8, .cnn = net};
    m.cnn_split = CNN_SPLIT_KERNEL;
    GraphParams p = params(2, 1, 4);
    p.rates = (GraphRates){.flop_s = 80e12,
                           .hbm_bytes_s = 800e9,
                           .launch_s = 5e-6,
                           .coll_latency_s = 10e-6,
                           .coll_bytes_s = 40e9};
    Graph g;
    const OpList *lists[] = {&g.layer_fwd, &g.layer_bwd};
    build(&m, &p, &g);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < lists[i]->n; j++)
            assert_true(lists[i]->op[j].hide == 0);
    p.dgrad_overlap = 1;
    build(&m, &p, &g);
    const double wgrad = 2.0 * 4096 * 5 * 4 / 80e12 + 5e-6, rs = 10e-6 + 4.0 * 4096 * 2 / 40e9;
    assert_rel(find(&g.layer_bwd, "fc.dgrad.reducescatter")->hide, wgrad / rs, 1e-12);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < lists[i]->n; j++)
            if (strcmp(lists[i]->op[j].name, "fc.dgrad.reducescatter") != 0)
                assert_true(lists[i]->op[j].hide == 0);
    /* a link a thousand times faster: the weight gradient covers it all */
    p.rates.coll_latency_s = 10e-9;
    p.rates.coll_bytes_s = 40e12;
    build(&m, &p, &g);
    assert_rel(find(&g.layer_bwd, "fc.dgrad.reducescatter")->hide, 1.0, 0);
    /* no rates (graph_build on its own): nothing to estimate by */
    p.rates = (GraphRates){0};
    build(&m, &p, &g);
    assert_true(find(&g.layer_bwd, "fc.dgrad.reducescatter")->hide == 0);
    cnnload_free(net);
}

/* ---- pipeline ----------------------------------------------------------- */

static double max2(double a, double b)
{
    return a > b ? a : b;
}

static void test_pipeline_partition(void **state)
{
    (void)state;
    const char *names[] = {"resnet50", "inception-v3"};
    for (int i = 0; i < 2; i++) {
        const Model *m = model(names[i]);
        Diag d;
        double whole[1], whole_b[1];
        GraphParams p = params(1, 1, 16);
        assert_int_equal(cnn_stages(m, &p, whole, whole_b, NULL, 1, &d), 1);
        Graph g1;
        build(m, &p, &g1);
        assert_rel(gemm_flops(&g1), whole[0], 1e-12);
        for (int pp = 2; pp <= 8; pp++) {
            double f[8], b[8];
            int first[8];
            p = params(1, pp, 16);
            assert_int_equal(cnn_stages(m, &p, f, b, first, 8, &d), pp);
            double sum = 0, sum_b = 0, top = 0;
            for (int s = 0; s < pp; s++) {
                sum += f[s];
                sum_b += b[s];
                top = max2(top, f[s]);
                if (s > 0)
                    assert_true(first[s] > first[s - 1]);
            }
            assert_int_equal(first[0], 0);
            assert_rel(sum, whole[0], 1e-12);
            assert_rel(sum_b, whole_b[0], 1e-12);
            assert_true(top >= whole[0] / pp);
            /* the graph lists one of the stages: the one with the largest
             * share of FLOPs + share of bytes */
            Graph g;
            build(m, &p, &g);
            assert_int_equal(g.layers, pp);
            int listed = -1;
            double best = -1;
            for (int s = 0; s < pp; s++) {
                double score = f[s] / whole[0] + b[s] / whole_b[0];
                if (score > best) {
                    best = score;
                    listed = s;
                }
            }
            assert_rel(gemm_flops(&g), f[listed], 1e-12);
            assert_true(g.stage_boundary_bytes > 0);
            assert_true(g.params_per_layer < g.params_total && g.params_per_layer >= g.params_total / pp);
            assert_rel(g.params_total, g1.params_total, 0);
            assert_rel(g.model_flops_per_sample, g1.model_flops_per_sample, 0);
        }
        /* two stages: no cut has a smaller largest share of FLOPs or bytes */
        double f2[2], b2[2];
        p = params(1, 2, 16);
        cnn_stages(m, &p, f2, b2, NULL, 2, &d);
        double chosen = max2(max2(f2[0], f2[1]) / whole[0], max2(b2[0], b2[1]) / whole_b[0]);
        CnnStats st;
        cnn_check(m->cnn, m->image_size, m->channels, m->classes, &st, &d);
        p = params(1, st.units, 16);
        double *uf = malloc(sizeof *uf * (size_t)st.units), *ub = malloc(sizeof *ub * (size_t)st.units);
        assert_int_equal(cnn_stages(m, &p, uf, ub, NULL, st.units, &d), st.units);
        double lf = 0, lb = 0;
        for (int c = 1; c < st.units; c++) {
            lf += uf[c - 1];
            lb += ub[c - 1];
            double bound = max2(max2(lf, whole[0] - lf) / whole[0], max2(lb, whole_b[0] - lb) / whole_b[0]);
            assert_true(chosen <= bound * (1 + 1e-9));
        }
        free(uf);
        free(ub);
        /* more stages than top-level layers */
        p = params(1, st.units + 1, 16);
        Graph g;
        diag_clear(&d);
        assert_int_equal(graph_build(m, &p, &g, &d), -1);
        char want[160];
        snprintf(want, sizeof want,
                 "pp (%d) exceeds the %d top-level layers of the net, which a pipeline cuts between",
                 st.units + 1, st.units);
        assert_string_equal(d.msg, want);
    }
    /* ResNet-50 in two stages: cut before the last conv3_x block (the
     * first stage holds 38 % of the FLOPs and 64 % of the bytes), a
     * 512 x 28 x 28 activation of 16 fp16 images */
    const Model *r = model("resnet50");
    Graph g;
    GraphParams p = params(1, 2, 16);
    build(r, &p, &g);
    assert_rel(g.stage_boundary_bytes, 16.0 * 512 * 28 * 28 * 2, 0);
}

static void test_recompute(void **state)
{
    (void)state;
    const Model *m = model("inception-v3");
    Graph g0, gf, gs;
    GraphParams p = params(1, 1, 32);
    build(m, &p, &g0);
    p.recompute = RECOMPUTE_SELECTIVE; /* no attention core in a CNN: as none */
    build(m, &p, &gs);
    assert_rel(gs.act_bytes_per_layer, g0.act_bytes_per_layer, 0);
    p.recompute = RECOMPUTE_FULL;
    build(m, &p, &gf);
    assert_true(gf.act_bytes_per_layer < g0.act_bytes_per_layer / 2);
    assert_true(gf.act_bytes_recompute_working > 0);
    assert_rel(graph_gemm_flops(&gf.layer_recompute), graph_gemm_flops(&g0.layer_fwd), 1e-12);
    assert_rel(gf.hw_flops_per_sample - g0.hw_flops_per_sample, graph_gemm_flops(&g0.layer_fwd) / 32, 1e-12);
    assert_rel(gf.model_flops_per_sample, g0.model_flops_per_sample, 0);
}

/* ---- loader messages ----------------------------------------------------- */

/* Load a models template written as text through cnnload_template with the
 * model's scalar keys given; return the formatted diagnostic. */
static int load_net(const char *yaml, int image, int classes, char *msg, size_t n)
{
    Diag d;
    diag_clear(&d);
    YNode *root = ytree_parse("net.yaml", yaml, strlen(yaml), &d);
    assert_non_null(root);
    Model m = {.name = "x", .kind = MODEL_CNN, .image_size = image, .channels = 3, .classes = classes};
    CnnNet *net = NULL;
    int rc = cnnload_template(root, "net.yaml", &m, &net, &d);
    diag_format(&d, msg, n);
    if (rc == 0) {
        assert_non_null(net);
        assert_ptr_equal(m.cnn, net);
    }
    cnnload_free(net);
    ytree_free(root);
    return rc;
}

static void expect_error(const char *yaml, int image, const char *want)
{
    char msg[1024];
    assert_int_equal(load_net(yaml, image, 0, msg, sizeof msg), -1);
    assert_string_equal(msg, want);
}

static void test_loader_errors(void **state)
{
    (void)state;
    char msg[1024];
    assert_int_equal(load_net("net:\n"
                              "  - conv: {out: 8, kernel: 3, stride: 2, pad: same, relu: yes}\n"
                              "  - pool: {op: max, kernel: [2, 2]}\n"
                              "  - global_avg_pool\n"
                              "  - fc: {out: 10}\n"
                              "  - softmax:\n",
                              32, 10, msg, sizeof msg),
                     0);
    expect_error("net:\n  - cnov: {out: 8, kernel: 3}\n", 32,
                 "net.yaml:2:5: unknown layer type 'cnov' (did you mean 'conv'?)");
    expect_error("net:\n  - layer: {out: 8}\n", 32,
                 "net.yaml:2:5: unknown layer type 'layer' (known: conv, pool, fc, concat, block, "
                 "global_avg_pool, dropout, softmax)");
    expect_error(
        "net:\n"
        "  - conv: {out: 8, kernel: 3, stride: 2}\n"
        "  - conv: {out: 8, kernel: 3, stride: 2}\n"
        "  - conv: {out: 8, kernel: 3}\n",
        8,
        "net.yaml:4:5: conv: a 3x3 window with stride 1x1 and padding 0x0 shrinks the 1x1 input below 1x1");
    expect_error(
        "net:\n  - pool: {op: max, kernel: 5}\n", 4,
        "net.yaml:2:5: pool: a 5x5 window with stride 5x5 and padding 0x0 shrinks the 4x4 input below 1x1");
    expect_error("net:\n  - conv: {out: 8, kernel: 3, repeat: 0}\n", 32,
                 "net.yaml:2:39: conv: key 'repeat': expected an integer in [1, 1000], got '0'");
    expect_error("net:\n  - conv: {out: 8, kernel: 3, repeat: many}\n", 32,
                 "net.yaml:2:39: conv: key 'repeat': expected an integer in [1, 1000], got 'many'");
    expect_error("net:\n  - conv: {out: 8}\n", 32, "net.yaml:2:5: conv: missing key 'kernel'");
    expect_error("net:\n  - conv: {out: 8, kernel: 3, strides: 2}\n", 32,
                 "net.yaml:2:31: conv: unknown key 'strides' (did you mean 'stride'?)");
    expect_error("net:\n  - conv: {out: 8, kernel: 3, pad: half}\n", 32,
                 "net.yaml:2:36: conv: key 'pad': expected same, valid, an integer in [0, 4096] or a list "
                 "[height, width] of them, got 'half'");
    expect_error("net:\n  - pool: {op: min, kernel: 2}\n", 32,
                 "net.yaml:2:16: pool: key 'op': expected max or avg, got 'min'");
    expect_error("net:\n  - conv: {out: 8, kernel: 3, bn: maybe}\n", 32,
                 "net.yaml:2:35: conv: key 'bn': expected yes or no, got 'maybe'");
    expect_error("net:\n  - {conv: {out: 8, kernel: 3}, relu: {}}\n", 32,
                 "net.yaml:2:5: a layer is a mapping with one key, its type (e.g. 'conv: {out: 64, kernel: "
                 "3}'), got 2 keys");
    expect_error("net: []\n", 32, "net.yaml:1:6: key 'net': an empty list of layers");
    expect_error("net:\n  - concat: {branches: [[conv: {out: 8, kernel: 1}], []]}\n", 32,
                 "net.yaml:2:54: concat: branch 2: an empty list of layers");
    expect_error("net:\n"
                 "  - concat:\n"
                 "      branches:\n"
                 "        - [conv: {out: 8, kernel: 1}]\n"
                 "        - [conv: {out: 8, kernel: 3, stride: 2}]\n",
                 32,
                 "net.yaml:2:5: concat: branch 2 gives 15x15 but branch 1 gives 32x32 (H x W must agree)");
    expect_error("net:\n  - block: {main: [conv: {out: 16, kernel: 1}]}\n", 32,
                 "net.yaml:2:5: block: the main path gives 16x32x32 but the identity shortcut gives 3x32x32 "
                 "(C x H x W must agree)");
    char want[256];
    assert_int_equal(
        load_net("net:\n  - global_avg_pool\n  - fc: {out: 10}\n  - softmax\n", 32, 1000, msg, sizeof msg),
        -1);
    assert_string_equal(msg,
                        "net.yaml:4:5: softmax: its input has 10 features but the model has classes: 1000");
    /* more than CNN_MAX_LAYERS once repeats are expanded: an error, found
     * without walking the million layers */
    expect_error("net:\n"
                 "  - block:\n"
                 "      repeat: 1000\n"
                 "      main:\n"
                 "        - conv: {out: 3, kernel: 1, repeat: 1000}\n",
                 8, "net.yaml:5:11: the net has more than 10000 layers once repeats are expanded");
    /* nesting deeper than CNN_MAX_DEPTH */
    char deep[4096] = "net:\n";
    size_t len = strlen(deep);
    for (int i = 0; i <= CNN_MAX_DEPTH; i++)
        len += (size_t)snprintf(deep + len, sizeof deep - len, "%*s- block:\n%*s    main:\n", 2 + 6 * i, "",
                                2 + 6 * i, "");
    snprintf(deep + len, sizeof deep - len, "%*s- conv: {out: 3, kernel: 1}\n", 2 + 6 * (CNN_MAX_DEPTH + 1),
             "");
    snprintf(want, sizeof want,
             "net.yaml:%d:%d: block: layers nested more than %d deep (concat and block inside each other)",
             2 + 2 * CNN_MAX_DEPTH, 5 + 6 * CNN_MAX_DEPTH, CNN_MAX_DEPTH);
    assert_int_equal(load_net(deep, 8, 0, msg, sizeof msg), -1);
    assert_string_equal(msg, want);
    /* the template-level keys */
    expect_error("name: x\n", 32, "net.yaml:1:1: missing required key 'net' (the layer list of a cnn model)");
    expect_error("net:\n  - softmax\n", 0,
                 "net.yaml:1:1: missing required key 'image_size' (cnn input height and width, pixels)");
}

/* The template db: `net:` beside the table's keys, a base's net inherited
 * and re-checked with the derived image size, `net:` refused elsewhere. */
static void test_templates(void **state)
{
    (void)state;
    char dir[] = "/tmp/df-cnn-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    struct {
        const char *name, *text;
    } files[] = {
        {"small.yaml", "base: resnet50\nname: ResNet-50 at 160\nimage_size: 160\n"},
        {"tiny.yaml", "base: inception-v3\nname: Inception-V3 at 74\nimage_size: 74\n"},
        {"min.yaml", "base: inception-v3\nname: Inception-V3 at 75\nimage_size: 75\n"},
        {"lm.yaml", "base: gpt3-175b\nnet:\n  - softmax\n"},
    };
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(files[i].text, f);
        fclose(f);
    }
    const Model *base = model("resnet50");
    Diag d;
    diag_clear(&d);
    const Template *t = tdb_get(&db, &param_model_table, "small.yaml", dir, &d);
    assert_non_null(t);
    const Model *m = t->obj;
    assert_ptr_equal(m->cnn, base->cnn); /* inherited, owned by the base */
    assert_null(t->extra);
    CnnStats a, b;
    cnn_check(base->cnn, 224, 3, 1000, &a, &d);
    cnn_check(m->cnn, m->image_size, 3, 1000, &b, &d);
    assert_rel(b.params, a.params, 0);
    assert_true(b.macs < a.macs * 0.55 && b.macs > a.macs * 0.45); /* ~ (160/224)^2 = 0.51 */

    /* torchvision's smallest Inception-V3 input is 75 x 75 (min_size) */
    diag_clear(&d);
    assert_non_null(tdb_get(&db, &param_model_table, "min.yaml", dir, &d));
    diag_clear(&d);
    assert_null(tdb_get(&db, &param_model_table, "tiny.yaml", dir, &d));
    assert_true(strstr(d.file, "templates/models/inception-v3.yaml") != NULL); /* at the base's layer */
    assert_string_equal(d.msg,
                        "conv: a 3x3 window with stride 2x2 and padding 0x0 shrinks the 2x2 input below 1x1");

    diag_clear(&d);
    assert_null(tdb_get(&db, &param_model_table, "lm.yaml", dir, &d));
    assert_int_equal(d.line, 2);
    assert_string_equal(d.msg, "key 'net': only a cnn model has a layer list (kind is 'transformer')");
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        unlink(path);
    }
    rmdir(dir);
}

/* Sum of a field over the ops called `name` in a list, every run counted. */
static double op_sum(const OpList *l, const char *name, int flops)
{
    double v = 0;
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->op[i].name, name))
            v += op_runs(&l->op[i]) * (flops ? l->op[i].flops : l->op[i].bytes);
    return v;
}

/* The NCHW layout, by hand on two convolutions of 2 images of 8 x 8: a
 * 1x1 from 4 to 16 channels (its input needs no gradient) and a 3x3
 * stride-1 from 16 to 16.
 *  - On the vector units the 3x3 runs as Winograd F(2x2,3x3): 16 GEMMs of
 *    the 2 x 4 x 4 = 32 tiles, (32 x 16).(16 x 16), 262,144 FLOPs against
 *    the direct form's 2 x 9 x 2 x 64 x 16 x 16 = 589,824; its data
 *    gradient the same, and its weight gradient too, 16 GEMMs of
 *    (16 x 32).(32 x 16) (Winograd's 4 x pad32(16) = 128 multiply-adds a
 *    tile position against the direct form's pad32(9 x 16) = 160); the 1x1
 *    stays a GEMM, and HFU still counts the direct FLOPs.  A 3x3 on 3
 *    input channels keeps its direct weight gradient (4 x 32 > 32).
 *  - On tensor cores every convolution's operands are transposed, a read
 *    and a write each at 2 bytes: forward 1x1 (512 + 2,048 elements) and
 *    3x3 (2,048 + 2,048) = 26,624 bytes; backward the 1x1's weight
 *    gradient (10,240) and the 3x3's data and weight gradients (2 x
 *    16,384) = 43,008. */
static void test_conv_layout(void **state)
{
    (void)state;
    char dir[] = "/tmp/df-cnn-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/two.yaml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("name: two convolutions\nkind: cnn\nimage_size: 8\nchannels: 4\nclasses: 8\n"
          "dataset_samples: 1000\nnet:\n  - conv: {out: 16, kernel: 1}\n"
          "  - conv: {out: 16, kernel: 3, pad: 1}\n  - global_avg_pool\n  - fc: {out: 8}\n  - softmax\n",
          f);
    fclose(f);
    Diag d;
    diag_clear(&d);
    const Template *t = tdb_get(&db, &param_model_table, "two.yaml", dir, &d);
    if (!t)
        print_error("%s\n", d.msg);
    assert_non_null(t);
    const Model *m = t->obj;

    GraphParams p = params(1, 1, 2);
    Graph plain, wino, nchw;
    build(m, &p, &plain);
    p.winograd = 1;
    build(m, &p, &wino);
    assert_rel(op_sum(&wino.layer_fwd, "conv.winograd", 1), 262144.0, 0);
    assert_rel(op_sum(&wino.layer_bwd, "conv.dgrad.winograd", 1), 262144.0, 0);
    assert_rel(op_sum(&wino.layer_bwd, "conv.wgrad.winograd", 1), 262144.0, 0);
    assert_rel(op_sum(&plain.layer_fwd, "conv", 1) - op_sum(&wino.layer_fwd, "conv", 1), 589824.0, 0);
    assert_rel(gemm_flops(&plain) - gemm_flops(&wino), 3.0 * (589824.0 - 262144.0), 1e-12);
    assert_rel(wino.hw_flops_per_sample, plain.hw_flops_per_sample, 1e-12);
    assert_rel(wino.model_flops_per_sample, plain.model_flops_per_sample, 0);

    p.winograd = 0;
    p.nchw_transposes = 1;
    build(m, &p, &nchw);
    assert_rel(op_sum(&nchw.layer_fwd, "conv.nchw_transpose", 0), 26624.0, 0);
    assert_rel(op_sum(&nchw.layer_bwd, "conv.nchw_transpose", 0), 43008.0, 0);
    assert_int_equal(runs(&nchw.layer_fwd, "conv.nchw_transpose"), 4);
    assert_int_equal(runs(&nchw.layer_bwd, "conv.nchw_transpose"), 6);
    assert_rel(gemm_flops(&nchw), gemm_flops(&plain), 0);
    unlink(path);

    /* 3 input channels: Winograd forward, the direct weight gradient */
    snprintf(path, sizeof path, "%s/rgb.yaml", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("name: one convolution\nkind: cnn\nimage_size: 8\nchannels: 3\nclasses: 8\n"
          "dataset_samples: 1000\nnet:\n  - conv: {out: 16, kernel: 3, pad: 1}\n  - global_avg_pool\n"
          "  - fc: {out: 8}\n  - softmax\n",
          f);
    fclose(f);
    t = tdb_get(&db, &param_model_table, "rgb.yaml", dir, &d);
    if (!t)
        print_error("%s\n", d.msg);
    assert_non_null(t);
    Graph rgb;
    p.nchw_transposes = 0;
    p.winograd = 1;
    build(t->obj, &p, &rgb);
    assert_int_equal(runs(&rgb.layer_fwd, "conv.winograd"), 1);
    assert_int_equal(runs(&rgb.layer_bwd, "conv.wgrad.winograd"), 0);
    assert_rel(op_sum(&rgb.layer_bwd, "conv.wgrad", 1), 2.0 * 27 * 16 * 2 * 64, 0);
    unlink(path);
    rmdir(dir);
}

/* ---- a whole scenario -------------------------------------------------- */

/* A scenario built into sc and evaluated, which must succeed. */
static void scenario_in(Scenario *sc, const char *const *kv, int n, Result *r)
{
    build_scenario(sc, kv, n);
    int rc = evaluate(sc, r);
    if (rc)
        print_error("evaluate: %s\n", r->error);
    assert_int_equal(rc, 0);
}

static void scenario(const char *const *kv, int n, Result *r)
{
    Scenario sc;
    scenario_in(&sc, kv, n, r);
}

/* Inception-V3 on a DGX-1 (8 V100), fp16, 64 images per GPU.  Published
 * anchors: NVIDIA's 2018 V100 records for ResNet-50 (MXNet, fp16) are
 * 1,075 images/s on one GPU and 7,850 on a DGX-1 ("Volta Tensor Core GPU
 * Achieves New AI Performance Milestones"); at Inception-V3's 1.40x the
 * MACs and the same efficiency that is ~5,600 images/s per DGX-1.  (The
 * 2017 TensorFlow benchmarks' ~1,100 images/s on 8 GPUs are P100s in fp32.)
 * The model must land within a factor of two of 5,600. */
static void test_end_to_end(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-v100", "model=inception-v3", "devices=8",
                        "microbatch=64",   "global_batch=512",   "precision=fp16"};
    Result r;
    scenario(kv, 6, &r);
    assert_int_equal(r.status, STATUS_OK);
    print_message("Inception-V3, DGX-1 V100, fp16, 64 x 8: step %.1f ms, %.0f images/s, MFU %.1f %%, "
                  "activations %.2f GiB\n",
                  r.step_time_s * 1e3, r.samples_per_s, 100 * r.mfu, r.mem_activations_bytes / 1073741824.0);
    assert_true(r.samples_per_s > 5600.0 / 2 && r.samples_per_s < 5600.0 * 2);
    assert_rel(r.params_total, 23834568.0, 0);
    assert_true(r.comp_time_s[COMP_TP_COMM] == 0 && r.comp_time_s[COMP_PP_BUBBLE] == 0);
    assert_true(r.mfu > 0 && r.mfu < 1);

    /* kernel split and pipeline evaluate too, with their communication */
    const char *tp[] = {"system=dgx-v100", "model=inception-v3", "devices=8",     "tp=2",
                        "microbatch=64",   "global_batch=256",   "precision=fp16"};
    Result rt;
    scenario(tp, 7, &rt);
    assert_int_equal(rt.status, STATUS_OK);
    assert_true(rt.comp_time_s[COMP_TP_COMM] > 0);
    const char *pp[] = {"system=dgx-v100", "model=resnet50",    "devices=8",     "pp=4",
                        "microbatch=32",   "global_batch=1024", "precision=fp16"};
    Result rp;
    scenario(pp, 7, &rp);
    assert_int_equal(rp.status, STATUS_OK);
    assert_true(rp.comp_time_s[COMP_PP_BUBBLE] > 0 && rp.comp_time_s[COMP_PP_COMM] > 0);
    print_message("kernel split tp=2: %.0f images/s; ResNet-50 pp=4: %.0f images/s\n", rt.samples_per_s,
                  rp.samples_per_s);
}

/* The stack's layout on one V100, ResNet-50 at 128 images, against the
 * PyTorch iteration times of sandeepkumar-skb/pytorch_experiments
 * (validation/small_batch: FP32 NCHW 342.37 ms, NHWC 412.84; AMP NCHW
 * 152.20, NHWC 110.93): NCHW is faster in fp32 (Winograd on the vector
 * units) and slower in fp16 (transposes around the tensor cores), each
 * within 10 % of the measured time.  A transformer is unaffected. */
static void test_layout_step(void **state)
{
    (void)state;
    const char *prec[] = {"precision=fp32", "precision=fp16"};
    const char *lay[] = {"system.framework.conv_layout=nchw", "system.framework.conv_layout=nhwc"};
    const double ms[2][2] = {{342.37, 412.84}, {152.20, 110.93}};
    double t[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const char *kv[] = {"system=dgx-v100",  "model=resnet50", "devices=1", "microbatch=128",
                                "global_batch=128", prec[i],          lay[j]};
            Result r;
            scenario(kv, 7, &r);
            t[i][j] = r.step_time_s * 1e3;
            print_message("ResNet-50, V100, %s, %s: %.1f ms (measured %.2f)\n", prec[i], lay[j], t[i][j],
                          ms[i][j]);
            assert_rel(t[i][j], ms[i][j], 0.10);
        }
    assert_true(t[0][0] < t[0][1] && t[1][0] > t[1][1]);
    Result a, b;
    const char *gpt[] = {
        "system=dgx-v100", "model=llama2-7b", "devices=8",      "tp=8",
        "microbatch=1",    "global_batch=8",  "precision=fp16", "system.framework.conv_layout=nchw"};
    scenario(gpt, 8, &a);
    scenario(gpt, 7, &b);
    assert_rel(a.step_time_s, b.step_time_s, 0);
}

/* ResNet-50 on one V100 at a given conv_call_overhead (fp16, NHWC, two
 * microbatches of 32). */
static void resnet_at_call_overhead(const char *overhead, Scenario *sc, Result *r)
{
    const char *kv[] = {"system=dgx-v100",
                        "model=resnet50",
                        "devices=1",
                        "microbatch=32",
                        "global_batch=64",
                        "precision=fp16",
                        "system.framework.conv_layout=nhwc",
                        overhead};
    scenario_in(sc, kv, 8, r);
}

/* The library's own work around each convolution call (the device's
 * conv_call_overhead, fitted on DeepBench's V100 layers): every forward,
 * data-gradient and weight-gradient pass of a convolution pays it once,
 * nothing else does.  ResNet-50 has 53 convolutions (the stem, 16
 * bottlenecks of 3, 4 projections): 53 forward, 53 weight-gradient and 52
 * data-gradient passes (the stem's input needs none), 158 calls a
 * microbatch. */
static void test_conv_call_overhead(void **state)
{
    (void)state;
    Scenario s0, s10;
    Result r0, r10;
    resnet_at_call_overhead("system.device.conv_call_overhead=0 us", &s0, &r0);
    resnet_at_call_overhead("system.device.conv_call_overhead=10 us", &s10, &r10);
    GraphParams p = params(1, 1, 32);
    Graph g;
    build(&s0.model, &p, &g);
    double calls = 0;
    const OpList *lists[] = {&g.layer_fwd, &g.layer_bwd};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < lists[i]->n; j++)
            if (lists[i]->op[j].conv_call) {
                assert_int_equal(lists[i]->op[j].kind, OP_GEMM);
                calls += op_runs(&lists[i]->op[j]);
            }
    assert_rel(calls, 158, 0);
    assert_rel(r10.comp_time_s[COMP_GEMM] - r0.comp_time_s[COMP_GEMM], 2.0 * calls * 10e-6, 1e-9);
    assert_rel(r10.comp_time_s[COMP_MEMBOUND], r0.comp_time_s[COMP_MEMBOUND], 1e-12);
}

/* cnn_split on a DGX-1 (tp 2 over NVLink, 32 images): auto chooses per
 * concat by the estimate from the device's and the link's rates, and for
 * Inception-V3 places every module's branches: as fast as branch, faster
 * than the kernel split, with less tensor-parallel communication. */
static void test_split_modes(void **state)
{
    (void)state;
    const char *split[] = {"model.cnn_split=kernel", "model.cnn_split=branch", "model.cnn_split=auto"};
    Result r[3];
    for (int i = 0; i < 3; i++) {
        const char *kv[] = {"system=dgx-v100", "model=inception-v3", "devices=2",      "tp=2",  "pp=1",
                            "microbatch=32",   "global_batch=32",    "precision=fp16", split[i]};
        scenario(kv, 9, &r[i]);
        assert_int_equal(r[i].status, STATUS_OK);
        assert_rel(r[i].params_total, 23834568.0, 0);
    }
    print_message("Inception-V3, tp 2, 32 images: kernel %.2f ms (TP comm %.2f), branch %.2f ms (%.2f), "
                  "auto %.2f ms\n",
                  r[0].step_time_s * 1e3, r[0].comp_time_s[COMP_TP_COMM] * 1e3, r[1].step_time_s * 1e3,
                  r[1].comp_time_s[COMP_TP_COMM] * 1e3, r[2].step_time_s * 1e3);
    assert_rel(r[2].step_time_s, r[1].step_time_s, 0);
    assert_true(r[1].step_time_s < r[0].step_time_s);
    assert_true(r[1].comp_time_s[COMP_TP_COMM] < r[0].comp_time_s[COMP_TP_COMM]);
    assert_rel(r[1].model_flops_per_step, r[0].model_flops_per_step, 0);
}

/* The same on a DGX-1 with the V100's stack (TensorFlow 1.x, which
 * overlaps them) against the flag off: Inception-V3's kernel split on 4
 * GPUs, 64 images.  Only the tensor-parallel exchange shrinks, and the step
 * by exactly as much; on one GPU nothing changes. */
static void test_dgrad_overlap_step(void **state)
{
    (void)state;
    Result r[2][2];
    const char *on[] = {"system.framework.dgrad_comm_overlap=no", "system.framework.dgrad_comm_overlap=yes"};
    const char *dev[] = {"devices=4", "devices=1"}, *tp[] = {"tp=4", "tp=1"};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++) {
            const char *kv[] = {"system=dgx-v100",
                                "model=inception-v3",
                                dev[k],
                                tp[k],
                                "pp=1",
                                "microbatch=64",
                                "global_batch=64",
                                "precision=fp16",
                                "model.cnn_split=kernel",
                                on[i]};
            scenario(kv, 10, &r[k][i]);
        }
    const Result *off = &r[0][0], *ovl = &r[0][1];
    print_message(
        "Inception-V3, kernel split on 4 V100s, 64 images: %.2f ms (TP comm %.2f) -> %.2f ms (%.2f) "
        "with the input gradients beside the weight gradients\n",
        off->step_time_s * 1e3, off->comp_time_s[COMP_TP_COMM] * 1e3, ovl->step_time_s * 1e3,
        ovl->comp_time_s[COMP_TP_COMM] * 1e3);
    assert_true(ovl->comp_time_s[COMP_TP_COMM] < 0.9 * off->comp_time_s[COMP_TP_COMM]);
    for (int c = 0; c < COMP_COUNT; c++)
        if (c != COMP_TP_COMM && c != COMP_DP_COMM && c != COMP_DP_HIDDEN)
            assert_rel(ovl->comp_time_s[c], off->comp_time_s[c], 1e-12);
    assert_rel(off->step_time_s - ovl->step_time_s,
               off->comp_time_s[COMP_TP_COMM] - ovl->comp_time_s[COMP_TP_COMM], 1e-9);
    assert_rel(r[1][1].step_time_s, r[1][0].step_time_s, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resnet50_counts),    cmocka_unit_test(test_resnet50_v1_counts),
        cmocka_unit_test(test_conv_layout),        cmocka_unit_test(test_layout_step),
        cmocka_unit_test(test_conv_call_overhead), cmocka_unit_test(test_inception_counts),
        cmocka_unit_test(test_conv_implicit_gemm), cmocka_unit_test(test_tp_split),
        cmocka_unit_test(test_branch_placement),   cmocka_unit_test(test_inception_branch_placement),
        cmocka_unit_test(test_pipeline_partition), cmocka_unit_test(test_recompute),
        cmocka_unit_test(test_loader_errors),      cmocka_unit_test(test_templates),
        cmocka_unit_test(test_end_to_end),         cmocka_unit_test(test_split_modes),
        cmocka_unit_test(test_whole_stem),         cmocka_unit_test(test_dgrad_overlap),
        cmocka_unit_test(test_dgrad_overlap_step),
    };
    return cmocka_run_group_tests(tests, db_setup, db_teardown);
}
