/*
 * The tile solve with an LU factorization (P A = L U), as tasks.  Inserts tasks only.
 *   trans = N:  B = inv(U) inv(L) P B      swaps forward, forward solve L, backward solve U
 *   trans = T:  B = P^T inv(L^T) inv(U^T) B forward solve U^T, backward solve L^T, swaps
 *                                           backward
 * One column of tasks per tile column of B, so many right-hand sides solve in parallel.
 */
#include "drv_internal.h"

#include <stdlib.h>

/* One triangular solve with the diagonal-block tiles of A on tile column jb of B, in place:
 * op(T) X = B(:, jb) with T the unit-lower (L) or the upper (U) factor and op given by trans.
 * Forward (k up, GEMM updates below) for L and U^T, backward (k down, updates above) for U and
 * L^T; the earlier steps of the sweep run at higher priority. */
static int insert_sweep(hyt_sequence_t *seq, const hyt_desc_t *A, const hyt_desc_t *B, int jb,
                        char uplo, char trans)
{
    const int kt = A->mt, ldA = hyt_tile_ld(A), ldB = hyt_tile_ld(B), nbj = hyt_tile_nb(B, jb);
    const int forward = (uplo == 'L') == (trans == 'N');
    const char diag = uplo == 'L' ? 'U' : 'N';
    int rc = 0;
    for (int s = 0; s < kt && !rc; s++) {
        const int k = forward ? s : kt - 1 - s, mbk = hyt_tile_mb(A, k);
        hyt_tag_t tag = {forward ? kt - k : k, k, k, jb};
        rc = hyt_insert_dtrsm(seq, tag, 'L', uplo, trans, diag, mbk, nbj, 1.0, hyt_tile(A, k, k),
                              ldA, hyt_tile(B, k, jb), ldB);
        /* (op(T))_ik is T_ik, or T_ki transposed */
        for (int i = forward ? k + 1 : 0; i < (forward ? kt : k) && !rc; i++) {
            tag.i = i;
            rc = hyt_insert_dgemm(seq, tag, trans, 'N', hyt_tile_mb(A, i), nbj, mbk, -1.0,
                                  trans == 'N' ? hyt_tile(A, i, k) : hyt_tile(A, k, i), ldA,
                                  hyt_tile(B, k, jb), ldB, 1.0, hyt_tile(B, i, jb), ldB);
        }
    }
    return rc;
}

int hyt_pdgetrs(hyt_sequence_t *seq, char trans, const hyt_desc_t *A, const int *ipiv,
                const hyt_desc_t *B)
{
    const int nb = A->nb, kt = A->mt;
    const int n = A->n;
    if (kt == 0 || B->nt == 0)
        return HYT_SUCCESS;
    const void **piv_keys = hyt_piv_keys(ipiv, kt, nb);
    if (!piv_keys)
        return HYT_ERR_NOMEM;
    int rc = 0;
    for (int jb = 0; jb < B->nt && !rc; jb++) {
        if (trans == 'N') {
            /* P B, then L y = P b (forward), then U x = y (backward) */
            rc = hyt_insert_dlaswp(seq, (hyt_tag_t){0, -1, -1, jb}, B, jb, jb + 1, 0, kt, ipiv,
                                   n, 1, piv_keys);
            if (!rc)
                rc = insert_sweep(seq, A, B, jb, 'L', 'N');
            if (!rc)
                rc = insert_sweep(seq, A, B, jb, 'U', 'N');
        } else {
            /* U^T y = b (forward), L^T z = y (backward), then x = P^T z: the interchanges in
             * reverse order */
            rc = insert_sweep(seq, A, B, jb, 'U', 'T');
            if (!rc)
                rc = insert_sweep(seq, A, B, jb, 'L', 'T');
            if (!rc)
                rc = hyt_insert_dlaswp(seq, (hyt_tag_t){0, -1, -1, jb}, B, jb, jb + 1, 0, kt,
                                       ipiv, n, -1, piv_keys);
        }
    }
    free(piv_keys);
    return rc;
}
