/*
 * The native panel LU (hyt_gpu_dgetrf_crrb: gpu_dgetrf_crrb.c, gpu_dgetrf_leaf.cu) against
 * the CPU reference hyt_core_dgetrf_seq (LAPACK's pivot rule) on row-major CRRB panels.
 *
 * Checked on every case: the pivots identical to the reference's, INFO identical, and (finite
 * data) the backward error ||PA - LU||_1 / (||A||_1 n eps) < 30, not bitwise equality.  Shapes:
 * m < nb, m not a multiple of anything, n = 1, n not a multiple of the leaf width, n > m (the
 * extra columns' U), tall panels whose rows do not fit in registers, 1, a few and the default
 * number of CTAs, leaves in one thread-block cluster and cooperative leaves in one panel, leaves
 * of at most 512 rows in one CTA, nodes of at most 512 rows in one short-panel launch (the whole
 * panel, a right half after taller leaves, columns outside the node on its left or right).
 * Data: random; many equal |values| across rows, threads and CTAs (the first row must win);
 * exact zero columns (INFO, no scaling by zero); NaN and Inf (pivots in range, no hang).
 *
 * Without arguments it runs on a host device (the reference against itself through the
 * dispatcher: arguments, workspace, the task plumbing); with 'cuda' on the first GPU, exiting
 * 77 when the build has no CUDA or no GPU is usable.
 */
#include "config.h"
#include "hyt_cpu_kernels.h"
#include "hyt_gpu_geometry.h"
#include "hyt_dev_test.h"
#include "hyt_gpu_kernels.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if HYT_HAVE_CUDA
#include <cuda_runtime.h>
#define CU(call) REQUIRE((call) == cudaSuccess, "%s: %s", #call, cudaGetErrorString(call))
#endif

typedef struct pcase {
    int m, n, nb, nctas;
    int kind; /* 0 random, 1 ties (+-1 entries; few columns), 2 zero columns, 3 NaN / Inf,
               * 4 ties in the first column (equal largest values far apart) */
} pcase_t;

typedef struct run_args {
    double *A;
    int m, n, nb, nctas;
    int *ipiv, *info;
    void *work;
} run_args_t;

static int run_body(const hyt_devctx_t *dc, void *p)
{
    run_args_t *a = p;
    return forward(dc, hyt_gpu_dgetrf_crrb(dc, a->A, a->m, a->n, a->nb, a->ipiv, a->info,
                                           a->work, a->nctas));
}

static const hyt_kernel_t run_kernel = {.name = "dgetrf_crrb", .dev = run_body,
                                        .cat = HYT_CAT_PANEL};

/* The panel (m rows of nb doubles), to the device, factored there on the panel stream, back
 * with its pivots and INFO.  0 or the first error. */
static int dev_panel(hyt_context_t *ctx, double *hA, int *hpiv, int *hinfo, const pcase_t *c)
{
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    const int dk = c->m < c->n ? c->m : c->n;
    size_t abytes = (size_t)c->m * c->nb * sizeof(double), pbytes = (size_t)(dk + 1) * sizeof(int);
    size_t wbytes = hyt_gpu_dgetrf_crrb_work(dev, c->m, c->n);
    void *A = NULL, *piv = NULL, *info = NULL, *work = NULL;
    hyt_sequence_t *seq = NULL;
    int rc = hyt_device_malloc(dev, &A, abytes);
    if (!rc)
        rc = hyt_device_malloc(dev, &piv, pbytes);
    if (!rc)
        rc = hyt_device_malloc(dev, &info, sizeof(int));
    if (!rc)
        rc = hyt_device_malloc(dev, &work, wbytes ? wbytes : 1);
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        run_args_t a = {A, c->m, c->n, c->nb, c->nctas, piv, info, work};
        hyt_dep_t deps[3] = {{A, HYT_RW}, {piv, HYT_WRITE}, {info, HYT_WRITE}};
        rc = insert_copy(seq, A, hA, abytes, 0);
        if (!rc)
            rc = insert_dev(seq, &run_kernel, &a, sizeof a, HYT_STREAM_PANEL, deps, 3);
        if (!rc)
            rc = insert_copy(seq, hA, A, abytes, 1);
        if (!rc && dk > 0)
            rc = insert_copy(seq, hpiv, piv, (size_t)dk * sizeof(int), 1);
        if (!rc)
            rc = insert_copy(seq, hinfo, info, sizeof(int), 1);
        rc = hyt_sequence_finish(seq, rc);
    }
    hyt_device_free(dev, A);
    hyt_device_free(dev, piv);
    hyt_device_free(dev, info);
    hyt_device_free(dev, work);
    return rc;
}

