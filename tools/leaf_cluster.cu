// One leaf of the panel LU (m x 32, partial pivoting, LAPACK's pivot rule) in ONE thread-block
// cluster, a thread per row with its row in registers: how short can a column's chain get?
// (experiment, not built by meson):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v tools/leaf_cluster.cu \
//        -o /tmp/leaf_cluster && /tmp/leaf_cluster          (on a Hopper GPU)
//   /tmp/leaf_cluster host                                  (the host reference alone, no GPU)
//
// docs/performance.md (twenty-fourth stop): the native panel's leaves cost ~7 us a column in the
// LU's last steps whatever their height, cuSOLVER's 1024-wide panels 3-4 us a column alone; a
// persistent short-panel kernel is worth writing only if a column's chain (candidates, the
// CTA's reduction, the cluster's, the pivot row to every CTA, the swap and the rank-1 update)
// fits in ~1 us.  This probe measures that chain, and checks itself.
//
// Kernel: P CTAs of T = 512 threads in one cluster (P <= 16: non-portable sizes above 8); CTA c
// thread t owns row c*T + t (m <= P*T), its 32 entries in registers for the whole leaf (the
// column loop fully unrolled, so no run-time register index).  Column j:
//   1. each row r >= j offers |x[j]| (NaN is no candidate); warp argmax by shuffles (largest,
//      then lowest row); each warp's winner lane copies its row to the warp's shared slot;
//   2. __syncthreads; warp 0 reduces the warps' candidates into the CTA's (v, row, warp) slot
//      of parity j & 1; CTA 0's thread j also copies row j (the diagonal row) to its slot;
//   3. cluster barrier (release / acquire);
//   4. warp 0 of every CTA reads the P slots through distributed shared memory, picks the pivot
//      (the diagonal row when its entry is NaN or nobody offers one; else the largest, lowest
//      row on ties: LAPACK's idamax), copies the pivot row and the diagonal row into local
//      shared memory; __syncthreads;
//   5. row j's owner takes the pivot row, the pivot row's owner the old row j; every row below j
//      computes its multiplier (x[j] * (1 / pivot) when |pivot| >= DBL_MIN, x[j] / pivot when
//      smaller, unscaled when the pivot is 0: INFO) and updates its entries right of j.
// Parity-two slots suffice: a CTA writes parity p again only after the next cluster barrier,
// which every CTA passes only after reading parity p.
//
// Measured (2026-11-27, one H200, best of 20 launches; "gt": %globaltimer inside CTA 0), us a
// column, m 512 (1 CTA) ... 8192 (16 CTAs):
//   shfl   (this kernel: shuffled (value, row, tag) argmax, warp 0 reads the slots): 2.5-2.8 gt,
//          3.4-4.0 on events;
//   redux  (leaf_cluster2<false, true>: the hardware's 32-bit max-reductions on the key, EVERY warp
//          reads the slots through distributed shared memory): 1.5 gt at 1 CTA, but 2.5 at 8
//          and 4.4 at 16 (256 warps reading 16 remote slots);
//   rolled (leaf_cluster2<true, true>: the column loop not unrolled, selects over the registers):
//          3.9-6.7, slower everywhere (the unrolled body's size is not the cost).
//   redux0 (leaf_cluster2<false, false>: the redux argmax, warp 0 alone reads the slots, then a
//          CTA barrier): 1.8-2.1 gt (2.7-3.2 on events) from 1 to 16 CTAs, the best beyond 4
//          CTAs; the form of the library's cluster leaf (hyt_dgetrf_leaf_cluster_kernel in
//          gpu_kernels/gpu_dgetrf_leaf.cu).
// All agree with the host reference to the bit on every case.
//
// Prints, per m: the kernel's time (best of REPS launches on CUDA events), us per column, and
// %globaltimer's per-column time inside CTA 0; and whether factors, pivots and INFO equal the
// host reference (same operations, same order: bitwise) on random rows, a zero column and NaN.
#include "tool_cuda.h"

#include <cooperative_groups.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;

#define W 32      // leaf width
#define T 512     // threads per CTA (a row each; 512 x ~100 registers fit an SM)
#define PMAX 16   // CTAs per cluster
#define REPS 20
#define FULL 0xffffffffu

// (v, r) beats (bv, br): larger, or equal and a lower row; r < 0 is no candidate
__device__ __forceinline__ bool beats(double v, int r, double bv, int br)
{
    return r >= 0 && (br < 0 || v > bv || (v == bv && r < br));
}

