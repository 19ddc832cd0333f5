/*
 * hytile bench-gpu: hytile's hybrid LU against the vendor's LU (cusolverDnDgetrf on one GPU,
 * cusolverMgGetrf on several) on the same HPL matrix, in one process on one machine, both
 * results checked by solving with them and computing HPL's scaled residual before any rate is
 * printed.  Two timings of each (GPU panels):
 *   device: the matrix already on the GPUs, the factors left there.  hytile: from the moment
 *           its last column load has finished to the end of its last update (the marks of
 *           hyt_lu_params_t; the factors' returns wait until then); cuSOLVER: cusolverDnDgetrf
 *           alone (one GPU), cusolverMgGetrf alone (several: the matrix already spread over
 *           them; each block size of --mg-block, default 256 and 512, the best reported).
 *   host to host: from the host matrix to the factors back in host memory.  hytile:
 *           hyt_dgetrf_tile on its tiles (loads and returns overlap the factorization);
 *           cuSOLVER (one GPU only): its cudaMemcpy in, cusolverDnDgetrf, its cudaMemcpy out.
 *
 *   hytile bench-gpu [-n N[,N...] ...] [--devices cuda:0,1,...] [--nb NB] [--lookahead L]
 *                    [--panel-cores P] [--reps R] [--mg-block B[,B...]] [--no-peer]
 *                    [--trace FILE] [--trace-dev FILE] [--cold]
 */
#include "cli_common.h"
#include "hytile_cli.h"
#include "bench_common.h"

#include "hytile.h"
#include "bench_panel.h"
#include "drv_internal.h"
#include "peer_cusolver.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HPL's scaled residual of x for A x = b; A is the LAPACK view of the original matrix. */
static double hpl_residual(hyt_context_t *ctx, const hyt_desc_t *A, const double *b,
                           const double *x)
{
    int64_t n = A->n;
    double *r = malloc((size_t)n * sizeof *r);
    if (!r)
        return NAN;
    memcpy(r, b, (size_t)n * sizeof *r);
    double anorm = 0, xn = 0, bn = 0, rn = 0;
    hyt_sequence_t *seq;
    hyt_sequence_create(ctx, &seq);
    int rc = hyt_dgemv_tile_async(seq, -1.0, A, x, 1.0, r);
    if (!rc)
        rc = hyt_dlange_tile_async(seq, 'I', A, &anorm);
    rc = hyt_sequence_finish(seq, rc);
    for (int64_t i = 0; i < n; i++) {
        xn = fmax(xn, fabs(x[i]));
        bn = fmax(bn, fabs(b[i]));
        rn = isnan(r[i]) ? r[i] : fmax(rn, fabs(r[i]));
    }
    free(r);
    if (rc)
        return NAN;
    return rn / (DBL_EPSILON * (anorm * xn + bn) * (double)n);
}


/* Which panel factors which steps of the n x n LU with GPU panels (hyt_lu_panel_native; the
 * panel of step k has n - k nb rows, so the native steps come first), e.g. "GPUs: hytile's
 * (16 CTAs) 0-47, cuSOLVER's 48-63". */
static void panel_steps(hyt_context_t *ctx, int n, const hyt_lu_params_t *q, char *buf,
                        size_t len)
{
    if (!q->gpu_panel) {
        snprintf(buf, len, "CPUs");
        return;
    }
    const long ctas = hyt_config_get_int(hyt_context_config(ctx), "gpu.panel_ctas");
    const int rows = hyt_lu_panel_native_rows(ctx);
    const int kt = (n + q->nb - 1) / q->nb;
    int nat = 0;
    while (nat < kt && hyt_lu_panel_native(ctas, rows, n - (int64_t)nat * q->nb))
        nat++;
    char c[24];
    snprintf(c, sizeof c, ctas < 0 ? "auto" : "%ld", ctas);
    if (nat == 0)
        snprintf(buf, len, "GPUs: cuSOLVER's");
    else if (nat == kt)
        snprintf(buf, len, "GPUs: hytile's (%s CTAs)", c);
    else
        snprintf(buf, len, "GPUs: hytile's (%s CTAs) 0-%d, cuSOLVER's %d-%d", c, nat - 1, nat,
                 kt - 1);
}

