#!/bin/sh
# tests/cli/report.sh — the report end to end: a small scenario table (with
# user text that looks like formulas, an out-of-memory series and failed
# rows) through `deepflow run` into a temporary folder, then
#   - the workbook read back by scripts/check_xlsx.py (openpyxl);
#   - the gnuplot charts: .dat and .gp for each, PNG and SVG rendered and
#     non-empty, the .gp re-runnable from the charts folder;
#   - byte-identical workbook, CSVs, .dat and .gp on a second run with the
#     same SOURCE_DATE_EPOCH; no temporary file left;
#   - --formats honoured and checked; no gnuplot: a note, .dat and .gp only;
#   - an output that cannot be written: exit status 4.
#
#   sh tests/cli/report.sh build/deepflow
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/suite.sh"
suite_begin report "$@"
suite_tmp

cat >"$T/study.csv" <<'EOF'
# title: Report test: hybrid against DP only
scenario,series,system,model,devices,tp,pp,microbatch,global_batch,recompute
dp,DP only,dgx-a100-80g,gpt3-175b,64|128,1,1,1,,full
hy,Hybrid_tp8,dgx-a100-80g,gpt3-175b,64|128|256,8,8,1,1536,selective
=1+1,@SUM(A1),dgx-h100,gpt3-175b,128|256,8,8,1,1536,selective
-neg,+plus,dgx-h100,gpt3-175b,512,8,16,1,1536,selective
bad,Hybrid_tp8,dgx-a100-80g,gpt3-175b,100,8,8,1,1536,selective
EOF

OUT=$T/out
export SOURCE_DATE_EPOCH=1700000000
"$DF" run "$T/study.csv" -o "$OUT" -q >"$T/stdout" 2>"$T/stderr"
rc=$?
[ "$rc" = 1 ] && ok "exit status 1 with a failed row" || bad "exit status $rc, expected 1"
grep -Eq "study.csv: 9 scenarios: [0-9]+ ok, [0-9]+ out of memory, 1 failed\." "$T/stdout" &&
    grep -q "Report in $OUT/: study.xlsx, summary.csv, breakdown.csv, sensitivity.csv, clock_front.csv, charts/" "$T/stdout" &&
    ok "closing paragraph" || { bad "closing paragraph"; cat "$T/stdout"; }
[ "$(wc -l <"$T/stdout")" -eq 1 ] && ok "one paragraph on stdout" || bad "stdout has $(wc -l <"$T/stdout") lines"

# the workbook, read back
if /usr/bin/python3 -c "import openpyxl" 2>/dev/null; then
    if /usr/bin/python3 scripts/check_xlsx.py "$OUT/study.xlsx" "$OUT/summary.csv" "$T/study.csv" \
        --text "=1+1" --text "@SUM(A1)" --text "-neg" --text "+plus"; then
        ok "workbook (check_xlsx.py)"
    else
        bad "workbook (check_xlsx.py)"
    fi
else
    echo "skip report: workbook check (no python3-openpyxl; scripts/install-deps.sh installs it)"
fi

# the charts
C=$OUT/charts
miss=""
for c in time_to_train efficiency power breakdown; do
    for e in dat gp; do
        [ -s "$C/$c.$e" ] || miss="$miss $c.$e"
    done
done
[ -z "$miss" ] && ok ".dat and .gp for every chart" || bad "missing:$miss"
grep -q "^# series Hybrid_tp8$" "$C/time_to_train.dat" && grep -q "^# series @SUM(A1)$" "$C/time_to_train.dat" &&
    ok ".dat blocks per series" || bad ".dat has no '# series' blocks"
g=1
for c in time_to_train efficiency power; do
    grep -q "set logscale x 2" "$C/$c.gp" || g=0
    grep -q "noenhanced" "$C/$c.gp" || g=0
    grep -q "set xlabel 'devices'" "$C/$c.gp" || g=0
    grep -q "'$c.dat' index" "$C/$c.gp" || g=0
