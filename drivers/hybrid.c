/* The hybrid plumbing (hyt_hybrid.h): device matrices, the memory check, the LU's tokens. */
#include "drv_internal.h"
#include "hyt_hybrid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int hyt_dmat_local_cols(int nt, int ndev, int g)
{
    return g < nt ? (nt - g + ndev - 1) / ndev : 0;
}

size_t hyt_dmat_bytes(int m, int n, int nb, int ndev, int g)
{
    int mt = (m + nb - 1) / nb, nt = (n + nb - 1) / nb;
    return (size_t)hyt_dmat_local_cols(nt, ndev, g) * mt * nb * nb * sizeof(double);
}

size_t hyt_dmat_alloc_bytes(int m, int n, int nb, int ndev, int g)
{
    size_t b = hyt_dmat_bytes(m, n, nb, ndev, g);
    return b ? hyt_device_alloc_bytes(b) : 0;
}

int hyt_hybrid_overlap_steps(double load_bytes, double flops, int kt)
{
    const double t_load = load_bytes / 25e9, t_fact = flops / 35e12;
    const double share = t_fact > 0 ? 2 * t_load / t_fact : 1;
    if (share >= 1)
        return kt;
    const int s = (int)ceil(kt * (1 - cbrt(1 - share)));
    return s < 1 ? 1 : s > kt ? kt : s;
}

int hyt_hybrid_piece_cols(int nb, int ncols)
{
    const int quarter = ncols / 4 > 1 ? ncols / 4 : 1;
    return nb >= 4096 ? 1 : 4096 / nb < quarter ? 4096 / nb : quarter;
}

int hyt_hybrid_check_memory(hyt_context_t *ctx, int ndev, const size_t *need, const char *what)
{
    for (int g = 0; g < ndev; g++) {
        hyt_device_t *dev = hyt_context_device(ctx, g);
        size_t avail = hyt_device_mem_available(dev);
        if (need[g] > avail)
            return hyt_error(HYT_ERR_DEVICE_MEMORY,
                             "%s needs %.3g GiB on %s but %.3g GiB are available (free "
                             "memory, or gpu.memory_limit): use more devices, a smaller "
                             "matrix, or runtime.devices = none",
                             what, need[g] / 1073741824.0, hyt_device_name(dev),
                             avail / 1073741824.0);
    }
    return HYT_SUCCESS;
}

void hyt_dmat_free(hyt_dmat_t *A)
{
    if (!A)
        return;
    for (int g = 0; A->cols && g < A->ndev; g++)
        hyt_device_free(hyt_context_device(A->ctx, g), A->cols[g]);
    free(A->cols);
    free(A->ncols);
    hyt_tokens_destroy(A->tok);
    free(A);
}

int hyt_dmat_alloc(hyt_context_t *ctx, int m, int n, int nb, const size_t *need,
                   const char *what, hyt_dmat_t **out)
{
    *out = NULL;
    const int ndev = hyt_context_num_devices(ctx);
    if (ndev < 1)
        return hyt_error(HYT_ERR_INVALID, "a device matrix needs devices: the context has none "
                         "(runtime.devices = none)");
    if (m < 0 || n < 0 || nb < 1)
        return hyt_error(HYT_ERR_INVALID, "a device matrix of %d x %d with tile size %d", m, n,
                         nb);
    hyt_dmat_t *A = calloc(1, sizeof *A);
    size_t *total = calloc((size_t)ndev, sizeof *total);
    if (!A || !total) {
        free(A);
        free(total);
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    }
    A->ctx = ctx;
    A->m = m;
    A->n = n;
    A->nb = nb;
    A->mt = (m + nb - 1) / nb;
    A->nt = (n + nb - 1) / nb;
    A->ndev = ndev;
    A->tile = (int64_t)nb * nb;
    A->colsz = A->tile * A->mt;
    A->ncols = calloc((size_t)ndev, sizeof *A->ncols);
    A->cols = calloc((size_t)ndev, sizeof *A->cols);
    A->tok = hyt_tokens_create(A->nt ? (size_t)A->nt : 1);
    if (!A->ncols || !A->cols || !A->tok) {
        free(total);
        hyt_dmat_free(A);
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    }
    for (int g = 0; g < ndev; g++) {
        A->ncols[g] = hyt_dmat_local_cols(A->nt, ndev, g);
        total[g] = hyt_dmat_alloc_bytes(m, n, nb, ndev, g) + (need ? need[g] : 0);
    }
    int rc = hyt_hybrid_check_memory(ctx, ndev, total, what);
    free(total);
    for (int g = 0; g < ndev && !rc; g++)
        if (A->ncols[g] && A->mt)
            rc = hyt_device_malloc(hyt_context_device(ctx, g), (void **)&A->cols[g],
                                   hyt_dmat_bytes(m, n, nb, ndev, g));
    if (rc) {
        hyt_dmat_free(A);
        return rc;
    }
    *out = A;
    return HYT_SUCCESS;
}

const void *hyt_dmat_col_key(const hyt_dmat_t *A, int j) { return hyt_token(A->tok, (size_t)j); }

/* ---- a temporary host tile copy, freed by a task after every task on its tiles ------------- */

int hyt_tile_copy_create(hyt_context_t *ctx, int m, int n, int nb, hyt_desc_t **T)
{
    *T = malloc(sizeof **T);
    if (!*T)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    int rc = hyt_desc_create(ctx, m, n, nb, *T);
    if (rc) {
        free(*T);
        *T = NULL;
        return hyt_error(rc, "no host memory for the tile copy of a %d x %d matrix", m, n);
    }
    return HYT_SUCCESS;
}

static void copy_free(void *p)
{
    hyt_desc_destroy(p);
    free(p);
}

int hyt_tile_copy_release(hyt_sequence_t *seq, hyt_desc_t *T)
{
    /* the copy is freed also when the sequence failed (an "always" task) */
    const int ntiles = T->mt * T->nt;
    hyt_dep_t *deps = malloc((size_t)ntiles * sizeof *deps);
    for (int t = 0; deps && t < ntiles; t++)
        deps[t] = (hyt_dep_t){hyt_tile(T, t % T->mt, t / T->mt), HYT_RW};
    int rc = hyt_drv_insert_cleanup(seq, copy_free, T, deps, ntiles);
    free(deps);
    return rc;
}
