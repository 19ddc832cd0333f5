/*
 * Recursive-parallel panel factorization (the seed's section 3.2, PLASMA's dgetrf_rec).
 *
 * The panel (tile column k, rows k*nb..m-1) is one task entered by `size` threads together.
 * Its tiles are dealt to the threads (a contiguous range of tiles each, so that on a LAPACK
 * array a thread's rows are one matrix and its GEMMs single calls) and stay with their thread
 * for the whole panel, so that a thread's share stays in its caches.  Recursion on the
 * columns turns most of the work into level-3 updates: factor the left half, solve the top of
 * the right half (rank 0, which owns the diagonal tile), update the rest of the right half
 * with GEMMs (each thread on its own tiles; for wide nodes in chunks that a thread done with
 * its own takes from the others), factor the right half.  Leaves of
 * HYT_PANEL_LEAF columns go column by column: a parallel max-reduction finds the pivot
 * (LAPACK's rule: the first index of the largest |a|, NaN never chosen unless the diagonal
 * entry itself is NaN), the owners of the two rows swap them in the leaf's columns, every
 * thread scales and updates its rows.  As in LAPACK's dgetrf2, the interchanges reach the
 * other columns level by level (a half's pivots applied to the other half), shared out among
 * the threads by columns: a row swap across the whole width by one thread, at every column,
 * was a serial step of 2 x width cache misses (all in one cache set when lda is a power of
 * two).  Threads work in lock step through the runtime's atomic barrier: one barrier per
 * column, two per level (three for the wide ones).
 *
 * Exactly zero pivots are recorded (the first one) and the factorization goes on, as LAPACK's
 * dgetf2 / dgetrf2 do; NaN input gives NaN factors, pivots in range and no crash.
 */
#include "hyt_cpu_kernels.h"

#include <cblas.h>
#include <float.h>
#include <stdatomic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Nodes at least HYT_PANEL_BALANCE columns wide have their update shared out in chunks of at
 * least HYT_PANEL_CHUNK rows (gemm_balanced). */
#define HYT_PANEL_BALANCE 64
#define HYT_PANEL_CHUNK 512

/* A thread's pivot candidate for one column of a leaf: |a|, its row, and the row's entries in
 * the leaf's columns; rank 0 adds the entries of the diagonal row.  Two sets, by the parity of
 * the column: a thread may publish the next column's candidate while slower ones still read
 * this one's (not the one after: that needs everybody past the next barrier). */
typedef struct piv_slot {
    double v;
    int64_t idx;
    double row[HYT_PANEL_LEAF], drow[HYT_PANEL_LEAF];
    char pad[64 - (16 + 16 * HYT_PANEL_LEAF) % 64];
} piv_slot_t;

/* A thread's rows of the panel: rows [R0, R0+rows), element (R, c) at base + (R-R0) + c*ld.
 * On a LAPACK array that is the matrix itself (ld = lda); in CCRB it is a private contiguous
 * copy of the thread's tiles (ld = rows), made at the start and written back at the end, so
 * that every level of the recursion is one GEMM per thread instead of one per tile. */
typedef struct seg {
    double *base;
    int64_t R0;
    int rows, ld;
    int failed;          /* could not make its copy (set before the first barrier only) */
} seg_t;

/* Chunks of a thread's rows claimed in a balanced update (see gemm_balanced). */
typedef struct bal {
    atomic_int claimed;
    char pad[60];
} bal_t;

typedef struct panel {
    int64_t r0;          /* global row (= column) of the panel's first entry */
    int h, W, p;         /* height, width, pivoted columns = min(h, W) */
    int *ipiv, *info;
    int *lpiv;           /* this thread's copy of the panel's pivots, as ipiv (global, 1-based)
                          * but indexed by panel row: every thread picks every pivot itself,
                          * so none reads rank 0's ipiv entries before a barrier */
    int rank, size;
    const hyt_task_ctx_t *tc; /* rank, size, barrier */
    piv_slot_t *slots;
    seg_t *segs;         /* every thread's rows (shared), in rank order */
    seg_t *my;
    bal_t *bal;          /* claim counters, one per thread (shared) */
} panel_t;

