/* main.c — the command line: run a scenario table, evaluate one scenario,
 * list templates.  Only this file, io/ and report/ touch files. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch/run.h"
#include "core/units.h"
#include "io/atomic.h"
#include "io/scenario.h"
#include "io/table.h"
#include "io/template.h"
#include "report/report.h"

#ifndef DF_VERSION
#define DF_VERSION "0.0.0"
#endif

enum { EXIT_OK = 0, EXIT_ROWS_FAILED = 1, EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_OUTPUT = 4 };

static const char usage_text[] =
    "usage: deepflow run SCENARIOS.csv [-o DIR] [-j THREADS] [--quiet]\n"
    "       deepflow eval KEY=VALUE ... [--format text|csv]\n"
    "       deepflow templates [KIND]\n"
    "       deepflow --help | --version\n";

static const char help_text[] =
    "deepflow — full-stack pathfinding for distributed deep-learning training.\n"
    "\n"
    "  run SCENARIOS.csv   evaluate every row of a scenario table and write the\n"
    "                      report to reports/NAME/ (summary.csv, breakdown.csv)\n"
    "      -o, --output DIR    write the report to DIR instead\n"
    "      -j, --jobs N        threads (default: all cores)\n"
    "      -q, --quiet         no progress line\n"
    "      -t, --templates DIR templates folder (default ./templates or $DEEPFLOW_TEMPLATES)\n"
    "  eval KEY=VALUE ...  one scenario, a readable breakdown on stdout, e.g.\n"
    "                      deepflow eval system=dgx-h100 model=gpt3-175b devices=1024 tp=8 pp=16\n"
    "      --format csv        print the summary header and row instead\n"
    "  templates [KIND]    list the templates (devices, networks, systems, models)\n"
    "\n"
    "Keys and columns: scenario, series, system, model, devices, tp, pp, dp,\n"
    "microbatch, global_batch, interleave, recompute (none|selective|full),\n"
    "seq_parallel (yes|no), zero (0-3), precision (fp32|tf32|fp16|bf16|fp8),\n"
    "train_tokens, train_samples, epochs, and any dotted template path such as\n"
    "model.layers or system.device.hbm.bandwidth.  Values may carry units\n"
    "(80 GiB, 3.35 TB/s, 400 Gb/s, 700 W, 5 us).  A table cell may sweep:\n"
    "8|16|32 or 8..1024*2.\n"
    "\n"
    "Exit status: 0 every row evaluated, 1 some rows failed, 2 usage error,\n"
    "3 unreadable input, 4 output could not be written.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "deepflow: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    return EXIT_USAGE;
}

static int init_templates(TemplateDB *db, const char *dir)
{
    Diag d;
    diag_clear(&d);
    if (tdb_init(db, dir, &d)) {
        char msg[1200];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "deepflow: %s\n", msg);
        return -1;
    }
    return 0;
}

/* ---- run -------------------------------------------------------------- */

typedef struct {
    int tty;
    struct timespec t0;
} Progress;

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

static void progress_line(int done, int total, void *ctx)
{
    Progress *p = ctx;
    if (!p->tty)
        return;
    double el = since(&p->t0);
    double rate = el > 0 ? done / el : 0;
    double eta = rate > 0 ? (total - done) / rate : 0;
    fprintf(stderr, "\r%d/%d scenarios, %.0f/s, ETA %.0f s   ", done, total, rate, eta);
    if (done == total)
        fputs("\n", stderr);
}

static void base_name(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out && !strcasecmp(dot, ".csv"))
        *dot = '\0';
}

