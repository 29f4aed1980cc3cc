#!/bin/sh
# tests/stream.sh — a study larger than the workbook lists one by one is
# streamed (batch/run.h run_stream, report/keep.c): its report must be
# byte-identical to the one written from every row held in memory, and its
# memory must not grow with the rows.
#   - DEEPFLOW_DETAIL_MAX=3 makes every table here "large"; each is run
#     streamed and with DEEPFLOW_NO_STREAM (every row held), and the report
#     folders (workbook, CSVs, charts), stdout, stderr and exit status must
#     be identical: searched rows, runners-up, co-design, failed and
#     duplicate rows, sweeps, warnings;
#   - DEEPFLOW_STREAM streams a study however small, its workbook listing
#     every row from the file the stream kept them in: the same report;
#   - 40,000 scenarios under a 300 MB address-space limit: streamed (as a
#     study over DEEPFLOW_DETAIL_MAX is) it runs, held in memory it cannot;
#     with the workbook listing all of them it runs too
#     (skipped under AddressSanitizer, which reserves terabytes of address
#     space).  make bench runs the million-scenario case (bench_stream.sh).
#
#   sh tests/stream.sh build/deepflow
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/suite.sh"
suite_begin stream "$@"
DEEPFLOW_TEMPLATES=$ROOT/templates
SOURCE_DATE_EPOCH=1700000000
export DEEPFLOW_TEMPLATES SOURCE_DATE_EPOCH
suite_tmp
. "$ROOT/tests/same_run.sh"

# same NAME TABLE [OPTIONS...]: held in memory, then streamed
same() {
    name=$1
    table=$2
    shift 2
    mkdir -p "$T/held" "$T/streamed"
    (cd "$T/held" && DEEPFLOW_DETAIL_MAX=3 DEEPFLOW_NO_STREAM=1 "$DF" run "$ROOT/$table" -o out -q "$@" \
        >../held.out 2>../held.err; echo $? >../held.rc)
    (cd "$T/streamed" && DEEPFLOW_DETAIL_MAX=3 "$DF" run "$ROOT/$table" -o out -q "$@" \
        >../streamed.out 2>../streamed.err; echo $? >../streamed.rc)
    same_run "$name" held streamed streamed
    rm -rf "$T/held" "$T/streamed"
}

# same_all NAME TABLE [OPTIONS...]: held in memory, then streamed however
# small, the workbook listing every row (each row's cells kept in a file as
# the rows pass: report/detail.c)
same_all() {
    name=$1
    table=$2
    shift 2
    mkdir -p "$T/held" "$T/streamed"
    (cd "$T/held" && DEEPFLOW_NO_STREAM=1 "$DF" run "$ROOT/$table" -o out -q "$@" \
        >../held.out 2>../held.err; echo $? >../held.rc)
    (cd "$T/streamed" && DEEPFLOW_STREAM=1 "$DF" run "$ROOT/$table" -o out -q "$@" \
        >../streamed.out 2>../streamed.err; echo $? >../streamed.rc)
    same_run "$name, every row listed" held streamed streamed
    rm -rf "$T/held" "$T/streamed"
}

same "default study" inputs/default.csv
same "dp-vs-hybrid (baselines, speedups)" inputs/dp-vs-hybrid.csv -f csv,xlsx
same "frontier (MoE, goodput)" inputs/frontier.csv -f csv,xlsx
same "answers per model and amount" tests/cli/tables/answers.csv -f csv,xlsx
same "more questions than answered" tests/cli/tables/many-questions.csv -f csv,xlsx
same "more series than listed" tests/cli/tables/many-series.csv -f csv,xlsx
same "runners-up" tests/cli/tables/top.csv --top 3
same "co-design" tests/cli/tables/codesign.csv
same "failed rows" tests/cli/tables/eval-errors.csv
same "duplicate names" tests/cli/tables/duplicate-names.csv
same "bad sweeps" tests/cli/tables/sweep-errors.csv
same "sweep" tests/cli/tables/sweep.csv
same "a broken template" tests/cli/tables/broken-template.csv
same "too many scenarios" tests/cli/tables/too-many-scenarios.csv
same_all "dp-vs-hybrid" inputs/dp-vs-hybrid.csv
same_all "runners-up" tests/cli/tables/top.csv --top 3
same_all "co-design" tests/cli/tables/codesign.csv
same_all "failed rows" tests/cli/tables/eval-errors.csv
same_all "duplicate names" tests/cli/tables/duplicate-names.csv

# a streamed run's scratch files go in $TMPDIR (tmpfile(3) would ignore
# it): where that folder is missing, one message names it and no report is
# written; a study held in memory needs none
(cd "$T" && DEEPFLOW_STREAM=1 TMPDIR="$T/missing" "$DF" run "$ROOT/inputs/default.csv" -o scratch -q \
    >/dev/null 2>scratch.err)
