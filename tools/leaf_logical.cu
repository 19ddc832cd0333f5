// The one-CTA leaf's column loop (R <= 512 rows x 32 columns, a thread per row, LAPACK's pivot
// rule) with the interchanges kept as LOGICAL row numbers instead of moving rows between
// threads: is the column chain shorter?  (experiment, not built by meson):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v tools/leaf_logical.cu \
//        -o /tmp/leaf_logical && /tmp/leaf_logical            (on a Hopper GPU)
//   /tmp/leaf_logical host                                    (the host reference alone)
//
// docs/performance.md (thirty-seventh stop): in the short-panel kernel (gpu_dgetrf_short.cu) a
// leaf column costs ~2500 cycles whatever the leaf's rows; Nsight Compute finds the warps at
// the column's CTA barrier 84% of the time, waiting for the warp that owns the diagonal row,
// which (leaf_cta_columns, hyt_gpu_leaf.cuh) copies that row to shared memory before the
// barrier and, after it, takes the pivot row in its place (the pivot row's owner takes the old
// diagonal row).  Here every thread keeps its row and a logical row number lr instead:
//   1. the candidates are the rows with lr >= j (NaN is none); a warp's candidate is the
//      largest key (the library's: |a|'s bits), then the lowest lr among the lanes holding it
//      (a third warp reduction, where the library relies on lanes ascending with rows); its
//      row and key go to the warp's slot; the thread with lr == j says whether its entry is
//      NaN;
//   2. CTA barrier;
//   3. every warp picks the best warp's slot the same way (largest key, lowest lr); when the
//      diagonal entry is NaN or nobody offers one (every candidate NaN) the diagonal row is the
//      pivot: a uniform, rare branch where its owner copies it and the CTA passes a second
//      barrier;
//   4. the interchange is a relabelling (lr p <-> j), no data moves; every row with lr > j
//      scales and updates its entries as the library does (the same FMAs, so the same bits).
// At the end each thread writes its row to row lr.  Prints, for R = 512, 256, 64 and data with
// ties and NaN: whether both loops give the same pivots, INFO and bits (and the pivots of a
// host dgetf2 with the same rule), and each loop's cycles a column (clock64 of thread 0 around
// the loop, best of REPS launches) and best launch time.
//
// Status: written 2026-11-28 (thirty-seventh stop), compiled, NOT RUN on a GPU (no device time
// left); the host reference ran.
#include "tool_cuda.h"

#include "../gpu_kernels/hyt_gpu_leaf.cuh"

#include <limits.h>
#include <math.h>
#include <string.h>

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

// The library's column loop (leaf_cta_columns), rows in from and out to A (R x 32, row-major).
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
    leaf_cta_columns(x, t, mine, w, 0, S, spiv, ipiv, info);
    __syncthreads();
    if (t == 0)
        d_cycles = clock64() - c0;
    row_out(x, A, t, mine, w);
}

struct logical_slots {
    double crow[2][LEAF_WARPS][LEAF_W], drow[LEAF_W];
    unsigned whi[2][LEAF_WARPS], wlo[2][LEAF_WARPS];
    int wr[2][LEAF_WARPS], dnan[2];
};