static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"jobs", required_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},        {"templates", required_argument, NULL, 't'},
        {"formats", required_argument, NULL, 'f'}, {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *tdir = NULL;
    int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), quiet = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:j:qt:f:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1024)
                return usage_error("-j: expected a thread count from 1 to 1024, got '%s'", optarg);
            jobs = (int)v;
            break;
        }
        case 'q':
            quiet = 1;
            break;
        case 't':
            tdir = optarg;
            break;
        case 'f':
            break; /* csv is always written; the other formats land with the report engine */
        default:
            fputs(usage_text, stderr);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1)
        return usage_error("run: expected one scenario table%s", optind < argc ? ", got several" : "");
    const char *input = argv[optind];

    Diag d;
    diag_clear(&d);
    Table t;
    if (table_read(input, &t, &d)) {
        char msg[1200];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "deepflow: %s\n", msg);
        return EXIT_INPUT;
    }
    TemplateDB db;
    if (init_templates(&db, tdir)) {
        table_free(&t);
        return EXIT_INPUT;
    }
    char dir[1024], name[256];
    base_name(input, name, sizeof name);
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else
        snprintf(dir, sizeof dir, "reports/%s", name);

    Progress pr = {!quiet && isatty(fileno(stderr)), {0, 0}};
    clock_gettime(CLOCK_MONOTONIC, &pr.t0);
    Run run;
    run_table(&db, &t, jobs, progress_line, &pr, &run);
    for (int i = 0; i < run.n; i++) {
        const RunRow *rr = &run.row[i];
        if (!rr->built || rr->r.status == STATUS_ERROR) {
            char msg[1200];
            if (rr->diag.file[0])
                diag_format(&rr->diag, msg, sizeof msg);
            else
                snprintf(msg, sizeof msg, "%s:%d: scenario '%s': %s", input, rr->line, rr->sc.name,
                         rr->r.error);
            fprintf(stderr, "%s\n", msg);
        }
    }

    int rc = run.n_error ? EXIT_ROWS_FAILED : EXIT_OK;
    char path[1300], err[1400];
    if (mkdir_p(dir)) {
        fprintf(stderr, "deepflow: cannot create %s: %s\n", dir, strerror(errno));
        rc = EXIT_OUTPUT;
    } else {
        snprintf(path, sizeof path, "%s/summary.csv", dir);
        if (rpt_summary_csv(&run, path, err, sizeof err) == 0) {
            snprintf(path, sizeof path, "%s/breakdown.csv", dir);
            if (rpt_breakdown_csv(&run, path, err, sizeof err) == 0)
                err[0] = '\0';
        }
        if (err[0]) {
            fprintf(stderr, "deepflow: cannot write %s\n", err);
            rc = EXIT_OUTPUT;
        }
    }
    if (rc != EXIT_OUTPUT)
        printf("%s: %d scenario%s: %d ok, %d out of memory, %d failed. Report in %s/ "
               "(summary.csv, breakdown.csv).\n",
               input, run.n, run.n == 1 ? "" : "s", run.n_ok, run.n_oom, run.n_error, dir);
    run_free(&run);
    tdb_free(&db);
    table_free(&t);
    return rc;
}

/* ---- eval ------------------------------------------------------------- */

static void print_size(const char *label, double bytes)
{
    printf("  %-22s %10.2f GiB\n", label, bytes / (1024.0 * 1024.0 * 1024.0));
}

static void print_eval(const RunRow *rr)
{
    const Scenario *sc = &rr->sc;
    const Result *r = &rr->r;
    char a[64];
    printf("scenario     %s\n", sc->name);
    printf("system       %s: %s, %d per node\n", sc->system.name, sc->system.device.name,
           sc->system.devices_per_node);
    if (sc->model.kind == MODEL_GEMM)
        printf("model        %s: GEMM %lld x %lld x %lld (%s)\n", sc->model.name, (long long)sc->model.m,
               (long long)sc->model.k, (long long)sc->model.n, precision_name(sc->precision));
    else
        printf("model        %s: %s, %.4g B parameters\n", sc->model.name, model_kind_name(sc->model.kind),
               r->params_total / 1e9);
    printf("strategy     devices %d = tp %d x pp %d x dp %d; microbatch %d, global batch %lld, "
           "interleave %d, recompute %s, %s%s, ZeRO %d\n",
           sc->devices, r->tp, r->pp, r->dp, r->microbatch, (long long)sc->global_batch, r->interleave,
           recompute_name(r->recompute), precision_name(sc->precision),
           sc->seq_parallel ? ", sequence parallel" : "", sc->zero);
    if (r->status == STATUS_ERROR) {
        printf("status       error: %s\n", r->error);
        return;
    }
    if (r->status == STATUS_OOM)
        printf("status       oom: needs %.1f GiB per device, the device has %.1f GiB\n",
               r->mem_total_bytes / 1073741824.0, r->mem_capacity_bytes / 1073741824.0);
    else
        printf("status       ok\n");
    unit_format(r->step_time_s, UNIT_TIME, a, sizeof a);
    printf("step time    %s  (%.6g samples/s)\n", a, r->samples_per_s);
    printf("throughput   %.4g TFLOP/s per device; MFU %.1f %%, HFU %.1f %%\n", r->model_tflops_per_device,
           100 * r->mfu, 100 * r->hfu);
    printf("bottleneck   %s\n", r->bottleneck);
    if (sc->model.kind == MODEL_GEMM)
        printf("bound        %s\n", strstr(r->bottleneck, "(compute)") ? "compute-bound" : "memory-bound");
    if (isfinite(r->time_to_train_s))
        printf("to train     %.6g steps, %.4g days\n", r->steps, r->time_to_train_s / 86400);
    printf("breakdown    %-18s %12s %7s\n", "component", "time", "share");
    for (int c = 0; c < COMP_COUNT; c++) {
        if (r->comp_time_s[c] <= 0)
            continue;
        unit_format(r->comp_time_s[c], UNIT_TIME, a, sizeof a);
        printf("             %-18s %12s %6.1f%%%s\n", component_name((Component)c), a,
               100 * r->comp_time_s[c] / r->step_time_s, c == COMP_DP_HIDDEN ? " (hidden, not in step)" : "");
    }
    printf("collectives  tensor: %s, pipeline: %s, data: %s\n", r->tp_tier, r->pp_tier, r->dp_tier);
    printf("power        device %.0f W (cap %.0f W, clock %.0f %% of nominal), system %.4g kW at the wall\n",
           r->device_power_w, r->power_cap_w, 100 * r->clock_scale, r->system_power_w / 1e3);
    printf("energy       %.4g kJ per step (system)", r->energy_per_step_j / 1e3);
    if (isfinite(r->energy_to_train_j))
        printf(", %.4g MWh to train", r->energy_to_train_j / 3.6e9);
    if (isfinite(r->cost_usd))
        printf(", $%.4g at list price", r->cost_usd);
    printf("\n");
    printf("memory per device (most loaded)\n");
    print_size("weights", r->mem_weights_bytes);
    print_size("gradients", r->mem_grads_bytes);
    print_size("optimizer state", r->mem_optimizer_bytes);
    print_size("activations", r->mem_activations_bytes);
    print_size("runtime reserve", r->mem_workspace_bytes);
    print_size("total", r->mem_total_bytes);
    print_size("capacity", r->mem_capacity_bytes);
}

