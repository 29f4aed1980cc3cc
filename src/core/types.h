/* core/types.h — the structs every engine shares: the device, the links and
 * the system, the model, the scenario (one row) and the result.  Every
 * quantity is SI (s, B, B/s, FLOP, FLOP/s, Hz, W, J, J/bit, V); the unit is
 * in the field name where it is not obvious.  These are plain values: copy
 * them freely; nothing in here owns heap memory. */
#ifndef DF_TYPES_H
#define DF_TYPES_H

#include <stdint.h>

#define NAME_MAX_LEN 64

/* A node of this many devices or more is a rack-scale system (NVL36,
 * NVL72): sold, rented and powered by the rack. */
#define RACK_SCALE_DEVICES 16

/* fp4: NVFP4/MXFP4 block-scaled 4-bit GEMM inputs (Blackwell) */
typedef enum { PREC_FP32, PREC_TF32, PREC_FP16, PREC_BF16, PREC_FP8, PREC_FP4, PREC_COUNT } Precision;

/* Memory levels, innermost first.  Capacity of REG and L1 is per SM
 * (bundle); bandwidths are aggregate over the device. */
typedef enum { MEM_REG, MEM_L1, MEM_L2, MEM_HBM, MEM_LEVELS } MemLevel;

typedef struct {
    double capacity_bytes;   /* per SM for REG and L1, per device for L2 and HBM */
    double bw_bytes_per_s;   /* aggregate peak bandwidth */
    double energy_j_per_bit; /* access energy per bit moved at this level */
} MemSpec;

/* Measured (x, y) points of a curve, x increasing (a convergence table, a
 * bus-bandwidth curve). */
#define CURVE_MAX_POINTS 32
typedef struct {
    int n;
    double x[CURVE_MAX_POINTS], y[CURVE_MAX_POINTS];
} Points;

typedef enum { TOPO_SWITCHED, TOPO_RING, TOPO_TORUS2D, TOPO_TORUS3D, TOPO_MESH2D, TOPO_COUNT } Topology;

/* One link technology and how a tier uses it. */
typedef struct {
    char name[NAME_MAX_LEN];
    double bw_bytes_per_s;      /* per device, per direction, on this tier */
    double latency_s;           /* per hop (alpha) */
    double alpha_extra;         /* s a training stack adds to each step (its comm_latency; no template key) */
    double efficiency;          /* achievable fraction of bw (fitted, sourced) */
    double energy_j_per_bit;    /* per bit on the wire */
    double links_per_mm;        /* on-package kinds: links per mm of die edge; 0 otherwise */
    double link_bw_bytes_per_s; /* one link, one direction */
    Topology topology;
    /* Measured all-reduce bus bandwidth / bandwidth by message size (x:
     * bytes per rank, as nccl-tests counts the size; y: fraction): mid-size
     * messages fall short of the alpha-beta cost (NCCL's protocols and
     * chunking); n = 0: alpha-beta alone.  A collective of any rank count
     * reads it at its own size (net/collective.c). */
    Points busbw;
    int busbw_ranks; /* the ranks it was measured on: provenance, which the cost does not read */
    /* A direct (switchless) scale-up mesh such as DGX-1's hybrid cube-mesh:
     * x a group size on this tier, y the links per device its rings use
     * (a step function: the entry of the largest x <= p); the group's
     * bandwidth is y x link_bandwidth, not the device's whole bandwidth.
     * n = 0: a switch gives every group the device's bandwidth. */
    Points group_links;
    /* A wire-level link (Silicon Interconnect Fabric, interposer wires):
     * with wire_pitch_um > 0, links_per_mm, bandwidth and energy follow
     * from the pitch, the routing layers, the die edge given to the tier,
     * the per-wire rate (link_bw_bytes_per_s) and the wire's reach,
     * capacitance and swing (net_wire_derive). */
    double wire_pitch_um;
    int wire_layers;
    double wire_reach_mm, wire_cap_pf_per_mm, wire_swing_v, wire_io_energy;
    double edge_mm;
    /* 1: the tier's bandwidth and energy per bit are the links the
     * generator derives for the system's `derive:` device (its budget's
     * intra or inter share of area, power and die edge); the rest
     * (topology, latency, efficiency) describes the fabric. */
    int from_device;
} Network;

/* ---- the micro-architecture generator's inputs (tech/tech.h) ---------- */

/* The parts a budget is split among.  REG, L1 and L2 line up with
 * MemLevel's MEM_REG, MEM_L1, MEM_L2. */
typedef enum {
    TP_REG,   /* register files */
    TP_L1,    /* L1 / shared memory */
    TP_L2,    /* last-level on-die SRAM */
    TP_CORE,  /* matrix units (and their leakage) */
    TP_DRAM,  /* HBM: controllers and PHYs on the die, the stacks' power */
    TP_INTRA, /* scale-up (intra-node) link controllers and lanes */
    TP_INTER, /* scale-out (inter-node) link controllers and lanes */
    TP_COUNT
} TechPart;

/* A supply curve.  Alpha-power law (Sakurai & Newton 1990, as DeepFlow's
 * AGE uses it with alpha = 2):  f(V) = f_nom * h(V) / h(v_nominal),
 * h(V) = (V - v_threshold)^alpha / V.  Dynamic power P = C V^2 f.  Below
 * v_min the voltage stays at v_min and only the clock slows (clock
 * throttling at the DVFS floor); v_max caps the supply: equal to v_nominal
 * it means no overdrive. */
typedef struct {
    double v_nominal;   /* V at the nominal rate */
    double v_threshold; /* V */
    double v_min;       /* V, the DVFS floor (DeepFlow: threshold + margin) */
    double v_max;       /* V, the highest allowed supply */
    double alpha;       /* alpha-power-law exponent */
} VCurve;

/* One on-die SRAM level (register file, L1, L2) built of equal banks. */
typedef struct {
    double bit_area_mm2;         /* area of one bit cell */
    double overhead;             /* fraction of the cell-plus-periphery area that is periphery */
    double bank_bytes;           /* capacity of one bank */
    double port_area_mm2;        /* crossbar port area per bank per bundle (0: none) */
    double port_bytes_per_clock; /* bytes one bank delivers per core clock (0: not limited) */
    double energy_j_per_bit;     /* access energy per bit (not voltage scaled) */
    double leakage_w_per_bit;    /* static power per bit stored */
} SramTech;

/* One DRAM (HBM) stack and its interface. */
typedef struct {
    double stack_capacity_bytes;
    double pins;                 /* data links per stack (1024 for HBM2/3, 2048 for HBM4) */
    double pin_rate_bytes_per_s; /* one pin at the nominal I/O voltage */
    double energy_j_per_bit;     /* per bit moved at the nominal I/O voltage */
    double leakage_w_per_bit;    /* static (refresh) power per bit stored */
    double footprint_mm2;        /* package area one stack takes beside the die */
    double controller_area_mm2;  /* die area of one stack's controller and PHY */
    double pins_per_mm;          /* data pins one mm of die edge can carry */
    VCurve io;                   /* I/O supply curve */
} DramTech;

