/* batch/evaluate.c — evaluate(): step model, then time-to-train.  Numbers
 * the model cannot compute stay NaN (written as empty cells), never 0. */
#include "evaluate.h"

#include <math.h>
#include <string.h>

#include "par/step.h"
#include "scale/scale.h"

int evaluate_cached(const Scenario *sc, GemmCache *cache, Result *r)
{
    memset(r, 0, sizeof *r);
    r->time_to_train_s = NAN;
    r->steps = NAN;
    r->scaling_efficiency = NAN;
    r->device_power_w = NAN;
    r->system_power_w = NAN;
    r->energy_per_step_j = NAN;
    r->energy_to_train_j = NAN;
    for (int i = 0; i < COMP_COUNT; i++)
        r->comp_energy_j[i] = NAN;
    if (step_evaluate(sc, cache, r))
        return -1;
    char why[128];
    double steps;
    if (scale_steps(sc, &steps, why, sizeof why) == 0) {
        r->steps = steps;
        r->time_to_train_s = steps * r->step_time_s;
    }
    return 0;
}
