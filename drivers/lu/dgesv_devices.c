/*
 * The LAPACK-layout calls (hyt_dgetrf, hyt_dgetrs, hyt_dgesv and the LAPACK ABI) with GPU
 * panels on devices: the arrays go through device matrices, never through a host tile copy.
 *
 *   1. in      the tile columns of A (and B) stream to their devices through a ring of NSLOT
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
 * The staging ring is the context's (hyt_host_staging_acquire): page-locked once per process,
 * not per call.  Device memory is allocated per call (cudaMalloc of the columns is cheap).
 */
#include "drv_internal.h"
#include "hyt_staging.h"
#include "hyt_hybrid.h"

#include <stdio.h>
#include <stdlib.h>

/* Pieces in flight, and a piece's size (tiles of one column, about this much): 12 of 16 MiB
 * kept the copies in at ~19 GB/s beside the factorization (one H200), 24 of 16 MiB made the
 * process's first call 0.25 s slower (page-locking the ring). */
enum { NSLOT = 24 };
#define PIECE_BYTES ((size_t)8 << 20)
#define PRIO_COPY (1 << 23)            /* the copies before the bulk: earlier columns first */

hyt_lapack_dev_times_t hyt_lapack_dev_last;

typedef struct ring {
    hyt_context_t *ctx;
    double *buf;        /* NSLOT slots of rt tiles */
    int rt;             /* tiles per piece */
    int64_t tile;
    hyt_tokens_t *tok;  /* NSLOT slot tokens */
    int next;           /* the next slot */
    int broken;         /* a copy out left device tiles transposed: no second attempt */
} ring_t;

int hyt_drv_lapack_on_devices(hyt_context_t *ctx, int m, int n)
{
    hyt_lu_params_t p;
    hyt_lu_params(ctx, m, n, &p);
    return p.ndevices > 0 && p.gpu_panel;
}

/* The pieces of every tile column of A, in or out (a, lda: the LAPACK array). */
static int stream(hyt_sequence_t *seq, ring_t *r, hyt_dmat_t *A, double *a, int64_t lda, int in)
{
    int rc = 0;
    for (int j = 0; j < A->nt && !rc; j++) {
        const int w = j < A->nt - 1 ? A->nb : A->n - j * A->nb;
        double *aj = a + (int64_t)j * A->nb * lda;
        hyt_device_t *dev = hyt_context_device(A->ctx, hyt_dmat_owner(A, j));
        for (int i0 = 0; i0 < A->mt && !rc; i0 += r->rt) {
            const int nt = A->mt - i0 < r->rt ? A->mt - i0 : r->rt, s = r->next++ % NSLOT;
            double *slot = r->buf + s * r->rt * r->tile, *dcol = hyt_dmat_col(A, j) + i0 * r->tile;
            const void *key = hyt_token(r->tok, (size_t)s);
            hyt_tag_t tag = {PRIO_COPY - j, -1, i0, j};
            if (in) {
                rc = hyt_insert_lapack_pack(seq, tag, aj, lda, A->m, w, A->nb, i0, nt, slot, key);
                if (!rc)
                    rc = hyt_insert_gpu_piece_load(seq, tag, dev, slot, dcol, A->nb, nt, key,
                                                   hyt_dmat_col_key(A, j));
            } else {
                rc = hyt_insert_gpu_piece_store(seq, tag, dev, slot, dcol, A->nb, nt, key,
                                                hyt_dmat_col_key(A, j), &r->broken);
                if (!rc)
                    rc = hyt_insert_lapack_unpack(seq, tag, aj, lda, A->m, w, A->nb, i0, nt, slot,
                                                  key);
            }
        }
    }
    return rc;
}

