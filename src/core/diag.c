/* core/diag.c — formatting of input diagnostics (see diag.h). */
#include "diag.h"

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
    return -1;
}

int diag_format(const Diag *d, char *buf, size_t n)
{
    if (!d->file[0])
        return snprintf(buf, n, "%s", d->msg);
    if (d->line > 0 && d->col > 0)
        return snprintf(buf, n, "%s:%d:%d: %s", d->file, d->line, d->col, d->msg);
    if (d->line > 0)
        return snprintf(buf, n, "%s:%d: %s", d->file, d->line, d->msg);
    return snprintf(buf, n, "%s: %s", d->file, d->msg);
}

void diag_clear(Diag *d)
{
    memset(d, 0, sizeof *d);
}
