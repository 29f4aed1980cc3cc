/* report/calibrate.c — deepflow calibrate: a scenario table with one
 * measured figure per row in, a frameworks template fitted to those runs
 * out (calib/calib.h does the fit), with its provenance, every fitted value
 * and its uncertainty, the in-sample and leave-one-out error, every run's
 * residual, and the 90 % range its out-of-sample residuals give. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "batch/run.h"
#include "calib/calib.h"
#include "core/param.h"
#include "core/sha256.h"
#include "core/text.h"
#include "io/atomic.h"
#include "io/nccltests.h"
#include "io/scenario.h"
#include "io/table.h"
#include "report.h"

enum { M_STEP, M_TOKENS, M_MEMORY, M_COUNT };
static const char *const measured_col[M_COUNT] = {"measured_step_time_s", "measured_tokens_per_s_per_device",
                                                  "measured_memory_gib"};
/* sane magnitudes: beyond them a figure is in other units or a slip */
static const double measured_max[M_COUNT] = {1e6, 1e7, 1e5};
static const char *const measured_what[M_COUNT] = {
    "seconds per training step", "tokens per second per device", "GiB of peak memory per device"};

/* The template of `table` loaded under the name it calls itself (a
 * template's `name:` key), as its file name, for a base:; or NULL. */
static const char *loaded_key(const TemplateDB *db, const ParamTable *table, const char *name)
{
    const ParamDef *def = param_find(table, "name", NULL, NULL);
    for (int i = 0; def && i < db->n; i++)
        if (db->t[i]->table == table && !strcmp((const char *)db->t[i]->obj + def->offset, name))
            return db->t[i]->name;
    return NULL;
}

/* Adds word to a space-separated list (once). */
static void add_word(char *list, size_t n, const char *word)
{
    if (!word[0] || text_word_listed(list, word))
        return;
    const size_t used = strlen(list);
    if (used + strlen(word) + 2 < n)
        snprintf(list + used, n - used, "%s%s", used ? " " : "", word);
}

/* One run of the fit: its scenario (a copy) and where it came from. */
typedef struct {
    Scenario *sc;
    double *measured, *memory, *pred_mem;
    int *line, n;
} Runs;

/* A measured cell: 0 and *v, 1 when empty, or -1 with the message said. */
static int measured_cell(const Table *t, const TableRow *tr, int col, int m, double *v)
{
    const TableCell *c = &tr->cell[col];
    if (!c->text[0])
        return 1;
    char *end;
    *v = strtod(c->text, &end);
    while (*end == ' ')
        end++;
    if (*end || !isfinite(*v) || !(*v > 0) || *v > measured_max[m]) {
        fprintf(stderr,
                "deepflow calibrate: %s:%d:%d: column '%s': expected %s, a number above 0 and at most %g; "
                "got '%s'\n",
                t->path, table_cell_line(tr, col), table_cell_col(tr, col), measured_col[m], measured_what[m],
                measured_max[m], c->text);
        return -1;
    }
    return 0;
}

/* The runs of t: every built scenario with its measured step time; rows
 * that fail are said on stderr and left out (*failed counts them). */
