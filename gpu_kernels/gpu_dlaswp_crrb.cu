/*
 * Row interchanges on CRRB tile columns on the GPU.  In CRRB a row of a tile column is nb
 * contiguous doubles (row r of column b at col_b + (r/nb)*nb*nb + (r%nb)*nb = col_b + r*nb), so
 * one thread per (column b, element c) applies all npiv interchanges, in order, to element c of
 * the rows: consecutive threads touch consecutive addresses (coalesced), the threads never touch
 * each other's elements (no synchronization, chained pivots stay in order), and the nb pivots of
 * a panel step take one launch instead of nb.  Offsets are 64-bit.
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_geometry.h"
#include "hyt_gpu_kernels.h"

__global__ void __launch_bounds__(HYT_LASWP_BLOCK)
hyt_dlaswp_crrb_kernel(double *col0, int64_t colstride, int ncols, int nb, int r1, int npiv,
                       const int *__restrict__ ipiv)
{
    int b, c;
    if (!hyt_laswp_thread(nb, ncols, blockIdx.x, blockIdx.y, blockIdx.z, gridDim.y, blockDim.x,
                          threadIdx.x, &b, &c))
        return;
    double *col = col0 + (int64_t)b * colstride + c;
    for (int q = 0; q < npiv; q++) {
        int64_t r = (int64_t)r1 + q, p = (int64_t)__ldg(ipiv + q) - 1;
        if (p == r || p < 0) /* p < 0: invalid pivot (cannot be reported from here): ignored */
            continue;
        double *x = col + r * nb, *y = col + p * nb;
        double t = *x;
        *x = *y;
        *y = t;
    }
}

extern "C" int hyt_cuda_dlaswp_crrb(hyt_device_t *dev, void *stream, double *col0,
                                    int64_t colstride, int ncols, int nb, int r1, int npiv,
                                    const int *ipiv)
{
    if (nb < 1 || ncols < 0 || npiv < 0 || r1 < 0 ||
        (ncols > 0 && npiv > 0 && (!col0 || !ipiv)))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dlaswp_crrb: invalid arguments (nb = %d, "
                         "ncols = %d, r1 = %d, npiv = %d)", nb, ncols, r1, npiv);
    hyt_launch_t L;
    int g = hyt_laswp_launch(nb, ncols, npiv, &L);
    if (g > 0)
        return HYT_SUCCESS; /* no columns or no interchanges */
    if (g < 0)
        return hyt_error(HYT_ERR_TOO_LARGE, "hyt_cuda_dlaswp_crrb: %d columns exceed the CUDA "
                         "grid limits", ncols);
    dim3 grid(L.grid[0], L.grid[1], L.grid[2]), block(L.block[0], L.block[1], L.block[2]);
    HYT_CUDA_LAUNCH_POINT(dev);
    hyt_dlaswp_crrb_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(col0, colstride, ncols, nb,
                                                                     r1, npiv, ipiv);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
