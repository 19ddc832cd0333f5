// The one-CTA leaf's column loop (R <= 512 rows x 32 columns, a thread per row, LAPACK's pivot
// rule): variants of its chain, timed and checked for the same bits (experiment, not built by
// meson):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v tools/leaf_logical.cu \
//        -lcublas -lcuda -o /tmp/leaf_logical && /tmp/leaf_logical   (on a Hopper GPU)
//   /tmp/leaf_logical host                  (the host reference alone; needs the driver's
//                                            library, not a GPU)
//   /tmp/leaf_logical beside [S]            (the library's loop and "library in passes" alone
//                                            and beside DGEMMs on the SMs but S: run_beside)
//
// "library in passes" (k_pass, 34 KB of machine code against the library loop's 90 KB in this
// tool) and `beside` (fifty-eighth stop): the library's loop loses 0-3% beside DGEMMs on the
// other SMs, the passes cost 3-4% alone and win nothing beside: not taken up.
//
// The thirty-seventh stop's loop moved rows between threads and passed one CTA barrier a
// column: every warp's candidate copied its row to shared memory before the barrier, the
// diagonal row's owner its row, and after it the two owners swapped rows; ~2500 cycles a
// column whatever the leaf's rows.  k_logical keeps each thread's row and a logical row
// number lr instead (the interchange is a relabelling lr p <-> j; a warp's candidate is the
// largest key, then the lowest lr), with bits (ABL) that time ablations (wrong answers) and
// candidate improvements (same answers); k_rolled rolls the column loop in groups of U columns
// (is the unrolled loop's instruction fetch the cost?  No).  The library's loop
// (leaf_cta_columns, hyt_gpu_leaf.cuh) is k_logical<A_TWOBAR> since the thirty-eighth stop.
// Prints for R = 512, 256, 64, 32 and data with ties, NaN and a zero column: whether the
// library's pivots and INFO are a host dgetf2's with the same rule, and for each variant its
// cycles a column (clock64 of thread 0 around the loop, best of REPS launches), best launch
// time, and whether it gave the library's bits (the ablations: R = 512 and 32, random data).
// Results: docs/performance.md, thirty-eighth stop; "logical twobar fastkey", written after that
// stop's device time was spent, ran at the thirty-ninth: 1417-1423 cycles a column at R = 512
// against 1312-1318 for "logical twobar" (slower; not kept).  "warp chain" (k_warpchain,
// fiftieth stop: one warp factors blocks of 4 columns with 16 rows a lane in registers, no CTA
// barrier between columns; warps 1-7 update the rest between blocks) gave the library's bits
// everywhere and ran 2356 cycles a column at R = 512, 1761 at R = 32, against 1331 / 1079: one
// warp's ~450 instructions a column (16 rows a lane, the loops unrolled for 512) cost more
// than the CTA's barriers; not taken up.  "columns by warps" (k_colcyc, fifty-sixth stop: 8 warps
// each own 4 columns of every row, a column's pivot found by its owner warp alone, a named
// barrier a column instead of the CTA's two) gave the library's bits everywhere and ran ~3750
// cycles a column at R = 512, ~3550 at R = 32, against 1335 / 1080; its ablations ("cols: ...")
// left ~3400 / ~3100 with neither the other warps' updates nor the pivot search: the owner's
// instruction stream a column (select trees, 16 rows a lane), not the work it saves; not kept.
// The ties' column (kind 1: ~660 cycles at R = 512 against ~1330 for random data) is thread
// 0's clock, not the CTA's: the launch takes as long as with random data (0.0499 against 0.0501
// ms), and random data with a dominant diagonal (kind 4: no interchange) takes ~1314 cycles;
// the data do not change the column's cost (fifty-seventh stop).
#include "tool_cuda.h"
#include "tool_gemm.h"

#include "../gpu_kernels/hyt_gpu_leaf.cuh"

#include <limits.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <vector>

#define REPS 200

__device__ long long d_cycles; // thread 0's cycles in the column loop, last launch

// Thread t's row of A (R x 32, row-major) into x, and x back to row `to`.
__device__ __forceinline__ static void row_in(double (&x)[LEAF_W], const double *A, int t,
                                              bool mine, int w)
{
#pragma unroll
    for (int q = 0; q < LEAF_W; q++)
        x[q] = mine && q < w ? A[t * LEAF_W + q] : 0.0;
}

__device__ __forceinline__ static void row_out(const double (&x)[LEAF_W], double *A, int to,
                                               bool mine, int w)
{
    if (mine)
#pragma unroll
        for (int q = 0; q < LEAF_W; q++)
            if (q < w)
                A[to * LEAF_W + q] = x[q];
}

// The library's column loop (leaf_cta_columns), rows in from and out to A (R x 32, row-major;
// each row out to its logical place).
__global__ void __launch_bounds__(LEAF_THREADS, 1)
k_library(double *A, int R, int w, int *ipiv, int *info)
{
    __shared__ leaf_cta_slots S;
    __shared__ int spiv[LEAF_W];
    const int t = threadIdx.x;
    const bool mine = t < R;
    double x[LEAF_W];
    row_in(x, A, t, mine, w);
    __syncthreads();
    const long long c0 = clock64();
    const int lr = leaf_cta_columns(x, t, mine, w, 0, S, spiv, ipiv, info);
    __syncthreads();
    if (t == 0)
        d_cycles = clock64() - c0;
    row_out(x, A, lr, mine, w);
}

// The library's loop (leaf_cta_columns) with its columns in passes of HYT_PANEL_LEAF_PASS, as
// the grid leaf runs them since the fifty-seventh stop (hyt_gpu_geometry.h: the row's pass
// places): U columns' machine code instead of LEAF_W columns'.  The same FMAs in the same order,
// so the library's bits.
__global__ void __launch_bounds__(LEAF_THREADS)
k_pass(double *A, int R, int w, int *ipiv, int *info)
{
    enum { U = HYT_PANEL_LEAF_PASS };
    __shared__ leaf_cta_slots S;
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    const bool mine = t < R;
    double x[LEAF_W];
    row_in(x, A, t, mine, w);
    __syncthreads();
    const long long c0 = clock64();
    int lr = t;
#pragma unroll 1
    for (int g = 0; g < w; g += U) {
#pragma unroll
        for (int q = 0; q < U; q++) {
            const int jj = g + q;
            if (jj >= w)
                break;
            leaf_warp_slot(x[q], jj, lr, mine, wid, S);
            if (lr == jj)
                S.dnan = isnan(x[q]);
            __syncthreads();
            unsigned bh, bl;
            const unsigned br = leaf_cta_pick(S, lane, &bh, &bl);
            const int p = S.dnan || bh == 0u ? jj : (int)br;
            if (lr == p)
                hyt_leaf_pass_row_out(x, q, g, S.urow);
            __syncthreads();
            const double pv = S.urow[jj];
            if (t == 0) {
                ipiv[jj] = p + 1;
                if (pv == 0.0)
                    atomicCAS(info, 0, jj + 1);
            }
            leaf_relabel(lr, mine, jj, p);
            if (mine && lr > jj)
                hyt_leaf_pass_row_rest(x, q + 1, g, hyt_leaf_pass_row_next(x, q, g, pv, S.urow),
                                       S.urow);
        }
        hyt_leaf_pass_rotate(x);
    }
    hyt_leaf_pass_finish(x, w);
    __syncthreads();
    if (t == 0)
        d_cycles = clock64() - c0;
    row_out(x, A, lr, mine, w);
}

