/*
 * Device kernels of the hybrid LU, called from device task bodies.  Each dispatches on the
 * device's backend: the CUDA version runs asynchronously on dc->cuda_stream; the host version
 * (hyt_ref_*, the specification) runs at once on host memory.  Every CUDA launch and cuBLAS
 * call is checked; a failure returns HYT_ERR_DEVICE with hyt_last_error() naming the call.
 *
 * Layout reminder (tiles/hyt_tiles.h): a CRRB tile stores element (r, c) at r*nb + c; a column
 * of CRRB tiles is the column-major nb x (ntiles*nb) matrix of its transpose, leading
 * dimension nb.  Device columns of the hybrid LU hold all mt tiles of a tile column, so a
 * device row index is the global row index.
 */
#ifndef HYT_GPU_KERNELS_H
#define HYT_GPU_KERNELS_H

#include "config.h"
#include "hyt_internal.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* In-place transposition of each of ntiles consecutive square nb x nb tiles (tile t at
 * tiles + t*nb*nb): CCRB -> CRRB and CRRB -> CCRB are the same operation. */
int hyt_gpu_transpose_tiles(const hyt_devctx_t *dc, double *tiles, int nb, int64_t ntiles);
/* The same for tiles `stride` doubles apart (stride >= nb*nb): one tile row of many columns. */
int hyt_gpu_transpose_tiles_strided(const hyt_devctx_t *dc, double *tiles, int nb,
                                    int64_t ntiles, int64_t stride);

/* Row interchanges on ncols CRRB tile columns, column b starting at col0 + b*colstride
 * (doubles).  For q = 0..npiv-1 in order: global row r1+q is swapped with global row
 * ipiv[q]-1 (1-based global rows, as LAPACK), over the nb elements of the row in each column.
 * ipiv is in device memory (host memory for the host backend).
 * Columns must not overlap: with ncols > 1, colstride >= (r1+npiv)*nb (else HYT_ERR_INVALID). */
int hyt_gpu_dlaswp_crrb(const hyt_devctx_t *dc, double *col0, int64_t colstride, int ncols,
                        int nb, int r1, int npiv, const int *ipiv);

/* C_b = alpha op(A_b) op(B_b) + beta C_b for b < batch, column-major, with X_b = X + b*strideX
 * (cuBLAS's strided-batched GEMM; trans 'N' or 'T').  With per_call set, the CUDA version
 * issues one cublasDgemm per b instead of one batched call (the two ran as fast, 43-48 TFLOP/s
 * on H200 CRRB columns: docs/DESIGN.md; the LU uses the batched call).  trans in either case; strides >= 0 (0: one A or B for all
 * entries); the C_b must not overlap.  On CUDA devices only in tasks on HYT_STREAM_COMPUTE (the
 * only stream with a cuBLAS handle; HYT_ERR_INVALID elsewhere). */
int hyt_gpu_dgemm_batched(const hyt_devctx_t *dc, char transa, char transb, int m, int n, int k,
                          double alpha, const double *A, int lda, int64_t strideA,
                          const double *B, int ldb, int64_t strideB, double beta, double *C,
                          int ldc, int64_t strideC, int batch, int per_call);

/* Host references (the specification of the kernels above; host memory).  They assume valid
 * arguments (the dispatchers check them); hyt_ref_dlaswp_crrb ignores pivots < 1, as the CUDA
 * kernel does. */
void hyt_ref_transpose_tiles(double *tiles, int nb, int64_t ntiles);
void hyt_ref_transpose_tiles_strided(double *tiles, int nb, int64_t ntiles, int64_t stride);
void hyt_ref_dlaswp_crrb(double *col0, int64_t colstride, int ncols, int nb, int r1, int npiv,
                         const int *ipiv);
void hyt_ref_dgemm_batched(char transa, char transb, int m, int n, int k, double alpha,
                           const double *A, int lda, int64_t strideA, const double *B, int ldb,
                           int64_t strideB, double beta, double *C, int ldc, int64_t strideC,
                           int batch);

/* The fused Cholesky of a diagonal block (gpu_dpotf2.cu): A = L L^T of the lower n x n block
 * (column-major, lda), n <= HYT_DPOTF2_MAX_N, in place; returns LAPACK's dpotf2 INFO (0, or the
 * order of the first leading minor that is not positive definite).  The host reference is
 * hyt_core_dpotrf('L', ...). */
#define HYT_DPOTF2_MAX_N 512
int hyt_ref_dpotf2(int n, double *a, int lda);

#if HYT_HAVE_CUDA
/* The CUDA versions (the .cu files of gpu_kernels/), asynchronous on `stream`.  They return 0 or
 * HYT_ERR_DEVICE (launch checked with cudaGetLastError, message via hyt_error).  Calls with
 * nothing to do launch nothing; HYT_ERR_INVALID / HYT_ERR_TOO_LARGE for arguments that cannot be
 * launched (the dispatchers above check everything first).  The CUDA dlaswp cannot report a
 * pivot ipiv[q] < 1: it leaves that row alone (the host dispatcher rejects it). */
int hyt_cuda_transpose_tiles(hyt_device_t *dev, void *stream, double *tiles, int nb,
                             int64_t ntiles);
int hyt_cuda_transpose_tiles_strided(hyt_device_t *dev, void *stream, double *tiles, int nb,
                                     int64_t ntiles, int64_t stride);
int hyt_cuda_dlaswp_crrb(hyt_device_t *dev, void *stream, double *col0, int64_t colstride,
                         int ncols, int nb, int r1, int npiv, const int *ipiv);
/* One cooperative launch on `stream`; *info (device memory) is set when it completes. */
int hyt_cuda_dpotf2(hyt_device_t *dev, void *stream, int n, double *A, int lda, int *info);
#endif

#ifdef __cplusplus
}
#endif
#endif
