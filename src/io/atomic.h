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

/* Remove the temporaries in dir that a run which no longer exists left
 * (killed before it could rename or remove them), as told by the process
 * id in their names; a live run's files in progress are left alone.
 * Returns how many were removed.  Same-host processes only: a folder
 * shared between machines cannot tell. */
int atomic_sweep_stale(const char *dir);

/* A report is one unit: its files are written into a staging folder
 * beside them (DIR/.tmp-PID-XXXXXX, same file system) and moved into DIR
 * together at the end, so a run killed while writing leaves the previous
 * report whole (and its staging folder, which the next run sweeps).
 * atomic_stage_open creates the folder (its path in stage); publish moves
 * every file (and the charts folder's) into dir and removes the folder
 * (the first file it could not move goes to bad, errno its reason);
 * abort removes it and what it holds.  0 or -1 (errno set). */
int atomic_stage_open(const char *dir, char *stage, size_t n);
int atomic_stage_publish(const char *stage, const char *dir, char *bad, size_t n);
void atomic_stage_abort(const char *stage);

/* mkdir -p */
int mkdir_p(const char *path);

#endif