struct logical_slots {
    double crow[2][LEAF_WARPS][LEAF_W], drow[LEAF_W];
    unsigned whi[2][LEAF_WARPS], wlo[2][LEAF_WARPS];
    int wr[2][LEAF_WARPS], dnan[2];
};

// ABL: bits that change the logical loop.  Timing-only ablations (wrong answers, to see what a
// column's time is made of): A_NOSTORE the winner stores its key, not its row; A_NOWARPRED no
// warp reduction (lane 0 offers); A_NOCTARED no reduction of the warps' keys (warp 0's slot
// wins); A_NORCP the multiplier x * pv (no reciprocal); A_NOFMA no rank-1 update; A_NOBAR no
// barrier.  Same answers (candidate improvements): A_QUIET a warp with no candidate stores a zero
// key and no row, and skips the update when it has no row below the diagonal; A_PRERCP every
// candidate computes 1 / x beside the warp's reductions, and the winner's goes with its row;
// A_TWOBAR the warps store their keys only, and after the barrier the pivot row's owner stores
// its row, then a second barrier (one row stored a column instead of one a warp); A_FASTKEY
// (slower, thirty-ninth stop) one max-reduction of the keys' high words and a ballot, the
// second and third reductions (low word, lowest logical row) only when several lanes hold
// that high word.
enum {
    A_NOSTORE = 1, A_NOWARPRED = 2, A_NOCTARED = 4, A_NORCP = 8, A_NOFMA = 16, A_NOBAR = 32,
    A_QUIET = 64, A_PRERCP = 128, A_TWOBAR = 256, A_FASTKEY = 512
};
template <int ABL>
__global__ void __launch_bounds__(LEAF_THREADS, 1)
k_logical(double *A, int R, int w, int *ipiv, int *info)
{
    __shared__ logical_slots S;
    __shared__ double srcp[2][LEAF_WARPS];
    const unsigned full = 0xffffffffu;
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    const bool mine = t < R;
    int lr = t; // this thread's row's place in LAPACK's order
    double x[LEAF_W];
    row_in(x, A, t, mine, w);
    __syncthreads();
    const long long c0 = clock64();
#pragma unroll
    for (int jj = 0; jj < LEAF_W; jj++) {
        if (jj >= w)
            break;
        const int par = jj & 1;
        /* 1. the warp's candidate: the largest key, then the lowest logical row */
        const bool cand = mine && lr >= jj && !isnan(x[jj]);
        const unsigned long long bits = (unsigned long long)__double_as_longlong(fabs(x[jj]));
        const unsigned hi = cand ? (unsigned)(bits >> 32) + 1u : 0u;
        const unsigned lo = cand ? (unsigned)bits : 0u;
        double rc = 0.0;
        if (ABL & A_PRERCP)
            rc = 1.0 / x[jj];
        unsigned mh = hi, ml = lo, mr = lr;
        bool top = lane == 0;
        if (ABL & A_FASTKEY) {
            mh = __reduce_max_sync(full, hi);
            const unsigned b = __ballot_sync(full, hi == mh);
            if (mh == 0u || __popc(b) > 1) { /* ties (or no candidate): the full rule */
                ml = __reduce_max_sync(full, hi == mh ? lo : 0u);
                top = hi == mh && lo == ml;
                mr = __reduce_min_sync(full, top ? (unsigned)lr : 0xffffffffu);
            } else { /* one lane holds the largest high word: it wins */
                top = lane == __ffs(b) - 1;
                ml = lo;
                mr = lr;
            }
        } else if (!(ABL & A_NOWARPRED)) {
            mr = leaf_key_lowest(hi, lo, (unsigned)lr, &mh, &ml);
            top = hi == mh && lo == ml;
        }
        if (top && (unsigned)lr == mr) {
            if (!(ABL & (A_NOSTORE | A_TWOBAR)) && (!(ABL & A_QUIET) || mh != 0u)) {
#pragma unroll
                for (int k = jj; k < LEAF_W; k++)
                    S.crow[par][wid][k] = x[k];
                if (ABL & A_PRERCP)
                    srcp[par][wid] = rc;
            }
            S.whi[par][wid] = mh;
            S.wlo[par][wid] = ml;
            S.wr[par][wid] = lr;
        }
        if (mine && lr == jj)
            S.dnan[par] = isnan(x[jj]);
        if (!(ABL & A_NOBAR))
            __syncthreads(); /* 2. */
        /* 3. the pivot, in every warp */
        unsigned bh;
        int bw, p;
        if (ABL & A_FASTKEY) {
            const unsigned h = lane < LEAF_WARPS ? S.whi[par][lane] : 0u;
            const int wrl = lane < LEAF_WARPS ? S.wr[par][lane] : INT_MAX;
            bh = __reduce_max_sync(full, h);
            const unsigned b = __ballot_sync(full, lane < LEAF_WARPS && h == bh);
            if (bh == 0u || __popc(b) > 1) {
                const unsigned l = lane < LEAF_WARPS ? S.wlo[par][lane] : 0u;
                const unsigned bl = __reduce_max_sync(full, h == bh ? l : 0u);
                const bool wtop = lane < LEAF_WARPS && h == bh && l == bl;
                const unsigned br =
                    __reduce_min_sync(full, wtop ? (unsigned)wrl : 0xffffffffu);
                bw = __ffs(__ballot_sync(full, wtop && (unsigned)wrl == br)) - 1;
                p = (int)br;
            } else {
                bw = __ffs(b) - 1;
                p = __shfl_sync(full, wrl, bw);
            }
        } else if (!(ABL & A_NOCTARED)) {
            const unsigned h = lane < LEAF_WARPS ? S.whi[par][lane] : 0u;
            const unsigned l = lane < LEAF_WARPS ? S.wlo[par][lane] : 0u;
            bh = __reduce_max_sync(full, h);
            const unsigned bl = __reduce_max_sync(full, h == bh ? l : 0u);
            const bool wtop = lane < LEAF_WARPS && h == bh && l == bl;
            const int wrl = lane < LEAF_WARPS ? S.wr[par][lane] : INT_MAX;
            const unsigned br = __reduce_min_sync(full, wtop ? (unsigned)wrl : 0xffffffffu);
            bw = __ffs(__ballot_sync(full, wtop && (unsigned)wrl == br)) - 1;
            p = (int)br;
        } else {
            bh = S.whi[par][0];
            bw = 0;
            p = S.wr[par][0];
        }
        const double *u;
        double inv = 0.0;
        if (!S.dnan[par] && bh != 0u) {
            if (ABL & A_TWOBAR) {
                bw = 0;
                if (mine && lr == p) {
#pragma unroll
                    for (int k = jj; k < LEAF_W; k++)
                        S.crow[par][0][k] = x[k];
                    if (ABL & A_PRERCP)
                        srcp[par][0] = rc;
                }
                __syncthreads();
            }
            u = S.crow[par][bw];
            if (ABL & A_PRERCP)
                inv = srcp[par][bw];
        } else { /* the diagonal row is the pivot: rare (NaN), uniform across the CTA */
            p = jj;
            if (mine && lr == jj)
#pragma unroll
                for (int k = 0; k < LEAF_W; k++)
                    S.drow[k] = x[k];
            __syncthreads();
            u = S.drow;
            inv = 1.0 / u[jj];
        }
        const double pv = u[jj];
        if (t == 0) {
            ipiv[jj] = p + 1;
            if (pv == 0.0)
                atomicCAS(info, 0, jj + 1);
        }
        /* 4. the interchange as a relabelling; the multipliers and the update */
        if (mine) {
            if (lr == p)
                lr = jj;
            else if (lr == jj)
                lr = p;
        }
        if ((ABL & A_QUIET) && !__any_sync(full, mine && lr > jj))
            continue;
        if (mine && lr > jj) {
            double m = x[jj];
            if (ABL & A_NORCP)
                m *= pv;
            else if (pv != 0.0)
                m = fabs(pv) >= DBL_MIN ? m * ((ABL & A_PRERCP) ? inv : 1.0 / pv) : m / pv;
            x[jj] = m;
            if (!(ABL & A_NOFMA))
#pragma unroll
                for (int k = jj + 1; k < LEAF_W; k++)
                    x[k] = __fma_rn(-m, u[k], x[k]);
        }
    }
    __syncthreads();
    if (t == 0)
        d_cycles = clock64() - c0;
    row_out(x, A, lr, mine, w);
}

