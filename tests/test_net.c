/* tests/test_net.c — the network engine: ring collectives move 2(p-1)/p of
 * the buffer, placement decides the tier and the share of scale-out
 * ports, the cheapest algorithm is taken (trees for small messages across
 * nodes), and direct topologies pay for their bisection. */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "net/net.h"

static System dgx(void)
{
    System s;
    memset(&s, 0, sizeof s);
    s.devices_per_node = 8;
    s.intra = (Network){.name = "nvlink",
                        .bw_bytes_per_s = 300e9,
                        .latency_s = 3e-6,
                        .efficiency = 0.8,
                        .topology = TOPO_SWITCHED};
    s.inter = (Network){.name = "ib",
                        .bw_bytes_per_s = 25e9,
                        .latency_s = 10e-6,
                        .efficiency = 0.9,
                        .topology = TOPO_SWITCHED};
    return s;
}

static void test_placement(void **state)
{
    (void)state;
    System s = dgx();
    Group g;
    net_group(&s, 8, 1, &g); /* tensor group of 8, neighbours */
    assert_int_equal(g.per_node, 8);
    assert_int_equal(g.nodes, 1);
    assert_int_equal(g.sharing, 1);
    net_group(&s, 64, 8, &g); /* data group across 64 nodes, one rank each */
    assert_int_equal(g.per_node, 1);
    assert_int_equal(g.nodes, 64);
    assert_int_equal(g.sharing, 8);
    net_group(&s, 32, 2, &g); /* stride 2: four ranks per node */
    assert_int_equal(g.per_node, 4);
    assert_int_equal(g.nodes, 8);
    assert_int_equal(g.sharing, 2);
}

static void test_ring_volume(void **state)
{
    (void)state;
    System s = dgx();
    s.intra.latency_s = 0;
    Group g;
    const double S = 1e9, bw = 300e9 * 0.8;
    for (int p = 2; p <= 8; p *= 2) {
        net_group(&s, p, 1, &g);
        CollCost c;
        net_collective(&s, &g, COLL_ALLREDUCE, S, &c);
        assert_rel(c.time_s, 2.0 * (p - 1) / p * S / bw, 1e-12);
        assert_rel(c.intra_bytes, 2.0 * (p - 1) / p * S, 1e-12);
        assert_int_equal(c.inter_bytes == 0, 1);
        net_collective(&s, &g, COLL_REDUCESCATTER, S, &c);
        assert_rel(c.time_s, (double)(p - 1) / p * S / bw, 1e-12);
        net_collective(&s, &g, COLL_ALLGATHER, S, &c);
        assert_rel(c.time_s, (double)(p - 1) / p * S / bw, 1e-12);
    }
    /* one rank: nothing */
    net_group(&s, 1, 1, &g);
    CollCost c;
    net_collective(&s, &g, COLL_ALLREDUCE, S, &c);
    assert_true(c.time_s == 0);
}

static void test_ports_are_shared(void **state)
{
    (void)state;
    System s = dgx();
    s.inter.latency_s = 0;
    s.intra.latency_s = 0;
    Group one, four;
    net_group(&s, 64, 8, &one);  /* 1 rank per node: one port */
    net_group(&s, 64, 2, &four); /* 4 ranks per node: four ports */
    CollCost a, b;
    net_collective(&s, &one, COLL_ALLREDUCE, 1e9, &a);
    net_collective(&s, &four, COLL_ALLREDUCE, 1e9, &b);
    assert_string_equal(a.tier, "inter");
    assert_rel(a.time_s, 2.0 * 63 / 64 * 1e9 / (25e9 * 0.9), 1e-9);
    assert_rel(a.time_s / b.time_s, 4.0, 1e-9); /* the group drives four ports */
    /* 8 x 25 GB/s HDR per node drive a 180 GB/s bus (NCCL measures 192) */
    Group full;
    net_group(&s, 16, 1, &full);
    net_collective(&s, &full, COLL_ALLREDUCE, 1e9, &a);
    assert_rel(2.0 * 15 / 16 * 1e9 / a.time_s, 8 * 25e9 * 0.9, 1e-9);
}

/* Pods: a group inside one pod runs as before; one spanning pods is paced
 * by the slower data-centre tier; a pod tier as fast as the scale-out one
 * changes nothing. */