static int collect(const Table *t, const int *mcol, const Run *run, Runs *out, int *failed)
{
    out->sc = calloc((size_t)run->n + 1, sizeof *out->sc);
    out->measured = calloc((size_t)run->n + 1, sizeof *out->measured);
    out->memory = calloc((size_t)run->n + 1, sizeof *out->memory);
    out->pred_mem = calloc((size_t)run->n + 1, sizeof *out->pred_mem);
    out->line = calloc((size_t)run->n + 1, sizeof *out->line);
    /* a table line's scenarios are consecutive in run, and both follow the
     * file's order: each run's line and its scenario count in one pass */
    int *same_line = calloc((size_t)run->n + 1, sizeof *same_line);
    if (!out->sc || !out->measured || !out->memory || !out->pred_mem || !out->line || !same_line) {
        free(same_line);
        return -1;
    }
    for (int k = 0, j; k < run->n; k = j) {
        for (j = k; j < run->n && run->row[j].line == run->row[k].line; j++)
            ;
        for (int i = k; i < j; i++)
            same_line[i] = j - k;
    }
    int ti = 0;
    for (int k = 0; k < run->n; k++) {
        const RunRow *rr = &run->row[k];
        char msg[1400];
        if (!rr->built || rr->r.status == STATUS_ERROR) {
            run_error_message(rr, t->path, msg, sizeof msg);
            fprintf(stderr, "deepflow calibrate: %s\n", msg);
            (*failed)++;
            continue;
        }
        while (ti < t->nrow && t->row[ti].line < rr->line)
            ti++;
        const TableRow *tr = ti < t->nrow && t->row[ti].line == rr->line ? &t->row[ti] : NULL;
        const int same = same_line[k];
        double v[M_COUNT] = {0, 0, 0};
        int have[M_COUNT] = {0, 0, 0}, bad = 0;
        for (int m = 0; tr && m < M_COUNT; m++) {
            if (mcol[m] < 0)
                continue;
            const int rc = measured_cell(t, tr, mcol[m], m, &v[m]);
            bad |= rc < 0;
            have[m] = rc == 0;
        }
        const int cell = mcol[have[M_STEP] || mcol[M_TOKENS] < 0 ? M_STEP : M_TOKENS];
        const TableCell *c = tr ? &tr->cell[cell] : NULL;
        if (!bad && have[M_STEP] && have[M_TOKENS]) {
            fprintf(stderr,
                    "deepflow calibrate: %s:%d:%d: give one measured figure a row: a step time or tokens per "
                    "second, not both\n",
                    t->path, table_cell_line(tr, cell), table_cell_col(tr, cell));
            bad = 1;
        } else if (!bad && !have[M_STEP] && !have[M_TOKENS]) {
            fprintf(stderr,
                    "deepflow calibrate: %s:%d:%d: column '%s': the run's measured figure is missing\n",
                    t->path, c ? table_cell_line(tr, cell) : rr->line, c ? table_cell_col(tr, cell) : 0,
                    measured_col[mcol[M_STEP] >= 0 ? M_STEP : M_TOKENS]);
            bad = 1;
        } else if (!bad && same > 1) {
            fprintf(stderr,
                    "deepflow calibrate: %s:%d:%d: a measured figure belongs to one run, but this row gives "
                    "%d scenarios; write one row a run\n",
                    t->path, table_cell_line(tr, cell), table_cell_col(tr, cell), same);
            bad = 1;
        }
        if (bad) {
            (*failed)++;
            k += same - 1; /* said once for the line */
            continue;
        }
        double step = v[M_STEP];
        if (have[M_TOKENS]) { /* tokens a step over the devices' rate */
            const double seq = rr->sc.model.seq_len > 0 ? (double)rr->sc.model.seq_len : 1.0;
            step = (double)rr->r.st.global_batch * seq / ((double)rr->sc.devices * v[M_TOKENS]);
        }
        /* the model's FLOPs in the measured time: more than the device's peak is a slip of units */
        const double mfu = rr->r.mfu * rr->r.step_time_s / step;
        if (mfu > 1.0) {
            fprintf(stderr,
                    "deepflow calibrate: %s:%d:%d: column '%s': %g implies %.0f %% of the device's peak (the "
                    "model's FLOPs in that time), more than it can do; is it %s?\n",
                    t->path, table_cell_line(tr, cell), table_cell_col(tr, cell),
                    measured_col[have[M_STEP] ? M_STEP : M_TOKENS], v[have[M_STEP] ? M_STEP : M_TOKENS],
                    100.0 * mfu,
                    have[M_STEP] ? "seconds per whole step (not milliseconds, not one microbatch)"
                                 : "per device (not the cluster's)");
            (*failed)++;
            continue;
        }
        out->sc[out->n] = rr->sc;
        out->measured[out->n] = step;
        out->memory[out->n] = have[M_MEMORY] ? v[M_MEMORY] : 0;
        out->pred_mem[out->n] = rr->r.mem_total_bytes / GIB_BYTES;
        out->line[out->n++] = rr->line;
    }
    free(same_line);
    return 0;
}

static void runs_free(Runs *r)
{
    free(r->sc);
    free(r->measured);
    free(r->memory);
    free(r->pred_mem);
    free(r->line);
}

