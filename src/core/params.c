/* core/params.c — the parameter tables of every template kind (device,
 * network, system, model) and of the scenario row, and the generic
 * find / set / format / walk over them.  Ranges here are physical sanity
 * bounds, wide enough for any real or projected part; they turn a typo
 * ("3.35 GB/s" for HBM) into an error rather than a silent result. */
#include "param.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "strategy.h"
#include "text.h"
#include "types.h"

#define BIG 1e30

/* Field makers.  T is the struct type of the table. */
#define PD(T, key, field, unit, lo, hi, def, req, help)                                                      \
    {                                                                                                        \
        key, offsetof(T, field), P_DOUBLE, unit, lo, hi, def, req, 0, 0, NULL, NULL, help                    \
    }
#define PI(T, key, field, lo, hi, def, req, autok, help)                                                     \
    {                                                                                                        \
        key, offsetof(T, field), P_INT, UNIT_INTEGER, lo, hi, def, req, autok, 0, NULL, NULL, help           \
    }
#define PI64(T, key, field, lo, hi, def, req, help)                                                          \
    {                                                                                                        \
        key, offsetof(T, field), P_INT64, UNIT_INTEGER, lo, hi, def, req, 0, 0, NULL, NULL, help             \
    }
#define PB(T, key, field, def, help)                                                                         \
    {                                                                                                        \
        key, offsetof(T, field), P_BOOL, UNIT_NUMBER, 0, 1, def, 0, 0, 0, NULL, NULL, help                   \
    }
#define PE(T, key, field, choices, def, autok, help)                                                         \
    {                                                                                                        \
        key, offsetof(T, field), P_ENUM, UNIT_NUMBER, 0, 0, def, 0, autok, 0, choices, NULL, help            \
    }
#define PS(T, key, field, req, help)                                                                         \
    {                                                                                                        \
        key, offsetof(T, field), P_STRING, UNIT_NUMBER, 0, 0, 0, req, 0, sizeof(((T *)0)->field), NULL,      \
            NULL, help                                                                                       \
    }
#define PSUB(T, key, field, table, req, help)                                                                \
    {                                                                                                        \
        key, offsetof(T, field), P_SUB, UNIT_NUMBER, 0, 0, 0, req, 0, 0, NULL, &table, help                  \
    }

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- device ----------------------------------------------------------- */

static const ParamDef device_defs[] = {
    PS(Device, "name", name, 1, "device name as printed in reports"),
    PD(Device, "peak.fp32", matrix_flops[PREC_FP32], UNIT_FLOPS, 0, BIG, 0, 0,
       "dense fp32 peak of the matrix units (0: none; falls back to vector)"),
    PD(Device, "peak.tf32", matrix_flops[PREC_TF32], UNIT_FLOPS, 0, BIG, 0, 0, "dense tf32 matrix peak"),
    PD(Device, "peak.fp16", matrix_flops[PREC_FP16], UNIT_FLOPS, 0, BIG, 0, 0, "dense fp16 matrix peak"),
    PD(Device, "peak.bf16", matrix_flops[PREC_BF16], UNIT_FLOPS, 0, BIG, 0, 0, "dense bf16 matrix peak"),
    PD(Device, "peak.fp8", matrix_flops[PREC_FP8], UNIT_FLOPS, 0, BIG, 0, 0,
       "dense fp8 matrix peak (0: unsupported)"),
    PD(Device, "peak.fp4", matrix_flops[PREC_FP4], UNIT_FLOPS, 0, BIG, 0, 0,
       "dense block-scaled fp4 (NVFP4, MXFP4) matrix peak (0: unsupported)"),
    PD(Device, "vector", vector_flops, UNIT_FLOPS, 1e9, BIG, 0, 1, "fp32 non-tensor (vector) peak"),
    PI(Device, "sms", sms, 1, 1e6, 0, 1, 0, "streaming multiprocessors (compute bundles)"),
    PD(Device, "clock", clock_hz, UNIT_FREQUENCY, 1e6, 1e11, 0, 1, "clock at which the peaks are quoted"),
    PD(Device, "registers.capacity", mem[MEM_REG].capacity_bytes, UNIT_BYTES, 1024, 1e9, 256 * 1024.0, 0,
       "register file per SM"),
    PD(Device, "registers.energy", mem[MEM_REG].energy_j_per_bit, UNIT_ENERGY_PER_BIT, 0, 1e-9, 0, 0,
       "register file access energy"),
    PD(Device, "l1.capacity", mem[MEM_L1].capacity_bytes, UNIT_BYTES, 1024, 1e9, 0, 1,
       "shared memory / L1 usable per SM"),
    PD(Device, "l1.bandwidth", mem[MEM_L1].bw_bytes_per_s, UNIT_BANDWIDTH, 1e9, BIG, 0, 1,
       "shared memory bandwidth, all SMs together"),
    PD(Device, "l1.energy", mem[MEM_L1].energy_j_per_bit, UNIT_ENERGY_PER_BIT, 0, 1e-9, 0, 0,
       "shared memory access energy"),
    PD(Device, "l2.capacity", mem[MEM_L2].capacity_bytes, UNIT_BYTES, 0, 1e12, 0, 1, "L2 cache"),
    PD(Device, "l2.bandwidth", mem[MEM_L2].bw_bytes_per_s, UNIT_BANDWIDTH, 1e9, BIG, 0, 1, "L2 bandwidth"),
    PD(Device, "l2.energy", mem[MEM_L2].energy_j_per_bit, UNIT_ENERGY_PER_BIT, 0, 1e-9, 0, 0,
       "L2 access energy"),
    PD(Device, "hbm.capacity", mem[MEM_HBM].capacity_bytes, UNIT_BYTES, 1e6, 1e15, 0, 1,
       "device memory (HBM) capacity"),
    PD(Device, "hbm.bandwidth", mem[MEM_HBM].bw_bytes_per_s, UNIT_BANDWIDTH, 1e9, 1e15, 0, 1,
       "device memory (HBM) peak bandwidth"),
    PD(Device, "hbm.energy", mem[MEM_HBM].energy_j_per_bit, UNIT_ENERGY_PER_BIT, 0, 1e-9, 0, 0,
       "HBM access energy, including I/O and controller"),
    PD(Device, "hbm.reserved", hbm_reserved_bytes, UNIT_BYTES, 0, 1e13, 0, 0,
       "HBM held by the runtime (context, allocator slack)"),
    PD(Device, "launch_overhead", launch_s, UNIT_TIME, 0, 1e-2, 0, 1,
       "kernel launch and tail overhead per kernel"),
    PB(Device, "stream_k", stream_k, 0,
       "the GEMM library deals a partial last wave's k steps over all SMs (stream-K: cuBLAS on Hopper and "
       "later); no: whole tiles per wave (wave quantisation) and split-K for small shapes"),
    PD(Device, "efficiency.matrix", matrix_eff, UNIT_FRACTION, 0.01, 1, 0, 1,
       "achievable fraction of matrix peak (fitted, see template)"),
    PD(Device, "efficiency.matrix_fp8", matrix_eff_fp8, UNIT_FRACTION, 0, 1, 0, 0,
       "achievable fraction of the fp8 matrix peak (fitted; 0: as efficiency.matrix)"),
    PD(Device, "efficiency.vector", vector_eff, UNIT_FRACTION, 0.01, 1, 0.7, 0,
       "achievable fraction of vector peak (fitted)"),
    PD(Device, "efficiency.hbm", hbm_eff, UNIT_FRACTION, 0.01, 1, 0, 1,
       "achievable fraction of HBM bandwidth (fitted, STREAM)"),
    PD(Device, "efficiency.l2", l2_eff, UNIT_FRACTION, 0.01, 1, 0.8, 0,
       "achievable fraction of L2 bandwidth (fitted)"),
    PD(Device, "rnn_step_overhead", rnn_step_s, UNIT_TIME, 0, 1e-3, 0, 0,
       "time of one recurrent (LSTM) step of one layer beyond its GEMM and its cell kernel: the RNN "
       "library's per-step work (fitted, see template; 0: not modelled)"),
    PD(Device, "conv_call_overhead", conv_call_s, UNIT_TIME, 0, 1e-3, 0, 0,
       "time of one convolution call (forward, data or weight gradient) beyond its GEMM: the library's own "
       "kernels around it (fitted, see template; 0: not modelled)"),
    PD(Device, "power.tdp", tdp_w, UNIT_POWER, 1, 1e5, 0, 1, "thermal design power"),
    PD(Device, "power.idle", idle_w, UNIT_POWER, 0, 1e5, 0, 0, "static (idle) power"),
    PD(Device, "energy.fp32", energy_j_per_flop[PREC_FP32], UNIT_ENERGY_PER_FLOP, 0, 1e-9, 0, 0,
       "energy per fp32 FLOP"),
    PD(Device, "energy.tf32", energy_j_per_flop[PREC_TF32], UNIT_ENERGY_PER_FLOP, 0, 1e-9, 0, 0,
       "energy per tf32 FLOP"),
    PD(Device, "energy.fp16", energy_j_per_flop[PREC_FP16], UNIT_ENERGY_PER_FLOP, 0, 1e-9, 0, 0,
       "energy per fp16 FLOP"),
    PD(Device, "energy.bf16", energy_j_per_flop[PREC_BF16], UNIT_ENERGY_PER_FLOP, 0, 1e-9, 0, 0,
       "energy per bf16 FLOP"),
    PD(Device, "energy.fp8", energy_j_per_flop[PREC_FP8], UNIT_ENERGY_PER_FLOP, 0, 1e-9, 0, 0,
       "energy per fp8 FLOP"),
    PD(Device, "energy.fp4", energy_j_per_flop[PREC_FP4], UNIT_ENERGY_PER_FLOP, 0, 1e-9, 0, 0,
       "energy per fp4 FLOP"),
    PD(Device, "voltage.nominal", v_nominal, UNIT_VOLTAGE, 0, 5, 0, 0, "supply voltage at the clock"),
    PD(Device, "voltage.threshold", v_threshold, UNIT_VOLTAGE, 0, 5, 0, 0, "transistor threshold voltage"),
    PD(Device, "voltage.min", v_min, UNIT_VOLTAGE, 0, 5, 0, 0, "lowest DVFS voltage"),
    PD(Device, "voltage.alpha", dvfs_alpha, UNIT_NUMBER, 1, 2, 1.3, 0,
       "alpha-power-law exponent (Sakurai-Newton)"),
    PSUB(Device, "derive", derive, param_derive_table, 0,
         "micro-architecture generator inputs: technology and budgets; the figures above not set "
         "explicitly are derived from them"),
    PS(Device, "generation", generation, 0,
       "architecture generation (volta, ampere, hopper, blackwell, ...): which validation runs cover the "
       "device"),
    PD(Device, "efficiency.attention_fa2", fa2_eff, UNIT_FRACTION, 0.05, 1, 1, 0,
       "FlashAttention-2's rate as a fraction of the best fused attention kernel on this device (a stack "
       "with "
       "flash_attention: fa2)"),
    PD(Device, "efficiency.attention_flex_fwd", flex_fwd_eff, UNIT_FRACTION, 0.05, 1, 1, 0,
       "FlexAttention's forward rate as a fraction of the best fused attention kernel on this device (a "
       "stack with flash_attention: flex; 1 where unmeasured)"),
    PD(Device, "efficiency.attention_flex_bwd", flex_bwd_eff, UNIT_FRACTION, 0.05, 1, 1, 0,
       "FlexAttention's backward rate as a fraction of the best fused attention kernel on this device (a "
       "stack with flash_attention: flex; 1 where unmeasured)"),
    PD(Device, "efficiency.grouped_mm", grouped_mm_eff, UNIT_FRACTION, 0.05, 1, 1, 0,
       "PyTorch's grouped GEMM (torch._grouped_mm, CUTLASS) as a fraction of this device's best dense GEMM "
       "at each expert's shape (a stack with grouped_gemm_kernel: torch; 1 where unmeasured)"),
    PD(Device, "scatter_add", scatter_bpc, UNIT_NUMBER, 0, 1e4, 0, 0,
       "bytes per clock per SM that PyTorch's accumulating scatter kernels (index_put_ with accumulate, "
       "index_add_, scatter_add_ in 16 bits) move, at most the memory-bound rate: a mixture of experts' "
       "token permutation backward and scatter-add combine on a stack with moe_permute: index or "
       "moe_combine: scatter_add (0: at the memory-bound rate)"),
    PD(Device, "sfu_exp", exp_per_clock, UNIT_NUMBER, 0, 1e4, 0, 0,
       "exponentials (MUFU.EX2) per clock per SM on the special-function units: a fused attention "
       "kernel's softmax takes one per score and runs them beside its MMAs, so the kernel takes the longer "
       "of the two (0: not modelled)"),
    PD(Device, "embodied.die_area", embodied.die_mm2, UNIT_AREA_MM2, 0, 1e5, 0, 0,
       "embodied carbon: silicon area of the compute dies (0: not known)"),
    PD(Device, "embodied.logic", embodied.logic_kg_cm2, UNIT_NUMBER, 0, 100, 0, 0,
       "embodied carbon: kg CO2e to make one cm2 of the die at its process node, yield included"),
    PD(Device, "embodied.memory", embodied.memory_kg_gb, UNIT_NUMBER, 0, 100, 0, 0,
       "embodied carbon: kg CO2e per GB of the device's memory (HBM)"),
    PD(Device, "embodied.package", embodied.package_kg, UNIT_NUMBER, 0, 1e4, 0, 0,
       "embodied carbon: kg CO2e of the package, interposer and board share of one device"),
};

