/*
 * Device tasks of the solve with a device matrix's LU factors (pdgetrs_dmat.c): B is a device
 * matrix; each of its devices works on all of its local columns at once.  In CRRB a tile
 * column of B is the column-major nb x (mt*nb) matrix B^T (leading dimension nb), and a tile
 * column k of A the matrix V = A(:, k-block)^T, so every solve is written on transposes:
 *
 *   trans N, L (forward):   X_k^T = B_k^T L_kk^-T          TRSM right, V_kk upper unit
 *                           B_i^T -= X_k^T L_ik^T, i > k    one strided-batched GEMM
 *   trans N, U (backward):  X_k^T = B_k^T U_kk^-T          TRSM right, V_kk lower
 *                           B_i^T -= X_k^T U_ik^T, i < k
 *   trans T, U (forward):   B_k^T -= Y_<k^T U_<k,k          left-looking: A's column k only
 *                           Y_k^T = B_k^T U_kk^-1          TRSM right, V_kk lower, transposed
 *   trans T, L (backward):  B_k^T -= W_>k^T L_>k,k
 *                           W_k^T = B_k^T L_kk^-1          TRSM right, V_kk upper unit, transposed
 *
 * so each step reads only A's tile column k (on its owner, or copied to a slot of B's device).
 * The interchanges are LAPACK's IPIV (host), copied to the device first.
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

/* ---- A's tile column k (tiles t0..t1-1) to another device ----------------------------------- */

typedef struct cp_args {
    double *dst;
    const double *src;
    size_t bytes;
} cp_args_t;

static int cp_body(const hyt_devctx_t *dc, void *p)
{
    cp_args_t *a = p;
    return hyt_dev_memcpy_d2d(dc, a->dst, a->src, a->bytes);
}

static const hyt_kernel_t cp_kernel = {.name = "dmat_column_copy", .dev = cp_body,
                                       .cat = HYT_CAT_DMA};

int hyt_insert_gpu_dmat_copy(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dst_dev,
                             double *dst, const double *src, size_t bytes, const void *src_key,
                             const void *dst_key)
{
    cp_args_t args = {dst, src, bytes};
    hyt_dep_t deps[2] = {{src_key, HYT_READ}, {dst_key, HYT_WRITE}};
    hyt_task_desc_t d = hyt_tagged_desc(&cp_kernel, &args, sizeof args, deps, 2, tag);
    d.device = hyt_device_index(dst_dev);
    d.stream = HYT_STREAM_H2D;
    return hyt_task_insert(seq, &d);
}

/* ---- one step of a triangular solve ------------------------------------------------------- */

typedef struct trs_args {
    double *bcols;
    int64_t colsz;
    int ncols, mrhs, nb, n, k, dk; /* mrhs: right-hand sides per column (nb, or fewer in a
                                    * single narrow column: no work on its padding) */
    const double *acol; /* A's tile column k (its tile 0), on this device */
    char uplo, trans;
} trs_args_t;

static int trs_body(const hyt_devctx_t *dc, void *p)
{
    trs_args_t *a = p;
    const int nb = a->nb, k = a->k, dk = a->dk, nc = a->ncols, w = a->mrhs;
    const int64_t tile = (int64_t)nb * nb, cs = a->colsz;
    const int below = a->n - (k + 1) * nb, above = k * nb;
    double *Bk = a->bcols + k * tile;
    const double *Akk = a->acol + k * tile;
    const int L = a->uplo == 'L';
    int rc = 0;
    if (a->trans == 'N') {
        for (int b = 0; b < nc && !rc; b++)
            rc = hyt_gpu_dtrsm(dc, 'R', L ? 'U' : 'L', 'N', L ? 'U' : 'N', w, dk, 1.0, Akk, nb,
                               Bk + b * cs, nb);
        if (!rc && L && below > 0)
            rc = hyt_gpu_dgemm_batched(dc, 'N', 'N', w, below, dk, -1.0, Bk, nb, cs,
                                       a->acol + (k + 1) * tile, nb, 0, 1.0,
                                       a->bcols + (k + 1) * tile, nb, cs, nc, 0);
        if (!rc && !L && above > 0)
            rc = hyt_gpu_dgemm_batched(dc, 'N', 'N', w, above, dk, -1.0, Bk, nb, cs, a->acol,
                                       nb, 0, 1.0, a->bcols, nb, cs, nc, 0);
        return rc;
    }
    if (L && below > 0)
        rc = hyt_gpu_dgemm_batched(dc, 'N', 'T', w, dk, below, -1.0, a->bcols + (k + 1) * tile,
                                   nb, cs, a->acol + (k + 1) * tile, nb, 0, 1.0, Bk, nb, cs, nc,
                                   0);
    if (!L && above > 0)
        rc = hyt_gpu_dgemm_batched(dc, 'N', 'T', w, dk, above, -1.0, a->bcols, nb, cs, a->acol,
                                   nb, 0, 1.0, Bk, nb, cs, nc, 0);
    for (int b = 0; b < nc && !rc; b++)
        rc = hyt_gpu_dtrsm(dc, 'R', L ? 'U' : 'L', 'T', L ? 'U' : 'N', w, dk, 1.0, Akk, nb,
                           Bk + b * cs, nb);
    return rc;
}

static const hyt_kernel_t trs_kernel = {.name = "dmat_trsm_step", .dev = trs_body,
                                        .cat = HYT_CAT_GPU};

int hyt_insert_gpu_dmat_trs_step(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dev,
                                 char uplo, char trans, double *bcols, int64_t colsz, int ncols,
                                 int mrhs, int nb, int n, int k, int dk, const double *acol,
                                 const hyt_dep_t *deps, int ndeps)
{
    trs_args_t args = {bcols, colsz, ncols, mrhs, nb, n, k, dk, acol, uplo, trans};
    hyt_task_desc_t d = hyt_tagged_desc(&trs_kernel, &args, sizeof args, deps, ndeps, tag);
    d.device = hyt_device_index(dev);
    d.stream = HYT_STREAM_COMPUTE;
    return hyt_task_insert(seq, &d);
}
