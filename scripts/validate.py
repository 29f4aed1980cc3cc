#!/usr/bin/python3
"""Validate deepflow against measured iteration times (vTrain, A100).

Turns validation/vtrain/ground_truth_{multi,single}.csv into
scenario tables, runs `deepflow run` on them, and prints, per row, the
predicted and measured iteration time, then per model group the mean and
max |error| and Spearman's rank correlation.  Standard library only.

usage: validate.py DEEPFLOW [--data DIR] [--out DIR] [--quiet]
"""
import csv
import functools
import math
import os
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


def run(deepflow, table, outdir):
    p = subprocess.run([deepflow, "run", table, "-o", outdir, "--quiet", "--formats", "csv"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr)
        raise SystemExit("deepflow run failed with status %d" % p.returncode)
    with open(os.path.join(outdir, "summary.csv"), newline="") as f:
        return {r["scenario"]: r for r in csv.DictReader(f)}


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
           ("gb200", ""): "gb200-nvl72"}
PEAK_DENSE_16BIT = {"dgx-a100-80g": 312e12, "dgx-a100-40g": 312e12, "dgx-h100": 989e12}
# the source a run counts in: its GPU generation (Hopper's context-parallel runs apart)
GENERATION = {"dgx-h100": "published-h100", "dgx-b200": "published-blackwell",
              "gb200-nvl72": "published-blackwell"}

PCOLS = ["scenario", "series", "system", "system.framework", "system.inter.bandwidth", "model", "devices",
         "tp", "pp", "dp", "microbatch", "global_batch", "interleave", "recompute", "recompute_layers",
         "seq_parallel", "zero",
         "precision", "model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.ffn", "cp",
         "model.seq_len", "model.vocab", "model.mlp", "model.norm", "model.position"]


def published_rows(root, path):
    """Rows of runs.csv that the model can evaluate, and the others with why."""
    rows, skipped = [], []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            r = {k: (v or "").strip() for k, v in r.items()}
            why = None
            sysname = SYSTEMS.get((r["gpu"], r["gpu_memory_gb"])) or SYSTEMS.get((r["gpu"], ""))
            if not sysname:
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
            sc["_row"] = r
            sc["_stack"] = stack
            rows.append(sc)
    return rows, skipped


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
        v = v * PEAK_DENSE_16BIT[sc["system"]] / 1e12
        counting = "model"
    else:
        counting = r["flops_counting"]
    if counting == "hardware":  # Narayanan et al. 2021 eq. 3: 96 B s l h^2 (1 + s/6h + V/16lh)
        flops = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
        return t / (flops / (gpus * v * 1e12))
    # model FLOPs: ours against theirs (both count forward + backward, no recompute)
    return float(pred["model_tflops_per_device"]) and v / float(pred["model_tflops_per_device"])


def write_table(rows, dst, title):
    with open(dst, "w", newline="") as f:
        f.write("# title: %s\n" % title)
        w = csv.writer(f, lineterminator="\n")
        w.writerow(PCOLS)
        for r in rows:
            w.writerow([r.get(c, "") for c in PCOLS])


def stats(errs):
    a = [abs(e) for e in errs]
    return (sum(a) / len(a), max(a)) if a else (float("nan"), float("nan"))


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    pos = q * (len(xs) - 1)
    i = int(pos)
    j = min(i + 1, len(xs) - 1)
    return xs[i] + (xs[j] - xs[i]) * (pos - i)


MIN_RUNS = 10  # runs behind a prediction interval

