/* report/claims.c — published claims a study checks.  A scenario table may
 * state, in comment lines,
 *
 *     # claim: SERIES | METRIC RANGE | SOURCE
 *
 * (io/table.h keeps them): SERIES is a series whose rows name a baseline
 * series (the `baseline` column), METRIC one of the comparisons below and
 * RANGE what the source claims of it: ">= 1.265", "<= -15 %", "5..25x".
 * The report computes the study's own figure for each and says whether the
 * claim holds there, in the Summary and in the run's closing paragraph. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report.h"

static const struct {
    const char *name;
    RptClaimMetric metric;
    const char *what; /* how the Summary names it */
} metrics[] = {
    {"speedup", CLAIM_SPEEDUP, "speedup, best against best"},
    {"speedup_same", CLAIM_SPEEDUP_SAME, "best speedup at one device count"},
    {"bandwidth", CLAIM_BANDWIDTH, "scale-up bandwidth per device"},
    {"power", CLAIM_POWER, "system power, change"},
    {"energy", CLAIM_ENERGY, "energy to train, change"},
};
#define NMETRIC (sizeof metrics / sizeof metrics[0])

const char *rpt_claim_metric_name(RptClaimMetric m)
{
    for (size_t i = 0; i < NMETRIC; i++)
        if (metrics[i].metric == m)
            return metrics[i].what;
    return "";
}

/* A change in percent (power, energy), not a factor. */
static int percent_metric(RptClaimMetric m)
{
    return m == CLAIM_POWER || m == CLAIM_ENERGY;
}

/* [s, e) trimmed of spaces. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && isspace((unsigned char)**s))
        (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

/* A number at *p (before e), its unit ('x' or '%', or none) after it:
 * moves *p past them; 0, or -1 when there is no number or the unit does
 * not suit the metric. */
static int claim_number(const char **p, const char *e, int percent, double *out)
{
    char buf[64];
    size_t n = (size_t)(e - *p) < sizeof buf - 1 ? (size_t)(e - *p) : sizeof buf - 1;
    memcpy(buf, *p, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || errno || !isfinite(v))
        return -1;
    const char *q = *p + (end - buf);
    while (q < e && *q == ' ')
        q++;
    if (q < e && (*q == 'x' || *q == 'X' || *q == '%')) {
        if ((*q == '%') != percent)
            return -1;
        q++;
    }
    *p = q;
    *out = v;
    return 0;
}

/* "METRIC RANGE" in [s, e) into c; 0, or -1 with c->error. */
static int claim_range(RptClaim *c, const char *s, const char *e)
{
    const char *m = s;
    while (m < e && (isalnum((unsigned char)*m) || *m == '_'))
        m++;
    size_t i = 0;
    for (; i < NMETRIC; i++)
        if (strlen(metrics[i].name) == (size_t)(m - s) && !strncasecmp(metrics[i].name, s, (size_t)(m - s)))
            break;
    if (i == NMETRIC) {
        snprintf(c->error, sizeof c->error,
                 "expected a metric (speedup, speedup_same, bandwidth, power or energy), found '%.*s'",
                 (int)(m - s > 40 ? 40 : m - s), s);
        return -1;
    }
    c->metric = metrics[i].metric;
    const int pc = percent_metric(c->metric);
    const char *p = m;
    while (p < e && *p == ' ')
        p++;
    const char *range = p;
    c->lo = -INFINITY;
    c->hi = INFINITY;
    int ok;
    if (p + 1 < e && (p[0] == '>' || p[0] == '<') && p[1] == '=') {
        const int ge = p[0] == '>';
        p += 2;
        while (p < e && *p == ' ')
            p++;
        double v = 0;
        ok = claim_number(&p, e, pc, &v) == 0;
        if (ge)
            c->lo = v;
        else
            c->hi = v;
    } else {
        /* "V..W": the two dots first (strtod would take "5." of "5..25") */
        const char *dd = p;
        while (dd + 1 < e && !(dd[0] == '.' && dd[1] == '.'))
            dd++;
        double a = 0, b = 0;
        const char *q = p, *qe = dd;
        while (qe > q && qe[-1] == ' ')
            qe--;
        ok = dd + 1 < e && claim_number(&q, qe, pc, &a) == 0 && q == qe;
        if (ok) {
            p = dd + 2;
            while (p < e && *p == ' ')
                p++;
            ok = claim_number(&p, e, pc, &b) == 0 && a <= b;
            c->lo = a;
            c->hi = b;
        }
    }
    if (!ok || p != e) {
        snprintf(c->error, sizeof c->error,
                 "expected a range after '%s' (\">= V\", \"<= V\" or \"V..W\"%s), found '%.*s'",
                 metrics[i].name, pc ? ", in %" : ", a factor", (int)(e - range > 40 ? 40 : e - range),
                 range);
        return -1;
    }
    snprintf(c->stated, sizeof c->stated, "%.*s", (int)(e - range), range);
    return 0;
}

