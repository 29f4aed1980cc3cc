/* tests/test_scale_search.c — time-to-train and the strategy search.
 * Convergence curves: the critical-batch law and log-log interpolation of
 * measured points, a larger batch never needs fewer epochs; the search
 * returns the true optimum of the model over the strategies it may try
 * (checked against brute force), honours its bounds, and says why when
 * nothing fits the constraints. */
#include "testdb.h"
#include "testutil.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "batch/evaluate.h"
#include "batch/run.h"
#include "report/columns.h"
#include "core/strategy.h"
#include "io/scenario.h"
#include "io/template.h"
#include "scale/scale.h"
#include "search/search.h"

static void test_critical_batch(void **state)
{
    (void)state;
    Convergence c = {.name = "c", .kind = CONV_CRITICAL, .epochs_min = 34.5, .b_crit = 46300};
    assert_rel(scale_epochs_at(&c, 46300), 69.0, 1e-12); /* twice the minimum at B = B_crit */
    Scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.model.kind = MODEL_CNN;
    sc.model.dataset_samples = 1281167;
    sc.model.convergence = c;
    sc.st.global_batch = 8192;
    double steps, epochs;
    char why[128];
    assert_int_equal(scale_steps(&sc, &steps, &epochs, why, sizeof why), 0);
    assert_rel(epochs, 34.5 * (1 + 8192.0 / 46300), 1e-12);
    assert_rel(steps, ceil(epochs * 1281167 / 8192), 1e-12);
    /* steps form: S_min (1 + B_noise / B) */
    Convergence s = {.name = "s", .kind = CONV_CRITICAL, .s_min = 31, .b_noise = 16700};
    sc.model.convergence = s;
    sc.st.global_batch = 1536;
    assert_int_equal(scale_steps(&sc, &steps, &epochs, why, sizeof why), 0);
    assert_rel(steps, ceil(31 * (1 + 16700.0 / 1536)), 1e-12);
}

static void test_table_curve(void **state)
{
    (void)state;
    Convergence c = {.name = "t", .kind = CONV_TABLE, .table = {.n = 3}};
    double b[] = {1000, 4000, 16000}, e[] = {30, 40, 80};
    memcpy(c.table.x, b, sizeof b);
    memcpy(c.table.y, e, sizeof e);
    for (int i = 0; i < 3; i++)
        assert_rel(scale_epochs_at(&c, b[i]), e[i], 1e-12);
    /* halfway in log B is the geometric mean of the epochs */
    assert_rel(scale_epochs_at(&c, 2000), sqrt(30.0 * 40.0), 1e-12);
    /* extrapolated along the end segments, and monotone */
    assert_rel(scale_epochs_at(&c, 64000), 80 * 2, 1e-9); /* slope 1/2 in log-log: B x4, epochs x2 */
    double prev = 0;
    for (double x = 100; x < 1e6; x *= 1.7) {
        double y = scale_epochs_at(&c, x);
        assert_true(y >= prev);
        prev = y;
    }
    /* with a fitted critical batch, outside the points the law takes over,
     * anchored at the nearest point */
    c.b_crit = 8000;
    assert_rel(scale_epochs_at(&c, 64000), 80 * (1 + 64000 / 8000.0) / (1 + 16000 / 8000.0), 1e-12);
    assert_rel(scale_epochs_at(&c, 500), 30 * (1 + 500 / 8000.0) / (1 + 1000 / 8000.0), 1e-12);
    assert_rel(scale_epochs_at(&c, 2000), sqrt(30.0 * 40.0), 1e-12); /* inside: unchanged */
    /* the shipped curves load and say a larger batch costs epochs */
    Diag d;
    const Template *t = tdb_get(&db, &param_convergence_table, "imagenet-mlperf", ".", &d);
    assert_non_null(t);
    const Convergence *im = t->obj;
    assert_rel(scale_epochs_at(im, 3264), 35.2, 1e-12);
    assert_true(scale_epochs_at(im, 65536) > 2 * scale_epochs_at(im, 4096));
}

