/* report/charts.c — the gnuplot charts of a report, in reports/NAME/charts/:
 * for each chart a .dat (one block per series, separated by two blank lines
 * so that gnuplot's `index` picks them; columns devices and value) and a
 * .gp that a user can edit and re-run from that folder, then rendered to
 * PNG and SVG by running gnuplot there.  Charts: time-to-train (or step
 * time), efficiency (MFU and scaling efficiency) and system power against
 * devices on a log-2 axis, one line per series; and the time breakdown of
 * the best scenario of each series as a stacked histogram.  The .dat and .gp
 * are written atomically and are byte-identical for the same inputs; the
 * images are rendered to temporary names and renamed once gnuplot has
 * exited 0 and left a non-empty file.  User names are printed literally
 * (noenhanced text, single-quoted strings). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/atomic.h"
#include "report.h"

#define BAR_WRAP_MAX 6                        /* bars whose labels are wrapped under them; more are turned */
#define CHART_STYLES (8 * RPT_STYLE_VARIANTS) /* distinct line styles: 8 colours x 5 markers and dashes */

#ifndef DF_VERSION
#define DF_VERSION "0.0.0"
#endif

void rpt_gp_quote(const char *in, char *out, size_t n)
{
    size_t o = 0;
    for (const unsigned char *s = (const unsigned char *)in; *s && o + 2 < n; s++) {
        if (*s == '\'') {
            out[o++] = '\'';
            out[o++] = '\'';
        } else {
            out[o++] = *s < 0x20 || *s == 0x7F ? ' ' : (char)*s;
        }
    }
    out[o] = '\0';
}

/* A name for a .dat comment or a quoted label in a .dat: one line, no ". */
static void dat_text(const char *in, char *out, size_t n)
{
    size_t o = 0;
    for (const unsigned char *s = (const unsigned char *)in; *s && o + 1 < n; s++)
        out[o++] = *s < 0x20 || *s == 0x7F ? ' ' : *s == '"' ? '\'' : (char)*s;
    out[o] = '\0';
}

/* A bar label for a .dat: the series name wrapped at spaces into lines of
 * about 13 characters ("\n" in a double-quoted data string is a line
 * break for gnuplot), then the device count. */
/* A bar's label: wrapped at 13 characters under a few wide bars, on one
 * line (the chart turns it) under many narrow ones. */
static void bar_label(const char *series, int devices, int one_line, char *out, size_t n)
{
    if (one_line) {
        char clean[200];
        dat_text(series, clean, sizeof clean);
        for (char *p = clean; *p; p++)
            if (*p == '\\')
                *p = '/';
        snprintf(out, n, "%s, %d device%s", clean, devices, devices == 1 ? "" : "s");
        return;
    }
    char clean[200];
    dat_text(series, clean, sizeof clean);
    size_t o = 0, line = 0;
    for (const char *p = clean; *p && o + 4 < n;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        size_t word = strcspn(p, " ");
        if (line > 0 && line + 1 + word > 13) {
            out[o++] = '\\';
            out[o++] = 'n';
            line = 0;
        } else if (line > 0) {
            out[o++] = ' ';
            line++;
        }
        for (size_t k = 0; k < word && o + 4 < n; k++, line++)
            out[o++] = p[k] == '\\' ? '/' : p[k];
        p += word;
    }
    out[o] = '\0';
    snprintf(out + o, n - o, "\\n(%d device%s)", devices, devices == 1 ? "" : "s");
}

static void dat_num(FILE *f, double v)
{
    char b[64];
    if (!isfinite(v)) {
        fputs(" NaN", f);
        return;
    }
    rpt_number(b, sizeof b, v);
    fprintf(f, " %s", b);
}

typedef enum {
    CH_TIME,
    CH_EFF,
    CH_POWER,
    CH_BREAKDOWN,
    CH_TORNADO,
    CH_PARETO_COST,
    CH_PARETO_POWER,
    CH_PARETO_ENERGY,
    CH_FRONT,
    CH_COUNT
} ChartKind;

static const char *const chart_file[CH_COUNT] = {"time_to_train", "efficiency",    "power",
                                                 "breakdown",     "sensitivity",   "pareto_cost",
                                                 "pareto_power",  "pareto_energy", "clock_front"};

static int is_pareto(ChartKind k)
{
    return k == CH_PARETO_COST || k == CH_PARETO_POWER || k == CH_PARETO_ENERGY;
}

/* The lines every .gp starts with: how to re-run it, the terminals, the
 * output names.  `formats` and `outprefix` may be set with -e. */
static void gp_head(FILE *f, const char *base, const char *what, const char *name)
{
    char q[300];
    dat_text(name, q, sizeof q);
    fprintf(f,
            "# %s.gp — %s (deepflow %s).\n"
            "# Data: %s.dat, read by a path relative to this folder.  Edit this file and\n"
            "# re-render it from this folder (reports/%s/charts unless -o said otherwise):\n"
            "#     gnuplot %s.gp\n"
            "# which writes %s.png and %s.svg; choose with, e.g.,\n"
            "#     gnuplot -e \"formats='svg'\" %s.gp\n"
            "if (!exists(\"formats\")) formats = 'png svg'\n"
            "if (!exists(\"outprefix\")) outprefix = ''\n"
            "\n",
            base, what, DF_VERSION, base, q, base, base, base, base);
}

/* The loop over output formats around one plot command (printed by fn). */
static void gp_render_size(FILE *f, const char *base, int w, int h, void (*plot)(FILE *, const void *),
                           const void *ctx)
{
    fprintf(f,
            "do for [fmt in formats] {\n"
            "    if (fmt eq 'png') {\n"
            "        if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "            set terminal pngcairo size %d,%d noenhanced font 'DejaVu Sans,11'\n"
            "        } else {\n"
            "            set terminal png size %d,%d noenhanced\n"
            "        }\n"
            "    } else {\n"
            "        if (fmt eq 'svg') {\n"
            "            set terminal svg size %d,%d noenhanced font 'DejaVu Sans,11' background '#ffffff'\n"
            "        } else {\n"
            "            print 'unknown format ', fmt, ' (png or svg)'\n"
            "            exit status 1\n"
            "        }\n"
            "    }\n"
            "    set termoption noenhanced\n"
            "    set output outprefix.'%s.'.fmt\n",
            w, h, w, h, w, h, base);
    plot(f, ctx);
    fputs("    set output\n}\n", f);
}

static void gp_render(FILE *f, const char *base, void (*plot)(FILE *, const void *), const void *ctx)
{
    gp_render_size(f, base, 1000, 700, plot, ctx);
}

