/*
 * hytile bench-cpu: hytile's CPU LU against OpenBLAS's dgetrf on the same matrices in the same
 * run, and the panel kernel against OpenBLAS's dgetrf on the same m x nb panel with the same
 * number of cores.  Every result is checked (HPL-style scaled residual of a solve for the LU,
 * backward error ||PA - LU|| for panels) before its rate is reported.
 *
 *   hytile bench-cpu [-n N ...] [--panel M] [--nb NB] [--panel-cores P] [--lookahead L]
 *                    [--layout lapack|tile] [--reps R] [--trace FILE] [--chol N [--uplo L|U]]
 * --chol: hytile's Cholesky (dpotrf) against OpenBLAS's dpotrf on the same SPD matrix, each
 * checked by the scaled residual of a solve with its factor.
 * (cores and workers from HYT_CORES / HYT_WORKERS).  A value it cannot use stops it (exit 2).
 */
#include "bench_common.h"
#include "cli_common.h"
#include "hytile_cli.h"

#include "chol_internal.h"
#include "hytile.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* OpenBLAS's idle threads spin (sched_yield) for about 0.1 s after a parallel call; let them
 * go to sleep before timing anything else on the same cores. */
static void settle(void)
{
    struct timespec ts = {0, 250000000};
    nanosleep(&ts, NULL);
}

typedef void (*dgetrf_fn)(const int *, const int *, double *, const int *, int *, int *);
extern void openblas_set_num_threads(int n);
extern char *openblas_get_config(void);
extern char *openblas_get_corename(void);

static dgetrf_fn openblas_dgetrf(void)
{
    return (dgetrf_fn)hyt_bench_openblas_sym("dgetrf_", (void *)dgetrf_, NULL);
}

/* HPL's scaled residual ||b - A0 x||_oo / (eps (||A0||_oo ||x||_oo + ||b||_oo) n); frees b and
 * x (malloc'ed by the caller). */
static double scaled_residual(int n, const double *A0, double *b, double *x)
{
    double res = hyt_bench_residual(n, A0, x, b);
    free(b);
    free(x);
    return res;
}

/* HPL's scaled residual of the solve with factors F of A0 (n x n). */
static double solve_residual(hyt_context_t *ctx, int n, const double *A0, const double *F,
                             const int *ipiv, int hytile)
{
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    hyt_bench_fill(b, n, 1, n, 77);
    memcpy(x, b, (size_t)n * sizeof *x);
    if (hytile) {
        hyt_dgetrs(ctx, 'N', n, 1, F, n, ipiv, x, n);
    } else { /* plain CBLAS: swaps, L, U */
        for (int i = 0; i < n; i++) {
            int p = ipiv[i] - 1;
            double t = x[i];
            x[i] = x[p];
            x[p] = t;
        }
        cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, n, F, n, x, 1);
        cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, n, F, n, x, 1);
    }
    return scaled_residual(n, A0, b, x);
}

/* ||P A - L U||_1 / (||A||_1 m eps) for an m x w panel. */
static double panel_error(int m, int w, const double *A0, const double *F, const int *ipiv)
{
    double *PA = malloc((size_t)m * w * sizeof *PA), *L = calloc((size_t)m * w, sizeof *L);
    double *U = calloc((size_t)w * w, sizeof *U);
    if (!PA || !L || !U) {
        free(PA);
        free(L);
        free(U);
        return INFINITY;
    }
    memcpy(PA, A0, (size_t)m * w * sizeof *PA);
    for (int k = 0; k < w; k++) {
        int p = ipiv[k] - 1;
        if (p != k)
            for (int c = 0; c < w; c++) {
                double t = PA[k + (int64_t)c * m];
                PA[k + (int64_t)c * m] = PA[p + (int64_t)c * m];
                PA[p + (int64_t)c * m] = t;
            }
    }
    for (int c = 0; c < w; c++)
        for (int r = 0; r < m; r++) {
            L[r + (int64_t)c * m] = r > c ? F[r + (int64_t)c * m] : r == c ? 1 : 0;
            if (r <= c)
                U[r + c * w] = F[r + (int64_t)c * m];
        }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, w, w, -1.0, L, m, U, w, 1.0, PA, m);
    double rn = 0, an = 0;
    for (int c = 0; c < w; c++) {
        double s = 0, t = 0;
        for (int r = 0; r < m; r++) {
            s += fabs(PA[r + (int64_t)c * m]);
            t += fabs(A0[r + (int64_t)c * m]);
        }
        rn = fmax(rn, s);
        an = fmax(an, t);
    }
    free(PA);
    free(L);
    free(U);
    return rn / (an * m * DBL_EPSILON);
}

