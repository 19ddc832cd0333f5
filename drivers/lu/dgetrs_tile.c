/* Solves with a tile LU factorization: synchronous and asynchronous. */
#include "drv_internal.h"

int hyt_dgetrs_tile_async(hyt_sequence_t *seq, char trans, const hyt_desc_t *A,
                          const int *ipiv, hyt_desc_t *B)
{
    char t = hyt_norm_trans(trans);
    if (!t)
        return hyt_error(HYT_ERR_INVALID, "hyt_dgetrs_tile_async: trans '%c'", trans);
    if (!seq || !A || !B || A->m != A->n || B->m != A->n || B->nb != A->nb ||
        (A->n && (!ipiv || !A->mat)) || (B->m && B->n && !B->mat))
        return hyt_error(HYT_ERR_INVALID, "hyt_dgetrs_tile_async: A must be n x n, B "
                                   "n x nrhs with the same tile size");
    return hyt_pdgetrs(seq, t, A, ipiv, B);
}

int hyt_dgetrs_tile(hyt_context_t *ctx, char trans, const hyt_desc_t *A, const int *ipiv,
                    hyt_desc_t *B)
{
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    return hyt_sequence_finish(seq, hyt_dgetrs_tile_async(seq, trans, A, ipiv, B));
}
