/*
 * Fused Cholesky of one n x n diagonal block on the GPU (column-major, lda; n <= 512; lower
 * A = L L^T or upper A = U^T U), in place, in ONE launch on one stream: the GPU-only design's
 * potf2 (Haidar, Tomov, Abdelfattah, Dongarra, "High-performance Cholesky factorization for
 * GPU-only execution", GPGPU 2017, section 4: fused, loop-inclusive, the panel factored where
 * it is held).
 *
 * Right-looking over 32 x 32 tiles, T = ceil(n / 32) tile columns, a block of 256 threads per
 * tile (i, j), 1 <= j <= i < T, of the trailing matrix (n = 512: 120 blocks).  A block keeps
 * its tile in registers from the start until its last update.  Step k = 0 .. j - 1 of block
 * (i, j):
 *   1. wait until the tiles (k, k), (i, k) and (j, k) are final (their owners' flags, each
 *      polled by a thread of its own warp);
 *   2. warp 0 loads the diagonal tile (k, k) a row per lane and factors it in registers, two
 *      columns at a time from their 2 x 2 block (factor_pairs: no branch, so that the updates
 *      of the later columns leave the pivots' dependent chain); a pivot that is not positive
 *      and normal sends it to the careful column-by-column factor (factor), which gives INFO.
 *      Warps 1 and 2 load the tiles (i, k) and (j, k) meanwhile.  Every block factors the
 *      diagonal tile itself, the same data and instructions, so every block sees the same
 *      failure at the same column and all stop there (NaN included);
 *   3. warps 1 and 2 solve their rows with it, L(i, k) = A(i, k) L(k, k)^-T (a row per lane),
 *      following the factor in three phases: block barriers after its first PHASE1 pairs and
 *      after PHASE2, the solvers on the pairs published while warp 0 factors the next ones,
 *      so that most of the solve leaves the step's dependent chain; the solved columns go to
 *      shared memory as they are final (plain __syncthreads: an earlier try with named
 *      barriers between the warps, finer-grained, gained about as much, but compute-
 *      sanitizer's racecheck could not follow it);
 *   4. the tile update A(i, j) -= L(i, k) L(j, k)^T by the whole block from shared memory; at
 *      k = j - 1 the tile is final: it goes back to A and its flag is raised.
 * The last block, (T - 1, T - 1), also factors the last diagonal tile.
 *
 * Flags instead of grid barriers (the previous version: a cooperative launch and T - 1 grid
 * syncs): a block waits only for the three tiles it reads, so the blocks of column k + 1 (the
 * next step's inputs) run ahead of the others and no step waits for the slowest block of the
 * grid.  Each tile is read, and solved, by several blocks; the last reader to count itself (a
 * counter per tile) writes L back over it, so no block writes where another may still read
 * and none waits for that.  The last reader also resets the counter and the flag, so the small
 * workspace (HYT_DPOTF2_WS_BYTES, zeroed once) is clean after every launch, failures included;
 * calls that share one must be ordered (one stream).  A flag is released after the tile's
 * stores (st.release.gpu by one thread after a block barrier) and acquired before the loads
 * (ld.acquire.gpu, then a block barrier; the loads bypass L1).
 *
 * Progress without a cooperative launch: blocks take their tile from a ticket counter, in
 * column order, and wait only for tiles of earlier columns, i.e. for blocks that took their
 * ticket, and so started, before them.  So the launch never needs all its blocks resident at
 * once: beside GEMMs on another stream it starts on the SMs that are free, cannot deadlock, and
 * runs on GPUs with fewer SMs than blocks.
 *
 * Upper: the same algorithm on the transposed view, L = U^T: element (r, c) of the lower view
 * is A[c + r lda] (a template parameter, so each variant compiles to its own index arithmetic).
 * A lane's row of the view is then a column of A, which the lane loads itself (in aligned pairs
 * when A and lda allow), and a block's own tile is held by a thread per view column instead of
 * a thread per view row, so that its loads and stores stay coalesced.
 *
 * INFO as LAPACK's dpotf2: the first j with A(j,j) <= 0 or NaN after its update; the
 * factorization stops at that tile (A beyond it is unspecified; the failing diagonal tile holds
 * the columns factored so far and the partly updated rest).  A diagonal entry that is +Inf
 * after its update gives LAPACK's answer too: L(j,j) = Inf, the rest of column j 0 (1 / Inf),
 * so the later columns do not see it.  Measured on an H200
 * (docs/performance.md, "Third version" and "pairs of columns"): 0.122 ms lower, 0.115 ms
 * upper for n = 512; on an H100 with the flags polled in parallel 0.117-0.119 / 0.111-0.113,
 * with the solvers in three phases 0.094-0.097 / 0.096-0.0995 on three machines (the code
 * before: 0.106-0.108 / 0.109-0.111 on two others).
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_kernels.h"
#include "hyt_gpu_sync.cuh"

#include <float.h>

#define NB 32          /* tile = warp width: a lane holds a row */
#define TMAX (HYT_DPOTF2_MAX_N / NB)
#define THREADS 256
#define PANEL 2        /* the careful factor's and solve's panels (2, 4, 8, 16 measured: 2) */
#define PHASE1 7       /* the fast factor's pairs before the solvers start, and before their */
#define PHASE2 13      /* second phase (measured 4-8 and 8-16: 7 and 13, docs/performance.md) */
#define FULL 0xffffffffu