# Thresholds on the mean |error| of each source: CI fails above them.  The
# target is 10 % everywhere (issue 9); a source that misses it has its
# achieved figure, rounded up, as a guard against regressions.
# Context-parallel runs (Llama 3 405B at 128k, NeMo and Megatron-Bridge fp8 runs with cp 2) are their
# own source: modelled since context parallelism landed (issue 15); gated at 15 % while they missed
# the target, at 10 % since the fp8 quantization kernels and the megatron-core fit brought them in.
THRESHOLDS = {"vtrain-multi": 0.10, "vtrain-single": 0.10, "published-a100": 0.10, "published-h100": 0.10,
              "published-h100-cp": 0.10, "published-blackwell": 0.10}


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    deepflow = os.path.abspath(args[0])
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
    if not os.path.isdir(data):
        raise SystemExit("validate: no measurements at %s" % data)
    os.makedirs(out, exist_ok=True)
    results = {}
    ratios = {}  # (stack, regime) -> measured / predicted
    vtrain_stack = system_stack(root, "vtrain-a100")
    for kind in ("multi", "single"):
        table = os.path.join(out, "vtrain-%s.csv" % kind)
        rows = make_table(os.path.join(data, "ground_truth_%s.csv" % kind), table, kind)
        pred = run(deepflow, table, os.path.join(out, kind))
        results["vtrain-" + kind] = report(kind, rows, pred, verbose and kind == "multi")
        for r in rows:
            s = pred.get(r["scenario"])
            if s and s["status"] != "error" and s["step_time_s"]:
                ratios.setdefault((vtrain_stack, kind), []).append(r["_measured"] / float(s["step_time_s"]))

    prow, skipped = published_rows(root, published)
    table = os.path.join(out, "published.csv")
    write_table(prow, table, "published training runs (validation/published/runs.csv)")
    pred = run(deepflow, table, os.path.join(out, "published"))
    print("\n== published runs: %d evaluated, %d not modelled ==" % (len(prow), len(skipped)))
    print("%-34s %5s %3s %3s %4s %10s %10s %8s" % ("run", "gpus", "tp", "pp", "dp", "measured", "predicted", "error"))
    by_source = {}
    for sc in prow:
        p = pred.get(sc["scenario"])
        if not p or p["status"] == "error" or not p["step_time_s"]:
            print("%-34s %s" % (sc["scenario"], p["error"] if p else "missing"))
            continue
        ratio = measured_ratio(sc, p)
        e = ratio - 1.0
        gen = GENERATION.get(sc["system"], "published-a100")
        if int(sc["cp"]) > 1 and gen == "published-h100":
            gen += "-cp"
        by_source.setdefault(gen, []).append((sc, e))
        regime = "multi" if int(sc["devices"]) > 8 else "single"
        ratios.setdefault((sc["_stack"], regime), []).append(1.0 / ratio)
        t = float(p["step_time_s"])
        print("%-34s %5s %3s %3s %4s %10.4g %10.4g %+7.1f%%%s" %
              (sc["scenario"], sc["devices"], p["tp"], p["pp"], p["dp"], t / ratio, t, 100 * e,
               "" if p["status"] == "ok" else "  (" + p["status"] + ")"))
    for rid, why in skipped:
        print("%-34s not modelled: %s" % (rid, why))
    for gen in sorted(by_source):
        errs = [e for _, e in by_source[gen]]
        m, mx = stats(errs)
        opt = sum(1 for e in errs if e < 0)
        results[gen] = (m, float("nan"), 0, mx, len(errs), opt)
        print("%-16s %3d runs  mean|err| %5.1f%%  max|err| %5.1f%%  optimistic %d of %d" %
              (gen, len(errs), 100 * m, 100 * mx, opt, len(errs)))

    print("\nprediction intervals (measured / predicted, 5th-95th percentile):")
    intervals = {}
    for stack in sorted({k[0] for k in ratios}):
        pooled = ratios.get((stack, "single"), []) + ratios.get((stack, "multi"), [])
        for regime in ("single", "multi"):
            v, basis = ratios.get((stack, regime), []), regime
            if len(v) < MIN_RUNS:  # too few for quantiles: the stack's runs of both regimes
                v, basis = pooled, "both regimes"
            if len(v) < MIN_RUNS:
                continue
            lo, hi = min(quantile(v, 0.05), 1.0), max(quantile(v, 0.95), 1.0)
            mean_err = sum(abs(1.0 / q - 1.0) for q in v) / len(v)
            intervals[(stack, regime)] = (lo, hi, len(v), mean_err)
            print("  %-14s %-6s %5d runs (%s)  %.3f .. %.3f" % (stack, regime, len(v), basis, lo, hi))
    # a stack with too few runs for quantiles: the widest interval of the
    # others, widened to cover every run of its own
    w = widest(intervals)
    for stack in sorted({k[0] for k in ratios}):
        pooled = ratios.get((stack, "single"), []) + ratios.get((stack, "multi"), [])
        if len(pooled) >= MIN_RUNS or not pooled:
            continue
        lo, hi = min(w[0], min(pooled)), max(w[1], max(pooled))
        mean_err = sum(abs(1.0 / q - 1.0) for q in pooled) / len(pooled)
        for regime in ("single", "multi"):
            intervals[(stack, regime)] = (lo, hi, len(pooled), mean_err)
        print("  %-14s both   %5d runs (too few: the widest, covering them)  %.3f .. %.3f" %
              (stack, len(pooled), lo, hi))

    print("\nsummary (mean |error| per source, threshold):")
    bad = []
    for src in sorted(results):
        m = results[src][0]
        th = THRESHOLDS.get(src, 0.10)
        flag = "ok" if m <= th else "FAIL"
        if m > th:
            bad.append(src)
        print("  %-16s %5.1f%%  (<= %.0f%%) %s" % (src, 100 * m, 100 * th, flag))
    mm, mr = results["vtrain-multi"][0], results["vtrain-multi"][1]
    print("vTrain multi-node worst group rank correlation %.3f (target >= 0.85)" % mr)
    for src in sorted(PICKS):
        print("%s: the model's pick in the worst group is %.1f %% slower, measured, than the group's best "
              "(target <= 5 %%)" % (src, 100 * PICKS[src]))
    misses = sorted(((sc["scenario"], e) for v in by_source.values() for sc, e in v if abs(e) > 0.10),
                    key=lambda t: t[0])
    table = readme_table(results, misses)
    if "--write" in args:
        write_intervals(root, intervals)
        write_readme(root, table)
    else:
        check_intervals(root, intervals)
        check_readme(root, table)
    if bad:
        raise SystemExit("validate: mean |error| above its threshold on %s" % ", ".join(bad))


