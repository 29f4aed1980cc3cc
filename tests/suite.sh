# tests/suite.sh — the start and the end the shell suites share (sourced
# once ROOT, the project's folder, is known:
#     ROOT=$(cd "$(dirname "$0")/.." && pwd)
#     . "$ROOT/tests/suite.sh"
#     suite_begin NAME "$@"
#
# suite_begin NAME DEEPFLOW: the suite's name (the prefix of its lines) and
#   the deepflow under test, as given on the command line (a path from the
#   caller's folder, or absolute); sets DF to its absolute path, enters ROOT
#   and fixes the locale (messages and number formats must not depend on
#   the caller's); a usage error (exit 2) without exactly one argument.
# suite_tmp: T, a temporary folder of the suite's, removed when it exits.
# ok TEXT, bad TEXT: one check passed or failed, said and counted.
# suite_end: the closing line "NAME: P passed, F failed" (tests/run_all.sh
#   adds them up); true when none failed.
suite_begin() {
    SUITE=$1
    shift
    if [ $# -ne 1 ]; then
        echo "usage: sh $0 path/to/deepflow" >&2
        exit 2
    fi
    case $1 in
    /*) DF=$1 ;;
    *) DF=$(pwd)/$1 ;;
    esac
    cd "$ROOT" || exit 2
    LC_ALL=C
    export LC_ALL
    passed=0
    failed=0
}

suite_tmp() {
    T=$(mktemp -d "${TMPDIR:-/tmp}/deepflow-$SUITE.XXXXXX") || exit 2
    trap 'rm -rf "$T"' EXIT INT TERM
}

ok() {
    echo "ok   $SUITE: $1"
    passed=$((passed + 1))
}

bad() {
    echo "FAIL $SUITE: $1"
    failed=$((failed + 1))
}

suite_end() {
    echo "$SUITE: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
