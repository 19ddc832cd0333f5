/*
 * CPU tile kernels and their typed insert wrappers.  Each kernel lives in its own file with
 * its task body and wrapper, so a kernel and the access modes it declares cannot drift apart.
 * Region keys are tile base addresses (hyt_tile()) and dependency tokens.
 */
#ifndef HYT_CPU_KERNELS_H
#define HYT_CPU_KERNELS_H

#include "hyt_core_seq.h"
#include "hyt_insert.h"
#include "hyt_internal.h"
#include "hyt_runtime.h"
#include "hyt_tiles.h"

#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* debug.races: rows [r0, r1) of tile (i, j) read or written by the task being run (the whole
 * tile: r0 0, r1 its rows) */
static inline void hyt_races_tile_rows(const hyt_desc_t *A, int i, int j, int r0, int r1,
                                       int write, const char *what)
{
    hyt_races_block(hyt_tile(A, i, j) + r0, hyt_tile_ld(A), r1 - r0, hyt_tile_nb(A, j), write,
                    what);
}
static inline void hyt_races_tile(const hyt_desc_t *A, int i, int j, int write, const char *what)
{
    hyt_races_tile_rows(A, i, j, 0, hyt_tile_mb(A, i), write, what);
}

/* ---- core_dgetrf_rec.c: recursive-parallel panel factorization --------------------------
 * Factors the panel of tile column k (rows k*nb..m-1, width min(nb, n-k*nb)) with partial
 * pivoting on `nthreads` threads entering together.  Pivots go to ipiv[k*nb ...] as global
 * 1-based row indices; the first exactly-zero pivot sets *info (global column, 1-based) if
 * *info is 0.  When the panel is wider than tall (last step of an m < n matrix) the extra
 * columns get their U part.  Declares RW on the panel's tiles and WRITE on ipiv_token. */
int hyt_insert_dgetrf_rec(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_desc_t *A, int k,
                          int *ipiv, int *info, int nthreads, const void *ipiv_token);
/* (hyt_core_dgetrf_seq, the same algorithm on one thread: hyt_core_seq.h) */
/* The recursion leaf width (columns factored by rank-1 updates). */
#define HYT_PANEL_LEAF 2

/* ---- core_dlaswp.c: row interchanges on a column of tiles --------------------------------
 * hyt_core_dlaswp applies the interchanges ipiv[r1..r2) (0-based positions, 1-based global
 * targets) to tile column j of A, forward (incx > 0) or backward (incx < 0).
 * hyt_insert_dlaswp does it on tile columns [j1, j2) for the pivots of steps k1..k2-1
 * (positions k1*nb up to min(k2*nb, npiv)); ipiv_tokens[k] is READ for those steps (may be
 * NULL), tiles (i,j) for i >= k1 are RW. */
void hyt_core_dlaswp(const hyt_desc_t *A, int j, int r1, int r2, const int *ipiv, int incx);
int hyt_insert_dlaswp(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_desc_t *A, int j1, int j2,
                      int k1, int k2, const int *ipiv, int npiv, int incx,
                      const void *const *ipiv_tokens);

/* ---- core_dgessm.c: step k of the LU applied to tile columns [j1, j2) -------------------
 * HYT_GESSM_SOLVE: swaps of step k (rows k*nb..m-1) and A_kj = inv(L_kk) A_kj;
 * HYT_GESSM_GEMM: A_ij -= L_ik A_kj for tile rows [i1, i2).  Declares READ on ipiv_key
 * (&ipiv[k*nb]) and L, RW on the tiles it changes. */
enum { HYT_GESSM_SOLVE = 1, HYT_GESSM_GEMM = 2 };
void hyt_core_dgessm(const hyt_desc_t *A, int k, int j1, int j2, int i1, int i2, const int *ipiv,
                     int npiv, int what);
int hyt_insert_dgessm(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_desc_t *A, int k, int j1,
                      int j2, int i1, int i2, const int *ipiv, int npiv, int what,
                      const void *ipiv_key);

/* ---- core_dtrsm.c / core_dgemm.c: BLAS on tiles (ld of the descriptors) ------------------
 * Keys: the tile addresses passed.  A is READ, B / C RW. */
int hyt_insert_dtrsm(hyt_sequence_t *seq, hyt_tag_t tag, char side, char uplo, char trans,
                     char diag, int m, int n, double alpha, const double *A, int lda,
                     double *B, int ldb);
int hyt_insert_dgemm(hyt_sequence_t *seq, hyt_tag_t tag, char transa, char transb, int m, int n,
                     int k, double alpha, const double *A, int lda, const double *B, int ldb,
                     double beta, double *C, int ldc);

/* The stop flag of a factorization (its INFO): a task given one does nothing once it is
 * nonzero (a Cholesky stops at the first minor that is not positive definite, as LAPACK's
 * does).  Read and written atomically: the task that sets it runs beside the readers. */
static inline int hyt_stopped(const int *stop)
{
    return stop && __atomic_load_n(stop, __ATOMIC_RELAXED) != 0;
}

