/*
 * Scheduler behaviour: the insertion window, priorities, the inserting thread helping, errors
 * and cancellation, fault injection, device tasks on host devices, tokens, tracing.
 */
#include "hyt_runtime.h"
#include "hyt_test.h"

#include <stdatomic.h>
#include <time.h>

static hyt_context_t *make_ctx(int workers, const char *devices, int window, const char *extra_key,
                               const char *extra_val)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d", window);
    return test_context(workers, devices, "runtime.window", buf, extra_key, extra_val,
                        (char *)NULL);
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------------------------------ */

typedef struct rec_args {
    int id;
    int sleep_us;
    int fail;          /* return this code */
    atomic_int *order; /* next position */
    int *log;          /* id per position */
    int *worker_log;
    atomic_long *done;
    atomic_int *gate;  /* wait until it is set */
} rec_args_t;

static int rec_body(const hyt_task_ctx_t *tc, void *p)
{
    rec_args_t *a = p;
    if (a->sleep_us)
        sleep_us(a->sleep_us);
    while (a->gate && !atomic_load(a->gate))
        sleep_us(100);
    if (a->order) {
        int pos = atomic_fetch_add(a->order, 1);
        a->log[pos] = a->id;
        if (a->worker_log)
            a->worker_log[pos] = tc->worker;
    }
    if (a->done)
        atomic_fetch_add(a->done, 1);
    return a->fail;
}

static int rec_dev(const hyt_devctx_t *dc, void *p)
{
    (void)dc;
    rec_args_t *a = p;
    if (a->done)
        atomic_fetch_add(a->done, 1);
    return a->fail;
}

static const hyt_kernel_t rec_kernel = {.name = "rec", .cpu = rec_body, .dev = rec_dev, .cat = HYT_CAT_UPDATE};

static int insert_rec(hyt_sequence_t *seq, rec_args_t a, const void *key, hyt_mode_t mode,
                      int prio)
{
    hyt_task_desc_t d = hyt_task_desc(&rec_kernel, &a, sizeof a);
    hyt_dep_t dep = {key, mode};
    if (key) {
        d.deps = &dep;
        d.ndeps = 1;
    }
    d.priority = prio;
    d.tag[0] = a.id;
    return hyt_task_insert(seq, &d);
}

/* Priorities: one worker, a task that everything reads after and that waits until all are
 * inserted, then tasks of random priority all released at once: they must run highest
 * priority first, FIFO among equals. */
static void test_priority(void)
{
    hyt_context_t *ctx = make_ctx(1, "none", 100000, NULL, NULL);
    hyt_sequence_t *seq;
    hyt_sequence_create(ctx, &seq);
    enum { N = 300 };
    static int log[N + 1], prio[N + 1];
    atomic_int order = 0;
    int key;
    atomic_int gate = 0;
    test_rng_t rng = {5};
    insert_rec(seq, (rec_args_t){.id = 0, .gate = &gate, .order = &order, .log = log}, &key,
               HYT_WRITE, 0);
    for (int i = 1; i <= N; i++) {
        prio[i] = test_randint(&rng, 7) - 3;
        insert_rec(seq, (rec_args_t){.id = i, .order = &order, .log = log}, &key, HYT_READ,
                   prio[i]);
    }
    atomic_store(&gate, 1);
    CHECK(hyt_sequence_wait(seq) == 0, "status");
    CHECK(atomic_load(&order) == N + 1, "ran %d", atomic_load(&order));
    CHECK(log[0] == 0, "first %d", log[0]);
    for (int p = 2; p <= N; p++) {
        int a = log[p - 1], b = log[p];
        CHECK(prio[a] > prio[b] || (prio[a] == prio[b] && a < b),
              "position %d: task %d (priority %d) before task %d (priority %d)", p, a, prio[a],
              b, prio[b]);
    }
    hyt_sequence_destroy(seq);
    hyt_context_destroy(ctx);
}

