/*
 * Dispatchers of the device kernels, called from device task bodies: they check the arguments
 * once for both backends, then run the host reference (host backend: at once, on host memory,
 * after one fault-injection point so that debug.fault_device reaches host devices too) or the
 * CUDA version (asynchronous on the task's stream; cuBLAS on the compute stream only).
 *
 * Calls with no work (no tiles, no columns, no interchanges, an empty C) return 0 before any
 * device call, on both backends alike.
 */
#include "hyt_core_seq.h" /* hyt_gpu_dpotrf on host devices */
#include "hyt_gpu_hpl.h"
#include "hyt_gpu_kernels.h"

#include <cblas.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "hyt_gpu_geometry.h"

#if HYT_HAVE_CUDA
#include "hyt_cuda_check.h"
#endif

static int check_dc(const hyt_devctx_t *dc, const char *fn)
{
    if (!dc || !dc->dev)
        return hyt_error(HYT_ERR_INVALID, "%s: no device context (call it from a device task "
                         "body)", fn);
    return HYT_SUCCESS;
}

/* Host backend: the one device "call" of a kernel, for fault injection. */
static int host_fault(const hyt_devctx_t *dc, const char *fn)
{
    if (hyt_device_fault_point(dc->dev))
        return hyt_error(HYT_ERR_DEVICE, "%s on %s failed: injected fault (debug.fault_device)",
                         fn, hyt_device_name(dc->dev));
    return HYT_SUCCESS;
}

#if !HYT_HAVE_CUDA
static int no_cuda(const hyt_devctx_t *dc, const char *fn)
{
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "%s: device %s is not a host device and hytile was "
                     "built without CUDA", fn, hyt_device_name(dc->dev));
}
#endif

/* debug.races: rows [lo, hi) of ncols CRRB columns (a row is nb contiguous doubles),
 * colstride doubles apart */
static void note_rows(const double *col0, int64_t colstride, int ncols, int nb, int64_t lo,
                      int64_t hi, int write, const char *what)
{
    if (hi > lo)
        hyt_races_note(col0 + lo * nb, (size_t)colstride * sizeof(double),
                       (size_t)(hi - lo) * nb * sizeof(double), (size_t)ncols, write, what);
}

int hyt_gpu_transpose_tiles(const hyt_devctx_t *dc, double *tiles, int nb, int64_t ntiles)
{
    return hyt_gpu_transpose_tiles_strided(dc, tiles, nb, ntiles, (int64_t)nb * nb);
}

int hyt_gpu_transpose_tiles_strided(const hyt_devctx_t *dc, double *tiles, int nb,
                                    int64_t ntiles, int64_t stride)
{
    static const char fn[] = "hyt_gpu_transpose_tiles";
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (nb < 1)
        return hyt_error(HYT_ERR_INVALID, "%s: nb = %d (must be >= 1)", fn, nb);
    if (ntiles < 0)
        return hyt_error(HYT_ERR_INVALID, "%s: ntiles = %lld (must be >= 0)", fn,
                         (long long)ntiles);
    if (ntiles > INT64_MAX / ((int64_t)nb * nb))
        return hyt_error(HYT_ERR_TOO_LARGE, "%s: %lld tiles of %d x %d do not fit in 64-bit "
                         "offsets", fn, (long long)ntiles, nb, nb);
    if (ntiles > 0 && !tiles)
        return hyt_error(HYT_ERR_INVALID, "%s: tiles is NULL", fn);
    if (stride < (int64_t)nb * nb || (ntiles > 1 && stride > INT64_MAX / ntiles))
        return hyt_error(HYT_ERR_INVALID, "%s: stride %lld for tiles of %d x %d", fn,
                         (long long)stride, nb, nb);
    if (ntiles == 0 || nb == 1)
        return HYT_SUCCESS;
    hyt_races_note(tiles, (size_t)stride * sizeof(double), (size_t)nb * nb * sizeof(double),
                   (size_t)ntiles, 1, "tiles");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        hyt_ref_transpose_tiles_strided(tiles, nb, ntiles, stride);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_transpose_tiles_strided(dc->dev, dc->cuda_stream, tiles, nb, ntiles, stride);
#else
    return no_cuda(dc, fn);
#endif
}

