/*
 * Where the solves alone run (gpu.solve_min_nrhs): with GPU panels, hyt_dgetrs, hyt_dpotrs,
 * hyt_dgetrs_tile and hyt_dpotrs_tile move the factor to the devices only from that many
 * right-hand sides on, and solve in place on the CPU workers below it.  The path is observed
 * through gpu.memory_limit: in a context whose devices are too small for the factor, the device
 * path fails with HYT_ERR_DEVICE_MEMORY and leaves B as it was, the CPU path succeeds.  In a
 * context without the limit both paths give backward errors under the threshold: 'N' and 'T'
 * (LU), 'L' and 'U' (Cholesky; the other triangle holds garbage that must not be read), n not
 * a multiple of nb, on 1 and 2 host devices (or CUDA GPUs: argument "cuda").  A failure on the
 * CPU path leaves B as it was, as one on the device path does (debug.fault_task over the
 * solve's tasks).  The tile factorization and solve in one sequence (async calls).  gpu.min_n
 * is 1 in every context, so that these small LAPACK-layout calls take the devices' paths on
 * CUDA GPUs too.
 */
#include "hytile.h"
#include "hyt_test.h"
#include "chol_check.h"

#include <unistd.h>

#define MIN_NRHS 4

/* X = B0, solve (dgetrs trans / dpotrs uplo / on tile copies of F and X dgetrs_tile trans or
 * dpotrs_tile uplo, by what: 'L', 'C', 'G', 'K') in ctx: its return value; B0 n x nrhs. */
static int solve(hyt_context_t *ctx, char what, char t, int n, int nrhs, const double *F,
                 int lda, const int *ipiv, const double *B0, double *X, int ldb)
{
    memcpy(X, B0, (size_t)ldb * nrhs * sizeof *X);
    if (what == 'L' || what == 'C')
        return what == 'L' ? hyt_dgetrs(ctx, t, n, nrhs, F, lda, ipiv, X, ldb)
                           : hyt_dpotrs(ctx, t, n, nrhs, F, lda, X, ldb);
    hyt_desc_t A, B;
    REQUIRE(!hyt_desc_create(ctx, n, n, 32, &A) && !hyt_desc_create(ctx, n, nrhs, 32, &B) &&
                !hyt_lapack_to_tile(ctx, F, lda, &A) && !hyt_lapack_to_tile(ctx, X, ldb, &B),
            "%s", hyt_last_error());
    int rc = what == 'G' ? hyt_dgetrs_tile(ctx, t, &A, ipiv, &B) : hyt_dpotrs_tile(ctx, t, &A, &B);
    char why[1024]; /* the copy back clears the message, which the caller prints */
    snprintf(why, sizeof why, "%s", hyt_last_error());
    REQUIRE(!hyt_tile_to_lapack(ctx, &B, X, ldb), "%s", hyt_last_error());
    if (rc)
        hyt_error(rc, "%s", why);
    hyt_desc_destroy(&A);
    hyt_desc_destroy(&B);
    return rc;
}

