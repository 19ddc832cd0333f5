// The inverse of a panel's diagonal block: cuBLAS's TRSM on the identity (what the library does)
// against a substitution of our own in the manner of gpu_kernels/gpu_dtrsm_crrb.cu
// (experiment, not built by meson; written 2026-12-01, run on one H200 the same day):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -Xptxas -v tools/tri_inverse.cu \
//        -lcublas -o /tmp/tri_inverse && /tmp/tri_inverse        (on a GPU)
//
// docs/performance.md (forty-second stop): on the native LU panel's row solves cuBLAS's DTRSM
// took 1.9-2.5x as long as the row-solve kernel.  Two more of its calls sit where they cost:
//   lu    the LU panel's inv(L_kk) (drivers/lu/gpu_dgetrf_panel.c): L_kk unit lower, row-major
//         in its CRRB tile (ld nb); the inverse row-major too (ld nb); cuBLAS's call there is
//         cublasDtrsm(R, U, N, U) on the identity, the tile's column-major view; on the panel
//         stream, once a step, on the LU's critical path at N = 16384 (item 5 of that stop);
//   chol  the GPU-only Cholesky's inv(L_kk) (drivers/chol/gpu_chol_trsm.c): L_kk non-unit
//         lower, column-major (ld n); W = inv(L_kk) column-major (ld kb); cublasDtrsm(L, L, N,
//         N) on the identity; on the lookahead stream beside the update, once a step (0.49 ms
//         at kb 1024 then; 42 steps at N = 65536 with kb 1536, where 0.5% is missing for 1.1x).
// Ours: Z = inv(M) column block by column block, RB columns a CTA: the identity's columns in
// shared memory (from the CTA's first diagonal block on: the rows above are zero), forward
// substitution in blocks of 32 rows: a warp per column solves the diagonal block through
// shuffles (dividing by the diagonal unless unit), then every thread updates rows below (a
// thread per row when M is column-major, its 32 multipliers coalesced across the threads;
// eight lanes per row and a reduce-scatter when row-major, as the row-solve kernel), the next
// diagonal block loaded meanwhile.  Checked: Z against cuBLAS's inverse (well-conditioned M:
// diagonal in [1, 2] or unit, off-diagonal entries of at most 1 / n), and Z M against I.
// Prints both times (best of 20) and the ratio, for orders 512, 1024, 1536.
// Result (docs/performance.md, forty-third stop), cuBLAS / ours ms at 512 / 1024 / 1536:
// lu 0.113 / 0.080, 0.237 / 0.271, 0.488 / 0.574; chol 0.234 / 0.148, 0.486 / 0.366, 0.814 /
// 0.666; the inverses within 4.8e-18 of cuBLAS's, |Z M - I| at most 1.1e-16.  The library
// took the LU's case up to 512 with its row-solve kernel on the identity instead (71 us).
#include "tool_cuda.h"
#include "../gpu_kernels/hyt_gpu_reduce.cuh"

#include <cublas_v2.h>

#define RB 8
#define BS 32
#define THREADS 256
#define YLD (RB + 1)
#define FULL 0xffffffffu
#define NMAX 1536
static_assert(RB == 8, "a row's eight lanes reduce its RB sums (sum8_scatter)");

// M(i, j): column-major (COLMAJ, ld ldm) or row-major; Z(i, j) at Z[i * zr + j * zc]
template <bool COLMAJ>
__device__ __forceinline__ double mel(const double *M, int64_t ldm, int i, int j)
{
    return COLMAJ ? M[i + (int64_t)j * ldm] : M[(int64_t)i * ldm + j];
}

