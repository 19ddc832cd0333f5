/*
 * The CPU kernels that are plain sequential functions on LAPACK-layout blocks, without tasks
 * or the runtime: what the device kernels' host references (gpu_kernels/ref_*.c) build on.
 * Kept apart from hyt_cpu_kernels.h (the task kernels and their insert wrappers, which
 * includes this file), so that gpu_kernels/ depends on these functions only.  Defined in
 * their kernels' files.
 */
#ifndef HYT_CORE_SEQ_H
#define HYT_CORE_SEQ_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* core_dgetrf_rec.c: the recursive panel on one thread for an m x n LAPACK-layout block: LU
 * with partial pivoting in place, ipiv 1-based within the block; returns the first zero pivot
 * (1-based) or 0. */
int hyt_core_dgetrf_seq(int m, int n, double *a, int64_t lda, int *ipiv);

/* core_dpotrf.c: A = L L^T (uplo 'L') or U^T U ('U') of the n x n block a (ld lda) in place,
 * recursive (LAPACK's dpotrf2 split) with unblocked leaves; returns 0 or the order of the first
 * leading minor that is not positive definite (LAPACK's INFO: that diagonal is <= 0 or NaN;
 * the rest of the block is then unspecified). */
int hyt_core_dpotrf(char uplo, int n, double *a, int lda);

/* core_dplghpl.c: fills rows [r0, r0+mb) x columns [c0, c0+nb) of the m-row HPL matrix of
 * seed `seed` into a (ld); the numbers are hyt_hpl_entry's (hyt_cpu_kernels.h). */
void hyt_core_dplghpl(int64_t m, int64_t r0, int64_t c0, int mb, int nb, double *a, int64_t lda,
                      int seed);

#ifdef __cplusplus
}
#endif
#endif
