/*
 * The vendor peers of the GPU-only Cholesky benchmark (peer_chol.h): cusolverDnDpotrf of either
 * triangle of a device-resident matrix, and the cuBLAS DGEMM rate at a given shape.
 *
 * Every CUDA / cuSOLVER / cuBLAS call is checked (name, file, line, status); once a function
 * holds anything, every path out goes through its one cleanup label.  The DGEMM operands are
 * filled on the host ([-1, 1), a fixed hash of the index) and copied once: zeros would flatter
 * the tensor cores (their power, hence clock, depends on the data).
 */
#include "peer_chol.h"

#include "config.h"
#include "hyt_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if HYT_HAVE_CUDA

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

static int cuda_error(cudaError_t e, const char *call, const char *file, int line)
{
    return hyt_error(HYT_ERR_DEVICE, "%s:%d: %s failed: %s (%s)", file, line, call,
                     cudaGetErrorName(e), cudaGetErrorString(e));
}

static int status_error(int s, const char *lib, const char *call, const char *file, int line)
{
    return hyt_error(HYT_ERR_DEVICE, "%s:%d: %s failed: %s status %d", file, line, call, lib, s);
}

/* Check one call; on failure record the error in rc and jump to the function's cleanup. */
#define PEER_CUDA(call)                                                                        \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            rc = cuda_error(e_, #call, __FILE__, __LINE__);                                    \
            goto cleanup;                                                                      \
        }                                                                                      \
    } while (0)