template <bool COLMAJ, bool UNIT>
__global__ void __launch_bounds__(THREADS)
tri_inv(const double *__restrict__ M, int64_t ldm, int n, double *__restrict__ Z, int64_t zr,
        int64_t zc)
{
    extern __shared__ double Y[]; // [n - k_start][YLD]
    __shared__ double sL[BS][BS + 1];
    __shared__ double sD[BS];
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    const int cb = blockIdx.x * RB, nr = min(RB, n - cb), ks = cb / BS * BS;
    for (int i = t; i < (n - ks) * RB; i += THREADS) {
        const int k = ks + i / RB, r = i % RB;
        Y[(k - ks) * YLD + r] = k == cb + r ? 1.0 : 0.0;
    }
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const int e = t + THREADS * q, i = e / BS, j = e % BS;
        sL[i][j] = j < i && ks + i < n ? mel<COLMAJ>(M, ldm, ks + i, ks + j) : 0.0;
    }
    if (t < BS)
        sD[t] = UNIT || ks + t >= n ? 1.0 : mel<COLMAJ>(M, ldm, ks + t, ks + t);
    __syncthreads();
    for (int k0 = ks; k0 < n; k0 += BS) {
        {
            const int k = k0 + lane;
            double y = k < n ? Y[(k - ks) * YLD + wid] : 0.0;
#pragma unroll
            for (int j = 0; j < BS; j++) {
                if (!UNIT && lane == j)
                    y = y / sD[j];
                const double yj = __shfl_sync(FULL, y, j);
                if (lane > j)
                    y = fma(-sL[lane][j], yj, y);
            }
            if (k < n)
                Y[(k - ks) * YLD + wid] = y;
        }
        __syncthreads();
        const int k1 = k0 + BS;
        if (k1 >= n)
            break;
        double nl[4], nd = 1.0;
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int e = t + THREADS * q, i = e / BS, j = e % BS;
            nl[q] = j < i && k1 + i < n ? mel<COLMAJ>(M, ldm, k1 + i, k1 + j) : 0.0;
        }
        if (!UNIT && t < BS && k1 + t < n)
            nd = mel<COLMAJ>(M, ldm, k1 + t, k1 + t);
        if (COLMAJ) { // a thread a row, its multipliers coalesced across the threads
            for (int k = k1 + t; k < n; k += THREADS) {
                double p[RB] = {};
#pragma unroll 8
                for (int j = 0; j < BS; j++) {
                    const double l = M[k + (int64_t)(k0 + j) * ldm];
#pragma unroll
                    for (int r = 0; r < RB; r++)
                        p[r] = fma(l, Y[(k0 + j - ks) * YLD + r], p[r]);
                }
#pragma unroll
                for (int r = 0; r < RB; r++)
                    Y[(k - ks) * YLD + r] -= p[r];
            }
        } else { // eight lanes a row, as gpu_dtrsm_crrb.cu
            const int g = lane & 7, q = lane >> 3;
            double yb[4][RB];
#pragma unroll
            for (int c = 0; c < 4; c++)
#pragma unroll
                for (int r = 0; r < RB; r++)
                    yb[c][r] = Y[(k0 + g + 8 * c - ks) * YLD + r];
            for (int kb = k1 + 4 * wid; kb < n; kb += 4 * (THREADS / 32)) {
                const int k = kb + q;
                double l[4];
#pragma unroll
                for (int c = 0; c < 4; c++)
                    l[c] = k < n ? M[(int64_t)k * ldm + k0 + g + 8 * c] : 0.0;
                double p[RB];
#pragma unroll
                for (int r = 0; r < RB; r++) {
                    p[r] = l[0] * yb[0][r];
#pragma unroll
                    for (int c = 1; c < 4; c++)
                        p[r] = fma(l[c], yb[c][r], p[r]);
                }
                const double sum = sum8_scatter(p, g);
                if (k < n)
                    Y[(k - ks) * YLD + g] -= sum;
            }
        }
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int e = t + THREADS * q;
            sL[e / BS][e % BS] = nl[q];
        }
        if (t < BS)
            sD[t] = nd;
        __syncthreads();
    }
    // Z's columns cb .. cb + nr - 1 (zero above row ks); consecutive threads along Z's memory
    for (int i = t; i < n * RB; i += THREADS) {
        const int k = zc == 1 ? i / RB : i % n, r = zc == 1 ? i % RB : i / n;
        if (r < nr)
            Z[k * zr + (int64_t)(cb + r) * zc] = k < ks ? 0.0 : Y[(k - ks) * YLD + r];
    }
}

