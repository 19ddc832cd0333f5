/*
 * The CUDA device backend: per GPU four non-blocking streams (compute, host-to-device,
 * device-to-host, panel), a cuBLAS handle bound to the compute stream and one to the panel
 * stream, pooled events.
 *
 * gpu.panel_sms = N > 0 bounds the panel stream to N SMs: it lives in a green context (driver
 * API) of N SMs, the other streams in the primary context, on every SM.  A panel's kernels are
 * latency-bound and come in many small launches; on every SM their CTAs take the SMs that a
 * trailing GEMM's CTAs free.  The bound keeps them on N SMs; the GEMM still has them when the
 * panel does not (an exclusive partition for the panel lost, the GEMM needs every SM most of
 * the time).  With cuSOLVER's panels the bound paid; hytile's native panel costs the GEMMs no
 * more on every SM and runs faster there, so the default is no bound (measured on one H200:
 * docs/performance.md).  An event must be recorded on a stream of its own context, so the
 * panel's stream has its own event pools.
 */
#include "rt_internal.h"

#include "hyt_cuda_check.h"

#include <cuda.h>

/* The driver API's functions, looked up through the runtime (no link to libcuda: a machine
 * without the driver still loads the library): the primary contexts' (every CUDA device needs
 * them) and the green contexts' (gpu.panel_sms; a driver without them runs the panel on every
 * SM). */
#define HYT_DRV_CORE(X)                                                                         \
    X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain)            \
    X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxGetState) X(cuCtxPushCurrent)              \
    X(cuCtxPopCurrent)
#define HYT_DRV_GREEN(X)                                                                        \
    X(cuDeviceGetDevResource) X(cuDevSmResourceSplitByCount) X(cuDevResourceGenerateDesc)       \
    X(cuGreenCtxCreate) X(cuGreenCtxDestroy) X(cuCtxFromGreenCtx) X(cuGreenCtxStreamCreate)     \
    X(cuEventCreate)
#define HYT_DRV_PTR(f) __typeof__(f) *f;
static struct { HYT_DRV_CORE(HYT_DRV_PTR) HYT_DRV_GREEN(HYT_DRV_PTR) int core, green; } drv;
#undef HYT_DRV_PTR
static pthread_mutex_t drv_lock = PTHREAD_MUTEX_INITIALIZER;

/* 0 when every function of the set (green: both sets) was found, else 1 with the message set. */
static int drv_load(int green)
{
    int rc = 0;
    enum cudaDriverEntryPointQueryResult q;
    pthread_mutex_lock(&drv_lock);
#define HYT_DRV_GET(f)                                                                          \
    if (!rc && (cudaGetDriverEntryPointByVersion(#f, (void **)&drv.f, CUDA_VERSION,             \
                                                 cudaEnableDefault, &q) != cudaSuccess ||       \
                !drv.f)) {                                                                      \
        cudaGetLastError();                                                                     \
        hyt_rt_error(HYT_ERR_NOT_AVAILABLE, "the CUDA driver has no %s", #f);                   \
        rc = 1;                                                                                 \
    }
    if (!drv.core) {
        HYT_DRV_CORE(HYT_DRV_GET)
        drv.core = !rc;
    }
    if (green && !rc && !drv.green) {
        HYT_DRV_GREEN(HYT_DRV_GET)
        drv.green = !rc;
    }
#undef HYT_DRV_GET
    pthread_mutex_unlock(&drv_lock);
    return rc;
}

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
    cublasHandle_t blas, blas_panel, blas_la;
    evpool_t plain[2], timed[2]; /* 0: the primary context's streams, 1: the panel stream's */
    CUgreenCtx green;            /* the panel stream's green context (gpu.panel_sms), or NULL */
    CUcontext gctx[2];           /* per pool, the context to create events in (NULL: primary) */
    CUcontext primary;           /* the device's primary context, retained */
    cudaEvent_t ref;
    double ref_time;
} cuda_priv_t;

/* The critical path's streams first. */
/* Stream priorities: the panel and lookahead streams highest (the critical path); the copy
 * streams between them and the compute stream, so that the small kernels of a copy (a
 * transposition after a transfer) get SMs as soon as a large GEMM's blocks drain instead of
 * queueing behind it, and the copies keep their pace beside the factorization. */
