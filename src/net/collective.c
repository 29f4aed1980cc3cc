/* net/collective.c — ring collectives with the alpha-beta model.
 *   all-reduce (ring):      2(p-1) steps, 2(p-1)/p * S on the wire
 *   reduce-scatter/gather:  (p-1) steps,   (p-1)/p * S
 *   all-to-all:             (p-1) steps,   (p-1)/p * S
 *   point-to-point:         1 step,        S
 * (Thakur et al., "Optimization of Collective Communication Operations in
 * MPICH", IJHPCA 2005; Patarasuk & Yuan, JPDC 2009.)  Bandwidth is per
 * device per direction times the tier's achievable efficiency. */
#include "net.h"

void net_collective(const Network *net, Collective c, double bytes, int p, CollCost *out)
{
    out->time_s = 0;
    out->wire_bytes = 0;
    out->steps = 0;
    if (bytes <= 0 || (p <= 1 && c != COLL_P2P))
        return;
    double frac;
    switch (c) {
    case COLL_ALLREDUCE:
        out->steps = 2 * (p - 1);
        frac = 2.0 * (p - 1) / p;
        break;
    case COLL_P2P:
        out->steps = 1;
        frac = 1.0;
        break;
    case COLL_REDUCESCATTER:
    case COLL_ALLGATHER:
    case COLL_ALLTOALL:
    default:
        out->steps = p - 1;
        frac = (double)(p - 1) / p;
        break;
    }
    out->wire_bytes = frac * bytes;
    out->time_s = out->steps * net->latency_s + out->wire_bytes / (net->bw_bytes_per_s * net->efficiency);
}
