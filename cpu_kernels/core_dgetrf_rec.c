/*
 * Recursive-parallel panel factorization (the seed's section 3.2, PLASMA's dgetrf_rec).
 *
 * The panel (tile column k, rows k*nb..m-1) is one task entered by `size` threads together.
 * Its tiles are dealt to the threads (a contiguous range of tiles each, so that on a LAPACK
 * array a thread's rows are one matrix and its GEMMs single calls) and stay with their thread
 * for the whole panel, so that a thread's share stays in its caches.  Recursion on the
 * columns turns most of the work into level-3 updates: factor the left half, solve the top of
 * the right half (rank 0, which owns the diagonal tile), update the rest of the right half
 * with GEMMs (each thread on its own tiles), factor the right half.  Leaves of
 * HYT_PANEL_LEAF columns go column by column: a parallel max-reduction finds the pivot
 * (LAPACK's rule: the first index of the largest |a|, NaN never chosen unless the diagonal
 * entry itself is NaN), rank 0 swaps the two rows across the whole panel width, every thread
 * scales and updates its rows.  Threads work in lock step through the runtime's atomic
 * barrier: two barriers per column.
 *
 * Exactly zero pivots are recorded (the first one) and the factorization goes on, as LAPACK's
 * dgetf2 / dgetrf2 do; NaN input gives NaN factors, pivots in range and no crash.
 */
#include "hyt_cpu_kernels.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

typedef struct piv_slot {
    double v;
    int64_t idx;
    char pad[48];
} piv_slot_t;

/* A run of panel rows contiguous in memory: rows [R0, R0+rows) of the panel, element (R, c)
 * at base + (R - R0) + c*ld.  On a LAPACK array a thread's tiles form one segment; in CCRB
 * each tile is one. */
typedef struct seg {
    double *base;
    int64_t R0;
    int rows;
} seg_t;

typedef struct panel {
    hyt_desc_t A;
    int k;
    int64_t r0;          /* global row (= column) of the panel's first entry */
    int h, W, p;         /* height, width, pivoted columns = min(h, W) */
    int ntl;             /* tiles in the panel */
    int ld, nb;
    int *ipiv, *info;
    int rank, size;
    hyt_barrier_t *bar;
    piv_slot_t *slots;
    seg_t *seg;          /* this thread's rows */
    int nseg;
} panel_t;

/* Base of panel tile l (local row l*nb) and its rows. */
static inline double *ptile(const panel_t *P, int l) { return hyt_tile(&P->A, P->k + l, P->k); }
static inline int prows(const panel_t *P, int l)
{
    int rows = P->h - l * P->nb;
    return rows < P->nb ? rows : P->nb;
}
/* Element (R, c) of the panel (R panel-local row). */
static inline double *pel(const panel_t *P, int64_t R, int c)
{
    return ptile(P, (int)(R / P->nb)) + R % P->nb + (int64_t)c * P->ld;
}

static void swap_rows(const panel_t *P, int64_t R1, int64_t R2)
{
    double *a = pel(P, R1, 0), *b = pel(P, R2, 0);
    for (int c = 0; c < P->W; c++) {
        double t = a[(int64_t)c * P->ld];
        a[(int64_t)c * P->ld] = b[(int64_t)c * P->ld];
        b[(int64_t)c * P->ld] = t;
    }
}