typedef struct {
    const Run *run;
    const RptSeriesSet *set;
    ChartKind kind;
    int comp[COMP_COUNT]; /* breakdown: components shown */
    int nc;
    int nbars;
    int per_sample;          /* breakdown: per sample (the series' batches differ), else per step */
    double tunit_s;          /* times to train are drawn in this unit (s), as in the workbook */
    const char *tunit;       /* its name: "days", "hours", "minutes" */
    const RptTornados *sens; /* tornados */
} PlotCtx;

/* Value of a chart point. */
static double point_value(const PlotCtx *c, const RunRow *rr, int col)
{
    const Result *r = &rr->r;
    switch (c->kind) {
    case CH_TIME:
        if (c->set->by_ttt)
            return isfinite(r->time_to_train_s) && r->time_to_train_s > 0 ? r->time_to_train_s / c->tunit_s
                                                                          : NAN;
        return r->step_time_s;
    case CH_EFF:
        return 100.0 * (col == 0 ? r->mfu : r->scaling_efficiency);
    case CH_POWER:
        return r->system_power_w / 1e3;
    case CH_PARETO_COST:
    case CH_PARETO_POWER:
    case CH_PARETO_ENERGY: {
        /* col 0: the cost axis, col 1: time to train in the study's unit */
        const double t =
            isfinite(r->time_to_train_s) && r->time_to_train_s > 0 ? r->time_to_train_s / c->tunit_s : NAN;
        const double x = c->kind == CH_PARETO_COST    ? r->cost_usd / 1e6
                         : c->kind == CH_PARETO_POWER ? r->system_power_w / 1e3
                                                      : r->energy_to_train_j / 3.6e9;
        return !isfinite(t) || !(x > 0) ? NAN : col ? t : x;
    }
    default:
        return NAN;
    }
}

/* A point is drawn when its value (either value, for efficiency) is finite. */
static int point_drawn(const PlotCtx *c, const RunRow *rr)
{
    return isfinite(point_value(c, rr, 0)) || (c->kind == CH_EFF && isfinite(point_value(c, rr, 1)));
}

static int series_points(const PlotCtx *c, const RptSeries *s)
{
    int n = 0;
    for (int k = 0; k < s->npt; k++)
        n += point_drawn(c, &c->run->row[s->pt[k]]);
    return n;
}

static void plot_series(FILE *f, const PlotCtx *c, const char *dat, int block, const RptSeries *s,
                        const char *name, int first);

/* The line style of a series: its system's colour, its strategy's dash
 * and marker (line_styles' table: colour i % 8, dash and marker i / 8). */
static int style_of(const RptSeries *s)
{
    return 1 + s->colour % 8 + 8 * (s->variant % RPT_STYLE_VARIANTS);
}

/* Panels of a chart against devices: one per model that has points (a
 * model's time to train says nothing of another's), so each legend holds
 * only the systems and strategies of one model. */
static int line_panels(const PlotCtx *c, int *rows, int *cols)
{
    int n = 0;
    for (int g = 0; g < c->set->ngroup; g++)
        for (int i = 0; i < c->set->n; i++)
            if (c->set->s[i].group == g && series_points(c, &c->set->s[i]) > 0) {
                n++;
                break;
            }
    *cols = n <= 1 ? 1 : 2;
    *rows = (n + *cols - 1) / *cols;
    return n;
}

static void plot_lines(FILE *f, const void *vctx)
{
    const PlotCtx *c = vctx;
    const char *dat = chart_file[c->kind];
    char name[300];
    int rows, cols;
    const int panels = line_panels(c, &rows, &cols);
    if (panels > 1)
        fprintf(f, "    set multiplot layout %d,%d title chart_title font ',13'\n", rows, cols);
    for (int g = 0; g < c->set->ngroup; g++) {
        int first = 1, block = 0;
        for (int i = 0; i < c->set->n; i++) {
            const RptSeries *s = &c->set->s[i];
            const int pts = series_points(c, s);
            if (pts == 0)
                continue;
            if (panels > 1 && s->group != g) {
                block++;
                continue;
            }
            if (first) {
                if (panels > 1) {
                    rpt_gp_quote(c->run->row[s->pt[0]].sc.model.name, name, sizeof name);
                    if (s->parts > 1)
                        fprintf(f, "    set title '%s (part %d of %d)' font ',12'\n", name, s->part,
                                s->parts);
                    else
                        fprintf(f, "    set title '%s' font ',12'\n", name);
                }
                fputs("    plot \\\n", f);
            }
            rpt_gp_quote(s->name, name, sizeof name);
            plot_series(f, c, dat, block, s, name, first);
            first = 0;
            block++;
        }
        if (!first)
            fputs("\n", f);
        if (panels <= 1)
            break;
    }
    if (panels > 1)
        fputs("    unset multiplot\n", f);
}

static void plot_series(FILE *f, const PlotCtx *c, const char *dat, int block, const RptSeries *s,
                        const char *name, int first)
{
    {
        int lines = c->kind == CH_EFF ? 2 : 1;
        for (int k = 0; k < lines; k++) {
            fprintf(f, "%s        '%s.dat' index %d using 1:%d with linespoints linestyle %d",
                    first ? "" : ", \\\n", dat, block, 2 + k, style_of(s));
            if (c->kind == CH_EFF)
                fprintf(f, " dashtype %d title '%s, %s'", k ? 2 : 1, name, k ? "scaling efficiency" : "MFU");
            else
                fprintf(f, " title '%s'", name);
            if (c->kind == CH_TIME) /* the prediction interval as error bars */
                fprintf(f,
                        ", \\\n        '%s.dat' index %d using 1:2:3:4 with yerrorbars linestyle %d notitle",
                        dat, block, style_of(s));
            first = 0;
        }
    }
}

static void plot_breakdown(FILE *f, const void *vctx)
{
    const PlotCtx *c = vctx;
    fputs("    plot \\\n", f);
    for (int k = 0; k < c->nc; k++)
        fprintf(f, "%s        'breakdown.dat' using %d%s title '%s'", k ? ", \\\n" : "", 2 + k,
                k == 0 ? ":xtic(1)" : "", component_name((Component)c->comp[k]));
    fputs("\n", f);
}

