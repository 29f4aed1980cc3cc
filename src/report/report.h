/* report/report.h — the writers: summary.csv, breakdown.csv, the workbook
 * NAME.xlsx and the gnuplot charts (DESIGN.md §7).  Every file is written
 * atomically (temporary name beside the target, then rename).  Writers
 * return 0, or -1 with errno set and the failing path and reason in err.
 * Writers own what they create and free it before they return. */
#ifndef DF_REPORT_H
#define DF_REPORT_H

#include <stdio.h>
#include <time.h>

#include "batch/run.h"
#include "batch/sensitivity.h"
#include "io/table.h"
#include "io/template.h"
#include "report/columns.h"

/* ---- CSV (csv.c) ------------------------------------------------------ */

/* Write a file atomically (io/atomic.h): body prints it to the stream; 0,
 * or -1 with err "path: reason" and errno set (nothing left behind). */
int rpt_write_atomic(const char *path, void (*body)(FILE *, const void *), const void *ctx, char *err,
                     size_t n);

/* The most scenarios the workbook's per-scenario sheets list: a study of
 * more lists its rows of interest there (batch/run.h run_stream,
 * report/keep.c); up to it, a streamed study lists every row from a file
 * (report/detail.c). */
#define RPT_DETAIL_MAX 100000

/* A study holds at most this many rows in memory: a larger one is
 * streamed (its report is the same byte for byte). */
#define RPT_STREAM_MIN 4096

/* The table lines the Inputs sheet lists one by one, each a block of
 * every parameter of its first scenario (the lower of this and the detail
 * max); a table of more lists the first ones and counts the others, whose
 * inputs are their own cells (and every scenario is in summary.csv). */
#define RPT_INPUTS_LINES 200

/* The Inputs sheet's limit for a report of detail_max (0: RPT_DETAIL_MAX). */
static inline int rpt_inputs_lines(int detail_max)
{
    return detail_max > 0 && detail_max < RPT_INPUTS_LINES ? detail_max : RPT_INPUTS_LINES;
}

/* A streamed run's report (batch/run.h run_stream): rpt_keep_add sees
 * every row in table order (its index among the scenarios) and keeps the
 * rows the report's readers need (report/keep.c); rpt_keep_finish gives
 * them as a Run (table order, Run.total and the failures, table lines and
 * warnings filled in) that the report is written from as from a whole run.
 * input: the table's path (for the failures' messages); detail_max as
 * ReportInput's (0: RPT_DETAIL_MAX).  finish: 0, or -1 when out of memory
 * (then, or after it, rpt_keep_free). */
typedef struct RptKeep RptKeep;
RptKeep *rpt_keep_new(const char *input, int detail_max);
void rpt_keep_add(RptKeep *k, const RunRow *rr, int index);
int rpt_keep_finish(RptKeep *k, const RunStats *stats, Run *run);
void rpt_keep_free(RptKeep *k);

/* 1 when the row meets its constraints (the recommendation's test). */
int rpt_meets(const RunRow *rr);

int rpt_summary_csv(const Run *run, const char *path, char *err, size_t n);
int rpt_breakdown_csv(const Run *run, const char *path, char *err, size_t n);
/* runners_up.csv: the kept strategies of every searched row (--top K),
 * report/columns.h's runner_cols. */
int rpt_runners_up_csv(const Run *run, const char *path, char *err, size_t n);

/* A text field as the CSVs write it: quoted when needed, a leading = + - @
 * behind an apostrophe (CSV injection). */
void rpt_csv_text(FILE *f, const char *s);

/* ---- co-design (design.c) ---------------------------------------------- */

/* One quantity of a co-designed row: at the template's split and at the
 * split the search found. */
typedef struct {
    char quantity[48]; /* "area.core", "matrix peak", "time to train" */
    char unit[16];     /* "share", "TFLOP/s", "days" */
    double start, best;
} RptDesignRow;

#define RPT_DESIGN_MAX 40

/* The quantities of a row the co-design search resolved (0 for any other
 * row): every budget share, the derived device's figures, time and energy
 * to train.  Not thread-safe (one static scratch scenario pair). */
int rpt_design_rows(const RunRow *rr, RptDesignRow *v, int max);

