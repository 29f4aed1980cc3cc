/* main.c — the command line: run a scenario table, evaluate one scenario,
 * list templates.  Only this file, io/ and report/ touch files. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch/dist.h"
#include "batch/evaluate.h"
#include "batch/run.h"
#include "core/param.h"
#include "io/atomic.h"
#include "io/scenario.h"
#include "io/table.h"
#include "io/template.h"
#include "report/report.h"
#include "tech/tech.h"

#ifndef DF_VERSION
#define DF_VERSION "0.0.0"
#endif

enum { EXIT_OK = 0, EXIT_ROWS_FAILED = 1, EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_OUTPUT = 4 };

/* The longest -o folder name: the report's own paths under it
 * (charts/.tmp-render-PID-time_to_train.png and the like) must fit the
 * 1,400-byte path buffers, never be cut. */
#define RUN_MAX_OUT_PATH 1000

static const char usage_text[] =
    "usage: deepflow run SCENARIOS.csv [-o DIR] [-j THREADS] [--formats xlsx,csv,png,svg] [--top K] "
    "[--quiet]\n"
    "       deepflow eval KEY=VALUE ... [--format text|csv] [--top K]\n"
    "       deepflow templates [KIND [NAME]]\n"
    "       deepflow --help | --version\n";

static const char help_text[] =
    "deepflow — full-stack pathfinding for distributed deep-learning training.\n"
    "\n"
    "  run SCENARIOS.csv   evaluate every row of a scenario table and write the\n"
    "                      report to reports/NAME/ (NAME.xlsx, summary.csv,\n"
    "                      breakdown.csv, charts/*.dat,*.gp,*.png,*.svg)\n"
    "      -o, --output DIR    write the report to DIR instead\n"
    "      -f, --formats LIST  what to write, of xlsx,csv,png,svg (default all);\n"
    "                          the workbook date is $SOURCE_DATE_EPOCH or the table's\n"
    "                          modification time, so a rerun gives the same bytes\n"
    "      -j, --jobs N        threads (default: all cores)\n"
    "      -k, --top K         keep the search's K best strategies of each row with an\n"
    "                          auto field: a Runners-up sheet and runners_up.csv\n"
    "      -q, --quiet         no progress line\n"
    "      -t, --templates DIR templates folder (default $DEEPFLOW_TEMPLATES, ./templates, or the installed "
    "ones)\n"
    "  eval KEY=VALUE ...  one scenario, a readable breakdown on stdout, e.g.\n"
    "                      deepflow eval system=dgx-h100 model=gpt3-175b devices=1024 tp=8 pp=16 \\\n"
    "                          microbatch=1 global_batch=1536 train_tokens=300e9\n"
    "      --format csv        print the summary header and row instead\n"
    "      --top K             list the search's K best strategies after the breakdown\n"
    "  templates [KIND]    list the templates (devices, networks, systems, models,\n"
    "                      technology, convergence, frameworks)\n"
    "  templates KIND NAME every parameter of one template, as the loader resolves it\n"
    "\n";

static const char help_tail[] =
    "and any dotted template path such as model.layers or\n"
    "system.device.hbm.bandwidth.  Values may carry units (80 GiB, 3.35 TB/s,\n"
    "400 Gb/s, 700 W, 5 us).  A table cell may sweep: 8|16|32 or 8..1024*2.  The\n"
    "fields marked auto may be left to the search, which evaluates every\n"
    "consistent choice and keeps the fastest to train.\n"
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
    db->check = tech_template_check; /* a derive: device's budget is checked where it is written */
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