static void line_styles(FILE *f)
{
    /* eight distinguishable colours (Okabe-Ito); past eight series the
     * colours repeat with another marker and dash, so that no two of the
     * first 40 series look alike (filled circle, square, triangle, diamond
     * and downward triangle; solid, dashed, dot-dash, dash-dot-dot and
     * dotted) */
    static const char *const col[8] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                       "#E69F00", "#56B4E9", "#000000", "#F0E442"};
    static const int pt[RPT_STYLE_VARIANTS] = {7, 5, 9, 13, 11}, dt[RPT_STYLE_VARIANTS] = {1, 2, 4, 5, 3};
    for (int i = 0; i < CHART_STYLES; i++)
        fprintf(f,
                "set style line %d linecolor rgb '%s' linewidth 2 dashtype %d pointtype %d pointsize 1.2\n",
                i + 1, col[i % 8], dt[(i / 8) % RPT_STYLE_VARIANTS], pt[(i / 8) % RPT_STYLE_VARIANTS]);
}

typedef struct {
    PlotCtx pc;
    const char *name; /* report name */
} GpCtx;

static void dat_lines(FILE *f, const void *vctx)
{
    const PlotCtx *c = vctx;
    char ttt[48];
    snprintf(ttt, sizeof ttt, "time to train [%s]", c->tunit);
    const char *what[3][2] = {
        {ttt, "step time [s]"}, {"MFU [%] and scaling efficiency [%]", NULL}, {"system power [kW]", NULL}};
    const char *w = c->kind == CH_TIME && !c->set->by_ttt ? what[0][1] : what[c->kind][0];
    fprintf(f, "# %s.dat — %s against devices (deepflow %s).\n", chart_file[c->kind], w, DF_VERSION);
    fputs("# The best scenario (status ok) of each series at each device count.\n"
          "# One block per series, separated by two blank lines (gnuplot 'index').\n",
          f);
    char tcol[80];
    snprintf(tcol, sizeof tcol, "time_to_train_%s low high (90 %% prediction interval)", c->tunit);
    fprintf(f, "# columns: devices %s\n",
            c->kind == CH_EFF     ? "mfu_percent scaling_efficiency_percent"
            : c->kind == CH_POWER ? "system_power_kw"
            : c->set->by_ttt      ? tcol
                                  : "step_time_s low high (90 % prediction interval)");
    char name[300];
    int block = 0;
    for (int i = 0; i < c->set->n; i++) {
        const RptSeries *s = &c->set->s[i];
        if (series_points(c, s) == 0)
            continue;
        dat_text(s->name, name, sizeof name);
        fprintf(f, "%s# series %s\n", block ? "\n\n" : "\n", name);
        for (int k = 0; k < s->npt; k++) {
            const RunRow *rr = &c->run->row[s->pt[k]];
            if (!point_drawn(c, rr))
                continue;
            fprintf(f, "%d", rr->sc.devices);
            dat_num(f, point_value(c, rr, 0));
            if (c->kind == CH_EFF)
                dat_num(f, point_value(c, rr, 1));
            if (c->kind == CH_TIME) {
                dat_num(f, point_value(c, rr, 0) * rr->r.interval_lo);
                dat_num(f, point_value(c, rr, 0) * rr->r.interval_hi);
            }
            fputc('\n', f);
        }
        block++;
    }
}

/* The constraint the chart's y axis can show, as a red dotted line with
 * its label, and the recommended scenarios as red circles (one chart, not
 * panels: a model's point would show in the others') (issue 27). */
static void gp_marks(FILE *f, const PlotCtx *c, int panels)
{
    double deadline, power;
    rpt_study_constraints(c->run, &deadline, &power);
    double y = 0;
    char label[96] = "";
    if (c->kind == CH_TIME && c->set->by_ttt && deadline > 0) {
        char d[48];
        rpt_fmt_duration(deadline, d, sizeof d);
        y = deadline / c->tunit_s;
        snprintf(label, sizeof label, "deadline, %s", d);
    } else if (c->kind == CH_POWER && power > 0) {
        y = power / 1e3;
        snprintf(label, sizeof label, "power budget, %.4g kW", y);
    }
    if (y > 0)
        fprintf(f,
                "set arrow from graph 0, first %.6g to graph 1, first %.6g nohead dashtype 3 linewidth 2 "
                "linecolor rgb '#c00000' front\n"
                "set label '%s' at graph 0.01, first %.6g offset 0, 0.7 textcolor rgb '#c00000' front\n",
                y, y, label, y);
    int recs[RPT_MODELS_MAX];
    const int nrec = panels > 1 || c->kind == CH_EFF ? 0 : rpt_recommended(c->run, recs, RPT_MODELS_MAX);
    for (int k = 0; k < nrec; k++) {
        const RunRow *rr = &c->run->row[recs[k]];
        const double v = point_value(c, rr, 0);
        if (!isfinite(v) || !rpt_meets(rr))
            continue;
        fprintf(f,
                "set object circle at first %d, first %.6g size screen 0.012 front fillstyle empty border "
                "linecolor rgb '#c00000' linewidth 2\n"
                "set label 'recommended' at first %d, first %.6g offset 1.2, -0.9 textcolor rgb '#c00000' "
                "front\n",
                rr->sc.devices, v, rr->sc.devices, v);
    }
}

static void gp_lines(FILE *f, const void *vctx)
{
    const GpCtx *g = vctx;
    const PlotCtx *c = &g->pc;
    const char *base = chart_file[c->kind];
    static const char *const titles[3] = {"Time to train against devices", "Efficiency against devices",
                                          "System power against devices"};
    const char *title = c->kind == CH_TIME && !c->set->by_ttt ? "Step time against devices" : titles[c->kind];
    gp_head(f, base, title, g->name);
    line_styles(f);
    fprintf(f, "chart_title = '%s'\nset title chart_title font ',13'\n", title);
    fputs("set xlabel 'devices'\n", f);
    if (c->kind == CH_TIME) {
        if (c->set->by_ttt)
            fprintf(f, "set ylabel 'time to train [%s]'\n", c->tunit);
        else
            fputs("set ylabel 'step time [s]'\n", f);
        fputs("set logscale y 10\n"
              "set offsets graph 0.04, graph 0.04, 0, 0\n",
              f);
    } else if (c->kind == CH_POWER) {
        /* power grows with the devices over decades: a log axis, as the device axis */
        fputs("set ylabel 'system power [kW] (log scale)'\n"
              "set logscale y 10\n"
              "set offsets graph 0.04, graph 0.04, 0, 0\n",
              f);
    } else {
        fputs("set ylabel 'efficiency [%] (MFU solid, scaling efficiency dashed)'\n", f);
        fputs("set yrange [0:*]\n"
              "set offsets graph 0.04, graph 0.04, graph 0.06, 0\n",
              f);
    }
    fputs("set logscale x 2\n"
          "set format x '%g'\n"
          "set xtics nomirror\n"
          "set ytics nomirror\n"
          "set grid xtics ytics linetype 1 linewidth 1 linecolor rgb '#d8d8d8'\n"
          "set key outside top center horizontal Left reverse\n"
          "\n",
          f);
    int rows, cols;
    const int panels = line_panels(c, &rows, &cols);
    gp_marks(f, c, panels);
    if (panels > 1)
        gp_render_size(f, base, 1400, 80 + 520 * rows, plot_lines, c);
    else
        gp_render(f, base, plot_lines, c);
}

