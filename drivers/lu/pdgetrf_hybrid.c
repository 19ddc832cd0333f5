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
 *
 * With lu.panel = gpu (the default with CUDA GPUs: today a GPU factors a panel some 15 times
 * faster than 64 cores, and the CPUs cannot keep pace), every column stays on its device:
 *
 *   panel k                       on its owner's high-priority stream (native LU), inv(L_kk)
 *   panel copies                  owner -> other devices (GPU to GPU), pivots -> host IPIV
 *   lookahead columns             k+1 .. k+lookahead, each on its owner's lookahead stream
 *   rest of the update            one task per device on its compute stream, which also swaps
 *                                 the rows of the finished columns (the swaps to the left)
 *   columns back to the host      after the last step
 *
 * The rest of step k also updates column k+lookahead+1, which becomes a lookahead column of
 * step k+1: that column's token orders the two, so the next panels wait only for the small
 * lookahead updates, not for the bulk of the previous steps.
 *
 * When the columns arrive while the factorization runs (loaded from host tiles here, or
 * streamed in by the caller: the LAPACK-layout calls), one task per device for the rest of a
 * step would wait for the whole matrix.  The early steps' updates are then cut in pieces of
 * about 4096 columns, each ordered by its columns' tokens alone, so that every step's GEMMs on
 * the columns that have arrived run while the rest is on its way (left-looking behind the
 * loads); the swaps to the left of such a step are a task of their own.  Pieces lose a little
 * GEMM rate (docs/performance.md), so only the steps that can overlap the loads are cut.
 */
#include "drv_internal.h"
#include "lu_gpu.h"
#include "hyt_hybrid.h"
#include "lu_tokens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIO_PANEL (1 << 24)
#define PRIO_LOOKAHEAD (1 << 23)
#define NPBUF_MAX 16 /* panel slots per device at most */

/* What the tasks use until the end of the sequence; freed by the cleanup task. */
typedef struct hybrid {
    hyt_context_t *ctx;
    int ndev, npbuf, nt;
    hyt_gpu_lu_t *g;
    double *h_linv; /* kt tiles: inv(L_kk) of each step (page-locked; CPU panels) */
    int *h_piv;     /* kt * ndev * nb: pivots staged for the copies (page-locked) */
    int *h_info;    /* kt: INFO of each GPU panel (page-locked) */
    double *h_ident; /* the identity tile (GPU panels) */
    hyt_lu_tokens_t tok;
    hyt_dmat_t *dA;  /* the matrix's columns on the devices */
    int own_dA;      /* dA is this call's (a host matrix): freed by the cleanup */
    int resident;    /* the matrix lives on the devices: no column loads, no returns */
    int arriving;    /* columns arrive during the factorization: its early steps in pieces */
} hybrid_t;

/* Tokens (drivers/hyt_hybrid.h): the device's state, its panel slots, each column (the device
 * matrix's), the pivot tasks' order, and with GPU panels all of step k's work on device g,
 * gathered (the return of tile row k waits for it). */
static const void *state_key(const hybrid_t *h, int g) { return hyt_lu_tok_state(&h->tok, g); }
static const void *panel_key(const hybrid_t *h, int g, int k)
{
    return hyt_lu_tok_panel(&h->tok, g, k);
}
static const void *col_key(const hybrid_t *h, int j) { return hyt_lu_tok_col(&h->tok, j); }
static const void *order_key(const hybrid_t *h) { return hyt_lu_tok_order(&h->tok); }
/* column j's load comes after its device's load HYT_LU_LOADS_IN_FLIGHT columns earlier */
static const void *load_key(const hybrid_t *h, int j)
{
    return hyt_lu_tok_load(&h->tok, j % h->ndev, j / h->ndev);
}
static const void *done_key(const hybrid_t *h, int g, int k)
{
    return hyt_lu_tok_done(&h->tok, g, k);
}
static size_t ntokens(const hybrid_t *h) { return hyt_lu_tok_count(&h->tok); }

