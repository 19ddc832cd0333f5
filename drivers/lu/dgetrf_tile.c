/* LU on tile matrices: synchronous and asynchronous; CPU-only or hybrid with devices. */
#include "drv_internal.h"
#include "hyt_hybrid.h"
#include "tiles_internal.h"

#include <stdlib.h>

/* A LAPACK array factored with CPU panels on devices goes through a CCRB copy (the devices
 * copy whole tiles), freed at the end of the sequence. */
static int hybrid_via_copy(hyt_sequence_t *seq, hyt_desc_t *A, int *ipiv, int *info,
                           const hyt_lu_params_t *p)
{
    hyt_desc_t *T;
    int rc = hyt_tile_copy_create(hyt_sequence_context(seq), A->m, A->n, A->nb, &T);
    if (rc)
        return rc;
    rc = hyt_tiles_convert_async(seq, A->mat, A->lda, T, 1);
    if (!rc)
        rc = hyt_pdgetrf_hybrid(seq, T, ipiv, info, p);
    if (!rc)
        rc = hyt_tiles_convert_async(seq, A->mat, A->lda, T, 0);
    int rc2 = hyt_tile_copy_release(seq, T);
    return rc ? rc : rc2;
}

int hyt_drv_check_lu(const char *func, int i, const hyt_desc_t *A, const int *ipiv)
{
    if (!A)
        return hyt_error_arg(-i, func, i, "A", "is NULL");
    if (A->m < 0 || A->n < 0 || A->nb < 1)
        return hyt_error_arg(-i, func, i, "A", "is not a matrix descriptor (m %d, n %d, nb %d)",
                             A->m, A->n, A->nb);
    if (A->m && A->n && !A->mat)
        return hyt_error_arg(-i, func, i, "A", "has no storage (A->mat is NULL)");
    if (A->m && A->n && !ipiv)
        return hyt_error_arg(-(i + 1), func, i + 1, "ipiv", "is NULL");
    return 0;
}

/* The tasks of the LU (arguments checked) with the parameters given (NULL: the context's). */
static int insert_dgetrf(hyt_sequence_t *seq, hyt_desc_t *A, int *ipiv, int *info,
                         const hyt_lu_params_t *given)
{
    *info = 0;
    hyt_lu_params_t p;
    if (given)
        p = *given;
    else
        hyt_lu_params(hyt_sequence_context(seq), A->m, A->n, &p);
    p.nb = A->nb; /* the matrix decides */
    if (p.ndevices == 0)
        return hyt_pdgetrf(seq, A, ipiv, info, &p);
    if (A->layout == HYT_LAYOUT_CCRB)
        return hyt_pdgetrf_hybrid(seq, A, ipiv, info, &p);
    return hybrid_via_copy(seq, A, ipiv, info, &p);
}

int hyt_dgetrf_tile_async(hyt_sequence_t *seq, hyt_desc_t *A, int *ipiv, int *info)
{
    static const char func[] = "hyt_dgetrf_tile_async";
    hyt_error_clear();
    int rc = seq ? hyt_drv_check_lu(func, 1, A, ipiv)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", func);
    if (!rc && !info)
        rc = hyt_error_arg(-3, func, 3, "info", "is NULL");
    if (!rc)
        rc = insert_dgetrf(seq, A, ipiv, info, NULL);
    return hyt_error_return(func, rc);
}

int hyt_drv_dgetrf_params(hyt_context_t *ctx, hyt_desc_t *A, int *ipiv,
                          const hyt_lu_params_t *p)
{
    hyt_sequence_t *seq;
    int info = 0, rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    rc = hyt_sequence_finish(seq, insert_dgetrf(seq, A, ipiv, &info, p));
    return rc ? rc : info;
}

int hyt_drv_dgetrf(hyt_context_t *ctx, hyt_desc_t *A, int *ipiv)
{
    return hyt_drv_dgetrf_params(ctx, A, ipiv, NULL);
}

int hyt_dgetrf_tile(hyt_context_t *ctx, hyt_desc_t *A, int *ipiv)
{
    static const char func[] = "hyt_dgetrf_tile";
    hyt_error_clear();
    int rc = hyt_drv_check_lu(func, 1, A, ipiv);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = hyt_drv_dgetrf(ctx, A, ipiv);
    return hyt_error_return(func, rc);
}
