/*
 * The CPU kernels of cpu_kernels/ against naive references, on small shapes (edge tiles, m != n,
 * wide panels): the recursive panel (on one thread, and as a gang task of 1 to 4 threads),
 * dlaswp, dgessm (both layouts), the inverse of a unit lower triangle.  Pivots and swaps must
 * match exactly; values within a relative error ||X - X_ref||_F / ||X_ref||_F < TOL.
 */
#include "hyt_cpu_kernels.h"
#include "hyt_test.h"

#include <float.h>
#include <math.h>

#define TOL (1000 * DBL_EPSILON)

static test_rng_t rng = {42};

static double urand(void) { return (double)(test_rand(&rng) >> 11) / 9007199254740992.0 * 2 - 1; }

static double *random_matrix(int m, int n, int ld)
{
    double *a = malloc(sizeof(double) * ((size_t)ld * n + 1));
    REQUIRE(a, "out of memory");
    for (long p = 0; p < (long)ld * n; p++)
        a[p] = urand();
    return a;
}

static void swap_rows(double *a, int ld, int r, int p, int c0, int c1)
{
    for (int c = c0; c < c1; c++) {
        double t = a[r + (long)c * ld];
        a[r + (long)c * ld] = a[p + (long)c * ld];
        a[p + (long)c * ld] = t;
    }
}

/* LAPACK's dgetf2: unblocked LU with partial pivoting, the first row of largest |a| as pivot;
 * ipiv 1-based; returns the first exactly-zero pivot (1-based) or 0. */
static int ref_getrf(int m, int n, double *a, int ld, int *ipiv)
{
    int info = 0;
    for (int c = 0; c < (m < n ? m : n); c++) {
        int p = c;
        for (int r = c + 1; r < m; r++)
            if (fabs(a[r + (long)c * ld]) > fabs(a[p + (long)c * ld]))
                p = r;
        ipiv[c] = p + 1;
        if (a[p + (long)c * ld] == 0) {
            if (!info)
                info = c + 1;
            continue;
        }
        swap_rows(a, ld, c, p, 0, n);
        for (int r = c + 1; r < m; r++)
            a[r + (long)c * ld] /= a[c + (long)c * ld];
        for (int q = c + 1; q < n; q++)
            for (int r = c + 1; r < m; r++)
                a[r + (long)q * ld] -= a[r + (long)c * ld] * a[c + (long)q * ld];
    }
    return info;
}

/* The first q < n where ipiv[q] != off + rpiv[q], or -1 when the pivots agree. */
static int pivot_diff(const int *ipiv, const int *rpiv, int n, int off)
{
    for (int q = 0; q < n; q++)
        if (ipiv[q] != off + rpiv[q])
            return q;
    return -1;
}

/* ||x - ref||_F / ||ref||_F over an m x n block (0 when both are zero). */
static double relerr(int m, int n, const double *x, int ldx, const double *ref, int ldr)
{
    double d = 0, s = 0;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < m; r++) {
            double e = x[r + (long)c * ldx] - ref[r + (long)c * ldr];
            d += e * e;
            s += ref[r + (long)c * ldr] * ref[r + (long)c * ldr];
        }
    return s > 0 ? sqrt(d / s) : sqrt(d);
}

/* The whole matrix of a descriptor as a column-major m x n array, and back. */
static void desc_get(const hyt_desc_t *A, double *a)
{
    for (int c = 0; c < A->n; c++)
        for (int r = 0; r < A->m; r++)
            a[r + (long)c * A->m] = *hyt_elem(A, r, c);
}

static void desc_set(const hyt_desc_t *A, const double *a)
{
    for (int c = 0; c < A->n; c++)
        for (int r = 0; r < A->m; r++)
            *hyt_elem(A, r, c) = a[r + (long)c * A->m];
}