/* The workspace of one stream: the ticket counter, and per tile (r, c) (r * TMAX + c) its flag
 * (1: final, not yet solved) and the number of blocks that have read it at step c. */
struct potf2_ws {
    unsigned ticket;
    unsigned flag[TMAX * TMAX];
    unsigned cnt[TMAX * TMAX];
};
static_assert(sizeof(potf2_ws) <= HYT_DPOTF2_WS_BYTES, "HYT_DPOTF2_WS_BYTES too small");

/* Adds one to a counter (the ticket; the readers of a tile) and returns the old value.  Relaxed:
 * a reader's loads of the tile have returned before it counts (their values were used before
 * the block barrier that precedes the count), so the last reader's stores, issued after its
 * count came back, cannot reach them.  (Measured: acq_rel atomics, waited for before the
 * flag, cost about 1 us a step.) */
__device__ __forceinline__ static unsigned count(unsigned *p)
{
    unsigned old;
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");
    return old;
}

__device__ __forceinline__ static void wait_flag(const unsigned *p)
{
    while (!ld_acquire(p))
        ;
}

/* Element (r, c) of the lower view: A(r, c) (lower) or A(c, r) (upper, L = U^T). */
template <bool UP>
__device__ __forceinline__ static double *at(double *A, int lda, int r, int c)
{
    return UP ? A + (int64_t)c + (int64_t)r * lda : A + (int64_t)r + (int64_t)c * lda;
}

/* Loads rows r0 .. r0+31 of the view, columns c0 .. c0+31, a row per lane, into v, from L2
 * (__ldcg: other blocks wrote them); element (lane, c) is read when ok(lane, c), else it is
 * fill(lane, c) (ok(r, c + 1) implies ok(r, c)).  Lower: a column per instruction, coalesced.
 * Upper: the lane's row of the view is a column of A, read by the lane itself (in aligned pairs
 * when A and lda allow: vec), straight into registers. */
template <bool UP, typename Ok, typename Fill>
__device__ __forceinline__ static void load_rows(double *A, int lda, bool vec, int r0, int c0,
                                                 int lane, double (&v)[NB], Ok ok, Fill fill)
{
    if (UP && vec) {
        const double *p = A + c0 + (int64_t)(r0 + lane) * lda;
#pragma unroll
        for (int c = 0; c < NB; c += 2) {
            if (ok(lane, c + 1)) {
                const double2 u = __ldcg((const double2 *)(p + c));
                v[c] = u.x;
                v[c + 1] = u.y;
            } else {
                v[c] = ok(lane, c) ? __ldcg(p + c) : fill(lane, c);
                v[c + 1] = fill(lane, c + 1);
            }
        }
    } else {
#pragma unroll
        for (int c = 0; c < NB; c++)
            v[c] = ok(lane, c) ? __ldcg(at<UP>(A, lda, r0 + lane, c0 + c)) : fill(lane, c);
    }
}

