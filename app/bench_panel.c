/*
 * hytile bench-gpu --panel: the panel LU alone, on m x nb panels, one GPU: hytile's native
 * GPU panel (hyt_cuda_dgetrf_crrb on the row-major CRRB panel) against cusolverDnDgetrf (on a
 * column-major copy; its transpositions not counted), each alone and while DGEMMs of the LU's
 * trailing-update shape (BP_GEMM x BP_GEMM x nb) run on another stream of the same GPU (the
 * situation of the LU, whose panel stream has the highest priority).  The inner dimension
 * matters: a DGEMM's CTAs live in proportion to it, and a panel kernel that needs the
 * registers or shared memory of an SM full of DGEMM CTAs waits for one of them to leave
 * (tools/launch_wait.cu).  Times are medians of `reps` runs with CUDA events on the panel's
 * stream; every run starts from the same panel (restored by a device copy outside the timed
 * region).  Beside the DGEMMs it also reports how much longer they took than alone: what the
 * panel cost the update.  With sms > 0 (--panel-sms) the panel's stream lives in a green
 * context of that many SMs and the DGEMMs' in one of the other SMs: a panel on its reserved
 * SMs beside an update on the rest, with no launch waiting for an SM to drain.  The LU can
 * bound its panel stream (gpu.panel_sms) but lets the update use every SM, the panel's SMs
 * too: --gemm-all puts the DGEMMs on an ordinary stream to measure that situation.
 * CPU panels are timed by hytile bench-cpu.
 */
#include "bench_panel.h"