static void check(hyt_context_t *ok, hyt_context_t *small, const char *devs, int n)
{
    const int lda = n + 3, ldb = n + 1, most = 2 * MIN_NRHS + 1;
    double *A0 = malloc((size_t)lda * n * sizeof *A0), *F = malloc((size_t)lda * n * sizeof *F);
    double *B0 = malloc((size_t)ldb * most * sizeof *B0);
    double *X = malloc((size_t)ldb * most * sizeof *X);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    fill_random(B0, ldb, most, ldb, (unsigned long long)n + 2);
    for (int alg = 0; alg < 3; alg++) {
        const char t = alg == 0 ? 'N' : alg == 1 ? 'L' : 'U';
        int rc;
        if (alg == 0) {
            fill_random(A0, lda, n, lda, (unsigned long long)n + 1);
            memcpy(F, A0, (size_t)lda * n * sizeof *F);
            rc = hyt_dgetrf(ok, n, n, F, lda, ipiv);
        } else {
            chol_matrix(A0, n, lda, 0, (unsigned long long)n + 3);
            memcpy(F, A0, (size_t)lda * n * sizeof *F);
            rc = hyt_dpotrf(ok, t, n, F, lda);
            for (int j = 0; j < n; j++) /* the other triangle: garbage, not to be read */
                for (int i = 0; i < n; i++)
                    if (t == 'L' ? i < j : i > j)
                        F[i + (size_t)j * lda] = NAN;
        }
        REQUIRE(rc == 0, "%s n %d: factorization: %d (%s)", devs, n, rc, hyt_last_error());
        static const int nrhs_list[] = {1, MIN_NRHS - 1, MIN_NRHS, 2 * MIN_NRHS + 1};
        for (int q = 0; q < 4; q++) {
            const int nrhs = nrhs_list[q], dev = nrhs >= MIN_NRHS;
            /* the LAPACK-layout call and the tile call; LU: both transpositions of each */
            for (int tr = 0; tr < (alg ? 2 : 4); tr++) {
                const char tt = alg ? t : tr % 2 ? 'T' : 'N';
                const char kind = alg ? tr ? 'K' : 'C' : tr >= 2 ? 'G' : 'L';
                const char *name = alg ? tr ? "dpotrs_tile" : "dpotrs"
                                       : tr >= 2 ? "dgetrs_tile" : "dgetrs";
                rc = solve(ok, kind, tt, n, nrhs, F, lda, ipiv, B0, X, ldb);
                double e = solve_backward_error(alg ? 'N' : tt, n, nrhs, A0, lda, X, ldb, B0, ldb);
                CHECK(rc == 0 && e < LU_THRESH, "%s %s '%c' n %d nrhs %d: rc %d (%s), backward "
                      "error %g", devs, name, tt, n, nrhs, rc,
                      hyt_last_error(), e);
                /* the same in the context whose devices cannot hold the factor */
                rc = solve(small, kind, tt, n, nrhs, F, lda, ipiv, B0, X, ldb);
                if (dev) {
                    CHECK(rc == HYT_ERR_DEVICE_MEMORY, "%s %s '%c' n %d nrhs %d: rc %d, not the "
                          "device path's out-of-memory error (%s)", devs,
                          name, tt, n, nrhs, rc, hyt_last_error());
                    CHECK(!memcmp(X, B0, (size_t)ldb * nrhs * sizeof *X), "%s %s n %d nrhs %d: "
                          "B written by a failed solve", devs, name, n,
                          nrhs);
                } else {
                    e = solve_backward_error(alg ? 'N' : tt, n, nrhs, A0, lda, X, ldb, B0, ldb);
                    CHECK(rc == 0 && e < LU_THRESH, "%s %s '%c' n %d nrhs %d: rc %d (%s), not "
                          "solved on the CPUs (backward error %g)", devs,
                          name, tt, n, nrhs, rc, hyt_last_error(), e);
                }
            }
        }
    }
    free(A0);
    free(F);
    free(B0);
    free(X);
    free(ipiv);
}

/* The factorization and the solve through the devices in one sequence (the async calls): the
 * solve waits for the factor and, for the LU, for the pivots.  pause_us: between the two
 * insertions, so that the factorization has finished and freed its device memory, which the
 * solve's then reuses (the race check must not take that for a race). */
static void check_async(hyt_context_t *ctx, const char *devs, int n, int pause_us)
{
    const int nrhs = 2 * MIN_NRHS + 1;
    double *A0 = malloc((size_t)n * n * sizeof *A0), *B0 = malloc((size_t)n * nrhs * 8);
    double *X = malloc((size_t)n * nrhs * sizeof *X);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    fill_random(B0, n, nrhs, n, 11);
    for (int alg = 0; alg < 3; alg++) {
        const char uplo = alg == 1 ? 'L' : 'U';
        if (alg)
            chol_matrix(A0, n, n, 0, 12);
        else
            fill_random(A0, n, n, n, 13);
        hyt_desc_t A, B;
        hyt_sequence_t *seq;
        int info = -1;
        REQUIRE(!hyt_desc_create(ctx, n, n, 32, &A) && !hyt_desc_create(ctx, n, nrhs, 32, &B) &&
                    !hyt_lapack_to_tile(ctx, A0, n, &A) && !hyt_lapack_to_tile(ctx, B0, n, &B) &&
                    !hyt_sequence_create(ctx, &seq),
                "%s", hyt_last_error());
        int rc = alg ? hyt_dpotrf_tile_async(seq, uplo, &A, &info)
                     : hyt_dgetrf_tile_async(seq, &A, ipiv, &info);
        if (pause_us)
            usleep((useconds_t)pause_us);
        if (!rc)
            rc = alg ? hyt_dpotrs_tile_async(seq, uplo, &A, &B)
                     : hyt_dgetrs_tile_async(seq, 'N', &A, ipiv, &B);
        rc = hyt_sequence_finish(seq, rc);
        char why[1024]; /* before the copy back clears it */
        snprintf(why, sizeof why, "%s", hyt_last_error());
        REQUIRE(!hyt_tile_to_lapack(ctx, &B, X, n), "%s", hyt_last_error());
        double e = solve_backward_error('N', n, nrhs, A0, n, X, n, B0, n);
        CHECK(rc == 0 && info == 0 && e < LU_THRESH, "%s %s async n %d, pause %d us: rc %d, "
              "info %d (%s), backward error %g", devs,
              alg ? "dpotrf + dpotrs_tile" : "dgetrf + dgetrs_tile", n, pause_us, rc, info, why,
              e);
        hyt_desc_destroy(&A);
        hyt_desc_destroy(&B);
    }
    free(A0);
    free(B0);
    free(X);
    free(ipiv);
}

