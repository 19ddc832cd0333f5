/*
 * Copies of the hybrid LU as device tasks (the seed's section 3.5): the device workspaces of
 * a factorization (lu_gpu.h), their zeroing, the panel broadcast after each panel (panel,
 * inv(L_kk) and pivots, transposed to CRRB on the H2D stream), and the LU's names for the
 * column loads and returns of tiles/dev_columns.c.  Host memory is the CCRB matrix
 * (page-locked) and page-locked staging for inv(L_kk) and the pivots.
 */
#include "lu_gpu.h"

size_t hyt_gpu_lu_bytes(const hyt_gpu_lu_t *g)
{
    /* hyt_gpu_lu_alloc's allocations, each as the device counts it; the columns are the
     * device matrix's (drivers/hyt_hybrid.h), not counted here */
    const size_t d = sizeof(double), tile = (size_t)g->tile, npbuf = (size_t)g->npbuf;
    size_t b = hyt_device_alloc_bytes(npbuf * (size_t)g->colsz * d) +
               hyt_device_alloc_bytes(npbuf * tile * d) +
               hyt_device_alloc_bytes(npbuf * (size_t)g->nb * sizeof(int)) +
               hyt_device_alloc_bytes((size_t)6 * g->nb * sizeof(int)) +
               (g->ncols ? hyt_device_alloc_bytes((size_t)g->ncols * tile * d) : 0);
    if (g->gpu_panel)
        b += hyt_device_alloc_bytes(g->lwork ? g->lwork : d) +
             hyt_device_alloc_bytes(npbuf * sizeof(int)) + hyt_device_alloc_bytes(tile * d);
    return b;
}

int hyt_gpu_lu_alloc(hyt_gpu_lu_t *g)
{
    int rc = 0;
    size_t d = sizeof(double);
    g->pbuf = g->linv = g->work = g->pwork = g->ident = NULL; /* cols: given */
    g->piv = g->plan = g->dinfo = NULL;
    if (!rc)
        rc = hyt_device_malloc(g->dev, (void **)&g->pbuf, (size_t)g->npbuf * g->colsz * d);
    if (!rc)
        rc = hyt_device_malloc(g->dev, (void **)&g->linv, (size_t)g->npbuf * g->tile * d);
    if (!rc)
        rc = hyt_device_malloc(g->dev, (void **)&g->piv, (size_t)g->npbuf * g->nb * sizeof(int));
    if (!rc)
        rc = hyt_device_malloc(g->dev, (void **)&g->plan, (size_t)6 * g->nb * sizeof(int));
    if (!rc && g->ncols)
        rc = hyt_device_malloc(g->dev, (void **)&g->work, (size_t)g->ncols * g->tile * d);
    if (g->gpu_panel) {
        if (!rc)
            rc = hyt_device_malloc(g->dev, (void **)&g->pwork, g->lwork ? g->lwork : d);
        if (!rc)
            rc = hyt_device_malloc(g->dev, (void **)&g->dinfo, (size_t)g->npbuf * sizeof(int));
        if (!rc)
            rc = hyt_device_malloc(g->dev, (void **)&g->ident, (size_t)g->tile * d);
    }
    if (rc)
        hyt_gpu_lu_free(g);
    return rc;
}

void hyt_gpu_lu_free(hyt_gpu_lu_t *g)
{
    double **dp[] = {&g->pbuf, &g->linv, &g->work, &g->pwork, &g->ident};
    for (size_t i = 0; i < sizeof dp / sizeof dp[0]; i++) {
        hyt_device_free(g->dev, *dp[i]);
        *dp[i] = NULL;
    }
    hyt_device_free(g->dev, g->piv);
    hyt_device_free(g->dev, g->plan);
    hyt_device_free(g->dev, g->dinfo);
    g->piv = g->plan = g->dinfo = NULL;
}

/* ---- init: zero the workspaces, so that padding never holds NaN ---------------------------- */

typedef struct init_args {
    hyt_gpu_lu_t g;
} init_args_t;

static int init_body(const hyt_devctx_t *dc, void *p)
{
    const hyt_gpu_lu_t *g = &((init_args_t *)p)->g;
    size_t d = sizeof(double);
    int rc = hyt_dev_memset(dc, g->pbuf, 0, (size_t)g->npbuf * g->colsz * d);
    if (!rc)
        rc = hyt_dev_memset(dc, g->linv, 0, (size_t)g->npbuf * g->tile * d);
    if (!rc)
        rc = hyt_dev_memset(dc, g->piv, 0, (size_t)g->npbuf * g->nb * sizeof(int));
    if (!rc && g->ncols)
        rc = hyt_dev_memset(dc, g->work, 0, (size_t)g->ncols * g->tile * d);
    if (!rc && g->gpu_panel)
        rc = hyt_dev_memcpy_h2d(dc, g->ident, g->h_ident, (size_t)g->tile * d);
    return rc;
}

static const hyt_kernel_t init_kernel = {.name = "gpu_init", .dev = init_body,
                                         .cat = HYT_CAT_GPU};