/* Window: never more than `window` unfinished tasks; the inserting thread runs tasks itself. */
static void test_window(void)
{
    enum { W = 16 };
    hyt_context_t *ctx = make_ctx(1, "none", W, NULL, NULL);
    int nw = hyt_context_num_workers(ctx);
    hyt_sequence_t *seq;
    hyt_sequence_create(ctx, &seq);
    atomic_long done = 0;
    int key;
    /* a slow chain: without the window, insertion would run far ahead */
    for (int i = 0; i < 200; i++) {
        REQUIRE(!insert_rec(seq, (rec_args_t){.id = i, .sleep_us = 200, .done = &done}, &key,
                            HYT_RW, 0), "%s", hyt_last_error());
        CHECK(i + 1 - atomic_load(&done) <= W, "%ld unfinished tasks with a window of %d",
              i + 1 - atomic_load(&done), W);
    }
    CHECK(hyt_sequence_wait(seq) == 0, "status");
    /* independent tasks: the inserting thread (worker id == nworkers) helps */
    enum { N = 3000 };
    static int log[N], wlog[N];
    atomic_int order = 0;
    for (int i = 0; i < N; i++)
        insert_rec(seq, (rec_args_t){.id = i, .sleep_us = 20, .order = &order, .log = log,
                                      .worker_log = wlog},
                   NULL, HYT_READ, 0);
    CHECK(hyt_sequence_wait(seq) == 0, "status");
    int helped = 0;
    for (int i = 0; i < N; i++)
        helped += wlog[i] == nw;
    CHECK(helped > 0, "the inserting thread never executed a task while the window was full");
    hyt_sequence_destroy(seq);
    hyt_context_destroy(ctx);
}

/* Errors: a failing task stops the rest of its sequence; other sequences go on; the context
 * stays usable. */
static void test_errors(void)
{
    hyt_context_t *ctx = make_ctx(2, "none", 1000, NULL, NULL);
    hyt_sequence_t *s1, *s2;
    hyt_sequence_create(ctx, &s1);
    hyt_sequence_create(ctx, &s2);
    atomic_long done1 = 0, done2 = 0;
    int k1, k2;
    for (int i = 0; i < 50; i++)
        insert_rec(s1, (rec_args_t){.id = i, .fail = i == 10 ? HYT_ERR_TASK : 0, .done = &done1},
                   &k1, HYT_RW, 0);
    for (int i = 0; i < 50; i++)
        insert_rec(s2, (rec_args_t){.id = i, .done = &done2}, &k2, HYT_RW, 0);
    int rc1 = hyt_sequence_wait(s1), rc2 = hyt_sequence_wait(s2);
    CHECK(rc1 == HYT_ERR_TASK, "failing sequence returned %d", rc1);
    CHECK(strstr(hyt_sequence_message(s1), "rec") != NULL, "message '%s'",
          hyt_sequence_message(s1));
    CHECK(atomic_load(&done1) == 11, "%ld tasks ran in the failed chain (expected 11)",
          atomic_load(&done1));
    CHECK(rc2 == 0 && atomic_load(&done2) == 50, "other sequence: %d, %ld tasks", rc2,
          atomic_load(&done2));
    /* inserting into a failed sequence reports its error */
    CHECK(insert_rec(s1, (rec_args_t){.id = 99}, &k1, HYT_RW, 0) == HYT_ERR_TASK,
          "insert into failed sequence");
    hyt_sequence_destroy(s1);
    hyt_sequence_destroy(s2);

    /* cancellation: tasks behind one that waits until after the cancel are skipped */
    hyt_sequence_t *s3;
    hyt_sequence_create(ctx, &s3);
    atomic_long done3 = 0;
    atomic_int gate = 0;
    insert_rec(s3, (rec_args_t){.id = 0, .gate = &gate, .done = &done3}, &k1, HYT_RW, 0);
    for (int i = 1; i < 100; i++)
        insert_rec(s3, (rec_args_t){.id = i, .done = &done3}, &k1, HYT_RW, 0);
    hyt_sequence_cancel(s3);
    atomic_store(&gate, 1);
    CHECK(hyt_sequence_wait(s3) == HYT_ERR_CANCELLED, "cancelled status");
    CHECK(atomic_load(&done3) <= 1, "%ld tasks ran after cancel", atomic_load(&done3));
    hyt_sequence_destroy(s3);

    /* a gang where one rank fails: no hang, error reported */
    hyt_sequence_t *s4;
    hyt_sequence_create(ctx, &s4);
    rec_args_t a = {.id = 1, .fail = HYT_ERR_TASK};
    hyt_task_desc_t d = hyt_task_desc(&rec_kernel, &a, sizeof a);
    d.nthreads = 2;
    hyt_task_insert(s4, &d);
    CHECK(hyt_sequence_wait(s4) == HYT_ERR_TASK, "gang failure");
    hyt_sequence_destroy(s4);

    /* the context still works */
    hyt_sequence_t *s5;
    hyt_sequence_create(ctx, &s5);
    atomic_long done5 = 0;
    for (int i = 0; i < 20; i++)
        insert_rec(s5, (rec_args_t){.id = i, .done = &done5}, NULL, HYT_READ, 0);
    CHECK(hyt_sequence_wait(s5) == 0 && atomic_load(&done5) == 20, "context unusable");
    hyt_sequence_destroy(s5);

    /* invalid descriptors */
    hyt_task_desc_t bad = hyt_task_desc(NULL, NULL, 0);
    CHECK(hyt_task_insert(s5 = NULL, &bad) == HYT_ERR_INVALID, "NULL sequence accepted");
    hyt_sequence_create(ctx, &s5);
    CHECK(hyt_task_insert(s5, &bad) == HYT_ERR_INVALID, "NULL kernel accepted");
    bad = hyt_task_desc(&rec_kernel, &a, sizeof a);
    bad.device = 3;
    CHECK(hyt_task_insert(s5, &bad) == HYT_ERR_INVALID, "missing device accepted");
    hyt_sequence_destroy(s5);
    hyt_context_destroy(ctx);
}

