/* core/names.c — the printed names of the shared enums (types.h), and
 * the facts of the precisions and optimizers every engine shares.  These
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
        "gemm",    "attention", "memory_bound",  "embedding_head",  "recompute",       "tp_comm",
        "cp_comm", "ep_comm",   "pp_bubble",     "pp_comm",         "dp_comm_exposed", "dp_comm_hidden",
        "offload", "optimizer", "host_overhead", "system_overhead",
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

const char *model_class_name(const Model *m)
{
    if (m->kind == MODEL_TRANSFORMER)
        return m->experts > 0 ? "moe" : "dense";
    return model_kind_name(m->kind);
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

const Interval *framework_regime(const Framework *f, int k, const char **key, const char **label)
{
    static const char *const keys[FRAMEWORK_REGIMES] = {"single_node", "multi_node", "uncovered", "moe",
                                                        "lstm"};
    static const char *const labels[FRAMEWORK_REGIMES] = {"one node", "several nodes", "a row no run covers",
                                                          "mixture of experts", "LSTM"};
    const Interval *iv[FRAMEWORK_REGIMES] = {&f->single_node, &f->multi_node, &f->uncovered, &f->moe,
                                             &f->lstm};
    if (key)
        *key = keys[k];
    if (label)
        *label = labels[k];
    return iv[k];
}

Precision precision_fallback(const double v[PREC_COUNT], Precision p)
{
    static const Precision chain[PREC_COUNT][PREC_COUNT + 1] = {
        [PREC_FP32] = {PREC_FP32, PREC_COUNT},
        [PREC_TF32] = {PREC_TF32, PREC_FP32, PREC_COUNT},
        [PREC_FP16] = {PREC_FP16, PREC_TF32, PREC_FP32, PREC_COUNT},
        [PREC_BF16] = {PREC_BF16, PREC_TF32, PREC_FP32, PREC_COUNT},
        [PREC_FP8] = {PREC_FP8, PREC_BF16, PREC_FP16, PREC_TF32, PREC_FP32, PREC_COUNT},
        [PREC_FP4] = {PREC_FP4, PREC_FP8, PREC_BF16, PREC_FP16, PREC_TF32, PREC_FP32, PREC_COUNT},
    };
    if ((int)p < 0 || p >= PREC_COUNT)
        p = PREC_FP32;
    for (const Precision *q = chain[p]; *q != PREC_COUNT; q++)
        if (v[*q] > 0.0)
            return *q;
    return PREC_COUNT;
}

double precision_value_bytes(Precision p)
{
    return p == PREC_FP32 || p == PREC_TF32 ? 4.0 : 2.0;
}

double precision_operand_bytes(Precision p)
{
    if (p == PREC_FP8)
        return 1.0;
    if (p == PREC_FP4) /* NVFP4: 4-bit values and an fp8 scale per 16 */
        return 0.5 + 1.0 / 16;
    return precision_value_bytes(p);
}

OptimizerSpec optimizer_spec(OptimizerKind k)
{
    /* fp32 state per parameter and vector FLOPs per parameter of one step:
     * Adam m, v (Kingma & Ba 2015); SGD momentum buffer; RMSProp mean
     * square and momentum (TensorFlow's RMSProp with momentum, as
     * Inception-V3 trained, Szegedy et al. 2016); Adagrad accumulator
     * (Duchi et al. 2011); LAMB m, v plus the per-layer trust ratio's two
     * norms (You et al. 2020). */
    static const OptimizerSpec spec[OPT_COUNT] = {
        [OPT_ADAM] = {8.0, 12.0},   [OPT_SGD_MOMENTUM] = {4.0, 3.0}, [OPT_RMSPROP] = {8.0, 8.0},
        [OPT_ADAGRAD] = {4.0, 5.0}, [OPT_LAMB] = {8.0, 16.0},
    };
    return spec[(unsigned)k < OPT_COUNT ? k : OPT_ADAM];
}

double optimizer_held_bytes(OptimizerSpec spec, OptStateKind state, double weight_bytes, double master)
{
    if (state == OPTSTATE_16BIT && weight_bytes == 2.0)
        return 0.5 * spec.state_bytes + (master > 0 ? 2.0 : 0.0);
    return spec.state_bytes + master;
}

int system_nodes(const System *s, int devices)
{
    const int per_node = s->devices_per_node > 0 ? s->devices_per_node : 1;
    return (devices + per_node - 1) / per_node;
}
