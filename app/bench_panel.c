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
 * panel cost the update.
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

int hyt_bench_panel(hyt_context_t *ctx, const int *ms, int nm, const int *nbs, int nnb, int reps,
                    int nctas)
{
    hyt_device_t *dev = hyt_context_device(ctx, 0);
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
    BP_CHECK(cudaStreamCreateWithPriority(&sp, cudaStreamNonBlocking, hi));
    BP_CHECK(cudaStreamCreateWithPriority(&sg, cudaStreamNonBlocking, lo));
    BP_CHECK(cublasCreate(&hp));
    BP_CHECK(cublasSetStream(hp, sp));
    BP_CHECK(cublasCreate(&hg));
    BP_CHECK(cublasSetStream(hg, sg));
    BP_CHECK(cusolverDnCreate(&sh));
    BP_CHECK(cusolverDnSetStream(sh, sp));
    BP_CHECK(cudaEventCreate(&e0));
    BP_CHECK(cudaEventCreate(&e1));
    BP_CHECK(cudaEventCreate(&g0));
    BP_CHECK(cudaEventCreate(&g1));
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
    printf("%7s %5s | %9s %7s %9s %7s %8s | %9s %7s %9s %7s %8s | %6s %6s\n", "m", "nb",
           "hyt ms", "TF/s", "hyt+gemm", "TF/s", "gemm+ms", "cus ms", "TF/s", "cus+gemm", "TF/s",
           "gemm+ms", "alone", "concur");
    for (int ib = 0; ib < nnb; ib++) {
        /* the DGEMMs' time alone, to tell what a panel beside them costs them */
        const int nb = nbs[ib];
        float tg0[BP_REPS_MAX];
        for (int r = -1; r < reps; r++) {
            BP_CHECK(bp_gemms(hg, sg, g0, g1, G, nb));
            BP_CHECK(cudaDeviceSynchronize());
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
                    BP_CHECK(cudaDeviceSynchronize());
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
    return rc;
}
#else
int hyt_bench_panel(hyt_context_t *ctx, const int *ms, int nm, const int *nbs, int nnb, int reps,
                    int nctas)
{
    (void)ctx, (void)ms, (void)nm, (void)nbs, (void)nnb, (void)reps, (void)nctas;
    fprintf(stderr, "hytile bench-gpu --panel: hytile was built without CUDA\n");
    return 2;
}
#endif
