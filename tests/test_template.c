/* tests/test_template.c — the YAML template loader (io/template.c over
 * io/ytree.c and the parameter tables of core/params.c): SI values from
 * unit text, base: inheritance and provenance, nested and dotted keys, and
 * every fault with its exact message and place (unknown key with a
 * suggestion, wrong unit, out of range, missing key, duplicate key, alias,
 * bad YAML, missing or escaping template names, base cycles, model
 * consistency).  Also that every shipped template loads.  Each test writes
 * its YAML into a fresh temporary templates tree. */
#include "testutil.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/param.h"
#include "core/types.h"
#include "io/template.h"
#include "io/ytree.h"
#include "net/net.h"
#include "tech/tech.h"

static const char *const kinds[] = {"devices", "networks", "systems", "models", "frameworks", "convergence"};

typedef struct {
    char root[64]; /* /tmp/df-tpl-XXXXXX */
    TemplateDB db;
    Diag d;
    char msg[2048]; /* formatted diagnostic of the last failure */
    char want[2048];
} Fix;

/* ---- fixture: a temporary templates tree ------------------------------ */

static void rm_tree(const char *path)
{
    DIR *dp = opendir(path);
    if (dp) {
        const struct dirent *e;
        char sub[1024];
        while ((e = readdir(dp))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rm_tree(sub);
        }
        closedir(dp);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static int setup(void **state)
{
    Fix *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->root, sizeof f->root, "/tmp/df-tpl-XXXXXX");
    if (!mkdtemp(f->root)) {
        free(f);
        return -1;
    }
    char dir[256];
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        snprintf(dir, sizeof dir, "%s/%s", f->root, kinds[i]);
        if (mkdir(dir, 0700))
            return -1;
    }
    diag_clear(&f->d);
    if (tdb_init(&f->db, f->root, &f->d))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fix *f = *state;
    tdb_free(&f->db);
    rm_tree(f->root);
    free(f);
    return 0;
}

/* Write root/rel with the given text. */
static void put(const Fix *f, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", f->root, rel);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    assert_int_equal(fputs(text, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
}

static const Template *get_ok(Fix *f, const ParamTable *t, const char *name)
{
    diag_clear(&f->d);
    const Template *tpl = tdb_get(&f->db, t, name, f->root, &f->d);
    if (!tpl) {
        diag_format(&f->d, f->msg, sizeof f->msg);
        print_error("unexpected error: %s\n", f->msg);
    }
    assert_non_null(tpl);
    return tpl;
}

/* Load a template that must fail; its formatted diagnostic lands in f->msg. */
static void get_fail(Fix *f, const ParamTable *t, const char *name)
{
    diag_clear(&f->d);
    const Template *tpl = tdb_get(&f->db, t, name, f->root, &f->d);
    assert_null(tpl);
    diag_format(&f->d, f->msg, sizeof f->msg);
}

/* f->msg must equal "ROOT/REL:" followed by tail (printf-style). */
static void expect_at(Fix *f, const char *rel, const char *tail)
{
    snprintf(f->want, sizeof f->want, "%s/%s:%s", f->root, rel, tail);
    assert_string_equal(f->msg, f->want);
}

/* ---- a complete device, and its parts --------------------------------- */

/* Every required device key, in both the nested and the dotted form; the
 * line numbers matter to the tests below. */
static const char dev_ok[] = "name: Test GPU\n"                               /* 1 */
                             "vector: 19.5 TFLOP/s\n"                         /* 2 */
                             "sms: 108\n"                                     /* 3 */
                             "clock: 1.41 GHz\n"                              /* 4 */
                             "peak.bf16: 312 TFLOP/s\n"                       /* 5 */
                             "l1:\n"                                          /* 6 */
                             "  capacity: 164 KiB\n"                          /* 7 */
                             "  bandwidth: 19.5 TB/s\n"                       /* 8 */
                             "l2: {capacity: 40 MiB, bandwidth: 7.22 TB/s}\n" /* 9 */
                             "hbm:\n"                                         /* 10 */
                             "  capacity: 80 GiB\n"                           /* 11 */
                             "  bandwidth: 3.35 TB/s\n"                       /* 12 */
                             "hbm.reserved: 2 GiB\n"                          /* 13 */
                             "launch_overhead: 4.5 us\n"                      /* 14 */
                             "efficiency.matrix: 0.87\n"                      /* 15 */
                             "efficiency:\n"                                  /* 16 */
                             "  hbm: 86 %\n"                                  /* 17 */
                             "power.tdp: 700 W\n"                             /* 18 */
                             "energy.bf16: 0.7 pJ/FLOP\n"                     /* 19 */
                             "description: ignored\n"                         /* 20 */
                             "sources:\n"                                     /* 21 */
                             "  - \"[X] somewhere\"\n";                       /* 22 */

/* dev_ok with line `line` (1-based) replaced by `repl` (which ends in \n,
 * or is "" to drop the line). */
static void dev_with(char *out, size_t n, int line, const char *repl)
{
    size_t len = 0;
    const char *p = dev_ok;
    for (int l = 1; *p; l++) {
        const char *e = strchr(p, '\n');
        size_t ll = (size_t)(e - p) + 1;
        const char *src = l == line ? repl : p;
        size_t sl = l == line ? strlen(repl) : ll;
        assert_true(len + sl < n);
        memcpy(out + len, src, sl);
        len += sl;
        p = e + 1;
    }
    out[len] = '\0';
}

static const char net_ok[] = "name: Test link\n"
                             "bandwidth: 300 GB/s\n"
                             "latency: 3 us\n"
                             "efficiency: 0.8\n";

static const char model_ok[] = "name: Test LM\n"
                               "layers: 4\n"
                               "hidden: 1024\n"
                               "heads: 16\n"
                               "seq_len: 2048\n"
                               "vocab: 51200\n";

/* ---- tests ------------------------------------------------------------ */

