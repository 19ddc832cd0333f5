/*
 * Device-resident matrices (include/hyt_dmat.h): the LU and the solve on the devices, by
 * backward error, over sizes not multiples of nb, n < nb, 1 to 3 devices, lookahead 0..3,
 * one and many right-hand sides, trans N and T; the same pivots and factors as hyt_dgetrf
 * (GPU panels) on the same matrix; singular matrices (INFO), NaN (no hang), bad arguments,
 * the memory cap refusing up front, set/get through a device pointer on one device, and
 * injected faults (an error or a correct result, never a wrong one).  Host devices (quick
 * suite) or CUDA GPUs (argument "cuda": the gpu suite, skipped without a GPU).
 *
 * Usage: test_dmat [cuda]
 */
#include "hytile.h"
#include "hyt_runtime.h"
#include "hyt_test.h"
#include "lu_check.h"
#include "drv_internal.h"      /* hyt_dmat_laswp_plans */
#include "hyt_gpu_kernels.h"   /* hyt_ref_dlaswp_plan */
#include "rt_internal.h" /* the context's allocation count */

#include <math.h>
#include <stdatomic.h>

static void set_int(hyt_context_t *ctx, const char *key, int v)
{
    char b[16];
    snprintf(b, sizeof b, "%d", v);
    REQUIRE(!hyt_context_set(ctx, key, b), "%s", hyt_last_error());
}

/* Factor and solve one n x n system with nrhs right-hand sides on the devices; checks the
 * backward errors, and the pivots and factors against hyt_dgetrf on the same context. */
static void check(hyt_context_t *ctx, int n, int nb, int la, int nrhs, char trans,
                  unsigned long long seed, const char *devs)
{
    set_int(ctx, "lu.lookahead", la);
    set_int(ctx, "lu.nb", nb);
    int lda = n + 3;
    size_t asz = (size_t)lda * n + 1, bsz = (size_t)lda * nrhs + 1;
    double *A0 = malloc(asz * sizeof *A0), *F = malloc(asz * sizeof *F), *H = malloc(asz * sizeof *H);
    double *B0 = malloc(bsz * sizeof *B0), *X = malloc(bsz * sizeof *X);
    int *ipiv = malloc(((size_t)n + 1) * sizeof *ipiv), *hpiv = malloc(((size_t)n + 1) * sizeof *hpiv);
    fill_random(A0, lda, n, lda, seed);
    fill_random(B0, lda, nrhs, lda, seed + 7);
    hyt_dmat_t *dA, *dB;
    REQUIRE(!hyt_dmat_create(ctx, n, n, nb, &dA), "%s", hyt_last_error());
    REQUIRE(!hyt_dmat_create(ctx, n, nrhs, hyt_dmat_nb(dA), &dB), "%s", hyt_last_error());
    CHECK(hyt_dmat_nb(dA) == nb, "nb %d", hyt_dmat_nb(dA));
    CHECK(!hyt_dmat_set(dA, A0, lda), "%s", hyt_last_error());
    CHECK(!hyt_dmat_set(dB, B0, lda), "%s", hyt_last_error());
    int info = hyt_dgetrf_dmat(ctx, dA, ipiv);
    CHECK(info == 0, "%s n %d nb %d la %d: info %d (%s)", devs, n, nb, la, info,
          hyt_last_error());
    memset(F, 0, asz * sizeof *F);
    CHECK(!hyt_dmat_get(dA, F, lda), "%s", hyt_last_error());
    double e = lu_backward_error(n, n, A0, lda, F, lda, ipiv);
    CHECK(e < LU_THRESH, "%s n %d nb %d la %d: ||PA - LU|| %g", devs, n, nb, la, e);
    for (int i = 0; i < n; i++)
        CHECK(ipiv[i] > i && ipiv[i] <= n, "ipiv[%d] = %d", i, ipiv[i]);
    /* the host path with GPU panels: the same tasks on the same devices, the same bits (its
     * matrix arrives while it runs, so it would cut more steps' updates in pieces, which
     * cuBLAS may round differently: only the first, as the device matrix's LU does) */
    memcpy(H, A0, asz * sizeof *H);
    REQUIRE(!hyt_context_set(ctx, "lu.panel", "gpu"), "%s", hyt_last_error());
    REQUIRE(!hyt_context_set(ctx, "lu.overlap_steps", "1"), "%s", hyt_last_error());
    CHECK(hyt_dgetrf(ctx, n, n, H, lda, hpiv) == 0, "%s", hyt_last_error());
    CHECK(!memcmp(ipiv, hpiv, (size_t)n * sizeof *ipiv), "%s n %d nb %d: pivots differ from "
          "hyt_dgetrf's", devs, n, nb);
    int same = 1;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++)
            same &= F[r + (int64_t)c * lda] == H[r + (int64_t)c * lda];
    CHECK(same, "%s n %d nb %d: factors differ from hyt_dgetrf's", devs, n, nb);
    REQUIRE(!hyt_context_set(ctx, "lu.panel", "auto"), "%s", hyt_last_error());
    REQUIRE(!hyt_context_set(ctx, "lu.overlap_steps", "auto"), "%s", hyt_last_error());
    int rc = hyt_dgetrs_dmat(ctx, trans, dA, ipiv, dB);
    CHECK(rc == 0, "dgetrs: %d %s", rc, hyt_last_error());
    CHECK(!hyt_dmat_get(dB, X, lda), "%s", hyt_last_error());
    double r = solve_backward_error(trans, n, nrhs, A0, lda, X, lda, B0, lda);
    CHECK(r < LU_THRESH, "%s n %d nb %d la %d nrhs %d trans %c: ||b - Ax|| %g", devs, n, nb, la,
          nrhs, trans, r);
    /* dgesv on fresh copies */
    CHECK(!hyt_dmat_set(dA, A0, lda) && !hyt_dmat_set(dB, B0, lda), "%s", hyt_last_error());
    CHECK(hyt_dgesv_dmat(ctx, dA, ipiv, dB) == 0, "dgesv: %s", hyt_last_error());
    CHECK(!hyt_dmat_get(dB, X, lda), "%s", hyt_last_error());
    r = solve_backward_error('N', n, nrhs, A0, lda, X, lda, B0, lda);
    CHECK(r < LU_THRESH, "%s n %d dgesv: %g", devs, n, r);
    hyt_dmat_destroy(dA);
    hyt_dmat_destroy(dB);
    free(A0);
    free(F);
    free(H);
    free(B0);
    free(X);
    free(ipiv);
    free(hpiv);
}

