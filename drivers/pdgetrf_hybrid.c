/*
 * The hybrid LU (the seed's section 3 and Figure 1): panels and the lookahead columns on CPU
 * cores, the rest of the trailing update on the devices, every copy a task, all one DAG.
 * Inserts tasks only.
 *
 * Ownership at step k: columns j <= k + lookahead are the CPUs' (host CCRB tiles); columns
 * j > k + lookahead are dealt 1D block-cyclic to the devices (column j on device j % ndev) and
 * live there in CRRB.  Per step:
 *
 *   panel k                       CPU, panel_cores workers (critical path)
 *   inv(L_kk)                     CPU, for the devices' "TRSM as GEMM"
 *   panel broadcast               DMA task per device (H2D stream), then CRRB
 *   lookahead columns             CPU: swaps + TRSM, then GEMMs in row ranges
 *   lead column update            on its device, then its return (D2H stream): from step k+1
 *                                 on the column belongs to the CPUs
 *   rest of the update            one task per device (strided-batched GEMMs)
 *
 * Because panels, inverses and broadcasts only wait for the lead column's return, they run
 * `lookahead` steps ahead of the bulk GPU updates, and the copies overlap the computation
 * (the seed's Figure 2b).  Dependencies of the device updates over their whole block of
 * columns are one token per device (see gpu_dgetrf_update.c): no transitive edges.
 */
#include "drv_internal.h"
#include "hyt_gpu_tasks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIO_PANEL (1 << 24)
#define PRIO_LOOKAHEAD (1 << 23)

/* What the tasks use until the end of the sequence; freed by the cleanup task. */
typedef struct hybrid {
    hyt_context_t *ctx;
    int ndev, npbuf, nt;
    hyt_gpu_lu_t *g;
    double *h_linv; /* kt tiles: inv(L_kk) of each step (page-locked) */
    int *h_piv;     /* kt * ndev * nb: the pivots staged for each device's copy (page-locked) */
    hyt_tokens_t *tok;
} hybrid_t;

/* Tokens: the device's state, its panel slots, each device column. */
static const void *state_key(const hybrid_t *h, int g) { return hyt_token(h->tok, (size_t)g); }
static const void *panel_key(const hybrid_t *h, int g, int k)
{
    return hyt_token(h->tok, (size_t)(h->ndev + g * h->npbuf + k % h->npbuf));
}
static const void *col_key(const hybrid_t *h, int j)
{
    return hyt_token(h->tok, (size_t)(h->ndev * (1 + h->npbuf) + j));
}

static void hybrid_free(hybrid_t *h)
{
    for (int g = 0; h->g && g < h->ndev; g++)
        hyt_gpu_lu_free(&h->g[g]);
    hyt_host_free(h->ctx, h->h_linv);
    hyt_host_free(h->ctx, h->h_piv);
    hyt_tokens_destroy(h->tok);
    free(h->g);
    free(h);
}

static int cleanup_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    hybrid_free(*(hybrid_t **)p);
    return 0;
}

/* always: frees the devices' memory also when the sequence failed */
static const hyt_kernel_t cleanup_kernel = {.name = "hybrid_cleanup", .cpu = cleanup_body,
                                            .cat = HYT_CAT_OTHER, .always = 1};

/* First local column of device g holding a global column > j. */
static int first_local_after(int j, int g, int ndev)
{
    int j0 = j + 1 + ((g - (j + 1)) % ndev + ndev) % ndev;
    return j0 / ndev;
}

