/*
 * The hybrid Cholesky: diagonal tiles and panels on the CPUs, the trailing update on the
 * devices, every copy a task, all one DAG (the hybrid LU's scheme, pdgetrf_hybrid.c, with CPU
 * panels).  Inserts tasks only.  Lower, A = L L^T, on a CCRB matrix T (the caller's own when it
 * is CCRB and 'L', else a lower CCRB copy: chol_copy.c, for a LAPACK array or an upper
 * triangle, whose tile columns are not tile columns of L).
 *
 * Ownership at step k: tile columns j <= k + la are the CPUs' (host tiles); columns j > k + la
 * live on the devices, 1D block-cyclic (column j on device j % ndev, the device matrix of
 * drivers/hyt_hybrid.h, CRRB).  Before step 0 the columns la+1 .. nt-1 are loaded.  Step k:
 *
 *   diagonal tile     L_kk = potrf(A_kk)                         CPU   (critical path)
 *   panel             L_ik = A_ik inv(L_kk)^T, i > k             CPU, a task per tile
 *   broadcast         tiles lead..mt-1 of column k to each       H2D, a copy task per device
 *                     device that owns a column >= lead = k+la+1
 *   lookahead         columns k+1 .. k+la: SYRK + GEMMs          CPU, in row ranges
 *   lead column       column lead updated by step k on its       device, LOOKAHEAD stream
 *                     owner, then back to the host tiles         D2H (the column shift: from
 *                                                                step k+1 on it is a CPU column)
 *   the rest          each device's columns > lead, one task     device, COMPUTE stream
 *
 * With la = 0 the lead column is k+1: it comes back and the CPU factors it at the next step.
 * Every device column becomes the lead column once (column j at step j - la - 1), so at the
 * end every column is back in the host tiles.
 *
 * Dependencies of the device tasks (tokens; the host tiles are regions):
 *   col[j]     column j on its device (the device matrix's token): its load writes it, the
 *              lead update of column j and the return read / write it;
 *   state[g]   device g's columns as a whole: the loads gather into it, each step's rest
 *              task reads and writes it (the rests of one device run in step order);
 *   slot[g,s]  device g's panel slot s: the broadcast writes it, the updates read it.
 * The rest task of step k also writes col[lead+1] (the next lead column) when its device owns
 * it: the lead update of step k+1 waits for it, and for nothing else on that device.  A lead
 * update needs no state: its column's earlier updates all wrote col[lead].
 *
 * INFO: the CPU tasks take it as their stop flag (as pdpotrf.c); a device update reads it when
 * it starts, when it is final for the steps up to its own (it waits for its broadcast, which
 * waits for the panel, which waits for the diagonal tile, which waits for the earlier ones),
 * and does nothing after a failure: the result is the CPU-only factorization's, exactly where
 * the steps are skipped.  The copies always run, so every column comes back.
 *
 * GPU panels (hyt_pdpotrf_dmat: a device matrix, factored in place, no host tiles): the same
 * loop nest with every column on the devices from the start (no loads, no returns).  Step k:
 *
 *   panel             potf2 of the diagonal tile (in pieces), the    owner of k, LOOKAHEAD stream
 *                     solve of the tiles below (a GEMM with the      (gpu_dpotrf_hybrid_tasks.c)
 *                     inverse, or a TRSM), in column k itself
 *   panel copies      tiles k..mt-1 of column k to the slot of every  D2D, a copy per device,
 *                     device that owns a column > k (its owner too)   on the receiver's LOOKAHEAD
 *   lookahead         columns k+1 .. lead-1, one task each            owner, LOOKAHEAD stream
 *   lead column       column lead = k+la+1                            owner, LOOKAHEAD stream
 *   the rest          each device's columns > lead, one task          device, COMPUTE stream
 *
 * so the CPUs' lookahead columns become device lookahead columns (la + 1 columns on the
 * LOOKAHEAD streams, as the hybrid has la on the CPUs and the lead one on a device).
 *
 * Groups (GPU panels, h->group = G, chol.group as in pdpotrf_gpu.c): the steps are taken G at
 * a time, k0 .. k1; a slot holds the group's panels one above the other (their copies land in
 * rows (k % G) nb of it), so that an update applies them all with K = G nb.  A step k < k1
 * updates only the group's later columns k+1 .. k1, by panel k alone (LOOKAHEAD); the group's
 * last step k1 has the lookahead columns, the lead column and the rest above, each by the
 * group's panels together.  The lookahead is then at least G (0 stays 0), so that the next
 * group's columns are lookahead columns; the rest task writes the tokens of the columns
 * lead+1 .. lead+G, which leave it at the next group (G = 1: lead+1 as above).  A slot's panel
 * copies write its token, so the copy of panel k+1 also waits for the updates that read panel
 * k from that slot (the group's later columns: those the next panel needs anyway).  A
 * LAPACK-layout call's nest on a lower array keeps G = 1 unless chol.group is set
 * (panel_group).
 *
 * A caller's `after` (hyt_chol_after_t) inserts its own tasks after each panel's copies: the
 * LAPACK-layout calls return column k to the program's array there (dpotrf_devices.c).
 * Tokens: col[j] is also written by the panel of step j and read by its copies (the updates
 * read the slots, never column k itself); the rest task of the first group also writes every
 * column it updates, so that it waits for the calls inserted before on the same matrix (the
 * other tasks of that group have their column's token: the panels, the group's later, the
 * lookahead and lead columns); info[g] orders the panels of device g (they write its dinfo)
 * before the copy of dinfo to the host.
 * INFO: each panel's potf2 pieces write their own device ints; after the last step each device
 * copies its ints to the host once and a CPU task takes the first nonzero entry (exactly
 * LAPACK's INFO: the steps before the first failure are exact).  The steps after a failure
 * still run, on garbage or NaN (nothing on the devices waits for a value, as in
 * pdpotrf_gpu.c): the tile columns from the failing one on are then undefined.
 *
 * When the columns arrive while the factorization runs (loaded from host tiles here, or
 * streamed in by the caller: the LAPACK-layout calls), one rest task per device would wait for
 * the whole matrix.  The rests of the early steps (chol.overlap_steps; auto, early_steps: those
 * that can run while the loads do, as the LU's lu.overlap_steps) are then cut in pieces of
 * about 4096 columns on fixed boundaries, each ordered by its own columns' tokens, so that the
 * GPUs update the columns that have arrived, left-looking behind the loads; such steps get
 * panel slots of their own (up to 16, when the devices' memory allows; else only step 0 is
 * cut), since a slot is reused only after the last piece of its step, which waits for the last
 * column.
 *
 * GPU panels on host tiles (a tile call with chol.panel = gpu, the default with CUDA
 * devices): every tile column is loaded onto its device first (the loads write col[j] and
 * gather into state[g], as the hybrid's), the GPU-panel nest runs on them, and column k
 * returns to the host tiles as soon as its panel's copies have read it (a return transposes
 * its column in place, so it writes col[k]), overlapped with the later steps.  With B (the
 * tile dposv) B's columns go to a device matrix after them, the solve runs on the devices
 * with the factor where it is (the returns then undo their transposition), and B's columns
 * come back unless INFO is nonzero.  Loads and returns move a column's lower part only (tiles
 * k .. mt-1); an upper matrix is factored as L = U^T, its tile row k moved as column k
 * (tiles/hyt_dev_columns.h), with no copy.  INFO as with a device matrix; the info task also
 * writes *info as a region, so that a solve inserted after it waits (pdpotrs.c).
 */
