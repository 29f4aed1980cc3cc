/* tests/test_lstm.c — the LSTM graphs (graph/lstm.c) against published
 * parameter counts and hand-written FLOP formulas:
 *  - BigLSTM (LSTM-8192-1024): 1.8 B parameters, Jozefowicz et al. 2016,
 *    "Exploring the Limits of Language Modeling", Table 1 (two significant
 *    figures: the tolerance is the rounding, +-0.05 B);
 *  - GNMT as the MLPerf reference builds it (4 + 4 layers): 160,671,297
 *    parameters, exact (mlbench, "MLPerf GNMT ... 160,671,297 trainable
 *    parameters", mlbench.github.io 2020-10-02 post);
 * and the invariants of the kernel splits (shard FLOPs x tp = whole, both RC
 * and CR), the tensor-parallel collectives (only with tp > 1), the
 * timesteps (one op of one step's shape repeated T times: T launches per
 * layer, a step time that grows with T), the pipelining fields (wavefront =
 * seq_len, stage boundary), and one end-to-end evaluation on a DGX-1. */
#include <string.h>

#include "batch/evaluate.h"
#include "graph/graph.h"
#include "graph/graph_internal.h"
#include "io/scenario.h"
#include "io/template.h"
#include "perf/perf.h"
#include "testdb.h"
#include "testutil.h"

/* ---- models ---------------------------------------------------------------- */

/* Jozefowicz et al. 2016, f-lm's BIGLSTM hyper-parameters. */
static Model biglstm(void)
{
    Model m = {.name = "biglstm"};
    m.kind = MODEL_LSTM;
    m.layers = 2;
    m.hidden = 8192;
    m.proj = 1024;
    m.seq_len = 20;
    m.vocab = 793471;
    m.samples = 8192;
    m.lstm_biases = 1;
    m.tied_embeddings = 0;
    return m;
}

/* The MLPerf reference GNMT (NVIDIA GNMT v2) with `layers` encoder and
 * decoder layers. */
static Model gnmt(int layers)
{
    Model m = {.name = "gnmt"};
    m.kind = MODEL_LSTM;
    m.enc_layers = layers;
    m.dec_layers = layers;
    m.hidden = 1024;
    m.seq_len = 50;
    m.tgt_len = 50;
    m.vocab = 32320;
    m.attention = ATTN_UNFUSED;
    m.lstm_biases = 2;
    m.tied_embeddings = 0;
    return m;
}

static GraphParams params(int tp, int b, Recompute r)
{
    GraphParams p = {0};
    p.tp = tp;
    p.microbatch = b;
    p.precision = PREC_FP16;
    p.recompute = r;
    p.pp = 1;
    return p;
}

static void build_ok(const Model *m, const GraphParams *p, Graph *g)
{
    Diag d;
    diag_clear(&d);
    int rc = graph_build(m, p, g, &d);
    if (rc)
        print_error("graph_build: %s\n", d.msg);
    assert_int_equal(rc, 0);
}

static const OpList *lists(const Graph *g, int i)
{
    const OpList *l[7] = {&g->layer_fwd, &g->layer_bwd, &g->layer_recompute, &g->first_fwd,
                          &g->first_bwd, &g->last_fwd,  &g->last_bwd};
    return l[i];
}

static int count_kind(const Graph *g, OpKind kind)
{
    int n = 0;
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < lists(g, i)->n; j++)
            n += lists(g, i)->op[j].kind == kind;
    return n;
}

static double comm_bytes(const Graph *g)
{
    double s = 0;
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < lists(g, i)->n; j++)
            s += lists(g, i)->op[j].comm_bytes * op_runs(&lists(g, i)->op[j]);
    return s;
}

static double shard_gemm_flops(const Graph *g)
{
    double s = 0;
    for (int i = 0; i < 7; i++) {
        double f = 0;
        for (int j = 0; j < lists(g, i)->n; j++)
            if (lists(g, i)->op[j].kind == OP_GEMM)
                f += lists(g, i)->op[j].flops * op_runs(&lists(g, i)->op[j]);
        s += f * (i < 3 ? g->layers : 1);
    }
    return s;
}

/* ---- parameters ---------------------------------------------------------- */

