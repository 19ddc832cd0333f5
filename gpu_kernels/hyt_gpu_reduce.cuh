/*
 * Warp-level sums shared by the .cu files of gpu_kernels/ (the row solve, gpu_dtrsm_crrb.cu)
 * and the tools that try variants of them (tools/tri_inverse.cu).
 */
#ifndef HYT_GPU_REDUCE_CUH
#define HYT_GPU_REDUCE_CUH

/* Eight lanes g = 0..7 (g = lane & 7; the other lanes of the warp in groups of eight alike, all
 * 32 taking part) each hold p[0..8), their partial sums of eight quantities; lane g returns the
 * sum of quantity g over its eight lanes.  A reduce-scatter in three shuffle rounds: 7 shuffles
 * instead of the 24 of eight butterfly sums.  p is overwritten. */
__device__ __forceinline__ static double sum8_scatter(double p[8], int g)
{
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const bool hi = g & 4;
        const double s = __shfl_xor_sync(0xffffffffu, hi ? p[i] : p[i + 4], 4);
        p[i] = (hi ? p[i + 4] : p[i]) + s;
    }
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const bool hi = g & 2;
        const double s = __shfl_xor_sync(0xffffffffu, hi ? p[i] : p[i + 2], 2);
        p[i] = (hi ? p[i + 2] : p[i]) + s;
    }
    const bool hi = g & 1;
    const double s = __shfl_xor_sync(0xffffffffu, hi ? p[0] : p[1], 1);
    return (hi ? p[1] : p[0]) + s;
}

#endif
