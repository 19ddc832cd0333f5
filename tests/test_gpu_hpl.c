/*
 * HPL's matrix on the devices (gpu_kernels/gpu_dplghpl.cu, gpu_hpl_check.cu, ref_hpl.c):
 *   - the host references against the host generator, hyt_core_dplghpl, bit for bit (memcmp):
 *     every device's CRRB tile columns with their zero padding, and b, for n not a multiple of
 *     nb, n < nb, n = 1, 1 to 3 devices, several seeds (a negative one too);
 *   - the CUDA kernels' threads (hyt_gpu_hpl.h) run on the host, every thread of the launch:
 *     the generator and b bit for bit as above, the check's rows bit for bit as the reference;
 *     sampled states and one long row at n = 100003 (64-bit jumps past 2^32);
 *   - the dispatchers in device tasks (generator, check, norms) against the references: bit
 *     for bit; the scaled residual of a real solve (OpenBLAS dgesv on the host) within 5% of
 *     the host's computation (dgemv on the matrix, as hytile hpl) and of one in long double,
 *     a wrong x far above HPL's threshold, a NaN in x a NaN residual; argument checks; fault
 *     injection.
 * Without arguments on a host device ("host:1"); with "cuda" the device part on the first GPU
 * ("cuda:0"), exit 77 without CUDA or a usable GPU.
 */
#include "bench_common.h"
#include "config.h"
#include "hyt_cpu_kernels.h"
#include "hyt_gpu_hpl.h"
#include "hyt_gpu_kernels.h"
#include "hyt_runtime.h"
#include "hyt_test.h"
#include "hytile.h"
#include "hyt_dev_test.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdint.h>

/* The case: HPL's n x n matrix in tiles of nb over ndev devices. */
typedef struct hcase {
    int n, nb, ndev, seed;
} hcase_t;

static int64_t colsz_of(const hcase_t *h)
{
    int64_t mt = ((int64_t)h->n + h->nb - 1) / h->nb;
    return mt * h->nb * h->nb;
}
static int ncols_of(const hcase_t *h, int g)
{
    int mt = (h->n + h->nb - 1) / h->nb;
    return g < mt ? (mt - g + h->ndev - 1) / h->ndev : 0;
}
/* Doubles of device g's columns. */
static size_t len_of(const hcase_t *h, int g) { return (size_t)(ncols_of(h, g) * colsz_of(h)); }

/* The whole matrix (column-major, lda n) and b from the host generator. */
static void host_matrix(const hcase_t *h, double **A, double **b)
{
    int n = h->n;
    *A = xmalloc((size_t)n * n * sizeof **A);
    *b = xmalloc((size_t)n * sizeof **b);
    hyt_core_dplghpl(n, 0, 0, n, n, *A, n, h->seed);
    hyt_core_dplghpl(n, 0, n, n, 1, *b, n, h->seed);
}

/* Device g's columns as the LU keeps them, built element by element from A: the definition. */
static void expected_cols(const hcase_t *h, int g, const double *A, double *e)
{
    int n = h->n, nb = h->nb;
    int64_t colsz = colsz_of(h), rows = colsz / nb;
    for (int64_t l = 0; l < ncols_of(h, g); l++)
        for (int64_t R = 0; R < rows; R++)
            for (int64_t c = 0; c < nb; c++) {
                int64_t gc = (l * h->ndev + g) * nb + c;
                e[l * colsz + R * nb + c] = R < n && gc < n ? A[R + gc * n] : 0.0;
            }
}

static const hcase_t gen_cases[] = {
    {1, 1, 1, 100},   {1, 4, 2, 100},   {5, 8, 1, 7},     {5, 2, 3, 100},  {63, 32, 2, 1},
    {64, 32, 3, 100}, {65, 32, 3, 42},  {100, 7, 2, -7},  {200, 64, 1, 100}, {257, 100, 3, 5},
    {257, 1, 2, 100}, {1100, 64, 3, 100}, {300, 512, 2, 2147483647},
};
enum { NGEN = sizeof gen_cases / sizeof gen_cases[0] };

