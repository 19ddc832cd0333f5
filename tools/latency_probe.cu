// The latency of the steps a one-CTA leaf column chains (experiment, not built by meson):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 tools/latency_probe.cu -o /tmp/latency_probe
//   /tmp/latency_probe                                          (on a Hopper GPU)
//
// docs/performance.md (thirty-eighth stop): tools/leaf_logical.cu found a leaf column at
// ~1800 cycles with ONE warp of rows (R = 32) and ~2200-2500 with 16, whatever the code's size,
// so the column is a chain of latencies.  Each probe here times, with clock64 on one CTA of
// 512 threads (16 warps, as the leaf), a chain of CHAIN dependent steps of one kind and prints
// the cycles a step: a warp reduction (__reduce_max_sync, and a 5-step __shfl_xor max), a CTA
// barrier, a shared-memory load that depends on the last, a store-barrier-load hand-off
// between warps, a double FMA, a double reciprocal (1.0 / x as the leaf writes it), and a
// global atomic on a flag (the pipeline's hand-off between CTAs).  The probes marked T are
// throughputs: all 16 warps issue 16 independent instructions a step, and it prints the SM's
// cycles per warp instruction.
//
// Between CTAs (written at the thirty-eighth stop, run at the thirty-ninth: grid.sync() 1646 /
// 2014 / 1985 cycles a step on 8 / 16 / 32 CTAs, publish and gather 1520 / 2043 / 2636), for
// the tall leaves (gpu_dgetrf_leaf.cu's cooperative kernels pass a grid barrier every column,
// then read every CTA's slot from global memory): one cooperative launch of G = 8, 16, 32 CTAs
// of 512 threads timing a chain of cg grid.sync(), and a chain of "publish and gather" steps
// that would replace barrier and read: CTA c's thread 0 stores step i to its flag (release),
// then lane k of warp 0 polls CTA k's flag (acquire) until it shows i, then a CTA barrier.
#include "tool_cuda.h"

#include "../gpu_kernels/hyt_gpu_sync.cuh"

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CHAIN 256
#define THREADS 512

enum {
    P_REDUX, P_SHFL, P_BAR, P_LDS, P_HANDOFF, P_DFMA, P_RCP, P_ATOM,
    T_STS1, T_LDSB, T_SHFL, T_STSW, NPROBE
};
static const char *names[NPROBE] = {
    "__reduce_max_sync (REDUX)", "__shfl_xor_sync max, 5 steps", "__syncthreads, 512 threads",
    "dependent shared load",     "STS, barrier, LDS hand-off",   "double FMA",
    "1.0 / x (double)",          "global atomicAdd, returned",
    "T: 16-byte store, one lane", "T: 16-byte load, broadcast", "T: __shfl_sync of a double",
    "T: 8-byte store, every lane"};

__device__ long long d_cyc[NPROBE];
__device__ double d_sink;
__device__ unsigned d_flag;