__device__ __forceinline__ void warp_argmax(double &v, int &r, int &t)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        double ov = __shfl_xor_sync(FULL, v, o);
        int orr = __shfl_xor_sync(FULL, r, o), ot = __shfl_xor_sync(FULL, t, o);
        if (beats(ov, orr, v, r)) {
            v = ov;
            r = orr;
            t = ot;
        }
    }
}

struct slots {
    double v[2];          // the CTA's best |a| (parity)
    int r[2], w[2];       // its row (-1: none) and warp
    double crow[2][T / 32][W]; // each warp's candidate row
    double drow[2][W];    // the diagonal row (CTA 0)
};

__global__ void __launch_bounds__(T, 1)
leaf_cluster(double *A, int m, int *ipiv, int *info, long long *cyc)
{
    cg::cluster_group cl = cg::this_cluster();
    __shared__ slots S;
    __shared__ double u[W], d[W]; // this column's pivot row and diagonal row (local copies)
    __shared__ int piv_s;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int P = (int)cl.num_blocks(), c = (int)cl.block_rank();
    const int r = c * T + threadIdx.x;
    const bool mine = r < m;
    double x[W];
#pragma unroll
    for (int k = 0; k < W; k++)
        x[k] = mine ? A[(size_t)r * W + k] : 0.0;
    int inf = 0;
    cl.sync();
    long long t0 = 0;
    if (c == 0 && threadIdx.x == 0)
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
#pragma unroll
    for (int j = 0; j < W; j++) {
        const int par = j & 1;
        // 1. candidates, the warp's winner
        double v = mine && r >= j && !isnan(x[j]) ? fabs(x[j]) : -1.0;
        int rr = mine && r >= j && !isnan(x[j]) ? r : -1, t = lane;
        warp_argmax(v, rr, t);
        if (rr >= 0 && t == lane)
#pragma unroll
            for (int k = 0; k < W; k++)
                S.crow[par][wid][k] = x[k];
        if (c == 0 && threadIdx.x == j)
#pragma unroll
            for (int k = 0; k < W; k++)
                S.drow[par][k] = x[k];
        // 2. the CTA's
        __shared__ double wv[T / 32];
        __shared__ int wr[T / 32];
        if (lane == 0) {
            wv[wid] = v;
            wr[wid] = rr;
        }
        __syncthreads();
        if (wid == 0) {
            double bv = lane < T / 32 ? wv[lane] : -1.0;
            int br = lane < T / 32 ? wr[lane] : -1, bw = lane;
            warp_argmax(bv, br, bw);
            if (lane == 0) {
                S.v[par] = bv;
                S.r[par] = br;
                S.w[par] = bw;
            }
        }
        // 3. the cluster's
        cl.sync();
        // 4. the pivot, the same in every CTA
        if (wid == 0) {
            double bv = -1.0;
            int br = -1, bt = 0; // bt: the candidate's CTA * 32 + its warp
            if (lane < P) {
                const slots *R = cl.map_shared_rank(&S, lane);
                bv = R->v[par];
                br = R->r[par];
                bt = lane * 32 + R->w[par];
            }
            warp_argmax(bv, br, bt);
            const slots *D = cl.map_shared_rank(&S, 0);
            const double dj = D->drow[par][lane];
            d[lane] = dj;
            const double djj = __shfl_sync(FULL, dj, j);
            int p;
            if (isnan(djj) || br < 0) {
                p = j;
                u[lane] = dj;
            } else {
                p = br;
                const slots *Q = cl.map_shared_rank(&S, bt >> 5);
                u[lane] = Q->crow[par][bt & 31][lane];
            }
            if (lane == 0)
                piv_s = p;
        }
        __syncthreads();
        // 5. swap, multipliers, update
        const int p = piv_s;
        const double pv = u[j];
        if (pv == 0.0 && inf == 0)
            inf = j + 1;
        if (mine && r == j) {
#pragma unroll
            for (int k = 0; k < W; k++)
                x[k] = u[k];
        } else if (mine && r == p) {
#pragma unroll
            for (int k = 0; k < W; k++)
                x[k] = d[k];
        }
        if (mine && r > j) {
            double l = x[j];
            if (pv != 0.0)
                l = fabs(pv) >= DBL_MIN ? l * (1.0 / pv) : l / pv;
            x[j] = l;
#pragma unroll
            for (int k = j + 1; k < W; k++)
                x[k] = __fma_rn(-l, u[k], x[k]);
        }
        if (c == 0 && threadIdx.x == 0)
            ipiv[j] = p;
    }
    if (c == 0 && threadIdx.x == 0) {
        long long t1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
        *cyc = t1 - t0;
        *info = inf;
    }
#pragma unroll
    for (int k = 0; k < W; k++)
        if (mine)
            A[(size_t)r * W + k] = x[k];
    cl.sync(); // no CTA leaves while another may still read its shared memory
}

