/* tests/test_report.c — the report writers' pieces: SHA-256 against the
 * FIPS 180-4 / NIST test vectors, number formatting, sheet-name
 * sanitising, the formula-injection guard, cell-text cleaning, --formats,
 * the document date, best-per-series selection, and the workbook and chart
 * writers on a small synthetic run (atomic: no file, no temporary, on
 * failure). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#include "core/param.h"
#include "core/sha256.h"
#include "core/strategy.h"
#include "report/columns.h"
#include "report/report.h"

/* ---- SHA-256 ------------------------------------------------------------ */

static void test_sha256_vectors(void **state)
{
    (void)state;
    char hex[SHA256_HEX_LEN];
    sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two =
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 448 bits: padding spills */
    sha256_hex(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_sha256_incremental(void **state)
{
    (void)state;
    /* one million 'a' (FIPS 180-2 appendix B.3), fed in uneven pieces */
    char chunk[997];
    memset(chunk, 'a', sizeof chunk);
    Sha256 s;
    sha256_init(&s);
    size_t left = 1000000, k = 1;
    while (left) {
        size_t take = k % sizeof chunk + 1;
        if (take > left)
            take = left;
        sha256_update(&s, chunk, take);
        left -= take;
        k = k * 7 + 3;
    }
    uint8_t d[SHA256_DIGEST_LEN];
    char hex[SHA256_HEX_LEN];
    sha256_final(&s, d);
    sha256_to_hex(d, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* 55 and 56 bytes: the length fits / does not fit in the last block */
    char buf[64];
    memset(buf, 'a', sizeof buf);
    sha256_hex(buf, 55, hex);
    assert_string_equal(hex, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    sha256_hex(buf, 56, hex);
    assert_string_equal(hex, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}

/* ---- numbers and formats ------------------------------------------------- */

static void test_number_formatting(void **state)
{
    (void)state;
    char b[64];
    rpt_number(b, sizeof b, NAN);
    assert_string_equal(b, "");
    rpt_number(b, sizeof b, INFINITY);
    assert_string_equal(b, "");
    rpt_number(b, sizeof b, -INFINITY);
    assert_string_equal(b, "");
    rpt_number(b, sizeof b, 0.5);
    assert_string_equal(b, "0.5");
    rpt_number(b, sizeof b, 1234567.0);
    assert_string_equal(b, "1.23457e+06");
    rpt_number(b, sizeof b, 4096);
    assert_string_equal(b, "4096");

    assert_string_equal(rpt_num_format(RC_NUM, RF_PERCENT), "0.0%");
    assert_string_equal(rpt_num_format(RC_NUM, RF_DAYS), "[<0.1]0.0000;[<10]0.00;#,##0.0");
    assert_string_equal(rpt_num_format(RC_NUM, RF_GIB), "0.0");
    assert_string_equal(rpt_num_format(RC_NUM, RF_WATTS), "#,##0");
    assert_string_equal(rpt_num_format(RC_NUM, RF_KWH), "#,##0");
    assert_string_equal(rpt_num_format(RC_INT, RF_PLAIN), "#,##0");
    assert_string_equal(rpt_num_format(RC_TEXT, RF_PLAIN), "@");
    /* every percentage column of the summary gets the % format */
    int pct = 0;
    for (int i = 0; i < report_ncols; i++)
        if (!strcmp(report_cols[i].name, "mfu") || !strcmp(report_cols[i].name, "hfu") ||
            !strcmp(report_cols[i].name, "scaling_efficiency")) {
            assert_string_equal(rpt_num_format(report_cols[i].type, report_cols[i].format), "0.0%");
            pct++;
        }
    assert_int_equal(pct, 3);

    char l[8];
    rpt_col_letters(0, l);
    assert_string_equal(l, "A");
    rpt_col_letters(25, l);
    assert_string_equal(l, "Z");
    rpt_col_letters(26, l);
    assert_string_equal(l, "AA");
    rpt_col_letters(27, l);
    assert_string_equal(l, "AB");
    rpt_col_letters(701, l);
    assert_string_equal(l, "ZZ");
    rpt_col_letters(702, l);
    assert_string_equal(l, "AAA");
}

static void test_parse_formats(void **state)
{
    (void)state;
    unsigned f;
    char err[200];
    assert_int_equal(rpt_parse_formats("xlsx,csv,png,svg", &f, err, sizeof err), 0);
    assert_int_equal(f, RPT_ALL);
    assert_int_equal(rpt_parse_formats("csv", &f, err, sizeof err), 0);
    assert_int_equal(f, RPT_CSV);
    assert_int_equal(rpt_parse_formats("SVG, xlsx", &f, err, sizeof err), 0);
    assert_int_equal(f, RPT_SVG | RPT_XLSX);
    assert_int_equal(rpt_parse_formats("all", &f, err, sizeof err), 0);
    assert_int_equal(f, RPT_ALL);
    assert_int_equal(rpt_parse_formats("xlsx,pdf", &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "'pdf'"));
    assert_int_equal(rpt_parse_formats("", &f, err, sizeof err), -1);
    assert_int_equal(rpt_parse_formats("csv,", &f, err, sizeof err), -1);
}

/* ---- text going into the workbook ---------------------------------------- */

static void test_sheet_names(void **state)
{
    (void)state;
    char b[128];
    rpt_sheet_name("a[b]:c*d?e/f\\g", b, sizeof b);
    assert_string_equal(b, "a_b__c_d_e_f_g");
    rpt_sheet_name("", b, sizeof b);
    assert_string_equal(b, "Sheet");
    rpt_sheet_name("'''", b, sizeof b);
    assert_string_equal(b, "Sheet");
    rpt_sheet_name("'quoted'", b, sizeof b);
    assert_string_equal(b, "quoted");
    rpt_sheet_name("History", b, sizeof b);
    assert_string_equal(b, "History_");
    rpt_sheet_name("Summary", b, sizeof b);
    assert_string_equal(b, "Summary");
    /* 31 characters at most, counted as characters, never cut inside one */
    rpt_sheet_name("abcdefghijklmnopqrstuvwxyz0123456789", b, sizeof b);
    assert_string_equal(b, "abcdefghijklmnopqrstuvwxyz01234");
    rpt_sheet_name("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
                   "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
                   "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
                   "\xC3\xA9\xC3\xA9\xC3\xA9",
                   b, sizeof b);
    assert_int_equal(strlen(b), 62); /* 31 x 2 bytes */
    rpt_sheet_name("line\nbreak", b, sizeof b);
    assert_string_equal(b, "line_break");
}

static void test_formula_guard(void **state)
{
    (void)state;
    assert_true(rpt_formula_like("=1+1"));
    assert_true(rpt_formula_like("@SUM(A1)"));
    assert_true(rpt_formula_like("+plus"));
    assert_true(rpt_formula_like("-neg"));
    assert_true(rpt_formula_like("  =HYPERLINK(\"x\")"));
    assert_false(rpt_formula_like("a=b"));
    assert_false(rpt_formula_like("1+1"));
    assert_false(rpt_formula_like(""));
    /* cleaning keeps such text as it is: it goes in as a string, unchanged */
    char b[64];
    rpt_clean_text("=1+1", b, sizeof b);
    assert_string_equal(b, "=1+1");
    rpt_clean_text("@SUM(A1)", b, sizeof b);
    assert_string_equal(b, "@SUM(A1)");
}

static void test_clean_text(void **state)
{
    (void)state;
    char b[64];
    rpt_clean_text("tab\there\nnewline", b, sizeof b);
    assert_string_equal(b, "tab\there\nnewline");
    rpt_clean_text("bell\a esc\x1b del\x7f", b, sizeof b);
    assert_string_equal(b, "bell  esc  del ");
    rpt_clean_text("bad \xff byte", b, sizeof b);
    assert_string_equal(b, "bad \xEF\xBF\xBD byte");
    rpt_clean_text("overlong \xC0\xAF", b, sizeof b);
    assert_string_equal(b, "overlong \xEF\xBF\xBD\xEF\xBF\xBD");
    rpt_clean_text("surrogate \xED\xA0\x80!", b, sizeof b);
    assert_string_equal(b, "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD!");
    rpt_clean_text("caf\xC3\xA9", b, sizeof b);
    assert_string_equal(b, "caf\xC3\xA9");
    /* cut on a character boundary */
    char s[5];
    assert_int_equal(rpt_clean_text("ab\xC3\xA9", s, 4), 2);
    assert_string_equal(s, "ab");
    /* Excel's limit of 32767 characters */
    size_t big = 40000;
    char *in = malloc(big + 1), *out = malloc(big + 1);
    assert_non_null(in);
    assert_non_null(out);
    memset(in, 'x', big);
    in[big] = '\0';
    assert_int_equal(rpt_clean_text(in, out, big + 1), 32767);
    free(in);
    free(out);

    char q[64];
    rpt_gp_quote("it's\na_b", q, sizeof q);
    assert_string_equal(q, "it''s a_b");
}

/* ---- a synthetic run ----------------------------------------------------- */

static void fill_row(RunRow *rr, const char *name, const char *series, int devices, Status st,
                     double ttt_days)
{
    memset(rr, 0, sizeof *rr);
    rr->built = 1;
    rr->line = 2;
    snprintf(rr->sc.name, sizeof rr->sc.name, "%s", name);
    snprintf(rr->sc.series, sizeof rr->sc.series, "%s", series);
    snprintf(rr->sc.system.name, sizeof rr->sc.system.name, "sys");
    snprintf(rr->sc.model.name, sizeof rr->sc.model.name, "model");
    rr->sc.system.price_per_device_hour = 2.0;
    rr->sc.devices = devices;
    rr->r.status = st;
    rr->r.st.tp = 1;
    rr->r.st.pp = 1;
    rr->r.st.dp = devices;
    rr->r.st.microbatch = 1;
    rr->r.step_time_s = 1.0;
    rr->r.samples_per_s = devices;
    rr->r.time_to_train_s = ttt_days * 86400.0;
    rr->r.mfu = 0.4;
    rr->r.hfu = 0.5;
    rr->r.scaling_efficiency = NAN; /* never a number in the workbook */
    rr->r.system_power_w = 1000.0 * devices;
    rr->r.energy_to_train_j = rr->r.system_power_w * rr->r.time_to_train_s;
    rr->r.energy_per_step_j = INFINITY;
    for (int c = 0; c < COMP_COUNT; c++)
        rr->r.comp_time_s[c] = 0.1;
    rr->r.comp_energy_j[0] = NAN;
}

/* The convergence column: measured or extrapolated, and whose curve. */
static void test_convergence_column(void **state)
{
    (void)state;
    RunRow rr;
    fill_row(&rr, "x", "S", 8, STATUS_OK, 1.0);
    int col = -1;
    for (int i = 0; i < report_ncols; i++)
        if (!strcmp(report_cols[i].name, "convergence"))
            col = i;
    assert_true(col >= 0);
    char t[128];
    double v;
    rr.r.conv_extrapolated = -1;
    report_value(col, &rr, &v, t, sizeof t);
    assert_string_equal(t, "");
    rr.r.conv_extrapolated = 0;
    report_value(col, &rr, &v, t, sizeof t);
    assert_string_equal(t, "measured");
    snprintf(rr.sc.model.convergence.measured_model, NAME_MAX_LEN, "ResNet-50");
    rr.r.conv_extrapolated = 1;
    report_value(col, &rr, &v, t, sizeof t);
    assert_string_equal(t, "extrapolated; curve of ResNet-50");
    snprintf(rr.sc.model.name, sizeof rr.sc.model.name, "ResNet-50");
    report_value(col, &rr, &v, t, sizeof t);
    assert_string_equal(t, "extrapolated");
}

/* n runners-up for rr: its strategy, rank k taking 1 + k times its time
 * to train at 1 + k samples a second. */
static void with_top(RunRow *rr, Candidate *top, int n)
{
    memset(top, 0, sizeof *top * (size_t)n);
    for (int k = 0; k < n; k++) {
        top[k].st = rr->r.st;
        top[k].merit.time_to_train_s = rr->r.time_to_train_s * (1 + k);
        top[k].merit.samples_per_s = 1 + k;
    }
    rr->top = top;
    rr->ntop = n;
}

/* Every summary and runners-up column has a reader (report_value never
 * falls through to "unknown"), and answers with its declared type. */
static void test_every_column_read(void **state)
{
    (void)state;
    RunRow rr;
    fill_row(&rr, "row", "A", 64, STATUS_OK, 20);
    Candidate top[1];
    with_top(&rr, top, 1);
    char t[512];
    double v;
    for (int i = 0; i < report_ncols; i++) {
        const int kind = report_value(i, &rr, &v, t, sizeof t);
        if (kind == -1)
            print_error("column '%s' has no reader\n", report_cols[i].name);
        assert_int_equal(kind, report_cols[i].type == RC_TEXT ? 0 : 1);
        if (!rpt_col_label(report_cols[i].name))
            print_error("column '%s' has no workbook header\n", report_cols[i].name);
        assert_non_null(rpt_col_label(report_cols[i].name));
    }
    for (int i = 0; i < runner_ncols; i++) {
        const int kind = runner_value(i, &rr, 0, &v, t, sizeof t);
        if (kind == -1)
            print_error("runner column '%s' has no reader\n", runner_cols[i].name);
        assert_int_equal(kind, runner_cols[i].type == RC_TEXT ? 0 : 1);
        assert_non_null(rpt_col_label(runner_cols[i].name));
    }
}

/* What the per-scenario sheets show of a row (RptDetail) reads back from
 * its file as it was made: numbers bit for bit (NaN and infinity too),
 * texts, the runners-up; the end of the file and a record this program
 * did not write are refused. */
static void test_detail_file(void **state)
{
    (void)state;
    RunRow rr;
    fill_row(&rr, "row \"1\"", "A", 64, STATUS_OK, 20);
    Candidate top[2];
    with_top(&rr, top, 2);
    RptDetail *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(rpt_detail_of(&rr, a), 0);
    assert_true(a->evaluated);
    assert_int_equal(a->ncol, report_ncols);
    assert_int_equal(a->ntop, 2);
    assert_int_equal(a->ndesign, 0);
    assert_string_equal(rpt_detail_text(a, a->name), "row \"1\"");
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(rpt_detail_write(f, a), 0);
    assert_int_equal(rpt_detail_write(f, a), 0);
    rewind(f);
    for (int rec = 0; rec < 2; rec++) {
        assert_int_equal(rpt_detail_read(f, b), 0);
        assert_int_equal(b->evaluated, a->evaluated);
        assert_memory_equal(&b->step_time_s, &a->step_time_s, sizeof a->step_time_s);
        assert_memory_equal(&b->energy_per_step_j, &a->energy_per_step_j, sizeof a->energy_per_step_j);
        assert_memory_equal(b->comp_time_s, a->comp_time_s, sizeof a->comp_time_s);
        assert_memory_equal(b->comp_energy_j, a->comp_energy_j, sizeof a->comp_energy_j);
        assert_string_equal(rpt_detail_text(b, b->name), rpt_detail_text(a, a->name));
        assert_string_equal(rpt_detail_text(b, b->series), "A");
        assert_int_equal(b->ncol, a->ncol);
        for (int i = 0; i < a->ncol; i++) {
            assert_int_equal(b->text_at[i] < 0, a->text_at[i] < 0);
            if (a->text_at[i] < 0)
                assert_memory_equal(&b->num[i], &a->num[i], sizeof a->num[i]);
            else
                assert_string_equal(rpt_detail_text(b, b->text_at[i]), rpt_detail_text(a, a->text_at[i]));
        }
        assert_int_equal(b->ntop, 2);
        assert_int_equal(b->ntopcol, a->ntopcol);
        for (int j = 0; j < a->ntop * a->ntopcol; j++) {
            assert_int_equal(b->top_text[j] < 0, a->top_text[j] < 0);
            if (a->top_text[j] < 0)
                assert_memory_equal(&b->top_num[j], &a->top_num[j], sizeof a->top_num[j]);
            else
                assert_string_equal(rpt_detail_text(b, b->top_text[j]), rpt_detail_text(a, a->top_text[j]));
        }
    }
    assert_int_equal(rpt_detail_read(f, b), -1); /* the end */
    rewind(f);
    const int wrong[8] = {1, 0, 0, RPT_DETAIL_COLS + 1, 0, 0, 0, 0};
    assert_int_equal(fwrite(wrong, sizeof wrong, 1, f), 1);
    rewind(f);
    assert_int_equal(rpt_detail_read(f, b), -1); /* not a record of ours */
    fclose(f);
    rpt_detail_free(a);
    rpt_detail_free(b);
    free(a);
    free(b);
}

/* The axis table (core/types.h's STRATEGY_AXES) reaches every place that
 * names an axis: iterate it, set every axis off its default, and read each
 * place back: the scenario table's row, the summary's and the runners-up's
 * column and its reader, the workbook's header, the eval printout
 * (strategy_describe) and the Summary's strategy cell (its brief form),
 * the accessors and the search's auto mask. */
static void test_strategy_axes(void **state)
{
    (void)state;
    RunRow rr;
    fill_row(&rr, "row", "A", 64, STATUS_OK, 20);
    Strategy *st = &rr.r.st;
    for (int a = 0; a < AXIS_COUNT; a++) {
        const AxisInfo *ax = &strategy_axes[a];
        const int v = ax->ptype == P_BOOL ? 1 : ax->ptype == P_ENUM ? 1 : (int)ax->def + 2;
        strategy_set(st, (StrategyAxis)a, v);
        assert_int_equal(strategy_get(st, (StrategyAxis)a), v);
    }
    st->recompute = RECOMPUTE_FULL; /* off the default too, and the layers recomputed apply */
    Candidate top[1];
    memset(top, 0, sizeof top);
    top[0].st = *st;
    top[0].merit.samples_per_s = 1;
    rr.top = top;
    rr.ntop = 1;
    char full[1024], brief[1024], want[96], t[256], v[32];
    strategy_describe(st, 0, full, sizeof full);
    strategy_describe(st, 1, brief, sizeof brief);
    for (int a = 0; a < AXIS_COUNT; a++) {
        const AxisInfo *ax = &strategy_axes[a];
        const ParamDef *def = param_find(&param_scenario_table, ax->name, NULL, NULL);
        assert_non_null(def);
        assert_int_equal(def->auto_ok, 1);
        assert_int_equal((int)def->type, ax->ptype);
        assert_string_equal(def->help, ax->help);
        assert_string_equal(report_cols[REPORT_AXIS0 + a].name, ax->name);
        assert_string_equal(runner_cols[RUNNER_AXIS0 + a].name, ax->name);
        assert_string_equal(rpt_col_label(ax->name), ax->label);
        assert_int_equal(strategy_axis_find(ax->name), a);
        strategy_value_text((StrategyAxis)a, strategy_get(st, (StrategyAxis)a), v, sizeof v);
        snprintf(want, sizeof want, "%s %s", ax->name, v);
        if (!strstr(full, want))
            print_error("'%s' not in the printout '%s'\n", want, full);
        assert_non_null(strstr(full, want));
        snprintf(want, sizeof want, "%s %s", ax->abbr, v);
        assert_non_null(strstr(brief, want));
        double num;
        const int rk = report_value(REPORT_AXIS0 + a, &rr, &num, t, sizeof t);
        if (rk == 1)
            snprintf(t, sizeof t, "%.0f", num);
        assert_string_equal(t, v);
        const int uk = runner_value(RUNNER_AXIS0 + a, &rr, 0, &num, t, sizeof t);
        if (uk == 1)
            snprintf(t, sizeof t, "%.0f", num);
        assert_string_equal(t, v);
        Strategy open = *st;
        strategy_set(&open, (StrategyAxis)a, AUTO_VALUE);
        assert_int_equal(strategy_auto_mask(&open), ax->walk >= 0 ? 1u << a : 0u);
    }
}

/* The recommendation: the cheapest row that meets its deadline, budget and
 * power budget; the sentence says so with numbers; none meets: why. */
static void test_recommendation(void **state)
{
    (void)state;
    Run run;
    memset(&run, 0, sizeof run);
    RunRow rows[3];
    fill_row(&rows[0], "slow", "A", 64, STATUS_OK, 40);  /* misses the deadline */
    fill_row(&rows[1], "mid", "A", 128, STATUS_OK, 20);  /* meets, cheaper */
    fill_row(&rows[2], "fast", "B", 512, STATUS_OK, 10); /* meets, dearer */
    for (int i = 0; i < 3; i++) {
        rows[i].r.cost_usd = 2.0 * rows[i].sc.devices * rows[i].r.time_to_train_s / 3600.0;
        rows[i].r.energy_to_train_j = rows[i].r.system_power_w * rows[i].r.time_to_train_s;
        rows[i].r.interval_lo = 0.9;
        rows[i].r.interval_hi = 1.2;
        rows[i].sc.deadline_s = 30 * 86400.0;
        rows[i].sc.budget_usd = 1e6;
    }
    run.row = rows;
    run.n = 3;
    char buf[2048];
    assert_int_equal(rpt_recommend(&run, buf, sizeof buf), 1);
    assert_non_null(
        strstr(buf, "Recommended for model: A on 128 devices: 20 days (18 days to 24 days), $123 k"));
    assert_non_null(strstr(buf, "a deadline of 30 days, a budget of $1 M"));
    assert_non_null(strstr(buf, "Fastest within the constraints: B on 512 devices: 10 days"));
    /* a budget nothing meets */
    for (int i = 0; i < 3; i++)
        rows[i].sc.budget_usd = 1000;
    assert_int_equal(rpt_recommend(&run, buf, sizeof buf), -1);
    assert_string_equal(
        buf, "No model scenario meets a deadline of 30 days, a budget of $1 k: relax a constraint or widen "
             "the sweep.");
    /* rows judged by constraints of their own: the sentence quotes the
     * recommended row's, never the first row's */
    rows[0].sc.deadline_s = 1 * 3600.0;
    rows[0].sc.budget_usd = 1;
    rows[1].sc.budget_usd = 1e6;
    rows[2].sc.budget_usd = 1e6;
    assert_int_equal(rpt_recommend(&run, buf, sizeof buf), 1);
    assert_non_null(strstr(buf,
                           "The cheapest scenario that meets its own row's constraints (a deadline of 30 "
                           "days, a budget of $1 M)."));
    assert_null(strstr(buf, "60 minutes"));
    for (int i = 0; i < 3; i++)
        rows[i].sc.budget_usd = 1; /* none meets its own */
    assert_int_equal(rpt_recommend(&run, buf, sizeof buf), -1);
    assert_string_equal(
        buf, "No model scenario meets its own row's constraints: relax a constraint or widen the sweep.");
}

/* One decision per model and amount of training (issue 27): a
 * recommendation never crosses models; a study that asks nothing names
 * the cheapest and the fastest without recommending; a system without a
 * price is named with why, not dropped in silence. */
static void test_recommendation_per_model(void **state)
{
    (void)state;
    Run run;
    memset(&run, 0, sizeof run);
    RunRow rows[5];
    fill_row(&rows[0], "a1", "A", 64, STATUS_OK, 20);
    fill_row(&rows[1], "a2", "A", 128, STATUS_OK, 12);
    fill_row(&rows[2], "b1", "B", 64, STATUS_OK, 5);  /* another model: faster, never A's answer */
    fill_row(&rows[3], "g1", "G", 256, STATUS_OK, 2); /* model's fastest, but no price */
    fill_row(&rows[4], "a3", "A", 64, STATUS_OK, 40); /* model, but another amount of training */
    snprintf(rows[2].sc.model.name, sizeof rows[2].sc.model.name, "other");
    snprintf(rows[3].sc.system.name, sizeof rows[3].sc.system.name, "GB200 NVL72");
    rows[3].sc.system.price_per_device_hour = 0;
    for (int i = 0; i < 5; i++) {
        rows[i].sc.train_tokens = i == 4 ? 1e9 : 300e9;
        rows[i].r.cost_usd = rows[i].sc.system.price_per_device_hour > 0
                                 ? 2.0 * rows[i].sc.devices * rows[i].r.time_to_train_s / 3600.0
                                 : NAN;
        rows[i].r.interval_lo = rows[i].r.interval_hi = NAN;
    }
    run.row = rows;
    run.n = 5;
    char buf[RPT_ANSWER_MAX];
    int recs[8];
    assert_int_equal(rpt_recommend(&run, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "model on 300 B tokens, with no deadline, budget or power budget stated: the "
                                "cheapest is A on 64 devices: 20 days, $61.4 k"));
    assert_non_null(strstr(buf, "Fastest: G on 256 devices: 2 days, cost unknown"));
    assert_non_null(strstr(buf, "GB200 NVL72 has no price per device-hour (set system.price.device_hour): it "
                                "is not ranked on cost."));
    assert_non_null(strstr(buf,
                           "other, with no deadline, budget or power budget stated: the cheapest is B on "
                           "64 devices: 5 days"));
    assert_non_null(strstr(buf, "model on 1 B tokens, with no deadline, budget or power budget stated: the "
                                "cheapest is A on 64 devices: 40 days"));
    assert_null(strstr(buf, "Recommended"));
    /* two amounts alike in three digits are named in every digit, each once */
    rows[4].sc.train_tokens = 300.2e9;
    assert_int_equal(rpt_recommend(&run, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "model on 300 B tokens, with no deadline"));
    assert_non_null(strstr(buf, "model on 300.2 B tokens, with no deadline"));
    rows[4].sc.train_tokens = 1e9;
    assert_int_equal(rpt_recommended(&run, recs, 8), 3);
    assert_int_equal(recs[0], 0);
    assert_int_equal(recs[1], 2);
    assert_int_equal(recs[2], 4);
    /* a budget: the unpriced system cannot be held to it, and says so */
    for (int i = 0; i < 5; i++)
        rows[i].sc.budget_usd = 1e6;
    assert_int_equal(rpt_recommend(&run, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "Recommended for model on 300 B tokens: A on 64 devices"));
    assert_non_null(strstr(buf, "Recommended for other: B on 64 devices"));
    assert_non_null(strstr(buf, "Fastest within the constraints: A on 128 devices: 12 days"));
    assert_non_null(strstr(buf,
                           "GB200 NVL72 has no price per device-hour (set system.price.device_hour): it "
                           "is not ranked on cost, and none of its scenarios can be held to the budget."));
    /* nothing priced: ranked by energy, and said */
    for (int i = 0; i < 5; i++) {
        rows[i].sc.budget_usd = 0;
        rows[i].r.cost_usd = NAN;
    }
    assert_int_equal(rpt_recommend(&run, buf, sizeof buf), 3);
    assert_non_null(strstr(buf, "the lowest-energy is G on 256 devices"));
    assert_non_null(strstr(buf, "sys and GB200 NVL72 have no price per device-hour (set "
                                "system.price.device_hour): the scenarios are ranked by energy, not cost."));
}

/* The shortlist lists the questions the answer answers (the first
 * RPT_MODELS_MAX): a row of a later question is not filed under the last
 * one listed; every row that meets its constraints is counted. */
static void test_shortlist_questions(void **state)
{
    (void)state;
    enum { NQ = RPT_MODELS_MAX + 2 };
    RunRow *rows = calloc(2 * NQ, sizeof *rows);
    assert_non_null(rows);
    for (int i = 0; i < 2 * NQ; i++) { /* two rows of each question, the second the cheaper */
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        fill_row(&rows[i], name, "A", i < NQ ? 128 : 64, STATUS_OK, 20);
        rows[i].sc.train_tokens = 1e9 * (1 + i % NQ);
        rows[i].r.cost_usd = i < NQ ? 2e5 : 1e5;
        rows[i].r.interval_lo = rows[i].r.interval_hi = NAN;
        rows[i].sc.deadline_s = 60 * 86400.0;
        rows[i].sc.budget_usd = 1e6;
    }
    Run run;
    memset(&run, 0, sizeof run);
    run.row = rows;
    run.n = 2 * NQ;
    int *sl = NULL, *q = NULL, rep[RPT_MODELS_MAX], nq = 0;
    long meets = 0;
    const int n = rpt_shortlist(&run, &sl, &q, rep, &nq, &meets);
    assert_int_equal(nq, RPT_MODELS_MAX);
    assert_int_equal(meets, 2 * NQ);
    assert_int_equal(n, 2 * RPT_MODELS_MAX);
    for (int i = 0; i < n; i++) { /* each question's cheaper row first, and only its own rows */
        assert_int_equal(q[i], i / 2);
        assert_int_equal(sl[i], i % 2 ? i / 2 : NQ + i / 2);
    }
    free(sl);
    free(q);
    free(rows);
}

/* The report lists and draws the first RPT_SERIES_MAX series in the order
 * of their first rows and says there are more; a later series' time to
 * train still makes the charts plot times to train. */
static void test_series_listed(void **state)
{
    (void)state;
    enum { NS = RPT_SERIES_MAX + 3 };
    RunRow *rows = calloc(NS, sizeof *rows);
    assert_non_null(rows);
    for (int i = 0; i < NS; i++) {
        char name[16], series[16];
        snprintf(name, sizeof name, "r%d", i);
        snprintf(series, sizeof series, "s%d", i);
        fill_row(&rows[i], name, series, 64, STATUS_OK, i < RPT_SERIES_MAX ? NAN : 20);
    }
    Run run;
    memset(&run, 0, sizeof run);
    run.row = rows;
    run.n = NS;
    RptSeriesSet set;
    assert_int_equal(rpt_series_build(&run, &set), 0);
    assert_int_equal(set.n, RPT_SERIES_MAX);
    assert_int_equal(set.more, 1);
    assert_int_equal(set.by_ttt, 1);
    for (int i = 0; i < set.n; i++)
        assert_string_equal(set.s[i].name, rows[i].sc.series);
    rpt_series_free(&set);
    run.n = RPT_SERIES_MAX; /* as many as it lists: none more; a streamed run says so itself */
    assert_int_equal(rpt_series_build(&run, &set), 0);
    assert_int_equal(set.more, 0);
    rpt_series_free(&set);
    run.series_more = 1;
    assert_int_equal(rpt_series_build(&run, &set), 0);
    assert_int_equal(set.more, 1);
    rpt_series_free(&set);
    free(rows);
}

/* The carbon budget and the facility's power envelope (issue 31) rule the
 * recommendation as the deadline does; at equal cost the lower carbon
 * wins; what a row misses is said. */
static void test_carbon_and_envelope(void **state)
{
    (void)state;
    Run run;
    memset(&run, 0, sizeof run);
    RunRow rows[3];
    fill_row(&rows[0], "us", "US grid", 64, STATUS_OK, 20);
    fill_row(&rows[1], "fr", "French grid", 64, STATUS_OK, 20); /* the same run on a cleaner grid */
    fill_row(&rows[2], "big", "US grid", 512, STATUS_OK, 3);
    static const double co2[3] = {100, 15, 140}, peak[3] = {80e3, 80e3, 640e3};
    for (int i = 0; i < 3; i++) {
        rows[i].r.co2e_t = co2[i];
        rows[i].r.peak_power_w = peak[i];
        rows[i].r.cost_usd = 2.0 * rows[i].sc.devices * rows[i].r.time_to_train_s / 3600.0;
        rows[i].r.interval_lo = rows[i].r.interval_hi = NAN;
        rows[i].sc.carbon_budget_t = 120;
        rows[i].sc.site.power_envelope_w = 500e3;
    }
    run.row = rows;
    run.n = 3;
    char buf[2048];
    assert_int_equal(rpt_recommend(&run, buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "Recommended for model: French grid on 64 devices: 20 days, $61.4 k"));
    assert_non_null(strstr(buf, "15 t CO2e"));
    assert_non_null(strstr(buf, "meets 120 t CO2e, a peak within 0.5 MW"));
    assert_int_equal(rpt_misses(&rows[2], buf, sizeof buf), 1);
    assert_string_equal(buf, "over the carbon budget, peak over the facility's power envelope");
    rows[2].r.co2e_t = NAN; /* no embodied figure: it cannot be held to the carbon budget */
    assert_int_equal(rpt_misses(&rows[2], buf, sizeof buf), 1);
    assert_string_equal(
        buf, "no embodied carbon to hold to the carbon budget, peak over the facility's power envelope");
    assert_int_equal(rpt_misses(&rows[1], buf, sizeof buf), 0);
    /* the answer's energy and carbon, in a sentence */
    rows[1].r.co2e_operational_t = 14;
    rows[1].r.co2e_embodied_t = 1;
    rows[1].sc.site.grid_gco2_kwh = 57;
    rows[1].r.clock_plan_saving = 0.05;
    rows[1].r.plan_min_clock = 0.9;
    rows[1].r.energy_to_train_plan_j = 0.95 * rows[1].r.energy_to_train_j;
    rows[1].r.st.pp = 4;
    assert_int_equal(rpt_energy_sentences(&run, buf, sizeof buf), 1);
    assert_string_equal(
        buf, "model, French grid on 64 devices: 30.7 MWh at the wall, 15 t CO2e (14 t operational at 57 g a "
             "kWh, 1 t embodied); a clock plan for its pipeline saves 5.0 % (1.54 MWh) at the same "
             "time, its lightest stage at 90 % clock; peak 0.08 MW, swinging by 0 MW when every "
             "device waits on one collective, once a step (every 1 s: 1 Hz); no wait in a step is common "
             "to every device.");
    /* what the grid sees of a step: a dip with no ramp limit, then one
     * held to the site's limit */
    rows[1].r.power_swing_w = 40e3;
    rows[1].r.power_dip_w = 40e3;
    rows[1].r.power_ramp_w_s = NAN;
    assert_int_equal(rpt_energy_sentences(&run, buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "swinging by 0.04 MW when every device waits on one collective, once a step "
                                "(every 1 s: 1 Hz); with no ramp limit the power steps (a 0.04 MW dip each "
                                "step)."));
    rows[1].r.power_ramp_w_s = 50e3;
    rows[1].r.power_dip_w = 10e3;
    rows[1].r.ramp_hold_share = 0.012;
    assert_int_equal(rpt_energy_sentences(&run, buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "; held to the site's 0.05 MW/s, each step's dip is 0.01 MW and holding it "
                                "burns 1.2 % of the energy."));
}

/* A swept hardware value (issue 27): the series that differ only by it
 * get one sentence with each value's best and where it is fastest and
 * lightest; a series of another model, or unswept, joins no sweep. */
static void test_sweep_effects(void **state)
{
    (void)state;
    Run run;
    memset(&run, 0, sizeof run);
    RunRow rows[6];
    static const char *const tdp[4] = {"N5 (tdp=300 W)", "N5 (tdp=500 W)", "N5 (tdp=700 W)",
                                       "N5 (tdp=900 W)"};
    static const double days[4] = {40, 30, 22, 25};
    for (int i = 0; i < 4; i++) {
        fill_row(&rows[i], tdp[i], tdp[i], 512, STATUS_OK, days[i]);
        rows[i].sc.series_base = 2;
        rows[i].r.energy_to_train_j = (1.0 + 0.2 * i) * 3.6e12; /* 1 GWh at 300 W, the least */
    }
    fill_row(&rows[4], "other model", "N5 (tdp=300 W)x", 512, STATUS_OK, 5); /* another series name */
    fill_row(&rows[5], "N5 other", "N5 (tdp=700 W)", 64, STATUS_OK, 80);     /* same series, worse */
    rows[5].sc.series_base = 2;
    run.row = rows;
    run.n = 6;
    RptSeriesSet set;
    assert_int_equal(rpt_series_build(&run, &set), 0);
    char buf[RPT_SWEEPS_TEXT_MAX];
    assert_int_equal(rpt_sweep_effects(&run, &set, buf, sizeof buf), 1);
    assert_string_equal(buf, "N5, swept over 4 values (the best of each): tdp=300 W 40 days on 512 devices, "
                             "1 GWh; tdp=500 W 30 days on 512 devices, 1.2 GWh; tdp=700 W 22 days on 512 "
                             "devices, 1.4 GWh; tdp=900 W 25 days on 512 devices, 1.6 GWh. Fastest at "
                             "tdp=700 W, least energy at tdp=300 W.");
    /* another model with the same series names: its own sweep, never mixed */
    snprintf(rows[3].sc.model.name, sizeof rows[3].sc.model.name, "other");
    rpt_series_free(&set);
    assert_int_equal(rpt_series_build(&run, &set), 0);
    assert_int_equal(rpt_sweep_effects(&run, &set, buf, sizeof buf), 1);
    assert_null(strstr(buf, "900 W"));
    /* nothing swept: no sentence */
    for (int i = 0; i < 6; i++)
        rows[i].sc.series_base = 0;
    rpt_series_free(&set);
    assert_int_equal(rpt_series_build(&run, &set), 0);
    assert_int_equal(rpt_sweep_effects(&run, &set, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    rpt_series_free(&set);
}

static void make_run(Run *run)
{
    memset(run, 0, sizeof *run);
    run->row = calloc(6, sizeof *run->row);
    assert_non_null(run->row);
    fill_row(&run->row[0], "a64", "A", 64, STATUS_OK, 20);
    fill_row(&run->row[1], "a128", "A", 128, STATUS_OK, 11);
    fill_row(&run->row[2], "a128b", "A", 128, STATUS_OK, 10); /* better at 128 */
    fill_row(&run->row[3], "=1+1", "@SUM(A1)", 256, STATUS_OOM, 1);
    fill_row(&run->row[4], "b64", "@SUM(A1)", 64, STATUS_OK, NAN);
    fill_row(&run->row[5], "broken", "", 0, STATUS_ERROR, NAN);
    run->row[5].built = 0;
    snprintf(run->row[5].diag.msg, sizeof run->row[5].diag.msg,
             "column 'devices': expected a positive integer");
    run->row[5].diag.line = 7;
    run->row[5].diag.col = 3;
    run->n = 6;
    run->n_ok = 4;
    run->n_oom = 1;
    run->n_error = 1;
}

static void test_series_best(void **state)
{
    (void)state;
    Run run;
    make_run(&run);
    RptSeriesSet set;
    assert_int_equal(rpt_series_build(&run, &set), 0);
    assert_int_equal(set.n, 2);
    assert_string_equal(set.s[0].name, "A");
    assert_string_equal(set.s[1].name, "@SUM(A1)");
    assert_true(set.by_ttt);
    assert_int_equal(set.s[0].best, 2); /* shortest time to train */
    assert_int_equal(set.s[0].npt, 2);  /* 64 and 128, the better of the two at 128 */
    assert_int_equal(set.s[0].pt[0], 0);
    assert_int_equal(set.s[0].pt[1], 2);
    assert_int_equal(set.s[1].best, 4); /* the oom row never wins */
    assert_int_equal(set.s[1].npt, 1);
    /* one system, one model: one panel, the series told apart by colour */
    assert_int_equal(set.ngroup, 1);
    assert_int_equal(set.s[0].colour, 0);
    assert_int_equal(set.s[1].colour, 1);
    assert_int_equal(set.s[0].variant, 0);
    assert_int_equal(set.s[1].variant, 0);
    rpt_series_free(&set);

    /* two systems and two models: colours by system, panels by model, the
     * variant counts the series of one system within one model */
    static const char *const sys[6] = {"X", "Y", "X", "X", "Y", "X"};
    static const char *const mod[6] = {"m1", "m1", "m1", "m2", "m2", "m2"};
    static const char *const ser[6] = {"x1", "y1", "x1b", "x2", "y2", "x2b"};
    for (int i = 0; i < 6; i++) {
        fill_row(&run.row[i], ser[i], ser[i], 64, STATUS_OK, 1 + i);
        snprintf(run.row[i].sc.system.name, sizeof run.row[i].sc.system.name, "%s", sys[i]);
        snprintf(run.row[i].sc.model.name, sizeof run.row[i].sc.model.name, "%s", mod[i]);
    }
    assert_int_equal(rpt_series_build(&run, &set), 0);
    assert_int_equal(set.n, 6);
    assert_int_equal(set.ngroup, 2);
    static const int colour[6] = {0, 1, 0, 0, 1, 0}, group[6] = {0, 0, 0, 1, 1, 1},
                     variant[6] = {0, 0, 1, 0, 0, 1};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(set.s[i].colour, colour[i]);
        assert_int_equal(set.s[i].group, group[i]);
        assert_int_equal(set.s[i].variant, variant[i]);
    }
    rpt_series_free(&set);
    /* more series of one model than a chart's legend holds: charts of at
     * most 8, "part 1 of 2" and "part 2 of 2" */
    Run many;
    memset(&many, 0, sizeof many);
    many.row = calloc(10, sizeof *many.row);
    assert_non_null(many.row);
    static const char *const nm[10] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
    for (int i = 0; i < 10; i++)
        fill_row(&many.row[i], nm[i], nm[i], 64, STATUS_OK, 1 + i);
    many.n = 10;
    assert_int_equal(rpt_series_build(&many, &set), 0);
    assert_int_equal(set.ngroup, 2);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(set.s[i].group, i < 8 ? 0 : 1);
        assert_int_equal(set.s[i].part, i < 8 ? 1 : 2);
        assert_int_equal(set.s[i].parts, 2);
        /* one system: a colour each within a chart */
        assert_int_equal(set.s[i].colour, i < 8 ? i : i - 8);
        assert_int_equal(set.s[i].variant, 0);
    }
    rpt_series_free(&set);
    /* nine series of five systems keep one chart: each has a style of its
     * own there (the default study's eight and Megatron-LM's 2021 point) */
    static const char *const sysname[5] = {"s0", "s1", "s2", "s3", "s4"};
    for (int i = 0; i < 9; i++)
        snprintf(many.row[i].sc.system.name, sizeof many.row[i].sc.system.name, "%s", sysname[i % 5]);
    many.n = 9;
    assert_int_equal(rpt_series_build(&many, &set), 0);
    assert_int_equal(set.ngroup, 1);
    for (int i = 0; i < 9; i++) {
        assert_int_equal(set.s[i].parts, 1);
        assert_int_equal(set.s[i].colour, i % 5);
        assert_int_equal(set.s[i].variant, i / 5);
    }
    rpt_series_free(&set);
    free(many.row);
    assert_int_equal(rpt_series_build(&run, &set), 0);
    /* equal global batches: breakdowns per step; unequal: per sample */
    assert_int_equal(rpt_breakdown_per_sample(&run, &set), 0);
    run.row[3].r.st.global_batch = 1024;
    run.row[4].r.st.global_batch = 2048;
    assert_int_equal(rpt_breakdown_per_sample(&run, &set), 1);
    rpt_series_free(&set);
    free(run.row);
}

/* Baseline comparisons: the best speedup, and the crossover, the smallest
 * device count from which every larger count is faster (a dip resets it;
 * a series slower at its largest count never crosses). */
static void test_baselines(void **state)
{
    (void)state;
    static const struct {
        const char *series;
        int devices;
        double speedup;
    } pts[] = {{"H", 8, 1.2},   {"H", 16, 0.9}, {"H", 32, 1.1}, {"H", 64, 1.5}, /* crossover 32 */
               {"G", 8, 1.3},   {"G", 16, 0.8},                                 /* never */
               {"F", 16, 1.05}, {"F", 8, 1.01}};                                /* from 8, any order */
    const int n = (int)(sizeof pts / sizeof pts[0]);
    Run run;
    memset(&run, 0, sizeof run);
    run.row = calloc((size_t)n + 1, sizeof *run.row);
    assert_non_null(run.row);
    for (int i = 0; i < n; i++) {
        fill_row(&run.row[i], "r", pts[i].series, pts[i].devices, STATUS_OK, 1);
        snprintf(run.row[i].sc.baseline, sizeof run.row[i].sc.baseline, "DP");
        run.row[i].r.speedup = pts[i].speedup;
        /* best against best: the series' own value on each of its rows (H:
         * 1.3, 1.1 to 1.45 over the critical batch halved and doubled; G
         * without a curve: no range) */
        const int h = pts[i].series[0] == 'H';
        run.row[i].r.speedup_best = h ? 1.3 : 0.9;
        run.row[i].r.speedup_best_bcrit_half = h ? 1.45 : NAN;
        run.row[i].r.speedup_best_bcrit_double = h ? 1.1 : NAN;
    }
    fill_row(&run.row[n], "dp", "DP", 8, STATUS_OK, 1); /* the baseline itself has none */
    run.row[n].r.speedup = NAN;
    run.n = n + 1;
    /* best against best in its parts, at each series' fastest row: H's at
     * 64 devices trains 1,000 steps of 64 samples at 640 a second, the
     * baseline 2,000 steps of 128 at 1,280: 4x fewer samples, half the
     * throughput */
    run.row[3].r.time_to_train_s = 0.5 * 86400;
    run.row[3].r.steps = 1000;
    run.row[3].r.st.global_batch = 64;
    run.row[3].r.samples_per_s = 640;
    run.row[n].r.steps = 2000;
    run.row[n].r.st.global_batch = 128;
    run.row[n].r.samples_per_s = 1280;
    RptBaseline b[8];
    assert_int_equal(rpt_baselines(&run, b, 8), 3);
    assert_rel(b[0].from_samples, 4.0, 1e-15);
    assert_rel(b[0].from_rate, 0.5, 1e-15);
    assert_true(isnan(b[1].from_samples) && isnan(b[1].from_rate)); /* G's rows state no steps */
    assert_string_equal(b[0].series, "H");
    assert_int_equal(b[0].points, 4);
    assert_int_equal(b[0].crossover, 32);
    assert_rel(b[0].best, 1.5, 1e-15);
    assert_int_equal(b[0].best_devices, 64);
    assert_string_equal(b[1].series, "G");
    assert_int_equal(b[1].crossover, 0);
    assert_int_equal(b[1].best_devices, 8);
    assert_int_equal(b[2].crossover, 8);
    assert_rel(b[0].bvb, 1.3, 0);
    assert_rel(b[0].bvb_lo, 1.1, 0);
    assert_rel(b[0].bvb_hi, 1.45, 0);
    char text[RPT_BVB_MAX];
    rpt_fmt_bvb(&b[0], text, sizeof text);
    assert_string_equal(text,
                        "; best against best 1.30x, 1.10x to 1.45x over the critical batch's range: 4.00x "
                        "from the samples to train, 0.50x from the throughput");
    rpt_fmt_bvb(&b[1], text, sizeof text);
    assert_string_equal(text, "; best against best 0.90x");
    b[1].bvb = NAN;
    rpt_fmt_bvb(&b[1], text, sizeof text);
    assert_string_equal(text, "");
    assert_int_equal(rpt_baselines(&run, b, 1), 1); /* at most max comparisons */
    free(run.row);
}

/* Published claims (# claim:): each metric against its series' baseline,
 * the ranges as written, the reasons a claim is not checked, and why a
 * speedup claim fails (the baseline's step in exchanges and bubbles). */
static void test_claims(void **state)
{
    (void)state;
    Run run;
    memset(&run, 0, sizeof run);
    run.row = calloc(4, sizeof *run.row);
    assert_non_null(run.row);
    /* the baseline: 20 days, 100 kW, 252 GB/s over 10 mm of lanes */
    fill_row(&run.row[0], "pcb", "PCB", 16, STATUS_OK, 20);
    run.row[0].r.intra_bw_bytes_per_s = 252e9; /* as evaluated, not the template's */
    run.row[0].sc.system.intra.bw_bytes_per_s = 1;
    run.row[0].r.step_time_s = 2.0; /* 0.1 s in each of six exchanges: 30 % of it */
    /* the series: 16 days (1.25x), 110 kW (+10 %), 5 TB/s */
    fill_row(&run.row[1], "siif", "Si-IF", 16, STATUS_OK, 16);
    snprintf(run.row[1].sc.baseline, sizeof run.row[1].sc.baseline, "PCB");
    run.row[1].r.intra_bw_bytes_per_s = 5e12;
    run.row[1].r.speedup = run.row[1].r.speedup_best = 1.25;
    run.row[1].r.speedup_best_bcrit_half = run.row[1].r.speedup_best_bcrit_double = 1.25;
    run.row[1].r.system_power_w = 110e3;
    run.row[1].r.energy_to_train_j = 110e3 * 16 * 86400.0;
    run.row[0].r.energy_to_train_j = 16e3 * 20 * 86400.0;
    run.n = 2;
    RptSeriesSet set;
    assert_int_equal(rpt_series_build(&run, &set), 0);
    Table t;
    memset(&t, 0, sizeof t);
    static const char *const text[] = {"Si-IF | bandwidth 5..25x | SuperCHIPS",
                                       "Si-IF | speedup >= 20x | SuperCHIPS",
                                       "Si-IF | speedup_same <= 1.3 | a source",
                                       "Si-IF | power <= -15% | SuperCHIPS",
                                       "Si-IF | energy -100..0% | energy source",
                                       "Si-IF | speed >= 2 | x",
                                       "Si-IF | power >= 2x | x",
                                       "Si-IF | speedup 3..2 | x",
                                       "Nope | speedup >= 2 | x",
                                       "PCB | speedup >= 2 | x",
                                       "Si-IF, speedup >= 2",
                                       "Si-IF | bandwidth 5 .. 25 x |  "};
    const int nt = (int)(sizeof text / sizeof text[0]);
    for (int i = 0; i < nt; i++) {
        t.claim[i].line = 10 + i;
        snprintf(t.claim[i].text, sizeof t.claim[i].text, "%s", text[i]);
    }
    t.nclaim = nt;
    RptClaim c[RPT_CLAIMS_MAX];
    assert_int_equal(rpt_claims(&run, &set, &t, c, RPT_CLAIMS_MAX), nt);
    assert_int_equal(c[0].holds, 1);
    assert_rel(c[0].value, 5e12 / 252e9, 1e-12); /* as evaluated */
    assert_string_equal(c[0].stated, "5..25x");
    assert_int_equal(c[1].holds, 0);
    assert_rel(c[1].value, 1.25, 1e-15);
    assert_rel(c[1].exchange, 0.3, 1e-12);
    char line[RPT_CLAIM_TEXT_MAX];
    rpt_fmt_claim(&c[1], "t.csv", line, sizeof line);
    assert_string_equal(
        line, "Claim (SuperCHIPS): Si-IF against PCB, speedup, best against best >= 20x; here 1.25x: "
              "does not hold (PCB's best step spends 30 % of its time exchanging data and waiting "
              "in the pipeline: links that made that free would make that step at most 1.43x "
              "faster).");
    assert_int_equal(c[2].holds, 1);
    assert_int_equal(c[2].devices, 16);
    assert_int_equal(c[3].holds, 0);
    assert_rel(c[3].value, 100 * (110e3 / 16e3 - 1), 1e-12);
    rpt_fmt_claim(&c[3], "t.csv", line, sizeof line);
    assert_string_equal(line,
                        "Claim (SuperCHIPS): Si-IF against PCB, system power, change <= -15%; here +587.5 %: "
                        "does not hold.");
    assert_int_equal(c[4].holds, 0); /* +450 %: above 0 */
    for (int i = 5; i < nt; i++)
        assert_int_equal(c[i].holds, -1);
    assert_string_equal(c[5].error, "expected a metric (speedup, speedup_same, bandwidth, power or energy), "
                                    "found 'speed'");
    assert_string_equal(c[6].error, "expected a range after 'power' (\">= V\", \"<= V\" or \"V..W\", in %), "
                                    "found '>= 2x'");
    assert_string_equal(c[7].error,
                        "expected a range after 'speedup' (\">= V\", \"<= V\" or \"V..W\", a factor), "
                        "found '3..2'");
    assert_string_equal(c[8].error, "no series 'Nope' in the study");
    assert_string_equal(c[9].error, "series 'PCB' names no baseline (its rows' baseline column is empty)");
    assert_string_equal(c[10].error,
                        "expected 'SERIES | METRIC RANGE | SOURCE', found 'Si-IF, speedup >= 2'");
    assert_string_equal(c[11].error, "expected 'SERIES | METRIC RANGE | SOURCE', found an empty source");
    rpt_fmt_claim(&c[8], "t.csv", line, sizeof line);
    assert_string_equal(line, "t.csv:18: claim not checked: no series 'Nope' in the study.");
    /* a speedup of the same links: its two parts say why */
    run.row[1].r.intra_bw_bytes_per_s = run.row[0].r.intra_bw_bytes_per_s;
    run.row[0].r.steps = 2000, run.row[0].r.st.global_batch = 128, run.row[0].r.samples_per_s = 1280;
    run.row[1].r.steps = 1000, run.row[1].r.st.global_batch = 64, run.row[1].r.samples_per_s = 640;
    assert_int_equal(rpt_claims(&run, &set, &t, c, RPT_CLAIMS_MAX), nt);
    assert_true(isnan(c[1].exchange));
    char why[256];
    rpt_fmt_claim_why(&c[1], why, sizeof why);
    assert_string_equal(why,
                        "4.00x from the samples to train, the convergence curve's doing, and 0.50x from the "
                        "throughput");
    rpt_fmt_claim_why(&c[0], why, sizeof why); /* it holds: nothing to explain */
    assert_string_equal(why, "");
    /* spaces around the dots and the unit are allowed */
    run.row[1].r.intra_bw_bytes_per_s = 5e12;
    snprintf(t.claim[0].text, sizeof t.claim[0].text, "Si-IF | bandwidth 5 .. 25 x | s");
    t.nclaim = 1;
    assert_int_equal(rpt_claims(&run, &set, &t, c, RPT_CLAIMS_MAX), 1);
    assert_int_equal(c[0].holds, 1);
    assert_rel(c[0].lo, 5, 0);
    assert_rel(c[0].hi, 25, 0);
    rpt_series_free(&set);
    free(run.row);
}

static void test_document_time(void **state)
{
    (void)state;
    char err[200];
    time_t t;
    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
    assert_int_equal(rpt_document_time("/nonexistent", &t, err, sizeof err), 0);
    assert_int_equal((long long)t, 1700000000LL);
    setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
    assert_int_equal(rpt_document_time("/nonexistent", &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "SOURCE_DATE_EPOCH"));
    unsetenv("SOURCE_DATE_EPOCH");
    char dir[] = "/tmp/df-report-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/t.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("a\n1\n", f);
    fclose(f);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(rpt_document_time(path, &t, err, sizeof err), 0);
    assert_int_equal((long long)t, (long long)st.st_mtime);
    unlink(path);
    rmdir(dir);
}

static int count_entries(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static void test_writers(void **state)
{
    (void)state;
    char dir[] = "/tmp/df-report-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char table_path[300], path[400], err[1600];
    snprintf(table_path, sizeof table_path, "%s/study.csv", dir);
    FILE *f = fopen(table_path, "w");
    assert_non_null(f);
    fputs("# title: test\nscenario,devices\na64,64\n", f);
    fclose(f);
    Table t;
    memset(&t, 0, sizeof t);
    t.path = table_path;
    snprintf(t.title, sizeof t.title, "A [test] title");
    TemplateDB db;
    memset(&db, 0, sizeof db);
    Run run;
    make_run(&run);
    ReportInput in = {.run = &run,
                      .table = &t,
                      .db = &db,
                      .name = "study",
                      .command = "deepflow run study.csv",
                      .created = 1700000000};

    /* the workbook: written, non-empty, and the same bytes twice */
    snprintf(path, sizeof path, "%s/study.xlsx", dir);
    assert_int_equal(rpt_xlsx_write(&in, path, err, sizeof err), 0);
    struct stat a, b;
    assert_int_equal(stat(path, &a), 0);
    assert_true(a.st_size > 2000);
    char path2[600];
    snprintf(path2, sizeof path2, "%s/again.xlsx", dir);
    assert_int_equal(rpt_xlsx_write(&in, path2, err, sizeof err), 0);
    assert_int_equal(stat(path2, &b), 0);
    assert_int_equal(a.st_size, b.st_size);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", path, path2);
    assert_int_equal(system(cmd), 0);
    unlink(path2);

    /* a study larger than the per-scenario sheets list: the rows of
     * interest (each series' best at each device count: a64, a128b, b64),
     * said in the sheet; every row still counted */
    in.detail_max = 5;
    snprintf(path2, sizeof path2, "%s/capped.xlsx", dir);
    assert_int_equal(rpt_xlsx_write(&in, path2, err, sizeof err), 0);
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import openpyxl,sys,warnings\nwarnings.simplefilter('ignore')\n"
             "wb = openpyxl.load_workbook(sys.argv[1])\n"
             "ws = wb['Scenarios']\n"
             "assert ws['A1'].value.startswith('The 3 scenarios of interest of 6'), ws['A1'].value\n"
             "assert ws['A2'].value == 'Scenario'\n"
             "names = [ws.cell(row=r, column=1).value for r in range(3, ws.max_row + 1)]\n"
             "assert names == ['a64', 'a128b', 'b64'], names\n"
             "b = [c.value for c in wb['Breakdown']['A'] if c.value and 'of interest' in str(c.value)]\n"
             "assert len(b) == 2 and b[0].startswith('The scenarios of interest (3 of 6)'), b\n"
             "\" '%s'",
             path2);
    assert_int_equal(system(cmd), 0);
    unlink(path2);
    in.detail_max = 0;

    /* an output that cannot be written: -1, and nothing left behind */
    snprintf(path2, sizeof path2, "%s/missing/study.xlsx", dir);
    assert_int_equal(rpt_xlsx_write(&in, path2, err, sizeof err), -1);
    assert_non_null(strstr(err, "missing"));

    /* the charts without gnuplot: .dat and .gp, no images, a flag */
    char charts[400];
    snprintf(charts, sizeof charts, "%s/charts", dir);
    setenv("DEEPFLOW_GNUPLOT", "/nonexistent/gnuplot", 1);
    RptChartsDone done;
    assert_int_equal(rpt_charts_write(&in, charts, RPT_ALL, &done, err, sizeof err), 0);
    unsetenv("DEEPFLOW_GNUPLOT");
    assert_int_equal(done.no_gnuplot, 1);
    assert_int_equal(done.rendered, 0);
    /* against devices: time, efficiency, power; the breakdown; time against
     * system power and energy (Pareto); no price, so no cost chart */
    assert_int_equal(done.charts, 6);
    assert_int_equal(count_entries(charts), 12);
    snprintf(path2, sizeof path2, "%s/pareto_power.gp", charts);
    assert_int_equal(access(path2, R_OK), 0);
    snprintf(path2, sizeof path2, "%s/pareto_cost.dat", charts);
    assert_int_equal(access(path2, F_OK), -1);
    snprintf(path2, sizeof path2, "%s/time_to_train.dat", charts);
    f = fopen(path2, "r");
    assert_non_null(f);
    char line[256];
    int blocks = 0, points = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "# series ", 9))
            blocks++;
        else if (line[0] >= '0' && line[0] <= '9')
            points++;
    }
    fclose(f);
    assert_int_equal(blocks, 1); /* series "@SUM(A1)" has no time to train: no points, no block */
    assert_int_equal(points, 2);

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(run.row);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_sha256_incremental),
        cmocka_unit_test(test_number_formatting),
        cmocka_unit_test(test_parse_formats),
        cmocka_unit_test(test_sheet_names),
        cmocka_unit_test(test_formula_guard),
        cmocka_unit_test(test_clean_text),
        cmocka_unit_test(test_convergence_column),
        cmocka_unit_test(test_every_column_read),
        cmocka_unit_test(test_recommendation),
        cmocka_unit_test(test_recommendation_per_model),
        cmocka_unit_test(test_shortlist_questions),
        cmocka_unit_test(test_series_listed),
        cmocka_unit_test(test_sweep_effects),
        cmocka_unit_test(test_carbon_and_envelope),
        cmocka_unit_test(test_strategy_axes),
        cmocka_unit_test(test_series_best),
        cmocka_unit_test(test_baselines),
        cmocka_unit_test(test_claims),
        cmocka_unit_test(test_document_time),
        cmocka_unit_test(test_writers),
        cmocka_unit_test(test_detail_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
