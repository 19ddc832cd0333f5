/*
 * Gang-scheduled (multithreaded) tasks competing for workers in many shapes: sizes from 1 to
 * more than the workers, independent floods, chains, mixed with single tasks, on 1 to 8
 * workers (more workers than cores is allowed: they share cores).  Every gang must start with
 * all its ranks (distinct, 0..size-1), work in lock step through its barriers (the
 * rank-aware one, the counter one, and the two in turn), and finish; a deadlock trips the
 * alarm.
 */
#include "hyt_internal.h"
#include "hyt_test.h"

#include <stdatomic.h>

typedef struct gang_args {
    int expect_size;
    int phases;
    atomic_int *ranks_seen;   /* bitmask per task */
    atomic_int *errors;
    atomic_long *executed;
    int id;
} gang_args_t;

static int gang_body(const hyt_task_ctx_t *tc, void *p)
{
    gang_args_t *a = p;
    int *slot = tc->shared;
    if (tc->size != a->expect_size || tc->rank < 0 || tc->rank >= tc->size)
        atomic_fetch_add(a->errors, 1);
    int bit = 1 << tc->rank;
    if (atomic_fetch_or(&a->ranks_seen[a->id], bit) & bit)
        atomic_fetch_add(a->errors, 1); /* the same rank twice */
    /* the rank-aware barrier (hyt_task_barrier), the counter one, or both in turn */
    int kind = a->id % 3;
    for (int ph = 1; ph <= a->phases; ph++) {
        slot[tc->rank] = ph;
        if (kind == 1)
            hyt_barrier_wait(tc->barrier);
        else
            hyt_task_barrier(tc);
        for (int r = 0; r < tc->size; r++)
            if (slot[r] != ph)
                atomic_fetch_add(a->errors, 1); /* not in lock step */
        if (kind == 0)
            hyt_task_barrier(tc);
        else
            hyt_barrier_wait(tc->barrier);
    }
    atomic_fetch_add(a->executed, 1);
    return 0;
}

static const hyt_kernel_t gang_kernel = {.name = "gang", .cpu = gang_body, .cat = HYT_CAT_PANEL};

static void run_shapes(int workers, unsigned long long seed, int ntasks, int chained)
{
    test_rng_t rng = {seed};
    hyt_context_t *ctx = test_context(workers, "none", (char *)NULL);
    REQUIRE(hyt_context_num_workers(ctx) == workers, "workers %d", hyt_context_num_workers(ctx));

    atomic_int *seen = calloc((size_t)ntasks, sizeof *seen);
    atomic_int errors = 0;
    atomic_long executed = 0;
    int *expected_mask = calloc((size_t)ntasks, sizeof *expected_mask);
    char keys[8];
    hyt_sequence_t *seq;
    hyt_sequence_create(ctx, &seq);
    for (int t = 0; t < ntasks; t++) {
        int k = 1 + test_randint(&rng, workers + 2);
        int size = k < workers ? k : workers;
        gang_args_t a = {size, 1 + test_randint(&rng, 4), seen, &errors, &executed, t};
        hyt_task_desc_t d = hyt_task_desc(&gang_kernel, &a, sizeof a);
        hyt_dep_t dep = {&keys[test_randint(&rng, 8)], HYT_RW};
        if (chained) {
            d.deps = &dep;
            d.ndeps = 1;
        }
        d.nthreads = k;
        d.shared_bytes = (size_t)k * sizeof(int);
        d.priority = test_randint(&rng, 3);
        expected_mask[t] = (1 << size) - 1;
        REQUIRE(!hyt_task_insert(seq, &d), "%s", hyt_last_error());
    }
    int rc = hyt_sequence_wait(seq);
    CHECK(rc == 0, "status %d", rc);
    hyt_sequence_destroy(seq);
    CHECK(atomic_load(&errors) == 0, "%d gang errors (size, rank or lock step), workers %d",
          atomic_load(&errors), workers);
    /* each gang ran each rank once; executed counts ranks */
    long ranks = 0;
    for (int t = 0; t < ntasks; t++) {
        CHECK(atomic_load(&seen[t]) == expected_mask[t], "task %d ranks 0x%x expected 0x%x", t,
              atomic_load(&seen[t]), expected_mask[t]);
        ranks += __builtin_popcount((unsigned)expected_mask[t]);
    }
    CHECK(atomic_load(&executed) == ranks, "executed %ld ranks, expected %ld",
          atomic_load(&executed), ranks);
    hyt_context_destroy(ctx);
    free(seen);
    free(expected_mask);
}

/* Usage: test_runtime_gang [large]   (large: thousands of gangs, 1 to 16 workers, repeated) */
int main(int argc, char **argv)
{
    const int large = test_args(argc, argv, (const char *const[]){"large", NULL});
    if (large < 0)
        return 2;
    test_watchdog("test_runtime_gang: timed out (deadlock?)\n", large ? 3000 : 240);
    int scale = test_scale();
    for (int rep = 0; rep < (large ? 20 : 1); rep++)
        for (int w = 1; w <= (large ? 16 : 8); w++) {
            unsigned long long seed = 77 + (unsigned long long)(w + 100 * rep);
            run_shapes(w, seed, 300 / scale, 0);      /* independent flood */
            run_shapes(w, seed + 22, 200 / scale, 1); /* chains on 8 keys */
        }
    return test_result("test_runtime_gang");
}