static void test_explicit_amounts_win(void **state)
{
    (void)state;
    static const char *const kv[] = {"system=dgx-a100-80g",
                                     "model=gpt3-175b",
                                     "devices=1024",
                                     "tp=8",
                                     "pp=16",
                                     "global_batch=1536",
                                     "recompute=full",
                                     "model.convergence=gpt3-mlperf",
                                     "train_tokens=300e9"};
    Scenario sc;
    Result r;
    build_scenario(&sc, kv, 9);
    assert_int_equal(evaluate(&sc, &r), 0);
    assert_rel(r.steps, ceil(300e9 / 2048 / 1536), 1e-12);
    build_scenario(&sc, kv, 8); /* no budget: the curve decides */
    sc.train_tokens = 0;
    assert_int_equal(evaluate(&sc, &r), 0);
    assert_rel(r.steps, ceil(31 * (1 + 16700.0 / 1536)), 1e-12);
}

/* The search's answer is the best of an independent brute force over the
 * same space. */
static void test_search_is_optimal(void **state)
{
    (void)state;
    static const char *const kv[] = {
        "system=dgx-a100-80g", "model=gpt",        "devices=32",     "tp=auto",          "pp=auto",
        "microbatch=auto",     "global_batch=256", "recompute=auto", "train_tokens=1e10"};
    Scenario sc;
    Result best;
    build_scenario(&sc, kv, 9);
    assert_int_equal(evaluate(&sc, &best), 0);
    assert_true(best.searched > 20);
    assert_int_equal(best.status, STATUS_OK);
    double brute = INFINITY;
    for (int tp = 1; tp <= 32; tp *= 2)
        for (int pp = 1; tp * pp <= 32; pp *= 2)
            for (int mb = 1; mb <= 256; mb *= 2)
                for (int rc = 0; rc < 3; rc++) {
                    Scenario c = sc;
                    c.st.tp = tp;
                    c.st.pp = pp;
                    c.st.dp = 32 / (tp * pp);
                    c.st.microbatch = mb;
                    c.st.recompute = (Recompute)rc;
                    Diag d;
                    Result r;
                    if (strategy_check(&c, &d) || evaluate(&c, &r) || r.status != STATUS_OK)
                        continue;
                    if (r.time_to_train_s < brute)
                        brute = r.time_to_train_s;
                }
    assert_rel(best.time_to_train_s, brute, 1e-12);
    /* deterministic */
    Result again;
    assert_int_equal(evaluate(&sc, &again), 0);
    assert_true(again.time_to_train_s == best.time_to_train_s && again.st.tp == best.st.tp &&
                again.st.pp == best.st.pp);
}

/* The first rank order (Placement, innermost first over tp, dp, pp) that
 * lays ranks out as order pl does: the same order of the axes of degree >
 * 1.  Written from the definition, not from the search's code. */
static void reduced_order(int q, int tp, int dp, int pp, char out[4])
{
    static const char *const names[PLACE_COUNT] = {"tdp", "tpd", "dtp", "dpt", "ptd", "pdt"};
    int k = 0;
    for (int i = 0; i < 3; i++) {
        const char a = names[q][i];
        if ((a == 't' && tp > 1) || (a == 'd' && dp > 1) || (a == 'p' && pp > 1))
            out[k++] = a;
    }
    out[k] = '\0';
}

static int first_placement(int pl, int tp, int dp, int pp)
{
    char want[4], got[4];
    reduced_order(pl, tp, dp, pp, want);
    for (int q = 0; q < pl; q++) {
        reduced_order(q, tp, dp, pp, got);
        if (!strcmp(got, want))
            return q;
    }
    return pl;
}

/* Every strategy axis open at once (placement, sequence parallelism and
 * ZeRO too): the answer is the best of a brute force over the whole
 * product, pruned equivalents included, and every candidate the search
 * skipped as equivalent gives exactly its representative's result — the
 * pruning cannot drop the optimum.  The runners-up are distinct, sorted,
 * and the first is the answer. */
