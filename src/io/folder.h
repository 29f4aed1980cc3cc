/* io/folder.h — a report folder as one unit (issue 29).
 *
 * A run builds its whole report in a staging folder beside the target
 * (PARENT/.NAME.deepflow-PID-XXXXXX: the same file system), writes there a
 * manifest of the files it wrote (.deepflow-manifest), carries over into it
 * every file of the old folder that the old manifest does not list (the
 * user's own: hard links, so nothing is copied or lost), and only then
 * swaps the two folders in one step (renameat2 RENAME_EXCHANGE; where the
 * file system has no exchange, two renames with no moment when the target
 * holds a mix) and removes the old one.  A run that fails or is killed
 * before the swap leaves the old report byte for byte (and its staging
 * folder, which the next run sweeps when its process is gone); after it,
 * the new report is whole.  A lock file beside the target
 * (PARENT/.NAME.deepflow-lock, flock) lets one run write at a time.
 *
 * A folder that holds files and no manifest (the user's, or a report of a
 * deepflow before manifests) is refused unless the run is forced; forced,
 * nothing in it is removed that the new report does not write. */
#ifndef DF_FOLDER_H
#define DF_FOLDER_H

#include <stddef.h>

#define FOLDER_MANIFEST ".deepflow-manifest"

/* The staging folder beside dir (its parent created); its path in stage.
 * 0, or -1 with errno. */
int folder_stage_open(const char *dir, char *stage, size_t n);

/* Remove a staging folder and what it holds. */
void folder_stage_abort(const char *stage);

/* Take the lock of dir.  wait: block until it is free (saying so once on
 * stderr when it is held); else return 1 when it is held.  *fd is kept
 * open for the life of the run.  0, 1, -1 when dir's parent folder cannot
 * be made, -2 when the lock cannot be taken (errno says why). */
int folder_lock(const char *dir, int wait, int *fd);

/* Remove the staging and old folders beside dir that runs no longer
 * alive left; how many. */
int folder_sweep(const char *dir);

typedef struct {
    int kept;        /* the user's files carried into the new report */
    int replaced;    /* (forced) the user's files the new report wrote over */
    char names[400]; /* the first kept ones, comma-separated */
    char replaced_names[400];
    char why[4096]; /* a refusal: the foreign files, and what to do */
} FolderNote;

/* Publish stage as dir (see above).  0; 1 refused (note->why: files
 * without a manifest, or a file of the user's the new report would
 * replace, when not forced); -1 with errno (note->why names the step).
 * On anything but 0 the stage is left for the caller to abort. */
int folder_publish(const char *stage, const char *dir, int force, FolderNote *note);

#endif
