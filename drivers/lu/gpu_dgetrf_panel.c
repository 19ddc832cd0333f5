/*
 * The panel factorization on a GPU (docs/DESIGN.md: "a GPU panel for the steps where the CPUs
 * cannot keep pace").  The panel lives in its owner's CRRB column, a row-major m x n matrix
 * with leading dimension nb; a device task on the high-priority panel stream
 *
 *   factors it in place with partial pivoting          LAPACK's rule, by one of
 *       cuSOLVER (gpu.panel_ctas = 0, or panels of     cublasDgeam to column-major,
 *       at most gpu.panel_native_rows rows)            cusolverDnDgetrf, cublasDgeam back
 *       hytile's native panel LU (the taller panels)   hyt_gpu_dgetrf_crrb, in place
 *   computes inv(L_kk) for the "TRSM as GEMM"           a TRSM on the identity: the row
 *                                                      solve of gpu_dtrsm_crrb.cu up to 512
 *                                                      columns, else cublasDtrsm
 *   copies the factored panel into its own panel slot  for this device's updates
 *   writes the pivots and INFO to page-locked staging  for the host's IPIV and INFO (a
 *                                                      kernel: no copy engine)
 *
 * The host version (host devices, CI) does the same with the CPU panel kernel on a transposed
 * copy.  Pivots stay relative to the panel (1-based): the row swaps on the devices are applied
 * from the panel's first row, and a CPU task turns them into LAPACK's global IPIV.
 */
#include "drv_internal.h"
#include "lu_gpu.h"

#include "config.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#if HYT_HAVE_CUDA
#include "hyt_cuda_check.h"

#include <cusolverDn.h>
#endif

/* The CTAs of the native panel for a panel of m rows, or 0 for cuSOLVER's
 * (hyt_lu_panel_native). */
static int panel_ctas(const hyt_gpu_lu_t *g, int m)
{
    return hyt_lu_panel_native(g->panel_ctas, g->panel_native_rows, m) ? g->panel_ctas : 0;
}

int hyt_gpu_panel_setup(hyt_gpu_lu_t *g)
{
    g->solver = NULL;
    const int mmax = g->mt * g->nb; /* the first panel's rows, the most of any */
    g->lwork = hyt_gpu_dgetrf_crrb_work(g->dev, mmax, g->nb);
    /* cuSOLVER's panel for none, not even the shortest (one row)? */
    if (hyt_device_backend(g->dev) != HYT_BACKEND_CUDA || panel_ctas(g, 1) != 0)
        return HYT_SUCCESS;
#if HYT_HAVE_CUDA
    /* cuSOLVER's panel: the column-major copy of the panel, then cuSOLVER's workspace.  Every
     * panel task runs on the device's PANEL stream, in order, so one handle serves all the LUs
     * of the context (the task sets the stream; bodies run on the device's one thread). */
    void *h;
    int lwork = 0;
    int rc = hyt_cuda_solver(g->dev, &h);
    if (rc)
        return rc;
    g->solver = h;
    HYT_CUSOLVER_TRY(g->dev, cusolverDnDgetrf_bufferSize(h, mmax, g->nb, NULL, mmax, &lwork));
    /* the native panel's workspace too when the taller panels use it */
    const size_t cus = (size_t)g->colsz * sizeof(double) + (size_t)(lwork > 0 ? lwork : 1) *
                       sizeof(double);
    if (panel_ctas(g, mmax) == 0 || cus > g->lwork)
        g->lwork = cus;
    return HYT_SUCCESS;
#else
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "built without CUDA");
#endif
}

/* What one panel factorization works on (device memory unless said otherwise). */
typedef struct panel_args {
    double *col;          /* the panel's first tile in its CRRB column */
    int m, n, nb;         /* panel rows, width (<= nb), tile size */
    void *work;           /* hyt_gpu_dgetrf_crrb's workspace, or P (m x n column-major) and
                           * cuSOLVER's workspace after it */
    int nctas;            /* CTAs of the native panel's leaves (< 0: auto; 0: cuSOLVER) */
    void *solver;         /* cusolverDnHandle_t (cuSOLVER's panel) */
    int *dpiv, *dinfo;    /* pivots (1-based in the panel) and INFO */
    double *linv;         /* inv(L_kk), CRRB */
    const double *ident;  /* nb x nb identity */
    double *slot;         /* the owner's panel slot, same offset as col */
    int64_t slot_bytes;
    int *h_piv, *h_info;  /* page-locked host staging */
} panel_args_t;

