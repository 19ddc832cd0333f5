/*
 * The tile Cholesky factorization, right-looking, as the serial loop nest; every kernel call is
 * a task and the runtime resolves the hazards.  Inserts tasks only.  Lower (A = L L^T):
 *
 *   for k in steps:
 *     L_kk = potrf(A_kk)                       the diagonal tile
 *     L_ik = A_ik inv(L_kk)^T       i > k      the panel (TRSM)
 *     for j > k:                               the update, a task per tile column
 *       A_jj -= L_jk L_jk^T                    SYRK
 *       A_ij -= L_ik L_jk^T         i > j      GEMM (one tall call on a LAPACK array)
 *
 * Upper (A = U^T U) is the same nest on the transpose: "tile (i,j) of L" is tile (j,i) of U,
 * read and written in place with transposed operations (no copy).  On a LAPACK array only the
 * lookahead's tile rows of U are updated so (a GEMM per row strip, nb x m); the rest of the
 * update goes by tile columns of U (core_dsyrk_ucol.c: m x nb, a shape OpenBLAS runs ~9% faster,
 * and one call down the column), each after the step's panel row.  The next steps' rows then
 * wait for every column task of a step, so the bulk of step k is done before panel
 * k + lookahead + 1 starts; the diagonal tile and panel of step k + 1 still run ahead of it.
 *
 * Lookahead by priority: the diagonal tile and the panel first (the critical path), then the
 * `lookahead` tile columns right of the panel (so the next diagonal tiles and panels are ready
 * early), then the bulk of the update, older steps first.
 *
 * INFO: the diagonal tasks run in order (each depends on the previous step's update of its
 * tile), and a failure of tile k sets INFO = k nb + the tile's local INFO.  Every task of the
 * factorization is given INFO as its stop flag, so whatever runs after the failure does
 * nothing, as LAPACK returns at the first failure.  The update tasks do not depend on INFO:
 * that would order every update of step k before the diagonal task of step k+1 and undo the
 * lookahead.
 */
#include "chol_internal.h"

/* Priorities (higher runs first among ready tasks). */
#define PRIO_PANEL (1 << 24)
#define PRIO_LOOKAHEAD (1 << 23)

int hyt_pdpotrf(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, int *info,
                const hyt_chol_params_t *p)
{
    const int nt = A->nt, nb = A->nb, ld = hyt_tile_ld(A);
    const int lower = uplo == 'L';
    const int nw = hyt_context_num_workers(hyt_sequence_context(seq));
    /* tile (i,j) of L, or of U^T */
#define T(i, j) (lower ? hyt_tile(A, i, j) : hyt_tile(A, j, i))
    int rc = 0;
    for (int k = 0; k < nt && !rc; k++) {
        const int nbk = hyt_tile_nb(A, k);
        // diagonal tile
        rc = hyt_insert_dpotrf(seq, (hyt_tag_t){PRIO_PANEL, k, k, k}, uplo, nbk, T(k, k), ld,
                               k * nb, info);
        // panel: L_ik = A_ik inv(L_kk)^T, or U_ki = inv(U_kk)^T A_ki; the nearest first
        for (int i = k + 1; i < nt && !rc; i++) {
            hyt_tag_t tag = {PRIO_PANEL - i, k, i, k};
            const int mbi = hyt_tile_nb(A, i);
            rc = lower ? hyt_insert_dtrsm_stop(seq, tag, 'R', 'L', 'T', 'N', mbi, nbk, 1.0,
                                               T(k, k), ld, T(i, k), ld, info)
                       : hyt_insert_dtrsm_stop(seq, tag, 'L', 'U', 'T', 'N', nbk, mbi, 1.0,
                                               T(k, k), ld, T(i, k), ld, info);
        }
        // update, a task per column (in row ranges when the columns are few for the
        // workers): the lookahead columns first (the leftmost most urgent), then the bulk;
        // upper on a LAPACK array: the lookahead ones so (tile rows of U), the bulk by tile
        // columns of U (see the top of the file)
        const int ucols = !lower && A->layout == HYT_LAYOUT_LAPACK;
        const int jrow = ucols ? k + p->lookahead : nt - 1; /* the last one by rows */
        const int ncols = nt - k - 1;
        const int chunks = ncols > 0 ? (2 * nw + ncols - 1) / ncols : 1;
        for (int j = k + 1; j < nt && !rc; j++) {
            hyt_tag_t tag = {j - k <= p->lookahead ? PRIO_LOOKAHEAD - j : nt - k, k, j, j};
            if (j > jrow) { /* U's tile column j, rows jrow + 1 .. j */
                const int rows = j - jrow, nc = chunks < rows ? chunks : rows;
                for (int c = 0; c < nc && !rc; c++) {
                    tag.i = jrow + 1 + rows * c / nc;
                    rc = hyt_insert_dsyrk_ucol(seq, tag, A, k, j, tag.i,
                                               jrow + 1 + rows * (c + 1) / nc, info);
                }
                continue;
            }
            const int rows = nt - j, nc = chunks < rows ? chunks : rows;
            for (int c = 0; c < nc && !rc; c++) {
                tag.i = j + rows * c / nc;
                rc = hyt_insert_dsyrk_col(seq, tag, uplo, A, k, j, tag.i, j + rows * (c + 1) / nc,
                                          info);
            }
        }
    }
#undef T
    return rc;
}
