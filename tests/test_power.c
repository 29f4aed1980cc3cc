/* tests/test_power.c — the power and energy model: energy equals the sum
 * of power x time, the device never draws more than its cap, a tighter cap
 * never makes a step faster, DVFS follows the alpha-power law, and the
 * system adds nodes, switches and PUE on top of the devices. */
#include "testdb.h"
#include "testutil.h"

#include <string.h>

#include "batch/evaluate.h"
#include "io/scenario.h"
#include "io/template.h"
#include "power/power.h"

static const char *const gpt_1024[] = {
    "system=dgx-a100-80g", "model=gpt3-175b",   "devices=1024",  "tp=8", "pp=16",
    "microbatch=1",        "global_batch=1536", "recompute=full"};

static void test_energy_is_power_times_time(void **state)
{
    (void)state;
    Scenario sc;
    Result r;
    build_scenario(&sc, gpt_1024, 8);
    assert_int_equal(evaluate(&sc, &r), 0);
    double sum = 0;
    for (int c = 0; c < COMP_COUNT; c++)
        sum += r.comp_energy_j[c];
    assert_rel(sum, r.energy_per_step_j, 1e-12);
    assert_rel(r.energy_per_step_j, r.system_power_w * r.step_time_s, 1e-12);
    assert_rel(r.device_power_w * r.step_time_s, r.device_energy_j, 1e-12);
    assert_rel(r.energy_to_train_j, r.system_power_w * r.time_to_train_s, 1e-12);
    assert_true(r.device_power_w <= r.power_cap_w * (1 + 1e-9));
    assert_true(r.comp_energy_j[COMP_SYSTEM] > 0);
    print_message("GPT-3 on 1024 A100: %.0f W per device, %.1f kW system, %.1f MWh to train\n",
                  r.device_power_w, r.system_power_w / 1e3, r.energy_to_train_j / 3.6e9);
}

static void test_cap_costs_time(void **state)
{
    (void)state;
    const char *kv[10];
    memcpy(kv, gpt_1024, sizeof gpt_1024);
    double prev_t = 0, prev_p = 1e9;
    static const char *const caps[] = {"power_cap=400 W", "power_cap=330 W", "power_cap=280 W",
                                       "power_cap=240 W"};
    for (int i = 0; i < 4; i++) {
        Scenario sc;
        Result r;
        kv[8] = caps[i];
        build_scenario(&sc, kv, 9);
        assert_int_equal(evaluate(&sc, &r), 0);
        assert_true(r.device_power_w <= sc.power_cap_w * (1 + 1e-9));
        assert_true(r.step_time_s >= prev_t * (1 - 1e-12)); /* a tighter cap is never faster */
        assert_true(r.device_power_w <= prev_p * (1 + 1e-12));
        prev_t = r.step_time_s;
        prev_p = r.device_power_w;
        /* a cap that lowers the clock is named beside the largest component */
        const size_t l = strlen(r.bottleneck);
        const int capped = l > 11 && !strcmp(r.bottleneck + l - 11, "; power cap");
        assert_int_equal(capped, r.clock_scale < 0.995);
        if (i == 3)
            assert_true(capped);
    }
}

/* A cap at the device's TDP changes nothing (the matrix rates are measured
 * under it); a cap below it holds the hottest compute phase, the GEMMs, to
 * the cap, so the clock falls even where the step's average power is
 * under the cap, and the average ends below it. */
static void test_cap_holds_the_hottest_phase(void **state)
{
    (void)state;
    static const char *const h100[] = {
        "system=dgx-h100", "model=llama2-70b", "devices=64",     "tp=8",           "pp=2",
        "microbatch=1",    "global_batch=128", "recompute=none", "power_cap=700 W"};
    Scenario sc;
    Result free_run, at_tdp, capped;
    build_scenario(&sc, h100, 8);
    assert_int_equal(evaluate(&sc, &free_run), 0);
    build_scenario(&sc, h100, 9);
    assert_int_equal(evaluate(&sc, &at_tdp), 0);
    assert_rel(at_tdp.step_time_s, free_run.step_time_s, 1e-12);
    assert_true(free_run.device_power_w < 600);
    char cap[32];
    snprintf(cap, sizeof cap, "power_cap=%.0f W", free_run.device_power_w * 1.02);
    const char *kv[9];
    memcpy(kv, h100, sizeof kv);
    kv[8] = cap;
    build_scenario(&sc, kv, 9);
    assert_int_equal(evaluate(&sc, &capped), 0);
    assert_true(capped.clock_scale < 0.995);
    assert_true(capped.step_time_s > free_run.step_time_s);
    assert_true(capped.device_power_w < 0.99 * sc.power_cap_w);
    print_message("70B on 64 H100: %.0f W average at 700 W; held to %.0f W: clock %.3f, step %+.1f %%\n",
                  free_run.device_power_w, sc.power_cap_w, capped.clock_scale,
                  100 * (capped.step_time_s / free_run.step_time_s - 1));
}

