/*
 * The Cholesky of a device matrix (hyt_dpotrf_dmat, include/hyt_dmat.h: every step on the
 * devices, drivers/chol/pdpotrf_hybrid.c in its GPU-panel mode), checked by backward error
 * ||A - L L^T|| / (||A|| n eps) < LU_THRESH: sizes not multiples of nb, n < nb, n = 0 and 1,
 * a tile wider than the fused potf2 (pieces), 1 to 3 devices, lookahead 0..2; the strictly
 * upper triangle set to other values (only the lower one is read; it comes back untouched);
 * matrices that are not positive definite (INFO exactly the first failing minor: at the start,
 * inside a tile, at a tile boundary, in a second potf2 piece, in the middle, at the end; the
 * tile columns left of the failing one, all their rows, checked by backward error); NaN (no
 * hang); bad arguments (-i and the called function in the message); the asynchronous call with
 * two matrices in one sequence, after the LU's solve and late tasks writing the same matrix and
 * before a solve reading it; injected faults (an error or a correct result).  The solve with
 * the factor (hyt_dpotrs_dmat, hyt_dposv_dmat, hyt_dpotrs_dmat_async after the factorization
 * in one sequence): ||B - A X|| / (||A|| ||X|| n eps) per column for one right-hand side and
 * for several tile columns of them spread over the devices; B untouched when INFO > 0.  The
 * panels' solve as a GEMM with the inverse of the diagonal tile (chol.inv_rows 1: every panel;
 * 4 nb: the first ones), faults injected there too.  The panels of several steps an update
 * (chol.group 2..4), and their slots falling back to one step a slot under gpu.memory_limit.
 * Host
 * devices (quick suite; HYT_CHAOS applies) or CUDA GPUs (argument "cuda": the gpu suite, exit
 * 77 without one).
 *
 * Usage: test_chol_dmat [cuda]
 */
#include "hytile.h"
#include "hyt_test.h"
#include "hyt_dev_test.h"
#include "chol_check.h"
#include "hyt_hybrid.h" /* the device matrix's column tokens, for a test task */

#include <math.h>
#include <time.h>
#include <unistd.h>

static void set_lookahead(hyt_context_t *ctx, int la)
{
    char b[16];
    if (la < 0)
        snprintf(b, sizeof b, "auto");
    else
        snprintf(b, sizeof b, "%d", la);
    REQUIRE(!hyt_context_set(ctx, "chol.lookahead", b), "%s", hyt_last_error());
}

/* A0 (n x n, ld lda): chol_matrix in the lower triangle, other numbers strictly above (only
 * the lower triangle may be read). */
static void make_matrix(double *A0, int n, int lda, int fail, unsigned long long seed)
{
    chol_matrix(A0, n, lda, fail, seed);
    for (int c = 1; c < n; c++)
        for (int r = 0; r < c; r++)
            A0[r + (int64_t)c * lda] = 1e3 + r - 2.0 * c; /* not symmetric, not small */
}

/* A0 factored on ctx through a device matrix (nb, lookahead la): F gets hyt_dmat_get's result.
 * Returns INFO or the error. */
static int factor_dmat(hyt_context_t *ctx, int n, int nb, int la, const double *A0, double *F,
                       int lda)
{
    hyt_dmat_t *dA;
    set_lookahead(ctx, la);
    REQUIRE(!hyt_dmat_create(ctx, n, n, nb, &dA), "%s", hyt_last_error());
    REQUIRE(!hyt_dmat_set(dA, A0, lda), "%s", hyt_last_error());
    int info = hyt_dpotrf_dmat(ctx, dA);
    REQUIRE(!hyt_dmat_get(dA, F, lda), "%s", hyt_last_error());
    hyt_dmat_destroy(dA);
    set_lookahead(ctx, -1);
    return info;
}

/* The first nc columns of a factor F (n x n, its lower triangle) against the lower triangle of
 * A0: max over c < nc of sum_{r >= c} |A0(r,c) - (L L^T)(r,c)|, L = F's lower triangle, over
 * ||A||_1 n eps (A the symmetric matrix of A0's lower triangle).  The panel L(:, 0:nc) alone
 * determines those entries: the backward error of the factorization's first nc steps. */
