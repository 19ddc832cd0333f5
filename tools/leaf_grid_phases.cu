// Where a column of the grid leaf kernel (gpu_dgetrf_leaf.cu, hyt_dgetrf_leaf_grid_kernel) goes
// (experiment, not built by meson):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v tools/leaf_grid_phases.cu \
//        -lcublas -lcuda -o /tmp/leaf_grid_phases && /tmp/leaf_grid_phases [beside [S]]
//                                                                   (on a Hopper GPU)
// With `beside`: R = 8192 and 32768 only, on a green context of S SMs (default 64), alone, then
// beside cuBLAS DGEMMs of the panel bench's shape (16384 x 16384 x 512) on the other SMs, then
// alone again: which of the column's steps grow beside the update.  Fifty-seventh stop (one
// H200): every step, those without global memory too, 45-90% more cycles beside, the kernel
// +27%; the rolled variants (V_ROLL: the column loop not unrolled, the row's registers rotated
// so that every index stays a constant; U columns a pass) not at all (rolled: +2%), but 17%
// slower alone: the unrolled loop's ~310 KB of code comes from device memory once the DGEMMs
// have evicted it from L2 (docs/performance.md).
//
// The thirty-ninth stop measured ~3.9 us a column for a 32768-row leaf on 64 CTAs (ncu: ~124 us
// a leaf) where the one-CTA leaf takes ~0.65 us, and the same with a grid barrier a column as
// with the tagged words: the hand-off between the CTAs is not where the time goes.  This tool
// runs a copy of that kernel's column loop on an R x 32 row-major leaf (P = R / 512 CTAs of a
// cooperative launch, one row a thread) with thread 0 of every CTA reading clock64 between the
// column's steps:
//   1 the warps' candidates to shared memory and the CTA barrier;
//   2 the CTA's pick and its key words stored (the winner's row words beside them);
//   3 warp 0's poll of the P CTAs' key words and the diagonal entry;
//   4 its poll of the pivot row's words;
//   5 the CTA barrier after it;
//   6 the relabelling and the update,
// and counting warp 0's polls that found a word without the column's tag (its slowest lane's).
// It prints, for R = 8192, 32768 and 65536, the mean over the CTAs of each step's cycles a
// column, the slowest CTA's total, the extra polls a column, the part before and after the
// column loop (rows in from a row-major array one thread a row, not the library's tiles; the
// words zeroed; the grid barrier / the rows out), the kernel's best time on CUDA events, and
// whether its pivots and factors are a host dgetf2's (LAPACK's rule) bit for bit.  Variants:
// the library's loop; with a grid barrier before step 3 (the first version's hand-off: the
// polls then find every word at once); each CTA's key words in a 128-byte line of their own
// (every CTA polls every CTA's keys, and 64 CTAs' keys in 12 lines may queue at a few L2 slices:
// a hypothesis of this stop, and so may the pivot row's 4 lines that every CTA reads); and two
// ablations that give wrong answers and only time: no update (step 6 relabels only) and no
// other CTA (warp 0 polls its own CTA's words only: the chain without the waits); the loop
// rolled, whole or in passes of 2, 4 or 8 columns (same bits).  The clocks
// cost registers: the library's loop spills 4 bytes, this one 48 (sm_90, -Xptxas -v).
// Status: written 2026-11-28 (thirty-ninth stop), run the fortieth (one H200): at 32768 rows
// on 64 CTAs ~5100 cycles a column for the slowest CTA (polls of the keys ~2030, of the pivot
// row ~1270, update ~760); padded keys the same (no L2 hot spot), no other CTA only 11% less
// kernel time (docs/performance.md, fortieth stop).  The library's loop has changed since
// (rows out through shared memory, the diagonal entry alone): this copy is the version before.
#include "tool_cuda.h"
#include "tool_gemm.h"

#include "../gpu_kernels/hyt_gpu_leaf.cuh"
#include "../gpu_kernels/hyt_gpu_sync.cuh"

#include <cooperative_groups.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include <unistd.h>

#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;

#define REPS 20
#define NPH 6 /* the column's steps */

enum { V_GRIDSYNC = 1, V_NOUPD = 2, V_LOCAL = 4, V_PAD = 8, V_ROLL = 16 };

