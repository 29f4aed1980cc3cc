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
#include "calib/calib.h"
#include "core/param.h"
#include "io/atomic.h"
#include "io/scenario.h"
#include "io/table.h"
#include "io/template.h"
#include "par/step.h"
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

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "deepflow: ");
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    rpt_usage(stderr);
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

/* A count from 1 to max (--top K, -j THREADS): 0, or -1 when s is not one. */
static int parse_count(const char *s, long max, int *k)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > max)
        return -1;
    *k = (int)v;
    return 0;
}

#define MAX_JOBS 1024

/* deepflow run's arguments. */
typedef struct {
    const char *input, *out, *tdir;
    int jobs, quiet, top_k, force, no_wait;
    unsigned formats;
    char command[4096]; /* the command line as typed, for the About sheet */
} RunArgs;

/* Parses run's arguments into a; an output folder that cannot be one is a
 * usage error, before any work.  Returns -1, or the exit status of a usage
 * error. */
static int run_args(int argc, char **argv, RunArgs *a)
{
    memset(a, 0, sizeof *a);
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"jobs", required_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"templates", required_argument, NULL, 't'},
        {"formats", required_argument, NULL, 'f'},
        {"top", required_argument, NULL, 'k'},
        {"force", no_argument, NULL, 'F'},
        {"no-wait", no_argument, NULL, 'W'},
        {NULL, 0, NULL, 0},
    };
    /* threads: this machine's cores, shared among the MPI ranks on it */
    a->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN) / dist_local_size();
    if (a->jobs < 1)
        a->jobs = 1;
    a->formats = RPT_ALL;
    rpt_command_line(argc, argv, a->command, sizeof a->command); /* before getopt_long permutes argv */
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:j:qt:f:k:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            a->out = optarg;
            break;
        case 'j':
            if (parse_count(optarg, MAX_JOBS, &a->jobs))
                return usage_error("-j: expected a thread count from 1 to 1024, got '%s'", optarg);
            break;
        case 'k':
            if (parse_count(optarg, RUN_MAX_TOP, &a->top_k))
                return usage_error("--top: expected a count of strategies from 1 to 100, got '%s'", optarg);
            break;
        case 'q':
            a->quiet = 1;
            break;
        case 'F':
            a->force = 1;
            break;
        case 'W':
            a->no_wait = 1;
            break;
        case 't':
            a->tdir = optarg;
            break;
        case 'f': {
            char ferr[200];
            if (rpt_parse_formats(optarg, &a->formats, ferr, sizeof ferr))
                return usage_error("%s", ferr);
            break;
        }
        default:
            rpt_usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1)
        return usage_error("run: expected one scenario table%s", optind < argc ? ", got several" : "");
    a->input = argv[optind];
    const char *out = a->out;
    if (out) {
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
    return -1;
}

static int cmd_run(int argc, char **argv)
{
    RunArgs ra;
    const int bad = run_args(argc, argv, &ra);
    if (bad >= 0)
        return bad;
    const char *input = ra.input;
    Diag d;
    diag_clear(&d);
    Table t;
    const int unread = table_read(input, &t, &d);
    if (unread || scenario_check_header(&t, &d)) { /* a header fault: said once, nothing run */
        char msg[1200];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "deepflow: %s\n", msg);
        if (!unread)
            table_free(&t);
        return EXIT_INPUT;
    }
    TemplateDB db;
    if (init_templates(&db, ra.tdir)) {
        table_free(&t);
        return EXIT_INPUT;
    }
    char dir[1024], name[256], terr[300];
    rpt_report_name(input, name, sizeof name);
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
    if (ra.out)
        snprintf(dir, sizeof dir, "%s", ra.out);
    else
        snprintf(dir, sizeof dir, "reports/%s", name);

    RptProgress pr;
    rpt_progress_start(&pr, !ra.quiet && isatty(fileno(stderr)));
    static const int exit_of[] = {[STUDY_OK] = EXIT_OK,
                                  [STUDY_ROWS_FAILED] = EXIT_ROWS_FAILED,
                                  [STUDY_INPUT] = EXIT_INPUT,
                                  [STUDY_OUTPUT] = EXIT_OUTPUT};
    const Study study = {.db = &db,
                         .table = &t,
                         .input = input,
                         .name = name,
                         .dir = dir,
                         .command = ra.command,
                         .created = created,
                         .jobs = ra.jobs,
                         .top_k = ra.top_k,
                         .formats = ra.formats,
                         .progress = rpt_progress_line,
                         .progress_ctx = &pr,
                         .resolve = evaluate_resolve,
                         .force = ra.force,
                         .no_wait = ra.no_wait};
    const int rc = exit_of[rpt_study(&study)];
    tdb_free(&db);
    table_free(&t);
    return rc;
}

