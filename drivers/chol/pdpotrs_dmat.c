/*
 * The solve with a Cholesky factor held in a device matrix (hyt_dpotrf_dmat: L in the lower
 * tiles, not unit), on the devices that hold B: inserts tasks only.
 *
 *   A X = B, A = L L^T:   Y = inv(L) B   forward sweep with L
 *                         X = inv(L^T) Y backward sweep with L^T
 *
 * The sweeps and their slots are the shared triangular solve's (drivers/dmat_trs.c), which
 * reads only A's tiles on and below the diagonal: the strictly upper tiles (what was set
 * there) are never read.  Each sweep's step k waits for A's column k (its token), so the
 * solve may follow the factorization in the same sequence.
 */
#include "chol_internal.h"
#include "hyt_hybrid.h"

int hyt_pdpotrs_dmat(hyt_sequence_t *seq, const hyt_dmat_t *A, hyt_dmat_t *B)
{
    if (A->n == 0 || B->n == 0)
        return HYT_SUCCESS;
    hyt_dmat_trs_t *s;
    int rc = hyt_dmat_trs_open(seq, A, B, 0, &s);
    if (rc)
        return rc;
    for (int g = 0; g < A->ndev && !rc; g++) {
        if (!B->ncols[g])
            continue;
        rc = hyt_dmat_trs_sweep(seq, s, g, 'L', 'N', 'N');
        if (!rc)
            rc = hyt_dmat_trs_sweep(seq, s, g, 'L', 'T', 'N');
    }
    return hyt_dmat_trs_close(seq, s, rc);
}
