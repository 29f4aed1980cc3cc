/* tests/test_calib.c — the calibration fit (calib/calib.h): known
 * parameters recovered from step times the model itself made, the
 * parameters the runs cannot pin left alone, every guard rail with its
 * message, outliers, the leave-one-out error and the range. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/evaluate.h"
#include "calib/calib.h"
#include "perf/perf.h"
#include "testdb.h"

#define NRUNS 8

/* Small GPT runs on 1 to 8 A100s of one node, dp only or with tp, at
 * several microbatches: their GEMMs, host dispatch and collectives all
 * show in the step. */
static void runs(Scenario *sc, int n)
{
    static const char *const shape[NRUNS][3] = {
        {"devices=1", "tp=1", "microbatch=1"}, {"devices=1", "tp=1", "microbatch=4"},
        {"devices=2", "tp=1", "microbatch=2"}, {"devices=4", "tp=1", "microbatch=1"},
        {"devices=4", "tp=2", "microbatch=2"}, {"devices=8", "tp=1", "microbatch=8"},
        {"devices=8", "tp=1", "microbatch=1"}, {"devices=8", "tp=1", "microbatch=2"},
    };
    for (int i = 0; i < n; i++) {
        const char *kv[] = {"system=dgx-a100-80g", "model=gpt",      "model.layers=4",
                            "model.hidden=1024",   "model.heads=16", "model.seq_len=1024",
                            "global_batch=64",     "pp=1",           shape[i][0],
                            shape[i][1],           shape[i][2]};
        build_scenario(&sc[i], kv, 11);
        snprintf(sc[i].name, sizeof sc[i].name, "run-%d", i + 1);
    }
}

/* Each run's step time at gemm_efficiency g and op_overhead o. */
static void measure(const Scenario *sc, int n, double g, double o, double *t)
{
    for (int i = 0; i < n; i++) {
        Scenario s = sc[i];
        cal_set(&s, CAL_GEMM, g);
        cal_set(&s, CAL_OVERHEAD, o);
        Result r;
        assert_int_equal(evaluate(&s, &r), 0);
        t[i] = r.step_time_s;
    }
}

/* The runs, and the step times the model gives them at gemm_efficiency
 * 0.70 and op_overhead 40 us (megatron-lm has 0.78 and 75 us): what the
 * fits below must find again. */
static void measured_runs(Scenario *sc, double *t)
{
    runs(sc, NRUNS);
    measure(sc, NRUNS, 0.70, 40e-6, t);
}

static void test_recovers_known_parameters(void **state)
{
    (void)state;
    Scenario sc[NRUNS];
    double t[NRUNS];
    measured_runs(sc, t);
    const CalInput in = {sc, t, NRUNS, 1u << CAL_GEMM | 1u << CAL_OVERHEAD};
    CalResult cr;
    Diag d;
    diag_clear(&d);
    assert_int_equal(cal_fit(&in, &cr, &d), 0);
    assert_int_equal(cr.fitted[CAL_GEMM], 1);
    assert_int_equal(cr.fitted[CAL_OVERHEAD], 1);
    assert_rel(cr.value[CAL_GEMM], 0.70, 1e-9);
    assert_rel(cr.value[CAL_OVERHEAD], 40e-6, 1e-9);
    assert_true(cr.err_in < 1e-9);
    assert_true(cr.err_loo < 1e-9);
    assert_true(cr.err_base > 0.01); /* the shipped stack's values are elsewhere */
    for (int i = 0; i < NRUNS; i++) {
        assert_rel(cr.pred_loo[i], t[i], 1e-9);
        assert_int_equal(cr.outlier[i], 0);
    }
    assert_true(cr.se[CAL_GEMM] < 1e-6);
    cal_result_free(&cr);
}

static void test_unpinned_parameter_kept(void **state)
{
    (void)state;
    Scenario sc[NRUNS];
    double t[NRUNS];
    measured_runs(sc, t);
    /* no run turns sequence parallelism on: tp_overlap changes nothing */
    const CalInput in = {sc, t, NRUNS, 1u << CAL_GEMM | 1u << CAL_TP_OVERLAP};
    CalResult cr;
    Diag d;
    diag_clear(&d);
    assert_int_equal(cal_fit(&in, &cr, &d), 0);
    assert_int_equal(cr.nfit, 1);
    assert_int_equal(cr.fitted[CAL_TP_OVERLAP], 0);
    assert_rel(cr.value[CAL_TP_OVERLAP], cr.base[CAL_TP_OVERLAP], 0);
    assert_non_null(strstr(cr.note[CAL_TP_OVERLAP], "not fitted: no run has tensor-parallel collectives"));
    cal_result_free(&cr);
}