/* The cost to train is the list price per device-hour x devices x hours,
 * computed once (evaluate.c) and read by every report; no price, no cost. */
static void test_cost(void **state)
{
    (void)state;
    const char *kv[10];
    memcpy(kv, gpt_1024, sizeof gpt_1024);
    Scenario sc;
    Result r;
    build_scenario(&sc, kv, 8);
    assert_int_equal(evaluate(&sc, &r), 0);
    assert_true(sc.system.price_per_device_hour > 0);
    assert_rel(r.cost_usd, sc.system.price_per_device_hour * sc.devices * r.time_to_train_s / 3600.0, 1e-12);
    sc.system.price_per_device_hour = 0;
    assert_int_equal(evaluate(&sc, &r), 0);
    assert_true(isnan(r.cost_usd));
}

static void test_cap_out_of_reach_is_an_error(void **state)
{
    (void)state;
    const char *kv[10];
    memcpy(kv, gpt_1024, sizeof gpt_1024);
    kv[8] = "power_cap=20 W";
    Scenario sc;
    Result r;
    build_scenario(&sc, kv, 9);
    assert_int_equal(evaluate(&sc, &r), -1);
    assert_int_equal(r.status, STATUS_ERROR);
    assert_non_null(strstr(r.error, "cannot meet its 20 W power cap"));
}

static void test_alpha_power_law(void **state)
{
    (void)state;
    Device d = {0};
    d.v_nominal = 0.9;
    d.v_threshold = 0.3;
    d.v_min = 0.65;
    d.dvfs_alpha = 1.3;
    double v;
    assert_int_equal(pwr_voltage(&d, 1.0, &v), 0);
    assert_rel(v, 0.9, 1e-9);
    double phi_min = pwr_min_clock(&d);
    /* f ∝ (V - Vt)^a / V */
    double expect = (pow(0.65 - 0.3, 1.3) / 0.65) / (pow(0.9 - 0.3, 1.3) / 0.9);
    assert_rel(phi_min, expect, 1e-12);
    assert_int_equal(pwr_voltage(&d, 0.8, &v), 0);
    assert_rel((pow(v - 0.3, 1.3) / v) / (pow(0.6, 1.3) / 0.9), 0.8, 1e-9);
    assert_int_equal(pwr_voltage(&d, phi_min * 0.9, &v), -1);
    /* a scaled device: compute and on-chip memories scale, HBM does not */
    d.matrix_flops[PREC_BF16] = 100e12;
    d.mem[MEM_HBM].bw_bytes_per_s = 2e12;
    d.mem[MEM_L2].bw_bytes_per_s = 5e12;
    d.energy_j_per_flop[PREC_BF16] = 1e-12;
    Device s;
    pwr_scale_device(&d, 0.8, &s);
    assert_rel(s.matrix_flops[PREC_BF16], 80e12, 1e-12);
    assert_rel(s.mem[MEM_L2].bw_bytes_per_s, 4e12, 1e-12);
    assert_rel(s.mem[MEM_HBM].bw_bytes_per_s, 2e12, 1e-12);
    assert_int_equal(pwr_voltage(&d, 0.8, &v), 0);
    assert_rel(s.energy_j_per_flop[PREC_BF16], 1e-12 * (v / 0.9) * (v / 0.9), 1e-12);
}

/* pwr_voltage skips the bisection's comparisons whose outcome Newton's
 * root makes certain: it must end on exactly the double the full bisection
 * (60 halvings of [v_min, v_nominal]) ends on, for any phi and any device,
 * at the ends of the range too. */
static double ratio_ref(double v, double vt, double a, double nominal)
{
    return v <= vt ? 0 : (pow(v - vt, a) / v) / nominal;
}

static void test_voltage_is_the_bisection(void **state)
{
    (void)state;
    static const double dev[][4] = {/* v_nominal, v_threshold, v_min, alpha */
                                    {0.9, 0.3, 0.65, 1.3},
                                    {1.1, 0.25, 0.7, 0},
                                    {0.8, 0.45, 0.5, 1.05},
                                    {1.2, 0.1, 0.2, 2.0},
                                    {1.0, 0.35, 0.55, 1.5}};
    long compared = 0;
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++) {
        Device d = {0};
        d.v_nominal = dev[k][0];
        d.v_threshold = dev[k][1];
        d.v_min = dev[k][2];
        d.dvfs_alpha = dev[k][3];
        const double a = d.dvfs_alpha > 0 ? d.dvfs_alpha : 1.3;
        const double nominal = pow(d.v_nominal - d.v_threshold, a) / d.v_nominal;
        const double pmin = ratio_ref(d.v_min, d.v_threshold, a, nominal);
        for (int i = 0; i <= 20000; i++) {
            const double phi = pmin - 5e-13 + (1.0 - pmin + 1e-12) * i / 20000.0;
            double v;
            if (pwr_voltage(&d, phi, &v))
                continue;
            double lo = d.v_min, hi = d.v_nominal;
            for (int j = 0; j < 60; j++) {
                const double mid = 0.5 * (lo + hi);
                if (ratio_ref(mid, d.v_threshold, a, nominal) < phi)
                    lo = mid;
                else
                    hi = mid;
            }
            if (v != 0.5 * (lo + hi))
                fail_msg("device %zu, phi %.17g: %.17g, the bisection %.17g", k, phi, v, 0.5 * (lo + hi));
            /* Newton alone (the clock plan's): within 1e-12 V of it */
            double vn;
            if (pwr_voltage_near(&d, phi, &vn) || fabs(vn - v) > 1e-12)
                fail_msg("device %zu, phi %.17g: Newton %.17g, the bisection %.17g", k, phi, vn, v);
            compared++;
        }
    }
    assert_true(compared > 90000);
    /* both refuse a clock out of reach, and give the nominal voltage at 1 */
    Device d = {0};
    d.v_nominal = 0.9;
    d.v_threshold = 0.3;
    d.v_min = 0.65;
    double v;
    assert_int_equal(pwr_voltage_near(&d, 0.1, &v), -1);
    assert_int_equal(pwr_voltage_near(&d, 1.1, &v), -1);
    assert_int_equal(pwr_voltage_near(&d, 1.0, &v), 0);
    assert_true(v == 0.9);
}