/* Fault injection: the k-th task fails, for every k of a small DAG. */
/* A context of 2 workers and no devices whose k-th allocation fails (debug.fault_alloc). */
static int fault_alloc_context(int k, hyt_context_t **ctx)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%d", k);
    hyt_config_t *cfg;
    hyt_config_create(&cfg);
    hyt_config_set(cfg, "runtime.workers", "2", HYT_SRC_API, NULL);
    hyt_config_set(cfg, "runtime.devices", "none", HYT_SRC_API, NULL);
    hyt_config_set(cfg, "debug.fault_alloc", buf, HYT_SRC_API, NULL);
    int rc = hyt_context_create(cfg, ctx);
    hyt_config_destroy(cfg);
    return rc;
}

static void test_faults(void)
{
    for (int k = 1; k <= 30; k++) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", k);
        hyt_context_t *ctx = make_ctx(2, "host:1", 1000, "debug.fault_task", buf);
        hyt_sequence_t *seq;
        hyt_sequence_create(ctx, &seq);
        atomic_long done = 0;
        int key[4];
        for (int i = 0; i < 25; i++) {
            rec_args_t a = {.id = i, .done = &done};
            hyt_task_desc_t d = hyt_task_desc(&rec_kernel, &a, sizeof a);
            hyt_dep_t dep = {&key[i % 4], i % 3 ? HYT_READ : HYT_RW};
            d.deps = &dep;
            d.ndeps = 1;
            if (i % 5 == 0)
                d.device = 0;
            if (i % 7 == 0)
                d.nthreads = 2;
            if (hyt_task_insert(seq, &d))
                break;
        }
        int rc = hyt_sequence_wait(seq);
        if (k <= 25)
            CHECK(rc == HYT_ERR_FAULT, "fault at task %d: status %d", k, rc);
        else
            CHECK(rc == 0, "no fault expected for k = %d: status %d", k, rc);
        hyt_sequence_destroy(seq);
        hyt_context_destroy(ctx);
    }
    /* an allocation failure while inserting is reported, not ignored */
    int reported = 0;
    for (int k = 1; k <= 12; k++) {
        hyt_context_t *ctx = NULL;
        int rc = fault_alloc_context(k, &ctx);
        if (rc) {
            CHECK(rc == HYT_ERR_NOMEM, "context creation with fault %d: %d", k, rc);
            CHECK(ctx == NULL, "context returned on failure");
            reported++;
            continue;
        }
        hyt_sequence_t *seq = NULL;
        rc = hyt_sequence_create(ctx, &seq);
        int key;
        atomic_long done = 0;
        for (int i = 0; !rc && i < 40; i++)
            rc = insert_rec(seq, (rec_args_t){.id = i, .done = &done}, &key, HYT_RW, 0);
        if (seq) {
            int st = hyt_sequence_wait(seq);
            rc = rc ? rc : st;
            hyt_sequence_destroy(seq);
        }
        if (rc) {
            CHECK(rc == HYT_ERR_NOMEM, "fault_alloc %d gave %d", k, rc);
            reported++;
        }
        hyt_context_destroy(ctx);
    }
    CHECK(reported >= 10, "only %d of 12 injected allocation failures were reported", reported);
}

