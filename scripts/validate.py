#!/usr/bin/python3
"""make validate: fit each training-stack family on public measurements, test
every source on a fit made without it, and calibrate the prediction ranges
out of sample.

Reads vTrain's measured A100 iterations (validation/vtrain/), the published
training runs (validation/published/runs.csv) and the mixture-of-experts runs
(moe_runs.csv, fitted with their stack's family); runs `deepflow run` on each
family's runs over a grid of its fitted parameters; prints, per source, the
in-sample and left-out error and coverage, vTrain's group statistics, the
ranges and the MFU ceilings; fits the devices' and the mixture-of-experts
model templates' measured constants on validation/kernels/ and on published
forced-balance / dropless pairs; fails when a source's left-out error passes its
gate or a template holds other values than this fit (--write rewrites the
templates, the README's table and mfu_ceilings.csv).  Standard library only.

usage: validate.py DEEPFLOW [--data DIR] [--out DIR] [--quiet] [--write]
"""
import csv
import functools
import math
import os
import re
import shutil
import subprocess
import sys

GROUPS_MULTI_TARGET = (0.10, 0.85)   # mean |error|, rank correlation (issue 3)


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    return r


def spearman(a, b):
    if len(a) < 3:
        return float("nan")
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va > 0 and vb > 0 else float("nan")


COLS = ["scenario", "series", "system", "model", "devices", "tp", "pp", "dp", "microbatch",
        "global_batch", "recompute", "precision", "model.layers", "model.hidden", "model.heads",
        "model.seq_len", "model.vocab", "model.attention"]


def make_table(src, dst, kind):
    rows = []
    with open(src, newline="") as f:
        for i, r in enumerate(csv.DictReader(f)):
            g = {k.strip(): v.strip() for k, v in r.items()}
            name = "%s-%d" % (kind, i + 1)
            group = ("%sB" % g["Parameters (billion)"]) if "Parameters (billion)" in g else \
                "h%s-l%s" % (g["hidden size"], g["# layers"])
            rows.append({
                "scenario": name, "series": group, "system": "vtrain-a100", "model": "gpt",
                "devices": g["# GPUs"], "tp": g["tensor parallelism"], "pp": g["pipeline parallelism"],
                "dp": g["data parallelism"], "microbatch": g["micro batch"],
                "global_batch": g["global batch"], "recompute": "full", "precision": "fp16",
                "model.layers": g["# layers"], "model.hidden": g["hidden size"],
                "model.heads": g["attention heads"], "model.seq_len": g["sequence length"],
                "model.vocab": "50257", "model.attention": "unfused",
                "_measured": float(g["iteration time (ms)"]) / 1000.0, "_group": group})
    with open(dst, "w", newline="") as f:
        f.write("# title: vTrain validation (%s)\n" % kind)
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLS)
        for r in rows:
            w.writerow([r[c] for c in COLS])
    return rows


