/*
 * LAPACK's DTRSM for few right-hand sides on the GPU: B = alpha B op(A)^-1 (side 'R', B m x n,
 * m <= HYT_TRSM_FEW_RHS) or B = alpha op(A)^-1 B (side 'L', B m x n, n <= HYT_TRSM_FEW_RHS),
 * A triangular of order at most HYT_TRSM_FEW_MAX_N.  The device solve's sweeps
 * (drivers/dmat_trs.c) call it once per step of nb with HPL's one right-hand side, where
 * cuBLAS's DTRSM takes 0.2-0.5 ms whatever the number of rows (docs/performance.md, nineteenth
 * stop); this one 0.12-0.17 ms at order 1024.
 *
 * Each right-hand side x (a row of B for 'R', a column for 'L') solves M y = alpha x with M
 * triangular, one block per right-hand side, y in shared memory.  With the index reversed
 * (i -> order - 1 - i) where M is upper, M is always lower and the solve a forward substitution
 * in blocks of 32 (right-looking):
 *   - warp 0 updates the next diagonal block's rows with the block just solved, then solves
 *     it from a row per lane held in registers (lane j scales its y_j, the lanes below subtract
 *     L(i, j) y_j from the shuffled value): the chain of diagonal blocks stays in warp 0;
 *   - warps 1.. update the rows below the next block with the block just solved;
 *   - one block barrier per block of 32.
 * M is op(A)^T ('R') or op(A) ('L'): element (i, j) is A[i + j lda] or A[j + i lda] (TA), so the
 * eight cases of (side, uplo, trans) are four kernels of (TA, REV) and the unit diagonal.
 *
 * Arithmetic: a non-unit diagonal divides through the reciprocal 1 / A(i, i) computed off the
 * chain where A(i, i) is normal and at most 2^1021 (otherwise by A(i, i) itself); inside a
 * diagonal block a row gets its terms in LAPACK's order (one FMA each), below it in blocks of
 * 32 as update_rows says (in LAPACK's order where M's columns are contiguous, else eight
 * partial sums added in a butterfly).  So a result may differ from LAPACK's in the last bits.
 * hyt_ref_dtrsm_few (ref_kernels.c) does the same operations in the same order: the two agree
 * to the bit, the test's check (tests/test_gpu_dtrsm_few.c).
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_kernels.h"

#define BS 32 /* the diagonal blocks: a warp */
#define THREADS 512
#define FULL 0xffffffffu

/* element (i, j) of M, both logical indices (reversed when REV) */
template <bool TA, bool REV>
__device__ __forceinline__ static double elem(const double *A, int64_t lda, int n, int i, int j)
{
    const int64_t p = REV ? n - 1 - i : i, q = REV ? n - 1 - j : j;
    return TA ? __ldg(A + q + p * lda) : __ldg(A + p + q * lda);
}

/* Warp 0: y_i of the diagonal block at j0 (lane's row i = j0 + lane; lanes past n hold 0), from
 * its row's strictly lower entries l[] and its diagonal (d, and r = 1 / d where safe). */
template <bool UNIT>
__device__ __forceinline__ static double solve_block(double yi, const double (&l)[BS], double d,
                                                     double r, bool safe, int lane)
{
#pragma unroll
    for (int j = 0; j < BS; j++) {
        if (!UNIT && lane == j)
            yi = safe ? yi * r : yi / d;
        const double yj = __shfl_sync(FULL, yi, j);
        if (lane > j)
            yi = fma(-l[j], yj, yi);
    }
    return yi;
}

/* Warp 0: lane's row i = j0 + lane of the diagonal block at j0: l[j] = M(i, j0 + j) for j < lane,
 * else 0; d = M(i, i) (1 when unit or past n), r = 1 / d, safe: r may stand for d.  TA (rows of
 * M contiguous): the tile goes through sD, a column per lane, so that the loads are coalesced. */
