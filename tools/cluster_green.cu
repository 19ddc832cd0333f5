// Which thread-block clusters fit on a stream of a green context (experiment, not built by
// meson):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 tools/cluster_green.cu -lcuda \
//        -o /tmp/cluster_green && /tmp/cluster_green [SMS...]     (on a GPU; default 64 32)
//
// docs/performance.md (forty-third stop): tools/submit_cost.cu's launch of a cluster of 16
// CTAs on a stream of a green context of 64 SMs failed with "cluster misconfiguration", where
// on an ordinary stream 7 such clusters fit.  The library's cluster leaf (gpu_dgetrf_leaf.cu,
// leaf_cluster_config: clusters of P = ceil(rows / 512) CTAs, up to 16) asks
// cudaOccupancyMaxActiveClusters on the panel's stream first and takes the cooperative leaf
// where it answers 0; inside the LU that stream lives in a green context of gpu.panel_sms SMs
// (64 on an H200).  Do the leaves of 4097-8192 rows ever take the cluster kernel there?
// This prints, for P = 1 .. 16 and the leaf's footprint (512 threads, 132 KB of dynamic
// shared memory: one CTA an SM), what the occupancy query answers and whether one launch of
// one cluster succeeds, on an ordinary stream and on a stream of a green context of each
// SMS; a launch that fails is reported, not fatal.
//
// Measured 2026-12-02 (one H200, docs/performance.md, forty-fourth stop): on an ordinary stream
// clusters of 1-16 CTAs all launch (132, 66, 39, 30, 22, 17, 15, 15, 9, then 7 of them fit);
// on a green context of 64 SMs up to 8 (64, 32, 16, 16, then 8 for 5-8), and for 9-16 the
// query answers 0 and the launch fails ("cluster misconfiguration"); on 32 SMs the same from
// 9 on.  So inside the LU the leaves of 4097-8192 rows take the cooperative kernel.
#include "tool_cuda.h"

#define THREADS TOOL_LEAF_THREADS
#define SMEM TOOL_LEAF_SMEM
#define KERN tool_k_leaf<0>

static void probe(const char *where, cudaStream_t st, double *buf)
{
    CK(cudaFuncSetAttribute((const void *)KERN, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            SMEM));
    CK(cudaFuncSetAttribute((const void *)KERN,
                            cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    printf("\n%s:\n   P  clusters  launch\n", where);
    for (int P = 1; P <= 16; P++) {
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = (unsigned)P;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3((unsigned)P);
        cfg.blockDim = dim3(THREADS);
        cfg.dynamicSmemBytes = SMEM;
        cfg.stream = st;
        cfg.attrs = at;
        cfg.numAttrs = 1;
        int clusters = -1;
        cudaError_t q = cudaOccupancyMaxActiveClusters(&clusters, (const void *)KERN, &cfg);
        cudaGetLastError();
        cudaError_t l = cudaLaunchKernelEx(&cfg, KERN, buf);
        if (l == cudaSuccess)
            l = cudaStreamSynchronize(st);
        cudaGetLastError();
        printf("  %2d  %8d  %s\n", P, q == cudaSuccess ? clusters : -1,
               l == cudaSuccess ? "ok" : cudaGetErrorString(l));
    }
}

int main(int argc, char **argv)
{
    double *buf;
    cudaStream_t plain;
    tool_start(&buf, &plain);
    probe("an ordinary stream", plain, buf);

    static const int def[] = {64, 32};
    const int nsms = argc > 1 ? argc - 1 : 2;
    for (int i = 0; i < nsms; i++) {
        const int sms = argc > 1 ? atoi(argv[i + 1]) : def[i];
        CUgreenCtx g;
        unsigned got;
        CUstream gs = tool_green_stream(sms, 0, &g, &got);
        char where[96];
        snprintf(where, sizeof where, "a stream of a green context of %u SMs", got);
        probe(where, (cudaStream_t)gs, buf);
        CB(cuStreamDestroy(gs));
        CB(cuGreenCtxDestroy(g));
    }
    CK(cudaStreamDestroy(plain));
    CK(cudaFree(buf));
    return 0;
}
