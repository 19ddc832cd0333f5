/*
 * hytile bench-gpu --abi: the LAPACK ABI as an unmodified program sees it.  dgesv_ of
 * libhytile.so (dlopen, the symbol as a program would call it: the matrix in its pageable
 * memory) against OpenBLAS's dgesv_ (the library that defines cblas_dgemm, on all cores), on
 * the same random n x n system with one right-hand side.  hytile's first call of the process
 * (context, CUDA, handles, page-locking the staging ring) and its later calls are timed apart;
 * then the same call made in this process's own copy of the library splits a call into its
 * phases (copies in + factorization, solve, copies out: drivers/lu/dgesv_devices.c).  Every
 * result is checked by HPL's scaled residual < 16; exit 1 when one fails.  --chol: dposv_
 * ('L') on a symmetric positive definite matrix instead, against dpotrf_ followed by dpotrs_
 * (the factor back on the host, the solve on the CPUs) and OpenBLAS's dpotrf_ + dpotrs_.
 * --solve NRHS[,NRHS...]: the solve alone as well (dgetrs_, or dpotrs_ with --chol), on a factor
 * made once, with each number of right-hand sides: libhytile.so's symbol (where the library
 * sends a solve), hytile's solve in a context without devices (the CPU workers) and OpenBLAS's
 * on all cores.
 *
 *   hytile bench-gpu --abi [--chol] [-n N[,N...]] [--reps R] [--lib PATH] [--no-peer]
 *                    [--solve NRHS[,NRHS...]]
 */
#include "bench_common.h"
#include "cli_common.h"
#include "drv_internal.h"
#include "hytile_cli.h"

#include <dlfcn.h>
#include <float.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void dgesv_fn(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                      double *b, const int *ldb, int *info);
typedef void dposv_fn(const char *uplo, const int *n, const int *nrhs, double *a,
                      const int *lda, double *b, const int *ldb, int *info, size_t len);
typedef void dpotrf_fn(const char *uplo, const int *n, double *a, const int *lda, int *info,
                       size_t len);
typedef void dpotrs_fn(const char *uplo, const int *n, const int *nrhs, const double *a,
                       const int *lda, double *b, const int *ldb, int *info, size_t len);
typedef void dgetrf_fn(const int *m, const int *n, double *a, const int *lda, int *ipiv,
                       int *info);
typedef void dgetrs_fn(const char *trans, const int *n, const int *nrhs, const double *a,
                       const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
                       size_t len);
extern void openblas_set_num_threads(int n);

/* The Cholesky's calls as dgesv_ (ipiv unused): dposv_, or dpotrf_ then dpotrs_, of the
 * library chosen by chol_lib. */
static dposv_fn *chol_posv;
static dpotrf_fn *chol_potrf;
static dpotrs_fn *chol_potrs;
static void as_dposv(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                     double *b, const int *ldb, int *info)
{
    (void)ipiv;
    chol_posv("L", n, nrhs, a, lda, b, ldb, info, 1);
}
static void as_potrf_potrs(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                           double *b, const int *ldb, int *info)
{
    (void)ipiv;
    chol_potrf("L", n, a, lda, info, 1);
    if (*info == 0)
        chol_potrs("L", n, nrhs, a, lda, b, ldb, info, 1);
}

/* One call of f on a fresh copy of A0 and b0: seconds, residual, INFO. */
static double run(dgesv_fn *f, int n, const double *A0, const double *b0, double *A, double *x,
                  int *ipiv, double *res, int *info)
{
    int one = 1;
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    memcpy(x, b0, (size_t)n * sizeof *x);
    double t = hyt_wtime();
    f(&n, &one, A, &n, ipiv, x, &n, info);
    t = hyt_wtime() - t;
    *res = *info == 0 ? hyt_bench_residual(n, A0, x, b0) : INFINITY;
    return t;
}

/* hyt_dgesv in this process (its own copy of the library) as dgesv_; the CPU-only context of
 * --solve. */
static hyt_context_t *split_ctx, *cpu_ctx;
static void split_dgesv(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                        double *b, const int *ldb, int *info)
{
    *info = hyt_dgesv(split_ctx, *n, *nrhs, a, *lda, ipiv, b, *ldb);
}

