/*
 * Device helpers of the native panel's thread-per-row leaves, shared by the leaf kernels
 * (gpu_dgetrf_leaf.cu) and the short-panel kernel (gpu_dgetrf_short.cu): the pivot key, a
 * column's interchange and update, the one-CTA column loop, the composition of a leaf's
 * interchanges, a leaf row in tagged words (the grid leaf kernel's exchange).  Only for .cu
 * files of gpu_kernels/ and the experiments in tools/.
 */
#ifndef HYT_GPU_LEAF_CUH
#define HYT_GPU_LEAF_CUH

#include "hyt_gpu_geometry.h"
#include "hyt_gpu_sync.cuh"

#include <float.h>

#define LEAF_W HYT_PANEL_LEAF_W
#define LEAF_THREADS HYT_PANEL_LEAF_THREADS
#define LEAF_WARPS (LEAF_THREADS / 32)

/* Warp 0: the interchanges of pivots q < cnt (row r0 + q with piv[q], both panel rows, each
 * piv[q] >= r0 + q; piv readable by warp 0) composed into one permutation: row to[e] receives
 * the old row from[e], e < *ne <= 2 cnt (cnt <= 32): e < cnt the rows r0 + e, then the rows
 * below r0 + cnt that some piv[q] names, in the order of their first q.  Other warps: nothing.
 * Each lane traces its row back through the interchanges, last to first, so the lanes work
 * at once (the thirty-eighth stop's version; the one before passed the interchanges one at a
 * time through the warp's shuffles, a chain of ~32 x 100 cycles). */
__device__ static void leaf_compose(const int *piv, int r0, int cnt, int *to, int *from, int *ne)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    if (threadIdx.x >= 32)
        return;
    const int mine = lane < cnt ? piv[lane] : -1;
    /* an extra row: named first by this lane's pivot and below the block */
    const unsigned same = __match_any_sync(full, mine);
    const bool extra = mine >= r0 + cnt && __ffs(same) - 1 == lane;
    int xa = r0 + lane, xb = mine; /* where the rows now at r0 + lane and at mine come from */
    hyt_panel_trace_back(piv, r0, cnt, &xa, &xb);
    const unsigned eb = __ballot_sync(full, extra);
    if (lane < cnt) {
        to[lane] = r0 + lane;
        from[lane] = xa;
    }
    if (extra) {
        const int e = cnt + __popc(eb & ((1u << lane) - 1u));
        to[e] = mine;
        from[e] = xb;
    }
    if (lane == 0)
        *ne = cnt + __popc(eb);
}

/* A row below a leaf's diagonal at column jj (x, LEAF_W entries; u: the pivot row, pv = u[jj]):
 * its entry jj scaled by the pivot (unscaled when it is 0: INFO), its entries right of jj
 * updated. */
__device__ __forceinline__ static void leaf_row_update(double (&x)[LEAF_W], int jj, double pv,
                                                       const double *u)
{
    double l = x[jj];
    if (pv != 0.0)
        l = fabs(pv) >= DBL_MIN ? l * (1.0 / pv) : l / pv;
    x[jj] = l;
#pragma unroll
    for (int k = jj + 1; k < LEAF_W; k++)
        x[k] = __fma_rn(-l, u[k], x[k]);
}

/* A thread-per-row leaf's column jj (x: the thread's row r, LEAF_W entries; mine: the thread has
 * a row; u: the pivot row p, d: the diagonal row jj before the interchange, pv = u[jj]): the
 * owners of rows jj and p swap, every row below jj is updated (leaf_row_update). */
__device__ __forceinline__ static void leaf_row_step(double (&x)[LEAF_W], int r, int jj, int p,
                                                     double pv, const double *u,
                                                     const double *d, bool mine)
{
    if (mine && (r == jj || (r == p && p != jj))) {
        const bool isj = r == jj;
#pragma unroll
        for (int k = 0; k < LEAF_W; k++)
            x[k] = isj ? u[k] : d[k];
    }
    if (mine && r > jj)
        leaf_row_update(x, jj, pv, u);
}

/* Column jj's interchange of logical rows jj and p as a relabelling: their threads swap labels
 * (lr, the thread's logical row). */
