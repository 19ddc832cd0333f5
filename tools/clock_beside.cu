// What a panel on its reserved SMs loses beside an update on the others (experiment, not built
// by meson; docs/performance.md, fifty-seventh stop):
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 tools/clock_beside.cu -lcublas -lcuda \
//        -o /tmp/clock_beside && /tmp/clock_beside                 (on a Hopper GPU)
//
// The native panel's 32768 x 512 runs ~0.55 ms (~27%) longer beside `bench-gpu --panel`'s
// DGEMMs on the other SMs than alone (2.06 against 2.6 ms on 64 SMs), and its leaves ~30%: a
// leaf's column is a chain of latencies (shared memory, barriers, L2 round trips).  Two
// causes could stretch it: the SM clock (a long DGEMM runs the GPU at its power cap with the
// clock below the idle 1980 MHz, twenty-first stop) and the L2's latency under the DGEMMs'
// traffic.  This tool splits the SMs as the bench does (two green contexts: S for the probe,
// the rest for cuBLAS DGEMMs of the bench's shape, 16384 x 16384 x 512) and runs, on one SM of
// the probe's share, a kernel that times (clock64 and %globaltimer) a chain of dependent FMAs
// (the clock) and a pointer chase through an 8 MiB buffer (ld.global.cg: an L2 hit while the
// buffer stays in L2), then on two SMs a ping-pong of tagged words (the grid leaf's exchange:
// a store, another SM's poll, its answer), then a chain of dependent cooperative launches of a
// leaf's footprint on every SM of the share (the wait between two), alone, beside the DGEMMs,
// and alone again.  Prints each a phase.  Fifty-seventh stop (one H200, S = 64): the clock
// 1980 MHz in every phase, the ping-pong +5% beside, a launch +0.4 us, the chase 292 -> ~710
// cycles (its lines evicted to device memory); the leaves' own loss beside is their code's
// fetch (tools/leaf_grid_phases.cu beside, docs/performance.md).
#include "tool_cuda.h"
#include "tool_gemm.h"

#include "../gpu_kernels/hyt_gpu_sync.cuh"

#include <algorithm>

#include <unistd.h>

#define CHAIN 20000     // dependent FMAs a probe
#define HOPS 4000       // dependent L2 loads a probe
#define CHASE (1 << 20) // the chase's buffer: 8 MiB of 64-bit indices
#define PINGS 2000      // round trips of the ping-pong

struct probe_out {
    long long fma_cyc, fma_ns, l2_cyc, l2_ns, pp_cyc, pp_ns;
};

__device__ __forceinline__ static unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void probe(const unsigned long long *next, probe_out *out, double seed)
{
    if (threadIdx.x != 0)
        return;
    double a = seed, b = 1.0000001;
    long long c0 = clock64();
    unsigned long long t0 = gtimer();
    for (int i = 0; i < CHAIN; i++)
        a = fma(a, b, 1e-9);
    long long c1 = clock64();
    unsigned long long t1 = gtimer();
    unsigned long long p = (unsigned long long)(a > 1e300); // 0, but not known to the compiler
    for (int i = 0; i < HOPS; i++)
        p = __ldcg(next + p);
    long long c2 = clock64();
    unsigned long long t2 = gtimer();
    out->fma_cyc = c1 - c0;
    out->fma_ns = (long long)(t1 - t0);
    out->l2_cyc = c2 - c1;
    out->l2_ns = (long long)(t2 - t1) + (long long)(p == 1ull << 62); // keeps the chase
}

/* Two CTAs (two SMs) pass a tagged word back and forth through global memory, as the grid
 * leaf's CTAs pass their keys: CTA 0 stores ping i, CTA 1 polls it and stores pong i, CTA 0
 * polls that; CTA 0 times PINGS round trips.  The words are on lines of their own. */
__global__ void pingpong(unsigned long long *w, probe_out *out)
{
    if (threadIdx.x != 0)
        return;
    unsigned long long *ping = w, *pong = w + 32;
    if (blockIdx.x == 0) {
        long long c0 = clock64();
        unsigned long long t0 = gtimer();
        for (unsigned i = 1; i <= PINGS; i++) {
            st_relaxed_u64(ping, tagged(i, 0u));
            while ((unsigned)(ld_relaxed_u64(pong) >> 32) != i)
                ;
        }
        out->pp_cyc = clock64() - c0;
        out->pp_ns = (long long)(gtimer() - t0);
    } else {
        for (unsigned i = 1; i <= PINGS; i++) {
            while ((unsigned)(ld_relaxed_u64(ping) >> 32) != i)
                ;
            st_relaxed_u64(pong, tagged(i, 0u));
        }
    }
}

/* A leaf launch's footprint (512 threads, the tall leaf's shared memory, one CTA an SM), as a
 * chain of dependent cooperative launches: CTA 0 stamps its start and end (%globaltimer); the
 * wait of launch i is its start minus launch i - 1's end. */
#define CHAIN_LAUNCHES 41
__global__ void __launch_bounds__(TOOL_LEAF_THREADS, 1) stamp(unsigned long long *t, int i)
{
    extern __shared__ double sm[];
    const unsigned long long t0 = gtimer();
    if (threadIdx.x == 0)
        sm[0] = (double)t0;
    while (gtimer() - t0 < 3000) // 3 us of work
        ;
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        t[2 * i] = t0;
        t[2 * i + 1] = gtimer() + (sm[0] < 0.0);
    }
}

