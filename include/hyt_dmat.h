/*
 * Device-resident matrices: an m x n matrix whose tile columns live in the devices' memory
 * (column j on device j % ndev, the layout of the hybrid LU), factored and solved there
 * without a host round trip.  Included by hytile.h.
 *
 *     hyt_dmat_t *dA, *dB;
 *     hyt_dmat_create(ctx, n, n, 0, &dA);          nb 0: the LU's tile size for n x n
 *     hyt_dmat_create(ctx, n, nrhs, hyt_dmat_nb(dA), &dB);
 *     hyt_dmat_set(dA, a, lda);  hyt_dmat_set(dB, b, ldb);       LAPACK layout -> devices
 *     int info = hyt_dgesv_dmat(ctx, dA, ipiv, dB);               ipiv on the host, LAPACK's
 *     hyt_dmat_get(dB, x, ldb);                                   devices -> LAPACK layout
 *     hyt_dmat_destroy(dA); hyt_dmat_destroy(dB);
 *
 * The context must have devices (runtime.devices = cuda, cuda:..., host:N); the matrix belongs
 * to it (destroy it before the context, and after the sequences that use it have been waited
 * for).  Its memory is allocated and checked up front
 * (gpu.memory_limit applies): HYT_ERR_DEVICE_MEMORY with a message when it does not fit.
 * With one device, hyt_dmat_set_device / hyt_dmat_get_device copy from / to a plain
 * column-major matrix in that device's memory (like cuSOLVER's getrf); with several they are
 * refused (HYT_ERR_INVALID).
 *
 * The factorization runs on the columns in place, with panels on the devices (whatever
 * lu.panel says: a CPU panel would need the matrix on the host), LAPACK's pivots and INFO
 * (the first exactly zero U(i,i), factorization completed; a solve is then not done).  The
 * solve applies the interchanges and the triangular solves on the devices (B a device matrix
 * with A's tile size, n rows).  Return values as the rest of hytile.h: 0, -i (argument i, the
 * context or sequence not counted: hyt_dgetrs_dmat(ctx, trans, dA, ipiv, dB) has ipiv as 3),
 * +i, or HYT_ERR_* with hyt_last_error() naming the call.
 */
#ifndef HYT_DMAT_H
#define HYT_DMAT_H

#include "hyt_context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hyt_dmat hyt_dmat_t;

/* nb 0: the LU's tile size for an m x n problem (lu.nb, or auto).  Contents undefined until
 * set. */
HYT_API int hyt_dmat_create(hyt_context_t *ctx, int m, int n, int nb, hyt_dmat_t **dA);
HYT_API void hyt_dmat_destroy(hyt_dmat_t *dA);
HYT_API int hyt_dmat_nb(const hyt_dmat_t *dA);

/* LAPACK layout on the host (column-major, leading dimension lda >= max(1, m)) <-> devices;
 * synchronous. */
HYT_API int hyt_dmat_set(hyt_dmat_t *dA, const double *a, int lda);
HYT_API int hyt_dmat_get(hyt_dmat_t *dA, double *a, int lda);
/* One device only: a column-major matrix in that device's memory (ld >= max(1, m)). */
HYT_API int hyt_dmat_set_device(hyt_dmat_t *dA, const double *dptr, int ld);
HYT_API int hyt_dmat_get_device(hyt_dmat_t *dA, double *dptr, int ld);

/* LU with partial pivoting in place on the devices; ipiv: min(m, n) entries on the host. */
HYT_API int hyt_dgetrf_dmat(hyt_context_t *ctx, hyt_dmat_t *dA, int *ipiv);
/* Cholesky A = L L^T in place on the devices (every step there: the diagonal tile and the
 * panel on the owner of their column, the panel copied to the other devices).  dA square, set
 * with the full matrix (hyt_dmat_set); only its lower triangle is read.  Returns 0, -1 (dA
 * NULL, of another context or not square), +i (LAPACK's INFO: the leading minor of order i is
 * not positive definite) or HYT_ERR_*.  Afterwards hyt_dmat_get gives L in the lower triangle
 * and, in the strictly upper triangle, what was set there, untouched.  With INFO = i > 0 only
 * the tile columns left of the one holding column i are L's; the others are undefined (the
 * steps after the failure run on garbage, and may give NaN).  Tile size: the matrix's;
 * lookahead: chol.lookahead (auto: 1). */
HYT_API int hyt_dpotrf_dmat(hyt_context_t *ctx, hyt_dmat_t *dA);
/* A X = B with the factor L of hyt_dpotrf_dmat (dB n x nrhs with dA's tile size; X overwrites
 * it; only dA's lower triangle is read); hyt_dposv_dmat: both, the solve only when INFO is 0
 * (else dB is untouched).  Returns 0, -1 (dA), -2 (dB: NULL, of another context, not n rows or
 * another tile size), +i (hyt_dposv_dmat: INFO) or HYT_ERR_*. */
HYT_API int hyt_dpotrs_dmat(hyt_context_t *ctx, const hyt_dmat_t *dA, hyt_dmat_t *dB);
HYT_API int hyt_dposv_dmat(hyt_context_t *ctx, hyt_dmat_t *dA, hyt_dmat_t *dB);
/* op(A) X = B with the factors of hyt_dgetrf_dmat (trans 'N', 'T' or 'C'); X overwrites B. */
HYT_API int hyt_dgetrs_dmat(hyt_context_t *ctx, char trans, const hyt_dmat_t *dA,
                            const int *ipiv, hyt_dmat_t *dB);
HYT_API int hyt_dgesv_dmat(hyt_context_t *ctx, hyt_dmat_t *dA, int *ipiv, hyt_dmat_t *dB);

/* Asynchronous: tasks inserted into seq; *info, ipiv and the matrices are final once the
 * sequence has been waited for (ipiv and info must stay valid until then).  Calls on the same
 * matrices are ordered by their insertion. */
HYT_API int hyt_dgetrf_dmat_async(hyt_sequence_t *seq, hyt_dmat_t *dA, int *ipiv, int *info);
HYT_API int hyt_dgetrs_dmat_async(hyt_sequence_t *seq, char trans, const hyt_dmat_t *dA,
                                  const int *ipiv, hyt_dmat_t *dB);
/* info: argument 2 (-2 when NULL). */
HYT_API int hyt_dpotrf_dmat_async(hyt_sequence_t *seq, hyt_dmat_t *dA, int *info);
/* The solve after hyt_dpotrf_dmat_async in the same sequence: it runs whatever INFO becomes
 * (check INFO before using dB). */
HYT_API int hyt_dpotrs_dmat_async(hyt_sequence_t *seq, const hyt_dmat_t *dA, hyt_dmat_t *dB);

#ifdef __cplusplus
}
#endif
#endif