#include "config.h"
#include "hytile.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if HYT_HAVE_CUDA
#include "hyt_gpu_geometry.h"
#include "hyt_gpu_kernels.h"

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#define BP_CHECK(call)                                                                         \
    do {                                                                                       \
        int bp_e_ = (int)(call);                                                               \
        if (bp_e_) {                                                                           \
            fprintf(stderr, "hytile bench-gpu --panel: %s:%d: %s failed (status %d)\n",       \
                    __FILE__, __LINE__, #call, bp_e_);                                         \
            rc = 1;                                                                            \
            goto cleanup;                                                                      \
        }                                                                                      \
    } while (0)

static int cmp_f(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

enum { BP_GEMM = 16384, BP_REPS_MAX = 64 };

/* The driver's functions for green contexts, through the runtime (hytile does not link
 * libcuda). */
#define BP_DRV(X)                                                                               \
    X(cuDeviceGet) X(cuDeviceGetDevResource) X(cuDevSmResourceSplitByCount)                     \
    X(cuDevResourceGenerateDesc) X(cuGreenCtxCreate) X(cuGreenCtxDestroy)                       \
    X(cuGreenCtxStreamCreate) X(cuCtxFromGreenCtx) X(cuCtxPushCurrent) X(cuCtxPopCurrent)       \
    X(cuEventCreate)
#define BP_DRV_PTR(f) __typeof__(f) *f;
static struct { BP_DRV(BP_DRV_PTR) int ok; } bp_drv;
#undef BP_DRV_PTR

/* Streams sp (priority hi) on a green context of sms SMs of device ordinal and sg (priority
 * lo) on one of the others, their contexts into g[2], their SMs into nsm[2], and the events
 * ev[0..1] in the first, ev[2..3] in the second (an event is recorded on a stream of its own
 * context).  gemm_all: sg an ordinary stream instead, on every SM, g[1] NULL.  0, or the
 * failing call's status (a message printed). */
static int bp_green_streams(int ordinal, int sms, int gemm_all, int hi, int lo, CUgreenCtx g[2],
                            cudaStream_t *sp, cudaStream_t *sg, unsigned nsm[2],
                            cudaEvent_t ev[4])
{
    enum cudaDriverEntryPointQueryResult q;
    CUresult r = CUDA_SUCCESS;
    const char *what = "";
#define BP_DRV_GET(f)                                                                          \
    if (!bp_drv.ok && (cudaGetDriverEntryPointByVersion(#f, (void **)&bp_drv.f, CUDA_VERSION,   \
                                                        cudaEnableDefault, &q) != cudaSuccess ||\
                       !bp_drv.f)) {                                                           \
        fprintf(stderr, "hytile bench-gpu --panel: the CUDA driver has no %s\n", #f);         \
        return 1;                                                                              \
    }
    BP_DRV(BP_DRV_GET)
#undef BP_DRV_GET
    bp_drv.ok = 1;
    CUdevice cd;
    CUdevResource all, part[2];
    CUdevResourceDesc desc;
    unsigned ngroups = 1;
    if ((r = bp_drv.cuDeviceGet(&cd, ordinal)) ||
        (r = bp_drv.cuDeviceGetDevResource(cd, &all, CU_DEV_RESOURCE_TYPE_SM))) {
        what = "cuDeviceGetDevResource";
        goto fail;
    }
    if (sms >= (int)all.sm.smCount) {
        fprintf(stderr, "hytile bench-gpu --panel: --panel-sms %d, but the GPU has %u SMs\n", sms,
                all.sm.smCount);
        return 1;
    }
    if ((r = bp_drv.cuDevSmResourceSplitByCount(&part[0], &ngroups, &all, &part[1], 0,
                                                (unsigned)sms)) || ngroups != 1) {
        what = "cuDevSmResourceSplitByCount";
        goto fail;
    }
    nsm[0] = part[0].sm.smCount; /* rounded up to the GPU's granularity */
    nsm[1] = gemm_all ? all.sm.smCount : part[1].sm.smCount;
    if (gemm_all) {
        what = "cudaStreamCreateWithPriority";
        if ((r = (CUresult)cudaStreamCreateWithPriority(sg, cudaStreamNonBlocking, lo)) ||
            (r = (CUresult)cudaEventCreate(&ev[2])) || (r = (CUresult)cudaEventCreate(&ev[3])))
            goto fail;
    }
    for (int i = 0; i < 2 - gemm_all; i++) {
        what = "cuGreenCtxCreate";
        if ((r = bp_drv.cuDevResourceGenerateDesc(&desc, &part[i], 1)) ||
            (r = bp_drv.cuGreenCtxCreate(&g[i], desc, cd, CU_GREEN_CTX_DEFAULT_STREAM)))
            goto fail;
        what = "cuGreenCtxStreamCreate";
        if ((r = bp_drv.cuGreenCtxStreamCreate((CUstream *)(i ? sg : sp), g[i],
                                               CU_STREAM_NON_BLOCKING, i ? lo : hi)))
            goto fail;
        CUcontext c, old;
        what = "cuEventCreate";
        if ((r = bp_drv.cuCtxFromGreenCtx(&c, g[i])) || (r = bp_drv.cuCtxPushCurrent(c)))
            goto fail;
        for (int e = 0; e < 2 && !r; e++)
            r = bp_drv.cuEventCreate((CUevent *)&ev[2 * i + e], CU_EVENT_DEFAULT);
        bp_drv.cuCtxPopCurrent(&old);
        if (r)
            goto fail;
    }
    return 0;
fail:
    fprintf(stderr, "hytile bench-gpu --panel: %s failed (%d) for --panel-sms %d\n", what,
            (int)r, sms);
    return r ? (int)r : 1;
}

/* On hg's stream, between the events g0 and g1: DGEMMs C += A B of BP_GEMM x BP_GEMM x nb (G:
 * C, then A, then B), enough to outlast the panel: the flops of four 8192^3 (~80 ms).
 * Returns 0 or the failing call's status. */
static int bp_gemms(cublasHandle_t hg, cudaStream_t sg, cudaEvent_t g0, cudaEvent_t g1,
                    double *G, int nb)
{
    const double one = 1.0, *ga = G + (size_t)BP_GEMM * BP_GEMM, *gb = ga + (size_t)BP_GEMM * nb;
    int n = (int)(4.0 * 8192 * 8192 * 8192 / ((double)BP_GEMM * BP_GEMM * nb) + 0.5), e;
    if ((e = (int)cudaEventRecord(g0, sg)))
        return e;
    for (int g = 0; g < (n > 0 ? n : 1); g++)
        if ((e = (int)cublasDgemm(hg, CUBLAS_OP_N, CUBLAS_OP_N, BP_GEMM, BP_GEMM, nb, &one, ga,
                                  BP_GEMM, gb, nb, &one, G, BP_GEMM)))
            return e;
    return (int)cudaEventRecord(g1, sg);
}

/* Both streams done, whichever contexts they live in. */
static int bp_sync(cudaStream_t sp, cudaStream_t sg)
{
    int e = (int)cudaStreamSynchronize(sp);
    return e ? e : (int)cudaStreamSynchronize(sg);
}

int hyt_bench_panel(hyt_context_t *ctx, const int *ms, int nm, const int *nbs, int nnb, int reps,
                    int nctas, int sms, int gemm_all)
{
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    CUgreenCtx green[2] = {NULL, NULL};
    unsigned nsm[2] = {0, 0};
    int rc = 0, lo, hi, mmax = 0, nbmax = 0;
    cudaStream_t sp = NULL, sg = NULL;
    cublasHandle_t hp = NULL, hg = NULL;
    cusolverDnHandle_t sh = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL, g0 = NULL, g1 = NULL;
    double *A = NULL, *A0 = NULL, *P = NULL, *ws = NULL, *G = NULL, *swork = NULL, *h = NULL;
    int *piv = NULL, *info = NULL, lwork = 0;
    if (!dev || hyt_device_backend(dev) != HYT_BACKEND_CUDA) {
        fprintf(stderr, "hytile bench-gpu --panel: needs a CUDA device (--devices cuda:0)\n");
        return 2;
    }
    if (reps < 1)
        reps = 1;
    if (reps > BP_REPS_MAX)
        reps = BP_REPS_MAX;
    for (int i = 0; i < nm; i++)
        mmax = ms[i] > mmax ? ms[i] : mmax;
    for (int i = 0; i < nnb; i++)
        nbmax = nbs[i] > nbmax ? nbs[i] : nbmax;
    size_t abytes = (size_t)mmax * nbmax * sizeof(double);
    BP_CHECK(cudaSetDevice(hyt_device_ordinal(dev)));
    BP_CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    if (sms > 0) {
        cudaEvent_t ev[4] = {NULL, NULL, NULL, NULL};
        rc = bp_green_streams(hyt_device_ordinal(dev), sms, gemm_all, hi, lo, green, &sp, &sg,
                              nsm, ev);
        e0 = ev[0], e1 = ev[1], g0 = ev[2], g1 = ev[3];
        if (rc) {
            rc = 1;
            goto cleanup;
        }
    } else {
        BP_CHECK(cudaStreamCreateWithPriority(&sp, cudaStreamNonBlocking, hi));
        BP_CHECK(cudaStreamCreateWithPriority(&sg, cudaStreamNonBlocking, lo));
        BP_CHECK(cudaEventCreate(&e0));
        BP_CHECK(cudaEventCreate(&e1));
        BP_CHECK(cudaEventCreate(&g0));
        BP_CHECK(cudaEventCreate(&g1));
    }
    BP_CHECK(cublasCreate(&hp));
    BP_CHECK(cublasSetStream(hp, sp));
    BP_CHECK(cublasCreate(&hg));
    BP_CHECK(cublasSetStream(hg, sg));
    BP_CHECK(cusolverDnCreate(&sh));
    BP_CHECK(cusolverDnSetStream(sh, sp));
    BP_CHECK(cudaMalloc((void **)&A, abytes));
    BP_CHECK(cudaMalloc((void **)&A0, abytes));
    BP_CHECK(cudaMalloc((void **)&P, abytes));
    BP_CHECK(cudaMalloc((void **)&ws, hyt_panel_leaf_ws_bytes(mmax)));
    BP_CHECK(cudaMalloc((void **)&piv, (size_t)nbmax * sizeof(int)));
    BP_CHECK(cudaMalloc((void **)&info, sizeof(int)));
    /* C (BP_GEMM^2), then A (BP_GEMM x nbmax) and B (nbmax x BP_GEMM) */
    const size_t gcount = (size_t)BP_GEMM * BP_GEMM + (size_t)2 * BP_GEMM * nbmax;
    BP_CHECK(cudaMalloc((void **)&G, gcount * sizeof(double)));
    BP_CHECK(cudaMemset(G, 0, gcount * sizeof(double)));
    BP_CHECK(cusolverDnDgetrf_bufferSize(sh, mmax, nbmax, P, mmax, &lwork));
    BP_CHECK(cudaMalloc((void **)&swork, (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));
    h = malloc(abytes);
    if (!h) {
        fprintf(stderr, "hytile bench-gpu --panel: out of host memory\n");
        rc = 1;
        goto cleanup;
    }
    unsigned long long s = 88172645463325252ULL;
    for (size_t i = 0; i < abytes / sizeof(double); i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        h[i] = (double)(s >> 11) * 0x1p-52 - 0.5;
    }
    BP_CHECK(cudaMemcpy(A0, h, abytes, cudaMemcpyHostToDevice));
    printf("\npanel LU on %s (gpu.panel_ctas %d; <= 0: one CTA per SM); concurrent: with %d x %d "
           "x nb DGEMMs (the LU's trailing update) on a low-priority stream\n",
           hyt_device_name(dev), nctas, BP_GEMM, BP_GEMM);
    if (sms > 0 && gemm_all)
        printf("(--panel-sms %d --gemm-all: the panels on %u SMs (a green context), the DGEMMs "
               "on all %u: the LU's situation with gpu.panel_sms = %d)\n", sms, nsm[0], nsm[1],
               sms);
    else if (sms > 0)
        printf("(--panel-sms %d: the panels on %u SMs, the DGEMMs on the other %u; green "
               "contexts)\n", sms, nsm[0], nsm[1]);
    printf("%7s %5s | %9s %7s %9s %7s %8s | %9s %7s %9s %7s %8s | %6s %6s\n", "m", "nb",
           "hyt ms", "TF/s", "hyt+gemm", "TF/s", "gemm+ms", "cus ms", "TF/s", "cus+gemm", "TF/s",
           "gemm+ms", "alone", "concur");
    for (int ib = 0; ib < nnb; ib++) {
        /* the DGEMMs' time alone, to tell what a panel beside them costs them */
        const int nb = nbs[ib];
        float tg0[BP_REPS_MAX];
        for (int r = -1; r < reps; r++) {
            BP_CHECK(bp_gemms(hg, sg, g0, g1, G, nb));
            BP_CHECK(bp_sync(sp, sg));
            if (r >= 0)
                BP_CHECK(cudaEventElapsedTime(&tg0[r], g0, g1));
        }
        qsort(tg0, (size_t)reps, sizeof(float), cmp_f);
        for (int im = 0; im < nm; im++) {
            const int m = ms[im];
            if (m < nb)
                continue;
            const double flops = (double)m * nb * nb - (double)nb * nb * nb / 3.0;
            float t[4][BP_REPS_MAX], tg[4][BP_REPS_MAX];
            for (int v = 0; v < 4; v++) { /* hytile, hytile+gemm, cusolver, cusolver+gemm */
                for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
                    BP_CHECK(cudaMemcpyAsync(A, A0, (size_t)m * nb * sizeof(double),
                                             cudaMemcpyDeviceToDevice, sp));
                    if (v >= 2) {
                        const double one = 1.0, zero = 0.0;
                        BP_CHECK(cublasDgeam(hp, CUBLAS_OP_T, CUBLAS_OP_N, m, nb, &one, A, nb,
                                             &zero, P, m, P, m));
                    }
                    /* the restore and the transposition out of the DGEMMs' window */
                    BP_CHECK(cudaStreamSynchronize(sp));
                    if (v & 1) {
                        BP_CHECK(bp_gemms(hg, sg, g0, g1, G, nb));
                        /* let the GEMM occupy the GPU first */
                        struct timespec ts = {0, 2000000};
                        nanosleep(&ts, NULL);
                    }
                    BP_CHECK(cudaEventRecord(e0, sp));
                    if (v < 2)
                        BP_CHECK(hyt_cuda_dgetrf_crrb(dev, sp, hp, A, m, nb, nb, piv, info, ws,
                                                      nctas));
                    else
                        BP_CHECK(cusolverDnDgetrf(sh, m, nb, P, m, swork, piv, info));
                    BP_CHECK(cudaEventRecord(e1, sp));
                    BP_CHECK(bp_sync(sp, sg));
                    if (r >= 0) {
                        BP_CHECK(cudaEventElapsedTime(&t[v][r], e0, e1));
                        if (v & 1)
                            BP_CHECK(cudaEventElapsedTime(&tg[v][r], g0, g1));
                    }
                }
                qsort(t[v], (size_t)reps, sizeof(float), cmp_f);
                if (v & 1)
                    qsort(tg[v], (size_t)reps, sizeof(float), cmp_f);
            }
            double md[4];
            for (int v = 0; v < 4; v++)
                md[v] = t[v][reps / 2];
            /* what the panel cost the DGEMMs beside it: their time over their time alone */
            const double lost1 = tg[1][reps / 2] - tg0[reps / 2];
            const double lost3 = tg[3][reps / 2] - tg0[reps / 2];
            printf("%7d %5d | %9.3f %7.2f %9.3f %7.2f %8.3f | %9.3f %7.2f %9.3f %7.2f %8.3f | "
                   "%6.2f %6.2f\n",
                   m, nb, md[0], flops / md[0] * 1e-9, md[1], flops / md[1] * 1e-9, lost1, md[2],
                   flops / md[2] * 1e-9, md[3], flops / md[3] * 1e-9, lost3, md[2] / md[0],
                   md[3] / md[1]);
            fflush(stdout);
        }
    }
    printf("(gemm+ms: how much longer the DGEMMs took with the panel beside them than alone; "
           "alone, concur: cuSOLVER's time over hytile's; > 1: hytile faster)\n");
cleanup:
    free(h);
    cudaFree(A);
    cudaFree(A0);
    cudaFree(P);
    cudaFree(ws);
    cudaFree(piv);
    cudaFree(info);
    cudaFree(G);
    cudaFree(swork);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (g0)
        cudaEventDestroy(g0);
    if (g1)
        cudaEventDestroy(g1);
    if (sh)
        cusolverDnDestroy(sh);
    if (hp)
        cublasDestroy(hp);
    if (hg)
        cublasDestroy(hg);
    if (sp)
        cudaStreamDestroy(sp);
    if (sg)
        cudaStreamDestroy(sg);
    for (int i = 0; i < 2; i++)
        if (green[i])
            bp_drv.cuGreenCtxDestroy(green[i]);
    return rc;
}
#else
int hyt_bench_panel(hyt_context_t *ctx, const int *ms, int nm, const int *nbs, int nnb, int reps,
                    int nctas, int sms, int gemm_all)
{
    (void)ctx, (void)ms, (void)nm, (void)nbs, (void)nnb, (void)reps, (void)nctas, (void)sms;
    (void)gemm_all;
    fprintf(stderr, "hytile bench-gpu --panel: hytile was built without CUDA\n");
    return 2;
}
#endif