done
grep -q "title 'Hybrid_tp8'" "$C/time_to_train.gp" || g=0
[ $g = 1 ] && ok ".gp: log-2 axis, noenhanced, labels, relative .dat" || bad ".gp settings"
if command -v gnuplot >/dev/null 2>&1; then
    r=1
    for c in time_to_train efficiency power breakdown; do
        [ -s "$C/$c.png" ] && [ -s "$C/$c.svg" ] || r=0
        [ "$(head -c 4 "$C/$c.png" | od -An -c | tr -d ' \n')" = "211PNG" ] || r=0
        grep -q "<svg" "$C/$c.svg" || r=0
    done
    [ $r = 1 ] && ok "PNG and SVG rendered" || bad "PNG/SVG missing or empty"
    # a user edits and re-runs a .gp from the charts folder
    cp -r "$C" "$T/edit"
    if (cd "$T/edit" && rm -f power.png power.svg && sed -i "s/^set title .*/set title 'edited'/" power.gp &&
        gnuplot power.gp 2>/dev/null && [ -s power.png ] && [ -s power.svg ]); then
        ok "a .gp re-runs from its folder"
    else
        bad "a .gp does not re-run from its folder"
    fi
else
    echo "skip report: rendering (no gnuplot)"
fi
left=$(find "$OUT" -name '*.tmp-*' -o -name '.tmp-*')
[ -z "$left" ] && ok "no temporary file left" || bad "temporary files left: $left"

# determinism: same inputs and SOURCE_DATE_EPOCH -> same bytes
cp -r "$OUT" "$T/first"
sleep 1
"$DF" run "$T/study.csv" -o "$OUT" -q >/dev/null 2>&1
d=""
for f in study.xlsx summary.csv breakdown.csv charts/time_to_train.dat charts/time_to_train.gp \
    charts/efficiency.dat charts/efficiency.gp charts/power.dat charts/power.gp charts/breakdown.dat \
    charts/breakdown.gp; do
    cmp -s "$OUT/$f" "$T/first/$f" || d="$d $f"
done
[ -z "$d" ] && ok "byte-identical on a second run" || bad "differs on a second run:$d"
# without SOURCE_DATE_EPOCH the date is the table's: still the same bytes
unset SOURCE_DATE_EPOCH
"$DF" run "$T/study.csv" -o "$T/m1" -q --formats xlsx >/dev/null 2>&1
mv "$T/m1/study.xlsx" "$T/m1.xlsx"
sleep 1
"$DF" run "$T/study.csv" -o "$T/m1" -q --formats xlsx >/dev/null 2>&1
cmp -s "$T/m1/study.xlsx" "$T/m1.xlsx" && ok "date from the table's mtime, not the clock" ||
    bad "workbook depends on the clock"

# --formats
"$DF" run "$T/study.csv" -o "$T/csvonly" -q --formats csv >/dev/null 2>&1
[ -f "$T/csvonly/summary.csv" ] && [ ! -e "$T/csvonly/study.xlsx" ] && [ ! -e "$T/csvonly/charts" ] &&
    ok "--formats csv writes the CSVs only" || bad "--formats csv"
"$DF" run "$T/study.csv" -o "$T/svg" -q --formats xlsx,svg >/dev/null 2>&1
[ -f "$T/svg/study.xlsx" ] && [ ! -e "$T/svg/summary.csv" ] && [ ! -e "$T/svg/charts/power.png" ] &&
    { ! command -v gnuplot >/dev/null 2>&1 || [ -s "$T/svg/charts/power.svg" ]; } &&
    ok "--formats xlsx,svg" || bad "--formats xlsx,svg"
"$DF" run "$T/study.csv" -o "$T/x" -q --formats xlsx,pdf >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 2 ] && grep -q "unknown format 'pdf'" "$T/err" && ok "--formats with an unknown format: exit 2" ||
    bad "--formats xlsx,pdf: exit $rc"

# no gnuplot: a note, the .dat and .gp, no image
DEEPFLOW_GNUPLOT=/nonexistent/gnuplot "$DF" run "$T/study.csv" -o "$T/nognu" -q >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 1 ] && [ "$(grep -c "gnuplot was not found" "$T/err")" = 1 ] && [ -s "$T/nognu/charts/power.gp" ] &&
    [ ! -e "$T/nognu/charts/power.png" ] && [ -s "$T/nognu/study.xlsx" ] &&
    ok "without gnuplot: one note, .dat and .gp" || { bad "without gnuplot (exit $rc)"; cat "$T/err"; }