static void test_biglstm_params(void **state)
{
    (void)state;
    Model m = biglstm();
    GraphParams p = params(1, 64, RECOMPUTE_NONE);
    Graph g;
    build_ok(&m, &p, &g);
    /* Per layer: 4D (P + P) gate weights + 4D biases + D P projection. */
    double layer = 4.0 * 8192 * (1024 + 1024) + 4.0 * 8192 + 8192.0 * 1024;
    assert_rel(g.params_per_layer, layer, 0);
    assert_rel(g.params_per_layer, 75530240.0, 0);
    /* Embedding V P, softmax V P + V bias. */
    double exact = 2.0 * layer + 2.0 * 793471.0 * 1024 + 793471.0;
    assert_rel(g.params_total, exact, 0);
    assert_rel(g.params_total, 1776882559.0, 0);
    /* Jozefowicz et al. 2016, Table 1: "1.8B" (rounded to 0.1 B). */
    assert_true(g.params_total > 1.75e9 && g.params_total < 1.85e9);
    print_message("BigLSTM: %.0f parameters (published 1.8 B)\n", g.params_total);
}

static void test_gnmt_params(void **state)
{
    (void)state;
    Model m4 = gnmt(4), m8 = gnmt(8);
    GraphParams p = params(1, 128, RECOMPUTE_NONE);
    Graph g;
    build_ok(&m4, &p, &g);
    /* MLPerf GNMT: 160,671,297 (mlbench). */
    assert_rel(g.params_total, 160671297.0, 0);
    /* A unit: encoder LSTM(1024 -> 1024) + decoder LSTM(2048 -> 1024),
     * PyTorch's two bias vectors each. */
    double unit = (4.0 * 1024 * 2048 + 8.0 * 1024) + (4.0 * 1024 * 3072 + 8.0 * 1024);
    assert_rel(g.params_per_layer, unit, 0);
    assert_rel(g.params_per_layer, 20987904.0, 0);
    build_ok(&m8, &p, &g);
    assert_rel(g.params_total, 160671297.0 + 4.0 * unit, 0);
    assert_rel(g.params_total, 244622913.0, 0);
    assert_int_equal(g.layers, 8);
    print_message("GNMT-4: 160671297 parameters (MLPerf); GNMT-8: %.0f\n", g.params_total);
}

/* ---- FLOPs --------------------------------------------------------------- */

static void test_biglstm_flops(void **state)
{
    (void)state;
    Model m = biglstm();
    GraphParams p = params(1, 32, RECOMPUTE_NONE);
    Graph g;
    build_ok(&m, &p, &g);
    /* Forward per sequence: per layer and step 2 (P + P) 4D + 2 D P, and the
     * sampled softmax 2 P S per step; training is 3x forward. */
    double T = 20, D = 8192, P = 1024, S = 8192;
    double layers = 2;
    double fwd = layers * T * (2.0 * (P + P) * 4.0 * D + 2.0 * D * P) + 2.0 * T * P * S;
    assert_rel(g.model_flops_per_sample, 3.0 * fwd, 1e-12);
    assert_rel(g.model_flops_per_sample, 19126026240.0, 1e-12);
    /* The ops execute exactly the model FLOPs (no padding, no recompute). */
    assert_rel(g.hw_flops_per_sample, g.model_flops_per_sample, 1e-12);
    assert_rel(shard_gemm_flops(&g) / 32.0, g.model_flops_per_sample, 1e-12);
    /* ~6 x (active parameters) per word: LSTM layers and the 8192 sampled rows. */
    double active = 2.0 * (4.0 * D * 2.0 * P + D * P) + S * P;
    assert_rel(g.model_flops_per_sample / T, 6.0 * active, 1e-12);
    print_message("BigLSTM: %.4g FLOP per 20-word sequence (fwd + bwd)\n", g.model_flops_per_sample);
}

