/*
 * GPU kernels (gpu_kernels/):
 *   - the host references against naive definitions (tile transposition, row interchanges on
 *     CRRB columns as a permutation of an explicit dense matrix, batched GEMM as a triple loop);
 *   - the launch geometry of the CUDA kernels (hyt_gpu_geometry.h), every thread of small
 *     launches enumerated and huge ones sampled on the host, so the index arithmetic is checked
 *     even where no GPU is present;
 *   - the dispatchers in device tasks through the runtime (copies in, kernel, copies out),
 *     compared with the references: exactly for transposition, interchanges and the inverses
 *     of a triangle's diagonal blocks (whose reference is also checked against CBLAS), to
 *     1e-12 (relative) for GEMM; argument checks; fault injection reaching the kernels.
 * Without arguments it runs on a host device ("host:1"); with the argument "cuda" it runs the
 * device part on the first GPU ("cuda:0") and exits 77 when the build has no CUDA or no GPU is
 * usable.
 */
#include "config.h"
#include "hyt_gpu_geometry.h"
#include "hyt_gpu_kernels.h"
#include "hyt_runtime.h"
#include "hyt_tiles.h"
#include "hyt_test.h"
#include "hyt_dev_test.h"
#include "rt_internal.h"

#include <cblas.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

static void fill(test_rng_t *r, double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = test_uniform(r);
}

static int max1(int x) { return x > 1 ? x : 1; }

/* ============================================================================================
 * (a) host references against naive definitions
 */

static void test_ref_transpose(void)
{
    static const int nbs[] = {1, 2, 3, 7, 16, 32, 33, 100};
    static const int nts[] = {0, 1, 2, 5};
    test_rng_t rng = {11};
    for (size_t i = 0; i < sizeof nbs / sizeof nbs[0]; i++)
        for (size_t j = 0; j < sizeof nts / sizeof nts[0]; j++) {
            int nb = nbs[i], nt = nts[j];
            size_t sz = (size_t)nb * nb, n = sz * nt;
            double *a = xmalloc((n + 4) * sizeof *a), *orig = xmalloc((n + 4) * sizeof *a);
            double *tiles = xmalloc((n + 1) * sizeof *a);
            fill(&rng, a, n + 4);
            memcpy(orig, a, (n + 4) * sizeof *a);
            hyt_ref_transpose_tiles(a, nb, nt);
            int ok = 1;
            for (int t = 0; t < nt; t++)
                for (int c = 0; c < nb; c++)
                    for (int r = 0; r < nb; r++) /* CCRB (r,c) at r + c*nb lands at r*nb + c */
                        ok &= a[t * sz + (size_t)r * nb + c] == orig[t * sz + r + (size_t)c * nb];
            CHECK(ok, "nb %d, %d tiles: element (r,c) not at r*nb + c", nb, nt);
            CHECK(!memcmp(a + n, orig + n, 4 * sizeof *a), "nb %d, %d tiles: wrote past the end",
                  nb, nt);
            hyt_ccrb_to_crrb(orig, tiles, nb, nt);
            CHECK(!memcmp(a, tiles, n * sizeof *a), "nb %d, %d tiles: differs from "
                  "hyt_ccrb_to_crrb", nb, nt);
            hyt_ref_transpose_tiles(a, nb, nt);
            CHECK(!memcmp(a, orig, (n + 4) * sizeof *a), "nb %d, %d tiles: transposing twice is "
                  "not the identity", nb, nt);
            free(a);
            free(orig);
            free(tiles);
        }
}

/* A row-interchange case: ncols CRRB columns of mt tiles each, column b at b*colstride. */
typedef struct lcase {
    int nb, ncols, mt, r1, npiv;
    int64_t colstride;
} lcase_t;

/* Doubles spanned by the columns (without the tail guard). */
static size_t lcase_len(const lcase_t *L)
{
    if (!L->ncols)
        return 0;
    return (size_t)((int64_t)(L->ncols - 1) * L->colstride + (int64_t)L->mt * L->nb * L->nb);
}

static lcase_t laswp_case(test_rng_t *rng, int nb, int ncols, int npiv)
{
    lcase_t L = {nb, ncols, 1, 0, npiv, 0};
    L.mt = (npiv + nb - 1) / nb + test_randint(rng, 3);
    if (L.mt < 1)
        L.mt = 1;
    int nrows = L.mt * nb;
    L.r1 = test_randint(rng, nrows - npiv + 1);
    /* gaps between the columns, sometimes not a multiple of nb */
    L.colstride = (int64_t)L.mt * nb * nb + test_randint(rng, 3) * nb + test_randint(rng, 2);
    return L;
}

/* Pivots (1-based) for rows r1..r1+npiv-1 of nrows rows, mixing LAPACK-like choices with chains:
 * a pivot equal to an earlier interchanged row, a row used as a pivot before, a row above r1. */
static void make_pivots(test_rng_t *rng, int *ipiv, const lcase_t *L)
{
    int nrows = L->mt * L->nb;
    for (int q = 0; q < L->npiv; q++) {
        int r = L->r1 + q, p;
        switch (test_randint(rng, q ? 6 : 3)) {
        case 0: p = r; break;                                          /* no interchange */
        case 1: p = r + test_randint(rng, nrows - r); break;           /* below: LAPACK */
        case 2: p = test_randint(rng, nrows); break;                   /* any row */
        case 3: p = L->r1 + test_randint(rng, q); break;               /* an earlier row r1+q' */
        case 4: p = ipiv[test_randint(rng, q)] - 1; break;             /* an earlier pivot row */
        default: p = L->r1 + q - 1; break;                             /* the row just before */
        }
        ipiv[q] = p + 1;
    }
}

/* The definition: the columns side by side as one dense nrows x (ncols*nb) matrix D, the
 * interchanges applied to a row permutation, out = the rows of D in permuted order, scattered
 * back (everything outside the rows, e.g. gaps between columns, as in `in`). */
static void expected_laswp(const lcase_t *L, const int *ipiv, const double *in, double *out)
{
    int nb = L->nb;
    int64_t nrows = (int64_t)L->mt * nb, w = (int64_t)L->ncols * nb;
    double *D = xmalloc((size_t)(nrows * w) * sizeof *D);
    int64_t *perm = xmalloc((size_t)nrows * sizeof *perm);
#define CRRB_AT(b, r, c) ((b) * L->colstride + ((r) / nb) * nb * nb + ((r) % nb) * nb + (c))
    for (int64_t b = 0; b < L->ncols; b++)
        for (int64_t r = 0; r < nrows; r++)
            for (int64_t c = 0; c < nb; c++)
                D[r * w + b * nb + c] = in[CRRB_AT(b, r, c)];
    for (int64_t r = 0; r < nrows; r++)
        perm[r] = r;
    for (int q = 0; q < L->npiv; q++) {
        if (ipiv[q] < 1)
            continue; /* invalid pivots are ignored (the references' documented behaviour) */
        int64_t x = L->r1 + q, y = ipiv[q] - 1, t = perm[x];
        perm[x] = perm[y];
        perm[y] = t;
    }
    memcpy(out, in, (lcase_len(L) + 4) * sizeof *out);
    for (int64_t b = 0; b < L->ncols; b++)
        for (int64_t r = 0; r < nrows; r++)
            for (int64_t c = 0; c < nb; c++)
                out[CRRB_AT(b, r, c)] = D[perm[r] * w + b * nb + c];
#undef CRRB_AT
    free(D);
    free(perm);
}

static void test_ref_laswp(void)
{
    static const int nbs[] = {1, 2, 3, 7, 16, 32, 33};
    test_rng_t rng = {12};
    for (size_t i = 0; i < sizeof nbs / sizeof nbs[0]; i++)
        for (int ncols = 1; ncols <= 3; ncols++)
            for (int npiv = 0; npiv <= 2 * nbs[i] + 1; npiv++) {
                lcase_t L = laswp_case(&rng, nbs[i], ncols, npiv);
                size_t len = lcase_len(&L) + 4;
                double *a = xmalloc(len * sizeof *a), *e = xmalloc(len * sizeof *a);
                int *ipiv = xmalloc(((size_t)npiv + 1) * sizeof *ipiv);
                fill(&rng, a, len);
                make_pivots(&rng, ipiv, &L);
                expected_laswp(&L, ipiv, a, e);
                hyt_ref_dlaswp_crrb(a, L.colstride, ncols, L.nb, L.r1, npiv, ipiv);
                CHECK(!memcmp(a, e, len * sizeof *a), "nb %d, %d columns, r1 %d, npiv %d: rows "
                      "not permuted as the explicit matrix", L.nb, ncols, L.r1, npiv);
                /* an invalid pivot (< 1) is ignored, never written through */
                if (npiv > 0) {
                    ipiv[npiv / 2] = 0;
                    fill(&rng, a, len);
                    expected_laswp(&L, ipiv, a, e);
                    hyt_ref_dlaswp_crrb(a, L.colstride, ncols, L.nb, L.r1, npiv, ipiv);
                    CHECK(!memcmp(a, e, len * sizeof *a), "nb %d, npiv %d: invalid pivot not "
                          "ignored", L.nb, npiv);
                }
                free(a);
                free(e);
                free(ipiv);
            }
}

/* LAPACK's pivots for the case's rows r1..r1+npiv-1, its npiv rows one block. */
static void make_lapack_pivots(test_rng_t *rng, int *ipiv, const lcase_t *L)
{
    test_lapack_pivots(rng, ipiv, L->r1, L->npiv, L->npiv > 0 ? L->npiv : 1, L->mt * L->nb);
}

/* The interchanges as plan, gather, scatter and the gathered rows copied back, on the host:
 * the same as hyt_ref_dlaswp_crrb's. */