#include "chol_internal.h"
#include "hyt_dev_columns.h"
#include "hyt_hybrid.h"

#include <stdio.h>
#include <stdlib.h>

/* Priorities (higher runs first among ready tasks): diagonal tile and panel, then the
 * broadcast and the lead column, then the CPU lookahead columns, then the bulk, older steps
 * first. */
#define PRIO_PANEL (1 << 24)
#define PRIO_LOOKAHEAD (1 << 23)

/* What the tasks use until the end of the sequence; freed by the cleanup task. */
typedef struct hchol {
    hyt_context_t *ctx;
    int ndev, nslot;
    int group;           /* the steps whose panels share a slot (GPU panels: chol.group) */
    int kc, chunk;       /* GPU panels, columns arriving: steps 0 .. kc-1 in pieces of chunk
                          * local columns (0: none) */
    hyt_chol_hdev_t *d;  /* ndev */
    hyt_dmat_t *dA;      /* the columns */
    int own_dA;          /* dA is this call's (host tiles): freed by the cleanup */
    hyt_dmat_t *dB;      /* GPU panels on host tiles with a solve: B's columns, or NULL */
    int gpu;             /* GPU panels (on a device matrix, or on host tiles loaded into one) */
    int upper;           /* GPU panels on upper host tiles: U^T loaded and returned (trans) */
    int pieces;          /* GPU panels: potf2 pieces per diagonal tile */
    int *h_info;         /* GPU panels: page-locked, device g's dinfo at g * ncols[0] * pieces */
    int *info;           /* GPU panels: the caller's INFO */
    hyt_chol_after_t after; /* GPU panels on a device matrix: the caller's, after each panel */
    hyt_tokens_t *tok;   /* state[ndev], slot[ndev * nslot], info[ndev] */
} hchol_t;

static const void *state_key(const hchol_t *h, int g) { return hyt_token(h->tok, (size_t)g); }
static const void *slot_key(const hchol_t *h, int g, int k)
{
    return hyt_token(h->tok, (size_t)(h->ndev + g * h->nslot + (k / h->group) % h->nslot));
}
static const void *info_key(const hchol_t *h, int g)
{
    return hyt_token(h->tok, (size_t)(h->ndev * (1 + h->nslot) + g));
}
static size_t ntokens(const hchol_t *h) { return (size_t)h->ndev * (2 + h->nslot); }
static const void *col_key(const hchol_t *h, int j) { return hyt_dmat_col_key(h->dA, j); }
/* Tile column j on its device, for the column loads and returns (tiles/hyt_dev_columns.h):
 * its lower part only, tiles j .. mt-1 (no device task reads or writes the others); with
 * upper host tiles (h->upper) the transposes of tiles (j, j ..).  GPU panels: a return writes
 * the column's token, so it runs after the panel's copies, which read it, and before a
 * solve's reads, for which it keeps the column usable (the transposition undone: 2-3% of
 * the factorization's time on one H100 at n = 32768, so only with a solve). */
