/*
 * Fused Cholesky of one n x n diagonal block on the GPU (lower, column-major, lda; n <= 512), in
 * place, in ONE launch on one stream: the GPU-only design's potf2 (Haidar, Tomov, Abdelfattah,
 * Dongarra, "High-performance Cholesky factorization for GPU-only execution", GPGPU 2017,
 * section 4: fused, loop-inclusive, the panel factored where it is held).
 *
 * Right-looking over 32 x 32 tiles, T = ceil(n / 32) tile columns, one cooperative grid with a
 * block per tile (i, j), 1 <= j <= i < T, of the trailing matrix (n = 512: 120 blocks, one per
 * SM).  A block keeps its tile in registers from the start until its last update.  Step
 * k = 0 .. T-1:
 *   1. warp 0 holds the diagonal tile (k, k) a row per lane and tile (i, k) below it, warp 1 the
 *      diagonal tile again and tile (j, k); each factors the diagonal tile in registers
 *      (warp-synchronous, no block barrier) and solves its rows with it in the same loop:
 *      L(i, k) = A(i, k) L(k, k)^-T.  Every block does this, the blocks with nothing left to
 *      update too: the same data and instructions, so every block sees the same failure at
 *      the same column and all stop together (no grid barrier is left waiting, NaN included);
 *   2. the tile update A(i, j) -= L(i, k) L(j, k)^T by the whole block from shared memory; at
 *      k = j - 1 the tile is final and goes back to A for step j to read;
 *   grid sync (T - 1 of them in all).
 * The solved tiles are not written back during step k, since other blocks are still reading
 * A(i, k) then; block (i, k + 1) writes L(i, k) (and block (k + 1, k + 1) L(k, k)) from its
 * registers after the next grid sync, when column k is read by nobody any more.  The critical
 * path per step is one 32-column factor-and-solve, a 32 x 32 x 32 tile update and a grid sync.
 *
 * INFO as LAPACK's dpotf2: the first j with A(j,j) <= 0 or NaN after its update; the
 * factorization stops at that tile (A beyond it is unspecified; the failing diagonal tile holds
 * the columns factored so far and the partly updated rest).
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_kernels.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define NB 32          /* tile = warp width: a lane holds a row */
#define THREADS 256
#define FULL 0xffffffffu

/* Block b -> tile (i, j) of the trailing matrix, 1 <= j <= i, in the order (1,1) (2,1) (2,2)
 * (3,1) ... */
__device__ static void block_tile(int b, int *i, int *j)
{
    int ii = 0;
    while ((ii + 1) * (ii + 2) / 2 <= b)
        ii++;
    *i = ii + 1;
    *j = b - ii * (ii + 1) / 2 + 1;
}

/* The diagonal tile a[] (lane r: row r, lower part; the upper part is scratch) factored in
 * place and the rows x[] (lane r: row r of a tile below) solved with it, column by column.
 * Lane r's diagonal element ends up in *diag.  Returns the first column whose pivot is not
 * positive (or NaN), NB if none; the pivot is shuffled from one lane, so the answer is the
 * same in every lane.  Column c of L reaches the lanes through scol (the warp's own two
 * buffers, alternating, so one __syncwarp per column suffices): measured on the H200, 2 us
 * per step faster than a shuffle per element, and the diagonal as d rsqrt(d) another 2 us
 * faster than a sqrt in one lane (docs/performance.md). */
__device__ __forceinline__ static int factor_solve(double (&a)[NB], double (&x)[NB],
                                                   double *diag, int lane, double (*scol)[NB])
{
    int fail = NB;
#pragma unroll
    for (int c = 0; c < NB; c++) {
        const double d = __shfl_sync(FULL, a[c], c);
        if (!(d > 0.0)) { /* <= 0 or NaN */
            fail = c;
            break;
        }
        const double rs = rsqrt(d);
        if (lane == c)
            *diag = d * rs; /* sqrt(d); only written back */
        a[c] *= rs;         /* column c of L (rows > c) */
        x[c] *= rs;
        scol[c & 1][lane] = a[c];
        __syncwarp();
#pragma unroll
        for (int c2 = c + 1; c2 < NB; c2++) {
            const double l = scol[c & 1][c2]; /* L(c2, c), the same address in every lane */
            a[c2] -= a[c] * l;
            x[c2] -= x[c] * l;
        }
    }
    return fail;
}

/* Loads diagonal tile k (kb x kb, padded with the identity) a row per lane. */
__device__ __forceinline__ static void load_diag(const double *A, int lda, int k0, int kb,
                                                 int lane, double (&a)[NB])
{
#pragma unroll
    for (int c = 0; c < NB; c++)
        a[c] = lane < kb && c <= lane ? A[(int64_t)(k0 + lane) + (int64_t)(k0 + c) * lda]
                                      : (c == lane ? 1.0 : 0.0);
}

/* Writes the lower part of a factored diagonal tile (kb x kb) back. */
__device__ __forceinline__ static void store_diag(double *A, int lda, int k0, int kb, int lane,
                                                  const double (&a)[NB], double diag, int done)
{
#pragma unroll
    for (int c = 0; c < NB; c++)
        if (lane < kb && c <= lane)
            A[(int64_t)(k0 + lane) + (int64_t)(k0 + c) * lda] =
                c == lane && c < done ? diag : a[c];
}

