/*
 * One leaf of the native GPU panel LU (gpu_dgetrf_crrb.c): columns [j0, j0+w), w <= 32, of a
 * row-major m x n panel (leading dimension nb; the CRRB panel of a device column), rows
 * [j0, m), factored by unblocked LU with partial pivoting (LAPACK's dgetf2 and its pivot rule)
 * in ONE cooperative launch of at most nctas CTAs; ws: hyt_panel_leaf_ws_bytes(m) bytes (the
 * publication slots, then the tall kernel's column-major copy of the leaf).
 *
 * Two kernels, by the rows per warp (hyt_panel_leaf_rpw):
 * - up to HYT_PANEL_LEAF_RPW_MAX (short leaves): a warp per row, a lane per column of the leaf
 *   (a leaf row is w <= 32 contiguous doubles: one coalesced access).  Global warp gw owns rows
 *   j0 + gw + k*tw (tw warps in all), kept in registers (a[k]) for the whole leaf;
 * - more (tall leaves, hyt_dgetrf_leaf_tall_kernel): the leaf copied to a column-major
 *   workspace and factored there with a thread per row (see that kernel).
 *
 * One grid-wide barrier per column.  Before it, each CTA publishes its pivot candidate for the
 * next column (largest |a|, first row on ties; NaN is no candidate) WITH the candidate row's
 * leaf entries, and the owner of the next diagonal row publishes that row, in global slots of
 * parity (column & 1).  After it, every warp reads the slots and picks the same pivot: the
 * diagonal row when its entry is NaN, else the largest candidate, lowest row on ties (LAPACK's
 * idamax); no warp ever reads another warp's rows, so the owners of the diagonal and pivot rows
 * can swap them at once.  Two parities suffice: a CTA writes parity p again only after the
 * next barrier, which every CTA reaches after reading parity p.
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

#include <cooperative_groups.h>
#include <cuda.h>
#include <float.h>
#include <limits.h>

namespace cg = cooperative_groups;

#define LEAF_W HYT_PANEL_LEAF_W
#define LEAF_THREADS HYT_PANEL_LEAF_THREADS
#define LEAF_WARPS (LEAF_THREADS / 32)

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
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (n <= w)
        return;
    /* the leaf's interchanges composed: row perm_to[e] receives the old row perm_from[e] */
    __syncthreads(); /* spiv complete */
    if (wid == 0) {
        int to_a = j0 + lane, from_a = to_a, to_b = -1, from_b = -1, nb_extra = 0;
        for (int q = 0; q < w; q++) {
            const int p = spiv[q];
            if (p == j0 + q)
                continue;
            int fq = __shfl_sync(0xffffffffu, from_a, q), fp;
            if (p < j0 + w) {
                fp = __shfl_sync(0xffffffffu, from_a, p - j0);
                if (lane == p - j0)
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
        if (lane < w) {
            perm_to[lane] = to_a;
            perm_from[lane] = from_a;
        }
        if (lane < nb_extra) {
            perm_to[w + lane] = to_b;
            perm_from[w + lane] = from_b;
        }
        if (lane == 0)
            perm_n = w + nb_extra;
    }
    __syncthreads();
    const int ne = perm_n, nout = n - w, nchunk = (nout + 31) / 32;
    for (int ch = blockIdx.x; ch < nchunk; ch += gridDim.x) {
        const int cl = ch * 32 + lane; /* the chunk's columns, skipping the leaf's */
        const int c = cl < j0 ? cl : cl + w;
        const bool ok = cl < nout;
        for (int e = wid; e < ne; e += LEAF_WARPS)
            if (ok)
                buf[e][lane] = A[(int64_t)perm_from[e] * nb + c];
        __syncthreads();
        for (int e = wid; e < ne; e += LEAF_WARPS)
            if (ok)
                A[(int64_t)perm_to[e] * nb + c] = buf[e][lane];
        __syncthreads();
    }
}

template <int RPW>
__global__ void __launch_bounds__(LEAF_THREADS)
hyt_dgetrf_leaf_kernel(double *A, int m, int n, int nb, int j0, int w, int *ipiv, int *info,
                       double *ws, int nctas)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ double cand_row[LEAF_WARPS][32];
    __shared__ int spiv[LEAF_W];

    const leaf_ws S = leaf_slots(ws, nctas);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int tw = nctas * LEAF_WARPS, gw = blockIdx.x * LEAF_WARPS + wid;
    const bool col_ok = lane < w;
    /* rows of this warp: j0 + gw + k*tw for k < nk */
    const int R = m - j0;
    const int nk = gw < R ? (R - gw + tw - 1) / tw : 0;
    double a[RPW];
#pragma unroll
    for (int k = 0; k < RPW; k++) {
        int64_t i = (int64_t)j0 + gw + (int64_t)k * tw;
        a[k] = k < nk && col_ok ? A[i * nb + j0 + lane] : 0.0;
    }

    for (int jj = -1; jj < w; jj++) {
        const int j = j0 + jj; /* the pivot column (panel index); jj = -1: first candidates */
        double u = 0.0, dr = 0.0, pv = 0.0, rpv = 0.0;
        int piv = j;
        bool scale = false, recip = false;
        if (jj >= 0) {
            piv = leaf_pivot(S, nctas, j0, jj, &u, &dr);
            pv = __shfl_sync(0xffffffffu, u, jj);
            scale = pv != 0.0;
            recip = fabs(pv) >= DBL_MIN;
            rpv = scale && recip ? 1.0 / pv : 0.0;
            leaf_record(spiv, ipiv, info, j, jj, piv, pv);
        }
        const int nc = jj + 1; /* the next column, whose candidates this step finds */
        double cv = -1.0, crow = 0.0;
        int ci = -1;
#pragma unroll
        for (int k = 0; k < RPW; k++) {
            if (k >= nk)
                break;
            const int i = j0 + gw + k * tw;
            double x = a[k];
            if (jj >= 0) {
                if (i == j)
                    x = u;
                else if (i == piv)
                    x = dr;
                if (i > j) {
                    double l = __shfl_sync(0xffffffffu, x, jj);
                    if (scale)
                        l = recip ? l * rpv : l / pv;
                    if (lane == jj)
                        x = l;
                    else if (lane > jj)
                        x -= l * u;
                }
                a[k] = x;
            }
            if (nc < w && i > j) {
                if (i == j + 1)
                    S.d[(nc & 1) * 32 + lane] = x;
                double v = fabs(__shfl_sync(0xffffffffu, x, nc));
                if (v > cv) { /* NaN never is; the first of equal values stays */
                    cv = v;
                    ci = i;
                    crow = x;
                }
            }
        }
        if (nc >= w)
            break;
        /* the CTA's candidate from its warps' */
        cand_row[wid][lane] = crow;
        double bv;
        int bi, bw;
        leaf_cta_best(cv, ci, &bv, &bi, &bw);
        if (wid == 0)
            leaf_publish(S, nctas, nc & 1, bv, bi, bw >= 0 ? cand_row[bw][lane] : 0.0);
        grid.sync();
    }

#pragma unroll
    for (int k = 0; k < RPW; k++) {
        int64_t i = (int64_t)j0 + gw + (int64_t)k * tw;
        if (k < nk && col_ok)
            A[i * nb + j0 + lane] = a[k];
    }
    leaf_interchange_rest(A, n, nb, j0, w, spiv);
}