/* --top K: 1 to RUN_MAX_TOP. */
static int parse_top(const char *s, int *k)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > RUN_MAX_TOP)
        return -1;
    *k = (int)v;
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"jobs", required_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"templates", required_argument, NULL, 't'},
        {"formats", required_argument, NULL, 'f'},
        {"top", required_argument, NULL, 'k'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *tdir = NULL;
    /* threads: this machine's cores, shared among the MPI ranks on it */
    int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN) / dist_local_size(), quiet = 0, top_k = 0, c;
    if (jobs < 1)
        jobs = 1;
    unsigned formats = RPT_ALL;
    char command[4096]; /* before getopt_long permutes argv */
    rpt_command_line(argc, argv, command, sizeof command);
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:j:qt:f:k:", opts, NULL)) != -1) {
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
        case 'k':
            if (parse_top(optarg, &top_k))
                return usage_error("--top: expected a count of strategies from 1 to 100, got '%s'", optarg);
            break;
        case 'q':
            quiet = 1;
            break;
        case 't':
            tdir = optarg;
            break;
        case 'f': {
            char ferr[200];
            if (rpt_parse_formats(optarg, &formats, ferr, sizeof ferr))
                return usage_error("%s", ferr);
            break;
        }
        default:
            fputs(usage_text, stderr);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1)
        return usage_error("run: expected one scenario table%s", optind < argc ? ", got several" : "");
    const char *input = argv[optind];
    if (out) { /* an output folder that cannot be one is a usage error, before any work */
        struct stat ost;
        if (!*out)
            return usage_error("%s", "-o: expected an output folder, got an empty name");
        if (strlen(out) > RUN_MAX_OUT_PATH) {
            char why[96];
            snprintf(why, sizeof why, "-o: the folder's name is %zu bytes, more than %d", strlen(out),
                     RUN_MAX_OUT_PATH);
            return usage_error("%s", why);
        }
        if (stat(out, &ost) == 0 && !S_ISDIR(ost.st_mode))
            return usage_error("-o: '%s' is a file, not a folder", out);
    }

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
    char dir[1024], name[256], terr[300];
    base_name(input, name, sizeof name);
    if (!name[0] || !strcmp(name, ".") || !strcmp(name, "..")) { /* '...csv' would write to reports/.. */
        tdb_free(&db);
        table_free(&t);
        return usage_error("run: the table's file name '%s' gives no report name; rename the file", input);
    }
    time_t created;
    if (rpt_document_time(input, &created, terr, sizeof terr)) {
        fprintf(stderr, "deepflow: %s\n", terr);
        tdb_free(&db);
        table_free(&t);
        return EXIT_USAGE;
    }
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else
        snprintf(dir, sizeof dir, "reports/%s", name);

    Progress pr = {!quiet && isatty(fileno(stderr)), {0, 0}};
    clock_gettime(CLOCK_MONOTONIC, &pr.t0);
    /* a study larger than the workbook lists one by one is streamed: its
     * rows pass, its CSVs are written as they do, and only the rows the
     * report needs are kept (DEEPFLOW_DETAIL_MAX lowers that size, for
     * tests; DEEPFLOW_NO_STREAM holds every row regardless) */
    const char *dm = getenv("DEEPFLOW_DETAIL_MAX");
    const long dml = dm ? strtol(dm, NULL, 10) : 0;
    const int detail_max = dml > 0 && dml <= RPT_DETAIL_MAX ? (int)dml : 0;
    const int streamed =
        run_count(&t) > (detail_max > 0 ? detail_max : RPT_DETAIL_MAX) && !getenv("DEEPFLOW_NO_STREAM");
    Run run;
    Diag rd;
    diag_clear(&rd);
    char sdir[1200] = "";
    const int got = streamed ? rpt_stream_table(&db, &t, jobs, top_k, progress_line, &pr, dir, formats,
                                                detail_max, &run, sdir, sizeof sdir, &rd)
                             : run_table(&db, &t, jobs, top_k, progress_line, &pr, &run, &rd);
    if (got) {
        char msg[1200];
        diag_format(&rd, msg, sizeof msg);
        fprintf(stderr, "deepflow: %s (no report written)\n", msg);
        if (sdir[0])
            atomic_stage_abort(sdir);
        tdb_free(&db);
        table_free(&t);
        return got == 2 ? EXIT_OUTPUT : EXIT_INPUT;
    }
    if (dist_rank() > 0) { /* rank 0 has every result and writes the report */
        run_free(&run);
        tdb_free(&db);
        table_free(&t);
        return EXIT_OK;
    }
    rpt_print_warnings(&db, &run);
    rpt_print_row_errors(&run, input);

    int rc = run.n_error ? EXIT_ROWS_FAILED : EXIT_OK;
    Sensitivity sens;
    const int have_sens = rpt_sensitivity(&run, &sens) == 0;
    ReportInput rin = {.run = &run,
                       .table = &t,
                       .db = &db,
                       .name = name,
                       .command = command,
                       .created = created,
                       .sens = have_sens ? &sens : NULL,
                       .resolve = evaluate_resolve,
                       .detail_max = detail_max,
                       .streamed = sdir[0] ? sdir : NULL};
    if (rpt_publish(&rin, dir, formats) != 0)
        rc = EXIT_OUTPUT;
    if (sdir[0])
        atomic_stage_abort(sdir); /* what was not moved into the report (an unused design.csv) */
    run_free(&run);
    tdb_free(&db);
    table_free(&t);
    return rc;
}

