#!/bin/sh
# tests/cli/folder.sh — the report folder as one unit (issue 29), by fault
# injection:
#   - a rerun killed (SIGKILL) at several points: the folder is the old
#     report byte for byte or the new one whole, never a mix, and gnuplot
#     dies with the run;
#   - a file system that fills up during a rerun (a tmpfs where the test may
#     mount one, else a file-size limit): exit 4, the old report kept;
#   - two concurrent runs: one writer at a time (the second waits, or with
#     --no-wait fails), each report whole;
#   - a folder holding the user's files: refused without a manifest, kept
#     with --force and on every rerun, never overwritten silently.
#
#   sh tests/cli/folder.sh build/deepflow
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/suite.sh"
suite_begin folder "$@"
SOURCE_DATE_EPOCH=1700000000
export SOURCE_DATE_EPOCH
T=$(mktemp -d "${TMPDIR:-/tmp}/deepflow-folder.XXXXXX") || exit 2
trap 'umount "$T/disk" 2>/dev/null; rm -rf "$T"' EXIT INT TERM

# the folder's files and their bytes, as one line (names relative)
state() { (cd "$1" 2>/dev/null && find . -type f | LC_ALL=C sort | while read -r f; do printf '%s ' "$f"; cksum <"$f"; done | cksum) || echo absent; }
staged() { find "$T" -maxdepth 1 -name ".$1.deepflow-*" ! -name '*-lock'; }

# two studies whose reports differ in every file
cat >"$T/a.csv" <<'EOF'
scenario,series,system,model,devices,tp,pp,microbatch,global_batch,recompute
s1,Hybrid,dgx-a100-80g,gpt3-175b,64|128|256,8,8,1,1536,selective
s2,Wide,dgx-h100,gpt3-175b,64|128|256,8,4,1,1536,selective
EOF
sed 's/gpt3-175b/llama2-70b/' "$T/a.csv" >"$T/b.csv"
cp "$T/a.csv" "$T/study.csv"

# the reference reports: study.csv as a.csv and as b.csv, each written
# whole by the command the tests run (the About sheet quotes it)
for v in a b; do
    rm -rf "$T/k"
    cp "$T/$v.csv" "$T/study.csv"
    "$DF" run "$T/study.csv" -o "$T/k" -q >/dev/null 2>&1
    mv "$T/k" "$T/ref_$v"
done
old=$(state "$T/ref_a")
new=$(state "$T/ref_b")
[ "$old" != "$new" ] && [ "$old" != absent ] || { bad "the two reference reports"; exit 1; }

# ---- a rerun killed at several points --------------------------------------
# gnuplot slowed down (0.4 s a chart) so that the kills land while the
# report is written; the folder must be old or new, never a mix
cat >"$T/slowplot" <<EOS
#!/bin/sh
echo \$\$ >>"$T/plot.pids"
sleep 0.4
exec $(command -v gnuplot || echo /nonexistent/gnuplot) "\$@"
EOS
chmod +x "$T/slowplot"
mixed=""
seen_old=0
seen_new=0
for d in 0.05 0.3 0.8 1.3 1.8 2.6 4; do
    rm -rf "$T/k"
    cp "$T/a.csv" "$T/study.csv"
    "$DF" run "$T/study.csv" -o "$T/k" -q >/dev/null 2>&1
    cp "$T/b.csv" "$T/study.csv"
    : >"$T/plot.pids"
    DEEPFLOW_GNUPLOT="$T/slowplot" "$DF" run "$T/study.csv" -o "$T/k" -q >/dev/null 2>&1 &
    pid=$!
    sleep "$d"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    sleep 0.3
    s=$(state "$T/k")
    if [ "$s" = "$old" ]; then
        seen_old=$((seen_old + 1))
    elif [ "$s" = "$new" ]; then
        seen_new=$((seen_new + 1))
    else
        mixed="$mixed $d"
    fi
    for p in $(cat "$T/plot.pids"); do
        if kill -0 "$p" 2>/dev/null && ! grep -q '^[^ ]* ([^)]*) Z' "/proc/$p/stat" 2>/dev/null; then
            mixed="$mixed gnuplot-alive@$d"
            kill -9 "$p" 2>/dev/null
        fi
    done
