/* Internal structures of the runtime.  Not installed. */
#ifndef HYT_RT_INTERNAL_H
#define HYT_RT_INTERNAL_H

#include "config.h"
#include "hyt_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* ------------------------------------------------------------------------------------------ */
/* errors and small helpers                                                                    */

/* Records a message for hyt_last_error() and returns code. */
#define hyt_rt_error hyt_error
void hyt_rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void hyt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* A test-and-set spin lock (short critical sections only). */
typedef struct { atomic_flag f; } hyt_spin_t;
#define HYT_SPIN_INIT { ATOMIC_FLAG_INIT }
static inline void hyt_spin_lock(hyt_spin_t *s)
{
    while (atomic_flag_test_and_set_explicit(&s->f, memory_order_acquire))
        hyt_cpu_relax();
}
static inline void hyt_spin_unlock(hyt_spin_t *s)
{
    atomic_flag_clear_explicit(&s->f, memory_order_release);
}

uint64_t hyt_now_ns(void);

/* Chaos mode (debug.chaos): the device stream whose ready tasks run only when no other
 * stream's is ready, by the seed: seed % 3 = 1 the compute stream, 2 the lookahead stream, 0
 * none (every ready task as likely). */
static inline int hyt_chaos_starve(uint64_t seed)
{
    return seed % 3 == 1 ? HYT_STREAM_COMPUTE : seed % 3 == 2 ? HYT_STREAM_LOOKAHEAD : -1;
}

/* Chaos mode (debug.chaos): the k-th random stream of a seed (devices 0.., workers 1024..). */
static inline uint64_t hyt_chaos_stream(uint64_t seed, uint64_t k)
{
    return seed + 0x9e3779b97f4a7c15ULL * (k + 1);
}

/* ------------------------------------------------------------------------------------------ */
/* configuration (config.c)                                                                    */

#define HYT_CONFIG_MAX_KEYS 64
#define HYT_CONFIG_VALUE_MAX 256

/* Values of the keys by registration index; keys registered after the configuration was
 * created (index >= nkeys) are at their defaults. */
struct hyt_config {
    int nkeys;
    char value[HYT_CONFIG_MAX_KEYS][HYT_CONFIG_VALUE_MAX];
    hyt_source_t source[HYT_CONFIG_MAX_KEYS];
    char where[HYT_CONFIG_MAX_KEYS][160];  /* file:line or variable, for reports */
};

/* The registry (config.c): index of a key (-1: unknown), its definition, the count. */
int hyt_config_key_index(const char *key);
int hyt_config_env_index(const char *env);
const hyt_config_keydef_t *hyt_config_keydef(int i);
int hyt_config_num_keys(void);
int hyt_config_is_per_call(const char *key);
/* Text values of the registered sections joined with ", " as "[lu], [runtime]" (for
 * messages). */
void hyt_config_sections(char *buf, size_t len);
/* Sections and HYT_ variable prefixes that belong to a component which may not be linked
 * into the program (the hytile command's [hpl] and HYT_HPL_*): while no registered key
 * uses them, their keys in files and their variables are ignored instead of rejected. */
void hyt_config_reserve(const char *section, const char *env_prefix);
int hyt_config_is_reserved(const char *section, const char *env);

/* value parsers (config_parse.c) */
int hyt_parse_long(const char *s, long *out);
int hyt_parse_bool(const char *s, int *out);
/* Parsed device list: "none", "auto", "cuda", "cuda:0,2", "host:N". */
typedef struct hyt_devspec {
    int auto_detect;     /* "auto": all CUDA GPUs if any, else none */
    hyt_backend_t backend;
    int count;           /* -1: all visible (cuda) */
    int ids[64];
} hyt_devspec_t;
int hyt_parse_devices(const char *text, hyt_devspec_t *spec, char *err, size_t errlen);
/* "all" (returns 0), "8" (cores 0-7; *is_count set, if given), "0-7,16,18-19" (core
 * indices).  Returns the number of cores or -1. */
int hyt_parse_coreset(const char *text, int *cores, int max, int *is_count, char *err,
                      size_t errlen);
int hyt_parse_size(const char *text, size_t *bytes);

/* ------------------------------------------------------------------------------------------ */
/* tasks                                                                                       */

#define HYT_ARGS_INLINE 192
#define HYT_SUCC_INLINE 6

