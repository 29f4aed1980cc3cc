/* net/collective.c — collectives with the alpha-beta model on the
 * topologies of templates/networks.
 *
 * Ring (Patarasuk & Yuan, JPDC 2009; Thakur et al., IJHPCA 2005):
 *   all-reduce 2(p-1) steps and 2(p-1)/p * S on the wire per rank;
 *   reduce-scatter, all-gather (p-1) steps, (p-1)/p * S.
 * Tree (double binary tree, Sanders et al. 2009, as NCCL uses it): the
 *   same bytes per rank at full bandwidth for large S, 2 log2(p) latency
 *   steps for all-reduce, so it wins for small messages.
 * All-to-all: (p-1)/p * S through the bisection; on a switched fabric that
 *   is the device's own bandwidth, on a ring p/4 * S over 2 links per node,
 *   on a k-ary d-torus (Dally & Towles, "Principles and Practices of
 *   Interconnection Networks", ch. 3) the bisection has 2 p / k links.
 *   Across nodes every rank sends the share of S bound for the other
 *   nodes, (n-1)/n * S, through its own scale-out port (each of the g
 *   ranks in a node has one; no ring lets it borrow the others'), while
 *   the (g-1)/p * S for its node's ranks crosses the intra-node tier at
 *   the same time.
 * Point-to-point: 1 step (a torus/mesh: the average hop count), S.
 * Torus and mesh tiers run all-reduce as concurrent bidirectional rings in
 * every dimension, so they use all their links (a mesh, without wrap-around
 * links, half of them per direction).
 * Across nodes a group's ring crosses each node boundary through the
 * node's scale-out ports; g ranks of the group in one node can drive g
 * ports at once, while `sharing` groups split the node's ports: the
 * scale-out bandwidth of a group is g * (per-device port bandwidth), the
 * measured behaviour of NCCL on DGX nodes (8 x 25 GB/s HDR per node give a
 * 192 GB/s all-reduce bus bandwidth, NVIDIA/nccl#812). */
#include "net.h"

#include <math.h>

const char *algorithm_name(Algorithm a)
{
    static const char *const n[ALGO_COUNT] = {"none", "ring", "tree", "hierarchical", "direct"};
    return (unsigned)a < ALGO_COUNT ? n[a] : "?";
}

void net_group(const System *sys, int p, long stride, Group *g)
{
    const int d = sys->devices_per_node > 0 ? sys->devices_per_node : 1;
    g->p = p;
    if (stride < 1)
        stride = 1;
    if (stride >= d)
        g->per_node = 1;
    else {
        long fit = d / stride;
        g->per_node = (int)(p < fit ? p : fit);
    }
    if (g->per_node < 1)
        g->per_node = 1;
    g->nodes = (p + g->per_node - 1) / g->per_node;
    /* pods of nodes_per_pod x d consecutive ranks; the group's ranks span
     * (p - 1) stride + 1 of them */
    g->pods = 1;
    if (sys->nodes_per_pod > 0) {
        const double pod_ranks = (double)sys->nodes_per_pod * d, span = (double)(p - 1) * (double)stride + 1;
        if (span > pod_ranks)
            g->pods = (int)fmin(ceil(span / pod_ranks), (double)g->nodes);
    }
    /* groups of this kind active in one node: the node's devices / ours */
    g->sharing = d / g->per_node;
    if (g->sharing < 1)
        g->sharing = 1;
}

/* Side of a d-dimensional torus of p nodes, and the dimension count. */
static int topo_dims(Topology t)
{
    switch (t) {
    case TOPO_TORUS2D:
    case TOPO_MESH2D:
        return 2;
    case TOPO_TORUS3D:
        return 3;
    default:
        return 1;
    }
}

