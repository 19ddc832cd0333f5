// Rates of the GEMM shapes the LU and the Cholesky run, on one GPU (experiment, not built by
// meson):  nvcc -O2 -arch=sm_90 tools/gemm_shapes.cu -lcublas -o /tmp/gemm_shapes
// (the checks, the timing and the fill: tool_cuda.h, beside it).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "tool_cuda.h"

static cublasHandle_t H;

// One line: the call's best time of 3 after a warm-up, and its rate for `flops`.
#define TIME(label, flops, call)                                                                   \
    do {                                                                                           \
        double best = tool_best_ms(0, 3, [&] { CB(call); });                                       \
        printf("%-58s %9.3f ms %6.1f TFLOP/s\n", label, best, (flops) / best / 1e9);               \
    } while (0)

int main(int argc, char **argv) {
    size_t total = (size_t)(argc > 1 ? atof(argv[1]) : 40.0) * (1ull << 30) / 8;
    double *buf;
    CK(cudaMalloc(&buf, total * 8));
    tool_fill(buf, total, 1.0);
    CB(cublasCreate(&H));
    const double one = 1.0, mone = -1.0, zero = 0.0;
    char lab[128];
    // LU's bulk update: C^T (nb x rows) -= W (nb x nb) L^T (nb x rows) per tile column, as one
    // strided-batched call over nc columns, CRRB (ld = nb or padded), and as one GEMM on a
    // row-major trailing matrix.
    int shapes[][3] = {{32768, 1024, 31},
                       {65536, 1024, 63},
                       {65536, 1024, 32},
                       {65536, 512, 64},
                       {32768, 512, 32}};
    for (unsigned s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int rows = shapes[s][0] - shapes[s][1], nb = shapes[s][1], nc = shapes[s][2];
        double fl = 2.0 * rows * nb * (double)nb * nc;
        for (int pad = 0; pad <= 16; pad += 8) {
            int ld = nb + pad;
            size_t colsz = (size_t)ld * shapes[s][0];
            double *W = buf, *P = W + (size_t)ld * nb * nc, *C = P + colsz;
            if ((size_t)(C - buf) + colsz * nc > total) {
                printf("skip\n");
                continue;
            }
            snprintf(lab, sizeof lab, "batched NN %d x %d x %d, %d cols, ld %d", nb, rows, nb, nc,
                     ld);
            TIME(lab, fl,
                 cublasDgemmStridedBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, nb, rows, nb, &mone, W, ld,
                                           (long long)ld * nb, P, ld, 0, &one, C, ld, colsz, nc));
            int M = nc * nb, ldm = M + pad;
            double *Wm = buf, *Pm = Wm + (size_t)ldm * nb, *Cm = Pm + (size_t)(nb + pad) * rows;
            if ((size_t)(Cm - buf) + (size_t)ldm * rows > total) {
                printf("skip\n");
                continue;
            }
            snprintf(lab, sizeof lab, "one GEMM NN %d x %d x %d, ld %d", M, rows, nb, ldm);
            TIME(lab, fl,
                 cublasDgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, rows, nb, &mone, Wm, ldm, Pm, nb + pad,
                             &one, Cm, ldm));
        }
    }
    // Cholesky's panel: L_ik = A_ik inv(L_kk)^T on m rows: TRSM against the GEMM that would
    // replace it with inv(L_kk) at hand.
    int tm[][2] = {{32768, 1024}, {65536, 1024}, {16384, 1024}, {32768, 512}};
    for (unsigned s = 0; s < sizeof tm / sizeof tm[0]; s++) {
        int m = tm[s][0], nb = tm[s][1], ld = m + nb;
        double *T = buf, *B = buf + nb, *X = buf + (size_t)ld * nb;
        double fl = (double)m * nb * nb; /* the values may overflow: the rates do not care */
        snprintf(lab, sizeof lab, "TRSM R L T U %d x %d, ld %d", m, nb, ld);
        TIME(lab, fl,
             cublasDtrsm(H, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                         CUBLAS_DIAG_UNIT, m, nb, &one, T, ld, B, ld));
        snprintf(lab, sizeof lab, "GEMM N T %d x %d x %d (TRSM as a GEMM), ld %d", m, nb, nb, ld);
        TIME(lab, 2 * fl,
             cublasDgemm(H, CUBLAS_OP_N, CUBLAS_OP_T, m, nb, nb, &one, B, ld, T, ld, &zero, X, ld));
    }
    return 0;
}
