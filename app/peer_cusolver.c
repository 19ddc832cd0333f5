/*
 * The vendor peer of the GPU benchmark: A x = b solved by cusolverDnDgetrf/getrs on one GPU or
 * by cusolverMgGetrf/getrs on several, timing the factorization alone.
 *
 * Multi-GPU layout (cusolverMg, 1 x ndev grid, column-major mapping): the global n x n matrix
 * is cut into column blocks of nb columns; block j lives on devices[j % ndev] as local block
 * j / ndev.  Each device holds its blocks packed one after another, every block a full tile of
 * nb columns with leading dimension n (the last, partial block is padded to a full tile, as in
 * NVIDIA's cusolverMg getrf example).  Its pivots follow the same layout (nb ints per tile).
 * b is an n x 1 matrix with column block 1: its one tile lives on devices[0].
 *
 *     columns:  | blk 0 | blk 1 | blk 2 | blk 3 | blk 4 | ...      (ndev = 2)
 *     device:   |  d0   |  d1   |  d0   |  d1   |  d0   |
 *     local:    d0 = [blk 0 | blk 2 | blk 4 ...]   d1 = [blk 1 | blk 3 ...]
 *
 * Every CUDA / cuSOLVER call is checked (name, file, line, status); once a function holds
 * anything, every path out goes through its one cleanup label.  No fault injection here
 * (debug.fault_device needs a hyt_device_t, which the peer does not use).
 */
#include "peer_cusolver.h"

#include "config.h"
#include "hyt_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if HYT_HAVE_CUDA

/* CUDA 13 marks the whole cusolverMg API deprecated; it is still NVIDIA's multi-GPU dense LU,
 * which is exactly what this peer exists to measure. */
#define DISABLE_CUSOLVERMG_DEPRECATED
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusolverMg.h>

#include "peer_cuda.h"

enum { HYT_PEER_DEFAULT_MG_BLOCK = 256 };
#define PEER_FUNC "hyt_peer_dgesv" /* the call named in the messages */

/* ---------------------------------------------------------------------------------------------
 * One GPU: cusolverDn on a stream of our own.
 */
