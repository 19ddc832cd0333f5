/* hyt_dposv at the three levels: factor, and solve when A is positive definite (otherwise B
 * is untouched and INFO says which leading minor is not).  The LAPACK-layout call with GPU
 * panels factors and solves on the devices (dpotrf_devices.c), else it factors as hyt_dpotrf
 * and solves as hyt_dpotrs. */
#include "chol_internal.h"

int hyt_dposv(hyt_context_t *ctx, char uplo, int n, int nrhs, double *a, int lda, double *b,
              int ldb)
{
    static const char func[] = "hyt_dposv";
    hyt_error_clear();
    /* the solve's checks (LAPACK's order), before anything is factored */
    int rc = hyt_chol_check_solve(func, uplo, n, nrhs, a, lda, b, ldb);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    const char u = hyt_norm_uplo(uplo);
    if (!rc && n > 0 && hyt_chol_lapack_on_devices(ctx, n))
        return hyt_error_return(func, hyt_chol_lapack_devices(ctx, 'V', u, n, nrhs, a, lda, b,
                                                              ldb, 0, -1, NULL, NULL));
    if (!rc && n > 0) {
        hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
        rc = hyt_dpotrf_params(ctx, u, n, a, lda, &p); /* INFO > 0: no solve */
    }
    if (!rc)
        rc = hyt_drv_dpotrs_lapack(ctx, u, n, nrhs, a, lda, b, ldb);
    return hyt_error_return(func, rc);
}

/* The factorization and the solve in one sequence (arguments checked): the solve waits for
 * the final INFO and does nothing when it is nonzero; with GPU panels it runs on the devices,
 * where the factor is. */
static int insert_dposv(hyt_sequence_t *seq, char uplo, hyt_desc_t *A, hyt_desc_t *B,
                        int *info)
{
    return hyt_chol_insert_tile(seq, uplo, A, B, info);
}

int hyt_dposv_tile_async(hyt_sequence_t *seq, char uplo, hyt_desc_t *A, hyt_desc_t *B,
                         int *info)
{
    static const char func[] = "hyt_dposv_tile_async";
    hyt_error_clear();
    int rc = seq ? hyt_chol_check_tiles(func, uplo, A, 1, B)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", func);
    if (!rc && !info)
        rc = hyt_error_arg(-4, func, 4, "info", "is NULL");
    if (!rc)
        rc = insert_dposv(seq, hyt_norm_uplo(uplo), A, B, info);
    return hyt_error_return(func, rc);
}

int hyt_dposv_tile(hyt_context_t *ctx, char uplo, hyt_desc_t *A, hyt_desc_t *B)
{
    static const char func[] = "hyt_dposv_tile";
    hyt_error_clear();
    int rc = hyt_chol_check_tiles(func, uplo, A, 1, B);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    hyt_sequence_t *seq;
    int info = 0;
    if (!rc && !(rc = hyt_sequence_create(ctx, &seq)))
        rc = hyt_sequence_finish(seq, insert_dposv(seq, hyt_norm_uplo(uplo), A, B, &info));
    return hyt_error_return(func, rc ? rc : info);
}