/* The measured bus-bandwidth fraction of a tier for a ring collective of
 * p ranks that moves `wire` bytes per rank: the measured all-reduce of the
 * size whose ring moves as much at p ranks (for an all-reduce, its own
 * size), interpolated in log size, clamped to the end points.  A ring's
 * steps carry size / p chunks at any p, and nccl-tests' bus bandwidth at
 * one size is about the same on 2, 4 and 8 ranks of a node (vTrain's A100
 * tables, validation/vtrain/allreduce_a100.csv: 0.43, 0.47, 0.42 of
 * NVLink3 at 16 MiB; 0.55, 0.62, 0.68 at 64 MiB), so the curve measured
 * at busbw_ranks is read at the size, not at the bytes a rank moves. */
static double busbw_fraction(const Network *net, double wire, int p)
{
    const Points *c = &net->busbw;
    const double size = p > 1 ? wire / (2.0 * (p - 1) / p) : wire;
    if (size <= c->x[0])
        return c->y[0];
    if (size >= c->x[c->n - 1])
        return c->y[c->n - 1];
    int i = 0;
    while (i < c->n - 2 && size > c->x[i + 1])
        i++;
    const double f = (log(size) - log(c->x[i])) / (log(c->x[i + 1]) - log(c->x[i]));
    return c->y[i] + f * (c->y[i + 1] - c->y[i]);
}

void net_wire_derive(Network *n)
{
    if (n->from_device)
        return;
    const int wires = n->wire_pitch_um > 0;
    if (wires)
        n->links_per_mm = (n->wire_layers > 0 ? n->wire_layers : 1) * 1000.0 / n->wire_pitch_um;
    /* a wire link always has an edge and a rate (network_finish) */
    if (n->edge_mm > 0 && n->links_per_mm > 0 && n->link_bw_bytes_per_s > 0)
        n->bw_bytes_per_s = n->edge_mm * n->links_per_mm * n->link_bw_bytes_per_s / 2.0;
    if (!wires)
        return;
    const double cap = n->wire_cap_pf_per_mm * 1e-12 * n->wire_reach_mm;
    n->energy_j_per_bit = n->wire_io_energy + 0.5 * cap * n->wire_swing_v * n->wire_swing_v;
}

double net_group_bw(const Network *net, int p)
{
    const Points *gl = &net->group_links;
    if (gl->n == 0 || !(net->link_bw_bytes_per_s > 0))
        return net->bw_bytes_per_s;
    double links = gl->y[0];
    for (int i = 1; i < gl->n && gl->x[i] <= p; i++)
        links = gl->y[i];
    return fmin(net->bw_bytes_per_s, links * net->link_bw_bytes_per_s);
}

