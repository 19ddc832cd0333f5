/*
 * Device workers: one host thread per device owns the device's streams.  It takes ready device
 * tasks in priority order, runs their bodies (which enqueue asynchronous work on the task's
 * stream), records a completion event, and completes each task once its event has fired.
 * Several tasks can be in flight at once, on different streams (copies overlap compute) or on
 * the same stream (in order).
 */
#include "rt_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct alloc_rec {
    void *p;
    size_t bytes;
} alloc_rec_t;

typedef struct dev_allocs {
    pthread_mutex_t lock;
    alloc_rec_t *a;
    int n, cap;
    hyt_kept_t kept; /* freed small blocks for the next allocation of their class: not in the
                      * device's mem_used, released when an allocation needs their room */
} dev_allocs_t;

/* The size class of a small block (at most HYT_KEEP_SMALL bytes): the power of two from `least`
 * that holds it; larger sizes as they are. */
static size_t keep_class(size_t bytes, size_t least)
{
    if (bytes > HYT_KEEP_SMALL)
        return bytes;
    size_t b = least;
    while (b < bytes)
        b *= 2;
    return b;
}

/* A kept block of exactly `bytes` (a size class), taken out of k, or NULL. */
static void *keep_take(hyt_kept_t *k, size_t bytes)
{
    for (int i = 0; i < k->n; i++)
        if (k->bytes[i] == bytes) {
            void *p = k->p[i];
            k->n--;
            k->p[i] = k->p[k->n];
            k->bytes[i] = k->bytes[k->n];
            return p;
        }
    return NULL;
}

/* Keeps p (a block of `bytes`) in k when it is small and k has room: 1, else 0 (the caller
 * frees it). */
static int keep_put(hyt_kept_t *k, void *p, size_t bytes)
{
    if (bytes > HYT_KEEP_SMALL || k->n == HYT_KEEP_MAX)
        return 0;
    k->p[k->n] = p;
    k->bytes[k->n++] = bytes;
    return 1;
}

/* The bytes of k's blocks. */
static size_t keep_bytes(const hyt_kept_t *k)
{
    size_t b = 0;
    for (int i = 0; i < k->n; i++)
        b += k->bytes[i];
    return b;
}

/* Frees a device's kept blocks (the caller holds its allocation lock, or is its last user). */
static void keep_release(hyt_device_t *dev, hyt_kept_t *k)
{
    for (int i = 0; i < k->n; i++)
        dev->ops->free(dev, k->p[i]);
    k->n = 0;
}

/* The library handles of hyt_device_handle, in creation order. */
typedef struct dev_handle {
    const hyt_device_handle_class_t *cls;
    void *h;
} dev_handle_t;

typedef struct dev_handles {
    pthread_mutex_t lock;
    dev_handle_t *a;
    int n, cap;
} dev_handles_t;

/* Per-device bookkeeping kept beside the backend's private state. */
typedef struct dev_extra {
    dev_allocs_t allocs;
    dev_handles_t handles;
} dev_extra_t;

static dev_extra_t *extra_of(hyt_device_t *dev) { return (dev_extra_t *)(dev + 1); }

void hyt_device_push_ready(hyt_device_t *dev, hyt_task_t *t)
{
    pthread_mutex_lock(&dev->lock);
    atomic_store_explicit(&t->state, HYT_T_READY, memory_order_relaxed);
    (void)hyt_heap_push(&dev->ready, t); /* capacity reserved for the whole window */
    pthread_cond_signal(&dev->cond);
    pthread_mutex_unlock(&dev->lock);
}

static int track_of(const hyt_device_t *dev, int stream)
{
    return dev->ctx->nworkers + 1 + HYT_NUM_STREAMS * dev->index + stream;
}

static void finish(hyt_device_t *dev, hyt_task_t *t, int tracing)
{
    if (tracing) {
        dev->ops->times(dev, t);
        hyt_trace_record(dev->ctx, track_of(dev, t->stream), t, t->t_start, t->t_end);
    }
    hyt_sched_complete(t);
}

