// What the stand-alone GPU experiments in tools/ share (chol_trsm_inv.cu, chol_update_shapes.cu,
// clock_beside.cu, cluster_green.cu, gemm_lt.cu, gemm_shapes.cu, latency_probe.cu, launch_wait.cu,
// leaf_cluster.cu, leaf_grid_cluster.cu, leaf_grid_phases.cu, leaf_logical.cu, lu_power.cu,
// panel_cluster.cu, potrf_lda.cu, short_update_dmma.cu, submit_cost.cu, tri_inverse.cu; with
// tool_gemm.h, the panel bench's DGEMMs for those that probe a kernel beside them; not
// built by meson: each file's header comment has its nvcc line, run from the repository root,
// which finds this header next to the file):
//   CK, CB    the checks of CUDA runtime calls and of cuBLAS / cuSOLVER calls (any status
//             type): a failure names the call, file and line on stderr and exits, for these
//             are experiments, not library code (runtime/hyt_cuda_check.h is the library's);
//   tool_best_ms   the best time of a call on CUDA events: one warm-up run not counted, then
//             the fastest of `timed` runs, each preceded by an untimed pre() (to restore an
//             operand the call overwrote);
//   tool_fill the 1D hash fill of a device buffer, values in [-scale, scale);
//   tool_start   device 0's context, a zeroed buffer of 1024 doubles and a non-blocking stream
//             (what the launch probes start with);
//   tool_green_stream   a stream in a green context of some SMs, as the LU's panel stream
//             (the driver API: the tools that call it link with -lcuda);
//   tool_green_split    the SMs in two green contexts with a stream each, as the panel bench's
//             --panel-sms splits them (the panel's share and the DGEMMs');
//   tool_k_leaf   empty kernels of a panel leaf's footprint (one function per ID);
//   tool_host_getf2   the host reference of the panel's leaves: LAPACK's dgetf2 with the
//             library's pivot rule and the kernels' arithmetic.
#ifndef HYT_TOOL_CUDA_H
#define HYT_TOOL_CUDA_H

#include <cuda.h>
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <utility>
#include <vector>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)
#define CB(x)                                                                                  \
    do {                                                                                       \
        int s_ = (int)(x);                                                                     \
        if (s_) {                                                                              \
            fprintf(stderr, "%s:%d %s: status %d\n", __FILE__, __LINE__, #x, s_);              \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

// The best time (ms) of `timed` runs of op() on stream st, after one warm-up run; pre() runs
// before each run, outside the events (on the host, or enqueued on st before the first event).
template <class Op, class Pre>
static double tool_best_ms(cudaStream_t st, int timed, const Op &op, const Pre &pre)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    double best = 1e30;
    for (int r = 0; r <= timed; r++) {
        pre();
        CK(cudaEventRecord(a, st));
        op();
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0 && ms < best) // r = 0 warms up
            best = ms;
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return best;
}

template <class Op>
static double tool_best_ms(cudaStream_t st, int timed, const Op &op)
{
    return tool_best_ms(st, timed, op, [] {});
}

__global__ static void tool_fill_kernel(double *p, size_t n, double scale)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long h = i * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
        p[i] = ((double)(h % 2000001) / 1e6 - 1.0) * scale;
    }
}

// p[0 .. n) on the device, values in [-scale, scale) from a hash of the index; synchronous.
static void tool_fill(double *p, size_t n, double scale)
{
    tool_fill_kernel<<<4096, 256>>>(p, n, scale);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
}

// Empty kernels of a panel leaf's footprint (gpu_kernels/gpu_dgetrf_leaf.cu), one function per
// ID (so that each has its own attributes): launched with TOOL_LEAF_THREADS threads and
// TOOL_LEAF_SMEM bytes of dynamic shared memory, one CTA an SM; each touches p[blockIdx.x]
// through shared memory so that it is not optimized away.
#define TOOL_LEAF_THREADS 512
#define TOOL_LEAF_SMEM (16 * 32 * 33 * 8) /* LEAF_TALL_SMEM */
template <int ID> __global__ void __launch_bounds__(TOOL_LEAF_THREADS, 1) tool_k_leaf(double *p)
{
    extern __shared__ double s[];
    if (p && threadIdx.x == 0) {
        s[0] = p[blockIdx.x];
        p[blockIdx.x] = s[0];
    }
}

// Device 0 current with its context made, *buf a zeroed buffer of 1024 doubles, *plain a new
// non-blocking stream (priority 0).
static inline void tool_start(double **buf, cudaStream_t *plain)
{
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    CK(cudaMalloc((void **)buf, 1024 * sizeof(double)));
    CK(cudaMemset(*buf, 0, 1024 * sizeof(double)));
    CK(cudaStreamCreateWithFlags(plain, cudaStreamNonBlocking));
}

