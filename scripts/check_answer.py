#!/usr/bin/python3
"""scripts/check_answer.py — the executive answer of a deepflow workbook,
read back with openpyxl (Debian's python3-openpyxl; run with
/usr/bin/python3) against the summary.csv written beside it (issue 27):

  * the Summary's answer (cell A4) gives one line per model and amount of
    training: each line is about one model, and every scenario it names
    ("SERIES on N devices") trains that model;
  * every model with an ok row has its line;
  * every system whose ok rows have no cost is named in its model's line
    as having no price, with the key to set;
  * on every row of the Scenarios sheet, HFU >= MFU;
  * the shortlist (where the study states a constraint) lists each model's
    scenarios cheapest first, and the first is the one its answer
    recommends;
  * the printout stays short: the Summary prints its answer, tables and
    charts but not the chart data under them, the Breakdown its best-of-
    series table and chart, the Inputs sheet one page (60 rows), the
    Scenarios sheet at most three pages wide.

usage: check_answer.py WORKBOOK SUMMARY_CSV
Exit 0 when every check passes (one line on stdout saying what was
checked); else the failures on stderr and exit 1.
"""
import csv
import re
import sys
import warnings

warnings.simplefilter("ignore")  # openpyxl: "extension is not supported"
import openpyxl  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[-2])
    wb = openpyxl.load_workbook(sys.argv[1])
    rows = list(csv.DictReader(open(sys.argv[2], newline="")))
    fails = []
    ok_rows = [r for r in rows if r["status"] == "ok" and r["time_to_train_s"]]
    series_model = {r["series"]: r["model"] for r in rows if r["series"]}
    models = []
    for r in ok_rows:
        if r["model"] not in models:
            models.append(r["model"])
    answer = wb["Summary"]["A4"].value or ""
    lines = [l for l in answer.split("\n") if l]
    # the line's model: how it opens ("Recommended for M", "M, with no ...",
    # "M on 15.6 T tokens", "No M scenario"), the longest name that fits
    by_model = {}
    for line in lines:
        head = re.sub(r"^(Recommended for |No )", "", line)
        own = [m for m in models if head.startswith(m)]
        if not own:
            fails.append("answer line names none of the models %s: %.80s" % (models, line))
            continue
        m = max(own, key=len)
        by_model.setdefault(m, []).append(line)
        for s, _ in re.findall(r"([^:.;]+?) on ([0-9]+) devices", line):
            s = s.strip()
            for name in series_model:
                if s.endswith(name) and series_model[name] != m:
                    fails.append("the line of %s names %s, a scenario of %s" % (m, name, series_model[name]))
    for m in models:
        if m not in by_model:
            fails.append("no answer for model %s" % m)
    unpriced = {}
    for r in ok_rows:
        if not r["cost_usd"]:
            unpriced.setdefault(r["model"], set()).add(r["system"])
    for m, systems in unpriced.items():
        named = " | ".join(re.findall(r"\. ([^.]*?) ha(?:s|ve) no price per device-hour \(set "
                                      r"system\.price\.device_hour\)", " ".join(by_model.get(m, []))))
        for s in systems:
            if s not in named:
                fails.append("%s: system %s has no price and the answer does not say so" % (m, s))
    ws = wb["Scenarios"]
    head = [c.value for c in ws[1]]
    mfu, hfu = head.index("Model FLOPs utilisation"), head.index("Hardware FLOPs utilisation")
    checked = 0
    for row in ws.iter_rows(min_row=2, values_only=True):
        a, b = row[mfu], row[hfu]
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            checked += 1
            if b < a:
                fails.append("%s: HFU %.4f below MFU %.4f" % (row[0], b, a))
    summ = wb["Summary"]
    listed = 0
    start = [c.row for c in summ["A"] if isinstance(c.value, str) and c.value.startswith("Shortlist:")]
    if "Recommended for" in answer and not start:
        fails.append("the answer recommends, but the Summary has no shortlist")
    if start:
        head = start[0] + 1
        while summ.cell(head, 1).value != "Series":
            head += 1
        block, r = [], head + 1
        cost_col = [str(c.value).startswith("Cost to train") for c in summ[head]].index(True)
        while summ.cell(r, 1).value:
            name, scen, cost = summ.cell(r, 1).value, summ.cell(r, 2).value, summ.cell(r, cost_col + 1).value
            if scen is None:  # a model's heading
                block = []
            else:
                if block and isinstance(cost, (int, float)) and isinstance(block[-1], (int, float)) \
                        and cost < block[-1]:
                    fails.append("shortlist: %s costs less than the row above it" % scen)
                if not block:
                    series = name
                    if not any(re.search(r"Recommended for [^:]*: " + re.escape(series) + " on ", l) for l in lines):
                        fails.append("shortlist: its first row (%s) is not the answer's recommendation" % scen)
                block.append(cost)
                listed += 1
            r += 1
    area = wb["Summary"].print_area
    data = [c.row for c in wb["Summary"]["A"] if isinstance(c.value, str) and c.value.startswith("Chart data")]
    last = int(re.sub(r".*\$([0-9]+)$", r"\1", area[0])) if area else None
    if data and (last is None or last >= data[0]):
        fail_print = "Summary prints its chart data (print area %s, chart data at row %d)" % (area, data[0])
        fails.append(fail_print)
    if not wb["Breakdown"].print_area:
        fails.append("Breakdown prints its every-scenario tables (no print area)")
    inputs = wb["Inputs"]
    rows_in = int(re.sub(r".*\$([0-9]+)$", r"\1", inputs.print_area[0])) if inputs.print_area else inputs.max_row
    if rows_in > 60:
        fails.append("Inputs prints %d rows (more than a page)" % rows_in)
    if (wb["Scenarios"].page_setup.fitToWidth or 1) > 3:
        fails.append("Scenarios prints %s pages wide" % wb["Scenarios"].page_setup.fitToWidth)
    for f in fails[:20]:
        print("check_answer: %s" % f, file=sys.stderr)
    if fails:
        sys.exit(1)
    print("%d model(s) answered on %d line(s), %d shortlisted, %d unpriced system(s) named, HFU >= MFU on %d "
          "rows" % (len(models), len(lines), listed, sum(len(v) for v in unpriced.values()), checked))


main()