static void hybrid_free(void *p)
{
    hybrid_t *h = p;
    for (int g = 0; h->g && g < h->ndev; g++)
        hyt_gpu_lu_free(&h->g[g]);
    hyt_host_free(h->ctx, h->h_linv);
    hyt_host_free(h->ctx, h->h_piv);
    hyt_host_free(h->ctx, h->h_info);
    free(h->h_ident);
    hyt_lu_tokens_destroy(&h->tok);
    if (h->own_dA)
        hyt_dmat_free(h->dA);
    free(h->g);
    free(h);
}

/* First local column of device g holding a global column > j. */
static int first_local_after(int j, int g, int ndev)
{
    int j0 = j + 1 + ((g - (j + 1)) % ndev + ndev) % ndev;
    return j0 / ndev;
}

static int mark_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    **(double **)p = hyt_wtime();
    return 0;
}

static const hyt_kernel_t mark_kernel = {.name = "mark", .cpu = mark_body, .cat = HYT_CAT_OTHER};

/* RW on each of h's ntokens(h) tokens, then room for `extra` more: a task after every device
 * task inserted before it (malloc'ed; NULL when out of memory). */
static hyt_dep_t *all_tokens(const hybrid_t *h, size_t extra)
{
    const size_t nk = ntokens(h);
    hyt_dep_t *deps = malloc((nk + extra) * sizeof *deps);
    for (size_t t = 0; deps && t < nk; t++)
        deps[t] = (hyt_dep_t){hyt_lu_tok_nth(&h->tok, t), HYT_RW};
    return deps;
}

/* A task that writes hyt_wtime() to *t once every task before it on h's tokens has finished
 * (RW on them all: the tasks after it that use one wait for it). */
static int insert_mark(hyt_sequence_t *seq, hybrid_t *h, double *t)
{
    size_t nk = ntokens(h);
    hyt_dep_t *deps = all_tokens(h, 0);
    if (!deps)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    hyt_task_desc_t d = hyt_task_desc(&mark_kernel, &t, sizeof t);
    d.deps = deps;
    d.ndeps = (int)nk;
    d.priority = PRIO_PANEL;
    int rc = hyt_task_insert(seq, &d);
    free(deps);
    return rc;
}

/* lu.overlap_steps = auto (hyt_hybrid_overlap_steps): the loads take about 8 m n bytes, the
 * factorization about m n min(m,n) - min(m,n)^3 / 3 flops. */
static int early_steps(int m, int n, int kt)
{
    const double mn = (double)m * n, k = m < n ? m : n;
    return hyt_hybrid_overlap_steps(8 * mn, mn * k - k * k * k / 3, kt);
}

/* Step k's update of device g's local columns [l1, l2) in pieces of `chunk` columns, each
 * after its own columns (their tokens, RW) and panel k, and the swaps of step k on the
 * finished columns [0, lf) as a task of its own.  All gather into the device's state token,
 * so that the first whole-device update after them waits for them all. */
static int insert_pieces(hyt_sequence_t *seq, hybrid_t *h, int g, int k, int dk, int lf, int l1,
                         int l2, int chunk, hyt_tag_t tag)
{
    const int ndev = h->ndev, nmax = (lf > chunk ? lf : chunk) + 3;
    hyt_dep_t *deps = malloc((size_t)nmax * sizeof *deps);
    if (!deps)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    int rc = 0;
    /* pieces on fixed boundaries (multiples of chunk): step k's piece then waits only for
     * step k-1's same piece and its own loads, not for a piece shifted by a column that
     * reaches further into the matrix (a lag that grew by a piece per step) */
    for (int c1 = lf > 0 ? -1 : l1, c2; c1 < l2 && !rc; c1 = c1 < 0 ? l1 : c2) {
        /* c1 = -1: the swaps to the left */
        c2 = c1 < 0 ? lf : (c1 / chunk + 1) * chunk < l2 ? (c1 / chunk + 1) * chunk : l2;
        const int a = c1 < 0 ? 0 : c1, b = c2;
        int nd = 0;
        deps[nd++] = (hyt_dep_t){panel_key(h, g, k), HYT_READ};
        deps[nd++] = (hyt_dep_t){state_key(h, g), HYT_GATHER};
        deps[nd++] = (hyt_dep_t){done_key(h, g, k), HYT_GATHER};
        for (int l = a; l < b; l++)
            deps[nd++] = (hyt_dep_t){col_key(h, l * ndev + g), HYT_RW};
        rc = hyt_insert_gpu_dgetrf_update_deps(seq, tag, &h->g[g], k, dk, c1 < 0 ? 0 : a,
                                               c1 < 0 ? 0 : b, c1 < 0 ? lf : 0,
                                               HYT_STREAM_COMPUTE, deps, nd);
    }
    free(deps);
    return rc;
}

