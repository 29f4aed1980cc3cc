/* tests/test_scenario.c — one scenario from named settings (io/scenario.c)
 * over the shipped templates: base templates, dotted overrides, template
 * swaps, derived defaults and every fault with its exact message and
 * place; then invariants of evaluate() on real templates: HBM bandwidth
 * halves a memory-bound op, a large GEMM runs near the fitted fraction of
 * peak and a skinny one is memory-bound, GPT-3 does not fit one device,
 * ring all-reduce grows as 2(p-1)/p, MFU <= 1, the step is the sum of its
 * parts, throughput times step time is the global batch. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "batch/evaluate.h"
#include "power/power.h"
#include "core/param.h"
#include "graph/graph.h"
#include "io/scenario.h"
#include "io/template.h"
#include "par/step.h"
#include "perf/perf.h"

#define MAX_SET 32

typedef struct {
    TemplateDB db;
    Scenario sc;
    ScenarioSource src;
    Diag d;
    Setting set[MAX_SET];
    char names[MAX_SET][64], texts[MAX_SET][64];
    char msg[2048];
} Fix;

static int setup(void **state)
{
    Fix *f = calloc(1, sizeof *f);
    if (!f || tdb_init(&f->db, "../templates", &f->d)) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fix *f = *state;
    scenario_source_free(&f->src);
    tdb_free(&f->db);
    free(f);
    return 0;
}

/* Settings from "key=value, key=value, ..." as the cells of one table row
 * on line `line`: each value's column is where it would start in the CSV
 * line "value,value,...". */
static int parse_settings(Fix *f, const char *spec, int line)
{
    int n = 0, col = 1;
    const char *p = spec;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *eq = memchr(p, '=', (size_t)(end - p));
        assert_non_null(eq);
        assert_true(n < MAX_SET);
        snprintf(f->names[n], sizeof f->names[n], "%.*s", (int)(eq - p), p);
        snprintf(f->texts[n], sizeof f->texts[n], "%.*s", (int)(end - eq - 1), eq + 1);
        f->set[n].name = f->names[n];
        f->set[n].text = f->texts[n];
        f->set[n].line = line;
        f->set[n].col = col;
        col += (int)strlen(f->texts[n]) + 1;
        n++;
        p = *end ? end + 1 : end;
    }
    return n;
}

static int build(Fix *f, const char *spec, int line)
{
    scenario_source_free(&f->src);
    int n = parse_settings(f, spec, line);
    diag_clear(&f->d);
    int rc = scenario_build(&f->db, "study.csv", ".", f->set, n, line, &f->sc, &f->src, &f->d);
    diag_format(&f->d, f->msg, sizeof f->msg);
    return rc;
}

static void build_ok(Fix *f, const char *spec)
{
    if (build(f, spec, 2))
        print_error("unexpected error: %s\n", f->msg);
    assert_int_equal(f->d.msg[0], '\0');
}

/* The build must fail with exactly this message. */
static void build_fail(Fix *f, const char *spec, int line, const char *want)
{
    assert_int_equal(build(f, spec, line), -1);
    assert_string_equal(f->msg, want);
}

/* The build must fail with a message that starts so and ends in ')'. */
static void build_fail_prefix(Fix *f, const char *spec, int line, const char *start)
{
    assert_int_equal(build(f, spec, line), -1);
    if (strncmp(f->msg, start, strlen(start)) || f->msg[strlen(f->msg) - 1] != ')')
        fail_msg("\"%s\" does not start with \"%s\"", f->msg, start);
}

static void eval_ok(const Scenario *sc, Result *r)
{
    int rc = evaluate(sc, r);
    if (rc)
        print_error("evaluate: %s\n", r->error);
    assert_int_equal(rc, 0);
    assert_true(r->status == STATUS_OK || r->status == STATUS_OOM);
}

/* Evaluate `base` with `extra` settings appended. */
static void eval_spec(Fix *f, const char *base, const char *extra, Result *r)
{
    char spec[1024];
    snprintf(spec, sizeof spec, "%s, %s", base, extra);
    build_ok(f, spec);
    eval_ok(&f->sc, r);
}

/* ---- building --------------------------------------------------------- */

static void test_basic(void **state)
{
    Fix *f = *state;
    build_ok(f, "system=dgx-a100-80g, model=gpt3-175b, devices=8");
    const Scenario *sc = &f->sc;
    assert_string_equal(sc->system.name, "DGX A100 80GB");
    assert_string_equal(sc->system.device.name, "A100-SXM4-80GB");
    assert_rel(sc->system.device.mem[MEM_HBM].bw_bytes_per_s, 2039e9, 1e-15);
    assert_string_equal(sc->model.name, "GPT-3 175B");
    assert_int_equal(sc->model.layers, 96);
    assert_int_equal(sc->model.ffn, 49152); /* derived after the overrides */
    assert_int_equal(sc->devices, 8);
    assert_int_equal(sc->st.tp, 1);
    assert_int_equal(sc->st.pp, 1);
    assert_int_equal(sc->st.dp, 8); /* devices / (tp x pp) */
    assert_int_equal(sc->st.microbatch, 1);
    assert_int_equal(sc->st.global_batch, 8); /* microbatch x dp */
    assert_int_equal(sc->st.interleave, 1);
    assert_int_equal(sc->precision, PREC_BF16);
    assert_rel(sc->train_tokens, 300e9, 1e-15); /* from the model */
    assert_non_null(f->src.system);
    assert_string_equal(f->src.system->name, "dgx-a100-80g");
    assert_string_equal(f->src.model->name, "gpt3-175b");
    const Prov *p = prov_find(&f->src.over, "devices");
    assert_non_null(p);
    assert_string_equal(p->file, "study.csv");
    assert_int_equal(p->line, 2);
    assert_int_equal(p->col, 24);

    /* keywords are case-insensitive; derived dp and global batch */
    build_ok(f, "system=DGX-H100, model=gpt3-175b, devices=64, tp=8, pp=4, microbatch=2, recompute=Full, "
                "precision=FP8, seq_parallel=yes, zero=1");
    sc = &f->sc;
    assert_string_equal(sc->system.device.name, "H100-SXM5-80GB");
    assert_int_equal(sc->st.dp, 2);
    assert_int_equal(sc->st.global_batch, 4);
    assert_int_equal(sc->st.recompute, RECOMPUTE_FULL);
    assert_int_equal(sc->precision, PREC_FP8);
    assert_int_equal(sc->st.seq_parallel, 1);
    assert_int_equal(sc->st.zero, 1);

    /* an explicit global batch and dp are kept */
    build_ok(f, "system=dgx-h100, model=gpt3-175b, devices=64, tp=8, dp=8, microbatch=2, global_batch=1536");
    assert_int_equal(f->sc.st.dp, 8);
    assert_int_equal(f->sc.st.global_batch, 1536);
    /* an empty cell is not set */
    build_ok(f, "system=dgx-h100, model=gpt3-175b, devices=8, tp=, global_batch=");
    assert_int_equal(f->sc.st.tp, 1);
    assert_int_equal(f->sc.st.global_batch, 8);
    assert_null(prov_find(&f->src.over, "tp"));
    /* a row's own amount of training is not overruled by its model's
     * tokens: GPT-3's template trains on 300 B tokens */
    build_ok(f, "system=dgx-h100, model=gpt3-175b, devices=8, train_samples=1e8");
    assert_rel(f->sc.train_samples, 1e8, 1e-15);
    assert_rel(f->sc.train_tokens, 0, 0);
    build_ok(f, "system=dgx-h100, model=gpt3-175b, devices=8, epochs=2");
    assert_rel(f->sc.epochs, 2, 1e-15);
    assert_rel(f->sc.train_tokens, 0, 0);
}

static void test_overrides(void **state)
{
    Fix *f = *state;
    build_ok(f,
             "system=dgx-a100-80g, model=gpt3-175b, devices=8, model.layers=48, "
             "system.device.hbm.bandwidth=2 TB/s, system.inter.bandwidth=400 Gb/s, system.dp_overlap=50 %");
    const Scenario *sc = &f->sc;
    assert_int_equal(sc->model.layers, 48);
    assert_rel(sc->system.device.mem[MEM_HBM].bw_bytes_per_s, 2e12, 1e-15);
    assert_rel(sc->system.inter.bw_bytes_per_s, 50e9, 1e-15);
    assert_rel(sc->system.framework.dp_overlap, 0.5, 1e-15);
    /* the rest of the templates is untouched */
    assert_int_equal(sc->model.hidden, 12288);
    assert_rel(sc->system.device.mem[MEM_HBM].capacity_bytes, 80.0 * 1073741824.0, 1e-15);
    const Prov *p = prov_find(&f->src.over, "system.device.hbm.bandwidth");
    assert_non_null(p);
    assert_int_equal(p->col, 29);
    /* and the cached template itself is not changed */
    build_ok(f, "system=dgx-a100-80g, model=gpt3-175b");
    assert_int_equal(f->sc.model.layers, 96);
    assert_rel(f->sc.system.device.mem[MEM_HBM].bw_bytes_per_s, 2039e9, 1e-15);

    /* swap the device of a system */
    build_ok(f, "system=dgx-a100-80g, model=gpt3-175b, system.device=h100-sxm5-80gb");
    assert_string_equal(f->sc.system.device.name, "H100-SXM5-80GB");
    assert_string_equal(f->sc.system.name, "DGX A100 80GB");
    assert_rel(f->sc.system.intra.bw_bytes_per_s, 300e9, 1e-15);
    /* an override of the swapped device lands whatever the column order */
    build_ok(f, "system=dgx-a100-80g, model=gpt3-175b, system.device.hbm.bandwidth=5 TB/s, "
                "system.device=h100-sxm5-80gb");
    assert_string_equal(f->sc.system.device.name, "H100-SXM5-80GB");
    assert_rel(f->sc.system.device.mem[MEM_HBM].bw_bytes_per_s, 5e12, 1e-15);
    /* swap a network */
    build_ok(f, "system=dgx-a100-80g, model=gpt3-175b, system.inter=ib-ndr");
    assert_string_equal(f->sc.system.inter.name, "InfiniBand NDR");

    /* ffn follows an overridden hidden unless set */
    build_ok(f, "system=dgx-a100-80g, model=gpt, model.hidden=4096");
    assert_int_equal(f->sc.model.hidden, 4096);
    assert_int_equal(f->sc.model.ffn, 16384);
    build_ok(f, "system=dgx-a100-80g, model=gpt, model.hidden=4096, model.ffn=11008");
    assert_int_equal(f->sc.model.ffn, 11008);
    /* GEMM shape */
    build_ok(f, "system=dgx-h100, model=gemm, model.m=1, model.n=12288, model.k=5376");
    assert_int_equal(f->sc.model.kind, MODEL_GEMM);
    assert_int_equal(f->sc.model.m, 1);
    assert_int_equal(f->sc.model.n, 12288);
    assert_int_equal(f->sc.model.k, 5376);
}

/* Every die-to-die link on its stated die edge: the evaluation records
 * the bandwidth the lanes or wires give (PCB: 10 mm x 3.6 lanes/mm x
 * 112 Gb/s / 2), a row's edge and pitch change it, and an edge without
 * lanes is refused at the row. */