// The logical-row loop ROLLED: the column loop is not unrolled 32 times but in groups of U
// columns (the leaf kernels' unrolled loops are 100-400 KB of machine code, run once per leaf,
// so every column's code may stream from L2: is the instruction fetch the chain?).  Registers
// cannot be indexed at run time, so the rows still being updated keep their entries in a frame
// that moves: x[k] is column g*U + k in group g, and after each group they shift left by U (the
// freed entries hold junk that is updated but never read).  A multiplier goes to the thread's
// row of Lbuf (shared memory) when it is made; a row that becomes the pivot of column jj keeps
// its frame (fb) from then on.  Every FMA is the library's, so the bits are the same.
#define LB_LD (LEAF_W + 1)
template <int U>
__global__ void __launch_bounds__(LEAF_THREADS, 1)
k_rolled(double *A, int R, int w, int *ipiv, int *info)
{
    extern __shared__ double Lbuf[]; /* LEAF_THREADS x LB_LD */
    __shared__ logical_slots S;
    const unsigned full = 0xffffffffu;
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    const bool mine = t < R;
    int lr = t, fb = 0;
    double x[LEAF_W];
    row_in(x, A, t, mine, w);
    __syncthreads();
    const long long c0 = clock64();
#pragma unroll 1
    for (int g = 0; g * U < w; g++) {
#pragma unroll
        for (int s = 0; s < U; s++) {
            const int jj = g * U + s;
            if (jj >= w)
                break;
            const int par = jj & 1;
            const bool act = mine && lr >= jj;
            const bool cand = act && !isnan(x[s]);
            const unsigned long long bits =
                (unsigned long long)__double_as_longlong(fabs(x[s]));
            const unsigned hi = cand ? (unsigned)(bits >> 32) + 1u : 0u;
            const unsigned lo = cand ? (unsigned)bits : 0u;
            unsigned mh, ml;
            if ((unsigned)lr == leaf_key_lowest(hi, lo, (unsigned)lr, &mh, &ml)) {
#pragma unroll
                for (int k = s; k < LEAF_W; k++)
                    S.crow[par][wid][k] = x[k];
                S.whi[par][wid] = mh;
                S.wlo[par][wid] = ml;
                S.wr[par][wid] = lr;
            }
            if (mine && lr == jj)
                S.dnan[par] = isnan(x[s]);
            __syncthreads();
            const unsigned h = lane < LEAF_WARPS ? S.whi[par][lane] : 0u;
            const unsigned l = lane < LEAF_WARPS ? S.wlo[par][lane] : 0u;
            const unsigned bh = __reduce_max_sync(full, h);
            const unsigned bl = __reduce_max_sync(full, h == bh ? l : 0u);
            const bool wtop = lane < LEAF_WARPS && h == bh && l == bl;
            const int wrl = lane < LEAF_WARPS ? S.wr[par][lane] : INT_MAX;
            const unsigned br = __reduce_min_sync(full, wtop ? (unsigned)wrl : 0xffffffffu);
            const int bw = __ffs(__ballot_sync(full, wtop && (unsigned)wrl == br)) - 1;
            int p;
            const double *u;
            if (!S.dnan[par] && bh != 0u) {
                p = (int)br;
                u = S.crow[par][bw];
            } else {
                p = jj;
                if (mine && lr == jj)
#pragma unroll
                    for (int k = s; k < LEAF_W; k++)
                        S.drow[k] = x[k];
                __syncthreads();
                u = S.drow;
            }
            const double pv = u[s];
            if (t == 0) {
                ipiv[jj] = p + 1;
                if (pv == 0.0)
                    atomicCAS(info, 0, jj + 1);
            }
            if (mine) {
                if (lr == p)
                    lr = jj;
                else if (lr == jj)
                    lr = p;
                if (lr == jj)
                    fb = g * U;
            }
            if (mine && lr > jj) {
                double m = x[s];
                if (pv != 0.0)
                    m = fabs(pv) >= DBL_MIN ? m * (1.0 / pv) : m / pv;
                Lbuf[t * LB_LD + jj] = m;
#pragma unroll
                for (int k = s + 1; k < LEAF_W; k++)
                    x[k] = __fma_rn(-m, u[k], x[k]);
            }
        }
        if (mine && lr >= (g + 1) * U) {
#pragma unroll
            for (int k = 0; k < LEAF_W; k++)
                x[k] = k + U < LEAF_W ? x[k + U] : 0.0;
        }
    }
    __syncthreads();
    if (t == 0)
        d_cycles = clock64() - c0;
    if (mine) {
        double *out = A + (size_t)lr * LEAF_W;
        const int nl = lr < w ? lr : w;
        for (int c = 0; c < nl; c++)
            out[c] = Lbuf[t * LB_LD + c];
#pragma unroll
        for (int k = 0; k < LEAF_W; k++) {
            const int c = fb + k;
            if (lr < w && c >= lr && c < w)
                out[c] = x[k];
        }
    }
}


