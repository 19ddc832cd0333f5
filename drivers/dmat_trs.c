/*
 * Triangular sweeps with a factor held in a device matrix, on the devices that hold B (the
 * LU's solve, pdgetrs_dmat.c, and the Cholesky's, chol/pdpotrs_dmat.c): inserts tasks only.
 *
 * A sweep (uplo, trans, diag) is kt steps; step k reads A's tile column k only, in place on
 * its owner or copied beforehand into one of NSLOT slots on the other devices (H2D stream, so
 * the copy of the next steps overlaps the current one), and works on all of a device's B
 * columns in one task (TRSM per column, one batched GEMM).  In CRRB a tile column of B is the
 * column-major nb x (mt*nb) matrix B^T (leading dimension nb), and tile column k of A the
 * matrix V = A(:, k-block)^T, so every solve is written on transposes:
 *
 *   trans N, L (forward):   X_k^T = B_k^T L_kk^-T          TRSM right, V_kk upper
 *                           B_i^T -= X_k^T L_ik^T, i > k    one strided-batched GEMM
 *   trans N, U (backward):  X_k^T = B_k^T U_kk^-T          TRSM right, V_kk lower
 *                           B_i^T -= X_k^T U_ik^T, i < k
 *   trans T, U (forward):   B_k^T -= Y_<k^T U_<k,k          left-looking: A's column k only
 *                           Y_k^T = B_k^T U_kk^-1          TRSM right, V_kk lower, transposed
 *   trans T, L (backward):  B_k^T -= W_>k^T L_>k,k
 *                           W_k^T = B_k^T L_kk^-1          TRSM right, V_kk upper, transposed
 *
 * with L unit (the LU's) or not (the Cholesky's) as diag says; U is never unit.  The tasks of
 * a device are ordered by the tokens of its B columns (RW in every one): no other token is
 * needed; the slots' tokens order the copies after the steps that read the slot before.
 */
#include "drv_internal.h"
#include "hyt_gpu_kernels.h"
#include "hyt_hybrid.h"

#include <stdio.h>
#include <stdlib.h>

enum { NSLOT = 3 };

struct hyt_dmat_trs {
    hyt_context_t *ctx;
    const hyt_dmat_t *A, *B;
    int ndev;
    double **slots;    /* ndev: NSLOT tile columns (other devices' A columns), or NULL */
    int **dpiv;        /* ndev: the pivots on the device (and a plan), or NULL */
    double **work;     /* ndev: the interchanges' tiles (a tile per column of B), or NULL */
    int *step;         /* ndev: slots used so far */
    hyt_tokens_t *tok; /* ndev * NSLOT slot tokens */
    hyt_dep_t *deps;   /* scratch of the inserting thread */
};

static void trs_free(void *p)
{
    hyt_dmat_trs_t *s = p;
    for (int g = 0; g < s->ndev; g++) {
        hyt_device_t *dev = hyt_context_device(s->ctx, g);
        if (s->slots)
            hyt_device_free(dev, s->slots[g]);
        if (s->dpiv)
            hyt_device_free(dev, s->dpiv[g]);
        if (s->work)
            hyt_device_free(dev, s->work[g]);
    }
    free(s->slots);
    free(s->dpiv);
    free(s->work);
    free(s->step);
    free(s->deps);
    hyt_tokens_destroy(s->tok);
    free(s);
}

/* ---- the device tasks ----------------------------------------------------------------------- */

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
                             int stream, double *dst, const double *src, size_t bytes,
                             const void *src_key, const void *dst_key)
{
    cp_args_t args = {dst, src, bytes};
    hyt_dep_t deps[2] = {{src_key, HYT_READ}, {dst_key, HYT_WRITE}};
    hyt_task_desc_t d = hyt_tagged_desc(&cp_kernel, &args, sizeof args, deps, 2, tag);
    d.device = hyt_device_index(dst_dev);
    d.stream = stream;
    return hyt_task_insert(seq, &d);
}

