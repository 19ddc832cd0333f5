/*
 * The vendor peer of the GPU benchmark: the same dense solve A x = b done by NVIDIA's
 * libraries (cusolverDnDgetrf/getrs on one GPU, cusolverMgGetrf/getrs on several), so that
 * hytile's hybrid LU can be compared with them in one process, on one matrix.
 *
 * Plain C: no CUDA types appear here, so the benchmark includes it in every build.  Built
 * without CUDA, both calls exist and hyt_peer_dgesv returns HYT_ERR_NOT_AVAILABLE.
 */
#ifndef HYT_PEER_CUSOLVER_H
#define HYT_PEER_CUSOLVER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Factor the n x n column-major host matrix a (leading dimension n; not modified) with
 * cusolverDnDgetrf on one GPU (ndev == 1) or cusolverMgGetrf on ndev GPUs (1-D column
 * block-cyclic with column block mg_block, default 256 when mg_block <= 0), then solve
 * A x = b (b length n, host) with the factors (cusolverDnDgetrs / cusolverMgGetrs) into x
 * (host).  devices: ndev distinct CUDA device ordinals; with several, block j of columns lives
 * on devices[j % ndev].
 *
 * *factor_seconds: the factorization call alone, the matrix already on the GPUs, measured with
 * cudaDeviceSynchronize on every GPU before and after (wall clock, hyt_wtime).
 * *info: the getrf info (LAPACK convention: +i means U(i,i) is exactly zero); when it is not 0
 * no solve is done and x is not written.
 *
 * Returns 0 or an HYT_ERR_* code with hyt_last_error() saying what failed: HYT_ERR_INVALID
 * (bad argument), HYT_ERR_DEVICE (a CUDA / cuSOLVER call failed: name, file, line, status),
 * HYT_ERR_DEVICE_MEMORY (the problem does not fit in the free device memory; the message gives
 * the numbers), HYT_ERR_NOMEM, HYT_ERR_TOO_LARGE, HYT_ERR_NOT_AVAILABLE (built without CUDA).
 * Everything allocated is freed on every path, peer access enabled here is disabled again, and
 * the calling thread's current device is restored. */
int hyt_peer_dgesv(int ndev, const int *devices, int n, int mg_block, const double *a,
                   const double *b, double *x, double *factor_seconds, int *info);

/* cusolverDnDgetrf on one GPU timed host to host, best of reps runs: *seconds covers the copy
 * of a (n x n, leading dimension n; page-locked for the call unless it is already) to the GPU,
 * the factorization and the copy of the factors back to a page-locked host buffer.  Returns 0
 * or an HYT_ERR_* code as above. */
int hyt_peer_dgetrf_h2h(int device, int n, const double *a, int reps, double *seconds);

/* The caller's host array p (bytes long) page-locked for every GPU until hyt_peer_unpin(p), so
 * that the peers' copies of it run at the pinned rate and do not lock it again on each call
 * (tens of seconds over a benchmark's runs at n = 65536).  hyt_peer_pin returns 0 or an
 * HYT_ERR_* code (the array is then used pageable); hyt_peer_is_pinned: whether p is
 * page-locked (registered or allocated so). */
int hyt_peer_pin(const void *p, size_t bytes);
void hyt_peer_unpin(const void *p);
int hyt_peer_is_pinned(const void *p);

/* The library versions in use, e.g. "cuSOLVER 12.0.4, cuBLAS 13.0.0, CUDA runtime 13.0,
 * driver 13.0"; buf of len bytes (always terminated when len > 0). */
void hyt_peer_version(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* HYT_PEER_CUSOLVER_H */
