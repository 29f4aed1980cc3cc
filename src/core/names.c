/* core/names.c — the printed names of the shared enums (types.h).  These
 * are the words the scenario table accepts (core/params.c uses these same
 * arrays as its choices) and the reports print: one list each. */
#include "types.h"

#include <stddef.h>

const char *const precision_names[PREC_COUNT + 1] = {"fp32", "tf32", "fp16", "bf16", "fp8", "fp4", NULL};
const char *const recompute_names[RECOMPUTE_COUNT + 1] = {"none", "selective", "full", NULL};
const char *const model_kind_names[MODEL_KIND_COUNT + 1] = {"transformer", "gemm", "lstm", "cnn", NULL};
const char *const topology_names[TOPO_COUNT + 1] = {"switched", "ring", "torus2d", "torus3d", "mesh2d", NULL};
const char *const placement_names[PLACE_COUNT + 1] = {"tp-dp-pp", "tp-pp-dp", "dp-tp-pp", "dp-pp-tp",
                                                      "pp-tp-dp", "pp-dp-tp", NULL};
const char *const codesign_names[CODESIGN_COUNT + 1] = {"none", "area", "power", "area+power", "all", NULL};

const char *precision_name(Precision p)
{
    return (unsigned)p < PREC_COUNT ? precision_names[p] : "?";
}

const char *recompute_name(Recompute r)
{
    if ((int)r == AUTO_VALUE)
        return "auto";
    return (unsigned)r < RECOMPUTE_COUNT ? recompute_names[r] : "?";
}

const char *component_name(Component c)
{
    static const char *const n[COMP_COUNT] = {
        "gemm",      "attention",     "memory_bound",    "embedding_head",
        "recompute", "tp_comm",       "cp_comm",         "ep_comm",
        "pp_bubble", "pp_comm",       "dp_comm_exposed", "dp_comm_hidden",
        "optimizer", "host_overhead", "system_overhead",
    };
    return (unsigned)c < COMP_COUNT ? n[c] : "?";
}

const char *status_name(Status s)
{
    static const char *const n[] = {"ok", "oom", "error"};
    return (unsigned)s < 3 ? n[s] : "?";
}

const char *model_kind_name(ModelKind k)
{
    return (unsigned)k < MODEL_KIND_COUNT ? model_kind_names[k] : "?";
}

const char *topology_name(Topology t)
{
    return (unsigned)t < TOPO_COUNT ? topology_names[t] : "?";
}

const char *placement_name(Placement p)
{
    if ((int)p == AUTO_VALUE)
        return "auto";
    return (unsigned)p < PLACE_COUNT ? placement_names[p] : "?";
}

const char *tech_part_name(TechPart p)
{
    static const char *const n[TP_COUNT] = {
        [TP_REG] = "registers", [TP_L1] = "l1",       [TP_L2] = "l2",       [TP_CORE] = "core",
        [TP_DRAM] = "dram",     [TP_INTRA] = "intra", [TP_INTER] = "inter",
    };
    return (unsigned)p < TP_COUNT ? n[p] : "?";
}

const char *codesign_name(Codesign c)
{
    return (unsigned)c < CODESIGN_COUNT ? codesign_names[c] : "?";
}
