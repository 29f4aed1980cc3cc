#!/bin/sh
# scripts/bench_mpi.sh — the speed-up of `mpirun -np 2` over `-np 1` on a
# large sweep (396 scenarios whose strategies are searched: rows that
# differ in cost by 100x), one thread per rank, CSV outputs only, and that
# both reports are byte-identical.  Part of make bench; skipped, with a
# line that says so, where OpenMPI is not installed.
#
#   sh scripts/bench_mpi.sh
set -u
cd "$(dirname "$0")/.." || exit 2
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    echo "bench_mpi: skipped: OpenMPI is not installed (sh scripts/install-deps.sh --mpi)"
    exit 0
fi
make -s MPI=1 >/dev/null || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/deepflow-bench-mpi.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
cat >"$T/sweep.csv" <<'CSV'
# title: MPI bench: strategies searched for three models, two systems, eleven scales, six batches
scenario,system,model,devices,tp,pp,microbatch,global_batch,recompute,interleave,train_tokens
s,dgx-a100-80g|dgx-h100,gpt3-175b|llama2-70b|llama2-7b,8..8192*2,auto,auto,auto,256..8192*2,auto,auto,300e9
CSV
DEEPFLOW_TEMPLATES=$(pwd)/templates
export DEEPFLOW_TEMPLATES
secs() { # secs NP: wall seconds of one run on NP ranks, report in $T/npNP
    t0=$(date +%s.%N)
    (cd "$T" && mpirun --allow-run-as-root --oversubscribe -q -np "$1" "$OLDPWD/build-mpi/deepflow" run sweep.csv \
        -o out -q -f csv -j 1 >/dev/null 2>"np$1.err") || { cat "$T/np$1.err"; exit 1; }
    mv "$T/out" "$T/np$1"
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
}
s1=$(secs 1)
s2=$(secs 2)
same=identical
diff -r "$T/np1" "$T/np2" >/dev/null || same="DIFFERENT"
rows=$(($(wc -l <"$T/np1/summary.csv") - 1))
printf 'bench_mpi: %d scenarios (strategy searched, -j 1 a rank): -np 1 %.2f s, -np 2 %.2f s: speed-up %.2fx on %d cores; reports %s\n' \
    "$rows" "$s1" "$s2" "$(awk -v a="$s1" -v b="$s2" 'BEGIN { print a / b }')" "$(nproc)" "$same"
[ "$same" = identical ]