static int file_sha256(const char *path, char hex[SHA256_HEX_LEN])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    Sha256 s;
    sha256_init(&s);
    unsigned char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&s, buf, k);
    const int bad = ferror(f);
    fclose(f);
    uint8_t dgst[SHA256_DIGEST_LEN];
    sha256_final(&s, dgst);
    sha256_to_hex(dgst, hex);
    return bad ? -1 : 0;
}

/* A standard error as written: below a hundredth of the grid's step it is
 * the grid agreeing with itself, 0. */
static double se_shown(CalParam p, double se)
{
    return cal_shown(p, se < cal_param[p].step / 100 ? 0.0 : se);
}

/* One line a parameter, after indent: base -> fitted +- its standard
 * error, or why it was not fitted (the template's header and stdout). */
static void param_lines(FILE *f, const char *indent, const CalResult *cr)
{
    for (int p = 0; p < CAL_NPARAM; p++) {
        const char *u = cal_param[p].unit;
        if (cr->fitted[p])
            fprintf(f, "%s%-22s %.4g%s -> %.4g%s +- %.2g%s%s\n", indent, cal_param[p].key,
                    cal_shown(p, cr->base[p]), u, cal_shown(p, cr->value[p]), u, se_shown(p, cr->se[p]), u,
                    cr->at_edge[p] ? " (at the end of its range)" : "");
        else if (cr->note[p][0])
            fprintf(f, "%s%-22s %.4g%s, %s\n", indent, cal_param[p].key, cal_shown(p, cr->base[p]), u,
                    cr->note[p]);
    }
}

static void put_interval(FILE *f, const char *name, const Interval *iv)
{
    fprintf(f, "  %s: {lo: %.3f, hi: %.3f, runs: %d, mean_error: %.3f, coverage: %.3f}\n", name, iv->lo,
            iv->hi, iv->runs, iv->mean_err, iv->coverage);
}

/* The 90 % ranges of the calibrated stack: each regime's from its own
 * leave-one-out residuals when it has CAL_REGIME_MIN of them, else from all
 * of them; a row the runs do not cover gets the widest of these and the
 * base stack's. */
#define CAL_REGIME_MIN 10
static void ranges(const Runs *runs, const CalResult *cr, const Framework *base, Interval *single,
                   Interval *multi, Interval *uncovered)
{
    double *all = calloc((size_t)runs->n + 1, sizeof *all), *one = calloc((size_t)runs->n + 1, sizeof *one),
           *many = calloc((size_t)runs->n + 1, sizeof *many);
    int na = 0, n1 = 0, nm = 0;
    for (int i = 0; all && one && many && i < runs->n; i++) {
        if (!(cr->pred_loo[i] > 0))
            continue;
        const double q = runs->measured[i] / cr->pred_loo[i];
        all[na++] = q;
        if (runs->sc[i].devices > runs->sc[i].system.devices_per_node)
            many[nm++] = q;
        else
            one[n1++] = q;
    }
    Interval pooled;
    cal_interval(all, na, &pooled);
    /* a regime without runs: none (a row of it takes the other's range, as
     * beyond what was calibrated) */
    memset(single, 0, sizeof *single);
    memset(multi, 0, sizeof *multi);
    if (n1 >= CAL_REGIME_MIN)
        cal_interval(one, n1, single);
    else if (n1 > 0)
        *single = pooled;
    if (nm >= CAL_REGIME_MIN)
        cal_interval(many, nm, multi);
    else if (nm > 0)
        *multi = pooled;
    *uncovered = base->uncovered;
    uncovered->lo = fmin(pooled.lo, base->uncovered.lo > 0 ? base->uncovered.lo : 1.0);
    uncovered->hi = fmax(pooled.hi, base->uncovered.hi);
    if (uncovered->runs <= 0) {
        uncovered->runs = pooled.runs;
        uncovered->coverage = pooled.coverage;
    }
    free(all);
    free(one);
    free(many);
}