static double panel_error(int n, int nc, const double *A0, int lda, const double *F)
{
    if (n == 0 || nc == 0)
        return 0;
    double *P = calloc((size_t)n * nc, sizeof *P), *G = malloc((size_t)n * nc * sizeof *G);
    REQUIRE(P && G, "out of memory");
    for (int c = 0; c < nc; c++)
        for (int r = c; r < n; r++)
            P[r + (int64_t)c * n] = F[r + (int64_t)c * lda];
    /* G = P P(0:nc, :)^T */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, nc, nc, 1.0, P, n, P, n, 0.0, G, n);
    double rnorm = 0, anorm = 0;
    for (int c = 0; c < nc; c++) {
        double s = 0;
        for (int r = c; r < n; r++)
            s += fabs(A0[r + (int64_t)c * lda] - G[r + (int64_t)c * n]);
        rnorm = isnan(s) || s > rnorm ? s : rnorm;
    }
    for (int c = 0; c < n; c++) {
        double s = 0;
        for (int r = 0; r < n; r++)
            s += fabs(r >= c ? A0[r + (int64_t)c * lda] : A0[c + (int64_t)r * lda]);
        anorm = s > anorm ? s : anorm;
    }
    free(P);
    free(G);
    return anorm > 0 ? rnorm / (anorm * n * DBL_EPSILON) : rnorm == 0 ? 0 : 1 / DBL_EPSILON;
}

/* One factorization: INFO exactly `fail`; the strictly upper triangle as set, the padding rows
 * not written; SPD: the backward error; else that of the tile columns left of the failing
 * one (all their rows: the steps before the failure are exact). */
static void check(hyt_context_t *ctx, int n, int nb, int la, int fail, const char *what)
{
    const int lda = n + 2;
    const size_t sz = ((size_t)lda * n + 1) * sizeof(double);
    double *A0 = xmalloc(sz), *F = xmalloc(sz);
    const unsigned long long seed = (unsigned long long)(n * 7 + nb + fail);
    make_matrix(A0, n, lda, fail, seed);
    for (size_t i = 0; i < sz / sizeof(double); i++)
        F[i] = -7.0; /* the padding rows: hyt_dmat_get must not write them */
    int info = factor_dmat(ctx, n, nb, la, A0, F, lda);
    CHECK(info == fail, "%s: n %d nb %d la %d: info %d, expected %d (%s)", what, n, nb, la, info,
          fail, hyt_last_error());
    int upper_ok = 1, pad_ok = 1;
    for (int c = 0; c < n; c++) {
        for (int r = 0; r < c; r++)
            upper_ok &= F[r + (int64_t)c * lda] == A0[r + (int64_t)c * lda];
        for (int r = n; r < lda; r++)
            pad_ok &= F[r + (int64_t)c * lda] == -7.0;
    }
    CHECK(upper_ok && pad_ok, "%s: n %d nb %d la %d: strictly upper triangle %s, padding %s",
          what, n, nb, la, upper_ok ? "kept" : "CHANGED", pad_ok ? "kept" : "WRITTEN");
    if (!fail) {
        double *S = xmalloc(sz); /* A0 symmetric */
        chol_matrix(S, n, lda, 0, seed);
        double e = chol_backward_error('L', n, S, lda, F, lda);
        CHECK(e < LU_THRESH, "%s: n %d nb %d la %d: ||A-LL^T||/(||A|| n eps) = %g", what, n, nb,
              la, e);
        free(S);
    } else {
        const int nc = (fail - 1) / nb * nb;
        double e = panel_error(n, nc, A0, lda, F);
        CHECK(e < LU_THRESH, "%s: n %d nb %d la %d fail %d: the %d columns left of the failing "
              "tile: backward error %g", what, n, nb, la, fail, nc, e);
    }
    free(A0);
    free(F);
}

/* gpu.memory_limit and groups (host devices, where the cap counts every device allocation):
 * slots of four steps that do not fit beside the matrix fall back to one step a slot (a
 * correct factorization, not an error); when not even those fit, an error before anything
 * runs.  n = 7 nb + 13 on one device: the matrix ~8 tile columns of c bytes and the panels'
 * solve ~1 (its workspace: n nb doubles), four steps a slot with the lookahead raised to 4
 * want 3 slots of 4 c, one step a slot 6 of c. */
