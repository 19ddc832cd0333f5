/*
 * Fused Cholesky of one n x n diagonal block on the GPU (column-major, lda; n <= 512; lower
 * A = L L^T or upper A = U^T U), in place, in ONE launch on one stream: the GPU-only design's
 * potf2 (Haidar, Tomov, Abdelfattah, Dongarra, "High-performance Cholesky factorization for
 * GPU-only execution", GPGPU 2017, section 4: fused, loop-inclusive, the panel factored where
 * it is held).
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
 * Upper: the same algorithm on the transposed view, L = U^T: element (r, c) of the lower view
 * is A[c + r lda] (a template parameter, so each variant compiles to its own index arithmetic).
 * The accesses that would then stride across the lanes go through shared memory instead: a
 * warp's row tiles (diagonal tile, solved tile) are loaded and stored a column of the view per
 * instruction, coalesced, through a 32 x 33 staging buffer (the block's sX buffer of that warp,
 * free at those moments), and a block's own tile is held by a thread per view column instead of
 * a thread per view row.
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

/* Element (r, c) of the lower view: A(r, c) (lower) or A(c, r) (upper, L = U^T). */
template <bool UP>
__device__ __forceinline__ static double &at(double *A, int lda, int r, int c)
{
    return UP ? A[(int64_t)c + (int64_t)r * lda] : A[(int64_t)r + (int64_t)c * lda];
}

/* Loads rows r0 .. r0+31 of the view, columns c0 .. c0+31, a row per lane, into v; element
 * (lane, c) is read when ok(lane, c), else it is fill(lane, c).  Upper: a view column per
 * instruction through st (coalesced), then the rows out of it. */
template <bool UP, typename Ok, typename Fill>
__device__ __forceinline__ static void load_rows(double *A, int lda, int r0, int c0, int lane,
                                                 double (&v)[NB], double (*st)[NB + 1], Ok ok,
                                                 Fill fill)
{
    if (UP) {
        __syncwarp();
#pragma unroll
        for (int r = 0; r < NB; r++) /* lane reads view element (r, lane): A(c0 + lane, r0 + r) */
            st[r][lane] = ok(r, lane) ? at<UP>(A, lda, r0 + r, c0 + lane) : fill(r, lane);
        __syncwarp();
#pragma unroll
        for (int c = 0; c < NB; c++)
            v[c] = st[lane][c];
    } else {
#pragma unroll
        for (int c = 0; c < NB; c++)
            v[c] = ok(lane, c) ? at<UP>(A, lda, r0 + lane, c0 + c) : fill(lane, c);
    }
}

/* Stores v (a row per lane: view row r0 + lane, columns c0 + c) where ok(lane, c). */
template <bool UP, typename Ok>
__device__ __forceinline__ static void store_rows(double *A, int lda, int r0, int c0, int lane,
                                                  const double (&v)[NB], double (*st)[NB + 1],
                                                  Ok ok)
{
    if (UP) {
        __syncwarp();
#pragma unroll
        for (int c = 0; c < NB; c++)
            st[lane][c] = v[c];
        __syncwarp();
#pragma unroll
        for (int r = 0; r < NB; r++)
            if (ok(r, lane))
                at<UP>(A, lda, r0 + r, c0 + lane) = st[r][lane];
    } else {
#pragma unroll
        for (int c = 0; c < NB; c++)
            if (ok(lane, c))
                at<UP>(A, lda, r0 + lane, c0 + c) = v[c];
    }
}

/* Loads diagonal tile k (kb x kb, padded with the identity) a row per lane. */
template <bool UP>
__device__ __forceinline__ static void load_diag(double *A, int lda, int k0, int kb, int lane,
                                                 double (&a)[NB], double (*st)[NB + 1])
{
    load_rows<UP>(A, lda, k0, k0, lane, a, st,
                  [=](int r, int c) { return r < kb && c <= r; },
                  [](int r, int c) { return c == r ? 1.0 : 0.0; });
}

/* Writes the lower part (of the view) of a factored diagonal tile (kb x kb) back: column c's
 * diagonal is diag (lane c's) when c < done, else a[c] (not yet factored). */
template <bool UP>
__device__ __forceinline__ static void store_diag(double *A, int lda, int k0, int kb, int lane,
                                                  const double (&a)[NB], double diag, int done,
                                                  double (*st)[NB + 1])
{
    double v[NB];
#pragma unroll
    for (int c = 0; c < NB; c++)
        v[c] = c == lane && c < done ? diag : a[c];
    store_rows<UP>(A, lda, k0, k0, lane, v, st, [=](int r, int c) { return r < kb && c <= r; });
}