/* design.csv: scenario, quantity, unit, template_split, codesigned. */
int rpt_design_csv(const Run *run, const char *path, char *err, size_t n);

/* ---- the per-scenario sheets' rows (detail.c) ----------------------------
 * What the workbook's per-scenario sheets (Scenarios, Breakdown, Design,
 * Runners-up) show of one row, as their cells take it: a streamed study
 * keeps these in a file as its rows pass (about a kilobyte a row, where
 * the row is 13), a study held in memory makes them from its rows, and
 * both write the same workbook. */
#define RPT_DETAIL_TEXT 600 /* the longest text a sheet's cell takes from a column */
#define RPT_DETAIL_COLS 128 /* summary columns the Scenarios sheet lists, at most */
#define RPT_RUNNER_COLS 64  /* runners-up columns the Runners-up sheet lists, at most */

typedef struct {
    int evaluated; /* built and not failed: the Breakdown sheet lists it */
    double step_time_s, energy_per_step_j;
    double comp_time_s[COMP_COUNT], comp_energy_j[COMP_COUNT];
    int name, series;             /* offsets into text */
    int ncol;                     /* summary columns: */
    double num[RPT_DETAIL_COLS];  /* each one's number (report_value) ... */
    int text_at[RPT_DETAIL_COLS]; /* ... or its text's offset; -1: the number */
    int ndesign;                  /* co-design quantities (rpt_design_rows) */
    RptDesignRow design[RPT_DESIGN_MAX];
    int ntop, ntopcol;                             /* runners-up: ranks x columns */
    double top_num[RUN_MAX_TOP * RPT_RUNNER_COLS]; /* as num, rank after rank */
    int top_text[RUN_MAX_TOP * RPT_RUNNER_COLS];
    char *text; /* every text, NUL-terminated, one after another */
    size_t ntext, cap;
} RptDetail;

/* A streamed run's RptDetail records, in table order, in a scratch file:
 * how many, and how many of those rows were evaluated (the Breakdown
 * sheet's count).  f NULL: none. */
typedef struct {
    FILE *f;
    int n, evaluated;
} RptSpool;

/* rr's values; 0, or -1 when out of memory.  Uses rpt_design_rows (one
 * thread at a time). */
int rpt_detail_of(const RunRow *rr, RptDetail *d);
/* One record to f, and the next from f: 0, or -1 on a write or read error
 * (or at the end of f). */
int rpt_detail_write(FILE *f, const RptDetail *d);
int rpt_detail_read(FILE *f, RptDetail *d);
void rpt_detail_free(RptDetail *d);
static inline const char *rpt_detail_text(const RptDetail *d, int at)
{
    return d->text + at;
}

/* One summary row (header when rr is NULL) to a stream, as in summary.csv. */
void rpt_summary_row(FILE *f, const RunRow *rr);

/* One row's lines of breakdown.csv, runners_up.csv and design.csv (NULL:
 * the header), as the whole-run writers write them: a streamed run writes
 * its CSVs a row at a time. */
void rpt_breakdown_row(FILE *f, const RunRow *rr);
void rpt_runners_row(FILE *f, const RunRow *rr);
void rpt_design_row(FILE *f, const RunRow *rr);

/* A CSV of a whole run, written atomically: row(f, NULL) for its header,
 * then row(f, rr) for every row (the four writers above). */
typedef void (*RptRowWriter)(FILE *f, const RunRow *rr);
int rpt_rows_csv(const Run *run, RptRowWriter row, const char *path, char *err, size_t n);

/* A number as the CSVs write it: %.6g, '.' decimal point, "" for NaN/Inf. */
void rpt_number(char *buf, size_t n, double v);

/* ---- what a report is made of ----------------------------------------- */

/* Output formats of `run --formats` (a bit set). */
enum { RPT_XLSX = 1u, RPT_CSV = 2u, RPT_PNG = 4u, RPT_SVG = 8u, RPT_ALL = 15u };

/* Parse "xlsx,csv,png,svg" (any non-empty subset, any order, or "all").
 * Returns 0, or -1 with err saying which word is wrong. */
int rpt_parse_formats(const char *s, unsigned *out, char *err, size_t n);

/* ---- sensitivity (sensitivity.c) ---------------------------------------- */