static void make_panel(test_rng_t *rng, const pcase_t *c, double *A)
{
    const int m = c->m, n = c->n, nb = c->nb;
    for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < nb; j++) {
            double x = test_uniform(rng);
            if (c->kind == 1) /* +-1: ties everywhere, and small dyadic values for a few steps
                               * (exact on both sides: the ties stay ties) */
                x = test_randint(rng, 2) ? 1.0 : -1.0;
            A[r * nb + j] = j < n ? x : 7.0; /* beyond n: must stay as they are */
        }
    if (c->kind == 2) /* exact zero columns: the second, the 33rd and the last */
        for (int64_t r = 0; r < m; r++) {
            A[r * nb + (n > 1)] = 0.0;
            if (n > 33)
                A[r * nb + 33] = 0.0;
            A[r * nb + n - 1] = 0.0;
        }
    if (c->kind == 3) { /* NaN and Inf here and there, NaN on a diagonal too */
        for (int q = 0; q < 6; q++) {
            int64_t r = test_randint(rng, m), j = test_randint(rng, n);
            A[r * nb + j] = q & 1 ? NAN : (q & 2 ? -INFINITY : INFINITY);
        }
        if (m > 5 && n > 5)
            A[5 * nb + 5] = NAN;
    }
    if (c->kind == 4) /* the first column's largest |value| at rows far apart, both signs */
        for (int q = 0; q < 8; q++) {
            int64_t r = (int64_t)(m - 1) * (7 - q) / 7;
            A[r * nb] = q & 1 ? -4.0 : 4.0;
        }
}

static int all_finite(const double *A, int m, int n, int nb)
{
    for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < n; j++)
            if (!isfinite(A[r * nb + j]))
                return 0;
    return 1;
}

/* The 1-norm of the m x n matrix X (element (r, j) at r*ld + j). */
static double norm1(const double *X, int m, int n, int64_t ld)
{
    double nrm = 0.0;
    for (int64_t j = 0; j < n; j++) {
        double s = 0.0;
        for (int64_t r = 0; r < m; r++)
            s += fabs(X[r * ld + j]);
        nrm = s > nrm ? s : nrm;
    }
    return nrm;
}

/* ||P A - L U||_1 / (||A||_1 n eps) of the factored row-major panel F (pivots ipiv). */
static double backward_error(const double *A0, const double *F, const int *ipiv, int m, int n,
                             int nb)
{
    const int dk = m < n ? m : n;
    double *PA = malloc((size_t)m * n * sizeof *PA), *L = calloc((size_t)m * dk, sizeof *L);
    double *U = calloc((size_t)dk * n, sizeof *U);
    REQUIRE(PA && L && U, "out of memory");
    for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < n; j++)
            PA[r * n + j] = A0[r * nb + j];
    for (int q = 0; q < dk; q++) { /* the interchanges in order */
        int p = ipiv[q] - 1;
        for (int64_t j = 0; j < n && p != q; j++) {
            double t = PA[(int64_t)q * n + j];
            PA[(int64_t)q * n + j] = PA[(int64_t)p * n + j];
            PA[(int64_t)p * n + j] = t;
        }
    }
    const double anorm = norm1(A0, m, n, nb);
    for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < dk; j++)
            L[r * dk + j] = r == j ? 1.0 : r > j ? F[r * nb + j] : 0.0;
    for (int64_t r = 0; r < dk; r++)
        for (int64_t j = r; j < n; j++)
            U[r * n + j] = F[r * nb + j];
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, dk, -1.0, L, dk, U, n, 1.0, PA,
                n);
    const double rnorm = norm1(PA, m, n, n);
    free(PA);
    free(L);
    free(U);
    return anorm > 0.0 ? rnorm / (anorm * n * DBL_EPSILON) : rnorm;
}

