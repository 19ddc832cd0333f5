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

/* The same interchanges as one permutation, in passes whose threads need no order (the LU's
 * updates; ~npiv memory round trips fewer than hyt_gpu_dlaswp_crrb's chains).  The pivots must
 * be LAPACK's: ipiv[q] - 1 >= r1 + q (the host dispatcher rejects others; the CUDA plan takes
 * them as no interchange), npiv <= HYT_LASWP_PLAN_MAX.
 *   hyt_gpu_dlaswp_plan:    plan (3 npiv ints of device memory) from ipiv: for q < npiv, the
 *     row whose content ends in row r1+q (plan[q]); the row below r1+npiv that gets content
 *     (plan[npiv+q], or -1) and the row in r1..r1+npiv-1 it comes from (plan[2 npiv+q]);
 *   hyt_gpu_dlaswp_gather:  rows r1..r1+npiv-1 as they are after the interchanges, of each of
 *     ncols columns (col0 + b colstride), to top + b topstride (npiv rows of nb, contiguous);
 *     the columns are not written;
 *   hyt_gpu_dlaswp_scatter: then the rows below r1+npiv that the interchanges reach, in place.
 *     Rows r1..r1+npiv-1 of the columns still hold the old rows: the caller takes them from
 *     top (or copies top back).
 * On any stream; host devices: the references below, at once. */
#define HYT_LASWP_PLAN_MAX 8192
int hyt_gpu_dlaswp_plan(const hyt_devctx_t *dc, int r1, int npiv, const int *ipiv, int *plan);
int hyt_gpu_dlaswp_gather(const hyt_devctx_t *dc, const double *col0, int64_t colstride,
                          int ncols, int nb, int npiv, const int *plan, double *top,
                          int64_t topstride);
int hyt_gpu_dlaswp_scatter(const hyt_devctx_t *dc, double *col0, int64_t colstride, int ncols,
                           int nb, int npiv, const int *plan);
/* The whole permutation: gather rows r1..r1+npiv-1 of col0's columns into top, scatter, and
 * copy top back into those rows (a device-to-device copy on the task's stream). */
int hyt_gpu_dlaswp_apply(const hyt_devctx_t *dc, double *col0, int64_t colstride, int ncols,
                         int nb, int r1, int npiv, const int *plan, double *top,
                         int64_t topstride);

/* C_b = alpha op(A_b) op(B_b) + beta C_b for b < batch, column-major, with X_b = X + b*strideX
 * (cuBLAS's strided-batched GEMM; trans 'N' or 'T').  `mode` picks the CUDA version's calls:
 * HYT_GEMM_STRIDED one batched call; HYT_GEMM_PER_CALL one cublasDgemm per b (the two ran as
 * fast, 43-48 TFLOP/s on H200 CRRB columns: docs/DESIGN.md; the LU uses the batched call);
 * HYT_GEMM_LT one cublasLtMatmul per b with the first algorithm of cublasLt's heuristic for
 * the shape (gpu_blaslt.c; cublasDgemm where it offers none).  Host devices ignore it.
 * Strides >= 0 (0: one A or B for all entries); the C_b must not overlap.  On CUDA devices
 * only in tasks on the compute, panel and lookahead streams (those with a cuBLAS handle;
 * HYT_ERR_INVALID elsewhere). */
enum { HYT_GEMM_STRIDED = 0, HYT_GEMM_PER_CALL = 1, HYT_GEMM_LT = 2 };
int hyt_gpu_dgemm_batched(const hyt_devctx_t *dc, char transa, char transb, int m, int n, int k,
                          double alpha, const double *A, int lda, int64_t strideA,
                          const double *B, int ldb, int64_t strideB, double beta, double *C,
                          int ldc, int64_t strideC, int batch, int mode);