/* The tornados: each model's answer (rpt_recommended: its recommended, or
 * cheapest, row) with each main hardware and stack parameter -10 % and
 * +10 % (batch/sensitivity.h), one per model in the order the models first
 * appear, RPT_TORNADO_MAX at most; the study's fastest scenario where no
 * model has an answer. */
#define RPT_TORNADO_MAX  8
#define RPT_QUESTION_MAX (NAME_MAX_LEN + 48) /* a question's name (rpt_question_label) */
typedef struct {
    Sensitivity s[RPT_TORNADO_MAX];
    char question[RPT_TORNADO_MAX][RPT_QUESTION_MAX]; /* whose answer each is: the model (and amount) */
    int n;
    int more; /* models with an answer beyond RPT_TORNADO_MAX, not varied */
} RptTornados;

/* Fill out: 0, or -1 when no row is ok (out->n 0). */
int rpt_sensitivity(const Run *run, RptTornados *out);

/* sensitivity.csv: scenario, parameter, the relative changes, statuses;
 * every tornado's knobs, one after the other. */
int rpt_sensitivity_csv(const Run *run, const RptTornados *t, const char *path, char *err, size_t n);

/* clock_front.csv: each tornado's scenario at lower device power caps
 * (run slower), its time and energy at one clock and with the clock plan
 * (save more): scenario, measure, power_cap_w, clock, time_s, energy_kwh,
 * energy_kwh_plan. */
int rpt_clock_front_csv(const Run *run, const RptTornados *t, const char *path, char *err, size_t n);

/* How many of the tornados have a clock-plan front (NULL: none). */
int rpt_fronts(const RptTornados *t);

struct RptSeriesSet;

typedef struct {
    const Run *run;
    const struct RptSeriesSet *set; /* the run's series, built once by rpt_study; NULL: each writer builds
                                       its own */
    const Table *table;             /* the scenario table: path and title */
    const TemplateDB *db;           /* every template read, for Inputs and About */
    const char *name;               /* report name: the table's base name */
    const char *command;            /* the command line as run, for About */
    time_t created;                 /* document date (rpt_document_time) */
    const RptTornados *sens;        /* the tornados, or NULL */
    /* the figures a scenario's model used (a derive: device derived, wires
     * worked out: batch/evaluate.h's evaluate_resolve), for the Inputs
     * sheet; NULL: as given */
    int (*resolve)(Scenario *sc, Diag *d);
    int force;            /* publish into a folder that holds files no manifest lists (keeping them) */
    int detail_max;       /* scenarios the workbook's per-scenario sheets list one by one; a
                             larger study lists its rows of interest there (0: 100,000) */
    const char *streamed; /* a streamed run: the folder its CSVs were written into as the rows
                             passed (moved into the report); NULL: written from run */
    RptSpool detail;      /* a streamed run of at most detail_max scenarios: every row's
                             RptDetail (the workbook's per-scenario sheets list these); f NULL:
                             made from run's rows */
} ReportInput;

/* The date a report carries, never the clock: $SOURCE_DATE_EPOCH when set
 * (a non-negative integer), else the newest modification time of the
 * table.  Returns 0, or -1 with err when SOURCE_DATE_EPOCH is malformed or
 * the table cannot be stat'ed. */
int rpt_document_time(const char *table_path, time_t *out, char *err, size_t n);

/* ---- series (series.c) ------------------------------------------------ */

/* Rows grouped by their `series` label, in order of first appearance.
 * "Best" is the shortest finite time-to-train among rows of status ok
 * that meet their constraints (rpt_meets; where none does, among all the
 * ok rows: rpt_series_better); where no row has a time to train, the
 * highest samples/s (ties: less energy, fewer devices, earlier row).  pt
 * holds the best row at each device count, constraints or not, ascending,
 * for the charts. */
typedef struct {
    const char *name; /* the rows' sc.series (owned by the Run) */
    int best;         /* row index, -1 when no row of the series is ok */
    int *pt;          /* row indices, one per device count */
    int npt;
    /* how charts draw it: one colour per system, one dash and marker per
     * series of that system and model (its strategy), one chart (or
     * panel) per model; from the series' first row */
    int colour;      /* the system's index among the study's systems */
    int variant;     /* its index among the series of its system and model */
    int group;       /* its chart (panel): one per model, or per 8 series of a model with more */
    int part, parts; /* which of its model's charts, of how many (1 of 1 for most) */
} RptSeries;