/* inv(L_kk) in CRRB is the column-major inv(L_kk)^T = Y with Y L_kk^T = I, and L_kk^T is the
 * unit upper triangle of the panel's column-major view: a TRSM from the right on the identity,
 * no transposition. */
static int panel_host(const hyt_devctx_t *dc, const panel_args_t *a)
{
    const int m = a->m, n = a->n, nb = a->nb, dk = m < n ? m : n;
    int rc = hyt_gpu_dgetrf_crrb(dc, a->col, m, n, nb, a->dpiv, a->dinfo, a->work, a->nctas);
    if (rc)
        return rc;
    memcpy(a->linv, a->ident, (size_t)nb * nb * sizeof(double));
    cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasUnit, dk, dk, 1.0,
                a->col, nb, a->linv, nb);
    memcpy(a->slot, a->col, (size_t)a->slot_bytes);
    memcpy(a->h_piv, a->dpiv, (size_t)dk * sizeof(int));
    *a->h_info = *a->dinfo;
    return HYT_SUCCESS;
}

#if HYT_HAVE_CUDA
static int panel_cuda(const hyt_devctx_t *dc, const panel_args_t *a)
{
    hyt_device_t *dev = dc->dev;
    cublasHandle_t h = (cublasHandle_t)dc->cublas;
    cudaStream_t st = (cudaStream_t)dc->cuda_stream;
    const int m = a->m, n = a->n, nb = a->nb, dk = m < n ? m : n;
    const double one = 1.0, zero = 0.0;
    if (a->nctas != 0) {
        int rc = hyt_gpu_dgetrf_crrb(dc, a->col, m, n, nb, a->dpiv, a->dinfo, a->work, a->nctas);
        if (rc)
            return rc;
    } else {
        /* P (m x n) = the CRRB panel's column-major view (nb x m, ld nb) transposed */
        cusolverDnHandle_t sh = (cusolverDnHandle_t)a->solver;
        double *P = a->work, *work = P + (int64_t)m * n;
        if (!h || !sh)
            return hyt_error(HYT_ERR_INVALID, "%s: the GPU panel runs on a compute or panel "
                             "stream, after hyt_gpu_panel_setup", hyt_device_name(dev));
        HYT_CUSOLVER_TRY(dev, cusolverDnSetStream(sh, st));
        HYT_CUBLAS_TRY(dev, cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a->col, nb,
                                        &zero, P, m, P, m));
        HYT_CUSOLVER_TRY(dev, cusolverDnDgetrf(sh, m, n, P, m, work, a->dpiv, a->dinfo));
        HYT_CUBLAS_TRY(dev, cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, &one, P, m, &zero,
                                        a->col, nb, a->col, nb));
    }
    HYT_CUDA_TRY(dev, cudaMemcpyAsync(a->linv, a->ident, (size_t)nb * nb * sizeof(double),
                                      cudaMemcpyDeviceToDevice, st));
    if (dk <= HYT_TRSM_CRRB_MAX_N) {
        /* the native panel's row solve on the identity: inv(L_kk), row-major (512 x 512 in
         * 71 us against cuBLAS's TRSM's 113-138; docs/performance.md, forty-third stop) */
        int rc = hyt_cuda_dtrsm_crrb(dev, st, a->col, nb, a->linv, nb, dk, dk);
        if (rc)
            return rc;
    } else {
        HYT_CUBLAS_TRY(dev, cublasDtrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER,
                                        CUBLAS_OP_N, CUBLAS_DIAG_UNIT, dk, dk, &one, a->col, nb,
                                        a->linv, nb));
    }
    HYT_CUDA_TRY(dev, cudaMemcpyAsync(a->slot, a->col, (size_t)a->slot_bytes,
                                      cudaMemcpyDeviceToDevice, st));
    /* not cudaMemcpyAsync: it would queue behind the tile rows returning to the host */
    int rc = hyt_gpu_icopy_to_host(dc, a->h_piv, a->dpiv, dk);
    return rc ? rc : hyt_gpu_icopy_to_host(dc, a->h_info, a->dinfo, 1);
}
#endif

