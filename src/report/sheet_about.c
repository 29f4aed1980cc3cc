/* report/sheet_about.c — the workbook's About sheet: version, command
 * line, date, SHA-256 of the files read, assumptions and a glossary. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sha256.h"
#include "workbook.h"

static void file_sha256(const char *path, char out[SHA256_HEX_LEN])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(out, SHA256_HEX_LEN, "unreadable: %s", strerror(errno));
        return;
    }
    Sha256 s;
    uint8_t d[SHA256_DIGEST_LEN], buf[65536];
    size_t k;
    sha256_init(&s);
    while ((k = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&s, buf, k);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(out, SHA256_HEX_LEN, "unreadable");
        return;
    }
    sha256_final(&s, d);
    sha256_to_hex(d, out);
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *const assumptions[] = {
    "Every quantity is computed in SI units (s, B, FLOP, W, J); the workbook shows days, GiB, kW, MWh.",
    "GEMM time: a tiled model with wave quantisation and the traffic at each memory level (DeepFlow's "
    "hierarchical roofline), at the achievable fraction of peak the device template states.",
    "Memory-bound operations: bytes moved over the achievable HBM bandwidth, plus kernel launch overhead.",
    "Pipeline: 1F1B schedule, bubble fraction (pp - 1) / (interleave x microbatches) (Narayanan et al. "
    "2021).",
    "Collectives: alpha-beta cost on the network tier they cross; ring all-reduce moves 2(p - 1)/p of the "
    "data; tensor-parallel communication is hidden under the GEMMs as far as the training stack's "
    "tp_overlap says; the data-parallel exchange runs as the stack's buckets, one collective each, and "
    "what shows is the last bucket and any the backward pass cannot keep up with.",
    "The training stack (templates/frameworks) is what a competent team runs on the hardware's generation: "
    "its GEMM efficiency and host overhead are fitted on public measurements; 'ideal' is an upper bound, not "
    "a prediction.",
    "Ranges (the *_lo and *_hi columns): the 5th to 95th percentile of measured / predicted step time over "
    "the public runs of the stack's family and regime, each predicted by a fit made without its own source "
    "(make validate); a row whose stack, device generation or model class no run covers gets every source's "
    "range. Energy and cost scale with the time at the predicted power.",
    "Memory: mixed-precision Adam (16-bit weights, gradients and fp32 master weights and moments, sharded "
    "by ZeRO) and activations after Korthikanti et al. 2022; a strategy that does not fit is 'oom'.",
    "Power: energy per FLOP and per bit moved plus static power; system power adds node overhead, "
    "switches and the facility PUE.",
    "Time to train = optimizer steps x step time; energy to train = system power x time to train; cost = "
    "price per device-hour x devices x hours, where the system template has a price.",
    "Scaling efficiency compares each scenario with the smallest device count of its series and model.",
};

/* The files read, with their SHA-256, from row r: the scenario table, then
 * every template once, sorted by path.  Returns the next free row. */
static int about_files(X *x, Sheet *sh, int r)
{
    const ReportInput *in = x->in;
    char hash[SHA256_HEX_LEN];
    xl_put_long(x, sh, r++, 0, "Files read (SHA-256)", x->section);
    xl_put_header(x, sh, r, 0, "Role");
    xl_put_header(x, sh, r, 1, "File");
    xl_put_header(x, sh, r, 2, "SHA-256");
    r++;
    file_sha256(in->table->path, hash);
    xl_put_text(x, sh, r, 0, "scenario table", NULL);
    xl_put_text(x, sh, r, 1, in->table->path, NULL);
    xl_put_text(x, sh, r++, 2, hash, x->mono);
    const TemplateDB *db = in->db;
    const char **paths = db && db->n ? malloc(sizeof *paths * (size_t)db->n) : NULL;
    int np = 0;
    for (int i = 0; paths && i < db->n; i++) {
        int dup = 0;
        for (int j = 0; j < np; j++)
            dup |= !strcmp(paths[j], db->t[i]->path);
        if (!dup)
            paths[np++] = db->t[i]->path;
    }
    if (np)
        qsort(paths, (size_t)np, sizeof *paths, cmp_path);
    for (int i = 0; i < np; i++) {
        file_sha256(paths[i], hash);
        xl_put_text(x, sh, r, 0, "template", NULL);
        xl_put_text(x, sh, r, 1, paths[i], NULL);
        xl_put_text(x, sh, r++, 2, hash, x->mono);
    }
    free(paths);
    r++;
    return r;
}

/* Each training stack of the report once, with its validation ranges per
 * regime, from row r.  Returns the next free row. */
