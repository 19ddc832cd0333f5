/*
 * The device tasks of the GPU-only Cholesky (pdpotrf_gpu.c): the n x n column-major matrix
 * D->A on one device, block size nb, block column k = columns k nb .. k nb + kb - 1.  Every
 * kernel goes through the gpu_kernels/ dispatchers, so the same tasks run the fused potf2 and
 * cuBLAS on a CUDA device and the host references on a host device (CI).  Lower (A = L L^T):
 *
 *   panel k    A_kk = L_kk L_kk^T                 hyt_gpu_dpotf2 in pieces of at most
 *                                                 HYT_CHOL_DEV_PIECE columns (a blocked
 *                                                 potrf inside the block: potf2, TRSM of the
 *                                                 block's rows below the piece, SYRK of the
 *                                                 rest), piece p's INFO to D->dinfo[k P + p]
 *              L_ik = A_ik inv(L_kk)^T, i > k     all rows below the block at once: from
 *                                                 D->inv_rows rows (chol.inv_rows) a GEMM with
 *                                                 inv(L_kk) (a TRSM on the identity) into
 *                                                 D->work and a copy back, else one TRSM
 *                                                 (gpu_chol_trsm.c)
 *   update     A(c0:n, c0:c1) -= L(c0:n, K) L(c0:c1, K)^T on the lower triangle only, K the
 *              block columns k0 .. k1 (one step's panel, or a group's: pdpotrf_gpu.c):
 *              the square part c0..c1 cut recursively in halves (SYRK on the diagonal
 *              halves, one GEMM for the rectangle under the first half) down to SYRKs of at
 *              most D->leaf columns, so that most flops run as a few large GEMMs; the rows
 *              below c1 in one GEMM.
 *   tail       from step D->tail_k, the trailing matrix in one hyt_gpu_dpotrf (the vendor's
 *              dpotrf: cusolverDnDpotrf; host: hyt_core_dpotrf), its INFO to
 *              D->dinfo[tail_k P]
 *   info       D->dinfo -> host.
 *
 * Why the GEMM: cuBLAS's DTRSM runs the panel's shapes at 14-15 TFLOP/s, a quarter of its GEMM
 * rate (2.23 ms for 32768 x 1024 against 1.47 ms for the GEMM with the inverse plus the copy
 * back; the upper form 3.87 against 1.44), and the panel's solve runs beside the trailing
 * update (lookahead), so its SM time is taken from the update; below inv_rows rows the
 * inverse's own latency (a TRSM on the identity, 0.49 ms at nb 1024) costs more than the solve
 * saves, and the late panels are on the critical path.  Measured on one H200
 * (docs/performance.md): upper 6-11% faster at N = 16384..65536, lower 2% at 32768 and 1% at
 * 65536 (the same path at 16384).  One workspace serves every panel: they run in order on the
 * lookahead stream (pdpotrf_gpu.c).
 *
 * Upper (A = U^T U) is the same algorithm on the transposed view L = U^T, with no data moved:
 * view element (r, c) is A(c, r), so the view's block column k is the block ROW k of U (a
 * kb x (n - k nb) strip), and each call is the transpose of its lower one:
 *
 *   potf2      the fused kernel's upper variant (A_kk = U_kk^T U_kk)
 *   TRSM       U_kj = inv(U_kk)^T A_kj:          side L, upper, trans T (instead of R, L, T);
 *              as a GEMM: inv(U_kk)^T A_kj, 'T','N'
 *   SYRK       C -= U^T U on the upper triangle:  uplo U, trans T (instead of L, N)
 *   GEMM       C(r, r+h ..) -= U(:, r ..)^T U(:, r+h ..): trans T, N (instead of N, T), the
 *              rectangle right of the first half instead of under it
 *
 * so the loop nest, its tokens and INFO are the lower case's (both triangles give the same
 * leading minors: INFO is the same number).
 */
#include "chol_internal.h"
#include "hyt_gpu_kernels.h"

_Static_assert(HYT_CHOL_DEV_PIECE <= HYT_DPOTF2_MAX_N, "potf2 pieces wider than the kernel");

/* Halves of the recursive trailing update aligned to ALIGN columns (GEMM tiles). */
#define ALIGN 256