/* Series the report draws and lists, in the order of their first built
 * rows; a study with more says so (summary.csv has every row). */
#define RPT_SERIES_MAX 64
typedef struct RptSeriesSet {
    RptSeries *s;
    int n;
    int more;   /* 1: the study has series past the first RPT_SERIES_MAX (not drawn or listed) */
    int by_ttt; /* some ok row has a finite time-to-train: charts plot it, else step time */
    int ngroup; /* models: charts against devices have one panel each */
} RptSeriesSet;

/* Line styles of the series of one system in one chart: a dash and a
 * marker each (charts.c and the workbook's charts), colour by system. */
#define RPT_STYLE_VARIANTS 5
#define RPT_LEGEND_MAX     8 /* series a chart draws; a model with more gets more charts, */
#define RPT_LEGEND_ROOM                                                                                      \
    10 /* but one of at most this many keeps one chart where each has a style of its own */

int rpt_series_build(const Run *run, RptSeriesSet *set);

/* The unit a study's times to train read best in, from the median of the
 * series' bests: days from 2 days, hours from 2 hours, else minutes.
 * Returns its seconds; *name is "days", "hours" or "minutes". */
double rpt_time_unit(const Run *run, const RptSeriesSet *set, const char **name);

/* Likewise the energy to train: GWh from 2,000 MWh, kWh below 2 MWh, else
 * MWh.  Returns its joules; *name is "kWh", "MWh" or "GWh". */
double rpt_energy_unit(const Run *run, const RptSeriesSet *set, const char **name);

/* 1 when the best scenarios of the series differ in global batch: their
 * breakdowns are then compared per sample (one step of 4,096 samples
 * against one of 1,536 says nothing), else per step. */
int rpt_breakdown_per_sample(const Run *run, const RptSeriesSet *set);
void rpt_series_free(RptSeriesSet *set);

/* A writer's series: the study's (in->set, shared: *own 0) or, when it has
 * none, built from in->run (*own 1: the caller frees them).  0, or -1 when
 * out of memory. */
int rpt_series_of(const ReportInput *in, RptSeriesSet *set, int *own);

/* Comparisons a table asks for with its `baseline` column: for each
 * (series, model) whose rows name a baseline series, the crossover (the
 * smallest device count from which the series is faster than its baseline
 * at every larger count; 0 when it never is) and the best speedup. */
typedef struct {
    const char *series;   /* owned by the Run */
    const char *baseline; /* owned by the Run */
    const char *model;    /* owned by the Run */
    int points;           /* device counts with a speedup */
    int crossover;        /* devices, 0 none */
    double best;          /* best speedup (NaN none) */
    int best_devices;
    /* best against best: the baseline's best time to train at any device
     * count over the series' (Result.speedup_best), and its range over the
     * critical batch halved and doubled (NaN none) */
    double bvb, bvb_lo, bvb_hi;
    /* ... and where it comes from, at the two best rows: the baseline's
     * samples to train (steps x global batch) over the series' (a smaller
     * global batch trains on fewer: the convergence curve), and the series'
     * throughput over the baseline's (the step times); their product is
     * bvb (NaN none) */
    double from_samples, from_rate;
} RptBaseline;

/* Fills out[0..max) and returns how many comparisons there are. */
int rpt_baselines(const Run *run, RptBaseline *out, int max);

/* ---- published claims (claims.c) ----------------------------------------
 * A table's "# claim: SERIES | METRIC RANGE | SOURCE" comments (io/table.h):
 * what a publication claims of a series against its baseline series, and
 * the study's own figure for it.  The metrics: speedup (best against best,
 * rpt_baselines' bvb, with its range over the critical batch), speedup_same
 * (the best speedup at one device count), bandwidth (the scale-up tier's
 * per device, a factor), power and energy (the system power and the energy
 * to train, a change in %); the last three at the two series' best
 * scenarios (RptSeries.best).  RANGE: ">= V", "<= V" or "V..W", with an
 * optional 'x' (factors) or '%' (changes). */
typedef enum { CLAIM_SPEEDUP, CLAIM_SPEEDUP_SAME, CLAIM_BANDWIDTH, CLAIM_POWER, CLAIM_ENERGY } RptClaimMetric;

