/* tests/test_nccl.c — io/nccltests.h on the real output of each nccl-tests
 * program (tests/data/nccl/, sources in SOURCES.md): the program, ranks,
 * hosts and every row read as printed; bad output refused with its line;
 * the curve a tier gets from them. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "io/nccltests.h"
#include "testutil.h"

static void read_ok(const char *file, NcclRun *r)
{
    Diag d;
    diag_clear(&d);
    const int rc = nccl_read(file, r, &d);
    if (rc)
        print_error("%s: %s\n", file, d.msg);
    assert_int_equal(rc, 0);
}

/* each program, 8 x H100 on one host, 32 MiB to 16 GiB */
static void test_programs(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        Collective coll;
        double first, last; /* out-of-place busbw, GB/s, of the first and last rows */
    } want[] = {
        {"data/nccl/all_reduce_perf.txt", COLL_ALLREDUCE, 321.10, 0},
        {"data/nccl/all_gather_perf.txt", COLL_ALLGATHER, 237.85, 361.86},
        {"data/nccl/reduce_scatter_perf.txt", COLL_REDUCESCATTER, 262.55, 0},
        {"data/nccl/alltoall_perf.txt", COLL_ALLTOALL, 235.28, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        NcclRun r;
        read_ok(want[i].file, &r);
        assert_int_equal(r.coll, want[i].coll);
        assert_int_equal(r.ranks, 8);
        assert_int_equal(r.hosts, 1);
        assert_int_equal(r.n, 10);
        assert_rel(r.size[0], 33554432.0, 0);
        assert_rel(r.size[9], 17179869184.0, 0);
        assert_rel(r.busbw[0], want[i].first * 1e9, 1e-12);
        if (want[i].last > 0)
            assert_rel(r.busbw[9], want[i].last * 1e9, 1e-12);
        for (int k = 1; k < r.n; k++)
            assert_true(r.size[k] == 2 * r.size[k - 1]);
    }
}

static void test_two_hosts(void **state)
{
    (void)state;
    NcclRun r;
    read_ok("data/nccl/alltoall_perf_2nodes.txt", &r);
    assert_int_equal(r.coll, COLL_ALLTOALL);
    assert_int_equal(r.ranks, 16);
    assert_int_equal(r.hosts, 2);
    assert_rel(r.busbw[0], 22.76e9, 1e-12);
}

static void bad(const char *path, const char *text, const char *msg, int line)
{
    NcclRun r;
    Diag d;
    diag_clear(&d);
    assert_int_equal(nccl_parse(path, text, strlen(text), &r, &d), -1);
    assert_string_equal(d.msg, msg);
    assert_int_equal(d.line, line);
}

#define HEAD                                                                                                 \
    "# Collective test starting: all_reduce_perf\n"                                                          \
    "# Using devices\n"                                                                                      \
    "#  Rank  0 Group  0 Pid 1 on a device  0 [0000:1b:00] NVIDIA H100 80GB HBM3\n"                          \
    "#  Rank  1 Group  0 Pid 2 on a device  1 [0000:43:00] NVIDIA H100 80GB HBM3\n"                          \
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   "      \
    "algbw   "                                                                                               \
    "busbw  #wrong\n"

static void test_bad_output(void **state)
{
    (void)state;
    bad("x.txt", HEAD "  1024  256  float  sum  -1  10.0  0.10  0.10  3  10.0  0.10  0.10  0\n",
        "the program found 3 wrong values at 1024 bytes: the measurement is not valid", 6);
    bad("x.txt", HEAD "  1024  256  float  sum  -1  10.0  0.10  0.10  0\n",
        "expected 13 fields as the column names say, found 9", 6);
    bad("x.txt",
        HEAD "  2048  512  float  sum  -1  10.0  0.10  0.10  0  10.0  0.10  0.10  0\n"
             "  1024  256  float  sum  -1  10.0  0.10  0.10  0  10.0  0.10  0.10  0\n",
        "sizes must increase (1024 after 2048)", 7);
    bad("x.txt", HEAD "  1024  256  float  sum  -1  10.0  0.10  fast  0  10.0  0.10  0.10  0\n",
        "column 'busbw': expected GB/s, found 'fast'", 6);
    bad("x.txt", "  1024  256  float  sum  -1  10.0  0.10  0.10  0\n",
        "a measurement before the column names ('#  size  count  type ... busbw'): not the output of "
        "nccl-tests",
        1);
    const char *named = strchr(HEAD, '\n') + 1; /* no program line */
    bad("run.txt", named,                       /* and none in the file's name */
        "no '# Collective test starting: PROGRAM' line and no program in the file's name: name the file "
        "after "
        "the program (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf)",
        0);
    NcclRun r;
    Diag d;
    assert_int_equal(nccl_parse("logs/all_gather_perf.log", named, strlen(named), &r, &d), -1);
    assert_string_equal(d.msg, "all_gather_perf: no measurement lines"); /* named by the file */
}

static void test_curve(void **state)
{
    (void)state;
    NcclRun r[2];
    read_ok("data/nccl/all_reduce_perf.txt", &r[0]);
    read_ok("data/nccl/all_gather_perf.txt", &r[1]);
    Points c;
    double plateau;
    int ranks;
    Diag d;
    assert_int_equal(nccl_curve(r, 2, 450e9, &c, &plateau, &ranks, &d), 0);
    assert_int_equal(ranks, 8);
    /* all_gather's 32 MiB moves as many bytes a rank as a 16 MiB all-reduce */
    assert_rel(c.x[0], 16777216.0, 0);
    assert_rel(c.y[0], 237.85e9 / 450e9, 1e-12);
    /* 32 MiB: both programs measured it, their mean */
    assert_rel(c.x[1], 33554432.0, 0);
    for (int i = 1; i < c.n; i++)
        assert_true(c.x[i] > c.x[i - 1]);
    assert_int_equal(c.n, 11);
    double mx = 0;
    for (int i = 0; i < c.n; i++)
        mx = fmax(mx, c.y[i]);
    assert_rel(plateau, mx, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_programs),
        cmocka_unit_test(test_two_hosts),
        cmocka_unit_test(test_bad_output),
        cmocka_unit_test(test_curve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
