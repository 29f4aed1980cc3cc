/* batch/sensitivity.h — which knob matters: the change of a scenario's time
 * and energy to train (or per sample) when each main hardware and stack
 * parameter is 10 % lower and 10 % higher, one at a time, for the report's
 * tornado table and chart. */
#ifndef DF_SENSITIVITY_H
#define DF_SENSITIVITY_H

#include "batch/run.h"

#define SENS_MAX  16
#define SENS_STEP 0.10 /* each knob 10 % down and up */

typedef struct {
    char name[48];
    double time[2], energy[2]; /* relative change at -10 % and +10 % (NaN: not ok) */
    Status status[2];
} SensKnob;

/* One point of the clock plans' front (issue 31): the scenario at a
 * lower device power cap (DVFS lowers the clock to meet it), its time and
 * energy at one clock for every stage, and with the clock plan. */
#define SENS_FRONT 8
typedef struct {
    double cap_w, clock;              /* the cap, and the clock it leaves (a fraction of nominal) */
    double time, energy, energy_plan; /* to train (or per sample / step, as the tornado) */
} ClockPoint;

typedef struct {
    int row;             /* the scenario varied, -1 none */
    int per_sample;      /* times are per sample (the row has no amount to train) */
    int recommended;     /* the row is the report's recommendation (else the fastest) */
    double time, energy; /* its time and energy to train (or per sample / step) */
    SensKnob k[SENS_MAX];
    int n;                        /* knobs, most time-sensitive first */
    ClockPoint front[SENS_FRONT]; /* the row, then capped by tenths below its power: run slower, save more */
    int nfront;                   /* 0: no front (it needs two points at least) */
} Sensitivity;

/* Vary each knob of run's row `row` (its co-designed split and resolved
 * strategy kept): 0, or -1 (out->row -1) when the row is out of range or
 * its re-evaluation fails. */
int run_sensitivity(const Run *run, int row, Sensitivity *out);

#endif