/* An edge the runtime cannot record (the predecessor's list of successors cannot grow: an
 * injected allocation failure) must still order the two tasks.  A slow writer and ten readers
 * of it (the seventh outgrows the writer's inline list), all "always" tasks: whichever
 * allocation fails, no reader runs before the writer has finished. */
typedef struct after_args {
    atomic_int *writer_done, *early, *ran;
} after_args_t;

static int slow_writer_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    sleep_us(20000);
    atomic_store(((after_args_t *)p)->writer_done, 1);
    return 0;
}

static int after_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    after_args_t *a = p;
    if (!atomic_load(a->writer_done))
        atomic_fetch_add(a->early, 1);
    atomic_fetch_add(a->ran, 1);
    return 0;
}

/* both "always": they run also in a sequence failed by another injected allocation */
static const hyt_kernel_t slow_writer_kernel = {.name = "slow_writer", .cpu = slow_writer_body,
                                                .cat = HYT_CAT_UPDATE, .always = 1};
static const hyt_kernel_t after_kernel = {.name = "after_writer", .cpu = after_body,
                                          .cat = HYT_CAT_OTHER, .always = 1};

static void test_link_fault(void)
{
    int complete = 0;
    for (int k = 1; k <= 40; k++) {
        hyt_context_t *ctx = NULL;
        int rc = fault_alloc_context(k, &ctx);
        if (rc)
            continue; /* the context's own allocations: test_faults checks those */
        hyt_sequence_t *seq = NULL;
        atomic_int done = 0, early = 0, ran = 0;
        after_args_t a = {&done, &early, &ran};
        int key, inserted = 0;
        rc = hyt_sequence_create(ctx, &seq);
        for (int i = 0; !rc && i <= 10; i++) {
            hyt_task_desc_t d = hyt_task_desc(i ? &after_kernel : &slow_writer_kernel, &a,
                                              sizeof a);
            hyt_dep_t dep = {&key, i ? HYT_READ : HYT_RW};
            d.deps = &dep;
            d.ndeps = 1;
            if (!(rc = hyt_task_insert(seq, &d)) && i)
                inserted++;
        }
        if (seq) {
            int st = hyt_sequence_wait(seq);
            rc = rc ? rc : st;
            hyt_sequence_destroy(seq);
        }
        CHECK(!early, "fault_alloc %d: %d of the writer's readers ran before it", k,
              atomic_load(&early));
        CHECK(!rc || rc == HYT_ERR_NOMEM, "fault_alloc %d gave %d", k, rc);
        CHECK(atomic_load(&ran) == inserted, "fault_alloc %d: %d of %d always tasks ran", k,
              atomic_load(&ran), inserted);
        complete += !rc && inserted == 10;
        hyt_context_destroy(ctx);
    }
    CHECK(complete > 0, "no run of the sweep completed");
}

