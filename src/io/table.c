/* io/table.c — reads a scenario table (DESIGN.md §4).  libcsv parses the
 * fields (strict quotes); it reports no positions, so a small pre-scan that
 * follows the same quoting rules walks each record first and records the
 * line and column where every field starts.  Records are fed to libcsv one
 * at a time, which also lets comment and blank lines be skipped and lets
 * reading resume after a quote error.  Columns count UTF-8 code points. */
#include "io/table.h"

#include <csv.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/atomic.h"

#define CSV_OPTS        (CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL)
#define SCAN_MAX_FIELDS (TABLE_MAX_COLS + 1) /* fields kept per record; more are only counted */

static const char MSG_QUOTE_END[] =
    "malformed quotes in field (a quoted field must end with '\"' followed by ',' or end of line)";
static const char MSG_QUOTE_INSIDE[] =
    "malformed quotes in field (a '\"' inside an unquoted field: quote the whole field and double the "
    "inner '\"')";

/* A place in the input: byte offset and the 1-based line and column of the
 * byte at that offset. */
typedef struct {
    size_t off;
    int line, col;
} Cur;

typedef struct {
    int line, col;
    int quoted;
} FieldPos;

typedef struct {
    char *text;   /* trimmed, NUL-terminated, owned; NULL if too long */
    int too_long; /* longer than TABLE_MAX_CELL */
    int has_nul;  /* holds a NUL byte */
} Field;

typedef struct {
    const char *path;
    const char *data;
    size_t len;
    Table *t;
    Diag *d;
    struct csv_parser p;
    /* pre-scan of the current record */
    FieldPos *pos;
    int npos, cap_pos;
    Cur end;          /* where the record's content ends (its terminator or EOF) */
    Cur next;         /* just after the record's terminator */
    Cur quote;        /* the opening quote of a quoted field never closed */
    int unterminated; /* the record reaches EOF inside quotes */
    /* fields delivered by libcsv for the current record */
    Field *fld;
    int nfld, cap_fld;
    int ncb; /* fields delivered, including those not kept */
    int row_ended;
    int oom;
    int title_set;
    int have_header;
    int cap_row;
} Reader;

static int oom(const Reader *r)
{
    return diag_set(r->d, r->path, 0, 0, "out of memory");
}

/* ---- the cells' store --------------------------------------------------- */

enum { STORE_CELLS = 4096, STORE_CHARS = 1 << 20 };

/* The rows' cell arrays, carved from blocks of cells, and every distinct
 * text once, in blocks of characters, found again through an open-address
 * hash of the texts kept. */
typedef struct TableStore TableStore;
struct TableStore {
    void **blk; /* every block, cells and characters */
    int nblk, cap_blk;
    TableCell *cells; /* the current block's free cells */
    size_t ncells;
    char *chars; /* the current block's free characters */
    size_t nchars;
    const char **slot; /* nslot (a power of two) texts or NULL */
    size_t nslot, nused;
};

static void *store_block(TableStore *st, size_t bytes)
{
    if (st->nblk == st->cap_blk) {
        int cap = st->cap_blk ? 2 * st->cap_blk : 64;
        void **b = realloc(st->blk, (size_t)cap * sizeof *b);
        if (!b)
            return NULL;
        st->blk = b;
        st->cap_blk = cap;
    }
    void *p = calloc(1, bytes);
    if (p)
        st->blk[st->nblk++] = p;
    return p;
}

static void store_free(TableStore *st)
{
    if (!st)
        return;
    for (int i = 0; i < st->nblk; i++)
        free(st->blk[i]);
    free(st->blk);
    free(st->slot);
    free(st);
}

/* n zeroed cells, contiguous; NULL when out of memory */
static TableCell *store_cells(TableStore *st, size_t n)
{
    if (n > st->ncells) {
        const size_t want = n > STORE_CELLS ? n : STORE_CELLS;
        TableCell *b = store_block(st, want * sizeof *b);
        if (!b)
            return NULL;
        st->cells = b;
        st->ncells = want;
    }
    TableCell *c = st->cells;
    st->cells += n;
    st->ncells -= n;
    return c;
}

static size_t text_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The store's copy of s: the one already kept, or a new one; NULL when out
 * of memory. */