/* The segment holding panel row R: the last one starting at or before R. */
static inline const seg_t *owner(const panel_t *P, int64_t R)
{
    int lo = 0, hi = P->size - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (P->segs[mid].R0 <= R)
            lo = mid;
        else
            hi = mid - 1;
    }
    return &P->segs[lo];
}

/* This thread's share [*ca, *cb) of the columns [c1, c2). */
static inline void my_columns(const panel_t *P, int c1, int c2, int *ca, int *cb)
{
    int64_t n = c2 - c1;
    *ca = c1 + (int)(n * P->rank / P->size);
    *cb = c1 + (int)(n * (P->rank + 1) / P->size);
}

/* Applies the interchanges of pivot rows [i1, i2) to columns [c1, c2), in order, as dlaswp
 * does; the columns are shared out among the threads (no barrier inside). */
static void apply_pivots(const panel_t *P, int i1, int i2, int c1, int c2)
{
    int ca, cb;
    my_columns(P, c1, c2, &ca, &cb);
    if (i2 <= i1 || ca >= cb)
        return;
    enum { BLK = 64 };
    double *pa[BLK], *pb[BLK];
    int64_t la[BLK], lb[BLK];
    for (int i0 = i1; i0 < i2; i0 += BLK) {
        int i3 = i0 + BLK < i2 ? i0 + BLK : i2, np = 0;
        for (int i = i0; i < i3; i++) {
            int64_t piv = P->lpiv[i] - 1 - P->r0;
            if (piv == i)
                continue;
            const seg_t *s1 = owner(P, i), *s2 = owner(P, piv);
            pa[np] = s1->base + (i - s1->R0);
            la[np] = s1->ld;
            pb[np] = s2->base + (piv - s2->R0);
            lb[np] = s2->ld;
            np++;
        }
        for (int64_t c = ca; c < cb; c++)
            for (int q = 0; q < np; q++) {
                double *a = pa[q] + c * la[q], *b = pb[q] + c * lb[q];
                double t = *a;
                *a = *b;
                *b = t;
            }
    }
}

/* This thread's share of the columns [c1, c2) of the rows [r, r+k) of rank 0's segment:
 * apply the interchanges of rows [r, r+k), then A12 = inv(L11) A12 with L11 the unit lower
 * triangle at (r, r). */
static void swap_solve(const panel_t *P, int r, int k, int c1, int c2)
{
    apply_pivots(P, r, r + k, c1, c2);
    int ca, cb;
    my_columns(P, c1, c2, &ca, &cb);
    const seg_t *s0 = &P->segs[0]; /* rows < nb live in rank 0's rows */
    const int64_t ld0 = s0->ld;
    if (ca < cb && k > 0)
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, k, cb - ca,
                    1.0, s0->base + r + r * ld0, (int)ld0, s0->base + r + ca * ld0, (int)ld0);
}

/* The first index of the largest |a| of col[0..n) that is not NaN, -1 when all are NaN (LAPACK's
 * idamax from an entry that is not NaN).  BLAS idamax (vectorized) when no entry is NaN: with a
 * NaN in the column, OpenBLAS's (0.3.21) answers the NaN's index or an entry smaller than the
 * largest.  The NaN test is BLAS ddot of the column with itself: a sum of squares is NaN exactly
 * when an entry is NaN (Inf and overflow give Inf), and OpenBLAS's ddot runs at idamax's speed
 * (its dasum 4x slower; the compiler does not vectorize a loop of compares for baseline x86-64). */
