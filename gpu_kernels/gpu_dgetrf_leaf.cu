/*
 * One leaf of the native GPU panel LU (gpu_dgetrf_crrb.c): columns [j0, j0+w), w <= 32, of a
 * row-major m x n panel (leading dimension nb; the CRRB panel of a device column), rows
 * [j0, m), factored by unblocked LU with partial pivoting (LAPACK's dgetf2 and its pivot rule)
 * in ONE launch of at most nctas CTAs; ws: hyt_panel_leaf_ws_bytes(m) bytes (the publication
 * slots, then the tall kernel's column-major copy of the leaf).
 *
 * Leaves of at most 512 rows go to hyt_dgetrf_leaf_cta_kernel (compute capability 8.0 and up):
 * one CTA, a thread per row, two CTA barriers per column (leaf_cta_columns).  Other short leaves
 * (at most 16 x 512 rows, one CTA per 512 rows, no more CTAs than nctas) on a device that
 * launches thread-block clusters (compute capability 9.0 and up) go to
 * hyt_dgetrf_leaf_cluster_kernel: one cluster, a thread per row, its barriers and slots in
 * shared memory (see that kernel).  The others go to one of three cooperative kernels (all
 * their CTAs resident at once):
 * - one row a thread, when that takes at most LEAF_GRID_SPREAD * nctas CTAs
 *   (hyt_dgetrf_leaf_grid_kernel): the one-CTA loop's relabellings, the CTAs' candidates through
 *   tagged words in global memory (see that kernel);
 * - up to HYT_PANEL_LEAF_RPT_MAX rows a thread on nctas CTAs (hyt_dgetrf_leaf_rows_kernel,
 *   hyt_panel_leaf_rpt): its rows in registers, the columns in sub-blocks, the rest of the leaf
 *   in a column-major copy (see that kernel);
 * - more (hyt_dgetrf_leaf_tall_kernel): the same copy, every column a pass over it.
 *
 * The last two pass one grid-wide barrier per column.  Before it, each CTA publishes its pivot
 * candidate for the next column (largest |a|, first row on ties; NaN is no candidate) WITH the
 * candidate row's leaf entries, and the owner of the next diagonal row publishes that row, in
 * global slots of parity (column & 1).  After it, every warp reads the slots and picks the same
 * pivot: the diagonal row when its entry is NaN, else the largest candidate, lowest row on ties
 * (LAPACK's idamax); no warp ever reads another warp's rows, so the owners of the diagonal and
 * pivot rows can swap them at once.  Two parities suffice: a CTA writes parity p again only
 * after the next barrier, which every CTA reaches after reading parity p.
 *
 * After the last column every CTA knows the w pivots, composes them into one permutation of at
 * most 2w rows (warp 0, with ballots) and applies it to the panel's columns outside the leaf,
 * 32 columns per CTA at a time through shared memory (all reads, barrier, all writes): the
 * leaves interchange whole panel rows, so the recursion above needs no separate row swaps.
 *
 * Zero pivot (exact): no interchange, no scaling, the update done anyway, INFO = the first such
 * column (1-based in the panel; *info must be 0 before the first leaf), as dgetf2.
 */
#include "hyt_cuda_check.h"
#include "hyt_gpu_geometry.h"
#include "hyt_gpu_kernels.h"
#include "hyt_gpu_leaf.cuh"
#include "hyt_gpu_sync.cuh"

#include <cooperative_groups.h>
#include <cuda.h>
#include <float.h>
#include <limits.h>
#include <pthread.h>

namespace cg = cooperative_groups;

/* The publication slots in the workspace (doubles, then ints). */
struct leaf_ws {
    double *v;   /* [2][nctas] candidate |a| (-1: none) */
    double *row; /* [2][nctas][32] candidate rows */
    double *d;   /* [2][32] the diagonal row */
    int *idx;    /* [2][nctas] candidate row (-1: none) */
};

/* For the nctas CTAs of this launch (within hyt_panel_leaf_ws_bytes of the panel's rows); every
 * launch publishes before it reads: nothing is kept from one launch to the next. */
__device__ static leaf_ws leaf_slots(double *ws, int nctas)
{
    leaf_ws s;
    s.v = ws;
    s.row = ws + 2 * nctas;
    s.d = s.row + 2 * nctas * 32;
    s.idx = (int *)(s.d + 2 * 32);
    return s;
}

/* (v, i) beats (bv, bi): larger, or equal and a lower row; rows < 0 are no candidates. */
__device__ static inline bool beats(double v, int i, double bv, int bi)
{
    return i >= 0 && (bi < 0 || v > bv || (v == bv && i < bi));
}

/* The warp's best (v, i) with its tag t (a CTA or a warp), in every lane. */
__device__ static inline void warp_best(double &v, int &i, int &t)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        double ov = __shfl_xor_sync(0xffffffffu, v, o);
        int oi = __shfl_xor_sync(0xffffffffu, i, o);
        int ot = __shfl_xor_sync(0xffffffffu, t, o);
        if (beats(ov, oi, v, i)) {
            v = ov;
            i = oi;
            t = ot;
        }
    }
}

/* Column jj's pivot, the same in every warp of every CTA, from the slots of parity jj & 1:
 * the diagonal row when its entry is NaN or no CTA has a candidate, else the largest candidate
 * (lowest row on ties).  Returns the pivot row; *u: the lane's entry of the pivot row, *dr:
 * of the diagonal row as it was before the interchange. */
__device__ static int leaf_pivot(const leaf_ws &S, int nctas, int j0, int jj, double *u,
                                 double *dr)
{
    const int lane = threadIdx.x & 31, par = jj & 1;
    double bv = -1.0;
    int bi = -1, bc = -1;
    for (int c = lane; c < nctas; c += 32) {
        double v = __ldcg(S.v + par * nctas + c);
        int i = __ldcg(S.idx + par * nctas + c);
        if (beats(v, i, bv, bi)) {
            bv = v;
            bi = i;
            bc = c;
        }
    }
    warp_best(bv, bi, bc);
    *dr = __ldcg(S.d + par * 32 + lane);
    const double djj = __shfl_sync(0xffffffffu, *dr, jj);
    if (isnan(djj) || bc < 0) {
        *u = *dr;
        return j0 + jj;
    }
    *u = __ldcg(S.row + ((int64_t)par * nctas + bc) * 32 + lane);
    return bi;
}

/* The pivot of column j (leaf column jj) into the CTA's list, and by CTA 0 into ipiv (1-based)
 * and INFO (the first exactly zero pivot). */
__device__ static void leaf_record(int *spiv, int *ipiv, int *info, int j, int jj, int piv,
                                   double pv)
{
    if (threadIdx.x == 0) {
        spiv[jj] = piv;
        if (blockIdx.x == 0) {
            ipiv[j] = piv + 1;
            if (pv == 0.0 && *info == 0)
                *info = j + 1;
        }
    }
}

/* The CTA's best candidate from its warps' (cv, ci: the same in every lane of a warp), in
 * every lane of warp 0: *bv, *bi, and *bw the warp it came from (-1: none); the other warps
 * get nothing.  Passes the CTA's barrier: what its threads stored before is visible after. */
__device__ static void leaf_cta_best(double cv, int ci, double *bv, int *bi, int *bw)
{
    __shared__ double cand_v[LEAF_WARPS];
    __shared__ int cand_i[LEAF_WARPS];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (lane == 0) {
        cand_v[wid] = cv;
        cand_i[wid] = ci;
    }
    __syncthreads();
    if (wid == 0) {
        *bv = lane < LEAF_WARPS ? cand_v[lane] : -1.0;
        *bi = lane < LEAF_WARPS ? cand_i[lane] : -1;
        *bw = *bi >= 0 ? lane : -1;
        warp_best(*bv, *bi, *bw);
    }
}

/* Warp 0: the CTA's candidate into the slots of parity par: |a| (bv), its panel row (bi, -1:
 * none) and the lane's entry of that row. */