/* ---- eval ------------------------------------------------------------- */

/* The strategy axes eval searches when they are not given (issue 27): a
 * table states its strategy (an empty cell is the parameter's default),
 * but one scenario typed on the command line asks for the best, as long as
 * a global batch holds the amount of work per step fixed (without one the
 * batch would follow dp, and the search would compare different steps). */
#define EVAL_SEARCHED 3
static void eval_search_unset(const char **kv, int *line, int *n)
{
    static const char *const searched[EVAL_SEARCHED] = {"tp=auto", "pp=auto", "microbatch=auto"};
    int batch = 0, given[EVAL_SEARCHED] = {0};
    for (int i = 0; i < *n; i++) {
        const char *eq = strchr(kv[i], '=');
        const size_t kl = eq ? (size_t)(eq - kv[i]) : strlen(kv[i]);
        batch |= (kl == 12 && !strncasecmp(kv[i], "global_batch", kl)) ||
                 (kl == 13 && !strncasecmp(kv[i], "replica_batch", kl));
        for (int k = 0; k < EVAL_SEARCHED; k++)
            given[k] |= kl == (size_t)(strchr(searched[k], '=') - searched[k]) &&
                        !strncasecmp(kv[i], searched[k], kl);
    }
    for (int k = 0; batch && k < EVAL_SEARCHED; k++)
        if (!given[k]) {
            kv[*n] = searched[k];
            line[(*n)++] = 0; /* no argument of the user's: a message names none */
        }
}

/* The ops of the row's step as evaluated (its strategy as the search
 * resolved it, at its clock), or NULL (out of memory). */
static OpTrace *eval_trace(const RunRow *rr)
{
    OpTrace *t = malloc(sizeof *t);
    if (!t)
        return NULL;
    Scenario sc = rr->sc;
    sc.st = rr->r.st;
    Result r;
    step_trace(&sc, rr->r.clock_scale > 0 ? rr->r.clock_scale : 1.0, NULL, t, &r);
    return t;
}

static int cmd_eval(int argc, char **argv)
{
    const char *format = "text", *tdir = NULL;
    int top_k = 0, ops = 0;
    const char **kv = calloc((size_t)argc + EVAL_SEARCHED, sizeof *kv);
    int *line = calloc((size_t)argc + EVAL_SEARCHED, sizeof *line);
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
            if (parse_count(v, RUN_MAX_TOP, &top_k)) {
                rc = usage_error("eval: --top: expected a count of strategies from 1 to 100, got '%s'", v);
                break;
            }
        } else if (!strcmp(arg, "--ops")) {
            ops = 1;
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
    eval_search_unset(kv, line, &n);
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
            OpTrace *trace = ops && rr->r.status != STATUS_ERROR ? eval_trace(rr) : NULL;
            if (!strcmp(format, "csv") && trace) {
                rpt_ops_csv(stdout, trace); /* with --ops the CSV is the op table */
            } else if (!strcmp(format, "csv")) {
                rpt_summary_row(stdout, NULL);
                rpt_summary_row(stdout, rr);
            } else {
                rpt_print_eval(rr);
                if (trace)
                    rpt_print_ops(trace);
            }
            free(trace);
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

static int cmd_templates(int argc, char **argv)
{
    const ParamTable *const *tables = param_template_tables;
    /* --templates=DIR (or --templates DIR) as run and eval take it */
    const char *tdir = NULL;
    char *pos[3] = {argv[0], NULL, NULL};
    int np = 1;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--templates=", 12))
            tdir = argv[i] + 12;
        else if (!strcmp(argv[i], "--templates") && i + 1 < argc)
            tdir = argv[++i];
        else if (np < 3)
            pos[np++] = argv[i];
        else
            return usage_error("templates: expected at most a kind and a name, got '%s' too", argv[i]);
    }
    argc = np;
    argv = pos;
    TemplateDB db;
    if (init_templates(&db, tdir))
        return EXIT_INPUT;
    for (int k = 0; argc > 2 && k < param_template_count; k++) {
        if (strcasecmp(argv[1], tables[k]->kind))
            continue;
        /* one template, every parameter as the loader resolved it; a derive:
         * device (or a system of one) as the model will see it */
        Diag d;
        diag_clear(&d);
        const Template *t = tdb_get(&db, tables[k], argv[2], NULL, &d);
        void *obj = t ? malloc(tables[k]->struct_size) : NULL;
        if (!obj) {
            char msg[1200];
            diag_format(&d, msg, sizeof msg);
            fprintf(stderr, "deepflow templates: %s\n", t ? "out of memory" : msg);
            tdb_free(&db);
            return EXIT_INPUT;
        }
        const char *note;
        const int cannot = evaluate_template(tables[k], t->obj, obj, &note, &d);
        rpt_print_template(tables[k], obj, argv[2], t->path, note, cannot ? d.msg : NULL);
        free(obj);
        tdb_free(&db);
        return EXIT_OK;
    }
    const int found = rpt_print_template_names(&db, argc > 1 ? argv[1] : NULL);
    tdb_free(&db);
    if (found) {
        char msg[512];
        size_t l = (size_t)snprintf(msg, sizeof msg, "templates: unknown kind '%s' (", argv[1]);
        for (int k = 0; k < param_template_count && l < sizeof msg; k++)
            l += (size_t)snprintf(msg + l, sizeof msg - l, "%s%s", k ? ", " : "", tables[k]->kind);
        if (l < sizeof msg)
            snprintf(msg + l, sizeof msg - l, ")");
        return usage_error("%s", msg);
    }
    return EXIT_OK;
}