typedef void (*dpotrf_fn)(const char *, const int *, double *, const int *, int *, size_t);

/* HPL's scaled residual of the solve A x = b with the Cholesky factor F (uplo) of A0. */
static double chol_residual(int n, char uplo, const double *A0, const double *F)
{
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    hyt_bench_fill(b, n, 1, n, 78);
    memcpy(x, b, (size_t)n * sizeof *x);
    /* L L^T x = b, or U^T U x = b */
    CBLAS_UPLO u = uplo == 'L' ? CblasLower : CblasUpper;
    cblas_dtrsv(CblasColMajor, u, uplo == 'L' ? CblasNoTrans : CblasTrans, CblasNonUnit, n, F, n,
                x, 1);
    cblas_dtrsv(CblasColMajor, u, uplo == 'L' ? CblasTrans : CblasNoTrans, CblasNonUnit, n, F, n,
                x, 1);
    return scaled_residual(n, A0, b, x);
}

/* --chol: hytile's dpotrf against OpenBLAS's on the same SPD matrix (symmetric random plus n on
 * the diagonal), best of reps each, alternating; 0, or 1 when a result is wrong. */
static int bench_chol(hyt_context_t *ctx, int n, char uplo, int nb, int la, int reps)
{
    dpotrf_fn ob = (dpotrf_fn)hyt_bench_openblas_sym("dpotrf_", (void *)dpotrf_, NULL);
    double *A0 = malloc((size_t)n * n * sizeof *A0), *A = malloc((size_t)n * n * sizeof *A);
    if (!ob || !A0 || !A) {
        fprintf(stderr, "hytile bench-cpu: %s\n",
                ob ? "no memory" : "OpenBLAS's dpotrf_ not found");
        free(A0);
        free(A);
        return 1;
    }
    hyt_bench_fill(A0, n, n, n, (unsigned)n + 1);
    for (int c = 0; c < n; c++) {
        for (int r = c + 1; r < n; r++)
            A0[c + (int64_t)r * n] = A0[r + (int64_t)c * n];
        A0[c + (int64_t)c * n] += n;
    }
    hyt_chol_params_t p = {nb, la, 0};
    hyt_chol_params(ctx, n, &p);
    const int nw = hyt_context_num_workers(ctx);
    const double flops = (double)n * n * n / 3.0 + (double)n * n / 2.0 + n / 6.0;
    double best_h = 1e30, best_o = 1e30, res_h = 0, res_o = 0;
    int info_h = 0, info_o = 0;
    for (int r = 0; r < reps; r++) {
        memcpy(A, A0, (size_t)n * n * sizeof *A);
        settle();
        double t0 = hyt_wtime();
        info_h |= hyt_dpotrf_params(ctx, uplo, n, A, n, &p);
        best_h = fmin(best_h, hyt_wtime() - t0);
        if (r == 0)
            res_h = chol_residual(n, uplo, A0, A);

        memcpy(A, A0, (size_t)n * n * sizeof *A);
        settle();
        openblas_set_num_threads(nw);
        t0 = hyt_wtime();
        int info;
        ob(&uplo, &n, A, &n, &info, 1);
        best_o = fmin(best_o, hyt_wtime() - t0);
        openblas_set_num_threads(1);
        info_o |= info;
        if (r == 0)
            res_o = chol_residual(n, uplo, A0, A);
    }
    int ok = !info_h && res_h < 16;
    printf("\ndpotrf %c N %d nb %d la %d, %d workers: hytile %.3f s %.1f GFLOP/s | OpenBLAS %.3f s "
           "%.1f GFLOP/s | ratio %.2f   residuals %.3g / %.3g  info %d / %d%s\n",
           uplo, n, p.nb, p.lookahead, nw, best_h, flops / best_h * 1e-9, best_o,
           flops / best_o * 1e-9, best_o / best_h, res_h, res_o, info_h, info_o,
           ok ? "" : "  FAILED");
    free(A0);
    free(A);
    return !ok;
}