static void test_too_few_runs(void **state)
{
    (void)state;
    Scenario sc[NRUNS];
    double t[NRUNS];
    measured_runs(sc, t);
    const CalInput in = {sc, t, 4, 1u << CAL_GEMM | 1u << CAL_OVERHEAD};
    CalResult cr;
    Diag d;
    diag_clear(&d);
    assert_int_equal(cal_fit(&in, &cr, &d), -1);
    assert_string_equal(d.msg,
                        "4 runs cannot fit 2 parameters (gemm_efficiency, op_overhead): at least 5 are "
                        "needed, two a parameter and one to leave out");
    cal_result_free(&cr);
}

static void test_beyond_physical_bound(void **state)
{
    (void)state;
    Scenario sc[NRUNS];
    double t[NRUNS];
    measured_runs(sc, t);
    /* run-2 measured 40 % faster than the model can be at any efficiency
     * up to 1: alone it pulls gemm_efficiency above 1, the others do not */
    const CalInput in1 = {sc, t, NRUNS, 1u << CAL_GEMM | 1u << CAL_OVERHEAD};
    double fast[NRUNS];
    measure(sc, NRUNS, 1.0, 0, fast);
    for (int i = 0; i < NRUNS; i++)
        fast[i] *= 0.6;
    const CalInput in = {sc, fast, NRUNS, 1u << CAL_GEMM};
    CalResult cr;
    Diag d;
    diag_clear(&d);
    assert_int_equal(cal_fit(&in, &cr, &d), -1);
    assert_non_null(strstr(d.msg, "gemm_efficiency would be "));
    assert_non_null(strstr(d.msg,
                           ", above its physical bound 1 (the device's best-kernel GEMM rate): the runs that "
                           "pull it there: run-1, run-2, run-3, run-4, run-5 and 3 more; check their "
                           "measured figures and units"));
    cal_result_free(&cr);
    assert_int_equal(cal_fit(&in1, &cr, &d), 0); /* the honest figures fit */
    cal_result_free(&cr);
}

static void test_outlier_listed(void **state)
{
    (void)state;
    Scenario sc[NRUNS];
    double t[NRUNS];
    measured_runs(sc, t);
    t[5] *= 1.8; /* a run that stalled */
    const CalInput in = {sc, t, NRUNS, 1u << CAL_GEMM | 1u << CAL_OVERHEAD};
    CalResult cr;
    Diag d;
    diag_clear(&d);
    const int rc = cal_fit(&in, &cr, &d);
    if (rc)
        print_error("%s\n", d.msg);
    assert_int_equal(rc, 0);
    for (int i = 0; i < NRUNS; i++)
        assert_int_equal(cr.outlier[i], i == 5);
    assert_true(cr.err_loo >= cr.err_in); /* left out, a run is never predicted better on average */
    cal_result_free(&cr);
}

static void test_runs_disagree(void **state)
{
    (void)state;
    Scenario sc[NRUNS];
    double t[NRUNS];
    measured_runs(sc, t);
    cal_set(&sc[3], CAL_GEMM, 0.5);
    const CalInput in = {sc, t, NRUNS, 1u << CAL_GEMM};
    CalResult cr;
    Diag d;
    diag_clear(&d);
    assert_int_equal(cal_fit(&in, &cr, &d), -1);
    assert_string_equal(d.msg, "runs run-1 and run-4 give gemm_efficiency different values (0.78 and 0.5): "
                               "calibrate fits one value for all; leave it out of the table or out of --fit");
    cal_result_free(&cr);
}