static int iamax_not_nan(const double *col, int n)
{
    if (!isnan(cblas_ddot(n, col, 1, col, 1)))
        return (int)cblas_idamax(n, col, 1);
    int best = -1;
    double bv = -1.0;
    for (int i = 0; i < n; i++)
        if (fabs(col[i]) > bv) { /* never for NaN */
            bv = fabs(col[i]);
            best = i;
        }
    return best;
}

/* First row of my segment at or after row R (as an offset in the segment), or rows. */
static inline int first_from(const seg_t *sg, int64_t R)
{
    return R <= sg->R0 ? 0 : R >= sg->R0 + sg->rows ? sg->rows : (int)(R - sg->R0);
}

/* Copies row R's entries in columns [s, s+w) to v. */
static inline void get_row(const seg_t *sg, int64_t R, int s, int w, double *v)
{
    const double *a = sg->base + (R - sg->R0) + (int64_t)s * sg->ld;
    for (int c = 0; c < w; c++)
        v[c] = a[(int64_t)c * sg->ld];
}

static inline void put_row(const seg_t *sg, int64_t R, int s, int w, const double *v)
{
    double *a = sg->base + (R - sg->R0) + (int64_t)s * sg->ld;
    for (int c = 0; c < w; c++)
        a[(int64_t)c * sg->ld] = v[c];
}

/* Columns [s, s+w) column by column, one barrier per column: each thread publishes its
 * candidate with the candidate row's entries (rank 0 also the diagonal row's), then every
 * thread picks the same pivot from the slots, the owners of the two rows swap them in their
 * own rows, and each thread scales and updates its rows with the pivot row read from the
 * slot; no thread reads another's rows. */
static void leaf(panel_t *P, int s, int w)
{
    const seg_t *my = P->my;
    const int64_t ld = my->ld;
    for (int j = s; j < s + w; j++) {
        piv_slot_t *slots = P->slots + (j & 1) * P->size, *mine = &slots[P->rank];
        /* local pivot search on own rows >= j: the first index of the largest |a|, NaN no
         * candidate */
        mine->v = -1.0;
        mine->idx = -1;
        int lo = first_from(my, j);
        if (lo < my->rows) {
            const double *col = my->base + j * ld + lo;
            int r = iamax_not_nan(col, my->rows - lo);
            if (r >= 0) {
                mine->v = fabs(col[r]);
                mine->idx = my->R0 + lo + r;
                get_row(my, mine->idx, s, w, mine->row);
            }
        }
        if (P->rank == 0) /* row j < nb lives in rank 0's rows */
            get_row(my, j, s, w, mine->drow);
        hyt_task_barrier(P->tc);

        /* the pivot: largest |a|, ties to the smallest row (LAPACK's idamax over the column);
         * the diagonal row itself when its entry is NaN */
        const double *drow = slots[0].drow, *prow = drow;
        int64_t piv = j;
        if (!isnan(drow[j - s])) {
            double bv = -1.0;
            int64_t bi = j;
            for (int r = 0; r < P->size; r++) {
                const piv_slot_t *sl = &slots[r];
                if (sl->idx < 0)
                    continue;
                if (sl->v > bv || (sl->v == bv && sl->idx < bi)) {
                    bv = sl->v;
                    bi = sl->idx;
                    prow = sl->row;
                }
            }
            piv = bi;
        }
        const double pv = prow[j - s];
        P->lpiv[j] = (int)(P->r0 + piv + 1);
        if (P->rank == 0) {
            P->ipiv[P->r0 + j] = (int)(P->r0 + piv + 1);
            if (pv == 0.0 && *P->info == 0)
                *P->info = (int)(P->r0 + j + 1);
        }
        /* the interchange in the leaf's columns (the others get it level by level), each row
         * by its owner */
        if (pv != 0.0 && piv != j) {
            if (P->rank == 0)
                put_row(my, j, s, w, prow);
            if (piv >= my->R0 && piv < my->R0 + my->rows)
                put_row(my, piv, s, w, drow);
        }

        /* scale the column below the pivot and update the rest of the leaf */
        const int scale = pv != 0.0;
        const int recip = fabs(pv) >= DBL_MIN;
        const double rpv = recip && scale ? 1.0 / pv : 0.0;
        lo = first_from(my, j + 1);
        if (lo >= my->rows)
            continue;
        double *cj = my->base + j * ld;
        int rows = my->rows;
        if (scale) {
            if (recip)
                for (int r = lo; r < rows; r++)
                    cj[r] *= rpv;
            else
                for (int r = lo; r < rows; r++)
                    cj[r] /= pv;
        }
        for (int c = j + 1; c < s + w; c++) {
            const double u = pv != 0.0 ? prow[c - s] : drow[c - s];
            double *cc = my->base + c * ld;
            for (int r = lo; r < rows; r++)
                cc[r] -= cj[r] * u;
        }
    }
}