/* A device whose static power reaches its TDP cannot run at all: said at
 * the template, not blamed on the first row that uses it.  (A derive:
 * device's figures come from the generator, which keeps them apart.) */
static int device_finish(void *obj, Diag *d)
{
    const Device *dev = obj;
    if (!dev->derive.name[0] && dev->tdp_w > 0 && dev->idle_w >= dev->tdp_w)
        return diag_keyed(d, "power.idle", NULL, NULL,
                          "key 'power.idle': the static (idle) power, %g W, must be below the TDP, %g W "
                          "(power.tdp)",
                          dev->idle_w, dev->tdp_w);
    /* the DVFS range: threshold < min <= nominal, for the keys that are set */
    if (dev->v_nominal > 0 && dev->v_threshold >= dev->v_nominal)
        return diag_keyed(d, "voltage.threshold", NULL, NULL,
                          "key 'voltage.threshold': the threshold voltage, %g V, must be below the nominal "
                          "voltage, %g V (voltage.nominal)",
                          dev->v_threshold, dev->v_nominal);
    if (dev->v_min > 0 && dev->v_nominal > 0 && dev->v_min > dev->v_nominal)
        return diag_keyed(d, "voltage.min", NULL, NULL,
                          "key 'voltage.min': the lowest DVFS voltage, %g V, must not exceed the nominal "
                          "voltage, %g V (voltage.nominal)",
                          dev->v_min, dev->v_nominal);
    if (dev->v_min > 0 && dev->v_min <= dev->v_threshold)
        return diag_keyed(d, "voltage.min", NULL, NULL,
                          "key 'voltage.min': the lowest DVFS voltage, %g V, must be above the threshold "
                          "voltage, %g V (voltage.threshold)",
                          dev->v_min, dev->v_threshold);
    return 0;
}

const ParamTable param_device_table = {"devices", device_defs, N(device_defs), sizeof(Device), device_finish};

/* ---- network ---------------------------------------------------------- */

static const ParamDef network_defs[] = {
    PS(Network, "name", name, 1, "link technology"),
    PD(Network, "bandwidth", bw_bytes_per_s, UNIT_BANDWIDTH, 1e6, BIG, 0, 1,
       "bandwidth per device, per direction"),
    PD(Network, "link_bandwidth", link_bw_bytes_per_s, UNIT_BANDWIDTH, 0, BIG, 0, 0,
       "one link, one direction"),
    PD(Network, "latency", latency_s, UNIT_TIME, 0, 1, 0, 1, "per-hop latency (alpha)"),
    PD(Network, "efficiency", efficiency, UNIT_FRACTION, 0.01, 1, 0, 1,
       "achievable fraction of bandwidth (fitted)"),
    PD(Network, "energy", energy_j_per_bit, UNIT_ENERGY_PER_BIT, 0, 1e-9, 0, 0, "energy per bit"),
    PD(Network, "links_per_mm", links_per_mm, UNIT_NUMBER, 0, 1e6, 0, 0,
       "links per mm of die edge (on-package kinds)"),
    PE(Network, "topology", topology, topology_names, TOPO_SWITCHED, 0, "topology of the tier"),
    {"busbw", offsetof(Network, busbw), P_POINTS, UNIT_NUMBER, 0, CURVE_MAX_POINTS, 0, 0, 0, 0, NULL, NULL,
     "measured all-reduce bus bandwidth as a fraction of bandwidth, by message size in bytes (nccl-tests)"},
    PI(Network, "busbw_ranks", busbw_ranks, 2, 1e6, 8, 0, 0,
       "ranks the busbw curve was measured on (provenance: a collective of any rank count reads the curve at "
       "its own size)"),
    PD(Network, "wire.pitch_um", wire_pitch_um, UNIT_NUMBER, 0, 1e4, 0, 0,
       "wire pitch in um; > 0 derives links_per_mm, bandwidth and energy from the wires"),
    PI(Network, "wire.layers", wire_layers, 1, 100, 1, 0, 0, "routing layers of the wires"),
    PD(Network, "wire.reach_mm", wire_reach_mm, UNIT_NUMBER, 0, 1e4, 0, 0, "wire length, mm"),
    PD(Network, "wire.capacitance_pf_per_mm", wire_cap_pf_per_mm, UNIT_NUMBER, 0, 100, 0, 0,
       "wire capacitance, pF per mm"),
    PD(Network, "wire.swing", wire_swing_v, UNIT_VOLTAGE, 0, 5, 0, 0, "signal swing on the wire"),
    PD(Network, "wire.io_energy", wire_io_energy, UNIT_ENERGY_PER_BIT, 0, 1e-9, 0, 0,
       "driver, receiver and clocking energy per bit, besides the wire's charge"),
    PD(Network, "edge_mm", edge_mm, UNIT_NUMBER, 0, 1e4, 0, 0,
       "die edge given to this tier, mm; with wires or links_per_mm it sets the bandwidth"),
    PB(Network, "derived", from_device, 0,
       "yes: bandwidth and energy per bit are the links the generator derives for the system's derive: "
       "device"),
    {"group_links", offsetof(Network, group_links), P_POINTS, UNIT_NUMBER, 0, CURVE_MAX_POINTS, 0, 0, 0, 0,
     NULL, NULL,
     "switchless mesh (DGX-1 cube-mesh): [group size, links per device its rings use]; the group gets that "
     "many link_bandwidth"},
};

static int network_finish(void *obj, Diag *d)
{
    const Network *net = obj;
    const Points *gl = &net->group_links;
    for (int i = 0; i < gl->n; i++) {
        if (!(gl->x[i] >= 2 && gl->y[i] > 0))
            return diag_keyed(d, "group_links", NULL, NULL,
                              "key 'group_links': point %d: a group of >= 2 and > 0 links", i + 1);
        if (i && !(gl->x[i] > gl->x[i - 1]))
            return diag_keyed(d, "group_links", NULL, NULL,
                              "key 'group_links': group sizes must increase (point %d)", i + 1);
    }
    if (gl->n > 0 && !(net->link_bw_bytes_per_s > 0))
        return diag_keyed(d, "group_links", NULL, NULL, "key 'group_links': needs link_bandwidth");
    if (net->wire_pitch_um > 0 && !(net->edge_mm > 0 && net->link_bw_bytes_per_s > 0))
        return diag_keyed(d, "wire.pitch_um", "edge_mm", "link_bandwidth",
                          "key 'wire.pitch_um': a wire link needs edge_mm and link_bandwidth");
    if (net->edge_mm > 0 && !(net->wire_pitch_um > 0) &&
        !(net->links_per_mm > 0 && net->link_bw_bytes_per_s > 0))
        return diag_keyed(
            d, "edge_mm", "links_per_mm", "link_bandwidth",
            "key 'edge_mm': a bandwidth from the die edge needs links_per_mm and link_bandwidth");
    const Points *c = &net->busbw;
    if (c->n == 1)
        return diag_keyed(d, "busbw", NULL, NULL, "key 'busbw': a curve needs at least 2 points");
    for (int i = 0; i < c->n; i++) {
        if (!(c->x[i] > 0 && c->y[i] > 0 && c->y[i] <= 2))
            return diag_keyed(d, "busbw", NULL, NULL,
                              "key 'busbw': point %d: size must be > 0 and the fraction in (0, 2]", i + 1);
        if (i && !(c->x[i] > c->x[i - 1]))
            return diag_keyed(d, "busbw", NULL, NULL, "key 'busbw': sizes must increase (point %d)", i + 1);
    }
    return 0;
}

const ParamTable param_network_table = {"networks", network_defs, N(network_defs), sizeof(Network),
                                        network_finish};

/* ---- framework (training stack) ----------------------------------------- */

static const char *const flash_choices[] = {"no", "yes", "fa2", "flex", NULL};
static const char *const grad_choices[] = {"fp32", "16bit", NULL};
static const char *const fp8_scaling_choices[] = {"delayed", "current", "block", "rowwise", NULL};
static const char *const reshard_choices[] = {"auto", "yes", "no", NULL};
static const char *const master_choices[] = {"copy", "params", NULL};
static const char *const opt_state_choices[] = {"fp32", "16bit", NULL};
static const char *const selective_choices[] = {"megatron", "per_op", NULL};
static const char *const dispatcher_choices[] = {"alltoall", "deepep", NULL};
static const char *const grouped_kernel_choices[] = {"cublas", "torch", NULL};
static const char *const permute_choices[] = {"fused", "index", NULL};
static const char *const combine_choices[] = {"gather", "scatter_add", NULL};
static const char *const sort_choices[] = {"chunks", "index", "index_padded", NULL};
static const char *const graphs_choices[] = {"none", "router", "partial", "full", NULL};
static const char *const layout_choices[] = {"nhwc", "nchw", NULL};

/* The four keys of one regime's prediction interval (make validate writes them). */
#define P_INTERVAL(regime, words)                                                                            \
    PD(Framework, "interval." #regime ".lo", regime.lo, UNIT_NUMBER, 0, 10, 0, 0,                            \
       "prediction interval, " words ": low quantile of measured / predicted step time (make validate)"),    \
        PD(Framework, "interval." #regime ".hi", regime.hi, UNIT_NUMBER, 0, 100, 0, 0,                       \
           "prediction interval, " words ": high quantile of measured / predicted step time"),               \
        PD(Framework, "interval." #regime ".mean_error", regime.mean_err, UNIT_NUMBER, 0, 10, 0, 0,          \
           "mean |predicted / measured - 1| over the validation runs, " words),                              \
        PI(Framework, "interval." #regime ".runs", regime.runs, 0, 1e9, 0, 0, 0,                             \
           "validation runs behind the interval, " words),                                                   \
        PD(Framework, "interval." #regime ".coverage", regime.coverage, UNIT_FRACTION, 0, 1, 0, 0,           \
           "share of those runs inside the range when their source is left out of the fit, " words)