static void write_template(FILE *f, const CalibrateJob *job, const char *key, const Runs *runs,
                           const CalResult *cr, const char *sha, const char *date)
{
    const Framework *base = &runs->sc[0].system.framework;
    fprintf(f, "# deepflow calibrate: the training stack %s fitted to %d measured runs.\n", key, runs->n);
    fprintf(f, "# measured table: %s (sha256 %s)\n# date: %s\n# command: %s\n", job->input, sha, date,
            job->command);
    fprintf(f,
            "# error, mean |predicted / measured - 1|: base stack %.1f %%, fitted %.1f %% in sample, %.1f %% "
            "each run left out of the fit\n",
            100 * cr->err_base, 100 * cr->err_in, 100 * cr->err_loo);
    fprintf(f, "# fitted values (uncertainty: the jackknife standard error of the leave-one-out fits):\n");
    param_lines(f, "#   ", cr);
    fprintf(f,
            "# each run: table line, scenario, measured, predicted by the base stack, fitted, fitted without "
            "it (step time, s), its error left out%s\n",
            runs->memory[0] > 0 ? "; memory measured and predicted, GiB" : "");
    for (int i = 0; i < runs->n; i++) {
        fprintf(f, "#   %5d %-28s %10.4g %10.4g %10.4g %10.4g %+6.1f %%", runs->line[i], runs->sc[i].name,
                runs->measured[i], cr->pred_base[i], cr->pred_in[i], cr->pred_loo[i],
                100 * (cr->pred_loo[i] / runs->measured[i] - 1));
        if (runs->memory[i] > 0)
            fprintf(f, "  memory %.1f / %.1f", runs->memory[i], runs->pred_mem[i]);
        fprintf(f, "%s\n",
                cr->outlier[i] ? "  (beyond 3 robust standard deviations: the fit cannot explain it)" : "");
    }
    fprintf(f, "# use: system.framework=<this file> in a scenario table beside it, or copy it to "
               "templates/frameworks/\n\n");
    fprintf(f, "base: %s\n", key);
    char name[NAME_MAX_LEN];
    snprintf(name, sizeof name, "%.30s, calibrated (%d runs)", base->name, runs->n);
    fprintf(f, "name: \"%s\"\n", name);
    for (int p = 0; p < CAL_NPARAM; p++)
        if (cr->fitted[p])
            fprintf(f, "%s: %.4g%s    # fitted on %d runs, +- %.2g%s\n", cal_param[p].key,
                    cal_shown(p, cr->value[p]), cal_param[p].unit, runs->n, se_shown(p, cr->se[p]),
                    cal_param[p].unit);
    Interval single, multi, uncovered;
    ranges(runs, cr, base, &single, &multi, &uncovered);
    char gens[NAME_MAX_LEN] = "", classes[NAME_MAX_LEN] = "";
    int maxdev = 0;
    for (int i = 0; i < runs->n; i++) {
        add_word(gens, sizeof gens, runs->sc[i].system.device.generation);
        add_word(classes, sizeof classes, model_class_name(&runs->sc[i].model));
        if (runs->sc[i].devices > maxdev)
            maxdev = runs->sc[i].devices;
    }
    fprintf(f, "interval:    # measured / predicted, each run left out of the fit: 5th to 95th percentile\n");
    put_interval(f, "single_node", &single);
    put_interval(f, "multi_node", &multi);
    put_interval(f, "uncovered", &uncovered);
    fprintf(f, "  max_devices: %d\n  generations: \"%s\"\n  models: \"%s\"\n", maxdev, gens, classes);
    fprintf(f,
            "sources:\n  - \"[calibrate] deepflow calibrate on %s (sha256 %.16s...), %s: %d runs, left-out "
            "error %.1f %%\"\n",
            job->input, sha, date, runs->n, 100 * cr->err_loo);
}

/* The output may replace only a template this command wrote. */
static int ours_or_absent(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    char first[64] = "";
    const int ok = fgets(first, sizeof first, f) && !strncmp(first, "# deepflow calibrate:", 21);
    fclose(f);
    return ok;
}

static void print_summary(const Runs *runs, const CalResult *cr, const char *out)
{
    printf(
        "calibrated on %d runs (%ld evaluations): mean |error| base stack %.1f %%, fitted %.1f %% in sample, "
        "%.1f %% each run left out\n",
        runs->n, cr->evaluations, 100 * cr->err_base, 100 * cr->err_in, 100 * cr->err_loo);
    param_lines(stdout, "  ", cr);
    for (int i = 0; i < runs->n; i++)
        if (cr->outlier[i])
            printf("  line %d (%s): measured %.4g s, predicted %.4g s without it: beyond 3 robust standard "
                   "deviations, the fit cannot explain it\n",
                   runs->line[i], runs->sc[i].name, runs->measured[i], cr->pred_loo[i]);
    printf("wrote %s\n", out);
}