/* What making one device emitted (issue 31), after LLMCarbon's model of
 * embodied carbon (Faiz et al., ICLR 2024): its dies' area at the carbon
 * a cm2 of its process costs, its memory at a carbon per GB, and its
 * package; 0 in die_mm2 or logic_kg_cm2: not known. */
typedef struct {
    double die_mm2;      /* silicon area of the device's compute dies */
    double logic_kg_cm2; /* kg CO2e to make one cm2 of that die (its process node, yield included) */
    double memory_kg_gb; /* kg CO2e per GB of its memory (HBM) */
    double package_kg;   /* kg CO2e of its package, interposer and board share */
} Embodied;

/* A technology node (templates/technology/NAME.yaml). */
typedef struct {
    char name[NAME_MAX_LEN];    /* first: the parameter tables print it */
    char process[NAME_MAX_LEN]; /* e.g. "TSMC N5" */
    /* matrix units (MCUs: tensor cores) */
    double mcu_area_mm2;                  /* one unit */
    double mcu_flops_per_clock;           /* dense fp16 FLOP per clock of one unit */
    double rate[PREC_COUNT];              /* throughput per precision relative to fp16 (0: unsupported) */
    double energy_j_per_flop[PREC_COUNT]; /* at logic.v_nominal; fp16 calibrates the switched capacitance */
    double f_nominal_hz;                  /* logic clock at logic.v_nominal */
    VCurve logic;
    double leakage_w_per_mm2; /* logic static power per mm^2 of core area at v_nominal */
    SramTech sram[3];         /* TP_REG, TP_L1, TP_L2 */
    DramTech dram;
    /* link technologies: networks templates whose links_per_mm,
     * link_bandwidth (one link, one direction) and energy are used */
    Network intra, inter;
    double intra_link_area_mm2; /* die area per link (0: area does not limit) */
    double inter_link_area_mm2;
    /* achievable fractions copied to the derived device (assumptions) */
    double matrix_eff, vector_eff, hbm_eff, l2_eff;
    /* embodied carbon of the derived device: logic per cm2 at this node,
     * memory per GB and the package (its die area is the budget's) */
    Embodied embodied;
} Technology;

/* Budgets and how they are split. */
typedef struct {
    double die_area_mm2;     /* compute die */
    double package_area_mm2; /* die plus room for DRAM stacks */
    double area[TP_COUNT];   /* fractions of the die area */
    double tdp_w;
    double power[TP_COUNT];        /* fractions of tdp_w */
    double edge_m;                 /* die edge, metres (YAML '114 mm'); 0: 4 sqrt(die area), a square die */
    double perimeter[TP_COUNT];    /* fractions of the edge: only TP_DRAM, TP_INTRA, TP_INTER */
    int mcus_per_bundle;           /* matrix units per SM (bundle) */
    double vector_flops_per_clock; /* fp32 vector FLOP per clock per bundle */
} Budget;

/* What a device template's `derive:` block holds: the technology (a
 * template reference) and the budgets (param_derive_table). */
typedef struct {
    char name[NAME_MAX_LEN]; /* first, as every table struct; the loader may leave it "" */
    Technology technology;
    Budget budget;
} DeriveSpec;

typedef struct {
    char name[NAME_MAX_LEN];
    double matrix_flops[PREC_COUNT]; /* FLOP/s, dense peak of the matrix units; 0: unsupported */
    double vector_flops;             /* FLOP/s, fp32 non-tensor peak */
    int sms;                         /* streaming multiprocessors (bundles) */
    double clock_hz;                 /* clock at which matrix_flops is quoted */
    MemSpec mem[MEM_LEVELS];
    double hbm_reserved_bytes; /* HBM the runtime keeps (context, allocator slack) */
    double launch_s;           /* kernel launch + tail overhead per kernel */
    int stream_k;              /* the GEMM library balances a partial last wave (stream-K, Hopper on) */
    /* Fitted, each with its source in the template: */
    double matrix_eff;     /* achievable fraction of matrix peak (large GEMM) */
    double matrix_eff_fp8; /* the same for fp8 GEMMs (0: as matrix_eff) */
    double vector_eff;     /* achievable fraction of vector peak */
    double hbm_eff;        /* achievable fraction of HBM bandwidth (STREAM) */
    double l2_eff;         /* achievable fraction of L2 bandwidth */
    double rnn_step_s;     /* a recurrent step's time beyond its GEMM and cell kernel (0: none) */
    double conv_call_s;    /* a convolution call's time beyond its GEMM (0: none) */
    /* Power (issue: power and energy) */
    double tdp_w;
    double idle_w;
    double energy_j_per_flop[PREC_COUNT];
    double v_nominal;   /* V at clock_hz */
    double v_threshold; /* V */
    double v_min;       /* V, floor of DVFS */
    double dvfs_alpha;  /* alpha-power law exponent */
    /* A device of a `derive:` block: evaluate() derives every field above
     * from `derive` (the technology and the budgets) before anything else,
     * then puts back the fields set explicitly (the template's keys, the
     * row's overrides): bit i of `pinned` is device table entry i
     * (core/params.c).  derive.name is "" for a device given by its
     * figures. */
    DeriveSpec derive;
    uint64_t pinned;
    char generation[NAME_MAX_LEN]; /* architecture generation (ampere, hopper, ...): validation coverage */
    Embodied embodied;             /* the carbon of making it (issue 31) */
    double fa2_eff; /* FlashAttention-2's rate as a fraction of the device's best fused attention (1: it is
                       the best) */
    double flex_fwd_eff, flex_bwd_eff; /* FlexAttention's forward and backward rates, the same way */
    double grouped_mm_eff; /* PyTorch's grouped GEMM (torch._grouped_mm) as a fraction of the device's best
                              dense GEMM at each group's shape (a stack with grouped_gemm_kernel torch) */
    double exp_per_clock;  /* exponentials (MUFU.EX2) per clock per SM on the special-function units, which a
                              fused attention kernel's softmax runs on beside its MMAs (0: not modelled) */
    double scatter_bpc;    /* bytes per clock per SM PyTorch's accumulating scatter kernels (index_put_ with
                              accumulate, index_add_, scatter_add_) move in 16 bits (0: not modelled) */
} Device;

/* The training stack (templates/frameworks): what the software makes of
 * the hardware.  Every field is fitted or documented in its template. */
/* FLASH_FA2: FlashAttention-2 kernels, which on Hopper and later reach only
 * the device's efficiency.attention_fa2 of the fused-attention rate;
 * FLASH_FLEX: PyTorch's FlexAttention (Triton kernels the compiler
 * generates), at efficiency.attention_flex_fwd and _bwd of it. */
