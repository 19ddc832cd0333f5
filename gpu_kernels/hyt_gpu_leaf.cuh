/*
 * Device helpers of the native panel's thread-per-row leaves, shared by the leaf kernels
 * (gpu_dgetrf_leaf.cu) and the short-panel kernel (gpu_dgetrf_short.cu): the pivot key, a
 * column's interchange and update, the one-CTA column loop, the composition of a leaf's
 * interchanges.  Only for .cu files of gpu_kernels/.
 */
#ifndef HYT_GPU_LEAF_CUH
#define HYT_GPU_LEAF_CUH

#include "hyt_gpu_geometry.h"

#include <float.h>

#define LEAF_W HYT_PANEL_LEAF_W
#define LEAF_THREADS HYT_PANEL_LEAF_THREADS
#define LEAF_WARPS (LEAF_THREADS / 32)

/* Warp 0: the interchanges of pivots q < cnt (row r0 + q with piv[q], both panel rows, each
 * piv[q] >= r0 + q) composed into one permutation: row to[e] receives the old row from[e],
 * e < *ne <= 2 cnt (cnt <= 32).  Other warps: nothing. */
__device__ static void leaf_compose(const int *piv, int r0, int cnt, int *to, int *from, int *ne)
{
    const int lane = threadIdx.x & 31;
    if (threadIdx.x >= 32)
        return;
    int to_a = r0 + lane, from_a = to_a, to_b = -1, from_b = -1, nb_extra = 0;
    for (int q = 0; q < cnt; q++) {
        const int p = piv[q];
        if (p == r0 + q)
            continue;
        int fq = __shfl_sync(0xffffffffu, from_a, q), fp;
        if (p < r0 + cnt) {
            fp = __shfl_sync(0xffffffffu, from_a, p - r0);
            if (lane == p - r0)
                from_a = fq;
        } else {
            unsigned hit = __ballot_sync(0xffffffffu, to_b == p);
            int e = hit ? __ffs(hit) - 1 : nb_extra;
            if (!hit) {
                if (lane == e) {
                    to_b = p;
                    from_b = p;
                }
                nb_extra++;
            }
            fp = __shfl_sync(0xffffffffu, from_b, e);
            if (lane == e)
                from_b = fq;
        }
        if (lane == q)
            from_a = fp;
    }
    if (lane < cnt) {
        to[lane] = to_a;
        from[lane] = from_a;
    }
    if (lane < nb_extra) {
        to[cnt + lane] = to_b;
        from[cnt + lane] = from_b;
    }
    if (lane == 0)
        *ne = cnt + nb_extra;
}

/* A thread-per-row leaf's column jj (x: the thread's row r, LEAF_W entries; mine: the thread has
 * a row; u: the pivot row p, d: the diagonal row jj before the interchange, pv = u[jj]): the
 * owners of rows jj and p swap, every row below jj scales its entry jj by the pivot (unscaled
 * when it is 0: INFO) and updates its entries right of jj. */
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
    if (mine && r > jj) {
        double l = x[jj];
        if (pv != 0.0)
            l = fabs(pv) >= DBL_MIN ? l * (1.0 / pv) : l / pv;
        x[jj] = l;
#pragma unroll
        for (int k = jj + 1; k < LEAF_W; k++)
            x[k] = __fma_rn(-l, u[k], x[k]);
    }
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

/* The warp's candidate for a leaf column from its lanes' entries v (cand: the lane offers v):
 * the key of |v| (0: no candidate) into *mh, *ml, and the first lane holding the largest. */
