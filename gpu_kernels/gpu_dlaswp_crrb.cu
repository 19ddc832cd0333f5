/*
 * Row interchanges on CRRB tile columns on the GPU.  In CRRB a row of a tile column is nb
 * contiguous doubles (row r of column b at col_b + (r/nb)*nb*nb + (r%nb)*nb = col_b + r*nb), so
 * one thread per (column b, element c) applies all npiv interchanges, in order, to element c of
 * the rows: consecutive threads touch consecutive addresses (coalesced), the threads never touch
 * each other's elements (no synchronization, chained pivots stay in order), and the nb pivots of
 * a panel step take one launch instead of nb.  Offsets are 64-bit.  Each thread's interchanges
 * are a chain of dependent loads and stores: the launch takes ~npiv memory round trips however
 * few its columns.  The LU's updates use the interchanges as one permutation instead (below:
 * a plan, then two passes in which every thread moves one element, in any order).
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

/* ---- the interchanges as one permutation (hyt_gpu_dlaswp_plan, _gather, _scatter) ----------
 * Each thread of one block plans its pivots from the pivots in shared memory
 * (hyt_laswp_content_before). */
__global__ void hyt_dlaswp_plan_kernel(int r1, int npiv, const int *__restrict__ ipiv, int *plan)
{
    extern __shared__ int sp[]; /* 0-based pivot rows; invalid ones (above r1 + q): none */
    for (int q = threadIdx.x; q < npiv; q += blockDim.x) {
        int p = ipiv[q] - 1;
        sp[q] = p < r1 + q ? r1 + q : p;
    }
    __syncthreads();
    for (int q = threadIdx.x; q < npiv; q += blockDim.x) {
        const int p = sp[q];
        int dst = -1, from = 0;
        plan[q] = hyt_laswp_content_before(sp, r1, p, q);
        if (p >= r1 + npiv) {
            int u = q + 1;
            while (u < npiv && sp[u] != p)
                u++;
            if (u == npiv) { /* the last interchange that reaches row p */
                dst = p;
                from = hyt_laswp_content_before(sp, r1, r1 + q, q);
            }
        }
        plan[npiv + q] = dst;
        plan[2 * npiv + q] = from;
    }
}

/* One thread per element c of row q of column b: blockIdx.x = q * nbx + (c / blockDim.x),
 * columns along grid.y (looping beyond it). */
__global__ void __launch_bounds__(HYT_LASWP_BLOCK)
hyt_dlaswp_gather_kernel(const double *col0, int64_t colstride, int ncols, int nb, int npiv,
                         int nbx, const int *__restrict__ plan, double *top, int64_t topstride)
{
    const int q = blockIdx.x / nbx, c = (blockIdx.x % nbx) * blockDim.x + threadIdx.x;
    if (q >= npiv || c >= nb)
        return;
    const int64_t src = (int64_t)__ldg(plan + q) * nb + c, dst = (int64_t)q * nb + c;
    for (int b = blockIdx.y; b < ncols; b += gridDim.y)
        top[b * topstride + dst] = col0[b * colstride + src];
}

__global__ void __launch_bounds__(HYT_LASWP_BLOCK)
hyt_dlaswp_scatter_kernel(double *col0, int64_t colstride, int ncols, int nb, int npiv, int nbx,
                          const int *__restrict__ plan)
{
    const int q = blockIdx.x / nbx, c = (blockIdx.x % nbx) * blockDim.x + threadIdx.x;
    if (q >= npiv || c >= nb)
        return;
    const int d = __ldg(plan + npiv + q);
    if (d < 0)
        return;
    const int64_t dst = (int64_t)d * nb + c, src = (int64_t)__ldg(plan + 2 * npiv + q) * nb + c;
    for (int b = blockIdx.y; b < ncols; b += gridDim.y)
        col0[b * colstride + dst] = col0[b * colstride + src];
}

extern "C" int hyt_cuda_dlaswp_plan(hyt_device_t *dev, void *stream, int r1, int npiv,
                                    const int *ipiv, int *plan)
{
    if (npiv < 0 || npiv > HYT_LASWP_PLAN_MAX || r1 < 0 || (npiv > 0 && (!ipiv || !plan)))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dlaswp_plan: invalid arguments (r1 = %d, "
                         "npiv = %d)", r1, npiv);
    if (npiv == 0)
        return HYT_SUCCESS;
    const int threads = npiv < 1024 ? (npiv + 31) / 32 * 32 : 1024;
    HYT_CUDA_LAUNCH_POINT(dev);
    hyt_dlaswp_plan_kernel<<<1, threads, (size_t)npiv * sizeof(int), (cudaStream_t)stream>>>(
        r1, npiv, ipiv, plan);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}

/* grid.x: npiv rows times the blocks of a row; grid.y: the columns, at most 65535 (looped) */
static int move_launch(int nb, int ncols, int npiv, dim3 *grid, dim3 *block, int *nbx)
{
    int bx = nb < HYT_LASWP_BLOCK ? (nb + 31) / 32 * 32 : HYT_LASWP_BLOCK;
    *nbx = (nb + bx - 1) / bx;
    int64_t gx = (int64_t)npiv * *nbx;
    if (gx > INT32_MAX)
        return -1;
    *grid = dim3((unsigned)gx, (unsigned)(ncols < 65535 ? ncols : 65535), 1);
    *block = dim3((unsigned)bx, 1, 1);
    return 0;
}

extern "C" int hyt_cuda_dlaswp_gather(hyt_device_t *dev, void *stream, const double *col0,
                                      int64_t colstride, int ncols, int nb, int npiv,
                                      const int *plan, double *top, int64_t topstride)
{
    if (ncols <= 0 || npiv <= 0)
        return HYT_SUCCESS;
    dim3 grid, block;
    int nbx;
    if (nb < 1 || move_launch(nb, ncols, npiv, &grid, &block, &nbx))
        return hyt_error(HYT_ERR_TOO_LARGE, "hyt_cuda_dlaswp_gather: nb %d, %d rows", nb, npiv);
    HYT_CUDA_LAUNCH_POINT(dev);
    hyt_dlaswp_gather_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(
        col0, colstride, ncols, nb, npiv, nbx, plan, top, topstride);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}

extern "C" int hyt_cuda_dlaswp_scatter(hyt_device_t *dev, void *stream, double *col0,
                                       int64_t colstride, int ncols, int nb, int npiv,
                                       const int *plan)
{
    if (ncols <= 0 || npiv <= 0)
        return HYT_SUCCESS;
    dim3 grid, block;
    int nbx;
    if (nb < 1 || move_launch(nb, ncols, npiv, &grid, &block, &nbx))
        return hyt_error(HYT_ERR_TOO_LARGE, "hyt_cuda_dlaswp_scatter: nb %d, %d rows", nb, npiv);
    HYT_CUDA_LAUNCH_POINT(dev);
    hyt_dlaswp_scatter_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(col0, colstride, ncols,
                                                                         nb, npiv, nbx, plan);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
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
