/* Backward-error checks for LU factorizations and solves (LAPACK's dget01 / dget02 style). */
#ifndef HYT_LU_CHECK_H
#define HYT_LU_CHECK_H

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Threshold on the scaled residuals, as LAPACK's test suite uses. */
#define LU_THRESH 30.0

static inline double lu_norm1(int m, int n, const double *a, int64_t lda)
{
    double v = 0;
    for (int c = 0; c < n; c++) {
        double s = 0;
        for (int r = 0; r < m; r++)
            s += fabs(a[r + c * lda]);
        if (s > v || isnan(s))
            v = s;
    }
    return v;
}

/* ||P A - L U||_1 / (||A||_1 * max(m,n) * eps); A0 original (lda0), F the factors (ldf). */
static inline double lu_backward_error(int m, int n, const double *A0, int64_t lda0, const double *F,
                                int64_t ldf, const int *ipiv)
{
    int k = m < n ? m : n;
    if (k == 0)
        return 0;
    double *L = calloc((size_t)m * k, sizeof *L), *U = calloc((size_t)k * n, sizeof *U);
    double *PA = malloc((size_t)m * n * sizeof *PA);
    for (int c = 0; c < k; c++)
        for (int r = 0; r < m; r++)
            L[r + (int64_t)c * m] = r > c ? F[r + c * ldf] : r == c ? 1.0 : 0.0;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < k && r <= c; r++)
            U[r + (int64_t)c * k] = F[r + c * ldf];
    for (int c = 0; c < n; c++)
        memcpy(PA + (int64_t)c * m, A0 + c * lda0, (size_t)m * sizeof *PA);
    for (int r = 0; r < k; r++) {
        int p = ipiv[r] - 1;
        if (p != r)
            for (int c = 0; c < n; c++) {
                double t = PA[r + (int64_t)c * m];
                PA[r + (int64_t)c * m] = PA[p + (int64_t)c * m];
                PA[p + (int64_t)c * m] = t;
            }
    }
    double anorm = lu_norm1(m, n, A0, lda0);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, -1.0, L, m, U, k, 1.0, PA, m);
    double rnorm = lu_norm1(m, n, PA, m);
    free(L);
    free(U);
    free(PA);
    if (anorm == 0)
        return rnorm == 0 ? 0 : 1.0 / DBL_EPSILON;
    return rnorm / (anorm * (m > n ? m : n) * DBL_EPSILON);
}

/* max over columns of ||b - op(A) x||_1 / (||op(A)||_1 ||x||_1 n eps). */
static inline double solve_backward_error(char trans, int n, int nrhs, const double *A0, int64_t lda,
                                   const double *X, int64_t ldx, const double *B0, int64_t ldb)
{
    double *R = malloc((size_t)n * (nrhs ? nrhs : 1) * sizeof *R);
    for (int c = 0; c < nrhs; c++)
        memcpy(R + (int64_t)c * n, B0 + c * ldb, (size_t)n * sizeof *R);
    cblas_dgemm(CblasColMajor, trans == 'N' ? CblasNoTrans : CblasTrans, CblasNoTrans, n, nrhs,
                n, -1.0, A0, (int)lda, X, (int)ldx, 1.0, R, n);
    double anorm = 0;
    if (trans == 'N') {
        anorm = lu_norm1(n, n, A0, lda);
    } else {
        for (int r = 0; r < n; r++) { /* ||A^T||_1 = ||A||_inf */
            double s = 0;
            for (int c = 0; c < n; c++)
                s += fabs(A0[r + c * lda]);
            if (s > anorm)
                anorm = s;
        }
    }
    double worst = 0;
    for (int c = 0; c < nrhs; c++) {
        double rn = lu_norm1(n, 1, R + (int64_t)c * n, n), xn = lu_norm1(n, 1, X + c * ldx, ldx);
        double e = anorm == 0 || xn == 0 ? (rn == 0 ? 0 : 1 / DBL_EPSILON)
                                         : rn / (anorm * xn * n * DBL_EPSILON);
        if (e > worst || isnan(e))
            worst = e;
    }
    free(R);
    return worst;
}

static inline void fill_random(double *a, int m, int n, int64_t lda, unsigned long long seed)
{
    unsigned long long s = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < m; r++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            a[r + c * lda] = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        }
}

#endif