/* Rows [r1, r2) of segment sg (offsets in it): A22 -= A21 A12 for the node (s, w1, w2). */
static void gemm_rows(const panel_t *P, const seg_t *sg, int r1, int r2, int s, int w1, int w2)
{
    const seg_t *s0 = &P->segs[0];
    const int64_t ld0 = s0->ld, ld = sg->ld;
    if (r2 > r1)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, r2 - r1, w2, w1, -1.0,
                    sg->base + r1 + s * ld, (int)ld, s0->base + s + (s + w1) * ld0, (int)ld0,
                    1.0, sg->base + r1 + (s + w1) * ld, (int)ld);
}

/* The update of a wide node, shared out: the rows are cut in chunks, each thread takes its
 * own chunks first and then those left in the other threads' rows.  On the 64-core machine
 * some threads ran their GEMMs at half the rate of the others, a different few in every run
 * (cores whose execution units another busy thread shares, it seems), and every thread
 * waited for the slowest at the next barrier.  Ends with a barrier (the owner of rows reads
 * them next); then each thread clears its own count (the next balanced update comes after
 * more barriers). */
static void gemm_balanced(panel_t *P, int s, int w1, int w2)
{
    /* chunks of at least 2^20 multiply-adds and 512 rows: smaller GEMM calls ran at half the
     * rate (OpenBLAS's unpacked small-matrix path, slow with a power-of-two lda) */
    int C = (1 << 20) / (w1 * w2) + 1;
    C = C < HYT_PANEL_CHUNK ? HYT_PANEL_CHUNK : (C + 255) / 256 * 256;
    for (int i = 0; i < P->size; i++) {
        int r = P->rank + i < P->size ? P->rank + i : P->rank + i - P->size;
        const seg_t *sg = &P->segs[r];
        int lo = first_from(sg, s + w1), n = (sg->rows - lo + C - 1) / C;
        atomic_int *claimed = &P->bal[r].claimed;
        while (atomic_load_explicit(claimed, memory_order_relaxed) < n) {
            int c = atomic_fetch_add_explicit(claimed, 1, memory_order_relaxed);
            if (c >= n)
                break;
            int r1 = lo + c * C, r2 = r1 + C < sg->rows ? r1 + C : sg->rows;
            gemm_rows(P, sg, r1, r2, s, w1, w2);
        }
    }
    hyt_task_barrier(P->tc);
    atomic_store_explicit(&P->bal[P->rank].claimed, 0, memory_order_relaxed);
}

/* Columns [s, s+w), as LAPACK's dgetrf2: on return they are factored and every interchange
 * of their pivots is applied to them (not yet to the columns outside). */
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
    rec(P, s, w1);
    hyt_task_barrier(P->tc); /* the left half's last interchanges are in */
    /* A12: the left half's interchanges, then inv(L11) A12, each thread on its columns */
    swap_solve(P, s, w1, s + w1, s + w);
    hyt_task_barrier(P->tc);
    /* A22 -= A21 A12 below row s+w1: one GEMM per thread on its own rows, or in chunks
     * shared out for the wide nodes */
    if (P->size > 1 && w >= HYT_PANEL_BALANCE)
        gemm_balanced(P, s, w1, w2);
    else
        gemm_rows(P, P->my, first_from(P->my, s + w1), P->my->rows, s, w1, w2);
    rec(P, s + w1, w2);
    /* the right half's interchanges on the left half (threads still finishing the right
     * half only touch its columns) */
    apply_pivots(P, s + w1, s + w, s, s + w1);
}

