/*
 * The solve under a Cholesky panel's diagonal block on a device (both device Cholesky paths:
 * gpu_dpotrf_tasks.c and gpu_dpotrf_hybrid_tasks.c), as a GEMM with the block's inverse when
 * there are enough rows (the seed's "TRSM as a GEMM", as the LU's GPU panels do it):
 *
 *   W_qq = inv(T_qq)    the inverses of T's diagonal blocks of SOLVE_LEAF, one launch of
 *                       hyt_gpu_dtrtri_diag (their other triangles exactly zero; the rest
 *                       of W is neither written nor read)
 *   C = B W^T           lower, into the workspace, by halves (rsolve): the first half's
 *                       X = its B times its diagonal blocks' inverses, the second half's
 *                       B -= X T21^T, then the second half; leaves of SOLVE_LEAF columns,
 *                       each a GEMM with its W_qq
 *     = W^T B           upper: the same on rows, GEMMs 'T','N'
 *   B = C               a device 2D copy back (the GEMM cannot write in place)
 *
 * and as one cuBLAS TRSM below `min_rows` rows (chol.inv_rows; auto: every panel takes the
 * GEMMs).  Why (one H200, cuBLAS 13.1, docs/performance.md): cuBLAS's DTRSM runs these shapes at
 * 14-15 TFLOP/s (side R, lower, trans T: 2.23 ms for 32768 x 1024) and the transposed side-L
 * upper one at half that (3.87 ms), while the GEMM with the inverse plus the copy took
 * 1.44-1.47 ms (2026-11-24).  The whole inverse was a TRSM on the identity whose cost was
 * latency (0.24 ms at kb = 512, 0.49 at 1024), so the GEMMs paid only from 16384 rows below the
 * block (lower) and 6144 (upper); by halves only the leaves' diagonal blocks of the inverse
 * are read, and hyt_gpu_dtrtri_diag makes them in one launch of a few microseconds, so the
 * GEMMs pay on every panel: at n = 16384 (nb 512, no vendor tail) lower 34.4 ms against 37.5
 * with the TRSMs and 39.8 with the whole inverse; 32768 lower 0.2331 s against 0.2352 with the
 * TRSMs below 16384 rows (2026-12-03, fifty-third stop).  One GEMM over all rows was as fast as
 * row chunks of 8192 or 16384 (faster at 65536 rows: 2.55 against 2.91 ms upper), so the
 * workspace holds all of them: (n - nb) x nb doubles, 1.6% of the matrix at n = 65536.
 *
 * By halves the solve costs m kb (kb + SOLVE_LEAF) flops where one GEMM with the whole inverse
 * cost 2 m kb^2 and a TRSM m kb^2 (fifty-second stop).
 *
 * Numerics: the rows are multiplied by computed inverses of T's diagonal blocks instead of
 * being solved, so their error grows with those blocks' condition (at most cond(T), and
 * cond(L_kk) = sqrt(cond(A_kk)) for the Cholesky) where the TRSM's does not; the LU's GPU
 * panels accept the same, and the tests check the factor's backward error and the solve
 * residuals with the GEMM forced on every step (chol.inv_rows = 1).
 */
#include "chol_internal.h"
#include "hyt_gpu_kernels.h"

/* The default of chol.inv_rows (measured: above): the GEMMs on every panel, both triangles
 * (upper: within 0.4% of 4096 at n = 32768). */
#define INV_ROWS_AUTO 1
/* The width of the solve's leaves, each a GEMM with its diagonal block of the inverse. */
#define SOLVE_LEAF 128
_Static_assert(SOLVE_LEAF <= HYT_TRTRI_DIAG_BS, "a leaf's inverse: one of hyt_gpu_dtrtri_diag's");

int hyt_chol_inv_rows(hyt_context_t *ctx)
{
    long r = hyt_config_get_int(hyt_context_config(ctx), "chol.inv_rows");
    return r > 0 ? (int)r : INV_ROWS_AUTO;
}