// The second form (redux): the pivot search by the hardware's 32-bit max-reductions instead of
// shuffles (|a| >= 0, so its bit pattern orders as an integer: the high word + 1 (0: no
// candidate), then the low word among the lanes with the largest high word, then the lowest
// such lane by a ballot; rows ascend with the lane, the warp and the CTA, so the lowest lane is
// LAPACK's lowest row on ties); after the cluster barrier EVERY warp picks the pivot from the
// slots and copies the pivot and diagonal rows into its own shared slot (no second CTA barrier).
// ROLLED: the column loop is not unrolled (entry j of a thread's row picked by selects over its
// 32 registers): a 32x smaller body, for the instruction cache.
__device__ __forceinline__ double get_k(const double (&x)[W], int j)
{
    double v = x[0];
#pragma unroll
    for (int k = 1; k < W; k++)
        v = k == j ? x[k] : v;
    return v;
}

struct slots2 {
    unsigned hi[2], lo[2]; // the CTA's best key (hi 0: none)
    int r[2], w[2];        // its row and warp
    double crow[2][T / 32][W];
    double drow[2][W];
};

template <bool ROLLED, bool ALL>
__device__ __forceinline__ void column2(cg::cluster_group &cl, slots2 &S, double (&x)[W], int j,
                                        int r, bool mine, int P, int &inf, int *ipiv)
{
    __shared__ unsigned whi[T / 32], wlo[T / 32];
    __shared__ int wr[T / 32];
    __shared__ double u[T / 32][W], d[T / 32][W];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, c = (int)cl.block_rank();
    const int par = j & 1;
    // 1. the warp's candidate
    const double xj = get_k(x, j);
    const bool cand = mine && r >= j && !isnan(xj);
    const unsigned long long bits = (unsigned long long)__double_as_longlong(fabs(xj));
    const unsigned hi = cand ? (unsigned)(bits >> 32) + 1u : 0u, lo = cand ? (unsigned)bits : 0u;
    const unsigned mh = __reduce_max_sync(FULL, hi);
    const unsigned ml = __reduce_max_sync(FULL, hi == mh ? lo : 0u);
    const int wl = __ffs(__ballot_sync(FULL, hi == mh && lo == ml)) - 1;
    if (lane == wl) {
#pragma unroll
        for (int k = 0; k < W; k++)
            S.crow[par][wid][k] = x[k];
        whi[wid] = mh;
        wlo[wid] = ml;
        wr[wid] = r;
    }
    if (c == 0 && threadIdx.x == j)
#pragma unroll
        for (int k = 0; k < W; k++)
            S.drow[par][k] = x[k];
    __syncthreads();
    // 2. the CTA's (warp 0)
    if (wid == 0) {
        const unsigned h = lane < T / 32 ? whi[lane] : 0u, l = lane < T / 32 ? wlo[lane] : 0u;
        const unsigned bh = __reduce_max_sync(FULL, h);
        const unsigned bl = __reduce_max_sync(FULL, h == bh ? l : 0u);
        const int bw = __ffs(__ballot_sync(FULL, h == bh && l == bl)) - 1;
        if (lane == 0) {
            S.hi[par] = bh;
            S.lo[par] = bl;
            S.r[par] = wr[bw];
            S.w[par] = bw;
        }
    }
    // 3. the cluster's
    cl.sync();
    // 4. every warp (ALL) or warp 0: the pivot, the pivot row and the diagonal row into its
    // own slot (warp 0's: every warp's after a CTA barrier)
    __shared__ int piv_s;
    const int src = ALL ? wid : 0;
    int p = 0;
    if (ALL || wid == 0) {
        unsigned h = 0u, l = 0u;
        const slots2 *R = cl.map_shared_rank(&S, lane < P ? lane : 0);
        if (lane < P) {
            h = R->hi[par];
            l = R->lo[par];
        }
        const unsigned bh = __reduce_max_sync(FULL, h);
        const unsigned bl = __reduce_max_sync(FULL, h == bh ? l : 0u);
        const int bc = __ffs(__ballot_sync(FULL, h == bh && l == bl)) - 1;
        const slots2 *D = cl.map_shared_rank(&S, 0);
        const double dl = D->drow[par][lane];
        const double djj = __shfl_sync(FULL, dl, j);
        const slots2 *Q = cl.map_shared_rank(&S, bc);
        const int qr = Q->r[par], qw = Q->w[par];
        double ul;
        if (isnan(djj) || bh == 0u) {
            p = j;
            ul = dl;
        } else {
            p = qr;
            ul = Q->crow[par][qw][lane];
        }
        u[wid][lane] = ul;
        d[wid][lane] = dl;
        if (!ALL && lane == 0)
            piv_s = p;
        __syncwarp();
    }
    if (!ALL) {
        __syncthreads();
        p = piv_s;
    }
    // 5. swap, multiplier, update
    const double pv = u[src][j];
    if (pv == 0.0 && inf == 0)
        inf = j + 1;
    const bool isj = mine && r == j, isp = mine && r == p && p != j;
    if (isj || isp) {
#pragma unroll
        for (int k = 0; k < W; k++)
            x[k] = isj ? u[src][k] : d[src][k];
    }
    if (mine && r > j) {
        double l = get_k(x, j);
        if (pv != 0.0)
            l = fabs(pv) >= DBL_MIN ? l * (1.0 / pv) : l / pv;
#pragma unroll
        for (int k = 0; k < W; k++) {
            if (k == j)
                x[k] = l;
            else if (k > j)
                x[k] = __fma_rn(-l, u[src][k], x[k]);
        }
    }
    if (c == 0 && threadIdx.x == 0)
        ipiv[j] = p;
}