def run_csv(deepflow, table, outdir):
    """`deepflow run` a table into outdir (CSV only); the path of its summary.csv."""
    p = subprocess.run([deepflow, "run", table, "-o", outdir, "--quiet", "--formats", "csv"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr)
        raise SystemExit("deepflow run failed with status %d" % p.returncode)
    return os.path.join(outdir, "summary.csv")


def run(deepflow, table, outdir):
    with open(run_csv(deepflow, table, outdir), newline="") as f:
        return {r["scenario"]: r for r in csv.DictReader(f)}


def component_times(out, name, component):
    """{scenario: seconds} of one breakdown component of the run out/NAME (run_rows)."""
    with open(os.path.join(out, name, "breakdown.csv"), newline="") as f:
        return {b["scenario"]: float(b["time_s"]) for b in csv.DictReader(f)
                if b["component"] == component and b["time_s"]}


def run_rows(deepflow, out, name, title, cols, rows):
    """Scenario rows (dicts) written as out/NAME.csv with the columns cols, run; {scenario: summary row}."""
    table = os.path.join(out, name + ".csv")
    with open(table, "w", newline="") as f:
        f.write("# title: %s\n" % title)
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow([r.get(c, "") for c in cols])
    return run(deepflow, table, os.path.join(out, name))


PICKS = {}  # source -> worst group's pick regret (measured time of the model's pick / measured best - 1)


def report(kind, rows, pred, verbose):
    groups = {}
    print("\n== %s: %d measured iteration times ==" % (kind, len(rows)))
    if verbose:
        print("%-12s %-10s %4s %3s %3s %3s %4s %10s %10s %8s" %
              ("scenario", "group", "gpus", "tp", "pp", "dp", "mb", "measured", "predicted", "error"))
    allerr = []
    failed = 0
    for r in rows:
        s = pred.get(r["scenario"])
        if not s or s["status"] == "error" or not s["step_time_s"]:
            failed += 1
            if verbose:
                print("%-12s %s" % (r["scenario"], s["error"] if s else "missing"))
            continue
        p = float(s["step_time_s"])
        e = (p - r["_measured"]) / r["_measured"]
        allerr.append(abs(e))
        groups.setdefault(r["_group"], []).append((r["_measured"], p, e, (r["devices"], r["global_batch"]),
                                                   (r["devices"], r["tp"], r["pp"], r["dp"])))
        if verbose:
            print("%-12s %-10s %4s %3s %3s %3s %4s %10.4f %10.4f %+7.1f%%%s" %
                  (r["scenario"], r["_group"], r["devices"], r["tp"], r["pp"], r["dp"],
                   r["microbatch"], r["_measured"], p, 100 * e,
                   "" if s["status"] == "ok" else "  (" + s["status"] + ")"))
    # pick: the configuration the model ranks fastest among a group's runs of
    # one GPU count and global batch; its measured time against their
    # measured best (0: the model picks the best); the worst of the group.
    # rho|layout: the rank correlation if every layout (devices, tp, pp, dp)
    # had its level right (its predictions scaled by the geometric mean of
    # its measured / predicted), leaving the model only the order of its
    # microbatches: how much of a weak correlation is the layouts' levels
    print("%-12s %5s %10s %10s %10s %10s %11s" %
          ("group", "rows", "mean|err|", "max|err|", "spearman", "pick", "rho|layout"))
    worst_rho = 1.0
    worst_pick = 0.0
    for g in sorted(groups, key=lambda x: (len(x), x)):
        v = groups[g]
        m = [x[0] for x in v]
        p = [x[1] for x in v]
        errs = [abs(x[2]) for x in v]
        rho = spearman(m, p)
        if rho == rho:
            worst_rho = min(worst_rho, rho)
        # within one GPU count and global batch (a single-node group spans 1-8 GPUs)
        pick = 0.0
        for key in {x[3] for x in v}:
            sub = [x for x in v if x[3] == key]
            if len(sub) > 1:
                best_pred = min(sub, key=lambda x: x[1])
                pick = max(pick, best_pred[0] / min(x[0] for x in sub) - 1.0)
        worst_pick = max(worst_pick, pick)
        level = {}
        for x in v:
            level.setdefault(x[4], []).append(math.log(x[0] / x[1]))
        rho_layout = spearman(m, [x[1] * math.exp(sum(level[x[4]]) / len(level[x[4]])) for x in v])
        print("%-12s %5d %9.1f%% %9.1f%% %10.3f %+9.1f%% %11.3f" %
              (g, len(v), 100 * sum(errs) / len(errs), 100 * max(errs), rho, 100 * pick, rho_layout))
    mean = sum(allerr) / len(allerr) if allerr else float("nan")
    print("%-12s %5d %9.1f%% %9.1f%% %10.3f %+9.1f%%   (worst group correlation and pick)" %
          ("all", len(allerr), 100 * mean, 100 * max(allerr) if allerr else float("nan"), worst_rho,
           100 * worst_pick))
    PICKS[kind] = worst_pick
    if failed:
        print("rows not evaluated: %d" % failed)
    signed = [x[2] for v in groups.values() for x in v]
    return mean, worst_rho, failed, max(allerr) if allerr else float("nan"), len(allerr), \
        sum(1 for e in signed if e < 0)


# ---- published training runs (validation/published/runs.csv) -----------------

# The system a run's GPU names, on default templates; a row may add only what
# a user knows of the cluster (its scale-out bandwidth, its stack).
SYSTEMS = {("a100", "80"): "dgx-a100-80g", ("a100", "40"): "dgx-a100-40g", ("a100", ""): "dgx-a100-80g",
           ("ampere-unspecified", ""): "dgx-a100-80g", ("h100", "80"): "dgx-h100", ("h100", ""): "dgx-h100",
           ("b200", "180"): "dgx-b200", ("b200", ""): "dgx-b200", ("gb200", "186"): "gb200-nvl72",
           ("gb200", ""): "gb200-nvl72", ("h200", "141"): "dgx-h200", ("h200", ""): "dgx-h200",
           ("gb300", "277"): "gb300-nvl72", ("gb300", ""): "gb300-nvl72", ("b300", "270"): "dgx-b300",
           ("b300", ""): "dgx-b300", ("gh200", "96"): "quad-gh200", ("gh200", ""): "quad-gh200"}
DEEPFLOW = []  # the binary main() runs, for what the templates say (system_template)
SI = {"u": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}


@functools.lru_cache(maxsize=None)
def system_template(system):
    """A system template as the loader resolves it (`deepflow templates systems NAME`): {key: value text}.
    What validate needs of a system is read here, never kept as a copy."""
    out = subprocess.run([DEEPFLOW[0], "templates", "systems", system], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, check=True).stdout
    return {p[0]: p[1].strip() for p in (ln.split(None, 1) for ln in out.splitlines()
                                         if ln and not ln.startswith("#")) if len(p) == 2}


def system_value(system, key):
    val = system_template(system).get(key)
    if val is None:
        raise SystemExit("validate: %s's template shows no %s" % (system, key))
    return val


def template_peak(system, precision="bf16"):
    """A system's dense matrix peak (FLOP/s) in a precision, as its template says."""
    return si_quantity(system_value(system, "device.peak." + precision))


def generation_of(system):
    """The device generation of a system a validation run uses (its device template's `generation`)."""
    return system_value(system, "device.generation")


PCOLS = ["scenario", "series", "system", "system.framework", "system.inter.bandwidth", "model", "devices",
         "tp", "pp", "dp", "microbatch", "global_batch", "interleave", "recompute", "recompute_layers",
         "seq_parallel", "zero",
         "precision", "model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.ffn", "cp",
         "model.seq_len", "model.vocab", "model.mlp", "model.norm", "model.position"]


OVERRIDE_KEYS = []  # the `overrides` keys of runs.csv, columns of the validation tables


def set_override(sc, k, v):
    """One KEY=VALUE into a row's scenario; a key that is not a validation table's column becomes one
    (OVERRIDE_KEYS)."""
    sc[k] = v
    if k not in OVERRIDE_KEYS and k not in GCOLS:
        OVERRIDE_KEYS.append(k)


def apply_overrides(sc, r):
    """A row's `overrides` (KEY=VALUE;...) into its scenario (set_override)."""
    for kv in filter(None, (x.strip() for x in r.get("overrides", "").split(";"))):
        set_override(sc, *(x.strip() for x in kv.split("=", 1)))


def published_rows(root, path):
    """Rows of runs.csv that the model can evaluate, and the others with why."""
    rows, skipped = [], []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            r = {k: (v or "").strip() for k, v in r.items()}
            why = None
            sysname = SYSTEMS.get((r["gpu"], r["gpu_memory_gb"])) or SYSTEMS.get((r["gpu"], ""))
            if r.get("exclude"):
                why = r["exclude"]
            elif not sysname:
                why = "GPU %s has no system template" % r["gpu"]
            elif not r["tp"] or not r["pp"]:
                why = "tensor/pipeline split not published"
            elif r["mlp"] not in ("gelu", "swiglu"):
                why = "MLP %s not modelled" % r["mlp"]
            elif "not a measurement" in r["notes"]:
                why = "not a measurement"
            if why:
                skipped.append((r["id"], why))
                continue
            tp, pp, gpus = int(r["tp"]), int(r["pp"]), int(r["gpus"])
            cp = int(r["cp"] or "1")
            dp = r["dp"] or str(gpus // (tp * pp * cp))
            swiglu = r["mlp"] == "swiglu"
            il = r["interleave"]
            interleave = il if il.isdigit() else ("1" if il in ("no", "n/a") else "auto")
            prec = {"mixed-16bit": "fp16", "": "bf16"}.get(r["precision"], r["precision"])
            # what the row does not say is the stack's default: Megatron-Core runs
            # sequence parallelism with tp and the distributed optimizer (ZeRO-1)
            stack = r.get("framework", "") or system_stack(root, sysname)
            sp = r["seq_parallel"] or ("yes" if tp > 1 and stack == "megatron-core" else "no")
            sc = {"scenario": r["id"], "series": r["source_key"], "system": sysname,
                  "system.framework": r.get("framework", ""), "system.inter.bandwidth": r.get("inter_bandwidth", ""),
                  "model": "gpt", "devices": gpus, "tp": tp, "cp": cp, "pp": pp, "dp": dp,
                  "microbatch": r["microbatch"] or "auto", "global_batch": r["global_batch"],
                  "interleave": interleave, "recompute": r["recompute"] or "auto",
                  # unstated on Megatron-Core, whose recipes tune recompute_num_layers: only the
                  # layers that must; the older stacks' activation checkpointing redid every layer
                  "recompute_layers": "auto" if not r["recompute"] and stack == "megatron-core" else "",
                  "seq_parallel": sp,
                  "zero": r.get("zero", "") or ("1" if stack == "megatron-core" else "0"), "precision": prec,
                  "model.layers": r["layers"], "model.hidden": r["hidden"], "model.heads": r["heads"],
                  "model.kv_heads": r["kv_heads"] or r["heads"], "model.ffn": r["ffn"] or str(4 * int(r["hidden"])),
                  "model.seq_len": r["seq_len"], "model.vocab": r["vocab"] or "51200",
                  "model.mlp": r["mlp"], "model.norm": "rmsnorm" if swiglu else "layernorm",
                  "model.position": "rotary" if swiglu else "learned"}
            # the model's architecture where the row states more than the gpt template's
            # (tied_embeddings: no for Llama, Nemotron-4 and KempnerForge's models, which keep
            # a separate output layer)
            if r.get("tied_embeddings"):
                set_override(sc, "model.tied_embeddings", r["tied_embeddings"])
            # what a user of that cluster knows and sets (its devices' memory and power, async TP)
            apply_overrides(sc, r)
            sc["_row"] = r
            sc["_stack"] = stack
            rows.append(sc)
    return rows, skipped


MCOLS = ["scenario", "series", "system", "model", "devices", "tp", "cp", "pp", "pp_split", "ep", "etp", "dp", "microbatch",
         "global_batch", "interleave", "recompute", "recompute_layers", "seq_parallel", "zero", "precision",
         "model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.head_dim", "model.ffn",
         "model.expert_ffn", "model.experts", "model.experts_per_token", "model.shared_experts", "model.seq_len",
         "model.vocab", "model.expert_imbalance", "model.attention_window", "model.window_layers",
         "model.dense_layers", "model.moe_every", "model.q_lora_rank", "model.kv_lora_rank", "model.rope_head_dim",
         "model.v_head_dim", "model.mtp_layers", "model.capacity_factor", "model.expert_groups",
         "model.groups_per_token", "system.framework.moe_dispatcher", "system.framework.ep_overlap",
         "system.framework.cuda_graphs", "system.framework.fp8_scaling"]


def moe_rows(root, path):
    """Mixture-of-experts runs (validation/published/moe_runs.csv), fitted
    with their stack's family; their residuals, each source left out, give a
    mixture-of-experts row its range.  Rows the model cannot express say why
    in `exclude`."""
    rows, skipped = [], []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            r = {k: (v or "").strip() for k, v in r.items()}
            sysname = SYSTEMS.get((r["gpu"], r["gpu_memory_gb"])) or SYSTEMS.get((r["gpu"], ""))
            if r["exclude"] or not sysname:
                skipped.append((r["id"], r["exclude"] or "GPU %s has no system template" % r["gpu"]))
                continue
            tp, pp, cp, gpus = int(r["tp"] or 1), int(r["pp"] or 1), int(r["cp"] or 1), int(r["gpus"])
            il = r["interleave"]
            # the stack, its sharding and its recompute where the row states them (the
            # PyTorch-native runs); Megatron-Core's distributed optimizer otherwise
            stack = r.get("framework", "") or system_stack(root, sysname)
            sc = {"scenario": r["id"], "series": r["source_key"], "system": sysname, "model": "mixtral-8x7b",
                  "system.framework": r.get("framework", ""), "system.inter.bandwidth": r.get("inter_bandwidth", ""),
                  "devices": gpus, "tp": tp, "cp": cp, "pp": pp, "pp_split": r["pp_split"],
                  "ep": r["ep"] or "1", "etp": r.get("etp", ""),
                  "dp": gpus // (tp * pp * cp),
                  "microbatch": r["microbatch"] or "auto", "global_batch": r["global_batch"],
                  "interleave": "1" if pp == 1 else (il if il.isdigit() else "auto"),
                  "recompute": r["recompute"] or "auto",
                  "recompute_layers": "auto" if not r["recompute"] else "",
                  "seq_parallel": "yes" if tp > 1 else "no", "zero": r.get("zero", "") or "1",
                  "precision": "bf16" if r["precision"] == "bf16" else "fp8",
                  "model.layers": r["layers"], "model.hidden": r["hidden"], "model.heads": r["heads"],
                  "model.kv_heads": r["kv_heads"] or r["heads"], "model.head_dim": r["head_dim"],
                  # the dense layers' MLP (ffn) where some layers are dense, else the experts'
                  "model.ffn": r["dense_ffn"] or r["expert_ffn"], "model.expert_ffn": r["expert_ffn"],
                  "model.experts": r["experts"],
                  "model.experts_per_token": r["experts_per_token"], "model.shared_experts": r["shared_experts"],
                  "model.seq_len": r["seq_len"], "model.vocab": r["vocab"],
                  # a run that balanced its experts by construction says so in its overrides
                  # (model.expert_imbalance=1); the others take the model template's
                  "model.expert_imbalance": "",
                  "model.attention_window": r.get("attention_window", ""), "model.window_layers": r.get("window_layers", ""),
                  "model.dense_layers": r["dense_layers"], "model.moe_every": r["moe_every"],
                  "model.q_lora_rank": r["q_lora_rank"], "model.kv_lora_rank": r["kv_lora_rank"],
                  "model.rope_head_dim": r["rope_head_dim"], "model.v_head_dim": r["v_head_dim"],
                  "model.mtp_layers": r["mtp_layers"],
                  # the recipe's token dispatcher and expert all-to-all overlap, where its code states them
                  "system.framework.moe_dispatcher": r["moe_dispatcher"],
                  "system.framework.ep_overlap": {"1": "yes", "0": "no"}.get(r["ep_overlap"], ""),
                  # token dropping (a capacity) and the recipe's CUDA graphs, where its code states them
                  "model.capacity_factor": r.get("capacity_factor", ""),
                  # the routing's groups where the run's code limits a token's experts to some of
                  # them (DeepSeek-V3's 4 of 8; a round-robin benchmark gate's top-k consecutive experts)
                  "model.expert_groups": r.get("expert_groups", ""),
                  "model.groups_per_token": r.get("groups_per_token", ""),
                  "system.framework.cuda_graphs": r.get("cuda_graphs", ""),
                  # the page's fp8 recipe where its precision names it: FP8-CS (Megatron's fp8_recipe
                  # tensorwise: TE's current scaling), FP8-MX and MXFP8 (block scaling)
                  "system.framework.fp8_scaling": {"fp8-cs": "current", "fp8-mx": "block",
                                                   "mxfp8": "block"}.get(r["precision"], "")}
            # what a user of that cluster knows and sets (as runs.csv's overrides)
            apply_overrides(sc, r)
            sc["_row"] = r
            sc["_stack"] = stack
            rows.append(sc)
    return rows, skipped


def moe_interval(by_src, exclude=None):
    ratios = {s: [1.0 / (1.0 + e) for _, e in v] for s, v in by_src.items() if s != exclude}
    if len(ratios) < MIN_SOURCES or sum(len(v) for v in ratios.values()) < MIN_RUNS:
        return None
    return interval_from(ratios)


# ---- expert-parallel exchanges (validation/published/moe_a2a.csv) -------------

A2A_SYSTEMS = {"h100": "dgx-h100", "gb200": "gb200-nvl72"}
A2A_DISPATCHER = {"alltoall": "alltoall", "hybridep": "deepep"}  # deepflow has no HybridEP: its nearest
A2ACOLS = ["scenario", "system", "model", "devices", "tp", "pp", "ep", "dp", "microbatch", "global_batch",
           "recompute", "zero", "precision", "model.layers", "model.hidden", "model.heads", "model.kv_heads",
           "model.ffn", "model.expert_ffn", "model.experts", "model.experts_per_token", "model.seq_len",
           "model.vocab", "model.expert_imbalance", "system.framework.moe_dispatcher",
           "system.framework.ep_overlap"]


def evaluate_a2a(deepflow, root, out):
    """[(id, gpu, dispatcher, ep, phase, predicted us, measured us, gate or None)]: one token dispatch or
    combine of Table 7's setup (hidden 7168, 4,096 tokens a rank, 256 experts, top-8, bf16), costed by
    deepflow as a one-layer model on one microbatch: its EP time over the layer's four exchanges (dispatch
    and combine, forward and backward, the same bytes each)."""
    with open(os.path.join(root, "validation", "published", "moe_a2a.csv"), newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    scen = {}
    for r in rows:
        key = "a2a-%s-%s-ep%s" % (r["gpu"], r["dispatcher"], r["ep"])
        r["_key"] = key
        ep = int(r["ep"])
        scen[key] = {"scenario": key, "system": A2A_SYSTEMS[r["gpu"]], "model": "mixtral-8x7b", "devices": ep,
                     "tp": 1, "pp": 1, "ep": ep, "dp": ep, "microbatch": 1, "global_batch": ep,
                     "recompute": "none", "zero": 1, "precision": "bf16", "model.layers": 1,
                     "model.hidden": 7168, "model.heads": 56, "model.kv_heads": 8, "model.ffn": 2048,
                     "model.expert_ffn": 2048, "model.experts": 256, "model.experts_per_token": 8,
                     "model.seq_len": 4096, "model.vocab": 32000, "model.expert_imbalance": 1,
                     "system.framework.moe_dispatcher": A2A_DISPATCHER[r["dispatcher"]],
                     "system.framework.ep_overlap": "no"}
    run_rows(deepflow, out, "a2a", "expert-parallel exchanges (validation/published/moe_a2a.csv)", A2ACOLS,
             list(scen.values()))
    ep_time = {k: t / 4.0 for k, t in component_times(out, "a2a", "ep_comm").items()}
    res = []
    for r in rows:
        t = ep_time.get(r["_key"])
        if t is None:
            raise SystemExit("validate: no expert-parallel time for %s" % r["id"])
        res.append((r["id"], r["gpu"], r["dispatcher"], int(r["ep"]), r["phase"], 1e6 * t,
                    float(r["measured_us"]), float(r["gate"]) if r["gate"] else None))
    return res


# ---- fused attention kernels (validation/published/attention.csv) ------------

ATTCOLS = ["scenario", "system", "system.framework", "system.framework.flash_attention", "model", "devices", "tp",
           "pp", "dp", "microbatch", "global_batch", "recompute", "zero", "precision", "model.layers",
           "model.hidden", "model.heads", "model.kv_heads", "model.ffn", "model.seq_len", "model.vocab",
           "model.causal"]
ATT_SYSTEMS = {"h100": "dgx-h100"}
ATT_KERNELS = {"cudnn": "yes", "fa2": "fa2"}  # the measured kernel -> deepflow's flash_attention


def evaluate_attention(deepflow, root, out):
    """[(id, kernel, seq, predicted ms, measured ms)]: one layer's fused attention, forward and backward, of
    FlashAttention-3's benchmark shape (not causal), on Megatron-Core's stack with flash_attention set to
    the kernel; measured = forward FLOPs / forward rate + 2.5 x forward FLOPs / backward rate.  Not
    fitted and not gated: it shows what the step model charges a fused attention kernel (its GEMMs in
    the tile model, score matrices' L2 and HBM traffic included, which the kernels never write)."""
    with open(os.path.join(root, "validation", "published", "attention.csv"), newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    scen, meas = [], {}
    for r in rows:
        b, h, d, s = int(r["batch"]), int(r["heads"]), int(r["head_dim"]), int(r["seq_len"])
        fwd = 4.0 * s * s * d * h * b
        meas[r["id"]] = fwd / (float(r["fwd_tflops"]) * 1e12) + 2.5 * fwd / (float(r["bwd_tflops"]) * 1e12)
        scen.append({"scenario": r["id"], "system": ATT_SYSTEMS[r["gpu"]], "system.framework": "megatron-core",
                     "system.framework.flash_attention": ATT_KERNELS[r["kernel"]], "model": "gpt", "devices": 1,
                     "tp": 1, "pp": 1, "dp": 1, "microbatch": b, "global_batch": b, "recompute": "none",
                     "zero": 0, "precision": "bf16", "model.layers": 1, "model.hidden": h * d, "model.heads": h,
                     "model.kv_heads": h, "model.ffn": 4 * h * d, "model.seq_len": s, "model.vocab": 32000,
                     "model.causal": "no"})
    run_rows(deepflow, out, "attention", "fused attention kernels (validation/published/attention.csv)", ATTCOLS,
             scen)
    t_att = component_times(out, "attention", "attention")
    res = []
    for r in rows:
        if r["id"] not in t_att:
            raise SystemExit("validate: no attention time for %s" % r["id"])
        res.append((r["id"], r["kernel"], int(r["seq_len"]), 1e3 * t_att[r["id"]], 1e3 * meas[r["id"]]))
    return res


# ---- all-reduce on vTrain's A100 nodes (validation/vtrain/allreduce_a100.csv) --

VTRAIN_AR = os.path.join("validation", "vtrain", "allreduce_a100.csv")


def evaluate_vtrain_allreduce(deepflow, root):
    """[(ranks, bytes, predicted us, measured us)]: the tensor-parallel all-reduce of one GPT layer's
    activations (microbatch 1, hidden 2,048, fp16: sequence = bytes / 4,096) on the vtrain-a100 system
    and its stack, as deepflow eval --ops costs it, against nccl-tests on that cluster (the mean of its
    out-of-place and in-place times).  Not fitted, not gated."""
    with open(os.path.join(root, VTRAIN_AR), newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    res = []
    for r in rows:
        p, b = int(r["ranks"]), int(r["bytes"])
        args = ["system=vtrain-a100", "model=gpt", "model.layers=1", "model.hidden=2048", "model.heads=16",
                "model.seq_len=%d" % (b // 4096), "model.vocab=50304", "devices=%d" % p, "tp=%d" % p, "pp=1",
                "microbatch=1", "global_batch=1", "recompute=none", "precision=fp16"]
        ops = [o for o in eval_ops(deepflow, root, args, "all-reduce of %d bytes on %d ranks" % (b, p))
               if o["list"] == "layer forward" and o["op"] == "proj.allreduce"]
        if len(ops) != 1 or int(float(ops[0]["bytes"])) != b:
            raise SystemExit("validate: no %d-byte all-reduce in the op table of %d ranks" % (b, p))
        meas = 0.5 * (float(r["time_ns_out_of_place"]) + float(r["time_ns_in_place"])) / 1e3
        res.append((p, b, 1e6 * float(ops[0]["device_s"]), meas))
    return res


# ---- one mixture-of-experts layer (validation/kernels/moe_layer_h100.csv) -----

MOE_LAYER = os.path.join("validation", "kernels", "moe_layer_h100.csv")
MOE_LAYER_STACKS = {"megatron": "megatron-core", "deepgemm-pt": "pytorch-fsdp-eager"}
# Both run their grouped GEMMs at the dense rate, as cuBLAS's: Megatron's with Transformer Engine's, DeepGEMM-pt
# with DeepGEMM's own kernel, not torch._grouped_mm
MOE_LAYER_KERNEL = "system.framework.grouped_gemm_kernel=cublas"
# their token paths: Megatron's as Megatron-Core's defaults run it (moe_permute_fusion False: moe_utils.py's
# index_select, and its unpermute's multiply by the probabilities then scatter_add_); DeepGEMM-pt's "standard PyTorch implementation" of the gather and the expert
# aggregation is not spelt out, and with DeepGEMM's contiguous layout a gather and a weighted sum need no
# accumulating scatter nor weighting kernels of their own: streamed at the memory-bound rate, the weighting in
# the sum, not torchtitan's (the eager stack's defaults); its up projection one grouped GEMM of 2I columns, as the
# layer's weights are (sonicmoe/moe.py: c_fc, one Experts of gate and up), not torchtitan's w1 and w3
MOE_LAYER_TOKENS = {"megatron": ["system.framework.moe_permute=index", "system.framework.moe_combine=scatter_add",
                                 "system.framework.moe_score_apart=yes"],
                    "deepgemm-pt": ["system.framework.moe_permute=fused", "system.framework.moe_combine=gather",
                                    "system.framework.moe_sort=chunks", "system.framework.moe_score_apart=no",
                                    "system.framework.fused_gate_up=yes"]}
MOE_OPS = ("router", "moe.", "expert_", "swiglu")  # the MoE layer's ops in deepflow's graph


def eval_ops(deepflow, root, args, what):
    """deepflow eval --ops --format csv: the op table of one scenario, which must evaluate."""
    return eval_csv(deepflow, root, args + ["--ops"], what)


def evaluate_moe_layer(deepflow, root):
    """[(id, impl, model, n, E, K, pass, predicted ms, measured ms)] for SonicMoE's Figure 14: one MoE
    layer of T tokens on one H100 under the stack that runs it as the implementation does (Megatron-Core's
    for Megatron; the eager PyTorch stack's for DeepGEMM's grouped GEMMs with PyTorch's router and
    gather), balanced routing; a pass's time is its MoE ops' device time, or their host dispatch where
    that is longer (deepflow eval --ops).  Not fitted, not gated."""
    with open(os.path.join(root, MOE_LAYER), newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    res = []
    for r in rows:
        T, d, n, E, K = (int(r[k]) for k in ("tokens", "hidden", "expert_ffn", "experts", "topk"))
        args = ["system=dgx-h100", "system.framework=" + MOE_LAYER_STACKS[r["impl"]],
                MOE_LAYER_KERNEL, "model=mixtral-8x7b",
                "model.layers=1", "model.seq_len=%d" % T, "model.hidden=%d" % d, "model.heads=%d" % (d // 128),
                "model.kv_heads=%d" % (d // 128), "model.expert_ffn=%d" % n, "model.experts=%d" % E,
                "model.experts_per_token=%d" % K, "model.expert_imbalance=1", "devices=1", "tp=1", "pp=1",
                "ep=1", "microbatch=1", "global_batch=1", "recompute=none", "precision=bf16"]
        ops = eval_ops(deepflow, root, args + MOE_LAYER_TOKENS[r["impl"]], "MoE layer %s" % r["id"])
        for pas, lst, flops, col in (("forward", "layer forward", 6.0, "fwd_tflops"),
                                     ("backward", "layer backward", 12.0, "bwd_tflops")):
            if not r[col]:
                continue
            moe = [o for o in ops if o["list"] == lst and o["op"].startswith(MOE_OPS)]
            t = max(sum(float(o["device_s"]) for o in moe), sum(float(o["host_s"]) for o in moe))
            work = flops * T * n * d * K
            res.append((r["id"], r["impl"], r["model"], n, E, K, pas, 1e3 * t, 1e3 * work / (float(r[col]) * 1e12)))
    return res


# ---- pipeline schedules (validation/published/schedules.csv) ------------------

SCOLS = ["scenario", "series", "system", "system.framework", "model", "devices", "tp", "pp", "dp", "microbatch",
         "global_batch", "interleave", "pp_schedule", "pp_split", "recompute", "seq_parallel", "zero", "precision",
         "model.layers", "model.hidden", "model.heads", "model.seq_len"]
SCHEDULE_GATE = (0.03, 0.06)  # mean and largest |predicted - measured speedup over 1F1B|


def evaluate_schedules(deepflow, root, out):
    """[(config, schedule, predicted speedup over 1F1B, measured one)], each row's predicted / measured
    throughput - 1 (out of sample: no fit saw the source), and the rows not evaluated."""
    rows, skipped = [], []
    with open(os.path.join(root, "validation", "published", "schedules.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["exclude"]:
                skipped.append((r["id"], r["exclude"]))
                continue
            mb, m = int(r["microbatch"]), int(r["microbatches"])
            rows.append({"scenario": r["id"], "series": r["source_key"],
                         "system": SYSTEMS[(r["gpu"], r["gpu_memory_gb"])], "system.framework": "megatron-lm",
                         "model": "gpt", "devices": r["gpus"], "tp": 1, "pp": r["pp"], "dp": 1, "microbatch": mb,
                         "global_batch": mb * m, "interleave": r["interleave"], "pp_schedule": r["schedule"],
                         "pp_split": r["pp_split"], "recompute": "none",
                         "seq_parallel": "no", "zero": 0, "precision": "fp16", "model.layers": r["layers"],
                         "model.hidden": r["hidden"], "model.heads": r["heads"], "model.seq_len": r["seq_len"],
                         "_measured": float(r["samples_per_gpu_s"]),
                         "_config": r["id"].rsplit("_", 1)[0]})
    pred = run_rows(deepflow, out, "schedules", "pipeline schedules (validation/published/schedules.csv)", SCOLS,
                    rows)
    base = {r["_config"]: r for r in rows if r["pp_schedule"] == "1f1b"}
    res, absolute = [], []
    for r in rows:
        p = pred[r["scenario"]]
        if p["status"] == "ok":
            absolute.append(float(p["samples_per_s"]) / float(r["devices"]) / r["_measured"] - 1.0)
    for r in rows:
        b = base.get(r["_config"])
        if r["pp_schedule"] == "1f1b" or not b:
            continue
        p, pb = pred[r["scenario"]], pred[b["scenario"]]
        if p["status"] != "ok" or pb["status"] != "ok":
            skipped.append((r["scenario"], p["error"] or pb["error"]))
            continue
        res.append((r["_config"], r["pp_schedule"], float(p["samples_per_s"]) / float(pb["samples_per_s"]),
                    r["_measured"] / b["_measured"]))
    return res, absolute, skipped


FOOTPRINTS = os.path.join("validation", "footprints", "footprints.csv")


def footprint_figure(kind, r, row):
    """deepflow's figure for a footprint row, counted as the source counts it (validation/footprints)."""
    days = float(r["time_to_train_days"])
    gpu_h = days * 24.0 * int(r["devices"])
    if kind == "energy_mwh":
        return float(r["energy_to_train_kwh"]) / 1e3
    if kind == "co2e_t":
        return float(r["co2e_operational_t"])
    if kind == "co2e_tdp_t":
        return gpu_h * float(row["tdp_w"]) / 1e3 * float(row["kg_per_kwh"]) / 1e3
    if kind == "gpu_hours":
        return gpu_h
    if kind == "embodied_t":
        return float(r["co2e_embodied_t"])
    raise SystemExit("validate: %s: unknown figure '%s'" % (FOOTPRINTS, kind))


def eval_args(row):
    """A check table row's `eval` column (KEY=VALUE; ...) as deepflow eval's arguments."""
    return [a.strip() for a in row["eval"].split(";") if a.strip()]


def eval_csv(deepflow, root, args, what, ok=lambda rows: True):
    """deepflow eval --format csv's rows for one scenario (KEY=VALUE arguments and flags), which must
    evaluate, with ok(rows) true of them."""
    p = subprocess.run([deepflow, "eval"] + args + ["--format", "csv"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, cwd=root)
    out = list(csv.DictReader(p.stdout.splitlines()))
    if p.returncode != 0 or not out or not ok(out):
        raise SystemExit("validate: %s did not evaluate: %s" % (what, p.stderr.strip()))
    return out


def eval_one(deepflow, root, args, what):
    """deepflow eval's result for one scenario (KEY=VALUE arguments), which must evaluate ok."""
    return eval_csv(deepflow, root, args, what, lambda rows: rows[0]["status"] == "ok")[0]


def eval_rows(deepflow, root, path, what):
    """Each row of a check table (comment lines skipped) with deepflow's result for its `eval` column
    (KEY=VALUE; ...), which must evaluate ok: [(row, result)]."""
    with open(os.path.join(root, path), newline="") as f:
        return [(row, eval_one(deepflow, root, eval_args(row), "%s %s" % (what, row["id"])))
                for row in csv.DictReader(line for line in f if not line.startswith("#"))]


def evaluate_footprints(deepflow, root):
    """[(id, figure, predicted, published, gate or None, note)] for validation/footprints/footprints.csv."""
    return [(row["id"], row["figure"], footprint_figure(row["figure"], r, row), float(row["published"]),
             float(row["gate"]) if row["gate"] else None, row["note"])
            for row, r in eval_rows(deepflow, root, FOOTPRINTS, "footprint")]


PERSEUS = os.path.join("validation", "perseus", "perseus.csv")


def evaluate_perseus(deepflow, root):
    """[(id, predicted, published, gate or None, note)] for validation/perseus/perseus.csv: the clock plan's
    saving in percent of the devices' energy (the rows run at PUE 1), against Perseus's Table 6, in points."""
    return [(row["id"],
             100 * float(r["clock_plan_saving"]) * float(r["system_power_w"]) / (
                 int(r["devices"]) * float(r["device_power_w"])),
             float(row["published_pts"]), float(row["gate_pts"]) if row["gate_pts"] else None, row["note"])
            for row, r in eval_rows(deepflow, root, PERSEUS, "Perseus row")]


SMALL_BATCH = os.path.join("validation", "small_batch", "runs.csv")


SMALL_BATCH_GATE = 0.10  # issue 26: the gated rows' mean |error| (the table's `# gate:` line says so too)


def evaluate_small_batch(deepflow, root):
    """[(id, source, stack, predicted, measured images/s, gated)] for validation/small_batch/runs.csv; the
    gated rows also go to SMALL_ROWS (the stack they ran on, its system, devices, images a device)."""
    out = []
    for row, r in eval_rows(deepflow, root, SMALL_BATCH, "small-batch row"):
        gated = row["gated"] == "yes"
        out.append((row["id"], row["source"], row["stack"], float(r["samples_per_s"]), float(row["images_per_s"]),
                    gated))
        if gated:
            SMALL_ROWS.append(measured_row(root, "cnn", row, r, float(r["samples_per_s"]) / float(row["images_per_s"])))
    return out


def measured_row(root, cls, row, result, ratio):
    """A measured run of a class (cnn, lstm) as the ranges use it: its source, the stack and system it ran on,
    its devices and samples a device, and measured / predicted step time (ratio)."""
    kv = dict(a.split("=", 1) for a in eval_args(row))
    return {"class": cls, "source": row["source"],
            "stack": kv.get("system.framework") or system_stack(root, kv["system"]), "system": kv["system"],
            "devices": int(result["devices"]), "batch": int(result["microbatch"]), "ratio": ratio}


LSTM_TABLE = os.path.join("validation", "small_batch", "lstm.csv")


def evaluate_lstm(deepflow, root):
    """[(id, stack, predicted, measured tokens/s)] for validation/small_batch/lstm.csv (shown, not gated); each
    row also goes to LSTM_ROWS (the stack it ran on), which gives that stack the range of its LSTM rows."""
    out = []
    for row, r in eval_rows(deepflow, root, LSTM_TABLE, "LSTM row"):
        pred = float(r["samples_per_s"]) * float(row["tokens_per_sample"])
        out.append((row["id"], row["stack"], pred, float(row["tokens_per_s"])))
        LSTM_ROWS.append(measured_row(root, "lstm", row, r, pred / float(row["tokens_per_s"])))
    return out


LSTM_ROWS = []  # the measured LSTM rows (evaluate_lstm)


def class_interval(rows):
    """A range from measured rows of one class: measured / predicted step time, each source weighing the same
    (interval_from); coverage: a source's rows inside the range built without it, on average over the sources.
    None with fewer than MIN_SOURCES sources or MIN_RUNS rows (as the MoE range)."""
    by = {}
    for r in rows:
        by.setdefault(r["source"], []).append(r["ratio"])
    if len(by) < MIN_SOURCES or len(rows) < MIN_RUNS:  # as the MoE range
        return None
    lo, hi = interval_from(by)
    ratios = [x for v in by.values() for x in v]
    mean_err = sum(abs(1.0 / x - 1.0) for x in ratios) / len(ratios)
    cov = []
    for src, v in by.items():
        rest = {k: w for k, w in by.items() if k != src}
        if rest:
            a, b = interval_from(rest)
            cov.append(sum(1 for x in v if a <= x <= b) / len(v))
    return lo, hi, len(ratios), mean_err, sum(cov) / len(cov) if cov else float("nan")


GEMM_V100 = os.path.join("validation", "kernels", "gemm_v100.csv")
# A kernel benchmark times the library on the device, outside any training stack: its rows run on the `ideal`
# stack (GEMMs at the device's own rate, no host time), not on the V100's 2019 stack and its GEMM efficiency
KERNEL_STACK = "ideal"
KERNEL_GEMMS = {}  # (precision, m, n, k) -> seconds: kernel_gemm_s's memo


def kernel_gemm_s(deepflow, root, prec, m, n, k, system="dgx-v100"):
    """One GEMM's time (s) as deepflow gives it on a system's device (the V100's unless said) and the kernel
    stack (model=gemm), evaluated once a shape."""
    key = (system, prec, m, n, k)
    if key not in KERNEL_GEMMS:
        d = eval_one(deepflow, root, ["system=" + system, "system.framework=" + KERNEL_STACK, "model=gemm",
                                      "model.m=%d" % m, "model.n=%d" % n, "model.k=%d" % k, "devices=1",
                                      "precision=" + prec], "GEMM %dx%dx%d" % (m, n, k))
        KERNEL_GEMMS[key] = float(d["step_time_s"])
    return KERNEL_GEMMS[key]


def evaluate_gemm_v100(deepflow, root):
    """[(precision, m, n, k, predicted ms, measured ms)] for validation/kernels/gemm_v100.csv: deepflow's
    GEMM on the V100 template and the kernel stack (kernel_gemm_s; transposes are not modelled)."""
    with open(os.path.join(root, GEMM_V100), newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    out = []
    for r in rows:
        m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
        out.append((r["precision"], m, n, k, 1e3 * kernel_gemm_s(deepflow, root, r["precision"], m, n, k),
                    float(r["measured_ms"])))
    return out


def err_stats(errs):
    """Percent: mean |error|, signed mean, smallest and largest of a list of relative errors."""
    return (100 * sum(abs(e) for e in errs) / len(errs), 100 * sum(errs) / len(errs), 100 * min(errs),
            100 * max(errs))


def overhead_fit(pairs, grid):
    """A fixed cost (s; grid: the whole microseconds tried) added `calls` times to each predicted time: the one
    that minimises the mean |error| over (predicted s, measured s, calls) pairs, and that mean."""
    def err(c):
        return sum(abs((p + n * c) / m - 1) for p, m, n in pairs) / len(pairs)
    best = min(grid, key=lambda us: (err(us * 1e-6), us))
    return best * 1e-6, err(best * 1e-6)


def gemm_v100_lines(gm):
    """The V100 GEMM table's summary as make validate prints it: per precision, skinny shapes (a side of at most
    128) and the rest."""
    lines = []
    for prec in ("fp32", "fp16"):
        for name, keep in (("a side <= 128", lambda m, n: min(m, n) <= 128), ("larger", lambda m, n: min(m, n) > 128)):
            errs = [p / t - 1 for pr, m, n, k, p, t in gm if pr == prec and keep(m, n)]
            if errs:
                lines.append("  %-5s %-14s %4d shapes  mean |error| %5.1f %%  signed %+6.1f %%  range %+.0f .. %+.0f %%"
                             % ((prec, name, len(errs)) + err_stats(errs)))
    return lines


GROUPED_MM = os.path.join("validation", "kernels", "grouped_mm.csv")
GROUPED_MM_GRID = [round(0.30 + 0.01 * i, 2) for i in range(71)]  # efficiency.grouped_mm candidates
# the device templates of a generation, which take its fitted efficiency.grouped_mm; the first of each is the
# one whose kernel timings the table holds (the others say they take its value)
GROUPED_MM_DEVICES = {"hopper": ("h100-sxm5-80gb", "h200-sxm-141gb"), "blackwell": ("b200", "b300")}


def group_sizes(r):
    """A grouped GEMM row's rows per group: as listed, or the total split evenly."""
    if r["group_rows"].strip():
        sizes = [int(x) for x in r["group_rows"].split()]
        if len(sizes) != int(r["groups"]) or sum(sizes) != int(r["m_total"]):
            raise SystemExit("validate: %s: row %s lists %d groups of %d rows, expected %s of %s"
                             % (GROUPED_MM, r["id"], len(sizes), sum(sizes), r["groups"], r["m_total"]))
        return sizes
    g, m = int(r["groups"]), int(r["m_total"])
    return [m // g + (1 if i < m % g else 0) for i in range(g)]


def evaluate_grouped_mm(deepflow, root):
    """[(row, dense work s, kernels, launch s, measured s)] for validation/kernels/grouped_mm.csv: each group's
    GEMMs at the device's best dense rate (kernel_gemm_s, bf16) without their launches, the forward
    (out[m_g x n] = A[m_g x k] B[k x n]) and, for a forward and backward pass, the input gradient (m_g x k over
    n) and the weight gradient (n x k over m_g), each pass one kernel and one launch; an empty group does no
    work.  Each row gets its device's generation (row["generation"]), as its system template says."""
    with open(os.path.join(root, GROUPED_MM), newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    out = []
    for r in rows:
        system = SYSTEMS[(r["gpu"], "")]  # a kernel row's GPU on its default template, as a training run's
        launch = si_quantity(system_value(system, "device.launch_overhead"))
        r["generation"] = generation_of(system)
        n, k = int(r["n"]), int(r["k"])
        shapes = []
        for m in (m for m in group_sizes(r) if m > 0):
            shapes.append((m, n, k))
            if r["pass"] == "fwd_bwd":
                shapes += [(m, k, n), (n, k, m)]
        work = sum(kernel_gemm_s(deepflow, root, "bf16", a, b, c, system) - launch for a, b, c in shapes)
        kernels = 3 if r["pass"] == "fwd_bwd" else 1
        out.append((r, work, kernels, launch, float(r["measured_us"]) * 1e-6))
    return out


def grouped_mm_pred(row, f):
    _, work, kernels, launch, _ = row
    return work / f + kernels * launch


def grouped_mm_fit(rows):
    """{generation: (efficiency, mean |error|, rows)}: per generation the grid's value (GROUPED_MM_GRID) with the
    smallest mean |error| of grouped_mm_pred against the measured times (ties: the larger)."""
    fits = {}
    for gen in sorted({x[0]["generation"] for x in rows}):
        mine = [x for x in rows if x[0]["generation"] == gen]
        def err(f):
            return sum(abs(grouped_mm_pred(x, f) / x[4] - 1) for x in mine) / len(mine)
        best = min(GROUPED_MM_GRID, key=lambda f: (round(err(f), 12), -f))
        fits[gen] = (best, err(best), len(mine))
    return fits


def grouped_mm_lines(rows, fits):
    lines = []
    for x in rows:
        r, gen = x[0], x[0]["generation"]
        f = fits[gen][0]
        lines.append("  %-28s %-5s %-7s G %3s  M %6s  N %5s  K %5s  dense %8.1f  at %.2f %8.1f  measured %8.1f  "
                     "%+6.1f %%" % (r["id"], r["gpu"], r["pass"], r["groups"], r["m_total"], r["n"], r["k"],
                                    1e6 * grouped_mm_pred(x, 1.0), f, 1e6 * grouped_mm_pred(x, f), 1e6 * x[4],
                                    100 * (grouped_mm_pred(x, f) / x[4] - 1)))
    for gen, (f, mean, n) in sorted(fits.items()):
        dense = [grouped_mm_pred(x, 1.0) / x[4] - 1 for x in rows if x[0]["generation"] == gen]
        lines.append("  %-9s efficiency.grouped_mm %.2f: mean |error| %.1f %% over %d rows (at the dense rate: %.1f "
                     "%%, signed %+.1f %%)" % ((gen, f, 100 * mean, n) + err_stats(dense)[:2]))
    return lines


def grouped_mm_write(root, fits, rows, write):
    """Each generation's fitted efficiency.grouped_mm into its device templates' `grouped_mm:` line (write), or
    the names of those that differ."""
    stale = []
    for gen, (f, mean, n) in sorted(fits.items()):
        gpus = sorted({x[0]["gpu"].upper() for x in rows if x[0]["generation"] == gen})
        measured, *others = GROUPED_MM_DEVICES[gen]
        for name in (measured, *others):
            how = ("fitted by scripts/validate.py (make validate) on validation/kernels/grouped_mm.csv: "
                   "torch._grouped_mm's bf16 time against this generation's best dense GEMM at each group's "
                   "shape, %d kernel timings on %s, mean |error| %.1f %%" % (n, " and ".join(gpus), 100 * mean))
            if name != measured:
                how = "the %s's value (%s)" % (measured, how)
            stale += device_line_write(root, name, "  grouped_mm:", "  grouped_mm: %.2f          # %s\n" % (f, how),
                                       write)
    return stale


def device_line_write(root, name, prefix, want, write):
    """A device template's line that starts with prefix made want (set_line)."""
    return template_line_write(root, "devices", name, prefix, want, write)


def template_line_write(root, kind, name, prefix, want, write):
    """The line of templates/KIND/NAME.yaml that starts with prefix made want (set_line)."""
    path = os.path.join(root, "templates", kind, name + ".yaml")
    with open(path) as fh:
        lines = fh.readlines()
    i = next((j for j, ln in enumerate(lines) if ln.startswith(prefix)), None)
    if i is None:
        raise SystemExit("validate: %s has no %s line to write" % (path, prefix.strip().rstrip(":")))
    return set_line(path, lines, i, want, write)


SCATTER = os.path.join("validation", "kernels", "scatter_add.csv")
# the device templates that take the fitted scatter_add (bytes a clock per SM), the measured one first: PyTorch's
# accumulating scatters are bound by their own per-row work, not by HBM, so the others take its rate per SM and
# clock (an assumption); h200-sxm-141gb and a100-sxm4-40gb take their base templates' (h100, a100 80 GB)
SCATTER_DEVICES = ("b200", "b300", "h100-sxm5-80gb", "a100-sxm4-80gb")
SCATTER_TOPK, SCATTER_SEQ = 6, 4096  # the mixture of experts the rows' tensor comes from (DeepSeek-V3 16B's top-6)


def scatter_ops(deepflow, root, r, extra):
    """{op: device s} of the token re-sort (moe.sort) and its gradient (moe.sort.bwd) of one mixture-of-experts
    layer whose gathered tensor is the row's (rows = tokens x top-k, cols = hidden), on the row's GPU under the
    torchtitan stack (pytorch-fsdp: PyTorch's indexing, padded), with eval arguments extra."""
    rows, cols = int(r["rows"]), int(r["cols"])
    if rows % (SCATTER_TOPK * SCATTER_SEQ) or cols % 128 or int(r["dtype_bytes"]) != 2:
        raise SystemExit("validate: %s: row %s is not a 16-bit gather of tokens x %d over %d-token sequences"
                         % (SCATTER, r["id"], SCATTER_TOPK, SCATTER_SEQ))
    mb = rows // (SCATTER_TOPK * SCATTER_SEQ)
    args = ["system=" + SYSTEMS[(r["gpu"], "")], "system.framework=pytorch-fsdp", "model=mixtral-8x7b",
            "model.layers=1", "model.seq_len=%d" % SCATTER_SEQ, "model.hidden=%d" % cols,
            "model.heads=%d" % (cols // 128), "model.kv_heads=%d" % (cols // 128), "model.experts=64",
            "model.experts_per_token=%d" % SCATTER_TOPK, "model.expert_ffn=1408", "model.expert_imbalance=1",
            "devices=8", "tp=1", "pp=1", "ep=8", "microbatch=%d" % mb, "global_batch=%d" % (8 * mb),
            "recompute=none", "precision=bf16", "system.framework.moe_permute=index",
            "system.framework.moe_sort=index_padded"] + extra
    ops = eval_ops(deepflow, root, args, "scatter row %s" % r["id"])
    got = {o["op"]: float(o["device_s"]) for o in ops if o["op"] in ("moe.sort", "moe.sort.bwd")}
    if len(got) != 2:
        raise SystemExit("validate: no moe.sort and moe.sort.bwd in the op table of %s" % r["id"])
    return got


def evaluate_scatter(deepflow, root):
    """(fitted bytes a clock per SM, [(row, predicted s at the templates' value, measured s)]): the backward row's
    accumulating scatter costed at 1 B a clock per SM, whose time goes as 1 / the rate (the rows' GPU's scatter
    bound is far slower than its memory-bound rate there), gives the rate that reproduces it; every row is then
    costed as the templates say."""
    with open(os.path.join(root, SCATTER), newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    bwd = [r for r in rows if r["pass"] == "bwd"]
    if len(bwd) != 1:
        raise SystemExit("validate: %s holds %d backward rows, expected one" % (SCATTER, len(bwd)))
    t1 = scatter_ops(deepflow, root, bwd[0], ["system.device.scatter_add=1"])["moe.sort.bwd"]
    fit = t1 / (float(bwd[0]["measured_us"]) * 1e-6)
    res = []
    for r in rows:
        got = scatter_ops(deepflow, root, r, [])
        res.append((r, got["moe.sort.bwd" if r["pass"] == "bwd" else "moe.sort"], float(r["measured_us"]) * 1e-6))
    return fit, res


def scatter_lines(fit, res):
    lines = ["  %-24s %-4s %-3s %6s x %-5s predicted %7.1f  measured %7.1f  %+6.1f %%"
             % (r["id"], r["gpu"], r["pass"], r["rows"], r["cols"], 1e6 * p, 1e6 * m, 100 * (p / m - 1))
             for r, p, m in res]
    lines.append("  scatter_add fitted at %.2f bytes a clock per SM on the backward (the B200's; every other GPU "
                 "takes it per SM and clock)" % fit)
    return lines


def scatter_write(root, fit, res, write):
    """The fitted scatter_add into the device templates' `scatter_add:` line (write), or the names of those that
    differ."""
    stale = []
    r, _, m = next(x for x in res if x[0]["pass"] == "bwd")
    measured, *others = SCATTER_DEVICES
    for name in (measured, *others):
        how = ("fitted by scripts/validate.py (make validate) on validation/kernels/scatter_add.csv: the "
               "backward of a mixture of experts' padded token gather (index_put_ with accumulate), %s x %s bf16 "
               "rows in %.0f us on %s (pytorch/ao PR 4623)" % (r["rows"], r["cols"], 1e6 * m, r["gpu"].upper()))
        if name != measured:
            how = ("assumption: the %s's rate per SM and clock (PyTorch's accumulating scatters are bound by "
                   "their per-row work, not by HBM; %s)" % (measured.upper(), how))
        stale += device_line_write(root, name, "scatter_add:", "scatter_add: %.2f          # %s\n" % (fit, how),
                                   write)
    return stale


# model.expert_imbalance candidates for the forced-balance / dropless pairs (evaluate_imbalance), and the model
# templates that take the fitted value: a routed mixture of experts that does not force balance (the validation's
# mixture-of-experts rows are built on the first)
IMBALANCE_GRID = [round(1.0 + 0.05 * i, 2) for i in range(21)]
IMBALANCE_MODELS = ("mixtral-8x7b", "deepseek-v3")
IMBALANCE_ASSUMED = 1.1  # the templates' value before it was fitted (an assumption), shown beside the fit


def print_block(title, lines):
    """A measurement's block of the report: a blank line, its title, its lines."""
    print("\n" + title)
    for line in lines:
        print(line)


def imbalance_pairs(root):
    """[(forced row, dropless row)]: the published runs measured twice on one layout, once with the router forced
    to balance its experts (id ..._forcebal, model.expert_imbalance=1 in its overrides) and once routing freely
    (..._dropless): their ratio is the routing imbalance's cost.  Read from the table, not from the evaluated
    runs: a pair's runs measured faster than the ideal stack are left out of the means, but their ratio holds."""
    mrows, _ = moe_rows(root, os.path.join(root, "validation", "published", "moe_runs.csv"))
    by_id = {sc["scenario"]: sc for sc in mrows}
    pairs = []
    for rid, sc in sorted(by_id.items()):
        if rid.endswith("_forcebal") and rid[:-len("_forcebal")] + "_dropless" in by_id:
            pairs.append((sc, by_id[rid[:-len("_forcebal")] + "_dropless"]))
    return sorted(pairs, key=lambda fd: (fd[0]["series"], int(fd[0]["model.seq_len"])))


def evaluate_imbalance(deepflow, root, out):
    """(fitted imbalance, [(forced id, source, measured ratio, {imbalance: predicted ratio})]): each pair's dropless run
    at every imbalance of the grid against its forced run; the ratio is dropless time / forced time."""
    pairs = imbalance_pairs(root)
    if not pairs:
        raise SystemExit("validate: no forced-balance / dropless pairs in validation/published/moe_runs.csv")
    cols = GCOLS + [c for c in MCOLS if c not in GCOLS] + OVERRIDE_KEYS
    scs, names = [], {}
    for i, (f, d) in enumerate(pairs):
        if f["_row"]["metric"] != d["_row"]["metric"] or f["global_batch"] != d["global_batch"]:
            raise SystemExit("validate: pair %s differs in its metric or batch" % f["scenario"])
        scs.append(dict(f, scenario="f%d" % i))
        for imb in IMBALANCE_GRID:
            name = "d%d-%g" % (i, imb)
            scs.append(dict(d, scenario=name, **{"model.expert_imbalance": "%g" % imb}))
            names[name] = (i, imb)
    pred = run_rows(deepflow, out, "imbalance", "forced-balance and dropless pairs", cols, scs)
    res = []
    for i, (f, d) in enumerate(pairs):
        pf = pred.get("f%d" % i)
        if not pf or not pf["step_time_s"]:
            raise SystemExit("validate: pair %s: the forced run evaluates to nothing" % f["scenario"])
        vf, vd = float(f["_row"]["value"]), float(d["_row"]["value"])
        meas = vd / vf if f["_row"]["metric"] == "step_time_s" else vf / vd
        ratios = {}
        for name, (j, imb) in names.items():
            p = pred.get(name)
            if j == i and p and p["step_time_s"]:
                ratios[imb] = float(p["step_time_s"]) / float(pf["step_time_s"])
        res.append((f["scenario"], f["series"], meas, ratios))

    def cost(imb):
        e = [abs(math.log(r[imb] / m)) for _, _, m, r in res if imb in r]
        return sum(e) / len(e) if len(e) == len(res) else float("inf")
    return min(IMBALANCE_GRID, key=cost), res


def imbalance_lines(fit, res):
    lines = ["  %-46s measured %.3f  predicted %.3f at %g, %.3f at %g  %+6.1f %%"
             % (rid, m, r[fit], fit, r.get(IMBALANCE_ASSUMED, float("nan")), IMBALANCE_ASSUMED,
                100 * (r[fit] / m - 1)) for rid, _, m, r in res]
    lines.append("  expert_imbalance fitted at %g (the grid %g-%g by 0.05; mean |log error| of the ratios)"
                 % (fit, IMBALANCE_GRID[0], IMBALANCE_GRID[-1]))
    return lines


def imbalance_write(root, fit, res, write):
    """The fitted imbalance into the model templates' `expert_imbalance:` line (write), or those that differ."""
    stale = []
    how = ("fitted by scripts/validate.py (make validate) on the %d forced-balance / dropless pairs of "
           "validation/published/moe_runs.csv (%s: a layout measured with the router forced to balance and "
           "routing freely, dropless over forced %s): the busiest expert-parallel rank's load that reproduces "
           "their time ratios"
           % (len(res), ", ".join(sorted({src for _, src, _, _ in res})),
              " / ".join("%.3f" % m for _, _, m, _ in res)))
    for name in IMBALANCE_MODELS:
        stale += template_line_write(root, "models", name, "expert_imbalance:",
                                     "expert_imbalance: %-8g # %s\n" % (fit, how), write)
    return stale


def si_quantity(text):
    """A figure as the templates command shows it ("4 us", "2.25 PFLOP/s", "0.78") in SI units."""
    f = text.split()
    unit = f[1] if len(f) > 1 else ""
    base = next(u for u in ("FLOP/s", "B/s", "s", "B", "") if unit.endswith(u))
    return float(f[0]) * SI[unit[:len(unit) - len(base)] if base else unit]


CONV_V100 = os.path.join("validation", "kernels", "conv_v100.csv")
CONV_LAYOUT = {"fp16": "nhwc", "fp32": "nchw"}  # DeepBench's conv_bench.cu: fp16 on tensor cores in NHWC


def evaluate_conv_v100(deepflow, root, out):
    """([(precision, filter, stride, predicted s, measured s)], rows not expressed) for
    validation/kernels/conv_v100.csv (DeepBench): each layer as a one-convolution net on the V100 template in
    DeepBench's layout, its training step less the optimizer (the forward pass and the weight gradient: a first
    layer has no input gradient; CONV_CALLS calls) without the device's conv_call_overhead, against DeepBench's
    forward and parameter-gradient times. deepflow's images are square: a layer of another shape is not
    expressed."""
    with open(os.path.join(root, CONV_V100), newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    cols = ["scenario", "system", "system.framework", "model", "devices", "tp", "pp", "dp", "microbatch",
            "global_batch", "precision", "recompute", "zero", "system.framework.conv_layout",
            "system.device.conv_call_overhead"]
    table, kept, skipped = [], [], 0
    for i, r in enumerate(rows):
        if r["w"] != r["h"] or r["pad_w"] != r["pad_h"] or r["stride_w"] != r["stride_h"]:
            skipped += 1
            continue
        name = "conv-v100-%d" % i
        with open(os.path.join(out, name + ".yaml"), "w") as f:
            f.write("name: DeepBench %s layer %d\nkind: cnn\noptimizer: sgd_momentum\nimage_size: %s\n"
                    "channels: %s\nclasses: 10\ndataset_samples: 1000\nconvergence: imagenet-mlperf\nnet:\n"
                    "  - conv: {out: %s, kernel: [%s, %s], stride: %s, pad: %s}\n"
                    % (r["application"], i, r["w"], r["c"], r["k"], r["r"], r["s"], r["stride_w"], r["pad_w"]))
        table.append({"scenario": name, "system": "dgx-v100", "system.framework": KERNEL_STACK,
                      "model": name + ".yaml", "devices": 1, "tp": 1, "pp": 1,
                      "dp": 1, "microbatch": r["n"], "global_batch": r["n"], "precision": r["precision"],
                      "recompute": "none", "zero": 0, "system.framework.conv_layout": CONV_LAYOUT[r["precision"]],
                      "system.device.conv_call_overhead": "0 us"})
        kept.append(r)
    pred = run_rows(deepflow, out, "conv-v100", "DeepBench's V100 convolutions", cols, table)
    opt = component_times(out, "conv-v100", "optimizer")
    res = []
    for sc, r in zip(table, kept):
        d = pred[sc["scenario"]]
        if d["status"] != "ok":
            raise SystemExit("validate: DeepBench convolution %s: %s" % (sc["scenario"], d["error"]))
        kernel = "%sx%s" % (r["r"], r["s"])
        res.append((r["precision"], kernel if kernel in ("1x1", "3x3") else "other", int(r["stride_w"]),
                    float(d["step_time_s"]) - opt.get(sc["scenario"], 0.0),
                    (float(r["forward_ms"]) + float(r["backward_params_ms"])) / 1e3))
    return res, skipped


CONV_CALLS = 2  # a one-convolution net's calls: the forward pass and the weight gradient
CONV_CALL_GRID = range(0, 51)  # conv_call_overhead candidates, whole microseconds


def conv_call_fit(cv):
    """The per-call overhead over every layer of both precisions (overhead_fit)."""
    return overhead_fit([(p, m, CONV_CALLS) for _, _, _, p, m in cv[0]], CONV_CALL_GRID)


def conv_v100_lines(cv, c):
    """The DeepBench convolution table as make validate prints it, with a per-call overhead c: per precision
    and filter shape."""
    res, skipped = cv
    res = [(pr, k, st, p + CONV_CALLS * c, m) for pr, k, st, p, m in res]
    lines = []
    for prec in ("fp16", "fp32"):
        for kern in ("1x1", "3x3", "other"):
            for stride in (1, 2):
                e = [p / m - 1 for pr, k, st, p, m in res if pr == prec and k == kern and (st == 1) == (stride == 1)]
                if e:
                    lines.append("  %-5s %-5s %-9s %2d layers  mean |error| %5.1f %%  signed %+6.1f %%  range %+.0f .. "
                                 "%+.0f %%" % ((prec, kern, "stride 1" if stride == 1 else "stride 2+", len(e)) +
                                               err_stats(e)))
        e = [p / m - 1 for pr, _, _, p, m in res if pr == prec]
        e0 = [p / m - 1 for pr, _, _, p, m in cv[0] if pr == prec]
        lines.append("  %-5s all %27d layers  mean |error| %5.1f %%  signed %+6.1f %%  (without it %.1f %%, %+.1f %%)"
                     % ((prec, len(e)) + err_stats(e)[:2] + err_stats(e0)[:2]))
    lines.append("  %d layers of other than square images not expressed (deepflow's images are square)" % skipped)
    return lines


LSTM_V100 = os.path.join("validation", "kernels", "lstm_v100.csv")
RNN_STEP_GRID = range(0, 101)  # rnn_step_overhead candidates, whole microseconds


def device_figures(name, keys):
    """A device template's figures (SI units), as `deepflow templates devices NAME` shows them."""
    out = subprocess.run([DEEPFLOW[0], "templates", "devices", name], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, check=True).stdout
    got = {}
    for ln in out.splitlines():
        f = ln.split()
        if f and f[0] in keys:
            got[f[0]] = si_quantity(" ".join(f[1:3]))
    return got


def evaluate_lstm_v100(deepflow, root):
    """[(precision, hidden, batch, direction, model s, measured s)] per recurrent step of
    validation/kernels/lstm_v100.csv (DeepBench, cuDNN's standard algorithm, no input GEMM): the forward step
    and the backward-data step of one layer as deepflow's LSTM graph (graph/lstm.c) runs them, without the
    device's rnn_step_overhead: the recurrent GEMM (kernel_gemm_s) and the cell kernel, whose time
    is perf/kernel.c's membound_time (11 e bytes a cell forward, 13 backward, at the HBM rate, plus a launch;
    its vector work is far below it)."""
    dev = device_figures("v100-sxm2-32gb", ("hbm.bandwidth", "efficiency.hbm", "launch_overhead"))
    hbm = dev["hbm.bandwidth"] * dev["efficiency.hbm"]
    with open(os.path.join(root, LSTM_V100), newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    out = []
    for r in rows:
        prec, h, b, t = r["precision"], int(r["hidden"]), int(r["batch"]), int(r["timesteps"])
        e = 2.0 if prec == "fp16" else 4.0
        cell = lambda nbytes: b * h * nbytes * e / hbm + dev["launch_overhead"]  # noqa: E731
        out.append((prec, h, b, "forward", kernel_gemm_s(deepflow, root, prec, b, 4 * h, h) + cell(11.0),
                    float(r["forward_ms"]) / t / 1e3))
        out.append((prec, h, b, "backward", kernel_gemm_s(deepflow, root, prec, b, h, 4 * h) + cell(13.0),
                    float(r["backward_data_ms"]) / t / 1e3))
    return out


def rnn_step_fit(steps):
    """The per-step overhead over every step of both precisions and directions (overhead_fit)."""
    return overhead_fit([(p, m, 1) for _, _, _, _, p, m in steps], RNN_STEP_GRID)


def rnn_step_lines(steps, c):
    lines = []
    for prec in ("fp16", "fp32"):
        for d in ("forward", "backward"):
            e0 = [p / m - 1 for pr, _, _, dd, p, m in steps if pr == prec and dd == d]
            e1 = [(p + c) / m - 1 for pr, _, _, dd, p, m in steps if pr == prec and dd == d]
            mean, signed, lo, hi = err_stats(e1)
            lines.append("  %-5s %-8s %2d shapes  mean |error| %5.1f %% (%5.1f %% without it)  signed %+6.1f %%  "
                         "range %+.0f .. %+.0f %%" % (prec, d, len(e1), mean, err_stats(e0)[0], signed, lo, hi))
    return lines


def rnn_step_text(c, steps, mean):
    return ("rnn_step_overhead: %d us   # fitted by scripts/validate.py (make validate) on DeepBench's V100 LSTM table "
            "(validation/kernels/lstm_v100.csv, cuDNN's standard algorithm): the time a recurrent step of one layer "
            "takes beyond its GEMM and cell kernel, one value over %d steps (fp16 and fp32, forward and "
            "backward-data): mean |error| %.1f %%\n" % (round(c * 1e6), len(steps), 100 * mean))


def conv_call_text(c, cv, mean):
    return ("conv_call_overhead: %d us  # fitted by scripts/validate.py (make validate) on DeepBench's V100 "
            "convolutions (validation/kernels/conv_v100.csv): the time a convolution call takes beyond its GEMM, "
            "one value over %d layers (fp16 NHWC and fp32 NCHW, batch 8 and 16): mean |error| %.1f %%\n"
            % (round(c * 1e6), len(cv[0]), 100 * mean))


# device templates that take the V100's fitted kernel values as a stated assumption ("the V100's value")
ASSUMING_DEVICES = ("a100-sxm4-80gb", "h100-sxm5-80gb", "b200")


def set_line(path, lines, i, want, write):
    """Line i of a template's lines made want: written (write), or [its file name] where it differs."""
    if lines[i] == want:
        return []
    if not write:
        return [os.path.basename(path)]
    lines[i] = want
    with open(path, "w") as f:
        f.writelines(lines)
    print("wrote %s's %s" % (path, want.split(":", 1)[0].strip()))
    return []


def value_line(line, key, value):
    """A template line `key: old  # comment` with value in place of old, the comment where it was."""
    old_value, comment = line.split(":", 1)[1].split("#", 1)
    return "%s: %s%s#%s" % (key, value, " " * max(1, len(old_value) - len(value) - 1), comment)


def device_fit_line(root, text, write):
    """Write a fitted line (`key: value  # how`) into the V100 template, and its value into the templates that
    assume the V100's (write), or say which of them differ."""
    key, rest = text.split(":", 1)
    value = rest.split("#", 1)[0].strip()
    stale = []
    for name in ("v100-sxm2-32gb",) + ASSUMING_DEVICES:
        path = os.path.join(root, "templates", "devices", name + ".yaml")
        with open(path) as f:
            lines = f.readlines()
        i = key_line(lines, key)
        if i is None:
            raise SystemExit("validate: %s has no %s line to write" % (path, key))
        if name != "v100-sxm2-32gb" and "the V100's value" not in lines[i]:
            raise SystemExit("validate: %s's %s does not say it takes the V100's value" % (path, key))
        stale += set_line(path, lines, i, text if name == "v100-sxm2-32gb" else value_line(lines[i], key, value),
                          write)
    return stale


SMALL_ROWS = []  # the gated V100 CNN rows (evaluate_small_batch), which give their stack its range


# The stacks of one era whose measured CNN and LSTM rows make one range: each of the V100's 2019 stacks has
# one source a class, too few to leave one out.  stack -> the stack that names the pool.
POOLS = {"pytorch-2019": "tensorflow-1x"}


def pool_of(stack):
    return POOLS.get(stack, stack)


def pooled_rows(rows, stack):
    """The rows of a stack's pool (POOLS)."""
    return [r for r in rows if pool_of(r["stack"]) == pool_of(stack)]


def small_batch_interval(stack):
    """A stack's single-node range from the gated V100 CNN rows of its pool (class_interval); None when none
    ran on it."""
    return class_interval(pooled_rows(SMALL_ROWS, stack))


def small_batch_lines(sb):
    """The V100 CNN table as printed by make validate, and its gated rows' mean |error|."""
    lines = []
    for rid, src, stack, pred, meas, gated in sb:
        lines.append("  %-28s %-20s predicted %8.1f  measured %8.1f  %+6.1f %%%s" % (
            rid, stack, pred, meas, 100 * (pred / meas - 1), "" if gated else "  (not gated)"))
    errs = [abs(p / m - 1) for _, _, _, p, m, g in sb if g]
    mean = sum(errs) / len(errs)
    lines.append("  mean |error| %.1f %% over the %d gated runs (gate %.0f %%)" % (100 * mean, len(errs),
                                                                                 100 * SMALL_BATCH_GATE))
    return lines, mean


def perseus_lines(ps):
    """The Perseus checks as printed by make validate."""
    return ["  %-16s saves %5.1f %%  Perseus %5.1f %%  %+5.1f points  %s" % (
        rid, pred, pub, pred - pub, "gate %.0f points" % gate if gate is not None else "not gated")
        for rid, pred, pub, gate, note in ps]


def footprint_lines(fp):
    """The footprint checks as printed by make validate and the README's energy section."""
    lines = []
    for rid, kind, pred, pub, gate, note in fp:
        lines.append("  %-22s %-11s predicted %10.4g  published %10.4g  %+6.1f %%  %s" % (
            rid, kind, pred, pub, 100 * (pred / pub - 1),
            "gate %.0f %%" % (100 * gate) if gate is not None else "not gated"))
    return lines


def measured_ratio(sc, pred):
    """predicted / measured step time of one published run, the published
    figure converted with the source's own FLOP counting."""
    r = sc["_row"]
    t = float(pred["step_time_s"])
    v = float(r["value"])
    gpus = float(r["gpus"])
    B, s, l, h = float(sc["global_batch"]), float(r["seq_len"]), float(r["layers"]), float(r["hidden"])
    V = float(sc["model.vocab"])
    if r["metric"] == "step_time_s":
        return t / v
    if r["metric"] == "tokens_per_s_per_gpu":
        return t / (B * s / (gpus * v))
    if r["metric"] == "mfu":
        v = v * template_peak(sc["system"]) / 1e12
        counting = "model"
    else:
        counting = r["flops_counting"]
    if counting == "hardware":  # Narayanan et al. 2021 eq. 3: 96 B s l h^2 (1 + s/6h + V/16lh)
        flops = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
        return t / (flops / (gpus * v * 1e12))
    # model FLOPs: ours against theirs (both count forward + backward, no recompute)
    return float(pred["model_tflops_per_device"]) and v / float(pred["model_tflops_per_device"])


def stats(errs):
    a = [abs(e) for e in errs]
    return (sum(a) / len(a), max(a)) if a else (float("nan"), float("nan"))


# ---- the fit and its out-of-sample test ---------------------------------------
#
# A source is one publication or one performance page (two tables of one
# paper are one source): vTrain's multi- and single-node sets are one, each
# published row counts in its `source_key`.  A family is a set of training
# stacks that share fitted parameters (a stack template with `base:` takes
# its base's); each family's parameters are fitted on its own sources only.
#
# Every validation row is evaluated once on a grid of the fitted parameters
# (one `deepflow run` a family, the grid as sweep columns); the fit and each
# leave-one-source-out refit are then searches over those predictions.  The
# objective is the mean over sources of each source's mean |error| (every
# source weighs the same, however many runs it has), plus a tie-break of
# 0.1 % per grid range towards the grid's centre where the data leave a
# parameter flat.  A source that is the only one of its family is predicted
# by the fit of every other source of every family: what the tool would
# say of a stack it has no data on.

# PyTorch eager and torch.compile run the same cuBLAS GEMMs and dispatch
# from the same Python: one family, whose two stacks differ in the fused or
# unfused element-wise kernels the model charges (fitted apart, eager's GEMMs
# came out faster than compiled ones, 0.75 against 0.62).
FAMILIES = {  # family -> the stacks that share its fitted parameters (the first holds them)
    "megatron-lm": ("megatron-lm", "megatron-deepspeed", "megatron-lm-2023"),
    "megatron-core": ("megatron-core",),
    "pytorch-fsdp": ("pytorch-fsdp", "pytorch-fsdp-eager"),
}
GRID = {  # the fitted parameters, their grid, and how a value is written in a table and a template
    "gemm_efficiency": [round(0.50 + 0.01 * i, 2) for i in range(46)],
    "op_overhead": [15e-6 + 20e-6 * i for i in range(6)],
}
PARAMS = ("gemm_efficiency", "op_overhead")
TIE = 0.001


def pstr(name, v):
    return "%.2f" % v if name == "gemm_efficiency" else "%d us" % round(v * 1e6)


def family_of(stack):
    for fam, stacks in FAMILIES.items():
        if stack in stacks:
            return fam
    return None


MIN_RUNS = 10     # runs behind a prediction interval
MIN_SOURCES = 2   # sources behind a prediction interval

# Gates on the leave-one-source-out mean |error| of each source (issue 24:
# 12 %, and 9 % for all sources together).  A source that misses 12 % is
# gated at its achieved figure, rounded up, against regressions, and is
# listed in the README as a miss.
LOSO_TARGET, ALL_TARGET = 0.12, 0.09
THRESHOLDS = {"smith2022": 0.21,
              # (KempnerForge's report, 13.0 % and gated at 13 % until the hidden collectives' kernels took
              # their SMs from the compute beside them (comm_sms), December 2026: 11.4 %.)
              # (NeMo's 25.02 page went from 11.8 to 12.1 % with that change (Megatron-Core's fit 0.75 -> 0.77)
              # and was gated at 13 % until Megatron-Bridge's GB300 and B300 rows joined the fit (0.76 ->
              # 0.75), December 2026: 11.6 %.)
              # Megatron-Bridge 26.04's page went from 11.8 to 12.0 % when current scaling's second read
              # (fp8_scaling, December 2026) reached its FP8-CS runs: its H100 Llama 3 70B run, 9.0 %
              # pessimistic before, 10.6 % after; most of its error is its GPT-OSS 120B runs (17-38 %
              # optimistic)
              "megatron_bridge_perf_2604": 0.14,
              # The 26.02, 26.02.01 and 26.04 pages' DGX-GB300 and DGX-B300 rows joined them (December 2026):
              # 11.3 -> 12.6, 10.5 -> 13.1 and 12.2 -> 13.1 %.  Their B300 GPT-OSS 120B runs are 34-38 %
              # optimistic (as the B200 ones), the 26.02 and 26.02.01 B300 Qwen3-235B runs 38-39 % (slower than
              # 26.02's B200 run of the same model: 2,691 and 2,644 against 3,805 tokens/s a GPU), and the GB300
              # Llama FP8 runs 14-23 % pessimistic (GB300 measured 1.2-1.3x GB200 at the same layout, the model
              # 1.08x on their equal fp8 peaks)
              "megatron_bridge_perf_2602": 0.13,
              "megatron_bridge_perf_260201": 0.14,
              # (Megatron-Bridge 26.04's page, 38 % optimistic on its GB200 GPT-OSS 120B run, was
              # gated at 13 % until the interleaved pipelines' stage sends overlapped their chunks
              # as Megatron-Core's recipes run them (pp_overlap), December 2026: 11.8 %.  26.02's
              # page, 41 % optimistic on its H100 Qwen3-30B run with the expert all-to-all
              # overlapped, and NeMo's 25.02 page, 13-23 % on its two smallest B200 runs, were
              # gated at 13 and 14 % until their other runs joined, December 2026: 11.9 and 10.6 %.)
              # held out of every fit (HELD_OUT): the PyTorch-native mixture-of-experts runs,
              # 12-35 % optimistic, gated at their own figure until the model explains them;
              # the 16B run went from 34.6 to 35.2 % when llm-foundry's 203 runs joined the
              # family's fit (gemm_efficiency 0.62 -> 0.63)
              # (35.2 and 23.0 % until pytorch-fsdp's fit went from 0.63 to 0.68 with comm_sms, December 2026)
              # (with torch._grouped_mm at its measured rate, December 2026: 36.7 -> 34.2 %; gated at 35 %)
              # (with torchtitan's fp32 weighting of the routed outputs, eager, moe_score_apart: 34.2 -> 27.9 %)
              # (with the token path's PyTorch indexing, its gathers' backwards and the combine accumulating
              # scatters at the scatter_add rate measured on B200, December 2026: 27.8 -> 22.8 %; gated at 23 %)
              "torchtitan_pr1610_202508": 0.23,
              # the 671B runs trained with --debug.moe_force_load_balance: since their rows say so
              # (model.expert_imbalance=1, not the template's 1.1) they are 13-33 % and 20-26 % optimistic
              # (Nebius's recipe 23.0 -> 21.7 % with comm_sms: its ratchet tightens)
              # Their forced balance is torchtitan's round-robin gate (a token's 8 experts consecutive,
              # so on one rank of 32), which DeepEP sends once: with the routing's groups in the model
              # (December 2026) their DeepEP runs lost most of their dispatch and went 14.6 -> 28.5 %
              # and 24.8 -> 43.2 % optimistic; with FSDP's weights gathered once a step under their
              # pipelines (reshard_after_forward auto, torchtitan's default) 28.5 -> 33.7 % and 33.7 ->
              # 36.8 % (the all-to-all), 43.2 -> 50.8 % and 18.5 -> 24.3 %.  pr2107's two back ends miss
              # alike, a cost that is neither the exchange nor FSDP's.  Gated at the new figures, 25 and
              # 22 % until then.
              # With torch._grouped_mm at its measured rate and FlexAttention at Blackwell's (December 2026):
              # 28.2 -> 25.9 % and 37.1 -> 22.9 %; gated at 27 and 24 %.  With the routed outputs weighted
              # apart (moe_score_apart): 25.0 and 22.3 %, gated at 26 and 23 %.  With the token path's
              # accumulating scatters (moe_permute, moe_sort, moe_combine; December 2026): 22.7 and 19.4 %;
              # with FlexAttention's heads at a power of two (192 -> 256): 21.7 and 17.7 %, gated at 22 and 18 %.
              "torchtitan_pr2107_202512": 0.22, "pytorch_nebius_dsv3_b200_202603": 0.18,
              # (NeMo AutoModel's page, October 2025, a fake balanced gate that is round-robin as
              # torchtitan's, was gated at 26 and then 21.5 %: 20-23 % pessimistic on the two runs the
              # model could reach, three faster than the ideal stack.  With the routing's groups,
              # December 2026, all five are modelled at 10.4 %, 11.5 % once its pipelines keep FSDP's weights
              # gathered and its rows say it trains in bf16: it takes the common gate.)
              # Its page's dense Llama 3.1 70B run (64 H100, context parallel 2, April 2026) joined it
              # December 2026, predicted before any change: 15.3 % pessimistic, as its 8-GPU mixtures
              # are (17-18 %): 11.5 -> 12.1 % over its six runs, gated at 13 %.  12.5 -> 13.1 % when the
              # device started each segment after a host sync from an empty queue (a flow shop, December
              # 2026): its 8-GPU mixtures, dispatched by Megatron-Core's dropless alltoall, 18-20 -> 20-21 %
              # pessimistic; gated at 14 % until its rows said which of its element-wise kernels are fused
              # (Transformer Engine's RMSNorm, Megatron-Core's SwiGLU; its own rotary code and GPT-OSS's
              # activation eager: eager_rotary, eager_activation), December 2026: 10.6 %, the common gate.)
              # held out of every fit: GLM-130B's speed test (768 A100 40 GB, DeepSpeed's pipeline engine),
              # 15-18 % optimistic as MT-NLG is (December 2026)
              "glm130b_2022": 0.17,
              # (MLPerf Training v6.0, May 2026, held out of every fit: its DeepSeek-V3 671B, GPT-OSS 20B and
              # Llama 3.1 rows joined December 2026, predicted before any change at 12.7 % over its 39 runs
              # on H100-GB300, 11.6 % over 48 with its 9 HGX B300 runs (dgx-b300): the dense Llama runs
              # within 3.5 % but for two, the HGX B300 runs 6.8 %, the mixtures of experts 7-49 % off both ways; it
              # takes the common gate.)
              # held out of every fit: MLPerf Training's first GPT-3 round (v3.0, June 2023), 14-17 %
              # optimistic where the same benchmark on the same H100s in the rounds after it is within
              # 10 % (NVIDIA's software, not the hardware, moved: 12.1 s a step on 512 GPUs in v3.0,
              # 11.1 in v3.1, 9.5 in v4.1).  (v5.1, whose Llama 3.1 8B runs of one microbatch a step on
              # 32-512 GPUs are 13-42 % optimistic, was gated at its 14.4 % until comm_sms, the untied
              # Llama embedding and its 405B runs' own TP_COMM_OVERLAP=False brought it to 11.1 %.)
              # v3.0: 14.5 %, gated at 16 % until Megatron-Bridge's GB300 and B300 rows joined the fit
              # (December 2026): 13.6 %.
              "mlperf_training_v30": 0.14,
              # held out of every fit, collected December 2026 (SOURCES.md) and predicted before any change:
              # Nemotron-4 15B's production run (768-2,304 H100, TP 8, its microbatch and recompute not
              # stated: auto takes the fastest, 4 sequences; at 1 or 2 the model gives 0.72 or 0.49 s a step
              # against the measured 0.57) 22-28 % optimistic, as production runs at scale are (MT-NLG,
              # MegaScale); Megatron-LM's DeepSeek-V3 note on 256 GB200, its baseline (all-to-all, no CUDA
              # graphs, the host work the note names as its bottleneck) 32 % and its final run 10 %
              # optimistic; torchtitan's compiled graph_trainer on DeepSeek-V3 16B 41 %, as its eager
              # trainer's run is (tt1610).  Gated at their figures until the model explains them.
              "nemotron4_15b_2024": 0.25, "megatron_lm_dsv3_gb200_doc": 0.22,
              # (torch._grouped_mm at its measured rate, December 2026: 41.4 -> 39.5 %; gated at 40 %;
              # the routed outputs weighted apart: 38.2 %, gated at 39 %; its token path's accumulating
              # scatters, December 2026: 33.9 %, gated at 34 %)
              "torchtitan_pr3592_202606": 0.34,
              # held out of every fit: a torchtitan tuning log on 8 B200 (DeepSeek-V3 16B, PR 1993, its MFU
              # figures as tokens a second), predicted before any change: 15-24 % optimistic (20.7 %), every
              # step's gain within 4 % but recompute's (1.32x where 1.19x was measured); with the all-to-alls
              # kept by the save list (recompute_saves_alltoall, torchtitan#1672) recompute's 1.21x, the first
              # step 15.4 -> 22.2 % optimistic, the source 21.8 %; gated at its figure; with the routed
              # outputs weighted apart (moe_score_apart; the eager steps most) 19.2 %, gated at 20 %
              # (until its token path's gathers and combine ran PyTorch's accumulating scatters at the rate
              # pytorch/ao measured on B200, December 2026: 8.6 %, the common gate)
              # held out of every fit: Apertus on Alps (GH200, Slingshot-11; the quad-gh200 system, December
              # 2026), predicted before any change: its 70B production run on 4,096 GPUs 22 % optimistic, its
              # long-context extension runs on 2,048 GPUs 20-23 % up to 16k tokens and 37-49 % at 32k-64k
              # (context parallel 2 and 4): as the other production runs at scale and the long-context runs
              # of the stacks before 2025 (nemo_long_seq_perf, torchtitan's context parallel runs)
              "apertus_2509": 0.28}
# all sources together: the target is ALL_TARGET; gated at the achieved
# figure, rounded up.  The mixture-of-experts runs joined the fit and the
# gate in December 2026 (they had been evaluated, never fitted): their
# sources took all sources from 9.7 % to 11.8 %; the dispatcher's kernels
# and host work as Megatron-Core runs them brought it to 9.9 %; the dense
# runs' sources keep their own gate at 10 %.  The stacks' loss (op by op
# on fp32 logits) and a power cap that holds the GEMMs brought it to 8.7 %
# (December 2026): the gate was the 9 % target.  The 36 Grok-1 runs of the
# DGX Cloud recipes (8 to 2,048 H100s, bf16 and fp8; their own NeMo config,
# read in December 2026) joined their two sources and took all sources from
# 8.92 to 9.08 %: the model is within 1-4 % of their bf16 runs at scale and
# 8-16 % optimistic on every fp8 one from 32 GPUs up; their SequentialMLP
# (grouped_gemm no) brought it to 9.06 %.  Three Megatron-Bridge 25.11 runs
# that their publisher reports as regressions of that release left the fits
# and the means (REGRESSIONS): 8.84 %, the model unchanged.  The gate is the
# target again.  The Megatron-Bridge rows then took their recipes' bf16
# gradients, the 405B rows their pipeline split, the GB200 its 186 GB and
# 25.11's B200 GPT-OSS run its recipe's expert parallelism: 8.80 %.  Activation
# offloading, with the GB200 Llama 3 70B runs that use it: 8.67 %.  The DGX Cloud
# recipes' Llama 3.1 70B and 405B tables on H100 (25.04), unrecorded until then:
# 8.71 %.  The rest of their dense tables (24.11.1 and 25.02's Llama 3.1 70B and
# 405B, GPT-3 175B and Nemotron-4 340B, 25.04's and 25.05's 340B, 25.05's GB200
# runs; 106 runs predicted at 5.1 % before a fit saw them): 8.6 %; the 25.05
# recipes' source, 25-27 % off on Llama 4 Maverick and gated at 13 % until
# then, from 12.2 to 8.9 %.  With NVIDIA's recipes' 16-bit gradients, the GB200
# mixture-of-experts runs of the Megatron-Bridge pages and the large dense runs of
# NeMo's 25.x pages: 8.6 % (Megatron-Core's gemm_efficiency 0.78 -> 0.77).  A full recompute
# that auto resolves recomputes at least one layer (none is its own strategy): 8.7 %.
ALL_GATE = ALL_TARGET
# Sources kept out of every fit, so that their error is out of sample by
# construction and stays so: the PyTorch-native mixture-of-experts runs
# (torchtitan's logs, PyTorch and Nebius's B200 recipe, NeMo AutoModel's
# performance page), collected for issue 24's fine-grained class.  They are in the per-source table, the
# mixture-of-experts range and the coverage; not in the all-sources mean,
# which stays comparable over time.  Each is gated at its own figure (a
# ratchet) until the model explains it: 10-35 % optimistic with their
# FlexAttention at its measured rate (12-35 % at cuDNN's), the all-to-all
# against DeepEP gap 1.67x measured on 512 H100s against 1.28x modelled,
# yet 1.32x against 1.43x on 256 B200s (December 2026).  NeMo AutoModel's
# runs of the same models on the same GPUs go the other way: 25-28 %
# pessimistic, and three of its five faster than the ideal stack.  And the
# large models of 2021-22 on DeepSpeed's pipeline engine that joined in
# December 2026, GLM-130B's speed test and BigScience's layout sweep before
# BLOOM (validation/published/SOURCES.md): 8.8 % and all optimistic before
# any fit saw them; fitted with the A100 family they would pull its GEMM
# efficiency from 0.78 to 0.75 and its other sources' left-out error up (Korthikanti
# et al.'s from 9.8 to 14.5 %), so one family's constant does not hold both
# them and NVIDIA's Megatron-LM runs.
# And MLPerf Training's closed-division LLM pretraining results, rounds v3.0 to v5.1 (June 2023 to November
# 2025; NVIDIA's NeMo/Megatron-Core implementation as NVIDIA and a dozen other submitters ran it: GPT-3 175B on
# 256-11,616 H100 and 64 B200, Llama 3.1 405B on 256-8,192 H100, H200, B200 and GB200, Llama 3.1 8B on 8-512
# GPUs), joined in December 2026 and predicted before any fit at 10.0 %: a yardstick of NVIDIA's own stack kept
# out of every fit, so that it stays out of sample.
# And, December 2026, three more out-of-sample yardsticks: the Nemotron-4 15B report's production run (Megatron-LM,
# 768-2,304 H100), NVIDIA's Megatron MoE model zoo (Qwen3-235B on H100, GB200 and GB300, 4k to 128k tokens: 8.2 %
# over its 11 runs at 4k-32k before any fit saw them) with Megatron-LM's DeepSeek-V3 note on GB200, and torchtitan's
# compiled graph_trainer (PR 3592); and Apertus on CSCS's Alps (GH200 nodes of four on Slingshot-11, 2,048 and
# 4,096 GPUs; the quad-gh200 system template).
# And OLMo-core's README throughput table (Ai2, November 2024: OLMo 1B, 7B and 13B and a Llama 3 8B shape on 8
# H100s, bf16 and torchao float8, FSDP2 + torch.compile, 4k tokens), the small dense class of PyTorch-native
# stacks on Hopper, joined in December 2026 and predicted before any fit at 11.3 % (signed -11.2 %: bf16 1B to 8B
# within 4 %, float8 9-14 % optimistic, 13B 16 % (bf16) and 32 % (float8)).  Fitted with its family it would pull
# pytorch-fsdp's GEMM efficiency from 0.68 to 0.66 and NeMo AutoModel's held-out error from 21.5 to 23.4 %,
# leaving the all-sources means as they are (8.0 / 8.5 %); kept out instead, as a yardstick.
# REGRESSIONS: a run its publisher itself reports as a performance regression of that release (a public issue
# or pull request that says so, quoted in the row's `regression` column) measures a fault of that release,
# not the stack as it is meant to run.  Such a run is evaluated and listed with its error, kept in the ranges
# and the coverage (a user may meet the same release), and kept out of every fit and of every mean and gate.
# December 2026: Megatron-Bridge 25.11's Qwen3-30B runs on H100 and B200 (#1998, "2X slower than 25.09")
# and its Qwen3-235B run on B200 (#1760, "performance regression from 25.09 ... 20.1s to 16.9s").
HELD_OUT = {"torchtitan_pr1610_202508", "torchtitan_pr2107_202512", "pytorch_nebius_dsv3_b200_202603",
            "nemo_automodel_perf_202510", "glm130b_2022", "bloom_tr11_sweep_2022",
            "mlperf_training_v30", "mlperf_training_v31", "mlperf_training_v40", "mlperf_training_v41",
            "mlperf_training_v50", "mlperf_training_v51", "mlperf_training_v60", "olmo_core_readme_202411",
            "nemotron4_15b_2024", "megatron_moe_modelzoo_2605", "megatron_lm_dsv3_gb200_doc",
            "torchtitan_pr3592_202606", "apertus_2509", "torchtitan_pr1993_202511"}


def held_summary(table):
    """The held-out sources of the per-source table: (sources, runs, mean left-out error, mean signed error),
    each source weighing the same; None without any."""
    held = [t for t in table if t[0] in HELD_OUT]
    if not held:
        return None
    return (len(held), sum(t[2] for t in held), sum(t[5] for t in held) / len(held),
            sum(t[8] for t in held) / len(held))


def fitted_sources(rows, fam):
    """A family's sources that its fit is made on (every one but the held-out), without the runs their
    publisher reports as a regression (REGRESSIONS)."""
    return by_source(rows, lambda r: r["family"] == fam and r["source"] not in HELD_OUT and not r["regression"])
DENSE_GATE = 0.10  # the same mean over the dense runs of every source
COVERAGE = (0.85, 0.95)  # target band of the out-of-sample coverage of the 90 % range


GCOLS = PCOLS + ["model.attention"] + [c for c in MCOLS if c not in PCOLS]


def evaluate_grid(deepflow, fam, rows, out):
    """Every row of a family at every grid point: {row id: {point: pred}}."""
    cols = GCOLS + OVERRIDE_KEYS + ["system.framework.gemm_efficiency", "system.framework.op_overhead"]
    sweep = ["|".join(pstr(n, v).replace(" ", "") for v in GRID[n]) for n in PARAMS]
    table = os.path.join(out, "grid-%s.csv" % fam)
    # a long run id goes into the table as a short alias: with its sweep
    # values a scenario name has a length limit
    alias = {}
    with open(table, "w", newline="") as f:
        f.write("# title: validation grid, %s\n" % fam)
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for i, r in enumerate(rows):
            name = r["sc"]["scenario"] if len(r["sc"]["scenario"]) <= 44 else "run-%d" % i
            alias[name] = r["sc"]["scenario"]
            w.writerow([name] + [r["sc"].get(c, "") for c in (GCOLS + OVERRIDE_KEYS)[1:]] + sweep)
    summary = run_csv(deepflow, table, os.path.join(out, "grid-" + fam))
    index = {tuple(pstr(n, v).replace(" ", "") for n, v in zip(PARAMS, pt)): pt for pt in points()}
    preds = {}
    with open(summary, newline="") as f:
        rd = csv.reader(f)
        hdr = next(rd)
        ci = {c: i for i, c in enumerate(hdr)}
        for x in rd:
            name, _, tail = x[ci["scenario"]].partition(" [")
            name = alias.get(name, name)
            vals = tuple(kv.split("=", 1)[1] for kv in tail.rstrip("]").split(","))
            ok = x[ci["status"]] != "error" and x[ci["step_time_s"]]
            preds.setdefault(name, {})[index[vals]] = {
                "status": x[ci["status"]], "error": x[ci["error"]],
                "step_time_s": x[ci["step_time_s"]] if ok else "",
                "model_tflops_per_device": x[ci["model_tflops_per_device"]] if ok else "",
                "mfu": x[ci["mfu"]] if ok else "",
                "tp": x[ci["tp"]], "pp": x[ci["pp"]], "dp": x[ci["dp"]], "microbatch": x[ci["microbatch"]],
                **{k: x[ci[k]] if ok else "" for k in MEMORY_COLS}}
    return preds


# what templates/frameworks/ideal.yaml sets by definition
IDEAL_KEYS = ("system.framework.gemm_efficiency", "system.framework.op_overhead", "system.framework.tp_overlap",
              "system.framework.dp_overlap", "system.framework.comm_sms")


def beyond_ideal(deepflow, rows, out):
    """{run id: why} for the published runs measured faster than deepflow's
    ideal stack predicts them (templates/frameworks/ideal.yaml: every GEMM
    at its device's best measured rate, no host time, every collective
    hidden): a time the stated setup cannot reach on the device the source
    names, so its counting or its setup differs from what the source says.
    Such a run is listed, not fitted; one rule for every run.  The ideal's
    devices are all alike (no speed spread: none waits for a slower one)."""
    scs, by_name = [], {}
    for i, r in enumerate(rows):
        sc = dict(r["sc"], **{"system.framework": "ideal", "system.speed_spread": "0", "scenario": "ideal-%d" % i})
        # what defines the ideal stack stays its own: a row's overlap settings (a run without
        # TP communication overlap says tp_overlap=0) do not apply to it
        for k in IDEAL_KEYS:
            sc.pop(k, None)
        scs.append(sc)
        by_name[sc["scenario"]] = (r, sc)
    beyond = {}
    for name, pred in run_rows(deepflow, out, "ideal", "every published run on the ideal stack",
                               GCOLS + OVERRIDE_KEYS + ["system.speed_spread"], scs).items():
        r, sc = by_name[name]
        if pred["status"] == "error" or not pred["step_time_s"]:
            continue
        ratio = measured_ratio(sc, pred)
        if ratio and ratio > 1.0:
            beyond[r["id"]] = ("measured %.1f %% faster than the ideal stack predicts (every GEMM at the "
                               "device's best measured rate, no host time, all communication hidden)"
                               % (100.0 * (1.0 - 1.0 / ratio)))
    return beyond


def points():
    return [(g, o) for g in GRID["gemm_efficiency"] for o in GRID["op_overhead"]]


def row_error(r, pred):
    """predicted / measured - 1 (negative: optimistic), or None where the model gives no time."""
    if not pred or pred["status"] == "error" or not pred["step_time_s"]:
        return None
    if r["kind"] == "vtrain":
        return float(pred["step_time_s"]) / r["measured"] - 1.0
    ratio = measured_ratio(r["sc"], pred)
    return ratio - 1.0 if ratio else None


def objective(rows_by_source, pt, errs):
    """mean over sources of the source's mean |error| at grid point pt."""
    tot, n = 0.0, 0
    for src, rows in rows_by_source.items():
        e = [abs(errs[r["id"]][pt]) for r in rows if errs[r["id"]].get(pt) is not None]
        if e:
            tot += sum(e) / len(e)
            n += 1
    return tot / n if n else float("inf")


def fit(rows_by_source, errs):
    g0, o0 = GRID["gemm_efficiency"], GRID["op_overhead"]
    centre = ((g0[0] + g0[-1]) / 2, (o0[0] + o0[-1]) / 2)
    span = (g0[-1] - g0[0], o0[-1] - o0[0])

    def cost(pt):
        return objective(rows_by_source, pt, errs) + TIE * sum(abs(pt[i] - centre[i]) / span[i] for i in (0, 1))
    return min(points(), key=cost)


def near_optimal(rows_by_source, errs, pt):
    """The grid points a refit cannot tell from its choice pt: their objective within TIE (a tenth of a point of
    mean |error|) of pt's; more than one value of a parameter among them leaves that parameter unpinned."""
    best = objective(rows_by_source, pt, errs)
    return [q for q in points() if objective(rows_by_source, q, errs) <= best + TIE]


def unpinned(near):
    """{parameter: (lowest, highest)} of the parameters whose near-optimal values span a third of their grid or
    more (the curvature of a pinned optimum spans a few steps)."""
    out = {}
    for i, name in enumerate(PARAMS):
        vals, grid = sorted({q[i] for q in near}), GRID[name]
        if vals[-1] - vals[0] >= (grid[-1] - grid[0]) / 3 - 1e-12:
            out[name] = (vals[0], vals[-1])
    return out


def value_span(name, lohi):
    """A parameter's unpinned values as `unpinned` gives them: "15 us to 115 us"."""
    return "%s to %s" % (pstr(name, lohi[0]), pstr(name, lohi[1]))


def source_mean_err(rows, errs, pt):
    e = [abs(errs[r["id"]][pt]) for r in rows if errs[r["id"]].get(pt) is not None]
    return sum(e) / len(e) if e else None


def by_source(rows, keep=lambda r: True):
    out = {}
    for r in rows:
        if keep(r):
            out.setdefault(r["source"], []).append(r)
    return out


def wquantile(pairs, q):
    """the q quantile of (value, weight) pairs (weights need not sum to 1)."""
    pairs = sorted(pairs)
    tot = sum(w for _, w in pairs)
    acc = 0.0
    for v, w in pairs:
        acc += w
        if acc >= q * tot - 1e-12:
            return v
    return pairs[-1][0]


# The ranges are calibrated out of sample: the 5th-95th percentile of the
# left-out residuals, each end stretched by the factor WIDEN[0] in log
# terms (lo^k, hi^k), k the smallest on a grid at which a range built
# without a source holds at least COVER_TARGET of that source's runs on
# average over the sources.  Sources disagree with each other more than the
# runs of one source do, so percentiles of pooled residuals alone cover too
# little of a new source.
WIDEN = [1.0]
COVER_TARGET = 0.90
_RAW = {}  # (family, regime, excluded source) -> the unstretched interval


def interval_from(ratios):
    """90 % interval of measured / predicted from {source: [ratio]}, each source weighing the same."""
    pairs = [(x, 1.0 / len(v)) for v in ratios.values() for x in v]
    lo, hi = min(wquantile(pairs, 0.05), 1.0), max(wquantile(pairs, 0.95), 1.0)
    return lo ** WIDEN[0], hi ** WIDEN[0]


def pick_interval(rows, loso_ratio, fam, regime, exclude=None):
    """The interval a row of (family, regime) gets from the out-of-sample
    residuals of the sources other than `exclude`: its family's runs of its
    regime, else of both regimes, else every family's ('pooled')."""
    key = (fam, regime, exclude, id(rows))
    if key not in _RAW:
        k, WIDEN[0] = WIDEN[0], 1.0
        _RAW[key] = pick_raw(rows, loso_ratio, fam, regime, exclude)
        WIDEN[0] = k
    iv = _RAW[key]
    return None if iv is None else (iv[0] ** WIDEN[0], iv[1] ** WIDEN[0]) + iv[2:]


def pick_raw(rows, loso_ratio, fam, regime, exclude=None):
    def pool(keep):
        out = {}
        for r in rows:
            if r["source"] != exclude and keep(r) and r["id"] in loso_ratio:
                out.setdefault(r["source"], []).append(loso_ratio[r["id"]])
        return out
    for basis, keep in ((regime, lambda r: r["family"] == fam and r["regime"] == regime),
                        ("both regimes", lambda r: r["family"] == fam),
                        ("pooled", lambda r: True)):
        v = pool(keep)
        if len(v) >= MIN_SOURCES and sum(len(x) for x in v.values()) >= MIN_RUNS:
            lo, hi = interval_from(v)
            return lo, hi, sum(len(x) for x in v.values()), len(v), basis
    return None


CEILING_SOURCES = 2  # sources a device generation's runs must come from before their best is its ceiling


def mfu_ceilings(rows, preds, fitted, insample):
    """The highest MFU any published run measured, per device generation and
    precision, in the model's own FLOP counting (the predicted MFU scaled by
    predicted / measured step time): {(generation, precision): (mfu, run,
    sources)}, sources the number of sources whose runs the class holds.
    One publisher's page of a few large models (Blackwell bf16 in December
    2026: the DGX Cloud 25.05 recipes' 405B and 340B runs on GB200, 51.1 %)
    measures those runs, not what the generation reaches on a smaller model
    or a larger batch a replica; tests/ceiling.sh holds a study to its own
    class only from CEILING_SOURCES sources on, to the precision's highest
    on any generation before."""
    out, srcs = {}, {}
    for r in rows:
        e = insample[r["id"]]
        p = preds[r["id"]].get(fitted[r["family"]])
        # a mixture of experts' MFU (small experts, routing) bounds no dense run
        if r["kind"] != "published" or r["regime"] == "moe" or e is None or not p or not p["mfu"]:
            continue
        key = (generation_of(r["sc"]["system"]), r["sc"]["precision"])
        srcs.setdefault(key, set()).add(r["source"])
        v = float(p["mfu"]) * (1.0 + e)
        if v > out.get(key, (0.0, ""))[0]:
            out[key] = (v, r["id"])
    return {k: (v, rid, len(srcs[k])) for k, (v, rid) in out.items()}


CEILINGS = os.path.join("validation", "published", "mfu_ceilings.csv")


def ceiling_lines(ceilings):
    lines = ["# the highest MFU a published run measured, per device generation and precision, in deepflow's\n",
             "# FLOP counting (scripts/validate.py --write), and the number of sources whose runs the class holds;\n",
             "# tests/ceiling.sh keeps every shipped study under its class's figure where the class holds runs of\n",
             "# %d sources or more, and under the precision's highest on any generation where it does not\n" %
             CEILING_SOURCES,
             "generation,precision,mfu,run,sources\n"]
    for (gen, prec), (v, rid, n) in sorted(ceilings.items()):
        lines.append("%s,%s,%.4f,%s,%d\n" % (gen, prec, v, rid, n))
    return lines


def write_ceilings(root, ceilings):
    with open(os.path.join(root, CEILINGS), "w") as f:
        f.writelines(ceiling_lines(ceilings))
    print("wrote %s" % CEILINGS)


def check_ceilings(root, ceilings):
    path = os.path.join(root, CEILINGS)
    have = open(path).readlines() if os.path.exists(path) else []
    if have != ceiling_lines(ceilings):
        print("note: %s differs from this run" % CEILINGS)
        return [CEILINGS]
    return []


def widest_interval(rows, loso_ratio, exclude=None):
    """The range of a row no validation run covers: the widest of every
    family's and regime's range and of every source's pooled, built without
    `exclude`; (lo, hi, runs, sources, "widest")."""
    cands = [pick_interval(rows, loso_ratio, fam, regime, exclude)
             for fam in sorted({r["family"] for r in rows}) for regime in ("single", "multi")]
    cands.append(pick_interval(rows, loso_ratio, None, None, exclude))
    cands = [c for c in cands if c]
    pooled = cands[-1]
    return (min(c[0] for c in cands), max(c[1] for c in cands), pooled[2], pooled[3], "widest")


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    deepflow = os.path.abspath(args[0])
    DEEPFLOW[:] = [deepflow]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.join(here, "..")
    data = os.path.join(root, "validation", "vtrain")
    published = os.path.join(root, "validation", "published", "runs.csv")
    out = os.path.join(root, "build", "validate")
    verbose = "--quiet" not in args
    if "--data" in args:
        data = args[args.index("--data") + 1]
    if "--out" in args:
        out = args[args.index("--out") + 1]
    elif os.path.isdir(out):
        # the default folder is this script's scratch: each run starts it
        # afresh (a report folder of a deepflow before manifests would be
        # refused, and nothing of an earlier run is wanted)
        shutil.rmtree(out)
    if not os.path.isdir(data):
        raise SystemExit("validate: no measurements at %s" % data)
    os.makedirs(out, exist_ok=True)

    # every measured run, with its source, stack, family and regime
    rows = []
    vstack = system_stack(root, "vtrain-a100")
    vt = {}
    for kind in ("multi", "single"):
        vt[kind] = make_table(os.path.join(data, "ground_truth_%s.csv" % kind),
                              os.path.join(out, "vtrain-%s.csv" % kind), kind)
        for r in vt[kind]:
            sc = {c: r.get(c, "") for c in GCOLS}
            rows.append({"id": r["scenario"], "source": "vtrain", "subset": "vtrain-" + kind, "kind": "vtrain",
                         "stack": vstack, "regime": kind, "measured": r["_measured"], "sc": sc, "vt": r,
                         "regression": ""})
    prow, skipped = published_rows(root, published)
    for sc in prow:
        rows.append({"id": sc["scenario"], "source": sc["series"], "subset": "published", "kind": "published",
                     "stack": sc["_stack"], "regime": "multi" if int(sc["devices"]) > 8 else "single", "sc": sc,
                     "regression": sc["_row"].get("regression", "")})
    # the mixture-of-experts runs: fitted with their stack's family like any
    # run (a stack's host time per op shows most where experts are small),
    # their own regime for the range of a mixture-of-experts row
    mrows, moe_skipped = moe_rows(root, os.path.join(root, "validation", "published", "moe_runs.csv"))
    for sc in mrows:
        rows.append({"id": sc["scenario"], "source": sc["series"], "subset": "moe", "kind": "published",
                     "stack": sc["_stack"], "regime": "moe", "sc": sc,
                     "regression": sc["_row"].get("regression", "")})
    beyond = beyond_ideal(deepflow, [r for r in rows if r["kind"] == "published"], out)
    for r in rows:
        if r["id"] in beyond:
            (moe_skipped if r["subset"] == "moe" else skipped).append((r["id"], beyond[r["id"]]))
    rows = [r for r in rows if r["id"] not in beyond]
    prow = [sc for sc in prow if sc["scenario"] not in beyond]
    mrows = [sc for sc in mrows if sc["scenario"] not in beyond]
    for r in rows:
        r["family"] = family_of(r["stack"])
        if r["family"] is None:
            raise SystemExit("validate: stack %s of %s is in no family (FAMILIES)" % (r["stack"], r["id"]))

    # predictions on the grid, and errors
    preds, errs = {}, {}
    for fam in FAMILIES:
        frows = [r for r in rows if r["family"] == fam]
        if frows:
            preds.update(evaluate_grid(deepflow, fam, frows, out))
    for r in rows:
        errs[r["id"]] = {pt: row_error(r, p) for pt, p in preds.get(r["id"], {}).items()}

    # the fit of each family on all its sources, and each source left out
    fitted, loso_pt, loose, loose_fit = {}, {}, {}, {}
    for fam in FAMILIES:
        srcs = fitted_sources(rows, fam)
        if not srcs:
            continue
        fitted[fam] = fit(srcs, errs)
        free = unpinned(near_optimal(srcs, errs, fitted[fam]))
        if free:
            loose_fit[fam] = free
        for s in HELD_OUT:
            if any(r["source"] == s and r["family"] == fam for r in rows):
                loso_pt[(fam, s)] = (fitted[fam], "held out of every fit")
        for s in srcs:
            rest = {k: v for k, v in srcs.items() if k != s}
            if rest:
                loso_pt[(fam, s)] = (fit(rest, errs), "its family's other sources")
            else:
                rest = by_source(rows, lambda r: r["source"] != s)
                loso_pt[(fam, s)] = (fit(rest, errs), "every other source")
            # a parameter the other sources leave unpinned: the left-out source's error over its near-optimal
            # values says how much its out-of-sample figure rests on the grid's tie-break
            near = near_optimal(rest, errs, loso_pt[(fam, s)][0])
            free = unpinned(near)
            if free:
                span = [e for e in (source_mean_err(srcs[s], errs, q) for q in near) if e is not None]
                loose[(fam, s)] = (free, min(span), max(span))
    insample = {r["id"]: errs[r["id"]].get(fitted[r["family"]]) for r in rows}
    loso = {r["id"]: errs[r["id"]].get(loso_pt[(r["family"], r["source"])][0]) for r in rows}
    loso_ratio = {k: 1.0 / (1.0 + e) for k, e in loso.items() if e is not None}

    ceilings = mfu_ceilings(rows, preds, fitted, insample)
    print("== the fit (scripts/validate.py; grid gemm_efficiency %.2f-%.2f by 0.01 x op_overhead %s-%s by 20 us) ==" %
          (GRID["gemm_efficiency"][0], GRID["gemm_efficiency"][-1], pstr("op_overhead", GRID["op_overhead"][0]),
           pstr("op_overhead", GRID["op_overhead"][-1])))
    for fam, pt in fitted.items():
        srcs = sorted(fitted_sources(rows, fam))
        print("  %-14s gemm_efficiency %s, op_overhead %s  on %s" %
              (fam, pstr("gemm_efficiency", pt[0]), pstr("op_overhead", pt[1]), ", ".join(srcs)))
    print("  left out (refit without the source):")
    for fam, s in sorted(loso_pt):
        pt, how = loso_pt[(fam, s)]
        print("    %-18s %-36s gemm_efficiency %s, op_overhead %s  (%s)" %
              (fam, s, pstr("gemm_efficiency", pt[0]), pstr("op_overhead", pt[1]), how))
    for fam, free in sorted(loose_fit.items()):
        print("  %s's own sources leave %s unpinned: within %.1f point of its best, the grid's tie-break chose" %
              (fam, ", ".join("%s (%s)" % (n, value_span(n, v)) for n, v in free.items()),
               100 * TIE))
    if loose:
        print("  left-out refits that leave a parameter unpinned (values within %.1f point of the refit's best; the "
              "grid's tie-break, towards its centre, chose):" % (100 * TIE))
        for (fam, s), (free, lo, hi) in sorted(loose.items()):
            print("    %-18s %-36s %s; the source's left-out error over them %.1f %% to %.1f %%" %
                  (fam, s, ", ".join("%s %s" % (n, value_span(n, v)) for n, v in free.items()),
                   100 * lo, 100 * hi))

    # vTrain's groups (in sample): mean, correlation, pick
    results = {}
    for kind in ("multi", "single"):
        pred = {r["id"]: preds[r["id"]].get(fitted[r["family"]]) for r in rows if r["subset"] == "vtrain-" + kind}
        results["vtrain-" + kind] = report(kind, vt[kind], pred, verbose and kind == "multi")

    # published runs, in sample and out
    print("\n== published runs: %d evaluated (%d of them mixture of experts), %d not modelled ==" %
          (len(prow) + len(mrows), len(mrows), len(skipped) + len(moe_skipped)))
    print("%-34s %5s %3s %3s %4s %10s %10s %8s %8s" %
          ("run", "gpus", "tp", "pp", "dp", "measured", "predicted", "error", "loso"))
    for r in rows:
        if r["kind"] != "published":
            continue
        p = preds[r["id"]].get(fitted[r["family"]])
        e = insample[r["id"]]
        if e is None:
            print("%-34s %s" % (r["id"], p["error"] if p else "missing"))
            continue
        t = float(p["step_time_s"])
        lo = loso[r["id"]]
        print("%-34s %5s %3s %3s %4s %10.4g %10.4g %+7.1f%% %+7.1f%%%s" %
              (r["id"], r["sc"]["devices"], p["tp"], p["pp"], p["dp"], t / (1 + e), t, 100 * e,
               100 * lo if lo is not None else float("nan"), "" if p["status"] == "ok" else "  (" + p["status"] + ")"))
    for rid, why in skipped:
        print("%-34s not modelled: %s" % (rid, why))

    # per source: in sample, left out, coverage of the interval built without it
    table = []
    cov_runs, cov_in = 0, 0
    cov_src = []
    srcs_all = by_source(rows)

    def inside_own():
        """each run against the range its row would get, built without its source"""
        out_ = {}
        for r in rows:
            if r["id"] in loso_ratio:
                iv_ = pick_interval(rows, loso_ratio, r["family"], r["regime"], exclude=r["source"])
                out_[r["id"]] = bool(iv_ and iv_[0] <= loso_ratio[r["id"]] <= iv_[1])
        return out_

    def own_coverage():
        """a source's runs inside a range built without it, on average over the sources"""
        inside_ = inside_own()
        cov = [sum(inside_[r["id"]] for r in v) / len(v)
               for v in ([r for r in srows_ if r["id"] in inside_] for srows_ in srcs_all.values()) if v]
        return sum(cov) / len(cov)
    WIDEN[0] = 1.0
    raw_cover = own_coverage()
    for k in [1.0 + 0.05 * i for i in range(41)]:
        WIDEN[0] = k
        if own_coverage() >= COVER_TARGET:
            break
    print("\nranges calibrated out of sample: each end of the 5th-95th percentile stretched by %.2f in log terms "
          "(a source's runs inside a range built without it: %.0f %% on average unstretched, %.0f %% stretched)"
          % (WIDEN[0], 100 * raw_cover, 100 * own_coverage()))
    # each run against its own range (in_own) and against every source's range
    # (in_pooled), both built without its source
    in_own, in_pooled = inside_own(), {}
    envelope = {s: widest_interval(rows, loso_ratio, exclude=s) for s in srcs_all}
    for r in rows:
        if r["id"] in loso_ratio:
            lo, hi = envelope[r["source"]][:2]
            in_pooled[r["id"]] = lo <= loso_ratio[r["id"]] <= hi
    for s, srows in sorted(srcs_all.items()):
        # the means and the gate: the source's runs but those its publisher reports as a regression; the
        # coverage: every run (the range is what a user reads beside a figure)
        mrows_ = [r for r in srows if not r["regression"]]
        ins = [insample[r["id"]] for r in mrows_ if insample[r["id"]] is not None]
        out_ = [loso[r["id"]] for r in mrows_ if loso[r["id"]] is not None]
        inside = sum(1 for r in srows if in_own.get(r["id"]))
        n, n_cov = len(out_), sum(1 for r in srows if loso[r["id"]] is not None)
        cov_runs += n_cov
        cov_in += inside
        cov_src.append(inside / n_cov if n_cov else float("nan"))
        m_in, mx_in = stats(ins)
        m_out, mx_out = stats(out_)
        table.append((s, "+".join(sorted({r["family"] for r in srows})) + ("*" if s in HELD_OUT else ""), n, m_in, mx_in, m_out, mx_out, sum(1 for e in out_ if e < 0),
                      sum(out_) / n if n else float("nan"), inside, THRESHOLDS.get(s, LOSO_TARGET), n_cov))
    print("\nper source (error = predicted / measured step time - 1; loso: refit without the source; "
          "*: held out of every fit):")
    print("%-22s %-14s %5s %9s %9s %9s %9s %6s %8s %9s %6s" % ("source", "family", "runs", "in mean", "in max",
                                                               "loso mean", "loso max", "optim", "signed",
                                                               "in range", "gate"))
    bad = []
    for s, fam, n, mi, mxi, mo, mxo, opt, sg, inside, th, n_cov in table:
        flag = "ok" if mo <= th else "FAIL"
        if mo > th:
            bad.append(s)
        print("%-22s %-14s %5d %8.1f%% %8.1f%% %8.1f%% %8.1f%% %6d %+7.1f%% %4d/%-4d %4.0f%% %s" %
              (s, fam, n, 100 * mi, 100 * mxi, 100 * mo, 100 * mxo, opt, 100 * sg, inside, n_cov, 100 * th, flag))
    regressed = [r for r in rows if r["regression"] and loso[r["id"]] is not None]
    if regressed:
        print("runs their publisher reports as a regression of that release (`regression` column: never fitted, not "
              "in the means or the gates; in the ranges and the coverage):")
        for r in regressed:
            print("  %-58s %+6.1f%%  %s" % (r["id"], 100 * loso[r["id"]], regression_ref(r["regression"])))
    fitted_t = [t for t in table if t[0] not in HELD_OUT]
    all_loso = sum(t[5] for t in fitted_t) / len(fitted_t)
    all_in = sum(t[3] for t in fitted_t) / len(fitted_t)
    cov_mean = sum(cov_src) / len(cov_src)
    print("all sources (each weighs the same): in sample %.1f %%, left out %.1f %% (target %.0f %%, gate %.1f %%) %s"
          % (100 * all_in, 100 * all_loso, 100 * ALL_TARGET, 100 * ALL_GATE, "ok" if all_loso <= ALL_GATE else "FAIL"))
    if all_loso > ALL_GATE:
        bad.append("all sources")
    held = held_summary(table)
    if held:
        print("held-out sources (never in a fit; their runs in the ranges): %d sources, %d runs, mean %.1f %%, "
              "signed %+.1f %% (each source weighs the same; target %.0f %% each)" %
              (held[0], held[1], 100 * held[2], 100 * held[3], 100 * LOSO_TARGET))
    dense = [[abs(loso[r["id"]]) for r in v if r["regime"] != "moe" and not r["regression"] and loso[r["id"]] is not None]
             for v in srcs_all.values()]
    dense = [sum(d) / len(d) for d in dense if d]
    dense_loso = sum(dense) / len(dense)
    print("dense runs of every source (each source weighs the same): left out %.1f %% over %d sources (gate %.0f %%) %s"
          % (100 * dense_loso, len(dense), 100 * DENSE_GATE, "ok" if dense_loso <= DENSE_GATE else "FAIL"))
    if dense_loso > DENSE_GATE:
        bad.append("the dense runs")
    print("out-of-sample coverage of the 90 %% range: %.0f %% of sources' runs on average, %d of %d runs "
          "(%.0f %%); target %.0f-%.0f %%" % (100 * cov_mean, cov_in, cov_runs, 100.0 * cov_in / cov_runs,
                                              100 * COVERAGE[0], 100 * COVERAGE[1]))

    # the intervals every report carries: from the out-of-sample residuals
    print("\nprediction intervals (measured / predicted, 5th-95th percentile of out-of-sample residuals, "
          "each source weighing the same):")
    intervals = {}
    stacks = sorted({st for fam in FAMILIES for st in FAMILIES[fam]})
    for st in stacks:
        fam = family_of(st)
        for regime in ("single", "multi"):
            iv = pick_interval(rows, loso_ratio, fam, regime)
            if iv is None:
                continue
            lo, hi, n, ns, basis = iv
            mine = [r for r in rows if r["family"] == fam and r["regime"] == regime and r["id"] in loso_ratio] or \
                [r for r in rows if r["family"] == fam and r["id"] in loso_ratio]
            mean_err = sum(abs(loso[r["id"]]) for r in mine) / max(1, len(mine))
            cover = sum(1 for r in mine if in_own[r["id"]]) / max(1, len(mine))
            intervals[(st, regime)] = (lo, hi, n, mean_err, cover)
            print("  %-18s %-6s %5d runs of %d sources (%s)  %.3f .. %.3f" % (st, regime, n, ns, basis, lo, hi))
    pooled = widest_interval(rows, loso_ratio) + (sum(in_pooled.values()) / max(1, len(in_pooled)),)
    print("  %-18s %-6s %5d runs of %d sources  %.3f .. %.3f  (a stack, device or model class no source covers: "
          "the widest of the ranges above and every source's; %.0f %% of runs inside, each source left out)"
          % ("uncovered", "both", pooled[2], pooled[3], pooled[0],
                                                              pooled[1], 100 * pooled[5]))

    # mixture of experts: their runs out of sample (each source left out of
    # the fit), and the range of a mixture-of-experts row from them
    moe_src, moe_stacks = {}, set()
    regressed_ids = {r["id"] for r in regressed}
    for r in rows:
        if r["regime"] == "moe" and loso[r["id"]] is not None:
            moe_src.setdefault(r["source"], []).append((r["id"], loso[r["id"]]))
            moe_stacks.add(r["stack"])
    moe_iv = moe_interval(moe_src)
    moe_table = []
    inside_all = n_all = 0
    print("\nmixture-of-experts runs (validation/published/moe_runs.csv; in the fit of their stack's family, "
          "each source left out):")
    for src in sorted(moe_src):
        errs = [e for _, e in moe_src[src]]
        iv = moe_interval(moe_src, exclude=src)
        inside = sum(1 for e in errs if iv and iv[0] <= 1.0 / (1.0 + e) <= iv[1])
        inside_all += inside
        n_all += len(errs)
        # the means without the runs their publisher reports as a regression; the range and what it holds with
        mean_errs = [e for rid, e in moe_src[src] if rid not in regressed_ids]
        m, mx = stats(mean_errs)
        sg = sum(mean_errs) / len(mean_errs) if mean_errs else float("nan")
        moe_table.append((src, len(mean_errs), m, mx, sg, inside, len(errs)))
        print("  %-30s %3d runs  mean|err| %5.1f%%  max %5.1f%%  signed %+5.1f%%  in range %d of %d" %
              (src, len(mean_errs), 100 * m, 100 * mx, 100 * sg, inside, len(errs)))
    for rid, why in moe_skipped:
        if verbose:
            print("  %-44s not modelled: %s" % (rid, why))
    if moe_iv:
        allm = [abs(e) for v in moe_src.values() for _, e in v]
        moe_iv = (moe_iv[0], moe_iv[1], len(allm), sum(allm) / len(allm), inside_all / max(1, n_all))
        print("  range %.3f .. %.3f over %d runs of %d sources (%d of them inside, each source left out); "
              "%d runs not modelled" % (moe_iv[0], moe_iv[1], moe_iv[2], len(moe_src), inside_all, len(moe_skipped)))
    MOE[:] = [moe_iv, moe_stacks]

    mr = results["vtrain-multi"][1]
    print("\nvTrain multi-node worst group rank correlation %.3f (issue 9's target 0.85 retired; kept from falling)"
          % mr)
    for src in sorted(PICKS):
        print("%s: the model's pick in the worst group is %.1f %% slower, measured, than the group's best"
              % (src, 100 * PICKS[src]))
    STACK_ROWS[:] = rows
    misses = sorted(((r["id"], loso[r["id"]], r["source"]) for r in rows
                     if r["kind"] == "published" and not r["regression"] and loso[r["id"]] is not None
                     and abs(loso[r["id"]]) > 0.10),
                    key=lambda t: t[0])
    sched, sched_abs, sched_skipped = evaluate_schedules(deepflow, root, out)
    serr = [abs(p - m) for _, _, p, m in sched]
    print("\npipeline schedules: predicted against measured speedup over 1F1B (Qi et al. 2024, Table 4; "
          "%d ZB-2p rows not evaluated, see schedules.csv)" % len(sched_skipped))
    for cfg, s_, p, m in sched:
        print("  %-22s %-12s predicted %.3f  measured %.3f  %+.3f" % (cfg, s_, p, m, p - m))
    if serr:
        print("  mean |error| %.3f, largest %.3f (gate %.2f, %.2f)" % (sum(serr) / len(serr), max(serr),
                                                                    SCHEDULE_GATE[0], SCHEDULE_GATE[1]))
        if sum(serr) / len(serr) > SCHEDULE_GATE[0] or max(serr) > SCHEDULE_GATE[1]:
            bad.append("pipeline schedules' speedup error %.3f mean, %.3f largest" % (sum(serr) / len(serr),
                                                                                      max(serr)))
    else:
        bad.append("pipeline schedules: no row evaluated")
    if sched_abs:
        print("  throughput, out of sample (megatron-lm's fit): mean |error| %.1f %%, largest %.1f %%, signed %+.1f %% "
              "over %d runs" % (100 * sum(abs(e) for e in sched_abs) / len(sched_abs),
                                100 * max(abs(e) for e in sched_abs), 100 * sum(sched_abs) / len(sched_abs),
                                len(sched_abs)))
    a2a = evaluate_a2a(deepflow, root, out)
    print("\nexpert-parallel exchanges: one dispatch or combine, microseconds (Megatron Core MoE report, Table 7; "
          "validation/published/moe_a2a.csv; not fitted):")
    for rid, gpu, disp, ep, phase, pred, meas, gate in a2a:
        print("  %-6s %-9s %-8s ep %2d  predicted %7.0f  measured %7.0f  %+6.1f %%  %s" % (
            gpu, disp, phase, ep, pred, meas, 100 * (pred / meas - 1),
            "gate %.0f %%" % (100 * gate) if gate is not None else "not gated (deepflow's deepep)"))
        if gate is not None and abs(pred / meas - 1) > gate:
            bad.append("expert-parallel exchange %s: %+.1f %% against its gate of %.0f %%" % (
                rid, 100 * (pred / meas - 1), 100 * gate))
    gated = [abs(p / m - 1) for _, _, _, _, _, p, m, g in a2a if g is not None]
    print("  standard all-to-all: mean |error| %.1f %%, largest %.1f %% over %d exchanges" % (
        100 * sum(gated) / len(gated), 100 * max(gated), len(gated)))
    att = evaluate_attention(deepflow, root, out)
    print("\nfused attention kernels, one layer forward and backward, ms (FlashAttention-3's H100 figures; "
          "validation/published/attention.csv; not fitted, not gated):")
    for rid, kern, s, pred, meas in att:
        print("  %-20s %-6s seq %6d  predicted %8.3f  measured %8.3f  %+7.1f %%" % (rid, kern, s, pred, meas,
                                                                                 100 * (pred / meas - 1)))
    for kern in sorted({k for _, k, _, _, _ in att}):
        e = [abs(p / m - 1) for _, k, _, p, m in att if k == kern]
        print("  %s: mean |error| %.1f %% over %d shapes" % (kern, 100 * sum(e) / len(e), len(e)))
    ar = evaluate_vtrain_allreduce(deepflow, root)
    print("\nall-reduce inside an A100 node of vTrain's cluster, us (nccl-tests as vTrain ships them; %s; "
          "error = predicted / measured time - 1; not fitted, not gated):" % VTRAIN_AR)
    for p, b, pred, meas in ar:
        print("  %d GPUs %4d MiB  predicted %7.1f  measured %7.1f  %+6.1f %%" % (p, b // 1048576, pred, meas,
                                                                         100 * (pred / meas - 1)))
    for p in sorted({a[0] for a in ar}):
        e = [q / m - 1 for r, _, q, m in ar if r == p]
        print("  %d GPUs: mean |error| %.1f %%, signed %+.1f %% over %d sizes" % ((p,) + err_stats(e)[:2] + (len(e),)))
    ml = evaluate_moe_layer(deepflow, root)
    print("\none mixture-of-experts layer on one H100, ms (SonicMoE's Figure 14; %s; balanced routing; "
          "error = predicted / measured time - 1; not fitted, not gated):" % MOE_LAYER)
    for rid, impl, model, n, E, K, pas, pred, meas in ml:
        print("  %-22s %-11s %-4s n %4d E %3d K %2d %-8s predicted %7.2f  measured %7.2f  %+6.1f %%" % (
            rid, impl, model, n, E, K, pas, pred, meas, 100 * (pred / meas - 1)))
    for impl in sorted({m[1] for m in ml}):
        e = [p / m - 1 for _, i, _, _, _, _, _, p, m in ml if i == impl]
        print("  %s (as %s): mean |error| %.1f %%, signed %+.1f %% over %d passes" % (
            (impl, MOE_LAYER_STACKS[impl]) + err_stats(e)[:2] + (len(e),)))
    fp = evaluate_footprints(deepflow, root)
    print("\npublished training footprints (validation/footprints; energy and carbon, not fitted):")
    for line in footprint_lines(fp):
        print(line)
    for rid, kind, pred, pub, gate, note in fp:
        if gate is not None and abs(pred / pub - 1) > gate:
            bad.append("footprint %s: %+.1f %% against its gate of %.0f %%" % (rid, 100 * (pred / pub - 1), 100 * gate))
    ps = evaluate_perseus(deepflow, root)
    print("\nclock plans against Perseus (validation/perseus; energy saved at unchanged time, % of GPU energy):")
    for line in perseus_lines(ps):
        print(line)
    for rid, pred, pub, gate, note in ps:
        if gate is not None and abs(pred - pub) > gate:
            bad.append("Perseus %s: %+.1f points against its gate of %.0f" % (rid, pred - pub, gate))
    gm = evaluate_gemm_v100(deepflow, root)
    print("\nV100 GEMMs (validation/kernels/gemm_v100.csv, DeepBench; error = predicted / measured time - 1; shown, "
          "not gated):")
    for line in gemm_v100_lines(gm):
        print(line)
    cv = evaluate_conv_v100(deepflow, root, out)
    conv_c, conv_mean = conv_call_fit(cv)
    print("\nV100 convolutions (validation/kernels/conv_v100.csv, DeepBench, batch 8 and 16: fp16 NHWC on tensor cores, "
          "fp32 NCHW; the forward pass and the weight gradient; error = predicted / measured time - 1; shown, not "
          "gated): conv_call_overhead fitted at %.0f us, mean |error| %.1f %% over %d layers"
          % (conv_c * 1e6, 100 * conv_mean, len(cv[0])))
    for line in conv_v100_lines(cv, conv_c):
        print(line)
    stale_dev = device_fit_line(root, conv_call_text(conv_c, cv, conv_mean), "--write" in args)
    gmm = evaluate_grouped_mm(deepflow, root)
    gmm_fits = grouped_mm_fit(gmm)
    print_block("torch._grouped_mm, bf16 (validation/kernels/grouped_mm.csv; one kernel a pass over a rank's "
                "experts, us; dense: every group's GEMMs at the device's best dense rate; error = predicted / "
                "measured time - 1; fits each generation's efficiency.grouped_mm, not gated):",
                grouped_mm_lines(gmm, gmm_fits))
    stale_dev += grouped_mm_write(root, gmm_fits, gmm, "--write" in args)
    imb_fit, imb = evaluate_imbalance(deepflow, root, out)
    print_block("routing imbalance (forced-balance / dropless pairs of validation/published/moe_runs.csv; dropless "
                "time over forced time; error = predicted / measured ratio - 1; fits the model templates' "
                "expert_imbalance, not gated):", imbalance_lines(imb_fit, imb))
    stale_dev += imbalance_write(root, imb_fit, imb, "--write" in args)
    sc_fit, sc = evaluate_scatter(deepflow, root)
    print_block("PyTorch's accumulating scatters, bf16 (%s; a mixture of experts' padded token gather and its "
                "backward, us; error = predicted / measured time - 1; fits the devices' scatter_add, not gated):"
                % SCATTER, scatter_lines(sc_fit, sc))
    stale_dev += scatter_write(root, sc_fit, sc, "--write" in args)
    steps = evaluate_lstm_v100(deepflow, root)
    rnn_c, rnn_mean = rnn_step_fit(steps)
    print("\nV100 LSTM steps (validation/kernels/lstm_v100.csv, DeepBench, cuDNN; error = predicted / measured time "
          "of one recurrent step - 1): rnn_step_overhead fitted at %.0f us, mean |error| %.1f %% over %d steps"
          % (rnn_c * 1e6, 100 * rnn_mean, len(steps)))
    for line in rnn_step_lines(steps, rnn_c):
        print(line)
    stale_dev += device_fit_line(root, rnn_step_text(rnn_c, steps, rnn_mean), "--write" in args)
    # the kernel tables above fit the V100 template's values (--write) before the training rows use them
    sb = evaluate_small_batch(deepflow, root)
    print("\nCNN training, V100 and A100 (validation/small_batch; images/s; SOURCES.md says why Gavel's and the "
          "A100 rows are not gated):")
    sb_lines, sb_mean = small_batch_lines(sb)
    for line in sb_lines:
        print(line)
    lstm = evaluate_lstm(deepflow, root)
    print("\nV100 LSTM training (validation/small_batch/lstm.csv; tokens/s; shown, not gated: SOURCES.md says why):")
    for rid, stack, pred, meas in lstm:
        print("  %-28s %-22s predicted %9.0f  measured %9.0f  %+6.1f %%" % (rid, stack, pred, meas,
                                                                              100 * (pred / meas - 1)))
    def pool_name(st):
        return " and ".join(sorted({r["stack"] for r in SMALL_ROWS + LSTM_ROWS if pool_of(r["stack"]) == st}))
    for st in sorted({pool_of(r["stack"]) for r in LSTM_ROWS}):
        iv = class_interval(pooled_rows(LSTM_ROWS, st))
        if iv:
            print("  %s's LSTM range from these rows: %.3f .. %.3f (%d runs; a source's runs inside the range "
                  "built without it: %.0f %%)" % (pool_name(st), iv[0], iv[1], iv[2], 100 * iv[4]))
    for st in sorted({r["stack"] for r in SMALL_ROWS}):  # their stack's range (it has no published runs)
        intervals[(st, "single")] = small_batch_interval(st)
    for st in sorted({pool_of(r["stack"]) for r in SMALL_ROWS}):
        iv = small_batch_interval(st)
        print("  %s's single-node range from these rows: %.3f .. %.3f (%d runs; a source's runs inside the "
              "range built without it: %.0f %%)" % (pool_name(st), iv[0], iv[1], iv[2], 100 * iv[4]))
    if sb_mean > SMALL_BATCH_GATE:
        bad.append("V100 CNN training: %.1f %% mean |error| against its gate of %.0f %%" % (
            100 * sb_mean, 100 * SMALL_BATCH_GATE))
    gated = [r for r in SMALL_ROWS]
    gavel = [(rid, p / m - 1) for rid, src, _, p, m, g in sb if src == "gavel2020"]
    a100 = [(rid, p / m - 1) for rid, src, _, p, m, g in sb if not g and src != "gavel2020"]
    small = (sb_mean, len(gated), min(r["batch"] for r in gated), max(r["batch"] for r in gated),
             ", ".join(sorted({r["stack"] for r in pooled_rows(SMALL_ROWS + LSTM_ROWS, gated[0]["stack"])})),
             small_batch_interval(gated[0]["stack"]),
             "Gavel's PyTorch runs on real ImageNet data (16 to 128 images, shown, not gated): the model's rate is %s "
             "to %s above theirs, which add a per-step cost outside the training step (SOURCES.md). NVIDIA's DGX "
             "A100 ResNet-50 tables (shown, not gated: real-data loaders, fused kernels): the model's rate against "
             "the TF32 runs (NCHW on tensor cores) %s to %s, against the fp16 runs %s to %s." % (
                 pct(min(e for _, e in gavel)), pct(max(e for _, e in gavel)),
                 pct(min(e for r, e in a100 if "tf32" in r)), pct(max(e for r, e in a100 if "tf32" in r)),
                 pct(min(e for r, e in a100 if "amp" in r)), pct(max(e for r, e in a100 if "amp" in r))))
    lstm_iv = class_interval(pooled_rows(LSTM_ROWS, gated[0]["stack"]))
    gnmt = [p / m for rid, _, p, m in lstm if "gnmt" in rid]
    big = [p / m for rid, _, p, m in lstm if "biglstm" in rid]
    pt = {rid.rsplit("-", 2)[-2] + "-" + rid.rsplit("-", 1)[-1]: p / m - 1 for rid, _, p, m in lstm if "pt1905" in rid}
    lstm_note = ("V100 LSTM training (`validation/small_batch/lstm.csv`, NVIDIA's GNMT v2 in TensorFlow NGC 19.03 "
                 "and PyTorch NGC 19.05 on 1 to 8 GPUs, f-lm's BigLSTM on 4; shown, not gated): deepflow's rate is "
                 "%.1fx to %.1fx the measured GNMT and %.1fx BigLSTM's. A recurrent step's own cost is modelled "
                 "(the V100's `rnn_step_overhead`, %.0f us, fitted on DeepBench's cuDNN LSTM steps, "
                 "`validation/kernels/lstm_v100.csv`: %.1f %% mean |error| per step, %.1f %% without it); what "
                 "the GNMT runs spend beyond it is not. NVIDIA's PyTorch GNMT runs on the PyTorch 2019 stack "
                 "(`pytorch-2019`), whose host time per op, dispatched from Python, is the A100 PyTorch family's fit: "
                 "its one-GPU mixed-precision rate is then %s off (host-bound), its fp32 one %s (device-bound); "
                 "on 4 and 8 GPUs both lose more than the model's data-parallel exchange explains (%s and %s, %s "
                 "and %s). Until that is modelled, an LSTM row on the 2019 stacks takes its range from these runs: "
                 "%.1f to %.1f times the predicted time." % (
                     min(gnmt), max(gnmt), big[0], rnn_c * 1e6, 100 * rnn_mean,
                     100 * sum(abs(p / m - 1) for _, _, _, _, p, m in steps) / len(steps),
                     pct(pt["amp-1g"]), pct(pt["fp32-1g"]), pct(pt["amp-4g"]), pct(pt["amp-8g"]),
                     pct(pt["fp32-4g"]), pct(pt["fp32-8g"]), lstm_iv[0], lstm_iv[1]))
    mem_lines, memory_note = memory_lines(memory_report(
        root, [r for r in rows if r["kind"] == "published"], [rid for rid, _ in skipped + moe_skipped], preds,
        fitted))
    print("\npeak memory per device against the published figure (validation/published/memory.csv; shown, not "
          "gated):")
    for line in mem_lines:
        print(line)
    rt = readme_table(table, all_in, all_loso, dense_loso, cov_mean, cov_in, cov_runs, mr, misses, moe_table, moe_iv,
                      small, lstm_note, unpinned_text(loose, loose_fit, loso, rows),
                      [(r["id"], loso[r["id"]], regression_ref(r["regression"])) for r in regressed], memory_note)
    print("\nhighest published MFU by device generation and precision (the model's FLOP counting):")
    for (gen, prec), (v, rid, n) in sorted(ceilings.items()):
        print("  %-10s %-5s %5.1f %%  %s%s" % (gen, prec, 100 * v, rid, "" if n >= CEILING_SOURCES else
                                             "  (runs of %d source%s: not yet the generation's ceiling; studies are "
                                             "held to the precision's highest)" % (n, "" if n == 1 else "s")))
    if "--write" in args:
        write_ceilings(root, ceilings)
        write_fits(root, fitted, rows, table)
        borrowed_lines(root, fitted, True)
        write_intervals(root, intervals, pooled)
        write_readme(root, rt)
    else:
        stale = (check_fits(root, fitted) + borrowed_lines(root, fitted, False) +
                 check_intervals(root, intervals, pooled) + check_ceilings(root, ceilings) + stale_dev)
        check_readme(root, rt)
        if stale:
            bad.append("templates (%s): `scripts/validate.py build/deepflow --write` rewrites them from this fit"
                       % ", ".join(stale))
    if bad:
        raise SystemExit("validate: above its gate: %s" % "; ".join(bad))


SOURCE_NAMES = {
    "vtrain": "vTrain (A100, Megatron-DeepSpeed; 1-8 GPUs and 3.6-175 B on 64-512 GPUs)",
    "narayanan2021": "Megatron-LM SC'21 (A100; Tables 1 and 2)",
    "korthikanti2022": "Korthikanti et al. 2022 (A100; Table 5)",
    "smith2022": "MT-NLG 530B (A100, DeepSpeed + Megatron)",
    "bloom2022": "BLOOM 176B (A100)",
    "bloom_tr11_sweep_2022": "BigScience's layout sweep before BLOOM (384 A100, DeepSpeed's pipeline engine; held out)",
    "glm130b_2022": "GLM-130B's speed test (768 A100 40 GB, DeepSpeed's pipeline engine; held out)",
    "olmo_core_readme_202411": "OLMo-core's README throughput table (8 H100, FSDP2 + torch.compile, bf16 and float8; 1-13 B; held out)",
    "nemotron4_15b_2024": "Nemotron-4 15B's production run (768-2,304 H100, Megatron-LM, TP 8; held out)",
    "megatron_moe_modelzoo_2605": "NVIDIA's Megatron MoE model zoo, Qwen3-235B (256 H100, GB200, 64 GB300; 4k-128k tokens; held out)",
    "megatron_lm_dsv3_gb200_doc": "Megatron-LM's DeepSeek-V3 note (256 GB200, MXFP8; baseline and final; held out)",
    "torchtitan_pr3592_202606": "torchtitan's compiled graph_trainer, DeepSeek-V3 16B (8 H100; held out)",
    "torchtitan_pr1993_202511": "torchtitan on 8 B200, DeepSeek-V3 16B, a tuning log (PR 1993, November 2025; held out)",
    "apertus_2509": "Apertus 8B and 70B (GH200 on Alps, 2,048-4,096 GPUs, Slingshot-11; held out)",
    "megascale2024": "MegaScale's Megatron-LM baseline (A100, 256-12,288 GPUs)",
    "llama3_2024": "Llama 3 405B (H100, 8,192-16,384 GPUs)",
    "nemo_perf_2407": "NeMo 24.07 performance page (H100, fp8)",
    "mbridge_perf_2511": "Megatron-Bridge 25.11 performance page (H100, B200, GB200, GB300; fp8)",
    "megatron_bridge_perf_2509": "Megatron-Bridge 25.09 performance page (H100, B200, GB200; fp8; dense and mixture of experts)",
    "nemo_perf_2502": "NeMo 25.02 performance page (B200, fp8; Llama, Nemotron, Mixtral)",
    "megatron_bridge_perf_2511": "Megatron-Bridge 25.11 performance page, mixture of experts (H100, B200, GB200, GB300)",
    "megatron_bridge_perf_2602": "Megatron-Bridge 26.02 performance page, dense and mixture of experts (H100, B200, B300, GB200, GB300)",
    "megatron_bridge_perf_260201": "Megatron-Bridge 26.02.01 performance page, dense and mixture of experts (H100, B200, B300, GB200, GB300)",
    "megatron_bridge_perf_2604": "Megatron-Bridge 26.04 performance page, dense and mixture of experts (H100, B200, B300, GB200, GB300)",
    "megatron_bridge_perf_260401": "Megatron-Bridge 26.04.01 performance page, dense and mixture of experts (H100, B200, B300, GB200, GB300)",
    "megatron_bridge_perf_2606": "Megatron-Bridge 26.06 performance page, dense and mixture of experts (H100, B300, GB200, GB300)",
    "megatron_bridge_perf_260601": "Megatron-Bridge 26.06.01 performance page, mixture of experts (GB200, GB300)",
    "megatron_bridge_perf_2608": "Megatron-Bridge 26.08 performance page, mixture of experts (GB200, GB300)",
    "megatron_bridge_docs_202605": "Megatron-Bridge documentation, May 2026: Qwen3-30B on 16 H100, overlap and CUDA-graph A/B runs",
    "nemo_perf_2504": "NeMo 25.04 performance page (GB200, fp8; Llama, Nemotron, Mixtral)",
    "nemo_perf_2507": "NeMo 25.07 performance page (GB200, fp8)",
    "nemo_long_seq_perf": "NeMo long-sequence performance page (H100, fp8, 4k-1M tokens, cp up to 32)",
    "dgxc_bench_v24111": "DGX Cloud benchmarking recipes 24.11.1 (H100, 8-2,304 GPUs; Llama 3.1 8B to 405B, GPT-3 175B, Nemotron4 15B and 340B, Grok-1)",
    "dgxc_bench_v2502": "DGX Cloud benchmarking recipes 25.02 (H100, 8-2,304 GPUs; Llama 3.1 8B to 405B, GPT-3 175B, Nemotron4 15B, Grok-1)",
    "dgxc_bench_v2504": "DGX Cloud benchmarking recipes 25.04 (H100, 8-2,048 GPUs; Llama 3.1 8B to 405B, Nemotron4 15B and 340B)",
    "dgxc_bench_v2505": "DGX Cloud benchmarking recipes 25.05 (H100 and GB200, 16-1,024 GPUs; Llama 3.1 405B, Nemotron4 15B and 340B, mixtures of experts)",
    "torchtitan_bench_h100_202412": "torchtitan benchmarks, December 2024 (H100, 8-512 GPUs)",
    "torchtitan_asynctp_h100_202506": "torchtitan async-TP benchmarks, June 2025 (H100)",
    "torchtitan_perf_doc_202408": "torchtitan performance page, August 2024 (H100, A100)",
    "ibm_pytorch_fsdp_blog_202403": "IBM/PyTorch FSDP blog, March 2024 (96 H100)",
    "ibm_fms_fsdp_readme_compile_202405": "IBM fms-fsdp README with torch.compile, May 2024 (96 H100)",
    "torchao_float8_training_bench_202503": "torchao float8 training benchmarks, March 2025 (8 H100)",
    "torchtitan_bench_trainy_h200_202506": "torchtitan benchmark submitted by Trainy, June 2025 (H200)",
    "kempnerforge_mfu_h200_202604": "KempnerForge report, 2026 (H200, 1-32 GPUs)",
    "torchtitan_pr1610_202508": "torchtitan PR 1610, August 2025 (8 H100; DeepSeek-V3 16B; held out)",
    "torchtitan_pr2107_202512": "torchtitan PR 2107, December 2025 (512 H100; DeepSeek-V3 671B; held out)",
    "pytorch_nebius_dsv3_b200_202603": "PyTorch and Nebius DeepSeek-V3 recipe, 2026 (256 B200; held out)",
    "llm_foundry_bench_202401": "MosaicML llm-foundry MPT benchmarks, 2023-2024 (A100, H100; 8-512 GPUs)",
    "nemo_automodel_perf_202510": "NeMo AutoModel performance page, October 2025 and April 2026 (H100, 8-1,024 GPUs; mixtures of experts and a dense 70B; held out)",
    "mlperf_training_v30": "MLPerf Training v3.0, June 2023: GPT-3 175B (512-3,584 H100; held out)",
    "mlperf_training_v31": "MLPerf Training v3.1, November 2023: GPT-3 175B (512-10,752 H100; held out)",
    "mlperf_training_v40": "MLPerf Training v4.0, June 2024: GPT-3 175B (512-11,616 H100; held out)",
    "mlperf_training_v41": "MLPerf Training v4.1, November 2024: GPT-3 175B (256-3,072 H100, 64 B200; held out)",
    "mlperf_training_v50": "MLPerf Training v5.0, June 2025: Llama 3.1 405B (256-8,192 H100, H200, GB200; held out)",
    "mlperf_training_v51": "MLPerf Training v5.1, November 2025: Llama 3.1 8B and 405B (8-5,120 H100, H200, B200, GB200; fp8 and fp4; held out)",
    "mlperf_training_v60": "MLPerf Training v6.0, May 2026: DeepSeek-V3 671B, GPT-OSS 20B, Llama 3.1 8B and 405B (8-8,192 H100, H200, B200, B300, GB200, GB300; held out)",
}
README_BEGIN = "<!-- make validate: begin (scripts/validate.py --write regenerates this table) -->\n"
README_END = "<!-- make validate: end -->\n"


def pct(x):
    return ("%.1f %%" % (100 * x)).replace("-", "−")


def unpinned_text(loose, loose_fit, loso, rows):
    """The README's sentence on the fitted parameters the sources leave unpinned: a stack's own fit, and each
    left-out refit whose source's error moves by more than a point over the values its refit cannot tell apart."""
    parts = []
    for fam, free in sorted(loose_fit.items()):
        parts.append("%s's sources leave %s unpinned (any of %s fits them within %.1f point; the fit takes the "
                     "grid's tie-break, towards its centre)" %
                     (fam, " and ".join(free), ", ".join(value_span(n, v) for n, v in free.items()), 100 * TIE))
    for (fam, s), (free, lo, hi) in sorted(loose.items()):
        if fam in loose_fit or hi - lo <= 0.01:
            continue
        e = [abs(loso[r["id"]]) for r in rows if r["source"] == s and loso[r["id"]] is not None]
        parts.append("without %s, the other %s sources leave %s unpinned (%s): its left-out error, %s at the "
                     "tie-break, is %s to %s over those values" %
                     (s, fam, " and ".join(free), ", ".join(value_span(n, v) for n, v in free.items()),
                      pct(sum(e) / len(e)) if e else "n/a", pct(lo), pct(hi)))
    if not parts:
        return ""
    return "Fitted values the data does not pin down: " + "; ".join(parts) + ".\n"


def runs_cell(n, n_cov):
    """A source's runs in the README's tables: those in its means, and apart those its publisher reports as a
    regression (n_cov - n of them)."""
    return "%d" % n if n == n_cov else "%d (and %d reported regressions)" % (n, n_cov - n)


MEMORY = os.path.join("validation", "published", "memory.csv")
MEMORY_COLS = ("memory_per_device_gib", "weights_gib", "gradients_gib", "optimizer_gib", "activations_gib")
MEMORY_METRICS = {  # metric -> (what it measures, which of deepflow's figures it is compared with)
    "max_reserved": ("PyTorch's maximum reserved memory", "total"),
    "max_allocated": ("PyTorch's maximum allocated memory", "tensors"),
    "nvidia_smi": ("nvidia-smi's used memory", "total"),
}


def memory_report(root, rows, not_modelled, preds, fitted):
    """Published peak memory per device (validation/published/memory.csv) against deepflow's, on the fitted
    stacks: [(id, source, metric, measured GiB, predicted GiB)].  `total` is deepflow's memory per device
    (what it holds against the capacity: the runtime reserve included); `tensors` leaves the reserve out
    (weights, gradients, optimizer state and activations), as PyTorch's allocated memory does.  Shown,
    not fitted, not gated.  not_modelled: the ids of the published runs the validation lists without a
    prediction (a figure of theirs is skipped; an id that is no published run is an error)."""
    by_id = {r["id"]: r for r in rows}
    known = set(by_id) | set(not_modelled)
    out = []
    with open(os.path.join(root, MEMORY), newline="") as f:
        for m in csv.DictReader(line for line in f if not line.startswith("#")):
            if m["metric"] not in MEMORY_METRICS:
                raise SystemExit("validate: %s: %s: metric %r is not one of %s" % (
                    MEMORY, m["id"], m["metric"], ", ".join(MEMORY_METRICS)))
            if m["id"] not in known:
                raise SystemExit("validate: %s: %s is no run of runs.csv or moe_runs.csv" % (MEMORY, m["id"]))
            r = by_id.get(m["id"])
            p = preds[r["id"]].get(fitted[r["family"]]) if r else None
            if not p or p["status"] == "error" or not p.get("memory_per_device_gib"):
                continue  # a run the validation does not evaluate (it says why)
            if MEMORY_METRICS[m["metric"]][1] == "tensors":  # MEMORY_COLS less the total
                pred = sum(float(p[k] or 0) for k in MEMORY_COLS[1:])
            else:
                pred = float(p["memory_per_device_gib"])
            out.append((m["id"], r["source"], m["metric"], float(m["memory_gib"]), pred))
    return out


def memory_lines(mem):
    """make validate's lines for the memory report, and the README's sentence."""
    lines, parts = [], []
    for metric, (what, _) in MEMORY_METRICS.items():
        sel = [(rid, src, meas, pred) for rid, src, met, meas, pred in mem if met == metric]
        if not sel:
            continue
        ratios = [pred / meas - 1 for _, _, meas, pred in sel]
        srcs = sorted({src for _, src, _, _ in sel})
        lines.append("  %-14s %3d runs of %d sources: deepflow / measured - 1 mean %+.1f %%, %+.1f %% to %+.1f %% "
                     "(%s)" % (metric, len(sel), len(srcs), 100 * sum(ratios) / len(ratios), 100 * min(ratios),
                               100 * max(ratios), ", ".join(srcs)))
        parts.append("against %s, %d runs (%s): %s on average, %s to %s" % (
            what, len(sel), " and ".join(SOURCE_NAMES.get(x, x).split(" (")[0] for x in srcs),
            pct(sum(ratios) / len(ratios)), pct(min(ratios)), pct(max(ratios))))
    note = ("Peak memory per device (`validation/published/memory.csv`; shown, not fitted, not gated), deepflow's "
            "against the published figure: %s. Negative: deepflow's memory is below what the run held: the caching "
            "allocator's reserve beyond the live tensors (in the reserved and the nvidia-smi figures) and buffers "
            "the model does not count.\n" % "; ".join(parts)) if parts else ""
    return lines, note


def regression_ref(text):
    """The report a row's `regression` column cites, without its quote: "NVIDIA-NeMo/Megatron-Bridge#1998
    (2026-01-20)"."""
    return text.split(":", 1)[0]


def readme_table(table, all_in, all_loso, dense_loso, cov_mean, cov_in, cov_runs, rho, misses, moe_table=(),
                 moe_iv=None, small=None, lstm_note="", unpinned_note="", regressed=(), memory_note=""):
    out = ["| source | stack family | runs | in sample: mean \\|error\\| | left out: mean \\|error\\| | "
           "left out: max | left out: signed | in the 90 % range (out of sample) | gate |\n",
           "|---|---|---|---|---|---|---|---|---|\n"]
    for s, fam, n, mi, mxi, mo, mxo, opt, sg, inside, th, n_cov in table:
        out.append("| %s | %s | %s | %s | %s | %s | %s | %d of %d | %.0f %% |\n" %
                   (SOURCE_NAMES.get(s, s), fam, runs_cell(n, n_cov), pct(mi), pct(mo), pct(mxo), pct(sg), inside, n_cov, 100 * th))
    out.append("\nAll sources, each weighing the same: %s in sample, %s left out (target %.0f %%); their dense "
               "runs alone %s left out. The 90 %% range, built without the source it is tested on, holds %.0f %% "
               "of a source's runs on average (%d of %d runs).\n" % (pct(all_in), pct(all_loso), 100 * ALL_TARGET,
                                                                     pct(dense_loso), 100 * cov_mean, cov_in,
                                                                     cov_runs))
    held = held_summary(table)
    if held:
        out.append("\nThe sources marked * (stack family) are held out of every fit, so that they stay out of sample: "
                   "PyTorch-native mixture-of-experts runs (torchtitan, NeMo AutoModel), the 2021-22 large models "
                   "on DeepSpeed's pipeline engine (GLM-130B, BigScience's sweep before BLOOM), MLPerf Training's "
                   "LLM pretraining results of rounds v3.0 to v6.0 on NVIDIA's stack, one source a round, a yardstick "
                   "from 8 to 11,616 GPUs that no fit may see, OLMo-core's throughput table, 1-13 B dense models "
                   "on a PyTorch-native stack on 8 H100s, a yardstick of that class, and, collected in December 2026, "
                   "Nemotron-4 15B's production run (768-2,304 H100), NVIDIA's Megatron MoE model zoo (Qwen3-235B on "
                   "H100, GB200 and GB300) with Megatron-LM's DeepSeek-V3 note on GB200, torchtitan's compiled "
                   "trainer on DeepSeek-V3 16B, Apertus on 2,048-4,096 GH200 (Alps) and a torchtitan tuning log "
                   "on 8 B200 (DeepSeek-V3 16B). "
                   "They are in the ranges and "
                   "the coverage, not in the all-sources mean: %d sources, %d runs, mean %s, signed %s (negative: "
                   "the model is optimistic).\n" % (held[0], held[1], pct(held[2]), pct(held[3])))
    if moe_table:
        out.append("\nMixture-of-experts runs (`moe_runs.csv`, in the table above with their sources), each source "
                   "left out of the fit:\n\n")
        out.append("| source | runs | mean \\|error\\| | max | signed | in the range (out of sample) |\n")
        out.append("|---|---|---|---|---|---|\n")
        for src, n, m, mx, sg, inside, n_cov in moe_table:
            out.append("| %s | %s | %s | %s | %s | %d of %d |\n" % (src, runs_cell(n, n_cov), pct(m), pct(mx), pct(sg), inside, n_cov))
        if moe_iv:
            out.append("\nA mixture-of-experts row on their stack gets the range %.2f to %.2f (measured / predicted) "
                       "from them.\n" % (moe_iv[0], moe_iv[1]))
    if small:
        mean, n, lo_b, hi_b, st, iv, ungated = small
        out.append("\nV100 CNN training (`validation/small_batch`, ResNet-50 and Inception-V3, 1 and 8 GPUs, no "
                   "value fitted to them): %s mean |error| over %d runs at %d to %d images a GPU (gate %.0f %%). "
                   "The 2019 stacks (%s) take their single-node range from them, %.2f to %.2f (measured / predicted); "
                   "a row below %d images a GPU gets the widest range and is flagged. %s\n" % (
                       pct(mean), n, lo_b, hi_b, 100 * SMALL_BATCH_GATE, st, iv[0], iv[1], lo_b, ungated))
    if lstm_note:
        out.append("\n" + lstm_note + "\n")
    out.append(memory_note)
    out.append(unpinned_note)
    out.append("vTrain multi-node: worst rank correlation within a model group %.2f.\n" % rho)
    if misses:
        out.append("Published runs off by more than 10 %% when their source is left out of the fit (negative: "
                   "the model is optimistic): %s.\n" % misses_text(misses))
    if regressed:
        out.append("Runs their publisher reports as a performance regression of that release (the row's "
                   "`regression` column quotes the report; never fitted, not in the means or the gates, in the "
                   "ranges and the coverage): %s.\n" %
                   "; ".join("%s %s (%s)" % (rid, pct(e), ref) for rid, e, ref in regressed))
    return "".join(out)


MISSES_LISTED = 6  # a source with more runs off than this shows its count and its worst three


def misses_text(misses):
    """The runs off by more than 10 %, by source: every run of a source with a
    few of them; of one with many, how many and the worst three."""
    by_src = {}
    for rid, e, src in misses:
        by_src.setdefault(src, []).append((rid, e))
    parts = []
    for src in sorted(by_src):
        runs = by_src[src]
        if len(runs) <= MISSES_LISTED:
            parts.append(", ".join("%s %s" % (rid, pct(e)) for rid, e in runs))
        else:
            worst = sorted(runs, key=lambda t: -abs(t[1]))[:3]
            parts.append("%s: %d runs, the worst %s" % (src, len(runs),
                                                        ", ".join("%s %s" % (rid, pct(e)) for rid, e in worst)))
    return "; ".join(parts)


def readme_parts(root):
    path = os.path.join(root, "README.md")
    with open(path) as f:
        text = f.read()
    if README_BEGIN not in text or README_END not in text:
        return path, None
    a = text.index(README_BEGIN) + len(README_BEGIN)
    b = text.index(README_END)
    return path, (text[:a], text[a:b], text[b:])


def write_readme(root, table):
    path, parts = readme_parts(root)
    if parts is None:
        print("note: README.md has no validation markers; table not written")
        return
    with open(path, "w") as f:
        f.write(parts[0] + table + parts[2])
    print("wrote the validation table of %s" % path)


def check_readme(root, table):
    _, parts = readme_parts(root)
    if parts is not None and parts[1] != table:
        print("note: README.md's validation table differs from this run; `scripts/validate.py "
              "build/deepflow --write` regenerates it")


@functools.lru_cache(maxsize=None)
def system_stack(root, system):
    """The framework a system template names (its `framework:` key)."""
    with open(os.path.join(root, "templates", "systems", system + ".yaml")) as f:
        for line in f:
            if line.startswith("framework:"):
                return line.split(":", 1)[1].split("#", 1)[0].strip()
    raise SystemExit("validate: %s names no framework" % system)


def framework_files(root):
    d = os.path.join(root, "templates", "frameworks")
    return [(f[:-5], os.path.join(d, f)) for f in sorted(os.listdir(d)) if f.endswith(".yaml")]


# ---- what --write puts in the stack templates ---------------------------------

def fit_comment(fam, rows, table):
    srcs = [t for t in table if fam in t[1].split("+")]
    n = sum(t[2] for t in srcs)
    return ("fitted by scripts/validate.py (make validate) with the other fitted key of this family, on %d runs "
            "of %d sources (%s): in sample %s, each source left out %s (mean over sources)" %
            (n, len(srcs), ", ".join(t[0] for t in srcs), pct(sum(t[3] for t in srcs) / len(srcs)),
             pct(sum(t[5] for t in srcs) / len(srcs))))


def fit_lines(fam, pt, rows, table):
    c = fit_comment(fam, rows, table)
    return {n: "%s: %s # %s\n" % (n, pstr(n, v).ljust(9), c) for n, v in zip(PARAMS, pt)}


def key_line(lines, key):
    for i, x in enumerate(lines):
        if x.startswith(key + ":"):
            return i
    return None


def template_path(root, stack):
    return os.path.join(root, "templates", "frameworks", stack + ".yaml")


def template_value(line):
    return line.split(":", 1)[1].split("#", 1)[0].strip()


# A stack with no fit of its own that takes one fitted value of a family (its template says so on that line):
# stack -> (family, parameter).  PyTorch's eager 2019 stack dispatches each op from Python as the A100-era
# PyTorch family does, and takes its per-op host time.
BORROWED = {"pytorch-2019": ("megatron-lm", "op_overhead")}


def borrowed_lines(root, fitted, write):
    """The borrowed fitted values (BORROWED) written into their stacks' templates (write), or the templates
    that differ."""
    stale = []
    for stack, (fam, key) in BORROWED.items():
        path = template_path(root, stack)
        with open(path) as f:
            lines = f.readlines()
        i = key_line(lines, key)
        if i is None or ("%s's fit" % fam) not in lines[i]:
            raise SystemExit("validate: %s's %s line does not say it takes %s's fit" % (path, key, fam))
        stale += set_line(path, lines, i, value_line(lines[i], key, pstr(key, fitted[fam][PARAMS.index(key)])),
                          write)
    return stale


def write_fits(root, fitted, rows, table):
    for fam, pt in fitted.items():
        path = template_path(root, FAMILIES[fam][0])
        with open(path) as f:
            lines = f.readlines()
        for key, text in fit_lines(fam, pt, rows, table).items():
            i = key_line(lines, key)
            if i is None:
                raise SystemExit("validate: %s has no %s line to write" % (path, key))
            lines[i] = text
        with open(path, "w") as f:
            f.writelines(lines)
        print("wrote the fit of %s" % path)


def check_fits(root, fitted):
    stale = []
    for fam, pt in fitted.items():
        path = template_path(root, FAMILIES[fam][0])
        with open(path) as f:
            lines = f.readlines()
        for n, v in zip(PARAMS, pt):
            i = key_line(lines, n)
            if i is None or template_value(lines[i]).replace(" ", "") != pstr(n, v).replace(" ", ""):
                print("note: %s's %s is not this fit's %s" % (path, n, pstr(n, v)))
                stale.append(os.path.basename(path))
    return stale


def covered(rows, stack):
    """the device generations and model classes a stack's validation runs cover, the devices of its
    family's largest run, and the smallest batch a device ran where that is what its runs bound (the V100 CNN
    rows: images a device; 0: no bound)."""
    gens, models, most, least = set(), set(), 0, 0
    fam = family_of(stack)
    for r in rows:
        if r["stack"] == stack:
            gens.add(generation_of(r["sc"]["system"]))
            models.add("dense")
        if fam and r["family"] == fam:  # the scale its family's fit was tested at
            most = max(most, int(r["sc"]["devices"]))
    for r in pooled_rows(SMALL_ROWS + LSTM_ROWS, stack):
        gens.add(generation_of(r["system"]))
        models.add(r["class"])
        most = max(most, r["devices"])
        least = min(least, r["batch"]) if least else r["batch"]
    return " ".join(sorted(g for g in gens if g)), " ".join(sorted(models)), most, least


def interval_lines(intervals, stack, pooled, cover):
    out = []
    for regime, key in (("single", "single_node"), ("multi", "multi_node")):
        iv = intervals.get((stack, regime))
        if iv is None:
            out.append("  %s: {lo: %.3f, hi: %.3f, runs: 0}\n" % (key, pooled[0], pooled[1]))
        else:
            out.append("  %s: {lo: %.3f, hi: %.3f, runs: %d, mean_error: %.3f, coverage: %.3f}\n" % ((key,) + iv))
    out.append("  uncovered: {lo: %.3f, hi: %.3f, runs: %d, coverage: %.3f}\n" %
               (pooled[0], pooled[1], pooled[2], pooled[5]))
    # the MoE runs are the only evidence on mixture-of-experts rows: every
    # stack's MoE rows get their range (they ran on MOE[1])
    moe = MOE[0] if cover[0] else None
    if moe:
        out.append("  moe: {lo: %.3f, hi: %.3f, runs: %d, mean_error: %.3f, coverage: %.3f}\n" % moe)
    lstm = class_interval(pooled_rows(LSTM_ROWS, stack))
    if lstm:
        out.append("  lstm: {lo: %.3f, hi: %.3f, runs: %d, mean_error: %.3f, coverage: %.3f}\n" % lstm)
    if cover[0]:  # a stack without runs covers nothing: every row gets the uncovered range
        out.append("  max_devices: %d\n" % cover[2])
        out.append("  generations: \"%s\"\n" % cover[0])
        out.append("  models: \"%s\"\n" % (cover[1] + (" moe" if moe and stack in MOE[1] else "")))
    if cover[3]:
        out.append("  min_batch: %d\n" % cover[3])
    return out


def template_interval(path):
    with open(path) as f:
        lines = f.readlines()
    i = key_line(lines, "interval")
    if i is None:
        return None, lines
    j = i + 1
    while j < len(lines) and lines[j].startswith("  "):
        j += 1
    return (i + 1, j), lines


STACK_ROWS = []  # set by main: the rows, for the coverage lists
MOE = [None, set()]  # set by main: the mixture-of-experts range and the stacks its runs ran on


def write_intervals(root, intervals, pooled):
    for name, path in framework_files(root):
        pos, lines = template_interval(path)
        if pos is None:
            continue
        lines[pos[0]:pos[1]] = interval_lines(intervals, name, pooled, covered(STACK_ROWS, name))
        with open(path, "w") as f:
            f.writelines(lines)
        print("wrote the interval of %s" % path)


def check_intervals(root, intervals, pooled):
    stale = []
    for name, path in framework_files(root):
        pos, lines = template_interval(path)
        if pos is not None and lines[pos[0]:pos[1]] != interval_lines(intervals, name, pooled,
                                                                       covered(STACK_ROWS, name)):
            print("note: %s's interval differs from these residuals" % path)
            stale.append(os.path.basename(path))
    return stale


if __name__ == "__main__":
    main()
