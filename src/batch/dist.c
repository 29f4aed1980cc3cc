/* batch/dist.c — one run across MPI ranks (see dist.h).  The protocol:
 * a rank other than 0 sends TAG_RESULT (two ints, the chunk it finished,
 * then its packed results; the first one empty) and receives TAG_CHUNK
 * (two ints: start and count; count 0: stop).  A rank that cannot go on
 * sends TAG_FAIL with the reason, and rank 0 ends the job with it.  The
 * process state here (rank, size, the saved stderr) is the process's, as
 * MPI's own is. */
#include "dist.h"

#include <stdio.h>
#include <string.h>

#ifdef DF_MPI

#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { TAG_RESULT = 1, TAG_CHUNK = 2, TAG_FAIL = 3 };

/* A rank that fails ends the job with this status (main's exit codes
 * stop at 4). */
#define DIST_EXIT_RANK 5

/* The most bytes a chunk's results take in one message. */
#define DIST_MESSAGE_MAX ((size_t)16 << 20)

static int g_rank, g_size = 1, g_started, g_err_fd = 2;

int dist_init(int *argc, char ***argv)
{
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return -1;
    g_started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (g_rank > 0) {
        /* rank 0 speaks for the run; the others keep a way to say why they fail */
        g_err_fd = dup(2);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
            close(null);
        }
        if (g_err_fd < 0)
            g_err_fd = 2;
    }
    return 0;
}

void dist_finish(void)
{
    if (g_started)
        MPI_Finalize();
    g_started = 0;
}

int dist_rank(void)
{
    return g_rank;
}

int dist_size(void)
{
    return g_size;
}

int dist_local_size(void)
{
    if (g_size < 2)
        return 1;
    MPI_Comm local;
    int n = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
        MPI_Comm_size(local, &n);
        MPI_Comm_free(&local);
    }
    return n > 0 ? n : 1;
}

int dist_all_ok(int ok)
{
    if (g_size < 2)
        return ok != 0;
    int mine = ok != 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* Rows per chunk: a share of what is left (guided self-scheduling), at
 * least one, at most what one message holds. */
static int chunk_rows(const DistJob *job, int left)
{
    size_t by_size = DIST_MESSAGE_MAX / (job->item_max ? job->item_max : 1);
    int most = by_size > 1024 ? 1024 : by_size < 1 ? 1 : (int)by_size;
    int c = left / (4 * g_size);
    return c < 1 ? 1 : c > most ? most : c;
}

_Noreturn static void fail_job(const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dprintf(g_err_fd, "deepflow: %s (no report written)\n", msg);
    MPI_Abort(MPI_COMM_WORLD, DIST_EXIT_RANK);
    _exit(DIST_EXIT_RANK); /* MPI_Abort does not return; its declaration does not say so */
}

static int serve(DistJob *job)
{
    atomic_int *next = job->next, *done = job->done;
    int active = g_size - 1;
    /* rows each rank evaluated, told on stderr with DEEPFLOW_DIST_LOG set */
    int *rows = calloc((size_t)g_size, sizeof *rows);
    unsigned char *buf = NULL;
    size_t cap = 0;
    struct timespec t_last;
    clock_gettime(CLOCK_MONOTONIC, &t_last);
    while (atomic_load(done) < job->n || active > 0) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            struct timespec nap = {0, 200 * 1000}, now;
            nanosleep(&nap, NULL);
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (job->progress && (now.tv_sec - t_last.tv_sec) * 1000000000L + (now.tv_nsec - t_last.tv_nsec) >
                                     100 * 1000 * 1000L) {
                job->progress(atomic_load(done), job->n, job->progress_ctx);
                t_last = now;
            }
            continue;
        }
        int len = 0;
        MPI_Get_count(&st, MPI_BYTE, &len);
        if ((size_t)len + 1 > cap) {
            unsigned char *b = realloc(buf, (size_t)len + 1);
            if (!b)
                fail_job("rank 0: out of memory for %d bytes of results from rank %d", len, st.MPI_SOURCE);
            buf = b;
            cap = (size_t)len + 1;
        }
        MPI_Recv(buf, len, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (st.MPI_TAG == TAG_FAIL) {
            buf[len] = '\0';
            fail_job("rank %d failed: %s", st.MPI_SOURCE, (const char *)buf);
        }
        int hdr[2];
        if (st.MPI_TAG != TAG_RESULT || (size_t)len < sizeof hdr)
            fail_job("rank %d sent a malformed message (tag %d, %d bytes)", st.MPI_SOURCE, st.MPI_TAG, len);
        memcpy(hdr, buf, sizeof hdr);
        size_t at = sizeof hdr;
        for (int i = hdr[0]; i < hdr[0] + hdr[1]; i++) {
            size_t used = i >= 0 && i < job->n ? job->unpack(job->ctx, i, buf + at, (size_t)len - at) : 0;
            if (!used)
                fail_job("rank %d sent a malformed result for row %d", st.MPI_SOURCE, i + 1);
            at += used;
        }
        atomic_fetch_add(done, hdr[1]);
        if (rows)
            rows[st.MPI_SOURCE] += hdr[1];
        /* the next chunk, or stop */
        int left = job->n - atomic_load(next), give[2] = {0, 0};
        if (left > 0) {
            int c = chunk_rows(job, left);
            give[0] = atomic_fetch_add(next, c);
            give[1] = give[0] >= job->n ? 0 : give[0] + c > job->n ? job->n - give[0] : c;
        }
        if (give[1] == 0)
            active--;
        MPI_Send(give, 2, MPI_INT, st.MPI_SOURCE, TAG_CHUNK, MPI_COMM_WORLD);
    }
    free(buf);
    if (job->progress)
        job->progress(job->n, job->n, job->progress_ctx);
    if (rows && getenv("DEEPFLOW_DIST_LOG")) {
        rows[0] = job->n;
        for (int r = 1; r < g_size; r++)
            rows[0] -= rows[r];
        fprintf(stderr, "deepflow: rows evaluated by rank:");
        for (int r = 0; r < g_size; r++)
            fprintf(stderr, " %d: %d%s", r, rows[r], r + 1 < g_size ? "," : "\n");
    }
    free(rows);
    return 0;
}

