// The short-panel kernel's update step A22 -= L21 U12 on the FP64 tensor cores (DMMA) against
// its CUDA-core FMAs (experiment, not built by meson):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v tools/short_update_dmma.cu \
//        -o /tmp/short_update_dmma && /tmp/short_update_dmma          (on a Hopper GPU)
//
// docs/performance.md (thirty-eighth stop): in gpu_dgetrf_short.cu each CTA applies every
// earlier leaf to its 32-column chunk (rows in shared memory, stride 33): A22 -= L21 U12 with
// L21 (n22 x 32) column-major in global memory (leading dimension R) and U12 (32 x 32) in shared
// memory.  With two rows a thread the step takes ~4-5 us for n22 = 480 on one SM: the FP64
// pipe's 64 FMAs a cycle bound it at ~3.9 us.  DMMA (mma.m8n8k4.f64: A 8x4 row-major, lane holds
// A[lane/4][lane%4]; B 4x8, lane holds B[lane%4][lane/4]; C and D 8x8, lane holds
// D[lane/4][2(lane%4) + {0, 1}]) runs twice that rate.  Here a warp takes 8-row tiles of A22,
// all four 8-column tiles of each, K = 32 in eight steps of 4, A = -L21 so that D = A22 - L21 U12;
// a lane keeps its 32 B fragments of U12 in registers for all its tiles.
// Prints, for n22 = 480, 224 and 32: each version's cycles (clock64 of thread 0 around the step,
// best of REPS launches), the largest difference between the two results relative to the
// largest |A22| entry, and how many entries differ in their bits (DMMA sums four products in
// its own order; the CUDA cores sum them one FMA at a time).
//
// Status: written at the thirty-eighth stop, run at the thirty-ninth (one H200): n22 480: FMAs
// 16885 cycles, DMMA 13853 (1.22x); 224: 9156 / 8899 (1.03x); 32: 8679 / 2339; the same bits
// in every entry: at most ~1.5 us off each of the 512 x 512 panel's 15 update steps, not taken
// up yet.
#include "tool_cuda.h"

#include <math.h>

#include <vector>

#define THREADS 512
#define W 32
#define LD (W + 1)
#define REPS 50

__device__ long long d_cyc;

__device__ __forceinline__ static void dmma(double &d0, double &d1, double a, double b)
{
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
}

// A22 (rows [0, n22) of ch) -= L21 U12.  dm: the DMMA version, else the library's FMAs (two rows
// a thread, columns [16 (t / 256), +16)).
__global__ void __launch_bounds__(THREADS, 1)
k_update(double *A, const double *lk, const double *U, int n22, int R, bool dm)
{
    extern __shared__ double ch[]; /* [n22][LD] */
    __shared__ double U12[W][W];
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    for (int i = t; i < n22 * W; i += THREADS)
        ch[(i / W) * LD + i % W] = A[i];
    for (int i = t; i < W * W; i += THREADS)
        U12[i / W][i % W] = U[i];
    __syncthreads();
    const long long c0 = clock64();
    if (dm) {
        const int g = lane >> 2, q = lane & 3;
        double bf[W / 4][4]; /* the lane's B fragments of U12, the same for every row tile */
#pragma unroll
        for (int ks = 0; ks < W / 4; ks++)
#pragma unroll
            for (int ct = 0; ct < 4; ct++)
                bf[ks][ct] = U12[ks * 4 + q][ct * 8 + g];
        for (int rt = wid; rt * 8 < n22; rt += THREADS / 32) {
            const int r = rt * 8 + g; /* this lane's row of A and of D */
            const bool ok = r < n22;
            double d[4][2];
#pragma unroll
            for (int ct = 0; ct < 4; ct++) {
                d[ct][0] = ok ? ch[r * LD + ct * 8 + 2 * q] : 0.0;
                d[ct][1] = ok ? ch[r * LD + ct * 8 + 2 * q + 1] : 0.0;
            }
#pragma unroll
            for (int ks = 0; ks < W / 4; ks++) {
                const double a = ok ? -__ldcg(lk + (size_t)(ks * 4 + q) * R + r) : 0.0;
#pragma unroll
                for (int ct = 0; ct < 4; ct++)
                    dmma(d[ct][0], d[ct][1], a, bf[ks][ct]);
            }
            if (ok)
#pragma unroll
                for (int ct = 0; ct < 4; ct++) {
                    ch[r * LD + ct * 8 + 2 * q] = d[ct][0];
                    ch[r * LD + ct * 8 + 2 * q + 1] = d[ct][1];
                }
        }
    } else {
        const int g = (t / 256) * 16, i = 2 * (t % 256);
        if (i < n22) {
            const bool two = i + 1 < n22;
            double *const row0 = ch + i * LD + g, *const row1 = row0 + LD;
            double a0[16], a1[16];
#pragma unroll
            for (int e = 0; e < 16; e++) {
                a0[e] = row0[e];
                a1[e] = two ? row1[e] : 0.0;
            }
#pragma unroll 4
            for (int b = 0; b < W; b++) {
                const double l0 = __ldcg(lk + (size_t)b * R + i);
                const double l1 = two ? __ldcg(lk + (size_t)b * R + i + 1) : 0.0;
#pragma unroll
                for (int e = 0; e < 16; e++) {
                    const double u = U12[b][g + e];
                    a0[e] = __fma_rn(-l0, u, a0[e]);
                    a1[e] = __fma_rn(-l1, u, a1[e]);
                }
            }
#pragma unroll
            for (int e = 0; e < 16; e++) {
                row0[e] = a0[e];
                if (two)
                    row1[e] = a1[e];
            }
        }
    }
    __syncthreads();
    if (t == 0)
        d_cyc = clock64() - c0;
    for (int i = t; i < n22 * W; i += THREADS)
        A[i] = ch[(i / W) * LD + i % W];
}