static void test_die_edge_links(void **state)
{
    Fix *f = *state;
    const char *base = "system=package-h100-16, model=llama2-7b, devices=16, tp=16, pp=1, microbatch=1, "
                       "global_batch=16";
    Result r;
    eval_spec(f, base, "system.intra=pcb", &r);
    assert_rel(r.intra_bw_bytes_per_s, 10 * 3.6 * 14e9 / 2, 1e-12);
    assert_rel(r.inter_bw_bytes_per_s, 50e9, 1e-12);
    const double pcb = r.step_time_s;
    eval_spec(f, base, "system.intra=pcb, system.intra.edge_mm=5", &r);
    assert_rel(r.intra_bw_bytes_per_s, 5 * 3.6 * 14e9 / 2, 1e-12);
    assert_true(r.step_time_s > pcb); /* tp 16: half the lanes, a slower step */
    eval_spec(f, base, "system.intra=interposer", &r);
    assert_rel(r.intra_bw_bytes_per_s, 10 * 44 * 2e9 / 2, 1e-12);
    eval_spec(f, base, "system.intra=siif, system.intra.wire.pitch_um=5", &r);
    assert_rel(r.intra_bw_bytes_per_s, 10 * (4 * 1000.0 / 5) * 0.5e9 / 2, 1e-12);
    build_fail(f, "system=package-h100-16, model=llama2-7b, system.intra=pcb, system.intra.links_per_mm=0", 3,
               "study.csv:3:31: system 'Package of 16 H100 dies': key 'edge_mm': a bandwidth from the die "
               "edge needs "
               "links_per_mm and link_bandwidth");
}

static void test_auto(void **state)
{
    Fix *f = *state;
    build_ok(f,
             "system=dgx-h100, model=gpt3-175b, devices=64, tp=auto, pp=8, microbatch=AUTO, recompute=auto");
    assert_int_equal(f->sc.st.tp, AUTO_VALUE);
    assert_int_equal(f->sc.st.microbatch, AUTO_VALUE);
    assert_int_equal((int)f->sc.st.recompute, AUTO_VALUE);
    assert_int_equal(f->sc.st.dp, 0);           /* left to the search */
    assert_int_equal(f->sc.st.global_batch, 0); /* likewise */
    /* evaluate() resolves what is auto (the search) and keeps what is set */
    Result r;
    eval_ok(&f->sc, &r);
    assert_int_equal(r.st.pp, 8);
    assert_true(r.st.tp >= 1 && r.st.dp >= 1 && r.st.microbatch >= 1);
    assert_int_equal(r.st.tp * r.st.pp * r.st.dp, 64);
    assert_true((int)r.st.recompute >= RECOMPUTE_NONE && r.st.recompute <= RECOMPUTE_FULL);

    /* 'auto' only where the table allows it */
    build_fail(
        f, "system=dgx-h100, model=gpt3-175b, devices=auto", 4,
        "study.csv:4:20: column 'devices': expected an integer in [1, 10000000], got 'auto' (not a number)");
}

static void test_faults(void **state)
{
    Fix *f = *state;
    build_fail(f, "system=dgx-h100, model=gpt3-175b, model.layer=48", 2,
               "study.csv:2:20: unknown column 'model.layer' (did you mean 'model.layers'?)");
    build_fail(f, "system=dgx-h100, model=gpt3-175b, devcies=8", 2,
               "study.csv:2:20: unknown column 'devcies' (did you mean 'devices'?)");
    build_fail(f, "system=dgx-h100, model=gpt3-175b, colour=8", 2,
               "study.csv:2:20: unknown column 'colour' (a scenario column or a dotted template path such as "
               "model.layers)");
    build_fail(f, "system=dgx-h100, model=gpt3-175b, system.device.hbm.bandwith=3 TB/s", 2,
               "study.csv:2:20: unknown column 'system.device.hbm.bandwith' (did you mean "
               "'system.device.hbm.bandwidth'?)");
    build_fail(
        f, "system=dgx-h100, model=mixtral-8x7b, system.framework.moe_dispatcher=nccl", 2,
        "study.csv:2:23: column 'system.framework.moe_dispatcher': expected one of alltoall or deepep, "
        "got 'nccl'");
    build_fail(f, "system=dgx-h100, model=mixtral-8x7b, system.framework.ep_overlap=maybe", 2,
               "study.csv:2:23: column 'system.framework.ep_overlap': expected yes or no, got 'maybe'");
    build_ok(f, "system=dgx-h100, model=mixtral-8x7b, system.framework.moe_dispatcher=deepep, "
                "system.framework.ep_overlap=yes, system.framework.ep_comm_sms=24");
    assert_int_equal(f->sc.system.framework.dispatcher, DISPATCH_DEEPEP);
    assert_int_equal(f->sc.system.framework.ep_overlap, 1);
    assert_int_equal(f->sc.system.framework.ep_comm_sms, 24);
    /* the device's DVFS range, checked after the row's overrides too */
    build_fail(
        f, "system=dgx-h100, model=gpt3-175b, system.device.voltage.min=1.2 V", 2,
        "study.csv:2:20: system 'DGX H100': key 'voltage.min': the lowest DVFS voltage, 1.2 V, must not "
        "exceed the nominal voltage, 0.9 V (voltage.nominal)");
    build_fail(
        f, "system=dgx-h100, model=gpt3-175b, system.device.voltage.threshold=0.95 V", 2,
        "study.csv:2:20: system 'DGX H100': key 'voltage.threshold': the threshold voltage, 0.95 V, must "
        "be below the nominal voltage, 0.9 V (voltage.nominal)");
    build_fail(
        f,
        "system=dgx-h100, model=gpt3-175b, system.device.voltage.threshold=0.3 V, "
        "system.device.voltage.min=0.25 V",
        2,
        "study.csv:2:26: system 'DGX H100': key 'voltage.min': the lowest DVFS voltage, 0.25 V, must be "
        "above the threshold voltage, 0.3 V (voltage.threshold)");
}

static void test_fault_values(void **state)
{
    Fix *f = *state;
    /* an explicit zero amount of training: an error, not the model's default */
    build_fail(
        f, "system=dgx-h100, model=gpt, train_tokens=0", 3,
        "study.csv:3:14: column 'train_tokens': 0 trains nothing; leave the cell empty for the model's own "
        "amount");
    /* the values start at columns 1, 10, 14: "dgx-h100,gpt,-8" */
    build_fail(
        f, "system=dgx-h100, model=gpt, devices=-8", 3,
        "study.csv:3:14: column 'devices': expected an integer in [1, 10000000], got '-8' (out of range)");
    build_fail(
        f, "system=dgx-h100, model=gpt, devices=8.5", 3,
        "study.csv:3:14: column 'devices': expected an integer in [1, 10000000], got '8.5' (not an integer)");
    build_fail(
        f, "system=dgx-h100, model=gpt, system.device.hbm.bandwidth=3.35 TB", 3,
        "study.csv:3:14: column 'system.device.hbm.bandwidth': expected a bandwidth (B/s, GB/s, TB/s, Gb/s) "
        "in [1e+09, 1e+15], got '3.35 TB' (unit 'TB' is a size, not a bandwidth)");
    build_fail(
        f, "system=dgx-h100, model=gpt, recompute=some", 3,
        "study.csv:3:14: column 'recompute': expected one of none, selective, full or auto, got 'some'");
    build_fail(f, "system=dgx-h100, model=gpt, seq_parallel=maybe", 3,
               "study.csv:3:14: column 'seq_parallel': expected yes, no or auto, got 'maybe'");
    build_fail(
        f, "system=dgx-h100, model=gpt, zero=4", 3,
        "study.csv:3:14: column 'zero': expected an integer in [0, 3] or 'auto', got '4' (out of range)");
    /* a duration without its unit (issue 27): seconds to the parser, days
     * to whoever typed it */
    build_fail(f, "system=dgx-h100, model=gpt, deadline=30", 3,
               "study.csv:3:14: column 'deadline': expected a time (us, ms, s, min, h, days) in [0, 1e+12], "
               "got '30' (a bare number would be seconds: give the unit, as 30 days, 12 h, 10 min or 75 us)");
    build_ok(f, "system=dgx-h100, model=gpt, deadline=30 days, budget=$30M");
    assert_rel(f->sc.deadline_s, 30 * 86400.0, 0);
    assert_rel(f->sc.budget_usd, 30e6, 0);
    /* a rack-scale system warns on a partial rack; a DGX node does not */
    build_ok(f, "system=gb200-nvl72, model=gpt, devices=64");
    assert_int_equal(f->src.warnings.n, 1);
    assert_non_null(
        strstr(f->src.warnings.s[0],
               "study.csv:2:17: warning: devices (64) is not a whole number of GB200 NVL72 racks (72 devices "
               "each): 1 rack holds 72 devices, 8 of them idle"));
    build_ok(f, "system=gb200-nvl72, model=gpt, devices=144");
    assert_int_equal(f->src.warnings.n, 0);
    build_ok(f, "system=dgx-h100, model=gpt, devices=4");
    assert_int_equal(f->src.warnings.n, 0);
    /* every bad value of a row, not only the first: the first placed, the
     * others after it with their line and column */
    build_fail(f, "system=dgx-h100, model=gpt, tp=8x, deadline=30, budget=junk", 3,
               "study.csv:3:14: column 'tp': expected an integer in [1, 100000] or 'auto', got '8x' (unknown "
               "unit 'x'); also 3:17: column 'deadline': expected a time (us, ms, s, min, h, days) in [0, "
               "1e+12], got '30' (a bare number would be seconds: give the unit, as 30 days, 12 h, 10 min or "
               "75 us); 3:20: column 'budget': expected an amount of money ($2.5, $30M, 30e6 USD) in [0, "
               "1e+15], got 'junk' (not a number: write $30M, $30 M, 30e6 USD or $30,000,000)");

    /* templates that do not exist: the known ones are listed (the list
     * grows with the templates, so only its start is pinned) */
    build_fail_prefix(f, "system=dgx-z100, model=gpt", 5,
                      "study.csv:5:1: column 'system': no systems template 'dgx-z100' (known: dgx-a100-40g, "
                      "dgx-a100-80g, dgx-b200, dgx-b300, dgx-h100, ");
    build_fail_prefix(f, "system=dgx-h100, model=gpt, system.device=h900", 5,
                      "study.csv:5:14: column 'system.device': no devices template 'h900' (known: "
                      "a100-sxm4-40gb, a100-sxm4-80gb, b200, ");
    build_fail(
        f, "system=../templates/systems/dgx-h100.yaml, model=gpt", 5,
        "study.csv:5:1: column 'system': systems template '../templates/systems/dgx-h100.yaml': a file name "
        "must be relative to the table's folder and may not contain '..'");
    build_fail(f, "model=gpt, devices=8", 6,
               "study.csv:6: column 'system': required, names a template in "
               "templates/systems");
    build_fail(f, "system=dgx-h100, devices=8", 6,
               "study.csv:6: column 'model': required, names a template in "
               "templates/models");
}