/* Tall leaves (rows in global memory): the leaf is copied to a column-major workspace W (its
 * R = m - j0 rows, leading dimension R, after the slots), factored there with a THREAD per row,
 * and copied back.  In W a warp's 32 consecutive rows of one column are one coalesced access,
 * so a thread can read and write its own row's columns at full width; in the row-major panel a
 * row-per-thread access is 32 rows 8 KB apart per instruction (tried: 0.8x the warp-per-row
 * kernel) and a warp per row spends two shuffles on every row (a 65536 x 1024 panel on 16 CTAs
 * took 89 ms that way; docs/performance.md).  Thread gt owns the rows gt + k*T of W (T threads
 * in all); at column jj it loads the multiplier's entry and every entry right of it of each of
 * its rows at once, updates them with the pivot row (from shared memory) and stores them.  The
 * copies in and out go through a shared tile per warp (dynamic shared memory: LEAF_TALL_SMEM).
 * The slots and the pivot rule are the warp-per-row kernel's; the CTA's candidate row and the
 * next diagonal row are read back from W by warp 0 after the CTA's barrier. */
#define LEAF_TILE_LD 33 /* a tile row's stride in doubles: no bank conflict either way */
#define LEAF_TALL_SMEM (LEAF_WARPS * 32 * LEAF_TILE_LD * sizeof(double))

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
#pragma unroll
        for (int r = 0; r < 32; r++)
            if (base + r < R && lane < w)
                tile[r * LEAF_TILE_LD + lane] = A[(int64_t)(j0 + base + r) * nb + j0 + lane];
        __syncwarp();
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
            double u, dr;
            const int piv = leaf_pivot(S, nctas, j0, jj, &u, &dr), pr = piv - j0;
            const double pv = __shfl_sync(0xffffffffu, u, jj);
            const bool scale = pv != 0.0, recip = fabs(pv) >= DBL_MIN;
            const double rpv = scale && recip ? 1.0 / pv : 0.0;
            leaf_record(spiv, ipiv, info, j0 + jj, jj, piv, pv);
            su_w[lane] = u;
            sd_w[lane] = dr;
            __syncwarp();
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
                const bool moved = rr == pr; /* receives the diagonal row */
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
                if (scale)
                    l = recip ? l * rpv : l / pv;
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
        __syncwarp();