static hyt_dev_column_t dev_column(const hchol_t *h, int j)
{
    const hyt_chol_hdev_t *d = &h->d[j % h->ndev];
    return (hyt_dev_column_t){.dev = d->dev, .dcol = d->cols + (int64_t)(j / h->ndev) * d->colsz,
                              .nb = d->nb, .mt = d->mt, .row0 = j, .trans = h->upper,
                              .keep = h->gpu && h->dB, .rw = h->gpu};
}

static void hchol_free(void *p)
{
    hchol_t *h = p;
    for (int g = 0; h->d && g < h->ndev; g++) {
        hyt_device_free(h->d[g].dev, h->d[g].slots);
        if (h->d[g].dinfo)
            hyt_device_free(h->d[g].dev, h->d[g].dinfo);
        if (h->d[g].work)
            hyt_device_free(h->d[g].dev, h->d[g].work);
    }
    if (h->own_dA)
        hyt_dmat_free(h->dA);
    if (h->dB)
        hyt_dmat_free(h->dB);
    hyt_host_free(h->ctx, h->h_info);
    hyt_tokens_destroy(h->tok);
    free(h->d);
    free(h);
}

/* First local column of device g holding a global column > j. */
static int first_local_after(int j, int g, int ndev)
{
    int j0 = j + 1 + ((g - (j + 1)) % ndev + ndev) % ndev;
    return j0 / ndev;
}

/* chol.overlap_steps = auto (hyt_hybrid_overlap_steps): the loads of the lower triangle take
 * about 4 n^2 bytes, the factorization n^3 / 3 flops. */
static int early_steps(int n, int nt)
{
    return hyt_hybrid_overlap_steps(4.0 * n * n, (double)n * n * n / 3, nt);
}

/* Whether need[g] + nslot slots of slot bytes (+ the matrix's columns when not allocated yet)
 * fit on every device. */
static int slots_fit(hyt_context_t *ctx, int ndev, const size_t *need, size_t slot, int nslot,
                     const hyt_desc_t *T, int own)
{
    for (int g = 0; g < ndev; g++) {
        size_t b = need[g] + (size_t)nslot * slot;
        if (own)
            b += hyt_dmat_alloc_bytes(T->n, T->n, T->nb, ndev, g);
        if (b > hyt_device_mem_available(hyt_context_device(ctx, g)))
            return 0;
    }
    return 1;
}

/* The slots that hold the panels of nsteps steps in flight, group steps a slot (one more with
 * groups: the first panel of a group may wait for no slot while its predecessors are read), and
 * the steps that nslot such slots hold. */
static int slots_for(int nsteps, int group)
{
    return (nsteps + group - 1) / group + (group > 1);
}
static int steps_in(int nslot, int group) { return (nslot - (group > 1)) * group; }

/* GPU panels: the steps whose panels a slot holds and each device update applies at once
 * (chol.group, as hyt_dpotrf_device's), and the lookahead raised to at least that (0 stays 0)
 * so that the next group's panels never wait for the bulk update; CPU panels: 1.
 * streamed_lower: a LAPACK-layout call's on a lower array (its columns streamed in and out by
 * the caller's tasks), which keeps one step a slot unless chol.group is set: bound by those
 * copies, two steps measured 1-9% slower from 24576 and three slower everywhere, while upper
 * arrays gained 2-9% from two or three (one H200, 16384-40960; docs/performance.md, the
 * forty-seventh and forty-eighth stops). */
static int panel_group(hyt_context_t *ctx, int n, int gpu, int streamed_lower, int *la)
{
    const int g = !gpu || (streamed_lower && hyt_config_get_int(hyt_context_config(ctx),
                                                                "chol.group") <= 0)
                      ? 1
                      : hyt_chol_group(ctx, hyt_context_device(ctx, 0), n);
    *la = hyt_chol_group_lookahead(*la, g);
    return g;
}

/* Checks and allocates the device matrix (or takes dA, the caller's) and the panel slots
 * (synchronous); gpu: GPU panels, INFO to *info (dA given: always), group steps a slot;
 * arriving: the columns arrive during the factorization (GPU panels: its early steps in
 * pieces). */