static const ParamDef framework_defs[] = {
    PS(Framework, "name", name, 1, "training stack"),
    PD(Framework, "gemm_efficiency", gemm_eff, UNIT_FRACTION, 0.05, 1, 1, 0,
       "fraction of the device's best-kernel GEMM rate the stack sustains (fitted; 1: ideal)"),
    PD(Framework, "op_overhead", host_op_s, UNIT_TIME, 0, 1e-2, 0, 0,
       "host time to dispatch one graph operation; the device idles when kernels are shorter (fitted)"),
    PE(Framework, "flash_attention", flash, flash_choices, FLASH_YES, 0,
       "fused (flash) attention kernels, for models that leave attention to the stack: yes (the device's "
       "best, "
       "cuDNN / FlashAttention-3 on Hopper), fa2 (FlashAttention-2, PyTorch's SDPA), flex (PyTorch's "
       "FlexAttention, torchtitan's DeepSeek-V3), no"),
    PD(Framework, "tp_overlap", tp_overlap, UNIT_FRACTION, 0, 1, 0, 0,
       "fraction of tensor-parallel communication hidden under GEMMs"),
    PD(Framework, "dp_overlap", dp_overlap, UNIT_FRACTION, 0, 1, 0, 0,
       "the share of what its buckets' timeline leaves hideable that the stack hides (the gradients "
       "under the last backward pass, ZeRO-1/2's weight gathers under the next forward): 1 each bucket "
       "as soon as it is ready, 0 the exchange after the backward pass"),
    PD(Framework, "dp_bucket", dp_bucket, UNIT_NUMBER, 0, 1e12, 0, 0,
       "parameters in one gradient bucket, each bucket its own collective (Megatron-Core 40M, PyTorch "
       "DDP 25 MB of fp32 gradients, 6.5M); 0: an all-reduce one collective, ZeRO-1/2 one a layer; "
       "ZeRO-3 always one a layer (FSDP's units)"),
    PD(Framework, "dp_bucket_per_rank", dp_bucket_per_rank, UNIT_NUMBER, 0, 1e12, 0, 0,
       "parameters a bucket grows by per data-parallel rank (Megatron-Core: max(40M, 1M x dp))"),
    PB(Framework, "dp_continuous", dp_continuous, 0,
       "an upper bound: the exchange hides as if in endless small buckets, all of it that the compute "
       "covers (the ideal stack); no: the stack's buckets, each its own collective"),
    PB(Framework, "pp_overlap", pp_overlap, 0,
       "an interleaved pipeline's stage sends run on their own stream under the next chunk's compute "
       "(Megatron-Core's overlap_p2p_comm); no: each blocks its stage (batch_p2p_comm); no effect on 1F1B"),
    PD(Framework, "comm_efficiency.intra", comm_intra, UNIT_FRACTION, 0.05, 2, 1, 0,
       "the stack's collectives inside a node run at this multiple of the intra tier's efficiency (1: as "
       "the network template says; deepflow calibrate fits it)"),
    PD(Framework, "comm_efficiency.inter", comm_inter, UNIT_FRACTION, 0.05, 2, 1, 0,
       "the stack's collectives between nodes (and pods) run at this multiple of those tiers' efficiency (1: "
       "as the network templates say; deepflow calibrate fits it)"),
    PD(Framework, "comm_latency.intra", comm_alpha_intra, UNIT_TIME, 0, 1e-2, 0, 0,
       "added to every step (hop) of the stack's collectives inside a node, on top of the tier's latency: "
       "the "
       "launch and synchronisation of each of its kernels' steps (0: none; deepflow calibrate fits it)"),
    PD(Framework, "comm_latency.inter", comm_alpha_inter, UNIT_TIME, 0, 1e-2, 0, 0,
       "the same for the collectives between nodes (and pods)"),
    PB(Framework, "fp8_linear_only", fp8_linear_only, 1,
       "with precision fp8, only the linear layers run in fp8; attention and the LM head stay bf16"),
    PB(Framework, "fp8_attention", fp8_attention, 0,
       "with fp8_linear_only and precision fp8 or fp4, fused attention runs in fp8 too (Transformer "
       "Engine's fp8_dot_product_attention, Megatron's --fp8-dot-product-attention, MLPerf's FP8_DPA)"),
    PB(Framework, "fp8_head", fp8_head, 0,
       "with fp8_linear_only and precision fp8 or fp4, the LM head's GEMMs run in fp8 too (Megatron-Core's "
       "fp8_output_proj: the output projection under MXFP8; MLPerf's FP8_OUTPUT_PROJ)"),
    PB(Framework, "fp8_casts", fp8_casts, 1,
       "with fp8 or fp4, the linear layers' operands are quantized (row-wise and transposed copies) by "
       "kernels "
       "that move memory; no: for free (an upper bound)"),
    PE(Framework, "fp8_scaling", fp8_scaling, fp8_scaling_choices, FP8_SCALING_DELAYED, 0,
       "with fp8, where a linear layer's operand scales come from: delayed (Transformer Engine's "
       "DelayedScaling: the amaxes of earlier steps, so the kernel that produces an operand writes it in "
       "fp8: one read), current (TE's Float8CurrentScaling, Megatron's fp8_recipe tensorwise, torchao's "
       "dynamic tensorwise scaling: the tensor's own amax, \"two tensor reads per quantization: one to "
       "compute amax, one to cast\", TE's FP8 Delayed Scaling guide), block (MXFP8: each block's "
       "scale from the block, in the cast's one read, as delayed) or rowwise (torchao's Float8 rowwise "
       "recipe: a scale a row, from the row's own amax, so each orientation of an operand is quantized "
       "from the 16-bit tensor in passes of its own; the forward GEMMs row-scaled at fp8_rowwise_gemm of "
       "the tensor-wise rate, the backward ones tensor-wise with the scales applied to their output by a "
       "kernel of its own); fp4 (NVFP4) always as current: its global scale is the tensor's amax"),
    PD(Framework, "fp8_rowwise_gemm", fp8_rowwise_gemm, UNIT_FRACTION, 0.05, 1, 1, 0,
       "with fp8_scaling rowwise, the rate of a row-wise scaled fp8 GEMM (PyTorch's CUTLASS kernel behind "
       "_scaled_mm) as a fraction of a tensor-wise one's (cuBLAS)"),
    PB(Framework, "grad_sync_each", grad_sync_each, 0,
       "ZeRO-3 / FSDP with several microbatches a step: the gradients are reduce-scattered after every "
       "microbatch's backward (FSDP2's default; torchtitan's and OLMo-core's loops, Composer's with FSDP), "
       "not only after the last (no: DDP's no_sync, set_requires_gradient_sync(False), Megatron-Core); "
       "under a pipeline schedule only the last always (PyTorch's pipelining reduces on the last backward)"),
    PE(Framework, "reshard_after_forward", reshard, reshard_choices, RESHARD_AUTO, 0,
       "ZeRO-3 / FSDP: yes: a layer's weights are gathered for its forward, dropped, and gathered again "
       "for its backward, every microbatch; no: gathered once a step and kept until its last backward "
       "(one all-gather a step, the stage's 16-bit weights whole in memory); auto: no under a pipeline "
       "schedule, yes otherwise (torchtitan's and NeMo AutoModel's reshard_after_forward = not "
       "pp_enabled, with PyTorch's pipelining keeping them after each backward but the last)"),
    PE(Framework, "grad_precision", grad, grad_choices, GRAD_FP32, 0,
       "16-bit training: gradients accumulated and exchanged between data-parallel ranks in fp32 (Megatron's "
       "main_grad) or in the 16-bit type (DeepSpeed's engine)"),
    PE(Framework, "master_weights", master, master_choices, MASTER_COPY, 0,
       "16-bit training: copy (the fp32 master weights beside the 16-bit weights the layers use, Megatron's "
       "and DeepSpeed's optimizers: 2 + 4 bytes a parameter) or params (the fp32 parameters are the masters, "
       "cast to 16 bits as they are gathered for a layer and freed after it: PyTorch FSDP's mixed precision, "
       "4 bytes a parameter)"),
    PE(Framework, "optimizer_state", opt_state, opt_state_choices, OPTSTATE_FP32, 0,
       "16-bit training: the optimizer's moments and master copy in fp32 (4 bytes each: Adam 12 a "
       "parameter) or in the 16-bit type (Apex's DistributedFusedAdam with dtype bf16, NeMo Launcher's "
       "optim.dtype: bf16: 2 bytes each, 6 a parameter)"),
    PE(Framework, "selective_recompute", selective, selective_choices, SELECTIVE_MEGATRON, 0,
       "what recompute: selective keeps: megatron (everything but the attention core, Korthikanti et al. "
       "2022) "
       "or per_op (PyTorch's per-op policy as torchtitan sets it: the output of every matmul but every "
       "second "
       "one and of the attention; norms, activations and the other matmuls recomputed)"),
    PB(Framework, "recompute_saves_alltoall", sel_saves_a2a, 0,
       "with selective_recompute per_op, the expert-parallel all-to-alls' outputs (and the device-to-host "
       "copy of their split sizes) are kept, so recompute redoes the token path's kernels but not its "
       "exchanges or host syncs (torchtitan from September 2025); no: they are redone"),
    PB(Framework, "fused_elementwise", fused_elementwise, 1,
       "norms, rotary embedding and activations as fused kernels (Transformer Engine, torch.compile); no: as "
       "the "
       "element-wise kernels eager PyTorch runs (9x the HBM traffic of a fused RMSNorm, 5x of a fused rotary "
       "embedding, 1.7x of a fused SwiGLU)"),
    PB(Framework, "eager_rotary", eager_rotary, 0,
       "the rotary embedding as the model code's chain of element-wise kernels even where fused_elementwise "
       "fuses the norms and activations (NeMo AutoModel's _apply_rotary_emb beside Transformer Engine's "
       "RMSNorm: 5x a fused kernel's traffic)"),
    PB(Framework, "eager_activation", eager_activation, 0,
       "the MLP's activation as element-wise kernels even where fused_elementwise fuses the norms (NeMo "
       "AutoModel's quick_geglu for GPT-OSS under DeepEP: 10/6 of a fused SwiGLU's traffic)"),
    PB(Framework, "fused_gate_up", fused_gate_up, 1,
       "a gated (SwiGLU) MLP's gate and up projections as one GEMM of twice the width (Megatron-Core's "
       "linear_fc1, Transformer Engine's LayerNormMLP and GroupedLinear); no: two GEMMs of their own, each "
       "reading the input (and quantizing it under fp8) and each input gradient summed (torchtitan's "
       "FeedForward w1 and w3 and its experts' two torch._grouped_mm, OLMo-core's w1 and w3, Hugging Face's "
       "gate_proj and up_proj)"),
    PB(Framework, "fused_cross_entropy", fused_xent, 1,
       "the LM loss as a fused kernel: the 16-bit logits read once, the fp32 softmax written and read (16 "
       "bytes a logit with its gradient); no: op by op on an fp32 copy of the logits (Megatron's "
       "vocab-parallel cross-entropy, PyTorch's cross_entropy on upcast logits: about 52 bytes a logit)"),
    PB(Framework, "grouped_gemm", grouped_gemm, 1,
       "mixture of experts: a rank's experts in one grouped call (Megatron-Core's moe_grouped_gemm, "
       "Transformer Engine's GroupedLinear: one host dispatch, a kernel launch per further expert); no: one "
       "module per expert, each GEMM and activation dispatched from Python (SequentialMLP)"),
    PE(Framework, "grouped_gemm_kernel", grouped_kernel, grouped_kernel_choices, GROUPED_CUBLAS, 0,
       "mixture of experts, with grouped_gemm: cublas (Transformer Engine's GroupedLinear: a cuBLAS GEMM an "
       "expert, at the device's dense rate) or torch (PyTorch's torch._grouped_mm: one CUTLASS kernel for a "
       "rank's experts, at the device's efficiency.grouped_mm)"),
    PE(Framework, "moe_dispatcher", dispatcher, dispatcher_choices, DISPATCH_ALLTOALL, 0,
       "mixture of experts: alltoall (every token-expert pair crosses the network, Megatron-Core's alltoall "
       "dispatcher) or deepep (a token crosses to each node holding one of its experts once and fans out "
       "inside it: DeepEP, Megatron-Core's flex dispatcher)"),
    PB(Framework, "ep_overlap", ep_overlap, 0,
       "mixture of experts: the expert all-to-all of one microbatch runs under another microbatch's compute "
       "(Megatron-Core's overlap_moe_expert_parallel_comm; DualPipe does it by its schedule); only the "
       "unpaired warm-up and drain microbatches show it, and at most the compute hides"),
    PI(Framework, "ep_comm_sms", ep_comm_sms, 0, 1e4, 20, 0, 0,
       "streaming multiprocessors the expert all-to-all's kernels hold while it runs under compute, which "
       "the compute loses for that time (20: DeepSeek-V3 technical report, section 3.2.2)"),
    PI(Framework, "comm_sms", comm_sms, 0, 1e4, 20, 0, 0,
       "streaming multiprocessors the data- and tensor-parallel collectives' kernels hold while they run "
       "under "
       "compute, which the compute loses for that time (20: an H100's compute runs 18.9 % slower on average "
       "beside an overlapped collective, Lee et al., arXiv:2507.03114, i.e. 21 of its 132; DeepSeek-V3 gives "
       "its all-to-all 20)"),
    PI(Framework, "offload_layers", offload_layers, 0, 1e4, 0, 0, 0,
       "transformer layers whose activations the stack copies to host memory after their forward pass and "
       "back before their backward (Megatron-Core's cpu_offloading_num_layers; Transformer Engine's "
       "double-buffered offload, each copy under the next layer's compute), which frees their device memory; "
       "one pipeline stage, no recompute, fewer than the model's layers, a system.host_link, and room in the "
       "devices' share of system.host_memory (0: none)"),
    PE(Framework, "cuda_graphs", cuda_graphs, graphs_choices, GRAPHS_NONE, 0,
       "ops replayed as CUDA graphs pay no host dispatch of their own (op_overhead), one a replay of a "
       "layer's graph: none; router (Megatron-Core's cuda_graph_scope moe_router, moe_preprocess: a mixture "
       "of experts' router, its top-k and loss, and "
       "the dispatcher's token counts and permutation); partial (scope attn, mlp, moe_router, "
       "moe_preprocess: each transformer layer's static-shape work, not a dropless mixture of experts' token "
       "path from the counts' host copies to the combine nor the embedding, head and loss); full "
       "(the whole step; a dropless mixture of experts cannot be captured)"),
    PE(Framework, "conv_layout", conv_layout, layout_choices, LAYOUT_NHWC, 0,
       "a convolutional net's activation layout: nhwc (channels last, what tensor-core convolutions read) or "
       "nchw (channels first: cuDNN transposes the operands of every tensor-core convolution, and runs 3x3 "
       "stride-1 convolutions on the vector units as Winograd F(2x2,3x3) transforms)"),
    PB(Framework, "moe_score_apart", moe_score_apart, 0,
       "a mixture of experts weights its routed outputs by their routing scores in element-wise kernels of "
       "their own before the scatter-add that combines them (torchtitan: routed_output.to(torch.float32) * "
       "scores, .to(x.dtype), then scatter_add; three passes eager, one compiled (fused_elementwise); with "
       "DeepEP one 16-bit multiply); no: the weighting rides in the unpermute kernel (Megatron-Core)"),
    PE(Framework, "moe_permute", moe_permute, permute_choices, PERMUTE_FUSED, 0,
       "mixture of experts: how the tokens are gathered into expert order: fused (Transformer Engine's "
       "moe_permute, Megatron-Core's moe_permute_fusion, DeepEP's layout: the backward gathers too, at the "
       "memory-bound rate) or index (PyTorch's indexing, x[indices], gather, index_select: the backward "
       "accumulates by scatter, index_put_ with accumulate or index_add_, at the device's scatter_add rate)"),
    PE(Framework, "moe_combine", moe_combine, combine_choices, COMBINE_GATHER, 0,
       "mixture of experts: how the routed outputs come back to token order: gather (each token gathers its "
       "top-k outputs: Transformer Engine's moe_unpermute; an index_put_ without accumulation and a batched "
       "sum) or scatter_add (PyTorch's scatter_add_, an atomic add an element, at the device's scatter_add "
       "rate)"),
    PE(Framework, "moe_sort", moe_sort, sort_choices, SORT_CHUNKS, 0,
       "mixture of experts: how a rank re-sorts the tokens it received by its local experts: chunks (the "
       "received chunks concatenated in expert order, Megatron-Core's sort_chunks_by_idxs: its backward a "
       "copy), index (an index gather, torchtitan's x[permuted_indices]: its backward an accumulating "
       "scatter at the device's scatter_add rate) or index_padded (the same after a copy that appends a zero "
       "row, and even without expert parallelism, to pad each expert's rows for torch._grouped_mm: "
       "torchtitan's generate_permute_indices and torch.vstack until early 2026)"),
    PB(Framework, "dgrad_comm_overlap", dgrad_comm_overlap, 0,
       "a convolutional net split over devices: each split layer's input-gradient exchange is copied on a "
       "stream of its own while the layer's weight-gradient kernels, which do not wait for it, run "
       "(TensorFlow 1.x: the input gradient's op is created before the weight gradient's, and a tensor for "
       "another GPU goes on the device-to-device stream); no: it blocks the compute"),
    P_INTERVAL(single_node, "one node"),
    P_INTERVAL(multi_node, "several nodes"),
    P_INTERVAL(uncovered, "a row no validation source covers (every source's out-of-sample residuals)"),
    P_INTERVAL(moe, "a mixture-of-experts row (the published MoE runs, each source left out of the fit)"),
    P_INTERVAL(
        lstm,
        "an LSTM row (the measured V100 LSTM runs of validation/small_batch/lstm.csv, never fitted on)"),
    PS(Framework, "interval.generations", generations, 0,
       "device generations the stack's validation runs cover, space-separated (make validate)"),
    PI(Framework, "interval.max_devices", max_devices, 0, 1e8, 0, 0, 0,
       "devices of the stack's largest validation run: a row on more is beyond what was validated"),
    PI(Framework, "interval.min_batch", min_batch, 0, 1e8, 0, 0, 0,
       "samples a device of the stack's smallest-batch validation run, where its runs bound it (make "
       "validate): "
       "a row with fewer per microbatch is beyond what was validated (0: no bound)"),
    PS(Framework, "interval.models", model_classes, 0,
       "model classes the stack's validation runs cover: dense, moe, lstm, cnn, gemm (make validate)"),
};

