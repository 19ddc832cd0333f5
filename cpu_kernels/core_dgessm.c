/*
 * dgessm: apply step k of the LU to a block of columns (PLASMA's name: swap, solve, multiply):
 *
 *   swaps of step k on tile columns [j1, j2), rows k*nb..m-1           (hand-coded dlaswp)
 *   A_kj = inv(L_kk) A_kj                                               (recursive TRSM)
 *   A_ij -= L_ik A_kj for the tile rows [i1, i2), i1 > k                (GEMM)
 *
 * Fused in one task so the column block is worked on while it is in cache, and so the GEMM is
 * one tall call per column block when the matrix is a LAPACK array (packing amortized: tall
 * GEMMs run 25-30% faster than tile-by-tile ones with OpenBLAS; docs/performance.md).  The
 * driver may split a step into a swap+solve task and several GEMM tasks on row ranges when it
 * needs more parallelism; `what` says which parts this task does.
 */
#include "hyt_cpu_kernels.h"

#include <cblas.h>
#include <stdlib.h>

/* Left, lower, unit TRSM with most of the work in GEMM (OpenBLAS's small TRSMs are slow). */
static void trsm_llu(int n, int nr, const double *L, int ldl, double *B, int ldb)
{
    if (n <= 16) {
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, n, nr, 1.0, L,
                    ldl, B, ldb);
        return;
    }
    int n1 = n / 2;
    trsm_llu(n1, nr, L, ldl, B, ldb);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n - n1, nr, n1, -1.0, L + n1, ldl, B,
                ldb, 1.0, B + n1, ldb);
    trsm_llu(n - n1, nr, L + n1 + (int64_t)n1 * ldl, ldl, B + n1, ldb);
}

void hyt_core_dgessm(const hyt_desc_t *A, int k, int j1, int j2, int i1, int i2, const int *ipiv,
                     int npiv, int what)
{
    const int nb = A->nb, ld = hyt_tile_ld(A);
    const int mbk = hyt_tile_mb(A, k), wk = hyt_tile_nb(A, k), dk = mbk < wk ? mbk : wk;
    const double *Akk = hyt_tile(A, k, k);
    int r2 = (k + 1) * nb < npiv ? (k + 1) * nb : npiv;
    for (int j = j1; j < j2; j++) {
        int nbj = hyt_tile_nb(A, j);
        if (hyt_races_on()) { /* debug.races (the interchanges: hyt_core_dlaswp) */
            if (what & HYT_GESSM_SOLVE) {
                hyt_races_tri('L', Akk, ld, dk, 0, "L_kk");
                hyt_races_tile(A, k, j, 1, "U_kj");
            }
            if ((what & HYT_GESSM_GEMM) && i1 < i2) {
                hyt_races_tile(A, k, j, 0, "U_kj");
                for (int i = i1; i < i2; i++) {
                    hyt_races_tile(A, i, k, 0, "L_ik");
                    hyt_races_tile(A, i, j, 1, "A_ij");
                }
            }
        }
        if (what & HYT_GESSM_SOLVE) {
            hyt_core_dlaswp(A, j, k * nb, r2, ipiv, 1);
            trsm_llu(dk, nbj, Akk, ld, hyt_tile(A, k, j), ld);
        }
        if (!(what & HYT_GESSM_GEMM) || i1 >= i2)
            continue;
        const double *Ukj = hyt_tile(A, k, j);
        if (A->layout == HYT_LAYOUT_LAPACK) {
            /* rows i1*nb .. end of tile i2-1: one tall GEMM */
            int rows = (i2 - 1) * nb + hyt_tile_mb(A, i2 - 1) - i1 * nb;
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rows, nbj, dk, -1.0,
                        hyt_tile(A, i1, k), ld, Ukj, ld, 1.0, hyt_tile(A, i1, j), ld);
        } else {
            for (int i = i1; i < i2; i++)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, hyt_tile_mb(A, i), nbj,
                            dk, -1.0, hyt_tile(A, i, k), ld, Ukj, ld, 1.0, hyt_tile(A, i, j), ld);
        }
    }
}

typedef struct gessm_args {
    hyt_desc_t A;
    int k, j1, j2, i1, i2, npiv, what;
    const int *ipiv;
} gessm_args_t;

static int gessm_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    gessm_args_t *a = p;
    hyt_core_dgessm(&a->A, a->k, a->j1, a->j2, a->i1, a->i2, a->ipiv, a->npiv, a->what);
    return 0;
}

static const hyt_kernel_t gessm_kernel = {.name = "dgessm", .cpu = gessm_body,
                                          .cat = HYT_CAT_UPDATE};

int hyt_insert_dgessm(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_desc_t *A, int k, int j1,
                      int j2, int i1, int i2, const int *ipiv, int npiv, int what,
                      const void *ipiv_key)
{
    gessm_args_t args = {*A, k, j1, j2, i1, i2, npiv, what, ipiv};
    int cap = 2 + (j2 - j1) * (A->mt - k) + (i2 - i1) + (j2 - j1) * (1 + (i2 - i1));
    hyt_deps_t deps;
    if (hyt_deps_init(&deps, cap))
        return HYT_ERR_NOMEM;
    if (what & HYT_GESSM_SOLVE) {
        /* the swaps may touch any row of the columns below k: the whole column block */
        hyt_deps_add(&deps, ipiv_key, HYT_READ);
        hyt_deps_add(&deps, hyt_tile(A, k, k), HYT_READ);
        for (int j = j1; j < j2; j++)
            for (int i = k; i < A->mt; i++)
                hyt_deps_add(&deps, hyt_tile(A, i, j), HYT_RW);
    }
    if (what & HYT_GESSM_GEMM) {
        for (int i = i1; i < i2; i++)
            hyt_deps_add(&deps, hyt_tile(A, i, k), HYT_READ);
        if (!(what & HYT_GESSM_SOLVE))
            for (int j = j1; j < j2; j++) {
                hyt_deps_add(&deps, hyt_tile(A, k, j), HYT_READ);
                for (int i = i1; i < i2; i++)
                    hyt_deps_add(&deps, hyt_tile(A, i, j), HYT_RW);
            }
    }
    hyt_task_desc_t d = hyt_tagged_desc(&gessm_kernel, &args, sizeof args, deps.v, deps.n, tag);
    int rc = hyt_task_insert(seq, &d);
    hyt_deps_free(&deps);
    return rc;
}