static int setup(hyt_context_t *ctx, const hyt_desc_t *T, int la, hyt_dmat_t *dA, int gpu,
                 int group, int arriving, int *info, hchol_t **out)
{
    const int ndev = dA ? dA->ndev : hyt_context_num_devices(ctx), nb = T->nb, mt = T->mt;
    const int nt = T->nt;
    const int64_t tile = (int64_t)nb * nb;
    /* the INFO ints with GPU panels (ncols * pieces); the workspace of the panels' solve, when
     * one has inv_rows rows below it */
    const int pieces = hyt_chol_pieces(nb);
    const size_t ninfo = gpu ? (size_t)pieces * sizeof(int) : 0;
    const int inv_rows = gpu ? hyt_chol_inv_rows(ctx) : 0;
    const size_t lwork = gpu && T->n - nb >= inv_rows && T->n > nb
                             ? hyt_chol_trsm_work(nb, T->n - nb)
                             : 0;
    size_t *need = calloc((size_t)ndev, sizeof *need);
    for (int g = 0; need && g < ndev && g < nt; g++)
        need[g] = ninfo * (size_t)hyt_dmat_local_cols(nt, ndev, g) + lwork * sizeof(double);
    /* panels in flight per device: la + 2.  Steps in pieces need more: no slot is reused
     * before every piece of its step has read it, and the last pieces wait for the last
     * columns, so the panels of every cut step must find a slot of their own, when the
     * devices' memory allows (else only the first step is cut).  Groups whose slots do not
     * fit beside the matrix fall back to one step a slot (the memory of before groups). */
    const int inflight = la + 2 < 16 ? la + 2 : 16;
    int nslot = slots_for(inflight, group) < 16 ? slots_for(inflight, group) : 16, kc = 0;
    if (need && group > 1 &&
        !slots_fit(ctx, ndev, need, (size_t)(tile * mt) * (size_t)group * sizeof(double), nslot,
                   T, !dA)) {
        group = 1;
        nslot = slots_for(inflight, 1);
    }
    const size_t slot = (size_t)(tile * mt) * (size_t)group * sizeof(double);
    const long ov = hyt_config_get_int(hyt_context_config(ctx), "chol.overlap_steps");
    const int steps = ov < 0 ? early_steps(T->n, nt) : ov < nt ? (int)ov : nt;
    if (need && gpu && arriving && steps > 0) {
        const int cut = slots_for(steps + la + 1, group), want = cut < 16 ? cut : 16;
        if (want > nslot && slots_fit(ctx, ndev, need, slot, want, T, !dA))
            nslot = want;
        const int held = steps_in(nslot, group) - la - 1;
        kc = held < steps ? held : steps;
    }
    hchol_t *h = calloc(1, sizeof *h);
    if (h) {
        h->ctx = ctx;
        h->ndev = ndev;
        h->nslot = nslot;
        h->group = group;
        h->kc = kc;
        h->gpu = gpu;
        h->pieces = pieces;
        h->info = info;
        h->d = calloc((size_t)ndev, sizeof *h->d);
        h->tok = hyt_tokens_create(ntokens(h));
        if (h->gpu) /* the first device holds the most columns */
            h->h_info = hyt_host_malloc(ctx, (size_t)ndev * hyt_dmat_local_cols(nt, ndev, 0) *
                                                 h->pieces * sizeof(int));
    }
    if (!h || !need || !h->d || !h->tok || (h->gpu && !h->h_info)) {
        free(need);
        if (h)
            hchol_free(h);
        return hyt_error(HYT_ERR_NOMEM, "out of host memory for the hybrid Cholesky");
    }
    for (int g = 0; g < ndev && g < nt; g++)
        need[g] += (size_t)h->nslot * slot;
    char what[160];
    snprintf(what, sizeof what, "the %s Cholesky of a %d x %d matrix (nb %d, %d devices)",
             dA ? "device matrix's" : h->gpu ? "GPU-panel" : "hybrid", T->n, T->n, nb, ndev);
    int rc;
    if (dA) {
        h->dA = dA;
        rc = hyt_hybrid_check_memory(ctx, ndev, need, what);
    } else {
        rc = hyt_dmat_alloc(ctx, T->n, T->n, nb, need, what, &h->dA);
        h->own_dA = !rc;
    }
    h->chunk = hyt_hybrid_piece_cols(nb, rc ? 1 : h->dA->ncols[0]); /* a cut step's pieces */
    for (int g = 0; g < ndev && !rc; g++) {
        hyt_chol_hdev_t *d = &h->d[g];
        *d = (hyt_chol_hdev_t){.dev = hyt_context_device(ctx, g), .index = g, .ndev = ndev,
                               .n = T->n, .nb = nb, .mt = mt, .ncols = h->dA->ncols[g],
                               .nslot = h->nslot, .group = group, .tile = tile,
                               .colsz = tile * mt,
                               .cols = h->dA->cols[g], .inv_rows = inv_rows};
        if (need[g])
            rc = hyt_device_malloc(d->dev, (void **)&d->slots, (size_t)h->nslot * slot);
        if (!rc && need[g] && h->gpu)
            rc = hyt_device_malloc(d->dev, (void **)&d->dinfo, ninfo * (size_t)d->ncols);
        if (!rc && need[g] && lwork) {
            d->lwork = lwork;
            rc = hyt_device_malloc(d->dev, (void **)&d->work, lwork * sizeof(double));
        }
    }
    free(need);
    if (rc) {
        hchol_free(h);
        return rc;
    }
    *out = h;
    return HYT_SUCCESS;
}

/* GPU panels: the panel of step k on its owner, then its copies to the devices' slots. */
static int insert_gpu_panel(hyt_sequence_t *seq, hchol_t *h, int k)
{
    const int o = k % h->ndev;
    const int64_t tile = h->d[o].tile;
    hyt_dep_t pd[2] = {{col_key(h, k), HYT_RW}, {info_key(h, o), HYT_RW}};
    /* the lookahead stream: the panel's solve is a large GEMM, and the panel stream may hold
     * only part of the SMs (gpu.panel_sms; pdpotrf_gpu.c) */
    int rc = hyt_insert_gpu_chol_dpanel(seq, (hyt_tag_t){PRIO_PANEL, k, k, k}, &h->d[o], k,
                                        HYT_STREAM_LOOKAHEAD, pd, 2);
    /* the updates read a slot, the owner's too: column k is final and read only here.  On
     * the receiver's lookahead stream, where its next panel and lookahead updates wait for it:
     * on the H2D stream it queued behind the column loads (a tile call's first panel copy
     * came after all 32 loads at n = 32768, 90 ms; docs/performance.md) */
    const double *src = hyt_dmat_col(h->dA, k) + k * tile;
    for (int g = 0; g < h->ndev && !rc; g++) {
        if (first_local_after(k, g, h->ndev) >= h->d[g].ncols)
            continue; /* no column right of k on g */
        rc = hyt_insert_gpu_chol_slot_copy(seq, (hyt_tag_t){PRIO_PANEL - 1, k, k, g}, &h->d[g],
                                           k, src, HYT_STREAM_LOOKAHEAD, col_key(h, k),
                                           slot_key(h, g, k));
    }
    return rc;
}