static void test_device_si_values(void **state)
{
    Fix *f = *state;
    put(f, "devices/gpu.yaml", dev_ok);
    const Template *t = get_ok(f, &param_device_table, "gpu");
    const Device *dev = t->obj;
    assert_string_equal(dev->name, "Test GPU");
    assert_string_equal(t->name, "gpu");
    assert_rel(dev->mem[MEM_HBM].bw_bytes_per_s, 3.35e12, 1e-15);
    assert_rel(dev->mem[MEM_HBM].capacity_bytes, 80.0 * 1073741824.0, 1e-15);
    assert_rel(dev->hbm_reserved_bytes, 2.0 * 1073741824.0, 1e-15);
    assert_rel(dev->mem[MEM_L1].capacity_bytes, 164.0 * 1024, 1e-15);
    assert_rel(dev->mem[MEM_L1].bw_bytes_per_s, 19.5e12, 1e-15);
    assert_rel(dev->mem[MEM_L2].capacity_bytes, 40.0 * 1048576, 1e-15);
    assert_rel(dev->mem[MEM_L2].bw_bytes_per_s, 7.22e12, 1e-15);
    assert_rel(dev->matrix_flops[PREC_BF16], 312e12, 1e-15);
    assert_rel(dev->vector_flops, 19.5e12, 1e-15);
    assert_rel(dev->clock_hz, 1.41e9, 1e-15);
    assert_rel(dev->launch_s, 4.5e-6, 1e-15);
    assert_rel(dev->matrix_eff, 0.87, 1e-15);
    assert_rel(dev->hbm_eff, 0.86, 1e-15);
    assert_rel(dev->tdp_w, 700, 1e-15);
    assert_rel(dev->energy_j_per_flop[PREC_BF16], 0.7e-12, 1e-15);
    assert_int_equal(dev->sms, 108);
    /* defaults of keys the file does not set */
    assert_rel(dev->mem[MEM_REG].capacity_bytes, 256 * 1024.0, 1e-15);
    assert_rel(dev->vector_eff, 0.7, 1e-15);
    assert_rel(dev->dvfs_alpha, 1.3, 1e-15);
    assert_true(dev->matrix_flops[PREC_FP8] == 0);

    /* a second get is the cached template */
    assert_ptr_equal(get_ok(f, &param_device_table, "GPU"), t);
    char path[256];
    snprintf(path, sizeof path, "%s/devices/gpu.yaml", f->root);
    assert_string_equal(t->path, path);
}

static void test_nested_and_dotted(void **state)
{
    Fix *f = *state;
    /* the same keys, all nested and all dotted, give the same device */
    put(f, "devices/nested.yaml", dev_ok);
    put(f, "devices/dotted.yaml",
        "name: Test GPU\nvector: 19.5 TFLOP/s\nsms: 108\nclock: 1.41 GHz\npeak: {bf16: 312 TFLOP/s}\n"
        "l1.capacity: 164 KiB\nl1.bandwidth: 19.5 TB/s\nl2.capacity: 40 MiB\nl2.bandwidth: 7.22 TB/s\n"
        "hbm.capacity: 80 GiB\nhbm.bandwidth: 3.35 TB/s\nhbm.reserved: 2 GiB\n"
        "launch_overhead: 4.5 us\nefficiency: {matrix: 0.87, hbm: 0.86}\npower: {tdp: 700 W}\n"
        "energy: {bf16: 0.7 pJ/FLOP}\n");
    const Device *a = get_ok(f, &param_device_table, "nested")->obj;
    const Device *b = get_ok(f, &param_device_table, "dotted")->obj;
    assert_memory_equal(a, b, sizeof *a);

    /* both forms are tracked under the dotted key */
    const Template *t = get_ok(f, &param_device_table, "nested");
    const Prov *p = prov_find(&t->prov, "hbm.bandwidth");
    assert_non_null(p);
    assert_int_equal(p->line, 12);
    assert_int_equal(p->col, 14);
    p = prov_find(&t->prov, "l2.capacity");
    assert_non_null(p);
    assert_int_equal(p->line, 9);
    assert_int_equal(p->col, 16);
    assert_null(prov_find(&t->prov, "description"));
    assert_null(prov_find(&t->prov, "voltage.alpha"));

    /* one key given in both forms is a duplicate, not a silent override */
    char text[2048];
    snprintf(text, sizeof text, "%shbm.capacity: 40 GiB\n", dev_ok);
    put(f, "devices/twice.yaml", text);
    get_fail(f, &param_device_table, "twice");
    expect_at(f, "devices/twice.yaml", "23:1: key 'hbm.capacity' is set twice (first at line 11)");
}

static void test_base_and_provenance(void **state)
{
    Fix *f = *state;
    put(f, "devices/gpu.yaml", dev_ok);
    put(f, "devices/child.yaml",
        "# a faster variant\n"
        "base: gpu\n"
        "name: Child GPU\n"
        "hbm:\n"
        "  bandwidth: 4.8 TB/s\n"
        "power.tdp: 1 kW\n");
    const Template *c = get_ok(f, &param_device_table, "child");
    const Device *dev = c->obj;
    assert_string_equal(dev->name, "Child GPU");
    assert_rel(dev->mem[MEM_HBM].bw_bytes_per_s, 4.8e12, 1e-15);
    assert_rel(dev->tdp_w, 1000, 1e-15);
    assert_rel(dev->mem[MEM_HBM].capacity_bytes, 80.0 * 1073741824.0, 1e-15); /* inherited */
    assert_int_equal(dev->sms, 108);

    char base_path[256], child_path[256];
    snprintf(base_path, sizeof base_path, "%s/devices/gpu.yaml", f->root);
    snprintf(child_path, sizeof child_path, "%s/devices/child.yaml", f->root);
    const Prov *p = prov_find(&c->prov, "hbm.capacity");
    assert_non_null(p);
    assert_string_equal(p->file, base_path);
    assert_int_equal(p->line, 11);
    assert_int_equal(p->col, 13);
    p = prov_find(&c->prov, "HBM.Bandwidth"); /* keys are case-insensitive */
    assert_non_null(p);
    assert_string_equal(p->file, child_path);
    assert_int_equal(p->line, 5);
    assert_int_equal(p->col, 14);
    p = prov_find(&c->prov, "name");
    assert_string_equal(p->file, child_path);
    assert_int_equal(p->line, 3);
    assert_null(prov_find(&c->prov, "base"));

    /* the base itself is unchanged */
    const Device *b = get_ok(f, &param_device_table, "gpu")->obj;
    assert_rel(b->mem[MEM_HBM].bw_bytes_per_s, 3.35e12, 1e-15);
    assert_string_equal(b->name, "Test GPU");

    /* a base that does not exist: where base: is, and the known names */
    put(f, "devices/orphan.yaml", "base: nosuch\nname: x\n");
    get_fail(f, &param_device_table, "orphan");
    expect_at(f, "devices/orphan.yaml",
              "1:7: key 'base': no devices template 'nosuch' (known: child, gpu, orphan)");
}

