/*
 * The race check (debug.races): the dependencies the task graph declares, tested against the
 * memory the device kernels touch.
 *
 * A host device runs one task at a time, so two tasks of different streams that a missing
 * dependency leaves unordered never overlap there, and the tests on host devices pass; on a GPU
 * their kernels would run at once.  With the check on, the runtime records every task and every
 * dependency it links (also those on tasks already finished, and the finished readers that the
 * region table would otherwise forget), and each device kernel's dispatcher and CPU tile kernel
 * notes the memory it reads and writes (hyt_races_note).  hyt_sequence_wait then looks at every
 * two notes that overlap, one of them writing, of tasks that may run at once (not two of one
 * device stream, which runs its tasks in order), one of them the waited sequence's: when no
 * path of dependencies orders the two tasks, the sequence fails with HYT_ERR_RACE and both
 * tasks named.  A task's notes are there once it has run: a race with a task of another
 * sequence that has not run yet is reported at that sequence's wait.  (CPU tasks do run at once
 * on several workers, but ThreadSanitizer misses two that ran one after the other through the
 * scheduler's locks.)
 *
 * The order found does not depend on the schedule: a task's dependencies are all linked when it
 * is inserted, a path runs from earlier insertions to later ones, and a waited sequence orders
 * its tasks before those inserted after the wait.  The records are dropped at a wait that finds
 * the context idle.
 */
#include "rt_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Tasks between two idle points that the check takes (its bit matrix: n^2 / 8 bytes). */
#define RACES_MAX_TASKS 20000

typedef struct {
    uint64_t id;
    const char *name;
    const hyt_sequence_t *seq;
    int device, stream, tag[3];
} rtask_t;

typedef struct {
    uint64_t pred, succ;
} redge_t;

/* cols runs of bytes each, stride apart, from lo */
typedef struct {
    uint64_t id;
    uintptr_t lo;
    size_t stride, bytes, cols;
    int write;
    const char *what;
} rnote_t;

typedef struct {
    const hyt_sequence_t *seq;
    uint64_t upto; /* the last task inserted when the wait returned */
} rwait_t;

/* bytes [lo, hi) freed when the last task inserted was mark */
typedef struct {
    uintptr_t lo, hi;
    uint64_t mark;
} rfree_t;

struct hyt_races {
    pthread_mutex_t lock;
    uint64_t base;     /* the id of the window's first task (set by it) */
    rtask_t *tasks;    /* ids base, base + 1, ... */
    redge_t *edges;
    rnote_t *notes;
    rwait_t *waits;
    rfree_t *frees;
    size_t ntasks, nedges, nnotes, nwaits, nfrees, ctasks, cedges, cnotes, cwaits, cfrees;
    int lost;          /* out of memory while recording */
};

/* The task whose body the calling thread runs (0: none), and its context's records. */
static _Thread_local uint64_t races_current;
static _Thread_local hyt_races_t *races_R;

/* Room for one more element in *a (n of cap); 0 or -1. */
static int room(void **a, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 256;
    void *p = realloc(*a, c * size);
    if (!p)
        return -1;
    *a = p;
    *cap = c;
    return 0;
}

#define PUSH(R, arr, n, cap, x)                                                                \
    do {                                                                                       \
        if (room((void **)&(R)->arr, &(R)->cap, (R)->n, sizeof *(R)->arr))                     \
            (R)->lost = 1;                                                                     \
        else                                                                                   \
            (R)->arr[(R)->n++] = (x);                                                          \
    } while (0)

int hyt_races_create(hyt_context_t *ctx)
{
    hyt_races_t *R = calloc(1, sizeof *R);
    if (!R)
        return hyt_rt_error(HYT_ERR_NOMEM, "debug.races: out of memory");
    pthread_mutex_init(&R->lock, NULL);
    ctx->races = R;
    return HYT_SUCCESS;
}

void hyt_races_destroy(hyt_context_t *ctx)
{
    hyt_races_t *R = ctx->races;
    if (!R)
        return;
    pthread_mutex_destroy(&R->lock);
    free(R->tasks);
    free(R->edges);
    free(R->notes);
    free(R->waits);
    free(R->frees);
    free(R);
    ctx->races = NULL;
}