int hyt_insert_gpu_lu_init(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                           const void *state_key, const void *const *panel_keys)
{
    init_args_t args = {*g};
    /* The panel slots are zeroed here: the broadcasts that fill them wait for it (they write
     * the slot keys), as the column loads and updates do through the state key. */
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, g->npbuf + 1))
        return HYT_ERR_NOMEM;
    hyt_deps_add(&deps, state_key, HYT_WRITE);
    for (int s = 0; s < g->npbuf; s++)
        hyt_deps_add(&deps, panel_keys[s], HYT_WRITE);
    return hyt_insert_on_stream(seq, tag, g->dev, HYT_STREAM_COMPUTE, &init_kernel, &args,
                                sizeof args, &deps);
}

/* ---- column loads and returns: tiles/dev_columns.c on g's columns ------------------------- */

static hyt_dev_column_t column_of(const hyt_gpu_lu_t *g, int j)
{
    return (hyt_dev_column_t){.dev = g->dev, .dcol = g->cols + (int64_t)(j / g->ndev) * g->colsz,
                              .nb = g->nb, .mt = g->mt};
}

int hyt_insert_gpu_column_load(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                               const hyt_desc_t *A, int j, const void *col_key,
                               const void *state_key, const void *order_key)
{
    hyt_dev_column_t c = column_of(g, j);
    return hyt_insert_dev_column_load(seq, tag, &c, A, j, col_key, state_key, order_key);
}

int hyt_insert_gpu_column_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                 const hyt_desc_t *A, int j, const void *after_key,
                                 const void *after_key2)
{
    hyt_dev_column_t c = column_of(g, j);
    return hyt_insert_dev_column_return(seq, tag, &c, A, j, after_key, after_key2);
}

int hyt_insert_gpu_tilerow_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                  const hyt_desc_t *A, int r, const void *after_key)
{
    hyt_dev_columns_t c = {.dev = g->dev, .cols = g->cols, .stride = g->colsz,
                           .ncols = g->ncols, .nb = g->nb, .mt = g->mt, .j0 = g->index,
                           .jstep = g->ndev};
    return hyt_insert_dev_tilerow_return(seq, tag, &c, A, r, after_key);
}

/* ---- panel broadcast ------------------------------------------------------------------------ */

typedef struct bcast_args {
    hyt_gpu_lu_t g;
    const double *host_panel; /* tile (k, k) */
    int ntiles, k, dk;
    const double *h_linv;     /* inv(L_kk), nb x nb column-major, page-locked */
    const int *ipiv;          /* the user's pivots (pageable) */
    int *h_piv;               /* page-locked staging for them */
} bcast_args_t;

static int bcast_body(const hyt_devctx_t *dc, void *p)
{
    bcast_args_t *a = p;
    const hyt_gpu_lu_t *g = &a->g;
    int s = a->k % g->npbuf;
    double *panel = g->pbuf + s * g->colsz + (int64_t)a->k * g->tile;
    double *linv = g->linv + s * g->tile;
    int *piv = g->piv + (int64_t)s * g->nb;
    /* the devices apply the interchanges from the panel's first row: pivots relative to it */
    const int64_t r0 = (int64_t)a->k * g->nb;
    for (int q = 0; q < a->dk; q++)
        a->h_piv[q] = (int)(a->ipiv[r0 + q] - r0);
    int rc = hyt_dev_memcpy_h2d(dc, panel, a->host_panel,
                                (size_t)a->ntiles * g->tile * sizeof(double));
    if (!rc)
        rc = hyt_gpu_transpose_tiles(dc, panel, g->nb, a->ntiles);
    if (!rc)
        rc = hyt_dev_memcpy_h2d(dc, linv, a->h_linv, (size_t)g->tile * sizeof(double));
    if (!rc)
        rc = hyt_gpu_transpose_tiles(dc, linv, g->nb, 1);
    if (!rc)
        rc = hyt_dev_memcpy_h2d(dc, piv, a->h_piv, (size_t)a->dk * sizeof(int));
    return rc;
}

static const hyt_kernel_t bcast_kernel = {.name = "panel_bcast", .dev = bcast_body,
                                          .cat = HYT_CAT_DMA};

int hyt_insert_gpu_panel_bcast(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                               const hyt_desc_t *A, int k, int dk, const double *h_linv,
                               const int *ipiv, int *h_piv, const void *panel_key)
{
    bcast_args_t args = {*g, hyt_tile(A, k, k), A->mt - k, k, dk, h_linv, ipiv, h_piv};
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, A->mt - k + 4))
        return HYT_ERR_NOMEM;
    for (int i = k; i < A->mt; i++)
        hyt_deps_add(&deps, hyt_tile(A, i, k), HYT_READ);
    hyt_deps_add(&deps, h_linv, HYT_READ);
    hyt_deps_add(&deps, &ipiv[(int64_t)k * g->nb], HYT_READ);
    /* the slot is rewritten: waits for the updates that read the panel npbuf steps ago */
    hyt_deps_add(&deps, panel_key, HYT_WRITE);
    return hyt_insert_on_stream(seq, tag, g->dev, HYT_STREAM_H2D, &bcast_kernel, &args,
                                sizeof args, &deps);
}
