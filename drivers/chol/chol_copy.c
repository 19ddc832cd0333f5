/*
 * The hybrid Cholesky's copy between the caller's matrix A (CCRB or a LAPACK view, 'L' or 'U')
 * and the lower CCRB matrix T the devices work on (their copies move whole CCRB tiles, and
 * their columns are tile columns of L): one CPU task per tile column j of T, its tiles i >= j.
 *
 *   in  (back = 0)   T(i,j) = A(i,j)          ('L')      the diagonal tile: its lower triangle
 *                    T(i,j) = A(j,i)^T        ('U')      (the rest of it zero)
 *   out (back = 1)   the inverse, the diagonal tile's uplo triangle only
 *
 * so that the other triangle of A is never written, as LAPACK's dpotrf.  T's tiles above the
 * diagonal are not touched (the devices copy them back and forth, unused).
 */
#include "chol_internal.h"

#include <string.h>

typedef struct copy_args {
    hyt_desc_t A, T;
    char uplo;
    int j, back;
} copy_args_t;

static void copy_tile(const copy_args_t *a, int i)
{
    const hyt_desc_t *A = &a->A, *T = &a->T;
    const int j = a->j, rows = hyt_tile_mb(T, i), cols = hyt_tile_nb(T, j), diag = i == j;
    const int64_t ld = hyt_tile_ld(A), nb = T->nb;
    double *t = hyt_tile(T, i, j);
    /* element (r, c) of tile (i,j) of L: in A at s[r rs + c cs] */
    const int lower = a->uplo == 'L';
    double *s = lower ? hyt_tile(A, i, j) : hyt_tile(A, j, i);
    const int64_t rs = lower ? 1 : ld, cs = lower ? ld : 1;
    /* debug.races: the tile of A (its diagonal tile's triangle when written back) and T's */
    if (diag && a->back)
        hyt_races_trap(lower ? 'L' : 'U', s, ld, rows, cols, 1, "A's triangle");
    else
        hyt_races_block(s, ld, lower ? rows : cols, lower ? cols : rows, a->back, "A's tile");
    hyt_races_block(t, nb, rows, cols, !a->back, "T's tile");
    for (int c = 0; c < cols; c++) {
        const int r0 = diag ? c : 0;
        if (a->back) {
            for (int r = r0; r < rows; r++)
                s[r * rs + c * cs] = t[r + c * nb];
        } else {
            if (diag)
                memset(t + c * nb, 0, (size_t)r0 * sizeof *t);
            for (int r = r0; r < rows; r++)
                t[r + c * nb] = s[r * rs + c * cs];
        }
    }
}

static int copy_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const copy_args_t *a = p;
    for (int i = a->j; i < a->T.mt; i++)
        copy_tile(a, i);
    return 0;
}

static const hyt_kernel_t copy_kernel = {.name = "chol_copy", .cpu = copy_body,
                                         .cat = HYT_CAT_OTHER};

int hyt_insert_chol_copy(hyt_sequence_t *seq, hyt_tag_t tag, char uplo, const hyt_desc_t *A,
                         const hyt_desc_t *T, int j, int back)
{
    copy_args_t a = {*A, *T, uplo, j, back};
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, 2 * (T->mt - j)))
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    for (int i = j; i < T->mt; i++) {
        hyt_deps_add(&deps, uplo == 'L' ? hyt_tile(A, i, j) : hyt_tile(A, j, i),
                     back ? HYT_RW : HYT_READ);
        hyt_deps_add(&deps, hyt_tile(T, i, j), back ? HYT_READ : HYT_WRITE);
    }
    hyt_task_desc_t d = hyt_tagged_desc(&copy_kernel, &a, sizeof a, deps.v, deps.n, tag);
    int rc = hyt_task_insert(seq, &d);
    hyt_deps_free(&deps);
    return rc;
}