static void test_gnmt_flops(void **state)
{
    (void)state;
    Model m = gnmt(8);
    GraphParams p = params(1, 64, RECOMPUTE_NONE);
    Graph g;
    build_ok(&m, &p, &g);
    double L = 8, D = 1024, T = 50, V = 32320;
    double lstm = 2.0 * T * 4.0 * D; /* x (input + recurrent width) */
    double enc = 2.0 * lstm * 2.0 * D + lstm * 3.0 * D + (L - 2.0) * lstm * 2.0 * D;
    double dec = lstm * 2.0 * D + (L - 1.0) * lstm * 3.0 * D;
    double attn = 2.0 * T * D * D * 2.0 + 2.0 * T * T * D;
    double head = 2.0 * T * D * V;
    assert_rel(g.model_flops_per_sample, 3.0 * (enc + dec + attn + head), 1e-12);
    /* With T_src = T_tgt the unit decomposition executes the same GEMMs. */
    assert_rel(g.hw_flops_per_sample, g.model_flops_per_sample, 1e-12);
    print_message("GNMT-8: %.4g FLOP per sentence pair of 50 + 50 tokens\n", g.model_flops_per_sample);
}

/* ---- kernel splits --------------------------------------------------------- */

static void check_split(Model m, int b)
{
    GraphParams p1 = params(1, b, RECOMPUTE_NONE);
    Graph g1, g;
    build_ok(&m, &p1, &g1);
    assert_int_equal(count_kind(&g1, OP_COMM), 0);
    const LstmSplit splits[] = {LSTM_SPLIT_RC, LSTM_SPLIT_CR};
    for (int s = 0; s < 2; s++) {
        m.lstm_split = splits[s];
        for (int tp = 2; tp <= 8; tp *= 2) {
            GraphParams p = params(tp, b, RECOMPUTE_NONE);
            build_ok(&m, &p, &g);
            /* shard x tp = whole, layer by layer and overall */
            double l1 = graph_gemm_flops(&g1.layer_fwd) + graph_gemm_flops(&g1.layer_bwd);
            double lt = graph_gemm_flops(&g.layer_fwd) + graph_gemm_flops(&g.layer_bwd);
            assert_rel(lt * tp, l1, 1e-12);
            assert_rel(shard_gemm_flops(&g) * tp, shard_gemm_flops(&g1), 1e-12);
            assert_rel(g.hw_flops_per_sample, g1.hw_flops_per_sample, 1e-12);
            assert_rel(g.model_flops_per_sample, g1.model_flops_per_sample, 0);
            assert_rel(g.params_total, g1.params_total, 0);
            /* collectives in every layer, forward and backward */
            int fwd = 0, bwd = 0;
            for (int i = 0; i < g.layer_fwd.n; i++)
                fwd += g.layer_fwd.op[i].kind == OP_COMM;
            for (int i = 0; i < g.layer_bwd.n; i++)
                bwd += g.layer_bwd.op[i].kind == OP_COMM;
            assert_true(fwd > 0 && bwd > 0);
            for (int i = 0; i < g.layer_fwd.n; i++)
                if (g.layer_fwd.op[i].kind == OP_COMM)
                    assert_int_equal(g.layer_fwd.op[i].comp, COMP_TP_COMM);
        }
    }
}

static void test_split_flops_times_tp(void **state)
{
    (void)state;
    check_split(biglstm(), 32);
    check_split(gnmt(4), 64);
}

/* RC moves less than CR for both models, and auto picks it. */
static void test_auto_split(void **state)
{
    (void)state;
    Model models[2] = {biglstm(), gnmt(8)};
    for (int i = 0; i < 2; i++) {
        Model m = models[i];
        GraphParams p = params(4, 64, RECOMPUTE_NONE);
        Graph ga, grc, gcr;
        m.lstm_split = LSTM_SPLIT_AUTO;
        build_ok(&m, &p, &ga);
        m.lstm_split = LSTM_SPLIT_RC;
        build_ok(&m, &p, &grc);
        m.lstm_split = LSTM_SPLIT_CR;
        build_ok(&m, &p, &gcr);
        double a = comm_bytes(&ga), rc = comm_bytes(&grc), cr = comm_bytes(&gcr);
        assert_rel(a, rc, 0);
        assert_true(rc < cr);
        /* RC with a projection: one all-reduce of b P per step forward. */
        if (i == 0) {
            int ar = 0;
            for (int j = 0; j < grc.layer_fwd.n; j++)
                if (grc.layer_fwd.op[j].kind == OP_COMM) {
                    assert_int_equal(grc.layer_fwd.op[j].coll, COLL_ALLREDUCE);
                    assert_rel(grc.layer_fwd.op[j].comm_bytes, 64.0 * 1024 * 2, 0);
                    ar += op_runs(&grc.layer_fwd.op[j]);
                }
            assert_int_equal(ar, 20);
        }
        /* CR leaves the layer outputs sharded: 1/tp of the boundary. */
        assert_rel(gcr.stage_boundary_bytes * 4, grc.stage_boundary_bytes, 1e-12);
    }
}

