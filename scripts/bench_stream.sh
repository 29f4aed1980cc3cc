#!/bin/sh
# scripts/bench_stream.sh — a million-scenario study in flat memory: one
# table line sweeping BERT-Large over 1,000 device counts x 1,000 replica
# batches (1,000,000 scenarios, the runner's limit), the whole report
# (CSVs and workbook; charts need gnuplot and are left out to time the
# model and the writers), peak resident memory from GNU time.  Issue 13's
# target: under 200 MB.  Part of make bench (about 3 minutes here).
#
#   sh scripts/bench_stream.sh [build/deepflow]
set -u
cd "$(dirname "$0")/.." || exit 2
DF=${1:-build/deepflow}
[ -x "$DF" ] || { echo "bench_stream: $DF is not built (make)"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_stream: skipped: GNU time is not installed (apt-get install time)"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/deepflow-bench-stream.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
cat >"$T/million.csv" <<'CSV'
# title: 1,000,000 BERT-Large scenarios
scenario,system,model,devices,tp,pp,microbatch,replica_batch,train_samples
b,dgx-a100-80g,bert-large,8..8000+8,1,1,1,1..1000+1,1e8
CSV
DEEPFLOW_TEMPLATES=$(pwd)/templates
export DEEPFLOW_TEMPLATES
DF=$(cd "$(dirname "$DF")" && pwd)/$(basename "$DF")
(cd "$T" && /usr/bin/time -f '%M %e' -o time.txt "$DF" run million.csv -o out -q -f csv,xlsx >run.out 2>run.err)
st=$?
if [ "$st" -ne 0 ]; then
    echo "bench_stream: the run failed (exit $st)"
    head -n 5 "$T/run.err"
    exit 1
fi
read -r kb secs <"$T/time.txt"
rows=$(($(wc -l <"$T/out/summary.csv") - 1))
mb=$((kb / 1024))
verdict="meets the 200 MB target"
[ "$mb" -lt 200 ] || verdict="MISSES the 200 MB target"
printf 'bench_stream: %d scenarios reported (csv, xlsx) in %.0f s, peak RSS %d MB: %s\n' "$rows" "$secs" "$mb" \
    "$verdict"
[ "$rows" -eq 1000000 ] && [ "$mb" -lt 200 ]