static void test_ref_laswp_plan(void)
{
    static const int nbs[] = {1, 2, 3, 7, 32, 33};
    test_rng_t rng = {14};
    for (size_t i = 0; i < sizeof nbs / sizeof nbs[0]; i++)
        for (int ncols = 1; ncols <= 3; ncols++)
            for (int npiv = 0; npiv <= 2 * nbs[i] + 1; npiv++) {
                lcase_t L = laswp_case(&rng, nbs[i], ncols, npiv);
                size_t len = lcase_len(&L) + 4, nt = (size_t)npiv * L.nb;
                double *a = xmalloc(len * sizeof *a), *e = xmalloc(len * sizeof *a);
                double *top = xmalloc((nt * ncols + 1) * sizeof *top);
                int *ipiv = xmalloc(((size_t)npiv + 1) * sizeof *ipiv);
                int *plan = xmalloc((3 * (size_t)npiv + 1) * sizeof *plan);
                fill(&rng, a, len);
                make_lapack_pivots(&rng, ipiv, &L);
                memcpy(e, a, len * sizeof *a);
                hyt_ref_dlaswp_crrb(e, L.colstride, ncols, L.nb, L.r1, npiv, ipiv);
                hyt_ref_dlaswp_plan(L.r1, npiv, ipiv, plan);
                hyt_ref_dlaswp_gather(a, L.colstride, ncols, L.nb, npiv, plan, top, (int64_t)nt);
                hyt_ref_dlaswp_scatter(a, L.colstride, ncols, L.nb, npiv, plan);
                for (int b = 0; b < ncols; b++)
                    memcpy(a + b * L.colstride + (int64_t)L.r1 * L.nb, top + b * nt,
                           nt * sizeof *a);
                CHECK(!memcmp(a, e, len * sizeof *a), "plan: nb %d, %d columns, r1 %d, npiv %d: "
                      "not the interchanges one after the other", L.nb, ncols, L.r1, npiv);
                free(a);
                free(e);
                free(top);
                free(ipiv);
                free(plan);
            }
}

/* A batched GEMM case. */
typedef struct gcase {
    char ta, tb;
    int m, n, k, lda, ldb, ldc, batch;
    double alpha, beta;
    int64_t sa, sb, sc;
} gcase_t;

static int notrans(char t) { return t == 'N' || t == 'n'; }

static size_t span(int ld, int cols, int64_t stride, int batch)
{
    return batch ? (size_t)((int64_t)(batch - 1) * stride + (int64_t)ld * cols) + 4 : 4;
}
static size_t len_a(const gcase_t *g)
{
    return span(g->lda, notrans(g->ta) ? g->k : g->m, g->sa, g->batch);
}
static size_t len_b(const gcase_t *g)
{
    return span(g->ldb, notrans(g->tb) ? g->n : g->k, g->sb, g->batch);
}
static size_t len_c(const gcase_t *g) { return span(g->ldc, g->n, g->sc, g->batch); }

static gcase_t gemm_case(test_rng_t *rng, char ta, char tb, int m, int n, int k, int batch,
                         int variant)
{
    static const double alphas[] = {1.0, -0.5, 0.0, 2.25}, betas[] = {0.0, 1.0, 0.75, -1.5};
    gcase_t g = {ta, tb, m, n, k, 0, 0, 0, batch, alphas[variant % 4],
                 betas[(variant / 4 + variant) % 4], 0, 0, 0};
    int ra = notrans(ta) ? m : k, ca = notrans(ta) ? k : m;
    int rb = notrans(tb) ? k : n, cb = notrans(tb) ? n : k;
    g.lda = max1(ra) + test_randint(rng, 3);
    g.ldb = max1(rb) + test_randint(rng, 3);
    g.ldc = max1(m) + test_randint(rng, 3);
    /* stride 0: every entry multiplies the same A (or B) */
    g.sa = variant % 3 == 1 ? 0 : (int64_t)g.lda * ca + test_randint(rng, 5);
    g.sb = variant % 5 == 2 ? 0 : (int64_t)g.ldb * cb + test_randint(rng, 5);
    g.sc = (int64_t)g.ldc * n + test_randint(rng, 5);
    return g;
}

/* active[i]: element i of C is in some C_b (m x n part). */
static unsigned char *gemm_active(const gcase_t *g)
{
    size_t lc = len_c(g);
    unsigned char *act = xmalloc(lc);
    memset(act, 0, lc);
    for (int b = 0; b < g->batch; b++)
        for (int j = 0; j < g->n; j++)
            for (int i = 0; i < g->m; i++)
                act[b * g->sc + i + (int64_t)j * g->ldc] = 1;
    return act;
}

/* Random A, B, C; with beta == 0 the active elements of C are NaN (they must not be read). */
static void gemm_data(test_rng_t *rng, const gcase_t *g, double **A, double **B, double **C)
{
    *A = xmalloc(len_a(g) * sizeof **A);
    *B = xmalloc(len_b(g) * sizeof **B);
    *C = xmalloc(len_c(g) * sizeof **C);
    fill(rng, *A, len_a(g));
    fill(rng, *B, len_b(g));
    fill(rng, *C, len_c(g));
    if (g->beta == 0.0) {
        unsigned char *act = gemm_active(g);
        for (size_t i = 0; i < len_c(g); i++)
            if (act[i])
                (*C)[i] = NAN;
        free(act);
    }
}

static double op_elem(const double *X, int ld, char t, int i, int l)
{
    return notrans(t) ? X[i + (int64_t)l * ld] : X[l + (int64_t)i * ld];
}

/* The triple loop, with a rounding bound per element. */
static void naive_gemm(const gcase_t *g, const double *A, const double *B, const double *C0,
                       double *C, double *bound)
{
    memcpy(C, C0, len_c(g) * sizeof *C);
    for (int b = 0; b < g->batch; b++) {
        const double *Ab = A + b * g->sa, *Bb = B + b * g->sb;
        for (int j = 0; j < g->n; j++)
            for (int i = 0; i < g->m; i++) {
                double s = 0, abs = 0;
                for (int l = 0; l < g->k; l++) {
                    double x = op_elem(Ab, g->lda, g->ta, i, l) * op_elem(Bb, g->ldb, g->tb, l, j);
                    s += x;
                    abs += fabs(x);
                }
                int64_t at = b * g->sc + i + (int64_t)j * g->ldc;
                double c0 = g->beta == 0.0 ? 0.0 : g->beta * C0[at];
                C[at] = g->alpha * s + c0;
                bound[at] = 3.0 * (g->k + 2) * DBL_EPSILON * (fabs(g->alpha) * abs + fabs(c0));
            }
    }
}

static void gemm_label(const gcase_t *g, char *buf, size_t len)
{
    snprintf(buf, len, "%c%c m %d n %d k %d lda %d ldb %d ldc %d strides %lld %lld %lld batch %d "
             "alpha %g beta %g", g->ta, g->tb, g->m, g->n, g->k, g->lda, g->ldb, g->ldc,
             (long long)g->sa, (long long)g->sb, (long long)g->sc, g->batch, g->alpha, g->beta);
}

static const int gemm_shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {32, 32, 32}, {33, 17, 64},
                                     {100, 64, 256}, {0, 3, 2}, {5, 0, 2}, {4, 6, 0}};
static const char gemm_trans[][2] = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'T', 'T'}, {'n', 't'}};
enum { NSHAPES = sizeof gemm_shapes / sizeof gemm_shapes[0] };
enum { NTRANS = sizeof gemm_trans / sizeof gemm_trans[0] };

static void test_ref_gemm(void)
{
    static const int batches[] = {0, 1, 3};
    test_rng_t rng = {13};
    int variant = 0;
    for (int s = 0; s < NSHAPES; s++)
        for (int t = 0; t < NTRANS; t++)
            for (int bi = 0; bi < 3; bi++, variant++) {
                gcase_t g = gemm_case(&rng, gemm_trans[t][0], gemm_trans[t][1], gemm_shapes[s][0],
                                      gemm_shapes[s][1], gemm_shapes[s][2], batches[bi], variant);
                double *A, *B, *C;
                gemm_data(&rng, &g, &A, &B, &C);
                size_t lc = len_c(&g);
                double *E = xmalloc(lc * sizeof *E), *bound = xmalloc(lc * sizeof *E);
                unsigned char *act = gemm_active(&g);
                naive_gemm(&g, A, B, C, E, bound);
                hyt_ref_dgemm_batched(g.ta, g.tb, g.m, g.n, g.k, g.alpha, A, g.lda, g.sa, B, g.ldb,
                                      g.sb, g.beta, C, g.ldc, g.sc, g.batch);
                int bad_active = 0, bad_rest = 0;
                for (size_t i = 0; i < lc; i++) {
                    if (act[i])
                        bad_active += !(fabs(C[i] - E[i]) <= bound[i] + DBL_MIN);
                    else
                        bad_rest += memcmp(&C[i], &E[i], sizeof *C) != 0;
                }
                char label[200];
                gemm_label(&g, label, sizeof label);
                CHECK(!bad_active, "%s: %d elements differ from the triple loop", label,
                      bad_active);
                CHECK(!bad_rest, "%s: %d elements outside the C_b changed", label, bad_rest);
                free(A);
                free(B);
                free(C);
                free(E);
                free(bound);
                free(act);
            }
}

/* ============================================================================================
 * Launch geometry of the CUDA kernels, checked on the host.
 */

/* Every block of the launch run on the host, its threads' loads, then (the block's barrier)
 * their stores, as the kernel does: the tiles come out transposed, as the reference makes them,
 * and each pair of 32 x 32 blocks of a tile is one block's, (I, J) with I <= J. */
