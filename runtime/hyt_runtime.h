/*
 * hytile runtime: a superscalar task scheduler in the spirit of QUARK.
 *
 * A caller writes an algorithm as its serial loop nest and inserts one task per kernel call,
 * naming the regions (or dependency tokens) the kernel touches and how.  The runtime resolves
 * read-after-write, write-after-read and write-after-write hazards per region in insertion order
 * and runs each task once everything it depends on has finished:
 *
 *     hyt_context_t *ctx;   hyt_context_create(NULL, &ctx);
 *     hyt_sequence_t *seq;  hyt_sequence_create(ctx, &seq);
 *     for (k...) hyt_insert_xxx(seq, ...);      typed wrappers over hyt_task_insert()
 *     int rc = hyt_sequence_wait(seq);          first error of the sequence, or 0
 *     hyt_sequence_destroy(seq); hyt_context_destroy(ctx);
 *
 * Tasks run on CPU workers (one pinned thread per core; a task may ask for k workers and is then
 * gang-scheduled: all k reserved before any starts, each told its rank) or on device workers
 * (one host thread per device, owning that device's streams).
 *
 * Only one thread may insert into a context at a time (insertion is serialized by a lock).
 */
#ifndef HYT_RUNTIME_H
#define HYT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdatomic.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Errors.  Library errors are below HYT_ERR_BASE so they never collide with LAPACK's -i
 * (bad argument i) or +i (zero pivot) info values.
 */
enum {
    HYT_SUCCESS = 0,
    HYT_ERR_BASE = -1000,
    HYT_ERR_NOMEM = -1001,        /* host memory allocation failed */
    HYT_ERR_INVALID = -1002,      /* invalid argument to a runtime call */
    HYT_ERR_CONFIG = -1003,       /* bad configuration value, file or environment variable */
    HYT_ERR_DEVICE = -1004,       /* CUDA / cuBLAS / device backend error */
    HYT_ERR_DEVICE_MEMORY = -1005,/* problem does not fit in device memory (or the memory cap) */
    HYT_ERR_CANCELLED = -1006,    /* the sequence was cancelled */
    HYT_ERR_FAULT = -1007,        /* failure injected by HYT_FAULT_* (testing) */
    HYT_ERR_SYSTEM = -1008,       /* thread creation, hwloc, file I/O ... */
    HYT_ERR_TOO_LARGE = -1009,    /* size does not fit in the index types or in host memory */
    HYT_ERR_NOT_AVAILABLE = -1010,/* feature not compiled in (e.g. CUDA) */
    HYT_ERR_TASK = -1011          /* a task body reported failure */
};

/* Name of an error code ("HYT_ERR_NOMEM"...). */
const char *hyt_strerror(int code);
/* Message of the last error raised on the calling thread (never NULL, "" when none). */
const char *hyt_last_error(void);
/* Records a message for hyt_last_error() and returns code (for code built on the runtime). */
int hyt_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------------------------------------
 * Configuration.  Every key has a compiled default; sources override in this order:
 *   compiled default < tuned default < config file < HYT_* environment < API / command line.
 * A value set from a lower-precedence source never replaces one from a higher source.
 * Keys are "section.key"; the list with documentation is hyt_config_keys().
 */
typedef enum {
    HYT_SRC_DEFAULT = 0,
    HYT_SRC_TUNED = 1,
    HYT_SRC_FILE = 2,
    HYT_SRC_ENV = 3,
    HYT_SRC_API = 4 /* API setters and command line */
} hyt_source_t;

typedef struct hyt_config hyt_config_t;

typedef struct hyt_config_key {
    const char *name;    /* "lu.nb" */
    const char *env;     /* "HYT_NB" */
    const char *deflt;   /* compiled default as text */
    const char *help;    /* one line */
} hyt_config_key_t;

/* NULL-terminated table of all keys. */
const hyt_config_key_t *hyt_config_keys(void);

int hyt_config_create(hyt_config_t **cfg);
void hyt_config_destroy(hyt_config_t *cfg);
int hyt_config_copy(const hyt_config_t *src, hyt_config_t **dst);
/* Set key from text.  where: "file:line" or "HYT_NB" for messages (may be NULL).
 * Returns HYT_ERR_CONFIG for an unknown key or bad value, with hyt_last_error() saying which. */
int hyt_config_set(hyt_config_t *cfg, const char *key, const char *value, hyt_source_t src,
                   const char *where);
/* Read an INI file ([lu] nb = 256 ...).  Unknown sections/keys and bad values are errors
 * naming file:line.  src is HYT_SRC_FILE or HYT_SRC_TUNED. */
