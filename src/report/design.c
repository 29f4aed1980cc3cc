/* report/design.c — what the co-design search changed, for design.csv and
 * the workbook's Design sheet: each budget share of the derived device at
 * the template's split and at the split found, the device figures that
 * follow from each (derived by the evaluation: Result.design_device), and
 * the time and energy to train. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"

static void add(RptDesignRow *v, int *n, int max, const char *q, const char *unit, double a, double b)
{
    if (*n >= max)
        return;
    RptDesignRow *d = &v[(*n)++];
    snprintf(d->quantity, sizeof d->quantity, "%s", q);
    snprintf(d->unit, sizeof d->unit, "%s", unit);
    d->start = a;
    d->best = b;
}

int rpt_design_rows(const RunRow *rr, RptDesignRow *v, int max)
{
    if (!rr->built || rr->r.status == STATUS_ERROR || rr->r.design_evals <= 0 ||
        !(rr->r.design_device[0].clock_hz > 0 && rr->r.design_device[1].clock_hz > 0))
        return 0; /* no co-design, or the evaluation could not derive its devices */
    const Budget *b0 = &rr->sc.system.device.derive.budget, *b1 = &rr->r.design_budget;
    int n = 0;
    char q[48];
    static const char *const what[3] = {"area", "power", "perimeter"};
    for (int k = 0; k < 3; k++) {
        const double *f0 = k == 0 ? b0->area : k == 1 ? b0->power : b0->perimeter;
        const double *f1 = k == 0 ? b1->area : k == 1 ? b1->power : b1->perimeter;
        for (int p = 0; p < TP_COUNT; p++)
            if (f0[p] > 0 || f1[p] > 0) {
                snprintf(q, sizeof q, "%s.%s", what[k], tech_part_name((TechPart)p));
                add(v, &n, max, q, "share", f0[p], f1[p]);
            }
    }
    const DeviceFigures *a = &rr->r.design_device[0], *b = &rr->r.design_device[1];
    add(v, &n, max, "matrix peak", "TFLOP/s", a->matrix_flops / 1e12, b->matrix_flops / 1e12);
    add(v, &n, max, "clock", "GHz", a->clock_hz / 1e9, b->clock_hz / 1e9);
    add(v, &n, max, "SMs", "", a->sms, b->sms);
    add(v, &n, max, "L2 capacity", "MiB", a->l2_bytes / 1048576.0, b->l2_bytes / 1048576.0);
    add(v, &n, max, "L2 bandwidth", "TB/s", a->l2_bytes_s / 1e12, b->l2_bytes_s / 1e12);
    add(v, &n, max, "HBM capacity", "GiB", a->hbm_bytes / GIB_BYTES, b->hbm_bytes / GIB_BYTES);
    add(v, &n, max, "HBM bandwidth", "TB/s", a->hbm_bytes_s / 1e12, b->hbm_bytes_s / 1e12);
    add(v, &n, max, "idle power", "W", a->idle_w, b->idle_w);
    const Result *r = &rr->r;
    const double start_days = rr->r.design_start_s / 86400.0;
    if (isfinite(r->time_to_train_s)) {
        add(v, &n, max, "time to train", "days", start_days, r->time_to_train_s / 86400.0);
        add(v, &n, max, "energy to train", "MWh", r->design_start_energy_j / 3.6e9,
            r->energy_to_train_j / 3.6e9);
    } else {
        add(v, &n, max, "time per sample", "s", r->design_start_s, 1.0 / r->samples_per_s);
        add(v, &n, max, "energy per step", "MJ", r->design_start_energy_j / 1e6, r->energy_per_step_j / 1e6);
    }
    return n;
}

void rpt_design_row(FILE *f, const RunRow *rr)
{
    if (!rr) {
        fputs("scenario,quantity,unit,template_split,codesigned\n", f);
        return;
    }
    RptDesignRow v[RPT_DESIGN_MAX];
    char x[64], y[64];
    const int k = rpt_design_rows(rr, v, RPT_DESIGN_MAX);
    for (int j = 0; j < k; j++) {
        rpt_number(x, sizeof x, v[j].start);
        rpt_number(y, sizeof y, v[j].best);
        rpt_csv_text(f, rr->sc.name);
        fprintf(f, ",%s,%s,%s,%s\n", v[j].quantity, v[j].unit, x, y);
    }
}

int rpt_design_csv(const Run *run, const char *path, char *err, size_t n)
{
    return rpt_rows_csv(run, rpt_design_row, path, err, n);
}
