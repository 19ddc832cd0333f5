/*
 * LAPACK's dlaset on the GPU: the m x n column-major A gets alpha on its strictly lower
 * (uplo 'L'), strictly upper ('U') or whole ('A': any other letter) off-diagonal part and beta
 * on its diagonal.  The Cholesky makes the identity with it before it inverts a diagonal block
 * (drivers/chol/gpu_chol_trsm.c).  A thread per element of a 256-row strip of one column
 * (grid.x strips, grid.y columns), loops over the rest: any m and n, 64-bit offsets.
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_kernels.h"

#define LASET_THREADS 256

__global__ void __launch_bounds__(LASET_THREADS)
hyt_dlaset_kernel(int part, int m, int n, double alpha, double beta, double *A, int64_t lda)
{
    for (int64_t c = blockIdx.y; c < n; c += gridDim.y)
        for (int64_t r = (int64_t)blockIdx.x * LASET_THREADS + threadIdx.x; r < m;
             r += (int64_t)gridDim.x * LASET_THREADS) {
            /* part: 1 strictly lower, 2 strictly upper, 3 all */
            if (r == c)
                A[r + c * lda] = beta;
            else if (part & (r > c ? 1 : 2))
                A[r + c * lda] = alpha;
        }
}

extern "C" int hyt_cuda_dlaset(hyt_device_t *dev, void *stream, char uplo, int m, int n,
                               double alpha, double beta, double *A, int lda)
{
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || (m > 0 && n > 0 && !A))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dlaset: invalid arguments (m = %d, n = %d, "
                         "lda = %d)", m, n, lda);
    if (m == 0 || n == 0)
        return HYT_SUCCESS;
    const int part = uplo == 'L' || uplo == 'l' ? 1 : uplo == 'U' || uplo == 'u' ? 2 : 3;
    const int strips = (m + LASET_THREADS - 1) / LASET_THREADS;
    dim3 grid(strips < 1024 ? strips : 1024, n < 65535 ? n : 65535);
    HYT_CUDA_LAUNCH_POINT(dev);
    hyt_dlaset_kernel<<<grid, LASET_THREADS, 0, (cudaStream_t)stream>>>(part, m, n, alpha, beta,
                                                                          A, lda);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
