/* tests/test_graph.c — the graph engine against closed forms: Megatron-LM's
 * parameter and FLOP counts (Narayanan et al. 2021, eqs. 2 and 3), published
 * Llama-2 parameter counts, Korthikanti et al. 2022 activation memory, the
 * invariants of the tensor-parallel split (shard x t = whole), and the exact
 * error messages for shapes that cannot be split. */
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/graph_internal.h"
#include "testutil.h"

static Model gpt3_175b(void)
{
    Model m = {.name = "gpt3-175b"};
    m.kind = MODEL_TRANSFORMER;
    m.layers = 96;
    m.hidden = 12288;
    m.heads = 96;
    m.kv_heads = 96;
    m.seq_len = 2048;
    m.vocab = 51200;
    m.ffn = 4 * 12288;
    m.mlp = MLP_GELU;
    m.norm = NORM_LAYERNORM;
    m.position = POS_LEARNED;
    m.attention = ATTN_UNFUSED;
    m.tied_embeddings = 1;
    m.dropout = 1; /* GPT-3 trained with dropout 0.1 */
    return m;
}

static Model llama2(int layers, int hidden, int heads, int kv, int ffn)
{
    Model m = {.name = "llama2"};
    m.kind = MODEL_TRANSFORMER;
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = kv;
    m.seq_len = 4096;
    m.vocab = 32000;
    m.ffn = ffn;
    m.mlp = MLP_SWIGLU;
    m.norm = NORM_RMSNORM;
    m.position = POS_ROTARY;
    m.dropout = 1; /* as Megatron's graph had it: masks counted (dropout yes, the template default) */
    m.attention = ATTN_UNFUSED;
    m.tied_embeddings = 0;
    return m;
}

static GraphParams params(int tp, int sp, int b, Recompute r)
{
    GraphParams p = {0};
    p.tp = tp;
    p.seq_parallel = sp;
    p.microbatch = b;
    p.precision = PREC_BF16;
    p.recompute = r;
    return p;
}

/* Graph is large (fixed arrays): keep it off the stack. */
static Graph *build_ok(const Model *m, const GraphParams *p)
{
    Graph *g = malloc(sizeof *g);
    assert_non_null(g);
    Diag d;
    diag_clear(&d);
    int rc = graph_build(m, p, g, &d);
    if (rc != 0)
        print_error("graph_build: %s\n", d.msg);
    assert_int_equal(rc, 0);
    return g;
}

static void expect_error(const Model *m, const GraphParams *p, const char *msg)
{
    Graph *g = malloc(sizeof *g);
    assert_non_null(g);
    Diag d;
    diag_clear(&d);
    assert_int_equal(graph_build(m, p, g, &d), -1);
    assert_string_equal(d.msg, msg);
    free(g);
}

static int count_coll(const OpList *l, Collective c)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        if (l->op[i].kind == OP_COMM && l->op[i].coll == c)
            n++;
    return n;
}

static int count_kind(const OpList *l, OpKind k)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += l->op[i].kind == k;
    return n;
}

/* The op of that name in the list, or NULL. */
static const Op *lookup_op(const OpList *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->op[i].name, name) == 0)
            return &l->op[i];
    return NULL;
}

static const Op *find_op(const OpList *l, const char *name)
{
    const Op *op = lookup_op(l, name);
    if (!op) {
        print_error("op '%s' not found\n", name);
        fail();
    }
    return op;
}

static int has_op(const OpList *l, const char *name)
{
    return lookup_op(l, name) != NULL;
}

/* ---- parameters ---------------------------------------------------------- */

static void test_gpt3_params(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    Graph *g = build_ok(&m, &p);
    double h = m.hidden;
    double megatron = graph_megatron_params(m.layers, m.hidden, m.vocab, m.seq_len);
    print_message("gpt3-175b: params %.0f (%.1f B), Megatron eq. 2: %.0f\n", g->params_total,
                  g->params_total / 1e9, megatron);
    /* eq. 2 expanded: 12 l h^2 + 13 l h + (V + s) h */
    assert_rel(megatron, 12.0 * 96 * h * h + 13.0 * 96 * h + (51200.0 + 2048.0) * h, 1e-15);
    /* the graph also counts the final layernorm (2h), which eq. 2 leaves out */
    assert_rel(g->params_total, megatron + 2.0 * h, 1e-12);
    assert_rel(g->params_total, megatron, 2e-7);
    assert_rel(g->params_total, 174.6e9, 5e-4);
    assert_rel(g->params_per_layer, 12.0 * h * h + 13.0 * h, 1e-15);
    assert_rel(g->params_embedding, (51200.0 + 2048.0) * h, 1e-15);
    assert_true(g->params_head == 0.0);
    assert_int_equal(g->layers, 96);
    free(g);

    /* parameters are whole-model: the same under any split */
    p = params(8, 1, 4, RECOMPUTE_FULL);
    g = build_ok(&m, &p);
    assert_rel(g->params_total, megatron + 2.0 * h, 1e-12);
    free(g);
}

static void test_llama_params(void **state)
{
    (void)state;
    Model m7 = llama2(32, 4096, 32, 32, 11008);
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    Graph *g = build_ok(&m7, &p);
    print_message("llama-2-7b: params %.0f\n", g->params_total);
    assert_rel(g->params_total, 6738415616.0, 1e-12); /* Hugging Face's count */
    assert_rel(g->params_total, 6.738e9, 1e-3);
    assert_rel(g->params_head, 32000.0 * 4096, 1e-15);
    free(g);

    Model m70 = llama2(80, 8192, 64, 8, 28672);
    g = build_ok(&m70, &p);
    print_message("llama-2-70b: params %.0f\n", g->params_total);
    assert_rel(g->params_total, 68976648192.0, 1e-12);
    assert_rel(g->params_total, 68.98e9, 2e-3);
    free(g);
}

/* ---- FLOPs ---------------------------------------------------------------- */

static void test_gpt3_flops(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    int bs[] = {1, 8};
    for (int i = 0; i < 2; i++) {
        GraphParams p = params(1, 0, bs[i], RECOMPUTE_NONE);
        Graph *g = build_ok(&m, &p);
        double want = graph_megatron_flops(bs[i], m.layers, m.hidden, m.vocab, m.seq_len);
        print_message("gpt3-175b b=%d: model FLOPs/sample %.6g, x b = %.6g, Megatron %.6g\n", bs[i],
                      g->model_flops_per_sample, g->model_flops_per_sample * bs[i], want);
        assert_rel(g->model_flops_per_sample * bs[i], want, 1e-9);
        /* no recompute, unfused, no vocab padding: hardware = model */
        assert_rel(g->hw_flops_per_sample, g->model_flops_per_sample, 1e-12);
        free(g);
    }
}

static void test_tp_shard_times_t(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    GraphParams p1 = params(1, 0, 2, RECOMPUTE_NONE);
    Graph *g1 = build_ok(&m, &p1);
    for (int sp = 0; sp <= 1; sp++) {
        GraphParams p8 = params(8, sp, 2, RECOMPUTE_NONE);
        Graph *g8 = build_ok(&m, &p8);
        assert_rel(graph_gemm_flops(&g8->layer_fwd) * 8, graph_gemm_flops(&g1->layer_fwd), 1e-9);
        assert_rel(graph_gemm_flops(&g8->layer_bwd) * 8, graph_gemm_flops(&g1->layer_bwd), 1e-9);
        assert_rel(graph_gemm_flops(&g8->last_fwd) * 8, graph_gemm_flops(&g1->last_fwd), 1e-9);
        assert_rel(graph_gemm_flops(&g8->last_bwd) * 8, graph_gemm_flops(&g1->last_bwd), 1e-9);
        assert_rel(g8->model_flops_per_sample, g1->model_flops_per_sample, 1e-9);
        assert_rel(g8->hw_flops_per_sample, g1->hw_flops_per_sample, 1e-9);
        free(g8);
    }
    free(g1);
}

static void test_backward_twice_forward(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    for (int fused = 0; fused <= 1; fused++) {
        m.attention = fused ? ATTN_FUSED : ATTN_UNFUSED;
        GraphParams p = params(4, 0, 1, RECOMPUTE_NONE);
        Graph *g = build_ok(&m, &p);
        double fwd = graph_gemm_flops(&g->layer_fwd), bwd = graph_gemm_flops(&g->layer_bwd);
        double s = m.seq_len, h = m.hidden;
        /* flash backward also rematerialises QK^T: b a/t s^2 (h/a) * 2 */
        double remat = fused ? 2.0 * s * s * h / 4 : 0.0;
        assert_rel(bwd, 2.0 * fwd + remat, 1e-12);
        assert_rel(graph_gemm_flops(&g->last_bwd), 2.0 * graph_gemm_flops(&g->last_fwd), 1e-12);
        assert_int_equal(count_kind(&g->first_fwd, OP_GEMM), 0);
        free(g);
    }
}

static void test_recompute_flops(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    double B = 4, s = m.seq_len, l = m.layers, h = m.hidden, V = m.vocab;

    GraphParams p = params(8, 1, 4, RECOMPUTE_FULL);
    Graph *g = build_ok(&m, &p);
    /* Narayanan et al. 2021, eq. 3: 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) */
    double eq3 = 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
    print_message("gpt3-175b full recompute: hw FLOPs/sample %.6g, model %.6g, ratio %.6f\n",
                  g->hw_flops_per_sample, g->model_flops_per_sample,
                  g->hw_flops_per_sample / g->model_flops_per_sample);
    assert_rel(g->hw_flops_per_sample * B, eq3, 1e-9);
    /* what HFU adds to the model FLOPs: the forward again, every layer */
    assert_rel(g->recompute_flops_per_sample, l * graph_gemm_flops(&g->layer_fwd) * 8 / 4, 1e-12);
    assert_rel(graph_gemm_flops(&g->layer_recompute), graph_gemm_flops(&g->layer_fwd), 1e-15);
    assert_int_equal(g->layer_recompute.n, g->layer_fwd.n);
    for (int i = 0; i < g->layer_recompute.n; i++) {
        const Op *op = &g->layer_recompute.op[i];
        assert_int_equal(op->comp, op->kind == OP_COMM ? COMP_TP_COMM : COMP_RECOMPUTE);
    }
    assert_int_equal(count_coll(&g->layer_recompute, COLL_ALLGATHER), 2);
    assert_int_equal(count_coll(&g->layer_recompute, COLL_REDUCESCATTER), 2);
    free(g);

    p = params(8, 1, 4, RECOMPUTE_SELECTIVE);
    g = build_ok(&m, &p);
    /* the attention core again: QK^T and AV, 4 s^2 h per layer and sample */
    assert_rel(g->hw_flops_per_sample, g->model_flops_per_sample + l * 4.0 * s * s * h, 1e-12);
    assert_rel(g->recompute_flops_per_sample, l * 4.0 * s * s * h, 1e-12);
    assert_int_equal(g->layer_recompute.n, 3);
    assert_string_equal(g->layer_recompute.op[0].name, "attn.scores");
    assert_string_equal(g->layer_recompute.op[1].name, "attn.softmax");
    assert_string_equal(g->layer_recompute.op[2].name, "attn.context");
    free(g);

    p = params(8, 1, 4, RECOMPUTE_NONE);
    g = build_ok(&m, &p);
    assert_int_equal(g->layer_recompute.n, 0);
    free(g);
}