// ---- One warp for the column chain (fiftieth stop) --------------------------------------------
// k_warpchain: warp 0 holds WC_BW columns of every row in registers (lane l: rows l, l + 32,
// ..., 16 a lane at R = 512) and factors them with no CTA barrier between columns: each lane's
// candidate among its rows (the largest key, then the lowest logical row), the warp's pivot by
// leaf_key_lowest, the pivot row's entries by shuffles from its lane, the relabelling and the
// rank-1 update of the block's columns.  Every WC_BW columns it writes the block back to the
// leaf in shared memory and hands off through two CTA barriers: warps 1-7 update the next
// block's columns by the block (its pivot rows first, by forward substitution, then every row
// not yet a pivot row), the chain warp loads that block, and warps 1-7 update the leaf's other
// columns while it works.  The operations of leaf_cta_columns in the same order, so the same
// bits.  The question: is a column of one warp's chain (~16 rows a lane of work, no barrier)
// cheaper than the CTA's ~1300 cycles (two barriers, slots in shared memory)?
#define WC_BW 4
#define WC_THREADS 256
#define WC_WORKERS (WC_THREADS - 32)
#define WC_NR (LEAF_THREADS / 32)
#define WC_LD (LEAF_W + 1)

__device__ __forceinline__ static void wc_bar()
{
    asm volatile("bar.sync 1, %0;" ::"n"(WC_WORKERS) : "memory");
}

// Warps 1-7: the leaf's columns [k0, k1) by block [c0, c0 + bw): pr[j] the pivot row (physical)
// of step j, ds[r] the step at which row r became a pivot row (INT_MAX: not yet); U the block's
// pivot rows in those columns.
__device__ static void wc_update(double *ch, const int *pr, const int *ds, double (*U)[LEAF_W],
                                 int R, int c0, int bw, int k0, int k1)
{
    const int t = threadIdx.x - 32, nk = k1 - k0;
    if (nk <= 0)
        return;
    for (int kk = t; kk < nk; kk += WC_WORKERS) {
        const int k = k0 + kk;
        for (int q = 0; q < bw; q++) {
            const int r = pr[c0 + q];
            double x = ch[r * WC_LD + k];
            for (int i = 0; i < q; i++)
                x = __fma_rn(-ch[r * WC_LD + c0 + i], U[i][k], x);
            U[q][k] = x;
            ch[r * WC_LD + k] = x;
        }
    }
    wc_bar();
    const int last = c0 + bw;
    for (int it = t; it < R * nk; it += WC_WORKERS) {
        const int r = it / nk, k = k0 + it % nk;
        if (ds[r] < last)
            continue; /* a pivot row: of this block (above) or earlier (no update) */
        double x = ch[r * WC_LD + k];
        for (int q = 0; q < bw; q++)
            x = __fma_rn(-ch[r * WC_LD + c0 + q], U[q][k], x);
        ch[r * WC_LD + k] = x;
    }
    wc_bar();
}

__global__ void __launch_bounds__(WC_THREADS, 1)
k_warpchain(double *A, int R, int w, int *ipiv, int *info)
{
    extern __shared__ double ch[]; /* [R][WC_LD], physical rows */
    __shared__ int ds[LEAF_THREADS], dsw[LEAF_THREADS], pr[LEAF_W], lab[LEAF_THREADS];
    __shared__ double U[WC_BW][LEAF_W];
    const unsigned full = 0xffffffffu;
    const int t = threadIdx.x, lane = t & 31;
    for (int i = t; i < R * LEAF_W; i += WC_THREADS) {
        const int r = i / LEAF_W, q = i % LEAF_W;
        ch[r * WC_LD + q] = q < w ? A[r * LEAF_W + q] : 0.0;
    }
    for (int r = t; r < LEAF_THREADS; r += WC_THREADS)
        ds[r] = dsw[r] = INT_MAX;
    __syncthreads();
    const long long clk0 = clock64();
    double v[WC_NR][WC_BW];
    int lr[WC_NR];
#pragma unroll
    for (int i = 0; i < WC_NR; i++)
        lr[i] = lane + 32 * i;
    for (int c0 = 0; c0 < w; c0 += WC_BW) {
        const int bw = min(WC_BW, w - c0), c1 = c0 + bw, c2 = min(c1 + WC_BW, w);
        if (t < 32) {
            int prq[WC_BW];
#pragma unroll
            for (int i = 0; i < WC_NR; i++) {
                const int r = lane + 32 * i;
#pragma unroll
                for (int q = 0; q < WC_BW; q++)
                    v[i][q] = r < R && q < bw ? ch[r * WC_LD + c0 + q] : 0.0;
            }
#pragma unroll
            for (int q = 0; q < WC_BW; q++) {
                if (q >= bw)
                    break;
                const int j = c0 + q;
                unsigned bh = 0u, bl = 0u, blr = 0xffffffffu;
                int bi = 0, ij = -1, dj = 0;
#pragma unroll
                for (int i = 0; i < WC_NR; i++) {
                    const bool mine = lane + 32 * i < R;
                    unsigned hi, lo;
                    leaf_key(v[i][q], mine && lr[i] >= j && !isnan(v[i][q]), &hi, &lo);
                    const bool better =
                        hi != 0u && (hi > bh || (hi == bh && (lo > bl || (lo == bl &&
                                                                          (unsigned)lr[i] < blr))));
                    if (better) {
                        bh = hi;
                        bl = lo;
                        blr = (unsigned)lr[i];
                        bi = i;
                    }
                    if (mine && lr[i] == j) {
                        ij = i;
                        dj = isnan(v[i][q]);
                    }
                }
                unsigned mh, ml;
                const unsigned br = leaf_key_lowest(bh, bl, blr, &mh, &ml);
                const int jl = __ffs(__ballot_sync(full, ij >= 0)) - 1;
                const int dnan = __shfl_sync(full, dj, jl);
                const int p = dnan || mh == 0u ? j : (int)br;
                const bool own = p == j ? lane == jl : blr == br;
                const int ol = __ffs(__ballot_sync(full, own)) - 1;
                const int oi = __shfl_sync(full, p == j ? ij : bi, ol);
                double u[WC_BW];
#pragma unroll
                for (int qq = 0; qq < WC_BW; qq++) {
                    double sel = 0.0;
#pragma unroll
                    for (int i = 0; i < WC_NR; i++)
                        sel = i == oi ? v[i][qq] : sel;
                    u[qq] = qq >= q ? __shfl_sync(full, sel, ol) : 0.0;
                }
                const double pv = u[q];
                prq[q] = ol + 32 * oi;
                if (lane == 0) {
                    ipiv[j] = p + 1;
                    if (pv == 0.0)
                        atomicCAS(info, 0, j + 1);
                }
#pragma unroll
                for (int i = 0; i < WC_NR; i++) {
                    lr[i] = lr[i] == p ? j : lr[i] == j ? p : lr[i];
                    if (lane + 32 * i < R && lr[i] > j) {
                        double l = v[i][q];
                        if (pv != 0.0)
                            l = fabs(pv) >= DBL_MIN ? l * (1.0 / pv) : l / pv;
                        v[i][q] = l;
#pragma unroll
                        for (int qq = q + 1; qq < WC_BW; qq++)
                            v[i][qq] = __fma_rn(-l, u[qq], v[i][qq]);
                    }
                }
            }
#pragma unroll
            for (int i = 0; i < WC_NR; i++) {
                const int r = lane + 32 * i;
#pragma unroll
                for (int q = 0; q < WC_BW; q++)
                    if (r < R && q < bw)
                        ch[r * WC_LD + c0 + q] = v[i][q];
            }
            if (lane < bw) {
#pragma unroll
                for (int q = 0; q < WC_BW; q++)
                    if (q == lane) {
                        pr[c0 + q] = prq[q];
                        ds[prq[q]] = c0 + q;
                    }
            }
        }
        __syncthreads(); /* the block, its pivot rows and steps */
        if (t >= 32) {
            for (int r = t - 32; r < R; r += WC_WORKERS)
                dsw[r] = ds[r];
            wc_update(ch, pr, ds, U, R, c0, bw, c1, c2); /* the next block first */
        }
        __syncthreads();
        if (t >= 32)
            wc_update(ch, pr, dsw, U, R, c0, bw, c2, w); /* beside the chain's next block */
    }
    if (t < 32)
#pragma unroll
        for (int i = 0; i < WC_NR; i++)
            if (lane + 32 * i < R)
                lab[lane + 32 * i] = lr[i];
    __syncthreads();
    if (t == 0)
        d_cycles = clock64() - clk0;
    for (int i = t; i < R * w; i += WC_THREADS) {
        const int r = i / w, q = i % w;
        A[lab[r] * LEAF_W + q] = ch[r * WC_LD + q];
    }
}


