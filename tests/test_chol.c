/*
 * The Cholesky (A = L L^T, A = U^T U) and its solves on CPUs, checked by backward error:
 *   ||A - L L^T|| / (||A|| n eps) and ||b - A x|| / (||A|| ||x|| n eps) below 30,
 * over sizes that are not multiples of nb, n < nb, n = 0 and 1, lookahead 0..2, both triangles
 * (in either case), 1 to 4 workers, the LAPACK layout (lda > n) and CCRB tiles, synchronous and
 * asynchronous; matrices that are not positive definite (INFO exactly the first failing minor:
 * at the start, inside a tile, at a tile boundary, at the end; the solve of dposv not done);
 * NaN input (no hang, no crash: INFO > 0 or NaN in the factor); every bad argument.
 */
#include "chol_internal.h"
#include "hytile.h"
#include "hyt_test.h"
#include "chol_check.h"

#include <math.h>

/* hyt_dpotrf with chosen parameters (LAPACK view, tiles nb x nb). */
static int factor_view(hyt_context_t *ctx, char uplo, int n, double *a, int lda, int nb, int la)
{
    hyt_chol_params_t p = {nb, la, 0};
    return hyt_dpotrf_params(ctx, hyt_norm_uplo(uplo), n, a, lda, &p);
}

/* Factor an SPD matrix (LAPACK view, lda = n + 3) and solve; the other triangle and the rows
 * beyond n untouched. */
static void check_spd(hyt_context_t *ctx, char uplo, int n, int nb, int la,
                      unsigned long long seed, const char *what)
{
    int lda = n + 3, nrhs = 1 + (int)(seed % 4), ldb = n + 1;
    size_t asz = ((size_t)lda * n + 1) * sizeof(double), bsz = (size_t)ldb * nrhs * sizeof(double);
    double *A0 = malloc(asz), *A = malloc(asz), *B0 = malloc(bsz), *X = malloc(bsz);
    fill_random(A0, lda, n, lda, seed + 5); /* padding rows */
    chol_matrix(A0, n, lda, 0, seed);
    fill_random(B0, ldb, nrhs, ldb, seed + 7);
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    const char u = hyt_norm_uplo(uplo);
    int info = factor_view(ctx, uplo, n, A, lda, nb, la);
    CHECK(info == 0, "%s: n %d uplo %c: info %d (%s)", what, n, uplo, info, hyt_last_error());
    int other_ok = 1;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < lda; r++)
            if (r >= n || (u == 'L' ? r < c : r > c))
                other_ok &= A[r + (int64_t)c * lda] == A0[r + (int64_t)c * lda];
    CHECK(other_ok, "%s: n %d uplo %c: the other triangle or the padding changed", what, n, uplo);
    double e = chol_backward_error(u, n, A0, lda, A, lda);
    CHECK(e < LU_THRESH, "%s: n %d uplo %c: ||A-LL^T||/(||A|| n eps) = %g", what, n, uplo, e);
    /* the solve: the loop nest with the same nb, and the public one (automatic nb) */
    for (int v = 0; v < 2 && n > 0; v++) {
        memcpy(X, B0, (size_t)ldb * nrhs * sizeof *X);
        int rc;
        if (v == 0) {
            hyt_desc_t DA, DB;
            hyt_desc_lapack(n, n, nb, A, lda, &DA);
            hyt_desc_lapack(n, nrhs, nb, X, ldb, &DB);
            rc = hyt_dpotrs_tile(ctx, uplo, &DA, &DB);
        } else {
            rc = hyt_dpotrs(ctx, uplo, n, nrhs, A, lda, X, ldb);
        }
        CHECK(rc == 0, "%s: dpotrs %d: %d", what, v, rc);
        e = solve_backward_error('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
        CHECK(e < LU_THRESH, "%s: n %d uplo %c: ||b-Ax||/(||A|| ||x|| n eps) = %g", what, n, uplo,
              e);
    }
    free(A0);
    free(A);
    free(B0);
    free(X);
}