static void run_case(hyt_context_t *ctx, test_rng_t *rng, const pcase_t *c)
{
    const int m = c->m, n = c->n, nb = c->nb, dk = m < n ? m : n;
    size_t len = (size_t)m * nb;
    double *A0 = malloc(len * sizeof *A0), *R = malloc(len * sizeof *R);
    double *work = malloc(((size_t)m * n + 1) * sizeof *work);
    double *F = hyt_host_malloc(ctx, len * sizeof *F);
    int *rpiv = malloc((size_t)(dk + 1) * sizeof *rpiv);
    int *piv = hyt_host_malloc(ctx, (size_t)(dk + 1) * sizeof *piv);
    int *info = hyt_host_malloc(ctx, sizeof *info);
    REQUIRE(A0 && R && work && F && rpiv && piv && info, "out of memory");
    make_panel(rng, c, A0);
    memcpy(R, A0, len * sizeof *R);
    memcpy(F, A0, len * sizeof *F);
    for (int q = 0; q <= dk; q++)
        piv[q] = -99;
    *info = -99;
    int rinfo = hyt_ref_dgetrf_crrb(R, m, n, nb, rpiv, work);
    int rc = dev_panel(ctx, F, piv, info, c);
    char label[128];
    snprintf(label, sizeof label, "%d x %d (nb %d, %d CTAs, kind %d)", m, n, nb, c->nctas,
             c->kind);
    CHECK(rc == 0, "%s: %s: %s", label, hyt_strerror(rc), hyt_last_error());
    if (!rc) {
        int same = 0, first = -1;
        for (int q = 0; q < dk; q++)
            if (piv[q] == rpiv[q])
                same++;
            else if (first < 0)
                first = q;
        CHECK(same == dk, "%s: %d of %d pivots differ from the reference, the first at %d (%d, "
              "reference %d)", label, dk - same, dk, first, first >= 0 ? piv[first] : 0,
              first >= 0 ? rpiv[first] : 0);
        CHECK(*info == rinfo, "%s: INFO %d, reference %d", label, *info, rinfo);
        int kept = 1;
        for (int64_t r = 0; r < m; r++)
            for (int64_t j = n; j < nb; j++)
                kept &= F[r * nb + j] == 7.0;
        CHECK(kept, "%s: wrote columns beyond n", label);
        if (all_finite(A0, m, n, nb)) {
            double be = backward_error(A0, F, piv, m, n, nb);
            CHECK(be < 30.0, "%s: backward error %.3g", label, be);
        } else {
            int in_range = 1;
            for (int q = 0; q < dk; q++)
                in_range &= piv[q] >= q + 1 && piv[q] <= m;
            CHECK(in_range, "%s: pivots out of range", label);
        }
    }
    free(A0);
    free(R);
    free(work);
    free(rpiv);
    hyt_host_free(ctx, F);
    hyt_host_free(ctx, piv);
    hyt_host_free(ctx, info);
}

/* The leaf's launch geometry (plain C, checked on every machine): CTAs within the request,
 * registers enough for every row or none, the workspace enough for the CTAs. */