static int peer_dn(int device, int n, const double *a, const double *b, double *x,
                   double *factor_seconds, int *info)
{
    int rc = 0;
    const size_t nn = (size_t)n * (size_t)n;
    hyt_peer_dn_t p;
    double *d_b = NULL, *d_work = NULL;
    int *d_ipiv = NULL;
    int lwork = 0, h_info = 0;
    double t0 = 0.0;

    rc = hyt_peer_dn_open(&p, PEER_FUNC, device, n, nn,
                          (size_t)n * sizeof(double) + (size_t)n * sizeof(int),
                          "A, b, ipiv and info");
    if (rc)
        goto cleanup;
    cudaStream_t stream = p.stream;
    cusolverDnHandle_t handle = p.handle;
    double *d_a = p.d_a;
    int *d_info = p.d_info;
    HYT_PEER_TRY(cudaMalloc((void **)&d_b, (size_t)n * sizeof(double)));
    HYT_PEER_TRY(cudaMalloc((void **)&d_ipiv, (size_t)n * sizeof(int)));

    HYT_PEER_TRY(cusolverDnDgetrf_bufferSize(handle, n, n, d_a, n, &lwork));
    if (lwork < 1)
        lwork = 1;
    rc = hyt_peer_check_memory(PEER_FUNC, device, (size_t)lwork * sizeof(double), n, 1,
                               "the cusolverDnDgetrf workspace");
    if (rc)
        goto cleanup;
    HYT_PEER_TRY(cudaMalloc((void **)&d_work, (size_t)lwork * sizeof(double)));

    HYT_PEER_TRY(cudaMemcpyAsync(d_a, a, nn * sizeof(double), cudaMemcpyHostToDevice, stream));
    HYT_PEER_TRY(cudaMemcpyAsync(d_b, b, (size_t)n * sizeof(double), cudaMemcpyHostToDevice,
                                  stream));

    // factorization, timed alone
    HYT_PEER_TRY(cudaDeviceSynchronize());
    t0 = hyt_wtime();
    HYT_PEER_TRY(cusolverDnDgetrf(handle, n, n, d_a, n, d_work, d_ipiv, d_info));
    HYT_PEER_TRY(cudaDeviceSynchronize());
    *factor_seconds = hyt_wtime() - t0;

    HYT_PEER_TRY(cudaMemcpyAsync(&h_info, d_info, sizeof(int), cudaMemcpyDeviceToHost, stream));
    HYT_PEER_TRY(cudaStreamSynchronize(stream));
    if (h_info < 0) {
        rc = hyt_error(HYT_ERR_DEVICE, "%s:%d: cusolverDnDgetrf rejected its argument %d "
                       "(n = %d, lwork = %d)", __FILE__, __LINE__, -h_info, n, lwork);
        goto cleanup;
    }
    *info = h_info;
    if (h_info > 0)
        goto cleanup; /* singular: no solve, x not written */

    // solve
    HYT_PEER_TRY(cusolverDnDgetrs(handle, CUBLAS_OP_N, n, 1, d_a, n, d_ipiv, d_b, n, d_info));
    HYT_PEER_TRY(cudaMemcpyAsync(&h_info, d_info, sizeof(int), cudaMemcpyDeviceToHost, stream));
    HYT_PEER_TRY(cudaStreamSynchronize(stream));
    if (h_info != 0) {
        rc = hyt_error(HYT_ERR_DEVICE, "%s:%d: cusolverDnDgetrs rejected its argument %d (n = %d)",
                       __FILE__, __LINE__, -h_info, n);
        goto cleanup;
    }
    HYT_PEER_TRY(cudaMemcpyAsync(x, d_b, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost,
                                  stream));
    HYT_PEER_TRY(cudaStreamSynchronize(stream));

cleanup:
    if (d_work)
        HYT_PEER_CLEAN(cudaFree(d_work));
    if (d_ipiv)
        HYT_PEER_CLEAN(cudaFree(d_ipiv));
    if (d_b)
        HYT_PEER_CLEAN(cudaFree(d_b));
    return hyt_peer_dn_close(&p, rc);
}

/* ---------------------------------------------------------------------------------------------
 * One GPU, host to host: the copy in, cusolverDnDgetrf and the copy of the factors out, timed
 * together (a page-locked for the copy, as hytile's tiles are), best of reps runs; a and the
 * factors' page-locked buffer are set up once for all of them.
 */
typedef struct dgetrf_call {
    cusolverDnHandle_t handle;
    int n;
    double *d_a, *d_work;
    int *d_ipiv, *d_info;
} dgetrf_call_t;

static int dgetrf_call(void *p)
{
    const dgetrf_call_t *c = p;
    int rc = 0;
    HYT_PEER_TRY(cusolverDnDgetrf(c->handle, c->n, c->n, c->d_a, c->n, c->d_work, c->d_ipiv,
                                  c->d_info));
cleanup:
    return rc;
}