/* NaN with a recognisable payload: what nobody wrote. */
static double sentinel(void)
{
    uint64_t u = 0x7ff8dead0000beefULL;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
static void fill_sentinel(double *a, size_t n)
{
    double s = sentinel();
    for (size_t i = 0; i < n; i++)
        a[i] = s;
}

/* ============================================================================================
 * (a) the references against the host generator
 */

static void test_ref_generator(void)
{
    for (int t = 0; t < NGEN; t++) {
        const hcase_t *h = &gen_cases[t];
        double *A, *b;
        host_matrix(h, &A, &b);
        double *gb = xmalloc(((size_t)h->n + 1) * sizeof *gb);
        for (int g = 0; g < h->ndev; g++) {
            size_t len = len_of(h, g);
            double *got = xmalloc((len + 4) * sizeof *got), *e = xmalloc((len + 4) * sizeof *e);
            fill_sentinel(got, len + 4);
            fill_sentinel(e, len + 4);
            fill_sentinel(gb, (size_t)h->n + 1);
            expected_cols(h, g, A, e);
            hyt_ref_dplghpl_crrb(got, h->n, h->nb, h->ndev, g, h->seed, g == 0 ? gb : NULL);
            CHECK(!memcmp(got, e, (len + 4) * sizeof *e), "n %d nb %d device %d of %d seed %d: "
                  "the reference's columns differ from hyt_core_dplghpl's matrix", h->n, h->nb,
                  g, h->ndev, h->seed);
            if (g == 0)
                CHECK(!memcmp(gb, b, (size_t)h->n * sizeof *b) &&
                      !memcmp(gb + h->n, e + len, sizeof *b), "n %d seed %d: b differs from "
                      "column n of hyt_core_dplghpl (or written past n)", h->n, h->seed);
            free(got);
            free(e);
        }
        free(gb);
        free(A);
        free(b);
    }
}

/* ============================================================================================
 * (b) the CUDA kernels' threads, every one, on the host
 */

/* The generator's launch run thread by thread into `cols` (len doubles); returns the number
 * of elements the threads say they wrote. */
static int64_t emulate_generator(const hyt_hpl_dist_t *D, double *cols)
{
    hyt_launch_t L = {{0}, {0}};
    int g = hyt_plg_launch(D, &L);
    if (D->ncols == 0) {
        CHECK(g == 1, "no columns but a launch");
        return 0;
    }
    CHECK(g == 0 && launch_ok(&L) && L.block[0] == 32, "launch %d, grid %u %u %u", g, L.grid[0],
          L.grid[1], L.grid[2]);
    int64_t written = 0;
    for (unsigned bz = 0; bz < L.grid[2]; bz++)
        for (unsigned by = 0; by < L.grid[1]; by++)
            for (unsigned bx = 0; bx < L.grid[0]; bx++)
                for (unsigned ty = 0; ty < L.block[1]; ty++)
                    for (unsigned tx = 0; tx < L.block[0]; tx++)
                        written += hyt_plg_thread(D, cols, bx, by, bz, L.grid[1], tx, ty);
    return written;
}

static void emulate_matvec(const hyt_hpl_dist_t *D, const double *x, double *ax, double *arow)
{
    hyt_launch_t L = {{0}, {0}};
    if (hyt_plg_rhs_launch(D->n, &L))
        return;
    for (unsigned bx = 0; bx < L.grid[0]; bx++)
        for (unsigned tx = 0; tx < L.block[0]; tx++)
            hyt_hplmv_thread(D, x, ax, arow, bx, tx);
}

static void random_x(test_rng_t *rng, double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = test_uniform(rng);
}

static void test_threads(void)
{
    test_rng_t rng = {21};
    for (int t = 0; t < NGEN; t++) {
        const hcase_t *h = &gen_cases[t];
        double *A, *b;
        host_matrix(h, &A, &b);
        double *x = xmalloc((size_t)h->n * sizeof *x);
        double *ax = xmalloc((size_t)h->n * sizeof *ax), *arow = xmalloc((size_t)h->n * sizeof *ax);
        double *rax = xmalloc((size_t)h->n * sizeof *ax);
        double *rrow = xmalloc((size_t)h->n * sizeof *ax);
        random_x(&rng, x, h->n);
        for (int g = 0; g < h->ndev; g++) {
            hyt_hpl_dist_t D;
            REQUIRE(!hyt_hpl_dist_init(h->n, h->nb, h->ndev, g, h->seed, &D), "dist");
            CHECK(D.ncols == ncols_of(h, g) && D.colsz == colsz_of(h), "n %d nb %d: dist",
                  h->n, h->nb);
            size_t len = len_of(h, g);
            double *got = xmalloc((len + 4) * sizeof *got), *e = xmalloc((len + 4) * sizeof *e);
            fill_sentinel(got, len + 4);
            fill_sentinel(e, len + 4);
            expected_cols(h, g, A, e);
            int64_t w = emulate_generator(&D, got);
            /* every element written (no sentinel left), none twice (the count), none past */
            CHECK(w == (int64_t)len && !memcmp(got, e, (len + 4) * sizeof *e), "n %d nb %d "
                  "device %d of %d seed %d: the CUDA generator's threads wrote %lld of %zu "
                  "elements or other numbers than hyt_core_dplghpl", h->n, h->nb, g, h->ndev,
                  h->seed, (long long)w, len);
            free(got);
            free(e);

            emulate_matvec(&D, x, ax, arow);
            REQUIRE(!hyt_ref_hpl_matvec(h->n, h->nb, h->ndev, g, h->seed, x, rax, rrow), "ref");
            CHECK(!memcmp(ax, rax, (size_t)h->n * sizeof *ax) &&
                  !memcmp(arow, rrow, (size_t)h->n * sizeof *ax), "n %d nb %d device %d of %d: "
                  "the CUDA check's threads differ from hyt_ref_hpl_matvec", h->n, h->nb, g,
                  h->ndev);
        }
        /* b, thread by thread */
        hyt_hpl_dist_t D;
        hyt_launch_t L = {{0}, {0}};
        REQUIRE(!hyt_hpl_dist_init(h->n, h->nb, h->ndev, 0, h->seed, &D), "dist");
        double *gb = xmalloc(((size_t)h->n + 1) * sizeof *gb);
        fill_sentinel(gb, (size_t)h->n + 1);
        CHECK(hyt_plg_rhs_launch(h->n, &L) == 0 && launch_ok(&L), "b launch");
        for (unsigned bx = 0; bx < L.grid[0]; bx++)
            for (unsigned tx = 0; tx < L.block[0]; tx++)
                hyt_plg_rhs_thread(&D, gb, bx, tx);
        CHECK(!memcmp(gb, b, (size_t)h->n * sizeof *b) && isnan(gb[h->n]), "n %d seed %d: the "
              "CUDA b threads differ from hyt_core_dplghpl", h->n, h->seed);
        free(gb);
        free(A);
        free(b);
        free(x);
        free(ax);
        free(arow);
        free(rax);
        free(rrow);
    }
}

/* Large orders without the matrix: states sampled against hyt_hpl_entry (c*n past 2^32), one
 * row of the check against the entries summed in the same order, the grids. */
static void test_large(void)
{
    test_rng_t rng = {22};
    hyt_hpl_dist_t D;
    int n = 100003, nb = 256, ndev = 3, g = 1, seed = 100;
    REQUIRE(!hyt_hpl_dist_init(n, nb, ndev, g, seed, &D), "dist");
    int wrong = 0;
    for (int s = 0; s < 2000; s++) {
        int64_t r = s ? test_randint(&rng, n) : n - 1, c = s ? test_randint(&rng, n + 1) : n;
        wrong += hyt_hpl_value(hyt_hpl_state(&D, r, c)) != hyt_hpl_entry(n, r, c, seed);
    }
    CHECK(!wrong, "n %d: %d sampled entries differ from hyt_hpl_entry", n, wrong);

    double *x = xmalloc((size_t)n * sizeof *x), *ax = xmalloc((size_t)n * sizeof *ax);
    double *arow = xmalloc((size_t)n * sizeof *ax);
    random_x(&rng, x, n);
    static const int rows[] = {0, 1, 4097, 100002};
    for (int k = 0; k < 4; k++) {
        int R = rows[k];
        ax[R] = arow[R] = NAN;
        hyt_hplmv_thread(&D, x, ax, arow, (unsigned)(R / HYT_HPLMV_BLOCK),
                         (unsigned)(R % HYT_HPLMV_BLOCK));
        double s = 0, t = 0;
        for (int j = g; (int64_t)j * nb < n; j += ndev) {
            double st = 0, tt = 0;
            for (int64_t c = (int64_t)j * nb; c < (int64_t)(j + 1) * nb && c < n; c++) {
                double a = hyt_hpl_entry(n, R, c, seed);
                st = fma(a, x[c], st);
                tt += fabs(a);
            }
            s += st;
            t += tt;
        }
        CHECK(ax[R] == s && arow[R] == t, "n %d row %d: the check's thread gives %.17g %.17g, "
              "the entries %.17g %.17g", n, R, ax[R], arow[R], s, t);
    }
    free(x);
    free(ax);
    free(arow);

    /* the grids at N = 125000 and at the largest int order */
    hyt_launch_t L = {{0}, {0}};
    REQUIRE(!hyt_hpl_dist_init(125000, 512, 1, 0, 100, &D), "dist");
    CHECK(hyt_plg_launch(&D, &L) == 0 && launch_ok(&L) && L.grid[1] * L.grid[2] >= 245,
          "N 125000: generator grid");
    CHECK(hyt_plg_rhs_launch(D.n, &L) == 0 && launch_ok(&L), "N 125000: check grid");
    REQUIRE(!hyt_hpl_dist_init(2147483647, 1, 1, 0, 100, &D), "dist INT_MAX");
    CHECK(D.colsz == 2147483647LL && D.ncols == 2147483647 && hyt_plg_launch(&D, &L) == 0 &&
          launch_ok(&L) && (int64_t)L.grid[1] * L.grid[2] >= D.ncols, "n INT_MAX nb 1: grid");
    /* a grid.x of 2^36 blocks: refused (the CUDA launcher says HYT_ERR_TOO_LARGE) */
    REQUIRE(!hyt_hpl_dist_init(1 << 30, 1 << 20, 1, 0, 100, &D), "dist 2^30");
    CHECK(hyt_plg_launch(&D, &L) == -1, "n 2^30 nb 2^20: a grid beyond the limits accepted");
    CHECK(hyt_hpl_dist_init(-1, 1, 1, 0, 1, &D) && hyt_hpl_dist_init(5, 0, 1, 0, 1, &D) &&
          hyt_hpl_dist_init(5, 1, 2, 2, 1, &D) && hyt_hpl_dist_init(5, 1, 0, 0, 1, &D),
          "invalid distributions accepted");
}

/* ============================================================================================
 * (c) the dispatchers in device tasks
 */

typedef struct hpl_args {
    hcase_t h;
    int index;
    double *cols, *b;          /* generator */
    const double *x, *bb;      /* check */
    double *ax, *arow, *norms; /* check */
    int nparts;
} hpl_args_t;

static int gen_body(const hyt_devctx_t *dc, void *p)
{
    hpl_args_t *a = p;
    return forward(dc, hyt_gpu_dplghpl(dc, a->cols, a->h.n, a->h.nb, a->h.ndev, a->index,
                                       a->h.seed, a->b));
}

static int mv_body(const hyt_devctx_t *dc, void *p)
{
    hpl_args_t *a = p;
    return forward(dc, hyt_gpu_hpl_matvec(dc, a->h.n, a->h.nb, a->h.ndev, a->index, a->h.seed,
                                          a->x, a->ax + (int64_t)a->index * a->h.n,
                                          a->arow + (int64_t)a->index * a->h.n));
}

static int norms_body(const hyt_devctx_t *dc, void *p)
{
    hpl_args_t *a = p;
    return forward(dc, hyt_gpu_hpl_norms(dc, a->h.n, a->nparts, a->ax, a->arow, a->x, a->bb,
                                         a->norms));
}

static const hyt_kernel_t gen_kernel = {.name = "dplghpl", .dev = gen_body, .cat = HYT_CAT_GPU};
static const hyt_kernel_t mv_kernel = {.name = "hpl_matvec", .dev = mv_body, .cat = HYT_CAT_GPU};
static const hyt_kernel_t norms_kernel = {.name = "hpl_norms", .dev = norms_body,
                                          .cat = HYT_CAT_GPU};

/* Device g's columns and (g == 0) b generated on the device, copied into cols and b (host,
 * page-locked).  0 or the first error. */
static int dev_generate(hyt_context_t *ctx, const hcase_t *h, int g, double *cols, double *b)
{
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    size_t cb = (len_of(h, g) + 1) * sizeof *cols, bb = ((size_t)h->n + 1) * sizeof *b;
    void *dcols = NULL, *db = NULL;
    int rc = hyt_device_malloc(dev, &dcols, cb);
    if (!rc && b)
        rc = hyt_device_malloc(dev, &db, bb);
    hyt_sequence_t *seq = NULL;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        hpl_args_t a = {*h, g, dcols, db, NULL, NULL, NULL, NULL, NULL, 0};
        hyt_dep_t deps[2] = {{dcols, HYT_WRITE}, {db, HYT_WRITE}};
        /* the sentinels in, so that what the kernel leaves out shows */
        rc = insert_copy(seq, dcols, cols, cb, 0);
        if (!rc && b)
            rc = insert_copy(seq, db, b, bb, 0);
        if (!rc)
            rc = insert_dev(seq, &gen_kernel, &a, sizeof a, HYT_STREAM_COMPUTE, deps, b ? 2 : 1);
        if (!rc)
            rc = insert_copy(seq, cols, dcols, cb, 1);
        if (!rc && b)
            rc = insert_copy(seq, b, db, bb, 1);
        rc = hyt_sequence_finish(seq, rc);
    }
    if (dcols)
        hyt_device_free(dev, dcols);
    if (db)
        hyt_device_free(dev, db);
    return rc;
}

