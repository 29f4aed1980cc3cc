#!/usr/bin/python3
"""Validate deepflow against measured iteration times (vTrain, A100).

Turns ../shared/validation/vtrain/ground_truth_{multi,single}.csv into
scenario tables, runs `deepflow run` on them, and prints, per row, the
predicted and measured iteration time, then per model group the mean and
max |error| and Spearman's rank correlation.  Standard library only.

usage: validate.py DEEPFLOW [--data DIR] [--out DIR] [--quiet]
"""
import csv
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
        groups.setdefault(r["_group"], []).append((r["_measured"], p, e))
        if verbose:
            print("%-12s %-10s %4s %3s %3s %3s %4s %10.4f %10.4f %+7.1f%%%s" %
                  (r["scenario"], r["_group"], r["devices"], r["tp"], r["pp"], r["dp"],
                   r["microbatch"], r["_measured"], p, 100 * e,
                   "" if s["status"] == "ok" else "  (" + s["status"] + ")"))
    print("%-12s %5s %10s %10s %10s" % ("group", "rows", "mean|err|", "max|err|", "spearman"))
    worst_rho = 1.0
    for g in sorted(groups, key=lambda x: (len(x), x)):
        v = groups[g]
        m = [x[0] for x in v]
        p = [x[1] for x in v]
        errs = [abs(x[2]) for x in v]
        rho = spearman(m, p)
        if rho == rho:
            worst_rho = min(worst_rho, rho)
        print("%-12s %5d %9.1f%% %9.1f%% %10.3f" %
              (g, len(v), 100 * sum(errs) / len(errs), 100 * max(errs), rho))
    mean = sum(allerr) / len(allerr) if allerr else float("nan")
    print("%-12s %5d %9.1f%% %9.1f%% %10.3f   (worst group correlation)" %
          ("all", len(allerr), 100 * mean, 100 * max(allerr) if allerr else float("nan"), worst_rho))
    if failed:
        print("rows not evaluated: %d" % failed)
    return mean, worst_rho, failed


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    deepflow = os.path.abspath(args[0])
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(here, "..", "..", "shared", "validation", "vtrain")
    out = os.path.join(here, "..", "build", "validate")
    verbose = "--quiet" not in args
    if "--data" in args:
        data = args[args.index("--data") + 1]
    if "--out" in args:
        out = args[args.index("--out") + 1]
    if not os.path.isdir(data):
        raise SystemExit("validate: no measurements at %s" % data)
    os.makedirs(out, exist_ok=True)
    results = {}
    for kind in ("multi", "single"):
        table = os.path.join(out, "vtrain-%s.csv" % kind)
        rows = make_table(os.path.join(data, "ground_truth_%s.csv" % kind), table, kind)
        pred = run(deepflow, table, os.path.join(out, kind))
        results[kind] = report(kind, rows, pred, verbose and kind == "multi")
    mm, mr, _ = results["multi"]
    sm, _, _ = results["single"]
    print("\nsummary: multi-node mean |error| %.1f%% (target <= 10%%), worst group rank correlation "
          "%.3f (target >= 0.85); single-node mean |error| %.1f%% (target <= 10%%)" %
          (100 * mm, mr, 100 * sm))


if __name__ == "__main__":
    main()