/* A tier measured by nccl-tests: its curve, and the files it came from. */
typedef struct {
    int have;
    Points curve;
    double plateau;
    int ranks;
    char files[600];
} Measured;

/* The nccl-tests files, read into their tiers' curves (0: intra, 1:
 * inter), set on every run; that tier's collective parameters are then
 * measured, not fitted.  0, or -1 said on stderr. */
static int measured_tiers(const CalibrateJob *job, Runs *runs, Measured tier[2], unsigned *ask)
{
    NcclRun *nr = calloc((size_t)job->nnccl + 1, sizeof *nr);
    if (!nr)
        return -1;
    int rc = 0;
    for (int i = 0; i < job->nnccl && !rc; i++) {
        Diag d;
        diag_clear(&d);
        if (nccl_read(job->nccl[i], &nr[i], &d)) {
            char msg[1200];
            diag_format(&d, msg, sizeof msg);
            fprintf(stderr, "deepflow calibrate: %s\n", msg);
            rc = -1;
        }
    }
    for (int t = 0; t < 2 && !rc; t++) {
        NcclRun mine[CAL_MAX_NCCL];
        int n = 0;
        for (int i = 0; i < job->nnccl; i++)
            if ((nr[i].hosts > 1) == t) {
                mine[n++] = nr[i];
                const size_t u = strlen(tier[t].files);
                snprintf(tier[t].files + u, sizeof tier[t].files - u, "%s%s", u ? ", " : "", job->nccl[i]);
            }
        if (!n)
            continue;
        Network *net = t ? &runs->sc[0].system.inter : &runs->sc[0].system.intra;
        Diag d;
        diag_clear(&d);
        if (nccl_curve(mine, n, net->bw_bytes_per_s, &tier[t].curve, &tier[t].plateau, &tier[t].ranks, &d)) {
            fprintf(stderr, "deepflow calibrate: %s: %s\n", tier[t].files, d.msg);
            rc = -1;
            break;
        }
        tier[t].have = 1;
        for (int i = 0; i < runs->n; i++) {
            Network *x = t ? &runs->sc[i].system.inter : &runs->sc[i].system.intra;
            x->busbw = tier[t].curve;
            x->busbw_ranks = tier[t].ranks;
            x->efficiency = fmin(1.0, tier[t].plateau);
        }
        *ask &= ~(1u << (t ? CAL_COMM_INTER : CAL_COMM_INTRA) | 1u << (t ? CAL_LAT_INTER : CAL_LAT_INTRA));
    }
    free(nr);
    return rc;
}

/* The GEMM table (m, n, k, dtype, time_us), each cell checked. */
static int read_gemms(const char *path, CalGemm **out, int *n)
{
    Table t;
    Diag d;
    diag_clear(&d);
    *out = NULL;
    *n = 0;
    if (table_read(path, &t, &d)) {
        char msg[1200];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "deepflow calibrate: %s\n", msg);
        return -1;
    }
    static const char *const cols[5] = {"m", "n", "k", "dtype", "time_us"};
    int c[5], rc = 0;
    for (int j = 0; j < 5; j++)
        if ((c[j] = table_col(&t, cols[j])) < 0) {
            fprintf(stderr,
                    "deepflow calibrate: %s:%d: expected the columns m,n,k,dtype,time_us; '%s' is missing\n",
                    path, t.header_line, cols[j]);
            rc = -1;
        }
    *out = calloc((size_t)t.nrow + 1, sizeof **out);
    for (int i = 0; !rc && *out && i < t.nrow; i++) {
        const TableRow *r = &t.row[i];
        CalGemm *g = &(*out)[*n];
        if (r->error) {
            char msg[1200];
            diag_format(r->error, msg, sizeof msg);
            fprintf(stderr, "deepflow calibrate: %s\n", msg);
            rc = -1;
            break;
        }
        int64_t *dim[3] = {&g->m, &g->n, &g->k};
        for (int j = 0; j < 3 && !rc; j++) {
            char *end;
            const long long v = strtoll(r->cell[c[j]].text, &end, 10);
            if (*end || !r->cell[c[j]].text[0] || v < 1 || v > 10000000) {
                fprintf(stderr,
                        "deepflow calibrate: %s:%d:%d: column '%s': expected a dimension from 1 to 10000000, "
                        "got '%s'\n",
                        path, table_cell_line(r, c[j]), table_cell_col(r, c[j]), cols[j], r->cell[c[j]].text);
                rc = -1;
            }
            *dim[j] = v;
        }
        const TableCell *dt = &r->cell[c[3]], *tm = &r->cell[c[4]];
        int p = 0;
        while (!rc && precision_names[p] && strcasecmp(dt->text, precision_names[p]))
            p++;
        if (!rc && !precision_names[p]) {
            fprintf(stderr,
                    "deepflow calibrate: %s:%d:%d: column 'dtype': expected fp32, tf32, fp16, bf16, fp8 or "
                    "fp4, got '%s'\n",
                    path, table_cell_line(r, c[3]), table_cell_col(r, c[3]), dt->text);
            rc = -1;
        }
        char *end;
        const double us = strtod(tm->text, &end);
        if (!rc && (*end || !tm->text[0] || !(us > 0) || us > 1e9)) {
            fprintf(stderr,
                    "deepflow calibrate: %s:%d:%d: column 'time_us': expected microseconds above 0, got "
                    "'%s'\n",
                    path, table_cell_line(r, c[4]), table_cell_col(r, c[4]), tm->text);
            rc = -1;
        }
        g->p = (Precision)p;
        g->time_s = us * 1e-6;
        (*n)++;
    }
    if (!*out)
        rc = -1;
    table_free(&t);
    return rc;
}

