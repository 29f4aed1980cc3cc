/* report/series.c — what the workbook and the charts share: rows grouped
 * into series, the best scenario of each series and at each device count,
 * the cost to train, the study's question in one sentence, the --formats
 * list and the document date (SOURCE_DATE_EPOCH or the table's mtime). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "report.h"

int rpt_parse_formats(const char *s, unsigned *out, char *err, size_t n)
{
    static const struct {
        const char *name;
        unsigned bit;
    } words[] = {{"xlsx", RPT_XLSX}, {"csv", RPT_CSV}, {"png", RPT_PNG}, {"svg", RPT_SVG}, {"all", RPT_ALL}};
    unsigned f = 0;
    const char *p = s;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && (*p == ' ')) {
            p++;
            len--;
        }
        while (len && p[len - 1] == ' ')
            len--;
        size_t i = 0;
        for (; i < sizeof words / sizeof words[0]; i++)
            if (strlen(words[i].name) == len && !strncasecmp(words[i].name, p, len))
                break;
        if (i == sizeof words / sizeof words[0]) {
            snprintf(err, n,
                     "--formats: unknown format '%.*s' (expected a list of xlsx, csv, png, svg, or all)",
                     (int)(len > 40 ? 40 : len), p);
            return -1;
        }
        f |= words[i].bit;
        if (!e)
            break;
        p = e + 1;
    }
    *out = f;
    return 0;
}

int rpt_document_time(const char *table_path, time_t *out, char *err, size_t n)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if (sde && *sde) {
        char *end;
        errno = 0;
        long long v = strtoll(sde, &end, 10);
        if (errno || *end || v < 0 || v > 253402300799LL) {
            snprintf(err, n, "SOURCE_DATE_EPOCH: expected seconds since 1970 (an integer), got '%.40s'", sde);
            return -1;
        }
        *out = (time_t)v;
        return 0;
    }
    struct stat st;
    if (stat(table_path, &st) != 0) {
        snprintf(err, n, "%s: %s", table_path, strerror(errno));
        return -1;
    }
    *out = st.st_mtime;
    return 0;
}

static int usable(const RunRow *rr)
{
    return rr->built && rr->r.status == STATUS_OK;
}

int rpt_better(const RunRow *a, int ia, const RunRow *b, int ib)
{
    double ta = a->r.time_to_train_s, tb = b->r.time_to_train_s;
    int fa = isfinite(ta) && ta > 0, fb = isfinite(tb) && tb > 0;
    if (fa != fb)
        return fa;
    if (fa && ta != tb)
        return ta < tb;
    double sa = a->r.samples_per_s, sb = b->r.samples_per_s;
    int ga = isfinite(sa), gb = isfinite(sb);
    if (ga != gb)
        return ga;
    if (ga && sa != sb)
        return sa > sb;
    double ea = a->r.energy_to_train_j, eb = b->r.energy_to_train_j;
    if (isfinite(ea) && isfinite(eb) && ea != eb)
        return ea < eb;
    if (a->sc.devices != b->sc.devices)
        return a->sc.devices < b->sc.devices;
    return ia < ib;
}

static int find_series(const RptSeriesSet *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (!strcmp(set->s[i].name, name))
            return i;
    return -1;
}

int rpt_series_build(const Run *run, RptSeriesSet *set)
{
    memset(set, 0, sizeof *set);
    int cap = 0;
    for (int i = 0; i < run->n; i++) {
        const RunRow *rr = &run->row[i];
        if (!rr->built)
            continue;
        int k = find_series(set, rr->sc.series);
        if (k < 0) {
            if (set->n == cap) {
                int c = cap ? 2 * cap : 8;
                RptSeries *v = realloc(set->s, sizeof *v * (size_t)c);
                if (!v)
                    goto oom;
                set->s = v;
                cap = c;
            }
            k = set->n++;
            memset(&set->s[k], 0, sizeof set->s[k]);
            set->s[k].name = rr->sc.series;
            set->s[k].best = -1;
            set->s[k].pt = calloc((size_t)run->n, sizeof(int));
            if (!set->s[k].pt)
                goto oom;
        }
        if (!usable(rr))
            continue;
        RptSeries *s = &set->s[k];
        if (isfinite(rr->r.time_to_train_s) && rr->r.time_to_train_s > 0)
            set->by_ttt = 1;
        if (s->best < 0 || rpt_better(rr, i, &run->row[s->best], s->best))
            s->best = i;
        /* best at this device count; keep pt sorted by devices */
        int j = 0;
        while (j < s->npt && run->row[s->pt[j]].sc.devices < rr->sc.devices)
            j++;
        if (j < s->npt && run->row[s->pt[j]].sc.devices == rr->sc.devices) {
            if (rpt_better(rr, i, &run->row[s->pt[j]], s->pt[j]))
                s->pt[j] = i;
        } else {
            memmove(&s->pt[j + 1], &s->pt[j], sizeof(int) * (size_t)(s->npt - j));
            s->pt[j] = i;
            s->npt++;
        }
    }
    return 0;
oom:
    rpt_series_free(set);
    errno = ENOMEM;
    return -1;
}