/* Singular (INFO = the first zero pivot, as hyt_dgetrf's) and NaN (returns, pivots in range). */
static void check_special(hyt_context_t *ctx, const char *devs)
{
    const int n = 70, nb = 16;
    set_int(ctx, "lu.nb", nb);
    set_int(ctx, "lu.lookahead", 1);
    double *A = malloc((size_t)n * n * sizeof *A), *H = malloc((size_t)n * n * sizeof *H);
    int *ipiv = malloc(n * sizeof *ipiv), *hpiv = malloc(n * sizeof *hpiv);
    hyt_dmat_t *dA, *dB;
    REQUIRE(!hyt_dmat_create(ctx, n, n, nb, &dA) && !hyt_dmat_create(ctx, n, 2, nb, &dB), "%s",
            hyt_last_error());
    fill_random(A, n, n, n, 5);
    for (int r = 0; r < n; r++) /* column 37 zero: U(38, 38) is exactly zero */
        A[r + 37 * n] = 0;
    memcpy(H, A, (size_t)n * n * sizeof *H);
    REQUIRE(!hyt_dmat_set(dA, A, n), "%s", hyt_last_error());
    int info = hyt_dgetrf_dmat(ctx, dA, ipiv);
    REQUIRE(!hyt_context_set(ctx, "lu.panel", "gpu"), "%s", hyt_last_error());
    REQUIRE(!hyt_context_set(ctx, "lu.overlap_steps", "1"), "%s", hyt_last_error());
    int hinfo = hyt_dgetrf(ctx, n, n, H, n, hpiv);
    REQUIRE(!hyt_context_set(ctx, "lu.panel", "auto"), "%s", hyt_last_error());
    REQUIRE(!hyt_context_set(ctx, "lu.overlap_steps", "auto"), "%s", hyt_last_error());
    CHECK(info == 38 && hinfo == 38, "%s singular: info %d, hyt_dgetrf's %d", devs, info, hinfo);
    CHECK(!memcmp(ipiv, hpiv, n * sizeof *ipiv), "%s singular: pivots differ", devs);
    REQUIRE(!hyt_dmat_set(dA, A, n), "%s", hyt_last_error());
    CHECK(hyt_dgesv_dmat(ctx, dA, ipiv, dB) == 38, "%s dgesv singular", devs);

    fill_random(A, n, n, n, 6);
    A[40 + 20 * n] = NAN;
    REQUIRE(!hyt_dmat_set(dA, A, n), "%s", hyt_last_error());
    info = hyt_dgetrf_dmat(ctx, dA, ipiv);
    CHECK(info >= 0, "%s NaN: %d %s", devs, info, hyt_last_error());
    for (int i = 0; i < n; i++)
        CHECK(ipiv[i] >= 1 && ipiv[i] <= n, "%s NaN: ipiv[%d] = %d", devs, i, ipiv[i]);
    hyt_dmat_destroy(dA);
    hyt_dmat_destroy(dB);
    free(A);
    free(H);
    free(ipiv);
    free(hpiv);
}

