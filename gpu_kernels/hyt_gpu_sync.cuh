/*
 * Flags in global memory between the CTAs of one kernel (gpu_dpotf2.cu, gpu_dgetrf_short.cu):
 * a load with acquire and a store with release semantics at GPU scope; tagged words
 * (gpu_dgetrf_leaf.cu, a leaf row in them: hyt_gpu_leaf.cuh).  Only for .cu files of gpu_kernels/.
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

/* Tagged words: a 32-bit value and a 32-bit tag in one 64-bit word, stored and loaded whole
 * (an aligned 64-bit access is single-copy atomic), so that a reader who sees the tag it waits
 * for sees the value written with it, with no fence and no barrier between (the LL protocol of
 * NCCL's collectives). */
__device__ __forceinline__ static unsigned long long ld_relaxed_u64(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ static void st_relaxed_u64(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ static unsigned long long tagged(unsigned tag, unsigned v)
{
    return (unsigned long long)tag << 32 | v;
}

#endif
