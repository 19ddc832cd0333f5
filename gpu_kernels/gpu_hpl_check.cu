/*
 * HPL's check on the GPU by regeneration (as HPL does: the factors have overwritten A, and no
 * host copy of A is needed).  Two kernels:
 *
 *   hyt_hpl_matvec_kernel  this device's share of A x and of the row sums of |A|, with A
 *                          regenerated inside the kernel: one thread per row (hyt_hplmv_thread),
 *                          walking along its row with one 32-bit IMAD per entry.
 *   hyt_hpl_norms_kernel   the partial vectors of the devices summed, r = A x - b, and the four
 *                          norms ||r||_oo, ||A||_oo, ||x||_oo, ||b||_oo: one block.
 *
 * Geometry of the first: threadIdx.x = the row, so a warp is 32 consecutive rows at the same
 * column: x[c] is one broadcast load (L1), the results are coalesced stores, and A is never
 * read.  n threads (n = 125000: some 980 blocks of 128, one wave over an H200's 132 SMs at
 * about 45% occupancy) each with two independent FP64 chains and an integer chain per entry,
 * enough to keep the FP64 pipes fed.
 *
 * Expected cost: per entry one conversion, one FMA for the value, one FMA and one add for the
 * sums: 4 FP64-pipe operations, n^2/ndev entries per device.  One H200 (132 SMs x 64 FP64
 * lanes x 1.98 GHz, about 1.7e13/s) does n = 125000 in about 4 ms: the same order as the
 * generator, whose cost is its stores.  The norms read (2 nparts + 2) n doubles: microseconds.
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_hpl.h"
#include "hyt_gpu_kernels.h"

__global__ void __launch_bounds__(HYT_HPLMV_BLOCK)
hyt_hpl_matvec_kernel(hyt_hpl_dist_t D, const double *__restrict__ x, double *ax, double *arow)
{
    hyt_hplmv_thread(&D, x, ax, arow, blockIdx.x, threadIdx.x);
}

__global__ void __launch_bounds__(HYT_NORMS_BLOCK)
hyt_hpl_norms_kernel(int64_t n, int nparts, const double *__restrict__ ax,
                     const double *__restrict__ arow, const double *__restrict__ x,
                     const double *__restrict__ b, double *norms)
{
    __shared__ unsigned long long part[HYT_NORMS_BLOCK / 32][4];
    uint64_t m[4] = {0, 0, 0, 0};
    for (int64_t i = threadIdx.x; i < n; i += HYT_NORMS_BLOCK)
        hyt_hpl_norms_elem(n, nparts, ax, arow, x, b, i, m);
    /* the maxima of the bit patterns: exact, so the order of the reduction does not matter */
    for (int k = 0; k < 4; k++) {
        unsigned long long v = m[k];
        for (int off = 16; off > 0; off >>= 1) {
            unsigned long long o = __shfl_down_sync(0xffffffffu, v, off);
            v = o > v ? o : v;
        }
        if (threadIdx.x % 32 == 0)
            part[threadIdx.x / 32][k] = v;
    }
    __syncthreads();
    if (threadIdx.x < 4) {
        unsigned long long v = 0;
        for (int w = 0; w < HYT_NORMS_BLOCK / 32; w++)
            v = part[w][threadIdx.x] > v ? part[w][threadIdx.x] : v;
        norms[threadIdx.x] = hyt_hpl_bitsval(v);
    }
}

extern "C" int hyt_cuda_hpl_matvec(hyt_device_t *dev, void *stream, const hyt_hpl_dist_t *D,
                                   const double *x, double *ax, double *arow)
{
    if (!D || (D->n > 0 && (!x || !ax || !arow)))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_hpl_matvec: invalid arguments");
    hyt_launch_t L;
    int g = hyt_plg_rhs_launch(D->n, &L);
    if (g > 0)
        return HYT_SUCCESS;
    if (g < 0)
        return hyt_error(HYT_ERR_TOO_LARGE, "hyt_cuda_hpl_matvec: %lld rows exceed the CUDA grid "
                         "limits", (long long)D->n);
    HYT_CUDA_LAUNCH_POINT(dev);
    hyt_hpl_matvec_kernel<<<L.grid[0], L.block[0], 0, (cudaStream_t)stream>>>(*D, x, ax, arow);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}

extern "C" int hyt_cuda_hpl_norms(hyt_device_t *dev, void *stream, int64_t n, int nparts,
                                  const double *ax, const double *arow, const double *x,
                                  const double *b, double *norms)
{
    if (n < 0 || nparts < 1 || !norms || (n > 0 && (!ax || !arow || !x || !b)))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_hpl_norms: invalid arguments (n = %lld, "
                         "nparts = %d)", (long long)n, nparts);
    HYT_CUDA_LAUNCH_POINT(dev);
    hyt_hpl_norms_kernel<<<1, HYT_NORMS_BLOCK, 0, (cudaStream_t)stream>>>(n, nparts, ax, arow, x,
                                                                         b, norms);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
