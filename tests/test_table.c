/* tests/test_table.c — the scenario table reader (io/table.c): encodings,
 * line ends, comments, quoting, faults with their exact text and place, and
 * the line and column of cells. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/table.h"

/* Parse a string that must give a table. */
static void parse_ok(const char *csv, Table *t)
{
    Diag d;
    diag_clear(&d);
    int rc = table_parse("t.csv", csv, strlen(csv), t, &d);
    if (rc != 0)
        print_error("unexpected error: %s:%d:%d: %s\n", d.file, d.line, d.col, d.msg);
    assert_int_equal(rc, 0);
}

/* Parse a string that must fail; return the formatted diagnostic. */
static void parse_fail(const char *csv, size_t len, char *buf, size_t n)
{
    Table t;
    Diag d;
    diag_clear(&d);
    assert_int_equal(table_parse("t.csv", csv, len, &t, &d), -1);
    assert_null(t.row);
    assert_null(t.path);
    diag_format(&d, buf, n);
}

/* Copy the characters of s (not its NUL) to dst; return how many. */
static size_t put(char *dst, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        dst[i] = s[i];
    return n;
}

static void row_error(const TableRow *r, char *buf, size_t n)
{
    assert_non_null(r->error);
    diag_format(r->error, buf, n);
}

static void test_basic(void **state)
{
    (void)state;
    Table t;
    parse_ok("Scenario, Devices ,TP\na,64,8\nb, 128 ,\t4\n", &t);
    assert_int_equal(t.ncol, 3);
    assert_string_equal(t.col_name[0], "scenario");
    assert_string_equal(t.col_name[1], "devices");
    assert_string_equal(t.col_name[2], "tp");
    assert_int_equal(t.header_line, 1);
    assert_int_equal(t.col_col[1], 11);
    assert_int_equal(t.nrow, 2);
    assert_string_equal(t.row[1].cell[1].text, "128");
    assert_string_equal(t.row[1].cell[2].text, "4");
    assert_null(t.row[0].error);
    assert_int_equal(table_col(&t, "DEVICES"), 1);
    assert_int_equal(table_col(&t, "pp"), -1);
    assert_string_equal(t.path, "t.csv");
    assert_string_equal(t.title, "");
    table_free(&t);
    table_free(&t); /* twice is fine */
}

static void test_bom_crlf(void **state)
{
    (void)state;
    Table t;
    parse_ok("\xEF\xBB\xBFname,devices\r\n\r\nx,8\r\ny,16\r\n", &t);
    assert_string_equal(t.col_name[0], "name");
    assert_int_equal(t.col_col[0], 1);
    assert_int_equal(t.nrow, 2);
    assert_string_equal(t.row[0].cell[1].text, "8");
    assert_int_equal(t.row[0].line, 3);
    assert_int_equal(t.row[1].line, 4);
    assert_string_equal(t.row[1].cell[1].text, "16");
    table_free(&t);

    /* old Mac line ends, and a last line without one */
    parse_ok("a,b\r1,2\r3,4", &t);
    assert_int_equal(t.nrow, 2);
    assert_int_equal(t.row[1].line, 3);
    assert_string_equal(t.row[1].cell[1].text, "4");
    table_free(&t);
}

