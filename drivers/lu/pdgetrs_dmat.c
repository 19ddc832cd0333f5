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
        hyt_device_t *dev = hyt_context_device(hyt_sequence_context(seq), g);
        /* the swaps also wait for the factorization's pivots: its last task (the cleanup)
         * writes every column token of A */
        const hyt_dep_t fact = {hyt_dmat_col_key(A, 0), HYT_READ};
        const hyt_dep_t *deps;
        int nd = hyt_dmat_trs_deps(s, g, fact, &deps);
        hyt_tag_t tag = {0, -1, -1, g};
        if (trans == 'N') {
            rc = hyt_insert_gpu_dmat_laswp(seq, tag, dev, B->cols[g], B->colsz, B->ncols[g],
                                           A->nb, n, ipiv, hyt_dmat_trs_dpiv(s, g),
                                           hyt_dmat_trs_laswp_work(s, g), 0, deps, nd);
            if (!rc)
                rc = hyt_dmat_trs_sweep(seq, s, g, 'L', 'N', 'U');
            if (!rc)
                rc = hyt_dmat_trs_sweep(seq, s, g, 'U', 'N', 'N');
        } else {
            rc = hyt_dmat_trs_sweep(seq, s, g, 'U', 'T', 'N');
            if (!rc)
                rc = hyt_dmat_trs_sweep(seq, s, g, 'L', 'T', 'U');
            nd = hyt_dmat_trs_deps(s, g, fact, &deps);
            if (!rc)
                rc = hyt_insert_gpu_dmat_laswp(seq, tag, dev, B->cols[g], B->colsz,
                                               B->ncols[g], A->nb, n, ipiv,
                                               hyt_dmat_trs_dpiv(s, g),
                                               hyt_dmat_trs_laswp_work(s, g), 1, deps, nd);
        }
    }
    return hyt_dmat_trs_close(seq, s, rc);
}