typedef struct {
    int line;         /* the table line that states it */
    char series[128]; /* as stated */
    char source[TABLE_CLAIM_MAX];
    char stated[64]; /* the claimed range as written: ">= 20x" */
    RptClaimMetric metric;
    double lo, hi;                  /* the claimed range (-inf, +inf: open) */
    const char *baseline;           /* the series' baseline, owned by the Run */
    const char *model;              /* ... and its model */
    double value;                   /* the study's figure */
    double value_lo, value_hi;      /* its range (speedup: over the critical batch; NaN none) */
    int devices;                    /* speedup_same: where */
    double exchange;                /* where the two series' links differ: the share of the baseline's best
                                       step in exchanges and pipeline waits (NaN otherwise) */
    double from_samples, from_rate; /* speedup: its two parts (RptBaseline) */
    int holds;                      /* 1 it holds, 0 not, -1 not checked (error says why) */
    char error[256];
} RptClaim;

#define RPT_CLAIMS_MAX TABLE_CLAIMS_MAX

/* Fills out[0..max) with t's claims and the study's figures (set: the
 * run's series); returns how many. */
int rpt_claims(const Run *run, const RptSeriesSet *set, const Table *t, RptClaim *out, int max);
/* How the Summary names a metric: "speedup, best against best". */
const char *rpt_claim_metric_name(RptClaimMetric m);
/* The study's figure as the Summary prints it: "1.10x", "+3.2 %"; "" when
 * the claim was not checked. */
void rpt_fmt_claim_value(const RptClaim *c, char *buf, size_t n);
/* Why a speedup claim does not hold: of faster links, "BASELINE's best
 * step spends 11 % of its time exchanging data and waiting in the
 * pipeline: links that made that free would make that step at most 1.12x
 * faster"; else where the two train on different numbers of samples,
 * "3.06x from the samples to train, the convergence curve's doing, and
 * 0.37x from the throughput" (the same samples: "it is all throughput");
 * "" otherwise. */
void rpt_fmt_claim_why(const RptClaim *c, char *buf, size_t n);
/* One sentence: "Claim (SOURCE): SERIES against BASELINE, METRIC STATED;
 * here VALUE: holds." or "PATH:LINE: claim not checked: WHY." */
#define RPT_CLAIM_TEXT_MAX 1024
void rpt_fmt_claim(const RptClaim *c, const char *path, char *buf, size_t n);

/* "; best against best 1.21x, 0.95x to 1.40x over the critical batch's
 * range" (halved to doubled, or the range the curve states), without its
 * range where it has none, and where it comes from where that is known
 * (": 1.50x from the samples to train, 0.81x from the throughput", where
 * the samples to train differ); ""
 * where b has no best against best. */
#define RPT_BVB_MAX 176
void rpt_fmt_bvb(const RptBaseline *b, char *buf, size_t n);

/* 1 when row a is better than row b by the rule above. */
int rpt_better(const RunRow *a, int ia, const RunRow *b, int ib);

/* A series' best: a row that meets its constraints before one that does
 * not, then rpt_better. */
int rpt_series_better(const RunRow *a, int ia, const RunRow *b, int ib);

/* What each swept hardware, technology or stack parameter changes: one
 * sentence per group of series that differ only by their swept values
 * (Scenario.series_base) for one model and amount of training, with each
 * value's best and where it is fastest and uses the least energy.  The
 * sentences joined by '\n' into buf; returns how many. */
#define RPT_SWEEPS_TEXT_MAX 8192
int rpt_sweep_effects(const Run *run, const RptSeriesSet *set, char *buf, size_t n);

/* The energy and carbon of each model's answer (rpt_recommended), a
 * sentence each joined by '\n': its energy at the wall, its CO2e
 * (operational, embodied), what a clock plan for its pipeline saves, its
 * peak power and swing, and how often it swings: once a step, a compute
 * phase and a communication phase (Choukse et al., "Power Stabilization
 * for AI Training Datacenters", arXiv:2508.14318).  Returns how many. */
int rpt_energy_sentences(const Run *run, char *buf, size_t n);

/* The question a study answers, in one sentence, from its rows. */
void rpt_question(const Run *run, const RptSeriesSet *set, char *buf, size_t n);