static void test_strategy_faults(void **state)
{
    Fix *f = *state;
    build_fail(f, "system=dgx-h100, model=gpt3-175b, devices=8, tp=2, dp=3", 7,
               "study.csv:7: tp x pp x dp (2 x 1 x 3 = 6) must equal devices (8)");
    build_fail(f, "system=dgx-h100, model=gpt3-175b, devices=12, tp=8", 7,
               "study.csv:7: devices (12) must be a multiple of tp x pp (8 x 1 = 8)");
    build_fail(f, "system=dgx-h100, model=gpt3-175b, devices=10, tp=5, dp=2", 7,
               "study.csv:7: heads (96) must be divisible by tp (5)");
    build_fail(f, "system=dgx-h100, model=gpt3-175b, devices=8, microbatch=2, global_batch=24", 7,
               "study.csv:7: global_batch (24) must be a multiple of dp x microbatch (8 x 2 = 16)");
    build_fail(f, "system=dgx-h100, model=gpt3-175b, devices=8, interleave=2", 7,
               "study.csv:7: interleave (2) needs pipeline parallelism (pp > 1)");
    /* an override that makes the model inconsistent: placed at the override */
    build_fail(f, "system=dgx-h100, model=gpt3-175b, model.hidden=4096", 8,
               "study.csv:8:20: model 'GPT-3 175B': keys 'hidden', 'heads': hidden (4096) is not divisible "
               "by heads (96)");
    build_fail(f, "system=dgx-h100, model=gpt, model.kv_heads=5", 8,
               "study.csv:8:14: model 'GPT': keys 'kv_heads', 'heads': heads (16) must be a multiple of "
               "kv_heads (5)");
}

/* ---- evaluate() invariants on real templates -------------------------- */

static void test_hbm_bandwidth_halves_membound(void **state)
{
    Fix *f = *state;
    build_ok(f, "system=dgx-a100-80g, model=gpt");
    const Device a = f->sc.system.device;
    char spec[256];
    snprintf(spec, sizeof spec, "system=dgx-a100-80g, model=gpt, system.device.hbm.bandwidth=%.17g B/s",
             2 * a.mem[MEM_HBM].bw_bytes_per_s);
    build_ok(f, spec);
    const Device b = f->sc.system.device;
    assert_rel(b.mem[MEM_HBM].bw_bytes_per_s, 2 * a.mem[MEM_HBM].bw_bytes_per_s, 1e-15);
    for (double bytes = 1e6; bytes <= 1e11; bytes *= 10) {
        double ta = membound_time(&a, bytes, 0) - a.launch_s;
        double tb = membound_time(&b, bytes, 0) - b.launch_s;
        assert_true(ta > 0);
        assert_rel(tb, ta / 2, 1e-12);
    }
}

static void test_gemm_bounds(void **state)
{
    Fix *f = *state;
    Result r;
    /* A large square GEMM runs within 5 % of the device's fitted fraction
     * of its bf16 peak (A100 40GB: 0.87 x 312 TFLOP/s, cuBLAS; the 80GB
     * template's fraction is refitted on vTrain's iterations).  The kernel
     * model alone: the power cap is lifted so that DVFS does not slow it;
     * under the default cap (the TDP) it is no faster. */
    static const char *const systems[] = {"dgx-a100-40g", "dgx-a100-80g", "dgx-h100"};
    for (int i = 0; i < 3; i++) {
        char spec[200];
        snprintf(spec, sizeof spec,
                 "system=%s, system.framework=ideal, model=gemm, model.m=8192, model.n=8192, model.k=8192, "
                 "devices=1",
                 systems[i]);
        build_ok(f, spec);
        Result capped;
        eval_ok(&f->sc, &capped);
        f->sc.power_cap_w = 1e5;
        eval_ok(&f->sc, &r);
        assert_int_equal(r.status, STATUS_OK);
        assert_true(strstr(r.bottleneck, "compute") != NULL);
        const Device *dev = &f->sc.system.device;
        const double peak = dev->matrix_flops[PREC_BF16] * dev->matrix_eff;
        if (i == 0)
            assert_rel(peak, 0.87 * 312e12, 1e-12);
        assert_rel(r.model_tflops_per_device * 1e12, peak, 0.05);
        assert_true(r.model_tflops_per_device * 1e12 <= peak * (1 + 1e-9));
        assert_rel(r.model_flops_per_step, 2.0 * 8192 * 8192 * 8192, 1e-12);
        assert_true(r.mfu <= dev->matrix_eff + 1e-9);
        assert_true(capped.step_time_s >= r.step_time_s);
        assert_true(strstr(capped.bottleneck, "compute") != NULL);
    }

    /* one token through a 12288 x 5376 weight: all weight traffic */
    build_ok(f, "system=dgx-a100-80g, model=gemm, model.m=1, model.n=12288, model.k=5376, devices=1");
    eval_ok(&f->sc, &r);
    assert_int_equal(r.status, STATUS_OK);
    assert_null(strstr(r.bottleneck, "compute"));
    assert_true(strstr(r.bottleneck, "HBM") != NULL);
    /* no faster than reading the weight once at the HBM peak */
    const double bytes = 2.0 * 12288 * 5376;
    assert_true(r.step_time_s >= bytes / f->sc.system.device.mem[MEM_HBM].bw_bytes_per_s);
    assert_true(r.mfu < 0.05);
}

static void test_gpt3_one_device_oom(void **state)
{
    Fix *f = *state;
    Result r;
    build_ok(f, "system=dgx-a100-80g, model=gpt3-175b, devices=1, microbatch=1, global_batch=1");
    eval_ok(&f->sc, &r);
    assert_int_equal(r.status, STATUS_OOM);
    assert_int_equal(r.fits_memory, 0);
    assert_true(r.mem_total_bytes > 3e12);
    assert_rel(r.mem_capacity_bytes, 80.0 * 1073741824.0, 1e-15);
    assert_true(r.params_total > 170e9 && r.params_total < 180e9);
}

static void test_dp_allreduce_scaling(void **state)
{
    Fix *f = *state;
    double t[4] = {0}, t_lat[4] = {0};
    const int dps[4] = {1, 2, 4, 8};
    char spec[256];
    for (int i = 0; i < 4; i++) {
        Result r;
        snprintf(spec, sizeof spec,
                 "system=dgx-a100-80g, model=gpt, devices=%d, global_batch=64, system.dp_overlap=0, "
                 "system.intra.latency=0, system.intra.busbw=1:1;1e15:1", /* alpha-beta alone */
                 dps[i]);
        build_ok(f, spec);
        eval_ok(&f->sc, &r);
        t[i] = r.comp_time_s[COMP_DP_COMM];
        assert_true(r.comp_time_s[COMP_DP_HIDDEN] == 0);
        /* with the template's latency: never cheaper with more devices */
        snprintf(spec, sizeof spec, "system=dgx-a100-80g, model=gpt, devices=%d, global_batch=64", dps[i]);
        build_ok(f, spec);
        eval_ok(&f->sc, &r);
        t_lat[i] = r.comp_time_s[COMP_DP_COMM];
        if (i > 0) {
            assert_true(t_lat[i] >= t_lat[i - 1]);
            assert_true(t[i] >= t[i - 1]);
        }
    }
    assert_true(t[0] == 0); /* one replica: nothing to exchange */
    assert_true(t[1] > 0);
    /* ring all-reduce: 2(p-1)/p of the buffer on the wire */
    for (int i = 2; i < 4; i++) {
        double p = dps[i];
        assert_rel(t[i] / t[1], (2 * (p - 1) / p) / (2 * (2 - 1) / 2.0), 1e-12);
    }
}

/* MFU, the step as a sum of its components, throughput x step = batch. */
static void check_result_identities(const Scenario *sc, const Result *r)
{
    double sum = 0;
    for (int c = 0; c < COMP_COUNT; c++) {
        assert_true(r->comp_time_s[c] >= 0);
        if (c != COMP_DP_HIDDEN)
            sum += r->comp_time_s[c];
    }
    assert_rel(r->step_time_s, sum, 1e-12);
    assert_rel(r->samples_per_s * r->step_time_s, (double)sc->st.global_batch, 1e-12);
    assert_true(r->mfu > 0 && r->mfu <= 1);
    /* hardware FLOPs are the model's (MFU's count) and what recompute
     * redoes, against the same peak: never below MFU (issue 27), and equal
     * to it without recompute, whatever the precision or attention kernel */
    assert_true(r->hfu >= r->mfu);
    if (sc->st.recompute == RECOMPUTE_NONE)
        assert_rel(r->hfu, r->mfu, 1e-12);
    assert_true(r->hfu <= 1);
}

static void test_result_identities(void **state)
{
    Fix *f = *state;
    static const char *const specs[] = {
        "system=dgx-a100-80g, model=gpt3-175b, devices=1024, tp=8, pp=16, microbatch=1, global_batch=1536",
        "system=dgx-a100-80g, model=gpt3-175b, devices=1024, tp=8, pp=8, microbatch=2, global_batch=2048, "
        "interleave=2, recompute=full, seq_parallel=yes",
        "system=dgx-h100, model=llama2-70b, devices=64, tp=8, pp=2, global_batch=256, zero=1, "
        "system.dp_overlap=0.5",
        "system=dgx-h100, model=gpt, devices=16, microbatch=4, global_batch=512, zero=3, recompute=selective",
        "system=dgx-v100, model=bert-large, devices=8, microbatch=8, precision=fp16",
        "system=dgx-b200, model=llama2-7b, devices=8, tp=2, microbatch=2, global_batch=64, precision=fp8",
        "system=dgx-a100-80g, model=gemm, devices=1",
        "system=dgx-a100-80g, model=gpt3-175b, devices=1, microbatch=1, global_batch=1",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        Result r;
        build_ok(f, specs[i]);
        eval_ok(&f->sc, &r);
        check_result_identities(&f->sc, &r);
    }
}

/* Buying instead of renting (issue 27): whole nodes at the template's
 * price, the energy at the site's price, the run's share of owning, and
 * the use from which buying costs less than renting, by hand. */
static void test_buy_or_rent(void **state)
{
    Fix *f = *state;
    Result r;
    build_ok(f,
             "system=dgx-h100, model=gpt3-175b, devices=1020, tp=4, pp=1, microbatch=1, global_batch=1020, "
             "zero=3, recompute=full, system.price.purchase_node=$270k, electricity_price=$0.10, "
             "amortisation_years=4");
    eval_ok(&f->sc, &r);
    assert_int_equal(r.status, STATUS_OK);
    const double nodes = 128; /* 1020 devices: 127.5 nodes, bought whole */
    assert_rel(r.purchase_usd, nodes * 270e3, 1e-12);
    assert_rel(r.energy_cost_usd, r.energy_to_train_j / 3.6e6 * 0.10, 1e-12);
    const double year_s = 8766.0 * 3600.0;
    assert_rel(r.tco_usd, r.purchase_usd * r.time_to_train_s / (4 * year_s) + r.energy_cost_usd, 1e-12);
    const double rent = 3.99 * 1020 * 8766.0, energy = r.system_power_w / 1e3 * 8766.0 * 0.10;
    assert_rel(r.tco_year_usd, r.purchase_usd / 4 + energy, 1e-12);
    assert_rel(r.break_even_use, r.purchase_usd / (4 * (rent - energy)), 1e-12);
    assert_true(r.break_even_use > 0.05 &&
                r.break_even_use < 0.5); /* renting H100s at $3.99: buy above ~20 % use */
    /* a facility at $1,000 per kW of peak IT power a year (issue 31): a
     * fixed cost of owning, paid at any use */
    const Result plain = r;
    build_ok(f,
             "system=dgx-h100, model=gpt3-175b, devices=1020, tp=4, pp=1, microbatch=1, global_batch=1020, "
             "zero=3, recompute=full, system.price.purchase_node=$270k, electricity_price=$0.10, "
             "amortisation_years=4, site.facility_cost=$1000");
    eval_ok(&f->sc, &r);
    const double it_kw = r.peak_power_w / f->sc.system.pue / 1e3, fixed = r.purchase_usd / 4 + 1000 * it_kw;
    assert_rel(r.peak_power_w, plain.peak_power_w, 1e-12);
    assert_rel(r.tco_usd, fixed * r.time_to_train_s / year_s + r.energy_cost_usd, 1e-12);
    assert_rel(r.tco_year_usd, fixed + energy, 1e-12);
    assert_rel(r.break_even_use, fixed / (rent - energy), 1e-12);
    assert_true(r.break_even_use > plain.break_even_use);
    /* dearer power than rent: never */
    build_ok(f,
             "system=dgx-h100, model=gpt3-175b, devices=1024, tp=8, pp=8, microbatch=1, global_batch=1536, "
             "system.price.purchase_node=$270k, electricity_price=$9");
    eval_ok(&f->sc, &r);
    assert_true(isinf(r.break_even_use));
    /* no purchase price: nothing to compare, the energy cost still known */
    build_ok(f,
             "system=dgx-h200, model=gpt3-175b, devices=1024, tp=8, pp=8, microbatch=1, global_batch=1536");
    eval_ok(&f->sc, &r);
    assert_true(isnan(r.purchase_usd) && isnan(r.tco_usd) && isnan(r.tco_year_usd) &&
                isnan(r.break_even_use));
    assert_rel(r.energy_cost_usd, r.energy_to_train_j / 3.6e6 * 0.0806, 1e-12);
}

