/*
 * HPL's matrix generated on the GPU, in the hybrid LU's device layout (CRRB tile columns, 1D
 * block-cyclic: hyt_gpu_hpl.h), with exactly hyt_core_dplghpl's numbers, and HPL's b.
 *
 * Geometry (hyt_plg_launch): threadIdx.x is the column inside a 32-column patch of a tile
 * column, so the 32 threads of a warp write one 256-byte run of a CRRB row (row-major tiles:
 * consecutive columns of a row are consecutive doubles): every store is coalesced.  A thread
 * starts with one jump (at most 64 squarings, 32-bit IMADs) and then steps down HYT_PLG_ROWS
 * rows, one IMAD and one conversion per entry; the jump is amortized over 64 entries.
 *
 * Expected cost: the kernel only writes, n^2 doubles in all (8 n^2 bytes: 125 GB at
 * n = 125000), so it runs at the write bandwidth: about 30 ms at 4 TB/s on one H200 (ndev
 * devices in parallel: 1/ndev each).  The arithmetic, about 8 integer and 2 FP64 operations
 * per entry plus a jump per 64 entries, is some 5 ms of one H200's issue rate and hides under
 * the stores.  b (n entries, one jump each) is microseconds.
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_hpl.h"
#include "hyt_gpu_kernels.h"

__global__ void __launch_bounds__(HYT_PLG_BX * HYT_PLG_BY)
hyt_dplghpl_kernel(hyt_hpl_dist_t D, double *cols)
{
    hyt_plg_thread(&D, cols, blockIdx.x, blockIdx.y, blockIdx.z, gridDim.y, threadIdx.x,
                   threadIdx.y);
}

__global__ void __launch_bounds__(HYT_HPLMV_BLOCK) hyt_dplghpl_rhs_kernel(hyt_hpl_dist_t D,
                                                                         double *b)
{
    hyt_plg_rhs_thread(&D, b, blockIdx.x, threadIdx.x);
}

extern "C" int hyt_cuda_dplghpl(hyt_device_t *dev, void *stream, const hyt_hpl_dist_t *D,
                                double *cols, double *b)
{
    if (!D || (D->ncols > 0 && !cols))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dplghpl: invalid arguments (D = %p, cols = "
                         "%p)", (const void *)D, (void *)cols);
    cudaStream_t s = (cudaStream_t)stream;
    hyt_launch_t L;
    int g = hyt_plg_launch(D, &L);
    if (g < 0)
        return hyt_error(HYT_ERR_TOO_LARGE, "hyt_cuda_dplghpl: n = %lld in tiles of %d on %d "
                         "devices exceeds the CUDA grid limits", (long long)D->n, D->nb, D->ndev);
    if (g == 0) {
        dim3 grid(L.grid[0], L.grid[1], L.grid[2]), block(L.block[0], L.block[1], L.block[2]);
        HYT_CUDA_LAUNCH_POINT(dev);
        hyt_dplghpl_kernel<<<grid, block, 0, s>>>(*D, cols);
        HYT_CUDA_LAUNCHED(dev);
    }
    if (!b)
        return HYT_SUCCESS;
    g = hyt_plg_rhs_launch(D->n, &L);
    if (g < 0)
        return hyt_error(HYT_ERR_TOO_LARGE, "hyt_cuda_dplghpl: b of %lld entries exceeds the "
                         "CUDA grid limits", (long long)D->n);
    if (g == 0) {
        HYT_CUDA_LAUNCH_POINT(dev);
        hyt_dplghpl_rhs_kernel<<<L.grid[0], L.block[0], 0, s>>>(*D, b);
        HYT_CUDA_LAUNCHED(dev);
    }
    return HYT_SUCCESS;
}