template <bool UP>
__global__ void __launch_bounds__(THREADS, 1)
hyt_dpotf2_kernel(int n, double *__restrict__ A, int lda, int *info)
{
    cg::grid_group grid = cg::this_grid();
    /* L(i, k), L(j, k) (padded against bank conflicts); upper: also each warp's staging buffer
     * for its row tiles, at moments when the update does not read it */
    __shared__ double sX[2][NB][NB + 1];
    __shared__ double scol[2][2][NB];    /* per solving warp: column c of L, two buffers */
    __shared__ int sfail;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32, b = blockIdx.x;
    const int T = (n + NB - 1) / NB;
    int i = 0, j = 0; /* this block's tile; j = 0: none (n <= 32) */
    if (T > 1)
        block_tile(b, &i, &j);
    /* the tile in registers: element (tr(q), tc(q)) of tile (i, j) of the view, q < NB / 8;
     * lower: thread t holds row t % 32, columns t / 32 + 8 q; upper: the transpose (column
     * t % 32, rows t / 32 + 8 q), so that consecutive threads read consecutive addresses */
    const int rr = t % NB, cc = t / NB;
#define TR(q) (UP ? cc + 8 * (q) : rr)
#define TC(q) (UP ? rr : cc + 8 * (q))
    double C[NB / 8];
#pragma unroll
    for (int q = 0; q < NB / 8; q++) {
        int gr = i * NB + TR(q), gc = j * NB + TC(q);
        C[q] = j > 0 && gr < n && gc < n && (i != j || TR(q) >= TC(q)) ? at<UP>(A, lda, gr, gc)
                                                                       : 0.0;
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
            const int r0 = i * NB;
            store_rows<UP>(A, lda, r0, k0 - NB, lane, x, sX[0],
                           [=](int r, int) { return r0 + r < n; });
            if (i == j)
                store_diag<UP>(A, lda, k0 - NB, NB, lane, a, diag, NB, sX[0]);
        }
        const int solver = warp == 0 || (warp == 1 && active && i != j);
        if (solver) {
            const int r0 = (warp == 0 ? i : j) * NB;
            load_diag<UP>(A, lda, k0, kb, lane, a, sX[warp]);
            load_rows<UP>(A, lda, r0, k0, lane, x, sX[warp],
                          [=](int r, int) { return active && r0 + r < n; },
                          [](int, int) { return 0.0; });
            fail = factor_solve(a, x, &diag, lane, scol[warp]);
            if (active) {
                __syncwarp();
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
                if (UP) {
                    const double xj = Xj[rr][p];
#pragma unroll
                    for (int q = 0; q < NB / 8; q++)
                        C[q] -= sX[0][cc + 8 * q][p] * xj;
                } else {
                    const double xi = sX[0][rr][p];
#pragma unroll
                    for (int q = 0; q < NB / 8; q++)
                        C[q] -= xi * Xj[cc + 8 * q][p];
                }
            }
            if (k == j - 1) {
#pragma unroll
                for (int q = 0; q < NB / 8; q++) {
                    int gr = i * NB + TR(q), gc = j * NB + TC(q);
                    if (gr < n && gc < n && (i != j || TR(q) >= TC(q)))
                        at<UP>(A, lda, gr, gc) = C[q];
                }
            }
        }
    }
#undef TR
#undef TC
    /* the last diagonal tile (or the failing one, as far as it got) and INFO: every block
     * holds them alike, block 0 writes them */
    if (b == 0 && warp == 0) {
        if (k == T)
            k = T - 1;
        store_diag<UP>(A, lda, k * NB, kb, lane, a, diag, fail, sX[0]);
        if (lane == 0)
            *info = fail < NB ? k * NB + fail + 1 : 0;
    }
}

/* The most blocks of hyt_dpotf2_kernel<up> that can be resident at once on the current device
 * (a cooperative launch needs them all), looked up once per device and variant (a benign race:
 * every thread stores the same value). */
static int max_blocks(int up, int *out)
{
    static int known[2][64];
    int dev, sms, per_sm;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess && dev >= 0 && dev < 64 && known[up][dev]) {
        *out = known[up][dev];
        return 0;
    }
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, up ? hyt_dpotf2_kernel<true> : hyt_dpotf2_kernel<false>, THREADS, 0);
    if (e == cudaSuccess) {
        *out = sms * per_sm;
        if (dev >= 0 && dev < 64)
            known[up][dev] = *out;
    }
    return (int)e;
}

extern "C" int hyt_cuda_dpotf2(hyt_device_t *dev, void *stream, char uplo, int n, double *A,
                               int lda, int *info)
{
    const int up = uplo == 'U' || uplo == 'u';
    if (!(up || uplo == 'L' || uplo == 'l') || n < 0 || n > HYT_DPOTF2_MAX_N ||
        lda < (n > 1 ? n : 1) || !info || (n > 0 && !A))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dpotf2: invalid arguments (uplo '%c', n = "
                         "%d, lda = %d; n at most %d)", uplo, n, lda, HYT_DPOTF2_MAX_N);
    cudaStream_t s = (cudaStream_t)stream;
    if (n == 0) {
        HYT_CUDA_TRY(dev, cudaMemsetAsync(info, 0, sizeof *info, s));
        return HYT_SUCCESS;
    }
    const int T = (n + NB - 1) / NB, blocks = T > 1 ? T * (T - 1) / 2 : 1;
    int fit = 0;
    HYT_CUDA_TRY(dev, (cudaError_t)max_blocks(up, &fit));
    if (blocks > fit)
        return hyt_error(HYT_ERR_DEVICE, "hyt_cuda_dpotf2: n = %d needs %d co-resident blocks,"
                         " this GPU holds %d: use a smaller block", n, blocks, fit);
    void *args[] = {&n, &A, &lda, &info};
    const void *kern = up ? (const void *)hyt_dpotf2_kernel<true>
                          : (const void *)hyt_dpotf2_kernel<false>;
    HYT_CUDA_TRY(dev, cudaLaunchCooperativeKernel(kern, dim3(blocks), dim3(THREADS), args, 0,
                                                  s));
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