/* ---- ops and shapes ------------------------------------------------------- */

static void test_forward_order_and_shapes(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    GraphParams p = params(8, 0, 2, RECOMPUTE_NONE);
    Graph *g = build_ok(&m, &p);
    static const char *const names[] = {
        "ln1",
        "qkv",
        "attn.scores",
        "attn.softmax",
        "attn.context",
        "proj",
        "proj.allreduce",
        "dropout_residual1",
        "ln2",
        "mlp_up",
        "gelu",
        "mlp_down",
        "mlp_down.allreduce",
        "dropout_residual2",
    };
    int n = (int)(sizeof names / sizeof names[0]);
    assert_int_equal(g->layer_fwd.n, n);
    for (int i = 0; i < n; i++)
        assert_string_equal(g->layer_fwd.op[i].name, names[i]);

    int64_t s = 2048, b = 2, h = 12288;
    const Op *qkv = find_op(&g->layer_fwd, "qkv");
    assert_int_equal(qkv->m, s * b);
    assert_int_equal(qkv->k, h);
    assert_int_equal(qkv->n, 3 * h / 8);
    assert_rel(qkv->flops, 2.0 * s * b * h * 3.0 * h / 8, 1e-15);
    assert_rel(qkv->bytes, 2.0 * (s * b * h + h * 3 * h / 8 + s * b * 3 * h / 8), 1e-15);
    const Op *sc = find_op(&g->layer_fwd, "attn.scores");
    assert_int_equal(sc->batch, b * 96 / 8);
    assert_int_equal(sc->m, s);
    assert_int_equal(sc->n, s);
    assert_int_equal(sc->k, h / 96);
    const Op *sm = find_op(&g->layer_fwd, "attn.softmax");
    assert_int_equal(sm->kind, OP_MEMBOUND);
    assert_int_equal(sm->comp, COMP_ATTENTION);
    assert_rel(sm->bytes, (double)b * 12 * s * s * (4 * 2 + 1), 1e-15);
    const Op *proj = find_op(&g->layer_fwd, "proj");
    assert_int_equal(proj->k, h / 8);
    assert_int_equal(proj->n, h);
    const Op *ar = find_op(&g->layer_fwd, "proj.allreduce");
    assert_int_equal(ar->kind, OP_COMM);
    assert_int_equal(ar->comp, COMP_TP_COMM);
    assert_int_equal(ar->coll, COLL_ALLREDUCE);
    assert_rel(ar->comm_bytes, 2.0 * s * b * h, 1e-15);
    assert_int_equal(find_op(&g->layer_fwd, "mlp_up")->n, 4 * h / 8);
    assert_int_equal(find_op(&g->layer_fwd, "mlp_down")->k, 4 * h / 8);

    /* dgrad and wgrad shapes of qkv */
    const Op *dg = find_op(&g->layer_bwd, "qkv.dgrad");
    assert_int_equal(dg->m, s * b);
    assert_int_equal(dg->k, 3 * h / 8);
    assert_int_equal(dg->n, h);
    const Op *wg = find_op(&g->layer_bwd, "qkv.wgrad");
    assert_int_equal(wg->m, h);
    assert_int_equal(wg->n, 3 * h / 8);
    assert_int_equal(wg->k, s * b);

    /* embedding and head */
    assert_string_equal(g->first_fwd.op[0].name, "embed");
    assert_int_equal(count_coll(&g->first_fwd, COLL_ALLREDUCE), 1);
    find_op(&g->first_fwd, "embed.pos");
    const Op *head = find_op(&g->last_fwd, "head");
    assert_int_equal(head->comp, COMP_EMBED_HEAD);
    assert_int_equal(head->n, 51200 / 8);
    assert_int_equal(head->k, h);
    find_op(&g->last_bwd, "head.dgrad");
    find_op(&g->last_bwd, "head.wgrad");
    free(g);
}

static void test_tp_collectives(void **state)
{
    (void)state;
    Model m = gpt3_175b();

    GraphParams p = params(1, 1, 1, RECOMPUTE_FULL); /* sp means nothing at t = 1 */
    Graph *g = build_ok(&m, &p);
    const OpList *lists[] = {&g->layer_fwd, &g->layer_bwd, &g->layer_recompute, &g->first_fwd,
                             &g->first_bwd, &g->last_fwd,  &g->last_bwd};
    for (int i = 0; i < 7; i++)
        assert_int_equal(count_kind(lists[i], OP_COMM), 0);
    free(g);

    p = params(8, 0, 1, RECOMPUTE_NONE);
    g = build_ok(&m, &p);
    assert_int_equal(count_coll(&g->layer_fwd, COLL_ALLREDUCE), 2);
    assert_int_equal(count_kind(&g->layer_fwd, OP_COMM), 2);
    assert_int_equal(count_coll(&g->layer_bwd, COLL_ALLREDUCE), 2);
    assert_int_equal(count_kind(&g->layer_bwd, OP_COMM), 2);
    find_op(&g->layer_bwd, "qkv.dgrad.allreduce");
    find_op(&g->layer_bwd, "mlp_up.dgrad.allreduce");
    assert_int_equal(count_coll(&g->last_fwd, COLL_ALLREDUCE), 3); /* vocab-parallel loss */
    assert_int_equal(count_coll(&g->last_bwd, COLL_ALLREDUCE), 1);
    free(g);

    p = params(8, 1, 1, RECOMPUTE_NONE);
    g = build_ok(&m, &p);
    assert_int_equal(count_coll(&g->layer_fwd, COLL_ALLGATHER), 2);
    assert_int_equal(count_coll(&g->layer_fwd, COLL_REDUCESCATTER), 2);
    assert_int_equal(count_coll(&g->layer_fwd, COLL_ALLREDUCE), 0);
    assert_int_equal(count_coll(&g->layer_bwd, COLL_ALLGATHER), 2);
    assert_int_equal(count_coll(&g->layer_bwd, COLL_REDUCESCATTER), 2);
    assert_int_equal(count_coll(&g->layer_bwd, COLL_ALLREDUCE), 0);
    assert_string_equal(g->layer_fwd.op[1].name, "ln1.allgather");
    assert_rel(g->layer_fwd.op[1].comm_bytes, 2.0 * 2048 * 12288, 1e-15);
    /* the sequence-parallel norm works on s*b/t rows */
    assert_rel(g->layer_fwd.op[0].bytes, 2.0 * 2.0 * 2048 * 12288 / 8, 1e-15);
    assert_int_equal(count_coll(&g->first_bwd, COLL_ALLGATHER), 1);
    free(g);
}

static void test_llama_shapes(void **state)
{
    (void)state;
    Model m = llama2(80, 8192, 64, 8, 28672);
    GraphParams p = params(8, 1, 1, RECOMPUTE_NONE);
    Graph *g = build_ok(&m, &p);
    /* (h + 2 kv h/a)/t */
    assert_int_equal(find_op(&g->layer_fwd, "qkv")->n, (8192 + 2 * 8 * 128) / 8);
    assert_int_equal(find_op(&g->layer_fwd, "mlp_up")->n, 2 * 28672 / 8);
    assert_int_equal(find_op(&g->layer_fwd, "mlp_down")->k, 28672 / 8);
    find_op(&g->layer_fwd, "swiglu");
    find_op(&g->layer_fwd, "rope");
    Graph *g8 = g;

    /* tp = 16 > kv = 8: each shard holds one replicated kv head */
    p = params(16, 1, 1, RECOMPUTE_NONE);
    g = build_ok(&m, &p);
    assert_int_equal(find_op(&g->layer_fwd, "qkv")->n, (64 / 16 + 2) * 128);
    assert_rel(g->model_flops_per_sample, g8->model_flops_per_sample, 1e-12);
    /* hardware: the vocab padded to 32768 (a multiple of 128*8 and of
     * 128*16), and at t = 16 the K and V columns computed twice: 2048 extra
     * qkv columns over the group, forward + backward = 6 s h per column */
    double s = 4096, h = 8192;
    assert_rel(g8->hw_flops_per_sample - g8->model_flops_per_sample, 6.0 * s * h * (32768.0 - 32000.0), 1e-9);
    assert_rel(g->hw_flops_per_sample - g8->hw_flops_per_sample, 80 * 6.0 * s * h * 2048, 1e-9);
    free(g);
    free(g8);
}

/* head_dim: heads whose width is not hidden / heads (Qwen3, Gemma): the
 * queries and the attention output span heads x head_dim.  Qwen3-0.6B
 * (28 layers, hidden 1024, 16 heads of 128, 8 kv heads, ffn 3072; its
 * model card: 0.44 B parameters without the embedding; the per-head q/k
 * norms, 256 a layer, are not modelled); head_dim = hidden / heads changes
 * nothing. */
static void test_head_dim(void **state)
{
    (void)state;
    Model m = llama2(28, 1024, 16, 8, 3072);
    m.head_dim = 128;
    m.vocab = 151936;
    m.tied_embeddings = 1;
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    Graph *g = build_ok(&m, &p);
    assert_int_equal(find_op(&g->layer_fwd, "qkv")->n, (16 + 2 * 8) * 128);
    assert_int_equal(find_op(&g->layer_fwd, "proj")->k, 16 * 128);
    assert_int_equal(find_op(&g->layer_fwd, "proj")->n, 1024);
    const double per_layer = 2.0 * 1024 * 2048 + 2.0 * 1024 * 1024 + 3.0 * 1024 * 3072 + 2.0 * 1024;
    assert_rel(g->params_per_layer, per_layer, 1e-15);
    const double body = g->params_total - g->params_embedding - g->params_head;
    print_message("qwen3-0.6b: %.1f M parameters without the embedding\n", body / 1e6);
    assert_rel(body, 0.44e9, 2e-3);
    free(g);

    Model a = llama2(32, 4096, 32, 8, 14336), b = a;
    b.head_dim = 128;
    Graph *ga = build_ok(&a, &p), *gb = build_ok(&b, &p);
    assert_rel(gb->params_total, ga->params_total, 1e-15);
    assert_rel(gb->model_flops_per_sample, ga->model_flops_per_sample, 1e-15);
    assert_rel(gb->hw_flops_per_sample, ga->hw_flops_per_sample, 1e-15);
    free(ga);
    free(gb);
}

/* PyTorch's per-op selective recompute (torchtitan): the layer keeps its
 * input, the outputs of q, v, w1 and w2 (every second matmul is redone) and
 * the attention's output and row statistics; it redoes k, o and w3 with the
 * norms, rotary and activations, never the attention. */
