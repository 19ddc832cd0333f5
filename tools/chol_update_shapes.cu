// The GPU-only Cholesky's trailing update of one step, C -= P P^T on the lower triangle of an
// m x m C with P m x kb, cut several ways, on one GPU (experiment, not built by meson):
//   nvcc -O2 -arch=sm_90 tools/chol_update_shapes.cu -lcublas -o /tmp/chol_update_shapes
//   /tmp/chol_update_shapes [M[,M...]] [KB]
// (KB = 3072 with 1536-wide panels: the trailing update of chol.group 2)
// recursive: the library's cut (drivers/chol/gpu_dpotrf_tasks.c: halves aligned to 256, one
//            GEMM under the first half, SYRK leaves of at most `leaf` columns);
// recursive, leaves beside: the same GEMMs on one stream, the SYRK leaves on a second one
//            (its own handle; forked and joined through events), so that the leaves' SMs
//            idle in their triangles' last waves take GEMM blocks;
// strips:    column strips of width w, each a SYRK of its diagonal block and one GEMM of the
//            rows below it;
// one SYRK of the whole; one GEMM of the whole square (twice the flops: the ceiling rate);
// squares: the lower triangle's b x b blocks, the diagonal ones in full, as one
//            cublasDgemmBatched (m a multiple of b; the pointer arrays made before the clock).
// Rates count m (m + 1) kb flops (the lower triangle), the square GEMM its own 2 m^2 kb.
// The checks, the timing and the fill: tool_cuda.h, beside it.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_cuda.h"

static cublasHandle_t H, H2;
static cudaStream_t S1, S2;
static cudaEvent_t fork_ev, join_ev;
static int beside; /* rsyrk's leaves on H2 */
static const double mone = -1.0, one = 1.0;
static double *A; /* ld x ld: P in columns 0 .. kb-1, C from (kb, kb) */
static int ld, kb;

#define P(r) (A + (size_t)(kb + (r)))                 /* row r of P (column 0) */
#define C(r, c) (A + (size_t)(kb + (r)) + (size_t)(kb + (c)) * ld)

static void syrk(int r, int m)
{
    CB(cublasDsyrk(beside ? H2 : H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, m, kb, &mone, P(r), ld,
                   &one, C(r, r), ld));
}

static void gemm(int r, int c, int m, int w) /* C(r.., c..) (m x w) -= P(r..) P(c..)^T */
{
    CB(cublasDgemm(H, CUBLAS_OP_N, CUBLAS_OP_T, m, w, kb, &mone, P(r), ld, P(c), ld, &one,
                   C(r, c), ld));
}

static void rsyrk(int r, int m, int leaf)
{
    if (m <= leaf || m <= 512) {
        syrk(r, m);
        return;
    }
    const int h = (m / 2 + 255) / 256 * 256;
    rsyrk(r, h, leaf);
    gemm(r + h, r, m - h, h);
    rsyrk(r + h, m - h, leaf);
}

static void strips(int m, int w)
{
    for (int c = 0; c < m; c += w) {
        const int b = m - c < w ? m - c : w;
        syrk(c, b);
        if (m - c - b > 0)
            gemm(c + b, c, m - c - b, b);
    }
}

static const double **dA, **dB;
static double **dC;
static int nsq;

// the pointer arrays of the squares of b for m (m % b == 0), on the device
static void squares_setup(int m, int b)
{
    const int nt = m / b;
    nsq = nt * (nt + 1) / 2;
    const double **hA = (const double **)malloc(3 * nsq * sizeof *hA);
    int q = 0;
    for (int j = 0; j < nt; j++)
        for (int i = j; i < nt; i++, q++) {
            hA[q] = P(i * b);
            hA[nsq + q] = P(j * b);
            hA[2 * nsq + q] = C(i * b, j * b);
        }
    if (!dA)
        CK(cudaMalloc((void **)&dA, 3 * 4096 * sizeof *dA));
    CK(cudaMemcpy(dA, hA, 3 * nsq * sizeof *hA, cudaMemcpyHostToDevice));
    dB = dA + nsq;
    dC = (double **)(dA + 2 * nsq);
    free(hA);
}