/* ---- hyt_core_dgetrf_seq: the recursive panel on one thread, LAPACK layout --------------- */
static void check_getrf_seq(int m, int n, int zero_col)
{
    int ld = m + 3, mn = m < n ? m : n;
    double *a = random_matrix(m, n, ld), *ref = malloc(sizeof(double) * ld * n);
    int *ipiv = calloc(mn + 1, sizeof(int)), *rpiv = calloc(mn + 1, sizeof(int));
    REQUIRE(ref && ipiv && rpiv, "out of memory");
    if (zero_col >= 0)
        for (int r = 0; r < m; r++)
            a[r + (long)zero_col * ld] = 0;
    memcpy(ref, a, sizeof(double) * ld * n);
    int rinfo = ref_getrf(m, n, ref, ld, rpiv);
    int info = hyt_core_dgetrf_seq(m, n, a, ld, ipiv);
    CHECK(info == rinfo, "dgetrf_seq %d x %d: info %d, reference %d", m, n, info, rinfo);
    int q = pivot_diff(ipiv, rpiv, mn, 0);
    CHECK(q < 0, "dgetrf_seq %d x %d: ipiv[%d] = %d, reference %d", m, n, q, ipiv[q], rpiv[q]);
    double e = relerr(m, n, a, ld, ref, ld);
    CHECK(e < TOL, "dgetrf_seq %d x %d: relative error %.3g", m, n, e);
    free(a);
    free(ref);
    free(ipiv);
    free(rpiv);
}

/* NaN below the diagonal of the first column (rows nan_rows[0..nn)), the largest |a| of that
 * column at its last row: LAPACK's pivots (NaN never a candidate below the diagonal), where
 * OpenBLAS's idamax (0.3.21) answers a NaN's index or a smaller entry. */
static void check_getrf_seq_nan(int m, int n, const int *nan_rows, int nn)
{
    int ld = m, mn = m < n ? m : n;
    double *a = random_matrix(m, n, ld), *ref = malloc(sizeof(double) * ld * n);
    int *ipiv = calloc(mn + 1, sizeof(int)), *rpiv = calloc(mn + 1, sizeof(int));
    REQUIRE(ref && ipiv && rpiv, "out of memory");
    for (int q = 0; q < nn; q++)
        a[nan_rows[q]] = NAN;
    a[m - 1] = 4.0;
    memcpy(ref, a, sizeof(double) * ld * n);
    ref_getrf(m, n, ref, ld, rpiv);
    hyt_core_dgetrf_seq(m, n, a, ld, ipiv);
    CHECK(ipiv[0] == m, "dgetrf_seq %d x %d, NaN at row %d: ipiv[0] = %d, LAPACK's %d", m, n,
          nan_rows[0], ipiv[0], m);
    int q = pivot_diff(ipiv, rpiv, mn, 0);
    CHECK(q < 0, "dgetrf_seq %d x %d, NaN at row %d: ipiv[%d] = %d, reference %d", m, n,
          nan_rows[0], q, ipiv[q], rpiv[q]);
    free(a);
    free(ref);
    free(ipiv);
    free(rpiv);
}

