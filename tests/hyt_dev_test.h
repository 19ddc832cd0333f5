/*
 * Helpers of the device-kernel tests (test_gpu_kernels.c, test_gpu_hpl.c): a context on host
 * or CUDA devices with fault injection, device tasks on device 0, copies as tasks, page-locked
 * host buffers, the CUDA grid limits, and the start of main (the 'cuda' argument, exit 77
 * without CUDA or a usable GPU).  Include after hyt_test.h, hyt_gpu_geometry.h, hyt_runtime.h.
 */
#ifndef HYT_DEV_TEST_H
#define HYT_DEV_TEST_H

#include "config.h"
#include "hyt_gpu_geometry.h"
#include "hyt_runtime.h"
#include "hyt_test.h"

static int use_cuda; /* the device part runs on cuda:0 */

/* A dispatcher's return code, and a message naming the dispatcher when it fails. */
#define EXPECT(call, code)                                                                     \
    do {                                                                                       \
        int rc_ = (call);                                                                      \
        CHECK(rc_ == (code), "%s returned %s, expected %s (%s)", #call, hyt_strerror(rc_),     \
              hyt_strerror(code), hyt_last_error());                                           \
        CHECK(rc_ == 0 || strstr(hyt_last_error(), "hyt_gpu_") != NULL, "%s: message '%s'",    \
              #call, hyt_last_error());                                                        \
    } while (0)

static inline void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    REQUIRE(p, "out of memory (%zu bytes)", bytes);
    return p;
}

static inline double *hmalloc(hyt_context_t *ctx, size_t n)
{
    double *p = hyt_host_malloc(ctx, (n ? n : 1) * sizeof *p);
    REQUIRE(p, "hyt_host_malloc of %zu doubles failed", n);
    return p;
}

static inline int launch_ok(const hyt_launch_t *L)
{
    return L->grid[0] >= 1 && L->grid[0] <= HYT_GRID_MAX_X && L->grid[1] >= 1 &&
           L->grid[1] <= HYT_GRID_MAX_YZ && L->grid[2] >= 1 && L->grid[2] <= HYT_GRID_MAX_YZ &&
           L->block[0] * L->block[1] * L->block[2] <= 1024;
}

/* Device task bodies forward the kernel's message to the sequence (the runtime's own message
 * only names the task and the code). */
static inline int forward(const hyt_devctx_t *dc, int rc)
{
    if (rc)
        hyt_sequence_fail(dc->seq, rc, "%s", hyt_last_error());
    return rc;
}

typedef struct xfer_args {
    void *dst;
    const void *src;
    size_t bytes;
    int d2h;
} xfer_args_t;

static inline int xfer_body(const hyt_devctx_t *dc, void *p)
{
    xfer_args_t *a = p;
    return forward(dc, a->d2h ? hyt_dev_memcpy_d2h(dc, a->dst, a->src, a->bytes)
                              : hyt_dev_memcpy_h2d(dc, a->dst, a->src, a->bytes));
}

/* A task of kernel k on device 0, on `stream`. */
static inline int insert_dev(hyt_sequence_t *seq, const hyt_kernel_t *k, const void *args,
                             size_t size, int stream, const hyt_dep_t *deps, int ndeps)
{
    hyt_task_desc_t d = hyt_task_desc(k, args, size);
    d.device = 0;
    d.stream = stream;
    d.deps = deps;
    d.ndeps = ndeps;
    return hyt_task_insert(seq, &d);
}

/* A copy task: host -> device 0 (H2D stream) or back (d2h, D2H stream). */
static inline int insert_copy(hyt_sequence_t *seq, void *dst, const void *src, size_t bytes,
                              int d2h)
{
    static const hyt_kernel_t xfer_kernel = {.name = "copy", .dev = xfer_body,
                                             .cat = HYT_CAT_DMA};
    xfer_args_t a = {dst, src, bytes, d2h};
    hyt_dep_t deps[2] = {{src, HYT_READ}, {dst, HYT_WRITE}};
    return insert_dev(seq, &xfer_kernel, &a, sizeof a, d2h ? HYT_STREAM_D2H : HYT_STREAM_H2D,
                      deps, 2);
}

/* A context with `devices` and debug.fault_device = fault (0: none); 0 or the error.  HYT_*
 * variables apply (e.g. HYT_CHAOS), below what the test sets. */
static inline int make_context(const char *devices, long fault, hyt_context_t **ctx)
{
    hyt_config_t *cfg;
    char buf[32];
    *ctx = NULL;
    REQUIRE(!hyt_config_create(&cfg), "config");
    REQUIRE(!hyt_config_load_env(cfg), "%s", hyt_last_error());
    snprintf(buf, sizeof buf, "%ld", fault);
    REQUIRE(!hyt_config_set(cfg, "runtime.workers", "2", HYT_SRC_API, NULL) &&
            !hyt_config_set(cfg, "runtime.devices", devices, HYT_SRC_API, NULL) &&
            !hyt_config_set(cfg, "debug.fault_device", buf, HYT_SRC_API, NULL), "%s",
            hyt_last_error());
    int rc = hyt_context_create(cfg, ctx);
    hyt_config_destroy(cfg);
    return rc;
}

/* The start of main: sets use_cuda and *devices ("host:1" or "cuda:0") and creates *ctx.
 * Returns -1 to go on, or the exit status: 2 (usage), 77 (cuda asked for, none usable). */
static inline int dev_test_start(int argc, char **argv, const char *name, const char **devices,
                                 hyt_context_t **ctx)
{
    if ((use_cuda = test_cuda_arg(argc, argv)) < 0)
        return 2;
    *devices = use_cuda ? "cuda:0" : "host:1";
#if !HYT_HAVE_CUDA
    if (use_cuda) {
        printf("%s cuda: skipped: hytile was built without CUDA (meson setup -Dcuda=enabled to "
               "build it)\n", name);
        return 77;
    }
#endif
    int rc = make_context(*devices, 0, ctx);
    if (rc && use_cuda && (rc == HYT_ERR_DEVICE || rc == HYT_ERR_NOT_AVAILABLE)) {
        printf("%s cuda: skipped: no usable GPU (%s)\n", name, hyt_last_error());
        return 77;
    }
    REQUIRE(!rc, "context with devices %s: %s", *devices, hyt_last_error());
    return -1;
}

#endif