__global__ void __launch_bounds__(THREADS, 1)
hyt_dpotf2_kernel(int n, double *__restrict__ A, int lda, int *info)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ double sX[2][NB][NB + 1]; /* L(i, k), L(j, k); padded against bank conflicts */
    __shared__ double scol[2][2][NB];    /* per solving warp: column c of L, two buffers */
    __shared__ int sfail;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32, b = blockIdx.x;
    const int T = (n + NB - 1) / NB;
    int i = 0, j = 0; /* this block's tile; j = 0: none (n <= 32) */
    if (T > 1)
        block_tile(b, &i, &j);
#define AT(r, c) A[(int64_t)(r) + (int64_t)(c) * lda]
    /* the tile in registers: thread t holds row rr, columns cc + 8 q */
    const int rr = t % NB, cc = t / NB;
    double C[NB / 8];
#pragma unroll
    for (int q = 0; q < NB / 8; q++) {
        int gr = i * NB + rr, c = cc + 8 * q, gc = j * NB + c;
        C[q] = j > 0 && gr < n && gc < n && (i != j || rr >= c) ? AT(gr, gc) : 0.0;
    }
    double a[NB], x[NB], diag = 0.0; /* warps 0 and 1 */
    int fail = NB, kb = 0, k = 0;
    for (k = 0; k < T; k++) {
        const int k0 = k * NB, active = j > k;
        kb = min(NB, n - k0);
        if (k > 0)
            grid.sync();
        if (warp == 0 && j == k && k > 0) {
            /* last step's solved tile, and the diagonal tile, now that nobody reads them */
#pragma unroll
            for (int c = 0; c < NB; c++)
                if (i * NB + lane < n)
                    AT(i * NB + lane, k0 - NB + c) = x[c];
            if (i == j)
                store_diag(A, lda, k0 - NB, NB, lane, a, diag, NB);
        }
        const int solver = warp == 0 || (warp == 1 && active && i != j);
        if (solver) {
            const int row0 = (warp == 0 ? i : j) * NB + lane;
            load_diag(A, lda, k0, kb, lane, a);
#pragma unroll
            for (int c = 0; c < NB; c++)
                x[c] = active && row0 < n ? AT(row0, k0 + c) : 0.0;
            fail = factor_solve(a, x, &diag, lane, scol[warp]);
            if (active) {
#pragma unroll
                for (int c = 0; c < NB; c++)
                    sX[warp][lane][c] = x[c];
            }
            if (t == 0)
                sfail = fail;
        }
        __syncthreads();
        if (sfail < NB)
            break;
        if (active) {
            const double (*Xj)[NB + 1] = i == j ? sX[0] : sX[1];
#pragma unroll 8
            for (int p = 0; p < NB; p++) {
                const double xi = sX[0][rr][p];
#pragma unroll
                for (int q = 0; q < NB / 8; q++)
                    C[q] -= xi * Xj[cc + 8 * q][p];
            }
            if (k == j - 1) {
#pragma unroll
                for (int q = 0; q < NB / 8; q++) {
                    int gr = i * NB + rr, c = cc + 8 * q, gc = j * NB + c;
                    if (gr < n && gc < n && (i != j || rr >= c))
                        AT(gr, gc) = C[q];
                }
            }
        }
    }
#undef AT
    /* the last diagonal tile (or the failing one, as far as it got) and INFO: every block
     * holds them alike, block 0 writes them */
    if (b == 0 && warp == 0) {
        if (k == T)
            k = T - 1;
        store_diag(A, lda, k * NB, kb, lane, a, diag, fail);
        if (lane == 0)
            *info = fail < NB ? k * NB + fail + 1 : 0;
    }
}

/* The most blocks of hyt_dpotf2_kernel that can be resident at once on the current device (a
 * cooperative launch needs them all), looked up once per device (a benign race: every thread
 * stores the same value). */
static int max_blocks(int *out)
{
    static int known[64];
    int dev, sms, per_sm;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess && dev >= 0 && dev < 64 && known[dev]) {
        *out = known[dev];
        return 0;
    }
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hyt_dpotf2_kernel, THREADS,
                                                          0);
    if (e == cudaSuccess) {
        *out = sms * per_sm;
        if (dev >= 0 && dev < 64)
            known[dev] = *out;
    }
    return (int)e;
}

extern "C" int hyt_cuda_dpotf2(hyt_device_t *dev, void *stream, int n, double *A, int lda,
                               int *info)
{
    if (n < 0 || n > HYT_DPOTF2_MAX_N || lda < (n > 1 ? n : 1) || !info || (n > 0 && !A))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dpotf2: invalid arguments (n = %d, lda = %d;"
                         " n at most %d)", n, lda, HYT_DPOTF2_MAX_N);
    cudaStream_t s = (cudaStream_t)stream;
    if (n == 0) {
        HYT_CUDA_TRY(dev, cudaMemsetAsync(info, 0, sizeof *info, s));
        return HYT_SUCCESS;
    }
    const int T = (n + NB - 1) / NB, blocks = T > 1 ? T * (T - 1) / 2 : 1;
    int fit = 0;
    HYT_CUDA_TRY(dev, (cudaError_t)max_blocks(&fit));
    if (blocks > fit)
        return hyt_error(HYT_ERR_DEVICE, "hyt_cuda_dpotf2: n = %d needs %d co-resident blocks,"
                         " this GPU holds %d: use a smaller block", n, blocks, fit);
    void *args[] = {&n, &A, &lda, &info};
    HYT_CUDA_TRY(dev, cudaLaunchCooperativeKernel((const void *)hyt_dpotf2_kernel, dim3(blocks),
                                                  dim3(THREADS), args, 0, s));
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
