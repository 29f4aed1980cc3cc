/* tests/test_sweep.c — sweep cells (io/sweep.c): lists, geometric and
 * arithmetic ranges, their faults with the exact reason, and the cartesian
 * expansion of a row with its order and name suffixes. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "io/sweep.h"
#include "io/table.h"

/* The values of `cell` joined with ' ', e.g. "8 16 32". */
static void values_ok(const char *cell, const char *want, int nwant)
{
    char **v;
    int n;
    char err[256] = "";
    int rc = sweep_values(cell, &v, &n, err, sizeof err);
    if (rc != 0)
        print_error("'%s': %s\n", cell, err);
    assert_int_equal(rc, 0);
    assert_int_equal(n, nwant);
    char got[4096] = "";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof got; i++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", i ? " " : "", v[i]);
    assert_string_equal(got, want);
    sweep_free_values(v, n);
}

static void values_fail(const char *cell, const char *reason)
{
    char **v = (char **)1;
    int n = 7;
    char err[256] = "";
    assert_int_equal(sweep_values(cell, &v, &n, err, sizeof err), -1);
    assert_null(v);
    assert_int_equal(n, 0);
    assert_string_equal(err, reason);
}

static void test_not_a_sweep(void **state)
{
    (void)state;
    values_ok("64", "64", 1);
    values_ok("", "", 1);
    values_ok("h100-sxm", "h100-sxm", 1);
    values_ok("../systems/x.yaml", "../systems/x.yaml", 1);
    values_ok("a..b*2", "a..b*2", 1);
    values_ok("3.35 TB/s", "3.35 TB/s", 1);
    assert_false(sweep_is_sweep("64"));
    assert_false(sweep_is_sweep("../x.yaml"));
    assert_true(sweep_is_sweep("8|16"));
    assert_true(sweep_is_sweep("8..64*2"));
    assert_true(sweep_is_sweep("-1..1+1"));
}

static void test_list(void **state)
{
    (void)state;
    values_ok("8|16|32", "8 16 32", 3);
    values_ok(" 1 TB/s | 2 TB/s|3.35 TB/s ", "1 TB/s 2 TB/s 3.35 TB/s", 3);
    values_ok("DP only|Hybrid", "DP only Hybrid", 2);
    values_ok("8..16*2|x", "8..16*2 x", 2); /* list items are text */
}

static void test_geometric(void **state)
{
    (void)state;
    values_ok("8..1024*2", "8 16 32 64 128 256 512 1024", 8);
    values_ok("1..10*3", "1 3 9", 3);
    values_ok("64..64*2", "64", 1);
    values_ok(" 0.5 .. 4 * 2 ", "0.5 1 2 4", 4);
    values_ok("0.1..0.8*2", "0.1 0.2 0.4 0.8", 4);
    values_ok("1e3..1e5*10", "1000 10000 100000", 3);
    values_ok("1..1e+2*10", "1 10 100", 3);
    values_ok("1000000..4000000*2", "1000000 2000000 4000000", 3);
    values_ok("1..2*1.5", "1 1.5", 2);
}

static void test_arithmetic(void **state)
{
    (void)state;
    values_ok("1..4+1", "1 2 3 4", 4);
    values_ok("0..1+0.25", "0 0.25 0.5 0.75 1", 5);
    values_ok("0..0.3+0.1", "0 0.1 0.2 0.3", 4);
    values_ok("-2..2+2", "-2 0 2", 3);
    values_ok("1..10+4", "1 5 9", 3);
    /* large values: every one kept, none snapped onto the end */
    values_ok("1000000000..1000000003+1", "1000000000 1000000001 1000000002 1000000003", 4);
    values_ok("1000000000000..1000000000002+1", "1000000000000 1000000000001 1000000000002", 3);
}