/* A caller's own IPIV that is not LAPACK's (ipiv[i] < i + 1): the solve applies it as LAPACK's
 * dlaswp does.  The matrix needs no interchanges; the pivots swap rows 2i and 2i + 1 and back
 * (the same P = I), which a solve that took LAPACK's pivots for granted would get wrong. */
static void check_own_pivots(hyt_context_t *ctx, const char *devs)
{
    const int n = 70, nb = 16, nrhs = 3;
    set_int(ctx, "lu.nb", nb);
    double *A = malloc((size_t)n * n * sizeof *A), *B = malloc((size_t)n * nrhs * sizeof *B);
    double *X = malloc((size_t)n * nrhs * sizeof *X);
    int *ipiv = malloc(n * sizeof *ipiv);
    hyt_dmat_t *dA, *dB;
    REQUIRE(!hyt_dmat_create(ctx, n, n, nb, &dA) && !hyt_dmat_create(ctx, n, nrhs, nb, &dB),
            "%s", hyt_last_error());
    fill_random(A, n, n, n, 11);
    fill_random(B, n, nrhs, n, 12);
    for (int i = 0; i < n; i++)
        A[i + (int64_t)i * n] += 2 * n; /* diagonally dominant: no interchange */
    REQUIRE(!hyt_dmat_set(dA, A, n), "%s", hyt_last_error());
    CHECK(hyt_dgetrf_dmat(ctx, dA, ipiv) == 0, "%s", hyt_last_error());
    for (int i = 0; i < n; i++)
        REQUIRE(ipiv[i] == i + 1, "%s: ipiv[%d] = %d", devs, i, ipiv[i]);
    for (int i = 0; i + 1 < n; i += 2) {
        ipiv[i] = i + 2;
        ipiv[i + 1] = i + 1;
    }
    for (int t = 0; t < 2; t++) {
        const char trans = t ? 'T' : 'N';
        CHECK(!hyt_dmat_set(dB, B, n), "%s", hyt_last_error());
        CHECK(hyt_dgetrs_dmat(ctx, trans, dA, ipiv, dB) == 0, "%s", hyt_last_error());
        CHECK(!hyt_dmat_get(dB, X, n), "%s", hyt_last_error());
        double r = solve_backward_error(trans, n, nrhs, A, n, X, n, B, n);
        CHECK(r < LU_THRESH, "%s own pivots, trans %c: ||b - Ax|| %g", devs, trans, r);
    }
    hyt_dmat_destroy(dA);
    hyt_dmat_destroy(dB);
    free(A);
    free(B);
    free(X);
    free(ipiv);
}

