/* hyt_dpotrf: Cholesky factorization of a matrix in LAPACK layout, synchronous, with LAPACK's
 * argument checks.  Works in place on the array (a "tile" is an nb x nb block with leading
 * dimension lda); only the uplo triangle is referenced. */
#include "chol_internal.h"

int hyt_dpotrf(hyt_context_t *ctx, char uplo, int n, double *a, int lda)
{
    const char u = hyt_norm_uplo(uplo);
    if (!u)
        return -1;
    if (n < 0)
        return -2;
    if (!a && n > 0)
        return -3;
    if (lda < (n > 1 ? n : 1))
        return -4;
    if (!ctx)
        return hyt_error(HYT_ERR_INVALID, "hyt_dpotrf: NULL context");
    if (n == 0)
        return 0;
    hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
    return hyt_dpotrf_params(ctx, u, n, a, lda, &p);
}

int hyt_dpotrf_params(hyt_context_t *ctx, char uplo, int n, double *a, int lda,
                      const hyt_chol_params_t *params)
{
    hyt_chol_params_t p = *params;
    hyt_chol_params(ctx, n, &p);
    hyt_desc_t A;
    hyt_sequence_t *seq;
    int info = 0, rc = hyt_desc_lapack(n, n, p.nb, a, lda, &A);
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    rc = hyt_sequence_finish(seq, hyt_chol_insert(seq, uplo, &A, &info, &p));
    return rc ? rc : info;
}