template <bool ROLLED, bool ALL>
__global__ void __launch_bounds__(T, 1)
leaf_cluster2(double *A, int m, int *ipiv, int *info, long long *cyc)
{
    cg::cluster_group cl = cg::this_cluster();
    __shared__ slots2 S;
    const int P = (int)cl.num_blocks(), c = (int)cl.block_rank();
    const int r = c * T + threadIdx.x;
    const bool mine = r < m;
    double x[W];
#pragma unroll
    for (int k = 0; k < W; k++)
        x[k] = mine ? A[(size_t)r * W + k] : 0.0;
    int inf = 0;
    cl.sync();
    long long t0 = 0;
    if (c == 0 && threadIdx.x == 0)
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    if (ROLLED) {
#pragma unroll 1
        for (int j = 0; j < W; j++)
            column2<ROLLED, ALL>(cl, S, x, j, r, mine, P, inf, ipiv);
    } else {
#pragma unroll
        for (int j = 0; j < W; j++)
            column2<ROLLED, ALL>(cl, S, x, j, r, mine, P, inf, ipiv);
    }
    if (c == 0 && threadIdx.x == 0) {
        long long t1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
        *cyc = t1 - t0;
        *info = inf;
    }
#pragma unroll
    for (int k = 0; k < W; k++)
        if (mine)
            A[(size_t)r * W + k] = x[k];
    cl.sync();
}

// The host reference: LAPACK's dgetf2 on the row-major m x 32 leaf (tool_host_getf2: the
// kernel's operations in the kernel's order, so the results agree to the bit).  ipiv 0-based,
// INFO 1-based.
static void ref_getf2(std::vector<double> &a, int m, int *ipiv, int *info)
{
    std::vector<int> p(W);
    *info = tool_host_getf2(a, m, W, W, p);
    for (int j = 0; j < W; j++)
        ipiv[j] = p[j] - 1;
}

static void fill(std::vector<double> &a, int m, unsigned long long s, int kind)
{
    for (size_t i = 0; i < (size_t)m * W; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        a[i] = (double)(s >> 11) * 0x1p-52 - 0.5;
    }
    if (kind == 1) // an exact zero column: INFO, no interchange there
        for (int i = 0; i < m; i++)
            a[(size_t)i * W + 5] = 0.0;
    if (kind == 2) { // NaN in a column below its diagonal, and on a later diagonal
        a[(size_t)(m / 2) * W + 3] = NAN;
        a[(size_t)9 * W + 9] = NAN;
    }
}

// max |P A - L U| / (|A| m eps) of the reference's factors (the reference checked by itself)
static double backward_error(const std::vector<double> &a0, const std::vector<double> &f,
                             const int *ipiv, int m)
{
    std::vector<double> pa(a0);
    for (int j = 0; j < W; j++)
        for (int k = 0; k < W; k++)
            std::swap(pa[(size_t)j * W + k], pa[(size_t)ipiv[j] * W + k]);
    double err = 0, nrm = 0;
    for (int i = 0; i < m; i++)
        for (int k = 0; k < W; k++) {
            double s = 0;
            for (int q = 0; q <= std::min(i, k); q++)
                s += (q == i ? 1.0 : f[(size_t)i * W + q]) * (q <= k ? f[(size_t)q * W + k] : 0);
            if (isnan(s))
                return NAN; // NaN in the factors: no backward error to speak of
            err = std::max(err, fabs(pa[(size_t)i * W + k] - s));
            nrm = std::max(nrm, fabs(pa[(size_t)i * W + k]));
        }
    return err / (nrm * m * DBL_EPSILON);
}