/* The solve alone with nrhs right-hand sides, on F (A0 factored once by h's dgetrf_ or
 * dpotrf_ 'L'): h's dgetrs_/dpotrs_, hyt_dgetrs/hyt_dpotrs in cpu (a context without devices)
 * and (peer) OpenBLAS's on all cores; best of reps each, every X checked by the residual of its
 * first and last columns.  Returns 1 when a result is wrong. */
static int bench_solve(void *h, int chol, hyt_context_t *cpu, int peer, int n,
                       const double *A0, const double *F, const int *ipiv, int nrhs, int reps,
                       long ncores)
{
    const char *name = chol ? "dpotrs_" : "dgetrs_";
    void *hs = dlsym(h, name), *os = peer ? hyt_bench_openblas_sym(name, hs, NULL) : NULL;
    double *B0 = malloc((size_t)n * nrhs * sizeof *B0), *X = malloc((size_t)n * nrhs * sizeof *X);
    if (!hs || !B0 || !X) {
        fprintf(stderr, "hytile bench-gpu --abi: %s\n", hs ? "no memory for the right-hand sides"
                                                           : "no dgetrs_/dpotrs_ in the library");
        free(B0);
        free(X);
        return 1;
    }
    for (int64_t c = 0; c < nrhs; c++)
        for (int64_t i = 0; i < n; i++)
            B0[i + c * n] = A0[i + (c % n) * n] * 0.5 + 0.25 + 1e-3 * (double)c;
    const char *what[3] = {"hytile (library)", "hytile (CPUs)", "OpenBLAS"};
    double best[3] = {INFINITY, INFINITY, INFINITY}, res[3] = {0, 0, 0};
    int bad = 0;
    for (int r = 0; r < reps; r++)
        for (int v = 0; v < 3; v++) {
            if ((v == 1 && !cpu) || (v == 2 && !os))
                continue;
            memcpy(X, B0, (size_t)n * nrhs * sizeof *X);
            int info = 0;
            if (v == 2)
                openblas_set_num_threads((int)ncores);
            double t = hyt_wtime();
            if (v == 1)
                info = chol ? hyt_dpotrs(cpu, 'L', n, nrhs, F, n, X, n)
                            : hyt_dgetrs(cpu, 'N', n, nrhs, F, n, ipiv, X, n);
            else if (chol)
                ((dpotrs_fn *)(v ? os : hs))("L", &n, &nrhs, F, &n, X, &n, &info, 1);
            else
                ((dgetrs_fn *)(v ? os : hs))("N", &n, &nrhs, F, &n, ipiv, X, &n, &info, 1);
            t = hyt_wtime() - t;
            if (v == 2)
                openblas_set_num_threads(1);
            best[v] = fmin(best[v], t);
            for (int c = 0; c < nrhs; c += nrhs > 1 ? nrhs - 1 : 1)
                res[v] = fmax(res[v], info ? INFINITY
                                           : hyt_bench_residual(n, A0, X + (size_t)c * n,
                                                                B0 + (size_t)c * n));
        }
    for (int v = 0; v < 3; v++) {
        if (best[v] == INFINITY)
            continue;
        char call[40];
        snprintf(call, sizeof call, "%s nrhs %d", name, nrhs);
        printf("%7d %-22s %9.4f %10.3g %s, %s\n", n, call, best[v], res[v],
               res[v] < 16 ? "PASSED" : "FAILED", what[v]);
        bad |= !(res[v] < 16);
    }
    fflush(stdout);
    free(B0);
    free(X);
    return bad;
}

static int usage(FILE *f)
{
    fprintf(f, "usage: hytile bench-gpu --abi [--chol] [-n N[,N...]] [--reps R] "
               "[--lib libhytile.so] [--no-peer] [--solve NRHS[,NRHS...]]\n");
    return f == stdout ? 0 : 2;
}

