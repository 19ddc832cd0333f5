// The grid leaf's column exchange in two levels, thread-block clusters first (experiment, not
// built by meson):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v tools/leaf_grid_cluster.cu \
//        -o /tmp/leaf_grid_cluster && /tmp/leaf_grid_cluster        (on a Hopper GPU)
//
// The grid leaf kernel (gpu_dgetrf_leaf.cu, hyt_dgetrf_leaf_grid_kernel) pays two round trips
// through L2 a column: every CTA publishes its pivot candidate's key, every CTA polls all P
// keys, and only then reads the winning CTA's row (tools/leaf_grid_phases.cu, fortieth stop:
// ~2030 + ~1270 of ~5100 cycles a column at 32768 rows on 64 CTAs).  Fetching every CTA's row
// with the keys removed the second trip but made each CTA read ~16 KB a column from L2, and
// was slower.  This tool times the variant between the two: the CTAs of a cluster of CL push
// their key and their candidate row into the cluster leader's shared memory (distributed
// shared memory, tagged words as in the global exchange), the leader picks the cluster's
// candidate and publishes its key and row to global memory, and every CTA polls the P / CL
// groups' keys AND rows at once (P / CL warps, one group each) into shared memory: one trip
// through L2 a column and P / CL rows read, not P.  The first variant is a copy of the
// library's column loop (fortieth stop: the diagonal entry alone unless NaN, the CTA's row
// stored by its warp after its key), with the library's tagged-word helpers (hyt_gpu_leaf.cuh).
// Both variants read and write the leaf one thread a row (not the library's tiles), so the
// kernel times compare the column loops.  A cooperative
// launch accepts a cluster dimension (fortieth stop, one H200: clusters of 2 to 16 with 64
// CTAs of 512 threads; a cluster barrier 451-514 cycles).
// It prints, for R = 16384, 32768 and 65536 rows (random entries, and +-1 entries: ties across
// groups), each variant's best kernel time of 20 on CUDA events and whether its pivots, INFO
// and factors are a host dgetf2's (LAPACK's rule) bit for bit.
// Prediction: ~3300 cycles a column where the library's loop takes ~4700 (the cluster hop
// ~500, one L2 round trip ~1100 instead of two), ~25% off a 32768-row leaf's loop.
// Measured (one H200, 2026-11-28, forty-first stop; every variant the host's bits on both
// fills): WRONG, the clusters are slower.  Kernel ms at 16384 / 32768 rows: the library's loop
// 0.093 / 0.095-0.096; clusters of 4 0.109 / 0.117; of 8 0.105-0.107 / 0.110; of 16 0.105-0.108
// / 0.113-0.114.  At 65536 rows (128 CTAs) only the library's loop runs (0.118-0.119): 32
// groups are more than a CTA's 16 warps, and clusters of 8 or 16 do not all fit at once.  The
// leader's wait for its cluster's rows and its publication are a chain of their own, as long
// as the global round trip they were to save.
#include "tool_cuda.h"

#include "../gpu_kernels/hyt_gpu_leaf.cuh"
#include "../gpu_kernels/hyt_gpu_sync.cuh"

#include <cooperative_groups.h>
#include <math.h>
#include <string.h>

#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;

#define REPS 20
#define GK 3  /* a key's words: high, low, logical row */
#define GR 64 /* a row's words: two a double */
#define NG_MAX LEAF_WARPS

// A row's entries jj and right (x) into tagged words w, two a double (low word, high word), by
// one thread (the library's grid kernel now stores such a row by its warp: leaf_put_row_warp).
__device__ __forceinline__ static void leaf_put_row(unsigned long long *w,
                                                    const double (&x)[LEAF_W], int jj,
                                                    unsigned tag)
{
#pragma unroll
    for (int k = 0; k < LEAF_W; k++)
        if (k >= jj)
            leaf_put_entry(w, x[k], k, tag);
}