int hyt_gpu_dlaswp_crrb(const hyt_devctx_t *dc, double *col0, int64_t colstride, int ncols,
                        int nb, int r1, int npiv, const int *ipiv)
{
    static const char fn[] = "hyt_gpu_dlaswp_crrb";
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (nb < 1)
        return hyt_error(HYT_ERR_INVALID, "%s: nb = %d (must be >= 1)", fn, nb);
    if (ncols < 0 || npiv < 0 || r1 < 0)
        return hyt_error(HYT_ERR_INVALID, "%s: ncols = %d, npiv = %d, r1 = %d (must be >= 0)",
                         fn, ncols, npiv, r1);
    if (npiv > INT32_MAX - r1)
        return hyt_error(HYT_ERR_INVALID, "%s: rows r1 + npiv = %d + %d overflow an int", fn, r1,
                         npiv);
    if (ncols == 0 || npiv == 0)
        return HYT_SUCCESS;
    if (!col0 || !ipiv)
        return hyt_error(HYT_ERR_INVALID, "%s: %s is NULL", fn, col0 ? "ipiv" : "col0");
    /* Every column holds at least rows 0..r1+npiv-1: columns closer than that overlap, and the
     * CUDA kernel's threads of different columns would race. */
    if (ncols > 1 && colstride < ((int64_t)r1 + npiv) * nb)
        return hyt_error(HYT_ERR_INVALID, "%s: colstride = %lld is less than the %lld doubles of "
                         "rows 0..%d of a column (columns would overlap)", fn,
                         (long long)colstride, ((long long)r1 + npiv) * nb, r1 + npiv - 1);
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        /* ipiv is host memory here: check it (the CUDA kernel can only ignore pivots < 1) */
        int64_t hi = (int64_t)r1 + npiv;
        for (int q = 0; q < npiv; q++) {
            if (ipiv[q] < 1)
                return hyt_error(HYT_ERR_INVALID, "%s: ipiv[%d] = %d (1-based rows, must be "
                                 ">= 1)", fn, q, ipiv[q]);
            hi = ipiv[q] > hi ? ipiv[q] : hi;
        }
        note_rows(col0, colstride, ncols, nb, r1, hi, 1, "the columns' rows");
        hyt_races_note(ipiv, 0, (size_t)npiv * sizeof *ipiv, 1, 0, "ipiv");
        if ((rc = host_fault(dc, fn)))
            return rc;
        hyt_ref_dlaswp_crrb(col0, colstride, ncols, nb, r1, npiv, ipiv);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_dlaswp_crrb(dc->dev, dc->cuda_stream, col0, colstride, ncols, nb, r1, npiv,
                                ipiv);
#else
    return no_cuda(dc, fn);
#endif
}

size_t hyt_gpu_dgetrf_crrb_work(hyt_device_t *dev, int m, int n)
{
    if (hyt_device_backend(dev) == HYT_BACKEND_HOST)
        return (size_t)(m > 0 ? m : 0) * (size_t)(n > 0 ? n : 0) * sizeof(double);
    return hyt_panel_leaf_ws_bytes(m);
}

int hyt_gpu_dgetrf_crrb(const hyt_devctx_t *dc, double *A, int m, int n, int nb, int *ipiv,
                        int *info, void *work, int nctas)
{
    static const char fn[] = "hyt_gpu_dgetrf_crrb";
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (m < 0 || n < 0 || nb < n || nb < 1)
        return hyt_error(HYT_ERR_INVALID, "%s: m = %d, n = %d, nb = %d (need m, n >= 0, nb >= "
                         "max(n, 1))", fn, m, n, nb);
    if (!info || (m > 0 && n > 0 && (!A || !ipiv || !work)))
        return hyt_error(HYT_ERR_INVALID, "%s: a NULL pointer", fn);
    if (m > 0 && n > 0) {
        hyt_races_note(A, 0, (size_t)m * nb * sizeof *A, 1, 1, "the panel");
        hyt_races_note(ipiv, 0, (size_t)(m < n ? m : n) * sizeof *ipiv, 1, 1, "ipiv");
        hyt_races_note(work, 0, hyt_gpu_dgetrf_crrb_work(dc->dev, m, n), 1, 1, "work");
    }
    hyt_races_note(info, 0, sizeof *info, 1, 1, "info");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        *info = m > 0 && n > 0 ? hyt_ref_dgetrf_crrb(A, m, n, nb, ipiv, work) : 0;
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    if (!dc->cublas)
        return hyt_error(HYT_ERR_INVALID, "%s: %s: no cuBLAS handle on stream %d (the panel runs "
                         "on the compute, panel or lookahead stream)", fn, hyt_device_name(dc->dev),
                         dc->stream);
    return hyt_cuda_dgetrf_crrb(dc->dev, dc->cuda_stream, dc->cublas, A, m, n, nb, ipiv, info,
                                work, nctas);
#else
    (void)nctas;
    return no_cuda(dc, fn);
#endif
}

