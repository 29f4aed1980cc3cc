#!/usr/bin/python3
"""scripts/check_xlsx.py — read a deepflow workbook back with openpyxl
(Debian's python3-openpyxl; run with /usr/bin/python3) and check it against
the summary.csv written beside it:

  * the six sheets, in order;
  * Scenarios: human headers (the About glossary names each column's CSV
    name) with units, values equal to summary.csv's (parsed; times and
    energies to train in the unit the header says),
    number formats (% on mfu, hfu, scaling_efficiency; 0.0 on days),
    autofilter, frozen header row and first column, MFU data bars, oom/error
    rows marked, landscape and fit to one page wide;
  * Summary: at least three native charts whose series point at the
    Summary/Scenarios cells that hold the data they plot;
    speedups are formulas with cached values;
  * no formula anywhere except the speedups built from cell references, and
    the given user texts (e.g. "=1+1", "@SUM(A1)") come back as strings;
  * Breakdown has a chart, Errors lists every failed row, Inputs has an
    origin for every parameter, About has the SHA-256 of the table.

usage: check_xlsx.py WORKBOOK SUMMARY_CSV [TABLE_CSV] [--text TEXT]...
Exit 0 when every check passes; else the failures on stderr and exit 1.
"""
import csv
import os
import hashlib
import math
import re
import sys
import warnings

# days: four decimals below 0.1 day, two below 10, one above (xlsx.c rpt_num_format)
DAYS_FORMAT = "[<0.1]0.0000;[<10]0.00;#,##0.0"

warnings.simplefilter("ignore")  # openpyxl: "extension is not supported"
import openpyxl  # noqa: E402

SHEETS = ["Summary", "Scenarios", "Breakdown", "Inputs", "Errors", "About"]
# sheets a run adds when it has them, in this order between Breakdown and
# Inputs: --top K, co-designed rows, an ok row to vary
OPTIONAL = ["Runners-up", "Design", "Sensitivity"]
PCT_COLS = ["mfu", "hfu", "scaling_efficiency"]
FORMULA_OK = re.compile(r"^=\$?[A-Z]{1,3}\$?[0-9]+/\$?[A-Z]{1,3}\$?[0-9]+$")
REF = re.compile(r"^'?(?P<sheet>[^'!]+)'?!\$?(?P<c1>[A-Z]+)\$?(?P<r1>[0-9]+)(:\$?(?P<c2>[A-Z]+)\$?(?P<r2>[0-9]+))?$")

failures = []


def fail(msg):
    failures.append(msg)


def close(a, b, rel=2e-5):
    if a is None or b is None:
        return a is None and b is None
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def num(text):
    if text is None or text == "":
        return None
    return float(text)


def col_index(letters):
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - 64)
    return n


