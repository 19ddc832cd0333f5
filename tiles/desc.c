/* Tile descriptors: allocation of CCRB matrices and LAPACK-layout views. */
#include "hyt_runtime.h"

#include <stdint.h>
#include <string.h>

/* The fields both kinds of descriptor share. */
static int init_dims(hyt_desc_t *A, int m, int n, int nb, hyt_layout_t layout)
{
    memset(A, 0, sizeof *A);
    if (m < 0 || n < 0 || nb < 1)
        return HYT_ERR_INVALID;
    A->m = m;
    A->n = n;
    A->nb = nb;
    A->mt = (m + nb - 1) / nb;
    A->nt = (n + nb - 1) / nb;
    A->layout = layout;
    return HYT_SUCCESS;
}

/* Edge tiles use part of their nb x nb storage; the rest is zeroed once, so that whole-tile
 * operations (copies to GPUs, batched GEMMs over full tiles) never meet NaN garbage. */
static void zero_padding(hyt_desc_t *A)
{
    int nb = A->nb, mb = hyt_tile_mb(A, A->mt - 1), nbl = hyt_tile_nb(A, A->nt - 1);
    for (int j = 0; j < A->nt; j++) {
        double *t = hyt_tile(A, A->mt - 1, j);
        for (int c = 0; c < nb && mb < nb; c++)
            memset(t + (int64_t)c * nb + mb, 0, (size_t)(nb - mb) * sizeof(double));
    }
    for (int i = 0; i < A->mt && nbl < nb; i++) {
        double *t = hyt_tile(A, i, A->nt - 1);
        memset(t + (int64_t)nbl * nb, 0, (size_t)(nb - nbl) * nb * sizeof(double));
    }
}

int hyt_desc_create(hyt_context_t *ctx, int m, int n, int nb, hyt_desc_t *A)
{
    if (init_dims(A, m, n, nb, HYT_LAYOUT_CCRB))
        return HYT_ERR_INVALID;
    A->ctx = ctx;
    uint64_t tiles = (uint64_t)A->mt * (uint64_t)A->nt;
    uint64_t elems = tiles * (uint64_t)nb * (uint64_t)nb;
    if (elems > (uint64_t)(SIZE_MAX / sizeof(double)) / 2)
        return HYT_ERR_TOO_LARGE;
    if (elems) {
        A->mat = hyt_host_malloc(ctx, (size_t)elems * sizeof(double));
        if (!A->mat)
            return HYT_ERR_NOMEM;
        A->owned = 1;
        zero_padding(A);
    }
    return HYT_SUCCESS;
}

int hyt_desc_lapack(int m, int n, int nb, double *a, int64_t lda, hyt_desc_t *A)
{
    if (init_dims(A, m, n, nb, HYT_LAYOUT_LAPACK) || lda < (m > 1 ? m : 1) || lda > INT32_MAX)
        return HYT_ERR_INVALID;
    A->mat = a;
    A->lda = lda;
    return HYT_SUCCESS;
}

void hyt_desc_destroy(hyt_desc_t *A)
{
    if (A->owned)
        hyt_host_free(A->ctx, A->mat);
    memset(A, 0, sizeof *A);
}
