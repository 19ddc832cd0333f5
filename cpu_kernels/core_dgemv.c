/* r = beta r + alpha A x on a tile matrix, one task per tile row (residuals, HPL checks). */
#include "hyt_cpu_kernels.h"

#include <cblas.h>
#include <stdlib.h>

typedef struct gemv_args {
    hyt_desc_t A;
    int i;
    double alpha, beta;
    const double *x;
    double *r;
} gemv_args_t;

static int gemv_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    gemv_args_t *a = p;
    const hyt_desc_t *A = &a->A;
    int mb = hyt_tile_mb(A, a->i);
    double *r = a->r + (int64_t)a->i * A->nb;
    double beta = a->beta;
    for (int j = 0; j < A->nt; j++)
        hyt_races_tile(A, a->i, j, 0, "a tile");
    hyt_races_note(a->x, 0, (size_t)A->n * sizeof *a->x, 1, 0, "x");
    hyt_races_note(r, 0, (size_t)mb * sizeof *r, 1, 1, "the result's rows");
    for (int j = 0; j < A->nt; j++) {
        cblas_dgemv(CblasColMajor, CblasNoTrans, mb, hyt_tile_nb(A, j), a->alpha,
                    hyt_tile(A, a->i, j), hyt_tile_ld(A), a->x + (int64_t)j * A->nb, 1, beta, r,
                    1);
        beta = 1.0;
    }
    if (A->nt == 0 && beta != 1.0)
        for (int q = 0; q < mb; q++)
            r[q] *= beta;
    return 0;
}

static const hyt_kernel_t gemv_kernel = {.name = "dgemv", .cpu = gemv_body, .cat = HYT_CAT_OTHER};

int hyt_dgemv_tile_async(hyt_sequence_t *seq, double alpha, const hyt_desc_t *A, const double *x,
                         double beta, double *r)
{
    hyt_dep_t *deps = malloc((size_t)(A->nt + 2) * sizeof *deps);
    if (!deps)
        return HYT_ERR_NOMEM;
    int rc = 0;
    for (int i = 0; i < A->mt && !rc; i++) {
        gemv_args_t args = {*A, i, alpha, beta, x, r};
        int nd = 0;
        for (int j = 0; j < A->nt; j++)
            deps[nd++] = (hyt_dep_t){hyt_tile(A, i, j), HYT_READ};
        deps[nd++] = (hyt_dep_t){x, HYT_READ};
        deps[nd++] = (hyt_dep_t){r + (int64_t)i * A->nb, HYT_RW};
        hyt_task_desc_t d = hyt_task_desc(&gemv_kernel, &args, sizeof args);
        d.deps = deps;
        d.ndeps = nd;
        d.tag[1] = i;
        rc = hyt_task_insert(seq, &d);
    }
    free(deps);
    return rc;
}
