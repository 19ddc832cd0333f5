/*
 * hytile leaves a program's thread as it found it: the thread's current CUDA context (and with
 * it its current device) after context creation, LAPACK-layout LU and Cholesky solves through
 * the GPUs, a matrix on the devices, a trace, page-locked and device memory, the LAPACK ABI's
 * dgesv_, context destruction, page-locked blocks freed through another context (and checked
 * freed) and one freed after its context (ctx NULL) is the one it had before each call:
 *   - a thread that never used CUDA still has no current context (hytile created none on it);
 *   - a thread with a context of its own (cuCtxCreate) still has it, and allocates in it;
 *   - with two GPUs or more, a thread on the last GPU is still on it (hytile on all of them).
 * After the contexts end, device 0's primary context is still active: the program's runtime
 * calls find it as they left it.  Every solve is checked by its backward error.  Suite gpu:
 * exits 77 without CUDA or a usable GPU.
 *
 * Usage: test_cuda_current
 */
#include "hytile.h"
#include "hyt_dmat.h"
#include "hyt_runtime.h"
#include "hyt_test.h"
#include "chol_check.h"
#include "lu_check.h"

#if HYT_HAVE_CUDA
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>

#define HYT_DRV_TEST(X)                                                                         \
    X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxCreate) X(cuCtxDestroy) X(cuDeviceGet)         \
    X(cuDevicePrimaryCtxGetState) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)      \
    X(cuCtxPushCurrent) X(cuCtxPopCurrent) X(cuPointerGetAttribute)
#define HYT_DRV_PTR(f) __typeof__(f) *f;
static struct { HYT_DRV_TEST(HYT_DRV_PTR) } drv;
#undef HYT_DRV_PTR

static int ngpu; /* the CUDA devices present */

static CUcontext current(void)
{
    CUcontext c = NULL;
    REQUIRE(drv.cuCtxGetCurrent(&c) == CUDA_SUCCESS, "cuCtxGetCurrent failed");
    return c;
}

/* What a scenario's thread starts with and must keep. */
typedef struct scenario {
    const char *name;
    int own;       /* a context of its own (cuCtxCreate on device 0), else none */
    int device;    /* >= 0: cudaSetDevice(device) first (its primary context) */
    const char *devices; /* hytile's runtime.devices */
    CUcontext expect;
    int failures;
} scenario_t;

static void same(scenario_t *s, const char *after)
{
    CUcontext c = current();
    CHECK(c == s->expect, "%s: after %s the thread's current context is %p, before %p", s->name,
          after, (void *)c, (void *)s->expect);
    if (s->device >= 0) {
        int d = -1;
        CHECK(cudaGetDevice(&d) == cudaSuccess && d == s->device,
              "%s: after %s the thread's device is %d, before %d", s->name, after, d, s->device);
    }
}

static void lu_solve(hyt_context_t *ctx, scenario_t *s)
{
    const int n = 700, nrhs = 3, lda = n + 1;
    double *A0 = malloc((size_t)lda * n * sizeof *A0), *A = malloc((size_t)lda * n * sizeof *A);
    double *B0 = malloc((size_t)lda * nrhs * sizeof *B0);
    double *B = malloc((size_t)lda * nrhs * sizeof *B);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    fill_random(A0, lda, n, lda, 11);
    fill_random(B0, lda, nrhs, lda, 12);
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    memcpy(B, B0, (size_t)lda * nrhs * sizeof *B);
    int info = hyt_dgesv(ctx, n, nrhs, A, lda, ipiv, B, lda);
    CHECK(info == 0, "%s: hyt_dgesv info %d (%s)", s->name, info, hyt_last_error());
    double e = solve_backward_error('N', n, nrhs, A0, lda, B, lda, B0, lda);
    CHECK(e < LU_THRESH, "%s: hyt_dgesv backward error %g", s->name, e);
    same(s, "hyt_dgesv");
    /* the LAPACK ABI's context is the process's, made on the first call's thread */
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    memcpy(B, B0, (size_t)lda * nrhs * sizeof *B);
    int nn = n, nr = nrhs, ld = lda;
    dgesv_(&nn, &nr, A, &ld, ipiv, B, &ld, &info);
    CHECK(info == 0, "%s: dgesv_ info %d", s->name, info);
    e = solve_backward_error('N', n, nrhs, A0, lda, B, lda, B0, lda);
    CHECK(e < LU_THRESH, "%s: dgesv_ backward error %g", s->name, e);
    same(s, "dgesv_");
    free(A0), free(A), free(B0), free(B), free(ipiv);
}

