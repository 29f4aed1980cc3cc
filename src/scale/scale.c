/* scale/scale.c — steps to train (DESIGN.md §6.8).
 *
 * An explicit amount wins: train_tokens / (global_batch * seq_len),
 * train_samples / global_batch, or epochs * dataset / global_batch.  Else
 * the model's convergence curve says how many epochs (or steps) the target
 * takes at this global batch B, so that a larger batch costs more epochs
 * (Pal et al., IEEE Micro 2019; McCandlish et al. 2018):
 *   critical_batch, steps form:   steps(B)  = s_min (1 + b_noise / B)
 *   critical_batch, epochs form:  epochs(B) = epochs_min (1 + B / b_crit)
 *   table: measured (B, epochs) points, interpolated linearly in
 *          log B - log epochs; outside them, the critical-batch law with
 *          the curve's fitted b_crit anchored at the nearest point, else
 *          along the end segments.
 * B is counted in samples, or in tokens (B x seq_len) when the curve says
 * so.  Steps are rounded up to whole steps. */
#include "scale.h"

#include <math.h>
#include <stdio.h>

double scale_epochs_at(const Convergence *c, double b)
{
    if (c->kind == CONV_CRITICAL) {
        if (c->epochs_min > 0 && c->b_crit > 0)
            return c->epochs_min * (1.0 + b / c->b_crit);
        return NAN; /* steps form: epochs depend on the dataset; see scale_steps */
    }
    if (c->table.n < 2)
        return NAN;
    /* outside the measured points, the critical-batch law fitted to them
     * (when the curve gives b_crit), anchored at the nearest point: the
     * last segment of a table says little about much larger batches */
    const int last = c->table.n - 1;
    if (c->b_crit > 0 && b > c->table.x[last])
        return c->table.y[last] * (1.0 + b / c->b_crit) / (1.0 + c->table.x[last] / c->b_crit);
    if (c->b_crit > 0 && b < c->table.x[0])
        return c->table.y[0] * (1.0 + b / c->b_crit) / (1.0 + c->table.x[0] / c->b_crit);
    int i = 0;
    while (i < c->table.n - 2 && b > c->table.x[i + 1])
        i++;
    const double x0 = log(c->table.x[i]), x1 = log(c->table.x[i + 1]);
    const double y0 = log(c->table.y[i]), y1 = log(c->table.y[i + 1]);
    const double t = (log(b) - x0) / (x1 - x0);
    return exp(y0 + t * (y1 - y0));
}

int scale_extrapolated(const Scenario *sc)
{
    const Model *m = &sc->model;
    if (sc->train_tokens > 0 || sc->train_samples > 0 || sc->epochs > 0 || !m->convergence.name[0])
        return -1;
    const Convergence *c = &m->convergence;
    double lo = c->measured_min, hi = c->measured_max;
    if (!(lo > 0) && c->table.n >= 1)
        lo = c->table.x[0];
    if (!(hi > 0) && c->table.n >= 1)
        hi = c->table.x[c->table.n - 1];
    if (!(lo > 0 && hi > 0))
        return 1; /* nothing says where the curve was measured */
    double b = (double)sc->st.global_batch * (c->unit == BATCH_TOKENS ? m->seq_len : 1);
    return b < lo * (1 - 1e-9) || b > hi * (1 + 1e-9);
}

int scale_steps(const Scenario *sc, double *steps, double *epochs, char *why, size_t n)
{
    return scale_steps_scaled(sc, 1.0, steps, epochs, why, n);
}

void scale_band(const Convergence *c, double *lo, double *hi)
{
    const double b = c->b_crit > 0 ? c->b_crit : c->b_noise;
    *lo = b > 0 && c->band_lo > 0 ? c->band_lo / b : 1.0 / SCALE_SENSITIVITY;
    *hi = b > 0 && c->band_hi > 0 ? c->band_hi / b : SCALE_SENSITIVITY;
}

int scale_steps_scaled(const Scenario *sc, double bscale, double *steps, double *epochs, char *why, size_t n)
{
    const double gb = (double)sc->st.global_batch;
    const Model *m = &sc->model;
    double samples = 0;
    *epochs = NAN;
    if (gb <= 0) {
        snprintf(why, n, "no global batch");
        return -1;
    }
    if (sc->train_tokens > 0) {
        if (m->kind != MODEL_TRANSFORMER || m->seq_len < 1) {
            snprintf(why, n, "train_tokens needs a model with a sequence length");
            return -1;
        }
        samples = sc->train_tokens / m->seq_len;
    } else if (sc->train_samples > 0) {
        samples = sc->train_samples;
    } else if (sc->epochs > 0) {
        if (m->dataset_samples <= 0) {
            snprintf(why, n, "epochs needs the model's dataset_samples");
            return -1;
        }
        samples = sc->epochs * m->dataset_samples;
        *epochs = sc->epochs;
    } else if (m->convergence.name[0]) {
        const Convergence *c = &m->convergence;
        /* a curve whose critical batch is bscale x larger reads as the
         * same curve at the batch B / bscale */
        double b = gb / (bscale > 0 ? bscale : 1.0);
        if (c->unit == BATCH_TOKENS) {
            if (m->seq_len < 1) {
                snprintf(why, n, "convergence '%s' counts tokens but the model has no sequence length",
                         c->name);
                return -1;
            }
            b *= m->seq_len;
        }
        if (c->kind == CONV_CRITICAL && c->s_min > 0 && c->b_noise > 0) {
            *steps = ceil(c->s_min * (1.0 + c->b_noise / b));
            if (m->dataset_samples > 0)
                *epochs = *steps * gb / m->dataset_samples;
            return 0;
        }
        if (m->dataset_samples <= 0) {
            snprintf(why, n, "convergence '%s' gives epochs but the model has no dataset_samples", c->name);
            return -1;
        }
        *epochs = scale_epochs_at(c, b);
        samples = *epochs * m->dataset_samples;
    } else {
        snprintf(why, n,
                 "no amount of training (train_tokens, train_samples, epochs) and no convergence curve");
        return -1;
    }
    *steps = ceil(samples / gb);
    return 0;
}
