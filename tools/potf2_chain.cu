// The fused potf2's per-column chain, measured alone on one warp (experiment, not built by meson):
//   nvcc -O3 -arch=sm_90 tools/potf2_chain.cu -o /tmp/potf2_chain && /tmp/potf2_chain
// gpu_kernels/gpu_dpotf2.cu factors each 32 x 32 diagonal tile in one warp, a row per lane, and
// spends about 300 cycles a column there (docs/performance.md, eleventh stop).  Here one warp
// runs 32-column factorizations of an SPD tile held in registers, clock64 around each, in
// variants that keep or leave out the parts of a column's work:
//   full      the kernel's column: pivot test, rsqrt(d), the column scaled, the next pivot
//             shuffled from lane c+1, and the rank-1 update of the later columns (shuffles)
//   chain     only the chain that links the columns: shuffle, test, rsqrt, scale, next pivot
//   nobranch  chain without the pivot test
//   approx    chain with rsqrt.approx.f64 (no refinement: inexact, for its latency only)
//   fp64x6    six dependent DFMAs a column (what FP64 latency alone costs)
//   pair      a latency proxy of two columns per link (not a factorization): the pair's three
//             pivot entries shuffled, the 2 x 2 determinant, its reciprocal (__drcp_rn) and
//             three dependent FMAs of the Schur complement, i.e. the chain of pivoting two
//             columns at once through the 2 x 2 block's inverse
// Prints cycles per column (best and median of the repetitions of one warp).
#include "tool_cuda.h"

#include <algorithm>
#include <vector>

#define NB 32
#define REPS 64
#define FULL 0xffffffffu

enum { V_FULL, V_CHAIN, V_NOBRANCH, V_APPROX, V_FP64X6, V_PAIR, NV };
static const char *const names[NV] = {"full", "chain", "nobranch", "approx", "fp64x6", "pair"};

__device__ __forceinline__ static double rsqrt_approx(double d)
{
    double r;
    asm volatile("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(d));
    return r;
}

template <int V>
__global__ void chain(const double *A, double *out, long long *cyc)
{
    const int lane = threadIdx.x;
    double sink = 0, a0[NB];
#pragma unroll
    for (int c = 0; c < NB; c++) /* in registers before any timing: no memory in the timed part */
        a0[c] = A[lane + c * NB];
    for (int rep = 0; rep < REPS; rep++) {
        double a[NB];
#pragma unroll
        for (int c = 0; c < NB; c++)
            a[c] = a0[c] + rep * 1e-3 * (lane == c);
        __syncwarp();
        /* the clock reads and the empty asm statements are all volatile, so they keep their
         * order: every a[c] is "written" after t0 and "read" before t1, and no arithmetic of the
         * factorization moves out of the timed part */
        long long t0, t1;
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
#pragma unroll
        for (int c = 0; c < NB; c++)
            asm volatile("" : "+d"(a[c]));
        double d = __shfl_sync(FULL, a[0], 0);
        int fail = NB;
#pragma unroll
        for (int c = 0; c < NB; c++) {
            if (V == V_PAIR) {
                if (c % 2)
                    continue;
                const double d0 = __shfl_sync(FULL, d, c), b = __shfl_sync(FULL, a[c], c + 1),
                             d1 = __shfl_sync(FULL, a[c + 1], c + 1);
                const double det = fma(d0, d1, -b * b);
                if (!(det > 0.0)) {
                    fail = c;
                    break;
                }
                const double inv = __drcp_rn(det);
                d = fma(fma(fma(-b, inv, d1), inv, b), 1e-9, d0 + 1e-3);
                a[c] = inv;
                a[c + 1] = det;
                continue;
            }
            if (V == V_FP64X6) {
#pragma unroll
                for (int q = 0; q < 6; q++)
                    d = fma(d, 0.999, 1e-3);
                a[c] = d;
                continue;
            }
            if (V != V_NOBRANCH && !(d > 0.0)) {
                fail = c;
                break;
            }
            const double r = V == V_APPROX ? rsqrt_approx(d) : rsqrt(d);
            a[c] *= r;
            if (c + 1 < NB) {
                const double nd = fma(-a[c], a[c], a[c + 1]);
                d = __shfl_sync(FULL, nd, c + 1);
                if (V == V_FULL) {
#pragma unroll
                    for (int c2 = c + 1; c2 < NB; c2++)
                        a[c2] = fma(-a[c], __shfl_sync(FULL, a[c], c2), a[c2]);
                }
            }
        }
#pragma unroll
        for (int c = 0; c < NB; c++)
            asm volatile("" ::"d"(a[c]));
        asm volatile("" ::"d"(d), "r"(fail));
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
        double s = fail;
#pragma unroll
        for (int c = 0; c < NB; c++)
            s += a[c];
        sink += s;
        if (lane == 0)
            cyc[rep] = t1 - t0;
    }
    out[lane] = sink;
}

template <int V>
static void run(const double *dA, double *dout, long long *dcyc)
{
    chain<V><<<1, 32>>>(dA, dout, dcyc);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<long long> c(REPS);
    CK(cudaMemcpy(c.data(), dcyc, REPS * sizeof(long long), cudaMemcpyDeviceToHost));
    std::sort(c.begin() + 1, c.end()); /* the first repetition warms the instruction cache */
    printf("%-9s %6.1f cycles/column best, %6.1f median\n", names[V], c[1] / (double)NB,
           c[REPS / 2] / (double)NB);
}

int main()
{
    /* an SPD 32 x 32 tile: a random symmetric matrix plus 32 on the diagonal */
    std::vector<double> A(NB * NB);
    unsigned s = 7;
    for (int c = 0; c < NB; c++)
        for (int r = c; r < NB; r++) {
            s = s * 1664525u + 1013904223u;
            const double v = (s >> 8) / 16777216.0 - 0.5;
            A[r + c * NB] = A[c + r * NB] = v + (r == c ? NB : 0);
        }
    double *dA, *dout;
    long long *dcyc;
    CK(cudaMalloc(&dA, A.size() * sizeof(double)));
    CK(cudaMalloc(&dout, NB * sizeof(double)));
    CK(cudaMalloc(&dcyc, REPS * sizeof(long long)));
    CK(cudaMemcpy(dA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice));
    for (int pass = 0; pass < 2; pass++) {
        run<V_FULL>(dA, dout, dcyc);
        run<V_CHAIN>(dA, dout, dcyc);
        run<V_NOBRANCH>(dA, dout, dcyc);
        run<V_APPROX>(dA, dout, dcyc);
        run<V_FP64X6>(dA, dout, dcyc);
        run<V_PAIR>(dA, dout, dcyc);
    }
    CK(cudaFree(dA));
    CK(cudaFree(dout));
    CK(cudaFree(dcyc));
    return 0;
}