static void check_transpose_grid(int nb, int64_t ntiles)
{
    hyt_launch_t L = {{0}, {0}};
    int g = hyt_transpose_launch(nb, ntiles, &L);
    if (ntiles == 0 || nb == 1) {
        CHECK(g == 1, "nb %d, %lld tiles: expected no launch, got %d", nb, (long long)ntiles, g);
        return;
    }
    CHECK(g == 0 && launch_ok(&L), "nb %d, %lld tiles: launch %d, grid %u %u %u", nb,
          (long long)ntiles, g, L.grid[0], L.grid[1], L.grid[2]);
    if (g)
        return;
    CHECK((int64_t)L.grid[1] * L.grid[2] >= ntiles, "grid does not cover the tiles");
    const int nblk = (nb + HYT_TRANSPOSE_B - 1) / HYT_TRANSPOSE_B;
    const int64_t sz = (int64_t)nb * nb, n = sz * ntiles, npair = (int64_t)nblk * nblk;
    double *a = xmalloc((size_t)n * sizeof *a), *ref = xmalloc((size_t)n * sizeof *ref);
    unsigned char *hits = xmalloc((size_t)(npair * ntiles));
    memset(hits, 0, (size_t)(npair * ntiles));
    for (int64_t i = 0; i < n; i++)
        a[i] = ref[i] = (double)i;
    hyt_ref_transpose_tiles(ref, nb, ntiles);
    static double sa[HYT_TRANSPOSE_B][HYT_TRANSPOSE_B + 1];
    static double sb[HYT_TRANSPOSE_B][HYT_TRANSPOSE_B + 1];
    int64_t wrong = 0;
    for (unsigned bz = 0; bz < L.grid[2]; bz++)
        for (unsigned by = 0; by < L.grid[1]; by++)
            for (unsigned bx = 0; bx < L.grid[0]; bx++) {
                int64_t t;
                int bi, bj;
                if (!hyt_transpose_block(nb, ntiles, bx, by, bz, L.grid[1], &t, &bi, &bj))
                    continue;
                if (t < 0 || t >= ntiles || bi < 0 || bi > bj || bj >= nblk) {
                    wrong++;
                    continue;
                }
                hits[t * npair + (int64_t)bi * nblk + bj]++;
                double *tile = a + t * sz;
                for (unsigned ty = 0; ty < L.block[1]; ty++)
                    for (unsigned tx = 0; tx < L.block[0]; tx++)
                        hyt_transpose_load(tile, nb, bi, bj, tx, ty, sa, sb);
                for (unsigned ty = 0; ty < L.block[1]; ty++)
                    for (unsigned tx = 0; tx < L.block[0]; tx++)
                        hyt_transpose_store(tile, nb, bi, bj, tx, ty, sa, sb);
            }
    for (int64_t t = 0; t < ntiles; t++)
        for (int i = 0; i < nblk; i++)
            for (int j = 0; j < nblk; j++)
                wrong += hits[t * npair + (int64_t)i * nblk + j] != (i <= j);
    for (int64_t i = 0; i < n; i++)
        wrong += a[i] != ref[i];
    CHECK(!wrong, "nb %d, %lld tiles: %lld wrong elements or blocks", nb, (long long)ntiles,
          (long long)wrong);
    free(a);
    free(ref);
    free(hits);
}

/* Every thread of the launch: each (column, element) exactly once. */
static void check_laswp_grid(int nb, int ncols)
{
    hyt_launch_t L = {{0}, {0}};
    int g = hyt_laswp_launch(nb, ncols, 1, &L);
    CHECK(g == 0 && launch_ok(&L) && L.block[0] % 32 == 0 && L.block[0] <= HYT_LASWP_BLOCK,
          "nb %d, %d columns: launch %d, block %u", nb, ncols, g, L.block[0]);
    if (g)
        return;
    int64_t n = (int64_t)nb * ncols, wrong = 0;
    unsigned char *hits = xmalloc((size_t)n);
    memset(hits, 0, (size_t)n);
    for (unsigned bz = 0; bz < L.grid[2]; bz++)
        for (unsigned by = 0; by < L.grid[1]; by++)
            for (unsigned bx = 0; bx < L.grid[0]; bx++)
                for (unsigned tx = 0; tx < L.block[0]; tx++) {
                    int b, c;
                    if (!hyt_laswp_thread(nb, ncols, bx, by, bz, L.grid[1], L.block[0], tx, &b,
                                          &c))
                        continue;
                    if (b < 0 || b >= ncols || c < 0 || c >= nb) {
                        wrong++;
                        continue;
                    }
                    /* consecutive threads of a warp: consecutive elements of the row */
                    wrong += c % 32 != (int)(tx % 32);
                    hits[(int64_t)b * nb + c]++;
                }
    for (int64_t i = 0; i < n; i++)
        wrong += hits[i] != 1;
    CHECK(!wrong, "nb %d, %d columns: %lld threads wrong or elements missed", nb, ncols,
          (long long)wrong);
    free(hits);
}

/* The grid leaf's columns in passes (hyt_gpu_geometry.h: hyt_leaf_pass_*), as the kernel runs
 * them, on R rows of w columns: each row in its pass places, the pivot picked on the logical
 * entries (LAPACK's rule: the largest |a| among the rows of logical row >= jj, NaN never, the
 * lowest row on ties; the diagonal row when its entry is NaN or nobody offers one), the
 * interchanges as relabellings, the pivot row out by logical entry, the rows below scaled and
 * their next entry updated, the rest of that update deferred to the next column, every row
 * rotated after each pass and, after the last, on to a whole turn.  Against dgetf2
 * with the same arithmetic and real interchanges: the same pivots and the same bits (NaN where
 * NaN). */
static void check_leaf_passes(int R, int w, int kind, test_rng_t *rng)
{
    enum { W = HYT_PANEL_LEAF_W, U = HYT_PANEL_LEAF_PASS };
    double *x = xmalloc((size_t)R * W * sizeof *x), *ref = xmalloc((size_t)R * W * sizeof *ref);
    int *lr = xmalloc((size_t)R * sizeof *lr);
    for (int r = 0; r < R; r++) {
        lr[r] = r;
        for (int k = 0; k < W; k++) {
            double v = kind == 1 ? (double)(test_randint(rng, 4) - 2) : test_uniform(rng);
            if (kind == 1 && v >= 0.0)
                v += 1.0; /* ties: entries in {-2, -1, 1, 2} */
            if (kind == 2 && k == 3)
                v = 0.0; /* a zero column: a zero pivot, no scaling */
            if (kind == 3 && k == 5 && r % 3 == 1)
                v = NAN;
            x[(size_t)r * W + k] = ref[(size_t)r * W + k] = k < w ? v : 0.0;
        }
    }
    int piv[W], rpiv[W], wrong = 0;
    double bufs[2][W];
    for (int g = 0; g < w; g += U) {
        for (int q = 0; q < U && g + q < w; q++) {
            const int jj = g + q;
            double *const buf = bufs[jj & 1];
            const double *const uo = bufs[(jj & 1) ^ 1];
            int best = -1, d = -1;
            for (int r = 0; r < R; r++) {
                const double v = x[(size_t)r * W + q];
                if (lr[r] == jj)
                    d = r;
                if (lr[r] >= jj && !isnan(v) &&
                    (best < 0 || fabs(v) > fabs(x[(size_t)best * W + q]) ||
                     (fabs(v) == fabs(x[(size_t)best * W + q]) && lr[r] < lr[best])))
                    best = r;
            }
            if (best < 0 || isnan(x[(size_t)d * W + q]))
                best = d;
            const int p = lr[best];
            piv[jj] = p;
            /* the rows below the last pivot owe its update right of jj, deferred (the kernel
             * applies it while the CTAs' keys travel): the pivot row on its way out, the rows
             * after, with the multiplier in the last column's place */
            const int lq = q > 0 ? q - 1 : W - 1;
            hyt_leaf_pass_row_out(x + (size_t)best * W, q, g, buf);
            if (jj > 0 && lr[best] >= jj)
                for (int k = jj + 1; k < W; k++)
                    buf[k] = fma(-x[(size_t)best * W + lq], uo[k], buf[k]);
            for (int r = 0; r < R; r++)
                if (jj > 0 && lr[r] >= jj)
                    hyt_leaf_pass_row_rest(x + (size_t)r * W, q, g, x[(size_t)r * W + lq], uo);
            for (int r = 0; r < R; r++)
                lr[r] = lr[r] == p ? jj : lr[r] == jj ? p : lr[r];
            for (int r = 0; r < R; r++)
                if (lr[r] > jj)
                    hyt_leaf_pass_row_next(x + (size_t)r * W, q, g, buf[jj], buf);
        }
        for (int r = 0; r < R; r++)
            hyt_leaf_pass_rotate(x + (size_t)r * W);
    }
    for (int r = 0; r < R; r++)
        hyt_leaf_pass_finish(x + (size_t)r * W, w);
    /* dgetf2 on ref: rows interchanged, the same pivot rule and arithmetic */
    for (int j = 0; j < w; j++) {
        int p = -1;
        for (int r = j; r < R; r++) {
            const double v = ref[(size_t)r * W + j];
            if (!isnan(v) && (p < 0 || fabs(v) > fabs(ref[(size_t)p * W + j])))
                p = r;
        }
        if (p < 0 || isnan(ref[(size_t)j * W + j]))
            p = j;
        rpiv[j] = p;
        for (int k = 0; k < W; k++) {
            const double t = ref[(size_t)j * W + k];
            ref[(size_t)j * W + k] = ref[(size_t)p * W + k];
            ref[(size_t)p * W + k] = t;
        }
        const double pv = ref[(size_t)j * W + j];
        for (int r = j + 1; r < R; r++) {
            double l = ref[(size_t)r * W + j];
            if (pv != 0.0)
                l = fabs(pv) >= DBL_MIN ? l * (1.0 / pv) : l / pv;
            ref[(size_t)r * W + j] = l;
            for (int k = j + 1; k < w; k++)
                ref[(size_t)r * W + k] = fma(-l, ref[(size_t)j * W + k], ref[(size_t)r * W + k]);
        }
    }
    for (int j = 0; j < w; j++)
        wrong += piv[j] != rpiv[j];
    for (int r = 0; r < R; r++)
        for (int k = 0; k < w; k++) {
            const double a = x[(size_t)r * W + k], b = ref[(size_t)lr[r] * W + k];
            /* NaN as NaN: a NaN's sign may follow how the compiler negated an operand */
            wrong += memcmp(&a, &b, sizeof a) != 0 && !(isnan(a) && isnan(b));
        }
    CHECK(!wrong, "leaf in passes, R %d, w %d, data %d: %d pivots or entries differ from dgetf2",
          R, w, kind, wrong);
    free(x);
    free(ref);
    free(lr);
}