/* The diagonal tile factored in place in a[] (lane r: row r, lower part; the upper part is
 * scratch), in panels of W columns (W even): inside a panel a column at a time, its entries
 * L(c2, c) shuffled to the lanes of the panel's later columns; at the end of the panel each lane
 * stores its row of the panel to sL (sL[r][c] = L(r, c); the diagonal at sL[c][c]) and updates
 * its later columns from the rows there (W FMAs from W / 2 broadcast 16-byte loads per column).
 * 1 / L(c, c) goes to srs[c].  The dependent chain per column inside a panel: the next pivot is
 * lane c+1's a[c+1] minus its own L(c+1, c) squared (the same FMA as its column update, so the
 * two agree to the bit), shuffled, then its rsqrt; one shared-memory round trip per panel.
 * Returns the first column whose pivot is not positive (or NaN), NB if none; the pivot is
 * shuffled from one lane, so the answer is the same in every lane. */
template <int W>
__device__ __forceinline__ static int factor(double (&a)[NB], int lane, double (*sL)[NB + 2],
                                             double *srs)
{
#pragma unroll
    for (int c0 = 0; c0 < NB; c0 += W) {
        double d = __shfl_sync(FULL, a[c0], c0);
#pragma unroll
        for (int c = c0; c < c0 + W; c++) {
            if (!(d > 0.0)) /* <= 0 or NaN */
                return c;
            const double rs = rsqrt(d);
            /* column c of L (rows > c); lane c: d rsqrt(d) = sqrt(d), except for d = +Inf,
             * where LAPACK's L(c, c) is sqrt(d) = Inf (and the rest of the column 0), not
             * Inf x 0 */
            a[c] = lane == c && d > DBL_MAX ? d : a[c] * rs;
            if (lane == 0)
                srs[c] = rs;
            if (c + 1 < c0 + W) {
                d = __shfl_sync(FULL, fma(-a[c], a[c], a[c + 1]), c + 1);
#pragma unroll
                for (int c2 = c + 1; c2 < c0 + W; c2++)
                    a[c2] = fma(-a[c], __shfl_sync(FULL, a[c], c2), a[c2]);
            }
        }
#pragma unroll
        for (int m = 0; m < W; m += 2)
            *(double2 *)&sL[lane][c0 + m] = make_double2(a[c0 + m], a[c0 + m + 1]);
        __syncwarp();
#pragma unroll
        for (int c2 = c0 + W; c2 < NB; c2++) {
#pragma unroll
            for (int m = 0; m < W; m += 2) {
                const double2 l = *(const double2 *)&sL[c2][c0 + m]; /* the same in every lane */
                a[c2] = fma(-a[c0 + m], l.x, a[c2]);
                a[c2] = fma(-a[c0 + m + 1], l.y, a[c2]);
            }
        }
    }
    return NB;
}

/* 1 / sqrt(d) as the library's rsqrt() computes it for a positive normal d (the hardware's
 * estimate of the high word, one refinement), without its branch to the slow path for other
 * d; *odd is set for those (and for d <= 0 or NaN, whose result is then meaningless). */
__device__ __forceinline__ static double rsqrt_normal(double d, bool *odd)
{
    const unsigned hi = (unsigned)__double2hiint(d);
    *odd |= hi - 0x00100000u >= 0x7fe00000u;
    double r;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(d));
    const double e = fma(-(r * r), d, 1.0);
    return fma(fma(e, 0.375, 0.5), r * e, r);
}

struct pair_state {
    double p, q, s; /* the next pair's 2 x 2 block */
    bool odd;
};

/* The diagonal tile factored as factor() does, two columns at a time and in one straight run
 * of code: the two pivots of a pair from its 2 x 2 block [p q; q s] at once (the second,
 * 1 / sqrt(s - q^2 / p), as sqrt(p) rsqrt(det), the two rsqrts side by side), and the next
 * pair's block from the lanes' own rows and four shuffles, ahead of the update through shared
 * memory.  No branch at the pivots (none in their rsqrt either), so that the compiler can move
 * the updates of later columns off the pivots' dependent chain (measured: 5-11% faster than
 * factor(), docs/performance.md).  The second pivot differs from factor()'s in the last bits;
 * every block runs the same code on the same tile, so all agree.  When every pivot (p, det, and
 * s - q^2 / p as factor() computes it) was positive and normal, !st.odd; otherwise a[] and sL
 * are meaningless: the caller loads the tile again and runs factor().  Pairs P0 ..
 * P1 - 1 of it (the whole factor: 0, NB / 2), the state carried in st from one call to the next
 * (st.odd: whether a pivot so far was not positive and normal). */
