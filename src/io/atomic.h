/* io/atomic.h — files written to a temporary name beside the target and
 * renamed into place on success, so a crash never leaves half a report and
 * a failure leaves the user's previous file untouched. */
#ifndef DF_ATOMIC_H
#define DF_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

#include "core/diag.h"

typedef struct {
    FILE *f;
    char *buf; /* the stream's buffer (file_write_buffer), or NULL: stdio's own */
    char path[1024];
    char tmp[1100];
} AtomicFile;

/* A large write buffer for f, set before its first write (reports of a
 * million rows go out in a few thousand writes rather than one a row):
 * returned for the caller to free after fclose, or NULL where f keeps
 * stdio's own. */
#define WRITE_BUFFER (256 * 1024)
char *file_write_buffer(FILE *f);

/* Open path's temporary; returns the stream or NULL (errno set). */
FILE *atomic_open(AtomicFile *a, const char *path);

/* Flush, fsync and rename into place; on any error the temporary is
 * removed and -1 returned (errno set). */
int atomic_commit(AtomicFile *a);

/* Drop the temporary. */
void atomic_abort(AtomicFile *a);

/* Read the file at path whole, at most max bytes (ask for one more than a
 * limit to tell a file that passes it): *data (the caller frees it) and
 * *len.  0, or -1 with d: "cannot open: ...", "cannot read: ...", "out of
 * memory" (*data NULL). */
int file_read_all(const char *path, size_t max, char **data, size_t *len, Diag *d);

/* mkdir -p */
int mkdir_p(const char *path);

/* A scratch file for a run's own use ("w+b"), in $TMPDIR (/tmp when unset
 * or empty) and already unlinked, so it goes when it is closed or the
 * program ends: tmpfile(3) ignores $TMPDIR, and a large study's scratch
 * (its results between the passes, the workbook's rows) belongs where the
 * user points it.  NULL with errno set. */
FILE *scratch_file(void);
/* Where scratch_file puts them, for messages. */
const char *scratch_dir(void);

#endif
