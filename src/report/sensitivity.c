/* report/sensitivity.c — which knob matters: each model's answer (the
 * study's fastest where no model has one), its knobs varied by
 * batch/sensitivity.c, and sensitivity.csv. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rpt_sensitivity(const Run *run, RptTornados *out)
{
    memset(out, 0, sizeof *out);
    int recs[RPT_MODELS_MAX], q[RPT_MODELS_MAX], rep[RPT_MODELS_MAX];
    const int nrec = rpt_recommended(run, recs, RPT_MODELS_MAX);
    if (nrec > 0) {
        const int nq = rpt_questions(run, recs, nrec, q, rep, RPT_MODELS_MAX);
        for (int k = 0; k < nrec; k++) {
            if (out->n == RPT_TORNADO_MAX) {
                out->more++;
                continue;
            }
            Sensitivity *s = &out->s[out->n];
            if (run_sensitivity(run, recs[k], s) != 0)
                continue;
            s->recommended = 1;
            rpt_question_labels(run, rep, nq, q[k], out->question[out->n], sizeof out->question[0]);
            out->n++;
        }
        return out->n > 0 ? 0 : -1;
    }
    int row = -1;
    for (int i = 0; i < run->n; i++) {
        const RunRow *rr = &run->row[i];
        if (rr->built && rr->r.status == STATUS_OK && (row < 0 || rpt_better(rr, i, &run->row[row], row)))
            row = i;
    }
    if (row < 0 || run_sensitivity(run, row, &out->s[0]) != 0)
        return -1;
    rpt_question_label(&run->row[row].sc, 0, out->question[0], sizeof out->question[0]);
    out->n = 1;
    return 0;
}

typedef struct {
    const Run *run;
    const RptTornados *t;
} SensCsv;

static void sensitivity_body(FILE *f, const void *ctx)
{
    const SensCsv *c = ctx;
    int per_sample = 0; /* the tornados' times: 1 per sample, 2 to train, 3 both (one of each) */
    for (int t = 0; t < c->t->n; t++)
        per_sample |= c->t->s[t].per_sample ? 1 : 2;
    const char *what = per_sample == 1 ? "time_per_sample" : per_sample == 2 ? "time_to_train" : "time";
    fprintf(f,
            "scenario,parameter,%s_change_minus10,%s_change_plus10,energy_change_minus10,"
            "energy_change_plus10,status_minus10,status_plus10\n",
            what, what);
    char v[4][64];
    for (int t = 0; t < c->t->n; t++) {
        const Sensitivity *s = &c->t->s[t];
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
}

int rpt_sensitivity_csv(const Run *run, const RptTornados *t, const char *path, char *err, size_t n)
{
    const SensCsv c = {run, t};
    return rpt_write_atomic(path, sensitivity_body, &c, err, n);
}

/* clock_front.csv: each tornado's scenario at lower power caps, its time
 * and energy at one clock and with the clock plan (issue 31). */
static void front_body(FILE *f, const void *ctx)
{
    const SensCsv *c = ctx;
    fputs("scenario,measure,power_cap_w,clock,time_s,energy_kwh,energy_kwh_plan\n", f);
    char v[6][64];
    for (int t = 0; t < c->t->n; t++) {
        const Sensitivity *s = &c->t->s[t];
        for (int k = 0; k < s->nfront; k++) {
            const ClockPoint *p = &s->front[k];
            rpt_number(v[0], sizeof v[0], p->cap_w);
            rpt_number(v[1], sizeof v[1], p->clock);
            rpt_number(v[2], sizeof v[2], p->time);
            rpt_number(v[3], sizeof v[3], p->energy / 3.6e6);
            rpt_number(v[4], sizeof v[4], p->energy_plan / 3.6e6);
            rpt_csv_text(f, c->run->row[s->row].sc.name);
            fprintf(f, ",%s,%s,%s,%s,%s,%s\n", s->per_sample ? "per sample (energy per step)" : "to train",
                    v[0], v[1], v[2], v[3], v[4]);
        }
    }
}

int rpt_fronts(const RptTornados *t)
{
    int n = 0;
    for (int k = 0; t && k < t->n; k++)
        n += t->s[k].nfront > 0;
    return n;
}

int rpt_clock_front_csv(const Run *run, const RptTornados *t, const char *path, char *err, size_t n)
{
    const SensCsv c = {run, t};
    return rpt_write_atomic(path, front_body, &c, err, n);
}
