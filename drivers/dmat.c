/*
 * Device matrices, the public calls (include/hyt_dmat.h): create, destroy, and the copies
 * between the LAPACK layout (host, or one device's memory) and the CRRB tile columns on the
 * devices, one device task per tile column on its owner:
 *
 *   set   zero the column (padding), each tile's rows by a 2D copy into CCRB, transpose to CRRB
 *   get   transpose to CCRB in place, each tile's rows out by a 2D copy, transpose back
 *
 * The allocation and its memory check are hybrid.c's.
 */
#include "drv_internal.h"
#include "hyt_gpu_kernels.h"
#include "hyt_hybrid.h"

#include <stdio.h>

typedef struct copy_args {
    double *dcol;      /* the device column */
    double *a;         /* row 0 of the column's first element column: a + j*nb*ld */
    int64_t ld;
    int m, w, nb, mt;  /* rows, width of this tile column */
    int kind;          /* hyt_dev_memcpy2d's: 0 h2d, 1 d2h, 2 d2d */
} copy_args_t;

/* every tile of the column, rows of tile i <-> a + i*nb (pitches ld and nb) */
static int copy_tiles(const hyt_devctx_t *dc, const copy_args_t *c, int to_device)
{
    const size_t d = sizeof(double);
    int rc = 0;
    for (int i = 0; i < c->mt && !rc; i++) {
        int mb = i < c->mt - 1 ? c->nb : c->m - i * c->nb;
        double *t = c->dcol + (int64_t)i * c->nb * c->nb, *h = c->a + (int64_t)i * c->nb;
        rc = to_device ? hyt_dev_memcpy2d(dc, t, c->nb * d, h, (size_t)c->ld * d, mb * d,
                                          (size_t)c->w, c->kind)
                       : hyt_dev_memcpy2d(dc, h, (size_t)c->ld * d, t, c->nb * d, mb * d,
                                          (size_t)c->w, c->kind);
    }
    return rc;
}

static int set_body(const hyt_devctx_t *dc, void *p)
{
    copy_args_t *c = p;
    int rc = hyt_dev_memset(dc, c->dcol, 0, (size_t)c->mt * c->nb * c->nb * sizeof(double));
    if (!rc)
        rc = copy_tiles(dc, c, 1);
    return rc ? rc : hyt_gpu_transpose_tiles(dc, c->dcol, c->nb, c->mt);
}

static int get_body(const hyt_devctx_t *dc, void *p)
{
    copy_args_t *c = p;
    int rc = hyt_gpu_transpose_tiles(dc, c->dcol, c->nb, c->mt);
    if (rc)
        return rc;
    rc = copy_tiles(dc, c, 0);
    /* back to CRRB also after a failed copy, so that the matrix stays usable */
    int rc2 = hyt_gpu_transpose_tiles(dc, c->dcol, c->nb, c->mt);
    return rc ? rc : rc2;
}

static const hyt_kernel_t set_kernel = {.name = "dmat_set", .dev = set_body, .cat = HYT_CAT_DMA};
static const hyt_kernel_t get_kernel = {.name = "dmat_get", .dev = get_body, .cat = HYT_CAT_DMA};

/* All tile columns, synchronously. */
static int copy_all(hyt_dmat_t *A, double *a, int64_t ld, int to_device, int kind)
{
    if (A->m == 0 || A->n == 0)
        return HYT_SUCCESS;
    hyt_sequence_t *seq = NULL;
    int rc = hyt_sequence_create(A->ctx, &seq);
    if (rc)
        return rc;
    for (int j = 0; j < A->nt && !rc; j++) {
        copy_args_t c = {hyt_dmat_col(A, j), a + (int64_t)j * A->nb * ld, ld, A->m,
                         j < A->nt - 1 ? A->nb : A->n - j * A->nb, A->nb, A->mt, kind};
        hyt_dep_t dep = {hyt_dmat_col_key(A, j), to_device ? HYT_WRITE : HYT_RW};
        hyt_task_desc_t d = hyt_tagged_desc(to_device ? &set_kernel : &get_kernel, &c, sizeof c,
                                            &dep, 1, (hyt_tag_t){0, -1, -1, j});
        d.device = hyt_dmat_owner(A, j);
        d.stream = to_device ? HYT_STREAM_H2D : HYT_STREAM_D2H;
        rc = hyt_task_insert(seq, &d);
    }
    return hyt_sequence_finish(seq, rc);
}