int hyt_bench_abi(int argc, char **argv)
{
    int ns[16] = {10000, 20000, 30000}, nn = 3, reps = 3, peer = 1, chol = 0;
    int nrhs[16], nsolve = 0;
    char lib[4096] = "";
    static const char me[] = "hytile bench-gpu --abi";
    if (hyt_cli_wants_help(argc, argv))
        return usage(stdout);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--abi"))
            continue;
        if (!strcmp(a, "--no-peer")) {
            peer = 0;
        } else if (!strcmp(a, "--chol")) {
            chol = 1;
        } else if (!strcmp(a, "-n") && v) {
            if ((nn = hyt_cli_int_list(me, a, v, 1, 1000000, ns, 16)) < 0)
                return 2;
            i++;
        } else if (!strcmp(a, "--reps") && v) {
            long x;
            if (hyt_cli_int(me, a, v, 1, 1000000, &x))
                return 2;
            reps = (int)x;
            i++;
        } else if (!strcmp(a, "--solve") && v) {
            if ((nsolve = hyt_cli_int_list(me, a, v, 1, 1000000, nrhs, 16)) < 0)
                return 2;
            i++;
        } else if (!strcmp(a, "--lib") && v) {
            snprintf(lib, sizeof lib, "%s", v);
            i++;
        } else {
            return usage(stderr);
        }
    }
    if (!lib[0]) { /* beside this executable (the build directory) */
        char exe[4000];
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[len > 0 ? len : 0] = '\0';
        snprintf(lib, sizeof lib, "%s/libhytile.so", dirname(exe));
    }
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    const char *sym = chol ? "dposv_" : "dgesv_";
    void *hsym = h ? dlsym(h, sym) : NULL;
    if (!hsym) {
        fprintf(stderr, "hytile bench-gpu --abi: no %s in %s (%s); give --lib\n", sym, lib,
                dlerror());
        return 2;
    }
    const char *ob_lib;
    void *osym = hyt_bench_openblas_sym(sym, hsym, &ob_lib);
    dgesv_fn *hyt = (dgesv_fn *)hsym, *ob = (dgesv_fn *)osym;
    if (chol) { /* hytile's through the wrappers; OpenBLAS's dposv_ called directly below */
        chol_posv = (dposv_fn *)hsym;
        chol_potrf = (dpotrf_fn *)dlsym(h, "dpotrf_");
        chol_potrs = (dpotrs_fn *)dlsym(h, "dpotrs_");
        hyt = as_dposv;
    }
    if (peer && !ob)
        fprintf(stderr, "hytile bench-gpu --abi: no OpenBLAS dgesv_ found: no peer\n");
    long ncores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("libhytile: %s; peer: %s on %ld threads\n", lib, peer && ob ? ob_lib : "none",
           ncores);
    printf("%7s %-22s %9s %10s %s\n", "n", "call", "seconds", "residual", "phases (s)");
    int failed = 0;
    for (int q = 0; q < nn; q++) {
        const int n = ns[q];
        double *A0 = malloc((size_t)n * n * sizeof *A0), *A = malloc((size_t)n * n * sizeof *A);
        double *b0 = malloc((size_t)n * sizeof *b0), *x = malloc((size_t)n * sizeof *x);
        int *ipiv = malloc((size_t)n * sizeof *ipiv), inf;
        if (!A0 || !A || !b0 || !x || !ipiv) {
            fprintf(stderr, "hytile bench-gpu --abi: no memory for n = %d\n", n);
            return 2;
        }
        hyt_bench_fill(A0, n, n, n, 1u + (unsigned)n);
        for (int j = 0; chol && j < n; j++) { /* symmetric, diagonally dominant */
            for (int i = 0; i < j; i++)
                A0[i + (size_t)j * n] = A0[j + (size_t)i * n];
            A0[j + (size_t)j * n] += n;
        }
        for (int i = 0; i < n; i++)
            b0[i] = A0[i] * 0.5 + 0.25;
        double res, t;
        for (int r = 0; r <= reps; r++) {
            t = run(hyt, n, A0, b0, A, x, ipiv, &res, &inf);
            char what[32];
            snprintf(what, sizeof what, "hytile %s %s", sym, q == 0 && r == 0 ? "first" :
                     r == 0 ? "1st at n" : "later");
            printf("%7d %-22s %9.4f %10.3g %s\n", n, what, t, res,
                   inf ? "INFO != 0" : res < 16 ? "PASSED" : "FAILED");
            failed |= inf != 0 || !(res < 16);
            fflush(stdout);
        }
        if (chol && chol_potrf && chol_potrs) { /* the factor back, the solve on the CPUs */
            t = run(as_potrf_potrs, n, A0, b0, A, x, ipiv, &res, &inf);
            printf("%7d %-22s %9.4f %10.3g %s\n", n, "hytile dpotrf_+dpotrs_", t, res,
                   inf ? "INFO != 0" : res < 16 ? "PASSED" : "FAILED");
            failed |= inf != 0 || !(res < 16);
        }
        /* the phases, in this process's copy of the library */
        if (!chol && !split_ctx && hyt_context_create(NULL, &split_ctx)) {
            fprintf(stderr, "%s\n", hyt_last_error());
            split_ctx = NULL;
        }
        if (split_ctx) {
            for (int r = 0; r < 2; r++) {
                hyt_lapack_dev_last = (hyt_lapack_dev_times_t){0};
                t = run(split_dgesv, n, A0, b0, A, x, ipiv, &res, &inf);
                hyt_lapack_dev_times_t p = hyt_lapack_dev_last;
                printf("%7d %-22s %9.4f %10.3g in+factor %.4f solve %.4f out %.4f%s\n", n,
                       "hyt_dgesv (split)", t, res, p.in_factor, p.solve, p.out,
                       p.total > 0 ? "" : " (not the device path)");
                failed |= inf != 0 || !(res < 16);
            }
        }
        if (peer && ob) {
            /* OpenBLAS's dposv_ is LAPACK's, which calls dpotrf_ through the symbol table: in
             * this program that is hytile's (the command links the ABI), so the peer is
             * OpenBLAS's own dpotrf_ and dpotrs_ */
            dpotrf_fn *hf = chol_potrf;
            dpotrs_fn *hs = chol_potrs;
            chol_potrf = (dpotrf_fn *)hyt_bench_openblas_sym("dpotrf_", (void *)hf, NULL);
            chol_potrs = (dpotrs_fn *)hyt_bench_openblas_sym("dpotrs_", (void *)hs, NULL);
            const int have = !chol || (chol_potrf && chol_potrs);
            openblas_set_num_threads((int)ncores);
            if (have)
                t = run(chol ? as_potrf_potrs : ob, n, A0, b0, A, x, ipiv, &res, &inf);
            openblas_set_num_threads(1);
            chol_potrf = hf;
            chol_potrs = hs;
            if (have)
                printf("%7d %-22s %9.4f %10.3g %s\n", n,
                       chol ? "OpenBLAS potrf_+potrs_" : "OpenBLAS dgesv_", t, res,
                       inf ? "INFO != 0" : res < 16 ? "PASSED" : "FAILED");
        }
        if (nsolve && !cpu_ctx) { /* hytile's solve on the CPU workers */
            hyt_config_t *cfg = NULL;
            if (hyt_config_create(&cfg) || hyt_config_load_env(cfg) ||
                hyt_config_set(cfg, "runtime.devices", "none", HYT_SRC_API, NULL) ||
                hyt_context_create(cfg, &cpu_ctx)) {
                fprintf(stderr, "hytile bench-gpu --abi: %s\n", hyt_last_error());
                cpu_ctx = NULL;
            }
            hyt_config_destroy(cfg);
        }
        if (nsolve) { /* the factor, once, by the library's own call */
            dgetrf_fn *getrf = (dgetrf_fn *)dlsym(h, "dgetrf_");
            memcpy(A, A0, (size_t)n * n * sizeof *A);
            inf = -1;
            if (chol && chol_potrf)
                chol_potrf("L", &n, A, &n, &inf, 1);
            else if (!chol && getrf)
                getrf(&n, &n, A, &n, ipiv, &inf);
            if (inf) {
                fprintf(stderr, "hytile bench-gpu --abi: the factorization for --solve failed "
                        "(INFO %d)\n", inf);
                failed = 1;
            }
            for (int s = 0; s < nsolve && !inf; s++)
                failed |= bench_solve(h, chol, cpu_ctx, peer, n, A0, A, ipiv, nrhs[s], reps,
                                      ncores);
        }
        fflush(stdout);
        free(A0);
        free(A);
        free(b0);
        free(x);
        free(ipiv);
    }
    if (split_ctx)
        hyt_context_destroy(split_ctx);
    if (cpu_ctx)
        hyt_context_destroy(cpu_ctx);
    if (!chol)
        printf("targets (n = 30000, one H200): first call <= 1.5 s, later calls <= 1.0 s\n");
    return failed ? 1 : 0;
}