typedef enum { FLASH_NO, FLASH_YES, FLASH_FA2, FLASH_FLEX } FlashKind;
/* Where the stack keeps and exchanges the gradients of 16-bit training. */
typedef enum { GRAD_FP32, GRAD_16BIT } GradKind;
/* Where an fp8 operand's scale comes from, which decides what quantizing it
 * reads: delayed (Transformer Engine's DelayedScaling: from the amaxes of
 * earlier steps, so the kernel that produces the operand can write it in
 * fp8 as it goes: one read), current (TE's Float8CurrentScaling, torchao's
 * dynamic tensorwise scaling: from the tensor's own amax, a read of the
 * whole tensor before the cast can start: two reads, and the producer
 * writes the 16-bit tensor first), block (MXFP8, 128-element blocks: each
 * block's scale from the block itself, in the cast's one pass, as
 * delayed), rowwise (torchao's Float8 rowwise recipe: a scale a row from
 * the row's own amax, so the row-wise and the transposed copy are each an
 * amax and a cast of their own).  NVFP4 (fp4) costs as current whatever the
 * key: its global scale is the tensor's amax. */
typedef enum { FP8_SCALING_DELAYED, FP8_SCALING_CURRENT, FP8_SCALING_BLOCK, FP8_SCALING_ROWWISE } Fp8Scaling;
/* ZeRO-3 / FSDP: whether a layer's gathered weights are dropped after its
 * forward (and gathered again for its backward) */
typedef enum { RESHARD_AUTO, RESHARD_YES, RESHARD_NO } ReshardKind;
typedef enum { MASTER_COPY, MASTER_PARAMS } MasterKind;
/* The type of the optimizer's own state in 16-bit training: fp32 (the
 * moments and the master copy in 4 bytes each), or the 16-bit type (Apex's
 * DistributedFusedAdam with dtype bf16: moments and its copy of the
 * parameters in 2 bytes each). */
typedef enum { OPTSTATE_FP32, OPTSTATE_16BIT } OptStateKind;
/* How a mixture of experts' tokens reach their experts' ranks: an
 * all-to-all of every token-expert pair (Megatron-Core's alltoall
 * dispatcher), or DeepEP's kernels (Megatron-Core's flex dispatcher), which
 * send a token across the scale-out network once to each node that holds
 * one of its experts and fan it out inside the node. */
typedef enum { DISPATCH_ALLTOALL, DISPATCH_DEEPEP } DispatchKind;
/* The kernel a stack's grouped expert GEMMs run: cuBLAS, one GEMM an expert at the dense rate
 * (Transformer Engine's GroupedLinear), or PyTorch's torch._grouped_mm, one kernel for them all */
typedef enum { GROUPED_CUBLAS, GROUPED_TORCH } GroupedKernel;
/* How a mixture of experts' tokens are gathered into expert order: fused
 * kernels whose backward gathers too (Transformer Engine's moe_permute,
 * Megatron-Core's moe_permute_fusion), or PyTorch's indexing ops, whose
 * backward accumulates by scatter (index_put_ with accumulate, index_add_,
 * scatter_add_). */
typedef enum { PERMUTE_FUSED, PERMUTE_INDEX } PermuteKind;
/* How the routed outputs come back to token order: each token gathers its
 * top-k outputs (Transformer Engine's moe_unpermute; an index_put_ without
 * accumulation and a batched reduction), or each output is added into its
 * token's row by PyTorch's scatter_add_ (atomic adds). */
typedef enum { COMBINE_GATHER, COMBINE_SCATTER_ADD } CombineKind;
/* How a rank re-sorts the tokens it received by its local experts: by
 * concatenating the received chunks in expert order (Megatron-Core's
 * sort_chunks_by_idxs: a copy, its backward a copy), or by an index gather
 * (torchtitan: x[permuted_indices], its backward an accumulating scatter),
 * which torchtitan until early 2026 also ran without expert parallelism to
 * pad each expert's rows for torch._grouped_mm, after a copy that appends a
 * zero row. */
typedef enum { SORT_CHUNKS, SORT_INDEX, SORT_INDEX_PADDED } SortKind;
/* What recompute: selective means to the stack: Megatron's (the attention
 * core) or PyTorch's per-op policy (every matmul but every second one and
 * the attention kept; norms, activations and the other matmuls redone). */
typedef enum { SELECTIVE_MEGATRON, SELECTIVE_PER_OP } SelectiveKind;
/* What the stack replays as CUDA graphs, whose kernels the host does not
 * dispatch one by one: nothing; a mixture of experts' router (Megatron-Core's
 * cuda_graph_scope moe_router, moe_preprocess); the static-shape work of each
 * transformer layer (scope attn, mlp, moe_router, moe_preprocess: attention,
 * norms, dense MLPs, shared experts, the router), not a dropless mixture of
 * experts' token path nor the embedding, head and loss; or the whole step. */
typedef enum { GRAPHS_NONE, GRAPHS_ROUTER, GRAPHS_PARTIAL, GRAPHS_FULL } GraphsKind;
/* The memory layout the stack hands cuDNN's convolutions: channels last
 * (NHWC, what tensor-core kernels read) or channels first (NCHW: the
 * library transposes around every tensor-core convolution, and runs 3x3
 * stride-1 convolutions on the vector units as Winograd transforms). */
typedef enum { LAYOUT_NHWC, LAYOUT_NCHW } ConvLayout;

/* Prediction interval of a stack on one regime: quantiles of the ratio
 * measured / predicted step time over the public validation runs of that
 * regime (make validate computes them). */
typedef struct {
    double lo, hi;   /* ratio quantiles (e.g. 5th and 95th percentile); 0: unknown */
    int runs;        /* validation runs behind them */
    double mean_err; /* mean |predicted / measured - 1| over those runs */
    double coverage; /* share of them inside the range, each source left out of the fit and the range */
} Interval;