/* ---- calibrate -------------------------------------------------------- */

static int cmd_calibrate(int argc, char **argv)
{
    CalibrateJob job = {.ask = (1u << CAL_NPARAM) - 1, .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN)};
    char command[4096];
    rpt_command_line(argc, argv, command, sizeof command);
    job.command = command;
    const char *tdir = NULL;
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"fit", required_argument, NULL, 'F'},
        {"jobs", required_argument, NULL, 'j'},
        {"templates", required_argument, NULL, 't'},
        {"nccl", required_argument, NULL, 'N'},
        {"gemm", required_argument, NULL, 'G'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:j:t:", opts, NULL)) != -1) {
        if (c == 'o') {
            job.out = optarg;
        } else if (c == 't') {
            tdir = optarg;
        } else if (c == 'G') {
            job.gemm = optarg;
        } else if (c == 'N') {
            if (job.nnccl == CAL_MAX_NCCL)
                return usage_error("calibrate: --nccl: at most 16 files, got more with '%s'", optarg);
            job.nccl[job.nnccl++] = optarg;
        } else if (c == 'j') {
            if (parse_count(optarg, MAX_JOBS, &job.jobs))
                return usage_error("-j: expected a thread count from 1 to 1024, got '%s'", optarg);
        } else if (c == 'F') {
            job.ask = 0;
            char list[512];
            snprintf(list, sizeof list, "%s", optarg);
            for (char *save = NULL, *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
                int p = 0;
                while (p < CAL_NPARAM && strcmp(k, cal_param[p].key))
                    p++;
                if (p == CAL_NPARAM)
                    return usage_error("calibrate: --fit: '%s' is none of gemm_efficiency, op_overhead, "
                                       "tp_overlap, dp_overlap, comm_efficiency.intra, comm_efficiency.inter",
                                       k);
                job.ask |= 1u << p;
            }
            if (!job.ask)
                return usage_error("calibrate: --fit: expected the keys to fit, got '%s'", optarg);
        } else {
            rpt_usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1)
        return usage_error("calibrate: expected one table of measured runs%s",
                           optind < argc ? ", got several" : "");
    job.input = argv[optind];
    if (!job.out || !job.out[0])
        return usage_error("%s", "calibrate: -o: expected the template to write (NAME.yaml)");
    const size_t len = strlen(job.out);
    if (len < 6 || (strcmp(job.out + len - 5, ".yaml") && strcmp(job.out + len - 4, ".yml")))
        return usage_error("calibrate: -o: expected a template file name ending in .yaml, got '%s'", job.out);
    TemplateDB db;
    if (init_templates(&db, tdir))
        return EXIT_INPUT;
    const int rc = rpt_calibrate(&db, &job);
    tdb_free(&db);
    return rc;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        rpt_usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        rpt_print_help();
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
    if (!strcmp(cmd, "calibrate"))
        return cmd_calibrate(argc - 1, argv + 1);
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