/* The check on the device: every part g < ndev computed there (as if by device g), the norms
 * of nparts = ndev parts; ax, arow (ndev*n) and norms (4) copied back.  0 or the first error. */
static int dev_check(hyt_context_t *ctx, const hcase_t *h, const double *x, const double *b,
                     double *ax, double *arow, double *norms)
{
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    size_t vb = (size_t)h->n * sizeof *x, pb = vb * h->ndev, nbytes = 4 * sizeof *norms;
    void *p[5] = {NULL};
    size_t sz[5] = {vb, vb, pb, pb, nbytes};
    int rc = 0;
    for (int i = 0; i < 5 && !rc; i++)
        rc = hyt_device_malloc(dev, &p[i], sz[i]);
    hyt_sequence_t *seq = NULL;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        hpl_args_t a = {*h, 0, NULL, NULL, p[0], p[1], p[2], p[3], p[4], h->ndev};
        rc = insert_copy(seq, p[0], x, vb, 0);
        if (!rc)
            rc = insert_copy(seq, p[1], b, vb, 0);
        /* the parts: commuting writers of disjoint parts of ax and arow */
        hyt_dep_t mdeps[3] = {{p[0], HYT_READ}, {p[2], HYT_GATHER}, {p[3], HYT_GATHER}};
        for (int g = 0; g < h->ndev && !rc; g++) {
            a.index = g;
            rc = insert_dev(seq, &mv_kernel, &a, sizeof a, HYT_STREAM_COMPUTE, mdeps, 3);
        }
        hyt_dep_t ndeps[5] = {{p[0], HYT_READ}, {p[1], HYT_READ}, {p[2], HYT_READ},
                              {p[3], HYT_READ}, {p[4], HYT_WRITE}};
        if (!rc)
            rc = insert_dev(seq, &norms_kernel, &a, sizeof a, HYT_STREAM_COMPUTE, ndeps, 5);
        if (!rc)
            rc = insert_copy(seq, ax, p[2], pb, 1);
        if (!rc)
            rc = insert_copy(seq, arow, p[3], pb, 1);
        if (!rc)
            rc = insert_copy(seq, norms, p[4], nbytes, 1);
        rc = hyt_sequence_finish(seq, rc);
    }
    for (int i = 0; i < 5; i++)
        if (p[i])
            hyt_device_free(dev, p[i]);
    return rc;
}