typedef struct {
    char name[NAME_MAX_LEN];
    double gemm_eff;   /* fraction of the device's best-kernel GEMM rate the stack sustains */
    double host_op_s;  /* host dispatch time per graph operation (eager framework) */
    FlashKind flash;   /* fused (flash) attention when the model leaves it to the stack */
    double tp_overlap; /* fraction of tensor-parallel communication hidden under GEMMs */
    double dp_overlap; /* share of what the DP buckets' timeline leaves hideable that is hidden */
    double dp_bucket, dp_bucket_per_rank; /* parameters a gradient bucket holds (+ per DP rank) */
    int dp_continuous;                    /* the exchange hides as if in endless small buckets (ideal) */
    int pp_overlap;    /* interleaved pipelines: stage sends on their own stream under the next chunk */
    double comm_intra; /* multiple of the intra tier's efficiency the stack's collectives reach */
    double comm_inter; /* the same for the inter-node and pod tiers */
    double comm_alpha_intra, comm_alpha_inter; /* s added to each step of a collective on those tiers */
    int fp8_linear_only; /* precision fp8: only the linear layers run in fp8 (Transformer Engine) */
    int fp8_attention;   /* ... but fused attention runs in fp8 too (TE's fp8_dot_product_attention) */
    int fp8_head;        /* ... and the LM head's GEMMs (Megatron-Core's fp8_output_proj, MXFP8) */
    int fp8_casts;       /* fp8/fp4: operands quantized by cast-and-transpose kernels (Transformer Engine) */
    Fp8Scaling fp8_scaling;  /* where those casts' scales come from: what quantizing an operand reads */
    double fp8_rowwise_gemm; /* row-wise scaled fp8 forward GEMMs: fraction of the tensor-wise rate */
    int grad_sync_each;  /* FSDP (ZeRO-3): gradients reduce-scattered after every microbatch, not the last */
    ReshardKind reshard; /* FSDP (ZeRO-3): weights dropped after a forward; auto: not under a pipeline */
    GradKind grad;       /* gradient buffers and their data-parallel exchange: fp32 or the 16-bit type */
    MasterKind
        master; /* fp32 master weights beside a 16-bit copy, or the (sharded) fp32 parameters themselves */
    OptStateKind opt_state;  /* the optimizer's moments and master copy: fp32 or the 16-bit type */
    SelectiveKind selective; /* what recompute: selective keeps and redoes */
    int sel_saves_a2a;       /* per-op selective recompute keeps the expert all-to-alls' outputs */
    int fused_elementwise;   /* norms, rotary and activations fused (TE, torch.compile) or eager kernels */
    int eager_rotary;        /* ... but the rotary embedding eager even where they are fused */
    int eager_activation;    /* ... and the MLP's activation eager even where they are fused */
    int fused_gate_up;       /* a gated MLP's gate and up projections as one GEMM of twice the width */
    int fused_xent;          /* the LM loss as one fused pass, or the op-by-op fp32 cross-entropy */
    int grouped_gemm; /* mixture of experts: a rank's experts in one grouped call, or one module each */
    GroupedKernel grouped_kernel; /* the kernel of that grouped call */
    DispatchKind dispatcher;      /* mixture of experts: how tokens reach their experts' ranks */
    int ep_overlap;               /* the expert all-to-all of one microbatch hidden under another's compute */
    int ep_comm_sms;              /* SMs the overlapped expert all-to-all takes from the compute */
    int comm_sms;           /* SMs the hidden data- and tensor-parallel collectives take from the compute */
    GraphsKind cuda_graphs; /* what runs as CUDA graphs, without a host dispatch per op */
    ConvLayout conv_layout; /* the layout of a CNN's activations: NHWC or NCHW */
    int moe_score_apart;    /* mixture of experts: the routed outputs weighted by their scores in element-wise
                               kernels of their own before the scatter-add combine (torchtitan) */
    PermuteKind moe_permute; /* mixture of experts: the token permutation's kernels */
    CombineKind moe_combine; /* ... and the combine's */
    SortKind moe_sort;       /* ... and the re-sort by local expert's */
    int dgrad_comm_overlap;  /* a split CNN layer's input-gradient exchange copied on a stream of its own,
                                beside the layer's weight-gradient kernels (TensorFlow 1.x) */
    int offload_layers;      /* transformer layers whose activations go to host memory in the forward
                                pass and come back for the backward (Megatron-Core's cpu_offloading) */
    Interval single_node, multi_node;
    Interval uncovered;               /* for a row no validation source covers: every source's residuals */
    Interval moe;                     /* mixture-of-experts rows: the published MoE runs' residuals */
    Interval lstm;                    /* LSTM rows: the measured LSTM runs' residuals (shown, not fitted) */
    char generations[NAME_MAX_LEN];   /* device generations its validation runs cover, space-separated */
    char model_classes[NAME_MAX_LEN]; /* model classes they cover (dense, moe, lstm, cnn, gemm) */
    int max_devices;                  /* devices of its largest validation run (0: not stated) */
    int min_batch; /* samples a device of its smallest-batch validation run (0: no bound) */
} Framework;

typedef struct {
    char name[NAME_MAX_LEN];
    Device device;
    int devices_per_node;
    Network intra;                /* scale-up tier inside a node */
    Network inter;                /* scale-out tier between nodes */
    int nodes_per_pod;            /* nodes on one scale-out fabric (0: all of them) */
    Network pod;                  /* the data-centre tier between pods (with nodes_per_pod) */
    Framework framework;          /* the training stack */
    double host_bw_bytes_per_s;   /* device to host memory, per device and direction (0: not stated) */
    double host_memory_bytes;     /* the host memory of a node (0: not stated) */
    double node_overhead_w;       /* host CPUs, NICs, fans per node */
    double switch_w_per_device;   /* fabric switches, apportioned per device */
    double embodied_node_kg;      /* carbon of making a node besides its devices (kg CO2e) */
    double pue;                   /* facility power usage effectiveness */
    double speed_spread;          /* sustained speed of its devices: spread between parts (coefficient
                                     of variation); a synchronous step waits for the slowest (0: none) */
    double price_per_device_hour; /* $ ; 0 unknown */
    double price_purchase_node;   /* $ to buy one node (a rack-scale system: its rack); 0 unknown */
    /* reliability (scale/goodput.c): 0 where not stated */
    double failures_per_device_hour; /* job interruptions per device-hour */
    double checkpoint_write_bw;      /* checkpoint storage, per node, B/s */
    double checkpoint_read_bw;       /* read back after a restart, per node (0: as written) */
    double restart_s;                /* rescheduling and start-up after an interruption */
} System;

/* Where the system runs (templates/sites, issue 31): what its energy
 * emits and costs, and what its building costs.  0 in pue and
 * electricity_usd_kwh: the system's PUE and the scenario's price stand. */
typedef struct {
    char name[64];
    double grid_gco2_kwh;        /* grid carbon intensity, g CO2e per kWh drawn at the wall */
    double pue;                  /* the site's power usage effectiveness, over the system's */
    double electricity_usd_kwh;  /* the site's price of a kWh, over the scenario's default */
    double facility_usd_kw_year; /* building, power and cooling per kW of IT power a year; 0 unknown */
    double power_envelope_w;     /* the most the facility can deliver at the wall, peak (0: no limit) */
    double ramp_limit_w_s;       /* the fastest its power at the wall may change, W/s (0: no limit) */
} Site;

/* The time lost to failures of one scenario (scale_goodput). */
typedef struct {
    double mtti_s;     /* the job's mean time to interruption */
    double write_s;    /* one checkpoint */
    double interval_s; /* work between checkpoints (Daly) */
    double goodput;    /* work / expected wall-clock time */
    double wall_s;     /* expected time to train with failures */
} Goodput;

/* How many steps training takes as a function of the global batch B
 * (DESIGN.md §6.8): the critical-batch law of McCandlish et al. 2018,
 * steps(B) = s_min (1 + b_noise / B), equivalently epochs(B) =
 * epochs_min (1 + B / b_crit); or measured (B, epochs) points interpolated
 * in log-log space. */
typedef enum { CONV_CRITICAL, CONV_TABLE } ConvKind;
typedef enum { BATCH_SAMPLES, BATCH_TOKENS } BatchUnit;
#define CONV_MAX_POINTS CURVE_MAX_POINTS