/* The device as the GEMM table measured it, set on every run, and its
 * template written beside the stack's.  0, or -1 said on stderr. */
static int measured_device(const CalibrateJob *job, Runs *runs, CalGemm **rows, int *n, CalGemmFit *fit)
{
    if (read_gemms(job->gemm, rows, n))
        return -1;
    Diag d;
    diag_clear(&d);
    if (cal_gemm_fit(&runs->sc[0].system.device, *rows, *n, fit, &d)) {
        fprintf(stderr, "deepflow calibrate: %s: %s\n", job->gemm, d.msg);
        return -1;
    }
    for (int i = 0; i < runs->n; i++) {
        Device *dv = &runs->sc[i].system.device;
        if (fit->rows[0])
            dv->matrix_eff = fit->eff[0];
        if (fit->rows[1])
            dv->matrix_eff_fp8 = fit->eff[1];
    }
    return 0;
}

static int write_device(const char *path, const char *base, const Device *dv, const CalGemm *rows, int n,
                        const CalGemmFit *fit, const char *file, const char *date)
{
    AtomicFile af = {0};
    FILE *f = atomic_open(&af, path);
    if (!f)
        return -1;
    fprintf(
        f, "# deepflow calibrate: the device's GEMM rate as measured GEMMs set it.\n# file: %s\n# date: %s\n",
        file, date);
    fprintf(f, "# each GEMM: m, n, k, dtype, measured and predicted us\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "#   %lld %lld %lld %s %.4g %.4g\n", (long long)rows[i].m, (long long)rows[i].n,
                (long long)rows[i].k, precision_names[rows[i].p], rows[i].time_s * 1e6, fit->pred[i] * 1e6);
    fprintf(f, "# use: system.device=<this file> in a scenario table beside it\n\n");
    fprintf(f, "base: %s\nname: \"%.40s, measured\"\n", base, dv->name);
    if (fit->rows[0])
        fprintf(f, "efficiency.matrix: %.3f    # fitted on %d GEMMs, mean |error| %.1f %%\n", fit->eff[0],
                fit->rows[0], 100 * fit->err[0]);
    if (fit->rows[1])
        fprintf(f, "efficiency.matrix_fp8: %.3f    # fitted on %d GEMMs, mean |error| %.1f %%\n", fit->eff[1],
                fit->rows[1], 100 * fit->err[1]);
    return atomic_commit(&af);
}

/* NAME.yaml -> NAME-intra.yaml */
static void tier_path(const char *out, int t, char *buf, size_t n)
{
    const char *dot = strrchr(out, '.');
    const int stem = dot ? (int)(dot - out) : (int)strlen(out);
    snprintf(buf, n, "%.*s-%s.yaml", stem, out, t == 2 ? "device" : t ? "inter" : "intra");
}

