/* core/diag.c — formatting of input diagnostics (see diag.h). */
#include "diag.h"

#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int diag_set(Diag *d, const char *file, int line, int col, const char *fmt, ...)
{
    if (!d)
        return -1;
    snprintf(d->file, sizeof d->file, "%s", file ? file : "");
    d->line = line;
    d->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    memset(d->key, 0, sizeof d->key);
    d->warning[0] = '\0';
    return -1;
}

int diag_keyed(Diag *d, const char *k0, const char *k1, const char *k2, const char *fmt, ...)
{
    if (!d)
        return -1;
    d->file[0] = '\0';
    d->line = d->col = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    const char *k[DIAG_KEYS] = {k0, k1, k2};
    for (int i = 0; i < DIAG_KEYS; i++)
        snprintf(d->key[i], sizeof d->key[i], "%s", k[i] ? k[i] : "");
    return -1;
}

int diag_format(const Diag *d, char *buf, size_t n)
{
    /* the file and the message may carry user text: escaped, never obeyed
     * by the terminal (core/text.h) */
    char raw[DIAG_FILE_MAX + DIAG_MSG_MAX + 64];
    if (!d->file[0])
        snprintf(raw, sizeof raw, "%s", d->msg);
    else if (d->line > 0 && d->col > 0)
        snprintf(raw, sizeof raw, "%s:%d:%d: %s", d->file, d->line, d->col, d->msg);
    else if (d->line > 0)
        snprintf(raw, sizeof raw, "%s:%d: %s", d->file, d->line, d->msg);
    else
        snprintf(raw, sizeof raw, "%s: %s", d->file, d->msg);
    return (int)text_escape(raw, buf, n);
}

void diag_clear(Diag *d)
{
    /* every text empty, no place: what a reader of a Diag looks at (a
     * whole memset costs more than a row's build, cleared several times
     * a row) */
    d->file[0] = '\0';
    d->line = d->col = 0;
    d->msg[0] = '\0';
    for (int k = 0; k < DIAG_KEYS; k++)
        d->key[k][0] = '\0';
    d->warning[0] = '\0';
}