// ph: per CTA, NPH step sums, then the extra polls, the cycles before and after the loop.
// U (with V_ROLL): columns a pass of the rolled loop.
template <int V, int U = 1>
__global__ void __launch_bounds__(LEAF_THREADS, 1)
k_grid(double *A, int R, int *ipiv, int *info, unsigned long long *ws, long long *ph)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ leaf_cta_slots S;
    __shared__ int piv_s;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, c = (int)blockIdx.x;
    const int nctas = (int)gridDim.x, gt = c * LEAF_THREADS + threadIdx.x;
    const bool mine = gt < R;
    constexpr int KS = V & V_PAD ? 16 : 3; /* a CTA's key words' stride: 3, or a 128-byte line */
    unsigned long long *const K = ws, *const RW = ws + 2 * KS * nctas;
    unsigned long long *const D = RW + 2 * 64 * nctas;
    __shared__ long long st[NPH + 1]; /* thread 0's step sums, then the extra polls */
    if (threadIdx.x <= NPH)
        st[threadIdx.x] = 0;
    const long long c0 = clock64();
    double x[LEAF_W];
#pragma unroll
    for (int k = 0; k < LEAF_W; k++)
        x[k] = mine ? A[(size_t)gt * LEAF_W + k] : 0.0;
    for (int i = threadIdx.x; i < 2 * 67; i += LEAF_THREADS) {
        const int par = i / 67, e = i % 67;
        st_relaxed_u64(e < 3 ? K + (par * nctas + c) * KS + e
                             : RW + ((size_t)par * nctas + c) * 64 + e - 3, 0ull);
    }
    if (c == 0)
        for (int i = threadIdx.x; i < 2 * 64; i += LEAF_THREADS)
            st_relaxed_u64(D + i, 0ull);
    grid.sync();
    int lr = gt;
    const long long c1 = clock64();

    /* V_ROLL: the column loop rolled in passes of U columns, the row's registers rotated U
     * places after each pass, so that in the pass of columns g .. g + U - 1 the logical column
     * g + i is x[i] (i < LEAF_W - g; the columns done before g follow) and every index is a
     * constant: U columns' code instead of LEAF_W columns' */
    constexpr int GU = V & V_ROLL ? U : LEAF_W;