static void test_errors(void **state)
{
    (void)state;
    values_fail("8..64*1", "the factor must be greater than 1, got 1");
    values_fail("8..64*0.5", "the factor must be greater than 1, got 0.5");
    values_fail("1..4+0", "the step must be greater than 0, got 0");
    values_fail("1..4+-1", "the step must be greater than 0, got -1");
    values_fail("64..8*2", "the end 8 is less than the start 64");
    values_fail("0..8*2", "a geometric range needs a start greater than 0, got 0");
    values_fail("8||16", "empty item 2 in the list");
    values_fail("8|16|", "empty item 3 in the list");
    values_fail("|", "empty item 1 in the list");
    values_fail("1..100000+1", "more than 10000 values");
    values_fail("1..1e300*1.0001", "more than 10000 values");
    values_fail("8..64",
                "a range needs '*factor' (geometric, e.g. 8..1024*2) or '+step' (arithmetic, e.g. 1..4+1)");
    values_fail("8..x*2", "range end 'x' is not a plain number (units are allowed only in a list, e.g. "
                          "'1 TB/s|2 TB/s')");
    values_fail("1 TB/s..4 TB/s*2", "range start '1 TB/s' is not a plain number (units are allowed only in a "
                                    "list, e.g. '1 TB/s|2 TB/s')");
    values_fail("1..4 TB/s*2", "range end '4 TB/s' is not a plain number (units are allowed only in a list, "
                               "e.g. '1 TB/s|2 TB/s')");
    values_fail("1..4*two", "factor 'two' is not a plain number");
    values_fail("1..4+", "step '' is not a plain number");
    values_fail("1e999..2*2", "range start '1e999' is out of range");

    /* 10001 list items */
    size_t n = (size_t)10001 * 2;
    char *cell = malloc(n);
    assert_non_null(cell);
    for (size_t i = 0; i < n; i += 2) {
        cell[i] = '1';
        cell[i + 1] = '|';
    }
    cell[n - 1] = '\0';
    values_fail(cell, "more than 10000 values");
    cell[2 * 10000 - 1] = '\0'; /* 10000 items: fine */
    char **v;
    int nv;
    assert_int_equal(sweep_values(cell, &v, &nv, NULL, 0), 0);
    assert_int_equal(nv, 10000);
    sweep_free_values(v, nv);
    free(cell);
}

static void test_many_values(void **state)
{
    (void)state;
    char **v;
    int n;
    assert_int_equal(sweep_values("1..10000+1", &v, &n, NULL, 0), 0);
    assert_int_equal(n, 10000);
    assert_string_equal(v[0], "1");
    assert_string_equal(v[9999], "10000");
    sweep_free_values(v, n);
    sweep_free_values(NULL, 0);
}

static void parse_ok(const char *csv, Table *t)
{
    Diag d;
    assert_int_equal(table_parse("t.csv", csv, strlen(csv), t, &d), 0);
}

static void test_expand_product(void **state)
{
    (void)state;
    Table t;
    parse_ok("scenario,devices,system,tp,pp\n"
             "gpt,64..256*2,h100,4|8,1\n"
             "plain,8,a100,1,1\n",
             &t);
    SweepRow *rows;
    int n;
    Diag d;
    assert_int_equal(sweep_expand_row(&t, &t.row[0], &rows, &n, &d), 0);
    assert_int_equal(n, 6);
    static const char *const want[6][3] = {
        {"64", "4", "devices=64,tp=4"},   {"64", "8", "devices=64,tp=8"},   {"128", "4", "devices=128,tp=4"},
        {"128", "8", "devices=128,tp=8"}, {"256", "4", "devices=256,tp=4"}, {"256", "8", "devices=256,tp=8"},
    };
    for (int i = 0; i < n; i++) {
        assert_string_equal(rows[i].val[0], "gpt");
        assert_string_equal(rows[i].val[1], want[i][0]);
        assert_string_equal(rows[i].val[2], "h100");
        assert_string_equal(rows[i].val[3], want[i][1]);
        assert_string_equal(rows[i].val[4], "1");
        assert_string_equal(rows[i].suffix, want[i][2]);
    }
    /* rows may be reordered before they are freed */
    SweepRow tmp = rows[0];
    rows[0] = rows[5];
    rows[5] = tmp;
    assert_string_equal(rows[0].suffix, "devices=256,tp=8");
    sweep_free_rows(rows, n, t.ncol);

    assert_int_equal(sweep_expand_row(&t, &t.row[1], &rows, &n, &d), 0);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].suffix, "");
    assert_string_equal(rows[0].val[1], "8");
    sweep_free_rows(rows, n, t.ncol);
    sweep_free_rows(NULL, 0, 0);
    table_free(&t);
}

/* Free-text columns (scenario, series, baseline) are never sweeps: 'a|b'
 * and '1..3' there are one literal value each. */
