/*
 * hytile: LU factorization with partial pivoting and solves on multicore CPUs and GPUs.
 *
 * Three levels, as in PLASMA:
 *   LAPACK layout, synchronous     hyt_dgetrf, hyt_dgetrs, hyt_dgesv
 *   tile layout, synchronous       hyt_dgetrf_tile, hyt_dgetrs_tile, hyt_dgesv_tile
 *   tile layout, asynchronous      hyt_dgetrf_tile_async, hyt_dgetrs_tile_async (insert tasks
 *                                  into a sequence; hyt_sequence_wait returns the status)
 * and the same for the Cholesky (hyt_dpotrf, hyt_dpotrs, hyt_dposv, ...), plus the LAPACK ABI
 * entry points dgetrf_, dgetrs_, dgesv_, dpotrf_, dpotrs_, dposv_ exported by libhytile.so.
 *
 * Included: hyt_context.h (errors, configuration, context, sequences), hyt_tiles.h (tile
 * descriptors) and hyt_dmat.h (matrices in the devices' memory, factored and solved there).
 * Writing one's own tile algorithms on the runtime: hyt_runtime.h.
 *
 * Return values follow LAPACK's INFO: 0 success, -i the i-th argument (counted as in LAPACK,
 * the context not counted) is wrong and nothing was touched, +i U(i,i) is exactly zero (the
 * factorization is completed anyway; a solve is not done).  Library failures return
 * HYT_ERR_* codes (all below -1000) with hyt_last_error() saying what happened; the matrix
 * is then unspecified for dgetrf (the factorization did not complete) and untouched by argument
 * errors.  Every failure sets hyt_last_error() to a message that begins with the name of the
 * call made ("hyt_dgesv: argument 5 (ipiv) is NULL"); the tile calls count their arguments the
 * same way (hyt_dgetrs_tile: trans 1, A 2, ipiv 3, B 4).
 */
#ifndef HYTILE_H
#define HYTILE_H

#include "hyt_context.h"
#include "hyt_dmat.h"
#include "hyt_tiles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Effective LU parameters for an m x n problem: the configuration's lu.* values with "auto"
 * resolved for this machine and size, and where each came from. */
typedef struct hyt_lu_params {
    int nb, lookahead, panel_cores;
    hyt_source_t src_nb, src_lookahead, src_panel_cores;
    int ndevices;
    int gpu_panel;          /* panels factored on the devices (lu.panel) */
    hyt_source_t src_panel;
    double *marks;          /* NULL (hyt_lu_params), or for timing with GPU panels: marks[0] =
                             * hyt_wtime() once every column is on its device (the first panel
                             * waits for it), marks[1] after the last update (the factors
                             * return to the host after it, not during the factorization) */
} hyt_lu_params_t;
HYT_API int hyt_lu_params(hyt_context_t *ctx, int m, int n, hyt_lu_params_t *p);

/* LAPACK layout, synchronous (a is column-major with leading dimension lda). */
HYT_API int hyt_dgetrf(hyt_context_t *ctx, int m, int n, double *a, int lda, int *ipiv);
HYT_API int hyt_dgetrs(hyt_context_t *ctx, char trans, int n, int nrhs, const double *a, int lda,
                       const int *ipiv, double *b, int ldb);
HYT_API int hyt_dgesv(hyt_context_t *ctx, int n, int nrhs, double *a, int lda, int *ipiv, double *b,
                      int ldb);

/* Tile layout (A from hyt_desc_create or a LAPACK view), synchronous. */
HYT_API int hyt_dgetrf_tile(hyt_context_t *ctx, hyt_desc_t *A, int *ipiv);
HYT_API int hyt_dgetrs_tile(hyt_context_t *ctx, char trans, const hyt_desc_t *A, const int *ipiv,
                            hyt_desc_t *B);
HYT_API int hyt_dgesv_tile(hyt_context_t *ctx, hyt_desc_t *A, int *ipiv, hyt_desc_t *B);

/* Tile layout, asynchronous.  *info is final once the sequence has been waited for; ipiv and
 * info must stay valid until then.  Returns 0 or an argument / insertion error. */
