/*
 * LU and solves on CPUs, checked by backward error (never by comparing factors):
 *   ||P A - L U|| / (||A|| n eps) and ||b - A x|| / (||A|| ||x|| n eps) below LU_THRESH,
 * over sizes from 0 to thousands, m != n both ways, sizes that are not multiples of nb, nb from
 * 1 to 512, lookahead 0..4, 1 to 5 workers, panel_cores 1..workers, LAPACK layout and tiles;
 * singular matrices (INFO exact), NaN/Inf input, every bad argument.
 *
 * Usage: test_lu [quick|large]
 */
#include "hytile.h"
#include "hyt_test.h"
#include "lu_check.h"

#include <math.h>

static void set_lu(hyt_context_t *ctx, int nb, int la, int pc)
{
    char b[3][16];
    snprintf(b[0], 16, "%d", nb);
    snprintf(b[1], 16, "%d", la);
    snprintf(b[2], 16, "%d", pc);
    REQUIRE(!hyt_context_set(ctx, "lu.nb", b[0]), "%s", hyt_last_error());
    REQUIRE(!hyt_context_set(ctx, "lu.lookahead", b[1]), "%s", hyt_last_error());
    REQUIRE(!hyt_context_set(ctx, "lu.panel_cores", b[2]), "%s", hyt_last_error());
}

/* Factor (LAPACK layout, lda > m) and check; for square matrices also solve both ways. */
static void check_lapack(hyt_context_t *ctx, int m, int n, unsigned long long seed,
                         const char *what, int full_check)
{
    int lda = m + 3, mn = m < n ? m : n;
    double *A0 = malloc(((size_t)lda * n + 1) * sizeof *A0), *A = malloc(((size_t)lda * n + 1) * sizeof *A);
    int *ipiv = malloc(((size_t)mn + 1) * sizeof *ipiv);
    fill_random(A0, lda, n, lda, seed);
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    int info = hyt_dgetrf(ctx, m, n, A, lda, ipiv);
    CHECK(info == 0, "%s: dgetrf %d x %d: info %d (%s)", what, m, n, info, hyt_last_error());
    /* the padding rows between m and lda are not touched */
    int pad_ok = 1;
    for (int c = 0; c < n; c++)
        for (int r = m; r < lda; r++)
            pad_ok &= A[r + (int64_t)c * lda] == A0[r + (int64_t)c * lda];
    CHECK(pad_ok, "%s: rows beyond m changed", what);
    for (int k = 0; k < mn; k++)
        CHECK(ipiv[k] >= k + 1 && ipiv[k] <= m, "%s: ipiv[%d] = %d out of range", what, k,
              ipiv[k]);
    if (full_check) {
        double e = lu_backward_error(m, n, A0, lda, A, lda, ipiv);
        CHECK(e < LU_THRESH, "%s: %d x %d: ||PA-LU||/(||A|| n eps) = %g", what, m, n, e);
    }
    if (m == n && n > 0) {
        int nrhs = 1 + (int)(seed % 5), ldb = n + 1;
        double *B0 = malloc((size_t)ldb * nrhs * sizeof *B0), *X = malloc((size_t)ldb * nrhs * sizeof *X);
        fill_random(B0, ldb, nrhs, ldb, seed + 7);
        for (int t = 0; t < 2; t++) {
            char trans = t ? 'T' : 'N';
            memcpy(X, B0, (size_t)ldb * nrhs * sizeof *X);
            int rc = hyt_dgetrs(ctx, trans, n, nrhs, A, lda, ipiv, X, ldb);
            CHECK(rc == 0, "%s: dgetrs %c: %d", what, trans, rc);
            double e = solve_backward_error(trans, n, nrhs, A0, lda, X, ldb, B0, ldb);
            CHECK(e < LU_THRESH, "%s: n %d trans %c: ||b-Ax||/(||A|| ||x|| n eps) = %g", what,
                  n, trans, e);
        }
        free(B0);
        free(X);
    }
    free(A0);
    free(A);
    free(ipiv);
}

