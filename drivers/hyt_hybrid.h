/*
 * The hybrid plumbing written once (hybrid.c): what every algorithm on several devices needs
 * beside its loop nest.
 *
 *   the device matrix     struct hyt_dmat (public as the opaque hyt_dmat_t): the tile columns
 *                         of an m x n matrix 1D block-cyclic over the context's devices,
 *                         column j on device j % ndev at local column l = j / ndev, each
 *                         column mt CRRB tiles on top of each other (device row = global
 *                         row), padding zero; a dependency token per column, which orders
 *                         every task that touches the column, across calls
 *   the memory check      per device, before anything is allocated or inserted, with the
 *                         message that says what to do (gpu.memory_limit applies)
 *
 * Per-call workspaces (panel buffers, inv(L_kk), pivots, ...) stay with each call; the
 * matrix's columns are the device matrix, temporary when the matrix comes from the host.
 */
#ifndef HYT_HYBRID_H
#define HYT_HYBRID_H

#include "hyt_dmat.h"
#include "hyt_runtime.h"

#include <stddef.h>
#include <stdint.h>

struct hyt_dmat {
    hyt_context_t *ctx;
    int m, n, nb, mt, nt, ndev;
    int64_t tile, colsz;  /* doubles per tile, per column (mt tiles) */
    int *ncols;           /* ndev: local columns of each device */
    double **cols;        /* ndev: device g's ncols[g] * colsz doubles (NULL without columns) */
    hyt_tokens_t *tok;    /* nt column tokens */
};

/* Device memory of the columns of an m x n matrix (tile size nb) on device g of ndev (as the
 * device counts their allocation: hyt_dmat_alloc_bytes); the number of those columns (tile
 * column j on device j % ndev) of nt. */
size_t hyt_dmat_bytes(int m, int n, int nb, int ndev, int g);
size_t hyt_dmat_alloc_bytes(int m, int n, int nb, int ndev, int g);
int hyt_dmat_local_cols(int nt, int ndev, int g);
/* What the calls on device matrices allocate on each device beside the matrices, as their
 * memory checks count it (so that a caller can size a problem that fits):
 * hyt_lu_dmat_workspace: hyt_dgetrf_dmat of an m x n matrix of tile size nb on all the
 * context's devices, with the context's LU settings for that size, into need[g] (0 or an
 * error; its GPU panels' setup may create the devices' cuSOLVER handles);
 * hyt_dmat_trs_bytes: the solve with an n x n factor on ndev devices, nrhs right-hand sides,
 * on device g (pivots: an LU's, dgetrs; 0: a Cholesky's). */
int hyt_lu_dmat_workspace(hyt_context_t *ctx, int m, int n, int nb, size_t *need);
size_t hyt_dmat_trs_bytes(int n, int nrhs, int nb, int ndev, int g, int pivots);
/* Checks and allocates a device matrix on all the context's devices (synchronous): need[g]
 * (may be NULL) bytes of workspace that the caller allocates next on device g are counted in
 * the check.  what: the operation, for the message ("the hybrid LU of a 100 x 100 matrix").
 * HYT_ERR_DEVICE_MEMORY when it does not fit, HYT_ERR_NOMEM, HYT_ERR_INVALID without devices. */
int hyt_dmat_alloc(hyt_context_t *ctx, int m, int n, int nb, const size_t *need,
                   const char *what, hyt_dmat_t **out);
void hyt_dmat_free(hyt_dmat_t *A);
/* Device g's local columns, the device holding column j, its address, its token. */
static inline double *hyt_dmat_col(const hyt_dmat_t *A, int j)
{
    return A->cols[j % A->ndev] + (int64_t)(j / A->ndev) * A->colsz;
}
static inline int hyt_dmat_owner(const hyt_dmat_t *A, int j) { return j % A->ndev; }
const void *hyt_dmat_col_key(const hyt_dmat_t *A, int j);