__device__ __forceinline__ static void st_cluster_u64(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.cluster.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ static unsigned long long ld_cluster_u64(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.cluster.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ static bool has_tag(unsigned long long w, unsigned tag)
{
    return (unsigned)(w >> 32) == tag;
}

// Global words: keys [2][NK][GK], rows [2][NK][GR], the diagonal row [2][GR] (NK: P for the
// library's loop, the groups for the clusters').
struct words {
    unsigned long long *key, *row, *diag;
};

// CL = 1: the library's column loop; CL > 1: the two-level exchange on clusters of CL CTAs.
template <int CL>
__global__ void __launch_bounds__(LEAF_THREADS, 1)
k_leaf(double *A, int R, int *ipiv, int *info, unsigned long long *ws)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ leaf_cta_slots S;
    __shared__ int piv_s;
    __shared__ double wrow[LEAF_W];
    __shared__ unsigned long long inbox[CL > 1 ? 2 : 1][CL][GK + GR]; /* the leader's */
    __shared__ double gst[NG_MAX][LEAF_W];                         /* the groups' rows */
    __shared__ unsigned gkey[NG_MAX][GK], dword[2];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, c = (int)blockIdx.x;
    const int P = (int)gridDim.x, NK = CL > 1 ? P / CL : P;
    const int gt = c * LEAF_THREADS + threadIdx.x;
    const bool mine = gt < R;
    words W;
    W.key = ws;
    W.row = W.key + 2 * GK * NK;
    W.diag = W.row + 2 * GR * NK;
    double x[LEAF_W];
#pragma unroll
    for (int k = 0; k < LEAF_W; k++)
        x[k] = mine ? A[(size_t)gt * LEAF_W + k] : 0.0;
    /* zero the words this CTA (or its group, by its leader) publishes, and the inbox */
    const int mykey = CL > 1 ? c / CL : c;
    const bool publisher = CL == 1 || c % CL == 0;
    if (publisher)
        for (int i = threadIdx.x; i < 2 * (GK + GR); i += LEAF_THREADS) {
            const int par = i / (GK + GR), e = i % (GK + GR);
            st_relaxed_u64(e < GK ? W.key + ((size_t)par * NK + mykey) * GK + e
                                  : W.row + ((size_t)par * NK + mykey) * GR + e - GK,
                           0ull);
        }
    if (CL > 1)
        for (int i = threadIdx.x; i < 2 * CL * (GK + GR); i += LEAF_THREADS)
            (&inbox[0][0][0])[i] = 0ull;
    if (c == 0)
        for (int i = threadIdx.x; i < 2 * GR; i += LEAF_THREADS)
            st_relaxed_u64(W.diag + i, 0ull);
    grid.sync();
    if (CL > 1)
        cg::this_cluster().sync();
    int lr = gt;

#pragma unroll
    for (int jj = 0; jj < LEAF_W; jj++) {
        const int par = jj & 1;
        const unsigned tag = (unsigned)jj + 1u;
        unsigned long long *const kw = W.key + (size_t)par * NK * GK;
        unsigned long long *const rw = W.row + (size_t)par * NK * GR;
        unsigned long long *const dw = W.diag + par * GR;
        /* 1. the warps' candidates; the diagonal entry (its row when it is NaN) */
        leaf_warp_slot(x[jj], jj, lr, mine, wid, S);
        if (mine && lr == jj) {
            if (isnan(x[jj]))
                leaf_put_row(dw, x, jj, tag);
            else
                leaf_put_entry(dw, x[jj], jj, tag);
        }
        __syncthreads();
        unsigned bh, bl;
        const unsigned br = leaf_cta_pick(S, lane, &bh, &bl);
        const bool me = bh != 0u && (unsigned)lr == br;
        const double *u;
        int p;
        if (CL == 1) {
            /* 2. the CTA's key, then its row, to its words */
            if (threadIdx.x < GK)
                st_relaxed_u64(kw + c * GK + threadIdx.x,
                               tagged(tag, threadIdx.x == 0 ? bh : threadIdx.x == 1 ? bl : br));
            if (__any_sync(0xffffffffu, me))
                leaf_put_row_warp(rw + (size_t)c * GR, x, jj, 0, tag, me, wrow, false, 0.0,
                                  nullptr);
            /* 3. warp 0: the P keys and the diagonal entry, the pivot, its row */
            if (wid == 0) {
                unsigned long long bk = 0ull, dlo = 0ull, dhi = 0ull;
                unsigned brow = 0xffffffffu;
                int bc = -1;
                for (int q0 = 0; q0 < P; q0 += 4 * 32) {
                    unsigned long long k3[4][GK] = {};
                    bool ok;
                    do {
                        ok = true;
                        if (q0 == 0) {
                            dlo = ld_relaxed_u64(dw + 2 * jj);
                            dhi = ld_relaxed_u64(dw + 2 * jj + 1);
                            ok = has_tag(dlo, tag) && has_tag(dhi, tag);
                        }
#pragma unroll
                        for (int i = 0; i < 4; i++) {
                            const int q = q0 + i * 32 + lane;
                            if (q < P)
#pragma unroll
                                for (int e = 0; e < GK; e++) {
                                    k3[i][e] = ld_relaxed_u64(kw + q * GK + e);
                                    ok &= has_tag(k3[i][e], tag);
                                }
                        }
                    } while (!ok);
#pragma unroll
                    for (int i = 0; i < 4; i++) {
                        const int q = q0 + i * 32 + lane;
                        const unsigned long long k =
                            (unsigned long long)(unsigned)k3[i][0] << 32 | (unsigned)k3[i][1];
                        const unsigned rq = (unsigned)k3[i][2];
                        if (q < P && (unsigned)k3[i][0] != 0u &&
                            (k > bk || (k == bk && rq < brow))) {
                            bk = k;
                            brow = rq;
                            bc = q;
                        }
                    }
                }
                const double djj = __hiloint2double((int)(unsigned)dhi, (int)(unsigned)dlo);
                unsigned mh, ml;
                const unsigned pr =
                    leaf_key_lowest((unsigned)(bk >> 32), (unsigned)bk, brow, &mh, &ml);
                const bool diag = isnan(djj) || mh == 0u;
                const int src = __ffs(__ballot_sync(0xffffffffu, bc >= 0 && brow == pr)) - 1;
                const int pc = __shfl_sync(0xffffffffu, bc, src < 0 ? 0 : src);
                S.urow[lane] =
                    lane < jj ? 0.0 : leaf_get_entry(diag ? dw : rw + (size_t)pc * GR, lane, tag);
                if (lane == 0)
                    piv_s = diag ? jj : (int)pr;
            }
            __syncthreads();
            p = piv_s;
            u = S.urow;
        } else {
            cg::cluster_group cl = cg::this_cluster();
            const int rank = (int)cl.block_rank(), g = c / CL;
            /* 2. the CTA's key and row into the leader's inbox */
            unsigned long long *const box = cl.map_shared_rank(&inbox[par][rank][0], 0);
            if (threadIdx.x < GK)
                st_cluster_u64(box + threadIdx.x,
                               tagged(tag, threadIdx.x == 0 ? bh : threadIdx.x == 1 ? bl : br));
            if (__any_sync(0xffffffffu, me)) {
                if (me)
#pragma unroll
                    for (int k = 0; k < LEAF_W; k++)
                        if (k >= jj)
                            wrow[k] = x[k];
                __syncwarp();
                if (lane >= jj) {
                    const double v = wrow[lane];
                    st_cluster_u64(box + GK + 2 * lane, tagged(tag, (unsigned)__double2loint(v)));
                    st_cluster_u64(box + GK + 2 * lane + 1,
                                   tagged(tag, (unsigned)__double2hiint(v)));
                }
                __syncwarp();
            }
            /* 3. the leader's warp 0: the cluster's candidate, its key and row to the group's
             * words */
            if (rank == 0 && wid == 0) {
                unsigned long long k3[GK] = {0ull, 0ull, 0ull};
                if (lane < CL) {
                    bool ok;
                    do {
                        ok = true;
#pragma unroll
                        for (int e = 0; e < GK; e++) {
                            k3[e] = ld_cluster_u64(&inbox[par][lane][e]);
                            ok &= has_tag(k3[e], tag);
                        }
                    } while (!ok);
                }
                const unsigned hi = lane < CL ? (unsigned)k3[0] : 0u;
                const unsigned lo = lane < CL ? (unsigned)k3[1] : 0u;
                const unsigned row = hi != 0u ? (unsigned)k3[2] : 0xffffffffu;
                unsigned mh, ml;
                const unsigned pr = leaf_key_lowest(hi, lo, row, &mh, &ml);
                const int src =
                    __ffs(__ballot_sync(0xffffffffu, hi != 0u && row == pr)) - 1;
                unsigned long long lw = tagged(tag, 0u), hw = tagged(tag, 0u);
                if (mh != 0u && lane >= jj) {
                    do {
                        lw = ld_cluster_u64(&inbox[par][src][GK + 2 * lane]);
                        hw = ld_cluster_u64(&inbox[par][src][GK + 2 * lane + 1]);
                    } while (!has_tag(lw, tag) || !has_tag(hw, tag));
                }
                if (lane >= jj) {
                    st_relaxed_u64(rw + (size_t)g * GR + 2 * lane, lw);
                    st_relaxed_u64(rw + (size_t)g * GR + 2 * lane + 1, hw);
                }
                if (lane < GK)
                    st_relaxed_u64(kw + g * GK + lane,
                                   tagged(tag, lane == 0 ? mh : lane == 1 ? ml : pr));
            }
            /* 4. warp q < NK: group q's key and row (warp 0 also the diagonal entry) */
            if (wid < NK) {
                unsigned long long kv = 0ull, rl = 0ull, rh = 0ull, dv = 0ull;
                bool ok;
                do {
                    ok = true;
                    if (lane < GK) {
                        kv = ld_relaxed_u64(kw + wid * GK + lane);
                        ok &= has_tag(kv, tag);
                    }
                    if (lane >= jj) {
                        rl = ld_relaxed_u64(rw + (size_t)wid * GR + 2 * lane);
                        rh = ld_relaxed_u64(rw + (size_t)wid * GR + 2 * lane + 1);
                        ok &= has_tag(rl, tag) && has_tag(rh, tag);
                    }
                    if (wid == 0 && lane < 2) {
                        dv = ld_relaxed_u64(dw + 2 * jj + lane);
                        ok &= has_tag(dv, tag);
                    }
                } while (!ok);
                if (lane < GK)
                    gkey[wid][lane] = (unsigned)kv;
                if (lane >= jj)
                    gst[wid][lane] = __hiloint2double((int)(unsigned)rh, (int)(unsigned)rl);
                if (wid == 0 && lane < 2)
                    dword[lane] = (unsigned)dv;
            }
            __syncthreads();
            /* 5. the pivot, in every warp */
            const unsigned hi = lane < NK ? gkey[lane][0] : 0u;
            const unsigned lo = lane < NK ? gkey[lane][1] : 0u;
            const unsigned row = hi != 0u ? gkey[lane][2] : 0xffffffffu;
            unsigned mh, ml;
            const unsigned pr = leaf_key_lowest(hi, lo, row, &mh, &ml);
            const double djj = __hiloint2double((int)dword[1], (int)dword[0]);
            if (isnan(djj) || mh == 0u) { /* the diagonal row (same in every thread) */
                if (wid == 0)
                    S.urow[lane] = lane < jj ? 0.0 : leaf_get_entry(dw, lane, tag);
                __syncthreads();
                p = jj;
                u = S.urow;
            } else {
                const int src =
                    __ffs(__ballot_sync(0xffffffffu, hi != 0u && row == pr)) - 1;
                p = (int)pr;
                u = gst[src];
            }
        }
        /* 6. the interchange as a relabelling, the multipliers, the update */
        const double pv = u[jj];
        if (threadIdx.x == 0 && c == 0) {
            ipiv[jj] = p + 1;
            if (pv == 0.0 && *info == 0)
                *info = jj + 1;
        }
        leaf_relabel_update(x, lr, mine, jj, p, pv, u);
    }
    if (CL > 1)
        cg::this_cluster().sync(); /* no CTA leaves while its inbox may be written */
    if (mine)
#pragma unroll
        for (int k = 0; k < LEAF_W; k++)
            A[(size_t)lr * LEAF_W + k] = x[k];
}


typedef void (*leaf_fn)(double *, int, int *, int *, unsigned long long *);
static const struct {
    const char *name;
    leaf_fn k;
    int cl;
} variants[] = {
    {"library's loop", k_leaf<1>, 1},
    {"clusters of 4", k_leaf<4>, 4},
    {"clusters of 8", k_leaf<8>, 8},
    {"clusters of 16", k_leaf<16>, 16},
};

int main()
{
    int bad = 0, dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    for (const auto &v : variants)
        if (v.cl > 8)
            CK(cudaFuncSetAttribute((const void *)v.k,
                                    cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    for (int R : {16384, 32768, 65536})
        for (int fill = 0; fill < 2; fill++) {
            const int P = R / LEAF_THREADS;
            std::vector<double> A0((size_t)R * LEAF_W), H;
            unsigned long long s = 0x9E3779B97F4A7C15ull * (unsigned)R + 1 + fill;
            for (auto &a : A0) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                a = fill ? ((s >> 20) & 1 ? 1.0 : -1.0) : (double)(s % 2000001) / 1e6 - 1;
            }
            H = A0;
            std::vector<int> hp(LEAF_W);
            const int hinfo = tool_host_getf2(H, R, LEAF_W, LEAF_W, hp);
            double *dA, *dA0;
            int *dp, *di;
            unsigned long long *dw;
            const size_t bytes = A0.size() * sizeof(double);
            CK(cudaMalloc(&dA, bytes));
            CK(cudaMalloc(&dA0, bytes));
            CK(cudaMalloc(&dp, LEAF_W * sizeof(int)));
            CK(cudaMalloc(&di, sizeof(int)));
            CK(cudaMalloc(&dw, (2 * (GK + GR) * (size_t)P + 2 * GR) * sizeof(unsigned long long)));
            CK(cudaMemcpy(dA0, A0.data(), bytes, cudaMemcpyHostToDevice));
            cudaStream_t st;
            CK(cudaStreamCreate(&st));
            printf("R %d (%d CTAs), %s entries:\n", R, P, fill ? "+-1" : "random");
            for (const auto &v : variants) {
                if (P % v.cl || (v.cl > 1 && P / v.cl > NG_MAX)) {
                    printf("  %-15s: %d CTAs do not make at most %d clusters of %d\n", v.name, P,
                           NG_MAX, v.cl);
                    continue;
                }
                cudaLaunchConfig_t cfg = {};
                cudaLaunchAttribute at[2];
                cfg.gridDim = dim3(P);
                cfg.blockDim = dim3(LEAF_THREADS);
                cfg.stream = st;
                at[0].id = cudaLaunchAttributeCooperative;
                at[0].val.cooperative = 1;
                at[1].id = cudaLaunchAttributeClusterDimension;
                at[1].val.clusterDim.x = (unsigned)v.cl;
                at[1].val.clusterDim.y = 1;
                at[1].val.clusterDim.z = 1;
                cfg.attrs = at;
                cfg.numAttrs = v.cl > 1 ? 2 : 1;
                int fit = 0;
                if (v.cl > 1) {
                    CK(cudaOccupancyMaxActiveClusters(&fit, v.k, &cfg));
                    fit *= v.cl;
                } else {
                    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, v.k, LEAF_THREADS,
                                                                     0));
                    fit *= sms;
                }
                if (fit < P) {
                    printf("  %-15s: %d CTAs do not fit at once (%d)\n", v.name, P, fit);
                    continue;
                }
                int Rv = R;
                auto pre = [&] {
                    CK(cudaMemcpyAsync(dA, dA0, bytes, cudaMemcpyDeviceToDevice, st));
                    CK(cudaMemsetAsync(di, 0, sizeof(int), st));
                };
                auto run = [&] { CK(cudaLaunchKernelEx(&cfg, v.k, dA, Rv, dp, di, dw)); };
                const double ms = tool_best_ms(st, REPS, run, pre);
                std::vector<double> out(A0.size());
                std::vector<int> piv(LEAF_W);
                int info;
                pre();
                run();
                CK(cudaStreamSynchronize(st));
                CK(cudaMemcpy(out.data(), dA, bytes, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(piv.data(), dp, LEAF_W * sizeof(int), cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(&info, di, sizeof info, cudaMemcpyDeviceToHost));
                const bool same =
                    piv == hp && info == hinfo && !memcmp(out.data(), H.data(), bytes);
                bad += !same;
                printf("  %-15s: kernel %.4f ms (%.2f us a column); the host's bits %s\n",
                       v.name, ms, ms * 1e3 / LEAF_W, same ? "yes" : "NO");
            }
            CK(cudaStreamDestroy(st));
            CK(cudaFree(dA));
            CK(cudaFree(dA0));
            CK(cudaFree(dp));
            CK(cudaFree(di));
            CK(cudaFree(dw));
        }
    return bad != 0;
}