/* GPU panels: the INFO of every step, once, after the last panel. */
static int info_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const hchol_t *h = *(hchol_t *const *)p;
    const int nt = h->dA->nt, P = h->pieces;
    int info = 0;
    for (int k = 0; k < nt && !info; k++)
        for (int q = 0; q < P && !info; q++) {
            const int e = h->h_info[((int64_t)(k % h->ndev) * h->dA->ncols[0] + k / h->ndev) *
                                        P + q];
            if (e)
                info = hyt_chol_piece_info(k, q, h->dA->nb, e);
        }
    *h->info = info;
    return 0;
}

static const hyt_kernel_t info_kernel = {.name = "chol_dmat_info", .cpu = info_body,
                                         .cat = HYT_CAT_OTHER};

static int insert_info(hyt_sequence_t *seq, hchol_t *h)
{
    const int ndev = h->ndev, nt = h->dA->nt;
    hyt_dep_t *deps = malloc((size_t)(ndev + 1) * sizeof *deps);
    if (!deps)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    int rc = 0;
    for (int g = 0; g < ndev && !rc; g++) {
        deps[g] = (hyt_dep_t){info_key(h, g), HYT_RW};
        rc = hyt_insert_gpu_chol_dinfo(seq, (hyt_tag_t){PRIO_PANEL, nt, 0, g}, &h->d[g],
                                       h->h_info + (int64_t)g * h->dA->ncols[0] * h->pieces,
                                       &deps[g], 1);
    }
    if (!rc) { /* *info as a region too: a solve inserted after waits for it (pdpotrs.c) */
        deps[ndev] = (hyt_dep_t){h->info, HYT_RW};
        hyt_task_desc_t d = hyt_task_desc(&info_kernel, &h, sizeof h);
        d.deps = deps;
        d.ndeps = ndev + 1;
        rc = hyt_task_insert(seq, &d);
    }
    free(deps);
    return rc;
}

/* GPU panels on host tiles: column k back to the host after its panel and the panel's copies,
 * the last device tasks that read it (the updates read the copies); a solve's reads after. */
static int insert_return(hyt_sequence_t *seq, hchol_t *h, const hyt_desc_t *T, int k)
{
    const hyt_dev_column_t c = dev_column(h, k);
    return hyt_insert_dev_column_return(seq, (hyt_tag_t){PRIO_PANEL - 2, k, -1, k}, &c, T, k,
                                        col_key(h, k), NULL);
}

/* GPU panels, step k of the group k0 .. k1: the panel on its owner, its copies to the slots,
 * on host tiles the column's return; then, each on its owner's lookahead stream, the group's
 * later columns k+1 .. k1 by panel k alone when k < k1, else the lookahead columns k+1 .. k+la
 * by the group's panels together. */
static int insert_gpu_step(hyt_sequence_t *seq, hchol_t *h, const hyt_desc_t *T, int k, int k0,
                           int k1, int la)
{
    const int nt = h->dA->nt, ndev = h->ndev;
    const int p0 = k < k1 ? k : k0, last = k < k1 ? k1 : k + la;
    int rc = insert_gpu_panel(seq, h, k);
    if (!rc && h->own_dA)
        rc = insert_return(seq, h, T, k);
    else if (!rc && h->after.fn)
        rc = h->after.fn(seq, h->after.arg, k);
    for (int j = k + 1; j < nt && j <= last && !rc; j++) {
        const int g = j % ndev;
        hyt_dep_t dj[2] = {{slot_key(h, g, k), HYT_READ}, {col_key(h, j), HYT_RW}};
        rc = hyt_insert_gpu_chol_cols(seq, (hyt_tag_t){PRIO_LOOKAHEAD + 1 - j, k, j, j},
                                      &h->d[g], p0, k, j / ndev, j / ndev + 1,
                                      HYT_STREAM_LOOKAHEAD, NULL, dj, 2);
    }
    return rc;
}

/* CPU panels, step k: the diagonal tile and the panel on the CPUs, the broadcast to the
 * devices, the CPUs' lookahead columns k+1 .. k+la. */
