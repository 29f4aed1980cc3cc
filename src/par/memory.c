/* par/memory.c — memory of the most loaded device (see parts.h): model
 * state under ZeRO (Rajbhandari et al., SC'20), activations at the
 * schedule's peak (Korthikanti et al., MLSys'23). */
#include "parts.h"

StateBytes mem_state(double p, int dp, int zero, double weight_bytes, double grad_bytes, double optim_bytes)
{
    StateBytes s;
    s.weights = p * weight_bytes / (zero >= 3 ? dp : 1);
    s.grads = p * grad_bytes / (zero >= 2 ? dp : 1);
    s.optimizer = p * optim_bytes / (zero >= 1 ? dp : 1);
    return s;
}

double mem_activations(int pp, double per_layer, double layers, double first, double last,
                       double microbatches, double interleave, double work)
{
    if (pp == 1)
        return per_layer * layers + first + last + work;
    const double a_first = per_layer * layers * microbatches * interleave + first * microbatches + work;
    const double a_last = per_layer * layers + last + work;
    return a_first > a_last ? a_first : a_last;
}