__global__ void __launch_bounds__(THREADS, 1) probe(int which, double seed, unsigned useed)
{
    __shared__ unsigned s_idx[THREADS + 32];
    __shared__ double s_val[THREADS];
    __shared__ double2 s_row[16][16];
    const unsigned full = 0xffffffffu;
    const int t = threadIdx.x, lane = t & 31;
    for (int i = t; i < THREADS + 32; i += THREADS)
        s_idx[i] = (unsigned)((i * 7 + 1) % THREADS);
    s_val[t] = seed + t;
    unsigned u = useed + (unsigned)t;
    double x = seed + 1e-3 * t;
    __syncthreads();
    const long long c0 = clock64();
    switch (which) {
    case P_REDUX:
        for (int i = 0; i < CHAIN; i++)
            u = __reduce_max_sync(full, u + (unsigned)lane) & 0xffffu;
        break;
    case P_SHFL:
        for (int i = 0; i < CHAIN; i++) {
            u += (unsigned)lane;
#pragma unroll
            for (int o = 16; o; o >>= 1)
                u = max(u, __shfl_xor_sync(full, u, o));
            u &= 0xffffu;
        }
        break;
    case P_BAR:
        for (int i = 0; i < CHAIN; i++) {
            __syncthreads();
            u += (unsigned)i;
        }
        break;
    case P_LDS:
        for (int i = 0; i < CHAIN; i++)
            u = s_idx[u % THREADS];
        break;
    case P_HANDOFF: /* warp (i % 16) writes, everyone reads after the barrier */
        for (int i = 0; i < CHAIN; i++) {
            if ((t >> 5) == (i & 15) && lane == 0)
                s_val[i & 1] = x;
            __syncthreads();
            x = s_val[i & 1] + 1.0;
        }
        break;
    case P_DFMA:
        for (int i = 0; i < CHAIN; i++)
            x = __fma_rn(x, 0.999, 1e-3);
        break;
    case P_RCP:
        for (int i = 0; i < CHAIN; i++)
            x = 1.0 / x + 0.5;
        break;
    case P_ATOM:
        if (t == 0)
            for (int i = 0; i < CHAIN; i++)
                u = atomicAdd(&d_flag, u & 1u);
        break;
    case T_STS1: /* lane 0 of each warp: 16 independent 16-byte stores a step */
        for (int i = 0; i < CHAIN; i++) {
            if (lane == 0)
#pragma unroll
                for (int k = 0; k < 16; k++)
                    s_row[t >> 5][k] = make_double2(x + k, x);
            x += 1.0;
            __syncwarp();
        }
        break;
    case T_LDSB: /* every lane: 16 independent 16-byte loads of the same addresses a step */
        for (int i = 0; i < CHAIN; i++) {
            double acc = 0.0;
#pragma unroll
            for (int k = 0; k < 16; k++) {
                const double2 v = s_row[i & 15][k];
                acc += v.x * v.y;
            }
            x += acc;
        }
        break;
    case T_SHFL: /* every lane: 16 independent shuffles of a double a step */
        for (int i = 0; i < CHAIN; i++) {
            double acc = 0.0;
#pragma unroll
            for (int k = 0; k < 16; k++)
                acc += __shfl_sync(full, x + k, (i + k) & 31);
            x += acc * 1e-9;
        }
        break;
    case T_STSW: /* every lane: 16 independent 8-byte stores a step */
        for (int i = 0; i < CHAIN; i++) {
#pragma unroll
            for (int k = 0; k < 16; k++)
                ((double *)s_row)[(k * 16 + lane) & 255] = x + k;
            x += 1.0;
            __syncwarp();
        }
        break;
    }
    const long long c1 = clock64();
    if (t == 0)
        d_cyc[which] = c1 - c0;
    if (u == 0x12345678u || x == -1.0)
        d_sink = x + u;
}

#define CHAIN_G 64

__device__ long long d_gcyc[2];

__global__ void __launch_bounds__(THREADS, 1) probe_grid(int which, unsigned *flags)
{
    cg::grid_group grid = cg::this_grid();
    const int G = (int)gridDim.x, c = (int)blockIdx.x, t = threadIdx.x;
    grid.sync();
    const long long c0 = clock64();
    for (unsigned i = 1; i <= CHAIN_G; i++) {
        if (which == 0) {
            grid.sync();
        } else {
            if (t == 0)
                st_release(flags + c, i);
            if (t < G)
                while (ld_acquire(flags + t) < i)
                    ;
            __syncthreads();
        }
    }
    const long long c1 = clock64();
    if (c == 0 && t == 0)
        d_gcyc[which] = c1 - c0;
}

int main()
{
    long long best[NPROBE];
    for (int p = 0; p < NPROBE; p++) {
        best[p] = -1;
        for (int r = 0; r < 20; r++) {
            probe<<<1, THREADS>>>(p, 1.5, 3u);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            long long c[NPROBE];
            CK(cudaMemcpyFromSymbol(c, d_cyc, sizeof c));
            if (best[p] < 0 || c[p] < best[p])
                best[p] = c[p];
        }
        if (p < T_STS1)
            printf("%-32s %7.1f cycles a step\n", names[p], (double)best[p] / CHAIN);
        else /* 16 warps x 16 operations a step */
            printf("%-32s %7.2f SM cycles an instruction (16 warps at once)\n", names[p],
                   (double)best[p] / CHAIN / 256);
    }
    unsigned *flags;
    CK(cudaMalloc(&flags, 64 * sizeof(unsigned)));
    for (int G : {8, 16, 32}) {
        long long best[2] = {-1, -1};
        for (int w = 0; w < 2; w++)
            for (int r = 0; r < 10; r++) {
                CK(cudaMemset(flags, 0, 64 * sizeof(unsigned)));
                int which = w;
                void *args[] = {&which, &flags};
                CK(cudaLaunchCooperativeKernel((const void *)probe_grid, dim3(G), dim3(THREADS),
                                               args, 0, 0));
                CK(cudaDeviceSynchronize());
                long long cy[2];
                CK(cudaMemcpyFromSymbol(cy, d_gcyc, sizeof cy));
                if (best[w] < 0 || cy[w] < best[w])
                    best[w] = cy[w];
            }
        printf("%2d CTAs: grid.sync() %7.1f cycles a step; publish and gather %7.1f cycles a "
               "step\n", G, (double)best[0] / CHAIN_G, (double)best[1] / CHAIN_G);
    }
    CK(cudaFree(flags));
    return 0;
}