static void dat_breakdown(FILE *f, const void *vctx)
{
    const PlotCtx *c = vctx;
    fprintf(f,
            "# breakdown.dat — time %s by component, seconds, of the best scenario of each series "
            "(deepflow %s).\n",
            c->per_sample ? "per sample (the series' global batches differ)" : "of one step", DF_VERSION);
    fputs("# columns: label", f);
    for (int k = 0; k < c->nc; k++)
        fprintf(f, " %s_s", component_name((Component)c->comp[k]));
    fputc('\n', f);
    char name[300];
    for (int i = 0; i < c->set->n; i++) {
        const RptSeries *s = &c->set->s[i];
        if (s->best < 0)
            continue;
        const RunRow *rr = &c->run->row[s->best];
        bar_label(s->name, rr->sc.devices, c->nbars > BAR_WRAP_MAX, name, sizeof name);
        fprintf(f, "\"%s\"", name);
        for (int k = 0; k < c->nc; k++) {
            double v = rr->r.comp_time_s[c->comp[k]];
            if (c->per_sample && rr->r.st.global_batch > 0)
                v /= rr->r.st.global_batch;
            dat_num(f, isfinite(v) ? v : 0);
        }
        dat_text(rr->sc.name, name, sizeof name);
        fprintf(f, "  # %s\n", name);
    }
}

static void gp_breakdown(FILE *f, const void *vctx)
{
    const GpCtx *g = vctx;
    const PlotCtx *c = &g->pc;
    gp_head(f, "breakdown",
            c->per_sample ? "time per sample by component, best scenario of each series"
                          : "time of one step by component, best scenario of each series",
            g->name);
    static const char *const col[12] = {"#0072B2", "#56B4E9", "#009E73", "#F0E442", "#E69F00", "#D55E00",
                                        "#CC79A7", "#999999", "#000000", "#882255", "#44AA99", "#AA4499"};
    for (int k = 0; k < c->nc; k++)
        fprintf(f, "set linetype %d linecolor rgb '%s'\n", k + 1, col[k % 12]);
    fputs(c->per_sample
              ? "set title 'Time per sample by component, best scenario of each series (their global "
                "batches differ)' font ',13'\n"
                "set ylabel 'time per sample [s]'\n"
              : "set title 'Time of one step by component, best scenario of each series' font ',13'\n"
                "set ylabel 'time per step [s]'\n",
          f);
    fputs("set style data histograms\n"
          "set style histogram rowstacked\n"
          "set style fill solid 0.9 border rgb '#333333'\n"
          "set boxwidth 0.6\n"
          "set yrange [0:*]\n"
          "set xtics nomirror\n",
          f);
    /* many bars: labels on one line, turned, so that none overlaps */
    fputs(c->nbars > BAR_WRAP_MAX ? "set xtics rotate by 45 right\nset bmargin 17\nset lmargin 26\n"
                                  : "set bmargin 7\n",
          f);
    fputs("set ytics nomirror\n"
          "set grid ytics linetype 1 linewidth 1 linecolor rgb '#d8d8d8'\n"
          "set key outside right top invert\n"
          "\n",
          f);
    gp_render(f, "breakdown", plot_breakdown, c);
}

/* Time to train against a cost (money, system power, energy) for the best
 * scenario of each series at each device count, and the Pareto front: the
 * points no other point beats on both. */
static const char *const pareto_what[3][3] = {
    {"cost to train at list price [million USD]", "cost_musd", "cheaper"},
    {"system power at the wall [kW]", "system_power_kw", "draws less power"},
    {"energy to train [MWh]", "energy_to_train_mwh", "uses less energy"},
};

/* The points a Pareto chart draws (row indices, series by series) and
 * their questions (model and amount of training: one front each).
 * Returns how many points; *nq the questions; rows, q, rep are the
 * caller's to free (rows holds q after its n entries). */
static int pareto_rows(const PlotCtx *c, int **rows, int *rep, int *nq)
{
    int cap = 0, n = 0;
    for (int i = 0; i < c->set->n; i++)
        cap += c->set->s[i].npt;
    *rows = malloc(sizeof **rows * 2 * (size_t)(cap > 0 ? cap : 1));
    *nq = 0;
    if (!*rows)
        return 0;
    for (int i = 0; i < c->set->n; i++)
        for (int k = 0; k < c->set->s[i].npt; k++)
            if (point_drawn(c, &c->run->row[c->set->s[i].pt[k]]))
                (*rows)[n++] = c->set->s[i].pt[k];
    *nq = rpt_questions(c->run, *rows, n, *rows + cap, rep, RPT_MODELS_MAX);
    memmove(*rows + n, *rows + cap, sizeof **rows * (size_t)n);
    return n;
}

typedef struct {
    int q;
    double x, y;
} FrontPoint;

static int cmp_front(const void *a, const void *b)
{
    const FrontPoint *u = a, *v = b;
    if (u->q != v->q)
        return u->q < v->q ? -1 : 1;
    return u->x < v->x ? -1 : u->x > v->x ? 1 : u->y < v->y ? -1 : u->y > v->y;
}

