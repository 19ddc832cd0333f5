/*
 * The helpers the cuSOLVER peers share (peer_cuda.h): call checks and their messages, the device
 * list's and free memory's checks, peer access, the copies of the cusolverMg column
 * block-cyclic layout, and the host-to-host clock of the one-GPU peers.  Built with CUDA only
 * (app/meson.build).
 */
#include "peer_cuda.h"
#include "peer_cusolver.h"

#include "hyt_runtime.h"

#include <stdio.h>
#include <string.h>

static const char *peer_solver_status_name(cusolverStatus_t s)
{
    switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_MAPPING_ERROR: return "CUSOLVER_STATUS_MAPPING_ERROR";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
        return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_ZERO_PIVOT: return "CUSOLVER_STATUS_ZERO_PIVOT";
    case CUSOLVER_STATUS_INVALID_LICENSE: return "CUSOLVER_STATUS_INVALID_LICENSE";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "unknown cuSOLVER status";
    }
}

/* (the current device: the per-device calls of a multi-GPU run; nothing when even that query
 * fails) */
void hyt_peer_cuda_text(int status, char *buf, size_t len)
{
    const cudaError_t e = (cudaError_t)status;
    int device = -1;
    char where[32] = "";
    if (cudaGetDevice(&device) == cudaSuccess)
        snprintf(where, sizeof where, ", current device %d", device);
    snprintf(buf, len, "%s (%s%s)", cudaGetErrorName(e), cudaGetErrorString(e), where);
}

/* (cusolverDn and cusolverMg share cusolverStatus_t) */
void hyt_peer_solver_text(int status, char *buf, size_t len)
{
    snprintf(buf, len, "cuSOLVER status %d (%s)", status,
             peer_solver_status_name((cusolverStatus_t)status));
}

void hyt_peer_blas_text(int status, char *buf, size_t len)
{
    snprintf(buf, len, "cuBLAS status %d (%s)", status,
             cublasGetStatusName((cublasStatus_t)status));
}

int hyt_peer_failed(void (*text)(int, char *, size_t), int status, const char *call,
                    const char *file, int line)
{
    char what[256];
    text(status, what, sizeof what);
    return hyt_error(HYT_ERR_DEVICE, "%s:%d: %s failed: %s", file, line, call, what);
}

int hyt_peer_check_memory(const char *func, int device, size_t need, int n, int ndev,
                          const char *what)
{
    int rc = 0;
    size_t free_bytes = 0, total_bytes = 0;
    HYT_PEER_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (need > free_bytes) {
        const double gib = 1024.0 * 1024.0 * 1024.0;
        rc = hyt_error(HYT_ERR_DEVICE_MEMORY,
                       "%s (n = %d on %d GPU%s): %s need %zu bytes (%.2f GiB) on device %d, but "
                       "only %zu bytes (%.2f GiB) of its %.2f GiB are free",
                       func, n, ndev, ndev > 1 ? "s" : "", what, need, (double)need / gib,
                       device, free_bytes, (double)free_bytes / gib, (double)total_bytes / gib);
    }
cleanup:
    return rc;
}

int hyt_peer_check_devices(const char *func, int ndev, const int *devices)
{
    int rc = 0, count = 0;
    if (ndev < 1 || !devices)
        return hyt_error(HYT_ERR_INVALID, "%s: ndev = %d, devices %s: need at least one device",
                         func, ndev, devices ? "given" : "NULL");
    for (int i = 0; i < ndev; i++) {
        for (int j = 0; j < i; j++) {
            if (devices[i] == devices[j])
                return hyt_error(HYT_ERR_INVALID, "%s: device %d listed twice", func,
                                 devices[i]);
        }
    }
    HYT_PEER_TRY(cudaGetDeviceCount(&count));
    for (int i = 0; i < ndev; i++) {
        if (devices[i] < 0 || devices[i] >= count)
            return hyt_error(HYT_ERR_INVALID, "%s: device %d does not exist (%d CUDA device%s "
                             "visible)", func, devices[i], count, count == 1 ? "" : "s");
    }
cleanup:
    return rc;
}