int hyt_config_load_file(hyt_config_t *cfg, const char *path, hyt_source_t src);
/* Apply every HYT_* variable of the environment; unknown HYT_ variables are errors. */
int hyt_config_load_env(hyt_config_t *cfg);
/* Current value text and source of a key (NULL if unknown key). */
const char *hyt_config_get(const hyt_config_t *cfg, const char *key, hyt_source_t *src);
/* Integer value (-1 for "auto"; sizes in bytes; booleans 0/1); double value. */
long hyt_config_get_int(const hyt_config_t *cfg, const char *key);
double hyt_config_get_double(const hyt_config_t *cfg, const char *key);
const char *hyt_source_name(hyt_source_t src);
/* "4000,8000,..." -> sizes (each 1..10^7); returns the count, or -1 on bad text or > max. */
int hyt_parse_sizes(const char *text, int *ns, int max);

/* ---------------------------------------------------------------------------------------------
 * Context: workers, devices, configuration.
 */
typedef struct hyt_context hyt_context_t;
typedef struct hyt_sequence hyt_sequence_t;
typedef struct hyt_device hyt_device_t;

/* cfg may be NULL: defaults, then HYT_CONFIG (a config file) if set, then HYT_* environment.
 * With a cfg, it is used as given (call hyt_config_load_env yourself to honour HYT_*). */
int hyt_context_create(const hyt_config_t *cfg, hyt_context_t **ctx);
/* Waits for every task, joins all threads, frees everything. */
void hyt_context_destroy(hyt_context_t *ctx);

int hyt_context_num_workers(const hyt_context_t *ctx);
int hyt_context_num_devices(const hyt_context_t *ctx);
hyt_device_t *hyt_context_device(hyt_context_t *ctx, int i);
const hyt_config_t *hyt_context_config(const hyt_context_t *ctx);
/* Change a per-call tunable (lu.*) after creation; same validation as hyt_config_set. */
int hyt_context_set(hyt_context_t *ctx, const char *key, const char *value);
/* Core (OS index of its first PU) of worker w, -1 when not pinned. */
int hyt_context_worker_core(const hyt_context_t *ctx, int w);

/* Progress of a long computation (drivers count panels): reset with the total, add from tasks,
 * read from any thread. */
void hyt_progress_reset(hyt_context_t *ctx, long total);
void hyt_progress_add(hyt_context_t *ctx, long n);
void hyt_progress_get(const hyt_context_t *ctx, long *done, long *total);

/* ---------------------------------------------------------------------------------------------
 * Sequences: a group of tasks with one status.  The first failing task (or a cancel) sets the
 * status; the remaining tasks of the sequence are skipped (their dependencies still resolve, so
 * nothing hangs) and hyt_sequence_wait returns the status.
 */