static void test_system_refs_and_provenance(void **state)
{
    Fix *f = *state;
    put(f, "devices/gpu.yaml", dev_ok);
    put(f, "networks/fast.yaml", net_ok);
    put(f, "systems/box.yaml",
        "name: Box\n"
        "device: gpu\n"
        "devices_per_node: 4\n"
        "intra:\n"
        "  template: fast\n"
        "  bandwidth: 450 GB/s\n"
        "inter:\n"
        "  name: Slow link\n"
        "  bandwidth: 400 Gb/s\n"
        "  latency: 5 us\n"
        "  efficiency: 90 %\n"
        "device.hbm.bandwidth: 2 TB/s\n"
        "intra.latency: 1 us\n"
        "framework:\n"
        "  name: Stack\n"
        "  gemm_efficiency: 0.9\n"
        "dp_overlap: 25 %\n"); /* the old name of framework.dp_overlap */
    const Template *t = get_ok(f, &param_system_table, "box");
    const System *s = t->obj;
    assert_string_equal(s->name, "Box");
    assert_string_equal(s->device.name, "Test GPU");
    assert_int_equal(s->devices_per_node, 4);
    assert_string_equal(s->intra.name, "Test link");
    assert_rel(s->intra.bw_bytes_per_s, 450e9, 1e-15);
    assert_rel(s->intra.latency_s, 1e-6, 1e-15);
    assert_rel(s->intra.efficiency, 0.8, 1e-15);
    assert_rel(s->inter.bw_bytes_per_s, 50e9, 1e-15);
    assert_rel(s->inter.efficiency, 0.9, 1e-15);
    assert_rel(s->device.mem[MEM_HBM].bw_bytes_per_s, 2e12, 1e-15);
    assert_rel(s->pue, 1.0, 1e-15); /* default */
    assert_string_equal(s->framework.name, "Stack");
    assert_rel(s->framework.gemm_eff, 0.9, 1e-15);
    assert_rel(s->framework.dp_overlap, 0.25, 1e-15);
    assert_rel(s->framework.host_op_s, 0.0, 1e-15); /* default */

    char sys_path[256], dev_path[256], net_path[256];
    snprintf(sys_path, sizeof sys_path, "%s/systems/box.yaml", f->root);
    snprintf(dev_path, sizeof dev_path, "%s/devices/gpu.yaml", f->root);
    snprintf(net_path, sizeof net_path, "%s/networks/fast.yaml", f->root);
    const Prov *p = prov_find(&t->prov, "device");
    assert_string_equal(p->file, sys_path);
    assert_int_equal(p->line, 2);
    p = prov_find(&t->prov, "device.sms");
    assert_string_equal(p->file, dev_path);
    assert_int_equal(p->line, 3);
    p = prov_find(&t->prov, "device.hbm.bandwidth");
    assert_string_equal(p->file, sys_path);
    assert_int_equal(p->line, 12);
    p = prov_find(&t->prov, "intra.efficiency");
    assert_string_equal(p->file, net_path);
    assert_int_equal(p->line, 4);
    p = prov_find(&t->prov, "intra.bandwidth");
    assert_string_equal(p->file, sys_path);
    assert_int_equal(p->line, 6);
    assert_int_equal(p->col, 14);
    p = prov_find(&t->prov, "inter.latency");
    assert_string_equal(p->file, sys_path);
    assert_int_equal(p->line, 10);

    /* the device template itself is not changed by the system's override */
    const Device *dev = get_ok(f, &param_device_table, "gpu")->obj;
    assert_rel(dev->mem[MEM_HBM].bw_bytes_per_s, 3.35e12, 1e-15);

    /* a dotted override before the reference it overrides still lands */
    put(f, "systems/late.yaml",
        "name: Late\ndevice.sms: 64\ndevice: gpu\nintra: fast\ninter: fast\nframework: {name: S}\n");
    s = get_ok(f, &param_system_table, "late")->obj;
    assert_int_equal(s->device.sms, 64);

    /* a dotted override of a reference that is never set */
    put(f, "systems/noref.yaml",
        "name: NoRef\ndevice.sms: 64\nintra: fast\ninter: fast\nframework: {name: S}\n");
    get_fail(f, &param_system_table, "noref");
    expect_at(f, "systems/noref.yaml",
              "2:1: key 'device.sms': 'device' is not set (name a devices template first)");
}

static void test_missing_device_template(void **state)
{
    Fix *f = *state;
    put(f, "devices/gpu.yaml", dev_ok);
    put(f, "devices/gpu2.yaml", "base: gpu\nname: GPU 2\n");
    put(f, "networks/fast.yaml", net_ok);
    put(f, "systems/box.yaml", "name: Box\ndevice: h100\nintra: fast\ninter: fast\n");
    get_fail(f, &param_system_table, "box");
    expect_at(f, "systems/box.yaml", "2:9: no devices template 'h100' (known: gpu, gpu2)");

    /* a name that is neither a template name nor a .yaml file */
    put(f, "systems/bad.yaml", "name: Box\ndevice: 'a b'\nintra: fast\ninter: fast\n");
    get_fail(f, &param_system_table, "bad");
    expect_at(f, "systems/bad.yaml",
              "2:9: devices template 'a b': expected a template name (letters, digits, '-', '_', '.')");

    /* an error inside the referenced template points into that file */
    put(f, "devices/broken.yaml", "base: gpu\nname: Broken\nsms: many\n");
    put(f, "systems/usesbroken.yaml", "name: Box\ndevice: broken\nintra: fast\ninter: fast\n");
    get_fail(f, &param_system_table, "usesbroken");
    expect_at(f, "devices/broken.yaml",
              "3:6: key 'sms': expected an integer in [1, 1000000], got 'many' (not a number)");
}

static void test_unknown_key_suggestion(void **state)
{
    Fix *f = *state;
    char text[2048];
    dev_with(text, sizeof text, 12, "  bandwith: 3.35 TB/s\n");
    put(f, "devices/typo.yaml", text);
    get_fail(f, &param_device_table, "typo");
    expect_at(f, "devices/typo.yaml", "12:3: unknown key 'hbm.bandwith' (did you mean 'hbm.bandwidth'?)");

    /* dotted form */
    dev_with(text, sizeof text, 13, "hbm.reserverd: 2 GiB\n");
    put(f, "devices/typo2.yaml", text);
    get_fail(f, &param_device_table, "typo2");
    expect_at(f, "devices/typo2.yaml", "13:1: unknown key 'hbm.reserverd' (did you mean 'hbm.reserved'?)");

    /* nothing close */
    dev_with(text, sizeof text, 20, "colour: green\n");
    put(f, "devices/far.yaml", text);
    get_fail(f, &param_device_table, "far");
    expect_at(f, "devices/far.yaml", "20:1: unknown key 'colour' in a devices template");

    /* inside a nested network of a system the message says the full key */
    put(f, "devices/gpu.yaml", dev_ok);
    put(f, "networks/fast.yaml", net_ok);
    put(f, "systems/box.yaml",
        "name: Box\ndevice: gpu\nintra:\n  template: fast\n  latncy: 1 us\ninter: fast\n");
    get_fail(f, &param_system_table, "box");
    expect_at(f, "systems/box.yaml", "5:3: unknown key 'intra.latncy' (did you mean 'intra.latency'?)");
}

