/* tests/test_step.c — the parts of the step model (par/parts.h) against
 * their published formulas, and the whole step against them: the pipeline
 * bubble (pp - 1) / (v m) of the compute (Narayanan et al. SC'21), the
 * interleaved schedule's activation memory (v pp + pp - 1 chunks at the
 * peak), ZeRO's sharding of weights, gradients and optimizer state
 * (Rajbhandari et al. SC'20), the data-parallel exchange (ZeRO's
 * reduce-scatter + all-gather moves what an all-reduce moves; ZeRO-3
 * gathers 2 m times instead of once) and its overlap. */
#include "testdb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "batch/evaluate.h"
#include "core/strategy.h"
#include "par/parts.h"
#include "graph/graph.h"
#include "par/step.h"
#include "scale/scale.h"

static void test_stage_layers(void **state)
{
    (void)state;
    assert_int_equal(sched_stage_layers(96, 8, 1), 12);
    assert_int_equal(sched_stage_layers(96, 8, 2), 12); /* 2 chunks of 6 */
    assert_int_equal(sched_stage_layers(80, 6, 1), 14); /* ceil(80 / 6): the most loaded stage */
    assert_int_equal(sched_stage_layers(80, 6, 2), 14); /* 2 chunks of ceil(80 / 12) = 7 */
    assert_int_equal(sched_stage_layers(32, 1, 1), 32);
}

static void test_bubble(void **state)
{
    (void)state;
    /* 1F1B: (pp - 1) stage-times; v chunks divide it */
    assert_rel(sched_bubble(8, 1, 2.0, 1, 0), 14.0, 1e-15);
    assert_rel(sched_bubble(8, 4, 2.0, 1, 0), 3.5, 1e-15);
    assert_rel(sched_bubble(1, 1, 2.0, 1, 0), 0.0, 0);
    /* a microbatch pipelined in 10 timesteps: a tenth of the fill */
    assert_rel(sched_bubble(4, 1, 2.0, 10, 0), 0.6, 1e-15);
    /* a bidirectional first stage: one whole stage-time, then the wavefront */
    assert_rel(sched_bubble(4, 1, 2.0, 10, 1), (1.0 + 2.0 / 10) * 2.0, 1e-15);
}

/* The split schedules against their papers' tables: ZB-H1 (Qi et al.
 * ICLR 2024 Table 2; DeepSeek-V3 Table 2's ZB1P) (pp - 1)(F + B - 2W) and
 * DualPipe (DeepSeek-V3 Table 2) (pp/2 - 1)(F&B + B - 3W), B the whole
 * backward; with F = B_input = W (the sail-sg README's case) zero bubble
 * leaves a third of 1F1B's. */
static void test_split_bubble(void **state)
{
    (void)state;
    const double F = 1.0, B = 2.0, W = 0.8;
    assert_rel(sched_bubble_split(SCHED_ZERO_BUBBLE, 8, F + B, B, W, F + B), 7 * (F + B - 2 * W), 1e-15);
    assert_rel(sched_bubble_split(SCHED_DUALPIPE, 8, F + B, B, W, 2.9), 3 * (2.9 + B - 3 * W), 1e-15);
    assert_rel(sched_bubble_split(SCHED_ZERO_BUBBLE, 1, F + B, B, W, F + B), 0.0, 0);
    assert_rel(sched_bubble_split(SCHED_ZERO_BUBBLE, 8, 3.0, 2.0, 1.0, 3.0),
               sched_bubble(8, 1, 3.0, 1, 0) / 3, 1e-15);
    /* DualPipe holds pp + 1 microbatches, never more than there are */
    assert_rel(sched_inflight_dualpipe(20, 8), 9.0, 0);
    assert_rel(sched_inflight_dualpipe(4, 8), 4.0, 0);
}

/* The ends split (Megatron-Core's account_for_embedding/loss_in_pipeline_
 * split; Llama 3 405B: 126 layers on 16 stages, "one Transformer layer
 * fewer each" on the first and the last): L + 2 slots. */
static void test_split(void **state)
{
    (void)state;
    double f, m, l;
    sched_split(126, 0, 16, 1, SPLIT_ENDS, &f, &m, &l);
    assert_rel(f, 7, 0);
    assert_rel(m, 8, 0);
    assert_rel(l, 7, 0);
    sched_split(126, 0, 16, 1, SPLIT_EVEN, &f, &m, &l);
    assert_rel(f, 8, 0);
    assert_rel(m, 8, 0);
    sched_split(22, 0, 8, 3, SPLIT_ENDS, &f, &m, &l); /* Qi et al.'s 1F1B-I: every layer a chunk */
    assert_rel(m, 3, 0);
    assert_rel(f, 2, 0);
    sched_split(126, 0, 1, 1, SPLIT_ENDS, &f, &m, &l); /* one stage holds everything */
    assert_rel(f, 126, 0);
    /* DeepSeek-V3 on 16 stages of 2 chunks, "Et|(tt|)*30mL": 64 slots, the
     * last chunk the prediction module and the loss alone */
    sched_split(61, 1, 16, 2, SPLIT_ENDS, &f, &m, &l);
    assert_rel(m, 4, 0);
    assert_rel(f, 3, 0);
    assert_rel(l, 2, 0);

    /* in the whole step: the ends' stages lose a layer each, so a middle
     * stage of 8 layers bounds the pipeline instead of 8 layers + the head */
    const char *kv[] = {"system=dgx-h100", "model=llama3-405b", "devices=2048",      "tp=8",
                        "pp=16",           "microbatch=1",      "global_batch=1024", "recompute=full"};
    Scenario sc;
    build_scenario(&sc, kv, 8);
    Result even, ends;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &even), 0);
    sc.st.pp_split = SPLIT_ENDS;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &ends), 0);
    assert_true(ends.step_time_s < even.step_time_s);
    assert_true(ends.mem_weights_bytes < even.mem_weights_bytes);
    assert_int_equal(ends.st.pp_split, SPLIT_ENDS);
}

static void test_inflight(void **state)
{
    (void)state;
    double mb, il;
    sched_inflight(64, 8, 1, &mb, &il); /* 1F1B: pp microbatches */
    assert_rel(mb, 8, 0);
    assert_rel(il, 1, 0);
    sched_inflight(4, 8, 1, &mb, &il); /* fewer microbatches than stages */
    assert_rel(mb, 4, 0);
    sched_inflight(64, 8, 4, &mb, &il); /* interleaved: v pp + pp - 1 = 39 chunks of 1/4 */
    assert_rel(mb * il, 39.0 / 4, 1e-15);
    assert_rel(il, 1 + (8.0 - 1) / (8 * 4), 1e-15); /* Megatron's 1 + (pp - 1) / (pp v) */
    sched_inflight(8, 8, 4, &mb, &il);              /* m = pp: no more than the m v = 32 chunks there are */
    assert_rel(mb * il, 32.0 / 4, 1e-15);
    /* sends: forward and backward per microbatch and chunk, plus the fill */
    assert_rel(sched_p2p_sends(16, 4, 2, 1), 2.0 * (2 * 16 + 3), 0);
    assert_rel(sched_p2p_sends(16, 4, 1, 10), 2.0 * (16 + 3) * 10, 0);
}

static void test_zero_sharding(void **state)
{
    (void)state;
    const double p = 1e9, wb = 2, gb = 4, ob = 12;
    for (int z = 0; z <= 3; z++) {
        StateBytes s = mem_state(p, 8, z, wb, gb, ob);
        assert_rel(s.optimizer, p * ob / (z >= 1 ? 8 : 1), 1e-15);
        assert_rel(s.grads, p * gb / (z >= 2 ? 8 : 1), 1e-15);
        assert_rel(s.weights, p * wb / (z >= 3 ? 8 : 1), 1e-15);
    }
    /* ZeRO-3 over 64 replicas: 18 bytes per parameter become 18 / 64 */
    StateBytes s = mem_state(p, 64, 3, wb, gb, ob);
    assert_rel(s.weights + s.grads + s.optimizer, p * 18 / 64, 1e-15);
}

static void test_activations(void **state)
{
    (void)state;
    /* first stage: 8 microbatches of 10 layers of 1 GB, plus 0.5 GB of
     * embedding per microbatch; last stage: one microbatch plus 3 GB of head */
    assert_rel(mem_activations(8, 1e9, 10, 0.5e9, 3e9, 8, 1, 0), 80e9 + 4e9, 1e-15);
    assert_rel(mem_activations(8, 1e9, 10, 0.5e9, 90e9, 8, 1, 0), 10e9 + 90e9, 1e-15);
    /* interleaved: the layers' part grows by the interleave factor */
    assert_rel(mem_activations(8, 1e9, 10, 0.5e9, 3e9, 8, 1.25, 0), 100e9 + 4e9, 1e-15);
    /* one stage holds both ends, one microbatch; full recompute's working set once */
    assert_rel(mem_activations(1, 1e9, 10, 0.5e9, 3e9, 1, 1, 2e9), 15.5e9, 1e-15);
}

/* A system whose scale-out tier is the one a dp group spans (one rank per
 * node), for the exchange's arithmetic. */
static void dp_fixture(System *sys, Group *g)
{
    Scenario sc;
    const char *kv[] = {"system=dgx-h100", "model=llama2-7b", "devices=64", "tp=8", "pp=1"};
    build_scenario(&sc, kv, 5);
    *sys = sc.system;
    net_group(sys, 8, 8, g);
}