static void test_pods(void **state)
{
    (void)state;
    System s = dgx();
    s.inter.latency_s = 0;
    s.intra.latency_s = 0;
    const System flat = s;
    s.nodes_per_pod = 4; /* 32 ranks a pod */
    s.pod = (Network){.name = "dc",
                      .bw_bytes_per_s = 25e9 / 4,
                      .latency_s = 0,
                      .efficiency = 0.9,
                      .topology = TOPO_SWITCHED};
    Group in, across;
    net_group(&s, 4, 8, &in); /* 4 nodes, stride 8: ranks 0..24, one pod */
    assert_int_equal(in.pods, 1);
    net_group(&s, 16, 8, &across); /* ranks 0..120: 4 pods */
    assert_int_equal(across.pods, 4);
    CollCost a, b, f;
    net_collective(&s, &in, COLL_ALLREDUCE, 1e9, &a);
    net_collective(&flat, &in, COLL_ALLREDUCE, 1e9, &f);
    assert_string_equal(a.tier, "inter");
    assert_rel(a.time_s, f.time_s, 1e-12);
    net_collective(&s, &across, COLL_ALLREDUCE, 1e9, &b);
    assert_string_equal(b.tier, "pod");
    assert_rel(b.time_s, 2.0 * 15 / 16 * 1e9 / (25e9 / 4 * 0.9), 1e-9); /* one port at a quarter */
    s.pod.bw_bytes_per_s = 25e9; /* as fast: the scale-out tier paces it, as without pods */
    net_collective(&s, &across, COLL_ALLREDUCE, 1e9, &b);
    net_collective(&flat, &across, COLL_ALLREDUCE, 1e9, &f);
    assert_string_equal(b.tier, "inter");
    assert_rel(b.time_s, f.time_s, 1e-12);
}

static void test_small_messages_take_trees(void **state)
{
    (void)state;
    System s = dgx();
    Group g;
    net_group(&s, 512, 8, &g);
    CollCost small, big;
    net_collective(&s, &g, COLL_ALLREDUCE, 1e3, &small);
    assert_int_equal(small.algo, ALGO_TREE);
    /* the tree's latency is logarithmic, the ring's linear in p */
    assert_true(small.time_s < 2.0 * 511 * s.inter.latency_s);
    net_collective(&s, &g, COLL_ALLREDUCE, 1e10, &big);
    assert_true(big.time_s >= 2.0 * 511 / 512 * 1e10 / (25e9 * 0.9) * (1 - 1e-12));
    /* more ranks never make the same all-reduce cheaper */
    double prev = 0;
    for (int p = 2; p <= 1024; p *= 2) {
        net_group(&s, p, 8, &g);
        CollCost c;
        net_collective(&s, &g, COLL_ALLREDUCE, 1e8, &c);
        assert_true(c.time_s >= prev * (1 - 1e-12));
        prev = c.time_s;
    }
}

/* NCCL runs its tree for all-reduces only: a reduce-scatter or an
 * all-gather across nodes is a ring, its p - 1 hops at the NVLink latency
 * but for the n - 1 node crossings; with one rank a node, PAT's log-step
 * trees (NCCL 2.23). */
static void test_gathers_are_rings(void **state)
{
    (void)state;
    System s = dgx();
    Group g;
    net_group(&s, 512, 1, &g); /* 64 nodes of 8 */
    const double b = 1e3;      /* latency-bound */
    CollCost rs, ag, ar;
    net_collective(&s, &g, COLL_REDUCESCATTER, b, &rs);
    net_collective(&s, &g, COLL_ALLGATHER, b, &ag);
    net_collective(&s, &g, COLL_ALLREDUCE, b, &ar);
    assert_int_equal(rs.algo, ALGO_RING);
    assert_int_equal(ag.algo, ALGO_RING);
    assert_true(ar.algo == ALGO_TREE || ar.algo == ALGO_HIER); /* all-reduces have trees */
    const double hops = 448 * s.intra.latency_s + 63 * s.inter.latency_s;
    assert_rel(rs.time_s, hops + 511.0 / 512 * b / (8 * 25e9 * 0.9), 1e-9);
    assert_rel(ag.time_s, rs.time_s, 1e-12);
    /* one rank a node: PAT's tree, log2(p) crossings */
    net_group(&s, 64, 8, &g);
    net_collective(&s, &g, COLL_REDUCESCATTER, b, &rs);
    assert_int_equal(rs.algo, ALGO_TREE);
    assert_rel(rs.time_s, 6 * s.inter.latency_s + 63.0 / 64 * b / (25e9 * 0.9), 1e-9);
}