void rpt_series_free(RptSeriesSet *set)
{
    for (int i = 0; i < set->n; i++)
        free(set->s[i].pt);
    free(set->s);
    memset(set, 0, sizeof *set);
}

double rpt_cost_usd(const RunRow *rr)
{
    double price = rr->sc.system.price_per_device_hour, t = rr->r.time_to_train_s;
    if (!rr->built || !(price > 0) || !isfinite(t))
        return NAN;
    return price * rr->sc.devices * t / 3600.0;
}

/* Append to a list of distinct names: "a", "a and b", "a, b and c", "3 models". */
static void name_list(const char *const *names, int n, const char *many, char *buf, size_t sz)
{
    size_t len = 0;
    buf[0] = '\0';
    if (n > 4) {
        snprintf(buf, sz, "%d %s", n, many);
        return;
    }
    for (int i = 0; i < n && len < sz; i++)
        len += (size_t)snprintf(buf + len, sz - len, "%s%s",
                                i == 0       ? ""
                                : i == n - 1 ? " and "
                                             : ", ",
                                names[i]);
}

void rpt_question(const Run *run, const RptSeriesSet *set, char *buf, size_t n)
{
    const char *models[5], *systems[5];
    int nm = 0, ns = 0, dmin = 0, dmax = 0;
    for (int i = 0; i < run->n; i++) {
        const RunRow *rr = &run->row[i];
        if (!rr->built)
            continue;
        int k;
        for (k = 0; k < nm && k < 5 && strcmp(models[k], rr->sc.model.name); k++)
            ;
        if (k == nm) {
            if (nm < 5)
                models[nm] = rr->sc.model.name;
            nm++;
        }
        for (k = 0; k < ns && k < 5 && strcmp(systems[k], rr->sc.system.name); k++)
            ;
        if (k == ns) {
            if (ns < 5)
                systems[ns] = rr->sc.system.name;
            ns++;
        }
        if (!dmin || rr->sc.devices < dmin)
            dmin = rr->sc.devices;
        if (rr->sc.devices > dmax)
            dmax = rr->sc.devices;
    }
    if (nm == 0) {
        snprintf(buf, n, "No scenario of this table could be evaluated: see the Errors sheet.");
        return;
    }
    char ml[300], sl[300], range[64];
    name_list(models, nm, "models", ml, sizeof ml);
    name_list(systems, ns, "systems", sl, sizeof sl);
    if (dmin == dmax)
        snprintf(range, sizeof range, "%d device%s", dmin, dmin == 1 ? "" : "s");
    else
        snprintf(range, sizeof range, "%d to %d devices", dmin, dmax);
    const char *what = set->by_ttt ? "trains" : "runs";
    if (set->n > 1)
        snprintf(buf, n,
                 "Which of %d approaches (series) %s %s fastest on %s with %s, and at what power, energy%s?",
                 set->n, what, ml, sl, range, set->by_ttt ? " and cost" : "");
    else
        snprintf(buf, n, "How fast, and at what power, energy%s, does %s %s on %s with %s?",
                 set->by_ttt ? " and cost" : "", sl, set->by_ttt ? "train" : "run", ml, range);
}

/* The comparison of row a in out[0..n), or -1. */
static int baseline_of(const RunRow *a, const RptBaseline *out, int n)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(out[k].series, a->sc.series) && !strcmp(out[k].model, a->sc.model.name))
            return k;
    return -1;
}

static int compared(const RunRow *a)
{
    return a->built && a->sc.baseline[0] && isfinite(a->r.speedup);
}

int rpt_baselines(const Run *run, RptBaseline *out, int max)
{
    int n = 0;
    for (int i = 0; i < run->n; i++) {
        const RunRow *a = &run->row[i];
        if (!compared(a))
            continue;
        int k = baseline_of(a, out, n);
        if (k < 0) {
            if (n == max)
                continue;
            out[n] = (RptBaseline){a->sc.series, a->sc.baseline, a->sc.model.name, 0, 0, NAN, 0};
            k = n++;
        }
        RptBaseline *b = &out[k];
        b->points++;
        if (!(b->best >= a->r.speedup))
            b->best = a->r.speedup, b->best_devices = a->sc.devices;
        /* for now: the largest device count at which the series is not faster */
        if (a->r.speedup <= 1.0 && a->sc.devices > b->crossover)
            b->crossover = a->sc.devices;
    }
    /* crossover: the smallest device count c such that every point of the
     * series at c devices or more is faster than the baseline, i.e. the
     * smallest point above the last one that is not (0 when none is) */
    int *cross = calloc((size_t)(n > 0 ? n : 1), sizeof *cross);
    if (!cross) {
        for (int k = 0; k < n; k++)
            out[k].crossover = 0;
        return n;
    }
    for (int i = 0; i < run->n; i++) {
        const RunRow *a = &run->row[i];
        int k = compared(a) ? baseline_of(a, out, n) : -1;
        if (k >= 0 && a->sc.devices > out[k].crossover && (!cross[k] || a->sc.devices < cross[k]))
            cross[k] = a->sc.devices;
    }
    for (int k = 0; k < n; k++)
        out[k].crossover = cross[k];
    free(cross);
    return n;
}
