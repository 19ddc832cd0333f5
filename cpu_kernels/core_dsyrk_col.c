/*
 * Step k of the Cholesky applied to tile column j (the trailing update), for tile rows [i1, i2)
 * of the column (i1 >= j): the SYRK on the diagonal tile when i1 = j, then the GEMM on the
 * tiles below it.  On a LAPACK array the rows are one matrix with leading dimension lda, so the
 * GEMM is one tall call (tall GEMMs amortize OpenBLAS's packing: 40 against 50 GFLOP/s for
 * 192-wide tiles, docs/performance.md); on CCRB one call per tile.
 *
 * Lower: A_jj -= L_jk L_jk^T, A_ij -= L_ik L_jk^T.  Upper, on the transpose with the same
 * indices ("tile (i,j)" is tile (j,i) of U): U_jj -= U_kj^T U_kj, U_ji -= U_kj^T U_ki, and the
 * tall call runs along the tile row j of U.
 */
#include "hyt_cpu_kernels.h"

#include <cblas.h>

typedef struct col_args {
    hyt_desc_t A;
    char uplo;
    int k, j, i1, i2;
    const int *stop;
} col_args_t;

/* Tile (i,j) of L, or of U^T. */
static double *tl(const hyt_desc_t *A, char uplo, int i, int j)
{
    return uplo == 'L' ? hyt_tile(A, i, j) : hyt_tile(A, j, i);
}

/* The GEMM on tile rows [i1, i2) (all below the diagonal), as one call when the rows are one
 * matrix in memory. */
static void gemm_rows(const hyt_desc_t *A, char uplo, int k, int j, int i1, int i2)
{
    const int ld = hyt_tile_ld(A), nbk = hyt_tile_nb(A, k), nbj = hyt_tile_nb(A, j);
    const int lapack = A->layout == HYT_LAYOUT_LAPACK;
    for (int i = i1; i < i2; i = lapack ? i2 : i + 1) {
        int m = lapack ? (i2 - 1 - i) * A->nb + hyt_tile_nb(A, i2 - 1) : hyt_tile_nb(A, i);
        if (uplo == 'L')
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, nbj, nbk, -1.0,
                        tl(A, uplo, i, k), ld, tl(A, uplo, j, k), ld, 1.0, tl(A, uplo, i, j), ld);
        else
            cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, nbj, m, nbk, -1.0,
                        tl(A, uplo, j, k), ld, tl(A, uplo, i, k), ld, 1.0, tl(A, uplo, i, j), ld);
    }
}

static int col_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    col_args_t *a = p;
    if (hyt_stopped(a->stop))
        return 0;
    const hyt_desc_t *A = &a->A;
    const int ld = hyt_tile_ld(A), nbk = hyt_tile_nb(A, a->k), nbj = hyt_tile_nb(A, a->j);
    if (hyt_races_on()) { /* debug.races: tile (i, j) of L (of U^T: (j, i)) as tl() */
        const int up = a->uplo != 'L';
        hyt_races_tile(A, up ? a->k : a->j, up ? a->j : a->k, 0, "the panel");
        if (a->i1 == a->j)
            hyt_races_tri(a->uplo, tl(A, a->uplo, a->j, a->j), ld, nbj, 1, "the diagonal tile");
        for (int i = a->i1 > a->j ? a->i1 : a->j + 1; i < a->i2; i++) {
            hyt_races_tile(A, up ? a->k : i, up ? i : a->k, 0, "the panel");
            hyt_races_tile(A, up ? a->j : i, up ? i : a->j, 1, "a tile");
        }
    }
    if (a->i1 == a->j)
        cblas_dsyrk(CblasColMajor, a->uplo == 'L' ? CblasLower : CblasUpper,
                    a->uplo == 'L' ? CblasNoTrans : CblasTrans, nbj, nbk, -1.0,
                    tl(A, a->uplo, a->j, a->k), ld, 1.0, tl(A, a->uplo, a->j, a->j), ld);
    int r0 = a->i1 > a->j ? a->i1 : a->j + 1;
    if (r0 < a->i2)
        gemm_rows(A, a->uplo, a->k, a->j, r0, a->i2);
    return 0;
}

static const hyt_kernel_t col_kernel = {.name = "dsyrk_col", .cpu = col_body,
                                        .cat = HYT_CAT_UPDATE};

int hyt_insert_dsyrk_col(hyt_sequence_t *seq, hyt_tag_t tag, char uplo, const hyt_desc_t *A,
                         int k, int j, int i1, int i2, const int *stop)
{
    if (i1 >= i2)
        return HYT_SUCCESS;
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, 2 * (i2 - i1) + 1))
        return HYT_ERR_NOMEM;
    if (i1 > j)
        hyt_deps_add(&deps, tl(A, uplo, j, k), HYT_READ);
    for (int i = i1; i < i2; i++) {
        hyt_deps_add(&deps, tl(A, uplo, i, k), HYT_READ);
        hyt_deps_add(&deps, tl(A, uplo, i, j), HYT_RW);
    }
    col_args_t args = {*A, uplo, k, j, i1, i2, stop};
    hyt_task_desc_t d = hyt_tagged_desc(&col_kernel, &args, sizeof args, deps.v, deps.n, tag);
    int rc = hyt_task_insert(seq, &d);
    hyt_deps_free(&deps);
    return rc;
}