static int trans_ok(char t) { return t == 'N' || t == 'n' || t == 'T' || t == 't'; }
static int is_notrans(char t) { return t == 'N' || t == 'n'; }
static int max1(int x) { return x > 1 ? x : 1; }

int hyt_gpu_dlaswp_plan(const hyt_devctx_t *dc, int r1, int npiv, const int *ipiv, int *plan)
{
    static const char fn[] = "hyt_gpu_dlaswp_plan";
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (r1 < 0 || npiv < 0 || npiv > HYT_LASWP_PLAN_MAX || npiv > INT32_MAX - r1)
        return hyt_error(HYT_ERR_INVALID, "%s: r1 = %d, npiv = %d (0 <= npiv <= %d)", fn, r1,
                         npiv, HYT_LASWP_PLAN_MAX);
    if (npiv == 0)
        return HYT_SUCCESS;
    if (!ipiv || !plan)
        return hyt_error(HYT_ERR_INVALID, "%s: %s is NULL", fn, ipiv ? "plan" : "ipiv");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        for (int q = 0; q < npiv; q++)
            if (ipiv[q] - 1 < r1 + q)
                return hyt_error(HYT_ERR_INVALID, "%s: ipiv[%d] = %d (LAPACK's pivots: at least "
                                 "the row itself, %d)", fn, q, ipiv[q], r1 + q + 1);
        hyt_races_note(ipiv, 0, (size_t)npiv * sizeof *ipiv, 1, 0, "ipiv");
        hyt_races_note(plan, 0, 3 * (size_t)npiv * sizeof *plan, 1, 1, "the plan");
        if ((rc = host_fault(dc, fn)))
            return rc;
        hyt_ref_dlaswp_plan(r1, npiv, ipiv, plan);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_dlaswp_plan(dc->dev, dc->cuda_stream, r1, npiv, ipiv, plan);
#else
    return no_cuda(dc, fn);
#endif
}

/* The arguments of the gather and the scatter. */
static int move_args(const char *fn, const void *col0, int64_t colstride, int ncols, int nb,
                     int npiv, const int *plan)
{
    if (nb < 1 || ncols < 0 || npiv < 0 || npiv > HYT_LASWP_PLAN_MAX)
        return hyt_error(HYT_ERR_INVALID, "%s: nb = %d, ncols = %d, npiv = %d", fn, nb, ncols,
                         npiv);
    if (ncols > 1 && colstride < (int64_t)npiv * nb)
        return hyt_error(HYT_ERR_INVALID, "%s: colstride = %lld (columns would overlap)", fn,
                         (long long)colstride);
    if (ncols > 0 && npiv > 0 && (!col0 || !plan))
        return hyt_error(HYT_ERR_INVALID, "%s: %s is NULL", fn, col0 ? "plan" : "col0");
    return HYT_SUCCESS;
}

int hyt_gpu_dlaswp_gather(const hyt_devctx_t *dc, const double *col0, int64_t colstride,
                          int ncols, int nb, int npiv, const int *plan, double *top,
                          int64_t topstride)
{
    static const char fn[] = "hyt_gpu_dlaswp_gather";
    int rc = check_dc(dc, fn);
    if (!rc)
        rc = move_args(fn, col0, colstride, ncols, nb, npiv, plan);
    if (rc)
        return rc;
    if (ncols == 0 || npiv == 0)
        return HYT_SUCCESS;
    if (!top || (ncols > 1 && topstride < (int64_t)npiv * nb))
        return hyt_error(HYT_ERR_INVALID, "%s: top %p, topstride %lld", fn, (void *)top,
                         (long long)topstride);
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        /* the plan is host memory here: the rows it reads */
        int64_t lo = INT64_MAX, hi = 0;
        for (int q = 0; q < npiv; q++) {
            lo = plan[q] < lo ? plan[q] : lo;
            hi = plan[q] + 1 > hi ? plan[q] + 1 : hi;
        }
        note_rows(col0, colstride, ncols, nb, lo, hi, 0, "the rows moved");
        hyt_races_note(plan, 0, (size_t)npiv * sizeof *plan, 1, 0, "the plan");
        hyt_races_note(top, (size_t)topstride * sizeof *top,
                       (size_t)npiv * nb * sizeof *top, (size_t)ncols, 1, "the rows' copy");
        if ((rc = host_fault(dc, fn)))
            return rc;
        hyt_ref_dlaswp_gather(col0, colstride, ncols, nb, npiv, plan, top, topstride);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_dlaswp_gather(dc->dev, dc->cuda_stream, col0, colstride, ncols, nb, npiv,
                                  plan, top, topstride);
#else
    return no_cuda(dc, fn);
#endif
}