static int framework_finish(void *obj, Diag *d)
{
    const Framework *f = obj;
    for (int i = 0; i < FRAMEWORK_REGIMES; i++) {
        const char *nm;
        const Interval *iv = framework_regime(f, i, &nm, NULL);
        if ((iv->lo > 0) != (iv->hi > 0) || (iv->lo > 0 && !(iv->lo <= 1 && iv->hi >= 1)))
            return diag_set(d, NULL, 0, 0,
                            "keys 'interval.%s.lo/hi': need both, with lo <= 1 <= hi (got %g and %g)", nm,
                            iv->lo, iv->hi);
    }
    return 0;
}

const ParamTable param_framework_table = {"frameworks", framework_defs, N(framework_defs), sizeof(Framework),
                                          framework_finish};

/* ---- system ----------------------------------------------------------- */

static const ParamDef system_defs[] = {
    PS(System, "name", name, 1, "system name"),
    PSUB(System, "device", device, param_device_table, 1, "accelerator"),
    PI(System, "devices_per_node", devices_per_node, 1, 1e6, 8, 0, 0, "accelerators per node"),
    PSUB(System, "intra", intra, param_network_table, 1, "scale-up network inside a node"),
    PSUB(System, "inter", inter, param_network_table, 1, "scale-out network between nodes"),
    PI(System, "nodes_per_pod", nodes_per_pod, 0, 1e6, 0, 0, 0,
       "nodes on one scale-out fabric; a group spanning pods crosses the pod network (0: one pod)"),
    PSUB(System, "pod", pod, param_network_table, 0, "data-centre network between pods (with nodes_per_pod)"),
    PSUB(System, "framework", framework, param_framework_table, 1,
         "training stack (templates/frameworks): GEMM efficiency, host overhead, overlap, kernels"),
    PD(System, "host_link", host_bw_bytes_per_s, UNIT_BANDWIDTH, 0, 1e15, 0, 0,
       "bandwidth between an accelerator and its host's memory, per device and direction (NVLink-C2C, "
       "PCIe): what activation offloading (system.framework.offload_layers) copies over (0: not stated)"),
    PD(System, "host_memory", host_memory_bytes, UNIT_BYTES, 0, 1e16, 0, 0,
       "host (CPU) memory of a node, shared by its accelerators: what offloaded activations must fit in "
       "(0: not stated, not checked)"),
    PD(System, "node_power", node_overhead_w, UNIT_POWER, 0, 1e6, 0, 0,
       "per-node power besides the accelerators (host, NICs, fans)"),
    PD(System, "switch_power", switch_w_per_device, UNIT_POWER, 0, 1e5, 0, 0,
       "fabric switch power per accelerator"),
    PD(System, "pue", pue, UNIT_NUMBER, 1, 3, 1, 0, "facility power usage effectiveness"),
    PD(System, "speed_spread", speed_spread, UNIT_FRACTION, 0, 0.5, 0, 0,
       "spread of its devices' sustained speed between parts of one model (coefficient of variation): a "
       "synchronous step runs at the pace of the slowest of its devices (0: all alike)"),
    PD(System, "embodied.node", embodied_node_kg, UNIT_NUMBER, 0, 1e6, 0, 0,
       "embodied carbon of a node besides its accelerators (hosts, DRAM, SSD, NICs, chassis), kg CO2e (0: "
       "not counted)"),
    PD(System, "price.device_hour", price_per_device_hour, UNIT_MONEY, 0, 1e6, 0, 0,
       "cost per accelerator-hour"),
    PD(System, "price.purchase_node", price_purchase_node, UNIT_MONEY, 0, 1e9, 0, 0,
       "purchase price of one node (a rack-scale system: one rack), USD; 0: not known"),
    PD(System, "reliability.failures_per_device_hour", failures_per_device_hour, UNIT_NUMBER, 0, 1, 0, 0,
       "job interruptions per accelerator-hour (0: not modelled)"),
    PD(System, "reliability.checkpoint_write", checkpoint_write_bw, UNIT_BANDWIDTH, 0, 1e15, 0, 0,
       "checkpoint write bandwidth per node"),
    PD(System, "reliability.checkpoint_read", checkpoint_read_bw, UNIT_BANDWIDTH, 0, 1e15, 0, 0,
       "checkpoint read bandwidth per node after a restart (0: as written)"),
    PD(System, "reliability.restart", restart_s, UNIT_TIME, 0, 1e7, 0, 0,
       "time to reschedule and restart the job after an interruption"),
};

static int system_finish(void *obj, Diag *d)
{
    System *s = obj;
    /* the device's and the two tiers' own consistency, again after a row's
     * overrides of them (their keys under device., intra., inter.) */
    const struct {
        int (*finish)(void *, Diag *);
        void *obj;
        const char *prefix;
    } parts[] = {{device_finish, &s->device, "device"},
                 {network_finish, &s->intra, "intra"},
                 {network_finish, &s->inter, "inter"}};
    for (size_t i = 0; i < N(parts); i++)
        if (parts[i].finish(parts[i].obj, d)) {
            for (int k = 0; k < DIAG_KEYS && d->key[k][0]; k++) {
                char key[sizeof d->key[k]];
                snprintf(key, sizeof key, "%s.%s", parts[i].prefix, d->key[k]);
                text_copy(d->key[k], sizeof d->key[k], key);
            }
            return -1;
        }
    if (s->nodes_per_pod > 0 && !(s->pod.bw_bytes_per_s > 0))
        return diag_keyed(
            d, "nodes_per_pod", NULL, NULL,
            "key 'nodes_per_pod': pods need a pod network with a bandwidth (pod: template: ...)");
    return 0;
}

const ParamTable param_system_table = {"systems", system_defs, N(system_defs), sizeof(System), system_finish};

/* ---- convergence ------------------------------------------------------ */

static const char *const conv_kind_choices[] = {"critical_batch", "table", NULL};
static const char *const batch_unit_choices[] = {"samples", "tokens", NULL};

static int conv_finish(void *obj, Diag *d)
{
    Convergence *c = obj;
    if (c->kind == CONV_CRITICAL) {
        int steps_form = c->s_min > 0 && c->b_noise > 0, epochs_form = c->epochs_min > 0 && c->b_crit > 0;
        if (!steps_form && !epochs_form)
            return diag_set(d, NULL, 0, 0,
                            "a critical_batch convergence needs s_min and b_noise, or epochs_min and b_crit");
    } else {
        if (c->table.n < 2)
            return diag_keyed(d, "points", NULL, NULL,
                              "key 'points': a table convergence needs at least 2 points");
        for (int i = 0; i < c->table.n; i++) {
            if (!(c->table.x[i] > 0 && c->table.y[i] > 0))
                return diag_keyed(d, "points", NULL, NULL,
                                  "key 'points': point %d: batch and epochs must be > 0", i + 1);
            if (i && !(c->table.x[i] > c->table.x[i - 1]))
                return diag_keyed(d, "points", NULL, NULL, "key 'points': batches must increase (point %d)",
                                  i + 1);
        }
    }
    { /* the band brackets the critical batch (b_noise in the steps form) */
        const double b = c->b_crit > 0 ? c->b_crit : c->b_noise;
        if ((c->band_lo > 0 || c->band_hi > 0) && !(b > 0))
            return diag_keyed(
                d, c->band_lo > 0 ? "b_crit_low" : "b_crit_high", NULL, NULL,
                "keys 'b_crit_low', 'b_crit_high' bracket a critical batch: set b_crit (or b_noise)");
        if (c->band_lo > 0 && c->band_lo > b)
            return diag_keyed(d, "b_crit_low", NULL, NULL,
                              "key 'b_crit_low': b_crit_low (%g) is above the critical batch (%g)",
                              c->band_lo, b);
        if (c->band_hi > 0 && c->band_hi < b)
            return diag_keyed(d, "b_crit_high", NULL, NULL,
                              "key 'b_crit_high': b_crit_high (%g) is below the critical batch (%g)",
                              c->band_hi, b);
    }
    return 0;
}

static const ParamDef convergence_defs[] = {
    PS(Convergence, "name", name, 1, "convergence curve"),
    PE(Convergence, "kind", kind, conv_kind_choices, CONV_CRITICAL, 0,
       "critical_batch (McCandlish et al. 2018) or table (measured points)"),
    PE(Convergence, "unit", unit, batch_unit_choices, BATCH_SAMPLES, 0, "what the global batch counts"),
    PD(Convergence, "s_min", s_min, UNIT_NUMBER, 0, 1e12, 0, 0, "steps at an infinite batch"),
    PD(Convergence, "b_noise", b_noise, UNIT_NUMBER, 0, 1e15, 0, 0, "gradient noise scale (batch)"),
    PD(Convergence, "epochs_min", epochs_min, UNIT_NUMBER, 0, 1e9, 0, 0, "epochs at a batch of 1"),
    PD(Convergence, "b_crit", b_crit, UNIT_NUMBER, 0, 1e15, 0, 0, "critical batch"),
    PD(Convergence, "b_crit_low", band_lo, UNIT_NUMBER, 0, 1e15, 0, 0,
       "the critical batch's plausible low end, for the reports' sensitivity (0: half of it)"),
    PD(Convergence, "b_crit_high", band_hi, UNIT_NUMBER, 0, 1e15, 0, 0,
       "the critical batch's plausible high end, for the reports' sensitivity (0: twice it)"),
    PS(Convergence, "measured.model", measured_model, 0,
       "the model the curve was measured on (a scenario of another model borrows it)"),
    PD(Convergence, "measured.min", measured_min, UNIT_NUMBER, 0, 1e15, 0, 0,
       "smallest global batch the source measured (default: the first point)"),
    PD(Convergence, "measured.max", measured_max, UNIT_NUMBER, 0, 1e15, 0, 0,
       "largest global batch the source measured (default: the last point)"),
    {"points", offsetof(Convergence, table), P_POINTS, UNIT_NUMBER, 0, CONV_MAX_POINTS, 0, 0, 0, 0, NULL,
     NULL, "measured (global batch, epochs to target) points"},
};

