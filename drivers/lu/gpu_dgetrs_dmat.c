/*
 * The row interchanges of the solve with a device matrix's LU factors (pdgetrs_dmat.c) on B's
 * local columns of one device: LAPACK's IPIV (host), forward, or in reverse (P^T) rewritten
 * as interchanges in forward order, copied to the device and applied nb at a time, each block
 * as one permutation (the LU's gather and scatter, gpu_dgetrf_update.c, with plans made on the
 * host), since applied one after the other in one launch, each thread's chain of n dependent
 * loads and stores took 30 ms at n = 65536 (docs/performance.md, eighteenth stop).  Pivots
 * that are not LAPACK's (some ipiv[i] < i + 1, from a caller's own IPIV) take the one launch.
 * The triangular sweeps are the shared ones (drivers/dmat_trs.c).
 */
#include "hyt_gpu_kernels.h"

#include "drv_internal.h"

#include <stdlib.h>

/* ---- row interchanges ----------------------------------------------------------------------- */

typedef struct swp_args {
    double *bcols;
    int64_t colsz;
    int ncols, nb, n, reverse;
    const int *ipiv; /* host, LAPACK's */
    int *dpiv;       /* device copy, or the plans (HYT_DMAT_LASWP_INTS) */
    double *work;    /* ncols tiles */
} swp_args_t;

/* 1 when every interchange is LAPACK's (i + 1 <= piv[i] <= n): the plans' condition. */
static int lapack_pivots(int n, const int *piv)
{
    for (int i = 0; i < n; i++)
        if (piv[i] < i + 1 || piv[i] > n)
            return 0;
    return 1;
}

/* P^T (the interchanges of ipiv in reverse order) as interchanges in forward order, fwd[i] >= i
 * + 1 (1-based), so that one launch applies them.  0, or HYT_ERR_NOMEM. */
static int reverse_pivots(int n, const int *ipiv, int *fwd)
{
    int *perm = malloc((size_t)n * 3 * sizeof *perm), *cur = perm + n, *where = cur + n;
    if (!perm)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++)
        perm[i] = cur[i] = where[i] = i;
    for (int q = n - 1; q >= 0; q--) { /* perm[i]: the row that ends at position i */
        int p = ipiv[q] - 1, t = perm[q];
        if (p < 0 || p >= n) { /* not LAPACK's: leave that interchange out */
            continue;
        }
        perm[q] = perm[p];
        perm[p] = t;
    }
    for (int i = 0; i < n; i++) { /* bring row perm[i] to position i from where it is now */
        int p = where[perm[i]], r = cur[i];
        fwd[i] = p + 1;
        cur[p] = r;
        where[r] = p;
        cur[i] = perm[i];
        where[perm[i]] = i;
    }
    free(perm);
    return HYT_SUCCESS;
}

/* The plans, made on the host in O(n) (drv_internal.h): the plan kernel's walk is O(nb) per
 * row, and 64 launches of it took most of the 12 ms of the first version at n = 65536.  `who`
 * follows the rows' contents through one block's interchanges, then goes back to the identity
 * on the rows below it (the later blocks never read this one's rows). */
int hyt_dmat_laswp_plans(int n, int nb, const int *piv, int *plans)
{
    int *who = malloc((size_t)n * 2 * sizeof *who), *last = who + n;
    if (!who)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++)
        who[i] = i; /* the original row whose content row i holds, within a block */
    for (int r1 = 0; r1 < n; r1 += nb) {
        const int np = n - r1 < nb ? n - r1 : nb;
        int *P = plans + 3 * (int64_t)r1;
        for (int q = 0; q < np; q++) {
            const int r = r1 + q, p = piv[r] - 1, t = who[r];
            who[r] = who[p];
            who[p] = t;
            last[p] = q;
        }
        for (int q = 0; q < np; q++) {
            const int p = piv[r1 + q] - 1, below = p >= r1 + np && last[p] == q;
            P[q] = who[r1 + q];
            P[np + q] = below ? p : -1;
            P[2 * np + q] = below ? who[p] : 0;
        }
        for (int q = 0; q < np; q++)
            who[piv[r1 + q] - 1] = piv[r1 + q] - 1;
    }
    free(who);
    return HYT_SUCCESS;
}