static void test_comments_title(void **state)
{
    (void)state;
    Table t;
    parse_ok("# a study\n#  Title :  GPT-3 on H100  \n# title: second\nscenario,devices\n\n"
             "# note\n   \nx,8\n #x,9\n",
             &t);
    assert_string_equal(t.title, "GPT-3 on H100");
    assert_int_equal(t.header_line, 4);
    assert_int_equal(t.nrow, 2);
    assert_int_equal(t.row[0].line, 8);
    /* '#' not in the first column is data */
    assert_string_equal(t.row[1].cell[0].text, "#x");
    assert_int_equal(t.row[1].line, 9);
    assert_int_equal(t.nclaim, 0);
    table_free(&t);
    /* claims: every "# claim:" line, anywhere, with its line; a title after
     * a claim is still the title; past TABLE_CLAIMS_MAX they are counted */
    char csv[4096];
    size_t at =
        (size_t)snprintf(csv, sizeof csv, "# CLAIM :  A | speedup >= 2 | src  \n# title: T\n# claimed: no\n");
    for (int i = 0; i < TABLE_CLAIMS_MAX; i++)
        at += (size_t)snprintf(csv + at, sizeof csv - at, "# claim: S%d | power <= -15%% | s\n", i);
    snprintf(csv + at, sizeof csv - at, "scenario\nx\n# claim: after | energy <= 0 | s\n");
    parse_ok(csv, &t);
    assert_string_equal(t.title, "T");
    assert_int_equal(t.nclaim, TABLE_CLAIMS_MAX);
    assert_int_equal(t.claims_more, 1);
    assert_string_equal(t.claim[0].text, "A | speedup >= 2 | src");
    assert_int_equal(t.claim[0].line, 1);
    assert_string_equal(t.claim[1].text, "S0 | power <= -15% | s");
    assert_int_equal(t.claim[1].line, 4);
    table_free(&t);
}

static void test_quoted_comma_newline(void **state)
{
    (void)state;
    Table t;
    parse_ok("scenario,series,devices\n"
             "a,\"DP, only\",8\n"
             "b,\"two\nlines\",16\n"
             "c,\"say \"\"hi\"\"\",32\n"
             "d,x,64\n",
             &t);
    assert_int_equal(t.nrow, 4);
    assert_string_equal(t.row[0].cell[1].text, "DP, only");
    assert_string_equal(t.row[1].cell[1].text, "two\nlines");
    assert_int_equal(t.row[1].line, 3);
    assert_int_equal(table_cell_line(&t.row[1], 1), 3);
    assert_int_equal(table_cell_col(&t.row[1], 1), 3);
    assert_int_equal(table_cell_line(&t.row[1], 2), 4);
    assert_int_equal(table_cell_col(&t.row[1], 2), 8);
    assert_string_equal(t.row[2].cell[1].text, "say \"hi\"");
    assert_int_equal(t.row[2].line, 5);
    assert_int_equal(t.row[3].line, 6);
    assert_int_equal(table_cell_line(&t.row[3], 2), 6);
    assert_int_equal(table_cell_col(&t.row[3], 2), 5);
    table_free(&t);
}