int hyt_peer_dgetrf_h2h(int device, int n, const double *a, int reps, double *seconds)
{
    int rc = 0, lwork = 0;
    const size_t nn = (size_t)n * (size_t)n;
    hyt_peer_dn_t p;
    double *d_work = NULL;
    int *d_ipiv = NULL;
    if (n < 1 || !a || reps < 1 || !seconds)
        return hyt_error(HYT_ERR_INVALID, "hyt_peer_dgetrf_h2h: invalid arguments (n = %d, "
                         "reps = %d)", n, reps);
    rc = hyt_peer_dn_open(&p, "hyt_peer_dgetrf_h2h", device, n, nn, (size_t)n * sizeof(int),
                          "A, ipiv and info");
    if (rc)
        goto cleanup;
    HYT_PEER_TRY(cudaMalloc((void **)&d_ipiv, (size_t)n * sizeof(int)));
    HYT_PEER_TRY(cusolverDnDgetrf_bufferSize(p.handle, n, n, p.d_a, n, &lwork));
    HYT_PEER_TRY(cudaMalloc((void **)&d_work, (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));
    dgetrf_call_t c = {p.handle, n, p.d_a, d_work, d_ipiv, p.d_info};
    rc = hyt_peer_h2h_best(p.stream, a, p.d_a, nn * sizeof(double), reps, dgetrf_call, &c,
                           seconds);

cleanup:
    if (d_work)
        HYT_PEER_CLEAN(cudaFree(d_work));
    if (d_ipiv)
        HYT_PEER_CLEAN(cudaFree(d_ipiv));
    return hyt_peer_dn_close(&p, rc);
}

/* ---------------------------------------------------------------------------------------------
 * The caller's host matrix page-locked across several peer calls.
 */
int hyt_peer_is_pinned(const void *p)
{
    struct cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* pageable memory on an old runtime: not an error to keep */
        return 0;
    }
    return at.type == cudaMemoryTypeHost;
}

int hyt_peer_pin(const void *p, size_t bytes)
{
    int rc = 0;
    HYT_PEER_TRY(cudaHostRegister((void *)p, bytes,
                                  cudaHostRegisterPortable | cudaHostRegisterReadOnly));
cleanup:
    if (rc) /* the caller goes on with pageable memory: no error left for a later check */
        (void)cudaGetLastError();
    return rc;
}

void hyt_peer_unpin(const void *p)
{
    const cudaError_t e = cudaHostUnregister((void *)p);
    if (e != cudaSuccess) { /* the measurements stand; said, and not left for a later check */
        fprintf(stderr, "peer: cudaHostUnregister: %s\n", cudaGetErrorString(e));
        (void)cudaGetLastError();
    }
}

/* ---------------------------------------------------------------------------------------------
 * Several GPUs: cusolverMg, 1-D column block-cyclic (layout in the header comment).
 */
