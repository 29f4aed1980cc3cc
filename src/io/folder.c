/* io/folder.c — a report folder as one unit (see folder.h). */
#include "folder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "atomic.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define FOLDER_MAX_DEPTH 32
#define FOLDER_PATH      1400

/* dir as the folder to swap: a link to a folder is followed (the link
 * keeps pointing at the report), trailing slashes dropped; its parent and
 * name. */
typedef struct {
    char path[FOLDER_PATH], parent[FOLDER_PATH], base[FOLDER_PATH];
} Where;

static int where(const char *dir, Where *w)
{
    struct stat st;
    char real[PATH_MAX];
    if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) && realpath(dir, real))
        dir = real;
    int k = snprintf(w->path, sizeof w->path, "%s", dir);
    if (k < 0 || (size_t)k >= sizeof w->path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    size_t len = strlen(w->path);
    while (len > 1 && w->path[len - 1] == '/')
        w->path[--len] = '\0';
    const char *slash = strrchr(w->path, '/');
    if (!slash) {
        snprintf(w->parent, sizeof w->parent, ".");
        snprintf(w->base, sizeof w->base, "%s", w->path);
    } else {
        snprintf(w->parent, sizeof w->parent, "%.*s", slash == w->path ? 1 : (int)(slash - w->path), w->path);
        snprintf(w->base, sizeof w->base, "%s", slash + 1);
    }
    if (!w->base[0] || !strcmp(w->base, ".") || !strcmp(w->base, "..")) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

/* Remove a folder and what it holds. */
static int remove_tree(const char *path, int depth)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    if (depth > FOLDER_MAX_DEPTH)
        return -1;
    DIR *d = opendir(path);
    if (!d)
        return -1;
    const struct dirent *e;
    char sub[FOLDER_PATH];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        remove_tree(sub, depth + 1);
    }
    closedir(d);
    return rmdir(path);
}