static void test_search_all_axes(void **state)
{
    (void)state;
    static const char *const kv[] = {
        "system=dgx-a100-80g", "model=gpt",       "devices=8",        "tp=auto",         "pp=auto",
        "microbatch=auto",     "global_batch=32", "recompute=auto",   "interleave=auto", "placement=auto",
        "seq_parallel=auto",   "zero=auto",       "train_tokens=1e10"};
    Scenario sc;
    build_scenario(&sc, kv, 13);
    Candidate cand[8];
    SearchTop top = {cand, 8, 0};
    Result best;
    assert_int_equal(evaluate_top(&sc, NULL, &best, &top), 0);
    assert_int_equal(best.status, STATUS_OK);
    assert_true(best.search_pruned > 0);
    assert_true(best.search_feasible > 0 && best.search_feasible <= best.searched);
    assert_true(best.searched + best.search_pruned <= best.search_space);

    double brute = INFINITY;
    int evaluated = 0;
    static const int vs[] = {1, 2, 3, 4, 6, 8};
    for (int tp = 1; tp <= 8; tp *= 2)
        for (int pp = 1; tp * pp <= 8; pp *= 2)
            for (int mb = 1; mb <= 32; mb *= 2)
                for (int v = 0; v < 6; v++)
                    for (int rc = 0; rc < 3; rc++)
                        for (int pl = 0; pl < PLACE_COUNT; pl++)
                            for (int sp = 0; sp < 2; sp++)
                                for (int z = 0; z < 4; z++) {
                                    Scenario c = sc;
                                    c.st.tp = tp;
                                    c.st.pp = pp;
                                    c.st.dp = 8 / (tp * pp);
                                    c.st.microbatch = mb;
                                    c.st.interleave = vs[v];
                                    c.st.recompute = (Recompute)rc;
                                    c.st.placement = (Placement)pl;
                                    c.st.seq_parallel = sp;
                                    c.st.zero = z;
                                    Diag d;
                                    Result r;
                                    if ((vs[v] > 1 && pp == 1) || 32 % (mb * c.st.dp) ||
                                        strategy_check(&c, &d))
                                        continue;
                                    evaluated++;
                                    if (evaluate(&c, &r) || r.status != STATUS_OK)
                                        continue;
                                    if (r.time_to_train_s < brute)
                                        brute = r.time_to_train_s;
                                    /* an equivalent's representative: placement with
                                     * degree-1 axes first in order, sp off at tp 1,
                                     * ZeRO 0 at dp 1 */
                                    const int rep = first_placement(pl, tp, c.st.dp, pp);
                                    if ((sp && tp == 1) || (z && c.st.dp == 1) || rep != pl) {
                                        Scenario e = c;
                                        e.st.seq_parallel = tp == 1 ? 0 : sp;
                                        e.st.zero = c.st.dp == 1 ? 0 : z;
                                        e.st.placement = (Placement)rep;
                                        Result re;
                                        assert_int_equal(evaluate(&e, &re), 0);
                                        assert_true(re.step_time_s == r.step_time_s);
                                        assert_true(re.energy_per_step_j == r.energy_per_step_j);
                                        assert_true(re.mem_total_bytes == r.mem_total_bytes);
                                    }
                                }
    assert_rel(best.time_to_train_s, brute, 1e-12);
    assert_int_equal(best.searched + best.search_pruned >= evaluated, 1);

    assert_int_equal(top.n, 8);
    assert_true(top.c[0].merit.time_to_train_s == best.time_to_train_s);
    assert_int_equal(top.c[0].st.tp, best.st.tp);
    assert_int_equal(top.c[0].st.zero, best.st.zero);
    for (int i = 1; i < top.n; i++) {
        assert_true(top.c[i].merit.time_to_train_s >= top.c[i - 1].merit.time_to_train_s);
        for (int j = 0; j < i; j++)
            assert_true(memcmp(&top.c[i], &top.c[j], offsetof(Candidate, merit)) != 0);
    }
}

/* Without an amount to train (and so without a time to train), the search
 * ranks by samples per second, also when the candidates' global batches
 * differ (no global_batch: one microbatch per replica). */
