/* Cholesky factorization on tile matrices (CCRB or a LAPACK view): asynchronous and
 * synchronous; on the CPUs, or hybrid on a context with devices (pdpotrf_hybrid.c). */
#include "chol_internal.h"

int hyt_dpotrf_tile_async(hyt_sequence_t *seq, char uplo, hyt_desc_t *A, int *info)
{
    const char u = hyt_norm_uplo(uplo);
    if (!u)
        return hyt_error(HYT_ERR_INVALID, "hyt_dpotrf_tile_async: uplo '%c'", uplo);
    if (!seq || !info)
        return hyt_error(HYT_ERR_INVALID, "hyt_dpotrf_tile_async: NULL argument");
    int rc = hyt_chol_check_tiles("hyt_dpotrf_tile_async", A, NULL);
    if (rc)
        return rc;
    *info = 0;
    hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
    p.nb = A->nb; /* the matrix decides */
    hyt_chol_params(hyt_sequence_context(seq), A->n, &p);
    return hyt_chol_insert(seq, u, A, info, &p);
}

int hyt_dpotrf_tile(hyt_context_t *ctx, char uplo, hyt_desc_t *A)
{
    hyt_sequence_t *seq;
    int info = 0, rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    rc = hyt_sequence_finish(seq, hyt_dpotrf_tile_async(seq, uplo, A, &info));
    return rc ? rc : info;
}
