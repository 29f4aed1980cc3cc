/* net/net.h — collectives over the networks of a system.  A group of p
 * ranks is placed on nodes of D devices (net_group); its collectives run on
 * the intra-node tier when it fits in a node, else on both tiers, sharing
 * the node's scale-out ports with the other groups that communicate at the
 * same time (contention); a group that spans pods (System.nodes_per_pod)
 * crosses the data-centre tier between them, which paces its scale-out
 * steps where it is the slower one.  Each collective is costed with the alpha-beta
 * model t = steps * latency + bytes_on_wire / (bandwidth * efficiency)
 * for ring, tree and hierarchical algorithms, and the cheapest is taken,
 * as NCCL's tuner does for the message size.  Seconds, bytes.  Pure. */
#ifndef DF_NET_H
#define DF_NET_H

#include "core/types.h"
#include "graph/graph.h"

typedef enum { ALGO_NONE, ALGO_RING, ALGO_TREE, ALGO_HIER, ALGO_DIRECT, ALGO_COUNT } Algorithm;

typedef struct {
    int p;        /* ranks in the group */
    int per_node; /* of them in one node */
    int nodes;    /* nodes the group spans */
    int sharing;  /* groups of this kind communicating at once in one node */
    int pods;     /* pods the group spans (1: its nodes share one scale-out fabric) */
} Group;

typedef struct {
    double time_s;
    double intra_bytes; /* bytes each device sends on the intra-node tier */
    double inter_bytes; /* bytes each device sends on the scale-out tier */
    Algorithm algo;
    const char *tier; /* "none", "intra", "inter", "pod" */
} CollCost;

/* How a mixture of experts routes a token: topk copies of it to experts
 * of `experts` laid out in order over the expert-parallel ranks; with
 * groups > 1 the experts fall in that many groups of consecutive experts
 * and a token's come from per_token of them (0: any), each group chosen
 * alike and each expert of the chosen groups alike. */
typedef struct {
    int experts;
    int topk;
    int groups;
    int per_token;
} TokenRoute;

/* Of the topk copies of a token, the expected number of the m
 * destinations (nodes or ranks, each holding experts / m consecutive
 * experts) they reach, over topk: the share of a token-per-copy buffer
 * that moves when each destination gets a token once.  1 without copies. */
double net_token_share(double m, const TokenRoute *rt);

/* An all-to-all of tokens, rt->topk copies of each in bytes (a mixture of
 * experts' top-k), as DeepEP sends them: across nodes a token goes once to
 * each node that holds one of its destinations (net_token_share).
 * Otherwise as net_collective's all-to-all. */
void net_alltoall_tokens(const System *sys, const Group *g, double bytes, const TokenRoute *rt,
                         CollCost *out);

/* Place a group of p ranks whose members are `stride` ranks apart (tensor
 * groups stride 1, data stride tp, pipeline stride tp*dp) on nodes of
 * sys->devices_per_node consecutive ranks. */
void net_group(const System *sys, int p, long stride, Group *g);

/* Collective c over group g, bytes = the full buffer per rank (NCCL's
 * "size"; for point-to-point the message).  p = 1 costs nothing. */
void net_collective(const System *sys, const Group *g, Collective c, double bytes, CollCost *out);

/* A wire-level link's figures from its wires (Network.wire_*): wires per
 * mm of edge = layers x 1000 / pitch (both directions together, the
 * links_per_mm convention); bandwidth per direction = edge x wires/mm x
 * rate / 2; energy per bit = I/O energy + half the wire's charge C V^2
 * (C = capacitance per mm x reach; a bit toggles the wire half the time).
 * A link of a given density (links_per_mm, no wires: PCB SerDes lanes,
 * interposer lanes) on a stated die edge (edge_mm) gets its bandwidth from
 * them the same way, its energy per bit as stated; so every technology of
 * a study is given the same edge.  Nothing changes when neither is given,
 * nor for links the micro-architecture generator derives (from_device). */
void net_wire_derive(Network *n);

/* Bandwidth per device, per direction, that a group of p ranks gets on a
 * tier: the device's on a switch, group_links x link_bandwidth on a
 * switchless mesh (DGX-1's cube-mesh). */
double net_group_bw(const Network *net, int p);

/* Collective on one tier alone (no placement): the building block. */
double net_tier_time(const Network *net, Collective c, double bytes, int p, Algorithm algo, double bw_scale);

const char *algorithm_name(Algorithm a);

#endif
