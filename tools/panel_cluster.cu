// A whole panel LU (m x nb, partial pivoting, LAPACK's dgetf2 results) in ONE launch of one
// thread-block cluster: does a panel that takes its SMs once escape the waits that make the
// native panel 5-12x slower beside a DGEMM?  (experiment, not built by meson):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v tools/panel_cluster.cu \
//        -lcublas -lcusolver -o /tmp/panel_cluster && /tmp/panel_cluster     (on a GPU)
//   /tmp/panel_cluster host                       (the host checks alone, no GPU)
//
// docs/performance.md (twenty-fifth stop): the native panel (16 leaf launches and ~30 cuBLAS
// calls for 512 columns) takes 1.6 ms alone for 8192 x 512 and 13.7 ms beside 8192^3 DGEMMs;
// cusolverDnDgetrf 1.9 / 7.7 ms.  Each launch seems to wait for SMs to drain.
//
// Kernel: P = ceil(m / 512) CTAs of 512 threads in one cluster (P <= 16), a thread per row
// (thread t of CTA c owns panel row c*512 + t); the panel row-major in global memory (leading
// dimension nb, nb a multiple of 32, m >= nb), every cross-CTA read through L2 (__ldcg) after a
// cluster barrier.  Right-looking by leaves of 32 columns; leaf b (columns c0 = 32b ...):
//   1. every thread loads its row's 32 leaf entries into registers;
//   2. the leaf, column by column, as the library's cluster leaf (hyt_dgetrf_leaf_cluster_kernel:
//      32-bit max-reductions on |a|'s bits, the CTAs' candidates through distributed shared
//      memory after a cluster barrier; the diagonal row c0 + jj from the CTA that owns it);
//      stores the leaf's columns back; cluster barrier;
//   3. the leaf's 32 interchanges, composed into one permutation of at most 64 rows, applied to
//      every column outside the leaf (each CTA a share of the 32-column chunks); barrier;
//   4. U12 = inv(L11) A12: the CTA that owns rows c0 .. c0+31 (one of its warps) puts L11 in
//      shared memory; each of its warps solves UC-column chunks of A12, a lane per row, the
//      rows in order by shuffles; barrier;
//   5. A22 -= L21 U12: every row below c0 + 32, UC columns at a time, U12's chunk in shared
//      memory, the row's L21 entries still in the thread's registers; barrier.
// Every element sees the same FMAs in the same order as the unblocked right-looking dgetf2 (the
// host reference below), so factors, pivots and INFO must agree to the bit.
//
// Status: measured 2026-11-27 on one H200 (docs/performance.md, twenty-sixth stop): the kernel
// agrees with the reference to the bit on every shape and case (random, a zero column, NaN),
// but is slow: 8192 x 512 6.4 ms alone and 9.0 beside (cusolverDnDgetrf 1.9 / 8.2), 512 x 512
// 4.7 ms (0.96); the kernel's own clock (globaltimer) equals its event time, so the time is the
// updates inside it on the CUDA cores of P SMs, not launches.  Predicted had been ~2 ms for
// 8192 x 512 alone and beside, 1.5-2 ms for 512 x 512.  Not taken into the library.
//
// Prints, per m x nb: the kernel alone and beside back-to-back DGEMMs (8192^3, low-priority
// stream; the panel on a high-priority one), cusolverDnDgetrf on a column-major m x nb matrix
// alone and beside, median of REPS, ms; and whether the kernel agrees with the reference.
#include "tool_cuda.h"

#include <cooperative_groups.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;

#define W 32      // leaf width
#define T 512     // threads per CTA, a row each
#define NW (T / 32)
#define PMAX 16   // CTAs per cluster
#define UC 8      // columns of a U12 / A22 chunk (16: 800 bytes of spill loads)
#define REPS 7
#define FULL 0xffffffffu

struct slots {
    unsigned hi[2], lo[2]; // the CTA's best key (hi 0: none)
    int r[2], w[2];        // its panel row and warp
    double crow[2][NW][W]; // each warp's candidate row (the leaf's entries)
    double drow[2][W];     // the diagonal row (its owner's CTA)
};

