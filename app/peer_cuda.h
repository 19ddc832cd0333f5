/*
 * What the cuSOLVER peers of the benchmarks share (peer_cusolver.c: the LU, peer_chol.c: the
 * Cholesky): the check of every CUDA / cuSOLVER / cuBLAS call (HYT_PEER_TRY, HYT_PEER_CLEAN),
 * the set-up of a one-GPU cusolverDn run (hyt_peer_dn_open / close), and the pieces of a
 * cusolverMg run on a 1 x ndev grid, column-major mapping: the device list's checks,
 * the free-memory check, peer access on and back off, a synchronization of every device, and
 * the copies of a host matrix to and from the 1-D column block-cyclic layout (column block j of
 * nb columns on devices[j % ndev] as local tile j / ndev; every local tile nb full columns of n
 * doubles, leading dimension n, the last partial block padded; peer_cusolver.c draws it).
 *
 * Internal to the hytile command and built with CUDA only (it names CUDA types): include it
 * inside #if HYT_HAVE_CUDA.
 */
#ifndef HYT_PEER_CUDA_H
#define HYT_PEER_CUDA_H

#include <cublas_api.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <stddef.h>
#include <stdint.h>

/* A failed call's status as text: CUDA's name and description with the current device
 * (hyt_peer_cuda_text), or cuSOLVER's number and name (hyt_peer_solver_text). */
void hyt_peer_cuda_text(int status, char *buf, size_t len);
void hyt_peer_solver_text(int status, char *buf, size_t len);
void hyt_peer_blas_text(int status, char *buf, size_t len);

/* Records "file:line: call failed: <status as text>" and returns HYT_ERR_DEVICE. */
int hyt_peer_failed(void (*text)(int, char *, size_t), int status, const char *call,
                    const char *file, int line);

/* The checks of every call, whatever its library: the type of the call's status picks its
 * success value and its text (a status of another type does not compile).  The controlling
 * expression of _Generic is not evaluated, so the call runs once. */
#define HYT_PEER_OK(call) _Generic((call), cudaError_t: cudaSuccess,                          \
                                           cusolverStatus_t: CUSOLVER_STATUS_SUCCESS,         \
                                           cublasStatus_t: CUBLAS_STATUS_SUCCESS)
#define HYT_PEER_TEXT(call) _Generic((call), cudaError_t: hyt_peer_cuda_text,                 \
                                             cusolverStatus_t: hyt_peer_solver_text,          \
                                             cublasStatus_t: hyt_peer_blas_text)

/* Check one call; on failure record the error in rc and jump to the function's cleanup. */
#define HYT_PEER_TRY(call)                                                                     \
    do {                                                                                       \
        const int peer_s = (int)(call);                                                        \
        if (peer_s != (int)HYT_PEER_OK(call)) {                                                \
            rc = hyt_peer_failed(HYT_PEER_TEXT(call), peer_s, #call, __FILE__, __LINE__);      \
            goto cleanup;                                                                      \
        }                                                                                      \
    } while (0)

/* Inside cleanup: check the call, keep the first error (and its message), carry on freeing. */
#define HYT_PEER_CLEAN(call)                                                                   \
    do {                                                                                       \
        const int peer_s = (int)(call);                                                        \
        if (peer_s != (int)HYT_PEER_OK(call) && rc == 0)                                       \
            rc = hyt_peer_failed(HYT_PEER_TEXT(call), peer_s, #call, __FILE__, __LINE__);      \
    } while (0)

/* The set-up every one-GPU cusolverDn peer shares.  hyt_peer_dn_open: the caller's current
 * device saved, `device` made current, a non-blocking stream and a cusolverDn handle on it,
 * d_info, and with elems > 0 d_a of elems doubles, after a check that those and `extra` more
 * bytes (the caller's own buffers; `what` names all of them in the message) are free; func
 * names the peer in messages.  hyt_peer_dn_close frees what open made (after a failed open
 * too), makes the caller's device current again (hyt_peer_leave) and returns rc, or its own
 * first error when rc is 0. */
typedef struct hyt_peer_dn {
    int prev; /* the caller's current device (-1: not read) */
    cudaStream_t stream;
    cusolverDnHandle_t handle;
    double *d_a;
    int *d_info;
} hyt_peer_dn_t;
int hyt_peer_dn_open(hyt_peer_dn_t *p, const char *func, int device, int n, size_t elems,
                     size_t extra, const char *what);
int hyt_peer_dn_close(hyt_peer_dn_t *p, int rc);
/* HYT_ERR_DEVICE_MEMORY unless `need` bytes are free on `device` (the current device); the
 * message names func, n and ndev, and what the bytes are for. */
int hyt_peer_check_memory(const char *func, int device, size_t need, int n, int ndev,
                          const char *what);

/* HYT_ERR_INVALID unless devices holds ndev >= 1 distinct ordinals of visible CUDA devices. */
int hyt_peer_check_devices(const char *func, int ndev, const int *devices);

/* cudaDeviceSynchronize on every device of the list (the last one stays current). */
int hyt_peer_sync_all(int ndev, const int *devices);

/* Peer access between every pair of the devices.  on: ndev * ndev flags, zero on entry;
 * on[i * ndev + j] is set where this call enabled access from devices[i] to devices[j] (access
 * already on stays on and is not recorded). */
int hyt_peer_access_enable(int ndev, const int *devices, unsigned char *on);

/* Disables the access that hyt_peer_access_enable recorded in on (NULL: nothing), so that
 * hytile's own runs do not inherit it.  rc: the caller's first error; returns it, or this
 * call's first error when rc is 0. */
int hyt_peer_access_restore(int ndev, const int *devices, const unsigned char *on, int rc);

/* cudaFree of every non-NULL table[p] (NULL table: nothing), on devices[p] made current; rc as
 * in hyt_peer_access_restore. */
int hyt_peer_free_table(int ndev, const int *devices, void *const *table, int rc);

/* The end of a peer's entry point: the calling thread's current device back to current (when
 * >= 0), and on a failure (rc != 0) CUDA's last-error state read back, so that it does not
 * surface in hytile's next cudaGetLastError() check.  Returns rc, or this call's error. */
int hyt_peer_leave(int current, int rc);

/* Tiles of the block-cyclic distribution (nblk column blocks) that device p holds: at least
 * one, so that every device hands cusolverMg a valid pointer even when it owns no column of a
 * small matrix. */
int64_t hyt_peer_local_tiles(int64_t nblk, int ndev, int p);

/* The host matrix a (n x n, leading dimension lda) to the local tiles d_a[p] of the devices
 * (hyt_peer_mg_put), or those tiles back to a (hyt_peer_mg_get), block nb; synchronous
 * copies, the padding columns never copied. */
int hyt_peer_mg_put(int ndev, const int *devices, int n, int nb, const double *a, int lda,
                    void *const *d_a);
int hyt_peer_mg_get(int ndev, const int *devices, int n, int nb, void *const *d_a, double *a,
                    int lda);

/* The clock of a one-GPU peer host to host: best of reps runs of the copy of the host matrix a
 * (bytes; page-locked for the call unless it is already, hyt_peer_pin) into d_a on stream, then
 * factor(arg) (its calls on stream), then the copy of d_a back into a page-locked buffer and a
 * synchronization of stream: *seconds.  Returns 0 or an HYT_ERR_* code as above. */
int hyt_peer_h2h_best(cudaStream_t stream, const double *a, double *d_a, size_t bytes, int reps,
                      int (*factor)(void *arg), void *arg, double *seconds);

#endif /* HYT_PEER_CUDA_H */