def ref_cells(wb, f):
    """Cells of a chart reference 'Sheet!$B$4:$B$9' as (sheet name, [cells])."""
    m = REF.match(f)
    if not m:
        fail("chart reference %r is not a cell range" % f)
        return None, []
    sheet = m.group("sheet")
    if sheet not in wb.sheetnames:
        fail("chart reference %r names no sheet of the workbook" % f)
        return sheet, []
    ws = wb[sheet]
    c1, r1 = col_index(m.group("c1")), int(m.group("r1"))
    c2 = col_index(m.group("c2")) if m.group("c2") else c1
    r2 = int(m.group("r2")) if m.group("r2") else r1
    return sheet, [ws.cell(row=r, column=c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]


def main(argv):
    args, texts = [], []
    i = 1
    while i < len(argv):
        if argv[i] == "--text" and i + 1 < len(argv):
            texts.append(argv[i + 1])
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    book, summary = args[0], args[1]
    table = args[2] if len(args) > 2 else None

    wb = openpyxl.load_workbook(book)
    cached = openpyxl.load_workbook(book, data_only=True)
    extra = [s for s in wb.sheetnames if s in OPTIONAL]
    if [s for s in wb.sheetnames if s not in OPTIONAL] != SHEETS or \
            extra != [s for s in OPTIONAL if s in extra] or \
            wb.sheetnames != SHEETS[:3] + extra + SHEETS[3:]:
        fail("sheets are %s, expected %s with any of %s after Breakdown" % (wb.sheetnames, SHEETS, OPTIONAL))
        return report()
    check_sensitivity(wb, cached, os.path.join(os.path.dirname(summary), "sensitivity.csv"))

    with open(summary, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
        names = list(rows[0].keys()) if rows else []
    # summary.csv guards text that a spreadsheet would take for a formula
    # with a leading apostrophe (CSV injection); the workbook holds the text
    for r in rows:
        for k, v in r.items():
            if v and len(v) > 1 and v[0] == "'" and v[1] in "=+-@\t\r":
                r[k] = v[1:]
    by_name = {r["scenario"]: r for r in rows}

    # ---- Scenarios: human headers, in summary.csv's order (the About
    # sheet's glossary pairs each with its CSV name); times and energies to
    # train in the study's units
    ws = wb["Scenarios"]
    heads = [c.value for c in ws[1]]
    bare = [re.sub(r" \[.*\]$", "", h or "") for h in heads]
    about_rows = [[c.value for c in r] for r in wb["About"].iter_rows()]
    label = {r[1]: r[0] for r in about_rows if len(r) > 1 and r[1] in names and isinstance(r[0], str)}
    if bare[: len(names)] != [label.get(n, "?") for n in names]:
        fail("Scenarios headers %s do not match summary.csv's %s (labels %s)" % (bare, names, label))
    unit = {n: (re.search(r" \[(.*)\]$", h or "") or [None, ""])[1] for n, h in zip(names, heads)}
    for key, want in (("step_time_s", "s"), ("system_power_w", "W")):
        if unit.get(key) != want:
            fail("Scenarios has no unit [%s] on %s (%r)" % (want, key, unit.get(key)))
    factor = {"days": 1.0, "hours": 24.0, "minutes": 1440.0, "kWh": 1.0, "MWh": 1e-3, "GWh": 1e-6}
    for key in ("time_to_train_days", "energy_to_train_kwh"):
        if unit.get(key) not in factor:
            fail("Scenarios %s shows an unknown unit %r" % (key, unit.get(key)))
    scale = {n: factor.get(unit[n], 1.0) if n.startswith(("time_to_train_days", "energy_to_train_kwh")) else 1.0
             for n in names}
    col = {name: k + 1 for k, name in enumerate(names)}
    if ws.max_row - 1 != len(rows):
        fail("Scenarios has %d rows, summary.csv %d" % (ws.max_row - 1, len(rows)))
    checked = 0
    for r in range(2, ws.max_row + 1):
        name = ws.cell(row=r, column=col["scenario"]).value
        if name not in by_name:
            fail("Scenarios row %d: scenario %r is not in summary.csv" % (r, name))
            continue
        want = by_name[name]
        for key in names:
            cell = ws.cell(row=r, column=col[key])
            v = cell.value
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                if not math.isfinite(v):
                    fail("Scenarios %s%d holds a non-finite number" % (cell.column_letter, r))
                w = num(want[key])
                if not close(float(v), w * scale[key] if w is not None else None):
                    fail("Scenarios %r %s = %r, summary.csv has %r" % (name, key, v, want[key]))
                checked += 1
            elif v is None:
                if want[key] != "":
                    fail("Scenarios %r %s is empty, summary.csv has %r" % (name, key, want[key]))
            elif str(v) != want[key]:
                fail("Scenarios %r %s = %r, summary.csv has %r" % (name, key, v, want[key]))
            if key in PCT_COLS and isinstance(v, (int, float)) and "%" not in cell.number_format:
                fail("Scenarios %s%d (%s) has number format %r, not a percentage"
                     % (cell.column_letter, r, key, cell.number_format))
            if key == "time_to_train_days" and isinstance(v, (int, float)) and cell.number_format != DAYS_FORMAT:
                fail("Scenarios time_to_train_days has number format %r, not %r" % (cell.number_format, DAYS_FORMAT))
    if checked < 3:
        fail("only %d numeric Scenarios cells could be compared with summary.csv" % checked)
    if ws.freeze_panes != "B2":
        fail("Scenarios freeze panes at %r, expected B2 (header row and name column)" % ws.freeze_panes)
    if not ws.auto_filter.ref or not ws.auto_filter.ref.startswith("A1:"):
        fail("Scenarios has no autofilter from A1 (%r)" % ws.auto_filter.ref)
    kinds = [rule.type for cf in ws.conditional_formatting for rule in cf.rules]
    if "dataBar" not in kinds:
        fail("Scenarios has no data bar (MFU)")
    exprs = [f for cf in ws.conditional_formatting for rule in cf.rules for f in (rule.formula or [])]
    if not any('"oom"' in f for f in exprs) or not any('"error"' in f for f in exprs):
        fail("Scenarios marks no oom/error rows (conditional formulas %s)" % exprs)
    for name in SHEETS:
        s = wb[name]
        if s.page_setup.orientation != "landscape":
            fail("%s is not set to print landscape" % name)
        if not s.sheet_properties.pageSetUpPr or not s.sheet_properties.pageSetUpPr.fitToPage:
            fail("%s does not fit to the page width" % name)
    if wb["Scenarios"].print_title_rows != "$1:$1":
        fail("Scenarios does not repeat its header row when printed (%r)" % wb["Scenarios"].print_title_rows)

    # ---- Summary and its charts
    sm = wb["Summary"]
    # the best scenario of each series says when its convergence curve is
    # extrapolated, as summary.csv's convergence column does, and when its
    # batch a device is below what its stack was validated at, as the
    # interval's basis does; its range reads without exponents
    for r in range(1, sm.max_row + 1):
        name, rng = sm.cell(row=r, column=2).value, sm.cell(row=r, column=4).value
        if name in by_name and isinstance(rng, str) and " to " in rng and "convergence" in by_name[name]:
            extra = by_name[name]["convergence"].startswith("extrapolated")
            if extra != ("; curve extrapolated" in rng):
                fail("Summary best %r: range %r, summary.csv convergence %r"
                     % (name, rng, by_name[name]["convergence"]))
            below = "below the" in by_name[name].get("interval_basis", "")
            if below != rng.endswith("; batch below the validated"):
                fail("Summary best %r: range %r, summary.csv interval basis %r"
                     % (name, rng, by_name[name].get("interval_basis")))
            if "e+" in rng.split(";")[0]:
                fail("Summary best %r: range %r has an exponent" % (name, rng))
    # the baseline table: best against best as summary.csv's speedup_best,
    # and the product of its two parts (fewer samples, throughput)
    for r in range(1, sm.max_row + 1):
        if sm.cell(row=r, column=7).value != "Best against best":
            continue
        if sm.cell(row=r, column=9).value != "... from fewer samples":
            fail("Summary's baseline table has no parts of best against best (row %d)" % r)
        for k in range(r + 1, sm.max_row + 1):
            series, bvb = sm.cell(row=k, column=1).value, sm.cell(row=k, column=7).value
            if not series:
                break
            if not isinstance(bvb, (int, float)):
                continue
            want = [num(x["speedup_best"]) for x in rows if x["series"] == series and x["speedup_best"]]
            if not want or not close(bvb, want[0]):
                fail("Summary: %r best against best %r, summary.csv %r" % (series, bvb, want[:1]))
            a, b = sm.cell(row=k, column=9).value, sm.cell(row=k, column=10).value
            if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not close(a * b, bvb, 1e-9):
                fail("Summary: %r best against best %r is not fewer samples %r x throughput %r"
                     % (series, bvb, a, b))
    charts = sm._charts
    if len(charts) < 3:
        fail("Summary has %d charts, expected at least 3" % len(charts))
    for k, ch in enumerate(charts):
        if not ch.series:
            fail("Summary chart %d has no series" % (k + 1))
        for se in ch.series:
            xref = se.xVal.numRef.f if se.xVal is not None and se.xVal.numRef is not None else (
                se.cat.numRef.f if se.cat is not None and se.cat.numRef is not None else None)
            yref = se.yVal.numRef.f if se.yVal is not None else (se.val.numRef.f if se.val is not None else None)
            if not xref or not yref:
                fail("Summary chart %d: a series without x or y references" % (k + 1))
                continue
            xs_sheet, xs = ref_cells(wb, xref)
            ys_sheet, ys = ref_cells(wb, yref)
            if xs_sheet not in ("Summary", "Scenarios") or ys_sheet not in ("Summary", "Scenarios"):
                fail("Summary chart %d points at %s / %s" % (k + 1, xref, yref))
            if len(xs) != len(ys) or not xs:
                fail("Summary chart %d: x %s and y %s differ in length" % (k + 1, xref, yref))
                continue
            scen = None
            for xc, yc in zip(xs, ys):
                if not isinstance(xc.value, (int, float)):
                    fail("Summary chart %d: x cell %s is %r, not a device count" % (k + 1, xc.coordinate, xc.value))
                    continue
                # the scenario of this point: the "Scenario" column of the chart data, same row
                scen = None
                if xs_sheet == "Summary":
                    hr = header_row(sm, xc)
                    for c in range(1, sm.max_column + 1):
                        if sm.cell(row=hr, column=c).value == "Scenario":
                            scen = sm.cell(row=xc.row, column=c).value
                if scen is not None:
                    want = by_name.get(scen)
                    if want is None:
                        fail("Summary chart %d: row %d names scenario %r, not in summary.csv" % (k + 1, xc.row, scen))
                        continue
                    xhead = sm.cell(row=header_row(sm, xc), column=xc.column).value or ""
                    xwant = (num(want["cost_usd"]) if xhead.startswith("Cost to train") else
                             kilo(num(want["system_power_w"])) if xhead.startswith("System power [kW]") else
                             kilo(num(want["energy_to_train_kwh"])) if xhead.startswith("Energy to train [MWh]")
                             else num(want["devices"]))
                    if xwant is None or not close(float(xc.value), xwant):
                        fail("Summary chart %d: %s (%s) = %r, summary.csv has %s"
                             % (k + 1, xc.coordinate, xhead, xc.value, xwant))
                    head = sm.cell(row=header_row(sm, yc), column=yc.column).value or ""
                    expect = expected_value(head, want)
                    if expect is not False and not close(yc.value, expect):
                        fail("Summary chart %d: %s (%s) = %r, summary.csv gives %r"
                             % (k + 1, yc.coordinate, head, yc.value, expect))
            if se.tx is not None and se.tx.strRef is not None:
                _, names_ = ref_cells(wb, se.tx.strRef.f)
                if names_ and scen is not None and names_[0].value != by_name.get(scen, {}).get("series"):
                    fail("Summary chart %d: series name cell %s = %r, not the series of %r"
                         % (k + 1, names_[0].coordinate, names_[0].value, scen))
    speedups = 0
    for row in sm.iter_rows():
        for cell in row:
            if cell.data_type == "f":
                value = cached["Summary"][cell.coordinate].value
                if not isinstance(value, (int, float)):
                    fail("Summary %s: formula %s has no cached value" % (cell.coordinate, cell.value))
                speedups += 1
    if speedups == 0:
        fail("Summary has no speedup formula")
    if not wb["Breakdown"]._charts:
        fail("Breakdown has no chart")

    # ---- no formula from user text, anywhere
    for s in wb.worksheets:
        for row in s.iter_rows():
            for cell in row:
                if cell.data_type == "f" and not FORMULA_OK.match(str(cell.value)):
                    fail("%s!%s is a formula %r (only speedups may be)" % (s.title, cell.coordinate, cell.value))
    for text in texts:
        found = [c for r in wb["Scenarios"].iter_rows() for c in r
                 if isinstance(c.value, str) and text in c.value]
        if not found:
            fail("user text %r is not in Scenarios" % text)
        for c in found:
            if c.data_type != "s":
                fail("Scenarios %s holding %r has type %r, not a string" % (c.coordinate, c.value, c.data_type))

    # ---- Errors, Inputs, About
    failed = [r for r in rows if r["status"] == "error"]
    er = wb["Errors"]
    listed = [er.cell(row=r, column=1).value for r in range(2, er.max_row + 1) if er.cell(row=r, column=5).value]
    if len(listed) != len(failed):
        fail("Errors lists %d rows, summary.csv has %d failed" % (len(listed), len(failed)))
    for r in range(2, er.max_row + 1):
        if listed and not isinstance(er.cell(row=r, column=3).value, (int, float)):
            fail("Errors row %d has no line number" % r)
    inp = wb["Inputs"]
    origins = [inp.cell(row=r, column=4).value for r in range(2, inp.max_row + 1)]
    if not origins or any(not o for o in origins):
        fail("Inputs has parameters without an origin")
    if not any(re.match(r"^.+\.ya?ml:[0-9]+$", o or "") for o in origins):
        fail("Inputs names no template line as an origin")
    if not any(re.match(r"^.+\.csv:[0-9]+:[0-9]+", o or "") for o in origins):
        fail("Inputs names no table cell as an origin")
    about = [c.value for r in wb["About"].iter_rows() for c in r if c.value is not None]
    if table:
        with open(table, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        if digest not in about:
            fail("About does not hold the table's SHA-256 %s" % digest)
    if not any(isinstance(v, str) and v.startswith("deepflow ") for v in about):
        fail("About does not name the tool's version")
    if not any(isinstance(v, str) and v == "mfu" for v in about):
        fail("About has no glossary of the columns")
    return report()


def header_row(ws, cell):
    """Row of the header above a chart-data cell: the nearest row above whose
    first cell is 'Series'."""
    r = cell.row
    while r > 1 and ws.cell(row=r, column=1).value != "Series":
        r -= 1
    return r


def kilo(v):
    """v / 1000, None stays None (W to kW, kWh to MWh)."""
    return None if v is None else v / 1e3


def check_sensitivity(wb, cached, path):
    """The Sensitivity sheet holds sensitivity.csv's knobs and changes, one
    table and one tornado chart per scenario varied (each model's answer)."""
    have_csv = os.path.exists(path)
    if "Sensitivity" not in wb.sheetnames:
        if have_csv:
            fail("sensitivity.csv is written but the workbook has no Sensitivity sheet")
        return
    ws = cached["Sensitivity"]
    rows, inside = [], False
    for r in ws.iter_rows(values_only=True):
        if r[0] == "Parameter":
            inside = True
        elif inside and r[0]:
            rows.append(r)
        else:
            inside = False
    if not have_csv:
        return
    with open(path, newline="", encoding="utf-8") as fh:
        want = list(csv.DictReader(fh))
    if [r[0] for r in rows] != [w["parameter"] for w in want]:
        fail("Sensitivity parameters %s differ from sensitivity.csv's %s" %
             ([r[0] for r in rows], [w["parameter"] for w in want]))
        return
    keys = [k for k in want[0] if k.endswith("minus10") or k.endswith("plus10")]
    keys = [k for k in keys if not k.startswith("status")]
    for r, w in zip(rows, want):
        for col, k in zip((1, 2, 3, 4), keys):
            a, b = r[col], w[k]
            if b == "":
                if a not in (None, ""):
                    fail("Sensitivity %s %s: %r, expected empty" % (r[0], k, a))
            elif a is None or abs(float(a) - float(b)) > 1e-5 * max(1.0, abs(float(b))):
                fail("Sensitivity %s %s: %r, expected %s" % (r[0], k, a, b))
    varied = len(dict.fromkeys(w["scenario"] for w in want))
    # the clock plans' fronts (clock_front.csv): a table and a chart each
    front_path = os.path.join(os.path.dirname(path), "clock_front.csv")
    fronts = []
    if os.path.exists(front_path):
        with open(front_path, newline="", encoding="utf-8") as fh:
            front = list(csv.DictReader(fh))
        fronts = [n for n in dict.fromkeys(f["scenario"] for f in front)
                  if sum(f["scenario"] == n for f in front) > 1]
        table, at = [], None  # the front's table sits beside the tornado's: from its header's column
        for r in ws.iter_rows(values_only=True):
            if "Power cap [W]" in r:
                at = r.index("Power cap [W]")
            elif at is not None and len(r) > at and isinstance(r[at], (int, float)):
                table.append(r[at:])
            else:
                at = None
        close = lambda a, b: abs(a - b) <= 1e-5 * max(1.0, abs(b))
        if len(table) != len(front) or not all(close(float(r[0]), float(f["power_cap_w"]))
                                                for r, f in zip(table, front)):
            fail("Sensitivity's clock-plan tables' power caps %s differ from clock_front.csv's %s" %
                 ([r[0] for r in table], [f["power_cap_w"] for f in front]))
        for r, f in zip(table, front):
            if abs(float(r[1]) - float(f["clock"])) > 1e-5 * max(1.0, abs(float(f["clock"]))):
                fail("Sensitivity's clock-plan clock %r, clock_front.csv %s" % (r[1], f["clock"]))
    if len(wb["Sensitivity"]._charts) != varied + len(fronts):
        fail("Sensitivity has %d charts, expected a tornado for each of the %d scenarios varied and a front "
             "for each of the %d in clock_front.csv" % (len(wb["Sensitivity"]._charts), varied, len(fronts)))


def expected_value(head, want):
    """The summary.csv value a chart-data column should hold, or False."""
    units = {"days": 1.0, "hours": 24.0, "minutes": 1440.0}
    for unit, k in units.items():
        for end, suffix in (("", ""), (", low", "_lo"), (", high", "_hi")):
            if head.startswith("Time to train%s [%s]" % (end, unit)):
                v = num(want["time_to_train_days" + suffix])
                return None if v is None else v * k
    for end, suffix in (("low", "_lo"), ("high", "_hi")):
        if head.startswith("Step time, %s [s]" % end):
            return num(want["step_time_s" + suffix])
    if head.startswith("Step time [s]"):
        return num(want["step_time_s"])
    if head == "Speedup over baseline":
        return num(want["speedup"])
    if head == "MFU":
        return num(want["mfu"])
    if head == "Scaling efficiency":
        return num(want["scaling_efficiency"])
    if head.startswith("System power [kW]"):
        v = num(want["system_power_w"])
        return None if v is None else v / 1000.0
    return False


def report():
    if failures:
        for f in failures:
            print("check_xlsx: " + f, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
