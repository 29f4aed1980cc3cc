/* scale/scale.h — how many optimizer steps the training takes, and so the
 * time to train: from a token budget, a sample budget or an epoch count
 * (the scenario's, else the model's), or from the model's convergence
 * curve at the global batch.  Pure. */
#ifndef DF_SCALE_H
#define DF_SCALE_H

#include <stddef.h>

#include "core/types.h"

/* Steps to train sc at its global batch (and the epochs they make, NaN
 * when unknown).  Returns 0, or -1 with why[] saying what is missing. */
int scale_steps(const Scenario *sc, double *steps, double *epochs, char *why, size_t n);

/* The same with the convergence curve's batch axis scaled: a critical
 * batch bscale x the template's (the curve evaluated at B / bscale).  The
 * reports' sensitivity uses 1/SCALE_SENSITIVITY and SCALE_SENSITIVITY, a
 * convention (the published critical batches of one task differ by about
 * that much: McCandlish et al. 2018, Shallue et al. 2018), not a fit. */
#define SCALE_SENSITIVITY 2.0
int scale_steps_scaled(const Scenario *sc, double bscale, double *steps, double *epochs, char *why, size_t n);

/* Whether the steps of a scenario rest on its convergence curve inside the
 * global batches the curve's source measured (0), outside them (1), or on
 * no curve at all (-1: an explicit amount of training). */
int scale_extrapolated(const Scenario *sc);

/* Epochs to the target at global batch b (in the curve's unit). */
double scale_epochs_at(const Convergence *c, double b);

#endif