static void test_geometry(void)
{
    static const int nbs[] = {1, 2, 7, 31, 32, 33, 64, 100};
    for (size_t i = 0; i < sizeof nbs / sizeof nbs[0]; i++)
        for (int nt = 0; nt <= 3; nt++)
            check_transpose_grid(nbs[i], nt);
    check_transpose_grid(256, 2);
    check_transpose_grid(65, 3);
    check_transpose_grid(1024, 1);
    /* more tiles than grid.y takes: the tiles continue along grid.z */
    check_transpose_grid(2, 70000);

    {
        static const int ws[] = {32, 31, 27, 24, 9, 8, 5, 1};
        test_rng_t prng = {15};
        for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
            for (int kind = 0; kind < 4; kind++)
                check_leaf_passes(kind == 0 ? 100 : 64, ws[i], kind, &prng);
        check_leaf_passes(3, 3, 0, &prng); /* fewer rows than a pass */
    }

    /* nb 1024 and a million tiles (2^40 doubles: the kernel offsets tile t by t * stride in
     * 64 bits): the blocks sampled, each its tile and its pair of the triangle from its index */
    int nb = 1024;
    const int nblk = nb / HYT_TRANSPOSE_B;
    int64_t ntiles = 1000000;
    hyt_launch_t L = {{0}, {0}};
    CHECK(hyt_transpose_launch(nb, ntiles, &L) == 0 && launch_ok(&L) &&
              L.grid[0] == (unsigned)(nblk * (nblk + 1) / 2),
          "nb 1024, 1e6 tiles: no valid grid");
    test_rng_t rng = {14};
    int wrong = 0;
    for (int s = 0; s < 100000; s++) {
        int64_t t = s == 0 ? ntiles - 1 : (int64_t)(test_rand(&rng) % (unsigned long long)ntiles);
        int i = s == 0 ? nblk - 1 : test_randint(&rng, nblk);
        int j = s == 0 ? nblk - 1 : i + test_randint(&rng, nblk - i);
        unsigned by = (unsigned)(t % L.grid[1]), bz = (unsigned)(t / L.grid[1]);
        unsigned bx = (unsigned)(i * nblk - i * (i - 1) / 2 + (j - i));
        int64_t tt = -1;
        int bi = -1, bj = -1;
        int act = hyt_transpose_block(nb, ntiles, bx, by, bz, L.grid[1], &tt, &bi, &bj);
        wrong += !act || tt != t || bi != i || bj != j;
    }
    CHECK(!wrong, "nb 1024, 1e6 tiles: %d sampled blocks wrong", wrong);
    /* blocks past the last tile (grid.y x grid.z > ntiles) are idle */
    if ((int64_t)L.grid[1] * L.grid[2] > ntiles) {
        int64_t t;
        int bi, bj;
        CHECK(!hyt_transpose_block(nb, ntiles, 1, L.grid[1] - 1, L.grid[2] - 1, L.grid[1], &t,
                                   &bi, &bj), "a block past the last tile works");
    }
    {
        int64_t t;
        int bi, bj;
        CHECK(!hyt_transpose_block(nb, ntiles, L.grid[0], 0, 0, L.grid[1], &t, &bi, &bj),
              "a block past the last pair works");
    }
    CHECK(hyt_transpose_launch(nb, HYT_GRID_MAX_YZ * HYT_GRID_MAX_YZ, &L) == 0,
          "65535^2 tiles rejected");
    CHECK(hyt_transpose_launch(nb, HYT_GRID_MAX_YZ * HYT_GRID_MAX_YZ + 1, &L) == -1,
          "more than 65535^2 tiles accepted");
    CHECK(hyt_transpose_launch(1 << 22, 1, &L) == -1, "nb 2^22 (2^33 block pairs) accepted");

    static const int lnbs[] = {1, 7, 32, 33, 256, 300, 1024};
    for (size_t i = 0; i < sizeof lnbs / sizeof lnbs[0]; i++)
        for (int ncols = 1; ncols <= 5; ncols++)
            check_laswp_grid(lnbs[i], ncols);
    check_laswp_grid(1, 70000);
    check_laswp_grid(3, 66000);
    CHECK(hyt_laswp_launch(32, 0, 5, &L) == 1 && hyt_laswp_launch(32, 5, 0, &L) == 1,
          "no-op interchanges launch");
    CHECK(hyt_laswp_launch(32, INT_MAX, 1, &L) == 0 && launch_ok(&L), "INT_MAX columns");
}

/* ============================================================================================
 * (b) the dispatchers in device tasks
 */

typedef struct tr_args {
    double *tiles;
    int nb;
    int64_t ntiles;
} tr_args_t;

static int tr_body(const hyt_devctx_t *dc, void *p)
{
    tr_args_t *a = p;
    return forward(dc, hyt_gpu_transpose_tiles(dc, a->tiles, a->nb, a->ntiles));
}

typedef struct sw_args {
    double *col0;
    int64_t colstride;
    int ncols, nb, r1, npiv;
    const int *ipiv;
} sw_args_t;

static int sw_body(const hyt_devctx_t *dc, void *p)
{
    sw_args_t *a = p;
    return forward(dc, hyt_gpu_dlaswp_crrb(dc, a->col0, a->colstride, a->ncols, a->nb, a->r1,
                                           a->npiv, a->ipiv));
}

typedef struct sp_args {
    double *col0, *top;
    int64_t colstride;
    int ncols, nb, r1, npiv;
    const int *ipiv;
    int *plan;
} sp_args_t;

/* plan, gather, scatter, then the gathered rows back into the columns */
static int sp_body(const hyt_devctx_t *dc, void *p)
{
    sp_args_t *a = p;
    const int64_t nt = (int64_t)a->npiv * a->nb;
    int rc = hyt_gpu_dlaswp_plan(dc, a->r1, a->npiv, a->ipiv, a->plan);
    if (!rc)
        rc = hyt_gpu_dlaswp_gather(dc, a->col0, a->colstride, a->ncols, a->nb, a->npiv, a->plan,
                                   a->top, nt);
    if (!rc)
        rc = hyt_gpu_dlaswp_scatter(dc, a->col0, a->colstride, a->ncols, a->nb, a->npiv,
                                    a->plan);
    if (!rc && nt > 0)
        rc = hyt_dev_memcpy2d(dc, a->col0 + (int64_t)a->r1 * a->nb,
                              (size_t)a->colstride * sizeof(double), a->top,
                              (size_t)nt * sizeof(double), (size_t)nt * sizeof(double),
                              (size_t)a->ncols, 2);
    return forward(dc, rc);
}

typedef struct mm_args {
    gcase_t g;
    const double *A, *B;
    double *C;
    int per_call;
} mm_args_t;

static int mm_body(const hyt_devctx_t *dc, void *p)
{
    mm_args_t *a = p;
    const gcase_t *g = &a->g;
    return forward(dc, hyt_gpu_dgemm_batched(dc, g->ta, g->tb, g->m, g->n, g->k, g->alpha, a->A,
                                             g->lda, g->sa, a->B, g->ldb, g->sb, g->beta, a->C,
                                             g->ldc, g->sc, g->batch, a->per_call));
}

static const hyt_kernel_t tr_kernel = {.name = "transpose", .dev = tr_body, .cat = HYT_CAT_GPU};
static const hyt_kernel_t sw_kernel = {.name = "dlaswp_crrb", .dev = sw_body, .cat = HYT_CAT_GPU};
static const hyt_kernel_t sp_kernel = {.name = "dlaswp_plan", .dev = sp_body, .cat = HYT_CAT_GPU};
static const hyt_kernel_t mm_kernel = {.name = "dgemm_batched", .dev = mm_body,
                                       .cat = HYT_CAT_GPU};

/* Device buffers of one round trip, freed together. */
typedef struct dbufs {
    hyt_device_t *dev;
    void *p[4];
    int n;
} dbufs_t;

static int dalloc(dbufs_t *d, size_t bytes, void **out)
{
    int rc = hyt_device_malloc(d->dev, out, bytes);
    if (!rc)
        d->p[d->n++] = *out;
    return rc;
}

static void dfree(dbufs_t *d)
{
    for (int i = 0; i < d->n; i++)
        hyt_device_free(d->dev, d->p[i]);
    d->n = 0;
}

/* host[0..ntiles*nb*nb) -> device, transposed there, -> host.  0 or the first error. */
static int dev_transpose(hyt_context_t *ctx, double *host, int nb, int64_t ntiles)
{
    dbufs_t d = {hyt_context_device(ctx, 0), {0}, 0};
    size_t bytes = (size_t)(ntiles * nb * nb) * sizeof *host;
    void *x;
    int rc = dalloc(&d, bytes, &x);
    hyt_sequence_t *seq = NULL;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        tr_args_t a = {x, nb, ntiles};
        hyt_dep_t dep = {x, HYT_RW};
        rc = insert_copy(seq, x, host, bytes, 0);
        if (!rc)
            rc = insert_dev(seq, &tr_kernel, &a, sizeof a, HYT_STREAM_COMPUTE, &dep, 1);
        if (!rc)
            rc = insert_copy(seq, host, x, bytes, 1);
        rc = hyt_sequence_finish(seq, rc);
    }
    dfree(&d);
    return rc;
}

/* The columns (len doubles) and ipiv to the device, interchanges there, columns back: by
 * hyt_gpu_dlaswp_crrb (stream < 0), or through plan, gather and scatter on `stream` (LAPACK's
 * pivots). */
static int dev_laswp_on(hyt_context_t *ctx, double *host, size_t len, const lcase_t *L,
                        const int *ipiv_host, int stream)
{
    dbufs_t d = {hyt_context_device(ctx, 0), {0}, 0};
    size_t bytes = len * sizeof *host, pbytes = ((size_t)L->npiv + 1) * sizeof *ipiv_host;
    size_t tbytes = ((size_t)L->npiv * L->nb * L->ncols + 1) * sizeof *host;
    void *x, *ip, *top = NULL, *plan = NULL;
    int rc = dalloc(&d, bytes, &x);
    if (!rc)
        rc = dalloc(&d, pbytes, &ip);
    if (!rc && stream >= 0)
        rc = dalloc(&d, tbytes, &top);
    if (!rc && stream >= 0)
        rc = dalloc(&d, 3 * pbytes, &plan);
    hyt_sequence_t *seq = NULL;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        sw_args_t a = {x, L->colstride, L->ncols, L->nb, L->r1, L->npiv, ip};
        sp_args_t b = {x, top, L->colstride, L->ncols, L->nb, L->r1, L->npiv, ip, plan};
        hyt_dep_t deps[2] = {{x, HYT_RW}, {ip, HYT_READ}};
        rc = insert_copy(seq, x, host, bytes, 0);
        if (!rc)
            rc = insert_copy(seq, ip, ipiv_host, pbytes, 0);
        if (!rc)
            rc = stream < 0
                     ? insert_dev(seq, &sw_kernel, &a, sizeof a, HYT_STREAM_COMPUTE, deps, 2)
                     : insert_dev(seq, &sp_kernel, &b, sizeof b, stream, deps, 2);
        if (!rc)
            rc = insert_copy(seq, host, x, bytes, 1);
        rc = hyt_sequence_finish(seq, rc);
    }
    dfree(&d);
    return rc;
}