static void dat_pareto(FILE *f, const void *vctx)
{
    const PlotCtx *c = vctx;
    const int m = c->kind - CH_PARETO_COST;
    fprintf(f,
            "# %s.dat — time to train against %s (deepflow %s).\n"
            "# The best scenario (status ok) of each series at each device count, one block per series\n"
            "# (gnuplot 'index'); the last blocks are the Pareto fronts, one per model (and amount of\n"
            "# training): no other point of the model is both faster and %s.\n"
            "# columns: %s time_to_train_%s devices\n",
            chart_file[c->kind], pareto_what[m][0], DF_VERSION, pareto_what[m][2], pareto_what[m][1],
            c->tunit);
    char name[300];
    int block = 0;
    for (int i = 0; i < c->set->n; i++) {
        const RptSeries *s = &c->set->s[i];
        if (series_points(c, s) == 0)
            continue;
        dat_text(s->name, name, sizeof name);
        fprintf(f, "%s# series %s\n", block ? "\n\n" : "\n", name);
        for (int k = 0; k < s->npt; k++) {
            const RunRow *rr = &c->run->row[s->pt[k]];
            if (!point_drawn(c, rr))
                continue;
            dat_num(f, point_value(c, rr, 0));
            dat_num(f, point_value(c, rr, 1));
            fprintf(f, " %d\n", rr->sc.devices);
        }
        block++;
    }
    int *rows = NULL, rep[RPT_MODELS_MAX], nq = 0;
    const int n = pareto_rows(c, &rows, rep, &nq);
    FrontPoint *pt = malloc(sizeof *pt * (size_t)(n > 0 ? n : 1));
    if (rows && pt) {
        for (int i = 0; i < n; i++)
            pt[i] = (FrontPoint){rows[n + i], point_value(c, &c->run->row[rows[i]], 0),
                                 point_value(c, &c->run->row[rows[i]], 1)};
        qsort(pt, (size_t)n, sizeof *pt, cmp_front);
        double best = INFINITY;
        for (int i = 0; i < n; i++) {
            if (i == 0 || pt[i].q != pt[i - 1].q) {
                rpt_question_labels(c->run, rep, nq, pt[i].q, name, sizeof name);
                char clean[300];
                dat_text(name, clean, sizeof clean);
                fprintf(f, "\n\n# Pareto front: %s\n", clean);
                best = INFINITY;
            }
            if (pt[i].y < best) {
                best = pt[i].y;
                dat_num(f, pt[i].x);
                dat_num(f, pt[i].y);
                fputs(" 0\n", f);
            }
        }
    }
    free(pt);
    free(rows);
}

static void plot_pareto(FILE *f, const void *vctx)
{
    const PlotCtx *c = vctx;
    const char *dat = chart_file[c->kind];
    char name[300];
    int block = 0;
    fputs("    plot \\\n", f);
    for (int i = 0; i < c->set->n; i++) {
        const RptSeries *s = &c->set->s[i];
        if (series_points(c, s) == 0)
            continue;
        rpt_gp_quote(s->name, name, sizeof name);
        fprintf(f, "        '%s.dat' index %d using 1:2 with points linestyle %d title '%s', \\\n", dat,
                block, style_of(s), name);
        block++;
    }
    int *rows = NULL, rep[RPT_MODELS_MAX], nq = 0;
    pareto_rows(c, &rows, rep, &nq);
    free(rows);
    for (int k = 0; k < nq; k++) {
        char label[RPT_QUESTION_MAX];
        rpt_question_labels(c->run, rep, nq, k, label, sizeof label);
        rpt_gp_quote(label, name, sizeof name);
        fprintf(f,
                "        '%s.dat' index %d using 1:2 with lines linecolor rgb '#000000' linewidth 1.5 "
                "dashtype %d title '%s%s'%s\n",
                dat, block + k, 2 + k % 4, nq > 1 ? "Pareto front: " : "Pareto front", nq > 1 ? name : "",
                k + 1 < nq ? ", \\" : "");
    }
}

/* Tics for a log axis that may span less than a decade (gnuplot labels
 * only the powers of ten): 1, 2, 5 x 10^k inside [lo, hi], or finer steps
 * (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8) when that gives fewer than three. */
static void gp_log_tics(FILE *f, const char *axis, double lo, double hi)
{
    if (!(lo > 0) || !(hi >= lo) || !isfinite(hi))
        return;
    static const double fine[10] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8}, coarse[3] = {1, 2, 5};
    const int e0 = (int)floor(log10(lo)), e1 = (int)floor(log10(hi));
    for (int pass = 0; pass < 2; pass++) {
        const double *m = pass ? fine : coarse;
        const int nm = pass ? 10 : 3;
        int n = 0;
        for (int e = e0; e <= e1; e++)
            for (int i = 0; i < nm; i++)
                n += m[i] * pow(10, e) >= lo * 0.999 && m[i] * pow(10, e) <= hi * 1.001;
        if (n < 3 && !pass)
            continue;
        fprintf(f, "set %stics (", axis);
        int k = 0;
        for (int e = e0; e <= e1; e++)
            for (int i = 0; i < nm; i++) {
                const double v = m[i] * pow(10, e);
                if (v >= lo * 0.999 && v <= hi * 1.001)
                    fprintf(f, "%s%g", k++ ? ", " : "", v);
            }
        fputs(")\n", f);
        return;
    }
}

static void gp_pareto(FILE *f, const void *vctx)
{
    const GpCtx *g = vctx;
    const PlotCtx *c = &g->pc;
    const int m = c->kind - CH_PARETO_COST;
    char title[160];
    snprintf(title, sizeof title, "Time to train against %s", pareto_what[m][0]);
    gp_head(f, chart_file[c->kind], title, g->name);
    line_styles(f);
    fprintf(f,
            "set title '%s (Pareto front dashed)' font ',13'\n"
            "set xlabel '%s (log scale)'\n"
            "set ylabel 'time to train [%s] (log scale)'\n"
            "set logscale xy 10\n"
            "set autoscale fix\n"
            "set offsets graph 0.06, graph 0.06, graph 0.06, graph 0.06\n"
            "set xtics nomirror\n"
            "set ytics nomirror\n"
            "set grid xtics ytics linetype 1 linewidth 1 linecolor rgb '#d8d8d8'\n"
            "set key outside top center horizontal Left reverse\n"
            "\n",
            title, pareto_what[m][0], c->tunit);
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {0, 0};
    for (int i = 0; i < c->set->n; i++)
        for (int k = 0; k < c->set->s[i].npt; k++) {
            const RunRow *rr = &c->run->row[c->set->s[i].pt[k]];
            if (!point_drawn(c, rr))
                continue;
            for (int a = 0; a < 2; a++) {
                lo[a] = fmin(lo[a], point_value(c, rr, a));
                hi[a] = fmax(hi[a], point_value(c, rr, a));
            }
        }
    gp_log_tics(f, "x", lo[0], hi[0]);
    gp_log_tics(f, "y", lo[1], hi[1]);
    gp_render(f, chart_file[c->kind], plot_pareto, c);
}

/* The tornados, one data block each (index k): each knob's change of the
 * time to train at -10 % and +10 %, most sensitive on top. */