/* LU with partial pivoting (LAPACK's dgetrf, its pivot rule exactly) of the row-major m x n
 * panel A with leading dimension nb >= n (a CRRB panel: row r at A + r*nb), in place: ipiv[q]
 * (q < min(m, n)) the 1-based panel row interchanged with row q, *info the first column whose
 * pivot is exactly zero (1-based) or 0; with n > m the columns right of the m-th get their U.
 * work: hyt_gpu_dgetrf_crrb_work(dev, m, n) bytes; ipiv, info and work are device memory (host
 * memory on host devices).  nctas: CTAs of the CUDA leaf kernel (<= 0: one per SM; fewer where
 * the panel is short or they would not fit on the GPU at once).  CUDA: on a stream with a
 * cuBLAS handle (compute or panel). */
int hyt_gpu_dgetrf_crrb(const hyt_devctx_t *dc, double *A, int m, int n, int nb, int *ipiv,
                        int *info, void *work, int nctas);
size_t hyt_gpu_dgetrf_crrb_work(hyt_device_t *dev, int m, int n);
/* ---- HPL's matrix on the devices (gpu_dplghpl.cu, gpu_hpl_check.cu; references in ref_hpl.c)
 * Device `index` of `ndev` holds the tile columns of HPL's n x n matrix (nb x nb tiles) as the
 * hybrid LU keeps them (drivers/lu/lu_gpu.h): the tile columns j with j % ndev == index, local
 * column l = j / ndev at cols + l*mt*nb*nb (mt = ceil(n/nb)), mt CRRB tiles on top of each
 * other; padding (rows >= n, columns >= n) zero.  The numbers are hyt_core_dplghpl's, bit for
 * bit: A is columns 0..n-1 of HPL's n x (n+1) matrix, b its column n (hytile hpl's matrix).
 * Calls with n == 0 do nothing (norms not written). */

/* Generates this device's columns (all of their mt*nb rows, padding zeroed) and, when b is not
 * NULL, b (n doubles of device memory; one device generates it). */
int hyt_gpu_dplghpl(const hyt_devctx_t *dc, double *cols, int n, int nb, int ndev, int index,
                    int seed, double *b);
/* The check by regeneration, this device's share: for every row i < n, ax[i] = sum of
 * a_ij x[j] and arow[i] = sum of |a_ij| over this device's columns j, A regenerated (not read:
 * the factors have overwritten it).  x: n doubles (the whole solution); ax, arow: n doubles,
 * overwritten (zeros on a device without columns).  Blocked summation in a fixed order: the
 * CUDA and host versions give the same bits. */
int hyt_gpu_hpl_matvec(const hyt_devctx_t *dc, int n, int nb, int ndev, int index, int seed,
                       const double *x, double *ax, double *arow);
/* Combines the shares of nparts devices (part p at ax + p*n and arow + p*n: the caller brings
 * them to one device) into norms[0..3] = ||A x - b||_oo, ||A||_oo (max row sum of |a_ij|),
 * ||x||_oo, ||b||_oo, in device memory; a NaN anywhere is a NaN norm. */
int hyt_gpu_hpl_norms(const hyt_devctx_t *dc, int n, int nparts, const double *ax,
                      const double *arow, const double *x, const double *b, double *norms);
/* HPL's scaled residual ||Ax-b||_oo / (eps (||A||_oo ||x||_oo + ||b||_oo) n) of those norms
 * (host; eps = DBL_EPSILON, as hytile hpl). */
double hyt_hpl_scaled_residual(const double norms[4], int n);

/* Host references (the specification of the kernels above; host memory).  They assume valid
 * arguments (the dispatchers check them); hyt_ref_dlaswp_crrb ignores pivots < 1, as the CUDA
 * kernel does. */
void hyt_ref_transpose_tiles(double *tiles, int nb, int64_t ntiles);
void hyt_ref_transpose_tiles_strided(double *tiles, int nb, int64_t ntiles, int64_t stride);
void hyt_ref_dlaswp_crrb(double *col0, int64_t colstride, int ncols, int nb, int r1, int npiv,
                         const int *ipiv);
