/*
 * Randomized DAGs: random regions, access modes (read, write, read-write, gather), priorities,
 * gang sizes and device placement.  Every task folds what it reads into a hash and writes
 * values derived from it, so any ordering the hazards forbid changes the final state.  The
 * runtime's result must equal serial execution in insertion order, exactly.
 */
#include "hyt_internal.h"
#include "hyt_test.h"

#include <stdint.h>

#define MAXACC 6

typedef struct region {
    uint64_t main;
    uint64_t *gslot; /* one slot per task: gathers write disjoint slots */
} region_t;

typedef struct dag {
    int nregions, ntasks;
    region_t *reg;
    uint64_t *out; /* per task: hash of what it read */
} dag_t;

typedef struct targs {
    dag_t *dag;
    int id;
    int nacc;
    int region[MAXACC];
    int mode[MAXACC];
} targs_t;

static uint64_t read_region(const dag_t *d, int r, int lo, int hi)
{
    uint64_t s = 0;
    for (int i = lo; i < hi; i++)
        s += d->reg[r].gslot[i];
    return s;
}

/* The part of a body that reads: ranks split the gather slots. */
static uint64_t body_read(const targs_t *a, int rank, int size)
{
    const dag_t *d = a->dag;
    uint64_t h = test_mix((uint64_t)a->id + 1);
    int lo = (int)((long)d->ntasks * rank / size), hi = (int)((long)d->ntasks * (rank + 1) / size);
    for (int i = 0; i < a->nacc; i++) {
        if (a->mode[i] == HYT_READ || a->mode[i] == HYT_RW) {
            if (rank == 0)
                h = test_mix(h ^ d->reg[a->region[i]].main);
            h += test_mix(read_region(d, a->region[i], lo, hi) + (uint64_t)i);
        }
    }
    return h;
}

static void body_write(const targs_t *a, uint64_t h)
{
    dag_t *d = a->dag;
    d->out[a->id] = h;
    for (int i = 0; i < a->nacc; i++) {
        region_t *r = &d->reg[a->region[i]];
        switch (a->mode[i]) {
        case HYT_WRITE: r->main = test_mix(h + (uint64_t)i); break;
        case HYT_RW: r->main = test_mix(r->main ^ h ^ (uint64_t)i); break;
        case HYT_GATHER: r->gslot[a->id] += test_mix(h ^ r->main); break;
        }
    }
}

static int cpu_body(const hyt_task_ctx_t *tc, void *p)
{
    targs_t *a = p;
    uint64_t *partial = tc->shared;
    if (tc->size == 1) {
        body_write(a, body_read(a, 0, 1));
        return 0;
    }
    partial[tc->rank] = body_read(a, tc->rank, tc->size);
    hyt_barrier_wait(tc->barrier);
    if (tc->rank == 0) {
        uint64_t h = 0;
        for (int r = 0; r < tc->size; r++)
            h += partial[r];
        body_write(a, h);
    }
    hyt_barrier_wait(tc->barrier);
    return 0;
}

static int dev_body(const hyt_devctx_t *dc, void *p)
{
    (void)dc;
    targs_t *a = p;
    body_write(a, body_read(a, 0, 1));
    return 0;
}

static const hyt_kernel_t kern = {.name = "random", .cpu = cpu_body, .dev = dev_body, .cat = HYT_CAT_OTHER};

static void dag_alloc(dag_t *d, int nregions, int ntasks)
{
    d->nregions = nregions;
    d->ntasks = ntasks;
    d->reg = calloc((size_t)nregions, sizeof *d->reg);
    d->out = calloc((size_t)ntasks, sizeof *d->out);
    for (int r = 0; r < nregions; r++) {
        d->reg[r].main = test_mix((uint64_t)r * 7919);
        d->reg[r].gslot = calloc((size_t)ntasks, sizeof(uint64_t));
    }
}

static void dag_free(dag_t *d)
{
    for (int r = 0; r < d->nregions; r++)
        free(d->reg[r].gslot);
    free(d->reg);
    free(d->out);
}

/* Serial reference: the same bodies in insertion order.  Gang tasks split their reads over
 * ranks; the sum is the same because each part is added. */
static void serial(dag_t *d, targs_t *tasks, int *gang)
{
    for (int t = 0; t < d->ntasks; t++) {
        uint64_t h = 0;
        int size = gang[t];
        if (size == 1)
            h = body_read(&tasks[t], 0, 1);
        else
            for (int r = 0; r < size; r++)
                h += body_read(&tasks[t], r, size);
        body_write(&tasks[t], h);
    }
}