int hyt_peer_sync_all(int ndev, const int *devices)
{
    int rc = 0;
    for (int p = 0; p < ndev; p++) {
        HYT_PEER_TRY(cudaSetDevice(devices[p]));
        HYT_PEER_TRY(cudaDeviceSynchronize());
    }
cleanup:
    return rc;
}

int hyt_peer_access_enable(int ndev, const int *devices, unsigned char *on)
{
    int rc = 0;
    for (int i = 0; i < ndev; i++) {
        HYT_PEER_TRY(cudaSetDevice(devices[i]));
        for (int j = 0; j < ndev; j++) {
            if (j == i)
                continue;
            cudaError_t e = cudaDeviceEnablePeerAccess(devices[j], 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled) {
                /* Not an error; reading it back clears the thread's last-error state, which
                 * would otherwise surface in the next cudaGetLastError() check. */
                (void)cudaGetLastError();
            } else if (e != cudaSuccess) {
                char call[96];
                snprintf(call, sizeof call, "cudaDeviceEnablePeerAccess(devices[j], 0) (device %d "
                         "to device %d)", devices[i], devices[j]);
                rc = hyt_peer_failed(hyt_peer_cuda_text, (int)e, call, __FILE__, __LINE__);
                goto cleanup;
            } else {
                on[(size_t)i * (size_t)ndev + (size_t)j] = 1;
            }
        }
    }
cleanup:
    return rc;
}

int hyt_peer_access_restore(int ndev, const int *devices, const unsigned char *on, int rc)
{
    for (int i = 0; i < ndev && on; i++) {
        const unsigned char *row = on + (size_t)i * (size_t)ndev;
        if (!memchr(row, 1, (size_t)ndev))
            continue;
        cudaError_t e = cudaSetDevice(devices[i]);
        if (e != cudaSuccess) {
            /* not on device i: disabling now would act on another device's access */
            if (rc == 0)
                rc = hyt_peer_failed(hyt_peer_cuda_text, (int)e, "cudaSetDevice(devices[i])",
                                     __FILE__, __LINE__);
            continue;
        }
        for (int j = 0; j < ndev; j++) {
            if (row[j])
                HYT_PEER_CLEAN(cudaDeviceDisablePeerAccess(devices[j]));
        }
    }
    return rc;
}

int hyt_peer_free_table(int ndev, const int *devices, void *const *table, int rc)
{
    for (int p = 0; p < ndev && table; p++) {
        if (!table[p])
            continue;
        HYT_PEER_CLEAN(cudaSetDevice(devices[p]));
        HYT_PEER_CLEAN(cudaFree(table[p]));
    }
    return rc;
}

int hyt_peer_dn_open(hyt_peer_dn_t *p, const char *func, int device, int n, size_t elems,
                     size_t extra, const char *what)
{
    int rc = 0;
    *p = (hyt_peer_dn_t){-1, NULL, NULL, NULL, NULL};
    HYT_PEER_TRY(cudaGetDevice(&p->prev));
    HYT_PEER_TRY(cudaSetDevice(device));
    HYT_PEER_TRY(cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking));
    HYT_PEER_TRY(cusolverDnCreate(&p->handle));
    HYT_PEER_TRY(cusolverDnSetStream(p->handle, p->stream));
    rc = hyt_peer_check_memory(func, device, elems * sizeof(double) + sizeof(int) + extra, n, 1,
                               what);
    if (rc)
        goto cleanup;
    if (elems > 0)
        HYT_PEER_TRY(cudaMalloc((void **)&p->d_a, elems * sizeof(double)));
    HYT_PEER_TRY(cudaMalloc((void **)&p->d_info, sizeof(int)));
cleanup:
    return rc;
}

int hyt_peer_dn_close(hyt_peer_dn_t *p, int rc)
{
    if (p->d_info)
        HYT_PEER_CLEAN(cudaFree(p->d_info));
    if (p->d_a)
        HYT_PEER_CLEAN(cudaFree(p->d_a));
    if (p->handle)
        HYT_PEER_CLEAN(cusolverDnDestroy(p->handle));
    if (p->stream)
        HYT_PEER_CLEAN(cudaStreamDestroy(p->stream));
    rc = hyt_peer_leave(p->prev, rc);
    *p = (hyt_peer_dn_t){-1, NULL, NULL, NULL, NULL};
    return rc;
}

