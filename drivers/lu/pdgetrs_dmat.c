/*
 * The solve with an LU factorization held in a device matrix (hyt_dgetrf_dmat), on the
 * devices that hold B: inserts tasks only.
 *
 *   trans = N:  B = inv(U) inv(L) P B       swaps, forward sweep with L, backward with U
 *   trans = T:  B = P^T inv(L^T) inv(U^T) B forward sweep with U^T, backward with L^T, swaps
 *                                           in reverse order
 *
 * The sweeps (L unit) and their slots are the shared triangular solve's (drivers/dmat_trs.c);
 * the interchanges are a task of their own on each of B's devices (gpu_dgetrs_dmat.c).
 */
#include "drv_internal.h"
#include "hyt_hybrid.h"

#include <stdlib.h>

/* Device g's interchanges of B's columns (reverse: P^T).  They wait for the sweeps'
 * dependencies (B's columns, and the factorization's last task, which writes every column
 * token of A) and read every step's pivots (their keys, hyt_piv_keys) when they run: a tile
 * factorization inserted before in the same sequence writes them (the CPU solve's swaps wait
 * for them the same way). */
static int insert_laswp(hyt_sequence_t *seq, hyt_dmat_trs_t *s, int g, const hyt_dmat_t *A,
                        const int *ipiv, const hyt_dmat_t *B, int reverse)
{
    const hyt_dep_t fact = {hyt_dmat_col_key(A, 0), HYT_READ};
    const hyt_dep_t *deps;
    const int nd = hyt_dmat_trs_deps(s, g, fact, &deps), kt = A->nt;
    const void **keys = hyt_piv_keys(ipiv, kt, A->nb);
    hyt_dep_t *all = keys ? malloc((size_t)(nd + kt) * sizeof *all) : NULL;
    for (int i = 0; all && i < nd + kt; i++)
        all[i] = i < nd ? deps[i] : (hyt_dep_t){keys[i - nd], HYT_READ};
    free(keys);
    if (!all)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    int rc = hyt_insert_gpu_dmat_laswp(seq, (hyt_tag_t){0, -1, -1, g},
                                       hyt_context_device(hyt_sequence_context(seq), g),
                                       B->cols[g], B->colsz,
                                       B->ncols[g], A->nb, A->n, ipiv, hyt_dmat_trs_dpiv(s, g),
                                       hyt_dmat_trs_laswp_work(s, g), reverse, all, nd + kt);
    free(all);
    return rc;
}

int hyt_pdgetrs_dmat(hyt_sequence_t *seq, char trans, const hyt_dmat_t *A, const int *ipiv,
                     hyt_dmat_t *B)
{
    const int ndev = A->ndev, n = A->n;
    if (n == 0 || B->n == 0)
        return HYT_SUCCESS;
    hyt_dmat_trs_t *s;
    int rc = hyt_dmat_trs_open(seq, A, B, 1, &s);
    if (rc)
        return rc;

    // per device of B: swaps, the two sweeps (and the swaps in reverse for trans = T)
    for (int g = 0; g < ndev && !rc; g++) {
        if (!B->ncols[g])
            continue;
        if (trans == 'N') {
            rc = insert_laswp(seq, s, g, A, ipiv, B, 0);
            if (!rc)
                rc = hyt_dmat_trs_sweep(seq, s, g, 'L', 'N', 'U');
            if (!rc)
                rc = hyt_dmat_trs_sweep(seq, s, g, 'U', 'N', 'N');
        } else {
            rc = hyt_dmat_trs_sweep(seq, s, g, 'U', 'T', 'N');
            if (!rc)
                rc = hyt_dmat_trs_sweep(seq, s, g, 'L', 'T', 'U');
            if (!rc)
                rc = insert_laswp(seq, s, g, A, ipiv, B, 1);
        }
    }
    return hyt_dmat_trs_close(seq, s, rc);
}