#pragma unroll 1
    for (int g = 0; g < LEAF_W; g += GU) {
#pragma unroll
        for (int q = 0; q < GU; q++) {
            const int jj = g + q;
            const int par = jj & 1;
            const unsigned tag = (unsigned)jj + 1u;
            unsigned long long *const kw = K + (size_t)par * nctas * KS;
            unsigned long long *const rw = RW + (size_t)par * nctas * 64;
            unsigned long long *const dw = D + par * 64;
            long long t = clock64(), u;
            leaf_warp_slot(x[q], jj, lr, mine, wid, S);
            if constexpr ((V & V_ROLL) != 0) {
                if (mine && lr == jj)
#pragma unroll
                    for (int i = q; i < LEAF_W; i++)
                        if (i < LEAF_W - g)
                            leaf_put_entry(dw, x[i], g + i, tag);
            } else { /* g == 0, jj == q */
                if (mine && lr == jj)
#pragma unroll
                    for (int k = 0; k < LEAF_W; k++)
                        if (k >= q) {
                            st_relaxed_u64(dw + 2 * k, tagged(tag, (unsigned)__double2loint(x[k])));
                            st_relaxed_u64(dw + 2 * k + 1,
                                           tagged(tag, (unsigned)__double2hiint(x[k])));
                        }
            }
            __syncthreads();
            u = clock64(), t = threadIdx.x ? u : (st[0] += u - t, u);
            {
                unsigned bh, bl;
                const unsigned br = leaf_cta_pick(S, lane, &bh, &bl);
                if (bh != 0u && (unsigned)lr == br) {
                    unsigned long long *w = rw + (size_t)c * 64;
                    if constexpr ((V & V_ROLL) != 0) {
#pragma unroll
                        for (int i = q; i < LEAF_W; i++)
                            if (i < LEAF_W - g)
                                leaf_put_entry(w, x[i], g + i, tag);
                    } else {
#pragma unroll
                        for (int k = 0; k < LEAF_W; k++)
                            if (k >= q) {
                                st_relaxed_u64(w + 2 * k,
                                               tagged(tag, (unsigned)__double2loint(x[k])));
                                st_relaxed_u64(w + 2 * k + 1,
                                               tagged(tag, (unsigned)__double2hiint(x[k])));
                            }
                    }
                }
                if (threadIdx.x < 3)
                    st_relaxed_u64(kw + c * KS + threadIdx.x,
                                   tagged(tag, threadIdx.x == 0 ? bh : threadIdx.x == 1 ? bl : br));
            }
            u = clock64(), t = threadIdx.x ? u : (st[1] += u - t, u);
            if (V & V_GRIDSYNC)
                grid.sync();
            if (wid == 0) {
                unsigned long long bk = 0ull, dlo = 0ull, dhi = 0ull;
                unsigned brow = 0xffffffffu;
                int bc = -1;
                const int q_lo = V & V_LOCAL ? c : 0, q_hi = V & V_LOCAL ? c + 1 : nctas;
                for (int q0 = q_lo; q0 < q_hi; q0 += 4 * 32) {
                    unsigned long long k3[4][3] = {};
                    bool ok;
                    int tries = 0;
                    do {
                        ok = true;
                        if (q0 == q_lo) {
                            dlo = ld_relaxed_u64(dw + 2 * jj);
                            dhi = ld_relaxed_u64(dw + 2 * jj + 1);
                            ok = (V & V_LOCAL) || ((unsigned)(dlo >> 32) == tag &&
                                                   (unsigned)(dhi >> 32) == tag);
                        }
#pragma unroll
                        for (int i = 0; i < 4; i++) {
                            const int q = q0 + i * 32 + lane;
                            if (q < q_hi)
#pragma unroll
                                for (int e = 0; e < 3; e++) {
                                    k3[i][e] = ld_relaxed_u64(kw + q * KS + e);
                                    ok &= (unsigned)(k3[i][e] >> 32) == tag;
                                }
                        }
                        tries++;
                    } while (!ok);
                    {
                        const unsigned kt = __reduce_max_sync(0xffffffffu, (unsigned)tries);
                        if (lane == 0)
                            st[NPH] += kt - 1;
                    }
#pragma unroll
                    for (int i = 0; i < 4; i++) {
                        const int q = q0 + i * 32 + lane;
                        const unsigned long long k =
                            (unsigned long long)(unsigned)k3[i][0] << 32 | (unsigned)k3[i][1];
                        const unsigned rq = (unsigned)k3[i][2];
                        if (q < q_hi && (unsigned)k3[i][0] != 0u &&
                            (k > bk || (k == bk && rq < brow))) {
                            bk = k;
                            brow = rq;
                            bc = q;
                        }
                    }
                }
                u = clock64(), t = threadIdx.x ? u : (st[2] += u - t, u);
                const double djj = __hiloint2double((int)(unsigned)dhi, (int)(unsigned)dlo);
                unsigned bh, bl;
                const unsigned pr =
                    leaf_key_lowest((unsigned)(bk >> 32), (unsigned)bk, brow, &bh, &bl);
                const bool diag = ((V & V_LOCAL) == 0 && isnan(djj)) || bh == 0u;
                const int src = __ffs(__ballot_sync(0xffffffffu, bc >= 0 && brow == pr)) - 1;
                const int pc = __shfl_sync(0xffffffffu, bc, src < 0 ? 0 : src);
                double ul = 0.0;
                int tries = 0;
                if (lane >= jj && !(diag && (V & V_LOCAL))) {
                    const unsigned long long *w = diag ? dw : rw + (size_t)pc * 64;
                    unsigned long long lo, hi;
                    do {
                        lo = ld_relaxed_u64(w + 2 * lane);
                        hi = ld_relaxed_u64(w + 2 * lane + 1);
                        tries++;
                    } while ((unsigned)(lo >> 32) != tag || (unsigned)(hi >> 32) != tag);
                    ul = __hiloint2double((int)(unsigned)hi, (int)(unsigned)lo);
                }
                const unsigned rt = __reduce_max_sync(0xffffffffu, (unsigned)tries);
                if (lane == 0 && rt > 1)
                    st[NPH] += rt - 1;
                S.urow[lane] = ul;
                if (lane == 0)
                    piv_s = diag ? jj : (int)pr;
                __syncwarp();
                u = clock64(), t = threadIdx.x ? u : (st[3] += u - t, u);
            }
            __syncthreads();
            u = clock64(), t = threadIdx.x ? u : (st[4] += u - t, u);
            const int p = piv_s;
            const double pv = S.urow[jj];
            if (threadIdx.x == 0 && c == 0) {
                ipiv[jj] = p + 1;
                if (pv == 0.0 && *info == 0)
                    *info = jj + 1;
            }
            if (V & V_NOUPD) {
                if (mine)
                    lr = lr == p ? jj : lr == jj ? p : lr;
            } else if constexpr ((V & V_ROLL) != 0) {
                if (mine)
                    lr = lr == p ? jj : lr == jj ? p : lr;
                if (mine && lr > jj) { /* leaf_row_update in rotated places */
                    double l = x[q];
                    if (pv != 0.0)
                        l = fabs(pv) >= DBL_MIN ? l * (1.0 / pv) : l / pv;
                    x[q] = l;
#pragma unroll
                    for (int i = q + 1; i < LEAF_W; i++)
                        if (i < LEAF_W - g)
                            x[i] = __fma_rn(-l, S.urow[g + i], x[i]);
                }
            } else {
                leaf_relabel_update(x, lr, mine, q, p, pv, S.urow);
            }
            u = clock64(), t = threadIdx.x ? u : (st[5] += u - t, u);
        }
        if constexpr ((V & V_ROLL) != 0) { /* the next pass's columns to x[0 ..] */
            double y[GU];
#pragma unroll
            for (int i = 0; i < GU; i++)
                y[i] = x[i];
#pragma unroll
            for (int i = 0; i + GU < LEAF_W; i++)
                x[i] = x[i + GU];
#pragma unroll
            for (int i = 0; i < GU; i++)
                x[LEAF_W - GU + i] = y[i];
        }
    }
    const long long c2 = clock64();
    if (mine)
