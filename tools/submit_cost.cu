// What the host pays to submit the native panel's calls, call by call
// (experiment, not built by meson; written 2026-12-01, run on one H200 the same day):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 tools/submit_cost.cu -lcublas -lcuda \
//        -o /tmp/submit_cost && /tmp/submit_cost [SMS]      (on a GPU; SMS default 64)
//
// docs/performance.md (forty-second stop): inside the LU at N = 16384 each native panel took
// 4.4-4.7 ms of its stream's time, with the GPU otherwise mostly idle, where `bench-gpu
// --panel` gives 1.5-1.7 ms for the same panels.  One suspect is the host's submission of the
// panel's ~47 calls.  Per leaf, hyt_cuda_dgetrf_leaf calls hyt_cuda_stream_sms
// (cuStreamGetGreenCtx, cuGreenCtxGetDevResource), cudaFuncSetAttribute,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor and cudaLaunchCooperativeKernel; the cluster
// leaves call cudaOccupancyMaxActiveClusters and cudaLaunchKernelEx.  Between the leaves come
// cuBLAS's DGEMM and the row solve's launch.  This times each on the host, the median of REPS
// calls in us, on a stream of a green context of SMS SMs (as the LU's panel stream,
// gpu.panel_sms) and on an ordinary stream.  The kernels are empty but have the leaves'
// footprint (512 threads, 132 KB of dynamic shared memory: one CTA an SM); the stream is
// drained every 16 calls, outside the timed calls, so that no launch waits for a full queue.
// Traces since that stop carry each device task's submission time (issue_dur), which says
// whether the LU's panels wait for the host at all; this says which call, if they do.
// Result (docs/performance.md, forty-third stop): they do not (a panel's calls take 0.5-1 ms
// to submit, 2.6-4.7 ms to run).  On the ordinary stream: the green-context lookups 0.05 us,
// cudaFuncSetAttribute 0.48, the occupancy query 0.32, a cooperative launch 4.4, a cluster
// launch 4.2, cudaOccupancyMaxActiveClusters 1.2, cublasDgemm 12.6, a plain launch 4.6.  The
// green-context half stopped at its cluster launch of 16 CTAs with "cluster misconfiguration".
#include "tool_cuda.h"

#include <cublas_v2.h>
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <vector>

#define REPS 200
#define THREADS TOOL_LEAF_THREADS
#define SMEM TOOL_LEAF_SMEM

#define k_leaf tool_k_leaf<0>
#define k_cluster tool_k_leaf<1>

// The median host time of REPS calls of op() (us); drain() every 16 calls, not timed.
template <class Op, class Drain>
static double host_us(const Op &op, const Drain &drain)
{
    std::vector<double> t;
    op(); // warm-up
    drain();
    for (int r = 0; r < REPS; r++) {
        auto a = std::chrono::steady_clock::now();
        op();
        auto b = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
        if (r % 16 == 15)
            drain();
    }
    drain();
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static void run(const char *where, cudaStream_t st, int ctas, double *buf)
{
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, st));
    const int rows = 32768;
    double *A, *C;
    CK(cudaMalloc((void **)&A, (size_t)rows * 64 * sizeof(double)));
    CK(cudaMalloc((void **)&C, (size_t)rows * 64 * sizeof(double)));
    CK(cudaMemset(A, 0, (size_t)rows * 64 * sizeof(double)));
    CK(cudaMemset(C, 0, (size_t)rows * 64 * sizeof(double)));
    auto drain = [&] { CK(cudaStreamSynchronize(st)); };
    auto none = [] {};
    CUgreenCtx g = NULL;
    CUdevResource res;
    int per_sm = 0, clusters = 0;
    void *args[] = {&buf};
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = 16;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(16);
    cfg.blockDim = dim3(THREADS);
    cfg.dynamicSmemBytes = SMEM;
    cfg.stream = st;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    const double one = 1.0, mone = -1.0;

    struct row {
        const char *what;
        double us;
    } rows_out[] = {
        {"cuStreamGetGreenCtx + cuGreenCtxGetDevResource",
         host_us(
             [&] {
                 if (cuStreamGetGreenCtx((CUstream)st, &g) == CUDA_SUCCESS && g)
                     cuGreenCtxGetDevResource(g, &res, CU_DEV_RESOURCE_TYPE_SM);
             },
             none)},
        {"cudaFuncSetAttribute (dynamic shared memory)",
         host_us(
             [&] {
                 CK(cudaFuncSetAttribute((const void *)k_leaf,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
             },
             none)},
        {"cudaOccupancyMaxActiveBlocksPerMultiprocessor",
         host_us(
             [&] {
                 CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)k_leaf,
                                                                  THREADS, SMEM));
             },
             none)},
        {"cudaLaunchCooperativeKernel (the grid leaf's footprint)",
         host_us(
             [&] {
                 CK(cudaLaunchCooperativeKernel((const void *)k_leaf, dim3(ctas), dim3(THREADS),
                                                args, SMEM, st));
             },
             drain)},
        {"cudaOccupancyMaxActiveClusters (16 CTAs)",
         host_us(
             [&] {
                 CK(cudaFuncSetAttribute((const void *)k_cluster,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
                 CK(cudaFuncSetAttribute((const void *)k_cluster,
                                         cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
                 CK(cudaOccupancyMaxActiveClusters(&clusters, (const void *)k_cluster, &cfg));
             },
             none)},
        {"cudaLaunchKernelEx (a cluster of 16)",
         host_us([&] { CK(cudaLaunchKernelEx(&cfg, k_cluster, buf)); }, drain)},
        {"cublasDgemm (32 x 32768 x 32, the panel's K = 32 level)",
         host_us(
             [&] {
                 CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 32, rows, 32, &mone, A, 64, A + 32,
                                64, &one, C, 64));
             },
             drain)},
        {"k_leaf<<<8, 512>>> (an ordinary launch, as the row solve's)",
         host_us([&] { k_leaf<<<8, THREADS, SMEM, st>>>(buf); }, drain)},
    };
    CK(cudaGetLastError());
    printf("\n%s (%d CTAs a cooperative launch; %d CTAs an SM; %d clusters of 16 fit):\n", where,
           ctas, per_sm, clusters);
    for (const row &r : rows_out)
        printf("  %8.2f us  %s\n", r.us, r.what);
    printf("  a grid leaf's submission in hyt_cuda_dgetrf_leaf: ~%.1f us (the first four)\n",
           rows_out[0].us + rows_out[1].us + rows_out[2].us + rows_out[3].us);
    CK(cudaFree(A));
    CK(cudaFree(C));
    CB(cublasDestroy(h));
}

int main(int argc, char **argv)
{
    const int sms = argc > 1 ? atoi(argv[1]) : 64;
    double *buf;
    cudaStream_t plain;
    tool_start(&buf, &plain);
    run("an ordinary stream", plain, sms, buf);

    // a green context of sms SMs and a stream in it, as the LU's panel stream
    CUgreenCtx g;
    unsigned got;
    CUstream gs = tool_green_stream(sms, 0, &g, &got);
    char where[96];
    snprintf(where, sizeof where, "a stream of a green context of %u SMs", got);
    run(where, (cudaStream_t)gs, (int)got, buf);

    CB(cuStreamDestroy(gs));
    CB(cuGreenCtxDestroy(g));
    CK(cudaStreamDestroy(plain));
    CK(cudaFree(buf));
    return 0;
}