/* Device tasks on host devices: errors and ordering with CPU tasks through a region. */
static void test_devices(void)
{
    hyt_context_t *ctx = make_ctx(2, "host:3", 1000, NULL, NULL);
    CHECK(hyt_context_num_devices(ctx) == 3, "devices %d", hyt_context_num_devices(ctx));
    hyt_sequence_t *seq;
    hyt_sequence_create(ctx, &seq);
    static int log[300];
    atomic_int order = 0;
    atomic_long done = 0;
    int key;
    for (int i = 0; i < 300; i++) {
        rec_args_t a = {.id = i, .order = &order, .log = log, .done = &done};
        hyt_task_desc_t d = hyt_task_desc(&rec_kernel, &a, sizeof a);
        hyt_dep_t dep = {&key, HYT_RW};
        d.deps = &dep;
        d.ndeps = 1;
        if (i % 2) {
            d.device = i % 3;
            d.stream = i % HYT_NUM_STREAMS;
        }
        hyt_task_insert(seq, &d);
    }
    CHECK(hyt_sequence_wait(seq) == 0, "status");
    CHECK(atomic_load(&done) == 300, "done %ld", atomic_load(&done));
    /* CPU tasks log their position; in a chain they must appear in increasing order */
    int prev = -1, ok = 1;
    for (int p = 0; p < atomic_load(&order); p++) {
        ok &= log[p] > prev;
        prev = log[p];
    }
    CHECK(ok, "chain through CPU and device tasks ran out of order");
    /* a failing device task */
    rec_args_t a = {.id = 1, .fail = HYT_ERR_DEVICE};
    hyt_task_desc_t d = hyt_task_desc(&rec_kernel, &a, sizeof a);
    d.device = 1;
    hyt_task_insert(seq, &d);
    CHECK(hyt_sequence_wait(seq) == HYT_ERR_DEVICE, "device failure status");
    hyt_sequence_destroy(seq);
    hyt_context_destroy(ctx);
}

/* Short-lived sequences: a sequence destroyed as soon as its last task finishes, thousands
 * of times, while workers are still completing that task (a worker once locked the sequence's
 * mutex after the waiter had freed it: the sanitizer builds catch any return of that). */
static void test_short_sequences(void)
{
    hyt_context_t *ctx = make_ctx(4, "host:1", 1000, NULL, NULL);
    atomic_long done = 0;
    long want = 0;
    for (int i = 0; i < 3000; i++) {
        hyt_sequence_t *seq;
        CHECK(hyt_sequence_create(ctx, &seq) == 0, "sequence %d", i);
        for (int t = 0; t < 1 + i % 3; t++) {
            rec_args_t a = {.id = t, .done = &done};
            hyt_task_desc_t d = hyt_task_desc(&rec_kernel, &a, sizeof a);
            if (i % 5 == 4)
                d.device = 0;
            CHECK(hyt_task_insert(seq, &d) == 0, "insert");
            want++;
        }
        hyt_sequence_destroy(seq);
        CHECK(atomic_load(&done) == want, "done %ld of %ld after sequence %d",
              atomic_load(&done), want, i);
    }
    hyt_context_destroy(ctx);
}

/* Tracing: every executed task recorded; JSON (the device tasks with their submission on the
 * host, the notes) and DOT written. */