done
[ -z "$mixed" ] && [ "$seen_old" -gt 0 ] &&
    ok "a rerun killed at 7 points: the old report byte for byte ($seen_old) or the new one whole ($seen_new), gnuplot gone with it" ||
    bad "killed reruns: a mix or a live gnuplot at:$mixed (old $seen_old, new $seen_new)"
# the next run sweeps what the killed ones left beside the folder
cp "$T/b.csv" "$T/study.csv"
"$DF" run "$T/study.csv" -o "$T/k" -q >/dev/null 2>"$T/err"
[ -z "$(staged k)" ] && [ "$(state "$T/k")" = "$new" ] && ok "the next run leaves nothing of the killed ones" ||
    { bad "after the kills: left $(staged k)"; cat "$T/err"; }

# ---- a file system that fills up ---------------------------------------------
rm -rf "$T/fill"
cp "$T/a.csv" "$T/study.csv"
mkdir -p "$T/disk"
if mount -t tmpfs -o size=2m tmpfs "$T/disk" 2>/dev/null; then
    "$DF" run "$T/study.csv" -o "$T/disk/r" -q >/dev/null 2>&1
    before=$(state "$T/disk/r")
    # all but 40 KiB taken: the new report cannot be written whole
    free_k=$(df -k "$T/disk" | awk 'NR == 2 { print $4 }')
    dd if=/dev/zero of="$T/disk/filler" bs=1k count=$((free_k - 40)) 2>/dev/null
    cp "$T/b.csv" "$T/study.csv"
    "$DF" run "$T/study.csv" -o "$T/disk/r" -q >/dev/null 2>"$T/err"
    rc=$?
    [ "$rc" = 4 ] && [ "$(state "$T/disk/r")" = "$before" ] && grep -q "No space left on device" "$T/err" &&
        grep -q "nothing of the new report was published" "$T/err" &&
        [ -z "$(find "$T/disk" -maxdepth 1 -name '.r.deepflow-*' ! -name '*-lock')" ] &&
        ok "a file system that fills up: exit 4, the old report byte for byte, nothing left" ||
        { bad "full file system: exit $rc"; cat "$T/err"; }
    umount "$T/disk"
else
    # no tmpfs: a file-size limit makes every write past 16 KiB fail
    "$DF" run "$T/study.csv" -o "$T/fill" -q >/dev/null 2>&1
    before=$(state "$T/fill")
    cp "$T/b.csv" "$T/study.csv"
    (ulimit -f 16 && trap '' XFSZ && exec "$DF" run "$T/study.csv" -o "$T/fill" -q >/dev/null 2>"$T/err")
    rc=$?
    [ "$rc" = 4 ] && [ "$(state "$T/fill")" = "$before" ] && grep -q "nothing of the new report was published" "$T/err" &&
        [ -z "$(staged fill)" ] &&
        ok "writes that fail past 16 KiB: exit 4, the old report byte for byte, nothing left" ||
        { bad "file-size limit: exit $rc"; cat "$T/err"; }
fi

# ---- two concurrent runs -----------------------------------------------------
rm -rf "$T/c"
cp "$T/a.csv" "$T/study.csv"
"$DF" run "$T/study.csv" -o "$T/c" -q >/dev/null 2>&1
whole=$(state "$T/c")
rm -rf "$T/c"
"$DF" run "$T/study.csv" -o "$T/c" -q >/dev/null 2>"$T/c1.err" &
p1=$!
"$DF" run "$T/study.csv" -o "$T/c" -q >/dev/null 2>"$T/c2.err" &
p2=$!
wait "$p1"
r1=$?
wait "$p2"
r2=$?
[ "$r1$r2" = 00 ] && [ "$(state "$T/c")" = "$whole" ] && [ -z "$(staged c)" ] &&
    ok "two concurrent runs: both succeed, one after the other, the report whole" ||
    { bad "concurrent: exits $r1 $r2"; cat "$T/c1.err" "$T/c2.err"; }