__device__ __forceinline__ static int leaf_warp_candidate(double v, bool cand, unsigned *mh,
                                                          unsigned *ml)
{
    const unsigned long long bits = (unsigned long long)__double_as_longlong(fabs(v));
    return leaf_key_argmax(cand ? (unsigned)(bits >> 32) + 1u : 0u, cand ? (unsigned)bits : 0u,
                           mh, ml);
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

/* Step 1 of a thread-per-row leaf's column jj (x: the thread's row r; mine: it has one): the
 * warp's candidate (leaf_warp_candidate) copies its row and key to the warp's slot (crow, *hi,
 * *lo, *row); the diagonal row's owner (diag) copies its row to drow. */
__device__ __forceinline__ static void leaf_offer(const double (&x)[LEAF_W], int r, int jj,
                                                  bool mine, bool diag, double *crow,
                                                  unsigned *hi, unsigned *lo, int *row,
                                                  double *drow)
{
    unsigned mh, ml;
    const int wl = leaf_warp_candidate(x[jj], mine && r >= jj && !isnan(x[jj]), &mh, &ml);
    if ((threadIdx.x & 31) == wl) {
#pragma unroll
        for (int k = 0; k < LEAF_W; k++)
            crow[k] = x[k];
        *hi = mh;
        *lo = ml;
        *row = r;
    }
    if (diag)
#pragma unroll
        for (int k = 0; k < LEAF_W; k++)
            drow[k] = x[k];
}

/* The one-CTA column loop's slots (shared memory), of parities 0 and 1: each warp's candidate
 * row and key, the diagonal row. */
struct leaf_cta_slots {
    double crow[2][LEAF_WARPS][LEAF_W], drow[2][LEAF_W];
    unsigned whi[2][LEAF_WARPS], wlo[2][LEAF_WARPS];
    int wr[2][LEAF_WARPS];
};

/* The columns of a leaf of at most LEAF_THREADS rows in ONE CTA of LEAF_THREADS threads: thread
 * r owns leaf row r (mine: r is a row of the leaf), its w <= LEAF_W entries in x; row0 is the
 * panel row (and column) of the leaf's row 0 and column 0.  ONE CTA barrier per column jj:
 *   1. each warp's candidate by its key (leaf_warp_candidate); the winner copies its row and
 *      key to the warp's slot of parity jj & 1; the diagonal row's owner its row;
 *   2. CTA barrier;
 *   3. EVERY warp reduces the warps' keys itself and reads the pivot row and the diagonal row
 *      from the slots (the same pivot in every warp: the diagonal row when its entry is NaN or
 *      nobody offers one, else the largest |a|, the lowest row on ties), so no second barrier;
 *   4. the owners of rows jj and p swap; every row below jj scales and updates its entries.
 * Parity-two slots suffice: a warp writes parity p again after the next barrier, which every
 * warp passes only after reading parity p.  Pivots: spiv[jj] (panel row) and ipiv[row0 + jj]
 * (1-based); INFO: the first exactly zero pivot (an atomic: several CTAs of the short-panel
 * kernel record theirs in column order). */
__device__ __forceinline__ static void leaf_cta_columns(double (&x)[LEAF_W], int r, bool mine,
                                                        int w, int row0, leaf_cta_slots &S,
                                                        int *spiv, int *ipiv, int *info)
{
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
#pragma unroll
    for (int jj = 0; jj < LEAF_W; jj++) {
        if (jj >= w)
            break;
        const int par = jj & 1;
        /* 1. the warp's candidate */
        leaf_offer(x, r, jj, mine, threadIdx.x == jj, S.crow[par][wid], &S.whi[par][wid],
                   &S.wlo[par][wid], &S.wr[par][wid], S.drow[par]);
        __syncthreads(); /* 2. */
        /* 3. the pivot, in every warp */
        unsigned bh, bl;
        const int bw = leaf_key_argmax(lane < LEAF_WARPS ? S.whi[par][lane] : 0u,
                                       lane < LEAF_WARPS ? S.wlo[par][lane] : 0u, &bh, &bl);
        const double *const d = S.drow[par];
        const double *u = d;
        int p = jj;
        if (!isnan(d[jj]) && bh != 0u) {
            p = S.wr[par][bw];
            u = S.crow[par][bw];
        }
        const double pv = u[jj];
        if (threadIdx.x == 0) {
            spiv[jj] = row0 + p;
            ipiv[row0 + jj] = row0 + p + 1;
            if (pv == 0.0)
                atomicCAS(info, 0, row0 + jj + 1);
        }
        /* 4. the interchange, the multipliers, the update */
        leaf_row_step(x, r, jj, p, pv, u, d, mine);
    }
}

#endif
