/* io/sweep.c — sweep cells ("8|16|32", "8..1024*2", "1..4+1") and the
 * expansion of a table row into the cartesian product of its sweeps, the
 * first swept column varying slowest (DESIGN.md §4). */
#include "io/sweep.h"
#include "core/param.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REL_TOL 1e-9

static const char UNITS_HINT[] = "units are allowed only in a list, e.g. '1 TB/s|2 TB/s'";

static int is_blank(int c)
{
    return c == ' ' || c == '\t';
}

/* Write the reason for a fault into err (callers then return -1). */
static void say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* Trim [*s, *s + *n) of spaces and tabs. */
static void trim(const char **s, size_t *n)
{
    while (*n > 0 && is_blank((*s)[0])) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && is_blank((*s)[*n - 1]))
        (*n)--;
}

/* Length of the plain number at s: [+-] digits [. digits] [e [+-] digits],
 * with digits on at least one side of the point; 0 if there is none. */
static size_t number_len(const char *s)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    while (isdigit((unsigned char)s[i])) {
        i++;
        digits++;
    }
    if (s[i] == '.' && s[i + 1] != '.') {
        i++;
        while (isdigit((unsigned char)s[i])) {
            i++;
            digits++;
        }
    }
    if (!digits)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (isdigit((unsigned char)s[j])) {
            while (isdigit((unsigned char)s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

/* The whole of [s, s + n) as a finite plain number. */
static int parse_number(const char *s, size_t n, double *v)
{
    trim(&s, &n);
    if (n == 0 || number_len(s) != n)
        return -1;
    char *tok = dup_n(s, n); /* strtod alone would read "8." of "8..64" */
    if (!tok)
        return -1;
    char *end;
    *v = strtod(tok, &end);
    int ok = end == tok + n && isfinite(*v);
    free(tok);
    return ok ? 0 : -1;
}

/* A cell starts like a number ([+-][.]digit) and holds "..". */
static int is_range(const char *s)
{
    while (is_blank(*s))
        s++;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (*p == '.')
        p++;
    return isdigit((unsigned char)*p) && strstr(s, "..") != NULL;
}

int sweep_is_sweep(const char *cell)
{
    return strchr(cell, '|') != NULL || is_range(cell);
}

/* A range value: a whole number without decimals, else %.6g. */
static void format_value(double v, char *buf, size_t n)
{
    double r = round(v);
    if (fabs(r) < 1e15 && fabs(v - r) <= REL_TOL * fmax(1.0, fabs(v)))
        snprintf(buf, n, "%.0f", r == 0 ? 0.0 : r);
    else
        snprintf(buf, n, "%.6g", v);
}

static int list_values(const char *cell, char **vals, int n, char *err, size_t errlen)
{
    const char *s = cell;
    for (int i = 0; i < n; i++) {
        const char *bar = strchr(s, '|');
        size_t len = bar ? (size_t)(bar - s) : strlen(s);
        const char *item = s;
        trim(&item, &len);
        if (len == 0) {
            say(err, errlen, "empty item %d in the list", i + 1);
            return -1;
        }
        vals[i] = dup_n(item, len);
        if (!vals[i]) {
            say(err, errlen, "out of memory");
            return -1;
        }
        s = bar ? bar + 1 : s + strlen(s);
    }
    return 0;
}

/* Parse "start..end*factor" or "start..end+step".  *geometric says which. */
static int parse_range(const char *cell, double *start, double *end, double *by, int *geometric, char *err,
                       size_t errlen)
{
    const char *dots = strstr(cell, "..");
    const char *s = cell;
    size_t n = (size_t)(dots - cell);
    if (parse_number(s, n, start) < 0) {
        trim(&s, &n);
        if (number_len(s) == n) {
            say(err, errlen, "range start '%.*s' is out of range", (int)n, s);
            return -1;
        }
        say(err, errlen, "range start '%.*s' is not a plain number (%s)", (int)n, s, UNITS_HINT);
        return -1;
    }
    const char *rest = dots + 2;
    while (is_blank(*rest))
        rest++;
    const char *op = rest + number_len(rest);
    while (is_blank(*op))
        op++;
    if (op == rest || (*op && *op != '*' && *op != '+')) {
        /* name the end as written: up to the last operator, if any */
        const char *last = NULL;
        for (const char *p = rest; *p; p++)
            if (*p == '*' || *p == '+')
                last = p;
        size_t len = last ? (size_t)(last - rest) : strlen(rest);
        trim(&rest, &len);
        say(err, errlen, "range end '%.*s' is not a plain number (%s)", (int)len, rest, UNITS_HINT);
        return -1;
    }
    if (!*op) {
        say(err, errlen,
            "a range needs '*factor' (geometric, e.g. 8..1024*2) or '+step' (arithmetic, "
            "e.g. 1..4+1)");
        return -1;
    }
    if (parse_number(rest, (size_t)(op - rest), end) < 0) {
        size_t len = (size_t)(op - rest);
        trim(&rest, &len);
        say(err, errlen, "range end '%.*s' is out of range", (int)len, rest);
        return -1;
    }
    *geometric = *op == '*';
    const char *b = op + 1;
    if (parse_number(b, strlen(b), by) < 0) {
        size_t len = strlen(b);
        trim(&b, &len);
        say(err, errlen, "%s '%.*s' is not a plain number", *geometric ? "factor" : "step", (int)len, b);
        return -1;
    }
    return 0;
}

/* The values of a range into *vals (allocated here, *n of them). */
static int range_values(const char *cell, char ***vals, int *n, char *err, size_t errlen)
{
    double start = 0, end = 0, by = 0;
    int geometric = 0;
    if (parse_range(cell, &start, &end, &by, &geometric, err, errlen) < 0)
        return -1;
    if (geometric && by <= 1) {
        say(err, errlen, "the factor must be greater than 1, got %g", by);
        return -1;
    }
    if (!geometric && by <= 0) {
        say(err, errlen, "the step must be greater than 0, got %g", by);
        return -1;
    }
    if (end < start) {
        say(err, errlen, "the end %g is less than the start %g", end, start);
        return -1;
    }
    if (geometric && start <= 0) {
        say(err, errlen, "a geometric range needs a start greater than 0, got %g", start);
        return -1;
    }
    /* count the values first */
    int count;
    if (geometric) {
        count = 0;
        while (start * pow(by, count) <= end * (1 + REL_TOL)) {
            if (++count > SWEEP_MAX_VALUES)
                break;
        }
    } else {
        double q = (end - start) / by;
        if (!(q < SWEEP_MAX_VALUES))
            count = SWEEP_MAX_VALUES + 1;
        else
            count = (int)floor(q + REL_TOL * fmax(1.0, q)) + 1;
    }
    if (count > SWEEP_MAX_VALUES) {
        say(err, errlen, "more than %d values", SWEEP_MAX_VALUES);
        return -1;
    }
    if (count < 1) { /* cannot happen: start <= end */
        say(err, errlen, "the range is empty");
        return -1;
    }
    *vals = calloc((size_t)count, sizeof **vals);
    if (!*vals) {
        say(err, errlen, "out of memory");
        return -1;
    }
    *n = count;
    /* the last value lands on the end up to rounding: a hair of a step
     * (never a whole step of a large value: 1e9..1e9+3+1 keeps each) and
     * the rounding of the magnitudes */
    const double tol = REL_TOL * by + 8 * DBL_EPSILON * fmax(fabs(start), fabs(end));
    for (int k = 0; k < count; k++) {
        double v = geometric ? start * pow(by, k) : start + k * by;
        if (fabs(v - end) <= (geometric ? REL_TOL * end : tol))
            v = end;
        char buf[64];
        format_value(v, buf, sizeof buf);
        (*vals)[k] = dup_n(buf, strlen(buf));
        if (!(*vals)[k]) {
            say(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

/* The values of a cell; a literal cell (free text) is always one value. */
static int cell_values(const char *cell, int literal, char ***values, int *n, char *err, size_t errlen)
{
    char **vals = NULL;
    int count = 0, rc;
    *values = NULL;
    *n = 0;
    if (!literal && strchr(cell, '|')) {
        count = 1;
        for (const char *p = cell; *p; p++)
            count += *p == '|';
        if (count > SWEEP_MAX_VALUES) {
            say(err, errlen, "more than %d values", SWEEP_MAX_VALUES);
            return -1;
        }
        vals = calloc((size_t)count, sizeof *vals);
        if (!vals) {
            say(err, errlen, "out of memory");
            return -1;
        }
        rc = list_values(cell, vals, count, err, errlen);
    } else if (!literal && is_range(cell)) {
        rc = range_values(cell, &vals, &count, err, errlen);
    } else {
        count = 1;
        vals = calloc(1, sizeof *vals);
        rc = 0;
        if (!vals || !(vals[0] = dup_n(cell, strlen(cell)))) {
            say(err, errlen, "out of memory");
            rc = -1;
        }
    }
    if (rc < 0) {
        sweep_free_values(vals, count);
        return -1;
    }
    *values = vals;
    *n = count;
    return 0;
}

int sweep_values(const char *cell, char ***values, int *n, char *err, size_t errlen)
{
    return cell_values(cell, 0, values, n, err, errlen);
}

/* A column of free text (the scenario's name, its series, its baseline):
 * never a sweep, so 'a|b' is one name, not two scenarios. */
static int text_column(const char *name)
{
    const ParamTable *in = NULL;
    size_t off = 0;
    const ParamDef *def = param_find(&param_scenario_table, name, &in, &off);
    return def && def->type == P_STRING;
}

long sweep_count_row(const Table *t, const TableRow *r)
{
    if (r->error)
        return 1;
    long total = 1;
    for (int j = 0; j < t->ncol; j++) {
        const char *text = j < r->ncell ? r->cell[j].text : "";
        if (!sweep_is_sweep(text) || text_column(t->col_name[j])) /* the cheaper test first */
            continue;
        char **vals = NULL;
        int nv = 0;
        char err[DIAG_MSG_MAX];
        if (cell_values(text, 0, &vals, &nv, err, sizeof err) < 0)
            return 1;
        sweep_free_values(vals, nv);
        if (nv > 0 && total > SWEEP_MAX_ROWS / nv)
            return 1; /* the expansion refuses it: one failed scenario */
        total *= nv > 0 ? nv : 1;
    }
    return total;
}

void sweep_free_values(char **values, int n)
{
    if (!values)
        return;
    for (int i = 0; i < n; i++)
        free(values[i]);
    free(values);
}

/* Append "name=value" to the suffix (with a ',' after the first); once it
 * does not fit, cut at a character boundary and end in "...". */
static void suffix_add(char *suf, size_t *len, int *full, const char *name, const char *val)
{
    if (*full)
        return;
    char item[SWEEP_SUFFIX_MAX * 2];
    int k = snprintf(item, sizeof item, "%s%s=%s", *len ? "," : "", name, val);
    size_t need = k < 0 ? 0 : (size_t)k;
    if (*len + need < SWEEP_SUFFIX_MAX && need < sizeof item) {
        memcpy(suf + *len, item, need + 1);
        *len += need;
        return;
    }
    *full = 1;
    size_t room = SWEEP_SUFFIX_MAX - 4 - *len; /* keep room for "..." and the NUL */
    size_t take = need < room ? need : room;
    while (take > 0 && ((unsigned char)item[take] & 0xC0) == 0x80)
        take--; /* do not split a UTF-8 character */
    memcpy(suf + *len, item, take);
    memcpy(suf + *len + take, "...", 4);
    *len += take + 3;
}

/* Column j holds the table's own text (a cell of one value): nothing of it is freed. */
static int borrowed(const SweepIter *it, int j)
{
    return it->one && it->vals[j] == &it->one[j];
}

void sweep_iter_close(SweepIter *it)
{
    for (int j = 0; it->vals && it->nv && j < it->ncol; j++)
        if (!borrowed(it, j))
            sweep_free_values(it->vals[j], it->nv[j]);
    free(it->vals);
    free(it->one);
    free(it->nv);
    free(it->swept);
    free(it->row.val);
    memset(it, 0, sizeof *it);
}

int sweep_iter_open(const Table *t, const TableRow *r, SweepIter *it, Diag *d)
{
    memset(it, 0, sizeof *it);
    if (r->error) {
        if (d)
            *d = *r->error;
        return -1;
    }
    const int ncol = t->ncol;
    if (ncol < 1)
        return diag_set(d, t->path, r->line, 0, "the table has no columns");
    it->t = t;
    it->ncol = ncol;
    it->vals = calloc((size_t)ncol + 1, sizeof *it->vals);
    it->nv = calloc((size_t)ncol + 1, sizeof *it->nv);
    it->swept = calloc((size_t)ncol + 1, sizeof *it->swept);
    it->row.val = calloc((size_t)ncol + 1, sizeof *it->row.val);
    it->one = calloc((size_t)ncol + 1, sizeof *it->one);
    if (!it->vals || !it->nv || !it->swept || !it->row.val || !it->one) {
        sweep_iter_close(it);
        return diag_set(d, t->path, r->line, 0, "out of memory");
    }
    long total = 1;
    for (int j = 0; j < ncol; j++) {
        const char *text = j < r->ncell ? r->cell[j].text : "";
        char err[DIAG_MSG_MAX];
        const int sweep = sweep_is_sweep(text);
        const int literal = sweep && text_column(t->col_name[j]); /* only a sweep's text can be literal */
        it->swept[j] = sweep && !literal;
        if (!sweep) { /* one value, as it is: not copied */
            it->one[j] = (char *)text;
            it->vals[j] = &it->one[j];
            it->nv[j] = 1;
            continue;
        }
        if (cell_values(text, literal, &it->vals[j], &it->nv[j], err, sizeof err) < 0) {
            int line = j < r->ncell ? table_cell_line(r, j) : r->line;
            int col = j < r->ncell ? table_cell_col(r, j) : 0;
            diag_set(d, t->path, line, col, "column '%s': bad sweep '%s': %s", t->col_name[j], text, err);
            sweep_iter_close(it);
            return -1;
        }
        if (!it->vals[j] || it->nv[j] < 1) { /* cannot happen: a cell has at least one value */
            diag_set(d, t->path, r->line, 0, "column '%s': no values", t->col_name[j]);
            sweep_iter_close(it);
            return -1;
        }
        if (total > SWEEP_MAX_ROWS / it->nv[j]) {
            diag_set(d, t->path, r->line, 0, "the sweeps of this row give more than %d scenarios",
                     SWEEP_MAX_ROWS);
            sweep_iter_close(it);
            return -1;
        }
        total *= it->nv[j];
    }
    it->n = total;
    return 0;
}

const SweepRow *sweep_iter_at(SweepIter *it, long i)
{
    SweepRow *row = &it->row;
    long idx = i;
    for (int j = it->ncol - 1; j >= 0; j--) {
        row->val[j] = it->vals[j][idx % it->nv[j]];
        idx /= it->nv[j];
    }
    size_t len = 0;
    int full = 0;
    row->suffix[0] = '\0';
    for (int j = 0; j < it->ncol; j++)
        if (it->swept[j])
            suffix_add(row->suffix, &len, &full, it->t->col_name[j], row->val[j]);
    return row;
}

int sweep_expand_row(const Table *t, const TableRow *r, SweepRow **out, int *nout, Diag *d)
{
    *out = NULL;
    *nout = 0;
    SweepIter it;
    if (sweep_iter_open(t, r, &it, d))
        return -1;
    const int ncol = it.ncol;
    const long total = it.n;
    if (!it.nv || !it.vals || ncol < 1 || total < 1) { /* cannot happen: open checked them */
        sweep_iter_close(&it);
        return diag_set(d, t->path, r->line, 0, "no scenarios");
    }
    size_t bytes = 0;
    for (int j = 0; j < ncol; j++)
        for (int k = 0; k < it.nv[j]; k++)
            bytes += strlen(it.vals[j][k]) + 1;
    /* one block: the rows, then every row's val array, then the strings */
    size_t head = (size_t)total * sizeof(SweepRow);
    size_t ptrs = (size_t)total * (size_t)ncol;
    if ((size_t)total > SIZE_MAX / sizeof(char *) / (size_t)ncol) {
        sweep_iter_close(&it);
        return diag_set(d, t->path, r->line, 0, "out of memory");
    }
    const size_t block = head + ptrs * sizeof(char *) + bytes;
    SweepRow *rows = malloc(block);
    if (!rows) {
        sweep_iter_close(&it);
        return diag_set(d, t->path, r->line, 0, "out of memory");
    }
    char **pv = (char **)(void *)((char *)rows + head);
    char *str = (char *)(pv + ptrs);
    /* the block's copy of each value, and where it lies */
    for (int j = 0; j < ncol; j++)
        for (int k = 0; k < it.nv[j]; k++) {
            size_t len = strlen(it.vals[j][k]) + 1;
            memcpy(str, it.vals[j][k], len);
            if (!borrowed(&it, j))
                free(it.vals[j][k]);
            it.vals[j][k] = str;
            str += len;
        }
    for (long i = 0; i < total; i++) {
        const SweepRow *at = sweep_iter_at(&it, i);
        SweepRow *row = &rows[i];
        row->val = pv + (size_t)i * (size_t)ncol;
        memcpy(row->val, at->val, sizeof *row->val * (size_t)ncol);
        memcpy(row->suffix, at->suffix, sizeof row->suffix);
    }
    /* the values now live in the block: only the arrays that held them go */
    for (int j = 0; j < ncol; j++) {
        if (!borrowed(&it, j))
            free(it.vals[j]);
        it.vals[j] = NULL;
        it.nv[j] = 0;
    }
    sweep_iter_close(&it);
    *out = rows;
    *nout = (int)total;
    return 0;
}

void sweep_free_rows(SweepRow *rows, int n, int ncol)
{
    (void)n;
    (void)ncol;
    free(rows);
}