static void test_dp_exchange(void **state)
{
    (void)state;
    System sys;
    Group g;
    dp_fixture(&sys, &g);
    const double p = 2e9;
    DpExchange ar, z1, z3, z3e, z1e, z3k;
    comm_dp_exchange(&sys, &g, p, 0, 16, 0, 0, 2, 4, 0, 0, 1, &ar);
    comm_dp_exchange(&sys, &g, p, 1, 16, 0, 0, 2, 4, 0, 0, 1, &z1);
    comm_dp_exchange(&sys, &g, p, 3, 16, 0, 0, 2, 4, 0, 0, 1, &z3);
    comm_dp_exchange(&sys, &g, p, 3, 16, 1, 0, 2, 4, 0, 0, 1, &z3e);
    comm_dp_exchange(&sys, &g, p, 1, 16, 1, 0, 2, 4, 0, 0, 1, &z1e);
    comm_dp_exchange(&sys, &g, p, 3, 16, 0, 1, 2, 4, 0, 0, 1, &z3k);
    CollCost c;
    net_collective(&sys, &g, COLL_ALLREDUCE, p * 4, &c);
    assert_rel(ar.time_s, c.time_s, 1e-15);
    assert_rel(ar.inter_bytes, c.inter_bytes, 1e-15);
    /* ZeRO-1: a reduce-scatter of 4-byte gradients and an all-gather of
     * 2-byte weights move 3/4 of the all-reduce's bytes */
    assert_rel(z1.inter_bytes, 0.75 * ar.inter_bytes, 1e-9);
    CollCost rs, ag;
    net_collective(&sys, &g, COLL_REDUCESCATTER, p * 4, &rs);
    net_collective(&sys, &g, COLL_ALLGATHER, p * 2, &ag);
    assert_rel(z1.time_s, rs.time_s + ag.time_s, 1e-15);
    /* ZeRO-3: the reduce-scatter, and an all-gather of the weights in
     * forward and backward of each of the 16 microbatches in place of
     * ZeRO-1's after the step (the weights stay sharded) */
    assert_rel(z3.time_s, rs.time_s + 32 * ag.time_s, 1e-12);
    assert_rel(z3.inter_bytes, rs.inter_bytes + 32 * ag.inter_bytes, 1e-12);
    assert_rel(z3.gather_s, 32 * ag.time_s, 1e-12);
    assert_rel(z1.gather_s, 0, 0);
    assert_rel(ar.gather_s, 0, 0);
    /* FSDP2's default, a reduce-scatter after every microbatch's backward:
     * 16 of them, the first 15 under the microbatches' compute beside the
     * gathers; only ZeRO-3 (FSDP) does it */
    assert_rel(z3e.time_s, 16 * rs.time_s + 32 * ag.time_s, 1e-12);
    assert_rel(z3e.inter_bytes, 16 * rs.inter_bytes + 32 * ag.inter_bytes, 1e-12);
    assert_rel(z3e.gather_s, 15 * rs.time_s + 32 * ag.time_s, 1e-12);
    assert_rel(z1e.time_s, z1.time_s, 0);
    /* the weights kept gathered from the first forward to the last
     * backward (reshard_after_forward no, as under a pipeline): one
     * all-gather a step, ZeRO-1's traffic at the other end of the step */
    assert_rel(z3k.time_s, rs.time_s + ag.time_s, 1e-12);
    assert_rel(z3k.gather_s, ag.time_s, 1e-12);
    assert_rel(z3k.inter_bytes, z1.inter_bytes, 1e-12);
    /* the hidden part: overlap x the exchange, at most the backward pass */
    assert_rel(comm_hidden(10, 0.9, 100, 0), 9, 1e-15);
    assert_rel(comm_hidden(10, 0.9, 4, 0), 4, 0);
    assert_rel(comm_hidden(10, 0, 4, 0), 0, 0);
    /* its kernels holding a fifth of the SMs: the backward redoes a fifth
     * of the 9 s it ran beside; under the 4 s backward, the 9 s exchange
     * covers the slowed 4 s (it does 7.2 s of work meanwhile): no cost */
    assert_rel(comm_hidden(10, 0.9, 100, 0.2), 9 - 0.2 * 9, 1e-15);
    assert_rel(comm_hidden(10, 0.9, 4, 0.2), 4, 0);
    /* a 4.5 s collective beside 4 s of compute: the compute does 3.6 s of
     * work meanwhile and 0.4 s after it; a collective that takes all SMs
     * hides nothing */
    assert_rel(comm_overlap_cost(4.5, 4, 0.2), 0.4, 1e-12);
    assert_rel(comm_hidden(5, 0.9, 4, 0.2), 4 - 0.4, 1e-12);
    assert_rel(comm_hidden(10, 0.9, 4, 1), 0, 0);
    assert_rel(comm_overlap_cost(3, 4, 0), 0, 0);
    /* ZeRO-3's gathers (8 of the 10 s), prefetched a layer ahead
     * (continuous: no bucket counts): all but the first of 4 layers'
     * (6 s) hide under the compute, of the 2 s of gradients what the 1 s
     * backward covers */
    DpExchange ex = {.time_s = 10, .gather_s = 8};
    assert_rel(comm_dp_hidden_step(&ex, 1, 1, 0, 100, 4, 0), 1 + 6, 1e-15);
    assert_rel(comm_dp_hidden_step(&ex, 0.9, 1, 0, 100, 4, 0), 0.9 + 0.9 * 6, 1e-15);
    assert_rel(comm_dp_hidden_step(&ex, 1, 1, 0, 3, 4, 0), 1 + 2, 1e-15); /* the compute is the window */
    assert_rel(comm_dp_hidden_step(&ex, 1, 1, 0, 100, 1, 0), 1, 1e-15);   /* one layer: nothing ahead */
    assert_rel(comm_dp_hidden_step(&ex, 0, 1, 0, 100, 4, 0), 0, 0);
    /* as 4 collectives a pass (gather_units 8 over 2 passes) under 3 s:
     * 1 s each against 3/8 s of compute between them falls behind */
    ex.gather_units = 8;
    assert_rel(comm_dp_hidden_step(&ex, 1, 1, 0, 4, 4, 0), 1 + (8 - (1 + 7 * (1 - 3.0 / 8))), 1e-12);
    ex.gather_s = 0; /* no ZeRO-3: the gradients under the last backward */
    assert_rel(comm_dp_hidden_step(&ex, 1, 4, 0, 100, 4, 0), 4, 1e-15);
    assert_rel(comm_dp_hidden_step(&ex, 1, 100, 0, 100, 4, 0.2), comm_hidden(10, 1, 100, 0.2), 0);
    /* in 5 buckets of 2 s: the last one shows when the 20 s backward
     * makes one every 4 s; under a 5 s backward the queue falls behind:
     * 2 + 4 x (2 - 1) = C - W + W / n */
    ex.buckets = 5;
    assert_rel(comm_bucket_exposed(10, 5, 20), 2, 1e-15);
    assert_rel(comm_bucket_exposed(10, 5, 5), 6, 1e-15);
    assert_rel(comm_bucket_exposed(10, 1, 100), 10, 0); /* one collective: after the backward */
    assert_rel(comm_bucket_exposed(10, 0, 4), 6, 0);    /* continuous */
    assert_rel(comm_bucket_exposed(10, 0, 100), 0, 0);
    assert_rel(comm_dp_hidden_step(&ex, 1, 20, 0, 100, 4, 0), 8, 1e-15);
    assert_rel(comm_dp_hidden_step(&ex, 0.5, 20, 0, 100, 4, 0), 4, 1e-15); /* half of what it could */
    /* ZeRO-1/2's weight gathers wait for the next forward, bucket by bucket */
    ex.allgather_s = 4;
    assert_rel(comm_dp_hidden_step(&ex, 1, 20, 20, 100, 4, 0),
               (6 - comm_bucket_exposed(6, 5, 20)) + (4 - comm_bucket_exposed(4, 5, 20)), 1e-15);
}

/* The whole step: the bubble is (pp - 1) / (v m) of the stage work (the
 * slowest stage's, the one with the head, as vTrain's pp 4 runs measure it;
 * see step.c), and the memory the parts give is what the step reports. */
static void test_step_schedule(void **state)
{
    (void)state;
    const char *kv[] = {
        "system=dgx-a100-80g", "model=gpt3-175b",   "devices=1024", "tp=8",           "pp=16",
        "microbatch=1",        "global_batch=1536", "interleave=2", "recompute=full", "zero=1"};
    Scenario sc;
    build_scenario(&sc, kv, 10);
    Result r;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r), 0);
    const long m = 1536 / (8 * 1);
    double stage = 0;
    static const Component per_stage[] = {COMP_GEMM,      COMP_ATTENTION, COMP_MEMBOUND, COMP_EMBED_HEAD,
                                          COMP_RECOMPUTE, COMP_TP_COMM,   COMP_HOST};
    for (size_t i = 0; i < sizeof per_stage / sizeof per_stage[0]; i++)
        stage += r.comp_time_s[per_stage[i]];
    assert_rel(r.comp_time_s[COMP_PP_BUBBLE] / stage, (16.0 - 1) / (2.0 * m), 1e-9);
    /* optimizer state sharded over dp = 8, weights and gradients not */
    assert_rel(r.mem_optimizer_bytes * 8 / 12, r.mem_weights_bytes / 2, 1e-12);
    assert_rel(r.mem_grads_bytes / 4, r.mem_weights_bytes / 2, 1e-12);
    /* ZeRO-3 that drops the gathered weights after each forward divides
     * the weights and gradients too */
    sc.st.zero = 3;
    sc.system.framework.reshard = RESHARD_YES;
    Result r3;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r3), 0);
    assert_rel(r3.mem_weights_bytes, r.mem_weights_bytes / 8, 1e-12);
    assert_rel(r3.mem_grads_bytes, r.mem_grads_bytes / 8, 1e-12);
    assert_true(r3.comp_time_s[COMP_DP_COMM] + r3.comp_time_s[COMP_DP_HIDDEN] >
                r.comp_time_s[COMP_DP_COMM] + r.comp_time_s[COMP_DP_HIDDEN]);
    /* under a pipeline it keeps them (auto: PyTorch's pipelining with
     * torchtitan's default): the 16-bit weights whole again, beside the
     * sharded ones, the gradients accumulated whole in their type until
     * the last backward, and one all-gather a step, not 2 x 192 */
    sc.system.framework.reshard = RESHARD_AUTO;
    Result rk;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &rk), 0);
    assert_rel(rk.mem_weights_bytes, r3.mem_weights_bytes + r.mem_weights_bytes * (1 - 1.0 / 8), 1e-12);
    assert_rel(rk.mem_grads_bytes, r3.mem_grads_bytes + r.mem_weights_bytes, 1e-12);
    assert_true(rk.comp_time_s[COMP_DP_COMM] + rk.comp_time_s[COMP_DP_HIDDEN] <
                (r3.comp_time_s[COMP_DP_COMM] + r3.comp_time_s[COMP_DP_HIDDEN]) / 50);
}

