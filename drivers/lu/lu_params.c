/*
 * The LU tunables and their "auto" values.  Tuning table (measured; see docs/performance.md):
 *   CPU only: nb 192 from min(m,n) >= 3000, 128 from 600, else 64; with 32 workers or more,
 *             512 from min(m,n) >= 24576 (the column updates are bound by memory bandwidth
 *             there: an update reads and writes its column once per nb flops per element;
 *             64-core Xeon, N = 32768: nb 192 19.8 s, 256 17.2, 320 14.4-16.4, 384 15.1,
 *             512 13.95); 384 from min(m,n) >= 8192 where that leaves at least 4 tile
 *             columns per worker (2-core EPYC: hytile hpl N = 16384 37.1 s with 192, 31.6 with
 *             384, 32.1 with 512; 12000 15.6 -> 13.2 s; the LAPACK-layout LU at 8192 4.20 ->
 *             4.03 s, OpenBLAS 4.01-4.09; 16-core Xeon, N = 24576: 14.6 s with 192, 12.2
 *             with 384; 32768: 32.4 / 31.8 s; 16384 (192): a tie); with 8 workers or
 *             more below 6144, 64 below 2048 and 96 from it (more tile columns to share: the
 *             16-core Xeon, GFLOP/s with 64 / 96 / 128 / 192 at 1024: 72 / 69 / 62 / 56; 2048:
 *             210 / 217 / 191 / 173; 4096: 473 / 532 / 477 / 475; 6144: 548 / 568 / 602 / 658);
 *             lookahead 1;
 *             panel_cores: a quarter of the workers, at least 1, at most 16
 *             (2-core VM, N = 4000; 64-core Xeon, N = 32768).
 *   GPU panels (CUDA GPUs): nb 512 from min(m,n) >= 8192, else 256; lookahead 4
 *             (4 x H200 at N = 98304: lookahead 4 125.7, 2 123.4 TFLOP/s; nb 512 28.4 vs
 *             256 26.9 TFLOP/s on one H200 at N = 65536); nb 1024 from min(m,n) >=
 *             NB1024_MIN, and NB1024_MIN_PER_GPU per GPU, i.e. while each GPU keeps at least
 *             16 tile columns of 1024 (one H200, device-resident, N = 65536: 4.11 s against
 *             4.98 s with 512: the trailing GEMMs with K = 1024 run near 46 TFLOP/s instead of
 *             36-40; two H100s, N = 65536: 2.136 / 2.137 s against 2.847 / 2.848 with 512,
 *             cusolverMgGetrf 2.649 s; two H200s, N = 32768: 0.378 s against 0.403 with 512;
 *             2026-11-27; four GPUs not measured with 1024).
 *   GPU panels: gpu.panel_native_rows 0, hytile's native panel for every step, on any number
 *             of GPUs (one H200, N = 16384: 0.104-0.106 s against 0.114-0.117 with cuSOLVER's
 *             short panels; two H200s, N = 32768 / 65536 / 98304: 0.332 / 2.110 / 6.888 s
 *             against 0.376 / 2.160 / 6.976 with cuSOLVER's for every panel; 2026-11-28).
 *   CPU panels with devices: nb 256, lookahead 2 (the seed's scheme; slower on H200s).
 */
#include "drv_internal.h"
#include "rt_internal.h" /* HYT_MAX_WORKERS */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GPU panels: nb 1024 from this min(m,n) on, and from this much per GPU (docs/performance.md,
 * 2026-11-24 and 2026-11-27) */
#define NB1024_MIN 32768
#define NB1024_MIN_PER_GPU 16384
/* GPU panels: the native panel LU on PANEL_CTAS CTAs for every panel on one GPU, cuSOLVER's
 * for every panel on several.  On one H200 the native panel everywhere against its earlier
 * default (native above 16384 rows with nb 1024, else cuSOLVER's everywhere), two rounds in
 * one call each: N = 4096 0.014-0.015 s against 0.016, 8192 0.033 against 0.037, 16384
 * 0.104-0.106 against 0.114-0.117, 32768 0.518-0.519 against 0.528-0.529, 65536 3.984 against
 * 3.988 (docs/performance.md, 2026-11-28, fortieth stop).  Until the tall leaves went one row a
 * thread on more CTAs (thirty-ninth stop) and their copies coalesced (fortieth), the short
 * native panels had lost inside the LU (29% at 16384).  Several GPUs: not measured since. */
#define PANEL_CTAS 16
/* gpu.min_n's auto with CUDA GPUs: the orders from which the LAPACK-layout LU and Cholesky
 * are faster through the GPU than on the CPU workers (one H200 and its 16 cores, preloaded
 * dgesv_ and dposv_, docs/performance.md, 2026-11-24) */
#define GPU_MIN_N_LU 768
#define GPU_MIN_N_CHOL 1024

int hyt_drv_check_panel(const char *value, char *err, size_t errlen)
{
    if (strcmp(value, "cpu") && strcmp(value, "gpu") && strcmp(value, "auto")) {
        snprintf(err, errlen, "'%.40s': expected cpu, gpu or auto", value);
        return -1;
    }
    return 0;
}