int hyt_gpu_dlaswp_scatter(const hyt_devctx_t *dc, double *col0, int64_t colstride, int ncols,
                           int nb, int npiv, const int *plan)
{
    static const char fn[] = "hyt_gpu_dlaswp_scatter";
    int rc = check_dc(dc, fn);
    if (!rc)
        rc = move_args(fn, col0, colstride, ncols, nb, npiv, plan);
    if (rc)
        return rc;
    if (ncols == 0 || npiv == 0)
        return HYT_SUCCESS;
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        /* the rows it moves, sources and destinations */
        int64_t lo = INT64_MAX, hi = 0;
        for (int q = 0; q < npiv; q++)
            if (plan[npiv + q] >= 0)
                for (int s = 1; s <= 2; s++) {
                    const int64_t r = plan[s * npiv + q];
                    lo = r < lo ? r : lo;
                    hi = r + 1 > hi ? r + 1 : hi;
                }
        note_rows(col0, colstride, ncols, nb, lo, hi, 1, "the rows moved");
        hyt_races_note(plan, 0, 3 * (size_t)npiv * sizeof *plan, 1, 0, "the plan");
        if ((rc = host_fault(dc, fn)))
            return rc;
        hyt_ref_dlaswp_scatter(col0, colstride, ncols, nb, npiv, plan);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_dlaswp_scatter(dc->dev, dc->cuda_stream, col0, colstride, ncols, nb, npiv,
                                   plan);
#else
    return no_cuda(dc, fn);
#endif
}

int hyt_gpu_dlaswp_apply(const hyt_devctx_t *dc, double *col0, int64_t colstride, int ncols,
                         int nb, int r1, int npiv, const int *plan, double *top,
                         int64_t topstride)
{
    int rc = hyt_gpu_dlaswp_gather(dc, col0, colstride, ncols, nb, npiv, plan, top, topstride);
    if (!rc)
        rc = hyt_gpu_dlaswp_scatter(dc, col0, colstride, ncols, nb, npiv, plan);
    if (!rc)
        rc = hyt_dev_memcpy2d(dc, col0 + (int64_t)r1 * nb, (size_t)colstride * sizeof(double),
                              top, (size_t)topstride * sizeof(double),
                              (size_t)npiv * nb * sizeof(double), (size_t)ncols, 2);
    return rc;
}