static int insert_cpu_step(hyt_sequence_t *seq, hchol_t *h, const hyt_desc_t *T, int *info,
                           int la, int k)
{
    const int mt = T->mt, nt = T->nt, nb = T->nb, ndev = h->ndev;
    const int nw = hyt_context_num_workers(h->ctx), ld = hyt_tile_ld(T);
    const int nbk = hyt_tile_nb(T, k), lead = k + la + 1;
    int rc;
    // diagonal tile and panel, on the CPUs
    rc = hyt_insert_dpotrf(seq, (hyt_tag_t){PRIO_PANEL, k, k, k}, 'L', nbk,
                           hyt_tile(T, k, k), ld, k * nb, info);
    for (int i = k + 1; i < mt && !rc; i++)
        rc = hyt_insert_dtrsm_stop(seq, (hyt_tag_t){PRIO_PANEL - i, k, i, k}, 'R', 'L', 'T',
                                   'N', hyt_tile_mb(T, i), nbk, 1.0, hyt_tile(T, k, k), ld,
                                   hyt_tile(T, i, k), ld, info);

    // broadcast: the panel's rows that the device columns need (lead and below)
    for (int g = 0; g < ndev && lead < nt && !rc; g++)
        if (first_local_after(lead - 1, g, ndev) < h->d[g].ncols)
            rc = hyt_insert_gpu_chol_bcast(seq, (hyt_tag_t){PRIO_PANEL - mt, k, lead, g},
                                           &h->d[g], T, k, lead, slot_key(h, g, k));

    // lookahead: the CPUs' columns k+1 .. k+la, in row ranges when they are few
    const int ncols = (lead < nt ? lead : nt) - k - 1;
    const int chunks = ncols > 0 ? (2 * nw + ncols - 1) / ncols : 1;
    for (int j = k + 1; j < nt && j < lead && !rc; j++) {
        hyt_tag_t tag = {PRIO_LOOKAHEAD - j, k, j, j};
        const int rows = nt - j, nc = chunks < rows ? chunks : rows;
        for (int c = 0; c < nc && !rc; c++) {
            tag.i = j + rows * c / nc;
            rc = hyt_insert_dsyrk_col(seq, tag, 'L', T, k, j, tag.i,
                                      j + rows * (c + 1) / nc, info);
        }
    }
    return rc;
}

/* RW on every token of h and every column's, B's too (*n of them; NULL when out of
 * memory). */
static hyt_dep_t *all_deps(const hchol_t *h, int *n)
{
    const size_t nown = ntokens(h), na = nown + (size_t)h->dA->nt;
    const size_t nk = na + (h->dB ? (size_t)h->dB->nt : 0);
    hyt_dep_t *deps = malloc(nk * sizeof *deps);
    for (size_t t = 0; deps && t < nk; t++)
        deps[t] = (hyt_dep_t){t < nown ? hyt_token(h->tok, t)
                              : t < na ? col_key(h, (int)(t - nown))
                                       : hyt_dmat_col_key(h->dB, (int)(t - na)),
                              HYT_RW};
    *n = (int)nk;
    return deps;
}

/* GPU panels, columns arriving: the update of device g's local columns [l1, l2) by the panels
 * k0 .. k of a group, in pieces on fixed boundaries (multiples of h->chunk: a piece then waits
 * only for the previous group's same piece and its own columns, not for one shifted a column
 * further into the matrix), each ordered by its columns' tokens (RW) alone, so that the GPUs
 * update the columns that have arrived while the rest are on their way.  They gather into the
 * device's state token, so that the first whole-device update after them waits for them all. */
static int insert_pieces(hyt_sequence_t *seq, hchol_t *h, int g, int k0, int k, int l1, int l2)
{
    const int ndev = h->ndev, nt = h->dA->nt, chunk = h->chunk;
    hyt_dep_t *deps = malloc((size_t)(chunk + 2) * sizeof *deps);
    if (!deps)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    int rc = 0;
    for (int a = l1, b; a < l2 && !rc; a = b) {
        b = (a / chunk + 1) * chunk < l2 ? (a / chunk + 1) * chunk : l2;
        int nd = 0;
        deps[nd++] = (hyt_dep_t){slot_key(h, g, k), HYT_READ};
        deps[nd++] = (hyt_dep_t){state_key(h, g), HYT_GATHER};
        for (int l = a; l < b; l++)
            deps[nd++] = (hyt_dep_t){col_key(h, l * ndev + g), HYT_RW};
        rc = hyt_insert_gpu_chol_cols(seq, (hyt_tag_t){nt - k, k, a * ndev + g, -1}, &h->d[g],
                                      k0, k, a, b, HYT_STREAM_COMPUTE, NULL, deps, nd);
    }
    free(deps);
    return rc;
}

/* The loop nest on the lower CCRB matrix T (see the top of the file); nt > la + 1 with CPU
 * panels; with GPU panels any nt, and on a device matrix T gives the sizes only. */