static int dev_laswp(hyt_context_t *ctx, double *host, size_t len, const lcase_t *L,
                     const int *ipiv_host)
{
    return dev_laswp_on(ctx, host, len, L, ipiv_host, -1);
}

/* A, B, C (la, lb, lc doubles) to the device, the batched GEMM there on the matrices that
 * start at A + oa, B + ob, C + oc (task on `stream`), C back. */
static int dev_gemm_at(hyt_context_t *ctx, const gcase_t *g, const double *A, size_t la,
                       size_t oa, const double *B, size_t lb, size_t ob, double *C, size_t lc,
                       size_t oc, int per_call, int stream)
{
    dbufs_t d = {hyt_context_device(ctx, 0), {0}, 0};
    size_t ba = la * sizeof *A, bb = lb * sizeof *B, bc = lc * sizeof *C;
    void *xa, *xb, *xc;
    int rc = dalloc(&d, ba, &xa);
    if (!rc)
        rc = dalloc(&d, bb, &xb);
    if (!rc)
        rc = dalloc(&d, bc, &xc);
    hyt_sequence_t *seq = NULL;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        mm_args_t a = {*g, (double *)xa + oa, (double *)xb + ob, (double *)xc + oc, per_call};
        hyt_dep_t deps[3] = {{xa, HYT_READ}, {xb, HYT_READ}, {xc, HYT_RW}};
        rc = insert_copy(seq, xa, A, ba, 0);
        if (!rc)
            rc = insert_copy(seq, xb, B, bb, 0);
        if (!rc)
            rc = insert_copy(seq, xc, C, bc, 0);
        if (!rc)
            rc = insert_dev(seq, &mm_kernel, &a, sizeof a, stream, deps, 3);
        if (!rc)
            rc = insert_copy(seq, C, xc, bc, 1);
        rc = hyt_sequence_finish(seq, rc);
    }
    dfree(&d);
    return rc;
}

/* A, B, C to the device, the batched GEMM there (task on `stream`), C back. */
static int dev_gemm(hyt_context_t *ctx, const gcase_t *g, const double *A, const double *B,
                    double *C, int per_call, int stream)
{
    return dev_gemm_at(ctx, g, A, len_a(g), 0, B, len_b(g), 0, C, len_c(g), 0, per_call,
                       stream);
}

typedef struct ti_args {
    char uplo;
    int n, bs, ldt, ldw;
    const double *T;
    double *W;
} ti_args_t;

static int ti_body(const hyt_devctx_t *dc, void *p)
{
    ti_args_t *a = p;
    return forward(dc, hyt_gpu_dtrtri_diag(dc, a->uplo, a->n, a->bs, a->T, a->ldt, a->W, a->ldw));
}

static const hyt_kernel_t ti_kernel = {.name = "dtrtri_diag", .dev = ti_body,
                                       .cat = HYT_CAT_GPU};

/* The inverses of a triangle's diagonal blocks: the reference against CBLAS's solve of the
 * identity (every block, to 16 w eps of its largest entry), each block's other triangle exactly
 * zero and W outside the blocks untouched; then the dispatcher on the device (a task on the
 * lookahead stream, as the Cholesky's panel calls it) against the reference to the bit (NaN
 * where it has NaN), with NaN in T's other triangle (neither reads it) and, in the last cases,
 * a zero and an infinite diagonal entry. */
static void test_dtrtri_diag(hyt_context_t *ctx)
{
    static const int cases[][3] = {{1, 128, 0},   {5, 128, 2},  {31, 32, 1},  {33, 32, 0},
                                   {100, 64, 3},  {128, 128, 0}, {129, 128, 1}, {300, 128, 5},
                                   {512, 128, 0}, {1000, 128, 7}, {77, 7, 1},   {40, 1, 0},
                                   {200, 100, 1}, {64, 128, 0},  {300, 128, 2}};
    const int ncases = (int)(sizeof cases / sizeof cases[0]), nspecial = 3;
    test_rng_t rng = {34};
    for (int i = 0; i < ncases; i++)
        for (int u = 0; u < 4; u++) {
            const char uplo = "LUlu"[u];
            const int n = cases[i][0], bs = cases[i][1], ld = n + cases[i][2];
            const int lo = uplo == 'L' || uplo == 'l', special = i >= ncases - nspecial;
            const size_t len = (size_t)ld * n;
            double *T = hmalloc(ctx, len), *W = hmalloc(ctx, len);
            double *W0 = xmalloc(len * sizeof *W), *ref = xmalloc(len * sizeof *W);
            test_triangle(&rng, T, n, ld, uplo, 'N');
            if (special) { /* a zero and an infinite pivot: NaN and Inf follow in both */
                T[3 + (size_t)3 * ld] = 0.0;
                T[(n - 2) + (size_t)(n - 2) * ld] = INFINITY;
            }
            fill(&rng, W0, len);
            memcpy(ref, W0, len * sizeof *W);
            hyt_ref_dtrtri_diag(uplo, n, bs, T, ld, ref, ld);
            int def_ok = 1;
            double worst = 0;
            for (int q = 0; q < n && !special; q += bs) {
                const int w = n - q < bs ? n - q : bs;
                double *Z = xmalloc((size_t)w * w * sizeof *Z), big = 0;
                for (int c = 0; c < w; c++)
                    for (int r = 0; r < w; r++)
                        Z[r + (size_t)c * w] = r == c;
                cblas_dtrsm(CblasColMajor, CblasLeft, lo ? CblasLower : CblasUpper,
                            CblasNoTrans, CblasNonUnit, w, w, 1.0, T + q + (size_t)q * ld, ld, Z,
                            w);
                for (size_t e = 0; e < (size_t)w * w; e++)
                    big = fmax(big, fabs(Z[e]));
                for (int c = 0; c < w; c++)
                    for (int r = 0; r < w; r++) {
                        const double x = ref[q + r + (size_t)(q + c) * ld];
                        if (lo ? r < c : r > c)
                            def_ok &= x == 0.0 && !signbit(x);
                        else
                            worst = fmax(worst, fabs(x - Z[r + (size_t)c * w]) / big);
                    }
                free(Z);
            }
            for (int c = 0; c < n; c++) /* outside the diagonal blocks: untouched */
                for (int r = 0; r < ld; r++)
                    if (r >= n || r / bs != c / bs)
                        def_ok &= ref[r + (size_t)c * ld] == W0[r + (size_t)c * ld];
            CHECK(def_ok, "hyt_ref_dtrtri_diag '%c' n %d bs %d: a block's other triangle not "
                  "zero, or W written outside its diagonal blocks", uplo, n, bs);
            CHECK(!(worst > 16.0 * bs * DBL_EPSILON), "hyt_ref_dtrtri_diag '%c' n %d bs %d: "
                  "%.3g from CBLAS's inverse (relative to its largest entry)", uplo, n, bs,
                  worst);
            dbufs_t d = {hyt_context_device(ctx, 0), {0}, 0};
            void *dT, *dW;
            hyt_sequence_t *seq = NULL;
            memcpy(W, W0, len * sizeof *W);
            int rc = dalloc(&d, len * sizeof *T, &dT);
            if (!rc)
                rc = dalloc(&d, len * sizeof *W, &dW);
            if (!rc)
                rc = hyt_sequence_create(ctx, &seq);
            if (!rc) {
                ti_args_t ta = {uplo, n, bs, ld, ld, dT, dW};
                hyt_dep_t deps[2] = {{dT, HYT_READ}, {dW, HYT_RW}};
                rc = insert_copy(seq, dT, T, len * sizeof *T, 0);
                if (!rc)
                    rc = insert_copy(seq, dW, W, len * sizeof *W, 0);
                if (!rc)
                    rc = insert_dev(seq, &ti_kernel, &ta, sizeof ta, HYT_STREAM_LOOKAHEAD, deps,
                                    2);
                if (!rc)
                    rc = insert_copy(seq, W, dW, len * sizeof *W, 1);
                rc = hyt_sequence_finish(seq, rc);
            }
            dfree(&d);
            CHECK(rc == 0, "dtrtri_diag '%c' n %d bs %d: %s", uplo, n, bs, hyt_last_error());
            size_t bad = 0, first = 0;
            for (size_t e = 0; !rc && e < len; e++)
                if (!test_same(W[e], ref[e]) && !bad++)
                    first = e;
            CHECK(!bad, "dtrtri_diag '%c' n %d bs %d: %zu entries differ from the reference, "
                  "first (%zu, %zu): %.17g against %.17g", uplo, n, bs, bad, first % ld,
                  first / ld, W[first], ref[first]);
            hyt_host_free(ctx, T);
            hyt_host_free(ctx, W);
            free(W0);
            free(ref);
        }
}

typedef struct ic_args {
    int *dst;
    const int *src;
    int n;
} ic_args_t;

static int ic_body(const hyt_devctx_t *dc, void *p)
{
    ic_args_t *a = p;
    return forward(dc, hyt_gpu_icopy_to_host(dc, a->dst, a->src, a->n));
}

static const hyt_kernel_t ic_kernel = {.name = "icopy_to_host", .dev = ic_body,
                                       .cat = HYT_CAT_GPU};

/* icopy_to_host: ints in device memory to page-locked host memory (on CUDA a kernel writes
 * them through the mapping) and to pageable memory (a copy), on the panel stream as the LU's
 * panel calls it; exactly what was sent, nothing after n touched. */
