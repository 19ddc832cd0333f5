/*
 * Injected faults (debug.fault_task / fault_alloc / fault_device = k: the k-th task, runtime
 * allocation or device call fails) over many k, for the CPU LU, the hybrid LU with CPU panels
 * and with device panels, and the solve.  Every run must end in bounded time (an alarm) with
 * either a correct result or an error (never success with a wrong result), free everything
 * (the sanitizer builds check), and leave the context usable: a clean factorization right
 * after must succeed.
 *
 * Usage: test_faults [cuda]
 */
#include "hytile.h"
#include "hyt_test.h"
#include "lu_check.h"


/* The LAPACK-layout calls on devices with GPU panels leave A and B as they were when they fail
 * (drivers/lu/dgesv_devices.c), unless copying the results back failed ("partly
 * overwritten"): checked when set, with the count of such late failures. */
static int expect_untouched, late_failures, untouched_checked;

static void check_untouched(int rc, const double *x, const double *x0, size_t count,
                            const char *what)
{
    if (!expect_untouched || rc >= 0)
        return;
    if (strstr(hyt_last_error(), "partly overwritten")) {
        late_failures++;
        return;
    }
    CHECK(!memcmp(x, x0, count * sizeof *x), "%s failed (%s) but changed its array", what,
          hyt_last_error());
    untouched_checked++;
}

/* hyt_dgesv with 3 right-hand sides (lda > n): checked, or A and B unchanged by a failure. */
static int run_gesv(hyt_context_t *ctx, int n, unsigned long long seed, int *checked)
{
    int lda = n + 3, nrhs = 3;
    double *A0 = malloc((size_t)lda * n * sizeof *A0), *A = malloc((size_t)lda * n * sizeof *A);
    double *B0 = malloc((size_t)n * nrhs * sizeof *B0), *B = malloc((size_t)n * nrhs * sizeof *B);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    fill_random(A0, lda, n, lda, seed);
    fill_random(B0, n, nrhs, n, seed + 1);
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    memcpy(B, B0, (size_t)n * nrhs * sizeof *B);
    int rc = hyt_dgesv(ctx, n, nrhs, A, lda, ipiv, B, n);
    if (rc == 0) {
        double r = solve_backward_error('N', n, nrhs, A0, lda, B, n, B0, n);
        CHECK(r < LU_THRESH, "hyt_dgesv: success reported with a wrong result (%g)", r);
        (*checked)++;
    } else {
        CHECK(rc <= HYT_ERR_BASE, "a fault gave %d, not a library error", rc);
        check_untouched(rc, A, A0, (size_t)lda * n, "hyt_dgesv (A)");
        check_untouched(rc, B, B0, (size_t)n * nrhs, "hyt_dgesv (B)");
    }
    free(A0);
    free(A);
    free(B0);
    free(B);
    free(ipiv);
    return rc;
}

/* One factorization + solve; returns 0 and checks the result, or the error. */
static int run_once(hyt_context_t *ctx, int n, unsigned long long seed, int *checked)
{
    double *A0 = malloc((size_t)n * n * sizeof *A0), *A = malloc((size_t)n * n * sizeof *A);
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    fill_random(A0, n, n, n, seed);
    fill_random(b, n, 1, n, seed + 1);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    memcpy(x, b, (size_t)n * sizeof *x);
    int rc = hyt_dgetrf(ctx, n, n, A, n, ipiv);
    check_untouched(rc, A, A0, (size_t)n * n, "hyt_dgetrf");
    if (rc == 0) {
        memcpy(A0, A, (size_t)n * n * sizeof *A); /* the factors, for the check below */
        rc = hyt_dgetrs(ctx, 'N', n, 1, A, n, ipiv, x, n);
        check_untouched(rc, A, A0, (size_t)n * n, "hyt_dgetrs (A)");
        check_untouched(rc, x, b, (size_t)n, "hyt_dgetrs (B)");
        fill_random(A0, n, n, n, seed);
    }
    if (rc == 0 && expect_untouched)
        rc = run_gesv(ctx, 130, seed + 7, checked);
    if (rc == 0) {
        double e = lu_backward_error(n, n, A0, n, A, n, ipiv);
        double r = solve_backward_error('N', n, 1, A0, n, x, n, b, n);
        CHECK(e < LU_THRESH && r < LU_THRESH, "success reported with a wrong result (%g, %g)", e,
              r);
        (*checked)++;
    } else {
        CHECK(rc <= HYT_ERR_BASE, "a fault gave %d, not a library error", rc);
        CHECK(test_says_why(hyt_last_error()), "error %d without a message: '%s'", rc,
              hyt_last_error());
    }
    free(A0);
    free(A);
    free(b);
    free(x);
    free(ipiv);
    return rc;
}