static void test_wrong_unit_and_range(void **state)
{
    Fix *f = *state;
    char text[2048];
    dev_with(text, sizeof text, 12, "  bandwidth: 3.35 TB\n");
    put(f, "devices/unit.yaml", text);
    get_fail(f, &param_device_table, "unit");
    expect_at(f, "devices/unit.yaml",
              "12:14: key 'hbm.bandwidth': expected a bandwidth (B/s, GB/s, TB/s, Gb/s) in [1e+09, 1e+15], "
              "got '3.35 TB' (unit 'TB' is a size, not a bandwidth)");

    /* a typo'd magnitude: 3.35 GB/s of HBM is out of the physical range */
    dev_with(text, sizeof text, 12, "  bandwidth: 3.35 MB/s\n");
    put(f, "devices/range.yaml", text);
    get_fail(f, &param_device_table, "range");
    expect_at(f, "devices/range.yaml",
              "12:14: key 'hbm.bandwidth': expected a bandwidth (B/s, GB/s, TB/s, Gb/s) in [1e+09, 1e+15], "
              "got '3.35 MB/s' (out of range)");

    dev_with(text, sizeof text, 17, "  hbm: 1.5\n");
    put(f, "devices/frac.yaml", text);
    get_fail(f, &param_device_table, "frac");
    expect_at(
        f, "devices/frac.yaml",
        "17:8: key 'efficiency.hbm': expected a fraction (0..1 or %) in [0.01, 1], got '1.5' (out of range)");

    dev_with(text, sizeof text, 3, "sms: 0\n");
    put(f, "devices/sms.yaml", text);
    get_fail(f, &param_device_table, "sms");
    expect_at(f, "devices/sms.yaml",
              "3:6: key 'sms': expected an integer in [1, 1000000], got '0' (out of range)");

    /* a mapping where a value belongs */
    dev_with(text, sizeof text, 3, "sms: {count: 3}\n");
    put(f, "devices/map.yaml", text);
    get_fail(f, &param_device_table, "map");
    expect_at(f, "devices/map.yaml", "3:6: key 'sms': expected an integer in [1, 1000000], got a mapping");

    put(f, "networks/topo.yaml",
        "name: L\nbandwidth: 1 GB/s\nlatency: 1 us\nefficiency: 1\ntopology: star\n");
    get_fail(f, &param_network_table, "topo");
    expect_at(f, "networks/topo.yaml",
              "5:11: key 'topology': expected one of switched, ring, torus2d, torus3d or mesh2d, got 'star'");
}

static void test_missing_required(void **state)
{
    Fix *f = *state;
    char text[2048];
    dev_with(text, sizeof text, 7, "");
    put(f, "devices/nol1.yaml", text);
    get_fail(f, &param_device_table, "nol1");
    expect_at(f, "devices/nol1.yaml",
              "1:1: missing required key 'l1.capacity' (shared memory / L1 usable per SM)");

    put(f, "networks/n.yaml", "# only a name\nname: L\nbandwidth: 1 GB/s\nefficiency: 1\n");
    get_fail(f, &param_network_table, "n");
    expect_at(f, "networks/n.yaml", "2:1: missing required key 'latency' (per-hop latency (alpha))");

    /* a nested network written in full must be complete too */
    put(f, "devices/gpu.yaml", dev_ok);
    put(f, "networks/fast.yaml", net_ok);
    put(f, "systems/box.yaml",
        "name: Box\ndevice: gpu\nintra: fast\ninter:\n  name: X\n  bandwidth: 1 GB/s\n  efficiency: 1\n");
    get_fail(f, &param_system_table, "box");
    expect_at(f, "systems/box.yaml", "1:1: missing required key 'inter.latency' (per-hop latency (alpha))");

    put(f, "systems/nodev.yaml", "name: Box\nintra: fast\ninter: fast\n");
    get_fail(f, &param_system_table, "nodev");
    expect_at(f, "systems/nodev.yaml", "1:1: missing required key 'device' (accelerator)");
}