#pragma unroll
        for (int k = 0; k < LEAF_W; k++)
            A[(size_t)lr * LEAF_W + k] = x[k];
    __syncthreads();
    const long long c3 = clock64();
    if (threadIdx.x == 0) {
        long long *const o = ph + (size_t)c * (NPH + 3);
        for (int s = 0; s < NPH; s++)
            o[s] = st[s];
        o[NPH] = st[NPH];
        o[NPH + 1] = c1 - c0;
        o[NPH + 2] = c3 - c2;
    }
}


typedef void (*grid_fn)(double *, int, int *, int *, unsigned long long *, long long *);
static const struct {
    const char *name;
    grid_fn k;
    bool checked;
} variants[] = {
    {"library", k_grid<0>, true},
    {"grid barrier", k_grid<V_GRIDSYNC>, true},
    {"keys padded", k_grid<V_PAD>, true},
    {"no update", k_grid<V_NOUPD>, false},
    {"no other CTA", k_grid<V_LOCAL>, false},
    {"rolled", k_grid<V_ROLL, 1>, true},
    {"rolled by 2", k_grid<V_ROLL, 2>, true},
    {"rolled by 4", k_grid<V_ROLL, 4>, true},
    {"rolled by 8", k_grid<V_ROLL, 8>, true},
    {"rolled, no other CTA", k_grid<V_ROLL | V_LOCAL, 1>, false},
    {"rolled by 4, no oth.", k_grid<V_ROLL | V_LOCAL, 4>, false},
};

static const char *steps[NPH] = {"warps", "pick+store", "poll keys", "poll row", "barrier",
                                 "update"};