static void test_trace(void)
{
    hyt_context_t *ctx = make_ctx(2, "host:1", 1000, NULL, NULL);
    CHECK(hyt_trace_note(ctx, "early", "1") == 0, "a note without a trace: %s", hyt_last_error());
    hyt_trace_start(ctx, 1);
    CHECK(!hyt_trace_note(ctx, "run.n", "1000") && !hyt_trace_note(ctx, "run.who", "x-1.5:y+z") &&
              !hyt_trace_note(ctx, "run.n", "2000"),
          "notes: %s", hyt_last_error());
    char big[HYT_TRACE_NOTE_MAX + 1];
    memset(big, 'a', sizeof big - 1);
    big[HYT_TRACE_NOTE_MAX] = '\0';
    CHECK(hyt_trace_note(ctx, "", "1") == HYT_ERR_INVALID &&
              hyt_trace_note(ctx, "a b", "1") == HYT_ERR_INVALID &&
              hyt_trace_note(ctx, "k", "\"") == HYT_ERR_INVALID &&
              hyt_trace_note(ctx, "k", NULL) == HYT_ERR_INVALID &&
              hyt_trace_note(ctx, big, "1") == HYT_ERR_INVALID &&
              hyt_trace_note(NULL, "k", "1") == HYT_ERR_INVALID,
          "bad notes accepted");
    CHECK(strstr(hyt_last_error(), "hyt_trace_note"), "message '%s'", hyt_last_error());
    big[HYT_TRACE_NOTE_MAX - 1] = '\0'; /* the longest key */
    CHECK(!hyt_trace_note(ctx, big, "1"), "the longest key: %s", hyt_last_error());
    for (int i = 3; i < HYT_TRACE_NOTES; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        CHECK(!hyt_trace_note(ctx, k, "v"), "note %d: %s", i, hyt_last_error());
    }
    CHECK(hyt_trace_note(ctx, "one.more", "v") == HYT_ERR_INVALID &&
              !hyt_trace_note(ctx, "run.n", "3000"),
          "a key past the last accepted, or a known key refused");
    hyt_sequence_t *seq;
    hyt_sequence_create(ctx, &seq);
    hyt_tokens_t *tok = hyt_tokens_create(4);
    for (int i = 0; i < 40; i++) {
        rec_args_t a = {.id = i};
        hyt_task_desc_t d = hyt_task_desc(&rec_kernel, &a, sizeof a);
        hyt_dep_t dep = {hyt_token(tok, (size_t)i % 2), i % 4 < 2 ? HYT_WRITE : HYT_READ};
        d.deps = &dep;
        d.ndeps = 1;
        if (i % 10 == 3)
            d.device = 0;
        d.tag[0] = i;
        hyt_task_insert(seq, &d);
    }
    CHECK(hyt_sequence_wait(seq) == 0, "status");
    hyt_trace_stop(ctx);
    CHECK(!hyt_trace_note(ctx, "late", "1"), "a note after the trace: %s", hyt_last_error());
    hyt_trace_event_t *ev;
    long n = hyt_trace_events(ctx, &ev);
    CHECK(n == 40, "%ld events recorded, expected 40", n);
    int devtrack = 0;
    for (long i = 0; i < n; i++) {
        CHECK(ev[i].end >= ev[i].start, "negative duration");
        devtrack += ev[i].track > hyt_context_num_workers(ctx);
        CHECK(!strcmp(ev[i].name, "rec"), "name %s", ev[i].name);
    }
    CHECK(devtrack == 4, "%d device events, expected 4", devtrack);
    free(ev);
    char json[] = "/tmp/hyt_trace_XXXXXX", dot[] = "/tmp/hyt_dot_XXXXXX";
    int fj = mkstemp(json), fd = mkstemp(dot);
    close(fj);
    close(fd);
    CHECK(hyt_trace_write_json(ctx, json) == 0, "json: %s", hyt_last_error());
    CHECK(hyt_trace_write_dot(ctx, dot) == 0, "dot: %s", hyt_last_error());
    FILE *f = fopen(json, "r");
    char line[4096];
    int events = 0, issued = 0, noted = 0, late = 0;
    while (f && fgets(line, sizeof line, f)) {
        events += strstr(line, "\"ph\":\"X\"") != NULL;
        issued += strstr(line, "\"issue_dur\":") != NULL; /* the device tasks' submissions */
        noted += strstr(line, "\"otherData\":{\"run.n\":\"3000\",\"run.who\":\"x-1.5:y+z\","
                              "\"aaaa") != NULL && strstr(line, "\"k31\":\"v\"}}") != NULL;
        late += strstr(line, "late") != NULL || strstr(line, "early") != NULL;
    }
    if (f)
        fclose(f);
    CHECK(noted == 1 && !late, "the notes in the JSON: %d, outside the trace %d", noted, late);
    CHECK(events == 40, "%d events in the JSON", events);
    CHECK(issued == 4, "%d events with the host's submission in the JSON, expected 4", issued);
    f = fopen(dot, "r");
    int edges = 0;
    while (f && fgets(line, sizeof line, f))
        edges += strstr(line, "->") != NULL;
    if (f)
        fclose(f);
    /* two tokens, each written and read in turn 20 times: 19 edges each */
    CHECK(edges == 38, "%d edges in the DOT, expected 38", edges);
    CHECK(hyt_trace_write_json(ctx, "/nonexistent/dir/x.json") == HYT_ERR_SYSTEM,
          "unwritable trace accepted");
    /* a new trace starts without notes */
    hyt_trace_start(ctx, 0);
    hyt_trace_stop(ctx);
    CHECK(hyt_trace_write_json(ctx, json) == 0, "json: %s", hyt_last_error());
    f = fopen(json, "r");
    noted = 0;
    while (f && fgets(line, sizeof line, f))
        noted += strstr(line, "\"otherData\":{}}") != NULL;
    if (f)
        fclose(f);
    CHECK(noted == 1, "a new trace's notes not empty");
    unlink(json);
    unlink(dot);
    hyt_tokens_destroy(tok);
    hyt_sequence_destroy(seq);
    hyt_context_destroy(ctx);
}