int main(int argc, char **argv)
{
    const int ms[] = {512, 1000, 2048, 4096, 6000, 8192};
    if (argc > 1 && !strcmp(argv[1], "host")) {
        for (int m : ms)
            for (int kind = 0; kind < 3; kind++) {
                std::vector<double> a(m * W), f;
                int ipiv[W], info;
                fill(a, m, 11 + m + kind, kind);
                f = a;
                ref_getf2(f, m, ipiv, &info);
                int inrange = 1;
                for (int j = 0; j < W; j++)
                    inrange &= ipiv[j] >= j && ipiv[j] < m;
                printf("host reference m %5d %s: backward error %.2f (x m eps |A|), INFO %d, "
                       "pivots %s\n", m, kind == 0 ? "rand" : kind == 1 ? "zero" : "nan",
                       backward_error(a, f, ipiv, m), info, inrange ? "in range" : "OUT OF RANGE");
            }
        return 0;
    }
    typedef void (*kern)(double *, int, int *, int *, long long *);
    const kern ks[] = {leaf_cluster, leaf_cluster2<false, true>, leaf_cluster2<true, true>,
                       leaf_cluster2<false, false>};
    const char *kn[] = {"shfl", "redux", "rolled", "redux0"};
    for (kern k : ks)
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    double *dA;
    int *dpiv, *dinfo;
    long long *dcyc;
    CK(cudaMalloc(&dA, (size_t)PMAX * T * W * sizeof(double)));
    CK(cudaMalloc(&dpiv, W * sizeof(int)));
    CK(cudaMalloc(&dinfo, sizeof(int)));
    CK(cudaMalloc(&dcyc, sizeof(long long)));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int fails = 0;
    printf("%6s %6s %3s %4s | %9s %9s %9s | %s\n", "form", "m", "P", "case", "kernel us",
           "us/col", "gt us/col", "check");
    for (int v = 0; v < 4; v++)
    for (int m : ms)
        for (int kind = 0; kind < 3; kind++) {
            const int P = (m + T - 1) / T;
            std::vector<double> a(m * W), f, g(m * W);
            fill(a, m, 11 + m + kind, kind);
            f = a;
            int rp[W], ri, gp[W], gi;
            ref_getf2(f, m, rp, &ri);
            cudaLaunchConfig_t cfg = {};
            cudaLaunchAttribute at[1];
            at[0].id = cudaLaunchAttributeClusterDimension;
            at[0].val.clusterDim.x = P;
            at[0].val.clusterDim.y = 1;
            at[0].val.clusterDim.z = 1;
            cfg.gridDim = dim3(P);
            cfg.blockDim = dim3(T);
            cfg.attrs = at;
            cfg.numAttrs = 1;
            float best = 1e30f;
            long long gt = 0;
            for (int rep = 0; rep < REPS; rep++) {
                CK(cudaMemcpy(dA, a.data(), (size_t)m * W * sizeof(double),
                              cudaMemcpyHostToDevice));
                CK(cudaEventRecord(e0));
                CK(cudaLaunchKernelEx(&cfg, ks[v], dA, m, dpiv, dinfo, dcyc));
                CK(cudaEventRecord(e1));
                CK(cudaGetLastError());
                CK(cudaEventSynchronize(e1));
                float ms_;
                CK(cudaEventElapsedTime(&ms_, e0, e1));
                if (ms_ < best) {
                    best = ms_;
                    CK(cudaMemcpy(&gt, dcyc, sizeof gt, cudaMemcpyDeviceToHost));
                }
            }
            CK(cudaMemcpy(g.data(), dA, (size_t)m * W * sizeof(double), cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(gp, dpiv, sizeof gp, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&gi, dinfo, sizeof gi, cudaMemcpyDeviceToHost));
            bool ok = gi == ri && !memcmp(gp, rp, sizeof gp);
            for (size_t i = 0; ok && i < g.size(); i++)
                ok = (isnan(g[i]) && isnan(f[i])) || g[i] == f[i];
            fails += !ok;
            printf("%6s %6d %3d %4s | %9.2f %9.3f %9.3f | %s (INFO %d / %d)\n", kn[v], m, P,
                   kind == 0 ? "rand" : kind == 1 ? "zero" : "nan", best * 1e3,
                   best * 1e3 / W, gt * 1e-3 / W, ok ? "same as the reference" : "DIFFERENT",
                   gi, ri);
        }
    printf("%s\n", fails ? "FAILED" : "all checks passed");
    return fails != 0;
}