static void test_dev_generator(hyt_context_t *ctx)
{
    for (int t = 0; t < NGEN; t++) {
        const hcase_t *h = &gen_cases[t];
        double *A, *b;
        host_matrix(h, &A, &b);
        for (int g = 0; g < h->ndev; g++) {
            size_t len = len_of(h, g);
            double *got = hmalloc(ctx, len + 1), *e = xmalloc((len + 1) * sizeof *e);
            double *gb = g == 0 ? hmalloc(ctx, (size_t)h->n + 1) : NULL;
            fill_sentinel(got, len + 1);
            fill_sentinel(e, len + 1);
            if (gb)
                fill_sentinel(gb, (size_t)h->n + 1);
            expected_cols(h, g, A, e);
            int rc = dev_generate(ctx, h, g, got, gb);
            CHECK(!rc, "n %d nb %d device %d of %d: %s", h->n, h->nb, g, h->ndev,
                  hyt_last_error());
            CHECK(rc || !memcmp(got, e, (len + 1) * sizeof *e), "n %d nb %d device %d of %d "
                  "seed %d: hyt_gpu_dplghpl's columns differ from hyt_core_dplghpl's matrix",
                  h->n, h->nb, g, h->ndev, h->seed);
            if (gb)
                CHECK(rc || (!memcmp(gb, b, (size_t)h->n * sizeof *b) && isnan(gb[h->n])),
                      "n %d seed %d: hyt_gpu_dplghpl's b differs from column n", h->n, h->seed);
            hyt_host_free(ctx, got);
            if (gb)
                hyt_host_free(ctx, gb);
            free(e);
        }
        free(A);
        free(b);
    }
}