static int cmd_eval(int argc, char **argv)
{
    const char *format = "text", *tdir = NULL;
    Setting *set = calloc((size_t)argc, sizeof *set);
    char **keys = calloc((size_t)argc, sizeof *keys);
    int n = 0, rc = EXIT_OK;
    if (!set || !keys) {
        free(set);
        free(keys);
        return EXIT_USAGE;
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strncmp(arg, "--format=", 9)) {
            format = arg + 9;
        } else if (!strcmp(arg, "--format") && i + 1 < argc) {
            format = argv[++i];
        } else if (!strncmp(arg, "--templates=", 12)) {
            tdir = arg + 12;
        } else if (!strchr(arg, '=') || arg[0] == '=') {
            rc = usage_error("eval: expected KEY=VALUE, got '%s'", arg);
            break;
        } else {
            const char *eq = strchr(arg, '=');
            keys[n] = strndup(arg, (size_t)(eq - arg));
            for (char *p = keys[n]; p && *p; p++)
                *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
            set[n].name = keys[n];
            set[n].text = eq + 1;
            set[n].line = i;
            set[n].col = 0;
            n++;
        }
    }
    if (rc == EXIT_OK && strcmp(format, "text") && strcmp(format, "csv"))
        rc = usage_error("eval: --format must be text or csv, got '%s'", format);
    TemplateDB db;
    int have_db = 0;
    if (rc == EXIT_OK) {
        if (init_templates(&db, tdir))
            rc = EXIT_INPUT;
        else
            have_db = 1;
    }
    if (rc == EXIT_OK) {
        Run run = {0};
        run.row = calloc(1, sizeof *run.row);
        run.n = run.row ? 1 : 0;
        RunRow *rr = run.row;
        if (rr && scenario_build(&db, "<command line>", ".", set, n, 0, &rr->sc, &rr->src, &rr->diag)) {
            char msg[1200];
            if (rr->diag.line > 0 && rr->diag.line < argc && !strcmp(rr->diag.file, "<command line>"))
                fprintf(stderr, "deepflow eval: argument %d (%s): %s\n", rr->diag.line, argv[rr->diag.line],
                        rr->diag.msg);
            else {
                diag_format(&rr->diag, msg, sizeof msg);
                fprintf(stderr, "deepflow eval: %s\n", msg);
            }
            rc = EXIT_ROWS_FAILED;
        } else if (rr) {
            snprintf(rr->sc.name, sizeof rr->sc.name, "eval");
            snprintf(rr->sc.series, sizeof rr->sc.series, "%s", rr->sc.system.name);
            rr->built = 1;
            run_evaluate(&run, 1, NULL, NULL);
            if (!strcmp(format, "csv")) {
                rpt_summary_row(stdout, NULL);
                rpt_summary_row(stdout, rr);
            } else {
                print_eval(rr);
            }
            if (rr->r.status == STATUS_ERROR)
                rc = EXIT_ROWS_FAILED;
        }
        run_free(&run);
    }
    if (have_db)
        tdb_free(&db);
    for (int i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    free(set);
    return rc;
}

/* ---- templates -------------------------------------------------------- */

static int cmd_templates(int argc, char **argv)
{
    static const char *const kinds[] = {"devices", "networks", "systems", "models", "technology",
                                        "convergence"};
    TemplateDB db;
    if (init_templates(&db, NULL))
        return EXIT_INPUT;
    int found = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (argc > 1 && strcasecmp(argv[1], kinds[k]))
            continue;
        found = 1;
        char **names;
        int n;
        if (tdb_list(&db, kinds[k], &names, &n) || n == 0)
            continue;
        printf("%s:\n", kinds[k]);
        for (int i = 0; i < n; i++) {
            printf("  %s\n", names[i]);
            free(names[i]);
        }
        free(names);
    }
    tdb_free(&db);
    if (!found)
        return usage_error("templates: unknown kind '%s' (devices, networks, systems, models, technology, "
                           "convergence)",
                           argv[1]);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        fputs("\n", stdout);
        fputs(help_text, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("deepflow %s\n", DF_VERSION);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "eval"))
        return cmd_eval(argc - 1, argv + 1);
    if (!strcmp(cmd, "templates"))
        return cmd_templates(argc - 1, argv + 1);
    return usage_error("unknown command '%s'", cmd);
}