/* ---- eval ------------------------------------------------------------- */

static int cmd_eval(int argc, char **argv)
{
    const char *format = "text", *tdir = NULL;
    int top_k = 0;
    const char **kv = calloc((size_t)argc, sizeof *kv);
    int *line = calloc((size_t)argc, sizeof *line);
    int n = 0, rc = EXIT_OK;
    if (!kv || !line) {
        free(kv);
        free(line);
        return EXIT_USAGE;
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strncmp(arg, "--format=", 9)) {
            format = arg + 9;
        } else if (!strcmp(arg, "--format") && i + 1 < argc) {
            format = argv[++i];
        } else if (!strncmp(arg, "--top=", 6) || (!strcmp(arg, "--top") && i + 1 < argc)) {
            const char *v = arg[5] == '=' ? arg + 6 : argv[++i];
            if (parse_top(v, &top_k)) {
                rc = usage_error("eval: --top: expected a count of strategies from 1 to 100, got '%s'", v);
                break;
            }
        } else if (!strncmp(arg, "--templates=", 12)) {
            tdir = arg + 12;
        } else if (!strchr(arg, '=') || arg[0] == '=') {
            rc = usage_error(strchr(arg, '=')
                                 ? "eval: expected KEY=VALUE, got '%s'"
                                 : "eval: expected KEY=VALUE, got '%s' (a value with a space, such "
                                   "as power_cap=700 kW, must be quoted: 'power_cap=700 kW')",
                             arg);
            break;
        } else {
            kv[n] = arg;
            line[n++] = i; /* messages name the argument */
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
        if (rr && scenario_build_kv(&db, "<command line>", kv, line, n, &rr->sc, &rr->src, &rr->diag)) {
            char msg[1200];
            if (rr->diag.line > 0 && rr->diag.line < argc && !strcmp(rr->diag.file, "<command line>"))
                fprintf(stderr, "deepflow eval: argument %d (%s): %s\n", rr->diag.line, argv[rr->diag.line],
                        rr->diag.msg);
            else if (!strcmp(rr->diag.file, "<command line>"))
                fprintf(stderr, "deepflow eval: %s\n", rr->diag.msg); /* the arguments as a whole */
            else {
                diag_format(&rr->diag, msg, sizeof msg);
                fprintf(stderr, "deepflow eval: %s\n", msg);
            }
            /* a fault in the arguments is a usage error; one in a template the row's failure */
            rc = !strcmp(rr->diag.file, "<command line>") ? EXIT_USAGE : EXIT_ROWS_FAILED;
        } else if (rr) {
            snprintf(rr->sc.name, sizeof rr->sc.name, "eval");
            snprintf(rr->sc.series, sizeof rr->sc.series, "%s", rr->sc.system.name);
            rr->built = 1;
            run.top_k = top_k;
            run_evaluate(&run, 1, NULL, NULL);
            rpt_print_warnings(&db, &run);
            if (!strcmp(format, "csv")) {
                rpt_summary_row(stdout, NULL);
                rpt_summary_row(stdout, rr);
            } else {
                rpt_print_eval(rr);
            }
            if (rr->r.status == STATUS_ERROR)
                rc = EXIT_ROWS_FAILED;
        }
        run_free(&run);
    }
    if (have_db)
        tdb_free(&db);
    free(kv);
    free(line);
    return rc;
}

