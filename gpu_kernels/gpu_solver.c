/*
 * cuSOLVER on a device: one handle per device and context (the runtime's handle slot), made on
 * first use (creating one costs milliseconds), shared by the LU's cuSOLVER panels
 * (drivers/lu/gpu_dgetrf_panel.c) and hyt_gpu_dpotrf (the device Cholesky's last trailing
 * matrix, drivers/chol/pdpotrf_gpu.c).  Every call comes from a device task body; the bodies of
 * a device run on its one thread, so the handle is never used by two threads at once, and each
 * call sets its stream first.
 *
 * hyt_cuda_dpotrf's workspace is the handle's too, one per stream (HYT_STREAM_*): calls on one
 * stream are ordered, so they can share it; it grows to the largest call's and lives as long as
 * the context.  Growing waits for the stream (no call on it still uses the old one) and frees
 * the old one: a first call's cost, not a later one's.
 */
#include "hyt_gpu_kernels.h"

#include "hyt_cuda_check.h"

#include <cusolverDn.h>
#include <stdlib.h>

typedef struct solver {
    cusolverDnHandle_t h;
    double *work[HYT_NUM_STREAMS]; /* hyt_cuda_dpotrf's workspace per stream */
    int lwork[HYT_NUM_STREAMS];    /* its doubles */
} solver_t;

static int create(hyt_device_t *dev, cusolverDnHandle_t *h)
{
    HYT_CUSOLVER_TRY(dev, cusolverDnCreate(h));
    return HYT_SUCCESS;
}

static int solver_create(hyt_device_t *dev, void **out)
{
    solver_t *s = calloc(1, sizeof *s);
    if (!s)
        return hyt_error(HYT_ERR_NOMEM, "cuSOLVER handle: out of memory");
    int rc = create(dev, &s->h);
    if (rc)
        free(s);
    else
        *out = s;
    return rc;
}

static void solver_destroy(hyt_device_t *dev, void *p)
{
    solver_t *s = p;
    for (int i = 0; i < HYT_NUM_STREAMS; i++)
        hyt_device_free(dev, s->work[i]);
    cusolverDnDestroy(s->h);
    free(s);
}

static const hyt_device_handle_class_t solver_class = {
    .name = "cuSOLVER", .create = solver_create, .destroy = solver_destroy};

int hyt_cuda_solver(hyt_device_t *dev, void **handle)
{
    solver_t *s;
    int rc = hyt_device_handle(dev, &solver_class, (void **)&s);
    if (!rc)
        *handle = s->h;
    return rc;
}

int hyt_cuda_dpotrf(hyt_device_t *dev, void *stream, int sidx, char uplo, int n, double *A,
                    int lda, int *info)
{
    if (sidx < 0 || sidx >= HYT_NUM_STREAMS)
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dpotrf: stream index %d", sidx);
    if (n == 0) { /* cuSOLVER's quick return may leave *info alone */
        HYT_CUDA_TRY(dev, cudaMemsetAsync(info, 0, sizeof *info, (cudaStream_t)stream));
        return HYT_SUCCESS;
    }
    solver_t *s;
    int rc = hyt_device_handle(dev, &solver_class, (void **)&s);
    if (rc)
        return rc;
    const cublasFillMode_t fill = uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    int lw = 0;
    HYT_CUSOLVER_TRY(dev, cusolverDnSetStream(s->h, (cudaStream_t)stream));
    HYT_CUSOLVER_TRY(dev, cusolverDnDpotrf_bufferSize(s->h, fill, n, A, lda, &lw));
    if (lw < 1)
        lw = 1;
    if (lw > s->lwork[sidx]) {
        if (s->work[sidx])
            HYT_CUDA_TRY(dev, cudaStreamSynchronize((cudaStream_t)stream));
        hyt_device_free(dev, s->work[sidx]);
        s->work[sidx] = NULL;
        s->lwork[sidx] = 0;
        rc = hyt_device_malloc(dev, (void **)&s->work[sidx], (size_t)lw * sizeof(double));
        if (rc)
            return rc;
        s->lwork[sidx] = lw;
    }
    HYT_CUSOLVER_TRY(dev, cusolverDnDpotrf(s->h, fill, n, A, lda, s->work[sidx], lw, info));
    return HYT_SUCCESS;
}