static void test_yaml_faults(void **state)
{
    Fix *f = *state;
    char text[2048];

    /* libyaml accepts a repeated key; the reader does not */
    dev_with(text, sizeof text, 20, "sms: 132\n");
    put(f, "devices/dup.yaml", text);
    get_fail(f, &param_device_table, "dup");
    expect_at(f, "devices/dup.yaml", "20:1: duplicate key 'sms' (first at line 3)");

    dev_with(text, sizeof text, 12, "  bandwidth: 3.35 TB/s\n  capacity: 1 GiB\n");
    put(f, "devices/dup2.yaml", text);
    get_fail(f, &param_device_table, "dup2");
    expect_at(f, "devices/dup2.yaml", "13:3: duplicate key 'capacity' (first at line 11)");

    /* aliases could expand exponentially (the billion laughs) */
    put(f, "devices/bomb.yaml",
        "name: Bomb\n"
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n");
    get_fail(f, &param_device_table, "bomb");
    expect_at(f, "devices/bomb.yaml", "3:8: YAML aliases are not allowed in templates");

    /* a NUL escaped into a value would cut it wherever it is used */
    put(f, "devices/nul.yaml", "name: \"evil\\0hidden\"\n");
    get_fail(f, &param_device_table, "nul");
    expect_at(f, "devices/nul.yaml", "1:7: a value holds a NUL character (\\0), which no text may contain");

    /* syntax errors keep their line and column */
    dev_with(text, sizeof text, 9, "l2: {capacity: 40 MiB, bandwidth: 7.22 TB/s\n");
    put(f, "devices/syntax.yaml", text);
    get_fail(f, &param_device_table, "syntax");
    expect_at(f, "devices/syntax.yaml",
              "10:4: invalid YAML: did not find expected ',' or '}' while parsing a flow mapping");

    dev_with(text, sizeof text, 12, "   bandwidth: 3.35 TB/s\n");
    put(f, "devices/indent.yaml", text);
    get_fail(f, &param_device_table, "indent");
    expect_at(f, "devices/indent.yaml",
              "12:13: invalid YAML: mapping values are not allowed in this context");

    put(f, "devices/tab.yaml", "name: X\n\tsms: 3\n");
    get_fail(f, &param_device_table, "tab");
    expect_at(
        f, "devices/tab.yaml",
        "2:1: invalid YAML: found a tab character that violates indentation while scanning a plain scalar");

    /* an encoding error is placed at its byte, not at 1:1 */
    put(f, "devices/latin1.yaml", "name: X\nsms: 3\n# caf\xe9 au lait\n");
    get_fail(f, &param_device_table, "latin1");
    expect_at(f, "devices/latin1.yaml", "3:6: invalid YAML: byte 0xE9 is not UTF-8 (save the file as UTF-8)");

    put(f, "devices/empty.yaml", "# nothing here\n");
    get_fail(f, &param_device_table, "empty");
    expect_at(f, "devices/empty.yaml", "1:1: empty template");

    put(f, "devices/list.yaml", "- a\n- b\n");
    get_fail(f, &param_device_table, "list");
    expect_at(f, "devices/list.yaml", "1:1: a template must be a mapping of keys to values");

    put(f, "devices/two.yaml", "name: a\n---\nname: b\n");
    get_fail(f, &param_device_table, "two");
    expect_at(f, "devices/two.yaml", "2:1: only one YAML document per template");

    put(f, "devices/deep.yaml",
        "name: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n");
    get_fail(f, &param_device_table, "deep");
    expect_at(f, "devices/deep.yaml",
              "1:39: document too deep or too large (limits: depth 32, 100000 nodes)");
}

static void test_file_names(void **state)
{
    Fix *f = *state;
    put(f, "devices/gpu.yaml", dev_ok);
    put(f, "mine.yaml", dev_ok);

    /* a .yaml name is a file beside the table */
    const Template *t = get_ok(f, &param_device_table, "mine.yaml");
    assert_string_equal(((const Device *)t->obj)->name, "Test GPU");

    get_fail(f, &param_device_table, "../mine.yaml");
    assert_string_equal(f->msg, "devices template '../mine.yaml': a file name must be relative to the "
                                "table's folder and may not contain '..'");
    get_fail(f, &param_device_table, "devices/../../x.yaml");
    assert_string_equal(f->msg,
                        "devices template 'devices/../../x.yaml': a file name must be relative to the "
                        "table's folder and may not contain '..'");
    get_fail(f, &param_device_table, "/etc/x.yaml");
    assert_string_equal(f->msg, "devices template '/etc/x.yaml': a file name must be relative to the "
                                "table's folder and may not contain '..'");

    /* a template name may not be a path */
    get_fail(f, &param_device_table, "../devices/gpu");
    assert_string_equal(
        f->msg,
        "devices template '../devices/gpu': expected a template name (letters, digits, '-', '_', '.')");
    get_fail(f, &param_device_table, "nosuch");
    assert_string_equal(f->msg, "no devices template 'nosuch' (known: gpu)");

    /* inside a system the reference is placed */
    put(f, "networks/fast.yaml", net_ok);
    put(f, "systems/esc.yaml", "name: Box\ndevice: ../devices/gpu.yaml\nintra: fast\ninter: fast\n");
    get_fail(f, &param_system_table, "esc");
    expect_at(f, "systems/esc.yaml",
              "2:9: devices template '../devices/gpu.yaml': a file name must be relative "
              "to the table's folder and may not contain '..'");
}

static void test_base_cycle(void **state)
{
    Fix *f = *state;
    put(f, "devices/a.yaml", "base: b\nname: A\n");
    put(f, "devices/b.yaml", "base: a\nname: B\n");
    get_fail(f, &param_device_table, "a");
    expect_at(f, "devices/b.yaml", "1:7: key 'base': templates a -> b -> a form a cycle");
    /* and again (nothing half-loaded was cached) */
    get_fail(f, &param_device_table, "b");
    expect_at(f, "devices/a.yaml", "1:7: key 'base': templates b -> a -> b form a cycle");

    put(f, "devices/self.yaml", "base: self\nname: S\n");
    get_fail(f, &param_device_table, "self");
    expect_at(f, "devices/self.yaml", "1:7: key 'base': templates self -> self form a cycle");

    /* a system whose device is part of a cycle */
    put(f, "networks/fast.yaml", net_ok);
    put(f, "systems/box.yaml", "name: Box\ndevice: a\nintra: fast\ninter: fast\n");
    get_fail(f, &param_system_table, "box");
    expect_at(f, "devices/b.yaml", "1:7: key 'base': templates a -> b -> a form a cycle");

    /* a long chain that is not a cycle loads */
    put(f, "devices/c0.yaml", dev_ok);
    char name[32], text[64];
    for (int i = 1; i <= 12; i++) {
        snprintf(name, sizeof name, "devices/c%d.yaml", i);
        snprintf(text, sizeof text, "base: c%d\nsms: %d\n", i - 1, i);
        put(f, name, text);
    }
    const Device *dev = get_ok(f, &param_device_table, "c12")->obj;
    assert_int_equal(dev->sms, 12);
    assert_string_equal(dev->name, "Test GPU");
}

static void test_model_finish(void **state)
{
    Fix *f = *state;
    put(f, "models/lm.yaml", model_ok);
    const Template *t = get_ok(f, &param_model_table, "lm");
    Model m = *(const Model *)t->obj;
    assert_int_equal(m.ffn, 0); /* stored raw: derived defaults follow overrides */
    assert_int_equal(param_model_table.finish(&m, &f->d), 0);
    assert_int_equal(m.ffn, 4096);
    assert_int_equal(m.kv_heads, 16);

    char text[512];
    snprintf(text, sizeof text, "%sheads: 24\n",
             "name: Test LM\nlayers: 4\nhidden: 1000\n"
             "seq_len: 2048\nvocab: 51200\n");
    put(f, "models/odd.yaml", text);
    get_fail(f, &param_model_table, "odd");
    expect_at(f, "models/odd.yaml",
              "3:9: keys 'hidden', 'heads': hidden (1000) is not divisible by heads (24)");

    snprintf(text, sizeof text, "%skv_heads: 5\n", model_ok);
    put(f, "models/gqa.yaml", text);
    get_fail(f, &param_model_table, "gqa");
    expect_at(f, "models/gqa.yaml",
              "7:11: keys 'kv_heads', 'heads': heads (16) must be a multiple of kv_heads (5)");

    /* which layers route to experts: only in a mixture of experts, and some must */
    snprintf(text, sizeof text, "%sdense_layers: 2\n", model_ok);
    put(f, "models/nodense.yaml", text);
    get_fail(f, &param_model_table, "nodense");
    expect_at(
        f, "models/nodense.yaml",
        "7:15: key 'dense_layers': sets which layers route to experts, and the model has none (experts 0)");
    snprintf(text, sizeof text, "%sexperts: 8\nexperts_per_token: 2\ndense_layers: 4\n", model_ok);
    put(f, "models/alldense.yaml", text);
    get_fail(f, &param_model_table, "alldense");
    assert_non_null(strstr(f->msg,
                           "keys 'dense_layers', 'layers': 4 dense layers of 4 leave no layer to route "
                           "to experts"));
    /* latent attention's widths need its key-value rank, and a key and value per head */
    snprintf(text, sizeof text, "%sq_lora_rank: 64\n", model_ok);
    put(f, "models/halfmla.yaml", text);
    get_fail(f, &param_model_table, "halfmla");
    assert_non_null(strstr(f->msg, "key 'kv_lora_rank': q_lora_rank, rope_head_dim and v_head_dim describe "
                                   "multi-head latent attention, which needs kv_lora_rank > 0"));
    snprintf(text, sizeof text, "%skv_lora_rank: 64\nkv_heads: 4\n", model_ok);
    put(f, "models/gqamla.yaml", text);
    get_fail(f, &param_model_table, "gqamla");
    assert_non_null(strstr(f->msg,
                           "keys 'kv_heads', 'kv_lora_rank': latent attention projects keys and values "
                           "up for every head: kv_heads must equal heads (16), got 4"));
}

/* A convergence curve's band brackets its critical batch (issue 26). */
static void test_convergence_band(void **state)
{
    Fix *f = *state;
    static const char curve[] =
        "name: c\nkind: critical_batch\nunit: tokens\nepochs_min: 25\nb_crit: 100000\n";
    char text[512];
    snprintf(text, sizeof text, "%sb_crit_low: 100000\nb_crit_high: 1000000\n", curve);
    put(f, "convergence/band.yaml", text);
    const Template *t = get_ok(f, &param_convergence_table, "band");
    const Convergence *c = t->obj;
    assert_rel(c->band_lo, 1e5, 0);
    assert_rel(c->band_hi, 1e6, 0);
    snprintf(text, sizeof text, "%sb_crit_low: 200000\n", curve);
    put(f, "convergence/low.yaml", text);
    get_fail(f, &param_convergence_table, "low");
    expect_at(f, "convergence/low.yaml",
              "6:13: key 'b_crit_low': b_crit_low (200000) is above the critical "
              "batch (100000)");
    snprintf(text, sizeof text, "%sb_crit_high: 50000\n", curve);
    put(f, "convergence/high.yaml", text);
    get_fail(f, &param_convergence_table, "high");
    expect_at(f, "convergence/high.yaml",
              "6:14: key 'b_crit_high': b_crit_high (50000) is below the critical "
              "batch (100000)");
}

/* A stack's prediction interval must bracket 1 and come in pairs. */
static void test_framework_interval(void **state)
{
    Fix *f = *state;
    put(f, "frameworks/ok.yaml",
        "name: OK\ngemm_efficiency: 0.8\ninterval:\n  multi_node: {lo: 0.9, hi: 1.3, runs: 12, mean_error: "
        "0.07}\n");
    const Framework *fw = get_ok(f, &param_framework_table, "ok")->obj;
    assert_rel(fw->multi_node.hi, 1.3, 1e-15);
    assert_int_equal(fw->multi_node.runs, 12);
    assert_true(fw->single_node.lo == 0); /* none: the evaluation borrows the other regime's */
    put(f, "frameworks/bad.yaml", "name: Bad\ninterval:\n  single_node: {lo: 1.1, hi: 1.3}\n");
    get_fail(f, &param_framework_table, "bad");
    assert_non_null(
        strstr(f->msg, "keys 'interval.single_node.lo/hi': need both, with lo <= 1 <= hi (got 1.1 and 1.3)"));
}

static void test_model_finish_required(void **state)
{
    Fix *f = *state;
    put(f, "models/short.yaml", "name: Short\nlayers: 4\nhidden: 1024\nheads: 16\nseq_len: 2048\n");
    get_fail(f, &param_model_table, "short");
    expect_at(f, "models/short.yaml", "1:1: key 'vocab': required for a transformer model");

    put(f, "models/g.yaml", "name: G\nkind: gemm\nm: 8\nn: 8\n");
    get_fail(f, &param_model_table, "g");
    expect_at(f, "models/g.yaml", "1:1: keys 'm', 'n', 'k': required for a gemm model");

    put(f, "models/g2.yaml", "name: G\nkind: gemm\nm: 8\nn: 8\nk: 16\n");
    const Model *m = get_ok(f, &param_model_table, "g2")->obj;
    assert_int_equal(m->kind, MODEL_GEMM);
    assert_int_equal(m->k, 16);
}

/* ---- derive: a device from technology and budgets ---------------------- */

/* A derived device (templates/devices/derived-n7.yaml): the generator fills
 * the fields, the file's own keys win, and the provenance says which came
 * from the derive block and which from a key. */
static void test_derived_device(void **state)
{
    (void)state;
    TemplateDB db;
    Diag d;
    diag_clear(&d);
    assert_int_equal(tdb_init(&db, "../templates", &d), 0);
    const Template *n7 = tdb_get(&db, &param_device_table, "derived-n7", ".", &d);
    const Template *n3 = tdb_get(&db, &param_device_table, "derived-n3", ".", &d);
    assert_non_null(n7);
    assert_non_null(n3);
    /* the template stores the spec; the generator runs in the pipeline */
    const Device *raw = n7->obj;
    assert_string_equal(raw->derive.name, raw->derive.technology.name);
    assert_rel(raw->derive.budget.tdp_w, 500, 0);
    assert_rel(raw->matrix_flops[PREC_BF16], 0, 0);
    Device da, db7;
    assert_int_equal(tech_resolve_device(n7->obj, &da, NULL, NULL, &d), 0);
    assert_int_equal(tech_resolve_device(n3->obj, &db7, NULL, NULL, &d), 0);
    const Device *a = &da, *b = &db7;
    assert_true(a->matrix_flops[PREC_BF16] > 1e14);
    assert_true(a->sms > 0 && a->clock_hz > 1e8);
    assert_true(a->mem[MEM_HBM].capacity_bytes > 0 && a->mem[MEM_HBM].bw_bytes_per_s > 0);
    assert_rel(a->tdp_w, 500, 1e-12);
    /* the same budgets at a newer node: more FLOP/s, less energy per FLOP */
    assert_true(b->matrix_flops[PREC_BF16] > a->matrix_flops[PREC_BF16]);
    assert_true(b->energy_j_per_flop[PREC_BF16] < a->energy_j_per_flop[PREC_BF16]);
    /* explicit keys override the derivation; derived keys point at derive: */
    assert_rel(a->launch_s, 4.5e-6, 1e-12);
    assert_rel(a->hbm_reserved_bytes, 2.0 * 1073741824.0, 1e-12);
    const Prov *p = prov_find(&n7->prov, "hbm.reserved");
    assert_non_null(p);
    assert_true(p->line > 30);
    p = prov_find(&n7->prov, "peak.bf16");
    assert_non_null(p);
    assert_int_equal(p->line, 9); /* the derive block (its first line) */
    tdb_free(&db);
}

/* A derive block that oversubscribes its power budget is an error at the
 * block, naming the shares (the device file lies beside a table; its
 * technology comes from the shipped templates). */
static void test_derive_errors(void **state)
{
    (void)state;
    char dir[64] = "/tmp/df-derive-XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("name: Bad\n"
          "derive:\n"
          "  technology: tsmc-n7\n"
          "  area: {die: 800 mm2, package: 1800 mm2, core: 0.3, registers: 0.03, l1: 0.03, l2: 0.1, dram: "
          "0.05}\n"
          "  power: {tdp: 500 W, core: 0.9, registers: 0.04, l1: 0.06, l2: 0.25, dram: 0.2}\n"
          "  perimeter: {dram: 0.5}\n"
          "launch_overhead: 5 us\n",
          fp);
    assert_int_equal(fclose(fp), 0);
    TemplateDB db;
    Diag d;
    diag_clear(&d);
    assert_int_equal(tdb_init(&db, "../templates", &d), 0);
    /* without the generator's check the spec is stored as written */
    assert_non_null(tdb_get(&db, &param_device_table, "bad.yaml", dir, &d));
    tdb_free(&db);
    assert_int_equal(tdb_init(&db, "../templates", &d), 0);
    db.check = tech_template_check;
    assert_null(tdb_get(&db, &param_device_table, "bad.yaml", dir, &d));
    assert_int_equal(d.line, 3);
    assert_string_equal(d.msg, "derive: keys 'power.*': the shares sum to 1.45, more than the whole (1)");
    tdb_free(&db);
    unlink(path);
    rmdir(dir);
}