void hyt_ref_dlaswp_plan(int r1, int npiv, const int *ipiv, int *plan);
void hyt_ref_dlaswp_gather(const double *col0, int64_t colstride, int ncols, int nb, int npiv,
                           const int *plan, double *top, int64_t topstride);
void hyt_ref_dlaswp_scatter(double *col0, int64_t colstride, int ncols, int nb, int npiv,
                            const int *plan);
/* work: m*n doubles (a column-major copy for hyt_core_dgetrf_seq); returns INFO. */
int hyt_ref_dgetrf_crrb(double *A, int m, int n, int nb, int *ipiv, double *work);
void hyt_ref_dgemm_batched(char transa, char transb, int m, int n, int k, double alpha,
                           const double *A, int lda, int64_t strideA, const double *B, int ldb,
                           int64_t strideB, double beta, double *C, int ldc, int64_t strideC,
                           int batch);
void hyt_ref_dplghpl_crrb(double *cols, int n, int nb, int ndev, int index, int seed, double *b);
/* 0, or HYT_ERR_NOMEM (a tile of scratch) */
int hyt_ref_hpl_matvec(int n, int nb, int ndev, int index, int seed, const double *x,
                       double *ax, double *arow);
void hyt_ref_hpl_norms(int n, int nparts, const double *ax, const double *arow, const double *x,
                       const double *b, double norms[4]);

/* The fused Cholesky of a diagonal block (gpu_dpotf2.cu): A = L L^T of the lower (uplo 'L') or
 * A = U^T U of the upper ('U') n x n block (column-major, lda), n <= HYT_DPOTF2_MAX_N, in place;
 * returns LAPACK's dpotf2 INFO (0, or the order of the first leading minor that is not positive
 * definite).  The host reference is hyt_core_dpotrf(uplo, ...). */
#define HYT_DPOTF2_MAX_N 512
int hyt_ref_dpotf2(char uplo, int n, double *a, int lda);

/* The Cholesky's device kernels (the GPU-only Cholesky, drivers/chol/pdpotrf_gpu.c), column-major
 * on device memory (host memory on host devices), in place.  CUDA: potf2 on any stream (one
 * launch, with a workspace per stream), the BLAS calls on a stream with a cuBLAS handle
 * (compute, panel, lookahead); host: the references (hyt_ref_dpotf2, CBLAS) at once.
 *   hyt_gpu_dpotf2: A = L L^T of the lower ('L') or A = U^T U of the upper ('U') n x n block
 *     (n <= HYT_DPOTF2_MAX_N); *info (device memory, always written) LAPACK's dpotf2 INFO;
 *   hyt_gpu_dtrsm:  B = alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 ('R'), A triangular,
 *     B m x n (LAPACK's DTRSM arguments); with at most HYT_TRSM_FEW_RHS right-hand sides (n
 *     for 'L', m for 'R') and A of order at most HYT_TRSM_FEW_MAX_N, hytile's own substitution
 *     (gpu_dtrsm_few.cu; host: hyt_ref_dtrsm_few), else cuBLAS (host: CBLAS);
 *   hyt_gpu_dsyrk:  C = alpha op(A) op(A)^T + beta C on the uplo triangle of the n x n C (trans
 *     'N': A n x k; 'T': A k x n). */
int hyt_gpu_dpotf2(const hyt_devctx_t *dc, char uplo, int n, double *A, int lda, int *info);
/*   hyt_gpu_dpotrf: LAPACK's dpotrf of the uplo triangle of an n x n block of any order, by the
 *     vendor's library: cusolverDnDpotrf (gpu_solver.c; its workspace the device's, per
 *     stream); host: hyt_core_dpotrf.  *info as hyt_gpu_dpotf2's. */
int hyt_gpu_dpotrf(const hyt_devctx_t *dc, char uplo, int n, double *A, int lda, int *info);
int hyt_gpu_dtrsm(const hyt_devctx_t *dc, char side, char uplo, char transa, char diag, int m,
                  int n, double alpha, const double *A, int lda, double *B, int ldb);