/* Carbon (issue 31), by hand: the energy at the wall x the site's grid
 * intensity, and the run's share of making 1,024 H100s (8 cm2 of die at
 * 2 kg a cm2, 80 GiB at 0.5 kg a GB, a 10 kg package: 69 kg each) and 128
 * nodes (2 t each) over a 4-year service life.  The facility's peak is
 * every device computing, above the average; its trough all of them
 * waiting at their static power. */
static void test_carbon_and_peak(void **state)
{
    Fix *f = *state;
    Result r;
    build_ok(f,
             "system=dgx-h100, model=gpt3-175b, devices=1024, tp=8, pp=8, microbatch=1, global_batch=1536, "
             "site.grid_intensity=400, service_life=4, system.device.embodied.die_area=800 mm2, "
             "system.device.embodied.logic=2, system.device.embodied.memory=0.5, "
             "system.device.embodied.package=10, system.embodied.node=2000");
    eval_ok(&f->sc, &r);
    assert_int_equal(r.status, STATUS_OK);
    const double gb = 80 * 1073741824.0 / 1e9; /* 80 GiB of HBM: 85.9 GB */
    assert_rel(f->sc.system.device.mem[MEM_HBM].capacity_bytes, gb * 1e9, 1e-12);
    assert_rel(r.co2e_operational_t, r.energy_to_train_j / 3.6e6 * 400 / 1e6, 1e-12);
    const double made_t = (1024 * (16 + 0.5 * gb + 10) + 128 * 2000.0) / 1e3, life_s = 4 * 8766.0 * 3600.0;
    assert_rel(r.co2e_embodied_t, made_t * r.time_to_train_s / life_s, 1e-12);
    assert_rel(r.co2e_t, r.co2e_operational_t + r.co2e_embodied_t, 1e-12);
    assert_true(r.peak_power_w >= r.system_power_w);
    assert_true(r.power_swing_w > 0 && r.peak_power_w - r.power_swing_w < r.system_power_w);
    const double idle_sys = (1024 * (f->sc.system.device.idle_w + f->sc.system.switch_w_per_device) +
                             128 * f->sc.system.node_overhead_w) *
                            f->sc.system.pue;
    assert_rel(r.peak_power_w - r.power_swing_w, idle_sys, 1e-12);
    /* no ramp limit: the power steps, the whole swing in the step's
     * common wait (its exposed data-parallel exchange) */
    assert_true(isnan(r.power_ramp_w_s) && r.ramp_hold_j == 0 && r.ramp_hold_share == 0);
    const double wait = r.comp_time_s[COMP_DP_COMM];
    assert_true(wait > 0);
    assert_rel(r.power_dip_w, r.power_swing_w, 1e-12);
    /* a site's ramp limit: the same step, the dip held to it, and what
     * holding burns drawn at the wall (pwr_ramp_hold, by hand in
     * test_power) */
    const Result free_ramp = r;
    build_ok(f,
             "system=dgx-h100, model=gpt3-175b, devices=1024, tp=8, pp=8, microbatch=1, global_batch=1536, "
             "site.grid_intensity=400, service_life=4, system.device.embodied.die_area=800 mm2, "
             "system.device.embodied.logic=2, system.device.embodied.memory=0.5, "
             "system.device.embodied.package=10, system.embodied.node=2000, site.ramp_limit=1 MW/s");
    eval_ok(&f->sc, &r);
    assert_rel(r.step_time_s, free_ramp.step_time_s, 1e-12);
    assert_rel(r.power_ramp_w_s, 1e6, 1e-12);
    double dip;
    const double held = pwr_ramp_hold(free_ramp.power_swing_w, wait, 1e6, &dip);
    assert_true(held > 0 && dip < free_ramp.power_swing_w);
    assert_rel(r.ramp_hold_j, held, 1e-12);
    assert_rel(r.power_dip_w, dip, 1e-12);
    assert_rel(r.system_power_w, free_ramp.system_power_w + held / r.step_time_s, 1e-12);
    assert_rel(r.energy_to_train_j, r.system_power_w * r.time_to_train_s, 1e-12);
    assert_rel(r.ramp_hold_share, held / r.energy_per_step_j, 1e-12);
    /* a site sets the intensity, the PUE and the price where the row does
     * not; the row's own keys win */
    build_ok(f, "system=dgx-h100, model=gpt3-175b, devices=64, tp=8, pp=8, microbatch=1, global_batch=64, "
                "site=france-jean-zay");
    assert_rel(f->sc.site.grid_gco2_kwh, 57, 1e-12);
    assert_rel(f->sc.system.pue, f->sc.site.pue, 1e-12);
    build_ok(f, "system=dgx-h100, model=gpt3-175b, devices=64, tp=8, pp=8, microbatch=1, global_batch=64, "
                "site=france-jean-zay, system.pue=1.5, grid_intensity=100");
    assert_rel(f->sc.system.pue, 1.5, 1e-12);
    assert_rel(f->sc.site.grid_gco2_kwh, 100, 1e-12);
    /* no die area: no embodied figure, and no total */
    build_ok(f, "system=dgx-h100, model=gpt3-175b, devices=64, tp=8, pp=8, microbatch=1, global_batch=64, "
                "system.device.embodied.die_area=0");
    eval_ok(&f->sc, &r);
    assert_true(isnan(r.co2e_embodied_t) && isnan(r.co2e_t) && r.co2e_operational_t > 0);
}

/* The clock plan (issue 31, Perseus): the stages off the critical path run
 * slower, the step does not; the energy never rises; one stage has nothing
 * to plan; a heavier head (the last stage further ahead of the others)
 * leaves more to save, at lower clocks, never below the DVFS floor. */
static void test_clock_plan(void **state)
{
    Fix *f = *state;
    Result one, r, heavy;
    build_ok(f,
             "system=dgx-a100-80g, model=gpt3-175b, devices=64, tp=8, pp=1, microbatch=1, global_batch=64, "
             "recompute=full, train_tokens=1e9");
    eval_ok(&f->sc, &one);
    assert_true(one.clock_plan_saving == 0 && one.plan_min_clock == 1.0);
    assert_rel(one.energy_to_train_plan_j, one.energy_to_train_j, 1e-12);
    build_ok(f, "system=dgx-a100-80g, model=gpt3-175b, devices=1024, tp=8, pp=16, microbatch=1, "
                "global_batch=1536, recompute=full, train_tokens=300e9");
    eval_ok(&f->sc, &r);
    assert_int_equal(r.status, STATUS_OK);
    assert_true(r.clock_plan_saving > 0 && r.clock_plan_saving < 0.2);
    assert_true(r.energy_to_train_plan_j < r.energy_to_train_j);
    assert_rel(r.energy_to_train_plan_j, r.energy_to_train_j * (1 - r.clock_plan_saving), 1e-12);
    const double floor = pwr_min_clock(&f->sc.system.device);
    assert_true(r.plan_min_clock < 1 && r.plan_min_clock >= floor);
    build_ok(f, "system=dgx-a100-80g, model=gpt3-175b, devices=1024, tp=8, pp=16, microbatch=1, "
                "global_batch=1536, recompute=full, train_tokens=300e9, model.vocab=256000");
    eval_ok(&f->sc, &heavy);
    assert_true(heavy.clock_plan_saving > r.clock_plan_saving && heavy.plan_min_clock < r.plan_min_clock);
    assert_true(heavy.plan_min_clock >= floor);
    /* 1F1B's warm-up forwards wait for their first backward and run lower
     * still, which the interleaved schedule's plan does not count: what 1F1B
     * saves over it grows with the warm-up's share of the step (12
     * microbatches against 192) */
    Result r_v, few, few_v;
    const char *spec = "system=dgx-a100-80g, model=gpt3-175b, devices=1024, tp=8, pp=16, microbatch=1, "
                       "recompute=full, train_tokens=300e9";
    eval_spec(f, spec, "global_batch=1536, interleave=2", &r_v);
    eval_spec(f, spec, "global_batch=96", &few);
    eval_spec(f, spec, "global_batch=96, interleave=2", &few_v);
    assert_true(few_v.clock_plan_saving > 0 && r_v.clock_plan_saving > 0);
    assert_true(few.clock_plan_saving - few_v.clock_plan_saving >
                2 * (r.clock_plan_saving - r_v.clock_plan_saving) + 0.005);
    assert_rel(few.plan_min_clock, r.plan_min_clock, 1e-12); /* the stages' steady state: as before */
    assert_rel(few.energy_to_train_plan_j, few.energy_to_train_j * (1 - few.clock_plan_saving), 1e-12);
}

/* Every shipped system runs a dense 8192^3 GEMM within its own power cap
 * at a sensible fraction of its peak (issue 9: tpu-v4-pod could not; it
 * was L2-bound at 44 % and drew 383 W against 192 W). */
static void test_every_system_at_its_cap(void **state)
{
    Fix *f = *state;
    char **names = NULL;
    int n = 0;
    assert_int_equal(tdb_list(&f->db, "systems", &names, &n), 0);
    assert_true(n >= 9);
    for (int i = 0; i < n; i++) {
        char spec[200];
        snprintf(spec, sizeof spec,
                 "system=%s, model=gemm, model.m=8192, model.n=8192, model.k=8192, devices=1", names[i]);
        build_ok(f, spec);
        if (f->sc.system.device.matrix_flops[PREC_BF16] <= 0) { /* V100: its 16-bit format is fp16 */
            snprintf(spec + strlen(spec), sizeof spec - strlen(spec), ", precision=fp16");
            build_ok(f, spec);
        }
        Result r;
        eval_ok(&f->sc, &r);
        const double cap = f->sc.system.device.tdp_w;
        if (r.status != STATUS_OK || !(r.device_power_w <= cap * (1 + 1e-6)) || !(r.mfu > 0.45) ||
            !strstr(r.bottleneck, "compute"))
            fail_msg("%s: status %s, %.0f W against a %.0f W cap, MFU %.3f, bottleneck %s", names[i],
                     status_name(r.status), r.device_power_w, cap, r.mfu, r.bottleneck);
        free(names[i]);
    }
    free(names);
}