static void test_selective_per_op(void **state)
{
    (void)state;
    Model m = llama2(32, 4096, 32, 8, 14336);
    m.attention = ATTN_FUSED;
    GraphParams p = params(1, 0, 2, RECOMPUTE_SELECTIVE);
    Graph *meg = build_ok(&m, &p);
    p.sel_per_op = 1;
    Graph *g = build_ok(&m, &p);
    const double s = 4096, b = 2, h = 4096, kv = 1024, f = 14336, e = 2;
    const double kept = s * b * h * e + s * b * (h + kv + f + h + h) * e + b * 32 * s * 4.0;
    assert_rel(g->act_bytes_per_layer, kept, 1e-12);
    assert_true(g->act_bytes_per_layer < 0.5 * meg->act_bytes_per_layer);
    /* k (1024 of the 6144 qkv columns), o and w3: 2 s b h (kv + h + f) FLOPs */
    assert_rel(graph_gemm_flops(&g->layer_recompute), 2.0 * s * b * h * (kv + h + f), 1e-12);
    for (int i = 0; i < g->layer_recompute.n; i++)
        assert_true(strncmp(g->layer_recompute.op[i].name, "attn.", 5) != 0);
    assert_non_null(find_op(&g->layer_recompute, "ln1"));
    assert_non_null(find_op(&g->layer_recompute, "swiglu"));
    assert_int_equal(count_kind(&g->layer_recompute, OP_COMM), 0); /* no tensor parallelism */
    free(meg);
    free(g);

    /* With sequence parallelism the policy keeps the reduce-scatters, not
     * the all-gathers: backward gathers the attention's and the MLP's
     * inputs again, at the forward's size; full recompute redoes all four */
    GraphParams q = params(8, 1, 2, RECOMPUTE_SELECTIVE);
    q.sel_per_op = 1;
    Graph *t = build_ok(&m, &q);
    assert_int_equal(count_coll(&t->layer_recompute, COLL_ALLGATHER), 2);
    assert_int_equal(count_coll(&t->layer_recompute, COLL_REDUCESCATTER), 0);
    assert_rel(find_op(&t->layer_recompute, "ln1.allgather")->comm_bytes,
               find_op(&t->layer_fwd, "ln1.allgather")->comm_bytes, 1e-15);
    assert_rel(find_op(&t->layer_recompute, "ln2.allgather")->comm_bytes,
               find_op(&t->layer_fwd, "ln2.allgather")->comm_bytes, 1e-15);
    q.sel_per_op = 0; /* Megatron's selective: the attention core alone */
    Graph *tm = build_ok(&m, &q);
    assert_int_equal(count_kind(&tm->layer_recompute, OP_COMM), 0);
    q.recompute = RECOMPUTE_FULL;
    Graph *tf = build_ok(&m, &q);
    assert_int_equal(count_coll(&tf->layer_recompute, COLL_ALLGATHER), 2);
    assert_int_equal(count_coll(&tf->layer_recompute, COLL_REDUCESCATTER), 2);
    free(t);
    free(tm);
    free(tf);
}

/* A SwiGLU's gate and up projections as two GEMMs (torchtitan's w1 and
 * w3): the same FLOPs in two ops of f columns, each reading the input;
 * under fp8 eager PyTorch casts the input for each, a compiled stack once;
 * the two input gradients summed by a kernel of its own in eager PyTorch;
 * per-op recompute redoes w3 whole and keeps w1 (the same columns as half
 * of the fused GEMM). */
static void test_split_gate_up(void **state)
{
    (void)state;
    Model m = llama2(32, 4096, 32, 8, 14336);
    GraphParams p = params(1, 0, 2, RECOMPUTE_SELECTIVE);
    p.sel_per_op = 1;
    Graph *f = build_ok(&m, &p);
    p.split_gate_up = 1;
    Graph *g = build_ok(&m, &p);
    const double rows = 4096.0 * 2, h = 4096;
    const Op *up = find_op(&f->layer_fwd, "mlp_up");
    const Op *gate = find_op(&g->layer_fwd, "mlp_gate"), *up2 = find_op(&g->layer_fwd, "mlp_up");
    assert_int_equal(up->n, 2 * 14336);
    assert_int_equal(gate->n, 14336);
    assert_int_equal(up2->n, 14336);
    assert_rel(gate->flops + up2->flops, up->flops, 1e-12);
    assert_rel(gate->bytes + up2->bytes - up->bytes, rows * h * 2.0, 1e-12); /* the input read twice */
    assert_rel(graph_gemm_flops(&g->layer_fwd), graph_gemm_flops(&f->layer_fwd), 1e-12);
    assert_rel(graph_gemm_flops(&g->layer_bwd), graph_gemm_flops(&f->layer_bwd), 1e-12);
    assert_non_null(find_op(&g->layer_bwd, "mlp_gate.dgrad"));
    assert_non_null(find_op(&g->layer_bwd, "mlp_gate.wgrad"));
    assert_int_equal(find_op(&g->layer_bwd, "mlp_up.wgrad")->n, 14336);
    assert_false(has_op(&g->layer_bwd, "mlp_up.dgrad.sum")); /* compiled: in the norm's backward */
    /* per-op recompute: w3 whole (f columns), w1 kept: the fused GEMM's half */
    assert_false(has_op(&g->layer_recompute, "mlp_gate"));
    assert_int_equal(find_op(&g->layer_recompute, "mlp_up")->n, 14336);
    assert_rel(graph_gemm_flops(&g->layer_recompute), graph_gemm_flops(&f->layer_recompute), 1e-12);
    p.unfused = 1; /* eager: the two input gradients added by a kernel */
    Graph *e = build_ok(&m, &p);
    assert_rel(find_op(&e->layer_bwd, "mlp_up.dgrad.sum")->bytes, 3.0 * rows * h * 2.0, 1e-12);
    /* fp8: eager casts the input for each linear, a compiled stack once */
    p.recompute = RECOMPUTE_NONE;
    p.precision = PREC_FP8;
    p.quant_casts = 1;
    p.quant_current = 1;
    Graph *qe = build_ok(&m, &p);
    p.unfused = 0;
    Graph *qc = build_ok(&m, &p);
    p.split_gate_up = 0;
    Graph *qf = build_ok(&m, &p);
    const double in = find_op(&qf->layer_fwd, "mlp_up.quant")->bytes;
    assert_rel(find_op(&qc->layer_fwd, "mlp_up.quant")->bytes, in, 1e-12);
    assert_false(has_op(&qc->layer_fwd, "mlp_gate.quant"));
    assert_non_null(find_op(&qe->layer_fwd, "mlp_gate.quant"));
    assert_rel(find_op(&qc->layer_bwd, "mlp_gate.bwd.quant")->bytes +
                   find_op(&qc->layer_bwd, "mlp_up.bwd.quant")->bytes,
               find_op(&qf->layer_bwd, "mlp_up.bwd.quant")->bytes, 1e-12);
    free(qf);
    free(qc);
    free(qe);
    free(e);
    free(g);
    free(f);
}

/* The loss op by op (Megatron's vocab_parallel_cross_entropy on
 * logits.float(), torchtitan's F.cross_entropy on upcast logits) moves 36 + e
 * bytes a logit forward and 12 + e backward, against the fused kernel's
 * e + 8 and 4 + e; the fp32 copy lies beside the subtracted tensor on the
 * last stage (4 bytes a logit more).  Nothing else changes. */
static void test_unfused_cross_entropy(void **state)
{
    (void)state;
    Model m = llama2(32, 4096, 32, 8, 14336);
    GraphParams p = params(2, 1, 2, RECOMPUTE_NONE);
    Graph *f = build_ok(&m, &p);
    p.unfused_xent = 1;
    Graph *u = build_ok(&m, &p);
    const Op *head = find_op(&f->last_fwd, "head");
    const double logits = (double)head->m * (double)head->n, e = 2;
    assert_rel(logits, 4096.0 * 2 * 32000 / 2, 1e-15); /* 32,000 is a multiple of 128 x 2 */
    assert_rel(find_op(&f->last_fwd, "xent")->bytes, logits * (e + 8), 1e-15);
    assert_rel(find_op(&f->last_bwd, "xent.bwd")->bytes, logits * (4 + e), 1e-15);
    assert_rel(find_op(&u->last_fwd, "xent")->bytes, logits * (36 + e), 1e-15);
    assert_rel(find_op(&u->last_bwd, "xent.bwd")->bytes, logits * (12 + e), 1e-15);
    assert_rel(u->act_bytes_last - f->act_bytes_last, 4.0 * logits, 1e-12);
    assert_rel(graph_gemm_flops(&u->last_fwd), graph_gemm_flops(&f->last_fwd), 1e-15);
    assert_rel(u->act_bytes_per_layer, f->act_bytes_per_layer, 1e-15);
    free(f);
    free(u);
}

/* Sliding-window attention (attention_window): a query block meets the key
 * blocks its window reaches and the diagonal one, (128 / 128 + 1) x 128 =
 * 256 keys for a 128-token window; on half the layers (GPT-OSS alternates)
 * the one layer graph carries the average; a window as long as the
 * sequence changes nothing. */
static void test_sliding_window(void **state)
{
    (void)state;
    Model m = llama2(36, 2880, 64, 8, 2880);
    m.head_dim = 64;
    m.attention = ATTN_FUSED;
    m.causal = 1;
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    Graph *full = build_ok(&m, &p);
    const int64_t causal = find_op(&full->layer_fwd, "attn.qk")->n;
    m.window = 128;
    m.window_layers = 1.0;
    Graph *all = build_ok(&m, &p);
    assert_int_equal(find_op(&all->layer_fwd, "attn.qk")->n, 256);
    m.window_layers = 0.5;
    Graph *half = build_ok(&m, &p);
    assert_int_equal(find_op(&half->layer_fwd, "attn.qk")->n, (causal + 256 + 1) / 2);
    /* model FLOPs: the attention term over the keys a query meets */
    const double s = 4096, qw = 64.0 * 64;
    assert_rel(full->model_flops_per_sample - half->model_flops_per_sample,
               3.0 * 36 * 4.0 * s * (0.5 * (s - 128)) * qw, 1e-12);
    m.window = 4096;
    Graph *same = build_ok(&m, &p);
    assert_rel(same->model_flops_per_sample, full->model_flops_per_sample, 1e-15);
    assert_int_equal(find_op(&same->layer_fwd, "attn.qk")->n, causal);
    free(full);
    free(all);
    free(half);
    free(same);
}

/* Fine-grained experts, four layers of Qwen3-30B-A3B's shape: 128 experts
 * of 768, top-8, balanced. */
static Model fine_experts(void)
{
    Model m = llama2(4, 2048, 32, 4, 768);
    m.head_dim = 128;
    m.experts = 128;
    m.experts_per_token = 8;
    m.expert_ffn = 768;
    m.expert_imbalance = 1.0;
    return m;
}

/* The experts' GEMMs run one expert after another (a GEMM per local
 * expert), so the graph carries one expert's shape repeated E / ep times:
 * the FLOPs are those of the whole batch. */
