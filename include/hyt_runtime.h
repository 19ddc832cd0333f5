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
 * Tiles are described by hyt_desc_t (hyt_tiles.h, included).  examples/tile_gemm.c is a complete
 * tile algorithm written on this header alone.
 *
 * Only one thread may insert into a context at a time (insertion is serialized by a lock).
 */
#ifndef HYT_RUNTIME_H
#define HYT_RUNTIME_H

#include "hyt_context.h"
#include "hyt_tiles.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/* Stream of a device task.  PANEL and LOOKAHEAD are high-priority compute streams for the
 * critical path: PANEL for latency-bound work of few flops (an LU's panels), which
 * gpu.panel_sms can bound to part of the SMs (by default it does not); LOOKAHEAD, on every SM,
 * for the GEMM-like work the next panels wait for.  COMPUTE, PANEL and LOOKAHEAD have cuBLAS
 * handles. */
enum {
    HYT_STREAM_COMPUTE = 0,
    HYT_STREAM_H2D = 1,
    HYT_STREAM_D2H = 2,
    HYT_STREAM_PANEL = 3,
    HYT_STREAM_LOOKAHEAD = 4,
    HYT_NUM_STREAMS = 5
};

/* The barrier of a gang task (opaque: hyt_task_barrier(tc) waits on it). */
typedef struct hyt_barrier hyt_barrier_t;

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
HYT_API void hyt_task_barrier(const hyt_task_ctx_t *tc);

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
HYT_API hyt_task_desc_t hyt_task_desc(const hyt_kernel_t *kernel, const void *args,
                                      size_t args_size);

/* Insert a task.  Returns 0 when the task is in the graph with all its dependencies; otherwise
 * an error: the sequence's once it has failed (the task was not inserted; "always" kernels
 * still are), HYT_ERR_NOMEM / HYT_ERR_INVALID, or the error that broke the insertion of its
 * dependencies (the task is then in the graph but will be skipped, even an "always" one: the
 * caller waits for the sequence and does that task's work, e.g. frees, itself).  When the
 * window of unfinished tasks is full, the calling thread executes ready tasks until there is
 * room. */
HYT_API int hyt_task_insert(hyt_sequence_t *seq, const hyt_task_desc_t *desc);

/* Dependency tokens: addresses that stand for something that is not data (a column's ordering,
 * a panel's state on a device).  hyt_token(t, i) is a distinct key for each i < n. */
typedef struct hyt_tokens hyt_tokens_t;
HYT_API hyt_tokens_t *hyt_tokens_create(size_t n);
HYT_API const void *hyt_token(const hyt_tokens_t *t, size_t i);
HYT_API void hyt_tokens_destroy(hyt_tokens_t *t);

/* ---------------------------------------------------------------------------------------------
 * Devices (backends: "host" = host memory and host reference kernels; "cuda").
 */
typedef enum { HYT_BACKEND_HOST = 0, HYT_BACKEND_CUDA = 1 } hyt_backend_t;

HYT_API hyt_backend_t hyt_device_backend(const hyt_device_t *dev);
HYT_API int hyt_device_index(const hyt_device_t *dev);   /* position in the context */
HYT_API int hyt_device_ordinal(const hyt_device_t *dev); /* CUDA device number (host: its number) */
HYT_API const char *hyt_device_name(const hyt_device_t *dev);
/* Bytes the runtime may still allocate on the device (cap and free memory; the freed small
 * blocks it keeps for reuse count as free: an allocation that needs their room releases them). */
HYT_API size_t hyt_device_mem_available(hyt_device_t *dev);
/* Bytes an allocation of `bytes` takes of a device's memory as the runtime counts it (small
 * blocks are rounded up to a size class and kept for reuse): what a caller sizing its
 * workspaces against hyt_device_mem_available adds up, allocation by allocation. */
HYT_API size_t hyt_device_alloc_bytes(size_t bytes);
/* Synchronous allocation of device memory (zeroed is not guaranteed). */
HYT_API int hyt_device_malloc(hyt_device_t *dev, void **ptr, size_t bytes);
HYT_API void hyt_device_free(hyt_device_t *dev, void *ptr);

/* A library handle an algorithm keeps per device (a cuSOLVER handle, a plan, a workspace): the
 * runtime offers each device a slot per class, so that the handle is created once, on first
 * use, and lives as long as the context.  A class is identified by its address (a static const
 * object in the algorithm's code); `create` and `destroy` run with the device current (CUDA:
 * its primary context, on any thread; the thread gets its own back after), `destroy` when the
 * context ends, after the device's tasks and before its streams go.  hyt_device_handle
 * returns 0 and the handle, or the error `create` returned (the next call tries again).
 * Thread-safe; do not call it from `create` or `destroy`. */
typedef struct hyt_device_handle_class {
    const char *name;                                  /* for messages */
    int (*create)(hyt_device_t *dev, void **handle);   /* 0 or an error code (hyt_error) */
    void (*destroy)(hyt_device_t *dev, void *handle);
} hyt_device_handle_class_t;
HYT_API int hyt_device_handle(hyt_device_t *dev, const hyt_device_handle_class_t *cls,
                              void **handle);

/* Asynchronous copies inside device task bodies, on the task's stream.  Host memory should come
 * from hyt_host_malloc (pinned when a CUDA device exists). */
HYT_API int hyt_dev_memcpy_h2d(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes);
HYT_API int hyt_dev_memcpy_d2h(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes);
HYT_API int hyt_dev_memcpy_d2d(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes);
/* Fill bytes of device memory with a byte value, asynchronously on the task's stream. */
HYT_API int hyt_dev_memset(const hyt_devctx_t *dc, void *dst, int value, size_t bytes);
/* 2D copies: height rows of width bytes, pitches in bytes. */
HYT_API int hyt_dev_memcpy2d(const hyt_devctx_t *dc, void *dst, size_t dpitch, const void *src,
                             size_t spitch, size_t width, size_t height,
                             int kind /* 0 h2d 1 d2h 2 d2d */);

/* Host memory for matrices that travel to devices: page-locked when a CUDA device exists and
 * pinning succeeds (otherwise pageable, with one warning), 64-byte aligned.  Page-locking is
 * slow (~0.75 ms for a block and its free on an H200), so hyt_host_free keeps up to 16 page-
 * locked blocks of at most 1 MiB in ctx for the next hyt_host_malloc of that size class; the
 * context frees them when it ends (ctx NULL: freed at once).  A block may be freed through
 * another context than the one that allocated it, or with ctx NULL after that context ended;
 * the free leaves the calling thread's CUDA context as it was. */
HYT_API void *hyt_host_malloc(hyt_context_t *ctx, size_t bytes);
HYT_API void hyt_host_free(hyt_context_t *ctx, void *ptr);

/* ---------------------------------------------------------------------------------------------
 * Tracing.  Enabled by the runtime.trace key (a file name: written at context destruction) or
 * by hyt_trace_start.  Records every task's worker or stream, start, end, kernel and tags.
 */
HYT_API void hyt_trace_start(hyt_context_t *ctx, int with_dag);
HYT_API void hyt_trace_stop(hyt_context_t *ctx);
/* Chrome trace-event JSON (Perfetto / chrome://tracing); a device task's args also carry
 * issue_ts and issue_dur (microseconds): its submission by the device's host thread.  Returns 0
 * or HYT_ERR_SYSTEM. */
HYT_API int hyt_trace_write_json(hyt_context_t *ctx, const char *path);
/* A note about the traced run, written with the trace (the JSON's "otherData" object): key and
 * value are copied, each shorter than HYT_TRACE_NOTE_MAX characters of [A-Za-z0-9._:+-]; a key
 * noted again keeps its last value; at most HYT_TRACE_NOTES keys.  hyt_trace_start clears them;
 * while no trace records it does nothing.  Returns 0, or HYT_ERR_INVALID (a bad key or value,
 * or too many keys). */
#define HYT_TRACE_NOTE_MAX 64
#define HYT_TRACE_NOTES 32
HYT_API int hyt_trace_note(hyt_context_t *ctx, const char *key, const char *value);
/* DAG of the recorded tasks in Graphviz DOT (needs with_dag). */
HYT_API int hyt_trace_write_dot(hyt_context_t *ctx, const char *path);

typedef struct hyt_trace_event {
    const char *name;          /* kernel name */
    hyt_category_t cat;
    int tag[3];
    int track;                 /* 0..nworkers: CPU workers (nworkers = inserting thread);
                                  then 3 tracks per device (compute, h2d, d2h) */
    double start, end;         /* seconds since trace start */
} hyt_trace_event_t;
/* Copies out the recorded events sorted by start; returns the count (or -1 on no memory). */
HYT_API long hyt_trace_events(hyt_context_t *ctx, hyt_trace_event_t **events);
/* Human name of a track ("cpu 3", "gpu0 compute"); buf of at least 32 bytes. */
HYT_API void hyt_trace_track_name(hyt_context_t *ctx, int track, char *buf, size_t len);
HYT_API int hyt_trace_num_tracks(hyt_context_t *ctx);
#ifdef __cplusplus
}
#endif
#endif /* HYT_RUNTIME_H */
