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

#include "core/strategy.h"

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
    const Merit ma = merit_of(&a->r), mb = merit_of(&b->r);
    if (merit_better(ma, mb))
        return 1;
    if (merit_better(mb, ma))
        return 0;
    if (a->sc.devices != b->sc.devices) /* equal merit: the smaller system, then the earlier row */
        return a->sc.devices < b->sc.devices;
    return ia < ib;
}

int rpt_series_better(const RunRow *a, int ia, const RunRow *b, int ib)
{
    const int ma = rpt_meets(a), mb = rpt_meets(b);
    return ma != mb ? ma > mb : rpt_better(a, ia, b, ib);
}

static int find_series(const RptSeriesSet *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (!strcmp(set->s[i].name, name))
            return i;
    return -1;
}

/* 1 when the series of model group g (before it is cut into charts) have
 * line styles of their own: more than one system, and no two series with
 * the same colour and dash (charts.c: colour % 8, dash variant % RPT_STYLE_VARIANTS). */
static int distinct_styles(const RptSeriesSet *set, int g)
{
    int sys = -1, several = 0;
    for (int i = 0; i < set->n; i++) {
        if (set->s[i].group != g)
            continue;
        several |= sys >= 0 && set->s[i].colour != sys;
        sys = set->s[i].colour;
        int variant = 0;
        for (int j = 0; j < i; j++)
            variant += set->s[j].group == g && set->s[j].colour == set->s[i].colour;
        for (int j = 0; j < i; j++) {
            if (set->s[j].group != g || set->s[j].colour % 8 != set->s[i].colour % 8)
                continue;
            int vj = 0;
            for (int k = 0; k < j; k++)
                vj += set->s[k].group == g && set->s[k].colour == set->s[j].colour;
            if (vj % RPT_STYLE_VARIANTS == variant % RPT_STYLE_VARIANTS)
                return 0;
        }
    }
    return several;
}

/* Colours by system, panels by model, variants within both (n² in the
 * series, which a chart can show a few dozen of). */
static void style(const Run *run, RptSeriesSet *set)
{
    int *first = malloc(sizeof *first * (size_t)(set->n ? set->n : 1));
    if (!first) { /* every series its own colour: still told apart */
        for (int i = 0; i < set->n; i++)
            set->s[i].colour = i, set->s[i].variant = 0, set->s[i].group = 0;
        set->ngroup = set->n > 0;
        return;
    }
    for (int i = 0; i < set->n; i++)
        first[i] = set->s[i].colour;
    int nsys = 0;
    set->ngroup = 0;
    for (int i = 0; i < set->n; i++) {
        const Scenario *a = &run->row[first[i]].sc;
        RptSeries *s = &set->s[i];
        s->colour = -1;
        s->group = -1;
        s->variant = 0;
        for (int j = 0; j < i; j++) {
            const Scenario *b = &run->row[first[j]].sc;
            if (s->colour < 0 && !strcmp(a->system.name, b->system.name))
                s->colour = set->s[j].colour;
            if (s->group < 0 && !strcmp(a->model.name, b->model.name))
                s->group = set->s[j].group;
        }
        if (s->colour < 0)
            s->colour = nsys++;
        if (s->group < 0)
            s->group = set->ngroup++;
    }
    /* at most RPT_LEGEND_MAX series a chart: a model with more gets several,
     * in order of appearance; then the dash of each series within its
     * system in its chart */
    int *seen = calloc((size_t)(set->ngroup + 1), sizeof *seen), *map = NULL, ng = 0;
    if (seen)
        map = calloc((size_t)set->n + 1, sizeof *map);
    if (seen && map) {
        for (int i = 0; i < set->n; i++)
            seen[set->s[i].group]++;
        /* a model a little over the legend's size stays on one chart when
         * every series keeps a line style of its own there (several
         * systems: colour by system, dash by variant) */
        for (int g = 0; g < set->ngroup; g++)
            if (seen[g] > RPT_LEGEND_MAX && seen[g] <= RPT_LEGEND_ROOM && distinct_styles(set, g))
                seen[g] = -seen[g]; /* one chart: marked negative until chunked */
        int *count = calloc((size_t)(set->ngroup + 1), sizeof *count);
        int *base = calloc((size_t)(set->ngroup + 1), sizeof *base);
        if (count && base) {
            for (int g = 0; g < set->ngroup; g++)
                base[g] = -1;
            for (int i = 0; i < set->n; i++) {
                RptSeries *s = &set->s[i];
                const int g = s->group, k = count[g]++;
                const int room = seen[g] < 0 ? RPT_LEGEND_ROOM : RPT_LEGEND_MAX;
                const int chunks = seen[g] < 0 ? 1 : (seen[g] + room - 1) / room;
                if (k % room == 0) /* a new chart for this model */
                    map[i] = ng++;
                else
                    map[i] = base[g];
                base[g] = map[i];
                s->part = k / room + 1;
                s->parts = chunks;
            }
            for (int i = 0; i < set->n; i++)
                set->s[i].group = map[i];
            set->ngroup = ng;
        }
        free(count);
        free(base);
    }
    free(seen);
    free(map);
    for (int i = 0; i < set->n; i++) {
        RptSeries *s = &set->s[i];
        if (s->parts < 1)
            s->part = s->parts = 1;
        for (int j = 0; j < i; j++)
            s->variant += set->s[j].colour == s->colour && set->s[j].group == s->group;
    }
    /* a chart of one system: its series are told apart by colour, not by
     * dashes alone (there are fewer dashes than series) */
    for (int g = 0; g < set->ngroup; g++) {
        int sys = -1, one = 1;
        for (int i = 0; i < set->n; i++)
            if (set->s[i].group == g) {
                one = one && (sys < 0 || set->s[i].colour == sys);
                sys = set->s[i].colour;
            }
        for (int i = 0; one && i < set->n; i++)
            if (set->s[i].group == g) {
                set->s[i].colour = set->s[i].variant;
                set->s[i].variant = 0;
            }
    }
    free(first);
}

