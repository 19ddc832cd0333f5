/* Cholesky factorization on tile matrices (CCRB or a LAPACK view): asynchronous and
 * synchronous; on the CPUs, or on a context with devices the hybrid (CPU panels), or with
 * chol.panel = gpu set GPU panels on the devices (pdpotrf_hybrid.c). */
#include "chol_internal.h"

#include <string.h>

int hyt_chol_insert_tile(hyt_sequence_t *seq, char uplo, hyt_desc_t *A, int *info)
{
    *info = 0;
    hyt_context_t *ctx = hyt_sequence_context(seq);
    hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
    p.nb = A->nb; /* the matrix decides */
    /* a tile matrix: the hybrid with devices, whatever its size (auto), or GPU panels when
     * asked for (not yet measured against the hybrid on tile matrices: not the default) */
    p.panel = !strcmp(hyt_config_get(hyt_context_config(ctx), "chol.panel", NULL), "gpu") ? 'g'
                                                                                        : 'c';
    hyt_chol_params(ctx, A->n, &p);
    return hyt_chol_insert(seq, uplo, A, info, &p);
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
        rc = hyt_chol_insert_tile(seq, hyt_norm_uplo(uplo), A, info);
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
        rc = hyt_sequence_finish(seq, hyt_chol_insert_tile(seq, hyt_norm_uplo(uplo), A, &info));
    return hyt_error_return(func, rc ? rc : info);
}