static void check_group_memory(void)
{
    const int nb = 16, n = 7 * nb + 13;
    const long c = 8L * nb * nb * 8;
    for (int fits = 1; fits >= 0; fits--) {
        char cap[32];
        snprintf(cap, sizeof cap, "%ld", c * (fits ? 18 : 10));
        hyt_context_t *ctx = test_context(2, "host:1", "gpu.memory_limit", cap, "chol.group",
                                          "4", (char *)NULL);
        if (fits) {
            check(ctx, n, nb, 1, 0, "four steps a slot over gpu.memory_limit");
        } else {
            const int lda = n;
            double *A0 = xmalloc((size_t)lda * n * sizeof(double));
            double *F = xmalloc((size_t)lda * n * sizeof(double));
            make_matrix(A0, n, lda, 0, 5);
            int info = factor_dmat(ctx, n, nb, 1, A0, F, lda);
            CHECK(info == HYT_ERR_DEVICE_MEMORY && !memcmp(A0, F, (size_t)lda * n * 8),
                  "no room for one step a slot: %d (%s), the matrix %s", info, hyt_last_error(),
                  memcmp(A0, F, (size_t)lda * n * 8) ? "CHANGED" : "kept");
            free(A0);
            free(F);
        }
        hyt_context_destroy(ctx);
    }
}

/* The solves: hyt_dposv_dmat and hyt_dpotrs_dmat after hyt_dpotrf_dmat (nrhs right-hand
 * sides), then the factorization and the solve in one sequence; a failing matrix leaves B as
 * it was.  Checked by the solve's backward error against the symmetric matrix. */
static void check_solve(hyt_context_t *ctx, int n, int nb, int nrhs, int la, const char *what)
{
    const int lda = n + 3, ldb = n + 1;
    double *A0 = xmalloc(((size_t)lda * n + 1) * sizeof(double));
    double *S = xmalloc(((size_t)lda * n + 1) * sizeof(double));
    double *B0 = xmalloc(((size_t)ldb * nrhs + 1) * sizeof(double));
    double *X = xmalloc(((size_t)ldb * nrhs + 1) * sizeof(double));
    const unsigned long long seed = (unsigned long long)(n * 3 + nrhs);
    make_matrix(A0, n, lda, 0, seed);
    chol_matrix(S, n, lda, 0, seed); /* A0's lower triangle, symmetric */
    fill_random(B0, n, nrhs, ldb, seed + 5);
    set_lookahead(ctx, la);
    for (int variant = 0; variant < 3; variant++) {
        hyt_dmat_t *dA, *dB;
        REQUIRE(!hyt_dmat_create(ctx, n, n, nb, &dA) && !hyt_dmat_create(ctx, n, nrhs, nb, &dB),
                "%s", hyt_last_error());
        REQUIRE(!hyt_dmat_set(dA, A0, lda) && !hyt_dmat_set(dB, B0, ldb), "%s",
                hyt_last_error());
        int rc, info = -99;
        if (variant == 0) {
            rc = info = hyt_dposv_dmat(ctx, dA, dB);
        } else if (variant == 1) {
            rc = info = hyt_dpotrf_dmat(ctx, dA);
            if (!rc)
                rc = hyt_dpotrs_dmat(ctx, dA, dB);
        } else {
            hyt_sequence_t *seq;
            REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());
            rc = hyt_dpotrf_dmat_async(seq, dA, &info);
            if (!rc)
                rc = hyt_dpotrs_dmat_async(seq, dA, dB);
            rc = hyt_sequence_finish(seq, rc);
        }
        CHECK(rc == 0 && info == 0, "%s: solve %d, n %d nb %d nrhs %d la %d: rc %d info %d (%s)",
              what, variant, n, nb, nrhs, la, rc, info, hyt_last_error());
        REQUIRE(!hyt_dmat_get(dB, X, ldb), "%s", hyt_last_error());
        double e = solve_backward_error('N', n, nrhs, S, lda, X, ldb, B0, ldb);
        CHECK(e < LU_THRESH, "%s: solve %d, n %d nb %d nrhs %d la %d: ||B-AX||/(||A|| ||X|| n "
              "eps) = %g", what, variant, n, nb, nrhs, la, e);
        hyt_dmat_destroy(dA);
        hyt_dmat_destroy(dB);
    }
    /* not positive definite: INFO, and B not written */
    const int fail = n / 2 + 1;
    make_matrix(A0, n, lda, fail, seed);
    hyt_dmat_t *dA, *dB;
    REQUIRE(!hyt_dmat_create(ctx, n, n, nb, &dA) && !hyt_dmat_create(ctx, n, nrhs, nb, &dB),
            "%s", hyt_last_error());
    REQUIRE(!hyt_dmat_set(dA, A0, lda) && !hyt_dmat_set(dB, B0, ldb), "%s", hyt_last_error());
    int info = hyt_dposv_dmat(ctx, dA, dB);
    REQUIRE(!hyt_dmat_get(dB, X, ldb), "%s", hyt_last_error());
    int same = 1;
    for (int c = 0; c < nrhs; c++)
        for (int r = 0; r < n; r++)
            same &= X[r + (int64_t)c * ldb] == B0[r + (int64_t)c * ldb];
    CHECK(info == fail && same, "%s: dposv of a matrix failing at %d: info %d, B %s", what, fail,
          info, same ? "untouched" : "WRITTEN");
    hyt_dmat_destroy(dA);
    hyt_dmat_destroy(dB);
    set_lookahead(ctx, -1);
    free(A0);
    free(S);
    free(B0);
    free(X);
}

