/*
 * LAPACK layout <-> CCRB conversion as tasks, one per tile column.  Each task reads the
 * column's blocks of the LAPACK array (keys: the block addresses) and writes its tiles.
 */
#include "hyt_runtime.h"
#include "hyt_internal.h"
#include "tiles_internal.h"

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
        hyt_races_block(l, a->lap.lda, mbi, nbj, !a->to_tile, "the LAPACK array's block");
        hyt_races_block(t, a->tile.nb, mbi, nbj, a->to_tile, "the tile");
        if (a->to_tile)
            copy_block(l, a->lap.lda, t, a->tile.nb, mbi, nbj);
        else
            copy_block(t, a->tile.nb, l, a->lap.lda, mbi, nbj);
    }
    return 0;
}

static const hyt_kernel_t conv_kernel = {.name = "convert", .cpu = conv_body,
                                         .cat = HYT_CAT_CONVERT};

/* The arguments of the four conversion calls: the sequence or context, then the LAPACK array
 * and the tile matrix in the order of the call (lapack_to_tile: a 1, lda 2, A 3; tile_to_lapack:
 * A 1, a 2, lda 3). */
static int check_conv(const char *func, const double *a, int64_t lda, const hyt_desc_t *A,
                      int to_tile)
{
    const int ia = to_tile ? 1 : 2, ilda = ia + 1, iA = to_tile ? 3 : 1;
    if (!A)
        return hyt_error_arg(HYT_ERR_INVALID, func, iA, "A", "is NULL");
    if (A->layout != HYT_LAYOUT_CCRB)
        return hyt_error_arg(HYT_ERR_INVALID, func, iA, "A", "is not a tile (CCRB) matrix "
                             "from hyt_desc_create");
    if (A->m && A->n && !A->mat)
        return hyt_error_arg(HYT_ERR_INVALID, func, iA, "A", "has no storage (A->mat is NULL)");
    if (A->m && A->n && !a)
        return hyt_error_arg(HYT_ERR_INVALID, func, ia, "a", "is NULL");
    if (lda < (A->m > 1 ? A->m : 1) || lda > INT32_MAX)
        return hyt_error_arg(HYT_ERR_INVALID, func, ilda, "lda", "is %lld, must be >= max(1, "
                             "%d) and <= %d", (long long)lda, A->m, INT32_MAX);
    return 0;
}

int hyt_tiles_convert_async(hyt_sequence_t *seq, const double *a, int64_t lda,
                            const hyt_desc_t *A, int to_tile)
{
    conv_args_t args;
    memset(&args, 0, sizeof args);
    hyt_desc_lapack(A->m, A->n, A->nb, (double *)a, lda, &args.lap);
    args.tile = *A;
    args.to_tile = to_tile;
    hyt_dep_t *deps = malloc((size_t)(2 * A->mt + 1) * sizeof *deps);
    if (!deps)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
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

/* The four public calls: checks, then the tasks (and, synchronous, the wait). */
static int run_async(const char *func, hyt_sequence_t *seq, const double *a, int64_t lda,
                     const hyt_desc_t *A, int to_tile)
{
    hyt_error_clear();
    int rc = seq ? check_conv(func, a, lda, A, to_tile)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", func);
    if (!rc)
        rc = hyt_tiles_convert_async(seq, a, lda, A, to_tile);
    return hyt_error_return(func, rc);
}

static int run_sync(const char *func, hyt_context_t *ctx, const double *a, int64_t lda,
                    const hyt_desc_t *A, int to_tile)
{
    hyt_error_clear();
    hyt_sequence_t *seq;
    int rc = ctx ? check_conv(func, a, lda, A, to_tile)
                 : hyt_error(HYT_ERR_INVALID, "%s: NULL context", func);
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc)
        rc = hyt_sequence_finish(seq, hyt_tiles_convert_async(seq, a, lda, A, to_tile));
    return hyt_error_return(func, rc);
}

int hyt_lapack_to_tile_async(hyt_sequence_t *seq, const double *a, int64_t lda, hyt_desc_t *A)
{
    return run_async("hyt_lapack_to_tile_async", seq, a, lda, A, 1);
}

int hyt_tile_to_lapack_async(hyt_sequence_t *seq, const hyt_desc_t *A, double *a, int64_t lda)
{
    return run_async("hyt_tile_to_lapack_async", seq, a, lda, A, 0);
}

int hyt_lapack_to_tile(hyt_context_t *ctx, const double *a, int64_t lda, hyt_desc_t *A)
{
    return run_sync("hyt_lapack_to_tile", ctx, a, lda, A, 1);
}

int hyt_tile_to_lapack(hyt_context_t *ctx, const hyt_desc_t *A, double *a, int64_t lda)
{
    return run_sync("hyt_tile_to_lapack", ctx, a, lda, A, 0);
}