int hyt_gpu_dgemm_batched(const hyt_devctx_t *dc, char transa, char transb, int m, int n, int k,
                          double alpha, const double *A, int lda, int64_t strideA,
                          const double *B, int ldb, int64_t strideB, double beta, double *C,
                          int ldc, int64_t strideC, int batch, int mode)
{
    static const char fn[] = "hyt_gpu_dgemm_batched";
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (!trans_ok(transa) || !trans_ok(transb))
        return hyt_error(HYT_ERR_INVALID, "%s: transa = '%c', transb = '%c' (must be 'N' or "
                         "'T')", fn, transa, transb);
    if (mode < HYT_GEMM_STRIDED || mode > HYT_GEMM_LT)
        return hyt_error(HYT_ERR_INVALID, "%s: mode = %d (must be HYT_GEMM_STRIDED, "
                         "HYT_GEMM_PER_CALL or HYT_GEMM_LT)", fn, mode);
    if (m < 0 || n < 0 || k < 0 || batch < 0)
        return hyt_error(HYT_ERR_INVALID, "%s: m = %d, n = %d, k = %d, batch = %d (must be >= "
                         "0)", fn, m, n, k, batch);
    int rowsA = is_notrans(transa) ? m : k, rowsB = is_notrans(transb) ? k : n;
    if (lda < max1(rowsA) || ldb < max1(rowsB) || ldc < max1(m))
        return hyt_error(HYT_ERR_INVALID, "%s: lda = %d, ldb = %d, ldc = %d (need at least %d, "
                         "%d, %d)", fn, lda, ldb, ldc, max1(rowsA), max1(rowsB), max1(m));
    if (strideA < 0 || strideB < 0 || strideC < 0)
        return hyt_error(HYT_ERR_INVALID, "%s: strides %lld, %lld, %lld (must be >= 0)", fn,
                         (long long)strideA, (long long)strideB, (long long)strideC);
    if (m == 0 || n == 0 || batch == 0)
        return HYT_SUCCESS;
    if (!C || (k > 0 && (!A || !B)))
        return hyt_error(HYT_ERR_INVALID, "%s: %s is NULL", fn, !C ? "C" : !A ? "A" : "B");
    for (int b = 0; b < batch; b++) /* A and B may be NULL when k = 0 */
        hyt_races_gemm(transa, transb, m, n, k, k ? A + b * strideA : A, lda,
                       k ? B + b * strideB : B, ldb, C + b * strideC, ldc);
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        hyt_ref_dgemm_batched(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
                              beta, C, ldc, strideC, batch);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    if (!dc->cublas)
        return hyt_error(HYT_ERR_INVALID, "%s: %s: no cuBLAS handle on stream %d (cuBLAS runs "
                         "only in tasks on the compute, panel and lookahead streams)", fn,
                         hyt_device_name(dc->dev), dc->stream);
    /* The handle is the device's, bound to the compute stream, in host pointer mode (cuBLAS's
     * default, never changed by hytile): alpha and beta are read from the host at the call. */
    cublasHandle_t h = (cublasHandle_t)dc->cublas;
    cublasOperation_t opa = is_notrans(transa) ? CUBLAS_OP_N : CUBLAS_OP_T;
    cublasOperation_t opb = is_notrans(transb) ? CUBLAS_OP_N : CUBLAS_OP_T;
    if (mode == HYT_GEMM_STRIDED) {
        HYT_CUBLAS_TRY(dc->dev, cublasDgemmStridedBatched(h, opa, opb, m, n, k, &alpha, A, lda,
                                                          strideA, B, ldb, strideB, &beta, C,
                                                          ldc, strideC, batch));
        return HYT_SUCCESS;
    }
    for (int b = 0; b < batch; b++) {
        const double *Ab = k ? A + b * strideA : A, *Bb = k ? B + b * strideB : B;
        int done = 0;
        if (mode == HYT_GEMM_LT &&
            (rc = hyt_cuda_dgemm_lt(dc->dev, dc->cuda_stream, transa, transb, m, n, k, alpha, Ab,
                                    lda, Bb, ldb, beta, C + b * strideC, ldc, &done)))
            return rc;
        if (done)
            continue;
        HYT_CUBLAS_TRY(dc->dev, cublasDgemm(h, opa, opb, m, n, k, &alpha, Ab, lda, Bb, ldb,
                                            &beta, C + b * strideC, ldc));
    }
    return HYT_SUCCESS;
#else
    return no_cuda(dc, fn);
#endif
}

/* ---- HPL's matrix on the devices ------------------------------------------------------------ */

/* The device context and the distribution of HPL's matrix seen from device `index`, checked. */
static int hpl_dist(const hyt_devctx_t *dc, const char *fn, int n, int nb, int ndev, int index,
                    int seed, hyt_hpl_dist_t *D)
{
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (n < 0 || nb < 1 || ndev < 1 || index < 0 || index >= ndev)
        return hyt_error(HYT_ERR_INVALID, "%s: n = %d, nb = %d, ndev = %d, index = %d (need "
                         "n >= 0, nb >= 1, 0 <= index < ndev)", fn, n, nb, ndev, index);
    if (hyt_hpl_dist_init(n, nb, ndev, index, seed, D))
        return hyt_error(HYT_ERR_TOO_LARGE, "%s: the columns of n = %d in tiles of %d do not fit "
                         "in 64-bit offsets", fn, n, nb);
    return HYT_SUCCESS;
}

int hyt_gpu_dplghpl(const hyt_devctx_t *dc, double *cols, int n, int nb, int ndev, int index,
                    int seed, double *b)
{
    static const char fn[] = "hyt_gpu_dplghpl";
    hyt_hpl_dist_t D;
    int rc = hpl_dist(dc, fn, n, nb, ndev, index, seed, &D);
    if (rc || n == 0)
        return rc;
    if (D.ncols > 0 && !cols)
        return hyt_error(HYT_ERR_INVALID, "%s: cols is NULL (device %d of %d holds %d columns)",
                         fn, index, ndev, D.ncols);
    if (D.ncols == 0 && !b)
        return HYT_SUCCESS;
    hyt_races_note(cols, 0, (size_t)(D.ncols * D.colsz) * sizeof *cols, 1, 1, "the columns");
    hyt_races_note(b, 0, (size_t)n * sizeof *b, 1, 1, "b");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        hyt_ref_dplghpl_crrb(cols, n, nb, ndev, index, seed, b);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_dplghpl(dc->dev, dc->cuda_stream, &D, cols, b);
#else
    return no_cuda(dc, fn);
#endif
}