/* The stack's gradient buckets, one microbatch a step across 8 nodes:
 * one bucket runs after the backward pass, all of it shown; Megatron-Core's
 * 40M buckets hide all but the last behind it, but each pays the ring's
 * latency; the ideal stack's continuous exchange shows the least. */
static void test_dp_buckets(void **state)
{
    (void)state;
    static const char *const kv[] = {"system=dgx-h100", "model=llama2-7b", "devices=64", "global_batch=64",
                                     "microbatch=1",    "zero=1",          "tp=1",       "precision=bf16"};
    Scenario sc;
    build_scenario(&sc, kv, sizeof kv / sizeof kv[0]);
    sc.st.pp = 1;
    Framework *fw = &sc.system.framework;
    fw->dp_overlap = 1;
    fw->dp_bucket_per_rank = 0;
    fw->dp_bucket = 1e12; /* one bucket */
    Result one, many, endless;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &one), 0);
    assert_true(one.comp_time_s[COMP_DP_COMM] > 0);
    assert_rel(one.comp_time_s[COMP_DP_HIDDEN], 0, 0);
    fw->dp_bucket = 40e6;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &many), 0);
    const double all_many = many.comp_time_s[COMP_DP_COMM] + many.comp_time_s[COMP_DP_HIDDEN];
    assert_true(many.comp_time_s[COMP_DP_COMM] < 0.5 * one.comp_time_s[COMP_DP_COMM]);
    /* 169 buckets' latencies: more time in all than the one collective's */
    assert_true(all_many > one.comp_time_s[COMP_DP_COMM]);
    /* at least the last bucket's reduce-scatter shows */
    assert_true(many.comp_time_s[COMP_DP_COMM] > all_many / 169 / 2);
    fw->dp_continuous = 1;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &endless), 0);
    assert_true(endless.comp_time_s[COMP_DP_COMM] < many.comp_time_s[COMP_DP_COMM]);
}

/* The data-parallel exchange of a step, hidden or not, with the stack's
 * grad_sync_each as given. */
static double dp_with_sync(Scenario *sc, int each, Result *r)
{
    sc->system.framework.grad_sync_each = each;
    assert_int_equal(step_evaluate(sc, 1.0, NULL, r), 0);
    return r->comp_time_s[COMP_DP_COMM] + r->comp_time_s[COMP_DP_HIDDEN];
}

/* FSDP's gradient reduce-scatter after every microbatch (grad_sync_each):
 * four microbatches a step move three reduce-scatters more than one, and
 * a pipeline schedule reduces on the last microbatch only. */
static void test_grad_sync_each(void **state)
{
    (void)state;
    static const char *const kv[] = {"system=dgx-h100", "model=llama2-7b", "devices=16",
                                     "global_batch=64", "microbatch=1",    "zero=3",
                                     "recompute=full",  "precision=bf16",  "tp=1"};
    Scenario sc;
    build_scenario(&sc, kv, sizeof kv / sizeof kv[0]);
    sc.st.pp = 1;
    Result once, each, pp_once, pp_each;
    /* the extra reduce-scatters: 3 of the step's 1 + 8 collectives' worth
     * of time at least (each all-gather moves half the bytes) */
    assert_true(dp_with_sync(&sc, 1, &each) > 1.2 * dp_with_sync(&sc, 0, &once));
    assert_true(each.inter_bytes > once.inter_bytes);
    assert_true(each.step_time_s >= once.step_time_s);
    /* under a pipeline the flag changes nothing */
    sc.st.pp = 2;
    assert_rel(dp_with_sync(&sc, 1, &pp_each), dp_with_sync(&sc, 0, &pp_once), 1e-15);
}

/* The pace of a synchronous step (pace.c): the expected slowest of n
 * devices against the exact E[max] of n standard normals (numerical
 * integration); the whole step's device work (GEMMs, attention, memory-
 * bound ops, the optimizer) takes that much longer over the median
 * device's, its collectives and host time do not. */
static void test_pace(void **state)
{
    (void)state;
    static const struct {
        double n, emax;
    } exact[] = {{2, 0.5642}, {8, 1.4236}, {64, 2.3437}, {1024, 3.2482}, {16384, 3.9714}, {100000, 4.3843}};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        assert_true(fabs(pace_normal_max(exact[i].n) - exact[i].emax) < 0.03);
    assert_true(pace_normal_max(1) == 0 && pace_normal_max(0) == 0);
    for (double n = 2; n < 1e6; n *= 2)
        assert_true(pace_normal_max(2 * n) > pace_normal_max(n));
    assert_true(pace_factor(0, 16384) == 1.0);
    assert_rel(pace_factor(0.02, 1024), 1.0 + 0.02 * pace_normal_max(1024), 1e-15);
    const char *kv[] = {"system=dgx-h100", "model=llama2-70b",  "devices=1024", "tp=8",          "pp=4",
                        "microbatch=1",    "global_batch=1024", "zero=1",       "recompute=none"};
    Scenario sc;
    build_scenario(&sc, kv, 9);
    Result even, spread;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &even), 0);
    sc.system.speed_spread = 0.02;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &spread), 0);
    const double f = pace_factor(0.02, 1024);
    static const Component device[] = {COMP_GEMM, COMP_ATTENTION, COMP_MEMBOUND, COMP_EMBED_HEAD,
                                       COMP_OPTIMIZER};
    for (size_t i = 0; i < sizeof device / sizeof device[0]; i++)
        assert_rel(spread.comp_time_s[device[i]], f * even.comp_time_s[device[i]], 1e-9);
    assert_rel(spread.comp_time_s[COMP_PP_COMM], even.comp_time_s[COMP_PP_COMM], 1e-12);
    assert_true(spread.step_time_s > even.step_time_s * 1.04 && spread.step_time_s < even.step_time_s * f);
    sc.devices = 8; /* one node, tp 8: the spread of 8 devices */
    sc.st.pp = 1;
    sc.st.dp = 1;
    sc.st.global_batch = 16;
    sc.system.speed_spread = 0;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &even), 0);
    sc.system.speed_spread = 0.02;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &spread), 0);
    assert_rel(spread.comp_time_s[COMP_GEMM], pace_factor(0.02, 8) * even.comp_time_s[COMP_GEMM], 1e-9);
}

/* The schedules in the whole step: zero bubble shortens the bubble and
 * keeps 1F1B's memory; DualPipe holds the ends' two stages (twice the
 * weights) and hides the stage sends; 1f1b over chunks runs as the
 * interleaved schedule; each schedule's rules are errors with a reason. */
static void test_pipeline_schedules(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-a100-80g",
                        "model=gpt3-175b",
                        "devices=1024",
                        "tp=8",
                        "pp=16",
                        "microbatch=1",
                        "global_batch=1536",
                        "recompute=selective",
                        "seq_parallel=yes",
                        "pp_schedule=1f1b"};
    Scenario sc;
    build_scenario(&sc, kv, 10);
    Result a, z, d, v;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &a), 0);
    sc.st.pp_schedule = SCHED_ZERO_BUBBLE;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &z), 0);
    sc.st.pp_schedule = SCHED_DUALPIPE;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &d), 0);
    assert_true(z.comp_time_s[COMP_PP_BUBBLE] < 0.7 * a.comp_time_s[COMP_PP_BUBBLE]);
    assert_true(z.step_time_s < a.step_time_s);
    assert_rel(z.mem_total_bytes, a.mem_total_bytes, 1e-12);
    assert_true(d.mem_weights_bytes > 1.9 * a.mem_weights_bytes);
    assert_true(d.mem_activations_bytes > a.mem_activations_bytes);
    assert_true(d.comp_time_s[COMP_PP_COMM] < 0.1 * a.comp_time_s[COMP_PP_COMM]);
    sc.st.pp_schedule = SCHED_1F1B;
    sc.st.interleave = 2;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &v), 0);
    assert_int_equal(v.st.pp_schedule, SCHED_INTERLEAVED);
    /* fp8 training quantizes the GEMMs' operands only: the stages still
     * exchange 16-bit hidden states, so the transfers cost what bf16's do */
    Result h8;
    sc.st.interleave = 1;
    sc.st.pp_schedule = SCHED_1F1B;
    const char *k8[] = {"system=dgx-h100", "model=gpt3-175b", "devices=1024",      "tp=8",
                        "pp=16",           "microbatch=1",    "global_batch=1536", "recompute=selective",
                        "seq_parallel=yes"};
    build_scenario(&sc, k8, 9);
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &h8), 0);
    const double bf16_pp = h8.comp_time_s[COMP_PP_COMM];
    sc.precision = PREC_FP8;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &h8), 0);
    assert_true(bf16_pp > 0);
    assert_rel(h8.comp_time_s[COMP_PP_COMM], bf16_pp, 1e-12);

    static const struct {
        const char *schedule, *pp, *other, *msg;
    } bad[] = {
        {"pp_schedule=interleaved", "pp=4", "interleave=1",
         "pp_schedule interleaved needs model chunks to interleave"},
        {"pp_schedule=zero-bubble", "pp=4", "interleave=2",
         "pp_schedule zero-bubble runs one model chunk per stage"},
        {"pp_schedule=dualpipe", "pp=3", "interleave=1",
         "pp_schedule dualpipe feeds microbatches from both ends"},
        {"pp_schedule=dualpipe", "pp=4", "global_batch=3",
         "their count (global_batch / (dp x microbatch) = 1) must"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *k2[] = {"system=dgx-a100-80g", "model=gpt3-175b", "devices=96", "tp=8",
                            "microbatch=1",        bad[i].schedule,   bad[i].pp,    bad[i].other};
        ScenarioSource src;
        Diag dg;
        diag_clear(&dg);
        Scenario s2;
        assert_int_not_equal(scenario_build_kv(&db, "test", k2, NULL, 8, &s2, &src, &dg), 0);
        if (!strstr(dg.msg, bad[i].msg))
            print_error("%s\n", dg.msg);
        assert_non_null(strstr(dg.msg, bad[i].msg));
        scenario_source_free(&src);
    }
}

