#!/bin/sh
# tests/mpi.sh — one run across MPI ranks (make MPI=1): the report of
# `mpirun -np 3 deepflow run` is byte-identical to the single-process one
# (workbook, CSVs, charts), and so are its stdout, stderr and exit status,
# on studies with searched rows, runners-up (--top), co-design and failed
# rows; a rank that dies fails the run and leaves no report.  Skipped, with
# a line that says so, where OpenMPI is not installed
# (sh scripts/install-deps.sh --mpi installs it; CI does).
#
#   sh tests/mpi.sh build/deepflow
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
DF=$ROOT/${1:-build/deepflow}
LC_ALL=C
export LC_ALL
passed=0
failed=0
ok() { echo "ok   mpi: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL mpi: $1"; failed=$((failed + 1)); }
. "$ROOT/tests/same_run.sh"

if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    echo "mpi: skipped: OpenMPI is not installed (sh scripts/install-deps.sh --mpi)"
    echo "mpi: 0 passed, 0 failed"
    exit 0
fi
if ! make -s MPI=1 >build-mpi.log 2>&1; then
    cat build-mpi.log
    rm -f build-mpi.log
    echo "FAIL mpi: make MPI=1 did not build"
    echo "mpi: 0 passed, 1 failed"
    exit 1
fi
rm -f build-mpi.log
MPIDF=$ROOT/build-mpi/deepflow
T=$(mktemp -d "${TMPDIR:-/tmp}/deepflow-mpi.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
# the same report folder name for both runs: the workbook records the command
DEEPFLOW_TEMPLATES=$ROOT/templates
export DEEPFLOW_TEMPLATES
SOURCE_DATE_EPOCH=1700000000
export SOURCE_DATE_EPOCH
MPIRUN="mpirun --allow-run-as-root --oversubscribe -q -np 3"

# compare NAME TABLE [OPTIONS...]: one process, then three ranks
compare() {
    name=$1
    table=$2
    shift 2
    (cd "$T" && "$DF" run "$ROOT/$table" -o out -q "$@" >one.out 2>one.err; echo $? >one.rc)
    mv "$T/out" "$T/one" 2>/dev/null
    (cd "$T" && $MPIRUN "$MPIDF" run "$ROOT/$table" -o out -q "$@" >three.out 2>three.err; echo $? >three.rc)
    mv "$T/out" "$T/three" 2>/dev/null
    same_run "$name" one three "on 3 ranks"
    rm -rf "$T/one" "$T/three"
}

compare "default study" inputs/default.csv
compare "runners-up" tests/cli/tables/top.csv --top 3
compare "co-design" tests/cli/tables/codesign.csv
compare "failed rows" tests/cli/tables/eval-errors.csv
compare "sweep" tests/cli/tables/sweep.csv -f csv
# streamed studies (larger than the workbook lists one by one; DEEPFLOW_DETAIL_MAX
# lowers that size): the ranks evaluate each window, rank 0 streams the rows
DEEPFLOW_DETAIL_MAX=3
export DEEPFLOW_DETAIL_MAX
compare "streamed: default study" inputs/default.csv
compare "streamed: runners-up" tests/cli/tables/top.csv --top 3
compare "streamed: failed rows" tests/cli/tables/eval-errors.csv
compare "streamed: bad sweeps" tests/cli/tables/sweep-errors.csv
unset DEEPFLOW_DETAIL_MAX

# every rank takes a share of a larger study (rows go to whoever asks)
(cd "$T" && DEEPFLOW_DIST_LOG=1 $MPIRUN "$MPIDF" run "$ROOT/inputs/dp-vs-hybrid.csv" -o shares -q -f csv \
    -j 1 >shares.out 2>shares.err)
line=$(grep "rows evaluated by rank" "$T/shares.err")
if echo "$line" | grep -q " 0: [1-9][0-9]*, 1: [1-9][0-9]*, 2: [1-9][0-9]*$"; then
    ok "shares: ${line#deepflow: }"
else
    bad "shares: expected every rank to evaluate rows, got '$line'"
fi

# a rank that dies: the run fails, no report, and mpirun names the rank
# (held in memory, and streamed)
killed() {
    name=$1
    shift
    rm -rf "$T/killed"
    (cd "$T" && env "$@" DEEPFLOW_DIST_KILL=1 mpirun --allow-run-as-root --oversubscribe -np 3 "$MPIDF" run \
        "$ROOT/inputs/dp-vs-hybrid.csv" -o killed -q >kill.out 2>kill.err; echo $? >kill.rc)
    if [ "$(cat "$T/kill.rc")" -eq 0 ]; then
        bad "$name: exit status 0"
    elif [ -n "$(ls "$T/killed" 2>/dev/null)" ]; then
        # a streamed run stages its CSVs in the report folder from the start:
        # a dead run may leave that folder with its hidden staging folder only
        bad "$name: a report was written: $(ls "$T/killed" | head -n 3 | tr '\n' ' ')"
    elif ! grep -q "rank 1" "$T/kill.err" "$T/kill.out"; then
        bad "$name: no message names rank 1"
        cat "$T/kill.err"
    else
        ok "$name: status $(cat "$T/kill.rc"), no report, '$(grep -h -m1 "rank 1" "$T/kill.err" "$T/kill.out" | sed 's/^ *//')'"
    fi
}
killed "a killed rank" LC_ALL=C
killed "a killed rank, streamed" DEEPFLOW_DETAIL_MAX=3
# the next run removes what the dead one left (its staging folder beside the report)
left=$(find "$T" -maxdepth 1 -name '.killed.deepflow-*' ! -name '*-lock')
(cd "$T" && "$DF" run "$ROOT/tests/cli/tables/good.csv" -o killed -q -f csv >again.out 2>again.err)
if [ -n "$(find "$T" -maxdepth 1 -name '.killed.deepflow-*' ! -name '*-lock')" ]; then
    bad "after a killed streamed run: the next run left its staging folder in place"
elif [ -n "$left" ] && ! grep -q "removed 1 unfinished report" "$T/again.err"; then
    bad "after a killed streamed run: the next run did not say it removed the staging folder"
    cat "$T/again.err"
else
    ok "after a killed streamed run: no staging folder beside the report after the next run"
fi

echo "mpi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
