/*
 * The LAPACK-layout Cholesky and its solves (hyt_dpotrf, hyt_dposv, hyt_dpotrs, dpotrf_,
 * dposv_, dpotrs_) with GPU panels (chol.panel = gpu, auto with CUDA devices): the array never
 * gets a host tile copy.  The solve alone (hyt_dpotrs: op 'S', the factor given) goes through
 * the devices only with at least gpu.solve_min_nrhs right-hand sides: with fewer, solving on
 * the CPUs costs less than moving the factor (docs/performance.md), and they solve a copy of
 * B, so that a failure leaves B as the device path does.
 *
 *   1. in      the uplo triangle's tiles stream to a device matrix (1D block-cyclic over the
 *              context's devices) through the context's staging ring (drivers/dmat_ring.c):
 *              'L' as they are, 'U' as the lower triangle of A^T; the first panel starts as
 *              soon as column 0 has arrived (its token), the later columns arrive behind it;
 *              B (dposv) behind A
 *   2. factor  hyt_pdpotrf_dmat, every step on the devices (the potf2 in pieces and the TRSM
 *              on the owner's lookahead stream, the updates there and on the compute
 *              streams); not for op 'S'
 *   3. solve   (dposv, INFO 0; dpotrs) hyt_pdpotrs_dmat on the devices
 *   4. out     the factor streams back the same way, the diagonal tiles' triangle only (not
 *              for op 'S': A is not written), and X (INFO 0)
 *
 * Steps 1 and 2 are one sequence, 3 and 4 one each: A and B are written only after the
 * factorization and the solve finished (with any INFO), so an error before that leaves them
 * untouched (*written = 0).  With INFO = i > 0 the tile columns left of the one holding column
 * i are L's (U's), the rest is undefined (LAPACK leaves it partly updated too), and B is not
 * written.
 *
 * Against the hybrid (CPU diagonal tiles and panels, pdpotrf_hybrid.c) this moves each element
 * across the bus twice instead of once per step, needs no page-locked copy of the whole matrix
 * (page-locking 8.6 GB took longer than the factorization, docs/performance.md), and keeps the
 * CPUs, 50-100 times slower than a GPU at the panels' TRSM and the lookahead updates, off the
 * critical path.
 */
#include "chol_internal.h"
#include "hyt_hybrid.h"

#include <stdio.h>

int hyt_chol_lapack_devices(hyt_context_t *ctx, char op, char uplo, int n, int nrhs, double *a,
                            int lda, double *b, int ldb, int nb, int la, int *written)
{
    int dummy;
    if (!written)
        written = &dummy;
    *written = 0;
    if (op != 'V' && op != 'S') /* 'F': the factorization alone */
        b = NULL;
    if (n == 0 || (op == 'S' && (!b || nrhs == 0)))
        return 0;
    if (op == 'S' && nrhs < hyt_config_get_int(hyt_context_config(ctx), "gpu.solve_min_nrhs")) {
        /* few right-hand sides: the CPUs solve a copy of B, put back once it succeeded */
        double *x = hyt_drv_b_copy(b, n, nrhs, ldb);
        int rc = x ? hyt_drv_dpotrs_lapack(ctx, uplo, n, nrhs, a, lda, x, n) : HYT_ERR_NOMEM;
        if (!rc)
            hyt_drv_b_put(b, ldb, x, n, nrhs);
        free(x);
        return rc;
    }
    hyt_chol_dev_params_t p = HYT_CHOL_DEV_PARAMS_AUTO;
    p.nb = nb;
    p.lookahead = la;
    hyt_chol_params_device(ctx, n, &p);

    char what[128];
    snprintf(what, sizeof what, "the Cholesky %s of a %d x %d matrix on the devices (nb %d, "
             "%d devices)", op == 'S' ? "solve" : "factorization", n, n, p.nb,
             hyt_context_num_devices(ctx));
    hyt_dmat_t *dA, *dB;
    hyt_ring_t r;
    int rc = hyt_ring_open_dmats(ctx, n, n, b ? nrhs : 0, p.nb, what, &r, &dA, &dB);

    // 1, 2: in and factor
    int info = 0;
    hyt_sequence_t *seq = NULL;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        int irc = hyt_ring_stream(seq, &r, dA, a, lda, 1, uplo);
        if (!irc && dB)
            irc = hyt_ring_stream(seq, &r, dB, b, ldb, 1, 'A');
        if (!irc && op != 'S')
            irc = hyt_pdpotrf_dmat(seq, dA, &info, p.lookahead);
        rc = hyt_sequence_finish(seq, irc);
    }
    // 3: solve
    if (!rc && dB && info == 0 && !(rc = hyt_sequence_create(ctx, &seq)))
        rc = hyt_sequence_finish(seq, hyt_pdpotrs_dmat(seq, dA, dB));
    // 4: out
    if (!rc)
        rc = hyt_ring_copy_back(&r, op == 'S' ? NULL : dA, a, lda, uplo, info == 0 ? dB : NULL,
                                b, ldb, written);
    hyt_ring_close_dmats(&r, dA, dB);
    return rc ? rc : info;
}