static int peer_mg(int ndev, const int *devices, int n, int nb, const double *a,
                   const double *b, double *x, double *factor_seconds, int *info)
{
    int rc = 0;
    const int64_t nblk = ((int64_t)n + nb - 1) / nb;
    const size_t tile_elems = (size_t)nb * (size_t)n; /* one tile of A: nb columns of n */
    cusolverMgHandle_t handle = NULL;
    cudaLibMgGrid_t grid_a = NULL, grid_b = NULL;
    cudaLibMgMatrixDesc_t desc_a = NULL, desc_b = NULL;
    int *ids = NULL;
    void **d_a = NULL, **d_b = NULL, **d_work = NULL;
    int **d_ipiv = NULL;
    unsigned char *peer_on = NULL; /* [i * ndev + j]: this call enabled access devices i -> j */
    int64_t lwork_getrf = 0, lwork_getrs = 0, lwork = 0;
    int h_info = 0;
    double t0 = 0.0;

    ids = malloc((size_t)ndev * sizeof *ids);
    d_a = calloc((size_t)ndev, sizeof *d_a);
    d_b = calloc((size_t)ndev, sizeof *d_b);
    d_work = calloc((size_t)ndev, sizeof *d_work);
    d_ipiv = calloc((size_t)ndev, sizeof *d_ipiv);
    peer_on = calloc((size_t)ndev * (size_t)ndev, 1);
    if (!ids || !d_a || !d_b || !d_work || !d_ipiv || !peer_on) {
        rc = hyt_error(HYT_ERR_NOMEM, "hyt_peer_dgesv: no host memory for %d device tables",
                       ndev);
        goto cleanup;
    }
    for (int p = 0; p < ndev; p++)
        ids[p] = devices[p];

    // peer access between all pairs; access that is already on stays on after we return
    rc = hyt_peer_access_enable(ndev, devices, peer_on);
    if (rc)
        goto cleanup;

    // handle, grid, descriptors
    HYT_PEER_TRY(cusolverMgCreate(&handle));
    HYT_PEER_TRY(cusolverMgDeviceSelect(handle, ndev, ids));
    HYT_PEER_TRY(cusolverMgCreateDeviceGrid(&grid_a, 1, ndev, ids,
                                               CUDALIBMG_GRID_MAPPING_COL_MAJOR));
    HYT_PEER_TRY(cusolverMgCreateDeviceGrid(&grid_b, 1, ndev, ids,
                                               CUDALIBMG_GRID_MAPPING_COL_MAJOR));
    HYT_PEER_TRY(cusolverMgCreateMatrixDesc(&desc_a, n, n, n, nb, CUDA_R_64F, grid_a));
    HYT_PEER_TRY(cusolverMgCreateMatrixDesc(&desc_b, n, 1, n, 1, CUDA_R_64F, grid_b));

    // local parts: check every device first, then allocate (zeroed, padding included)
    for (int p = 0; p < ndev; p++) {
        const size_t tiles = (size_t)hyt_peer_local_tiles(nblk, ndev, p);
        HYT_PEER_TRY(cudaSetDevice(devices[p]));
        rc = hyt_peer_check_memory(PEER_FUNC, devices[p], tiles * tile_elems * sizeof(double)
                                                              + tiles * (size_t)nb * sizeof(int)
                                                              + (size_t)n * sizeof(double),
                                   n, ndev, "the local columns of A, ipiv and b");
        if (rc)
            goto cleanup;
    }
    for (int p = 0; p < ndev; p++) {
        const size_t tiles = (size_t)hyt_peer_local_tiles(nblk, ndev, p);
        const size_t a_bytes = tiles * tile_elems * sizeof(double);
        const size_t ipiv_bytes = tiles * (size_t)nb * sizeof(int);
        const size_t b_bytes = (size_t)n * sizeof(double);
        HYT_PEER_TRY(cudaSetDevice(devices[p]));
        HYT_PEER_TRY(cudaMalloc(&d_a[p], a_bytes));
        HYT_PEER_TRY(cudaMemset(d_a[p], 0, a_bytes));
        HYT_PEER_TRY(cudaMalloc((void **)&d_ipiv[p], ipiv_bytes));
        HYT_PEER_TRY(cudaMemset(d_ipiv[p], 0, ipiv_bytes));
        HYT_PEER_TRY(cudaMalloc(&d_b[p], b_bytes));
        HYT_PEER_TRY(cudaMemset(d_b[p], 0, b_bytes));
    }

    // host to devices: column block j to local tile j / ndev of devices[j % ndev]
    rc = hyt_peer_mg_put(ndev, devices, n, nb, a, n, d_a);
    if (rc)
        goto cleanup;
    HYT_PEER_TRY(cudaSetDevice(devices[0]));
    HYT_PEER_TRY(cudaMemcpy(d_b[0], b, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));

    // workspace: one size (elements of double) for getrf and getrs, on every device
    HYT_PEER_TRY(cusolverMgGetrf_bufferSize(handle, n, n, d_a, 1, 1, desc_a, d_ipiv,
                                               CUDA_R_64F, &lwork_getrf));
    HYT_PEER_TRY(cusolverMgGetrs_bufferSize(handle, CUBLAS_OP_N, n, 1, d_a, 1, 1, desc_a,
                                               d_ipiv, d_b, 1, 1, desc_b, CUDA_R_64F,
                                               &lwork_getrs));
    lwork = lwork_getrf > lwork_getrs ? lwork_getrf : lwork_getrs;
    if (lwork < 1)
        lwork = 1;
    for (int p = 0; p < ndev; p++) {
        HYT_PEER_TRY(cudaSetDevice(devices[p]));
        rc = hyt_peer_check_memory(PEER_FUNC, devices[p], (size_t)lwork * sizeof(double), n,
                                   ndev, "the cusolverMg workspace");
        if (rc)
            goto cleanup;
        HYT_PEER_TRY(cudaMalloc(&d_work[p], (size_t)lwork * sizeof(double)));
    }

    // factorization, timed alone
    rc = hyt_peer_sync_all(ndev, devices);
    if (rc)
        goto cleanup;
    t0 = hyt_wtime();
    HYT_PEER_TRY(cusolverMgGetrf(handle, n, n, d_a, 1, 1, desc_a, d_ipiv, CUDA_R_64F, d_work,
                                    lwork, &h_info));
    rc = hyt_peer_sync_all(ndev, devices);
    if (rc)
        goto cleanup;
    *factor_seconds = hyt_wtime() - t0;
    if (h_info < 0) {
        rc = hyt_error(HYT_ERR_DEVICE, "%s:%d: cusolverMgGetrf rejected its argument %d "
                       "(n = %d, nb = %d, %d GPUs, lwork = %lld)", __FILE__, __LINE__, -h_info,
                       n, nb, ndev, (long long)lwork);
        goto cleanup;
    }
    *info = h_info;
    if (h_info > 0)
        goto cleanup; /* singular: no solve, x not written */

    // solve
    HYT_PEER_TRY(cusolverMgGetrs(handle, CUBLAS_OP_N, n, 1, d_a, 1, 1, desc_a, d_ipiv, d_b,
                                    1, 1, desc_b, CUDA_R_64F, d_work, lwork, &h_info));
    rc = hyt_peer_sync_all(ndev, devices);
    if (rc)
        goto cleanup;
    if (h_info != 0) {
        rc = hyt_error(HYT_ERR_DEVICE, "%s:%d: cusolverMgGetrs rejected its argument %d "
                       "(n = %d, %d GPUs)", __FILE__, __LINE__, -h_info, n, ndev);
        goto cleanup;
    }
    HYT_PEER_TRY(cudaSetDevice(devices[0]));
    HYT_PEER_TRY(cudaMemcpy(x, d_b[0], (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));

cleanup:
    for (int p = 0; p < ndev && d_a && d_b && d_work && d_ipiv; p++) {
        if (!d_a[p] && !d_b[p] && !d_work[p] && !d_ipiv[p])
            continue;
        HYT_PEER_CLEAN(cudaSetDevice(devices[p]));
        if (d_work[p])
            HYT_PEER_CLEAN(cudaFree(d_work[p]));
        if (d_ipiv[p])
            HYT_PEER_CLEAN(cudaFree(d_ipiv[p]));
        if (d_b[p])
            HYT_PEER_CLEAN(cudaFree(d_b[p]));
        if (d_a[p])
            HYT_PEER_CLEAN(cudaFree(d_a[p]));
    }
    if (desc_b)
        HYT_PEER_CLEAN(cusolverMgDestroyMatrixDesc(desc_b));
    if (desc_a)
        HYT_PEER_CLEAN(cusolverMgDestroyMatrixDesc(desc_a));
    if (grid_b)
        HYT_PEER_CLEAN(cusolverMgDestroyGrid(grid_b));
    if (grid_a)
        HYT_PEER_CLEAN(cusolverMgDestroyGrid(grid_a));
    if (handle)
        HYT_PEER_CLEAN(cusolverMgDestroy(handle));
    // leave peer access as we found it: hytile's own run must not inherit it
    rc = hyt_peer_access_restore(ndev, devices, peer_on, rc);
    free(peer_on);
    free(d_ipiv);
    free(d_work);
    free(d_b);
    free(d_a);
    free(ids);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Entry points.
 */
int hyt_peer_dgesv(int ndev, const int *devices, int n, int mg_block, const double *a,
                   const double *b, double *x, double *factor_seconds, int *info)
{
    int rc = 0, current = -1;
    int nb = mg_block > 0 ? mg_block : HYT_PEER_DEFAULT_MG_BLOCK;

    if (n < 0)
        return hyt_error(HYT_ERR_INVALID, "hyt_peer_dgesv: n = %d < 0", n);
    if (n > 0 && (!a || !b || !x))
        return hyt_error(HYT_ERR_INVALID, "hyt_peer_dgesv: a, b and x must not be NULL");
    if (!factor_seconds || !info)
        return hyt_error(HYT_ERR_INVALID,
                         "hyt_peer_dgesv: factor_seconds and info must not be NULL");
    *factor_seconds = 0.0;
    *info = 0;
    if (n == 0)
        return 0;
    if ((size_t)n > SIZE_MAX / sizeof(double) / (size_t)n)
        return hyt_error(HYT_ERR_TOO_LARGE, "hyt_peer_dgesv: n = %d: n^2 doubles overflow size_t",
                         n);

    rc = hyt_peer_check_devices(PEER_FUNC, ndev, devices);
    if (rc)
        goto cleanup;
    HYT_PEER_TRY(cudaGetDevice(&current));

    if (ndev == 1)
        rc = peer_dn(devices[0], n, a, b, x, factor_seconds, info);
    else
        rc = peer_mg(ndev, devices, n, nb < n ? nb : n, a, b, x, factor_seconds, info);

cleanup:
    return hyt_peer_leave(current, rc);
}

void hyt_peer_version(char *buf, size_t len)
{
    int sv[3] = {0, 0, 0}, bv[3] = {0, 0, 0}, runtime = 0, driver = 0;
    const libraryPropertyType props[3] = {MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL};
    int have_solver = 1, have_blas = 1;
    char drv[32];

    if (!buf || len == 0)
        return;
    for (int i = 0; i < 3; i++) {
        if (cusolverGetProperty(props[i], &sv[i]) != CUSOLVER_STATUS_SUCCESS)
            have_solver = 0;
        if (cublasGetProperty(props[i], &bv[i]) != CUBLAS_STATUS_SUCCESS)
            have_blas = 0;
    }
    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess)
        runtime = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
        snprintf(drv, sizeof drv, "no driver");
    else
        snprintf(drv, sizeof drv, "driver %d.%d", driver / 1000, driver % 1000 / 10);
    (void)cudaGetLastError(); /* leave no error behind from the queries above */

    char solver[48], blas[48];
    if (have_solver)
        snprintf(solver, sizeof solver, "cuSOLVER %d.%d.%d", sv[0], sv[1], sv[2]);
    else
        snprintf(solver, sizeof solver, "cuSOLVER (version unknown)");
    if (have_blas)
        snprintf(blas, sizeof blas, "cuBLAS %d.%d.%d", bv[0], bv[1], bv[2]);
    else
        snprintf(blas, sizeof blas, "cuBLAS (version unknown)");
    snprintf(buf, len, "%s, %s, CUDA runtime %d.%d, %s", solver, blas, runtime / 1000,
             runtime % 1000 / 10, drv);
}

#else /* !HYT_HAVE_CUDA */

int hyt_peer_dgesv(int ndev, const int *devices, int n, int mg_block, const double *a,
                   const double *b, double *x, double *factor_seconds, int *info)
{
    (void)ndev, (void)devices, (void)n, (void)mg_block, (void)a, (void)b, (void)x;
    if (factor_seconds)
        *factor_seconds = 0.0;
    if (info)
        *info = 0;
    return hyt_error(HYT_ERR_NOT_AVAILABLE,
                     "hyt_peer_dgesv: hytile was built without CUDA; no cuSOLVER peer");
}

void hyt_peer_version(char *buf, size_t len)
{
    if (buf && len > 0)
        snprintf(buf, len, "cuSOLVER not available (built without CUDA)");
}

int hyt_peer_dgetrf_h2h(int device, int n, const double *a, int reps, double *seconds)
{
    (void)device, (void)n, (void)a, (void)reps, (void)seconds;
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "hyt_peer_dgetrf_h2h: built without CUDA");
}

int hyt_peer_is_pinned(const void *p)
{
    (void)p;
    return 0;
}

int hyt_peer_pin(const void *p, size_t bytes)
{
    (void)p, (void)bytes;
    return hyt_error(HYT_ERR_NOT_AVAILABLE, "hyt_peer_pin: built without CUDA");
}

void hyt_peer_unpin(const void *p)
{
    (void)p;
}

#endif /* HYT_HAVE_CUDA */