static const char *store_text(TableStore *st, const char *s)
{
    if (2 * (st->nused + 1) > st->nslot) { /* at most half full */
        const size_t n = st->nslot ? 2 * st->nslot : 1024;
        const char **slot = calloc(n, sizeof *slot);
        if (!slot)
            return NULL;
        for (size_t i = 0; i < st->nslot; i++)
            if (st->slot[i]) {
                size_t k = text_hash(st->slot[i]) & (n - 1);
                while (slot[k])
                    k = (k + 1) & (n - 1);
                slot[k] = st->slot[i];
            }
        free(st->slot);
        st->slot = slot;
        st->nslot = n;
    }
    size_t k = text_hash(s) & (st->nslot - 1);
    for (; st->slot[k]; k = (k + 1) & (st->nslot - 1))
        if (!strcmp(st->slot[k], s))
            return st->slot[k];
    const size_t len = strlen(s) + 1;
    if (len > st->nchars) {
        const size_t want = len > STORE_CHARS ? len : STORE_CHARS;
        char *b = store_block(st, want);
        if (!b)
            return NULL;
        st->chars = b;
        st->nchars = want;
    }
    char *t = st->chars;
    memcpy(t, s, len);
    st->chars += len;
    st->nchars -= len;
    st->nused++;
    return st->slot[k] = t;
}

/* ---- positions ---------------------------------------------------------- */

/* Columns a text spans: its UTF-8 characters (continuation bytes do not
 * advance the column). */