int folder_stage_open(const char *dir, char *stage, size_t n)
{
    Where w = {{0}, {0}, {0}};
    if (where(dir, &w) || mkdir_p(w.parent))
        return -1;
    const int k = snprintf(stage, n, "%s/.%s.deepflow-%ld-XXXXXX", w.parent, w.base, (long)getpid());
    if (k < 0 || (size_t)k >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (!mkdtemp(stage))
        return -1;
    const mode_t um = umask(0); /* mkdtemp's 0700 would become the report's: a folder as mkdir makes it */
    umask(um);
    chmod(stage, 0777 & ~um);
    return 0;
}

void folder_stage_abort(const char *stage)
{
    remove_tree(stage, 0);
}

int folder_lock(const char *dir, int wait, int *fd)
{
    Where w = {{0}, {0}, {0}};
    char path[2 * FOLDER_PATH + 64];
    *fd = -1;
    if (where(dir, &w))
        return -1;
    if (mkdir_p(w.parent)) {
        struct stat st;
        if (stat(w.parent, &st) == 0 && !S_ISDIR(st.st_mode))
            errno = ENOTDIR;
        return -1;
    }
    snprintf(path, sizeof path, "%s/.%s.deepflow-lock", w.parent, w.base);
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644); /* gnuplot, exec'd, does not hold it */
    if (*fd < 0)
        return -2;
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    if (errno != EWOULDBLOCK || !wait) {
        const int e = errno;
        close(*fd);
        *fd = -1;
        errno = e;
        return e == EWOULDBLOCK ? 1 : -2;
    }
    fprintf(stderr, "deepflow: another run is writing %s; waiting for it to end (--no-wait: fail instead)\n",
            dir);
    while (flock(*fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            const int e = errno;
            close(*fd);
            *fd = -1;
            errno = e;
            return -2;
        }
    return 0;
}

/* 1 when process pid is gone: no such process, or a zombie (Linux's /proc
 * tells; elsewhere a zombie counts as alive). */
static int process_gone(long pid)
{
    if (kill((pid_t)pid, 0) != 0)
        return errno == ESRCH;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    const size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    const char *p = strrchr(buf, ')'); /* "pid (comm) S ...": the name may hold spaces and ')' */
    return p && p[1] == ' ' && p[2] == 'Z';
}

int folder_sweep(const char *dir)
{
    Where w = {{0}, {0}, {0}};
    if (where(dir, &w))
        return 0;
    DIR *d = opendir(w.parent);
    if (!d)
        return 0;
    char prefix[FOLDER_PATH + 32], path[2 * FOLDER_PATH + 64];
    const int pl = snprintf(prefix, sizeof prefix, ".%s.deepflow-", w.base);
    int n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (pl <= 0 || strncmp(e->d_name, prefix, (size_t)pl))
            continue;
        char *end;
        const long pid = strtol(e->d_name + pl, &end, 10);
        if (end == e->d_name + pl || *end != '-' || pid <= 0 || pid == (long)getpid() || !process_gone(pid))
            continue;
        snprintf(path, sizeof path, "%s/%s", w.parent, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && remove_tree(path, 0) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* ---- the manifest -------------------------------------------------------- */

typedef struct {
    char **p;
    int n, cap;
} Names;

static int names_add(Names *s, const char *name)
{
    if (s->n == s->cap) {
        const int cap = s->cap ? 2 * s->cap : 64;
        char **p = realloc(s->p, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        s->p = p;
        s->cap = cap;
    }
    return (s->p[s->n] = strdup(name)) ? (s->n++, 0) : -1;
}

static void names_free(Names *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->p[i]);
    free(s->p);
    s->p = NULL;
    s->n = s->cap = 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int names_has(const Names *s, const char *name)
{
    return s->n && bsearch(&name, s->p, (size_t)s->n, sizeof *s->p, cmp_name) != NULL;
}

/* Every file under root/rel, as paths relative to root; an empty folder
 * as its path and a '/'. */
static int list_files(const char *root, const char *rel, int depth, Names *out)
{
    char path[FOLDER_PATH];
    snprintf(path, sizeof path, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int rc = 0;
    const struct dirent *e;
    while (!rc && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char sub[FOLDER_PATH], full[2 * FOLDER_PATH + 64];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            const int before = out->n;
            rc = depth < FOLDER_MAX_DEPTH ? list_files(root, sub, depth + 1, out) : -1;
            if (!rc && out->n == before) { /* an empty folder: an entry of its own, "NAME/" */
                char dirname[FOLDER_PATH + 2];
                snprintf(dirname, sizeof dirname, "%s/", sub);
                rc = names_add(out, dirname);
            }
        } else {
            rc = names_add(out, sub);
        }
    }
    closedir(d);
    return rc;
}

static int write_manifest(const char *stage)
{
    Names mine = {0};
    if (list_files(stage, "", 0, &mine)) {
        names_free(&mine);
        return -1;
    }
    if (mine.n > 0)
        qsort(mine.p, (size_t)mine.n, sizeof *mine.p, cmp_name);
    char path[FOLDER_PATH + 40];
    snprintf(path, sizeof path, "%s/%s", stage, FOLDER_MANIFEST);
    FILE *f = fopen(path, "w");
    int bad = !f;
    if (f) {
        fprintf(f,
                "# deepflow: the files of this report; a rerun replaces these and keeps every other file\n");
        for (int i = 0; i < mine.n; i++)
            fprintf(f, "%s\n", mine.p[i]);
        bad = ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0;
        bad |= fclose(f) != 0;
    }
    names_free(&mine);
    return bad ? -1 : 0;
}

/* The old manifest's names (sorted); 0 when there is none. */
static int read_manifest(const char *dir, Names *out, int *have)
{
    char path[FOLDER_PATH + 40], line[FOLDER_PATH];
    snprintf(path, sizeof path, "%s/%s", dir, FOLDER_MANIFEST);
    FILE *f = fopen(path, "r");
    *have = f != NULL;
    if (!f)
        return errno == ENOENT ? 0 : -1;
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] && line[0] != '#')
            rc = names_add(out, line);
    }
    fclose(f);
    if (out->n > 0)
        qsort(out->p, (size_t)out->n, sizeof *out->p, cmp_name);
    return rc;
}

/* ---- carrying the user's files over -------------------------------------- */

static void note_name(char *list, size_t n, const char *name)
{
    const size_t u = strlen(list);
    if (u + strlen(name) + 8 < n)
        snprintf(list + u, n - u, "%s%s", u ? ", " : "", name);
    else if (u + 5 < n && !strstr(list, "..."))
        snprintf(list + u, n - u, ", ...");
}

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return -1;
    FILE *out = fopen(to, "wb");
    if (!out) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t k;
    int bad = 0;
    while (!bad && (k = fread(buf, 1, sizeof buf, in)) > 0)
        bad = fwrite(buf, 1, k, out) != k;
    bad |= ferror(in) || fflush(out) != 0 || fsync(fileno(out)) != 0;
    fclose(in);
    bad |= fclose(out) != 0;
    return bad ? -1 : 0;
}

/* Put the old folder's file rel into the stage: a hard link (the same
 * file, nothing copied), else a copy. */
static int carry(const char *dir, const char *stage, const char *rel)
{
    char from[2 * FOLDER_PATH + 64], to[2 * FOLDER_PATH + 64], sub[2 * FOLDER_PATH + 64];
    snprintf(from, sizeof from, "%s/%s", dir, rel);
    snprintf(to, sizeof to, "%s/%s", stage, rel);
    snprintf(sub, sizeof sub, "%s", to);
    char *slash = strrchr(sub, '/');
    if (slash) {
        *slash = '\0';
        if (mkdir_p(sub))
            return -1;
    }
    if (linkat(AT_FDCWD, from, AT_FDCWD, to, 0) == 0)
        return 0;
    struct stat st;
    return lstat(from, &st) == 0 && S_ISREG(st.st_mode) ? copy_file(from, to) : -1;
}

