/* io/table.h — the scenario table reader (DESIGN.md §4): a CSV file, one
 * header row naming the columns, one scenario per row, parsed with libcsv
 * and every cell tagged with the line and column where it starts.
 * A Table owns everything it points to (path, names, rows, cells, errors);
 * table_free releases it all and is safe on a zeroed or already freed Table.
 * The cells live in blocks and each distinct text is kept once, and a
 * plainly written row keeps no positions (its columns follow from its
 * texts): a table of a million lines that repeat their systems, models
 * and numbers holds about 120 bytes a line, not one allocation a cell. */
#ifndef DF_TABLE_H
#define DF_TABLE_H

#include <stddef.h>

#include "core/diag.h"

#define TABLE_MAX_ROWS   1000000                 /* data rows (after the header) */
#define TABLE_MAX_COLS   4096                    /* header columns */
#define TABLE_MAX_CELL   65536                   /* bytes in one cell */
#define TABLE_MAX_BYTES  (1024L * 1024L * 1024L) /* whole file */
#define TABLE_TITLE_MAX  256
#define TABLE_CLAIMS_MAX 16  /* "# claim: ..." lines a table keeps */
#define TABLE_CLAIM_MAX  512 /* bytes of one, cut at a character */

typedef struct {
    const char *text; /* trimmed of spaces and tabs; valid UTF-8 unless the row has an error;
                       * the table's (cells alike share one copy) */
} TableCell;

/* Where each cell starts (1-based; its opening quote if quoted):
 * table_cell_line and table_cell_col.  A row written plainly (on one line,
 * no quotes, no blanks around its fields, no error) keeps no positions: its
 * cells' columns follow from their texts.  Others keep pos[2 j] = line and
 * pos[2 j + 1] = column of cell j. */
typedef struct {
    TableCell *cell; /* cell[ncell]; ncell >= the table's ncol (missing cells are "") */
    int ncell;       /* > ncol only in a row with an error (too many fields) */
    int line;        /* physical line where the record starts */
    Diag *error;     /* NULL when the row is well-formed; else why it is not */
    int *pos;        /* NULL for a plain row; else every cell's line and column */
} TableRow;

/* The line and the column where cell j of row r starts (j < r->ncell). */
int table_cell_line(const TableRow *r, int j);
int table_cell_col(const TableRow *r, int j);

typedef struct {
    char *path;                  /* as given, for messages */
    char title[TABLE_TITLE_MAX]; /* from the first "# title: ..." comment; "" if none */
    /* published claims the study checks (report/claims.c reads them): the
     * text after "# claim:" of the first TABLE_CLAIMS_MAX such comments,
     * and the line of each; claims_more: there were more */
    struct {
        int line;
        char text[TABLE_CLAIM_MAX];
    } claim[TABLE_CLAIMS_MAX];
    int nclaim, claims_more;
    char **col_name; /* col_name[ncol]: header names, trimmed, lower-case */
    int *col_col;    /* col_col[ncol]: 1-based column where each name starts */
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
 *    the form "# title: TEXT" sets t->title, and each "# claim: TEXT" is
 *    kept in t->claim;
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
