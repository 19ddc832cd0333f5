/*
 * Step k of the upper Cholesky (A = U^T U) applied to tile column j of U itself, for tile rows
 * [i1, i2) of the column (k < i1 < i2 <= j + 1): U_ij -= U_ki^T U_kj above the diagonal, as one
 * GEMM on a LAPACK array (the rows are one matrix with leading dimension lda; one call per tile
 * on CCRB), and the SYRK U_jj -= U_kj^T U_kj when the range reaches the diagonal (i2 = j + 1).
 *
 * The update of core_dsyrk_col.c in upper mode walks a tile row of U: its GEMM is nb x m
 * (C a row strip, M = nb), a shape OpenBLAS runs about 9% slower than the m x nb of a column
 * (47 against 52 GFLOP/s on one core of the 2-core EPYC, nb 256, m 3744; the transposes do not
 * matter, the short M does).  So the upper driver gives the bulk of a step to this kernel and
 * keeps the row form for the lookahead rows, whose tiles the next panels need first.
 */
#include "hyt_cpu_kernels.h"

#include <cblas.h>

typedef struct ucol_args {
    hyt_desc_t A;
    int k, j, i1, i2;
    const int *stop;
} ucol_args_t;

static int ucol_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    ucol_args_t *a = p;
    if (hyt_stopped(a->stop))
        return 0;
    const hyt_desc_t *A = &a->A;
    const int ld = hyt_tile_ld(A), nbk = hyt_tile_nb(A, a->k), nbj = hyt_tile_nb(A, a->j);
    const int lapack = A->layout == HYT_LAYOUT_LAPACK;
    const int r2 = a->i2 < a->j ? a->i2 : a->j; /* the GEMM's rows: [i1, r2), above U_jj */
    if (hyt_races_on()) { /* debug.races */
        hyt_races_tile(A, a->k, a->j, 0, "the panel");
        for (int i = a->i1; i < r2; i++) {
            hyt_races_tile(A, a->k, i, 0, "the panel");
            hyt_races_tile(A, i, a->j, 1, "a tile");
        }
        if (a->i2 == a->j + 1)
            hyt_races_tri('U', hyt_tile(A, a->j, a->j), ld, nbj, 1, "the diagonal tile");
    }
    for (int i = a->i1; i < r2; i = lapack ? r2 : i + 1) {
        const int m = lapack ? (r2 - i) * A->nb : hyt_tile_nb(A, i); /* full tiles above j */
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, nbj, nbk, -1.0,
                    hyt_tile(A, a->k, i), ld, hyt_tile(A, a->k, a->j), ld, 1.0,
                    hyt_tile(A, i, a->j), ld);
    }
    if (a->i2 == a->j + 1)
        cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, nbj, nbk, -1.0,
                    hyt_tile(A, a->k, a->j), ld, 1.0, hyt_tile(A, a->j, a->j), ld);
    return 0;
}

static const hyt_kernel_t ucol_kernel = {.name = "dsyrk_ucol", .cpu = ucol_body,
                                         .cat = HYT_CAT_UPDATE};

int hyt_insert_dsyrk_ucol(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_desc_t *A, int k, int j,
                          int i1, int i2, const int *stop)
{
    if (i1 >= i2)
        return HYT_SUCCESS;
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, 2 * (i2 - i1) + 1))
        return HYT_ERR_NOMEM;
    if (i2 <= j)
        hyt_deps_add(&deps, hyt_tile(A, k, j), HYT_READ);
    for (int i = i1; i < i2; i++) {
        hyt_deps_add(&deps, hyt_tile(A, k, i), HYT_READ);
        hyt_deps_add(&deps, hyt_tile(A, i, j), HYT_RW);
    }
    ucol_args_t args = {*A, k, j, i1, i2, stop};
    hyt_task_desc_t d = hyt_tagged_desc(&ucol_kernel, &args, sizeof args, deps.v, deps.n, tag);
    int rc = hyt_task_insert(seq, &d);
    hyt_deps_free(&deps);
    return rc;
}
