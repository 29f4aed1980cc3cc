/* io/nccltests.c — nccl-tests' console output (see nccltests.h). */
#include "nccltests.h"

#include "atomic.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *program;
    Collective coll;
} programs[] = {
    {"all_reduce_perf", COLL_ALLREDUCE},
    {"all_gather_perf", COLL_ALLGATHER},
    {"reduce_scatter_perf", COLL_REDUCESCATTER},
    {"alltoall_perf", COLL_ALLTOALL},
};
#define NPROGRAMS ((int)(sizeof programs / sizeof programs[0]))

#define NCCL_MAX_LINE   1024
#define NCCL_MAX_FIELDS 24
#define NCCL_MAX_HOSTS  4096

/* Split line into whitespace-separated fields (in place). */
static int split(char *line, char **f, int max)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t && n < max;
         t = strtok_r(NULL, " \t\r", &save))
        f[n++] = t;
    return n;
}

static int program_of(const char *name, NcclRun *out)
{
    for (int i = 0; i < NPROGRAMS; i++)
        if (strstr(name, programs[i].program)) {
            snprintf(out->program, sizeof out->program, "%s", programs[i].program);
            out->coll = programs[i].coll;
            return 0;
        }
    return -1;
}

/* What one parse has seen: the columns, the hosts. */
typedef struct {
    int col_size, col_busbw, col_wrong, ncols;
    char **host;
    int nhost;
} Seen;

static int add_host(Seen *s, const char *h)
{
    for (int i = 0; i < s->nhost; i++)
        if (!strcmp(s->host[i], h))
            return 0;
    if (s->nhost == NCCL_MAX_HOSTS)
        return 0;
    s->host[s->nhost] = strdup(h);
    return s->host[s->nhost] ? (s->nhost++, 0) : -1;
}

/* A "#" line: the program, a rank, or the column names. */
static int comment_line(const char *path, int ln, char *line, NcclRun *out, Seen *s, Diag *d)
{
    char *f[NCCL_MAX_FIELDS];
    const char *start = strstr(line, "Collective test starting:");
    if (start) {
        char name[64] = "";
        sscanf(start + strlen("Collective test starting:"), "%63s", name);
        if (program_of(name, out))
            return diag_set(d, path, ln, 0,
                            "'%s' is none of the programs read here (all_reduce_perf, "
                            "all_gather_perf, reduce_scatter_perf, alltoall_perf)",
                            name);
        return 0;
    }
    const int n = split(line + 1, f, NCCL_MAX_FIELDS);
    if (n >= 6 && !strcmp(f[0], "Rank")) {
        for (int i = 0; i + 1 < n; i++)
            if (!strcmp(f[i], "on") && add_host(s, f[i + 1]))
                return diag_set(d, path, ln, 0, "out of memory");
        out->ranks++;
        return 0;
    }
    if (n >= 4 && !strcmp(f[0], "size") && s->col_size < 0) {
        s->ncols = n;
        s->col_size = 0;
        for (int i = 0; i < n; i++) {
            if (!strcmp(f[i], "busbw") && s->col_busbw < 0)
                s->col_busbw = i;
            if (!strcmp(f[i], "#wrong") && s->col_wrong < 0)
                s->col_wrong = i;
        }
        if (s->col_busbw < 0)
            return diag_set(d, path, ln, 0, "the column names hold no 'busbw': not the output of nccl-tests");
    }
    return 0;
}

static int number(const char *t, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(t, &end);
    return *end || errno || !isfinite(*v) ? -1 : 0;
}

/* A data line: size ... busbw ... #wrong ... */
static int data_line(const char *path, int ln, char *line, NcclRun *out, const Seen *s, Diag *d)
{
    char *f[NCCL_MAX_FIELDS];
    const int n = split(line, f, NCCL_MAX_FIELDS);
    if (n == 0)
        return 0;
    if (s->col_size < 0)
        return diag_set(d, path, ln, 0,
                        "a measurement before the column names ('#  size  count  type ... busbw'): "
                        "not the output of nccl-tests");
    if (n != s->ncols)
        return diag_set(d, path, ln, 0, "expected %d fields as the column names say, found %d", s->ncols, n);
    double size, bw, wrong = 0;
    if (number(f[s->col_size], &size) || size <= 0)
        return diag_set(d, path, ln, 0, "column 'size': expected a message size in bytes, found '%s'",
                        f[s->col_size]);
    if (number(f[s->col_busbw], &bw) || bw < 0)
        return diag_set(d, path, ln, 0, "column 'busbw': expected GB/s, found '%s'", f[s->col_busbw]);
    if (s->col_wrong >= 0 && strcmp(f[s->col_wrong], "N/A") &&
        (number(f[s->col_wrong], &wrong) || wrong != 0))
        return diag_set(d, path, ln, 0,
                        "the program found %s wrong values at %s bytes: the measurement is not "
                        "valid",
                        f[s->col_wrong], f[s->col_size]);
    if (out->n > 0 && size <= out->size[out->n - 1])
        return diag_set(d, path, ln, 0, "sizes must increase (%s after %.0f)", f[s->col_size],
                        out->size[out->n - 1]);
    if (out->n == NCCL_MAX_ROWS)
        return diag_set(d, path, ln, 0, "more than %d message sizes", NCCL_MAX_ROWS);
    out->size[out->n] = size;
    out->busbw[out->n++] = bw * 1e9; /* nccl-tests' GB/s are 1e9 bytes */
    return 0;
}