#define PEER_LIB(call, ok, lib)                                                                \
    do {                                                                                       \
        int s_ = (int)(call);                                                                  \
        if (s_ != (int)(ok)) {                                                                 \
            rc = status_error(s_, lib, #call, __FILE__, __LINE__);                             \
            goto cleanup;                                                                      \
        }                                                                                      \
    } while (0)
/* Inside cleanup: keep the first error, carry on freeing. */
#define PEER_CLEAN(call, ok, lib)                                                              \
    do {                                                                                       \
        int s_ = (int)(call);                                                                  \
        if (s_ != (int)(ok) && rc == 0)                                                        \
            rc = status_error(s_, lib, #call, __FILE__, __LINE__);                             \
    } while (0)

int hyt_peer_dpotrf_uplo(int device, char uplo, int n, double *d_a, int lda, double *seconds,
                         int *info)
{
    int rc = 0, lwork = 0, prev = -1;
    cusolverDnHandle_t handle = NULL;
    double *d_work = NULL;
    int *d_info = NULL;
    const int up = uplo == 'U' || uplo == 'u';
    if (!(up || uplo == 'L' || uplo == 'l') || n < 1 || !d_a || lda < n || !seconds || !info)
        return hyt_error(HYT_ERR_INVALID, "hyt_peer_dpotrf_uplo: invalid arguments (uplo '%c', "
                         "n = %d, lda = %d)", uplo, n, lda);
    const cublasFillMode_t fill = up ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    PEER_CUDA(cudaGetDevice(&prev));
    PEER_CUDA(cudaSetDevice(device));
    PEER_LIB(cusolverDnCreate(&handle), CUSOLVER_STATUS_SUCCESS, "cuSOLVER");
    PEER_LIB(cusolverDnDpotrf_bufferSize(handle, fill, n, d_a, lda, &lwork),
             CUSOLVER_STATUS_SUCCESS, "cuSOLVER");
    PEER_CUDA(cudaMalloc((void **)&d_work, (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));
    PEER_CUDA(cudaMalloc((void **)&d_info, sizeof(int)));
    PEER_CUDA(cudaDeviceSynchronize());
    double t0 = hyt_wtime();
    PEER_LIB(cusolverDnDpotrf(handle, fill, n, d_a, lda, d_work, lwork, d_info),
             CUSOLVER_STATUS_SUCCESS, "cuSOLVER");
    PEER_CUDA(cudaDeviceSynchronize());
    *seconds = hyt_wtime() - t0;
    PEER_CUDA(cudaMemcpy(info, d_info, sizeof(int), cudaMemcpyDeviceToHost));

cleanup:
    if (d_info)
        PEER_CLEAN(cudaFree(d_info), cudaSuccess, "CUDA");
    if (d_work)
        PEER_CLEAN(cudaFree(d_work), cudaSuccess, "CUDA");
    if (handle)
        PEER_CLEAN(cusolverDnDestroy(handle), CUSOLVER_STATUS_SUCCESS, "cuSOLVER");
    if (prev >= 0)
        PEER_CLEAN(cudaSetDevice(prev), cudaSuccess, "CUDA");
    return rc;
}

static double fill_value(uint64_t i)
{
    uint64_t s = (i + 1) * 0x9e3779b97f4a7c15ULL;
    s ^= s >> 31;
    s *= 0xbf58476d1ce4e5b9ULL;
    s ^= s >> 29;
    return (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

int hyt_peer_dgemm_time(int device, char transa, char transb, int m, int n, int k, int reps,
                        double *seconds)
{
    int rc = 0, prev = -1;
    cublasHandle_t handle = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *d_a = NULL, *d_b = NULL, *d_c = NULL, *h = NULL;
    const int ta = transa == 'T' || transa == 't', tb = transb == 'T' || transb == 't';
    if (m < 1 || n < 1 || k < 1 || reps < 1 || !seconds)
        return hyt_error(HYT_ERR_INVALID, "hyt_peer_dgemm_time: m = %d, n = %d, k = %d, reps = "
                         "%d", m, n, k, reps);
    const size_t na = (size_t)m * k, nbb = (size_t)n * k, nc = (size_t)m * n;
    const size_t nh = na > nbb ? na : nbb;
    size_t free_bytes = 0, total_bytes = 0;
    PEER_CUDA(cudaGetDevice(&prev));
    PEER_CUDA(cudaSetDevice(device));
    PEER_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    if ((na + nbb + nc) * sizeof(double) + ((size_t)1 << 30) > free_bytes) {
        rc = hyt_error(HYT_ERR_DEVICE_MEMORY, "hyt_peer_dgemm_time: %d x %d x %d needs %zu "
                       "bytes, %zu are free", m, n, k, (na + nbb + nc) * sizeof(double),
                       free_bytes);
        goto cleanup;
    }
    if (!(h = malloc(nh * sizeof *h))) {
        rc = hyt_error(HYT_ERR_NOMEM, "hyt_peer_dgemm_time: %zu bytes of host memory",
                       nh * sizeof *h);
        goto cleanup;
    }
    for (size_t i = 0; i < nh; i++)
        h[i] = fill_value(i);
    PEER_CUDA(cudaMalloc((void **)&d_a, na * sizeof(double)));
    PEER_CUDA(cudaMalloc((void **)&d_b, nbb * sizeof(double)));
    PEER_CUDA(cudaMalloc((void **)&d_c, nc * sizeof(double)));
    PEER_CUDA(cudaMemcpy(d_a, h, na * sizeof(double), cudaMemcpyHostToDevice));
    PEER_CUDA(cudaMemcpy(d_b, h, nbb * sizeof(double), cudaMemcpyHostToDevice));
    PEER_CUDA(cudaMemset(d_c, 0, nc * sizeof(double)));
    PEER_LIB(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS, "cuBLAS");
    PEER_CUDA(cudaEventCreate(&e0));
    PEER_CUDA(cudaEventCreate(&e1));
    const double alpha = -1.0, beta = 1.0;
    const int lda = ta ? k : m, ldb = tb ? n : k;
    float best = -1;
    for (int r = 0; r <= reps; r++) { /* r = 0: warm-up, not counted */
        float ms = 0;
        PEER_CUDA(cudaEventRecord(e0, 0));
        PEER_LIB(cublasDgemm(handle, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                             m, n, k, &alpha, d_a, lda, d_b, ldb, &beta, d_c, m),
                 CUBLAS_STATUS_SUCCESS, "cuBLAS");
        PEER_CUDA(cudaEventRecord(e1, 0));
        PEER_CUDA(cudaEventSynchronize(e1));
        PEER_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0 && (best < 0 || ms < best))
            best = ms;
    }
    *seconds = best * 1e-3;

cleanup:
    free(h);
    if (e0)
        PEER_CLEAN(cudaEventDestroy(e0), cudaSuccess, "CUDA");
    if (e1)
        PEER_CLEAN(cudaEventDestroy(e1), cudaSuccess, "CUDA");
    if (handle)
        PEER_CLEAN(cublasDestroy(handle), CUBLAS_STATUS_SUCCESS, "cuBLAS");
    if (d_c)
        PEER_CLEAN(cudaFree(d_c), cudaSuccess, "CUDA");
    if (d_b)
        PEER_CLEAN(cudaFree(d_b), cudaSuccess, "CUDA");
    if (d_a)
        PEER_CLEAN(cudaFree(d_a), cudaSuccess, "CUDA");
    if (prev >= 0)
        PEER_CLEAN(cudaSetDevice(prev), cudaSuccess, "CUDA");
    return rc;
}

#else /* !HYT_HAVE_CUDA */

int hyt_peer_dpotrf_uplo(int device, char uplo, int n, double *d_a, int lda, double *seconds,
                         int *info)
{
    (void)device, (void)uplo, (void)n, (void)d_a, (void)lda, (void)seconds, (void)info;
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "hyt_peer_dpotrf_uplo: built without CUDA");
}

int hyt_peer_dgemm_time(int device, char transa, char transb, int m, int n, int k, int reps,
                        double *seconds)
{
    (void)device, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)reps;
    (void)seconds;
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "hyt_peer_dgemm_time: built without CUDA");
}

#endif /* HYT_HAVE_CUDA */
