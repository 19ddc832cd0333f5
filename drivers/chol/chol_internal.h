/* Internal interfaces of the Cholesky drivers (drivers/chol/). */
#ifndef HYT_CHOL_INTERNAL_H
#define HYT_CHOL_INTERNAL_H

#include "drv_internal.h"

/* The Cholesky's tunables.  A caller sets the fields it wants and leaves the others "auto"
 * (nb <= 0, lookahead < 0); hyt_chol_params fills those in for an n x n problem on ctx's
 * workers.  (Configuration keys chol.* are to come; until then these are the only way in.) */
typedef struct hyt_chol_params {
    int nb;         /* tile size of a LAPACK-layout matrix (a tile matrix has its own) */
    int lookahead;  /* tile columns right of the panel updated at high priority, 0.. */
} hyt_chol_params_t;
#define HYT_CHOL_PARAMS_AUTO ((hyt_chol_params_t){0, -1})
void hyt_chol_params(hyt_context_t *ctx, int n, hyt_chol_params_t *p);

/* hyt_dpotrf (uplo 'L' or 'U', arguments checked) with the caller's parameters, the "auto"
 * ones chosen as hyt_dpotrf chooses them: for tests and benchmarks. */
int hyt_dpotrf_params(hyt_context_t *ctx, char uplo, int n, double *a, int lda,
                      const hyt_chol_params_t *p);

/* LAPACK's LSAME for uplo: 'L' or 'U' in either case, else 0. */
char hyt_norm_uplo(char uplo);

/* The tile Cholesky loop nest (pdpotrf.c): A n x n (CCRB or a LAPACK view) factored in place,
 * the uplo triangle referenced.  *info must be 0 on entry; it becomes LAPACK's INFO, and the
 * tasks after the first failing diagonal tile do nothing.  Inserts tasks only. */
int hyt_pdpotrf(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, int *info,
                const hyt_chol_params_t *p);

/* The tile solve with a Cholesky factor (pdpotrs.c): B (n x nrhs, A's nb) = inv(A) B.  With
 * info (not NULL) the solve waits for every task that writes *info (the factorization inserted
 * before it) and does nothing when *info is nonzero: B is then untouched. */
int hyt_pdpotrs(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, const hyt_desc_t *B,
                const int *info);

/* The argument checks of hyt_dpotrs and hyt_dposv (the same positions, LAPACK's order): 0, or
 * the position of the first bad argument. */
int hyt_chol_solve_args(char uplo, int n, int nrhs, const double *a, int lda, const double *b,
                        int ldb);

/* Argument checks of the tile routines: 0, or HYT_ERR_INVALID with a message naming fn. */
int hyt_chol_check_tiles(const char *fn, const hyt_desc_t *A, const hyt_desc_t *B);

#endif