enum { HYT_T_WAITING = 0, HYT_T_READY, HYT_T_RUNNING, HYT_T_DONE };

typedef struct hyt_task hyt_task_t;
struct hyt_task {
    /* Written by the inserting thread only (at insertion; link_stamp, table_refs and nlinks
     * while later tasks are inserted), read by the thread that runs the task: lines that the
     * running and completing threads never write, so the inserting thread keeps them. */
    const hyt_kernel_t *kernel;
    hyt_sequence_t *seq;
    hyt_context_t *ctx;
    void *args;
    uint64_t id;                  /* insertion order, from 1 */
    uint64_t link_stamp;          /* dedup of predecessor links */
    int priority;
    int nthreads, device, stream;
    int tag[3];
    int table_refs;               /* region-table entries holding the task */
    int nlinks;                   /* predecessors linked while it was inserted */
    int broken;                   /* dependencies incompletely recorded (out of memory) */
    size_t scratch_bytes, shared_bytes;

    /* Written by the threads that run and complete tasks (and by the inserting thread while
     * linking a successor, under lock). */
    _Alignas(64) atomic_int npred; /* unresolved predecessors (+ HYT_NPRED_GUARD while being
                                    * inserted) */
    atomic_int refs;              /* 1 while in flight, 1 while the region table holds it */
    atomic_int state;
    hyt_spin_t lock;              /* protects succ/nsucc and the transition to DONE */
    hyt_task_t **succ;
    int nsucc, capsucc;
    int skip;                     /* decided once before the body runs: 0 or an error code */
    atomic_int gang_left;
    void *shared;

    /* device */
    void *event, *ev_start;       /* backend events (completion, trace start) */
    double t_start, t_end;        /* trace, seconds since trace start */
    double t_issue0, t_issue1;    /* trace: the device thread's submission of the task (its
                                   * body's calls), host seconds since trace start */
    hyt_task_t *next;             /* device in-flight FIFO / free list */

    /* not cleared at insertion (set when used): the header above is all a new task touches */
    hyt_task_t *succ_inline[HYT_SUCC_INLINE];
    _Alignas(16) unsigned char inline_args[HYT_ARGS_INLINE];
    hyt_barrier_t barrier;        /* gang tasks only (set up at launch) */
};

/* A rank's line of a dissemination barrier: round[r] is the last episode in which rank
 * (rank - 2^r) mod n reached round r; episode is the rank's own count of barriers. */
struct hyt_barrier_flags {
    _Alignas(64) atomic_int round[15];
    int episode;
};

/* Binary max-heap of ready tasks on (priority, -id). */
typedef struct hyt_heap {
    hyt_task_t **a;
    int n, cap;
} hyt_heap_t;
int hyt_heap_push(hyt_heap_t *h, hyt_task_t *t);
hyt_task_t *hyt_heap_pop(hyt_heap_t *h);
hyt_task_t *hyt_heap_remove(hyt_heap_t *h, int at);
hyt_task_t *hyt_heap_pop_chaos(hyt_heap_t *h, uint64_t *state, int starve);
static inline hyt_task_t *hyt_heap_top(const hyt_heap_t *h) { return h->n ? h->a[0] : NULL; }
void hyt_heap_free(hyt_heap_t *h);

/* ------------------------------------------------------------------------------------------ */
/* region table (hazard.c): only the inserting thread touches it                              */

typedef struct hyt_tvec {
    hyt_task_t **a;
    int n, cap;
} hyt_tvec_t;

typedef struct hyt_region {
    const void *key;
    hyt_tvec_t writers;      /* last write epoch (several tasks for a gather epoch) */
    hyt_tvec_t readers;      /* readers since the last write epoch */
    hyt_tvec_t gather_pred;  /* what the current gather epoch waits for */
    int gather;              /* the last write epoch is a gather epoch */
} hyt_region_t;

typedef struct hyt_rtable {
    hyt_region_t *slots;
    size_t cap, used;
} hyt_rtable_t;

void hyt_rtable_clear(hyt_rtable_t *rt);
/* Asks for the cache lines of the tasks an access to key will look at. */
void hyt_rtable_prefetch(const hyt_rtable_t *rt, const void *key);
/* Adds the hazards of (key, mode) for task t; calls hyt_sched_link for each predecessor. */
int hyt_rtable_access(hyt_context_t *ctx, hyt_rtable_t *rt, const void *key, hyt_mode_t mode,
                      hyt_task_t *t);

