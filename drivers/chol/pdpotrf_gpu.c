/*
 * The GPU-only Cholesky's loop nest (A. Haidar, A. Abdelfattah, S. Tomov, J. Dongarra, "High-
 * performance Cholesky factorization for GPU-only execution", GPGPU 2017): the n x n matrix
 * lives in one device's memory and every step is device tasks on that device.  Written for the
 * lower triangle; the upper one runs the same nest on the transposed view (L = U^T, block
 * column k of the view = block row k of U: gpu_dpotrf_tasks.c), so nothing below depends on
 * uplo.
 * Right-looking, block size nb, nt = ceil(n / nb) block columns; step k:
 *
 *   panel k        potf2 of A_kk (the fused kernel, in pieces of at most      LOOKAHEAD stream
 *                  512 columns), the solve of the rows below (a GEMM with
 *                  inv(L_kk) from chol.inv_rows rows, else a TRSM)
 *   lookahead      block columns k+1 .. k+la, one task each: SYRK of the      LOOKAHEAD stream
 *                  diagonal block, GEMM of the rows below
 *   trailing       block columns k+la+1 .. nt-1 in one task (the bulk of      COMPUTE stream
 *                  the flops: large GEMMs)
 *   tail           at step D->tail_k (chol.tail), instead of the steps from   LOOKAHEAD stream
 *                  there: the trailing matrix in one call of the vendor's
 *                  dpotrf, after every update of its columns
 *
 * so that panel k+1 (it waits only for the lookahead update of column k+1) runs on the
 * high-priority streams while the trailing update of step k still runs: the seed's lookahead.
 * With la = 0 column k+1 is in the trailing update and the steps do not overlap.
 *
 * Groups (D->group = g, chol.group): the steps are taken g at a time, kg0 .. kg1.  A step
 * k < kg1 of a group updates only the group's later columns k+1 .. kg1, by panel k alone
 * (LOOKAHEAD stream); the group's last step kg1 updates its lookahead columns and the
 * trailing matrix by the panels kg0 .. kg1 together: L(:, kg0..kg1) is contiguous, so those
 * are the same tasks with K = g nb instead of nb, and the trailing update's large GEMMs run
 * closer to the DGEMM rate while the panels, their inverses and their solves stay nb wide.
 * The lookahead is then at least g (but 0 stays 0), so that the next group's panels do not
 * wait for the trailing update.  The last group ends at the tail's step or at the last.
 * g = 1 is the nest above, step by step.
 *
 * The panel is on the lookahead stream, not the panel stream: its solve is an m x nb x nb GEMM
 * on the critical path, and the panel stream may hold only part of the SMs (gpu.panel_sms).
 * With la = 1 (the default) panels and lookahead updates form one chain anyway (panel k+1
 * waits for the update of column k+1); with more, panel k+1 queues behind step k's other
 * lookahead columns.
 *
 * Dependencies, through tokens (nothing here is a host region):
 *   col[j]   block column j's state: written by every task that updates or factors it, read by
 *            the tasks that use panel j;
 *   trail    the trailing block columns: each step's trailing task after the previous one's.
 *            It stands for all of them, so a trailing task lists only the columns that
 *            leave the trailing part at the next group's last step (col[k+la+1] ..
 *            col[k+la+g], which that step's lookahead tasks then wait for; one column when
 *            g = 1); listing the others would add transitive edges only;
 *   info     D->dinfo: the panels and the tail write it, the final copy to the host reads it.
 * A lookahead task of step k does not wait for the trailing task of step k-1: the columns
 * they touch are disjoint (k+1..k+la against k+la+1..).  Nor does a group's update of its
 * later columns when la > 0 (they were lookahead columns of the group before; with la = 0 the
 * trailing task lists them).
 *
 * INFO: each potf2 (a piece of a panel) writes its own entry of D->dinfo (the kernel always
 * writes it), the host reads all of them once at the end (dpotrf_gpu.c's INFO task) and takes the
 * first nonzero: exactly LAPACK's INFO, since steps before the first failure are exact.  The
 * steps after a failure still run (on NaN or garbage: the kernels stop at a NaN diagonal;
 * nothing waits on a value), which keeps the device queues free of host round trips.
 */
#include "chol_internal.h"

#include <stdlib.h>

/* Priorities (higher first among ready tasks): panels, then lookahead columns (the nearest
 * first), then the trailing updates, older steps first. */
#define PRIO_PANEL (1 << 24)
#define PRIO_LOOKAHEAD (1 << 23)

