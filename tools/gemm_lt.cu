// Is there a faster FP64 GEMM than cublasDgemm's choice for the Cholesky's and the LU's
// trailing updates?  (experiment, not built by meson; written 2026-11-27 after the device time
// was spent: NOT YET RUN)
//   nvcc -O2 -arch=sm_90 tools/gemm_lt.cu -lcublasLt -lcublas -o /tmp/gemm_lt
//   /tmp/gemm_lt [M[,M...]] [K]          (default 16384,32768,65536 and K = 1024; an M whose
//                                         three M x M matrices do not fit is skipped: 65536
//                                         needs an H200)
//
// Why: the lower GPU-only Cholesky at N = 65536 is update-bound from start to end (its trace,
// docs/performance.md) and runs at 48.6 TFLOP/s against cuBLAS DGEMM's 55.6 at K = 1024 ('N',
// 'T'); the 1.1x cuSOLVER target needs ~51.  The H200's FP64 tensor peak is ~67 TFLOP/s, so
// cuBLAS's heuristic pick runs at ~83% of it.  If one of cublasLt's other algorithms (tiles,
// stages, cluster shapes, split-K) runs the update's shapes a few percent faster, the library
// could ask cublasLt for it once per shape.
//
// Prints, per M (C is M x M, K the inner dimension, C -= A B^T as the lower Cholesky's update;
// then 'N','N' as the LU's): cublasDgemm's best of 3, then each of cublasLt's heuristic
// algorithms (up to 16, workspace 64 MiB) with its TFLOP/s and its ratio to cublasDgemm; every
// result is compared with cublasDgemm's (max |difference| / max |C|) so that an algorithm
// that computes something else is seen.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "tool_cuda.h"

__global__ static void maxdiff_kernel(const double *x, const double *y, size_t n, double *out)
{
    double d = 0.0, m = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        d = fmax(d, fabs(x[i] - y[i]));
        m = fmax(m, fabs(y[i]));
    }
    // one atomic per thread is enough for a check (values are >= 0: compare as integers)
    atomicMax((unsigned long long *)&out[0], (unsigned long long)__double_as_longlong(d));
    atomicMax((unsigned long long *)&out[1], (unsigned long long)__double_as_longlong(m));
}

static double rel_diff(const double *x, const double *y, size_t n)
{
    double *o, h[2];
    CK(cudaMalloc(&o, 2 * sizeof(double)));
    CK(cudaMemset(o, 0, 2 * sizeof(double)));
    maxdiff_kernel<<<1024, 256>>>(x, y, n, o);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(o));
    return h[1] > 0 ? h[0] / h[1] : h[0];
}