static void test_hierarchical(void **state)
{
    (void)state;
    System s = dgx();
    s.intra.bw_bytes_per_s = 3e12; /* a fat node: the hierarchical algorithm pays off */
    Group g;
    net_group(&s, 64, 1, &g);
    CollCost c;
    net_collective(&s, &g, COLL_ALLREDUCE, 1e9, &c);
    assert_int_equal(c.algo == ALGO_HIER || c.algo == ALGO_RING || c.algo == ALGO_TREE, 1);
    double hier = net_tier_time(&s.intra, COLL_REDUCESCATTER, 1e9, 8, ALGO_RING, 1.0) +
                  net_tier_time(&s.intra, COLL_ALLGATHER, 1e9, 8, ALGO_RING, 1.0) +
                  net_tier_time(&s.inter, COLL_ALLREDUCE, 1e9 / 8, 8, ALGO_TREE, 1.0);
    assert_true(c.time_s <= hier * (1 + 1e-12));
}

static void test_direct_topologies(void **state)
{
    (void)state;
    Network sw = {.bw_bytes_per_s = 100e9,
                  .link_bw_bytes_per_s = 25e9,
                  .latency_s = 0,
                  .efficiency = 1,
                  .topology = TOPO_SWITCHED};
    Network ring = sw, torus = sw, mesh = sw;
    ring.topology = TOPO_RING;
    torus.topology = TOPO_TORUS2D;
    mesh.topology = TOPO_MESH2D;
    const double S = 1e9;
    /* all-to-all: a switch gives full bandwidth, a ring and a torus their bisection */
    double t_sw = net_tier_time(&sw, COLL_ALLTOALL, S, 64, ALGO_RING, 1);
    double t_ring = net_tier_time(&ring, COLL_ALLTOALL, S, 64, ALGO_RING, 1);
    double t_torus = net_tier_time(&torus, COLL_ALLTOALL, S, 64, ALGO_RING, 1);
    assert_rel(t_sw, 63.0 / 64 * S / 100e9, 1e-12);
    assert_rel(t_ring / t_sw, 64 / 8.0, 1e-12);
    assert_rel(t_torus / t_sw, 8 / 4.0, 1e-12);
    /* a mesh's rings fold back: half the all-reduce bandwidth of a torus */
    assert_rel(net_tier_time(&mesh, COLL_ALLREDUCE, S, 16, ALGO_RING, 1) /
                   net_tier_time(&torus, COLL_ALLREDUCE, S, 16, ALGO_RING, 1),
               2.0, 1e-12);
    /* point-to-point on a direct topology uses one link */
    assert_rel(net_tier_time(&torus, COLL_P2P, S, 2, ALGO_RING, 1), S / 25e9, 1e-12);
}

/* A measured bus-bandwidth curve (nccl-tests, 8 x A100 all-reduce) slows
 * the mid-size messages to what NCCL reaches and leaves the alpha-beta
 * cost where it is slower (tiny messages) or equal (the largest). */