/* ------------------------------------------------------------------------------------------ */
/* the race check (races.c, debug.races): ctx->races is NULL when it is off                     */

typedef struct hyt_races hyt_races_t;
int hyt_races_create(hyt_context_t *ctx);
void hyt_races_destroy(hyt_context_t *ctx);
void hyt_races_task(hyt_context_t *ctx, const hyt_task_t *t);   /* inserted (insert lock) */
void hyt_races_edge(hyt_context_t *ctx, uint64_t pred, uint64_t succ); /* linked */
void hyt_races_enter(const hyt_task_t *t); /* the device thread runs t's body ... */
void hyt_races_leave(void);                /* ... until here */
/* After a wait: records it, then the check; the sequence fails with its error (returned) on a
 * race. */
int hyt_races_check(hyt_sequence_t *seq);

/* ------------------------------------------------------------------------------------------ */
/* trace (trace.c)                                                                             */

typedef struct hyt_trec {
    const hyt_kernel_t *kernel;
    int tag[3];
    uint64_t id;
    double t0, t1;
    double i0, i1; /* a device task's submission on the host (i1 > 0), else 0 */
} hyt_trec_t;

typedef struct hyt_tbuf {
    hyt_trec_t *r;
    size_t n, cap;
} hyt_tbuf_t;

typedef struct hyt_trace {
    atomic_int on;
    int dag;
    uint64_t t0_ns;
    int ntracks;
    hyt_tbuf_t *tracks;
    /* DAG, recorded by the inserting thread */
    struct { uint64_t id; const hyt_kernel_t *k; int tag[3]; int device; } *nodes;
    size_t nnodes, capnodes;
    uint64_t (*edges)[2];
    size_t nedges, capedges;
    char path[HYT_CONFIG_VALUE_MAX];
    /* hyt_trace_note's, under note_lock (the context's); cleared by hyt_trace_start */
    pthread_mutex_t note_lock;
    struct { char key[HYT_TRACE_NOTE_MAX], value[HYT_TRACE_NOTE_MAX]; } notes[HYT_TRACE_NOTES];
    int nnotes;
} hyt_trace_t;

void hyt_trace_record(hyt_context_t *ctx, int track, const hyt_task_t *t, double t0, double t1);
void hyt_trace_node(hyt_context_t *ctx, const hyt_task_t *t);
void hyt_trace_edge(hyt_context_t *ctx, uint64_t from, uint64_t to);
double hyt_trace_now(const hyt_context_t *ctx);
void hyt_trace_free(hyt_trace_t *tr);

/* ------------------------------------------------------------------------------------------ */
/* devices (device.c, device_host.c, device_cuda.c)                                            */

typedef struct hyt_devops {
    const char *name;
    int (*init)(hyt_device_t *dev);            /* on the creating thread */
    void (*fini)(hyt_device_t *dev);
    int (*bind)(hyt_device_t *dev);            /* on the device worker thread, at start */
    /* the device current on any thread until leave, which gives the thread its own back */
    int (*enter)(hyt_device_t *dev);
    void (*leave)(hyt_device_t *dev);
    int (*malloc)(hyt_device_t *dev, void **p, size_t bytes);
    void (*free)(hyt_device_t *dev, void *p);
    size_t (*mem_free)(hyt_device_t *dev);
    /* fill dc->cuda_stream / dc->cublas for a stream */
    void (*prepare)(hyt_device_t *dev, hyt_devctx_t *dc);
    /* before/after the body: trace start event, completion event */
    int (*begin)(hyt_device_t *dev, hyt_task_t *t, int tracing);
    int (*end)(hyt_device_t *dev, hyt_task_t *t, int tracing);
    /* 1 when the task's work is complete, 0 when not yet, <0 on a device error */
    int (*query)(hyt_device_t *dev, hyt_task_t *t);
    /* seconds since trace start of the task's device-side start and end */
    void (*times)(hyt_device_t *dev, hyt_task_t *t);
    void (*release)(hyt_device_t *dev, hyt_task_t *t);   /* give back the task's events */
    int (*memcpy)(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes, int kind);
    int (*memcpy2d)(const hyt_devctx_t *dc, void *dst, size_t dpitch, const void *src,
                    size_t spitch, size_t width, size_t height, int kind);
    int (*memset)(const hyt_devctx_t *dc, void *dst, int value, size_t bytes);
    int (*sync)(hyt_device_t *dev);            /* wait for all streams */
    void (*trace_sync)(hyt_device_t *dev);     /* align the device clock with the host's */
} hyt_devops_t;