/* A template that fails to load is read once: the second request gets the
 * same diagnostic without touching the file (here: after it is gone). */
static void test_failure_read_once(void **state)
{
    (void)state;
    char dir[64] = "/tmp/df-once-XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("name: Bad\nvector: 10 TFLOP/s\nsms: 0\n", fp);
    assert_int_equal(fclose(fp), 0);
    TemplateDB db;
    Diag d1, d2;
    diag_clear(&d1);
    diag_clear(&d2);
    assert_int_equal(tdb_init(&db, "../templates", &d1), 0);
    assert_null(tdb_get(&db, &param_device_table, "bad.yaml", dir, &d1));
    assert_int_equal(d1.line, 3);
    unlink(path);
    assert_null(tdb_get(&db, &param_device_table, "bad.yaml", dir, &d2));
    assert_string_equal(d2.msg, d1.msg);
    assert_string_equal(d2.file, d1.file);
    assert_int_equal(d2.line, 3);
    assert_int_equal(db.nfailed, 1);
    tdb_free(&db);
    rmdir(dir);
}

/* A device whose idle power reaches its TDP is an error at the template's
 * line, not at the first row that uses it. */
static void test_idle_above_tdp(void **state)
{
    (void)state;
    char dir[64] = "/tmp/df-idle-XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/hot.yaml", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("base: h100-sxm5-80gb\nname: Hot\npower:\n  idle: 750 W\n", fp);
    assert_int_equal(fclose(fp), 0);
    TemplateDB db;
    Diag d;
    diag_clear(&d);
    assert_int_equal(tdb_init(&db, "../templates", &d), 0);
    assert_null(tdb_get(&db, &param_device_table, "hot.yaml", dir, &d));
    assert_string_equal(d.msg,
                        "key 'power.idle': the static (idle) power, 750 W, must be below the TDP, 700 W "
                        "(power.tdp)");
    assert_int_equal(d.line, 4);
    tdb_free(&db);
    unlink(path);
    rmdir(dir);
}

