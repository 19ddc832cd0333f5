/*
 * Triangular solve on tiles through CBLAS (leading dimensions of the tiles).
 *
 * A left-side solve op(A) X = alpha B of at least TRANSPOSE_MIN rows and columns is done as
 * the right-side solve X^T op(A)^T = alpha B^T on a transposed copy of B in the task's
 * scratch: OpenBLAS 0.3.21 runs its left-side TRSMs at about 20 GFLOP/s on a core of the
 * 2-core EPYC and its right-side ones at about 28 (256 x 256, every uplo and trans), and the
 * two transpositions cost less than the difference (24 GFLOP/s in all; the upper Cholesky's
 * panel is such a solve, docs/performance.md).  Same operations in another order: the results
 * agree to rounding.
 */
#include "hyt_cpu_kernels.h"

#include <cblas.h>

#define TRANSPOSE_MIN 64

typedef struct trsm_args {
    char side, uplo, trans, diag;
    int m, n, lda, ldb;
    double alpha;
    const double *A;
    double *B;
    const int *stop;
} trsm_args_t;

/* b (n x m, ldb) = a^T (a: m x n, lda), in 32 x 32 blocks. */
static void transpose(int m, int n, const double *a, int lda, double *b, int ldb)
{
    for (int j0 = 0; j0 < n; j0 += 32)
        for (int i0 = 0; i0 < m; i0 += 32)
            for (int j = j0; j < j0 + 32 && j < n; j++)
                for (int i = i0; i < i0 + 32 && i < m; i++)
                    b[j + (int64_t)i * ldb] = a[i + (int64_t)j * lda];
}

static int transposed(const trsm_args_t *a)
{
    return a->side == 'L' && a->m >= TRANSPOSE_MIN && a->n >= TRANSPOSE_MIN;
}

static int trsm_body(const hyt_task_ctx_t *tc, void *p)
{
    trsm_args_t *a = p;
    if (hyt_stopped(a->stop))
        return 0;
    if (transposed(a)) { /* S = B^T (n x m); S op(A)^T = alpha S; B = S^T */
        double *S = tc->scratch;
        transpose(a->m, a->n, a->B, a->ldb, S, a->n);
        cblas_dtrsm(CblasColMajor, CblasRight, a->uplo == 'L' ? CblasLower : CblasUpper,
                    a->trans == 'N' ? CblasTrans : CblasNoTrans,
                    a->diag == 'U' ? CblasUnit : CblasNonUnit, a->n, a->m, a->alpha, a->A,
                    a->lda, S, a->n);
        transpose(a->n, a->m, S, a->n, a->B, a->ldb);
        return 0;
    }
    cblas_dtrsm(CblasColMajor, a->side == 'L' ? CblasLeft : CblasRight,
                a->uplo == 'L' ? CblasLower : CblasUpper,
                a->trans == 'N' ? CblasNoTrans : CblasTrans,
                a->diag == 'U' ? CblasUnit : CblasNonUnit, a->m, a->n, a->alpha, a->A, a->lda,
                a->B, a->ldb);
    return 0;
}

static const hyt_kernel_t trsm_kernel = {.name = "dtrsm", .cpu = trsm_body, .cat = HYT_CAT_UPDATE};

int hyt_insert_dtrsm(hyt_sequence_t *seq, hyt_tag_t tag, char side, char uplo, char trans,
                     char diag, int m, int n, double alpha, const double *A, int lda,
                     double *B, int ldb)
{
    return hyt_insert_dtrsm_stop(seq, tag, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb,
                                 NULL);
}

int hyt_insert_dtrsm_stop(hyt_sequence_t *seq, hyt_tag_t tag, char side, char uplo, char trans,
                          char diag, int m, int n, double alpha, const double *A, int lda,
                          double *B, int ldb, const int *stop)
{
    if (m <= 0 || n <= 0)
        return HYT_SUCCESS;
    trsm_args_t args = {side, uplo, trans, diag, m, n, lda, ldb, alpha, A, B, stop};
    hyt_dep_t deps[2] = {{A, HYT_READ}, {B, HYT_RW}};
    hyt_task_desc_t d = hyt_tagged_desc(&trsm_kernel, &args, sizeof args, deps, 2, tag);
    if (transposed(&args))
        d.scratch_bytes = (size_t)m * n * sizeof(double);
    return hyt_task_insert(seq, &d);
}