template <bool TA, bool REV, bool UNIT>
__device__ __forceinline__ static void load_block(const double *A, int64_t lda, int n, int j0,
                                                  int lane, double (*sD)[BS + 1],
                                                  double (&l)[BS], double *d, double *r,
                                                  bool *safe)
{
    const int i = j0 + lane;
    if (TA) {
#pragma unroll
        for (int a = 0; a < BS; a++)
            sD[a][lane] = lane < a && j0 + a < n ? elem<TA, REV>(A, lda, n, j0 + a, i) : 0.0;
        __syncwarp();
#pragma unroll
        for (int j = 0; j < BS; j++)
            l[j] = sD[lane][j];
        __syncwarp();
    } else {
#pragma unroll
        for (int j = 0; j < BS; j++)
            l[j] = j < lane && i < n ? elem<TA, REV>(A, lda, n, i, j0 + j) : 0.0;
    }
    *d = 1.0;
    if (!UNIT && i < n)
        *d = elem<TA, REV>(A, lda, n, i, i);
    const double ad = fabs(*d);
    *safe = ad >= 0x1p-1022 && ad <= 0x1p1021;
    *r = 1.0 / *d;
}

/* y_i -= sum_j M(i, j0 + j) y_{j0 + j}, j < BS, for the rows i in [i0, i1) that this thread
 * (t of nt threads, warps whole) takes.  Not TA (columns of M contiguous): a thread per row, its
 * terms one FMA each in order of j.  TA (rows contiguous): eight lanes per row, lane g's terms
 * j = g + 8c (c = 0..3) by FMAs from 0, the eight partial sums added in a butterfly (lane g with
 * lane g ^ 4, then ^ 2, then ^ 1), the total subtracted; groups of four rows per warp, UNROLL of
 * them loaded before any is summed (the loads in flight are what the update's time is). */
#define UNROLL 8
template <bool TA, bool REV>
__device__ __forceinline__ static void update_rows(const double *A, int64_t lda, int n,
                                                   double *y, int j0, int i0, int i1, int t,
                                                   int nt)
{
    if (!TA) {
        for (int i = i0 + t; i < i1; i += nt) {
            double s = y[i];
#pragma unroll
            for (int j = 0; j < BS; j++)
                s = fma(-elem<TA, REV>(A, lda, n, i, j0 + j), y[j0 + j], s);
            y[i] = s;
        }
        return;
    }
    const int lane = t % 32, w = t / 32, nw = nt / 32, rw = lane / 8, g = lane % 8;
    double yv[4];
#pragma unroll
    for (int c = 0; c < 4; c++)
        yv[c] = y[j0 + g + 8 * c];
    for (int q0 = w; i0 + 4 * q0 < i1; q0 += UNROLL * nw) {
        double v[UNROLL][4];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const int i = i0 + 4 * (q0 + u * nw) + rw;
#pragma unroll
            for (int c = 0; c < 4; c++)
                v[u][c] = i < i1 ? elem<TA, REV>(A, lda, n, i, j0 + g + 8 * c) : 0.0;
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const int i = i0 + 4 * (q0 + u * nw) + rw;
            double p = 0.0;
#pragma unroll
            for (int c = 0; c < 4; c++)
                p = fma(v[u][c], yv[c], p);
            p += __shfl_xor_sync(FULL, p, 4);
            p += __shfl_xor_sync(FULL, p, 2);
            p += __shfl_xor_sync(FULL, p, 1);
            if (g == 0 && i < i1)
                y[i] -= p;
        }
    }
}

