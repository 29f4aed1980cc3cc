# tests/cli/lib.sh — helpers for the checks of tests/cli/cases/*/check
# (sourced: `. tests/cli/lib.sh`).  CSV is parsed as RFC 4180 without line
# breaks inside fields, which the report never writes.

# csv_cols FILE NAME...: for each data row, the named columns joined by '|'.
# Fails (status 1, a message on stderr) when a name is not in the header.
csv_cols()
{
    f=$1
    shift
    awk -v names="$*" '
    function parse(line,    i, c, v, q, n) {
        n = 0; v = ""; q = 0
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (q) {
                if (c == "\"") {
                    if (substr(line, i + 1, 1) == "\"") { v = v "\""; i++ } else q = 0
                } else v = v c
            } else if (c == "\"") q = 1
            else if (c == ",") { F[++n] = v; v = "" }
            else v = v c
        }
        F[++n] = v
        return n
    }
    NR == 1 {
        n = parse($0)
        k = split(names, want, " ")
        for (j = 1; j <= k; j++) {
            idx[j] = 0
            for (i = 1; i <= n; i++) if (F[i] == want[j]) idx[j] = i
            if (!idx[j]) { print "no column \047" want[j] "\047 in " FILENAME > "/dev/stderr"; bad = 1; exit 1 }
        }
        next
    }
    {
        parse($0)
        s = ""
        for (j = 1; j <= k; j++) s = s (j > 1 ? "|" : "") F[idx[j]]
        print s
    }
    END { if (bad) exit 1 }' "$f"
}

# has_cols FILE NAME...: the header of FILE names every NAME.
has_cols()
{
    f=$1
    shift
    for c in "$@"; do
        head -n 1 "$f" | tr -d '\r' | tr ',' '\n' | grep -q -x -F "$c" ||
            { echo "$f has no column '$c'" >&2; return 1; }
    done
}

# rows FILE NAME...: csv_cols joined into one line, rows ending in ';'.
rows()
{
    csv_cols "$@" | tr '\n' ';'
}