/* The loop nest with GPU panels (see the top of the file).  marks (or NULL): see
 * hyt_lu_params_t; the returns of the tile rows then wait for the last update. */
static int insert_gpu_panels(hyt_sequence_t *seq, hybrid_t *h, const hyt_desc_t *A, int *ipiv,
                             int *info, int la, double *marks)
{
    const int nt = A->nt, nb = A->nb, ndev = h->ndev;
    const int minmn = A->m < A->n ? A->m : A->n, kt = (minmn + nb - 1) / nb;
    const int D = la < 1 ? 1 : la; /* lookahead columns; at least the next panel's */
    const int chunk = hyt_hybrid_piece_cols(nb, h->g[0].ncols); /* an early step's pieces */
    /* steps cut in pieces (lu.overlap_steps) */
    const long ov = hyt_config_get_int(hyt_context_config(h->ctx), "lu.overlap_steps");
    const int kc = !h->arriving ? 1
                   : ov < 0     ? early_steps(A->m, A->n, kt)
                   : ov < kt    ? (int)ov
                                : kt;
    int rc = 0;
    // the columns to their devices; each column's token orders its first users
    for (int j = 0; j < nt && !rc && !h->resident; j++)
        rc = hyt_insert_gpu_column_load(seq, (hyt_tag_t){PRIO_LOOKAHEAD - j, -1, -1, j},
                                        &h->g[j % ndev], A, j, col_key(h, j), NULL,
                                        load_key(h, j));
    if (marks && !rc)
        rc = insert_mark(seq, h, &marks[0]);
    for (int k = 0; k < kt && !rc; k++) {
        const int mrows = A->m - k * nb, wk = hyt_tile_nb(A, k), dk = mrows < wk ? mrows : wk;
        const int o = k % ndev;

        // panel, on its owner, then its pivots to the host and copies to the other devices
        rc = hyt_insert_gpu_panel(seq, (hyt_tag_t){PRIO_PANEL, k, k, k}, &h->g[o], k, mrows, wk,
                                  h->h_piv + (int64_t)k * nb, h->h_info + k, col_key(h, k),
                                  panel_key(h, o, k), done_key(h, o, k));
        if (!rc)
            rc = hyt_insert_gpu_panel_pivots(seq, (hyt_tag_t){PRIO_PANEL, k, k, k}, k, dk, nb,
                                             h->h_piv + (int64_t)k * nb, h->h_info + k, ipiv,
                                             info, order_key(h));
        for (int g = 0; g < ndev && !rc; g++)
            if (g != o)
                rc = hyt_insert_gpu_panel_peer(seq, (hyt_tag_t){PRIO_PANEL - 1, k, k, g},
                                               &h->g[g], &h->g[o], k, dk, panel_key(h, o, k),
                                               panel_key(h, g, k));

        // lookahead: the next columns, each on its owner's lookahead stream (high priority,
        // not queued behind the next panel; on every SM, where gpu.panel_sms bounds the panel)
        for (int j = k + 1; j <= k + D && j < nt && !rc; j++) {
            int g = j % ndev;
            hyt_dep_t deps[3] = {{panel_key(h, g, k), HYT_READ}, {col_key(h, j), HYT_RW},
                                 {done_key(h, g, k), HYT_GATHER}};
            rc = hyt_insert_gpu_dgetrf_update_deps(seq, (hyt_tag_t){PRIO_LOOKAHEAD - j, k, k + 1,
                                                                    j},
                                                   &h->g[g], k, dk, j / ndev, j / ndev + 1, 0,
                                                   HYT_STREAM_LOOKAHEAD, deps, 3);
        }

        // the rest of each device's columns, and the swaps to the left of its finished ones
        for (int g = 0; g < ndev && !rc; g++) {
            /* lf: the finished local columns (j < k; the panel's own column was swapped by its
             * factorization); the rest starts after the lookahead columns */
            int lf = first_local_after(k - 1, g, ndev), l1 = first_local_after(k + D, g, ndev);
            int l2 = h->g[g].ncols, jb = k + D + 1;
            hyt_tag_t tag = {nt - k, k, k + 1, -1};
            if (k < kc) {
                rc = insert_pieces(seq, h, g, k, dk, lf, l1, l2, chunk, tag);
                continue;
            }
            /* the boundary column k+D+1, a lookahead column of the next step, keeps its token */
            hyt_dep_t deps[4];
            int nd = 0;
            deps[nd++] = (hyt_dep_t){panel_key(h, g, k), HYT_READ};
            deps[nd++] = (hyt_dep_t){state_key(h, g), HYT_RW};
            deps[nd++] = (hyt_dep_t){done_key(h, g, k), HYT_GATHER};
            if (jb < nt && jb % ndev == g)
                deps[nd++] = (hyt_dep_t){col_key(h, jb), HYT_RW};
            rc = hyt_insert_gpu_dgetrf_update_deps(seq, tag, &h->g[g], k, dk, l1, l2, lf,
                                                   HYT_STREAM_COMPUTE, deps, nd);
        }

        // tile row k is final everywhere after step k: back to the host while the
        // factorization goes on
        for (int g = 0; g < ndev && !rc && !marks && !h->resident; g++)
            rc = hyt_insert_gpu_tilerow_return(seq, (hyt_tag_t){PRIO_LOOKAHEAD, k, k, -1},
                                               &h->g[g], A, k, done_key(h, g, k));
    }
    // the tile rows below the last step (tall matrices); with marks, all of them
    if (marks && !rc)
        rc = insert_mark(seq, h, &marks[1]);
    for (int r = marks ? 0 : kt; r < A->mt && !rc && !h->resident; r++)
        for (int g = 0; g < ndev && !rc; g++)
            rc = hyt_insert_gpu_tilerow_return(seq, (hyt_tag_t){0, kt, r, -1}, &h->g[g], A, r,
                                               done_key(h, g, kt - 1));
    return rc;
}