__device__ __forceinline__ static void leaf_relabel(int &lr, bool mine, int jj, int p)
{
    if (mine) {
        if (lr == p)
            lr = jj;
        else if (lr == jj)
            lr = p;
    }
}

/* The relabelling (leaf_relabel), then the multiplier and the update of a row below jj
 * (leaf_row_update; u: the pivot row, pv = u[jj]). */
__device__ __forceinline__ static void leaf_relabel_update(double (&x)[LEAF_W], int &lr,
                                                           bool mine, int jj, int p, double pv,
                                                           const double *u)
{
    leaf_relabel(lr, mine, jj, p);
    if (mine && lr > jj)
        leaf_row_update(x, jj, pv, u);
}

/* The warp's largest key (hi, lo), compared as one 64-bit number, into *mh and *ml, and the
 * first lane that holds it (every lane of the warp calls it). */
__device__ __forceinline__ static int leaf_key_argmax(unsigned hi, unsigned lo, unsigned *mh,
                                                      unsigned *ml)
{
    *mh = __reduce_max_sync(0xffffffffu, hi);
    *ml = __reduce_max_sync(0xffffffffu, hi == *mh ? lo : 0u);
    return __ffs(__ballot_sync(0xffffffffu, hi == *mh && lo == *ml)) - 1;
}

/* Every lane of a warp: the largest key (hi, lo) among its lanes into *mh and *ml, and the
 * lowest row among the lanes that hold it (row: the lane's row, unique in the warp, or
 * 0xffffffff for none), LAPACK's rule on ties. */
__device__ __forceinline__ static unsigned leaf_key_lowest(unsigned hi, unsigned lo, unsigned row,
                                                           unsigned *mh, unsigned *ml)
{
    *mh = __reduce_max_sync(0xffffffffu, hi);
    *ml = __reduce_max_sync(0xffffffffu, hi == *mh ? lo : 0u);
    return __reduce_min_sync(0xffffffffu, hi == *mh && lo == *ml ? row : 0xffffffffu);
}

/* A leaf column's pivot key of v (cand: v is a candidate): (hi, lo) compared as one 64-bit
 * number, |v|'s bits with hi + 1 (|a| >= 0 orders as its bit pattern); 0: no candidate. */
__device__ __forceinline__ static void leaf_key(double v, bool cand, unsigned *hi, unsigned *lo)
{
    const unsigned long long bits = (unsigned long long)__double_as_longlong(fabs(v));
    *hi = cand ? (unsigned)(bits >> 32) + 1u : 0u;
    *lo = cand ? (unsigned)bits : 0u;
}

/* The warp's candidate for a leaf column from its lanes' entries v (cand: the lane offers v):
 * the largest key into *mh, *ml, and the first lane holding it. */
__device__ __forceinline__ static int leaf_warp_candidate(double v, bool cand, unsigned *mh,
                                                          unsigned *ml)
{
    unsigned hi, lo;
    leaf_key(v, cand, &hi, &lo);
    return leaf_key_argmax(hi, lo, mh, ml);
}

/* A composed permutation (row to[e] receives row from[e], e < ne, panel rows) on the panel's
 * columns outside [j0, j0+w): 32 of those n - w columns at a time, chunks first, first + step,
 * ... of them here, a warp per moved row, through buf (all reads, CTA barrier, all writes). */
template <int LD>
__device__ __forceinline__ static void leaf_permute_outside(double *A, int n, int nb, int j0,
                                                            int w, int first, int step,
                                                            const int *to, const int *from,
                                                            int ne, double (*buf)[LD])
{
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nout = n - w;
    for (int ch = first; ch * LEAF_W < nout; ch += step) {
        const int cl = ch * LEAF_W + lane; /* the chunk's columns, skipping [j0, j0+w) */
        const int c = cl < j0 ? cl : cl + w;
        const bool ok = cl < nout;
        for (int e = wid; e < ne; e += LEAF_WARPS)
            if (ok)
                buf[e][lane] = A[(int64_t)from[e] * nb + c];
        __syncthreads();
        for (int e = wid; e < ne; e += LEAF_WARPS)
            if (ok)
                A[(int64_t)to[e] * nb + c] = buf[e][lane];
        __syncthreads();
    }
}

