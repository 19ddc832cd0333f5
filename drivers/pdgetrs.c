/*
 * The tile solve with an LU factorization (P A = L U), as tasks.  Inserts tasks only.
 *   trans = N:  B = inv(U) inv(L) P B      swaps forward, forward solve L, backward solve U
 *   trans = T:  B = P^T inv(L^T) inv(U^T) B forward solve U^T, backward solve L^T, swaps
 *                                           backward
 * One column of tasks per tile column of B, so many right-hand sides solve in parallel.
 */
#include "drv_internal.h"

#include <stdlib.h>

int hyt_pdgetrs(hyt_sequence_t *seq, char trans, const hyt_desc_t *A, const int *ipiv,
                const hyt_desc_t *B)
{
    const int nb = A->nb, kt = A->mt, ldA = hyt_tile_ld(A), ldB = hyt_tile_ld(B);
    const int n = A->n;
    if (kt == 0 || B->nt == 0)
        return HYT_SUCCESS;
    const void **piv_keys = hyt_piv_keys(ipiv, kt, nb);
    if (!piv_keys)
        return HYT_ERR_NOMEM;
    int rc = 0;
#define TA(i, j) hyt_tile(A, i, j)
#define TB(i, j) hyt_tile(B, i, j)
    for (int jb = 0; jb < B->nt && !rc; jb++) {
        const int nbj = hyt_tile_nb(B, jb);
        if (trans == 'N') {
            // P B
            rc = hyt_insert_dlaswp(seq, (hyt_tag_t){0, -1, -1, jb}, B, jb, 0, kt, ipiv, n, 1,
                                   piv_keys);
            // L y = P b, forward
            for (int k = 0; k < kt && !rc; k++) {
                int mbk = hyt_tile_mb(A, k);
                hyt_tag_t tag = {kt - k, k, k, jb};
                rc = hyt_insert_dtrsm(seq, tag, 'L', 'L', 'N', 'U', mbk, nbj, 1.0, TA(k, k), ldA,
                                      TB(k, jb), ldB);
                for (int i = k + 1; i < kt && !rc; i++) {
                    tag.i = i;
                    rc = hyt_insert_dgemm(seq, tag, 'N', 'N', hyt_tile_mb(A, i), nbj, mbk, -1.0,
                                          TA(i, k), ldA, TB(k, jb), ldB, 1.0, TB(i, jb), ldB);
                }
            }
            // U x = y, backward
            for (int k = kt - 1; k >= 0 && !rc; k--) {
                int mbk = hyt_tile_mb(A, k);
                hyt_tag_t tag = {k, k, k, jb};
                rc = hyt_insert_dtrsm(seq, tag, 'L', 'U', 'N', 'N', mbk, nbj, 1.0, TA(k, k), ldA,
                                      TB(k, jb), ldB);
                for (int i = 0; i < k && !rc; i++) {
                    tag.i = i;
                    rc = hyt_insert_dgemm(seq, tag, 'N', 'N', hyt_tile_mb(A, i), nbj, mbk, -1.0,
                                          TA(i, k), ldA, TB(k, jb), ldB, 1.0, TB(i, jb), ldB);
                }
            }
        } else {
            // U^T y = b, forward: (U^T)_ik = (U_ki)^T for i > k
            for (int k = 0; k < kt && !rc; k++) {
                int mbk = hyt_tile_mb(A, k);
                hyt_tag_t tag = {kt - k, k, k, jb};
                rc = hyt_insert_dtrsm(seq, tag, 'L', 'U', 'T', 'N', mbk, nbj, 1.0, TA(k, k), ldA,
                                      TB(k, jb), ldB);
                for (int i = k + 1; i < kt && !rc; i++) {
                    tag.i = i;
                    rc = hyt_insert_dgemm(seq, tag, 'T', 'N', hyt_tile_mb(A, i), nbj, mbk, -1.0,
                                          TA(k, i), ldA, TB(k, jb), ldB, 1.0, TB(i, jb), ldB);
                }
            }
            // L^T z = y, backward: (L^T)_ik = (L_ki)^T for i < k
            for (int k = kt - 1; k >= 0 && !rc; k--) {
                int mbk = hyt_tile_mb(A, k);
                hyt_tag_t tag = {k, k, k, jb};
                rc = hyt_insert_dtrsm(seq, tag, 'L', 'L', 'T', 'U', mbk, nbj, 1.0, TA(k, k), ldA,
                                      TB(k, jb), ldB);
                for (int i = 0; i < k && !rc; i++) {
                    tag.i = i;
                    rc = hyt_insert_dgemm(seq, tag, 'T', 'N', hyt_tile_mb(A, i), nbj, mbk, -1.0,
                                          TA(k, i), ldA, TB(k, jb), ldB, 1.0, TB(i, jb), ldB);
                }
            }
            // x = P^T z: the interchanges in reverse order
            if (!rc)
                rc = hyt_insert_dlaswp(seq, (hyt_tag_t){0, -1, -1, jb}, B, jb, 0, kt, ipiv, n,
                                       -1, piv_keys);
        }
    }
#undef TA
#undef TB
    free(piv_keys);
    return rc;
}
