/* core/names.c — the printed names of the shared enums (types.h).  These
 * are the words the scenario table accepts and the reports print. */
#include "types.h"

const char *precision_name(Precision p)
{
    static const char *const n[PREC_COUNT] = {"fp32", "tf32", "fp16", "bf16", "fp8"};
    return (unsigned)p < PREC_COUNT ? n[p] : "?";
}

const char *recompute_name(Recompute r)
{
    static const char *const n[] = {"none", "selective", "full"};
    if ((int)r == AUTO_VALUE)
        return "auto";
    return (unsigned)r < 3 ? n[r] : "?";
}

const char *component_name(Component c)
{
    static const char *const n[COMP_COUNT] = {
        "gemm",      "attention",     "memory_bound",    "embedding_head",  "recompute",
        "tp_comm",   "pp_bubble",     "pp_comm",         "dp_comm_exposed", "dp_comm_hidden",
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
    static const char *const n[MODEL_KIND_COUNT] = {"transformer", "gemm", "lstm", "cnn"};
    return (unsigned)k < MODEL_KIND_COUNT ? n[k] : "?";
}

const char *topology_name(Topology t)
{
    static const char *const n[TOPO_COUNT] = {"switched", "ring", "torus2d", "torus3d", "mesh2d"};
    return (unsigned)t < TOPO_COUNT ? n[t] : "?";
}

const char *placement_name(Placement p)
{
    static const char *const n[PLACE_COUNT] = {"tp-dp-pp", "tp-pp-dp", "dp-tp-pp",
                                               "dp-pp-tp", "pp-tp-dp", "pp-dp-tp"};
    if ((int)p == AUTO_VALUE)
        return "auto";
    return (unsigned)p < PLACE_COUNT ? n[p] : "?";
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
    static const char *const n[CODESIGN_COUNT] = {"none", "area", "power", "area+power", "all"};
    return (unsigned)c < CODESIGN_COUNT ? n[c] : "?";
}
