/*
 * A LAPACK array in the program's (pageable) memory streamed into a device matrix and back
 * through the context's ring of page-locked staging slots (the tasks: tiles/staging.c), for
 * the LAPACK-layout calls that work on device matrices (the LU's drivers/lu/dgesv_devices.c,
 * the Cholesky's drivers/chol/dpotrf_devices.c).
 *
 * Each tile column j goes in pieces of about PIECE_BYTES (rt tiles; fewer when the context's
 * ring is smaller, see hyt_ring_open); piece s of the whole stream uses slot s % NSLOT, so up to
 * NSLOT pieces are in flight: CPU workers pack the next ones while the earlier ones cross the
 * bus and the devices work on the columns already there (a column's pieces gather into its
 * token).  part:
 *   'A'  every tile of the m x n array;
 *   'L'  the lower triangle's tiles (i >= j) of a square array, column pieces; out, the
 *        diagonal tiles' lower triangles only;
 *   'U'  the upper triangle's tiles (j, i >= j) as the tiles (i, j) of the lower triangle of
 *        A^T (row strips, transposed by the layout: tiles/staging.c); out, the diagonal tiles'
 *        upper triangles only.
 * The tiles of the other triangle are neither sent nor written back.
 */
#include "hyt_hybrid.h"
#include "hyt_staging.h"

#include <stdlib.h>

/* Pieces in flight, and a piece's size (tiles of one column, about this much): 12 of 16 MiB
 * kept the copies in at ~19 GB/s beside the factorization (one H200), 24 of 16 MiB made the
 * process's first call 0.25 s slower (page-locking the ring). */
enum { NSLOT = 24 };
#define PIECE_BYTES ((size_t)8 << 20)
#define PRIO_COPY (1 << 23) /* the copies before the bulk: earlier columns first */

int hyt_ring_open(hyt_context_t *ctx, int nb, int mt, hyt_ring_t *r)
{
    *r = (hyt_ring_t){.ctx = ctx, .tile = (int64_t)nb * nb};
    const size_t tb = (size_t)r->tile * sizeof(double);
    int rt = (int)(PIECE_BYTES / tb);
    rt = rt < 1 ? 1 : rt > mt ? mt : rt;
    /* The context's ring from an earlier call, if smaller, is used as it is when its slots
     * hold a quarter of the tiles of a piece (pieces of fewer tiles): page-locking a larger
     * one cost more than the whole call (the first dgesv_ at n = 2048 / 3000 / 8192 after
     * smaller ones: 73 / 112 / 195 ms against 15 / 22 / 70; docs/performance.md, nineteenth
     * stop), and the later copies ran as fast through the smaller ring */
    const size_t bytes = (size_t)NSLOT * rt * tb;
    size_t got;
    r->buf = hyt_host_staging_acquire(ctx, bytes, (size_t)NSLOT * tb * (rt / 4 > 1 ? rt / 4 : 1),
                                      &got);
    const size_t fit = got / ((size_t)NSLOT * tb); /* >= 1 when buf is not NULL */
    r->rt = fit < (size_t)rt ? (int)fit : rt;
    r->tok = hyt_tokens_create(NSLOT);
    if (r->buf && r->tok)
        return 0;
    hyt_ring_close(r);
    return hyt_error(HYT_ERR_NOMEM, "out of host memory for the staging buffers (%d MiB)",
                     (int)(bytes >> 20));
}

void hyt_ring_close(hyt_ring_t *r)
{
    hyt_tokens_destroy(r->tok);
    if (r->buf)
        hyt_host_staging_release(r->ctx, r->buf);
    r->tok = NULL;
    r->buf = NULL;
}

int hyt_ring_open_dmats(hyt_context_t *ctx, int m, int n, int nrhs, int nb, const char *what,
                        hyt_ring_t *r, hyt_dmat_t **dA, hyt_dmat_t **dB)
{
    const int ndev = hyt_context_num_devices(ctx);
    *r = (hyt_ring_t){.ctx = ctx};
    *dA = *dB = NULL;
    size_t *need = calloc((size_t)ndev, sizeof *need); /* B's memory counted in A's check */
    if (!need)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    for (int g = 0; g < ndev && nrhs > 0; g++)
        need[g] = hyt_dmat_alloc_bytes(n, nrhs, nb, ndev, g);
    int rc = hyt_dmat_alloc(ctx, m, n, nb, need, what, dA);
    free(need);
    if (!rc && nrhs > 0)
        rc = hyt_dmat_alloc(ctx, n, nrhs, nb, NULL, what, dB);
    if (!rc)
        rc = hyt_ring_open(ctx, nb, (*dA)->mt, r);
    return rc;
}