int main(int argc, char **argv)
{
    const int sms = argc > 1 ? atoi(argv[1]) : 64;
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    CUstream gsp, gsr;
    unsigned npart, nrest;
    tool_green_split(sms, &gsp, &gsr, &npart, &nrest);
    cudaStream_t sp = (cudaStream_t)gsp, sr = (cudaStream_t)gsr;
    printf("probe on %u SMs, DGEMMs on the other %u\n", npart, nrest);

    // the chase: a random cycle through CHASE words (every hop another line)
    std::vector<unsigned long long> h(CHASE);
    std::vector<unsigned> perm(CHASE);
    for (unsigned i = 0; i < CHASE; i++)
        perm[i] = i;
    unsigned long long s = 88172645463325252ull;
    for (unsigned i = CHASE - 1; i > 0; i--) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        std::swap(perm[i], perm[s % (i + 1)]);
    }
    for (unsigned i = 0; i < CHASE; i++)
        h[perm[i]] = perm[(i + 1) % CHASE];
    unsigned long long *next;
    probe_out *out;
    CK(cudaMalloc(&next, CHASE * sizeof *next));
    CK(cudaMemcpy(next, h.data(), CHASE * sizeof *next, cudaMemcpyHostToDevice));
    CK(cudaMallocManaged(&out, 64 * sizeof *out));
    unsigned long long *words, *stamps;
    CK(cudaMalloc(&words, 64 * sizeof *words));
    CK(cudaMallocManaged(&stamps, 2 * CHAIN_LAUNCHES * sizeof *stamps));
    CK(cudaFuncSetAttribute(stamp, cudaFuncAttributeMaxDynamicSharedMemorySize, TOOL_LEAF_SMEM));

    float gms;
    const tool_gemm_load load(sr, &gms);
    printf("one DGEMM alone on its SMs: %.3f ms, %.1f TFLOP/s\n", gms, load.tflops(gms));

    auto phase = [&](const char *name, bool beside) {
        const int gemms = beside ? (int)(1500.0 / gms) + 1 : 0; // ~1.5 s of DGEMMs
        load.queue(gemms);
        if (beside) { // let the DGEMMs reach the power cap first
            CK(cudaStreamSynchronize(sp));
            usleep(500000);
        }
        double mhz[16], cyc[16], ns[16], pcyc[16], pns[16];
        for (int r = 0; r < 16; r++) {
            probe<<<1, 32, 0, sp>>>(next, out + r, 1e-3 * r);
            CK(cudaGetLastError());
            CK(cudaMemsetAsync(words, 0, 64 * sizeof *words, sp));
            pingpong<<<2, 32, 0, sp>>>(words, out + r); // both CTAs resident: 2 of S idle SMs
            CK(cudaGetLastError());
            CK(cudaStreamSynchronize(sp));
            mhz[r] = 1e3 * out[r].fma_cyc / out[r].fma_ns;
            cyc[r] = (double)out[r].l2_cyc / HOPS;
            ns[r] = (double)out[r].l2_ns / HOPS;
            pcyc[r] = (double)out[r].pp_cyc / PINGS;
            pns[r] = (double)out[r].pp_ns / PINGS;
            usleep(20000);
        }
        // the launch chain, on as many CTAs as the probe's share has SMs
        double waits[CHAIN_LAUNCHES - 1];
        for (int i = 0; i < CHAIN_LAUNCHES; i++) {
            void *args[] = {(void *)&stamps, (void *)&i};
            CK(cudaLaunchCooperativeKernel((void *)stamp, dim3(npart),
                                           dim3(TOOL_LEAF_THREADS), args, TOOL_LEAF_SMEM, sp));
        }
        CK(cudaStreamSynchronize(sp));
        for (int i = 1; i < CHAIN_LAUNCHES; i++)
            waits[i - 1] = 1e-3 * (double)(long long)(stamps[2 * i] - stamps[2 * i - 1]);
        std::sort(waits, waits + (CHAIN_LAUNCHES - 1));
        printf("%-24s a leaf-shaped launch (%u CTAs, cooperative) waits %.1f us (median; "
               "%.1f-%.1f) after the one before\n",
               name, npart, waits[(CHAIN_LAUNCHES - 1) / 2], waits[0],
               waits[CHAIN_LAUNCHES - 2]);
        const bool still = beside && load.running();
        std::sort(mhz, mhz + 16);
        std::sort(cyc, cyc + 16);
        std::sort(ns, ns + 16);
        std::sort(pcyc, pcyc + 16);
        std::sort(pns, pns + 16);
        printf("%-24s SM clock %4.0f MHz (%4.0f-%4.0f); chase %4.0f cycles (%4.0f-%4.0f) %4.0f ns; "
               "ping-pong %5.0f cycles (%5.0f-%5.0f) %5.0f ns%s\n",
               name, mhz[8], mhz[0], mhz[15], cyc[8], cyc[0], cyc[15], ns[8], pcyc[8], pcyc[0],
               pcyc[15], pns[8],
               beside ? (still ? "  [DGEMMs still running at the end]"
                               : "  [the DGEMMs ended before the probes: too few]")
                      : "");
        CK(cudaStreamSynchronize(sr));
    };
    phase("alone", false);
    phase("beside the DGEMMs", true);
    phase("alone again", false);
    phase("beside the DGEMMs again", true);
    return 0;
}