static int about_stacks(X *x, Sheet *sh, int r)
{
    xl_put_long(x, sh, r++, 0, "Training stacks of this report and how well they predict", x->section);
    static const char *const sheads[8] = {"Stack",    "Regime", "Runs", "Mean |error| (source left out)",
                                          "In range", "Low",    "High", "Validated on"};
    for (int c = 0; c < 8; c++)
        xl_put_header(x, sh, r, c, sheads[c]);
    r++;
    for (int i = 0; i < x->run->n; i++) {
        const Framework *fw = &x->run->row[i].sc.system.framework;
        int seen = !x->run->row[i].built || !fw->name[0];
        for (int j = 0; j < i && !seen; j++)
            seen = x->run->row[j].built && !strcmp(x->run->row[j].sc.system.framework.name, fw->name);
        if (seen)
            continue;
        const Interval *iv[FRAMEWORK_REGIMES];
        const char *regime[FRAMEWORK_REGIMES];
        for (int k = 0; k < FRAMEWORK_REGIMES; k++)
            iv[k] = framework_regime(fw, k, NULL, &regime[k]);
        for (int k = 0; k < FRAMEWORK_REGIMES; k++) {
            if (k >= 2 && !(iv[k]->lo > 0))
                continue;
            xl_put_text(x, sh, r, 0, fw->name, NULL);
            xl_put_text(x, sh, r, 1, regime[k], NULL);
            if (!(iv[k]->lo > 0)) {
                const int other = k < 2 && iv[1 - k]->lo > 0; /* prediction_interval borrows it */
                xl_put_text(x, sh, r++, 2,
                            other ? "none of its own: the other regime's range"
                                  : "none: an upper bound, not a prediction",
                            x->note);
                continue;
            }
            if (iv[k]->runs > 0)
                xl_put_num(x, sh, r, 2, iv[k]->runs, x->intf);
            else
                xl_put_text(x, sh, r, 2, "none of its own: every source's range", x->note);
            if (iv[k]->runs > 0 && iv[k]->mean_err > 0)
                xl_put_num(x, sh, r, 3, iv[k]->mean_err, x->pct);
            if (iv[k]->runs > 0 && iv[k]->coverage > 0)
                xl_put_num(x, sh, r, 4, iv[k]->coverage, x->pct);
            xl_put_num(x, sh, r, 5, iv[k]->lo, NULL);
            xl_put_num(x, sh, r, 6, iv[k]->hi, NULL);
            if (k < 2 && fw->generations[0]) {
                char cov[2 * NAME_MAX_LEN + 8];
                snprintf(cov, sizeof cov, "%s; %s", fw->generations, fw->model_classes);
                xl_put_text(x, sh, r, 7, cov, NULL);
            }
            r++;
        }
    }
    xl_put_long(
        x, sh, r++, 0,
        "Error = predicted / measured step time - 1 on public training runs (vTrain's A100 iterations and "
        "the published runs of validation/published), each predicted by the stack family's fit made "
        "without the run's own source; Low and High: the 90 % range of measured / predicted step time; In "
        "range: the share of the runs inside a range built without their own source too. The README's "
        "validation table has them per source. The V100 stack's one-node and LSTM ranges come from the "
        "measured V100 runs of validation/small_batch, which nothing is fitted on. A stack made by deepflow "
        "calibrate has the ranges of its own measured runs, each left out of its fit (its template's header "
        "lists them).",
        x->note);
    r++;
    return r;
}

void xl_sheet_about(X *x, Sheet *sh)
{
    const ReportInput *in = x->in;
    char date[64], line[256];
    struct tm tm;
    gmtime_r(&in->created, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm);
    int r = 0;
    xl_put_long(x, sh, r++, 0, "About this report", x->title);
    r++;
    xl_put_text(x, sh, r, 0, "Tool", x->bold);
    snprintf(line, sizeof line, "deepflow %s", DF_VERSION);
    xl_put_long(x, sh, r++, 1, line, NULL);
    xl_put_text(x, sh, r, 0, "Command", x->bold);
    xl_put_long(x, sh, r++, 1, in->command ? in->command : "", NULL);
    xl_put_text(x, sh, r, 0, "Date", x->bold);
    snprintf(line, sizeof line, "%s (SOURCE_DATE_EPOCH when set, else when the scenario table last changed)",
             date);
    xl_put_long(x, sh, r++, 1, line, NULL);
    r++;

    r = about_files(x, sh, r);
    xl_put_long(x, sh, r++, 0, "Main assumptions of the model", x->section);
    for (size_t i = 0; i < sizeof assumptions / sizeof assumptions[0]; i++) {
        snprintf(line, sizeof line, "%zu.", i + 1);
        xl_put_text(x, sh, r, 0, line, NULL);
        xl_put_long(x, sh, r++, 1, assumptions[i], NULL);
    }
    r++;

    r = about_stacks(x, sh, r);
    xl_put_long(x, sh, r++, 0, "Glossary of the Scenarios columns", x->section);
    xl_put_header(x, sh, r, 0, "Column");
    xl_put_header(x, sh, r, 1, "In summary.csv");
    xl_put_header(x, sh, r, 2, "Unit in summary.csv");
    xl_put_header(x, sh, r, 3, "Meaning");
    r++;
    for (int i = 0; i < report_ncols; i++, r++) {
        const char *label = rpt_col_label(report_cols[i].name);
        xl_put_text(x, sh, r, 0, label ? label : report_cols[i].name, NULL);
        xl_put_text(x, sh, r, 1, report_cols[i].name, x->mono);
        xl_put_text(x, sh, r, 2,
                    report_cols[i].format == RF_PERCENT ? "fraction (% in this workbook)"
                                                        : report_cols[i].unit,
                    NULL);
        xl_put_text(x, sh, r, 3, report_cols[i].help, NULL);
    }
    xl_finish_sheet(sh, 8, 80);
    xl_page_setup(sh, -1, 0);
}
