/* scale/scale.h — how many optimizer steps the training takes, and so the
 * time to train: from a token budget, a sample budget or an epoch count
 * (the scenario's, else the model's).  Pure. */
#ifndef DF_SCALE_H
#define DF_SCALE_H

#include <stddef.h>

#include "core/types.h"

/* Steps to train sc at its global batch.  Returns 0 and sets *steps, or -1
 * with why[] saying what is missing. */
int scale_steps(const Scenario *sc, double *steps, char *why, size_t n);

#endif