static int text_chars(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

int table_cell_line(const TableRow *r, int j)
{
    return r->pos ? r->pos[2 * j] : r->line;
}

int table_cell_col(const TableRow *r, int j)
{
    if (r->pos)
        return r->pos[2 * j + 1];
    int col = 1; /* a plain row: its fields one after the other from column 1 */
    for (int i = 0; i < j; i++)
        col += text_chars(r->cell[i].text) + 1;
    return col;
}

static int is_blank(int c)
{
    return c == ' ' || c == '\t';
}

static int is_eol(int c)
{
    return c == '\n' || c == '\r';
}

/* Move over one byte.  A line ends at LF, at CRLF (counted at the LF) or at
 * a lone CR.  UTF-8 continuation bytes do not advance the column. */
static void cur_step(const char *data, size_t len, Cur *c)
{
    unsigned char ch = (unsigned char)data[c->off];
    if (ch == '\n' || (ch == '\r' && !(c->off + 1 < len && data[c->off + 1] == '\n'))) {
        c->line++;
        c->col = 1;
    } else if ((ch & 0xC0) != 0x80) {
        c->col++;
    }
    c->off++;
}

static Cur cur_walk(const char *data, size_t len, Cur c, size_t off)
{
    while (c.off < off && c.off < len)
        cur_step(data, len, &c);
    return c;
}

/* The start of the next physical line after c (or EOF). */
static Cur cur_next_line(const char *data, size_t len, Cur c)
{
    int line = c.line;
    while (c.off < len && c.line == line)
        cur_step(data, len, &c);
    return c;
}

/* ---- UTF-8 -------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k;
    unsigned int lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        k = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        if (c == 0xE0)
            lo = 0xA0; /* no overlong forms */
        else if (c == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F; /* not above U+10FFFF */
    } else {
        return 0;
    }
    if (n < k || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return k;
}

static int utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t k = utf8_seq(u + i, n - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

/* ---- comments and blank lines ------------------------------------------- */

/* Copy a comment's text into dst (cap bytes): invalid UTF-8 bytes become
 * '?', and it is cut at a character boundary. */
static void set_text(char *dst, size_t cap, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, o = 0;
    while (i < n) {
        size_t k = utf8_seq(u + i, n - i);
        if (!k || u[i] < 0x20) {
            if (o + 1 >= cap)
                break;
            dst[o++] = k ? ' ' : '?'; /* a control character, or a byte that is not UTF-8 */
            i++;
            continue;
        }
        if (o + k >= cap)
            break;
        memcpy(dst + o, s + i, k);
        o += k;
        i += k;
    }
    dst[o] = '\0';
}

/* If s[*i..end) starts with word (any case), blanks and ':', move *i past
 * them and the blanks after: 1; else 0. */
static int comment_key(const char *s, size_t *i, size_t end, const char *word)
{
    size_t j = *i, n = strlen(word);
    if (end - j < n || strncasecmp(s + j, word, n) != 0)
        return 0;
    j += n;
    while (j < end && is_blank(s[j]))
        j++;
    if (j >= end || s[j] != ':')
        return 0;
    j++;
    while (j < end && is_blank(s[j]))
        j++;
    *i = j;
    return 1;
}

/* A comment line (c at its '#', on line `line`): take "# title: TEXT" if
 * it is the first, and every "# claim: TEXT". */
static void read_comment(Reader *r, size_t off, size_t end, int line)
{
    const char *s = r->data;
    size_t i = off + 1;
    while (i < end && is_blank(s[i]))
        i++;
    while (end > i && is_blank(s[end - 1]))
        end--;
    Table *t = r->t;
    if (!r->title_set && comment_key(s, &i, end, "title")) {
        set_text(t->title, sizeof t->title, s + i, end - i);
        r->title_set = 1;
    } else if (comment_key(s, &i, end, "claim")) {
        if (t->nclaim == TABLE_CLAIMS_MAX) {
            t->claims_more = 1;
            return;
        }
        t->claim[t->nclaim].line = line;
        set_text(t->claim[t->nclaim].text, sizeof t->claim[t->nclaim].text, s + i, end - i);
        t->nclaim++;
    }
}

/* If the line at c (a line start) is blank or a comment, consume it and
 * return 1. */
static int skip_line(Reader *r, Cur *c)
{
    const char *s = r->data;
    size_t i = c->off;
    if (s[i] == '#') {
        size_t end = i;
        while (end < r->len && !is_eol(s[end]))
            end++;
        read_comment(r, i, end, c->line);
        *c = cur_next_line(s, r->len, *c);
        return 1;
    }
    while (i < r->len && is_blank(s[i]))
        i++;
    if (i < r->len && !is_eol(s[i]))
        return 0;
    *c = cur_next_line(s, r->len, *c);
    return 1;
}

/* ---- pre-scan ----------------------------------------------------------- */

static int add_pos(Reader *r, const Cur *c, int quoted)
{
    if (r->npos >= SCAN_MAX_FIELDS)
        return 0;
    if (r->npos == r->cap_pos) {
        int cap = r->cap_pos ? 2 * r->cap_pos : 32;
        FieldPos *p = realloc(r->pos, (size_t)cap * sizeof *p);
        if (!p) {
            r->oom = 1;
            return -1;
        }
        r->pos = p;
        r->cap_pos = cap;
    }
    r->pos[r->npos].line = c->line;
    r->pos[r->npos].col = c->col;
    r->pos[r->npos].quoted = quoted;
    r->npos++;
    return 0;
}

/* Walk one record from c with libcsv's quoting rules: record where each
 * field starts, where the record ends and where the next one begins.  It
 * does not judge the quoting (libcsv does); after a malformed quote it just
 * goes on to the next ',' or end of line. */
static int scan_record(Reader *r, Cur c)
{
    const char *s = r->data;
    size_t len = r->len;
    r->npos = 0;
    r->unterminated = 0;
    for (;;) {
        Cur region = c;
        while (c.off < len && is_blank(s[c.off]))
            cur_step(s, len, &c);
        int quoted = c.off < len && s[c.off] == '"';
        int empty = c.off >= len || s[c.off] == ',' || is_eol(s[c.off]);
        if (add_pos(r, empty ? &region : &c, quoted) < 0)
            return -1;
        if (quoted) {
            r->quote = c;
            cur_step(s, len, &c);
            for (;;) {
                if (c.off >= len) {
                    r->unterminated = 1;
                    break;
                }
                if (s[c.off] == '"') {
                    cur_step(s, len, &c);
                    if (c.off < len && s[c.off] == '"') {
                        cur_step(s, len, &c);
                        continue;
                    }
                    break;
                }
                cur_step(s, len, &c);
            }
        }
        while (c.off < len && s[c.off] != ',' && !is_eol(s[c.off]))
            cur_step(s, len, &c);
        if (c.off < len && s[c.off] == ',') {
            cur_step(s, len, &c);
            continue;
        }
        r->end = c;
        r->next = c.off < len ? cur_next_line(s, len, c) : c;
        return 0;
    }
}

/* ---- libcsv callbacks --------------------------------------------------- */

static void on_field(void *field, size_t n, void *data)
{
    Reader *r = data;
    const char *s = field ? field : "";
    r->ncb++;
    if (r->oom || r->nfld >= SCAN_MAX_FIELDS)
        return;
    if (r->nfld == r->cap_fld) {
        int cap = r->cap_fld ? 2 * r->cap_fld : 32;
        Field *f = realloc(r->fld, (size_t)cap * sizeof *f);
        if (!f) {
            r->oom = 1;
            return;
        }
        r->fld = f;
        r->cap_fld = cap;
    }
    Field *f = &r->fld[r->nfld++];
    memset(f, 0, sizeof *f);
    if (!field)
        n = 0;
    while (n > 0 && is_blank(s[0])) {
        s++;
        n--;
    }
    while (n > 0 && is_blank(s[n - 1]))
        n--;
    if (n > TABLE_MAX_CELL) {
        f->too_long = 1;
        return;
    }
    f->has_nul = memchr(s, '\0', n) != NULL;
    f->text = malloc(n + 1);
    if (!f->text) {
        r->oom = 1;
        return;
    }
    memcpy(f->text, s, n);
    f->text[n] = '\0';
}

static void on_row(int c, void *data)
{
    (void)c;
    ((Reader *)data)->row_ended = 1;
}

/* ---- records ------------------------------------------------------------ */

static void clear_fields(Reader *r)
{
    for (int i = 0; i < r->nfld; i++)
        free(r->fld[i].text);
    r->nfld = 0;
    r->ncb = 0;
}

static int all_empty(const Reader *r)
{
    for (int i = 0; i < r->nfld; i++)
        if (r->fld[i].too_long || r->fld[i].has_nul || (r->fld[i].text && r->fld[i].text[0]))
            return 0;
    return 1;
}

static FieldPos field_pos(const Reader *r, int i, const Cur *start)
{
    if (i < r->npos)
        return r->pos[i];
    FieldPos p = {start->line, start->col, 0};
    return p;
}

static int set_header(Reader *r, const Cur *start)
{
    Table *t = r->t;
    if (r->ncb > TABLE_MAX_COLS)
        return diag_set(r->d, r->path, start->line, 0, "too many columns in the header (%d, the limit is %d)",
                        r->ncb, TABLE_MAX_COLS);
    t->col_name = calloc((size_t)r->nfld, sizeof *t->col_name);
    t->col_col = calloc((size_t)r->nfld, sizeof *t->col_col);
    if (!t->col_name || !t->col_col)
        return oom(r);
    t->header_line = start->line;
    for (int i = 0; i < r->nfld; i++) {
        Field *f = &r->fld[i];
        FieldPos p = field_pos(r, i, start);
        if (f->too_long)
            return diag_set(r->d, r->path, p.line, p.col, "header column %d: name longer than %d bytes",
                            i + 1, TABLE_MAX_CELL);
        if (f->has_nul || !utf8_valid(f->text, strlen(f->text)))
            return diag_set(r->d, r->path, p.line, p.col, "header column %d: %s in the name", i + 1,
                            f->has_nul ? "NUL byte" : "invalid UTF-8");
        if (!f->text[0])
            return diag_set(r->d, r->path, p.line, p.col, "empty column name (header column %d)", i + 1);
        for (char *q = f->text; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        for (int j = 0; j < i; j++)
            if (strcmp(t->col_name[j], f->text) == 0)
                return diag_set(r->d, r->path, p.line, p.col,
                                "duplicate column name '%s' (header columns %d and %d)", f->text, j + 1,
                                i + 1);
        t->col_name[i] = f->text;
        t->col_col[i] = p.col;
        f->text = NULL;
        t->ncol = i + 1;
    }
    r->have_header = 1;
    return 0;
}

/* The first fault of a data row, in order along the row. */
static void row_fault(const Reader *r, const Cur *start, Diag *e)
{
    const Table *t = r->t;
    for (int i = 0; i < r->nfld; i++) {
        const Field *f = &r->fld[i];
        FieldPos p = field_pos(r, i, start);
        if (i >= t->ncol) {
            diag_set(e, r->path, p.line, p.col, "row has %d fields, the header has %d", r->ncb, t->ncol);
            return;
        }
        if (f->too_long) {
            diag_set(e, r->path, p.line, p.col, "cell in column '%s' is longer than %d bytes", t->col_name[i],
                     TABLE_MAX_CELL);
            return;
        }
        if (f->has_nul) {
            diag_set(e, r->path, p.line, p.col, "NUL byte in column '%s'", t->col_name[i]);
            return;
        }
        if (!utf8_valid(f->text, strlen(f->text))) {
            diag_set(e, r->path, p.line, p.col, "invalid UTF-8 in column '%s'", t->col_name[i]);
            return;
        }
    }
    /* a short row is a fault, not a row padded with defaults: a missing
     * comma would otherwise shift nothing and say nothing */
    if (r->ncb < t->ncol)
        diag_set(e, r->path, r->end.line, r->end.col,
                 "row has %d field%s, the header has %d (no cell for column '%s'%s)", r->ncb,
                 r->ncb == 1 ? "" : "s", t->ncol, t->col_name[r->ncb],
                 r->ncb + 1 < t->ncol ? " and after" : "");
}

static int add_row(Reader *r, const Cur *start, const Diag *qerr)
{
    Table *t = r->t;
    if (!qerr && all_empty(r))
        return 0;
    if (t->nrow >= TABLE_MAX_ROWS)
        return diag_set(r->d, r->path, start->line, 0, "too many rows (the limit is %d)", TABLE_MAX_ROWS);
    if (t->nrow == r->cap_row) {
        int cap = r->cap_row ? 2 * r->cap_row : 64;
        TableRow *rows = realloc(t->row, (size_t)cap * sizeof *rows);
        if (!rows)
            return oom(r);
        t->row = rows;
        r->cap_row = cap;
    }
    if (!t->store && !(t->store = calloc(1, sizeof *t->store)))
        return oom(r);
    TableRow *row = &t->row[t->nrow];
    memset(row, 0, sizeof *row);
    row->line = start->line;
    int ncell = r->nfld > t->ncol ? r->nfld : t->ncol;
    row->cell = store_cells(t->store, (size_t)ncell);
    if (!row->cell)
        return oom(r);
    t->nrow++; /* from here table_free frees what the row holds */
    Diag e;
    diag_clear(&e);
    if (qerr)
        e = *qerr;
    else
        row_fault(r, start, &e);
    /* each cell's position: kept only where they differ from a plain
     * row's (table_cell_col) */
    int plain = !e.msg[0] && start->col == 1 && ncell <= r->nfld, col = 1;
    for (int i = 0; i < ncell; i++) {
        TableCell *c = &row->cell[i];
        c->text = store_text(t->store, i < r->nfld && r->fld[i].text ? r->fld[i].text : "");
        row->ncell = i + 1;
        if (!c->text)
            return oom(r);
        if (plain) {
            FieldPos p = field_pos(r, i, start);
            plain = p.line == start->line && p.col == col;
            col += text_chars(c->text) + 1;
        }
    }
    if (!plain) {
        if (!(row->pos = malloc(2 * (size_t)ncell * sizeof *row->pos)))
            return oom(r);
        for (int i = 0; i < ncell; i++) {
            FieldPos p = field_pos(r, i, start);
            row->pos[2 * i] = i < r->nfld ? p.line : r->end.line;
            row->pos[2 * i + 1] = i < r->nfld ? p.col : r->end.col;
        }
    }
    if (e.msg[0]) {
        row->error = malloc(sizeof *row->error);
        if (!row->error)
            return oom(r);
        *row->error = e;
    }
    return 0;
}

static int reset_parser(Reader *r)
{
    csv_free(&r->p);
    if (csv_init(&r->p, CSV_OPTS) != 0)
        return oom(r);
    return 0;
}

/* Read the record that starts at *c (not blank, not a comment) and move *c
 * past it. */
static int read_record(Reader *r, Cur *c)
{
    Cur start = *c;
    if (scan_record(r, start) < 0)
        return oom(r);
    clear_fields(r);
    r->row_ended = 0;
    size_t chunk = r->next.off - start.off;
    size_t n = csv_parse(&r->p, r->data + start.off, chunk, on_field, on_row, r);
    Diag qerr;
    int bad = 0;
    Cur resume = r->next;
    if (r->oom)
        return oom(r);
    if (n < chunk) {
        if (csv_error(&r->p) != CSV_EPARSE)
            return diag_set(r->d, r->path, start.line, 0, "%s", csv_strerror(csv_error(&r->p)));
        Cur e = cur_walk(r->data, r->len, start, start.off + n);
        int quoted = r->ncb < r->npos && r->pos[r->ncb].quoted;
        diag_set(&qerr, r->path, e.line, e.col, "%s", quoted ? MSG_QUOTE_END : MSG_QUOTE_INSIDE);
        bad = 1;
        resume = cur_next_line(r->data, r->len, e);
        if (reset_parser(r) < 0)
            return -1;
    } else if (!r->row_ended) {
        /* the last record, without a line end (or inside quotes to EOF) */
        if (csv_fini(&r->p, on_field, on_row, r) != 0) {
            if (r->unterminated) {
                diag_set(&qerr, r->path, r->quote.line, r->quote.col,
                         "unterminated quoted field (this '\"' is never closed)");
                resume = cur_next_line(r->data, r->len, r->quote);
            } else {
                diag_set(&qerr, r->path, r->end.line, r->end.col, "%s", MSG_QUOTE_END);
            }
            bad = 1;
        }
        if (r->oom)
            return oom(r);
        if (reset_parser(r) < 0)
            return -1;
    }
    *c = resume;
    if (!r->have_header) {
        if (bad) {
            if (r->d)
                *r->d = qerr;
            return -1;
        }
        if (all_empty(r))
            return 0;
        return set_header(r, &start);
    }
    return add_row(r, &start, bad ? &qerr : NULL);
}

/* ---- API ---------------------------------------------------------------- */

int table_parse(const char *path, const char *data, size_t len, Table *t, Diag *d)
{
    memset(t, 0, sizeof *t);
    if (!path)
        path = "";
    if (len > (size_t)TABLE_MAX_BYTES)
        return diag_set(d, path, 0, 0, "file too large (%zu bytes, the limit is %ld)", len, TABLE_MAX_BYTES);
    Reader r;
    memset(&r, 0, sizeof r);
    r.data = data;
    r.len = len;
    r.t = t;
    r.d = d;
    size_t plen = strlen(path) + 1;
    t->path = malloc(plen);
    if (t->path)
        memcpy(t->path, path, plen);
    r.path = path;
    if (!t->path)
        return diag_set(d, path, 0, 0, "out of memory");
    if (csv_init(&r.p, CSV_OPTS) != 0) {
        table_free(t);
        return diag_set(d, path, 0, 0, "out of memory");
    }
    Cur c = {0, 1, 1};
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        c.off = 3;
    /* another encoding: say which, not what its bytes look like as UTF-8 */
    const char *enc = len >= 4 && !memcmp(data, "\xFF\xFE\0\0", 4)   ? "UTF-32 (little-endian)"
                      : len >= 4 && !memcmp(data, "\0\0\xFE\xFF", 4) ? "UTF-32 (big-endian)"
                      : len >= 2 && !memcmp(data, "\xFF\xFE", 2)     ? "UTF-16 (little-endian)"
                      : len >= 2 && !memcmp(data, "\xFE\xFF", 2)     ? "UTF-16 (big-endian)"
                      : len >= 2 && (!data[0] || !data[1])           ? "UTF-16 or UTF-32 (no byte-order mark)"
                                                                     : NULL;
    if (enc) {
        csv_free(&r.p);
        table_free(t);
        return diag_set(d, path, 0, 0, "the table is %s text; save it as UTF-8 (or ASCII) CSV", enc);
    }
    int rc = 0;
    while (rc == 0 && c.off < len) {
        if (skip_line(&r, &c))
            continue;
        rc = read_record(&r, &c);
    }
    if (rc == 0 && !r.have_header)
        rc = diag_set(d, path, 0, 0,
                      "no header row (the file is empty or holds only comments and blank lines)");
    else if (rc == 0 && t->nrow == 0)
        rc = diag_set(d, path, t->header_line, 0, "no scenario rows (the table holds only its header)");
    csv_free(&r.p);
    clear_fields(&r);
    free(r.fld);
    free(r.pos);
    if (rc != 0)
        table_free(t);
    return rc;
}

int table_read(const char *path, Table *t, Diag *d)
{
    memset(t, 0, sizeof *t);
    /* at most TABLE_MAX_BYTES + 1 bytes: one more says it is too large */
    char *buf;
    size_t n;
    if (file_read_all(path, (size_t)TABLE_MAX_BYTES + 1, &buf, &n, d))
        return -1;
    const int rc = table_parse(path, buf, n, t, d);
    free(buf);
    return rc;
}

void table_free(Table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nrow; i++) {
        free(t->row[i].error);
        free(t->row[i].pos);
    }
    free(t->row);
    store_free(t->store);
    for (int i = 0; i < t->ncol; i++)
        free(t->col_name[i]);
    free(t->col_name);
    free(t->col_col);
    free(t->path);
    memset(t, 0, sizeof *t);
}

int table_col(const Table *t, const char *name)
{
    for (int i = 0; i < t->ncol; i++)
        if (strcasecmp(t->col_name[i], name) == 0)
            return i;
    return -1;
}