static int prio_of(int stream, int lo, int hi)
{
    if (stream == HYT_STREAM_PANEL || stream == HYT_STREAM_LOOKAHEAD)
        return hi;
    return stream == HYT_STREAM_COMPUTE ? lo : (lo + hi) / 2;
}

/* The partition of a stream's events. */
static int part_of(const cuda_priv_t *p, int stream)
{
    return p->green && stream == HYT_STREAM_PANEL;
}

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

/* Page-locked host memory, allocated in dev's primary context (usable by every context). */
void *hyt_cuda_host_alloc(hyt_device_t *dev, size_t bytes)
{
    void *p = NULL;
    if (hyt_cuda_enter(dev))
        return NULL;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        p = NULL;
    }
    hyt_cuda_leave(dev);
    return p;
}

/* A page-locked block (hyt_cuda_host_alloc) freed in the primary context of GPU `ordinal`,
 * where it was allocated, whatever context the free came through (none: hyt_host_free(NULL,
 * ...), perhaps after the context ended): that context is pushed for the call and popped after,
 * so the calling thread's current context stays as it was (the runtime's cudaFreeHost on a
 * thread without one would make a primary context current there, and create it on a GPU hytile
 * never used).  A primary context no longer active (the program reset the GPU) took its blocks
 * with it: nothing to free.  A failed free leaves no error for the program's next
 * cudaGetLastError. */
void hyt_cuda_host_free_ordinal(int ordinal, void *p)
{
    CUdevice cd;
    unsigned flags;
    int active = 0;
    CUcontext pc = NULL, popped;
    if (drv_load(0) || drv.cuDeviceGet(&cd, ordinal) != CUDA_SUCCESS ||
        drv.cuDevicePrimaryCtxGetState(cd, &flags, &active) != CUDA_SUCCESS || !active ||
        drv.cuDevicePrimaryCtxRetain(&pc, cd) != CUDA_SUCCESS)
        return;
    if (drv.cuCtxPushCurrent(pc) == CUDA_SUCCESS) {
        if (cudaFreeHost(p) != cudaSuccess)
            cudaGetLastError();
        drv.cuCtxPopCurrent(&popped);
    }
    drv.cuDevicePrimaryCtxRelease(cd);
}

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
            if (hyt_cuda_enter(devs[a]))
                continue;
            cudaDeviceEnablePeerAccess(devs[b]->ordinal, 0);
            cudaGetLastError(); /* already enabled is fine */
            hyt_cuda_leave(devs[a]);
        }
}

static int drv_error(CUresult r, const char *call)
{
    const char *name = NULL, *text = NULL;
    if (drv.core) {
        drv.cuGetErrorName(r, &name);
        drv.cuGetErrorString(r, &text);
    }
    return hyt_rt_error(HYT_ERR_DEVICE, "%s failed: %s (%s)", call, name ? name : "?",
                        text ? text : "?");
}

/* The device's calls run in its primary context, pushed on the calling thread for them and
 * popped after (hyt_cuda_leave).  The library calls CUDA on the program's threads (context
 * creation and destruction, allocations, the ABI's calls): the program gets its thread's
 * current context back as it was, its own or none, instead of hytile's last GPU.  Only the
 * device's own worker thread binds for good (cuda_bind). */
int hyt_cuda_enter(hyt_device_t *dev)
{
    cuda_priv_t *p = dev->priv;
    CUresult r = p && p->primary ? drv.cuCtxPushCurrent(p->primary) : CUDA_ERROR_INVALID_CONTEXT;
    return r == CUDA_SUCCESS ? HYT_SUCCESS : drv_error(r, "cuCtxPushCurrent (primary context)");
}

void hyt_cuda_leave(hyt_device_t *dev)
{
    (void)dev;
    CUcontext c;
    drv.cuCtxPopCurrent(&c);
}

