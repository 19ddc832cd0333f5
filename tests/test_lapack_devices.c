/*
 * The LAPACK-layout calls on devices with GPU panels (drivers/lu/dgesv_devices.c: the arrays
 * stream through device matrices) against the host tile path they replace (hyt_dgetrf_tile
 * on a CCRB copy, the same tasks on a temporary device matrix): the same pivots and INFO, bit
 * for bit the same factors; backward errors < 30 for hyt_dgetrf, hyt_dgetrs ('N', 'T') and
 * hyt_dgesv over sizes that are not multiples of nb, n < nb, m != n, lda > m, nrhs 0 / 1 /
 * many, on 1 to 3 host devices (or CUDA GPUs: argument "cuda"); a singular matrix (INFO, B
 * untouched by dgesv) and NaN (no crash, pivots in range).  gpu.min_n: below it hyt_dgesv and
 * hyt_dposv run on the CPU workers alone, from it on through the devices, correct both ways.
 *
 * Usage: test_lapack_devices [cuda]
 */
#include "chol_internal.h"
#include "hytile.h"
#include "hyt_test.h"
#include "chol_check.h"

/* hyt_dgetrf on LAPACK layout vs hyt_dgetrf_tile on a CCRB copy: pivots, INFO, factors. */
static void check_getrf(hyt_context_t *ctx, int m, int n, int nb, int singular, int nan,
                        const char *what)
{
    int lda = m + 3, mn = m < n ? m : n;
    size_t sz = (size_t)lda * n + 1;
    double *A0 = malloc(sz * sizeof *A0), *F = malloc(sz * sizeof *F), *G = malloc(sz * sizeof *G);
    int *p1 = calloc((size_t)mn + 1, sizeof *p1), *p2 = calloc((size_t)mn + 1, sizeof *p2);
    fill_random(A0, lda, n, lda, (unsigned long long)(m * 31 + n));
    if (singular && n > 2) /* column 2 zero: it stays zero, U(3,3) = 0 exactly, INFO 3 */
        memset(A0 + 2 * (size_t)lda, 0, (size_t)m * sizeof *A0);
    if (nan && m > 1 && n > 1)
        A0[1 + (size_t)lda] = NAN;
    memcpy(F, A0, sz * sizeof *F);
    memcpy(G, A0, sz * sizeof *G);
    int i1 = hyt_dgetrf(ctx, m, n, F, lda, p1);
    hyt_desc_t T;
    REQUIRE(!hyt_desc_create(ctx, m, n, nb, &T), "desc");
    hyt_lapack_to_tile(ctx, G, lda, &T);
    int i2 = hyt_dgetrf_tile(ctx, &T, p2);
    hyt_tile_to_lapack(ctx, &T, G, lda);
    hyt_desc_destroy(&T);
    CHECK(i1 >= 0 && i1 == i2, "%s %d x %d nb %d: info %d, host path %d (%s)", what, m, n, nb,
          i1, i2, hyt_last_error());
    int in_range = 1;
    for (int i = 0; i < mn; i++)
        in_range &= p1[i] >= i + 1 && p1[i] <= m;
    CHECK(in_range, "%s %d x %d: pivots out of range", what, m, n);
    if (!nan) {
        CHECK(!memcmp(p1, p2, (size_t)mn * sizeof *p1), "%s %d x %d nb %d: pivots differ from "
              "the host path", what, m, n, nb);
        int same = 1;
        for (int j = 0; j < n; j++)
            same &= !memcmp(F + (size_t)j * lda, G + (size_t)j * lda, (size_t)m * sizeof *F);
        CHECK(same, "%s %d x %d nb %d: factors differ from the host path", what, m, n, nb);
        double e = lu_backward_error(m, n, A0, lda, F, lda, p1);
        CHECK(e < LU_THRESH, "%s %d x %d nb %d: ||PA-LU|| / (||A|| n eps) = %g", what, m, n, nb,
              e);
        if (singular && n > 2)
            CHECK(i1 == 3, "%s %d x %d: singular, info %d", what, m, n, i1);
    }
    free(A0);
    free(F);
    free(G);
    free(p1);
    free(p2);
}

/* hyt_dgesv, then hyt_dgetrs 'N' and 'T' with the factors. */
static void check_solve(hyt_context_t *ctx, int n, int nrhs, int singular, const char *what)
{
    int lda = n + 2, ldb = n + 1;
    double *A0 = malloc(((size_t)lda * n + 1) * sizeof *A0), *A = malloc(((size_t)lda * n + 1) * sizeof *A);
    double *B0 = malloc(((size_t)ldb * nrhs + 1) * sizeof *B0), *B = malloc(((size_t)ldb * nrhs + 1) * sizeof *B);
    int *ipiv = malloc(((size_t)n + 1) * sizeof *ipiv);
    fill_random(A0, lda, n, lda, (unsigned long long)n + 5);
    if (singular && n > 1)
        memset(A0 + (size_t)lda * (n - 1), 0, (size_t)n * sizeof *A0); /* last column zero */
    fill_random(B0, ldb, nrhs, ldb, (unsigned long long)n + 6);
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    memcpy(B, B0, (size_t)ldb * nrhs * sizeof *B);
    int info = hyt_dgesv(ctx, n, nrhs, A, lda, ipiv, B, ldb);
    if (singular && n > 1) {
        CHECK(info == n, "%s singular n %d: info %d (%s)", what, n, info, hyt_last_error());
        CHECK(!memcmp(B, B0, (size_t)ldb * nrhs * sizeof *B), "%s: B written by a singular "
              "dgesv", what);
    } else {
        CHECK(info == 0, "%s n %d nrhs %d: info %d (%s)", what, n, nrhs, info, hyt_last_error());
        double r = nrhs ? solve_backward_error('N', n, nrhs, A0, lda, B, ldb, B0, ldb) : 0;
        CHECK(r < LU_THRESH, "%s dgesv n %d nrhs %d: backward error %g", what, n, nrhs, r);
        for (int t = 0; t < 2 && nrhs; t++) {
            char tr = t ? 'T' : 'N';
            memcpy(B, B0, (size_t)ldb * nrhs * sizeof *B);
            info = hyt_dgetrs(ctx, tr, n, nrhs, A, lda, ipiv, B, ldb);
            r = solve_backward_error(tr, n, nrhs, A0, lda, B, ldb, B0, ldb);
            CHECK(info == 0 && r < LU_THRESH, "%s dgetrs '%c' n %d nrhs %d: info %d, error %g",
                  what, tr, n, nrhs, info, r);
        }
    }
    free(A0);
    free(A);
    free(B0);
    free(B);
    free(ipiv);
}

