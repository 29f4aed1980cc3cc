/* tests/test_tech.c — the micro-architecture generator (tech/): DeepFlow's
 * waferscale_20v100_80hbm cross-check (643 MCUs at 1.52 GHz, 125.02
 * TFLOP/s, 4 HBM stacks, 924.7 GiB/s, a 6 MiB L2 at 2.1 TiB/s, each within
 * 1 %), the technology templates (they load, they are complete, they follow
 * their stated projection rules), and the generator's invariants: more area
 * never gives fewer units, less power never a faster clock, the derived
 * device never draws more than its budget, a newer node at the same budgets
 * gives more FLOP/s at less energy per FLOP.  Areas mm^2, else SI. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/param.h"
#include "io/template.h"
#include "tech/tech.h"

#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)
#define TiB (1024.0 * GiB)

#define XCHECK_TOL 0.01 /* the cross-check tolerance: 1 % relative */

static const char *const family[] = {"tsmc-n12", "tsmc-n7", "tsmc-n5", "tsmc-n3", "tsmc-n2"};
#define FAMILY_N ((int)(sizeof family / sizeof family[0]))

/* ---- fixtures ---------------------------------------------------------- */

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The template db, opened on the project's templates/ whether the test runs
 * from the project root or from tests/ (make unit). */
static int setup(void **state)
{
    TemplateDB *db = calloc(1, sizeof *db);
    Diag d = {0};
    const char *root = is_dir("templates/technology")      ? "templates"
                       : is_dir("../templates/technology") ? "../templates"
                                                           : NULL;
    if (!db || !root || tdb_init(db, root, &d)) {
        print_error("cannot open the templates folder: %s\n", d.msg);
        free(db);
        return -1;
    }
    *state = db;
    return 0;
}

static int teardown(void **state)
{
    TemplateDB *db = *state;
    tdb_free(db);
    free(db);
    return 0;
}

static Technology load_tech(TemplateDB *db, const char *name)
{
    Diag d = {0};
    const Template *t = tdb_get(db, &param_technology_table, name, NULL, &d);
    if (!t) {
        char msg[1200];
        diag_format(&d, msg, sizeof msg);
        print_error("technology '%s': %s\n", name, msg);
        fail();
        Technology none = {0};
        return none; /* not reached: fail() leaves the test */
    }
    return *(const Technology *)t->obj;
}

static void fail_diag(const char *what, const Diag *d)
{
    char msg[1200];
    diag_format(d, msg, sizeof msg);
    print_error("%s: %s\n", what, msg);
    fail();
}

/* Derive; fail the test on an error. */
static void derive_ok(const Technology *t, const Budget *b, Device *dev, Network *ni, Network *ne,
                      TechDetail *x)
{
    Diag d = {0};
    if (tech_derive_detail(t, b, dev, ni, ne, x, &d))
        fail_diag(t->name, &d);
}

/* Derive must fail with a message containing `want`. */
static void derive_bad(const Technology *t, const Budget *b, const char *want)
{
    Device dev;
    Network ni, ne;
    Diag d = {0};
    int rc = tech_derive(t, b, &dev, &ni, &ne, &d);
    if (rc == 0)
        print_error("derive unexpectedly succeeded (wanted '%s')\n", want);
    assert_int_equal(rc, -1);
    if (!strstr(d.msg, want))
        print_error("message '%s' lacks '%s'\n", d.msg, want);
    assert_non_null(strstr(d.msg, want));
}

/* A mid-size accelerator budget every family node can build: an 800 mm^2
 * die at 500 W with room for 10 stacks. */
static Budget std_budget(void)
{
    Budget b;
    memset(&b, 0, sizeof b);
    b.die_area_mm2 = 800;
    b.package_area_mm2 = 1800;
    b.area[TP_CORE] = 0.30;
    b.area[TP_REG] = 0.03;
    b.area[TP_L1] = 0.03;
    b.area[TP_L2] = 0.10;
    b.area[TP_DRAM] = 0.05;
    b.area[TP_INTRA] = 0.02;
    b.area[TP_INTER] = 0.03;
    b.tdp_w = 500;
    b.power[TP_CORE] = 0.45;
    b.power[TP_REG] = 0.04;
    b.power[TP_L1] = 0.06;
    b.power[TP_L2] = 0.05;
    b.power[TP_DRAM] = 0.25;
    b.power[TP_INTRA] = 0.05;
    b.power[TP_INTER] = 0.05;
    b.perimeter[TP_DRAM] = 0.5;
    b.perimeter[TP_INTRA] = 0.2;
    b.perimeter[TP_INTER] = 0.2;
    b.mcus_per_bundle = 4;
    b.vector_flops_per_clock = 128;
    return b;
}

