/* par/schedule.c — the pipeline schedules (see parts.h): Megatron-LM's
 * 1F1B with interleaved chunks (Narayanan et al., SC'21), zero bubble (Qi
 * et al., ICLR 2024) and DualPipe (DeepSeek-V3 report, 2024). */
#include "parts.h"

#include <math.h>

int sched_stage_layers(int layers, int pp, int v)
{
    const int per_chunk = (layers + pp * v - 1) / (pp * v); /* integer ceiling */
    return per_chunk * v;
}

void sched_split(int layers, int mtp, int pp, int v, PpSplit s, double *first, double *middle, double *last)
{
    if (s != SPLIT_ENDS || pp < 2) {
        *first = *middle = *last = sched_stage_layers(layers, pp, v);
        return;
    }
    *middle = sched_stage_layers(layers + 2 + mtp, pp, v);
    *first = *middle - 1;
    *last = fmax(0.0, *middle - 1 - mtp);
}

double sched_bubble(int pp, int v, double t_stage, int wave, int serial_first)
{
    if (wave < 1)
        wave = 1;
    if (serial_first && wave > 1 && pp > 1)
        return (1.0 + (double)(pp - 2) / wave) / v * t_stage;
    return (double)(pp - 1) / v * t_stage / wave;
}

double sched_bubble_split(PpSchedule s, int pp, double t_stage, double t_b, double t_w, double t_fb)
{
    if (pp < 2)
        return 0.0;
    if (s == SCHED_DUALPIPE)
        return fmax(0.0, (pp / 2.0 - 1.0) * (t_fb + t_b - 3.0 * t_w));
    return fmax(0.0, (pp - 1.0) * (t_stage - 2.0 * t_w));
}

double sched_inflight_dualpipe(long m, int pp)
{
    return fmin((double)m, pp + 1.0);
}

void sched_inflight(long m, int pp, int v, double *microbatches, double *interleave)
{
    const double inflight = (double)(m < pp ? m : pp);
    double ileave = 1.0;
    if (v > 1) {
        const double chunks = fmin((double)m * v, (double)v * pp + pp - 1);
        ileave = chunks / ((double)v * inflight);
    }
    *microbatches = inflight;
    *interleave = ileave;
}

double sched_p2p_sends(long m, int pp, int v, int units)
{
    return 2.0 * ((double)v * m + pp - 1) * units;
}