static int insert_steps(hyt_sequence_t *seq, hchol_t *h, const hyt_desc_t *T, int *info, int la)
{
    const int nt = T->nt, ndev = h->ndev, gpu = h->gpu;
    /* the device updates' stop flag: none with GPU panels (INFO is on the devices) */
    const int *stop = gpu ? NULL : info;
    int rc = 0;
    // the device columns to their devices (host tiles: every column with GPU panels); the
    // first rest task of a device waits for them all
    for (int j = gpu ? 0 : la + 1; j < nt && !rc && h->own_dA; j++) {
        const hyt_dev_column_t c = dev_column(h, j);
        rc = hyt_insert_dev_column_load(seq, (hyt_tag_t){PRIO_LOOKAHEAD - j, -1, -1, j}, &c, T,
                                        j, col_key(h, j), state_key(h, j % ndev), NULL);
    }
    for (int k = 0; k < nt && !rc; k++) {
        /* the group of steps k0 .. k1 (CPU panels: k alone); a group's device updates but its
         * own columns' come at its last step, k1, by its panels together */
        const int k0 = k - k % h->group;
        const int k1 = k0 + h->group - 1 < nt - 1 ? k0 + h->group - 1 : nt - 1;
        const int lead = k + la + 1;

        // diagonal tile, panel and lookahead columns: on the devices or the CPUs
        rc = gpu ? insert_gpu_step(seq, h, T, k, k0, k1, la)
                 : insert_cpu_step(seq, h, T, info, la, k);
        if (k < k1 || lead >= nt || rc)
            continue;

        // the lead column on its device, first, then back to the host (CPU panels)
        const int gl = lead % ndev, ll = lead / ndev;
        hyt_dep_t dl[2] = {{slot_key(h, gl, k), HYT_READ}, {col_key(h, lead), HYT_RW}};
        rc = hyt_insert_gpu_chol_cols(seq, (hyt_tag_t){PRIO_LOOKAHEAD + 1, k, lead, lead},
                                      &h->d[gl], k0, k, ll, ll + 1, HYT_STREAM_LOOKAHEAD, stop,
                                      dl, 2);
        const hyt_dev_column_t cl = dev_column(h, lead);
        if (!rc && !gpu)
            rc = hyt_insert_dev_column_return(seq, (hyt_tag_t){PRIO_LOOKAHEAD + 1, k, -1, lead},
                                              &cl, T, lead, col_key(h, lead), NULL);

        // the rest of each device's columns, older steps first; early steps with the columns
        // arriving: in pieces
        for (int g = 0; g < ndev && !rc; g++) {
            const int l1 = first_local_after(lead, g, ndev), l2 = h->d[g].ncols;
            if (l1 >= l2)
                continue;
            if (gpu && k < h->kc) {
                rc = insert_pieces(seq, h, g, k0, k, l1, l2);
                continue;
            }
            /* the columns that leave the rest at the next group, lead + 1 .. lead + group, for
             * that group's updates; GPU panels, the first group: every column it updates
             * (after the calls before) */
            const int all = gpu && k0 == 0;
            hyt_deps_t dr;
            if (hyt_deps_init(&dr, 2 + (all ? l2 - l1 : h->group))) {
                rc = hyt_error(HYT_ERR_NOMEM, "out of memory");
                break;
            }
            hyt_deps_add(&dr, slot_key(h, g, k), HYT_READ);
            hyt_deps_add(&dr, state_key(h, g), HYT_RW);
            for (int l = l1; l < l2 && (all || l * ndev + g <= lead + h->group); l++)
                hyt_deps_add(&dr, col_key(h, l * ndev + g), HYT_RW);
            rc = hyt_insert_gpu_chol_cols(seq, (hyt_tag_t){nt - k, k, lead + 1, -1}, &h->d[g],
                                          k0, k, l1, l2, HYT_STREAM_COMPUTE, stop, dr.v, dr.n);
            hyt_deps_free(&dr);
        }
    }
    if (gpu && !rc)
        rc = insert_info(seq, h);
    return rc;
}

/* The cleanup after every device task (an "always" task: inserted also after an error), which
 * frees the devices' memory also when the sequence failed: RW on h's tokens and the columns'. */
static int insert_cleanup(hyt_sequence_t *seq, hchol_t *h)
{
    int nk;
    hyt_dep_t *deps = all_deps(h, &nk);
    int rc = hyt_drv_insert_cleanup(seq, hchol_free, h, deps, nk);
    free(deps);
    return rc;
}

/* On the CPU workers: the factorization, and the solve when B is given (it waits for INFO and
 * leaves B untouched when INFO is nonzero). */
static int cpu_insert(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, const hyt_desc_t *B,
                      int *info, const hyt_chol_params_t *p)
{
    int rc = hyt_pdpotrf(seq, uplo, A, info, p);
    return rc || !B ? rc : hyt_pdpotrs(seq, uplo, A, B, info);
}

/* GPU panels on host tiles, with a solve: B's columns to h->dB (allocated by the caller), the
 * solve on the devices with the factor where it is (hyt_pdpotrs_dmat: each sweep's step k
 * waits for column k's token, written by its return, which keeps the column), and B's
 * columns back unless INFO (the info task's region, *h->info) is nonzero. */
static int insert_dev_solve(hyt_sequence_t *seq, hchol_t *h, const hyt_desc_t *B)
{
    int rc = hyt_dmat_insert_b_in(seq, h->dB, B, PRIO_LOOKAHEAD);
    if (!rc)
        rc = hyt_pdpotrs_dmat(seq, h->dA, h->dB);
    return rc ? rc : hyt_dmat_insert_b_out(seq, h->dB, B, h->dB->nt, h->info);
}

/* The factorization of the lower CCRB matrix T: the hybrid, or with gpu GPU panels (every
 * column loaded onto the devices first and returned after its panel); upper (GPU panels
 * only): T's upper triangle, factored as the lower triangle of T^T (its tile rows loaded as
 * columns).  B (may be NULL): then the solve too, with GPU panels and CCRB tiles on the
 * devices, else on the CPU workers (hyt_pdpotrs). */
