/* io/atomic.h — files written to a temporary name beside the target and
 * renamed into place on success, so a crash never leaves half a report and
 * a failure leaves the user's previous file untouched. */
#ifndef DF_ATOMIC_H
#define DF_ATOMIC_H

#include <stdio.h>

typedef struct {
    FILE *f;
    char path[1024];
    char tmp[1100];
} AtomicFile;

/* Open path's temporary; returns the stream or NULL (errno set). */
FILE *atomic_open(AtomicFile *a, const char *path);

/* Flush, fsync and rename into place; on any error the temporary is
 * removed and -1 returned (errno set). */
int atomic_commit(AtomicFile *a);

/* Drop the temporary. */
void atomic_abort(AtomicFile *a);

/* mkdir -p */
int mkdir_p(const char *path);

#endif