void hyt_races_task(hyt_context_t *ctx, const hyt_task_t *t)
{
    hyt_races_t *R = ctx->races;
    rtask_t r = {t->id, t->kernel->name ? t->kernel->name : "(unnamed)", t->seq, t->device,
                 t->stream, {t->tag[0], t->tag[1], t->tag[2]}};
    pthread_mutex_lock(&R->lock);
    if (R->ntasks && t->id != R->tasks[R->ntasks - 1].id + 1)
        R->lost = 1; /* ids are consecutive: one missed would shift the others */
    if (!R->ntasks)
        R->base = t->id;
    PUSH(R, tasks, ntasks, ctasks, r);
    pthread_mutex_unlock(&R->lock);
}

void hyt_races_edge(hyt_context_t *ctx, uint64_t pred, uint64_t succ)
{
    hyt_races_t *R = ctx->races;
    pthread_mutex_lock(&R->lock);
    PUSH(R, edges, nedges, cedges, ((redge_t){pred, succ}));
    pthread_mutex_unlock(&R->lock);
}

void hyt_races_enter(const hyt_task_t *t)
{
    races_current = t->id;
    races_R = t->ctx->races;
}

void hyt_races_leave(void)
{
    races_current = 0;
    races_R = NULL;
}

int hyt_races_on(void) { return races_R != NULL; }

void hyt_races_free(hyt_context_t *ctx, const void *p, size_t bytes)
{
    hyt_races_t *R = ctx ? ctx->races : races_R;
    if (!R || !p || !bytes)
        return;
    pthread_mutex_lock(&R->lock);
    if (R->ntasks) /* else no task of the window noted it */
        PUSH(R, frees, nfrees, cfrees,
             ((rfree_t){(uintptr_t)p, (uintptr_t)p + bytes, R->tasks[R->ntasks - 1].id}));
    pthread_mutex_unlock(&R->lock);
}

void hyt_races_note(const void *p, size_t stride, size_t bytes, size_t cols, int write,
                    const char *what)
{
    hyt_races_t *R = races_R;
    if (!R || !p || !bytes || !cols)
        return;
    if (cols == 1 || stride <= bytes) { /* one run */
        bytes = (cols - 1) * stride + bytes;
        cols = 1;
        stride = bytes;
    }
    rnote_t n = {races_current, (uintptr_t)p, stride, bytes, cols, write, what};
    pthread_mutex_lock(&R->lock);
    PUSH(R, notes, nnotes, cnotes, n);
    pthread_mutex_unlock(&R->lock);
}

void hyt_races_block(const void *A, int64_t ld, int64_t m, int64_t n, int write,
                     const char *what)
{
    if (races_R && m > 0 && n > 0 && ld >= m)
        hyt_races_note(A, (size_t)ld * sizeof(double), (size_t)m * sizeof(double), (size_t)n,
                       write, what);
}

void hyt_races_trap(char uplo, const void *A, int64_t ld, int64_t m, int64_t n, int write,
                    const char *what)
{
    if (!races_R || m <= 0 || n <= 0 || ld < m)
        return;
    const int lower = uplo == 'L' || uplo == 'l';
    for (int64_t j = 0; j < n; j++) {
        const int64_t r0 = lower ? (j < m ? j : m) : 0, r1 = lower ? m : (j < m ? j + 1 : m);
        if (r1 > r0)
            hyt_races_note((const double *)A + j * ld + r0, 0,
                           (size_t)(r1 - r0) * sizeof(double), 1, write, what);
    }
}

void hyt_races_tri(char uplo, const void *A, int64_t ld, int64_t n, int write, const char *what)
{
    hyt_races_trap(uplo, A, ld, n, n, write, what);
}

void hyt_races_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, const void *A,
                    int64_t lda, const void *B, int64_t ldb, const void *C, int64_t ldc)
{
    const int ta = transa != 'N' && transa != 'n', tb = transb != 'N' && transb != 'n';
    if (k > 0) {
        hyt_races_block(A, lda, ta ? k : m, ta ? m : k, 0, "dgemm's A");
        hyt_races_block(B, ldb, tb ? n : k, tb ? k : n, 0, "dgemm's B");
    }
    hyt_races_block(C, ldc, m, n, 1, "dgemm's C");
}

void hyt_races_trsm(char side, char uplo, int64_t m, int64_t n, const void *A, int64_t lda,
                    const void *B, int64_t ldb)
{
    hyt_races_tri(uplo, A, lda, side == 'L' || side == 'l' ? m : n, 0, "dtrsm's A");
    hyt_races_block(B, ldb, m, n, 1, "dtrsm's B");
}

