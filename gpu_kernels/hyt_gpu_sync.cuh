/*
 * Flags in global memory between the CTAs of one kernel (gpu_dpotf2.cu, gpu_dgetrf_short.cu):
 * a load with acquire and a store with release semantics at GPU scope.  Only for .cu files of
 * gpu_kernels/.
 */
#ifndef HYT_GPU_SYNC_CUH
#define HYT_GPU_SYNC_CUH

__device__ __forceinline__ static unsigned ld_acquire(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ static void st_release(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

#endif