/* NaN input: returns (no hang), INFO in range, INFO > 0 or NaN in the factor. */
static void check_nan(hyt_context_t *ctx, int n, int nb, int la)
{
    double *A = xmalloc((size_t)n * n * sizeof *A), *F = xmalloc((size_t)n * n * sizeof *F);
    for (int variant = 0; variant < 3; variant++) {
        make_matrix(A, n, n, 0, 55 + (unsigned long long)variant);
        if (variant == 0)
            A[0] = NAN;
        else if (variant == 1)
            A[(n - 2) + (int64_t)(n / 3) * n] = NAN; /* lower triangle, a later tile column */
        else
            for (int64_t i = 0; i < (int64_t)n * n; i++)
                A[i] = NAN;
        int info = factor_dmat(ctx, n, nb, la, A, F, n);
        CHECK(info >= 0, "NaN variant %d: error %d (%s)", variant, info, hyt_last_error());
        chol_check_nan_result('L', n, F, info, variant);
    }
    free(A);
    free(F);
}

/* Bad arguments: -i (nothing run) and the called function named in the message. */
static void check_args(hyt_context_t *ctx, const char *devs)
{
    hyt_context_t *other = test_context(1, devs, (char *)NULL);
    hyt_dmat_t *dA, *dR, *dO;
    REQUIRE(!hyt_dmat_create(ctx, 20, 20, 8, &dA) && !hyt_dmat_create(ctx, 20, 12, 8, &dR) &&
            !hyt_dmat_create(other, 20, 20, 8, &dO), "%s", hyt_last_error());
    hyt_sequence_t *seq;
    int info = 0;
    EXPECT_ARG(hyt_dpotrf_dmat(NULL, dA), HYT_ERR_INVALID, "hyt_dpotrf_dmat: NULL context");
    EXPECT_ARG(hyt_dpotrf_dmat(ctx, NULL), -1, "hyt_dpotrf_dmat: argument 1 (dA)");
    EXPECT_ARG(hyt_dpotrf_dmat(ctx, dR), -1, "must be square");
    EXPECT_ARG(hyt_dpotrf_dmat(ctx, dO), -1, "another context");
    EXPECT_ARG(hyt_dpotrf_dmat_async(NULL, dA, &info), HYT_ERR_INVALID, "NULL sequence");
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());
    EXPECT_ARG(hyt_dpotrf_dmat_async(seq, NULL, &info), -1,
               "hyt_dpotrf_dmat_async: argument 1 (dA)");
    EXPECT_ARG(hyt_dpotrf_dmat_async(seq, dR, &info), -1, "square");
    EXPECT_ARG(hyt_dpotrf_dmat_async(seq, dA, NULL), -2,
               "hyt_dpotrf_dmat_async: argument 2 (info)");
    EXPECT_ARG(hyt_dpotrs_dmat_async(seq, NULL, dR), -1,
               "hyt_dpotrs_dmat_async: argument 1 (dA)");
    EXPECT_ARG(hyt_dpotrs_dmat_async(seq, dA, NULL), -2,
               "hyt_dpotrs_dmat_async: argument 2 (dB)");
    EXPECT_ARG(hyt_dpotrs_dmat_async(NULL, dA, dR), HYT_ERR_INVALID, "NULL sequence");
    CHECK(!hyt_sequence_finish(seq, 0), "an empty sequence: %s", hyt_last_error());
    /* the solves: dB's rows and tile size must be A's */
    hyt_dmat_t *dB, *dW, *dBo, *dM;
    REQUIRE(!hyt_dmat_create(ctx, 20, 3, 8, &dB) && !hyt_dmat_create(ctx, 20, 3, 4, &dW) &&
            !hyt_dmat_create(other, 20, 3, 8, &dBo) && !hyt_dmat_create(ctx, 19, 3, 8, &dM),
            "%s", hyt_last_error());
    EXPECT_ARG(hyt_dpotrs_dmat(NULL, dA, dB), HYT_ERR_INVALID, "hyt_dpotrs_dmat: NULL context");
    EXPECT_ARG(hyt_dpotrs_dmat(ctx, dR, dB), -1, "hyt_dpotrs_dmat: argument 1 (dA)");
    EXPECT_ARG(hyt_dpotrs_dmat(ctx, dA, NULL), -2, "hyt_dpotrs_dmat: argument 2 (dB)");
    EXPECT_ARG(hyt_dpotrs_dmat(ctx, dA, dW), -2, "tile size 4");
    EXPECT_ARG(hyt_dpotrs_dmat(ctx, dA, dBo), -2, "another context");
    EXPECT_ARG(hyt_dposv_dmat(ctx, dA, dM), -2, "has 19 rows");
    EXPECT_ARG(hyt_dposv_dmat(ctx, dO, dB), -1, "hyt_dposv_dmat: argument 1 (dA)");
    hyt_dmat_destroy(dB);
    hyt_dmat_destroy(dW);
    hyt_dmat_destroy(dBo);
    hyt_dmat_destroy(dM);
    hyt_dmat_destroy(dA);
    hyt_dmat_destroy(dR);
    hyt_dmat_destroy(dO);
    hyt_context_destroy(other);
}