static int write_network(const char *path, const char *base, const Network *net, const Measured *m,
                         const char *date)
{
    AtomicFile af = {0};
    FILE *f = atomic_open(&af, path);
    if (!f)
        return -1;
    fprintf(f, "# deepflow calibrate: the %s tier as nccl-tests measured it.\n# files: %s\n# date: %s\n",
            strstr(path, "-inter.yaml") ? "inter-node" : "intra-node", m->files, date);
    fprintf(f, "# use: system.%s=<this file> in a scenario table beside it\n\n",
            strstr(path, "-inter.yaml") ? "inter" : "intra");
    fprintf(f, "base: %s\nname: \"%.40s, measured\"\n", base, net->name);
    fprintf(f, "efficiency: %.4f    # the largest bus bandwidth measured over the tier's bandwidth\n",
            fmin(1.0, m->plateau));
    fprintf(f, "# measured: bus bandwidth / bandwidth by all-reduce size (bytes), %d ranks\nbusbw: [",
            m->ranks);
    for (int i = 0; i < m->curve.n; i++)
        fprintf(f, "%s[%.0f, %.4f]", i ? ", " : "", m->curve.x[i], m->curve.y[i]);
    fprintf(f, "]\nbusbw_ranks: %d\n", m->ranks);
    return atomic_commit(&af);
}