typedef struct {
    char name[NAME_MAX_LEN];
    ConvKind kind;
    BatchUnit unit;                    /* what B counts */
    double s_min, b_noise;             /* steps form */
    double epochs_min, b_crit;         /* epochs form */
    double band_lo, band_hi;           /* the critical batch's plausible range (0: half and double) */
    Points table;                      /* table form: (B, epochs) points, B increasing */
    double measured_min, measured_max; /* global batches the source measured (0: the table's points) */
    char measured_model[NAME_MAX_LEN]; /* the model the source trained ("": the scenario's own) */
} Convergence;

typedef enum { MODEL_TRANSFORMER, MODEL_GEMM, MODEL_LSTM, MODEL_CNN, MODEL_KIND_COUNT } ModelKind;
typedef enum { MLP_GELU, MLP_SWIGLU } MlpKind;
typedef enum { NORM_LAYERNORM, NORM_RMSNORM } NormKind;
typedef enum { POS_LEARNED, POS_ROTARY } PosKind;
typedef enum { ATTN_AUTO, ATTN_UNFUSED, ATTN_FUSED } AttnKind; /* auto: the stack's */
typedef enum { LSTM_SPLIT_AUTO, LSTM_SPLIT_RC, LSTM_SPLIT_CR } LstmSplit;
/* The optimizer a model trains with: its state per parameter and step cost
 * (par/step.c). */
typedef enum { OPT_ADAM, OPT_SGD_MOMENTUM, OPT_RMSPROP, OPT_ADAGRAD, OPT_LAMB, OPT_COUNT } OptimizerKind;
typedef enum { CNN_SPLIT_AUTO, CNN_SPLIT_KERNEL, CNN_SPLIT_BRANCH } CnnSplit;

typedef struct {
    char name[NAME_MAX_LEN];
    ModelKind kind;
    /* transformer */
    int layers;
    int hidden;
    int heads;
    int kv_heads; /* grouped-query attention; = heads when not set */
    int head_dim; /* width of one attention head; 0: hidden / heads (queries then span hidden) */
    int seq_len;
    int vocab;
    int ffn; /* MLP inner size; 4*hidden when not set */
    /* mixture of experts (0 experts: a dense MLP) */
    int experts;             /* routed experts per MoE layer */
    int experts_per_token;   /* top-k */
    int expert_ffn;          /* inner size of one expert (default ffn) */
    int shared_experts;      /* experts every token passes through, expert_ffn each */
    double capacity_factor;  /* tokens an expert takes at most, x its fair share (0: dropless) */
    double expert_imbalance; /* the busiest expert's tokens over the average (>= 1) */
    /* group-limited routing (DeepSeek-V3's node-limited routing; 0: none):
     * the experts in expert_groups groups of consecutive experts, a
     * token's top-k from at most groups_per_token of them */
    int expert_groups;
    int groups_per_token;
    int dense_layers; /* the first dense_layers layers have a dense MLP of ffn (DeepSeek: 3) */
    int moe_every;    /* of the others every moe_every-th is a MoE layer, the rest dense (1: all) */
    /* multi-head latent attention (DeepSeek-V2/V3; kv_lora_rank 0: none):
     * queries (through a q_lora_rank bottleneck when > 0) and keys and
     * values (through a kv_lora_rank one) are projected up per head; a
     * query-key pair spans head_dim + rope_head_dim, a value v_head_dim */
    int q_lora_rank;
    int kv_lora_rank;
    int rope_head_dim; /* the decoupled rotary part of a query and of the shared key */
    int v_head_dim;    /* width of one head's value (0: head_dim) */
    int mtp_layers;    /* multi-token prediction modules after the last layer (DeepSeek-V3: 1) */
    MlpKind mlp;
    NormKind norm;
    PosKind position;
    AttnKind attention;
    int tied_embeddings;  /* LM head shares the input embedding */
    int dropout;          /* dropout on the embedding and each residual branch: its masks kept for backward */
    int causal;           /* decoder (causal mask): fused attention skips the masked blocks */
    int window;           /* sliding-window attention: a query sees the last `window` keys (0: all) */
    double window_layers; /* share of the layers with the window (GPT-OSS alternates: 0.5) */
    /* gemm */
    int64_t m, n, k;
    /* cnn (graph/cnn.c) */
    int image_size;           /* input height = width, pixels */
    int channels;             /* input channels */
    int classes;              /* softmax width, checked against the net; 0: not checked */
    const struct CnnNet *cnn; /* layer list (graph/cnn.h), owned by the template db (immutable) */
    CnnSplit cnn_split;       /* model parallelism at a concat: kernel split, branch placement, auto */
    /* lstm (graph/lstm.c; also layers, hidden = cell size D, seq_len =
     * timesteps T (source side of a seq2seq model), vocab, attention) */
    int proj;             /* LSTMP projection P: width of the recurrent output; 0: none */
    int samples;          /* sampled-softmax classes per batch; 0: full softmax over vocab */
    int enc_layers;       /* seq2seq (GNMT): encoder layers, the first bidirectional; 0: LM */
    int dec_layers;       /* seq2seq: decoder layers (= enc_layers), the first feeds attention */
    int tgt_len;          /* seq2seq: target timesteps; 0: = seq_len */
    int lstm_biases;      /* bias vectors per gate block: 1 (TensorFlow), 2 (PyTorch b_ih + b_hh) */
    LstmSplit lstm_split; /* kernel split of the gate GEMMs over tp (DeepFlow RC / CR) */
    OptimizerKind optimizer;
    int sparse_grads; /* embedding (and sampled-softmax) gradients exchanged as touched rows */
    /* amount of training */
    double train_tokens;  /* 0: not given */
    double train_samples; /* 0: not given */
    double dataset_samples;
    Convergence convergence; /* name "" when the model has none */
} Model;

typedef enum { RECOMPUTE_NONE, RECOMPUTE_SELECTIVE, RECOMPUTE_FULL, RECOMPUTE_COUNT } Recompute;

/* Order in which ranks are laid out over devices, innermost first: the
 * default puts tensor-parallel ranks on neighbouring devices of a node. */
typedef enum {
    PLACE_TP_DP_PP,
    PLACE_TP_PP_DP,
    PLACE_DP_TP_PP,
    PLACE_DP_PP_TP,
    PLACE_PP_TP_DP,
    PLACE_PP_DP_TP,
    PLACE_COUNT
} Placement;

/* The pipeline schedule (par/schedule.c): Megatron-LM's one-forward-one-
 * backward, its interleaved variant over `interleave` model chunks per
 * stage (Narayanan et al. SC'21), zero bubble (ZB-H1: the backward pass
 * split into input- and weight-gradient parts, the latter filling the
 * bubble; Qi et al. ICLR 2024) and DualPipe (bidirectional, forward and
 * backward chunks overlapped with their communication; DeepSeek-V3
 * report, 2024). */
typedef enum { SCHED_1F1B, SCHED_INTERLEAVED, SCHED_ZERO_BUBBLE, SCHED_DUALPIPE, SCHED_COUNT } PpSchedule;

/* How the layers split over the pipeline stages: even, or with the
 * embedding and the loss each in a layer's place on the first and the last
 * stage (Megatron-Core's account_for_embedding_in_pipeline_split and
 * account_for_loss_in_pipeline_split; Llama 3 405B; Qi et al. 2024). */
