/*
 * Copies of the hybrid LU as device tasks (the seed's section 3.5): column loads before the
 * first step, the panel broadcast after each panel, the column return after each update.
 * Each copy is followed (load, broadcast) or preceded (return) by the CCRB <-> CRRB tile
 * transposition on the same stream, so the compute stream only ever sees CRRB.  Host memory
 * is the CCRB matrix (page-locked) and page-locked staging for inv(L_kk) and the pivots.
 */
#include "hyt_gpu_tasks.h"

#include <stdlib.h>
#include <string.h>

/* Inserts a task of g's device on one of its streams, then frees the dependency list. */
static int insert_on_stream(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                            int stream, const hyt_kernel_t *kernel, const void *args,
                            size_t args_size, hyt_deps_t *deps)
{
    hyt_task_desc_t d = hyt_tagged_desc(kernel, args, args_size, deps->v, deps->n, tag);
    d.device = hyt_device_index(g->dev);
    d.stream = stream;
    int rc = hyt_task_insert(seq, &d);
    hyt_deps_free(deps);
    return rc;
}

size_t hyt_gpu_lu_bytes(const hyt_gpu_lu_t *g)
{
    size_t tile = (size_t)g->tile, colsz = (size_t)g->colsz;
    /* the columns are the device matrix's (drivers/hyt_hybrid.h), not counted here */
    size_t b = sizeof(double) * ((size_t)g->npbuf * (colsz + tile) + (size_t)g->ncols * tile) +
               sizeof(int) * (size_t)g->npbuf * g->nb + 8 * 256;
    if (g->gpu_panel)
        b += sizeof(double) * tile + g->lwork + sizeof(int) * (size_t)g->npbuf;
    return b;
}

int hyt_gpu_lu_alloc(hyt_gpu_lu_t *g)
{
    int rc = 0;
    size_t d = sizeof(double);
    g->pbuf = g->linv = g->work = g->pwork = g->ident = NULL; /* cols: given */
    g->piv = g->dinfo = NULL;
    if (!rc)
        rc = hyt_device_malloc(g->dev, (void **)&g->pbuf, (size_t)g->npbuf * g->colsz * d);
    if (!rc)
        rc = hyt_device_malloc(g->dev, (void **)&g->linv, (size_t)g->npbuf * g->tile * d);
    if (!rc)
        rc = hyt_device_malloc(g->dev, (void **)&g->piv, (size_t)g->npbuf * g->nb * sizeof(int));
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
    hyt_device_free(g->dev, g->dinfo);
    g->piv = g->dinfo = NULL;
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
    return insert_on_stream(seq, tag, g, HYT_STREAM_COMPUTE, &init_kernel, &args, sizeof args,
                            &deps);
}

/* ---- column load ---------------------------------------------------------------------------- */

typedef struct col_args {
    hyt_gpu_lu_t g;
    const double *host; /* tile (0, j) of the CCRB matrix */
    double *dcol;
} col_args_t;

static int load_body(const hyt_devctx_t *dc, void *p)
{
    col_args_t *a = p;
    int rc = hyt_dev_memcpy_h2d(dc, a->dcol, a->host, (size_t)a->g.colsz * sizeof(double));
    return rc ? rc : hyt_gpu_transpose_tiles(dc, a->dcol, a->g.nb, a->g.mt);
}

static const hyt_kernel_t load_kernel = {.name = "column_load", .dev = load_body,
                                         .cat = HYT_CAT_DMA};

static double *dcol_of(const hyt_gpu_lu_t *g, int j)
{
    return g->cols + (int64_t)(j / g->ndev) * g->colsz;
}