template <int P0, int P1>
__device__ __forceinline__ static void factor_pairs(double (&a)[NB], int lane,
                                                    double (*sL)[NB + 2], double *srs,
                                                    pair_state &st)
{
    bool odd = P0 == 0 ? false : st.odd;
    double p = P0 == 0 ? __shfl_sync(FULL, a[0], 0) : st.p,
           q = P0 == 0 ? __shfl_sync(FULL, a[0], 1) : st.q,
           s = P0 == 0 ? __shfl_sync(FULL, a[1], 1) : st.s;
#pragma unroll
    for (int c0 = 2 * P0; c0 < 2 * P1; c0 += 2) {
        const double det = fma(p, s, -(q * q));
        const double rs0 = rsqrt_normal(p, &odd), rsd = rsqrt_normal(det, &odd);
        const double l10 = q * rs0;
        odd |= !(fma(-l10, l10, s) > 0.0);
        const double rs1 = (p * rs0) * rsd;
        a[c0] *= rs0;
        a[c0 + 1] = fma(-a[c0], l10, a[c0 + 1]) * rs1;
        if (lane == 0) {
            srs[c0] = rs0;
            srs[c0 + 1] = rs1;
        }
        if (c0 + 2 < NB) {
            const double pa = __shfl_sync(FULL, a[c0 + 2], c0 + 2),
                         qa = __shfl_sync(FULL, a[c0 + 2], c0 + 3),
                         sa = __shfl_sync(FULL, a[c0 + 3], c0 + 3);
            const double x0 = __shfl_sync(FULL, a[c0], c0 + 2),
                         x1 = __shfl_sync(FULL, a[c0 + 1], c0 + 2),
                         y0 = __shfl_sync(FULL, a[c0], c0 + 3),
                         y1 = __shfl_sync(FULL, a[c0 + 1], c0 + 3);
            p = fma(-x1, x1, fma(-x0, x0, pa));
            q = fma(-y1, x1, fma(-y0, x0, qa));
            s = fma(-y1, y1, fma(-y0, y0, sa));
        }
        *(double2 *)&sL[lane][c0] = make_double2(a[c0], a[c0 + 1]);
        __syncwarp();
#pragma unroll
        for (int c2 = c0 + 2; c2 < NB; c2++) {
            const double2 l = *(const double2 *)&sL[c2][c0];
            a[c2] = fma(-a[c0], l.x, a[c2]);
            a[c2] = fma(-a[c0 + 1], l.y, a[c2]);
        }
    }
    st.p = p, st.q = q, st.s = s, st.odd = odd;
}

/* x (a row per lane) = x L^-T, L by rows in sL and 1 / L(c, c) in srs, in the factor's panels;
 * the panels of columns [C0, C1) of it (the whole solve: 0, NB); with sx, those columns, final,
 * stored there (sx[c][lane] = x[c]). */
template <int W, int C0 = 0, int C1 = NB>
__device__ __forceinline__ static void solve(double (&x)[NB], const double (*sL)[NB + 2],
                                             const double *srs, double (*sx)[NB + 2] = NULL,
                                             int lane = 0)
{
#pragma unroll
    for (int c0 = C0; c0 < C1; c0 += W) {
#pragma unroll
        for (int c = c0; c < c0 + W; c++) {
            x[c] *= srs[c];
#pragma unroll
            for (int c2 = c + 1; c2 < c0 + W; c2++)
                x[c2] = fma(-x[c], sL[c2][c], x[c2]);
        }
#pragma unroll
        for (int c2 = c0 + W; c2 < NB; c2++) {
#pragma unroll
            for (int m = 0; m < W; m += 2) {
                const double2 l = *(const double2 *)&sL[c2][c0 + m];
                x[c2] = fma(-x[c0 + m], l.x, x[c2]);
                x[c2] = fma(-x[c0 + m + 1], l.y, x[c2]);
            }
        }
    }
    if (sx) {
#pragma unroll
        for (int c = C0; c < C1; c++)
            sx[c][lane] = x[c];
    }
}