static void chol_solve(hyt_context_t *ctx, scenario_t *s)
{
    const int n = 600, lda = n;
    double *A0 = malloc((size_t)lda * n * sizeof *A0), *A = malloc((size_t)lda * n * sizeof *A);
    chol_matrix(A0, n, lda, 0, 21);
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    int info = hyt_dpotrf(ctx, 'L', n, A, lda);
    CHECK(info == 0, "%s: hyt_dpotrf info %d (%s)", s->name, info, hyt_last_error());
    double e = chol_backward_error('L', n, A0, lda, A, lda);
    CHECK(e < LU_THRESH, "%s: hyt_dpotrf backward error %g", s->name, e);
    same(s, "hyt_dpotrf");
    free(A0), free(A);
}

static void device_matrix(hyt_context_t *ctx, scenario_t *s)
{
    const int n = 520, lda = n;
    double *A0 = malloc((size_t)lda * n * sizeof *A0), *F = malloc((size_t)lda * n * sizeof *F);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    fill_random(A0, lda, n, lda, 31);
    hyt_dmat_t *dA = NULL;
    REQUIRE(!hyt_dmat_create(ctx, n, n, 128, &dA), "%s: hyt_dmat_create: %s", s->name,
            hyt_last_error());
    same(s, "hyt_dmat_create");
    CHECK(!hyt_dmat_set(dA, A0, lda), "%s: hyt_dmat_set: %s", s->name, hyt_last_error());
    int info = hyt_dgetrf_dmat(ctx, dA, ipiv);
    CHECK(info == 0, "%s: hyt_dgetrf_dmat info %d (%s)", s->name, info, hyt_last_error());
    CHECK(!hyt_dmat_get(dA, F, lda), "%s: hyt_dmat_get: %s", s->name, hyt_last_error());
    double e = lu_backward_error(n, n, A0, lda, F, lda, ipiv);
    CHECK(e < LU_THRESH, "%s: hyt_dgetrf_dmat backward error %g", s->name, e);
    same(s, "hyt_dgetrf_dmat");
    hyt_dmat_destroy(dA);
    same(s, "hyt_dmat_destroy");
    free(A0), free(F), free(ipiv);
}

static void memory(hyt_context_t *ctx, scenario_t *s)
{
    double *h = hyt_host_malloc(ctx, 1 << 20);
    CHECK(h != NULL, "%s: hyt_host_malloc failed", s->name);
    same(s, "hyt_host_malloc");
    hyt_host_free(ctx, h);
    same(s, "hyt_host_free");
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    void *d = NULL;
    CHECK(!hyt_device_malloc(dev, &d, 1 << 20), "%s: hyt_device_malloc: %s", s->name,
          hyt_last_error());
    same(s, "hyt_device_malloc");
    CHECK(hyt_device_mem_available(dev) > 0, "%s: no device memory available", s->name);
    same(s, "hyt_device_mem_available");
    hyt_device_free(dev, d);
    same(s, "hyt_device_free");
}

/* Whether p is page-locked memory that CUDA knows of (asked in device 0's primary context,
 * pushed for the question and popped after). */
static int page_locked(const void *p)
{
    CUdevice cd;
    CUcontext pc, popped;
    unsigned type = 0;
    REQUIRE(drv.cuDeviceGet(&cd, 0) == CUDA_SUCCESS &&
                drv.cuDevicePrimaryCtxRetain(&pc, cd) == CUDA_SUCCESS,
            "device 0's primary context");
    REQUIRE(drv.cuCtxPushCurrent(pc) == CUDA_SUCCESS, "cuCtxPushCurrent");
    const CUresult r =
        drv.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)p);
    drv.cuCtxPopCurrent(&popped);
    drv.cuDevicePrimaryCtxRelease(cd);
    return r == CUDA_SUCCESS && type == CU_MEMORYTYPE_HOST;
}

/* Page-locked blocks of ctx freed through another context (on the last GPU): one at once (too
 * big to keep), one kept by the other context until it ends; both must be freed (in their own
 * GPU's primary context), with no error left and the thread's context as it was. */
static void other_context(hyt_context_t *ctx, scenario_t *s)
{
    char spec[32];
    snprintf(spec, sizeof spec, "cuda:%d", ngpu - 1);
    hyt_context_t *other = test_context(1, spec, (char *)NULL);
    same(s, "hyt_context_create (a second context)");
    double *big = hyt_host_malloc(ctx, 3 << 20), *small = hyt_host_malloc(ctx, 1 << 20);
    REQUIRE(big && small, "%s: hyt_host_malloc failed", s->name);
    CHECK(page_locked(big) && page_locked(small), "%s: hyt_host_malloc's blocks not page-locked",
          s->name);
    hyt_host_free(other, big);
    same(s, "hyt_host_free through another context");
    CHECK(!page_locked(big), "%s: a block freed through another context is still page-locked",
          s->name);
    hyt_host_free(other, small); /* kept by other */
    hyt_context_destroy(other);
    same(s, "the end of a context that kept another's block");
    CHECK(!page_locked(small), "%s: a block kept by another context outlived it", s->name);
    CHECK(cudaGetLastError() == cudaSuccess, "%s: an error left by the frees", s->name);
}