int hyt_dmat_create(hyt_context_t *ctx, int m, int n, int nb, hyt_dmat_t **dA)
{
    static const char func[] = "hyt_dmat_create";
    hyt_error_clear();
    int rc = 0;
    if (m < 0)
        rc = hyt_error_arg(HYT_ERR_INVALID, func, 1, "m", "is %d, must be >= 0", m);
    else if (n < 0)
        rc = hyt_error_arg(HYT_ERR_INVALID, func, 2, "n", "is %d, must be >= 0", n);
    else if (nb < 0 || nb > 4096)
        rc = hyt_error_arg(HYT_ERR_INVALID, func, 3, "nb", "is %d, must be 0 (auto) to 4096", nb);
    else if (!dA)
        rc = hyt_error_arg(HYT_ERR_INVALID, func, 4, "dA", "is NULL");
    else if (!ctx)
        rc = hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (rc)
        return hyt_error_return(func, rc);
    *dA = NULL;
    if (nb == 0) {
        hyt_lu_params_t p;
        hyt_lu_params(ctx, m, n, &p);
        nb = p.nb;
    }
    char what[128];
    snprintf(what, sizeof what, "a %d x %d device matrix (nb %d, %d devices)", m, n, nb,
             hyt_context_num_devices(ctx));
    return hyt_error_return(func, hyt_dmat_alloc(ctx, m, n, nb, NULL, what, dA));
}

void hyt_dmat_destroy(hyt_dmat_t *dA) { hyt_dmat_free(dA); }

int hyt_dmat_nb(const hyt_dmat_t *dA) { return dA ? dA->nb : 0; }

static int copy_call(const char *func, hyt_dmat_t *dA, double *a, int ld, int to_device,
                     int on_device)
{
    hyt_error_clear();
    int rc = 0;
    if (!dA)
        rc = hyt_error_arg(HYT_ERR_INVALID, func, 1, "dA", "is NULL");
    else if (!a && dA->m > 0 && dA->n > 0)
        rc = hyt_error_arg(HYT_ERR_INVALID, func, 2, on_device ? "dptr" : "a", "is NULL");
    else if (ld < (dA->m > 1 ? dA->m : 1))
        rc = hyt_error_arg(HYT_ERR_INVALID, func, 3, on_device ? "ld" : "lda",
                           "is %d, must be >= max(1, m) = %d", ld, dA->m > 1 ? dA->m : 1);
    else if (on_device && dA->ndev > 1)
        rc = hyt_error(HYT_ERR_INVALID, "%s: the matrix is on %d devices; a device pointer "
                       "serves one device only (use %s, from the host)", func, dA->ndev,
                       to_device ? "hyt_dmat_set" : "hyt_dmat_get");
    if (!rc)
        rc = copy_all(dA, a, ld, to_device, on_device ? 2 : to_device ? 0 : 1);
    return hyt_error_return(func, rc);
}

int hyt_dmat_set(hyt_dmat_t *dA, const double *a, int lda)
{
    return copy_call("hyt_dmat_set", dA, (double *)a, lda, 1, 0);
}

int hyt_dmat_get(hyt_dmat_t *dA, double *a, int lda)
{
    return copy_call("hyt_dmat_get", dA, a, lda, 0, 0);
}

int hyt_dmat_set_device(hyt_dmat_t *dA, const double *dptr, int ld)
{
    return copy_call("hyt_dmat_set_device", dA, (double *)dptr, ld, 1, 1);
}

int hyt_dmat_get_device(hyt_dmat_t *dA, double *dptr, int ld)
{
    return copy_call("hyt_dmat_get_device", dA, dptr, ld, 0, 1);
}