/* ---- timesteps ----------------------------------------------------------- */

/* The per-step op `name` of a list: one op of one step's shape, (b, n, k)
 * with batch 1, repeated `steps` times. */
static void check_step_op(const OpList *l, const char *name, int64_t b, int64_t n, int64_t k, int steps)
{
    int seen = 0;
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->op[i].name, name)) {
            assert_int_equal(l->op[i].m, b);
            assert_int_equal(l->op[i].n, n);
            assert_int_equal(l->op[i].k, k);
            assert_int_equal(l->op[i].batch, 1);
            assert_int_equal(l->op[i].repeat, steps);
            seen++;
        }
    assert_int_equal(seen, 1);
}

/* Kernels (and collectives) a list launches: every run of every op. */
static int launches(const OpList *l)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += op_runs(&l->op[i]);
    return n;
}

static void test_timesteps(void **state)
{
    (void)state;
    /* BigLSTM, T = 20: the recurrent GEMM and the projection run once per
     * step, and per step the cell (and at tp > 1 one collective each). */
    Model m = biglstm();
    GraphParams p = params(1, 64, RECOMPUTE_NONE);
    Graph g;
    build_ok(&m, &p, &g);
    check_step_op(&g.layer_fwd, "gates.h", 64, 4 * 8192, 1024, 20);
    check_step_op(&g.layer_fwd, "proj", 64, 1024, 8192, 20);
    check_step_op(&g.layer_bwd, "gates.h.dgrad", 64, 1024, 4 * 8192, 20);
    /* forward: dropout and gates.x once, gates.h, cell and proj per step */
    assert_int_equal(launches(&g.layer_fwd), 2 + 3 * 20);
    /* backward: proj.dgrad, cell.bwd and gates.h.dgrad per step; gates.x
     * dgrad, the weight gradients and dropout once */
    assert_int_equal(launches(&g.layer_bwd), 3 * 20 + 4);
    p = params(8, 64, RECOMPUTE_NONE);
    build_ok(&m, &p, &g);
    check_step_op(&g.layer_fwd, "gates.h", 64, 4 * 8192 / 8, 1024, 20);
    /* RC: one all-reduce of b P per step and layer */
    assert_int_equal(launches(&g.layer_fwd), 2 + 4 * 20);

    /* GNMT, T = 50, two layers per unit: every per-step op of each layer
     * runs 50 times; the list holds a fixed number of ops. */
    m = gnmt(8);
    p = params(4, 64, RECOMPUTE_NONE);
    build_ok(&m, &p, &g);
    check_step_op(&g.layer_fwd, "enc.gates.h", 64, 4 * 1024 / 4, 1024, 50);
    check_step_op(&g.layer_fwd, "dec.gates.h", 64, 4 * 1024 / 4, 1024, 50);
    check_step_op(&g.first_fwd, "enc.rev.gates.h", 64, 4 * 1024 / 4, 1024, 50);
    check_step_op(&g.layer_bwd, "dec.gates.h.dgrad", 64, 1024, 4 * 1024 / 4, 50);
    /* per layer and step: gates.h, cell, h.allgather (RC, no projection) */
    int steps = 0;
    for (int i = 0; i < g.layer_fwd.n; i++)
        if (g.layer_fwd.op[i].repeat == 50)
            steps++;
    assert_int_equal(steps, 2 * 3);
    print_message("GNMT-8, tp 4: layer_fwd %d ops, %d launches; layer_bwd %d ops, %d launches\n",
                  g.layer_fwd.n, launches(&g.layer_fwd), g.layer_bwd.n, launches(&g.layer_bwd));
    for (int i = 0; i < 7; i++)
        assert_true(lists(&g, i)->n <= GRAPH_MAX_OPS);
}

/* A longer sequence costs more per step: BigLSTM on a DGX-1, step time at
 * T = 10, 20 and 40 (each step's kernels are charged, launches included). */
