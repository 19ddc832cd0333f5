// Is there a faster FP64 GEMM than cublasDgemm's choice for the Cholesky's and the LU's
// trailing updates?  (experiment, not built by meson; run 2026-11-27 on one H200, results in
// docs/performance.md: alone, none of cublasLt's algorithms is reliably faster than
// cublasDgemm's pick on these shapes; inside the lower Cholesky its first one is, see
// chol.gemm_lt)
//   nvcc -O2 -arch=sm_90 tools/gemm_lt.cu -lcublasLt -lcublas -o /tmp/gemm_lt
//   /tmp/gemm_lt [M[,M...]] [K] [ROUNDS] [N]
// C is M x N (N = M when 0 or absent), K the inner dimension; default M 16384,32768,65536,
// K 1024, one round; an M whose matrices do not fit is skipped (65536 square needs an H200).
//
// Why: the lower GPU-only Cholesky at N = 65536 is update-bound from start to end (its trace,
// docs/performance.md) and runs at 48.6 TFLOP/s against cuBLAS DGEMM's 55.6 at K = 1024 ('N',
// 'T'); the 1.1x cuSOLVER target needs ~51.  If one of cublasLt's other algorithms (tiles,
// stages, cluster shapes) runs the update's shapes a few percent faster, the library could
// ask cublasLt for it once per shape.
//
// Prints, per M and round (C -= A B^T as the lower Cholesky's update; then 'N','N' as the
// LU's): cublasDgemm's best of 3, then each of cublasLt's heuristic algorithms (up to 16,
// workspace 64 MiB) with its TFLOP/s, its ratio to cublasDgemm and its configuration (tile,
// stages, cluster, split-K, swizzle); every result is compared with cublasDgemm's
// (max |difference| / max |C|) so that an algorithm that computes something else is seen.
// Single timings vary by up to 10% between rounds (clocks and power): compare rounds.
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
    const int rounds = argc > 3 ? atoi(argv[3]) : 1; // cublasDgemm, then every algorithm, again
    const int Narg = argc > 4 ? atoi(argv[4]) : 0;    // C is M x N (0: N = M)
    cublasHandle_t H;
    cublasLtHandle_t Lt;
    CB(cublasCreate(&H));
    CB(cublasLtCreate(&Lt));
    const size_t wsb = (size_t)64 << 20;
    void *ws;
    CK(cudaMalloc(&ws, wsb));
    const double one = 1.0, mone = -1.0;
    for (int M : ms) {
        const int N = Narg > 0 ? Narg : M;
        const size_t nc = (size_t)M * N, na = (size_t)M * K, nb = (size_t)N * K;
        size_t avail, total;
        CK(cudaMemGetInfo(&avail, &total));
        if ((3 * nc + na + nb) * 8 + ((size_t)1 << 30) > avail) { // C0, C, R, A, B and room
            printf("M %6d: skipped, %.1f GiB of device memory needed\n", M,
                   (3 * nc + na + nb) * 8.0 / (1 << 30));
            continue;
        }
        double *A, *B, *C0, *C, *R;
        CK(cudaMalloc(&A, na * 8));
        CK(cudaMalloc(&B, nb * 8));
        CK(cudaMalloc(&C0, nc * 8));
        CK(cudaMalloc(&C, nc * 8));
        CK(cudaMalloc(&R, nc * 8));
        tool_fill(A, na, 1.0);
        tool_fill(B, nb, 1.0);
        tool_fill(C0, nc, 1.0);
        const double flops = 2.0 * M * N * K;
        for (int nn = 0; nn < 2; nn++) { // 'N','T' (Cholesky), 'N','N' (LU, B as K x M)
            const cublasOperation_t tb = nn ? CUBLAS_OP_N : CUBLAS_OP_T;
            const int ldb = nn ? K : N;
            auto restore = [&] { CK(cudaMemcpyAsync(C, C0, nc * 8, cudaMemcpyDeviceToDevice)); };
            for (int round = 0; round < rounds; round++) {
                double t0 = tool_best_ms(0, 3, [&] {
                    CB(cublasDgemm(H, CUBLAS_OP_N, tb, M, N, K, &mone, A, M, B, ldb, &one, C, M));
                }, restore);
                restore();
                CB(cublasDgemm(H, CUBLAS_OP_N, tb, M, N, K, &mone, A, M, B, ldb, &one, C, M));
                CK(cudaMemcpy(R, C, nc * 8, cudaMemcpyDeviceToDevice));
                printf("M %6d N %6d K %5d %s  cublasDgemm  %9.3f ms %6.1f TFLOP/s  round %d\n", M,
                       N, K, nn ? "NN" : "NT", t0, flops / t0 / 1e9, round);
                cublasLtMatmulDesc_t op;
                CB(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_64F, CUDA_R_64F));
                const cublasOperation_t ta = CUBLAS_OP_N;
                CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
                CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
                cublasLtMatrixLayout_t la, lb, lc;
                CB(cublasLtMatrixLayoutCreate(&la, CUDA_R_64F, M, K, M));
                CB(cublasLtMatrixLayoutCreate(&lb, CUDA_R_64F, nn ? K : N, nn ? N : K, ldb));
                CB(cublasLtMatrixLayoutCreate(&lc, CUDA_R_64F, M, N, M));
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
                    int cfg[5] = {0, 0, 0, 0, 0};
                    const cublasLtMatmulAlgoConfigAttributes_t at[5] = {
                        CUBLASLT_ALGO_CONFIG_TILE_ID, CUBLASLT_ALGO_CONFIG_STAGES_ID,
                        CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                        CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING};
                    for (int a = 0; a < 5; a++) {
                        size_t w;
                        uint32_t v = 0;
                        if (!cublasLtMatmulAlgoConfigGetAttribute(&res[i].algo, at[a], &v, sizeof v,
                                                                  &w))
                            cfg[a] = (int)v;
                    }
                    printf("M %6d N %6d K %5d %s  cublasLt #%2d %9.3f ms %6.1f TFLOP/s  %5.3f x  "
                           "workspace %zu  diff %.1e  tile %d stages %d cluster %d splitk %d "
                           "swizzle %d\n", M, N, K, nn ? "NN" : "NT", i, t,
                           flops / t / 1e9, t0 / t, res[i].workspaceSize, rel_diff(C, R, nc),
                           cfg[0], cfg[1], cfg[2], cfg[3], cfg[4]);
                }
                cublasLtMatmulPreferenceDestroy(pref);
                cublasLtMatrixLayoutDestroy(la);
                cublasLtMatrixLayoutDestroy(lb);
                cublasLtMatrixLayoutDestroy(lc);
                cublasLtMatmulDescDestroy(op);
            } // rounds
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
