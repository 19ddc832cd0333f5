/*
 * Triangular solve on tiles through CBLAS (leading dimensions of the tiles).
 *
 * A left-side solve op(A) X = alpha B of at least TRANSPOSE_MIN rows and columns is done as
 * the right-side solve X^T op(A)^T = alpha B^T on a transposed copy of B in the task's
 * scratch: OpenBLAS 0.3.21 runs its left-side TRSMs at about 20 GFLOP/s on a core of the
 * 2-core EPYC and its right-side ones at about 28 (256 x 256, every uplo and trans), and the
 * two transpositions cost less than the difference (24 GFLOP/s in all; the upper Cholesky's
 * panel is such a solve, docs/performance.md).  Same operations in another order: the results
 * agree to rounding.  Right-side solves (those too) go by halves, the off-diagonal part as a
 * GEMM (rtrsm below).
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

/* The BLAS's DTRSM with LAPACK's character arguments (column-major). */
static void blas_dtrsm(char side, char uplo, char trans, char diag, int m, int n, double alpha,
                       const double *A, int lda, double *B, int ldb)
{
    cblas_dtrsm(CblasColMajor, side == 'L' ? CblasLeft : CblasRight,
                uplo == 'L' ? CblasLower : CblasUpper, trans == 'N' ? CblasNoTrans : CblasTrans,
                diag == 'U' ? CblasUnit : CblasNonUnit, m, n, alpha, A, lda, B, ldb);
}

/* The right-side solve X op(A) = alpha B (A n x n, B m x n) by halves of A: the two solves of
 * the halves, and a GEMM between them that carries most of the flops, down to RLEAF columns
 * solved by the BLAS.  OpenBLAS 0.3.21's right-side DTRSM runs at ~21 GFLOP/s on a core of the
 * 2-core EPYC whatever m (256 columns, m = 256..4096), its GEMM at ~45: the Cholesky's panel
 * solves took 15-25% less time (nb 256, N = 4000 and 8192, docs/performance.md). */
#define RLEAF 64
static void rtrsm(char uplo, char trans, char diag, int m, int n, double alpha, const double *A,
                  int lda, double *B, int ldb)
{
    if (n <= RLEAF) {
        blas_dtrsm('R', uplo, trans, diag, m, n, alpha, A, lda, B, ldb);
        return;
    }
    const int n1 = n / 2 / 32 * 32 > 0 ? n / 2 / 32 * 32 : n / 2, n2 = n - n1;
    const double *A22 = A + n1 + (int64_t)n1 * lda;
    double *B2 = B + (int64_t)n1 * ldb;
    const CBLAS_TRANSPOSE tr = trans == 'N' ? CblasNoTrans : CblasTrans;
    if ((uplo == 'U') == (trans == 'N')) {
        /* op(A) upper: X1 = alpha B1 op(A11)^-1, then X2 op(A22) = alpha B2 - X1 op(A)12, where
         * op(A)12 is A12 (N) or A21^T (T) */
        const double *P12 = trans == 'N' ? A + (int64_t)n1 * lda : A + n1;
        rtrsm(uplo, trans, diag, m, n1, alpha, A, lda, B, ldb);
        cblas_dgemm(CblasColMajor, CblasNoTrans, tr, m, n2, n1, -1.0, B, ldb, P12, lda, alpha,
                    B2, ldb);
        rtrsm(uplo, trans, diag, m, n2, 1.0, A22, lda, B2, ldb);
    } else {
        /* op(A) lower: X2 first, then X1 op(A11) = alpha B1 - X2 op(A)21, op(A)21 being A21 (N)
         * or A12^T (T) */
        const double *P21 = trans == 'N' ? A + n1 : A + (int64_t)n1 * lda;
        rtrsm(uplo, trans, diag, m, n2, alpha, A22, lda, B2, ldb);
        cblas_dgemm(CblasColMajor, CblasNoTrans, tr, m, n1, n2, -1.0, B2, ldb, P21, lda, alpha,
                    B, ldb);
        rtrsm(uplo, trans, diag, m, n1, 1.0, A, lda, B, ldb);
    }
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
    hyt_races_trsm(a->side, a->uplo, a->m, a->n, a->A, a->lda, a->B, a->ldb);
    if (transposed(a)) { /* S = B^T (n x m); S op(A)^T = alpha S; B = S^T */
        double *S = tc->scratch;
        transpose(a->m, a->n, a->B, a->ldb, S, a->n);
        rtrsm(a->uplo, a->trans == 'N' ? 'T' : 'N', a->diag, a->n, a->m, a->alpha, a->A, a->lda,
              S, a->n);
        transpose(a->n, a->m, S, a->n, a->B, a->ldb);
        return 0;
    }
    if (a->side == 'R') {
        rtrsm(a->uplo, a->trans, a->diag, a->m, a->n, a->alpha, a->A, a->lda, a->B, a->ldb);
        return 0;
    }
    blas_dtrsm('L', a->uplo, a->trans, a->diag, a->m, a->n, a->alpha, a->A, a->lda, a->B,
               a->ldb);
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
