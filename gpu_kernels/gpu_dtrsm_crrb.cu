/*
 * The native panel LU's row solve (gpu_dgetrf_crrb.c) and the GPU panel's inv(L_kk)
 * (drivers/lu/gpu_dgetrf_panel.c): the row-major w1 x w2 matrix X (leading dimension ldx)
 * becomes inv(L) X, L the unit lower triangle of the row-major w1 x w1 matrix at L (leading
 * dimension ldl; its entries on and above the diagonal are not read).  In the panel, L and X
 * are blocks of the panel (leading dimension nb) side by side; for inv(L_kk), X is the
 * identity in the step's inverse slot.  w1 <= HYT_TRSM_CRRB_MAX_N.
 *
 * cuBLAS's DTRSM (its column-major view: side R, upper, unit) took 7 / 13 / 29 / 64 / 138 us
 * for w1 = w2 = 32 / 64 / 128 / 256 / 512 on 64 SMs of an H200, 10-11% of a 32768-row panel;
 * this kernel 5.3 / 7.8 / 12.1 / 26 / 71 us (docs/performance.md, forty-second stop).  ONE
 * launch of ceil(w2 / RB) CTAs, each with RB right-hand sides (RB adjacent panel columns: a
 * row's RB entries are one 64-byte segment) in shared memory, a forward substitution in blocks
 * of 32 rows (right-looking):
 *   1. warp r (r < RB) solves the block's 32 x 32 unit lower system for right-hand side r, a
 *      row per lane, the solved entries passed down by shuffles (32 steps); CTA barrier;
 *   2. every warp updates the rows below the block with it, four rows a warp at a time: the
 *      row's 32 multipliers over eight lanes (four each, the loads coalesced), the RB partial
 *      dot products reduced and scattered over those lanes in three shuffle rounds (lane g of
 *      the eight ends with right-hand side g's sum); meanwhile each thread has loaded its part
 *      of the next diagonal block, which it stores to shared memory; CTA barrier.
 * So L11 is read once per CTA, and a block's chain is its 32 shuffle steps plus the update.
 * The sums run in another order than LAPACK's (backward stable all the same; the panel's test
 * checks the factors by their backward error).  NaN and Inf propagate as in any substitution.
 * Its host reference is CBLAS's DTRSM (row-major, left, lower, unit), against which
 * tests/test_gpu_panel.c checks it alone before the panels.
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_kernels.h"
#include "hyt_gpu_reduce.cuh"

#define RB 8       /* right-hand sides a CTA */
#define BS 32      /* the diagonal blocks' rows */
#define THREADS 256
#define YLD (RB + 1) /* a row of Y in shared memory: the solve's column reads conflict-free */
#define FULL 0xffffffffu
#define UN 4 /* row groups a warp with their loads in flight */

static_assert(THREADS / 32 == RB, "warp r solves right-hand side r");
static_assert(RB == 8, "a row's eight lanes reduce its RB sums (sum8_scatter)");
static_assert(THREADS * 4 == BS * BS, "four entries of the next diagonal block a thread");