/* The old folder's files that its manifest does not list, into the stage
 * (or, unforced, a refusal when there is no manifest or one would be
 * replaced).  0, 1 refused, -1 with errno. */
static int carry_foreign(const char *dir, const char *stage, int force, FolderNote *note)
{
    Names old = {0}, ours = {0};
    int have = 0, rc = 0;
    if (read_manifest(dir, &ours, &have) || list_files(dir, "", 0, &old)) {
        names_free(&ours);
        names_free(&old);
        snprintf(note->why, sizeof note->why, "cannot read the folder %.1200s", dir);
        return -1;
    }
    if (old.n > 0)
        qsort(old.p, (size_t)old.n, sizeof *old.p, cmp_name);
    int foreign = 0, clash = 0;
    char fnames[400] = "", cnames[400] = "";
    for (int i = 0; i < old.n; i++) {
        const char *p = old.p[i];
        if (!strcmp(p, FOLDER_MANIFEST) || names_has(&ours, p))
            continue;
        char in_stage[2 * FOLDER_PATH + 64];
        snprintf(in_stage, sizeof in_stage, "%s/%s", stage, p);
        struct stat st;
        const int written = lstat(in_stage, &st) == 0;
        if (!have && !force) {
            if (foreign++ < 6)
                note_name(fnames, sizeof fnames, p);
            continue;
        }
        if (written) {
            if (!force) {
                if (clash++ < 6)
                    note_name(cnames, sizeof cnames, p);
                continue;
            }
            note->replaced++;
            note_name(note->replaced_names, sizeof note->replaced_names, p);
            continue;
        }
        if (p[strlen(p) - 1] == '/' ? mkdir_p(in_stage) : carry(dir, stage, p)) {
            snprintf(note->why, sizeof note->why,
                     "cannot keep your %.1200s/%.1200s in the new report: %.200s", dir, p, strerror(errno));
            rc = -1;
            break;
        }
        note->kept++;
        note_name(note->names, sizeof note->names, p);
    }
    if (!rc && foreign) {
        snprintf(note->why, sizeof note->why,
                 "%.1200s holds %d file%s that no deepflow manifest lists (%s%s): they may be yours, or a "
                 "report of "
                 "an earlier deepflow; nothing was written. Rerun with --force to write the report there (it "
                 "keeps every file it does not write), or choose another folder with -o",
                 dir, foreign, foreign == 1 ? "" : "s", fnames, foreign > 6 ? ", ..." : "");
        rc = 1;
    } else if (!rc && clash) {
        snprintf(note->why, sizeof note->why,
                 "%.1200s holds %s, which no earlier report wrote and this one would replace; nothing was "
                 "written. "
                 "Move %s, or rerun with --force to replace %s",
                 dir, cnames, clash == 1 ? "it" : "them", clash == 1 ? "it" : "them");
        rc = 1;
    }
    names_free(&ours);
    names_free(&old);
    return rc;
}

/* ---- the swap ------------------------------------------------------------- */

int folder_publish(const char *stage, const char *dir, int force, FolderNote *note)
{
    memset(note, 0, sizeof *note);
    Where w = {{0}, {0}, {0}};
    if (where(dir, &w)) {
        snprintf(note->why, sizeof note->why, "%s: %s", dir, strerror(errno));
        return -1;
    }
    if (write_manifest(stage)) {
        snprintf(note->why, sizeof note->why, "cannot write the report's manifest: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(w.path, &st) != 0) {
        if (errno != ENOENT || rename(stage, w.path) != 0) {
            snprintf(note->why, sizeof note->why, "cannot move the report into %s: %s", dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        snprintf(note->why, sizeof note->why, "%s is not a folder", dir);
        return -1;
    }
    const int rc = carry_foreign(w.path, stage, force, note);
    if (rc)
        return rc;
    /* one step: the new report takes the old one's place; the stage's
     * name then holds the old report, removed after */
    if (syscall(SYS_renameat2, AT_FDCWD, stage, AT_FDCWD, w.path, RENAME_EXCHANGE) == 0) {
        remove_tree(stage, 0);
        return 0;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EPERM) {
        snprintf(note->why, sizeof note->why, "cannot move the report into %s: %s", dir, strerror(errno));
        return -1;
    }
    /* no exchange on this file system: the old report aside, the new one
     * in, the old one removed; the target is never a mix */
    char old[2 * FOLDER_PATH + 64];
    snprintf(old, sizeof old, "%s/.%s.deepflow-%ld-old", w.parent, w.base, (long)getpid());
    if (rename(w.path, old) != 0) {
        snprintf(note->why, sizeof note->why, "cannot move the earlier report aside: %s", strerror(errno));
        return -1;
    }
    if (rename(stage, w.path) != 0) {
        const int e = errno;
        rename(old, w.path);
        errno = e;
        snprintf(note->why, sizeof note->why, "cannot move the report into %s: %s", dir, strerror(e));
        return -1;
    }
    remove_tree(old, 0);
    return 0;
}