static void test_step_time_grows_with_seq_len(void **state)
{
    (void)state;
    static const char *const lens[] = {"model.seq_len=10", "model.seq_len=20", "model.seq_len=40"};
    double prev = 0;
    for (int i = 0; i < 3; i++) {
        const char *kv[] = {"system=dgx-v100", "model=biglstm",    "devices=8",      "tp=2",
                            "microbatch=64",   "global_batch=256", "precision=fp32", lens[i]};
        Scenario sc;
        build_scenario(&sc, kv, 8);
        Result r;
        int rc = evaluate(&sc, &r);
        if (rc)
            print_error("evaluate: %s\n", r.error);
        assert_int_equal(rc, 0);
        assert_true(r.step_time_s > prev);
        if (i > 0) /* twice the steps: less than twice the time (the S sampled
                    * classes and the weight update do not grow with T) */
            assert_true(r.step_time_s < 2.0 * prev);
        prev = r.step_time_s;
    }
}

/* An op that repeats r times costs r runs: GNMT-8 on one V100 at the
 * nominal clock, whose GEMM time is the sum over the graph's GEMMs of
 * repeat x one run's gemm_cost (the per-step GEMMs repeat 50 times). */
static void test_repeat_costs_every_run(void **state)
{
    (void)state;
    static const char *const kv[] = {
        "system=dgx-v100", "model=gnmt",      "devices=1",      "tp=1",          "pp=1",
        "microbatch=32",   "global_batch=64", "precision=fp16", "recompute=none"};
    Scenario sc;
    build_scenario(&sc, kv, 9);
    Result r;
    int rc = evaluate(&sc, &r);
    if (rc)
        print_error("evaluate: %s\n", r.error);
    assert_int_equal(rc, 0);
    assert_rel(r.clock_scale, 1.0, 0);
    /* the device as step.c drives it: the stack's share of GEMM efficiency */
    Device dev = sc.system.device;
    dev.matrix_eff *= sc.system.framework.gemm_eff > 0 ? sc.system.framework.gemm_eff : 1.0;
    GraphParams p = params(1, 32, RECOMPUTE_NONE);
    Graph g;
    build_ok(&sc.model, &p, &g);
    double gemm = 0, once = 0;
    int repeated = 0;
    for (int i = 0; i < 7; i++) {
        const OpList *l = lists(&g, i);
        double sum = 0;
        for (int j = 0; j < l->n; j++) {
            const Op *op = &l->op[j];
            if (op->kind != OP_GEMM || op->comp != COMP_GEMM)
                continue;
            GemmCost c;
            gemm_cost(&dev, PREC_FP16, op->batch, op->m, op->n, op->k, NULL, &c);
            sum += op_runs(op) * c.time_s;
            once += c.time_s * (i < 3 ? g.layers : 1);
            repeated += op->repeat == 50;
        }
        gemm += sum * (i < 3 ? g.layers : 1);
    }
    assert_true(repeated > 0);
    assert_true(gemm > 1.5 * once);   /* the repeats matter */
    const double micro = 64.0 / 32.0; /* microbatches per step */
    assert_rel(r.comp_time_s[COMP_GEMM], micro * gemm, 1e-12);
}

/* The RNN library's per-step work (the device's rnn_step_overhead, fitted
 * on DeepBench's V100 LSTM steps): every run of a cell, forward and
 * backward, costs it once, and nothing else moves. */
/* GNMT on one V100, two microbatches of 32, at a given rnn_step_overhead. */
static void gnmt_at_step_overhead(const char *overhead, Scenario *sc, Result *r)
{
    const char *kv[] = {"system=dgx-v100", "model=gnmt",      "devices=1",      "tp=1",           "pp=1",
                        "microbatch=32",   "global_batch=64", "precision=fp16", "recompute=none", overhead};
    build_scenario(sc, kv, 10);
    assert_int_equal(evaluate(sc, r), 0);
}

