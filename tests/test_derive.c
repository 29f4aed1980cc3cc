/* tests/test_derive.c — the micro-architecture generator inside the model
 * pipeline: a devices template's derive: block is stored, and evaluate()
 * derives the device from it, so every budget is an ordinary column
 * (system.device.derive.power.tdp=350 W) that a table can set or sweep; a
 * figure set explicitly (by the template or the row) is pinned and stays
 * over the derivation; a network tier with `derived: yes` takes the
 * generator's links; each misuse is an error that says what to change. */
#include "testdb.h"

#include <math.h>
#include <string.h>

#include "batch/evaluate.h"
#include "tech/tech.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Llama-2-70B on 64 derived N5 accelerators in DGX H100 nodes, a fixed
 * strategy; extra settings appended. */
static void build(Scenario *sc, const char *const *extra, int n)
{
    const char *kv[16] = {
        "system=dgx-h100", "system.device=derived-n5", "model=llama2-70b",   "devices=64", "tp=8", "pp=8",
        "microbatch=1",    "global_batch=512",         "recompute=selective"};
    int k = 9;
    for (int i = 0; i < n && k < 16; i++)
        kv[k++] = extra[i];
    build_scenario(sc, kv, k);
}

static void eval_ok(const Scenario *sc, Result *r)
{
    int rc = evaluate(sc, r);
    if (rc || r->status != STATUS_OK)
        print_error("evaluate: %s (status %s)\n", r->error, status_name(r->status));
    assert_int_equal(rc, 0);
    assert_int_equal(r->status, STATUS_OK);
}

/* The row stores the spec; the pipeline derives the same device the
 * generator gives for that spec, and the derivation is idempotent. */
static void test_resolved_in_pipeline(void **state)
{
    (void)state;
    Scenario sc;
    build(&sc, NULL, 0);
    const Device *raw = &sc.system.device;
    assert_string_equal(raw->derive.name, "TSMC N5");
    assert_rel(raw->matrix_flops[PREC_BF16], 0, 0); /* not derived yet */
    Device direct;
    Diag d;
    diag_clear(&d);
    assert_int_equal(tech_derive(&raw->derive.technology, &raw->derive.budget, &direct, NULL, NULL, &d), 0);

    Scenario res = sc;
    assert_int_equal(evaluate_resolve(&res, &d), 0);
    const Device *dev = &res.system.device;
    assert_rel(dev->matrix_flops[PREC_BF16], direct.matrix_flops[PREC_BF16], 0);
    assert_rel(dev->clock_hz, direct.clock_hz, 0);
    assert_rel(dev->mem[MEM_HBM].bw_bytes_per_s, direct.mem[MEM_HBM].bw_bytes_per_s, 0);
    /* what the generator does not model is the template's */
    assert_string_equal(dev->name, "Derived N5 (800 mm2, 500 W)");
    assert_rel(dev->launch_s, 4.5e-6, 1e-12);
    assert_rel(dev->hbm_reserved_bytes, 2 * GIB, 1e-12);
    Scenario again = res;
    assert_int_equal(evaluate_resolve(&again, &d), 0);
    assert_memory_equal(&again.system.device, &res.system.device, sizeof(Device));

    /* evaluating the raw row and the resolved one gives the same result */
    Result a, b;
    eval_ok(&sc, &a);
    eval_ok(&res, &b);
    assert_rel(a.step_time_s, b.step_time_s, 0);
    assert_rel(a.energy_per_step_j, b.energy_per_step_j, 0);
}

/* A budget is a column: less power gives a slower device that draws less;
 * a smaller die, fewer units. */
static void test_budget_columns(void **state)
{
    (void)state;
    Scenario full, low, small;
    build(&full, NULL, 0);
    const char *tdp[] = {"system.device.derive.power.tdp=350 W"};
    build(&low, tdp, 1);
    const char *die[] = {"system.device.derive.area.die=600 mm2"};
    build(&small, die, 1);
    assert_rel(low.system.device.derive.budget.tdp_w, 350, 0);

    Result rf, rl, rs;
    eval_ok(&full, &rf);
    eval_ok(&low, &rl);
    eval_ok(&small, &rs);
    assert_true(rl.step_time_s > rf.step_time_s * 1.02);
    assert_true(rl.device_power_w <= 350 * (1 + 1e-6));
    assert_true(rl.device_power_w < rf.device_power_w);
    assert_true(rs.step_time_s > rf.step_time_s);

    Diag d;
    Scenario a = full, b = small;
    assert_int_equal(evaluate_resolve(&a, &d), 0);
    assert_int_equal(evaluate_resolve(&b, &d), 0);
    assert_true(b.system.device.sms < a.system.device.sms);
    assert_rel(b.system.device.tdp_w, 500, 0);
}

