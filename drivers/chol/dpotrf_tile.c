/* Cholesky factorization on tile matrices (CCRB or a LAPACK view): asynchronous and
 * synchronous; on the CPUs, or on a context with devices GPU panels on the devices
 * (chol.panel = gpu, auto with CUDA devices) or the hybrid (CPU panels; pdpotrf_hybrid.c). */
#include "chol_internal.h"

int hyt_chol_insert_tile(hyt_sequence_t *seq, char uplo, hyt_desc_t *A, hyt_desc_t *B,
                         int *info)
{
    *info = 0;
    hyt_context_t *ctx = hyt_sequence_context(seq);
    hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
    p.nb = A->nb; /* the matrix decides */
    /* a tile matrix with devices, whatever its size: GPU panels (auto with CUDA devices: 1.9
     * to 24x faster than the hybrid on one H100, docs/performance.md) or the hybrid */
    p.panel = hyt_chol_panel_gpu(ctx) ? 'g' : 'c';
    hyt_chol_params(ctx, A->n, &p);
    return hyt_chol_insert(seq, uplo, A, B, info, &p);
}

int hyt_dpotrf_tile_async(hyt_sequence_t *seq, char uplo, hyt_desc_t *A, int *info)
{
    static const char func[] = "hyt_dpotrf_tile_async";
    hyt_error_clear();
    int rc = seq ? hyt_chol_check_tiles(func, uplo, A, 0, NULL)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", func);
    if (!rc && !info)
        rc = hyt_error_arg(-3, func, 3, "info", "is NULL");
    if (!rc)
        rc = hyt_chol_insert_tile(seq, hyt_norm_uplo(uplo), A, NULL, info);
    return hyt_error_return(func, rc);
}

int hyt_dpotrf_tile(hyt_context_t *ctx, char uplo, hyt_desc_t *A)
{
    static const char func[] = "hyt_dpotrf_tile";
    hyt_error_clear();
    int rc = hyt_chol_check_tiles(func, uplo, A, 0, NULL);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    hyt_sequence_t *seq;
    int info = 0;
    if (!rc && !(rc = hyt_sequence_create(ctx, &seq)))
        rc = hyt_sequence_finish(seq, hyt_chol_insert_tile(seq, hyt_norm_uplo(uplo), A, NULL,
                                                           &info));
    return hyt_error_return(func, rc ? rc : info);
}