/* The LU's keys (read by hyt_lu_params below).  Keep in sync with the README's configuration
 * section. */
static const hyt_config_keydef_t lu_keys[] = {
    {{"lu.nb", "HYT_NB", "auto",
      "tile size nb (1..4096); auto: 512 with GPU panels (256 below N = 8192, 1024 from "
      "N = 32768 and 16384 per GPU), 192 on CPUs "
      "only (less for small matrices, and with 8 workers or more below N = 6144; 384 from "
      "N = 8192 where that leaves 4 tile columns per worker; 512 from N = 24576 with 32 "
      "workers or more)"},
     HYT_KEY_INT, 1, 4096, 1, 1, NULL},
    {{"lu.lookahead", "HYT_LOOKAHEAD", "auto",
      "lookahead depth (0..64): columns updated ahead of the bulk, on the CPUs (CPU panels) or "
      "the GPUs' panel streams (GPU panels); auto: 1 on CPUs only, 4 with GPU panels, 2 with "
      "CPU panels"},
     HYT_KEY_INT, 0, 64, 1, 1, NULL},
    {{"lu.panel_cores", "HYT_PANEL_CORES", "auto",
      "cores that factor a panel together (1..workers); auto: a quarter of the workers (at "
      "least 1, at most 16)"},
     HYT_KEY_INT, 1, HYT_MAX_WORKERS, 1, 1, NULL},
    {{"lu.panel", "HYT_PANEL", "auto",
      "where panels are factored with devices: cpu, gpu, or auto (gpu with CUDA GPUs, cpu "
      "otherwise)"},
     HYT_KEY_STRING, 0, 0, 0, 1, hyt_drv_check_panel},
    {{"gpu.panel_ctas", "HYT_GPU_PANEL_CTAS", HYT_STR(PANEL_CTAS),
      "GPU panels: 0 factors them all with cuSOLVER; 1..4096 or auto: the panels that "
      "gpu.panel_native_rows gives it with hytile's native panel LU on that many CTAs (fewer "
      "where they would not all fit on the GPU or the panel is short; auto: one per SM the "
      "panel stream may use, gpu.panel_sms), the others with cuSOLVER"},
     HYT_KEY_INT, 0, 4096, 1, 1, NULL},
    {{"gpu.panel_native_rows", "HYT_GPU_PANEL_NATIVE_ROWS", "auto",
      "GPU panels with gpu.panel_ctas other than 0: the native panel LU for the panels of "
      "more than this many rows, cuSOLVER's for the others (0..1073741824; 0: the native "
      "panel for every panel); auto: 0"},
     HYT_KEY_INT, 0, 1L << 30, 1, 1, NULL},
    {{"gpu.solve_min_nrhs", "HYT_GPU_SOLVE_MIN_NRHS", "32",
      "the solves alone (hyt_dgetrs, hyt_dpotrs, dgetrs_, dpotrs_, hyt_dgetrs_tile, "
      "hyt_dpotrs_tile) with GPU panels: on the devices from this many right-hand sides on, "
      "on the CPUs below (moving the factor costs more than that solve; 1..1073741824)"},
     HYT_KEY_INT, 1, 1L << 30, 0, 1, NULL},
    {{"gpu.min_n", "HYT_GPU_MIN_N", "auto",
      "the LAPACK-layout calls (hyt_dgetrf, hyt_dgesv, hyt_dpotrf, hyt_dposv, ..., and the "
      "LAPACK ABI) with GPU panels: on the devices from this order (min(m, n)) on, on the "
      "CPU workers alone below (1..1073741824; 1: always on the devices); auto: with CUDA GPUs "
      "the measured crossings, LU " HYT_STR(GPU_MIN_N_LU) ", Cholesky " HYT_STR(GPU_MIN_N_CHOL)
      ", else 1"},
     HYT_KEY_INT, 1, 1L << 30, 1, 1, NULL},
    {{"lu.overlap_steps", "HYT_OVERLAP_STEPS", "auto",
      "GPU panels, matrix arriving from the host during the factorization: the first steps "
      "whose device updates are cut in pieces of about 4096 columns, each started as soon as "
      "its columns have arrived (1..100000; 1: the first step only); auto: the steps that "
      "can overlap the loads (from the sizes)"},
     HYT_KEY_INT, 1, 100000, 1, 1, NULL},
};

int hyt_lu_register_keys(void)
{
    return hyt_config_register(lu_keys, (int)(sizeof lu_keys / sizeof lu_keys[0]));
}

/* The small tiles of the CPUs: 192 from 3000, 128 from 600, else 64. */
static int small_nb(int mn) { return mn >= 3000 ? 192 : mn >= 600 ? 128 : 64; }

