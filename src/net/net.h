/* net/net.h — time and bits on the wire of one collective on one network
 * tier, with the alpha-beta cost t = steps * latency + wire_bytes /
 * (bandwidth * efficiency) (Thakur, Rabenseifner, Gropp 2005; Patarasuk &
 * Yuan 2009 for the ring's 2(p-1)/p).  Seconds, bytes.  Pure. */
#ifndef DF_NET_H
#define DF_NET_H

#include "core/types.h"
#include "graph/graph.h"

typedef struct {
    double time_s;
    double wire_bytes;  /* bytes each device sends */
    int steps;          /* latency terms */
} CollCost;

/* Collective `c` over p devices on tier `net`; bytes is the full buffer
 * per device (as NCCL's "size").  p = 1 costs nothing. */
void net_collective(const Network *net, Collective c, double bytes, int p, CollCost *out);

#endif