double net_tier_time(const Network *net, Collective c, double bytes, int p, Algorithm algo, double bw_scale)
{
    if (bytes <= 0 || (p <= 1 && c != COLL_P2P))
        return 0;
    const double raw_bw = net_group_bw(net, c == COLL_P2P ? 2 : p);
    const double bw = raw_bw * net->efficiency * bw_scale;
    const double a = net->latency_s;
    const int dims = topo_dims(net->topology);
    const double side = dims == 1 ? (double)p : pow((double)p, 1.0 / dims); /* pow(p, 1) is p */
    double ring_bw = bw;
    if (net->topology == TOPO_MESH2D)
        ring_bw = 0.5 * bw; /* no wrap-around: each ring folds back on itself */
    double steps, wire, eff_bw = ring_bw;
    switch (c) {
    case COLL_ALLREDUCE:
        wire = 2.0 * (p - 1) / p * bytes;
        steps = algo == ALGO_TREE ? 2.0 * ceil(log2((double)p)) : 2.0 * (p - 1);
        break;
    case COLL_REDUCESCATTER:
    case COLL_ALLGATHER:
        wire = (double)(p - 1) / p * bytes;
        steps = algo == ALGO_TREE ? ceil(log2((double)p)) : (double)(p - 1);
        break;
    case COLL_ALLTOALL:
        wire = (double)(p - 1) / p * bytes;
        steps = (double)(p - 1);
        if (net->topology == TOPO_RING)
            eff_bw = bw * 8.0 / p < bw ? bw * 8.0 / p : bw; /* bisection of 2 bidirectional links */
        else if (net->topology != TOPO_SWITCHED)
            eff_bw = bw * 4.0 / side < bw ? bw * 4.0 / side : bw; /* 2p/k bisection links */
        break;
    case COLL_P2P:
    default:
        wire = bytes;
        steps = net->topology == TOPO_SWITCHED || net->topology == TOPO_RING ? 1.0 : dims * side / 4.0;
        if (steps < 1)
            steps = 1;
        /* on a direct topology a transfer to one neighbour uses the links
         * that face it: the device's bandwidth over its 2 x dims
         * neighbours (a ring 2, a 2-D mesh or torus 4, a 3-D torus 6) */
        if (net->topology != TOPO_SWITCHED)
            eff_bw = bw / (2.0 * dims);
        break;
    }
    double t = steps * a + wire / eff_bw;
    /* A measured curve (nccl-tests) bounds a ring collective from below:
     * mid-size messages reach only part of the bandwidth. */
    if (net->busbw.n >= 2 && algo == ALGO_RING && c != COLL_P2P && c != COLL_ALLTOALL) {
        const double fr = busbw_fraction(net, wire, p);
        if (fr > 0)
            t = fmax(t, wire / (raw_bw * bw_scale * fr));
    }
    /* a stack's own cost per step (comm_latency), beyond what the tier's
     * latency and measured curve hold */
    return t + steps * net->alpha_extra;
}

/* C(n - K, k) / C(n, k): none of k draws without replacement from n
 * items hits the K marked ones (0 when fewer than k are unmarked). */
static double miss_all(double n, double K, int k)
{
    double q = 1.0;
    for (int i = 0; i < k && q > 0; i++)
        q *= n - K - i > 0 ? (n - K - i) / (n - i) : 0.0;
    return q;
}

static double choose(double n, double r)
{
    return r < 0 || r > n ? 0.0 : exp(lgamma(n + 1.0) - lgamma(r + 1.0) - lgamma(n - r + 1.0));
}

/* DeepEP sends a token once to each destination that holds one of its
 * experts (its get_dispatch_layout: is_token_in_rank,
 * num_tokens_per_rdma_rank), not once per expert.  A token's topk experts
 * are drawn without replacement from the chosen groups' (top-k picks
 * distinct experts); a destination holds e = E/m of them.  Groups at least
 * a destination wide: the chosen groups span G s / e destinations, each
 * missed with C(G s - e, k) / C(G s, k).  Narrower groups (r = e / s of
 * them in a destination): the destination holds j of the G chosen groups
 * with the hypergeometric odds C(r, j) C(N - r, G - j) / C(N, G), and is
 * then missed with C(G s - j s, k) / C(G s, k). */
double net_token_share(double m, const TokenRoute *rt)
{
    const int k = rt ? rt->topk : 1;
    if (k <= 1 || !(m > 1))
        return 1.0;
    if (rt->experts < k)
        return m / (double)k * (1.0 - pow(1.0 - 1.0 / m, (double)k));
    const double E = (double)rt->experts, e = E / m;
    const int N = rt->groups > 1 ? rt->groups : 1;
    const int G = N > 1 && rt->per_token > 0 && rt->per_token < N ? rt->per_token : N;
    const double s = E / (double)N, pool = (double)G * s;
    double met;
    if (s >= e) {
        met = pool / e * (1.0 - miss_all(pool, e, k));
    } else {
        const int r = (int)fmax(1.0, floor(e / s + 0.5));
        const double ways = choose(N, G);
        double missed = 0.0;
        for (int j = 0; j <= r && j <= G; j++)
            missed += choose(r, j) * choose(N - r, G - j) / ways * miss_all(pool, j * s, k);
        met = m * (1.0 - missed);
    }
    return fmin(1.0, fmax(1.0 / (double)k, met / (double)k));
}

