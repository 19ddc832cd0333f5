/*
 * Row interchanges on a column of tiles, hand-coded (LAPACK's dlaswp cannot work across
 * tiles).  One task swaps one or more columns of tiles for one or more steps.
 */
#include "hyt_cpu_kernels.h"

#include <stdlib.h>

/* Columns per block of the interchanges.  A block's elements of one row are ld apart; with ld a
 * power of two (a LAPACK array of N = 8192 or 16384) they all fall in one set of the L1 and L2
 * caches, so a block must not have more columns than those have ways (8 in L1 and L2 of the
 * 2-core AMD EPYC, 12 and 16 on recent Xeons), or each row is fetched again for every
 * interchange.  LAPACK's 32 made the LU's interchanges 2-3x slower there (2-core EPYC: one
 * step's interchanges right of an 8192 x 384 panel 34.0 ms with 32 columns, 16.5 with 8, 16.6
 * with 4, 22.8 with 1; with ld = 8200 18.1 / 16.4 / 15.3 ms; the whole LU at N = 16384 38.1
 * against 33.5 s; N = 4000 the same either way; docs/performance.md). */
#define CB 8

void hyt_core_dlaswp(const hyt_desc_t *A, int j, int r1, int r2, const int *ipiv, int incx)
{
    int npiv = r2 - r1;
    if (npiv <= 0)
        return;
    int nbj = hyt_tile_nb(A, j);
    int64_t ld = hyt_tile_ld(A);
    double *stack[2 * 256], **pa = stack, **pb;
    if (hyt_races_on()) { /* debug.races: rows r1 .. the last pivot row of tile column j */
        int hi = r2;
        for (int r = r1; r < r2; r++)
            hi = ipiv[r] > hi ? ipiv[r] : hi;
        for (int i = r1 / A->nb; i < A->mt && i * A->nb < hi; i++) {
            const int t0 = i * A->nb, lo = r1 > t0 ? r1 - t0 : 0;
            const int up = hi - t0 < hyt_tile_mb(A, i) ? hi - t0 : hyt_tile_mb(A, i);
            hyt_races_tile_rows(A, i, j, lo, up, 1, "the rows interchanged");
        }
        hyt_races_note(ipiv + r1, 0, (size_t)npiv * sizeof *ipiv, 1, 0, "ipiv");
    }
    if (npiv > 256 && !(pa = malloc(2 * (size_t)npiv * sizeof *pa))) {
        /* no memory for the pointer tables: swap row by row instead */
        for (int q = 0; q < npiv; q++) {
            int r = incx > 0 ? r1 + q : r2 - 1 - q, p = ipiv[r] - 1;
            if (p == r)
                continue;
            double *x = hyt_elem(A, r, (int64_t)j * A->nb), *y = hyt_elem(A, p, (int64_t)j * A->nb);
            for (int c = 0; c < nbj; c++) {
                double t = x[c * ld];
                x[c * ld] = y[c * ld];
                y[c * ld] = t;
            }
        }
        return;
    }
    pb = pa + npiv;
    int n = 0;
    for (int q = 0; q < npiv; q++) {
        int r = incx > 0 ? r1 + q : r2 - 1 - q, p = ipiv[r] - 1;
        if (p == r)
            continue;
        pa[n] = hyt_elem(A, r, (int64_t)j * A->nb);
        pb[n] = hyt_elem(A, p, (int64_t)j * A->nb);
        n++;
    }
    /* blocks of CB columns, interchanges in order inside a block (LAPACK's dlaswp order): the
     * block's part of the rows stays in cache while the interchanges run through it */
    for (int c0 = 0; c0 < nbj; c0 += CB) {
        int c1 = c0 + CB < nbj ? c0 + CB : nbj;
        for (int q = 0; q < n; q++) {
            double *x = pa[q], *y = pb[q];
            for (int c = c0; c < c1; c++) {
                double t = x[c * ld];
                x[c * ld] = y[c * ld];
                y[c * ld] = t;
            }
        }
    }
    if (pa != stack)
        free(pa);
}

typedef struct laswp_args {
    hyt_desc_t A;
    int j1, j2, r1, r2, incx;
    const int *ipiv;
} laswp_args_t;

static int laswp_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    laswp_args_t *a = p;
    for (int j = a->j1; j < a->j2; j++)
        hyt_core_dlaswp(&a->A, j, a->r1, a->r2, a->ipiv, a->incx);
    return 0;
}

static const hyt_kernel_t laswp_kernel = {.name = "dlaswp", .cpu = laswp_body, .cat = HYT_CAT_UPDATE};

int hyt_insert_dlaswp(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_desc_t *A, int j1, int j2,
                      int k1, int k2, const int *ipiv, int npiv, int incx,
                      const void *const *ipiv_tokens)
{
    int64_t r2 = (int64_t)k2 * A->nb < npiv ? (int64_t)k2 * A->nb : npiv;
    laswp_args_t args = {*A, j1, j2, k1 * A->nb, (int)r2, incx, ipiv};
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, (j2 - j1) * (A->mt - k1) + (k2 - k1)))
        return HYT_ERR_NOMEM;
    for (int k = k1; k < k2 && ipiv_tokens; k++)
        hyt_deps_add(&deps, ipiv_tokens[k], HYT_READ);
    for (int j = j1; j < j2; j++)
        for (int i = k1; i < A->mt; i++)
            hyt_deps_add(&deps, hyt_tile(A, i, j), HYT_RW);
    hyt_task_desc_t d = hyt_tagged_desc(&laswp_kernel, &args, sizeof args, deps.v, deps.n, tag);
    int rc = hyt_task_insert(seq, &d);
    hyt_deps_free(&deps);
    return rc;
}