/* A LAPACK array <-> a device matrix through the context's page-locked staging ring
 * (dmat_ring.c): open (nb, mt: the device matrix's), stream in or out on a sequence (part
 * 'A' all, 'L' / 'U' one triangle, the upper as the lower of A^T), copy back (out, done once
 * more when it fails; *written = 1 once anything may have been written), close. */
typedef struct hyt_ring {
    hyt_context_t *ctx;
    double *buf;       /* NSLOT slots of rt tiles */
    int rt;            /* tiles per piece */
    int64_t tile;
    hyt_tokens_t *tok; /* the slots' tokens */
    int next;          /* the next slot */
    int broken;        /* a copy out left device tiles transposed: no second attempt */
} hyt_ring_t;
int hyt_ring_open(hyt_context_t *ctx, int nb, int mt, hyt_ring_t *r);
void hyt_ring_close(hyt_ring_t *r);
/* The device matrices of a LAPACK-layout call and the ring: dA m x n and, when nrhs > 0, dB n x
 * nrhs (its memory counted in dA's check; what names the call in the message), tile size nb;
 * then the ring for dA.  On an error the ones made so far are set: close_dmats frees them all
 * (always called, NULL ones skipped). */
int hyt_ring_open_dmats(hyt_context_t *ctx, int m, int n, int nrhs, int nb, const char *what,
                        hyt_ring_t *r, hyt_dmat_t **dA, hyt_dmat_t **dB);
void hyt_ring_close_dmats(hyt_ring_t *r, hyt_dmat_t *dA, hyt_dmat_t *dB);
int hyt_ring_stream(hyt_sequence_t *seq, hyt_ring_t *r, hyt_dmat_t *A, double *a, int64_t lda,
                    int in, char part);
/* hyt_ring_stream for tile column j alone (for 'U': row j of the array); out with marks (NULL:
 * none, else A->mt flags, one per tile row of the column): each written tile's flag is set to 1,
 * and the column's first piece (the diagonal tile's for 'L' / 'U') is written first. */
int hyt_ring_stream_col(hyt_sequence_t *seq, hyt_ring_t *r, hyt_dmat_t *A, double *a,
                        int64_t lda, int j, int in, char part, unsigned char *marks);
int hyt_ring_copy_back(hyt_ring_t *r, hyt_dmat_t *dA, double *a, int lda, char part,
                       hyt_dmat_t *dB, double *b, int ldb, int *written);

/* The early steps cut in pieces when a factorization's columns arrive from the host during it
 * (the LU's lu.overlap_steps and the Cholesky's chol.overlap_steps = auto): of kt steps, those
 * that can run while the loads do.  The loads take load_bytes at ~25 GB/s, the factorization
 * flops at ~35 TFLOP/s (one H200, host memory that is not page-locked), and the first s of kt
 * steps hold about 1 - (1 - s/kt)^3 of the flops; cut the steps that hold twice the loads'
 * share, and at least the first.  hyt_hybrid_piece_cols: the local columns of such a step's
 * pieces, about 4096 columns of nb, and at least 4 pieces on a device of ncols columns. */
int hyt_hybrid_overlap_steps(double load_bytes, double flops, int kt);
int hyt_hybrid_piece_cols(int nb, int ncols);

/* need[g] bytes more on each of the context's ndev devices: 0, or HYT_ERR_DEVICE_MEMORY with
 * "<what> needs X GiB on <device> but Y GiB are available (...)". */
int hyt_hybrid_check_memory(hyt_context_t *ctx, int ndev, const size_t *need, const char *what);

/* A temporary host CCRB copy of an m x n matrix (for the devices, which copy whole tiles), and
 * its release: a task that frees it after every task on its tiles (also after an error; when
 * that task cannot be inserted, waits for the sequence and frees it here). */
int hyt_tile_copy_create(hyt_context_t *ctx, int m, int n, int nb, hyt_desc_t **T);
int hyt_tile_copy_release(hyt_sequence_t *seq, hyt_desc_t *T);

#endif
