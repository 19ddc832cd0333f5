/*
 * The CUDA device backend: per GPU three non-blocking streams (compute, host-to-device,
 * device-to-host), one cuBLAS handle bound to the compute stream, pooled events.
 */
#include "rt_internal.h"

#include "hyt_cuda_check.h"

#include <stdlib.h>
#include <string.h>

typedef struct evpool {
    hyt_spin_t lock;
    cudaEvent_t *ev;
    int n, cap;
    unsigned flags;
} evpool_t;

typedef struct cuda_priv {
    cudaStream_t stream[HYT_NUM_STREAMS];
    cublasHandle_t blas, blas_panel;
    evpool_t plain, timed;
    cudaEvent_t ref;
    double ref_time;
} cuda_priv_t;

int hyt_cuda_error(int err, const char *call, const char *file, int line)
{
    return hyt_rt_error(HYT_ERR_DEVICE, "%s:%d: %s failed: %s (%s)", file, line, call,
                        cudaGetErrorName((cudaError_t)err),
                        cudaGetErrorString((cudaError_t)err));
}

int hyt_cublas_error(int status, const char *call, const char *file, int line)
{
    return hyt_rt_error(HYT_ERR_DEVICE, "%s:%d: %s failed: cuBLAS status %d (%s)", file, line,
                        call, status, cublasGetStatusString((cublasStatus_t)status));
}

int hyt_cuda_injected(const char *call, const char *file, int line)
{
    return hyt_rt_error(HYT_ERR_DEVICE, "%s:%d: %s failed: injected fault (debug.fault_device)",
                        file, line, call);
}

int hyt_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear: no driver or no device is not an error here */
        return 0;
    }
    return n;
}

void *hyt_cuda_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

void hyt_cuda_host_free(void *p) { cudaFreeHost(p); }

/* Peer access between every pair of the context's GPUs that allows it (copies of panels go
 * GPU to GPU over NVLink); pairs without it copy through the host, slower but correct. */
void hyt_cuda_enable_peers(hyt_device_t **devs, int n)
{
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            int can = 0;
            if (a == b || cudaDeviceCanAccessPeer(&can, devs[a]->ordinal, devs[b]->ordinal) ||
                !can)
                continue;
            if (cudaSetDevice(devs[a]->ordinal) == cudaSuccess)
                cudaDeviceEnablePeerAccess(devs[b]->ordinal, 0);
            cudaGetLastError(); /* already enabled is fine */
        }
}

static int ev_get(hyt_device_t *dev, evpool_t *pool, cudaEvent_t *out)
{
    cudaEvent_t e = NULL;
    hyt_spin_lock(&pool->lock);
    if (pool->n)
        e = pool->ev[--pool->n];
    hyt_spin_unlock(&pool->lock);
    if (!e)
        HYT_CUDA_TRY(dev, cudaEventCreateWithFlags(&e, pool->flags));
    *out = e;
    return HYT_SUCCESS;
}

static void ev_put(evpool_t *pool, cudaEvent_t e)
{
    hyt_spin_lock(&pool->lock);
    if (pool->n == pool->cap) {
        int cap = pool->cap ? 2 * pool->cap : 64;
        cudaEvent_t *a = realloc(pool->ev, (size_t)cap * sizeof *a);
        if (a) {
            pool->ev = a;
            pool->cap = cap;
        }
    }
    if (pool->n < pool->cap) {
        pool->ev[pool->n++] = e;
        e = NULL;
    }
    hyt_spin_unlock(&pool->lock);
    if (e)
        cudaEventDestroy(e);
}

static void ev_pool_free(evpool_t *pool)
{
    for (int i = 0; i < pool->n; i++)
        cudaEventDestroy(pool->ev[i]);
    free(pool->ev);
    pool->ev = NULL;
    pool->n = pool->cap = 0;
}