/* Columns [s, s+w) column by column. */
static void leaf(panel_t *P, int s, int w)
{
    const int64_t ld = P->ld;
    for (int j = s; j < s + w; j++) {
        /* local pivot search on own rows >= j: BLAS idamax (vectorized, first index of the
         * largest |a|); a NaN it reports is no candidate */
        double best = -1.0;
        int64_t bidx = -1;
        for (int g = 0; g < P->nseg; g++) {
            const seg_t *sg = &P->seg[g];
            int lo = sg->R0 > j ? 0 : (int)(j - sg->R0);
            if (lo >= sg->rows)
                continue;
            const double *col = sg->base + (int64_t)j * ld + lo;
            int r = (int)cblas_idamax(sg->rows - lo, col, 1);
            double v = fabs(col[r]);
            if (v > best) {
                best = v;
                bidx = sg->R0 + lo + r;
            }
        }
        P->slots[P->rank].v = best;
        P->slots[P->rank].idx = bidx;
        hyt_barrier_wait(P->bar);

        if (P->rank == 0) {
            int64_t piv = j;
            double djj = *pel(P, j, j);
            if (!isnan(djj)) {
                /* largest |a|, ties to the smallest row: LAPACK's idamax over the column */
                double bv = -1.0;
                int64_t bi = j;
                for (int r = 0; r < P->size; r++) {
                    const piv_slot_t *sl = &P->slots[r];
                    if (sl->idx < 0)
                        continue;
                    if (sl->v > bv || (sl->v == bv && sl->idx < bi)) {
                        bv = sl->v;
                        bi = sl->idx;
                    }
                }
                piv = bi;
            }
            P->ipiv[P->r0 + j] = (int)(P->r0 + piv + 1);
            if (*pel(P, piv, j) != 0.0) {
                if (piv != j)
                    swap_rows(P, j, piv);
            } else if (*P->info == 0) {
                *P->info = (int)(P->r0 + j + 1);
            }
        }
        hyt_barrier_wait(P->bar);

        /* scale the column below the pivot and update the rest of the leaf */
        const double pv = *pel(P, j, j);
        const int scale = pv != 0.0;
        const int recip = fabs(pv) >= DBL_MIN;
        const double rpv = recip && scale ? 1.0 / pv : 0.0;
        const double *urow = pel(P, j, 0); /* row j, read only in this phase */
        for (int g = 0; g < P->nseg; g++) {
            const seg_t *sg = &P->seg[g];
            if (sg->R0 + sg->rows <= j + 1)
                continue;
            int lo = sg->R0 > j ? 0 : (int)(j + 1 - sg->R0), rows = sg->rows;
            double *cj = sg->base + (int64_t)j * ld;
            if (scale) {
                if (recip)
                    for (int r = lo; r < rows; r++)
                        cj[r] *= rpv;
                else
                    for (int r = lo; r < rows; r++)
                        cj[r] /= pv;
            }
            for (int c = j + 1; c < s + w; c++) {
                const double u = urow[(int64_t)c * ld];
                double *cc = sg->base + (int64_t)c * ld;
                for (int r = lo; r < rows; r++)
                    cc[r] -= cj[r] * u;
            }
        }
    }
}

static void rec(panel_t *P, int s, int w)
{
    if (w <= HYT_PANEL_LEAF) {
        leaf(P, s, w);
        return;
    }
    int w1 = w / 2;
    if (w1 > HYT_PANEL_LEAF)
        w1 = (w1 + HYT_PANEL_LEAF - 1) / HYT_PANEL_LEAF * HYT_PANEL_LEAF;
    int w2 = w - w1;
    const int64_t ld = P->ld;
    rec(P, s, w1);
    /* A12 = inv(L11) A12: rows [s, s+w1) lie in the diagonal tile, owned by rank 0 */
    double *t0 = ptile(P, 0);
    if (P->rank == 0)
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, w1, w2, 1.0,
                    t0 + s + s * ld, (int)ld, t0 + s + (s + w1) * ld, (int)ld);
    hyt_barrier_wait(P->bar);
    /* A22 -= A21 A12 on own rows below s+w1 */
    const double *a12 = t0 + s + (s + w1) * ld;
    for (int g = 0; g < P->nseg; g++) {
        const seg_t *sg = &P->seg[g];
        int lo = sg->R0 >= s + w1 ? 0 : (int)(s + w1 - sg->R0), rows = sg->rows - lo;
        if (rows <= 0)
            continue;
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rows, w2, w1, -1.0,
                    sg->base + lo + s * ld, (int)ld, a12, (int)ld, 1.0,
                    sg->base + lo + (s + w1) * ld, (int)ld);
    }
    rec(P, s + w1, w2);
}