/* The training stack: TP overlap only with sequence parallelism, never
 * more than the GEMMs beside it; the ideal stack is an upper bound of the
 * shipped one; every stack but the ideal gives an interval around 1. */
static void test_framework_stack(void **state)
{
    Fix *f = *state;
    Result a, b, ideal;
    const char *base = "system=dgx-h100, model=gpt3-175b, devices=64, tp=8, pp=8, microbatch=1, "
                       "global_batch=64, recompute=selective";
    char spec[400];
    eval_spec(f, base, "seq_parallel=yes, system.framework.tp_overlap=0", &a);
    snprintf(spec, sizeof spec, "%s, seq_parallel=yes", base);
    build_ok(f, spec);
    assert_rel(f->sc.system.framework.tp_overlap, 0.75, 1e-12);
    eval_ok(&f->sc, &b);
    assert_true(b.comp_time_s[COMP_TP_COMM] < a.comp_time_s[COMP_TP_COMM]);
    /* 3/4 hidden, less what the GEMMs beside it lose to its kernels: 20
     * of the H100's 132 SMs for that time */
    assert_int_equal(f->sc.system.framework.comm_sms, 20);
    assert_rel(b.comp_time_s[COMP_TP_COMM], (0.25 + 0.75 * 20.0 / 132.0) * a.comp_time_s[COMP_TP_COMM], 1e-9);
    assert_true(b.step_time_s < a.step_time_s);
    Result free_sms;
    eval_spec(f, base, "seq_parallel=yes, system.framework.comm_sms=0", &free_sms);
    assert_rel(free_sms.comp_time_s[COMP_TP_COMM], 0.25 * a.comp_time_s[COMP_TP_COMM], 1e-9);
    assert_true(isfinite(b.interval_lo) && b.interval_lo <= 1 && b.interval_hi >= 1);
    assert_non_null(strstr(b.interval_basis, "Megatron-Core"));
    /* without sequence parallelism Megatron-Core does not overlap */
    snprintf(spec, sizeof spec, "%s, seq_parallel=no, system.framework.tp_overlap=1", base);
    build_ok(f, spec);
    Result c, d;
    eval_ok(&f->sc, &c);
    eval_spec(f, base, "seq_parallel=no, system.framework.tp_overlap=0", &d);
    assert_rel(c.step_time_s, d.step_time_s, 1e-12);
    /* the ideal stack: faster, and no interval (not a prediction) */
    eval_spec(f, base, "seq_parallel=yes, system.framework=ideal", &ideal);
    assert_true(ideal.step_time_s < b.step_time_s);
    assert_true(isnan(ideal.interval_lo) && isnan(ideal.interval_hi));
    assert_non_null(strstr(ideal.interval_basis, "not a prediction"));
}

/* The prediction interval of a row the validation covers is its stack's
 * regime interval; a device generation or model class that no validation
 * source of the stack covers gets the interval of every source's
 * out-of-sample residuals and says why (issue 24). */
static void test_interval_coverage(void **state)
{
    Fix *f = *state;
    Result own, gen, moe;
    const char *base =
        "system=dgx-h100, model=llama2-7b, devices=8, tp=1, microbatch=1, global_batch=8, zero=1";
    eval_spec(f, base, "precision=bf16", &own);
    const Framework *fw = &f->sc.system.framework;
    assert_true(fw->single_node.runs > 0 && fw->uncovered.runs > fw->single_node.runs);
    assert_rel(own.interval_lo, fw->single_node.lo, 1e-12);
    assert_rel(own.interval_hi, fw->single_node.hi, 1e-12);
    assert_non_null(strstr(own.interval_basis, "single-node"));
    /* the A100-era stack has no Hopper run */
    eval_spec(f, base, "precision=bf16, system.framework=megatron-lm", &gen);
    fw = &f->sc.system.framework;
    assert_rel(gen.interval_lo, fw->uncovered.lo, 1e-12);
    assert_rel(gen.interval_hi, fw->uncovered.hi, 1e-12);
    assert_non_null(strstr(gen.interval_basis, "no validation run on a hopper device"));
    /* more devices than the stack family's largest validation run */
    Result big;
    eval_spec(f, "system=dgx-h100, model=llama2-7b, tp=8, pp=1, microbatch=1, zero=1",
              "precision=bf16, "
              "devices=32768, global_batch=4096",
              &big);
    fw = &f->sc.system.framework;
    assert_true(fw->max_devices > 0 && fw->max_devices < 32768);
    assert_rel(big.interval_hi, fw->uncovered.hi, 1e-12);
    assert_non_null(strstr(big.interval_basis, "beyond the"));
    /* a mixture of experts: the range of the published MoE runs (evaluated,
     * never fitted on), widened by every source's on a device its stack
     * has no run on */
    build_ok(f, "system=dgx-h100, model=mixtral-8x7b, devices=64, tp=1, pp=4, ep=8, microbatch=1, "
                "global_batch=256");
    eval_ok(&f->sc, &moe);
    fw = &f->sc.system.framework;
    assert_true(fw->moe.runs > 0 && fw->moe.hi > fw->multi_node.hi);
    assert_rel(moe.interval_lo, fw->moe.lo, 1e-12);
    assert_rel(moe.interval_hi, fw->moe.hi, 1e-12);
    assert_non_null(strstr(moe.interval_basis, "mixture of experts"));
    build_ok(f, "system=dgx-h100, model=mixtral-8x7b, devices=64, tp=1, pp=4, ep=8, microbatch=1, "
                "global_batch=256, system.framework=megatron-lm");
    eval_ok(&f->sc, &moe);
    fw = &f->sc.system.framework;
    assert_rel(moe.interval_lo, fmin(fw->moe.lo, fw->uncovered.lo), 1e-12);
    assert_rel(moe.interval_hi, fmax(fw->moe.hi, fw->uncovered.hi), 1e-12);
    assert_non_null(strstr(moe.interval_basis, "no validation run on a hopper device"));

    /* the 2019 stack's range comes from V100 CNN runs of one node at 128 to
     * 384 images a GPU (validation/small_batch): a CNN row at 128 gets it,
     * one at 16 the widest range and a flag, as does a row on two nodes (no
     * multi-node run); an LSTM row the range of the measured V100 LSTM runs,
     * widened by every source's where it is below their batch */
    Result cnn, small, nodes, lstm;
    const char *v100 = "system=dgx-v100, model=resnet50, tp=1, pp=1, precision=fp16";
    eval_spec(f, v100, "devices=8, microbatch=128, global_batch=1024", &cnn);
    fw = &f->sc.system.framework;
    assert_int_equal(fw->min_batch, 128);
    assert_true(fw->single_node.runs > 0 && fw->multi_node.runs == 0);
    assert_rel(cnn.interval_lo, fw->single_node.lo, 1e-12);
    assert_int_equal(cnn.batch_below, 0);
    eval_spec(f, v100, "devices=8, microbatch=16, global_batch=128", &small);
    assert_rel(small.interval_hi, fw->uncovered.hi, 1e-12);
    assert_int_equal(small.batch_below, 1);
    /* every source's range pools all the validation runs (make validate
     * writes their count into the template: thousands, not one source's) */
    const int pooled = fw->uncovered.runs;
    assert_true(pooled > 2000);
    char want[320];
    snprintf(want, sizeof want,
             "TensorFlow 1.x + Horovod (V100 era): below the 128 samples a device it was validated at; "
             "every source's range (%d runs)",
             pooled);
    assert_string_equal(small.interval_basis, want);
    eval_spec(f, v100, "devices=16, microbatch=16, global_batch=256", &nodes);
    assert_int_equal(nodes.batch_below, 1);
    snprintf(want, sizeof want,
             "TensorFlow 1.x + Horovod (V100 era): no multi-node validation run; below the 128 samples a "
             "device it was validated at; every source's range (%d runs)",
             pooled);
    assert_string_equal(nodes.interval_basis, want);
    const char *bl = "system=dgx-v100, model=biglstm, tp=1, pp=1, precision=fp32, devices=4";
    eval_spec(f, bl, "microbatch=256, global_batch=1024", &lstm);
    fw = &f->sc.system.framework;
    assert_true(fw->lstm.runs > 0 && fw->lstm.lo >= 1 && fw->lstm.hi > fw->uncovered.hi);
    assert_rel(lstm.interval_lo, fw->lstm.lo, 1e-12);
    assert_rel(lstm.interval_hi, fw->lstm.hi, 1e-12);
    assert_int_equal(lstm.batch_below, 0);
    assert_non_null(strstr(lstm.interval_basis, "measured LSTM runs"));
    eval_spec(f, bl, "microbatch=32, global_batch=128", &lstm);
    assert_rel(lstm.interval_lo, fmin(fw->lstm.lo, fw->uncovered.lo), 1e-12);
    assert_int_equal(lstm.batch_below, 1);
    assert_non_null(strstr(lstm.interval_basis, "below the 128 samples"));
}

/* Four layers of Qwen3-30B-A3B's shape on 8 H100s: 128 fine-grained
 * experts, top-8, balanced, one expert-parallel group. */
#define FINE_EXPERTS                                                                                         \
    "system=dgx-h100, model=mixtral-8x7b, model.layers=4, model.hidden=2048, model.heads=32, "               \
    "model.kv_heads=4, model.head_dim=128, model.ffn=768, model.experts=128, "                               \
    "model.experts_per_token=8, model.seq_len=4096, model.expert_imbalance=1, devices=8, tp=1, "             \
    "pp=1, ep=8, microbatch=1, global_batch=8, precision=bf16, recompute=none, zero=1"

/* Dropless routing sends the tokens per expert to the host (the
 * dispatcher's device-to-host copy): the host cannot run ahead past it, so
 * a layer whose expert ops are host-bound pays for them even where its
 * attention is long enough to hide them without the sync; with a capacity
 * (sizes known) or no host time, the two agree. */
static void test_moe_host_sync(void **state)
{
    Fix *f = *state;
    Result sync, cap, sync0, cap0;
    const char *base = FINE_EXPERTS;
    eval_spec(f, base, "model.capacity_factor=0, system.framework.op_overhead=50 us", &sync);
    eval_spec(f, base, "model.capacity_factor=1, system.framework.op_overhead=50 us", &cap);
    assert_true(sync.comp_time_s[COMP_HOST] > 2.0 * cap.comp_time_s[COMP_HOST]);
    assert_true(sync.step_time_s > cap.step_time_s);
    assert_rel(sync.comp_time_s[COMP_GEMM], cap.comp_time_s[COMP_GEMM], 1e-12);
    /* with no host time they differ only by the device time of the
     * counts' host copies (4 small copies a layer), which a capacity spares */
    eval_spec(f, base, "model.capacity_factor=0, system.framework.op_overhead=0 us", &sync0);
    eval_spec(f, base, "model.capacity_factor=1, system.framework.op_overhead=0 us", &cap0);
    assert_true(sync0.step_time_s > cap0.step_time_s);
    assert_rel(sync0.step_time_s, cap0.step_time_s, 5e-3);
}