/* ---- hyt_insert_dgetrf_rec: panel k of a CCRB matrix as a gang task of nthreads ------------- */
static void check_getrf_rec(hyt_context_t *ctx, int m, int n, int nb, int k, int nthreads,
                            int zero_col)
{
    hyt_desc_t A;
    REQUIRE(!hyt_desc_create(ctx, m, n, nb, &A), "%s", hyt_last_error());
    double *a = random_matrix(m, n, m), *ref = malloc(sizeof(double) * m * n);
    int mn = m < n ? m : n, *ipiv = calloc(mn, sizeof(int)), *rpiv = calloc(nb, sizeof(int));
    REQUIRE(ref && ipiv && rpiv, "out of memory");
    int r0 = k * nb, w = hyt_tile_nb(&A, k), rows = m - r0, info = 0;
    if (zero_col >= 0)
        for (int r = r0; r < m; r++)
            a[r + (long)(r0 + zero_col) * m] = 0;
    desc_set(&A, a);
    memcpy(ref, a, sizeof(double) * m * n);
    int rinfo = ref_getrf(rows, w, ref + r0 + (long)r0 * m, m, rpiv);

    hyt_sequence_t *seq;
    hyt_tokens_t *tok = hyt_tokens_create(1);
    REQUIRE(tok && !hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());
    hyt_tag_t tag = {0, k, k, k};
    int rc = hyt_insert_dgetrf_rec(seq, tag, &A, k, ipiv, &info, nthreads, hyt_token(tok, 0));
    rc = hyt_sequence_finish(seq, rc);
    hyt_tokens_destroy(tok);
    CHECK(!rc, "dgetrf_rec: %s", hyt_last_error());

    const char *what = "dgetrf_rec";
    CHECK(info == (rinfo ? r0 + rinfo : 0),
          "%s %d x %d nb %d k %d, %d threads: info %d, reference %d", what, m, n, nb, k,
          nthreads, info, rinfo ? r0 + rinfo : 0);
    int q = pivot_diff(ipiv + r0, rpiv, rows < w ? rows : w, r0);
    CHECK(q < 0, "%s %d x %d nb %d k %d, %d threads: ipiv[%d] = %d, reference %d", what, m, n,
          nb, k, nthreads, r0 + q, ipiv[r0 + q], r0 + rpiv[q]);
    double *got = malloc(sizeof(double) * m * n);
    REQUIRE(got, "out of memory");
    desc_get(&A, got);
    double e = relerr(rows, w, got + r0 + (long)r0 * m, m, ref + r0 + (long)r0 * m, m);
    CHECK(e < TOL, "%s %d x %d nb %d k %d, %d threads: relative error %.3g", what, m, n, nb, k,
          nthreads, e);
    /* outside the panel nothing changes */
    int same = 1;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < m; r++)
            if ((c < r0 || c >= r0 + w || r < r0) && got[r + (long)c * m] != a[r + (long)c * m])
                same = 0;
    CHECK(same, "%s %d x %d nb %d k %d: an entry outside the panel changed", what, m, n, nb, k);
    free(got);
    free(a);
    free(ref);
    free(ipiv);
    free(rpiv);
    hyt_desc_destroy(&A);
}

/* ---- hyt_core_dlaswp: interchanges r1..r2 on one tile column, forward and backward -------- */
static void check_dlaswp(hyt_context_t *ctx, int m, int n, int nb, int j, int r1, int r2)
{
    hyt_desc_t A;
    REQUIRE(!hyt_desc_create(ctx, m, n, nb, &A), "%s", hyt_last_error());
    double *a = random_matrix(m, n, m), *got = malloc(sizeof(double) * m * n);
    int *ipiv = calloc(m, sizeof(int));
    REQUIRE(got && ipiv, "out of memory");
    for (int r = r1; r < r2; r++)
        ipiv[r] = r + 1 + test_randint(&rng, m - r); /* LAPACK's: a row at or below r */
    int c0 = j * nb, c1 = c0 + hyt_tile_nb(&A, j);
    for (int incx = 1; incx >= -1; incx -= 2) {
        desc_set(&A, a);
        hyt_core_dlaswp(&A, j, r1, r2, ipiv, incx);
        desc_get(&A, got);
        double *ref = malloc(sizeof(double) * m * n);
        REQUIRE(ref, "out of memory");
        memcpy(ref, a, sizeof(double) * m * n);
        for (int q = 0; q < r2 - r1; q++) {
            int r = incx > 0 ? r1 + q : r2 - 1 - q;
            swap_rows(ref, m, r, ipiv[r] - 1, c0, c1);
        }
        CHECK(!memcmp(got, ref, sizeof(double) * m * n),
              "dlaswp %d x %d nb %d, column %d, rows %d..%d, incx %d: differs from the reference",
              m, n, nb, j, r1, r2, incx);
        free(ref);
    }
    free(a);
    free(got);
    free(ipiv);
    hyt_desc_destroy(&A);
}