/* Two matrices (one SPD, one failing in its middle) factored in one sequence. */
static void check_async(hyt_context_t *ctx)
{
    const int n1 = 77, nb1 = 16, n2 = 50, nb2 = 12, fail2 = 29;
    double *A1 = xmalloc((size_t)n1 * n1 * sizeof(double));
    double *F1 = xmalloc((size_t)n1 * n1 * sizeof(double));
    double *A2 = xmalloc((size_t)n2 * n2 * sizeof(double));
    double *F2 = xmalloc((size_t)n2 * n2 * sizeof(double));
    make_matrix(A1, n1, n1, 0, 11);
    make_matrix(A2, n2, n2, fail2, 12);
    hyt_dmat_t *d1, *d2;
    REQUIRE(!hyt_dmat_create(ctx, n1, n1, nb1, &d1) && !hyt_dmat_create(ctx, n2, n2, nb2, &d2),
            "%s", hyt_last_error());
    REQUIRE(!hyt_dmat_set(d1, A1, n1) && !hyt_dmat_set(d2, A2, n2), "%s", hyt_last_error());
    hyt_sequence_t *seq;
    int info1 = -99, info2 = -99;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());
    int rc = hyt_dpotrf_dmat_async(seq, d1, &info1);
    if (!rc)
        rc = hyt_dpotrf_dmat_async(seq, d2, &info2);
    rc = hyt_sequence_finish(seq, rc);
    CHECK(rc == 0 && info1 == 0 && info2 == fail2, "async: rc %d, info %d and %d (expected 0 "
          "and %d): %s", rc, info1, info2, fail2, hyt_last_error());
    REQUIRE(!hyt_dmat_get(d1, F1, n1) && !hyt_dmat_get(d2, F2, n2), "%s", hyt_last_error());
    double e = panel_error(n1, n1, A1, n1, F1);
    CHECK(e < LU_THRESH, "async: backward error %g", e);
    /* the failing one: its tile columns left of the failing tile */
    const int nc = (fail2 - 1) / nb2 * nb2;
    e = panel_error(n2, nc, A2, n2, F2);
    CHECK(e < LU_THRESH, "async, failing matrix: leading %d columns' backward error %g", nc, e);
    hyt_dmat_destroy(d1);
    hyt_dmat_destroy(d2);
    free(A1);
    free(F1);
    free(A2);
    free(F2);
}

/* Calls on the same matrix in one sequence run in insertion order: B = inv(2 I) B0 by the LU
 * and its solve on the devices (writing B's columns), the Cholesky of B = B0 / 2, then the
 * solve again: B = L / 2. */