/* debug.fault_task = k over a CPU-path solve (one right-hand side) of each kind: an error and
 * B as it was, or the right answer; some k must fail. */
static void check_faults(const char *devs, int n)
{
    const int lda = n;
    double *A0 = malloc((size_t)n * n * sizeof *A0), *F = malloc((size_t)n * n * sizeof *F);
    double *B0 = malloc((size_t)n * sizeof *B0), *X = malloc((size_t)n * sizeof *X);
    int *ipiv = malloc((size_t)n * sizeof *ipiv), failed = 0;
    fill_random(B0, n, 1, n, 7);
    hyt_context_t *ok = test_context(2, devs, "gpu.min_n", "1", "lu.panel", "gpu", "chol.panel",
                                     "gpu", "lu.nb", "32", "chol.nb", "32", (char *)NULL);
    for (int alg = 0; alg < 2; alg++) {
        const char what = alg ? 'C' : 'L', t = alg ? 'L' : 'N';
        if (alg)
            chol_matrix(A0, n, lda, 0, 8);
        else
            fill_random(A0, n, n, lda, 9);
        memcpy(F, A0, (size_t)n * n * sizeof *F);
        int rc = alg ? hyt_dpotrf(ok, t, n, F, lda) : hyt_dgetrf(ok, n, n, F, lda, ipiv);
        REQUIRE(rc == 0, "%s: factorization: %d (%s)", devs, rc, hyt_last_error());
        for (int k = 1; k <= 60; k += 3) {
            char ks[16];
            snprintf(ks, sizeof ks, "%d", k);
            hyt_context_t *f = test_context(2, devs, "gpu.min_n", "1", "lu.panel", "gpu",
                                            "chol.panel", "gpu", "lu.nb", "32", "chol.nb", "32",
                                            "debug.fault_task", ks, (char *)NULL);
            rc = solve(f, what, t, n, 1, F, lda, ipiv, B0, X, n);
            if (rc < 0) {
                failed++;
                CHECK(rc <= HYT_ERR_BASE && !memcmp(X, B0, (size_t)n * sizeof *X), "%s %s, fault "
                      "at task %d: rc %d, or B written by the failed solve (%s)", devs,
                      alg ? "dpotrs" : "dgetrs", k, rc, hyt_last_error());
            } else {
                double e = solve_backward_error('N', n, 1, A0, lda, X, n, B0, n);
                CHECK(rc == 0 && e < LU_THRESH, "%s %s, fault at task %d: rc %d, backward error "
                      "%g", devs, alg ? "dpotrs" : "dgetrs", k, rc, e);
            }
            hyt_context_destroy(f);
        }
    }
    CHECK(failed > 0, "%s: no injected fault reached a solve", devs);
    hyt_context_destroy(ok);
    free(A0);
    free(F);
    free(B0);
    free(X);
    free(ipiv);
}

int main(int argc, char **argv)
{
    const int cuda = test_cuda_arg(argc, argv);
    if (cuda < 0)
        return 2;
    const int maxdev = test_max_devices(cuda, 2);
    if (!maxdev)
        return 77;
    char min[16];
    snprintf(min, sizeof min, "%d", MIN_NRHS);
    for (int nd = 1; nd <= maxdev; nd++) {
        char devs[32];
        test_device_list(cuda, nd, devs, sizeof devs);
        hyt_context_t *ok = test_context(2, devs, "gpu.min_n", "1", "lu.panel", "gpu",
                                         "chol.panel", "gpu", "lu.nb", "32", "chol.nb", "32",
                                         "gpu.solve_min_nrhs", min, (char *)NULL);
        hyt_context_t *small = test_context(2, devs, "gpu.min_n", "1", "lu.panel", "gpu",
                                            "chol.panel", "gpu", "lu.nb", "32", "chol.nb", "32",
                                            "gpu.solve_min_nrhs", min, "gpu.memory_limit", "64K",
                                            (char *)NULL);
        check(ok, small, devs, 150);
        check(ok, small, devs, 200);
        check_async(ok, devs, 200, 0);
        check_async(ok, devs, 200, 100000);
        hyt_context_destroy(ok);
        hyt_context_destroy(small);
        check_faults(devs, 150);
    }
    return test_result("test_solve_devices");
}
