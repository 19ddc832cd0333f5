/*
 * The race check (debug.races): device tasks whose noted memory overlaps, one writing, on
 * different streams or devices, fail the sequence's wait with HYT_ERR_RACE unless a path of
 * dependencies orders them; everything else passes.  Host devices: the tasks run one at a time,
 * so only the check can tell.
 */
#include "hyt_internal.h"
#include "hyt_runtime.h"
#include "hyt_test.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

/* A device task that notes a block of doubles: rows x cols at p, leading dimension ld. */
typedef struct {
    double *p;
    int ld, rows, cols, write;
} note_args_t;

static int note_body(const hyt_devctx_t *dc, void *a)
{
    (void)dc;
    const note_args_t *n = a;
    hyt_races_block(n->p, n->ld, n->rows, n->cols, n->write, "the block");
    return 0;
}

static int note_cpu_body(const hyt_task_ctx_t *tc, void *a)
{
    (void)tc;
    return note_body(NULL, a);
}

/* device (dev >= 0) or CPU (dev -1) */
static const hyt_kernel_t note_kernel = {.name = "note", .dev = note_body, .cpu = note_cpu_body};

static int cpu_body(const hyt_task_ctx_t *tc, void *a)
{
    (void)tc;
    (void)a;
    return 0;
}

static const hyt_kernel_t cpu_kernel = {.name = "cpu", .cpu = cpu_body};

/* A CPU task that holds the context busy until *a is set. */
static int hold_body(const hyt_task_ctx_t *tc, void *a)
{
    (void)tc;
    while (!atomic_load(*(atomic_int **)a))
        sched_yield();
    return 0;
}

static const hyt_kernel_t hold_kernel = {.name = "hold", .cpu = hold_body};

/* A CPU task that frees device memory and says so: the cleanup of a call inside a sequence. */
typedef struct {
    hyt_device_t *dev;
    void *p;
    atomic_int *done;
} free_args_t;

static int free_body(const hyt_task_ctx_t *tc, void *a)
{
    (void)tc;
    const free_args_t *f = a;
    hyt_device_free(f->dev, f->p);
    atomic_store(f->done, 1);
    return 0;
}

static const hyt_kernel_t free_kernel = {.name = "free", .cpu = free_body};

static hyt_context_t *context(const char *devices)
{
    hyt_config_t *cfg = NULL;
    hyt_context_t *ctx = NULL;
    if (hyt_config_create(&cfg) ||
        hyt_config_set(cfg, "runtime.workers", "2", HYT_SRC_API, NULL) ||
        hyt_config_set(cfg, "runtime.devices", devices, HYT_SRC_API, NULL) ||
        hyt_config_set(cfg, "debug.races", "1", HYT_SRC_API, NULL) ||
        hyt_context_create(cfg, &ctx))
        ctx = NULL;
    hyt_config_destroy(cfg);
    return ctx;
}

/* One task: device dev, stream s, a block of m (rows r0.., columns c0..), dependency key with
 * mode (key NULL: none). */
typedef struct {
    int dev, stream, r0, c0, rows, cols, write;
    const void *key;
    hyt_mode_t mode;
} spec_t;

static double mat[64 * 64];

static int insert(hyt_sequence_t *seq, spec_t s)
{
    note_args_t a = {mat + s.r0 + (int64_t)s.c0 * 64, 64, s.rows, s.cols, s.write};
    hyt_dep_t dep = {s.key, s.mode};
    hyt_task_desc_t d = hyt_task_desc(&note_kernel, &a, sizeof a);
    d.device = s.dev;
    d.stream = s.dev >= 0 ? s.stream : 0;
    d.deps = &dep;
    d.ndeps = s.key ? 1 : 0;
    return hyt_task_insert(seq, &d);
}

/* The wait's result for the tasks of specs, inserted in order into one sequence. */
static int run(hyt_context_t *ctx, const spec_t *specs, int n)
{
    hyt_sequence_t *seq;
    if (hyt_sequence_create(ctx, &seq))
        return -1;
    for (int i = 0; i < n; i++)
        if (insert(seq, specs[i]))
            break;
    return hyt_sequence_finish(seq, 0); /* the message as the last error */
}

#define RUN(ctx, ...)                                                                          \
    run(ctx, (spec_t[]){__VA_ARGS__},                                                          \
        (int)(sizeof((spec_t[]){__VA_ARGS__}) / sizeof(spec_t)))

