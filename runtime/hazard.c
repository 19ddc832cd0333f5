/*
 * Hazard resolution: one entry per region key, touched only by the inserting thread.
 *
 * For each region we keep the last write epoch (one writer, or the set of commuting GATHER
 * writers) and the readers since then.  A new access of task t links:
 *   READ    after the last write epoch                                   (RaW)
 *   WRITE   after the readers since the last write, or after the last
 *           write epoch when there were none                             (WaR, WaW)
 *   GATHER  like WRITE for the first gather of an epoch; the following
 *           gathers of the same epoch link after the same predecessors,
 *           not after each other.
 * A write that follows readers need not link after the write epoch before them: each reader
 * already waits for it (transitive edge left out).
 */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>

static int tvec_push(hyt_context_t *ctx, hyt_tvec_t *v, hyt_task_t *t)
{
    if (v->n == v->cap) {
        /* Drop finished tasks before growing: long reader lists of finished tasks are common
         * (a panel read by every update of a step).  Not for the race check: a dropped
         * reader's edge would be missing from the graph it checks. */
        int m = 0;
        for (int i = 0; i < v->n; i++) {
            if (!ctx->races &&
                atomic_load_explicit(&v->a[i]->state, memory_order_acquire) == HYT_T_DONE)
                hyt_task_table_release(v->a[i]);
            else
                v->a[m++] = v->a[i];
        }
        v->n = m;
        if (v->n == v->cap || v->cap - v->n < v->cap / 4) {
            int cap = v->cap ? 2 * v->cap : 4;
            hyt_task_t **a = hyt_rt_realloc(ctx, v->a, (size_t)cap * sizeof *a);
            if (!a)
                return HYT_ERR_NOMEM;
            v->a = a;
            v->cap = cap;
        }
    }
    hyt_task_table_retain_new(t); /* t is the task being inserted */
    v->a[v->n++] = t;
    return HYT_SUCCESS;
}

static void tvec_clear(hyt_tvec_t *v)
{
    for (int i = 0; i < v->n; i++)
        hyt_task_table_release(v->a[i]);
    v->n = 0;
}

static void tvec_free(hyt_tvec_t *v)
{
    tvec_clear(v);
    free(v->a);
    v->a = NULL;
    v->cap = 0;
}

/* Moves src into dst (dst cleared first); src becomes empty. */
static void tvec_move(hyt_tvec_t *dst, hyt_tvec_t *src)
{
    tvec_free(dst);
    *dst = *src;
    src->a = NULL;
    src->n = src->cap = 0;
}

static void link_all(hyt_context_t *ctx, const hyt_tvec_t *v, hyt_task_t *t)
{
    for (int i = 0; i < v->n; i++)
        hyt_sched_link(ctx, v->a[i], t);
}

static inline size_t hash_ptr(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static void region_free(hyt_region_t *r)
{
    tvec_free(&r->writers);
    tvec_free(&r->readers);
    tvec_free(&r->gather_pred);
}

void hyt_rtable_clear(hyt_rtable_t *rt)
{
    for (size_t i = 0; i < rt->cap; i++)
        if (rt->slots[i].key)
            region_free(&rt->slots[i]);
    free(rt->slots);
    rt->slots = NULL;
    rt->cap = rt->used = 0;
}

static int rtable_grow(hyt_context_t *ctx, hyt_rtable_t *rt)
{
    size_t cap = rt->cap ? 2 * rt->cap : 1024;
    hyt_region_t *s = hyt_rt_calloc(ctx, cap, sizeof *s);
    if (!s)
        return HYT_ERR_NOMEM;
    for (size_t i = 0; i < rt->cap; i++) {
        hyt_region_t *r = &rt->slots[i];
        if (!r->key)
            continue;
        size_t h = hash_ptr(r->key) & (cap - 1);
        while (s[h].key)
            h = (h + 1) & (cap - 1);
        s[h] = *r;
    }
    free(rt->slots);
    rt->slots = s;
    rt->cap = cap;
    return HYT_SUCCESS;
}

/* The slot of key, or the empty slot where it would go (the table has room: cap > used). */
static hyt_region_t *rtable_slot(const hyt_rtable_t *rt, const void *key)
{
    size_t h = hash_ptr(key) & (rt->cap - 1);
    while (rt->slots[h].key && rt->slots[h].key != key)
        h = (h + 1) & (rt->cap - 1);
    return &rt->slots[h];
}

static hyt_region_t *rtable_get(hyt_context_t *ctx, hyt_rtable_t *rt, const void *key)
{
    if (2 * (rt->used + 1) > rt->cap && rtable_grow(ctx, rt))
        return NULL;
    hyt_region_t *r = rtable_slot(rt, key);
    if (!r->key) {
        r->key = key;
        rt->used++;
    }
    return r;
}

/* Asks for the lines of the tasks an access to key will look at (their state and successor
 * list were last written by the threads that ran them), so that the misses of all the
 * accesses of one insertion overlap. */
void hyt_rtable_prefetch(const hyt_rtable_t *rt, const void *key)
{
    if (!rt->cap)
        return;
    const hyt_region_t *r = rtable_slot(rt, key);
    if (!r->key)
        return;
    const hyt_tvec_t *v = r->readers.n ? &r->readers : &r->writers;
    for (int i = 0; i < v->n && i < 4; i++)
        __builtin_prefetch(&v->a[i]->state, 0, 3);
}

int hyt_rtable_access(hyt_context_t *ctx, hyt_rtable_t *rt, const void *key, hyt_mode_t mode,
                      hyt_task_t *t)
{
    hyt_region_t *r = rtable_get(ctx, rt, key);
    if (!r)
        return HYT_ERR_NOMEM;
    switch (mode) {
    case HYT_READ:
        link_all(ctx, &r->writers, t);
        return tvec_push(ctx, &r->readers, t);
    case HYT_WRITE:
    case HYT_RW:
        link_all(ctx, r->readers.n ? &r->readers : &r->writers, t);
        tvec_clear(&r->readers);
        tvec_clear(&r->writers);
        tvec_clear(&r->gather_pred);
        r->gather = 0;
        return tvec_push(ctx, &r->writers, t);
    case HYT_GATHER:
        if (!r->gather || r->readers.n) {
            /* first gather of an epoch: it waits for what a writer would wait for */
            if (r->readers.n) {
                tvec_move(&r->gather_pred, &r->readers);
                tvec_clear(&r->writers);
            } else {
                tvec_move(&r->gather_pred, &r->writers);
            }
            r->gather = 1;
        }
        link_all(ctx, &r->gather_pred, t);
        return tvec_push(ctx, &r->writers, t);
    }
    return hyt_rt_error(HYT_ERR_INVALID, "invalid access mode %d", (int)mode);
}
