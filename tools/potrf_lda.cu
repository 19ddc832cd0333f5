// cusolverDnDpotrf (lower) of an n x n matrix at two leading dimensions, on one GPU (experiment,
// not built by meson): the GPU-only Cholesky's tail (chol.tail) factors the last T columns of
// an N x N matrix in place, at lda N, where the peer's own call has lda T.
//   nvcc -O2 -arch=sm_90 tools/potrf_lda.cu -lcusolver -lcublas -o /tmp/potrf_lda
//   /tmp/potrf_lda N[,N...] LDA_FACTOR[,...] [REPS]
// For each n and each factor f, lda = f n (f = 1: the peer's case); the matrix (a hash fill in
// [-1, 1) plus n on the diagonal: positive definite) is refilled before each run; best of REPS
// ms and TFLOP/s (n^3 / 3 flops).  The rounds alternate the leading dimensions so that a
// clock drift reaches both.  INFO is checked (0).  "copy" also times the tail as a copy of the
// lower triangle to a contiguous n x n buffer, the call there, and the copy back.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_cuda.h"

__global__ static void add_diag(double *A, int n, int lda, double d)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        A[(size_t)i + (size_t)i * lda] += d;
}

// B (ldb) = the lower triangle of A (lda), n x n, one CTA of 256 threads per column.
__global__ static void copy_lower(const double *A, int lda, double *B, int ldb, int n)
{
    const int c = blockIdx.x;
    for (int r = c + threadIdx.x; r < n; r += blockDim.x)
        B[(size_t)r + (size_t)c * ldb] = A[(size_t)r + (size_t)c * lda];
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: potrf_lda N[,N...] F[,F...] [REPS]\n");
        return 2;
    }
    int ns[16], nn = 0, fs[8], nf = 0;
    for (char *t = strtok(argv[1], ","); t && nn < 16; t = strtok(NULL, ","))
        ns[nn++] = atoi(t);
    for (char *t = strtok(argv[2], ","); t && nf < 8; t = strtok(NULL, ","))
        fs[nf++] = atoi(t);
    const int reps = argc > 3 ? atoi(argv[3]) : 3;
    cusolverDnHandle_t h;
    cudaStream_t st;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CB(cusolverDnCreate(&h));
    CB(cusolverDnSetStream(h, st));
    int *dinfo;
    CK(cudaMalloc((void **)&dinfo, sizeof(int)));
    printf("n lda ms TFLOP/s\n");
    for (int a = 0; a < nn; a++) {
        const int n = ns[a];
        int fmax = 1;
        for (int b = 0; b < nf; b++)
            fmax = fs[b] > fmax ? fs[b] : fmax;
        double *A, *B, *work;
        CK(cudaMalloc((void **)&A, (size_t)n * n * fmax * sizeof(double)));
        CK(cudaMalloc((void **)&B, (size_t)n * n * sizeof(double)));
        int lw = 0, lw2 = 0;
        CB(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, n * fmax, &lw));
        CB(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, n, &lw2));
        lw = lw > lw2 ? lw : lw2;
        CK(cudaMalloc((void **)&work, (size_t)lw * sizeof(double)));
        double best[9];
        for (int b = 0; b <= nf; b++)
            best[b] = 1e30;
        for (int round = 0; round < 2; round++)
            for (int bb = 0; bb <= nf; bb++) {
                const int b = round ? nf - bb : bb; /* b = nf: the copy variant at the largest f */
                const int lda = (b < nf ? fs[b] : fmax) * n;
                auto pre = [&] {
                    tool_fill(A, (size_t)lda * n, 1.0);
                    add_diag<<<64, 256>>>(A, n, lda, (double)n);
                    CK(cudaGetLastError());
                    CK(cudaDeviceSynchronize());
                };
                auto op = [&] {
                    if (b < nf) {
                        CB(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, work, lw,
                                            dinfo));
                    } else {
                        copy_lower<<<n, 256, 0, st>>>(A, lda, B, n, n);
                        CB(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, B, n, work, lw,
                                            dinfo));
                        copy_lower<<<n, 256, 0, st>>>(B, n, A, lda, n);
                    }
                };
                double ms = tool_best_ms(st, reps, op, pre);
                int info = -1;
                CK(cudaMemcpy(&info, dinfo, sizeof info, cudaMemcpyDeviceToHost));
                if (info != 0) {
                    fprintf(stderr, "n %d lda %d: INFO %d\n", n, lda, info);
                    return 1;
                }
                if (ms < best[b])
                    best[b] = ms;
            }
        for (int b = 0; b <= nf; b++)
            printf("%d %s%d %.3f %.1f\n", n, b < nf ? "" : "copy@", (b < nf ? fs[b] : fmax) * n,
                   best[b], (double)n * n * n / 3 / (best[b] * 1e-3) / 1e12);
        CK(cudaFree(A));
        CK(cudaFree(B));
        CK(cudaFree(work));
    }
    return 0;
}