void hyt_ring_close_dmats(hyt_ring_t *r, hyt_dmat_t *dA, hyt_dmat_t *dB)
{
    hyt_ring_close(r);
    hyt_dmat_free(dA);
    hyt_dmat_free(dB);
}

int hyt_ring_stream_col(hyt_sequence_t *seq, hyt_ring_t *r, hyt_dmat_t *A, double *a,
                        int64_t lda, int j, int in, char part, unsigned char *marks)
{
    const unsigned flags = part == 'U' ? HYT_PIECE_ROWS : 0;
    const int w = j < A->nt - 1 ? A->nb : A->n - j * A->nb, first = part == 'A' ? 0 : j;
    /* column j of A; for 'U' row j of A (its columns: A->n) */
    double *aj = part == 'U' ? a + (int64_t)j * A->nb : a + (int64_t)j * A->nb * lda;
    hyt_device_t *dev = hyt_context_device(A->ctx, hyt_dmat_owner(A, j));
    int rc = 0;
    for (int i0 = first; i0 < A->mt && !rc; i0 += r->rt) {
        const int nt = A->mt - i0 < r->rt ? A->mt - i0 : r->rt, s = r->next++ % NSLOT;
        const unsigned f = flags | (part != 'A' && i0 == j ? HYT_PIECE_TRI : 0);
        double *slot = r->buf + s * r->rt * r->tile, *dcol = hyt_dmat_col(A, j) + i0 * r->tile;
        const void *key = hyt_token(r->tok, (size_t)s);
        hyt_tag_t tag = {PRIO_COPY - j, -1, i0, j};
        if (in) {
            rc = hyt_insert_lapack_pack(seq, tag, aj, lda, A->m, w, A->nb, i0, nt, slot, key, f);
            if (!rc)
                rc = hyt_insert_gpu_piece_load(seq, tag, dev, slot, dcol, A->nb, nt, key,
                                               hyt_dmat_col_key(A, j), f);
        } else {
            /* with marks, the column's first piece is written before the others */
            const hyt_dep_t order = {marks + first, i0 == first ? HYT_RW : HYT_READ};
            rc = hyt_insert_gpu_piece_store(seq, tag, dev, slot, dcol, A->nb, nt, key,
                                            hyt_dmat_col_key(A, j), &r->broken, f);
            if (!rc)
                rc = hyt_insert_lapack_unpack(seq, tag, aj, lda, A->m, w, A->nb, i0, nt, slot,
                                              key, f, marks ? marks + i0 : NULL,
                                              marks ? &order : NULL);
        }
    }
    return rc;
}

int hyt_ring_stream(hyt_sequence_t *seq, hyt_ring_t *r, hyt_dmat_t *A, double *a, int64_t lda,
                    int in, char part)
{
    int rc = 0;
    for (int j = 0; j < A->nt && !rc; j++)
        rc = hyt_ring_stream_col(seq, r, A, a, lda, j, in, part, NULL);
    return rc;
}

int hyt_ring_copy_back(hyt_ring_t *r, hyt_dmat_t *dA, double *a, int lda, char part,
                       hyt_dmat_t *dB, double *b, int ldb, int *written)
{
    int rc = 0;
    for (int attempt = 0; attempt < 2 && !r->broken; attempt++) {
        hyt_sequence_t *seq;
        rc = hyt_sequence_create(r->ctx, &seq);
        if (rc)
            continue; /* nothing written by this attempt */
        *written = 1;
        int irc = dA ? hyt_ring_stream(seq, r, dA, a, lda, 0, part) : 0;
        if (!irc && dB)
            irc = hyt_ring_stream(seq, r, dB, b, ldb, 0, 'A');
        rc = hyt_sequence_finish(seq, irc);
        if (!rc)
            return 0;
    }
    return hyt_error(rc, "%s; copying the results back into the program's arrays failed: "
                     "A%s is partly overwritten", hyt_last_error(), dB ? " (and B)" : "");
}
