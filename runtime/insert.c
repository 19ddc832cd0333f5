/*
 * Task insertion: the descriptor's checks, the task's fields, its hazards (hazard.c calls
 * hyt_sched_link for each predecessor), the window; the ready queues and task memory are
 * sched.c's (its opening comment says what the inserting thread pays for and why).
 */
#include "rt_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* insertion                                                                                   */

hyt_task_desc_t hyt_task_desc(const hyt_kernel_t *kernel, const void *args, size_t args_size)
{
    hyt_task_desc_t d;
    memset(&d, 0, sizeof d);
    d.kernel = kernel;
    d.args = args;
    d.args_size = args_size;
    d.device = -1;
    d.nthreads = 1;
    d.tag[0] = d.tag[1] = d.tag[2] = -1;
    return d;
}

/* buf, formatted: for the checks below. */
static const char *say(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static const char *say(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return buf;
}

/* What is wrong with a task descriptor (argument 1 of hyt_task_insert), or NULL: checked before
 * the task touches the graph. */
static const char *desc_problem(const hyt_context_t *ctx, const hyt_task_desc_t *d, char *buf,
                                size_t len)
{
    if (!d)
        return "is NULL";
    if (!d->kernel)
        return "has no kernel (desc->kernel is NULL)";
    const char *name = d->kernel->name ? d->kernel->name : "(unnamed)";
    if (d->ndeps < 0)
        return say(buf, len, "has ndeps %d (kernel %s)", d->ndeps, name);
    if (d->ndeps && !d->deps)
        return say(buf, len, "has ndeps %d and deps NULL (kernel %s)", d->ndeps, name);
    if (d->args_size && !d->args)
        return say(buf, len, "has args_size %zu and args NULL (kernel %s)", d->args_size, name);
    if (d->device >= ctx->ndevices)
        return say(buf, len, "asks for device %d, the context has %d (kernel %s)", d->device,
                   ctx->ndevices, name);
    if (d->device >= 0 && !d->kernel->dev)
        return say(buf, len, "asks for device %d, kernel %s has no device body", d->device,
                   name);
    if (d->device >= 0 && (d->stream < 0 || d->stream >= HYT_NUM_STREAMS))
        return say(buf, len, "has stream %d, must be 0..%d (kernel %s)", d->stream,
                   HYT_NUM_STREAMS - 1, name);
    if (d->device < 0 && !d->kernel->cpu)
        return say(buf, len, "is a CPU task (device %d), kernel %s has no CPU body", d->device,
                   name);
    for (int i = 0; i < d->ndeps; i++)
        if (d->deps[i].key && (d->deps[i].mode < HYT_READ || d->deps[i].mode > HYT_GATHER))
            return say(buf, len, "has deps[%d].mode %d, not an access mode (kernel %s)", i,
                       (int)d->deps[i].mode, name);
    return NULL;
}

int hyt_task_insert(hyt_sequence_t *seq, const hyt_task_desc_t *d)
{
    if (!seq)
        return hyt_rt_error(HYT_ERR_INVALID, "hyt_task_insert: NULL sequence");
    hyt_context_t *ctx = seq->ctx;
    char buf[160];
    const char *bad = desc_problem(ctx, d, buf, sizeof buf);
    if (bad)
        return hyt_error_arg(HYT_ERR_INVALID, "hyt_task_insert", 1, "desc", "%s", bad);
    int st = atomic_load(&seq->status);
    if (st && !d->kernel->always)
        return hyt_error(st, "%s", hyt_sequence_message(seq));

    pthread_mutex_lock(&ctx->insert_lock);
    /* tasks freed meanwhile feed the next insertions */
    hyt_tcache_t *saved_cache = hyt_sched_use_cache(&ctx->ins_cache);
    /* The finished count changes at every worker's report: it is read only when a past value
     * does not show the window has room, and every 64 insertions to notice idleness. */
    long ins = atomic_load_explicit(&ctx->ninserted, memory_order_relaxed);
    if (ins - ctx->known_finished >= ctx->window || (++ctx->idle_checks & 63) == 0) {
        hyt_sched_wait_window(ctx);
        ctx->known_finished = atomic_load(&ctx->nfinished);
        /* idle: forget finished tasks (not while the DAG is recorded, nor for the race
         * check: they show every dependency) */
        if (ctx->known_finished == ins && ctx->regions.used && !ctx->races &&
            !(ctx->trace.dag && atomic_load_explicit(&ctx->trace.on, memory_order_relaxed)))
            hyt_rtable_clear(&ctx->regions);
    }

    hyt_task_t *t = hyt_sched_task_alloc(ctx);
    void *args = NULL;
    if (t && d->args_size > HYT_ARGS_INLINE) {
        args = hyt_rt_malloc(ctx, d->args_size);
        if (!args) {
            free(t);
            t = NULL;
        }
    }
    if (!t) {
        hyt_sched_use_cache(saved_cache);
        pthread_mutex_unlock(&ctx->insert_lock);
        return hyt_rt_error(HYT_ERR_NOMEM, "out of memory inserting task %s", d->kernel->name);
    }
    t->kernel = d->kernel;
    t->seq = seq;
    t->ctx = ctx;
    t->id = ++ctx->next_id;
    t->priority = d->priority;
    t->device = d->device;
    t->stream = d->stream;
    t->nthreads = d->device >= 0 ? 1 : d->nthreads < 1 ? 1 : d->nthreads;
    if (t->nthreads > ctx->nworkers)
        t->nthreads = ctx->nworkers;
    t->scratch_bytes = d->scratch_bytes;
    t->shared_bytes = d->shared_bytes;
    memcpy(t->tag, d->tag, sizeof t->tag);
    t->args = args ? args : t->inline_args;
    if (d->args_size)
        memcpy(t->args, d->args, d->args_size);
    t->succ = t->succ_inline;
    t->capsucc = HYT_SUCC_INLINE;
    t->link_stamp = 0;
    atomic_init(&t->npred, HYT_NPRED_GUARD);
    atomic_init(&t->refs, 1);
    atomic_init(&t->state, HYT_T_WAITING);
    /* plain stores: no other thread sees the task yet (a locked or fenced one would wait for
     * all the lines this insertion wrote) */
    atomic_flag_clear_explicit(&t->lock.f, memory_order_relaxed);

    /* counted before it can run, which the push that makes it ready publishes (plain
     * stores: only this thread writes them) */
    atomic_store_explicit(&ctx->ninserted,
                          atomic_load_explicit(&ctx->ninserted, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&seq->ninserted,
                          atomic_load_explicit(&seq->ninserted, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    if (ctx->trace.dag && atomic_load_explicit(&ctx->trace.on, memory_order_relaxed))
        hyt_trace_node(ctx, t);
    if (ctx->races)
        hyt_races_task(ctx, t);

    int rc = 0;
    for (int i = 0; i < d->ndeps && i < 8; i++)
        if (d->deps[i].key)
            hyt_rtable_prefetch(&ctx->regions, d->deps[i].key);
    for (int i = 0; i < d->ndeps && !rc; i++) {
        if (!d->deps[i].key)
            continue;
        rc = hyt_rtable_access(ctx, &ctx->regions, d->deps[i].key, d->deps[i].mode, t);
    }
    hyt_sched_use_cache(saved_cache);
    pthread_mutex_unlock(&ctx->insert_lock);
    if (rc) {
        /* The task is in the graph with part of its dependencies: it runs skipped (also an
         * "always" task), and the sequence carries the error.  The caller gets it too: a
         * cleanup ("always") task that will not run its body leaves the freeing to the caller,
         * after hyt_sequence_wait. */
        t->broken = 1;
        if (rc == HYT_ERR_NOMEM) /* the caller's message too (hyt_error_return) */
            hyt_rt_error(rc, "inserting task %s: out of memory for its dependencies",
                         d->kernel->name);
        hyt_sequence_fail(seq, rc, "%s", hyt_last_error());
    }
    /* ready now, unless a predecessor linked to it has not finished yet: with no link, no
     * other thread ever touches npred */
    int guard = HYT_NPRED_GUARD - t->nlinks;
    if (!t->nlinks ||
        atomic_fetch_sub_explicit(&t->npred, guard, memory_order_acq_rel) == guard)
        hyt_sched_make_ready(ctx, t);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* linking and completion                                                                      */

void hyt_sched_link(hyt_context_t *ctx, hyt_task_t *pred, hyt_task_t *t)
{
    if (pred == t || pred->link_stamp == t->id)
        return;
    pred->link_stamp = t->id;
    /* the DAG dump shows every dependency, also those already satisfied */
    if (ctx->trace.dag && atomic_load_explicit(&ctx->trace.on, memory_order_relaxed))
        hyt_trace_edge(ctx, pred->id, t->id);
    if (ctx->races)
        hyt_races_edge(ctx, pred->id, t->id);
    if (atomic_load_explicit(&pred->state, memory_order_acquire) == HYT_T_DONE)
        return;
    hyt_spin_lock(&pred->lock);
    if (atomic_load_explicit(&pred->state, memory_order_relaxed) == HYT_T_DONE) {
        hyt_spin_unlock(&pred->lock);
        return;
    }
    if (pred->nsucc == pred->capsucc) {
        int cap = 2 * pred->capsucc;
        hyt_task_t **a = hyt_rt_malloc(ctx, (size_t)cap * sizeof *a);
        if (!a) {
            /* Cannot record the edge: wait here until pred has finished instead, so that t
             * still runs after it.  Failing t's sequence would not do: an "always" task (a
             * cleanup) runs in a failed sequence too, and would overtake pred.  pred was
             * inserted before t and needs nothing from this thread (workers and device threads
             * run it), and the region table holds it meanwhile. */
            hyt_spin_unlock(&pred->lock);
            while (atomic_load_explicit(&pred->state, memory_order_acquire) != HYT_T_DONE)
                sched_yield();
            return;
        }
        memcpy(a, pred->succ, (size_t)pred->nsucc * sizeof *a);
        if (pred->succ != pred->succ_inline)
            free(pred->succ);
        pred->succ = a;
        pred->capsucc = cap;
    }
    pred->succ[pred->nsucc++] = t;
    t->nlinks++; /* npred holds the guard until the insertion ends */
    hyt_spin_unlock(&pred->lock);
}