/* The loop nest with CPU panels (see the top of the file). */
static int insert_cpu_panels(hyt_sequence_t *seq, hybrid_t *h, const hyt_desc_t *A, int *ipiv,
                             int *info, const hyt_lu_params_t *p, const void **piv_keys)
{
    const int mt = A->mt, nt = A->nt, nb = A->nb, la = p->lookahead, ndev = h->ndev;
    const int minmn = A->m < A->n ? A->m : A->n, kt = (minmn + nb - 1) / nb;
    const int nw = hyt_context_num_workers(h->ctx);
    const int64_t tile = (int64_t)nb * nb;
    int rc = 0;
    for (int j = la + 1; j < nt && !rc; j++)
        rc = hyt_insert_gpu_column_load(seq, (hyt_tag_t){PRIO_LOOKAHEAD - j, -1, -1, j},
                                        &h->g[j % ndev], A, j, col_key(h, j),
                                        state_key(h, j % ndev), load_key(h, j));

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
                                          &h->g[gl], k, dk, ll, ll + 1, 0, HYT_STREAM_COMPUTE,
                                          panel_key(h, gl, k), state_key(h, gl),
                                          col_key(h, lead));
        if (!rc)
            rc = hyt_insert_gpu_column_return(seq, (hyt_tag_t){PRIO_LOOKAHEAD - lead, k, -1,
                                                               lead},
                                              &h->g[gl], A, lead, col_key(h, lead), NULL);
        // the rest of each device's columns, older steps first
        for (int g = 0; g < ndev && !rc; g++)
            rc = hyt_insert_gpu_dgetrf_update(seq, (hyt_tag_t){nt - k, k, k + 1, -1}, &h->g[g],
                                              k, dk, first_local_after(lead, g, ndev),
                                              h->g[g].ncols, 0, HYT_STREAM_COMPUTE,
                                              panel_key(h, g, k), state_key(h, g), NULL);
    }
    // columns right of the last lead column (wide matrices) come back after the last update
    for (int j = kt + la + 1; j < nt && !rc; j++)
        rc = hyt_insert_gpu_column_return(seq, (hyt_tag_t){0, kt, -1, j}, &h->g[j % ndev], A, j,
                                          state_key(h, j % ndev), NULL);

    // swaps to the left, on the host tiles of L
    for (int j = 0; j + 1 < kt && !rc; j++)
        rc = hyt_insert_dlaswp(seq, (hyt_tag_t){0, -1, -1, j}, A, j, j + 1, j + 1, kt, ipiv,
                               minmn, 1, piv_keys);
    return rc;
}