static void test_expert_gemms(void **state)
{
    (void)state;
    Model m = fine_experts();
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    p.ep = 8;
    Graph *g = build_ok(&m, &p);
    const Op *up = find_op(&g->layer_fwd, "expert_up");
    assert_int_equal(up->batch, 1);
    assert_int_equal(op_runs(up), 128 / 8);
    /* each of the 16 local experts takes 4096 x 8 / 16 token rows */
    assert_int_equal(up->m, 4096 * 8 / 16);
    assert_rel(up->flops * op_runs(up), 2.0 * 4096 * 8 * 2 * 768 * 2048, 1e-12);
    free(g);
}

/* A mixture of experts under the per-op policy (torchtitan's DeepSeek-V3
 * and Qwen3 recipes): the router's scores kept, the token path redone, its
 * grouped GEMMs in full and its all-to-alls with them; what is kept is the
 * attention's (as test_selective_per_op) and E router scores a token. */
static void test_selective_per_op_moe(void **state)
{
    (void)state;
    Model x = fine_experts();
    x.attention = ATTN_FUSED;
    GraphParams pe = params(1, 0, 2, RECOMPUTE_SELECTIVE);
    pe.ep = 8;
    pe.sel_per_op = 1;
    Graph *xm = build_ok(&x, &pe);
    const double b = 2, e = 2, xs = 4096, xh = 2048, xq = 32 * 128, xkv = 4 * 128;
    const double xkept = xs * b * xh * e + xs * b * (xq + xkv + 128 + xq) * e + b * 32 * xs * 4.0;
    assert_rel(xm->act_bytes_per_layer, xkept, 1e-12);
    const Op *up_f = find_op(&xm->layer_fwd, "expert_up"), *up_r = find_op(&xm->layer_recompute, "expert_up");
    assert_non_null(up_r);
    assert_rel(up_r->flops * op_runs(up_r), up_f->flops * op_runs(up_f), 1e-12);
    assert_non_null(find_op(&xm->layer_recompute, "moe.dispatch"));
    assert_non_null(find_op(&xm->layer_recompute, "moe.combine"));
    assert_non_null(find_op(&xm->layer_recompute, "moe.d2h"));
    assert_null(lookup_op(&xm->layer_recompute, "router"));
    /* a save list that keeps the all-to-alls' outputs and the split sizes'
     * host copy (torchtitan from September 2025): no exchange and no host
     * wait in the recompute, the token path's kernels still redone; their
     * memory is not charged (measured far below the received tokens) */
    pe.sel_saves_a2a = 1;
    Graph *xs_ = build_ok(&x, &pe);
    for (int i = 0; i < xs_->layer_recompute.n; i++) {
        const Op *op = &xs_->layer_recompute.op[i];
        assert_false(op->kind == OP_COMM && op->group == GROUP_EP);
        assert_false(op->sync);
    }
    assert_null(lookup_op(&xs_->layer_recompute, "moe.d2h"));
    assert_non_null(find_op(&xs_->layer_recompute, "moe.permute"));
    assert_rel(op_runs(find_op(&xs_->layer_recompute, "expert_up")), op_runs(up_r), 1e-12);
    assert_rel(xs_->act_bytes_per_layer, xm->act_bytes_per_layer, 1e-15);
    /* the same list where nothing is exchanged (ep 1) */
    pe.ep = 1;
    Graph *one = build_ok(&x, &pe);
    pe.sel_saves_a2a = 0;
    Graph *one0 = build_ok(&x, &pe);
    assert_rel(one->act_bytes_per_layer, one0->act_bytes_per_layer, 1e-15);
    assert_int_equal(one->layer_recompute.n, one0->layer_recompute.n);
    free(one);
    free(one0);
    free(xs_);
    free(xm);
}

/* torchtitan weighs a mixture of experts' routed outputs by their scores in
 * kernels of its own before the scatter-add (GraphParams.moe_score_apart):
 * n = tokens x top-k x hidden elements.  Compiled one pass each way (2e,
 * 3e back); eager an fp32 cast up and down around the multiply (e + 4 and
 * 8 bytes an element, 8 + 8 for the multiply's two gradients) and the fp32
 * copy kept for the backward; with DeepEP one 16-bit multiply, before the
 * unpermute rather than after the combine.  Without the key nothing. */
static int op_at(const OpList *l, const char *name)
{
    const Op *op = lookup_op(l, name);
    return op ? (int)(op - l->op) : -1;
}

static void test_moe_score_apart(void **state)
{
    (void)state;
    Model m = fine_experts();
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    p.ep = 8;
    Graph *g0 = build_ok(&m, &p);
    for (int i = 0; i < g0->layer_fwd.n; i++)
        assert_null(strstr(g0->layer_fwd.op[i].name, "moe.score"));
    for (int i = 0; i < g0->layer_bwd.n; i++)
        assert_null(strstr(g0->layer_bwd.op[i].name, "moe.score"));
    const double n = 4096.0 * 8 * 2048, e = find_op(&g0->layer_fwd, "moe.unpermute")->bytes / (2.0 * n);
    assert_true(e == 2.0);
    p.moe_score_apart = 1;
    Graph *g = build_ok(&m, &p); /* compiled */
    const Op *f = find_op(&g->layer_fwd, "moe.score"), *b = find_op(&g->layer_bwd, "moe.score.bwd");
    assert_rel(f->bytes, 2.0 * e * n, 1e-12);
    assert_rel(f->flops, n, 1e-12);
    assert_rel(b->bytes, 3.0 * e * n, 1e-12);
    assert_true(op_at(&g->layer_fwd, "moe.combine") < op_at(&g->layer_fwd, "moe.score") &&
                op_at(&g->layer_fwd, "moe.score") < op_at(&g->layer_fwd, "moe.unpermute"));
    assert_rel(g->act_bytes_per_layer - g0->act_bytes_per_layer, n * e, 1e-9);
    p.unfused = 1; /* eager */
    Graph *ge = build_ok(&m, &p);
    p.moe_score_apart = 0;
    Graph *ge0 = build_ok(&m, &p);
    const Op *cast = find_op(&ge->layer_fwd, "moe.score.cast"),
             *mul = find_op(&ge->layer_fwd, "moe.score.mul");
    assert_int_equal(op_runs(cast), 2);
    assert_rel(cast->bytes, n * (e + 4.0), 1e-12);
    assert_rel(mul->bytes, 8.0 * n, 1e-12);
    assert_int_equal(op_runs(find_op(&ge->layer_bwd, "moe.score.cast.bwd")), 2);
    assert_rel(find_op(&ge->layer_bwd, "moe.score.mul.bwd")->bytes, 16.0 * n, 1e-12);
    assert_rel(ge->act_bytes_per_layer - ge0->act_bytes_per_layer, n * 4.0, 1e-9);
    p.moe_score_apart = 1;
    p.fused_dispatch = 1; /* DeepEP, eager */
    Graph *gd = build_ok(&m, &p);
    f = find_op(&gd->layer_fwd, "moe.score");
    assert_int_equal(op_runs(f), 1);
    assert_rel(f->bytes, 2.0 * e * n, 1e-12);
    assert_int_equal(op_runs(find_op(&gd->layer_bwd, "moe.score.bwd")), 2);
    assert_true(op_at(&gd->layer_fwd, "moe.score") < op_at(&gd->layer_fwd, "moe.unpermute") &&
                op_at(&gd->layer_fwd, "moe.unpermute") < op_at(&gd->layer_fwd, "moe.combine"));
    assert_null(lookup_op(&gd->layer_fwd, "moe.score.cast"));
    free(gd);
    free(ge0);
    free(ge);
    free(g);
    free(g0);
}

/* A mixture of experts' token path as PyTorch's indexing runs it
 * (torchtitan): each gather's gradient and a scatter_add combine are
 * accumulating scatters (Op.scatter); the padded re-sort by expert for
 * torch._grouped_mm copies the tokens twice and runs even without expert
 * parallelism; Megatron-Core's fused kernels and its re-sort by chunks
 * accumulate nothing. */
static void test_moe_index_scatters(void **state)
{
    (void)state;
    Model m = fine_experts();
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    p.ep = 8;
    const double pairs = 4096.0 * 8 * 2048 * 2.0; /* tokens x top-k x hidden, 2 bytes */
    Graph *g0 = build_ok(&m, &p);                 /* fused, chunks, gather */
    const char *scattered[] = {"moe.unpermute", "moe.sort.bwd", "moe.permute.bwd"};
    for (int i = 0; i < 3; i++) {
        const OpList *l = i ? &g0->layer_bwd : &g0->layer_fwd;
        assert_int_equal(find_op(l, scattered[i])->scatter, 0);
    }
    assert_rel(find_op(&g0->layer_fwd, "moe.sort")->bytes, 2.0 * pairs, 1e-12);
    p.moe_index_permute = 1;
    p.moe_scatter_combine = 1;
    p.moe_sort = SORT_INDEX;
    Graph *g = build_ok(&m, &p);
    assert_int_equal(find_op(&g->layer_fwd, "moe.unpermute")->scatter, 1);
    assert_int_equal(find_op(&g->layer_bwd, "moe.sort.bwd")->scatter, 1);
    assert_int_equal(find_op(&g->layer_bwd, "moe.permute.bwd")->scatter, 1);
    assert_rel(find_op(&g->layer_bwd, "moe.permute.bwd")->bytes, 2.0 * pairs, 1e-12);
    /* the gathers forward and the scatters back to token order without
     * accumulation are streamed */
    assert_int_equal(find_op(&g->layer_fwd, "moe.permute")->scatter, 0);
    assert_int_equal(find_op(&g->layer_fwd, "moe.sort")->scatter, 0);
    assert_int_equal(find_op(&g->layer_fwd, "moe.unsort")->scatter, 0);
    assert_int_equal(find_op(&g->layer_bwd, "moe.unpermute.bwd")->scatter, 0);
    assert_rel(find_op(&g->layer_fwd, "moe.sort")->bytes, 2.0 * pairs, 1e-12);
    p.moe_sort = SORT_INDEX_PADDED; /* a zero row appended by a copy, then the gather */
    Graph *gp = build_ok(&m, &p);
    assert_rel(find_op(&gp->layer_fwd, "moe.sort")->bytes, 4.0 * pairs, 1e-12);
    assert_int_equal(find_op(&gp->layer_bwd, "moe.sort.bwd")->scatter, 1);
    p.ep = 1; /* padded even without expert parallelism; the plain sorts only with it */
    Graph *g1 = build_ok(&m, &p);
    assert_non_null(lookup_op(&g1->layer_fwd, "moe.sort"));
    assert_int_equal(find_op(&g1->layer_bwd, "moe.sort.bwd")->scatter, 1);
    p.moe_sort = SORT_INDEX;
    Graph *g1i = build_ok(&m, &p);
    assert_null(lookup_op(&g1i->layer_fwd, "moe.sort"));
    assert_null(lookup_op(&g1i->layer_bwd, "moe.sort.bwd"));
    p.ep = 8; /* DeepEP: no re-sort; its permutation's gradient and combine as the stack runs them */
    p.fused_dispatch = 1;
    Graph *gd = build_ok(&m, &p);
    assert_null(lookup_op(&gd->layer_fwd, "moe.sort"));
    assert_int_equal(find_op(&gd->layer_fwd, "moe.unpermute")->scatter, 1);
    assert_int_equal(find_op(&gd->layer_bwd, "moe.permute.bwd")->scatter, 1);
    free(gd);
    free(g1i);
    free(g1);
    free(gp);
    free(g);
    free(g0);
}