int hyt_gpu_hpl_matvec(const hyt_devctx_t *dc, int n, int nb, int ndev, int index, int seed,
                       const double *x, double *ax, double *arow)
{
    static const char fn[] = "hyt_gpu_hpl_matvec";
    hyt_hpl_dist_t D;
    int rc = hpl_dist(dc, fn, n, nb, ndev, index, seed, &D);
    if (rc || n == 0)
        return rc;
    if (!x || !ax || !arow)
        return hyt_error(HYT_ERR_INVALID, "%s: %s is NULL", fn, !x ? "x" : !ax ? "ax" : "arow");
    hyt_races_note(x, 0, (size_t)n * sizeof *x, 1, 0, "x");
    hyt_races_note(ax, 0, (size_t)n * sizeof *ax, 1, 1, "ax");
    hyt_races_note(arow, 0, (size_t)n * sizeof *arow, 1, 1, "arow");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        return hyt_ref_hpl_matvec(n, nb, ndev, index, seed, x, ax, arow);
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_hpl_matvec(dc->dev, dc->cuda_stream, &D, x, ax, arow);
#else
    return no_cuda(dc, fn);
#endif
}

int hyt_gpu_hpl_norms(const hyt_devctx_t *dc, int n, int nparts, const double *ax,
                      const double *arow, const double *x, const double *b, double *norms)
{
    static const char fn[] = "hyt_gpu_hpl_norms";
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (n < 0 || nparts < 1)
        return hyt_error(HYT_ERR_INVALID, "%s: n = %d, nparts = %d (need n >= 0, nparts >= 1)",
                         fn, n, nparts);
    if (n == 0)
        return HYT_SUCCESS;
    if (!ax || !arow || !x || !b || !norms)
        return hyt_error(HYT_ERR_INVALID, "%s: %s is NULL", fn,
                         !ax ? "ax" : !arow ? "arow" : !x ? "x" : !b ? "b" : "norms");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        hyt_ref_hpl_norms(n, nparts, ax, arow, x, b, norms);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_hpl_norms(dc->dev, dc->cuda_stream, n, nparts, ax, arow, x, b, norms);
#else
    return no_cuda(dc, fn);
#endif
}

/* ---- the Cholesky's kernels ------------------------------------------------------------------ */

static int uplo_ok(char u) { return u == 'L' || u == 'l' || u == 'U' || u == 'u'; }
static int is_lower(char u) { return u == 'L' || u == 'l'; }

#if HYT_HAVE_CUDA
static int need_cublas(const hyt_devctx_t *dc, const char *fn)
{
    if (!dc->cublas)
        return hyt_error(HYT_ERR_INVALID, "%s: %s: no cuBLAS handle on stream %d (cuBLAS runs "
                         "only in tasks on the compute, panel and lookahead streams)", fn,
                         hyt_device_name(dc->dev), dc->stream);
    return HYT_SUCCESS;
}
#endif

/* The arguments of a Cholesky of an n x n block (n <= maxn), as hyt_gpu_dpotf2 and
 * hyt_gpu_dpotrf take them: 0 or HYT_ERR_INVALID with the message. */
static int check_chol_block(const hyt_devctx_t *dc, const char *fn, char uplo, int n, int maxn,
                            const double *A, int lda, const int *info)
{
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (!uplo_ok(uplo))
        return hyt_error(HYT_ERR_INVALID, "%s: uplo '%c' (must be 'L' or 'U')", fn, uplo);
    if (n < 0 || n > maxn || lda < max1(n))
        return hyt_error(HYT_ERR_INVALID, "%s: n = %d, lda = %d (need 0 <= n <= %d, lda >= "
                         "max(n, 1))", fn, n, lda, maxn);
    if (!info || (n > 0 && !A))
        return hyt_error(HYT_ERR_INVALID, "%s: %s is NULL", fn, !info ? "info" : "A");
    return HYT_SUCCESS;
}

