#!/usr/bin/python3
"""The README's figures, generated from the shipped studies, not typed.

Runs the studies the README quotes (inputs/default.csv, dp-vs-hybrid.csv,
network-siif.csv, codesign.csv, tech-scaling.csv, frontier.csv) and the published anchors
(`deepflow eval` with the settings below), the calibration example
(scripts/calibrate_example.py) and renders the README blocks between
"<!-- figures: NAME -->" and "<!-- figures: end NAME -->".  With --write
it rewrites them; without, it fails (exit 1) when the README disagrees with
the tool, saying which block.  Standard library only.

usage: readme_figures.py DEEPFLOW [--write]
"""
import csv
import os
import re
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")


def run(deepflow, table, out):
    p = subprocess.run([deepflow, "run", os.path.join(ROOT, "inputs", table), "-o", out, "--quiet",
                        "--formats", "csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr)
        raise SystemExit("readme_figures: deepflow run %s failed (%d)" % (table, p.returncode))
    with open(os.path.join(out, "summary.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    return rows, p.stdout


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def signed_pct(x):
    """a relative difference in whole percent, without a sign where it rounds to zero"""
    v = round(100 * x)
    return "%+d %%" % v if v else "0 %"


def sp(x):
    return "%.2f×" % x if x < 10 else "%.1f×" % x


def dp_vs_hybrid(rows, stdout):
    def band(s, lo, hi):
        a, b = min(lo, hi, s), max(lo, hi, s)
        if abs(b - a) < 0.005:
            return sp(s)
        return "%s (%s–%s)" % (sp(s), sp(a)[:-1], sp(b)[:-1])

    def same(model, system, devices):
        for r in rows:
            if (r["model"] == model and r["system"] == system and r["devices"] == str(devices) and r["speedup"]
                    and " hybrid (" in r["series"]):
                return band(num(r["speedup"]), num(r["speedup_bcrit_half"]), num(r["speedup_bcrit_double"]))
        return "n/a"

    def best(model, series_part):
        for r in rows:
            if r["model"] == model and series_part in r["series"] and r["speedup_best"]:
                return band(num(r["speedup_best"]), num(r["speedup_best_bcrit_half"]),
                            num(r["speedup_best_bcrit_double"]))
        return "n/a"
    paper = {"Inception-V3": "≥ 1.265×", "GNMT": "≥ 1.08×", "BigLSTM": "≥ 1.22×"}
    out = ["| model | V100, same count (2,048) | V100, best against best | the paper's policy: 2-way | 4-way "
           "| H100, best against best | paper |", "|---|---|---|---|---|---|---|"]
    for m in ("Inception-V3", "GNMT", "BigLSTM"):
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            m, same(m, "DGX-1 V100", 2048), best(m, " hybrid (V100)"), best(m, " 2-way "),
            best(m, " 4-way "), best(m, " hybrid (H100)"), paper[m]))
    def fastest(series):
        ok = [r for r in rows if r["series"] == series and r["status"] == "ok" and r["time_to_train_days"]]
        return min(ok, key=lambda r: num(r["time_to_train_days"])) if ok else None

    def parts(model, series, baseline):
        s, b = fastest("%s %s" % (model, series)), fastest("%s %s" % (model, baseline))
        if not s or not b:
            return "%s n/a" % model
        fewer = num(b["steps"]) * num(b["global_batch"]) / (num(s["steps"]) * num(s["global_batch"]))
        return "%s %.2f × %.2f" % (model, fewer, num(s["samples_per_s"]) / num(b["samples_per_s"]))
    batch = {"Inception-V3": "64", "GNMT": "128", "BigLSTM": "128"}
    out.append("")
    out.append("Where best against best comes from, fewer samples to train × throughput (the Summary's "
               "baseline table): the paper's 4-way policy on V100 — %s; hybrid on H100 — %s." % (
                   ", ".join(parts(m, "4-way %s/worker (V100)" % batch[m], "DP %s/GPU (V100)" % batch[m])
                             for m in ("Inception-V3", "GNMT", "BigLSTM")),
                   ", ".join(parts(m, "hybrid (H100)", "DP-only (H100)") for m in ("Inception-V3", "GNMT", "BigLSTM"))))
    cross = {}
    for m in re.finditer(r"(\S+) hybrid \((V100|H100)\) (beats|never beats) \S+ DP-only \(\w+\)"
                         r"(?: from (\d+) devices on)?", stdout):
        cross[(m.group(1), m.group(2))] = "never" if m.group(3) == "never beats" else "{:,}".format(int(m.group(4)))
    out.append("")
    out.append("Crossovers (hybrid wins from, GPUs): V100 — %s; H100 — %s." % (
        ", ".join("%s %s" % (k, cross.get((k, "V100"), "?")) for k in ("Inception-V3", "GNMT", "BigLSTM")),
        ", ".join("%s %s" % (k, cross.get((k, "H100"), "?")) for k in ("Inception-V3", "GNMT", "BigLSTM"))))
    return "\n".join("  " + l if l else "" for l in out)


def template_values(deepflow, kind, name):
    """a template's keys as `deepflow templates KIND NAME` prints them"""
    p = subprocess.run([deepflow, "templates", kind, name], stdout=subprocess.PIPE, text=True, cwd=ROOT, check=True)
    vals = {}
    for line in p.stdout.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        k, _, v = line.partition(" ")
        vals[k] = v.strip()
    return vals


def gbs(v):
    """'252 GB/s' or '14 GB/s' in GB/s"""
    n, unit = v.split()
    return float(n) * {"GB/s": 1.0, "TB/s": 1e3, "MB/s": 1e-3}[unit]


def link_bandwidth(deepflow, name, pitch_um=None):
    """a link's bandwidth per die, per direction, in GB/s, as the tool works
    it out from its template: the lanes or wires on its die edge
    (net_wire_derive: edge x links per mm x link rate / 2)"""
    t = template_values(deepflow, "networks", name)
    edge = float(t["edge_mm"])
    if not edge:
        return gbs(t["bandwidth"])
    per_mm = int(t["wire.layers"]) * 1000.0 / pitch_um if pitch_um else float(t["links_per_mm"])
    return edge * per_mm * gbs(t["link_bandwidth"]) / 2


def bw_text(v):
    return "%.3g TB/s" % (v / 1e3) if v >= 1000 else "%.0f GB/s" % v


def network_siif(deepflow, rows, breakdown):
    tp = {}
    for r in breakdown:
        if r["component"] == "tp_comm":
            tp[r["scenario"]] = num(r["time_s"])
    bw = {"PCB SerDes": link_bandwidth(deepflow, "pcb"), "Silicon interposer": link_bandwidth(deepflow, "interposer"),
          "Si-IF, 10 um pitch": link_bandwidth(deepflow, "siif", 10),
          "Si-IF, 5 um pitch": link_bandwidth(deepflow, "siif", 5),
          "Silicon Interconnect Fabric": link_bandwidth(deepflow, "siif", 2)}
    bw["PCB SerDes, tp 16"] = bw["PCB SerDes"]
    bw["Silicon interposer, tp 16"] = bw["Silicon interposer"]
    bw["Si-IF, tp 16"] = bw["Silicon Interconnect Fabric"]
    pj = {"PCB SerDes": "5.5 pJ/bit", "Silicon interposer": "0.5 pJ/bit", "PCB SerDes, tp 16": "5.5 pJ/bit",
          "Silicon interposer, tp 16": "0.5 pJ/bit"}
    names = [("PCB SerDes", "PCB SerDes"), ("Silicon interposer", "silicon interposer"),
             ("Si-IF, 10 um pitch", "Si-IF, 10 µm pitch"), ("Si-IF, 5 um pitch", "Si-IF, 5 µm"),
             ("Silicon Interconnect Fabric", "Si-IF, 2 µm"),
             ("PCB SerDes, tp 16", "7B, tp 16: PCB SerDes"), ("Silicon interposer, tp 16", "7B, tp 16: interposer"),
             ("Si-IF, tp 16", "7B, tp 16: Si-IF, 2 µm")]
    out = ["| link | bandwidth per die | energy | TP time per step | time to train | system power | "
           "energy to train |", "|---|---|---|---|---|---|---|"]
    for series, label in names:
        r = next(x for x in rows if x["series"] == series and x["devices"] == "512")
        t = tp.get(r["scenario"], float("nan"))
        usual = "16" if "tp 16" in series else "4"
        out.append("| %s | %s | %s | %.2g s of %.2g s%s | %.1f days | %.0f kW | %.0f MWh |" % (
            label, bw_text(bw[series]), pj.get(series, "0.05 pJ/bit"), t, num(r["step_time_s"]),
            " (tp %s)" % r["tp"] if r["tp"] != usual else "", num(r["time_to_train_days"]),
            num(r["system_power_w"]) / 1e3, num(r["energy_to_train_kwh"]) / 1e3))
    return "\n".join("  " + l for l in out)


def siif_claims(stdout):
    """the tool's own verdict on each claim of the table, from its closing paragraph"""
    claims = re.findall(r"Claim \((.+?)\): (.+?); here (.+?): (holds|does not hold)(?: \((.+?)\))?\.(?= |$)",
                        stdout)
    if not claims:
        raise SystemExit("readme_figures: network-siif.csv: the run checked no claim")
    out = []
    for source, what, value, verdict, why in claims:
        quote = re.search(r'"(.+?)"', source)
        line = "- %s: here %s, %s" % (what, value, "holds" if verdict == "holds" else "**does not hold**")
        if why:
            line += " (%s)" % why
        out.append(line + (" — “%s”" % quote.group(1) if quote else "") + ".")
    wrapped = []
    for l in out:
        wrapped.extend(textwrap.wrap(l, 76, subsequent_indent="  "))
    return "\n".join("  " + l for l in wrapped)


def codesign(rows, stdout, sens):
    def span(series):
        v = sorted(num(r["speedup"]) for r in rows if r["series"] == series and r["speedup"])
        return "%.2f–%.2f×" % (v[0], v[-1]) if v else "n/a"
    gain = dict(re.findall(r"Co-design: (.+?) is ([0-9.]+)x faster than its template's split", stdout))
    points = [int(num(r["codesign_points"])) for r in rows if r["codesign_points"] and r["series"] == "N7 co-designed"]
    out = ["- N7, the generator's standard split: %s the A100's speed;" % span("N7 standard split"),
           "- N7 co-designed: %s (%s× over the standard split; %s to %s design points a row);" % (
               span("N7 co-designed"), gain.get("N7 co-designed", "?"), "{:,}".format(min(points)),
               "{:,}".format(max(points))),
           "- N5 co-designed, the same budgets a node later: %s." % span("N5 co-designed")]
    knobs = []
    for r in sens:
        lo, hi = r["time_to_train_change_minus10"], r["time_to_train_change_plus10"]
        if r["status_minus10"] != "ok" or r["status_plus10"] != "ok":
            side = "−10 %" if r["status_minus10"] != "ok" else "+10 %"
            knobs.append("%s %s: no strategy fits" % (r["parameter"], side))
        elif max(abs(num(lo)), abs(num(hi))) >= 0.01:
            knobs.append("%s %+.1f %% / %+.1f %%" % (r["parameter"], 100 * num(lo), 100 * num(hi)))
    out.append("- What matters for the Summary's answer (the cheapest: the study states no constraint), %s (time to train with each parameter −10 %% / +10 %%): %s." % (
        sens[0]["scenario"] if sens else "?", "; ".join(knobs)))
    return "\n".join(out)


def eval_text(deepflow, args):
    p = subprocess.run([deepflow, "eval"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit("readme_figures: deepflow eval %s failed (%d)" % (" ".join(args), p.returncode))
    return p.stdout


def eval_row(deepflow, args):
    text = eval_text(deepflow, args + ["--format", "csv"])
    return next(csv.DictReader(text.splitlines()))


def days(r):
    return "%s days (%s–%s)" % (g3(num(r["time_to_train_days"])), g3(num(r["time_to_train_days_lo"])),
                                g3(num(r["time_to_train_days_hi"])))


def g3(v):
    return "%.3g" % v


def gwh(r, k=""):
    return "%.3g" % (num(r["energy_to_train_kwh" + k]) / 1e6)


GEMM = ["model=gemm", "model.m=8192", "model.n=8192", "model.k=8192", "devices=1", "system.framework=ideal"]
GPT3_A100 = ["system=dgx-a100-80g", "model=gpt3-175b", "devices=1024", "tp=8", "pp=16", "microbatch=1",
             "global_batch=1536", "recompute=full", "train_tokens=300e9"]
# GPT-3's 1,536-sequence batch is not a multiple of 104 replicas: 1,560 is the nearest one
GPT3_V100 = ["system=dgx-v100", "model=gpt3-175b", "devices=9984", "tp=8", "pp=12", "dp=104", "precision=fp16",
             "zero=1", "recompute=full", "global_batch=1560", "train_tokens=300e9"]
# BLOOM-176B as validation/published/runs.csv has it, on its 366 B tokens
BLOOM = ["system=dgx-a100-80g", "model=gpt", "model.layers=70", "model.hidden=14336", "model.heads=112",
         "model.seq_len=2048", "model.vocab=250880", "devices=384", "tp=4", "pp=12", "microbatch=2",
         "global_batch=2048", "recompute=full", "zero=1", "system.inter.bandwidth=6.25 GB/s", "train_tokens=366e9"]


def anchors(deepflow):
    a = eval_row(deepflow, GPT3_A100)
    hw = num(a["hfu"]) * 312
    gemm = {}
    for s in ("dgx-a100-80g", "dgx-h100", "dgx-b200", "tpu-v4-pod"):
        capped = eval_text(deepflow, ["system=" + s] + GEMM)
        free = eval_text(deepflow, ["system=" + s, "system.device.power.tdp=9000 W"] + GEMM)
        rate = lambda t: num(re.search(r"throughput\s+([0-9.]+) TFLOP/s", t).group(1))
        clock = re.search(r"clock (\d+) % of nominal", capped).group(1)
        gemm[s] = (rate(capped), rate(free), clock)
    f = lambda s, i: "{:,.0f}".format(gemm[s][i])
    v = eval_row(deepflow, GPT3_V100)
    b = eval_row(deepflow, BLOOM)
    return ("Other published anchors, not fitted: Megatron-LM's GPT-3 175B estimate (140\n"
            "TFLOP/s per A100 counting the recompute, 34 days for 300 B tokens on 1,024\n"
            "GPUs): deepflow gives %.1f TFLOP/s (%s, the same counting) and %.1f days with tp 8, pp 16,\n"
            "full recompute. 8192³ bf16 GEMMs on the `ideal` stack: A100 %s TFLOP/s at its 400 W cap (%s\n"
            "uncapped; the best cuBLAS shape measures 271.2), H100 %s at its 700 W cap (%s uncapped;\n"
            "cuBLAS 797.8), B200 %s (%s); TPU v4 %s at its 192 W (compute-bound, %s %% clock).\n"
            "Training energy, not fitted: GPT-3 on about 10,000 V100s (9,984: tp 8, pp 12, dp 104, fp16,\n"
            "ZeRO-1, full recompute, 1,560 sequences a step), %s and %s GWh (%s–%s) predicted against\n"
            "14.8 days and 1,287 MWh published (Patterson et al. 2021); BLOOM-176B on 384 A100s (tp 4,\n"
            "pp 12, microbatch 2, ZeRO-1, 4 × 100 Gb/s per node, 366 B tokens), %s against 118, and\n"
            "%s GWh at the wall (node overhead at its maximum, PUE 1.2) against 433 MWh for the GPUs\n"
            "alone (690 MWh with idle and infrastructure)."
            % (hw, signed_pct(hw / 140 - 1), num(a["time_to_train_days"]), f("dgx-a100-80g", 0), f("dgx-a100-80g", 1),
               f("dgx-h100", 0), f("dgx-h100", 1), f("dgx-b200", 0), f("dgx-b200", 1), f("tpu-v4-pod", 0),
               gemm["tpu-v4-pod"][2], days(v), gwh(v), gwh(v, "_lo"), gwh(v, "_hi"), days(b), gwh(b)))


def tech_scaling(rows):
    def at(series):
        return next(r for r in rows if r["series"].startswith(series + " ") and r["devices"] == "64")
    a, b = at("N12"), at("N2")
    return ("  projected N2: Llama-2-70B's time-to-train on 64 devices falls from {:,.0f}\n"
            "  to {:,.0f} days and its energy to train from {:,.0f} to {:,.0f} MWh.").format(
                num(a["time_to_train_days"]), num(b["time_to_train_days"]), num(a["energy_to_train_kwh"]) / 1e3,
                num(b["energy_to_train_kwh"]) / 1e3)


def frontier(rows):
    out = ["  | scenario | strategy (tp × cp × pp × dp, ep) | time to train | goodput | with failures | MFU | "
           "what limits it |", "  |---|---|---|---|---|---|---|"]
    for r in rows:
        st = "%s × %s × %s × %s" % (r["tp"], r["cp"], r["pp"], r["dp"])
        if r["ep"] not in ("", "1"):
            st += ", ep %s" % r["ep"]
        out.append("  | %s | %s | %.1f days | %.1f %% | %.1f days | %.0f %% | %s |" % (
            r["scenario"], st, num(r["time_to_train_days"]), 100 * num(r["goodput"]),
            num(r["time_to_train_days_failures"]), 100 * num(r["mfu"]), r["bottleneck"]))
    return "\n".join(out)


# Published MoE training throughput (H100, BF16) and what the model predicts
# for the same configuration: Megatron-Core's Mixtral 8x7B figure (Megatron-LM
# MoE README, MCore v0.9: 468 TFLOP/s, 64 GPUs, TP1 PP4 EP8 VP8, GBS 256) and
# DGX Cloud's DeepSeek-V3 run (NVIDIA/dgxc-benchmarking, NeMo 25.04.01: 52.04 s
# a step on 1,024 GPUs, TP2 PP16 EP64 with expert-TP 1, GBS 8192; modelled
# with TP 1, as the model keeps expert-TP = TP and ep within dp).
MIXTRAL = ["system=dgx-h100", "model=mixtral-8x7b", "devices=64", "tp=1", "pp=4", "ep=8", "interleave=8",
           "microbatch=1", "global_batch=256"]
DSV3 = ["system=dgx-h100", "model=deepseek-v3", "devices=1024", "tp=2", "pp=16", "ep=64", "etp=1", "microbatch=1",
        "global_batch=8192", "recompute=auto", "zero=1", "model.mtp_layers=0", "seq_parallel=yes"]


def moe_anchors(deepflow):
    m = eval_row(deepflow, MIXTRAL)
    d = eval_row(deepflow, DSV3)
    tm, td = num(m["model_tflops_per_device"]), num(d["step_time_s"])
    return ("  Mixtral 8x7B on 64 H100s (TP 1, PP 4, EP 8, VP 8, global batch 256): %.0f TFLOP/s per GPU\n"
            "  predicted against 468 measured (%+.1f %% step time); DeepSeek-V3 on 1,024 H100s (TP 2, PP 16,\n"
            "  EP 64, ETP 1, global batch 8,192, bf16): %.1f s a step predicted against 52.04 s measured (%+.0f %%)."
            % (tm, 100 * (468 / tm - 1), td, 100 * (td / 52.04 - 1)))


def recommendation(stdout):
    m = re.search(r"(Recommended for .*?\. The cheapest scenario that meets [^.]*\.)", stdout)
    return m.group(1) if m else "(no recommendation)"


def clock_front(folder):
    """The default study's run-slower front (its clock_front.csv): the point of least energy with the plan."""
    with open(os.path.join(folder, "clock_front.csv"), newline="") as f:
        pts = list(csv.DictReader(f))
    base, best = pts[0], min(pts, key=lambda p: num(p["energy_kwh_plan"]))
    t = num(best["time_s"]) / num(base["time_s"]) - 1
    e = num(best["energy_kwh"]) / num(base["energy_kwh"]) - 1
    ep = num(best["energy_kwh_plan"]) / num(base["energy_kwh"]) - 1
    plan = num(base["energy_kwh_plan"]) / num(base["energy_kwh"]) - 1
    return ("The default study's answer (%s): its clock plan saves %.1f %% at the same time; at a %s W cap it takes "
            "%.0f %% more time for %.1f %% less energy (%.1f %% with the plan)."
            % (base["scenario"], -100 * plan, "{:,.0f}".format(num(best["power_cap_w"])), 100 * t, -100 * e, -100 * ep))


def energy(deepflow, stdout, default_dir):
    """inputs/energy.csv's answer and the published footprints of make validate (scripts/validate.py)."""
    sys.path.insert(0, HERE)
    import validate  # noqa: E402
    m = re.search(r"(Recommended for .*?\. The cheapest scenario that meets [^.]*\.)", stdout)
    out = ["inputs/energy.csv answers: " + (m.group(1) if m else "(no recommendation)"), "",
           clock_front(default_dir), "",
           "Published training footprints (`validation/footprints`, checked by `make validate`; not fitted):", "",
           "| run | figure | deepflow | published | error | gate |", "|---|---|---|---|---|---|"]
    big = lambda v: "{:,.0f}".format(v) if v >= 1000 else g3(v)
    for rid, kind, pred, pub, gate, note in validate.evaluate_footprints(deepflow, ROOT):
        out.append("| %s | %s | %s | %s | %+.1f %% | %s |" % (rid, kind, big(pred), big(pub), 100 * (pred / pub - 1),
                                                              "%.0f %%" % (100 * gate) if gate is not None
                                                              else "not gated: " + note.split(": ", 1)[-1]))
    out += ["", "Clock plans against Perseus (`validation/perseus`: energy saved at an unchanged iteration time, "
            "% of the GPUs' energy; tp 8, pp 8, A100):", "",
            "| configuration | deepflow | Perseus | difference | gate |", "|---|---|---|---|---|"]
    for rid, pred, pub, gate, note in validate.evaluate_perseus(deepflow, ROOT):
        out.append("| %s | %.1f %% | %.1f %% | %+.1f points | %s |" % (
            rid, pred, pub, pred - pub, "%.0f points" % gate if gate is not None else "not gated"))
    return "\n".join(out)


def calibrate(deepflow, tmp):
    """the worked example of deepflow calibrate (scripts/calibrate_example.py)"""
    sys.path.insert(0, HERE)
    import calibrate_example as ce  # noqa: E402
    out = ["| vTrain set | runs fitted / predicted | shipped stack | calibrated | fitted values |",
           "|---|---|---|---|---|"]
    for kind in ("multi", "single"):
        nfit, nheld, e_base, e_cal, fitted = ce.example(deepflow, kind, os.path.join(tmp, "cal"))
        out.append("| %s-node | %d / %d | %.1f %% | %.1f %% | %s |" % (kind, nfit, nheld, 100 * e_base, 100 * e_cal,
                                                                      ", ".join(fitted)))
    return "\n".join(out)


def blocks(deepflow):
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "cal"))
        res["calibrate"] = calibrate(deepflow, tmp)
        rows, out = run(deepflow, "dp-vs-hybrid.csv", os.path.join(tmp, "dvh"))
        res["dp-vs-hybrid"] = dp_vs_hybrid(rows, out)
        rows, out = run(deepflow, "network-siif.csv", os.path.join(tmp, "siif"))
        with open(os.path.join(tmp, "siif", "breakdown.csv"), newline="") as f:
            bd = list(csv.DictReader(f))
        res["network-siif"] = network_siif(deepflow, rows, bd)
        res["siif-claims"] = siif_claims(out)
        rows, out = run(deepflow, "tech-scaling.csv", os.path.join(tmp, "tech"))
        res["tech-scaling"] = tech_scaling(rows)
        res["anchors"] = anchors(deepflow)
        res["moe-anchors"] = moe_anchors(deepflow)
        rows, out = run(deepflow, "frontier.csv", os.path.join(tmp, "frontier"))
        res["frontier"] = frontier(rows)
        rows, out = run(deepflow, "default.csv", os.path.join(tmp, "default"))
        res["recommendation"] = recommendation(out)
        rows, out = run(deepflow, "energy.csv", os.path.join(tmp, "energy"))
        res["energy"] = energy(deepflow, out, os.path.join(tmp, "default"))
        rows, out = run(deepflow, "codesign.csv", os.path.join(tmp, "codesign"))
        with open(os.path.join(tmp, "codesign", "sensitivity.csv"), newline="") as f:
            sens = list(csv.DictReader(f))
        res["codesign"] = codesign(rows, out, sens)
    return res


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    deepflow = os.path.abspath(args[0])
    path = os.path.join(ROOT, "README.md")
    with open(path) as f:
        text = f.read()
    new = text
    bad = []
    res = blocks(deepflow)
    for name, body in res.items():
        begin, end = "<!-- figures: %s -->\n" % name, "<!-- figures: end %s -->" % name
        if begin not in new or end not in new:
            raise SystemExit("readme_figures: README.md has no block '%s'" % name)
        a = new.index(begin) + len(begin)
        b = new.index(end)
        if new[a:b] != body + "\n":
            bad.append(name)
        new = new[:a] + body + "\n" + new[b:]
    if "--write" in args:
        with open(path, "w") as f:
            f.write(new)
        print("readme_figures: wrote %d blocks" % len(res))
        return
    if bad:
        raise SystemExit("readme_figures: README.md disagrees with the tool in: %s (scripts/readme_figures.py "
                         "build/deepflow --write regenerates them)" % ", ".join(bad))
    print("readme_figures: the README's figures match the tool")


if __name__ == "__main__":
    main()
