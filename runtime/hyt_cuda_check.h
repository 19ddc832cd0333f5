/*
 * Checking CUDA and cuBLAS calls.  Each macro evaluates its call once, stays active in release
 * builds, names the call, file and line, consults fault injection (debug.fault_device), and
 * turns a failure into "return HYT_ERR_DEVICE" from the enclosing function.  A kernel launch
 * is preceded by HYT_CUDA_LAUNCH_POINT(dev) and followed by HYT_CUDA_LAUNCHED(dev).  Usable
 * from C and from .cu files.
 */
#ifndef HYT_CUDA_CHECK_H
#define HYT_CUDA_CHECK_H

#include "hyt_internal.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

int hyt_cuda_error(int err, const char *call, const char *file, int line);
int hyt_cublas_error(int status, const char *call, const char *file, int line);
int hyt_cuda_injected(const char *call, const char *file, int line);

#ifdef __cplusplus
}
#endif

#define HYT_CUDA_TRY(dev, call)                                                                \
    do {                                                                                       \
        if (hyt_device_fault_point(dev))                                                       \
            return hyt_cuda_injected(#call, __FILE__, __LINE__);                               \
        cudaError_t hyt_e_ = (call);                                                           \
        if (hyt_e_ != cudaSuccess)                                                             \
            return hyt_cuda_error((int)hyt_e_, #call, __FILE__, __LINE__);                     \
    } while (0)

#define HYT_CUBLAS_TRY(dev, call)                                                              \
    do {                                                                                       \
        if (hyt_device_fault_point(dev))                                                       \
            return hyt_cuda_injected(#call, __FILE__, __LINE__);                               \
        cublasStatus_t hyt_s_ = (call);                                                        \
        if (hyt_s_ != CUBLAS_STATUS_SUCCESS)                                                   \
            return hyt_cublas_error((int)hyt_s_, #call, __FILE__, __LINE__);                   \
    } while (0)

/* cuSOLVER calls (the caller includes cusolverDn.h; CUSOLVER_STATUS_SUCCESS is 0). */
#define HYT_CUSOLVER_TRY(dev, call)                                                            \
    do {                                                                                       \
        if (hyt_device_fault_point(dev))                                                       \
            return hyt_cuda_injected(#call, __FILE__, __LINE__);                               \
        int hyt_s_ = (int)(call);                                                              \
        if (hyt_s_ != 0)                                                                       \
            return hyt_error(HYT_ERR_DEVICE, "%s:%d: %s failed: cuSOLVER status %d", __FILE__, \
                             __LINE__, #call, hyt_s_);                                         \
    } while (0)

/* Before every kernel launch: an injected fault (debug.fault_device) is a launch that did not
 * happen, as a real launch failure is; after it consulting the fault point would report a
 * failure for a kernel that runs, and callers could not know the state of its data. */
#define HYT_CUDA_LAUNCH_POINT(dev)                                                             \
    do {                                                                                       \
        if (hyt_device_fault_point(dev))                                                       \
            return hyt_cuda_injected("kernel launch", __FILE__, __LINE__);                     \
    } while (0)

/* After every kernel launch (no fault point: that is HYT_CUDA_LAUNCH_POINT's, before it). */
#define HYT_CUDA_LAUNCHED(dev)                                                                 \
    do {                                                                                       \
        cudaError_t hyt_e_ = cudaGetLastError();                                               \
        if (hyt_e_ != cudaSuccess)                                                             \
            return hyt_cuda_error((int)hyt_e_, "kernel launch", __FILE__, __LINE__);           \
    } while (0)

#endif