__global__ void __launch_bounds__(LEAF_THREADS, 1)
k_logical(double *A, int R, int w, int *ipiv, int *info)
{
    __shared__ logical_slots S;
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
        const unsigned mh = __reduce_max_sync(full, hi);
        const unsigned ml = __reduce_max_sync(full, hi == mh ? lo : 0u);
        const bool top = hi == mh && lo == ml;
        const unsigned mr = __reduce_min_sync(full, top ? (unsigned)lr : 0xffffffffu);
        if (top && (unsigned)lr == mr) {
#pragma unroll
            for (int k = 0; k < LEAF_W; k++)
                S.crow[par][wid][k] = x[k];
            S.whi[par][wid] = mh;
            S.wlo[par][wid] = ml;
            S.wr[par][wid] = lr;
        }
        if (mine && lr == jj)
            S.dnan[par] = isnan(x[jj]);
        __syncthreads(); /* 2. */
        /* 3. the pivot, in every warp */
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
        } else { /* the diagonal row is the pivot: rare (NaN), uniform across the CTA */
            p = jj;
            if (mine && lr == jj)
#pragma unroll
                for (int k = 0; k < LEAF_W; k++)
                    S.drow[k] = x[k];
            __syncthreads();
            u = S.drow;
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
        if (mine && lr > jj) {
            double m = x[jj];
            if (pv != 0.0)
                m = fabs(pv) >= DBL_MIN ? m * (1.0 / pv) : m / pv;
            x[jj] = m;
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

// Host dgetf2 with the library's rule (the diagonal row when its entry is NaN or every
// candidate is NaN, else the first largest |a|; careful scaling; the update done after a zero
// pivot).  A: R x 32 row-major.  Returns INFO.
static int host_getf2(std::vector<double> &A, int R, int w, std::vector<int> &ipiv)
{
    int info = 0;
    for (int j = 0; j < w; j++) {
        int p = -1;
        double best = -1.0;
        for (int r = j; r < R; r++) {
            const double v = A[r * LEAF_W + j];
            if (!isnan(v) && fabs(v) > best) {
                best = fabs(v);
                p = r;
            }
        }
        if (isnan(A[j * LEAF_W + j]) || p < 0)
            p = j;
        ipiv[j] = p + 1;
        for (int q = 0; q < LEAF_W; q++)
            std::swap(A[j * LEAF_W + q], A[p * LEAF_W + q]);
        const double pv = A[j * LEAF_W + j];
        if (pv == 0.0 && !info)
            info = j + 1;
        for (int r = j + 1; r < R; r++) {
            double m = A[r * LEAF_W + j];
            if (pv != 0.0)
                m = fabs(pv) >= DBL_MIN ? m * (1.0 / pv) : m / pv;
            A[r * LEAF_W + j] = m;
            for (int k = j + 1; k < w; k++)
                A[r * LEAF_W + k] = fma(-m, A[j * LEAF_W + k], A[r * LEAF_W + k]);
        }
    }
    return info;
}

// Test data: kind 0 random, 1 ties (entries in {-2, -1, 1, 2}), 2 NaN (below), 3 a zero column
// (INFO).
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
}

int main(int argc, char **argv)
{
    const bool host = argc > 1 && !strcmp(argv[1], "host");
    const int Rs[] = {512, 256, 64};
    int bad = 0;
    for (int R : Rs)
        for (int kind = 0; kind < 4; kind++) {
            std::vector<double> A0, H;
            make(A0, R, kind, 17u * R + kind);
            H = A0;
            std::vector<int> hp(LEAF_W);
            const int hinfo = host_getf2(H, R, LEAF_W, hp);
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
            std::vector<double> out[2];
            std::vector<int> piv[2];
            int info[2];
            double ms[2];
            long long cyc[2];
            for (int v = 0; v < 2; v++) {
                auto pre = [&] {
                    CK(cudaMemcpyAsync(dA, dA0, bytes, cudaMemcpyDeviceToDevice, st));
                    CK(cudaMemsetAsync(di, 0, sizeof(int), st));
                };
                auto op = [&] {
                    if (v == 0)
                        k_library<<<1, LEAF_THREADS, 0, st>>>(dA, R, LEAF_W, dp, di);
                    else
                        k_logical<<<1, LEAF_THREADS, 0, st>>>(dA, R, LEAF_W, dp, di);
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
            const bool same = piv[0] == piv[1] && info[0] == info[1] &&
                              !memcmp(out[0].data(), out[1].data(), bytes);
            const bool ref = piv[0] == hp && info[0] == hinfo;
            bad += !same || !ref;
            printf("R %3d kind %d: library %7.1f cycles/column %.4f ms | logical %7.1f "
                   "cycles/column %.4f ms | same bits %s, pivots as the host's %s\n",
                   R, kind, (double)cyc[0] / LEAF_W, ms[0], (double)cyc[1] / LEAF_W, ms[1],
                   same ? "yes" : "NO", ref ? "yes" : "NO");
            CK(cudaStreamDestroy(st));
            CK(cudaFree(dA));
            CK(cudaFree(dA0));
            CK(cudaFree(dp));
            CK(cudaFree(di));
        }
    return bad != 0;
}