/* A leaf row in tagged words (hyt_gpu_sync.cuh), two a double (low word, high word), for the
 * grid leaf kernel's exchange between CTAs. */
/* Entry k of a row (v) into tagged words w. */
__device__ __forceinline__ static void leaf_put_entry(unsigned long long *w, double v, int k,
                                                      unsigned tag)
{
    st_relaxed_u64(w + 2 * k, tagged(tag, (unsigned)__double2loint(v)));
    st_relaxed_u64(w + 2 * k + 1, tagged(tag, (unsigned)__double2hiint(v)));
}

/* The row (x, entries jj = g + q and right) of the one lane of a warp for which me is true into
 * tagged words w, by the whole warp: through buf (shared memory, LEAF_W doubles, by logical
 * entry), then one entry a lane, so that the 64 stores are two instructions instead of 64 of
 * one lane.  x in the places of a leaf's pass of columns g .. (hyt_leaf_pass_row_out); a loop
 * without passes: g = 0, q = jj.  A row may still owe the previous column's update of its
 * entries right of jj (the grid leaf defers it: hyt_leaf_pass_row_rest): each lane applies it to
 * its entry on the way out, the same FMA as the deferred update (owe: whether the me lane's row
 * owes it, l its multiplier; u, read only then: the previous column's pivot row by logical
 * entry). */
__device__ __forceinline__ static void leaf_put_row_warp(unsigned long long *w,
                                                         const double (&x)[LEAF_W], int q,
                                                         int g, unsigned tag, bool me,
                                                         double *buf, bool owe, double l,
                                                         const double *u)
{
    const int lane = threadIdx.x & 31, jj = g + q;
    const int src = __ffs(__ballot_sync(0xffffffffu, me)) - 1;
    const bool o = __shfl_sync(0xffffffffu, owe, src);
    const double ls = __shfl_sync(0xffffffffu, l, src);
    if (me)
        hyt_leaf_pass_row_out(x, q, g, buf);
    __syncwarp();
    if (lane >= jj) {
        double v = buf[lane];
        if (o && lane > jj)
            v = fma(-ls, u[lane], v);
        leaf_put_entry(w, v, lane, tag);
    }
    __syncwarp();
}

/* Entry k of a row in tagged words, once both words carry tag. */
__device__ __forceinline__ static double leaf_get_entry(const unsigned long long *w, int k,
                                                        unsigned tag)
{
    unsigned long long lo, hi;
    do {
        lo = ld_relaxed_u64(w + 2 * k);
        hi = ld_relaxed_u64(w + 2 * k + 1);
    } while ((unsigned)(lo >> 32) != tag || (unsigned)(hi >> 32) != tag);
    return __hiloint2double((int)(unsigned)hi, (int)(unsigned)lo);
}

/* The one-CTA column loop's slots (shared memory): each warp's candidate (key and logical row),
 * whether the diagonal entry is NaN, the pivot row (its entries from the column on). */
struct leaf_cta_slots {
    double urow[LEAF_W];
    unsigned whi[LEAF_WARPS], wlo[LEAF_WARPS];
    int wr[LEAF_WARPS], dnan;
};

/* Column jj's first step in a thread-per-row leaf: the warp's candidate among its rows of
 * logical row >= jj (NaN never is one), the largest key (leaf_key), then the lowest logical row
 * holding it (leaf_key_lowest), into the warp's slot (v: the thread's entry in column jj; lr:
 * its logical row). */
__device__ __forceinline__ static void leaf_warp_slot(double v, int jj, int lr, bool mine,
                                                      int wid, leaf_cta_slots &S)
{
    unsigned hi, lo, mh, ml;
    leaf_key(v, mine && lr >= jj && !isnan(v), &hi, &lo);
    if ((unsigned)lr == leaf_key_lowest(hi, lo, (unsigned)lr, &mh, &ml)) {
        S.whi[wid] = mh;
        S.wlo[wid] = ml;
        S.wr[wid] = lr;
    }
}

