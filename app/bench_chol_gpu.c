/*
 * hytile bench-gpu --chol: hytile's GPU-only Cholesky (hyt_dpotrf_device) against
 * cusolverDnDpotrf on the same SPD matrix, both device-resident on the same GPU in the same
 * run, each result checked before its rate is printed.
 *
 *   hytile bench-gpu --chol N [N...] [--nb NB] [--lookahead L[,L...]] [--reps R]
 *                    [--devices cuda:0|host:1] [--no-peer]
 *
 * Per N: the lower triangle of A (a_ij = u_ij in [-1, 1), a_ii = n + u_ii: diagonally dominant,
 * so SPD) is made once in page-locked host memory; each run copies it to the device (not
 * timed), factors it there (timed: the call, synchronous, from the matrix on the device to
 * the factor on the device) and, after the first run of each code, copies the factor back for
 * the check: the scaled residual of a probe vector x,
 *   ||A x - L (L^T x)||_oo / (||A||_oo ||x||_oo n eps)  < 16,
 * computed on the host (OpenBLAS dsymv, dtrmv).  Rates are n^3 / 3 flops over the best time;
 * the ratio is cuSOLVER's time over hytile's (> 1: hytile faster).  Exit 0 when every
 * result passed, 1 otherwise, 2 on bad input.  On host devices (--devices host:1) it runs the
 * same task graph on the CPU, without the peer: for checking the benchmark itself.
 */
#include "cli_common.h"
#include "hytile_cli.h"

#include "chol_internal.h"
#include "hyt_gpu_kernels.h"
#include "hytile.h"
#include "peer_cusolver.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- copies between page-locked host memory and device 0, as device tasks ---------------- */

typedef struct copy_args {
    void *dst;
    const void *src;
    size_t bytes;
    int d2h;
} copy_args_t;

static int copy_body(const hyt_devctx_t *dc, void *p)
{
    copy_args_t *a = p;
    int rc = a->d2h ? hyt_dev_memcpy_d2h(dc, a->dst, a->src, a->bytes)
                    : hyt_dev_memcpy_h2d(dc, a->dst, a->src, a->bytes);
    if (rc)
        hyt_sequence_fail(dc->seq, rc, "%s", hyt_last_error());
    return rc;
}

static int copy(hyt_context_t *ctx, void *dst, const void *src, size_t bytes, int d2h)
{
    static const hyt_kernel_t kern = {.name = "copy", .dev = copy_body, .cat = HYT_CAT_DMA};
    copy_args_t a = {dst, src, bytes, d2h};
    hyt_task_desc_t d = hyt_task_desc(&kern, &a, sizeof a);
    d.device = 0;
    d.stream = d2h ? HYT_STREAM_D2H : HYT_STREAM_H2D;
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    return rc ? rc : hyt_sequence_finish(seq, hyt_task_insert(seq, &d));
}

/* ---- the matrix and the check ---------------------------------------------------------------- */