int hyt_peer_leave(int current, int rc)
{
    if (current >= 0)
        HYT_PEER_CLEAN(cudaSetDevice(current));
    if (rc != 0) {
        /* A failed runtime call is also recorded as the thread's last error; read it back so
         * that it does not surface in hytile's next cudaGetLastError() check. */
        (void)cudaGetLastError();
    }
    return rc;
}

int64_t hyt_peer_local_tiles(int64_t nblk, int ndev, int p)
{
    int64_t tiles = nblk > p ? (nblk - 1 - p) / ndev + 1 : 0;
    return tiles > 0 ? tiles : 1;
}

/* Column block j of the host matrix to or from (d2h) local tile j / ndev of devices[j % ndev]:
 * its columns of n doubles (cols < nb in the last block), pitch lda on the host and n there.
 * The host pointer is only read when !d2h. */
static int mg_copy(int ndev, const int *devices, int n, int nb, void *const *d_a, double *a,
                   int lda, int d2h)
{
    int rc = 0;
    const int64_t nblk = ((int64_t)n + nb - 1) / nb;
    const size_t tile_elems = (size_t)nb * (size_t)n, pitch = (size_t)n * sizeof(double);
    const size_t hpitch = (size_t)lda * sizeof(double);
    for (int p = 0; p < ndev; p++) {
        HYT_PEER_TRY(cudaSetDevice(devices[p]));
        for (int64_t j = p; j < nblk; j += ndev) {
            const size_t cols = (size_t)((int64_t)n - j * nb < nb ? (int64_t)n - j * nb : nb);
            double *dev = (double *)d_a[p] + (size_t)(j / ndev) * tile_elems;
            double *host = a + (size_t)j * (size_t)nb * (size_t)lda;
            if (d2h)
                HYT_PEER_TRY(cudaMemcpy2D(host, hpitch, dev, pitch, pitch, cols,
                                          cudaMemcpyDeviceToHost));
            else
                HYT_PEER_TRY(cudaMemcpy2D(dev, pitch, host, hpitch, pitch, cols,
                                          cudaMemcpyHostToDevice));
        }
    }
cleanup:
    return rc;
}

int hyt_peer_mg_put(int ndev, const int *devices, int n, int nb, const double *a, int lda,
                    void *const *d_a)
{
    return mg_copy(ndev, devices, n, nb, d_a, (double *)a, lda, 0);
}

int hyt_peer_mg_get(int ndev, const int *devices, int n, int nb, void *const *d_a, double *a,
                    int lda)
{
    return mg_copy(ndev, devices, n, nb, d_a, a, lda, 1);
}

int hyt_peer_h2h_best(cudaStream_t stream, const double *a, double *d_a, size_t bytes, int reps,
                      int (*factor)(void *arg), void *arg, double *seconds)
{
    int rc = 0, registered = 0;
    double *h_out = NULL;
    if (!hyt_peer_is_pinned(a)) {
        HYT_PEER_TRY(cudaHostRegister((void *)a, bytes, cudaHostRegisterReadOnly));
        registered = 1;
    }
    HYT_PEER_TRY(cudaMallocHost((void **)&h_out, bytes));
    *seconds = 1e300;
    for (int r = 0; r < reps; r++) {
        HYT_PEER_TRY(cudaDeviceSynchronize());
        const double t0 = hyt_wtime();
        HYT_PEER_TRY(cudaMemcpyAsync(d_a, a, bytes, cudaMemcpyHostToDevice, stream));
        if ((rc = factor(arg)))
            goto cleanup;
        HYT_PEER_TRY(cudaMemcpyAsync(h_out, d_a, bytes, cudaMemcpyDeviceToHost, stream));
        HYT_PEER_TRY(cudaStreamSynchronize(stream));
        const double t = hyt_wtime() - t0;
        if (t < *seconds)
            *seconds = t;
    }

cleanup:
    if (h_out)
        HYT_PEER_CLEAN(cudaFreeHost(h_out));
    if (registered)
        HYT_PEER_CLEAN(cudaHostUnregister((void *)a));
    return rc;
}