# a gnuplot that exits 0 but leaves a cut image (as on a full disk): the
# image is not committed, nothing claims it was rendered
cat >"$T/cutplot" <<'EOS'
#!/bin/sh
prefix=$(printf '%s\n' "$2" | sed -n "s/.*outprefix='\([^']*\)'.*/\1/p")
base=${3%.gp}
printf '\211PNG\r\n\032\n\0\0\0\rIHDR' >"$prefix$base.png"
printf '<svg xmlns="http://www.w3.org/2000/svg">\n<g>\n' >"$prefix$base.svg"
exit 0
EOS
chmod +x "$T/cutplot"
DEEPFLOW_GNUPLOT="$T/cutplot" "$DF" run "$T/study.csv" -o "$T/cut" >"$T/cut.out" 2>"$T/err"
rc=$?
left=$(find "$T" -maxdepth 1 -name '.cut.deepflow-*' ! -name '*-lock')
[ "$rc" = 4 ] && grep -q "gnuplot left an incomplete image" "$T/err" && [ ! -e "$T/cut" ] &&
    grep -q "nothing of the new report was published" "$T/err" && [ -z "$left" ] && ! grep -q "rendered" "$T/cut.out" &&
    ok "a cut image (full disk): exit 4, nothing published, nothing claimed" ||
    { bad "cut image: exit $rc, left '$left'"; cat "$T/err" "$T/cut.out"; }

# a rerun leaves no chart files of the earlier run: none when no row gives
# a chart, no PNG when only SVG is asked for
if command -v gnuplot >/dev/null 2>&1; then
    "$DF" run "$T/study.csv" -o "$T/rerun" -q >/dev/null 2>&1
    "$DF" run "$T/study.csv" -o "$T/rerun" -q --formats xlsx,svg >/dev/null 2>&1
    [ -s "$T/rerun/charts/power.svg" ] && [ ! -e "$T/rerun/charts/power.png" ] &&
        ok "a rerun with SVG only leaves no earlier PNG" || bad "earlier PNG left: $(ls "$T/rerun/charts")"
    printf 'scenario,system,model,devices\nnone,dgx-h100,gpt3-175b,7\n' >"$T/rerun.csv"
    "$DF" run "$T/rerun.csv" -o "$T/rerun" -q >/dev/null 2>&1
    [ -z "$(ls "$T/rerun/charts" 2>/dev/null)" ] && ok "a rerun with no chart leaves none of the earlier ones" ||
        bad "earlier charts left: $(ls "$T/rerun/charts")"
fi

# concurrent runs into one folder: every temporary is unique, so all end
# as a lone run does (exit 1, for the study's failed row)
pids=""
for i in 1 2 3; do
    "$DF" run "$T/study.csv" -o "$T/conc" -q >/dev/null 2>"$T/conc.err$i" &
    pids="$pids $!"
done
crc=""
for p in $pids; do
    wait "$p"
    crc="$crc$?"
done
[ "$crc" = 111 ] && [ -z "$(find "$T/conc" -name '.tmp-*')" ] && ok "three concurrent runs into one folder" ||
    { bad "concurrent runs: exits $crc"; cat "$T"/conc.err*; }

# what killed runs left beside a report folder (their staging folders) is
# removed by the next run into it, a live run's is not; files in the
# report folder that look like temporaries are the user's and are kept
"$DF" run "$T/study.csv" -o "$T/stale" -q --formats xlsx,csv >/dev/null 2>&1
mkdir -p "$T/.stale.deepflow-2147483646-AbCdEf/charts"
: >"$T/.stale.deepflow-2147483646-AbCdEf/summary.csv"
: >"$T/.stale.deepflow-2147483646-AbCdEf/charts/.tmp-render-2147483646-power.png"
sleep 30 &
live=$!
mkdir -p "$T/.stale.deepflow-$live-XyZzYx"
echo "my notes" >"$T/stale/notes.tmp-999999-keep"
"$DF" run "$T/study.csv" -o "$T/stale" -q --formats xlsx,csv >/dev/null 2>"$T/err"
kill "$live" 2>/dev/null
[ ! -e "$T/.stale.deepflow-2147483646-AbCdEf" ] && [ -d "$T/.stale.deepflow-$live-XyZzYx" ] &&
    [ "$(cat "$T/stale/notes.tmp-999999-keep")" = "my notes" ] &&
    grep -q "removed 1 unfinished report beside $T/stale that an interrupted run left" "$T/err" &&
    grep -q "kept 1 file in $T/stale that deepflow did not write: notes.tmp-999999-keep" "$T/err" &&
    ok "a killed run's staging folder is removed, a live run's kept, the user's file kept" ||
    { bad "stale staging folders"; ls -a "$T" "$T/stale"; cat "$T/err"; }
