/* Solves with a tile LU factorization: synchronous and asynchronous; through the devices
 * with GPU panels and enough right-hand sides (dmat_solve.c), else on the CPU workers. */
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

/* Through the devices (dmat_solve.c) as the LAPACK-layout hyt_dgetrs, with GPU panels for the
 * LU (lu.panel); else on the CPU workers.  A factor too large for the devices is an error
 * (HYT_ERR_DEVICE_MEMORY, B untouched), as for hyt_dgetrs. */
static int on_devices(hyt_context_t *ctx, const hyt_desc_t *A, const hyt_desc_t *B)
{
    hyt_lu_params_t p;
    return hyt_dmat_solve_applies(ctx, A, B) && !hyt_lu_params(ctx, A->m, A->n, &p) &&
           p.gpu_panel;
}

typedef struct solve_args {
    char trans;
    const int *ipiv;
} solve_args_t;

static int dev_solve(hyt_sequence_t *seq, const hyt_dmat_t *dA, hyt_dmat_t *dB, void *arg)
{
    const solve_args_t *a = arg;
    return hyt_pdgetrs_dmat(seq, a->trans, dA, a->ipiv, dB);
}

static int insert_solve(hyt_sequence_t *seq, char trans, const hyt_desc_t *A, const int *ipiv,
                        const hyt_desc_t *B)
{
    solve_args_t a = {trans, ipiv};
    if (on_devices(hyt_sequence_context(seq), A, B))
        return hyt_dmat_solve_tiles(seq, A, 'A', B, 1, dev_solve, &a);
    return hyt_pdgetrs(seq, trans, A, ipiv, B);
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
        rc = insert_solve(seq, hyt_norm_trans(trans), A, ipiv, B);
    return hyt_error_return(func, rc);
}

int hyt_drv_dgetrs(hyt_context_t *ctx, char trans, const hyt_desc_t *A, const int *ipiv,
                   hyt_desc_t *B)
{
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    return hyt_sequence_finish(seq, insert_solve(seq, hyt_norm_trans(trans), A, ipiv, B));
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
