/* Matrices and backward-error checks for the Cholesky tests (LAPACK's dpot01 / dpot02 style). */
#ifndef HYT_CHOL_CHECK_H
#define HYT_CHOL_CHECK_H

#include "lu_check.h"

/* A = L D L^T (n x n, full, ld lda) with L = I + E / n (E random in [-1, 1], strictly lower) and
 * D in [1, 2], except d_fail = -1 (1-based; 0: none).  The leading minors of order < fail are
 * positive definite and the one of order fail is not, by a margin no rounding can blur: a
 * Cholesky must return INFO = fail exactly. */
static inline void chol_matrix(double *A, int n, int64_t lda, int fail, unsigned long long seed)
{
    size_t sz = ((size_t)n * n + 1) * sizeof(double);
    double *L = calloc(1, sz), *W = malloc(sz), *E = malloc(sz);
    double *d = malloc(((size_t)n + 1) * sizeof *d);
    fill_random(E, n, n, n, seed);
    fill_random(d, n, 1, n, seed + 1);
    for (int c = 0; c < n; c++) {
        L[c + (int64_t)c * n] = 1;
        for (int r = c + 1; r < n; r++)
            L[r + (int64_t)c * n] = E[r + (int64_t)c * n] / n;
        d[c] = c + 1 == fail ? -1.0 : 1.5 + 0.5 * d[c];
        for (int r = 0; r < n; r++)
            W[r + (int64_t)c * n] = L[r + (int64_t)c * n] * d[c];
    }
    if (n > 0)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, W, n, L, n, 0.0, A,
                    (int)lda);
    for (int c = 0; c < n; c++) /* exactly symmetric */
        for (int r = c + 1; r < n; r++)
            A[c + r * lda] = A[r + c * lda];
    free(L);
    free(W);
    free(E);
    free(d);
}

/* ||A - L L^T||_1 / (||A||_1 n eps) (uplo 'L') or ||A - U^T U|| ('U'); A0 full symmetric, F the
 * factor in its uplo triangle (the other triangle ignored). */
static inline double chol_backward_error(char uplo, int n, const double *A0, int64_t lda0,
                                         const double *F, int64_t ldf)
{
    if (n == 0)
        return 0;
    double *T = calloc((size_t)n * n, sizeof *T), *R = malloc((size_t)n * n * sizeof *R);
    for (int c = 0; c < n; c++) {
        for (int r = uplo == 'L' ? c : 0; r < (uplo == 'L' ? n : c + 1); r++)
            T[r + (int64_t)c * n] = F[r + c * ldf];
        memcpy(R + (int64_t)c * n, A0 + c * lda0, (size_t)n * sizeof *R);
    }
    /* R = A0 - T T^T (lower) or A0 - T^T T (upper) */
    cblas_dgemm(CblasColMajor, uplo == 'L' ? CblasNoTrans : CblasTrans,
                uplo == 'L' ? CblasTrans : CblasNoTrans, n, n, n, -1.0, T, n, T, n, 1.0, R, n);
    double anorm = lu_norm1(n, n, A0, lda0), rnorm = lu_norm1(n, n, R, n);
    free(T);
    free(R);
    if (anorm == 0)
        return rnorm == 0 ? 0 : 1.0 / DBL_EPSILON;
    return rnorm / (anorm * n * DBL_EPSILON);
}

/* After factoring the uplo ('L' or 'U') triangle of the n x n A that held a NaN (variant 1:
 * off the diagonal; else the first diagonal entry, or every entry): INFO in range, INFO > 0 or
 * NaN in the factor, and a NaN first diagonal entry is minor 1. */
static inline void chol_check_nan_result(char uplo, int n, const double *A, int info, int variant)
{
    int has_nan = 0;
    for (int cc = 0; cc < n; cc++)
        for (int rr = uplo == 'L' ? cc : 0; rr < (uplo == 'L' ? n : cc + 1); rr++)
            has_nan |= isnan(A[rr + (int64_t)cc * n]);
    CHECK(info >= 0 && info <= n && (info > 0 || has_nan),
          "NaN variant %d uplo %c: info %d, NaN in the factor %d", variant, uplo, info, has_nan);
    if (variant != 1)
        CHECK(info == 1, "NaN variant %d: a NaN first diagonal is minor 1, info %d", variant,
              info);
}

/* Whether A (n x n, leading dimension lda) equals A0 outside the uplo triangle: the other
 * triangle and the padding rows, which a Cholesky never writes. */
static inline int chol_other_untouched(char uplo, int n, int64_t lda, const double *A,
                                       const double *A0)
{
    int same = 1;
    for (int c = 0; c < n; c++)
        for (int64_t r = 0; r < lda; r++)
            if (r >= n || (uplo == 'L' ? r < c : r > c))
                same &= A[r + c * lda] == A0[r + c * lda];
    return same;
}

/* A (n x n, ld n, uplo 'L' or 'U') factored from A0, an SPD matrix whose diagonal entry j
 * (0-based) was set to `inf` (+Inf or -Inf), with INFO info: LAPACK's answer.  -Inf: INFO j + 1.
 * +Inf: INFO 0, L(j, j) = Inf, the rest of column j of L (row j of U) 0, everything else
 * finite, and the factor without row and column j that of A0 without them (backward error). */
static inline void chol_check_inf_result(char uplo, int n, int nb, const double *A0,
                                         const double *A, int j, double inf, int info)
{
    if (inf < 0) {
        CHECK(info == j + 1, "-Inf at %d (uplo %c, n %d, nb %d): info %d", j + 1, uplo, n, nb,
              info);
        return;
    }
    CHECK(info == 0, "+Inf at %d (uplo %c, n %d, nb %d): info %d", j + 1, uplo, n, nb, info);
    int bad = A[j + (int64_t)j * n] != inf;
    for (int c = 0; c < n; c++)
        for (int r = uplo == 'L' ? c : 0; r < (uplo == 'L' ? n : c + 1); r++)
            if (r != c || c != j) {
                const double x = A[r + (int64_t)c * n];
                bad |= !isfinite(x) || ((uplo == 'L' ? c : r) == j && x != 0.0);
            }
    /* A and the factor without row and column j */
    double *R0 = malloc((size_t)n * n * sizeof *R0), *R = malloc((size_t)n * n * sizeof *R);
    for (int c = 0, cc = 0; c < n; c++) {
        if (c == j)
            continue;
        for (int r = 0, rr = 0; r < n; r++)
            if (r != j) {
                R0[rr + (int64_t)cc * (n - 1)] = A0[r + (int64_t)c * n];
                R[rr + (int64_t)cc * (n - 1)] = A[r + (int64_t)c * n];
                rr++;
            }
        cc++;
    }
    const double e = bad ? INFINITY : chol_backward_error(uplo, n - 1, R0, n - 1, R, n - 1);
    CHECK(!bad && e < LU_THRESH, "+Inf at %d (uplo %c, n %d, nb %d): L(j, j) %g, the rest of "
          "the factor %s, backward error without row and column j %g", j + 1, uplo, n, nb,
          A[j + (int64_t)j * n], bad ? "wrong" : "finite", e);
    free(R0);
    free(R);
}

#endif