int rpt_series_of(const ReportInput *in, RptSeriesSet *set, int *own)
{
    if (in->set) {
        *set = *in->set;
        *own = 0;
        return 0;
    }
    *own = 1;
    return rpt_series_build(in->run, set);
}

int rpt_series_build(const Run *run, RptSeriesSet *set)
{
    memset(set, 0, sizeof *set);
    set->more = run->series_more;
    int cap = 0;
    for (int i = 0; i < run->n; i++) {
        const RunRow *rr = &run->row[i];
        if (!rr->built)
            continue;
        if (usable(rr) && isfinite(rr->r.time_to_train_s) && rr->r.time_to_train_s > 0)
            set->by_ttt = 1; /* of every series, listed or not */
        int k = find_series(set, rr->sc.series);
        if (k < 0 && set->n == RPT_SERIES_MAX) { /* past the ones listed */
            set->more = 1;
            continue;
        }
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
            set->s[k].colour = i; /* the first row, until style() */
            set->s[k].pt = calloc((size_t)run->n, sizeof(int));
            if (!set->s[k].pt)
                goto oom;
        }
        if (!usable(rr))
            continue;
        RptSeries *s = &set->s[k];
        if (s->best < 0 || rpt_series_better(rr, i, &run->row[s->best], s->best))
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
    style(run, set);
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
        snprintf(
            buf, n,
            "Which of %s%d approaches (series) %s %s fastest on %s with %s, and at what power, energy%s?",
            set->more ? "more than " : "", set->n, what, ml, sl, range, set->by_ttt ? " and cost" : "");
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

/* The fastest evaluated row of a series and model to train (as run.c's
 * best against best takes it), -1 none. */
static int fastest_of(const Run *run, const char *series, const char *model)
{
    int best = -1;
    for (int i = 0; i < run->n; i++) {
        const RunRow *a = &run->row[i];
        if (a->built && a->r.status == STATUS_OK && isfinite(a->r.time_to_train_s) &&
            !strcmp(a->sc.series, series) && !strcmp(a->sc.model.name, model) &&
            (best < 0 || a->r.time_to_train_s < run->row[best].r.time_to_train_s))
            best = i;
    }
    return best;
}

/* Best against best in its two parts (RptBaseline.from_samples and
 * from_rate): time to train = samples to train / throughput. */
static void best_against_best_parts(const Run *run, RptBaseline *out, int n)
{
    for (int k = 0; k < n; k++) {
        const int s = fastest_of(run, out[k].series, out[k].model);
        const int b = fastest_of(run, out[k].baseline, out[k].model);
        if (s < 0 || b < 0)
            continue;
        const Result *rs = &run->row[s].r, *rb = &run->row[b].r;
        const double ss = rs->steps * rs->st.global_batch, sb = rb->steps * rb->st.global_batch;
        if (ss > 0 && sb > 0 && rs->samples_per_s > 0 && rb->samples_per_s > 0) {
            out[k].from_samples = sb / ss;
            out[k].from_rate = rs->samples_per_s / rb->samples_per_s;
        }
    }
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
            const Result *r = &a->r;
            const double c[3] = {r->speedup_best, r->speedup_best_bcrit_half, r->speedup_best_bcrit_double};
            double lo = c[0], hi = c[0];
            for (int j = 1; j < 3; j++)
                if (isfinite(c[j])) {
                    lo = fmin(lo, c[j]);
                    hi = fmax(hi, c[j]);
                }
            out[n] = (RptBaseline){
                a->sc.series, a->sc.baseline, a->sc.model.name, 0, 0, NAN, 0, c[0], lo, hi, NAN, NAN};
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
    best_against_best_parts(run, out, n);
    return n;
}

void rpt_fmt_bvb(const RptBaseline *b, char *buf, size_t n)
{
    int l = 0;
    if (!isfinite(b->bvb))
        l = snprintf(buf, n, "%s", "");
    else if (b->bvb_hi - b->bvb_lo >= 0.005)
        l = snprintf(buf, n, "; best against best %.2fx, %.2fx to %.2fx over the critical batch's range",
                     b->bvb, b->bvb_lo, b->bvb_hi);
    else
        l = snprintf(buf, n, "; best against best %.2fx", b->bvb);
    /* where it comes from: samples to train and throughput (when the
     * amount of training is fixed, throughput alone: not said) */
    if (l > 0 && (size_t)l < n && isfinite(b->from_samples) && isfinite(b->from_rate) &&
        fabs(b->from_samples - 1.0) >= 0.005)
        snprintf(buf + l, n - (size_t)l, ": %.2fx from the samples to train, %.2fx from the throughput",
                 b->from_samples, b->from_rate);
}

/* ---- the recommendation --------------------------------------------------- */

void rpt_fmt_duration(double s, char *buf, size_t n)
{
    if (s >= 1000 * 86400.0) /* "1030 days", not "1.03e+03 days" */
        snprintf(buf, n, "%.0f days", s / 86400.0);
    else if (s >= 2 * 86400.0)
        snprintf(buf, n, "%.3g days", s / 86400.0);
    else if (s >= 2 * 3600.0)
        snprintf(buf, n, "%.3g hours", s / 3600.0);
    else
        snprintf(buf, n, "%.3g minutes", s / 60.0);
}

void rpt_fmt_money(double usd, char *buf, size_t n)
{
    if (!isfinite(usd))
        snprintf(buf, n, "cost unknown (no price in the system template)");
    else if (usd >= 1e6)
        snprintf(buf, n, "$%.3g M", usd / 1e6);
    else if (usd >= 1e3)
        snprintf(buf, n, "$%.3g k", usd / 1e3);
    else
        snprintf(buf, n, "$%.3g", usd);
}

void rpt_fmt_energy(double j, char *buf, size_t n)
{
    const double kwh = j / 3.6e6;
    if (kwh >= 1e6)
        snprintf(buf, n, "%.3g GWh", kwh / 1e6);
    else if (kwh >= 1e3)
        snprintf(buf, n, "%.3g MWh", kwh / 1e3);
    else
        snprintf(buf, n, "%.3g kWh", kwh);
}

/* One row as "H100 hybrid on 1024 devices: 12 days (11-14), $2.1 M, 1.9 GWh
 * at the wall, 740 t CO2e" (the carbon where it is known). */
static size_t describe(const RunRow *rr, char *buf, size_t n)
{
    char t[48], lo[48], hi[48], c[64], e[64];
    const Result *r = &rr->r;
    rpt_fmt_duration(r->time_to_train_s, t, sizeof t);
    rpt_fmt_money(r->cost_usd, c, sizeof c);
    rpt_fmt_energy(r->energy_to_train_j, e, sizeof e);
    if (isfinite(r->co2e_t) && r->co2e_t > 0)
        snprintf(e + strlen(e), sizeof e - strlen(e), " at the wall, %.3g t CO2e", r->co2e_t);
    else
        snprintf(e + strlen(e), sizeof e - strlen(e), " at the wall");
    if (isfinite(r->interval_lo) && isfinite(r->interval_hi)) {
        rpt_fmt_duration(r->time_to_train_s * r->interval_lo, lo, sizeof lo);
        rpt_fmt_duration(r->time_to_train_s * r->interval_hi, hi, sizeof hi);
        return (size_t)snprintf(buf, n, "%s on %d devices: %s (%s to %s), %s, %s", rr->sc.series,
                                rr->sc.devices, t, lo, hi, c, e);
    }
    return (size_t)snprintf(buf, n, "%s on %d devices: %s, %s, %s", rr->sc.series, rr->sc.devices, t, c, e);
}

enum {
    MISS_DEADLINE = 1,
    MISS_BUDGET = 2,
    MISS_POWER = 4,
    MISS_UNUSABLE = 8,
    MISS_CARBON = 16,
    MISS_PEAK = 32
};

/* Which of its constraints a row misses (MISS_UNUSABLE: no ok time to train). */
static int missed(const RunRow *rr)
{
    const Scenario *sc = &rr->sc;
    const Result *r = &rr->r;
    if (!rr->built || r->status != STATUS_OK || !isfinite(r->time_to_train_s))
        return MISS_UNUSABLE;
    return (sc->deadline_s > 0 && !(r->time_to_train_s <= sc->deadline_s) ? MISS_DEADLINE : 0) |
           (sc->budget_usd > 0 && !(r->cost_usd <= sc->budget_usd) ? MISS_BUDGET : 0) |
           (sc->power_budget_w > 0 && !(r->system_power_w <= sc->power_budget_w) ? MISS_POWER : 0) |
           (sc->carbon_budget_t > 0 && !(r->co2e_t <= sc->carbon_budget_t) ? MISS_CARBON : 0) |
           (sc->site.power_envelope_w > 0 && !(r->peak_power_w <= sc->site.power_envelope_w) ? MISS_PEAK : 0);
}

int rpt_meets(const RunRow *rr)
{
    return missed(rr) == 0;
}

int rpt_misses(const RunRow *rr, char *buf, size_t n)
{
    const int all = missed(rr), m = all == MISS_UNUSABLE ? 0 : all;
    const char *what[5] = {
        m & MISS_DEADLINE ? "past the deadline" : NULL,
        !(m & MISS_BUDGET)         ? NULL
        : isfinite(rr->r.cost_usd) ? "over the budget"
                                   : "no price to hold to the budget",
        m & MISS_POWER ? "over the power budget" : NULL,
        !(m & MISS_CARBON)       ? NULL
        : isfinite(rr->r.co2e_t) ? "over the carbon budget"
                                 : "no embodied carbon to hold to the carbon budget",
        m & MISS_PEAK ? "peak over the facility's power envelope" : NULL,
    };
    size_t l = 0;
    buf[0] = '\0';
    for (int k = 0; k < 5; k++)
        if (what[k] && l < n)
            l += (size_t)snprintf(buf + l, n - l, "%s%s", l ? ", " : "", what[k]);
    return m != 0;
}

int rpt_cheaper(const Result *r, const Result *b)
{
    /* the cheapest; at the same cost (or without prices) the least carbon,
     * then the least energy; then the fastest */
    const double ka = isfinite(r->cost_usd) ? r->cost_usd : INFINITY,
                 kb = isfinite(b->cost_usd) ? b->cost_usd : INFINITY;
    if (ka != kb)
        return ka < kb;
    if (isfinite(r->co2e_t) && isfinite(b->co2e_t) && r->co2e_t != b->co2e_t)
        return r->co2e_t < b->co2e_t;
    return r->energy_to_train_j != b->energy_to_train_j ? r->energy_to_train_j < b->energy_to_train_j
                                                        : r->time_to_train_s < b->time_to_train_s;
}

/* A row's constraints as a phrase ("a deadline of 30 days, a budget of $1
 * M"); "" when it states none. */
static void constraints_text(const Scenario *sc, char *cons, size_t n)
{
    size_t cl = 0;
    cons[0] = '\0';
    if (sc->deadline_s > 0) {
        char d[48];
        rpt_fmt_duration(sc->deadline_s, d, sizeof d);
        cl += (size_t)snprintf(cons + cl, n - cl, "a deadline of %s", d);
    }
    if (sc->budget_usd > 0 && cl < n) {
        char m[64];
        rpt_fmt_money(sc->budget_usd, m, sizeof m);
        cl += (size_t)snprintf(cons + cl, n - cl, "%sa budget of %s", cl ? ", " : "", m);
    }
    if (sc->power_budget_w > 0 && cl < n)
        cl += (size_t)snprintf(cons + cl, n - cl, "%s%.3g MW at the wall", cl ? ", " : "",
                               sc->power_budget_w / 1e6);
    if (sc->carbon_budget_t > 0 && cl < n)
        cl += (size_t)snprintf(cons + cl, n - cl, "%s%.4g t CO2e", cl ? ", " : "", sc->carbon_budget_t);
    if (sc->site.power_envelope_w > 0 && cl < n)
        snprintf(cons + cl, n - cl, "%sa peak within %.3g MW", cl ? ", " : "",
                 sc->site.power_envelope_w / 1e6);
}

static int same_constraints(const Scenario *a, const Scenario *b)
{
    return a->deadline_s == b->deadline_s && a->budget_usd == b->budget_usd &&
           a->power_budget_w == b->power_budget_w && a->carbon_budget_t == b->carbon_budget_t &&
           a->site.power_envelope_w == b->site.power_envelope_w;
}

const char *rpt_other_question(const Scenario *a, const Scenario *b)
{
    if (strcmp(a->model.name, b->model.name))
        return "other model";
    if (a->train_tokens != b->train_tokens || a->train_samples != b->train_samples || a->epochs != b->epochs)
        return "other amount of training";
    return NULL;
}

void rpt_question_label(const Scenario *sc, int amount, char *buf, size_t n)
{
    const double t = sc->train_tokens;
    const int prec = amount > 1 ? 15 : 3; /* every digit where three would not tell two apart */
    if (amount && t > 0)
        snprintf(buf, n, "%s on %.*g %s tokens", sc->model.name, prec,
                 t / (t >= 1e12  ? 1e12
                      : t >= 1e9 ? 1e9
                                 : 1e6),
                 t >= 1e12  ? "T"
                 : t >= 1e9 ? "B"
                            : "M");
    else if (amount && sc->train_samples > 0)
        snprintf(buf, n, "%s on %.*g samples", sc->model.name, prec, sc->train_samples);
    else if (amount && sc->epochs > 0)
        snprintf(buf, n, "%s for %.*g epochs", sc->model.name, prec, sc->epochs);
    else
        snprintf(buf, n, "%s", sc->model.name);
}

int rpt_questions(const Run *run, const int *rows, int n, int *q, int *rep, int max)
{
    int nq = 0;
    for (int i = 0; i < n; i++) {
        const Scenario *sc = &run->row[rows[i]].sc;
        int k = 0;
        while (k < nq && rpt_other_question(&run->row[rep[k]].sc, sc))
            k++;
        if (k == nq) {
            if (nq == max) { /* past the last distinct one: with it */
                q[i] = max - 1;
                continue;
            }
            rep[nq++] = rows[i];
        }
        q[i] = k;
    }
    return nq;
}

void rpt_question_labels(const Run *run, const int *rep, int nq, int k, char *buf, size_t n)
{
    int twice = 0;
    for (int j = 0; j < nq; j++)
        twice |= j != k && !strcmp(run->row[rep[j]].sc.model.name, run->row[rep[k]].sc.model.name);
    rpt_question_label(&run->row[rep[k]].sc, twice, buf, n);
    if (!twice)
        return;
    /* two amounts that print alike in three digits get every digit */
    char other[RPT_QUESTION_MAX];
    for (int j = 0; j < nq; j++) {
        if (j == k)
            continue;
        rpt_question_label(&run->row[rep[j]].sc, 1, other, sizeof other);
        if (!strcmp(other, buf)) {
            rpt_question_label(&run->row[rep[k]].sc, 2, buf, n);
            return;
        }
    }
}

void rpt_study_constraints(const Run *run, double *deadline_s, double *power_w)
{
    int first = -1;
    *deadline_s = *power_w = 0;
    for (int i = 0; i < run->n; i++) {
        const Scenario *sc = &run->row[i].sc;
        if (!run->row[i].built)
            continue;
        if (first < 0) {
            first = i;
            *deadline_s = sc->deadline_s;
            *power_w = sc->power_budget_w;
        }
        if (sc->deadline_s != *deadline_s)
            *deadline_s = -1;
        if (sc->power_budget_w != *power_w)
            *power_w = -1;
    }
    *deadline_s = *deadline_s > 0 ? *deadline_s : 0;
    *power_w = *power_w > 0 ? *power_w : 0;
}

int rpt_asked(const Scenario *sc)
{
    return sc->deadline_s > 0 || sc->budget_usd > 0 || sc->power_budget_w > 0 || sc->carbon_budget_t > 0 ||
           sc->site.power_envelope_w > 0;
}

int rpt_shortlist(const Run *run, int **rows_out, int **q_out, int *rep, int *nq, long *meets)
{
    *rows_out = *q_out = NULL;
    *nq = 0;
    *meets = 0;
    const size_t cap = (size_t)(run->n ? run->n : 1);
    int *built = calloc(cap, sizeof *built), *qb = calloc(cap, sizeof *qb);
    int *rows = calloc(cap, sizeof *rows), *q = calloc(cap, sizeof *q);
    if (!built || !qb || !rows || !q) {
        free(built);
        free(qb);
        free(rows);
        free(q);
        return -1;
    }
    /* the questions in the order of their first built row (as the answer) */
    int nb = 0;
    for (int i = 0; i < run->n; i++)
        if (run->row[i].built)
            built[nb++] = i;
    *nq = rpt_questions(run, built, nb, qb, rep, RPT_MODELS_MAX);
    int n = 0; /* of the questions answered (a row past them is not its last one's) */
    long all = 0;
    for (int b = 0; b < nb; b++)
        if (rpt_asked(&run->row[built[b]].sc) && rpt_meets(&run->row[built[b]])) {
            all++;
            if (rpt_other_question(&run->row[rep[qb[b]]].sc, &run->row[built[b]].sc))
                continue;
            rows[n] = built[b];
            q[n++] = qb[b];
        }
    *meets = run->total > 0 ? run->meets : all;
    for (int i = 1; i < n; i++) /* stable: by question, then cheapest, ties to the earlier row */
        for (int j = i;
             j > 0 && (q[j] < q[j - 1] ||
                       (q[j] == q[j - 1] && rpt_cheaper(&run->row[rows[j]].r, &run->row[rows[j - 1]].r)));
             j--) {
            const int tr = rows[j], tq = q[j];
            rows[j] = rows[j - 1], q[j] = q[j - 1];
            rows[j - 1] = tr, q[j - 1] = tq;
        }
    int m = 0; /* the first RPT_SHORTLIST_MAX of each question */
    for (int i = 0, rank = 0; i < n; i++) {
        rank = i > 0 && q[i] == q[i - 1] ? rank + 1 : 0;
        if (rank < RPT_SHORTLIST_MAX) {
            rows[m] = rows[i];
            q[m++] = q[i];
        }
    }
    free(built);
    free(qb);
    *rows_out = rows;
    *q_out = q;
    return m;
}

/* One model's answer (rpt_recommend): the rows of its model and amount of
 * training that meet their constraints, ranked; the systems it could not
 * price. */
typedef struct {
    int first; /* the decision's first built row: one decision per model and amount of training */
    int rec, fast, green, any_ttt, priced;
    const char *unpriced[RPT_UNPRICED_MAX]; /* systems of ok rows without a cost, first seen first */
    int nunpriced, unpriced_more;
} ModelAnswer;

static void note_unpriced(ModelAnswer *m, const RunRow *rr)
{
    for (int k = 0; k < m->nunpriced; k++)
        if (!strcmp(m->unpriced[k], rr->sc.system.name))
            return;
    if (m->nunpriced < RPT_UNPRICED_MAX)
        m->unpriced[m->nunpriced++] = rr->sc.system.name;
    else
        m->unpriced_more = 1;
}

/* "GB200 NVL72 has no price per device-hour (...): it is not ranked on
 * cost." for the systems a model's ranking could not price; "" if none. */
static size_t unpriced_text(const ModelAnswer *m, int budget, char *buf, size_t n)
{
    if (!m->nunpriced || !n)
        return 0;
    char names[512] = "";
    size_t l = 0;
    for (int k = 0; k < m->nunpriced && l < sizeof names; k++)
        l += (size_t)snprintf(names + l, sizeof names - l, "%s%s",
                              k == 0                                       ? ""
                              : k == m->nunpriced - 1 && !m->unpriced_more ? " and "
                                                                           : ", ",
                              m->unpriced[k]);
    if (m->unpriced_more && l < sizeof names)
        snprintf(names + l, sizeof names - l, " and more");
    const int one = m->nunpriced == 1 && !m->unpriced_more;
    return (size_t)snprintf(buf, n, " %s %s no price per device-hour (set system.price.device_hour): %s%s.",
                            names, one ? "has" : "have",
                            m->priced ? (one ? "it is not ranked on cost" : "they are not ranked on cost")
                                      : "the scenarios are ranked by energy, not cost",
                            budget ? (one ? ", and none of its scenarios can be held to the budget"
                                          : ", and none of their scenarios can be held to the budget")
                                   : "");
}

/* Every model's answer, and what the sentences need of the whole run. */
typedef struct {
    ModelAnswer m[RPT_MODELS_MAX];
    int nm, models_more, first, differ, any_ttt, budget;
} Answers;

static void answers_of(const Run *run, Answers *x)
{
    memset(x, 0, sizeof *x);
    x->first = -1;
    for (int i = 0; i < run->n; i++) {
        const RunRow *rr = &run->row[i];
        if (!rr->built)
            continue;
        if (x->first < 0)
            x->first = i;
        else if (!same_constraints(&rr->sc, &run->row[x->first].sc))
            x->differ = 1; /* each row is judged against its own */
        x->budget |= rr->sc.budget_usd > 0;
        const Scenario *sc = &rr->sc;
        int k = 0;
        while (k < x->nm && rpt_other_question(&run->row[x->m[k].first].sc, sc))
            k++;
        if (k == x->nm) {
            if (x->nm == RPT_MODELS_MAX) {
                x->models_more = 1;
                continue;
            }
            x->m[x->nm++] = (ModelAnswer){.first = i, .rec = -1, .fast = -1, .green = -1};
        }
        ModelAnswer *a = &x->m[k];
        const Result *r = &rr->r;
        if (r->status == STATUS_OK && isfinite(r->time_to_train_s)) {
            x->any_ttt = a->any_ttt = 1;
            if (isfinite(r->cost_usd))
                a->priced = 1;
            else
                note_unpriced(a, rr);
        }
        if (!rpt_meets(rr))
            continue;
        /* ties go to the cheaper (then the lower carbon): the rows of one
         * system on two grids differ in nothing else */
        const Result *f = a->fast >= 0 ? &run->row[a->fast].r : NULL,
                     *g = a->green >= 0 ? &run->row[a->green].r : NULL;
        if (!f || r->time_to_train_s < f->time_to_train_s ||
            (r->time_to_train_s == f->time_to_train_s && rpt_cheaper(r, f)))
            a->fast = i;
        if (!g || r->energy_to_train_j < g->energy_to_train_j ||
            (r->energy_to_train_j == g->energy_to_train_j && rpt_cheaper(r, g)))
            a->green = i;
        if (a->rec < 0 || rpt_cheaper(r, &run->row[a->rec].r))
            a->rec = i;
    }
}

int rpt_recommended(const Run *run, int *rows, int max)
{
    Answers *x = malloc(sizeof *x);
    if (!x)
        return -1;
    answers_of(run, x);
    int n = 0;
    for (int k = 0; k < x->nm && n < max; k++)
        if (x->m[k].rec >= 0)
            rows[n++] = x->m[k].rec;
    free(x);
    return n;
}

int rpt_recommend(const Run *run, char *buf, size_t n)
{
    Answers *x = malloc(sizeof *x);
    if (!x) {
        snprintf(buf, n, "No recommendation: out of memory.");
        return -1;
    }
    answers_of(run, x);
    const ModelAnswer *m = x->m;
    const int nm = x->nm, differ = x->differ;
    if (n)
        buf[0] = '\0';
    if (!x->any_ttt) {
        snprintf(buf, n, "No recommendation: no scenario has a time to train (no amount of training given).");
        free(x);
        return -1;
    }
    /* the constraints: the table's, or each row's own */
    char cons[256] = "";
    const int cons_row = differ ? -1 : x->first;
    if (cons_row >= 0)
        constraints_text(&run->row[cons_row].sc, cons, sizeof cons);
    int ret = -1, reps[RPT_MODELS_MAX];
    for (int j = 0; j < nm; j++) /* the decisions' first rows: their names */
        reps[j] = m[j].first;
    size_t len = 0;
    for (int k = 0; k < nm && len < n; k++) {
        const ModelAnswer *a = &m[k];
        if (!a->any_ttt)
            continue;
        const char *sp = len ? "\n" : ""; /* a line per model in the workbook, a space on the console */
        /* the model, and its amount of training where the study trains it twice */
        char name[RPT_QUESTION_MAX];
        rpt_question_labels(run, reps, nm, k, name, sizeof name);
        if (a->rec < 0) {
            len += (size_t)snprintf(buf + len, n - len,
                                    "%sNo %s scenario meets %s: relax a constraint or widen the sweep.", sp,
                                    name,
                                    cons_row >= 0 && cons[0] ? cons
                                    : differ                 ? "its own row's constraints"
                                                             : "its constraints");
        } else {
            char rc[256] = "", d[400];
            constraints_text(&run->row[a->rec].sc, rc, sizeof rc); /* what the row was judged by */
            describe(&run->row[a->rec], d, sizeof d);
            const char *kind = isfinite(run->row[a->rec].r.cost_usd) ? "cheapest" : "lowest-energy";
            if (ret < 0)
                ret = a->rec;
            if (rc[0])
                len += (size_t)snprintf(
                    buf + len, n - len, "%sRecommended for %s: %s. The %s scenario that meets %s%s%s.", sp,
                    name, d, kind, differ ? "its own row's constraints (" : "", rc, differ ? ")" : "");
            else /* nothing asked: the candidates, and no "recommended" */
                len +=
                    (size_t)snprintf(buf + len, n - len,
                                     "%s%s, with no deadline, budget or power budget stated%s: the %s is %s.",
                                     sp, name, differ ? " in its rows (others state one)" : "", kind, d);
            const char *within = rc[0] ? " within the constraints" : "";
            if (a->fast >= 0 && a->fast != a->rec && len < n) {
                describe(&run->row[a->fast], d, sizeof d);
                len += (size_t)snprintf(buf + len, n - len, " Fastest%s: %s.", within, d);
            }
            if (a->green >= 0 && a->green != a->rec && a->green != a->fast && len < n) {
                describe(&run->row[a->green], d, sizeof d);
                len += (size_t)snprintf(buf + len, n - len, " Lowest energy%s: %s.", within, d);
            }
        }
        if (len < n)
            len += unpriced_text(a, x->budget, buf + len, n - len);
    }
    if (x->models_more && len < n)
        snprintf(buf + len, n - len, " (The first %d models are answered here.)", RPT_MODELS_MAX);
    free(x);
    return ret;
}

int rpt_breakdown_per_sample(const Run *run, const RptSeriesSet *set)
{
    int batch = 0;
    for (int i = 0; i < set->n; i++) {
        if (set->s[i].best < 0)
            continue;
        const int b = run->row[set->s[i].best].r.st.global_batch;
        if (batch && b != batch)
            return 1;
        batch = b;
    }
    return 0;
}

/* The median over the series' best rows of a result figure (energy or
 * time to train; the first 256 series), or `none` when no best has it. */
static double ttt_of(const Result *r)
{
    return r->time_to_train_s;
}

static double energy_of(const Result *r)
{
    return r->energy_to_train_j;
}

static double best_median(const Run *run, const RptSeriesSet *set, double (*figure)(const Result *),
                          double none)
{
    double v[256];
    int n = 0;
    for (int i = 0; i < set->n && n < 256; i++) {
        const RptSeries *s = &set->s[i];
        if (s->best < 0)
            continue;
        const double x = figure(&run->row[s->best].r);
        if (isfinite(x))
            v[n++] = x;
    }
    for (int i = 1; i < n; i++) /* insertion sort: a handful of series */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n ? v[n / 2] : none;
}

double rpt_time_unit(const Run *run, const RptSeriesSet *set, const char **name)
{
    const double med = best_median(run, set, ttt_of, 86400.0 * 2);
    *name = med >= 2 * 86400.0 ? "days" : med >= 2 * 3600.0 ? "hours" : "minutes";
    return med >= 2 * 86400.0 ? 86400.0 : med >= 2 * 3600.0 ? 3600.0 : 60.0;
}

double rpt_energy_unit(const Run *run, const RptSeriesSet *set, const char **name)
{
    const double med = best_median(run, set, energy_of, 3.6e9);
    *name = med >= 2000 * 3.6e9 ? "GWh" : med >= 2 * 3.6e9 ? "MWh" : "kWh";
    return med >= 2000 * 3.6e9 ? 3.6e12 : med >= 2 * 3.6e9 ? 3.6e9 : 3.6e6;
}

/* ---- what a swept parameter changes ------------------------------------- */

/* The swept values of series s (its name after the base, without the
 * parentheses): "tdp=300 W". */
static void swept_values(const Run *run, const RptSeries *s, char *buf, size_t n)
{
    const Scenario *sc = &run->row[s->best].sc;
    const char *v = sc->series + sc->series_base;
    if (!strncmp(v, " (", 2))
        v += 2;
    size_t len = strlen(v);
    if (len && v[len - 1] == ')')
        len--;
    snprintf(buf, n, "%.*s", (int)len, v);
}

/* 1 when series a and b differ only by their swept values, for one model
 * and amount of training. */
static int same_sweep(const Run *run, const RptSeries *a, const RptSeries *b)
{
    const Scenario *x = &run->row[a->best].sc, *y = &run->row[b->best].sc;
    return x->series_base > 0 && x->series_base == y->series_base &&
           !strncmp(x->series, y->series, (size_t)x->series_base) && !rpt_other_question(x, y);
}

/* A figure of a series' best for the sentence: its time to train (else
 * its step time) and its energy to train (else a step's). */
static void sweep_point(const RunRow *rr, char *buf, size_t n)
{
    char t[48], e[32];
    const Result *r = &rr->r;
    if (isfinite(r->time_to_train_s)) {
        rpt_fmt_duration(r->time_to_train_s, t, sizeof t);
        rpt_fmt_energy(r->energy_to_train_j, e, sizeof e);
    } else {
        snprintf(t, sizeof t, "%.3g s a step", r->step_time_s);
        rpt_fmt_energy(r->energy_per_step_j, e, sizeof e);
        snprintf(e + strlen(e), sizeof e - strlen(e), " a step");
    }
    snprintf(buf, n, "%s on %d devices, %s", t, rr->sc.devices, e);
}

static double sweep_energy(const Result *r)
{
    return isfinite(r->energy_to_train_j) ? r->energy_to_train_j : r->energy_per_step_j;
}

#define SWEEP_LISTED 6 /* values listed one by one; a longer sweep names its ends and bests */

int rpt_sweep_effects(const Run *run, const RptSeriesSet *set, char *buf, size_t n)
{
    int count = 0;
    size_t len = 0;
    buf[0] = '\0';
    char *done = calloc((size_t)set->n + 1, 1);
    int *mem = malloc(sizeof(int) * ((size_t)set->n + 1));
    if (!done || !mem) {
        free(done);
        free(mem);
        return 0;
    }
    for (int i = 0; i < set->n && len + 1 < n; i++) {
        const RptSeries *a = &set->s[i];
        if (done[i] || a->best < 0 || run->row[a->best].sc.series_base <= 0)
            continue;
        int m = 0;
        for (int j = i; j < set->n; j++)
            if (!done[j] && set->s[j].best >= 0 && same_sweep(run, a, &set->s[j])) {
                mem[m++] = j;
                done[j] = 1;
            }
        if (m < 2)
            continue;
        int fast = mem[0], green = mem[0];
        for (int k = 1; k < m; k++) {
            const RunRow *r = &run->row[set->s[mem[k]].best];
            if (rpt_better(r, set->s[mem[k]].best, &run->row[set->s[fast].best], set->s[fast].best))
                fast = mem[k];
            if (sweep_energy(&r->r) < sweep_energy(&run->row[set->s[green].best].r))
                green = mem[k];
        }
        const Scenario *sc = &run->row[a->best].sc;
        char v[NAME_MAX_LEN], p[160];
        len += (size_t)snprintf(buf + len, n - len,
                                "%s%.*s, swept over %d values (the best of each): ", count ? "\n" : "",
                                sc->series_base, sc->series, m);
        for (int k = 0, shown = 0; k < m && len + 1 < n; k++) {
            const int s = mem[k];
            if (m > SWEEP_LISTED && k && k != m - 1 && s != fast && s != green)
                continue;
            swept_values(run, &set->s[s], v, sizeof v);
            sweep_point(&run->row[set->s[s].best], p, sizeof p);
            len += (size_t)snprintf(buf + len, n - len, "%s%s %s", shown++ ? "; " : "", v, p);
        }
        if (len + 1 < n) {
            char vf[NAME_MAX_LEN], vg[NAME_MAX_LEN];
            swept_values(run, &set->s[fast], vf, sizeof vf);
            swept_values(run, &set->s[green], vg, sizeof vg);
            if (fast == green)
                len += (size_t)snprintf(buf + len, n - len, ". Fastest and least energy at %s.", vf);
            else
                len += (size_t)snprintf(buf + len, n - len, ". Fastest at %s, least energy at %s.", vf, vg);
        }
        count++;
    }
    if (len >= n)
        buf[n - 1] = '\0';
    free(done);
    free(mem);
    return count;
}

/* ---- energy and carbon of the answers ----------------------------------- */

int rpt_energy_sentences(const Run *run, char *buf, size_t n)
{
    int recs[RPT_MODELS_MAX], q[RPT_MODELS_MAX], rep[RPT_MODELS_MAX];
    const int nrec = rpt_recommended(run, recs, RPT_MODELS_MAX);
    size_t len = 0;
    int count = 0;
    buf[0] = '\0';
    if (nrec <= 0)
        return 0;
    const int nq = rpt_questions(run, recs, nrec, q, rep, RPT_MODELS_MAX);
    for (int k = 0; k < nrec && len + 1 < n; k++) {
        const RunRow *rr = &run->row[recs[k]];
        const Result *r = &rr->r;
        if (!isfinite(r->energy_to_train_j))
            continue;
        char name[RPT_QUESTION_MAX], e[32], e_saved[32], carbon[200] = "", plan[200] = "";
        rpt_question_labels(run, rep, nq, q[k], name, sizeof name);
        rpt_fmt_energy(r->energy_to_train_j, e, sizeof e);
        if (isfinite(r->co2e_t))
            snprintf(carbon, sizeof carbon,
                     ", %.3g t CO2e (%.3g t operational at %.4g g a kWh, %.3g t embodied)", r->co2e_t,
                     r->co2e_operational_t, rr->sc.site.grid_gco2_kwh, r->co2e_embodied_t);
        else if (isfinite(r->co2e_operational_t))
            snprintf(carbon, sizeof carbon, ", %.3g t CO2e operational at %.4g g a kWh (embodied unknown)",
                     r->co2e_operational_t, rr->sc.site.grid_gco2_kwh);
        if (r->clock_plan_saving > 0) {
            rpt_fmt_energy(r->energy_to_train_j - r->energy_to_train_plan_j, e_saved, sizeof e_saved);
            snprintf(
                plan, sizeof plan,
                "; a clock plan for its pipeline saves %.1f %% (%s) at the same time, its lightest stage at "
                "%.0f %% clock",
                100 * r->clock_plan_saving, e_saved, 100 * r->plan_min_clock);
        } else {
            snprintf(plan, sizeof plan, "; no clock plan (%s)",
                     r->st.pp > 1 ? "its stages are balanced" : "one pipeline stage");
        }
        char ramp[200];
        if (r->power_ramp_w_s > 0)
            snprintf(
                ramp, sizeof ramp,
                "; held to the site's %.3g MW/s, each step's dip is %.3g MW and holding it burns %.2g %% "
                "of the energy",
                r->power_ramp_w_s / 1e6, r->power_dip_w / 1e6, 100 * r->ramp_hold_share);
        else if (r->power_dip_w > 0)
            snprintf(ramp, sizeof ramp, "; with no ramp limit the power steps (a %.3g MW dip each step)",
                     r->power_dip_w / 1e6);
        else
            snprintf(ramp, sizeof ramp, "; no wait in a step is common to every device");
        len += (size_t)snprintf(
            buf + len, n - len,
            "%s%s, %s on %d devices: %s at the wall%s%s; peak %.3g MW, swinging by %.3g MW "
            "when every device waits on one collective, once a step (every %.3g s: %.3g Hz)%s.",
            count ? "\n" : "", name, rr->sc.series, rr->sc.devices, e, carbon, plan, r->peak_power_w / 1e6,
            r->power_swing_w / 1e6, r->step_time_s, 1.0 / r->step_time_s, ramp);
        count++;
    }
    if (len >= n)
        buf[n - 1] = '\0';
    return count;
}