size_t hyt_chol_trsm_work(int nb, int64_t rows)
{
    return (size_t)nb * nb + (size_t)nb * (size_t)(rows > 0 ? rows : 0);
}

/* Columns c0 .. c1 of the lower solve (upper: rows), X into C: halves aligned to SOLVE_LEAF,
 * each leaf a GEMM with its diagonal block of W = inv(T), the second half's B less the first
 * half's X times T's block between them. */
static int rsolve(const hyt_devctx_t *dc, int lower, int m, int kb, const double *T, int ldt,
                  double *B, int ldb, const double *W, double *C, int c0, int c1)
{
    const int w = c1 - c0;
    if (w <= SOLVE_LEAF)
        return lower ? hyt_gpu_dgemm_batched(dc, 'N', 'T', m, w, w, 1.0, B + (int64_t)c0 * ldb,
                                             ldb, 0, W + c0 + (int64_t)c0 * kb, kb, 0, 0.0,
                                             C + (int64_t)c0 * m, m, 0, 1, 1)
                     : hyt_gpu_dgemm_batched(dc, 'T', 'N', w, m, w, 1.0,
                                             W + c0 + (int64_t)c0 * kb, kb, 0, B + c0, ldb, 0,
                                             0.0, C + c0, kb, 0, 1, 1);
    const int h = (w / 2 + SOLVE_LEAF - 1) / SOLVE_LEAF * SOLVE_LEAF; /* 0 < h < w */
    int rc = rsolve(dc, lower, m, kb, T, ldt, B, ldb, W, C, c0, c0 + h);
    if (!rc)
        rc = lower ? hyt_gpu_dgemm_batched(dc, 'N', 'T', m, w - h, h, -1.0, C + (int64_t)c0 * m,
                                           m, 0, T + c0 + h + (int64_t)c0 * ldt, ldt, 0, 1.0,
                                           B + (int64_t)(c0 + h) * ldb, ldb, 0, 1, 1)
                   : hyt_gpu_dgemm_batched(dc, 'T', 'N', w - h, m, h, -1.0,
                                           T + c0 + (int64_t)(c0 + h) * ldt, ldt, 0, C + c0, kb,
                                           0, 1.0, B + c0 + h, ldb, 0, 1, 1);
    return rc ? rc : rsolve(dc, lower, m, kb, T, ldt, B, ldb, W, C, c0 + h, c1);
}

int hyt_chol_trsm(const hyt_devctx_t *dc, char uplo, int m, int kb, const double *T, int ldt,
                  double *B, int ldb, int min_rows, double *work, size_t lwork)
{
    const int lower = uplo == 'L';
    if (m <= 0 || kb <= 0)
        return HYT_SUCCESS;
    if (m < min_rows)
        return lower ? hyt_gpu_dtrsm(dc, 'R', 'L', 'T', 'N', m, kb, 1.0, T, ldt, B, ldb)
                     : hyt_gpu_dtrsm(dc, 'L', 'U', 'T', 'N', kb, m, 1.0, T, ldt, B, ldb);
    if (!work || lwork < hyt_chol_trsm_work(kb, m))
        return hyt_error(HYT_ERR_INVALID, "hyt_chol_trsm: a workspace of %zu doubles for %d x %d "
                         "(need %zu)", lwork, m, kb, hyt_chol_trsm_work(kb, m));
    double *W = work, *C = work + (size_t)kb * kb;
    const size_t d = sizeof(double);
    int rc = hyt_gpu_dtrtri_diag(dc, uplo, kb, SOLVE_LEAF, T, ldt, W, kb);
    if (rc)
        return rc;
    rc = rsolve(dc, lower, m, kb, T, ldt, B, ldb, W, C, 0, kb);
    if (rc)
        return rc;
    return lower ? hyt_dev_memcpy2d(dc, B, ldb * d, C, m * d, m * d, kb, 2)
                 : hyt_dev_memcpy2d(dc, B, ldb * d, C, kb * d, kb * d, m, 2);
}