/* gpu.min_n = 120 (set) and its auto value: the path each side of it takes, and the results. */
static void check_min_n(int cuda, const char *devs)
{
    hyt_context_t *ctx = test_context(3, devs, "lu.panel", "gpu", "chol.panel", "gpu", "lu.nb",
                                      "32", "gpu.min_n", "120", (char *)NULL);
    CHECK(!hyt_drv_lapack_on_devices(ctx, 119, 500) && !hyt_drv_lapack_on_devices(ctx, 500, 119)
              && hyt_drv_lapack_on_devices(ctx, 120, 120) &&
              !hyt_chol_lapack_on_devices(ctx, 119) && hyt_chol_lapack_on_devices(ctx, 120),
          "%s: gpu.min_n 120 not the crossing", devs);
    for (int n = 100; n <= 140; n += 40) {
        char what[64];
        snprintf(what, sizeof what, "%s gpu.min_n 120", devs);
        hyt_lapack_dev_last = (hyt_lapack_dev_times_t){0};
        check_solve(ctx, n, 3, 0, what);
        CHECK((hyt_lapack_dev_last.total > 0) == (n >= 120), "%s: n %d %s the devices", what, n,
              n >= 120 ? "not through" : "through");
        check_solve(ctx, n, 2, 1, what);
        /* hyt_dposv on a symmetric positive definite matrix */
        int lda = n + 1;
        double *A0 = malloc((size_t)lda * n * sizeof *A0), *A = malloc((size_t)lda * n * sizeof *A);
        double *B0 = malloc((size_t)lda * 2 * sizeof *B0), *B = malloc((size_t)lda * 2 * sizeof *B);
        chol_matrix(A0, n, lda, 0, (unsigned long long)n + 9);
        fill_random(B0, lda, 2, lda, (unsigned long long)n + 10);
        memcpy(A, A0, (size_t)lda * n * sizeof *A);
        memcpy(B, B0, (size_t)lda * 2 * sizeof *B);
        int info = hyt_dposv(ctx, 'L', n, 2, A, lda, B, lda);
        double r = info ? INFINITY : solve_backward_error('N', n, 2, A0, lda, B, lda, B0, lda);
        CHECK(info == 0 && r < LU_THRESH, "%s dposv n %d: info %d, error %g", what, n, info, r);
        free(A0);
        free(A);
        free(B0);
        free(B);
    }
    hyt_context_destroy(ctx);
    ctx = test_context(3, devs, "lu.panel", "gpu", "gpu.min_n", "auto", (char *)NULL);
    int lu = hyt_gpu_min_n(ctx, 'L'), chol = hyt_gpu_min_n(ctx, 'C');
    CHECK(cuda ? lu > 1 && chol > 1 : lu == 1 && chol == 1, "%s: gpu.min_n auto: LU %d, "
          "Cholesky %d", devs, lu, chol);
    hyt_context_destroy(ctx);
}

int main(int argc, char **argv)
{
    const int cuda = test_cuda_arg(argc, argv);
    if (cuda < 0)
        return 2;
    const int maxdev = test_max_devices(cuda, 3);
    if (!maxdev)
        return 77;
    for (int nd = 1; nd <= maxdev; nd++) {
        char devs[32];
        test_device_list(cuda, nd, devs, sizeof devs);
        static const int shapes[][3] = {{1, 1, 8},    {7, 7, 16},   {40, 40, 8},  {100, 100, 16},
                                        {203, 203, 32}, {257, 129, 32}, {129, 257, 32},
                                        {300, 300, 64}};
        for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
            char nbs[16];
            snprintf(nbs, sizeof nbs, "%d", shapes[s][2]);
            hyt_context_t *ctx = test_context(3, devs, "lu.panel", "gpu", "lu.nb", nbs,
                                              "lu.lookahead", s % 2 ? "1" : "3", (char *)NULL);
            check_getrf(ctx, shapes[s][0], shapes[s][1], shapes[s][2], 0, 0, devs);
            if (s == 4 || s == 5)
                check_getrf(ctx, shapes[s][0], shapes[s][1], shapes[s][2], 1, 0, devs);
            if (s == 3)
                check_getrf(ctx, shapes[s][0], shapes[s][1], shapes[s][2], 0, 1, devs);
            if (shapes[s][0] == shapes[s][1]) {
                for (int r = 0; r < 3; r++)
                    check_solve(ctx, shapes[s][0], r == 0 ? 0 : r == 1 ? 1 : 37, 0, devs);
                check_solve(ctx, shapes[s][0], 2, 1, devs);
            }
            hyt_context_destroy(ctx);
        }
        check_min_n(cuda, devs);
    }
    return test_result("test_lapack_devices");
}