typedef struct rec_args {
    hyt_desc_t A;
    int k;
    int *ipiv, *info;
} rec_args_t;

static int rec_body(const hyt_task_ctx_t *tc, void *p)
{
    rec_args_t *a = p;
    panel_t P;
    P.A = a->A;
    P.k = a->k;
    P.nb = a->A.nb;
    P.ld = hyt_tile_ld(&a->A);
    P.r0 = (int64_t)a->k * a->A.nb;
    P.h = (int)(a->A.m - P.r0);
    P.W = hyt_tile_nb(&a->A, a->k);
    P.p = P.h < P.W ? P.h : P.W;
    P.ntl = a->A.mt - a->k;
    P.ipiv = a->ipiv;
    P.info = a->info;
    P.rank = tc->rank;
    P.size = tc->size;
    P.bar = tc->barrier;
    P.slots = tc->shared;
    /* deal the tiles: a contiguous range of tiles to each thread (one memory segment on a
     * LAPACK array, one per tile in CCRB); the task's scratch holds a segment per tile */
    P.seg = tc->scratch;
    P.nseg = 0;
    int t1 = (int)((int64_t)P.ntl * P.rank / P.size);
    int t2 = (int)((int64_t)P.ntl * (P.rank + 1) / P.size);
    for (int l = t1; l < t2; l++) {
        if (P.nseg && a->A.layout == HYT_LAYOUT_LAPACK) {
            P.seg[P.nseg - 1].rows += prows(&P, l);
            continue;
        }
        P.seg[P.nseg].base = ptile(&P, l);
        P.seg[P.nseg].R0 = (int64_t)l * P.nb;
        P.seg[P.nseg].rows = prows(&P, l);
        P.nseg++;
    }
    if (P.p > 0)
        rec(&P, 0, P.p);
    if (P.W > P.p && P.rank == 0) {
        /* wider than tall: the columns right of the pivots get their U part */
        double *t0 = ptile(&P, 0);
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, P.p,
                    P.W - P.p, 1.0, t0, P.ld, t0 + (int64_t)P.p * P.ld, P.ld);
    }
    if (P.rank == 0)
        hyt_progress_add(hyt_sequence_context(tc->seq), 1);
    return 0;
}

static const hyt_kernel_t rec_kernel = {.name = "dgetrf_panel", .cpu = rec_body, .cat = HYT_CAT_PANEL};

int hyt_insert_dgetrf_rec(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_desc_t *A, int k,
                          int *ipiv, int *info, int nthreads, const void *ipiv_token)
{
    rec_args_t args = {*A, k, ipiv, info};
    int ntl = A->mt - k;
    hyt_dep_t stack[64], *deps = ntl + 1 <= 64 ? stack : malloc((size_t)(ntl + 1) * sizeof *deps);
    if (!deps)
        return HYT_ERR_NOMEM;
    int nd = 0;
    for (int i = k; i < A->mt; i++)
        deps[nd++] = (hyt_dep_t){hyt_tile(A, i, k), HYT_RW};
    if (ipiv_token)
        deps[nd++] = (hyt_dep_t){ipiv_token, HYT_WRITE};
    if (nthreads > ntl)
        nthreads = ntl; /* a thread without a tile would only wait at the barriers */
    hyt_task_desc_t d = hyt_tagged_desc(&rec_kernel, &args, sizeof args, deps, nd, tag);
    d.nthreads = nthreads < 1 ? 1 : nthreads;
    d.shared_bytes = (size_t)d.nthreads * sizeof(piv_slot_t);
    d.scratch_bytes = (size_t)ntl * sizeof(seg_t);
    int rc = hyt_task_insert(seq, &d);
    if (deps != stack)
        free(deps);
    return rc;
}
