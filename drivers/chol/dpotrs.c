/* hyt_dpotrs: solve with a Cholesky factorization in LAPACK layout (in place on B). */
#include "chol_internal.h"

int hyt_chol_solve_args(char uplo, int n, int nrhs, const double *a, int lda, const double *b,
                        int ldb)
{
    const int n1 = n > 1 ? n : 1;
    return !hyt_norm_uplo(uplo)         ? 1
           : n < 0                      ? 2
           : nrhs < 0                   ? 3
           : !a && n > 0                ? 4
           : lda < n1                   ? 5
           : !b && n > 0 && nrhs > 0    ? 6
           : ldb < n1                   ? 7
                                        : 0;
}

int hyt_dpotrs(hyt_context_t *ctx, char uplo, int n, int nrhs, const double *a, int lda,
               double *b, int ldb)
{
    int pos = hyt_chol_solve_args(uplo, n, nrhs, a, lda, b, ldb);
    if (pos)
        return -pos;
    if (!ctx)
        return hyt_error(HYT_ERR_INVALID, "hyt_dpotrs: NULL context");
    if (n == 0 || nrhs == 0)
        return 0;
    hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
    hyt_chol_params(ctx, n, &p);
    hyt_desc_t A, B;
    int rc = hyt_desc_lapack(n, n, p.nb, (double *)a, lda, &A);
    if (!rc)
        rc = hyt_desc_lapack(n, nrhs, p.nb, b, ldb, &B);
    if (rc)
        return rc;
    return hyt_dpotrs_tile(ctx, uplo, &A, &B);
}
