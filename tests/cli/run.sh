#!/bin/sh
# tests/cli/run.sh — golden tests of the deepflow command line.
#
#   sh tests/cli/run.sh build/deepflow
#
# Each folder under tests/cli/cases/ is one case (jq-style tests as data):
#   cmd     the command line, run by the shell from the repository root with
#           $DF = the binary and $OUT = an empty temporary folder; lines
#           starting with '#' say what the case is about
#   status  the expected exit status (0 when absent)
#   stdout  the exact expected standard output (not compared when absent)
#   stderr  the exact expected standard error (not compared when absent)
#   check   optional shell script run after the command (same $DF and $OUT,
#           and $ACT: a folder with the command's stdout and stderr files);
#           it fails the case by exiting non-zero, saying why on stderr
# Before comparing, the path of $OUT in the outputs is written as '$OUT'.
# One line per case; at the end "N passed, M failed"; exit 1 if any failed.

if [ $# -ne 1 ]; then
    echo "usage: sh tests/cli/run.sh path/to/deepflow" >&2
    exit 2
fi
DF=$1
case $DF in
/*) ;;
*) DF=$(pwd)/$DF ;;
esac
if [ ! -x "$DF" ]; then
    echo "run.sh: $DF is not an executable" >&2
    exit 2
fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
export DF
# Messages and number formats must not depend on the caller's locale.
LC_ALL=C
export LC_ALL

passed=0
failed=0
for dir in tests/cli/cases/*/; do
    name=$(basename "$dir")
    dir=tests/cli/cases/$name
    if [ ! -f "$dir/cmd" ]; then
        echo "FAIL $name: no cmd file"
        failed=$((failed + 1))
        continue
    fi
    OUT=$(mktemp -d "${TMPDIR:-/tmp}/deepflow-cli.XXXXXX") || exit 2
    ACT=$(mktemp -d "${TMPDIR:-/tmp}/deepflow-act.XXXXXX") || exit 2
    export OUT ACT
    (eval "$(cat "$dir/cmd")") >"$ACT/stdout.raw" 2>"$ACT/stderr.raw" </dev/null
    rc=$?
    sed "s|$OUT|\$OUT|g" "$ACT/stdout.raw" >"$ACT/stdout"
    sed "s|$OUT|\$OUT|g" "$ACT/stderr.raw" >"$ACT/stderr"
    want=0
    [ -f "$dir/status" ] && want=$(cat "$dir/status")
    why=""
    if [ "$rc" != "$want" ]; then
        why="exit status $rc, expected $want"
    fi
    for stream in stdout stderr; do
        if [ -f "$dir/$stream" ] && ! cmp -s "$dir/$stream" "$ACT/$stream"; then
            why="${why:+$why; }$stream differs"
            diff -u "$dir/$stream" "$ACT/$stream" | sed "s|^|    |" >"$ACT/$stream.diff"
        fi
    done
    if [ -f "$dir/check" ]; then
        if ! sh "$dir/check" >"$ACT/check.out" 2>&1; then
            why="${why:+$why; }check failed"
        fi
    fi
    if [ -z "$why" ]; then
        echo "ok   $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name: $why"
        for f in stdout.diff stderr.diff; do
            [ -f "$ACT/$f" ] && cat "$ACT/$f"
        done
        [ -s "$ACT/check.out" ] && sed "s|^|    check: |" "$ACT/check.out"
        if [ "$rc" != "$want" ]; then
            echo "    stderr was:"
            sed "s|^|    |" "$ACT/stderr" | head -n 20
        fi
        failed=$((failed + 1))
    fi
    rm -rf "$OUT" "$ACT"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
