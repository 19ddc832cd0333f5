/*
 * In-place transposition of square nb x nb tiles on the GPU (CCRB <-> CRRB: the same operation
 * both ways): a thread block swaps a pair of 32 x 32 blocks of a tile through shared memory, so
 * that every global access of a warp is 32 consecutive doubles; one pair a block, the grid
 * spanning the pairs (grid.x) and the tiles (grid.y x grid.z).  hyt_gpu_geometry.h holds the map
 * and each thread's loads and stores, shared with the host test, which runs them on the host.
 * Against the kernel before (a thread per pair of elements, so a warp's second access touched
 * 32 rows) the lower LAPACK-layout Cholesky, whose pieces are transposed on the way in and out,
 * took 3-5% less at n = 32768 on one H200 (docs/performance.md, fifty-sixth stop).
 * Offsets are 64-bit: ntiles*nb*nb passes 2^31 for real matrices.
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_geometry.h"
#include "hyt_gpu_kernels.h"

__global__ void __launch_bounds__(HYT_TRANSPOSE_BX * HYT_TRANSPOSE_BY)
hyt_transpose_kernel(double *tiles, int nb, int64_t ntiles, int64_t stride)
{
    __shared__ double sa[HYT_TRANSPOSE_B][HYT_TRANSPOSE_B + 1];
    __shared__ double sb[HYT_TRANSPOSE_B][HYT_TRANSPOSE_B + 1];
    int64_t t;
    int bi, bj;
    if (!hyt_transpose_block(nb, ntiles, blockIdx.x, blockIdx.y, blockIdx.z, gridDim.y, &t, &bi,
                             &bj))
        return; /* the whole block */
    double *a = tiles + t * stride; /* tile t starts at t*stride */
    hyt_transpose_load(a, nb, bi, bj, threadIdx.x, threadIdx.y, sa, sb);
    __syncthreads();
    hyt_transpose_store(a, nb, bi, bj, threadIdx.x, threadIdx.y, sa, sb);
}

extern "C" int hyt_cuda_transpose_tiles(hyt_device_t *dev, void *stream, double *tiles, int nb,
                                        int64_t ntiles)
{
    return hyt_cuda_transpose_tiles_strided(dev, stream, tiles, nb, ntiles, (int64_t)nb * nb);
}

extern "C" int hyt_cuda_transpose_tiles_strided(hyt_device_t *dev, void *stream, double *tiles,
                                                int nb, int64_t ntiles, int64_t stride)
{
    if (nb < 1 || ntiles < 0 || (ntiles > 0 && !tiles))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_transpose_tiles: invalid arguments (nb = %d, "
                         "ntiles = %lld, tiles = %p)", nb, (long long)ntiles, (void *)tiles);
    hyt_launch_t L;
    int g = hyt_transpose_launch(nb, ntiles, &L);
    if (g > 0)
        return HYT_SUCCESS; /* no tiles, or 1 x 1 tiles: nothing moves */
    if (g < 0)
        return hyt_error(HYT_ERR_TOO_LARGE, "hyt_cuda_transpose_tiles: %lld tiles of %d x %d "
                         "exceed the CUDA grid limits", (long long)ntiles, nb, nb);
    dim3 grid(L.grid[0], L.grid[1], L.grid[2]), block(L.block[0], L.block[1], L.block[2]);
    HYT_CUDA_LAUNCH_POINT(dev);
    hyt_transpose_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(tiles, nb, ntiles, stride);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
