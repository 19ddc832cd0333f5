/*
 * n ints from device memory to page-locked host memory, written by a kernel through the host
 * memory's device mapping (zero copy) instead of a cudaMemcpy: no copy engine involved.  The
 * LU's GPU panel publishes its pivots and INFO this way (drivers/lu/gpu_dgetrf_panel.c): a
 * device-to-host cudaMemcpy waits behind the copies already queued on the device-to-host copy
 * engine, and while the factors return to the host those are whole tile rows (13 ms each at
 * N = 65536 on an H200: every late panel took that long, docs/performance.md).  One block of
 * 256 threads; the stream's later work (its completion event included) sees the writes.
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_kernels.h"

#define ICOPY_THREADS 256

__global__ void __launch_bounds__(ICOPY_THREADS)
hyt_icopy_kernel(int *dst, const int *src, int n)
{
    for (int i = threadIdx.x; i < n; i += ICOPY_THREADS)
        dst[i] = src[i];
}

extern "C" int hyt_cuda_icopy_to_host(hyt_device_t *dev, void *stream, int *dst, const int *src,
                                      int n)
{
    if (n < 0 || (n > 0 && (!dst || !src)))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_icopy_to_host: invalid arguments (n = %d)",
                         n);
    if (n == 0)
        return HYT_SUCCESS;
    cudaStream_t s = (cudaStream_t)stream;
    /* page-locked (or registered) host memory has a device address (the same one with unified
     * addressing); anything else, e.g. pageable memory when page-locking failed, is copied */
    cudaPointerAttributes at;
    cudaError_t e = cudaPointerGetAttributes(&at, dst);
    if (e != cudaSuccess || at.type != cudaMemoryTypeHost || !at.devicePointer) {
        if (e != cudaSuccess)
            cudaGetLastError(); /* a pointer CUDA does not know is no error here */
        HYT_CUDA_TRY(dev, cudaMemcpyAsync(dst, src, (size_t)n * sizeof(int),
                                          cudaMemcpyDeviceToHost, s));
        return HYT_SUCCESS;
    }
    HYT_CUDA_LAUNCH_POINT(dev);
    hyt_icopy_kernel<<<1, ICOPY_THREADS, 0, s>>>((int *)at.devicePointer, src, n);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
