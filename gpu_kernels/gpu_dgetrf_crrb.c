/*
 * The native GPU panel LU on the row-major (CRRB) panel: recursive over the columns, with the
 * leaves of HYT_PANEL_LEAF_W columns factored by the fused cooperative kernel of
 * gpu_dgetrf_leaf.cu and the levels above by cuBLAS.
 *
 * A row-major m x n matrix with leading dimension nb is the column-major n x m matrix of its
 * transpose, so cuBLAS sees every block transposed: for a node of columns [j0, j0+w) split into
 * n1 + n2,
 *
 *   factor [j0, j0+n1)            leaves; each interchanges whole panel rows (all n columns)
 *   U12 = inv(L11) A12            hytile's row solve (gpu_dtrsm_crrb.cu), or cuBLAS's on the
 *                                 view: A12^T = A12^T inv(L11)^T, TRSM right, upper, unit
 *   A22 -= A21 U12                A22^T -= U12^T A21^T: GEMM (n2 x rows x n1)
 *   factor [j0+n1, j0+w)          its interchanges reach the left columns as well
 *
 * A node of at most 512 rows (and more than one leaf) is factored whole by one launch of the
 * short-panel kernel (gpu_dgetrf_short.cu) instead, where the device runs it.
 *
 * Pivots are 1-based rows of the panel, INFO the first exactly-zero pivot (LAPACK's dgetrf).
 * A panel wider than tall (n > m) gets its extra columns' U by one more TRSM, as dgetrf.
 */
#include "hyt_gpu_kernels.h"

#include "hyt_cuda_check.h"
#include "hyt_gpu_geometry.h"

typedef struct crrb {
    hyt_device_t *dev;
    cublasHandle_t h;
    cudaStream_t st;
    double *A;
    int m, n, nb, nctas;
    int *ipiv, *info;
    double *ws;
} crrb_t;

/* Panel rows [j0, j0+w1) of columns [c0, c0+w2) = inv(L11) times themselves, L11 the unit
 * lower w1 x w1 block at (j0, j0): hytile's kernel up to HYT_TRSM_CRRB_MAX_N (every node of a
 * panel of at most 1024 columns; cuBLAS's DTRSM took 1.3-2.5x as long on these shapes), else
 * cuBLAS's on the column-major view: X (w2 x w1) = X inv(L11^T). */
static int solve_u(const crrb_t *P, int j0, int w1, int c0, int w2)
{
    const double one = 1.0;
    const int64_t nb = P->nb;
    if (w1 <= HYT_TRSM_CRRB_MAX_N)
        return hyt_cuda_dtrsm_crrb(P->dev, P->st, P->A + j0 * nb + j0, P->nb,
                                   P->A + j0 * nb + c0, P->nb, w1, w2);
    HYT_CUBLAS_TRY(P->dev, cublasDtrsm(P->h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER,
                                       CUBLAS_OP_N, CUBLAS_DIAG_UNIT, w2, w1, &one,
                                       P->A + j0 * nb + j0, P->nb, P->A + j0 * nb + c0, P->nb));
    return HYT_SUCCESS;
}

static int rec(const crrb_t *P, int j0, int w)
{
    if (w <= HYT_PANEL_LEAF_W)
        return hyt_cuda_dgetrf_leaf(P->dev, P->st, P->A, P->m, P->n, P->nb, j0, w, P->ipiv,
                                    P->info, P->ws, P->nctas);
    int rc = hyt_cuda_dgetrf_short(P->dev, P->st, P->A, P->m, P->n, P->nb, j0, w, P->ipiv,
                                   P->info, P->ws, P->nctas);
    if (rc <= 0)
        return rc;
    const int n1 = (w / 2 + HYT_PANEL_LEAF_W - 1) / HYT_PANEL_LEAF_W * HYT_PANEL_LEAF_W;
    const int n2 = w - n1, rows = P->m - j0 - n1;
    const int64_t nb = P->nb;
    const double one = 1.0, mone = -1.0;
    rc = rec(P, j0, n1);
    if (!rc)
        rc = solve_u(P, j0, n1, j0 + n1, n2);
    if (rc)
        return rc;
    if (rows > 0)
        HYT_CUBLAS_TRY(P->dev, cublasDgemm(P->h, CUBLAS_OP_N, CUBLAS_OP_N, n2, rows, n1, &mone,
                                           P->A + j0 * nb + j0 + n1, P->nb,
                                           P->A + (j0 + n1) * nb + j0, P->nb, &one,
                                           P->A + (j0 + n1) * nb + j0 + n1, P->nb));
    return rec(P, j0 + n1, n2);
}

int hyt_cuda_dgetrf_crrb(hyt_device_t *dev, void *stream, void *cublas, double *A, int m, int n,
                         int nb, int *ipiv, int *info, void *work, int nctas)
{
    crrb_t P = {dev, (cublasHandle_t)cublas, (cudaStream_t)stream, A, m, n, nb, nctas, ipiv,
                info, work};
    const int dk = m < n ? m : n;
    if (P.nctas <= 0) { /* auto: one CTA per SM the stream may use */
        int rc = hyt_cuda_stream_sms(dev, stream, &P.nctas);
        if (rc)
            return rc;
    }
    if (P.nctas > HYT_PANEL_CTAS_MAX)
        P.nctas = HYT_PANEL_CTAS_MAX;
    HYT_CUDA_TRY(dev, cudaMemsetAsync(info, 0, sizeof(int), P.st));
    int rc = dk > 0 ? rec(&P, 0, dk) : 0;
    if (!rc && n > dk && dk > 0)
        rc = solve_u(&P, 0, dk, dk, n - dk);
    return rc;
}