template <bool TA, bool REV, bool UNIT>
__global__ void __launch_bounds__(THREADS)
hyt_dtrsm_few_kernel(int n, double alpha, const double *__restrict__ A, int64_t lda,
                     double *__restrict__ X, int64_t xoff, int64_t xinc)
{
    __shared__ double y[HYT_TRSM_FEW_MAX_N];
    __shared__ double sD[BS][BS + 1];
    double *x = X + blockIdx.x * xoff;
    const int t = threadIdx.x, lane = t % 32;
    if (alpha == 0.0) { /* LAPACK: B = 0, A not read */
        for (int i = t; i < n; i += THREADS)
            x[i * xinc] = 0.0;
        return;
    }
    for (int i = t; i < n; i += THREADS)
        y[i] = alpha * x[(int64_t)(REV ? n - 1 - i : i) * xinc];
    __syncthreads();
    double l[BS], d, r;
    bool safe;
    if (t < 32) {
        load_block<TA, REV, UNIT>(A, lda, n, 0, lane, sD, l, &d, &r, &safe);
        const double yi = solve_block<UNIT>(lane < n ? y[lane] : 0.0, l, d, r, safe, lane);
        if (lane < n)
            y[lane] = yi;
    }
    __syncthreads();
    for (int j0 = 0; j0 + BS < n; j0 += BS) {
        const int j1 = j0 + BS; /* the next block */
        if (t < 32) {
            /* its rows with this block, then its solve: the chain stays in warp 0 */
            update_rows<TA, REV>(A, lda, n, y, j0, j1, min(j1 + BS, n), t, 32);
            load_block<TA, REV, UNIT>(A, lda, n, j1, lane, sD, l, &d, &r, &safe);
            __syncwarp();
            const int i = j1 + lane;
            const double yi = solve_block<UNIT>(i < n ? y[i] : 0.0, l, d, r, safe, lane);
            if (i < n)
                y[i] = yi;
        } else {
            update_rows<TA, REV>(A, lda, n, y, j0, j1 + BS, n, t - 32, THREADS - 32);
        }
        __syncthreads();
    }
    for (int i = t; i < n; i += THREADS)
        x[(int64_t)(REV ? n - 1 - i : i) * xinc] = y[i];
}

template <bool TA, bool REV>
static void launch(bool unit, int nrhs, cudaStream_t s, int n, double alpha, const double *A,
                   int64_t lda, double *X, int64_t xoff, int64_t xinc)
{
    if (unit)
        hyt_dtrsm_few_kernel<TA, REV, true><<<nrhs, THREADS, 0, s>>>(n, alpha, A, lda, X, xoff,
                                                                       xinc);
    else
        hyt_dtrsm_few_kernel<TA, REV, false><<<nrhs, THREADS, 0, s>>>(n, alpha, A, lda, X,
                                                                        xoff, xinc);
}

extern "C" int hyt_cuda_dtrsm_few(hyt_device_t *dev, void *stream, char side, char uplo,
                                  char transa, char diag, int m, int n, double alpha,
                                  const double *A, int lda, double *B, int ldb)
{
    const int left = side == 'L' || side == 'l', nrhs = left ? n : m, order = left ? m : n;
    if (nrhs < 0 || nrhs > HYT_TRSM_FEW_RHS || order < 0 || order > HYT_TRSM_FEW_MAX_N ||
        lda < (order > 1 ? order : 1) || ldb < (m > 1 ? m : 1))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dtrsm_few: invalid arguments (side '%c', m = "
                         "%d, n = %d, lda = %d, ldb = %d)", side, m, n, lda, ldb);
    if (nrhs == 0 || order == 0)
        return HYT_SUCCESS;
    /* M = op(A)^T ('R') or op(A) ('L'): tn says M reads A transposed; M lower: no reversal */
    const int notrans = transa == 'N' || transa == 'n', lower = uplo == 'L' || uplo == 'l';
    const bool tn = left ? !notrans : notrans, rev = lower == tn;
    const bool unit = diag == 'U' || diag == 'u';
    const int64_t xoff = left ? ldb : 1, xinc = left ? 1 : ldb;
    cudaStream_t s = (cudaStream_t)stream;
    HYT_CUDA_LAUNCH_POINT(dev);
    if (tn)
        rev ? launch<true, true>(unit, nrhs, s, order, alpha, A, lda, B, xoff, xinc)
            : launch<true, false>(unit, nrhs, s, order, alpha, A, lda, B, xoff, xinc);
    else
        rev ? launch<false, true>(unit, nrhs, s, order, alpha, A, lda, B, xoff, xinc)
            : launch<false, false>(unit, nrhs, s, order, alpha, A, lda, B, xoff, xinc);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