static void dat_tornado(FILE *f, const void *vctx)
{
    const PlotCtx *c = vctx;
    char name[300];
    fprintf(
        f,
        "# sensitivity.dat — the time to train (or per sample) of each model's answer with each parameter "
        "10 %% lower and 10 %% higher, change in %% (deepflow %s); NaN: no strategy fits or an error at "
        "that value.  One block per model.\n"
        "# columns: position label minus10_pct plus10_pct\n",
        DF_VERSION);
    for (int t = 0; t < c->sens->n; t++) {
        const Sensitivity *s = &c->sens->s[t];
        dat_text(c->run->row[s->row].sc.name, name, sizeof name);
        fprintf(f, "%s# %s of '%s'\n", t ? "\n\n" : "", s->per_sample ? "time per sample" : "time to train",
                name);
        for (int k = 0; k < s->n; k++) {
            char label[120];
            const SensKnob *o = &s->k[k];
            snprintf(label, sizeof label, "%s%s", o->name,
                     o->status[0] != STATUS_OK   ? " (-10 %: no strategy fits)"
                     : o->status[1] != STATUS_OK ? " (+10 %: no strategy fits)"
                                                 : "");
            dat_text(label, name, sizeof name);
            fprintf(f, "%d \"%s\"", s->n - k, name);
            dat_num(f, 100 * o->time[0]);
            dat_num(f, 100 * o->time[1]);
            fputc('\n', f);
        }
    }
}

/* One panel per tornado: its title, axis and two sets of bars. */
static void plot_tornado(FILE *f, const void *vctx)
{
    const PlotCtx *c = vctx;
    const RptTornados *t = c->sens;
    char q[RPT_QUESTION_MAX + 8], name[300];
    if (t->n > 1)
        fprintf(
            f,
            "    set multiplot layout %d,1 title 'Which parameter matters: each one 10 %% lower and 10 %% "
            "higher' font ',13'\n",
            t->n);
    for (int k = 0; k < t->n; k++) {
        const Sensitivity *s = &t->s[k];
        rpt_gp_quote(c->run->row[s->row].sc.name, name, sizeof name);
        if (t->n > 1) {
            rpt_gp_quote(t->question[k], q, sizeof q);
            fprintf(f, "    set title '%s' font ',12'\n", q);
        }
        fprintf(f,
                "    set xlabel 'change of the %s of %s [%%]'\n"
                "    set yrange [0.3:%d.7]\n",
                s->per_sample ? "time per sample" : "time to train", name, s->n);
        /* boxxyerror: x:y:xlow:xhigh:ylow:yhigh, a bar from 0 to the change */
        fprintf(f,
                "    plot 'sensitivity.dat' index %d using (0):1:($3 < 0 ? $3 : 0):($3 > 0 ? $3 : 0):($1 - "
                "0.35):($1 + 0.35):ytic(2) with boxxyerror linecolor rgb '#0072B2' title 'parameter -10 %%', "
                "\\\n"
                "         'sensitivity.dat' index %d using (0):1:($4 < 0 ? $4 : 0):($4 > 0 ? $4 : 0):($1 - "
                "0.35):($1 + 0.35) with boxxyerror linecolor rgb '#D55E00' title 'parameter +10 %%'\n",
                k, k);
    }
    if (t->n > 1)
        fputs("    unset multiplot\n", f);
}

static void gp_tornado(FILE *f, const void *vctx)
{
    const GpCtx *g = vctx;
    const RptTornados *t = g->pc.sens;
    gp_head(f, "sensitivity", "which parameter matters: a tornado of each model's answer", g->name);
    if (t->n == 1)
        fputs("set title 'Which parameter matters: each one 10 % lower and 10 % higher' font ',13'\n", f);
    fputs("set style fill solid 0.85 border rgb '#333333'\n"
          "set ytics nomirror\n"
          "set xtics nomirror\n"
          "set xzeroaxis linetype 1 linecolor rgb '#333333'\n"
          "set grid xtics linetype 1 linewidth 1 linecolor rgb '#d8d8d8'\n"
          "set lmargin 34\n"
          "set key outside top center horizontal\n"
          "\n",
          f);
    if (t->n > 1)
        gp_render_size(f, "sensitivity", 1000, 80 + 560 * t->n, plot_tornado, &g->pc);
    else
        gp_render(f, "sensitivity", plot_tornado, &g->pc);
}

/* The clock plans' fronts (issue 31), one data block per tornado with a
 * front (index k): the power cap, the time and the energy at one clock and
 * with the clock plan, in days and MWh (seconds per sample and kWh a step
 * where the row has no amount to train). */
static void dat_front(FILE *f, const void *vctx)
{
    const PlotCtx *c = vctx;
    char name[300];
    fprintf(f,
            "# clock_front.dat — each model's answer with its device power cap lowered by tenths: time and "
            "energy "
            "at one clock and with the clock plan (deepflow %s).  One block per model.\n"
            "# columns: power_cap_w time energy energy_plan (days and MWh; per sample: s and kWh a step)\n",
            DF_VERSION);
    int block = 0;
    for (int t = 0; t < c->sens->n; t++) {
        const Sensitivity *s = &c->sens->s[t];
        if (s->nfront == 0)
            continue;
        dat_text(c->run->row[s->row].sc.name, name, sizeof name);
        fprintf(f, "%s# %s\n", block++ ? "\n\n" : "", name);
        const double tdiv = s->per_sample ? 1.0 : 86400.0, ediv = s->per_sample ? 3.6e6 : 3.6e9;
        for (int k = 0; k < s->nfront; k++) {
            const ClockPoint *p = &s->front[k];
            dat_num(f, p->cap_w);
            dat_num(f, p->time / tdiv);
            dat_num(f, p->energy / ediv);
            dat_num(f, p->energy_plan / ediv);
            fputc('\n', f);
        }
    }
}

static void plot_front(FILE *f, const void *vctx)
{
    const PlotCtx *c = vctx;
    const RptTornados *t = c->sens;
    const int n = rpt_fronts(t);
    if (n > 1)
        fprintf(
            f,
            "    set multiplot layout %d,1 title 'Run slower, save more: the power cap lowered by tenths' "
            "font ',13'\n",
            n);
    char q[RPT_QUESTION_MAX + 8];
    for (int k = 0, block = 0; k < t->n; k++) {
        const Sensitivity *s = &t->s[k];
        if (s->nfront == 0)
            continue;
        if (n > 1) {
            rpt_gp_quote(t->question[k], q, sizeof q);
            fprintf(f, "    set title '%s' font ',12'\n", q);
        }
        fprintf(
            f,
            "    set xlabel '%s'\n"
            "    set ylabel '%s'\n"
            "    plot 'clock_front.dat' index %d using 2:3 with linespoints linestyle 1 title 'one clock', "
            "\\\n"
            "         'clock_front.dat' index %d using 2:4 with linespoints linestyle 3 title 'with the "
            "clock "
            "plan', \\\n"
            "         'clock_front.dat' index %d using 2:4:(sprintf('%%.0f W', $1)) with labels offset 0,1 "
            "font ',9' notitle\n",
            s->per_sample ? "time per sample [s]" : "time to train [days]",
            s->per_sample ? "energy per step [kWh]" : "energy to train [MWh]", block, block, block);
        block++;
    }
    if (n > 1)
        fputs("    unset multiplot\n", f);
}

