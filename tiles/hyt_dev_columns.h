/*
 * Tile columns between the host and the devices, as device tasks any algorithm inserts (the
 * LU's loads and returns, the hybrid Cholesky's, a new algorithm's): a host CCRB tile column
 * becomes a device column of CRRB tiles (docs/DESIGN.md, data layout) and comes back.
 *
 * A device column is mt CRRB nb x nb tiles on top of each other (device row = global row),
 * nb*nb*mt doubles; the copy in is followed, the copy out preceded, by the CCRB <-> CRRB
 * transposition on the same stream, so the compute streams only ever see CRRB.  The host
 * matrix is CCRB and page-locked.  Bodies in dev_columns.c.
 */
#ifndef HYT_DEV_COLUMNS_H
#define HYT_DEV_COLUMNS_H

#include "hyt_insert.h"
#include "hyt_runtime.h"
#include "hyt_tiles.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One device column: where it lives and its shape; row0 > 0 moves tiles row0 .. mt-1 only
 * (a lower triangle's column j: row0 = j), the others neither read nor written on either side.
 * trans: the device column j holds the transposes of the host tiles (j, row0 ..) of a square
 * CCRB matrix (an upper triangle's tile row as the lower triangle of its transpose): a
 * column-major tile of X is the CRRB tile of X^T, so these move as they are, with no
 * transposition on the device. */
typedef struct hyt_dev_column {
    hyt_device_t *dev;
    double *dcol; /* the column's first tile in dev's memory */
    int nb, mt;   /* tile order, tiles in the column */
    int row0;     /* the first tile moved (0: the whole column) */
    int trans;    /* the host tiles of tile row j instead of tile column j */
    int keep;     /* return: the device column stays usable after it (see below) */
    int rw;       /* return: RW on after_key, not READ (see below) */
    const int *stop; /* return: nothing moved when *stop != 0 as it runs (may be NULL) */
} hyt_dev_column_t;

/* Columns of one device `stride` doubles apart (stride >= nb*nb*mt): local column l holds the
 * host tile column j0 + l*jstep (a 1D block-cyclic share: j0 = the device's index, jstep =
 * the number of devices). */
typedef struct hyt_dev_columns {
    hyt_device_t *dev;
    double *cols;   /* local column 0 */
    int64_t stride; /* doubles between local columns */
    int ncols;      /* local columns */
    int nb, mt;
    int j0, jstep;
} hyt_dev_columns_t;

/* Column load: host CCRB tile column j of A -> c (CRRB), on the H2D stream; reads the host
 * tiles, writes col_key (the column's token), and gathers into state_key when it is not NULL
 * (loads of different columns commute; the first user of them all waits for the state).
 * order_key (RW, may be NULL) orders the load after an earlier one: a ring of W such tokens
 * over a device's loads keeps at most W of them submitted at a time (see dev_columns.c). */
int hyt_insert_dev_column_load(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_dev_column_t *c,
                               const hyt_desc_t *A, int j, const void *col_key,
                               const void *state_key, const void *order_key);

/* Column return: c back to the host tiles of column j of A (CCRB), on the D2H stream, after
 * after_key and after_key2 (READ; the second may be NULL).  The device copy is transposed in
 * place first (not with c->trans): it is not to be used after, unless c->keep, which
 * transposes it back after the copy.  The transposition writes the column: c->rw makes the
 * return write after_key too, so that it runs after the key's earlier readers and before its
 * later ones (else the caller orders them).  c->stop: the caller orders the task after the
 * write of *stop (after_key2). */
int hyt_insert_dev_column_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_dev_column_t *c,
                                 const hyt_desc_t *A, int j, const void *after_key,
                                 const void *after_key2);

/* Tile row r of all of c's columns back to the host tiles (r, j0 + l*jstep), on the D2H
 * stream, after after_key (READ); those device tiles are transposed in place first.  Nothing
 * to do (HYT_SUCCESS) when c has no columns. */
int hyt_insert_dev_tilerow_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_dev_columns_t *c,
                                  const hyt_desc_t *A, int r, const void *after_key);

#ifdef __cplusplus
}
#endif
#endif