/* ---- Columns owned by warps (fifty-sixth stop) ------------------------------------------------
 * LEAF_CC_WARPS warps; warp w owns the leaf's columns w, w + 8, w + 16, w + 24, every row of
 * them in registers (lane l, slot s: leaf row 32 s + l; rows >= R NaN).  Column j's pivot is
 * found by its owner warp alone (no CTA barrier a column): the warp that owns column j + 1 waits
 * for step j (leaf_cc_wait), applies it to that column first, finds its pivot (leaf_cc_pivot),
 * writes the multipliers to column j + 1 of Lb (shared memory, physical rows) and posts step
 * j + 1; every other warp applies step j to its own columns right of j meanwhile.  A row that
 * became a pivot row is NaN in the registers from then on (its multiplier slot is NaN, and the
 * FMA makes it so), so no mask is needed: NaN is never a candidate; its later entries are kept
 * in U by the warps that update them.  The same FMAs as leaf_cta_columns, in the same order:
 * the same bits and pivots. */
#define LEAF_CC_WARPS 8
#define LEAF_CC_THREADS (LEAF_CC_WARPS * 32)
#define LEAF_CC_NS (LEAF_THREADS / 32) /* slots a lane: rows */
#define LEAF_CC_NQ (LEAF_W / LEAF_CC_WARPS) /* columns a warp */
#define LEAF_CC_LD (LEAF_W + 1) /* Lb's row stride in doubles */
#define CC_NOCONS 1 /* ablation: the warps apply a step only to the column they pivot next */
#define CC_NOPIV 2  /* ablation: no pivot search (the diagonal row) */

/* Step j's hand-off between the warps: named barrier 1 + j % 2 of LEAF_CC_THREADS threads, the
 * owner's warp arriving (it does not wait), the seven others waiting.  Two barriers suffice: a
 * warp reaches step j + 2's only after step j + 1's has completed, which needs every warp's
 * arrival at j + 1, each after it passed step j's.  (The first version's flag in shared memory,
 * st.release / ld.acquire polled by seven warps: ~4000 cycles a column; these barriers ~3700.) */
__device__ __forceinline__ static void leaf_cc_wait(int j)
{
    asm volatile("bar.sync %0, %1;" ::"r"(1 + (j & 1)), "n"(LEAF_CC_THREADS) : "memory");
}

__device__ __forceinline__ static void leaf_cc_post(int j)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(1 + (j & 1)), "n"(LEAF_CC_THREADS) : "memory");
}

__device__ __forceinline__ static double leaf_cc_nan(void)
{
    return __longlong_as_double(0x7ff8000000000000ll);
}

/* c[s] for a run-time s, by a tree of selects (registers cannot be indexed at run time). */
__device__ __forceinline__ static double leaf_cc_sel(const double (&c)[LEAF_CC_NS], int s)
{
    double a[8], b[4], d[2];
#pragma unroll
    for (int i = 0; i < 8; i++)
        a[i] = s & 1 ? c[2 * i + 1] : c[2 * i];
#pragma unroll
    for (int i = 0; i < 4; i++)
        b[i] = s & 2 ? a[2 * i + 1] : a[2 * i];
#pragma unroll
    for (int i = 0; i < 2; i++)
        d[i] = s & 4 ? b[2 * i + 1] : b[2 * i];
    return s & 8 ? d[1] : d[0];
}

/* The loop's shared state. */
struct leaf_cc_shared {
    double U[LEAF_W][LEAF_W + 1]; /* U[j][k], k >= j: the pivot row of step j (U[j][j] pivot) */
    int l2p[LEAF_THREADS], p2l[LEAF_THREADS]; /* logical row <-> physical row */
    int prow[LEAF_W];                         /* step j's pivot row, physical */
    int plog[LEAF_W];                         /* step j's pivot row, logical (for ipiv) */
};

/* Step j (pivot row p, multipliers m) on column k of the warp (c): U[j][k] = c[p], then
 * c -= m U[j][k]. */
__device__ __forceinline__ static void leaf_cc_update(double (&c)[LEAF_CC_NS],
                                                      const double (&m)[LEAF_CC_NS], int p,
                                                      int j, int k, leaf_cc_shared &S)
{
    const double u = __shfl_sync(0xffffffffu, leaf_cc_sel(c, p >> 5), p & 31);
    if ((threadIdx.x & 31) == 0)
        S.U[j][k] = u;
#pragma unroll
    for (int s = 0; s < LEAF_CC_NS; s++)
        c[s] = __fma_rn(-m[s], u, c[s]);
}

/* Column j (c, updated by every step before j) by its owner warp: the pivot (LAPACK's rule: the
 * diagonal row when its entry is NaN or no row offers one, else the largest |a|, the lowest
 * logical row on ties), the logical rows swapped, the multipliers to column j of Lb (rows < R;
 * the pivot row's NaN), then the hand-off when a later column waits for it (post). */
template <int ABL>
__device__ __forceinline__ static void leaf_cc_pivot(const double (&c)[LEAF_CC_NS], int j,
                                                     int R, double *Lb, leaf_cc_shared &S,
                                                     bool post)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const int dq = S.l2p[j]; /* the diagonal row: logical row j */
    const double dv = __shfl_sync(full, leaf_cc_sel(c, dq >> 5), dq & 31);
    /* the lane's largest |a| (NaN: -1), its slot, and whether another slot holds the same */
    double v[8];
    int ix[8];
    bool tie[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const double a = fmax(fabs(c[2 * i]), -1.0), b = fmax(fabs(c[2 * i + 1]), -1.0);
        const bool gb = b > a;
        v[i] = gb ? b : a;
        ix[i] = gb ? 2 * i + 1 : 2 * i;
        tie[i] = a == b;
    }
#pragma unroll
    for (int n = 4; n >= 1; n /= 2)