static void test_icopy(hyt_context_t *ctx)
{
    static const int ns[] = {1, 2, 255, 256, 257, 1024, 5000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int pinned = 0; pinned < 2; pinned++) {
            const int n = ns[i];
            int *src = xmalloc(((size_t)n + 1) * sizeof *src);
            int *dst = pinned ? (int *)hmalloc(ctx, (size_t)n + 1)
                              : xmalloc(((size_t)n + 1) * sizeof *dst);
            for (int q = 0; q <= n; q++) {
                src[q] = q * 7919 - 3;
                dst[q] = -1;
            }
            dbufs_t d = {hyt_context_device(ctx, 0), {0}, 0};
            void *x;
            hyt_sequence_t *seq = NULL;
            int rc = dalloc(&d, (size_t)n * sizeof *src, &x);
            if (!rc)
                rc = hyt_sequence_create(ctx, &seq);
            if (!rc) {
                ic_args_t a = {dst, x, n};
                hyt_dep_t deps[2] = {{x, HYT_READ}, {dst, HYT_WRITE}};
                rc = insert_copy(seq, x, src, (size_t)n * sizeof *src, 0);
                if (!rc)
                    rc = insert_dev(seq, &ic_kernel, &a, sizeof a, HYT_STREAM_PANEL, deps, 2);
                rc = hyt_sequence_finish(seq, rc);
            }
            dfree(&d);
            CHECK(rc == 0, "icopy_to_host n = %d (%s): %s", n, pinned ? "page-locked" :
                  "pageable", hyt_last_error());
            CHECK(!rc && !memcmp(dst, src, (size_t)n * sizeof *src) && dst[n] == -1,
                  "icopy_to_host n = %d (%s): not what was sent", n, pinned ? "page-locked" :
                  "pageable");
            if (pinned)
                hyt_host_free(ctx, dst);
            else
                free(dst);
            free(src);
        }
}

static void test_dev_transpose(hyt_context_t *ctx)
{
    static const int cases[][2] = {{1, 0}, {1, 3}, {7, 0}, {7, 1}, {7, 5}, {32, 1}, {32, 3},
                                   {256, 1}, {256, 3}, {1024, 2}, {2, 70000}, {33, 2}};
    test_rng_t rng = {21};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int nb = cases[i][0];
        int64_t nt = cases[i][1];
        size_t n = (size_t)(nt * nb * nb);
        double *a = hmalloc(ctx, n), *ref = xmalloc((n + 1) * sizeof *a);
        fill(&rng, a, n);
        memcpy(ref, a, n * sizeof *a);
        hyt_ref_transpose_tiles(ref, nb, nt);
        int rc = dev_transpose(ctx, a, nb, nt);
        CHECK(rc == 0, "transpose nb %d, %lld tiles: %s: %s", nb, (long long)nt,
              hyt_strerror(rc), hyt_last_error());
        CHECK(!rc && !memcmp(a, ref, n * sizeof *a), "transpose nb %d, %lld tiles: differs from "
              "the reference", nb, (long long)nt);
        hyt_host_free(ctx, a);
        free(ref);
    }
}

static void run_laswp_case(hyt_context_t *ctx, test_rng_t *rng, const lcase_t *L)
{
    size_t len = lcase_len(L) + 4;
    double *a = hmalloc(ctx, len), *ref = xmalloc(len * sizeof *a), *e = xmalloc(len * sizeof *a);
    int *ipiv = hyt_host_malloc(ctx, ((size_t)L->npiv + 1) * sizeof *ipiv);
    REQUIRE(ipiv, "hyt_host_malloc");
    fill(rng, a, len);
    make_pivots(rng, ipiv, L);
    memcpy(ref, a, len * sizeof *a);
    expected_laswp(L, ipiv, a, e);
    hyt_ref_dlaswp_crrb(ref, L->colstride, L->ncols, L->nb, L->r1, L->npiv, ipiv);
    int rc = dev_laswp(ctx, a, len, L, ipiv);
    CHECK(rc == 0, "dlaswp_crrb nb %d, %d columns, r1 %d, npiv %d: %s: %s", L->nb, L->ncols,
          L->r1, L->npiv, hyt_strerror(rc), hyt_last_error());
    CHECK(!rc && !memcmp(a, ref, len * sizeof *a) && !memcmp(a, e, len * sizeof *a),
          "dlaswp_crrb nb %d, %d columns (stride %lld), r1 %d, npiv %d: differs from the "
          "reference", L->nb, L->ncols, (long long)L->colstride, L->r1, L->npiv);
    hyt_host_free(ctx, a);
    hyt_host_free(ctx, ipiv);
    free(ref);
    free(e);
}

static void run_laswp_plan_case(hyt_context_t *ctx, test_rng_t *rng, const lcase_t *L,
                                int stream)
{
    size_t len = lcase_len(L) + 4;
    double *a = hmalloc(ctx, len), *ref = xmalloc(len * sizeof *a);
    int *ipiv = hyt_host_malloc(ctx, ((size_t)L->npiv + 1) * sizeof *ipiv);
    REQUIRE(ipiv, "hyt_host_malloc");
    fill(rng, a, len);
    make_lapack_pivots(rng, ipiv, L);
    memcpy(ref, a, len * sizeof *a);
    hyt_ref_dlaswp_crrb(ref, L->colstride, L->ncols, L->nb, L->r1, L->npiv, ipiv);
    int rc = dev_laswp_on(ctx, a, len, L, ipiv, stream);
    CHECK(rc == 0 && !memcmp(a, ref, len * sizeof *a), "dlaswp plan/gather/scatter nb %d, %d "
          "columns (stride %lld), r1 %d, npiv %d, stream %d: %s", L->nb, L->ncols,
          (long long)L->colstride, L->r1, L->npiv, stream,
          rc ? hyt_last_error() : "differs from the reference");
    hyt_host_free(ctx, a);
    hyt_host_free(ctx, ipiv);
    free(ref);
}

/* Plan, gather and scatter against the interchanges one after the other: LAPACK's pivots, nb up
 * to the LU's 1024, up to 1024 pivots (a block of threads, and a loop beyond) and past it. */
static void test_dev_laswp_plan(hyt_context_t *ctx)
{
    static const int cases[][3] = {{1, 1, 1},    {7, 3, 5},    {32, 2, 32},  {32, 5, 65},
                                   {33, 2, 100}, {256, 3, 256}, {256, 2, 1},  {1024, 2, 1024},
                                   {64, 3, 1100}, {512, 70, 16}};
    test_rng_t rng = {23};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int s = 0; s < 2; s++) {
            lcase_t L = laswp_case(&rng, cases[i][0], cases[i][1], cases[i][2]);
            run_laswp_plan_case(ctx, &rng, &L, s ? HYT_STREAM_LOOKAHEAD : HYT_STREAM_COMPUTE);
        }
}

static void test_dev_laswp(hyt_context_t *ctx)
{
    static const int nbs[] = {1, 7, 32, 256};
    static const int npiv256[] = {0, 1, 2, 17, 128, 255, 256};
    test_rng_t rng = {22};
    for (size_t i = 0; i < sizeof nbs / sizeof nbs[0]; i++) {
        int nb = nbs[i];
        for (int ncols = 1; ncols <= 5; ncols++) {
            int np = nb <= 32 ? nb + 1 : (int)(sizeof npiv256 / sizeof npiv256[0]);
            for (int j = 0; j < np; j++) {
                lcase_t L = laswp_case(&rng, nb, ncols, nb <= 32 ? j : npiv256[j]);
                run_laswp_case(ctx, &rng, &L);
            }
        }
        /* the pivots of several steps at once */
        lcase_t L = laswp_case(&rng, nb, 2, 2 * nb + 1);
        run_laswp_case(ctx, &rng, &L);
    }
    /* more columns than grid.y takes */
    lcase_t L = {2, 70000, 2, 1, 3, 8};
    run_laswp_case(ctx, &rng, &L);
}