/* The public routines with automatic parameters: LAPACK layout, CCRB synchronous and
 * asynchronous (factor and solve in one sequence). */
static void check_public(hyt_context_t *ctx, char uplo, int n, int nrhs, int nb,
                         unsigned long long seed)
{
    const char u = hyt_norm_uplo(uplo);
    size_t asz = ((size_t)n * n + 1) * sizeof(double), bsz = (size_t)n * nrhs * sizeof(double);
    double *A0 = malloc(asz), *A = malloc(asz), *B0 = malloc(bsz), *X = malloc(bsz);
    chol_matrix(A0, n, n, 0, seed);
    fill_random(B0, n, nrhs, n, seed + 1);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    memcpy(X, B0, (size_t)n * nrhs * sizeof *X);
    CHECK(hyt_dposv(ctx, uplo, n, nrhs, A, n, X, n) == 0, "dposv %c n %d", uplo, n);
    CHECK(chol_backward_error(u, n, A0, n, A, n) < LU_THRESH, "dposv %c n %d: factor", uplo, n);
    CHECK(solve_backward_error('N', n, nrhs, A0, n, X, n, B0, n) < LU_THRESH,
          "dposv %c n %d: solve", uplo, n);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    CHECK(hyt_dpotrf(ctx, uplo, n, A, n) == 0, "dpotrf %c n %d", uplo, n);
    CHECK(chol_backward_error(u, n, A0, n, A, n) < LU_THRESH, "dpotrf %c n %d", uplo, n);

    hyt_desc_t DA, DB;
    REQUIRE(!hyt_desc_create(ctx, n, n, nb, &DA) && !hyt_desc_create(ctx, n, nrhs, nb, &DB),
            "desc");
    for (int v = 0; v < 2; v++) {
        CHECK(!hyt_lapack_to_tile(ctx, A0, n, &DA) && !hyt_lapack_to_tile(ctx, B0, n, &DB),
              "to tile");
        if (v == 0) {
            hyt_sequence_t *seq;
            REQUIRE(!hyt_sequence_create(ctx, &seq), "sequence");
            int info = -99;
            CHECK(!hyt_dposv_tile_async(seq, uplo, &DA, &DB, &info), "dposv_tile_async");
            CHECK(hyt_sequence_finish(seq, 0) == 0 && info == 0, "async %c n %d: info %d", uplo,
                  n, info);
        } else {
            CHECK(hyt_dpotrf_tile(ctx, uplo, &DA) == 0, "dpotrf_tile");
            CHECK(hyt_dpotrs_tile(ctx, uplo, &DA, &DB) == 0, "dpotrs_tile");
        }
        CHECK(!hyt_tile_to_lapack(ctx, &DA, A, n) && !hyt_tile_to_lapack(ctx, &DB, X, n),
              "to lapack");
        CHECK(chol_backward_error(u, n, A0, n, A, n) < LU_THRESH, "tile %d %c n %d nb %d: factor",
              v, uplo, n, nb);
        CHECK(solve_backward_error('N', n, nrhs, A0, n, X, n, B0, n) < LU_THRESH,
              "tile %d %c n %d nb %d: solve", v, uplo, n, nb);
    }
    hyt_desc_destroy(&DA);
    hyt_desc_destroy(&DB);
    free(A0);
    free(A);
    free(B0);
    free(X);
}

/* The leading minor of order `fail` is the first that is not positive definite: INFO exactly
 * that, from the loop nest, dpotrf and dposv (B untouched), synchronous and asynchronous. */