int hyt_gpu_dsyrk(const hyt_devctx_t *dc, char uplo, char trans, int n, int k, double alpha,
                  const double *A, int lda, double beta, double *C, int ldc);
/* hyt_gpu_dtrsm's own solve for few right-hand sides: LAPACK's DTRSM (alpha = 0: B = 0, A not
 * read), every right-hand side by forward or backward substitution in blocks of 32, a non-unit
 * diagonal through its reciprocal where that is exact enough (|A(i, i)| in [2^-1022, 2^1021]);
 * the CUDA kernel does the same operations in the same order (gpu_dtrsm_few.cu says which). */
#define HYT_TRSM_FEW_RHS 32
#define HYT_TRSM_FEW_MAX_N 2048
void hyt_ref_dtrsm_few(char side, char uplo, char transa, char diag, int m, int n, double alpha,
                       const double *A, int lda, double *B, int ldb);
/*   hyt_gpu_dtrtri_diag: the inverses of the diagonal blocks of order bs (1 .. HYT_TRTRI_DIAG_BS;
 *     the last one smaller where bs does not divide n) of the n x n triangular T (uplo 'L' or
 *     'U', non-unit diagonal), each into the same place of W (ldw), the other triangle of each
 *     block set to zero, W outside them untouched; any stream (CUDA: gpu_dtrtri_diag.cu).  The
 *     host reference does the kernel's operations in its order (a column's forward substitution
 *     in four interleaved partial sums, see the .cu), so the two agree to the bit. */
#define HYT_TRTRI_DIAG_BS 128
int hyt_gpu_dtrtri_diag(const hyt_devctx_t *dc, char uplo, int n, int bs, const double *T,
                        int ldt, double *W, int ldw);
void hyt_ref_dtrtri_diag(char uplo, int n, int bs, const double *T, int ldt, double *W, int ldw);
/*   hyt_gpu_icopy_to_host: dst[0 .. n) = src[0 .. n), src device memory, dst host memory, on the
 *     task's stream; CUDA: written by a kernel when dst is page-locked (no copy engine: it does
 *     not wait behind the large copies queued there), else a cudaMemcpyAsync
 *     (gpu_icopy_host.cu); host: memcpy. */
int hyt_gpu_icopy_to_host(const hyt_devctx_t *dc, int *dst, const int *src, int n);

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
int hyt_cuda_dlaswp_plan(hyt_device_t *dev, void *stream, int r1, int npiv, const int *ipiv,
                         int *plan);
int hyt_cuda_dlaswp_gather(hyt_device_t *dev, void *stream, const double *col0,
                           int64_t colstride, int ncols, int nb, int npiv, const int *plan,
                           double *top, int64_t topstride);
int hyt_cuda_dlaswp_scatter(hyt_device_t *dev, void *stream, double *col0, int64_t colstride,
                            int ncols, int nb, int npiv, const int *plan);
/* The native panel LU (gpu_dgetrf_crrb.c) and one of its leaves: columns [j0, j0+w), w <= 32,
 * factored in one cooperative launch (gpu_dgetrf_leaf.cu); ws: hyt_panel_leaf_ws_bytes(m). */
int hyt_cuda_dgetrf_crrb(hyt_device_t *dev, void *stream, void *cublas, double *A, int m, int n,
                         int nb, int *ipiv, int *info, void *work, int nctas);
/* The SMs that work on `stream` can use: those of its green context (gpu.panel_sms), else the
 * device's. */
int hyt_cuda_stream_sms(hyt_device_t *dev, void *stream, int *sms);
int hyt_cuda_dgetrf_leaf(hyt_device_t *dev, void *stream, double *A, int m, int n, int nb,
                         int j0, int w, int *ipiv, int *info, double *ws, int nctas);
/* A short node of it: columns [j0, j0+w) when m - j0 <= 512 and 32 < w <= m - j0, in one
 * launch of ceil(w / 32) CTAs (gpu_dgetrf_short.cu); 1 (nothing launched) where it does not
 * apply, else HYT_SUCCESS or an error. */