__device__ static void leaf_publish(const leaf_ws &S, int nctas, int par, double bv, int bi,
                                    double entry)
{
    const int lane = threadIdx.x & 31;
    S.row[((int64_t)par * nctas + blockIdx.x) * 32 + lane] = entry;
    if (lane == 0) {
        S.v[par * nctas + blockIdx.x] = bv;
        S.idx[par * nctas + blockIdx.x] = bi;
    }
}

/* After the last column: the leaf's w pivots (spiv, complete in every CTA) composed into one
 * permutation of at most 2w rows and applied to the panel's columns outside the leaf. */
__device__ static void leaf_interchange_rest(double *A, int n, int nb, int j0, int w,
                                             const int *spiv)
{
    __shared__ int perm_to[2 * LEAF_W], perm_from[2 * LEAF_W];
    __shared__ int perm_n;
    __shared__ double buf[2 * LEAF_W][33];
    if (n <= w)
        return;
    __syncthreads(); /* spiv complete */
    leaf_compose(spiv, j0, w, perm_to, perm_from, &perm_n);
    __syncthreads();
    leaf_permute_outside(A, n, nb, j0, w, blockIdx.x, gridDim.x, perm_to, perm_from, perm_n, buf);
}

/* Tall leaves (rows in global memory): the leaf is copied to a column-major workspace W (its
 * R = m - j0 rows, leading dimension R, after the slots), factored there with a THREAD per row,
 * and copied back.  In W a warp's 32 consecutive rows of one column are one coalesced access,
 * so a thread can read and write its own row's columns at full width; in the row-major panel a
 * row-per-thread access is 32 rows 8 KB apart per instruction (tried: 0.8x a warp-per-row
 * kernel, since removed) and a warp per row spends two shuffles on every row (a 65536 x 1024
 * panel on 16 CTAs took 89 ms that way; docs/performance.md).  Thread gt owns the rows
 * gt + k*T of W (T threads in all); at column jj it loads the multiplier's entry and every
 * entry right of it of each of its rows at once, updates them with the pivot row (from shared
 * memory) and stores them.  The copies in and out go through a shared tile per warp (dynamic
 * shared memory: LEAF_TALL_SMEM).  The CTA's candidate row and the next diagonal row are read
 * back from W by warp 0 after the CTA's barrier. */
#define LEAF_TILE_LD 33 /* a tile row's stride in doubles: no bank conflict either way */
#define LEAF_TALL_SMEM (LEAF_WARPS * 32 * LEAF_TILE_LD * sizeof(double))

/* The two thread-per-row kernels' pivot of leaf column jj: leaf_pivot, leaf_record, the pivot
 * row (su_w) and the diagonal row before the interchange (sd_w) in the warp's shared rows. */
struct leaf_col {
    int pr;      /* the pivot row, as a row of W */
    double pv;   /* the pivot */
    bool scale;  /* pv != 0 */
    bool recip;  /* scale by the reciprocal (|pv| >= DBL_MIN) */
    double rpv;  /* 1 / pv when scale && recip */
};

__device__ static leaf_col leaf_col_pivot(const leaf_ws &S, int nctas, int j0, int jj, int *spiv,
                                          int *ipiv, int *info, double *su_w, double *sd_w)
{
    const int lane = threadIdx.x & 31;
    double u, dr;
    leaf_col p;
    const int piv = leaf_pivot(S, nctas, j0, jj, &u, &dr);
    p.pr = piv - j0;
    p.pv = __shfl_sync(0xffffffffu, u, jj);
    p.scale = p.pv != 0.0;
    p.recip = fabs(p.pv) >= DBL_MIN;
    p.rpv = p.scale && p.recip ? 1.0 / p.pv : 0.0;
    leaf_record(spiv, ipiv, info, j0 + jj, jj, piv, p.pv);
    su_w[lane] = u;
    sd_w[lane] = dr;
    __syncwarp();
    return p;
}

/* A warp's 32 leaf rows [base, base + 32) (those below R) between the panel and its shared tile
 * (row i of the tile: leaf row base + i), a row at a time, coalesced. */
__device__ static void leaf_tile_in(double *tile, const double *A, int nb, int j0, int w, int R,
                                    int base)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int i = 0; i < 32; i++)
        if (base + i < R && lane < w)
            tile[i * LEAF_TILE_LD + lane] = A[(int64_t)(j0 + base + i) * nb + j0 + lane];
    __syncwarp();
}

__device__ static void leaf_tile_out(const double *tile, double *A, int nb, int j0, int w, int R,
                                     int base)
{
    const int lane = threadIdx.x & 31;
    __syncwarp();
#pragma unroll 4
    for (int i = 0; i < 32; i++)
        if (base + i < R && lane < w)
            A[(int64_t)(j0 + base + i) * nb + j0 + lane] = tile[i * LEAF_TILE_LD + lane];
    __syncwarp();
}

__global__ void __launch_bounds__(LEAF_THREADS)
hyt_dgetrf_leaf_tall_kernel(double *A, int m, int n, int nb, int j0, int w, int *ipiv,
                            int *info, double *ws, int nctas)
{
    cg::grid_group grid = cg::this_grid();
    extern __shared__ double tiles[]; /* [LEAF_WARPS][32][LEAF_TILE_LD] */
    __shared__ double su[LEAF_WARPS][LEAF_W]; /* the pivot row, as each warp chose it */
    __shared__ double sd[LEAF_WARPS][LEAF_W]; /* the diagonal row before the interchange */
    __shared__ int spiv[LEAF_W];

    const leaf_ws S = leaf_slots(ws, nctas);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int64_t T = (int64_t)nctas * LEAF_THREADS;
    const int64_t gt = (int64_t)blockIdx.x * LEAF_THREADS + threadIdx.x, g0 = gt - lane;
    const int R = m - j0; /* W's rows and leading dimension; row r of W is panel row j0 + r */
    const int nk = gt < R ? (int)((R - gt + T - 1) / T) : 0;  /* rows gt + k*T: the thread's */
    const int nkw = g0 < R ? (int)((R - g0 + T - 1) / T) : 0; /* g0 + k*T + 0..31: the warp's */
    double *const W = (double *)((char *)ws + hyt_panel_leaf_slots_bytes(m));
    double *const su_w = su[wid], *const sd_w = sd[wid];
    double *const tile = tiles + wid * 32 * LEAF_TILE_LD;

    for (int k = 0; k < nkw; k++) { /* in: a row at a time from A, a column at a time to W */
        const int base = (int)(g0 + k * T), rr = base + lane;
        leaf_tile_in(tile, A, nb, j0, w, R, base);
        if (rr < R)
            for (int c = 0; c < w; c++)
                W[(int64_t)c * R + rr] = tile[lane * LEAF_TILE_LD + c];
        __syncwarp();
    }

    for (int jj = -1; jj < w; jj++) {
        const int nc = jj + 1; /* the next column, whose candidates this step finds */
        double cv = -1.0;
        int ci = -1; /* a row of W */
        if (jj < 0) {
            for (int k = 0; k < nk; k++) {
                const int rr = (int)(gt + k * T);
                const double v = fabs(W[rr]);
                if (v > cv) {
                    cv = v;
                    ci = rr;
                }
            }
        } else {
            const leaf_col p = leaf_col_pivot(S, nctas, j0, jj, spiv, ipiv, info, su_w, sd_w);
            const int nr = w - nc; /* columns right of the multipliers' */
            double *const Wj = W + (int64_t)jj * R; /* W has < 2^31 entries: int offsets */
            for (int k = 0; k < nk; k++) {
                const int rr = (int)(gt + k * T);
                if (rr < jj)
                    continue;
                if (rr == jj) { /* the pivot row comes here */
                    for (int c = 0; c < w; c++)
                        W[(int64_t)c * R + rr] = su_w[c];
                    continue;
                }
                const bool moved = rr == p.pr; /* receives the diagonal row */
                double l, x[LEAF_W - 1];
                if (moved) {
                    l = sd_w[jj];
                    for (int c = 0; c < jj; c++)
                        W[(int64_t)c * R + rr] = sd_w[c];
#pragma unroll
                    for (int h = 0; h < LEAF_W - 1; h++)
                        x[h] = h < nr ? sd_w[nc + h] : 0.0;
                } else { /* all loads of the row in flight together */
                    l = Wj[rr];
#pragma unroll
                    for (int h = 0; h < LEAF_W - 1; h++)
                        x[h] = h < nr ? Wj[(h + 1) * R + rr] : 0.0;
                }
                if (p.scale)
                    l = p.recip ? l * p.rpv : l / p.pv;
                Wj[rr] = l;
#pragma unroll
                for (int h = 0; h < LEAF_W - 1; h++)
                    if (h < nr) {
                        x[h] = __fma_rn(-l, su_w[nc + h], x[h]);
                        Wj[(h + 1) * R + rr] = x[h];
                    }
                if (nr > 0) {
                    const double v = fabs(x[0]);
                    if (v > cv) { /* NaN never is; the first of equal values stays */
                        cv = v;
                        ci = rr;
                    }
                }
            }
        }
        if (nc >= w)
            break;
        /* the CTA's candidate from its threads'; its row and the next diagonal row from W,
         * where their owners stored them before the CTA's barrier */
        int t = 0;
        warp_best(cv, ci, t);
        double bv;
        int bi, bw;
        leaf_cta_best(cv, ci, &bv, &bi, &bw);
        if (wid == 0) {
            leaf_publish(S, nctas, nc & 1, bv, bi >= 0 ? j0 + bi : -1,
                         bi >= 0 && lane < w ? __ldcg(W + (int64_t)lane * R + bi) : 0.0);
            if (blockIdx.x == 0) /* W's row nc (nc < w <= 32) is thread nc's */
                S.d[(nc & 1) * 32 + lane] = lane < w ? __ldcg(W + (int64_t)lane * R + nc) : 0.0;
        }
        grid.sync();
    }

    for (int k = 0; k < nkw; k++) { /* out: the same way back */
        const int base = (int)(g0 + k * T), rr = base + lane;
        if (rr < R)
            for (int c = 0; c < w; c++)
                tile[lane * LEAF_TILE_LD + c] = W[(int64_t)c * R + rr];
        leaf_tile_out(tile, A, nb, j0, w, R, base);
    }
    leaf_interchange_rest(A, n, nb, j0, w, spiv);
}