static void test_search_throughput(void **state)
{
    (void)state;
    static const char *const kv[] = {"system=dgx-a100-80g", "model=gpt", "devices=8", "tp=auto", "pp=1",
                                     "microbatch=auto"};
    Scenario sc;
    build_scenario(&sc, kv, 6);
    sc.train_tokens = sc.train_samples = 0;
    sc.model.train_tokens = sc.model.train_samples = 0;
    Result best;
    assert_int_equal(evaluate(&sc, &best), 0);
    assert_false(isfinite(best.time_to_train_s));
    double most = 0;
    for (int tp = 1; tp <= 8; tp *= 2)
        for (int mb = 1; mb <= 1024; mb *= 2) {
            Scenario c = sc;
            c.st.tp = tp;
            c.st.dp = 8 / tp;
            c.st.microbatch = mb;
            c.st.global_batch = (int64_t)mb * c.st.dp;
            Result r;
            Diag d;
            if (strategy_check(&c, &d) || evaluate(&c, &r) || r.status != STATUS_OK)
                continue;
            most = fmax(most, r.samples_per_s);
        }
    assert_rel(best.samples_per_s, most, 1e-12);
}

static void test_search_bounds(void **state)
{
    (void)state;
    static const char *const kv[] = {
        "system=dgx-a100-80g", "model=gpt",        "devices=32", "tp=auto", "pp=auto",
        "microbatch=4",        "global_batch=256", "min_mp=4",   "max_mp=8"};
    Scenario sc;
    Result r;
    build_scenario(&sc, kv, 9);
    assert_int_equal(evaluate(&sc, &r), 0);
    assert_true(r.st.tp * r.st.pp >= 4 && r.st.tp * r.st.pp <= 8);
    /* nothing between 3 and 3 divides 32 */
    sc.min_mp = sc.max_mp = 3;
    assert_int_equal(evaluate(&sc, &r), -1);
    assert_int_equal(r.status, STATUS_ERROR);
    assert_non_null(strstr(r.error, "the search found no strategy for 32 devices with 3 <= tp x pp <= 3"));
}

/* A global batch smaller than the data-parallel degree the strategy leaves:
 * the error names the cause, and the row's dp reads 'auto', never the
 * internal marker. */
static void test_search_batch_too_small(void **state)
{
    (void)state;
    static const char *const kv[] = {
        "system=dgx-h100", "model=llama2-7b", "devices=64", "dp=auto", "tp=1", "pp=1", "global_batch=16"};
    Scenario sc;
    Result r;
    build_scenario(&sc, kv, 7);
    assert_int_equal(evaluate(&sc, &r), -1);
    assert_int_equal(r.status, STATUS_ERROR);
    assert_non_null(
        strstr(r.error, "tp 1 x pp 1 leaves dp 64, more replicas than global_batch 16 has samples"));
    RunRow rr;
    memset(&rr, 0, sizeof rr);
    rr.sc = sc;
    rr.r = r;
    rr.built = 1;
    int dp_col = -1;
    for (int i = 0; i < report_ncols; i++)
        if (!strcmp(report_cols[i].name, "dp"))
            dp_col = i;
    assert_true(dp_col >= 0);
    double v = 0;
    char t[64];
    assert_int_equal(report_value(dp_col, &rr, &v, t, sizeof t), 0);
    assert_string_equal(t, "auto");
}

/* Sensitivity: a curve with its critical batch scaled by k reads as the
 * template's at B / k. */
static void test_curve_sensitivity(void **state)
{
    (void)state;
    Scenario sc;
    memset(&sc, 0, sizeof sc);
    Convergence *c = &sc.model.convergence;
    snprintf(c->name, sizeof c->name, "t");
    c->kind = CONV_CRITICAL;
    c->epochs_min = 10;
    c->b_crit = 1000;
    sc.model.dataset_samples = 1e6;
    sc.st.global_batch = 4000;
    char why[128];
    double s1, s2, e1, e2;
    assert_int_equal(scale_steps_scaled(&sc, 1.0, &s1, &e1, why, sizeof why), 0);
    assert_rel(e1, 10 * (1 + 4.0), 1e-12);
    assert_int_equal(scale_steps_scaled(&sc, 2.0, &s2, &e2, why, sizeof why), 0);
    assert_rel(e2, 10 * (1 + 2.0), 1e-12);
    assert_true(s2 < s1);
    assert_int_equal(scale_steps_scaled(&sc, 0.5, &s2, &e2, why, sizeof why), 0);
    assert_rel(e2, 10 * (1 + 8.0), 1e-12);
    /* the band: halved and doubled by convention, or the curve's own
     * (b_crit_low, b_crit_high: LM1B's 100 k to 1 M tokens) */
    double lo, hi;
    scale_band(c, &lo, &hi);
    assert_rel(lo, 0.5, 0);
    assert_rel(hi, 2.0, 0);
    c->band_lo = 1000;
    c->band_hi = 10000;
    scale_band(c, &lo, &hi);
    assert_rel(lo, 1.0, 0);
    assert_rel(hi, 10.0, 0);
    assert_int_equal(scale_steps_scaled(&sc, hi, &s2, &e2, why, sizeof why), 0);
    assert_rel(e2, 10 * (1 + 0.4), 1e-12);
}