/* ---- hyt_core_dgessm: swaps, A_kj = inv(L_kk) A_kj, A_ij -= L_ik A_kj ---------------------- */
static void check_dgessm(hyt_context_t *ctx, int lapack, int m, int n, int nb, int k, int j1,
                         int j2, int i1, int i2, int what)
{
    int ld = m + 2;
    double *store = NULL;
    hyt_desc_t A;
    if (lapack) {
        store = random_matrix(m, n, ld);
        REQUIRE(!hyt_desc_lapack(m, n, nb, store, ld, &A), "bad view");
    } else {
        REQUIRE(!hyt_desc_create(ctx, m, n, nb, &A), "%s", hyt_last_error());
    }
    double *a = random_matrix(m, n, m), *ref = malloc(sizeof(double) * m * n);
    double *got = malloc(sizeof(double) * m * n);
    int mn = m < n ? m : n, *ipiv = calloc(mn, sizeof(int));
    REQUIRE(ref && got && ipiv, "out of memory");
    int r0 = k * nb, dk = hyt_tile_mb(&A, k) < hyt_tile_nb(&A, k) ? hyt_tile_mb(&A, k)
                                                                  : hyt_tile_nb(&A, k);
    for (int c = r0; c < r0 + dk; c++) /* a well-conditioned unit lower L_kk */
        for (int r = c + 1; r < r0 + dk; r++)
            a[r + (long)c * m] *= 0.1;
    int r2 = (k + 1) * nb < mn ? (k + 1) * nb : mn;
    for (int r = r0; r < r2; r++)
        ipiv[r] = r + 1 + test_randint(&rng, m - r);
    desc_set(&A, a);
    hyt_core_dgessm(&A, k, j1, j2, i1, i2, ipiv, mn, what);
    desc_get(&A, got);

    memcpy(ref, a, sizeof(double) * m * n);
    int c0 = j1 * nb, c1 = j2 * nb < n ? j2 * nb : n;
    if (what & HYT_GESSM_SOLVE) {
        for (int r = r0; r < r2; r++)
            swap_rows(ref, m, r, ipiv[r] - 1, c0, c1);
        for (int c = c0; c < c1; c++) /* forward substitution with the unit lower L_kk */
            for (int r = r0; r < r0 + dk; r++)
                for (int b = r0; b < r; b++)
                    ref[r + (long)c * m] -= ref[r + (long)b * m] * ref[b + (long)c * m];
    }
    if (what & HYT_GESSM_GEMM) {
        int e1 = i2 * nb < m ? i2 * nb : m;
        for (int c = c0; c < c1; c++)
            for (int r = i1 * nb; r < e1; r++)
                for (int b = r0; b < r0 + dk; b++)
                    ref[r + (long)c * m] -= ref[r + (long)b * m] * ref[b + (long)c * m];
    }
    double e = relerr(m, n, got, m, ref, m);
    CHECK(e < TOL, "dgessm (%s) %d x %d nb %d k %d, columns %d..%d, rows %d..%d, what %d: "
                   "relative error %.3g",
          lapack ? "LAPACK" : "CCRB", m, n, nb, k, j1, j2, i1, i2, what, e);
    free(a);
    free(ref);
    free(got);
    free(ipiv);
    free(store);
    if (!lapack)
        hyt_desc_destroy(&A);
}

