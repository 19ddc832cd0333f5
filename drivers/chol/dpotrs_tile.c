/* Solves with a tile Cholesky factorization: asynchronous and synchronous; through the
 * devices with GPU panels and enough right-hand sides (dmat_solve.c), else on the CPU
 * workers. */
#include "chol_internal.h"

static int dev_solve(hyt_sequence_t *seq, const hyt_dmat_t *dA, hyt_dmat_t *dB, void *arg)
{
    (void)arg;
    return hyt_pdpotrs_dmat(seq, dA, dB);
}

/* A factor too large for the devices is an error (HYT_ERR_DEVICE_MEMORY, B untouched), as for
 * hyt_dpotrs, not a silent move to the CPU workers. */
static int insert_solve(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, hyt_desc_t *B)
{
    /* as the LAPACK-layout hyt_dpotrs: with chol.panel picking GPU panels */
    hyt_context_t *ctx = hyt_sequence_context(seq);
    if (hyt_dmat_solve_applies(ctx, A, B) && hyt_chol_panel_gpu(ctx))
        return hyt_dmat_solve_tiles(seq, A, uplo, B, 0, dev_solve, NULL);
    return hyt_pdpotrs(seq, uplo, A, B, NULL);
}

int hyt_dpotrs_tile_async(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, hyt_desc_t *B)
{
    static const char func[] = "hyt_dpotrs_tile_async";
    hyt_error_clear();
    int rc = seq ? hyt_chol_check_tiles(func, uplo, A, 1, B)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", func);
    if (!rc)
        rc = insert_solve(seq, hyt_norm_uplo(uplo), A, B);
    return hyt_error_return(func, rc);
}

int hyt_drv_dpotrs(hyt_context_t *ctx, char uplo, const hyt_desc_t *A, hyt_desc_t *B)
{
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    return rc ? rc : hyt_sequence_finish(seq, insert_solve(seq, uplo, A, B));
}

int hyt_dpotrs_tile(hyt_context_t *ctx, char uplo, const hyt_desc_t *A, hyt_desc_t *B)
{
    static const char func[] = "hyt_dpotrs_tile";
    hyt_error_clear();
    int rc = hyt_chol_check_tiles(func, uplo, A, 1, B);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = hyt_drv_dpotrs(ctx, hyt_norm_uplo(uplo), A, B);
    return hyt_error_return(func, rc);
}
