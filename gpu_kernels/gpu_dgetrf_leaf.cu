/*
 * One leaf of the native GPU panel LU (gpu_dgetrf_crrb.c): columns [j0, j0+w), w <= 32, of a
 * row-major m x n panel (leading dimension nb; the CRRB panel of a device column), rows
 * [j0, m), factored by unblocked LU with partial pivoting (LAPACK's dgetf2 and its pivot rule)
 * in ONE cooperative launch of at most nctas CTAs; ws: hyt_panel_leaf_ws_bytes(m) bytes.
 *
 * Work split: a warp per row, a lane per column of the leaf (a leaf row is w <= 32 contiguous
 * doubles: one coalesced access).  Global warp gw owns rows j0 + gw + k*tw (tw warps in all);
 * with RPW > 0 its rows stay in registers (a[k]) for the whole leaf, with RPW == 0 (tall
 * panels) they are read and written in global memory at every column.
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

namespace cg = cooperative_groups;

#define LEAF_W HYT_PANEL_LEAF_W
#define LEAF_THREADS HYT_PANEL_LEAF_THREADS
#define LEAF_WARPS (LEAF_THREADS / 32)
#define LEAF_AHEAD 8 /* rows a warp loads ahead when they are in global memory */

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

template <int RPW>
__global__ void __launch_bounds__(LEAF_THREADS)
hyt_dgetrf_leaf_kernel(double *A, int m, int n, int nb, int j0, int w, int *ipiv, int *info,
                       double *ws, int nctas)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ double cand_v[LEAF_WARPS];
    __shared__ int cand_i[LEAF_WARPS];
    __shared__ double cand_row[LEAF_WARPS][32];
    __shared__ int spiv[LEAF_W];
    __shared__ int perm_to[2 * LEAF_W], perm_from[2 * LEAF_W];
    __shared__ int perm_n;
    __shared__ double buf[2 * LEAF_W][33];

    const leaf_ws S = leaf_slots(ws, nctas);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int tw = nctas * LEAF_WARPS, gw = blockIdx.x * LEAF_WARPS + wid;
    const bool col_ok = lane < w;
    /* rows of this warp: j0 + gw + k*tw for k < nk */
    const int R = m - j0;
    const int nk = gw < R ? (R - gw + tw - 1) / tw : 0;
    double a[RPW > 0 ? RPW : 1];
    if (RPW > 0) {
#pragma unroll
        for (int k = 0; k < (RPW > 0 ? RPW : 1); k++) {
            int64_t i = (int64_t)j0 + gw + (int64_t)k * tw;
            a[k] = k < nk && col_ok ? A[i * nb + j0 + lane] : 0.0;
        }
    }

    for (int jj = -1; jj < w; jj++) {
        const int j = j0 + jj; /* the pivot column (panel index); jj = -1: first candidates */
        double u = 0.0, dr = 0.0, pv = 0.0, rpv = 0.0;
        int piv = j;
        bool scale = false, recip = false;
        if (jj >= 0) {
            const int par = jj & 1;
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
            dr = __ldcg(S.d + par * 32 + lane);
            const double djj = __shfl_sync(0xffffffffu, dr, jj);
            if (isnan(djj) || bc < 0) {
                u = dr;
            } else {
                piv = bi;
                u = __ldcg(S.row + ((int64_t)par * nctas + bc) * 32 + lane);
            }
            pv = __shfl_sync(0xffffffffu, u, jj);
            scale = pv != 0.0;
            recip = fabs(pv) >= DBL_MIN;
            rpv = scale && recip ? 1.0 / pv : 0.0;
            if (threadIdx.x == 0) {
                spiv[jj] = piv;
                if (blockIdx.x == 0) {
                    ipiv[j] = piv + 1;
                    if (pv == 0.0 && *info == 0)
                        *info = j + 1;
                }
            }
        }
        const int nc = jj + 1; /* the next column, whose candidates this step finds */
        double cv = -1.0, crow = 0.0;
        int ci = -1;
        /* rows in global memory: LEAF_AHEAD of them loaded before the first is used, so that
         * their loads are in flight together (one at a time, each waited for: a 65536 x 1024
         * panel on 16 CTAs 114 ms, with 8 ahead 89 ms; docs/performance.md) */
        constexpr int CH = RPW > 0 ? 1 : LEAF_AHEAD;
        for (int k0 = 0; k0 < (RPW > 0 ? RPW : nk); k0 += CH) {
            if (RPW > 0 && k0 >= nk)
                break;
            double xs[CH];
            if (RPW == 0) {
#pragma unroll
                for (int c = 0; c < CH; c++) {
                    const int64_t i = (int64_t)j0 + gw + (int64_t)(k0 + c) * tw;
                    xs[c] = k0 + c < nk && col_ok ? A[i * nb + j0 + lane] : 0.0;
                }
            }
#pragma unroll
            for (int c = 0; c < CH; c++) {
                const int k = k0 + c;
                if (RPW == 0 && k >= nk)
                    break;
                const int i = j0 + gw + k * tw;
                double *p = A + (int64_t)i * nb + j0 + lane;
                double x = RPW > 0 ? a[k] : xs[c];
                if (jj >= 0) {
                    const bool changed = i >= j;
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
                    if (RPW > 0)
                        a[k] = x;
                    else if (changed && col_ok)
                        *p = x;
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
        }
        if (nc >= w)
            break;
        /* the CTA's candidate from its warps' */
        if (lane == 0) {
            cand_v[wid] = cv;
            cand_i[wid] = ci;
        }
        cand_row[wid][lane] = crow;
        __syncthreads();
        if (wid == 0) {
            double bv = lane < LEAF_WARPS ? cand_v[lane] : -1.0;
            int bi = lane < LEAF_WARPS ? cand_i[lane] : -1, bw = bi >= 0 ? lane : -1;
            warp_best(bv, bi, bw);
            const int par = nc & 1;
            S.row[((int64_t)par * nctas + blockIdx.x) * 32 + lane] =
                bw >= 0 ? cand_row[bw][lane] : 0.0;
            if (lane == 0) {
                S.v[par * nctas + blockIdx.x] = bv;
                S.idx[par * nctas + blockIdx.x] = bi;
            }
        }
        grid.sync();
    }

    if (RPW > 0) {
#pragma unroll
        for (int k = 0; k < (RPW > 0 ? RPW : 1); k++) {
            int64_t i = (int64_t)j0 + gw + (int64_t)k * tw;
            if (k < nk && col_ok)
                A[i * nb + j0 + lane] = a[k];
        }
    }
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

typedef void (*leaf_fn)(double *, int, int, int, int, int, int *, int *, double *, int);

static leaf_fn leaf_variant(int rpw)
{
    switch (rpw) {
    case 1: return hyt_dgetrf_leaf_kernel<1>;
    case 2: return hyt_dgetrf_leaf_kernel<2>;
    case 4: return hyt_dgetrf_leaf_kernel<4>;
    case 8: return hyt_dgetrf_leaf_kernel<8>;
    case 16: return hyt_dgetrf_leaf_kernel<16>;
    case 32: return hyt_dgetrf_leaf_kernel<32>;
    default: return hyt_dgetrf_leaf_kernel<0>;
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
        !info || !ws || nctas < 1 || nctas > HYT_PANEL_CTAS_MAX)
        return hyt_error(HYT_ERR_INVALID, "hyt_cuda_dgetrf_leaf: invalid arguments (m = %d, "
                         "n = %d, nb = %d, j0 = %d, w = %d, nctas = %d)", m, n, nb, j0, w, nctas);
    int sms, per_sm = 0; /* a green context's SMs (gpu.panel_sms) bound the co-residency */
    int rc = hyt_cuda_stream_sms(dev, stream, &sms);
    if (rc)
        return rc;
    int ctas = hyt_panel_leaf_ctas(m - j0, nctas);
    int rpw = hyt_panel_leaf_rpw(m - j0, ctas);
    leaf_fn f = leaf_variant(rpw);
    HYT_CUDA_TRY(dev, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, LEAF_THREADS, 0));
    if (ctas > per_sm * sms) { /* co-residency is what makes the grid barrier safe */
        ctas = per_sm * sms;
        rpw = hyt_panel_leaf_rpw(m - j0, ctas);
        f = leaf_variant(rpw);
    }
    if (ctas < 1)
        return hyt_error(HYT_ERR_DEVICE, "hyt_cuda_dgetrf_leaf: no CTA of %d threads fits on "
                         "an SM", LEAF_THREADS);
    void *args[] = {&A, &m, &n, &nb, &j0, &w, &ipiv, &info, &ws, &ctas};
    HYT_CUDA_TRY(dev, cudaLaunchCooperativeKernel((const void *)f, dim3(ctas), dim3(LEAF_THREADS),
                                                  args, 0, (cudaStream_t)stream));
    HYT_CUDA_LAUNCHED(dev);
    return HYT_SUCCESS;
}