static void test_system_power(void **state)
{
    (void)state;
    System sys = {0};
    sys.devices_per_node = 8;
    sys.node_overhead_w = 3300;
    sys.switch_w_per_device = 48;
    sys.pue = 1.2;
    /* 12 devices = 2 nodes */
    assert_rel(pwr_system_power(&sys, 12, 400), 1.2 * (12 * (400 + 48) + 2 * 3300), 1e-12);
}

/* A ramp limit, by hand (issue 31): a 10 MW swing at 20 MW/s takes 0.5 s
 * an edge.  A 2 s wait holds both edges: the full dip, and the two edges'
 * triangles burn 10 MW x 0.5 s = 5 MJ over dropping at once.  A 0.4 s
 * wait is shorter than the two edges: the power falls for 0.2 s to a 4 MW
 * dip and climbs back, and what is burnt is the 10 MW x 0.4 s the step
 * would drop less the 4 MW x 0.4 s / 2 of the dip: 3.2 MJ (at 0.9 s, a 9 MW
 * dip and 4.95 MJ, just below the 5 MJ that both edges cost).  No limit: the
 * power steps, the whole swing, nothing burnt; no wait: no dip. */
static void test_ramp_hold(void **state)
{
    (void)state;
    double dip = -1;
    assert_rel(pwr_ramp_hold(10e6, 2.0, 20e6, &dip), 5e6, 1e-12);
    assert_rel(dip, 10e6, 1e-12);
    assert_rel(pwr_ramp_hold(10e6, 0.4, 20e6, &dip), 3.2e6, 1e-12);
    assert_rel(dip, 4e6, 1e-12);
    /* the two cases meet where the wait is just both edges */
    assert_rel(pwr_ramp_hold(10e6, 1.0, 20e6, &dip), 5e6, 1e-12);
    assert_rel(dip, 10e6, 1e-12);
    assert_rel(pwr_ramp_hold(10e6, 0.9, 20e6, &dip), 10e6 * 0.9 - 9e6 * 0.9 / 2, 1e-12);
    assert_rel(dip, 9e6, 1e-12);
    assert_true(pwr_ramp_hold(10e6, 0.4, 0, &dip) == 0);
    assert_rel(dip, 10e6, 1e-12);
    assert_true(pwr_ramp_hold(10e6, 0, 20e6, &dip) == 0);
    assert_true(dip == 0);
}

static void test_energy_counts(void **state)
{
    (void)state;
    Device d = {0};
    d.energy_j_per_flop[PREC_FP32] = 4e-12;
    d.mem[MEM_HBM].energy_j_per_bit = 10e-12;
    d.mem[MEM_L2].energy_j_per_bit = 5e-12;
    d.mem[MEM_L1].energy_j_per_bit = 1e-12;
    /* 1 GB through the hierarchy, 1 GFLOP on vector units */
    assert_rel(pwr_membound_energy(&d, 1e9, 1e9), 1e9 * 8 * 16e-12 + 1e9 * 4e-12, 1e-12);
    Network n = {0};
    n.energy_j_per_bit = 1.3e-12;
    assert_rel(pwr_link_energy(&n, 1e9), 8e9 * 1.3e-12, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_energy_is_power_times_time),
        cmocka_unit_test(test_cap_costs_time),
        cmocka_unit_test(test_cap_holds_the_hottest_phase),
        cmocka_unit_test(test_cost),
        cmocka_unit_test(test_cap_out_of_reach_is_an_error),
        cmocka_unit_test(test_alpha_power_law),
        cmocka_unit_test(test_voltage_is_the_bisection),
        cmocka_unit_test(test_system_power),
        cmocka_unit_test(test_ramp_hold),
        cmocka_unit_test(test_energy_counts),
    };
    return cmocka_run_group_tests(tests, db_setup, db_teardown);
}
