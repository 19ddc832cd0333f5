/* Tile descriptors: allocation of CCRB matrices and LAPACK-layout views. */
#include "hyt_runtime.h"

#include <stdint.h>
#include <string.h>

/* The fields both kinds of descriptor share: checks m, n, nb (arguments 1 to 3 of func, A the
 * last) with a message naming func and the argument.  A is zeroed first (NULL: an error). */
static int init_dims(const char *func, hyt_desc_t *A, int m, int n, int nb, hyt_layout_t layout)
{
    if (!A)
        return hyt_error_arg(HYT_ERR_INVALID, func, layout == HYT_LAYOUT_CCRB ? 4 : 6, "A",
                             "is NULL");
    memset(A, 0, sizeof *A);
    if (m < 0)
        return hyt_error_arg(HYT_ERR_INVALID, func, 1, "m", "is %d, must be >= 0", m);
    if (n < 0)
        return hyt_error_arg(HYT_ERR_INVALID, func, 2, "n", "is %d, must be >= 0", n);
    if (nb < 1)
        return hyt_error_arg(HYT_ERR_INVALID, func, 3, "nb", "is %d, must be >= 1", nb);
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
    static const char func[] = "hyt_desc_create";
    int rc = init_dims(func, A, m, n, nb, HYT_LAYOUT_CCRB);
    if (rc)
        return rc;
    A->ctx = ctx;
    uint64_t tiles = (uint64_t)A->mt * (uint64_t)A->nt;
    uint64_t elems = tiles * (uint64_t)nb * (uint64_t)nb;
    if (elems > (uint64_t)(SIZE_MAX / sizeof(double)) / 2)
        return hyt_error(HYT_ERR_TOO_LARGE, "%s: a %d x %d matrix in %d x %d tiles does not fit "
                         "in the address space", func, m, n, nb, nb);
    if (elems) {
        A->mat = hyt_host_malloc(ctx, (size_t)elems * sizeof(double));
        if (!A->mat)
            return hyt_error(HYT_ERR_NOMEM, "%s: out of memory for a %d x %d matrix (%.3g GiB)",
                             func, m, n, (double)elems * sizeof(double) / (1u << 30));
        A->owned = 1;
        zero_padding(A);
    }
    return HYT_SUCCESS;
}

int hyt_desc_lapack(int m, int n, int nb, double *a, int64_t lda, hyt_desc_t *A)
{
    static const char func[] = "hyt_desc_lapack";
    int rc = init_dims(func, A, m, n, nb, HYT_LAYOUT_LAPACK);
    if (rc)
        return rc;
    if (!a && m && n)
        rc = hyt_error_arg(HYT_ERR_INVALID, func, 4, "a", "is NULL");
    else if (lda < (m > 1 ? m : 1) || lda > INT32_MAX)
        rc = hyt_error_arg(HYT_ERR_INVALID, func, 5, "lda", "is %lld, must be >= max(1, %d) "
                           "and <= %d", (long long)lda, m, INT32_MAX);
    if (rc) {
        memset(A, 0, sizeof *A);
        return rc;
    }
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
