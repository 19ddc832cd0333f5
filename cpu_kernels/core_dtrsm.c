/* Triangular solve on tiles through CBLAS (leading dimensions of the tiles). */
#include "hyt_cpu_kernels.h"

#include <cblas.h>

typedef struct trsm_args {
    char side, uplo, trans, diag;
    int m, n, lda, ldb;
    double alpha;
    const double *A;
    double *B;
    const int *stop;
} trsm_args_t;

static int trsm_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    trsm_args_t *a = p;
    if (hyt_stopped(a->stop))
        return 0;
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
    return hyt_task_insert(seq, &d);
}