int rpt_calibrate(TemplateDB *db, const CalibrateJob *job)
{
    Diag d;
    diag_clear(&d);
    Table t;
    if (table_read(job->input, &t, &d)) {
        char msg[1200];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "deepflow calibrate: %s\n", msg);
        return 3;
    }
    int mcol[M_COUNT], rc = 3;
    Run run;
    memset(&run, 0, sizeof run);
    Runs runs;
    memset(&runs, 0, sizeof runs);
    CalResult cr;
    memset(&cr, 0, sizeof cr);
    CalGemm *gemms = NULL;
    int ngemm = 0;
    CalGemmFit gfit;
    memset(&gfit, 0, sizeof gfit);
    for (int m = 0; m < M_COUNT; m++)
        mcol[m] = table_col(&t, measured_col[m]);
    if (mcol[M_STEP] < 0 && mcol[M_TOKENS] < 0) {
        fprintf(stderr,
                "deepflow calibrate: %s:%d: expected a column measured_step_time_s or "
                "measured_tokens_per_s_per_device (each run's measured figure)\n",
                job->input, t.header_line);
        goto done;
    }
    if (scenario_check_header(&t, &d) || run_table(db, &t, job->jobs, 0, NULL, NULL, &run, &d)) {
        char msg[1200];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "deepflow calibrate: %s\n", msg);
        goto done;
    }
    int failed = 0;
    if (collect(&t, mcol, &run, &runs, &failed)) {
        fprintf(stderr, "deepflow calibrate: out of memory\n");
        goto done;
    }
    if (runs.n == 0) {
        fprintf(stderr, "deepflow calibrate: %s: no run to calibrate on\n", job->input);
        goto done;
    }
    const char *stack = runs.sc[0].system.framework.name;
    for (int i = 1; i < runs.n; i++)
        if (strcmp(runs.sc[i].system.framework.name, stack)) {
            fprintf(stderr,
                    "deepflow calibrate: %s: the runs use two training stacks, '%s' (line %d) and '%s' "
                    "(line %d); calibrate one stack at a time\n",
                    job->input, stack, runs.line[0], runs.sc[i].system.framework.name, runs.line[i]);
            goto done;
        }
    const char *key = loaded_key(db, &param_framework_table, stack);
    if (!key) {
        fprintf(stderr,
                "deepflow calibrate: %s: the runs' training stack '%s' is no template of "
                "templates/frameworks, which the calibrated one must name as its base\n",
                job->input, stack);
        goto done;
    }
    unsigned ask = job->ask;
    Measured tier[2];
    memset(tier, 0, sizeof tier);
    if (measured_tiers(job, &runs, tier, &ask))
        goto done;
    if (job->gemm && measured_device(job, &runs, &gemms, &ngemm, &gfit))
        goto done;
    if (!ask) {
        fprintf(
            stderr,
            "deepflow calibrate: %s: the nccl-tests files set every parameter asked for: nothing to fit\n",
            job->input);
        goto done;
    }
    const CalInput in = {runs.sc, runs.measured, runs.n, ask};
    if (cal_fit(&in, &cr, &d)) {
        fprintf(stderr, "deepflow calibrate: %s: %s\n", job->input, d.msg);
        goto done;
    }
    rc = 4;
    char tpath[3][1100];
    for (int t = 0; t < 3; t++)
        tier_path(job->out, t, tpath[t], sizeof tpath[t]);
    for (int t = -1; t < 3; t++) {
        const char *p = t < 0 ? job->out : tpath[t];
        if ((t < 0 || (t < 2 && tier[t].have) || (t == 2 && job->gemm)) && !ours_or_absent(p)) {
            fprintf(stderr,
                    "deepflow calibrate: %s exists and deepflow calibrate did not write it; not replaced\n",
                    p);
            goto done;
        }
    }
    char sha[SHA256_HEX_LEN], date[32];
    const time_t now = time(NULL);
    struct tm tmv;
    strftime(date, sizeof date, "%Y-%m-%d", gmtime_r(&now, &tmv));
    AtomicFile af = {0};
    FILE *f = file_sha256(job->input, sha) ? NULL : atomic_open(&af, job->out);
    if (!f) {
        fprintf(stderr, "deepflow calibrate: cannot write %s\n", job->out);
        goto done;
    }
    write_template(f, job, key, &runs, &cr, sha, date);
    if (job->gemm)
        fprintf(f,
                "# the device: its GEMM rate set by the measured GEMMs of %s, not fitted; use "
                "system.device=%s with "
                "this template\n",
                job->gemm, strrchr(tpath[2], '/') ? strrchr(tpath[2], '/') + 1 : tpath[2]);
    for (int t = 0; t < 2; t++) {
        if (tier[t].have)
            fprintf(f,
                    "# the %s tier: measured by nccl-tests (%s), not fitted; use system.%s=%s with this "
                    "template\n",
                    t ? "inter-node" : "intra-node", tier[t].files, t ? "inter" : "intra",
                    strrchr(tpath[t], '/') ? strrchr(tpath[t], '/') + 1 : tpath[t]);
    }
    if (atomic_commit(&af)) {
        fprintf(stderr, "deepflow calibrate: cannot write %s\n", job->out);
        goto done;
    }
    print_summary(&runs, &cr, job->out);
    for (int t = 0; t < 2; t++) {
        if (!tier[t].have)
            continue;
        const Network *net = t ? &runs.sc[0].system.inter : &runs.sc[0].system.intra;
        const char *nkey = loaded_key(db, &param_network_table, net->name);
        if (!nkey || write_network(tpath[t], nkey, net, &tier[t], date)) {
            fprintf(stderr, "deepflow calibrate: cannot write %s%s\n", tpath[t],
                    nkey ? "" : " (its tier is no template of templates/networks)");
            goto done;
        }
        printf("  %s tier measured by nccl-tests: bus bandwidth up to %.0f %% of %.0f GB/s; wrote %s\n",
               t ? "inter-node" : "intra-node", 100 * tier[t].plateau, net->bw_bytes_per_s / 1e9, tpath[t]);
    }
    if (job->gemm) {
        const Device *dv = &runs.sc[0].system.device;
        const char *dkey = loaded_key(db, &param_device_table, dv->name);
        if (!dkey || write_device(tpath[2], dkey, dv, gemms, ngemm, &gfit, job->gemm, date)) {
            fprintf(stderr, "deepflow calibrate: cannot write %s%s\n", tpath[2],
                    dkey ? "" : " (the device is no template of templates/devices)");
            goto done;
        }
        for (int c = 0; c < 2; c++)
            if (gfit.rows[c])
                printf("  device measured by %d %s GEMMs: %s %.3f (mean |error| %.1f %%); wrote %s\n",
                       gfit.rows[c], c ? "fp8/fp4" : "16/32-bit",
                       c ? "efficiency.matrix_fp8" : "efficiency.matrix", gfit.eff[c], 100 * gfit.err[c],
                       tpath[2]);
    }
    rc = failed ? 1 : 0;
done:
    free(gemms);
    free(gfit.pred);
    cal_result_free(&cr);
    runs_free(&runs);
    run_free(&run);
    table_free(&t);
    return rc;
}