/* Human units for a reader: a duration in minutes, hours or days; money
 * as $ k / $ M ("cost unknown" for NaN); energy in kWh, MWh or GWh. */
void rpt_fmt_duration(double s, char *buf, size_t n);
void rpt_fmt_money(double usd, char *buf, size_t n);
void rpt_fmt_energy(double j, char *buf, size_t n);

/* What an ok row with a time to train misses of its constraints ("past the
 * deadline, over the power budget") into buf: 1, or 0 ("") when it meets
 * them or has no time to train. */
int rpt_misses(const RunRow *rr, char *buf, size_t n);

/* The recommendation's rule between two rows that meet the constraints: 1
 * when r is cheaper than b (at the same cost or without prices: less
 * carbon, then less energy; then faster). */
int rpt_cheaper(const Result *r, const Result *b);

/* The answer, in sentences with numbers and ranges, one decision per
 * model (a recommendation never crosses models): among a model's rows that
 * meet their own deadline, budget and power budget, the cheapest (else
 * the least energy, else the fastest) is recommended, or, where no row
 * states a constraint, named as the cheapest without being recommended;
 * the fastest and the lowest-energy ones follow when they differ.  The
 * systems a model's ranking could not price are named, with why.  Each
 * model's answer after the first starts a new line ('\n').  Returns
 * the index of the first model's recommended (or cheapest) row, or -1
 * (buf then says why). */
#define RPT_MODELS_MAX   32    /* models answered one by one */
#define RPT_ANSWER_MAX   16384 /* room for every model's sentences */
#define RPT_UNPRICED_MAX 4     /* unpriced systems named per model */
int rpt_recommend(const Run *run, char *buf, size_t n);

/* Why two rows answer different questions, so that no speedup or "best"
 * may compare them: "other model", "other amount of training"; NULL when
 * they train the same model on the same amount. */
const char *rpt_other_question(const Scenario *a, const Scenario *b);

/* A question's name: the model's, with its amount of training when
 * `amount` ("Llama-3-405B on 800 B tokens"): where a study trains one
 * model on two amounts; in three digits at 1, in every digit at 2. */
void rpt_question_label(const Scenario *sc, int amount, char *buf, size_t n);

/* The question (model and amount of training) of each of rows[0..n): q[i]
 * numbers them in order of first appearance, rep[k] is question k's first
 * row; at most max questions (the rest join the last).  Returns how many. */
int rpt_questions(const Run *run, const int *rows, int n, int *q, int *rep, int max);

/* Question k's name among the nq of rep (rpt_question_label, its amount
 * given where another question trains the same model, in every digit
 * where three digits would name two questions alike). */
void rpt_question_labels(const Run *run, const int *rep, int nq, int k, char *buf, size_t n);

/* The study's deadline and power budget where every built row states the
 * same (else 0: each row is judged by its own; a chart has no line to
 * draw). */
void rpt_study_constraints(const Run *run, double *deadline_s, double *power_w);

/* 1 when the row states a deadline, budget or power budget. */
int rpt_asked(const Scenario *sc);

/* The shortlist: the rows that state constraints and meet them, per question (in
 * the order of the questions' first built rows; the first RPT_MODELS_MAX,
 * as the answer), cheapest first
 * (rpt_cheaper; ties to the earlier row), RPT_SHORTLIST_MAX of each at
 * most: *rows and their questions *q (the caller frees both), rep[k]
 * question k's first built row (RPT_MODELS_MAX), *nq the questions,
 * *meets every scenario of the study that meets its constraints.
 * Returns how many rows, or -1 (out of memory). */
#define RPT_SHORTLIST_MAX 8
int rpt_shortlist(const Run *run, int **rows, int **q, int *rep, int *nq, long *meets);

/* The rows rpt_recommend recommends (or names cheapest), one per model in
 * the order the models first appear, at most max: how many, or -1. */
int rpt_recommended(const Run *run, int *rows, int max);

/* ---- workbook (xlsx.c) ------------------------------------------------ */

/* NAME.xlsx: Summary, Scenarios, Breakdown, Inputs, Errors, About. */
int rpt_xlsx_write(const ReportInput *in, const char *path, char *err, size_t n);