int hyt_pdgetrf_hybrid(hyt_sequence_t *seq, const hyt_desc_t *A, int *ipiv, int *info,
                       const hyt_lu_params_t *p)
{
    hyt_context_t *ctx = hyt_sequence_context(seq);
    const int mt = A->mt, nt = A->nt, nb = A->nb, la = p->lookahead, ndev = p->ndevices;
    const int minmn = A->m < A->n ? A->m : A->n;
    const int kt = (minmn + nb - 1) / nb;
    const int nw = hyt_context_num_workers(ctx);
    const int64_t tile = (int64_t)nb * nb;
    if (A->layout != HYT_LAYOUT_CCRB)
        return hyt_error(HYT_ERR_INVALID, "the hybrid LU needs a CCRB (tile layout) matrix");
    if (kt == 0)
        return HYT_SUCCESS;

    // setup: check and allocate device memory before inserting anything
    hybrid_t *h = calloc(1, sizeof *h);
    if (!h)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    h->ctx = ctx;
    h->ndev = ndev;
    h->nt = nt;
    h->npbuf = la + 3 < 16 ? la + 3 : 16; /* panels in flight per device */
    h->g = calloc((size_t)ndev, sizeof *h->g);
    h->tok = hyt_tokens_create((size_t)(ndev * (1 + h->npbuf) + nt));
    h->h_linv = hyt_host_malloc(ctx, (size_t)kt * tile * sizeof(double));
    h->h_piv = hyt_host_malloc(ctx, (size_t)kt * ndev * nb * sizeof(int));
    if (!h->g || !h->tok || !h->h_linv || !h->h_piv) {
        hybrid_free(h);
        return hyt_error(HYT_ERR_NOMEM, "out of host memory for the hybrid LU's workspaces");
    }
    const char *pc = getenv("HYTILE_GEMM_PER_CALL");
    for (int g = 0; g < ndev; g++) {
        hyt_gpu_lu_t *d = &h->g[g];
        d->dev = hyt_context_device(ctx, g);
        d->index = g;
        d->ndev = ndev;
        d->nb = nb;
        d->mt = mt;
        d->tile = tile;
        d->colsz = tile * mt;
        d->ncols = g < nt ? (nt - g + ndev - 1) / ndev : 0;
        d->npbuf = h->npbuf;
        d->per_call_gemm = pc && *pc == '1';
        size_t need = hyt_gpu_lu_bytes(nb, mt, d->ncols, d->npbuf);
        size_t avail = hyt_device_mem_available(d->dev);
        if (need > avail) {
            int rc = hyt_error(HYT_ERR_DEVICE_MEMORY,
                             "the hybrid LU of a %d x %d matrix (nb %d, %d devices) needs %.2f "
                             "GiB on %s but %.2f GiB are available (free memory, or "
                             "gpu.memory_limit): use more devices, a smaller matrix, or "
                             "runtime.devices = none",
                             A->m, A->n, nb, ndev, need / 1073741824.0,
                             hyt_device_name(d->dev), avail / 1073741824.0);
            hybrid_free(h);
            return rc;
        }
        int rc = hyt_gpu_lu_alloc(d);
        if (rc) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", hyt_last_error());
            hybrid_free(h);
            return hyt_error(rc, "%s", msg);
        }
    }
    const void **piv_keys = hyt_piv_keys(ipiv, kt, nb);
    if (!piv_keys) {
        hybrid_free(h);
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    }
    hyt_progress_reset(ctx, kt);

    // the devices' columns, before the first step
    int rc = 0;
    for (int g = 0; g < ndev && !rc; g++) {
        const void *slots[64];
        for (int k = 0; k < h->npbuf && k < 64; k++)
            slots[k] = panel_key(h, g, k);
        rc = hyt_insert_gpu_lu_init(seq, (hyt_tag_t){PRIO_PANEL, -1, -1, g}, &h->g[g],
                                    state_key(h, g), slots);
    }
    for (int j = la + 1; j < nt && !rc; j++)
        rc = hyt_insert_gpu_column_load(seq, (hyt_tag_t){PRIO_LOOKAHEAD - j, -1, -1, j},
                                        &h->g[j % ndev], A, j, col_key(h, j),
                                        state_key(h, j % ndev));

    for (int k = 0; k < kt && !rc; k++) {
        const int mbk = hyt_tile_mb(A, k), wk = hyt_tile_nb(A, k), dk = mbk < wk ? mbk : wk;
        const int lead = k + la + 1; /* first device column of this step */
        double *linv = h->h_linv + k * tile;

        // panel
        rc = hyt_insert_dgetrf_rec(seq, (hyt_tag_t){PRIO_PANEL, k, k, k}, A, k, ipiv, info,
                                   p->panel_cores, piv_keys[k]);

        // inverse of L_kk and the panel broadcast, for the devices that still have columns
        if (lead < nt && !rc) {
            rc = hyt_insert_dtrtri_ul(seq, (hyt_tag_t){PRIO_PANEL - 1, k, k, k}, dk,
                                      hyt_tile(A, k, k), nb, linv, nb, nb);
            for (int g = 0; g < ndev && !rc; g++)
                if (first_local_after(lead - 1, g, ndev) < h->g[g].ncols)
                    rc = hyt_insert_gpu_panel_bcast(seq, (hyt_tag_t){PRIO_PANEL - 2, k, k, g},
                                                    &h->g[g], A, k, dk, linv, ipiv,
                                                    h->h_piv + ((int64_t)k * ndev + g) * nb,
                                                    panel_key(h, g, k));
        }

        // lookahead: the CPUs' columns, swaps and solve, then GEMMs in row ranges
        const int nrows = mt - k - 1;
        int chunks = nrows < 2 * nw ? nrows : 2 * nw;
        for (int j = k + 1; j < nt && j < lead && !rc; j++) {
            hyt_tag_t tag = {PRIO_LOOKAHEAD - j, k, k, j};
            rc = hyt_insert_dgessm(seq, tag, A, k, j, j + 1, 0, 0, ipiv, minmn,
                                   HYT_GESSM_SOLVE, piv_keys[k]);
            for (int c = 0; c < chunks && !rc; c++) {
                int i1 = k + 1 + nrows * c / chunks, i2 = k + 1 + nrows * (c + 1) / chunks;
                tag.i = i1;
                if (i1 < i2)
                    rc = hyt_insert_dgessm(seq, tag, A, k, j, j + 1, i1, i2, ipiv, minmn,
                                           HYT_GESSM_GEMM, piv_keys[k]);
            }
        }
        if (lead >= nt || rc)
            continue;

        // trailing update on the devices: the lead column first, and its return
        const int gl = lead % ndev, ll = lead / ndev;
        rc = hyt_insert_gpu_dgetrf_update(seq, (hyt_tag_t){PRIO_LOOKAHEAD - lead, k, k, lead},
                                          &h->g[gl], k, dk, ll, ll + 1, panel_key(h, gl, k),
                                          state_key(h, gl), col_key(h, lead));
        if (!rc)
            rc = hyt_insert_gpu_column_return(seq, (hyt_tag_t){PRIO_LOOKAHEAD - lead, k, -1,
                                                               lead},
                                              &h->g[gl], A, lead, col_key(h, lead));
        // the rest of each device's columns, older steps first
        for (int g = 0; g < ndev && !rc; g++)
            rc = hyt_insert_gpu_dgetrf_update(seq, (hyt_tag_t){nt - k, k, k + 1, -1}, &h->g[g],
                                              k, dk, first_local_after(lead, g, ndev),
                                              h->g[g].ncols, panel_key(h, g, k),
                                              state_key(h, g), NULL);
    }
    // columns right of the last lead column (wide matrices) come back after the last update
    for (int j = kt + la + 1; j < nt && !rc; j++)
        rc = hyt_insert_gpu_column_return(seq, (hyt_tag_t){0, kt, -1, j}, &h->g[j % ndev], A, j,
                                          state_key(h, j % ndev));

    // swaps to the left, on the host tiles of L
    for (int j = 0; j + 1 < kt && !rc; j++)
        rc = hyt_insert_dlaswp(seq, (hyt_tag_t){0, -1, -1, j}, A, j, j + 1, kt, ipiv, minmn, 1,
                               piv_keys);
    free(piv_keys);

    // cleanup after every device task (inserted even after an error: it is an "always" task)
    hyt_dep_t *deps = malloc((size_t)(ndev * (1 + h->npbuf) + nt) * sizeof *deps);
    if (!deps) {
        /* cannot order the cleanup: wait for the sequence instead and free here */
        hyt_sequence_fail(seq, HYT_ERR_NOMEM, "out of memory");
        hyt_sequence_wait(seq);
        hybrid_free(h);
        return HYT_ERR_NOMEM;
    }
    int nd = 0;
    for (size_t t = 0; t < (size_t)(ndev * (1 + h->npbuf) + nt); t++)
        deps[nd++] = (hyt_dep_t){hyt_token(h->tok, t), HYT_RW};
    hyt_task_desc_t d = hyt_task_desc(&cleanup_kernel, &h, sizeof h);
    d.deps = deps;
    d.ndeps = nd;
    int rc2 = hyt_task_insert(seq, &d);
    free(deps);
    if (rc2) {
        hyt_sequence_wait(seq);
        hybrid_free(h);
    }
    return rc ? rc : rc2;
}