int hyt_pdpotrf_gpu(hyt_sequence_t *seq, const hyt_chol_dev_t *D, int lookahead,
                    const hyt_tokens_t *tok, int *h_info)
{
    const int nt = (D->n + D->nb - 1) / D->nb;
    const void *trail = hyt_token(tok, nt), *info = hyt_token(tok, nt + 1);
#define COL(j) hyt_token(tok, (size_t)(j))
    const int stop = D->tail_k < nt ? D->tail_k : nt; /* the steps before the tail */
    const int group = D->group < 1 ? 1 : D->group > HYT_CHOL_MAX_GROUP ? HYT_CHOL_MAX_GROUP
                                                                        : D->group;
    const int la = hyt_chol_group_lookahead(lookahead, group);
    int rc = 0;
    for (int k = 0; k < nt && !rc; k++) {
        if (k == D->tail_k) { /* after the lookahead and trailing updates of its columns */
            const int nd = nt - k + 2;
            hyt_dep_t *xd = malloc((size_t)nd * sizeof *xd);
            if (!xd)
                return hyt_error(HYT_ERR_NOMEM, "hyt_dpotrf_device: out of memory");
            for (int j = k; j < nt; j++)
                xd[j - k] = (hyt_dep_t){COL(j), HYT_RW};
            xd[nd - 2] = (hyt_dep_t){trail, HYT_RW};
            xd[nd - 1] = (hyt_dep_t){info, HYT_RW};
            rc = hyt_insert_gpu_chol_tail(seq, (hyt_tag_t){PRIO_PANEL - k, k, k, nt - 1}, D,
                                          HYT_STREAM_LOOKAHEAD, xd, nd);
            free(xd);
            break;
        }
        // panel
        hyt_dep_t pd[2] = {{COL(k), HYT_RW}, {info, HYT_RW}};
        rc = hyt_insert_gpu_chol_panel(seq, (hyt_tag_t){PRIO_PANEL - k, k, k, k}, D, k,
                                       HYT_STREAM_LOOKAHEAD, pd, 2);
        // k's group of steps: kg0 .. kg1
        const int kg0 = k - k % group;
        const int kg1 = kg0 + group - 1 < stop - 1 ? kg0 + group - 1 : stop - 1;
        if (k < kg1) { /* the group's later columns by panel k alone */
            for (int j = k + 1; j <= kg1 && !rc; j++) {
                hyt_dep_t gd[2] = {{COL(k), HYT_READ}, {COL(j), HYT_RW}};
                rc = hyt_insert_gpu_chol_update(seq, (hyt_tag_t){PRIO_LOOKAHEAD - j, k, j, j}, D,
                                                k, k, j, j + 1, HYT_STREAM_LOOKAHEAD, gd, 2);
            }
            continue;
        }
        // the group's panels kg0 .. k: the lookahead columns, then the trailing update
        hyt_dep_t ud[2 * HYT_CHOL_MAX_GROUP + 2];
        const int np = k - kg0 + 1;
        for (int q = 0; q < np; q++)
            ud[q] = (hyt_dep_t){COL(kg0 + q), HYT_READ};
        const int jla = k + la < nt - 1 ? k + la : nt - 1;
        for (int j = k + 1; j <= jla && !rc; j++) {
            ud[np] = (hyt_dep_t){COL(j), HYT_RW};
            rc = hyt_insert_gpu_chol_update(seq, (hyt_tag_t){PRIO_LOOKAHEAD - j, k, j, j}, D, kg0,
                                            k, j, j + 1, HYT_STREAM_LOOKAHEAD, ud, np + 1);
        }
        if (jla + 1 < nt && !rc) {
            /* the columns that leave the trailing part at the next group's last step */
            int nd = np;
            ud[nd++] = (hyt_dep_t){trail, HYT_RW};
            for (int j = jla + 1; j <= jla + group && j < nt; j++)
                ud[nd++] = (hyt_dep_t){COL(j), HYT_RW};
            rc = hyt_insert_gpu_chol_update(seq, (hyt_tag_t){nt - k, k, jla + 1, nt - 1}, D, kg0,
                                            k, jla + 1, nt, HYT_STREAM_COMPUTE, ud, nd);
        }
    }
    // INFO of every step to the host, once
    if (!rc && nt > 0) {
        hyt_dep_t id[1] = {{info, HYT_READ}};
        rc = hyt_insert_gpu_chol_info(seq, (hyt_tag_t){PRIO_PANEL, nt, 0, 0}, D, h_info,
                                      HYT_STREAM_PANEL, id, 1);
    }
#undef COL
    return rc;
}
