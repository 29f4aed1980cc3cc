#!/bin/sh
# tests/layers.sh — the engines' include graph (DESIGN.md §2: one engine per
# folder, dependencies pointing down only).  Each folder under src/ may
# include only the folders listed for it; anything else is a back-edge (the
# loader reaching into the generator, the search into the loader) and fails.
# Prints one line per folder and "layers: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
allowed() {
    case $1 in
    core) echo "" ;;
    graph | perf | scale | tech) echo "core" ;;
    net) echo "core graph" ;;
    power) echo "core perf" ;;
    par) echo "core graph net perf power" ;;
    search) echo "core perf par" ;;
    io) echo "core graph" ;;
    batch) echo "core io net par perf power scale search tech" ;;
    calib) echo "core batch perf" ;;
    report) echo "core batch calib io" ;;
    *) echo "?" ;;
    esac
}
passed=0
failed=0
for dir in src/*/; do
    eng=$(basename "$dir")
    ok=$(allowed "$eng")
    bad=""
    for f in "$dir"*.c "$dir"*.h; do
        [ -f "$f" ] || continue
        for dep in $(sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f" | sort -u); do
            [ "$dep" = "$eng" ] && continue
            case " $ok " in *" $dep "*) ;; *) bad="$bad $f->$dep" ;; esac
        done
    done
    if [ "$ok" = "?" ]; then
        echo "not ok layers: src/$eng has no place in the layering (add it to tests/layers.sh)"
        failed=$((failed + 1))
    elif [ -n "$bad" ]; then
        echo "not ok layers: src/$eng includes what it may not:$bad (allowed: ${ok:-nothing})"
        failed=$((failed + 1))
    else
        echo "ok   layers: src/$eng includes only ${ok:-nothing}"
        passed=$((passed + 1))
    fi
done
# The report writes what the evaluation computed and never runs the model
# itself (issue 30): no report/ file includes the evaluator; the caller
# hands it the one resolver the Inputs sheet needs (ReportInput.resolve).
hits=$(grep -l '#include "batch/evaluate.h"' src/report/*.c src/report/*.h 2>/dev/null)
if [ -n "$hits" ]; then
    echo "not ok report: these include the evaluator: $(echo $hits)"
    failed=$((failed + 1))
else
    echo "ok   report: no report/ file includes batch/evaluate.h"
    passed=$((passed + 1))
fi
# The project stands on its own: nothing it builds, tests, validates or
# documents may name the workspace's shared folder beside the repository
# (issue 24); what it needs is copied in with its source and licence
# (validation/vtrain, docs/reference).  The pattern is spelt so that this
# file does not match it.
outside='\.\./shar[e]d'
hits=$(grep -rlI -e "$outside" Makefile .ci scripts src tests templates inputs validation docs README.md DESIGN.md 2>/dev/null)
if [ -n "$hits" ]; then
    echo "not ok standalone: these name the shared folder outside the repository: $(echo $hits)"
    failed=$((failed + 1))
else
    echo "ok   standalone: nothing names the shared folder outside the repository"
    passed=$((passed + 1))
fi
echo "layers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
