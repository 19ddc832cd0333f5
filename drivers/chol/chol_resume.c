/*
 * The end of a LAPACK-layout Cholesky on the CPU workers, after its device path failed once
 * part of the factor had come back into the program's array (dpotrf_devices.c returns each
 * tile column as soon as its panel is done).  Nothing of the original matrix is lost then:
 *
 *   - a tile marked as written holds its final tile of L (of U^T for 'U'): the devices
 *     computed it, and nothing on the host changes it again;
 *   - an unmarked tile holds A's original tile, untouched;
 *   - a column's diagonal tile is written before its other tiles (hyt_ring_stream_col), so a
 *     written tile of L never lacks its diagonal tile on the host.
 *
 * So the right-looking tile Cholesky (pdpotrf.c) restricted to the unmarked tiles finishes the
 * factorization: an unmarked tile gets every update from the columns left of it (written or
 * finished here), then its diagonal factorization or its panel solve with its column's diagonal
 * tile, whichever put it there.  The marked tiles are only read.
 *
 * INFO: an unmarked diagonal tile's factorization sets it as in pdpotrf.c; a marked one is
 * checked instead, its first diagonal entry that is not positive (or NaN) giving INFO: the
 * device factorization stops there and leaves that entry as it was (gpu_kernels/gpu_dpotf2.cu),
 * and every entry before it is a square root.  Both run in column order (RW on info), so the
 * first failing minor wins, and every task after it does nothing, as in pdpotrf.c.
 */
#include "chol_internal.h"

#define PRIO_PANEL (1 << 24)

typedef struct check_args {
    const double *a;
    int n, lda, offset;
    int *info;
} check_args_t;

/* A written diagonal tile: INFO at its first diagonal entry that is not positive. */
static int check_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const check_args_t *c = p;
    if (hyt_stopped(c->info))
        return 0;
    for (int i = 0; i < c->n; i++)
        if (!(c->a[(int64_t)i * c->lda + i] > 0.0)) { /* <= 0 or NaN */
            __atomic_store_n(c->info, c->offset + i + 1, __ATOMIC_RELAXED);
            break;
        }
    return 0;
}

static const hyt_kernel_t check_kernel = {.name = "chol_resume_check", .cpu = check_body,
                                          .cat = HYT_CAT_OTHER};

static int insert_check(hyt_sequence_t *seq, hyt_tag_t tag, int n, const double *a, int lda,
                        int offset, int *info)
{
    check_args_t args = {a, n, lda, offset, info};
    hyt_dep_t deps[2] = {{a, HYT_READ}, {info, HYT_RW}};
    hyt_task_desc_t d = hyt_tagged_desc(&check_kernel, &args, sizeof args, deps, 2, tag);
    return hyt_task_insert(seq, &d);
}

int hyt_chol_resume(hyt_context_t *ctx, char uplo, int n, double *a, int lda, int nb,
                    const unsigned char *marks, int *info)
{
    hyt_desc_t A;
    hyt_sequence_t *seq;
    *info = 0;
    int rc = hyt_desc_lapack(n, n, nb, a, lda, &A);
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    const int nt = A.nt, mt = A.mt, ld = hyt_tile_ld(&A), lower = uplo == 'L';
#define T(i, j) (lower ? hyt_tile(&A, i, j) : hyt_tile(&A, j, i))
#define DONE(i, j) (marks[(int64_t)(j) * mt + (i)])
    for (int k = 0; k < nt && !rc; k++) {
        const int nbk = hyt_tile_nb(&A, k);
        hyt_tag_t tag = {PRIO_PANEL, k, k, k};
        rc = DONE(k, k) ? insert_check(seq, tag, nbk, T(k, k), ld, k * nb, info)
                        : hyt_insert_dpotrf(seq, tag, uplo, nbk, T(k, k), ld, k * nb, info);
        for (int i = k + 1; i < nt && !rc; i++) {
            if (DONE(i, k))
                continue;
            tag = (hyt_tag_t){PRIO_PANEL - i, k, i, k};
            const int mbi = hyt_tile_nb(&A, i);
            rc = lower ? hyt_insert_dtrsm_stop(seq, tag, 'R', 'L', 'T', 'N', mbi, nbk, 1.0,
                                               T(k, k), ld, T(i, k), ld, info)
                       : hyt_insert_dtrsm_stop(seq, tag, 'L', 'U', 'T', 'N', nbk, mbi, 1.0,
                                               T(k, k), ld, T(i, k), ld, info);
        }
        // the update of the unmarked tiles of each column right of k, in runs of rows
        for (int j = k + 1; j < nt && !rc; j++)
            for (int i1 = j; i1 < nt && !rc;) {
                if (DONE(i1, j)) {
                    i1++;
                    continue;
                }
                int i2 = i1 + 1;
                while (i2 < nt && !DONE(i2, j))
                    i2++;
                rc = hyt_insert_dsyrk_col(seq, (hyt_tag_t){nt - k, k, i1, j}, uplo, &A, k, j, i1,
                                          i2, info);
                i1 = i2;
            }
    }
#undef DONE
#undef T
    return hyt_sequence_finish(seq, rc);
}