/* The tile API on a CCRB matrix: convert, factor, solve, convert back. */
static void check_tile(hyt_context_t *ctx, int n, int nb, int nrhs, unsigned long long seed)
{
    hyt_desc_t A, B;
    REQUIRE(!hyt_desc_create(ctx, n, n, nb, &A), "desc");
    REQUIRE(!hyt_desc_create(ctx, n, nrhs, nb, &B), "desc");
    double *A0 = malloc((size_t)n * n * sizeof *A0), *F = malloc((size_t)n * n * sizeof *F);
    double *B0 = malloc((size_t)n * nrhs * sizeof *B0), *X = malloc((size_t)n * nrhs * sizeof *X);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    fill_random(A0, n, n, n, seed);
    fill_random(B0, n, nrhs, n, seed + 1);
    CHECK(!hyt_lapack_to_tile(ctx, A0, n, &A), "to tile");
    CHECK(!hyt_lapack_to_tile(ctx, B0, n, &B), "to tile");
    /* factor and solve in one sequence (asynchronous API) */
    hyt_sequence_t *seq;
    hyt_sequence_create(ctx, &seq);
    int info = -99;
    CHECK(!hyt_dgetrf_tile_async(seq, &A, ipiv, &info), "async getrf");
    CHECK(!hyt_dgetrs_tile_async(seq, 'N', &A, ipiv, &B), "async getrs");
    CHECK(hyt_sequence_wait(seq) == 0, "sequence");
    hyt_sequence_destroy(seq);
    CHECK(info == 0, "tile info %d", info);
    CHECK(!hyt_tile_to_lapack(ctx, &A, F, n), "to lapack");
    CHECK(!hyt_tile_to_lapack(ctx, &B, X, n), "to lapack");
    double e = lu_backward_error(n, n, A0, n, F, n, ipiv);
    CHECK(e < LU_THRESH, "tile n %d nb %d: factor error %g", n, nb, e);
    e = solve_backward_error('N', n, nrhs, A0, n, X, n, B0, n);
    CHECK(e < LU_THRESH, "tile n %d nb %d: solve error %g", n, nb, e);
    /* hyt_dgesv_tile on a fresh copy */
    hyt_lapack_to_tile(ctx, A0, n, &A);
    hyt_lapack_to_tile(ctx, B0, n, &B);
    CHECK(hyt_dgesv_tile(ctx, &A, ipiv, &B) == 0, "dgesv_tile");
    hyt_tile_to_lapack(ctx, &B, X, n);
    e = solve_backward_error('N', n, nrhs, A0, n, X, n, B0, n);
    CHECK(e < LU_THRESH, "dgesv_tile n %d: solve error %g", n, e);
    hyt_desc_destroy(&A);
    hyt_desc_destroy(&B);
    free(A0);
    free(F);
    free(B0);
    free(X);
    free(ipiv);
}

/* Zero columns make U(j,j) exactly zero: INFO is the first one; the factorization completes. */
static void check_singular(hyt_context_t *ctx, int n, const int *zero_cols, int nz)
{
    double *A0 = malloc((size_t)n * n * sizeof *A0), *A = malloc((size_t)n * n * sizeof *A);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    fill_random(A0, n, n, n, (unsigned long long)n * 31 + (unsigned long long)nz);
    int first = n;
    for (int z = 0; z < nz; z++) {
        memset(A0 + (int64_t)zero_cols[z] * n, 0, (size_t)n * sizeof *A0);
        if (zero_cols[z] < first)
            first = zero_cols[z];
    }
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    int info = hyt_dgetrf(ctx, n, n, A, n, ipiv);
    CHECK(info == first + 1, "singular n %d: info %d, expected %d", n, info, first + 1);
    double e = lu_backward_error(n, n, A0, n, A, n, ipiv);
    CHECK(e < LU_THRESH, "singular n %d: factorization not completed (error %g)", n, e);
    /* dgesv does not solve a singular system and says why */
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    double b[4] = {1, 2, 3, 4}, b0[4];
    memcpy(b0, b, sizeof b);
    int nb = n < 4 ? n : 4;
    (void)nb;
    double *B = calloc((size_t)n, sizeof *B);
    B[0] = 1;
    info = hyt_dgesv(ctx, n, 1, A, n, ipiv, B, n);
    CHECK(info == first + 1, "dgesv singular: info %d", info);
    CHECK(B[0] == 1, "dgesv touched B of a singular system");
    free(B);
    free(A0);
    free(A);
    free(ipiv);
}