static void *run(void *arg)
{
    scenario_t *s = arg;
    const int before = test_failures;
    CUcontext mine = NULL;
    if (s->own) {
        CUdevice cd;
        REQUIRE(drv.cuDeviceGet(&cd, 0) == CUDA_SUCCESS, "cuDeviceGet");
#if CUDA_VERSION >= 13000
        REQUIRE(drv.cuCtxCreate(&mine, NULL, 0, cd) == CUDA_SUCCESS, "cuCtxCreate");
#else
        REQUIRE(drv.cuCtxCreate(&mine, 0, cd) == CUDA_SUCCESS, "cuCtxCreate");
#endif
    } else if (s->device >= 0) {
        REQUIRE(cudaSetDevice(s->device) == cudaSuccess, "cudaSetDevice(%d)", s->device);
    }
    s->expect = current();
    CHECK(s->own ? s->expect == mine : s->device >= 0 ? s->expect != NULL : s->expect == NULL,
          "%s: the thread starts with context %p", s->name, (void *)s->expect);
    hyt_context_t *ctx = test_context(2, s->devices, "gpu.min_n", "1", (char *)NULL);
    same(s, "hyt_context_create");
    lu_solve(ctx, s);
    chol_solve(ctx, s);
    device_matrix(ctx, s);
    memory(ctx, s);
    other_context(ctx, s);
    hyt_trace_start(ctx, 0);
    same(s, "hyt_trace_start");
    hyt_trace_stop(ctx);
    double *late = hyt_host_malloc(ctx, 3 << 20); /* freed after its context (too big to keep) */
    CHECK(late != NULL, "%s: hyt_host_malloc failed", s->name);
    if (late)
        late[(3 << 20) / sizeof *late - 1] = 1.0;
    hyt_context_destroy(ctx);
    same(s, "hyt_context_destroy");
    hyt_host_free(NULL, late);
    same(s, "hyt_host_free(NULL, ...) after hyt_context_destroy");
    CHECK(cudaGetLastError() == cudaSuccess, "%s: an error left by hyt_host_free(NULL, ...)",
          s->name);
    if (mine) { /* the program's own allocations still go to its own context */
        void *p = NULL;
        CUcontext owner = NULL;
        CHECK(cudaMalloc(&p, 256) == cudaSuccess &&
                  drv.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT,
                                            (CUdeviceptr)p) == CUDA_SUCCESS &&
                  owner == mine,
              "%s: cudaMalloc after hytile allocated in context %p, not the thread's %p", s->name,
              (void *)owner, (void *)mine);
        cudaFree(p);
        drv.cuCtxSetCurrent(NULL);
        drv.cuCtxDestroy(mine);
    }
    s->failures = test_failures - before;
    return NULL;
}

static void scenario(scenario_t *s)
{
    pthread_t t;
    REQUIRE(!pthread_create(&t, NULL, run, s), "pthread_create");
    pthread_join(t, NULL);
    printf("%-44s %s\n", s->name, s->failures ? "FAILED" : "ok");
}

int main(void)
{
    test_watchdog("test_cuda_current: timed out (something hung)\n", 600);
    ngpu = test_cuda_devices("cuda");
    if (!ngpu)
        return 77;
    enum cudaDriverEntryPointQueryResult q;
#define HYT_DRV_GET(f)                                                                          \
    REQUIRE(cudaGetDriverEntryPointByVersion(#f, (void **)&drv.f, CUDA_VERSION,                 \
                                             cudaEnableDefault, &q) == cudaSuccess && drv.f,    \
            "the CUDA driver has no %s", #f);
    HYT_DRV_TEST(HYT_DRV_GET)
#undef HYT_DRV_GET
    scenario(&(scenario_t){"no context before, hytile on cuda:0", 0, -1, "cuda:0", NULL, 0});
    scenario(&(scenario_t){"no context before, hytile on every GPU", 0, -1, "cuda", NULL, 0});
    scenario(&(scenario_t){"a context of its own, hytile on every GPU", 1, -1, "cuda", NULL, 0});
    if (ngpu > 1)
        scenario(&(scenario_t){"on the last GPU, hytile on every GPU", 0, ngpu - 1, "cuda",
                               NULL, 0});
    else
        printf("%-44s skipped: one GPU\n", "on the last GPU, hytile on every GPU");
    CUdevice cd;
    unsigned flags = 0;
    int active = 0;
    CHECK(drv.cuDeviceGet(&cd, 0) == CUDA_SUCCESS &&
              drv.cuDevicePrimaryCtxGetState(cd, &flags, &active) == CUDA_SUCCESS && active,
          "device 0's primary context is no longer active after the contexts ended");
    return test_result("test_cuda_current");
}
#else
int main(void)
{
    printf("SKIP: hytile was built without CUDA\n");
    return 77;
}
#endif