/* After a host sync the device starts from an empty queue: it waits for
 * the host to dispatch the first op, and for each later op until it is
 * dispatched (a flow shop).  With a host far faster than the device only
 * the first dispatch after each sync shows: 1 us a layer's forward here
 * (four layers, one microbatch, the dispatch's sync), nothing without the
 * sync (a capacity: sizes known). */
static void test_moe_sync_flow_shop(void **state)
{
    Fix *f = *state;
    Result sync, cap;
    eval_spec(f, FINE_EXPERTS, "model.capacity_factor=0, system.framework.op_overhead=1 us", &sync);
    eval_spec(f, FINE_EXPERTS, "model.capacity_factor=1, system.framework.op_overhead=1 us", &cap);
    assert_rel(sync.comp_time_s[COMP_HOST], 4 * 1e-6, 1e-6);
    assert_true(cap.comp_time_s[COMP_HOST] == 0.0);
}

/* The device time of op `name` in list `list` of the scenario's op trace. */
static double traced_device_s(const Scenario *sc, const char *list, const char *name)
{
    OpTrace *t = calloc(1, sizeof *t);
    assert_non_null(t);
    Result r;
    assert_int_equal(step_trace(sc, 1.0, NULL, t, &r), 0);
    double s = -1;
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->op[i].list, list) && !strcmp(t->op[i].name, name))
            s = t->op[i].device_s;
    free(t);
    assert_true(s >= 0);
    return s;
}

/* PyTorch's accumulating scatters (a mixture of experts' token path on a
 * stack with moe_permute index, moe_sort index_padded, moe_combine
 * scatter_add): at the device's scatter_add bytes a clock per SM, the
 * B200's fitted on pytorch/ao's timing of such a gradient (1.85 ms for
 * 196,608 rows of 2,048); a device that says none, or a rate above the
 * memory-bound one, costs them at the memory-bound rate; the fused kernels
 * never. */
static void test_moe_accumulating_scatter(void **state)
{
    Fix *f = *state;
    const char *b200 = "system=dgx-b200, model=mixtral-8x7b, model.layers=1, model.hidden=2048, "
                       "model.heads=16, model.kv_heads=16, model.experts=64, model.experts_per_token=6, "
                       "model.expert_ffn=1408, model.seq_len=4096, model.expert_imbalance=1, devices=8, "
                       "tp=1, pp=1, ep=8, microbatch=8, global_batch=64, precision=bf16, recompute=none, "
                       "system.framework=pytorch-fsdp";
    build_ok(f, b200);
    const Device *dev = &f->sc.system.device;
    assert_rel(dev->scatter_bpc, 3.17, 1e-12);
    const double rows = 4096.0 * 8 * 6,
                 bytes = 2.0 * rows * 2048 * 2.0; /* the gradient read, the input's written */
    const double t = traced_device_s(&f->sc, "layer backward", "moe.sort.bwd");
    assert_rel(t, bytes / (dev->scatter_bpc * dev->sms * dev->clock_hz), 1e-9);
    assert_rel(t, 1848e-6, 0.01); /* the measurement it was fitted on (validation/kernels/scatter_add.csv) */
    const double comb = traced_device_s(&f->sc, "layer forward", "moe.unpermute");
    assert_rel(comb, bytes / (dev->scatter_bpc * dev->sms * dev->clock_hz), 1e-9);
    /* at the memory-bound rate where the device has no scatter rate, or a faster one */
    build_ok(f, b200);
    f->sc.system.device.scatter_bpc = 0;
    const double t0 = traced_device_s(&f->sc, "layer backward", "moe.sort.bwd");
    assert_rel(t0, membound_time(&f->sc.system.device, bytes, 0.0), 1e-9);
    f->sc.system.device.scatter_bpc = 1e4;
    assert_rel(traced_device_s(&f->sc, "layer backward", "moe.sort.bwd"), t0, 1e-12);
    assert_true(t > 5 * t0);
    /* Megatron-Core's fused kernels and chunked re-sort: no scatter */
    char spec[1024];
    snprintf(spec, sizeof spec,
             "%s, system.framework.moe_permute=fused, system.framework.moe_sort=chunks, "
             "system.framework.moe_combine=gather",
             b200);
    build_ok(f, spec);
    assert_rel(traced_device_s(&f->sc, "layer backward", "moe.sort.bwd"), t0, 1e-9);
    assert_rel(traced_device_s(&f->sc, "layer forward", "moe.unpermute"), t0, 1e-9);
}

/* CUDA graphs (system.framework.cuda_graphs): what a graph replays costs no
 * host dispatch of its own, one a replay.  router takes the router off the host; partial the whole
 * layer but a dropless mixture of experts' token path (and the embedding,
 * head and loss): less host time each, still some; with a capacity the
 * token path's shapes are fixed and it is captured too.  full leaves the
 * host nothing, and refuses a dropless mixture of experts, naming the
 * setting.  The device's work never moves. */
static void test_cuda_graphs(void **state)
{
    Fix *f = *state;
    Result none, router, part, part_cap, full_cap;
    const char *base = FINE_EXPERTS ", system.framework.op_overhead=100 us";
    eval_spec(f, base, "model.capacity_factor=0, system.framework.cuda_graphs=none", &none);
    eval_spec(f, base, "model.capacity_factor=0, system.framework.cuda_graphs=router", &router);
    eval_spec(f, base, "model.capacity_factor=0, system.framework.cuda_graphs=partial", &part);
    eval_spec(f, base, "model.capacity_factor=1, system.framework.cuda_graphs=partial", &part_cap);
    eval_spec(f, base, "model.capacity_factor=1, system.framework.cuda_graphs=full", &full_cap);
    print_message("host: none %.4g s, router %.4g s, partial %.4g s, partial with a capacity %.4g s\n",
                  none.comp_time_s[COMP_HOST], router.comp_time_s[COMP_HOST], part.comp_time_s[COMP_HOST],
                  part_cap.comp_time_s[COMP_HOST]);
    assert_true(part.comp_time_s[COMP_HOST] > 0.0);
    assert_true(router.comp_time_s[COMP_HOST] < none.comp_time_s[COMP_HOST]);
    assert_true(part.comp_time_s[COMP_HOST] < router.comp_time_s[COMP_HOST]);
    assert_true(part.comp_time_s[COMP_HOST] < 0.8 * none.comp_time_s[COMP_HOST]);
    assert_true(part_cap.comp_time_s[COMP_HOST] <= part.comp_time_s[COMP_HOST]);
    assert_true(full_cap.comp_time_s[COMP_HOST] == 0.0);
    /* where the host is slow enough that the token path's dispatches show,
     * a capacity (the token path captured too) takes them off */
    Result slow, slow_cap;
    eval_spec(f, FINE_EXPERTS,
              "system.framework.op_overhead=400 us, model.capacity_factor=0, "
              "system.framework.cuda_graphs=partial",
              &slow);
    eval_spec(f, FINE_EXPERTS,
              "system.framework.op_overhead=400 us, model.capacity_factor=1, "
              "system.framework.cuda_graphs=partial",
              &slow_cap);
    assert_true(slow_cap.comp_time_s[COMP_HOST] < 0.5 * slow.comp_time_s[COMP_HOST]);
    assert_true(part.step_time_s < none.step_time_s);
    for (int c = 0; c < COMP_COUNT; c++)
        if (c != COMP_HOST)
            assert_rel(part.comp_time_s[c], none.comp_time_s[c], 1e-12);

    char spec[1024];
    snprintf(spec, sizeof spec, "%s, model.capacity_factor=0, system.framework.cuda_graphs=full", base);
    build_ok(f, spec);
    Result r;
    assert_int_not_equal(evaluate(&f->sc, &r), 0);
    assert_int_equal(r.status, STATUS_ERROR);
    assert_non_null(strstr(r.error, "cuda_graphs full: a graph of the whole step needs fixed shapes"));
    assert_string_equal(r.error_key, "system.framework.cuda_graphs");
}

/* FlashAttention-2 kernels (flash_attention: fa2) take the fused attention
 * blocks 1 / efficiency.attention_fa2 as long: 0.52 on H100 (PyTorch's
 * SDPA against cuDNN), 1 on A100 (FA2 is Ampere's best); nothing else
 * moves. */
static void test_attention_fa2(void **state)
{
    Fix *f = *state;
    Result y, a2, ay, aa2;
    const char *h =
        "system=dgx-h100, model=llama2-7b, devices=8, tp=1, microbatch=1, global_batch=8, zero=1, "
        "system.device.power.tdp=5000 W";
    eval_spec(f, h, "system.framework.flash_attention=yes", &y);
    eval_spec(f, h, "system.framework.flash_attention=fa2", &a2);
    assert_rel(f->sc.system.device.fa2_eff, 0.52, 1e-12);
    assert_rel(a2.comp_time_s[COMP_ATTENTION], y.comp_time_s[COMP_ATTENTION] / 0.52, 1e-9);
    assert_rel(a2.comp_time_s[COMP_GEMM], y.comp_time_s[COMP_GEMM], 1e-12);
    assert_true(a2.step_time_s > y.step_time_s);
    const char *a = "system=dgx-a100-80g, model=llama2-7b, devices=8, tp=1, microbatch=1, global_batch=8, "
                    "zero=1, system.device.power.tdp=5000 W";
    eval_spec(f, a, "system.framework.flash_attention=yes", &ay);
    eval_spec(f, a, "system.framework.flash_attention=fa2", &aa2);
    assert_rel(aa2.step_time_s, ay.step_time_s, 1e-12);
}

/* FlexAttention: its forward blocks at efficiency.attention_flex_fwd of the
 * device's best fused attention, its backward ones at _bwd (H100: 0.85 and
 * 0.76 of FlashAttention-3, GTC 2025).  Each rate alone at 1 splits the
 * best-kernel attention time into its forward and backward parts; the
 * two together must then give forward / 0.85 + backward / 0.76. */
static void test_attention_flex(void **state)
{
    Fix *f = *state;
    Result y, fl, fwd_only, bwd_only, a_y, a_fl;
    const char *h =
        "system=dgx-h100, model=llama2-7b, devices=8, tp=1, microbatch=1, global_batch=8, zero=1, "
        "recompute=none, system.device.power.tdp=5000 W";
    eval_spec(f, h, "system.framework.flash_attention=yes", &y);
    eval_spec(f, h, "system.framework.flash_attention=flex", &fl);
    assert_rel(f->sc.system.device.flex_fwd_eff, 0.85, 1e-12);
    assert_rel(f->sc.system.device.flex_bwd_eff, 0.76, 1e-12);
    eval_spec(f, h, "system.framework.flash_attention=flex, system.device.efficiency.attention_flex_bwd=1",
              &fwd_only);
    eval_spec(f, h, "system.framework.flash_attention=flex, system.device.efficiency.attention_flex_fwd=1",
              &bwd_only);
    const double t = y.comp_time_s[COMP_ATTENTION];
    const double fw = (fwd_only.comp_time_s[COMP_ATTENTION] - t) / (1.0 / 0.85 - 1.0);
    const double bw = (bwd_only.comp_time_s[COMP_ATTENTION] - t) / (1.0 / 0.76 - 1.0);
    assert_true(fw > 0 && bw > fw); /* the backward blocks do more than the forward's */
    assert_rel(fw + bw, t, 1e-9);
    assert_rel(fl.comp_time_s[COMP_ATTENTION], fw / 0.85 + bw / 0.76, 1e-9);
    assert_rel(fl.comp_time_s[COMP_GEMM], y.comp_time_s[COMP_GEMM], 1e-12);
    /* on A100, where FlashAttention-2 is the best: 0.90 and 0.85 of it */
    const char *a = "system=dgx-a100-80g, model=llama2-7b, devices=8, tp=1, microbatch=1, global_batch=8, "
                    "zero=1, recompute=none, system.device.power.tdp=5000 W";
    eval_spec(f, a, "system.framework.flash_attention=yes", &a_y);
    eval_spec(f, a, "system.framework.flash_attention=flex", &a_fl);
    assert_true(a_fl.comp_time_s[COMP_ATTENTION] > a_y.comp_time_s[COMP_ATTENTION] / 0.90);
    assert_true(a_fl.comp_time_s[COMP_ATTENTION] < a_y.comp_time_s[COMP_ATTENTION] / 0.85);
}