static int run_case(unsigned long long seed, int workers, int ndev, int window, int ntasks,
                    int nregions)
{
    test_rng_t rng = {seed};
    hyt_config_t *cfg;
    char buf[64];
    hyt_config_create(&cfg);
    snprintf(buf, sizeof buf, "%d", workers);
    REQUIRE(!hyt_config_set(cfg, "runtime.workers", buf, HYT_SRC_API, NULL), "%s",
            hyt_last_error());
    snprintf(buf, sizeof buf, ndev ? "host:%d" : "none", ndev);
    REQUIRE(!hyt_config_set(cfg, "runtime.devices", buf, HYT_SRC_API, NULL), "%s",
            hyt_last_error());
    snprintf(buf, sizeof buf, "%d", window);
    REQUIRE(!hyt_config_set(cfg, "runtime.window", buf, HYT_SRC_API, NULL), "%s",
            hyt_last_error());
    hyt_context_t *ctx;
    REQUIRE(!hyt_context_create(cfg, &ctx), "%s", hyt_last_error());
    hyt_config_destroy(cfg);

    dag_t par, ref;
    dag_alloc(&par, nregions, ntasks);
    dag_alloc(&ref, nregions, ntasks);
    targs_t *tasks = calloc((size_t)ntasks, sizeof *tasks);
    int *gang = calloc((size_t)ntasks, sizeof *gang);

    hyt_sequence_t *seq;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());
    for (int t = 0; t < ntasks; t++) {
        targs_t *a = &tasks[t];
        a->dag = &par;
        a->id = t;
        a->nacc = 1 + test_randint(&rng, MAXACC < nregions ? MAXACC : nregions);
        hyt_dep_t deps[MAXACC];
        for (int i = 0; i < a->nacc; i++) {
            int r, dup;
            do { /* distinct regions per task */
                r = test_randint(&rng, nregions);
                dup = 0;
                for (int j = 0; j < i; j++)
                    dup |= a->region[j] == r;
            } while (dup);
            static const int modes[] = {HYT_READ, HYT_READ, HYT_WRITE, HYT_RW, HYT_GATHER,
                                        HYT_GATHER};
            a->region[i] = r;
            a->mode[i] = modes[test_randint(&rng, 6)];
            deps[i].key = &par.reg[r];
            deps[i].mode = (hyt_mode_t)a->mode[i];
        }
        hyt_task_desc_t d = hyt_task_desc(&kern, a, sizeof *a);
        d.deps = deps;
        d.ndeps = a->nacc;
        d.priority = test_randint(&rng, 5);
        d.tag[0] = t;
        int kind = test_randint(&rng, 10);
        gang[t] = 1;
        if (ndev && kind < 3) {
            d.device = test_randint(&rng, ndev);
            d.stream = test_randint(&rng, HYT_NUM_STREAMS);
        } else if (kind >= 8) {
            int k = 2 + test_randint(&rng, workers + 1); /* sometimes more than the workers */
            d.nthreads = k;
            gang[t] = k < workers ? k : workers;
            d.shared_bytes = (size_t)k * sizeof(uint64_t);
        }
        REQUIRE(!hyt_task_insert(seq, &d), "%s", hyt_last_error());
    }
    int rc = hyt_sequence_wait(seq);
    CHECK(rc == 0, "sequence status %d: %s", rc, hyt_sequence_message(seq));
    hyt_sequence_destroy(seq);
    hyt_context_destroy(ctx);

    /* serial reference on a fresh copy of the initial state */
    for (int t = 0; t < ntasks; t++)
        tasks[t].dag = &ref;
    serial(&ref, tasks, gang);
    int bad = 0;
    for (int t = 0; t < ntasks && !bad; t++)
        if (par.out[t] != ref.out[t]) {
            bad = 1;
            CHECK(0, "seed %llu workers %d devices %d: task %d read different values",
                  seed, workers, ndev, t);
        }
    for (int r = 0; r < nregions && !bad; r++) {
        if (par.reg[r].main != ref.reg[r].main ||
            memcmp(par.reg[r].gslot, ref.reg[r].gslot, (size_t)ntasks * sizeof(uint64_t))) {
            bad = 1;
            CHECK(0, "seed %llu workers %d devices %d: region %d differs from serial",
                  seed, workers, ndev, r);
        }
    }
    dag_free(&par);
    dag_free(&ref);
    free(tasks);
    free(gang);
    return bad;
}

/* Usage: test_runtime_dag [large]   (large: 3000 DAGs, workers from 1 to 16, up to 64 regions:
 * more workers than regions and fewer) */
int main(int argc, char **argv)
{
    const int large = test_args(argc, argv, (const char *const[]){"large", NULL});
    if (large < 0)
        return 2;
    int scale = test_scale();
    int cases = 0;
    static const int workers[] = {1, 2, 3, 5, 8, 16, 12};
    static const int devs[] = {0, 0, 1, 2, 4};
    static const int windows[] = {16, 64, 100000};
    int ncase = large ? 3000 : 24 / scale;
    for (int s = 0; s < ncase; s++) {
        int w = workers[s % (large ? 7 : 5)], nd = devs[(s / 2) % 5], win = windows[s % 3];
        int nt = large ? 50 + (int)(test_mix((unsigned long long)s) % 600)
                       : 400 + (int)(test_mix((unsigned long long)s) % 1200) / scale;
        int nr = large ? 1 + (int)(test_mix((unsigned long long)s * 3) % 64) : 5 + s % 40;
        run_case(1000 + (unsigned long long)s, w, nd, win, nt, nr);
        cases++;
    }
    printf("%d random DAGs compared with serial execution\n", cases);
    return test_result("test_runtime_dag");
}
