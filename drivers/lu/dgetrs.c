/* hyt_dgetrs: solve with an LU factorization in LAPACK layout (in place on the arrays). */
#include "drv_internal.h"

int hyt_dgetrs(hyt_context_t *ctx, char trans, int n, int nrhs, const double *a, int lda,
               const int *ipiv, double *b, int ldb)
{
    char t = hyt_norm_trans(trans);
    if (!t)
        return -1;
    if (n < 0)
        return -2;
    if (nrhs < 0)
        return -3;
    if (!a && n > 0)
        return -4;
    if (lda < (n > 1 ? n : 1))
        return -5;
    if (!ipiv && n > 0)
        return -6;
    if (!b && n > 0 && nrhs > 0)
        return -7;
    if (ldb < (n > 1 ? n : 1))
        return -8;
    if (!ctx)
        return hyt_error(HYT_ERR_INVALID, "hyt_dgetrs: NULL context");
    if (n == 0 || nrhs == 0)
        return 0;
    hyt_lu_params_t p;
    hyt_lu_params(ctx, n, n, &p);
    hyt_desc_t A, B;
    int rc = hyt_desc_lapack(n, n, p.nb, (double *)a, lda, &A);
    if (!rc)
        rc = hyt_desc_lapack(n, nrhs, p.nb, b, ldb, &B);
    if (rc)
        return rc;
    return hyt_dgetrs_tile(ctx, t, &A, ipiv, &B);
}