typedef struct trs_args {
    double *bcols;
    int64_t colsz;
    int ncols, mrhs, nb, n, k, dk; /* mrhs: right-hand sides per column (nb, or fewer in a
                                    * single narrow column: no work on its padding) */
    const double *acol; /* A's tile column k (its tile 0), on this device */
    char uplo, trans, diag;
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
    const char vuplo = L ? 'U' : 'L', diag = L ? a->diag : 'N';
    int rc = 0;
    if (a->trans == 'N') {
        for (int b = 0; b < nc && !rc; b++)
            rc = hyt_gpu_dtrsm(dc, 'R', vuplo, 'N', diag, w, dk, 1.0, Akk, nb, Bk + b * cs, nb);
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
        rc = hyt_gpu_dtrsm(dc, 'R', vuplo, 'T', diag, w, dk, 1.0, Akk, nb, Bk + b * cs, nb);
    return rc;
}

static const hyt_kernel_t trs_kernel = {.name = "dmat_trsm_step", .dev = trs_body,
                                        .cat = HYT_CAT_GPU};

/* ---- the sweeps --------------------------------------------------------------------------- */

/* What hyt_dmat_trs_open allocates on a device that holds bcols > 0 tile columns of B (on the
 * others nothing): the panel slots (several devices), the pivots and the interchanges' work
 * columns (an LU's solve), in bytes; 0 for what it does not allocate. */
typedef struct trs_sizes {
    size_t slots, piv, work;
} trs_sizes_t;

static trs_sizes_t trs_sizes(int n, int nb, int ndev, int bcols, int pivots)
{
    const size_t mt = (size_t)((n + nb - 1) / nb), tile = (size_t)nb * nb * sizeof(double);
    return (trs_sizes_t){ndev > 1 ? (size_t)NSLOT * mt * tile : 0,
                         pivots ? HYT_DMAT_LASWP_INTS(n) * sizeof(int) : 0,
                         pivots ? tile * (size_t)bcols : 0};
}

size_t hyt_dmat_trs_bytes(int n, int nrhs, int nb, int ndev, int g, int pivots)
{
    const int bcols = hyt_dmat_local_cols((nrhs + nb - 1) / nb, ndev, g);
    if (!bcols)
        return 0;
    const trs_sizes_t z = trs_sizes(n, nb, ndev, bcols, pivots);
    return (z.slots ? hyt_device_alloc_bytes(z.slots) : 0) +
           (z.piv ? hyt_device_alloc_bytes(z.piv) : 0) +
           (z.work ? hyt_device_alloc_bytes(z.work) : 0);
}

int hyt_dmat_trs_open(hyt_sequence_t *seq, const hyt_dmat_t *A, const hyt_dmat_t *B,
                      int pivots, hyt_dmat_trs_t **out)
{
    hyt_context_t *ctx = hyt_sequence_context(seq);
    const int ndev = A->ndev, n = A->n;
    *out = NULL;
    hyt_dmat_trs_t *s = calloc(1, sizeof *s);
    size_t *need = calloc((size_t)ndev, sizeof *need);
    if (s) {
        s->ctx = ctx;
        s->A = A;
        s->B = B;
        s->ndev = ndev;
        s->slots = calloc((size_t)ndev, sizeof *s->slots);
        s->dpiv = calloc((size_t)ndev, sizeof *s->dpiv);
        s->work = calloc((size_t)ndev, sizeof *s->work);
        s->step = calloc((size_t)ndev, sizeof *s->step);
        s->tok = hyt_tokens_create((size_t)ndev * NSLOT);
        s->deps = malloc((size_t)(B->nt + 1) * sizeof *s->deps);
    }
    if (!s || !need || !s->slots || !s->dpiv || !s->work || !s->step || !s->tok || !s->deps) {
        if (s)
            trs_free(s);
        free(need);
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    }
    for (int g = 0; g < ndev; g++)
        need[g] = hyt_dmat_trs_bytes(n, B->n, A->nb, ndev, g, pivots);
    char what[160];
    snprintf(what, sizeof what, "the solve of a %d x %d system with %d right-hand sides (%d "
             "devices)", n, n, B->n, ndev);
    int rc = hyt_hybrid_check_memory(ctx, ndev, need, what);
    for (int g = 0; g < ndev && !rc; g++) {
        hyt_device_t *dev = hyt_context_device(ctx, g);
        if (!B->ncols[g])
            continue;
        const trs_sizes_t z = trs_sizes(n, A->nb, ndev, B->ncols[g], pivots);
        if (z.piv)
            rc = hyt_device_malloc(dev, (void **)&s->dpiv[g], z.piv);
        if (!rc && z.work)
            rc = hyt_device_malloc(dev, (void **)&s->work[g], z.work);
        if (!rc && z.slots)
            rc = hyt_device_malloc(dev, (void **)&s->slots[g], z.slots);
    }
    free(need);
    if (rc) {
        trs_free(s);
        return rc;
    }
    *out = s;
    return HYT_SUCCESS;
}

int *hyt_dmat_trs_dpiv(const hyt_dmat_trs_t *s, int g) { return s->dpiv[g]; }
double *hyt_dmat_trs_laswp_work(const hyt_dmat_trs_t *s, int g) { return s->work[g]; }

int hyt_dmat_trs_deps(hyt_dmat_trs_t *s, int g, hyt_dep_t extra, const hyt_dep_t **deps)
{
    int nd = 0;
    for (int j = g; j < s->B->nt; j += s->B->ndev)
        s->deps[nd++] = (hyt_dep_t){hyt_dmat_col_key(s->B, j), HYT_RW};
    if (extra.key)
        s->deps[nd++] = extra;
    *deps = s->deps;
    return nd;
}

int hyt_dmat_trs_sweep(hyt_sequence_t *seq, hyt_dmat_trs_t *s, int g, char uplo, char trans,
                       char diag)
{
    const hyt_dmat_t *A = s->A, *B = s->B;
    const int kt = A->nt, nb = A->nb;
    const int forward = (uplo == 'L') == (trans == 'N');
    hyt_device_t *dev = hyt_context_device(s->ctx, g);
    int rc = 0;
    for (int q = 0; q < kt && !rc; q++) {
        const int k = forward ? q : kt - 1 - q, o = hyt_dmat_owner(A, k);
        const int dk = k < kt - 1 ? nb : A->n - k * nb;
        /* the tiles of column k this sweep reads: L below the diagonal, U above */
        const int t0 = uplo == 'L' ? k : 0, t1 = uplo == 'L' ? A->mt : k + 1;
        hyt_tag_t tag = {forward ? kt - k : k, k, k, g};
        const double *acol = hyt_dmat_col(A, k);
        hyt_dep_t src = {hyt_dmat_col_key(A, k), HYT_READ};
        if (o != g) {
            const int sl = s->step[g]++ % NSLOT;
            const void *key = hyt_token(s->tok, (size_t)(g * NSLOT + sl));
            double *slot = s->slots[g] + sl * A->colsz;
            rc = hyt_insert_gpu_dmat_copy(seq, tag, dev, HYT_STREAM_H2D, slot + t0 * A->tile,
                                          acol + t0 * A->tile,
                                          (size_t)(t1 - t0) * A->tile * sizeof(double),
                                          src.key, key);
            acol = slot;
            src = (hyt_dep_t){key, HYT_READ};
        }
        const hyt_dep_t *deps;
        int nd = hyt_dmat_trs_deps(s, g, src, &deps);
        /* one column (nrhs < nb: HPL's b): no work on its padding */
        int mrhs = B->ncols[g] == 1 && g == B->nt - 1 ? B->n - g * nb : nb;
        trs_args_t args = {B->cols[g], B->colsz, B->ncols[g], mrhs, nb, A->n, k, dk, acol,
                           uplo, trans, diag};
        hyt_task_desc_t d = hyt_tagged_desc(&trs_kernel, &args, sizeof args, deps, nd, tag);
        d.device = hyt_device_index(dev);
        d.stream = HYT_STREAM_COMPUTE;
        if (!rc)
            rc = hyt_task_insert(seq, &d);
    }
    return rc;
}

int hyt_dmat_trs_close(hyt_sequence_t *seq, hyt_dmat_trs_t *s, int rc)
{
    /* after every task of the solve (an "always" task: also after an error); its dependency
     * list is not s's scratch, which the task frees */
    const hyt_dmat_t *A = s->A, *B = s->B;
    const int nd = B->nt + s->ndev * NSLOT + A->nt;
    hyt_dep_t *deps = malloc((size_t)nd * sizeof *deps);
    int i = 0;
    for (int j = 0; deps && j < B->nt; j++)
        deps[i++] = (hyt_dep_t){hyt_dmat_col_key(B, j), HYT_RW};
    for (int t = 0; deps && t < s->ndev * NSLOT; t++)
        deps[i++] = (hyt_dep_t){hyt_token(s->tok, (size_t)t), HYT_RW};
    for (int j = 0; deps && j < A->nt; j++)
        deps[i++] = (hyt_dep_t){hyt_dmat_col_key(A, j), HYT_READ};
    int rc2 = hyt_drv_insert_cleanup(seq, trs_free, s, deps, nd);
    free(deps);
    return rc ? rc : rc2;
}
