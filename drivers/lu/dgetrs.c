/* hyt_dgetrs: solve with an LU factorization in LAPACK layout (in place on the arrays). */
#include "drv_internal.h"

static const char func[] = "hyt_dgetrs";

static int check_args(char trans, int n, int nrhs, const double *a, int lda, const int *ipiv,
                      const double *b, int ldb)
{
    int rc = hyt_drv_check_trans(func, 1, trans);
    if (rc)
        return rc;
    if (n < 0)
        return hyt_error_arg(-2, func, 2, "n", "is %d, must be >= 0", n);
    if (nrhs < 0)
        return hyt_error_arg(-3, func, 3, "nrhs", "is %d, must be >= 0", nrhs);
    if (!a && n > 0)
        return hyt_error_arg(-4, func, 4, "a", "is NULL");
    if ((rc = hyt_drv_check_ld(func, 5, "lda", lda, n)))
        return rc;
    if (!ipiv && n > 0)
        return hyt_error_arg(-6, func, 6, "ipiv", "is NULL");
    if (!b && n > 0 && nrhs > 0)
        return hyt_error_arg(-7, func, 7, "b", "is NULL");
    return hyt_drv_check_ld(func, 8, "ldb", ldb, n);
}

int hyt_dgetrs(hyt_context_t *ctx, char trans, int n, int nrhs, const double *a, int lda,
               const int *ipiv, double *b, int ldb)
{
    hyt_error_clear();
    int rc = check_args(trans, n, nrhs, a, lda, ipiv, b, ldb);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = hyt_drv_lapack_call(ctx, 's', hyt_norm_trans(trans) == 'N' ? 'N' : 'T', n, n, nrhs,
                                 (double *)a, lda, (int *)ipiv, b, ldb, NULL);
    return hyt_error_return(func, rc);
}

int hyt_drv_dgetrs_lapack(hyt_context_t *ctx, char trans, int n, int nrhs, const double *a,
                          int lda, const int *ipiv, double *b, int ldb)
{
    if (n == 0 || nrhs == 0)
        return 0;
    /* the CPU solve's own tile size, also in a context with devices (where hyt_lu_params
     * gives the devices' 512 or 1024) and where the CPU factorization takes larger tiles */
    const int nb = hyt_lu_cpu_solve_nb(ctx, n);
    hyt_desc_t A, B;
    int rc = hyt_desc_lapack(n, n, nb, (double *)a, lda, &A);
    if (!rc)
        rc = hyt_desc_lapack(n, nrhs, nb, b, ldb, &B);
    if (rc)
        return rc;
    return hyt_drv_dgetrs(ctx, trans, &A, ipiv, &B);
}