/* Leaves with at most 16 rows a thread (HYT_PANEL_LEAF_RPT_MAX): a THREAD per row with its
 * rows' entries in registers, the leaf's columns in sub-blocks of S = 32 / RPT (RPT: rows a
 * thread, a power of two), so that x[RPT][S] stays at 32 doubles.  Thread gt owns the W rows
 * gt + k*T (T threads in all, row r of W is panel row j0 + r, as in the tall kernel).
 *
 * A sub-block of columns [c0, c0 + sw) is factored in registers, column by column, with the
 * slots and the pivot rule of the other kernels (the candidate rows and the diagonal row carry
 * the sub-block's entries).  Then CTA 0 applies the sub-block's interchanges, composed, to W's
 * other columns and solves the sub-block's rows of the columns right of it (U12 = inv(L11) A12,
 * the same FMAs in the same order as the column-by-column update), one grid barrier, and every
 * thread updates the columns right of the sub-block of its rows below it with U12 from shared
 * memory (A22 -= L21 U12, in column order: the same operations as dgetf2's rank-1 updates).
 * So W is read and written once per sub-block instead of once per column.  The first sub-block
 * comes straight from the copy-in's tiles and the last goes straight to the copy-out's; with
 * S = 32 (one row a thread) the leaf never touches W. */
