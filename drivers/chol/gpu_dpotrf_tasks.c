/*
 * The device tasks of the GPU-only Cholesky (pdpotrf_gpu.c): the lower n x n column-major
 * matrix D->A on one device, block size nb, block column k = columns k nb .. k nb + kb - 1.
 * Every kernel goes through the gpu_kernels/ dispatchers, so the same tasks run the fused
 * potf2 and cuBLAS on a CUDA device and the host references on a host device (CI).
 *
 *   panel k    A_kk = L_kk L_kk^T                 hyt_gpu_dpotf2, INFO to D->dinfo[k]
 *              L_ik = A_ik inv(L_kk)^T, i > k     one TRSM on all rows below the block
 *   update     A(c0:n, c0:c1) -= L(c0:n, k) L(c0:c1, k)^T on the lower triangle only:
 *              the square part c0..c1 cut recursively in halves (SYRK on the diagonal
 *              halves, one GEMM for the rectangle under the first half) down to SYRKs of at
 *              most LEAF columns, so that most flops run as a few large GEMMs; the rows
 *              below c1 in one GEMM.
 *   info       D->dinfo -> host.
 */
#include "chol_internal.h"
#include "hyt_gpu_kernels.h"

/* SYRKs at most this wide at the bottom of the recursive trailing update; halves aligned to
 * ALIGN columns (GEMM tiles).  To be measured (docs/performance.md). */
#define LEAF 1024
#define ALIGN 256

#define AT(D, r, c) ((D)->A + (int64_t)(r) + (int64_t)(c) * (D)->ld)

static int blk(const hyt_chol_dev_t *D, int k)
{
    int kb = D->n - k * D->nb;
    return kb < D->nb ? kb : D->nb;
}

/* A task body's failure: the kernel's message to the sequence. */
static int forward(const hyt_devctx_t *dc, int rc)
{
    if (rc)
        hyt_sequence_fail(dc->seq, rc, "%s", hyt_last_error());
    return rc;
}

typedef struct chol_args {
    hyt_chol_dev_t D;
    int k, j0, j1;
    int *h_info;
} chol_args_t;

static int panel_body(const hyt_devctx_t *dc, void *p)
{
    const chol_args_t *a = p;
    const hyt_chol_dev_t *D = &a->D;
    const int c = a->k * D->nb, kb = blk(D, a->k), below = D->n - c - kb;
    int rc = hyt_gpu_dpotf2(dc, kb, AT(D, c, c), D->ld, D->dinfo + a->k);
    if (!rc)
        rc = hyt_gpu_dtrsm(dc, 'R', 'L', 'T', 'N', below, kb, 1.0, AT(D, c, c), D->ld,
                           AT(D, c + kb, c), D->ld);
    return forward(dc, rc);
}

/* C(r:r+m, r:r+m) -= L(r:r+m) L(r:r+m)^T on the lower triangle, L the panel's rows (kb wide). */
static int rsyrk(const hyt_devctx_t *dc, const hyt_chol_dev_t *D, int pc, int kb, int r, int m)
{
    if (m <= LEAF)
        return hyt_gpu_dsyrk(dc, 'L', 'N', m, kb, -1.0, AT(D, r, pc), D->ld, 1.0, AT(D, r, r),
                             D->ld);
    const int h = (m / 2 + ALIGN - 1) / ALIGN * ALIGN; /* 0 < h < m as m > LEAF >= 2 ALIGN */
    int rc = rsyrk(dc, D, pc, kb, r, h);
    if (!rc)
        rc = hyt_gpu_dgemm_batched(dc, 'N', 'T', m - h, h, kb, -1.0, AT(D, r + h, pc), D->ld, 0,
                                   AT(D, r, pc), D->ld, 0, 1.0, AT(D, r + h, r), D->ld, 0, 1, 1);
    return rc ? rc : rsyrk(dc, D, pc, kb, r + h, m - h);
}

static int update_body(const hyt_devctx_t *dc, void *p)
{
    const chol_args_t *a = p;
    const hyt_chol_dev_t *D = &a->D;
    const int pc = a->k * D->nb, kb = blk(D, a->k);
    const int c0 = a->j0 * D->nb, c1 = a->j1 * D->nb < D->n ? a->j1 * D->nb : D->n;
    int rc = rsyrk(dc, D, pc, kb, c0, c1 - c0);
    if (!rc && c1 < D->n)
        rc = hyt_gpu_dgemm_batched(dc, 'N', 'T', D->n - c1, c1 - c0, kb, -1.0, AT(D, c1, pc),
                                   D->ld, 0, AT(D, c0, pc), D->ld, 0, 1.0, AT(D, c1, c0), D->ld,
                                   0, 1, 1);
    return forward(dc, rc);
}

static int info_body(const hyt_devctx_t *dc, void *p)
{
    const chol_args_t *a = p;
    const int nt = (a->D.n + a->D.nb - 1) / a->D.nb;
    return forward(dc, hyt_dev_memcpy_d2h(dc, a->h_info, a->D.dinfo, (size_t)nt * sizeof(int)));
}

static const hyt_kernel_t panel_kernel = {.name = "gpu_chol_panel", .dev = panel_body,
                                          .cat = HYT_CAT_PANEL};
static const hyt_kernel_t update_kernel = {.name = "gpu_chol_update", .dev = update_body,
                                           .cat = HYT_CAT_GPU};
static const hyt_kernel_t info_kernel = {.name = "gpu_chol_info", .dev = info_body,
                                         .cat = HYT_CAT_DMA};

static int insert(hyt_sequence_t *seq, const hyt_kernel_t *kern, hyt_tag_t tag,
                  const chol_args_t *a, int stream, const hyt_dep_t *deps, int ndeps)
{
    hyt_task_desc_t d = hyt_tagged_desc(kern, a, sizeof *a, deps, ndeps, tag);
    d.device = a->D.device;
    d.stream = stream;
    return hyt_task_insert(seq, &d);
}

int hyt_insert_gpu_chol_panel(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_dev_t *D,
                              int k, int stream, const hyt_dep_t *deps, int ndeps)
{
    chol_args_t a = {*D, k, 0, 0, NULL};
    return insert(seq, &panel_kernel, tag, &a, stream, deps, ndeps);
}

int hyt_insert_gpu_chol_update(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_dev_t *D,
                               int k, int j0, int j1, int stream, const hyt_dep_t *deps,
                               int ndeps)
{
    chol_args_t a = {*D, k, j0, j1, NULL};
    return insert(seq, &update_kernel, tag, &a, stream, deps, ndeps);
}

int hyt_insert_gpu_chol_info(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_dev_t *D,
                             int *h_info, int stream, const hyt_dep_t *deps, int ndeps)
{
    chol_args_t a = {*D, 0, 0, 0, h_info};
    return insert(seq, &info_kernel, tag, &a, stream, deps, ndeps);
}