typedef enum { SPLIT_EVEN, SPLIT_ENDS, SPLIT_COUNT } PpSplit;

#define AUTO_VALUE (-1) /* an integer strategy field set to 'auto' */

/* The axes of a Strategy: one line each, in the order the reports list
 * them.  Everything that names, reads, writes, prints or searches an axis
 * is generated from this table: the Strategy struct's fields (below), the
 * StrategyAxis enum and the axis accessors (core/strategy.h), the
 * scenario table's parameter rows (core/params.c), the summary's and the
 * runners-up's columns and their reader (report/columns.c), the
 * workbook's strategy cells, the eval printouts, the search's walk
 * (search/search.c) and every strategy copy.
 *
 *   X(ID, field, ctype, ptype, choices, lo, hi, def, walk, unit, abbr, label, help)
 *
 * field: the Strategy member, also the scenario column's name; ctype: its
 * C type; ptype, choices, lo, hi, def: its parameter row (core/param.h;
 * every axis accepts `auto`); walk: its place in the search's depth-first
 * walk (the lowest first; the walk sets an axis only after those it
 * depends on; spaced by ten so that a new axis slots in),
 * 0 when the search derives it (dp: the devices over the other degrees),
 * -1 when the step model resolves it (recompute_layers: the fewest that
 * fit); unit: its report unit; abbr: its heading in narrow tables; label:
 * its heading in the workbook; help: its meaning (the parameter help and
 * the column glossary). */
#define STRATEGY_AXES(X)                                                                                     \
    X(TP, tp, int, P_INT, NULL, 1, 1e5, 1, 10, "", "tp", "Tensor parallel", "tensor-parallel degree")        \
    X(CP, cp, int, P_INT, NULL, 1, 1e5, 1, 20, "", "cp", "Context parallel",                                 \
      "context-parallel degree: each sequence split over cp ranks, attention as a ring (transformers)")      \
    X(EP, ep, int, P_INT, NULL, 1, 1e5, 1, 40, "", "ep", "Expert parallel",                                  \
      "expert-parallel degree: a mixture of experts' experts split over ep ranks")                           \
    X(ETP, etp, int, P_INT, NULL, 0, 1e5, 0, 45, "", "etp", "Expert tensor parallel",                        \
      "expert-tensor-parallel degree: each expert's weights split over etp ranks; the expert layers fold "   \
      "their ranks as etp x ep x edp over the tp x cp x dp ranks (Megatron-Core's MoE parallel folding); "   \
      "0: the same as tp")                                                                                   \
    X(PP, pp, int, P_INT, NULL, 1, 1e5, 1, 30, "", "pp", "Pipeline parallel", "pipeline-parallel degree")    \
    X(DP, dp, int, P_INT, NULL, 1, 1e7, 0, 0, "", "dp", "Data parallel",                                     \
      "data-parallel degree; default devices / (tp x cp x pp)")                                              \
    X(MICROBATCH, microbatch, int, P_INT, NULL, 1, 1e6, 1, 50, "samples", "mb", "Microbatch",                \
      "samples per microbatch")                                                                              \
    X(INTERLEAVE, interleave, int, P_INT, NULL, 1, 1e4, 1, 60, "", "v", "Chunks per stage",                  \
      "model chunks per pipeline stage (the interleaved schedule's virtual stages)")                         \
    X(PP_SCHEDULE, pp_schedule, PpSchedule, P_ENUM, schedule_names, 0, 0, SCHED_1F1B, 70, "", "schedule",    \
      "Pipeline schedule",                                                                                   \
      "pipeline schedule: 1f1b (Megatron-LM; with interleave > 1 its interleaved variant), interleaved "     \
      "(interleave > 1), zero-bubble (ZB-H1: the weight gradients fill the bubble; interleave 1), dualpipe " \
      "(DeepSeek-V3: bidirectional, two copies of the stage's weights, all-to-all and stage sends hidden "   \
      "under compute; pp even, interleave 1)")                                                               \
    X(PP_SPLIT, pp_split, PpSplit, P_ENUM, split_names, 0, 0, SPLIT_EVEN, 75, "", "split", "Pipeline split", \
      "how the layers split over the pipeline stages: even (ceil(L / (pp v)) in every model chunk), ends "   \
      "(the embedding and the loss each take a layer's place, so the first and the last stage carry one "    \
      "layer fewer: Megatron-Core's account_for_embedding/loss_in_pipeline_split; transformers)")            \
    X(SEQ_PARALLEL, seq_parallel, int, P_BOOL, NULL, 0, 1, 0, 100, "", "sp", "Sequence parallel",            \
      "sequence parallelism (Megatron: norms and dropout split over the tensor ranks)")                      \
    X(ZERO, zero, int, P_INT, NULL, 0, 3, 0, 110, "", "zero", "ZeRO stage",                                  \
      "ZeRO stage: 1 shards the optimizer state over dp, 2 also the gradients, 3 also the weights")          \
    X(RECOMPUTE, recompute, Recompute, P_ENUM, recompute_names, 0, 0, RECOMPUTE_NONE, 80, "", "recompute",   \
      "Recompute", "activation recomputation")                                                               \
    X(RECOMPUTE_LAYERS, recompute_layers, int, P_INT, NULL, 0, 1e4, 0, -1, "", "rc layers",                  \
      "Layers recomputed",                                                                                   \
      "with recompute full: the layers of each model chunk that recompute (Megatron's block method; the "    \
      "others keep their activations); 0: every layer; auto: the fewest that fit in memory (transformers)")  \
    X(PLACEMENT, placement, Placement, P_ENUM, placement_names, 0, 0, PLACE_TP_DP_PP, 90, "", "placement",   \
      "Rank order", "rank order over devices, innermost first")

/* A parallelism strategy: the value of each axis (the table above) and
 * the global batch.  One value that the scenario (asked for), the search
 * (tried) and the result (chosen) share; core/strategy.h names its axes
 * and checks it.  An integer or enum axis may be AUTO_VALUE until the
 * search resolves it. */
typedef struct {
#define STRATEGY_FIELD(ID, field, ctype, ...) ctype field;
    STRATEGY_AXES(STRATEGY_FIELD)
#undef STRATEGY_FIELD
    int64_t global_batch; /* samples per optimizer step */
} Strategy;

/* Which budget splits of a derive: device the co-design search optimises
 * (search/design.h): none, the die area split, the power split, both, or
 * both and the die-edge split. */
typedef enum {
    CODESIGN_NONE,
    CODESIGN_AREA,
    CODESIGN_POWER,
    CODESIGN_SPLITS,
    CODESIGN_ALL,
    CODESIGN_COUNT
} Codesign;