#pragma unroll
        for (int i = 0; i < n; i++) {
            const double a = v[2 * i], b = v[2 * i + 1];
            const bool gb = b > a, ga = a > b;
            v[i] = gb ? b : a;
            ix[i] = gb ? ix[2 * i + 1] : ix[2 * i];
            tie[i] = gb ? tie[2 * i + 1] : ga ? tie[2 * i] : true;
        }
    const double bv = v[0];
    const unsigned long long bits = (unsigned long long)__double_as_longlong(bv);
    const unsigned hi = bv >= 0.0 ? (unsigned)(bits >> 32) + 1u : 0u;
    const unsigned lo = bv >= 0.0 ? (unsigned)bits : 0u;
    const unsigned mh = __reduce_max_sync(full, hi);
    const unsigned ml = __reduce_max_sync(full, hi == mh ? lo : 0u);
    const unsigned hold = __ballot_sync(full, mh != 0u && hi == mh && lo == ml);
    const unsigned tied = __ballot_sync(full, tie[0]) & hold;
    int pp;
    if ((ABL & CC_NOPIV) || isnan(dv) || mh == 0u) {
        pp = dq;
    } else if (__popc(hold) == 1 && !tied) {
        const int hl = __ffs(hold) - 1;
        pp = __shfl_sync(full, ix[0], hl) * 32 + hl;
    } else { /* ties: the lowest logical row among the slots that hold the largest */
        unsigned best = 0xffffffffu;
        if (hold >> lane & 1u)
#pragma unroll
            for (int s = 0; s < LEAF_CC_NS; s++)
                if (fmax(fabs(c[s]), -1.0) == bv)
                    best = min(best, (unsigned)S.p2l[s * 32 + lane]);
        pp = S.l2p[__reduce_min_sync(full, best)];
    }
    const double pv = __shfl_sync(full, leaf_cc_sel(c, pp >> 5), pp & 31);
    if (lane == 0) {
        const int pl = S.p2l[pp];
        S.prow[j] = pp;
        S.U[j][j] = pv;
        S.l2p[j] = pp;
        S.l2p[pl] = dq;
        S.p2l[pp] = j;
        S.p2l[dq] = pl;
        S.plog[j] = pl;
    }
    const bool tiny = !(fabs(pv) >= DBL_MIN);
    const double r = 1.0 / pv;
#pragma unroll
    for (int s = 0; s < LEAF_CC_NS; s++) {
        double l = c[s];
        if (pv != 0.0)
            l = tiny ? l / pv : l * r;
        if (s * 32 + lane < R)
            Lb[(s * 32 + lane) * LEAF_CC_LD + j] = l;
    }
    if (lane == (pp & 31))
        Lb[pp * LEAF_CC_LD + j] = leaf_cc_nan();
    __syncwarp();
    if (post)
        leaf_cc_post(j);
}

/* After step j: the warp applies step j to its columns right of j, column j + 1 first
 * when it owns it (Q1 = (j + 1) / LEAF_CC_WARPS, that column's register block), then finds that
 * column's pivot. */
template <int Q1, int ABL>
__device__ __forceinline__ static void leaf_cc_step(double (&c)[LEAF_CC_NQ][LEAF_CC_NS], int j,
                                                    int R, int w, double *Lb, leaf_cc_shared &S)
{
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (wid != j % LEAF_CC_WARPS) /* the owner of column j made step j */
        leaf_cc_wait(j);
    const int p = S.prow[j];
    double m[LEAF_CC_NS];
#pragma unroll
    for (int s = 0; s < LEAF_CC_NS; s++)
        m[s] = s * 32 + lane < R ? Lb[(s * 32 + lane) * LEAF_CC_LD + j] : 0.0;
    const bool own1 = wid == (j + 1) % LEAF_CC_WARPS;
    if (own1) {
        leaf_cc_update(c[Q1], m, p, j, j + 1, S);
        leaf_cc_pivot<ABL>(c[Q1], j + 1, R, Lb, S, j + 2 < w);
    }
#pragma unroll
    for (int q = 0; q < LEAF_CC_NQ; q++) {
        const int k = wid + LEAF_CC_WARPS * q;
        if (!(ABL & CC_NOCONS) && k > j && k < w && !(own1 && q == Q1))
            leaf_cc_update(c[q], m, p, j, k, S);
    }
}

/* The columns of a leaf of R <= LEAF_THREADS rows and w <= min(R, LEAF_W) columns in ONE CTA of
 * LEAF_CC_THREADS threads (all of them call it), columns owned by warps (above).  Lb: the leaf,
 * R x w row-major with row stride LEAF_CC_LD (shared memory), factored in place: on return its
 * rows are in LAPACK's order (L below the diagonal, U on and above it).  row0: the panel row of
 * the leaf's row 0; pivots to ipiv[row0 + j] (1-based panel rows), INFO the first exactly zero
 * pivot (an atomic, as leaf_cta_columns).  Passes CTA barriers. */
template <int ABL>
__device__ __forceinline__ static void leaf_cc_columns(double *Lb, int R, int w, int row0,
                                                       leaf_cc_shared &S, int *ipiv, int *info)
{
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    for (int i = t; i < LEAF_THREADS; i += LEAF_CC_THREADS)
        S.l2p[i] = S.p2l[i] = i;
    double c[LEAF_CC_NQ][LEAF_CC_NS];
#pragma unroll
    for (int q = 0; q < LEAF_CC_NQ; q++)
#pragma unroll
        for (int s = 0; s < LEAF_CC_NS; s++) {
            const int r = s * 32 + lane, k = wid + LEAF_CC_WARPS * q;
            c[q][s] = r < R && k < w ? Lb[r * LEAF_CC_LD + k] : leaf_cc_nan();
        }
    __syncthreads(); /* the tables; a column's entries are read and written by its owner only */
    if (wid == 0)
        leaf_cc_pivot<ABL>(c[0], 0, R, Lb, S, 1 < w);
#pragma unroll 1
    for (int j = 0; j + 1 < w; j++) {
        static_assert(LEAF_CC_NQ == 4, "leaf_cc_columns: four register blocks");
        switch ((j + 1) / LEAF_CC_WARPS) {
        case 0: leaf_cc_step<0, ABL>(c, j, R, w, Lb, S); break;
        case 1: leaf_cc_step<1, ABL>(c, j, R, w, Lb, S); break;
        case 2: leaf_cc_step<2, ABL>(c, j, R, w, Lb, S); break;
        default: leaf_cc_step<3, ABL>(c, j, R, w, Lb, S); break;
        }
    }
    __syncthreads(); /* every step made, every U entry written */
    if (t < 32) { /* the pivots, INFO: the first exactly zero pivot */
        if (t < w)
            ipiv[row0 + t] = row0 + S.plog[t] + 1;
        const unsigned z = __ballot_sync(0xffffffffu, t < w && S.U[t][t] == 0.0);
        if (t == 0 && z)
            atomicCAS(info, 0, row0 + __ffs(z));
    }
    /* the rows to their logical places, in place: all reads, a barrier, all writes */
    constexpr int PER = LEAF_THREADS * LEAF_W / LEAF_CC_THREADS;
    double o[PER];
#pragma unroll
    for (int e = 0; e < PER; e++) {
        const int i = t + e * LEAF_CC_THREADS, r = i / LEAF_W, k = i % LEAF_W;
        if (r < R && k < w)
            o[e] = k < r ? Lb[S.l2p[r] * LEAF_CC_LD + k] : S.U[r][k];
    }
    __syncthreads();
#pragma unroll
    for (int e = 0; e < PER; e++) {
        const int i = t + e * LEAF_CC_THREADS, r = i / LEAF_W, k = i % LEAF_W;
        if (r < R && k < w)
            Lb[r * LEAF_CC_LD + k] = o[e];
    }
    __syncthreads();
}