template <bool UP>
__global__ void __launch_bounds__(THREADS, 1)
hyt_dpotf2_kernel(int n, double *A, int lda, int *info, potf2_ws *ws)
{
    /* L(k, k) by rows (sLs[1]: the careful factor's, so that it never writes where the solvers
     * may still read the fast one's); the solved row tiles i and j by columns, sX[s][c][r] =
     * X(r, c) */
    __shared__ __align__(16) double sLs[2][NB][NB + 2];
    __shared__ __align__(16) double sX[2][NB][NB + 2];
    __shared__ double srss[2][NB];
    __shared__ int sb, sfail, scareful, slast[3];
    double(*sL)[NB + 2] = sLs[0];
    double *srs = srss[0];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int T = (n + NB - 1) / NB, nblocks = T > 1 ? T * (T - 1) / 2 : 1;
    const bool vec = UP && !(((uintptr_t)A | ((uintptr_t)lda * sizeof(double))) & 15);
    int b = 0;
    if (nblocks > 1) {
        if (t == 0) {
            unsigned tk = count(&ws->ticket);
            if ((int)tk == nblocks - 1) /* the last one: reset for the next launch */
                ws->ticket = 0;
            sb = (int)tk;
        }
        __syncthreads();
        b = sb;
    }
    /* this block's tile (i, j): column-major over 1 <= j <= i < T (T = 1: the one block (0, 0)) */
    int i = 0, j = 0;
    if (T > 1) {
        j = 1;
        while (b >= T - j) {
            b -= T - j;
            j++;
        }
        i = j + b;
    }
    const int last = i == T - 1 && j == T - 1 ? T - 1 : j - 1; /* the block's last step */
    /* the tile in registers: element (TR(q), TC(q)) of tile (i, j) of the view; lower: thread t
     * holds row t % 32, columns 4 (t / 32) + q; upper: the transpose (column t % 32, rows
     * 4 (t / 32) + q), so that consecutive threads read consecutive addresses */
    const int rr = t % NB, cq = t / NB;
#define TR(q) (UP ? 4 * cq + (q) : rr)
#define TC(q) (UP ? rr : 4 * cq + (q))
    double C[4];
#pragma unroll
    for (int q = 0; q < 4; q++) {
        int gr = i * NB + TR(q), gc = j * NB + TC(q);
        C[q] = j > 0 && gr < n && gc < n && (i != j || TR(q) >= TC(q)) ? *at<UP>(A, lda, gr, gc)
                                                                       : 0.0;
    }
    /* one tile in registers per thread: warp 0's the diagonal tile (a), a solver warp's its row
     * tile (x); one array, not two, since no thread holds both (two left 255 registers and
     * spills in the solve) */
    double v[NB];
    double(&a)[NB] = v, (&x)[NB] = v;
    for (int k = 0; k <= last; k++) {
        const int k0 = k * NB, kb = min(NB, n - k0), rows = k < j;
        const bool solver = rows && (warp == 1 || (warp == 2 && i != j));
        if (k > 0) { /* a thread of each of three warps waits for one flag: in parallel, not
                      * three L2 round trips in turn (4% on n = 512, docs/performance.md) */
            if (t == 0)
                wait_flag(&ws->flag[k * TMAX + k]);
            else if (t == 32 && rows)
                wait_flag(&ws->flag[i * TMAX + k]);
            else if (t == 64 && rows && j != i)
                wait_flag(&ws->flag[j * TMAX + k]);
        }
        __syncthreads();
        /* warp 0: the diagonal tile, factored; warps 1 and 2: the row tiles i and j, loaded */
        auto ok = [=](int r, int c) { return r < kb && c <= r; };
        auto fill = [](int r, int c) { return c == r ? 1.0 : 0.0; };
        const int rw = (warp == 1 ? i : j) * NB; /* a solver's row tile: rows rw .. rw + 31 */
        auto row_ok = [=](int r, int) { return rw + r < n; };
        auto zero = [](int, int) { return 0.0; };
        pair_state pst;
        if (warp == 0) {
            load_rows<UP>(A, lda, vec, k0, k0, lane, a, ok, fill);
            factor_pairs<0, PHASE1>(a, lane, sL, srs, pst);
        } else if (solver) {
            load_rows<UP>(A, lda, vec, rw, k0, lane, x, row_ok, zero);
        }
        if (rows) {
            /* the factor's first pairs are out: the solvers solve with them while warp 0
             * factors the next ones, in three phases */
            __syncthreads();
            if (warp == 0)
                factor_pairs<PHASE1, PHASE2>(a, lane, sL, srs, pst);
            else if (solver)
                solve<PANEL, 0, 2 * PHASE1>(x, sL, srs, sX[warp - 1], lane);
            __syncthreads();
            if (warp == 0)
                factor_pairs<PHASE2, NB / 2>(a, lane, sL, srs, pst);
            else if (solver)
                solve<PANEL, 2 * PHASE1, 2 * PHASE2>(x, sL, srs, sX[warp - 1], lane);
        } else if (warp == 0) { /* the last diagonal tile: nothing to solve */
            factor_pairs<PHASE1, NB / 2>(a, lane, sL, srs, pst);
        }
        if (warp == 0) {
            int fail = pst.odd ? -1 : NB;
            if (fail != NB) { /* a pivot not positive or not normal: the careful factor, into
                               * the other copy of L */
                __syncwarp();
                load_rows<UP>(A, lda, vec, k0, k0, lane, a, ok, fill);
                fail = factor<PANEL>(a, lane, sLs[1], srss[1]);
            }
            if (t == 0)
                sfail = fail, scareful = pst.odd;
        }
        __syncthreads();
        const int fail = sfail, cf = scareful; /* L(k, k) in sLs[cf], 1 / L(c, c) in srss[cf] */
        if (fail == NB && solver) {
            if (!cf) { /* the solved columns go to sX as they are final */
                solve<PANEL, 2 * PHASE2, NB>(x, sL, srs, sX[warp - 1], lane);
            } else { /* its first pairs were solved with a failed fast factor: again, from A */
                load_rows<UP>(A, lda, vec, rw, k0, lane, x, row_ok, zero);
                solve<PANEL>(x, sLs[1], srss[1], sX[warp - 1], lane);
            }
        }
        __syncthreads();
        /* this block has read tiles (k, k), (i, k), (j, k): count it (the results are used
         * after the update); the last reader of a tile writes its L back and resets its counter
         * and flag (at a failure, only the diagonal tile is written, as far as it got) */
        unsigned od = 0, oi = 0, oj = 0;
        if (t == 0) {
            od = count(&ws->cnt[k * TMAX + k]);
            if (rows) {
                oi = count(&ws->cnt[i * TMAX + k]);
                if (j != i)
                    oj = count(&ws->cnt[j * TMAX + k]);
            }
        }
        const unsigned nd = (unsigned)((T - 1 - k) * (T - k) / 2 + (k == T - 1)),
                       nr = (unsigned)(T - 1 - k);
        if (fail < NB) {
            if (warp == 0) {
                int ld = 0;
                if (t == 0) {
                    ld = od == nd - 1;
                    if (ld)
                        ws->cnt[k * TMAX + k] = 0, ws->flag[k * TMAX + k] = 0;
                    if (rows && oi == nr - 1)
                        ws->cnt[i * TMAX + k] = 0, ws->flag[i * TMAX + k] = 0;
                    if (rows && j != i && oj == nr - 1)
                        ws->cnt[j * TMAX + k] = 0, ws->flag[j * TMAX + k] = 0;
                }
                if (__shfl_sync(FULL, ld, 0)) {
                    /* the failing diagonal tile from the registers: the columns factored
                     * so far and the partly updated rest */
#pragma unroll
                    for (int c = 0; c < NB; c++)
                        if (lane < kb && c <= lane)
                            *at<UP>(A, lda, k0 + lane, k0 + c) = a[c];
                    if (lane == 0)
                        *info = k0 + fail + 1;
                }
            }
            break;
        }
        if (rows) {
            const double(*Xi)[NB + 2] = sX[0];
            const double(*Xj)[NB + 2] = sX[i == j ? 0 : 1];
#pragma unroll 8
            for (int p = 0; p < NB; p++) {
                const double2 u0 = *(const double2 *)&(UP ? Xi : Xj)[p][4 * cq];
                const double2 u1 = *(const double2 *)&(UP ? Xi : Xj)[p][4 * cq + 2];
                const double v = (UP ? Xj : Xi)[p][rr];
                C[0] = fma(-v, u0.x, C[0]);
                C[1] = fma(-v, u0.y, C[1]);
                C[2] = fma(-v, u1.x, C[2]);
                C[3] = fma(-v, u1.y, C[3]);
            }
            if (k == j - 1) {
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    int gr = i * NB + TR(q), gc = j * NB + TC(q);
                    if (gr < n && gc < n && (i != j || TR(q) >= TC(q)))
                        __stcg(at<UP>(A, lda, gr, gc), C[q]);
                }
            }
        }
        __syncthreads();
        /* the tile is final: raised as soon as its stores are done (the release orders them) */
        if (rows && k == j - 1 && t == 0)
            st_release(&ws->flag[i * TMAX + j], 1);
        if (t == 0) {
            slast[0] = od == nd - 1;
            slast[1] = rows && oi == nr - 1;
            slast[2] = rows && j != i && oj == nr - 1;
            if (slast[0])
                ws->cnt[k * TMAX + k] = 0, ws->flag[k * TMAX + k] = 0;
            if (slast[1])
                ws->cnt[i * TMAX + k] = 0, ws->flag[i * TMAX + k] = 0;
            if (slast[2])
                ws->cnt[j * TMAX + k] = 0, ws->flag[j * TMAX + k] = 0;
        }
        __syncthreads();
        if (slast[0]) { /* L(k, k), lower part of the view */
#pragma unroll
            for (int q = 0; q < NB / 8; q++) {
                const int r = UP ? warp + 8 * q : lane, c = UP ? lane : warp + 8 * q;
                if (r < kb && c <= r)
                    *at<UP>(A, lda, k0 + r, k0 + c) = sLs[cf][r][c];
            }
            if (k == T - 1 && t == 0)
                *info = 0;
        }
#pragma unroll
        for (int s = 0; s < 2; s++) {
            if (!slast[1 + s])
                continue;
            const int rt = (s == 0 ? i : j) * NB;
#pragma unroll
            for (int q = 0; q < NB / 8; q++) {
                const int r = UP ? warp + 8 * q : lane, c = UP ? lane : warp + 8 * q;
                if (rt + r < n)
                    *at<UP>(A, lda, rt + r, k0 + c) = sX[s][c][r];
            }
        }
    }