const ParamTable param_convergence_table = {"convergence", convergence_defs, N(convergence_defs),
                                            sizeof(Convergence), conv_finish};

/* ---- model ------------------------------------------------------------ */

static const char *const mlp_choices[] = {"gelu", "swiglu", NULL};
static const char *const norm_choices[] = {"layernorm", "rmsnorm", NULL};
static const char *const pos_choices[] = {"learned", "rotary", NULL};
static const char *const attn_choices[] = {"auto", "unfused", "fused", NULL};
static const char *const lstm_split_choices[] = {"auto", "rc", "cr", NULL};
static const char *const cnn_split_choices[] = {"auto", "kernel", "branch", NULL};
static const char *const optimizer_choices[] = {"adam", "sgd_momentum", "rmsprop", "adagrad", "lamb", NULL};

static int model_finish(void *obj, Diag *d)
{
    Model *m = obj;
    if (m->kind == MODEL_TRANSFORMER) {
        const char *miss = !m->layers    ? "layers"
                           : !m->hidden  ? "hidden"
                           : !m->heads   ? "heads"
                           : !m->seq_len ? "seq_len"
                           : !m->vocab   ? "vocab"
                                         : NULL;
        if (miss)
            return diag_keyed(d, miss, NULL, NULL, "key '%s': required for a transformer model", miss);
        if (m->ffn == 0)
            m->ffn = 4 * m->hidden;
        if (m->experts > 0) {
            if (m->expert_ffn == 0)
                m->expert_ffn = m->ffn;
            if (m->experts_per_token < 1 || m->experts_per_token > m->experts)
                return diag_keyed(
                    d, "experts_per_token", "experts", NULL,
                    "keys 'experts_per_token', 'experts': a token goes to 1 to %d experts, got %d",
                    m->experts, m->experts_per_token);
        }
        if (m->experts == 0 && (m->dense_layers > 0 || m->moe_every > 1))
            return diag_keyed(d, m->dense_layers > 0 ? "dense_layers" : "moe_every", "experts", NULL,
                              "key '%s': sets which layers route to experts, and the model has none "
                              "(experts 0)",
                              m->dense_layers > 0 ? "dense_layers" : "moe_every");
        if (m->experts > 0 && m->dense_layers >= m->layers)
            return diag_keyed(
                d, "dense_layers", "layers", NULL,
                "keys 'dense_layers', 'layers': %d dense layers of %d leave no layer to route to "
                "experts",
                m->dense_layers, m->layers);
        if (m->kv_lora_rank == 0 && (m->q_lora_rank > 0 || m->rope_head_dim > 0 || m->v_head_dim > 0))
            return diag_keyed(d, "kv_lora_rank", NULL, NULL,
                              "key 'kv_lora_rank': q_lora_rank, rope_head_dim and v_head_dim describe "
                              "multi-head latent attention, which needs kv_lora_rank > 0");
        if (m->kv_lora_rank > 0 && m->kv_heads > 0 && m->kv_heads != m->heads)
            return diag_keyed(d, "kv_heads", "kv_lora_rank", NULL,
                              "keys 'kv_heads', 'kv_lora_rank': latent attention projects keys and values "
                              "up for every head: kv_heads must equal heads (%d), got %d",
                              m->heads, m->kv_heads);
        if (m->kv_heads == 0)
            m->kv_heads = m->heads;
        if (m->head_dim == 0 && m->hidden % m->heads)
            return diag_keyed(d, "hidden", "heads", NULL,
                              "keys 'hidden', 'heads': hidden (%d) is not divisible by heads (%d)", m->hidden,
                              m->heads);
        if (m->heads % m->kv_heads)
            return diag_keyed(d, "kv_heads", "heads", NULL,
                              "keys 'kv_heads', 'heads': heads (%d) must be a multiple of kv_heads (%d)",
                              m->heads, m->kv_heads);
    } else if (m->kind == MODEL_GEMM) {
        if (m->m < 1 || m->n < 1 || m->k < 1)
            return diag_set(d, NULL, 0, 0, "keys 'm', 'n', 'k': required for a gemm model");
    }
    return 0;
}

static const ParamDef model_defs[] = {
    PS(Model, "name", name, 1, "model name"),
    PE(Model, "kind", kind, model_kind_names, MODEL_TRANSFORMER, 0, "graph kind"),
    PI(Model, "layers", layers, 1, 1e5, 0, 0, 0, "transformer layers"),
    PI(Model, "hidden", hidden, 1, 1e7, 0, 0, 0, "hidden size"),
    PI(Model, "heads", heads, 1, 1e5, 0, 0, 0, "attention heads"),
    PI(Model, "kv_heads", kv_heads, 0, 1e5, 0, 0, 0, "key/value heads (GQA); default = heads"),
    PI(Model, "head_dim", head_dim, 0, 1e5, 0, 0, 0,
       "width of one attention head (0: hidden / heads); the queries span heads x head_dim, which may differ "
       "from hidden (Qwen3, Gemma, GPT-OSS)"),
    PI(Model, "seq_len", seq_len, 1, 1e8, 0, 0, 0, "sequence length (tokens per sample)"),
    PI(Model, "vocab", vocab, 1, 1e8, 0, 0, 0, "vocabulary size"),
    PI(Model, "ffn", ffn, 0, 1e8, 0, 0, 0, "MLP inner size; default 4 x hidden"),
    PI(Model, "experts", experts, 0, 1e5, 0, 0, 0,
       "routed experts per layer (mixture of experts; 0: dense MLP)"),
    PI(Model, "experts_per_token", experts_per_token, 0, 1e4, 0, 0, 0,
       "experts each token is routed to (top-k)"),
    PI(Model, "expert_ffn", expert_ffn, 0, 1e8, 0, 0, 0, "inner size of one expert's MLP; default ffn"),
    PI(Model, "shared_experts", shared_experts, 0, 1e4, 0, 0, 0,
       "experts every token passes through besides its routed ones"),
    PD(Model, "capacity_factor", capacity_factor, UNIT_NUMBER, 0, 1e3, 0, 0,
       "tokens an expert takes at most, over its fair share (0: dropless)"),
    PD(Model, "expert_imbalance", expert_imbalance, UNIT_NUMBER, 1, 1e3, 1, 0,
       "tokens of the busiest expert-parallel rank's experts over their share (load imbalance after "
       "routing); none without expert parallelism, where one rank takes every token-expert pair"),
    PI(Model, "expert_groups", expert_groups, 0, 1e5, 0, 0, 0,
       "group-limited routing: the experts fall in this many groups of consecutive experts, a token's "
       "from at most groups_per_token of them (DeepSeek-V3: 8; 0: no groups)"),
    PI(Model, "groups_per_token", groups_per_token, 0, 1e5, 0, 0, 0,
       "group-limited routing: the groups a token's experts may come from (DeepSeek-V3: 4 of its 8, "
       "one node each; a round-robin benchmark gate that gives each token top-k consecutive experts: "
       "1 of experts / top-k)"),
    PI(Model, "dense_layers", dense_layers, 0, 1e5, 0, 0, 0,
       "mixture of experts: the first dense_layers layers have a dense MLP of ffn (DeepSeek-V3: 3)"),
    PI(Model, "moe_every", moe_every, 1, 1e5, 1, 0, 0,
       "mixture of experts: of the layers after dense_layers every moe_every-th routes to experts, the "
       "others have a dense MLP of ffn (Llama 4 Maverick: 2)"),
    PI(Model, "q_lora_rank", q_lora_rank, 0, 1e6, 0, 0, 0,
       "multi-head latent attention: width of the query bottleneck (0: queries projected directly)"),
    PI(Model, "kv_lora_rank", kv_lora_rank, 0, 1e6, 0, 0, 0,
       "multi-head latent attention: width of the compressed keys and values (0: no latent attention)"),
    PI(Model, "rope_head_dim", rope_head_dim, 0, 1e5, 0, 0, 0,
       "multi-head latent attention: the decoupled rotary part of each query and of the shared key"),
    PI(Model, "v_head_dim", v_head_dim, 0, 1e5, 0, 0, 0,
       "multi-head latent attention: width of one head's value (0: head_dim)"),
    PI(Model, "mtp_layers", mtp_layers, 0, 100, 0, 0, 0,
       "multi-token prediction modules after the last layer, each a layer, a projection and the LM head "
       "again (DeepSeek-V3: 1)"),
    PE(Model, "mlp", mlp, mlp_choices, MLP_GELU, 0, "MLP kind"),
    PE(Model, "norm", norm, norm_choices, NORM_LAYERNORM, 0, "normalisation"),
    PE(Model, "position", position, pos_choices, POS_LEARNED, 0, "position embedding"),
    PE(Model, "attention", attention, attn_choices, ATTN_AUTO, 0,
       "attention kernel: unfused (s x s scores in HBM), fused (flash) or auto (the training stack's)"),
    PB(Model, "tied_embeddings", tied_embeddings, 1, "LM head shares the input embedding"),
    PB(Model, "dropout", dropout, 1,
       "dropout after the embedding and on each residual branch (GPT-3, BERT; 0.1 in Megatron's defaults): "
       "its 1-byte masks are kept for backward; no for models trained without it (Llama, MPT)"),
    PB(Model, "causal", causal, 1,
       "causal (decoder) attention: fused kernels skip the masked half of the score blocks; no for encoders"),
    PI(Model, "attention_window", window, 0, 1e8, 0, 0, 0,
       "sliding-window attention: a query attends to the last attention_window keys (0: the whole sequence; "
       "with fused attention)"),
    PD(Model, "window_layers", window_layers, UNIT_FRACTION, 0, 1, 1, 0,
       "share of the layers with the sliding window (GPT-OSS alternates windowed and full layers: 0.5)"),
    PI64(Model, "m", m, 1, 1e9, 0, 0, "GEMM rows of A and C"),
    PI64(Model, "n", n, 1, 1e9, 0, 0, "GEMM columns of B and C"),
    PI64(Model, "k", k, 1, 1e9, 0, 0, "GEMM inner dimension"),
    PI(Model, "proj", proj, 0, 1e7, 0, 0, 0, "LSTM projection size (LSTMP); 0: none"),
    PI(Model, "samples", samples, 0, 1e8, 0, 0, 0,
       "LSTM sampled-softmax classes per batch; 0: full softmax over the vocabulary"),
    PI(Model, "enc_layers", enc_layers, 0, 1e5, 0, 0, 0,
       "seq2seq LSTM: encoder layers (the first bidirectional); 0: language model"),
    PI(Model, "dec_layers", dec_layers, 0, 1e5, 0, 0, 0, "seq2seq LSTM: decoder layers"),
    PI(Model, "tgt_len", tgt_len, 0, 1e8, 0, 0, 0, "seq2seq LSTM: target timesteps; default seq_len"),
    PI(Model, "lstm_biases", lstm_biases, 1, 2, 1, 0, 0,
       "LSTM bias vectors per gate block: 1 (TensorFlow), 2 (PyTorch/cuDNN)"),
    PE(Model, "lstm_split", lstm_split, lstm_split_choices, LSTM_SPLIT_AUTO, 0,
       "LSTM gate-GEMM split over tp: rc (columns), cr (reduction), auto (less traffic)"),
    PI(Model, "image_size", image_size, 1, 1e5, 0, 0, 0, "cnn input height and width (pixels)"),
    PI(Model, "channels", channels, 1, 1e5, 0, 0, 0, "cnn input channels"),
    PI(Model, "classes", classes, 0, 1e8, 0, 0, 0, "cnn output classes (the softmax width; 0: not checked)"),
    PE(Model, "cnn_split", cnn_split, cnn_split_choices, CNN_SPLIT_AUTO, 0,
       "cnn model parallelism over tp at a concat: kernel (every conv's output channels), branch (whole "
       "branches on devices, one all-gather), auto (per concat the lower estimated time)"),
    PE(Model, "optimizer", optimizer, optimizer_choices, OPT_ADAM, 0,
       "optimizer: adam, sgd_momentum, rmsprop, adagrad or lamb (its state per parameter and step cost)"),
    PB(Model, "sparse_grads", sparse_grads, 0,
       "the embedding's (and a sampled softmax's) gradients are the touched rows only (TensorFlow "
       "IndexedSlices): exchanged by all-gather when that is cheaper, updated sparsely by SGD, RMSProp, "
       "Adagrad"),
    PD(Model, "train_tokens", train_tokens, UNIT_NUMBER, 0, 1e18, 0, 0, "tokens to train on"),
    PD(Model, "train_samples", train_samples, UNIT_NUMBER, 0, 1e18, 0, 0, "samples to train on"),
    PD(Model, "dataset_samples", dataset_samples, UNIT_NUMBER, 0, 1e18, 0, 0,
       "samples in one epoch of the dataset"),
    PSUB(Model, "convergence", convergence, param_convergence_table, 0,
         "steps to train as a function of the global batch"),
};

