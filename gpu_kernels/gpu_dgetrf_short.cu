/*
 * A short node of the native GPU panel LU (gpu_dgetrf_crrb.c) in ONE launch: columns [j0, j0+w)
 * of a row-major m x n panel (leading dimension nb), rows [j0, m), R = m - j0 <= LEAF_THREADS
 * rows and LEAF_W < w <= R columns, factored by LU with partial pivoting (LAPACK's pivot rule,
 * INFO the first exactly zero pivot); the node's interchanges are applied to the panel's other
 * columns as well, as a leaf's are.  It replaces the node's recursion: its leaf launches and its
 * cuBLAS TRSMs and GEMMs (about 16 + 30 calls for 512 columns, each a wait for the SMs beside
 * the trailing update).
 *
 * P = ceil(w / LEAF_W) CTAs of LEAF_THREADS threads; CTA c owns the node's columns [32c, 32c+32)
 * (a "chunk", all R rows, in shared memory: R x 33 doubles), and the CTAs run as a pipeline
 * through flags in global memory, right-looking by leaves of 32 columns:
 *   for each earlier leaf k < c, once CTA k has flagged it: leaf k's interchanges on the chunk
 *   (composed into one permutation), U12 = inv(L11) A12 (forward substitution, a lane per
 *   column), A22 -= L21 U12 (a thread per row, U12 in shared memory);
 *   then the chunk's own leaf with the one-CTA column loop (leaf_cta_columns), its L (rows
 *   [32c, R), this step's row order) to a column-major copy in the workspace, which the later
 *   CTAs read coalesced (a thread per row; from the row-major panel a warp's loads touched 4x
 *   the bytes they used, and the update took 1.8x as long), and the flag.
 * After its leaf a CTA applies the later leaves' interchanges to its chunk as they are flagged
 * and writes the chunk back to the panel once the last leaf is flagged.  The first max(1, P/2)
 * CTAs, which finish their leaves first, also apply every leaf's interchanges, in order, to the
 * panel's columns outside the node (32-column chunks dealt out among them).
 *
 * A CTA takes its chunk from a ticket (an atomic counter), so chunk c's CTA started before
 * chunk c+1's: a CTA waits for a leaf of a CTA that runs or has run.  After its leaf it waits
 * for the later ones, so the P CTAs must be able to run at once: the dispatcher asks for P of
 * the stream's SMs (one CTA an SM).  flags: 1 + P zeroed unsigned ints (ticket, leaf flags);
 * lt: R x w doubles (the leaves' L), both in the leaves' workspace.
 *
 * A 512 x 512 panel: 0.89 ms alone, 1.44 beside the update's DGEMMs, where the recursion took
 * 1.32 / 3.1 and cusolverDnDgetrf 1.05 / 2.15 (an H100, docs/performance.md, thirty-seventh
 * stop).  Its own clock then: ~40 us of each 32-column leaf (~1.2 us a column, whatever its
 * rows), up to ~16 us of the next chunk's update.  On an H200 (thirty-eighth stop): 0.88 / 1.31
 * ms, then 0.61 / 0.87 with the leaf's interchanges as relabellings (a leaf column ~1300
 * cycles, ~0.34 ms of the panel), then 0.53 / 0.81 with the update two rows a thread and the
 * interchanges composed lane-parallel (cuSOLVER 0.95 / 2.09).
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_geometry.h"
#include "hyt_gpu_kernels.h"
#include "hyt_gpu_leaf.cuh"
#include "hyt_gpu_sync.cuh"

#include <float.h>

#define SHORT_LD (LEAF_W + 1) /* a chunk row's stride in doubles */
#define SHORT_GW 16 /* columns of A22 a thread updates (two rows of them) */
#define SHORT_SMEM ((size_t)LEAF_THREADS * SHORT_LD * sizeof(double))

/* Every thread of the CTA: once leaf k is flagged (its pivots in ipiv, its L in lt). */
__device__ static void short_wait(const unsigned *done, int k)
{
    if (threadIdx.x == 0)
        while (ld_acquire(done + k) == 0u)
            __nanosleep(20);
    __syncthreads();
}

/* Leaf k's wk interchanges (from ipiv: 1-based panel rows) composed into one permutation of at
 * most 2 wk panel rows: row to[e] receives row from[e], e < *ne.  Passes a CTA barrier. */
__device__ static void short_compose(const int *ipiv, int j0, int k, int wk, int *spiv, int *to,
                                     int *from, int *ne)
{
    const int r0 = j0 + k * LEAF_W;
    if (threadIdx.x < wk)
        spiv[threadIdx.x] = __ldcg(ipiv + r0 + threadIdx.x) - 1;
    __syncwarp();
    leaf_compose(spiv, r0, wk, to, from, ne);
    __syncthreads();
}