static void test_too_many_fields(void **state)
{
    (void)state;
    Table t;
    char buf[600];
    parse_ok("a,b,c\n1,2,3\n1,2,3,4,5\n7,8,9\n", &t);
    assert_int_equal(t.nrow, 3);
    assert_null(t.row[0].error);
    row_error(&t.row[1], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:3:7: row has 5 fields, the header has 3");
    assert_int_equal(t.row[1].ncell, 5);
    assert_string_equal(t.row[1].cell[4].text, "5");
    assert_null(t.row[2].error);
    table_free(&t);
}

/* A short row is an error at its end naming the first column it lacks
 * (never padded with defaults); blank and all-empty records are skipped. */
static void test_fewer_fields_and_empty_rows(void **state)
{
    (void)state;
    Table t;
    char buf[600];
    parse_ok("a,b,c\n1\n,,\n  ,\t\n2,x\n4,5,6\n", &t);
    assert_int_equal(t.nrow, 3);
    row_error(&t.row[0], buf, sizeof buf);
    assert_string_equal(buf,
                        "t.csv:2:2: row has 1 field, the header has 3 (no cell for column 'b' and after)");
    assert_int_equal(t.row[0].ncell, 3);
    assert_string_equal(t.row[0].cell[0].text, "1");
    assert_string_equal(t.row[0].cell[2].text, "");
    assert_int_equal(t.row[1].line, 5);
    row_error(&t.row[1], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:5:4: row has 2 fields, the header has 3 (no cell for column 'c')");
    assert_string_equal(t.row[1].cell[1].text, "x");
    assert_null(t.row[2].error);
    table_free(&t);
}

static void test_bad_quotes(void **state)
{
    (void)state;
    Table t;
    char buf[600];
    parse_ok("a,b,c\n1,2,3\nx,\"b\"c,d\n4,5,6\ny,b\"c,d\n\"7\",8,9\n", &t);
    assert_int_equal(t.nrow, 5);
    row_error(&t.row[1], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:3:6: malformed quotes in field (a quoted field must end with '\"' "
                             "followed by ',' or end of line)");
    assert_int_equal(t.row[1].line, 3);
    assert_string_equal(t.row[1].cell[0].text, "x");
    assert_null(t.row[2].error);
    assert_int_equal(t.row[2].line, 4);
    assert_string_equal(t.row[2].cell[2].text, "6");
    row_error(&t.row[3], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:5:4: malformed quotes in field (a '\"' inside an unquoted field: "
                             "quote the whole field and double the inner '\"')");
    assert_null(t.row[4].error);
    assert_string_equal(t.row[4].cell[0].text, "7");
    assert_int_equal(t.row[4].line, 6);
    table_free(&t);

    /* a quote error in the second line of a multi-line record */
    parse_ok("a,b\n1,\"x\ny\"z\n2,3\n", &t);
    assert_int_equal(t.nrow, 2);
    row_error(&t.row[0], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:3:3: malformed quotes in field (a quoted field must end with '\"' "
                             "followed by ',' or end of line)");
    assert_int_equal(t.row[1].line, 4);
    assert_string_equal(t.row[1].cell[1].text, "3");
    table_free(&t);
}

static void test_unterminated_quote(void **state)
{
    (void)state;
    Table t;
    char buf[600];
    parse_ok("a,b\n1,\"oops\n2,3\n4,5\n", &t);
    assert_int_equal(t.nrow, 3);
    row_error(&t.row[0], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:2:3: unterminated quoted field (this '\"' is never closed)");
    assert_int_equal(t.row[1].line, 3);
    assert_string_equal(t.row[1].cell[0].text, "2");
    assert_int_equal(t.row[2].line, 4);
    assert_null(t.row[2].error);
    table_free(&t);
}

static void test_header_faults(void **state)
{
    (void)state;
    char buf[600];
    const char *dup = "# x\nscenario,Devices,tp,devices\n";
    parse_fail(dup, strlen(dup), buf, sizeof buf);
    assert_string_equal(buf, "t.csv:2:21: duplicate column name 'devices' (header columns 2 and 4)");
    const char *empty = "a,,b\n1,2,3\n";
    parse_fail(empty, strlen(empty), buf, sizeof buf);
    assert_string_equal(buf, "t.csv:1:3: empty column name (header column 2)");
    const char *quote = "a,\"b\"x\n";
    parse_fail(quote, strlen(quote), buf, sizeof buf);
    assert_string_equal(buf, "t.csv:1:6: malformed quotes in field (a quoted field must end with '\"' "
                             "followed by ',' or end of line)");
    const char *utf = "a,b\xff\n";
    parse_fail(utf, strlen(utf), buf, sizeof buf);
    assert_string_equal(buf, "t.csv:1:3: header column 2: invalid UTF-8 in the name");
}

static void test_empty_file(void **state)
{
    (void)state;
    char buf[600];
    const char *msg = "t.csv: no header row (the file is empty or holds only comments and blank lines)";
    parse_fail("", 0, buf, sizeof buf);
    assert_string_equal(buf, msg);
    parse_fail("\xEF\xBB\xBF", 3, buf, sizeof buf);
    assert_string_equal(buf, msg);
    const char *only = "# title: nothing\n\n  \n,,\n";
    parse_fail(only, strlen(only), buf, sizeof buf);
    assert_string_equal(buf, msg);
}

/* A table with a header and no rows is an error, not an empty report. */
static void test_header_only(void **state)
{
    (void)state;
    char buf[600];
    const char *msg = "t.csv:1: no scenario rows (the table holds only its header)";
    parse_fail("scenario,devices\n\n", strlen("scenario,devices\n\n"), buf, sizeof buf);
    assert_string_equal(buf, msg);
    parse_fail("# c\nscenario,devices", strlen("# c\nscenario,devices"), buf, sizeof buf);
    assert_string_equal(buf, "t.csv:2: no scenario rows (the table holds only its header)");
}

static void test_invalid_utf8(void **state)
{
    (void)state;
    Table t;
    char buf[600];
    /* é is fine; \xc3\x28 and an overlong '/' are not */
    parse_ok("name,series\nr\xc3\xa9sum\xc3\xa9,ok\nx,bad\xc3\x28\ny,\xc0\xaf\nz,ok\n", &t);
    assert_int_equal(t.nrow, 4);
    assert_null(t.row[0].error);
    assert_string_equal(t.row[0].cell[0].text, "r\xc3\xa9sum\xc3\xa9");
    row_error(&t.row[1], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:3:3: invalid UTF-8 in column 'series'");
    row_error(&t.row[2], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:4:3: invalid UTF-8 in column 'series'");
    assert_null(t.row[3].error);
    table_free(&t);

    /* a NUL byte */
    static const char nul[] = "a,b\n1,x\0y\n";
    Diag d;
    assert_int_equal(table_parse("t.csv", nul, sizeof nul - 1, &t, &d), 0);
    row_error(&t.row[0], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:2:3: NUL byte in column 'b'");
    table_free(&t);
}

/* A table in another encoding is named as such (spreadsheets on some
 * systems save "Unicode text" as UTF-16), not as stray NUL bytes. */
static void test_other_encodings(void **state)
{
    (void)state;
    char buf[512];
    static const char le[] = "\xFF\xFEs\0c\0,\0m\0\n\0";
    parse_fail(le, sizeof le - 1, buf, sizeof buf);
    assert_string_equal(buf,
                        "t.csv: the table is UTF-16 (little-endian) text; save it as UTF-8 (or ASCII) CSV");
    static const char be[] = "\xFE\xFF\0s\0c";
    parse_fail(be, sizeof be - 1, buf, sizeof buf);
    assert_string_equal(buf, "t.csv: the table is UTF-16 (big-endian) text; save it as UTF-8 (or ASCII) CSV");
    static const char bare[] = "s\0c\0,\0";
    parse_fail(bare, sizeof bare - 1, buf, sizeof buf);
    assert_string_equal(buf,
                        "t.csv: the table is UTF-16 or UTF-32 (no byte-order mark) text; save it as UTF-8 "
                        "(or ASCII) CSV");
    static const char u32[] = "\xFF\xFE\0\0s\0\0\0";
    parse_fail(u32, sizeof u32 - 1, buf, sizeof buf);
    assert_string_equal(buf,
                        "t.csv: the table is UTF-32 (little-endian) text; save it as UTF-8 (or ASCII) CSV");
}

/* A record whose every field begins with a NUL byte is a faulty row, not
 * an empty one dropped without a word. */
static void test_nul_record(void **state)
{
    (void)state;
    static const char csv[] = "a,b\n\0x,\0y\nok,1\n";
    Table t;
    Diag d;
    diag_clear(&d);
    assert_int_equal(table_parse("t.csv", csv, sizeof csv - 1, &t, &d), 0);
    assert_int_equal(t.nrow, 2);
    char buf[256];
    row_error(&t.row[0], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:2:1: NUL byte in column 'a'");
    assert_null(t.row[1].error);
    table_free(&t);
}

static void test_cell_positions(void **state)
{
    (void)state;
    Table t;
    /* columns count characters: "é" is one */
    parse_ok("a,b,c\n\n\xc3\xa9\xc3\xa9,  \"q\" , x\n, ,z\n", &t);
    assert_int_equal(t.nrow, 2);
    TableRow *r = &t.row[0];
    assert_int_equal(r->line, 3);
    assert_int_equal(table_cell_line(r, 0), 3);
    assert_int_equal(table_cell_col(r, 0), 1);
    assert_int_equal(table_cell_col(r, 1), 6); /* the opening quote */
    assert_string_equal(r->cell[1].text, "q");
    assert_int_equal(table_cell_col(r, 2), 12);
    assert_string_equal(r->cell[2].text, "x");
    r = &t.row[1];
    assert_int_equal(table_cell_col(r, 0), 1); /* empty fields: where they begin */
    assert_int_equal(table_cell_col(r, 1), 2);
    assert_int_equal(table_cell_col(r, 2), 4);
    table_free(&t);
}

/* A plainly written row keeps no positions: its columns follow from its
 * texts (characters, not bytes); any other keeps each cell's. */
static void test_plain_rows(void **state)
{
    (void)state;
    Table t;
    parse_ok("name,system,devices\n"
             "\xc3\xa9t\xc3\xa9,dgx-h100,8\n" /* plain, with two-byte characters */
             "b, dgx-h100 ,16\n"              /* blanks around a field: it starts at its text */
             "c,\"dgx-h100\",32\n"            /* quotes: the next field moves */
             "d,dgx-h100,\"64\"\n"            /* quotes on the last field: nothing moves */
             "e,\"two\nlines\",128\n"
             "f,,\n", /* empty cells */
             &t);
    assert_int_equal(t.nrow, 6);
    const int want_col[6][3] = {{1, 5, 14}, {1, 4, 14}, {1, 3, 14}, {1, 3, 12}, {1, 3, 8}, {1, 3, 4}};
    const int want_line[6][3] = {{2, 2, 2}, {3, 3, 3}, {4, 4, 4}, {5, 5, 5}, {6, 6, 7}, {8, 8, 8}};
    const int plain[6] = {1, 0, 0, 1, 0, 1};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(t.row[i].pos == NULL, plain[i]);
        for (int j = 0; j < 3; j++) {
            assert_int_equal(table_cell_line(&t.row[i], j), want_line[i][j]);
            assert_int_equal(table_cell_col(&t.row[i], j), want_col[i][j]);
        }
    }
    table_free(&t);
}

static void test_limits(void **state)
{
    (void)state;
    char buf[600];
    /* 4097 header columns */
    size_t n = 4097 * 6 + 2;
    char *csv = malloc(n);
    assert_non_null(csv);
    size_t len = 0;
    for (int i = 0; i < 4097; i++)
        len += (size_t)snprintf(csv + len, n - len, "%sc%d", i ? "," : "", i);
    csv[len++] = '\n';
    parse_fail(csv, len, buf, sizeof buf);
    assert_string_equal(buf, "t.csv:1: too many columns in the header (4097, the limit is 4096)");
    free(csv);

    /* a cell longer than 64 KiB */
    n = 70000 + 16;
    csv = malloc(n);
    assert_non_null(csv);
    len = put(csv, "a,b\n1,");
    memset(csv + len, 'x', 70000);
    len += 70000;
    len += put(csv + len, "\n2,3\n");
    Table t;
    Diag d;
    assert_int_equal(table_parse("t.csv", csv, len, &t, &d), 0);
    assert_int_equal(t.nrow, 2);
    row_error(&t.row[0], buf, sizeof buf);
    assert_string_equal(buf, "t.csv:2:3: cell in column 'b' is longer than 65536 bytes");
    assert_string_equal(t.row[0].cell[1].text, "");
    assert_null(t.row[1].error);
    table_free(&t);
    free(csv);
}

static void test_too_many_rows(void **state)
{
    (void)state;
    char buf[600];
    size_t n = 2 + 2 * ((size_t)TABLE_MAX_ROWS + 1);
    char *csv = malloc(n);
    assert_non_null(csv);
    put(csv, "a\n");
    for (size_t i = 2; i < n; i += 2) {
        csv[i] = '1';
        csv[i + 1] = '\n';
    }
    parse_fail(csv, n, buf, sizeof buf);
    assert_string_equal(buf, "t.csv:1000002: too many rows (the limit is 1000000)");
    Table t;
    Diag d;
    assert_int_equal(table_parse("t.csv", csv, n - 2, &t, &d), 0);
    assert_int_equal(t.nrow, TABLE_MAX_ROWS);
    table_free(&t);
    free(csv);
}

/* The cells' store: rows across many blocks of cells and characters read
 * back intact, a text repeated on every line is kept once, and a row wider
 * than a block of cells gets one of its own. */
static void test_store(void **state)
{
    (void)state;
    const int rows = 20000, wide = 5000;
    size_t n = 64 + (size_t)rows * 48 + (size_t)wide * 4;
    char *csv = malloc(n);
    assert_non_null(csv);
    size_t len = put(csv, "scenario,system,devices\n");
    for (int i = 0; i < rows; i++)
        len += (size_t)snprintf(csv + len, n - len, "s%d,%s,%d\n", i, i % 2 ? "dgx-h100" : "dgx-b200",
                                8 << (i % 5));
    for (int i = 0; i < wide; i++) /* a row of 5,000 fields: an error, kept */
        len += (size_t)snprintf(csv + len, n - len, "%s%d", i ? "," : "", i % 7);
    csv[len++] = '\n';
    Table t;
    Diag d;
    assert_int_equal(table_parse("t.csv", csv, len, &t, &d), 0);
    assert_int_equal(t.nrow, rows + 1);
    char want[32];
    for (int i = 0; i < rows; i++) {
        snprintf(want, sizeof want, "s%d", i);
        assert_string_equal(t.row[i].cell[0].text, want);
        assert_string_equal(t.row[i].cell[1].text, i % 2 ? "dgx-h100" : "dgx-b200");
        snprintf(want, sizeof want, "%d", 8 << (i % 5));
        assert_string_equal(t.row[i].cell[2].text, want);
        assert_int_equal(table_cell_line(&t.row[i], 2), i + 2);
    }
    assert_ptr_equal(t.row[0].cell[1].text, t.row[rows - 2].cell[1].text); /* kept once */
    assert_ptr_equal(t.row[3].cell[2].text, t.row[rows - 2].cell[2].text);
    assert_ptr_not_equal(t.row[0].cell[1].text, t.row[1].cell[1].text);
    const TableRow *w = &t.row[rows];
    assert_int_equal(w->ncell, TABLE_MAX_COLS + 1); /* wider than a block; no more is kept */
    assert_non_null(w->error);
    for (int i = 0; i < w->ncell; i++) {
        snprintf(want, sizeof want, "%d", i % 7);
        assert_string_equal(w->cell[i].text, want);
    }
    table_free(&t);
    table_free(&t); /* safe twice */
    free(csv);
}

static void test_read_file(void **state)
{
    (void)state;
    Table t;
    Diag d;
    char buf[600];
    assert_int_equal(table_read("/nonexistent/x.csv", &t, &d), -1);
    diag_format(&d, buf, sizeof buf);
    assert_string_equal(buf, "/nonexistent/x.csv: cannot open: No such file or directory");

    char path[64];
    snprintf(path, sizeof path, "/tmp/df_test_table_%ld.csv", (long)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# title: From a file\nscenario,devices\nx,8\n", f);
    fclose(f);
    assert_int_equal(table_read(path, &t, &d), 0);
    assert_string_equal(t.title, "From a file");
    assert_int_equal(t.nrow, 1);
    assert_string_equal(t.path, path);
    table_free(&t);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),           cmocka_unit_test(test_bom_crlf),
        cmocka_unit_test(test_comments_title),  cmocka_unit_test(test_quoted_comma_newline),
        cmocka_unit_test(test_too_many_fields), cmocka_unit_test(test_fewer_fields_and_empty_rows),
        cmocka_unit_test(test_bad_quotes),      cmocka_unit_test(test_unterminated_quote),
        cmocka_unit_test(test_header_faults),   cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_header_only),     cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_cell_positions),  cmocka_unit_test(test_plain_rows),
        cmocka_unit_test(test_limits),          cmocka_unit_test(test_too_many_rows),
        cmocka_unit_test(test_read_file),       cmocka_unit_test(test_other_encodings),
        cmocka_unit_test(test_nul_record),      cmocka_unit_test(test_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