static void check_args(hyt_context_t *ctx, hyt_context_t *cpu, int ndev)
{
    hyt_dmat_t *dA, *dB, *dC, *dD;
    int ipiv[40];
    double a[40 * 40];
    REQUIRE(!hyt_dmat_create(ctx, 40, 40, 16, &dA), "%s", hyt_last_error());
    REQUIRE(!hyt_dmat_create(ctx, 40, 3, 16, &dB), "%s", hyt_last_error());
    REQUIRE(!hyt_dmat_create(ctx, 30, 3, 16, &dC), "%s", hyt_last_error());
    REQUIRE(!hyt_dmat_create(ctx, 40, 3, 8, &dD), "%s", hyt_last_error());
    EXPECT_ARG(hyt_dmat_create(ctx, -1, 4, 0, &dA), HYT_ERR_INVALID,
               "hyt_dmat_create: argument 1 (m)");
    EXPECT_ARG(hyt_dmat_create(ctx, 4, 4, 0, NULL), HYT_ERR_INVALID,
               "hyt_dmat_create: argument 4 (dA)");
    hyt_dmat_t *none = NULL;
    EXPECT_ARG(hyt_dmat_create(cpu, 4, 4, 0, &none), HYT_ERR_INVALID, "devices");
    CHECK(none == NULL, "a matrix without devices");
    EXPECT_ARG(hyt_dmat_set(dA, NULL, 40), HYT_ERR_INVALID, "hyt_dmat_set: argument 2 (a)");
    EXPECT_ARG(hyt_dmat_get(dA, a, 39), HYT_ERR_INVALID, "hyt_dmat_get: argument 3 (lda)");
    EXPECT_ARG(hyt_dgetrf_dmat(ctx, NULL, ipiv), -1, "hyt_dgetrf_dmat: argument 1 (dA)");
    EXPECT_ARG(hyt_dgetrf_dmat(ctx, dA, NULL), -2, "hyt_dgetrf_dmat: argument 2 (ipiv)");
    EXPECT_ARG(hyt_dgetrf_dmat(cpu, dA, ipiv), -1, "another context");
    EXPECT_ARG(hyt_dgetrs_dmat(ctx, 'X', dA, ipiv, dB), -1, "hyt_dgetrs_dmat: argument 1");
    EXPECT_ARG(hyt_dgetrs_dmat(ctx, 'N', dB, ipiv, dB), -2, "square");
    EXPECT_ARG(hyt_dgetrs_dmat(ctx, 'N', dA, NULL, dB), -3, "argument 3 (ipiv)");
    EXPECT_ARG(hyt_dgetrs_dmat(ctx, 'N', dA, ipiv, dC), -4, "argument 4 (dB) has 30 rows");
    EXPECT_ARG(hyt_dgetrs_dmat(ctx, 'N', dA, ipiv, dD), -4, "tile size");
    EXPECT_ARG(hyt_dgesv_dmat(ctx, dA, ipiv, NULL), -3, "hyt_dgesv_dmat: argument 3 (dB)");
    EXPECT_ARG(hyt_dgetrf_dmat_async(NULL, dA, ipiv, NULL), HYT_ERR_INVALID, "NULL sequence");
    if (ndev > 1)
        EXPECT_ARG(hyt_dmat_set_device(dA, a, 40), HYT_ERR_INVALID, "one device");
    hyt_dmat_destroy(dA);
    hyt_dmat_destroy(dB);
    hyt_dmat_destroy(dC);
    hyt_dmat_destroy(dD);
    hyt_dmat_destroy(NULL);
}