static void check_ordered(hyt_context_t *ctx)
{
    const int n = 250, nb = 16;
    double *I2 = calloc((size_t)n * n, sizeof *I2), *B0 = xmalloc((size_t)n * n * sizeof *B0);
    double *F = xmalloc((size_t)n * n * sizeof *F);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    REQUIRE(I2 && ipiv, "out of memory");
    for (int i = 0; i < n; i++)
        I2[i + (int64_t)i * n] = 2.0;
    chol_matrix(B0, n, n, 0, 21);
    hyt_dmat_t *dA, *dB;
    REQUIRE(!hyt_dmat_create(ctx, n, n, nb, &dA) && !hyt_dmat_create(ctx, n, n, nb, &dB), "%s",
            hyt_last_error());
    REQUIRE(!hyt_dmat_set(dA, I2, n) && !hyt_dmat_set(dB, B0, n), "%s", hyt_last_error());
    hyt_sequence_t *seq;
    int info_lu = -99, info = -99;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());
    int rc = hyt_dgetrf_dmat_async(seq, dA, ipiv, &info_lu);
    if (!rc)
        rc = hyt_dgetrs_dmat_async(seq, 'N', dA, ipiv, dB);
    if (!rc)
        rc = hyt_dpotrf_dmat_async(seq, dB, &info);
    if (!rc)
        rc = hyt_dgetrs_dmat_async(seq, 'N', dA, ipiv, dB);
    rc = hyt_sequence_finish(seq, rc);
    CHECK(rc == 0 && info_lu == 0 && info == 0, "ordered: rc %d, info %d, %d: %s", rc, info_lu,
          info, hyt_last_error());
    REQUIRE(!hyt_dmat_get(dB, F, n), "%s", hyt_last_error());
    for (int64_t i = 0; i < (int64_t)n * n; i++) {
        B0[i] *= 0.5;
        F[i] *= 2.0;
    }
    double e = panel_error(n, n, B0, n, F);
    CHECK(e < LU_THRESH, "ordered: the Cholesky of B0 / 2 has backward error %g", e);
    hyt_dmat_destroy(dA);
    hyt_dmat_destroy(dB);
    free(I2);
    free(B0);
    free(F);
    free(ipiv);
}

/* A late writer: a device task that waits 10 ms, then copies a column (on every device but
 * the first, whose column 0 the first panel waits for anyway). */
typedef struct slow_args {
    double *dst;
    const double *src;
    size_t bytes;
    int sleep;
} slow_args_t;

static int slow_copy_body(const hyt_devctx_t *dc, void *p)
{
    const slow_args_t *a = p;
    struct timespec ts = {0, 10 * 1000 * 1000};
    if (a->sleep)
        nanosleep(&ts, NULL);
    return forward(dc, hyt_dev_memcpy_d2d(dc, a->dst, a->src, a->bytes));
}

/* The Cholesky waits for every earlier task on the matrix's columns: B's columns written by
 * late tasks (dC = B0 / 2 into dB = B0) just before the factorization. */
static void check_late_writer(hyt_context_t *ctx)
{
    static const hyt_kernel_t slow_kernel = {.name = "test_slow_copy", .dev = slow_copy_body,
                                             .cat = HYT_CAT_DMA};
    const int n = 150, nb = 16;
    double *B0 = xmalloc((size_t)n * n * sizeof *B0), *H = xmalloc((size_t)n * n * sizeof *H);
    double *F = xmalloc((size_t)n * n * sizeof *F);
    chol_matrix(B0, n, n, 0, 31);
    for (int64_t i = 0; i < (int64_t)n * n; i++)
        H[i] = 0.5 * B0[i];
    hyt_dmat_t *dB, *dC;
    REQUIRE(!hyt_dmat_create(ctx, n, n, nb, &dB) && !hyt_dmat_create(ctx, n, n, nb, &dC), "%s",
            hyt_last_error());
    REQUIRE(!hyt_dmat_set(dB, B0, n) && !hyt_dmat_set(dC, H, n), "%s", hyt_last_error());
    hyt_sequence_t *seq;
    int info = -99, rc = 0;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());
    for (int j = 0; j < dB->nt && !rc; j++) {
        slow_args_t a = {hyt_dmat_col(dB, j), hyt_dmat_col(dC, j),
                         (size_t)dB->colsz * sizeof(double), hyt_dmat_owner(dB, j) != 0};
        hyt_dep_t deps[2] = {{hyt_dmat_col_key(dC, j), HYT_READ},
                             {hyt_dmat_col_key(dB, j), HYT_RW}};
        hyt_task_desc_t d = hyt_task_desc(&slow_kernel, &a, sizeof a);
        d.device = hyt_dmat_owner(dB, j);
        d.stream = HYT_STREAM_H2D;
        d.deps = deps;
        d.ndeps = 2;
        rc = hyt_task_insert(seq, &d);
    }
    if (!rc)
        rc = hyt_dpotrf_dmat_async(seq, dB, &info);
    rc = hyt_sequence_finish(seq, rc);
    CHECK(rc == 0 && info == 0, "late writer: rc %d, info %d: %s", rc, info, hyt_last_error());
    REQUIRE(!hyt_dmat_get(dB, F, n), "%s", hyt_last_error());
    double e = panel_error(n, n, H, n, F);
    CHECK(e < LU_THRESH, "late writer: the Cholesky of B0 / 2 has backward error %g", e);
    hyt_dmat_destroy(dB);
    hyt_dmat_destroy(dC);
    free(B0);
    free(H);
    free(F);
}

