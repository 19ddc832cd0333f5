/*
 * The solve with an LU factorization held in a device matrix (hyt_dgetrf_dmat), on the
 * devices that hold B: inserts tasks only (the tasks: gpu_dgetrs_dmat.c).
 *
 *   trans = N:  B = inv(U) inv(L) P B       swaps, forward sweep with L, backward with U
 *   trans = T:  B = P^T inv(L^T) inv(U^T) B forward sweep with U^T, backward with L^T, swaps
 *                                           in reverse order
 *
 * Every device that holds columns of B does each step on all of them in one task (TRSM per
 * column, one batched GEMM); a step reads A's tile column k only, in place on its owner or
 * copied beforehand into one of nslot slots on the other devices (H2D stream, so the copy of
 * the next steps overlaps the current one).  The tasks of a device are ordered by the tokens
 * of its B columns (RW in every one): no other token is needed; the slots' tokens order the
 * copies after the steps that read the slot before.
 */
#include "drv_internal.h"
#include "hyt_hybrid.h"

#include <stdio.h>
#include <stdlib.h>

enum { NSLOT = 3 };

typedef struct solve {
    hyt_context_t *ctx;
    int ndev;
    double **slots; /* ndev: NSLOT tile columns (other devices' A columns), or NULL */
    int **dpiv;     /* ndev: the pivots on the device, or NULL */
    hyt_tokens_t *tok; /* ndev * NSLOT slot tokens */
} solve_t;

static void solve_free(solve_t *s)
{
    for (int g = 0; g < s->ndev; g++) {
        hyt_device_t *dev = hyt_context_device(s->ctx, g);
        if (s->slots)
            hyt_device_free(dev, s->slots[g]);
        if (s->dpiv)
            hyt_device_free(dev, s->dpiv[g]);
    }
    free(s->slots);
    free(s->dpiv);
    hyt_tokens_destroy(s->tok);
    free(s);
}

static int cleanup_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    solve_free(*(solve_t **)p);
    return 0;
}

static const hyt_kernel_t cleanup_kernel = {.name = "dmat_solve_cleanup", .cpu = cleanup_body,
                                            .cat = HYT_CAT_OTHER, .always = 1};

/* B's column tokens of device g (RW), plus one more dependency when extra.key is set. */
static int b_deps(const hyt_dmat_t *B, int g, hyt_dep_t extra, hyt_dep_t *deps)
{
    int nd = 0;
    for (int j = g; j < B->nt; j += B->ndev)
        deps[nd++] = (hyt_dep_t){hyt_dmat_col_key(B, j), HYT_RW};
    if (extra.key)
        deps[nd++] = extra;
    return nd;
}

/* One sweep (uplo, trans) on device g's columns of B; *step counts the slots used. */
static int insert_sweep(hyt_sequence_t *seq, solve_t *s, const hyt_dmat_t *A, hyt_dmat_t *B,
                        int g, char uplo, char trans, int *step, hyt_dep_t *deps)
{
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
            const int sl = (*step)++ % NSLOT;
            const void *key = hyt_token(s->tok, (size_t)(g * NSLOT + sl));
            double *slot = s->slots[g] + sl * A->colsz;
            rc = hyt_insert_gpu_dmat_copy(seq, tag, dev, slot + t0 * A->tile,
                                          acol + t0 * A->tile,
                                          (size_t)(t1 - t0) * A->tile * sizeof(double),
                                          src.key, key);
            acol = slot;
            src = (hyt_dep_t){key, HYT_READ};
        }
        int nd = b_deps(B, g, src, deps);
        /* one column (nrhs < nb: HPL's b): no work on its padding */
        int mrhs = B->ncols[g] == 1 && g == B->nt - 1 ? B->n - g * nb : nb;
        if (!rc)
            rc = hyt_insert_gpu_dmat_trs_step(seq, tag, dev, uplo, trans, B->cols[g], B->colsz,
                                              B->ncols[g], mrhs, nb, A->n, k, dk, acol, deps,
                                              nd);
    }
    return rc;
}

