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
 *              streams); not for op 'S'.  Tile column k streams back into A as soon as its
 *              panel is done (after the panel's copies, the last device tasks that read it),
 *              its diagonal tile first, overlapped with the later steps
 *   3. solve   (dposv, INFO 0; dpotrs) hyt_pdpotrs_dmat on the devices
 *   4. out     X streams back the same way (INFO 0)
 *
 * Steps 1 and 2 are one sequence, 3 and 4 one each.  With INFO = i > 0 the tile columns left
 * of the one holding column i are L's (U's), the rest is undefined (LAPACK leaves it partly
 * updated too), and B is not written.
 *
 * Failures lose nothing.  Before any tile of the factor came back, A and B are untouched
 * (*written = 0): the LAPACK ABI redoes the call with the CPU LAPACK without having saved a
 * copy.  After that, each tile of A holds either its tile of the factor or A's own (a mark per
 * tile, set when it is written), and the CPU workers finish the factorization from there
 * (hyt_chol_resume, chol_resume.c), then the solve; a failed device solve is done on the CPUs
 * too.  Only a failure of those, or of X's copy back done twice, is an error with the arrays
 * partly written (*written = 1).
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
#include <stdlib.h>
#include <string.h>

/* The CPU workers solve a copy of B with the factor in A, put back once it succeeded. */
static int solve_on_cpus(hyt_context_t *ctx, char uplo, int n, int nrhs, const double *a,
                         int lda, double *b, int ldb)
{
    double *x = hyt_drv_b_copy(b, n, nrhs, ldb);
    int rc = x ? hyt_drv_dpotrs_lapack(ctx, uplo, n, nrhs, a, lda, x, n) : HYT_ERR_NOMEM;
    if (!rc)
        hyt_drv_b_put(b, ldb, x, n, nrhs);
    free(x);
    return rc;
}

/* Step 2's returns: tile column k of the factor back into A, after its panel. */
typedef struct ret_args {
    hyt_ring_t *r;
    hyt_dmat_t *dA;
    double *a;
    int lda;
    char uplo;
    unsigned char *marks; /* dA->mt per tile column */
} ret_args_t;

static int return_column(hyt_sequence_t *seq, void *arg, int k)
{
    const ret_args_t *c = arg;
    return hyt_ring_stream_col(seq, c->r, c->dA, c->a, c->lda, k, 0, c->uplo,
                               c->marks + (int64_t)k * c->dA->mt);
}

int hyt_chol_lapack_devices(hyt_context_t *ctx, char op, char uplo, int n, int nrhs, double *a,
                            int lda, double *b, int ldb, int nb, int la, int *written,
                            int *recovered)
{
    int dummy, dummy2;
    if (!written)
        written = &dummy;
    if (!recovered)
        recovered = &dummy2;
    *written = *recovered = 0;
    if (op != 'V' && op != 'S') /* 'F': the factorization alone */
        b = NULL;
    if (n == 0 || (op == 'S' && (!b || nrhs == 0)))
        return 0;
    if (op == 'S' && nrhs < hyt_config_get_int(hyt_context_config(ctx), "gpu.solve_min_nrhs"))
        return solve_on_cpus(ctx, uplo, n, nrhs, a, lda, b, ldb); /* few right-hand sides */
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
    const size_t nmarks = dA && op != 'S' ? (size_t)dA->nt * dA->mt : 0;
    unsigned char *marks = nmarks ? calloc(nmarks, 1) : NULL;
    if (!rc && nmarks && !marks)
        rc = hyt_error(HYT_ERR_NOMEM, "out of memory");

    // 1, 2: in, factor and the factor back
    int info = 0;
    hyt_sequence_t *seq = NULL;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        int irc = hyt_ring_stream(seq, &r, dA, a, lda, 1, uplo);
        if (!irc && dB)
            irc = hyt_ring_stream(seq, &r, dB, b, ldb, 1, 'A');
        if (!irc && op != 'S') {
            ret_args_t ra = {&r, dA, a, lda, uplo, marks};
            const hyt_chol_after_t after = {return_column, &ra, 1, uplo};
            irc = hyt_pdpotrf_dmat(seq, dA, &info, p.lookahead, &after);
        }
        rc = hyt_sequence_finish(seq, irc);
    }
    int cpu_solve = 0; /* B solved on the CPU workers, with the factor in A */
    char why[512] = "";  /* the devices' failure, when the CPU workers finish the call */
    if (marks && memchr(marks, 1, nmarks)) {
        *written = 1;
        if (rc) { /* part of the factor is in A: the rest from there, on the CPUs */
            snprintf(why, sizeof why, "%s", hyt_last_error());
            rc = hyt_chol_resume(ctx, uplo, n, a, lda, p.nb, marks, &info);
            if (rc)
                rc = hyt_error(rc, "%s; finishing the factorization on the CPU workers after "
                               "the devices failed: A is partly overwritten", why);
            cpu_solve = *recovered = !rc;
        }
    }
    free(marks);
    // 3: solve (when it fails, dposv's A holds the factor and B is the program's: CPUs)
    if (!rc && dB && info == 0 && !cpu_solve && !(rc = hyt_sequence_create(ctx, &seq))) {
        rc = hyt_sequence_finish(seq, hyt_pdpotrs_dmat(seq, dA, dB));
        cpu_solve = *recovered = rc && op == 'V';
        if (cpu_solve) {
            snprintf(why, sizeof why, "%s", hyt_last_error());
            rc = 0;
        }
    }
    // 4: out: X (the factor is back already)
    if (!rc && dB && info == 0 && !cpu_solve) {
        int wb = 0;
        rc = hyt_ring_copy_back(&r, NULL, a, lda, uplo, dB, b, ldb, &wb);
        *written |= wb;
    }
    hyt_ring_close_dmats(&r, dA, dB);
    if (!rc && cpu_solve && b && info == 0) {
        rc = solve_on_cpus(ctx, uplo, n, nrhs, a, lda, b, ldb);
        if (rc)
            rc = hyt_error(rc, "%s; solving on the CPU workers after the devices failed: A is "
                           "overwritten with the factor", why);
    }
    if (!rc && *recovered) /* the result is right; why the devices failed, for the caller */
        hyt_error(HYT_ERR_DEVICE, "%s", why);
    return rc ? rc : info;
}