// Every variant at R rows on stream st0 (0: a new stream of its own), labelled, between
// before() and after() (after the allocations, before the frees: either may synchronize the
// device); returns how many checked variants gave other bits than the host's.
template <class Before, class After>
static int run_rows(int R, cudaStream_t st0, const char *label, const Before &before,
                    const After &after)
{
    int bad = 0;
    {
        const int P = (R + LEAF_THREADS - 1) / LEAF_THREADS;
        std::vector<double> A0((size_t)R * LEAF_W), H;
        unsigned long long s = 0x9E3779B97F4A7C15ull * (unsigned)R + 1;
        for (auto &v : A0) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            v = (double)(s % 2000001) / 1e6 - 1;
        }
        H = A0;
        std::vector<int> hp(LEAF_W);
        const int hinfo = tool_host_getf2(H, R, LEAF_W, LEAF_W, hp);
        double *dA, *dA0;
        int *dp, *di;
        unsigned long long *dw;
        long long *dph;
        const size_t bytes = A0.size() * sizeof(double);
        CK(cudaMalloc(&dA, bytes));
        CK(cudaMalloc(&dA0, bytes));
        CK(cudaMalloc(&dp, LEAF_W * sizeof(int)));
        CK(cudaMalloc(&di, sizeof(int)));
        CK(cudaMalloc(&dw, (2 * 80 * (size_t)P + 128) * sizeof(unsigned long long)));
        CK(cudaMalloc(&dph, (size_t)P * (NPH + 3) * sizeof(long long)));
        CK(cudaMemcpy(dA0, A0.data(), bytes, cudaMemcpyHostToDevice));
        cudaStream_t st = st0;
        if (!st0)
            CK(cudaStreamCreate(&st));
        before();
        printf("R %d (%d CTAs)%s, cycles a column, mean over the CTAs:\n", R, P, label);
        for (const auto &v : variants) {
            int per_sm = 0, sms = 0, dev = 0;
            CK(cudaGetDevice(&dev));
            CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.k, LEAF_THREADS, 0));
            if (per_sm * sms < P) {
                printf("  %-14s: %d CTAs do not fit at once\n", v.name, P);
                continue;
            }
            int Rv = R;
            void *args[] = {&dA, &Rv, &dp, &di, &dw, &dph};
            std::vector<long long> best, cur((size_t)P * (NPH + 3));
            long long best_tot = LLONG_MAX;
            CK(cudaMemset(dph, 0, cur.size() * sizeof(long long)));
            auto pre = [&] {
                CK(cudaMemcpyAsync(dA, dA0, bytes, cudaMemcpyDeviceToDevice, st));
                CK(cudaMemsetAsync(di, 0, sizeof(int), st));
            };
            auto keep = [&] { /* the run whose slowest CTA's loop was shortest */
                CK(cudaStreamSynchronize(st));
                CK(cudaMemcpy(cur.data(), dph, cur.size() * sizeof(long long),
                              cudaMemcpyDeviceToHost));
                long long mx = 0;
                for (int c = 0; c < P; c++) {
                    long long t = 0;
                    for (int q = 0; q < NPH; q++)
                        t += cur[(size_t)c * (NPH + 3) + q];
                    mx = std::max(mx, t);
                }
                if (mx > 0 && mx < best_tot) {
                    best_tot = mx;
                    best = cur;
                }
            };
            const double ms = tool_best_ms(
                st, REPS,
                [&] {
                    CK(cudaLaunchCooperativeKernel((const void *)v.k, dim3(P),
                                                   dim3(LEAF_THREADS), args, 0, st));
                },
                [&] {
                    keep();
                    pre();
                });
            keep();
            double mean[NPH + 3] = {};
            for (int c = 0; c < P; c++)
                for (int q = 0; q < NPH + 3; q++)
                    mean[q] += (double)best[(size_t)c * (NPH + 3) + q] / P;
            printf("  %-14s:", v.name);
            for (int q = 0; q < NPH; q++)
                printf(" %s %.0f", steps[q], mean[q] / LEAF_W);
            printf("; slowest CTA %.0f a column; extra polls %.1f a column; before the loop "
                   "%.0f, after %.0f cycles; kernel %.4f ms", (double)best_tot / LEAF_W,
                   mean[NPH] / LEAF_W, mean[NPH + 1], mean[NPH + 2], ms);
            if (v.checked) {
                std::vector<double> out(A0.size());
                std::vector<int> piv(LEAF_W);
                int info;
                pre();
                CK(cudaLaunchCooperativeKernel((const void *)v.k, dim3(P), dim3(LEAF_THREADS),
                                               args, 0, st));
                CK(cudaStreamSynchronize(st));
                CK(cudaMemcpy(out.data(), dA, bytes, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(piv.data(), dp, LEAF_W * sizeof(int), cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(&info, di, sizeof info, cudaMemcpyDeviceToHost));
                const bool same =
                    piv == hp && info == hinfo && !memcmp(out.data(), H.data(), bytes);
                bad += !same;
                printf("; the host's bits %s", same ? "yes" : "NO");
            }
            printf("\n");
        }
        after();
        if (!st0)
            CK(cudaStreamDestroy(st));
        CK(cudaFree(dA));
        CK(cudaFree(dA0));
        CK(cudaFree(dp));
        CK(cudaFree(di));
        CK(cudaFree(dw));
        CK(cudaFree(dph));
    }
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0;
    if (argc < 2 || strcmp(argv[1], "beside")) {
        for (int R : {8192, 32768, 65536})
            bad += run_rows(R, 0, "", [] {}, [] {});
        return bad != 0;
    }
    const int sms = argc > 2 ? atoi(argv[2]) : 64;
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    CUstream gp, gr;
    unsigned np, nr;
    tool_green_split(sms, &gp, &gr, &np, &nr);
    float gms;
    const tool_gemm_load load((cudaStream_t)gr, &gms);
    char label[96];
    for (int round = 0; round < 3; round++) {
        const bool beside = round == 1;
        auto before = [&] { /* ~1 s of DGEMMs, under way before the leaves */
            if (!beside)
                return;
            load.queue(100);
            usleep(200000);
        };
        auto after = [&] {
            if (beside)
                printf("  (the DGEMMs %s)\n", load.running()
                                                   ? "still ran at the end"
                                                   : "ended before the leaves did: too few");
            CK(cudaStreamSynchronize((cudaStream_t)gr));
        };
        snprintf(label, sizeof label, " on %u SMs, %s", np,
                 beside ? "beside DGEMMs on the others" : round ? "alone again" : "alone");
        for (int R : {8192, 32768})
            bad += run_rows(R, (cudaStream_t)gp, label, before, after);
    }
    return bad != 0;
}
