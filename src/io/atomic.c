/* io/atomic.c — write-to-temporary-then-rename (see atomic.h). */
#include "atomic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *atomic_open(AtomicFile *a, const char *path)
{
    a->buf = NULL;
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
    } else {
        a->buf = file_write_buffer(a->f);
    }
    return a->f;
}

char *file_write_buffer(FILE *f)
{
    char *buf = malloc(WRITE_BUFFER);
    if (buf && setvbuf(f, buf, _IOFBF, WRITE_BUFFER) != 0) {
        free(buf); /* stdio's own buffer then */
        buf = NULL;
    }
    return buf;
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
    free(a->buf);
    a->buf = NULL;
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
    free(a->buf);
    a->buf = NULL;
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

int file_read_all(const char *path, size_t max, char **data, size_t *len, Diag *d)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return diag_set(d, path, 0, 0, "cannot open: %s", strerror(errno));
    size_t cap = 65536 < max ? 65536 : max, n = 0;
    char *buf = malloc(cap ? cap : 1);
    int rc = buf ? 0 : diag_set(d, path, 0, 0, "out of memory");
    while (rc == 0) {
        if (n == cap) {
            if (cap == max)
                break;
            size_t ncap = 2 * cap < max ? 2 * cap : max;
            char *b = realloc(buf, ncap);
            if (!b) {
                rc = diag_set(d, path, 0, 0, "out of memory");
                break;
            }
            buf = b;
            cap = ncap;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0) {
            if (ferror(f))
                rc = diag_set(d, path, 0, 0, "cannot read: %s", strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc) {
        free(buf);
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

const char *scratch_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && dir[0] ? dir : "/tmp";
}

FILE *scratch_file(void)
{
    const char *dir = scratch_dir();
    char path[4096];
    if (snprintf(path, sizeof path, "%s/deepflow-scratch-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    const int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    unlink(path);
    FILE *f = fdopen(fd, "w+b");
    if (!f) {
        const int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}
