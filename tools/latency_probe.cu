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
#include "tool_cuda.h"

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
    return 0;
}