static void check_not_pd(hyt_context_t *ctx, char uplo, int n, int nb, int la, int fail)
{
    double *A0 = malloc((size_t)n * n * sizeof *A0), *A = malloc((size_t)n * n * sizeof *A);
    double *B = malloc((size_t)n * sizeof *B);
    chol_matrix(A0, n, n, fail, (unsigned long long)n * 7 + (unsigned long long)fail);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    int info = factor_view(ctx, uplo, n, A, n, nb, la);
    CHECK(info == fail, "not PD n %d nb %d la %d uplo %c: info %d, expected %d", n, nb, la, uplo,
          info, fail);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    info = hyt_dpotrf(ctx, uplo, n, A, n);
    CHECK(info == fail, "dpotrf not PD n %d uplo %c: info %d, expected %d", n, uplo, info, fail);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    for (int i = 0; i < n; i++)
        B[i] = i;
    info = hyt_dposv(ctx, uplo, n, 1, A, n, B, n);
    int same = 1;
    for (int i = 0; i < n; i++)
        same &= B[i] == i;
    CHECK(info == fail && same, "dposv not PD n %d uplo %c: info %d (expected %d), B %s", n,
          uplo, info, fail, same ? "untouched" : "changed");
    /* asynchronous: the solve in the same sequence waits for INFO and does nothing */
    hyt_desc_t DA, DB;
    hyt_desc_lapack(n, n, nb, A, n, &DA);
    hyt_desc_lapack(n, 1, nb, B, n, &DB);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    hyt_sequence_t *seq;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "sequence");
    info = -99;
    CHECK(!hyt_dposv_tile_async(seq, uplo, &DA, &DB, &info), "dposv_tile_async");
    CHECK(hyt_sequence_finish(seq, 0) == 0, "sequence");
    same = 1;
    for (int i = 0; i < n; i++)
        same &= B[i] == i;
    CHECK(info == fail && same, "async dposv not PD n %d uplo %c: info %d (expected %d), B %s", n,
          uplo, info, fail, same ? "untouched" : "changed");
    free(A0);
    free(A);
    free(B);
}

/* NaN input: returns (no hang), no crash, INFO in range; INFO > 0 or NaN in the factor. */
static void check_nan(hyt_context_t *ctx, char uplo, int n, int nb)
{
    double *A = malloc((size_t)n * n * sizeof *A);
    const char u = hyt_norm_uplo(uplo);
    for (int variant = 0; variant < 3; variant++) {
        chol_matrix(A, n, n, 0, 55 + (unsigned long long)variant);
        int r = n / 2 + 1, c = n / 3; /* r > c: in the lower triangle; its mirror in the upper */
        if (variant == 0)
            A[0] = NAN;
        else if (variant == 1)
            A[u == 'L' ? r + (int64_t)c * n : c + (int64_t)r * n] = NAN;
        else
            for (int64_t i = 0; i < (int64_t)n * n; i++)
                A[i] = NAN;
        chol_check_nan_result(u, n, A, factor_view(ctx, uplo, n, A, n, nb, 1), variant);
    }
    free(A);
}

/* An infinite diagonal entry j, as LAPACK's dpotrf treats it: -Inf is a minor that is not
 * positive (INFO j + 1); +Inf passes, L(j, j) = +Inf, the rest of column j of L (row j of U)
 * is A's entry over Inf, 0, so the rest of the factor is the Cholesky of A without row and
 * column j: checked by its backward error. */
static void check_inf(hyt_context_t *ctx, char uplo, int n, int nb, int j, double inf)
{
    const char u = hyt_norm_uplo(uplo);
    double *A0 = malloc((size_t)n * n * sizeof *A0), *A = malloc((size_t)n * n * sizeof *A);
    chol_matrix(A0, n, n, 0, 77 + (unsigned long long)j);
    A0[j + (int64_t)j * n] = inf;
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    chol_check_inf_result(u, n, nb, A0, A, j, inf, factor_view(ctx, uplo, n, A, n, nb, 1));
    free(A0);
    free(A);
}