/* One claim's text into c: 0, or -1 with c->error. */
static int claim_parse(RptClaim *c, const char *text)
{
    const char *bar1 = strchr(text, '|');
    const char *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
    if (!bar2) {
        snprintf(c->error, sizeof c->error, "expected 'SERIES | METRIC RANGE | SOURCE', found '%.60s'", text);
        return -1;
    }
    const char *s = text, *e = bar1;
    trim(&s, &e);
    snprintf(c->series, sizeof c->series, "%.*s", (int)(e - s), s);
    const char *r = bar1 + 1, *re = bar2;
    trim(&r, &re);
    const char *src = bar2 + 1, *srce = src + strlen(src);
    trim(&src, &srce);
    snprintf(c->source, sizeof c->source, "%.*s", (int)(srce - src), src);
    if (!c->series[0] || !c->source[0]) {
        snprintf(c->error, sizeof c->error, "expected 'SERIES | METRIC RANGE | SOURCE', found an empty %s",
                 c->series[0] ? "source" : "series");
        return -1;
    }
    return claim_range(c, r, re);
}

static int series_index(const RptSeriesSet *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (!strcmp(set->s[i].name, name))
            return i;
    return -1;
}

/* The share of a step spent exchanging data between devices (exposed) and
 * waiting in the pipeline's fill and drain: what faster links can shorten
 * at most, on that strategy. */
static double exchange_share(const Result *r)
{
    static const Component comm[] = {COMP_TP_COMM,   COMP_CP_COMM, COMP_EP_COMM,
                                     COMP_PP_BUBBLE, COMP_PP_COMM, COMP_DP_COMM};
    double t = 0;
    for (size_t i = 0; i < sizeof comm / sizeof comm[0]; i++)
        t += r->comp_time_s[comm[i]];
    return r->step_time_s > 0 ? t / r->step_time_s : NAN;
}

/* c's figure from the study: 0, or -1 with c->error. */
static int claim_figure(const Run *run, const RptSeriesSet *set, const RptBaseline *cmp, int ncmp,
                        RptClaim *c)
{
    const int si = series_index(set, c->series);
    if (si < 0) {
        snprintf(c->error, sizeof c->error, "no series '%.60s' in the study%s", c->series,
                 set->more ? " (or not among the first 64 it lists)" : "");
        return -1;
    }
    const int best = set->s[si].best;
    if (best < 0) {
        snprintf(c->error, sizeof c->error, "series '%.60s' has no scenario that ran", c->series);
        return -1;
    }
    const RunRow *a = &run->row[best];
    if (!a->sc.baseline[0]) {
        snprintf(c->error, sizeof c->error,
                 "series '%.60s' names no baseline (its rows' baseline column is empty)", c->series);
        return -1;
    }
    c->baseline = a->sc.baseline;
    c->model = a->sc.model.name;
    c->value_lo = c->value_hi = c->from_samples = c->from_rate = NAN;
    const int bi = series_index(set, c->baseline);
    if (bi < 0 || set->s[bi].best < 0) {
        snprintf(c->error, sizeof c->error, "the baseline series '%.60s' has no scenario that ran",
                 c->baseline);
        return -1;
    }
    const RunRow *b = &run->row[set->s[bi].best];
    /* why a speedup falls short, where the two differ in their links */
    c->exchange = a->r.intra_bw_bytes_per_s != b->r.intra_bw_bytes_per_s ||
                          a->r.inter_bw_bytes_per_s != b->r.inter_bw_bytes_per_s
                      ? exchange_share(&b->r)
                      : NAN;
    if (c->metric == CLAIM_SPEEDUP || c->metric == CLAIM_SPEEDUP_SAME) {
        const RptBaseline *cb = NULL;
        for (int k = 0; k < ncmp && !cb; k++)
            if (!strcmp(cmp[k].series, c->series) && !strcmp(cmp[k].model, c->model))
                cb = &cmp[k];
        if (!cb || !isfinite(c->metric == CLAIM_SPEEDUP ? cb->bvb : cb->best)) {
            snprintf(c->error, sizeof c->error, "series '%.60s' has no speedup over '%.60s'", c->series,
                     c->baseline);
            return -1;
        }
        c->value = c->metric == CLAIM_SPEEDUP ? cb->bvb : cb->best;
        if (c->metric == CLAIM_SPEEDUP && cb->bvb_hi - cb->bvb_lo >= 0.005)
            c->value_lo = cb->bvb_lo, c->value_hi = cb->bvb_hi;
        c->devices = c->metric == CLAIM_SPEEDUP_SAME ? cb->best_devices : 0;
        if (c->metric == CLAIM_SPEEDUP)
            c->from_samples = cb->from_samples, c->from_rate = cb->from_rate;
        return 0;
    }
    double x = NAN, y = NAN;
    if (c->metric == CLAIM_BANDWIDTH)
        x = a->r.intra_bw_bytes_per_s, y = b->r.intra_bw_bytes_per_s;
    else if (c->metric == CLAIM_POWER)
        x = a->r.system_power_w, y = b->r.system_power_w;
    else
        x = a->r.energy_to_train_j, y = b->r.energy_to_train_j;
    if (!(isfinite(x) && isfinite(y) && x > 0 && y > 0)) {
        snprintf(c->error, sizeof c->error, "the %s of '%.60s' or '%.60s' is not known",
                 rpt_claim_metric_name(c->metric), c->series, c->baseline);
        return -1;
    }
    c->value = percent_metric(c->metric) ? 100.0 * (x / y - 1.0) : x / y;
    return 0;
}