/* That permutation on the chunk (wc columns, local rows: panel row - j0), through buf. */
__device__ static void short_permute_chunk(double *ch, int wc, int j0, const int *to,
                                           const int *from, int ne, double (*buf)[LEAF_W])
{
    for (int i = threadIdx.x; i < ne * LEAF_W; i += LEAF_THREADS) {
        const int e = i / LEAF_W, q = i % LEAF_W;
        if (q < wc)
            buf[e][q] = ch[(from[e] - j0) * SHORT_LD + q];
    }
    __syncthreads();
    for (int i = threadIdx.x; i < ne * LEAF_W; i += LEAF_THREADS) {
        const int e = i / LEAF_W, q = i % LEAF_W;
        if (q < wc)
            ch[(to[e] - j0) * SHORT_LD + q] = buf[e][q];
    }
    __syncthreads();
}

__global__ void __launch_bounds__(LEAF_THREADS, 1)
hyt_dgetrf_short_kernel(double *A, int m, int n, int nb, int j0, int w, int *ipiv, int *info,
                        unsigned *flags, double *lt)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ double ch[]; /* [R][SHORT_LD]: the chunk, local rows 0 .. R-1 */
    __shared__ leaf_cta_slots S;
    __shared__ double U12[LEAF_W][LEAF_W], L11[LEAF_W][LEAF_W + 1];
    __shared__ double buf[2 * LEAF_W][LEAF_W];
    __shared__ int spiv[LEAF_W], to[2 * LEAF_W], from[2 * LEAF_W], ne_s;
    __shared__ unsigned ticket;
    const int R = m - j0, P = (w + LEAF_W - 1) / LEAF_W, t = threadIdx.x;
    unsigned *const done = flags + 1;
    if (t == 0)
        ticket = atomicAdd(flags, 1u);
    __syncthreads();
    const int c = (int)ticket, c0 = c * LEAF_W, wc = min(LEAF_W, w - c0);

    /* the chunk in (the columns beyond wc zero: the updates below run over all 32) */
    for (int i = t; i < R * LEAF_W; i += LEAF_THREADS) {
        const int r = i / LEAF_W, q = i % LEAF_W;
        ch[r * SHORT_LD + q] = q < wc ? A[(int64_t)(j0 + r) * nb + j0 + c0 + q] : 0.0;
    }
    __syncthreads();

    /* the earlier leaves' steps on the chunk */
    for (int k = 0; k < c; k++) {
        const int r0 = k * LEAF_W; /* leaf k's first row and column (local) */
        short_wait(done, k);
        short_compose(ipiv, j0, k, LEAF_W, spiv, to, from, &ne_s);
        short_permute_chunk(ch, wc, j0, to, from, ne_s, buf);
        const double *const lk = lt + (size_t)k * LEAF_W * R; /* leaf k's L, [b][row] */
        for (int i = t; i < LEAF_W * LEAF_W; i += LEAF_THREADS) {
            const int a = i % LEAF_W, b = i / LEAF_W;
            L11[a][b] = __ldcg(lk + (size_t)b * R + r0 + a);
        }
        __syncthreads();
        if (t < LEAF_W) { /* U12 = inv(L11) A12, lane t the chunk's column t */
            double u[LEAF_W];
#pragma unroll
            for (int a = 0; a < LEAF_W; a++)
                u[a] = ch[(r0 + a) * SHORT_LD + t];
#pragma unroll
            for (int b = 0; b < LEAF_W; b++)
#pragma unroll
                for (int a = b + 1; a < LEAF_W; a++)
                    u[a] = __fma_rn(-L11[a][b], u[b], u[a]);
#pragma unroll
            for (int a = 0; a < LEAF_W; a++) {
                U12[a][t] = u[a];
                ch[(r0 + a) * SHORT_LD + t] = u[a];
            }
        }
        __syncthreads();
        /* A22 -= L21 U12: rows [r0 + 32, R), thread t rows i, i + 1 (i = r0 + 32 + 2 (t % 256))
         * and columns [16 (t / 256), +16): each U12 load feeds two rows (from shared memory
         * the loads, not the FMAs, were the limit: a thread per row took 9.5 us on 480 rows) */
        {
            const int g = (t / 256) * SHORT_GW, i = r0 + LEAF_W + 2 * (t % 256);
            if (i < R) {
                const bool two = i + 1 < R;
                double *const row0 = ch + i * SHORT_LD + g, *const row1 = row0 + SHORT_LD;
                double a0[SHORT_GW], a1[SHORT_GW];
#pragma unroll
                for (int e = 0; e < SHORT_GW; e++) {
                    a0[e] = row0[e];
                    a1[e] = two ? row1[e] : 0.0;
                }
#pragma unroll 4
                for (int b = 0; b < LEAF_W; b++) {
                    const double l0 = __ldcg(lk + (size_t)b * R + i);
                    const double l1 = two ? __ldcg(lk + (size_t)b * R + i + 1) : 0.0;
#pragma unroll
                    for (int e = 0; e < SHORT_GW; e++) {
                        const double u = U12[b][g + e];
                        a0[e] = __fma_rn(-l0, u, a0[e]);
                        a1[e] = __fma_rn(-l1, u, a1[e]);
                    }
                }
#pragma unroll
                for (int e = 0; e < SHORT_GW; e++) {
                    row0[e] = a0[e];
                    if (two)
                        row1[e] = a1[e];
                }
            }
        }
        __syncthreads();
    }

    /* the chunk's leaf: rows [c0, R), thread t leaf row t */
    {
        const bool mine = t < R - c0;
        double x[LEAF_W];
#pragma unroll
        for (int q = 0; q < LEAF_W; q++)
            x[q] = mine ? ch[(c0 + t) * SHORT_LD + q] : 0.0;
        const int lr = leaf_cta_columns(x, t, mine, wc, j0 + c0, S, spiv, ipiv, info);
        if (mine) /* every row was read before the loop's first barrier */
#pragma unroll
            for (int q = 0; q < LEAF_W; q++)
                ch[(c0 + lr) * SHORT_LD + q] = x[q];
    }
    __syncthreads();
    {
        double *const lc = lt + (size_t)c * LEAF_W * R; /* this leaf's L for the later CTAs */
        const int rl = R - c0;
        for (int i = t; i < rl * wc; i += LEAF_THREADS) {
            const int b = i / rl, r = c0 + i % rl;
            lc[(size_t)b * R + r] = ch[r * SHORT_LD + b];
        }
    }
    __threadfence();
    __syncthreads();
    if (t == 0)
        st_release(done + c, 1u);

    /* the later leaves' interchanges on the chunk; every leaf's outside the node */
    const int q = P / 2 > 1 ? P / 2 : 1;
    const bool outside = c < q && c * LEAF_W < n - w;
    for (int k = outside ? 0 : c + 1; k < P; k++) {
        short_wait(done, k);
        short_compose(ipiv, j0, k, min(LEAF_W, w - k * LEAF_W), spiv, to, from, &ne_s);
        if (k > c)
            short_permute_chunk(ch, wc, j0, to, from, ne_s, buf);
        if (outside)
            leaf_permute_outside(A, n, nb, j0, w, c, q, to, from, ne_s, buf);
    }
    for (int i = t; i < R * LEAF_W; i += LEAF_THREADS) { /* the chunk back */
        const int r = i / LEAF_W, qq = i % LEAF_W;
        if (qq < wc)
            A[(int64_t)(j0 + r) * nb + j0 + c0 + qq] = ch[r * SHORT_LD + qq];
    }