st=$?
if [ "$st" -eq 4 ] && grep -q "scratch files go in $T/missing: TMPDIR" "$T/scratch.err" && [ ! -e "$T/scratch" ]; then
    ok "scratch files: a missing TMPDIR is named, and nothing is written"
else
    bad "scratch files: a missing TMPDIR: exit $st"
    cat "$T/scratch.err"
fi
(cd "$T" && DEEPFLOW_NO_STREAM=1 TMPDIR="$T/missing" "$DF" run "$ROOT/inputs/default.csv" -o held -q -f csv \
    >/dev/null 2>held.err)
st=$?
[ "$st" -eq 0 ] && ok "scratch files: a study held in memory needs none" ||
    { bad "scratch files: held in memory with a missing TMPDIR: exit $st"; cat "$T/held.err"; }
rm -rf "$T/held"

# the Inputs sheet lists the first table lines (here 3) and counts the rest
(cd "$T" && DEEPFLOW_DETAIL_MAX=3 "$DF" run "$ROOT/inputs/default.csv" -o inputs -q -f xlsx >/dev/null 2>&1)
if /usr/bin/python3 -c 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read("xl/sharedStrings.xml").decode())' \
    "$T/inputs/default.xlsx" 2>/dev/null | grep -q "and 6 more table lines (36 scenarios): this sheet lists the first 3;"; then
    ok "the Inputs sheet counts the table lines past the ones it lists"
else
    bad "the Inputs sheet does not count the table lines past the ones it lists"
fi

# memory that does not grow with the rows
cat >"$T/wide.csv" <<'CSV'
# title: 40,000 BERT-Large scenarios
scenario,system,model,devices,tp,pp,microbatch,replica_batch,train_samples
b,dgx-a100-80g,bert-large,8..1600+8,1,1,1,1..200+1,1e8
CSV
case $DF in
*asan*) echo "ok   stream: memory: skipped under AddressSanitizer (it reserves terabytes of address space)" ;;
*)
    (cd "$T" && ulimit -v 300000 && DEEPFLOW_DETAIL_MAX=1000 "$DF" run wide.csv -o wide -q -f csv -j 1 >wide.out 2>wide.err)
    st=$?
    (cd "$T" && ulimit -v 300000 && DEEPFLOW_DETAIL_MAX=1000 DEEPFLOW_NO_STREAM=1 "$DF" run wide.csv -o held -q -f csv -j 1 \
        >held.out 2>held.err)
    hst=$?
    lines=$(wc -l <"$T/wide/summary.csv" 2>/dev/null || echo 0)
    if [ "$st" -ne 0 ] || [ "$lines" -ne 40001 ]; then
        bad "memory: 40,000 scenarios streamed in 300 MB: status $st, $lines lines"
        head -n 3 "$T/wide.err"
    elif [ "$hst" -eq 0 ]; then
        bad "memory: 40,000 scenarios held in memory ran in 300 MB too: the limit tests nothing"
    else
        ok "memory: 40,000 scenarios streamed in a 300 MB address space (held in memory they do not fit)"
    fi
    # with the workbook, which lists every one of them (its Scenarios sheet)
    (cd "$T" && ulimit -v 300000 && "$DF" run wide.csv -o book -q -f csv,xlsx -j 1 >book.out 2>book.err)
    st=$?
    rows=$(/usr/bin/python3 -c 'import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
print(sum(1 for _ in wb["Scenarios"].iter_rows()))' "$T/book/wide.xlsx" 2>/dev/null || echo 0)
    if [ "$st" -eq 0 ] && [ "$rows" -eq 40001 ]; then
        ok "memory: 40,000 scenarios with a workbook listing every one, in a 300 MB address space"
    else
        bad "memory: 40,000 scenarios with the workbook in 300 MB: status $st, $rows rows on its Scenarios sheet"
        head -n 3 "$T/book.err"
    fi
    # every line its own series: the report keeps the rows of the series it
    # lists (RPT_SERIES_MAX) and says there are more
    awk 'BEGIN { print "scenario,series,system,model,devices,tp,pp,microbatch,global_batch,train_samples"
                 for (i = 0; i < 20000; i++) printf "r%d,s%d,dgx-h100,llama2-7b,%d,1,1,1,512,1e8\n", i, i, 8 * 2 ^ (i % 4) }' \
        >"$T/series.csv"
    (cd "$T" && ulimit -v 300000 && "$DF" run series.csv -o series -q -f csv,xlsx -j 1 >series.out 2>series.err)
    st=$?
    if [ "$st" -eq 0 ] && /usr/bin/python3 -c 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read("xl/sharedStrings.xml").decode())' \
        "$T/series/series.xlsx" 2>/dev/null | grep -q "The study has more than 64 series: the first 64 (in table order) are listed and drawn"; then
        ok "memory: 20,000 lines each its own series, with the workbook, in a 300 MB address space; the first 64 listed"
    else
        bad "memory: 20,000 lines each its own series in 300 MB: status $st, or the Summary does not say it lists the first 64"
        head -n 3 "$T/series.err"
    fi
    ;;
esac

suite_end