HYT_API int hyt_dgetrf_tile_async(hyt_sequence_t *seq, hyt_desc_t *A, int *ipiv, int *info);
HYT_API int hyt_dgetrs_tile_async(hyt_sequence_t *seq, char trans, const hyt_desc_t *A,
                                  const int *ipiv, hyt_desc_t *B);

/* Cholesky factorization of a symmetric positive definite matrix and solves with it, at the
 * same three levels: A = L L^T (uplo 'L') or U^T U ('U'), only that triangle referenced
 * ('l' and 'u' too).  INFO +i: the leading minor of order i is not positive definite; the
 * factorization stopped there (the rest of A is unspecified, as in LAPACK) and a solve is not
 * done (B untouched).  Argument positions as in LAPACK's DPOTRF, DPOTRS, DPOSV. */
HYT_API int hyt_dpotrf(hyt_context_t *ctx, char uplo, int n, double *a, int lda);
HYT_API int hyt_dpotrs(hyt_context_t *ctx, char uplo, int n, int nrhs, const double *a, int lda,
                       double *b, int ldb);
HYT_API int hyt_dposv(hyt_context_t *ctx, char uplo, int n, int nrhs, double *a, int lda,
                      double *b, int ldb);
HYT_API int hyt_dpotrf_tile(hyt_context_t *ctx, char uplo, hyt_desc_t *A);
HYT_API int hyt_dpotrs_tile(hyt_context_t *ctx, char uplo, const hyt_desc_t *A, hyt_desc_t *B);
HYT_API int hyt_dposv_tile(hyt_context_t *ctx, char uplo, hyt_desc_t *A, hyt_desc_t *B);
/* Asynchronous: *info is final once the sequence has been waited for; the solve of
 * hyt_dposv_tile_async waits for it and does nothing when it is nonzero. */
HYT_API int hyt_dpotrf_tile_async(hyt_sequence_t *seq, char uplo, hyt_desc_t *A, int *info);
HYT_API int hyt_dpotrs_tile_async(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A,
                                  hyt_desc_t *B);
HYT_API int hyt_dposv_tile_async(hyt_sequence_t *seq, char uplo, hyt_desc_t *A, hyt_desc_t *B,
                                 int *info);

/* The Cholesky of a matrix already in device memory (the GPU-only design: diagonal blocks by a
 * fused potf2, the rest cuBLAS, lookahead on a second stream): dA is an n x n column-major
 * array with leading dimension ldda in the memory of the context's device 0 (cudaMalloc'ed on
 * that GPU; host memory for a host device), factored in place as A = L L^T (uplo 'L', the
 * strictly upper triangle not touched) or A = U^T U ('U', the strictly lower triangle not
 * touched); no host copy is made.  Block size chol.nb (auto: 1536 from n = 49152, 512 from
 * 24576, 1024 from 16384, 512 from 8192, else 256; diagonal blocks wider than 512 are factored
 * in pieces of 512), lookahead chol.lookahead, the panels of chol.group steps a trailing update
 * (auto: 3 from n = 24576 on CUDA devices, else 1).  Returns LAPACK's INFO (+i: the leading minor
 * of order i is not positive definite; A is then unspecified beyond the first i - 1 columns), -i
 * for a bad argument i, or HYT_ERR_*.  Synchronous. */
HYT_API int hyt_dpotrf_device(hyt_context_t *ctx, char uplo, int n, double *dA, int ldda);
/* The same inserted into a sequence (several factorizations may share one, on one device's
 * streams): *info is set when the sequence has finished (0 if it failed: its status says why);
 * -i / HYT_ERR_* at once for a bad argument or a failed setup (nothing inserted then). */
HYT_API int hyt_dpotrf_device_async(hyt_sequence_t *seq, char uplo, int n, double *dA, int ldda,
                                    int *info);

/* LAPACK ABI (Fortran calling convention, 32-bit integers, hidden string lengths). */
HYT_API void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
HYT_API void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a,
                     const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
                     size_t trans_len);
HYT_API void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
                    const int *ldb, int *info);
HYT_API void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info,
                     size_t uplo_len);
HYT_API void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                     const int *lda, double *b, const int *ldb, int *info, size_t uplo_len);
HYT_API void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
                    double *b, const int *ldb, int *info, size_t uplo_len);

#ifdef __cplusplus
}
#endif
#endif
