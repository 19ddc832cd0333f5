/*
 * The Cholesky factorization of a device matrix (include/hyt_dmat.h), in place on the devices,
 * every step there (GPU panels), and the solve with it: hyt_dpotrf_dmat, hyt_dpotrs_dmat,
 * hyt_dposv_dmat (synchronous) and hyt_dpotrf_dmat_async, hyt_dpotrs_dmat_async (on a
 * sequence), with LAPACK's argument checks and INFO.  The factorization's loop nest is the
 * hybrid Cholesky's in its GPU-panel mode (hyt_pdpotrf_dmat, pdpotrf_hybrid.c); the lookahead
 * is the device Cholesky's (chol.lookahead, else 1: hyt_chol_params_device), the tile size the
 * matrix's.  The solve: hyt_pdpotrs_dmat (pdpotrs_dmat.c).
 */
#include "chol_internal.h"
#include "hyt_hybrid.h"

/* dA (argument 1): not NULL, of this context, square. */
static int check_dmat(const char *func, const hyt_dmat_t *A, const hyt_context_t *ctx)
{
    if (!A)
        return hyt_error_arg(-1, func, 1, "dA", "is NULL");
    if (A->ctx != ctx)
        return hyt_error_arg(-1, func, 1, "dA", "belongs to another context");
    if (A->m != A->n)
        return hyt_error_arg(-1, func, 1, "dA", "is %d x %d, must be square", A->m, A->n);
    return 0;
}

/* dA (argument 1) as above, dB (2) of this context with dA's rows and tile size. */
static int check_solve(const char *func, const hyt_dmat_t *A, const hyt_dmat_t *B,
                       const hyt_context_t *ctx)
{
    int rc = check_dmat(func, A, ctx);
    if (!rc && !B)
        rc = hyt_error_arg(-2, func, 2, "dB", "is NULL");
    if (!rc && B->ctx != ctx)
        rc = hyt_error_arg(-2, func, 2, "dB", "belongs to another context");
    if (!rc && B->m != A->n)
        rc = hyt_error_arg(-2, func, 2, "dB", "has %d rows, A is %d x %d", B->m, A->m, A->n);
    if (!rc && B->nb != A->nb)
        rc = hyt_error_arg(-2, func, 2, "dB", "has tile size %d, A's is %d (create it with "
                           "hyt_dmat_nb(dA))", B->nb, A->nb);
    return rc;
}

static int insert_dpotrf(hyt_sequence_t *seq, hyt_dmat_t *dA, int *info)
{
    *info = 0;
    if (dA->n == 0)
        return HYT_SUCCESS;
    hyt_chol_dev_params_t p = HYT_CHOL_DEV_PARAMS_AUTO;
    p.nb = dA->nb; /* the matrix decides */
    hyt_chol_params_device(hyt_sequence_context(seq), dA->n, &p);
    return hyt_pdpotrf_dmat(seq, dA, info, p.lookahead, NULL);
}

int hyt_dpotrf_dmat_async(hyt_sequence_t *seq, hyt_dmat_t *dA, int *info)
{
    static const char func[] = "hyt_dpotrf_dmat_async";
    hyt_error_clear();
    int rc = seq ? check_dmat(func, dA, hyt_sequence_context(seq))
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", func);
    if (!rc && !info)
        rc = hyt_error_arg(-2, func, 2, "info", "is NULL");
    if (!rc)
        rc = insert_dpotrf(seq, dA, info);
    return hyt_error_return(func, rc);
}

/* The synchronous factorization: an error or INFO. */
static int drv_dpotrf(hyt_context_t *ctx, hyt_dmat_t *dA)
{
    hyt_sequence_t *seq;
    int info = 0, rc = hyt_sequence_create(ctx, &seq);
    if (!rc)
        rc = hyt_sequence_finish(seq, insert_dpotrf(seq, dA, &info));
    return rc ? rc : info;
}

int hyt_dpotrf_dmat(hyt_context_t *ctx, hyt_dmat_t *dA)
{
    static const char func[] = "hyt_dpotrf_dmat";
    hyt_error_clear();
    int rc = ctx ? check_dmat(func, dA, ctx) : hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = drv_dpotrf(ctx, dA);
    return hyt_error_return(func, rc);
}

int hyt_dpotrs_dmat_async(hyt_sequence_t *seq, const hyt_dmat_t *dA, hyt_dmat_t *dB)
{
    static const char func[] = "hyt_dpotrs_dmat_async";
    hyt_error_clear();
    int rc = seq ? check_solve(func, dA, dB, hyt_sequence_context(seq))
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", func);
    if (!rc)
        rc = hyt_pdpotrs_dmat(seq, dA, dB);
    return hyt_error_return(func, rc);
}

static int drv_dpotrs(hyt_context_t *ctx, const hyt_dmat_t *dA, hyt_dmat_t *dB)
{
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    return rc ? rc : hyt_sequence_finish(seq, hyt_pdpotrs_dmat(seq, dA, dB));
}

int hyt_dpotrs_dmat(hyt_context_t *ctx, const hyt_dmat_t *dA, hyt_dmat_t *dB)
{
    static const char func[] = "hyt_dpotrs_dmat";
    hyt_error_clear();
    int rc = ctx ? check_solve(func, dA, dB, ctx)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = drv_dpotrs(ctx, dA, dB);
    return hyt_error_return(func, rc);
}

int hyt_dposv_dmat(hyt_context_t *ctx, hyt_dmat_t *dA, hyt_dmat_t *dB)
{
    static const char func[] = "hyt_dposv_dmat";
    hyt_error_clear();
    int rc = ctx ? check_solve(func, dA, dB, ctx)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = drv_dpotrf(ctx, dA);
    if (!rc) /* INFO > 0: B untouched */
        rc = drv_dpotrs(ctx, dA, dB);
    return hyt_error_return(func, rc);
}