/* The routing imbalance loads the busiest expert-parallel rank's experts:
 * with ep 8 their rows grow by it (at most the capacity); with one rank
 * holding every expert the rank takes every pair whatever the routing. */
static void test_expert_imbalance(void **state)
{
    (void)state;
    Model m = fine_experts();
    m.expert_imbalance = 1.5;
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    p.ep = 8;
    Graph *g8 = build_ok(&m, &p);
    assert_int_equal(find_op(&g8->layer_fwd, "expert_up")->m, (int64_t)ceil(4096.0 * 8 / 16 * 1.5));
    m.capacity_factor = 1.25; /* token dropping caps it */
    Graph *gc = build_ok(&m, &p);
    assert_int_equal(find_op(&gc->layer_fwd, "expert_up")->m, (int64_t)ceil(4096.0 * 8 / 16 * 1.25));
    m.capacity_factor = 0;
    p.ep = 1;
    Graph *g1 = build_ok(&m, &p);
    m.expert_imbalance = 1.0;
    Graph *b1 = build_ok(&m, &p);
    assert_int_equal(find_op(&g1->layer_fwd, "expert_up")->m, 4096 * 8 / 128);
    assert_rel(graph_gemm_flops(&g1->layer_fwd), graph_gemm_flops(&b1->layer_fwd), 1e-12);
    free(b1);
    free(g1);
    free(gc);
    free(g8);
}

/* Where each op sits for CUDA graphs (Op.scope): a dropless mixture of
 * experts' token path, forward, backward and recomputed, and the embedding,
 * head and loss outside the layers' graphs; the router (and its gradients)
 * its own scope; attention and norms the layer's.  With a capacity the
 * token path's shapes are fixed: the layer's. */
static void test_graph_scope(void **state)
{
    (void)state;
    Model m = fine_experts();
    GraphParams p = params(1, 0, 1, RECOMPUTE_FULL);
    p.ep = 8;
    Graph *g = build_ok(&m, &p);
    /* the token path from the counts' host copies to the combine: no graph
     * captures it; the host waits for the counts before the dispatch */
    const char *tokens[] = {"moe.d2h",     "moe.dispatch", "moe.sort",    "expert_up",
                            "expert_down", "moe.unsort",   "moe.combine", "moe.unpermute"};
    for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
        assert_int_equal(find_op(&g->layer_fwd, tokens[i])->scope, SCOPE_OUTSIDE);
        assert_int_equal(find_op(&g->layer_recompute, tokens[i])->scope, SCOPE_OUTSIDE);
    }
    assert_int_equal(find_op(&g->layer_fwd, "moe.dispatch")->sync, 1);
    assert_int_equal(find_op(&g->layer_fwd, "moe.permute")->sync, 0);
    /* a rank's 16 experts: one grouped GEMM call launching 16 kernels */
    assert_int_equal(find_op(&g->layer_fwd, "expert_up")->repeat, 16);
    assert_int_equal(find_op(&g->layer_fwd, "expert_up")->grouped, 1);
    assert_int_equal(find_op(&g->layer_bwd, "expert_down.wgrad")->grouped, 1);
    assert_int_equal(find_op(&g->layer_fwd, "router.aux")->repeat, 7);
    assert_int_equal(find_op(&g->layer_bwd, "expert_up.wgrad")->scope, SCOPE_OUTSIDE);
    assert_int_equal(find_op(&g->layer_bwd, "moe.dispatch.bwd")->scope, SCOPE_OUTSIDE);
    /* the router and the all-to-all dispatcher's preprocessing, up to the
     * permutation: what moe_router and moe_preprocess graphs capture */
    const char *router[] = {"router",     "router.topk",          "router.aux",
                            "moe.counts", "moe.counts.allgather", "moe.permute.map",
                            "moe.permute"};
    for (size_t i = 0; i < sizeof router / sizeof router[0]; i++)
        assert_int_equal(find_op(&g->layer_fwd, router[i])->scope, SCOPE_ROUTER);
    assert_int_equal(find_op(&g->layer_recompute, "router")->scope, SCOPE_ROUTER);
    assert_int_equal(find_op(&g->layer_bwd, "router.wgrad")->scope, SCOPE_ROUTER);
    assert_int_equal(find_op(&g->layer_bwd, "router.aux.bwd")->scope, SCOPE_ROUTER);
    assert_int_equal(find_op(&g->layer_fwd, "qkv")->scope, SCOPE_LAYER);
    assert_int_equal(find_op(&g->layer_fwd, "proj")->scope, SCOPE_LAYER);
    assert_int_equal(find_op(&g->layer_bwd, "qkv.dgrad")->scope, SCOPE_LAYER);
    const OpList *outside[] = {&g->first_fwd, &g->first_bwd, &g->last_fwd, &g->last_bwd};
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        assert_true(outside[i]->n > 0);
        for (int j = 0; j < outside[i]->n; j++)
            assert_int_equal(outside[i]->op[j].scope, SCOPE_OUTSIDE);
    }
    free(g);

    /* DeepEP permutes what it received: after the dispatch, outside */
    p.fused_dispatch = 1;
    g = build_ok(&m, &p);
    assert_int_equal(find_op(&g->layer_fwd, "moe.permute")->scope, SCOPE_OUTSIDE);
    assert_int_equal(find_op(&g->layer_fwd, "moe.dispatch.layout")->scope, SCOPE_OUTSIDE);
    assert_int_equal(find_op(&g->layer_fwd, "moe.topk")->scope, SCOPE_ROUTER);
    assert_int_equal(find_op(&g->layer_fwd, "moe.dispatch")->sync, 1);
    assert_false(has_op(&g->layer_fwd, "moe.counts"));
    assert_false(has_op(&g->layer_fwd, "moe.sort"));
    free(g);
    p.fused_dispatch = 0;

    m.capacity_factor = 1.25;
    g = build_ok(&m, &p);
    for (size_t i = 2; i < sizeof tokens / sizeof tokens[0]; i++)
        assert_int_equal(find_op(&g->layer_fwd, tokens[i])->scope, SCOPE_LAYER);
    assert_false(has_op(&g->layer_fwd, "moe.d2h")); /* the sizes are known: nothing goes to the host */
    assert_int_equal(find_op(&g->layer_fwd, "moe.dispatch")->sync, 0);
    assert_int_equal(find_op(&g->layer_fwd, "router")->scope, SCOPE_ROUTER);
    free(g);

    /* without an all-to-all the host waits for the grouped GEMM's sizes at the permutation */
    m.capacity_factor = 0;
    p.ep = 1;
    g = build_ok(&m, &p);
    assert_int_equal(find_op(&g->layer_fwd, "moe.permute")->sync, 1);
    assert_false(has_op(&g->layer_fwd, "moe.dispatch"));
    free(g);
}

/* DeepSeek-V3 as published (DeepSeek-V3 report 2.1, 4.2; config.json): 61
 * layers, the first 3 dense, multi-head latent attention, one prediction
 * module.  The parameter count term by term, and 671 B for the main model
 * (the report's figure). */
static Model deepseek_v3(void)
{
    Model m = llama2(61, 7168, 128, 128, 18432);
    m.vocab = 129280;
    m.head_dim = 128;
    m.q_lora_rank = 1536;
    m.kv_lora_rank = 512;
    m.rope_head_dim = 64;
    m.v_head_dim = 128;
    m.experts = 256;
    m.experts_per_token = 8;
    m.expert_ffn = 2048;
    m.shared_experts = 1;
    m.dense_layers = 3;
    m.mtp_layers = 1;
    m.attention = ATTN_FUSED;
    return m;
}

/* DeepSeek-V3's layers, four of them, the first dense, no prediction module. */
static Model deepseek_v3_short(void)
{
    Model m = deepseek_v3();
    m.layers = 4;
    m.dense_layers = 1;
    m.mtp_layers = 0;
    return m;
}

/* FlexAttention stages a head at the next power of two of its width: a
 * latent attention's 192-wide query-key head computes as 256, its 128-wide
 * value head as 128; the bytes stay those of the real heads.  The other
 * fused kernels compute at the real widths. */
static void test_flex_head_padding(void **state)
{
    (void)state;
    Model m = deepseek_v3_short();
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    p.flash = FLASH_YES;
    Graph *g = build_ok(&m, &p);
    p.flash = FLASH_FLEX;
    Graph *gf = build_ok(&m, &p);
    const char *qk[] = {"attn.qk", "attn.qk.remat", "attn.qk.dgrad_q", "attn.qk.dgrad_k"};
    for (int i = 0; i < 4; i++) {
        const OpList *l = i ? &g->layer_bwd : &g->layer_fwd, *lf = i ? &gf->layer_bwd : &gf->layer_fwd;
        const Op *a = find_op(l, qk[i]), *b = find_op(lf, qk[i]);
        const int64_t w = i < 2 ? a->k : a->n, wf = i < 2 ? b->k : b->n;
        assert_int_equal(w, 192);
        assert_int_equal(wf, 256);
        assert_rel(b->flops, a->flops * 256.0 / 192.0, 1e-12);
        assert_rel(b->bytes, a->bytes, 1e-12);
    }
    assert_int_equal(find_op(&gf->layer_fwd, "attn.av")->n, 128);
    assert_rel(find_op(&gf->layer_fwd, "attn.av")->flops, find_op(&g->layer_fwd, "attn.av")->flops, 1e-12);
    free(gf);
    free(g);
}

static void test_deepseek_v3_params(void **state)
{
    (void)state;
    Model m = deepseek_v3();
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    Graph *g = build_ok(&m, &p);
    const double h = 7168, a = 128;
    const double attn = h * 1536 + 1536 * a * 192 + h * 576 + 512 * a * 256 + a * 128 * h + 1536 + 512;
    const double one = 3.0 * h * 2048;
    const double moe = attn + 256 * one + one + 256 * h + 2 * h, dense = attn + 3.0 * h * 18432 + 2 * h;
    const double main = 58 * moe + 3 * dense + 2 * 129280 * h + h;
    const double mtp = moe + 2 * h * h + 3 * h;
    assert_rel(g->params_total, main + mtp, 1e-12);
    assert_rel(g->params_mtp, mtp, 1e-12);
    assert_rel(g->params_expert_per_layer * 61, 58 * 256 * one, 1e-12);
    assert_true(fabs(main / 671e9 - 1) < 0.002);
    assert_int_equal(g->layers, 61);
    assert_int_equal(g->layers_dense, 3);
    free(g);
}

/* A mixed model is the weighted sum of its all-MoE and all-dense forms:
 * parameters, model FLOPs and hardware FLOPs per layer; every other layer
 * MoE (moe_every 2) halves the MoE layers. */
