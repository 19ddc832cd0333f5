/* Solves with a tile Cholesky factorization: asynchronous and synchronous. */
#include "chol_internal.h"

int hyt_dpotrs_tile_async(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, hyt_desc_t *B)
{
    const char u = hyt_norm_uplo(uplo);
    if (!u)
        return hyt_error(HYT_ERR_INVALID, "hyt_dpotrs_tile_async: uplo '%c'", uplo);
    if (!seq || !B)
        return hyt_error(HYT_ERR_INVALID, "hyt_dpotrs_tile_async: NULL argument");
    int rc = hyt_chol_check_tiles("hyt_dpotrs_tile_async", A, B);
    return rc ? rc : hyt_pdpotrs(seq, u, A, B, NULL);
}

int hyt_dpotrs_tile(hyt_context_t *ctx, char uplo, const hyt_desc_t *A, hyt_desc_t *B)
{
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    return hyt_sequence_finish(seq, hyt_dpotrs_tile_async(seq, uplo, A, B));
}
