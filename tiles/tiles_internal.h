/* Internal interfaces of tiles/ for the drivers. */
#ifndef HYT_TILES_INTERNAL_H
#define HYT_TILES_INTERNAL_H

#include "hyt_tiles.h"

/* The tasks of hyt_lapack_to_tile_async (to_tile 1) or hyt_tile_to_lapack_async (0) without
 * their argument checks, for a caller that has checked: messages name no public call. */
int hyt_tiles_convert_async(hyt_sequence_t *seq, const double *a, int64_t lda,
                            const hyt_desc_t *A, int to_tile);

#endif