static void test_comm_parameters_act(void **state)
{
    (void)state;
    /* a multiple of the tier's efficiency and an added latency change the
     * step of a run with collectives, and nothing of one without */
    Scenario sc[NRUNS];
    runs(sc, NRUNS);
    Result a, b, c;
    assert_int_equal(evaluate(&sc[5], &a), 0);
    Scenario s = sc[5];
    cal_set(&s, CAL_COMM_INTRA, 0.5);
    assert_int_equal(evaluate(&s, &b), 0);
    assert_true(b.comp_time_s[COMP_DP_COMM] + b.comp_time_s[COMP_DP_HIDDEN] >
                a.comp_time_s[COMP_DP_COMM] + a.comp_time_s[COMP_DP_HIDDEN]);
    s = sc[5];
    cal_set(&s, CAL_LAT_INTRA, 20e-6);
    assert_int_equal(evaluate(&s, &c), 0);
    assert_true(c.comp_time_s[COMP_DP_COMM] + c.comp_time_s[COMP_DP_HIDDEN] >
                a.comp_time_s[COMP_DP_COMM] + a.comp_time_s[COMP_DP_HIDDEN]);
    s = sc[0]; /* one device: no collective */
    Result one, one_slow;
    assert_int_equal(evaluate(&s, &one), 0);
    cal_set(&s, CAL_COMM_INTRA, 0.5);
    cal_set(&s, CAL_LAT_INTRA, 20e-6);
    assert_int_equal(evaluate(&s, &one_slow), 0);
    assert_rel(one_slow.step_time_s, one.step_time_s, 0);
}

static void test_interval(void **state)
{
    (void)state;
    const double q[5] = {0.8, 0.9, 1.0, 1.1, 1.2};
    Interval iv;
    cal_interval(q, 5, &iv);
    assert_rel(iv.lo, 0.8 + 0.2 * 0.1, 1e-12); /* 5th percentile: 0.2 of the way from 0.8 to 0.9 */
    assert_rel(iv.hi, 1.2 - 0.2 * 0.1, 1e-12);
    assert_int_equal(iv.runs, 5);
    assert_rel(iv.coverage, 0.6, 1e-12);
    const double above[3] = {1.1, 1.2, 1.3}; /* a range always holds 1 and the noise of a rerun */
    cal_interval(above, 3, &iv);
    assert_rel(iv.lo, 1.0 - 1.645 * CAL_NOISE, 0);
    assert_rel(iv.mean_err, (fabs(1 / 1.1 - 1) + fabs(1 / 1.2 - 1) + fabs(1 / 1.3 - 1)) / 3, 1e-12);
}

static void test_gemm_table(void **state)
{
    (void)state;
    /* GEMM times the model makes at 0.60 (bf16) and 0.50 (fp8) of the
     * peak are fitted back to those values; two fp8 rows are too few */
    Scenario sc[1];
    runs(sc, 1);
    Device dv = sc[0].system.device;
    static const int shape[5][3] = {
        {8192, 8192, 8192}, {4096, 4096, 4096}, {2048, 2048, 2048}, {1024, 4096, 4096}, {512, 1024, 8192}};
    CalGemm rows[7];
    for (int i = 0; i < 7; i++) {
        const int s = i % 5;
        rows[i] = (CalGemm){shape[s][0], shape[s][1], shape[s][2], i < 5 ? PREC_BF16 : PREC_FP8, 0};
        Device at = dv;
        at.matrix_eff = 0.60;
        at.matrix_eff_fp8 = 0.50;
        GemmCost g;
        gemm_cost(&at, rows[i].p, 1, rows[i].m, rows[i].n, rows[i].k, NULL, &g);
        rows[i].time_s = g.time_s;
    }
    CalGemmFit fit;
    Diag d;
    diag_clear(&d);
    assert_int_equal(cal_gemm_fit(&dv, rows, 5, &fit, &d), 0);
    assert_rel(fit.eff[0], 0.60, 1e-9);
    assert_int_equal(fit.rows[1], 0);
    assert_true(fit.err[0] < 1e-9);
    free(fit.pred);
    assert_int_equal(cal_gemm_fit(&dv, rows, 7, &fit, &d), -1);
    assert_string_equal(d.msg,
                        "2 fp8/fp4 GEMM rows cannot set the device's efficiency: at least 3 are needed");
    free(fit.pred);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovers_known_parameters),
        cmocka_unit_test(test_unpinned_parameter_kept),
        cmocka_unit_test(test_too_few_runs),
        cmocka_unit_test(test_beyond_physical_bound),
        cmocka_unit_test(test_outlier_listed),
        cmocka_unit_test(test_runs_disagree),
        cmocka_unit_test(test_comm_parameters_act),
        cmocka_unit_test(test_interval),
        cmocka_unit_test(test_gemm_table),
    };
    return cmocka_run_group_tests(tests, db_setup, db_teardown);
}