int nccl_parse(const char *path, const char *text, size_t len, NcclRun *out, Diag *d)
{
    memset(out, 0, sizeof *out);
    out->coll = COLL_COUNT;
    Seen s = {.col_size = -1, .col_busbw = -1, .col_wrong = -1};
    s.host = calloc(NCCL_MAX_HOSTS, sizeof *s.host);
    if (!s.host)
        return diag_set(d, path, 0, 0, "out of memory");
    int rc = 0, ln = 0;
    for (size_t i = 0; i < len && !rc;) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        ln++;
        char line[NCCL_MAX_LINE];
        const size_t k = j - i < sizeof line - 1 ? j - i : sizeof line - 1;
        memcpy(line, text + i, k);
        line[k] = 0;
        if (memchr(line, 0, k))
            rc = diag_set(d, path, ln, 0, "a NUL byte: not the text nccl-tests prints");
        else if (line[0] == '#')
            rc = comment_line(path, ln, line, out, &s, d);
        else
            rc = data_line(path, ln, line, out, &s, d);
        i = j + 1;
    }
    out->hosts = s.nhost;
    for (int i = 0; i < s.nhost; i++)
        free(s.host[i]);
    free(s.host);
    if (rc)
        return -1;
    if (out->coll == COLL_COUNT) {
        const char *base = strrchr(path, '/');
        if (program_of(base ? base + 1 : path, out))
            return diag_set(d, path, 0, 0,
                            "no '# Collective test starting: PROGRAM' line and no program in the "
                            "file's name: name the file after the program (all_reduce_perf, all_gather_perf, "
                            "reduce_scatter_perf, alltoall_perf)");
    }
    if (out->ranks < 2)
        return diag_set(d, path, 0, 0,
                        "%s: %d '#  Rank' line%s under '# Using devices': a collective needs 2 "
                        "ranks or more",
                        out->program, out->ranks, out->ranks == 1 ? "" : "s");
    if (out->n == 0)
        return diag_set(d, path, 0, 0, "%s: no measurement lines", out->program);
    return 0;
}

#define NCCL_MAX_BYTES ((size_t)16 << 20) /* far more than any nccl-tests run prints */

int nccl_read(const char *path, NcclRun *out, Diag *d)
{
    char *buf;
    size_t len;
    if (file_read_all(path, NCCL_MAX_BYTES + 1, &buf, &len, d))
        return -1;
    const int rc = len > NCCL_MAX_BYTES
                       ? diag_set(d, path, 0, 0, "more than 16 MiB: not the output of one nccl-tests run")
                       : nccl_parse(path, buf, len, out, d);
    free(buf);
    return rc;
}

typedef struct {
    double x, y;
} Pt;

static int cmp_pt(const void *a, const void *b)
{
    const double x = ((const Pt *)a)->x, y = ((const Pt *)b)->x;
    return (x > y) - (x < y);
}

/* The all-reduce size that puts as many bytes on each rank's wire as a
 * message of `size` of collective c: an all-reduce moves 2(p-1)/p of its
 * size, the others (p-1)/p. */
static double allreduce_size(Collective c, double size)
{
    return c == COLL_ALLREDUCE ? size : size / 2.0;
}

int nccl_curve(const NcclRun *runs, int n, double bandwidth, Points *out, double *plateau, int *ranks,
               Diag *d)
{
    memset(out, 0, sizeof *out);
    *plateau = 0;
    *ranks = 0;
    int total = 0;
    for (int r = 0; r < n; r++)
        total += runs[r].n;
    Pt *p = calloc((size_t)total + 1, sizeof *p);
    if (!p)
        return diag_set(d, NULL, 0, 0, "out of memory");
    int k = 0;
    for (int r = 0; r < n; r++) {
        if (runs[r].ranks > *ranks)
            *ranks = runs[r].ranks;
        for (int i = 0; i < runs[r].n; i++)
            if (runs[r].busbw[i] > 0) {
                p[k].x = allreduce_size(runs[r].coll, runs[r].size[i]);
                p[k++].y = fmin(2.0, runs[r].busbw[i] / bandwidth);
            }
    }
    if (k == 0) {
        free(p);
        return diag_set(d, NULL, 0, 0, "no message size measured any bus bandwidth");
    }
    qsort(p, (size_t)k, sizeof *p, cmp_pt);
    int m = 0; /* one point a size, their mean */
    for (int i = 0; i < k;) {
        int j = i;
        double s = 0;
        while (j < k && p[j].x == p[i].x)
            s += p[j++].y;
        p[m].x = p[i].x;
        p[m++].y = s / (j - i);
        i = j;
    }
    for (int i = 0; i < m; i++)
        *plateau = fmax(*plateau, p[i].y);
    /* at most CURVE_MAX_POINTS, evenly over the sizes, both ends kept */
    const int keep = m < CURVE_MAX_POINTS ? m : CURVE_MAX_POINTS;
    for (int i = 0; i < keep; i++) {
        const int src = keep == 1 ? 0 : (int)floor((double)i * (m - 1) / (keep - 1) + 0.5);
        out->x[i] = p[src].x;
        out->y[i] = p[src].y;
    }
    out->n = keep;
    free(p);
    return 0;
}