/* Every bad argument: -position returned and nothing written. */
static void check_bad_args(hyt_context_t *ctx)
{
    double a[16], b[4], a0[16], b0[4];
    for (int i = 0; i < 16; i++)
        a[i] = a0[i] = i + 1;
    for (int i = 0; i < 4; i++)
        b[i] = b0[i] = i;
    CHECK(hyt_dpotrf(ctx, 'X', 4, a, 4) == -1, "potrf uplo");
    CHECK(hyt_dpotrf(ctx, 'L', -1, a, 4) == -2, "potrf n");
    CHECK(hyt_dpotrf(ctx, 'L', 4, NULL, 4) == -3, "potrf a");
    CHECK(hyt_dpotrf(ctx, 'U', 4, a, 3) == -4, "potrf lda");
    CHECK(hyt_dpotrf(ctx, 'l', 0, a, 1) == 0, "potrf empty");
    for (int sv = 0; sv < 2; sv++) {
        int (*f)(hyt_context_t *, char, int, int, double *, int, double *, int) =
            sv ? hyt_dposv : (int (*)(hyt_context_t *, char, int, int, double *, int, double *,
                                      int))hyt_dpotrs;
        const char *name = sv ? "posv" : "potrs";
        CHECK(f(ctx, 'x', 4, 1, a, 4, b, 4) == -1, "%s uplo", name);
        CHECK(f(ctx, 'L', -1, 1, a, 4, b, 4) == -2, "%s n", name);
        CHECK(f(ctx, 'L', 4, -1, a, 4, b, 4) == -3, "%s nrhs", name);
        CHECK(f(ctx, 'L', 4, 1, NULL, 4, b, 4) == -4, "%s a", name);
        CHECK(f(ctx, 'L', 4, 1, a, 3, b, 4) == -5, "%s lda", name);
        CHECK(f(ctx, 'L', 4, 1, a, 4, NULL, 4) == -6, "%s b", name);
        CHECK(f(ctx, 'L', 4, 1, a, 4, b, 3) == -7, "%s ldb", name);
        CHECK(f(ctx, 'U', 0, 1, a, 1, b, 1) == 0, "%s empty", name);
    }
    CHECK(!memcmp(a, a0, sizeof a) && !memcmp(b, b0, sizeof b), "bad arguments wrote data");
    CHECK(hyt_dpotrf(NULL, 'L', 4, a, 4) == HYT_ERR_INVALID, "NULL context");
    hyt_desc_t A, B;
    hyt_desc_lapack(4, 3, 2, a, 4, &A);
    CHECK(hyt_dpotrf_tile(ctx, 'L', &A) == -2, "potrf_tile of a 4 x 3 matrix");
    hyt_desc_lapack(4, 4, 2, a, 4, &A);
    hyt_desc_lapack(3, 1, 2, b, 4, &B);
    CHECK(hyt_dpotrs_tile(ctx, 'L', &A, &B) == -3, "potrs_tile B 3 x 1");
    CHECK(hyt_dpotrf_tile(ctx, 'Q', &A) == -1, "potrf_tile uplo");
    CHECK(!memcmp(a, a0, sizeof a) && !memcmp(b, b0, sizeof b), "bad arguments wrote data");
}

/* chol.nb and chol.lookahead: validated, per call, "auto" and explicit values both honoured. */
static void check_keys(hyt_context_t *ctx)
{
    hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
    hyt_chol_params(ctx, 5000, &p);
    CHECK(p.nb == 256 && p.lookahead == 1, "auto: nb %d lookahead %d", p.nb, p.lookahead);
    CHECK(!hyt_context_set(ctx, "chol.nb", "96") && !hyt_context_set(ctx, "chol.lookahead", "3"),
          "%s", hyt_last_error());
    p = HYT_CHOL_PARAMS_AUTO;
    hyt_chol_params(ctx, 5000, &p);
    CHECK(p.nb == 96 && p.lookahead == 3, "set: nb %d lookahead %d", p.nb, p.lookahead);
    p = (hyt_chol_params_t){40, 0, 0};
    hyt_chol_params(ctx, 5000, &p);
    CHECK(p.nb == 40 && p.lookahead == 0, "the caller's values win: nb %d lookahead %d", p.nb,
          p.lookahead);
    CHECK(hyt_context_set(ctx, "chol.nb", "0") == HYT_ERR_CONFIG &&
              hyt_context_set(ctx, "chol.lookahead", "65") == HYT_ERR_CONFIG,
          "bad chol values accepted");
    /* a LAPACK-layout factorization with the set tile size still right */
    check_spd(ctx, 'L', 200, 96, 3, 4242, "chol.nb 96 from the context");
    CHECK(!hyt_context_set(ctx, "chol.nb", "auto") &&
              !hyt_context_set(ctx, "chol.lookahead", "auto"), "%s", hyt_last_error());
}

