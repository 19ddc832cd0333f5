/*
 * Fused Cholesky of one n x n diagonal block on the GPU (lower, column-major, lda; n <= 512), in
 * place, in ONE launch on one stream: the GPU-only design's potf2 (Haidar, Tomov, Abdelfattah,
 * Dongarra, "High-performance Cholesky factorization for GPU-only execution", GPGPU 2017,
 * section 4: fused, loop-inclusive, left-looking inner blocking ib, the panel in shared memory).
 *
 * One cooperative grid of ceil(n / IB) blocks; block b owns tile rows [b IB, b IB + IB) of the
 * block.  Step j0 = 0, IB, 2 IB, ...:
 *   1. update (left-looking, all blocks on their rows r >= j0):
 *        A(r, j0:j0+ib) -= A(r, 0:j0) A(j0:j0+ib, 0:j0)^T
 *      a GEMM register-blocked in 32 x 32 chunks staged in shared memory;
 *   grid sync;
 *   2. every block loads the ib x ib diagonal block into shared memory and factors it there
 *      (the same data and instructions in every block: the same result, the same INFO, so all
 *      blocks stop together at a failure); the blocks below solve their rows with it
 *      (A(r, j0:j0+ib) inv(L_dd)^T), in shared memory;
 *   grid sync; block j0/IB writes the diagonal block back (no later step reads it).
 * What a step reads from the other blocks is only ever written before a grid sync, so the
 * block needs no other synchronization.  Spreading the update over ceil(n / 32) SMs instead
 * of one is the point: on one SM alone a 512 x 512 potf2 (45 MFLOP) takes longer than 0.1 ms
 * at the FP64 rate of one SM.
 *
 * INFO as LAPACK's dpotf2: the first j with A(j,j) <= 0 or NaN after its update; the
 * factorization stops there (A beyond it is unspecified, that diagonal holds the value found).
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_kernels.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define IB 32          /* inner blocking = rows per block */
#define THREADS 256
#define PAD (IB + 1)   /* shared rows padded against bank conflicts */

/* The lower triangle of the factored diagonal block back to A (by the block's threads). */
__device__ static void write_diag(double *A, int lda, int j0, int ib, const double (*sD)[PAD],
                                  int t)
{
    for (int q = t; q < IB * IB; q += THREADS) {
        int rr = q % IB, cc = q / IB;
        if (rr < ib && cc < ib && rr >= cc)
            A[(int64_t)(j0 + rr) + (int64_t)(j0 + cc) * lda] = sD[rr][cc];
    }
}

__global__ void __launch_bounds__(THREADS)
hyt_dpotf2_kernel(int n, double *__restrict__ A, int lda, int *info)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ double sA[IB][PAD], sB[IB][PAD], sD[IB][PAD];
    __shared__ int fail;
    const int t = threadIdx.x, b = blockIdx.x;
    const int row0 = b * IB;                    /* this block's first row */
    if (b == 0 && t == 0)
        *info = 0;