static void test_busbw_curve(void **state)
{
    (void)state;
    System s = dgx();
    s.intra.latency_s = 3.4e-6;
    s.intra.efficiency = 0.78;
    static const double size[] = {32768,    1048576,   4194304,    16777216,
                                  67108864, 268435456, 1073741824, 4294967296.0};
    static const double busbw[] = {1.31, 18.00, 72.33, 106.16, 171.54, 194.07, 229.04, 233.88}; /* GB/s */
    s.intra.busbw.n = 8;
    s.intra.busbw_ranks = 8;
    for (int i = 0; i < 8; i++) {
        s.intra.busbw.x[i] = size[i];
        s.intra.busbw.y[i] = busbw[i] * 1e9 / 300e9;
    }
    Group g;
    net_group(&s, 8, 1, &g);
    for (int i = 1; i < 8; i++) { /* every measured point from 1 MiB on, reproduced */
        CollCost c;
        net_collective(&s, &g, COLL_ALLREDUCE, size[i], &c);
        assert_rel(size[i] * 2.0 * 7 / 8 / c.time_s, busbw[i] * 1e9, 0.01);
    }
    CollCost tiny, ab;
    net_collective(&s, &g, COLL_ALLREDUCE, 4096, &tiny);
    System plain = s;
    plain.intra.busbw.n = 0;
    net_collective(&plain, &g, COLL_ALLREDUCE, 4096, &ab);
    assert_rel(tiny.time_s, ab.time_s, 1e-12); /* latency-bound: alpha-beta */
    net_collective(&plain, &g, COLL_ALLREDUCE, 16777216, &ab);
    CollCost mid;
    net_collective(&s, &g, COLL_ALLREDUCE, 16777216, &mid);
    assert_true(mid.time_s > 1.5 * ab.time_s); /* 106 GB/s measured against 170 from alpha-beta */

    /* Fewer ranks than the curve's: an all-reduce reaches the bus bandwidth
     * measured at its own size (vTrain's A100 tables: 0.43, 0.47, 0.42 of
     * NVLink3 at 16 MiB on 2, 4, 8 GPUs), not at the size whose 8-rank ring
     * moves its bytes (9 MiB for 2 ranks). */
    for (int p = 2; p <= 4; p *= 2) {
        Group gp;
        net_group(&s, p, 1, &gp);
        for (int i = 2; i < 6; i++) {
            CollCost c;
            net_collective(&s, &gp, COLL_ALLREDUCE, size[i], &c);
            const double wire = size[i] * 2.0 * (p - 1) / p;
            assert_rel(wire / c.time_s, busbw[i] * 1e9, 0.01);
        }
    }
    /* an all-gather of S on the curve's 8 ranks: the all-reduce of S / 2,
     * which moves as much a rank (as before the rule counted ranks) */
    CollCost ag, ar;
    net_collective(&s, &g, COLL_ALLGATHER, 2.0 * size[4], &ag);
    net_collective(&s, &g, COLL_ALLREDUCE, size[4], &ar);
    assert_rel(ag.time_s, ar.time_s, 1e-9);
}

/* DGX-1's hybrid cube-mesh: a group's rings get the links its members
 * share (a neighbouring pair 1 NVLink, a quad 4, all eight 6), not the
 * GPU's whole 150 GB/s as behind a switch. */
static void test_cube_mesh(void **state)
{
    (void)state;
    System s = dgx();
    s.intra.bw_bytes_per_s = 150e9;
    s.intra.link_bw_bytes_per_s = 25e9;
    s.intra.latency_s = 0;
    s.intra.group_links.n = 3;
    const double size[] = {2, 4, 8}, links[] = {1, 4, 6};
    memcpy(s.intra.group_links.x, size, sizeof size);
    memcpy(s.intra.group_links.y, links, sizeof links);
    assert_rel(net_group_bw(&s.intra, 2), 25e9, 1e-15);
    assert_rel(net_group_bw(&s.intra, 3), 25e9, 1e-15); /* step function */
    assert_rel(net_group_bw(&s.intra, 4), 100e9, 1e-15);
    assert_rel(net_group_bw(&s.intra, 8), 150e9, 1e-15);
    const double S = 64e6;
    for (int i = 0; i < 3; i++) {
        int p = (int)size[i];
        Group g;
        net_group(&s, p, 1, &g);
        CollCost c;
        net_collective(&s, &g, COLL_ALLREDUCE, S, &c);
        assert_rel(c.time_s, 2.0 * (p - 1) / p * S / (links[i] * 25e9 * 0.8), 1e-12);
    }
    Group pair;
    net_group(&s, 2, 1, &pair);
    CollCost p2p;
    net_collective(&s, &pair, COLL_P2P, S, &p2p);
    assert_rel(p2p.time_s, S / (25e9 * 0.8), 1e-12);
    /* a switch: every group gets the device's bandwidth */
    s.intra.group_links.n = 0;
    assert_rel(net_group_bw(&s.intra, 2), 150e9, 1e-15);
}

/* An all-to-all across nodes on a switched fabric: each rank sends the
 * share for other nodes, (n-1)/n S, through its own port while its node's
 * share, (g-1)/p S, crosses NVLink; with top-k copies of each token,
 * DeepEP's dispatch sends a token once to each other node that holds one
 * of its experts, and once to each other rank of its node. */
