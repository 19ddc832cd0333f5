/* Matrix multiply on tiles through CBLAS: C = alpha op(A) op(B) + beta C. */
#include "hyt_cpu_kernels.h"

#include <cblas.h>

typedef struct gemm_args {
    char transa, transb;
    int m, n, k, lda, ldb, ldc;
    double alpha, beta;
    const double *A, *B;
    double *C;
    const int *stop;
} gemm_args_t;

static int gemm_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    gemm_args_t *a = p;
    if (hyt_stopped(a->stop))
        return 0;
    hyt_races_gemm(a->transa, a->transb, a->m, a->n, a->k, a->A, a->lda, a->B, a->ldb, a->C,
                   a->ldc);
    cblas_dgemm(CblasColMajor, a->transa == 'N' ? CblasNoTrans : CblasTrans,
                a->transb == 'N' ? CblasNoTrans : CblasTrans, a->m, a->n, a->k, a->alpha, a->A,
                a->lda, a->B, a->ldb, a->beta, a->C, a->ldc);
    return 0;
}

static const hyt_kernel_t gemm_kernel = {.name = "dgemm", .cpu = gemm_body, .cat = HYT_CAT_UPDATE};

int hyt_insert_dgemm(hyt_sequence_t *seq, hyt_tag_t tag, char transa, char transb, int m, int n,
                     int k, double alpha, const double *A, int lda, const double *B, int ldb,
                     double beta, double *C, int ldc)
{
    return hyt_insert_dgemm_stop(seq, tag, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                                 C, ldc, NULL);
}

int hyt_insert_dgemm_stop(hyt_sequence_t *seq, hyt_tag_t tag, char transa, char transb, int m,
                          int n, int k, double alpha, const double *A, int lda, const double *B,
                          int ldb, double beta, double *C, int ldc, const int *stop)
{
    if (m <= 0 || n <= 0)
        return HYT_SUCCESS;
    gemm_args_t args = {transa, transb, m, n, k, lda, ldb, ldc, alpha, beta, A, B, C, stop};
    hyt_dep_t deps[3] = {{A, HYT_READ}, {B, HYT_READ}, {C, HYT_RW}};
    hyt_task_desc_t d = hyt_tagged_desc(&gemm_kernel, &args, sizeof args, deps, 3, tag);
    return hyt_task_insert(seq, &d);
}
