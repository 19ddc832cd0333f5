/* LU on tile matrices: synchronous and asynchronous. */
#include "drv_internal.h"

int hyt_dgetrf_tile_async(hyt_sequence_t *seq, hyt_desc_t *A, int *ipiv, int *info)
{
    if (!seq || !A || !info || ((A->m && A->n) && (!A->mat || !ipiv)))
        return hyt_error(HYT_ERR_INVALID, "hyt_dgetrf_tile_async: NULL argument");
    *info = 0;
    hyt_context_t *ctx = hyt_sequence_context(seq);
    hyt_lu_params_t p;
    hyt_lu_params(ctx, A->m, A->n, &p);
    p.nb = A->nb; /* the matrix decides */
    return hyt_pdgetrf(seq, A, ipiv, info, &p);
}

int hyt_dgetrf_tile(hyt_context_t *ctx, hyt_desc_t *A, int *ipiv)
{
    hyt_sequence_t *seq;
    int info = 0, rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    rc = hyt_sequence_finish(seq, hyt_dgetrf_tile_async(seq, A, ipiv, &info));
    return rc ? rc : info;
}