static void test_alltoall_across_nodes(void **state)
{
    (void)state;
    System s = dgx();
    s.inter.latency_s = s.intra.latency_s = 0;
    const double S = 1e9, ib = 25e9 * 0.9;
    Group g;
    net_group(&s, 32, 1, &g); /* four nodes of eight */
    CollCost c;
    net_collective(&s, &g, COLL_ALLTOALL, S, &c);
    assert_string_equal(c.tier, "inter");
    assert_rel(c.inter_bytes, 0.75 * S, 1e-12);
    assert_rel(c.intra_bytes, 7.0 / 32 * S, 1e-12);
    assert_rel(c.time_s, 0.75 * S / ib, 1e-12); /* the port, not NVLink, paces it */
    /* eight copies of each token spread over four nodes meet
     * 3 (1 - (3/4)^8) of the three other nodes, not 8 * 3/4 (experts not
     * given: each copy's destination drawn alike, with replacement) */
    const TokenRoute top8 = {.topk = 8}, top1 = {.topk = 1};
    net_alltoall_tokens(&s, &g, S, &top8, &c);
    const double out = S / 8 * 3 * (1 - pow(0.75, 8));
    assert_rel(c.inter_bytes, out, 1e-12);
    assert_rel(c.time_s, out / ib, 1e-12);
    /* the node's share: 7 of the 31 other ranks, each met once, 1 - (31/32)^8 */
    assert_rel(c.intra_bytes, S / 8 * 7 * (1 - pow(31.0 / 32, 8)), 1e-12);
    /* one copy: nothing to merge */
    CollCost plain;
    net_alltoall_tokens(&s, &g, S, &top1, &c);
    net_collective(&s, &g, COLL_ALLTOALL, S, &plain);
    assert_rel(c.time_s, plain.time_s, 1e-15);
    /* inside a node: the plain all-to-all of the bytes the token's distinct
     * ranks take, 8 (1 - (7/8)^8) / 8 of them */
    net_group(&s, 8, 1, &g);
    net_alltoall_tokens(&s, &g, S, &top8, &c);
    const double met = 8.0 / 8 * (1 - pow(7.0 / 8, 8));
    net_collective(&s, &g, COLL_ALLTOALL, S * met, &plain);
    assert_rel(c.time_s, plain.time_s, 1e-15);
    assert_rel(c.intra_bytes, plain.intra_bytes, 1e-15);
    assert_string_equal(c.tier, "intra");
    /* latency: p - 1 sends, each paying the slower tier's */
    s.inter.latency_s = 10e-6;
    net_group(&s, 32, 1, &g);
    net_collective(&s, &g, COLL_ALLTOALL, S, &c);
    assert_rel(c.time_s, 31 * 10e-6 + 0.75 * S / ib, 1e-12);
}

/* The destinations a token's top-k copies reach (net_token_share, over
 * top-k).  256 experts, top-8, on 8 nodes: distinct experts drawn without
 * replacement miss a node with C(224, 8) / C(256, 8): 5.29 nodes met.  DeepSeek-V3's
 * node-limited routing (8 groups of 32, a token's from 4 of them): a
 * group is a node's experts, so 4 nodes at most, each missed with
 * C(96, 8) / C(128, 8).  On 4 nodes (two groups each) a node holds j of
 * the 4 chosen groups with odds C(2, j) C(6, 4 - j) / C(8, 4).  A
 * round-robin benchmark gate (each token k consecutive experts: 32 groups
 * of 8, one per token) reaches one node of 8 and two ranks of 64. */
static void test_token_share(void **state)
{
    (void)state;
    const TokenRoute any = {.experts = 256, .topk = 8};
    double miss = 1;
    for (int i = 0; i < 8; i++)
        miss *= (224.0 - i) / (256.0 - i);
    assert_rel(net_token_share(8, &any), 8 * (1 - miss) / 8, 1e-12);
    assert_true(fabs(8 * (1 - miss) - 5.29) < 0.01); /* with replacement 5.25 */
    const TokenRoute dsv3 = {.experts = 256, .topk = 8, .groups = 8, .per_token = 4};
    miss = 1;
    for (int i = 0; i < 8; i++)
        miss *= (96.0 - i) / (128.0 - i);
    assert_rel(net_token_share(8, &dsv3), 4 * (1 - miss) / 8, 1e-12);
    double miss2 = 1;
    for (int i = 0; i < 8; i++)
        miss2 *= (64.0 - i) / (128.0 - i);
    const double p0 = 15.0 / 70, p1 = 40.0 / 70, p2 = 15.0 / 70;
    assert_rel(net_token_share(4, &dsv3), 4 * (1 - (p0 + p1 * miss + p2 * miss2)) / 8, 1e-12);
    const TokenRoute robin = {.experts = 256, .topk = 8, .groups = 32, .per_token = 1};
    assert_rel(net_token_share(8, &robin), 1.0 / 8, 1e-12);
    assert_rel(net_token_share(64, &robin), 2.0 / 8, 1e-12);
    /* groups without a limit route as no groups; one copy or one destination moves all */
    const TokenRoute all = {.experts = 256, .topk = 8, .groups = 8};
    assert_rel(net_token_share(8, &all), net_token_share(8, &any), 1e-12);
    assert_rel(net_token_share(1, &dsv3), 1.0, 0);
    assert_rel(net_token_share(8, NULL), 1.0, 0);
}