typedef struct {
    char name[128];
    char series[NAME_MAX_LEN];
    int series_base; /* bytes of series before its swept values (" (tdp=700 W)"); 0: none swept */
    System system;
    Model model;
    int devices;
    Strategy st;       /* an integer or enum field may be AUTO_VALUE until the search resolves it */
    int replica_batch; /* samples per data-parallel replica per step: global = replica x dp (0: unset) */
    Precision precision;
    double power_cap_w;          /* per-device cap; 0: the device's TDP */
    int min_mp, max_mp;          /* search bounds on tp x pp (model-parallel degree) */
    char baseline[NAME_MAX_LEN]; /* series this row is compared with at the same devices and model */
    double train_tokens, train_samples, epochs; /* 0: not given */
    /* Constraints a recommendation must meet (0: none): the time to train,
     * the cost to train and the system's power at the wall. */
    double deadline_s, budget_usd, power_budget_w;
    double electricity_usd_kwh; /* the price of energy at the wall (the site's where it sets one) */
    double amortisation_years;  /* a bought system is written off over these */
    double carbon_budget_t;     /* constraint: the most CO2e the run may emit, operational and embodied (t) */
    double service_life_years;  /* embodied carbon is shared over these years of the hardware's use */
    Site site;                  /* where it runs: grid intensity, PUE, price, facility cost */
    int global_batch_defaulted; /* 1: no global_batch given; microbatch x dp was taken */
    Codesign codesign;          /* splits of the derive: device to optimise with the strategy */
    int codesign_starts;        /* multi-start: the template's split plus starts - 1 seeded ones */
    int codesign_seed;          /* seed of the extra starts (reproducible) */
} Scenario;

/* Components of a step, in the order they are reported. */
typedef enum {
    COMP_GEMM,       /* matrix multiplies (forward, backward, recompute) */
    COMP_ATTENTION,  /* attention core: QK^T, softmax, AV */
    COMP_MEMBOUND,   /* elementwise, norms, dropout, activations */
    COMP_EMBED_HEAD, /* embedding lookup, LM head, cross-entropy */
    COMP_RECOMPUTE,  /* forward work redone in the backward pass */
    COMP_TP_COMM,    /* tensor-parallel collectives, exposed */
    COMP_CP_COMM,    /* context-parallel ring attention transfers, exposed */
    COMP_EP_COMM,    /* expert-parallel all-to-all (token dispatch and combine) */
    COMP_PP_BUBBLE,  /* pipeline fill and drain */
    COMP_PP_COMM,    /* stage-to-stage transfers, exposed */
    COMP_DP_COMM,    /* data-parallel gradient collectives, exposed */
    COMP_DP_HIDDEN,  /* data-parallel communication hidden under backward (not in step time) */
    COMP_OFFLOAD,    /* activation copies to and from host memory, exposed */
    COMP_OPTIMIZER,  /* optimizer step */
    COMP_HOST,       /* host (framework) dispatch time not hidden behind device work */
    COMP_SYSTEM,     /* energy only: nodes, switches, scale-out links and facility (PUE) */
    COMP_COUNT
} Component;

typedef enum { STATUS_OK, STATUS_OOM, STATUS_ERROR } Status;

/* One op of a step's graph as the step costed it (par/step.h step_trace;
 * deepflow eval --ops): the list it belongs to, its shape, and its device
 * and host time over all its runs, before any overlap hides a collective
 * or the host's excess is charged. */
typedef struct {
    const char *list;       /* "layer forward", "layer backward", "layer recompute", "dense layer ...",
                               "first stage forward/backward", "last stage forward/backward" */
    const char *name;       /* the graph's name of the op */
    const char *kind;       /* gemm, memory (memory-bound) or collective */
    Component comp;         /* as costed: a recomputed op counts as recompute */
    int runs;               /* its repeats: experts, timesteps, recurrent steps */
    int64_t batch, m, n, k; /* a GEMM's shape (batch x m x k . k x n); 0 for other ops */
    double bytes;           /* one run's memory traffic (a memory-bound op) or message (a collective) */
    double flops;           /* one run's FLOPs */
    double device_s;        /* the device's time for all runs */
    double host_s;          /* the host's dispatch time for all runs (a CUDA graph: its replay, on one op) */
    const char *bound;      /* a GEMM's limit (compute, L1, L2, HBM, launch), or memory, or network */
} OpCost;

#define OP_TRACE_LISTS 10
#define OP_TRACE_MAX   1024

/* The op lists of one microbatch, each list once. */
typedef struct {
    OpCost op[OP_TRACE_MAX];
    int n;
    const char *listed[OP_TRACE_LISTS]; /* the lists recorded, in the order costed */
    int nlisted;
} OpTrace;

/* A derived device's figures as the report's design table shows them (the
 * precision's matrix peak; 0 clock: not derived). */
typedef struct {
    double matrix_flops, clock_hz, sms, l2_bytes, l2_bytes_s, hbm_bytes, hbm_bytes_s, idle_w;
} DeviceFigures;

