/*
 * The race check (debug.races): the dependencies the task graph declares, tested against the
 * memory the device kernels touch.
 *
 * A host device runs one task at a time, so two tasks of different streams that a missing
 * dependency leaves unordered never overlap there, and the tests on host devices pass; on a GPU
 * their kernels would run at once.  With the check on, the runtime records every task and every
 * dependency it links (also those on tasks already finished, and the finished readers that the
 * region table would otherwise forget), and each device kernel's dispatcher notes the memory it
 * reads and writes (hyt_races_note).  hyt_sequence_wait then looks at every two notes that
 * overlap, one of them writing, of tasks on different devices or streams (one stream runs its
 * tasks in order), one of them the waited sequence's: when no path of dependencies orders the
 * two tasks, the sequence fails with HYT_ERR_RACE and both tasks named.
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

/* cols runs of bytes each, stride apart, from lo: [lo, hi) bounds them */
typedef struct {
    uint64_t id;
    uintptr_t lo, hi;
    size_t stride, bytes, cols;
    int write;
    const char *what;
} rnote_t;

typedef struct {
    const hyt_sequence_t *seq;
    uint64_t upto; /* the last task inserted when the wait returned */
} rwait_t;

struct hyt_races {
    pthread_mutex_t lock;
    uint64_t base;     /* the id of the window's first task */
    rtask_t *tasks;    /* ids base, base + 1, ... */
    redge_t *edges;
    rnote_t *notes;
    rwait_t *waits;
    size_t ntasks, nedges, nnotes, nwaits, ctasks, cedges, cnotes, cwaits;
    int lost;          /* out of memory while recording */
};

/* The task whose body the calling (device) thread runs, or 0. */
static _Thread_local uint64_t races_current;

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
    R->base = ctx->next_id + 1;
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

void hyt_races_enter(const hyt_task_t *t) { races_current = t->id; }
void hyt_races_leave(void) { races_current = 0; }

void hyt_races_note(const hyt_devctx_t *dc, const void *p, size_t stride, size_t bytes,
                    size_t cols, int write, const char *what)
{
    if (!dc || !dc->dev || !dc->dev->ctx->races || !races_current || !p || !bytes || !cols)
        return;
    hyt_races_t *R = dc->dev->ctx->races;
    if (cols == 1 || stride <= bytes) { /* one run */
        bytes = (cols - 1) * stride + bytes;
        cols = 1;
        stride = bytes;
    }
    rnote_t n = {races_current, (uintptr_t)p, (uintptr_t)p + (cols - 1) * stride + bytes,
                 stride, bytes, cols, write, what};
    pthread_mutex_lock(&R->lock);
    PUSH(R, notes, nnotes, cnotes, n);
    pthread_mutex_unlock(&R->lock);
}

void hyt_races_block(const hyt_devctx_t *dc, const void *A, int64_t ld, int64_t m, int64_t n,
                     int write, const char *what)
{
    if (m > 0 && n > 0 && ld >= m)
        hyt_races_note(dc, A, (size_t)ld * sizeof(double), (size_t)m * sizeof(double),
                       (size_t)n, write, what);
}

void hyt_races_tri(const hyt_devctx_t *dc, char uplo, const void *A, int64_t ld, int64_t n,
                   int write, const char *what)
{
    if (!dc || !dc->dev || !dc->dev->ctx->races || n <= 0 || ld < n)
        return;
    const int lower = uplo == 'L' || uplo == 'l';
    for (int64_t j = 0; j < n; j++) {
        const int64_t r0 = lower ? j : 0, r1 = lower ? n : j + 1;
        hyt_races_note(dc, (const double *)A + j * ld + r0, 0,
                       (size_t)(r1 - r0) * sizeof(double), 1, write, what);
    }
}

void hyt_races_waited(hyt_sequence_t *seq)
{
    hyt_races_t *R = seq->ctx->races;
    pthread_mutex_lock(&R->lock);
    if (R->ntasks)
        PUSH(R, waits, nwaits, cwaits, ((rwait_t){seq, R->tasks[R->ntasks - 1].id}));
    pthread_mutex_unlock(&R->lock);
}

/* ---- the check ------------------------------------------------------------------------------- */

/* Whether note f's runs meet [x0, x1). */
static int meets_range(const rnote_t *f, uintptr_t x0, uintptr_t x1)
{
    if (x1 <= f->lo || f->hi <= x0)
        return 0;
    /* the first run that ends after x0 */
    size_t k = x0 < f->lo + f->bytes ? 0 : (x0 - f->lo - f->bytes) / f->stride + 1;
    return k < f->cols && f->lo + k * f->stride < x1;
}

