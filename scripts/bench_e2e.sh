#!/bin/sh
# scripts/bench_e2e.sh — what users run, end to end: `deepflow run` on a
# study of 200,000 scenarios in both table shapes, CSV only, on one thread:
#   - sweep: one table line sweeping BERT-Large over 200 device counts x
#     1,000 replica batches;
#   - lines: one scenario per table line (how scripts and notebooks write
#     studies), 200,000 distinct lines over three systems, four models and
#     the strategies that fit the device count;
#   - book: the first 50,000 of those lines with the workbook too, whose
#     per-scenario sheets list every row;
#   - million: 1,000,000 distinct lines of that kind, each with its own
#     training amount (a million questions of model and amount, far more
#     than the report answers).
# Prints rows per CPU-second (user + system) and peak resident memory (GNU
# time), beside the engine's own rate (bench_eval, when given) as a ratio.
# Issue 28's targets: at least 50,000 rows per CPU-second and at most
# 200 MB for the one-per-line shape, at most 300 MB for the million lines.
# Part of make bench (about a minute and a half).
#
#   sh scripts/bench_e2e.sh [build/deepflow] [ENGINE_EVALS_PER_S]
set -u
cd "$(dirname "$0")/.." || exit 2
DF=${1:-build/deepflow}
ENGINE=${2:-}
[ -x "$DF" ] || { echo "bench_e2e: $DF is not built (make)"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_e2e: skipped: GNU time is not installed (apt-get install time)"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/deepflow-bench-e2e.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
N=200000
cat >"$T/sweep.csv" <<'CSV'
# title: 200,000 BERT-Large scenarios from one sweep
scenario,system,model,devices,tp,pp,microbatch,replica_batch,train_samples
b,dgx-a100-80g,bert-large,8..1600+8,1,1,1,1..1000+1,1e8
CSV
lines() { # lines N TITLE AMOUNTS: N distinct lines; AMOUNTS > 0 cycles the amounts over that many, < 0 gives each line its own
    awk -v n="$1" -v title="$2" -v amounts="$3" 'BEGIN {
    print "# title: " title
    print "scenario,system,model,devices,tp,pp,microbatch,global_batch,precision,train_samples"
    split("dgx-a100-80g dgx-h100 dgx-b200", sys, " ")
    split("gpt3-175b llama2-70b llama2-7b bert-large", mod, " ")
    i = 0
    for (rep = 0; i < n; rep++)
        for (k = 3; k < 14 && i < n; k++)
            for (s = 1; s <= 3 && i < n; s++)
                for (m = 1; m <= 4 && i < n; m++)
                    for (tp = 1; tp <= 8 && i < n; tp *= 2)
                        for (pp = 1; pp <= 8 && i < n; pp *= 2)
                            for (mb = 1; mb <= 2 && i < n; mb++)
                                if (tp * pp <= 2 ^ k) {
                                    printf "r%d,%s,%s,%d,%d,%d,%d,16384,bf16,%d\n", i, sys[s], mod[m], 2 ^ k, tp, pp, mb, 100000000 + (amounts > 0 ? i % amounts : amounts < 0 ? i : rep)
                                    i++
                                }
}'
}
lines "$N" "200,000 scenarios, one per line" 0 >"$T/lines.csv"
lines 1000000 "1,000,000 scenarios, one per line, each its own question" -1 >"$T/million.csv"
DEEPFLOW_TEMPLATES=$(pwd)/templates
export DEEPFLOW_TEMPLATES
DF=$(cd "$(dirname "$DF")" && pwd)/$(basename "$DF")
head -n 50002 "$T/lines.csv" | sed 's/^# title: 200,000/# title: 50,000/' >"$T/book.csv"
status=0
for shape in sweep lines book million; do
    formats=csv
    [ "$shape" = book ] && formats=csv,xlsx
    (cd "$T" && /usr/bin/time -f '%M %U %S %e' -o "$shape.time" "$DF" run "$shape.csv" -o "$shape" -q -f "$formats" -j 1 \
        >"$shape.out" 2>"$shape.err")
    st=$?
    if [ "$st" -gt 1 ]; then
        echo "bench_e2e: $shape: the run failed (exit $st)"
        head -n 5 "$T/$shape.err"
        status=1
        continue
    fi
    read -r kb user sys wall <"$T/$shape.time"
    rows=$(($(wc -l <"$T/$shape/summary.csv") - 1))
    awk -v shape="$shape" -v rows="$rows" -v kb="$kb" -v u="$user" -v s="$sys" -v w="$wall" -v eng="$ENGINE" 'BEGIN {
        cpu = u + s; rate = rows / (cpu > 0 ? cpu : 1e-9)
        printf "bench_e2e: %-5s %d rows (%s), %.1f CPU-s (%.1f s wall): %.1f k rows per CPU-second, peak RSS %d MB", shape, rows, shape == "book" ? "csv and the workbook listing every row" : "csv", cpu, w, rate / 1000, kb / 1024
        if (eng != "") printf "; the engine alone %.0f k evaluations/s: end to end is %.1fx below it", eng / 1000, eng / rate
        printf "\n"
    }'
done
exit $status
