// Why the one-GPU LU's bulk update runs slower beside its panels (experiment, not built by
// meson; docs/performance.md, twenty-first stop):
//   nvcc -O2 -arch=sm_90 tools/lu_power.cu -lcusolver -lcublas -lcuda -o /tmp/lu_power
// run with `nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv -lms 250` beside it.
//
// 1. The bulk updates of the LU at N = 65536 (nb 1024, lookahead 4) alone, back to back: step
//    k's strided-batched DGEMM C^T (nb x rows) -= U (nb x nb) L^T (nb x rows), B shared by the
//    batch, as gpu_dgetrf_update.c calls it; the rate per group of steps, twice (cold, warm).
// 2. One bulk-shaped DGEMM (rows 32768, batch 16) alone and while a high-priority stream of a
//    64-SM green context (the LU's panel stream) runs cusolverDnDgetrf on a 32768 x 1024 panel
//    in a loop, a compute-only kernel, or a memory-streaming kernel (on 64 or 16 CTAs).
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <stdio.h>
#include <stdlib.h>

#include "tool_cuda.h"

__global__ static void spin(double *out, int iters)
{
    double a = threadIdx.x * 1e-3, b = 1.0000001, c = 1e-9;
    for (int i = 0; i < iters; i++) {
        a = fma(a, b, c);
        b = fma(b, a, c);
    }
    if (a == 12345.0) // never: keeps the loop
        out[0] = a + b;
}

__global__ static void stream_rw(double *buf, size_t n, int passes)
{
    for (int p = 0; p < passes; p++)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
             i += (size_t)gridDim.x * blockDim.x)
            buf[i] = buf[i] * 0.999999 + 1e-12;
}

static const double one = 1.0, mone = -1.0;

// C^T (nb x rows) -= U L^T over `batch` tile columns (U: batch tiles, L: shared, C: stride cs)
static void bulk(cublasHandle_t h, int nb, int rows, int batch, const double *U, const double *L,
                 double *C, long long cs)
{
    CB(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, nb, rows, nb, &mone, U, nb,
                                 (long long)nb * nb, L, nb, 0, &one, C, nb, cs, batch));
}

static void bulk_alone(cublasHandle_t h)
{
    const int N = 65536, nb = 1024, nt = N / nb, la = 4;
    const long long colsz = (long long)N * nb;
    double *cols, *U, *L;
    CK(cudaMalloc(&cols, (size_t)colsz * nt * 8));
    CK(cudaMalloc(&U, (size_t)nb * nb * nt * 8));
    CK(cudaMalloc(&L, (size_t)colsz * 8));
    tool_fill(cols, (size_t)colsz * nt, 1.0);
    tool_fill(U, (size_t)nb * nb * nt, 1.0);
    tool_fill(L, (size_t)colsz, 1.0);
    cudaEvent_t ev[nt + 1];
    for (int i = 0; i <= nt; i++)
        CK(cudaEventCreate(&ev[i]));
    static const int groups[][2] = {{0, 0}, {1, 3}, {4, 7}, {8, 15}, {16, 31}, {32, 47}, {48, 57}};
    for (int round = 0; round < 2; round++) {
        CK(cudaEventRecord(ev[0], 0));
        for (int k = 0; k < nt - 1; k++) {
            int rows = N - (k + 1) * nb, c0 = k + la + 1, nc = nt - c0;
            if (nc > 0)
                bulk(h, nb, rows, nc, U, L, cols + c0 * colsz + (long long)(k + 1) * nb * nb,
                     colsz);
            CK(cudaEventRecord(ev[k + 1], 0));
        }
        CK(cudaDeviceSynchronize());
        double tot = 0, totf = 0;
        printf("bulk updates alone, round %d:", round);
        for (const auto &g : groups) {
            double t = 0, f = 0;
            for (int k = g[0]; k <= g[1]; k++) {
                float ms;
                CK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1]));
                int rows = N - (k + 1) * nb, nc = nt - (k + la + 1);
                f += nc > 0 ? 2.0 * nb * rows * (double)nb * nc : 0.0;
                t += ms;
            }
            tot += t;
            totf += f;
            printf("  %d-%d %.1f", g[0], g[1], f / t * 1e-9);
        }
        printf("  | %.0f ms, %.1f TFLOP/s\n", tot, totf / tot * 1e-9);
    }
    CK(cudaFree(cols));
    CK(cudaFree(U));
    CK(cudaFree(L));
}