/* The strategy is one value: its open axes are a mask, named as the columns. */
static void test_strategy_value(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-h100",   "model=llama2-7b", "devices=64",    "tp=auto", "pp=2",
                        "seq_parallel=auto", "zero=auto",       "placement=auto"};
    Scenario sc;
    build_scenario(&sc, kv, 8);
    const unsigned m = strategy_auto_mask(&sc.st);
    assert_int_equal(m, (1u << AXIS_TP) | (1u << AXIS_SEQ_PARALLEL) | (1u << AXIS_ZERO) |
                            (1u << AXIS_PLACEMENT));
    assert_string_equal(strategy_axis_name(AXIS_SEQ_PARALLEL), "seq_parallel");
    for (int a = 0; a < AXIS_COUNT; a++) /* every axis is a scenario column */
        assert_non_null(param_find(&param_scenario_table, strategy_axis_name((StrategyAxis)a), NULL, NULL));
    Result r;
    assert_int_equal(evaluate(&sc, &r), 0);
    assert_int_equal(strategy_auto_mask(&r.st), 0); /* the search resolved every one */
    assert_int_equal(r.st.pp, 2);
}

/* Context parallelism: the ring's step is the K and V of one chunk, its
 * exposed part what each of the cp - 1 steps does not hide under a block
 * of attention; a rank holds 1/cp of the activations and does 1/cp of the
 * work (a causal-balanced split), and with cp 1 nothing changes. */
static void test_context_parallel(void **state)
{
    (void)state;
    Model m;
    memset(&m, 0, sizeof m);
    m.seq_len = 32768;
    m.hidden = 8192;
    m.heads = 64;
    m.kv_heads = 8;
    /* 2 (K, V) x 1 sequence x 32768/4 tokens x 8/8 kv heads x 128 x 2 bytes */
    assert_rel(comm_cp_chunk(&m, 8, 4, 1, PREC_BF16), 2.0 * 8192 * 1 * 128 * 2, 1e-15);
    assert_rel(comm_cp_chunk(&m, 2, 4, 2, PREC_FP32), 2.0 * 2 * 8192 * 4 * 128 * 4, 1e-15);
    assert_rel(comm_cp_chunk(&m, 16, 4, 1, PREC_BF16), 2.0 * 8192 * 1 * 128 * 2, 1e-15); /* kv replicated */
    assert_rel(comm_cp_exposed(4, 3e-3, 1e-3), 3 * 2e-3, 1e-15);
    assert_rel(comm_cp_exposed(4, 1e-3, 3e-3), 0, 0);
    assert_rel(comm_cp_exposed(1, 1, 0), 0, 0);

    const char *kv[] = {"system=dgx-h100", "model=llama2-70b", "devices=256",         "tp=8", "pp=4", "dp=8",
                        "microbatch=1",    "global_batch=64",  "model.seq_len=32768", "cp=1"};
    Scenario sc;
    build_scenario(&sc, kv, 10);
    Result r1, r4;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r1), 0);
    assert_rel(r1.comp_time_s[COMP_CP_COMM], 0, 0);
    sc.st.cp = 4;
    sc.devices = 1024;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r4), 0);
    assert_int_equal(r4.st.cp, 4);
    /* the same microbatches per replica: activations / cp, the same work */
    assert_rel(r4.mem_activations_bytes, r1.mem_activations_bytes / 4, 1e-12);
    assert_rel(r4.hardware_flops_per_step, r1.hardware_flops_per_step, 1e-9);
    assert_rel(r4.model_flops_per_step, r1.model_flops_per_step, 1e-12);
    /* weights shard over dp x cp under ZeRO-1 */
    sc.st.zero = 1;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r4), 0);
    assert_rel(r4.mem_optimizer_bytes * 32 / 12, r4.mem_weights_bytes / 2, 1e-12);
    /* a slow ring (a 1 GB/s scale-out tier between the cp ranks, one per
     * node) shows: the excess of each step over its block is exposed */
    sc.system.inter.bw_bytes_per_s = 1e9;
    sc.system.inter.busbw.n = 0;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r4), 0);
    assert_true(r4.comp_time_s[COMP_CP_COMM] > 0);
    assert_string_equal(component_name(COMP_CP_COMM), "cp_comm");
    /* what the strategy check refuses */
    Diag d;
    diag_clear(&d);
    sc.model.seq_len = 4100; /* not a multiple of 2 cp */
    assert_int_equal(strategy_check(&sc, &d), -1);
    assert_non_null(strstr(d.msg, "2 x cp"));
}

/* Block recompute (Megatron's --recompute-method block): k layers of each
 * model chunk recompute, the others keep their activations.  k = every
 * layer (or more, or 0) is the full recompute; the recompute time and
 * FLOPs grow with k in proportion; auto takes the fewest layers that fit:
 * that one fits, one fewer does not. */
static void test_block_recompute(void **state)
{
    (void)state;
    const char *kv[] = {
        "system=dgx-b200", "model=llama2-70b", "devices=64",        "tp=1", "pp=1", "dp=64", "zero=3",
        "microbatch=2",    "global_batch=256", "model.seq_len=8192"};
    Scenario sc;
    build_scenario(&sc, kv, 10);
    Result none, full, all, zero, half, autok;
    sc.st.recompute = RECOMPUTE_NONE;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &none), 0);
    sc.st.recompute = RECOMPUTE_FULL;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &full), 0);
    assert_int_equal(full.st.recompute_layers, 80); /* resolved: every layer of the one chunk */
    sc.st.recompute_layers = 80;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &all), 0);
    assert_rel(all.step_time_s, full.step_time_s, 1e-12);
    assert_rel(all.mem_activations_bytes, full.mem_activations_bytes, 1e-12);
    assert_rel(all.hardware_flops_per_step, full.hardware_flops_per_step, 1e-12);
    sc.st.recompute_layers = 200; /* more than a chunk has: every layer */
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &all), 0);
    assert_int_equal(all.st.recompute_layers, 80);
    assert_rel(all.step_time_s, full.step_time_s, 1e-12);

    /* one layer and half of them */
    sc.st.recompute_layers = 0;
    Scenario z = sc;
    z.st.recompute_layers = 1;
    assert_int_equal(step_evaluate(&z, 1.0, NULL, &zero), 0);
    z.st.recompute_layers = 40;
    assert_int_equal(step_evaluate(&z, 1.0, NULL, &half), 0);
    assert_rel(half.comp_time_s[COMP_RECOMPUTE], full.comp_time_s[COMP_RECOMPUTE] / 2, 1e-9);
    assert_rel(zero.comp_time_s[COMP_RECOMPUTE], full.comp_time_s[COMP_RECOMPUTE] / 80, 1e-9);
    /* recomputed FLOPs in proportion: hardware - model FLOPs of half is half of full's */
    assert_rel(half.hardware_flops_per_step - none.hardware_flops_per_step,
               (full.hardware_flops_per_step - none.hardware_flops_per_step) / 2, 1e-9);
    /* activations: 40 layers keep their input, 40 everything (what no recompute keeps per layer) */
    const double in = full.mem_activations_bytes, all_act = none.mem_activations_bytes;
    assert_true(half.mem_activations_bytes > in && half.mem_activations_bytes < all_act + in);

    /* auto: the fewest layers that fit */
    z.st.recompute_layers = AUTO_VALUE;
    assert_int_equal(step_evaluate(&z, 1.0, NULL, &autok), 0);
    const int k = autok.st.recompute_layers;
    print_message("block recompute: %d of 80 layers fit in %.0f GiB (full %.3f s, auto %.3f s, none %.3f s, "
                  "%s)\n",
                  k, autok.mem_capacity_bytes / GIB_BYTES, full.step_time_s, autok.step_time_s,
                  none.step_time_s, none.fits_memory ? "fits" : "does not fit");
    assert_true(k > 0 && k < 80);
    assert_true(autok.fits_memory);
    assert_true(autok.step_time_s < full.step_time_s);
    z.st.recompute_layers = k - 1;
    Result fewer;
    assert_int_equal(step_evaluate(&z, 1.0, NULL, &fewer), 0);
    assert_false(fewer.fits_memory);

    /* where every layer's activations fit, auto still recomputes one layer
     * of each chunk: a full recompute of none is recompute none, a strategy
     * of its own (it reported 0 layers, and a step time and memory of its
     * own, until December 2026) */
    Scenario roomy = z;
    roomy.st.global_batch = 128;
    roomy.st.microbatch = 1;
    roomy.model.seq_len = 2048;
    Result roomy_none, roomy_auto, roomy_one;
    roomy.st.recompute = RECOMPUTE_NONE;
    roomy.st.recompute_layers = 0;
    assert_int_equal(step_evaluate(&roomy, 1.0, NULL, &roomy_none), 0);
    assert_true(roomy_none.fits_memory);
    roomy.st.recompute = RECOMPUTE_FULL;
    roomy.st.recompute_layers = AUTO_VALUE;
    assert_int_equal(step_evaluate(&roomy, 1.0, NULL, &roomy_auto), 0);
    assert_int_equal(roomy_auto.st.recompute_layers, 1);
    roomy.st.recompute_layers = 1;
    assert_int_equal(step_evaluate(&roomy, 1.0, NULL, &roomy_one), 0);
    assert_rel(roomy_auto.step_time_s, roomy_one.step_time_s, 1e-12);
    assert_true(roomy_auto.comp_time_s[COMP_RECOMPUTE] > 0);

    /* what the scenario refuses: blocks without a full recompute, or of a model without identical layers */
    static const char *const bad[2][4] = {
        {"system=dgx-b200", "model=llama2-70b", "recompute=selective", "recompute_layers=4"},
        {"system=dgx-v100", "model=resnet50", "devices=8", "recompute_layers=auto"}};
    static const char *const want[2] = {
        "recompute_layers (4) needs recompute full (or auto), got selective",
        "recompute_layers (auto) recomputes blocks of a transformer's layers; a "
        "cnn model takes 0"};
    for (int i = 0; i < 2; i++) {
        Scenario b;
        ScenarioSource src;
        Diag d;
        diag_clear(&d);
        assert_int_equal(scenario_build_kv(&db, "test", bad[i], NULL, 4, &b, &src, &d), -1);
        scenario_source_free(&src);
        assert_string_equal(d.msg, want[i]);
    }
}

