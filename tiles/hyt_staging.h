/*
 * Device tasks that move a LAPACK array to a device matrix's columns and back through
 * page-locked staging slots (staging.c).  The tile-column copies any algorithm uses are
 * in tiles/hyt_dev_columns.h; the LU's device state and tasks in drivers/lu/lu_gpu.h.
 */
#ifndef HYT_STAGING_H
#define HYT_STAGING_H

#include "hyt_gpu_kernels.h"
#include "hyt_insert.h"
#include "hyt_runtime.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a LAPACK array <-> a device matrix's columns through page-locked staging slots
 * (staging.c).  A piece: ntiles tiles of one tile column from tile row i0; a: the
 * column's first element (row 0), m rows, w columns wide; slot: ntiles*nb*nb doubles.
 * flags: 0, or HYT_PIECE_ROWS (a row strip of the array: a its tile row's first element, m
 * its columns, w its height; transposed into the device column) and HYT_PIECE_TRI (unpack:
 * the first tile is diagonal, only the triangle of L, or of U with ROWS, is written). */
enum { HYT_PIECE_ROWS = 1, HYT_PIECE_TRI = 2 };
/* CPU: the piece's rows of a -> slot (CCRB tiles, padding zero); RW on slot_key. */
int hyt_insert_lapack_pack(hyt_sequence_t *seq, hyt_tag_t tag, const double *a, int64_t lda,
                           int m, int w, int nb, int i0, int ntiles, double *slot,
                           const void *slot_key, unsigned flags);
/* CPU: slot (CCRB tiles) -> the piece's rows of a; RW on slot_key, and order (NULL: none) a
 * dependency more.  marks (NULL: none): ntiles flags, each set to 1 once its tile is written
 * (what a caller reads after a failed sequence to know which tiles of a hold results). */
int hyt_insert_lapack_unpack(hyt_sequence_t *seq, hyt_tag_t tag, double *a, int64_t lda, int m,
                             int w, int nb, int i0, int ntiles, const double *slot,
                             const void *slot_key, unsigned flags, unsigned char *marks,
                             const hyt_dep_t *order);
/* H2D stream: slot -> dcol (the piece's first device tile), then to CRRB; RW on slot_key,
 * GATHER on col_key. */
int hyt_insert_gpu_piece_load(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dev,
                              const double *slot, double *dcol, int nb, int ntiles,
                              const void *slot_key, const void *col_key, unsigned flags);
/* D2H stream: dcol (CRRB) -> slot as CCRB tiles, the device tiles left as they were (*broken
 * set to 1 when they could not be). */
int hyt_insert_gpu_piece_store(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dev,
                               double *slot, double *dcol, int nb, int ntiles,
                               const void *slot_key, const void *col_key, int *broken,
                               unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