static void gp_front(FILE *f, const void *vctx)
{
    const GpCtx *g = vctx;
    const RptTornados *t = g->pc.sens;
    const int n = rpt_fronts(t);
    gp_head(f, "clock_front", "run slower, save more: each answer at lower power caps", g->name);
    if (n == 1)
        fputs("set title 'Run slower, save more: the power cap lowered by tenths' font ',13'\n", f);
    fputs("set grid linetype 1 linewidth 1 linecolor rgb '#d8d8d8'\n"
          "set key top right\n"
          "set style line 1 linecolor rgb '#0072B2' linewidth 2 pointtype 7 pointsize 1.2\n"
          "set style line 3 linecolor rgb '#009E73' linewidth 2 pointtype 5 pointsize 1.2\n"
          "\n",
          f);
    if (n > 1)
        gp_render_size(f, "clock_front", 1000, 80 + 520 * n, plot_front, &g->pc);
    else
        gp_render(f, "clock_front", plot_front, &g->pc);
}

/* ---- running gnuplot ---------------------------------------------------- */

/* The gnuplot program: $DEEPFLOW_GNUPLOT, else `gnuplot` on the PATH.
 * Returns 0 and the path, or -1 when there is none. */
static int find_gnuplot(char *out, size_t n)
{
    const char *env = getenv("DEEPFLOW_GNUPLOT");
    if (env && *env) {
        if (strchr(env, '/')) {
            snprintf(out, n, "%s", env);
            return access(env, X_OK) == 0 ? 0 : -1;
        }
    }
    const char *prog = env && *env ? env : "gnuplot";
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *e = strchr(path, ':');
        size_t len = e ? (size_t)(e - path) : strlen(path);
        snprintf(out, n, "%.*s/%s", (int)len, len ? path : ".", prog);
        if (access(out, X_OK) == 0)
            return 0;
        path += len + (e ? 1 : 0);
    }
    return -1;
}

/* Run `gnuplot -e SETTINGS FILE.gp` in dir; its messages are collected in
 * msg.  Returns the exit status (or -1 when it could not run). */
