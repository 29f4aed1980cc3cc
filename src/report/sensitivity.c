/* report/sensitivity.c — which knob matters: the recommended scenario (the
 * first model's; the study's fastest where nothing is recommended), its
 * knobs varied by batch/sensitivity.c, and sensitivity.csv. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rpt_sensitivity(const Run *run, Sensitivity *out)
{
    int row = -1;
    if (rpt_recommended(run, &row, 1) == 1) {
        const int rc = run_sensitivity(run, row, out);
        out->recommended = 1;
        return rc;
    }
    for (int i = 0; i < run->n; i++) {
        const RunRow *rr = &run->row[i];
        if (rr->built && rr->r.status == STATUS_OK && (row < 0 || rpt_better(rr, i, &run->row[row], row)))
            row = i;
    }
    return run_sensitivity(run, row, out);
}

typedef struct {
    const Run *run;
    const Sensitivity *s;
} SensCsv;

static void sensitivity_body(FILE *f, const void *ctx)
{
    const SensCsv *c = ctx;
    const Sensitivity *s = c->s;
    fprintf(f,
            "scenario,parameter,%s_change_minus10,%s_change_plus10,energy_change_minus10,"
            "energy_change_plus10,status_minus10,status_plus10\n",
            s->per_sample ? "time_per_sample" : "time_to_train",
            s->per_sample ? "time_per_sample" : "time_to_train");
    char v[4][64];
    for (int k = 0; k < s->n; k++) {
        const SensKnob *o = &s->k[k];
        rpt_number(v[0], sizeof v[0], o->time[0]);
        rpt_number(v[1], sizeof v[1], o->time[1]);
        rpt_number(v[2], sizeof v[2], o->energy[0]);
        rpt_number(v[3], sizeof v[3], o->energy[1]);
        rpt_csv_text(f, c->run->row[s->row].sc.name);
        fprintf(f, ",%s,%s,%s,%s,%s,%s,%s\n", o->name, v[0], v[1], v[2], v[3], status_name(o->status[0]),
                status_name(o->status[1]));
    }
}

int rpt_sensitivity_csv(const Run *run, const Sensitivity *s, const char *path, char *err, size_t n)
{
    const SensCsv c = {run, s};
    return rpt_write_atomic(path, sensitivity_body, &c, err, n);
}