/* make fuzz's reproducer: a cut UTF-8 sequence at the very end of an input
 * that is not NUL-terminated (the encoding error's locator read past it;
 * make asan checks it no longer does). */
static void test_fuzz_cut_utf8_at_end(void **state)
{
    (void)state;
    char *buf = malloc(4);
    assert_non_null(buf);
    memcpy(buf, "J}u\xed", 4);
    Diag d;
    diag_clear(&d);
    assert_null(ytree_parse("x.yaml", buf, 4, &d));
    assert_string_equal(d.msg, "invalid YAML: byte 0xED is not UTF-8 (save the file as UTF-8)");
    assert_int_equal(d.line, 1);
    assert_int_equal(d.col, 4);
    free(buf);
}

/* A template's size in bits is kept as a warning with its place, once. */
static void test_template_warning(void **state)
{
    (void)state;
    char dir[64] = "/tmp/df-warn-XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/bits.yaml", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("base: h100-sxm5-80gb\nname: Bits\nhbm:\n  capacity: 80 Gib\n", fp);
    assert_int_equal(fclose(fp), 0);
    TemplateDB db;
    Diag d;
    diag_clear(&d);
    assert_int_equal(tdb_init(&db, "../templates", &d), 0);
    const Template *t = tdb_get(&db, &param_device_table, "bits.yaml", dir, &d);
    assert_non_null(t);
    assert_int_equal(t->warnings.n, 1);
    char want[512];
    snprintf(
        want, sizeof want,
        "%s/bits.yaml:4:13: warning: key 'hbm.capacity': '80 Gib' is in bits, 10 GiB; a size is usually in "
        "bytes (B, GiB: capital B)",
        dir);
    assert_string_equal(t->warnings.s[0], want);
    tdb_free(&db);
    unlink(path);
    rmdir(dir);
}

/* ---- the shipped templates -------------------------------------------- */