int main(void)
{
    int small = test_scale() > 1;
    hyt_context_t *ctx[4];
    for (int w = 0; w < 4; w++)
        ctx[w] = test_context(w + 1, "none", (char *)NULL);

    check_bad_args(ctx[1]);
    check_keys(ctx[1]);

    /* sizes that are not multiples of nb, n < nb, 0 and 1; every lookahead, both triangles */
    static const int ns[] = {0, 1, 2, 3, 17, 64, 100, 129, 257, 300, 500};
    static const int nbs[] = {1, 3, 7, 16, 32, 50, 64, 100, 128, 256};
    const int nn = (int)(sizeof ns / sizeof ns[0]), nnb = (int)(sizeof nbs / sizeof nbs[0]);
    int count = 0;
    for (int s = 0; s < nn; s++) {
        if (small && ns[s] > 300)
            continue;
        for (int v = 0; v < 4; v++) {
            int nb = nbs[(s * 4 + v) % nnb];
            if (ns[s] / nb > 40)
                nb = ns[s] / 40 + 1; /* keep the task count sane for tiny tiles */
            int la = (s + v) % 3;
            char uplo = "LUlu"[(s + v) % 4];
            char what[64];
            snprintf(what, sizeof what, "nb %d lookahead %d workers %d", nb, la, v + 1);
            check_spd(ctx[v], uplo, ns[s], nb, la, (unsigned long long)(s * 10 + v), what);
            count++;
        }
    }
    for (int la = 0; la <= 2; la++)
        for (int u = 0; u < 2; u++) {
            check_spd(ctx[3], "LU"[u], 401, 48, la, 300 + (unsigned long long)la, "n 401 nb 48");
            count++;
        }
    if (!small) {
        check_spd(ctx[3], 'L', 1500, 192, 2, 1500, "n 1500");
        check_spd(ctx[2], 'U', 1100, 256, 1, 1100, "n 1100");
        count += 2;
    }

    /* the public routines, automatic parameters, LAPACK layout and tiles */
    check_public(ctx[1], 'L', 1, 1, 64, 1);
    check_public(ctx[1], 'u', 200, 3, 64, 2);
    check_public(ctx[3], 'l', 250, 70, 96, 3);
    check_public(ctx[3], 'U', 513, 5, 128, 4);
    count += 4;

    /* not positive definite: minor 1, inside the first tile, at the boundaries of tile 1
     * (its last and first minors), inside a later tile, the last minor */
    static const int fails[] = {1, 5, 32, 33, 45, 64, 65, 99, 100};
    for (int f = 0; f < (int)(sizeof fails / sizeof fails[0]); f++)
        for (int u = 0; u < 2; u++)
            check_not_pd(ctx[(f + u) % 4], "LU"[u], 100, 32, f % 3, fails[f]);
    check_not_pd(ctx[0], 'L', 20, 32, 1, 20); /* n < nb */
    check_not_pd(ctx[2], 'U', 1, 8, 0, 1);

    for (int u = 0; u < 2; u++) {
        check_nan(ctx[2], "LU"[u], 64, 16);
        check_nan(ctx[3], "LU"[u], 100, 32);
        /* the first diagonal entry, the last and first of a tile, inside one, the last */
        static const int at[] = {0, 31, 32, 45, 99};
        for (int p = 0; p < (int)(sizeof at / sizeof at[0]); p++)
            for (int s = 0; s < 2; s++)
                check_inf(ctx[(p + s) % 4], "LU"[u], 100, 32, at[p], s ? -INFINITY : INFINITY);
    }

    for (int w = 0; w < 4; w++)
        hyt_context_destroy(ctx[w]);
    printf("%d factorizations checked by backward error\n", count);
    return test_result("test_chol");
}