/* ---- the device task ------------------------------------------------------------------------ */

typedef struct gpanel_args {
    hyt_gpu_lu_t g;
    int k, m, n;
    int *h_piv, *h_info;
} gpanel_args_t;

static int gpanel_body(const hyt_devctx_t *dc, void *p)
{
    gpanel_args_t *t = p;
    const hyt_gpu_lu_t *g = &t->g;
    const int s = t->k % g->npbuf, nb = g->nb;
    const int64_t off = (int64_t)t->k * g->tile; /* the panel's first tile in a column */
    panel_args_t a = {
        .col = g->cols + (int64_t)(t->k / g->ndev) * g->colsz + off,
        .m = t->m,
        .n = t->n,
        .nb = nb,
        .work = g->pwork,
        .nctas = panel_ctas(g, t->m),
        .solver = g->solver,
        .dpiv = g->piv + (int64_t)s * nb,
        .dinfo = g->dinfo + s,
        .linv = g->linv + s * g->tile,
        .ident = g->ident,
        .slot = g->pbuf + s * g->colsz + off,
        .slot_bytes = (g->mt - t->k) * g->tile * (int64_t)sizeof(double),
        .h_piv = t->h_piv,
        .h_info = t->h_info,
    };
    /* debug.races: what the panel's factorization (cuSOLVER's or the native one), copies and
     * solve touch */
    const int dk = a.m < a.n ? a.m : a.n;
    hyt_races_note(a.col, 0, (size_t)a.m * nb * sizeof(double), 1, 1, "the panel");
    hyt_races_note(a.work, 0, g->lwork, 1, 1, "the panel's workspace");
    hyt_races_note(a.dpiv, 0, (size_t)dk * sizeof(int), 1, 1, "the pivots");
    hyt_races_note(a.dinfo, 0, sizeof(int), 1, 1, "INFO");
    hyt_races_note(a.ident, 0, (size_t)nb * nb * sizeof(double), 1, 0, "the identity");
    hyt_races_note(a.linv, 0, (size_t)nb * nb * sizeof(double), 1, 1, "inv(L_kk)");
    hyt_races_note(a.slot, 0, (size_t)a.slot_bytes, 1, 1, "the panel slot");
    hyt_races_note(a.h_piv, 0, (size_t)dk * sizeof(int), 1, 1, "the pivots' copy");
    hyt_races_note(a.h_info, 0, sizeof(int), 1, 1, "INFO's copy");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if (hyt_device_fault_point(dc->dev))
            return hyt_error(HYT_ERR_DEVICE, "GPU panel on %s failed: injected fault "
                             "(debug.fault_device)", hyt_device_name(dc->dev));
        return panel_host(dc, &a);
    }
#if HYT_HAVE_CUDA
    return panel_cuda(dc, &a);
#else
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "built without CUDA");
#endif
}

/* Two names for one body, so that a trace shows which panel factored each step. */
static const hyt_kernel_t gpanel_kernel = {.name = "gpu_panel", .dev = gpanel_body,
                                           .cat = HYT_CAT_PANEL};
static const hyt_kernel_t gpanel_native_kernel = {.name = "gpu_panel_native",
                                                  .dev = gpanel_body, .cat = HYT_CAT_PANEL};

int hyt_insert_gpu_panel(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g, int k, int m,
                         int n, int *h_piv, int *h_info, const void *col_key,
                         const void *slot_key, const void *done_key)
{
    gpanel_args_t args = {*g, k, m, n, h_piv, h_info};
    /* done_key: the step's work on this device, gathered (the tile row's return waits for it) */
    hyt_dep_t deps[4] = {{col_key, HYT_RW}, {slot_key, HYT_WRITE}, {h_piv, HYT_WRITE},
                         {done_key, HYT_GATHER}};
    hyt_task_desc_t d = hyt_tagged_desc(panel_ctas(g, m) ? &gpanel_native_kernel : &gpanel_kernel,
                                        &args, sizeof args, deps, done_key ? 4 : 3, tag);
    d.device = hyt_device_index(g->dev);
    d.stream = HYT_STREAM_PANEL;
    return hyt_task_insert(seq, &d);
}