static void test_dense_moe_mix(void **state)
{
    (void)state;
    Model mix = llama2(8, 2048, 16, 4, 8192);
    mix.experts = 16;
    mix.experts_per_token = 2;
    mix.expert_ffn = 1024;
    mix.moe_every = 2;
    Model all_moe = mix, all_dense = mix;
    all_moe.moe_every = 1;
    all_dense.experts = 0;
    all_dense.moe_every = 1;
    GraphParams p = params(2, 1, 1, RECOMPUTE_SELECTIVE);
    Graph *g = build_ok(&mix, &p), *gm = build_ok(&all_moe, &p), *gd = build_ok(&all_dense, &p);
    assert_int_equal(g->layers_dense, 4);
    assert_rel(g->params_total, 0.5 * (gm->params_total + gd->params_total), 1e-12);
    assert_rel(g->model_flops_per_sample, 0.5 * (gm->model_flops_per_sample + gd->model_flops_per_sample),
               1e-12);
    assert_rel(g->hw_flops_per_sample, 0.5 * (gm->hw_flops_per_sample + gd->hw_flops_per_sample), 1e-12);
    assert_rel(g->act_bytes_per_layer, 0.5 * (gm->act_bytes_per_layer + gd->act_bytes_per_layer), 1e-12);
    assert_int_equal(g->dense_fwd.n, gd->layer_fwd.n);
    mix.dense_layers = 2; /* 2 dense, then of 6 every other: 3 MoE */
    free(g);
    g = build_ok(&mix, &p);
    assert_int_equal(g->layers_dense, 5);
    free(g);
    free(gm);
    free(gd);
}

/* Latent attention under tp 2 with sequence parallelism: the down
 * projections run on the rank's own rows and the latent, not the hidden,
 * is gathered; the up projections split by head; the core's query-key
 * width is head_dim + rope_head_dim, its value width v_head_dim. */
static void test_latent_attention(void **state)
{
    (void)state;
    Model m = deepseek_v3();
    m.layers = 4;
    m.dense_layers = 1;
    GraphParams p = params(2, 1, 1, RECOMPUTE_NONE);
    Graph *g = build_ok(&m, &p);
    const OpList *f = &g->layer_fwd;
    assert_int_equal(find_op(f, "q_down")->m, 4096 / 2);
    assert_int_equal(find_op(f, "kv_down")->n, 512 + 64);
    assert_int_equal(find_op(f, "q_up")->n, 64 * 192);
    assert_int_equal(find_op(f, "kv_up")->n, 64 * 256);
    assert_int_equal(find_op(f, "attn.qk")->k, 192);
    assert_int_equal(find_op(f, "attn.av")->n, 128);
    assert_int_equal(find_op(f, "proj")->k, 64 * 128);
    assert_rel(find_op(f, "latent.allgather")->comm_bytes, 4096.0 * (1536 + 512 + 64) * 2, 1e-12);
    for (int i = 0; i < f->n; i++)
        assert_string_not_equal(f->op[i].name, "ln1.allgather");
    assert_rel(find_op(&g->layer_bwd, "latent.dgrad.reducescatter")->comm_bytes, 4096.0 * 2112 * 2, 1e-12);
    free(g);
}

/* One prediction module adds a MoE layer's parameters, a 2h x h projection
 * and three norms, and a layer's, the projection's and the head's FLOPs;
 * its ops other than the layer sit on the last stage's lists. */
static void test_multi_token_prediction(void **state)
{
    (void)state;
    Model m = deepseek_v3_short();
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    Graph *g0 = build_ok(&m, &p);
    m.layers = 5; /* one MoE layer more: its parameters and FLOPs */
    Graph *g1 = build_ok(&m, &p);
    m.layers = 4;
    m.mtp_layers = 2;
    Graph *g2 = build_ok(&m, &p);
    const double h = 7168, s = 4096, head = 2.0 * s * h * 129280;
    const double moe_params = g1->params_total - g0->params_total;
    const double moe_flops = g1->model_flops_per_sample - g0->model_flops_per_sample; /* 3 x forward */
    assert_rel(g2->params_total - g0->params_total, 2 * (moe_params + 2 * h * h + 3 * h), 1e-12);
    assert_rel(g2->params_mtp, 2 * (moe_params + 2 * h * h + 3 * h), 1e-12);
    assert_rel(g2->model_flops_per_sample - g0->model_flops_per_sample,
               2 * (moe_flops + 3.0 * (2.0 * s * 2 * h * h + head)), 1e-12);
    assert_int_equal(op_runs(find_op(&g2->last_fwd, "mtp.proj")), 2);
    assert_int_equal(op_runs(find_op(&g2->last_bwd, "mtp.proj.wgrad")), 2);
    assert_int_equal(op_runs(find_op(&g2->last_fwd, "head")), 1);
    assert_true(g2->act_bytes_last > g0->act_bytes_last);
    free(g0);
    free(g1);
    free(g2);
}

/* Eager PyTorch's element-wise kernels (fused_elementwise: no): a RMSNorm
 * moves 9x a fused one's bytes, the rotary embedding 5x, SwiGLU 10/6;
 * LayerNorm is one kernel in eager PyTorch too; GEMMs do not move. */
static void test_eager_elementwise(void **state)
{
    (void)state;
    Model m = llama2(32, 4096, 32, 8, 14336);
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    Graph *fused = build_ok(&m, &p);
    p.unfused = 1;
    Graph *eager = build_ok(&m, &p);
    assert_rel(find_op(&eager->layer_fwd, "ln1")->bytes, 9.0 * find_op(&fused->layer_fwd, "ln1")->bytes,
               1e-12);
    assert_rel(find_op(&eager->layer_bwd, "ln1.bwd")->bytes,
               9.0 * find_op(&fused->layer_bwd, "ln1.bwd")->bytes, 1e-12);
    assert_rel(find_op(&eager->layer_fwd, "rope")->bytes, 5.0 * find_op(&fused->layer_fwd, "rope")->bytes,
               1e-12);
    assert_rel(find_op(&eager->layer_fwd, "swiglu")->bytes,
               find_op(&fused->layer_fwd, "swiglu")->bytes * 10 / 6, 1e-12);
    assert_rel(graph_gemm_flops(&eager->layer_fwd), graph_gemm_flops(&fused->layer_fwd), 1e-15);
    free(fused);
    free(eager);
    Model g = gpt3_175b();
    p = params(8, 0, 1, RECOMPUTE_NONE);
    fused = build_ok(&g, &p);
    p.unfused = 1;
    eager = build_ok(&g, &p);
    assert_rel(find_op(&eager->layer_fwd, "ln1")->bytes, find_op(&fused->layer_fwd, "ln1")->bytes, 1e-15);
    free(fused);
    free(eager);
}

/* A stack that fuses its norms may run the rotary embedding or the
 * activation eagerly all the same (eager_rope, eager_act: NeMo AutoModel's
 * own rotary code beside Transformer Engine's RMSNorm): only that op takes
 * the eager traffic; with every element-wise op eager they change nothing. */
static double list_bytes(const OpList *l)
{
    double b = 0;
    for (int i = 0; i < l->n; i++)
        b += l->op[i].bytes * (l->op[i].repeat > 1 ? l->op[i].repeat : 1);
    return b;
}

static void test_eager_rope_activation(void **state)
{
    (void)state;
    Model m = llama2(32, 4096, 32, 8, 14336);
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    Graph *fused = build_ok(&m, &p);
    p.eager_rope = 1;
    Graph *rope = build_ok(&m, &p);
    assert_rel(find_op(&rope->layer_fwd, "rope")->bytes, 5.0 * find_op(&fused->layer_fwd, "rope")->bytes,
               1e-12);
    assert_rel(find_op(&rope->layer_fwd, "ln1")->bytes, find_op(&fused->layer_fwd, "ln1")->bytes, 1e-15);
    assert_rel(find_op(&rope->layer_fwd, "swiglu")->bytes, find_op(&fused->layer_fwd, "swiglu")->bytes,
               1e-15);
    p.eager_rope = 0;
    p.eager_act = 1;
    Graph *act = build_ok(&m, &p);
    assert_rel(find_op(&act->layer_fwd, "swiglu")->bytes,
               find_op(&fused->layer_fwd, "swiglu")->bytes * 10 / 6, 1e-12);
    assert_rel(find_op(&act->layer_fwd, "rope")->bytes, find_op(&fused->layer_fwd, "rope")->bytes, 1e-15);
    p.unfused = 1;
    Graph *all = build_ok(&m, &p);
    p.eager_act = 0;
    Graph *eager = build_ok(&m, &p);
    assert_rel(list_bytes(&all->layer_fwd), list_bytes(&eager->layer_fwd), 1e-15);
    free(fused);
    free(rope);
    free(act);
    free(all);
    free(eager);
}

static void test_vocab_padding(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    m.vocab = 50257;
    GraphParams p = params(8, 0, 1, RECOMPUTE_NONE);
    Graph *g = build_ok(&m, &p);
    assert_int_equal(find_op(&g->last_fwd, "head")->n, 51200 / 8); /* multiple of 128*8 */
    assert_rel(g->params_embedding, (50257.0 + 2048.0) * 12288, 1e-15);
    /* model FLOPs on the given vocab, hardware FLOPs on the padded one */
    assert_rel(g->model_flops_per_sample * 1, graph_megatron_flops(1, m.layers, m.hidden, m.vocab, m.seq_len),
               1e-9);
    assert_rel(g->hw_flops_per_sample - g->model_flops_per_sample, 6.0 * 2048 * 12288 * (51200.0 - 50257.0),
               1e-9);
    free(g);

    p = params(1, 0, 1, RECOMPUTE_NONE);
    g = build_ok(&m, &p);
    assert_int_equal(find_op(&g->last_fwd, "head")->n, 50304); /* multiple of 128 */
    free(g);
}

/* ---- activation memory ----------------------------------------------------- */