/* Mixture of experts: the published parameter count, the active FLOPs (a
 * token through k experts: a dense MLP of k expert widths, plus the
 * router), expert weights divided by ep, the all-to-all's bytes, and what
 * the strategy check refuses. */
static void test_mixture_of_experts(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-h100", "model=mixtral-8x7b", "devices=64", "tp=1", "pp=4", "ep=1",
                        "microbatch=1",    "global_batch=256"};
    Scenario sc;
    build_scenario(&sc, kv, 8);
    Graph g;
    Diag d;
    diag_clear(&d);
    GraphParams gp = {.tp = 1,
                      .microbatch = 1,
                      .precision = PREC_BF16,
                      .recompute = RECOMPUTE_NONE,
                      .pp = 4,
                      .flash = 1,
                      .cp = 1,
                      .ep = 1,
                      .quant_casts = 1};
    assert_int_equal(graph_build(&sc.model, &gp, &g, &d), 0);
    assert_rel(g.params_total, 46.70e9, 5e-3); /* Jiang et al. 2024: 46.7 B */
    const double expert = 3.0 * 4096 * 14336;
    assert_rel(g.params_expert_per_layer, 8 * expert, 1e-12);
    /* the same model with one MLP of 2 experts' width: its FLOPs plus the router's */
    Model dense = sc.model;
    dense.experts = 0;
    dense.ffn = 2 * 14336;
    Graph gd;
    assert_int_equal(graph_build(&dense, &gp, &gd, &d), 0);
    assert_rel(g.model_flops_per_sample - gd.model_flops_per_sample, 3.0 * 32 * 2.0 * 4096 * 4096 * 8, 1e-9);
    /* no all-to-all with ep 1; with ep 8 a dispatch and a combine of the
     * rank's tokens x top-k x hidden, 2 bytes each (the dispatch with each
     * pair's fp32 routing probability), and before them the all-gather of
     * the tokens per expert (8 experts x 8 ranks, int64) */
    int a2a = 0, counts = 0;
    for (int i = 0; i < g.layer_fwd.n; i++)
        a2a += g.layer_fwd.op[i].kind == OP_COMM && g.layer_fwd.op[i].group == GROUP_EP;
    assert_int_equal(a2a, 0);
    gp.ep = 8;
    assert_int_equal(graph_build(&sc.model, &gp, &g, &d), 0);
    for (int i = 0; i < g.layer_fwd.n; i++) {
        const Op *op = &g.layer_fwd.op[i];
        if (op->kind == OP_COMM && op->group == GROUP_EP && op->coll == COLL_ALLGATHER) {
            counts++;
            assert_rel(op->comm_bytes, 8.0 * 8 * 8, 1e-12);
        } else if (op->kind == OP_COMM && op->group == GROUP_EP) {
            a2a++;
            assert_int_equal(op->coll, COLL_ALLTOALL);
            const double probs = strcmp(op->name, "moe.dispatch") ? 0.0 : 4096.0 * 2 * 4;
            assert_rel(op->comm_bytes, 4096.0 * 2 * 4096 * 2 + probs, 1e-12);
        }
    }
    assert_int_equal(a2a, 2);
    assert_int_equal(counts, 1);

    /* one module per expert (grouped_gemm no, Megatron-Core's SequentialMLP):
     * each local expert's GEMMs and activation dispatched alone, the same
     * bytes in all; with ep 1 the rank's 8 experts */
    gp.ep = 1;
    double act_bytes[2] = {0, 0};
    for (int seq = 0; seq < 2; seq++) {
        gp.sequential_experts = seq;
        assert_int_equal(graph_build(&sc.model, &gp, &g, &d), 0);
        int seen = 0;
        for (int i = 0; i < g.layer_fwd.n; i++) {
            const Op *op = &g.layer_fwd.op[i];
            if (!strcmp(op->name, "expert_up")) {
                assert_int_equal(op_runs(op), 8);
                assert_int_equal(op->grouped, !seq);
                seen++;
            } else if (!strcmp(op->name, "swiglu") && op->kind == OP_MEMBOUND) {
                assert_int_equal(op_runs(op), seq ? 8 : 1);
                act_bytes[seq] = op->bytes * op_runs(op);
                seen++;
            }
        }
        assert_int_equal(seen, 2);
    }
    assert_true(act_bytes[0] > 0);
    assert_rel(act_bytes[1], act_bytes[0], 1e-12);
    /* on the device the same work; the host dispatches 8 times the ops */
    Result grouped, sequential;
    sc.st.ep = 1;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &grouped), 0);
    sc.system.framework.grouped_gemm = 0;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &sequential), 0);
    sc.system.framework.grouped_gemm = 1;
    assert_rel(sequential.comp_time_s[COMP_GEMM], grouped.comp_time_s[COMP_GEMM], 1e-12);
    assert_true(sequential.step_time_s >= grouped.step_time_s);
    gp.sequential_experts = 0;
    gp.ep = 8;

    /* expert weights: / ep on each device; the rest as before */
    Result r1, r8;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r1), 0);
    assert_rel(r1.comp_time_s[COMP_EP_COMM], 0, 0);
    sc.st.ep = 8;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r8), 0);
    const double layers = 8; /* 32 over pp 4 */
    assert_rel(r1.mem_weights_bytes - r8.mem_weights_bytes, layers * 8 * expert * (1 - 1.0 / 8) * 2, 1e-9);
    assert_true(r8.comp_time_s[COMP_EP_COMM] > 0);
    assert_string_equal(component_name(COMP_EP_COMM), "ep_comm");

    /* what the strategy check refuses */
    diag_clear(&d);
    sc.st.ep = 3; /* 8 experts */
    assert_int_equal(strategy_check(&sc, &d), -1);
    assert_non_null(strstr(d.msg, "experts (8) must be divisible by ep (3)"));
    diag_clear(&d);
    sc.st.ep = 8;
    sc.st.dp = 4;
    sc.devices = 16;
    assert_int_equal(strategy_check(&sc, &d), -1);
    assert_non_null(strstr(d.msg, "etp x ep (1 x 8) must divide tp x cp x dp (1 x 1 x 4 = 4)"));
    diag_clear(&d);
    sc.model.experts = 0;
    sc.st.dp = 16;
    sc.devices = 64;
    assert_int_equal(strategy_check(&sc, &d), -1);
    assert_non_null(strstr(d.msg, "expert parallelism splits a mixture of experts"));
    sc.st.ep = 1;
    sc.st.etp = 2;
    assert_int_equal(strategy_check(&sc, &d), -1);
    assert_non_null(strstr(d.msg, "etp (2): expert-tensor parallelism splits a mixture of experts' experts"));
}

/* The kernel of a grouped expert GEMM (Framework.grouped_kernel): cuBLAS
 * launches a GEMM an expert, torch._grouped_mm one kernel for the rank's
 * experts, whose 16-bit tiles run at the device's efficiency.grouped_mm
 * (torchao's B200 benchmarks: about half the dense rate) and whose host
 * dispatch is one call; an fp8 grouped GEMM keeps the dense rate. */
static double expert_up_cost(const Scenario *sc, int want_host, int *runs)
{
    OpTrace *t = malloc(sizeof *t);
    assert_non_null(t);
    Result r;
    assert_int_equal(step_trace(sc, 1.0, NULL, t, &r), 0);
    double v = -1;
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->op[i].list, "layer forward") && !strcmp(t->op[i].name, "expert_up")) {
            v = want_host ? t->op[i].host_s : t->op[i].device_s;
            *runs = t->op[i].runs;
        }
    free(t);
    assert_true(v > 0);
    return v;
}