if command -v flock >/dev/null 2>&1; then
    flock "$T/.c.deepflow-lock" sleep 3 &
    holder=$!
    sleep 0.5
    "$DF" run "$T/study.csv" -o "$T/c" -q --no-wait >/dev/null 2>"$T/err"
    rc=$?
    [ "$rc" = 4 ] && grep -q "another run is writing $T/c (--no-wait): nothing was run" "$T/err" &&
        [ "$(state "$T/c")" = "$whole" ] && ok "--no-wait while another run writes: exit 4, nothing run" ||
        { bad "--no-wait: exit $rc"; cat "$T/err"; }
    "$DF" run "$T/study.csv" -o "$T/c" -q >/dev/null 2>"$T/err"
    rc=$?
    wait "$holder"
    [ "$rc" = 0 ] && grep -q "another run is writing $T/c; waiting for it to end" "$T/err" &&
        ok "a run that finds the folder locked waits, says so, then writes" || { bad "waiting: exit $rc"; cat "$T/err"; }
else
    echo "skip folder: locked folder (no flock command)"
fi

# ---- the user's files ----------------------------------------------------------
rm -rf "$T/u"
mkdir -p "$T/u/charts" "$T/u/mine/empty"
echo "my design" >"$T/u/design.csv"
echo "my plot" >"$T/u/charts/my_plot.gp"
echo "keep me" >"$T/u/notes.tmp-999999-keep"
"$DF" run "$T/study.csv" -o "$T/u" -q >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 4 ] && grep -q "holds 4 files that no deepflow manifest lists (charts/my_plot.gp, design.csv, mine/empty/, notes.tmp-999999-keep)" "$T/err" &&
    [ ! -e "$T/u/summary.csv" ] && [ "$(cat "$T/u/design.csv")" = "my design" ] &&
    ok "a folder of the user's files and no manifest: refused, exit 4, untouched" || { bad "foreign, unforced: exit $rc"; cat "$T/err"; }
"$DF" run "$T/study.csv" -o "$T/u" -q --force >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 0 ] && [ "$(cat "$T/u/design.csv")" = "my design" ] && [ "$(cat "$T/u/charts/my_plot.gp")" = "my plot" ] &&
    [ "$(cat "$T/u/notes.tmp-999999-keep")" = "keep me" ] && [ -d "$T/u/mine/empty" ] && [ -s "$T/u/summary.csv" ] &&
    grep -q "kept 4 files in $T/u that deepflow did not write" "$T/err" &&
    ok "--force: the report written, every file of the user's kept and said" || { bad "foreign, forced: exit $rc"; cat "$T/err"; }
cp "$T/b.csv" "$T/study.csv"
"$DF" run "$T/study.csv" -o "$T/u" -q >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 0 ] && [ "$(cat "$T/u/design.csv")" = "my design" ] && [ -d "$T/u/mine/empty" ] &&
    [ "$(cat "$T/u/charts/my_plot.gp")" = "my plot" ] && ! grep -q "my_plot.gp" "$T/u/.deepflow-manifest" &&
    ok "a rerun keeps them again (the manifest lists only the report's files)" || { bad "rerun with the user's files: exit $rc"; cat "$T/err"; }
# a file of the user's where the new report writes: refused unless forced
echo "my summary" >"$T/u/runners_up.csv"
"$DF" run "$T/study.csv" -o "$T/u" -q --top 2 >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 4 ] && [ "$(cat "$T/u/runners_up.csv")" = "my summary" ] &&
    grep -q "holds runners_up.csv, which no earlier report wrote and this one would replace" "$T/err" &&
    ok "a file of the user's the report would replace: refused, kept" || { bad "clash: exit $rc"; cat "$T/err"; }

suite_end