/* Panel slots per device for lookahead la: the panels in flight (NPBUF_MAX where the columns
 * still arrive and the memory allows, hybrid_lu). */
static int npbuf_of(int la) { return la + 3 < NPBUF_MAX ? la + 3 : NPBUF_MAX; }

/* Device g's part of the hybrid LU of an mt x nt tile matrix (tile size nb) on ndev devices,
 * described (its workspaces' sizes: hyt_gpu_lu_bytes), with GPU panels also set up
 * (hyt_gpu_panel_setup: the panel's handle and workspace).  0 or the setup's error. */
static int describe_device(hyt_context_t *ctx, int g, int ndev, int mt, int nt, int nb,
                           int npbuf, int gpu, hyt_gpu_lu_t *d)
{
    memset(d, 0, sizeof *d);
    d->dev = hyt_context_device(ctx, g);
    d->index = g;
    d->ndev = ndev;
    d->nb = nb;
    d->mt = mt;
    d->tile = (int64_t)nb * nb;
    d->colsz = d->tile * mt;
    d->ncols = hyt_dmat_local_cols(nt, ndev, g);
    d->npbuf = npbuf;
    d->gpu_panel = gpu;
    d->panel_ctas = (int)hyt_config_get_int(hyt_context_config(ctx), "gpu.panel_ctas");
    d->panel_native_rows = hyt_lu_panel_native_rows(ctx);
    return gpu ? hyt_gpu_panel_setup(d) : 0;
}

int hyt_lu_dmat_workspace(hyt_context_t *ctx, int m, int n, int nb, size_t *need)
{
    const int ndev = hyt_context_num_devices(ctx);
    if (m < 1 || n < 1 || nb < 1 || ndev < 1)
        return hyt_error(HYT_ERR_INVALID, "the LU's workspace: %d x %d, nb %d, %d devices", m, n,
                         nb, ndev);
    hyt_lu_params_t p;
    int rc = hyt_lu_params(ctx, m, n, &p);
    const int mt = (m + nb - 1) / nb, nt = (n + nb - 1) / nb;
    for (int g = 0; g < ndev && !rc; g++) {
        hyt_gpu_lu_t d;
        rc = describe_device(ctx, g, ndev, mt, nt, nb, npbuf_of(p.lookahead), 1, &d);
        need[g] = rc ? 0 : hyt_gpu_lu_bytes(&d);
    }
    return rc;
}

/* The hybrid LU of A (CCRB host tiles, or only its sizes when dA is given: the matrix on the
 * devices, factored in place).  Without dA the columns go to a temporary device matrix: load,
 * factor, return, free. */