/* ---- the DeepFlow cross-check ----------------------------------------- */

/* DeepFlow's waferscale_20v100_80hbm.yaml budgets as a `derive:` block.
 * Its area_breakdown and power_breakdown are absolute (mm^2, W); here they
 * are shares of the 815 mm^2 die and the 300 W TDP (every quotient is
 * exact in decimal).  One change: DeepFlow's power split sums to 303.39 W,
 * 1.13 % over its own TDP; the generator refuses an oversubscribed budget,
 * so the register files get 87.27 W instead of 90.66 W.  That moves only
 * the register bandwidth, none of the figures checked. */
static const char waferscale_yaml[] =
    "# DeepFlow waferscale_20v100_80hbm.yaml: area_breakdown, power_breakdown,\n"
    "# perimeter_breakdown and tech_param.core.num_mcu_per_bundle\n"
    "technology: deepflow-v100-12nm\n"
    "area:\n"
    "  die: 815 mm2        # proc_chip_area_budget\n"
    "  package: 1230 mm2   # device_area_budget: DRAM room = 1230 - 815\n"
    "  core: 0.3           # 244.5 / 815\n"
    "  registers: 0.022    # 17.93 / 815\n"
    "  l1: 0.0103          # 8.3945 / 815\n"
    "  l2: 0.08062         # 65.7053 / 815\n"
    "  dram: 0.0248        # 20.212 / 815 (memory controllers)\n"
    "  intra: 0            # 0.0\n"
    "  inter: 0.1          # 81.5 / 815\n"
    "power:\n"
    "  tdp: 300 W\n"
    "  core: 0.3745        # 112.35 / 300\n"
    "  registers: 0.2909   # 87.27 / 300 (DeepFlow: 90.66, see above)\n"
    "  l1: 0.1041          # 31.23 / 300\n"
    "  l2: 0.008           # 2.4 / 300\n"
    "  dram: 0.16          # 48 / 300\n"
    "  intra: 0.0625       # 18.75 / 300\n"
    "  inter: 0            # 0.0\n"
    "perimeter:\n"
    "  dram: 0.5\n"
    "  intra: 0\n"
    "  inter: 0.5\n"
    "bundle:\n"
    "  mcus: 8             # num_mcu_per_bundle\n"
    "  vector_flops_per_clock: 128  # not in DeepFlow: V100's 64 fp32 lanes per SM [V100WP]\n";

