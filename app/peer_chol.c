/*
 * The vendor peers of the GPU-only Cholesky benchmark (peer_chol.h): cusolverDnDpotrf of either
 * triangle of a device-resident matrix, cusolverMgPotrf of the lower one over several GPUs (the
 * LU peer's cusolverMg layout and helpers, peer_cuda.h), and the cuBLAS DGEMM rate at a given
 * shape.
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
#include <string.h>

#if HYT_HAVE_CUDA

/* CUDA 13 marks the whole cusolverMg API deprecated; it is still NVIDIA's multi-GPU dense
 * Cholesky, which is exactly what this peer exists to measure. */
#define DISABLE_CUSOLVERMG_DEPRECATED
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusolverMg.h>

#include "peer_cuda.h"
#include "peer_cusolver.h"

int hyt_peer_dpotrf_uplo(int device, char uplo, int n, double *d_a, int lda, double *seconds,
                         int *info)
{
    int rc = 0, lwork = 0;
    hyt_peer_dn_t p;
    double *d_work = NULL;
    const int up = uplo == 'U' || uplo == 'u';
    if (!(up || uplo == 'L' || uplo == 'l') || n < 1 || !d_a || lda < n || !seconds || !info)
        return hyt_error(HYT_ERR_INVALID, "hyt_peer_dpotrf_uplo: invalid arguments (uplo '%c', "
                         "n = %d, lda = %d)", uplo, n, lda);
    const cublasFillMode_t fill = up ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    rc = hyt_peer_dn_open(&p, "hyt_peer_dpotrf_uplo", device, n, 0, 0, "info");
    if (rc)
        goto cleanup;
    HYT_PEER_TRY(cusolverDnDpotrf_bufferSize(p.handle, fill, n, d_a, lda, &lwork));
    HYT_PEER_TRY(cudaMalloc((void **)&d_work, (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));
    HYT_PEER_TRY(cudaDeviceSynchronize());
    double t0 = hyt_wtime();
    HYT_PEER_TRY(cusolverDnDpotrf(p.handle, fill, n, d_a, lda, d_work, lwork, p.d_info));
    HYT_PEER_TRY(cudaDeviceSynchronize());
    *seconds = hyt_wtime() - t0;
    HYT_PEER_TRY(cudaMemcpy(info, p.d_info, sizeof(int), cudaMemcpyDeviceToHost));

cleanup:
    if (d_work)
        HYT_PEER_CLEAN(cudaFree(d_work));
    return hyt_peer_dn_close(&p, rc);
}

typedef struct potrf_call {
    cusolverDnHandle_t handle;
    cublasFillMode_t fill;
    int n;
    double *d_a, *d_work;
    int lwork;
    int *d_info;
} potrf_call_t;

static int potrf_call(void *p)
{
    const potrf_call_t *c = p;
    int rc = 0;
    HYT_PEER_TRY(cusolverDnDpotrf(c->handle, c->fill, c->n, c->d_a, c->n, c->d_work, c->lwork,
                                  c->d_info));
cleanup:
    return rc;
}

/* One GPU, host to host: the copy of the whole matrix in, cusolverDnDpotrf, the copy out (the
 * peer's own way, a and the factor page-locked: hyt_peer_h2h_best), best of reps; the
 * workspace made once. */
int hyt_peer_dpotrf_h2h(int device, char uplo, int n, const double *a, int reps, double *seconds)
{
    int rc = 0, lwork = 0, info = 0;
    const size_t nn = (size_t)n * (size_t)n;
    hyt_peer_dn_t p;
    double *d_work = NULL;
    const int up = uplo == 'U' || uplo == 'u';
    if (!(up || uplo == 'L' || uplo == 'l') || n < 1 || !a || reps < 1 || !seconds)
        return hyt_error(HYT_ERR_INVALID, "hyt_peer_dpotrf_h2h: invalid arguments (uplo '%c', "
                         "n = %d, reps = %d)", uplo, n, reps);
    const cublasFillMode_t fill = up ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    rc = hyt_peer_dn_open(&p, "hyt_peer_dpotrf_h2h", device, n, nn, 0, "A and info");
    if (rc)
        goto cleanup;
    HYT_PEER_TRY(cusolverDnDpotrf_bufferSize(p.handle, fill, n, p.d_a, n, &lwork));
    HYT_PEER_TRY(cudaMalloc((void **)&d_work, (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));
    potrf_call_t c = {p.handle, fill, n, p.d_a, d_work, lwork, p.d_info};
    rc = hyt_peer_h2h_best(p.stream, a, p.d_a, nn * sizeof(double), reps, potrf_call, &c,
                           seconds);
    if (rc)
        goto cleanup;
    HYT_PEER_TRY(cudaMemcpy(&info, p.d_info, sizeof(int), cudaMemcpyDeviceToHost));
    if (info)
        rc = hyt_error(HYT_ERR_INVALID, "hyt_peer_dpotrf_h2h: cusolverDnDpotrf gave INFO %d",
                       info);

cleanup:
    if (d_work)
        HYT_PEER_CLEAN(cudaFree(d_work));
    return hyt_peer_dn_close(&p, rc);
}

/* cusolverMgPotrf of the lower triangle, the arguments checked by hyt_peer_dpotrf_mg (nb <= n);
 * the caller restores the current device. */
static int peer_potrf_mg(int ndev, const int *devices, int n, int nb, const double *a, int lda,
                         double *seconds, int *info, double *f)
{
    static const char func[] = "hyt_peer_dpotrf_mg";
    int rc = 0, h_info = 0;
    double t0 = 0.0;
    const int64_t nblk = ((int64_t)n + nb - 1) / nb;
    const size_t tile_bytes = (size_t)nb * (size_t)n * sizeof(double); /* nb columns of n */
    cusolverMgHandle_t handle = NULL;
    cudaLibMgGrid_t grid = NULL;
    cudaLibMgMatrixDesc_t desc = NULL;
    int *ids = malloc((size_t)ndev * sizeof *ids);
    void **d_a = calloc((size_t)ndev, sizeof *d_a);
    void **d_work = calloc((size_t)ndev, sizeof *d_work);
    unsigned char *peer_on = calloc((size_t)ndev * (size_t)ndev, 1); /* as hyt_peer_dgesv's */
    int64_t lwork = 0;
    if (!ids || !d_a || !d_work || !peer_on) {
        rc = hyt_error(HYT_ERR_NOMEM, "%s: no host memory for %d device tables", func, ndev);
        goto cleanup;
    }
    memcpy(ids, devices, (size_t)ndev * sizeof *ids); /* cusolverMgDeviceSelect's is not const */
    rc = hyt_peer_access_enable(ndev, devices, peer_on);
    if (rc)
        goto cleanup;
    HYT_PEER_TRY(cusolverMgCreate(&handle));
    HYT_PEER_TRY(cusolverMgDeviceSelect(handle, ndev, ids));
    HYT_PEER_TRY(cusolverMgCreateDeviceGrid(&grid, 1, ndev, ids,
                                            CUDALIBMG_GRID_MAPPING_COL_MAJOR));
    HYT_PEER_TRY(cusolverMgCreateMatrixDesc(&desc, n, n, n, nb, CUDA_R_64F, grid));

    // the local columns: every device checked first, then allocated (zeroed, padding included)
    for (int p = 0; p < ndev; p++) {
        HYT_PEER_TRY(cudaSetDevice(devices[p]));
        rc = hyt_peer_check_memory(func, devices[p],
                                   (size_t)hyt_peer_local_tiles(nblk, ndev, p) * tile_bytes, n,
                                   ndev, "the local columns of A");
        if (rc)
            goto cleanup;
    }
    for (int p = 0; p < ndev; p++) {
        const size_t bytes = (size_t)hyt_peer_local_tiles(nblk, ndev, p) * tile_bytes;
        HYT_PEER_TRY(cudaSetDevice(devices[p]));
        HYT_PEER_TRY(cudaMalloc(&d_a[p], bytes));
        HYT_PEER_TRY(cudaMemset(d_a[p], 0, bytes));
    }
    rc = hyt_peer_mg_put(ndev, devices, n, nb, a, lda, d_a);
    if (rc)
        goto cleanup;

    // the workspace: lwork doubles on every device
    HYT_PEER_TRY(cusolverMgPotrf_bufferSize(handle, CUBLAS_FILL_MODE_LOWER, n, d_a, 1, 1, desc,
                                            CUDA_R_64F, &lwork));
    if (lwork < 1)
        lwork = 1;
    for (int p = 0; p < ndev; p++) {
        HYT_PEER_TRY(cudaSetDevice(devices[p]));
        rc = hyt_peer_check_memory(func, devices[p], (size_t)lwork * sizeof(double), n, ndev,
                                   "the cusolverMgPotrf workspace");
        if (rc)
            goto cleanup;
        HYT_PEER_TRY(cudaMalloc(&d_work[p], (size_t)lwork * sizeof(double)));
    }

    // the factorization, timed alone
    rc = hyt_peer_sync_all(ndev, devices);
    if (rc)
        goto cleanup;
    t0 = hyt_wtime();
    HYT_PEER_TRY(cusolverMgPotrf(handle, CUBLAS_FILL_MODE_LOWER, n, d_a, 1, 1, desc, CUDA_R_64F,
                                 d_work, lwork, &h_info));
    rc = hyt_peer_sync_all(ndev, devices);
    if (rc)
        goto cleanup;
    *seconds = hyt_wtime() - t0;
    if (h_info < 0) {
        rc = hyt_error(HYT_ERR_DEVICE, "%s:%d: cusolverMgPotrf rejected its argument %d (n = %d, "
                       "nb = %d, %d GPUs, lwork = %lld)", __FILE__, __LINE__, -h_info, n, nb,
                       ndev, (long long)lwork);
        goto cleanup;
    }
    *info = h_info;
    if (f)
        rc = hyt_peer_mg_get(ndev, devices, n, nb, d_a, f, n);

cleanup:
    rc = hyt_peer_free_table(ndev, devices, d_work, rc);
    rc = hyt_peer_free_table(ndev, devices, d_a, rc);
    if (desc)
        HYT_PEER_CLEAN(cusolverMgDestroyMatrixDesc(desc));
    if (grid)
        HYT_PEER_CLEAN(cusolverMgDestroyGrid(grid));
    if (handle)
        HYT_PEER_CLEAN(cusolverMgDestroy(handle));
    rc = hyt_peer_access_restore(ndev, devices, peer_on, rc);
    free(peer_on);
    free(d_work);
    free(d_a);
    free(ids);
    return rc;
}

int hyt_peer_dpotrf_mg(int ndev, const int *devices, int n, int mg_block, const double *a,
                       int lda, double *seconds, int *info, double *f)
{
    static const char func[] = "hyt_peer_dpotrf_mg";
    int rc = 0, current = -1;
    const int nb = mg_block > 0 ? mg_block : 256;
    if (n < 1 || !a || lda < n || !seconds || !info)
        return hyt_error(HYT_ERR_INVALID, "%s: invalid arguments (n = %d, lda = %d, a %s, "
                         "seconds %s, info %s)", func, n, lda, a ? "given" : "NULL",
                         seconds ? "given" : "NULL", info ? "given" : "NULL");
    if ((size_t)n > SIZE_MAX / sizeof(double) / (size_t)n)
        return hyt_error(HYT_ERR_TOO_LARGE, "%s: n = %d: n^2 doubles overflow size_t", func, n);
    *seconds = 0.0;
    *info = 0;
    HYT_PEER_TRY(cudaGetDevice(&current));
    rc = hyt_peer_check_devices(func, ndev, devices);
    if (!rc)
        rc = peer_potrf_mg(ndev, devices, n, nb < n ? nb : n, a, lda, seconds, info, f);

cleanup:
    return hyt_peer_leave(current, rc);
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
    HYT_PEER_TRY(cudaGetDevice(&prev));
    HYT_PEER_TRY(cudaSetDevice(device));
    HYT_PEER_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
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
    HYT_PEER_TRY(cudaMalloc((void **)&d_a, na * sizeof(double)));
    HYT_PEER_TRY(cudaMalloc((void **)&d_b, nbb * sizeof(double)));
    HYT_PEER_TRY(cudaMalloc((void **)&d_c, nc * sizeof(double)));
    HYT_PEER_TRY(cudaMemcpy(d_a, h, na * sizeof(double), cudaMemcpyHostToDevice));
    HYT_PEER_TRY(cudaMemcpy(d_b, h, nbb * sizeof(double), cudaMemcpyHostToDevice));
    HYT_PEER_TRY(cudaMemset(d_c, 0, nc * sizeof(double)));
    HYT_PEER_TRY(cublasCreate(&handle));
    HYT_PEER_TRY(cudaEventCreate(&e0));
    HYT_PEER_TRY(cudaEventCreate(&e1));
    const double alpha = -1.0, beta = 1.0;
    const int lda = ta ? k : m, ldb = tb ? n : k;
    float best = -1;
    for (int r = 0; r <= reps; r++) { /* r = 0: warm-up, not counted */
        float ms = 0;
        HYT_PEER_TRY(cudaEventRecord(e0, 0));
        HYT_PEER_TRY(cublasDgemm(handle, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                 tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, d_a, lda, d_b,
                                 ldb, &beta, d_c, m));
        HYT_PEER_TRY(cudaEventRecord(e1, 0));
        HYT_PEER_TRY(cudaEventSynchronize(e1));
        HYT_PEER_TRY(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0 && (best < 0 || ms < best))
            best = ms;
    }
    *seconds = best * 1e-3;

cleanup:
    free(h);
    if (e0)
        HYT_PEER_CLEAN(cudaEventDestroy(e0));
    if (e1)
        HYT_PEER_CLEAN(cudaEventDestroy(e1));
    if (handle)
        HYT_PEER_CLEAN(cublasDestroy(handle));
    if (d_c)
        HYT_PEER_CLEAN(cudaFree(d_c));
    if (d_b)
        HYT_PEER_CLEAN(cudaFree(d_b));
    if (d_a)
        HYT_PEER_CLEAN(cudaFree(d_a));
    if (prev >= 0)
        HYT_PEER_CLEAN(cudaSetDevice(prev));
    return rc;
}

#else /* !HYT_HAVE_CUDA */

int hyt_peer_dpotrf_uplo(int device, char uplo, int n, double *d_a, int lda, double *seconds,
                         int *info)
{
    (void)device, (void)uplo, (void)n, (void)d_a, (void)lda, (void)seconds, (void)info;
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "hyt_peer_dpotrf_uplo: built without CUDA");
}

int hyt_peer_dpotrf_h2h(int device, char uplo, int n, const double *a, int reps, double *seconds)
{
    (void)device, (void)uplo, (void)n, (void)a, (void)reps, (void)seconds;
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "hyt_peer_dpotrf_h2h: built without CUDA");
}

int hyt_peer_dpotrf_mg(int ndev, const int *devices, int n, int mg_block, const double *a,
                       int lda, double *seconds, int *info, double *f)
{
    (void)ndev, (void)devices, (void)n, (void)mg_block, (void)a, (void)lda, (void)seconds;
    (void)info, (void)f;
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "hyt_peer_dpotrf_mg: built without CUDA");
}

int hyt_peer_dgemm_time(int device, char transa, char transb, int m, int n, int k, int reps,
                        double *seconds)
{
    (void)device, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)reps;
    (void)seconds;
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "hyt_peer_dgemm_time: built without CUDA");
}

#endif /* HYT_HAVE_CUDA */