#define AT(r, c) A[(int64_t)(r) + (int64_t)(c) * lda]
    for (int j0 = 0; j0 < n; j0 += IB) {
        const int ib = min(IB, n - j0);
        const int mine = row0 >= j0;            /* rows on or below the diagonal block */
        // 1. update of this block's rows of panel columns j0..j0+ib (left-looking)
        if (mine && j0 > 0) {
            double acc[IB * IB / THREADS] = {0};  /* thread: column c, rows r0 + 8 q */
            const int c = t % IB, r0 = t / IB;
            for (int p = 0; p < j0; p += IB) {
                /* stage A(rows, p..p+31) and A(j0..j0+31, p..p+31), coalesced down columns */
                for (int q = 0; q < IB * IB / THREADS; q++) {
                    int rr = t % IB, cc = t / IB + q * (THREADS / IB);
                    int gr = row0 + rr, gd = j0 + rr, gc = p + cc;
                    sA[rr][cc] = gr < n && gc < j0 ? AT(gr, gc) : 0.0;
                    sB[rr][cc] = rr < ib && gc < j0 ? AT(gd, gc) : 0.0;
                }
                __syncthreads();
#pragma unroll 8
                for (int kk = 0; kk < IB; kk++) {
                    const double bk = sB[c][kk];
                    for (int q = 0; q < IB * IB / THREADS; q++)
                        acc[q] += sA[r0 + q * (THREADS / IB)][kk] * bk;
                }
                __syncthreads();
            }
            for (int q = 0; q < IB * IB / THREADS; q++) {
                int gr = row0 + r0 + q * (THREADS / IB);
                /* not the upper triangle of the diagonal block: LAPACK never touches it */
                if (gr < n && c < ib && gr >= j0 + c)
                    AT(gr, j0 + c) -= acc[q];
            }
        }
        grid.sync();
        // 2. the diagonal block, factored in shared memory by every block
        for (int q = t; q < IB * IB; q += THREADS) {
            int rr = q % IB, cc = q / IB;
            sD[rr][cc] = rr < ib && cc < ib && rr >= cc ? AT(j0 + rr, j0 + cc) : 0.0;
        }
        if (t == 0)
            fail = 0;
        __syncthreads();
        for (int c = 0; c < ib; c++) {
            if (t == 0) {
                double d = sD[c][c];
                if (!(d > 0.0)) /* <= 0 or NaN */
                    fail = c + 1;
                else
                    sD[c][c] = sqrt(d);
            }
            __syncthreads();
            if (fail)
                break;
            if (t > c && t < ib)
                sD[t][c] /= sD[c][c];
            __syncthreads();
            for (int q = t; q < IB * IB; q += THREADS) {
                int rr = q % IB, cc = q / IB;
                if (cc > c && rr >= cc && rr < ib)
                    sD[rr][cc] -= sD[rr][c] * sD[cc][c];
            }
            __syncthreads();
        }
        if (fail) {
            /* every block found the same failure; once all have read the block, its owner
             * writes it back as far as it got, and INFO */
            grid.sync();
            if (row0 == j0)
                write_diag(A, lda, j0, ib, sD, t);
            if (row0 == j0 && t == 0)
                *info = j0 + fail;
            return;
        }
        // the rows below: X = A(rows, j0:j0+ib) inv(L_dd)^T, a row per thread group
        if (mine && row0 > j0) {
            for (int q = t; q < IB * IB; q += THREADS) {
                int rr = q % IB, cc = q / IB;
                sA[rr][cc] = row0 + rr < n && cc < ib ? AT(row0 + rr, j0 + cc) : 0.0;
            }
            __syncthreads();
            for (int c = 0; c < ib; c++) {
                if (t < IB)
                    sA[t][c] /= sD[c][c];
                __syncthreads();
                for (int q = t; q < IB * IB; q += THREADS) {
                    int rr = q % IB, cc = q / IB;
                    if (cc > c && cc < ib)
                        sA[rr][cc] -= sA[rr][c] * sD[cc][c];
                }
                __syncthreads();
            }
            for (int q = t; q < IB * IB; q += THREADS) {
                int rr = q % IB, cc = q / IB;
                if (row0 + rr < n && cc < ib)
                    AT(row0 + rr, j0 + cc) = sA[rr][cc];
            }
        }
        grid.sync();
        /* the diagonal block is read by no later step: its owner writes it back now that
         * every block has loaded it */
        if (row0 == j0)
            write_diag(A, lda, j0, ib, sD, t);
    }
#undef AT
}

extern "C" int hyt_cuda_dpotf2(hyt_device_t *dev, void *stream, int n, double *A, int lda,
                               int *info)
{
    if (n < 0 || n > HYT_DPOTF2_MAX_N || lda < (n > 1 ? n : 1) || !info || (n > 0 && !A))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dpotf2: invalid arguments (n = %d, lda = %d;"
                         " n at most %d)", n, lda, HYT_DPOTF2_MAX_N);
    cudaStream_t s = (cudaStream_t)stream;
    if (n == 0) {
        HYT_CUDA_TRY(dev, cudaMemsetAsync(info, 0, sizeof *info, s));
        return HYT_SUCCESS;
    }
    void *args[] = {&n, &A, &lda, &info};
    dim3 grid((n + IB - 1) / IB), block(THREADS);
    HYT_CUDA_TRY(dev, cudaLaunchCooperativeKernel((const void *)hyt_dpotf2_kernel, grid, block,
                                                  args, 0, s));
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
