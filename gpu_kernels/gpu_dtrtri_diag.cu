/*
 * The inverses of a triangular matrix's diagonal blocks on the GPU: for the n x n T (lower 'L'
 * or upper 'U', non-unit diagonal, column-major) and a block order bs <= HYT_TRTRI_DIAG_BS,
 * W's diagonal block q (rows and columns q bs .. min(n, (q + 1) bs) - 1) becomes the inverse of
 * T's, its other triangle exactly zero; W elsewhere is not touched.  The Cholesky's panel solve
 * by halves (drivers/chol/gpu_chol_trsm.c) multiplies by nothing else of inv(L_kk), and
 * cuBLAS's TRSM on the identity, which made the whole inverse, took 0.24 ms at order 512.
 *
 * One CTA per (diagonal block, 32 of its columns): 128 threads, four a column.  Where T is
 * upper the CTA works on M = T_qq^T (lower) and writes X = M^-1 transposed.  Column j of X
 * (lower: X(i, j) = 0 for i < j) by forward substitution down its rows i >= j:
 *
 *   X(i, j) = (delta_ij - sum_{o <= k < i} M(i, k) X(k, j)) * (1 / M(i, i)),
 *
 * o = j rounded down to 32 (the terms below o are zero: X(k, j) = 0 for k < j): thread t of
 * the column sums the terms with k = t (mod 4) in increasing k (one FMA each), the four
 * partial sums added as (p0 + p1) + (p2 + p3) through two shuffles, and keeps the X(k, j) it
 * will need (k = t mod 4) in registers, so the row loop is unrolled.  M is read through the
 * read-only cache (each row's entries are in the lines the rows before it loaded).
 * hyt_ref_dtrtri_diag (ref_kernels.c) does the same operations in the same order: the two
 * agree to the bit (tests/test_gpu_kernels.c).
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_kernels.h"

#define BS HYT_TRTRI_DIAG_BS /* 128 */
#define COLS 32              /* columns a CTA */
#define TPC 4                /* threads a column */
#define FULL 0xffffffffu

/* M(i, k) of the block at T (logical indices of the lower M) */
template <bool UPPER>
__device__ __forceinline__ static double melem(const double *T, int64_t ldt, int i, int k)
{
    return UPPER ? __ldg(T + k + (int64_t)i * ldt) : __ldg(T + i + (int64_t)k * ldt);
}

/* W's entry X(i, j) of the block at W */
template <bool UPPER>
__device__ __forceinline__ static double *welem(double *W, int64_t ldw, int i, int j)
{
    return UPPER ? W + j + (int64_t)i * ldw : W + i + (int64_t)j * ldw;
}

template <bool UPPER>
__global__ void __launch_bounds__(COLS *TPC)
hyt_dtrtri_diag_kernel(int n, int bs, const double *T, int64_t ldt, double *W, int64_t ldw)
{
    const int q0 = blockIdx.x * bs, w = min(bs, n - q0); /* the block's rows and columns */
    const int o = blockIdx.y * COLS;                       /* the CTA's first column */
    if (o >= w)
        return;
    const int t = threadIdx.x % TPC, jl = threadIdx.x / TPC, j = o + jl;
    const int wp = w - o; /* the rows from o: the subproblem the CTA's columns need */
    T += q0 + o + (int64_t)(q0 + o) * ldt;
    double *const Wq = W + q0 + (int64_t)q0 * ldw;
    /* rows above o: zero */
    if (j < w)
        for (int i = t; i < o; i += TPC)
            *welem<UPPER>(Wq, ldw, i, j) = 0.0;
    double xs[BS / TPC]; /* X(o + k, j) for k = t (mod 4): xs[k / 4] */
#pragma unroll
    for (int m = 0; m < BS / TPC; m++)
        xs[m] = 0.0;
#pragma unroll
    for (int i = 0; i < BS; i++) { /* row o + i */
        if (i < wp) {
            const double r = 1.0 / melem<UPPER>(T, ldt, i, i);
            double p = 0.0;
#pragma unroll
            for (int m = 0; m < (i + TPC - 1) / TPC; m++)
                if (TPC * m + t < i)
                    p = fma(melem<UPPER>(T, ldt, i, TPC * m + t), xs[m], p);
            p += __shfl_xor_sync(FULL, p, 1);
            p += __shfl_xor_sync(FULL, p, 2);
            const double x = i < jl ? 0.0 : ((i == jl ? 1.0 : 0.0) - p) * r;
            if (i % TPC == t) {
                xs[i / TPC] = x;
                if (j < w)
                    *welem<UPPER>(Wq, ldw, o + i, j) = x;
            }
        }
    }
}

extern "C" int hyt_cuda_dtrtri_diag(hyt_device_t *dev, void *stream, char uplo, int n, int bs,
                                    const double *T, int ldt, double *W, int ldw)
{
    const int upper = uplo == 'U' || uplo == 'u';
    if (!upper && uplo != 'L' && uplo != 'l')
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dtrtri_diag: uplo '%c'", uplo);
    if (n < 0 || bs < 1 || bs > BS || ldt < (n > 1 ? n : 1) || ldw < (n > 1 ? n : 1) ||
        (n > 0 && (!T || !W)))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dtrtri_diag: invalid arguments (n = %d, "
                         "bs = %d, ldt = %d, ldw = %d)", n, bs, ldt, ldw);
    if (n == 0)
        return HYT_SUCCESS;
    const dim3 grid((n + bs - 1) / bs, (bs + COLS - 1) / COLS);
    HYT_CUDA_LAUNCH_POINT(dev);
    if (upper)
        hyt_dtrtri_diag_kernel<true><<<grid, COLS * TPC, 0, (cudaStream_t)stream>>>(n, bs, T, ldt,
                                                                                   W, ldw);
    else
        hyt_dtrtri_diag_kernel<false><<<grid, COLS * TPC, 0, (cudaStream_t)stream>>>(n, bs, T,
                                                                                    ldt, W, ldw);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
