#!/usr/bin/python3
"""tests/fit.py — the pieces of scripts/validate.py's fit and its
out-of-sample test, on made-up residuals: weighted quantiles, intervals in
which every source weighs the same, the fit's objective and tie-break, and
the fall-back of an interval to its family's regimes and to every source.
Prints one line per check and "fit: N passed, M failed"."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import validate as v  # noqa: E402

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   fit: " + name)
    else:
        failed += 1
        print("not ok fit: %s %s" % (name, detail))


# weighted quantiles
pairs = [(1.0, 1.0), (2.0, 1.0), (3.0, 2.0)]
check("weighted quantile", v.wquantile(pairs, 0.25) == 1.0 and v.wquantile(pairs, 0.5) == 2.0 and
      v.wquantile(pairs, 0.9) == 3.0)

# an interval where every source weighs the same: one source of 100 runs at
# 1.0 cannot drown another of 2 runs at 1.5
lo, hi = v.interval_from({"big": [1.0] * 100, "small": [1.5, 1.5]})
check("each source weighs the same in an interval", hi == 1.5 and lo == 1.0, (lo, hi))
lo, hi = v.interval_from({"a": [0.9, 1.1]})
check("an interval holds 1", lo <= 1.0 <= hi, (lo, hi))

# the out-of-sample calibration stretches each end in log terms
v.WIDEN[0] = 2.0
lo, hi = v.interval_from({"a": [0.9, 1.1], "b": [0.9, 1.1]})
v.WIDEN[0] = 1.0
check("a stretched range: lo^k and hi^k", abs(lo - 0.81) < 1e-12 and abs(hi - 1.21) < 1e-12, (lo, hi))

# the fit: the mean over sources of each source's mean |error|
pts = v.points()
g = v.GRID["gemm_efficiency"]
o = v.GRID["op_overhead"]
best_a, best_b = (g[10], o[2]), (g[30], o[2])


def errs_for(best, scale):
    return {pt: scale * (abs(pt[0] - best[0]) + abs(pt[1] - best[1]) * 1e3) for pt in pts}


errs = {"a1": errs_for(best_a, 1.0), "b1": errs_for(best_b, 1.0), "b2": errs_for(best_b, 1.0)}
rows = {"A": [{"id": "a1"}], "B": [{"id": "b1"}, {"id": "b2"}]}
fitted = v.fit(rows, errs)
check("the fit lies between two sources that disagree", best_a[0] <= fitted[0] <= best_b[0], fitted)
check("a source left out no longer pulls the fit", v.fit({"B": rows["B"]}, errs) == best_b)
flat = {"f": {pt: 0.05 for pt in pts}}
centre = v.fit({"F": [{"id": "f"}]}, flat)
mid_g = (g[0] + g[-1]) / 2
check("a flat objective keeps the grid's centre", abs(centre[0] - mid_g) <= 0.011, centre)

# identifiability: a parameter the sources leave flat is reported, a pinned optimum is not
pinned = v.unpinned(v.near_optimal({"B": rows["B"]}, errs, best_b))
check("a sharp optimum pins both parameters", pinned == {}, pinned)
flat_o = {"h": {pt: 0.05 + abs(pt[0] - g[20]) for pt in pts}}
free = v.unpinned(v.near_optimal({"H": [{"id": "h"}]}, flat_o, v.fit({"H": [{"id": "h"}]}, flat_o)))
check("an overhead the errors do not depend on is unpinned over its whole grid",
      list(free) == ["op_overhead"] and free["op_overhead"] == (o[0], o[-1]), free)
# the README's sentence: a family's own unpinned value, and a left-out source whose error moves with it
# (one that moves by a point or less, or whose family's own fit is unpinned, is not repeated)
rows_t = [{"id": "v1", "source": "vt"}, {"id": "v2", "source": "vt"}]
text = v.unpinned_text({("fam-a", "vt"): ({"op_overhead": (o[0], o[-1])}, 0.09, 0.32),
                        ("fam-b", "x"): ({"op_overhead": (o[0], o[-1])}, 0.05, 0.052)},
                       {"fam-b": {"op_overhead": (o[0], o[-1])}}, {"v1": 0.08, "v2": -0.10}, rows_t)
check("the README names an unpinned fit and a left-out source's error span",
      "fam-b's sources leave op_overhead unpinned" in text and "without vt, the other fam-a sources" in text and
      "9.0 % at the tie-break, is 9.0 % to 32.0 %" in text and "without x" not in text, text)
check("nothing unpinned, no sentence", v.unpinned_text({}, {}, {}, []) == "")
check("a source's error over the values its refit cannot tell apart",
      v.source_mean_err([{"id": "a1"}], errs, best_a) == 0.0 and
      v.source_mean_err([{"id": "a1"}], errs, best_b) > 0.0)

# intervals: the family's regime, else both regimes, else every source
rows2 = []
ratio = {}
for s in range(3):
    for i in range(5):
        rid = "m%d-%d" % (s, i)
        rows2.append({"id": rid, "source": "s%d" % s, "family": "fam", "regime": "multi"})
        ratio[rid] = 1.0 + 0.05 * s
rows2.append({"id": "x", "source": "t0", "family": "other", "regime": "single"})
ratio["x"] = 2.0
iv = v.pick_interval(rows2, ratio, "fam", "multi")
check("a regime with enough sources keeps its own interval", iv[4] == "multi" and iv[3] == 3, iv)
iv = v.pick_interval(rows2, ratio, "fam", "single")
check("a regime without runs takes both regimes", iv[4] == "both regimes", iv)
iv = v.pick_interval(rows2, ratio, "other", "single")
check("a family of one source takes every source's", iv[4] == "pooled" and iv[1] == 2.0, iv)
iv = v.pick_interval(rows2, ratio, "fam", "multi", exclude="s2")
check("the source under test is left out of its own interval", iv[3] == 2 and iv[1] < 1.1, iv)

# a run its publisher reports as a regression: out of the fit, named in the README beside its source
rows3 = [{"id": "r1", "source": "s", "family": "fam", "regression": ""},
         {"id": "r2", "source": "s", "family": "fam", "regression": "org/repo#1 (2026-01-20): \"2X slower\""},
         {"id": "r3", "source": sorted(v.HELD_OUT)[0], "family": "fam",
          "regression": ""}]
fs = v.fitted_sources(rows3, "fam")
check("the fit leaves out a reported regression and the held-out sources",
      list(fs) == ["s"] and [r["id"] for r in fs["s"]] == ["r1"], fs)
t = [("s", "fam", 1, 0.05, 0.05, 0.06, 0.06, 0, -0.06, 2, 0.12, 2)]
rt = v.readme_table(t, 0.05, 0.06, 0.06, 1.0, 2, 2, 0.9, [], regressed=[("r2", -0.5, "org/repo#1 (2026-01-20)")])
check("the README counts a source's reported regressions apart from its runs",
      "| s | fam | 1 (and 1 reported regressions) | 5.0 % | 6.0 % |" in rt and "| 2 of 2 |" in rt, rt)
check("the README names each reported regression with its error and its report",
      "r2 −50.0 % (org/repo#1 (2026-01-20))" in rt, rt)
t = [("s", "fam", 2, 0.05, 0.05, 0.06, 0.06, 0, -0.06, 2, 0.12, 2)]
rt = v.readme_table(t, 0.05, 0.06, 0.06, 1.0, 2, 2, 0.9, [])
check("no reported regression, no sentence and a plain count",
      "regression" not in rt and "| s | fam | 2 | 5.0 % |" in rt, rt)

# torch._grouped_mm's kernel table: group sizes, the prediction at an efficiency, its fit per generation
row = {"id": "g", "groups": "3", "m_total": "10", "group_rows": ""}
check("a grouped GEMM's unlisted groups split evenly", v.group_sizes(row) == [4, 3, 3], v.group_sizes(row))
row["group_rows"] = "5 4 1"
check("a grouped GEMM's listed groups as listed", v.group_sizes(row) == [5, 4, 1], v.group_sizes(row))
row["group_rows"] = "5 4"
try:
    v.group_sizes(row)
    check("listed groups that do not add up are refused", False)
except SystemExit as e:
    check("listed groups that do not add up are refused", "lists 2 groups of 9 rows, expected 3 of 10" in str(e), e)
check("the grouped prediction: the dense work at the rate, a launch a kernel",
      abs(v.grouped_mm_pred(({}, 1e-3, 3, 4e-6, 0), 0.5) - (2e-3 + 12e-6)) < 1e-15)
made = [({"gpu": gpu, "generation": gen}, w, 3, 4e-6, w / f + 12e-6)
        for gpu, gen, f in (("b200", "blackwell", 0.55), ("h100", "hopper", 0.88)) for w in (1e-3, 5e-3, 2e-2)]
fits = v.grouped_mm_fit(made)
check("the fit recovers each generation's rate from made-up timings",
      fits["blackwell"][0] == 0.55 and fits["hopper"][0] == 0.88 and fits["blackwell"][1] < 1e-9, fits)
check("a figure as the templates command shows it, in SI units",
      abs(v.si_quantity("4 us") - 4e-6) < 1e-18 and v.si_quantity("2.25 PFLOP/s") == 2.25e15 and
      v.si_quantity("0.78") == 0.78)

print("fit: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