/* Injected faults (key = k: the k-th device call, allocation or task fails): an error with a
 * message, or INFO 0 and a correct factor; nothing hangs or leaks (the cleanup task runs also
 * after a failure). */
static void check_faults(const char *devs, const char *key, int kmax, int stride,
                         const char *inv_rows)
{
    const int n = 90, nb = 16;
    double *A0 = xmalloc((size_t)n * n * sizeof *A0), *F = xmalloc((size_t)n * n * sizeof *F);
    chol_matrix(A0, n, n, 0, 41);
    int failed = 0, ok = 0;
    for (int k = 1; k <= kmax; k += stride) {
        char kb[16];
        snprintf(kb, sizeof kb, "%d", k);
        hyt_config_t *cfg;
        hyt_context_t *ctx = NULL;
        REQUIRE(!hyt_config_create(&cfg) &&
                    !hyt_config_set(cfg, "runtime.workers", "2", HYT_SRC_API, NULL) &&
                    !hyt_config_set(cfg, "runtime.devices", devs, HYT_SRC_API, NULL) &&
                    !hyt_config_set(cfg, key, kb, HYT_SRC_API, NULL) &&
                    !hyt_config_set(cfg, "chol.inv_rows", inv_rows, HYT_SRC_API, NULL),
                "%s", hyt_last_error());
        int rc = hyt_context_create(cfg, &ctx);
        hyt_config_destroy(cfg);
        if (rc) {
            failed++;
            continue;
        }
        hyt_dmat_t *dA = NULL;
        rc = hyt_dmat_create(ctx, n, n, nb, &dA);
        if (!rc)
            rc = hyt_dmat_set(dA, A0, n);
        if (!rc)
            rc = hyt_dpotrf_dmat(ctx, dA);
        if (!rc)
            rc = hyt_dmat_get(dA, F, n);
        if (rc) {
            failed++;
            CHECK(rc <= HYT_ERR_BASE && test_says_why(hyt_last_error()),
                  "%s=%d: %d without a library error and its message: '%s'", key, k, rc,
                  hyt_last_error());
        } else {
            ok++;
            double e = chol_backward_error('L', n, A0, n, F, n);
            CHECK(e < LU_THRESH, "%s=%d: success with a wrong result (%g)", key, k, e);
        }
        hyt_dmat_destroy(dA);
        hyt_context_destroy(ctx);
    }
    printf("%s on %s (chol.inv_rows %s), k = 1..%d: %d failed cleanly, %d correct\n", key, devs,
           inv_rows, kmax, failed, ok);
    CHECK(failed > 0, "%s: no fault reported (%d correct)", key, ok);
    free(A0);
    free(F);
}

