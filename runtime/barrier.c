/*
 * The barrier of gang tasks (hyt_task_barrier) and the counting barrier under it (moved from
 * sched.c, whose opening comment says how gangs are formed).
 */
#include "rt_internal.h"

#include <sched.h>

/* ------------------------------------------------------------------------------------------ */
/* barrier                                                                                     */

void hyt_barrier_init(hyt_barrier_t *b, int n)
{
    atomic_init(&b->count, 0);
    atomic_init(&b->gen, 0);
    b->n = n;
    b->yield_every = 4096;
    b->flags = NULL;
}

/* One round of a barrier's busy wait: the gang owns its cores.  Yield now and then in case
 * the machine is oversubscribed, so a descheduled member can catch up (soon when the context
 * knows it is). */
static inline void barrier_pause(const hyt_barrier_t *b, unsigned *spins)
{
    hyt_cpu_relax();
    if (++*spins % (unsigned)b->yield_every == 0)
        sched_yield();
}

void hyt_barrier_wait(hyt_barrier_t *b)
{
    if (b->n <= 1)
        return;
    int gen = atomic_load_explicit(&b->gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == b->n - 1) {
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_store_explicit(&b->gen, gen + 1, memory_order_release);
        return;
    }
    unsigned spins = 0;
    while (atomic_load_explicit(&b->gen, memory_order_acquire) == gen)
        barrier_pause(b, &spins);
}

/* Dissemination barrier: in round r, rank i tells rank (i + 2^r) mod n that it got there and
 * waits to be told by rank (i - 2^r) mod n; after ceil(log2 n) rounds every rank has heard,
 * through a chain of release/acquire pairs, from every other.  Episodes only grow, so a flag
 * already past the current episode (the teller is a barrier ahead) lets the waiter through. */
void hyt_task_barrier(const hyt_task_ctx_t *tc)
{
    hyt_barrier_t *b = tc->barrier;
    if (tc->size <= 1 || !b)
        return;
    if (!b->flags) {
        hyt_barrier_wait(b);
        return;
    }
    struct hyt_barrier_flags *me = &b->flags[tc->rank];
    const int n = tc->size, e = ++me->episode;
    for (int r = 0, d = 1; d < n; r++, d *= 2) {
        int to = tc->rank + d;
        if (to >= n)
            to -= n;
        atomic_store_explicit(&b->flags[to].round[r], e, memory_order_release);
        unsigned spins = 0;
        while (atomic_load_explicit(&me->round[r], memory_order_acquire) < e)
            barrier_pause(b, &spins);
    }
}