_Noreturn static void worker_fail(const char *msg)
{
    MPI_Send(msg, (int)strlen(msg), MPI_BYTE, 0, TAG_FAIL, MPI_COMM_WORLD);
    /* rank 0 ends the job; should it not, say so here */
    dprintf(g_err_fd, "deepflow: rank %d: %s\n", g_rank, msg);
    MPI_Abort(MPI_COMM_WORLD, DIST_EXIT_RANK);
    _exit(DIST_EXIT_RANK);
}

/* Ask, evaluate, send, until told to stop: 0, or -1 with why in err. */
static int work(DistJob *job, char *err, size_t n)
{
    /* a test of how the run ends when a rank dies: DEEPFLOW_DIST_KILL=RANK */
    const char *kill_rank = getenv("DEEPFLOW_DIST_KILL");
    const int die = kill_rank && strtol(kill_rank, NULL, 10) == g_rank;
    int hdr[2] = {0, 0};
    size_t cap = sizeof hdr, len = sizeof hdr;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    memcpy(buf, hdr, sizeof hdr);
    for (;;) {
        MPI_Send(buf, (int)len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        int give[2];
        MPI_Recv(give, 2, MPI_INT, 0, TAG_CHUNK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (give[1] <= 0)
            break;
        if (die)
            raise(SIGKILL);
        job->eval(job->ctx, give[0], give[0] + give[1]);
        size_t need = sizeof hdr + (size_t)give[1] * job->item_max;
        if (need > cap) {
            unsigned char *b = realloc(buf, need);
            if (!b) {
                free(buf);
                snprintf(err, n, "out of memory for the results of %d rows", give[1]);
                return -1;
            }
            buf = b;
            cap = need;
        }
        memcpy(buf, give, sizeof hdr);
        len = sizeof hdr;
        for (int i = give[0]; i < give[0] + give[1]; i++) {
            size_t used = job->pack(job->ctx, i, buf + len, cap - len);
            if (!used) {
                free(buf);
                snprintf(err, n, "the result of row %d does not fit its message", i + 1);
                return -1;
            }
            len += used;
        }
    }
    free(buf);
    return 0;
}

int dist_share(DistJob *job, char *err, size_t n)
{
    if (g_rank == 0)
        return serve(job);
    if (work(job, err, n))
        worker_fail(err);
    return 0;
}

#else /* one process */

int dist_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

void dist_finish(void)
{
}

int dist_rank(void)
{
    return 0;
}

int dist_size(void)
{
    return 1;
}

int dist_local_size(void)
{
    return 1;
}

int dist_all_ok(int ok)
{
    return ok != 0;
}

int dist_share(DistJob *job, char *err, size_t n)
{
    (void)job;
    snprintf(err, n, "this deepflow was built without MPI (make MPI=1)");
    return -1;
}

#endif