/* ---- templates -------------------------------------------------------- */

static void print_param(const char *key, const ParamDef *def, const void *obj, void *ctx)
{
    (void)ctx;
    char value[512];
    if (def->type == P_SUB)
        snprintf(value, sizeof value, "%s", (const char *)obj + def->offset);
    else
        param_format(def, obj, value, sizeof value);
    printf("%-36s %s\n", key, value);
}

static int cmd_templates(int argc, char **argv)
{
    static const char *const kinds[] = {"devices",    "networks",    "systems",   "models",
                                        "technology", "convergence", "frameworks"};
    static const ParamTable *const tables[] = {
        &param_device_table,     &param_network_table,     &param_system_table,   &param_model_table,
        &param_technology_table, &param_convergence_table, &param_framework_table};
    TemplateDB db;
    if (init_templates(&db, NULL))
        return EXIT_INPUT;
    if (argc > 2) { /* one template, every parameter as the loader resolved it */
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            if (strcasecmp(argv[1], kinds[k]))
                continue;
            Diag d;
            diag_clear(&d);
            const Template *t = tdb_get(&db, tables[k], argv[2], NULL, &d);
            if (!t) {
                char msg[1200];
                diag_format(&d, msg, sizeof msg);
                fprintf(stderr, "deepflow templates: %s\n", msg);
                tdb_free(&db);
                return EXIT_INPUT;
            }
            printf("# %s (%s)\n", argv[2], t->path);
            /* a derive: device (or a system of one) as the model will see it */
            void *obj = malloc(tables[k]->struct_size);
            if (!obj) {
                tdb_free(&db);
                fprintf(stderr, "deepflow templates: out of memory\n");
                return EXIT_INPUT;
            }
            memcpy(obj, t->obj, tables[k]->struct_size);
            int rc = 0;
            if (tables[k] == &param_device_table && ((Device *)obj)->derive.name[0]) {
                rc = tech_resolve_device(t->obj, obj, NULL, NULL, &d);
                printf("# derived by the generator from derive: below; keys the file sets are kept\n");
            } else if (tables[k] == &param_system_table && ((System *)obj)->device.derive.name[0]) {
                rc = tech_resolve_system(obj, &d);
                printf(
                    "# device derived by the generator from device.derive; keys set explicitly are kept\n");
            }
            if (rc) {
                memcpy(obj, t->obj, tables[k]->struct_size);
                printf("# cannot derive: %s\n", d.msg);
            }
            param_walk(tables[k], obj, "", print_param, NULL);
            free(obj);
            tdb_free(&db);
            return EXIT_OK;
        }
    }
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
                           "convergence, frameworks)",
                           argv[1]);
    return EXIT_OK;
}

static int dispatch(int argc, char **argv)
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
        rpt_print_columns(&param_scenario_table);
        fputs(help_tail, stdout);
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

int main(int argc, char **argv)
{
    if (dist_init(&argc, &argv)) {
        fputs("deepflow: MPI could not start\n", stderr);
        return EXIT_USAGE;
    }
    int rc = dispatch(argc, argv);
    dist_finish();
    /* rank 0 speaks for the run, its status included: mpirun then reports
     * rank 0's status, not another rank's copy of it */
    return dist_rank() > 0 ? EXIT_OK : rc;
}
