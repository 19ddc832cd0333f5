/*
 * Runtime functions for the library's own code (not installed): the gang barrier's layout and
 * its counter version, the device fault-injection point, the size-list parser of hpl.n.
 */
#ifndef HYT_INTERNAL_H
#define HYT_INTERNAL_H

#include "hyt_runtime.h"

#ifndef __cplusplus
#include <stdatomic.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Generation barrier for the threads of one gang task (C11 atomics, busy-waiting).  Opaque to
 * C++ (CUDA sources), which only pass pointers to it. */
#ifndef __cplusplus
struct hyt_barrier {
    _Alignas(64) atomic_int count;
    _Alignas(64) atomic_int gen;
    int n;
    int yield_every;          /* spins between sched_yield()s while waiting */
    struct hyt_barrier_flags *flags; /* a cache line per rank (hyt_task_barrier), or NULL */
};
#endif

void hyt_barrier_init(hyt_barrier_t *b, int n);
void hyt_barrier_wait(hyt_barrier_t *b);

/* Fault injection point for device API calls (debug.fault_device): nonzero when the caller must
 * fail this call.  Device kernels call it once per launch. */
int hyt_device_fault_point(hyt_device_t *dev);

/* The race check (debug.races, runtime/races.c): the memory that the task body the calling
 * thread runs reads (write 0) or writes (write 1), noted by a device kernel's dispatcher or a
 * CPU kernel before it runs: `cols` runs of `bytes` bytes, `stride` bytes apart, from p.
 * hyt_races_block: an m x n block of doubles (leading dimension ld); hyt_races_tri: the
 * triangle 'L' or 'U' of an n x n one, diagonal included.  `what` names the argument in the
 * report (a string that outlives the context).  Nothing when the check is off or outside a
 * task's body. */
void hyt_races_note(const void *p, size_t stride, size_t bytes, size_t cols, int write,
                    const char *what);
void hyt_races_block(const void *A, int64_t ld, int64_t m, int64_t n, int write,
                     const char *what);
void hyt_races_tri(char uplo, const void *A, int64_t ld, int64_t n, int write, const char *what);
/* The trapezoid 'L' (rows j..m-1 of column j) or 'U' (rows 0..j) of an m x n block. */
void hyt_races_trap(char uplo, const void *A, int64_t ld, int64_t m, int64_t n, int write,
                    const char *what);
/* What a DGEMM (transa, transb 'N' or 'T') and a DTRSM of doubles read and write. */
void hyt_races_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, const void *A,
                    int64_t lda, const void *B, int64_t ldb, const void *C, int64_t ldc);
void hyt_races_trsm(char side, char uplo, int64_t m, int64_t n, const void *A, int64_t lda,
                    const void *B, int64_t ldb);
/* Whether the calling thread's notes are recorded (to skip computing them). */
int hyt_races_on(void);
/* Memory freed (ctx's device or host allocation; ctx NULL: a buffer the calling task body
 * allocated, in its task's context): the tasks inserted before the free and those inserted
 * after it do not meet there, whatever address a later allocation reuses. */
void hyt_races_free(hyt_context_t *ctx, const void *p, size_t bytes);

/* A host buffer from hyt_host_malloc (page-locked with CUDA devices), kept by the context from
 * one call to the next so that page-locking is paid once per process, not per call: one user at
 * a time.  The context's buffer as it is when it holds at least `least` bytes, else one of
 * `want` bytes (least <= want) that replaces it; *got its size.  When the context's buffer is
 * in use, a buffer of its own (want bytes); NULL (*got 0) when out of memory.  Give it back
 * with hyt_host_staging_release (a buffer that is not the context's is freed there); the
 * context frees its own when it ends. */
void *hyt_host_staging_acquire(hyt_context_t *ctx, size_t want, size_t least, size_t *got);
void hyt_host_staging_release(hyt_context_t *ctx, void *p);
/* Frees the small page-locked blocks that hyt_host_free kept for reuse (context end). */
void hyt_host_cache_free(hyt_context_t *ctx);

/* "4000,8000,..." -> sizes (each 1..10^7); returns the count, or -1 on bad text or > max. */
int hyt_parse_sizes(const char *text, int *ns, int max);

#ifdef __cplusplus
}
#endif
#endif /* HYT_INTERNAL_H */
