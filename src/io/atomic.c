/* io/atomic.c — write-to-temporary-then-rename (see atomic.h). */
#include "atomic.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *atomic_open(AtomicFile *a, const char *path)
{
    snprintf(a->path, sizeof a->path, "%s", path);
    /* the process id lets a later run tell a dead run's leftover from a
     * live run's file in progress (atomic_sweep_stale) */
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp-%ld-XXXXXX", path, (long)getpid());
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        a->f = NULL;
        return NULL;
    }
    fchmod(fd, 0644);
    a->f = fdopen(fd, "w");
    if (!a->f) {
        int e = errno;
        close(fd);
        unlink(a->tmp);
        errno = e;
    }
    return a->f;
}

int atomic_commit(AtomicFile *a)
{
    if (!a->f)
        return -1;
    int bad = ferror(a->f) || fflush(a->f) != 0 || fsync(fileno(a->f)) != 0;
    int e = errno;
    if (fclose(a->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    a->f = NULL;
    if (!bad && rename(a->tmp, a->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(a->tmp);
        errno = e;
        return -1;
    }
    return 0;
}

void atomic_abort(AtomicFile *a)
{
    if (a->f) {
        fclose(a->f);
        a->f = NULL;
    }
    unlink(a->tmp);
}

int mkdir_p(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    size_t len = strlen(buf);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            buf[i] = c;
        }
    }
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* The process id in a temporary's name: "NAME.tmp-PID-XXXXXX" (atomic_open)
 * or ".tmp-render-PID-NAME" (the chart renderer); 0 for any other name. */
static long temp_owner(const char *name)
{
    const char *p = strstr(name, ".tmp-");
    if (!p)
        return 0;
    p += 5;
    if (!strncmp(p, "render-", 7))
        p += 7;
    char *end;
    long pid = strtol(p, &end, 10);
    return end != p && *end == '-' && pid > 0 ? pid : 0;
}

/* Remove a folder and what it holds (a dead run's staging folder: files
 * and the charts folder in it). */
static int remove_tree(const char *path, int depth)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    if (depth > 4)
        return -1;
    DIR *d = opendir(path);
    if (!d)
        return -1;
    const struct dirent *e;
    char sub[1400];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        remove_tree(sub, depth + 1);
    }
    closedir(d);
    return rmdir(path);
}

int atomic_stage_open(const char *dir, char *stage, size_t n)
{
    if (mkdir_p(dir))
        return -1;
    int w = snprintf(stage, n, "%s/.tmp-%ld-XXXXXX", dir, (long)getpid());
    if (w < 0 || (size_t)w >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return mkdtemp(stage) ? 0 : -1;
}

/* Move every regular file of src into dst (created), then remove src; the
 * first target that could not be written goes to bad (errno kept). */
static int move_files(const char *src, const char *dst, char *bad, size_t n, int *bad_errno)
{
    if (mkdir_p(dst))
        return -1;
    DIR *d = opendir(src);
    if (!d)
        return -1;
    int rc = 0;
    const struct dirent *e;
    char from[1400], to[1400];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(from, sizeof from, "%s/%s", src, e->d_name);
        snprintf(to, sizeof to, "%s/%s", dst, e->d_name);
        struct stat st;
        if (lstat(from, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (move_files(from, to, bad, n, bad_errno))
                rc = -1;
        } else if (rename(from, to) != 0) {
            if (rc == 0 && bad && !bad[0]) {
                *bad_errno = errno;
                snprintf(bad, n, "%s", to);
            }
            rc = -1;
        }
    }
    closedir(d);
    if (rmdir(src) != 0)
        rc = -1;
    return rc;
}

int atomic_stage_publish(const char *stage, const char *dir, char *bad, size_t n)
{
    int e = 0;
    if (bad && n)
        bad[0] = '\0';
    int rc = move_files(stage, dir, bad, n, &e);
    if (rc && e)
        errno = e;
    return rc;
}

void atomic_stage_abort(const char *stage)
{
    remove_tree(stage, 0);
}

/* 1 when process pid is gone: no such process, or a zombie (dead, not yet
 * reaped: a killed MPI rank's parent may not reap it at once); Linux's
 * /proc tells the second, elsewhere a zombie counts as alive. */
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

int atomic_sweep_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    const struct dirent *e;
    char path[1400];
    while ((e = readdir(d)) != NULL) {
        const long pid = temp_owner(e->d_name);
        if (pid <= 0 || pid == (long)getpid() || !process_gone(pid))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISREG(st.st_mode) && unlink(path) == 0)
            n++;
        else if (S_ISDIR(st.st_mode) && remove_tree(path, 0) == 0) /* a dead run's staging folder */
            n++;
    }
    closedir(d);
    return n;
}
