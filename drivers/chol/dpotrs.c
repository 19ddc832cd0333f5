/* hyt_dpotrs: solve with a Cholesky factorization in LAPACK layout (in place on B): on the CPU
 * workers, or where the context's Cholesky runs on the devices as that one does
 * (dpotrf_devices.c: there with enough right-hand sides, gpu.solve_min_nrhs, else on the CPUs
 * on a copy of B). */
#include "chol_internal.h"

int hyt_chol_check_solve(const char *func, char uplo, int n, int nrhs, const double *a, int lda,
                         const double *b, int ldb)
{
    int rc = hyt_chol_check_uplo(func, -1, uplo);
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
    if (!b && n > 0 && nrhs > 0)
        return hyt_error_arg(-6, func, 6, "b", "is NULL");
    return hyt_drv_check_ld(func, 7, "ldb", ldb, n);
}

int hyt_drv_dpotrs_lapack(hyt_context_t *ctx, char uplo, int n, int nrhs, const double *a,
                          int lda, double *b, int ldb)
{
    if (n == 0 || nrhs == 0)
        return 0;
    hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
    hyt_chol_params(ctx, n, &p);
    hyt_desc_t A, B;
    int rc = hyt_desc_lapack(n, n, p.nb, (double *)a, lda, &A);
    if (!rc)
        rc = hyt_desc_lapack(n, nrhs, p.nb, b, ldb, &B);
    return rc ? rc : hyt_drv_dpotrs(ctx, uplo, &A, &B);
}

int hyt_dpotrs(hyt_context_t *ctx, char uplo, int n, int nrhs, const double *a, int lda,
               double *b, int ldb)
{
    static const char func[] = "hyt_dpotrs";
    hyt_error_clear();
    int rc = hyt_chol_check_solve(func, uplo, n, nrhs, a, lda, b, ldb);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    const char u = hyt_norm_uplo(uplo);
    if (!rc && n > 0 && hyt_chol_lapack_on_devices(ctx, n))
        rc = hyt_chol_lapack_devices(ctx, 'S', u, n, nrhs, (double *)a, lda, b, ldb, 0, -1,
                                     NULL, NULL);
    else if (!rc)
        rc = hyt_drv_dpotrs_lapack(ctx, u, n, nrhs, a, lda, b, ldb);
    return hyt_error_return(func, rc);
}