int main()
{
    const int R = 512;
    for (int n22 : {480, 224, 32}) {
        std::vector<double> hA(n22 * W), hL((size_t)W * R), hU(W * W);
        unsigned long long s = 7;
        auto rnd = [&] {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            return (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        };
        for (auto &v : hA)
            v = rnd();
        for (auto &v : hL)
            v = rnd();
        for (auto &v : hU)
            v = rnd();
        double *dA, *dL, *dU;
        CK(cudaMalloc(&dA, hA.size() * sizeof(double)));
        CK(cudaMalloc(&dL, hL.size() * sizeof(double)));
        CK(cudaMalloc(&dU, hU.size() * sizeof(double)));
        CK(cudaMemcpy(dL, hL.data(), hL.size() * sizeof(double), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dU, hU.data(), hU.size() * sizeof(double), cudaMemcpyHostToDevice));
        const int smem = n22 * LD * (int)sizeof(double);
        CK(cudaFuncSetAttribute(k_update, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        std::vector<double> out[2];
        long long best[2];
        for (int v = 0; v < 2; v++) {
            best[v] = -1;
            for (int r = 0; r < REPS; r++) {
                CK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(double),
                              cudaMemcpyHostToDevice));
                k_update<<<1, THREADS, smem>>>(dA, dL, dU, n22, R, v == 1);
                CK(cudaGetLastError());
                CK(cudaDeviceSynchronize());
                long long c;
                CK(cudaMemcpyFromSymbol(&c, d_cyc, sizeof c));
                if (best[v] < 0 || c < best[v])
                    best[v] = c;
            }
            out[v].resize(hA.size());
            CK(cudaMemcpy(out[v].data(), dA, hA.size() * sizeof(double),
                          cudaMemcpyDeviceToHost));
        }
        double amax = 0.0, dmax = 0.0;
        size_t ndiff = 0;
        for (size_t i = 0; i < hA.size(); i++) {
            amax = fmax(amax, fabs(out[0][i]));
            dmax = fmax(dmax, fabs(out[0][i] - out[1][i]));
            ndiff += out[0][i] != out[1][i];
        }
        printf("n22 %3d: FMAs %6lld cycles, DMMA %6lld cycles (%.2fx); largest difference "
               "%.2e of max |A22|, %zu of %zu entries differ in their bits\n",
               n22, best[0], best[1], (double)best[0] / (double)best[1], dmax / amax, ndiff,
               hA.size());
        CK(cudaFree(dA));
        CK(cudaFree(dL));
        CK(cudaFree(dU));
    }
    return 0;
}