typedef struct rec_args {
    hyt_desc_t A;
    int k;
    int *ipiv, *info;
    size_t copy_bytes; /* scratch reserved per thread for its copy (CCRB) */
} rec_args_t;

/* Copies the thread's tiles (CCRB) into its contiguous segment, or back. */
static void copy_tiles(const hyt_desc_t *A, int k, const seg_t *my, int t1, int t2, int W,
                       int back)
{
    for (int l = t1; l < t2; l++) {
        double *t = hyt_tile(A, k + l, k);
        int64_t off = (int64_t)l * A->nb - my->R0;
        int mb = hyt_tile_mb(A, k + l);
        for (int64_t c = 0; c < W; c++) {
            double *seg = my->base + off + c * my->ld, *tile = t + c * A->nb;
            if (back)
                memcpy(tile, seg, (size_t)mb * sizeof(double));
            else
                memcpy(seg, tile, (size_t)mb * sizeof(double));
        }
    }
}

static int rec_body(const hyt_task_ctx_t *tc, void *p)
{
    rec_args_t *a = p;
    const hyt_desc_t *A = &a->A;
    panel_t P;
    P.r0 = (int64_t)a->k * A->nb;
    P.h = (int)(A->m - P.r0);
    P.W = hyt_tile_nb(A, a->k);
    P.p = P.h < P.W ? P.h : P.W;
    P.ipiv = a->ipiv;
    P.info = a->info;
    P.rank = tc->rank;
    P.size = tc->size;
    P.tc = tc;
    P.slots = tc->shared;
    P.segs = (seg_t *)((char *)tc->shared + 2 * (size_t)tc->size * sizeof(piv_slot_t));
    P.my = &P.segs[P.rank];
    P.bal = (bal_t *)(P.segs + tc->size);
    P.lpiv = (int *)(P.bal + tc->size) + (size_t)P.rank * P.W;
    if (P.rank == 0 && hyt_races_on()) { /* debug.races: the panel and its pivots */
        for (int i = a->k; i < A->mt; i++)
            hyt_races_tile(A, i, a->k, 1, "the panel");
        hyt_races_note(a->ipiv + P.r0, 0, (size_t)P.p * sizeof *a->ipiv, 1, 1, "ipiv");
    }

    /* deal the tiles: a contiguous range to each thread, kept for the whole panel */
    int ntl = A->mt - a->k;
    int t1 = (int)((int64_t)ntl * P.rank / P.size), t2 = (int)((int64_t)ntl * (P.rank + 1) / P.size);
    seg_t *my = P.my;
    my->R0 = (int64_t)t1 * A->nb;
    my->rows = 0;
    for (int l = t1; l < t2; l++)
        my->rows += hyt_tile_mb(A, a->k + l);
    int rc = 0;
    void *own = NULL;
    if (A->layout == HYT_LAYOUT_LAPACK) {
        my->base = hyt_tile(A, a->k + t1, a->k);
        my->ld = (int)A->lda;
    } else {
        size_t need = (size_t)(my->rows > 0 ? my->rows : 1) * P.W * sizeof(double);
        my->base = tc->scratch;
        if (need > a->copy_bytes) /* fewer threads than asked for: more rows each */
            my->base = own = malloc(need);
        if (!my->base)
            rc = hyt_error(HYT_ERR_NOMEM, "out of memory for a panel copy of %zu bytes", need);
        my->ld = my->rows > 0 ? my->rows : 1;
        if (!rc)
            copy_tiles(A, a->k, my, t1, t2, P.W, 0);
    }
    my->failed = rc != 0;
    hyt_task_barrier(tc); /* everyone's segment is published, and whether it could copy */
    /* (the flag is in the segment, not in the pivot slots: a thread past this loop already
     * writes its slot for the first column while the others still read) */
    for (int r = 0; r < P.size; r++)
        if (P.segs[r].failed) {
            /* all threads give up together: nothing was changed */
            free(own);
            return rc ? rc : HYT_ERR_NOMEM;
        }
    if (P.p > 0)
        rec(&P, 0, P.p);
    if (P.W > P.p || A->layout == HYT_LAYOUT_CCRB)
        hyt_task_barrier(tc); /* the last interchanges are in */
    if (P.W > P.p) {
        /* wider than tall: the columns right of the pivots get the interchanges and their U */
        swap_solve(&P, 0, P.p, P.p, P.W);
        if (A->layout == HYT_LAYOUT_CCRB)
            hyt_task_barrier(tc);
    }
    /* no thread touches another's rows any more */
    if (A->layout == HYT_LAYOUT_CCRB)
        copy_tiles(A, a->k, my, t1, t2, P.W, 1);
    free(own);
    if (P.rank == 0)
        hyt_progress_add(hyt_sequence_context(tc->seq), 1);
    return rc;
}

