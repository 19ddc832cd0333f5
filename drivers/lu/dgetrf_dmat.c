/*
 * The LU and the solve on device matrices (include/hyt_dmat.h), with LAPACK's argument checks:
 * synchronous (hyt_dgetrf_dmat, hyt_dgetrs_dmat, hyt_dgesv_dmat) and asynchronous on a
 * sequence.  The loop nests: hyt_pdgetrf_dmat (pdgetrf_hybrid.c), hyt_pdgetrs_dmat
 * (pdgetrs_dmat.c).
 */
#include "drv_internal.h"
#include "hyt_hybrid.h"

/* dA (argument i): not NULL, of this context; square when asked. */
static int check_dmat(const char *func, int i, const char *name, const hyt_dmat_t *A,
                      const hyt_context_t *ctx, int square)
{
    if (!A)
        return hyt_error_arg(-i, func, i, name, "is NULL");
    if (ctx && A->ctx != ctx)
        return hyt_error_arg(-i, func, i, name, "belongs to another context");
    if (square && A->m != A->n)
        return hyt_error_arg(-i, func, i, name, "is %d x %d, must be square", A->m, A->n);
    return 0;
}

/* A (argument i), ipiv (i + 1) of an LU on the devices. */
static int check_lu(const char *func, int i, const hyt_dmat_t *A, const int *ipiv,
                    const hyt_context_t *ctx)
{
    int rc = check_dmat(func, i, "dA", A, ctx, 0);
    if (!rc && A->m && A->n && !ipiv)
        rc = hyt_error_arg(-(i + 1), func, i + 1, "ipiv", "is NULL");
    return rc;
}

/* A square (argument i), ipiv (i + 1), B (i + 2) with n rows and A's tile size. */
static int check_solve(const char *func, int i, const hyt_dmat_t *A, const int *ipiv,
                       const hyt_dmat_t *B, const hyt_context_t *ctx)
{
    int rc = check_dmat(func, i, "dA", A, ctx, 1);
    if (!rc && A->n && !ipiv)
        rc = hyt_error_arg(-(i + 1), func, i + 1, "ipiv", "is NULL");
    if (!rc)
        rc = check_dmat(func, i + 2, "dB", B, ctx, 0);
    if (!rc && B->m != A->n)
        rc = hyt_error_arg(-(i + 2), func, i + 2, "dB", "has %d rows, A is %d x %d", B->m, A->m,
                           A->n);
    if (!rc && B->nb != A->nb)
        rc = hyt_error_arg(-(i + 2), func, i + 2, "dB", "has tile size %d, A's is %d (create it "
                           "with hyt_dmat_nb(dA))", B->nb, A->nb);
    return rc;
}

static int insert_dgetrf(hyt_sequence_t *seq, hyt_dmat_t *dA, int *ipiv, int *info)
{
    *info = 0;
    if (dA->m == 0 || dA->n == 0)
        return HYT_SUCCESS;
    hyt_lu_params_t p;
    hyt_lu_params(hyt_sequence_context(seq), dA->m, dA->n, &p);
    p.nb = dA->nb; /* the matrix decides */
    return hyt_pdgetrf_dmat(seq, dA, ipiv, info, &p, 0);
}

int hyt_dgetrf_dmat_async(hyt_sequence_t *seq, hyt_dmat_t *dA, int *ipiv, int *info)
{
    static const char func[] = "hyt_dgetrf_dmat_async";
    hyt_error_clear();
    int rc = seq ? check_lu(func, 1, dA, ipiv, hyt_sequence_context(seq))
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", func);
    if (!rc && !info)
        rc = hyt_error_arg(-3, func, 3, "info", "is NULL");
    if (!rc)
        rc = insert_dgetrf(seq, dA, ipiv, info);
    return hyt_error_return(func, rc);
}

static int drv_dgetrf(hyt_context_t *ctx, hyt_dmat_t *dA, int *ipiv)
{
    hyt_sequence_t *seq;
    int info = 0, rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    rc = hyt_sequence_finish(seq, insert_dgetrf(seq, dA, ipiv, &info));
    return rc ? rc : info;
}

int hyt_dgetrf_dmat(hyt_context_t *ctx, hyt_dmat_t *dA, int *ipiv)
{
    static const char func[] = "hyt_dgetrf_dmat";
    hyt_error_clear();
    int rc = ctx ? check_lu(func, 1, dA, ipiv, ctx)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = drv_dgetrf(ctx, dA, ipiv);
    return hyt_error_return(func, rc);
}

int hyt_dgetrs_dmat_async(hyt_sequence_t *seq, char trans, const hyt_dmat_t *dA,
                          const int *ipiv, hyt_dmat_t *dB)
{
    static const char func[] = "hyt_dgetrs_dmat_async";
    hyt_error_clear();
    int rc = seq ? hyt_drv_check_trans(func, 1, trans)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", func);
    if (!rc)
        rc = check_solve(func, 2, dA, ipiv, dB, hyt_sequence_context(seq));
    if (!rc)
        rc = hyt_pdgetrs_dmat(seq, hyt_norm_trans(trans) == 'N' ? 'N' : 'T', dA, ipiv, dB);
    return hyt_error_return(func, rc);
}

static int drv_dgetrs(hyt_context_t *ctx, char trans, const hyt_dmat_t *dA, const int *ipiv,
                      hyt_dmat_t *dB)
{
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    return hyt_sequence_finish(seq, hyt_pdgetrs_dmat(seq, trans, dA, ipiv, dB));
}

int hyt_dgetrs_dmat(hyt_context_t *ctx, char trans, const hyt_dmat_t *dA, const int *ipiv,
                    hyt_dmat_t *dB)
{
    static const char func[] = "hyt_dgetrs_dmat";
    hyt_error_clear();
    int rc = ctx ? hyt_drv_check_trans(func, 1, trans)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = check_solve(func, 2, dA, ipiv, dB, ctx);
    if (!rc)
        rc = drv_dgetrs(ctx, hyt_norm_trans(trans) == 'N' ? 'N' : 'T', dA, ipiv, dB);
    return hyt_error_return(func, rc);
}

int hyt_dgesv_dmat(hyt_context_t *ctx, hyt_dmat_t *dA, int *ipiv, hyt_dmat_t *dB)
{
    static const char func[] = "hyt_dgesv_dmat";
    hyt_error_clear();
    int rc = ctx ? check_solve(func, 1, dA, ipiv, dB, ctx)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = drv_dgetrf(ctx, dA, ipiv);
    if (!rc)
        rc = drv_dgetrs(ctx, 'N', dA, ipiv, dB);
    return hyt_error_return(func, rc);
}