int main(int argc, char **argv)
{
    std::vector<int> ms;
    for (const char *t = argc > 1 ? argv[1] : "16384,32768,65536"; *t;) {
        ms.push_back(atoi(t));
        const char *c = strchr(t, ',');
        t = c ? c + 1 : t + strlen(t);
    }
    const int K = argc > 2 ? atoi(argv[2]) : 1024;
    cublasHandle_t H;
    cublasLtHandle_t Lt;
    CB(cublasCreate(&H));
    CB(cublasLtCreate(&Lt));
    const size_t wsb = (size_t)64 << 20;
    void *ws;
    CK(cudaMalloc(&ws, wsb));
    const double one = 1.0, mone = -1.0;
    for (int M : ms) {
        const size_t nc = (size_t)M * M, na = (size_t)M * K;
        size_t avail, total;
        CK(cudaMemGetInfo(&avail, &total));
        if ((3 * nc + 2 * na) * 8 + ((size_t)1 << 30) > avail) { // C0, C, R, A, B and room
            printf("M %6d: skipped, %.1f GiB of device memory needed\n", M,
                   (3 * nc + 2 * na) * 8.0 / (1 << 30));
            continue;
        }
        double *A, *B, *C0, *C, *R;
        CK(cudaMalloc(&A, na * 8));
        CK(cudaMalloc(&B, na * 8));
        CK(cudaMalloc(&C0, nc * 8));
        CK(cudaMalloc(&C, nc * 8));
        CK(cudaMalloc(&R, nc * 8));
        tool_fill(A, na, 1.0);
        tool_fill(B, na, 1.0);
        tool_fill(C0, nc, 1.0);
        const double flops = 2.0 * M * M * K;
        for (int nn = 0; nn < 2; nn++) { // 'N','T' (Cholesky), 'N','N' (LU, B as K x M)
            const cublasOperation_t tb = nn ? CUBLAS_OP_N : CUBLAS_OP_T;
            const int ldb = nn ? K : M;
            auto restore = [&] { CK(cudaMemcpyAsync(C, C0, nc * 8, cudaMemcpyDeviceToDevice)); };
            double t0 = tool_best_ms(0, 3, [&] {
                CB(cublasDgemm(H, CUBLAS_OP_N, tb, M, M, K, &mone, A, M, B, ldb, &one, C, M));
            }, restore);
            restore();
            CB(cublasDgemm(H, CUBLAS_OP_N, tb, M, M, K, &mone, A, M, B, ldb, &one, C, M));
            CK(cudaMemcpy(R, C, nc * 8, cudaMemcpyDeviceToDevice));
            printf("M %6d K %5d %s  cublasDgemm  %9.3f ms %6.1f TFLOP/s\n", M, K,
                   nn ? "NN" : "NT", t0, flops / t0 / 1e9);
            cublasLtMatmulDesc_t op;
            CB(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_64F, CUDA_R_64F));
            const cublasOperation_t ta = CUBLAS_OP_N;
            CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
            CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
            cublasLtMatrixLayout_t la, lb, lc;
            CB(cublasLtMatrixLayoutCreate(&la, CUDA_R_64F, M, K, M));
            CB(cublasLtMatrixLayoutCreate(&lb, CUDA_R_64F, nn ? K : M, nn ? M : K, ldb));
            CB(cublasLtMatrixLayoutCreate(&lc, CUDA_R_64F, M, M, M));
            cublasLtMatmulPreference_t pref;
            CB(cublasLtMatmulPreferenceCreate(&pref));
            CB(cublasLtMatmulPreferenceSetAttribute(
                pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb));
            cublasLtMatmulHeuristicResult_t res[16];
            int got = 0;
            CB(cublasLtMatmulAlgoGetHeuristic(Lt, op, la, lb, lc, lc, pref, 16, res, &got));
            for (int i = 0; i < got; i++) {
                auto run = [&] {
                    CB(cublasLtMatmul(Lt, op, &mone, A, la, B, lb, &one, C, lc, C, lc,
                                      &res[i].algo, ws, wsb, 0));
                };
                double t = tool_best_ms(0, 3, run, restore);
                restore();
                run();
                CK(cudaDeviceSynchronize());
                printf("M %6d K %5d %s  cublasLt #%2d %9.3f ms %6.1f TFLOP/s  %5.3f x  "
                       "workspace %zu  diff %.1e\n", M, K, nn ? "NN" : "NT", i, t,
                       flops / t / 1e9, t0 / t, res[i].workspaceSize, rel_diff(C, R, nc));
            }
            cublasLtMatmulPreferenceDestroy(pref);
            cublasLtMatrixLayoutDestroy(la);
            cublasLtMatrixLayoutDestroy(lb);
            cublasLtMatrixLayoutDestroy(lc);
            cublasLtMatmulDescDestroy(op);
        }
        CK(cudaFree(A));
        CK(cudaFree(B));
        CK(cudaFree(C0));
        CK(cudaFree(C));
        CK(cudaFree(R));
    }
    CK(cudaFree(ws));
    cublasLtDestroy(Lt);
    cublasDestroy(H);
    return 0;
}
