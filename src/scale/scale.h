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

/* The factors on the critical batch that the sensitivity uses: the
 * curve's stated band (b_crit_low, b_crit_high) over its critical batch,
 * else 1/SCALE_SENSITIVITY and SCALE_SENSITIVITY. */
void scale_band(const Convergence *c, double *lo, double *hi);

/* Whether the steps of a scenario rest on its convergence curve inside the
 * global batches the curve's source measured (0), outside them (1), or on
 * no curve at all (-1: an explicit amount of training). */
int scale_extrapolated(const Scenario *sc);

/* Epochs to the target at global batch b (in the curve's unit). */
double scale_epochs_at(const Convergence *c, double b);

/* ---- goodput: the time lost to failures (goodput.c) ------------------ */

/* Daly's optimum compute time between checkpoints (s) for a checkpoint of
 * delta seconds and a mean time to interruption of mtti seconds: M when
 * delta >= 2M; NaN when either is not positive. */
double scale_daly_interval(double delta_s, double mtti_s);

/* Daly's expected wall-clock time of work_s seconds of work, checkpointed
 * every tau_s (delta_s each), restarting in restart_s after each
 * interruption; NaN for arguments out of range. */
double scale_wall_time(double work_s, double tau_s, double delta_s, double restart_s, double mtti_s);

/* Bytes of one checkpoint of a model of `params` parameters trained in
 * sc's precision with Adam: weights and optimizer state. */
double scale_checkpoint_bytes(const Scenario *sc, double params);

/* The time to train with failures of work_s seconds of training: 0 with g
 * filled (goodput 0 and wall_s infinite when interruptions come faster
 * than the job can checkpoint), or -1 with g's figures NaN when the system
 * states no failure rate or checkpoint bandwidth. */
int scale_goodput(const Scenario *sc, double work_s, double params, Goodput *g);

#endif
