/*
 * LAPACK layout <-> CCRB conversion as tasks, one per tile column.  Each task reads the
 * column's blocks of the LAPACK array (keys: the block addresses) and writes its tiles.
 */
#include "hyt_runtime.h"

#include <stdlib.h>
#include <string.h>

typedef struct conv_args {
    hyt_desc_t lap;   /* LAPACK view */
    hyt_desc_t tile;  /* CCRB matrix */
    int j;
    int to_tile;
} conv_args_t;

static void copy_block(const double *src, int64_t lds, double *dst, int64_t ldd, int mb, int nb)
{
    for (int c = 0; c < nb; c++)
        memcpy(dst + c * ldd, src + c * lds, (size_t)mb * sizeof(double));
}

static int conv_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    conv_args_t *a = p;
    int j = a->j, nbj = hyt_tile_nb(&a->tile, j);
    for (int i = 0; i < a->tile.mt; i++) {
        int mbi = hyt_tile_mb(&a->tile, i);
        double *t = hyt_tile(&a->tile, i, j), *l = hyt_tile(&a->lap, i, j);
        if (a->to_tile)
            copy_block(l, a->lap.lda, t, a->tile.nb, mbi, nbj);
        else
            copy_block(t, a->tile.nb, l, a->lap.lda, mbi, nbj);
    }
    return 0;
}

static const hyt_kernel_t conv_kernel = {.name = "convert", .cpu = conv_body, .cat = HYT_CAT_CONVERT};

static int insert_conv(hyt_sequence_t *seq, const double *a, int64_t lda, const hyt_desc_t *A,
                       int to_tile)
{
    if (A->layout != HYT_LAYOUT_CCRB || (A->m && !a) || lda < (A->m > 1 ? A->m : 1))
        return HYT_ERR_INVALID;
    conv_args_t args;
    memset(&args, 0, sizeof args);
    hyt_desc_lapack(A->m, A->n, A->nb, (double *)a, lda, &args.lap);
    args.tile = *A;
    args.to_tile = to_tile;
    hyt_dep_t *deps = malloc((size_t)(2 * A->mt + 1) * sizeof *deps);
    if (!deps)
        return HYT_ERR_NOMEM;
    int rc = 0;
    for (int j = 0; j < A->nt && !rc; j++) {
        args.j = j;
        int nd = 0;
        for (int i = 0; i < A->mt; i++) {
            deps[nd++] = (hyt_dep_t){hyt_tile(&args.lap, i, j), to_tile ? HYT_READ : HYT_WRITE};
            deps[nd++] = (hyt_dep_t){hyt_tile(A, i, j), to_tile ? HYT_WRITE : HYT_READ};
        }
        hyt_task_desc_t d = hyt_task_desc(&conv_kernel, &args, sizeof args);
        d.deps = deps;
        d.ndeps = nd;
        d.tag[0] = -1;
        d.tag[2] = j;
        rc = hyt_task_insert(seq, &d);
    }
    free(deps);
    return rc;
}

int hyt_lapack_to_tile_async(hyt_sequence_t *seq, const double *a, int64_t lda, hyt_desc_t *A)
{
    return insert_conv(seq, a, lda, A, 1);
}

int hyt_tile_to_lapack_async(hyt_sequence_t *seq, const hyt_desc_t *A, double *a, int64_t lda)
{
    return insert_conv(seq, a, lda, A, 0);
}

static int run_sync(hyt_context_t *ctx, const double *a, int64_t lda, const hyt_desc_t *A,
                    int to_tile)
{
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    return hyt_sequence_finish(seq, insert_conv(seq, a, lda, A, to_tile));
}

int hyt_lapack_to_tile(hyt_context_t *ctx, const double *a, int64_t lda, hyt_desc_t *A)
{
    return run_sync(ctx, a, lda, A, 1);
}

int hyt_tile_to_lapack(hyt_context_t *ctx, const hyt_desc_t *A, double *a, int64_t lda)
{
    return run_sync(ctx, a, lda, A, 0);
}