static void submit(hyt_device_t *dev, hyt_task_t *t, int bind_rc)
{
    hyt_context_t *ctx = dev->ctx;
    int rc = hyt_sched_should_skip(t);
    t->skip = rc;
    if (!rc && bind_rc) {
        rc = bind_rc;
        hyt_sched_task_failed(t, rc);
    }
    if (rc) {
        hyt_sched_complete(t);
        return;
    }
    atomic_store_explicit(&t->state, HYT_T_RUNNING, memory_order_relaxed);
    if (t->scratch_bytes > dev->scratch_size) {
        free(dev->scratch);
        dev->scratch_size = 0;
        dev->scratch = hyt_rt_malloc(ctx, t->scratch_bytes);
        if (!dev->scratch) {
            hyt_rt_error(HYT_ERR_NOMEM, "out of host memory for %zu bytes of scratch",
                         t->scratch_bytes);
            hyt_sched_task_failed(t, HYT_ERR_NOMEM);
            hyt_sched_complete(t);
            return;
        }
        dev->scratch_size = t->scratch_bytes;
    }
    hyt_devctx_t dc = {.dev = dev, .stream = t->stream, .scratch = dev->scratch, .seq = t->seq};
    dev->ops->prepare(dev, &dc);
    int tracing = atomic_load_explicit(&ctx->trace.on, memory_order_relaxed);
    hyt_error(0, "%s", ""); /* no stale message in a failure report */
    const double i0 = tracing ? hyt_trace_now(ctx) : 0.0;
    rc = dev->ops->begin(dev, t, tracing);
    if (ctx->races)
        hyt_races_enter(t);
    if (!rc)
        rc = t->kernel->dev(&dc, t->args);
    if (ctx->races)
        hyt_races_leave();
    if (!rc)
        rc = dev->ops->end(dev, t, tracing);
    /* how long the body's calls took on the host: where that approaches the task's time on
     * the device, the device waited for the host */
    t->t_issue0 = i0;
    t->t_issue1 = tracing ? hyt_trace_now(ctx) : 0.0;
    if (rc) {
        hyt_sched_task_failed(t, rc);
        /* Work the body did enqueue must finish before anyone frees its buffers. */
        dev->ops->sync(dev);
        hyt_sched_complete(t);
        return;
    }
    t->next = NULL;
    if (dev->inflight_tail[t->stream])
        dev->inflight_tail[t->stream]->next = t;
    else
        dev->inflight_head[t->stream] = t;
    dev->inflight_tail[t->stream] = t;
    dev->ninflight++;
}

/* Completes the finished heads of the in-flight queues; returns how many. */
static int poll(hyt_device_t *dev)
{
    int done = 0;
    int tracing = atomic_load_explicit(&dev->ctx->trace.on, memory_order_relaxed);
    for (int s = 0; s < HYT_NUM_STREAMS; s++) {
        hyt_task_t *t;
        while ((t = dev->inflight_head[s])) {
            int q = dev->ops->query(dev, t);
            if (q == 0)
                break;
            dev->inflight_head[s] = t->next;
            if (!t->next)
                dev->inflight_tail[s] = NULL;
            dev->ninflight--;
            done++;
            if (q < 0) {
                hyt_sched_task_failed(t, q);
                hyt_sched_complete(t);
            } else {
                finish(dev, t, tracing);
            }
        }
    }
    return done;
}