struct hyt_device {
    hyt_context_t *ctx;
    int index;                 /* in the context */
    int ordinal;               /* CUDA device number, or host device number */
    hyt_backend_t backend;
    const hyt_devops_t *ops;
    void *priv;
    char name[96];

    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    hyt_heap_t ready;
    int shutdown;
    hyt_task_t *inflight_head[HYT_NUM_STREAMS], *inflight_tail[HYT_NUM_STREAMS];
    int ninflight;

    uint64_t chaos;            /* debug.chaos: random order and delays (state, device thread) */
    int chaos_starve;          /* debug.chaos: the stream run last (hyt_chaos_starve), or -1 */
    size_t mem_cap;            /* bytes the runtime may allocate (0: no cap) */
    atomic_size_t mem_used;
    void *scratch;
    size_t scratch_size;
};

extern const hyt_devops_t hyt_devops_host;
#if HYT_HAVE_CUDA
extern const hyt_devops_t hyt_devops_cuda;
int hyt_cuda_device_count(void);
void hyt_cuda_enable_peers(hyt_device_t **devs, int n);
int hyt_cuda_enter(hyt_device_t *dev);
void hyt_cuda_leave(hyt_device_t *dev);
void *hyt_cuda_host_alloc(hyt_device_t *dev, size_t bytes);
void hyt_cuda_host_free_ordinal(int ordinal, void *p);
#endif

int hyt_devices_create(hyt_context_t *ctx, const hyt_devspec_t *spec);
void hyt_devices_destroy(hyt_context_t *ctx);
void hyt_device_push_ready(hyt_device_t *dev, hyt_task_t *t);
/* Counts a device API call for fault injection: returns nonzero when this call must fail. */
int hyt_fault_device_call(hyt_context_t *ctx);
/* The bytes of the freed small blocks a device keeps for reuse (not in mem_used; for tests). */
size_t hyt_device_kept_bytes(hyt_device_t *dev);

/* ------------------------------------------------------------------------------------------ */
/* workers, scheduler, context                                                                 */

/* Tasks a thread keeps for reuse without the context's pool lock. */
typedef struct hyt_tcache {
    hyt_context_t *ctx;
    hyt_task_t *head, *tail;
    int n;
} hyt_tcache_t;

/* A worker's ready tasks: a heap on (priority, -id) under a spin lock.  Other threads push
 * to it and steal from it; n and top are read without the lock as hints. */
typedef struct hyt_rqueue {
    hyt_spin_t lock;
    atomic_int n;              /* tasks in the heap */
    atomic_int top;            /* priority of the best of them */
    atomic_int state;          /* the owner: HYT_W_BUSY, HYT_W_LOOKING or HYT_W_SLEEPING */
    hyt_heap_t heap;
} hyt_rqueue_t;

enum { HYT_W_BUSY, HYT_W_LOOKING, HYT_W_SLEEPING };

typedef struct hyt_worker {
    _Alignas(64) hyt_rqueue_t q;   /* shared with pushers and thieves: a cache line of its own */
    _Alignas(64) hyt_context_t *ctx;
    int id;
    int core;                  /* OS index of the PU it is bound to, -1 if not bound */
    pthread_t thread;
    pthread_cond_t cond;
    int sleeping;              /* on the idle list, waiting on cond */
    int reserved;              /* member of the pending gang, waiting for it to start */
    hyt_task_t *assigned;      /* gang rank handed over by another worker (under ctx->lock) */
    int assigned_rank;
    atomic_int has_assignment;
    void *scratch;
    size_t scratch_size;
    /* this thread only */
    uint64_t rng;              /* round-robin position, or the random state in chaos mode */
    uint64_t next_scan_ns;     /* when to look at the other queues for better priorities */
    unsigned spins;
    hyt_tcache_t cache;
    /* finished tasks not yet subtracted from the context's and their sequence's counts */
    long done_ctx, done_seq_n;
    hyt_sequence_t *done_seq;
} hyt_worker_t;