int hyt_insert_gpu_column_load(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                               const hyt_desc_t *A, int j, const void *col_key,
                               const void *state_key)
{
    /* state_key may be NULL: then only the column's token orders its users */
    col_args_t args = {*g, hyt_tile(A, 0, j), dcol_of(g, j)};
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, A->mt + 2))
        return HYT_ERR_NOMEM;
    for (int i = 0; i < A->mt; i++)
        hyt_deps_add(&deps, hyt_tile(A, i, j), HYT_READ);
    hyt_deps_add(&deps, col_key, HYT_WRITE);
    /* loads of different columns commute; the first update waits for all of them */
    if (state_key)
        hyt_deps_add(&deps, state_key, HYT_GATHER);
    return insert_on_stream(seq, tag, g, HYT_STREAM_H2D, &load_kernel, &args, sizeof args,
                            &deps);
}

/* ---- column return -------------------------------------------------------------------------- */

static int return_body(const hyt_devctx_t *dc, void *p)
{
    col_args_t *a = p;
    /* the device copy is not used any more: transpose it in place, then copy */
    int rc = hyt_gpu_transpose_tiles(dc, a->dcol, a->g.nb, a->g.mt);
    return rc ? rc
              : hyt_dev_memcpy_d2h(dc, (double *)a->host, a->dcol,
                                   (size_t)a->g.colsz * sizeof(double));
}

static const hyt_kernel_t return_kernel = {.name = "column_return", .dev = return_body,
                                           .cat = HYT_CAT_DMA};

int hyt_insert_gpu_column_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                 const hyt_desc_t *A, int j, const void *after_key,
                                 const void *after_key2)
{
    col_args_t args = {*g, hyt_tile(A, 0, j), dcol_of(g, j)};
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, A->mt + 2))
        return HYT_ERR_NOMEM;
    hyt_deps_add(&deps, after_key, HYT_READ);
    if (after_key2)
        hyt_deps_add(&deps, after_key2, HYT_READ);
    for (int i = 0; i < A->mt; i++)
        hyt_deps_add(&deps, hyt_tile(A, i, j), HYT_WRITE);
    return insert_on_stream(seq, tag, g, HYT_STREAM_D2H, &return_kernel, &args, sizeof args,
                            &deps);
}

/* ---- a tile row back to the host, for all of a device's columns ------------------------------- */

typedef struct row_args {
    hyt_gpu_lu_t g;
    double *host;  /* host tile (r, g): the device's first column */
    int r;
    int64_t host_stride; /* doubles between the host tiles (r, j) and (r, j + ndev) */
} row_args_t;

static int row_body(const hyt_devctx_t *dc, void *p)
{
    row_args_t *a = p;
    const hyt_gpu_lu_t *g = &a->g;
    double *src = g->cols + (int64_t)a->r * g->tile;
    /* the tiles are final and not read on the device any more: transpose them in place */
    int rc = hyt_gpu_transpose_tiles_strided(dc, src, g->nb, g->ncols, g->colsz);
    if (!rc)
        rc = hyt_dev_memcpy2d(dc, a->host, (size_t)a->host_stride * sizeof(double), src,
                              (size_t)g->colsz * sizeof(double), (size_t)g->tile * sizeof(double),
                              (size_t)g->ncols, 1);
    return rc;
}

static const hyt_kernel_t row_kernel = {.name = "tilerow_return", .dev = row_body,
                                        .cat = HYT_CAT_DMA};

int hyt_insert_gpu_tilerow_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                  const hyt_desc_t *A, int r, const void *after_key)
{
    if (g->ncols == 0)
        return HYT_SUCCESS;
    row_args_t args = {*g, hyt_tile(A, r, g->index), r,
                       (int64_t)g->ndev * A->mt * g->tile};
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, g->ncols + 1))
        return HYT_ERR_NOMEM;
    hyt_deps_add(&deps, after_key, HYT_READ);
    for (int l = 0; l < g->ncols; l++)
        hyt_deps_add(&deps, hyt_tile(A, r, l * g->ndev + g->index), HYT_WRITE);
    return insert_on_stream(seq, tag, g, HYT_STREAM_D2H, &row_kernel, &args, sizeof args,
                            &deps);
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
    return insert_on_stream(seq, tag, g, HYT_STREAM_H2D, &bcast_kernel, &args, sizeof args,
                            &deps);
}
