/* hyt_dgesv / hyt_dgesv_tile: factor, and solve when the factorization is nonsingular. */
#include "drv_internal.h"

int hyt_dgesv(hyt_context_t *ctx, int n, int nrhs, double *a, int lda, int *ipiv, double *b,
              int ldb)
{
    if (n < 0)
        return -1;
    if (nrhs < 0)
        return -2;
    if (!a && n > 0)
        return -3;
    if (lda < (n > 1 ? n : 1))
        return -4;
    if (!ipiv && n > 0)
        return -5;
    if (!b && n > 0 && nrhs > 0)
        return -6;
    if (ldb < (n > 1 ? n : 1))
        return -7;
    int info = hyt_dgetrf(ctx, n, n, a, lda, ipiv);
    if (info != 0)
        return info;
    return hyt_dgetrs(ctx, 'N', n, nrhs, a, lda, ipiv, b, ldb);
}

int hyt_dgesv_tile(hyt_context_t *ctx, hyt_desc_t *A, int *ipiv, hyt_desc_t *B)
{
    int info = hyt_dgetrf_tile(ctx, A, ipiv);
    if (info != 0)
        return info;
    return hyt_dgetrs_tile(ctx, 'N', A, ipiv, B);
}