/* A device figure the row sets explicitly is pinned: it survives the
 * derivation and a change of budget; the others follow the budget. */
static void test_pinned_override(void **state)
{
    (void)state;
    const char *kv[] = {"system.device.hbm.bandwidth=5 TB/s", "system.device.derive.power.tdp=300 W"};
    Scenario sc;
    build(&sc, kv, 2);
    Scenario base;
    build(&base, kv + 1, 1);
    Diag d;
    assert_int_equal(evaluate_resolve(&sc, &d), 0);
    assert_int_equal(evaluate_resolve(&base, &d), 0);
    assert_rel(sc.system.device.mem[MEM_HBM].bw_bytes_per_s, 5e12, 0);
    assert_true(base.system.device.mem[MEM_HBM].bw_bytes_per_s < 4e12);
    assert_rel(sc.system.device.clock_hz, base.system.device.clock_hz, 0);
    assert_rel(sc.system.device.tdp_w, 300, 0);
}

/* `derived: yes` on a tier gives it the generator's links: bandwidth and
 * energy per bit; topology and efficiency stay the fabric's. */
static void test_derived_links(void **state)
{
    (void)state;
    const char *kv[] = {"system.intra.derived=yes"};
    Scenario sc;
    build(&sc, kv, 1);
    const Device *raw = &sc.system.device;
    Device dev;
    Network ni, ne;
    Diag d;
    diag_clear(&d);
    assert_int_equal(tech_derive(&raw->derive.technology, &raw->derive.budget, &dev, &ni, &ne, &d), 0);
    const double eff = sc.system.intra.efficiency;
    const Topology topo = sc.system.intra.topology;
    Scenario res = sc;
    assert_int_equal(evaluate_resolve(&res, &d), 0);
    assert_true(ni.bw_bytes_per_s > 0);
    assert_rel(res.system.intra.bw_bytes_per_s, ni.bw_bytes_per_s, 0);
    assert_rel(res.system.intra.energy_j_per_bit, ni.energy_j_per_bit, 0);
    assert_rel(res.system.intra.efficiency, eff, 0);
    assert_int_equal(res.system.intra.topology, topo);
    assert_rel(res.system.inter.bw_bytes_per_s, sc.system.inter.bw_bytes_per_s, 0); /* not asked */

    /* a tier with no share of the budget has no links to take */
    const char *none[] = {"system.inter.derived=yes", "system.device.derive.power.inter=0"};
    build(&sc, none, 2);
    Result r;
    assert_int_equal(evaluate(&sc, &r), -1);
    assert_int_equal(r.status, STATUS_ERROR);
    assert_string_equal(r.error,
                        "system.inter: network 'InfiniBand NDR' takes its links from device 'Derived N5 "
                        "(800 mm2, 500 W)', whose budget gives the inter links no share (derive: keys "
                        "'area.inter', 'power.inter', 'perimeter.inter')");
}

/* Misuse: a derive column on a device given by its figures, a tier taking
 * links from such a device, a budget the generator refuses. */
static void test_errors(void **state)
{
    (void)state;
    const char *kv[] = {"system=dgx-h100", "model=llama2-70b", "devices=64",
                        "system.device.derive.power.tdp=300 W"};
    Scenario sc;
    ScenarioSource src;
    Diag d;
    diag_clear(&d);
    assert_int_equal(scenario_build_kv(&db, "test", kv, NULL, 4, &sc, &src, &d), -1);
    scenario_source_free(&src);
    assert_int_equal(d.line, 4);
    assert_string_equal(d.msg, "column 'system.device.derive.power.tdp': device 'H100-SXM5-80GB' has no "
                               "derive: block to change (name a derived device, e.g. "
                               "system.device=derived-n5, or drop the column)");

    const char *links[] = {"system=dgx-h100",         "model=llama2-70b", "devices=64", "tp=8", "pp=1",
                           "system.intra.derived=yes"};
    build_scenario(&sc, links, 6);
    Result r;
    assert_int_equal(evaluate(&sc, &r), -1);
    assert_string_equal(r.error, "system.intra: network 'NVLink 4.0' takes its links from a derive: device "
                                 "(derived: yes), but device 'H100-SXM5-80GB' has no derive: block");

    const char *over[] = {"system.device.derive.power.core=0.9"};
    build(&sc, over, 1);
    assert_int_equal(evaluate(&sc, &r), -1);
    assert_int_equal(r.status, STATUS_ERROR);
    assert_string_equal(r.error,
                        "device 'Derived N5 (800 mm2, 500 W)': derive: keys 'power.*': the shares sum "
                        "to 1.6, more than the whole (1)");
}