static void test_torch_grouped_mm(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-b200",
                        "system.framework=pytorch-fsdp",
                        "model=mixtral-8x7b",
                        "devices=8",
                        "tp=1",
                        "pp=1",
                        "ep=1",
                        "microbatch=1",
                        "global_batch=8"};
    Scenario sc;
    build_scenario(&sc, kv, 9);
    Framework *fw = &sc.system.framework;
    const double launch = sc.system.device.launch_s;
    assert_true(launch > 0 && fw->host_op_s > 0);
    int r = 0;
    fw->grouped_kernel = GROUPED_CUBLAS;
    const double cublas = expert_up_cost(&sc, 0, &r), cublas_host = expert_up_cost(&sc, 1, &r);
    assert_int_equal(r, 8); /* the rank's experts, ep 1 */
    fw->grouped_kernel = GROUPED_TORCH;
    sc.system.device.grouped_mm_eff = 1.0;
    const double torch1 = expert_up_cost(&sc, 0, &r), torch_host = expert_up_cost(&sc, 1, &r);
    /* the same tiles, one launch where cuBLAS has eight */
    assert_rel(cublas - torch1, (r - 1) * launch, 1e-9);
    assert_rel(cublas_host, fw->host_op_s + (r - 1) * launch, 1e-12);
    assert_rel(torch_host, fw->host_op_s, 1e-12);
    /* at half the rate: the tiles' time doubles, the launch does not */
    sc.system.device.grouped_mm_eff = 0.5;
    const double torch05 = expert_up_cost(&sc, 0, &r);
    assert_rel(torch05 - launch, 2.0 * (torch1 - launch), 1e-9);
    /* a cuBLAS stack is not touched by the device's grouped rate */
    fw->grouped_kernel = GROUPED_CUBLAS;
    assert_rel(expert_up_cost(&sc, 0, &r), cublas, 1e-12);
    /* nor is an fp8 grouped GEMM */
    sc.precision = PREC_FP8;
    fw->grouped_kernel = GROUPED_TORCH;
    const double fp8_half = expert_up_cost(&sc, 0, &r);
    sc.system.device.grouped_mm_eff = 1.0;
    assert_rel(expert_up_cost(&sc, 0, &r), fp8_half, 1e-12);
}

/* A CUDA graph replay is a host call (Framework.cuda_graphs): under
 * per-layer graphs (partial) a dense layer's forward, all of it captured,
 * costs the host one dispatch, on its first op, where without graphs each
 * op costs one; a graph of the whole step (full) replays once a step and
 * costs a layer's list nothing.  The device's work never moves. */
static void graph_host(const Scenario *sc, const char *list, int *ops, double *first, double *total,
                       double *device)
{
    OpTrace *t = malloc(sizeof *t);
    assert_non_null(t);
    Result r;
    assert_int_equal(step_trace(sc, 1.0, NULL, t, &r), 0);
    *ops = 0;
    *first = -1;
    *total = *device = 0;
    for (int i = 0; i < t->n; i++) {
        if (strcmp(t->op[i].list, list))
            continue;
        if (*first < 0)
            *first = t->op[i].host_s;
        *total += t->op[i].host_s;
        *device += t->op[i].device_s;
        ++*ops;
    }
    free(t);
    assert_true(*ops > 5);
}

static void test_graph_replay_host(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-h100",
                        "system.framework=megatron-core",
                        "model=llama2-7b",
                        "devices=8",
                        "tp=2",
                        "pp=1",
                        "microbatch=1",
                        "global_batch=8",
                        "recompute=none"};
    Scenario sc;
    build_scenario(&sc, kv, 9);
    Framework *fw = &sc.system.framework;
    fw->host_op_s = 100e-6;
    int n_none, n_part, n_full;
    double first, total_none, total_part, total_full, dev_none, dev_part, dev_full;
    fw->cuda_graphs = GRAPHS_NONE;
    graph_host(&sc, "layer forward", &n_none, &first, &total_none, &dev_none);
    assert_rel(total_none, n_none * 100e-6, 1e-9);
    fw->cuda_graphs = GRAPHS_PARTIAL;
    graph_host(&sc, "layer forward", &n_part, &first, &total_part, &dev_part);
    assert_int_equal(n_part, n_none);
    assert_rel(first, 100e-6, 1e-12);
    assert_rel(total_part, 100e-6, 1e-12);
    fw->cuda_graphs = GRAPHS_FULL;
    graph_host(&sc, "layer forward", &n_full, &first, &total_full, &dev_full);
    assert_true(total_full == 0.0);
    assert_rel(dev_part, dev_none, 1e-12);
    assert_rel(dev_full, dev_none, 1e-12);
    /* the backward list replays its own graph */
    fw->cuda_graphs = GRAPHS_PARTIAL;
    graph_host(&sc, "layer backward", &n_part, &first, &total_part, &dev_part);
    assert_rel(total_part, 100e-6, 1e-12);
}

/* Expert-tensor parallelism apart from tp (Megatron-Core's MoE parallel
 * folding): each rank routes its own s b / tp tokens (no sequence gather
 * before the experts), the all-to-all moves them, an etp group gathers its
 * members' pairs before the experts and reduce-scatters them after; the
 * experts' weights split over etp x ep; ep may span the tensor ranks. */
static void test_expert_tensor_parallel(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-h100", "model=mixtral-8x7b", "devices=64",       "tp=2", "pp=4", "ep=8",
                        "microbatch=1",    "global_batch=256",   "seq_parallel=yes", "etp=1"};
    Scenario sc;
    build_scenario(&sc, kv, 10);
    GraphParams gp = {.tp = 2,
                      .seq_parallel = 1,
                      .microbatch = 1,
                      .precision = PREC_BF16,
                      .pp = 4,
                      .flash = 1,
                      .cp = 1,
                      .ep = 8,
                      .etp = 1};
    Graph g;
    Diag d;
    diag_clear(&d);
    const double rows = 4096, h = 4096, topk = 2;
    for (int etp = 1; etp <= 2; etp++) {
        gp.etp = etp;
        assert_int_equal(graph_build(&sc.model, &gp, &g, &d), 0);
        int n_etp = 0, n_ep = 0, gather = 0;
        for (int i = 0; i < g.layer_fwd.n; i++) {
            const Op *op = &g.layer_fwd.op[i];
            gather += !strcmp(op->name, "ln2.allgather");
            if (op->kind == OP_COMM && op->group == GROUP_EP && op->coll == COLL_ALLTOALL) {
                n_ep++;
                const double probs = strcmp(op->name, "moe.dispatch") ? 0.0 : rows / 2 * topk * 4;
                assert_rel(op->comm_bytes, rows / 2 * topk * h * 2 + probs, 1e-12);
            }
            if (op->kind == OP_COMM && op->group == GROUP_ETP) {
                n_etp++;
                assert_rel(op->comm_bytes, rows / 2 * etp * topk * h * 2, 1e-12);
            }
            if (!strcmp(op->name, "expert_up")) /* the busiest of 1 expert: all the gathered pairs */
                assert_int_equal(op->n, 2 * 14336 / etp);
        }
        assert_int_equal(n_ep, 2);
        assert_int_equal(n_etp, etp > 1 ? 2 : 0);
        assert_int_equal(gather, 0); /* no shared experts: nothing gathered over tp */
    }
    Result r1, r2;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r1), 0); /* ep 8 over tp 2 x dp 8: folded */
    assert_int_equal(r1.st.etp, 1);
    sc.st.etp = 0; /* as tp */
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r2), 0);
    assert_int_equal(r2.st.etp, 2);
    const double expert = 3.0 * 4096 * 14336, layers = 8;
    assert_rel(r1.mem_weights_bytes - r2.mem_weights_bytes, layers * 8 * expert / 8 * (1 - 1.0 / 2) * 2,
               1e-9);
    /* dp 2 leaves tp x dp = 4 ranks, too few for ep 8 */
    sc.st.etp = 1;
    sc.st.dp = 2;
    sc.devices = 16;
    sc.st.global_batch = 64;
    assert_int_equal(strategy_check(&sc, &d), -1);
    assert_non_null(strstr(d.msg, "etp x ep (1 x 8) must divide tp x cp x dp (2 x 1 x 2 = 4)"));
}

/* Expert parallelism across nodes: DeepEP's dispatcher sends a token
 * once to each node that holds one of its experts (top-2 over two nodes:
 * 3/4 of the all-to-all's crossing); overlapping the all-to-all with
 * another microbatch's compute hides it in the paired microbatches, up to
 * the compute, and the compute loses the SMs the all-to-all holds. */
static void test_expert_overlap(void **state)
{
    (void)state;
    const char *kv[] = {
        "system=dgx-h100", "model=mixtral-8x7b", "devices=64",      "tp=1", "pp=4", "ep=16", "etp=1",
        "microbatch=1",    "global_batch=256",   "model.experts=16"};
    Scenario sc;
    build_scenario(&sc, kv, 10);
    Result a, d, o;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &a), 0);
    const double ep = a.comp_time_s[COMP_EP_COMM];
    assert_true(ep > 0);
    sc.system.framework.dispatcher = DISPATCH_DEEPEP;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &d), 0);
    assert_true(d.comp_time_s[COMP_EP_COMM] < 0.8 * ep);
    assert_true(d.comp_time_s[COMP_EP_COMM] > 0.7 * ep);
    assert_rel(d.comp_time_s[COMP_GEMM], a.comp_time_s[COMP_GEMM], 1e-15);

    sc.system.framework.dispatcher = DISPATCH_ALLTOALL;
    sc.system.framework.ep_overlap = 1;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &o), 0);
    const double compute = a.comp_time_s[COMP_GEMM] + a.comp_time_s[COMP_ATTENTION] +
                           a.comp_time_s[COMP_MEMBOUND] + a.comp_time_s[COMP_EMBED_HEAD] +
                           a.comp_time_s[COMP_RECOMPUTE];
    const double m = 256.0 / 16, paired = 1 - 3 / m, sms = sc.system.device.sms, c = 20;
    assert_int_equal(sc.system.device.sms, 132);
    assert_int_equal(sc.system.framework.ep_comm_sms, 20);
    assert_rel(o.comp_time_s[COMP_EP_COMM], ep - paired * fmin(ep, compute) * (1 - c / (sms - c)), 1e-12);
    assert_true(o.step_time_s < a.step_time_s);
    /* all-to-all kernels that hold half the SMs slow the compute under
     * them by as much as they hide: nothing gained */
    sc.system.framework.ep_comm_sms = 66;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &o), 0);
    assert_rel(o.comp_time_s[COMP_EP_COMM], ep, 1e-12);
    /* more than that, or more than the device has: never worse than not
     * overlapping */
    sc.system.framework.ep_comm_sms = 100;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &o), 0);
    assert_rel(o.comp_time_s[COMP_EP_COMM], ep, 1e-12);
    sc.system.framework.ep_comm_sms = 500;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &o), 0);
    assert_rel(o.comp_time_s[COMP_EP_COMM], ep, 1e-12);
}