/* Step 4: A (when given) and B (when given) back, once more when that fails. */
static int copy_back(ring_t *r, hyt_dmat_t *dA, double *a, int lda, hyt_dmat_t *dB, double *b,
                     int ldb, int *written)
{
    int rc = 0;
    for (int attempt = 0; attempt < 2 && !r->broken; attempt++) {
        hyt_sequence_t *seq;
        rc = hyt_sequence_create(r->ctx, &seq);
        if (rc)
            continue; /* nothing written by this attempt */
        *written = 1;
        int irc = dA ? stream(seq, r, dA, a, lda, 0) : 0;
        if (!irc && dB)
            irc = stream(seq, r, dB, b, ldb, 0);
        rc = hyt_sequence_finish(seq, irc);
        if (!rc)
            return 0;
    }
    return hyt_error(rc, "%s; copying the results back into the program's arrays failed: "
                     "A%s is partly overwritten", hyt_last_error(), dB ? " (and B)" : "");
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
    hyt_dmat_t *dA = NULL, *dB = NULL;
    ring_t r = {.ctx = ctx, .tile = (int64_t)nb * nb};
    const int mt = (m + nb - 1) / nb;
    r.rt = (int)(PIECE_BYTES / ((size_t)r.tile * sizeof(double)));
    r.rt = r.rt < 1 ? 1 : r.rt > mt ? mt : r.rt;

    // the device matrices (B's memory counted in A's check), the ring
    char what[160];
    size_t *need = calloc((size_t)ndev, sizeof *need);
    if (!need)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    for (int g = 0; g < ndev && solve; g++)
        need[g] = hyt_dmat_bytes(n, nrhs, nb, ndev, g);
    snprintf(what, sizeof what, "a %d x %d matrix%s on the devices (nb %d, %d devices)", m, n,
             solve ? " and its right-hand sides" : "", nb, ndev);
    int rc = hyt_dmat_alloc(ctx, m, n, nb, need, what, &dA);
    free(need);
    if (!rc && solve)
        rc = hyt_dmat_alloc(ctx, n, nrhs, nb, NULL, what, &dB);
    if (!rc) {
        r.buf = hyt_host_staging_acquire(ctx, (size_t)NSLOT * r.rt * r.tile * sizeof(double));
        r.tok = hyt_tokens_create(NSLOT);
        if (!r.buf || !r.tok)
            rc = hyt_error(HYT_ERR_NOMEM, "out of host memory for the staging buffers (%d MiB)",
                           (int)(((size_t)NSLOT * r.rt * r.tile * sizeof(double)) >> 20));
    }

    // 1, 2: in and factor (the solve alone: in)
    int info = 0;
    hyt_sequence_t *seq = NULL;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        int irc = stream(seq, &r, dA, a, lda, 1);
        if (!irc && dB)
            irc = stream(seq, &r, dB, b, ldb, 1);
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
        rc = copy_back(&r, op != 's' ? dA : NULL, a, lda, info == 0 ? dB : NULL, b, ldb,
                       written);
    const double t3 = hyt_wtime();
    hyt_lapack_dev_last = (hyt_lapack_dev_times_t){t1 - t0, t2 - t1, t3 - t2, t3 - t0};

    hyt_tokens_destroy(r.tok);
    if (r.buf)
        hyt_host_staging_release(ctx, r.buf);
    hyt_dmat_free(dA);
    hyt_dmat_free(dB);
    return rc ? rc : info;
}

int hyt_drv_lapack_call(hyt_context_t *ctx, char op, char trans, int m, int n, int nrhs,
                        double *a, int lda, int *ipiv, double *b, int ldb, int *written)
{
    if (written)
        *written = 0;
    if (m == 0 || n == 0)
        return 0;
    if (hyt_drv_lapack_on_devices(ctx, m, n))
        return hyt_drv_lapack_devices(ctx, op, trans, m, n, nrhs, a, lda, ipiv, b, ldb, written);
    /* on CPUs (in place), or CPU panels with devices (a host tile copy): A may be written
     * before a failure */
    if (written)
        *written = 1;
    int rc = op == 's' ? 0 : hyt_drv_dgetrf_lapack(ctx, m, n, a, lda, ipiv);
    if (!rc && op != 'f')
        rc = hyt_drv_dgetrs_lapack(ctx, op == 's' ? trans : 'N', n, nrhs, a, lda, ipiv, b, ldb);
    return rc;
}