template <bool COLMAJ, bool UNIT>
static void launch(const double *M, int64_t ldm, int n, double *Z, int64_t zr, int64_t zc,
                   cudaStream_t st)
{
    const size_t smem = (size_t)n * YLD * sizeof(double);
    CK(cudaFuncSetAttribute((const void *)tri_inv<COLMAJ, UNIT>,
                            cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    tri_inv<COLMAJ, UNIT><<<(n + RB - 1) / RB, THREADS, smem, st>>>(M, ldm, n, Z, zr, zc);
    CK(cudaGetLastError());
}

// M: n x n, lower triangular in the case's layout, unit or diagonal in [1, 2], off-diagonal
// entries in [-1/n, 1/n]; the other triangle 7 (must not be read as part of L).
static std::vector<double> make_m(int n, bool colmaj, bool unit)
{
    std::vector<double> h((size_t)n * n);
    unsigned long long s = 12345;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            const double u = (double)(s >> 11) * 0x1p-53; // [0, 1)
            const double v = i > j ? (2 * u - 1) / n : i == j ? (unit ? 7.0 : 1 + u) : 7.0;
            h[colmaj ? i + (size_t)j * n : (size_t)i * n + j] = v;
        }
    return h;
}

int main()
{
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, st));
    const double one = 1.0;
    printf("%5s %5s | %10s %10s %7s | %10s %10s\n", "case", "n", "cuBLAS ms", "ours ms", "ratio",
           "|Z - Zc|", "|Z M - I|");
    for (int c = 0; c < 2; c++) {
        const bool chol = c == 1; // chol: non-unit, column-major; lu: unit, row-major
        for (int n = 512; n <= NMAX; n += 512) {
            std::vector<double> hm = make_m(n, chol, !chol), hi((size_t)n * n, 0.0);
            for (int i = 0; i < n; i++)
                hi[(size_t)i * n + i] = 1.0;
            double *M, *I, *Zc, *Z;
            const size_t bytes = (size_t)n * n * sizeof(double);
            CK(cudaMalloc((void **)&M, bytes));
            CK(cudaMalloc((void **)&I, bytes));
            CK(cudaMalloc((void **)&Zc, bytes));
            CK(cudaMalloc((void **)&Z, bytes));
            CK(cudaMemcpy(M, hm.data(), bytes, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(I, hi.data(), bytes, cudaMemcpyHostToDevice));
            auto reset = [&] { CK(cudaMemcpyAsync(Zc, I, bytes, cudaMemcpyDeviceToDevice, st)); };
            // the library's calls: lu: the tile's column-major view, from the right, upper,
            // unit (Zc row-major inv(L)); chol: from the left, lower, non-unit (Zc col-major)
            auto cub = [&] {
                if (chol)
                    CB(cublasDtrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                   CUBLAS_DIAG_NON_UNIT, n, n, &one, M, n, Zc, n));
                else
                    CB(cublasDtrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                   CUBLAS_DIAG_UNIT, n, n, &one, M, n, Zc, n));
            };
            auto ours = [&] {
                if (chol)
                    launch<true, false>(M, n, n, Z, 1, n, st);
                else
                    launch<false, true>(M, n, n, Z, n, 1, st);
            };
            const double tc = tool_best_ms(st, 20, cub, reset);
            const double to = tool_best_ms(st, 20, ours, [] {});
            reset();
            cub();
            CK(cudaStreamSynchronize(st));
            std::vector<double> zc((size_t)n * n), z((size_t)n * n);
            CK(cudaMemcpy(zc.data(), Zc, bytes, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(z.data(), Z, bytes, cudaMemcpyDeviceToHost));
            double err = 0, nrm = 0, res = 0;
            for (size_t e = 0; e < zc.size(); e++) {
                err = fmax(err, fabs(z[e] - zc[e]));
                nrm = fmax(nrm, fabs(zc[e]));
            }
            // Z M - I on a few rows (Z, M in the case's layout: element (i, j))
            auto at = [&](const std::vector<double> &a, int i, int j) {
                return chol ? a[i + (size_t)j * n] : a[(size_t)i * n + j];
            };
            for (int i = 0; i < n; i += 97)
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int k = j; k <= i; k++) // Z lower, M lower: k in [j, i]
                        s += at(z, i, k) * (k == j && !chol ? 1.0 : at(hm, k, j));
                    res = fmax(res, fabs(s - (i == j)));
                }
            printf("%5s %5d | %10.4f %10.4f %7.2f | %10.2e %10.2e\n", chol ? "chol" : "lu", n, tc,
                   to, tc / to, err / nrm, res);
            CK(cudaFree(M));
            CK(cudaFree(I));
            CK(cudaFree(Zc));
            CK(cudaFree(Z));
        }
    }
    CB(cublasDestroy(h));
    CK(cudaStreamDestroy(st));
    return 0;
}
