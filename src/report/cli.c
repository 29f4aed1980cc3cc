/* report/cli.c — the command line's texts: the usage lines, --help (the
 * commands, the scenario table's columns from their parameter table, units
 * and exit statuses), `deepflow templates`' listings and the progress line
 * of a run on a terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/param.h"
#include "report/report.h"

static const char usage_text[] =
    "usage: deepflow run SCENARIOS.csv [-o DIR] [-j THREADS] [--formats xlsx,csv,png,svg] [--top K] "
    "[--quiet] [--force] [--no-wait]\n"
    "       deepflow eval KEY=VALUE ... [--format text|csv] [--top K] [--ops]\n"
    "       deepflow templates [KIND [NAME]]\n"
    "       deepflow calibrate MEASURED.csv -o STACK.yaml [--fit KEYS] [--nccl FILE]... [--gemm FILE]\n"
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
    "      --force             write into a folder that holds files no report manifest\n"
    "                          lists (they are kept; by default such a folder is refused)\n"
    "      --no-wait           fail at once when another run is writing the folder\n"
    "                          (by default: wait for it)\n"
    "      -t, --templates DIR templates folder (default $DEEPFLOW_TEMPLATES, ./templates, or the installed "
    "ones)\n"
    "  eval KEY=VALUE ...  one scenario, a readable breakdown on stdout, e.g.\n"
    "                      deepflow eval system=dgx-h100 model=gpt3-175b devices=1024 tp=8 pp=16 \\\n"
    "                          microbatch=1 global_batch=1536 train_tokens=300e9\n"
    "                      with a global_batch (or replica_batch), tp, pp and microbatch\n"
    "                      left out are searched (auto); without one they are 1\n"
    "      --format csv        print the summary header and row instead\n"
    "      --top K             list the search's K best strategies after the breakdown\n"
    "      --ops               every op of one microbatch as costed, list by list: its\n"
    "                          runs, shape, device and host time, share and bound;\n"
    "                          with --format csv the op table, one row an op\n"
    "  templates [KIND]    list the templates (devices, networks, systems, models,\n"
    "                      technology, convergence, frameworks)\n"
    "  templates KIND NAME every parameter of one template, as the loader resolves it\n"
    "      --templates DIR     templates folder, as for run\n"
    "  calibrate MEASURED.csv -o STACK.yaml\n"
    "                      fit the runs' training stack to what they measured: a\n"
    "                      scenario table with, per row, measured_step_time_s or\n"
    "                      measured_tokens_per_s_per_device (and optionally\n"
    "                      measured_memory_gib); writes a frameworks template with\n"
    "                      the fitted values, their uncertainty, every run's\n"
    "                      residual and the 90 %% range its leave-one-out errors give;\n"
    "                      use it as system.framework=STACK.yaml\n"
    "      --fit KEYS          what to fit, comma-separated (default all): gemm_efficiency,\n"
    "                          op_overhead, tp_overlap, dp_overlap, comm_efficiency.intra,\n"
    "                          comm_efficiency.inter, comm_latency.intra, comm_latency.inter\n"
    "      --nccl FILE         output of nccl-tests (all_reduce_perf, all_gather_perf,\n"
    "                          reduce_scatter_perf, alltoall_perf) as printed: sets the\n"
    "                          measured curve of its tier (one host: inside a node,\n"
    "                          several: between nodes), written as STACK-intra.yaml or\n"
    "                          STACK-inter.yaml for system.intra= / system.inter=\n"
    "      --gemm FILE         measured GEMMs, a CSV with columns m,n,k,dtype,time_us:\n"
    "                          sets the device's matrix efficiency (STACK-device.yaml,\n"
    "                          for system.device=) before the stack is fitted on it\n"
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

void rpt_usage(FILE *f)
{
    fputs(usage_text, f);
}

void rpt_print_help(void)
{
    fputs(usage_text, stdout);
    fputs("\n", stdout);
    fputs(help_text, stdout);
    rpt_print_columns(&param_scenario_table);
    fputs(help_tail, stdout);
}

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

void rpt_print_template(const ParamTable *t, const void *obj, const char *name, const char *path,
                        const char *note, const char *cannot)
{
    printf("# %s (%s)\n", name, path);
    if (note[0])
        printf("%s\n", note);
    if (cannot)
        printf("# cannot derive: %s\n", cannot);
    param_walk(t, obj, "", print_param, NULL);
}

int rpt_print_template_names(const TemplateDB *db, const char *kind)
{
    int found = 0;
    for (int k = 0; k < param_template_count; k++) {
        const char *folder = param_template_tables[k]->kind;
        if (kind && strcasecmp(kind, folder))
            continue;
        found = 1;
        char **names;
        int n;
        if (tdb_list(db, folder, &names, &n) || n == 0)
            continue;
        printf("%s:\n", folder);
        for (int i = 0; i < n; i++) {
            printf("  %s\n", names[i]);
            free(names[i]);
        }
        free(names);
    }
    return found ? 0 : -1;
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

void rpt_progress_start(RptProgress *p, int tty)
{
    p->tty = tty;
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
}

void rpt_progress_line(int done, int total, void *ctx)
{
    RptProgress *p = ctx;
    if (!p->tty)
        return;
    double el = since(&p->t0);
    double rate = el > 0 ? done / el : 0;
    double eta = rate > 0 ? (total - done) / rate : 0;
    fprintf(stderr, "\r%d/%d scenarios, %.0f/s, ETA %.0f s   ", done, total, rate, eta);
    if (done == total)
        fputs("\n", stderr);
}

void rpt_report_name(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out && !strcasecmp(dot, ".csv"))
        *dot = '\0';
}