/* OpenBLAS's own dgesv_ (hytile's static library defines one too). */
typedef void (*dgesv_fn)(const int *, const int *, double *, const int *, int *, double *,
                         const int *, int *);

/* r = A x - b accumulated in long double (64 or 113 significant bits): the residual with
 * rounding far below the double computations'. */
static double exact_residual(int n, const double *A, const double *x, const double *b)
{
    long double rn = 0, an = 0, xn = 0, bn = 0;
    for (int64_t i = 0; i < n; i++) {
        long double s = -(long double)b[i], t = 0;
        for (int64_t c = 0; c < n; c++) {
            s += (long double)A[i + c * n] * x[c];
            t += fabsl(A[i + c * n]);
        }
        rn = fmaxl(rn, fabsl(s));
        an = fmaxl(an, t);
        xn = fmaxl(xn, fabs(x[i]));
        bn = fmaxl(bn, fabs(b[i]));
    }
    return (double)(rn / (DBL_EPSILON * (an * xn + bn) * n));
}

static void test_dev_check(hyt_context_t *ctx)
{
    static const hcase_t cases[] = {{1, 1, 1, 100},  {7, 4, 2, 100},   {300, 64, 1, 100},
                                    {517, 100, 3, 42}, {1000, 128, 2, 100}, {1203, 256, 3, 7}};
    dgesv_fn gesv = (dgesv_fn)hyt_bench_openblas_sym("dgesv_", (void *)dgesv_, NULL);
    CHECK(gesv != NULL, "OpenBLAS's dgesv_ not found (the solve uses hyt_dgesv instead)");
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const hcase_t *h = &cases[t];
        int n = h->n, one = 1, info = 0;
        double *A, *b;
        host_matrix(h, &A, &b);
        double *LU = xmalloc((size_t)n * n * sizeof *LU);
        int *ipiv = xmalloc((size_t)n * sizeof *ipiv);
        double *x = hmalloc(ctx, (size_t)n), *hb = hmalloc(ctx, (size_t)n);
        memcpy(LU, A, (size_t)n * n * sizeof *LU);
        memcpy(x, b, (size_t)n * sizeof *x);
        memcpy(hb, b, (size_t)n * sizeof *x);
        if (gesv)
            gesv(&n, &one, LU, &n, ipiv, x, &n, &info);
        else
            info = hyt_dgesv(ctx, n, 1, LU, n, ipiv, x, n);
        REQUIRE(info == 0, "n %d: dgesv info %d", n, info);

        size_t np = (size_t)n * h->ndev;
        double *ax = hmalloc(ctx, np), *arow = hmalloc(ctx, np), *norms = hmalloc(ctx, 4);
        double *rax = xmalloc(np * sizeof *rax), *rrow = xmalloc(np * sizeof *rax), rnorms[4];
        for (int g = 0; g < h->ndev; g++)
            REQUIRE(!hyt_ref_hpl_matvec(n, h->nb, h->ndev, g, h->seed, x, rax + (size_t)g * n,
                                        rrow + (size_t)g * n), "ref");
        hyt_ref_hpl_norms(n, h->ndev, rax, rrow, x, b, rnorms);

        int rc = dev_check(ctx, h, x, hb, ax, arow, norms);
        CHECK(!rc, "n %d: check on the device: %s", n, hyt_last_error());
        if (!rc) {
            CHECK(!memcmp(ax, rax, np * sizeof *ax) && !memcmp(arow, rrow, np * sizeof *ax),
                  "n %d nb %d %d devices: hyt_gpu_hpl_matvec differs from the reference", n,
                  h->nb, h->ndev);
            CHECK(!memcmp(norms, rnorms, sizeof rnorms), "n %d: norms %g %g %g %g, reference "
                  "%g %g %g %g", n, norms[0], norms[1], norms[2], norms[3], rnorms[0],
                  rnorms[1], rnorms[2], rnorms[3]);
            double res = hyt_hpl_scaled_residual(norms, n), host = hyt_bench_residual(n, A, x, b);
            double ex = exact_residual(n, A, x, b);
            printf("n %4d nb %3d %d devices: scaled residual %.6f on the device, %.6f on the "
                   "host, %.6f in long double\n", n, h->nb, h->ndev, res, host, ex);
            /* Both sums round: a few percent of the residual at n ~ 1000 (measured: under 2%,
             * shrinking as n^-1.5), and for tiny n a few ulps of the terms, which is all the
             * residual there is: slack of 2 ulps of max(||x||, 1) in scaled units. */
            double slack = 2.0 * fmax(norms[2], 1.0) / ((norms[1] * norms[2] + norms[3]) * n);
            CHECK(res < 16 && fabs(res - host) <= 0.05 * host + slack &&
                  fabs(res - ex) <= 0.05 * ex + slack, "n %d: scaled residual %g on the "
                  "device, %g on the host, %g in long double", n, res, host, ex);
        }

        /* a wrong x: far above HPL's threshold, on both sides */
        if (n > 1) {
            double xmax = 0;
            for (int i = 0; i < n; i++)
                xmax = fmax(xmax, fabs(x[i]));
            x[n / 2] += 1e-3 * xmax;
            rc = dev_check(ctx, h, x, hb, ax, arow, norms);
            double res = rc ? 0 : hyt_hpl_scaled_residual(norms, n);
            double host = hyt_bench_residual(n, A, x, b);
            CHECK(!rc && res > 1000 && host > 1000 && fabs(res - host) <= 0.05 * host,
                  "n %d: wrong x gives scaled residual %g on the device, %g on the host", n, res,
                  host);
        }
        /* a NaN: a NaN residual (fails any threshold) */
        x[0] = NAN;
        rc = dev_check(ctx, h, x, hb, ax, arow, norms);
        CHECK(!rc && isnan(norms[0]) && isnan(norms[2]) && isnan(hyt_hpl_scaled_residual(norms,
              n)), "n %d: NaN in x: norms %g %g %g %g", n, norms[0], norms[1], norms[2],
              norms[3]);
        free(A);
        free(b);
        free(LU);
        free(ipiv);
        free(rax);
        free(rrow);
        hyt_host_free(ctx, x);
        hyt_host_free(ctx, hb);
        hyt_host_free(ctx, ax);
        hyt_host_free(ctx, arow);
        hyt_host_free(ctx, norms);
    }
}