static void test_dev_gemm(hyt_context_t *ctx)
{
    static const int batches[] = {0, 1, 3};
    test_rng_t rng = {23};
    int variant = 0;
    for (int s = 0; s < NSHAPES; s++)
        for (int t = 0; t < NTRANS; t++)
            for (int bi = 0; bi < 3; bi++)
                for (int per_call = 0; per_call <= HYT_GEMM_LT; per_call++, variant++) {
                    gcase_t g = gemm_case(&rng, gemm_trans[t][0], gemm_trans[t][1],
                                          gemm_shapes[s][0], gemm_shapes[s][1], gemm_shapes[s][2],
                                          batches[bi], variant);
                    double *A, *B, *C;
                    gemm_data(&rng, &g, &A, &B, &C);
                    size_t la = len_a(&g), lb = len_b(&g), lc = len_c(&g);
                    double *hA = hmalloc(ctx, la), *hB = hmalloc(ctx, lb), *hC = hmalloc(ctx, lc);
                    memcpy(hA, A, la * sizeof *A);
                    memcpy(hB, B, lb * sizeof *B);
                    memcpy(hC, C, lc * sizeof *C);
                    hyt_ref_dgemm_batched(g.ta, g.tb, g.m, g.n, g.k, g.alpha, A, g.lda, g.sa, B,
                                          g.ldb, g.sb, g.beta, C, g.ldc, g.sc, g.batch);
                    char label[200];
                    gemm_label(&g, label, sizeof label);
                    int rc = dev_gemm(ctx, &g, hA, hB, hC, per_call, HYT_STREAM_COMPUTE);
                    CHECK(rc == 0, "gemm %s per_call %d: %s: %s", label, per_call,
                          hyt_strerror(rc), hyt_last_error());
                    unsigned char *act = gemm_active(&g);
                    double scale = 0, diff = 0;
                    int bad_rest = 0, nan = 0;
                    for (size_t i = 0; i < lc; i++) {
                        if (act[i]) {
                            scale = fmax(scale, fabs(C[i]));
                            diff = fmax(diff, fabs(hC[i] - C[i]));
                            nan += isnan(hC[i]);
                        } else {
                            bad_rest += memcmp(&hC[i], &C[i], sizeof *C) != 0;
                        }
                    }
                    CHECK(!rc && !nan && diff <= 1e-12 * scale, "gemm %s per_call %d: max "
                          "difference %.3g relative to %.3g (%d NaN)", label, per_call, diff,
                          scale, nan);
                    CHECK(!rc && !bad_rest, "gemm %s per_call %d: %d elements outside the C_b "
                          "changed", label, per_call, bad_rest);
                    free(act);
                    free(A);
                    free(B);
                    free(C);
                    hyt_host_free(ctx, hA);
                    hyt_host_free(ctx, hB);
                    hyt_host_free(ctx, hC);
                }

    /* HYT_GEMM_LT keeps 256 shapes per device: 300 shapes (pointers of every alignment
     * cublasLt distinguishes, 8 to 256 bytes), then the first ones again after they were
     * replaced */
    for (int rep = 0; rep < 2; rep++)
        for (int i = 0; i < (rep ? 40 : 300); i++) {
            gcase_t g = {"NT"[i % 2], "TN"[i / 2 % 2], 1 + i % 37, 1 + i / 37, 1 + i % 5, 0, 0, 0,
                         1, -1.0, 1.0, 0, 0, 0};
            g.lda = max1(notrans(g.ta) ? g.m : g.k) + i % 3;
            g.ldb = max1(notrans(g.tb) ? g.k : g.n) + i % 4;
            g.ldc = max1(g.m) + i % 2;
            const size_t off = (size_t)i % 32; /* the matrices start this far in */
            size_t la = len_a(&g) + off, lb = len_b(&g) + off, lc = len_c(&g) + off;
            double *A = xmalloc(la * sizeof *A), *B = xmalloc(lb * sizeof *B);
            double *C = xmalloc(lc * sizeof *C);
            fill(&rng, A, la);
            fill(&rng, B, lb);
            fill(&rng, C, lc);
            double *hA = hmalloc(ctx, la), *hB = hmalloc(ctx, lb), *hC = hmalloc(ctx, lc);
            memcpy(hA, A, la * sizeof *A);
            memcpy(hB, B, lb * sizeof *B);
            memcpy(hC, C, lc * sizeof *C);
            hyt_ref_dgemm_batched(g.ta, g.tb, g.m, g.n, g.k, g.alpha, A + off, g.lda, 0, B + off,
                                  g.ldb, 0, g.beta, C + off, g.ldc, 0, 1);
            int rc = dev_gemm_at(ctx, &g, hA, la, off, hB, lb, off, hC, lc, off, HYT_GEMM_LT,
                                 HYT_STREAM_COMPUTE);
            double diff = 0, scale = 0;
            for (size_t j = 0; j < lc; j++) {
                diff = fmax(diff, fabs(hC[j] - C[j]));
                scale = fmax(scale, fabs(C[j]));
            }
            CHECK(!rc && diff <= 1e-12 * scale, "gemm through cublasLt, shape %d (%c%c m %d n %d "
                  "k %d, offset %lld), pass %d: %s; max difference %.3g relative to %.3g", i,
                  g.ta, g.tb, g.m, g.n, g.k, (long long)off, rep, rc ? hyt_last_error() : "ok",
                  diff, scale);
            free(A), free(B), free(C);
            hyt_host_free(ctx, hA);
            hyt_host_free(ctx, hB);
            hyt_host_free(ctx, hC);
        }

    if (use_cuda) {
        /* cuBLAS only on the compute stream: a GEMM task on a copy stream is refused */
        gcase_t g = gemm_case(&rng, 'N', 'N', 4, 4, 4, 1, 0);
        double *hA = hmalloc(ctx, len_a(&g)), *hB = hmalloc(ctx, len_b(&g));
        double *hC = hmalloc(ctx, len_c(&g));
        fill(&rng, hA, len_a(&g));
        fill(&rng, hB, len_b(&g));
        fill(&rng, hC, len_c(&g));
        int rc = dev_gemm(ctx, &g, hA, hB, hC, 0, HYT_STREAM_H2D);
        CHECK(rc == HYT_ERR_INVALID && strstr(hyt_last_error(), "cuBLAS"), "GEMM on a copy "
              "stream: %s: %s", hyt_strerror(rc), hyt_last_error());
        hyt_host_free(ctx, hA);
        hyt_host_free(ctx, hB);
        hyt_host_free(ctx, hC);
    }
}

/* Argument checks, called directly (they return before touching the device). */
static void test_dev_args(hyt_context_t *ctx)
{
    hyt_devctx_t dc = {.dev = hyt_context_device(ctx, 0), .stream = HYT_STREAM_COMPUTE};
    double x[64] = {0};
    int ip[4] = {1, 2, 3, 4};

    EXPECT(hyt_gpu_transpose_tiles(NULL, x, 2, 1), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_transpose_tiles(&dc, x, 0, 1), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_transpose_tiles(&dc, x, 2, -1), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_transpose_tiles(&dc, NULL, 2, 1), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_transpose_tiles(&dc, x, 1 << 20, INT64_MAX / 1000), HYT_ERR_TOO_LARGE);
    EXPECT(hyt_gpu_transpose_tiles(&dc, NULL, 8, 0), 0);
    EXPECT(hyt_gpu_transpose_tiles(&dc, x, 1, 64), 0);

    EXPECT(hyt_gpu_dtrtri_diag(NULL, 'L', 2, 2, x, 2, x, 2), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dtrtri_diag(&dc, 'A', 2, 2, x, 2, x, 2), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dtrtri_diag(&dc, 'L', -1, 2, x, 2, x, 2), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dtrtri_diag(&dc, 'L', 2, 0, x, 2, x, 2), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dtrtri_diag(&dc, 'U', 2, HYT_TRTRI_DIAG_BS + 1, x, 2, x, 2), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dtrtri_diag(&dc, 'L', 3, 2, x, 2, x, 3), HYT_ERR_INVALID); /* ldt < n */
    EXPECT(hyt_gpu_dtrtri_diag(&dc, 'L', 3, 2, x, 3, x, 2), HYT_ERR_INVALID); /* ldw < n */
    EXPECT(hyt_gpu_dtrtri_diag(&dc, 'L', 2, 2, NULL, 2, x, 2), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dtrtri_diag(&dc, 'U', 0, 2, NULL, 1, NULL, 1), 0);
    int iv[2] = {0, 0};
    EXPECT(hyt_gpu_icopy_to_host(NULL, iv, iv + 1, 1), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_icopy_to_host(&dc, iv, iv + 1, -1), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_icopy_to_host(&dc, NULL, iv + 1, 1), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_icopy_to_host(&dc, iv, NULL, 0), 0);

    EXPECT(hyt_gpu_dlaswp_crrb(NULL, x, 16, 2, 2, 0, 2, ip), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, x, 16, 2, 0, 0, 2, ip), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, x, 16, -1, 2, 0, 2, ip), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, x, 16, 2, 2, -1, 2, ip), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, x, 16, 2, 2, 0, -1, ip), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, x, 16, 2, 2, INT_MAX - 1, 2, ip), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, x, 16, 2, 2, 0, 2, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, NULL, 16, 2, 2, 0, 2, ip), HYT_ERR_INVALID);
    /* rows 0..3 of nb 2 take 8 doubles: a stride of 7 overlaps the next column */
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, x, 7, 2, 2, 2, 2, ip), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, x, -8, 2, 2, 0, 2, ip), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, NULL, 16, 0, 2, 0, 2, ip), 0);
    EXPECT(hyt_gpu_dlaswp_crrb(&dc, NULL, 16, 2, 2, 0, 0, NULL), 0);
    if (!use_cuda) {
        int bad[2] = {1, 0};
        EXPECT(hyt_gpu_dlaswp_crrb(&dc, x, 16, 2, 2, 0, 2, bad), HYT_ERR_INVALID);
        /* a single column needs no stride */
        EXPECT(hyt_gpu_dlaswp_crrb(&dc, x, 0, 1, 2, 0, 2, ip), 0);
    }

    int pl[6] = {0};
    EXPECT(hyt_gpu_dlaswp_plan(NULL, 0, 2, ip, pl), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_plan(&dc, -1, 2, ip, pl), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_plan(&dc, 0, HYT_LASWP_PLAN_MAX + 1, ip, pl), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_plan(&dc, 0, 2, NULL, pl), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_plan(&dc, 0, 2, ip, NULL), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_plan(&dc, 0, 0, NULL, NULL), 0);
    EXPECT(hyt_gpu_dlaswp_gather(NULL, x, 16, 2, 2, 2, pl, x, 4), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_gather(&dc, x, 16, 2, 0, 2, pl, x, 4), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_gather(&dc, x, 3, 2, 2, 2, pl, x, 4), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_gather(&dc, x, 16, 2, 2, 2, pl, NULL, 4), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_gather(&dc, x, 16, 2, 2, 2, pl, x, 3), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_gather(&dc, x, 16, 2, 2, 2, NULL, x, 4), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_gather(&dc, NULL, 16, 0, 2, 2, NULL, NULL, 0), 0);
    EXPECT(hyt_gpu_dlaswp_scatter(NULL, x, 16, 2, 2, 2, pl), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_scatter(&dc, x, 16, -1, 2, 2, pl), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_scatter(&dc, NULL, 16, 2, 2, 2, pl), HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dlaswp_scatter(&dc, x, 16, 2, 2, 0, NULL), 0);
    if (!use_cuda) { /* LAPACK's pivots only: row 1's pivot above it */
        int up[2] = {2, 1};
        EXPECT(hyt_gpu_dlaswp_plan(&dc, 0, 2, up, pl), HYT_ERR_INVALID);
    }

    EXPECT(hyt_gpu_dgemm_batched(NULL, 'N', 'N', 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, x, 2, 4, 1, 0),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'X', 'N', 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, x, 2, 4, 1, 0),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, x, 2, 4, 1, 3),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, x, 2, 4, 1, -1),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'C', 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, x, 2, 4, 1, 0),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', -1, 2, 2, 1, x, 2, 4, x, 2, 4, 0, x, 2, 4, 1, 0),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 2, 2, -1, 1, x, 2, 4, x, 2, 4, 0, x, 2, 4, 1, 0),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, x, 2, 4, -1, 0),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 3, 2, 2, 1, x, 2, 6, x, 2, 4, 0, x, 3, 6, 1, 0),
           HYT_ERR_INVALID); /* lda < m */
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'T', 'N', 2, 2, 3, 1, x, 2, 6, x, 3, 6, 0, x, 2, 4, 1, 0),
           HYT_ERR_INVALID); /* lda < k with A transposed */
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'T', 2, 3, 2, 1, x, 2, 4, x, 2, 6, 0, x, 2, 6, 1, 0),
           HYT_ERR_INVALID); /* ldb < n with B transposed */
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, x, 1, 4, 1, 0),
           HYT_ERR_INVALID); /* ldc < m */
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 0, 2, 2, 1, x, 0, 4, x, 2, 4, 0, x, 1, 4, 1, 0),
           HYT_ERR_INVALID); /* lda 0 < 1 */
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 2, 2, 2, 1, x, 2, -4, x, 2, 4, 0, x, 2, 4, 2, 0),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, NULL, 2, 4, 1, 0),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 2, 2, 2, 1, NULL, 2, 4, x, 2, 4, 0, x, 2, 4, 1, 0),
           HYT_ERR_INVALID);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 0, 2, 2, 1, x, 1, 4, x, 2, 4, 0, NULL, 1, 4, 1, 0),
           0);
    EXPECT(hyt_gpu_dgemm_batched(&dc, 'N', 'N', 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, NULL, 2, 4, 0, 1),
           0);
}

