/*
 * Triangular solve on a device (the solve of device matrices, drivers/lu/pdgetrs_dmat.c):
 * B = alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 (side 'R'), column-major, BLAS's
 * arguments.  Dispatched like gpu_kernels.c: arguments checked once for both backends, then
 * cblas_dtrsm on host devices (after one fault-injection point) or cublasDtrsm on the task's
 * stream (compute, panel or lookahead: the streams with a cuBLAS handle).
 */
#include "hyt_gpu_kernels.h"

#include <cblas.h>

#if HYT_HAVE_CUDA
#include "hyt_cuda_check.h"
#endif

static int is_in(char c, const char *set)
{
    for (; *set; set++)
        if (c == *set)
            return 1;
    return 0;
}

int hyt_gpu_dtrsm(const hyt_devctx_t *dc, char side, char uplo, char trans, char diag, int m,
                  int n, double alpha, const double *A, int lda, double *B, int ldb)
{
    static const char fn[] = "hyt_gpu_dtrsm";
    if (!dc || !dc->dev)
        return hyt_error(HYT_ERR_INVALID, "%s: no device context (call it from a device task "
                         "body)", fn);
    if (!is_in(side, "LlRr") || !is_in(uplo, "LlUu") || !is_in(trans, "NnTtCc") ||
        !is_in(diag, "NnUu"))
        return hyt_error(HYT_ERR_INVALID, "%s: side '%c', uplo '%c', trans '%c', diag '%c'", fn,
                         side, uplo, trans, diag);
    const int left = is_in(side, "Ll"), na = left ? m : n;
    if (m < 0 || n < 0 || lda < (na > 1 ? na : 1) || ldb < (m > 1 ? m : 1))
        return hyt_error(HYT_ERR_INVALID, "%s: m = %d, n = %d, lda = %d, ldb = %d", fn, m, n,
                         lda, ldb);
    if (m == 0 || n == 0)
        return HYT_SUCCESS;
    if (!A || !B)
        return hyt_error(HYT_ERR_INVALID, "%s: %s is NULL", fn, !A ? "A" : "B");
    const int lower = is_in(uplo, "Ll"), notrans = is_in(trans, "Nn"), unit = is_in(diag, "Uu");
    if (hyt_device_backend(dc->dev) == HYT_BACKEND_HOST) {
        if (hyt_device_fault_point(dc->dev))
            return hyt_error(HYT_ERR_DEVICE, "%s on %s failed: injected fault "
                             "(debug.fault_device)", fn, hyt_device_name(dc->dev));
        cblas_dtrsm(CblasColMajor, left ? CblasLeft : CblasRight, lower ? CblasLower : CblasUpper,
                    notrans ? CblasNoTrans : CblasTrans, unit ? CblasUnit : CblasNonUnit, m, n,
                    alpha, A, lda, B, ldb);
        return HYT_SUCCESS;
    }
#if HYT_HAVE_CUDA
    if (!dc->cublas)
        return hyt_error(HYT_ERR_INVALID, "%s: %s: no cuBLAS handle on stream %d (cuBLAS runs "
                         "only in tasks on the compute, panel and lookahead streams)", fn,
                         hyt_device_name(dc->dev), dc->stream);
    HYT_CUBLAS_TRY(dc->dev, cublasDtrsm((cublasHandle_t)dc->cublas,
                                        left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT,
                                        lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER,
                                        notrans ? CUBLAS_OP_N : CUBLAS_OP_T,
                                        unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n,
                                        &alpha, A, lda, B, ldb));
    return HYT_SUCCESS;
#else
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "%s: device %s is not a host device and hytile was "
                     "built without CUDA", fn, hyt_device_name(dc->dev));
#endif
}