/* The tile size of the LU's work on the CPU workers alone (the table at the top). */
static int cpu_nb(int workers, int mn)
{
    if (workers >= 32 && mn >= 24576)
        return 512;
    if (mn >= 8192 && mn >= 4 * 384 * workers) /* at least 4 tile columns per worker */
        return 384;
    if (workers >= 8 && mn < 6144) /* more tile columns for many workers */
        return mn >= 2048 ? 96 : 64;
    return small_nb(mn);
}

/* The solve's tile rows are its parallelism (one right-hand side: a chain of diagonal solves,
 * each followed by a GEMV per tile row below), so it keeps the small tiles whatever the
 * factorization's: one H200 machine's 15 workers, n = 30000, one right-hand side, in one
 * process 0.076-0.083 s with 192, 0.095-0.096 s with 384 and 512 (docs/performance.md). */
int hyt_lu_cpu_solve_nb(hyt_context_t *ctx, int n)
{
    long nb = hyt_config_get_int(hyt_context_config(ctx), "lu.nb");
    return nb > 0 ? (int)nb : small_nb(n);
}

int hyt_drv_cuda(hyt_context_t *ctx)
{
    return hyt_context_num_devices(ctx) > 0 &&
           hyt_device_backend(hyt_context_device(ctx, 0)) == HYT_BACKEND_CUDA;
}

int hyt_lu_panel_native_rows(hyt_context_t *ctx)
{
    long v = hyt_config_get_int(hyt_context_config(ctx), "gpu.panel_native_rows");
    return v < 0 ? 0 : v > INT_MAX ? INT_MAX : (int)v;
}

int hyt_gpu_min_n(hyt_context_t *ctx, char fact)
{
    long v = hyt_config_get_int(hyt_context_config(ctx), "gpu.min_n");
    if (v > 0)
        return v > INT_MAX ? INT_MAX : (int)v;
    return !hyt_drv_cuda(ctx) ? 1 : fact == 'C' ? GPU_MIN_N_CHOL : GPU_MIN_N_LU;
}

/* hyt_lu_params, on the CPU workers alone when lapack and gpu.min_n keeps the matrix off the
 * devices. */
static int params(hyt_context_t *ctx, int m, int n, int lapack, hyt_lu_params_t *p)
{
    const hyt_config_t *cfg = hyt_context_config(ctx);
    int mn = m < n ? m : n;
    int nw = hyt_context_num_workers(ctx);
    p->ndevices = hyt_context_num_devices(ctx);
    long nb = hyt_config_get_int(cfg, "lu.nb");
    long la = hyt_config_get_int(cfg, "lu.lookahead");
    long pc = hyt_config_get_int(cfg, "lu.panel_cores");
    hyt_config_get(cfg, "lu.nb", &p->src_nb);
    hyt_config_get(cfg, "lu.lookahead", &p->src_lookahead);
    hyt_config_get(cfg, "lu.panel_cores", &p->src_panel_cores);
    const char *panel = hyt_config_get(cfg, "lu.panel", &p->src_panel);
    p->gpu_panel = p->ndevices && (!strcmp(panel, "gpu") ||
                                   (!strcmp(panel, "auto") && hyt_drv_cuda(ctx)));
    if (lapack && p->gpu_panel && mn < hyt_gpu_min_n(ctx, 'L'))
        p->ndevices = p->gpu_panel = 0;
    if (nb < 0) {
        const int wide = mn >= NB1024_MIN &&
                         (int64_t)mn >= (int64_t)NB1024_MIN_PER_GPU * p->ndevices;
        nb = p->gpu_panel ? (wide ? 1024 : mn >= 8192 ? 512 : 256)
             : p->ndevices ? 256
             : cpu_nb(nw, mn);
    }
    if (la < 0)
        la = p->gpu_panel ? 4 : p->ndevices ? 2 : 1;
    if (pc < 0) {
        pc = nw / 4;
        if (pc < 1)
            pc = 1;
        if (pc > 16)
            pc = 16;
    }
    if (pc > nw)
        pc = nw;
    p->nb = (int)nb;
    p->lookahead = (int)la;
    p->panel_cores = (int)pc;
    p->marks = NULL;
    return HYT_SUCCESS;
}

int hyt_lu_params(hyt_context_t *ctx, int m, int n, hyt_lu_params_t *p)
{
    return params(ctx, m, n, 0, p);
}

int hyt_lu_params_lapack(hyt_context_t *ctx, int m, int n, hyt_lu_params_t *p)
{
    return params(ctx, m, n, 1, p);
}

char hyt_norm_trans(char t)
{
    switch (t) {
    case 'N': case 'n': return 'N';
    case 'T': case 't': return 'T';
    case 'C': case 'c': return 'T'; /* real matrices: conjugate transpose = transpose */
    default: return 0;
    }
}

const void **hyt_piv_keys(const int *ipiv, int kt, int nb)
{
    const void **keys = malloc((size_t)(kt > 0 ? kt : 1) * sizeof *keys);
    for (int k = 0; keys && k < kt; k++)
        keys[k] = &ipiv[(int64_t)k * nb];
    if (!keys)
        hyt_error(HYT_ERR_NOMEM, "out of memory for the pivots' dependency keys");
    return keys;
}
