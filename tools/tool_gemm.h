// The update that the panel bench runs beside a panel, for the tools that probe what a kernel
// loses beside it (clock_beside.cu, leaf_grid_phases.cu; they link with -lcublas): cuBLAS
// DGEMMs C -= A B^T of `bench-gpu --panel`'s shape (16384 x 16384 x 512), queued on a stream of
// their own (a green context of the SMs the kernel does not use: tool_green_split).
#ifndef HYT_TOOL_GEMM_H
#define HYT_TOOL_GEMM_H

#include "tool_cuda.h"

#include <cublas_v2.h>

struct tool_gemm_load {
    static const int M = 16384, K = 512;
    double *A, *B, *C;
    cublasHandle_t h;
    cudaStream_t st;

    // The operands made and filled, a handle on stream s, one DGEMM run (cuBLAS's kernel
    // loaded); *ms: that DGEMM's time on s.
    tool_gemm_load(cudaStream_t s, float *ms) : st(s)
    {
        CK(cudaMalloc(&A, (size_t)M * K * sizeof(double)));
        CK(cudaMalloc(&B, (size_t)M * K * sizeof(double)));
        CK(cudaMalloc(&C, (size_t)M * M * sizeof(double)));
        tool_fill(A, (size_t)M * K, 1.0);
        tool_fill(B, (size_t)M * K, 1.0);
        tool_fill(C, (size_t)M * M, 1.0);
        CB(cublasCreate(&h));
        CB(cublasSetStream(h, s));
        queue(1);
        CK(cudaStreamSynchronize(s));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        CK(cudaEventRecord(e0, s));
        queue(1);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(ms, e0, e1));
        CK(cudaEventDestroy(e0));
        CK(cudaEventDestroy(e1));
    }

    // n DGEMMs queued on the stream.
    void queue(int n) const
    {
        const double one = 1.0, mone = -1.0;
        for (int g = 0; g < n; g++)
            CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, M, M, K, &mone, A, M, B, M, &one, C, M));
    }

    // Whether the queued DGEMMs still run.
    bool running() const { return cudaStreamQuery(st) == cudaErrorNotReady; }

    double tflops(float ms) const { return 2.0 * M * M * K / ms / 1e9; }
};

#endif