#pragma unroll
        for (int r = 0; r < 32; r++)
            if (base + r < R && lane < w)
                A[(int64_t)(j0 + base + r) * nb + j0 + lane] = tile[r * LEAF_TILE_LD + lane];
        __syncwarp();
    }
    leaf_interchange_rest(A, n, nb, j0, w, spiv);
}

typedef void (*leaf_fn)(double *, int, int, int, int, int, int *, int *, double *, int);

static_assert(HYT_PANEL_LEAF_RPW_MAX == 16, "leaf_variant instantiates 1..16 rows per warp");

static leaf_fn leaf_variant(int rpw)
{
    switch (rpw) {
    case 1: return hyt_dgetrf_leaf_kernel<1>;
    case 2: return hyt_dgetrf_leaf_kernel<2>;
    case 4: return hyt_dgetrf_leaf_kernel<4>;
    case 8: return hyt_dgetrf_leaf_kernel<8>;
    case 16: return hyt_dgetrf_leaf_kernel<16>;
    default: return hyt_dgetrf_leaf_tall_kernel;
    }
}

extern "C" int hyt_cuda_stream_sms(hyt_device_t *dev, void *stream, int *sms)
{
    /* the driver's functions through the runtime: the library does not link libcuda */
    static decltype(&cuStreamGetGreenCtx) get_green = NULL;
    static decltype(&cuGreenCtxGetDevResource) get_res = NULL;
    if (!get_green || !get_res) {
        enum cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuStreamGetGreenCtx", (void **)&get_green,
                                             CUDA_VERSION, cudaEnableDefault, &q) != cudaSuccess ||
            cudaGetDriverEntryPointByVersion("cuGreenCtxGetDevResource", (void **)&get_res,
                                             CUDA_VERSION, cudaEnableDefault, &q) != cudaSuccess) {
            cudaGetLastError();
            get_green = NULL;
            get_res = NULL;
        }
    }
    CUgreenCtx g = NULL;
    CUdevResource r;
    if (get_green && get_res && get_green((CUstream)stream, &g) == CUDA_SUCCESS && g &&
        get_res(g, &r, CU_DEV_RESOURCE_TYPE_SM) == CUDA_SUCCESS) {
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
    int sms, per_sm = 0; /* a green context's SMs (gpu.panel_sms) bound the co-residency */
    int rc = hyt_cuda_stream_sms(dev, stream, &sms);
    if (rc)
        return rc;
    int ctas = hyt_panel_leaf_ctas(m - j0, nctas);
    leaf_fn f = NULL;
    size_t smem = 0;
    for (int cap = -1; cap != ctas;) { /* co-residency is what makes the grid barrier safe */
        if (cap >= 0)
            ctas = cap;
        const int rpw = hyt_panel_leaf_rpw(m - j0, ctas);
        f = leaf_variant(rpw);
        smem = f == hyt_dgetrf_leaf_tall_kernel ? LEAF_TALL_SMEM : 0;
        if (smem)
            HYT_CUDA_TRY(dev, cudaFuncSetAttribute((const void *)f,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   (int)smem));
        HYT_CUDA_TRY(dev, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, LEAF_THREADS,
                                                                        smem));
        cap = ctas < per_sm * sms ? ctas : per_sm * sms;
        if (cap < 1)
            return hyt_error(HYT_ERR_DEVICE, "hyt_cuda_dgetrf_leaf: no CTA of %d threads fits "
                             "on an SM", LEAF_THREADS);
    }
    void *args[] = {&A, &m, &n, &nb, &j0, &w, &ipiv, &info, &ws, &ctas};
    HYT_CUDA_TRY(dev, cudaLaunchCooperativeKernel((const void *)f, dim3(ctas), dim3(LEAF_THREADS),
                                                  args, smem, (cudaStream_t)stream));
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