/* Activation offloading (system.framework.offload_layers): each offloaded
 * layer leaves its activations off the device; the copies show only where
 * the host link is slower than a layer's compute, in proportion to the
 * layers offloaded; they must fit in the devices' share of the host's
 * memory; what Megatron-Core refuses is an error with its reason. */
static void test_activation_offload(void **state)
{
    Fix *f = *state;
    Result none, o20, o40, slow20, slow40, fast40;
    const char *b =
        "system=gb200-nvl72, model=llama2-70b, model.seq_len=8192, devices=64, tp=1, pp=1, zero=3, "
        "microbatch=2, global_batch=256, precision=fp8, recompute=none";
    eval_spec(f, b, "system.framework.offload_layers=0", &none);
    eval_spec(f, b, "system.framework.offload_layers=20", &o20);
    eval_spec(f, b, "system.framework.offload_layers=40", &o40);
    assert_int_equal(none.status, STATUS_OOM); /* 80 layers of activations do not fit in 186 GB */
    assert_int_equal(o40.status, STATUS_OK);
    /* each offloaded layer frees the same bytes */
    assert_rel(none.mem_activations_bytes - o40.mem_activations_bytes,
               2.0 * (o20.mem_activations_bytes - o40.mem_activations_bytes), 1e-12);
    assert_true(o20.mem_activations_bytes > o40.mem_activations_bytes);
    /* what leaves the device is in host memory: 40 layers of one microbatch, in the devices' share */
    assert_rel(o40.mem_host_bytes, none.mem_activations_bytes - o40.mem_activations_bytes, 1e-12);
    assert_rel(o40.mem_host_capacity_bytes, 17e12 / 72, 1e-12);
    Result tight;
    eval_spec(f, b, "system.framework.offload_layers=40, system.host_memory=1 TB", &tight);
    assert_int_equal(tight.status, STATUS_OOM);
    assert_string_equal(tight.bottleneck, "host memory capacity");
    assert_rel(tight.step_time_s, o40.step_time_s, 1e-12);
    /* a link faster than the compute hides every copy; the rest is as without offloading */
    eval_spec(f, b, "system.framework.offload_layers=40, system.host_link=100 TB/s", &fast40);
    assert_true(fast40.comp_time_s[COMP_OFFLOAD] == 0);
    for (int c = 0; c < COMP_COUNT; c++)
        if (c != COMP_OFFLOAD)
            assert_rel(fast40.comp_time_s[c], none.comp_time_s[c], 1e-12);
    /* a slow link shows, per offloaded layer */
    eval_spec(f, b, "system.framework.offload_layers=20, system.host_link=5 GB/s", &slow20);
    eval_spec(f, b, "system.framework.offload_layers=40, system.host_link=5 GB/s", &slow40);
    assert_true(slow40.comp_time_s[COMP_OFFLOAD] > o40.comp_time_s[COMP_OFFLOAD]);
    assert_rel(slow40.comp_time_s[COMP_OFFLOAD], 2.0 * slow20.comp_time_s[COMP_OFFLOAD], 1e-12);
    assert_rel(slow40.step_time_s - none.step_time_s, slow40.comp_time_s[COMP_OFFLOAD], 1e-9);

    static const struct {
        const char *extra, *msg;
    } bad[] = {
        {"system.framework.offload_layers=40, pp=2",
         "system.framework.offload_layers 40 needs pp 1 (Megatron-Core refuses CPU offloading with pipeline "
         "parallelism)"},
        {"system.framework.offload_layers=40, recompute=full",
         "system.framework.offload_layers 40 needs recompute none (Megatron-Core refuses CPU offloading with "
         "activation recomputation)"},
        {"system.framework.offload_layers=40, system.host_link=0 GB/s",
         "system.framework.offload_layers 40 needs system.host_link, the bandwidth it copies over"},
        {"system.framework.offload_layers=80", "system.framework.offload_layers 80: the model has 80 layers, "
                                               "and Megatron-Core offloads fewer than all "
                                               "of them"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char spec[1024];
        snprintf(spec, sizeof spec, "%s, %s", b, bad[i].extra);
        build_ok(f, spec);
        Result r;
        assert_int_not_equal(evaluate(&f->sc, &r), 0);
        assert_int_equal(r.status, STATUS_ERROR);
        assert_string_equal(r.error, bad[i].msg);
        assert_string_equal(r.error_key, "system.framework.offload_layers");
    }
}

/* fp8 on a Transformer Engine stack: linear layers fp8, attention and the
 * LM head bf16, so slower than fp8 everywhere and faster than bf16. */
static void test_fp8_linear_only(void **state)
{
    Fix *f = *state;
    Result te, all8, b16;
    const char *base =
        "system=dgx-h100, model=llama2-7b, devices=8, tp=1, microbatch=1, global_batch=8, zero=1";
    eval_spec(f, base, "precision=fp8", &te);
    eval_spec(f, base, "precision=fp8, system.framework.fp8_linear_only=no", &all8);
    eval_spec(f, base, "precision=bf16", &b16);
    assert_true(all8.step_time_s < te.step_time_s);
    assert_true(te.step_time_s < b16.step_time_s);
    assert_rel(all8.comp_time_s[COMP_GEMM], te.comp_time_s[COMP_GEMM], 1e-12); /* linear layers alike */
    assert_true(te.comp_time_s[COMP_ATTENTION] > all8.comp_time_s[COMP_ATTENTION]);
}

/* Published configurations that trained on 80 GB GPUs fit in the memory
 * model (validation/published/runs.csv): BLOOM-176B (ZeRO-1; without it the
 * 16-bit gradients and fp32 state do not fit), Korthikanti et al.'s 530B
 * with selective recompute, NeMo's fp8 GPT-3 175B on 512 H100s without
 * recompute (fp8 copies of the linear layers' inputs), Llama 3 405B on
 * 16,384 H100s interleaved with 16 microbatches over 16 stages (the first
 * stage then holds what plain 1F1B holds: it was flagged at 109 GiB), and
 * torchtitan's DeepSeek-V3 16B on 8 H100s of 95 GiB (FSDP and EP 8,
 * PyTorch's per-op selective recompute: 78.14 GiB measured; under the
 * Megatron-style selective it needs about 183 GiB). */
static void test_published_configs_fit(void **state)
{
    Fix *f = *state;
    static const char *const specs[] = {
        "system=dgx-a100-80g, model=gpt, devices=384, tp=4, pp=12, microbatch=2, global_batch=2048, "
        "recompute=full, zero=1, model.layers=70, model.hidden=14336, model.heads=112, model.seq_len=2048, "
        "model.vocab=250880",
        "system=dgx-a100-80g, model=gpt, devices=280, tp=8, pp=35, interleave=3, microbatch=1, "
        "global_batch=280, "
        "recompute=selective, seq_parallel=yes, precision=fp16, model.layers=105, model.hidden=20480, "
        "model.heads=128, model.seq_len=2048, model.vocab=51200",
        "system=dgx-h100, model=gpt3-175b, devices=512, tp=4, pp=8, interleave=6, microbatch=2, "
        "global_batch=2048, recompute=none, seq_parallel=yes, zero=1, precision=fp8",
        "system=dgx-h100, model=gpt, devices=16384, tp=8, pp=16, microbatch=1, global_batch=2048, "
        "interleave=2, "
        "recompute=none, seq_parallel=yes, zero=2, model.layers=126, model.hidden=16384, model.heads=128, "
        "model.kv_heads=8, model.ffn=53248, model.seq_len=8192, model.vocab=128000, model.mlp=swiglu, "
        "model.norm=rmsnorm, model.position=rotary",
        "system=dgx-h100, system.framework=pytorch-fsdp-eager, system.device.hbm.capacity=95GiB, "
        "model=mixtral-8x7b, devices=8, tp=1, pp=1, ep=8, microbatch=8, global_batch=64, zero=3, "
        "recompute=selective, model.layers=27, model.hidden=2048, model.heads=16, model.kv_heads=16, "
        "model.ffn=10944, model.expert_ffn=1408, model.experts=64, model.experts_per_token=6, "
        "model.shared_experts=2, model.seq_len=4096, model.vocab=102400, model.dense_layers=1, "
        "model.kv_lora_rank=512, model.rope_head_dim=64, model.v_head_dim=128, model.head_dim=128",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        Result r;
        build_ok(f, specs[i]);
        eval_ok(&f->sc, &r);
        if (r.status != STATUS_OK || !r.fits_memory)
            fail_msg("published configuration %zu: %.1f GiB of %.1f GiB", i + 1,
                     r.mem_total_bytes / 1073741824.0, r.mem_capacity_bytes / 1073741824.0);
    }
    /* the 16B mixture of experts kept as Megatron-Core's selective recompute
     * keeps it does not */
    build_ok(f,
             "system=dgx-h100, system.framework=pytorch-fsdp-eager, system.device.hbm.capacity=95GiB, "
             "system.framework.selective_recompute=megatron, model=mixtral-8x7b, devices=8, tp=1, pp=1, "
             "ep=8, microbatch=8, global_batch=64, zero=3, recompute=selective, model.layers=27, "
             "model.hidden=2048, model.heads=16, model.kv_heads=16, model.ffn=10944, model.expert_ffn=1408, "
             "model.experts=64, model.experts_per_token=6, model.shared_experts=2, model.seq_len=4096, "
             "model.vocab=102400, model.dense_layers=1, model.kv_lora_rank=512, model.rope_head_dim=64, "
             "model.v_head_dim=128, model.head_dim=128");
    Result moe;
    eval_ok(&f->sc, &moe);
    assert_int_equal(moe.status, STATUS_OOM);
    /* BLOOM without ZeRO-1 does not fit: the check can fail */
    build_ok(f, "system=dgx-a100-80g, model=gpt, devices=384, tp=4, pp=12, microbatch=2, global_batch=2048, "
                "recompute=full, zero=0, model.layers=70, model.hidden=14336, model.heads=112, "
                "model.seq_len=2048, model.vocab=250880");
    Result r;
    eval_ok(&f->sc, &r);
    assert_int_equal(r.status, STATUS_OOM);

    /* interleaving: 1 + (pp - 1)/(pp v) more activations with many
     * microbatches, none more when there are only pp of them */
    const char *il =
        "system=dgx-h100, model=gpt3-175b, devices=64, tp=8, pp=8, microbatch=1, recompute=selective, "
        "seq_parallel=yes";
    double act[2][2];
    for (int many = 0; many < 2; many++)
        for (int v = 0; v < 2; v++) {
            char spec[300];
            snprintf(spec, sizeof spec, "%s, global_batch=%d, interleave=%d", il, many ? 64 : 8, v ? 3 : 1);
            build_ok(f, spec);
            eval_ok(&f->sc, &r);
            act[many][v] = r.mem_activations_bytes;
        }
    assert_rel(act[0][1], act[0][0], 0.02); /* m = pp: as 1F1B (up to the embedding stage's extras) */
    assert_true(act[1][1] > act[1][0] * (1 + 7.0 / 24) * 0.97);
}

/* GEMM efficiency against shape: published cuBLAS bf16 TFLOP/s on H100
 * (vLLM's benchmark_fp8_gemm, torch bf16 columns; stack-facts.md 1c) for
 * weight shapes N x K and token counts M, from weight streaming (M = 16)
 * to full tiles: every point within 10 %.  The model gets there with its
 * tiles, waves, split-K and stream-K; no fitted curve. */
static void test_gemm_shapes_h100(void **state)
{
    Fix *f = *state;
    static const struct {
        int m, n, k;
        double tflops;
    } pts[] = {
        {16, 12288, 5376, 46.5},   {64, 12288, 5376, 182.6},  {128, 12288, 5376, 352.6},
        {128, 2112, 7168, 275.7},  {256, 2112, 7168, 401.9},  {512, 2112, 7168, 566.3},
        {1024, 2112, 7168, 619.8}, {4096, 2112, 7168, 715.8}, {8192, 2112, 7168, 666.4},
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        char spec[200];
        snprintf(spec, sizeof spec,
                 "system=dgx-h100, system.framework=ideal, model=gemm, model.m=%d, model.n=%d, model.k=%d, "
                 "devices=1, power_cap=10 kW",
                 pts[i].m, pts[i].n, pts[i].k);
        build_ok(f, spec);
        Result r;
        eval_ok(&f->sc, &r);
        double rel = r.model_tflops_per_device / pts[i].tflops - 1.0;
        if (fabs(rel) > 0.10)
            fail_msg("H100 GEMM %d x %d x %d: %.1f TFLOP/s against %.1f measured (%+.1f %%)", pts[i].m,
                     pts[i].n, pts[i].k, r.model_tflops_per_device, pts[i].tflops, 100 * rel);
    }
}

/* The optimizer is the model's: its fp32 state per parameter (Adam and
 * RMSProp 8 bytes, SGD momentum and Adagrad 4, plus 4 of master weights in
 * 16-bit training) and the bytes its step moves. */
static void test_optimizers(void **state)
{
    Fix *f = *state;
    static const struct {
        const char *name;
        double state;
    } opt[] = {{"adam", 8}, {"sgd_momentum", 4}, {"rmsprop", 8}, {"adagrad", 4}, {"lamb", 8}};
    double t_opt[5];
    for (int i = 0; i < 5; i++) {
        char spec[200];
        snprintf(spec, sizeof spec, "system=dgx-h100, model=llama2-7b, devices=1, model.optimizer=%s",
                 opt[i].name);
        build_ok(f, spec);
        Result r;
        eval_ok(&f->sc, &r);
        assert_rel(r.mem_optimizer_bytes, r.mem_weights_bytes / 2.0 * (opt[i].state + 4.0), 1e-12);
        t_opt[i] = r.comp_time_s[COMP_OPTIMIZER];
        /* bytes: gradient 4, state and master read and written, 16-bit copy written */
        const double bytes = r.mem_weights_bytes / 2.0 * (4.0 + 2.0 * (opt[i].state + 4.0) + 2.0);
        assert_true(t_opt[i] >= bytes / f->sc.system.device.mem[MEM_HBM].bw_bytes_per_s);
    }
    assert_rel(t_opt[0] / t_opt[1], (4.0 + 2 * 12.0 + 2) / (4.0 + 2 * 8.0 + 2), 0.02); /* Adam / SGD */
}

/* Where the stack's fp32 parameters are the masters (PyTorch FSDP's mixed
 * precision), a device keeps 4 bytes of weights a parameter and no separate
 * master: 2 bytes a parameter less than the 16-bit copy beside an fp32
 * master (Megatron); the optimizer writes no 16-bit copy. */
static void test_master_weights(void **state)
{
    Fix *f = *state;
    Result copy, params;
    build_ok(f, "system=dgx-h100, model=llama2-7b, devices=8, zero=3, system.framework=pytorch-fsdp, "
                "system.framework.master_weights=copy");
    eval_ok(&f->sc, &copy);
    build_ok(f, "system=dgx-h100, model=llama2-7b, devices=8, zero=3, system.framework=pytorch-fsdp, "
                "system.framework.master_weights=params");
    eval_ok(&f->sc, &params);
    const double p = copy.mem_weights_bytes / 2.0; /* parameters on the device */
    assert_rel(params.mem_weights_bytes, 4.0 * p, 1e-12);
    assert_rel(copy.mem_optimizer_bytes, 12.0 * p, 1e-12);
    assert_rel(params.mem_optimizer_bytes, 8.0 * p, 1e-12);
    assert_rel(copy.mem_grads_bytes, params.mem_grads_bytes, 1e-12);
    assert_rel((copy.mem_weights_bytes + copy.mem_optimizer_bytes) -
                   (params.mem_weights_bytes + params.mem_optimizer_bytes),
               2.0 * p, 1e-12);
    assert_true(params.comp_time_s[COMP_OPTIMIZER] < copy.comp_time_s[COMP_OPTIMIZER]);
}

/* Row-sparse gradients (BigLSTM in TensorFlow): the embedding and the
 * sampled softmax exchange only the rows of the replica's tokens and
 * samples by all-gather; Adagrad updates only those rows. */
static void test_sparse_gradients(void **state)
{
    Fix *f = *state;
    Result sp, de;
    const char *base =
        "system=dgx-v100, model=biglstm, devices=8, microbatch=64, global_batch=512, precision=fp16";
    char spec[300];
    eval_spec(f, base, "model.sparse_grads=yes", &sp);
    eval_spec(f, base, "model.sparse_grads=no", &de);
    /* 8 GPUs: each rank's 64 x 20 = 1,280 tokens of a 793,471-word
     * vocabulary; the tables are 1.62 of the 1.78 B parameters */
    const double P = de.params_total, V = 793471, R = 1024, tokens = 64 * 20.0;
    const double dense_bytes = 2.0 * 7 / 8 * P * 4;
    assert_rel(de.intra_bytes, dense_bytes, 1e-9);
    const double tables = V * R + V * (R + 1);
    const double rows = tokens * (R * 4 + 8) + (tokens + 8192) * ((R + 1) * 4 + 8);
    const double sparse_bytes = 2.0 * 7 / 8 * (P - tables) * 4 + 7.0 / 8 * 8 * rows;
    assert_rel(sp.intra_bytes, sparse_bytes, 1e-9);
    assert_true(de.intra_bytes > 8 * sp.intra_bytes);
    assert_true(de.comp_time_s[COMP_OPTIMIZER] > 5 * sp.comp_time_s[COMP_OPTIMIZER]);
    assert_true(sp.step_time_s < de.step_time_s);
    /* with Adam every moment decays: the update stays dense */
    snprintf(spec, sizeof spec, "%s, model.sparse_grads=yes, model.optimizer=adam", base);
    build_ok(f, spec);
    Result adam;
    eval_ok(&f->sc, &adam);
    assert_true(adam.comp_time_s[COMP_OPTIMIZER] > 5 * sp.comp_time_s[COMP_OPTIMIZER]);
}

/* An LSTM pipeline hands every timestep to the next stage as it is done
 * (Pal et al. 2019): T messages of 1/T the size per microbatch, each
 * paying the link latency. */
static void test_lstm_timestep_handoffs(void **state)
{
    Fix *f = *state;
    Result a, b;
    const char *base = "system=dgx-v100, model=gnmt, devices=2, tp=1, pp=2, microbatch=32, global_batch=128, "
                       "precision=fp16";
    eval_spec(f, base, "system.intra.latency=0", &a);
    eval_spec(f, base, "system.intra.latency=10 us", &b);
    const double T = f->sc.model.seq_len, m = 128 / 32, pp = 2;
    assert_rel(b.comp_time_s[COMP_PP_COMM] - a.comp_time_s[COMP_PP_COMM], 2 * (m + pp - 1) * T * 10e-6, 1e-9);

    /* GNMT's bidirectional first encoder layer needs the whole sequence:
     * with 2 stages the fill is a whole stage-time, not 1/T of one */
    double stage = 0;
    for (int c = 0; c < COMP_COUNT; c++)
        if (c != COMP_PP_BUBBLE && c != COMP_PP_COMM && c != COMP_DP_COMM && c != COMP_DP_HIDDEN &&
            c != COMP_OPTIMIZER && c != COMP_SYSTEM)
            stage += b.comp_time_s[c];
    assert_rel(b.comp_time_s[COMP_PP_BUBBLE], stage / m, 1e-9);
    /* BigLSTM (unidirectional): the wavefront fills in 1/T of a stage */
    build_ok(f, "system=dgx-v100, model=biglstm, devices=2, tp=1, pp=2, microbatch=32, global_batch=128, "
                "precision=fp16");
    Result c;
    eval_ok(&f->sc, &c);
    stage = 0;
    for (int k = 0; k < COMP_COUNT; k++)
        if (k != COMP_PP_BUBBLE && k != COMP_PP_COMM && k != COMP_DP_COMM && k != COMP_DP_HIDDEN &&
            k != COMP_OPTIMIZER && k != COMP_SYSTEM)
            stage += c.comp_time_s[k];
    assert_rel(c.comp_time_s[COMP_PP_BUBBLE], stage / m / f->sc.model.seq_len, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_die_edge_links),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_fault_values),
        cmocka_unit_test(test_strategy_faults),
        cmocka_unit_test(test_hbm_bandwidth_halves_membound),
        cmocka_unit_test(test_gemm_bounds),
        cmocka_unit_test(test_gpt3_one_device_oom),
        cmocka_unit_test(test_dp_allreduce_scaling),
        cmocka_unit_test(test_buy_or_rent),
        cmocka_unit_test(test_carbon_and_peak),
        cmocka_unit_test(test_clock_plan),
        cmocka_unit_test(test_result_identities),
        cmocka_unit_test(test_every_system_at_its_cap),
        cmocka_unit_test(test_framework_stack),
        cmocka_unit_test(test_fp8_linear_only),
        cmocka_unit_test(test_published_configs_fit),
        cmocka_unit_test(test_interval_coverage),
        cmocka_unit_test(test_attention_fa2),
        cmocka_unit_test(test_attention_flex),
        cmocka_unit_test(test_activation_offload),
        cmocka_unit_test(test_moe_host_sync),
        cmocka_unit_test(test_moe_sync_flow_shop),
        cmocka_unit_test(test_moe_accumulating_scatter),
        cmocka_unit_test(test_cuda_graphs),
        cmocka_unit_test(test_gemm_shapes_h100),
        cmocka_unit_test(test_optimizers),
        cmocka_unit_test(test_master_weights),
        cmocka_unit_test(test_sparse_gradients),
        cmocka_unit_test(test_lstm_timestep_handoffs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