static void test_rnn_step_overhead(void **state)
{
    (void)state;
    Scenario sc0, sc30;
    Result r0, r30;
    gnmt_at_step_overhead("system.device.rnn_step_overhead=0 us", &sc0, &r0);
    gnmt_at_step_overhead("system.device.rnn_step_overhead=30 us", &sc30, &r30);
    assert_rel(sc30.system.device.rnn_step_s, 30e-6, 1e-12);
    GraphParams p = params(1, 32, RECOMPUTE_NONE);
    Graph g;
    build_ok(&sc0.model, &p, &g);
    double cells = 0; /* cell runs of one microbatch's forward and backward */
    for (int i = 0; i < 7; i++) {
        const OpList *l = lists(&g, i);
        for (int j = 0; j < l->n; j++)
            if (l->op[j].rnn_step) {
                assert_int_equal(l->op[j].kind, OP_MEMBOUND);
                cells += op_runs(&l->op[j]) * (i < 3 ? g.layers : 1);
            }
    }
    /* GNMT (8 + 8) at 50 steps: 8 encoder and 8 decoder layers and the
     * reverse encoder direction, a forward and a backward cell a step each */
    assert_rel(cells, 2.0 * 50 * 17, 0);
    const double micro = 64.0 / 32.0;
    assert_rel(r30.comp_time_s[COMP_MEMBOUND] - r0.comp_time_s[COMP_MEMBOUND], micro * cells * 30e-6, 1e-9);
    assert_rel(r30.comp_time_s[COMP_GEMM], r0.comp_time_s[COMP_GEMM], 1e-12);
    assert_rel(r30.step_time_s - r0.step_time_s, micro * cells * 30e-6, 1e-9);
}

/* ---- pipelining, memory, recompute --------------------------------------- */

static void test_pipeline_fields(void **state)
{
    (void)state;
    Model m = biglstm();
    GraphParams p = params(1, 64, RECOMPUTE_NONE);
    Graph g;
    build_ok(&m, &p, &g);
    assert_int_equal(g.wavefront, 20);
    assert_int_equal(g.layers, 2);
    assert_rel(g.stage_boundary_bytes, 64.0 * 20 * 1024 * 2, 0);
    /* Stored per layer: b T e (4D + D + D + P + P) + b T P mask bytes. */
    double D = 8192, P = 1024, bt = 64.0 * 20;
    assert_rel(g.act_bytes_per_layer, bt * (2.0 * (4 * D + 2 * D + 2 * P) + P), 1e-12);

    m = gnmt(8);
    build_ok(&m, &p, &g);
    assert_int_equal(g.wavefront, 50);
    assert_rel(g.stage_boundary_bytes, 64.0 * (50 + 2 * 50) * 1024 * 2, 0);

    /* Full recompute keeps the layer inputs and redoes the forward. */
    Graph gr;
    m = biglstm();
    GraphParams pr = params(1, 64, RECOMPUTE_FULL);
    build_ok(&m, &pr, &gr);
    assert_rel(gr.act_bytes_per_layer, bt * P * 2, 0);
    assert_rel(graph_gemm_flops(&gr.layer_recompute), graph_gemm_flops(&gr.layer_fwd), 0);
    assert_true(gr.hw_flops_per_sample > gr.model_flops_per_sample);
}

static void test_errors(void **state)
{
    (void)state;
    Graph g;
    Diag d;
    Model m = gnmt(8);
    m.dec_layers = 4;
    GraphParams p = params(1, 8, RECOMPUTE_NONE);
    diag_clear(&d);
    assert_int_equal(graph_build(&m, &p, &g, &d), -1);
    assert_non_null(strstr(d.msg, "dec_layers (4) must equal enc_layers (8)"));
    m = biglstm();
    p = params(3, 8, RECOMPUTE_NONE);
    diag_clear(&d);
    assert_int_equal(graph_build(&m, &p, &g, &d), -1);
    assert_non_null(strstr(d.msg, "hidden (8192) must be divisible by tp (3)"));
    p = params(1, 8, RECOMPUTE_NONE);
    p.pp = 4;
    diag_clear(&d);
    assert_int_equal(graph_build(&m, &p, &g, &d), -1);
    assert_non_null(strstr(d.msg, "pp (4) exceeds the LSTM's 2 layer units"));
    m.layers = 0;
    p = params(1, 8, RECOMPUTE_NONE);
    diag_clear(&d);
    assert_int_equal(graph_build(&m, &p, &g, &d), -1);
    assert_non_null(strstr(d.msg, "layers must be >= 1"));
}