static int usage(FILE *f)
{
    fprintf(f,
            "usage: hytile bench-gpu [-n N[,N...] ...] [--devices cuda:0,1,...] [--nb NB]\n"
            "                        [--lookahead L[,L...]] [--panel-cores P[,P...]] [--reps R]\n"
            "                        [--mg-block B[,B...]] [--no-peer] [--trace FILE]\n"
            "                        [--trace-dev FILE] [--cold]\n"
            "       hytile bench-gpu --panel [-n M ...] [--nb NB] [--reps R] [--panel-sms S]\n"
            "                        [--gemm-all] [--devices cuda:0]\n"
            "  hytile's hybrid LU and cuSOLVER (one GPU) / cusolverMg (several) on the same\n"
            "  HPL matrix; TFLOP/s of the factorizations and their ratio, with the matrix on\n"
            "  the GPUs (dev) and host to host (h2h; GPU panels).  Lists of lookahead\n"
            "  and panel cores run every combination on the same matrix (the peer once).\n"
            "  Each code's first run at each size is not timed: it loads the kernels\n"
            "  (CUDA's lazy loading, ~25-30 ms on an H200) and makes the peer's handles;\n"
            "  --cold times it (with --reps 1: the process's first runs).\n"
            "  --trace / --trace-dev: a Chrome trace of the last repetition's host-to-host\n"
            "  / device-resident LU (of the last size and combination).\n"
            "  --panel: the panel LU alone on M x NB panels (default M = 1024 ... 131072, NB =\n"
            "  256, 512, 1024): hytile's GPU panel (gpu.panel_ctas CTAs) against\n"
            "  cusolverDnDgetrf, alone and beside DGEMMs of the LU's trailing update\n"
            "  (16384 x 16384 x NB), and what each panel cost those DGEMMs; R runs each,\n"
            "  median.  --panel-sms S: the panels on S SMs, the DGEMMs on the others (two\n"
            "  green contexts); without it every stream may use every SM.  --gemm-all with\n"
            "  it: the DGEMMs on every SM, the panels' too (the LU with gpu.panel_sms = S).\n"
            "       hytile bench-gpu --chol N [N...] [--nb NB] [--lookahead L] [--reps R]\n"
            "  the GPU-only Cholesky against cusolverDnDpotrf (device-resident; details:\n"
            "  hytile bench-gpu --chol --help)\n"
            "       hytile bench-gpu --abi [--chol] [-n N[,N...]] [--reps R] [--solve NRHS,...]\n"
            "  the LAPACK ABI's dgesv_ (dposv_) as a program calls it, against OpenBLAS's\n"
            "  (details: hytile bench-gpu --abi --help)\n");
    return f == stdout ? 0 : 2;
}

