/*
 * The device tasks of the hybrid Cholesky (pdpotrf_hybrid.c): the panel broadcast, the update
 * of a device's tile columns and, for a device matrix (GPU panels), the panel on its owner and
 * its INFO to the host.  Layout (hyt_chol_hdev_t): device column j holds X_j, the
 * transpose of host tile column j (CRRB tiles), X_j(c, r) = A(r, j nb + c), column-major with
 * leading dimension nb; a panel slot holds the panels of d->group steps k0 .. (k0 a multiple of
 * the group) as Y = L(:, k0 nb .. k0 nb + group nb)^T, Y(p, r) = L(r, k0 nb + p), column-major
 * with leading dimension ld = group nb (with one step a slot: the CRRB tiles of X_k).  Row r
 * of the matrix is column r of X_j (at r nb doubles) and of Y (at r ld).
 *
 * The update of column j by steps k0 .. k1 of one slot, A(r, jc) -= sum_p L(r, p) L(jc, p)
 * over their columns p, for r >= j nb, is in these terms X_j(:, r) -= Y_j^T Y(:, r), with Y
 * the slot's rows of those steps (K = their width) and Y_j = Y(:, j nb .. j nb + nbj):
 *   diagonal tile   X_jj -= Y_j^T Y_j    SYRK, uplo 'U' trans 'T' (the upper triangle of X_jj
 *                                        is the lower one of A_jj; the other is never written)
 *   tiles below     X_j(:, (j+1) nb ..) -= Y_j^T Y(:, (j+1) nb ..)    one GEMM ('T', 'N')
 * Several steps at once give the GEMMs K = group nb (chol.group, as in pdpotrf_gpu.c).
 *
 * The panel of step k on the owner of column k, in place in X_k, whose diagonal tile X_kk is
 * A_kk^T: its upper triangle is A_kk's lower one, and the upper Cholesky X_kk = U^T U gives
 * U = L_kk^T (the upper triangle of X_kk is then L_kk's lower one):
 *   diagonal tile   potf2 'U' of X_kk in pieces of HYT_CHOL_DEV_PIECE columns (a blocked
 *                   Cholesky inside the tile: potf2 of the piece, TRSM of the piece's rows
 *                   right of it, SYRK of the rest), piece q's INFO to dinfo[l P + q]
 *   tiles below     L_ik = A_ik L_kk^-T, i.e. X_k(:, r) = U^-T X_k(:, r) for the rows r below
 *                   the tile, all at once (hyt_chol_trsm, the upper form): from d->inv_rows
 *                   rows (chol.inv_rows) a GEMM 'T','N' with inv(U) into d->work and a copy
 *                   back, else one TRSM, side L, upper, trans T, non-unit (the GEMM: 0.265 s
 *                   against 0.292 at n = 32768 on one H200, docs/performance.md)
 * Only the upper triangle of X_kk (A's lower) is read or written, so A's strictly upper
 * triangle is never touched.
 * Every kernel goes through the gpu_kernels/ dispatchers: cuBLAS on CUDA devices, CBLAS on
 * host devices (CI), with debug.fault_device on both.
 */
#include "chol_internal.h"
#include "hyt_gpu_kernels.h"

/* A task body's failure: the kernel's message to the sequence. */
static int forward(const hyt_devctx_t *dc, int rc)
{
    if (rc)
        hyt_sequence_fail(dc->seq, rc, "%s", hyt_last_error());
    return rc;
}

static int width(const hyt_chol_hdev_t *d, int j)
{
    int w = d->n - j * d->nb;
    return w < d->nb ? w : d->nb;
}

/* The slot of step k's panel on d's device: Y of its group (the header), column 0 */
static double *slot_of(const hyt_chol_hdev_t *d, int k)
{
    return d->slots + (int64_t)((k / d->group) % d->nslot) * d->group * d->colsz;
}

static int insert(hyt_sequence_t *seq, const hyt_kernel_t *kern, hyt_tag_t tag, const void *a,
                  size_t size, int device, int stream, const hyt_dep_t *deps, int ndeps)
{
    hyt_task_desc_t t = hyt_tagged_desc(kern, a, size, deps, ndeps, tag);
    t.device = device;
    t.stream = stream;
    return hyt_task_insert(seq, &t);
}

/* ---- panel broadcast ------------------------------------------------------------------------ */

typedef struct bcast_args {
    hyt_chol_hdev_t d;
    const double *host; /* host tile (i0, k); the column's tiles are contiguous (CCRB) */
    int k, i0;
} bcast_args_t;

