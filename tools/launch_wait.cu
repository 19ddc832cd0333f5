// How long does a kernel wait for an SM while DGEMMs fill the GPU, by its footprint?
// (experiment, not built by meson):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v tools/launch_wait.cu -lcublas \
//        -o /tmp/launch_wait && /tmp/launch_wait [K]       (on a GPU)
// K: the DGEMMs' inner dimension (default 8192: 8192^3; below, 16384 x 16384 x K, the shape of
// the LU's trailing update with nb = K).
//
// docs/performance.md (twenty-fifth stop): the native panel takes 1.6 ms alone for 512 x 512
// and 11.4 beside 8192^3 DGEMMs (cuSOLVER's 0.95 / 2.0); leaf CTAs of 128 threads instead of
// 512 cut it to 8.3 ms.  The reading: each of the panel's ~46 launches waits for a DGEMM CTA to
// leave an SM.  This probe measures that wait directly, for kernels of a few footprints, before
// anyone writes a persistent panel kernel to avoid it.
//
// A chain of LAUNCHES launches of one probe kernel on a high-priority stream; each kernel's
// block 0, thread 0 reads %globaltimer at its start and its end (it spins SPIN_NS in between).
// The wait of launch i is start(i) - end(i - 1): what the chain loses between two dependent
// kernels.  Alone, then with DGEMMs of 8192^3 running back to back on a low-priority stream
// (started first, still running when the chain ends).  Footprints: threads a CTA, dynamic
// shared memory a CTA, CTAs, and "regs": every thread holding 64 doubles live across its spin
// (128 registers, as the leaf kernels).  Prints the median and the mean wait, in us.
//
// Measured 2026-11-27 (one H200, docs/performance.md, twenty-sixth stop).
#include "tool_cuda.h"

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#define LAUNCHES 41
#define SPIN_NS 5000

__device__ __forceinline__ unsigned long long now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <int REGS>
__global__ void __launch_bounds__(512) probe(unsigned long long *ts, int i, double *junk)
{
    extern __shared__ double sm[];
    const bool first = threadIdx.x == 0 && blockIdx.x == 0;
    const unsigned long long t0 = now();
    double a[REGS ? 64 : 1];
#pragma unroll
    for (int k = 0; k < (REGS ? 64 : 1); k++)
        a[k] = junk[(threadIdx.x + k) & 1023];
    sm[threadIdx.x] = a[0];
    while (now() - t0 < SPIN_NS) {
    }
    double s = 0;
#pragma unroll
    for (int k = 0; k < (REGS ? 64 : 1); k++)
        s += a[k] * (k + 1);
    __syncthreads();
    if (s == 12345.678 + sm[(threadIdx.x + 1) % blockDim.x]) // never: keeps a[] live
        junk[threadIdx.x] = s;
    if (first) {
        ts[2 * i] = t0;
        ts[2 * i + 1] = now();
    }
}

struct shape {
    const char *name;
    int threads, smem_kb, ctas;
    bool regs;
};

int main(int argc, char **argv)
{
    const shape shapes[] = {
        {"tiny (32 thr)", 32, 0, 1, false},
        {"128 thr", 128, 0, 1, false},
        {"128 thr, 128 regs", 128, 0, 1, true},
        {"128 thr, 128 regs, 54 KB", 128, 54, 1, true},
        {"128 thr, 82 KB, 15 CTAs", 128, 82, 15, false},
        {"512 thr, 128 regs", 512, 0, 1, true},
        {"512 thr, 128 regs, 160 KB", 512, 160, 1, true},
        {"512 thr, 128 regs, 160 KB, 16 CTAs", 512, 160, 16, true},
    };
    int lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t sp, sg;
    CK(cudaStreamCreateWithPriority(&sp, cudaStreamNonBlocking, hi));
    CK(cudaStreamCreateWithPriority(&sg, cudaStreamNonBlocking, lo));
    const int k = argc > 1 ? atoi(argv[1]) : 8192;
    if (k < 1 || k > 8192) {
        fprintf(stderr, "usage: launch_wait [K], 1 <= K <= 8192\n");
        return 2;
    }
    const int n = k == 8192 ? 8192 : 16384;
    // enough DGEMMs to outlast the chain: the flops of four 8192^3 ones (~80 ms)
    const int ngemm = (int)(4.0 * 8192 * 8192 * 8192 / ((double)n * n * k) + 0.5);
    double *A, *B, *C, *junk;
    unsigned long long *ts;
    CK(cudaMalloc(&A, (size_t)n * k * sizeof(double)));
    CK(cudaMalloc(&B, (size_t)k * n * sizeof(double)));
    CK(cudaMalloc(&C, (size_t)n * n * sizeof(double)));
    CK(cudaMalloc(&junk, 1024 * sizeof(double)));
    CK(cudaMalloc(&ts, 2 * LAUNCHES * sizeof(unsigned long long)));
    tool_fill(A, (size_t)n * k, 1.0);
    tool_fill(B, (size_t)k * n, 1.0);
    tool_fill(junk, 1024, 1.0);
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, sg));
    const double one = 1.0, zero = 0.0;
    CK(cudaFuncSetAttribute(probe<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 << 10));
    CK(cudaFuncSetAttribute(probe<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 << 10));
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, probe<1>));
    printf("probe<regs>: %d registers a thread; %d DGEMMs %d x %d x %d on a low-priority "
           "stream\n", fa.numRegs, ngemm, n, n, k);
    printf("%-36s | %21s | %21s\n", "kernel", "alone: median / mean", "beside: median / mean");
    for (const shape &s : shapes) {
        double med[2], mean[2];
        for (int beside = 0; beside < 2; beside++) {
            if (beside)
                for (int g = 0; g < ngemm; g++)
                    CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, k, &one, A, n, B, k, &zero,
                                   C, n));
            if (beside) // let the first DGEMM fill the GPU
                std::this_thread::sleep_for(std::chrono::milliseconds(3));
            const size_t smem = std::max((size_t)s.smem_kb << 10, s.threads * sizeof(double));
            for (int i = 0; i < LAUNCHES; i++) {
                if (s.regs)
                    probe<1><<<s.ctas, s.threads, smem, sp>>>(ts, i, junk);
                else
                    probe<0><<<s.ctas, s.threads, smem, sp>>>(ts, i, junk);
                CK(cudaGetLastError());
            }
            CK(cudaStreamSynchronize(sp));
            const cudaError_t q = cudaStreamQuery(sg);
            CK(cudaDeviceSynchronize());
            std::vector<unsigned long long> t(2 * LAUNCHES);
            CK(cudaMemcpy(t.data(), ts, t.size() * sizeof(t[0]), cudaMemcpyDeviceToHost));
            std::vector<double> w;
            for (int i = 1; i < LAUNCHES; i++)
                w.push_back((double)(t[2 * i] - t[2 * i - 1]) * 1e-3);
            std::sort(w.begin(), w.end());
            med[beside] = w[w.size() / 2];
            double sum = 0;
            for (double x : w)
                sum += x;
            mean[beside] = sum / w.size();
            if (beside && q == cudaSuccess)
                printf("  (the DGEMMs ended before the chain: the 'beside' numbers are partly "
                       "alone)\n");
            if (q != cudaSuccess && q != cudaErrorNotReady)
                CK(q);
        }
        printf("%-36s | %9.1f / %9.1f | %9.1f / %9.1f\n", s.name, med[0], mean[0], med[1],
               mean[1]);
    }
    CB(cublasDestroy(h));
    return 0;
}