int rpt_claims(const Run *run, const RptSeriesSet *set, const Table *t, RptClaim *out, int max)
{
    if (!t || !t->nclaim)
        return 0; /* most tables state none: no comparisons to work out */
    RptBaseline cmp[64];
    const int ncmp = rpt_baselines(run, cmp, 64);
    int n = 0;
    for (int i = 0; i < t->nclaim && n < max; i++, n++) {
        RptClaim *c = &out[n];
        memset(c, 0, sizeof *c);
        c->line = t->claim[i].line;
        c->holds = -1;
        if (claim_parse(c, t->claim[i].text) || claim_figure(run, set, cmp, ncmp, c))
            continue;
        c->holds = c->value >= c->lo && c->value <= c->hi;
    }
    return n;
}

void rpt_fmt_claim_value(const RptClaim *c, char *buf, size_t n)
{
    if (c->holds < 0)
        snprintf(buf, n, "%s", "");
    else if (percent_metric(c->metric))
        snprintf(buf, n, "%+.1f %%", c->value);
    else if (isfinite(c->value_lo))
        snprintf(buf, n, "%.2fx (%.2fx to %.2fx)", c->value, c->value_lo, c->value_hi);
    else if (c->devices > 0)
        snprintf(buf, n, "%.2fx (at %d devices)", c->value, c->devices);
    else
        snprintf(buf, n, "%.2fx", c->value);
}

void rpt_fmt_claim_why(const RptClaim *c, char *buf, size_t n)
{
    buf[0] = '\0';
    if (c->holds != 0 || (c->metric != CLAIM_SPEEDUP && c->metric != CLAIM_SPEEDUP_SAME))
        return;
    if (isfinite(c->exchange) && c->exchange < 1)
        snprintf(
            buf, n,
            "%s's best step spends %.0f %% of its time exchanging data and waiting in the pipeline: links "
            "that made that free would make that step at most %.2fx faster",
            c->baseline, 100 * c->exchange, 1.0 / (1.0 - c->exchange));
    else if (isfinite(c->from_samples) && isfinite(c->from_rate) && fabs(c->from_samples - 1.0) >= 0.005)
        snprintf(
            buf, n,
            "%.2fx from the samples to train, the convergence curve's doing, and %.2fx from the throughput",
            c->from_samples, c->from_rate);
    else if (isfinite(c->from_rate))
        snprintf(buf, n, "both train on the same samples: it is all throughput");
}

void rpt_fmt_claim(const RptClaim *c, const char *path, char *buf, size_t n)
{
    if (c->holds < 0) {
        snprintf(buf, n, "%s:%d: claim not checked: %s.", path, c->line, c->error);
        return;
    }
    char v[64], why[256];
    rpt_fmt_claim_value(c, v, sizeof v);
    rpt_fmt_claim_why(c, why, sizeof why);
    const int l =
        snprintf(buf, n, "Claim (%s): %s against %s, %s %s; here %s: %s", c->source, c->series, c->baseline,
                 rpt_claim_metric_name(c->metric), c->stated, v, c->holds ? "holds" : "does not hold");
    if (l >= 0 && (size_t)l < n)
        snprintf(buf + l, n - (size_t)l, why[0] ? " (%s)." : "%s.", why);
}