static int usage(FILE *f)
{
    fprintf(f,
            "usage: hytile bench-cpu [-n N ...] [--panel M] [--nb NB] [--lookahead L]\n"
            "                        [--panel-cores P] [--layout lapack|tile] [--reps R]\n"
            "                        [--trace FILE]\n"
            "  -n N          LU of N x N against OpenBLAS dgetrf (several -n allowed)\n"
            "  --panel M     panel M x NB against OpenBLAS dgetrf on PANEL_CORES threads\n"
            "  --layout      factor the LAPACK array in place (default) or a CCRB tile copy\n"
            "  --trace FILE  Chrome trace of the last hytile LU run\n"
            "  --chol N      Cholesky of N x N (--uplo L or U) against OpenBLAS dpotrf\n");
    return f == stdout ? 0 : 2;
}

/* The value of a numeric option, checked (a message and -1 when it is not in [lo, hi]). */
static int opt_int(const char *opt, const char *text, long lo, long hi, int *out)
{
    long v;
    if (hyt_cli_int("hytile bench-cpu", opt, text, lo, hi, &v))
        return -1;
    *out = (int)v;
    return 0;
}

int hyt_cmd_bench_cpu(int argc, char **argv)
{
    int ns[32], nn = 0, panel_m = 0, nb = -1, la = -1, pc = -1, reps = 3, tile = 0, chol_n = 0;
    char uplo = 'L';
    const char *trace = NULL;
    if (hyt_cli_wants_help(argc, argv))
        return usage(stdout);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!v) {
            return usage(stderr);
        } else if (!strcmp(a, "-n")) {
            if (nn == 32) {
                fprintf(stderr, "hytile bench-cpu: -n: more than 32 sizes\n");
                return 2;
            }
            bad = opt_int(a, v, 1, 1000000, &ns[nn++]);
        } else if (!strcmp(a, "--panel")) {
            bad = opt_int(a, v, 1, 100000000, &panel_m);
        } else if (!strcmp(a, "--nb")) {
            bad = opt_int(a, v, 1, 1000000, &nb);
        } else if (!strcmp(a, "--lookahead")) {
            bad = opt_int(a, v, 0, 1000000, &la);
        } else if (!strcmp(a, "--panel-cores")) {
            bad = opt_int(a, v, 1, 1000000, &pc);
        } else if (!strcmp(a, "--reps")) {
            bad = opt_int(a, v, 1, 1000000, &reps);
        } else if (!strcmp(a, "--trace")) {
            trace = v;
        } else if (!strcmp(a, "--layout") && (!strcmp(v, "tile") || !strcmp(v, "lapack"))) {
            tile = !strcmp(v, "tile");
        } else if (!strcmp(a, "--chol")) {
            bad = opt_int(a, v, 1, 1000000, &chol_n);
        } else if (!strcmp(a, "--uplo") && (!strcmp(v, "L") || !strcmp(v, "U"))) {
            uplo = v[0];
        } else {
            return usage(stderr);
        }
        if (bad)
            return 2;
        i++;
    }
    if (!nn && !panel_m && !chol_n)
        ns[nn++] = 4000;
    if (trace && hyt_cli_check_trace("hytile bench-cpu", "--trace", trace))
        return 2; /* before anything runs */
    dgetrf_fn ob = openblas_dgetrf();
    if (!ob) {
        fprintf(stderr, "hytile bench-cpu: OpenBLAS's dgetrf_ not found\n");
        return 1;
    }
    hyt_config_t *cfg;
    hyt_context_t *ctx;
    hyt_config_create(&cfg);
    if (hyt_config_load_env(cfg) || hyt_config_set(cfg, "runtime.devices", "none", HYT_SRC_API,
                                                   NULL) ||
        hyt_context_create(cfg, &ctx)) {
        fprintf(stderr, "hytile: %s\n", hyt_last_error());
        hyt_config_destroy(cfg);
        return 1;
    }
    hyt_config_destroy(cfg);
    int nw = hyt_context_num_workers(ctx);
    const char *me = "hytile bench-cpu";
    if ((nb > 0 && hyt_cli_set_int(ctx, "lu.nb", nb, me)) ||
        (la >= 0 && hyt_cli_set_int(ctx, "lu.lookahead", la, me)) ||
        (pc > 0 && hyt_cli_set_int(ctx, "lu.panel_cores", pc, me))) {
        hyt_context_destroy(ctx);
        return 2;
    }
    printf("OpenBLAS: %s (core %s)\n", openblas_get_config(), openblas_get_corename());
    printf("hytile: %d workers, layout %s\n", nw, tile ? "tile (CCRB copy)" : "LAPACK in place");

    int rc = 0;
    if (nn) {
        printf("\n%7s %5s %4s %4s | %9s %9s | %9s %9s | %6s\n", "N", "nb", "la", "pc",
               "hytile s", "GFLOP/s", "OpenBLAS", "GFLOP/s", "ratio");
    }
    for (int t = 0; t < nn; t++) {
        int n = ns[t];
        double flops = 2.0 / 3.0 * (double)n * n * n - 0.5 * (double)n * n;
        double *A0 = malloc((size_t)n * n * sizeof *A0), *A = malloc((size_t)n * n * sizeof *A);
        int *ipiv = malloc((size_t)n * sizeof *ipiv);
        if (!A0 || !A || !ipiv) {
            fprintf(stderr, "hytile bench-cpu: no memory for n = %d\n", n);
            rc = 1;
            break;
        }
        hyt_bench_fill(A0, n, n, n, (unsigned)n);
        hyt_lu_params_t p;
        hyt_lu_params(ctx, n, n, &p);
        double best_h = 1e30, best_o = 1e30, res_h = 0, res_o = 0;
        for (int r = 0; r < reps; r++) {
            memcpy(A, A0, (size_t)n * n * sizeof *A);
            settle();
            if (trace && r == reps - 1)
                hyt_trace_start(ctx, 0);
            double t0 = hyt_wtime();
            int info;
            if (tile) {
                hyt_desc_t D;
                if (hyt_desc_create(ctx, n, n, p.nb, &D)) {
                    rc = 1;
                    break;
                }
                hyt_lapack_to_tile(ctx, A, n, &D);
                info = hyt_dgetrf_tile(ctx, &D, ipiv);
                hyt_tile_to_lapack(ctx, &D, A, n);
                hyt_desc_destroy(&D);
            } else {
                info = hyt_dgetrf(ctx, n, n, A, n, ipiv);
            }
            double th = hyt_wtime() - t0;
            if (trace && r == reps - 1) {
                hyt_trace_stop(ctx);
                if (hyt_trace_write_json(ctx, trace))
                    fprintf(stderr, "hytile: %s\n", hyt_last_error());
            }
            if (info) {
                fprintf(stderr, "hytile dgetrf: info %d %s\n", info, hyt_last_error());
                rc = 1;
            }
            if (th < best_h)
                best_h = th;
            if (r == 0)
                res_h = solve_residual(ctx, n, A0, A, ipiv, 1);

            memcpy(A, A0, (size_t)n * n * sizeof *A);
            settle();
            openblas_set_num_threads(nw);
            t0 = hyt_wtime();
            ob(&n, &n, A, &n, ipiv, &info);
            double to = hyt_wtime() - t0;
            openblas_set_num_threads(1);
            if (to < best_o)
                best_o = to;
            if (r == 0)
                res_o = solve_residual(ctx, n, A0, A, ipiv, 0);
        }
        printf("%7d %5d %4d %4d | %9.3f %9.1f | %9.3f %9.1f | %6.2f   residuals %.3g / %.3g%s\n",
               n, p.nb, p.lookahead, p.panel_cores, best_h, flops / best_h * 1e-9, best_o,
               flops / best_o * 1e-9, best_o / best_h, res_h, res_o,
               res_h < 16 && res_o < 16 ? "" : "  FAILED");
        if (!(res_h < 16))
            rc = 1;
        free(A0);
        free(A);
        free(ipiv);
    }

    if (panel_m > 0) {
        hyt_lu_params_t p;
        hyt_lu_params(ctx, panel_m, panel_m, &p);
        int w = nb > 0 ? nb : p.nb, m = panel_m, cores = p.panel_cores;
        double flops = (double)m * w * w - (double)w * w * w / 3.0;
        double *A0 = malloc((size_t)m * w * sizeof *A0), *A = malloc((size_t)m * w * sizeof *A);
        int *ipiv = malloc((size_t)w * sizeof *ipiv);
        if (!A0 || !A || !ipiv || hyt_cli_set_int(ctx, "lu.nb", w, me)) {
            if (!A0 || !A || !ipiv)
                fprintf(stderr, "hytile bench-cpu: no memory for a %d x %d panel\n", m, w);
            free(A0);
            free(A);
            free(ipiv);
            hyt_context_destroy(ctx);
            return 1;
        }
        hyt_bench_fill(A0, m, w, m, 3);
        double best_h = 1e30, best_o = 1e30, eh = 0, eo = 0;
        for (int r = 0; r < reps; r++) {
            memcpy(A, A0, (size_t)m * w * sizeof *A);
            settle();
            double t0 = hyt_wtime(), th;
            if (tile) {
                hyt_desc_t D;
                hyt_desc_create(ctx, m, w, w, &D);
                hyt_lapack_to_tile(ctx, A, m, &D);
                t0 = hyt_wtime();
                hyt_dgetrf_tile(ctx, &D, ipiv);
                th = hyt_wtime() - t0;
                hyt_tile_to_lapack(ctx, &D, A, m);
                hyt_desc_destroy(&D);
            } else {
                hyt_dgetrf(ctx, m, w, A, m, ipiv);
                th = hyt_wtime() - t0;
            }
            best_h = fmin(best_h, th);
            if (r == 0)
                eh = panel_error(m, w, A0, A, ipiv);
            memcpy(A, A0, (size_t)m * w * sizeof *A);
            settle();
            openblas_set_num_threads(cores);
            t0 = hyt_wtime();
            int info;
            ob(&m, &w, A, &m, ipiv, &info);
            best_o = fmin(best_o, hyt_wtime() - t0);
            openblas_set_num_threads(1);
            if (r == 0)
                eo = panel_error(m, w, A0, A, ipiv);
        }
        printf("\npanel %d x %d on %d cores: hytile %.2f ms %.1f GFLOP/s | OpenBLAS %.2f ms %.1f "
               "GFLOP/s | ratio %.2f   errors %.2g / %.2g%s\n",
               m, w, cores, best_h * 1e3, flops / best_h * 1e-9, best_o * 1e3,
               flops / best_o * 1e-9, best_o / best_h, eh, eo, eh < 30 ? "" : "  FAILED");
        if (!(eh < 30))
            rc = 1;
        free(A0);
        free(A);
        free(ipiv);
    }
    if (chol_n > 0 && bench_chol(ctx, chol_n, uplo, nb, la, reps))
        rc = 1;
    hyt_context_destroy(ctx);
    return rc;
}