int hyt_gpu_dpotf2(const hyt_devctx_t *dc, char uplo, int n, double *A, int lda, int *info)
{
    static const char fn[] = "hyt_gpu_dpotf2";
    int rc = check_chol_block(dc, fn, uplo, n, HYT_DPOTF2_MAX_N, A, lda, info);
    if (rc)
        return rc;
    hyt_races_tri(uplo, A, lda, n, 1, "dpotf2's A");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        *info = n > 0 ? hyt_ref_dpotf2(is_lower(uplo) ? 'L' : 'U', n, A, lda) : 0;
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    void *work = NULL;
    if ((rc = hyt_cuda_dpotf2_ws(dc->dev, dc->stream, &work)))
        return rc;
    return hyt_cuda_dpotf2(dc->dev, dc->cuda_stream, uplo, n, A, lda, info, work);
#else
    return no_cuda(dc, fn);
#endif
}

int hyt_gpu_dpotrf(const hyt_devctx_t *dc, char uplo, int n, double *A, int lda, int *info)
{
    static const char fn[] = "hyt_gpu_dpotrf";
    int rc = check_chol_block(dc, fn, uplo, n, INT_MAX, A, lda, info);
    if (rc)
        return rc;
    hyt_races_tri(uplo, A, lda, n, 1, "dpotrf's A");
    const char u = is_lower(uplo) ? 'L' : 'U';
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        *info = n > 0 ? hyt_core_dpotrf(u, n, A, lda) : 0;
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_dpotrf(dc->dev, dc->cuda_stream, dc->stream, u, n, A, lda, info);
#else
    return no_cuda(dc, fn);
#endif
}

int hyt_gpu_dtrsm(const hyt_devctx_t *dc, char side, char uplo, char transa, char diag, int m,
                  int n, double alpha, const double *A, int lda, double *B, int ldb)
{
    static const char fn[] = "hyt_gpu_dtrsm";
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    const int left = side == 'L' || side == 'l', unit = diag == 'U' || diag == 'u';
    if (!(left || side == 'R' || side == 'r') || !uplo_ok(uplo) || !trans_ok(transa) ||
        !(unit || diag == 'N' || diag == 'n'))
        return hyt_error(HYT_ERR_INVALID, "%s: side '%c', uplo '%c', transa '%c', diag '%c'", fn,
                         side, uplo, transa, diag);
    const int ka = left ? m : n;
    if (m < 0 || n < 0 || lda < max1(ka) || ldb < max1(m))
        return hyt_error(HYT_ERR_INVALID, "%s: m = %d, n = %d, lda = %d, ldb = %d", fn, m, n,
                         lda, ldb);
    if (m == 0 || n == 0)
        return HYT_SUCCESS;
    if (!A || !B)
        return hyt_error(HYT_ERR_INVALID, "%s: %s is NULL", fn, !A ? "A" : "B");
    hyt_races_trsm(side, uplo, m, n, A, lda, B, ldb);
    const int few = (left ? n : m) <= HYT_TRSM_FEW_RHS && ka <= HYT_TRSM_FEW_MAX_N;
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        if (few) {
            hyt_ref_dtrsm_few(side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb);
            return HYT_SUCCESS;
        }
        cblas_dtrsm(CblasColMajor, left ? CblasLeft : CblasRight,
                    is_lower(uplo) ? CblasLower : CblasUpper,
                    is_notrans(transa) ? CblasNoTrans : CblasTrans,
                    unit ? CblasUnit : CblasNonUnit, m, n, alpha, A, lda, B, ldb);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    if (few)
        return hyt_cuda_dtrsm_few(dc->dev, dc->cuda_stream, side, uplo, transa, diag, m, n,
                                  alpha, A, lda, B, ldb);
    if ((rc = need_cublas(dc, fn)))
        return rc;
    HYT_CUBLAS_TRY(dc->dev, cublasDtrsm((cublasHandle_t)dc->cublas,
                                        left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT,
                                        is_lower(uplo) ? CUBLAS_FILL_MODE_LOWER
                                                       : CUBLAS_FILL_MODE_UPPER,
                                        is_notrans(transa) ? CUBLAS_OP_N : CUBLAS_OP_T,
                                        unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n,
                                        &alpha, A, lda, B, ldb));
    return HYT_SUCCESS;
#else
    return no_cuda(dc, fn);
#endif
}

