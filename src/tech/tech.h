/* tech/tech.h — the micro-architecture generator: a technology (what one
 * unit of silicon costs in area and energy, and how fast it switches at a
 * voltage) plus budgets (die area, power, die edge, and how each is split)
 * give a Device and the bandwidth of its two network tiers, as DeepFlow's
 * architecture generation engine (AGE) does (Ardalani, Pal, Gupta; DESIGN
 * §6.7): area -> matrix units and SRAM banks, power -> voltage and clock
 * (alpha-power law, Sakurai & Newton 1990), die edge and package area ->
 * HBM stacks and network links.
 *
 * Units: SI everywhere (s, B, B/s, Hz, W, J, J/bit, J/FLOP, V) except areas,
 * which are mm^2 (field names end in _mm2), and lengths of die edge inside
 * the generator (mm, names end in _mm; the budget's edge_m is SI) and
 * densities per mm of edge.  Budget splits are fractions.
 *
 * Everything here is pure: structs in, structs out, no I/O, no globals. */
#ifndef DF_TECH_H
#define DF_TECH_H

#include "core/diag.h"
#include "core/types.h"

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

/* How the derivation came out, for reports, the Inputs sheet and tests. */
typedef struct {
    double perimeter_mm;
    int mcus, bundles;
    double core_v, core_hz;
    double core_dyn_w, core_leak_w; /* at core_v, core_hz */
    const char *core_limit;         /* "power", "v_max" or "v_min" */
    double banks[3];                /* TP_REG, TP_L1, TP_L2, whole device */
    double sram_bytes[3];           /* whole device */
    double sram_leak_w[3];
    const char *sram_limit[3]; /* "power" or "ports" */
    int stacks, stacks_by_area, stacks_by_controller, stacks_by_edge;
    const char *dram_limit; /* "package area", "controller area" or "die edge" */
    double dram_pins, dram_v, dram_pin_rate_bytes_per_s, dram_static_w;
    const char *dram_power_limit;                                           /* "power", "v_max" or "v_min" */
    double links[2], links_by_edge[2], links_by_area[2], links_by_power[2]; /* intra, inter */
    double part_w[TP_COUNT]; /* power each part draws at full activity */
    double total_w;          /* sum of part_w: <= tdp_w */
    double static_w;         /* leakage of core, SRAM and DRAM */
} TechDetail;

/* Rate of a supply curve at V relative to its rate at v_nominal:
 * h(V)/h(v_nominal) (1 at v_nominal, 0 at or below v_threshold). */
double tech_rate_factor(const VCurve *c, double v);

/* Operating point of a block on curve c under a power cap.  At v_nominal
 * and full rate the block draws dyn_nom_w (dynamic) and leak_nom_w
 * (static, taken proportional to V).  Finds the highest V in
 * [v_min, v_max] with P(V) <= cap_w by bisection; at v_min, if that is still
 * too much, it slows the rate at fixed voltage.  Writes V and the rate
 * relative to nominal (f / f_nominal).  Returns 0, or -1 when the cap does
 * not even cover the leakage at v_min.  Pure; usable by DVFS. */
int tech_operating_point(const VCurve *c, double dyn_nom_w, double leak_nom_w, double cap_w, double *v_out,
                         double *rate_out, const char **limit_out);

/* Checks a technology and a budget for consistency (ordering of voltages,
 * positive sizes, splits that sum to at most 1).  0 or -1 with d filled. */
int tech_check(const Technology *t, Diag *d);
int tech_budget_check(const Budget *b, Diag *d);

/* Derive a device and its two network tiers.  out gets every Device field
 * but launch_s and hbm_reserved_bytes (0) and name (the technology's);
 * intra/inter are the technology's link templates with bw_bytes_per_s
 * (per device, per direction) derived, 0 when the tier has no links or no
 * power.  Returns 0, or -1 with d saying which input to change. */
int tech_derive(const Technology *t, const Budget *b, Device *out, Network *intra, Network *inter, Diag *d);

/* tech_derive that also reports how it came out (detail may be NULL). */
int tech_derive_detail(const Technology *t, const Budget *b, Device *out, Network *intra, Network *inter,
                       TechDetail *detail, Diag *d);

/* Power a derived device draws at full activity: static (idle_w) plus the
 * fp16 matrix peak at its energy per FLOP plus every memory level at its
 * bandwidth plus both tiers at their bandwidth in both directions. */
double tech_full_power_w(const Device *dev, const Network *intra, const Network *inter);

/* Names of the parts, as the YAML keys spell them ("core", "l2", ...). */
const char *tech_part_name(TechPart p);

#endif