int hyt_cmd_bench_gpu(int argc, char **argv)
{
    int ns[32], nn = 0, nb = -1, las[16] = {-1}, pcs[16] = {-1}, nla = 1, npc = 1, reps = -1;
    int mgs[8] = {256, 512}, nmg = 2, peer = 1, panel = 0, panel_sms = 0, gemm_all = 0, cold = 0;
    const char *devices = "cuda", *trace = NULL, *trace_dev = NULL;
    for (int i = 1; i < argc; i++) /* the Cholesky: its own benchmark (bench_chol_gpu.c) */
        if (!strcmp(argv[i], "--chol"))
            return hyt_bench_chol_gpu(argc, argv);
        else if (!strcmp(argv[i], "--abi"))
            return hyt_bench_abi(argc, argv);
    static const char me[] = "hytile bench-gpu";
    if (hyt_cli_wants_help(argc, argv))
        return usage(stdout);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long x = 0;
        int k = 0;
        if (!strcmp(a, "--no-peer")) {
            peer = 0;
            continue;
        }
        if (!strcmp(a, "--panel")) {
            panel = 1;
            continue;
        }
        if (!strcmp(a, "--cold")) {
            cold = 1;
            continue;
        }
        if (!strcmp(a, "--gemm-all")) {
            gemm_all = 1;
            continue;
        }
        if (!v)
            return usage(stderr);
        /* each number checked whole, with a message naming the option (cli_common.h) */
        if (!strcmp(a, "-n")) {
            if (nn == 32) {
                fprintf(stderr, "%s: -n: more than 32 sizes\n", me);
                return 2;
            }
            if ((k = hyt_cli_int_list(me, a, v, 1, 4000000, ns + nn, 32 - nn)) < 0)
                return 2;
            nn += k;
        } else if (!strcmp(a, "--devices"))
            devices = v;
        else if (!strcmp(a, "--nb")) {
            if (hyt_cli_int(me, a, v, 1, 4096, &x))
                return 2;
            nb = (int)x;
        } else if (!strcmp(a, "--lookahead")) {
            if ((nla = hyt_cli_int_list(me, a, v, 0, 64, las, 16)) < 0)
                return 2;
        } else if (!strcmp(a, "--panel-cores")) {
            if ((npc = hyt_cli_int_list(me, a, v, 1, 4096, pcs, 16)) < 0)
                return 2;
        } else if (!strcmp(a, "--reps")) {
            if (hyt_cli_int(me, a, v, 1, 1000000, &x))
                return 2;
            reps = (int)x;
        } else if (!strcmp(a, "--mg-block")) {
            if ((nmg = hyt_cli_int_list(me, a, v, 1, 1 << 20, mgs, 8)) < 0)
                return 2;
        } else if (!strcmp(a, "--trace"))
            trace = v;
        else if (!strcmp(a, "--trace-dev"))
            trace_dev = v;
        else if (!strcmp(a, "--panel-sms")) {
            if (hyt_cli_int(me, a, v, 1, 1024, &x))
                return 2;
            panel_sms = (int)x;
        } else
            return usage(stderr);
        i++;
    }
    if ((panel_sms && !panel) || (gemm_all && !panel_sms))
        return usage(stderr);
    if (panel && (trace || trace_dev)) {
        fprintf(stderr, "%s: --trace and --trace-dev trace the LU, not --panel\n", me);
        return 2;
    }
    /* an output path that cannot be written is refused before anything runs (as hytile hpl) */
    if ((trace && hyt_cli_check_trace(me, "--trace", trace)) ||
        (trace_dev && hyt_cli_check_trace(me, "--trace-dev", trace_dev)))
        return 2;

    hyt_config_t *cfg;
    hyt_context_t *ctx;
    hyt_config_create(&cfg);
    if (hyt_config_load_env(cfg) ||
        hyt_config_set(cfg, "runtime.devices", devices, HYT_SRC_API, "--devices") ||
        hyt_context_create(cfg, &ctx)) {
        fprintf(stderr, "hytile: %s\n", hyt_last_error());
        hyt_config_destroy(cfg);
        return 2;
    }
    hyt_config_destroy(cfg);
    if (panel) {
        static const int pm[] = {1024, 4096, 16384, 32768, 65536, 131072}, pnb[] = {256, 512,
                                                                                   1024};
        int one_nb = nb;
        long ctas = hyt_config_get_int(hyt_context_config(ctx), "gpu.panel_ctas");
        int prc = hyt_bench_panel(ctx, nn ? ns : pm, nn ? nn : 6, nb > 0 ? &one_nb : pnb,
                                  nb > 0 ? 1 : 3, reps > 0 ? reps : 5, (int)ctas, panel_sms,
                                  gemm_all);
        hyt_context_destroy(ctx);
        return prc;
    }
    int ndev = hyt_context_num_devices(ctx);
    if (!nn)
        ns[nn++] = 16384;
    if (reps < 0)
        reps = 1;
    if (nb > 0 && hyt_cli_set_int(ctx, "lu.nb", nb, "hytile bench-gpu")) {
        hyt_context_destroy(ctx);
        return 2;
    }
    char ver[256];
    hyt_peer_version(ver, sizeof ver);
    printf("hytile bench-gpu: %d CPU workers, %d devices:", hyt_context_num_workers(ctx), ndev);
    for (int g = 0; g < ndev; g++)
        printf(" %s", hyt_device_name(hyt_context_device(ctx, g)));
    printf("\npeer: %s\n", peer ? ver : "(not run)");
    printf("times: best of %d%s\n", reps,
           cold ? " (--cold: the first runs timed too)"
                : " after an untimed run of each code at each N (the first combination's)");
    int ids[64];
    for (int g = 0; g < ndev && g < 64; g++) /* the peer uses the same GPUs */
        ids[g] = hyt_device_ordinal(hyt_context_device(ctx, g));
    printf("\n%7s %5s %3s %3s | %9s %9s %9s %9s | %9s %9s %9s %9s | %6s %6s\n", "N", "nb",
           "la", "pc", "hytile s", "TFLOP/s", "h2h s", "residual", "peer s", "TFLOP/s",
           "h2h s", "residual", "ratio", "h2h");
    int status = 0;
    for (int t = 0; t < nn; t++) {
        int n = ns[t];
        double flops = 2.0 / 3.0 * (double)n * n * n;
        const double w0 = hyt_wtime(); /* the benchmark's own time, by phase (last line) */
        hyt_lu_params_t p;
        hyt_lu_params(ctx, n, n, &p);
        hyt_desc_t A, L;
        double *a0 = malloc((size_t)n * n * sizeof *a0), *b = malloc((size_t)n * sizeof *b);
        double *x = malloc((size_t)n * sizeof *x);
        int *ipiv = malloc((size_t)n * sizeof *ipiv);
        if (!a0 || !b || !x || !ipiv || hyt_desc_create(ctx, n, n, p.nb, &A)) {
            fprintf(stderr, "hytile bench-gpu: not enough host memory for n = %d\n", n);
            free(a0);
            free(b);
            free(x);
            free(ipiv);
            status = 1;
            break;
        }
        /* HPL's matrix, as a LAPACK array (for the peer and the residual) and as tiles */
        hyt_desc_lapack(n, n, p.nb, a0, n, &L);
        for (int64_t i = 0; i < n; i++)
            b[i] = hyt_hpl_entry(n, i, n, 100);
        hyt_sequence_t *seq;
        hyt_sequence_create(ctx, &seq);
        int rc = hyt_sequence_finish(seq, hyt_dplghpl_tile_async(seq, &L, 0, 100));
        const double w1 = hyt_wtime();
        double best[256], res[256], dev[256];
        int ncombo = nla * npc;
        for (int c = 0; c < ncombo && !rc; c++) {
            int la = las[c / npc], pc = pcs[c % npc];
            if ((la >= 0 && hyt_cli_set_int(ctx, "lu.lookahead", la, "hytile bench-gpu")) ||
                (pc > 0 && hyt_cli_set_int(ctx, "lu.panel_cores", pc, "hytile bench-gpu"))) {
                rc = 2;
                break;
            }
            best[c] = dev[c] = 1e30;
            res[c] = NAN;
            /* r = -1, the first combination's: not timed (the process's first LU at this n
             * loads the kernels it launches at these sizes), unless --cold */
            for (int r = c == 0 && !cold ? -1 : 0; r < reps && !rc; r++) {
                hyt_sequence_create(ctx, &seq);
                rc = hyt_sequence_finish(seq, hyt_dplghpl_tile_async(seq, &A, 0, 100));
                if (rc)
                    break;
                int tr = trace && r == reps - 1 && c == ncombo - 1;
                if (tr)
                    hyt_trace_start(ctx, 0);
                double t0 = hyt_wtime();
                int info = hyt_dgetrf_tile(ctx, &A, ipiv);
                double th = hyt_wtime() - t0;
                if (tr) {
                    hyt_trace_stop(ctx);
                    if (hyt_trace_write_json(ctx, trace))
                        fprintf(stderr, "hytile: %s\n", hyt_last_error());
                }
                if (info) {
                    fprintf(stderr, "hytile: factorization failed: %d %s\n", info,
                            info < 0 ? hyt_last_error() : "(singular)");
                    rc = info;
                    break;
                }
                if (r >= 0)
                    best[c] = fmin(best[c], th);
                if (r == 0) {
                    hyt_desc_t B;
                    hyt_desc_lapack(n, 1, p.nb, x, n, &B);
                    memcpy(x, b, (size_t)n * sizeof *x);
                    if (hyt_dgetrs_tile(ctx, 'N', &A, ipiv, &B) == 0)
                        res[c] = hpl_residual(ctx, &L, b, x);
                }
                /* the same with the matrix on the GPU: between the marks */
                hyt_lu_params_t q;
                double marks[2] = {0, 0};
                hyt_lu_params(ctx, n, n, &q);
                if (!q.gpu_panel)
                    continue;
                q.nb = A.nb;
                q.marks = marks;
                hyt_sequence_create(ctx, &seq);
                rc = hyt_sequence_finish(seq, hyt_dplghpl_tile_async(seq, &A, 0, 100));
                if (rc)
                    break;
                hyt_sequence_create(ctx, &seq);
                info = 0;
                const int trd = trace_dev && r == reps - 1 && c == ncombo - 1;
                if (trd)
                    hyt_trace_start(ctx, 0);
                rc = hyt_sequence_finish(seq, hyt_pdgetrf_hybrid(seq, &A, ipiv, &info, &q));
                if (trd) {
                    hyt_trace_stop(ctx);
                    if (hyt_trace_write_json(ctx, trace_dev))
                        fprintf(stderr, "hytile: %s\n", hyt_last_error());
                }
                if (rc || info) {
                    fprintf(stderr, "hytile: factorization (device-resident timing) failed: "
                            "%d %s\n", rc ? rc : info, rc ? hyt_last_error() : "(singular)");
                    rc = rc ? rc : info;
                    break;
                }
                if (r >= 0)
                    dev[c] = fmin(dev[c], marks[1] - marks[0]);
            }
            if (!rc) { /* at once: a long peer run must not hide it */
                hyt_lu_params_t q;
                hyt_lu_params(ctx, n, n, &q);
                if (dev[c] >= 1e30)
                    dev[c] = NAN;
                char where[96];
                panel_steps(ctx, n, &q, where, sizeof where);
                printf("%7d %5d %3d %3d | %9s %9s %9.3f %9.2e |   (hytile, panels on %s)\n",
                       n, p.nb, q.lookahead, q.panel_cores, HYT_NUM("%.3f", dev[c]),
                       HYT_NUM("%.2f", flops / dev[c] * 1e-12), best[c], res[c], where);
                fflush(stdout);
            }
        }
        hyt_desc_destroy(&A);
        const double w2 = hyt_wtime();
        double tp = NAN, res_p = NAN, tp_h2h = NAN;
        if (peer && !rc) {
            /* cusolverDn on one GPU (its one block size), cusolverMg on several: each block */
            double tbest = 1e30, hbest = 1e30;
            /* a0 page-locked once for every peer run (else each copies it from pageable memory
             * and the host-to-host run locks it again) */
            const int pinned = !hyt_peer_pin(a0, (size_t)n * (size_t)n * sizeof *a0);
            for (int m = 0; m < (ndev == 1 ? 1 : nmg); m++) {
                double mbest = 1e30, mres = NAN;
                for (int r = m == 0 && !cold ? -1 : 0; r < reps; r++) { /* -1: not timed */
                    double tf;
                    int info;
                    if (hyt_peer_dgesv(ndev, ids, n, mgs[m], a0, b, x, &tf, &info)) {
                        fprintf(stderr, "peer: %s\n", hyt_last_error());
                        break;
                    }
                    if (r >= 0)
                        mbest = fmin(mbest, tf);
                    if (r == 0 && info == 0)
                        mres = hpl_residual(ctx, &L, b, x);
                }
                if (ndev == 1 && hyt_peer_dgetrf_h2h(ids[0], n, a0, reps, &hbest)) {
                    fprintf(stderr, "peer (host to host): %s\n", hyt_last_error());
                    hbest = 1e30;
                }
                if (ndev > 1 && mbest < 1e30)
                    printf("%7d peer: cusolverMgGetrf on %d GPUs, block %d: %.3f s, %.2f TFLOP/s, "
                           "residual %.2e\n", n, ndev, mgs[m], mbest, flops / mbest * 1e-12, mres);
                if (mbest < tbest) {
                    tbest = mbest;
                    res_p = mres;
                }
            }
            if (pinned)
                hyt_peer_unpin(a0);
            if (tbest < 1e30)
                tp = tbest;
            if (hbest < 1e30)
                tp_h2h = hbest;
        }
        if (rc) {
            fprintf(stderr, "hytile bench-gpu: n = %d: %s\n", n, hyt_last_error());
            status = 1;
        }
        for (int c = 0; c < ncombo && !rc; c++) {
            printf("%7d %5d %3s %3s | %9s %9s %9.3f %9.2e | %9s %9s %9s %9s | %6s %6s%s\n", n,
                   p.nb, "", "", HYT_NUM("%.3f", dev[c]), HYT_NUM("%.2f", flops / dev[c] * 1e-12),
                   best[c], res[c], HYT_NUM("%.3f", tp), HYT_NUM("%.2f", flops / tp * 1e-12),
                   HYT_NUM("%.3f", tp_h2h), HYT_NUM("%.2e", res_p), HYT_NUM("%.2f", tp / dev[c]),
                   HYT_NUM("%.2f", tp_h2h / best[c]),
                   res[c] < 16 ? "" : "   FAILED (hytile residual)");
            if (!(res[c] < 16))
                status = 1;
        }
        printf("# %7d: the benchmark's time %.1f s: the matrices made %.1f, hytile's runs and "
               "checks %.1f, the peer's %.1f\n", n, hyt_wtime() - w0, w1 - w0, w2 - w1,
               hyt_wtime() - w2);
        fflush(stdout);
        free(a0);
        free(b);
        free(x);
        free(ipiv);
    }
    hyt_context_destroy(ctx);
    return status;
}