int hyt_gpu_dsyrk(const hyt_devctx_t *dc, char uplo, char trans, int n, int k, double alpha,
                  const double *A, int lda, double beta, double *C, int ldc)
{
    static const char fn[] = "hyt_gpu_dsyrk";
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (!uplo_ok(uplo) || !trans_ok(trans))
        return hyt_error(HYT_ERR_INVALID, "%s: uplo '%c', trans '%c'", fn, uplo, trans);
    if (n < 0 || k < 0 || lda < max1(is_notrans(trans) ? n : k) || ldc < max1(n))
        return hyt_error(HYT_ERR_INVALID, "%s: n = %d, k = %d, lda = %d, ldc = %d", fn, n, k,
                         lda, ldc);
    if (n == 0)
        return HYT_SUCCESS;
    if (!C || (k > 0 && !A))
        return hyt_error(HYT_ERR_INVALID, "%s: %s is NULL", fn, !C ? "C" : "A");
    if (k > 0)
        hyt_races_block(A, lda, is_notrans(trans) ? n : k, is_notrans(trans) ? k : n, 0,
                        "dsyrk's A");
    hyt_races_tri(uplo, C, ldc, n, 1, "dsyrk's C");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        cblas_dsyrk(CblasColMajor, is_lower(uplo) ? CblasLower : CblasUpper,
                    is_notrans(trans) ? CblasNoTrans : CblasTrans, n, k, alpha, A, lda, beta, C,
                    ldc);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    if ((rc = need_cublas(dc, fn)))
        return rc;
    HYT_CUBLAS_TRY(dc->dev, cublasDsyrk((cublasHandle_t)dc->cublas,
                                        is_lower(uplo) ? CUBLAS_FILL_MODE_LOWER
                                                       : CUBLAS_FILL_MODE_UPPER,
                                        is_notrans(trans) ? CUBLAS_OP_N : CUBLAS_OP_T, n, k,
                                        &alpha, A, lda, &beta, C, ldc));
    return HYT_SUCCESS;
#else
    return no_cuda(dc, fn);
#endif
}

int hyt_gpu_dtrtri_diag(const hyt_devctx_t *dc, char uplo, int n, int bs, const double *T,
                        int ldt, double *W, int ldw)
{
    static const char fn[] = "hyt_gpu_dtrtri_diag";
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (!uplo_ok(uplo) || n < 0 || bs < 1 || bs > HYT_TRTRI_DIAG_BS || ldt < max1(n) ||
        ldw < max1(n))
        return hyt_error(HYT_ERR_INVALID, "%s: uplo '%c', n = %d, bs = %d, ldt = %d, ldw = %d",
                         fn, uplo, n, bs, ldt, ldw);
    if (n == 0)
        return HYT_SUCCESS;
    if (!T || !W)
        return hyt_error(HYT_ERR_INVALID, "%s: a NULL pointer", fn);
    for (int q = 0; q < n; q += bs) { /* the diagonal blocks only */
        const int w = n - q < bs ? n - q : bs;
        hyt_races_trap(is_lower(uplo) ? 'L' : 'U', T + q + (int64_t)q * ldt, ldt, w, w, 0,
                       "dtrtri_diag's T");
        hyt_races_block(W + q + (int64_t)q * ldw, ldw, w, w, 1, "dtrtri_diag's W");
    }
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        hyt_ref_dtrtri_diag(uplo, n, bs, T, ldt, W, ldw);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_dtrtri_diag(dc->dev, dc->cuda_stream, uplo, n, bs, T, ldt, W, ldw);
#else
    return no_cuda(dc, fn);
#endif
}

int hyt_gpu_icopy_to_host(const hyt_devctx_t *dc, int *dst, const int *src, int n)
{
    static const char fn[] = "hyt_gpu_icopy_to_host";
    int rc = check_dc(dc, fn);
    if (rc)
        return rc;
    if (n < 0)
        return hyt_error(HYT_ERR_INVALID, "%s: n = %d", fn, n);
    if (n == 0)
        return HYT_SUCCESS;
    if (!dst || !src)
        return hyt_error(HYT_ERR_INVALID, "%s: a NULL pointer", fn);
    hyt_races_note(src, 0, (size_t)n * sizeof *src, 1, 0, "the source");
    hyt_races_note(dst, 0, (size_t)n * sizeof *dst, 1, 1, "the destination");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if ((rc = host_fault(dc, fn)))
            return rc;
        memcpy(dst, src, (size_t)n * sizeof *dst);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    return hyt_cuda_icopy_to_host(dc->dev, dc->cuda_stream, dst, src, n);
#else
    return no_cuda(dc, fn);
#endif
}
