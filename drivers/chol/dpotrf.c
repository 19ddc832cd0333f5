/* hyt_dpotrf: Cholesky factorization of a matrix in LAPACK layout, synchronous, with LAPACK's
 * argument checks.  Works in place on the array (a "tile" is an nb x nb block with leading
 * dimension lda); only the uplo triangle is referenced. */
#include "chol_internal.h"

int hyt_dpotrf(hyt_context_t *ctx, char uplo, int n, double *a, int lda)
{
    static const char func[] = "hyt_dpotrf";
    hyt_error_clear();
    int rc = hyt_chol_check_uplo(func, -1, uplo);
    if (!rc && n < 0)
        rc = hyt_error_arg(-2, func, 2, "n", "is %d, must be >= 0", n);
    if (!rc && !a && n > 0)
        rc = hyt_error_arg(-3, func, 3, "a", "is NULL");
    if (!rc)
        rc = hyt_drv_check_ld(func, 4, "lda", lda, n);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc && n > 0) {
        hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
        rc = hyt_dpotrf_params(ctx, hyt_norm_uplo(uplo), n, a, lda, &p);
    }
    return hyt_error_return(func, rc);
}

int hyt_dpotrf_params(hyt_context_t *ctx, char uplo, int n, double *a, int lda,
                      const hyt_chol_params_t *params)
{
    hyt_chol_params_t p = *params;
    hyt_chol_params(ctx, n, &p);
    if (p.panel == 'g') /* the caller's nb and lookahead, else the device Cholesky's */
        return hyt_chol_lapack_devices(ctx, 'F', uplo, n, 0, a, lda, NULL, 0, params->nb,
                                       params->lookahead, NULL, NULL);
    hyt_desc_t A;
    hyt_sequence_t *seq;
    int info = 0, rc = hyt_desc_lapack(n, n, p.nb, a, lda, &A);
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    rc = hyt_sequence_finish(seq, hyt_chol_insert(seq, uplo, &A, NULL, &info, &p));
    return rc ? rc : info;
}
