#!/bin/sh
# tests/ceiling.sh BIN — no shipped study reports an MFU above the highest
# a published run has measured on its device generation and precision
# (validation/published/mfu_ceilings.csv, written by make validate's fit
# in the model's own FLOP counting; issue 24).  A precision whose runs on
# that generation come from fewer sources (the file's `sources` column)
# than scripts/validate.py's CEILING_SOURCES (one publisher's few large
# models bound those runs, not the generation), or that has no published
# run there, is held to the highest ceiling of that precision on any
# generation.  One line per study;
# "ceiling: N passed, M failed".
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
cd "$(dirname "$0")/.." || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# system name -> device generation, from the templates
for s in $("$bin" templates systems | sed -n 's/^  //p'); do
    "$bin" templates systems "$s" | awk '$1 == "name" { $1 = ""; sub(/^ +/, ""); n = $0 }
        $1 == "device.generation" { g = $2 } END { print n "\t" g }'
done >"$out/generations.tsv"
passed=0
failed=0
for t in inputs/*.csv; do
    name=$(basename "$t" .csv)
    "$bin" run "$t" -o "$out/$name" --quiet --formats csv >/dev/null 2>&1
    if [ ! -f "$out/$name/summary.csv" ]; then
        echo "not ok ceiling: $t wrote no summary.csv"
        failed=$((failed + 1))
        continue
    fi
    if msg=$(/usr/bin/python3 - "$out/$name/summary.csv" "$out/generations.tsv" validation/published/mfu_ceilings.csv <<'PY'
import csv, sys
sys.path.insert(0, "scripts")
from validate import CEILING_SOURCES  # the rule's one home: validate.py writes the file by it
gen = dict(line.rstrip("\n").split("\t") for line in open(sys.argv[2]) if "\t" in line)
ceil, best = {}, {}
for r in csv.DictReader(l for l in open(sys.argv[3]) if not l.startswith("#")):
    if int(r["sources"]) >= CEILING_SOURCES:
        ceil[(r["generation"], r["precision"])] = (float(r["mfu"]), r["run"])
    if float(r["mfu"]) > best.get(r["precision"], (0, ""))[0]:
        best[r["precision"]] = (float(r["mfu"]), r["run"])
bad, n, top = [], 0, 0.0
for r in csv.DictReader(open(sys.argv[1])):
    if not r["mfu"]:
        continue
    g = gen.get(r["system"], "")
    c = ceil.get((g, r["precision"])) or best.get(r["precision"])
    if c is None:
        bad.append("%s: no published %s run to bound it" % (r["scenario"], r["precision"]))
        continue
    n += 1
    top = max(top, float(r["mfu"]))
    if float(r["mfu"]) > c[0]:
        bad.append("%s (%s, %s %s): MFU %.1f %% above the published %.1f %% (%s)" %
                   (r["scenario"], r["system"], g, r["precision"], 100 * float(r["mfu"]), 100 * c[0], c[1]))
if bad:
    print("; ".join(bad[:5]) + (" and %d more" % (len(bad) - 5) if len(bad) > 5 else ""))
    sys.exit(1)
print("%d rows, highest MFU %.1f %%" % (n, 100 * top))
PY
    ); then
        echo "ok   ceiling: $t: $msg"
        passed=$((passed + 1))
    else
        echo "not ok ceiling: $t: $msg"
        failed=$((failed + 1))
    fi
done
echo "ceiling: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