/* NaN and Inf input: no crash, pivots in range, NaN in the factors. */
static void check_nan(hyt_context_t *ctx, int n)
{
    double *A = malloc((size_t)n * n * sizeof *A);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    for (int variant = 0; variant < 4; variant++) {
        fill_random(A, n, n, n, 99 + (unsigned long long)variant);
        if (variant == 0)
            A[0] = NAN; /* the very first pivot candidate */
        else if (variant == 1)
            A[n / 2 + (int64_t)(n / 3) * n] = NAN;
        else if (variant == 2)
            A[n - 1 + (int64_t)(n - 1) * n] = INFINITY;
        else
            for (int64_t i = 0; i < (int64_t)n * n; i++)
                A[i] = NAN;
        int info = hyt_dgetrf(ctx, n, n, A, n, ipiv);
        CHECK(info >= 0 && info <= n, "NaN variant %d: info %d", variant, info);
        for (int k = 0; k < n; k++)
            CHECK(ipiv[k] >= k + 1 && ipiv[k] <= n, "NaN variant %d: ipiv[%d] = %d", variant, k,
                  ipiv[k]);
        int has_nan = 0;
        for (int64_t i = 0; i < (int64_t)n * n; i++)
            has_nan |= isnan(A[i]);
        CHECK(has_nan || variant == 2, "NaN variant %d: NaN vanished", variant);
    }
    free(A);
    free(ipiv);
}

/* LAPACK's pivot rule: the first index of the largest |a|, also when the ties sit in tiles of
 * different threads (row 200 on rank 0, row 40 on rank 2 with nb 16 and 3 panel threads). */
static void check_ties(hyt_context_t *ctx)
{
    int n = 300;
    double *A = malloc((size_t)n * n * sizeof *A);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    set_lu(ctx, 16, 1, 3);
    fill_random(A, n, n, n, 5);
    for (int r = 0; r < n; r++)
        A[r] *= 0.5;
    A[40] = -10;
    A[200] = 10;
    CHECK(hyt_dgetrf(ctx, n, n, A, n, ipiv) == 0, "ties: info");
    CHECK(ipiv[0] == 41, "ties across threads: pivot row %d, LAPACK picks 41", ipiv[0]);
    /* a column of equal magnitudes: the diagonal row itself */
    fill_random(A, n, n, n, 6);
    for (int r = 0; r < n; r++)
        A[r] = r % 2 ? -2.0 : 2.0;
    CHECK(hyt_dgetrf(ctx, n, n, A, n, ipiv) == 0, "ties: info");
    CHECK(ipiv[0] == 1, "equal magnitudes: pivot row %d, LAPACK picks 1", ipiv[0]);
    free(A);
    free(ipiv);
}

/* Every bad argument: -position returned and nothing written. */
static void check_bad_args(hyt_context_t *ctx)
{
    double a[16], b[4], a0[16], b0[4];
    int ipiv[4] = {7, 7, 7, 7};
    for (int i = 0; i < 16; i++)
        a[i] = a0[i] = i + 1;
    for (int i = 0; i < 4; i++)
        b[i] = b0[i] = i;
    CHECK(hyt_dgetrf(ctx, -1, 4, a, 4, ipiv) == -1, "getrf m");
    CHECK(hyt_dgetrf(ctx, 4, -1, a, 4, ipiv) == -2, "getrf n");
    CHECK(hyt_dgetrf(ctx, 4, 4, NULL, 4, ipiv) == -3, "getrf a");
    CHECK(hyt_dgetrf(ctx, 4, 4, a, 3, ipiv) == -4, "getrf lda");
    CHECK(hyt_dgetrf(ctx, 4, 4, a, 4, NULL) == -5, "getrf ipiv");
    CHECK(hyt_dgetrf(ctx, 0, 0, a, 1, ipiv) == 0, "getrf empty");
    CHECK(hyt_dgetrs(ctx, 'X', 4, 1, a, 4, ipiv, b, 4) == -1, "getrs trans");
    CHECK(hyt_dgetrs(ctx, 'N', -1, 1, a, 4, ipiv, b, 4) == -2, "getrs n");
    CHECK(hyt_dgetrs(ctx, 'N', 4, -1, a, 4, ipiv, b, 4) == -3, "getrs nrhs");
    CHECK(hyt_dgetrs(ctx, 'N', 4, 1, NULL, 4, ipiv, b, 4) == -4, "getrs a");
    CHECK(hyt_dgetrs(ctx, 'N', 4, 1, a, 3, ipiv, b, 4) == -5, "getrs lda");
    CHECK(hyt_dgetrs(ctx, 'N', 4, 1, a, 4, NULL, b, 4) == -6, "getrs ipiv");
    CHECK(hyt_dgetrs(ctx, 'N', 4, 1, a, 4, ipiv, NULL, 4) == -7, "getrs b");
    CHECK(hyt_dgetrs(ctx, 'N', 4, 1, a, 4, ipiv, b, 3) == -8, "getrs ldb");
    CHECK(hyt_dgesv(ctx, -1, 1, a, 4, ipiv, b, 4) == -1, "gesv n");
    CHECK(hyt_dgesv(ctx, 4, -1, a, 4, ipiv, b, 4) == -2, "gesv nrhs");
    CHECK(hyt_dgesv(ctx, 4, 1, NULL, 4, ipiv, b, 4) == -3, "gesv a");
    CHECK(hyt_dgesv(ctx, 4, 1, a, 3, ipiv, b, 4) == -4, "gesv lda");
    CHECK(hyt_dgesv(ctx, 4, 1, a, 4, NULL, b, 4) == -5, "gesv ipiv");
    CHECK(hyt_dgesv(ctx, 4, 1, a, 4, ipiv, NULL, 4) == -6, "gesv b");
    CHECK(hyt_dgesv(ctx, 4, 1, a, 4, ipiv, b, 3) == -7, "gesv ldb");
    CHECK(!memcmp(a, a0, sizeof a) && !memcmp(b, b0, sizeof b), "bad arguments wrote data");
    for (int i = 0; i < 4; i++)
        CHECK(ipiv[i] == 7, "bad arguments wrote ipiv");
    CHECK(hyt_dgetrf(NULL, 4, 4, a, 4, ipiv) == HYT_ERR_INVALID, "NULL context");
}