static void test_geometry(void)
{
    static const int64_t rows[] = {1, 31, 64, 65, 1000, 4096, 32768, 65537, 262144, 1 << 22};
    static const int req[] = {1, 7, 132, 264, 4096};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (size_t j = 0; j < sizeof req / sizeof req[0]; j++) {
            int c = hyt_panel_leaf_ctas(rows[i], req[j]);
            CHECK(c >= 1 && c <= req[j], "%lld rows, %d CTAs asked: %d", (long long)rows[i],
                  req[j], c);
            int rpt = hyt_panel_leaf_rpt(rows[i], c);
            int64_t tt = (int64_t)c * HYT_PANEL_LEAF_THREADS;
            CHECK(rpt == 0 ? (rows[i] + tt - 1) / tt > HYT_PANEL_LEAF_RPT_MAX
                           : rpt * tt >= rows[i] && rpt <= HYT_PANEL_LEAF_RPT_MAX &&
                                 (rpt & (rpt - 1)) == 0 && HYT_PANEL_LEAF_W % rpt == 0,
                  "%lld rows on %d CTAs: %d rows per thread", (long long)rows[i], c, rpt);
            size_t need = (2 * (size_t)c * 33 + 64) * sizeof(double) + 2 * (size_t)c * sizeof(int);
            CHECK(hyt_panel_leaf_slots_bytes(rows[i]) >= need &&
                      hyt_panel_leaf_slots_bytes(rows[i]) % 256 == 0 &&
                      hyt_panel_leaf_ws_bytes(rows[i]) >= hyt_panel_leaf_slots_bytes(rows[i]) +
                          (size_t)rows[i] * HYT_PANEL_LEAF_W * sizeof(double),
                  "%lld rows: workspace too small", (long long)rows[i]);
            CHECK(hyt_panel_leaf_grid_bytes(rows[i]) <= hyt_panel_leaf_slots_bytes(rows[i]),
                  "%lld rows: the grid kernel's words beyond the slots", (long long)rows[i]);
            /* the short-panel kernel's L copies: R x w doubles, w <= R <= min(rows, 512) */
            const int64_t sr = rows[i] < HYT_PANEL_LEAF_THREADS ? rows[i] : HYT_PANEL_LEAF_THREADS;
            CHECK(hyt_panel_leaf_ws_bytes(rows[i]) >= hyt_panel_leaf_slots_bytes(rows[i]) +
                      (size_t)(sr * sr) * sizeof(double),
                  "%lld rows: workspace too small for the short-panel kernel", (long long)rows[i]);
        }
}

/* The trace behind the leaves' composed interchanges (leaf_compose): against the interchanges
 * applied one by one to the rows' names, on random pivots (each piv[q] >= r0 + q, some below
 * the block, repeats). */
static void test_trace_back(void)
{
    unsigned long long s = 12345;
    for (int t = 0; t < 2000; t++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const int r0 = (int)((s >> 40) % 100), cnt = 1 + (int)((s >> 20) % 32);
        const int span = (s >> 50) % 4 == 0 ? 0 : (int)((s >> 10) % 70);
        int piv[32], at[200]; /* at[r]: the row that is now at r */
        for (int r = 0; r < 200; r++)
            at[r] = r;
        for (int q = 0; q < cnt; q++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            piv[q] = r0 + q + (span ? (int)((s >> 33) % (unsigned)(span + 1)) : 0);
            const int tmp = at[r0 + q];
            at[r0 + q] = at[piv[q]];
            at[piv[q]] = tmp;
        }
        for (int q = 0; q < cnt; q++) {
            int xa = r0 + q, xb = piv[q];
            hyt_panel_trace_back(piv, r0, cnt, &xa, &xb);
            CHECK(xa == at[r0 + q] && xb == at[piv[q]],
                  "trace back, r0 %d, %d pivots: row %d from %d (not %d), row %d from %d (not %d)",
                  r0, cnt, r0 + q, xa, at[r0 + q], piv[q], xb, at[piv[q]]);
        }
    }
}

#if HYT_HAVE_CUDA
/* The panel's row solve (hyt_cuda_dtrsm_crrb) alone against CBLAS's DTRSM (row-major, left,
 * lower, unit) on blocks of a random panel: X within 8 w1 eps of CBLAS's (L has entries of at
 * most 1 / w1: well conditioned), every entry outside X unchanged to the bit, an entry finite
 * exactly where CBLAS's is (with NaN and Inf in X; which of the two depends on the order of the
 * sums).  Shapes: partial blocks of 32 rows and of the kernel's 8 right-hand sides, X right of
 * L and left of it in the panel, the largest order; X in a buffer of its own (ldx != nb) and
 * the identity there (the GPU panel's inv(L_kk)); then bad arguments. */