static void test_text_columns_literal(void **state)
{
    (void)state;
    Table t;
    parse_ok("Scenario,series,baseline,tp\n"
             "a|b,1..3,x|y,1|2\n",
             &t);
    SweepRow *rows;
    int n;
    Diag d;
    assert_int_equal(sweep_expand_row(&t, &t.row[0], &rows, &n, &d), 0);
    assert_int_equal(n, 2);
    for (int i = 0; i < n; i++) {
        assert_string_equal(rows[i].val[0], "a|b");
        assert_string_equal(rows[i].val[1], "1..3");
        assert_string_equal(rows[i].val[2], "x|y");
    }
    assert_string_equal(rows[1].val[3], "2");
    assert_string_equal(rows[1].suffix, "tp=2");
    sweep_free_rows(rows, n, t.ncol);
    table_free(&t);
}

static void test_expand_errors(void **state)
{
    (void)state;
    Table t;
    parse_ok("scenario,devices,tp\n"
             "a, 8..x*2 ,1\n"
             "b,1..1000+1,1..1000+1|2\n"
             "c,1..1000+1,1..10+1|20\n"
             "d,1..1000+1,1..1001+1\n"
             "e,1,2,3\n",
             &t);
    SweepRow *rows = (SweepRow *)1;
    int n = 5;
    Diag d;
    char buf[600];
    assert_int_equal(sweep_expand_row(&t, &t.row[0], &rows, &n, &d), -1);
    assert_null(rows);
    assert_int_equal(n, 0);
    diag_format(&d, buf, sizeof buf);
    assert_string_equal(buf, "t.csv:2:4: column 'devices': bad sweep '8..x*2': range end 'x' is not a plain "
                             "number (units are allowed only in a list, e.g. '1 TB/s|2 TB/s')");
    /* a list item is text: "1..1000+1" is one value of tp */
    assert_int_equal(sweep_expand_row(&t, &t.row[1], &rows, &n, &d), 0);
    assert_int_equal(n, 2000);
    assert_string_equal(rows[1999].suffix, "devices=1000,tp=2");
    assert_string_equal(rows[0].val[2], "1..1000+1");
    sweep_free_rows(rows, n, t.ncol);
    assert_int_equal(sweep_expand_row(&t, &t.row[2], &rows, &n, &d), 0);
    assert_int_equal(n, 2000);
    assert_string_equal(rows[1].suffix, "devices=1,tp=20");
    sweep_free_rows(rows, n, t.ncol);
    assert_int_equal(sweep_expand_row(&t, &t.row[3], &rows, &n, &d), -1);
    diag_format(&d, buf, sizeof buf);
    assert_string_equal(buf, "t.csv:5: the sweeps of this row give more than 1000000 scenarios");
    /* a row with an error gives that error */
    assert_int_equal(sweep_expand_row(&t, &t.row[4], &rows, &n, &d), -1);
    diag_format(&d, buf, sizeof buf);
    assert_string_equal(buf, "t.csv:6:7: row has 4 fields, the header has 3");
    table_free(&t);
}

static void test_long_suffix(void **state)
{
    (void)state;
    Table t;
    char csv[1024];
    snprintf(csv, sizeof csv, "name,%s,b\nx,\xc3\xa9%s|z,1|2\n", "a_very_long_column_name_for_the_suffix",
             "01234567890123456789012345678901234567890123456789"
             "01234567890123456789012345678901234567890123456789"
             "01234567890123456789012345678901234567890123456789"
             "01234567890123456789012345678901234567890123456789"
             "01234567890123456789012345678901234567890123456789");
    parse_ok(csv, &t);
    SweepRow *rows;
    int n;
    Diag d;
    assert_int_equal(sweep_expand_row(&t, &t.row[0], &rows, &n, &d), 0);
    assert_int_equal(n, 4);
    size_t len = strlen(rows[0].suffix);
    assert_true(len < SWEEP_SUFFIX_MAX);
    assert_true(len > SWEEP_SUFFIX_MAX - 8);
    assert_string_equal(rows[0].suffix + len - 3, "...");
    assert_string_equal(rows[2].suffix, "a_very_long_column_name_for_the_suffix=z,b=1");
    sweep_free_rows(rows, n, t.ncol);
    table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_a_sweep),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_geometric),
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_many_values),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_expand_product),
        cmocka_unit_test(test_expand_errors),
        cmocka_unit_test(test_text_columns_literal),
        cmocka_unit_test(test_long_suffix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