#else
    (void)A, (void)m, (void)n, (void)nb, (void)j0, (void)w, (void)ipiv, (void)info, (void)flags;
    (void)lt;
#endif
}

extern "C" int hyt_cuda_dgetrf_short(hyt_device_t *dev, void *stream, double *A, int m, int n,
                                     int nb, int j0, int w, int *ipiv, int *info, double *ws,
                                     int nctas)
{
    static signed char usable[64]; /* by device ordinal: 0 not asked yet, 1 yes, -1 no */
    const int R = m - j0, P = (w + LEAF_W - 1) / LEAF_W;
    if (w <= LEAF_W || R > LEAF_THREADS || w > R || n < j0 + w || nb < n || P > nctas)
        return 1;
    int sms;
    int rc = hyt_cuda_stream_sms(dev, stream, &sms);
    if (rc)
        return rc;
    if (P > sms || !hyt_cuda_kernel_usable(usable, (const void *)hyt_dgetrf_short_kernel, 8,
                                           SHORT_SMEM, 0))
        return 1;
    unsigned *flags = (unsigned *)ws; /* the leaves' slots: unused while this kernel runs */
    double *lt = (double *)((char *)ws + hyt_panel_leaf_slots_bytes(m)); /* R x w doubles */
    HYT_CUDA_TRY(dev, cudaMemsetAsync(flags, 0, (size_t)(1 + P) * sizeof(unsigned),
                                      (cudaStream_t)stream));
    hyt_dgetrf_short_kernel<<<P, LEAF_THREADS, (size_t)R * SHORT_LD * sizeof(double),
                              (cudaStream_t)stream>>>(A, m, n, nb, j0, w, ipiv, info, flags, lt);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
