/*
 * The host device backend: "device memory" is host memory, kernels are the host reference
 * versions in gpu_kernels/, run by the device worker thread when the task is submitted.  It lets
 * CI, which has no GPU, run the whole multi-device algorithm: ownership, copies as tasks,
 * column shifts, lookahead.
 */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int host_init(hyt_device_t *dev)
{
    snprintf(dev->name, sizeof dev->name, "host%d", dev->ordinal);
    dev->priv = malloc(1); /* nothing to keep; non-NULL marks "initialised" */
    return dev->priv ? HYT_SUCCESS : hyt_rt_error(HYT_ERR_NOMEM, "out of memory");
}

static void host_fini(hyt_device_t *dev)
{
    free(dev->priv);
    dev->priv = NULL;
}

static int host_bind(hyt_device_t *dev)
{
    (void)dev;
    return HYT_SUCCESS;
}

static void host_leave(hyt_device_t *dev) { (void)dev; }

static int host_malloc(hyt_device_t *dev, void **p, size_t bytes)
{
    *p = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (!*p)
        return hyt_rt_error(HYT_ERR_DEVICE_MEMORY, "%s: out of memory allocating %zu bytes",
                            dev->name, bytes);
    return HYT_SUCCESS;
}

static void host_free(hyt_device_t *dev, void *p)
{
    (void)dev;
    free(p);
}

static size_t host_mem_free(hyt_device_t *dev)
{
    (void)dev;
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (size_t)pages * (size_t)size : (size_t)1 << 32;
}

static void host_prepare(hyt_device_t *dev, hyt_devctx_t *dc)
{
    (void)dev;
    dc->cuda_stream = NULL;
    dc->cublas = NULL;
}

static int host_begin(hyt_device_t *dev, hyt_task_t *t, int tracing)
{
    if (tracing)
        t->t_start = hyt_trace_now(dev->ctx);
    return HYT_SUCCESS;
}

static int host_end(hyt_device_t *dev, hyt_task_t *t, int tracing)
{
    if (tracing)
        t->t_end = hyt_trace_now(dev->ctx);
    return HYT_SUCCESS;
}

static int host_query(hyt_device_t *dev, hyt_task_t *t)
{
    (void)dev;
    (void)t;
    return 1; /* the body ran synchronously */
}

static void host_times(hyt_device_t *dev, hyt_task_t *t)
{
    (void)dev;
    (void)t;
}

static void host_release(hyt_device_t *dev, hyt_task_t *t)
{
    (void)dev;
    (void)t;
}

static int host_memcpy(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes, int kind)
{
    (void)dc;
    (void)kind;
    memmove(dst, src, bytes);
    return HYT_SUCCESS;
}

static int host_memcpy2d(const hyt_devctx_t *dc, void *dst, size_t dpitch, const void *src,
                         size_t spitch, size_t width, size_t height, int kind)
{
    (void)dc;
    (void)kind;
    for (size_t r = 0; r < height; r++)
        memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return HYT_SUCCESS;
}

static int host_memset(const hyt_devctx_t *dc, void *dst, int value, size_t bytes)
{
    (void)dc;
    memset(dst, value, bytes);
    return HYT_SUCCESS;
}

static int host_sync(hyt_device_t *dev)
{
    (void)dev;
    return HYT_SUCCESS;
}

static void host_trace_sync(hyt_device_t *dev) { (void)dev; }

const hyt_devops_t hyt_devops_host = {
    .name = "host",
    .init = host_init,
    .fini = host_fini,
    .bind = host_bind,
    .enter = host_bind,
    .leave = host_leave,
    .malloc = host_malloc,
    .free = host_free,
    .mem_free = host_mem_free,
    .prepare = host_prepare,
    .begin = host_begin,
    .end = host_end,
    .query = host_query,
    .times = host_times,
    .release = host_release,
    .memcpy = host_memcpy,
    .memcpy2d = host_memcpy2d,
    .memset = host_memset,
    .sync = host_sync,
    .trace_sync = host_trace_sync,
};