/* ---- end to end ---------------------------------------------------------- */

static void test_templates_load(void **state)
{
    (void)state;
    static const char *const kv[] = {"system=dgx-v100", "model=gnmt", "devices=8", "microbatch=64",
                                     "global_batch=512"};
    Scenario sc;
    build_scenario(&sc, kv, 5);
    assert_int_equal(sc.model.kind, MODEL_LSTM);
    assert_int_equal(sc.model.enc_layers, 8);
    assert_int_equal(sc.model.lstm_biases, 2);
    Graph g;
    GraphParams p = params(1, 64, RECOMPUTE_NONE);
    build_ok(&sc.model, &p, &g);
    assert_rel(g.params_total, 244622913.0, 0);
}

/* The DGX-1 scenario: 8 V100 32 GB, data parallel, 64 sequences each.  In
 * fp16 with mixed-precision Adam (18 bytes per parameter in step.c) the
 * 1.78 B parameters need about 32.1 GiB of a 32 GiB device: out of memory
 * by a hair; in fp32 (f-lm trains BigLSTM in fp32: 16 bytes per parameter)
 * it fits.  f-lm reports ~20.3 K words/s for BIGLSTM on a DGX-1 (README;
 * P100 era, synchronous data parallelism with sparse embedding gradients),
 * printed for comparison, not asserted. */
static void evaluate_biglstm(const char *const *kv, int n, const char *label, Result *r)
{
    Scenario sc;
    build_scenario(&sc, kv, n);
    assert_int_equal(sc.model.kind, MODEL_LSTM);
    int rc = evaluate(&sc, r);
    if (rc)
        print_error("evaluate: %s\n", r->error);
    assert_int_equal(rc, 0);
    assert_rel(r->params_total, 1776882559.0, 0);
    /* 8 x 64 sequences of 20 words: between 10 ms and 10 s on a DGX-1. */
    assert_true(r->step_time_s > 0.01 && r->step_time_s < 10.0);
    print_message("BigLSTM on 8 V100 (%s): %s, step %.1f ms, %.0f words/s, MFU %.1f %%, "
                  "bottleneck %s, memory %.2f GiB\n",
                  label, status_name(r->status), r->step_time_s * 1e3, r->samples_per_s * 20, r->mfu * 100,
                  r->bottleneck, r->mem_total_bytes / 1073741824.0);
}

static void test_biglstm_on_dgx1(void **state)
{
    (void)state;
    static const char *const kv[] = {"system=dgx-v100", "model=biglstm",    "devices=8",
                                     "microbatch=64",   "global_batch=512", "precision=fp32"};
    static const char *const kv16[] = {"system=dgx-v100", "model=biglstm",    "devices=8",
                                       "microbatch=64",   "global_batch=512", "precision=fp16"};
    Result r;
    evaluate_biglstm(kv16, 6, "fp16", &r);
    assert_true(r.status == STATUS_OK || r.status == STATUS_OOM);
    /* V100 has no bf16 matrix units: a bf16 scenario is refused, not run at fp16's rate */
    Scenario sc;
    build_scenario(&sc, kv, 5);
    assert_int_equal(evaluate(&sc, &r), -1);
    assert_non_null(strstr(r.error, "precision bf16: the V100-SXM2-32GB has no bf16 matrix units"));
    evaluate_biglstm(kv, 6, "fp32", &r);
    assert_int_equal(r.status, STATUS_OK);
    assert_int_equal(r.st.tp, 1);
    assert_int_equal(r.st.dp, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_biglstm_params),
        cmocka_unit_test(test_gnmt_params),
        cmocka_unit_test(test_biglstm_flops),
        cmocka_unit_test(test_gnmt_flops),
        cmocka_unit_test(test_split_flops_times_tp),
        cmocka_unit_test(test_auto_split),
        cmocka_unit_test(test_timesteps),
        cmocka_unit_test(test_step_time_grows_with_seq_len),
        cmocka_unit_test(test_repeat_costs_every_run),
        cmocka_unit_test(test_rnn_step_overhead),
        cmocka_unit_test(test_pipeline_fields),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_templates_load),
        cmocka_unit_test(test_biglstm_on_dgx1),
    };
    return cmocka_run_group_tests(tests, db_setup, db_teardown);
}