/* replica_batch = auto: the best of the per-replica batches 1 ... 1,024
 * (time to train with the convergence curve), never worse than any one. */
static void test_replica_batch_auto(void **state)
{
    (void)state;
    static const char *const kv[] = {
        "system=dgx-v100", "model=gnmt",     "devices=64",         "tp=1",          "pp=1",
        "microbatch=auto", "recompute=auto", "replica_batch=auto", "precision=fp16"};
    Scenario sc;
    Result best;
    build_scenario(&sc, kv, 9);
    assert_int_equal(sc.replica_batch, AUTO_VALUE);
    assert_int_equal(evaluate(&sc, &best), 0);
    assert_int_equal(best.status, STATUS_OK);
    double brute = INFINITY;
    for (int rb = 1; rb <= 1024; rb *= 2) {
        Scenario c = sc;
        c.replica_batch = rb;
        c.st.global_batch = 0;
        Result r;
        if (evaluate(&c, &r) || r.status != STATUS_OK)
            continue;
        assert_true(best.time_to_train_s <= r.time_to_train_s * (1 + 1e-12));
        if (r.time_to_train_s < brute)
            brute = r.time_to_train_s;
    }
    assert_rel(best.time_to_train_s, brute, 1e-12);
    assert_true(best.st.global_batch % 64 == 0);
}

/* Whether a scenario's global batch lies where its curve was measured:
 * a table's points by default, or the template's measured range; tokens
 * for token curves; -1 when an explicit amount of training decides. */
static void test_extrapolation_flag(void **state)
{
    (void)state;
    Scenario sc;
    memset(&sc, 0, sizeof sc);
    Convergence *c = &sc.model.convergence;
    snprintf(c->name, sizeof c->name, "t");
    c->kind = CONV_TABLE;
    c->table.n = 3;
    const double b[] = {1000, 4000, 16000}, e[] = {30, 40, 80};
    memcpy(c->table.x, b, sizeof b);
    memcpy(c->table.y, e, sizeof e);
    sc.st.global_batch = 1000;
    assert_int_equal(scale_extrapolated(&sc), 0);
    sc.st.global_batch = 16000;
    assert_int_equal(scale_extrapolated(&sc), 0);
    sc.st.global_batch = 16001;
    assert_int_equal(scale_extrapolated(&sc), 1);
    sc.st.global_batch = 999;
    assert_int_equal(scale_extrapolated(&sc), 1);
    /* a critical-batch law measured at one batch of tokens */
    c->kind = CONV_CRITICAL;
    c->table.n = 0;
    c->unit = BATCH_TOKENS;
    c->measured_min = c->measured_max = 20480;
    sc.model.seq_len = 20;
    sc.st.global_batch = 1024;
    assert_int_equal(scale_extrapolated(&sc), 0);
    sc.st.global_batch = 2048;
    assert_int_equal(scale_extrapolated(&sc), 1);
    /* no range at all: extrapolated; an explicit amount: no curve */
    c->measured_min = c->measured_max = 0;
    assert_int_equal(scale_extrapolated(&sc), 1);
    sc.train_samples = 1e6;
    assert_int_equal(scale_extrapolated(&sc), -1);
}