/* Block-scaled fp4 (Blackwell): twice fp8's matrix rate on a compute-bound
 * GEMM, at fp8's achievable fraction; a device without fp4 units refuses
 * it with its reason. */
static void test_fp4(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-b200", "model=gemm", "model.m=16384", "model.n=16384",
                        "model.k=16384",   "devices=1",  "precision=fp8"};
    Scenario sc;
    build_scenario(&sc, kv, 7);
    Result r8, r4;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r8), 0);
    sc.precision = PREC_FP4;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r4), 0);
    assert_rel(r4.step_time_s / r8.step_time_s, 0.5, 0.02);
    assert_string_equal(precision_name(PREC_FP4), "fp4");
    const char *kh[] = {"system=dgx-h100", "model=gemm", "model.m=4096", "model.n=4096",
                        "model.k=4096",    "devices=1",  "precision=fp4"};
    build_scenario(&sc, kh, 7);
    Result rh;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &rh), -1);
    assert_non_null(strstr(rh.error, "no fp4 matrix units"));
}

/* Row-wise fp8 scaling (torchao's rowwise recipe): a row-scaled forward
 * GEMM runs at fp8_rowwise_gemm of the tensor-wise rate; the gradient GEMMs
 * keep the tensor-wise rate and a kernel of their own scales their output
 * (memory-bound time, none in the GEMMs'); a bf16 run is untouched. */
static void test_fp8_rowwise(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-h100", "system.framework=pytorch-fsdp",
                        "model=gemm",      "model.m=8192",
                        "model.n=8192",    "model.k=8192",
                        "devices=1",       "precision=fp8"};
    Scenario sc;
    build_scenario(&sc, kv, 8);
    Result cur, row;
    sc.system.framework.fp8_scaling = FP8_SCALING_CURRENT;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &cur), 0);
    sc.system.framework.fp8_scaling = FP8_SCALING_ROWWISE;
    sc.system.framework.fp8_rowwise_gemm = 0.5;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &row), 0);
    assert_rel(row.step_time_s / cur.step_time_s, 2.0, 1e-9);
    sc.precision = PREC_BF16;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &row), 0);
    sc.system.framework.fp8_scaling = FP8_SCALING_CURRENT;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &cur), 0);
    assert_rel(row.step_time_s, cur.step_time_s, 1e-12);

    const char *kt[] = {"system=dgx-h100",    "system.framework=pytorch-fsdp",
                        "model=gpt",          "model.layers=2",
                        "model.hidden=4096",  "model.heads=32",
                        "model.seq_len=2048", "devices=1",
                        "microbatch=1",       "global_batch=1",
                        "precision=fp8",      "recompute=none"};
    build_scenario(&sc, kt, 12);
    sc.system.framework.fp8_scaling = FP8_SCALING_CURRENT;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &cur), 0);
    sc.system.framework.fp8_scaling = FP8_SCALING_ROWWISE;
    sc.system.framework.fp8_rowwise_gemm = 1.0;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &row), 0);
    assert_rel(row.comp_time_s[COMP_GEMM], cur.comp_time_s[COMP_GEMM], 1e-12);
    assert_true(row.comp_time_s[COMP_MEMBOUND] > cur.comp_time_s[COMP_MEMBOUND] * 1.05);
    assert_true(row.step_time_s > cur.step_time_s);
}

/* What a stack runs in fp8 beside its linear layers (fp8_attention: TE's
 * fp8 dot-product attention; fp8_head: Megatron-Core's MXFP8 output
 * projection): under fp8 training the attention and the head run faster
 * with them and exactly as fast without them as under bf16 linear layers'
 * rule; a bf16 run ignores both.  A fused attention block's softmax runs
 * on the special-function units beside its MMAs: where the exponentials
 * dominate (a device with very few), the block's time is theirs, in
 * proportion to 1 / sfu_exp; with none modelled (0) nothing changes. */
static void test_fp8_attention_head(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-b200", "model=gpt",          "model.layers=2", "model.hidden=4096",
                        "model.heads=32",  "model.seq_len=4096", "devices=1",      "microbatch=1",
                        "global_batch=1",  "precision=fp8",      "recompute=none"};
    Scenario sc;
    build_scenario(&sc, kv, 11);
    Result base, attn, head, bf;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &base), 0);
    sc.system.framework.fp8_attention = 1;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &attn), 0);
    assert_true(attn.comp_time_s[COMP_ATTENTION] < 0.75 * base.comp_time_s[COMP_ATTENTION]);
    assert_rel(attn.comp_time_s[COMP_EMBED_HEAD], base.comp_time_s[COMP_EMBED_HEAD], 1e-12);
    assert_rel(attn.comp_time_s[COMP_GEMM], base.comp_time_s[COMP_GEMM], 1e-12);
    sc.system.framework.fp8_head = 1;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &head), 0);
    assert_true(head.comp_time_s[COMP_EMBED_HEAD] < 0.8 * attn.comp_time_s[COMP_EMBED_HEAD]);
    assert_rel(head.comp_time_s[COMP_ATTENTION], attn.comp_time_s[COMP_ATTENTION], 1e-12);
    /* bf16 training: both flags are moot */
    sc.precision = PREC_BF16;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &bf), 0);
    Result bf0;
    sc.system.framework.fp8_attention = sc.system.framework.fp8_head = 0;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &bf0), 0);
    assert_rel(bf.step_time_s, bf0.step_time_s, 1e-12);

    /* the softmax's exponentials: off (0), then few enough to dominate */
    Result off, few, fewer;
    sc.system.device.exp_per_clock = 0;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &off), 0);
    sc.system.device.exp_per_clock = 1e-3;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &few), 0);
    sc.system.device.exp_per_clock = 0.5e-3;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &fewer), 0);
    assert_true(few.comp_time_s[COMP_ATTENTION] > 100.0 * off.comp_time_s[COMP_ATTENTION]);
    assert_rel(fewer.comp_time_s[COMP_ATTENTION] / few.comp_time_s[COMP_ATTENTION], 2.0, 1e-9);
    assert_rel(few.comp_time_s[COMP_GEMM], off.comp_time_s[COMP_GEMM], 1e-12);
}

/* The stack's gradient buffers (framework grad_precision): Megatron-LM
 * accumulates fp32 main_grads and all-reduces 4 bytes a parameter;
 * DeepSpeed's engine keeps a 16-bit run's gradients in its own type and
 * all-reduces 2 (vTrain's stack).  One data-parallel rank per node (tp 8 on
 * 8-GPU nodes): the exchange is the all-reduce of those bytes over 32
 * nodes, and the gradients' memory is those bytes a parameter.  An fp32
 * run has 4-byte gradients either way. */
static void test_grad_precision(void **state)
{
    (void)state;
    const char *kv[] = {"system=vtrain-a100",
                        "model=gpt",
                        "model.layers=40",
                        "model.hidden=6144",
                        "model.heads=48",
                        "model.seq_len=2048",
                        "model.vocab=50257",
                        "devices=256",
                        "tp=8",
                        "pp=1",
                        "dp=32",
                        "microbatch=8",
                        "global_batch=1024",
                        "recompute=full",
                        "precision=fp16"};
    Scenario sc;
    build_scenario(&sc, kv, 15);
    assert_int_equal(sc.system.framework.grad, GRAD_16BIT);
    Group g;
    net_group(&sc.system, 32, 8, &g);
    const double bytes[2] = {2.0, 4.0};
    for (int i = 0; i < 2; i++) {
        sc.system.framework.grad = i == 0 ? GRAD_16BIT : GRAD_FP32;
        Result r;
        assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r), 0);
        const double p = r.mem_weights_bytes / 2; /* fp16 weights, no ZeRO */
        assert_rel(r.mem_grads_bytes, p * bytes[i], 1e-12);
        CollCost c;
        net_collective(&sc.system, &g, COLL_ALLREDUCE, p * bytes[i], &c);
        assert_rel(r.comp_time_s[COMP_DP_COMM] + r.comp_time_s[COMP_DP_HIDDEN], c.time_s, 1e-12);
    }
    sc.system.framework.grad = GRAD_16BIT;
    sc.precision = PREC_FP32;
    Result r;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r), 0);
    assert_rel(r.mem_grads_bytes, r.mem_weights_bytes, 1e-12);
}

/* The optimizer's own state (framework optimizer_state): Megatron's and
 * DeepSpeed's optimizers keep Adam's moments and the master weights in fp32,
 * 4 + 4 + 4 bytes a parameter; Apex's DistributedFusedAdam with dtype bf16
 * (NeMo Launcher's Nemotron-4 340B recipes) keeps the moments and its copy
 * of the parameters in bf16, 2 + 2 + 2.  The optimizer step reads and
 * writes that state, so its memory traffic shrinks by the same 6 bytes
 * twice; the weights, gradients and every other component stay.  An fp32
 * run has no 16-bit type to keep them in. */