int hyt_pdgetrs_dmat(hyt_sequence_t *seq, char trans, const hyt_dmat_t *A, const int *ipiv,
                     hyt_dmat_t *B)
{
    hyt_context_t *ctx = hyt_sequence_context(seq);
    const int ndev = A->ndev, n = A->n;
    if (n == 0 || B->n == 0)
        return HYT_SUCCESS;

    // setup: the slots (several devices) and the pivots' copy, on B's devices, checked first
    solve_t *s = calloc(1, sizeof *s);
    size_t *need = calloc((size_t)ndev, sizeof *need);
    hyt_dep_t *deps = malloc((size_t)(B->nt + ndev * NSLOT + A->nt + 1) * sizeof *deps);
    if (s) {
        s->ctx = ctx;
        s->ndev = ndev;
        s->slots = calloc((size_t)ndev, sizeof *s->slots);
        s->dpiv = calloc((size_t)ndev, sizeof *s->dpiv);
        s->tok = hyt_tokens_create((size_t)ndev * NSLOT);
    }
    if (!s || !need || !deps || !s->slots || !s->dpiv || !s->tok) {
        if (s)
            solve_free(s);
        free(need);
        free(deps);
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    }
    const size_t slot_bytes = ndev > 1 ? (size_t)NSLOT * A->colsz * sizeof(double) : 0;
    for (int g = 0; g < ndev; g++)
        if (B->ncols[g])
            need[g] = slot_bytes + (size_t)n * sizeof(int);
    char what[160];
    snprintf(what, sizeof what, "the solve of a %d x %d system with %d right-hand sides (%d "
             "devices)", n, n, B->n, ndev);
    int rc = hyt_hybrid_check_memory(ctx, ndev, need, what);
    for (int g = 0; g < ndev && !rc; g++) {
        hyt_device_t *dev = hyt_context_device(ctx, g);
        if (!B->ncols[g])
            continue;
        rc = hyt_device_malloc(dev, (void **)&s->dpiv[g], (size_t)n * sizeof(int));
        if (!rc && slot_bytes)
            rc = hyt_device_malloc(dev, (void **)&s->slots[g], slot_bytes);
    }
    free(need);
    if (rc) {
        solve_free(s);
        free(deps);
        return rc;
    }

    // per device of B: swaps, the two sweeps (and the swaps in reverse for trans = T)
    for (int g = 0; g < ndev && !rc; g++) {
        if (!B->ncols[g])
            continue;
        hyt_device_t *dev = hyt_context_device(ctx, g);
        /* the swaps also wait for the factorization's pivots: its last task (the cleanup)
         * writes every column token of A */
        const hyt_dep_t fact = {hyt_dmat_col_key(A, 0), HYT_READ};
        int step = 0, nd = b_deps(B, g, fact, deps);
        hyt_tag_t tag = {0, -1, -1, g};
        if (trans == 'N') {
            rc = hyt_insert_gpu_dmat_laswp(seq, tag, dev, B->cols[g], B->colsz, B->ncols[g],
                                           A->nb, n, ipiv, s->dpiv[g], 0, deps, nd);
            if (!rc)
                rc = insert_sweep(seq, s, A, B, g, 'L', 'N', &step, deps);
            if (!rc)
                rc = insert_sweep(seq, s, A, B, g, 'U', 'N', &step, deps);
        } else {
            rc = insert_sweep(seq, s, A, B, g, 'U', 'T', &step, deps);
            if (!rc)
                rc = insert_sweep(seq, s, A, B, g, 'L', 'T', &step, deps);
            nd = b_deps(B, g, fact, deps);
            if (!rc)
                rc = hyt_insert_gpu_dmat_laswp(seq, tag, dev, B->cols[g], B->colsz,
                                               B->ncols[g], A->nb, n, ipiv, s->dpiv[g], 1, deps,
                                               nd);
        }
    }

    // cleanup after every task of the solve (an "always" task: also after an error)
    int nd = 0;
    for (int j = 0; j < B->nt; j++)
        deps[nd++] = (hyt_dep_t){hyt_dmat_col_key(B, j), HYT_RW};
    for (int t = 0; t < ndev * NSLOT; t++)
        deps[nd++] = (hyt_dep_t){hyt_token(s->tok, (size_t)t), HYT_RW};
    for (int j = 0; j < A->nt; j++)
        deps[nd++] = (hyt_dep_t){hyt_dmat_col_key(A, j), HYT_READ};
    hyt_task_desc_t d = hyt_task_desc(&cleanup_kernel, &s, sizeof s);
    d.deps = deps;
    d.ndeps = nd;
    int rc2 = hyt_task_insert(seq, &d);
    free(deps);
    if (rc2) {
        hyt_sequence_wait(seq);
        solve_free(s);
    }
    return rc ? rc : rc2;
}