/* The same as hyt_insert_dtrsm / hyt_insert_dgemm, skipped once *stop is nonzero (stop NULL:
 * never).  stop is not a dependency. */
int hyt_insert_dtrsm_stop(hyt_sequence_t *seq, hyt_tag_t tag, char side, char uplo, char trans,
                          char diag, int m, int n, double alpha, const double *A, int lda,
                          double *B, int ldb, const int *stop);
int hyt_insert_dgemm_stop(hyt_sequence_t *seq, hyt_tag_t tag, char transa, char transb, int m,
                          int n, int k, double alpha, const double *A, int lda, const double *B,
                          int ldb, double beta, double *C, int ldc, const int *stop);

/* ---- core_dpotrf.c: Cholesky factorization of a diagonal tile ---------------------------
 * hyt_core_dpotrf (hyt_core_seq.h): the factorization of one block.
 * hyt_insert_dpotrf: the task, skipped when *info is already nonzero; a failure sets *info to
 * offset + the local INFO.  Keys: the tile RW, info RW (so a task that READs info runs after
 * every factorization of the diagonal tiles inserted before it). */
int hyt_insert_dpotrf(hyt_sequence_t *seq, hyt_tag_t tag, char uplo, int n, double *A, int lda,
                      int offset, int *info);

/* ---- core_dsyrk_col.c: step k of the Cholesky on tile column j --------------------------
 * Tile rows [i1, i2) of column j (i1 >= j) of L (uplo 'L'), or of U^T ('U': tile (i,j) means
 * tile (j,i) of U): A_jj -= L_jk L_jk^T when i1 = j (SYRK), A_ij -= L_ik L_jk^T below (one
 * tall GEMM on a LAPACK array, one per tile on CCRB).  Skipped once *stop is nonzero (NULL:
 * never).  Keys: the tiles (i,k) and (j,k) READ, (i,j) RW. */
int hyt_insert_dsyrk_col(hyt_sequence_t *seq, hyt_tag_t tag, char uplo, const hyt_desc_t *A,
                         int k, int j, int i1, int i2, const int *stop);

/* ---- core_dsyrk_ucol.c: step k of the upper Cholesky on tile column j of U ---------------
 * Tile rows [i1, i2) of column j of U (k < i1 < i2 <= j + 1): U_ij -= U_ki^T U_kj above the
 * diagonal (one tall GEMM on a LAPACK array, one per tile on CCRB), U_jj -= U_kj^T U_kj when
 * i2 = j + 1 (SYRK).  Skipped once *stop is nonzero (NULL: never).  Keys: the tiles (k,i) and
 * (k,j) READ, (i,j) RW. */
int hyt_insert_dsyrk_ucol(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_desc_t *A, int k, int j,
                          int i1, int i2, const int *stop);

/* ---- core_dtrtri.c: inverse of the unit lower triangle of a diagonal tile ---------------
 * Linv (n x n, ld ldinv) = inv(unit lower part of L); the rest of the nb x nb buffer zeroed.
 * Keys: L READ, Linv WRITE. */
void hyt_core_dtrtri_ul(int n, const double *L, int ldl, double *Linv, int ldinv, int nb);
int hyt_insert_dtrtri_ul(hyt_sequence_t *seq, hyt_tag_t tag, int n, const double *L, int ldl,
                         double *Linv, int ldinv, int nb);

/* ---- core_dlange.c: norms --------------------------------------------------------------
 * norm: 'M' max |a|, '1' / 'O' max column sum, 'I' max row sum, 'F' Frobenius. */
double hyt_core_dlange(char norm, int m, int n, const double *a, int64_t lda);
/* Norm of a tile matrix with parallel tasks; *result is set when the sequence has finished. */
int hyt_dlange_tile_async(hyt_sequence_t *seq, char norm, const hyt_desc_t *A, double *result);

/* ---- core_dplghpl.c: HPL's matrix generator ----------------------------------------------
 * Entry (r, c) of the m x n HPL matrix of seed `seed` (HPL's 31-bit linear congruential
 * generator, the matrix generated column by column): the same numbers HPL_pdmatgen produces
 * on a 1 x 1 grid.  HPL's system is the n x (n+1) matrix [A b] with seed 100. */
double hyt_hpl_entry(int64_t m, int64_t r, int64_t c, int seed);
/* (hyt_core_dplghpl, the generator on a block: hyt_core_seq.h) */
/* Generates the HPL matrix into A (columns col0.. of the m-row global matrix), as tasks. */
int hyt_dplghpl_tile_async(hyt_sequence_t *seq, const hyt_desc_t *A, int64_t col0, int seed);

/* ---- core_dgemv.c: residual r = b - A x on tiles -----------------------------------------
 * r (length m, contiguous) = beta*r + alpha*A*x with one task per tile row (x length n). */
int hyt_dgemv_tile_async(hyt_sequence_t *seq, double alpha, const hyt_desc_t *A, const double *x,
                         double beta, double *r);

#ifdef __cplusplus
}
#endif
#endif