static int cuda_init(hyt_device_t *dev)
{
    struct cudaDeviceProp prop;
    cuda_priv_t *p = calloc(1, sizeof *p);
    if (!p)
        return hyt_rt_error(HYT_ERR_NOMEM, "out of memory");
    dev->priv = p;
    p->plain.flags = cudaEventDisableTiming;
    p->timed.flags = cudaEventDefault;
    HYT_CUDA_TRY(dev, cudaSetDevice(dev->ordinal));
    HYT_CUDA_TRY(dev, cudaGetDeviceProperties(&prop, dev->ordinal));
    snprintf(dev->name, sizeof dev->name, "gpu%d (%.64s)", dev->ordinal, prop.name);
    int lo, hi; /* the panel stream gets the highest priority: it is the critical path */
    HYT_CUDA_TRY(dev, cudaDeviceGetStreamPriorityRange(&lo, &hi));
    for (int s = 0; s < HYT_NUM_STREAMS; s++)
        HYT_CUDA_TRY(dev, cudaStreamCreateWithPriority(&p->stream[s], cudaStreamNonBlocking,
                                                       s == HYT_STREAM_PANEL ? hi : lo));
    HYT_CUBLAS_TRY(dev, cublasCreate(&p->blas));
    HYT_CUBLAS_TRY(dev, cublasSetStream(p->blas, p->stream[HYT_STREAM_COMPUTE]));
    HYT_CUBLAS_TRY(dev, cublasCreate(&p->blas_panel));
    HYT_CUBLAS_TRY(dev, cublasSetStream(p->blas_panel, p->stream[HYT_STREAM_PANEL]));
    HYT_CUDA_TRY(dev, cudaEventCreate(&p->ref));
    /* cuBLAS loads its kernels on first use (0.1 s): do it now, on a tiny problem, not in the
     * first task */
    double *w;
    const double one = 1.0, zero = 0.0;
    HYT_CUDA_TRY(dev, cudaMalloc((void **)&w, 4 * sizeof(double)));
    HYT_CUDA_TRY(dev, cudaMemset(w, 0, 4 * sizeof(double)));
    cublasStatus_t st = cublasDgemm(p->blas, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, w, 1, w + 1,
                                    1, &zero, w + 2, 1);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasDgemm(p->blas_panel, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, w, 1, w + 1, 1,
                         &zero, w + 2, 1);
    cudaError_t e = cudaDeviceSynchronize();
    cudaFree(w);
    if (st != CUBLAS_STATUS_SUCCESS)
        return hyt_cublas_error((int)st, "cublasDgemm (warm-up)", __FILE__, __LINE__);
    if (e != cudaSuccess)
        return hyt_cuda_error((int)e, "cudaDeviceSynchronize (warm-up)", __FILE__, __LINE__);
    return HYT_SUCCESS;
}

static void cuda_fini(hyt_device_t *dev)
{
    cuda_priv_t *p = dev->priv;
    cudaSetDevice(dev->ordinal);
    cudaDeviceSynchronize();
    ev_pool_free(&p->plain);
    ev_pool_free(&p->timed);
    if (p->ref)
        cudaEventDestroy(p->ref);
    if (p->blas)
        cublasDestroy(p->blas);
    if (p->blas_panel)
        cublasDestroy(p->blas_panel);
    for (int s = 0; s < HYT_NUM_STREAMS; s++)
        if (p->stream[s])
            cudaStreamDestroy(p->stream[s]);
    cudaGetLastError();
    free(p);
    dev->priv = NULL;
}

static int cuda_bind(hyt_device_t *dev)
{
    HYT_CUDA_TRY(dev, cudaSetDevice(dev->ordinal));
    return HYT_SUCCESS;
}

static int cuda_malloc(hyt_device_t *dev, void **ptr, size_t bytes)
{
    cudaError_t e;
    if (cudaSetDevice(dev->ordinal) != cudaSuccess ||
        (e = cudaMalloc(ptr, bytes ? bytes : 1)) != cudaSuccess) {
        cudaGetLastError();
        *ptr = NULL;
        return hyt_rt_error(HYT_ERR_DEVICE_MEMORY, "%s: cudaMalloc of %zu bytes failed "
                            "(%zu bytes free)", dev->name, bytes, dev->ops->mem_free(dev));
    }
    return HYT_SUCCESS;
}

static void cuda_free(hyt_device_t *dev, void *ptr)
{
    cudaSetDevice(dev->ordinal);
    cudaFree(ptr);
}

