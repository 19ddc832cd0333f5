// The GPU Cholesky's panel solve on one GPU, one call at a time (experiment, not built by
// meson; docs/performance.md, "The Cholesky's panel solve as a GEMM with the inverse"):
//   nvcc -O2 -arch=sm_90 tools/chol_trsm_inv.cu -lcublas -lcusolver -o /tmp/chol_trsm_inv
//   inverses of a kb x kb triangle: TRSM on the identity, recursive (TRMMs, leaves TRSM on
//   the identity), cusolverDnXtrtri;
//   the solve of m rows: TRSM in place; GEMM with the inverse into a workspace (+ copy back,
//   whole or in row chunks); TRMM in place with the inverse.
// Layout as in the factorization: the rows live in an N0 x N0 matrix (leading dimension N0,
// 35 GB of device memory).  The checks and the timing: tool_cuda.h, beside it.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tool_cuda.h"

static const int N0 = 65536 + 1024;
static cublasHandle_t hb;
static cusolverDnHandle_t hs;
static cudaStream_t st;

__device__ double hashu(unsigned long long i, unsigned long long seed)
{
    unsigned long long x = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    return (double)(x >> 11) * 0x1p-53 * 2.0 - 1.0;
}

__global__ void k_fill(double *A, long long ld, int m, int n, unsigned long long seed)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long tot = (long long)m * n;
    for (; t < tot; t += (long long)gridDim.x * blockDim.x) {
        long long r = t % m, c = t / m;
        A[r + c * ld] = hashu(t, seed);
    }
}

// LAPACK dlaset: strictly-uplo part alpha ('A': all off-diagonal), diagonal beta
__global__ void k_laset(char uplo, int m, int n, double alpha, double beta, double *A, int lda)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long tot = (long long)m * n;
    for (; t < tot; t += (long long)gridDim.x * blockDim.x) {
        int r = (int)(t % m), c = (int)(t / m);
        if (r == c)
            A[r + (long long)c * lda] = beta;
        else if (uplo == 'A' || (uplo == 'U' && r < c) || (uplo == 'L' && r > c))
            A[r + (long long)c * lda] = alpha;
    }
}

static void fill(double *A, long long ld, int m, int n, unsigned long long seed)
{
    k_fill<<<1024, 256, 0, st>>>(A, ld, m, n, seed);
    CK(cudaGetLastError());
}
static void laset(char uplo, int m, int n, double a, double b, double *A, int lda)
{
    k_laset<<<std::min(1024, (m * n + 255) / 256), 256, 0, st>>>(uplo, m, n, a, b, A, lda);
    CK(cudaGetLastError());
}

// timeit(op) or timeit(op, pre): best of 3 of op on st after a warm-up, pre (not timed) before
// each run
template <class... F>
static double timeit(const F &...f)
{
    return tool_best_ms(st, 3, f...);
}

static const double one = 1.0, zero = 0.0, mone = -1.0;

