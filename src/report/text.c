/* report/text.c — `deepflow eval`'s printout of one evaluated scenario:
 * its system, model and strategy (every axis of core/types.h's table), the
 * step time with its range, the breakdown, power, energy and memory, and
 * with --top the runners-up, one column per axis; the scenario table's
 * columns for --help; the command line as run, for the About sheet. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/param.h"
#include "core/strategy.h"
#include "core/units.h"
#include "report/report.h"

static void print_size(const char *label, double bytes)
{
    printf("  %-22s %10.2f GiB\n", label, bytes / GIB_BYTES);
}

/* prefix, v in the reader's unit, suffix, and the prediction interval's
 * ends in brackets when the row has one. */
static void print_ranged(void (*fmt)(double, char *, size_t), double v, const Result *r, int ranged,
                         const char *prefix, const char *suffix)
{
    char a[64], lo[64], hi[64];
    fmt(v, a, sizeof a);
    printf("%s%s%s", prefix, a, suffix);
    if (ranged) {
        fmt(v * r->interval_lo, lo, sizeof lo);
        fmt(v * r->interval_hi, hi, sizeof hi);
        printf(" (%s to %s)", lo, hi);
    }
}

/* The runners-up: one column per axis (core/strategy.h's table), each as
 * wide as its heading or its widest value. */
static void print_top(const RunRow *rr)
{
    int width[AXIS_COUNT];
    char cell[AXIS_COUNT][32];
    for (int a = 0; a < AXIS_COUNT; a++) {
        width[a] = (int)strlen(strategy_axes[a].abbr);
        for (int k = 0; k < rr->ntop; k++) {
            strategy_value_text((StrategyAxis)a, strategy_get(&rr->top[k].st, (StrategyAxis)a), cell[a],
                                sizeof cell[a]);
            if ((int)strlen(cell[a]) > width[a])
                width[a] = (int)strlen(cell[a]);
        }
    }
    printf("best strategies (rank 1 is the one above)\n  %4s", "rank");
    for (int a = 0; a < AXIS_COUNT; a++)
        printf(" %*s", width[a], strategy_axes[a].abbr);
    printf(" %12s %8s %6s %9s\n", "step", "slower", "MFU", "memory");
    const double t0 = merit_time(rr->top[0].merit);
    for (int k = 0; k < rr->ntop; k++) {
        const Candidate *c = &rr->top[k];
        printf("  %4d", k + 1);
        for (int a = 0; a < AXIS_COUNT; a++) {
            if (strategy_axis_applies(&c->st, (StrategyAxis)a))
                strategy_value_text((StrategyAxis)a, strategy_get(&c->st, (StrategyAxis)a), cell[a],
                                    sizeof cell[a]);
            else
                snprintf(cell[a], sizeof cell[a], "-");
            printf(" %*s", width[a], cell[a]);
        }
        char stime[32];
        unit_format(c->step_time_s, UNIT_TIME, stime, sizeof stime);
        printf(" %12s %7.1f%% %5.1f%% %5.1f GiB\n", stime, 100 * (merit_time(c->merit) / t0 - 1),
               100 * c->mfu, c->mem_total_bytes / GIB_BYTES);
    }
}

/* A co-designed row: the design points searched and the budget splits,
 * from the template's to the one found. */
static void print_codesign(const Scenario *sc, const Result *r)
{
    const double now_s = merit_time(merit_of(r));
    printf("codesign     %s: %d design points; %.4g x faster than the template's split",
           codesign_name(sc->codesign), r->design_evals, r->design_start_s / now_s);
    static const char *const what[3] = {"area", "power", "edge"};
    const double *from[3] = {sc->system.device.derive.budget.area, sc->system.device.derive.budget.power,
                             sc->system.device.derive.budget.perimeter};
    const double *to[3] = {r->design_budget.area, r->design_budget.power, r->design_budget.perimeter};
    for (int k = 0; k < 3; k++) {
        printf("\n             %-6s", what[k]);
        for (int p = 0; p < TP_COUNT; p++)
            if (from[k][p] > 0 || to[k][p] > 0)
                printf(" %s %.3f->%.3f", tech_part_name((TechPart)p), from[k][p], to[k][p]);
    }
    printf("\n");
}