int hyt_sequence_create(hyt_context_t *ctx, hyt_sequence_t **seq);
/* Waits for all tasks of the sequence; returns its status (0 or the first error). */
int hyt_sequence_wait(hyt_sequence_t *seq);
/* Marks the sequence cancelled: tasks not yet started are skipped. */
void hyt_sequence_cancel(hyt_sequence_t *seq);
int hyt_sequence_status(const hyt_sequence_t *seq);
/* Message of the first error ("" when none). */
const char *hyt_sequence_message(const hyt_sequence_t *seq);
/* Sets the status (first error wins); for code that detects errors outside tasks. */
void hyt_sequence_fail(hyt_sequence_t *seq, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Waits, then frees. */
void hyt_sequence_destroy(hyt_sequence_t *seq);
/* The end of a synchronous call: waits, destroys the sequence, and returns rc (the insertion's
 * result) or else the sequence's status, with its message in hyt_last_error(). */
int hyt_sequence_finish(hyt_sequence_t *seq, int rc);
hyt_context_t *hyt_sequence_context(const hyt_sequence_t *seq);

/* ---------------------------------------------------------------------------------------------
 * Tasks.
 */

/* Access modes of a region (any address used as a key) or a dependency token. */
typedef enum {
    HYT_READ = 1,
    HYT_WRITE = 2,
    HYT_RW = 3,
    /* Commuting writers: consecutive GATHER accesses to one region may run concurrently with
     * each other (they must touch disjoint parts), after the previous readers/writers and before
     * the next reader/writer. */
    HYT_GATHER = 4
} hyt_mode_t;

typedef struct hyt_dep {
    const void *key;
    hyt_mode_t mode;
} hyt_dep_t;

/* Stream of a device task.  PANEL is a high-priority compute stream for the critical path
 * (panels and lookahead updates); COMPUTE and PANEL have cuBLAS handles. */
enum {
    HYT_STREAM_COMPUTE = 0,
    HYT_STREAM_H2D = 1,
    HYT_STREAM_D2H = 2,
    HYT_STREAM_PANEL = 3,
    HYT_NUM_STREAMS = 4
};

/* Generation barrier for the threads of one gang task (C11 atomics, busy-waiting).  Opaque to
 * C++ (CUDA sources), which only pass pointers to it. */
#ifdef __cplusplus
typedef struct hyt_barrier hyt_barrier_t;
#else
typedef struct hyt_barrier {
    _Alignas(64) atomic_int count;
    _Alignas(64) atomic_int gen;
    int n;
    int yield_every;          /* spins between sched_yield()s while waiting */
    struct hyt_barrier_flags *flags; /* a cache line per rank (hyt_task_barrier), or NULL */
} hyt_barrier_t;
#endif

void hyt_barrier_init(hyt_barrier_t *b, int n);
void hyt_barrier_wait(hyt_barrier_t *b);

/* What a CPU task body is told. */
typedef struct hyt_task_ctx {
    int worker;               /* worker index (0..nworkers-1), nworkers for the inserting thread */
    int rank, size;           /* rank within the gang, gang size (1 for ordinary tasks) */
    hyt_barrier_t *barrier;   /* shared by the gang's threads */
    void *shared;             /* per-task scratch shared by the gang (desc.shared_bytes) */
    void *scratch;            /* per-thread scratch of desc.scratch_bytes */
    hyt_sequence_t *seq;
} hyt_task_ctx_t;

/* What a device task body is told; the body enqueues asynchronous work on `stream`. */
typedef struct hyt_devctx {
    hyt_device_t *dev;
    int stream;               /* HYT_STREAM_* */
    void *cuda_stream;        /* cudaStream_t (CUDA backend) or NULL */
    void *cublas;             /* cublasHandle_t bound to cuda_stream (compute streams) or NULL */
    void *scratch;            /* per-device scratch of desc.scratch_bytes (host memory) */
    hyt_sequence_t *seq;
} hyt_devctx_t;

/* The barrier of the calling rank's gang (nothing for a task of one thread).  Knows the rank:
 * with per-rank flags, log2(size) rounds of one store and one wait each (a dissemination
 * barrier) instead of size serialized updates of one counter. */
void hyt_task_barrier(const hyt_task_ctx_t *tc);

/* Bodies return 0 or an error code (they may call hyt_sequence_fail for a message first).
 * A gang body is entered by all ranks; every rank must reach every barrier even on error. */
typedef int (*hyt_cpu_fn)(const hyt_task_ctx_t *tc, void *args);
typedef int (*hyt_dev_fn)(const hyt_devctx_t *dc, void *args);

/* Task categories: colour in traces. */
typedef enum {
    HYT_CAT_OTHER = 0,
    HYT_CAT_PANEL,
    HYT_CAT_UPDATE,   /* CPU updates (swaps, trsm, gemm) */
    HYT_CAT_GPU,      /* GPU compute */
    HYT_CAT_DMA,      /* host<->device copies */
    HYT_CAT_CONVERT,  /* layout conversions */
    HYT_NUM_CATS
} hyt_category_t;

/* A kernel is described once: name, bodies, trace category. */
typedef struct hyt_kernel {
    const char *name;
    hyt_cpu_fn cpu;
    hyt_dev_fn dev;
    hyt_category_t cat;
    int always;   /* cleanup kernel: runs even after its sequence failed (never fault-injected) */
} hyt_kernel_t;

typedef struct hyt_task_desc {
    const hyt_kernel_t *kernel;
    const void *args;         /* value arguments: copied at insertion */
    size_t args_size;
    const hyt_dep_t *deps;    /* regions / tokens touched, any length */
    int ndeps;
    int priority;             /* higher runs first among ready tasks: exactly with one worker;
                                 with several, each worker's queue is in order and workers look
                                 at each other's best every 50 us */
    int nthreads;             /* CPU gang size (0 or 1: ordinary task) */
    int device;               /* -1: CPU task; else index of the device that runs it */
    int stream;               /* HYT_STREAM_* for device tasks */
    size_t scratch_bytes;     /* per-thread scratch for the body */
    size_t shared_bytes;      /* scratch shared by a gang's threads (zeroed) */
    int tag[3];               /* step, i, j: shown in traces */
} hyt_task_desc_t;

/* A zeroed desc with device = -1 and tags -1. */
hyt_task_desc_t hyt_task_desc(const hyt_kernel_t *kernel, const void *args, size_t args_size);

/* Insert a task.  Returns 0 when the task is in the graph; otherwise it was not inserted: the
 * sequence's error once it has failed (the caller should stop inserting and wait; "always"
 * kernels are still inserted), or HYT_ERR_NOMEM / HYT_ERR_INVALID.  When the window of
 * unfinished tasks is full, the calling thread executes ready tasks until there is room. */
int hyt_task_insert(hyt_sequence_t *seq, const hyt_task_desc_t *desc);

/* Dependency tokens: addresses that stand for something that is not data (a column's ordering,
 * a panel's state on a device).  hyt_token(t, i) is a distinct key for each i < n. */
typedef struct hyt_tokens hyt_tokens_t;
hyt_tokens_t *hyt_tokens_create(size_t n);
const void *hyt_token(const hyt_tokens_t *t, size_t i);
void hyt_tokens_destroy(hyt_tokens_t *t);

/* ---------------------------------------------------------------------------------------------
 * Devices (backends: "host" = host memory and host reference kernels; "cuda").
 */
typedef enum { HYT_BACKEND_HOST = 0, HYT_BACKEND_CUDA = 1 } hyt_backend_t;

hyt_backend_t hyt_device_backend(const hyt_device_t *dev);
int hyt_device_index(const hyt_device_t *dev);   /* position in the context */
int hyt_device_ordinal(const hyt_device_t *dev); /* CUDA device number (host: its number) */
const char *hyt_device_name(const hyt_device_t *dev);
/* Bytes the runtime may still allocate on the device (cap and free memory). */
size_t hyt_device_mem_available(hyt_device_t *dev);
/* Synchronous allocation of device memory (zeroed is not guaranteed). */
int hyt_device_malloc(hyt_device_t *dev, void **ptr, size_t bytes);
void hyt_device_free(hyt_device_t *dev, void *ptr);

/* Fault injection point for device API calls (debug.fault_device): nonzero when the caller must
 * fail this call.  Device kernels call it once per launch. */
int hyt_device_fault_point(hyt_device_t *dev);

/* Asynchronous copies inside device task bodies, on the task's stream.  Host memory should come
 * from hyt_host_malloc (pinned when a CUDA device exists). */
int hyt_dev_memcpy_h2d(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes);
int hyt_dev_memcpy_d2h(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes);
int hyt_dev_memcpy_d2d(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes);
/* Fill bytes of device memory with a byte value, asynchronously on the task's stream. */
int hyt_dev_memset(const hyt_devctx_t *dc, void *dst, int value, size_t bytes);
/* 2D copies: height rows of width bytes, pitches in bytes. */
int hyt_dev_memcpy2d(const hyt_devctx_t *dc, void *dst, size_t dpitch, const void *src,
                     size_t spitch, size_t width, size_t height, int kind /* 0 h2d 1 d2h 2 d2d */);

/* Host memory for matrices that travel to devices: page-locked when a CUDA device exists and
 * pinning succeeds (otherwise pageable, with one warning), 64-byte aligned. */
void *hyt_host_malloc(hyt_context_t *ctx, size_t bytes);
void hyt_host_free(hyt_context_t *ctx, void *ptr);

/* ---------------------------------------------------------------------------------------------
 * Tracing.  Enabled by the runtime.trace key (a file name: written at context destruction) or
 * by hyt_trace_start.  Records every task's worker or stream, start, end, kernel and tags.
 */
void hyt_trace_start(hyt_context_t *ctx, int with_dag);
void hyt_trace_stop(hyt_context_t *ctx);
/* Chrome trace-event JSON (Perfetto / chrome://tracing).  Returns 0 or HYT_ERR_SYSTEM. */
int hyt_trace_write_json(hyt_context_t *ctx, const char *path);
/* DAG of the recorded tasks in Graphviz DOT (needs with_dag). */
int hyt_trace_write_dot(hyt_context_t *ctx, const char *path);

typedef struct hyt_trace_event {
    const char *name;          /* kernel name */
    hyt_category_t cat;
    int tag[3];
    int track;                 /* 0..nworkers: CPU workers (nworkers = inserting thread);
                                  then 3 tracks per device (compute, h2d, d2h) */
    double start, end;         /* seconds since trace start */
} hyt_trace_event_t;
/* Copies out the recorded events sorted by start; returns the count (or -1 on no memory). */
long hyt_trace_events(hyt_context_t *ctx, hyt_trace_event_t **events);
/* Human name of a track ("cpu 3", "gpu0 compute"); buf of at least 32 bytes. */
void hyt_trace_track_name(hyt_context_t *ctx, int track, char *buf, size_t len);
int hyt_trace_num_tracks(hyt_context_t *ctx);

/* Wall clock in seconds (monotonic). */
double hyt_wtime(void);

#ifdef __cplusplus
}
#endif
#endif /* HYT_RUNTIME_H */