#define AT(D, r, c) ((D)->A + (int64_t)(r) + (int64_t)(c) * (D)->ld)
/* The view's block at (r, c): lower A(r, c); upper A(c, r), the same block transposed. */
#define VIEW(D, r, c) ((D)->uplo == 'U' ? AT(D, c, r) : AT(D, r, c))

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
    int k1; /* update: the panels of steps k .. k1 */
    int *h_info;
} chol_args_t;

/* In the view's terms: B (m x kb at view (r, c)) = B inv(L)^T with L the kb x kb factor at
 * view (c, c), for lower; upper: the transposed call on the memory, U^-T B. */
static int trsm(const hyt_devctx_t *dc, const hyt_chol_dev_t *D, int m, int kb, int r, int c)
{
    if (D->uplo == 'U')
        return hyt_gpu_dtrsm(dc, 'L', 'U', 'T', 'N', kb, m, 1.0, AT(D, c, c), D->ld,
                             AT(D, c, r), D->ld);
    return hyt_gpu_dtrsm(dc, 'R', 'L', 'T', 'N', m, kb, 1.0, AT(D, c, c), D->ld, AT(D, r, c),
                         D->ld);
}

/* The view's C (m x m at view (r, r), its lower triangle) -= P P^T, P m x kb at view (r, pc). */
static int syrk(const hyt_devctx_t *dc, const hyt_chol_dev_t *D, int pc, int kb, int r, int m)
{
    if (D->uplo == 'U')
        return hyt_gpu_dsyrk(dc, 'U', 'T', m, kb, -1.0, AT(D, pc, r), D->ld, 1.0, AT(D, r, r),
                             D->ld);
    return hyt_gpu_dsyrk(dc, 'L', 'N', m, kb, -1.0, AT(D, r, pc), D->ld, 1.0, AT(D, r, r),
                         D->ld);
}

/* The view's C (m x w at view (r, c)) -= P Q^T, P m x kb at view (r, pc), Q w x kb at view
 * (c, pc); mode: hyt_gpu_dgemm_batched's. */
static int gemm(const hyt_devctx_t *dc, const hyt_chol_dev_t *D, int pc, int kb, int r, int c,
                int m, int w, int mode)
{
    if (D->uplo == 'U') /* C^T (w x m at A(c, r)) -= Q^T P with Q^T at A(pc, c), P^T at A(pc, r) */
        return hyt_gpu_dgemm_batched(dc, 'T', 'N', w, m, kb, -1.0, AT(D, pc, c), D->ld, 0,
                                     AT(D, pc, r), D->ld, 0, 1.0, AT(D, c, r), D->ld, 0, 1,
                                     mode);
    return hyt_gpu_dgemm_batched(dc, 'N', 'T', m, w, kb, -1.0, AT(D, r, pc), D->ld, 0,
                                 AT(D, c, pc), D->ld, 0, 1.0, AT(D, r, c), D->ld, 0, 1, mode);
}

static int panel_body(const hyt_devctx_t *dc, void *p)
{
    const chol_args_t *a = p;
    const hyt_chol_dev_t *D = &a->D;
    const int c = a->k * D->nb, kb = blk(D, a->k), below = D->n - c - kb;
    const int pieces = hyt_chol_pieces(D->nb);
    int rc = 0;
    /* the diagonal block, a piece at a time; the pieces after a failure still run (on
     * garbage), as the steps do: each writes its own INFO, the empty ones of a short last
     * block too (an empty potf2 writes 0) */
    for (int q = 0, p0 = 0; q < pieces && !rc; q++, p0 += HYT_CHOL_DEV_PIECE) {
        const int left = kb > p0 ? kb - p0 : 0;
        const int w = left < HYT_CHOL_DEV_PIECE ? left : HYT_CHOL_DEV_PIECE, rest = left - w;
        rc = hyt_gpu_dpotf2(dc, D->uplo, w, VIEW(D, c + p0, c + p0), D->ld,
                            D->dinfo + (int64_t)a->k * pieces + q);
        if (!rc)
            rc = trsm(dc, D, rest, w, c + p0 + w, c + p0);
        if (!rc && rest > 0)
            rc = syrk(dc, D, c + p0, w, c + p0 + w, rest);
    }
    if (!rc)
        rc = hyt_chol_trsm(dc, D->uplo, below, kb, AT(D, c, c), D->ld, VIEW(D, c + kb, c), D->ld,
                           D->inv_rows, D->work, D->lwork);
    return forward(dc, rc);
}