// k_colcyc: leaf_cc_columns above in one CTA of 256 threads; timed with the rows' reordering to
// their logical places (which "library" does after its clock stops).  ABL: the ablations
// (timing only, wrong answers).
template <int ABL>
__global__ void __launch_bounds__(LEAF_CC_THREADS, 1)
k_colcyc(double *A, int R, int w, int *ipiv, int *info)
{
    extern __shared__ double Lb[]; /* LEAF_THREADS x LEAF_CC_LD */
    __shared__ leaf_cc_shared S;
    const int t = threadIdx.x;
    for (int i = t; i < R * LEAF_W; i += LEAF_CC_THREADS)
        Lb[i / LEAF_W * LEAF_CC_LD + i % LEAF_W] = i % LEAF_W < w ? A[i] : 0.0;
    __syncthreads();
    const long long c0 = clock64();
    leaf_cc_columns<ABL>(Lb, R, w, 0, S, ipiv, info);
    if (t == 0)
        d_cycles = clock64() - c0;
    for (int i = t; i < R * LEAF_W; i += LEAF_CC_THREADS)
        if (i % LEAF_W < w)
            A[i] = Lb[i / LEAF_W * LEAF_CC_LD + i % LEAF_W];
}

// Test data: kind 0 random, 1 ties (entries in {-2, -1, 1, 2}), 2 NaN (below), 3 a zero column
// (INFO), 4 random with a dominant diagonal (no interchange: is the ties' cheaper column their
// values or where their pivots are?).
static void make(std::vector<double> &A, int R, int kind, unsigned seed)
{
    A.assign((size_t)R * LEAF_W, 0.0);
    unsigned long long s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto &v : A) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        v = kind == 1 ? (double)((int)(s % 4) - 2 + (s % 4 >= 2)) : (double)(s % 2000001) / 1e6 - 1;
    }
    if (kind == 2) { /* NaN in some rows of columns 10-14; column 20 NaN from row 20 down */
        for (int r = 3; r < R; r += 7)
            A[r * LEAF_W + 10 + r % 5] = NAN;
        for (int r = 20; r < R; r++)
            A[r * LEAF_W + 20] = NAN;
    }
    if (kind == 3)
        for (int r = 0; r < R; r++)
            A[r * LEAF_W + 4] = 0.0;
    if (kind == 4)
        for (int r = 0; r < LEAF_W && r < R; r++)
            A[r * LEAF_W + r] += A[r * LEAF_W + r] < 0 ? -2.0 * R : 2.0 * R;
}

typedef void (*leaf_fn)(double *, int, int, int *, int *);
static const struct {
    const char *name;
    leaf_fn k;
    bool rolled, checked; /* rolled: the kernel takes LEAF_THREADS x LB_LD doubles of dynamic
                           * shared memory */
    int threads;          /* 0: LEAF_THREADS */
} variants[] = {
    {"library", k_library, false, true},
    {"library in passes", k_pass, false, true},
    {"logical", k_logical<0>, false, true},
    {"logical quiet", k_logical<A_QUIET>, false, true},
    {"logical prercp", k_logical<A_PRERCP>, false, true},
    {"logical quiet prercp", k_logical<A_QUIET | A_PRERCP>, false, true},
    {"logical twobar", k_logical<A_TWOBAR>, false, true},
    {"logical twobar prercp", k_logical<A_TWOBAR | A_PRERCP>, false, true},
    {"logical twobar quiet prercp", k_logical<A_TWOBAR | A_QUIET | A_PRERCP>, false, true},
    {"logical twobar fastkey", k_logical<A_TWOBAR | A_FASTKEY>, false, true},
    {"rolled 4", k_rolled<4>, true, true},
    {"rolled 8", k_rolled<8>, true, true},
    {"warp chain", k_warpchain, true, true, WC_THREADS},
    {"columns by warps", k_colcyc<0>, true, true, LEAF_CC_THREADS},
    {"cols: no consumer work", k_colcyc<CC_NOCONS>, true, false, LEAF_CC_THREADS},
    {"cols: no pivot search", k_colcyc<CC_NOPIV>, true, false, LEAF_CC_THREADS},
    {"cols: neither", k_colcyc<CC_NOCONS | CC_NOPIV>, true, false, LEAF_CC_THREADS},
    {"no row store", k_logical<A_NOSTORE>, false, false},
    {"no warp reduction", k_logical<A_NOWARPRED>, false, false},
    {"no CTA reduction", k_logical<A_NOCTARED>, false, false},
    {"no reciprocal", k_logical<A_NORCP>, false, false},
    {"no FMAs", k_logical<A_NOFMA>, false, false},
    {"no barrier", k_logical<A_NOBAR>, false, false},
    {"barrier only", k_logical<A_NOSTORE | A_NOWARPRED | A_NOCTARED | A_NORCP | A_NOFMA>,
     false, false},
    {"nothing", k_logical<63>, false, false},
};