rm -rf "$T/.stale.deepflow-$live-XyZzYx"

# a run killed while writing its report leaves the previous report whole:
# its files went to a staging folder beside it, which the next run removes
"$DF" run "$T/study.csv" -o "$T/unit" -q --formats xlsx,csv >/dev/null 2>&1
before=$(cd "$T/unit" && cat .deepflow-manifest summary.csv study.xlsx | cksum)
mkdir -p "$T/.unit.deepflow-2147483646-QwErTy/charts"
echo "half of a new summary" >"$T/.unit.deepflow-2147483646-QwErTy/summary.csv"
"$DF" run "$T/study.csv" -o "$T/unit" -q --formats xlsx,csv >/dev/null 2>"$T/err"
[ ! -e "$T/.unit.deepflow-2147483646-QwErTy" ] &&
    grep -q "removed 1 unfinished report beside $T/unit that an interrupted run left" "$T/err" &&
    [ "$(cd "$T/unit" && cat .deepflow-manifest summary.csv study.xlsx | cksum)" = "$before" ] &&
    ok "a killed run's staging folder leaves the report whole and is removed" ||
    { bad "staging folder"; ls -a "$T" "$T/unit"; cat "$T/err"; }

# a table named '...csv' would write its report to reports/..: refused
mkdir -p "$T/dots"
cp "$T/study.csv" "$T/dots/...csv"
(cd "$T/dots" && "$DF" run ...csv -q -t "$ROOT/templates" >/dev/null 2>"$T/err")
rc=$?
[ "$rc" = 2 ] && grep -q "the table's file name '...csv' gives no report name" "$T/err" &&
    [ ! -e "$T/dots/reports" ] && [ ! -e "$T/summary.csv" ] && ok "a table named '...csv': exit 2, nothing written" ||
    bad "table '...csv': exit $rc"

# an output that cannot be written: exit 4, nothing half-written
: >"$T/file"
"$DF" run "$T/study.csv" -o "$T/file/sub" -q >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 4 ] && ok "unwritable output: exit 4" || bad "unwritable output: exit $rc, expected 4"
mkdir -p "$T/ro/study.xlsx"   # the user's folder where the workbook would go
"$DF" run "$T/study.csv" -o "$T/ro" -q --formats xlsx >/dev/null 2>"$T/err"
rc=$?
left=$(find "$T" -maxdepth 1 -name '.ro.deepflow-*' ! -name '*-lock')
[ "$rc" = 4 ] && [ -z "$left" ] && [ -d "$T/ro/study.xlsx" ] &&
    grep -q "holds 1 file that no deepflow manifest lists (study.xlsx/)" "$T/err" &&
    ok "a folder of the user's where the workbook would go: exit 4, kept, nothing left" ||
    { bad "workbook over a folder: exit $rc, left '$left'"; cat "$T/err"; }

# a full disk (a 4 KiB tmpfs; needs root, else skipped): one message of
# ours with the system's reason, none of libxlsxwriter's own lines
mkdir -p "$T/full"
if mount -t tmpfs -o size=4k tmpfs "$T/full" 2>/dev/null; then
    "$DF" run "$T/study.csv" -o "$T/full/r" -q --formats xlsx >/dev/null 2>"$T/err"
    rc=$?
    [ "$rc" = 4 ] && ! grep -q '\[ERROR\]' "$T/err" && grep -q "No space left on device" "$T/err" &&
        [ -z "$(find "$T/full" -name '*.tmp-*')" ] &&
        ok "full disk: exit 4, the system's reason, no library noise, no temporary" ||
        { bad "full disk: exit $rc"; cat "$T/err"; }
    umount "$T/full"
else
    echo "skip report: full disk (mounting a tmpfs needs root)"
fi

suite_end