static void squares(int b)
{
    CB(cublasDgemmBatched(H, CUBLAS_OP_N, CUBLAS_OP_T, b, b, kb, &mone, dA, ld, dB, ld, &one, dC,
                          ld, nsq));
}

// best of 2 after a warm-up (docs/performance.md's numbers)
static double best_ms(int variant, int m, int arg)
{
    if (variant == 4)
        squares_setup(m, arg);
    return tool_best_ms(S1, 2, [&] {
        if (variant == 4)
            squares(arg);
        else if (variant == 0)
            rsyrk(0, m, arg);
        else if (variant == 5) {
            beside = 1;
            CK(cudaEventRecord(fork_ev, S1));
            CK(cudaStreamWaitEvent(S2, fork_ev, 0));
            rsyrk(0, m, arg);
            CK(cudaEventRecord(join_ev, S2));
            CK(cudaStreamWaitEvent(S1, join_ev, 0));
            beside = 0;
        }
        else if (variant == 1)
            strips(m, arg);
        else if (variant == 2)
            syrk(0, m);
        else
            gemm(0, 0, m, m);
    });
}

int main(int argc, char **argv)
{
    int ms_[16] = {60416, 40960, 24576, 12288}, nm = 4;
    if (argc > 1) {
        nm = 0;
        for (char *t = strtok(argv[1], ","); t && nm < 16; t = strtok(NULL, ","))
            ms_[nm++] = atoi(t);
    }
    kb = argc > 2 ? atoi(argv[2]) : 1024;
    int mmax = 0;
    for (int i = 0; i < nm; i++)
        mmax = ms_[i] > mmax ? ms_[i] : mmax;
    ld = mmax + kb;
    CK(cudaMalloc(&A, (size_t)ld * ld * sizeof(double)));
    tool_fill(A, (size_t)ld * ld, 1e-3);
    CK(cudaStreamCreateWithFlags(&S1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&S2, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join_ev, cudaEventDisableTiming));
    CB(cublasCreate(&H));
    CB(cublasCreate(&H2));
    CB(cublasSetStream(H, S1));
    CB(cublasSetStream(H2, S2));
    printf("| m | kb | cut | ms | TFLOP/s |\n|---|---|---|---|---|\n");
    for (int i = 0; i < nm; i++) {
        const int m = ms_[i];
        const double fl = (double)m * (m + 1) * kb;
        static const int leaves[] = {2048, 4096, 8192}, widths[] = {1024, 2048, 4096, 8192};
        for (int l = 0; l < 3; l++) {
            double t = best_ms(0, m, leaves[l]);
            printf("| %d | %d | recursive, leaf %d | %.3f | %.1f |\n", m, kb, leaves[l], t,
                   fl / t * 1e-9);
            t = best_ms(5, m, leaves[l]);
            printf("| %d | %d | recursive, leaf %d, leaves beside | %.3f | %.1f |\n", m, kb,
                   leaves[l], t, fl / t * 1e-9);
        }
        for (int w = 0; w < 4; w++) {
            double t = best_ms(1, m, widths[w]);
            printf("| %d | %d | strips of %d | %.3f | %.1f |\n", m, kb, widths[w], t,
                   fl / t * 1e-9);
        }
        static const int bs[] = {512, 1024, 2048};
        for (int w = 0; w < 3; w++) {
            if (m % bs[w] || (m / bs[w]) * (m / bs[w] + 1) / 2 > 4096)
                continue;
            double t = best_ms(4, m, bs[w]);
            printf("| %d | %d | squares of %d, one batched call | %.3f | %.1f |\n", m, kb, bs[w],
                   t, fl / t * 1e-9);
        }
        double t = best_ms(2, m, 0);
        printf("| %d | %d | one SYRK | %.3f | %.1f |\n", m, kb, t, fl / t * 1e-9);
        t = best_ms(3, m, 0);
        printf("| %d | %d | one GEMM of the square (2 m^2 kb flops) | %.3f | %.1f |\n", m, kb,
               t, 2.0 * m * m * kb / t * 1e-9);
        t = best_ms(2, 4096, 0);
        printf("| 4096 | %d | SYRK alone | %.3f | %.1f |\n", kb, t,
               4096.0 * 4097 * kb / t * 1e-9);
        fflush(stdout);
    }
    return 0;
}