/* An all-to-all across nodes on a switched scale-out tier: each rank's
 * share for other nodes through its own port, its node's share on the
 * intra-node tier at the same time.  With rt: bytes hold rt->topk copies
 * of each token, and a token crosses to each other node that holds one of
 * its copies' destinations once, and to each other rank of its own node
 * once (DeepEP; net_token_share).  The forwarding of a token that arrived over
 * the scale-out tier to its node's ranks is not counted: it runs on the
 * intra-node tier, several times faster, under the crossing. */
static void alltoall_across(const System *sys, const Group *g, const Network *xn, double bytes,
                            const TokenRoute *rt, CollCost *out)
{
    const double n = (double)g->nodes, p = (double)g->p;
    const double out_node = (n - 1.0) / n * bytes * net_token_share(n, rt);
    const double in_node = (double)(g->per_node - 1) / p * bytes * net_token_share(p, rt);
    const double t_out = out_node / (xn->bw_bytes_per_s * xn->efficiency);
    const double t_in =
        g->per_node > 1 ? in_node / (net_group_bw(&sys->intra, g->per_node) * sys->intra.efficiency) : 0.0;
    const double alpha = fmax(xn->latency_s, g->per_node > 1 ? sys->intra.latency_s : 0) + xn->alpha_extra;
    out->algo = ALGO_DIRECT;
    out->time_s = (p - 1.0) * alpha + fmax(t_out, t_in);
    out->inter_bytes = out_node;
    out->intra_bytes = in_node;
}

/* net_collective, with rt's copies of each token in an all-to-all's
 * bytes (NULL: none to merge). */