// A stream of priority prio in a new green context *g of `sms` SMs of device 0 (rounded up to
// the device's granularity; *got: how many it has), as runtime/device_cuda.c makes the LU's
// panel stream.  Free with cuStreamDestroy, then cuGreenCtxDestroy.
static inline CUstream tool_green_stream(int sms, int prio, CUgreenCtx *g, unsigned *got)
{
    CUdevice cd;
    CUdevResource all, part, rest;
    CUdevResourceDesc desc;
    CUstream s;
    unsigned ngroups = 1;
    CB(cuDeviceGet(&cd, 0));
    CB(cuDeviceGetDevResource(cd, &all, CU_DEV_RESOURCE_TYPE_SM));
    CB(cuDevSmResourceSplitByCount(&part, &ngroups, &all, &rest, 0, (unsigned)sms));
    CB(cuDevResourceGenerateDesc(&desc, &part, 1));
    CB(cuGreenCtxCreate(g, desc, cd, CU_GREEN_CTX_DEFAULT_STREAM));
    CB(cuGreenCtxStreamCreate(&s, *g, CU_STREAM_NON_BLOCKING, prio));
    if (got)
        *got = part.sm.smCount;
    return s;
}

// Device 0's SMs split in two green contexts, as `bench-gpu --panel --panel-sms S` splits them:
// `sms` SMs (rounded up to the device's granularity) for *part, the others for *rest, a
// non-blocking stream of priority 0 in each; *npart, *nrest: their SMs.
static inline void tool_green_split(int sms, CUstream *part, CUstream *rest, unsigned *npart,
                                    unsigned *nrest)
{
    CUdevice cd;
    CUdevResource all, res[2];
    unsigned ngroups = 1;
    CB(cuDeviceGet(&cd, 0));
    CB(cuDeviceGetDevResource(cd, &all, CU_DEV_RESOURCE_TYPE_SM));
    CB(cuDevSmResourceSplitByCount(&res[0], &ngroups, &all, &res[1], 0, (unsigned)sms));
    CUstream *out[2] = {part, rest};
    for (int i = 0; i < 2; i++) {
        CUdevResourceDesc desc;
        CUgreenCtx g;
        CB(cuDevResourceGenerateDesc(&desc, &res[i], 1));
        CB(cuGreenCtxCreate(&g, desc, cd, CU_GREEN_CTX_DEFAULT_STREAM));
        CB(cuGreenCtxStreamCreate(out[i], g, CU_STREAM_NON_BLOCKING, 0));
    }
    *npart = res[0].sm.smCount;
    *nrest = res[1].sm.smCount;
}

// LAPACK's dgetf2 on the first w columns of A, R x ld row-major (rows interchanged whole), with
// the library's pivot rule (the diagonal row when its entry is NaN or every candidate is NaN,
// else the first largest |a|) and the kernels' arithmetic (the reciprocal of the pivot, a
// division below DBL_MIN, FMAs; the update done after a zero pivot).  Pivots 1-based into
// ipiv[0 .. w); returns INFO.
static int tool_host_getf2(std::vector<double> &A, int R, int ld, int w, std::vector<int> &ipiv)
{
    int info = 0;
    for (int j = 0; j < w; j++) {
        int p = -1;
        double best = -1.0;
        for (int r = j; r < R; r++) {
            const double v = A[(size_t)r * ld + j];
            if (!isnan(v) && fabs(v) > best) {
                best = fabs(v);
                p = r;
            }
        }
        if (isnan(A[(size_t)j * ld + j]) || p < 0)
            p = j;
        ipiv[j] = p + 1;
        for (int q = 0; q < ld; q++)
            std::swap(A[(size_t)j * ld + q], A[(size_t)p * ld + q]);
        const double pv = A[(size_t)j * ld + j];
        if (pv == 0.0 && !info)
            info = j + 1;
        for (int r = j + 1; r < R; r++) {
            double m = A[(size_t)r * ld + j];
            if (pv != 0.0)
                m = fabs(pv) >= DBL_MIN ? m * (1.0 / pv) : m / pv;
            A[(size_t)r * ld + j] = m;
            for (int k = j + 1; k < w; k++)
                A[(size_t)r * ld + k] = fma(-m, A[(size_t)j * ld + k], A[(size_t)r * ld + k]);
        }
    }
    return info;
}

#endif