SOURCE_NAMES = {
    "vtrain-multi": "vTrain, multi-node (A100, Megatron-DeepSpeed; 3.6-175 B on 64-512 GPUs)",
    "vtrain-single": "vTrain, single-node (A100, 1-8 GPUs)",
    "published-a100": "published A100 runs (Megatron-LM SC'21, Korthikanti 2022, MT-NLG, BLOOM, MegaScale)",
    "published-h100": "published H100 runs (Llama 3, NeMo 24.07, Megatron-Bridge 25.11)",
    "published-blackwell": "published B200 and GB200 runs (Megatron-Bridge 25.11, fp8)",
    "published-h100-cp": "published H100 runs with context parallelism (Llama 3 405B at 128k tokens, cp 16; "
                         "NeMo 24.07 and Megatron-Bridge 25.11 fp8, cp 2)",
}
README_BEGIN = "<!-- make validate: begin (scripts/validate.py --write regenerates this table) -->\n"
README_END = "<!-- make validate: end -->\n"


def readme_table(results, misses):
    out = ["| source | runs | mean \\|error\\| | max \\|error\\| | optimistic | threshold |\n",
           "|---|---|---|---|---|---|\n"]
    for src in sorted(results):
        m, _, _, mx, n, opt = results[src]
        out.append("| %s | %d | %.1f %% | %.1f %% | %d | %.0f %% |\n" %
                   (SOURCE_NAMES.get(src, src), n, 100 * m, 100 * mx, opt, 100 * THRESHOLDS.get(src, 0.10)))
    rho = results["vtrain-multi"][1]
    out.append("\nvTrain multi-node: worst rank correlation within a model group %.2f (target 0.85).\n" % rho)
    if misses:
        out.append("Published runs off by more than 10 %% (negative: the model is optimistic): %s.\n" %
                   ", ".join("%s %s" % (rid, ("%+.1f %%" % (100 * e)).replace("-", "−")) for rid, e in misses))
    return "".join(out)


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


def interval_lines(intervals, stack, widest):
    out = []
    for regime, key in (("single", "single_node"), ("multi", "multi_node")):
        iv = intervals.get((stack, regime))
        if iv is None:
            out.append("  %s: {lo: %.3f, hi: %.3f, runs: 0}\n" % (key, widest[0], widest[1]))
        else:
            out.append("  %s: {lo: %.3f, hi: %.3f, runs: %d, mean_error: %.3f}\n" % ((key,) + iv))
    return out


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


def widest(intervals):
    if not intervals:
        return (0.8, 1.25)
    return (min(v[0] for v in intervals.values()), max(v[1] for v in intervals.values()))


def template_interval(path):
    with open(path) as f:
        lines = f.readlines()
    starts = [i for i, x in enumerate(lines) if x.startswith("interval:")]
    if not starts:
        return None, lines
    i = starts[0]
    return (i, lines[i + 1:i + 3]), lines


def write_intervals(root, intervals):
    w = widest(intervals)
    for name, path in framework_files(root):
        pos, lines = template_interval(path)
        if pos is None:
            continue
        i = pos[0]
        lines[i + 1:i + 3] = interval_lines(intervals, name, w)
        with open(path, "w") as f:
            f.writelines(lines)
        print("wrote the interval of %s" % path)


def check_intervals(root, intervals):
    w = widest(intervals)
    for name, path in framework_files(root):
        pos, _ = template_interval(path)
        if pos is not None and pos[1] != interval_lines(intervals, name, w):
            print("note: %s's interval differs from these residuals; `scripts/validate.py build/deepflow "
                  "--write` updates it" % path)


if __name__ == "__main__":
    main()