/* One device: a column-major matrix in device memory in and out. */
static void check_device_pointer(hyt_context_t *ctx)
{
    const int n = 45, ld = 50;
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    double *d = NULL, *a = malloc((size_t)ld * n * sizeof *a), *b = malloc((size_t)ld * n * sizeof *b);
    REQUIRE(!hyt_device_malloc(dev, (void **)&d, (size_t)ld * n * sizeof *d), "%s",
            hyt_last_error());
    hyt_dmat_t *dA, *dB;
    REQUIRE(!hyt_dmat_create(ctx, n, n, 16, &dA) && !hyt_dmat_create(ctx, n, n, 16, &dB), "%s",
            hyt_last_error());
    fill_random(a, ld, n, ld, 9);
    CHECK(!hyt_dmat_set(dA, a, ld), "%s", hyt_last_error());
    CHECK(!hyt_dmat_get_device(dA, d, ld), "%s", hyt_last_error());
    CHECK(!hyt_dmat_set_device(dB, d, ld), "%s", hyt_last_error());
    memset(b, 0, (size_t)ld * n * sizeof *b);
    CHECK(!hyt_dmat_get(dB, b, ld), "%s", hyt_last_error());
    int same = 1;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++)
            same &= a[r + c * ld] == b[r + c * ld];
    CHECK(same, "device pointer round trip");
    hyt_dmat_destroy(dA);
    hyt_dmat_destroy(dB);
    hyt_device_free(dev, d);
    free(a);
    free(b);
}

/* gpu.memory_limit: the matrix that does not fit, and the factorization's workspaces that do
 * not fit beside a matrix that does, are refused before anything runs. */
static void check_memory(const char *devs)
{
    hyt_context_t *ctx = test_context(2, devs, "gpu.memory_limit", "1M", (char *)NULL);
    hyt_dmat_t *dA = NULL;
    int rc = hyt_dmat_create(ctx, 800, 800, 64, &dA);
    CHECK(rc == HYT_ERR_DEVICE_MEMORY && !dA, "capped: %d", rc);
    CHECK(strstr(hyt_last_error(), "hyt_dmat_create: ") && strstr(hyt_last_error(), "GiB"),
          "message: %s", hyt_last_error());
    const int n = 320;
    double *a = malloc((size_t)n * n * sizeof *a), *b = malloc((size_t)n * n * sizeof *b);
    int *ipiv = malloc(n * sizeof *ipiv);
    fill_random(a, n, n, n, 4);
    REQUIRE(!hyt_dmat_create(ctx, n, n, 64, &dA), "%s", hyt_last_error()); /* 800 KiB */
    REQUIRE(!hyt_dmat_set(dA, a, n), "%s", hyt_last_error());
    set_int(ctx, "lu.lookahead", 2);
    rc = hyt_dgetrf_dmat(ctx, dA, ipiv);
    CHECK(rc == HYT_ERR_DEVICE_MEMORY, "workspace over the cap: %d", rc);
    CHECK(strstr(hyt_last_error(), "hyt_dgetrf_dmat: "), "message: %s", hyt_last_error());
    CHECK(!hyt_dmat_get(dA, b, n) && !memcmp(a, b, (size_t)n * n * sizeof *a),
          "the matrix was touched");
    hyt_dmat_destroy(dA);
    free(a);
    free(b);
    free(ipiv);
    hyt_context_destroy(ctx);
}

/* One dgesv through device matrices on a fresh context with key = k: an error with a message
 * or a correct result, never a wrong one.  Returns 1 when it failed, 0 when it was correct;
 * *allocs: the context's allocations during the run. */