int hyt_core_dgetrf_seq(int m, int n, double *a, int64_t lda, int *ipiv)
{
    piv_slot_t slot[2];
    seg_t seg = {.base = a, .R0 = 0, .rows = m, .ld = (int)lda};
    const hyt_task_ctx_t tc = {.rank = 0, .size = 1};
    int info = 0;
    panel_t P = {.r0 = 0, .h = m, .W = n, .p = m < n ? m : n, .ipiv = ipiv, .info = &info,
                 .lpiv = ipiv, .rank = 0, .size = 1, .tc = &tc, .slots = slot, .segs = &seg,
                 .my = &seg};
    if (P.p > 0)
        rec(&P, 0, P.p);
    if (P.W > P.p)
        swap_solve(&P, 0, P.p, P.p, P.W);
    return info;
}

static const hyt_kernel_t rec_kernel = {.name = "dgetrf_panel", .cpu = rec_body,
                                        .cat = HYT_CAT_PANEL};

int hyt_insert_dgetrf_rec(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_desc_t *A, int k,
                          int *ipiv, int *info, int nthreads, const void *ipiv_token)
{
    int ntl = A->mt - k;
    if (nthreads > ntl)
        nthreads = ntl; /* a thread without a tile would only wait at the barriers */
    if (nthreads < 1)
        nthreads = 1;
    int rows_max = ((ntl + nthreads - 1) / nthreads) * A->nb;
    rec_args_t args = {*A, k, ipiv, info,
                       A->layout == HYT_LAYOUT_CCRB
                           ? (size_t)rows_max * hyt_tile_nb(A, k) * sizeof(double)
                           : 0};
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, ntl + 1))
        return HYT_ERR_NOMEM;
    for (int i = k; i < A->mt; i++)
        hyt_deps_add(&deps, hyt_tile(A, i, k), HYT_RW);
    if (ipiv_token)
        hyt_deps_add(&deps, ipiv_token, HYT_WRITE);
    hyt_task_desc_t d = hyt_tagged_desc(&rec_kernel, &args, sizeof args, deps.v, deps.n, tag);
    d.nthreads = nthreads;
    d.shared_bytes = (size_t)nthreads * (2 * sizeof(piv_slot_t) + sizeof(seg_t) + sizeof(bal_t) +
                                         (size_t)hyt_tile_nb(A, k) * sizeof(int));
    d.scratch_bytes = args.copy_bytes;
    int rc = hyt_task_insert(seq, &d);
    hyt_deps_free(&deps);
    return rc;
}
