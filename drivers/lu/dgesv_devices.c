/*
 * The LAPACK-layout calls (hyt_dgetrf, hyt_dgetrs, hyt_dgesv and the LAPACK ABI) with GPU
 * panels on devices: the arrays go through device matrices, never through a host tile copy.
 *
 *   1. in      the tile columns of A (and B) stream to their devices through the ring of
 *              page-locked staging slots (tiles/staging.c): CPU workers copy a piece of
 *              tile column j into a slot while the pieces before it are in flight; the first
 *              panel starts as soon as column 0 has arrived (its token)
 *   2. factor  hyt_pdgetrf_dmat, in place on the devices (the same tasks and pivots as the host
 *              path with lu.panel = gpu: the same nb)
 *   3. solve   hyt_pdgetrs_dmat with B as a device matrix, when INFO is 0
 *   4. out     the factors (and X) stream back the same way, into A (and B)
 *
 * Each step is a sequence of its own, waited for before the next one starts: A and B are
 * written only by step 4, after everything else succeeded.  A failure before step 4 leaves A
 * and B as they were (ipiv may be written): *written stays 0 and the LAPACK ABI redoes the
 * call with the CPU LAPACK without having saved a copy.  Step 4 keeps the device matrices
 * intact (each piece is transposed back on the device), so when it fails it is done once more;
 * when that fails too (or the device tiles could not be put back), A (and B) are partly
 * written: *written = 1, and the message says so.
 *
 * The staging ring is the context's (drivers/dmat_ring.c): page-locked once per process, not
 * per call.  Device memory is allocated per call (cudaMalloc of the columns is cheap).
 */
#include "drv_internal.h"
#include "hyt_hybrid.h"

#include <stdio.h>

hyt_lapack_dev_times_t hyt_lapack_dev_last;

int hyt_drv_lapack_on_devices(hyt_context_t *ctx, int m, int n)
{
    hyt_lu_params_t p;
    hyt_lu_params_lapack(ctx, m, n, &p);
    return p.ndevices > 0 && p.gpu_panel;
}

/* Whether the solve alone (dgetrs) goes through the devices: devices and GPU panels, and at
 * least gpu.solve_min_nrhs right-hand sides (with fewer, solving on the CPUs costs less than
 * moving the factor to the devices). */
static int solve_on_devices(hyt_context_t *ctx, int n, int nrhs)
{
    return hyt_drv_lapack_on_devices(ctx, n, n) &&
           nrhs >= hyt_config_get_int(hyt_context_config(ctx), "gpu.solve_min_nrhs");
}

int hyt_drv_lapack_devices(hyt_context_t *ctx, char op, char trans, int m, int n, int nrhs,
                           double *a, int lda, int *ipiv, double *b, int ldb, int *written)
{
    int dummy;
    if (!written)
        written = &dummy;
    *written = 0;
    const int solve = op != 'f' && nrhs > 0;
    if (m == 0 || n == 0 || (op == 's' && nrhs == 0))
        return 0;
    const double t0 = hyt_wtime();
    hyt_lu_params_t p;
    hyt_lu_params(ctx, m, n, &p);
    const int nb = p.nb, ndev = p.ndevices;

    // the device matrices (B's memory counted in A's check), the ring
    char what[160];
    snprintf(what, sizeof what, "a %d x %d matrix%s on the devices (nb %d, %d devices)", m, n,
             solve ? " and its right-hand sides" : "", nb, ndev);
    hyt_dmat_t *dA, *dB;
    hyt_ring_t r;
    int rc = hyt_ring_open_dmats(ctx, m, n, solve ? nrhs : 0, nb, what, &r, &dA, &dB);

    // 1, 2: in and factor (the solve alone: in)
    int info = 0;
    hyt_sequence_t *seq = NULL;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        int irc = hyt_ring_stream(seq, &r, dA, a, lda, 1, 'A');
        if (!irc && dB)
            irc = hyt_ring_stream(seq, &r, dB, b, ldb, 1, 'A');
        if (!irc && op != 's')
            irc = hyt_pdgetrf_dmat(seq, dA, ipiv, &info, &p, 1);
        rc = hyt_sequence_finish(seq, irc);
    }
    const double t1 = hyt_wtime();

    // 3: solve
    if (!rc && dB && info == 0) {
        rc = hyt_sequence_create(ctx, &seq);
        if (!rc)
            rc = hyt_sequence_finish(seq, hyt_pdgetrs_dmat(seq, op == 's' && trans != 'N' ? 'T'
                                                                                  : 'N',
                                                           dA, ipiv, dB));
    }
    const double t2 = hyt_wtime();

    // 4: out: the factors (not after a solve alone), X when solved
    if (!rc)
        rc = hyt_ring_copy_back(&r, op != 's' ? dA : NULL, a, lda, 'A', info == 0 ? dB : NULL, b,
                                ldb, written);
    const double t3 = hyt_wtime();
    hyt_lapack_dev_last = (hyt_lapack_dev_times_t){t1 - t0, t2 - t1, t3 - t2, t3 - t0};

    hyt_ring_close_dmats(&r, dA, dB);
    return rc ? rc : info;
}

int hyt_drv_lapack_call(hyt_context_t *ctx, char op, char trans, int m, int n, int nrhs,
                        double *a, int lda, int *ipiv, double *b, int ldb, int *written)
{
    if (written)
        *written = 0;
    if (m == 0 || n == 0)
        return 0;
    if (op == 's' ? solve_on_devices(ctx, n, nrhs) : hyt_drv_lapack_on_devices(ctx, m, n))
        return hyt_drv_lapack_devices(ctx, op, trans, m, n, nrhs, a, lda, ipiv, b, ldb, written);
    if (op == 's' && hyt_drv_lapack_on_devices(ctx, m, n)) { /* few right-hand sides */
        double *x = hyt_drv_b_copy(b, n, nrhs, ldb);
        int rc = x ? hyt_drv_dgetrs_lapack(ctx, trans, n, nrhs, a, lda, ipiv, x, n)
                   : HYT_ERR_NOMEM;
        if (!rc)
            hyt_drv_b_put(b, ldb, x, n, nrhs);
        free(x);
        return rc;
    }
    /* on CPUs (in place), or CPU panels with devices (a host tile copy): A and B may be
     * written before a failure */
    if (written)
        *written = 1;
    int rc = op == 's' ? 0 : hyt_drv_dgetrf_lapack(ctx, m, n, a, lda, ipiv);
    if (!rc && op != 'f')
        rc = hyt_drv_dgetrs_lapack(ctx, op == 's' ? trans : 'N', n, nrhs, a, lda, ipiv, b, ldb);
    return rc;
}