static int bcast_body(const hyt_devctx_t *dc, void *p)
{
    const bcast_args_t *a = p;
    const hyt_chol_hdev_t *d = &a->d;
    double *dst = slot_of(d, a->k) + a->i0 * d->tile; /* d->group 1 */
    const int64_t ntiles = d->mt - a->i0;
    int rc = hyt_dev_memcpy_h2d(dc, dst, a->host, (size_t)(ntiles * d->tile) * sizeof(double));
    if (!rc)
        rc = hyt_gpu_transpose_tiles(dc, dst, d->nb, ntiles);
    return forward(dc, rc);
}

static const hyt_kernel_t bcast_kernel = {.name = "chol_panel_bcast", .dev = bcast_body,
                                          .cat = HYT_CAT_DMA};

int hyt_insert_gpu_chol_bcast(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_hdev_t *d,
                              const hyt_desc_t *A, int k, int i0, const void *slot_key)
{
    if (i0 >= d->mt)
        return HYT_SUCCESS;
    bcast_args_t a = {*d, hyt_tile(A, i0, k), k, i0};
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, d->mt - i0 + 1))
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    for (int i = i0; i < d->mt; i++)
        hyt_deps_add(&deps, hyt_tile(A, i, k), HYT_READ);
    /* the slot is rewritten: after the updates that read it nslot steps ago */
    hyt_deps_add(&deps, slot_key, HYT_WRITE);
    int rc = insert(seq, &bcast_kernel, tag, &a, sizeof a, hyt_device_index(d->dev),
                    HYT_STREAM_H2D, deps.v, deps.n);
    hyt_deps_free(&deps);
    return rc;
}

/* ---- column updates ----------------------------------------------------------------------- */

/* GPU panels: step k's panel to its rows of its slot (one contiguous copy with one step a
 * slot, else nb doubles of each of its columns r >= k nb, into rows (k % group) nb ..) */
typedef struct slot_args {
    hyt_chol_hdev_t d;
    int k;
    const double *src;
} slot_args_t;

static int slot_body(const hyt_devctx_t *dc, void *p)
{
    const slot_args_t *a = p;
    const hyt_chol_hdev_t *d = &a->d;
    const int64_t nb = d->nb, ld = d->group * nb, cols = (d->mt - a->k) * nb;
    double *dst = slot_of(d, a->k) + (a->k % d->group) * nb + a->k * nb * ld;
    if (d->group == 1)
        return forward(dc, hyt_dev_memcpy_d2d(dc, dst, a->src, (size_t)(cols * nb) *
                                                                   sizeof(double)));
    return forward(dc, hyt_dev_memcpy2d(dc, dst, (size_t)ld * sizeof(double), a->src,
                                        (size_t)nb * sizeof(double), (size_t)nb * sizeof(double),
                                        (size_t)cols, 2));
}

static const hyt_kernel_t slot_kernel = {.name = "chol_panel_copy", .dev = slot_body,
                                         .cat = HYT_CAT_DMA};

int hyt_insert_gpu_chol_slot_copy(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_hdev_t *d,
                                  int k, const double *src, int stream, const void *src_key,
                                  const void *slot_key)
{
    slot_args_t a = {*d, k, src};
    hyt_dep_t deps[2] = {{src_key, HYT_READ}, {slot_key, HYT_WRITE}};
    return insert(seq, &slot_kernel, tag, &a, sizeof a, hyt_device_index(d->dev), stream, deps,
                  2);
}

typedef struct cols_args {
    hyt_chol_hdev_t d;
    int k0, k1, l1, l2;
    const int *stop;
} cols_args_t;

static int cols_body(const hyt_devctx_t *dc, void *p)
{
    const cols_args_t *a = p;
    const hyt_chol_hdev_t *d = &a->d;
    /* INFO is final for steps <= k1 here: this task waits for the broadcast of step k1, which
     * waits for the panel of step k1, which waits for its diagonal tile (and that for the
     * earlier ones) */
    if (hyt_stopped(a->stop))
        return 0;
    const int nb = d->nb, ld = d->group * nb;
    const int kw = (a->k1 - a->k0) * nb + width(d, a->k1); /* the steps' columns */
    const double *Y = slot_of(d, a->k0) + (a->k0 % d->group) * nb;
    int rc = 0;
    for (int l = a->l1; l < a->l2 && !rc; l++) {
        const int j = l * d->ndev + d->index, nbj = width(d, j), below = d->n - (j + 1) * nb;
        const double *Yj = Y + (int64_t)j * nb * ld;
        double *X = d->cols + l * d->colsz;
        rc = hyt_gpu_dsyrk(dc, 'U', 'T', nbj, kw, -1.0, Yj, ld, 1.0, X + j * d->tile, nb);
        if (!rc && below > 0)
            rc = hyt_gpu_dgemm_batched(dc, 'T', 'N', nbj, below, kw, -1.0, Yj, ld, 0,
                                       Yj + (int64_t)nb * ld, ld, 0, 1.0, X + (j + 1) * d->tile,
                                       nb, 0, 1, 1);
    }
    return forward(dc, rc);
}

