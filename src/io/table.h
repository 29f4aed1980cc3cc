/* io/table.h — the scenario table reader (DESIGN.md §4): a CSV file, one
 * header row naming the columns, one scenario per row, parsed with libcsv
 * and every cell tagged with the line and column where it starts.
 * A Table owns everything it points to (path, names, rows, cells, errors);
 * table_free releases it all and is safe on a zeroed or already freed Table.
 * The cells live in blocks and each distinct text is kept once: a table of
 * a million lines that repeat their systems, models and numbers holds
 * about 200 bytes a line, not one allocation a cell. */
#ifndef DF_TABLE_H
#define DF_TABLE_H

#include <stddef.h>

#include "core/diag.h"

#define TABLE_MAX_ROWS  1000000                 /* data rows (after the header) */
#define TABLE_MAX_COLS  4096                    /* header columns */
#define TABLE_MAX_CELL  65536                   /* bytes in one cell */
#define TABLE_MAX_BYTES (1024L * 1024L * 1024L) /* whole file */
#define TABLE_TITLE_MAX 256

typedef struct {
    const char *text; /* trimmed of spaces and tabs; valid UTF-8 unless the row has an error;
                       * the table's (cells alike share one copy) */
    int line, col;    /* 1-based start of the field (its opening quote if quoted) */
} TableCell;

typedef struct {
    TableCell *cell; /* cell[ncell]; ncell >= the table's ncol (missing cells are "") */
    int ncell;       /* > ncol only in a row with an error (too many fields) */
    int line;        /* physical line where the record starts */
    Diag *error;     /* NULL when the row is well-formed; else why it is not */
} TableRow;

typedef struct {
    char *path;                  /* as given, for messages */
    char title[TABLE_TITLE_MAX]; /* from the first "# title: ..." comment; "" if none */
    char **col_name;             /* col_name[ncol]: header names, trimmed, lower-case */
    int *col_col;                /* col_col[ncol]: 1-based column where each name starts */
    int ncol;
    int header_line;
    TableRow *row; /* row[nrow], in file order */
    int nrow;
    struct TableStore *store; /* what the rows' cells and texts live in */
} Table;

/* Parse `len` bytes of CSV.  `path` is used only in messages.  Returns 0
 * (rows that are malformed are kept with row->error set, so the caller can
 * report them and go on), or -1 with d filled for a fatal error: no header,
 * a bad header, a limit exceeded, out of memory; *t is then left empty.
 * The rules:
 *  - a UTF-8 BOM is skipped; lines end in LF, CRLF or CR;
 *  - lines that are empty or hold only spaces/tabs are skipped, and so are
 *    lines with '#' in the first column (comments); the first comment of
 *    the form "# title: TEXT" sets t->title;
 *  - the first other record is the header; names are trimmed and
 *    lower-cased; an empty or duplicate name is fatal;
 *  - a data row whose cells are all empty (",,,") is skipped; a row with
 *    fewer fields than the header gets "" for the missing ones; a row with
 *    more is kept with an error at its first extra field;
 *  - quotes are strict (RFC 4180): after a quote error the row is kept with
 *    an error and reading resumes at the next physical line after the fault
 *    (for a quote never closed, at the line after the opening quote);
 *  - a cell that is not valid UTF-8, holds a NUL byte or is longer than
 *    TABLE_MAX_CELL bytes gives its row an error.
 * Columns count UTF-8 characters (code points), not bytes; a tab is one. */
int table_parse(const char *path, const char *data, size_t len, Table *t, Diag *d);

/* Read the file at `path` and parse it.  -1 with d filled on failure
 * ("cannot open: <reason>", "cannot read: <reason>", or a parse error). */
int table_read(const char *path, Table *t, Diag *d);

void table_free(Table *t);

/* Index of the column named `name` (case-insensitive), or -1. */
int table_col(const Table *t, const char *name);

#endif