static void test_optimizer_state(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-h100",
                        "model=gpt",
                        "model.layers=8",
                        "model.hidden=4096",
                        "model.heads=32",
                        "model.seq_len=2048",
                        "model.vocab=50257",
                        "devices=8",
                        "tp=8",
                        "pp=1",
                        "dp=1",
                        "microbatch=1",
                        "global_batch=8",
                        "recompute=full",
                        "precision=bf16"};
    Scenario sc;
    build_scenario(&sc, kv, 15);
    assert_int_equal(sc.system.framework.opt_state, OPTSTATE_FP32);
    Result r32, r16;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r32), 0);
    sc.system.framework.opt_state = OPTSTATE_16BIT;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &r16), 0);
    const double p = r32.mem_weights_bytes / 2; /* bf16 weights, no ZeRO */
    assert_rel(r32.mem_optimizer_bytes, p * 12.0, 1e-12);
    assert_rel(r16.mem_optimizer_bytes, p * 6.0, 1e-12);
    assert_rel(r16.mem_weights_bytes, r32.mem_weights_bytes, 1e-12);
    assert_rel(r16.mem_grads_bytes, r32.mem_grads_bytes, 1e-12);
    assert_true(r16.comp_time_s[COMP_OPTIMIZER] < r32.comp_time_s[COMP_OPTIMIZER]);
    for (int c = 0; c < COMP_COUNT; c++)
        if (c != COMP_OPTIMIZER)
            assert_rel(r16.comp_time_s[c], r32.comp_time_s[c], 1e-12);
    /* the checkpoint holds the same state */
    assert_rel(scale_checkpoint_bytes(&sc, 1e9), 1e9 * (2.0 + 6.0), 1e-12);
    sc.system.framework.opt_state = OPTSTATE_FP32;
    assert_rel(scale_checkpoint_bytes(&sc, 1e9), 1e9 * (2.0 + 12.0), 1e-12);
    /* fp32 training: the state stays fp32 */
    sc.system.framework.opt_state = OPTSTATE_16BIT;
    sc.precision = PREC_FP32;
    Result rf;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &rf), 0);
    assert_rel(rf.mem_optimizer_bytes, rf.mem_weights_bytes / 4 * 8.0, 1e-12);
}

/* Megatron-Core's overlap_p2p_comm (framework pp_overlap): in the
 * interleaved schedule each chunk's stage sends run under the next chunk's
 * compute, so with sends shorter than a chunk only the fill's and the
 * drain's 2 (pp - 1) show, of the 2 (v m + pp - 1) a blocking pipeline
 * pays; 1F1B (v = 1) has no such overlap; nothing else in the step moves. */
static void test_pp_overlap(void **state)
{
    (void)state;
    const char *kv[] = {
        "system=dgx-h100", "model=gpt3-175b",  "devices=512",  "tp=8",           "pp=8",
        "microbatch=1",    "global_batch=512", "interleave=4", "recompute=full", "seq_parallel=yes",
        "zero=1"};
    Scenario sc;
    build_scenario(&sc, kv, 11);
    for (int v = 4; v >= 1; v -= 3) {
        sc.st.interleave = v;
        Result off, on;
        sc.system.framework.pp_overlap = 0;
        assert_int_equal(step_evaluate(&sc, 1.0, NULL, &off), 0);
        sc.system.framework.pp_overlap = 1;
        assert_int_equal(step_evaluate(&sc, 1.0, NULL, &on), 0);
        assert_true(off.comp_time_s[COMP_PP_COMM] > 0);
        const double m = 512.0 / 8, pp = 8; /* microbatches a pipeline: global batch / dp (8) */
        const double shown = v > 1 ? 2.0 * (pp - 1) / (2.0 * (v * m + pp - 1)) : 1.0;
        assert_rel(on.comp_time_s[COMP_PP_COMM], off.comp_time_s[COMP_PP_COMM] * shown, 1e-9);
        for (int c = 0; c < COMP_COUNT; c++)
            if (c != COMP_PP_COMM)
                assert_rel(on.comp_time_s[c], off.comp_time_s[c], 1e-12);
    }
}

/* Transformer Engine's userbuffer overlap of TP collectives with the GEMMs
 * (megatron-core's tp_overlap) needs the tensor group in one NVLink domain:
 * on 8-GPU nodes tp 8 hides part of its collectives, tp 16 (over
 * InfiniBand) blocks on them as a stack without the overlap does. */
static void test_tp_overlap_domain(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-h100",
                        "model=gpt3-175b",
                        "devices=128",
                        "tp=8",
                        "pp=8",
                        "dp=2",
                        "microbatch=1",
                        "global_batch=64",
                        "recompute=none",
                        "seq_parallel=yes",
                        "precision=bf16",
                        "zero=1"};
    Scenario sc;
    build_scenario(&sc, kv, 12);
    assert_true(sc.system.framework.tp_overlap > 0);
    for (int tp = 8; tp <= 16; tp *= 2) {
        sc.st.tp = tp;
        sc.st.pp = 128 / tp / 2;
        Result with, without;
        assert_int_equal(step_evaluate(&sc, 1.0, NULL, &with), 0);
        const double f = sc.system.framework.tp_overlap;
        sc.system.framework.tp_overlap = 0;
        assert_int_equal(step_evaluate(&sc, 1.0, NULL, &without), 0);
        sc.system.framework.tp_overlap = f;
        if (tp == 8)
            assert_true(with.comp_time_s[COMP_TP_COMM] < 0.5 * without.comp_time_s[COMP_TP_COMM]);
        else
            assert_rel(with.comp_time_s[COMP_TP_COMM], without.comp_time_s[COMP_TP_COMM], 1e-12);
    }
}

/* The op trace (step_trace; deepflow eval --ops): the step it gives is
 * step_evaluate's to the bit; each list once, a full recompute's the same
 * ops and time as the forward's; a GEMM's shape as the layer has it and no
 * faster than the device's peak; a tensor-parallel all-reduce of the
 * layer's activations (mb s h, 2 bytes each) on the network. */
static void test_step_trace(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-h100",    "system.framework=ideal",
                        "model=gpt",          "model.layers=2",
                        "model.hidden=4096",  "model.heads=32",
                        "devices=2",          "tp=2",
                        "model.seq_len=2048", "pp=1",
                        "microbatch=2",       "global_batch=4",
                        "recompute=full"};
    Scenario sc;
    build_scenario(&sc, kv, 13);
    OpTrace *t = malloc(sizeof *t);
    assert_non_null(t);
    Result plain, traced;
    assert_int_equal(step_evaluate(&sc, 1.0, NULL, &plain), 0);
    assert_int_equal(step_trace(&sc, 1.0, NULL, t, &traced), 0);
    assert_true(plain.step_time_s == traced.step_time_s);
    assert_true(plain.comp_time_s[COMP_TP_COMM] == traced.comp_time_s[COMP_TP_COMM]);
    assert_true(plain.mem_total_bytes == traced.mem_total_bytes);
    assert_int_equal(t->nlisted, 7);
    int nf = 0, nr = 0, seen = 0;
    double tf = 0, tr = 0;
    for (int i = 0; i < t->n; i++) {
        const OpCost *o = &t->op[i];
        assert_true(o->device_s > 0);
        assert_true(o->host_s == 0); /* the ideal stack dispatches for free */
        if (!strcmp(o->list, "layer forward")) {
            nf++;
            tf += o->device_s;
        } else if (!strcmp(o->list, "layer recompute")) {
            nr++;
            tr += o->device_s;
        }
        if (strcmp(o->list, "layer forward"))
            continue;
        if (!strcmp(o->name, "qkv")) {
            assert_string_equal(o->kind, "gemm");
            assert_int_equal(o->m, 2 * 2048);
            assert_int_equal(o->n, 3 * 4096 / 2);
            assert_int_equal(o->k, 4096);
            assert_rel(o->flops, 2.0 * 4096 * 6144 * 4096, 1e-12);
            assert_true(o->device_s >= o->flops / sc.system.device.matrix_flops[PREC_BF16]);
            assert_string_equal(o->bound, "compute");
            seen++;
        } else if (!strcmp(o->name, "proj.allreduce")) {
            assert_string_equal(o->kind, "collective");
            assert_int_equal(o->comp, COMP_TP_COMM);
            assert_rel(o->bytes, 2.0 * 2048 * 4096 * 2, 1e-12);
            assert_string_equal(o->bound, "network");
            seen++;
        }
    }
    assert_int_equal(seen, 2);
    assert_true(nf > 0);
    assert_int_equal(nr, nf);
    assert_rel(tr, tf, 1e-12);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stage_layers),
        cmocka_unit_test(test_bubble),
        cmocka_unit_test(test_inflight),
        cmocka_unit_test(test_zero_sharding),
        cmocka_unit_test(test_split_bubble),
        cmocka_unit_test(test_pipeline_schedules),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_expert_tensor_parallel),
        cmocka_unit_test(test_expert_overlap),
        cmocka_unit_test(test_activations),
        cmocka_unit_test(test_dp_exchange),
        cmocka_unit_test(test_step_schedule),
        cmocka_unit_test(test_dp_buckets),
        cmocka_unit_test(test_grad_sync_each),
        cmocka_unit_test(test_strategy_value),
        cmocka_unit_test(test_context_parallel),
        cmocka_unit_test(test_block_recompute),
        cmocka_unit_test(test_mixture_of_experts),
        cmocka_unit_test(test_fp4),
        cmocka_unit_test(test_fp8_rowwise),
        cmocka_unit_test(test_step_trace),
        cmocka_unit_test(test_torch_grouped_mm),
        cmocka_unit_test(test_graph_replay_host),
        cmocka_unit_test(test_fp8_attention_head),
        cmocka_unit_test(test_grad_precision),
        cmocka_unit_test(test_optimizer_state),
        cmocka_unit_test(test_pp_overlap),
        cmocka_unit_test(test_tp_overlap_domain),
        cmocka_unit_test(test_pace),
    };
    return cmocka_run_group_tests(tests, db_setup, db_teardown);
}