const ParamTable param_model_table = {"models", model_defs, N(model_defs), sizeof(Model), model_finish};

/* ---- site ------------------------------------------------------------- */

static const ParamDef site_defs[] = {
    PS(Site, "name", name, 1, "site name as printed in reports"),
    PD(Site, "grid_intensity", grid_gco2_kwh, UNIT_NUMBER, 0, 2000, 390, 0,
       "grid carbon intensity, g CO2e per kWh at the wall (default 390: the US average of 2022, 0.86 lb "
       "CO2 per kWh, EIA)"),
    PD(Site, "pue", pue, UNIT_NUMBER, 0, 3, 0, 0,
       "the site's power usage effectiveness, over the system template's (0: the system's)"),
    PD(Site, "electricity_price", electricity_usd_kwh, UNIT_MONEY, 0, 10, 0, 0,
       "the site's price of a kWh at the wall, USD, over the scenario's default (0: the scenario's)"),
    PD(Site, "facility_cost", facility_usd_kw_year, UNIT_MONEY, 0, 1e5, 0, 0,
       "building, power and cooling per kW of peak IT power a year, USD (0: not known, left out of the cost "
       "of owning)"),
    PD(Site, "power_envelope", power_envelope_w, UNIT_POWER, 0, 1e12, 0, 0,
       "the most power the facility delivers at the wall: a constraint on the run's peak power (0: none)"),
    PD(Site, "ramp_limit", ramp_limit_w_s, UNIT_POWER_RATE, 0, 1e12, 0, 0,
       "the fastest the facility's power may change, as its utility states it (MW/s): a synchronous step's "
       "dip is held to it, and the power burnt holding it up is counted (0: none, the power steps)"),
};

static int site_finish(void *obj, Diag *d)
{
    const Site *s = obj;
    if (s->pue > 0 && s->pue < 1)
        return diag_keyed(
            d, "pue", NULL, NULL,
            "key 'pue': a power usage effectiveness is at least 1 (the IT power itself), got %g", s->pue);
    return 0;
}

const ParamTable param_site_table = {"sites", site_defs, N(site_defs), sizeof(Site), site_finish};

/* ---- scenario row ----------------------------------------------------- */

static const ParamDef scenario_defs[] = {
    PS(Scenario, "scenario", name, 0, "name of the row"),
    PS(Scenario, "series", series, 0, "chart line the row belongs to"),
    PS(Scenario, "baseline", baseline, 0,
       "series to compare with: speedup at the same device count and model"),
    PSUB(Scenario, "system", system, param_system_table, 1, "system template"),
    PSUB(Scenario, "model", model, param_model_table, 1, "model template"),
    PI(Scenario, "devices", devices, 1, 1e7, 1, 0, 0, "total accelerators"),
/* the strategy's axes, one row each from core/strategy.h's table */
#define AXIS_PARAM(ID, field, ctype, ptype, choices, lo, hi, def, walk, unit, abbr, label, help)             \
    {#field,  offsetof(Scenario, st.field),                                                                  \
     ptype,   (ptype) == P_INT ? UNIT_INTEGER : UNIT_NUMBER,                                                 \
     lo,      hi,                                                                                            \
     def,     0,                                                                                             \
     1,       0,                                                                                             \
     choices, NULL,                                                                                          \
     help},
    STRATEGY_AXES(AXIS_PARAM)
#undef AXIS_PARAM
        PI64(Scenario, "global_batch", st.global_batch, 1, 1e9, 0, 0,
             "samples per optimizer step; default microbatch x dp"),
    PI(Scenario, "replica_batch", replica_batch, 0, 1e9, 0, 0, 1,
       "samples per data-parallel replica per step (global_batch = replica_batch x dp); auto: the search "
       "tries powers of two from 1 to 1,024"),
    PE(Scenario, "precision", precision, precision_names, PREC_BF16, 0, "training precision"),
    PD(Scenario, "power_cap", power_cap_w, UNIT_POWER, 0, 1e5, 0, 0,
       "per-device power cap (DVFS lowers the clock to meet it: below the TDP, the GEMMs' power as well as "
       "the step's average); default the TDP"),
    PE(Scenario, "codesign", codesign, codesign_names, CODESIGN_NONE, 0,
       "co-design: the budget splits of the derive: device to optimise jointly with the strategy (area, "
       "power, area+power, all: also the die edge)"),
    PI(Scenario, "codesign_starts", codesign_starts, 1, 64, 4, 0, 0,
       "co-design: starts of the split search (the template's split and seeded random ones)"),
    PI(Scenario, "codesign_seed", codesign_seed, 0, 2147483647, 1, 0, 0,
       "co-design: seed of the random starts (the same seed, the same answer)"),
    PI(Scenario, "min_mp", min_mp, 1, 1e5, 1, 0, 0, "search: smallest tp x pp"),
    PI(Scenario, "max_mp", max_mp, 1, 1e5, 1e5, 0, 0, "search: largest tp x pp"),
    PD(Scenario, "train_tokens", train_tokens, UNIT_NUMBER, 0, 1e18, 0, 0, "tokens to train on"),
    PD(Scenario, "train_samples", train_samples, UNIT_NUMBER, 0, 1e18, 0, 0, "samples to train on"),
    PD(Scenario, "epochs", epochs, UNIT_NUMBER, 0, 1e9, 0, 0, "epochs over the dataset"),
    PD(Scenario, "deadline", deadline_s, UNIT_TIME, 0, 1e12, 0, 0,
       "the longest time to train the recommendation may take (e.g. 30 days)"),
    PD(Scenario, "budget", budget_usd, UNIT_MONEY, 0, 1e15, 0, 0,
       "the most the training may cost at list price (USD)"),
    PD(Scenario, "power_budget", power_budget_w, UNIT_POWER, 0, 1e12, 0, 0,
       "the most power the system may draw at the wall"),
    PD(Scenario, "electricity_price", electricity_usd_kwh, UNIT_MONEY, 0, 10, 0.0806, 0,
       "price of a kWh at the wall, USD (default 0.0806: the US industrial average of 2023, EIA)"),
    PD(Scenario, "amortisation_years", amortisation_years, UNIT_NUMBER, 0.5, 30, 5, 0,
       "years a bought system is written off over (default 5: the servers' useful life in Meta's and "
       "Amazon's 10-Ks, 2022-2025; Microsoft and Alphabet 6)"),
    PD(Scenario, "carbon_budget", carbon_budget_t, UNIT_NUMBER, 0, 1e12, 0, 0,
       "the most CO2e the run may emit, operational and embodied, in tonnes"),
    PD(Scenario, "service_life", service_life_years, UNIT_NUMBER, 0.5, 30, 5, 0,
       "years of use the hardware's embodied carbon is shared over (default 5)"),
    PSUB(Scenario, "site", site, param_site_table, 0,
         "site template (templates/sites): grid carbon intensity, PUE, electricity price, facility cost"),
};

const ParamTable param_scenario_table = {"scenarios", scenario_defs, N(scenario_defs), sizeof(Scenario),
                                         NULL};

/* ---- generic operations ---------------------------------------------- */

/* Keys that moved, still accepted under their old names: tables and
 * templates of users name them. */
static const struct {
    const ParamTable *table;
    const char *old_key, *new_key;
} key_aliases[] = {
    {&param_system_table, "dp_overlap", "framework.dp_overlap"},
    {&param_scenario_table, "grid_intensity", "site.grid_intensity"},
    {&param_scenario_table, "power_envelope", "site.power_envelope"},
};

const char *param_alias(const ParamTable *t, const char *key)
{
    for (size_t i = 0; i < N(key_aliases); i++)
        if (key_aliases[i].table == t && !strcasecmp(key_aliases[i].old_key, key))
            return key_aliases[i].new_key;
    return NULL;
}

const ParamDef *param_find(const ParamTable *t, const char *key, const ParamTable **table_out,
                           size_t *base_off_out)
{
    size_t base = 0;
    for (;;) {
        const char *moved = param_alias(t, key);
        if (moved)
            key = moved;
        const ParamDef *sub = NULL;
        size_t sublen = 0;
        const int first = tolower((unsigned char)key[0]);
        for (size_t i = 0; i < t->count; i++) {
            const ParamDef *def = &t->defs[i];
            if (tolower((unsigned char)def->key[0]) != first) /* most keys differ at once */
                continue;
            if (!strcasecmp(def->key, key)) {
                if (table_out)
                    *table_out = t;
                if (base_off_out)
                    *base_off_out = base;
                return def;
            }
            if (def->type != P_SUB)
                continue;
            const size_t kl = strlen(def->key);
            if (!strncasecmp(def->key, key, kl) && key[kl] == '.' && kl > sublen) {
                sub = def;
                sublen = kl;
            }
        }
        if (!sub)
            return NULL;
        base += sub->offset;
        key += sublen + 1;
        t = sub->sub;
    }
}

static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int c = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int v = prev[j - 1] + c;
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            cur[j] = v;
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

typedef struct {
    const char *key;
    int best_d;
    char *buf;
    size_t n;
} Suggest;

static void suggest_visit(const char *fullkey, const ParamDef *def, const void *obj, void *ctx)
{
    (void)def;
    (void)obj;
    Suggest *s = ctx;
    int dist = edit_distance(s->key, fullkey);
    if (dist < s->best_d) {
        s->best_d = dist;
        snprintf(s->buf, s->n, "%s", fullkey);
    }
}

int param_suggest(const ParamTable *t, const char *key, char *buf, size_t n)
{
    Suggest s = {key, 99, buf, n};
    static const char zero[sizeof(Scenario)] = {0}; /* largest struct; walk reads no field */
    param_walk(t, zero, "", suggest_visit, &s);
    size_t kl = strlen(key);
    int limit = kl <= 4 ? 1 : kl <= 8 ? 2 : 3;
    return s.best_d <= limit;
}

void param_defaults(const ParamTable *t, void *obj)
{
    char *base = obj;
    for (size_t i = 0; i < t->count; i++) {
        const ParamDef *def = &t->defs[i];
        void *f = base + def->offset;
        switch (def->type) {
        case P_DOUBLE:
            *(double *)f = def->def;
            break;
        case P_INT:
        case P_BOOL:
        case P_ENUM:
            *(int *)f = (int)def->def;
            break;
        case P_INT64:
            *(int64_t *)f = (int64_t)def->def;
            break;
        case P_STRING:
            *(char *)f = '\0';
            break;
        case P_SUB:
            param_defaults(def->sub, f);
            break;
        case P_POINTS:
            *(int *)f = 0;
            break;
        }
    }
}

void param_expect(const ParamDef *def, char *buf, size_t n)
{
    switch (def->type) {
    case P_DOUBLE:
        if (def->max >= BIG)
            snprintf(buf, n, "%s >= %g", unit_expect(def->unit), def->min);
        else
            snprintf(buf, n, "%s in [%g, %g]", unit_expect(def->unit), def->min, def->max);
        break;
    case P_INT:
    case P_INT64:
        snprintf(buf, n, "an integer in [%.0f, %.0f]%s", def->min, def->max,
                 def->auto_ok ? " or 'auto'" : "");
        break;
    case P_BOOL:
        snprintf(buf, n, def->auto_ok ? "yes, no or auto" : "yes or no");
        break;
    case P_ENUM: {
        size_t len = 0;
        buf[0] = '\0';
        /* "one of none, selective, full or auto": auto is the last choice */
        for (int i = 0; def->choices[i]; i++) {
            int last = !def->choices[i + 1] && !def->auto_ok;
            int w =
                snprintf(buf + len, n - len, "%s%s", i ? (last ? " or " : ", ") : "one of ", def->choices[i]);
            if (w < 0 || (size_t)w >= n - len)
                return;
            len += (size_t)w;
        }
        if (def->auto_ok)
            snprintf(buf + len, n - len, " or auto");
        break;
    }
    case P_STRING:
        snprintf(buf, n, "a name of at most %zu characters", def->size - 1);
        break;
    case P_SUB:
        snprintf(buf, n, "a template name from templates/%s", def->sub->kind);
        break;
    case P_POINTS:
        snprintf(buf, n, "at most %.0f points [x, y] (or 'x:y;x:y')", def->max);
        break;
    }
}

