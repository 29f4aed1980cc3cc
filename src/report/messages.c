/* report/messages.c — what a run says on stderr about its rows: the failed
 * rows' messages, one message many rows share printed once with the table
 * lines it affects, and the templates' and rows' warnings, each once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

typedef struct {
    char *msg;
    int row;  /* index among the scenarios */
    int line; /* its table line */
} RowMsg;

typedef struct {
    int first; /* index of its first entry in the sorted RowMsg array */
    int count;
    int row; /* its first row, for the order of printing */
} MsgGroup;

static int cmp_rowmsg(const void *a, const void *b)
{
    const RowMsg *x = a, *y = b;
    int c = strcmp(x->msg, y->msg);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

static int cmp_group(const void *a, const void *b)
{
    const MsgGroup *x = a, *y = b;
    return (x->row > y->row) - (x->row < y->row);
}

void rpt_print_row_errors(const Run *run, const char *input)
{
    /* a streamed run has its failures apart: its rows are not all kept */
    const int nmsg = run->fail ? run->nfail : run->n;
    const size_t cap = (size_t)(nmsg > 0 ? nmsg : 1);
    RowMsg *v = calloc(cap, sizeof *v);
    MsgGroup *g = calloc(cap, sizeof *g);
    int n = 0, ng = 0;
    for (int i = 0; i < nmsg; i++) {
        char msg[1200];
        int line;
        if (run->fail) {
            snprintf(msg, sizeof msg, "%s", run->fail[i].said);
            line = run->fail[i].row_line;
        } else {
            const RunRow *rr = &run->row[i];
            if (rr->built && rr->r.status != STATUS_ERROR)
                continue;
            run_error_message(rr, input, msg, sizeof msg);
            line = rr->line;
        }
        if (!v || !g || !(v[n].msg = strdup(msg))) {
            fprintf(stderr, "%s\n", msg); /* no memory to group: say it as it comes */
            continue;
        }
        v[n].row = run->fail ? run->fail[i].index : i;
        v[n++].line = line;
    }
    if (v && g) {
        qsort(v, (size_t)n, sizeof *v, cmp_rowmsg);
        for (int i = 0; i < n; i++) {
            if (i == 0 || strcmp(v[i].msg, v[i - 1].msg))
                g[ng++] = (MsgGroup){i, 0, v[i].row};
            g[ng - 1].count++;
        }
        qsort(g, (size_t)ng, sizeof *g, cmp_group);
        for (int k = 0; k < ng; k++) {
            const RowMsg *e = &v[g[k].first];
            if (g[k].count == 1) {
                fprintf(stderr, "%s\n", e->msg);
                continue;
            }
            /* the table lines (a sweep's scenarios share theirs), the first ten */
            fprintf(stderr, "%s (the same for %d scenarios, table line", e->msg, g[k].count);
            int shown = 0, last = -1, more = 0;
            for (int i = 0; i < g[k].count; i++) {
                const int line = e[i].line;
                if (line == last)
                    continue;
                if (shown == 10) {
                    more = 1;
                    break;
                }
                fprintf(stderr, "%s %d",
                        shown ? "," : (g[k].count > 1 && line != e[g[k].count - 1].line ? "s" : ""), line);
                shown++;
                last = line;
            }
            fprintf(stderr, "%s)\n", more ? ", ..." : "");
        }
    }
    for (int i = 0; i < n; i++)
        free(v[i].msg);
    free(v);
    free(g);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void rpt_print_warnings(const TemplateDB *db, const Run *run)
{
    for (int i = 0; i < db->n; i++)
        for (int k = 0; k < db->t[i]->warnings.n; k++)
            fprintf(stderr, "%s\n", db->t[i]->warnings.s[k]);
    for (int i = 0; i < run->nwarn; i++) /* a streamed run's, distinct and sorted already */
        fprintf(stderr, "%s\n", run->warn[i]);
    int n = 0;
    for (int i = 0; i < run->n; i++)
        n += run->row[i].src.warnings.n;
    if (!n)
        return;
    char **v = malloc(sizeof *v * (size_t)n);
    if (!v)
        return;
    n = 0;
    for (int i = 0; i < run->n; i++)
        for (int k = 0; k < run->row[i].src.warnings.n; k++)
            v[n++] = run->row[i].src.warnings.s[k];
    qsort(v, (size_t)n, sizeof *v, cmp_str);
    for (int i = 0; i < n; i++)
        if (i == 0 || strcmp(v[i], v[i - 1]))
            fprintf(stderr, "%s\n", v[i]);
    free(v);
}