int hyt_cuda_dgetrf_short(hyt_device_t *dev, void *stream, double *A, int m, int n, int nb,
                          int j0, int w, int *ipiv, int *info, double *ws, int nctas);
/* Its row solve: the row-major w1 x w2 matrix X (leading dimension ldx) = inv(L) X, L the unit
 * lower triangle of the row-major w1 x w1 matrix at L (leading dimension ldl; the two do not
 * overlap), w1 <= HYT_TRSM_CRRB_MAX_N, in one launch (gpu_dtrsm_crrb.cu). */
#define HYT_TRSM_CRRB_MAX_N 512
int hyt_cuda_dtrsm_crrb(hyt_device_t *dev, void *stream, const double *L, int ldl, double *X,
                        int ldx, int w1, int w2);
/* Whether this device runs kernel f (gpu_dgetrf_leaf.cu); cache: 64 zeroed entries, static at
 * the caller. */
int hyt_cuda_kernel_usable(signed char *cache, const void *f, int cc_min, size_t smem,
                           int cluster);
struct hyt_hpl_dist; /* hyt_gpu_hpl.h */
int hyt_cuda_dplghpl(hyt_device_t *dev, void *stream, const struct hyt_hpl_dist *D, double *cols,
                     double *b);
int hyt_cuda_hpl_matvec(hyt_device_t *dev, void *stream, const struct hyt_hpl_dist *D,
                        const double *x, double *ax, double *arow);
int hyt_cuda_hpl_norms(hyt_device_t *dev, void *stream, int64_t n, int nparts, const double *ax,
                       const double *arow, const double *x, const double *b, double *norms);
/* One launch on `stream`; *info (device memory) is set when it completes.  work: device memory
 * of HYT_DPOTF2_WS_BYTES, zeroed before its first use, that the kernel leaves zeroed; calls
 * sharing one must be ordered (one stream).  hyt_cuda_dpotf2_ws gives the one of a device's
 * stream (HYT_STREAM_*), made on first use and freed with the context. */
#define HYT_DPOTF2_WS_BYTES 4096
int hyt_cuda_dpotf2(hyt_device_t *dev, void *stream, char uplo, int n, double *A, int lda,
                    int *info, void *work);
int hyt_cuda_dpotf2_ws(hyt_device_t *dev, int stream, void **work);
int hyt_cuda_dtrsm_few(hyt_device_t *dev, void *stream, char side, char uplo, char transa,
                       char diag, int m, int n, double alpha, const double *A, int lda,
                       double *B, int ldb);
int hyt_cuda_dtrtri_diag(hyt_device_t *dev, void *stream, char uplo, int n, int bs,
                         const double *T, int ldt, double *W, int ldw);
int hyt_cuda_icopy_to_host(hyt_device_t *dev, void *stream, int *dst, const int *src, int n);
/* cuSOLVER (gpu_solver.c): the device's handle (a cusolverDnHandle_t, made on first use,
 * shared by every caller of the context's device task bodies), and hyt_gpu_dpotrf's CUDA
 * version through it on `stream` (sidx: its HYT_STREAM_* index, which picks the workspace). */
int hyt_cuda_solver(hyt_device_t *dev, void **handle);
int hyt_cuda_dpotrf(hyt_device_t *dev, void *stream, int sidx, char uplo, int n, double *A,
                    int lda, int *info);
/* One DGEMM through cublasLt on `stream` (gpu_blaslt.c: the device's cublasLt handle, the
 * heuristic's first algorithm per shape): *done = 0 when cublasLt offers no algorithm for it
 * (or k = 0), and the caller runs cublasDgemm. */
int hyt_cuda_dgemm_lt(hyt_device_t *dev, void *stream, char transa, char transb, int m, int n,
                      int k, double alpha, const double *A, int lda, const double *B, int ldb,
                      double beta, double *C, int ldc, int *done);
#endif

#ifdef __cplusplus
}
#endif
#endif
