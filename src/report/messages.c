/* report/messages.c — what a run says on stderr about its rows: the failed
 * rows' messages, one message many rows share printed once with the table
 * lines it affects, and the templates' and rows' warnings, each once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/keymap.h"
#include "report/report.h"

/* The failed rows' messages grouped as they come, in table order: one
 * message many rows share is said once, at its first row, with the table
 * lines it affects (the first ten).  Memory: the distinct messages since
 * the last flush, at most RPT_SAID_GROUPS; past that the groups so far are
 * said and a new set begins (a message seen again after a flush starts a
 * group of its own), so that a million failed rows take no more. */
#define RPT_SAID_GROUPS 4096
#define SAID_LINES      10

typedef struct {
    int count;
    int first_line, last_line; /* the table lines of its first and its latest row */
    int shown, more;           /* lines listed (line[0..shown)), and whether more were left out */
    int line[SAID_LINES];
} SaidGroup;

struct RptSaid {
    FILE *out;
    KeyMap map; /* message -> group id, in order of first row */
    SaidGroup *g;
    size_t cap;
};

RptSaid *rpt_said_new(FILE *out)
{
    RptSaid *s = calloc(1, sizeof *s);
    if (s)
        s->out = out;
    return s;
}

/* Say every group so far, in order of first row, and begin afresh. */
static void said_flush(RptSaid *s)
{
    const char **msg = s->map.n ? calloc(s->map.n, sizeof *msg) : NULL;
    for (size_t j = 0; msg && j < s->map.cap; j++)
        if (s->map.key[j])
            msg[s->map.id[j]] = s->map.key[j];
    for (size_t id = 0; msg && id < s->map.n; id++) {
        const SaidGroup *g = &s->g[id];
        if (g->count == 1) {
            fprintf(s->out, "%s\n", msg[id]);
            continue;
        }
        fprintf(s->out, "%s (the same for %d scenarios, table line%s", msg[id], g->count,
                g->first_line != g->last_line ? "s" : "");
        for (int i = 0; i < g->shown; i++)
            fprintf(s->out, "%s %d", i ? "," : "", g->line[i]);
        fprintf(s->out, "%s)\n", g->more ? ", ..." : "");
    }
    free(msg);
    keymap_free(&s->map);
}

int rpt_said_add(RptSaid *s, const char *msg, int line)
{
    if (s->map.n >= RPT_SAID_GROUPS && keymap_find(&s->map, msg) < 0)
        said_flush(s);
    int fresh = 0;
    const int id = keymap_id(&s->map, msg, &fresh);
    if (id < 0)
        goto say;
    if ((size_t)id >= s->cap) {
        const size_t c = s->cap ? 2 * s->cap : 64;
        SaidGroup *g = realloc(s->g, sizeof *g * c);
        if (!g)
            goto say;
        s->g = g;
        s->cap = c;
    }
    SaidGroup *g = &s->g[id];
    if (fresh)
        *g = (SaidGroup){.first_line = line, .last_line = -1};
    g->count++;
    if (g->shown == 0 || line != g->line[g->shown - 1]) { /* a sweep's scenarios share their line */
        if (g->shown < SAID_LINES)
            g->line[g->shown++] = line;
        else
            g->more = 1;
    }
    g->last_line = line;
    return 0;
say: /* no memory to group: say it as it comes */
    fprintf(s->out, "%s\n", msg);
    return -1;
}

void rpt_said_finish(RptSaid *s)
{
    if (!s)
        return;
    said_flush(s);
    free(s->g);
    free(s);
}

void rpt_print_row_errors(const Run *run, const char *input)
{
    if (run->said) { /* a streamed run grouped them as the rows passed */
        char buf[8192];
        size_t got;
        rewind(run->said);
        while ((got = fread(buf, 1, sizeof buf, run->said)) > 0)
            fwrite(buf, 1, got, stderr);
        return;
    }
    RptSaid *s = rpt_said_new(stderr);
    for (int i = 0; i < run->n; i++) {
        const RunRow *rr = &run->row[i];
        if (rr->built && rr->r.status != STATUS_ERROR)
            continue;
        char msg[1200];
        run_error_message(rr, input, msg, sizeof msg);
        if (s)
            rpt_said_add(s, msg, rr->line);
        else
            fprintf(stderr, "%s\n", msg);
    }
    rpt_said_finish(s);
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
