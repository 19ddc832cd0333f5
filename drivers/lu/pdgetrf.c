/*
 * The LU with partial pivoting on CPUs, written as the canonical serial loop nest; every
 * kernel call is a task and the runtime resolves the hazards.  Inserts tasks only.
 *
 *   for k in steps:
 *     panel k                                  multithreaded task on panel_cores workers
 *     swaps of step k to the left              columns j < k of L
 *     for each block of columns j > k:         swaps of step k, U_kj = inv(L_kk) A_kj,
 *                                              A_ij -= L_ik U_kj for the rows below
 *
 * Granularity: a column update is one task (the column stays in cache, and on a LAPACK array
 * the GEMM is one tall call).  When a step has few columns for the workers, each column's GEMM
 * is split into row ranges; when it has many, neighbouring columns share a task.
 *
 * Lookahead is expressed by priority: the panel first, then the `lookahead` columns right of it
 * (so the next panels are ready early), then the bulk of the update, older steps first.  The
 * swaps to the left (lowest priority) run whenever a worker has nothing else: inserted at the
 * end they all became ready at once, after the last panel, and took 0.16 s on 64 cores,
 * memory-bound (N = 32768; docs/performance.md).
 */
#include "drv_internal.h"

#include <stdlib.h>

/* Priorities (higher runs first among ready tasks). */
#define PRIO_PANEL (1 << 24)
#define PRIO_LOOKAHEAD (1 << 23)

int hyt_pdgetrf(hyt_sequence_t *seq, const hyt_desc_t *A, int *ipiv, int *info,
                const hyt_lu_params_t *p)
{
    const int mt = A->mt, nt = A->nt, nb = A->nb;
    const int minmn = A->m < A->n ? A->m : A->n;
    const int kt = (minmn + nb - 1) / nb;
    const int nw = hyt_context_num_workers(hyt_sequence_context(seq));
    if (kt == 0)
        return HYT_SUCCESS;
    /* The pivots of step k are the region ipiv[k*nb ...]: written by panel k, read by the swaps
     * of step k.  Their addresses serve as the dependency keys. */
    const void **piv_keys = hyt_piv_keys(ipiv, kt, nb);
    if (!piv_keys)
        return HYT_ERR_NOMEM;
    hyt_progress_reset(hyt_sequence_context(seq), kt);

    /* columns per task of the swaps to the left: about 512 columns */
    const int lgroup = (512 + nb - 1) / nb;
    int rc = 0;
    for (int k = 0; k < kt && !rc; k++) {
        // panel
        rc = hyt_insert_dgetrf_rec(seq, (hyt_tag_t){PRIO_PANEL, k, k, k}, A, k, ipiv, info,
                                   p->panel_cores, piv_keys[k]);
        // swaps of step k on the columns of L to its left
        for (int j = 0; j < k && !rc; j += lgroup)
            rc = hyt_insert_dlaswp(seq, (hyt_tag_t){0, k, -1, j}, A, j,
                                   j + lgroup < k ? j + lgroup : k, k, k + 1, ipiv, minmn, 1,
                                   piv_keys);

        const int ncols = nt - k - 1, nrows = mt - k - 1;
        /* row ranges per column so that the step has about 2 tasks per worker */
        int chunks = ncols > 0 ? (2 * nw + ncols - 1) / ncols : 1;
        if (chunks > nrows)
            chunks = nrows > 0 ? nrows : 1;
        /* columns per task when there are many more columns than workers */
        int group = ncols / (4 * nw);
        group = group < 1 ? 1 : group > 4 ? 4 : group;

        for (int j = k + 1; j < nt && !rc;) {
            int la = j - k <= p->lookahead;
            int j2 = la ? j + 1 : j + group;
            if (j2 > nt)
                j2 = nt;
            /* lookahead columns right after the panel first (the leftmost most urgent);
             * the trailing update by step, older steps first */
            int prio = la ? PRIO_LOOKAHEAD - j : nt - k;
            hyt_tag_t tag = {prio, k, k + 1, j};
            if (chunks <= 1) {
                // swaps, solve and update of the whole column block
                rc = hyt_insert_dgessm(seq, tag, A, k, j, j2, k + 1, mt, ipiv, minmn,
                                       HYT_GESSM_SOLVE | HYT_GESSM_GEMM, piv_keys[k]);
            } else {
                // swaps and solve, then the update in row ranges
                rc = hyt_insert_dgessm(seq, tag, A, k, j, j2, 0, 0, ipiv, minmn,
                                       HYT_GESSM_SOLVE, piv_keys[k]);
                for (int c = 0; c < chunks && !rc; c++) {
                    int i1 = k + 1 + nrows * c / chunks, i2 = k + 1 + nrows * (c + 1) / chunks;
                    tag.i = i1;
                    if (i1 < i2)
                        rc = hyt_insert_dgessm(seq, tag, A, k, j, j2, i1, i2, ipiv, minmn,
                                               HYT_GESSM_GEMM, piv_keys[k]);
                }
            }
            j = j2;
        }
    }
    free(piv_keys);
    return rc;
}