struct hyt_sequence {
    hyt_context_t *ctx;
    atomic_int status;
    atomic_int nwaiters;       /* threads in hyt_sequence_wait: workers then report at once */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char message[512];
    /* tasks inserted (by the inserting thread only: no locked instruction; read by workers
     * only while a thread waits) and finished (reported by the threads that ran them), each
     * on a cache line of its own */
    _Alignas(64) atomic_long ninserted;
    _Alignas(64) atomic_long nfinished;
    atomic_int reporters;      /* threads adding to nfinished: a waiter returns after them */
};

#define HYT_MAX_WORKERS 1024
/* Small freed blocks kept for the next allocation of their size class (runtime/device.c): a
 * device's (hyt_device_free; a cudaMalloc with its cudaFree costs ~75 us on an H200 and the
 * cudaFree waits for the whole device) and a context's page-locked host blocks
 * (hyt_host_free; page-locking one and freeing it costs ~0.75 ms).  At most HYT_KEEP_MAX
 * blocks of at most HYT_KEEP_SMALL bytes each, their sizes rounded up to powers of two. */
#define HYT_KEEP_MAX 16
#define HYT_KEEP_SMALL ((size_t)1 << 20)
typedef struct hyt_kept {
    void *p[HYT_KEEP_MAX];
    size_t bytes[HYT_KEEP_MAX];
    int n;
} hyt_kept_t;

/* Fields are grouped by the threads that write them, a cache line (or more) per group: a line
 * that 60 idle workers poll must not also hold what the inserting thread writes at every task
 * (the insertion lock once shared a line with pending_flag: each lock and unlock invalidated
 * it in every polling core). */
struct hyt_context {
    /* set at creation, read by every thread, written by none while the workers run */
    hyt_config_t *cfg;
    int nworkers;
    int nstarted;              /* worker threads running */
    hyt_worker_t *workers;
    int *core_list;
    void *topology;            /* hwloc_topology_t */
    long spin_ns;              /* how long idle workers spin before sleeping */
    int oversubscribed;        /* more workers than cores: gang members share cores */
    int ndevices;
    hyt_device_t **devices;
    int have_cuda;
    long window;
    uint64_t chaos;            /* random ready-task order when nonzero (the seed) */
    struct hyt_races *races;   /* debug.races: the records of the race check, or NULL */
    long fault_task, fault_alloc, fault_device; /* fault injection (debug.*) */

    /* polled by idle workers at every round, written rarely */
    _Alignas(64) atomic_int pending_flag;
    atomic_int shutdown;

    /* scheduler state: ready tasks in the workers' queues (workers[i].q); under lock, the
     * overflow heap, the idle list, the pending gang, worker assignments */
    _Alignas(64) pthread_mutex_t lock;
    hyt_heap_t ready;          /* overflow: tasks a queue could not take (out of memory) */
    atomic_int nready;         /* tasks in it (read without the lock) */
    hyt_worker_t **idle;
    int nidle;
    atomic_int nsleeping;      /* = nidle, read without the lock by threads pushing work */
    hyt_task_t *pending;       /* gang task collecting its workers */
    int pending_have;
    hyt_worker_t **pending_members;
    _Alignas(64) atomic_int steal_hint; /* a queue holds a task its owner will not take soon */

    /* insertion: the inserting thread's own lines */
    _Alignas(64) pthread_mutex_t insert_lock;
    uint64_t next_id;
    long known_finished;       /* a past value of nfinished: the window check needs no read */
    unsigned idle_checks;
    hyt_rtable_t regions;
    hyt_tcache_t ins_cache;    /* task memory for the inserting thread (under insert_lock) */
    void *master_scratch;
    size_t master_scratch_size;
    /* unfinished tasks of the whole context: inserted (inserting thread only) - finished */
    _Alignas(64) atomic_long ninserted;
    _Alignas(64) atomic_long nfinished;
    _Alignas(64) pthread_mutex_t window_lock;
    pthread_cond_t window_cond;
    atomic_int window_waiting; /* threads waiting on it: workers then report at once */

    /* task memory */
    _Alignas(64) hyt_spin_t pool_lock;
    hyt_task_t *pool;
    long pool_n;

