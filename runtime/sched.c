/*
 * The scheduler: the ready queues, task memory, completion and dependency counting, CPU
 * workers, gang scheduling of multithreaded tasks, the insertion window.  Beside it: task
 * insertion and linking (insert.c), the hazards of each region (hazard.c), sequences
 * (sequence.c), the gang barrier (barrier.c).  What follows describes them together.
 *
 * Ready queues: every worker has a heap of ready tasks (priority, then insertion order) under
 * a spin lock.  A worker that releases tasks keeps the best for itself and deals the others
 * round robin (passing over sleeping workers), as the inserting thread and the device threads
 * deal theirs.  A worker takes the best of its own queue, and the best of all queues when a
 * look is due (every HYT_SCAN_NS while busy, so priorities hold across queues within that
 * time; with one worker the order is exactly by priority).  An idle worker watches its own
 * queue and looks at the others only when the steal hint is up (a task was dealt to a busy
 * worker, or more than one to an idle one) and every 256 rounds: idle workers reading every
 * queue at every round made each push cost the pushing thread a contended cache line.  A
 * lone task in the queue of an idle worker is left to it.  One shared heap under one mutex
 * cost about 5 us per task with 60 workers (see docs/performance.md).
 *
 * Counting: the inserting thread counts inserted tasks with plain stores; a worker reports
 * its finished tasks to the context's and their sequence's finished counts in batches (every
 * HYT_REPORT_EVERY tasks, before it sleeps or waits, before it runs a task of another
 * sequence, and at once while a thread waits on either count), so that these counters do not
 * bounce between the cores at every task.  Task memory goes back through per-thread caches,
 * and the inserting thread asks early for the cache lines of the next task it will reuse and
 * of the predecessors it is about to look at.
 *
 * What the inserting thread pays per task is mostly cache lines that other cores wrote, and
 * the locked instructions that wait for them: so it reads the finished counts only when a past
 * value does not show room in the window, workers read the inserted counts only while a thread
 * waits, a new task's predecessor links are counted in a plain field (its npred holds a guard
 * until the insertion ends), and the region table's references to a task are counted by the
 * inserting thread alone (one locked instruction per task, when the last goes).
 *
 * Locking:
 *   ctx->insert_lock   one inserting thread at a time; guards the region table, next_id and
 *                      the inserting thread's task cache.
 *   worker->q.lock     (spin) that worker's ready heap.
 *   ctx->lock          the overflow heap, the idle list, the pending gang, worker assignments.
 *   task->lock         (spin) a task's successor list and its transition to DONE.
 *   seq->lock          sleeping in hyt_sequence_wait; the count of its tasks reaches zero
 *                      only under it (the waiter may then free the sequence).
 *   ctx->window_lock   sleeping while the window is full or until the context is idle.
 * Never hold two of these at once, except task->lock inside insert_lock (linking) and a queue
 * lock inside ctx->lock (a gang task put back).
 *
 * Sleeping: an idle worker spins for runtime.spin_us, then registers on the idle list (its
 * state says so) and looks at every queue once more; a thread that pushes work looks, after a
 * fence, at the state of the queue's owner (woken if asleep) and, for a task the owner will
 * not take at once, at the number of sleepers (one woken): one of the two sides sees the
 * other.
 *
 * Gang tasks (nthreads = k > 1): when a worker takes one it becomes the task's rank 0 and the
 * task becomes "pending"; idle workers are reserved for it at once and every worker that next
 * looks for work joins it, until k are reserved; then all k are handed their rank and start.
 * Only one gang collects workers at a time (a worker that takes a second one puts it back and
 * joins the first) and a reserved worker takes no other work, so two gangs can never each
 * hold part of the workers the other needs: no deadlock, whatever the shapes.  Tasks never
 * block on other tasks, so the running tasks finish and free the workers.
 */
#include "rt_internal.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* ready heap                                                                                  */

/* The random stream of chaos mode and of steal starts (a 64-bit LCG, its high bits). */
static inline uint64_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static inline int before(const hyt_task_t *a, const hyt_task_t *b)
{
    return a->priority > b->priority || (a->priority == b->priority && a->id < b->id);
}

int hyt_heap_push(hyt_heap_t *h, hyt_task_t *t)
{
    if (h->n == h->cap) {
        int cap = h->cap ? 2 * h->cap : 256;
        hyt_task_t **a = realloc(h->a, (size_t)cap * sizeof *a);
        if (!a)
            return HYT_ERR_NOMEM;
        h->a = a;
        h->cap = cap;
    }
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!before(t, h->a[p]))
            break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = t;
    return HYT_SUCCESS;
}

hyt_task_t *hyt_heap_pop(hyt_heap_t *h) { return hyt_heap_remove(h, 0); }

/* Chaos mode (debug.chaos = seed): ready tasks are taken in random order instead of by
 * priority, which makes a missing dependency show up as a wrong result in the tests; with
 * starve >= 0, a task of that stream only when no other stream's is ready (a device's tasks
 * run one at a time on host devices, so a task that misses its edge to an older one of another
 * stream shows only when it runs before that one: starving the older one's stream makes it
 * do so). */