/* Bad runtime configuration fails context creation with a message. */
static void test_bad_context(void)
{
    hyt_config_t *cfg;
    hyt_config_create(&cfg);
    CHECK(hyt_config_set(cfg, "runtime.cores", "0-100000", HYT_SRC_API, NULL) == HYT_ERR_CONFIG,
          "absurd core range accepted");
    CHECK(!hyt_config_set(cfg, "runtime.cores", "999", HYT_SRC_API, NULL), "%s",
          hyt_last_error());
    hyt_context_t *ctx = NULL;
    CHECK(hyt_context_create(cfg, &ctx) == HYT_ERR_CONFIG, "999 cores accepted");
    CHECK(strstr(hyt_last_error(), "runtime.cores") != NULL, "message '%s'", hyt_last_error());
    CHECK(ctx == NULL, "context returned");
    hyt_config_destroy(cfg);
}

/* The core a context of one worker runs on, for a runtime.cores value; -2 if none. */
static int core_for(const char *cores)
{
    hyt_config_t *cfg;
    hyt_config_create(&cfg);
    hyt_config_set(cfg, "runtime.devices", "none", HYT_SRC_API, NULL);
    hyt_config_set(cfg, "runtime.cores", cores, HYT_SRC_API, NULL);
    hyt_context_t *ctx = NULL;
    int core = -2;
    if (!hyt_context_create(cfg, &ctx))
        core = hyt_context_worker_core(ctx, 0);
    hyt_context_destroy(ctx);
    hyt_config_destroy(cfg);
    return core;
}

/* A core count below the machine's leaves core 0 out (the OS's core); a list is taken as
 * given. */
static void test_core_count(void)
{
    int c1 = core_for("1"), list0 = core_for("0-0"), list1 = core_for("1-1");
    CHECK(c1 != -2 && list0 != -2, "contexts of one core not created: %s", hyt_last_error());
    if (list1 == -2) {
        printf("  (one core: a count of 1 is all of it)\n");
        CHECK(c1 == list0, "count 1 on core %d, not %d", c1, list0);
    } else {
        CHECK(c1 == list1, "count 1 on core %d, not on core 1 (%d)", c1, list1);
    }
}

int main(void)
{
    test_core_count();
    test_priority();
    test_window();
    test_errors();
    test_faults();
    test_link_fault();
    test_devices();
    test_short_sequences();
    test_trace();
    test_bad_context();
    return test_result("test_runtime_sched");
}