static void collective(const System *sys, const Group *g, Collective c, double bytes, const TokenRoute *rt,
                       CollCost *out)
{
    out->time_s = 0;
    out->intra_bytes = out->inter_bytes = 0;
    out->algo = ALGO_NONE;
    out->tier = "none";
    const int p = g->p;
    if (bytes <= 0 || p <= 1)
        return;
    double frac = c == COLL_ALLREDUCE ? 2.0 * (p - 1) / p : c == COLL_P2P ? 1.0 : (double)(p - 1) / p;
    if (g->nodes <= 1) {
        /* Inside a node NCCL runs rings (its trees span nodes); DeepEP's
         * tokens go once to each rank they meet (net_token_share). */
        if (c == COLL_ALLTOALL)
            bytes *= net_token_share((double)p, rt);
        out->algo = c == COLL_P2P ? ALGO_DIRECT : ALGO_RING;
        out->time_s = net_tier_time(&sys->intra, c, bytes, p, ALGO_RING, 1.0);
        out->intra_bytes = frac * bytes;
        out->tier = "intra";
        return;
    }
    /* Across nodes.  The group's share of the node's scale-out ports; a
     * group spanning pods is paced by the pod tier where it is slower. */
    const double share = (double)g->per_node;
    const Network *xn = &sys->inter;
    out->tier = "inter";
    if (g->pods > 1 && sys->pod.bw_bytes_per_s > 0 &&
        sys->pod.bw_bytes_per_s * sys->pod.efficiency < sys->inter.bw_bytes_per_s * sys->inter.efficiency) {
        xn = &sys->pod;
        out->tier = "pod";
    }
    if (c == COLL_P2P) {
        out->algo = ALGO_DIRECT;
        out->time_s = net_tier_time(xn, c, bytes, 2, ALGO_RING, 1.0);
        out->inter_bytes = bytes;
        return;
    }
    if (c == COLL_ALLTOALL && xn->topology == TOPO_SWITCHED) {
        /* the per-node merge is modelled on the scale-out tier only, not
         * across pods */
        alltoall_across(sys, g, xn, bytes, xn == &sys->inter ? rt : NULL, out);
        return;
    }
    /* Flat ring / tree over all p ranks: every step is paced by the
     * slowest hop: the scale-out crossing (g ports) or an intra hop. */
    double inter_bw = xn->bw_bytes_per_s * xn->efficiency * share;
    double intra_bw =
        g->per_node > 1 ? net_group_bw(&sys->intra, g->per_node) * sys->intra.efficiency : INFINITY;
    double bw = fmin(inter_bw, intra_bw);
    double wire = frac * bytes;
    double alpha = fmax(xn->latency_s, g->per_node > 1 ? sys->intra.latency_s : 0) + xn->alpha_extra;
    /* A ring's p - 1 hops (twice for an all-reduce) cross the scale-out
     * tier only between nodes: n - 1 of them a pass, the others inside a
     * node at its own latency (NCCL's ring latency: nInterSteps network
     * hops, the rest NVLink ones [NCCLtune]). */
    const double passes = c == COLL_ALLREDUCE ? 2.0 : 1.0;
    const double hops_x = passes * (g->nodes - 1), hops_in = passes * (p - 1) - hops_x;
    const double alpha_in = (g->per_node > 1 ? sys->intra.latency_s : xn->latency_s) + sys->intra.alpha_extra;
    double ring = hops_x * (xn->latency_s + xn->alpha_extra) + hops_in * alpha_in + wire / bw;
    double tree = INFINITY;
    /* (a switched fabric's collectives are NCCL's; a torus's its own) */
    const int nccl = xn->topology == TOPO_SWITCHED;
    if (c == COLL_ALLREDUCE || g->per_node == 1 || (!nccl && c != COLL_ALLTOALL)) {
        /* NCCL's tree runs all-reduces only; reduce-scatters and
         * all-gathers across nodes are rings, but for PAT's log-step
         * trees with one rank a node (NCCL 2.23) [NCCLenv: NCCL_ALGO] */
        double st = passes * ceil(log2((double)p));
        tree = st * alpha + wire / bw;
    } else if (c == COLL_ALLTOALL && !nccl) {
        ring = net_tier_time(xn, c, bytes, p, ALGO_RING, share);
    }
    /* Hierarchical (Jia et al. 2018; NCCL's NVLS/tree-of-rings): reduce-
     * scatter inside the node, the collective across nodes on 1/g of the
     * data by each of the g ranks on its own port, all-gather inside. */
    double hier = INFINITY;
    if (g->per_node > 1 && (c == COLL_ALLREDUCE || (!nccl && c != COLL_ALLTOALL))) {
        const int n = g->nodes, k = g->per_node;
        double in = 0;
        if (c == COLL_ALLREDUCE)
            in = net_tier_time(&sys->intra, COLL_REDUCESCATTER, bytes, k, ALGO_RING, 1.0) +
                 net_tier_time(&sys->intra, COLL_ALLGATHER, bytes, k, ALGO_RING, 1.0);
        else
            in = net_tier_time(&sys->intra, c, bytes, k, ALGO_RING, 1.0);
        double across = net_tier_time(xn, c, bytes / k, n, ALGO_RING, 1.0);
        double across_tree = net_tier_time(xn, c, bytes / k, n, ALGO_TREE, 1.0);
        hier = in + fmin(across, across_tree);
    }
    out->time_s = fmin(ring, fmin(tree, hier));
    out->algo = out->time_s == hier ? ALGO_HIER : out->time_s == tree ? ALGO_TREE : ALGO_RING;
    /* Bytes on each tier per rank: the crossing carries 1/g of the ring's
     * traffic per rank, the rest stays inside the node. */
    out->inter_bytes = wire / share;
    out->intra_bytes = g->per_node > 1 ? wire - out->inter_bytes : 0;
}

void net_collective(const System *sys, const Group *g, Collective c, double bytes, CollCost *out)
{
    collective(sys, g, c, bytes, NULL, out);
}

void net_alltoall_tokens(const System *sys, const Group *g, double bytes, const TokenRoute *rt, CollCost *out)
{
    collective(sys, g, COLL_ALLTOALL, bytes, rt, out);
}