hyt_task_t *hyt_heap_pop_chaos(hyt_heap_t *h, uint64_t *state, int starve)
{
    if (!h->n)
        return NULL;
    int others = 0;
    for (int i = 0; starve >= 0 && i < h->n; i++)
        others += h->a[i]->stream != starve;
    if (!others) /* none starved, or only the starved stream's */
        return hyt_heap_remove(h, (int)(rng_next(state) % (uint64_t)h->n));
    int pick = (int)(rng_next(state) % (uint64_t)others), i = 0;
    for (;; i++)
        if (h->a[i]->stream != starve && pick-- == 0)
            break;
    return hyt_heap_remove(h, i);
}

hyt_task_t *hyt_heap_remove(hyt_heap_t *h, int at)
{
    if (at >= h->n)
        return NULL;
    hyt_task_t *top = h->a[at], *last = h->a[--h->n];
    int i = at, n = h->n;
    if (i == n)
        return top;
    /* last goes to the hole: up if it beats the parent, else down */
    while (i > 0 && before(last, h->a[(i - 1) / 2])) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(h->a[c + 1], h->a[c]))
            c++;
        if (!before(h->a[c], last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (n)
        h->a[i] = last;
    return top;
}

void hyt_heap_free(hyt_heap_t *h)
{
    free(h->a);
    h->a = NULL;
    h->n = h->cap = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* task memory                                                                                 */

#define POOL_MAX 65536
#define CACHE_MAX 256          /* tasks a worker keeps before giving them to the pool */
#define HYT_REPORT_EVERY 32    /* finished tasks a worker counts before reporting them */
#define HYT_SCAN_NS 50000      /* how often a busy worker looks at the other queues */

static _Thread_local hyt_worker_t *tls_worker;  /* the worker this thread is, if any */
static _Thread_local hyt_tcache_t *tls_cache;   /* where this thread's freed tasks go */
static _Thread_local uint64_t tls_rng;          /* round robin of the other threads */

static inline hyt_worker_t *self_worker(const hyt_context_t *ctx)
{
    hyt_worker_t *w = tls_worker;
    return w && w->ctx == ctx ? w : NULL;
}

void hyt_tcache_free(hyt_tcache_t *c)
{
    while (c->head) {
        hyt_task_t *t = c->head;
        c->head = t->next;
        free(t);
    }
    c->tail = NULL;
    c->n = 0;
}

/* Called by the inserting thread (insert_lock held). */
static hyt_task_t *task_alloc(hyt_context_t *ctx)
{
    hyt_tcache_t *c = &ctx->ins_cache;
    if (!c->head) {
        hyt_spin_lock(&ctx->pool_lock);
        c->head = ctx->pool;
        c->n = (int)ctx->pool_n;
        ctx->pool = NULL;
        ctx->pool_n = 0;
        hyt_spin_unlock(&ctx->pool_lock);
    }
    hyt_task_t *t = c->head;
    if (t) {
        c->head = t->next;
        c->n--;
        /* the next one's lines were last written by the worker that freed it: ask for them
         * now, while this insertion goes on */
        if (c->head)
            for (size_t off = 0; off < offsetof(hyt_task_t, inline_args) + 64; off += 64)
                __builtin_prefetch((char *)c->head + off, 1, 3);
    } else {
        t = hyt_rt_calloc_aligned(ctx, sizeof *t);
        if (!t)
            return NULL;
    }
    memset(t, 0, offsetof(hyt_task_t, succ_inline));
    return t;
}

static void pool_put(hyt_context_t *ctx, hyt_task_t *head, hyt_task_t *tail, int n)
{
    hyt_spin_lock(&ctx->pool_lock);
    if (ctx->pool_n < POOL_MAX) {
        tail->next = ctx->pool;
        ctx->pool = head;
        ctx->pool_n += n;
        head = NULL;
    }
    hyt_spin_unlock(&ctx->pool_lock);
    while (head) {
        hyt_task_t *t = head;
        head = t->next;
        free(t);
    }
}

static void task_free(hyt_task_t *t)
{
    hyt_context_t *ctx = t->ctx;
    if (t->succ != t->succ_inline)
        free(t->succ);
    if (t->args != t->inline_args)
        free(t->args);
    free(t->shared);
    if (t->nthreads > 1)
        free(t->barrier.flags); /* set when the gang started (a skipped one starts too) */
    if (t->device >= 0 && (t->event || t->ev_start)) {
        hyt_device_t *dev = ctx->devices[t->device];
        dev->ops->release(dev, t);
    }
    hyt_tcache_t *c = tls_cache;
    if (!c || c->ctx != ctx) {
        t->next = NULL;
        pool_put(ctx, t, t, 1);
        return;
    }
    if (c == &ctx->ins_cache && c->n >= POOL_MAX) {
        free(t);
        return;
    }
    t->next = c->head;
    if (!c->head)
        c->tail = t;
    c->head = t;
    if (++c->n >= CACHE_MAX && c != &ctx->ins_cache) {
        pool_put(ctx, c->head, c->tail, c->n);
        c->head = c->tail = NULL;
        c->n = 0;
    }
}

void hyt_task_release(hyt_task_t *t)
{
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
        task_free(t);
}

/* ------------------------------------------------------------------------------------------ */
/* ready queues                                                                                */

/* The queue the next dealt task goes to: round robin (or at random in chaos mode), passing
 * over sleeping workers unless several in a row sleep. */
static hyt_worker_t *next_queue(hyt_context_t *ctx, uint64_t *state)
{
    hyt_worker_t *v;
    for (int tries = 0;; tries++) {
        uint64_t k = ctx->chaos ? rng_next(state) : (*state)++;
        v = &ctx->workers[k % (uint64_t)ctx->nworkers];
        if (tries == 3 || atomic_load_explicit(&v->q.state, memory_order_relaxed) != HYT_W_SLEEPING)
            return v;
    }
}

static inline void queue_publish(hyt_rqueue_t *q)
{
    atomic_store_explicit(&q->top, q->heap.n ? q->heap.a[0]->priority : INT_MIN,
                          memory_order_relaxed);
    atomic_store_explicit(&q->n, q->heap.n, memory_order_relaxed);
}

/* The overflow heap has room for the whole window (reserved at start): it takes what a queue
 * cannot (ctx->lock held). */
static void overflow_push_locked(hyt_context_t *ctx, hyt_task_t *t)
{
    (void)hyt_heap_push(&ctx->ready, t);
    atomic_store_explicit(&ctx->nready, ctx->ready.n, memory_order_relaxed);
}

/* Pushes a ready task to w's queue; returns the tasks now in it, or 0 when it went to the
 * overflow heap (the queue could not grow).  *owner gets the state of w, read under the
 * queue's lock (see notify()). */
static int queue_push(hyt_context_t *ctx, hyt_worker_t *w, hyt_task_t *t, int ctx_locked,
                      int *owner)
{
    atomic_store_explicit(&t->state, HYT_T_READY, memory_order_relaxed);
    hyt_rqueue_t *q = &w->q;
    hyt_spin_lock(&q->lock);
    int n = hyt_heap_push(&q->heap, t) ? 0 : q->heap.n;
    queue_publish(q);
    if (owner)
        *owner = atomic_load_explicit(&q->state, memory_order_relaxed);
    hyt_spin_unlock(&q->lock);
    if (n)
        return n;
    if (!ctx_locked)
        pthread_mutex_lock(&ctx->lock);
    overflow_push_locked(ctx, t);
    if (!ctx_locked)
        pthread_mutex_unlock(&ctx->lock);
    return 0;
}

/* Takes w's best task (a random one in chaos mode), not a gang task unless gang_ok. */
static hyt_task_t *queue_pop(hyt_context_t *ctx, hyt_worker_t *w, int gang_ok, uint64_t *rng)
{
    if (!atomic_load_explicit(&w->q.n, memory_order_relaxed))
        return NULL;
    hyt_task_t *t = NULL;
    hyt_spin_lock(&w->q.lock);
    if (w->q.heap.n) {
        int at = ctx->chaos ? (int)(rng_next(rng) % (uint64_t)w->q.heap.n) : 0;
        if (gang_ok || w->q.heap.a[at]->nthreads <= 1) {
            t = hyt_heap_remove(&w->q.heap, at);
            queue_publish(&w->q);
        }
    }
    hyt_spin_unlock(&w->q.lock);
    return t;
}

static hyt_task_t *overflow_pop(hyt_context_t *ctx, int gang_ok)
{
    if (!atomic_load_explicit(&ctx->nready, memory_order_relaxed))
        return NULL;
    hyt_task_t *t = NULL;
    pthread_mutex_lock(&ctx->lock);
    hyt_task_t *top = hyt_heap_top(&ctx->ready);
    if (top && (gang_ok || top->nthreads <= 1)) {
        t = hyt_heap_pop(&ctx->ready);
        atomic_store_explicit(&ctx->nready, ctx->ready.n, memory_order_relaxed);
    }
    pthread_mutex_unlock(&ctx->lock);
    return t;
}

/* Stores v unless it is there already: a shared line is only written when it changes. */
static inline void store_if_changed(atomic_int *a, int v)
{
    if (atomic_load_explicit(a, memory_order_relaxed) != v)
        atomic_store_explicit(a, v, memory_order_relaxed);
}

static inline void set_hint(hyt_context_t *ctx, int on) { store_if_changed(&ctx->steal_hint, on); }

/* Takes the best task of the other queues if its priority is above `than` (self may be NULL:
 * a thread that is not a worker).  A lone task in the queue of an idle worker is left to it. */
static hyt_task_t *steal(hyt_context_t *ctx, hyt_worker_t *self, int gang_ok, long than,
                         uint64_t *rng)
{
    const int nw = ctx->nworkers;
    set_hint(ctx, 0);
    for (int attempt = 0; attempt < 4; attempt++) {
        hyt_worker_t *best = NULL;
        long bp = than;
        int more = 0;
        int start = ctx->chaos || !self ? (int)(rng_next(rng) % (uint64_t)nw) : self->id + 1;
        for (int i = 0; i < nw; i++) {
            hyt_worker_t *v = &ctx->workers[(start + i) % nw];
            if (v == self)
                continue;
            int n = atomic_load_explicit(&v->q.n, memory_order_relaxed);
            if (!n || (n == 1 &&
                       atomic_load_explicit(&v->q.state, memory_order_relaxed) == HYT_W_LOOKING))
                continue;
            long p = atomic_load_explicit(&v->q.top, memory_order_relaxed);
            more += best != NULL || n > 1;
            if (p > bp) {
                bp = p;
                best = v;
                if (ctx->chaos)
                    break;
            }
        }
        if (!best)
            return than == LONG_MIN ? overflow_pop(ctx, gang_ok) : NULL;
        hyt_task_t *t = queue_pop(ctx, best, gang_ok, rng);
        if (more)
            set_hint(ctx, 1); /* for the next idle worker */
        if (t)
            return t;
    }
    return NULL;
}

/* Whether any queue holds a task (for worker self, about to sleep: its own queue is read
 * under its lock, see notify()). */
static int any_ready(hyt_context_t *ctx, hyt_worker_t *self)
{
    hyt_spin_lock(&self->q.lock);
    int mine = self->q.heap.n;
    hyt_spin_unlock(&self->q.lock);
    if (mine)
        return 1;
    for (int i = 0; i < ctx->nworkers; i++)
        if (atomic_load_explicit(&ctx->workers[i].q.n, memory_order_relaxed))
            return 1;
    return atomic_load_explicit(&ctx->nready, memory_order_relaxed) != 0;
}

/* Wakes w if it sleeps on the idle list (ctx->lock held). */
static void wake_locked(hyt_context_t *ctx, hyt_worker_t *w)
{
    if (!w->sleeping)
        return;
    for (int i = ctx->nidle - 1; i >= 0; i--)
        if (ctx->idle[i] == w) {
            ctx->idle[i] = ctx->idle[--ctx->nidle];
            break;
        }
    atomic_store_explicit(&ctx->nsleeping, ctx->nidle, memory_order_relaxed);
    atomic_store_explicit(&w->q.state, HYT_W_LOOKING, memory_order_relaxed);
    w->sleeping = 0;
    pthread_cond_signal(&w->cond);
}

/* After a push of the n-th task to w's queue (n = 0: to the overflow heap), st being the
 * owner's state read under the queue's lock: the owner takes it if it is idle and awake; else
 * it is woken if asleep, and else an idle worker is told (the steal hint) or woken.
 * The owner's side needs no fence: a worker about to sleep publishes SLEEPING, then reads its
 * own queue under its lock, so either it sees the task or the pusher, whose critical section
 * comes after, sees SLEEPING.  The other sleepers read the queues without locks: the fence
 * pairs with the one in idle_step(). */
static void notify(hyt_context_t *ctx, hyt_worker_t *w, int n, int st)
{
    if (n == 1 && st == HYT_W_LOOKING)
        return;
    if (n && st == HYT_W_SLEEPING) {
        pthread_mutex_lock(&ctx->lock);
        wake_locked(ctx, w);
        pthread_mutex_unlock(&ctx->lock);
        return;
    }
    atomic_thread_fence(memory_order_seq_cst);
    set_hint(ctx, 1);
    if (atomic_load_explicit(&ctx->nsleeping, memory_order_relaxed)) {
        pthread_mutex_lock(&ctx->lock);
        if (ctx->nidle)
            wake_locked(ctx, ctx->idle[ctx->nidle - 1]);
        pthread_mutex_unlock(&ctx->lock);
    }
}

/* Makes CPU tasks ready: a worker keeps the best for itself; the rest are dealt out. */
static void push_ready_cpu(hyt_context_t *ctx, hyt_task_t **ts, int n)
{
    if (!n)
        return;
    hyt_worker_t *w = self_worker(ctx);
    uint64_t *rng = w ? &w->rng : &tls_rng;
    int keep = -1;
    if (w && !ctx->chaos) {
        keep = 0;
        for (int i = 1; i < n; i++)
            if (before(ts[i], ts[keep]))
                keep = i;
    }
    for (int i = 0; i < n; i++) {
        if (i == keep) {
            if (!queue_push(ctx, w, ts[i], 0, NULL))
                notify(ctx, w, 0, HYT_W_BUSY);
        } else {
            hyt_worker_t *v = next_queue(ctx, rng);
            int st;
            int k = queue_push(ctx, v, ts[i], 0, &st);
            notify(ctx, v, k, st);
        }
    }
}

static void make_ready(hyt_context_t *ctx, hyt_task_t *t)
{
    if (t->device >= 0)
        hyt_device_push_ready(ctx->devices[t->device], t);
    else
        push_ready_cpu(ctx, &t, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* counting finished tasks                                                                     */

/* n tasks of the context finished: signals whoever waits on the window or for the context to
 * drain. */
static void inflight_done(hyt_context_t *ctx, long n)
{
    atomic_fetch_add(&ctx->nfinished, n);
    if (atomic_load(&ctx->window_waiting)) {
        pthread_mutex_lock(&ctx->window_lock);
        pthread_cond_broadcast(&ctx->window_cond);
        pthread_mutex_unlock(&ctx->window_lock);
    }
}

/* n tasks of seq finished.  The inserted count is read only while a thread waits (the
 * inserting thread writes it at every task).  The add and the read of nwaiters pair with the
 * waiter's increment of nwaiters and read of the counts (all sequentially consistent): either
 * this thread sees the waiter, or the waiter sees the count.  A waiter that saw the count
 * complete returns only once no thread is between its add and its last touch of seq
 * (reporters), after which the sequence may be freed. */
static void seq_done(hyt_sequence_t *seq, long n)
{
    atomic_fetch_add(&seq->reporters, 1);
    long f = atomic_fetch_add(&seq->nfinished, n) + n;
    if (atomic_load(&seq->nwaiters) && f == atomic_load(&seq->ninserted)) {
        pthread_mutex_lock(&seq->lock);
        pthread_cond_broadcast(&seq->cond);
        pthread_mutex_unlock(&seq->lock);
    }
    atomic_fetch_sub_explicit(&seq->reporters, 1, memory_order_release);
}

/* Reports the worker's finished tasks: to their sequence, then to the context (which lives
 * until every worker has stopped). */
static void report_seq(hyt_worker_t *w)
{
    if (w->done_seq_n)
        seq_done(w->done_seq, w->done_seq_n);
    w->done_seq = NULL;
    w->done_seq_n = 0;
}

static void report_done(hyt_worker_t *w)
{
    report_seq(w);
    if (w->done_ctx)
        inflight_done(w->ctx, w->done_ctx);
    w->done_ctx = 0;
}

/* Reports at once when a thread waits on the window, the context or the sequence. */
static void report_if_awaited(hyt_worker_t *w)
{
    if ((w->done_ctx && atomic_load(&w->ctx->window_waiting)) ||
        (w->done_seq_n && atomic_load(&w->done_seq->nwaiters)))
        report_done(w);
}

void hyt_sched_complete(hyt_task_t *t)
{
    hyt_context_t *ctx = t->ctx;
    hyt_sequence_t *seq = t->seq;
    hyt_task_t *local[64];
    int nlocal = 0;

    hyt_spin_lock(&t->lock);
    atomic_store_explicit(&t->state, HYT_T_DONE, memory_order_release);
    hyt_spin_unlock(&t->lock);
    /* No one appends to succ once DONE is set. */
    for (int i = 0; i < t->nsucc; i++) {
        hyt_task_t *s = t->succ[i];
        if (atomic_fetch_sub_explicit(&s->npred, 1, memory_order_acq_rel) != 1)
            continue;
        if (s->device >= 0) {
            hyt_device_push_ready(ctx->devices[s->device], s);
        } else {
            local[nlocal++] = s;
            if (nlocal == 64) {
                push_ready_cpu(ctx, local, nlocal);
                nlocal = 0;
            }
        }
    }
    push_ready_cpu(ctx, local, nlocal);

    hyt_worker_t *w = self_worker(ctx);
    if (!w) {
        /* the inserting thread or a device thread: at once, the sequence last */
        inflight_done(ctx, 1);
        hyt_task_release(t);
        seq_done(seq, 1);
        return;
    }
    hyt_task_release(t);
    if (w->done_seq != seq) {
        report_seq(w);
        w->done_seq = seq;
    }
    w->done_seq_n++;
    if (++w->done_ctx >= HYT_REPORT_EVERY)
        report_done(w);
    else
        report_if_awaited(w);
}

void hyt_sched_task_failed(hyt_task_t *t, int rc)
{
    /* bodies record what went wrong with hyt_error() on this thread just before failing */
    const char *why = hyt_last_error();
    hyt_sequence_fail(t->seq, rc, "task %s (step %d, %d, %d) failed: %s", t->kernel->name,
                      t->tag[0], t->tag[1], t->tag[2], *why ? why : hyt_strerror(rc));
}

int hyt_sched_should_skip(hyt_task_t *t)
{
    hyt_context_t *ctx = t->ctx;
    if (t->broken)
        return atomic_load(&t->seq->status);
    if (t->kernel->always)
        return 0;
    int st = atomic_load(&t->seq->status);
    if (st)
        return st;
    if (ctx->fault_task > 0 && atomic_fetch_add(&ctx->count_task, 1) + 1 == ctx->fault_task) {
        hyt_sequence_fail(t->seq, HYT_ERR_FAULT, "injected fault: task %ld (%s) failed",
                          ctx->fault_task, t->kernel->name);
        return HYT_ERR_FAULT;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* running CPU tasks                                                                           */

static int ensure_scratch(hyt_context_t *ctx, void **p, size_t *have, size_t need)
{
    if (need <= *have)
        return 0;
    free(*p);
    *p = NULL;
    *have = 0;
    size_t bytes = (need + 63) & ~(size_t)63;
    void *q = hyt_rt_malloc(ctx, bytes + 64);
    if (!q)
        return HYT_ERR_NOMEM;
    *p = q;
    *have = bytes;
    return 0;
}

static void run_cpu_task(hyt_context_t *ctx, int wid, hyt_task_t *t, int rank, void **scratch,
                         size_t *scratch_size)
{
    int rc = t->skip;
    if (!rc && t->scratch_bytes && ensure_scratch(ctx, scratch, scratch_size, t->scratch_bytes))
        rc = hyt_rt_error(HYT_ERR_NOMEM, "out of memory for %zu bytes of scratch",
                          t->scratch_bytes); /* hyt_sched_task_failed reports it */
    if (!rc) {
        /* a task of one thread gets a barrier of one (the task's own is set up for gangs) */
        static hyt_barrier_t solo = {.n = 1};
        hyt_task_ctx_t tc = {.worker = wid,
                             .rank = rank,
                             .size = t->nthreads > 1 ? t->nthreads : 1,
                             .barrier = t->nthreads > 1 ? &t->barrier : &solo,
                             .shared = t->shared,
                             .scratch = *scratch,
                             .seq = t->seq};
        int tracing = atomic_load_explicit(&ctx->trace.on, memory_order_relaxed);
        double t0 = tracing ? hyt_trace_now(ctx) : 0;
        hyt_error(0, "%s", ""); /* no stale message in a failure report */
        if (ctx->races)
            hyt_races_enter(t);
        rc = t->kernel->cpu(&tc, t->args);
        if (ctx->races)
            hyt_races_leave();
        if (tracing)
            hyt_trace_record(ctx, wid, t, t0, hyt_trace_now(ctx));
        if (rc)
            hyt_sched_task_failed(t, rc);
    } else if (rc && !t->skip) {
        hyt_sched_task_failed(t, rc);
    }
    if (t->nthreads > 1) {
        if (atomic_fetch_sub_explicit(&t->gang_left, 1, memory_order_acq_rel) == 1)
            hyt_sched_complete(t);
    } else {
        hyt_sched_complete(t);
    }
}

/* Decides once, before any thread enters the body, whether the task runs; allocates the
 * gang's shared scratch. */
static void prepare_run(hyt_context_t *ctx, hyt_task_t *t)
{
    t->skip = hyt_sched_should_skip(t);
    if (!t->skip && t->shared_bytes) {
        t->shared = hyt_rt_calloc(ctx, 1, t->shared_bytes);
        if (!t->shared) {
            hyt_sequence_fail(t->seq, HYT_ERR_NOMEM, "out of memory for the shared scratch of "
                              "task %s", t->kernel->name);
            t->skip = HYT_ERR_NOMEM;
        }
    }
    atomic_store_explicit(&t->state, HYT_T_RUNNING, memory_order_relaxed);
}

/* Hands the pending gang to its members (ctx->lock held). */
static void launch_gang(hyt_context_t *ctx)
{
    hyt_task_t *t = ctx->pending;
    int k = t->nthreads;
    prepare_run(ctx, t);
    hyt_barrier_init(&t->barrier, k);
    if (ctx->oversubscribed)
        t->barrier.yield_every = 64; /* a waiting member likely holds a core another needs */
    /* per-rank lines for hyt_task_barrier (without them it falls back to the counter) */
    t->barrier.flags = hyt_rt_calloc_aligned(ctx, (size_t)k * sizeof *t->barrier.flags);
    atomic_store_explicit(&t->gang_left, k, memory_order_relaxed);
    for (int r = 0; r < k; r++) {
        hyt_worker_t *m = ctx->pending_members[r];
        m->assigned = t;
        m->assigned_rank = r;
        m->reserved = 0;
        atomic_store_explicit(&m->has_assignment, 1, memory_order_release);
        pthread_cond_signal(&m->cond);
    }
    ctx->pending = NULL;
    ctx->pending_have = 0;
    atomic_store(&ctx->pending_flag, 0);
}

/* Reserves w for the pending gang (ctx->lock held). */
static void join_gang(hyt_context_t *ctx, hyt_worker_t *w)
{
    w->reserved = 1;
    ctx->pending_members[ctx->pending_have++] = w;
    if (ctx->pending_have == ctx->pending->nthreads)
        launch_gang(ctx);
}

/* w took gang task t: it becomes its rank 0 and the idle workers are reserved at once
 * (ctx->lock held). */
static void start_gang(hyt_context_t *ctx, hyt_worker_t *w, hyt_task_t *t)
{
    ctx->pending = t;
    ctx->pending_have = 0;
    atomic_store(&ctx->pending_flag, 1);
    join_gang(ctx, w);
    while (ctx->pending == t && ctx->nidle) {
        hyt_worker_t *v = ctx->idle[--ctx->nidle];
        atomic_store_explicit(&ctx->nsleeping, ctx->nidle, memory_order_relaxed);
        atomic_store_explicit(&v->q.state, HYT_W_BUSY, memory_order_relaxed);
        v->sleeping = 0;
        join_gang(ctx, v);
        pthread_cond_signal(&v->cond);
    }
}

/* Before w runs t: the finished tasks of another sequence are reported first (t may run
 * long). */
static hyt_task_t *begin_task(hyt_worker_t *w, hyt_task_t *t, int gang)
{
    if (w->done_seq && w->done_seq != t->seq)
        report_seq(w);
    if (!gang)
        prepare_run(w->ctx, t);
    return t;
}

/* w is reserved for a gang (or already has its rank): waits for its rank. */
static hyt_task_t *gang_wait(hyt_worker_t *w, int *rank)
{
    hyt_context_t *ctx = w->ctx;
    report_done(w);
    uint64_t end = hyt_now_ns() + (uint64_t)ctx->spin_ns;
    while (!atomic_load_explicit(&w->has_assignment, memory_order_acquire) &&
           hyt_now_ns() < end)
        for (int i = 0; i < 8; i++)
            hyt_cpu_relax();
    pthread_mutex_lock(&ctx->lock);
    while (!w->assigned)
        pthread_cond_wait(&w->cond, &ctx->lock);
    hyt_task_t *t = w->assigned;
    *rank = w->assigned_rank;
    w->assigned = NULL;
    atomic_store_explicit(&w->has_assignment, 0, memory_order_relaxed);
    pthread_mutex_unlock(&ctx->lock);
    return begin_task(w, t, 1);
}

/* A ready task for w without waiting: the best of its own queue, or of all queues when a
 * look at the others is due (every HYT_SCAN_NS while busy) or when its own is empty and
 * `scan` says so. */
static hyt_task_t *find_task(hyt_context_t *ctx, hyt_worker_t *w, int scan)
{
    hyt_task_t *t;
    long own = LONG_MIN;
    if (atomic_load_explicit(&w->q.n, memory_order_relaxed)) {
        own = atomic_load_explicit(&w->q.top, memory_order_relaxed);
        uint64_t now = ctx->nworkers > 1 ? hyt_now_ns() : 0;
        if (now < w->next_scan_ns || ctx->nworkers == 1) {
            if ((t = queue_pop(ctx, w, 1, &w->rng)))
                return t;
            own = LONG_MIN;
        } else {
            w->next_scan_ns = now + HYT_SCAN_NS;
            scan = 1;
        }
    }
    if (!scan)
        return NULL;
    t = steal(ctx, w, 1, own, &w->rng);
    if (!t && own != LONG_MIN)
        t = queue_pop(ctx, w, 1, &w->rng);
    return t;
}

static inline void set_state(hyt_worker_t *w, int st) { store_if_changed(&w->q.state, st); }

enum { IDLE_AGAIN, IDLE_RESERVED, IDLE_SHUTDOWN };

/* Nothing ready for w: spins (watching its queue) until *spin_end, then sleeps on the idle
 * list until woken. */
static int idle_step(hyt_worker_t *w, uint64_t *spin_end)
{
    hyt_context_t *ctx = w->ctx;
    if (atomic_load_explicit(&ctx->shutdown, memory_order_acquire))
        return IDLE_SHUTDOWN;
    if (!*spin_end) {
        set_state(w, HYT_W_LOOKING);
        *spin_end = hyt_now_ns() + (uint64_t)ctx->spin_ns;
    }
    report_if_awaited(w);
    /* the clock every 16 rounds; now and then the core to another thread, in case the
     * machine is oversubscribed (it may be the one with counts to report) */
    if ((++w->spins & 15) || hyt_now_ns() < *spin_end) {
        for (int i = 0; i < 8; i++)
            hyt_cpu_relax();
        if ((w->spins & 15) == 0)
            sched_yield();
        return IDLE_AGAIN;
    }
    *spin_end = 0;
    report_done(w);
    pthread_mutex_lock(&ctx->lock);
    if (ctx->pending || atomic_load_explicit(&ctx->shutdown, memory_order_relaxed)) {
        pthread_mutex_unlock(&ctx->lock); /* join it / stop, in next_task */
        return IDLE_AGAIN;
    }
    w->sleeping = 1;
    ctx->idle[ctx->nidle++] = w;
    atomic_store_explicit(&ctx->nsleeping, ctx->nidle, memory_order_relaxed);
    atomic_store_explicit(&w->q.state, HYT_W_SLEEPING, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst); /* pairs with the fence in notify() */
    if (any_ready(ctx, w)) {
        wake_locked(ctx, w); /* pushed meanwhile: off the list again, looking */
        pthread_mutex_unlock(&ctx->lock);
        return IDLE_AGAIN;
    }
    /* Woken with sleeping = 0 by new work, by a gang that reserved w, or at shutdown. */
    while (w->sleeping)
        pthread_cond_wait(&w->cond, &ctx->lock);
    int reserved = w->reserved || w->assigned;
    pthread_mutex_unlock(&ctx->lock);
    return reserved ? IDLE_RESERVED : IDLE_AGAIN;
}

/* Next task for worker w and its rank; NULL at shutdown. */
static hyt_task_t *next_task(hyt_worker_t *w, int *rank)
{
    hyt_context_t *ctx = w->ctx;
    uint64_t spin_end = 0;
    unsigned round = 0;
    for (;;) {
        hyt_task_t *t = NULL;
        if (!atomic_load_explicit(&ctx->pending_flag, memory_order_acquire)) {
            /* the other queues on a hint and every 256 rounds, not at every round (the pushing
             * threads would pay for every idle worker reading their lines) */
            int scan = (++round & 255) == 0 ||
                       atomic_load_explicit(&ctx->steal_hint, memory_order_relaxed);
            t = find_task(ctx, w, scan);
            if (!t) {
                int r = idle_step(w, &spin_end);
                if (r == IDLE_SHUTDOWN)
                    return NULL;
                if (r == IDLE_RESERVED) {
                    set_state(w, HYT_W_BUSY);
                    return gang_wait(w, rank);
                }
                continue;
            }
            set_state(w, HYT_W_BUSY);
            spin_end = 0;
            if (t->nthreads <= 1) {
                *rank = 0;
                return begin_task(w, t, 0);
            }
        }
        set_state(w, HYT_W_BUSY);
        spin_end = 0;
        /* a gang: start the one taken, or join the one collecting workers */
        pthread_mutex_lock(&ctx->lock);
        if (t && ctx->pending) {
            /* only one collects at a time: t goes back (its heap just gave it, or the
             * overflow heap takes it), w joins the other */
            queue_push(ctx, w, t, 1, NULL);
            set_hint(ctx, 1);
            t = NULL;
        }
        if (t) {
            start_gang(ctx, w, t);
        } else if (ctx->pending) {
            join_gang(ctx, w);
        } else {
            pthread_mutex_unlock(&ctx->lock); /* it started meanwhile */
            continue;
        }
        pthread_mutex_unlock(&ctx->lock);
        return gang_wait(w, rank);
    }
}

static void *worker_main(void *arg)
{
    hyt_worker_t *w = arg;
    tls_worker = w;
    tls_cache = &w->cache;
    int rank;
    hyt_task_t *t;
    while ((t = next_task(w, &rank)))
        run_cpu_task(w->ctx, w->id, t, rank, &w->scratch, &w->scratch_size);
    report_done(w);
    tls_worker = NULL;
    tls_cache = NULL;
    return NULL;
}


int hyt_sched_start(hyt_context_t *ctx)
{
    for (int i = 0; i < ctx->nworkers; i++) {
        int rc = hyt_worker_spawn(&ctx->workers[i], worker_main);
        if (rc)
            return rc;
        ctx->nstarted = i + 1;
    }
    return HYT_SUCCESS;
}

void hyt_sched_stop(hyt_context_t *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    atomic_store(&ctx->shutdown, 1);
    for (int i = 0; i < ctx->nstarted; i++) {
        ctx->workers[i].sleeping = 0;
        atomic_store(&ctx->workers[i].q.state, HYT_W_BUSY);
        pthread_cond_signal(&ctx->workers[i].cond);
    }
    ctx->nidle = 0;
    atomic_store(&ctx->nsleeping, 0);
    pthread_mutex_unlock(&ctx->lock);
    for (int i = 0; i < ctx->nstarted; i++)
        pthread_join(ctx->workers[i].thread, NULL);
    ctx->nstarted = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* the window and draining                                                                     */

static inline long inflight(hyt_context_t *ctx)
{
    long f = atomic_load(&ctx->nfinished); /* first: the difference can only overestimate */
    return atomic_load(&ctx->ninserted) - f;
}

/* Waits (executing tasks when possible) until fewer than `limit` tasks are unfinished. */
static void wait_inflight_below(hyt_context_t *ctx, long limit, int help)
{
    while (inflight(ctx) >= limit) {
        if (help && !atomic_load(&ctx->pending_flag)) {
            hyt_task_t *t = steal(ctx, NULL, 0, LONG_MIN, &tls_rng);
            if (t) {
                prepare_run(ctx, t);
                run_cpu_task(ctx, ctx->nworkers, t, 0, &ctx->master_scratch,
                             &ctx->master_scratch_size);
                continue;
            }
        }
        pthread_mutex_lock(&ctx->window_lock);
        atomic_fetch_add(&ctx->window_waiting, 1); /* workers report their counts at once */
        if (inflight(ctx) >= limit)
            pthread_cond_wait(&ctx->window_cond, &ctx->window_lock);
        atomic_fetch_sub(&ctx->window_waiting, 1);
        pthread_mutex_unlock(&ctx->window_lock);
    }
}

void hyt_sched_drain(hyt_context_t *ctx) { wait_inflight_below(ctx, 1, 0); }

/* ------------------------------------------------------------------------------------------ */
/* for insertion (insert.c)                                                                    */

hyt_task_t *hyt_sched_task_alloc(hyt_context_t *ctx) { return task_alloc(ctx); }

void hyt_sched_make_ready(hyt_context_t *ctx, hyt_task_t *t) { make_ready(ctx, t); }

void hyt_sched_wait_window(hyt_context_t *ctx) { wait_inflight_below(ctx, ctx->window, 1); }

hyt_tcache_t *hyt_sched_use_cache(hyt_tcache_t *c)
{
    hyt_tcache_t *old = tls_cache;
    tls_cache = c;
    return old;
}