int main(void)
{
    test_watchdog("test_runtime_races: timed out\n", 300);
    hyt_context_t *ctx = context("host:2");
    REQUIRE(ctx, "context: %s", hyt_last_error());
    static char k1, k2;
    enum { C = HYT_STREAM_COMPUTE, L = HYT_STREAM_LOOKAHEAD };

    /* two writers of one block on two streams, no dependency: a race */
    int rc = RUN(ctx, {0, C, 0, 0, 8, 8, 1, NULL, 0}, {0, L, 0, 0, 8, 8, 1, NULL, 0});
    CHECK(rc == HYT_ERR_RACE, "unordered writers: %d", rc);
    CHECK(!strcmp(hyt_strerror(rc), "HYT_ERR_RACE"), "its name: %s", hyt_strerror(rc));
    printf("the report: %s\n", hyt_last_error());
    CHECK(rc != HYT_ERR_RACE || strstr(hyt_last_error(), "debug.races"), "message: %s",
          hyt_last_error());
    /* the same with a dependency, with one stream, with two readers, with disjoint blocks */
    CHECK(!RUN(ctx, {0, C, 0, 0, 8, 8, 1, &k1, HYT_WRITE}, {0, L, 0, 0, 8, 8, 1, &k1, HYT_RW}),
          "ordered writers");
    CHECK(!RUN(ctx, {0, C, 0, 0, 8, 8, 1, NULL, 0}, {0, C, 0, 0, 8, 8, 1, NULL, 0}),
          "one stream");
    CHECK(!RUN(ctx, {0, C, 0, 0, 8, 8, 0, NULL, 0}, {1, L, 0, 0, 8, 8, 0, NULL, 0}),
          "two readers");
    /* blocks of one matrix: rows 0..7 and 8..15 of the same columns; then columns apart */
    CHECK(!RUN(ctx, {0, C, 0, 0, 8, 8, 1, NULL, 0}, {0, L, 8, 0, 8, 8, 1, NULL, 0}),
          "rows apart");
    CHECK(!RUN(ctx, {0, C, 0, 0, 64, 4, 1, NULL, 0}, {0, L, 0, 4, 64, 4, 1, NULL, 0}),
          "columns apart");
    /* a block whose runs wrap past the leading dimension's end cannot happen with ld >= rows,
     * but a block reaching the last row of one column and a block at the top of the next do
     * not meet: rows 56..63 of column 0, rows 0..7 of column 1 */
    CHECK(!RUN(ctx, {0, C, 56, 0, 8, 1, 1, NULL, 0}, {0, L, 0, 1, 8, 1, 1, NULL, 0}),
          "adjacent runs");
    CHECK(RUN(ctx, {0, C, 56, 0, 9, 1, 1, NULL, 0}, {0, L, 0, 1, 8, 1, 1, NULL, 0}) ==
              HYT_ERR_RACE, "one double into the next column");
    /* a reader and a writer on two devices */
    CHECK(RUN(ctx, {0, C, 4, 4, 8, 8, 0, NULL, 0}, {1, C, 10, 10, 8, 8, 1, NULL, 0}) ==
              HYT_ERR_RACE, "overlapping corner on two devices");
    /* CPU tasks: two writers (any two may run at once), a writer and a device reader; with a
     * dependency, none */
    CHECK(RUN(ctx, {-1, C, 0, 0, 8, 8, 1, NULL, 0}, {-1, C, 0, 0, 8, 8, 1, NULL, 0}) ==
              HYT_ERR_RACE, "two CPU writers");
    CHECK(RUN(ctx, {-1, C, 0, 0, 8, 8, 1, NULL, 0}, {1, L, 4, 4, 8, 8, 0, NULL, 0}) ==
              HYT_ERR_RACE, "a CPU writer and a device reader");
    CHECK(!RUN(ctx, {-1, C, 0, 0, 8, 8, 1, &k1, HYT_WRITE}, {-1, C, 0, 0, 8, 8, 1, &k1, HYT_RW}),
          "ordered CPU writers");
    CHECK(!RUN(ctx, {-1, C, 0, 0, 8, 8, 0, NULL, 0}, {-1, C, 0, 0, 8, 8, 0, NULL, 0}),
          "two CPU readers");
    /* ordered through a path: writer -> CPU task -> writer, by two keys */
    {
        hyt_sequence_t *seq;
        REQUIRE(!hyt_sequence_create(ctx, &seq), "sequence");
        insert(seq, (spec_t){0, C, 0, 0, 8, 8, 1, &k1, HYT_WRITE});
        hyt_dep_t deps[2] = {{&k1, HYT_READ}, {&k2, HYT_WRITE}};
        hyt_task_desc_t d = hyt_task_desc(&cpu_kernel, NULL, 0);
        d.deps = deps;
        d.ndeps = 2;
        CHECK(!hyt_task_insert(seq, &d), "cpu task");
        insert(seq, (spec_t){1, L, 0, 0, 8, 8, 1, &k2, HYT_RW});
        CHECK(!hyt_sequence_wait(seq), "path through a CPU task: %s", hyt_last_error());
        hyt_sequence_destroy(seq);
    }
    /* many readers of a key, the first finished long before the writer comes: the writer
     * still follows every one of them (the region table keeps finished readers for the
     * check) */
    {
        hyt_sequence_t *seq;
        REQUIRE(!hyt_sequence_create(ctx, &seq), "sequence");
        for (int i = 0; i < 40; i++)
            insert(seq, (spec_t){i % 2, i % 2 ? L : C, 0, 0, 8, 8, 0, &k1, HYT_READ});
        hyt_sequence_wait(seq); /* finished, and the context idle */
        CHECK(!hyt_sequence_status(seq), "readers");
        hyt_sequence_destroy(seq);
        CHECK(!RUN(ctx, {0, C, 0, 0, 8, 8, 0, &k1, HYT_READ}, {1, L, 0, 0, 8, 8, 1, &k1, HYT_RW}),
              "writer after readers");
    }
    /* two sequences: the second's writer inserted after the first was waited */
    {
        hyt_sequence_t *s1, *s2, *s3;
        REQUIRE(!hyt_sequence_create(ctx, &s1) && !hyt_sequence_create(ctx, &s2) &&
                    !hyt_sequence_create(ctx, &s3), "sequences");
        /* s3 keeps the context busy, so that the records are not dropped at s1's wait */
        static atomic_int release;
        atomic_int *rp = &release;
        hyt_task_desc_t d = hyt_task_desc(&hold_kernel, &rp, sizeof rp);
        CHECK(!hyt_task_insert(s3, &d), "hold");
        insert(s1, (spec_t){0, C, 0, 0, 8, 8, 1, NULL, 0});
        CHECK(!hyt_sequence_wait(s1), "s1");
        insert(s2, (spec_t){1, L, 0, 0, 8, 8, 1, NULL, 0});
        CHECK(!hyt_sequence_wait(s2), "s2 after s1's wait: %s", hyt_last_error());
        /* and a writer of s3's, inserted before s2's wait, unordered with s2's writer: the
         * wait of s2 reports it, or when s3's writer had not run by then, the wait of s3 */
        insert(s3, (spec_t){0, C, 0, 0, 8, 8, 1, NULL, 0});
        insert(s2, (spec_t){1, L, 0, 0, 8, 8, 1, NULL, 0});
        const int r2 = hyt_sequence_wait(s2);
        atomic_store(&release, 1);
        const int r3 = hyt_sequence_wait(s3);
        CHECK(r2 == HYT_ERR_RACE || r3 == HYT_ERR_RACE, "s2 against s3: %d, %d", r2, r3);
        hyt_sequence_destroy(s1);
        hyt_sequence_destroy(s2);
        hyt_sequence_destroy(s3);
    }
    /* memory freed inside a sequence and allocated again at the same address before a later
     * task is inserted (a call's cleanup, then the next call of the same sequence): the tasks
     * before the free and those after it do not meet there, with no path between them */
    {
        hyt_device_t *dev = hyt_context_device(ctx, 0);
        hyt_sequence_t *seq;
        void *p = NULL, *q = NULL;
        static atomic_int freed;
        REQUIRE(!hyt_sequence_create(ctx, &seq) && !hyt_device_malloc(dev, &p, 8 * 64),
                "sequence, memory");
        note_args_t a = {p, 8, 8, 8, 1};
        hyt_dep_t dep = {&k1, HYT_WRITE};
        hyt_task_desc_t d = hyt_task_desc(&note_kernel, &a, sizeof a);
        d.device = 0;
        d.stream = C;
        d.deps = &dep;
        d.ndeps = 1;
        CHECK(!hyt_task_insert(seq, &d), "writer");
        free_args_t f = {dev, p, &freed};
        dep.mode = HYT_RW;
        d = hyt_task_desc(&free_kernel, &f, sizeof f);
        d.deps = &dep;
        d.ndeps = 1;
        CHECK(!hyt_task_insert(seq, &d), "free");
        while (!atomic_load(&freed))
            sched_yield();
        REQUIRE(!hyt_device_malloc(dev, &q, 8 * 64), "memory again");
        note_args_t b = {q, 8, 8, 8, 1};
        d = hyt_task_desc(&note_kernel, &b, sizeof b);
        d.device = 1;
        d.stream = L;
        CHECK(!hyt_task_insert(seq, &d), "writer after the free");
        CHECK(!hyt_sequence_wait(seq), "a writer before a free and one after it (%s): %s",
              p == q ? "the same address" : "another address", hyt_last_error());
        hyt_sequence_destroy(seq);
        hyt_device_free(dev, q);
    }
    hyt_context_destroy(ctx);

    /* the key's range, and off by default */
    hyt_config_t *cfg;
    REQUIRE(!hyt_config_create(&cfg), "config");
    CHECK(hyt_config_set(cfg, "debug.races", "2", HYT_SRC_API, NULL) == HYT_ERR_CONFIG,
          "debug.races 2 refused");
    CHECK(!hyt_config_set(cfg, "runtime.devices", "host:1", HYT_SRC_API, NULL), "devices");
    REQUIRE(!hyt_context_create(cfg, &ctx), "context: %s", hyt_last_error());
    hyt_config_destroy(cfg);
    CHECK(!RUN(ctx, {0, C, 0, 0, 8, 8, 1, NULL, 0}, {0, L, 0, 0, 8, 8, 1, NULL, 0}),
          "unordered writers pass with the check off");
    hyt_context_destroy(ctx);
    return test_result("runtime_races");
}