/* Cell text as the workbook writes it: invalid UTF-8 bytes become U+FFFD,
 * control characters other than tab and newline become spaces, and the
 * text is cut (on a character boundary) to Excel's 32767 characters and to
 * n - 1 bytes.  Returns the length written. */
size_t rpt_clean_text(const char *in, char *out, size_t n);

/* A valid Excel sheet name from any text: none of []:*?/\, no leading or
 * trailing apostrophe, at most 31 characters, never empty ("Sheet"). */
void rpt_sheet_name(const char *in, char *out, size_t n);

/* 1 when text would read as a formula if typed into a cell (it begins,
 * after spaces, with =, +, - or @).  The workbook writes all user text with
 * worksheet_write_string, so such text stays text; this names the guard. */
int rpt_formula_like(const char *s);

/* The Excel number format of a summary column ("0.0%" for a percentage). */
const char *rpt_num_format(RcType type, RcFormat format);

/* Column letters of a 0-based column index: 0 -> "A", 27 -> "AB". */
void rpt_col_letters(int col, char out[8]);

/* ---- gnuplot charts (charts.c) ---------------------------------------- */

typedef struct {
    int charts;     /* charts written as .dat + .gp */
    int rendered;   /* images made (PNG and SVG count apart) */
    int no_gnuplot; /* 1: gnuplot was not found, nothing rendered */
} RptChartsDone;

/* Writes DIR/NAME.dat and DIR/NAME.gp for time-to-train, efficiency, system power
 * and the breakdown of the best scenarios, then runs gnuplot in DIR to
 * render the PNG and/or SVG that `formats` asks for ($DEEPFLOW_GNUPLOT
 * names the program, default `gnuplot` on the PATH). */
int rpt_charts_write(const ReportInput *in, const char *dir, unsigned formats, RptChartsDone *done, char *err,
                     size_t n);

/* A name as a gnuplot single-quoted string body: control characters to
 * spaces, ' doubled. */
void rpt_gp_quote(const char *in, char *out, size_t n);

/* ---- what a run prints and publishes (publish.c, messages.c, stream.c,
 * text.c) ------------------------------------------------------------ */

/* Write every format asked for into a staging folder beside dir and, when
 * every one is whole, publish it as dir in one step (io/folder.h: the
 * user's own files in dir are kept, a folder without a manifest refused
 * unless in->force); print what failed to stderr and the closing paragraph
 * to stdout.  Returns 0, or -1 when some output could not be written, and
 * then nothing is published: dir is as it was. */
int rpt_publish(const ReportInput *in, const char *dir, unsigned formats);

/* The failed rows' messages on stderr, in table order (one message many
 * rows share printed once, with the table lines it affects), and the
 * warnings of the templates read and of the rows, each once. */
void rpt_print_row_errors(const Run *run, const char *input);

/* The failed rows' messages grouped as they come (table order), written to
 * out: rpt_print_row_errors's grouping, for a streamed run that cannot
 * hold its rows (its messages wait in a temporary file, Run.said).  Memory
 * is bounded whatever the number of failures.  add: -1 when out of memory
 * (the message is then written at once); finish writes what is left and
 * frees s. */
typedef struct RptSaid RptSaid;
RptSaid *rpt_said_new(FILE *out);
int rpt_said_add(RptSaid *s, const char *msg, int line);
void rpt_said_finish(RptSaid *s);
void rpt_print_warnings(const TemplateDB *db, const Run *run);

/* run_table for a study too large to hold (batch/run.h run_stream): the
 * CSVs go into a staging folder of their own in dir (sdir; rpt_publish
 * takes them from there, ReportInput.streamed), the rows the report needs
 * into run, and, for a workbook that lists every row (at most detail_max),
 * each row's RptDetail into a scratch file (spool; its reader rewinds it;
 * f NULL otherwise; the caller closes it).  Returns 0,
 * 1 with d filled when the table cannot be run, 2 when the CSVs or the
 * rows' file cannot be written. */
int rpt_stream_table(TemplateDB *db, const Table *t, int jobs, int top_k, RunProgress progress, void *pctx,
                     const char *dir, unsigned formats, int detail_max, Run *run, char *sdir, size_t sn,
                     RptSpool *spool, Diag *d);