#undef TR
#undef TC
}

/* The workspaces of a device: one per stream, made and zeroed on first use. */
static int ws_create(hyt_device_t *dev, void **handle)
{
    void *p = NULL;
    const size_t bytes = (size_t)HYT_NUM_STREAMS * HYT_DPOTF2_WS_BYTES;
    HYT_CUDA_TRY(dev, cudaMalloc(&p, bytes));
    cudaError_t e = cudaMemset(p, 0, bytes);
    if (e != cudaSuccess) {
        cudaFree(p);
        return hyt_cuda_error((int)e, "cudaMemset(potf2 workspace)", __FILE__, __LINE__);
    }
    *handle = p;
    return HYT_SUCCESS;
}

static void ws_destroy(hyt_device_t *dev, void *handle)
{
    (void)dev;
    cudaFree(handle);
}

static const hyt_device_handle_class_t ws_class = {
    "potf2 workspace", ws_create, ws_destroy};

extern "C" int hyt_cuda_dpotf2_ws(hyt_device_t *dev, int stream, void **work)
{
    *work = NULL;
    if (stream < 0 || stream >= HYT_NUM_STREAMS)
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dpotf2_ws: stream %d", stream);
    void *h = NULL;
    int rc = hyt_device_handle(dev, &ws_class, &h);
    if (rc)
        return rc;
    *work = (char *)h + (size_t)stream * HYT_DPOTF2_WS_BYTES;
    return HYT_SUCCESS;
}