/* ---- the check ------------------------------------------------------------------------------- */

/* One run of a note, for the check (what qsort moves: 24 bytes, not the note's 64). */
typedef struct {
    uintptr_t lo, hi;
    size_t note;
} rrun_t;

static int by_lo(const void *x, const void *y)
{
    const rrun_t *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int by_succ(const void *x, const void *y)
{
    const redge_t *a = x, *b = y;
    return a->succ < b->succ ? -1 : a->succ > b->succ;
}

static int by_upto(const void *x, const void *y)
{
    const rwait_t *a = x, *b = y;
    return a->upto < b->upto ? -1 : a->upto > b->upto;
}

static void say_task(char *buf, size_t len, const rtask_t *t, const rnote_t *n)
{
    snprintf(buf, len, "task %" PRIu64 " (%s, tags %d %d %d, device %d, stream %d, %s %s)",
             t->id, t->name, t->tag[0], t->tag[1], t->tag[2], t->device, t->stream,
             n->write ? "writes" : "reads", n->what);
}

/* reach: row i (words w each) holds the tasks of the window that precede task i; done (w
 * words, zero) the tasks that every later one follows (those of the sequences waited). */
static void order(hyt_races_t *R, uint64_t *reach, size_t w, uint64_t *done)
{
    const size_t T = R->ntasks;
    if (R->nedges)
        qsort(R->edges, R->nedges, sizeof *R->edges, by_succ);
    if (R->nwaits)
        qsort(R->waits, R->nwaits, sizeof *R->waits, by_upto);
    size_t e = 0, q = 0;
    for (size_t i = 0; i < T; i++) {
        const uint64_t id = R->base + i;
        uint64_t *ri = reach + i * w;
        for (; q < R->nwaits && R->waits[q].upto < id; q++)
            for (size_t j = 0; j < T && R->base + j <= R->waits[q].upto; j++)
                if (R->tasks[j].seq == R->waits[q].seq) {
                    done[j / 64] |= (uint64_t)1 << (j % 64);
                    for (size_t k = 0; k < w; k++)
                        done[k] |= reach[j * w + k];
                }
        memcpy(ri, done, w * sizeof *ri);
        for (; e < R->nedges && R->edges[e].succ < id; e++)
            ;
        for (; e < R->nedges && R->edges[e].succ == id; e++) {
            const uint64_t p = R->edges[e].pred;
            if (p < R->base || p >= id)
                continue;
            const size_t j = (size_t)(p - R->base);
            ri[j / 64] |= (uint64_t)1 << (j % 64);
            for (size_t k = 0; k <= j / 64; k++)
                ri[k] |= reach[j * w + k];
        }
    }
}

/* Whether the memory where runs a and b meet was freed after task ida's insertion and before
 * task idb's (ida < idb): an allocation after the free may reuse the address. */
static int freed_between(const hyt_races_t *R, const rrun_t *a, const rrun_t *b, uint64_t ida,
                         uint64_t idb)
{
    const uintptr_t lo = a->lo > b->lo ? a->lo : b->lo, hi = a->hi < b->hi ? a->hi : b->hi;
    for (size_t i = 0; i < R->nfrees; i++) {
        const rfree_t *f = &R->frees[i];
        if (f->lo < hi && f->hi > lo && ida <= f->mark && f->mark < idb)
            return 1;
    }
    return 0;
}

/* 0, or HYT_ERR_RACE (a race with a task of seq in it) / HYT_ERR_NOMEM / HYT_ERR_TOO_LARGE
 * with msg. */
static int check(hyt_races_t *R, const hyt_sequence_t *seq, char *msg, size_t len)
{
    const size_t T = R->ntasks;
    if (R->lost) {
        snprintf(msg, len, "debug.races: out of memory recording the tasks; not checked");
        return HYT_ERR_NOMEM;
    }
    if (T > RACES_MAX_TASKS) {
        snprintf(msg, len, "debug.races: %zu tasks between two idle points, the check takes "
                 "at most %d (a smaller problem, or a wait between parts)", T, RACES_MAX_TASKS);
        return HYT_ERR_TOO_LARGE;
    }
    if (!T || !R->nnotes)
        return 0;
    /* the notes of the window's tasks, each run on its own: the runs of a block's columns are
     * far apart, and their bounds would make every block of a tile column meet every other */
    size_t nruns = 0;
    for (size_t i = 0; i < R->nnotes; i++)
        if (R->notes[i].id >= R->base && R->notes[i].id < R->base + T)
            nruns += R->notes[i].cols;
    const size_t w = (T + 63) / 64;
    uint64_t *reach = calloc(T * w, sizeof *reach);
    rrun_t *v = malloc((nruns ? nruns : 1) * sizeof *v);
    size_t *active = malloc((nruns ? nruns : 1) * sizeof *active);
    uint64_t *done = calloc(w, sizeof *done);
    if (!reach || !v || !active || !done) {
        free(reach);
        free(v);
        free(active);
        free(done);
        snprintf(msg, len, "debug.races: out of memory for the check of %zu tasks", T);
        return HYT_ERR_NOMEM;
    }
    order(R, reach, w, done);
    free(done);
    size_t nv = 0;
    for (size_t i = 0; i < R->nnotes; i++) {
        const rnote_t *n = &R->notes[i];
        if (n->id < R->base || n->id >= R->base + T)
            continue;
        for (size_t k = 0; k < n->cols; k++) {
            const uintptr_t lo = n->lo + k * n->stride;
            v[nv++] = (rrun_t){lo, lo + n->bytes, i};
        }
    }
    qsort(v, nv, sizeof *v, by_lo);
    size_t na = 0, found = 0;
    const rnote_t *fa = NULL, *fb = NULL;
    for (size_t i = 0; i < nv; i++) {
        const rrun_t *rb = &v[i];
        const rnote_t *b = &R->notes[rb->note];
        const size_t ib = (size_t)(b->id - R->base);
        const rtask_t *tb = &R->tasks[ib];
        size_t keep = 0;
        for (size_t k = 0; k < na; k++) {
            const rrun_t *ra = &v[active[k]];
            if (ra->hi <= rb->lo)
                continue; /* ended before every later run starts */
            active[keep++] = active[k];
            const rnote_t *a = &R->notes[ra->note];
            if (a->id == b->id || !(a->write || b->write))
                continue;
            const size_t ia = (size_t)(a->id - R->base);
            const rtask_t *ta = &R->tasks[ia];
            if ((ta->device >= 0 && ta->device == tb->device && ta->stream == tb->stream) ||
                (ta->seq != seq && tb->seq != seq))
                continue;
            const size_t lo = ia < ib ? ia : ib, hi = ia < ib ? ib : ia;
            if (reach[hi * w + lo / 64] >> (lo % 64) & 1)
                continue; /* ordered; else the runs meet: ra->lo <= rb->lo < ra->hi */
            if (freed_between(R, ia < ib ? ra : rb, ia < ib ? rb : ra, R->base + lo,
                              R->base + hi))
                continue; /* the memory was freed between the two */
            if (!found++) {
                fa = ia < ib ? a : b;
                fb = ia < ib ? b : a;
            }
        }
        na = keep;
        active[na++] = i;
    }
    int rc = 0;
    if (found) {
        char sa[200], sb[200];
        say_task(sa, sizeof sa, &R->tasks[fa->id - R->base], fa);
        say_task(sb, sizeof sb, &R->tasks[fb->id - R->base], fb);
        snprintf(msg, len, "debug.races: %s and %s touch the same memory and no dependency "
                 "orders them (%zu such overlaps of their runs)", sa, sb, found);
        rc = HYT_ERR_RACE;
    }
    free(reach);
    free(v);
    free(active);
    return rc;
}

int hyt_races_check(hyt_sequence_t *seq)
{
    hyt_context_t *ctx = seq->ctx;
    hyt_races_t *R = ctx->races;
    char msg[640]; /* two task descriptions of up to 200 and the text around them */
    pthread_mutex_lock(&R->lock);
    if (R->ntasks) /* the wait orders seq's tasks so far before those inserted after it */
        PUSH(R, waits, nwaits, cwaits, ((rwait_t){seq, R->tasks[R->ntasks - 1].id}));
    int rc = check(R, seq, msg, sizeof msg);
    if (atomic_load(&ctx->nfinished) == atomic_load(&ctx->ninserted)) {
        /* idle: every task recorded has finished; the next window starts after them (its
         * first task sets base) */
        R->ntasks = R->nedges = R->nnotes = R->nwaits = R->nfrees = 0;
        R->lost = 0;
    }
    pthread_mutex_unlock(&R->lock);
    if (rc)
        hyt_sequence_fail(seq, rc, "%s", msg);
    return rc;
}