/* The view's C(r:r+m, r:r+m) -= L(r:r+m) L(r:r+m)^T on its lower triangle, L the panel's rows
 * (kb wide, at view column pc).  Its GEMMs through cublasLt with D->gemm_lt (chol.gemm_lt). */
static int rsyrk(const hyt_devctx_t *dc, const hyt_chol_dev_t *D, int pc, int kb, int r, int m)
{
    if (m <= D->leaf || m <= 2 * ALIGN)
        return syrk(dc, D, pc, kb, r, m);
    const int h = (m / 2 + ALIGN - 1) / ALIGN * ALIGN; /* 0 < h < m as m > 2 ALIGN */
    int rc = rsyrk(dc, D, pc, kb, r, h);
    if (!rc)
        rc = gemm(dc, D, pc, kb, r + h, r, m - h, h,
                  D->gemm_lt ? HYT_GEMM_LT : HYT_GEMM_PER_CALL);
    return rc ? rc : rsyrk(dc, D, pc, kb, r + h, m - h);
}

static int update_body(const hyt_devctx_t *dc, void *p)
{
    const chol_args_t *a = p;
    const hyt_chol_dev_t *D = &a->D;
    const int pc = a->k * D->nb, kb = (a->k1 - a->k) * D->nb + blk(D, a->k1);
    const int c0 = a->j0 * D->nb, c1 = a->j1 * D->nb < D->n ? a->j1 * D->nb : D->n;
    int rc = rsyrk(dc, D, pc, kb, c0, c1 - c0);
    if (!rc && c1 < D->n)
        rc = gemm(dc, D, pc, kb, c1, c0, D->n - c1, c1 - c0, HYT_GEMM_PER_CALL);
    return forward(dc, rc);
}

static int tail_body(const hyt_devctx_t *dc, void *p)
{
    const chol_args_t *a = p;
    const hyt_chol_dev_t *D = &a->D;
    const int c = D->tail_k * D->nb;
    const int pieces = hyt_chol_pieces(D->nb);
    return forward(dc, hyt_gpu_dpotrf(dc, D->uplo, D->n - c, AT(D, c, c), D->ld,
                                      D->dinfo + (int64_t)D->tail_k * pieces));
}

static int info_body(const hyt_devctx_t *dc, void *p)
{
    const chol_args_t *a = p;
    return forward(dc, hyt_dev_memcpy_d2h(dc, a->h_info, a->D.dinfo,
                                          hyt_chol_dev_ninfo(&a->D) * sizeof(int)));
}

static const hyt_kernel_t panel_kernel = {.name = "gpu_chol_panel", .dev = panel_body,
                                          .cat = HYT_CAT_PANEL};
static const hyt_kernel_t update_kernel = {.name = "gpu_chol_update", .dev = update_body,
                                           .cat = HYT_CAT_GPU};
static const hyt_kernel_t tail_kernel = {.name = "gpu_chol_tail", .dev = tail_body,
                                         .cat = HYT_CAT_PANEL};
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
    chol_args_t a = {*D, k, 0, 0, k, NULL};
    return insert(seq, &panel_kernel, tag, &a, stream, deps, ndeps);
}

int hyt_insert_gpu_chol_update(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_dev_t *D,
                               int k0, int k1, int j0, int j1, int stream, const hyt_dep_t *deps,
                               int ndeps)
{
    chol_args_t a = {*D, k0, j0, j1, k1, NULL};
    return insert(seq, &update_kernel, tag, &a, stream, deps, ndeps);
}

int hyt_insert_gpu_chol_info(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_dev_t *D,
                             int *h_info, int stream, const hyt_dep_t *deps, int ndeps)
{
    chol_args_t a = {*D, 0, 0, 0, 0, h_info};
    return insert(seq, &info_kernel, tag, &a, stream, deps, ndeps);
}

int hyt_insert_gpu_chol_tail(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_dev_t *D,
                             int stream, const hyt_dep_t *deps, int ndeps)
{
    chol_args_t a = {*D, D->tail_k, 0, 0, D->tail_k, NULL};
    return insert(seq, &tail_kernel, tag, &a, stream, deps, ndeps);
}