template <int RPT>
__global__ void __launch_bounds__(LEAF_THREADS)
hyt_dgetrf_leaf_rows_kernel(double *A, int m, int n, int nb, int j0, int w, int *ipiv,
                            int *info, double *ws, int nctas)
{
    constexpr int S = LEAF_W / RPT;            /* a sub-block's columns */
    constexpr int G = RPT >= 8 ? 1 : 8 / RPT; /* columns of the update in flight together */
    cg::grid_group grid = cg::this_grid();
    extern __shared__ double tiles[]; /* [LEAF_WARPS][32][LEAF_TILE_LD]; CTA 0's buffers too */
    __shared__ double su[LEAF_WARPS][LEAF_W]; /* the pivot row, as each warp chose it */
    __shared__ double sd[LEAF_WARPS][LEAF_W]; /* the diagonal row before the interchange */
    __shared__ double crow[LEAF_WARPS][S];    /* each warp's candidate row */
    __shared__ double u12[S][LEAF_W];         /* the sub-block's rows right of it */
    __shared__ int spiv[LEAF_W];
    __shared__ int perm_to[2 * LEAF_W], perm_from[2 * LEAF_W], perm_n;

    const leaf_ws SL = leaf_slots(ws, nctas);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int T = nctas * LEAF_THREADS;
    const int gt = blockIdx.x * LEAF_THREADS + threadIdx.x, g0 = gt - lane;
    const int R = m - j0; /* W's rows and leading dimension */
    const int nkw = g0 < R ? (R - g0 + T - 1) / T : 0; /* the warp's row groups (<= RPT) */
    double *const W = (double *)((char *)ws + hyt_panel_leaf_slots_bytes(m));
    double *const tile = tiles + wid * 32 * LEAF_TILE_LD;
    double *const su_w = su[wid], *const sd_w = sd[wid];
    double x[RPT][S];

    /* in: a row at a time from A into the warp's tile; the first sub-block to registers, the
     * rest of the row to W */
#pragma unroll
    for (int k = 0; k < RPT; k++) {
        const int base = g0 + k * T, r = base + lane;
        if (k < nkw)
            leaf_tile_in(tile, A, nb, j0, w, R, base);
#pragma unroll
        for (int q = 0; q < S; q++)
            x[k][q] = k < nkw && r < R && q < w ? tile[lane * LEAF_TILE_LD + q] : 0.0;
        if (k < nkw && r < R)
            for (int c = S; c < w; c++)
                W[(int64_t)c * R + r] = tile[lane * LEAF_TILE_LD + c];
        __syncwarp();
    }

    for (int c0 = 0; c0 < w; c0 += S) {
        const int sw = w - c0 < S ? w - c0 : S, cr = c0 + sw; /* cr: the first column right */
        for (int jq = -1; jq < sw; jq++) {
            const int jj = c0 + jq, nc = jj + 1; /* leaf columns: pivot, next */
            if (jq >= 0) {
                const leaf_col p =
                    leaf_col_pivot(SL, nctas, j0, jj, spiv, ipiv, info, su_w, sd_w);
#pragma unroll
                for (int k = 0; k < RPT; k++) {
                    const int r = gt + k * T;
                    if (k >= nkw || r >= R || r < jj)
                        continue;
                    if (r == jj) { /* the pivot row comes here */
#pragma unroll
                        for (int q = 0; q < S; q++)
                            if (q < sw)
                                x[k][q] = su_w[c0 + q];
                        continue;
                    }
                    if (r == p.pr) /* receives the diagonal row */
#pragma unroll
                        for (int q = 0; q < S; q++)
                            if (q < sw)
                                x[k][q] = sd_w[c0 + q];
                    double l = 0.0;
#pragma unroll
                    for (int q = 0; q < S; q++)
                        if (q == jq)
                            l = x[k][q];
                    if (p.scale)
                        l = p.recip ? l * p.rpv : l / p.pv;
#pragma unroll
                    for (int q = 0; q < S; q++) {
                        if (q == jq)
                            x[k][q] = l;
                        else if (q > jq && q < sw)
                            x[k][q] = __fma_rn(-l, su_w[c0 + q], x[k][q]);
                    }
                }
            }
            if (jq + 1 >= sw)
                break;
            /* candidates for column nc (rows >= nc), the diagonal row nc's entries */
            double cv = -1.0;
            int ci = -1, kb = -1;
#pragma unroll
            for (int k = 0; k < RPT; k++) {
                const int r = gt + k * T;
                if (k >= nkw || r >= R || r < nc)
                    continue;
                double v = 0.0;
#pragma unroll
                for (int q = 0; q < S; q++)
                    if (q == jq + 1)
                        v = fabs(x[k][q]);
                if (v > cv) { /* NaN never is; the first of equal values stays */
                    cv = v;
                    ci = r;
                    kb = k;
                }
                if (r == nc) {
#pragma unroll
                    for (int q = 0; q < S; q++)
                        if (q < sw)
                            SL.d[(nc & 1) * 32 + c0 + q] = x[k][q];
                    /* the entries outside the sub-block are never used, but every warp
                     * reads all 32 (leaf_pivot): written, so that none reads memory never
                     * written (compute-sanitizer's initcheck) */
                    for (int q = 0; q < LEAF_W; q++)
                        if (q < c0 || q >= cr)
                            SL.d[(nc & 1) * 32 + q] = 0.0;
                }
            }
            int t = lane;
            warp_best(cv, ci, t);
            if (t == lane && ci >= 0)
#pragma unroll
                for (int k = 0; k < RPT; k++)
                    if (k == kb)
#pragma unroll
                        for (int q = 0; q < S; q++)
                            crow[wid][q] = x[k][q];
            double bv;
            int bi, bw;
            leaf_cta_best(cv, ci, &bv, &bi, &bw);
            if (wid == 0)
                leaf_publish(SL, nctas, nc & 1, bv, bi >= 0 ? j0 + bi : -1,
                             bi >= 0 && lane >= c0 && lane < cr ? crow[bw][lane - c0] : 0.0);
            if (nctas > 1)
                grid.sync();
            else
                __syncthreads();
        }
        if (S == LEAF_W || (cr >= w && c0 == 0))
            break; /* one sub-block: nothing else in W */
        /* the sub-block to W (the last one goes out from registers); CTA 0: its interchanges
         * on W's other columns, then U12 */
        if (cr < w) {
#pragma unroll
            for (int k = 0; k < RPT; k++) {
                const int r = gt + k * T;
                if (k < nkw && r < R)
#pragma unroll
                    for (int q = 0; q < S; q++)
                        if (q < sw)
                            W[(int64_t)(c0 + q) * R + r] = x[k][q];
            }
        }
        if (blockIdx.x == 0) {
            __syncthreads(); /* spiv and the sub-block's rows c0..cr-1 (CTA 0's) stored */
            leaf_compose(spiv + c0, j0 + c0, sw, perm_to, perm_from, &perm_n);
            __syncthreads();
            const int ne = perm_n, no = w - sw; /* W's columns outside the sub-block */
            double *const buf = tiles;          /* [2 LEAF_W][LEAF_W] */
            for (int i = threadIdx.x; i < ne * no; i += LEAF_THREADS) {
                const int e = i / no, cl = i % no, c = cl < c0 ? cl : cl + sw;
                buf[i] = __ldcg(W + (int64_t)c * R + perm_from[e] - j0);
            }
            __syncthreads();
            for (int i = threadIdx.x; i < ne * no; i += LEAF_THREADS) {
                const int e = i / no, cl = i % no, c = cl < c0 ? cl : cl + sw;
                W[(int64_t)c * R + perm_to[e] - j0] = buf[i];
            }
            __syncthreads();
            /* U12 = inv(L11) A12 in shared memory, a thread per column, then to W */
            double *const l11 = buf; /* [S][S] after the interchanges are done with buf */
            for (int i = threadIdx.x; i < sw * sw; i += LEAF_THREADS)
                l11[i] = __ldcg(W + (int64_t)(c0 + i % sw) * R + c0 + i / sw); /* [q][p] */
            for (int i = threadIdx.x; i < sw * (w - cr); i += LEAF_THREADS) {
                const int q = i / (w - cr), c = cr + i % (w - cr);
                u12[q][c] = __ldcg(W + (int64_t)c * R + c0 + q);
            }
            __syncthreads();
            if (threadIdx.x < w - cr) {
                const int c = cr + threadIdx.x;
                for (int q = 1; q < sw; q++) {
                    double a = u12[q][c];
                    for (int p = 0; p < q; p++)
                        a = __fma_rn(-l11[q * sw + p], u12[p][c], a);
                    u12[q][c] = a;
                    W[(int64_t)c * R + c0 + q] = a;
                }
            }
        }
        if (nctas > 1)
            grid.sync();
        else
            __syncthreads();
        if (cr >= w)
            break;
        /* U12 to shared memory; the rows below the sub-block: A22 -= L21 U12 */
        for (int i = threadIdx.x; i < sw * (w - cr); i += LEAF_THREADS) {
            const int q = i / (w - cr), c = cr + i % (w - cr);
            u12[q][c] = __ldcg(W + (int64_t)c * R + c0 + q);
        }
        __syncthreads();
        for (int cg0 = cr; cg0 < w; cg0 += G) {
            double y[RPT][G];
#pragma unroll
            for (int k = 0; k < RPT; k++) {
                const int r = gt + k * T;
#pragma unroll
                for (int g = 0; g < G; g++)
                    y[k][g] = k < nkw && r < R && r >= cr && cg0 + g < w
                                  ? __ldcg(W + (int64_t)(cg0 + g) * R + r) : 0.0;
            }
#pragma unroll
            for (int k = 0; k < RPT; k++) {
                const int r = gt + k * T;
                if (k >= nkw || r >= R || r < cr)
                    continue;
#pragma unroll
                for (int g = 0; g < G; g++) {
                    if (cg0 + g >= w)
                        continue;
                    double v = y[k][g];
#pragma unroll
                    for (int q = 0; q < S; q++)
                        if (q < sw)
                            v = __fma_rn(-x[k][q], u12[q][cg0 + g], v);
                    W[(int64_t)(cg0 + g) * R + r] = v;
                }
            }
        }
        /* the next sub-block to registers (its rows above it included: U, unchanged) */
        const int c1 = cr, sw1 = w - c1 < S ? w - c1 : S;
#pragma unroll
        for (int k = 0; k < RPT; k++) {
            const int r = gt + k * T;
#pragma unroll
            for (int q = 0; q < S; q++)
                x[k][q] = k < nkw && r < R && q < sw1 ? __ldcg(W + (int64_t)(c1 + q) * R + r)
                                                      : 0.0;
        }
    }

    /* out: the last sub-block from registers, the columns left of it from W */
    const int cl0 = (w - 1) / S * S; /* the last sub-block's first column */
#pragma unroll
    for (int k = 0; k < RPT; k++) {
        const int base = g0 + k * T, r = base + lane;
        if (k >= nkw)
            continue;
        if (r < R) {
            for (int c = 0; c < cl0; c++)
                tile[lane * LEAF_TILE_LD + c] = __ldcg(W + (int64_t)c * R + r);
#pragma unroll
            for (int q = 0; q < S; q++)
                if (cl0 + q < w)
                    tile[lane * LEAF_TILE_LD + cl0 + q] = x[k][q];
        }
        leaf_tile_out(tile, A, nb, j0, w, R, base);
    }
    leaf_interchange_rest(A, n, nb, j0, w, spiv);
}

/* The thread-per-row leaves that keep a leaf row in registers (x, LEAF_W entries; mine: the
 * thread has a row): the row in from the panel through the warp's shared tile (the columns:
 * leaf_row_step or leaf_cta_columns, hyt_gpu_leaf.cuh) ... */
__device__ __forceinline__ static void leaf_row_in(double (&x)[LEAF_W], double *tile,
                                                   const double *A, int nb, int j0, int w, int R,
                                                   int base, bool mine)
{
    const int lane = threadIdx.x & 31;
    leaf_tile_in(tile, A, nb, j0, w, R, base);
#pragma unroll
    for (int k = 0; k < LEAF_W; k++)
        x[k] = mine && k < w ? tile[lane * LEAF_TILE_LD + k] : 0.0;
}

/* ... and the row back to the panel. */
__device__ __forceinline__ static void leaf_row_out(const double (&x)[LEAF_W], double *tile,
                                                    double *A, int nb, int j0, int w, int R,
                                                    int base, bool mine)
{
    const int lane = threadIdx.x & 31;
    if (mine)
#pragma unroll
        for (int k = 0; k < LEAF_W; k++)
            if (k < w)
                tile[lane * LEAF_TILE_LD + k] = x[k];
    leaf_tile_out(tile, A, nb, j0, w, R, base);
}

