#!/bin/sh
# tests/run_all.sh BIN TEST_BIN... — every test of `make test`: the cmocka
# unit tests (run from tests/, as they expect) and the CLI suites, with one
# closing line that counts them all: "tests: N passed, M failed".
bin=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for t in "$@"; do
    (cd tests && "../$t") >"$log" 2>&1 || status=1
    cat "$log"
    # cmocka's closing lines: "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s), listed below:"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    passed=$((${passed:-0} + ${p:-0}))
    failed=$((${failed:-0} + ${f:-0}))
    [ -n "$p$f" ] || { echo "run_all: $t printed no cmocka summary"; failed=$((failed + 1)); }
done
for suite in tests/cli/run.sh tests/cli/report.sh tests/cli/folder.sh tests/layers.sh tests/fit.sh tests/ceiling.sh tests/answer.sh tests/stream.sh tests/mpi.sh; do
    sh "$suite" "$bin" >"$log" 2>&1 || status=1
    cat "$log"
    line=$(grep -E '([a-z]+: )?[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    p=$(echo "$line" | sed -n 's/^[a-z: ]*\([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed$/\1/p')
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    [ -n "$line" ] || { echo "run_all: $suite printed no summary"; failed=$((failed + 1)); }
done
[ "$failed" -eq 0 ] || status=1
echo "tests: $passed passed, $failed failed"
exit $status
