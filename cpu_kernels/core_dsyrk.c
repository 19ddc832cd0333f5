/* Symmetric rank-k update of a diagonal tile through CBLAS (the Cholesky's trailing update). */
#include "hyt_cpu_kernels.h"

#include <cblas.h>

typedef struct syrk_args {
    char uplo, trans;
    int n, k, lda, ldc;
    double alpha, beta;
    const double *A;
    double *C;
    const int *stop;
} syrk_args_t;

static int syrk_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    syrk_args_t *a = p;
    if (hyt_stopped(a->stop))
        return 0;
    cblas_dsyrk(CblasColMajor, a->uplo == 'L' ? CblasLower : CblasUpper,
                a->trans == 'N' ? CblasNoTrans : CblasTrans, a->n, a->k, a->alpha, a->A, a->lda,
                a->beta, a->C, a->ldc);
    return 0;
}

static const hyt_kernel_t syrk_kernel = {.name = "dsyrk", .cpu = syrk_body, .cat = HYT_CAT_UPDATE};

int hyt_insert_dsyrk(hyt_sequence_t *seq, hyt_tag_t tag, char uplo, char trans, int n, int k,
                     double alpha, const double *A, int lda, double beta, double *C, int ldc,
                     const int *stop)
{
    if (n <= 0)
        return HYT_SUCCESS;
    syrk_args_t args = {uplo, trans, n, k, lda, ldc, alpha, beta, A, C, stop};
    hyt_dep_t deps[2] = {{A, HYT_READ}, {C, HYT_RW}};
    hyt_task_desc_t d = hyt_tagged_desc(&syrk_kernel, &args, sizeof args, deps, 2, tag);
    return hyt_task_insert(seq, &d);
}