/* ---- co-design: the splits searched with the strategy ----------------- */

static double split_sum(const double *f)
{
    double s = 0;
    for (int i = 0; i < TP_COUNT; i++)
        s += f[i];
    return s;
}

/* The search never returns a worse design than the template's split, keeps
 * each split's total, is reproducible for a seed, and its answer is what
 * evaluating that split directly gives. */
static void test_codesign(void **state)
{
    (void)state;
    const char *kv[] = {"codesign=area+power", "codesign_starts=2", "train_tokens=2e11"};
    Scenario sc;
    build(&sc, kv, 3);
    Result r, again, start;
    eval_ok(&sc, &r);
    assert_true(r.design_evals > 50);
    const Budget *b0 = &sc.system.device.derive.budget, *b = &r.design_budget;
    assert_rel(split_sum(b->area), split_sum(b0->area), 1e-9);
    assert_rel(split_sum(b->power), split_sum(b0->power), 1e-9);
    for (int i = 0; i < TP_COUNT; i++)
        assert_true(b->area[i] >= 0 && b->power[i] >= 0 && b->perimeter[i] == b0->perimeter[i]);

    Scenario plain = sc;
    plain.codesign = CODESIGN_NONE;
    eval_ok(&plain, &start);
    assert_rel(r.design_start_s, start.time_to_train_s, 1e-12);
    assert_true(r.time_to_train_s <= start.time_to_train_s);
    assert_true(r.time_to_train_s < 0.95 * start.time_to_train_s); /* the template's split is not optimal */

    Scenario at = plain;
    at.system.device.derive.budget = *b;
    Result direct;
    eval_ok(&at, &direct);
    assert_rel(direct.time_to_train_s, r.time_to_train_s, 1e-12);

    eval_ok(&sc, &again);
    assert_memory_equal(&again.design_budget, b, sizeof *b);
    assert_int_equal(again.design_evals, r.design_evals);
}

/* A power budget at the wall bounds the designs; one nothing meets is an
 * error that says so; a device given by its figures has no splits. */
static void test_codesign_limits(void **state)
{
    (void)state;
    const char *kv[] = {"codesign=power", "codesign_starts=1", "train_tokens=2e11"};
    Scenario sc;
    build(&sc, kv, 3);
    Result free_r, capped;
    eval_ok(&sc, &free_r);
    sc.power_budget_w = 0.97 * free_r.system_power_w;
    eval_ok(&sc, &capped);
    assert_true(capped.system_power_w <= sc.power_budget_w);
    sc.power_budget_w = 1000; /* 64 devices cannot run on 1 kW */
    assert_int_equal(evaluate(&sc, &capped), -1);
    assert_string_equal(capped.error,
                        "codesign: no split of the budget gives a feasible design (above the power budget)");

    const char *fixed[] = {"system=dgx-h100", "model=llama2-70b", "devices=64", "tp=8", "pp=8",
                           "codesign=area"};
    build_scenario(&sc, fixed, 6);
    assert_int_equal(evaluate(&sc, &capped), -1);
    assert_string_equal(capped.error,
                        "codesign: device 'H100-SXM5-80GB' has no derive: block, so it has no splits "
                        "to optimise (name a derived device, e.g. system.device=derived-n5)");
}

/* The pins are one bit per device table entry: the table must fit. */
static void test_table_fits_pins(void **state)
{
    (void)state;
    assert_true(param_device_table.count <= 64);
    const ParamTable *t = NULL;
    size_t off = 0;
    const ParamDef *def = param_find(&param_scenario_table, "system.device.derive.power.tdp", &t, &off);
    assert_non_null(def);
    assert_ptr_equal(t, &param_derive_table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolved_in_pipeline),
        cmocka_unit_test(test_budget_columns),
        cmocka_unit_test(test_pinned_override),
        cmocka_unit_test(test_derived_links),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_table_fits_pins),
        cmocka_unit_test(test_codesign),
        cmocka_unit_test(test_codesign_limits),
    };
    return cmocka_run_group_tests(tests, db_setup, db_teardown);
}
