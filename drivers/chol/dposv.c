/* hyt_dposv at the three levels: factor, and solve when A is positive definite (otherwise B
 * is untouched and INFO says which leading minor is not). */
#include "chol_internal.h"

int hyt_dposv(hyt_context_t *ctx, char uplo, int n, int nrhs, double *a, int lda, double *b,
              int ldb)
{
    /* the solve's checks (LAPACK's order), before anything is factored */
    int pos = hyt_chol_solve_args(uplo, n, nrhs, a, lda, b, ldb);
    if (pos)
        return -pos;
    int info = hyt_dpotrf(ctx, uplo, n, a, lda);
    if (info != 0)
        return info;
    return hyt_dpotrs(ctx, uplo, n, nrhs, a, lda, b, ldb);
}

int hyt_dposv_tile_async(hyt_sequence_t *seq, char uplo, hyt_desc_t *A, hyt_desc_t *B,
                         int *info)
{
    if (!B)
        return hyt_error(HYT_ERR_INVALID, "hyt_dposv_tile_async: NULL argument");
    int rc = hyt_chol_check_tiles("hyt_dposv_tile_async", A, B);
    if (!rc)
        rc = hyt_dpotrf_tile_async(seq, uplo, A, info);
    /* the solve waits for the final INFO and does nothing when it is nonzero */
    return rc ? rc : hyt_pdpotrs(seq, hyt_norm_uplo(uplo), A, B, info);
}

int hyt_dposv_tile(hyt_context_t *ctx, char uplo, hyt_desc_t *A, hyt_desc_t *B)
{
    hyt_sequence_t *seq;
    int info = 0, rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    rc = hyt_sequence_finish(seq, hyt_dposv_tile_async(seq, uplo, A, B, &info));
    return rc ? rc : info;
}
