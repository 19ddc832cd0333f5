/*
 * Tile columns between the host and the devices as device tasks (hyt_dev_columns.h): column
 * loads, column returns and tile-row returns, for any algorithm (the LU's and the Cholesky's
 * loop nests, the tile solves through the devices insert them).  Each copy is followed (load)
 * or preceded (return) by the CCRB <-> CRRB tile transposition on the same stream, so the
 * compute stream only ever sees CRRB; a tile row moved as a column (trans) needs none, its
 * column-major tiles being the CRRB tiles of their transposes.  Host memory is the CCRB matrix
 * (page-locked).
 */
#include "hyt_dev_columns.h"

#include "hyt_gpu_kernels.h"

/* ---- column load ---------------------------------------------------------------------------- */

typedef struct col_args {
    const double *host; /* host tile row0 of the column (c->trans: of the tile row) */
    double *dcol;
    int nb, mt;         /* tile order, tiles moved */
    int trans;          /* c->trans: the host tiles mt * nb * nb doubles apart, moved as they are */
    int keep;           /* return: c->keep */
    int64_t hstride;    /* doubles between the host tiles (trans) */
    const int *stop;    /* return: c->stop */
} col_args_t;

/* The part of column j that c moves: tiles c->row0 .. mt-1 (c->trans: tiles (j, row0 ..) of
 * the CCRB matrix A, whose column-major tiles are the CRRB tiles of their transposes). */
static col_args_t col_args(const hyt_dev_column_t *c, const hyt_desc_t *A, int j)
{
    const int64_t tile = (int64_t)c->nb * c->nb;
    return (col_args_t){c->trans ? hyt_tile(A, j, c->row0) : hyt_tile(A, c->row0, j),
                        c->dcol + c->row0 * tile, c->nb, c->mt - c->row0, c->trans, c->keep,
                        (int64_t)A->mt * tile, c->stop};
}

/* Host tile i of the column c moves (i >= c->row0): tile (i, j) of A, or (j, i) when trans. */
static double *host_tile(const hyt_dev_column_t *c, const hyt_desc_t *A, int i, int j)
{
    return c->trans ? hyt_tile(A, j, i) : hyt_tile(A, i, j);
}

static size_t col_bytes(const col_args_t *a)
{
    return (size_t)a->mt * a->nb * a->nb * sizeof(double);
}

/* A strided column: one 2D copy of mt tiles (kind 0: in, 1: out). */
static int copy_strided(const hyt_devctx_t *dc, const col_args_t *a, int kind)
{
    const size_t tb = (size_t)a->nb * a->nb * sizeof(double), hb = (size_t)a->hstride * 8;
    return kind ? hyt_dev_memcpy2d(dc, (double *)a->host, hb, a->dcol, tb, tb, (size_t)a->mt, 1)
                : hyt_dev_memcpy2d(dc, a->dcol, tb, a->host, hb, tb, (size_t)a->mt, 0);
}

static int load_body(const hyt_devctx_t *dc, void *p)
{
    col_args_t *a = p;
    if (a->trans)
        return copy_strided(dc, a, 0);
    int rc = hyt_dev_memcpy_h2d(dc, a->dcol, a->host, col_bytes(a));
    return rc ? rc : hyt_gpu_transpose_tiles(dc, a->dcol, a->nb, a->mt);
}

static const hyt_kernel_t load_kernel = {.name = "column_load", .dev = load_body,
                                         .cat = HYT_CAT_DMA};

/* Why a caller may bound the loads it has in flight (order_key): a device task runs only when
 * its dependencies have completed, so loads chained through a ring of W tokens are submitted
 * W at a time.  Loads that are all submitted at once put the whole matrix (seconds of copies)
 * in the H2D stream's queue, and any call that synchronizes the device then waits for all of
 * it.  The first GPU panel of a process makes such a call (inside the libraries, on their
 * first use; not CUDA's lazy module loading: CUDA_MODULE_LOADING=EAGER did not change it):
 * measured on an H200 (docs/performance.md), the first LU of a process waited 0.7 s at N =
 * 65536 for its first panel, the whole load.  Bounded, such a call waits for W columns. */