// inverse of the n x n triangle T (uplo) into W (ld ldw) whose other triangle is zero and
// whose diagonal blocks are the identity on entry: recursive with leaves TRSM on the identity
static void inv_rec(char uplo, int n, const double *T, int ldt, double *W, int ldw, int leaf)
{
    cublasFillMode_t f = uplo == 'L' ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    if (n <= leaf) {
        CB(cublasDtrsm(hb, CUBLAS_SIDE_LEFT, f, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n, &one, T,
                       ldt, W, ldw));
        return;
    }
    int h = (n / 2 + 63) / 64 * 64;
    if (h >= n)
        h = n / 2;
    inv_rec(uplo, h, T, ldt, W, ldw, leaf);
    inv_rec(uplo, n - h, T + h + (long long)h * ldt, ldt, W + h + (long long)h * ldw, ldw, leaf);
    const double *W11 = W, *W22 = W + h + (long long)h * ldw;
    if (uplo == 'L') { // W21 = -W22 T21 W11
        const double *T21 = T + h;
        double *W21 = W + h;
        CB(cublasDtrmm(hb, CUBLAS_SIDE_RIGHT, f, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n - h, h, &one,
                       W11, ldw, T21, ldt, W21, ldw));
        CB(cublasDtrmm(hb, CUBLAS_SIDE_LEFT, f, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n - h, h, &mone,
                       W22, ldw, W21, ldw, W21, ldw));
    } else { // W12 = -W11 T12 W22
        const double *T12 = T + (long long)h * ldt;
        double *W12 = W + (long long)h * ldw;
        CB(cublasDtrmm(hb, CUBLAS_SIDE_LEFT, f, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, h, n - h, &one,
                       W11, ldw, T12, ldt, W12, ldw));
        CB(cublasDtrmm(hb, CUBLAS_SIDE_RIGHT, f, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, h, n - h,
                       &mone, W22, ldw, W12, ldw, W12, ldw));
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    CK(cudaStreamCreate(&st));
    CB(cublasCreate(&hb));
    CB(cublasSetStream(hb, st));
    CB(cusolverDnCreate(&hs));
    CB(cusolverDnSetStream(hs, st));
    const int KBMAX = 1024;
    double *M, *T, *W, *work, *dref, *S;
    int *dinfo;
    CK(cudaMalloc(&M, (size_t)N0 * N0 * sizeof(double)));
    CK(cudaMalloc(&T, (size_t)KBMAX * KBMAX * sizeof(double)));
    CK(cudaMalloc(&S, (size_t)KBMAX * KBMAX * sizeof(double)));
    CK(cudaMalloc(&W, (size_t)KBMAX * KBMAX * sizeof(double)));
    CK(cudaMalloc(&work, 2 * (size_t)N0 * KBMAX * sizeof(double)));
    CK(cudaMalloc(&dref, (size_t)N0 * KBMAX * sizeof(double)));
    CK(cudaMalloc(&dinfo, sizeof(int)));
    fill(M, N0, N0, N0, 1);
    const int kbs[] = {512, 768, 1024};
    const int ms[] = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
    printf("# all times ms, best of 3 after a warm-up; one call at a time, idle GPU\n");
    for (int kb : kbs) {
        // T: a Cholesky factor (lower in T; its transpose, upper, in S) of kb I + R, R
        // symmetric in (-1, 1), scaled by 1/sqrt(kb) so that T ~ I (well conditioned)
        std::vector<double> h((size_t)kb * kb);
        for (int c = 0; c < kb; c++)
            for (int r = 0; r < kb; r++) {
                int a = std::max(r, c), b = std::min(r, c);
                double u = std::sin(1e3 * (a + 1.37 * b + 0.1));
                h[r + (size_t)c * kb] = (r == c ? kb : 0) + u;
            }
        CK(cudaMemcpy(T, h.data(), h.size() * 8, cudaMemcpyHostToDevice));
        int lw;
        double *dw;
        CB(cusolverDnDpotrf_bufferSize(hs, CUBLAS_FILL_MODE_LOWER, kb, T, kb, &lw));
        CK(cudaMalloc(&dw, (size_t)lw * 8));
        CB(cusolverDnDpotrf(hs, CUBLAS_FILL_MODE_LOWER, kb, T, kb, dw, lw, dinfo));
        CK(cudaStreamSynchronize(st));
        CK(cudaFree(dw));
        double sc = 1.0 / std::sqrt((double)kb);
        CB(cublasDscal(hb, kb * kb, &sc, T, 1));
        CB(cublasDgeam(hb, CUBLAS_OP_T, CUBLAS_OP_N, kb, kb, &one, T, kb, &zero, T, kb, S, kb));
        CK(cudaStreamSynchronize(st));
        // ---- inverses
        for (char u : {'L', 'U'}) {
            const double *A = u == 'L' ? T : S;
            cublasFillMode_t f = u == 'L' ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
            double t_id = timeit([&] {
                laset('A', kb, kb, 0.0, 1.0, W, kb);
                CB(cublasDtrsm(hb, CUBLAS_SIDE_LEFT, f, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, kb, kb,
                               &one, A, kb, W, kb));
            });
            double t_laset = timeit([&] { laset('A', kb, kb, 0.0, 1.0, W, kb); });
            double t_rec[3];
            int leaves[3] = {128, 256, 512};
            for (int l = 0; l < 3; l++)
                t_rec[l] = timeit([&] {
                    laset('A', kb, kb, 0.0, 1.0, W, kb);
                    inv_rec(u, kb, A, kb, W, kb, leaves[l]);
                });
            // check the recursive one (leaf 128) against TRSM on the identity
            laset('A', kb, kb, 0.0, 1.0, dref, kb);
            CB(cublasDtrsm(hb, CUBLAS_SIDE_LEFT, f, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, kb, kb, &one,
                           A, kb, dref, kb));
            laset('A', kb, kb, 0.0, 1.0, W, kb);
            inv_rec(u, kb, A, kb, W, kb, 128);
            std::vector<double> x((size_t)kb * kb), y((size_t)kb * kb);
            CK(cudaMemcpy(x.data(), dref, x.size() * 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(y.data(), W, y.size() * 8, cudaMemcpyDeviceToHost));
            double dmax = 0, xmax = 0;
            for (size_t i = 0; i < x.size(); i++) {
                dmax = std::max(dmax, std::fabs(x[i] - y[i]));
                xmax = std::max(xmax, std::fabs(x[i]));
            }
            size_t dws = 0, hws = 0;
            CB(cusolverDnXtrtri_bufferSize(hs, f, CUBLAS_DIAG_NON_UNIT, kb, CUDA_R_64F, W, kb, &dws,
                                           &hws));
            void *dbuf = nullptr, *hbuf = nullptr;
            CK(cudaMalloc(&dbuf, dws ? dws : 8));
            hbuf = malloc(hws ? hws : 8);
            double t_trtri = timeit([&] {
                CK(cudaMemcpy2DAsync(W, kb * 8, A, kb * 8, kb * 8, kb, cudaMemcpyDeviceToDevice,
                                     st));
                CB(cusolverDnXtrtri(hs, f, CUBLAS_DIAG_NON_UNIT, kb, CUDA_R_64F, W, kb, dbuf, dws,
                                    hbuf, hws, dinfo));
            });
            CK(cudaFree(dbuf));
            free(hbuf);
            printf("inv %c kb %4d | laset %.4f  trsm-on-identity %.4f  rec128 %.4f  rec256 %.4f  "
                   "rec512 %.4f  trtri %.4f | rec-vs-id max diff %.2e (max %.2e)\n",
                   u, kb, t_laset, t_id, t_rec[0], t_rec[1], t_rec[2], t_trtri, dmax, xmax);
            fflush(stdout);
        }
        // W = inv(T) lower, dref = inv(S) upper (for the products)
        double *WL = W, *WU = dref + (size_t)N0 * KBMAX - (size_t)kb * kb;
        laset('A', kb, kb, 0.0, 1.0, WL, kb);
        CB(cublasDtrsm(hb, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                       CUBLAS_DIAG_NON_UNIT, kb, kb, &one, T, kb, WL, kb));
        laset('A', kb, kb, 0.0, 1.0, WU, kb);
        CB(cublasDtrsm(hb, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                       CUBLAS_DIAG_NON_UNIT, kb, kb, &one, S, kb, WU, kb));
        CK(cudaStreamSynchronize(st));
        for (int m : ms) {
            if (m + kb > N0)
                continue;
            // lower: rows kb .. kb+m of columns 0..kb of M; upper: rows 0..kb, columns kb..
            double *BL = M + kb, *BU = M + (size_t)kb * N0;
            auto preL = [&] { fill(BL, N0, m, kb, 7); };
            auto preU = [&] { fill(BU, N0, kb, m, 9); };
            auto gemmL = [&](int r0, int rows, double *C, int ldc) {
                CB(cublasDgemm(hb, CUBLAS_OP_N, CUBLAS_OP_T, rows, kb, kb, &one, BL + r0, N0, WL,
                               kb, &zero, C, ldc));
            };
            auto copyL = [&](int r0, int rows, const double *C, int ldc) {
                CK(cudaMemcpy2DAsync(BL + r0, (size_t)N0 * 8, C, (size_t)ldc * 8,
                                     (size_t)rows * 8, kb, cudaMemcpyDeviceToDevice, st));
            };
            auto gemmU = [&](int c0, int cols, double *C) {
                CB(cublasDgemm(hb, CUBLAS_OP_T, CUBLAS_OP_N, kb, cols, kb, &one, WU, kb,
                               BU + (size_t)c0 * N0, N0, &zero, C, kb));
            };
            auto copyU = [&](int c0, int cols, const double *C) {
                CK(cudaMemcpy2DAsync(BU + (size_t)c0 * N0, (size_t)N0 * 8, C, (size_t)kb * 8,
                                     (size_t)kb * 8, cols, cudaMemcpyDeviceToDevice, st));
            };
            double l_trsm = timeit([&] {
                CB(cublasDtrsm(hb, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                               CUBLAS_DIAG_NON_UNIT, m, kb, &one, T, kb, BL, N0));
            }, preL);
            // accuracy: TRSM's result kept beside the GEMM's workspace
            CK(cudaMemcpy2DAsync(work + (size_t)m * kb, (size_t)m * 8, BL, (size_t)N0 * 8,
                                 (size_t)m * 8, kb, cudaMemcpyDeviceToDevice, st));
            double l_gemm = timeit([&] { gemmL(0, m, work, m); }, preL);
            double l_copy = timeit([&] { copyL(0, m, work, m); });
            double l_gc = timeit([&] {
                gemmL(0, m, work, m);
                copyL(0, m, work, m);
            }, preL);
            std::vector<double> x((size_t)m * kb), y((size_t)m * kb);
            CK(cudaMemcpy(x.data(), work + (size_t)m * kb, x.size() * 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy2D(y.data(), (size_t)m * 8, BL, (size_t)N0 * 8, (size_t)m * 8, kb,
                            cudaMemcpyDeviceToHost));
            double dmax = 0, xmax = 0;
            for (size_t i = 0; i < x.size(); i++) {
                dmax = std::max(dmax, std::fabs(x[i] - y[i]));
                xmax = std::max(xmax, std::fabs(x[i]));
            }
            double l_ch[2];
            const int chs[2] = {8192, 16384};
            for (int q = 0; q < 2; q++)
                l_ch[q] = timeit([&] {
                    for (int r0 = 0; r0 < m; r0 += chs[q]) {
                        int rows = std::min(chs[q], m - r0);
                        gemmL(r0, rows, work, rows);
                        copyL(r0, rows, work, rows);
                    }
                }, preL);
            double l_trmm = timeit([&] {
                CB(cublasDtrmm(hb, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                               CUBLAS_DIAG_NON_UNIT, m, kb, &one, WL, kb, BL, N0, BL, N0));
            }, preL);
            double u_trsm = timeit([&] {
                CB(cublasDtrsm(hb, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T,
                               CUBLAS_DIAG_NON_UNIT, kb, m, &one, S, kb, BU, N0));
            }, preU);
            double u_gc = timeit([&] {
                gemmU(0, m, work);
                copyU(0, m, work);
            }, preU);
            double u_ch = timeit([&] {
                for (int c0 = 0; c0 < m; c0 += 16384) {
                    int cols = std::min(16384, m - c0);
                    gemmU(c0, cols, work);
                    copyU(c0, cols, work);
                }
            }, preU);
            double u_trmm = timeit([&] {
                CB(cublasDtrmm(hb, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T,
                               CUBLAS_DIAG_NON_UNIT, kb, m, &one, WU, kb, BU, N0, BU, N0));
            }, preU);
            printf("apply kb %4d m %6d | L: trsm %.4f  gemm %.4f  copy %.4f  gemm+copy %.4f  "
                   "chunk8k %.4f  chunk16k %.4f  trmm %.4f | U: trsm %.4f  gemm+copy %.4f  "
                   "chunk16k %.4f  trmm %.4f | L gemm-vs-trsm max diff %.2e (max %.2e)\n",
                   kb, m, l_trsm, l_gemm, l_copy, l_gc, l_ch[0], l_ch[1], l_trmm, u_trsm, u_gc,
                   u_ch, u_trmm, dmax, xmax);
            fflush(stdout);
        }
    }
    CB(cusolverDnDestroy(hs));
    CB(cublasDestroy(hb));
    return 0;
}