typedef struct {
    uintptr_t c0, c1, r0, r1; /* columns [c0, c1), bytes [r0, r1) of a column of L bytes */
} rect_t;

/* A note of runs L bytes apart as at most two rectangles of (address / L, address % L). */
static int rects(const rnote_t *f, size_t L, rect_t *r)
{
    uintptr_t c0 = f->lo / L, r0 = f->lo % L;
    if (r0 + f->bytes <= L) {
        r[0] = (rect_t){c0, c0 + f->cols, r0, r0 + f->bytes};
        return 1;
    }
    r[0] = (rect_t){c0, c0 + f->cols, r0, L};
    r[1] = (rect_t){c0 + 1, c0 + f->cols + 1, 0, r0 + f->bytes - L};
    return 2;
}

static int meets(const rnote_t *a, const rnote_t *b)
{
    if (a->hi <= b->lo || b->hi <= a->lo)
        return 0;
    if (a->cols == 1)
        return meets_range(b, a->lo, a->hi);
    if (b->cols == 1)
        return meets_range(a, b->lo, b->hi);
    if (a->stride == b->stride) {
        rect_t ra[2], rb[2];
        int na = rects(a, a->stride, ra), nb = rects(b, b->stride, rb);
        for (int i = 0; i < na; i++)
            for (int j = 0; j < nb; j++)
                if (ra[i].c0 < rb[j].c1 && rb[j].c0 < ra[i].c1 && ra[i].r0 < rb[j].r1 &&
                    rb[j].r0 < ra[i].r1)
                    return 1;
        return 0;
    }
    if (a->cols > b->cols) {
        const rnote_t *t = a;
        a = b;
        b = t;
    }
    for (size_t k = 0; k < a->cols; k++) {
        uintptr_t x0 = a->lo + k * a->stride;
        if (meets_range(b, x0, x0 + a->bytes))
            return 1;
    }
    return 0;
}

static int by_lo(const void *x, const void *y)
{
    const rnote_t *a = x, *b = y;
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
    const size_t w = (T + 63) / 64;
    uint64_t *reach = calloc(T * w, sizeof *reach);
    rnote_t *v = malloc(R->nnotes * sizeof *v);
    size_t *active = malloc(R->nnotes * sizeof *active);
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
    for (size_t i = 0; i < R->nnotes; i++)
        if (R->notes[i].id >= R->base && R->notes[i].id < R->base + T)
            v[nv++] = R->notes[i];
    qsort(v, nv, sizeof *v, by_lo);
    size_t na = 0, found = 0;
    const rnote_t *fa = NULL, *fb = NULL;
    for (size_t i = 0; i < nv; i++) {
        const rnote_t *b = &v[i];
        const size_t ib = (size_t)(b->id - R->base);
        const rtask_t *tb = &R->tasks[ib];
        size_t keep = 0;
        for (size_t k = 0; k < na; k++) {
            const rnote_t *a = &v[active[k]];
            if (a->hi <= b->lo)
                continue; /* ended before every later note starts */
            active[keep++] = active[k];
            if (a->id == b->id || !(a->write || b->write))
                continue;
            const size_t ia = (size_t)(a->id - R->base);
            const rtask_t *ta = &R->tasks[ia];
            if ((ta->device == tb->device && ta->stream == tb->stream) ||
                (ta->seq != seq && tb->seq != seq))
                continue;
            const size_t lo = ia < ib ? ia : ib, hi = ia < ib ? ib : ia;
            if (reach[hi * w + lo / 64] >> (lo % 64) & 1)
                continue;
            if (!meets(a, b))
                continue;
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
                 "orders them (%zu such pairs of notes)", sa, sb, found);
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
    char msg[512];
    pthread_mutex_lock(&R->lock);
    int rc = check(R, seq, msg, sizeof msg);
    if (atomic_load(&ctx->nfinished) == atomic_load(&ctx->ninserted)) {
        /* idle: every task recorded has finished; the next window starts after them */
        R->base += R->ntasks;
        R->ntasks = R->nedges = R->nnotes = R->nwaits = 0;
        R->lost = 0;
    }
    pthread_mutex_unlock(&R->lock);
    if (rc)
        hyt_sequence_fail(seq, rc, "%s", msg);
    return rc;
}