static size_t cuda_mem_free(hyt_device_t *dev)
{
    size_t fr = 0, total = 0;
    if (cudaSetDevice(dev->ordinal) != cudaSuccess || cudaMemGetInfo(&fr, &total) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return fr;
}

static void cuda_prepare(hyt_device_t *dev, hyt_devctx_t *dc)
{
    cuda_priv_t *p = dev->priv;
    dc->cuda_stream = p->stream[dc->stream];
    dc->cublas = dc->stream == HYT_STREAM_COMPUTE ? p->blas
                 : dc->stream == HYT_STREAM_PANEL ? p->blas_panel
                                                  : NULL;
}

static int cuda_begin(hyt_device_t *dev, hyt_task_t *t, int tracing)
{
    cuda_priv_t *p = dev->priv;
    if (!tracing)
        return HYT_SUCCESS;
    cudaEvent_t e;
    int rc = ev_get(dev, &p->timed, &e);
    if (rc)
        return rc;
    t->ev_start = e;
    HYT_CUDA_TRY(dev, cudaEventRecord(e, p->stream[t->stream]));
    return HYT_SUCCESS;
}

static int cuda_end(hyt_device_t *dev, hyt_task_t *t, int tracing)
{
    cuda_priv_t *p = dev->priv;
    cudaEvent_t e;
    int rc = ev_get(dev, tracing && t->ev_start ? &p->timed : &p->plain, &e);
    if (rc)
        return rc;
    t->event = e;
    HYT_CUDA_TRY(dev, cudaEventRecord(e, p->stream[t->stream]));
    return HYT_SUCCESS;
}

static int cuda_query(hyt_device_t *dev, hyt_task_t *t)
{
    (void)dev;
    cudaError_t e = cudaEventQuery((cudaEvent_t)t->event);
    if (e == cudaSuccess)
        return 1;
    if (e == cudaErrorNotReady)
        return 0;
    return hyt_cuda_error((int)e, "cudaEventQuery (asynchronous error of the task)", __FILE__,
                          __LINE__);
}

static void cuda_times(hyt_device_t *dev, hyt_task_t *t)
{
    cuda_priv_t *p = dev->priv;
    float a = 0, b = 0;
    if (!t->ev_start || cudaEventElapsedTime(&a, p->ref, (cudaEvent_t)t->ev_start) != cudaSuccess ||
        cudaEventElapsedTime(&b, p->ref, (cudaEvent_t)t->event) != cudaSuccess) {
        cudaGetLastError();
        t->t_start = t->t_end = hyt_trace_now(dev->ctx);
        return;
    }
    t->t_start = p->ref_time + a * 1e-3;
    t->t_end = p->ref_time + b * 1e-3;
}

static void cuda_release(hyt_device_t *dev, hyt_task_t *t)
{
    cuda_priv_t *p = dev->priv;
    if (t->ev_start) {
        ev_put(&p->timed, (cudaEvent_t)t->ev_start);
        if (t->event)
            ev_put(&p->timed, (cudaEvent_t)t->event);
    } else if (t->event) {
        ev_put(&p->plain, (cudaEvent_t)t->event);
    }
    t->ev_start = t->event = NULL;
}

/* device to device through unified addressing: also between two GPUs (peer access is enabled
 * between all the context's GPUs that allow it) */
static const enum cudaMemcpyKind kinds[3] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                             cudaMemcpyDefault};

static int cuda_memcpy(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes, int kind)
{
    HYT_CUDA_TRY(dc->dev, cudaMemcpyAsync(dst, src, bytes, kinds[kind],
                                          (cudaStream_t)dc->cuda_stream));
    return HYT_SUCCESS;
}

static int cuda_memcpy2d(const hyt_devctx_t *dc, void *dst, size_t dpitch, const void *src,
                         size_t spitch, size_t width, size_t height, int kind)
{
    HYT_CUDA_TRY(dc->dev, cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kinds[kind],
                                            (cudaStream_t)dc->cuda_stream));
    return HYT_SUCCESS;
}

static int cuda_memset(const hyt_devctx_t *dc, void *dst, int value, size_t bytes)
{
    HYT_CUDA_TRY(dc->dev, cudaMemsetAsync(dst, value, bytes, (cudaStream_t)dc->cuda_stream));
    return HYT_SUCCESS;
}

static int cuda_sync(hyt_device_t *dev)
{
    if (cudaSetDevice(dev->ordinal) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        cudaError_t e = cudaGetLastError();
        return hyt_cuda_error((int)e, "cudaDeviceSynchronize", __FILE__, __LINE__);
    }
    return HYT_SUCCESS;
}

static void cuda_trace_sync(hyt_device_t *dev)
{
    cuda_priv_t *p = dev->priv;
    if (cudaSetDevice(dev->ordinal) == cudaSuccess &&
        cudaEventRecord(p->ref, p->stream[HYT_STREAM_COMPUTE]) == cudaSuccess &&
        cudaEventSynchronize(p->ref) == cudaSuccess) {
        p->ref_time = hyt_trace_now(dev->ctx);
        return;
    }
    cudaGetLastError();
}

const hyt_devops_t hyt_devops_cuda = {
    .name = "cuda",
    .init = cuda_init,
    .fini = cuda_fini,
    .bind = cuda_bind,
    .malloc = cuda_malloc,
    .free = cuda_free,
    .mem_free = cuda_mem_free,
    .prepare = cuda_prepare,
    .begin = cuda_begin,
    .end = cuda_end,
    .query = cuda_query,
    .times = cuda_times,
    .release = cuda_release,
    .memcpy = cuda_memcpy,
    .memcpy2d = cuda_memcpy2d,
    .memset = cuda_memset,
    .sync = cuda_sync,
    .trace_sync = cuda_trace_sync,
};