static void beside(cublasHandle_t h, cudaStream_t sb)
{
    int lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CUgreenCtx g;
    cudaStream_t bg = (cudaStream_t)tool_green_stream(64, hi, &g, NULL);
    cusolverDnHandle_t hs;
    CB(cusolverDnCreate(&hs));
    CB(cusolverDnSetStream(hs, bg));
    const int nb = 1024, rows = 32768, batch = 16, pm = 32768;
    const long long colsz = (long long)nb * (rows + nb);
    const size_t mn = (size_t)64 << 20; // 512 MB streamed
    double *U, *L, *C, *P, *W, *M, *o;
    int *ipiv, *info, lw = 0;
    CK(cudaMalloc(&U, (size_t)nb * nb * batch * 8));
    CK(cudaMalloc(&L, (size_t)nb * rows * 8));
    CK(cudaMalloc(&C, (size_t)colsz * batch * 8));
    CK(cudaMalloc(&P, (size_t)pm * nb * 8));
    CK(cudaMalloc(&M, mn * 8));
    CK(cudaMalloc(&o, 8));
    tool_fill(U, (size_t)nb * nb * batch, 1.0);
    tool_fill(L, (size_t)nb * rows, 1.0);
    tool_fill(C, (size_t)colsz * batch, 1.0);
    tool_fill(P, (size_t)pm * nb, 1.0);
    tool_fill(M, mn, 1.0);
    CB(cusolverDnDgetrf_bufferSize(hs, pm, nb, P, pm, &lw));
    CK(cudaMalloc(&W, (size_t)lw * 8 + 8));
    CK(cudaMalloc(&ipiv, nb * sizeof(int)));
    CK(cudaMalloc(&info, sizeof(int)));
    cudaEvent_t e0, e1, f0, f1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventCreate(&f0));
    CK(cudaEventCreate(&f1));
    const double gflop = 2.0 * nb * rows * (double)nb * batch * 1e-9;
    static const char *names[] = {"alone", "getrf 32768 x 1024 loop", "spin, 64 CTAs",
                                  "stream 512 MB, 64 CTAs", "stream 512 MB, 16 CTAs",
                                  "spin, 16 CTAs"};
    printf("bulk-shaped DGEMM (rows %d, batch %d: %.0f GFLOP a call), 5 calls, beside a 64-SM "
           "green context's high-priority stream:\n", rows, batch, gflop);
    for (int v = 0; v < 6; v++)
        for (int r = 0; r < 2; r++) { // r = 0 warms up
            int items = 0;
            CK(cudaEventRecord(f0, bg));
            if (v == 1)
                for (; items < 14; items++)
                    CB(cusolverDnDgetrf(hs, pm, nb, P, pm, W, ipiv, info));
            if (v == 2 || v == 5) {
                spin<<<v == 2 ? 64 : 16, 1024, 0, bg>>>(o, 12000000);
                items = 1;
            }
            if (v == 3 || v == 4) {
                items = v == 3 ? 200 : 60;
                stream_rw<<<v == 3 ? 64 : 16, 1024, 0, bg>>>(M, mn, items);
            }
            CK(cudaGetLastError());
            CK(cudaEventRecord(f1, bg));
            CK(cudaEventRecord(e0, sb));
            for (int q = 0; q < 5; q++)
                bulk(h, nb, rows, batch, U, L, C, colsz);
            CK(cudaEventRecord(e1, sb));
            CK(cudaDeviceSynchronize());
            float t, tb;
            CK(cudaEventElapsedTime(&t, e0, e1));
            CK(cudaEventElapsedTime(&tb, f0, f1));
            if (r == 1)
                printf("  %-26s %8.2f ms a call, %6.2f TFLOP/s | beside: %d items in %.1f ms\n",
                       names[v], t / 5, gflop / (t / 5), items, tb);
        }
    CB(cusolverDnDestroy(hs));
}

int main()
{
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    int lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t sb;
    CK(cudaStreamCreateWithPriority(&sb, cudaStreamNonBlocking, lo));
    cublasHandle_t h;
    CB(cublasCreate(&h));
    bulk_alone(h);
    CB(cublasSetStream(h, sb));
    beside(h, sb);
    CB(cublasDestroy(h));
    return 0;
}