// The leaf's pivots q < 32 (row c0 + q with piv[q] >= c0 + q) composed into one permutation by
// warp 0: row to[e] receives the old row from[e], e < *ne <= 64.  (The library's leaf_compose.)
__device__ void compose(const int *piv, int r0, int cnt, int *to, int *from, int *ne)
{
    const int lane = threadIdx.x & 31;
    if (threadIdx.x >= 32)
        return;
    int to_a = r0 + lane, from_a = to_a, to_b = -1, from_b = -1, nb_extra = 0;
    for (int q = 0; q < cnt; q++) {
        const int p = piv[q];
        if (p == r0 + q)
            continue;
        int fq = __shfl_sync(FULL, from_a, q), fp;
        if (p < r0 + cnt) {
            fp = __shfl_sync(FULL, from_a, p - r0);
            if (lane == p - r0)
                from_a = fq;
        } else {
            unsigned hit = __ballot_sync(FULL, to_b == p);
            int e = hit ? __ffs(hit) - 1 : nb_extra;
            if (!hit) {
                if (lane == e) {
                    to_b = p;
                    from_b = p;
                }
                nb_extra++;
            }
            fp = __shfl_sync(FULL, from_b, e);
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

__global__ void __launch_bounds__(T, 1)
panel_cluster(double *A, int m, int nb, int *ipiv, int *info, long long *gt)
{
    cg::cluster_group cl = cg::this_cluster();
    __shared__ slots S;
    __shared__ unsigned whi[NW], wlo[NW];
    __shared__ int wr[NW];
    __shared__ double su[W], sd[W];
    __shared__ int spiv[W], piv_s;
    __shared__ int perm_to[2 * W], perm_from[2 * W], perm_n;
    __shared__ double buf[2 * W][33];   // the interchanges' chunk
    __shared__ double l11[W][W + 1];    // L11 (its owner CTA)
    __shared__ double u12[W][UC];       // a chunk of U12
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int P = (int)cl.num_blocks(), c = (int)cl.block_rank();
    const int r = c * T + threadIdx.x;
    const bool mine = r < m;
    int inf = 0;
    long long t0 = 0;
    if (c == 0 && threadIdx.x == 0)
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    cl.sync();

    for (int c0 = 0; c0 < nb; c0 += W) {
        // 1. the row's leaf entries
        double x[W];
#pragma unroll
        for (int k = 0; k < W; k++)
            x[k] = mine ? __ldcg(A + (size_t)r * nb + c0 + k) : 0.0;

        // 2. the leaf
#pragma unroll
        for (int jj = 0; jj < W; jj++) {
            const int j = c0 + jj, par = jj & 1, dc = j / T; // dc: the diagonal row's CTA
            const bool cand = mine && r >= j && !isnan(x[jj]);
            const unsigned long long bits =
                (unsigned long long)__double_as_longlong(fabs(x[jj]));
            const unsigned hi = cand ? (unsigned)(bits >> 32) + 1u : 0u;
            const unsigned lo = cand ? (unsigned)bits : 0u;
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
            if (r == j)
#pragma unroll
                for (int k = 0; k < W; k++)
                    S.drow[par][k] = x[k];
            __syncthreads();
            if (wid == 0) {
                const unsigned h = lane < NW ? whi[lane] : 0u, l = lane < NW ? wlo[lane] : 0u;
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
            cl.sync();
            if (wid == 0) {
                unsigned h = 0u, l = 0u;
                if (lane < P) {
                    const slots *R = cl.map_shared_rank(&S, lane);
                    h = R->hi[par];
                    l = R->lo[par];
                }
                const unsigned bh = __reduce_max_sync(FULL, h);
                const unsigned bl = __reduce_max_sync(FULL, h == bh ? l : 0u);
                const int bc = __ffs(__ballot_sync(FULL, h == bh && l == bl)) - 1;
                const slots *D = cl.map_shared_rank(&S, dc);
                const double dl = D->drow[par][lane];
                const double djj = __shfl_sync(FULL, dl, jj);
                int p = j;
                double ul = dl;
                if (!isnan(djj) && bh != 0u) {
                    const slots *Q = cl.map_shared_rank(&S, bc);
                    p = Q->r[par];
                    ul = Q->crow[par][Q->w[par]][lane];
                }
                su[lane] = ul;
                sd[lane] = dl;
                if (lane == 0)
                    piv_s = p;
            }
            __syncthreads();
            const int p = piv_s;
            const double pv = su[jj];
            if (threadIdx.x == 0)
                spiv[jj] = p;
            if (pv == 0.0 && inf == 0)
                inf = j + 1;
            if (c == 0 && threadIdx.x == 0)
                ipiv[j] = p;
            if (mine && (r == j || (r == p && p != j))) {
                const bool isj = r == j;
#pragma unroll
                for (int k = 0; k < W; k++)
                    x[k] = isj ? su[k] : sd[k];
            }
            if (mine && r > j) {
                double l = x[jj];
                if (pv != 0.0)
                    l = fabs(pv) >= DBL_MIN ? l * (1.0 / pv) : l / pv;
                x[jj] = l;
#pragma unroll
                for (int k = jj + 1; k < W; k++)
                    x[k] = __fma_rn(-l, su[k], x[k]);
            }
        }
        if (mine)
#pragma unroll
            for (int k = 0; k < W; k++)
                A[(size_t)r * nb + c0 + k] = x[k];
        cl.sync(); // the leaf's columns stored; every CTA has the same spiv

        // 3. the interchanges outside the leaf
        if (nb > W) {
            compose(spiv, c0, W, perm_to, perm_from, &perm_n); // warp 0 (the others return)
            __syncthreads();
            const int ne = perm_n, nout = nb - W, nch = (nout + 31) / 32;
            for (int ch = c; ch < nch; ch += P) {
                const int cl_ = ch * 32 + lane, col = cl_ < c0 ? cl_ : cl_ + W;
                const bool ok = cl_ < nout;
                for (int e = wid; e < ne; e += NW)
                    if (ok)
                        buf[e][lane] = __ldcg(A + (size_t)perm_from[e] * nb + col);
                __syncthreads();
                for (int e = wid; e < ne; e += NW)
                    if (ok)
                        A[(size_t)perm_to[e] * nb + col] = buf[e][lane];
                __syncthreads();
            }
        }
        cl.sync();
        const int cr = c0 + W; // the first column right of the leaf
        if (cr >= nb)
            break;

        // 4. U12 = inv(L11) A12 in the CTA that owns rows c0 .. c0+31
        if (c == c0 / T) {
            if (r >= c0 && r < cr)
#pragma unroll
                for (int k = 0; k < W; k++)
                    l11[r - c0][k] = x[k];
            __syncthreads();
            const int i = c0 + lane; // the lane's row
            for (int cc = cr + wid * UC; cc < nb; cc += NW * UC) {
                double y[UC];
#pragma unroll
                for (int q = 0; q < UC; q++)
                    y[q] = cc + q < nb ? __ldcg(A + (size_t)i * nb + cc + q) : 0.0;
#pragma unroll
                for (int kk = 0; kk < W - 1; kk++) {
                    const double lk = l11[lane][kk];
#pragma unroll
                    for (int q = 0; q < UC; q++) {
                        const double yk = __shfl_sync(FULL, y[q], kk);
                        if (lane > kk)
                            y[q] = __fma_rn(-lk, yk, y[q]);
                    }
                }
#pragma unroll
                for (int q = 0; q < UC; q++)
                    if (cc + q < nb)
                        A[(size_t)i * nb + cc + q] = y[q];
            }
        }
        cl.sync();

        // 5. A22 -= L21 U12
        for (int cc = cr; cc < nb; cc += UC) {
            for (int e = threadIdx.x; e < W * UC; e += T) {
                const int k = e / UC, q = e % UC;
                u12[k][q] = cc + q < nb ? __ldcg(A + (size_t)(c0 + k) * nb + cc + q) : 0.0;
            }
            __syncthreads();
            if (mine && r >= cr) {
                double y[UC];
#pragma unroll
                for (int q = 0; q < UC; q++)
                    y[q] = cc + q < nb ? __ldcg(A + (size_t)r * nb + cc + q) : 0.0;
#pragma unroll
                for (int k = 0; k < W; k++)
#pragma unroll
                    for (int q = 0; q < UC; q++)
                        y[q] = __fma_rn(-x[k], u12[k][q], y[q]);
#pragma unroll
                for (int q = 0; q < UC; q++)
                    if (cc + q < nb)
                        A[(size_t)r * nb + cc + q] = y[q];
            }
            __syncthreads();
        }
        cl.sync();
    }
    if (c == 0 && threadIdx.x == 0) {
        long long t1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
        *gt = t1 - t0;
        *info = inf;
    }
    cl.sync(); // no CTA leaves while another may still read its shared memory
}

// One column of dgetf2 on the host, the kernel's operations in the kernel's order: column j's
// pivot (LAPACK's rule, NaN none; the diagonal row when its entry is NaN) into ipiv (0-based),
// INFO (1-based) at the first zero pivot, rows j and the pivot interchanged in columns
// [k0, k1), the multipliers, and the rank-1 update of columns (j, k1).
static void column_step(std::vector<double> &a, int m, int nb, int j, int k0, int k1, int *ipiv,
                        int *info)
{
    int p = j;
    const double dj = a[(size_t)j * nb + j];
    if (!isnan(dj)) {
        double bv = -1.0;
        for (int i = j; i < m; i++) {
            const double v = a[(size_t)i * nb + j];
            if (!isnan(v) && fabs(v) > bv) {
                bv = fabs(v);
                p = i;
            }
        }
    }
    ipiv[j] = p;
    const double pv = a[(size_t)p * nb + j];
    if (pv == 0.0 && *info == 0)
        *info = j + 1;
    for (int k = k0; k < k1; k++)
        std::swap(a[(size_t)j * nb + k], a[(size_t)p * nb + k]);
    for (int i = j + 1; i < m; i++) {
        double l = a[(size_t)i * nb + j];
        if (pv != 0.0)
            l = fabs(pv) >= DBL_MIN ? l * (1.0 / pv) : l / pv;
        a[(size_t)i * nb + j] = l;
        for (int k = j + 1; k < k1; k++)
            a[(size_t)i * nb + k] = fma(-l, a[(size_t)j * nb + k], a[(size_t)i * nb + k]);
    }
}

// The host reference: LAPACK's unblocked right-looking dgetf2 on the row-major m x nb panel.
static void ref_getf2(std::vector<double> &a, int m, int nb, int *ipiv, int *info)
{
    *info = 0;
    for (int j = 0; j < nb; j++)
        column_step(a, m, nb, j, 0, nb, ipiv, info);
}

// The kernel's order on the host: leaves of W columns factored alone, then their interchanges
// on the other columns, U12, A22 (one thread's work after another).  `host` checks that it
// agrees with ref_getf2 to the bit: the blocked order changes no operation.
static void blocked_getf2(std::vector<double> &a, int m, int nb, int *ipiv, int *info)
{
    *info = 0;
    for (int c0 = 0; c0 < nb; c0 += W) {
        const int cr = std::min(c0 + W, nb);
        for (int j = c0; j < cr; j++)
            column_step(a, m, nb, j, c0, cr, ipiv, info);
        for (int j = c0; j < cr; j++) // the interchanges outside the leaf, in order
            for (int k = 0; k < nb; k++)
                if (k < c0 || k >= cr)
                    std::swap(a[(size_t)j * nb + k], a[(size_t)ipiv[j] * nb + k]);
        for (int i = c0 + 1; i < cr; i++) // U12, a row after another, k ascending
            for (int k = c0; k < i; k++)
                for (int cc = cr; cc < nb; cc++)
                    a[(size_t)i * nb + cc] =
                        fma(-a[(size_t)i * nb + k], a[(size_t)k * nb + cc], a[(size_t)i * nb + cc]);
        for (int r = cr; r < m; r++) // A22, k ascending
            for (int k = c0; k < cr; k++)
                for (int cc = cr; cc < nb; cc++)
                    a[(size_t)r * nb + cc] =
                        fma(-a[(size_t)r * nb + k], a[(size_t)k * nb + cc], a[(size_t)r * nb + cc]);
    }
}

static void fill(std::vector<double> &a, size_t n, unsigned long long s, int kind, int m,
                 int nb)
{
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        a[i] = (double)(s >> 11) * 0x1p-52 - 0.5;
    }
    if (kind == 1) // an exact zero column in the second leaf: INFO
        for (int i = 0; i < m; i++)
            a[(size_t)i * nb + 37] = 0.0;
    if (kind == 2) { // NaN below a diagonal, and on a later diagonal
        a[(size_t)(m / 2) * nb + 3] = NAN;
        a[(size_t)40 * nb + 40] = NAN;
    }
}

// max |P A - L U| / (|A| m eps) of factors f of a0 with pivots ipiv (NaN: NaN in the factors)
static double backward_error(const std::vector<double> &a0, const std::vector<double> &f,
                             const int *ipiv, int m, int nb)
{
    std::vector<double> pa(a0);
    for (int j = 0; j < nb; j++)
        for (int k = 0; k < nb; k++)
            std::swap(pa[(size_t)j * nb + k], pa[(size_t)ipiv[j] * nb + k]);
    double err = 0, nrm = 0;
    for (int i = 0; i < m; i++)
        for (int k = 0; k < nb; k++) {
            double s = 0;
            for (int q = 0; q <= std::min(i, k); q++)
                s += (q == i ? 1.0 : f[(size_t)i * nb + q]) * f[(size_t)q * nb + k];
            if (isnan(s))
                return NAN;
            err = std::max(err, fabs(pa[(size_t)i * nb + k] - s));
            nrm = std::max(nrm, fabs(pa[(size_t)i * nb + k]));
        }
    return err / (nrm * m * DBL_EPSILON);
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    const int shapes[][2] = {{512, 512}, {1000, 256}, {2048, 512}, {4096, 512}, {8192, 512},
                             {8192, 256}, {6000, 96}};
    if (argc > 1 && !strcmp(argv[1], "host")) {
        int fails = 0;
        for (auto &sh : shapes) {
            const int m = sh[0], nb = sh[1];
            if ((size_t)m * nb * nb > 300000000ull)
                continue; // the check is cubic: the small shapes only
            for (int kind = 0; kind < 3; kind++) {
                std::vector<double> a((size_t)m * nb), f;
                std::vector<int> ipiv(nb);
                int info;
                fill(a, a.size(), 11 + m + nb + kind, kind, m, nb);
                f = a;
                ref_getf2(f, m, nb, ipiv.data(), &info);
                int inrange = 1;
                for (int j = 0; j < nb; j++)
                    inrange &= ipiv[j] >= j && ipiv[j] < m;
                std::vector<double> b = a;
                std::vector<int> bpiv(nb);
                int binfo;
                blocked_getf2(b, m, nb, bpiv.data(), &binfo);
                size_t bad = 0;
                for (size_t i = 0; i < b.size(); i++)
                    bad += !((isnan(b[i]) && isnan(f[i])) || b[i] == f[i]);
                const bool same = !bad && bpiv == ipiv && binfo == info;
                fails += !same || !inrange;
                printf("host reference %5d x %4d %s: backward error %.2f (x m eps |A|), INFO %d, "
                       "pivots %s; the blocked order %s\n", m, nb,
                       kind == 0 ? "rand" : kind == 1 ? "zero" : "nan ",
                       backward_error(a, f, ipiv.data(), m, nb), info,
                       inrange ? "in range" : "OUT OF RANGE",
                       same ? "the same to the bit" : "DIFFERENT");
            }
        }
        printf("%s\n", fails ? "FAILED" : "all host checks passed");
        return fails != 0;
    }
    CK(cudaFuncSetAttribute(panel_cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    int lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t sp, sg;
    CK(cudaStreamCreateWithPriority(&sp, cudaStreamNonBlocking, hi));
    CK(cudaStreamCreateWithPriority(&sg, cudaStreamNonBlocking, lo));
    const int gn = 8192;
    double *gA, *gB, *gC, *dA, *dA0, *dC, *dC0;
    int *dpiv, *dinfo;
    long long *dgt;
    CK(cudaMalloc(&gA, (size_t)gn * gn * sizeof(double)));
    CK(cudaMalloc(&gB, (size_t)gn * gn * sizeof(double)));
    CK(cudaMalloc(&gC, (size_t)gn * gn * sizeof(double)));
    tool_fill(gA, (size_t)gn * gn, 1.0);
    tool_fill(gB, (size_t)gn * gn, 1.0);
    CK(cudaMalloc(&dA, (size_t)PMAX * T * 512 * sizeof(double)));
    CK(cudaMalloc(&dC, (size_t)PMAX * T * 512 * sizeof(double)));
    CK(cudaMalloc(&dA0, (size_t)PMAX * T * 512 * sizeof(double)));
    CK(cudaMalloc(&dC0, (size_t)PMAX * T * 512 * sizeof(double)));
    tool_fill(dC0, (size_t)PMAX * T * 512, 1.0); // the peer's matrices (column-major)
    CK(cudaMalloc(&dpiv, 1024 * sizeof(int)));
    CK(cudaMalloc(&dinfo, sizeof(int)));
    CK(cudaMalloc(&dgt, sizeof(long long)));
    cublasHandle_t cb;
    CB(cublasCreate(&cb));
    CB(cublasSetStream(cb, sg));
    cusolverDnHandle_t cs;
    CB(cusolverDnCreate(&cs));
    CB(cusolverDnSetStream(cs, sp));
    int lwork = 0;
    CB(cusolverDnDgetrf_bufferSize(cs, PMAX * T, 512, dC, PMAX * T, &lwork));
    double *dwork;
    CK(cudaMalloc(&dwork, (size_t)lwork * sizeof(double)));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const double one = 1.0, zero = 0.0;
    int fails = 0;
    printf("%5s %4s %4s %3s | %9s %9s %9s | %9s %9s | %s\n", "m", "nb", "case", "P", "alone ms",
           "gt ms", "beside ms", "cus alone", "cus besid", "check");
    for (auto &sh : shapes) {
        const int m = sh[0], nb = sh[1], P = (m + T - 1) / T;
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = P;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3(P);
        cfg.blockDim = dim3(T);
        cfg.stream = sp;
        cfg.attrs = at;
        cfg.numAttrs = 1;
        for (int kind = 0; kind < 3; kind++) {
            std::vector<double> a((size_t)m * nb), f, g((size_t)m * nb);
            std::vector<int> rp(nb), gp(nb);
            int ri, gi;
            fill(a, a.size(), 11 + m + nb + kind, kind, m, nb);
            f = a;
            ref_getf2(f, m, nb, rp.data(), &ri);
            std::vector<double> ta[2], tc[2];
            long long gt = 0;
            const size_t bytes = a.size() * sizeof(double);
            CK(cudaMemcpy(dA0, a.data(), bytes, cudaMemcpyHostToDevice));
            for (int beside = 0; beside < 2; beside++) {
                if (beside)
                    for (int q = 0; q < 2 * REPS + 2; q++)
                        CB(cublasDgemm(cb, CUBLAS_OP_N, CUBLAS_OP_N, gn, gn, gn, &one, gA, gn,
                                       gB, gn, &zero, gC, gn));
                for (int rep = 0; rep < REPS; rep++) {
                    float ms;
                    // (device to device on the panel's stream: nothing waits for the DGEMMs)
                    CK(cudaMemcpyAsync(dA, dA0, bytes, cudaMemcpyDeviceToDevice, sp));
                    CK(cudaEventRecord(e0, sp));
                    CK(cudaLaunchKernelEx(&cfg, panel_cluster, dA, m, nb, dpiv, dinfo, dgt));
                    CK(cudaEventRecord(e1, sp));
                    CK(cudaEventSynchronize(e1));
                    CK(cudaGetLastError());
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    ta[beside].push_back(ms);
                    if (!beside && rep == 0)
                        CK(cudaMemcpy(&gt, dgt, sizeof gt, cudaMemcpyDeviceToHost));
                    if (kind == 0) { // the peer on a column-major matrix of the same shape
                        CK(cudaMemcpyAsync(dC, dC0, (size_t)m * nb * sizeof(double),
                                           cudaMemcpyDeviceToDevice, sp));
                        CK(cudaEventRecord(e0, sp));
                        CB(cusolverDnDgetrf(cs, m, nb, dC, m, dwork, dpiv, dinfo));
                        CK(cudaEventRecord(e1, sp));
                        CK(cudaEventSynchronize(e1));
                        CK(cudaEventElapsedTime(&ms, e0, e1));
                        tc[beside].push_back(ms);
                    }
                }
                CK(cudaDeviceSynchronize());
            }
            // the factors of the last run alone are overwritten by the runs beside: once more
            CK(cudaMemcpy(dA, dA0, bytes, cudaMemcpyDeviceToDevice));
            CK(cudaLaunchKernelEx(&cfg, panel_cluster, dA, m, nb, dpiv, dinfo, dgt));
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(g.data(), dA, g.size() * sizeof(double), cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(gp.data(), dpiv, nb * sizeof(int), cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&gi, dinfo, sizeof gi, cudaMemcpyDeviceToHost));
            bool ok = gi == ri && gp == rp;
            size_t bad = 0;
            for (size_t i = 0; i < g.size(); i++)
                bad += !((isnan(g[i]) && isnan(f[i])) || g[i] == f[i]);
            ok = ok && !bad;
            fails += !ok;
            printf("%5d %4d %4s %3d | %9.3f %9.3f %9.3f | %9.3f %9.3f | %s (INFO %d / %d, %zu "
                   "entries differ)\n", m, nb, kind == 0 ? "rand" : kind == 1 ? "zero" : "nan",
                   P, median(ta[0]), gt * 1e-6, median(ta[1]),
                   kind == 0 ? median(tc[0]) : 0.0, kind == 0 ? median(tc[1]) : 0.0,
                   ok ? "same as the reference" : "DIFFERENT", gi, ri, bad);
        }
    }
    printf("%s\n", fails ? "FAILED" : "all checks passed");
    return fails != 0;
}