static void test_activations_korthikanti(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    double s = m.seq_len, h = m.hidden, a = m.heads, b = 2, t = 8;
    double sbh = s * b * h;

    GraphParams p = params(1, 0, 2, RECOMPUTE_NONE);
    Graph *g = build_ok(&m, &p);
    double no_par = sbh * (34.0 + 5.0 * a * s / h);
    print_message("gpt3-175b b=2 act/layer: t=1 %.6g B\n", g->act_bytes_per_layer);
    assert_rel(g->act_bytes_per_layer, no_par, 1e-12);
    assert_true(g->act_bytes_recompute_working == 0.0);
    free(g);

    p = params(8, 0, 2, RECOMPUTE_NONE);
    g = build_ok(&m, &p);
    assert_rel(g->act_bytes_per_layer, sbh * (10.0 + 24.0 / t + 5.0 * a * s / (h * t)), 1e-12);
    free(g);

    p = params(8, 1, 2, RECOMPUTE_NONE);
    g = build_ok(&m, &p);
    double tp_sp = sbh * (34.0 + 5.0 * a * s / h) / t;
    assert_rel(g->act_bytes_per_layer, tp_sp, 1e-12);
    free(g);

    p = params(8, 1, 2, RECOMPUTE_SELECTIVE);
    g = build_ok(&m, &p);
    assert_rel(g->act_bytes_per_layer, sbh * 34.0 / t, 1e-12);
    assert_rel(g->act_bytes_recompute_working, sbh * 5.0 * a * s / (h * t), 1e-12);
    free(g);

    p = params(8, 0, 2, RECOMPUTE_SELECTIVE);
    g = build_ok(&m, &p);
    assert_rel(g->act_bytes_per_layer, sbh * (10.0 + 24.0 / t), 1e-12);
    free(g);

    p = params(8, 1, 2, RECOMPUTE_FULL);
    g = build_ok(&m, &p);
    assert_rel(g->act_bytes_per_layer, 2.0 * sbh / t, 1e-12);
    assert_rel(g->act_bytes_recompute_working, tp_sp, 1e-12);
    free(g);

    p = params(8, 0, 2, RECOMPUTE_FULL);
    g = build_ok(&m, &p);
    assert_rel(g->act_bytes_per_layer, 2.0 * sbh, 1e-12);
    free(g);

    /* embedding dropout mask; head: norm + head inputs, fp32 + bf16 logits */
    p = params(8, 1, 2, RECOMPUTE_NONE);
    g = build_ok(&m, &p);
    assert_rel(g->act_bytes_first, sbh / t, 1e-12);
    assert_rel(g->act_bytes_last, 4.0 * sbh / t + s * b * (51200 / t) * 6.0, 1e-12);
    free(g);
}

/* A model trained without dropout (Llama, MPT) keeps no masks: 2 bytes a
 * sequence element less per layer (Korthikanti's 34 sbh becomes 32 sbh),
 * none for the embedding, and its residual adds are plain adds with no
 * backward kernel. */
static void test_no_dropout(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    const double s = m.seq_len, h = m.hidden, b = 2, t = 8, sbh = s * b * h;
    GraphParams p = params(8, 1, 2, RECOMPUTE_SELECTIVE);
    Graph *with = build_ok(&m, &p);
    m.dropout = 0;
    Graph *without = build_ok(&m, &p);
    assert_rel(with->act_bytes_per_layer, sbh * 34.0 / t, 1e-12);
    assert_rel(without->act_bytes_per_layer, sbh * 32.0 / t, 1e-12);
    assert_rel(with->act_bytes_first, sbh / t, 1e-12);
    assert_true(without->act_bytes_first == 0.0);
    assert_non_null(find_op(&with->layer_fwd, "dropout_residual1"));
    assert_non_null(find_op(&with->layer_bwd, "dropout_residual1.bwd"));
    assert_false(has_op(&without->layer_fwd, "dropout_residual1"));
    const Op *add = find_op(&without->layer_fwd, "residual1");
    assert_non_null(add);
    assert_rel(add->bytes, 3.0 * sbh / t * 2.0, 1e-12); /* branch and residual read, sum written */
    assert_false(has_op(&without->layer_bwd, "dropout_residual1.bwd"));
    assert_false(has_op(&without->first_fwd, "embed.dropout"));
    assert_true(has_op(&with->first_fwd, "embed.dropout"));
    free(with);
    free(without);
}

static void test_fused_attention(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    m.attention = ATTN_FUSED;
    double s = m.seq_len, h = m.hidden, a = m.heads, b = 2, t = 8, l = m.layers;
    double sbh = s * b * h;
    GraphParams p = params(8, 1, 2, RECOMPUTE_NONE);
    Graph *g = build_ok(&m, &p);
    /* no s*s term: only the fp32 row statistics, 4 b a/t s bytes */
    assert_rel(g->act_bytes_per_layer, sbh * 34.0 / t + 4.0 * b * a / t * s, 1e-12);
    const Op *qk = find_op(&g->layer_fwd, "attn.qk");
    const Op *av = find_op(&g->layer_fwd, "attn.av");
    assert_rel(qk->flops + av->flops, 4.0 * b * a / t * s * s * (h / a), 1e-15);
    assert_true(qk->bytes + av->bytes < b * a / t * s * s); /* no score traffic */
    for (int i = 0; i < g->layer_fwd.n; i++)
        assert_false(g->layer_fwd.op[i].comp == COMP_ATTENTION && g->layer_fwd.op[i].kind == OP_MEMBOUND);
    /* model FLOPs unchanged; hardware adds flash's QK^T remat in backward */
    assert_rel(g->model_flops_per_sample, graph_megatron_flops(1, 96, 12288, 51200, 2048), 1e-9);
    assert_rel(g->hw_flops_per_sample, g->model_flops_per_sample + l * 2.0 * s * s * h, 1e-12);
    free(g);

    p = params(8, 1, 2, RECOMPUTE_SELECTIVE);
    g = build_ok(&m, &p);
    assert_rel(g->act_bytes_per_layer, sbh * 34.0 / t, 1e-12);
    assert_int_equal(g->layer_recompute.n, 2);
    free(g);
}

static void test_activations_general(void **state)
{
    (void)state;
    /* fp32: 16 tensors of 4 bytes + 2 masks; s^2: 2 x 4 + 1 */
    Model m = gpt3_175b();
    double s = m.seq_len, h = m.hidden, a = m.heads;
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    p.precision = PREC_FP32;
    Graph *g = build_ok(&m, &p);
    assert_rel(g->act_bytes_per_layer, s * h * (66.0 + 9.0 * a * s / h), 1e-12);
    assert_int_equal(g->bytes_per_elem, 4);
    free(g);

    /* fp8: 1-byte GEMM inputs; the linear layers' saved inputs in fp8 (qkv
     * and mlp_up inputs 1 + 1, proj input 1, mlp_down input 4), the rest
     * 16-bit: 34 - 2 - 1 - 4 = 27 */
    p.precision = PREC_FP8;
    g = build_ok(&m, &p);
    /* the stages still exchange 16-bit hidden states (Megatron-Core's
     * pipeline_dtype is params_dtype; fp8 stays inside the GEMMs) */
    assert_int_equal(g->bytes_per_elem, 2);
    assert_rel(g->act_bytes_per_layer, s * h * (27.0 + 5.0 * a * s / h), 1e-12);
    const Op *qkv = find_op(&g->layer_fwd, "qkv");
    assert_rel(qkv->bytes, (s * h + h * 3 * h) * 1.0 + s * 3 * h * 2.0, 1e-15);
    free(g);

    /* SwiGLU + GQA (Llama-2-70B, t = 8, SP): tensor widths follow the shapes:
     * Q and proj input h/t each, K and V kv h/a / t each, gate + up + out 3f/t */
    Model ml = llama2(80, 8192, 64, 8, 28672);
    double ls = 4096, lh = 8192, lf = 28672, la = 64;
    p = params(8, 1, 1, RECOMPUTE_NONE);
    g = build_ok(&ml, &p);
    double widths = 2.0 * lh / 8 + 2.0 * 1024 / 8 + 3.0 * lf / 8;
    double want = ls * lh * 10.0 / 8 + ls * widths * 2.0 + 5.0 * la / 8 * ls * ls;
    print_message("llama-2-70b t=8 sp act/layer %.6g B (gpt formula would give %.6g)\n",
                  g->act_bytes_per_layer, ls * lh * (34.0 + 5.0 * la * ls / lh) / 8);
    assert_rel(g->act_bytes_per_layer, want, 1e-12);
    free(g);
}

/* ---- fp8 quantization kernels (Transformer Engine's cast_transpose) ------ */

/* Bytes of the list's ops whose names end in ".quant"; n: how many. */
static double quant_bytes(const OpList *l, int *n)
{
    double b = 0;
    *n = 0;
    for (int i = 0; i < l->n; i++) {
        const size_t len = strlen(l->op[i].name);
        if (len > 6 && !strcmp(l->op[i].name + len - 6, ".quant")) {
            b += l->op[i].bytes;
            (*n)++;
        }
    }
    return b;
}

/* The four quantizations of a layer's forward and of its backward: their
 * bytes (in units of s h) and the attention output's own. */
static void expect_quant(const Graph *g, double sh, double fwd, double proj, double bwd)
{
    int nf, nb;
    assert_rel(quant_bytes(&g->layer_fwd, &nf), fwd * sh, 1e-12);
    assert_int_equal(nf, 4);
    assert_rel(find_op(&g->layer_fwd, "proj.quant")->bytes, proj * sh, 1e-12);
    assert_rel(quant_bytes(&g->layer_bwd, &nb), bwd * sh, 1e-12);
    assert_int_equal(nb, 4);
}

