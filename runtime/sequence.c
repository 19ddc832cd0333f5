/*
 * Sequences: every task belongs to one; the first failure or a cancel sets its status, and
 * hyt_sequence_wait returns it once every task of the sequence has finished (workers report
 * finished tasks in batches: sched.c).
 */
#include "rt_internal.h"

#include <sched.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------------------------ */
/* sequences                                                                                   */

int hyt_sequence_create(hyt_context_t *ctx, hyt_sequence_t **seq)
{
    if (!ctx)
        return hyt_rt_error(HYT_ERR_INVALID, "hyt_sequence_create: NULL context");
    if (!seq)
        return hyt_error_arg(HYT_ERR_INVALID, "hyt_sequence_create", 1, "seq", "is NULL");
    hyt_sequence_t *s = hyt_rt_calloc_aligned(ctx, sizeof *s);
    if (!s)
        return hyt_rt_error(HYT_ERR_NOMEM, "hyt_sequence_create: out of memory");
    s->ctx = ctx;
    atomic_init(&s->status, 0);
    atomic_init(&s->ninserted, 0);
    atomic_init(&s->nfinished, 0);
    atomic_init(&s->nwaiters, 0);
    atomic_init(&s->reporters, 0);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    *seq = s;
    return HYT_SUCCESS;
}

int hyt_sequence_wait(hyt_sequence_t *seq)
{
    pthread_mutex_lock(&seq->lock);
    atomic_fetch_add(&seq->nwaiters, 1); /* workers report their counts at once */
    while (atomic_load(&seq->nfinished) != atomic_load(&seq->ninserted))
        pthread_cond_wait(&seq->cond, &seq->lock);
    atomic_fetch_sub(&seq->nwaiters, 1);
    pthread_mutex_unlock(&seq->lock);
    /* the thread that completed the count may still be about to let go of seq */
    for (unsigned spins = 1; atomic_load_explicit(&seq->reporters, memory_order_acquire); spins++)
        if (spins % 1024)
            hyt_cpu_relax();
        else
            sched_yield(); /* it may have lost its core */
    if (seq->ctx->races)
        hyt_races_check(seq);
    return atomic_load(&seq->status);
}

void hyt_sequence_fail(hyt_sequence_t *seq, int code, const char *fmt, ...)
{
    if (!code)
        return;
    pthread_mutex_lock(&seq->lock);
    if (atomic_load_explicit(&seq->status, memory_order_relaxed) == 0) {
        /* message first, then the status that publishes it */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(seq->message, sizeof seq->message, fmt, ap);
        va_end(ap);
        atomic_store_explicit(&seq->status, code, memory_order_release);
    }
    pthread_mutex_unlock(&seq->lock);
}

void hyt_sequence_cancel(hyt_sequence_t *seq)
{
    hyt_sequence_fail(seq, HYT_ERR_CANCELLED, "sequence cancelled");
}

int hyt_sequence_status(const hyt_sequence_t *seq) { return atomic_load(&seq->status); }

const char *hyt_sequence_message(const hyt_sequence_t *seq)
{
    /* Written once, under the lock, before the status that publishes it. */
    return atomic_load_explicit(&seq->status, memory_order_acquire) ? seq->message : "";
}

hyt_context_t *hyt_sequence_context(const hyt_sequence_t *seq) { return seq->ctx; }

int hyt_sequence_finish(hyt_sequence_t *seq, int rc)
{
    int st = hyt_sequence_wait(seq);
    /* an insertion that failed because the sequence had failed reports the sequence's error */
    if (st && (!rc || rc == st))
        rc = hyt_error(st, "%s", hyt_sequence_message(seq));
    hyt_sequence_destroy(seq);
    return rc;
}

void hyt_sequence_destroy(hyt_sequence_t *seq)
{
    if (!seq)
        return;
    hyt_sequence_wait(seq);
    pthread_mutex_destroy(&seq->lock);
    pthread_cond_destroy(&seq->cond);
    free(seq);
}