    /* written now and then */
    _Alignas(64) atomic_long count_task, count_alloc, count_device;
    atomic_int fault_absorbed; /* the injected device fault was a page-lock that fell back */
    atomic_int pinned_warned;
    atomic_long progress_done, progress_total;
    pthread_mutex_t cfg_lock;
    int saved_blas_threads;
    hyt_trace_t trace;
    /* the page-locked staging buffer kept between calls (hyt_host_staging_acquire) */
    pthread_mutex_t staging_lock;
    void *staging;
    size_t staging_bytes;
    int staging_busy;
    /* the small page-locked blocks that calls freed, kept for the next ones (hyt_host_free) */
    pthread_mutex_t pinned_lock;
    hyt_kept_t pinned_kept;
};

/* Scheduler entry points (sched.c; hyt_sched_link: insert.c). */
int hyt_sched_start(hyt_context_t *ctx);
void hyt_sched_stop(hyt_context_t *ctx);
/* Waits until no task of the context is unfinished. */
void hyt_sched_drain(hyt_context_t *ctx);
/* Starts a thread for w (bound to w->core when >= 0). */
int hyt_worker_spawn(hyt_worker_t *w, void *(*start)(void *));
/* Adds the edge pred -> t unless pred is finished or already linked to t. */
void hyt_sched_link(hyt_context_t *ctx, hyt_task_t *pred, hyt_task_t *t);
/* Marks t finished: releases successors, updates counters, drops the in-flight reference. */
void hyt_sched_complete(hyt_task_t *t);
/* A task is freed when its two shares are dropped: the in-flight one (by the thread that
 * completes it) and the region table's (by the inserting thread, when the last entry that
 * holds it goes).  The entries are counted in table_refs, touched by the inserting thread
 * only: one locked instruction per task instead of one per entry. */
void hyt_task_release(hyt_task_t *t);
/* An entry for the task being inserted (no other thread touches its counts yet). */
static inline void hyt_task_table_retain_new(hyt_task_t *t)
{
    if (t->table_refs++ == 0)
        atomic_store_explicit(&t->refs, atomic_load_explicit(&t->refs, memory_order_relaxed) + 1,
                              memory_order_relaxed);
}
static inline void hyt_task_table_release(hyt_task_t *t)
{
    if (--t->table_refs == 0)
        hyt_task_release(t);
}
/* Added to npred while a task is inserted: predecessors that finish meanwhile cannot make it
 * ready, and links need no locked instruction on the new task (nlinks counts them). */
#define HYT_NPRED_GUARD (1 << 30)
/* Decides whether a task runs (0) or is skipped (error code): sequence status, fault injection. */
int hyt_sched_should_skip(hyt_task_t *t);
/* Runs the body of a failed task's bookkeeping: sets the sequence error. */
void hyt_sched_task_failed(hyt_task_t *t, int rc);

/* Frees the tasks kept in a cache. */
void hyt_tcache_free(hyt_tcache_t *c);

/* What insertion (insert.c) takes from the scheduler (sched.c). */
/* A task's memory, from the inserting thread's cache (insert_lock held). */
hyt_task_t *hyt_sched_task_alloc(hyt_context_t *ctx);
/* Puts a task whose predecessors have all finished in a ready queue (CPU or device). */
void hyt_sched_make_ready(hyt_context_t *ctx, hyt_task_t *t);
/* Waits, running tasks meanwhile, until the window (runtime.window) has room. */
void hyt_sched_wait_window(hyt_context_t *ctx);
/* Sends the tasks this thread frees to c from now on; returns the cache used until now. */
hyt_tcache_t *hyt_sched_use_cache(hyt_tcache_t *c);

/* Allocation with fault injection (ctx may be NULL). */
int hyt_rt_fault_alloc(hyt_context_t *ctx);   /* counts one allocation; 1: it must fail */
void *hyt_rt_malloc(hyt_context_t *ctx, size_t bytes);
void *hyt_rt_calloc(hyt_context_t *ctx, size_t n, size_t size);
void *hyt_rt_realloc(hyt_context_t *ctx, void *p, size_t bytes);
/* Zeroed, aligned to a cache line (64 bytes); free() releases it. */
void *hyt_rt_calloc_aligned(hyt_context_t *ctx, size_t bytes);

#endif /* HYT_RT_INTERNAL_H */
