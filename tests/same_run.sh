# tests/same_run.sh — sourced by the suites that run one study two ways
# (tests/stream.sh: streamed and held in memory; tests/mpi.sh: three ranks
# and one process) and require the same bytes.  Needs T, ok and bad.
#
# same_run NAME A B HOW: the report folders $T/A and $T/B must be
# identical, and so must $T/A.out, .err and .rc against B's; HOW says how
# B was run, for the messages.
same_run() {
    if ! [ -d "$T/$2" ] || ! [ -d "$T/$3" ]; then
        bad "$1: a report is missing ($2: status $(cat "$T/$2.rc"), $3: $(cat "$T/$3.rc"))"
        head -n 5 "$T/$3.err"
    elif ! diff -r "$T/$2" "$T/$3" >"$T/diff" 2>&1; then
        bad "$1: the reports differ"
        head -n 5 "$T/diff"
    elif ! cmp -s "$T/$2.out" "$T/$3.out" || ! cmp -s "$T/$2.err" "$T/$3.err"; then
        bad "$1: stdout or stderr differ"
        diff "$T/$2.out" "$T/$3.out" | head -n 5
        diff "$T/$2.err" "$T/$3.err" | head -n 5
    elif ! cmp -s "$T/$2.rc" "$T/$3.rc"; then
        bad "$1: exit status $(cat "$T/$3.rc") $4, $(cat "$T/$2.rc") otherwise"
    else
        ok "$1: identical report, output and status ($(cat "$T/$2.rc")) $4"
    fi
}