// `beside [S]`: the library's loop and k_pass on R = 512 and 256 random rows, on a green
// context of S SMs (default 64), alone and beside the panel bench's DGEMMs on the other SMs
// (tool_gemm.h): does the one-CTA leaf lose to its code's fetch as the grid leaf did?
static int run_beside(int sms)
{
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    CUstream gp, gr;
    unsigned np, nr;
    tool_green_split(sms, &gp, &gr, &np, &nr);
    cudaStream_t st = (cudaStream_t)gp;
    float gms;
    const tool_gemm_load load((cudaStream_t)gr, &gms);
    printf("leaves on %u SMs, DGEMMs on the other %u (%.1f TFLOP/s alone)\n", np, nr,
           load.tflops(gms));
    int bad = 0;
    for (int R : {512, 256}) {
        std::vector<double> A0;
        make(A0, R, 0, 17u * R);
        const size_t bytes = A0.size() * sizeof(double);
        double *dA, *dA0;
        int *dp, *di;
        CK(cudaMalloc(&dA, bytes));
        CK(cudaMalloc(&dA0, bytes));
        CK(cudaMalloc(&dp, LEAF_W * sizeof(int)));
        CK(cudaMalloc(&di, sizeof(int)));
        CK(cudaMemcpy(dA0, A0.data(), bytes, cudaMemcpyHostToDevice));
        std::vector<double> out[2];
        for (int beside = 0; beside < 2; beside++) {
            if (beside) {
                load.queue(100); /* ~1 s */
                usleep(200000);
            }
            for (int v = 0; v < 2; v++) {
                leaf_fn k = v ? k_pass : k_library;
                auto pre = [&] {
                    CK(cudaMemcpyAsync(dA, dA0, bytes, cudaMemcpyDeviceToDevice, st));
                    CK(cudaMemsetAsync(di, 0, sizeof(int), st));
                };
                const double ms = tool_best_ms(
                    st, REPS,
                    [&] {
                        k<<<1, LEAF_THREADS, 0, st>>>(dA, R, LEAF_W, dp, di);
                        CK(cudaGetLastError());
                    },
                    pre);
                long long c;
                CK(cudaMemcpyFromSymbol(&c, d_cycles, sizeof c));
                out[v].resize(A0.size());
                CK(cudaMemcpy(out[v].data(), dA, bytes, cudaMemcpyDeviceToHost));
                printf("R %3d %-18s %-7s %7.1f cycles/column (last launch) %.4f ms\n", R,
                       v ? "library in passes" : "library", beside ? "beside" : "alone",
                       (double)c / LEAF_W, ms);
            }
            const bool same = !memcmp(out[0].data(), out[1].data(), bytes);
            bad += !same;
            if (!same)
                printf("R %3d: the passes' bits differ from the library's\n", R);
            if (beside)
                printf("  (the DGEMMs %s)\n", load.running() ? "still ran at the end"
                                                         : "ended before the leaves: too few");
            CK(cudaStreamSynchronize((cudaStream_t)gr));
        }
        CK(cudaFree(dA));
        CK(cudaFree(dA0));
        CK(cudaFree(dp));
        CK(cudaFree(di));
    }
    return bad != 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "beside"))
        return run_beside(argc > 2 ? atoi(argv[2]) : 64);
    const bool host = argc > 1 && !strcmp(argv[1], "host");
    const int Rs[] = {512, 256, 64, 32};
    int bad = 0;
    if (!host) {
        const int lsm = LEAF_THREADS * LB_LD * (int)sizeof(double);
        CK(cudaFuncSetAttribute(k_rolled<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, lsm));
        CK(cudaFuncSetAttribute(k_rolled<8>, cudaFuncAttributeMaxDynamicSharedMemorySize, lsm));
        CK(cudaFuncSetAttribute(k_warpchain, cudaFuncAttributeMaxDynamicSharedMemorySize, lsm));
        CK(cudaFuncSetAttribute(k_colcyc<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, lsm));
        CK(cudaFuncSetAttribute(k_colcyc<CC_NOCONS>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                lsm));
        CK(cudaFuncSetAttribute(k_colcyc<CC_NOPIV>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                lsm));
        CK(cudaFuncSetAttribute(k_colcyc<CC_NOCONS | CC_NOPIV>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, lsm));
    }
    for (int R : Rs)
        for (int kind = 0; kind < 5; kind++) {
            std::vector<double> A0, H;
            make(A0, R, kind, 17u * R + kind);
            H = A0;
            std::vector<int> hp(LEAF_W);
            const int hinfo = tool_host_getf2(H, R, LEAF_W, LEAF_W, hp);
            if (host) {
                printf("R %3d kind %d: host INFO %d, pivots %d %d %d ...\n", R, kind, hinfo,
                       hp[0], hp[1], hp[2]);
                continue;
            }
            double *dA, *dA0;
            int *dp, *di;
            const size_t bytes = A0.size() * sizeof(double);
            CK(cudaMalloc(&dA, bytes));
            CK(cudaMalloc(&dA0, bytes));
            CK(cudaMalloc(&dp, LEAF_W * sizeof(int)));
            CK(cudaMalloc(&di, sizeof(int)));
            CK(cudaMemcpy(dA0, A0.data(), bytes, cudaMemcpyHostToDevice));
            cudaStream_t st;
            CK(cudaStreamCreate(&st));
            const int NV = (int)(sizeof variants / sizeof variants[0]);
            std::vector<double> out[NV];
            std::vector<int> piv[NV];
            int info[NV];
            double ms[NV];
            long long cyc[NV];
            const int lsm = LEAF_THREADS * LB_LD * (int)sizeof(double);
            for (int v = 0; v < NV; v++) {
                auto pre = [&] {
                    CK(cudaMemcpyAsync(dA, dA0, bytes, cudaMemcpyDeviceToDevice, st));
                    CK(cudaMemsetAsync(di, 0, sizeof(int), st));
                };
                if (!variants[v].checked && (kind != 0 || (R != 512 && R != 32))) {
                    cyc[v] = -1;
                    continue;
                }
                auto op = [&] {
                    variants[v].k<<<1, variants[v].threads ? variants[v].threads : LEAF_THREADS,
                                    variants[v].rolled ? lsm : 0, st>>>(
                        dA, R, LEAF_W, dp, di);
                    CK(cudaGetLastError());
                };
                long long best = LLONG_MAX;
                ms[v] = tool_best_ms(st, REPS, op, [&] {
                    pre();
                    long long c = 0;
                    CK(cudaStreamSynchronize(st));
                    CK(cudaMemcpyFromSymbol(&c, d_cycles, sizeof c));
                    if (c > 0 && c < best)
                        best = c;
                });
                CK(cudaStreamSynchronize(st));
                long long c;
                CK(cudaMemcpyFromSymbol(&c, d_cycles, sizeof c));
                cyc[v] = c < best ? c : best;
                out[v].resize(A0.size());
                piv[v].resize(LEAF_W);
                CK(cudaMemcpy(out[v].data(), dA, bytes, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(piv[v].data(), dp, LEAF_W * sizeof(int), cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(&info[v], di, sizeof(int), cudaMemcpyDeviceToHost));
            }
            const bool ref = piv[0] == hp && info[0] == hinfo;
            bad += !ref;
            int moved = 0; /* columns whose pivot is not the diagonal row */
            for (int q = 0; q < LEAF_W; q++)
                moved += hp[q] != q + 1;
            printf("R %3d kind %d: library's pivots as the host's %s (%d interchanges)\n", R,
                   kind, ref ? "yes" : "NO", moved);
            for (int v = 0; v < NV; v++) {
                if (cyc[v] < 0)
                    continue;
                if (!variants[v].checked) {
                    printf("  %-24s %7.1f cycles/column %.4f ms  (ablation: timing only)\n",
                           variants[v].name, (double)cyc[v] / LEAF_W, ms[v]);
                    continue;
                }
                const bool same = piv[0] == piv[v] && info[0] == info[v] &&
                                  !memcmp(out[0].data(), out[v].data(), bytes);
                bad += !same;
                printf("  %-24s %7.1f cycles/column %.4f ms  same bits as the library's %s\n",
                       variants[v].name, (double)cyc[v] / LEAF_W, ms[v], same ? "yes" : "NO");
            }
            CK(cudaStreamDestroy(st));
            CK(cudaFree(dA));
            CK(cudaFree(dA0));
            CK(cudaFree(dp));
            CK(cudaFree(di));
        }
    return bad != 0;
}
