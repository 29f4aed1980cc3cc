#!/usr/bin/python3
"""The README's calibration example (issue 25), on public data: vTrain's
measured A100 iterations (validation/vtrain/, MIT), each set split in two
fixed random halves.  `deepflow calibrate` fits the stack on one half; the
other half is then predicted by `deepflow run` with system.framework= the
calibrated template, and by the shipped stack, against what was measured.

usage: calibrate_example.py DEEPFLOW [--out DIR] [--check]
  writes examples/calibrate/vtrain-{multi,single}-{fit,check}.csv, runs the
  example in DIR (default: a temporary folder) and prints the errors;
  --check fails when a held-out half is predicted worse than TARGET.
Standard library only."""
import csv
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate as v  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SEED = 25          # the split: random.Random(SEED).sample of half the runs
TARGET = 0.08      # issue 25: the held-out half within 8 % mean |error|
# What each half fits: every parameter, less those the guard rail refuses
# (a value beyond its physical bound), dropped one at a time as calibrate
# names them: a choice made on the half to fit, never on the held-out one.
PARAMS = ["gemm_efficiency", "op_overhead", "tp_overlap", "dp_overlap", "comm_efficiency.intra",
          "comm_efficiency.inter", "comm_latency.intra", "comm_latency.inter"]
COLS = v.COLS + ["measured_step_time_s"]


def write(path, title, rows, framework=None):
    with open(path, "w", newline="") as f:
        f.write("# title: %s\n" % title)
        w = csv.writer(f, lineterminator="\n")
        cols = COLS + (["system.framework"] if framework else [])
        w.writerow(cols)
        for r in rows:
            w.writerow([r.get(c, "") for c in COLS[:-1]] + ["%.6g" % r["_measured"]] +
                       ([framework] if framework else []))


def mean_err(rows, pred):
    e = [abs(float(pred[r["scenario"]]["step_time_s"]) / r["_measured"] - 1) for r in rows
         if pred.get(r["scenario"], {}).get("step_time_s")]
    return sum(e) / len(e), len(e)


def example(deepflow, kind, out, log=None, examples=False):
    """calibrate on one half of a vTrain set, predict the other; what calibrate said goes to log;
    examples: also write the two halves to examples/calibrate/"""
    log = [] if log is None else log
    src = os.path.join(ROOT, "validation", "vtrain", "ground_truth_%s.csv" % kind)
    rows = v.make_table(src, os.path.join(out, "all-%s.csv" % kind), kind)
    pick = set(random.Random(SEED).sample(range(len(rows)), len(rows) // 2))
    fit = [r for i, r in enumerate(rows) if i in pick]
    held = [r for i, r in enumerate(rows) if i not in pick]
    if examples:
        exdir = os.path.join(ROOT, "examples", "calibrate")
        os.makedirs(exdir, exist_ok=True)
        write(os.path.join(exdir, "vtrain-%s-fit.csv" % kind),
              "vTrain %s-node runs, the half to calibrate on (seed %d)" % (kind, SEED), fit)
        write(os.path.join(exdir, "vtrain-%s-check.csv" % kind),
              "vTrain %s-node runs, the other half, on the stack calibrated on the first" % kind, held,
              "vtrain-%s.yaml" % kind)
    # calibrate in the work folder (the example's template is the user's to make)
    work_fit = os.path.join(out, "vtrain-%s-fit.csv" % kind)
    write(work_fit, "calibrate", fit)
    tpl = os.path.join(out, "vtrain-%s.yaml" % kind)
    fit_keys = list(PARAMS)
    while True:
        p = subprocess.run([deepflow, "calibrate", work_fit, "-o", tpl, "--fit", ",".join(fit_keys)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        refused = [k for k in fit_keys if (": %s would be " % k) in p.stderr]
        if p.returncode == 3 and refused:
            log.append("%s: %s refused (%s)" % (kind, refused[0], p.stderr.strip().split(": ", 2)[-1][:90]))
            fit_keys.remove(refused[0])
            continue
        break
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr)
        raise SystemExit("deepflow calibrate failed with status %d" % p.returncode)
    log.append(p.stdout.rstrip())
    check = os.path.join(out, "vtrain-%s-check.csv" % kind)  # deepflow run reads past the measured column
    write(check, "check", held, "vtrain-%s.yaml" % kind)
    base = os.path.join(out, "vtrain-%s-base.csv" % kind)
    write(base, "base", held)
    e_cal, n = mean_err(held, v.run(deepflow, check, os.path.join(out, "check-" + kind)))
    e_base, _ = mean_err(held, v.run(deepflow, base, os.path.join(out, "base-" + kind)))
    fitted = []  # "key value" of each fitted key, as the template writes it
    with open(tpl) as f:
        for line in f:
            m = re.match(r"^(\S+): ([0-9.e+-]+( us)?)\s+# fitted", line)
            if m:
                fitted.append("%s %s" % (m.group(1), m.group(2)))
    return len(fit), n, e_base, e_cal, fitted


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    deepflow, out, check = args[0], None, "--check" in args
    if "--out" in args:
        out = args[args.index("--out") + 1]
    with tempfile.TemporaryDirectory() as tmp:
        out = out or tmp
        os.makedirs(out, exist_ok=True)
        bad = 0
        for kind in ("multi", "single"):
            said = []
            nfit, nheld, e_base, e_cal, _ = example(deepflow, kind, out, said, examples=True)
            print("\n".join(said))
            ok = e_cal <= TARGET
            bad += not ok
            print("vTrain %s-node: calibrated on %d runs, the other %d predicted: mean |error| %.1f %% on the "
                  "shipped stack, %.1f %% calibrated (target %.0f %%) %s" %
                  (kind, nfit, nheld, 100 * e_base, 100 * e_cal, 100 * TARGET, "ok" if ok else "MISSED"))
        if check and bad:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