static const hyt_kernel_t cols_kernel = {.name = "chol_cols_update", .dev = cols_body,
                                         .cat = HYT_CAT_GPU};

int hyt_insert_gpu_chol_cols(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_hdev_t *d,
                             int k0, int k1, int l1, int l2, int stream, const int *stop,
                             const hyt_dep_t *deps, int ndeps)
{
    if (l1 >= l2)
        return HYT_SUCCESS;
    cols_args_t a = {*d, k0, k1, l1, l2, stop};
    return insert(seq, &cols_kernel, tag, &a, sizeof a, hyt_device_index(d->dev), stream, deps,
                  ndeps);
}

/* ---- GPU panels: the panel of step k on its owner, INFO to the host ------------------------- */

typedef struct dpanel_args {
    hyt_chol_hdev_t d;
    int k;
    int *h_info; /* the INFO copy's destination */
} dpanel_args_t;

static int dpanel_body(const hyt_devctx_t *dc, void *p)
{
    const dpanel_args_t *a = p;
    const hyt_chol_hdev_t *d = &a->d;
    const int nb = d->nb, nbk = width(d, a->k), below = d->n - (a->k + 1) * nb;
    const int pieces = hyt_chol_pieces(nb), l = a->k / d->ndev;
    double *Xkk = d->cols + l * d->colsz + a->k * d->tile;
    int rc = 0;
    /* the pieces after a failure still run (on garbage): each writes its own INFO entry, the
     * empty ones of a short last tile too (an empty potf2 writes 0) */
    for (int q = 0, p0 = 0; q < pieces && !rc; q++, p0 += HYT_CHOL_DEV_PIECE) {
        const int left = nbk > p0 ? nbk - p0 : 0;
        const int w = left < HYT_CHOL_DEV_PIECE ? left : HYT_CHOL_DEV_PIECE, rest = left - w;
        double *P = Xkk + p0 + (int64_t)p0 * nb; /* X_kk(p0, p0) */
        rc = hyt_gpu_dpotf2(dc, 'U', w, P, nb, d->dinfo + (int64_t)l * pieces + q);
        if (!rc && rest > 0)
            rc = hyt_gpu_dtrsm(dc, 'L', 'U', 'T', 'N', w, rest, 1.0, P, nb,
                               P + (int64_t)w * nb, nb);
        if (!rc && rest > 0)
            rc = hyt_gpu_dsyrk(dc, 'U', 'T', rest, w, -1.0, P + (int64_t)w * nb, nb, 1.0,
                               P + w + (int64_t)w * nb, nb);
    }
    if (!rc && below > 0)
        rc = hyt_chol_trsm(dc, 'U', below, nbk, Xkk, nb, Xkk + d->tile, nb, d->inv_rows,
                           d->work, d->lwork);
    return forward(dc, rc);
}

static const hyt_kernel_t dpanel_kernel = {.name = "chol_dev_panel", .dev = dpanel_body,
                                           .cat = HYT_CAT_PANEL};

int hyt_insert_gpu_chol_dpanel(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_hdev_t *d,
                               int k, int stream, const hyt_dep_t *deps, int ndeps)
{
    dpanel_args_t a = {*d, k, NULL};
    return insert(seq, &dpanel_kernel, tag, &a, sizeof a, hyt_device_index(d->dev), stream,
                  deps, ndeps);
}

static int dinfo_body(const hyt_devctx_t *dc, void *p)
{
    const dpanel_args_t *a = p;
    const int pieces = hyt_chol_pieces(a->d.nb);
    return forward(dc, hyt_dev_memcpy_d2h(dc, a->h_info, a->d.dinfo,
                                          (size_t)a->d.ncols * pieces * sizeof(int)));
}

static const hyt_kernel_t dinfo_kernel = {.name = "chol_dev_info", .dev = dinfo_body,
                                          .cat = HYT_CAT_DMA};

int hyt_insert_gpu_chol_dinfo(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_hdev_t *d,
                              int *h_info, const hyt_dep_t *deps, int ndeps)
{
    if (d->ncols < 1)
        return HYT_SUCCESS;
    dpanel_args_t a = {*d, 0, h_info};
    return insert(seq, &dinfo_kernel, tag, &a, sizeof a, hyt_device_index(d->dev),
                  HYT_STREAM_D2H, deps, ndeps);
}
