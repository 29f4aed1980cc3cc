/* core/diag.h — one diagnostic type for bad input: where (file, line,
 * column), what (key or column), and a message saying what was expected and
 * what was found.  Filled where the fault is found, printed in one place as
 * "file:line:col: message" (Lua/jq style).  Line and column are 1-based;
 * 0 means "not known". */
#ifndef DF_DIAG_H
#define DF_DIAG_H

#include <stddef.h>

#define DIAG_FILE_MAX 512
#define DIAG_MSG_MAX  512
#define DIAG_KEYS     3

typedef struct {
    char file[DIAG_FILE_MAX]; /* path as the user gave it; "" if none */
    int line;                 /* 1-based, 0 unknown */
    int col;                  /* 1-based, 0 unknown */
    char msg[DIAG_MSG_MAX];   /* e.g. "column 'devices': expected a positive integer, got '-8'" */
    /* the parameters at fault, most likely first ("": none): a caller that
     * knows where each was set places the message at the first one set */
    char key[DIAG_KEYS][64];
    /* a warning a successful call leaves (the value was taken, but looks
     * like a slip): "" none; the caller reports it with its place */
    char warning[512];
} Diag;

/* Fill d (d may be NULL: then nothing happens); its keys are cleared.
 * Returns -1 so that callers can write `return diag_set(...)`. */
int diag_set(Diag *d, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* diag_set without a place, naming the keys at fault (k1, k2 may be NULL)
 * so that the caller can place it: returns -1. */
int diag_keyed(Diag *d, const char *k0, const char *k1, const char *k2, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* "file:line:col: msg", "file:line: msg", "file: msg" or "msg" depending on
 * what is known.  Always NUL-terminates; returns the length it wanted. */
int diag_format(const Diag *d, char *buf, size_t n);

/* Clear to the empty diagnostic. */
void diag_clear(Diag *d);

#endif