static int hybrid_lu(hyt_sequence_t *seq, const hyt_desc_t *A, hyt_dmat_t *dA, int *ipiv,
                     int *info, const hyt_lu_params_t *p, int arriving)
{
    hyt_context_t *ctx = hyt_sequence_context(seq);
    const int mt = A->mt, nt = A->nt, nb = A->nb, la = p->lookahead, ndev = p->ndevices;
    const int minmn = A->m < A->n ? A->m : A->n;
    const int kt = (minmn + nb - 1) / nb;
    const int gpu = dA ? 1 : p->gpu_panel; /* a CPU panel needs the host tiles */
    const int64_t tile = (int64_t)nb * nb;
    if (A->layout != HYT_LAYOUT_CCRB)
        return hyt_error(HYT_ERR_INVALID, "the hybrid LU needs a CCRB (tile layout) matrix");
    if (kt == 0)
        return HYT_SUCCESS;
    /* for a trace's reader (tools/trace_summary.py): the problem and its steps */
    const struct { const char *key; int v; } notes[] = {
        {"lu.m", A->m}, {"lu.n", A->n}, {"lu.nb", nb}, {"lu.lookahead", la}};
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
        char v[16];
        snprintf(v, sizeof v, "%d", notes[i].v);
        hyt_trace_note(ctx, notes[i].key, v);
    }

    // setup: check and allocate device memory before inserting anything
    hybrid_t *h = calloc(1, sizeof *h);
    if (!h)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    h->ctx = ctx;
    h->ndev = ndev;
    h->nt = nt;
    h->npbuf = npbuf_of(la);
    h->resident = dA != NULL;
    h->arriving = arriving && !p->marks; /* marks: the first panel waits for all columns */
    h->g = calloc((size_t)ndev, sizeof *h->g);
    size_t *ws = calloc((size_t)ndev, sizeof *ws);
    h->h_piv = hyt_host_malloc(ctx, (size_t)kt * ndev * nb * sizeof(int));
    if (gpu) {
        h->h_info = hyt_host_malloc(ctx, (size_t)kt * sizeof(int));
        h->h_ident = calloc((size_t)tile, sizeof(double));
        for (int i = 0; h->h_ident && i < nb; i++)
            h->h_ident[i + (int64_t)i * nb] = 1.0;
    } else {
        h->h_linv = hyt_host_malloc(ctx, (size_t)kt * tile * sizeof(double));
    }
    if (!h->g || !ws || !h->h_piv || (gpu ? !h->h_info || !h->h_ident : !h->h_linv)) {
        free(ws);
        hybrid_free(h);
        return hyt_error(HYT_ERR_NOMEM, "out of host memory for the hybrid LU's workspaces");
    }
    int rc = 0;
    for (int g = 0; g < ndev && !rc; g++) {
        rc = describe_device(ctx, g, ndev, mt, nt, nb, h->npbuf, gpu, &h->g[g]);
        h->g[g].h_ident = h->h_ident;
        ws[g] = hyt_gpu_lu_bytes(&h->g[g]);
    }
    /* With arriving columns the panels can run only npbuf - 1 steps ahead of the oldest step
     * whose pieces still wait for columns (a panel slot is reused once every update that
     * read it is done), and no step finishes before the last column arrives: all the slots
     * (NPBUF_MAX) where the memory allows, a 1/16 margin kept. */
    if (!rc && h->arriving && gpu && h->npbuf < NPBUF_MAX) {
        int fits = 1;
        for (int g = 0; g < ndev && fits; g++) {
            hyt_gpu_lu_t t = h->g[g];
            t.npbuf = NPBUF_MAX;
            size_t need = hyt_gpu_lu_bytes(&t);
            if (!dA)
                need += hyt_dmat_alloc_bytes(A->m, A->n, nb, ndev, g);
            fits = need + need / 16 <= hyt_device_mem_available(t.dev);
        }
        for (int g = 0; g < ndev && fits; g++) {
            h->g[g].npbuf = NPBUF_MAX;
            ws[g] = hyt_gpu_lu_bytes(&h->g[g]);
        }
        if (fits)
            h->npbuf = NPBUF_MAX;
    }
    // the columns: the device matrix (checked with the workspaces), then the workspaces
    char what[160];
    snprintf(what, sizeof what, "the hybrid LU of a %d x %d matrix (nb %d, %d devices)", A->m,
             A->n, nb, ndev);
    if (!rc && dA) {
        h->dA = dA;
        rc = hyt_hybrid_check_memory(ctx, ndev, ws, what);
    } else if (!rc) {
        rc = hyt_dmat_alloc(ctx, A->m, A->n, nb, ws, what, &h->dA);
        h->own_dA = !rc;
    }
    free(ws);
    if (!rc)
        rc = hyt_lu_tokens_init(&h->tok, h->dA, h->npbuf);
    for (int g = 0; g < ndev && !rc; g++) {
        h->g[g].cols = h->dA->cols[g];
        rc = hyt_gpu_lu_alloc(&h->g[g]);
    }
    if (rc) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", hyt_last_error());
        hybrid_free(h);
        return hyt_error(rc, "%s", msg);
    }
    const void **piv_keys = hyt_piv_keys(ipiv, kt, nb);
    if (!piv_keys) {
        hybrid_free(h);
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    }
    hyt_progress_reset(ctx, kt);

    // the devices' workspaces, then the loop nest
    for (int g = 0; g < ndev && !rc; g++) {
        const void *slots[NPBUF_MAX];
        for (int k = 0; k < h->npbuf; k++)
            slots[k] = panel_key(h, g, k);
        rc = hyt_insert_gpu_lu_init(seq, (hyt_tag_t){PRIO_PANEL, -1, -1, g}, &h->g[g],
                                    state_key(h, g), slots);
    }
    if (!rc)
        rc = gpu ? insert_gpu_panels(seq, h, A, ipiv, info, la, p->marks)
                 : insert_cpu_panels(seq, h, A, ipiv, info, p, piv_keys);
    free(piv_keys);

    // cleanup after every device task (inserted even after an error: it is an "always" task),
    // which frees the devices' memory also when the sequence failed; with CPU panels also
    // after each inversion of L_kk (RW on its tile of h_linv): when the insertion stopped
    // before that step's broadcasts, which read it on the tokens, no token comes after it
    const size_t nk = ntokens(h), nlinv = h->h_linv ? (size_t)kt : 0;
    hyt_dep_t *deps = all_tokens(h, nlinv);
    for (size_t k = 0; deps && k < nlinv; k++)
        deps[nk + k] = (hyt_dep_t){h->h_linv + k * tile, HYT_RW};
    int rc2 = hyt_drv_insert_cleanup(seq, hybrid_free, h, deps, (int)(nk + nlinv));
    free(deps);
    return rc ? rc : rc2;
}

int hyt_pdgetrf_hybrid(hyt_sequence_t *seq, const hyt_desc_t *A, int *ipiv, int *info,
                       const hyt_lu_params_t *p)
{
    return hybrid_lu(seq, A, NULL, ipiv, info, p, 1);
}

int hyt_pdgetrf_dmat(hyt_sequence_t *seq, hyt_dmat_t *dA, int *ipiv, int *info,
                     const hyt_lu_params_t *p, int arriving)
{
    /* A's sizes only: the loop nest never touches host tiles when the matrix is resident */
    hyt_desc_t A = {.m = dA->m, .n = dA->n, .nb = dA->nb, .mt = dA->mt, .nt = dA->nt,
                    .layout = HYT_LAYOUT_CCRB, .ctx = dA->ctx};
    hyt_lu_params_t q = *p;
    q.ndevices = dA->ndev;
    q.marks = NULL;
    return hybrid_lu(seq, &A, dA, ipiv, info, &q, arriving);
}