/* The steps and time to train, with the range, and the goodput under
 * failures. */
static void print_to_train(const Result *r, int ranged)
{
    printf("to train     %.0f steps", r->steps);
    print_ranged(rpt_fmt_duration, r->time_to_train_s, r, ranged, ", ", "");
    printf("\n");
    const Goodput *g = &r->failures;
    if (isfinite(g->goodput) && isfinite(g->wall_s)) {
        char wall[48], mtti[48], every[48];
        rpt_fmt_duration(g->wall_s, wall, sizeof wall);
        rpt_fmt_duration(g->mtti_s, mtti, sizeof mtti);
        rpt_fmt_duration(g->interval_s, every, sizeof every);
        printf("failures     goodput %.1f %%: %s to train, interrupted every %s on average, a %.3g s "
               "checkpoint every %s\n",
               100 * g->goodput, wall, mtti, g->write_s, every);
    } else if (isfinite(g->goodput)) {
        printf("failures     goodput 0: interruptions (every %.3g s) come faster than a checkpoint "
               "(%.3g s) can be written\n",
               g->mtti_s, g->write_s);
    }
}

void rpt_print_eval(const RunRow *rr)
{
    const Scenario *sc = &rr->sc;
    const Result *r = &rr->r;
    if (sc->global_batch_defaulted && sc->model.kind != MODEL_GEMM)
        fprintf(stderr,
                "deepflow eval: note: no global_batch given, so microbatch x dp = %lld samples per step; the "
                "model's training batch is usually far larger (set global_batch=...)\n",
                (long long)sc->st.global_batch);
    char a[64];
    printf("scenario     %s\n", sc->name);
    printf("system       %s: %s, %d per node; stack %s\n", sc->system.name, sc->system.device.name,
           sc->system.devices_per_node, sc->system.framework.name);
    if (sc->model.kind == MODEL_GEMM)
        printf("model        %s: GEMM %lld x %lld x %lld (%s)\n", sc->model.name, (long long)sc->model.m,
               (long long)sc->model.k, (long long)sc->model.n, precision_name(sc->precision));
    else if (r->status == STATUS_ERROR) /* the graph was never built: no parameter count to show */
        printf("model        %s: %s\n", sc->model.name, model_kind_name(sc->model.kind));
    else
        printf("model        %s: %s, %.4g B parameters\n", sc->model.name, model_kind_name(sc->model.kind),
               r->params_total / 1e9);
    const int err = r->status == STATUS_ERROR;
    char st[512]; /* on an error what was asked for ('auto' where the search never resolved it) */
    strategy_describe(err ? &sc->st : &r->st, 0, st, sizeof st);
    printf("strategy     devices %d: %s; global batch %lld, %s\n", sc->devices, st,
           (long long)(err ? sc->st.global_batch : r->st.global_batch), precision_name(sc->precision));
    if (r->status == STATUS_ERROR) {
        printf("status       error: %s\n", r->error);
        return;
    }
    if (r->status == STATUS_OOM && r->mem_total_bytes <= r->mem_capacity_bytes)
        printf("status       oom: offloads %.1f GiB of activations per device to host memory, its share of "
               "the host has %.1f GiB\n",
               r->mem_host_bytes / GIB_BYTES, r->mem_host_capacity_bytes / GIB_BYTES);
    else if (r->status == STATUS_OOM)
        printf("status       oom: needs %.1f GiB per device, the device has %.1f GiB\n",
               r->mem_total_bytes / GIB_BYTES, r->mem_capacity_bytes / GIB_BYTES);
    else
        printf("status       ok\n");
    const int ranged = isfinite(r->interval_lo) && isfinite(r->interval_hi);
    unit_format(r->step_time_s, UNIT_TIME, a, sizeof a);
    printf("step time    %s  (%.6g samples/s)", a, r->samples_per_s);
    if (ranged) {
        char lo[64], hi[64];
        unit_format(r->step_time_s * r->interval_lo, UNIT_TIME, lo, sizeof lo);
        unit_format(r->step_time_s * r->interval_hi, UNIT_TIME, hi, sizeof hi);
        printf("; 90 %% range %s to %s", lo, hi);
    }
    printf("\n");
    printf("interval     %s\n", r->interval_basis);
    printf("throughput   %.4g TFLOP/s per device; MFU %.1f %%, HFU %.1f %%\n", r->model_tflops_per_device,
           100 * r->mfu, 100 * r->hfu);
    printf("bottleneck   %s\n", r->bottleneck);
    if (r->searched)
        printf("search       best of %d strategies evaluated, %d fit in memory, %d skipped as equivalent, of "
               "%.0f combinations (fastest to train, then least energy)\n",
               r->searched, r->search_feasible, r->search_pruned, r->search_space);
    if (sc->model.kind == MODEL_GEMM)
        printf("bound        %s\n", strstr(r->bottleneck, "(compute)") ? "compute-bound" : "memory-bound");
    if (r->design_evals)
        print_codesign(sc, r);
    if (isfinite(r->time_to_train_s))
        print_to_train(r, ranged);
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
    if (r->energy_per_step_j >= 1e6)
        printf("energy       %.4g MJ per step (system)", r->energy_per_step_j / 1e6);
    else
        printf("energy       %.4g kJ per step (system)", r->energy_per_step_j / 1e3);
    if (isfinite(r->energy_to_train_j))
        print_ranged(rpt_fmt_energy, r->energy_to_train_j, r, ranged, ", ", " to train");
    if (isfinite(r->cost_usd))
        print_ranged(rpt_fmt_money, r->cost_usd, r, ranged, ", ", " at list price");
    printf("\n");
    printf("memory per device (most loaded)\n");
    print_size("weights", r->mem_weights_bytes);
    print_size("gradients", r->mem_grads_bytes);
    print_size("optimizer state", r->mem_optimizer_bytes);
    print_size("activations", r->mem_activations_bytes);
    print_size("runtime reserve", r->mem_workspace_bytes);
    print_size("total", r->mem_total_bytes);
    print_size("capacity", r->mem_capacity_bytes);
    if (r->mem_host_bytes > 0) {
        print_size("offloaded to host", r->mem_host_bytes);
        if (r->mem_host_capacity_bytes > 0)
            print_size("host share", r->mem_host_capacity_bytes);
    }
    if (rr->ntop > 0)
        print_top(rr);
}