static int hybrid_tiles(hyt_sequence_t *seq, const hyt_desc_t *T, const hyt_desc_t *B, int *info,
                        int la, int gpu, int upper)
{
    hyt_context_t *ctx = hyt_sequence_context(seq);
    hchol_t *h = NULL;
    const int group = panel_group(ctx, T->n, gpu, 0, &la);
    int rc = setup(ctx, T, la, NULL, gpu, group, 1, info, &h);
    if (rc)
        return rc;
    h->upper = upper;
    /* the solve on the devices needs B's tile columns contiguous (CCRB, not a LAPACK view) */
    const int dev_solve = B && gpu && B->layout == HYT_LAYOUT_CCRB;
    if (dev_solve) { /* B's device matrix and the solve's workspace, before any task */
        const int ndev = h->ndev;
        size_t *need = calloc((size_t)ndev, sizeof *need);
        for (int g = 0; need && g < ndev; g++)
            need[g] = hyt_dmat_trs_bytes(T->n, B->n, T->nb, ndev, g, 0);
        char what[128];
        snprintf(what, sizeof what, "the solve of the GPU-panel Cholesky (n %d, %d right-hand "
                 "sides, nb %d, %d devices)", T->n, B->n, T->nb, ndev);
        rc = need ? hyt_dmat_alloc(ctx, T->n, B->n, T->nb, need, what, &h->dB)
                  : hyt_error(HYT_ERR_NOMEM, "out of memory");
        free(need);
        if (rc) {
            hchol_free(h);
            return rc;
        }
    }
    rc = insert_steps(seq, h, T, info, la);
    if (!rc && h->dB)
        rc = insert_dev_solve(seq, h, B);
    int rc2 = insert_cleanup(seq, h);
    if (!rc && !rc2 && B && !dev_solve)
        rc = hyt_pdpotrs(seq, upper ? 'U' : 'L', T, B, info);
    return rc ? rc : rc2;
}

/* ---- a LAPACK view, or an upper triangle with CPU panels: through a lower CCRB copy ------- */

static int via_copy(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, const hyt_desc_t *B,
                    int *info, int la, int gpu)
{
    hyt_desc_t *T;
    int rc = hyt_tile_copy_create(hyt_sequence_context(seq), A->n, A->n, A->nb, &T);
    if (rc)
        return rc;
    for (int j = 0; j < T->nt && !rc; j++)
        rc = hyt_insert_chol_copy(seq, (hyt_tag_t){PRIO_PANEL, -1, -1, j}, uplo, A, T, j, 0);
    if (!rc)
        rc = hybrid_tiles(seq, T, NULL, info, la, gpu, 0);
    for (int j = 0; j < T->nt && !rc; j++)
        rc = hyt_insert_chol_copy(seq, (hyt_tag_t){0, T->nt, -1, j}, uplo, A, T, j, 1);
    // free the copy after every task on its tiles (the returns write all of a column's)
    int rc2 = hyt_tile_copy_release(seq, T);
    if (!rc && !rc2 && B)
        rc = hyt_pdpotrs(seq, uplo, A, B, info);
    return rc ? rc : rc2;
}

int hyt_pdpotrf_hybrid(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, const hyt_desc_t *B,
                       int *info, const hyt_chol_params_t *p)
{
    /* no column beyond the CPUs' lookahead: nothing for the devices */
    if (A->nt <= p->lookahead + 1)
        return cpu_insert(seq, uplo, A, B, info, p);
    const int gpu = p->panel == 'g';
    /* CCRB tiles in place: lower, or upper with GPU panels (U^T's tiles are U's moved as they
     * are, tiles/hyt_dev_columns.h); else through a lower copy on the host */
    if (A->layout == HYT_LAYOUT_CCRB && (uplo == 'L' || gpu))
        return hybrid_tiles(seq, A, B, info, p->lookahead, gpu, uplo == 'U');
    return via_copy(seq, uplo, A, B, info, p->lookahead, gpu);
}

int hyt_chol_insert(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, const hyt_desc_t *B,
                    int *info, const hyt_chol_params_t *p)
{
    if (hyt_context_num_devices(hyt_sequence_context(seq)) > 0 && p->panel != 'n')
        return hyt_pdpotrf_hybrid(seq, uplo, A, B, info, p);
    return cpu_insert(seq, uplo, A, B, info, p);
}

int hyt_pdpotrf_dmat(hyt_sequence_t *seq, hyt_dmat_t *dA, int *info, int la,
                     const hyt_chol_after_t *after)
{
    /* A's sizes only: with GPU panels the loop nest never touches host tiles */
    hyt_desc_t A = {.m = dA->n, .n = dA->n, .nb = dA->nb, .mt = dA->mt, .nt = dA->nt,
                    .layout = HYT_LAYOUT_CCRB, .ctx = dA->ctx};
    hchol_t *h = NULL;
    hyt_context_t *ctx = hyt_sequence_context(seq);
    const int streamed = after && after->arriving;
    const int lower = !after || (after->uplo != 'U' && after->uplo != 'u');
    const int group = panel_group(ctx, dA->n, 1, streamed && lower, &la);
    int rc = setup(ctx, &A, la, dA, 1, group, streamed, info, &h);
    if (rc)
        return rc;
    if (after)
        h->after = *after;
    rc = insert_steps(seq, h, &A, info, la);
    int rc2 = insert_cleanup(seq, h);
    return rc ? rc : rc2;
}
