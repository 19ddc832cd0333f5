/*
 * Inverse of the unit lower triangle of a diagonal tile: the GPUs apply the panel's L_kk as a
 * GEMM with its inverse instead of a TRSM (the seed's section 3.3).  Computed as a triangular
 * solve of the identity.
 */
#include "hyt_cpu_kernels.h"

#include <cblas.h>
#include <string.h>

void hyt_core_dtrtri_ul(int n, const double *L, int ldl, double *Linv, int ldinv, int nb)
{
    for (int c = 0; c < nb; c++)
        memset(Linv + (int64_t)c * ldinv, 0, (size_t)nb * sizeof(double));
    for (int c = 0; c < n; c++)
        Linv[c + (int64_t)c * ldinv] = 1.0;
    if (n > 0)
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, n, n, 1.0, L,
                    ldl, Linv, ldinv);
}

typedef struct trtri_args {
    int n, ldl, ldinv, nb;
    const double *L;
    double *Linv;
} trtri_args_t;

static int trtri_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    trtri_args_t *a = p;
    hyt_races_tri('L', a->L, a->ldl, a->n, 0, "the triangle");
    hyt_races_block(a->Linv, a->ldinv, a->nb, a->nb, 1, "its inverse");
    hyt_core_dtrtri_ul(a->n, a->L, a->ldl, a->Linv, a->ldinv, a->nb);
    return 0;
}

static const hyt_kernel_t trtri_kernel = {.name = "dtrtri", .cpu = trtri_body, .cat = HYT_CAT_PANEL};

int hyt_insert_dtrtri_ul(hyt_sequence_t *seq, hyt_tag_t tag, int n, const double *L, int ldl,
                         double *Linv, int ldinv, int nb)
{
    trtri_args_t args = {n, ldl, ldinv, nb, L, Linv};
    hyt_dep_t deps[2] = {{L, HYT_READ}, {Linv, HYT_WRITE}};
    hyt_task_desc_t d = hyt_tagged_desc(&trtri_kernel, &args, sizeof args, deps, 2, tag);
    return hyt_task_insert(seq, &d);
}