static void test_shipped_templates(void **state)
{
    (void)state;
    TemplateDB db;
    Diag d;
    diag_clear(&d);
    assert_int_equal(tdb_init(&db, "../templates", &d), 0);
    static const ParamTable *const tables[] = {&param_device_table, &param_network_table, &param_system_table,
                                               &param_model_table};
    int total = 0;
    for (int k = 0; k < 4; k++) {
        char **names;
        int n;
        assert_int_equal(tdb_list(&db, tables[k]->kind, &names, &n), 0);
        assert_true(n >= 1);
        for (int i = 0; i < n; i++) {
            diag_clear(&d);
            const Template *t = tdb_get(&db, tables[k], names[i], ".", &d);
            if (!t) {
                char msg[1200];
                diag_format(&d, msg, sizeof msg);
                print_error("%s/%s: %s\n", tables[k]->kind, names[i], msg);
            }
            assert_non_null(t);
            assert_true(((const char *)t->obj)[0] != '\0'); /* every object starts with its name */
            if (i > 0)
                assert_true(strcmp(names[i - 1], names[i]) < 0); /* sorted */
            total++;
        }
        for (int i = 0; i < n; i++)
            free(names[i]);
        free(names);
    }
    assert_true(total >= 30);

    const Template *t = tdb_get(&db, &param_model_table, "gpt3-175b", ".", &d);
    assert_non_null(t);
    Model m = *(const Model *)t->obj;
    assert_string_equal(m.name, "GPT-3 175B");
    assert_int_equal(m.kind, MODEL_TRANSFORMER);
    assert_int_equal(m.layers, 96);
    assert_int_equal(m.hidden, 12288);
    assert_int_equal(m.heads, 96);
    assert_int_equal(m.seq_len, 2048);
    assert_int_equal(m.vocab, 51200);
    assert_int_equal(param_model_table.finish(&m, &d), 0);
    assert_int_equal(m.ffn, 4 * 12288);
    assert_int_equal(m.kv_heads, 96);
    assert_rel(m.train_tokens, 300e9, 1e-15);

    /* a system resolves its device and networks */
    t = tdb_get(&db, &param_system_table, "dgx-a100-80g", ".", &d);
    assert_non_null(t);
    const System *s = t->obj;
    assert_string_equal(s->device.name, "A100-SXM4-80GB");
    assert_rel(s->device.matrix_flops[PREC_BF16], 312e12, 1e-15);
    assert_rel(s->device.mem[MEM_HBM].capacity_bytes, 80.0 * 1073741824.0, 1e-15);
    assert_rel(s->intra.bw_bytes_per_s, 300e9, 1e-15);
    assert_rel(s->inter.bw_bytes_per_s, 25e9, 1e-15);
    assert_int_equal(s->devices_per_node, 8);
    const Prov *p = prov_find(&t->prov, "device.hbm.bandwidth");
    assert_non_null(p);
    assert_string_equal(p->file, "../templates/devices/a100-sxm4-80gb.yaml");

    /* one device, two parts: the GB300 NVL72 runs the Blackwell Ultra
     * template as it is, the HGX B300 server sets its lower-power part's
     * peaks, memory and power over it (and says where each comes from) */
    t = tdb_get(&db, &param_system_table, "gb300-nvl72", ".", &d);
    assert_non_null(t);
    s = t->obj;
    assert_string_equal(s->device.name, "B300");
    assert_rel(s->device.matrix_flops[PREC_BF16], 2.5e15, 1e-15);
    assert_rel(s->device.matrix_flops[PREC_FP4], 15e15, 1e-15);
    assert_rel(s->device.mem[MEM_HBM].capacity_bytes, 277.0 * 1073741824.0, 1e-15);
    assert_rel(s->device.tdp_w, 1400.0, 1e-15);
    assert_int_equal(s->devices_per_node, 72);
    assert_rel(s->inter.bw_bytes_per_s, 100e9, 1e-15);
    t = tdb_get(&db, &param_system_table, "dgx-b300", ".", &d);
    assert_non_null(t);
    s = t->obj;
    assert_string_equal(s->device.name, "B300");
    assert_rel(s->device.matrix_flops[PREC_BF16], 2.25e15, 1e-15);
    assert_rel(s->device.matrix_flops[PREC_FP8], 4.5e15, 1e-15);
    assert_rel(s->device.matrix_flops[PREC_FP4], 13.5e15, 1e-15);
    assert_rel(s->device.mem[MEM_HBM].capacity_bytes, 270.0 * 1073741824.0, 1e-15);
    assert_rel(s->device.mem[MEM_L2].bw_bytes_per_s, 17.6e12, 1e-15);
    assert_rel(s->device.tdp_w, 1100.0, 1e-15);
    assert_int_equal(s->devices_per_node, 8);
    p = prov_find(&t->prov, "device.peak.bf16");
    assert_non_null(p);
    assert_string_equal(p->file, "../templates/systems/dgx-b300.yaml");
    p = prov_find(&t->prov, "device.sms");
    assert_non_null(p);
    assert_string_equal(p->file, "../templates/devices/b300.yaml");

    /* GH200 nodes of four: the H100's compute with the GH200's 96 GB at
     * 4 TB/s and the module's power; no NVSwitch: a pair of GPUs shares 6
     * NVLinks (150 GB/s), all four reach every GPU's 18 */
    t = tdb_get(&db, &param_system_table, "quad-gh200", ".", &d);
    assert_non_null(t);
    s = t->obj;
    assert_string_equal(s->device.name, "GH200 (H100, 96 GB)");
    assert_rel(s->device.matrix_flops[PREC_BF16], 989.4e12, 1e-15);
    assert_rel(s->device.mem[MEM_HBM].capacity_bytes, 96.0 * 1073741824.0, 1e-15);
    assert_rel(s->device.mem[MEM_HBM].bw_bytes_per_s, 4e12, 1e-15);
    assert_rel(s->device.tdp_w, 680.0, 1e-15);
    assert_int_equal(s->devices_per_node, 4);
    assert_rel(net_group_bw(&s->intra, 2), 150e9, 1e-12);
    assert_rel(net_group_bw(&s->intra, 4), 450e9, 1e-12);
    assert_rel(s->inter.bw_bytes_per_s, 25e9, 1e-15);
    p = prov_find(&t->prov, "device.hbm.bandwidth");
    assert_non_null(p);
    assert_string_equal(p->file, "../templates/systems/quad-gh200.yaml");
    tdb_free(&db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_device_si_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nested_and_dotted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_base_and_provenance, setup, teardown),
        cmocka_unit_test_setup_teardown(test_system_refs_and_provenance, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_device_template, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_key_suggestion, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_unit_and_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_required, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_faults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_base_cycle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_convergence_band, setup, teardown),
        cmocka_unit_test_setup_teardown(test_framework_interval, setup, teardown),
        cmocka_unit_test_setup_teardown(test_model_finish, setup, teardown),
        cmocka_unit_test_setup_teardown(test_model_finish_required, setup, teardown),
        cmocka_unit_test(test_shipped_templates),
        cmocka_unit_test(test_derived_device),
        cmocka_unit_test(test_derive_errors),
        cmocka_unit_test(test_failure_read_once),
        cmocka_unit_test(test_idle_above_tdp),
        cmocka_unit_test(test_fuzz_cut_utf8_at_end),
        cmocka_unit_test(test_template_warning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