/* An event from the pool, or a new one created in gctx (NULL: the current context). */
static int ev_get(hyt_device_t *dev, evpool_t *pool, CUcontext gctx, cudaEvent_t *out)
{
    cudaEvent_t e = NULL;
    hyt_spin_lock(&pool->lock);
    if (pool->n)
        e = pool->ev[--pool->n];
    hyt_spin_unlock(&pool->lock);
    if (!e && !gctx)
        HYT_CUDA_TRY(dev, cudaEventCreateWithFlags(&e, pool->flags));
    if (!e) {
        CUresult r = drv.cuCtxPushCurrent(gctx);
        CUcontext old;
        if (r == CUDA_SUCCESS) {
            r = drv.cuEventCreate((CUevent *)&e, pool->flags & cudaEventDisableTiming
                                                 ? CU_EVENT_DISABLE_TIMING
                                                 : CU_EVENT_DEFAULT);
            drv.cuCtxPopCurrent(&old);
        }
        if (r != CUDA_SUCCESS)
            return drv_error(r, "cuEventCreate (in a green context)");
    }
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

/* gpu.panel_sms: n SMs (n < 0: auto, half the device's, rounded down to its co-scheduling
 * alignment) in a green context for the panel stream.  Returns 0 (p->green NULL when auto finds
 * too few SMs to bound), or 1 where the driver cannot (the caller warns unless auto and falls
 * back to all SMs), the message set. */
static int green_setup(hyt_device_t *dev, cuda_priv_t *p, int n, int prio)
{
    CUdevice cd;
    CUdevResource all, part, rest;
    CUdevResourceDesc desc;
    unsigned ngroups = 1;
    if (drv_load(1))
        return 1;
    CUresult r = drv.cuDeviceGet(&cd, dev->ordinal);
    if (r == CUDA_SUCCESS)
        r = drv.cuDeviceGetDevResource(cd, &all, CU_DEV_RESOURCE_TYPE_SM);
    if (r != CUDA_SUCCESS)
        return drv_error(r, "cuDeviceGetDevResource (SMs, for gpu.panel_sms)"), 1;
    if (n < 0) {
        unsigned align = all.sm.smCoscheduledAlignment ? all.sm.smCoscheduledAlignment : 1;
        n = (int)(all.sm.smCount / 2 / align * align);
        if (n < (int)all.sm.minSmPartitionSize)
            return 0;
    }
    if ((unsigned)n >= all.sm.smCount)
        return hyt_rt_error(HYT_ERR_INVALID, "gpu.panel_sms = %d but %s has %u SMs", n,
                            dev->name, all.sm.smCount), 1;
    /* the panel's n SMs (rounded up to the device's granularity); the rest is not used: the
     * other streams stay in the primary context */
    r = drv.cuDevSmResourceSplitByCount(&part, &ngroups, &all, &rest, 0, (unsigned)n);
    if (r != CUDA_SUCCESS || ngroups != 1)
        return drv_error(r, "cuDevSmResourceSplitByCount (gpu.panel_sms)"), 1;
    r = drv.cuDevResourceGenerateDesc(&desc, &part, 1);
    if (r == CUDA_SUCCESS)
        r = drv.cuGreenCtxCreate(&p->green, desc, cd, CU_GREEN_CTX_DEFAULT_STREAM);
    if (r == CUDA_SUCCESS)
        r = drv.cuCtxFromGreenCtx(&p->gctx[1], p->green);
    if (r != CUDA_SUCCESS)
        return drv_error(r, "cuGreenCtxCreate (gpu.panel_sms)"), 1;
    r = drv.cuGreenCtxStreamCreate((CUstream *)&p->stream[HYT_STREAM_PANEL], p->green,
                                   CU_STREAM_NON_BLOCKING, prio);
    if (r != CUDA_SUCCESS)
        return drv_error(r, "cuGreenCtxStreamCreate (gpu.panel_sms)"), 1;
    return 0;
}

/* Destroys the streams, the event pools and the green context (also after a partial setup). */
static void streams_free(cuda_priv_t *p)
{
    for (int s = 0; s < HYT_NUM_STREAMS; s++) {
        if (p->stream[s])
            cudaStreamDestroy(p->stream[s]);
        p->stream[s] = NULL;
    }
    for (int g = 0; g < 2; g++) {
        ev_pool_free(&p->plain[g]);
        ev_pool_free(&p->timed[g]);
    }
    if (p->green)
        drv.cuGreenCtxDestroy(p->green);
    p->green = NULL;
    p->gctx[1] = NULL;
}

/* cuda_init's work, in the device's primary context. */
static int init_in_primary(hyt_device_t *dev, cuda_priv_t *p)
{
    struct cudaDeviceProp prop;
    HYT_CUDA_TRY(dev, cudaGetDeviceProperties(&prop, dev->ordinal));
    snprintf(dev->name, sizeof dev->name, "gpu%d (%.64s)", dev->ordinal, prop.name);
    int lo, hi; /* the panel stream gets the highest priority: it is the critical path */
    HYT_CUDA_TRY(dev, cudaDeviceGetStreamPriorityRange(&lo, &hi));
    int sms = (int)hyt_config_get_int(dev->ctx->cfg, "gpu.panel_sms"); /* -1: auto */
    if (sms && green_setup(dev, p, sms, prio_of(HYT_STREAM_PANEL, lo, hi))) {
        if (sms > 0)
            hyt_rt_warn("%s: the panel stream not bounded to %d SMs (gpu.panel_sms): %s; it "
                        "uses all SMs", dev->name, sms, hyt_last_error());
        streams_free(p);
    }
    for (int s = 0; s < HYT_NUM_STREAMS; s++)
        if (!p->stream[s])
            HYT_CUDA_TRY(dev, cudaStreamCreateWithPriority(&p->stream[s], cudaStreamNonBlocking,
                                                           prio_of(s, lo, hi)));
    HYT_CUBLAS_TRY(dev, cublasCreate(&p->blas));
    HYT_CUBLAS_TRY(dev, cublasSetStream(p->blas, p->stream[HYT_STREAM_COMPUTE]));
    HYT_CUBLAS_TRY(dev, cublasCreate(&p->blas_panel));
    HYT_CUBLAS_TRY(dev, cublasSetStream(p->blas_panel, p->stream[HYT_STREAM_PANEL]));
    HYT_CUBLAS_TRY(dev, cublasCreate(&p->blas_la));
    HYT_CUBLAS_TRY(dev, cublasSetStream(p->blas_la, p->stream[HYT_STREAM_LOOKAHEAD]));
    int rc = ev_get(dev, &p->timed[0], p->gctx[0], &p->ref);
    if (rc)
        return rc;
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

static int cuda_init(hyt_device_t *dev)
{
    cuda_priv_t *p = calloc(1, sizeof *p);
    if (!p)
        return hyt_rt_error(HYT_ERR_NOMEM, "out of memory");
    dev->priv = p;
    for (int g = 0; g < 2; g++) {
        p->plain[g].flags = cudaEventDisableTiming;
        p->timed[g].flags = cudaEventDefault;
    }
    if (drv_load(0))
        return HYT_ERR_NOT_AVAILABLE;
    /* the primary context, before any green one: the runtime's, which keeps it until
     * cudaDeviceReset (so releasing hytile's reference never destroys it), then retained for
     * its handle */
    HYT_CUDA_TRY(dev, cudaInitDevice(dev->ordinal, 0, 0));
    CUdevice cd;
    CUresult r = drv.cuDeviceGet(&cd, dev->ordinal);
    if (r == CUDA_SUCCESS)
        r = drv.cuDevicePrimaryCtxRetain(&p->primary, cd);
    if (r != CUDA_SUCCESS) {
        p->primary = NULL;
        return drv_error(r, "cuDevicePrimaryCtxRetain");
    }
    int rc = hyt_cuda_enter(dev);
    if (rc)
        return rc;
    rc = init_in_primary(dev, p);
    hyt_cuda_leave(dev);
    return rc;
}

static void cuda_fini(hyt_device_t *dev)
{
    cuda_priv_t *p = dev->priv;
    const int in = hyt_cuda_enter(dev) == HYT_SUCCESS;
    cudaDeviceSynchronize();
    if (p->ref)
        cudaEventDestroy(p->ref);
    if (p->blas)
        cublasDestroy(p->blas);
    if (p->blas_panel)
        cublasDestroy(p->blas_panel);
    if (p->blas_la)
        cublasDestroy(p->blas_la);
    streams_free(p); /* streams, events, the green context */
    cudaGetLastError();
    if (in)
        hyt_cuda_leave(dev);
    if (p->primary) {
        CUdevice cd;
        if (drv.cuDeviceGet(&cd, dev->ordinal) == CUDA_SUCCESS)
            drv.cuDevicePrimaryCtxRelease(cd);
    }
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
    *ptr = NULL;
    int rc = hyt_cuda_enter(dev);
    if (rc)
        return rc;
    cudaError_t e = cudaMalloc(ptr, bytes ? bytes : 1);
    hyt_cuda_leave(dev);
    if (e != cudaSuccess) {
        cudaGetLastError();
        *ptr = NULL;
        return hyt_rt_error(HYT_ERR_DEVICE_MEMORY, "%s: cudaMalloc of %zu bytes failed "
                            "(%zu bytes free)", dev->name, bytes, dev->ops->mem_free(dev));
    }
    return HYT_SUCCESS;
}

static void cuda_free(hyt_device_t *dev, void *ptr)
{
    if (hyt_cuda_enter(dev))
        return;
    cudaFree(ptr);
    hyt_cuda_leave(dev);
}

static size_t cuda_mem_free(hyt_device_t *dev)
{
    size_t fr = 0, total = 0;
    if (hyt_cuda_enter(dev))
        return 0;
    if (cudaMemGetInfo(&fr, &total) != cudaSuccess) {
        cudaGetLastError();
        fr = 0;
    }
    hyt_cuda_leave(dev);
    return fr;
}

static void cuda_prepare(hyt_device_t *dev, hyt_devctx_t *dc)
{
    cuda_priv_t *p = dev->priv;
    dc->cuda_stream = p->stream[dc->stream];
    dc->cublas = dc->stream == HYT_STREAM_COMPUTE ? p->blas
                 : dc->stream == HYT_STREAM_PANEL ? p->blas_panel
                 : dc->stream == HYT_STREAM_LOOKAHEAD ? p->blas_la
                                                      : NULL;
}

static int cuda_begin(hyt_device_t *dev, hyt_task_t *t, int tracing)
{
    cuda_priv_t *p = dev->priv;
    if (!tracing)
        return HYT_SUCCESS;
    cudaEvent_t e;
    int g = part_of(p, t->stream);
    int rc = ev_get(dev, &p->timed[g], p->gctx[g], &e);
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
    int g = part_of(p, t->stream);
    int rc = ev_get(dev, tracing && t->ev_start ? &p->timed[g] : &p->plain[g], p->gctx[g], &e);
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
    int g = part_of(p, t->stream);
    if (t->ev_start) {
        ev_put(&p->timed[g], (cudaEvent_t)t->ev_start);
        if (t->event)
            ev_put(&p->timed[g], (cudaEvent_t)t->event);
    } else if (t->event) {
        ev_put(&p->plain[g], (cudaEvent_t)t->event);
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
    int rc = hyt_cuda_enter(dev);
    if (rc)
        return rc;
    if (cudaDeviceSynchronize() != cudaSuccess) {
        cudaError_t e = cudaGetLastError();
        rc = hyt_cuda_error((int)e, "cudaDeviceSynchronize", __FILE__, __LINE__);
    }
    hyt_cuda_leave(dev);
    return rc;
}

static void cuda_trace_sync(hyt_device_t *dev)
{
    cuda_priv_t *p = dev->priv;
    if (hyt_cuda_enter(dev))
        return;
    if (cudaEventRecord(p->ref, p->stream[HYT_STREAM_COMPUTE]) == cudaSuccess &&
        cudaEventSynchronize(p->ref) == cudaSuccess)
        p->ref_time = hyt_trace_now(dev->ctx);
    else
        cudaGetLastError();
    hyt_cuda_leave(dev);
}

const hyt_devops_t hyt_devops_cuda = {
    .name = "cuda",
    .init = cuda_init,
    .fini = cuda_fini,
    .bind = cuda_bind,
    .enter = hyt_cuda_enter,
    .leave = hyt_cuda_leave,
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