/* After the CTA's barrier, in every warp (lane: the thread's): the best of the warps' slots,
 * its key into *bh, *bl (bh 0: no candidate) and its logical row returned. */
__device__ __forceinline__ static unsigned leaf_cta_pick(const leaf_cta_slots &S, int lane,
                                                         unsigned *bh, unsigned *bl)
{
    return leaf_key_lowest(lane < LEAF_WARPS ? S.whi[lane] : 0u,
                           lane < LEAF_WARPS ? S.wlo[lane] : 0u,
                           lane < LEAF_WARPS ? (unsigned)S.wr[lane] : 0xffffffffu, bh, bl);
}

/* The columns of a leaf of at most LEAF_THREADS rows in ONE CTA of LEAF_THREADS threads: thread
 * r owns leaf row r (mine: r is a row of the leaf; the others hold zeros), its w <= LEAF_W
 * entries in x; row0 is the panel row (and column) of the leaf's row 0 and column 0.  The rows
 * never move between threads: each thread keeps its row's place in LAPACK's order (its logical
 * row, r at first), and an interchange is a relabelling.  Column jj:
 *   1. each warp's candidate among its rows of logical row >= jj (NaN never is one): the largest
 *      key (leaf_key), then the lowest logical row holding it (leaf_key_lowest); its key and
 *      logical row to the warp's slot; the thread of logical row jj says whether its entry is
 *      NaN;
 *   2. CTA barrier;
 *   3. EVERY warp reduces the warps' slots the same way, so every warp has the pivot p: the
 *      diagonal row (jj) when its entry is NaN or nobody offers one, else the largest |a|, the
 *      lowest row on ties (LAPACK's rule); the thread of logical row p stores its row (entries jj
 *      and right) to urow;
 *   4. CTA barrier;
 *   5. the rows of logical rows p and jj swap labels; every row below jj scales its entry jj by
 *      the pivot (unscaled when it is 0: INFO) and updates its entries right of jj.
 * Two barriers, one row stored a column: with the earlier one barrier a column every warp's
 * candidate stored its row (a lane's store of 16 bytes costs the SM 4 cycles), the diagonal
 * row's owner its row, and those two threads swapped rows; the leaf column took ~2550 cycles
 * against ~1320 now, the same bits (tools/leaf_logical.cu; docs/performance.md, thirty-eighth
 * stop).  Single slots suffice: a slot is written again only after the barrier that follows
 * every warp's last read of it.  Pivots: spiv[jj] (panel row) and ipiv[row0 + jj] (1-based);
 * INFO: the first exactly zero pivot (an atomic: the short-panel kernel's CTAs record theirs in
 * column order).  Returns the thread's logical row: the leaf row that its x now is. */
__device__ __forceinline__ static int leaf_cta_columns(double (&x)[LEAF_W], int r, bool mine,
                                                       int w, int row0, leaf_cta_slots &S,
                                                       int *spiv, int *ipiv, int *info)
{
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int lr = r;
#pragma unroll
    for (int jj = 0; jj < LEAF_W; jj++) {
        if (jj >= w)
            break;
        /* 1. the warp's candidate */
        leaf_warp_slot(x[jj], jj, lr, mine, wid, S);
        if (lr == jj)
            S.dnan = isnan(x[jj]);
        __syncthreads(); /* 2. */
        /* 3. the pivot, in every warp */
        unsigned bh, bl;
        const unsigned br = leaf_cta_pick(S, lane, &bh, &bl);
        const int p = S.dnan || bh == 0u ? jj : (int)br;
        if (lr == p)
#pragma unroll
            for (int k = jj; k < LEAF_W; k++)
                S.urow[k] = x[k];
        __syncthreads(); /* 4. */
        const double pv = S.urow[jj];
        if (threadIdx.x == 0) {
            spiv[jj] = row0 + p;
            ipiv[row0 + jj] = row0 + p + 1;
            if (pv == 0.0)
                atomicCAS(info, 0, row0 + jj + 1);
        }
        /* 5. the interchange as a relabelling, the multipliers, the update */
        leaf_relabel_update(x, lr, mine, jj, p, pv, S.urow);
    }
    return lr;
}

#endif