static int fault_run(const char *devs, const char *key, long k, const double *A0,
                     const double *B0, double *X, int *ipiv, int n, int nrhs, long *allocs)
{
    char kb[24];
    snprintf(kb, sizeof kb, "%ld", k);
    hyt_config_t *cfg;
    hyt_context_t *ctx = NULL;
    hyt_config_create(&cfg);
    hyt_config_set(cfg, "runtime.workers", "2", HYT_SRC_API, NULL);
    hyt_config_set(cfg, "runtime.devices", devs, HYT_SRC_API, NULL);
    hyt_config_set(cfg, "lu.nb", "16", HYT_SRC_API, NULL);
    hyt_config_set(cfg, "lu.lookahead", "1", HYT_SRC_API, NULL);
    hyt_config_set(cfg, key, kb, HYT_SRC_API, NULL);
    int rc = hyt_context_create(cfg, &ctx);
    hyt_config_destroy(cfg);
    *allocs = k; /* a context that could not be created: the fault came */
    if (rc)
        return 1;
    hyt_dmat_t *dA = NULL, *dB = NULL;
    rc = hyt_dmat_create(ctx, n, n, 16, &dA);
    if (!rc)
        rc = hyt_dmat_create(ctx, n, nrhs, 16, &dB);
    if (!rc)
        rc = hyt_dmat_set(dA, A0, n);
    if (!rc)
        rc = hyt_dmat_set(dB, B0, n);
    if (!rc)
        rc = hyt_dgesv_dmat(ctx, dA, ipiv, dB);
    if (!rc)
        rc = hyt_dmat_get(dB, X, n);
    if (rc) {
        CHECK(rc <= HYT_ERR_BASE && test_says_why(hyt_last_error()),
              "%s=%ld: %d without a library error and its message: '%s'", key, k, rc,
              hyt_last_error());
    } else {
        double r = solve_backward_error('N', n, nrhs, A0, n, X, n, B0, n);
        CHECK(r < LU_THRESH, "%s=%ld: success with a wrong result (%g)", key, k, r);
    }
    hyt_dmat_destroy(dA);
    hyt_dmat_destroy(dB);
    *allocs = atomic_load(&ctx->count_alloc);
    hyt_context_destroy(ctx);
    return rc != 0;
}

/* debug.fault_device / fault_alloc / fault_task = k for k = k0, k0 + stride, ... <= kmax (a
 * fault_run each); all_allocs (fault_alloc, stride 1): the sweep must go past the run's last
 * allocation, so that it failed each of them once.  k0 = 0 with fault_alloc: the run's last
 * kmax allocations one at a time, counted in a run whose fault never comes (give or take a
 * few: a task that finished is reused without an allocation). */
static void check_faults(const char *devs, const char *key, long k0, long kmax, int stride,
                         int all_allocs)
{
    int failed = 0, ok = 0, fired = 1, nfired = 0;
    const int n = 90, nrhs = 3;
    double *A0 = malloc((size_t)n * n * sizeof *A0), *B0 = malloc((size_t)n * nrhs * sizeof *B0);
    double *X = malloc((size_t)n * nrhs * sizeof *X);
    int *ipiv = malloc(n * sizeof *ipiv);
    fill_random(A0, n, n, n, 11);
    fill_random(B0, n, nrhs, n, 12);
    long allocs = 0, last = 0;
    if (k0 == 0) {
        CHECK(!fault_run(devs, key, 1L << 30, A0, B0, X, ipiv, n, nrhs, &last),
              "the run without a fault failed: %s", hyt_last_error());
        k0 = last - kmax + 1 > 1 ? last - kmax + 1 : 1;
        kmax = last;
    }
    for (long k = k0; k <= kmax; k += stride) {
        if (fault_run(devs, key, k, A0, B0, X, ipiv, n, nrhs, &allocs))
            failed++;
        else
            ok++;
        fired = allocs >= k;
        nfired += fired;
    }
    printf("%s on %s, k = %ld..%ld: %d failed cleanly, %d correct", key, devs, k0, kmax, failed,
           ok);
    if (!strcmp(key, "debug.fault_alloc"))
        printf(" (the k-th allocation came in %d)", nfired);
    if (last)
        printf(" (%ld allocations in a run without one)", last);
    printf("\n");
    CHECK(failed > 0, "%s: no fault reported", key);
    CHECK(!all_allocs || !fired, "%s: the sweep stops before the run's last allocation (k = "
          "%ld): make it longer", key, kmax);
    free(A0);
    free(B0);
    free(X);
    free(ipiv);
}

/* The solve's interchange plans, made for all blocks at once on the host
 * (hyt_dmat_laswp_plans), against the reference's plan of each block (hyt_ref_dlaswp_plan, the
 * oracle of the plan kernel): equal, over pivots that stay put, go into the block, below it,
 * to the last row, and repeat earlier pivots. */