static double unit(uint64_t i, uint64_t j)
{
    uint64_t s = (i * 0x9e3779b97f4a7c15ULL) ^ (j + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;
    s ^= s >> 31;
    s *= 0x94d049bb133111ebULL;
    s ^= s >> 29;
    return (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* The lower triangle (the upper one zero: never referenced). */
static void make_spd(double *A, int n)
{
    for (int64_t c = 0; c < n; c++) {
        double *col = A + c * n;
        memset(col, 0, (size_t)c * sizeof *col);
        col[c] = n + unit(c, c);
        for (int64_t r = c + 1; r < n; r++)
            col[r] = unit(r, c);
    }
}

/* The probe residual of the factor F (lower) of A (lower). */
static double residual(int n, const double *A, const double *F)
{
    double *x = calloc((size_t)n, sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *w = malloc((size_t)n * sizeof *w), *rows = calloc((size_t)n, sizeof *rows);
    double res = NAN;
    if (n > 0 && x && y && w && rows) {
        for (int i = 0; i < n; i++)
            x[i] = unit(i, (uint64_t)n + 7);
        cblas_dsymv(CblasColMajor, CblasLower, n, 1.0, A, n, x, 1, 0.0, y, 1);
        memcpy(w, x, (size_t)n * sizeof *w);
        cblas_dtrmv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, n, F, n, w, 1);
        cblas_dtrmv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, F, n, w, 1);
        double an = 0, xn = 0, rn = 0;
        for (int64_t c = 0; c < n; c++) /* row sums of |A| from the lower triangle */
            for (int64_t r = c; r < n; r++) {
                double v = fabs(A[r + c * n]);
                rows[r] += v;
                if (r != c)
                    rows[c] += v;
            }
        for (int i = 0; i < n; i++) {
            an = fmax(an, rows[i]);
            xn = fmax(xn, fabs(x[i]));
            double d = y[i] - w[i];
            rn = isnan(d) ? d : fmax(rn, fabs(d));
        }
        res = rn / (an * xn * n * DBL_EPSILON);
    }
    free(x);
    free(y);
    free(w);
    free(rows);
    return res;
}

/* ---- the command ------------------------------------------------------------------------------ */

static int usage(void)
{
    fprintf(stderr,
            "usage: hytile bench-gpu --chol N [N...] [--nb NB] [--lookahead L[,L...]] [--reps R]\n"
            "                        [--devices cuda:0|host:1] [--no-peer]\n"
            "  hytile's GPU-only Cholesky (hyt_dpotrf_device) against cusolverDnDpotrf on the\n"
            "  same SPD matrix, both on the GPU; best of R runs each, residuals checked.\n");
    return 2;
}

/* "1,2,3" or "1" into v (values 0..max); the count, or -1. */
static int parse_ints(const char *t, int *v, int room, long max)
{
    int k = 0;
    while (*t && k < room) {
        char *end;
        long x = strtol(t, &end, 10);
        if (end == t || x < 0 || x > max || (*end && *end != ','))
            return -1;
        v[k++] = (int)x;
        t = *end ? end + 1 : end;
    }
    return *t ? -1 : k;
}

int hyt_bench_chol_gpu(int argc, char **argv)
{
    int ns[32], nn = 0, nb = 0, las[16] = {-1}, nla = 1, reps = 1, peer = 1;
    const char *devices = "cuda:0";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--chol")) {
            while (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') {
                int k = parse_ints(argv[++i], ns + nn, 32 - nn, 1 << 20);
                if (k < 1)
                    return usage();
                nn += k;
            }
        } else if (!strcmp(a, "--no-peer")) {
            peer = 0;
        } else if (!v) {
            return usage();
        } else if (!strcmp(a, "--nb")) {
            if (parse_ints(v, &nb, 1, HYT_DPOTF2_MAX_N) != 1 || nb < 1)
                return usage();
            i++;
        } else if (!strcmp(a, "--lookahead")) {
            if ((nla = parse_ints(v, las, 16, 64)) < 1)
                return usage();
            i++;
        } else if (!strcmp(a, "--reps")) {
            if (parse_ints(v, &reps, 1, 1000) != 1 || reps < 1)
                return usage();
            i++;
        } else if (!strcmp(a, "--devices")) {
            devices = v;
            i++;
        } else {
            return usage();
        }
    }
    if (nn == 0 || ns[0] < 1)
        return usage();
    hyt_config_t *cfg;
    hyt_context_t *ctx;
    if (hyt_config_create(&cfg) || hyt_config_set(cfg, "runtime.devices", devices, HYT_SRC_API,
                                                  NULL) || hyt_context_create(cfg, &ctx)) {
        fprintf(stderr, "hytile bench-gpu --chol: %s\n", hyt_last_error());
        return 2;
    }
    hyt_config_destroy(cfg);
    hyt_device_t *dev = hyt_context_num_devices(ctx) ? hyt_context_device(ctx, 0) : NULL;
    if (!dev) {
        fprintf(stderr, "hytile bench-gpu --chol: no device (--devices cuda:0 or host:1)\n");
        hyt_context_destroy(ctx);
        return 2;
    }
    const int cuda = hyt_device_backend(dev) == HYT_BACKEND_CUDA;
    char ver[160];
    hyt_peer_version(ver, sizeof ver);
    printf("# hytile GPU-only Cholesky vs cusolverDnDpotrf, device-resident, %s (%s); best of %d\n"
           "#       n   nb  la |  hytile s   TFLOP/s   resid |  cusolver s   TFLOP/s   resid |"
           "  ratio\n", hyt_device_name(dev), cuda ? ver : "no peer on a host device", reps);
    int status = 0;
    for (int q = 0; q < nn; q++) {
        const int n = ns[q];
        const size_t bytes = (size_t)n * n * sizeof(double);
        const double flops = (double)n * n * n / 3.0;
        double *H = hyt_host_malloc(ctx, bytes), *F = malloc(bytes), *dA = NULL;
        int rc = H && F ? 0 : hyt_error(HYT_ERR_NOMEM, "%zu bytes of host memory", 2 * bytes);
        if (!rc)
            rc = hyt_device_malloc(dev, (void **)&dA, bytes);
        if (rc) {
            fprintf(stderr, "hytile bench-gpu --chol: n = %d: %s\n", n, hyt_last_error());
            status = 1;
            hyt_host_free(ctx, H);
            free(F);
            continue;
        }
        make_spd(H, n);
        /* the peer first (once for all lookaheads) */
        double tp = NAN, res_p = NAN;
        for (int r = 0; r < reps && peer && cuda && !rc; r++) {
            double t;
            int info = 0;
            rc = copy(ctx, dA, H, bytes, 0);
            if (!rc)
                rc = hyt_peer_dpotrf_device(hyt_device_ordinal(dev), n, dA, n, &t, &info);
            if (!rc && info)
                rc = hyt_error(HYT_ERR_TASK, "cusolverDnDpotrf: info %d", info);
            if (!rc && r == 0 && !(rc = copy(ctx, F, dA, bytes, 1)))
                res_p = residual(n, H, F);
            if (!rc)
                tp = isnan(tp) ? t : fmin(tp, t);
        }
        if (rc) {
            fprintf(stderr, "peer: n = %d: %s\n", n, hyt_last_error());
            rc = 0;
        }
        for (int l = 0; l < nla; l++) {
            hyt_chol_params_t p = {nb, las[l]};
            hyt_chol_params_device(ctx, n, &p);
            double th = NAN, res = NAN;
            for (int r = 0; r < reps && !rc; r++) {
                rc = copy(ctx, dA, H, bytes, 0);
                double t0 = hyt_wtime();
                int info = rc ? 0 : hyt_dpotrf_device_params(ctx, 'L', n, dA, n, &p);
                double t = hyt_wtime() - t0;
                if (!rc && info)
                    rc = info < 0 ? info : hyt_error(HYT_ERR_TASK, "info %d", info);
                if (!rc && r == 0 && !(rc = copy(ctx, F, dA, bytes, 1)))
                    res = residual(n, H, F);
                if (!rc)
                    th = isnan(th) ? t : fmin(th, t);
            }
            if (rc) {
                fprintf(stderr, "hytile bench-gpu --chol: n = %d: %s\n", n, hyt_last_error());
                status = 1;
                rc = 0;
                continue;
            }
            const int ok = res < 16 && (isnan(tp) || res_p < 16);
            printf("%9d %4d %3d | %9.4f %9.2f %7.2f | %11.4f %9.2f %7.2f | %6.3f%s\n", n, p.nb,
                   p.lookahead, th, flops / th * 1e-12, res, tp, flops / tp * 1e-12, res_p,
                   tp / th, ok ? "" : "   FAILED (residual)");
            fflush(stdout);
            if (!ok)
                status = 1;
        }
        hyt_device_free(dev, dA);
        hyt_host_free(ctx, H);
        free(F);
    }
    hyt_context_destroy(ctx);
    return status;
}