/* Short leaves (at most LEAF_CLUSTER_MAX * LEAF_THREADS rows, and no more CTAs than the caller
 * allows): ONE thread-block cluster of P = ceil(R / LEAF_THREADS) CTAs, a thread per row with
 * its row's 32 entries in registers for the whole leaf, the column loop fully unrolled (no
 * run-time register index).  No grid barrier and no global slots: a column's chain is
 *   1. each warp's candidate by the hardware's 32-bit max-reductions: |a| >= 0 orders as its
 *      bit pattern, so the key is the high word + 1 (0: no candidate, NaN never is one), then
 *      the low word among the lanes with the largest high word, then the lowest such lane by a
 *      ballot (rows ascend with the lane, the warp and the CTA, so the lowest lane is LAPACK's
 *      lowest row on ties); the winner stores its key and row number to the warp's slot; the
 *      diagonal row's owner (CTA 0: jj < 32) stores its row to its CTA's slot;
 *   2. CTA barrier; every warp reduces the warps' keys the same way; the CTA's winner stores its
 *      row to the CTA's slot (parity jj & 1), thread 0 the key and row number;
 *   3. cluster barrier (release / acquire);
 *   4. warp 0 of every CTA reads the P slots through distributed shared memory and picks the
 *      same pivot as every other kernel (the diagonal row when its entry is NaN or nobody offers
 *      one), copies the pivot row and the diagonal row to local shared memory; CTA barrier;
 *   5. the owners of rows jj and p swap; every row below jj scales and updates its entries.
 * One row stored a CTA and a column (every warp's candidate stored its row until the
 * thirty-eighth stop: a lane's 16-byte shared store costs the SM 4 cycles, docs/performance.md).
 * Parity-two slots suffice: a CTA writes parity p again only after the next cluster barrier,
 * which every CTA passes only after its warp 0 has read parity p.  The copy in and out and the
 * interchanges on the panel's other columns are the other kernels'.  Short panels alone are
 * 1.4-2.3x faster than with the cooperative kernels (docs/performance.md, twenty-fifth stop;
 * the column chain measured by tools/leaf_cluster.cu). */
#define LEAF_CLUSTER_MAX 16

struct leaf_cl_slots {
    unsigned hi[2], lo[2]; /* the CTA's best key (hi 0: none) */
    int r[2];              /* its leaf row */
    double crow[2][LEAF_W]; /* that row */
    double drow[2][LEAF_W];
};

__global__ void __launch_bounds__(LEAF_THREADS, 1)
hyt_dgetrf_leaf_cluster_kernel(double *A, int m, int n, int nb, int j0, int w, int *ipiv,
                               int *info, double *ws, int nctas)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    (void)ws;
    (void)nctas;
    cg::cluster_group cl = cg::this_cluster();
    extern __shared__ double tiles[]; /* [LEAF_WARPS][32][LEAF_TILE_LD] */
    __shared__ leaf_cl_slots S;
    __shared__ unsigned whi[LEAF_WARPS], wlo[LEAF_WARPS];
    __shared__ int wr[LEAF_WARPS];
    __shared__ double su[LEAF_W], sd[LEAF_W];
    __shared__ int spiv[LEAF_W], piv_s;
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int P = (int)gridDim.x, c = (int)blockIdx.x; /* the grid is one cluster */
    const int R = m - j0, base = c * LEAF_THREADS + wid * 32, r = base + lane;
    const bool mine = r < R;
    double *const tile = tiles + wid * 32 * LEAF_TILE_LD;
    double x[LEAF_W];
    leaf_row_in(x, tile, A, nb, j0, w, R, base, mine);

#pragma unroll
    for (int jj = 0; jj < LEAF_W; jj++) {
        if (jj >= w)
            break;
        const int par = jj & 1;
        /* 1. the warp's candidate (its key); the diagonal row's owner's row */
        {
            unsigned mh, ml;
            const int wl = leaf_warp_candidate(x[jj], mine && r >= jj && !isnan(x[jj]), &mh,
                                               &ml);
            if (lane == wl) {
                whi[wid] = mh;
                wlo[wid] = ml;
                wr[wid] = r;
            }
            if (c == 0 && threadIdx.x == jj)
#pragma unroll
                for (int k = 0; k < LEAF_W; k++)
                    S.drow[par][k] = x[k];
        }
        __syncthreads();
        /* 2. the CTA's, in every warp; its row's owner stores the row to the CTA's slot */
        {
            const unsigned h = lane < LEAF_WARPS ? whi[lane] : 0u;
            const unsigned l = lane < LEAF_WARPS ? wlo[lane] : 0u;
            unsigned bh, bl;
            const int bw = leaf_key_argmax(h, l, &bh, &bl);
            const int br = wr[bw];
            if (bh != 0u && r == br)
#pragma unroll
                for (int k = 0; k < LEAF_W; k++)
                    S.crow[par][k] = x[k];
            if (threadIdx.x == 0) {
                S.hi[par] = bh;
                S.lo[par] = bl;
                S.r[par] = br;
            }
        }
        /* 3. the cluster's */
        cl.sync();
        /* 4. the pivot, the same in every CTA */
        if (wid == 0) {
            unsigned h = 0u, l = 0u;
            if (lane < P) {
                const leaf_cl_slots *Rs = cl.map_shared_rank(&S, lane);
                h = Rs->hi[par];
                l = Rs->lo[par];
            }
            unsigned bh, bl;
            const int bc = leaf_key_argmax(h, l, &bh, &bl);
            const leaf_cl_slots *D = cl.map_shared_rank(&S, 0);
            const double dl = D->drow[par][lane];
            const double djj = __shfl_sync(full, dl, jj);
            int p = jj;
            double ul = dl;
            if (!isnan(djj) && bh != 0u) {
                const leaf_cl_slots *Q = cl.map_shared_rank(&S, bc);
                p = Q->r[par];
                ul = Q->crow[par][lane];
            }
            su[lane] = ul;
            sd[lane] = dl;
            if (lane == 0)
                piv_s = p;
        }
        __syncthreads();
        /* 5. the interchange, the multipliers, the update */
        const int p = piv_s;
        const double pv = su[jj];
        leaf_record(spiv, ipiv, info, j0 + jj, jj, j0 + p, pv);
        leaf_row_step(x, r, jj, p, pv, su, sd, mine);
    }

    leaf_row_out(x, tile, A, nb, j0, w, R, base, mine);
    leaf_interchange_rest(A, n, nb, j0, w, spiv);
    cl.sync(); /* no CTA leaves while another may still read its shared memory */
#else
    (void)A, (void)m, (void)n, (void)nb, (void)j0, (void)w, (void)ipiv, (void)info, (void)ws;
    (void)nctas;
#endif
}

/* A leaf takes the grid kernel on up to LEAF_GRID_SPREAD times the CTAs the caller allows the
 * other cooperative kernels (gpu.panel_ctas): with the default 16, leaves of up to 32768 rows
 * on up to 64 CTAs.  Measured on one H200 (docs/performance.md, thirty-ninth stop): the LU at
 * N = 32768 3% faster than with the rows kernel on 16 CTAs; at 65536, where the leaves of more
 * than 32768 rows then take the rows kernel on 16 CTAs, a tie, where gpu.panel_ctas = 64 (the
 * rows kernel on 64 CTAs, two rows a thread, for those leaves) was 1.3% slower. */
#define LEAF_GRID_SPREAD 4

#define GK HYT_PANEL_GRID_KEY
#define GR HYT_PANEL_GRID_ROW

struct leaf_grid_words {
    unsigned long long *key;  /* [2][nctas][GK]: the CTA's key (hi, lo; hi 0: none), its row */
    unsigned long long *row;  /* [2][nctas][GR]: that row, two words a double (low, high) */
    unsigned long long *diag; /* [2][GR]: the diagonal row */
};