static void sweep(const char *what, const char *devices, const char *panel, const char *key,
                  int kmax, int stride)
{
    int failed = 0, succeeded = 0, checked = 0;
    for (int k = 1; k <= kmax; k += stride) {
        char kb[16];
        snprintf(kb, sizeof kb, "%d", k);
        hyt_context_t *ctx = NULL;
        hyt_config_t *cfg;
        hyt_config_create(&cfg);
        hyt_config_set(cfg, "runtime.workers", "3", HYT_SRC_API, NULL);
        hyt_config_set(cfg, "runtime.devices", devices, HYT_SRC_API, NULL);
        hyt_config_set(cfg, "lu.panel", panel, HYT_SRC_API, NULL);
        hyt_config_set(cfg, "lu.nb", "32", HYT_SRC_API, NULL);
        hyt_config_set(cfg, "lu.lookahead", "1", HYT_SRC_API, NULL);
        hyt_config_set(cfg, "lu.panel_cores", "2", HYT_SRC_API, NULL);
        /* the devices' path at these sizes too (auto keeps small calls on the CPUs) */
        hyt_config_set(cfg, "gpu.min_n", "1", HYT_SRC_API, NULL);
        hyt_config_set(cfg, key, kb, HYT_SRC_API, NULL);
        int rc = hyt_context_create(cfg, &ctx);
        hyt_config_destroy(cfg);
        if (rc) { /* the fault hit the context's own creation: reported, nothing returned */
            CHECK(rc <= HYT_ERR_BASE && ctx == NULL, "%s k=%d: context creation gave %d", what,
                  k, rc);
            failed++;
            continue;
        }
        /* the k-th call fails once: a run that failed is followed by one that succeeds (the
         * context stays usable); a run that succeeded may be followed by the failing one */
        int prev = run_once(ctx, 200, (unsigned long long)k, &checked);
        if (prev)
            failed++;
        else
            succeeded++;
        for (int r = 0; r < 2 && !prev; r++)
            prev = run_once(ctx, 150, 999 + (unsigned long long)r, &checked);
        if (prev) {
            int ok = 0;
            CHECK(run_once(ctx, 150, 42, &ok) == 0 && ok >= 1, "%s k=%d: context unusable "
                  "after the fault: %s", what, k, hyt_last_error());
        }
        hyt_context_destroy(ctx);
    }
    printf("%-32s k = 1..%d: %d failed cleanly, %d succeeded (%d results checked)\n", what, kmax,
           failed, succeeded, checked);
    CHECK(failed > 0, "%s: no injected fault was ever reported", what);
}

int main(int argc, char **argv)
{
    const int cuda = test_cuda_arg(argc, argv);
    if (cuda < 0)
        return 2;
    test_watchdog("test_faults: timed out (a fault made something hang)\n", 1500);
    int s = test_scale();
    if (cuda) {
        if (!test_cuda_devices("cuda:0"))
            return 77;
        /* each k starts a CUDA context (streams, handles, warm-ups): a coarser stride */
        expect_untouched = 1; /* (the CPU-panel sweep below is not checked for it) */
        sweep("cuda, GPU panels, device calls", "cuda:0", "gpu", "debug.fault_device", 400, 11);
        expect_untouched = 0;
        sweep("cuda, CPU panels, device calls", "cuda:0", "cpu", "debug.fault_device", 300, 13);
        expect_untouched = 1;
        sweep("cuda, GPU panels, tasks", "cuda:0", "gpu", "debug.fault_task", 200, 17);
        return test_result("test_faults (cuda)");
    }
    sweep("CPU LU, tasks", "none", "cpu", "debug.fault_task", 200, 2 * s);
    sweep("CPU LU, allocations", "none", "cpu", "debug.fault_alloc", 300, 3 * s);
    sweep("hybrid, CPU panels, tasks", "host:2", "cpu", "debug.fault_task", 250, 2 * s);
    sweep("hybrid, CPU panels, device calls", "host:2", "cpu", "debug.fault_device", 300, 2 * s);
    expect_untouched = 1;
    sweep("hybrid, GPU panels, tasks", "host:2", "gpu", "debug.fault_task", 250, 2 * s);
    sweep("hybrid, GPU panels, device calls", "host:2", "gpu", "debug.fault_device", 300, 2 * s);
    sweep("hybrid, GPU panels, allocations", "host:2", "gpu", "debug.fault_alloc", 400, 3 * s);
    printf("LAPACK layout on devices: %d failed calls left A and B unchanged, %d failed while "
           "copying back\n", untouched_checked, late_failures);
    CHECK(untouched_checked > 0, "no failure on devices checked for untouched arrays");
    return test_result("test_faults");
}