/* lu.nb auto on CPUs only (drivers/lu/lu_params.c): the rule for few workers, and the smaller
 * tiles of 8 workers or more below N = 6144. */
static void check_auto_nb(void)
{
    static const int cases[][3] = {{2, 1024, 128},  {2, 4096, 192}, {2, 16384, 384},
                                   {8, 1024, 64},   {8, 2048, 96},  {8, 4096, 96},
                                   {8, 6144, 192},  {8, 16384, 384}};
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        hyt_context_t *ctx = test_context(cases[i][0], "none", "lu.nb", "auto", (char *)NULL);
        hyt_lu_params_t p;
        CHECK(!hyt_lu_params(ctx, cases[i][1], cases[i][1], &p) && p.nb == cases[i][2],
              "%d workers, N %d: auto nb %d, expected %d", cases[i][0], cases[i][1], p.nb,
              cases[i][2]);
        hyt_context_destroy(ctx);
    }
}

/* lu.nb auto with GPU panels (lu.panel = gpu on host devices): 256, 512, and 1024 from N =
 * 32768 and 16384 per device. */
static void check_auto_nb_gpu(void)
{
    static const int cases[][3] = {{1, 4096, 256},   {1, 16384, 512},  {1, 32768, 1024},
                                   {2, 16384, 512},  {2, 32768, 1024}, {4, 32768, 512},
                                   {4, 65536, 1024}, {3, 49151, 512},  {3, 49152, 1024}};
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        char devs[16];
        snprintf(devs, sizeof devs, "host:%d", cases[i][0]);
        hyt_context_t *ctx = test_context(2, devs, "lu.nb", "auto", "lu.panel", "gpu",
                                          (char *)NULL);
        hyt_lu_params_t p;
        CHECK(!hyt_lu_params(ctx, cases[i][1], cases[i][1], &p) && p.nb == cases[i][2],
              "GPU panels on %d devices, N %d: auto nb %d, expected %d", cases[i][0],
              cases[i][1], p.nb, cases[i][2]);
        hyt_context_destroy(ctx);
    }
}