__global__ void __launch_bounds__(THREADS)
hyt_dtrsm_crrb_kernel(const double *__restrict__ L, int64_t ldl, double *__restrict__ X,
                      int64_t ldx, int w1, int w2)
{
    __shared__ double Y[HYT_TRSM_CRRB_MAX_N * YLD];
    __shared__ double sL[BS][BS + 1];
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    const int cb = blockIdx.x * RB, nr = min(RB, w2 - cb); /* this CTA's columns */
    X += cb;

    for (int i = t; i < w1 * RB; i += THREADS) {
        const int k = i / RB, r = i % RB;
        Y[k * YLD + r] = r < nr ? X[k * ldx + r] : 0.0;
    }
    /* the first diagonal block, strictly lower part (thread t: entries t + THREADS q) */
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const int e = t + THREADS * q, i = e / BS, j = e % BS;
        sL[i][j] = j < i && i < w1 ? L[i * ldl + j] : 0.0;
    }
    __syncthreads();

    for (int k0 = 0; k0 < w1; k0 += BS) {
        /* 1. the diagonal block: warp r, right-hand side r, lane = row k0 + lane */
        {
            const int k = k0 + lane;
            double y = k < w1 ? Y[k * YLD + wid] : 0.0;
#pragma unroll
            for (int j = 0; j < BS - 1; j++) {
                const double yj = __shfl_sync(FULL, y, j);
                if (lane > j)
                    y = fma(-sL[lane][j], yj, y);
            }
            if (k < w1)
                Y[k * YLD + wid] = y;
        }
        __syncthreads();
        const int k1 = k0 + BS;
        if (k1 >= w1)
            break;
        /* the next diagonal block's entries, loaded now, stored after the update */
        double nl[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int e = t + THREADS * q, i = e / BS, j = e % BS;
            nl[q] = j < i && k1 + i < w1 ? L[(k1 + i) * ldl + k1 + j] : 0.0;
        }
        /* 2. the rows below: Y[k][r] -= sum_j L(k, k0 + j) Y[k0 + j][r] */
        {
            const int g = lane & 7, q = lane >> 3;
            double yb[4][RB];
#pragma unroll
            for (int c = 0; c < 4; c++)
#pragma unroll
                for (int r = 0; r < RB; r++)
                    yb[c][r] = Y[(k0 + g + 8 * c) * YLD + r];
            /* UN groups of four rows a warp with their loads in flight at once */
            for (int kb = k1 + 4 * wid; kb < w1; kb += UN * 4 * (THREADS / 32)) {
                double l[UN][4];
#pragma unroll
                for (int u = 0; u < UN; u++) {
                    const int k = kb + u * 4 * (THREADS / 32) + q;
#pragma unroll
                    for (int c = 0; c < 4; c++)
                        l[u][c] = k < w1 ? L[k * ldl + k0 + g + 8 * c] : 0.0;
                }
#pragma unroll
                for (int u = 0; u < UN; u++) {
                    const int k = kb + u * 4 * (THREADS / 32) + q;
                    if (kb + u * 4 * (THREADS / 32) >= w1) /* the warp's group: uniform */
                        break;
                    double p[RB];
#pragma unroll
                    for (int r = 0; r < RB; r++) {
                        p[r] = l[u][0] * yb[0][r];
#pragma unroll
                        for (int c = 1; c < 4; c++)
                            p[r] = fma(l[u][c], yb[c][r], p[r]);
                    }
                    /* reduced over the eight lanes g and scattered: lane g gets right-hand
                     * side g's sum */
                    const double sum = sum8_scatter(p, g);
                    if (k < w1)
                        Y[k * YLD + g] -= sum;
                }
            }
        }
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int e = t + THREADS * q;
            sL[e / BS][e % BS] = nl[q];
        }
        __syncthreads();
    }

    for (int i = t; i < w1 * RB; i += THREADS) {
        const int k = i / RB, r = i % RB;
        if (r < nr)
            X[k * ldx + r] = Y[k * YLD + r];
    }
}

extern "C" int hyt_cuda_dtrsm_crrb(hyt_device_t *dev, void *stream, const double *L, int ldl,
                                   double *X, int ldx, int w1, int w2)
{
    if (!L || !X || w1 < 0 || w1 > HYT_TRSM_CRRB_MAX_N || w2 < 0 || ldl < w1 || ldl < 1 ||
        ldx < w2 || ldx < 1)
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dtrsm_crrb: invalid arguments (w1 = %d, "
                         "w2 = %d, ldl = %d, ldx = %d%s)", w1, w2, ldl, ldx,
                         !L || !X ? ", a NULL matrix" : "");
    if (w1 == 0 || w2 == 0)
        return HYT_SUCCESS;
    HYT_CUDA_LAUNCH_POINT(dev);
    hyt_dtrsm_crrb_kernel<<<(w2 + RB - 1) / RB, THREADS, 0, (cudaStream_t)stream>>>(
        L, ldl, X, ldx, w1, w2);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