static int run_gnuplot(const char *prog, const char *dir, const char *settings, const char *gp, char *msg,
                       size_t n)
{
    int pfd[2];
    msg[0] = '\0';
    if (pipe(pfd))
        return -1;
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        /* gnuplot ends with the run: killed, the run leaves no renderer
         * writing into its staging folder (Linux) */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(126); /* the run died before the line above */
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        dup2(pfd[1], 2);
        close(pfd[0]);
        close(pfd[1]);
        if (chdir(dir) != 0)
            _exit(126);
        execl(prog, "gnuplot", "-e", settings, gp, (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    size_t len = 0;
    char buf[4096];
    ssize_t k;
    while ((k = read(pfd[0], buf, sizeof buf)) > 0 || (k < 0 && errno == EINTR)) {
        if (k <= 0)
            continue;
        /* keep the last n - 1 bytes */
        for (ssize_t i = 0; i < k; i++) {
            if (len + 1 >= n) {
                memmove(msg, msg + n / 2, len - n / 2);
                len -= n / 2;
            }
            msg[len++] = buf[i];
        }
    }
    msg[len] = '\0';
    close(pfd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

#define TMP_PREFIX ".tmp-render-"

/* Whether a rendered image is whole: gnuplot exits 0 on a full disk, so a
 * non-empty file is not proof.  A PNG ends with its IEND chunk; an SVG
 * with its closing tag (then only white space). */
static int image_complete(const char *path, const char *ext)
{
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    unsigned char tail[64];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        len = ftell(f);
    const long want = len < (long)sizeof tail ? len : (long)sizeof tail;
    int ok =
        len > 0 && fseek(f, len - want, SEEK_SET) == 0 && fread(tail, 1, (size_t)want, f) == (size_t)want;
    fclose(f);
    if (!ok)
        return 0;
    if (!strcmp(ext, "png"))
        return want >= 12 && memcmp(tail + want - 12, iend, sizeof iend) == 0;
    long e = want;
    while (e > 0 && (tail[e - 1] == '\n' || tail[e - 1] == '\r' || tail[e - 1] == ' ' || tail[e - 1] == '\t'))
        e--;
    return e >= 6 && memcmp(tail + e - 6, "</svg>", 6) == 0;
}

static int render(const char *prog, const char *dir, const char *base, unsigned formats, RptChartsDone *done,
                  char *err, size_t n)
{
    static const struct {
        unsigned bit;
        const char *ext;
    } fmts[2] = {{RPT_PNG, "png"}, {RPT_SVG, "svg"}};
    char settings[160] = "", gp[128], msg[2048], prefix[48];
    /* the process id keeps two runs into one folder off each other's files */
    snprintf(prefix, sizeof prefix, TMP_PREFIX "%ld-", (long)getpid());
    snprintf(settings, sizeof settings, "formats='%s%s%s'; outprefix='%s'", formats & RPT_PNG ? "png" : "",
             (formats & RPT_PNG) && (formats & RPT_SVG) ? " " : "", formats & RPT_SVG ? "svg" : "", prefix);
    snprintf(gp, sizeof gp, "%s.gp", base);
    int st = run_gnuplot(prog, dir, settings, gp, msg, sizeof msg);
    int rc = 0;
    char tmp[1400], final[1400];
    if (st != 0) {
        size_t l = strlen(msg);
        while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
            msg[--l] = '\0';
        const char *last = strrchr(msg, '\n');
        snprintf(err, n, "%s/%s: gnuplot %s %d%s%s", dir, gp,
                 st < 0 ? "could not run, status" : "exited with status", st, *msg ? ": " : "",
                 last ? last + 1 : msg);
        rc = -1;
    }
    for (int i = 0; i < 2; i++) {
        if (!(formats & fmts[i].bit))
            continue;
        snprintf(tmp, sizeof tmp, "%s/%s%s.%s", dir, prefix, base, fmts[i].ext);
        snprintf(final, sizeof final, "%s/%s.%s", dir, base, fmts[i].ext);
        struct stat sb;
        if (rc == 0 && (stat(tmp, &sb) != 0 || sb.st_size == 0)) {
            snprintf(err, n, "%s: gnuplot left no image", final);
            rc = -1;
        }
        if (rc == 0 && !image_complete(tmp, fmts[i].ext)) {
            snprintf(err, n, "%s: gnuplot left an incomplete image (%lld bytes; is the disk full?)", final,
                     (long long)sb.st_size);
            rc = -1;
        }
        if (rc == 0 && rename(tmp, final) != 0) {
            snprintf(err, n, "%s: %s", final, strerror(errno));
            rc = -1;
        }
        if (rc != 0)
            unlink(tmp);
        else
            done->rendered++;
    }
    if (rc)
        errno = EIO;
    return rc;
}

/* What an earlier run left in the charts folder that this run does not
 * stand behind: DROP_ALL for a chart this run has no data for, DROP_PNG /
 * DROP_SVG for images that would show the earlier data beside this run's
 * .dat.  Only deepflow's own file names are touched. */
enum { DROP_PNG = 1, DROP_SVG = 2, DROP_ALL = 7 };

static void drop_stale(const char *dir, const unsigned drop[CH_COUNT])
{
    static const struct {
        unsigned bit;
        const char *ext;
    } f[4] = {{4, "dat"}, {4, "gp"}, {DROP_PNG, "png"}, {DROP_SVG, "svg"}};
    char path[1400];
    for (int k = 0; k < CH_COUNT; k++)
        for (int e = 0; e < 4; e++)
            if (drop[k] & f[e].bit) {
                snprintf(path, sizeof path, "%s/%s.%s", dir, chart_file[k], f[e].ext);
                unlink(path);
            }
}

/* The step components the breakdown chart stacks: those any series' best
 * scenario spends time in (the hidden data-parallel exchange is not). */
static void breakdown_components(const Run *run, const RptSeriesSet *set, PlotCtx *pc)
{
    for (int c = 0; c < COMP_COUNT; c++) {
        if (c == COMP_DP_HIDDEN)
            continue;
        int any = 0;
        for (int i = 0; i < set->n; i++)
            if (set->s[i].best >= 0 && run->row[set->s[i].best].r.comp_time_s[c] > 0)
                any = 1;
        if (any)
            pc->comp[pc->nc++] = c;
    }
}

int rpt_charts_write(const ReportInput *in, const char *dir, unsigned formats, RptChartsDone *done, char *err,
                     size_t n)
{
    memset(done, 0, sizeof *done);
    RptSeriesSet set;
    int own_set;
    if (rpt_series_of(in, &set, &own_set)) {
        snprintf(err, n, "%s: out of memory", dir);
        return -1;
    }
    int nbest = 0;
    for (int i = 0; i < set.n; i++)
        nbest += set.s[i].best >= 0;
    const char *tunit;
    const double tunit_s = rpt_time_unit(in->run, &set, &tunit); /* as the workbook's */
    char path[1400];
    int rc = 0;
    int written[CH_COUNT] = {0};
    for (int k = 0; k < CH_COUNT && rc == 0; k++) {
        GpCtx g;
        memset(&g, 0, sizeof g);
        g.pc.run = in->run;
        g.pc.set = &set;
        g.pc.kind = (ChartKind)k;
        g.name = in->name;
        g.pc.sens = in->sens;
        g.pc.tunit_s = tunit_s;
        g.pc.tunit = tunit;
        if (k == CH_TORNADO) {
            if (!in->sens || in->sens->n == 0)
                continue;
        } else if (k == CH_FRONT) {
            if (rpt_fronts(in->sens) == 0)
                continue;
        } else if (k == CH_BREAKDOWN) {
            if (nbest == 0)
                continue;
            g.pc.per_sample = rpt_breakdown_per_sample(in->run, &set);
            breakdown_components(in->run, &set, &g.pc);
            if (g.pc.nc == 0)
                continue;
            g.pc.nbars = nbest;
        } else {
            int pts = 0;
            for (int i = 0; i < set.n; i++)
                pts += series_points(&g.pc, &set.s[i]);
            if (pts < (is_pareto((ChartKind)k) ? 2 : 1))
                continue;
        }
        if (done->charts == 0 && mkdir_p(dir)) {
            snprintf(err, n, "%s: %s", dir, strerror(errno));
            rc = -1;
            break;
        }
        snprintf(path, sizeof path, "%s/%s.dat", dir, chart_file[k]);
        rc = rpt_write_atomic(path,
                              k == CH_TORNADO           ? dat_tornado
                              : k == CH_FRONT           ? dat_front
                              : k == CH_BREAKDOWN       ? dat_breakdown
                              : is_pareto((ChartKind)k) ? dat_pareto
                                                        : dat_lines,
                              &g.pc, err, n);
        snprintf(path, sizeof path, "%s/%s.gp", dir, chart_file[k]);
        if (rc == 0)
            rc = rpt_write_atomic(path,
                                  k == CH_TORNADO           ? gp_tornado
                                  : k == CH_FRONT           ? gp_front
                                  : k == CH_BREAKDOWN       ? gp_breakdown
                                  : is_pareto((ChartKind)k) ? gp_pareto
                                                            : gp_lines,
                                  &g, err, n);
        if (rc == 0) {
            written[k] = 1;
            done->charts++;
        }
    }
    if (own_set)
        rpt_series_free(&set);
    if (rc || !(formats & (RPT_PNG | RPT_SVG)))
        return rc;
    char prog[1024];
    const int have_gnuplot = done->charts > 0 && find_gnuplot(prog, sizeof prog) == 0;
    unsigned drop[CH_COUNT];
    for (int k = 0; k < CH_COUNT; k++) /* images are kept only in a format rendered afresh */
        drop[k] = !written[k] ? DROP_ALL
                  : have_gnuplot
                      ? ((formats & RPT_PNG) ? 0u : DROP_PNG) | ((formats & RPT_SVG) ? 0u : DROP_SVG)
                      : DROP_PNG | DROP_SVG;
    drop_stale(dir, drop);
    if (done->charts == 0)
        return 0;
    if (!have_gnuplot) {
        done->no_gnuplot = 1;
        return 0;
    }
    /* a SIGCHLD handler set to ignore would make waitpid fail */
    struct sigaction old, dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &dfl, &old);
    for (int k = 0; k < CH_COUNT; k++) {
        if (!written[k])
            continue;
        if (render(prog, dir, chart_file[k], formats, done, err, n)) {
            /* the images of this chart and those after it would show the
             * earlier run's data beside this run's .dat: keep none */
            for (int j = 0; j < CH_COUNT; j++)
                drop[j] = j >= k && written[j] ? DROP_PNG | DROP_SVG : 0u;
            drop_stale(dir, drop);
            rc = -1;
            break;
        }
    }
    sigaction(SIGCHLD, &old, NULL);
    return rc;
}