extern "C" int hyt_cuda_dpotf2(hyt_device_t *dev, void *stream, char uplo, int n, double *A,
                               int lda, int *info, void *work)
{
    const int up = uplo == 'U' || uplo == 'u';
    if (!(up || uplo == 'L' || uplo == 'l') || n < 0 || n > HYT_DPOTF2_MAX_N ||
        lda < (n > 1 ? n : 1) || !info || !work || (n > 0 && !A))
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dpotf2: invalid arguments (uplo '%c', n = "
                         "%d, lda = %d, work %p; n at most %d)", uplo, n, lda, work,
                         HYT_DPOTF2_MAX_N);
    cudaStream_t s = (cudaStream_t)stream;
    if (n == 0) {
        HYT_CUDA_TRY(dev, cudaMemsetAsync(info, 0, sizeof *info, s));
        return HYT_SUCCESS;
    }
    const int T = (n + NB - 1) / NB, blocks = T > 1 ? T * (T - 1) / 2 : 1;
    HYT_CUDA_LAUNCH_POINT(dev);
    if (up)
        hyt_dpotf2_kernel<true><<<blocks, THREADS, 0, s>>>(n, A, lda, info, (potf2_ws *)work);
    else
        hyt_dpotf2_kernel<false><<<blocks, THREADS, 0, s>>>(n, A, lda, info, (potf2_ws *)work);
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