void rpt_print_columns(const ParamTable *t)
{
    int col = 0;
    const char *lead = "Keys and columns: ";
    fputs(lead, stdout);
    col = (int)strlen(lead);
    for (size_t i = 0; i < t->count; i++) {
        const ParamDef *def = &t->defs[i];
        char item[200];
        size_t l = (size_t)snprintf(item, sizeof item, "%s", def->key);
        if (def->type == P_ENUM) {
            for (int k = 0; def->choices[k] && l < sizeof item; k++)
                l += (size_t)snprintf(item + l, sizeof item - l, "%s%s", k ? "|" : " (", def->choices[k]);
            if (l < sizeof item)
                snprintf(item + l, sizeof item - l, "%s)", def->auto_ok ? "|auto" : "");
        } else if (def->type == P_BOOL) {
            snprintf(item + l, sizeof item - l, " (yes|no%s)", def->auto_ok ? "|auto" : "");
        } else if (def->auto_ok) {
            snprintf(item + l, sizeof item - l, " (auto)");
        }
        const int w = (int)strlen(item) + 1; /* with its comma */
        if (col + 1 + w > 78) {
            fputs("\n", stdout);
            col = 0;
        } else if (i > 0) {
            fputs(" ", stdout);
            col++;
        }
        printf("%s,", item);
        col += w;
    }
    fputs("\n", stdout);
}