/* Goodput: Daly's optimum interval against his worked cases (delta 5 min:
 * 116.7, 56.7 and 9.14 min for M = 24 h, 6 h, 15 min), his expected wall
 * time against a hand evaluation, and a whole scenario worked by hand. */
static void test_goodput(void **state)
{
    (void)state;
    assert_rel(scale_daly_interval(300, 86400), 116.69 * 60, 1e-3);
    assert_rel(scale_daly_interval(300, 21600), 56.71 * 60, 1e-3);
    assert_rel(scale_daly_interval(300, 900), 9.141 * 60, 1e-3);
    assert_rel(scale_daly_interval(2000, 900), 900, 1e-12); /* delta >= 2M: tau = M */
    assert_true(isnan(scale_daly_interval(0, 900)));
    /* T = 100 h, tau = 1 h, delta = 0.1 h, R = 0.5 h, M = 10 h:
     * 10 e^0.05 (e^0.11 - 1) 100 = 122.2398 h */
    assert_rel(scale_wall_time(100, 1, 0.1, 0.5, 10), 122.23977, 1e-6);
    /* no failures to speak of: the checkpoints' share only */
    assert_rel(scale_wall_time(100, 1, 0.1, 0.5, 1e12), 110, 1e-6);

    /* 1,024 devices, 8 a node (128 nodes), 1e-5 interruptions per
     * device-hour: M = 3600 / 0.01024 s; a 10 B-parameter bf16 model
     * checkpoints 140 GB at 128 x 1 GB/s: delta = 1.09375 s; R = 600 s +
     * 1.09375 s read back */
    Scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.devices = 1024;
    sc.precision = PREC_BF16;
    sc.system.devices_per_node = 8;
    sc.system.failures_per_device_hour = 1e-5;
    sc.system.checkpoint_write_bw = 1e9;
    sc.system.restart_s = 600;
    Goodput g;
    const double T = 30 * 86400.0;
    assert_int_equal(scale_goodput(&sc, T, 10e9, &g), 0);
    const double M = 3600 / 0.01024, delta = 140e9 / 128e9;
    assert_rel(g.mtti_s, M, 1e-12);
    assert_rel(g.write_s, delta, 1e-12);
    const double x = delta / (2 * M), tau = sqrt(2 * delta * M) * (1 + sqrt(x) / 3 + x / 9) - delta;
    assert_rel(g.interval_s, tau, 1e-12);
    const double wall = M * exp((600 + delta) / M) * expm1((tau + delta) / M) * T / tau;
    assert_rel(g.wall_s, wall, 1e-12);
    assert_rel(g.goodput, T / wall, 1e-12);
    assert_true(g.goodput > 0.98 && g.goodput < 1); /* about 1 - delta/tau - (tau/2 + R)/M */
    /* fp32 training: 12 bytes a parameter, not 14 */
    sc.precision = PREC_FP32;
    assert_rel(scale_checkpoint_bytes(&sc, 10e9), 120e9, 1e-12);
    /* interruptions faster than a checkpoint: the job never ends */
    sc.system.failures_per_device_hour = 1e3;
    assert_int_equal(scale_goodput(&sc, T, 10e9, &g), 0);
    assert_true(g.goodput == 0 && isinf(g.wall_s));
    /* no rate stated: nothing is made up */
    sc.system.failures_per_device_hour = 0;
    assert_int_equal(scale_goodput(&sc, T, 10e9, &g), -1);
    assert_true(isnan(g.goodput) && isnan(g.wall_s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_critical_batch),       cmocka_unit_test(test_table_curve),
        cmocka_unit_test(test_explicit_amounts_win), cmocka_unit_test(test_search_is_optimal),
        cmocka_unit_test(test_search_bounds),        cmocka_unit_test(test_search_throughput),
        cmocka_unit_test(test_search_all_axes),      cmocka_unit_test(test_search_batch_too_small),
        cmocka_unit_test(test_extrapolation_flag),   cmocka_unit_test(test_replica_batch_auto),
        cmocka_unit_test(test_curve_sensitivity),    cmocka_unit_test(test_goodput),
    };
    return cmocka_run_group_tests(tests, db_setup, db_teardown);
}