int hyt_insert_dev_column_load(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_dev_column_t *c,
                               const hyt_desc_t *A, int j, const void *col_key,
                               const void *state_key, const void *order_key)
{
    /* state_key may be NULL: then only the column's token orders its users */
    col_args_t args = col_args(c, A, j);
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, A->mt + 3))
        return HYT_ERR_NOMEM;
    for (int i = c->row0; i < A->mt; i++)
        hyt_deps_add(&deps, host_tile(c, A, i, j), HYT_READ);
    hyt_deps_add(&deps, col_key, HYT_WRITE);
    /* loads of different columns commute; the first update waits for all of them */
    if (state_key)
        hyt_deps_add(&deps, state_key, HYT_GATHER);
    if (order_key)
        hyt_deps_add(&deps, order_key, HYT_RW);
    return hyt_insert_on_stream(seq, tag, c->dev, HYT_STREAM_H2D, &load_kernel, &args,
                                sizeof args, &deps);
}

/* ---- column return -------------------------------------------------------------------------- */

static int return_body(const hyt_devctx_t *dc, void *p)
{
    col_args_t *a = p;
    if (a->stop && *a->stop)
        return 0;
    if (a->trans)
        return copy_strided(dc, a, 1);
    /* transpose the device copy in place, copy, and (keep) transpose it back */
    int rc = hyt_gpu_transpose_tiles(dc, a->dcol, a->nb, a->mt);
    if (!rc)
        rc = hyt_dev_memcpy_d2h(dc, (double *)a->host, a->dcol, col_bytes(a));
    return rc || !a->keep ? rc : hyt_gpu_transpose_tiles(dc, a->dcol, a->nb, a->mt);
}

static const hyt_kernel_t return_kernel = {.name = "column_return", .dev = return_body,
                                           .cat = HYT_CAT_DMA};

int hyt_insert_dev_column_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_dev_column_t *c,
                                 const hyt_desc_t *A, int j, const void *after_key,
                                 const void *after_key2)
{
    col_args_t args = col_args(c, A, j);
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, A->mt + 2))
        return HYT_ERR_NOMEM;
    hyt_deps_add(&deps, after_key, c->rw ? HYT_RW : HYT_READ);
    if (after_key2)
        hyt_deps_add(&deps, after_key2, HYT_READ);
    for (int i = c->row0; i < A->mt; i++)
        hyt_deps_add(&deps, host_tile(c, A, i, j), HYT_WRITE);
    return hyt_insert_on_stream(seq, tag, c->dev, HYT_STREAM_D2H, &return_kernel, &args,
                                sizeof args, &deps);
}

/* ---- a tile row back to the host, for all of a device's columns ---------------------------- */

typedef struct row_args {
    double *host;        /* host tile (r, j0): the device's first column */
    double *src;         /* device tile r of local column 0 */
    int64_t host_stride; /* doubles between the host tiles (r, j) and (r, j + jstep) */
    int64_t stride;      /* doubles between the device's columns */
    int nb, ncols;
} row_args_t;

static int row_body(const hyt_devctx_t *dc, void *p)
{
    row_args_t *a = p;
    const size_t tile = (size_t)a->nb * a->nb;
    /* the tiles are final and not read on the device any more: transpose them in place */
    int rc = hyt_gpu_transpose_tiles_strided(dc, a->src, a->nb, a->ncols, a->stride);
    if (!rc)
        rc = hyt_dev_memcpy2d(dc, a->host, (size_t)a->host_stride * sizeof(double), a->src,
                              (size_t)a->stride * sizeof(double), tile * sizeof(double),
                              (size_t)a->ncols, 1);
    return rc;
}

static const hyt_kernel_t row_kernel = {.name = "tilerow_return", .dev = row_body,
                                        .cat = HYT_CAT_DMA};

int hyt_insert_dev_tilerow_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_dev_columns_t *c,
                                  const hyt_desc_t *A, int r, const void *after_key)
{
    if (c->ncols == 0)
        return HYT_SUCCESS;
    const int64_t tile = (int64_t)c->nb * c->nb;
    row_args_t args = {hyt_tile(A, r, c->j0), c->cols + (int64_t)r * tile,
                       (int64_t)c->jstep * A->mt * tile, c->stride, c->nb, c->ncols};
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, c->ncols + 1))
        return HYT_ERR_NOMEM;
    hyt_deps_add(&deps, after_key, HYT_READ);
    for (int l = 0; l < c->ncols; l++)
        hyt_deps_add(&deps, hyt_tile(A, r, c->j0 + l * c->jstep), HYT_WRITE);
    return hyt_insert_on_stream(seq, tag, c->dev, HYT_STREAM_D2H, &row_kernel, &args,
                                sizeof args, &deps);
}
