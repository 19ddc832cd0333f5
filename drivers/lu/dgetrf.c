/* hyt_dgetrf: LU of a matrix in LAPACK layout, synchronous, with LAPACK's argument checks. */
#include "drv_internal.h"

#include <stdlib.h>

int hyt_dgetrf(hyt_context_t *ctx, int m, int n, double *a, int lda, int *ipiv)
{
    if (m < 0)
        return -1;
    if (n < 0)
        return -2;
    if (!a && m > 0 && n > 0)
        return -3;
    if (lda < (m > 1 ? m : 1))
        return -4;
    if (!ipiv && m > 0 && n > 0)
        return -5;
    if (!ctx)
        return hyt_error(HYT_ERR_INVALID, "hyt_dgetrf: NULL context");
    if (m == 0 || n == 0)
        return 0;

    hyt_lu_params_t p;
    hyt_lu_params(ctx, m, n, &p);
    hyt_desc_t A;
    int rc = hyt_desc_lapack(m, n, p.nb, a, lda, &A);
    if (rc)
        return rc;
    /* On CPUs the factorization works in place on the LAPACK array (a "tile" is an nb x nb
     * block with leading dimension lda); no copy is needed. */
    return hyt_dgetrf_tile(ctx, &A, ipiv);
}
