/*
 * Cholesky factorization of a diagonal tile, in place: recursive as LAPACK's dpotrf2 (factor
 * the leading half, solve the off-diagonal block with it, update the trailing half by SYRK,
 * factor that), down to leaves factored column by column.  CBLAS only, so that libhytile's own
 * dpotrf_ (the LAPACK ABI) is never called from inside a task.
 */
#include "hyt_cpu_kernels.h"

#include <cblas.h>
#include <math.h>

/* Columns factored without recursion: the leaf fits in L1 (32 x 32 doubles = 8 KiB). */
#define LEAF 32

/* Unblocked (LAPACK's dpotf2): INFO as LAPACK's, the failing diagonal left as computed. */
static int potf2(char uplo, int n, double *a, int64_t lda)
{
    /* element (r, c) of L, or of U^T (= U(c, r)): the same loop serves both triangles */
    const int64_t rs = uplo == 'L' ? 1 : lda, cs = uplo == 'L' ? lda : 1;
#define E(r, c) a[(r) * rs + (c) * cs]
    for (int j = 0; j < n; j++) {
        double ajj = E(j, j);
        for (int p = 0; p < j; p++)
            ajj -= E(j, p) * E(j, p);
        if (ajj <= 0 || isnan(ajj)) {
            E(j, j) = ajj;
            return j + 1;
        }
        ajj = sqrt(ajj);
        E(j, j) = ajj;
        for (int i = j + 1; i < n; i++) {
            double s = E(i, j);
            for (int p = 0; p < j; p++)
                s -= E(i, p) * E(j, p);
            E(i, j) = s / ajj;
        }
    }
#undef E
    return 0;
}

int hyt_core_dpotrf(char uplo, int n, double *a, int lda)
{
    if (n <= LEAF)
        return potf2(uplo, n, a, lda);
    const int n1 = n / 2, n2 = n - n1;
    int info = hyt_core_dpotrf(uplo, n1, a, lda);
    if (info)
        return info;
    double *a22 = a + n1 + (int64_t)n1 * lda;
    if (uplo == 'L') {
        /* L21 = A21 inv(L11)^T, A22 -= L21 L21^T */
        double *a21 = a + n1;
        cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, n2, n1, 1.0,
                    a, lda, a21, lda);
        cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n2, n1, -1.0, a21, lda, 1.0, a22,
                    lda);
    } else {
        /* U12 = inv(U11)^T A12, A22 -= U12^T U12 */
        double *a12 = a + (int64_t)n1 * lda;
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, n1, n2, 1.0,
                    a, lda, a12, lda);
        cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, n2, n1, -1.0, a12, lda, 1.0, a22,
                    lda);
    }
    info = hyt_core_dpotrf(uplo, n2, a22, lda);
    return info ? n1 + info : 0;
}

typedef struct potrf_args {
    char uplo;
    int n, lda, offset;
    double *A;
    int *info;
} potrf_args_t;

static int potrf_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    potrf_args_t *a = p;
    if (hyt_stopped(a->info))
        return 0; /* an earlier minor failed: LAPACK stops there */
    hyt_races_tri(a->uplo, a->A, a->lda, a->n, 1, "dpotrf's A");
    int info = hyt_core_dpotrf(a->uplo, a->n, a->A, a->lda);
    if (info)
        __atomic_store_n(a->info, a->offset + info, __ATOMIC_RELAXED);
    return 0;
}

static const hyt_kernel_t potrf_kernel = {.name = "dpotrf", .cpu = potrf_body,
                                          .cat = HYT_CAT_PANEL};

int hyt_insert_dpotrf(hyt_sequence_t *seq, hyt_tag_t tag, char uplo, int n, double *A, int lda,
                      int offset, int *info)
{
    if (n <= 0)
        return HYT_SUCCESS;
    potrf_args_t args = {uplo, n, lda, offset, A, info};
    hyt_dep_t deps[2] = {{A, HYT_RW}, {info, HYT_RW}};
    hyt_task_desc_t d = hyt_tagged_desc(&potrf_kernel, &args, sizeof args, deps, 2, tag);
    return hyt_task_insert(seq, &d);
}