/* The interchanges on the columns nb at a time, each block as one permutation from its plan
 * (hyt_dmat_laswp_plans' in dpiv): tile row r's new rows gathered into the work tiles, the rows
 * below scattered, the tiles copied back. */
static int swp_blocks(const hyt_devctx_t *dc, const swp_args_t *a)
{
    const int nb = a->nb;
    const int64_t tile = (int64_t)nb * nb;
    int rc = 0;
    for (int r1 = 0; r1 < a->n && !rc; r1 += nb) {
        const int npiv = a->n - r1 < nb ? a->n - r1 : nb;
        const int *plan = a->dpiv + 3 * (int64_t)r1;
        rc = hyt_gpu_dlaswp_apply(dc, a->bcols, a->colsz, a->ncols, nb, r1, npiv, plan, a->work,
                                  tile);
    }
    return rc;
}

static int swp_body(const hyt_devctx_t *dc, void *p)
{
    swp_args_t *a = p;
    const int *piv = a->ipiv;
    int *fwd = NULL, *plans = NULL, rc = 0;
    /* debug.races: which rows move is known on the device only */
    hyt_races_note(a->bcols, (size_t)a->colsz * sizeof(double), (size_t)a->n * a->nb *
                   sizeof(double), (size_t)a->ncols, 1, "the right-hand sides");
    hyt_races_note(a->dpiv, 0, HYT_DMAT_LASWP_INTS(a->n) * sizeof(int), 1, 1,
                   "the pivots' copy");
    hyt_races_note(a->work, 0, (size_t)a->ncols * a->nb * a->nb * sizeof(double), 1, 1,
                   "the work tiles");
    if (a->reverse) {
        fwd = malloc((size_t)a->n * sizeof *fwd);
        rc = fwd ? reverse_pivots(a->n, a->ipiv, fwd) : hyt_error(HYT_ERR_NOMEM, "out of memory");
        piv = fwd;
    }
    if (!rc && lapack_pivots(a->n, piv)) {
        plans = malloc((size_t)a->n * 3 * sizeof *plans);
        rc = plans ? hyt_dmat_laswp_plans(a->n, a->nb, piv, plans)
                   : hyt_error(HYT_ERR_NOMEM, "out of memory");
    }
    /* from pageable memory: the copy has left the host array when the call returns */
    if (!rc)
        rc = hyt_dev_memcpy_h2d(dc, a->dpiv, plans ? plans : piv,
                                (size_t)a->n * (plans ? 3 : 1) * sizeof(int));
    hyt_races_free(NULL, fwd, (size_t)a->n * sizeof *fwd); /* the copy's source, freed */
    free(fwd);
    if (!rc)
        rc = plans ? swp_blocks(dc, a)
                   : hyt_gpu_dlaswp_crrb(dc, a->bcols, a->colsz, a->ncols, a->nb, 0, a->n,
                                         a->dpiv);
    hyt_races_free(NULL, plans, (size_t)a->n * 3 * sizeof *plans);
    free(plans);
    return rc;
}

static const hyt_kernel_t swp_kernel = {.name = "dmat_laswp", .dev = swp_body,
                                        .cat = HYT_CAT_GPU};

int hyt_insert_gpu_dmat_laswp(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dev,
                              double *bcols, int64_t colsz, int ncols, int nb, int n,
                              const int *ipiv, int *dpiv, double *work, int reverse,
                              const hyt_dep_t *deps, int ndeps)
{
    swp_args_t args = {bcols, colsz, ncols, nb, n, reverse, ipiv, dpiv, work};
    hyt_task_desc_t d = hyt_tagged_desc(&swp_kernel, &args, sizeof args, deps, ndeps, tag);
    d.device = hyt_device_index(dev);
    d.stream = HYT_STREAM_COMPUTE;
    return hyt_task_insert(seq, &d);
}