/* Write text to dir/name. */
static void write_file(const char *dir, const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void remove_file(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

/* Load the waferscale derive block through the template loader. */
static DeriveSpec load_waferscale(TemplateDB *db)
{
    char dir[] = "/tmp/test_tech_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "waferscale.yaml", waferscale_yaml);
    Diag d = {0};
    const Template *t = tdb_get(db, &param_derive_table, "waferscale.yaml", dir, &d);
    DeriveSpec spec;
    memset(&spec, 0, sizeof spec);
    if (t)
        spec = *(const DeriveSpec *)t->obj;
    remove_file(dir, "waferscale.yaml");
    rmdir(dir);
    if (!t)
        fail_diag("waferscale derive block", &d);
    return spec;
}

static void test_deepflow_crosscheck(void **state)
{
    DeriveSpec s = load_waferscale(*state);
    Device dev;
    Network ni, ne;
    TechDetail x;
    derive_ok(&s.technology, &s.budget, &dev, &ni, &ne, &x);
    print_message("waferscale_20v100_80hbm: %d MCUs, %.4f GHz (%.4f V), %.3f TFLOP/s, %d stacks, "
                  "%.2f GiB/s DRAM (%.4f V, %.3f Gb/s/pin), L2 %.3f MiB at %.4f TiB/s\n",
                  x.mcus, dev.clock_hz / 1e9, x.core_v, dev.matrix_flops[PREC_FP16] / 1e12, x.stacks,
                  dev.mem[MEM_HBM].bw_bytes_per_s / GiB, x.dram_v, x.dram_pin_rate_bytes_per_s * 8 / 1e9,
                  dev.mem[MEM_L2].capacity_bytes / MiB, dev.mem[MEM_L2].bw_bytes_per_s / TiB);
    /* DeepFlow's figures (docs/reference/deepflow/README.md), 1 % */
    assert_int_equal(x.mcus, 643);
    assert_rel(dev.clock_hz, 1.52e9, XCHECK_TOL);
    assert_rel(dev.matrix_flops[PREC_FP16], 125.02e12, XCHECK_TOL);
    assert_int_equal(x.stacks, 4);
    assert_rel(dev.mem[MEM_HBM].bw_bytes_per_s, 924.7 * GiB, XCHECK_TOL);
    assert_rel(dev.mem[MEM_L2].capacity_bytes, 6 * MiB, XCHECK_TOL);
    assert_rel(dev.mem[MEM_L2].bw_bytes_per_s, 2.1 * TiB, XCHECK_TOL);
    /* and how it got there: 80 SMs of 8, V100's 256 KiB of registers and
     * 128 KiB of L1 per SM, 16 GiB of HBM, stacks limited by the package */
    assert_int_equal(dev.sms, 80);
    assert_rel(dev.mem[MEM_REG].capacity_bytes, 256 * KiB, 0);
    assert_rel(dev.mem[MEM_L1].capacity_bytes, 128 * KiB, 0);
    assert_rel(dev.mem[MEM_HBM].capacity_bytes, 16 * GiB, 0);
    assert_int_equal(x.stacks_by_area, 4);
    assert_int_equal(x.stacks_by_controller, 4);
    assert_rel(x.dram_pins, 4096, 0);
    assert_string_equal(x.core_limit, "power");
    /* DeepFlow's network inputs give the intra tier no die edge and the
     * inter tier no power (the README's quirk): both come out empty */
    assert_rel(ni.bw_bytes_per_s, 0, 0);
    assert_rel(ne.bw_bytes_per_s, 0, 0);
    /* the efficiencies are DeepFlow's utils */
    assert_rel(dev.matrix_eff, 0.85, 0);
    assert_rel(dev.l2_eff, 0.45, 0);
}

/* DeepFlow's own split oversubscribes its TDP: refused, with the sum. */
static void test_deepflow_power_oversubscribed(void **state)
{
    DeriveSpec s = load_waferscale(*state);
    s.budget.power[TP_REG] = 90.66 / 300;
    derive_bad(&s.technology, &s.budget, "power.*");
    derive_bad(&s.technology, &s.budget, "1.0113");
}

/* ---- the supply curve -------------------------------------------------- */

static void test_operating_point(void **state)
{
    (void)state;
    VCurve c = {.v_nominal = 0.8, .v_threshold = 0.2, .v_min = 0.55, .v_max = 1.0, .alpha = 2};
    double v, r;
    const char *lim;
    assert_rel(tech_rate_factor(&c, 0.8), 1, 1e-15);
    assert_rel(tech_rate_factor(&c, 0.2), 0, 0);
    /* the nominal power: the nominal point */
    assert_int_equal(tech_operating_point(&c, 100, 0, 100, &v, &r, &lim), 0);
    assert_rel(v, 0.8, 1e-9);
    assert_rel(r, 1, 1e-9);
    assert_string_equal(lim, "power");
    /* plenty: capped at v_max */
    assert_int_equal(tech_operating_point(&c, 100, 0, 1000, &v, &r, &lim), 0);
    assert_rel(v, 1.0, 0);
    assert_string_equal(lim, "v_max");
    /* little: v_min, and the clock alone slows until C V^2 f = cap */
    assert_int_equal(tech_operating_point(&c, 100, 5, 10, &v, &r, &lim), 0);
    assert_rel(v, 0.55, 0);
    assert_string_equal(lim, "v_min");
    double s = 0.55 / 0.8;
    assert_rel(100 * s * s * r + 5 * s, 10, 1e-12);
    /* the leakage alone exceeds the cap */
    assert_int_equal(tech_operating_point(&c, 100, 50, 10, &v, &r, &lim), -1);
    /* with leakage, the power at the point found is the cap */
    assert_int_equal(tech_operating_point(&c, 100, 20, 90, &v, &r, &lim), 0);
    s = v / 0.8;
    assert_rel(100 * s * s * r + 20 * s, 90, 1e-9);
}

/* ---- the templates ----------------------------------------------------- */

typedef struct {
    int bad;
    char key[128];
} RangeCheck;

static void range_visit(const char *fullkey, const ParamDef *def, const void *obj, void *ctx)
{
    RangeCheck *rc = ctx;
    double v;
    int i;
    const char *field = (const char *)obj + def->offset;
    if (def->type == P_DOUBLE) {
        memcpy(&v, field, sizeof v);
    } else if (def->type == P_INT) {
        memcpy(&i, field, sizeof i);
        v = i;
    } else {
        return;
    }
    if (!(v >= def->min && v <= def->max) && !rc->bad) {
        rc->bad = 1;
        snprintf(rc->key, sizeof rc->key, "%s = %g", fullkey, v);
    }
}

/* Every number of a derived device lies in the device table's ranges, so
 * the rest of the tool takes it as it would a device template. */
static void assert_valid_device(const Device *dev)
{
    RangeCheck rc = {0};
    param_walk(&param_device_table, dev, "", range_visit, &rc);
    if (rc.bad)
        print_error("derived device '%s': %s is outside the device table's range\n", dev->name, rc.key);
    assert_int_equal(rc.bad, 0);
}

static void test_templates_load(void **state)
{
    TemplateDB *db = *state;
    char **names = NULL;
    int n = 0;
    assert_int_equal(tdb_list(db, "technology", &names, &n), 0);
    assert_true(n >= 6);
    for (int i = 0; i < n; i++) {
        Technology t = load_tech(db, names[i]);
        Diag d = {0};
        if (tech_check(&t, &d))
            fail_diag(names[i], &d);
        Budget b = std_budget();
        if (!strcmp(names[i], "deepflow-v100-12nm"))
            b.mcus_per_bundle = 8;
        Device dev;
        Network ni, ne;
        TechDetail x;
        derive_ok(&t, &b, &dev, &ni, &ne, &x);
        assert_valid_device(&dev);
        print_message(
            "%-20s %5d units %4d SMs %.3f GHz %.3f V  fp16 %7.1f TFLOP/s %.3f pJ/FLOP  L2 %6.1f MiB "
            "%5.2f TB/s  HBM %d x %.0f GiB %6.0f GB/s  intra %5.0f GB/s inter %5.0f GB/s\n",
            names[i], x.mcus, x.bundles, dev.clock_hz / 1e9, x.core_v, dev.matrix_flops[PREC_FP16] / 1e12,
            dev.energy_j_per_flop[PREC_FP16] * 1e12, dev.mem[MEM_L2].capacity_bytes / MiB,
            dev.mem[MEM_L2].bw_bytes_per_s / 1e12, x.stacks, t.dram.stack_capacity_bytes / GiB,
            dev.mem[MEM_HBM].bw_bytes_per_s / 1e9, ni.bw_bytes_per_s / 1e9, ne.bw_bytes_per_s / 1e9);
        free(names[i]);
    }
    free(names);
}

/* The family follows its stated rule (templates/technology/tsmc-*.yaml):
 * between consecutive nodes TSMC claims "+S speed or -P power"; at the
 * older node's nominal clock the newer one draws (1 - P) x the energy per
 * FLOP (1 %, the templates' rounding), and at the older node's power per
 * unit it runs S x faster (5 %: the rule makes the first exact, the second
 * follows from the alpha-power law). */
static void test_family_rules(void **state)
{
    static const double speed[] = {1.40, 1.15, 1.125, 1.125}; /* [WC7], [TSMC-N5], [AT-N3], [TH-N2] */
    static const double power[] = {0.35, 0.70, 0.725, 0.725};
    for (int i = 0; i + 1 < FAMILY_N; i++) {
        Technology o = load_tech(*state, family[i]), n = load_tech(*state, family[i + 1]);
        assert_rel(n.f_nominal_hz / o.f_nominal_hz, speed[i], 0.002);
        /* V at which the new node runs the old clock */
        double want = o.f_nominal_hz / n.f_nominal_hz, lo = n.logic.v_threshold, hi = n.logic.v_nominal;
        for (int k = 0; k < 200; k++) {
            double mid = 0.5 * (lo + hi);
            if (tech_rate_factor(&n.logic, mid) < want)
                lo = mid;
            else
                hi = mid;
        }
        double s = lo / n.logic.v_nominal;
        double e_iso = n.energy_j_per_flop[PREC_FP16] * s * s;
        assert_rel(e_iso / o.energy_j_per_flop[PREC_FP16], power[i], 0.01);
        /* same power per FLOP/clk of unit as the old node at its nominal point */
        double cap = o.energy_j_per_flop[PREC_FP16] * o.f_nominal_hz;
        double dyn = n.energy_j_per_flop[PREC_FP16] * n.f_nominal_hz, v, r;
        assert_int_equal(tech_operating_point(&n.logic, dyn, 0, cap, &v, &r, NULL), 0);
        assert_rel(n.f_nominal_hz * r / o.f_nominal_hz, speed[i], 0.05);
    }
}

/* ---- invariants --------------------------------------------------------- */

/* A larger area budget never gives fewer matrix units (nor less SRAM). */
static void test_area_monotone(void **state)
{
    for (int i = 0; i < FAMILY_N; i++) {
        Technology t = load_tech(*state, family[i]);
        Budget b = std_budget();
        int last_mcus = 0;
        double last_l2 = 0;
        for (int k = 0; k <= 32; k++) {
            double die = 400 + 25.0 * k;
            b.die_area_mm2 = die;
            b.package_area_mm2 = die + 1000;
            Device dev;
            TechDetail x;
            derive_ok(&t, &b, &dev, NULL, NULL, &x);
            assert_true(x.mcus >= last_mcus);
            assert_true(x.sram_bytes[TP_L2] >= last_l2);
            last_mcus = x.mcus;
            last_l2 = x.sram_bytes[TP_L2];
        }
        b = std_budget();
        last_mcus = 0;
        for (int k = 5; k <= 60; k++) {
            b.area[TP_CORE] = k / 100.0;
            Device dev;
            TechDetail x;
            derive_ok(&t, &b, &dev, NULL, NULL, &x);
            assert_true(x.mcus >= last_mcus);
            last_mcus = x.mcus;
        }
    }
}

/* A lower power budget never gives a higher clock. */
static void test_power_monotone(void **state)
{
    for (int i = 0; i < FAMILY_N; i++) {
        Technology t = load_tech(*state, family[i]);
        Budget b = std_budget();
        double last = 1e30;
        for (int k = 60; k >= 6; k--) {
            b.tdp_w = 25.0 * k;
            Device dev;
            derive_ok(&t, &b, &dev, NULL, NULL, NULL);
            assert_true(dev.clock_hz <= last * (1 + 1e-12));
            last = dev.clock_hz;
        }
        b = std_budget();
        last = 1e30;
        for (int k = 50; k >= 5; k--) {
            b.power[TP_CORE] = k / 100.0;
            Device dev;
            derive_ok(&t, &b, &dev, NULL, NULL, NULL);
            assert_true(dev.clock_hz <= last * (1 + 1e-12));
            last = dev.clock_hz;
        }
    }
}

/* The derived device draws at most its budget at full activity, and each
 * part at most its share. */
static void test_power_within_budget(void **state)
{
    static const double tdps[] = {150, 300, 500, 700, 1000};
    static const double dies[] = {400, 815, 1200};
    for (int i = 0; i < FAMILY_N; i++) {
        Technology t = load_tech(*state, family[i]);
        for (size_t k = 0; k < sizeof tdps / sizeof tdps[0]; k++)
            for (size_t j = 0; j < sizeof dies / sizeof dies[0]; j++) {
                Budget b = std_budget();
                b.tdp_w = tdps[k];
                b.die_area_mm2 = dies[j];
                b.package_area_mm2 = dies[j] + 1000;
                Device dev;
                Network ni, ne;
                TechDetail x;
                derive_ok(&t, &b, &dev, &ni, &ne, &x);
                double w = tech_full_power_w(&dev, &ni, &ne);
                assert_rel(w, x.total_w, 1e-9);
                assert_true(w <= b.tdp_w * (1 + 1e-9));
                for (int p = 0; p < TP_COUNT; p++)
                    assert_true(x.part_w[p] <= b.tdp_w * b.power[p] * (1 + 1e-9));
                assert_rel(dev.idle_w, x.static_w, 1e-12);
            }
    }
}

/* A newer node at the same budgets gives more peak FLOP/s and spends less
 * energy per FLOP. */
static void test_node_scaling(void **state)
{
    Budget budgets[2] = {std_budget(), std_budget()};
    budgets[1].die_area_mm2 = 815; /* V100-like: 300 W */
    budgets[1].package_area_mm2 = 1400;
    budgets[1].tdp_w = 300;
    for (int k = 0; k < 2; k++) {
        double last_peak = 0, last_e = 1;
        for (int i = 0; i < FAMILY_N; i++) {
            Technology t = load_tech(*state, family[i]);
            Device dev;
            derive_ok(&t, &budgets[k], &dev, NULL, NULL, NULL);
            assert_true(dev.matrix_flops[PREC_FP16] > last_peak);
            assert_true(dev.energy_j_per_flop[PREC_FP16] < last_e);
            last_peak = dev.matrix_flops[PREC_FP16];
            last_e = dev.energy_j_per_flop[PREC_FP16];
        }
    }
}

/* Peaks follow units x FLOP/clk x rate x clock; energy per FLOP scales as
 * V^2; capacities per SM are whole banks. */
static void test_device_fields(void **state)
{
    Technology t = load_tech(*state, "tsmc-n5");
    Budget b = std_budget();
    Device dev;
    Network ni, ne;
    TechDetail x;
    derive_ok(&t, &b, &dev, &ni, &ne, &x);
    for (int p = 0; p < PREC_COUNT; p++) {
        assert_rel(dev.matrix_flops[p], x.mcus * t.mcu_flops_per_clock * t.rate[p] * dev.clock_hz, 1e-12);
        double s = x.core_v / t.logic.v_nominal;
        assert_rel(dev.energy_j_per_flop[p], t.energy_j_per_flop[p] * s * s, 1e-12);
    }
    assert_rel(dev.matrix_flops[PREC_FP8], 2 * dev.matrix_flops[PREC_FP16], 1e-12);
    assert_rel(dev.vector_flops, x.bundles * 128.0 * dev.clock_hz, 1e-12);
    assert_int_equal(dev.sms, x.mcus / 4);
    assert_rel(fmod(dev.mem[MEM_REG].capacity_bytes, 16 * KiB), 0, 0);
    assert_rel(fmod(dev.mem[MEM_L1].capacity_bytes, 32 * KiB), 0, 0);
    assert_rel(dev.mem[MEM_HBM].capacity_bytes, x.stacks * 16 * GiB, 0);
    assert_rel(dev.v_nominal, x.core_v, 0);
    assert_rel(dev.tdp_w, 500, 0);
    assert_rel(dev.hbm_eff, 0.88, 0);
    /* links: bandwidth per direction = lit links x rate / 2 */
    assert_rel(ni.bw_bytes_per_s, x.links[0] * t.intra.link_bw_bytes_per_s / 2, 1e-12);
    assert_rel(ne.bw_bytes_per_s, x.links[1] * t.inter.link_bw_bytes_per_s / 2, 1e-12);
    assert_true(x.links[1] <= x.links_by_edge[1] && x.links[1] <= x.links_by_area[1] &&
                x.links[1] <= x.links_by_power[1]);
    /* a wider die edge for DRAM never gives fewer stacks */
    int last = 0;
    for (int k = 2; k <= 16; k++) {
        double f = 0.05 * k;
        b.perimeter[TP_DRAM] = f;
        b.perimeter[TP_INTRA] = b.perimeter[TP_INTER] = (1 - f) / 2;
        derive_ok(&t, &b, &dev, NULL, NULL, &x);
        assert_true(x.stacks >= last);
        last = x.stacks;
    }
}

/* ---- bad inputs --------------------------------------------------------- */

static void test_errors(void **state)
{
    Technology t = load_tech(*state, "tsmc-n7");
    Budget b = std_budget();
    b.power[TP_CORE] = 0.9;
    derive_bad(&t, &b, "power.*");
    b = std_budget();
    b.area[TP_L2] = 0.7;
    derive_bad(&t, &b, "area.*");
    b = std_budget();
    b.area[TP_CORE] = 0.001;
    derive_bad(&t, &b, "area.core");
    b = std_budget();
    b.power[TP_CORE] = 0.0001;
    derive_bad(&t, &b, "power.core");
    b = std_budget();
    b.package_area_mm2 = b.die_area_mm2;
    derive_bad(&t, &b, "no HBM stack");
    b = std_budget();
    b.area[TP_DRAM] = 0;
    derive_bad(&t, &b, "controller area");
    b = std_budget();
    b.area[TP_L1] = 0.0001;
    derive_bad(&t, &b, "area.l1");
    b = std_budget();
    b.power[TP_DRAM] = 0;
    derive_bad(&t, &b, "power.dram");
    b = std_budget();
    b.package_area_mm2 = 100;
    derive_bad(&t, &b, "area.package");
    b = std_budget();
    b.perimeter[TP_CORE] = 0.1;
    derive_bad(&t, &b, "perimeter.core");
    b = std_budget();
    b.mcus_per_bundle = 0;
    derive_bad(&t, &b, "bundle.mcus");

    /* an off-package link technology cannot be placed on the die edge */
    Technology t2 = t;
    t2.intra.links_per_mm = 0;
    b = std_budget();
    derive_bad(&t2, &b, "perimeter.intra");
    b.perimeter[TP_INTRA] = 0; /* without edge the tier is simply empty */
    Device dev;
    Network ni, ne;
    derive_ok(&t2, &b, &dev, &ni, &ne, NULL);
    assert_rel(ni.bw_bytes_per_s, 0, 0);

    /* inconsistent technologies */
    b = std_budget();
    t2 = t;
    t2.logic.v_min = 1.0; /* above nominal */
    derive_bad(&t2, &b, "logic.voltage");
    t2 = t;
    t2.dram.io.v_threshold = 1.5;
    derive_bad(&t2, &b, "dram.voltage");
    t2 = t;
    t2.energy_j_per_flop[PREC_FP8] = 0; /* fp8 runs (rate 2) but costs nothing */
    derive_bad(&t2, &b, "energy.fp8");
    t2 = t;
    t2.sram[TP_L2].overhead = 1;
    derive_bad(&t2, &b, "l2.overhead");
    t2 = t;
    t2.hbm_eff = 0;
    derive_bad(&t2, &b, "efficiency.hbm");
}

/* ---- the parameter tables ------------------------------------------------ */

static void test_tables(void **state)
{
    const ParamTable *tbl = NULL;
    size_t off = 99;
    const ParamDef *def = param_find(&param_derive_table, "technology.dram.pin_rate", &tbl, &off);
    assert_non_null(def);
    assert_ptr_equal(tbl, &param_technology_table);
    assert_int_equal(off, offsetof(DeriveSpec, technology));
    assert_int_equal(def->offset, offsetof(Technology, dram.pin_rate_bytes_per_s));
    def = param_find(&param_derive_table, "power.l2", &tbl, &off);
    assert_non_null(def);
    assert_int_equal(def->offset, offsetof(DeriveSpec, budget.power[TP_L2]));
    def = param_find(&param_derive_table, "technology.intra.links_per_mm", &tbl, &off);
    assert_non_null(def);
    assert_ptr_equal(tbl, &param_network_table);
    char sug[128];
    assert_int_equal(param_suggest(&param_derive_table, "power.l3", sug, sizeof sug), 1);
    /* defaults: fp16 is the reference rate; bundles of 4 with 128 FLOP/clk */
    DeriveSpec s;
    memset(&s, 0, sizeof s);
    param_defaults(&param_derive_table, &s);
    assert_rel(s.technology.rate[PREC_FP16], 1, 0);
    assert_int_equal(s.budget.mcus_per_bundle, 4);
    assert_rel(s.budget.vector_flops_per_clock, 128, 0);
    /* a bad unit in a technology template is refused with the key named */
    Technology t;
    Diag d = {0};
    def = param_find(&param_technology_table, "dram.pin_rate", NULL, NULL);
    assert_int_equal(param_set(def, &t, "key 'dram.pin_rate'", "6.4 GHz", &d), -1);
    assert_non_null(strstr(d.msg, "dram.pin_rate"));
    (void)state;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deepflow_crosscheck),
        cmocka_unit_test(test_deepflow_power_oversubscribed),
        cmocka_unit_test(test_operating_point),
        cmocka_unit_test(test_templates_load),
        cmocka_unit_test(test_family_rules),
        cmocka_unit_test(test_area_monotone),
        cmocka_unit_test(test_power_monotone),
        cmocka_unit_test(test_power_within_budget),
        cmocka_unit_test(test_node_scaling),
        cmocka_unit_test(test_device_fields),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_tables),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