static void *device_main(void *arg)
{
    hyt_device_t *dev = arg;
    int bind_rc = dev->ops->bind(dev);
    unsigned idle = 0;
    for (;;) {
        hyt_task_t *batch[16];
        int n = 0;
        pthread_mutex_lock(&dev->lock);
        while (!dev->ready.n && !dev->ninflight && !dev->shutdown)
            pthread_cond_wait(&dev->cond, &dev->lock);
        if (dev->shutdown && !dev->ready.n && !dev->ninflight) {
            pthread_mutex_unlock(&dev->lock);
            break;
        }
        if (dev->chaos) {
            /* one random ready task at a time, after a random pause that lets others pile up;
             * the starved stream's last */
            if (dev->ready.n)
                batch[n++] = hyt_heap_pop_chaos(&dev->ready, &dev->chaos, dev->chaos_starve);
        } else {
            while (n < 16 && dev->ready.n)
                batch[n++] = hyt_heap_pop(&dev->ready);
        }
        pthread_mutex_unlock(&dev->lock);
        if (dev->chaos && n) {
            struct timespec ts = {0, (long)((dev->chaos >> 40) % 300) * 1000};
            nanosleep(&ts, NULL);
        }
        for (int i = 0; i < n; i++)
            submit(dev, batch[i], bind_rc);
        int done = dev->ninflight ? poll(dev) : 0;
        if (n || done) {
            idle = 0;
        } else if (++idle > 64) {
            sched_yield(); /* work in flight, nothing ready: poll politely */
        } else {
            hyt_cpu_relax();
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */

static void device_free_one(hyt_device_t *dev)
{
    if (!dev)
        return;
    dev_extra_t *x = extra_of(dev);
    if (dev->started) {
        pthread_mutex_lock(&dev->lock);
        dev->shutdown = 1;
        pthread_cond_signal(&dev->cond);
        pthread_mutex_unlock(&dev->lock);
        pthread_join(dev->thread, NULL);
    }
    /* the handles after the last task, newest first, before the backend's streams go */
    if (x->handles.n > 0 && dev->priv && dev->ops->enter(dev) == HYT_SUCCESS) {
        for (int i = x->handles.n - 1; i >= 0; i--)
            x->handles.a[i].cls->destroy(dev, x->handles.a[i].h);
        dev->ops->leave(dev);
    }
    free(x->handles.a);
    pthread_mutex_destroy(&x->handles.lock);
    for (int i = 0; i < x->allocs.n; i++)
        dev->ops->free(dev, x->allocs.a[i].p);
    keep_release(dev, &x->allocs.kept);
    free(x->allocs.a);
    pthread_mutex_destroy(&x->allocs.lock);
    if (dev->priv)
        dev->ops->fini(dev);
    hyt_heap_free(&dev->ready);
    free(dev->scratch);
    pthread_mutex_destroy(&dev->lock);
    pthread_cond_destroy(&dev->cond);
    free(dev);
}

int hyt_devices_create(hyt_context_t *ctx, const hyt_devspec_t *spec)
{
    int n = spec->count, ids[64];
    const hyt_devops_t *ops = &hyt_devops_host;
    if (n == 0)
        return HYT_SUCCESS;
    if (spec->backend == HYT_BACKEND_CUDA) {
#if HYT_HAVE_CUDA
        int avail = hyt_cuda_device_count();
        if (spec->auto_detect && avail <= 0)
            return HYT_SUCCESS;
        if (avail <= 0)
            return hyt_rt_error(HYT_ERR_DEVICE, "runtime.devices asks for CUDA GPUs but none "
                                "is usable here (set runtime.devices = none to run on CPUs)");
        if (n < 0) {
            n = avail < 64 ? avail : 64;
            for (int i = 0; i < n; i++)
                ids[i] = i;
        } else {
            for (int i = 0; i < n; i++) {
                if (spec->ids[i] >= avail)
                    return hyt_rt_error(HYT_ERR_DEVICE, "runtime.devices: CUDA device %d does "
                                        "not exist (%d visible)", spec->ids[i], avail);
                ids[i] = spec->ids[i];
            }
        }
        ops = &hyt_devops_cuda;
#else
        if (spec->auto_detect)
            return HYT_SUCCESS;
        return hyt_rt_error(HYT_ERR_NOT_AVAILABLE, "runtime.devices asks for CUDA but hytile "
                            "was built without CUDA (meson setup -Dcuda=enabled)");
#endif
    } else {
        for (int i = 0; i < n; i++)
            ids[i] = spec->ids[i];
    }

    ctx->devices = hyt_rt_calloc(ctx, (size_t)n, sizeof *ctx->devices);
    if (!ctx->devices)
        return hyt_rt_error(HYT_ERR_NOMEM, "out of memory creating devices");
    size_t cap = (size_t)hyt_config_get_int(ctx->cfg, "gpu.memory_limit");
    for (int i = 0; i < n; i++) {
        hyt_device_t *dev = hyt_rt_calloc(ctx, 1, sizeof *dev + sizeof(dev_extra_t));
        if (!dev)
            return hyt_rt_error(HYT_ERR_NOMEM, "out of memory creating devices");
        ctx->devices[i] = dev;
        ctx->ndevices = i + 1;
        dev->ctx = ctx;
        dev->index = i;
        dev->ordinal = ids[i];
        dev->backend = spec->backend;
        dev->ops = ops;
        dev->mem_cap = cap;
        dev->chaos = ctx->chaos ? hyt_chaos_stream(ctx->chaos, (uint64_t)i) : 0;
        dev->chaos_starve = ctx->chaos ? hyt_chaos_starve(ctx->chaos) : -1;
        pthread_mutex_init(&dev->lock, NULL);
        pthread_cond_init(&dev->cond, NULL);
        pthread_mutex_init(&extra_of(dev)->allocs.lock, NULL);
        pthread_mutex_init(&extra_of(dev)->handles.lock, NULL);
        dev->ready.cap = (int)ctx->window + 64;
        dev->ready.a = hyt_rt_malloc(ctx, (size_t)dev->ready.cap * sizeof *dev->ready.a);
        if (!dev->ready.a)
            return hyt_rt_error(HYT_ERR_NOMEM, "out of memory creating devices");
        int rc = ops->init(dev);
        if (rc)
            return rc;
        if (pthread_create(&dev->thread, NULL, device_main, dev))
            return hyt_rt_error(HYT_ERR_SYSTEM, "cannot create the thread of device %d", i);
        dev->started = 1;
    }
    ctx->have_cuda = spec->backend == HYT_BACKEND_CUDA;
#if HYT_HAVE_CUDA
    if (ctx->have_cuda)
        hyt_cuda_enable_peers(ctx->devices, ctx->ndevices);
#endif
    return HYT_SUCCESS;
}

void hyt_devices_destroy(hyt_context_t *ctx)
{
    for (int i = 0; i < ctx->ndevices; i++)
        device_free_one(ctx->devices[i]);
    free(ctx->devices);
    ctx->devices = NULL;
    ctx->ndevices = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* public device API                                                                           */

hyt_backend_t hyt_device_backend(const hyt_device_t *dev) { return dev->backend; }
int hyt_device_index(const hyt_device_t *dev) { return dev->index; }
int hyt_device_ordinal(const hyt_device_t *dev) { return dev->ordinal; }
const char *hyt_device_name(const hyt_device_t *dev) { return dev->name; }

int hyt_device_fault_point(hyt_device_t *dev) { return hyt_fault_device_call(dev->ctx); }

int hyt_device_handle(hyt_device_t *dev, const hyt_device_handle_class_t *cls, void **handle)
{
    if (handle)
        *handle = NULL;
    if (!dev || !cls || !cls->create || !cls->destroy || !handle)
        return hyt_rt_error(HYT_ERR_INVALID, "hyt_device_handle: a device, a class with create "
                            "and destroy, and a place for the handle are needed");
    dev_handles_t *hs = &extra_of(dev)->handles;
    int rc = HYT_SUCCESS;
    pthread_mutex_lock(&hs->lock);
    for (int i = 0; i < hs->n; i++)
        if (hs->a[i].cls == cls) {
            *handle = hs->a[i].h;
            pthread_mutex_unlock(&hs->lock);
            return HYT_SUCCESS;
        }
    if (hs->n == hs->cap) {
        int cap = hs->cap ? 2 * hs->cap : 4;
        dev_handle_t *a = realloc(hs->a, (size_t)cap * sizeof *a);
        if (!a) {
            pthread_mutex_unlock(&hs->lock);
            return hyt_rt_error(HYT_ERR_NOMEM, "%s: out of memory for the %s handle", dev->name,
                                cls->name ? cls->name : "library");
        }
        hs->a = a;
        hs->cap = cap;
    }
    /* under the lock: two threads asking at once get one handle */
    void *h = NULL;
    rc = dev->ops->enter(dev);
    if (!rc) {
        rc = cls->create(dev, &h);
        dev->ops->leave(dev);
    }
    if (!rc) {
        hs->a[hs->n++] = (dev_handle_t){cls, h};
        *handle = h;
    }
    pthread_mutex_unlock(&hs->lock);
    return rc;
}

size_t hyt_device_mem_available(hyt_device_t *dev)
{
    /* the kept blocks are released when an allocation needs their room */
    size_t fr = dev->ops->mem_free(dev) + hyt_device_kept_bytes(dev);
    if (dev->mem_cap) {
        size_t used = atomic_load(&dev->mem_used);
        size_t left = used < dev->mem_cap ? dev->mem_cap - used : 0;
        if (left < fr)
            fr = left;
    }
    return fr;
}

size_t hyt_device_kept_bytes(hyt_device_t *dev)
{
    dev_allocs_t *al = &extra_of(dev)->allocs;
    pthread_mutex_lock(&al->lock);
    const size_t kept = keep_bytes(&al->kept);
    pthread_mutex_unlock(&al->lock);
    return kept;
}

size_t hyt_device_alloc_bytes(size_t bytes) { return keep_class(bytes, 256); }

/* Whether `bytes` more would exceed gpu.memory_limit: the error, or 0. */
static int over_cap(hyt_device_t *dev, size_t asked, size_t bytes)
{
    if (!dev->mem_cap || atomic_load(&dev->mem_used) + bytes <= dev->mem_cap)
        return 0;
    return hyt_rt_error(HYT_ERR_DEVICE_MEMORY, "%s: allocating %zu bytes would exceed "
                        "gpu.memory_limit (%zu bytes, %zu in use)", dev->name, asked,
                        dev->mem_cap, atomic_load(&dev->mem_used));
}

int hyt_device_malloc(hyt_device_t *dev, void **ptr, size_t bytes)
{
    dev_allocs_t *al = &extra_of(dev)->allocs;
    const size_t asked = bytes;
    *ptr = NULL;
    bytes = keep_class(bytes, 256); /* a small block may be a kept one */
    int rc = over_cap(dev, asked, bytes);
    if (rc)
        return rc;
    if (hyt_fault_device_call(dev->ctx))
        return hyt_rt_error(HYT_ERR_DEVICE_MEMORY, "%s: injected fault in device allocation",
                            dev->name);
    pthread_mutex_lock(&al->lock);
    if (al->n == al->cap) {
        int cap = al->cap ? 2 * al->cap : 16;
        alloc_rec_t *a = realloc(al->a, (size_t)cap * sizeof *a);
        if (!a) {
            pthread_mutex_unlock(&al->lock);
            return hyt_rt_error(HYT_ERR_NOMEM, "out of host memory");
        }
        al->a = a;
        al->cap = cap;
    }
    *ptr = keep_take(&al->kept, bytes);
    if (!*ptr) {
        /* a new block: the kept ones go first where the cap or the device needs their room,
         * so that what the device holds stays within gpu.memory_limit; mem_used changes only
         * under this lock, so the cap is checked again exactly */
        if (dev->mem_cap &&
            atomic_load(&dev->mem_used) + keep_bytes(&al->kept) + bytes > dev->mem_cap)
            keep_release(dev, &al->kept);
        rc = over_cap(dev, asked, bytes);
        if (!rc) {
            rc = dev->ops->malloc(dev, ptr, bytes);
            if (rc == HYT_ERR_DEVICE_MEMORY && al->kept.n) { /* the device is full: again */
                keep_release(dev, &al->kept);
                rc = dev->ops->malloc(dev, ptr, bytes);
            }
        }
    }
    if (!rc) {
        al->a[al->n].p = *ptr;
        al->a[al->n].bytes = bytes;
        al->n++;
        atomic_fetch_add(&dev->mem_used, bytes);
    }
    pthread_mutex_unlock(&al->lock);
    return rc;
}

void hyt_device_free(hyt_device_t *dev, void *ptr)
{
    if (!ptr)
        return;
    dev_allocs_t *al = &extra_of(dev)->allocs;
    size_t freed = 0;
    pthread_mutex_lock(&al->lock);
    for (int i = 0; i < al->n; i++) {
        if (al->a[i].p == ptr) {
            freed = al->a[i].bytes;
            atomic_fetch_sub(&dev->mem_used, al->a[i].bytes);
            if (!keep_put(&al->kept, ptr, al->a[i].bytes))
                dev->ops->free(dev, ptr);
            al->a[i] = al->a[--al->n];
            break;
        }
    }
    pthread_mutex_unlock(&al->lock);
    hyt_races_free(dev->ctx, ptr, freed);
}

static int copy_fault(const hyt_devctx_t *dc)
{
    if (hyt_fault_device_call(dc->dev->ctx))
        return hyt_rt_error(HYT_ERR_DEVICE, "%s: injected fault in a copy", dc->dev->name);
    return 0;
}

/* debug.races: a copy's source and destination, height runs of width bytes each */
static void note_copy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t height)
{
    if (src)
        hyt_races_note(src, spitch, width, height, 0, "a copy's source");
    hyt_races_note(dst, dpitch, width, height, 1, "a copy's destination");
}

int hyt_dev_memcpy_h2d(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes)
{
    int rc = copy_fault(dc);
    note_copy(dst, bytes, src, bytes, bytes, 1);
    return rc ? rc : dc->dev->ops->memcpy(dc, dst, src, bytes, 0);
}

int hyt_dev_memcpy_d2h(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes)
{
    int rc = copy_fault(dc);
    note_copy(dst, bytes, src, bytes, bytes, 1);
    return rc ? rc : dc->dev->ops->memcpy(dc, dst, src, bytes, 1);
}

int hyt_dev_memcpy_d2d(const hyt_devctx_t *dc, void *dst, const void *src, size_t bytes)
{
    int rc = copy_fault(dc);
    note_copy(dst, bytes, src, bytes, bytes, 1);
    return rc ? rc : dc->dev->ops->memcpy(dc, dst, src, bytes, 2);
}

int hyt_dev_memset(const hyt_devctx_t *dc, void *dst, int value, size_t bytes)
{
    int rc = copy_fault(dc);
    note_copy(dst, bytes, NULL, bytes, bytes, 1);
    return rc ? rc : dc->dev->ops->memset(dc, dst, value, bytes);
}

int hyt_dev_memcpy2d(const hyt_devctx_t *dc, void *dst, size_t dpitch, const void *src,
                     size_t spitch, size_t width, size_t height, int kind)
{
    int rc = copy_fault(dc);
    note_copy(dst, dpitch, src, spitch, width, height);
    return rc ? rc
              : dc->dev->ops->memcpy2d(dc, dst, dpitch, src, spitch, width, height, kind);
}

/* ------------------------------------------------------------------------------------------ */
/* host memory for matrices that travel                                                        */

#define HOST_HDR 64
enum { HOST_PAGEABLE = 1, HOST_PINNED = 2 };
/* The header: the kind (an int), the block's bytes after the header (a size_t at 8), and for a
 * page-locked block the ordinal of the GPU whose primary context allocated it (an int at 16),
 * where every free of it goes (hyt_cuda_host_free_ordinal), whichever context it comes
 * through and whichever context's cache kept it in between. */
#define HOST_BYTES(p) (*(size_t *)((unsigned char *)(p) + 8))
#define HOST_ORDINAL(p) (*(int *)((unsigned char *)(p) + 16))

void *hyt_host_malloc(hyt_context_t *ctx, size_t bytes)
{
    if (bytes > SIZE_MAX - HOST_HDR)
        return NULL;
    unsigned char *p = NULL;
    int kind = HOST_PAGEABLE;
#if HYT_HAVE_CUDA
    if (ctx && ctx->have_cuda && hyt_config_get_int(ctx->cfg, "gpu.pinned")) {
        /* an injected fault (debug.fault_device) falls back silently: it is no device
         * failure, and the call's result carries no message for it (fault_absorbed tells the
         * fault sweeps so) */
        int injected = hyt_fault_device_call(ctx);
        if (injected)
            atomic_store(&ctx->fault_absorbed, 1);
        bytes = keep_class(bytes, 4096); /* a small block may be a kept one */
        if (!injected) {
            pthread_mutex_lock(&ctx->pinned_lock);
            p = keep_take(&ctx->pinned_kept, bytes);
            pthread_mutex_unlock(&ctx->pinned_lock);
        }
        if (!injected && !p) {
            p = hyt_cuda_host_alloc(ctx->devices[0], bytes + HOST_HDR);
            if (p) /* a kept block keeps the ordinal of its own allocation */
                HOST_ORDINAL(p) = ctx->devices[0]->ordinal;
        }
        if (p)
            kind = HOST_PINNED;
        else if (!injected && !atomic_exchange(&ctx->pinned_warned, 1))
            hyt_rt_warn("could not page-lock %zu bytes of host memory; using pageable memory "
                        "(host<->GPU copies will be several times slower)", bytes);
    }
#endif
    if (!p) {
        if (hyt_rt_fault_alloc(ctx))
            return NULL;
        p = aligned_alloc(HOST_HDR, ((bytes + HOST_HDR) + HOST_HDR - 1) / HOST_HDR * HOST_HDR);
        if (!p)
            return NULL;
    }
    *(int *)p = kind;
    HOST_BYTES(p) = bytes;
    return p + HOST_HDR;
}

void hyt_host_free(hyt_context_t *ctx, void *ptr)
{
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - HOST_HDR;
    hyt_races_free(ctx, ptr, HOST_BYTES(p));
#if HYT_HAVE_CUDA
    if (*(int *)p == HOST_PINNED) {
        int kept = 0;
        if (ctx) {
            pthread_mutex_lock(&ctx->pinned_lock);
            kept = keep_put(&ctx->pinned_kept, p, HOST_BYTES(p));
            pthread_mutex_unlock(&ctx->pinned_lock);
        }
        if (!kept)
            hyt_cuda_host_free_ordinal(HOST_ORDINAL(p), p);
        return;
    }
#else
    (void)ctx;
#endif
    free(p);
}

void hyt_host_cache_free(hyt_context_t *ctx)
{
#if HYT_HAVE_CUDA
    for (int i = 0; i < ctx->pinned_kept.n; i++)
        hyt_cuda_host_free_ordinal(HOST_ORDINAL(ctx->pinned_kept.p[i]), ctx->pinned_kept.p[i]);
#endif
    ctx->pinned_kept.n = 0;
}

void *hyt_host_staging_acquire(hyt_context_t *ctx, size_t want, size_t least, size_t *got)
{
    pthread_mutex_lock(&ctx->staging_lock);
    void *p = NULL;
    if (!ctx->staging_busy) {
        if (ctx->staging_bytes < least) {
            hyt_host_free(ctx, ctx->staging);
            ctx->staging = hyt_host_malloc(ctx, want);
            ctx->staging_bytes = ctx->staging ? want : 0;
        }
        p = ctx->staging;
        ctx->staging_busy = p != NULL;
        *got = ctx->staging_bytes;
    }
    pthread_mutex_unlock(&ctx->staging_lock);
    if (p)
        return p;
    p = hyt_host_malloc(ctx, want);
    *got = p ? want : 0;
    return p;
}

void hyt_host_staging_release(hyt_context_t *ctx, void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&ctx->staging_lock);
    int mine = p == ctx->staging;
    if (mine)
        ctx->staging_busy = 0;
    pthread_mutex_unlock(&ctx->staging_lock);
    if (!mine)
        hyt_host_free(ctx, p);
}
