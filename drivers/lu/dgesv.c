/* hyt_dgesv / hyt_dgesv_tile: factor, and solve when the factorization is nonsingular. */
#include "drv_internal.h"

static const char gesv[] = "hyt_dgesv";

static int check_args(int n, int nrhs, const double *a, int lda, const int *ipiv,
                      const double *b, int ldb)
{
    const char *func = gesv;
    if (n < 0)
        return hyt_error_arg(-1, func, 1, "n", "is %d, must be >= 0", n);
    if (nrhs < 0)
        return hyt_error_arg(-2, func, 2, "nrhs", "is %d, must be >= 0", nrhs);
    if (!a && n > 0)
        return hyt_error_arg(-3, func, 3, "a", "is NULL");
    int rc = hyt_drv_check_ld(func, 4, "lda", lda, n);
    if (rc)
        return rc;
    if (!ipiv && n > 0)
        return hyt_error_arg(-5, func, 5, "ipiv", "is NULL");
    if (!b && n > 0 && nrhs > 0)
        return hyt_error_arg(-6, func, 6, "b", "is NULL");
    return hyt_drv_check_ld(func, 7, "ldb", ldb, n);
}

int hyt_dgesv(hyt_context_t *ctx, int n, int nrhs, double *a, int lda, int *ipiv, double *b,
              int ldb)
{
    hyt_error_clear();
    int rc = check_args(n, nrhs, a, lda, ipiv, b, ldb);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", gesv);
    if (!rc && n > 0)
        rc = hyt_drv_lapack_call(ctx, 'v', 'N', n, n, nrhs, a, lda, ipiv, b, ldb, NULL);
    return hyt_error_return(gesv, rc);
}

int hyt_dgesv_tile(hyt_context_t *ctx, hyt_desc_t *A, int *ipiv, hyt_desc_t *B)
{
    static const char func[] = "hyt_dgesv_tile";
    hyt_error_clear();
    int rc = hyt_drv_check_solve(func, 1, A, ipiv, B);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = hyt_drv_dgetrf(ctx, A, ipiv);
    if (!rc)
        rc = hyt_drv_dgetrs(ctx, 'N', A, ipiv, B);
    return hyt_error_return(func, rc);
}