/* Fault injection: the k-th device call fails, for k = 1, 2, ... until four runs in a row pass
 * (k is then past the last call).  Every failure is reported (never a silent wrong result),
 * and exactly one k hits the kernel itself (host devices: the dispatcher's fault point; CUDA:
 * the launch check or the cuBLAS call).  The host buffers are plain malloc'ed memory: a fault
 * in hyt_host_malloc's page-locking is absorbed (pageable memory instead), and a run of such
 * absorbed faults could reach four passes before the kernel's own fault point. */
static void test_dev_faults(const char *devices)
{
    static const char *names[] = {"transpose", "dlaswp_crrb", "dgemm", "dgemm through cublasLt"};
    static const char *host_needle[] = {"hyt_gpu_transpose_tiles", "hyt_gpu_dlaswp_crrb",
                                        "hyt_gpu_dgemm_batched", "hyt_gpu_dgemm_batched"};
    static const char *cuda_needle[] = {"gpu_transpose.cu", "gpu_dlaswp_crrb.cu", "cublasDgemm",
                                        "cublasLtMatmul"};
    for (int kern = 0; kern < 4; kern++) {
        int passed = 0, in_kernel = 0;
        for (long k = 1; k <= 150 && passed < 4; k++) {
            hyt_context_t *ctx;
            int rc = make_context(devices, k, &ctx);
            if (rc) {
                CHECK(rc == HYT_ERR_DEVICE || rc == HYT_ERR_NOMEM, "fault %ld at context "
                      "creation: %s: %s", k, hyt_strerror(rc), hyt_last_error());
                continue;
            }
            test_rng_t rng = {(unsigned long long)k};
            int ok = 0;
            if (kern == 0) {
                int nb = 7, nt = 3, n = nb * nb * nt;
                double *a = xmalloc((size_t)n * sizeof *a), ref[147];
                fill(&rng, a, (size_t)n);
                memcpy(ref, a, sizeof ref);
                hyt_ref_transpose_tiles(ref, nb, nt);
                rc = dev_transpose(ctx, a, nb, nt);
                ok = !rc && !memcmp(a, ref, sizeof ref);
                free(a);
            } else if (kern == 1) {
                lcase_t L = {4, 2, 2, 1, 4, 40};
                size_t len = lcase_len(&L) + 4;
                double *a = xmalloc(len * sizeof *a), *e = xmalloc(len * sizeof *a);
                int *ipiv = xmalloc(5 * sizeof *ipiv);
                fill(&rng, a, len);
                make_pivots(&rng, ipiv, &L);
                expected_laswp(&L, ipiv, a, e);
                rc = dev_laswp(ctx, a, len, &L, ipiv);
                ok = !rc && !memcmp(a, e, len * sizeof *a);
                free(a);
                free(ipiv);
                free(e);
            } else {
                const int lt = kern == 3; /* one matrix: one cublasLtMatmul */
                gcase_t g = gemm_case(&rng, 'N', 'T', 5, 4, 3, lt ? 1 : 2, 3);
                double *A, *B, *C;
                gemm_data(&rng, &g, &A, &B, &C);
                size_t la = len_a(&g), lb = len_b(&g), lc = len_c(&g);
                double *hA = xmalloc(la * sizeof *A), *hB = xmalloc(lb * sizeof *B);
                double *hC = xmalloc(lc * sizeof *C);
                memcpy(hA, A, la * sizeof *A);
                memcpy(hB, B, lb * sizeof *B);
                memcpy(hC, C, lc * sizeof *C);
                hyt_ref_dgemm_batched(g.ta, g.tb, g.m, g.n, g.k, g.alpha, A, g.lda, g.sa, B,
                                      g.ldb, g.sb, g.beta, C, g.ldc, g.sc, g.batch);
                rc = dev_gemm(ctx, &g, hA, hB, hC, lt ? HYT_GEMM_LT : HYT_GEMM_STRIDED,
                              HYT_STREAM_COMPUTE);
                ok = !rc;
                for (size_t i = 0; ok && i < lc; i++)
                    ok = fabs(hC[i] - C[i]) <= 1e-12 * (1 + fabs(C[i]));
                free(A);
                free(B);
                free(C);
                free(hA);
                free(hB);
                free(hC);
            }
            if (!rc) {
                CHECK(ok, "%s with fault %ld: no error reported but a wrong result", names[kern],
                      k);
                passed++;
            } else {
                passed = 0;
                CHECK(rc == HYT_ERR_DEVICE || rc == HYT_ERR_DEVICE_MEMORY, "%s with fault %ld: "
                      "%s: %s", names[kern], k, hyt_strerror(rc), hyt_last_error());
                const char *needle = use_cuda ? cuda_needle[kern] : host_needle[kern];
                in_kernel += strstr(hyt_last_error(), "injected") != NULL &&
                             strstr(hyt_last_error(), needle) != NULL;
            }
            hyt_context_destroy(ctx);
        }
        CHECK(passed >= 4, "%s: still failing with the 150th device call faulted", names[kern]);
        CHECK(in_kernel == 1, "%s: %d injected faults reported by the kernel (expected 1)",
              names[kern], in_kernel);
    }
}

/* The runtime keeps small freed blocks for the next allocation of their size class (runtime/
 * device.c: at most 1 MiB, powers of two from 256 bytes; 16 per device): a freed block comes
 * back for a request of its class and not for another; kept blocks count as available under
 * gpu.memory_limit and are released when a new block needs their room, so that what the device
 * holds never exceeds the cap; more than 16 freed blocks do not leak (ASan; the device frees
 * the kept ones at its end); on CUDA, page-locked host blocks likewise (powers of two from
 * 4 KiB). */
static void test_kept_blocks(const char *devices)
{
    hyt_context_t *c = test_context(1, devices, "gpu.memory_limit", "1M", (char *)NULL);
    hyt_device_t *dev = hyt_context_device(c, 0);
    void *a, *b, *d, *v[20];
    REQUIRE(!hyt_device_malloc(dev, &a, 100), "%s", hyt_last_error());
    if (!use_cuda) /* host memory: a kept block keeps its bytes, a freed one gets the C
                    * library's free-list pointers in its first ones */
        memset(a, 0x5a, 100);
    hyt_device_free(dev, a);
    REQUIRE(!hyt_device_malloc(dev, &b, 200), "%s", hyt_last_error());
    CHECK(b == a, "a freed 100-byte block comes back for 200 bytes (class 256)");
    if (!use_cuda && b == a) {
        const unsigned char *u = b;
        int same = 1;
        for (int i = 0; i < 100; i++)
            same &= u[i] == 0x5a;
        CHECK(same, "the block came back through the C library, not kept");
    }
    REQUIRE(!hyt_device_malloc(dev, &d, 300), "%s", hyt_last_error());
    CHECK(d != a, "a 300-byte request (class 512) got the 256-byte block");
    hyt_device_free(dev, b);
    hyt_device_free(dev, d);
    CHECK(hyt_device_mem_available(dev) == (size_t)1 << 20,
          "kept blocks counted against the cap: %zu bytes available of 1 MiB",
          hyt_device_mem_available(dev));
    CHECK(hyt_device_kept_bytes(dev) == 256 + 512, "kept: %zu bytes, expected 768",
          hyt_device_kept_bytes(dev));
    void *big;
    REQUIRE(!hyt_device_malloc(dev, &big, (size_t)1 << 20), "the whole cap: %s",
            hyt_last_error());
    CHECK(hyt_device_kept_bytes(dev) == 0 && atomic_load(&dev->mem_used) == (size_t)1 << 20,
          "the whole cap allocated beside %zu kept bytes (%zu in use)",
          hyt_device_kept_bytes(dev), atomic_load(&dev->mem_used));
    CHECK(hyt_device_malloc(dev, &d, 1) == HYT_ERR_DEVICE_MEMORY, "beyond the cap accepted");
    hyt_device_free(dev, big);
    /* a block that fits beside the kept ones takes nothing from them */
    REQUIRE(!hyt_device_malloc(dev, &b, 200), "%s", hyt_last_error());
    hyt_device_free(dev, b);
    REQUIRE(!hyt_device_malloc(dev, &d, 300), "%s", hyt_last_error());
    CHECK(hyt_device_kept_bytes(dev) == 256, "kept beside a block that fits: %zu bytes",
          hyt_device_kept_bytes(dev));
    hyt_device_free(dev, d);
    for (int i = 0; i < 20; i++)
        REQUIRE(!hyt_device_malloc(dev, &v[i], 64), "block %d: %s", i, hyt_last_error());
    for (int i = 0; i < 20; i++)
        hyt_device_free(dev, v[i]);
    if (use_cuda) {
        void *h1 = hyt_host_malloc(c, 100), *h2;
        REQUIRE(h1, "page-locked host memory");
        hyt_host_free(c, h1);
        h2 = hyt_host_malloc(c, 4000);
        CHECK(h2 == h1, "a freed page-locked block does not come back for its class (4 KiB)");
        hyt_host_free(c, h2);
    }
    hyt_context_destroy(c);
}

int main(int argc, char **argv)
{
    const char *devices;
    hyt_context_t *ctx;
    int rc = dev_test_start(argc, argv, "test_gpu_kernels", &devices, &ctx);
    if (rc >= 0)
        return rc;
    if (!use_cuda) {
        test_ref_transpose();
        test_ref_laswp();
        test_ref_laswp_plan();
        test_ref_gemm();
        test_geometry();
    }
    test_dev_transpose(ctx);
    test_dev_laswp(ctx);
    test_dev_laswp_plan(ctx);
    test_dev_gemm(ctx);
    test_dtrtri_diag(ctx);
    test_icopy(ctx);
    test_dev_args(ctx);
    hyt_context_destroy(ctx);
    test_kept_blocks(devices);
    test_dev_faults(devices);
    return test_result(use_cuda ? "test_gpu_kernels (cuda:0)" : "test_gpu_kernels (host:1)");
}