/* ---- the host's IPIV and INFO from the staged panel pivots ---------------------------------- */

typedef struct piv_args {
    int k, dk, nb;
    const int *h_piv, *h_info;
    int *ipiv, *info;
} piv_args_t;

static int piv_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    piv_args_t *a = p;
    int64_t r0 = (int64_t)a->k * a->nb;
    for (int q = 0; q < a->dk; q++)
        a->ipiv[r0 + q] = (int)(r0 + a->h_piv[q]);
    if (*a->h_info > 0 && *a->info == 0)
        *a->info = (int)(r0 + *a->h_info);
    return 0;
}

static const hyt_kernel_t piv_kernel = {.name = "panel_pivots", .cpu = piv_body,
                                        .cat = HYT_CAT_OTHER};

int hyt_insert_gpu_panel_pivots(hyt_sequence_t *seq, hyt_tag_t tag, int k, int dk, int nb,
                                const int *h_piv, const int *h_info, int *ipiv, int *info,
                                const void *order_key)
{
    piv_args_t args = {k, dk, nb, h_piv, h_info, ipiv, info};
    /* order_key: the pivot tasks one after the other (INFO is the first zero pivot) */
    hyt_dep_t deps[3] = {{h_piv, HYT_READ}, {&ipiv[(int64_t)k * nb], HYT_WRITE},
                         {order_key, HYT_RW}};
    hyt_task_desc_t d = hyt_tagged_desc(&piv_kernel, &args, sizeof args, deps, 3, tag);
    return hyt_task_insert(seq, &d);
}

/* ---- the panel from its owner to another device --------------------------------------------- */

typedef struct peer_args {
    hyt_gpu_lu_t dst, src;
    int k, dk;
} peer_args_t;

static int peer_body(const hyt_devctx_t *dc, void *p)
{
    peer_args_t *a = p;
    const int s = a->k % a->dst.npbuf;
    const int64_t off = s * a->dst.colsz + (int64_t)a->k * a->dst.tile;
    int rc = hyt_dev_memcpy_d2d(dc, a->dst.pbuf + off, a->src.pbuf + off,
                                (size_t)(a->dst.mt - a->k) * a->dst.tile * sizeof(double));
    if (!rc)
        rc = hyt_dev_memcpy_d2d(dc, a->dst.linv + s * a->dst.tile, a->src.linv + s * a->src.tile,
                                (size_t)a->dst.tile * sizeof(double));
    if (!rc)
        rc = hyt_dev_memcpy_d2d(dc, a->dst.piv + (int64_t)s * a->dst.nb,
                                a->src.piv + (int64_t)s * a->src.nb, (size_t)a->dk * sizeof(int));
    return rc;
}

static const hyt_kernel_t peer_kernel = {.name = "panel_peer_copy", .dev = peer_body,
                                         .cat = HYT_CAT_DMA};

int hyt_insert_gpu_panel_peer(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *dst,
                              const hyt_gpu_lu_t *src, int k, int dk, const void *src_slot_key,
                              const void *dst_slot_key)
{
    peer_args_t args = {*dst, *src, k, dk};
    hyt_dep_t deps[2] = {{src_slot_key, HYT_READ}, {dst_slot_key, HYT_WRITE}};
    hyt_task_desc_t d = hyt_tagged_desc(&peer_kernel, &args, sizeof args, deps, 2, tag);
    d.device = hyt_device_index(dst->dev);
    /* on the receiver's lookahead stream, whose next work needs the copy, not behind the
     * column loads queued on its H2D stream (2 x H100, N = 65536: the second GPU's first
     * panel 15 ms earlier, host to host 0.6-1.3% faster; docs/performance.md,
     * thirty-third stop) */
    d.stream = HYT_STREAM_LOOKAHEAD;
    return hyt_task_insert(seq, &d);
}
