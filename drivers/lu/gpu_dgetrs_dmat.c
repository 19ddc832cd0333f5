/*
 * The row interchanges of the solve with a device matrix's LU factors (pdgetrs_dmat.c) on B's
 * local columns of one device: LAPACK's IPIV (host), forward, or in reverse (P^T) rewritten
 * as interchanges in forward order, copied to the device and applied in one launch.  The
 * triangular sweeps are the shared ones (drivers/dmat_trs.c).
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
    int *dpiv;       /* device copy */
} swp_args_t;

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

static int swp_body(const hyt_devctx_t *dc, void *p)
{
    swp_args_t *a = p;
    const int *piv = a->ipiv;
    int *fwd = NULL, rc = 0;
    if (a->reverse) {
        fwd = malloc((size_t)a->n * sizeof *fwd);
        rc = fwd ? reverse_pivots(a->n, a->ipiv, fwd) : hyt_error(HYT_ERR_NOMEM, "out of memory");
        piv = fwd;
    }
    /* from pageable memory: the copy has left piv when the call returns */
    if (!rc)
        rc = hyt_dev_memcpy_h2d(dc, a->dpiv, piv, (size_t)a->n * sizeof(int));
    free(fwd);
    if (!rc)
        rc = hyt_gpu_dlaswp_crrb(dc, a->bcols, a->colsz, a->ncols, a->nb, 0, a->n, a->dpiv);
    return rc;
}

static const hyt_kernel_t swp_kernel = {.name = "dmat_laswp", .dev = swp_body,
                                        .cat = HYT_CAT_GPU};

int hyt_insert_gpu_dmat_laswp(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dev,
                              double *bcols, int64_t colsz, int ncols, int nb, int n,
                              const int *ipiv, int *dpiv, int reverse, const hyt_dep_t *deps,
                              int ndeps)
{
    swp_args_t args = {bcols, colsz, ncols, nb, n, reverse, ipiv, dpiv};
    hyt_task_desc_t d = hyt_tagged_desc(&swp_kernel, &args, sizeof args, deps, ndeps, tag);
    d.device = hyt_device_index(dev);
    d.stream = HYT_STREAM_COMPUTE;
    return hyt_task_insert(seq, &d);
}
