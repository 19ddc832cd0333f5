/* Solves with a tile LU factorization: synchronous and asynchronous. */
#include "drv_internal.h"

#include <ctype.h>

int hyt_drv_check_trans(const char *func, int i, char trans)
{
    if (hyt_norm_trans(trans))
        return 0;
    if (isprint((unsigned char)trans))
        return hyt_error_arg(-i, func, i, "trans", "is '%c', must be 'N', 'T' or 'C'", trans);
    return hyt_error_arg(-i, func, i, "trans", "is character %d, must be 'N', 'T' or 'C'",
                         (unsigned char)trans);
}

int hyt_drv_check_ld(const char *func, int i, const char *name, int ld, int rows)
{
    int min = rows > 1 ? rows : 1;
    if (ld >= min)
        return 0;
    return hyt_error_arg(-i, func, i, name, "is %d, must be >= max(1, %d)", ld, rows);
}

int hyt_drv_check_solve(const char *func, int i, const hyt_desc_t *A, const int *ipiv,
                        const hyt_desc_t *B)
{
    int rc = hyt_drv_check_lu(func, i, A, ipiv);
    if (rc)
        return rc;
    if (A->m != A->n)
        return hyt_error_arg(-i, func, i, "A", "is %d x %d, must be square", A->m, A->n);
    int b = i + 2;
    if (!B)
        return hyt_error_arg(-b, func, b, "B", "is NULL");
    if (B->m < 0 || B->n < 0 || B->nb < 1)
        return hyt_error_arg(-b, func, b, "B", "is not a matrix descriptor (m %d, n %d, nb %d)",
                             B->m, B->n, B->nb);
    if (B->m != A->n)
        return hyt_error_arg(-b, func, b, "B", "has %d rows, A has %d", B->m, A->n);
    if (B->nb != A->nb)
        return hyt_error_arg(-b, func, b, "B", "has tile size %d, A has %d", B->nb, A->nb);
    if (B->m && B->n && !B->mat)
        return hyt_error_arg(-b, func, b, "B", "has no storage (B->mat is NULL)");
    return 0;
}

int hyt_dgetrs_tile_async(hyt_sequence_t *seq, char trans, const hyt_desc_t *A,
                          const int *ipiv, hyt_desc_t *B)
{
    static const char func[] = "hyt_dgetrs_tile_async";
    hyt_error_clear();
    int rc = seq ? hyt_drv_check_trans(func, 1, trans)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", func);
    if (!rc)
        rc = hyt_drv_check_solve(func, 2, A, ipiv, B);
    if (!rc)
        rc = hyt_pdgetrs(seq, hyt_norm_trans(trans), A, ipiv, B);
    return hyt_error_return(func, rc);
}

int hyt_drv_dgetrs(hyt_context_t *ctx, char trans, const hyt_desc_t *A, const int *ipiv,
                   hyt_desc_t *B)
{
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    return hyt_sequence_finish(seq, hyt_pdgetrs(seq, hyt_norm_trans(trans), A, ipiv, B));
}

int hyt_dgetrs_tile(hyt_context_t *ctx, char trans, const hyt_desc_t *A, const int *ipiv,
                    hyt_desc_t *B)
{
    static const char func[] = "hyt_dgetrs_tile";
    hyt_error_clear();
    int rc = hyt_drv_check_trans(func, 1, trans);
    if (!rc)
        rc = hyt_drv_check_solve(func, 2, A, ipiv, B);
    if (!rc && !ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = hyt_drv_dgetrs(ctx, trans, A, ipiv, B);
    return hyt_error_return(func, rc);
}