/* A wire-level link (Si-IF): wires per mm from the pitch and layers, the
 * bandwidth from the edge and the wire rate, the energy from the wire's
 * charge; a pipeline transfer on a 2-D mesh uses the quarter of the links
 * that face the neighbour.
 * Lanes of a stated density (PCB SerDes) on a stated edge: the bandwidth
 * from them, the energy as given; never for links the generator derived. */
static void test_wire_links(void **state)
{
    (void)state;
    Network n = {.name = "siif",
                 .link_bw_bytes_per_s = 0.5e9, /* 4 Gb/s per wire */
                 .efficiency = 0.9,
                 .latency_s = 50e-12,
                 .topology = TOPO_MESH2D,
                 .wire_pitch_um = 2,
                 .wire_layers = 4,
                 .wire_reach_mm = 0.5,
                 .wire_cap_pf_per_mm = 0.2,
                 .wire_swing_v = 0.8,
                 .wire_io_energy = 0.02e-12,
                 .edge_mm = 10};
    net_wire_derive(&n);
    assert_rel(n.links_per_mm, 2000, 1e-12);
    assert_rel(n.bw_bytes_per_s, 10 * 2000 * 0.5e9 / 2, 1e-12); /* 5 TB/s per direction */
    assert_rel(n.energy_j_per_bit, 0.02e-12 + 0.5 * 0.2e-12 * 0.5 * 0.64, 1e-12);
    Network wide = n;
    wide.wire_pitch_um = 10;
    net_wire_derive(&wide);
    assert_rel(wide.bw_bytes_per_s, n.bw_bytes_per_s / 5, 1e-12);
    /* p2p to a mesh neighbour: a quarter of the device's links */
    const double S = 1e8;
    double t = net_tier_time(&n, COLL_P2P, S, 2, ALGO_RING, 1.0);
    assert_rel(t, 50e-12 + S / (n.bw_bytes_per_s * 0.9 / 4), 1e-9);
    /* no pitch: nothing derived */
    Network plain = {.bw_bytes_per_s = 1e9, .energy_j_per_bit = 1e-12};
    net_wire_derive(&plain);
    assert_rel(plain.bw_bytes_per_s, 1e9, 1e-15);
    /* lanes on an edge: 10 mm x 20 lanes/mm x 14 GB/s / 2 = 1.4 TB/s a direction */
    Network pcb = {.bw_bytes_per_s = 450e9,
                   .link_bw_bytes_per_s = 14e9,
                   .links_per_mm = 20,
                   .energy_j_per_bit = 5.5e-12,
                   .edge_mm = 10};
    net_wire_derive(&pcb);
    assert_rel(pcb.bw_bytes_per_s, 1.4e12, 1e-12);
    assert_rel(pcb.energy_j_per_bit, 5.5e-12, 1e-15);
    pcb.edge_mm = 5; /* half the edge, half the bandwidth */
    net_wire_derive(&pcb);
    assert_rel(pcb.bw_bytes_per_s, 0.7e12, 1e-12);
    /* the generator's links keep what it derived */
    pcb.from_device = 1;
    pcb.bw_bytes_per_s = 300e9;
    net_wire_derive(&pcb);
    assert_rel(pcb.bw_bytes_per_s, 300e9, 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_ring_volume),
        cmocka_unit_test(test_ports_are_shared),
        cmocka_unit_test(test_pods),
        cmocka_unit_test(test_small_messages_take_trees),
        cmocka_unit_test(test_gathers_are_rings),
        cmocka_unit_test(test_hierarchical),
        cmocka_unit_test(test_direct_topologies),
        cmocka_unit_test(test_busbw_curve),
        cmocka_unit_test(test_cube_mesh),
        cmocka_unit_test(test_wire_links),
        cmocka_unit_test(test_alltoall_across_nodes),
        cmocka_unit_test(test_token_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