/* Leaves of one row a thread on at most LEAF_GRID_SPREAD * nctas CTAs (more than
 * LEAF_CLUSTER_MAX * LEAF_THREADS rows, or no cluster on this device): P = ceil(R /
 * LEAF_THREADS) CTAs of a cooperative launch (all resident at once), thread gt owning leaf row
 * gt with its 32 entries in registers for the whole leaf, the column loop in passes of
 * HYT_PANEL_LEAF_PASS columns (below), and the interchanges as relabellings, as in the one-CTA
 * loop (leaf_cta_columns): each thread keeps its row's place in LAPACK's order (lr, its logical
 * row) and no row moves between threads.  The CTAs exchange tagged words (a 32-bit value and
 * the column's tag in one 64-bit word, hyt_gpu_sync.cuh) instead of passing a grid barrier: a
 * reader polls the words it needs until they carry the column's tag.  Column jj (tag jj + 1,
 * words of parity jj & 1):
 *   1. each warp's candidate (leaf_key_lowest over its rows of logical row >= jj) to its shared
 *      slot; the thread of logical row jj writes its entry jj to the diagonal words (its row,
 *      entries jj and right, by its warp through shared memory when that entry is NaN: then
 *      the row is the pivot row);
 *   2. CTA barrier; every warp reduces the warps' slots; threads 0-2 write the key and the
 *      logical row to the CTA's key words, then the winner's warp its row to the CTA's row
 *      words (through shared memory, one entry a lane);
 *   3. warp 0 polls the P CTAs' key words and the diagonal entry, picks the pivot p as every
 *      kernel does (the diagonal row when its entry is NaN or nobody offers one, else the
 *      largest |a|, the lowest row on ties), polls the pivot row's words (its CTA's row words,
 *      or the diagonal words) into shared memory; CTA barrier;
 *   4. the threads of logical rows p and jj swap labels; every row below jj scales its entry jj
 *      and updates entry jj + 1 (the next column's pivot search needs no more); the rest of the
 *      update waits until the next column's step 2 is done and runs while warp 0 polls (the
 *      pivot rows of two columns in shared memory, by parity); a row published before it (the
 *      CTA's winner, a NaN diagonal row) gets it on its way out (leaf_put_row_warp): the
 *      same FMAs in the same order.  32768 x 512 panels on 64 SMs 2-4% faster, alone and beside
 *      the update (docs/performance.md, fifty-eighth stop).
 * Every word a reader waits for is written in the same column, and a CTA writes the words of
 * parity p again (column jj + 2) only after it has read every CTA's words of column jj + 1,
 * which each CTA writes after reading those of column jj: so a word never carries a later tag
 * than the one awaited.  Each CTA zeroes its words before one grid barrier at the start, so no
 * word from an earlier launch carries this launch's tags.  At the end each row goes to its
 * logical place (every CTA has read its rows before that barrier), through the CTA's tiles
 * where that place is the CTA's, so that the stores coalesce.  A 32768 x 512
 * panel on 64 CTAs: 2.0 ms against 4.4 with the rows kernel there (one row a thread, rows moved
 * between threads, a grid barrier a column), 1.65x cuSOLVER's; a leaf of 32768 rows ~108 us,
 * ~124 before its rows went out through the tiles and in with all loads in flight
 * (docs/performance.md, thirty-ninth and fortieth stops); a grid barrier a column instead of
 * the tagged words took the same.
 * The passes (the row's places and helpers: hyt_gpu_geometry.h): the loop over the passes is
 * not unrolled, so that the kernel holds 8 columns' code (111 KB of machine code) instead of
 * LEAF_W columns' (314 KB).  A leaf's kernel reads its code once a leaf, and beside the
 * trailing update, whose traffic evicts it from L2, the unrolled kernel's code came from device
 * memory: every step of a column took 45-90% more cycles, even those without global memory; in
 * passes of 8, the 32768 x 512 panel beside the update 2.64 -> 2.27 ms, alone the same, the LU
 * at N = 16384 7% faster (docs/performance.md, fifty-seventh stop; passes of 4: 75 KB, a little
 * slower; the loop rolled whole, 33 KB, 17% slower alone). */