/* One study from its table to its report (study.c): every row evaluated
 * (streamed through rpt_stream_table when the study is larger than the
 * workbook lists), the failed rows and the warnings printed, the
 * sensitivity worked out and every format published into dir.  On an MPI
 * run only rank 0 reports. */
typedef struct {
    TemplateDB *db;
    const Table *table;
    const char *input;   /* the table's path, for messages */
    const char *name;    /* the report's name (the table's file name) */
    const char *dir;     /* the report's folder */
    const char *command; /* the command line, for the About sheet */
    time_t created;      /* the document date */
    int jobs, top_k;
    unsigned formats;
    RunProgress progress;
    void *progress_ctx;
    int (*resolve)(Scenario *sc, Diag *d); /* as ReportInput.resolve */
    int force;   /* --force: write into a folder holding files no manifest lists, keeping them */
    int no_wait; /* --no-wait: fail, not wait, when another run holds the folder's lock */
} Study;
enum { STUDY_OK, STUDY_ROWS_FAILED, STUDY_INPUT, STUDY_OUTPUT };
int rpt_study(const Study *s);

/* deepflow calibrate (report/calibrate.c): the table's runs, each with its
 * measured figure, fitted (calib/calib.h) into a frameworks template at
 * out, written atomically and never over a file this command did not
 * write.  ask: bit p fits parameter p (CalParam).  nccl-tests outputs set
 * their tier's measured curve (one host: the intra-node tier, several: the
 * inter-node tier), written as a networks template beside out
 * (NAME-intra.yaml, NAME-inter.yaml), and that tier's collective
 * parameters are then not fitted.  A GEMM table sets the device's matrix
 * efficiency (NAME-device.yaml) before the stack is fitted on top of it.  Returns the exit status:
 * 0, 1 (some rows failed and were left out), 3 (bad input or no fit), 4
 * (the template could not be written). */
#define CAL_MAX_NCCL 16
typedef struct {
    const char *input, *out, *command;
    unsigned ask;
    int jobs;
    const char *nccl[CAL_MAX_NCCL]; /* nccl-tests outputs (--nccl): a tier's measured curve */
    int nnccl;
    const char *gemm; /* a table of measured GEMMs (--gemm: m,n,k,dtype,time_us): the device's efficiency */
} CalibrateJob;
int rpt_calibrate(TemplateDB *db, const CalibrateJob *job);

/* deepflow eval's printout of one row on stdout (a note on stderr when no
 * global batch was given). */
void rpt_print_eval(const RunRow *rr);

/* deepflow eval --ops: the ops of one microbatch as the step costed them,
 * list by list (each op's runs, shape, device and host time, share of its
 * list's device time, what limits it), as text on stdout, or as CSV on f
 * (header, then one row an op). */
void rpt_print_ops(const OpTrace *t);
void rpt_ops_csv(FILE *f, const OpTrace *t);

/* The command line's texts (cli.c): the usage lines on f; --help on
 * stdout; one template's every parameter as resolved ("# NAME (PATH)", the
 * note of what was derived, why it could not be when cannot is not NULL,
 * then one "key value" line each); the names of the templates of a kind
 * (every kind when NULL), -1 when kind is none of them. */
void rpt_usage(FILE *f);
void rpt_print_help(void);
void rpt_print_template(const ParamTable *t, const void *obj, const char *name, const char *path,
                        const char *note, const char *cannot);
int rpt_print_template_names(const TemplateDB *db, const char *kind);

/* The report's name: the table's file name without its folder and .csv. */
void rpt_report_name(const char *path, char *out, size_t n);

/* A run's progress line on stderr ("done/total scenarios, rate, ETA"),
 * when tty: a RunProgress callback (cli.c). */
typedef struct {
    int tty;
    struct timespec t0;
} RptProgress;
void rpt_progress_start(RptProgress *p, int tty);
void rpt_progress_line(int done, int total, void *ctx);

/* A parameter table's columns on stdout, from the table itself (never a
 * second, hand-kept list): "name", "name (a|b|c)", "name (0-3|auto)". */
void rpt_print_columns(const ParamTable *t);

/* The command line as run ("deepflow" and argv[0..argc-1]), each argument
 * quoted for a POSIX shell when it needs it (for the About sheet). */
void rpt_command_line(int argc, char **argv, char *out, size_t n);

#endif