/* The value as a message quotes it: a long one is cut (on a character
 * boundary, marked "...") so that what was expected and why still fit. */
#define QUOTE_MAX 120

static int bad_value(const ParamDef *def, const char *fullkey, const char *text, const char *why, Diag *d)
{
    char exp[256], got[QUOTE_MAX + 8];
    param_expect(def, exp, sizeof exp);
    size_t l = strlen(text);
    if (l > QUOTE_MAX) {
        l = QUOTE_MAX;
        while (l > 0 && ((unsigned char)text[l] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
            l--;
        snprintf(got, sizeof got, "%.*s...", (int)l, text);
    } else {
        snprintf(got, sizeof got, "%s", text);
    }
    if (why && *why)
        return diag_set(d, NULL, 0, 0, "%s: expected %s, got '%s' (%s)", fullkey, exp, got, why);
    return diag_set(d, NULL, 0, 0, "%s: expected %s, got '%s'", fullkey, exp, got);
}

static int is_word(const char *text, const char *w)
{
    while (isspace((unsigned char)*text))
        text++;
    size_t l = strlen(w);
    if (strncasecmp(text, w, l))
        return 0;
    text += l;
    while (isspace((unsigned char)*text))
        text++;
    return *text == '\0';
}

/* "x:y;x:y;..." into a Points. */
static int set_points(const ParamDef *def, void *f, const char *label, const char *text, Diag *d)
{
    Points *c = f;
    const int max = (int)def->max;
    int n = 0;
    char item[128], why[128];
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len >= sizeof item || n >= max)
            return bad_value(def, label, text, n >= max ? "too many points" : "point too long", d);
        memcpy(item, p, len);
        item[len] = '\0';
        char *colon = strchr(item, ':');
        if (!colon)
            return bad_value(def, label, text, "a point is written x:y", d);
        *colon = '\0';
        if (unit_parse(item, UNIT_NUMBER, &c->x[n], why, sizeof why) ||
            unit_parse(colon + 1, UNIT_NUMBER, &c->y[n], why, sizeof why))
            return bad_value(def, label, text, why, d);
        n++;
        p += len + (end ? 1 : 0);
    }
    c->n = n;
    return 0;
}

/* Values a key accepts but that lie outside what the model was built and
 * checked for: taken, with a warning that says why (the goodput model's
 * inputs, issue 29). */
static const struct {
    const char *key; /* the definition's key */
    double lo, hi;   /* the plausible range, in the key's unit */
    const char *why;
} soft_ranges[] = {
    {"reliability.failures_per_device_hour", 1e-6, 1e-3,
     "the published fleets of the shipped systems interrupt a job 2e-5 (Llama 3, 16,384 H100s) to 7.4e-5 "
     "(OPT-175B, 992 A100s) times per accelerator-hour; beyond 1e-3 Daly's checkpoint model spends the run "
     "restarting, below 1e-6 failures play no part (a rate per node, or per day?)"},
    {"reliability.checkpoint_write", 1e7, 1e12,
     "a node writes its share of a checkpoint at 10 MB/s to 1 TB/s (the shipped systems: about 1.2 GB/s, "
     "OPT-175B's GPFS) (bits for bytes, or the whole cluster's rate?)"},
    {"reliability.restart", 1.0, 86400.0,
     "a restart (rescheduling, start-up, reading the checkpoint back) takes seconds to hours"},
};

int param_set(const ParamDef *def, void *obj, const char *fullkey, const char *text, Diag *d)
{
    if (d) /* a warning is about this value only */
        d->warning[0] = '\0';
    void *f = (char *)obj + def->offset;
    char why[128] = "";
    double v = 0;
    switch (def->type) {
    case P_DOUBLE:
        if (unit_parse(text, def->unit, &v, why, sizeof why))
            return bad_value(def, fullkey, text, why, d);
        /* "deadline=30": seconds to the parser, days to whoever typed it */
        if (def->unit == UNIT_TIME && v != 0 && !unit_given(text))
            return bad_value(
                def, fullkey, text,
                "a bare number would be seconds: give the unit, as 30 days, 12 h, 10 min or 75 us", d);
        if (!(v >= def->min && v <= def->max))
            return bad_value(def, fullkey, text, "out of range", d);
        *(double *)f = v;
        if (d) {
            d->warning[0] = '\0';
            for (size_t i = 0; i < sizeof soft_ranges / sizeof soft_ranges[0]; i++)
                if (!strcmp(def->key, soft_ranges[i].key) && v > 0 &&
                    (v < soft_ranges[i].lo || v > soft_ranges[i].hi))
                    snprintf(d->warning, sizeof d->warning,
                             "%s: '%s' is outside the goodput model's range: %s", fullkey, text,
                             soft_ranges[i].why);
            if (def->unit == UNIT_BYTES && unit_is_bits(text)) {
                char shown[64];
                unit_format(v, UNIT_BYTES, shown, sizeof shown);
                snprintf(d->warning, sizeof d->warning,
                         "%s: '%s' is in bits, %s; a size is usually in bytes (B, GiB: capital B)", fullkey,
                         text, shown);
            }
        }
        return 0;
    case P_INT:
    case P_INT64:
        if (def->auto_ok && is_word(text, "auto")) {
            if (def->type == P_INT)
                *(int *)f = AUTO_VALUE;
            else
                *(int64_t *)f = AUTO_VALUE;
            return 0;
        }
        if (unit_parse(text, UNIT_INTEGER, &v, why, sizeof why))
            return bad_value(def, fullkey, text, why, d);
        if (!(v >= def->min && v <= def->max))
            return bad_value(def, fullkey, text, "out of range", d);
        if (def->type == P_INT)
            *(int *)f = (int)v;
        else
            *(int64_t *)f = (int64_t)v;
        return 0;
    case P_BOOL:
        if (def->auto_ok && is_word(text, "auto")) {
            *(int *)f = AUTO_VALUE;
            return 0;
        }
        if (is_word(text, "yes") || is_word(text, "true") || is_word(text, "on") || is_word(text, "1"))
            *(int *)f = 1;
        else if (is_word(text, "no") || is_word(text, "false") || is_word(text, "off") || is_word(text, "0"))
            *(int *)f = 0;
        else
            return bad_value(def, fullkey, text, NULL, d);
        return 0;
    case P_ENUM:
        if (def->auto_ok && is_word(text, "auto")) {
            *(int *)f = AUTO_VALUE;
            return 0;
        }
        for (int i = 0; def->choices[i]; i++)
            if (is_word(text, def->choices[i])) {
                *(int *)f = i;
                return 0;
            }
        return bad_value(def, fullkey, text, NULL, d);
    case P_STRING: {
        while (isspace((unsigned char)*text))
            text++;
        size_t l = strlen(text);
        while (l && isspace((unsigned char)text[l - 1]))
            l--;
        if (l == 0 || l >= def->size)
            return bad_value(def, fullkey, text, l ? "too long" : "empty", d);
        memcpy(f, text, l);
        ((char *)f)[l] = '\0';
        /* a name is echoed to terminals, CSVs and workbooks: control and
         * bidi characters are kept as visible escapes (core/text.h) */
        if (text_escape_inplace(f, def->size))
            return bad_value(def, fullkey, text, "too long once its control characters are escaped", d);
        return 0;
    }
    case P_SUB:
        return diag_set(d, NULL, 0, 0, "%s: a template reference is resolved by the loader", fullkey);
    case P_POINTS:
        return set_points(def, f, fullkey, text, d);
    }
    return -1;
}

int param_format(const ParamDef *def, const void *obj, char *buf, size_t n)
{
    const void *f = (const char *)obj + def->offset;
    switch (def->type) {
    case P_DOUBLE:
        return unit_format(*(const double *)f, def->unit, buf, n);
    case P_INT:
        if (def->auto_ok && *(const int *)f == AUTO_VALUE)
            return snprintf(buf, n, "auto");
        return snprintf(buf, n, "%d", *(const int *)f);
    case P_INT64:
        return snprintf(buf, n, "%lld", (long long)*(const int64_t *)f);
    case P_BOOL:
        if (def->auto_ok && *(const int *)f == AUTO_VALUE)
            return snprintf(buf, n, "auto");
        return snprintf(buf, n, "%s", *(const int *)f ? "yes" : "no");
    case P_ENUM: {
        int v = *(const int *)f;
        if (v == AUTO_VALUE)
            return snprintf(buf, n, "auto");
        return snprintf(buf, n, "%s", v >= 0 ? def->choices[v] : "?");
    }
    case P_STRING:
        return snprintf(buf, n, "%s", (const char *)f);
    case P_SUB:
        return snprintf(buf, n, "%s", (const char *)f); /* every sub-struct starts with its name */
    case P_POINTS: {
        const Points *c = f;
        size_t len = 0;
        buf[0] = '\0';
        for (int i = 0; i < c->n && len < n; i++)
            len += (size_t)snprintf(buf + len, n - len, "%s%g:%g", i ? ";" : "", c->x[i], c->y[i]);
        return (int)len;
    }
    }
    return 0;
}

size_t param_size(const ParamDef *def)
{
    switch (def->type) {
    case P_DOUBLE:
        return sizeof(double);
    case P_INT:
    case P_BOOL:
    case P_ENUM:
        return sizeof(int);
    case P_INT64:
        return sizeof(int64_t);
    case P_STRING:
        return def->size;
    case P_SUB:
        return def->sub->struct_size;
    case P_POINTS:
        return sizeof(Points);
    }
    return 0;
}

void param_walk(const ParamTable *t, const void *obj, const char *prefix, ParamVisit fn, void *ctx)
{
    char key[256];
    for (size_t i = 0; i < t->count; i++) {
        const ParamDef *def = &t->defs[i];
        snprintf(key, sizeof key, "%s%s%s", prefix ? prefix : "", prefix && *prefix ? "." : "", def->key);
        if (def->type == P_SUB) {
            const char *sub = (const char *)obj + def->offset;
            if (!def->required && !*sub)
                continue;           /* an optional part the object does not have (no derive:, no curve) */
            fn(key, def, obj, ctx); /* the reference itself (its name) */
            param_walk(def->sub, sub, key, fn, ctx);
        } else {
            fn(key, def, obj, ctx);
        }
    }
}

/* ---- technology (templates/technology) -------------------------------- */
/* The generator's inputs: tech/tech.h says what each field models and
 * tech/tech.c how it is used.  tech_check() validates the combination. */

#define SRAM_DEFS(lvl, pre, what)                                                                            \
    PD(Technology, pre ".bit_area", sram[lvl].bit_area_mm2, UNIT_AREA_MM2, 1e-9, 1e-3, 0, 1,                 \
       what " bit cell area"),                                                                               \
        PD(Technology, pre ".overhead", sram[lvl].overhead, UNIT_FRACTION, 0, 0.99, 0, 1,                    \
           what " periphery share of the cell-plus-periphery area"),                                         \
        PD(Technology, pre ".bank", sram[lvl].bank_bytes, UNIT_BYTES, 64, 1e9, 0, 1, what " bank capacity"), \
        PD(Technology, pre ".port_area", sram[lvl].port_area_mm2, UNIT_AREA_MM2, 0, 10, 0, 0,                \
           what " crossbar port area per bank per bundle (0: none)"),                                        \
        PD(Technology, pre ".port_bytes_per_clock", sram[lvl].port_bytes_per_clock, UNIT_NUMBER, 0, 1e6, 0,  \
           0, what " bytes per core clock one bank delivers (0: power-limited only)"),                       \
        PD(Technology, pre ".energy", sram[lvl].energy_j_per_bit, UNIT_ENERGY_PER_BIT, 1e-18, 1e-9, 0, 1,    \
           what " access energy per bit"),                                                                   \
        PD(Technology, pre ".leakage_per_bit", sram[lvl].leakage_w_per_bit, UNIT_POWER, 0, 1e-6, 0, 0,       \
           what " static power per bit stored")