/* ---- hyt_core_dtrtri_ul: inv(unit lower L), the rest of the nb x nb buffer zero ------------- */
static void check_dtrtri(int n, int nb)
{
    int ldl = nb + 2, ldinv = nb + 1;
    double *L = random_matrix(nb, nb, ldl), *Linv = malloc(sizeof(double) * ldinv * nb);
    REQUIRE(Linv, "out of memory");
    for (int c = 0; c < nb; c++)
        for (int r = 0; r < nb; r++) {
            L[r + (long)c * ldl] *= r > c ? 0.1 : 100; /* diagonal and upper part: ignored */
            Linv[r + (long)c * ldinv] = NAN;
        }
    hyt_core_dtrtri_ul(n, L, ldl, Linv, ldinv, nb);
    double worst = 0;
    int zero = 1;
    for (int c = 0; c < nb; c++)
        for (int r = 0; r < nb; r++) {
            double x = Linv[r + (long)c * ldinv];
            if (r >= n || c >= n) {
                zero &= x == 0;
                continue;
            }
            /* (Linv * unit lower L)(r, c) - I(r, c) */
            double s = (r == c ? -1.0 : 0.0) + x;
            for (int b = c + 1; b < n; b++)
                s += Linv[r + (long)b * ldinv] * L[b + (long)c * ldl];
            worst = fmax(worst, fabs(s));
        }
    CHECK(zero, "dtrtri n %d nb %d: the part outside n x n is not zero", n, nb);
    CHECK(worst < TOL, "dtrtri n %d nb %d: |Linv L - I| = %.3g", n, nb, worst);
    free(L);
    free(Linv);
}

int main(void)
{
    /* one thread, LAPACK layout: square, tall, wide, 1 x 1, a zero column (INFO) */
    int shapes[][2] = {{1, 1}, {1, 5}, {5, 1}, {5, 3}, {3, 5}, {17, 17}, {40, 13}, {13, 40},
                       {64, 64}, {100, 37}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        check_getrf_seq(shapes[s][0], shapes[s][1], -1);
    check_getrf_seq(30, 20, 4);
    check_getrf_seq(30, 20, 0);
    static const int nan_rows[][3] = {{2}, {1}, {12}, {5, 9, 40}, {70, 3}};
    static const int nan_shapes[][3] = {{8, 3, 1}, {8, 8, 1}, {16, 4, 1}, {64, 5, 3}, {100, 20, 2}};
    for (int s = 0; s < 5; s++)
        check_getrf_seq_nan(nan_shapes[s][0], nan_shapes[s][1], nan_rows[s], nan_shapes[s][2]);

    hyt_context_t *ctx = test_context(4, "none", NULL);
    /* gang panels: edge tiles, a narrow last column, a panel wider than tall, INFO */
    for (int t = 1; t <= 4; t++) {
        check_getrf_rec(ctx, 70, 40, 16, 0, t, -1);
        check_getrf_rec(ctx, 70, 40, 16, 1, t, -1);
        check_getrf_rec(ctx, 70, 40, 16, 2, t, -1);
        check_getrf_rec(ctx, 37, 37, 8, 3, t, -1);
        check_getrf_rec(ctx, 20, 40, 16, 1, t, -1);
        check_getrf_rec(ctx, 70, 40, 16, 1, t, 5);
    }

    check_dlaswp(ctx, 50, 30, 8, 1, 5, 29);
    check_dlaswp(ctx, 50, 30, 8, 3, 0, 50);
    check_dlaswp(ctx, 300, 40, 32, 0, 10, 300); /* more than 256 interchanges */
    check_dlaswp(ctx, 50, 30, 8, 2, 7, 7);

    for (int lapack = 0; lapack <= 1; lapack++) {
        int whats[] = {HYT_GESSM_SOLVE | HYT_GESSM_GEMM, HYT_GESSM_SOLVE, HYT_GESSM_GEMM};
        for (int w = 0; w < 3; w++) {
            check_dgessm(ctx, lapack, 70, 60, 16, 1, 2, 4, 2, 5, whats[w]);
            check_dgessm(ctx, lapack, 70, 60, 16, 0, 1, 3, 1, 3, whats[w]);
        }
        check_dgessm(ctx, lapack, 40, 70, 16, 2, 3, 5, 3, 3, HYT_GESSM_SOLVE | HYT_GESSM_GEMM);
    }

    check_dtrtri(1, 16);
    check_dtrtri(5, 16);
    check_dtrtri(16, 16);
    check_dtrtri(0, 8);

    hyt_context_destroy(ctx);
    return test_result("test_cpu_kernels");
}
