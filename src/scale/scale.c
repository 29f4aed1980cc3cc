/* scale/scale.c — steps to train.  tokens / (global_batch * seq_len), or
 * samples / global_batch, or epochs * dataset / global_batch, rounded up
 * to whole steps. */
#include "scale.h"

#include <math.h>
#include <stdio.h>

int scale_steps(const Scenario *sc, double *steps, char *why, size_t n)
{
    const double gb = (double)sc->global_batch;
    double samples = 0;
    if (sc->train_tokens > 0) {
        if (sc->model.kind != MODEL_TRANSFORMER || sc->model.seq_len < 1) {
            snprintf(why, n, "train_tokens needs a model with a sequence length");
            return -1;
        }
        samples = sc->train_tokens / sc->model.seq_len;
    } else if (sc->train_samples > 0) {
        samples = sc->train_samples;
    } else if (sc->epochs > 0) {
        if (sc->model.dataset_samples <= 0) {
            snprintf(why, n, "epochs needs the model's dataset_samples");
            return -1;
        }
        samples = sc->epochs * sc->model.dataset_samples;
    } else {
        snprintf(why, n, "no amount of training given (train_tokens, train_samples or epochs)");
        return -1;
    }
    *steps = ceil(samples / gb);
    return 0;
}
