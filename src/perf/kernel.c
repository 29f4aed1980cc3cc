/* perf/kernel.c — time of a memory-bound kernel on one device (elementwise,
 * softmax, norms, dropout, optimizer; DESIGN §6.1): bytes over the
 * achievable HBM bandwidth, FLOPs on the vector units, the larger of the two
 * plus the launch overhead (a two-term roofline); and the names of the
 * bounds.  Seconds, bytes, FLOP. */
#include "perf.h"

#include <math.h>

double membound_time(const Device *dev, double bytes, double flops)
{
    double t_mem = 0.0;
    double t_vec = 0.0;
    if (bytes > 0.0) {
        double bw = dev->mem[MEM_HBM].bw_bytes_per_s * dev->hbm_eff; /* STREAM-like fraction */
        t_mem = bw > 0.0 ? bytes / bw : INFINITY;
    }
    if (flops > 0.0) {
        double rate = dev->vector_flops * dev->vector_eff;
        t_vec = rate > 0.0 ? flops / rate : INFINITY;
    }
    return (t_mem > t_vec ? t_mem : t_vec) + dev->launch_s;
}

const char *bound_name(Bound b)
{
    static const char *const names[BOUND_COUNT] = {
        [BOUND_COMPUTE] = "compute", [BOUND_L1] = "L1",         [BOUND_L2] = "L2",
        [BOUND_HBM] = "HBM",         [BOUND_LAUNCH] = "launch",
    };
    if ((int)b < 0 || b >= BOUND_COUNT)
        return "?";
    return names[b];
}