__global__ void __launch_bounds__(LEAF_THREADS, 1)
hyt_dgetrf_leaf_grid_kernel(double *A, int m, int n, int nb, int j0, int w, int *ipiv,
                            int *info, double *ws, int nctas)
{
    cg::grid_group grid = cg::this_grid();
    extern __shared__ double tiles[]; /* [LEAF_WARPS][32][LEAF_TILE_LD], the rows in and out */
    __shared__ leaf_cta_slots S;
    __shared__ int spiv[LEAF_W], piv_s;
    __shared__ unsigned char filled[LEAF_THREADS]; /* at the end: the tiles' rows to store */
    __shared__ double wrow[LEAF_W];                /* the CTA's winning row, to its words */
    __shared__ double drow[LEAF_W];                /* the diagonal row when its entry is NaN */
    __shared__ double urow[2][LEAF_W];             /* the pivot rows, by the column's parity */
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, c = (int)blockIdx.x;
    const int R = m - j0, gt = c * LEAF_THREADS + threadIdx.x, base = gt - lane;
    const bool mine = gt < R;
    leaf_grid_words G;
    G.key = (unsigned long long *)ws;
    G.row = G.key + 2 * GK * nctas;
    G.diag = G.row + 2 * GR * nctas;
    double *const tile = tiles + wid * 32 * LEAF_TILE_LD;
    double x[LEAF_W];
    leaf_row_in(x, tile, A, nb, j0, w, R, base, mine);
    for (int i = threadIdx.x; i < 2 * (GK + GR); i += LEAF_THREADS) { /* the CTA's, 2 parities */
        const int par = i / (GK + GR), e = i % (GK + GR);
        st_relaxed_u64(e < GK ? G.key + (par * nctas + c) * GK + e
                              : G.row + ((int64_t)par * nctas + c) * GR + e - GK, 0ull);
    }
    if (c == 0)
        for (int i = threadIdx.x; i < 2 * GR; i += LEAF_THREADS)
            st_relaxed_u64(G.diag + i, 0ull);
    grid.sync();
    int lr = gt;

#pragma unroll 1
    for (int g = 0; g < w; g += HYT_PANEL_LEAF_PASS) {
#pragma unroll
        for (int qq = 0; qq < HYT_PANEL_LEAF_PASS; qq++) {
            const int jj = g + qq;
            if (jj >= w)
                break;
            const int par = jj & 1;
            const unsigned tag = (unsigned)jj + 1u;
            unsigned long long *const kw = G.key + (int64_t)par * nctas * GK;
            unsigned long long *const rw = G.row + (int64_t)par * nctas * GR;
            unsigned long long *const dw = G.diag + par * GR;
            double *const un = urow[par];
            /* the rows below the last column's pivot owe its update right of jj (u, multiplier
             * lo); only entry jj is up to date */
            const double *const uo = urow[par ^ 1];
            const bool owe = jj > 0 && mine && lr >= jj;
            const double lo = qq > 0 ? x[qq - 1] : x[LEAF_W - 1];
            /* 1. the warp's candidate; the diagonal entry (its row only when it is the pivot) */
            leaf_warp_slot(x[qq], jj, lr, mine, wid, S);
            const bool dnan = mine && lr == jj && isnan(x[qq]);
            if (mine && lr == jj && !dnan)
                leaf_put_entry(dw, x[qq], jj, tag);
            if (__any_sync(0xffffffffu, dnan))
                leaf_put_row_warp(dw, x, qq, g, tag, dnan, drow, owe, lo, uo);
            __syncthreads();
            /* 2. the CTA's, in every warp; its key, then its row, to the CTA's words */
            {
                unsigned bh, bl;
                const unsigned br = leaf_cta_pick(S, lane, &bh, &bl);
                if (threadIdx.x < 3)
                    st_relaxed_u64(kw + c * GK + threadIdx.x,
                                   tagged(tag, threadIdx.x == 0 ? bh : threadIdx.x == 1 ? bl : br));
                const bool me = bh != 0u && (unsigned)lr == br;
                if (__any_sync(0xffffffffu, me))
                    leaf_put_row_warp(rw + (int64_t)c * GR, x, qq, g, tag, me, wrow, owe, lo, uo);
            }
            /* the last column's deferred update, while the keys travel */
            if (owe)
                hyt_leaf_pass_row_rest(x, qq, g, lo, uo);
            /* 3. the pivot, the same in every CTA, and its row */
            if (wid == 0) {
                unsigned long long bk = 0ull;
                unsigned brow = 0xffffffffu;
                int bc = -1;
                unsigned long long dlo, dhi; /* the diagonal entry, polled with the first keys */
                for (int q0 = 0; q0 < nctas; q0 += 4 * 32) { /* four CTAs a lane in flight */
                    unsigned long long k3[4][GK] = {};
                    bool ok;
                    do {
                        ok = true;
                        if (q0 == 0) {
                            dlo = ld_relaxed_u64(dw + 2 * jj);
                            dhi = ld_relaxed_u64(dw + 2 * jj + 1);
                            ok = (unsigned)(dlo >> 32) == tag && (unsigned)(dhi >> 32) == tag;
                        }
#pragma unroll
                        for (int i = 0; i < 4; i++) {
                            const int q = q0 + i * 32 + lane;
                            if (q < nctas)
#pragma unroll
                                for (int e = 0; e < GK; e++) {
                                    k3[i][e] = ld_relaxed_u64(kw + q * GK + e);
                                    ok &= (unsigned)(k3[i][e] >> 32) == tag;
                                }
                        }
                    } while (!ok);
#pragma unroll
                    for (int i = 0; i < 4; i++) {
                        const int q = q0 + i * 32 + lane;
                        const unsigned long long k =
                            (unsigned long long)(unsigned)k3[i][0] << 32 | (unsigned)k3[i][1];
                        const unsigned rq = (unsigned)k3[i][2];
                        if (q < nctas && (unsigned)k3[i][0] != 0u &&
                            (k > bk || (k == bk && rq < brow))) {
                            bk = k;
                            brow = rq;
                            bc = q;
                        }
                    }
                }
                const double djj = __hiloint2double((int)(unsigned)dhi, (int)(unsigned)dlo);
                unsigned bh, bl;
                const unsigned pr =
                    leaf_key_lowest((unsigned)(bk >> 32), (unsigned)bk, brow, &bh, &bl);
                const bool diag = isnan(djj) || bh == 0u;
                const int src = __ffs(__ballot_sync(0xffffffffu, bc >= 0 && brow == pr)) - 1;
                const int pc = __shfl_sync(0xffffffffu, bc, src < 0 ? 0 : src);
                un[lane] =
                    lane < jj ? 0.0 : leaf_get_entry(diag ? dw : rw + (int64_t)pc * GR, lane, tag);
                if (lane == 0)
                    piv_s = diag ? jj : (int)pr;
            }
            __syncthreads();
            /* 4. the interchange as a relabelling, the multipliers, the update */
            const int p = piv_s;
            const double pv = un[jj];
            leaf_record(spiv, ipiv, info, j0 + jj, jj, j0 + p, pv);
            leaf_relabel(lr, mine, jj, p);
            if (mine && lr > jj) /* the multiplier and the next column's entry; the rest waits */
                hyt_leaf_pass_row_next(x, qq, g, pv, un);
        }
        hyt_leaf_pass_rotate(x);
    }
    hyt_leaf_pass_finish(x, w);

    /* Each row to its logical place: through the CTA's tiles where that place is one of the
     * CTA's rows (all but the few that pivoting moved across CTAs), so the stores coalesce */
    const int own = lr - c * LEAF_THREADS;
    const bool here = mine && own >= 0 && own < LEAF_THREADS;
    filled[threadIdx.x] = 0;
    __syncthreads();
    if (here) {
#pragma unroll
        for (int k = 0; k < LEAF_W; k++)
            if (k < w)
                tiles[own * LEAF_TILE_LD + k] = x[k];
        filled[own] = 1;
    } else if (mine) {
#pragma unroll
        for (int k = 0; k < LEAF_W; k++)
            if (k < w)
                A[(int64_t)(j0 + lr) * nb + j0 + k] = x[k];
    }
    __syncthreads();
    {
        const int b = wid * 32; /* the warp's 32 rows of the CTA's */
#pragma unroll 4
        for (int i = 0; i < 32; i++)
            if (filled[b + i] && lane < w)
                A[(int64_t)(j0 + c * LEAF_THREADS + b + i) * nb + j0 + lane] =
                    tiles[(b + i) * LEAF_TILE_LD + lane];
    }
    leaf_interchange_rest(A, n, nb, j0, w, spiv);
}
#undef GK
#undef GR

/* Leaves of at most LEAF_THREADS rows: ONE CTA, a thread per row with its row's 32 entries in
 * registers, the column loop fully unrolled, two CTA barriers per column and the interchanges
 * as relabellings (leaf_cta_columns; the cluster kernel above passes two CTA barriers and a
 * cluster barrier, and moves rows).  The cluster kernel's operations in its order, so the same
 * factors, pivots and INFO.  A 512 x 512 panel 1.75 -> 1.33 ms on an H100 (docs/performance.md,
 * thirty-sixth stop). */
__global__ void __launch_bounds__(LEAF_THREADS, 1)
hyt_dgetrf_leaf_cta_kernel(double *A, int m, int n, int nb, int j0, int w, int *ipiv, int *info,
                           double *ws, int nctas)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    (void)ws;
    (void)nctas;
    extern __shared__ double tiles[]; /* [LEAF_WARPS][32][LEAF_TILE_LD] */
    __shared__ leaf_cta_slots S;
    __shared__ int spiv[LEAF_W];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int R = m - j0, base = wid * 32, r = base + lane;
    const bool mine = r < R;
    double *const tile = tiles + wid * 32 * LEAF_TILE_LD;
    double x[LEAF_W];
    leaf_row_in(x, tile, A, nb, j0, w, R, base, mine);
    const int lr = leaf_cta_columns(x, r, mine, w, j0, S, spiv, ipiv, info);
    if (mine) /* the rows to their places in the warps' tiles (tiles: one R x LEAF_TILE_LD) */
#pragma unroll
        for (int k = 0; k < LEAF_W; k++)
            if (k < w)
                tiles[lr * LEAF_TILE_LD + k] = x[k];
    __syncthreads();
    leaf_tile_out(tile, A, nb, j0, w, R, base);
    leaf_interchange_rest(A, n, nb, j0, w, spiv);
#else
    (void)A, (void)m, (void)n, (void)nb, (void)j0, (void)w, (void)ipiv, (void)info, (void)ws;
    (void)nctas;
#endif
}

/* Whether this device runs the kernel f: compute capability cc_min and up, the library built
 * for it (built only for an older architecture, a kernel's body is empty, and a PTX JIT would
 * keep that body), smem bytes of dynamic shared memory granted, and with cluster thread-block
 * clusters of more than 8 CTAs.  cache: the caller's answers by device ordinal (0 not asked
 * yet, 1 yes, -1 no; threads of several devices ask). */
extern "C" int hyt_cuda_kernel_usable(signed char *cache, const void *f, int cc_min, size_t smem,
                                      int cluster)
{
    int ordinal;
    if (cudaGetDevice(&ordinal) != cudaSuccess || ordinal < 0 || ordinal >= 64) {
        cudaGetLastError();
        return 0;
    }
    signed char u = __atomic_load_n(&cache[ordinal], __ATOMIC_RELAXED);
    if (!u) {
        int cc = 0, cl = 1;
        cudaFuncAttributes fa;
        if (cluster &&
            cudaDeviceGetAttribute(&cl, cudaDevAttrClusterLaunch, ordinal) != cudaSuccess)
            cl = 0;
        u = cl && cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, ordinal) ==
                          cudaSuccess &&
                    cc >= cc_min && cudaFuncGetAttributes(&fa, f) == cudaSuccess &&
                    fa.binaryVersion >= 10 * cc_min && fa.ptxVersion >= 10 * cc_min &&
                    cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem) == cudaSuccess &&
                    (!cluster ||
                     cudaFuncSetAttribute(f, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) ==
                         cudaSuccess)
                ? 1
                : -1;
        cudaGetLastError();
        __atomic_store_n(&cache[ordinal], u, __ATOMIC_RELAXED);
    }
    return u > 0;
}