static void test_fp8_quantize(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    const double s = m.seq_len, h = m.hidden;
    GraphParams p = params(1, 0, 1, RECOMPUTE_NONE);
    p.precision = PREC_FP8;
    p.quant_casts = 1;
    Graph *g = build_ok(&m, &p);
    int nf, nb;
    /* forward, e = 2, q = 1: qkv and mlp_up inputs fused into their norms
     * (3q - e = 1 byte), mlp_down's into GeLU (1 x 4h), proj's own kernel
     * (e + 2q = 4): s h (1 + 4 + 1 + 4); backward: output gradients of
     * mlp_down (h), proj (h) and qkv (3h) in kernels of their own (4
     * bytes), mlp_up's (4h) fused into GeLU's backward (1 byte): s h (4 + 4
     * + 12 + 4) */
    expect_quant(g, s * h, 10.0, 4.0, 24.0);
    free(g);

    /* full recompute replays the forward's quantization too */
    p.recompute = RECOMPUTE_FULL;
    g = build_ok(&m, &p);
    assert_rel(quant_bytes(&g->layer_recompute, &nf), 10.0 * s * h, 1e-12);
    free(g);
    p.recompute = RECOMPUTE_NONE;

    /* fp4 (q = 0.5625): fused casts cost nothing more (3q < e), the others
     * e + 2q = 3.125 bytes: proj in forward; mlp_down, proj, qkv backward */
    p.precision = PREC_FP4;
    g = build_ok(&m, &p);
    assert_rel(quant_bytes(&g->layer_fwd, &nf), 3.125 * s * h, 1e-12);
    assert_int_equal(nf, 1);
    assert_rel(quant_bytes(&g->layer_bwd, &nb), 3.125 * s * h * 5.0, 1e-12);
    assert_int_equal(nb, 3);
    free(g);

    /* current scaling (TE's Float8CurrentScaling, torchao's dynamic
     * tensorwise): the norm or activation that produces an operand writes
     * it in e bytes and takes its amax, a cast reads it and writes both
     * copies (e + 2q = 4); an operand from a GEMM or the attention needs a
     * pass for its amax first (2e + 2q = 6).  Forward: s h (4 + 4 + 16 +
     * 6); backward: mlp_down, proj and qkv gradients 6 a byte of e, mlp_up's
     * from GeLU's backward 4: s h (6 + 6 + 18 + 16) */
    p.precision = PREC_FP8;
    p.quant_current = 1;
    g = build_ok(&m, &p);
    expect_quant(g, s * h, 30.0, 6.0, 46.0);
    free(g);
    /* NVFP4 takes its tensor's amax too (step.c sets quant_current for
     * it): e + 2q = 3.125 bytes where a norm or activation produced the
     * operand, 2e + 2q = 5.125 elsewhere; forward s h (3.125 x 6 + 5.125) */
    p.precision = PREC_FP4;
    g = build_ok(&m, &p);
    expect_quant(g, s * h, 23.875, 5.125, 5.125 * 5.0 + 3.125 * 4.0);
    free(g);
    /* row-wise scaling (torchao's rowwise recipe): a scale a row, so the
     * transposed copy is an amax and a cast of its own over the 16-bit
     * tensor (2e + q) beside the row-wise one (e + q where a norm or an
     * activation produced the operand, 2e + q elsewhere): 3e + 2q = 8 and
     * 4e + 2q = 10 bytes; forward s h (8 + 8 + 32 + 10), backward s h (10 +
     * 10 + 30 + 32) */
    p.precision = PREC_FP8;
    p.quant_rowwise = 1;
    g = build_ok(&m, &p);
    expect_quant(g, s * h, 58.0, 10.0, 82.0);
    free(g);
    /* it refines current scaling: alone it changes nothing */
    p.quant_current = 0;
    g = build_ok(&m, &p);
    expect_quant(g, s * h, 10.0, 4.0, 24.0);
    free(g);
    p.quant_rowwise = 0;

    /* sequence parallelism: the rank quantizes its own rows and the group
     * gathers them in fp8 (q = 1 byte an element, half of bf16's), the
     * operands of the fp8 GEMMs only: the LM head's input stays 16-bit */
    GraphParams t = params(8, 1, 1, RECOMPUTE_NONE);
    t.precision = PREC_FP8;
    t.quant_casts = 1;
    g = build_ok(&m, &t);
    Graph *b16 = NULL;
    t.precision = PREC_BF16;
    b16 = build_ok(&m, &t);
    static const char *const gathered[] = {"ln1.allgather", "ln2.allgather"};
    for (int i = 0; i < 2; i++) {
        assert_rel(find_op(&g->layer_fwd, gathered[i])->comm_bytes, s * h, 1e-12);
        assert_rel(find_op(&b16->layer_fwd, gathered[i])->comm_bytes, 2.0 * s * h, 1e-12);
    }
    assert_rel(find_op(&g->layer_bwd, "proj.bwd.allgather")->comm_bytes, s * h, 1e-12);
    assert_rel(find_op(&g->layer_bwd, "mlp_down.bwd.allgather")->comm_bytes, s * h, 1e-12);
    assert_rel(find_op(&g->last_fwd, "head.allgather")->comm_bytes,
               find_op(&b16->last_fwd, "head.allgather")->comm_bytes, 1e-12);
    free(b16);
    free(g);

    /* none in bf16, none when the stack quantizes for free */
    p.precision = PREC_BF16;
    g = build_ok(&m, &p);
    assert_true(quant_bytes(&g->layer_fwd, &nf) == 0 && nf == 0);
    assert_true(quant_bytes(&g->layer_bwd, &nb) == 0 && nb == 0);
    free(g);
    p.precision = PREC_FP8;
    p.quant_casts = 0;
    g = build_ok(&m, &p);
    assert_true(quant_bytes(&g->layer_fwd, &nf) == 0 && nf == 0);
    free(g);
}

/* ---- errors ---------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    GraphParams p = params(5, 0, 1, RECOMPUTE_NONE);
    expect_error(&m, &p, "heads (96) must be divisible by tp (5)");

    p = params(8, 0, 0, RECOMPUTE_NONE);
    expect_error(&m, &p, "microbatch must be >= 1, got 0");

    p = params(0, 0, 1, RECOMPUTE_NONE);
    expect_error(&m, &p, "tp must be >= 1, got 0");

    p = params(8, 0, 1, RECOMPUTE_NONE);
    Model bad = m;
    bad.seq_len = 0;
    expect_error(&bad, &p, "seq_len must be >= 1, got 0");

    bad = m;
    bad.ffn = 49150;
    expect_error(&bad, &p, "ffn (49150) must be divisible by tp (8)");

    bad = m;
    bad.hidden = 100;
    bad.heads = 3;
    expect_error(&bad, &p, "hidden (100) must be divisible by heads (3)");

    bad = m;
    bad.heads = 48;
    bad.kv_heads = 12;
    expect_error(&bad, &p, "kv_heads (12) must be divisible by tp (8)");

    bad.kv_heads = 16;
    GraphParams p24 = params(24, 0, 1, RECOMPUTE_NONE);
    expect_error(&bad, &p24, "tp (24) must be a multiple of kv_heads (16) when it exceeds them");

    bad.kv_heads = 36;
    expect_error(&bad, &p, "heads (48) must be divisible by kv_heads (36)");

    bad = m;
    bad.seq_len = 2050;
    GraphParams psp = params(8, 1, 1, RECOMPUTE_NONE);
    expect_error(&bad, &psp, "seq_len (2050) must be divisible by tp (8) with sequence parallelism");

    /* group-limited routing: whole groups, no more a token than there
     * are, and enough experts in them for its top-k */
    bad = m;
    bad.experts = 256;
    bad.experts_per_token = 8;
    bad.expert_ffn = 2048;
    bad.groups_per_token = 4;
    expect_error(&bad, &p, "groups_per_token (4) needs expert_groups, the groups the experts fall in");
    bad.expert_groups = 24;
    expect_error(&bad, &p, "experts (256) must be divisible by expert_groups (24)");
    bad.expert_groups = 2;
    expect_error(&bad, &p, "groups_per_token (4) must be at most expert_groups (2)");
    bad.expert_groups = 64;
    bad.groups_per_token = 1;
    expect_error(&bad, &p,
                 "groups_per_token (1) groups of 4 experts cannot hold a token's 8 experts "
                 "(experts_per_token)");
    bad.expert_groups = 32; /* a round-robin gate: one group of 8 a token */
    free(build_ok(&bad, &p));
}

static void test_kv_heads_default(void **state)
{
    (void)state;
    Model m = gpt3_175b();
    m.kv_heads = 0; /* not set: = heads */
    m.ffn = 0;      /* not set: 4h */
    GraphParams p = params(8, 0, 1, RECOMPUTE_NONE);
    Graph *g = build_ok(&m, &p);
    assert_int_equal(find_op(&g->layer_fwd, "qkv")->n, 3 * 12288 / 8);
    assert_int_equal(find_op(&g->layer_fwd, "mlp_up")->n, 4 * 12288 / 8);
    assert_rel(g->params_total, graph_megatron_params(96, 12288, 51200, 2048) + 2 * 12288, 1e-12);
    free(g);
}

static void test_overflow(void **state)
{
    (void)state;
    OpList *l = calloc(1, sizeof *l);
    assert_non_null(l);
    Diag d;
    diag_clear(&d);
    OpSink k;
    graph_sink_init(&k, l, "layer_fwd", &d);
    Op op = graph_membound_op("x", COMP_MEMBOUND, 1.0, 1.0);
    for (int i = 0; i < GRAPH_MAX_OPS; i++)
        graph_emit(&k, &op);
    assert_int_equal(k.failed, 0);
    assert_int_equal(l->n, GRAPH_MAX_OPS);
    graph_emit(&k, &op);
    graph_emit(&k, &op);
    assert_int_equal(k.failed, -1);
    assert_int_equal(l->n, GRAPH_MAX_OPS);
    assert_string_equal(d.msg, "too many operations in list 'layer_fwd' (at most 96)");
    free(l);
}

/* ---- the GEMM model kind --------------------------------------------------- */

static void test_gemm_model(void **state)
{
    (void)state;
    Model m = {.kind = MODEL_GEMM};
    m.m = 524288;
    m.n = 8;
    m.k = 128;
    GraphParams p = params(1, 0, 16, RECOMPUTE_FULL); /* microbatch, recompute ignored */
    Graph *g = build_ok(&m, &p);
    assert_int_equal(g->layers, 1);
    assert_int_equal(g->layer_fwd.n, 1);
    assert_int_equal(g->layer_bwd.n + g->layer_recompute.n + g->first_fwd.n + g->last_fwd.n, 0);
    const Op *op = &g->layer_fwd.op[0];
    assert_int_equal(op->kind, OP_GEMM);
    assert_int_equal(op->comp, COMP_GEMM);
    assert_int_equal(op->batch, 1);
    assert_int_equal(op->m, 524288);
    assert_int_equal(op->n, 8);
    assert_int_equal(op->k, 128);
    double mnk = 524288.0 * 8 * 128;
    assert_rel(op->flops, 2.0 * mnk, 1e-15);
    assert_rel(op->bytes, (524288.0 * 128 + 128.0 * 8 + 524288.0 * 8) * 2, 1e-15);
    assert_rel(g->model_flops_per_sample, 2.0 * mnk, 1e-15);
    assert_rel(g->hw_flops_per_sample, 2.0 * mnk, 1e-15);
    assert_true(g->params_total == 0.0);
    assert_rel(g->act_bytes_per_layer, op->bytes, 1e-15); /* A, B and C are held in HBM */
    free(g);

    m.k = 0;
    expect_error(&m, &p, "gemm m, n and k must be >= 1, got m=524288 n=8 k=0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt3_params),
        cmocka_unit_test(test_llama_params),
        cmocka_unit_test(test_gpt3_flops),
        cmocka_unit_test(test_tp_shard_times_t),
        cmocka_unit_test(test_backward_twice_forward),
        cmocka_unit_test(test_recompute_flops),
        cmocka_unit_test(test_forward_order_and_shapes),
        cmocka_unit_test(test_tp_collectives),
        cmocka_unit_test(test_llama_shapes),
        cmocka_unit_test(test_head_dim),
        cmocka_unit_test(test_selective_per_op),
        cmocka_unit_test(test_selective_per_op_moe),
        cmocka_unit_test(test_moe_score_apart),
        cmocka_unit_test(test_moe_index_scatters),
        cmocka_unit_test(test_expert_imbalance),
        cmocka_unit_test(test_flex_head_padding),
        cmocka_unit_test(test_split_gate_up),
        cmocka_unit_test(test_no_dropout),
        cmocka_unit_test(test_unfused_cross_entropy),
        cmocka_unit_test(test_sliding_window),
        cmocka_unit_test(test_expert_gemms),
        cmocka_unit_test(test_graph_scope),
        cmocka_unit_test(test_deepseek_v3_params),
        cmocka_unit_test(test_dense_moe_mix),
        cmocka_unit_test(test_latent_attention),
        cmocka_unit_test(test_multi_token_prediction),
        cmocka_unit_test(test_eager_elementwise),
        cmocka_unit_test(test_eager_rope_activation),
        cmocka_unit_test(test_vocab_padding),
        cmocka_unit_test(test_activations_korthikanti),
        cmocka_unit_test(test_fused_attention),
        cmocka_unit_test(test_activations_general),
        cmocka_unit_test(test_fp8_quantize),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_kv_heads_default),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_gemm_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