static void check_plans(void)
{
    static const int ns[] = {1, 2, 5, 31, 64, 100, 257, 1000};
    static const int nbs[] = {1, 3, 16, 32, 64};
    test_rng_t rng = {77};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof nbs / sizeof nbs[0]; b++) {
            const int n = ns[a], nb = nbs[b];
            int *piv = malloc((size_t)n * sizeof *piv);
            int *plans = malloc(3 * (size_t)n * sizeof *plans);
            int *ref = malloc(3 * (size_t)nb * sizeof *ref);
            REQUIRE(piv && plans && ref, "out of memory");
            test_lapack_pivots(&rng, piv, 0, n, nb, n);
            CHECK(!hyt_dmat_laswp_plans(n, nb, piv, plans), "%s", hyt_last_error());
            for (int r1 = 0; r1 < n; r1 += nb) {
                const int np = n - r1 < nb ? n - r1 : nb;
                hyt_ref_dlaswp_plan(r1, np, piv + r1, ref);
                CHECK(!memcmp(plans + 3 * (size_t)r1, ref, 3 * (size_t)np * sizeof *ref),
                      "n %d nb %d: the plan of the block at row %d differs from "
                      "hyt_ref_dlaswp_plan's", n, nb, r1);
            }
            free(piv);
            free(plans);
            free(ref);
        }
}

int main(int argc, char **argv)
{
    const int cuda = test_cuda_arg(argc, argv);
    if (cuda < 0)
        return 2;
    test_watchdog("test_dmat: timed out (something hung)\n", 1200);
    const int maxdev = test_max_devices(cuda, 3);
    if (!maxdev)
        return 77;
    static const int shapes[][3] = {/* n, nb, nrhs */
                                    {1, 16, 1},   {7, 16, 2},   {50, 16, 1},  {64, 16, 40},
                                    {100, 32, 3}, {129, 32, 70}, {200, 48, 1}, {37, 8, 9}};
    const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
    check_plans();
    hyt_context_t *cpu = test_context(2, "none", (char *)NULL);
    int count = 0;
    for (int nd = 1; nd <= maxdev; nd++) {
        char devs[32];
        test_device_list(cuda, nd, devs, sizeof devs);
        /* gpu.min_n 1: hyt_dgetrf, the factors' reference, on the devices at every size (its
         * default sends small matrices to the CPU workers, whose bits differ) */
        hyt_context_t *ctx = test_context(3, devs, "gpu.min_n", "1", (char *)NULL);
        for (int s = 0; s < nshapes; s++) {
            int la = (s + nd) % 4;
            check(ctx, shapes[s][0], shapes[s][1], la, shapes[s][2], (s + nd) % 2 ? 'T' : 'N',
                  100u * nd + s, devs);
            count++;
        }
        check_special(ctx, devs);
        check_own_pivots(ctx, devs);
        check_args(ctx, cpu, nd);
        if (nd == 1)
            check_device_pointer(ctx);
        hyt_context_destroy(ctx);
    }
    if (cuda && maxdev > 1) {
        char devs[] = "cuda:0,1";
        check_memory(devs);
    } else {
        check_memory(cuda ? "cuda:0" : "host:2");
    }
    const char *fdevs = cuda ? "cuda:0" : "host:2";
    check_faults(fdevs, "debug.fault_device", 1, cuda ? 300 : 200, 7, 0);
    /* on host devices every allocation of the run, one at a time: about 145 today, of which
     * the 121st to 125th are the insertion of the LU's cleanup and the 139th to 141st that of
     * the solve's (dmat_trs.c), give or take a few (a task that finished is reused without an
     * allocation); each failure makes the call wait for its sequence and free its state
     * itself.  On GPUs (each k creates CUDA contexts) a sample, then the run's last 40 one at
     * a time, where those cleanups are. */
    if (cuda) {
        check_faults(fdevs, "debug.fault_alloc", 1, 60, 3, 0);
        check_faults(fdevs, "debug.fault_alloc", 0, 40, 1, 0);
    } else {
        check_faults(fdevs, "debug.fault_alloc", 1, 200, 1, 1);
    }
    check_faults(fdevs, "debug.fault_task", 1, 150, 7, 0);
    hyt_context_destroy(cpu);
    printf("%d device-matrix factorizations and solves checked\n", count);
    return test_result(cuda ? "test_dmat (cuda)" : "test_dmat");
}