void rpt_command_line(int argc, char **argv, char *out, size_t n)
{
    size_t len = (size_t)snprintf(out, n, "deepflow");
    for (int i = 0; i < argc && len + 1 < n; i++) {
        const char *a = argv[i];
        int plain = *a != '\0';
        for (const char *p = a; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%", *p))
                plain = 0;
        out[len++] = ' ';
        if (plain) {
            len += (size_t)snprintf(out + len, n - len, "%s", a);
        } else {
            out[len++] = '\'';
            for (const char *p = a; *p && len + 5 < n; p++) {
                if (*p == '\'') {
                    memcpy(out + len, "'\\''", 4);
                    len += 4;
                } else {
                    out[len++] = *p;
                }
            }
            if (len + 1 < n)
                out[len++] = '\'';
        }
        if (len >= n)
            len = n - 1;
        out[len] = '\0';
    }
}

/* An op's shape: a GEMM's batch x m x n x k, a memory-bound op's bytes, a
 * collective's message. */
static void op_shape(const OpCost *o, char *b, size_t n)
{
    char u[64];
    if (!strcmp(o->kind, "gemm")) {
        if (o->batch > 1)
            snprintf(b, n, "%lld x %lldx%lldx%lld", (long long)o->batch, (long long)o->m, (long long)o->n,
                     (long long)o->k);
        else
            snprintf(b, n, "%lldx%lldx%lld", (long long)o->m, (long long)o->n, (long long)o->k);
        return;
    }
    unit_format(o->bytes, UNIT_BYTES, u, sizeof u);
    snprintf(b, n, "%s", u);
}

void rpt_print_ops(const OpTrace *t)
{
    printf("ops          one microbatch, as costed: device and host time over the op's runs, before any "
           "overlap hides a collective (GEMM shape m x n x k)\n");
    for (int l = 0; l < t->nlisted; l++) {
        const char *list = t->listed[l];
        double dev = 0, host = 0;
        for (int i = 0; i < t->n; i++)
            if (t->op[i].list == list) {
                dev += t->op[i].device_s;
                host += t->op[i].host_s;
            }
        if (dev <= 0 && host <= 0)
            continue;
        char d[64], h[64];
        unit_format(dev, UNIT_TIME, d, sizeof d);
        unit_format(host, UNIT_TIME, h, sizeof h);
        printf("  %s: device %s, host %s\n", list, d, h);
        printf("    %-26s %5s  %-22s %10s %10s %6s  %s\n", "op", "runs", "shape", "device", "host", "share",
               "bound");
        for (int i = 0; i < t->n; i++) {
            const OpCost *o = &t->op[i];
            if (o->list != list)
                continue;
            char shape[96];
            op_shape(o, shape, sizeof shape);
            unit_format(o->device_s, UNIT_TIME, d, sizeof d);
            unit_format(o->host_s, UNIT_TIME, h, sizeof h);
            printf("    %-26s %5d  %-22s %10s %10s %5.1f%%  %s\n", o->name, o->runs, shape, d, h,
                   dev > 0 ? 100.0 * o->device_s / dev : 0.0, o->bound);
        }
    }
}

void rpt_ops_csv(FILE *f, const OpTrace *t)
{
    fputs("list,op,kind,component,runs,batch,m,n,k,bytes,flops,device_s,host_s,bound\n", f);
    for (int i = 0; i < t->n; i++) {
        const OpCost *o = &t->op[i];
        fprintf(f, "%s,%s,%s,%s,%d,%lld,%lld,%lld,%lld,%.9g,%.9g,%.9g,%.9g,%s\n", o->list, o->name, o->kind,
                component_name(o->comp), o->runs, (long long)o->batch, (long long)o->m, (long long)o->n,
                (long long)o->k, o->bytes, o->flops, o->device_s, o->host_s, o->bound);
    }
}
