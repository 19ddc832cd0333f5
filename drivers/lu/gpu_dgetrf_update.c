/*
 * The GPU's part of a step of the hybrid LU (the seed's section 3.3) on a range of its local
 * CRRB columns, all in one device task on the compute or the lookahead stream:
 *
 *   plan of step k's interchanges      one small launch: the step's pivots as one permutation
 *   swaps to the left                  the finished columns: tile row k's new rows gathered
 *                                      into W, the rows below scattered, W copied back
 *   swaps of the updated columns       tile row k's new rows gathered into W, the rows below
 *                                      scattered (tile row k itself is rewritten next)
 *   A_kj = U_kj = W inv(L_kk)^T         "TRSM" as a GEMM with the inverse computed beforehand,
 *                                      into tile k straight from W
 *   A_ij -= L_ik U_kj, i > k            one strided-batched GEMM over the columns
 *
 * In CRRB a tile column is the column-major transpose of the column, leading dimension nb, so
 * each GEMM above is the transposed product on whole columns: C^T -= U^T L^T.  The interchanges
 * as a permutation move every row once, in passes whose threads need no order
 * (hyt_gpu_dlaswp_plan): applied one after the other (hyt_gpu_dlaswp_crrb), each thread's
 * chain of nb dependent loads and stores cost the 65536 LU ~1.4% of its time
 * (docs/performance.md, seventeenth stop).
 */
#include "lu_gpu.h"

typedef struct upd_args {
    hyt_gpu_lu_t g;
    int k, dk, l1, l2, lf;
} upd_args_t;

static int upd_body(const hyt_devctx_t *dc, void *p)
{
    upd_args_t *a = p;
    const hyt_gpu_lu_t *g = &a->g;
    const int nb = g->nb, k = a->k, dk = a->dk, nc = a->l2 - a->l1, pc = g->per_call_gemm;
    const int s = k % g->npbuf;
    double *cols = g->cols + a->l1 * g->colsz, *W = g->work + a->l1 * g->tile;
    const double *panel = g->pbuf + s * g->colsz, *linvT = g->linv + s * g->tile;
    const int *piv = g->piv + s * nb; /* 1-based from the panel's first row, k*nb */
    /* this stream's plan: tasks on one stream run in order, the two streams side by side */
    int *plan = g->plan + (dc->stream == HYT_STREAM_LOOKAHEAD ? 3 * nb : 0);
    const int64_t rowk = k * g->tile; /* tile row k of a column: the panel's rows */
    /* debug.races: the interchanges' rows are known only on the device; every row from tile
     * row k down may move (the dispatchers note the exact rows on host devices) */
    const size_t below = (size_t)(g->mt - k) * g->tile * sizeof(double);
    const size_t colb = (size_t)g->colsz * sizeof(double);
    if (a->lf > 0)
        hyt_races_note(g->cols + rowk, colb, below, (size_t)a->lf, 1, "the interchanged rows");
    if (nc > 0)
        hyt_races_note(cols + rowk, colb, below, (size_t)nc, 1, "the interchanged rows");
    hyt_races_note(piv, 0, (size_t)dk * sizeof *piv, 1, 0, "the pivots");
    hyt_races_note(plan, 0, 3 * (size_t)dk * sizeof *plan, 1, 1, "the plan");
    hyt_races_note(g->work, 0, (size_t)a->lf * g->tile * sizeof(double), 1, 1, "W");
    hyt_races_note(W, 0, (size_t)(nc > 0 ? nc : 0) * g->tile * sizeof(double), 1, 1, "W");
    int rc = hyt_gpu_dlaswp_plan(dc, 0, dk, piv, plan);
    // swaps to the left: the step's interchanges on the finished columns, through their
    // (unused) W tiles
    if (!rc && a->lf > 0)
        rc = hyt_gpu_dlaswp_apply(dc, g->cols + rowk, g->colsz, a->lf, nb, 0, dk, plan, g->work,
                                  g->tile);
    if (nc <= 0 || rc)
        return rc;
    // swaps: tile row k's new rows to W, the rows below in place
    rc = hyt_gpu_dlaswp_gather(dc, cols + rowk, g->colsz, nc, nb, dk, plan, W, g->tile);
    if (!rc)
        rc = hyt_gpu_dlaswp_scatter(dc, cols + rowk, g->colsz, nc, nb, dk, plan);
    // A_kj = U_kj = (W_b inv(L_kk)^T), nb x dk each
    if (!rc)
        rc = hyt_gpu_dgemm_batched(dc, 'N', 'N', nb, dk, dk, 1.0, W, nb, g->tile, linvT, nb, 0,
                                   0.0, cols + rowk, nb, g->colsz, nc, pc);
    // A_ij -= L_ik U_kj below the panel: C^T (nb x rows) -= U (nb x dk) L^T (dk x rows)
    int rows = (g->mt - k - 1) * nb;
    if (!rc && rows > 0)
        rc = hyt_gpu_dgemm_batched(dc, 'N', 'N', nb, rows, dk, -1.0, cols + rowk, nb, g->colsz,
                                   panel + (k + 1) * g->tile, nb, 0, 1.0,
                                   cols + (k + 1) * g->tile, nb, g->colsz, nc, pc);
    return rc;
}

static const hyt_kernel_t upd_kernel = {.name = "gpu_update", .dev = upd_body,
                                        .cat = HYT_CAT_GPU};

int hyt_insert_gpu_dgetrf_update_deps(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                      int k, int dk, int l1, int l2, int lf, int stream,
                                      const hyt_dep_t *deps, int ndeps)
{
    if (l2 <= l1 && lf <= 0)
        return HYT_SUCCESS;
    upd_args_t args = {*g, k, dk, l1, l2, lf};
    hyt_task_desc_t d = hyt_tagged_desc(&upd_kernel, &args, sizeof args, deps, ndeps, tag);
    d.device = hyt_device_index(g->dev);
    d.stream = stream;
    return hyt_task_insert(seq, &d);
}

int hyt_insert_gpu_dgetrf_update(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                 int k, int dk, int l1, int l2, int lf, int stream,
                                 const void *panel_key, const void *state_key,
                                 const void *col_key)
{
    /* Dependencies over the device's whole block of columns reduce to one token: every
     * update of this device is ordered after the previous one through state_key, so listing
     * its columns one by one would add only transitive edges. */
    hyt_dep_t deps[3];
    int nd = 0;
    deps[nd++] = (hyt_dep_t){panel_key, HYT_READ};
    if (state_key)
        deps[nd++] = (hyt_dep_t){state_key, HYT_RW};
    if (col_key)
        deps[nd++] = (hyt_dep_t){col_key, HYT_RW};
    return hyt_insert_gpu_dgetrf_update_deps(seq, tag, g, k, dk, l1, l2, lf, stream, deps, nd);
}