typedef struct {
    Status status;
    char error[256];
    char error_key[48]; /* the scenario column (or dotted path) an error is about, "" when none */
    Strategy st;        /* the strategy as resolved (the search's choice for auto fields) */
    /* time */
    double step_time_s;
    double samples_per_s;
    double steps; /* optimizer steps to train */
    double time_to_train_s;
    double params_total;            /* model parameters (whole model) */
    double model_flops_per_step;    /* model FLOPs (no recompute), whole step, all devices */
    double hardware_flops_per_step; /* with recompute */
    double model_tflops_per_device; /* achieved */
    double mfu, hfu;
    double scaling_efficiency; /* filled by the batch runner per series */
    double speedup;            /* baseline's time-to-train / this one's (batch runner); NaN none */
    /* memory per device (the most loaded one) */
    double mem_weights_bytes, mem_grads_bytes, mem_optimizer_bytes;
    double mem_activations_bytes, mem_workspace_bytes, mem_total_bytes;
    double mem_host_bytes; /* activations offloaded to host memory (system.framework.offload_layers) */
    double mem_host_capacity_bytes; /* the host memory a device has a share of (0: not stated) */
    double mem_capacity_bytes;
    int fits_memory;
    char bottleneck[32];
    /* power and energy */
    double device_power_w, system_power_w;
    double energy_per_step_j, energy_to_train_j; /* whole system at the wall */
    double device_energy_j;                      /* one device, one step: dynamic + leakage */
    double inter_link_energy_j;                  /* one device's scale-out traffic, one step */
    double intra_bytes, inter_bytes;             /* one device's network traffic per step */
    double clock_scale;                          /* DVFS clock / nominal clock (1: not throttled) */
    double power_cap_w;                          /* the cap the device was held to */
    double cost_usd;                             /* price x devices x time to train; NaN unknown */
    /* Buying instead (issues 27, 31): the nodes' purchase price, the run's
     * energy at the wall at the site's price, the total cost of owning
     * for the run (the purchase over the amortisation years and the
     * site's facility cost, pro rata of the run's time, plus its energy)
     * and for a year of full use, and the share of the amortisation years
     * the system must be busy for buying to cost less than renting (NaN:
     * unknown; +inf: renting is cheaper at any use). */
    double purchase_usd, energy_cost_usd, tco_usd, tco_year_usd, break_even_use;
    /* What the facility sees (issue 31): the power at the wall while every
     * device computes, and the drop when all of them wait on the same
     * collective (the swing of a synchronous step); under the site's
     * ramp limit, that limit (NaN: none, the power changes as a step), the
     * dip reached in the step's common wait (its exposed data-parallel
     * exchange) and the energy burnt holding the power up, J a step (in
     * system_power_w) and its share of the step's energy. */
    double peak_power_w, power_swing_w;
    double power_ramp_w_s, power_dip_w, ramp_hold_j, ramp_hold_share;
    /* Carbon (issue 31): the run's energy at the wall x the site's grid
     * intensity, and its share of the devices' and nodes' embodied carbon
     * over their service life (NaN: the templates do not give it), and
     * the two together (NaN where either is unknown). */
    double co2e_operational_t, co2e_embodied_t, co2e_t;
    /* Clock plan (issue 31): the pipeline stages off the critical path at
     * lower clocks, the step no slower: the energy it saves per device
     * and step (IT, the stages' mean), the lowest stage clock (a fraction
     * of the row's), the share of the energy to train it saves at the wall
     * and the energy to train with it. */
    double plan_saved_device_j, plan_min_clock, clock_plan_saving, energy_to_train_plan_j;
    Goodput failures; /* time to train with failures; NaN where not stated */
    /* Prediction interval (DESIGN.md 6.10): measured / predicted step time
     * lies in [interval_lo, interval_hi] for 90 % of the stack's validation
     * runs of this regime; NaN when the stack has none (ideal). */
    double interval_lo, interval_hi;
    char interval_basis[160]; /* which runs the interval comes from */
    double epochs;            /* epochs to train (NaN when the amount is not in epochs) */
    int conv_extrapolated;    /* -1: no curve used; 0: batch inside the measured range; 1: outside it */
    int batch_below;          /* 1: fewer samples a device than the stack's smallest validated (min_batch) */
    /* Sensitivity to the convergence curve: time to train with its
     * critical batch halved and doubled (NaN: no curve used), and the
     * speedups over the baseline with them (batch runner). */
    double ttt_bcrit_half_s, ttt_bcrit_double_s;
    double speedup_bcrit_half, speedup_bcrit_double;
    /* Best against best (batch runner; issue 26): the baseline series'
     * best time to train at any device count over this row's series' best
     * (same model), and with the critical batch halved and doubled (each
     * variant's own bests); NaN none. */
    double speedup_best, speedup_best_bcrit_half, speedup_best_bcrit_double;
    /* co-design (Scenario.codesign): the best budget found, how many design
     * points were evaluated, and the starting design's figure (time to
     * train, or time per sample when the row has no amount) */
    Budget design_budget;
    DeviceFigures design_device[2]; /* the derived device at the template's split and at the one found */
    int design_evals;
    double design_start_s;
    double design_start_energy_j;
    int searched;        /* strategies the search evaluated (0: none) */
    int search_feasible; /* of those, the ones that fit in memory */
    int search_pruned;   /* candidates skipped as equivalent to one evaluated */
    double search_space; /* every combination of the open axes' values */
    double comp_time_s[COMP_COUNT];
    double comp_energy_j[COMP_COUNT];
    /* collective tier names, for the breakdown */
    char tp_tier[32], pp_tier[32], dp_tier[32];
    /* the scale-up and scale-out tiers' bandwidth per device, per
     * direction, as the row was evaluated (wires, die edge and a derived
     * device's links worked out) */
    double intra_bw_bytes_per_s, inter_bw_bytes_per_s;
} Result;

/* The names of the enums, NULL-terminated, in enum order: what the tables
 * accept (the parameter tables' choices) and what the reports print. */
extern const char *const precision_names[PREC_COUNT + 1];
extern const char *const recompute_names[RECOMPUTE_COUNT + 1];
extern const char *const model_kind_names[MODEL_KIND_COUNT + 1];
extern const char *const topology_names[TOPO_COUNT + 1];
extern const char *const placement_names[PLACE_COUNT + 1];
extern const char *const codesign_names[CODESIGN_COUNT + 1];
extern const char *const schedule_names[SCHED_COUNT + 1];
extern const char *const split_names[SPLIT_COUNT + 1];

const char *precision_name(Precision p);
const char *recompute_name(Recompute r);
const char *component_name(Component c);
const char *status_name(Status s);
const char *model_kind_name(ModelKind k);
/* The class validation runs are counted by: a transformer is dense or a
 * mixture of experts (moe); the other kinds are their own. */
const char *model_class_name(const Model *m);
const char *topology_name(Topology t);
const char *placement_name(Placement p);
/* A budget part as the derive: keys spell it ("core", "l2", "registers"). */
const char *tech_part_name(TechPart p);
const char *codesign_name(Codesign c);
const char *schedule_name(PpSchedule s);

/* A stack's prediction-interval regimes, the Interval members of Framework
 * in this order: one node, several nodes, a row no run covers, mixture of
 * experts, LSTM (k < FRAMEWORK_REGIMES).  The regime k's range; its key
 * under interval. in a template and how a report names it, where asked for
 * (core/names.c). */
#define FRAMEWORK_REGIMES 5
const Interval *framework_regime(const Framework *f, int k, const char **key, const char **label);

/* The whole nodes (a rack-scale system's: racks) `devices` accelerators
 * take on system s: a part-filled one is bought, rented and powered
 * whole (core/names.c). */
int system_nodes(const System *s, int devices);

/* ---- facts of the precisions and optimizers (core/names.c), kept once --- */

/* The precision a matrix op in p runs in on a device whose per-precision
 * figures (matrix rates, energies per FLOP) are v: p itself, else the next
 * wider format it has (fp4 -> fp8 -> bf16 -> fp16 -> tf32 -> fp32; bf16 and
 * fp16 -> tf32 -> fp32); PREC_COUNT when it has none. */
Precision precision_fallback(const double v[PREC_COUNT], Precision p);

/* Bytes of one element: a matrix operand's (fp8 1, NVFP4 4 bits and an fp8
 * scale per 16, else the value's), and a kept value's (activations,
 * weights, outputs: 4 in fp32 and tf32, else 2: fp8 and fp4 training keep
 * 16-bit copies). */
double precision_operand_bytes(Precision p);
double precision_value_bytes(Precision p);

/* An optimizer's fp32 state per parameter and vector FLOPs per parameter
 * per step; mixed precision adds 4 bytes of fp32 master weights. */
typedef struct {
    double state_bytes;
    double flops;
} OptimizerSpec;
OptimizerSpec optimizer_spec(OptimizerKind k);

/* Bytes per parameter the optimizer keeps beside the weights and the
 * gradients: its state (spec.state_bytes in fp32) and, where master > 0,
 * a master copy of master bytes; a stack whose optimizer state is 16-bit
 * (OPTSTATE_16BIT) in 16-bit training (weight_bytes 2) keeps both in 2
 * bytes an element: half the state, a 2-byte copy. */
double optimizer_held_bytes(OptimizerSpec spec, OptStateKind state, double weight_bytes, double master);

#endif
