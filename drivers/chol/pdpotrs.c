/*
 * The tile solve with a Cholesky factor, as tasks.  Inserts tasks only.
 *   uplo L:  A = L L^T:  L y = b (forward), L^T x = y (backward)
 *   uplo U:  A = U^T U:  U^T y = b (forward), U x = y (backward)
 * One chain of tasks per tile column of B, so many right-hand sides solve in parallel.
 */
#include "chol_internal.h"

#include <stdlib.h>

/* op(T) X = B(:, jb) in place, T the uplo triangle of the diagonal-block tiles of A (non-unit):
 * forward (k up, GEMM updates below) for L and U^T, backward (k down, updates above) for L^T
 * and U; the earlier steps of a sweep run at higher priority. */
static int insert_sweep(hyt_sequence_t *seq, const hyt_desc_t *A, const hyt_desc_t *B, int jb,
                        char uplo, char trans, const int *stop)
{
    const int kt = A->mt, ldA = hyt_tile_ld(A), ldB = hyt_tile_ld(B), nbj = hyt_tile_nb(B, jb);
    const int forward = (uplo == 'L') == (trans == 'N');
    int rc = 0;
    for (int s = 0; s < kt && !rc; s++) {
        const int k = forward ? s : kt - 1 - s, mbk = hyt_tile_mb(A, k);
        hyt_tag_t tag = {kt - s, k, k, jb};
        rc = hyt_insert_dtrsm_stop(seq, tag, 'L', uplo, trans, 'N', mbk, nbj, 1.0,
                                   hyt_tile(A, k, k), ldA, hyt_tile(B, k, jb), ldB, stop);
        /* B_i -= op(T)_ik B_k for the rows not solved yet; (op(T))_ik is T_ik or T_ki^T */
        const int i1 = forward ? k + 1 : 0, i2 = forward ? kt : k;
        for (int i = i1; i < i2 && !rc; i++) {
            tag.i = i;
            rc = hyt_insert_dgemm_stop(seq, tag, trans, 'N', hyt_tile_mb(A, i), nbj, mbk, -1.0,
                                       trans == 'N' ? hyt_tile(A, i, k) : hyt_tile(A, k, i),
                                       ldA, hyt_tile(B, k, jb), ldB, 1.0, hyt_tile(B, i, jb),
                                       ldB, stop);
        }
    }
    return rc;
}

/* Does nothing: it READs INFO and writes every tile of B, so the solve that follows starts
 * only when the factorization before it has set INFO for good. */
static int gate_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    (void)p;
    return 0;
}

static const hyt_kernel_t gate_kernel = {.name = "info_gate", .cpu = gate_body,
                                         .cat = HYT_CAT_OTHER};

static int insert_gate(hyt_sequence_t *seq, const hyt_desc_t *B, const int *info)
{
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, B->mt * B->nt + 1))
        return HYT_ERR_NOMEM;
    hyt_deps_add(&deps, info, HYT_READ);
    for (int j = 0; j < B->nt; j++)
        for (int i = 0; i < B->mt; i++)
            hyt_deps_add(&deps, hyt_tile(B, i, j), HYT_RW);
    hyt_task_desc_t d = hyt_task_desc(&gate_kernel, NULL, 0);
    d.deps = deps.v;
    d.ndeps = deps.n;
    int rc = hyt_task_insert(seq, &d);
    hyt_deps_free(&deps);
    return rc;
}

int hyt_pdpotrs(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, const hyt_desc_t *B,
                const int *info)
{
    if (A->mt == 0 || B->nt == 0)
        return HYT_SUCCESS;
    int rc = info ? insert_gate(seq, B, info) : 0;
    const char first = uplo == 'L' ? 'N' : 'T', second = uplo == 'L' ? 'T' : 'N';
    for (int jb = 0; jb < B->nt && !rc; jb++) {
        rc = insert_sweep(seq, A, B, jb, uplo, first, info);
        if (!rc)
            rc = insert_sweep(seq, A, B, jb, uplo, second, info);
    }
    return rc;
}