static void test_row_solve(hyt_context_t *ctx, test_rng_t *rng)
{
    static const int cases[][6] = { /* w1, w2, j0, c0, nb, X: 0 in the panel, 1 a buffer of
                                     * random entries, 2 the identity in a buffer */
        {1, 1, 0, 1, 2, 0},          {31, 7, 0, 31, 40, 0},     {32, 8, 0, 32, 64, 0},
        {33, 9, 3, 40, 60, 0},       {64, 64, 64, 128, 512, 0}, {100, 3, 7, 107, 110, 0},
        {300, 800, 0, 300, 1152, 0}, {512, 512, 0, 512, 1024, 0}, {512, 17, 512, 0, 1024, 0},
        {96, 40, 200, 0, 300, 0},    {200, 30, 0, 200, 230, 0}, {77, 50, 5, 0, 90, 1},
        {512, 512, 0, 0, 512, 2},    {300, 300, 0, 0, 512, 2},  {1, 1, 0, 0, 1, 2},
    };
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int w1 = cases[i][0], w2 = cases[i][1], j0 = cases[i][2], nb = cases[i][4];
        const int sep = cases[i][5], m = j0 + w1;
        const int c0 = sep ? 0 : cases[i][3], ldx = sep == 1 ? w2 + 3 : nb;
        const int nan = i == 9; /* a NaN and an Inf in X */
        /* the panel (and X, unless sep), then X's buffer */
        const size_t lenp = (size_t)m * nb, len = lenp + (sep ? (size_t)w1 * ldx : 0);
        double *A = malloc(len * sizeof *A), *R = malloc(len * sizeof *R), *dA;
        REQUIRE(A && R, "out of memory");
        for (size_t e = 0; e < len; e++)
            A[e] = sep == 2 && e >= lenp ? ((e - lenp) % (ldx + 1) == 0) : test_uniform(rng);
        for (int r = 0; r < w1; r++) /* L: off-diagonal entries of at most 1 / w1 */
            for (int c = 0; c < r; c++)
                A[(size_t)(j0 + r) * nb + j0 + c] /= w1;
        const size_t x0 = sep ? lenp : (size_t)j0 * nb + c0; /* X's first entry */
        const int ld = sep ? ldx : nb;
        if (nan) {
            A[x0 + (size_t)1 * ld + 2] = NAN;
            A[x0 + (size_t)5 * ld + 7] = INFINITY;
        }
        CU(cudaMalloc((void **)&dA, len * sizeof *A));
        CU(cudaMemcpy(dA, A, len * sizeof *A, cudaMemcpyHostToDevice));
        int rc = hyt_cuda_dtrsm_crrb(dev, NULL, dA + (size_t)j0 * nb + j0, nb, dA + x0, ld, w1,
                                     w2);
        REQUIRE(!rc, "hyt_cuda_dtrsm_crrb: %s", hyt_last_error());
        CU(cudaMemcpy(R, dA, len * sizeof *R, cudaMemcpyDeviceToHost));
        CU(cudaFree(dA));
        double *X = A + x0;
        int outside = 0, bad_nan = 0;
        for (size_t e = 0; e < len; e++) { /* outside X: the input's bits */
            const int in = e >= x0 && (e - x0) / ld < (size_t)w1 && (e - x0) % ld < (size_t)w2;
            if (!in && memcmp(&A[e], &R[e], sizeof *A))
                outside++;
        }
        cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, w1, w2, 1.0,
                    A + (size_t)j0 * nb + j0, nb, X, ld);
        double err = 0.0, nrm = 0.0;
        for (int r = 0; r < w1; r++)
            for (int c = 0; c < w2; c++) {
                const double x = X[(size_t)r * ld + c], y = R[x0 + (size_t)r * ld + c];
                if (isfinite(x) && isfinite(y)) {
                    err = fmax(err, fabs(x - y));
                    nrm = fmax(nrm, fabs(x));
                } else if (isfinite(x) != isfinite(y)) { /* NaN or Inf: the order decides */
                    bad_nan++;
                }
            }
        CHECK(!outside, "row solve %d x %d at (%d, %d), nb %d, X %d: %d entries outside X "
              "changed", w1, w2, j0, c0, nb, sep, outside);
        CHECK(err <= 8.0 * w1 * DBL_EPSILON * fmax(nrm, 1.0),
              "row solve %d x %d at (%d, %d), nb %d, X %d: %.3g from CBLAS's (|X| %.3g)", w1, w2,
              j0, c0, nb, sep, err, nrm);
        CHECK(!bad_nan, "row solve %d x %d: %d entries finite on one side only", w1, w2, bad_nan);
        free(A);
        free(R);
    }
    double x;
    CHECK(hyt_cuda_dtrsm_crrb(dev, NULL, NULL, 64, &x, 64, 1, 1) == HYT_ERR_INVALID &&
              hyt_cuda_dtrsm_crrb(dev, NULL, &x, 64, NULL, 64, 1, 1) == HYT_ERR_INVALID &&
              hyt_cuda_dtrsm_crrb(dev, NULL, &x, 1024, &x, 1024, HYT_TRSM_CRRB_MAX_N + 1, 1) ==
                  HYT_ERR_INVALID &&
              hyt_cuda_dtrsm_crrb(dev, NULL, &x, 31, &x, 64, 32, 32) == HYT_ERR_INVALID &&
              hyt_cuda_dtrsm_crrb(dev, NULL, &x, 64, &x, 31, 32, 32) == HYT_ERR_INVALID &&
              hyt_cuda_dtrsm_crrb(dev, NULL, &x, 64, &x, 64, -1, 32) == HYT_ERR_INVALID,
          "hyt_cuda_dtrsm_crrb accepted invalid arguments");
}
#endif

