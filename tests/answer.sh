#!/bin/sh
# tests/answer.sh BIN — the executive answer of every shipped study, and of
# tests/cli/tables/answers.csv (two models, one trained on two amounts, a
# budget an unpriced rack-scale system cannot be held to, a power budget
# the largest rows exceed), read back from the workbook by
# scripts/check_answer.py (issue 27): one answer per model and amount of
# training, no scenario of another model in it, every unpriced system
# named with the key to set, HFU >= MFU on every row.  One line per study;
# "answer: N passed, M failed".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/suite.sh"
suite_begin answer "$@"
suite_tmp
for t in inputs/*.csv tests/cli/tables/answers.csv; do
    name=$(basename "$t" .csv)
    "$DF" run "$t" -o "$T/$name" --quiet --formats csv,xlsx >"$T/$name.out" 2>&1
    if [ ! -f "$T/$name/$name.xlsx" ]; then
        bad "$t: no workbook ($(head -c 300 "$T/$name.out"))"
    elif msg=$(/usr/bin/python3 scripts/check_answer.py "$T/$name/$name.xlsx" "$T/$name/summary.csv" 2>&1); then
        ok "$t: $msg"
    else
        bad "$t: $msg"
    fi
done
suite_end
