/*
 * In-place transposition of square nb x nb tiles on the GPU (CCRB <-> CRRB: the same operation
 * both ways).  As in the seed paper, a thread swaps one pair (r, c) / (c, r), r < c, of one tile
 * and the kernel has no loop: the grid spans the tiles (grid.y x grid.z) times the 32 x 8
 * patches of a tile (grid.x); hyt_gpu_geometry.h holds the map, shared with the host test.
 * Offsets are 64-bit: ntiles*nb*nb passes 2^31 for real matrices.
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_geometry.h"
#include "hyt_gpu_kernels.h"

__global__ void __launch_bounds__(HYT_TRANSPOSE_BX * HYT_TRANSPOSE_BY)
hyt_transpose_kernel(double *tiles, int nb, int64_t ntiles, int64_t stride)
{
    int64_t upper, lower;
    if (!hyt_transpose_pair(nb, ntiles, blockIdx.x, blockIdx.y, blockIdx.z, gridDim.y,
                            threadIdx.x, threadIdx.y, &upper, &lower))
        return;
    /* tile t starts at t*stride instead of t*nb*nb */
    int64_t t = (int64_t)blockIdx.z * gridDim.y + blockIdx.y, shift = t * (stride - (int64_t)nb * nb);
    upper += shift;
    lower += shift;
    double x = tiles[upper];
    tiles[upper] = tiles[lower];
    tiles[lower] = x;
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
