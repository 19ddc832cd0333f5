/* hyt_dgetrf: LU of a matrix in LAPACK layout, synchronous, with LAPACK's argument checks. */
#include "drv_internal.h"

#include <stdlib.h>

static const char func[] = "hyt_dgetrf";

static int check_args(int m, int n, const double *a, int lda, const int *ipiv)
{
    if (m < 0)
        return hyt_error_arg(-1, func, 1, "m", "is %d, must be >= 0", m);
    if (n < 0)
        return hyt_error_arg(-2, func, 2, "n", "is %d, must be >= 0", n);
    if (!a && m > 0 && n > 0)
        return hyt_error_arg(-3, func, 3, "a", "is NULL");
    int rc = hyt_drv_check_ld(func, 4, "lda", lda, m);
    if (!rc && !ipiv && m > 0 && n > 0)
        rc = hyt_error_arg(-5, func, 5, "ipiv", "is NULL");
    return rc;
}

int hyt_dgetrf(hyt_context_t *ctx, int m, int n, double *a, int lda, int *ipiv)
{
    hyt_error_clear();
    int rc = check_args(m, n, a, lda, ipiv);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = hyt_drv_lapack_call(ctx, 'f', 'N', m, n, 0, a, lda, ipiv, NULL, 1, NULL);
    return hyt_error_return(func, rc);
}

int hyt_drv_dgetrf_lapack(hyt_context_t *ctx, int m, int n, double *a, int lda, int *ipiv)
{
    if (m == 0 || n == 0)
        return 0;
    hyt_lu_params_t p;
    hyt_lu_params_lapack(ctx, m, n, &p);
    hyt_desc_t A;
    int rc = hyt_desc_lapack(m, n, p.nb, a, lda, &A);
    if (rc)
        return rc;
    /* On CPUs the factorization works in place on the LAPACK array (a "tile" is an nb x nb
     * block with leading dimension lda); no copy is needed. */
    return hyt_drv_dgetrf_params(ctx, &A, ipiv, &p);
}