int main(int argc, char **argv)
{
    use_cuda = argc > 1 && !strcmp(argv[1], "cuda");
    const int small = argc > 2 && !strcmp(argv[2], "small"); /* for compute-sanitizer */
    if ((argc > 1 && !use_cuda) || (argc > 2 && !small)) {
        fprintf(stderr, "usage: %s [cuda [small]]\n", argv[0]);
        return 2;
    }
    if (use_cuda && !HYT_HAVE_CUDA) {
        printf("test_gpu_panel cuda: skipped: hytile was built without CUDA (meson setup "
               "-Dcuda=enabled to build it)\n");
        return 77;
    }
    hyt_config_t *cfg;
    hyt_context_t *ctx;
    REQUIRE(!hyt_config_create(&cfg), "config");
    REQUIRE(!hyt_config_set(cfg, "runtime.workers", "2", HYT_SRC_API, NULL) &&
            !hyt_config_set(cfg, "runtime.devices", use_cuda ? "cuda:0" : "host:1", HYT_SRC_API,
                            NULL), "%s", hyt_last_error());
    int rc = hyt_context_create(cfg, &ctx);
    hyt_config_destroy(cfg);
    if (rc && use_cuda) {
        printf("test_gpu_panel cuda: skipped: no usable GPU (%s)\n", hyt_last_error());
        return 77;
    }
    REQUIRE(!rc, "context: %s", hyt_last_error());
#if HYT_HAVE_CUDA
    test_rng_t srng = {99};
    if (use_cuda)
        test_row_solve(ctx, &srng);
#endif
    if (!use_cuda) {
        test_geometry();
        test_trace_back();
    }

    static const pcase_t fixed[] = {
        {1, 1, 1, 0, 0},      {5, 1, 4, 0, 0},      {7, 3, 3, 0, 0},       {20, 32, 32, 0, 0},
        {31, 32, 32, 2, 0},   {100, 33, 40, 0, 0},  {33, 64, 64, 0, 0},    {1000, 64, 64, 0, 0},
        {777, 100, 128, 3, 0}, {3000, 256, 256, 0, 0}, {3001, 255, 256, 1, 0},
        {20000, 96, 128, 7, 0}, {5000, 512, 512, 0, 0}, {70000, 64, 64, 0, 0},
        {4000, 4, 64, 0, 1},  {4000, 6, 8, 5, 1},    {9000, 8, 8, 0, 1},   {600, 3, 600, 0, 1},
        {2500, 70, 96, 0, 2}, {40, 40, 40, 1, 2},   {3000, 100, 128, 0, 3}, {64, 64, 64, 2, 3},
        {30000, 32, 32, 0, 4}, {30000, 50, 64, 9, 4}, {1024, 1, 1, 0, 4},   {1000, 1, 8, 0, 3},
        /* several rows a thread (more than 4 x nctas CTAs' worth of rows, or the grid kernel's
         * CTAs not all resident: 70000 rows), columns in sub-blocks of 4 (with NaN / Inf), 8
         * (70000 rows on 40 CTAs) and 16 (70000 on every SM, above), zero columns; 16 rows a
         * thread (sub-blocks of 2, the second leaf one column wide); the tall kernel (more
         * than 16 rows a thread); 3000 x 70 on 2 CTAs: the grid kernel on 6 */
        {5000, 40, 48, 2, 3}, {3000, 70, 96, 2, 2}, {7000, 40, 64, 1, 0}, {6000, 33, 64, 1, 3},
        {14000, 40, 64, 1, 0}, {12000, 36, 40, 1, 2}, {70000, 40, 64, 40, 2},
        /* one thread-block cluster (on GPUs that launch them): 16 CTAs, the most; ties far
         * apart across its CTAs; 8193 rows: the first leaf cooperative, the second a cluster;
         * 3 CTAs allowed: clusters up to 1536 rows */
        {8192, 40, 64, 16, 4}, {8193, 33, 64, 16, 0}, {1536, 64, 64, 3, 3}, {1537, 40, 64, 3, 2},
        /* one row a thread on more CTAs than a cluster holds (the grid kernel): ties far apart,
         * NaN / Inf, zero columns, +-1 entries; 8700 x 33 in the small set */
        {9000, 64, 64, 18, 0}, {20000, 33, 64, 40, 4}, {8700, 33, 64, 17, 3},
        {12000, 70, 96, 24, 2}, {8193, 6, 8, 17, 1},
        /* leaves of at most 512 rows (one CTA): every leaf of a 512 x 512 panel; the later
         * leaves after cooperative or cluster ones, with NaN / Inf, zero columns, ties; n > m
         * (the last three not in the small set that compute-sanitizer runs: racecheck is slow) */
        {512, 512, 512, 0, 0}, {700, 290, 300, 2, 2}, {700, 600, 640, 1, 3}, {660, 480, 512, 0, 4},
        {300, 1100, 1152, 0, 0},
    };
    test_rng_t rng = {1234};
    /* host and small: not the large cases (the host runs the reference against itself) */
    const int64_t most = use_cuda && !small ? INT64_MAX : 300000;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if ((int64_t)fixed[i].m * fixed[i].n > most)
            continue;
        run_case(ctx, &rng, &fixed[i]);
    }
    for (int t = 0; t < (use_cuda && !small ? 40 : 6); t++) { /* random shapes */
        pcase_t c;
        c.nb = 1 + test_randint(&rng, use_cuda ? 300 : 80);
        c.n = 1 + test_randint(&rng, c.nb);
        c.m = 1 + test_randint(&rng, use_cuda ? 6000 : 600);
        c.nctas = test_randint(&rng, 4) ? 0 : 1 + test_randint(&rng, 40);
        c.kind = test_randint(&rng, 4);
        c.kind += c.kind > 0; /* no +-1 matrices here: too many steps to stay exact */
        run_case(ctx, &rng, &c);
    }
    hyt_context_destroy(ctx);
    return test_result(use_cuda ? "test_gpu_panel (cuda:0)" : "test_gpu_panel (host:1)");
}