int main(int argc, char **argv)
{
    if ((use_cuda = test_cuda_arg(argc, argv)) < 0)
        return 2;
    test_watchdog("test_chol_dmat: timed out (something hung)\n", 900);
    const int maxdev = test_max_devices(use_cuda, 3);
    if (!maxdev)
        return 77;
    const int small = test_scale() > 1;
    int count = 0;
    for (int nd = 1; nd <= maxdev; nd++) {
        char devs[32];
        test_device_list(use_cuda, nd, devs, sizeof devs);
        hyt_context_t *ctx = test_context(2, devs, (char *)NULL);

        /* SPD: n = 0 and 1, n < nb, sizes not multiples of nb, lookahead 0..2 */
        const int nb = use_cuda ? 64 : 16;
        const int ns[] = {0, 1, nb - 5, nb, 3 * nb + 7, 7 * nb + 13};
        for (int s = 0; s < 6; s++)
            for (int la = 0; la <= 2; la++) {
                if (small && (s + la + nd) % 2 && s > 1)
                    continue;
                check(ctx, ns[s], nb, la, 0, devs);
                count++;
            }
        /* the default lookahead, another nb; a tile wider than the fused potf2 (pieces) */
        check(ctx, 200, 24, -1, 0, devs);
        check(ctx, 1100, 520, nd - 1, 0, devs);
        count += 2;

        /* not positive definite: minor 1, inside tile 0, both sides of a tile boundary, the
         * middle, the last minor; inside the second potf2 piece of a wide tile */
        const int n = 6 * nb + 5;
        const int fails[] = {1, nb / 2, nb, nb + 1, 3 * nb + 7, n};
        for (int f = 0; f < 6; f++)
            for (int la = 0; la <= 2; la++) {
                check(ctx, n, nb, la, fails[f], devs);
                count++;
            }
        check(ctx, 1100, 520, 1, 515, devs);
        check(ctx, 1100, 520, 0, 1090, devs);
        count += 2;

        /* the solves: one right-hand side, several tile columns of them */
        check_solve(ctx, 3 * nb + 7, nb, 1, nd % 2, devs);
        check_solve(ctx, 4 * nb + 3, nb, 2 * nb + 5, 1, devs);
        count += 8;

        /* the panels' solve as a GEMM with the inverse of the diagonal tile: on every panel
         * (chol.inv_rows 1), on the first ones only (more than 4 nb rows below them) */
        for (int g = 0; g < 2; g++) {
            char v[16];
            snprintf(v, sizeof v, "%d", g ? 4 * nb : 1);
            REQUIRE(!hyt_context_set(ctx, "chol.inv_rows", v), "%s", hyt_last_error());
            check(ctx, 7 * nb + 13, nb, 1 + g, 0, devs);
            check(ctx, n, nb, g, fails[g ? 4 : 3], devs);
            count += 2;
            if (g)
                continue;
            check(ctx, 1100, 520, nd - 1, 0, devs);
            check(ctx, 1100, 520, 1, 515, devs);
            check_solve(ctx, 4 * nb + 3, nb, 2 * nb + 5, 1, devs);
            check_nan(ctx, 5 * nb + 3, nb, nd % 3);
            count += 6;
        }
        REQUIRE(!hyt_context_set(ctx, "chol.inv_rows", "auto"), "%s", hyt_last_error());

        /* the panels of several steps a slot and an update (chol.group 2..4): lookahead 0..2
         * (raised to the group), the last group cut short, n < nb, INFO at each step of a
         * group, NaN, the solve */
        for (int G = 2; G <= 4; G++) {
            char v[8];
            snprintf(v, sizeof v, "%d", G);
            REQUIRE(!hyt_context_set(ctx, "chol.group", v), "%s", hyt_last_error());
            for (int la = 0; la <= 2; la++) {
                check(ctx, 7 * nb + 13, nb, la, 0, devs);
                count++;
                for (int f = 0; f < 6; f++) {
                    if (small && (f + la + G) % 2)
                        continue;
                    check(ctx, n, nb, la, fails[f], devs);
                    count++;
                }
            }
            check(ctx, nb - 5, nb, 1, 0, devs);
            check_solve(ctx, 4 * nb + 3, nb, 2 * nb + 5, G % 2, devs);
            check_nan(ctx, 5 * nb + 3, nb, G - 2);
            count += 5;
        }
        check(ctx, 1100, 520, 2, 0, devs); /* the last one's group: pieces of potf2 */
        count++;
        REQUIRE(!hyt_context_set(ctx, "chol.group", "auto"), "%s", hyt_last_error());

        check_nan(ctx, 5 * nb + 3, nb, nd % 3);
        check_async(ctx);
        check_ordered(ctx);
        check_late_writer(ctx);
        check_args(ctx, devs);
        hyt_context_destroy(ctx);
    }
    const char *fdevs = use_cuda ? (maxdev > 1 ? "cuda:0,1" : "cuda:0") : "host:2";
    check_faults(fdevs, "debug.fault_device", use_cuda ? 400 : 300, 7, "auto");
    /* every allocation up to 120: the 77th (host:2, today) is the cleanup's insertion, whose
     * failure makes the call wait for its sequence and free its state itself */
    check_faults(fdevs, "debug.fault_alloc", 120, 1, "auto");
    check_faults(fdevs, "debug.fault_task", 200, 7, "auto");
    /* the panels' solve as a GEMM with the inverse: its device calls and its workspace */
    check_faults(fdevs, "debug.fault_device", use_cuda ? 400 : 300, 5, "1");
    check_faults(fdevs, "debug.fault_alloc", 40, 3, "1");
    if (!use_cuda)
        check_group_memory();
    printf("%d device-matrix Cholesky factorizations checked on 1..%d %s device(s)\n", count,
           maxdev, use_cuda ? "CUDA" : "host");
    return test_result(use_cuda ? "test_chol_dmat (cuda)" : "test_chol_dmat");
}