/* Whether the one-CTA kernel serves a leaf of R rows on this device. */
static bool leaf_cta_usable(int R)
{
    static signed char usable[64];
    return R <= LEAF_THREADS &&
           hyt_cuda_kernel_usable(usable, (const void *)hyt_dgetrf_leaf_cta_kernel, 8,
                                  LEAF_TALL_SMEM, 0);
}

/* The cluster kernel's launch for a leaf of R rows on this stream, when it applies: R fits
 * P <= LEAF_CLUSTER_MAX CTAs and P <= nctas, the device launches clusters (compute capability
 * 9 and up), and a cluster of P such CTAs fits on the stream's SMs.  Otherwise 0: the caller
 * uses a cooperative kernel. */
static int leaf_cluster_config(cudaStream_t stream, int R, int nctas, cudaLaunchConfig_t *cfg,
                               cudaLaunchAttribute *at)
{
    static signed char usable[64];
    const int P = (R + LEAF_THREADS - 1) / LEAF_THREADS;
    const void *f = (const void *)hyt_dgetrf_leaf_cluster_kernel;
    if (P > LEAF_CLUSTER_MAX || P > nctas ||
        !hyt_cuda_kernel_usable(usable, f, 9, LEAF_TALL_SMEM, 1))
        return 0;
    *cfg = cudaLaunchConfig_t{};
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = (unsigned)P;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg->gridDim = dim3((unsigned)P);
    cfg->blockDim = dim3(LEAF_THREADS);
    cfg->dynamicSmemBytes = LEAF_TALL_SMEM;
    cfg->stream = stream;
    cfg->attrs = at;
    cfg->numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, f, cfg) != cudaSuccess || clusters < 1) {
        cudaGetLastError();
        return 0;
    }
    return 1;
}

typedef void (*leaf_fn)(double *, int, int, int, int, int, int *, int *, double *, int);

static_assert(HYT_PANEL_LEAF_RPT_MAX == 16,
              "leaf_rows_variant instantiates 2..16 rows per thread");

static leaf_fn leaf_rows_variant(int rpt)
{
    switch (rpt) {
    case 2: return hyt_dgetrf_leaf_rows_kernel<2>;
    case 4: return hyt_dgetrf_leaf_rows_kernel<4>;
    case 8: return hyt_dgetrf_leaf_rows_kernel<8>;
    case 16: return hyt_dgetrf_leaf_rows_kernel<16>;
    default: return hyt_dgetrf_leaf_tall_kernel;
    }
}

/* The driver's green-context functions, looked up once for every device thread (through the
 * runtime: the library does not link libcuda); NULL where this driver lacks them. */
static decltype(&cuStreamGetGreenCtx) drv_get_green = NULL;
static decltype(&cuGreenCtxGetDevResource) drv_get_res = NULL;
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

static void drv_lookup(void)
{
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuStreamGetGreenCtx", (void **)&drv_get_green,
                                         CUDA_VERSION, cudaEnableDefault, &q) != cudaSuccess ||
        cudaGetDriverEntryPointByVersion("cuGreenCtxGetDevResource", (void **)&drv_get_res,
                                         CUDA_VERSION, cudaEnableDefault, &q) != cudaSuccess) {
        cudaGetLastError();
        drv_get_green = NULL;
        drv_get_res = NULL;
    }
}

extern "C" int hyt_cuda_stream_sms(hyt_device_t *dev, void *stream, int *sms)
{
    pthread_once(&drv_once, drv_lookup);
    CUgreenCtx g = NULL;
    CUdevResource r;
    if (drv_get_green && drv_get_res && drv_get_green((CUstream)stream, &g) == CUDA_SUCCESS &&
        g && drv_get_res(g, &r, CU_DEV_RESOURCE_TYPE_SM) == CUDA_SUCCESS) {
        *sms = (int)r.sm.smCount;
        return HYT_SUCCESS;
    }
    int ordinal;
    HYT_CUDA_TRY(dev, cudaGetDevice(&ordinal));
    HYT_CUDA_TRY(dev, cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, ordinal));
    return HYT_SUCCESS;
}

extern "C" int hyt_cuda_dgetrf_leaf(hyt_device_t *dev, void *stream, double *A, int m, int n,
                                    int nb, int j0, int w, int *ipiv, int *info, double *ws,
                                    int nctas)
{
    if (w < 1 || w > LEAF_W || j0 < 0 || m - j0 < w || n < j0 + w || nb < n || !A || !ipiv ||
        !info || !ws || nctas < 1 || nctas > HYT_PANEL_CTAS_MAX ||
        (int64_t)(m - j0) * LEAF_W > INT_MAX) /* the tall kernel's int offsets in W */
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dgetrf_leaf: invalid arguments (m = %d, "
                         "n = %d, nb = %d, j0 = %d, w = %d, nctas = %d)", m, n, nb, j0, w, nctas);
    if (leaf_cta_usable(m - j0)) {
        hyt_dgetrf_leaf_cta_kernel<<<1, LEAF_THREADS, LEAF_TALL_SMEM, (cudaStream_t)stream>>>(
            A, m, n, nb, j0, w, ipiv, info, ws, nctas);
        HYT_CUDA_LAUNCHED(dev);
        return HYT_SUCCESS;
    }
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute at[1];
    if (leaf_cluster_config((cudaStream_t)stream, m - j0, nctas, &cfg, at)) {
        HYT_CUDA_TRY(dev, cudaLaunchKernelEx(&cfg, hyt_dgetrf_leaf_cluster_kernel, A, m, n, nb,
                                             j0, w, ipiv, info, ws, nctas));
        HYT_CUDA_LAUNCHED(dev);
        return HYT_SUCCESS;
    }
    int sms, per_sm = 0; /* a green context's SMs (gpu.panel_sms) bound the co-residency */
    int rc = hyt_cuda_stream_sms(dev, stream, &sms);
    if (rc)
        return rc;
    const int R = m - j0, P = (R + LEAF_THREADS - 1) / LEAF_THREADS;
    /* one row a thread on up to LEAF_GRID_SPREAD * nctas CTAs: the grid kernel; else several
     * rows a thread on nctas */
    int ctas = P <= LEAF_GRID_SPREAD * nctas && P <= HYT_PANEL_CTAS_MAX
                   ? P : hyt_panel_leaf_ctas(R, nctas);
    leaf_fn f = NULL;
    for (int cap = -1; cap != ctas;) { /* co-residency is what makes the CTAs' waits safe */
        if (cap >= 0)
            ctas = hyt_panel_leaf_ctas(R, cap < nctas ? cap : nctas);
        f = ctas >= P ? hyt_dgetrf_leaf_grid_kernel
                      : leaf_rows_variant(hyt_panel_leaf_rpt(R, ctas));
        HYT_CUDA_TRY(dev, cudaFuncSetAttribute((const void *)f,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)LEAF_TALL_SMEM));
        HYT_CUDA_TRY(dev, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, LEAF_THREADS,
                                                                        LEAF_TALL_SMEM));
        cap = ctas < per_sm * sms ? ctas : per_sm * sms;
        if (cap < 1)
            return hyt_error(HYT_ERR_DEVICE, "hyt_cuda_dgetrf_leaf: no CTA of %d threads fits "
                             "on an SM", LEAF_THREADS);
    }
    void *args[] = {&A, &m, &n, &nb, &j0, &w, &ipiv, &info, &ws, &ctas};
    HYT_CUDA_TRY(dev, cudaLaunchCooperativeKernel((const void *)f, dim3(ctas), dim3(LEAF_THREADS),
                                                  args, LEAF_TALL_SMEM, (cudaStream_t)stream));
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