static const ParamDef technology_defs[] = {
    PS(Technology, "name", name, 1, "technology name as printed in reports"),
    PS(Technology, "process", process, 0, "foundry process the values describe"),
    PD(Technology, "mcu.area", mcu_area_mm2, UNIT_AREA_MM2, 1e-6, 1e3, 0, 1,
       "area of one matrix unit (tensor core)"),
    PD(Technology, "mcu.flops_per_clock", mcu_flops_per_clock, UNIT_NUMBER, 1, 1e7, 0, 1,
       "dense fp16 FLOP per clock of one matrix unit"),
    PD(Technology, "rate.fp32", rate[PREC_FP32], UNIT_NUMBER, 0, 64, 0, 0,
       "fp32 matrix rate relative to fp16 (0: vector units only)"),
    PD(Technology, "rate.tf32", rate[PREC_TF32], UNIT_NUMBER, 0, 64, 0, 0,
       "tf32 matrix rate relative to fp16 (0: unsupported)"),
    PD(Technology, "rate.fp16", rate[PREC_FP16], UNIT_NUMBER, 1, 1, 1, 0,
       "fp16 matrix rate: the reference, 1"),
    PD(Technology, "rate.bf16", rate[PREC_BF16], UNIT_NUMBER, 0, 64, 0, 0,
       "bf16 matrix rate relative to fp16 (0: unsupported)"),
    PD(Technology, "rate.fp8", rate[PREC_FP8], UNIT_NUMBER, 0, 64, 0, 0,
       "fp8 matrix rate relative to fp16 (0: unsupported)"),
    PD(Technology, "rate.fp4", rate[PREC_FP4], UNIT_NUMBER, 0, 64, 0, 0,
       "fp4 matrix rate relative to fp16 (0: unsupported)"),
    PD(Technology, "energy.fp32", energy_j_per_flop[PREC_FP32], UNIT_ENERGY_PER_FLOP, 1e-18, 1e-9, 0, 1,
       "energy per fp32 FLOP at the nominal voltage"),
    PD(Technology, "energy.tf32", energy_j_per_flop[PREC_TF32], UNIT_ENERGY_PER_FLOP, 0, 1e-9, 0, 0,
       "energy per tf32 FLOP at the nominal voltage"),
    PD(Technology, "energy.fp16", energy_j_per_flop[PREC_FP16], UNIT_ENERGY_PER_FLOP, 1e-18, 1e-9, 0, 1,
       "energy per fp16 FLOP at the nominal voltage and clock (calibrates the switched capacitance)"),
    PD(Technology, "energy.bf16", energy_j_per_flop[PREC_BF16], UNIT_ENERGY_PER_FLOP, 0, 1e-9, 0, 0,
       "energy per bf16 FLOP at the nominal voltage"),
    PD(Technology, "energy.fp8", energy_j_per_flop[PREC_FP8], UNIT_ENERGY_PER_FLOP, 0, 1e-9, 0, 0,
       "energy per fp8 FLOP at the nominal voltage"),
    PD(Technology, "energy.fp4", energy_j_per_flop[PREC_FP4], UNIT_ENERGY_PER_FLOP, 0, 1e-9, 0, 0,
       "energy per fp4 FLOP at the nominal voltage"),
    PD(Technology, "logic.frequency", f_nominal_hz, UNIT_FREQUENCY, 1e6, 1e11, 0, 1,
       "logic clock at the nominal voltage"),
    PD(Technology, "logic.voltage.nominal", logic.v_nominal, UNIT_VOLTAGE, 0.05, 5, 0, 1,
       "logic supply at the nominal rate"),
    PD(Technology, "logic.voltage.threshold", logic.v_threshold, UNIT_VOLTAGE, 0, 5, 0, 1,
       "logic threshold voltage"),
    PD(Technology, "logic.voltage.min", logic.v_min, UNIT_VOLTAGE, 0.05, 5, 0, 1,
       "logic lowest supply (DVFS floor; below it only the clock slows)"),
    PD(Technology, "logic.voltage.max", logic.v_max, UNIT_VOLTAGE, 0.05, 5, 0, 1,
       "logic highest supply (= nominal: no overdrive)"),
    PD(Technology, "logic.alpha", logic.alpha, UNIT_NUMBER, 1, 3, 0, 1,
       "logic alpha-power-law exponent (Sakurai-Newton)"),
    PD(Technology, "logic.leakage_w_per_mm2", leakage_w_per_mm2, UNIT_NUMBER, 0, 10, 0, 0,
       "logic static power per mm^2 of core area at the nominal voltage (W/mm^2)"),
    SRAM_DEFS(TP_REG, "registers", "register file"),
    SRAM_DEFS(TP_L1, "l1", "L1 / shared memory"),
    SRAM_DEFS(TP_L2, "l2", "L2"),
    PD(Technology, "dram.stack_capacity", dram.stack_capacity_bytes, UNIT_BYTES, 1e6, 1e13, 0, 1,
       "capacity of one HBM stack"),
    PD(Technology, "dram.pins", dram.pins, UNIT_NUMBER, 1, 1e5, 0, 1, "data pins per stack"),
    PD(Technology, "dram.pin_rate", dram.pin_rate_bytes_per_s, UNIT_BANDWIDTH, 1e6, 1e12, 0, 1,
       "one data pin at the nominal I/O voltage"),
    PD(Technology, "dram.energy", dram.energy_j_per_bit, UNIT_ENERGY_PER_BIT, 1e-15, 1e-9, 0, 1,
       "energy per bit moved at the nominal I/O voltage"),
    PD(Technology, "dram.leakage_per_bit", dram.leakage_w_per_bit, UNIT_POWER, 0, 1e-6, 0, 0,
       "static (refresh) power per bit stored"),
    PD(Technology, "dram.footprint", dram.footprint_mm2, UNIT_AREA_MM2, 1, 1e4, 0, 1,
       "package area one stack takes beside the die"),
    PD(Technology, "dram.controller_area", dram.controller_area_mm2, UNIT_AREA_MM2, 1e-3, 1e3, 0, 1,
       "die area of one stack's controller and PHY"),
    PD(Technology, "dram.pins_per_mm", dram.pins_per_mm, UNIT_NUMBER, 1e-3, 1e6, 0, 1,
       "data pins per mm of die edge"),
    PD(Technology, "dram.voltage.nominal", dram.io.v_nominal, UNIT_VOLTAGE, 0.05, 5, 0, 1,
       "DRAM I/O supply at the nominal rate"),
    PD(Technology, "dram.voltage.threshold", dram.io.v_threshold, UNIT_VOLTAGE, 0, 5, 0, 1,
       "DRAM I/O threshold voltage"),
    PD(Technology, "dram.voltage.min", dram.io.v_min, UNIT_VOLTAGE, 0.05, 5, 0, 1,
       "DRAM I/O lowest supply (DVFS floor; below it only the clock slows)"),
    PD(Technology, "dram.voltage.max", dram.io.v_max, UNIT_VOLTAGE, 0.05, 5, 0, 1,
       "DRAM I/O highest supply (= nominal: no overdrive)"),
    PD(Technology, "dram.alpha", dram.io.alpha, UNIT_NUMBER, 1, 3, 0, 1,
       "DRAM I/O alpha-power-law exponent (Sakurai-Newton)"),
    PSUB(Technology, "intra", intra, param_network_table, 1,
         "scale-up link technology (links_per_mm, link_bandwidth, energy)"),
    PSUB(Technology, "inter", inter, param_network_table, 1,
         "scale-out link technology (links_per_mm, link_bandwidth, energy)"),
    PD(Technology, "intra_link_area", intra_link_area_mm2, UNIT_AREA_MM2, 0, 100, 0, 0,
       "die area per scale-up link (0: area does not limit)"),
    PD(Technology, "inter_link_area", inter_link_area_mm2, UNIT_AREA_MM2, 0, 100, 0, 0,
       "die area per scale-out link (0: area does not limit)"),
    PD(Technology, "efficiency.matrix", matrix_eff, UNIT_FRACTION, 0.01, 1, 0, 1,
       "achievable fraction of matrix peak given to derived devices (assumption)"),
    PD(Technology, "efficiency.vector", vector_eff, UNIT_FRACTION, 0.01, 1, 0.7, 0,
       "achievable fraction of vector peak given to derived devices"),
    PD(Technology, "efficiency.hbm", hbm_eff, UNIT_FRACTION, 0.01, 1, 0, 1,
       "achievable fraction of HBM bandwidth given to derived devices (assumption)"),
    PD(Technology, "efficiency.l2", l2_eff, UNIT_FRACTION, 0.01, 1, 0.8, 0,
       "achievable fraction of L2 bandwidth given to derived devices"),
    PD(Technology, "embodied.logic", embodied.logic_kg_cm2, UNIT_NUMBER, 0, 100, 0, 0,
       "embodied carbon: kg CO2e to make one cm2 of die at this node, yield included (0: not known)"),
    PD(Technology, "embodied.memory", embodied.memory_kg_gb, UNIT_NUMBER, 0, 100, 0, 0,
       "embodied carbon: kg CO2e per GB of the derived device's memory"),
    PD(Technology, "embodied.package", embodied.package_kg, UNIT_NUMBER, 0, 1e4, 0, 0,
       "embodied carbon: kg CO2e of a derived device's package and board share"),
};

const ParamTable param_technology_table = {"technology", technology_defs, N(technology_defs),
                                           sizeof(Technology), NULL};

/* ---- derive: technology + budgets (a device template's `derive:`) ------ */

#define SPLIT_DEFS(what, arr, req, noun)                                                                     \
    PD(DeriveSpec, what ".core", budget.arr[TP_CORE], UNIT_FRACTION, 0, 1, 0, req,                           \
       noun " share of the matrix units"),                                                                   \
        PD(DeriveSpec, what ".registers", budget.arr[TP_REG], UNIT_FRACTION, 0, 1, 0, req,                   \
           noun " share of the register files"),                                                             \
        PD(DeriveSpec, what ".l1", budget.arr[TP_L1], UNIT_FRACTION, 0, 1, 0, req,                           \
           noun " share of L1 / shared memory"),                                                             \
        PD(DeriveSpec, what ".l2", budget.arr[TP_L2], UNIT_FRACTION, 0, 1, 0, req, noun " share of the L2"), \
        PD(DeriveSpec, what ".dram", budget.arr[TP_DRAM], UNIT_FRACTION, 0, 1, 0, req,                       \
           noun " share of HBM (controllers, PHYs, stacks)"),                                                \
        PD(DeriveSpec, what ".intra", budget.arr[TP_INTRA], UNIT_FRACTION, 0, 1, 0, 0,                       \
           noun " share of the scale-up links"),                                                             \
        PD(DeriveSpec, what ".inter", budget.arr[TP_INTER], UNIT_FRACTION, 0, 1, 0, 0,                       \
           noun " share of the scale-out links")

static const ParamDef derive_defs[] = {
    PSUB(DeriveSpec, "technology", technology, param_technology_table, 1,
         "technology template the device is derived from"),
    PD(DeriveSpec, "area.die", budget.die_area_mm2, UNIT_AREA_MM2, 1, 1e6, 0, 1, "compute die area"),
    PD(DeriveSpec, "area.package", budget.package_area_mm2, UNIT_AREA_MM2, 1, 1e7, 0, 1,
       "package area: the die plus room for HBM stacks"),
    SPLIT_DEFS("area", area, 1, "die area"),
    PD(DeriveSpec, "power.tdp", budget.tdp_w, UNIT_POWER, 1, 1e5, 0, 1, "thermal design power"),
    SPLIT_DEFS("power", power, 1, "TDP"),
    PD(DeriveSpec, "perimeter.edge", budget.edge_m, UNIT_LENGTH, 0, 10, 0, 0,
       "die edge (0: 4 sqrt(die area), a square die)"),
    PD(DeriveSpec, "perimeter.dram", budget.perimeter[TP_DRAM], UNIT_FRACTION, 0, 1, 0, 1,
       "die edge share of the HBM PHYs"),
    PD(DeriveSpec, "perimeter.intra", budget.perimeter[TP_INTRA], UNIT_FRACTION, 0, 1, 0, 0,
       "die edge share of the scale-up links"),
    PD(DeriveSpec, "perimeter.inter", budget.perimeter[TP_INTER], UNIT_FRACTION, 0, 1, 0, 0,
       "die edge share of the scale-out links"),
    PI(DeriveSpec, "bundle.mcus", budget.mcus_per_bundle, 1, 4096, 4, 0, 0, "matrix units per bundle (SM)"),
    PD(DeriveSpec, "bundle.vector_flops_per_clock", budget.vector_flops_per_clock, UNIT_NUMBER, 1, 1e6, 128,
       0, "fp32 vector FLOP per clock per bundle"),
};

const ParamTable param_derive_table = {"derive", derive_defs, N(derive_defs), sizeof(DeriveSpec), NULL};

const ParamTable *const param_template_tables[] = {
    &param_device_table,     &param_network_table,     &param_system_table,    &param_model_table,
    &param_technology_table, &param_convergence_table, &param_framework_table, &param_site_table};
const int param_template_count = (int)N(param_template_tables);