int main(int argc, char **argv)
{
    /* "quick": the default, named */
    const int args = test_args(argc, argv, (const char *const[]){"large", "quick", NULL});
    if (args == 3)
        fprintf(stderr, "usage: %s [quick|large]\n", argv[0]);
    if (args < 0 || args == 3)
        return 2;
    const int large = args & 1;
    int small = test_scale() > 1;
    hyt_context_t *ctx1 = test_context(1, "none", (char *)NULL);
    hyt_context_t *ctx3 = test_context(3, "none", (char *)NULL);
    hyt_context_t *ctx5 = test_context(5, "none", (char *)NULL);

    check_bad_args(ctx3);
    check_ties(ctx3);
    check_auto_nb();
    check_auto_nb_gpu();

    /* shapes, including empty, tiny, m != n, not multiples of nb */
    static const int shapes[][2] = {{0, 0}, {0, 5}, {5, 0}, {1, 1}, {1, 7}, {7, 1}, {2, 2},
                                    {3, 3}, {17, 17}, {64, 64}, {100, 100}, {129, 257},
                                    {257, 129}, {300, 300}, {333, 777}, {777, 333}, {500, 500},
                                    {1000, 1000}};
    static const int nbs[] = {2, 3, 7, 16, 32, 50, 64, 100, 128, 192, 256, 512};
    int ns = (int)(sizeof shapes / sizeof shapes[0]), nnb = (int)(sizeof nbs / sizeof nbs[0]);
    int count = 0;
    for (int s = 0; s < ns; s++) {
        int m = shapes[s][0], n = shapes[s][1];
        if (small && (m > 500 || n > 500))
            continue;
        for (int v = 0; v < 3; v++) {
            int nb = nbs[(s * 3 + v) % nnb];
            if ((long)m * n / ((long)nb * nb) > 20000)
                nb = 64; /* keep the task count sane for tiny tiles */
            hyt_context_t *ctx = v == 0 ? ctx1 : v == 1 ? ctx3 : ctx5;
            int workers = v == 0 ? 1 : v == 1 ? 3 : 5;
            int la = (s + v) % 5, pc = 1 + (s + 2 * v) % workers;
            set_lu(ctx, nb, la, pc);
            char what[96];
            snprintf(what, sizeof what, "nb %d lookahead %d workers %d panel_cores %d", nb, la,
                     workers, pc);
            check_lapack(ctx, m, n, (unsigned long long)(s * 10 + v), what, 1);
            count++;
        }
    }
    /* nb = 1 and other extremes on small matrices */
    for (int nb = 1; nb <= 4; nb++) {
        set_lu(ctx3, nb, nb % 3, 1 + nb % 3);
        check_lapack(ctx3, 37, 41, 100 + (unsigned long long)nb, "tiny tiles", 1);
        check_lapack(ctx3, 41, 37, 200 + (unsigned long long)nb, "tiny tiles", 1);
        count += 2;
    }
    /* every lookahead and panel_cores on one size */
    for (int la = 0; la <= 4; la++)
        for (int pc = 1; pc <= 5; pc++) {
            set_lu(ctx5, 48, la, pc);
            char what[64];
            snprintf(what, sizeof what, "lookahead %d panel_cores %d", la, pc);
            check_lapack(ctx5, 401, 401, 300 + (unsigned long long)(la * 5 + pc), what, 1);
            count++;
        }
    /* tall panels: the updates of wide recursion nodes go in chunks of 512 rows or more that
     * a thread done with its own takes from the others' rows (also from their private copies
     * in the tile layout) */
    set_lu(ctx3, 128, 1, 3);
    check_lapack(ctx3, 6000, 128, 77, "tall panel, 3 threads", 1);
    count++;
    if (!small) {
        check_tile(ctx3, 2400, 128, 2, 78);
        count++;
    }
    /* several thousand: checked by the solve residual (O(n^2)) */
    if (!small) {
        set_lu(ctx3, 192, 1, 2);
        check_lapack(ctx3, 3000, 3000, 4242, "n 3000", 0);
        count++;
    }
    if (large) {
        set_lu(ctx5, 256, 2, 3);
        check_lapack(ctx5, 6000, 6000, 6000, "n 6000", 0);
        check_lapack(ctx5, 2500, 2500, 2500, "n 2500", 1);
        count += 2;
    }

    /* the tile API (CCRB), synchronous and asynchronous */
    set_lu(ctx3, 64, 2, 2);
    check_tile(ctx3, 1, 64, 1, 1);
    check_tile(ctx3, 200, 64, 3, 2);
    check_tile(ctx3, 250, 96, 70, 3);
    check_tile(ctx5, 513, 128, 5, 4);

    /* singular: zero columns at the start, in the middle, at the end */
    set_lu(ctx3, 32, 1, 2);
    int z1[] = {0}, z2[] = {50}, z3[] = {99}, z4[] = {70, 20, 90};
    check_singular(ctx3, 100, z1, 1);
    check_singular(ctx3, 100, z2, 1);
    check_singular(ctx3, 100, z3, 1);
    check_singular(ctx3, 100, z4, 3);
    set_lu(ctx1, 7, 0, 1);
    check_singular(ctx1, 23, z1, 1);

    check_nan(ctx3, 64);
    set_lu(ctx5, 16, 3, 4);
    check_nan(ctx5, 100);

    hyt_context_destroy(ctx1);
    hyt_context_destroy(ctx3);
    hyt_context_destroy(ctx5);
    printf("%d factorizations checked by backward error\n", count);
    return test_result("test_lu");
}