/* Argument checks, called directly (they return before touching the device). */
static void test_dev_args(hyt_context_t *ctx)
{
    hyt_devctx_t dc = {.dev = hyt_context_device(ctx, 0), .stream = HYT_STREAM_COMPUTE};
    double v[8] = {0};
    EXPECT(hyt_gpu_dplghpl(NULL, v, 2, 2, 1, 0, 1, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dplghpl(&dc, v, -1, 2, 1, 0, 1, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dplghpl(&dc, v, 2, 0, 1, 0, 1, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dplghpl(&dc, v, 2, 2, 0, 0, 1, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dplghpl(&dc, v, 2, 2, 2, 2, 1, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dplghpl(&dc, v, 2, 2, 2, -1, 1, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dplghpl(&dc, NULL, 2, 2, 1, 0, 1, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dplghpl(&dc, NULL, 0, 2, 1, 0, 1, NULL), 0);
    EXPECT(hyt_gpu_dplghpl(&dc, NULL, 2, 2, 2, 1, 1, NULL), 0); /* device 1 holds no column */
    EXPECT(hyt_gpu_hpl_matvec(NULL, 2, 2, 1, 0, 1, v, v, v), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_hpl_matvec(&dc, 2, 2, 1, 1, 1, v, v, v), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_hpl_matvec(&dc, 2, 2, 1, 0, 1, NULL, v, v), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_hpl_matvec(&dc, 2, 2, 1, 0, 1, v, NULL, v), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_hpl_matvec(&dc, 2, 2, 1, 0, 1, v, v, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_hpl_matvec(&dc, 0, 2, 1, 0, 1, NULL, NULL, NULL), 0);
    EXPECT(hyt_gpu_hpl_norms(NULL, 2, 1, v, v, v, v, v), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_hpl_norms(&dc, -1, 1, v, v, v, v, v), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_hpl_norms(&dc, 2, 0, v, v, v, v, v), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_hpl_norms(&dc, 2, 1, v, v, v, NULL, v), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_hpl_norms(&dc, 2, 1, v, v, v, v, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_hpl_norms(&dc, 0, 1, NULL, NULL, NULL, NULL, NULL), 0);
}

/* Fault injection: the k-th device call fails, k = 1, 2, ... until four runs in a row pass.
 * Every failure is reported, never a wrong result, and some fault hits each kernel (the host
 * dispatcher's fault point, or CUDA's launch check). */
static void test_dev_faults(const char *devices)
{
    static const char *host_needle[] = {"hyt_gpu_dplghpl", "hyt_gpu_hpl_matvec",
                                        "hyt_gpu_hpl_norms"};
    static const char *cuda_needle[] = {"gpu_dplghpl.cu", "gpu_hpl_check.cu", "gpu_hpl_check.cu"};
    const hcase_t h = {70, 16, 2, 100};
    int passed = 0, in_kernel[3] = {0, 0, 0};
    for (long k = 1; k <= 150 && passed < 4; k++) {
        hyt_context_t *ctx;
        int rc = make_context(devices, k, &ctx);
        if (rc) {
            CHECK(rc == HYT_ERR_DEVICE || rc == HYT_ERR_NOMEM, "fault %ld at context creation: "
                  "%s: %s", k, hyt_strerror(rc), hyt_last_error());
            continue;
        }
        size_t len = len_of(&h, 0);
        /* plain malloc: a page-lock (hyt_host_malloc) is a device call too, and one that fails
         * falls back silently; with it the faults would pass before reaching the kernels */
        double *cols = xmalloc((len + 1) * 8), *b = xmalloc(((size_t)h.n + 1) * 8);
        double *e = xmalloc((len + 1) * sizeof *e), *A, *hb;
        double *ax = xmalloc(2 * (size_t)h.n * 8), *arow = xmalloc(2 * (size_t)h.n * 8);
        double *norms = xmalloc(4 * 8), rn[4];
        host_matrix(&h, &A, &hb);
        fill_sentinel(cols, len + 1);
        fill_sentinel(e, len + 1);
        expected_cols(&h, 0, A, e);
        rc = dev_generate(ctx, &h, 0, cols, b);
        int ok = !rc && !memcmp(cols, e, len * sizeof *e) && !memcmp(b, hb, (size_t)h.n * 8);
        if (!rc) {
            double *x = hb, *rax = xmalloc(2 * (size_t)h.n * 8);
            double *rrow = xmalloc(2 * (size_t)h.n * 8);
            for (int g = 0; g < 2; g++)
                hyt_ref_hpl_matvec(h.n, h.nb, 2, g, h.seed, x, rax + g * h.n, rrow + g * h.n);
            hyt_ref_hpl_norms(h.n, 2, rax, rrow, x, hb, rn);
            rc = dev_check(ctx, &h, x, hb, ax, arow, norms);
            ok = ok && !rc && !memcmp(norms, rn, sizeof rn);
            free(rax);
            free(rrow);
        }
        if (!rc) {
            CHECK(ok, "fault %ld: no error reported but a wrong result", k);
            passed++;
        } else {
            passed = 0;
            CHECK(rc == HYT_ERR_DEVICE || rc == HYT_ERR_DEVICE_MEMORY, "fault %ld: %s: %s", k,
                  hyt_strerror(rc), hyt_last_error());
            for (int kern = 0; kern < 3; kern++)
                in_kernel[kern] += strstr(hyt_last_error(), "injected") != NULL &&
                                   strstr(hyt_last_error(), use_cuda ? cuda_needle[kern]
                                                                     : host_needle[kern]);
        }
        free(A);
        free(hb);
        free(e);
        free(cols);
        free(b);
        free(ax);
        free(arow);
        free(norms);
        hyt_context_destroy(ctx);
    }
    CHECK(passed >= 4, "still failing with the 150th device call faulted");
    for (int kern = 0; kern < 3; kern++)
        CHECK(in_kernel[kern] >= 1, "%s: no injected fault reported by the kernel",
              host_needle[kern]);
}

int main(int argc, char **argv)
{
    const char *devices;
    hyt_context_t *ctx;
    int rc = dev_test_start(argc, argv, "test_gpu_hpl", &devices, &ctx);
    if (rc >= 0)
        return rc;
    if (!use_cuda) {
        test_ref_generator();
        test_threads();
        test_large();
    }
    test_dev_generator(ctx);
    test_dev_check(ctx);
    test_dev_args(ctx);
    hyt_context_destroy(ctx);
    test_dev_faults(devices);
    return test_result(use_cuda ? "test_gpu_hpl (cuda:0)" : "test_gpu_hpl (host:1)");
}
