/*
 * Tile matrices.
 *
 * An m x n matrix is cut into square nb x nb tiles; the last tile row / column may be smaller
 * (mt = ceil(m/nb) tile rows, nt = ceil(n/nb) tile columns).  Two host layouts:
 *
 *   HYT_LAYOUT_CCRB  (Column-Column Rectangular Block, hytile's own storage): each tile is
 *   contiguous, tiles are stored column after column, elements column-major inside a tile.
 *   Every tile takes nb*nb doubles, edge tiles too (their unused part is padding), so the
 *   leading dimension of every tile is nb:
 *
 *        matrix (mt = 3, nt = 2)          memory
 *        +------+------+                  [ T00 | T10 | T20 | T01 | T11 | T21 ]
 *        | T00  | T01  |                     T(i,j) at ((j*mt + i) * nb*nb)
 *        +------+------+                   inside T(i,j):   a(r,c) at r + c*nb
 *        | T10  | T11  |                     +--------+
 *        +------+------+                     | 0  nb  |  element order: down the
 *        | T20  | T21  |                     | 1  nb+1|  columns of the tile
 *        +------+------+                     | ...    |
 *                                            +--------+
 *
 *   HYT_LAYOUT_LAPACK  a view of a column-major array with leading dimension lda; "tile"
 *   (i,j) is the block starting at a + i*nb + j*nb*lda, with leading dimension lda.
 *
 * On GPUs tiles are transposed (CRRB, Column-Row Rectangular Block): tiles still column after
 * column, each tile contiguous, but elements row-major inside a tile:
 *
 *        inside a CRRB tile:  a(r,c) at r*nb + c      +-------------+
 *                                                     | 0  1  2 ... |  a row swap moves
 *                                                     | nb nb+1 ... |  nb contiguous doubles
 *                                                     +-------------+
 *   A column of tiles in CRRB (mt tiles on top of each other) is therefore one row-major
 *   (mt*nb) x nb matrix with row stride nb, i.e. the column-major nb x (mt*nb) matrix of its
 *   transpose with leading dimension nb: GEMMs on whole tile columns are single cuBLAS calls.
 */
#ifndef HYT_TILES_H
#define HYT_TILES_H

#include "hyt_context.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { HYT_LAYOUT_CCRB = 0, HYT_LAYOUT_LAPACK = 1 } hyt_layout_t;

typedef struct hyt_desc {
    int m, n;          /* matrix size */
    int nb;            /* tile size */
    int mt, nt;        /* tile rows and columns */
    hyt_layout_t layout;
    double *mat;       /* CCRB storage or the LAPACK array */
    int64_t lda;       /* LAPACK layout: leading dimension */
    int owned;         /* storage allocated by hyt_desc_create */
    hyt_context_t *ctx;
} hyt_desc_t;

/* Allocates an m x n CCRB matrix with tile size nb (page-locked when the context has CUDA
 * devices).  Returns 0, HYT_ERR_INVALID or HYT_ERR_NOMEM / HYT_ERR_TOO_LARGE. */
HYT_API int hyt_desc_create(hyt_context_t *ctx, int m, int n, int nb, hyt_desc_t *A);
/* A view of a column-major array (nothing allocated). */
HYT_API int hyt_desc_lapack(int m, int n, int nb, double *a, int64_t lda, hyt_desc_t *A);
HYT_API void hyt_desc_destroy(hyt_desc_t *A);

/* Rows of tile row i, columns of tile column j. */
static inline int hyt_tile_mb(const hyt_desc_t *A, int i)
{
    return i < A->mt - 1 ? A->nb : A->m - (A->mt - 1) * A->nb;
}
static inline int hyt_tile_nb(const hyt_desc_t *A, int j)
{
    return j < A->nt - 1 ? A->nb : A->n - (A->nt - 1) * A->nb;
}
/* Address and leading dimension of tile (i,j). */
static inline double *hyt_tile(const hyt_desc_t *A, int i, int j)
{
    if (A->layout == HYT_LAYOUT_CCRB)
        return A->mat + ((int64_t)j * A->mt + i) * (int64_t)A->nb * A->nb;
    return A->mat + (int64_t)i * A->nb + (int64_t)j * A->nb * A->lda;
}
static inline int hyt_tile_ld(const hyt_desc_t *A)
{
    return A->layout == HYT_LAYOUT_CCRB ? A->nb : (int)A->lda;
}
/* Element (r,c) of the matrix (slow: tests and conversions). */
static inline double *hyt_elem(const hyt_desc_t *A, int64_t r, int64_t c)
{
    double *t = hyt_tile(A, (int)(r / A->nb), (int)(c / A->nb));
    return t + (r % A->nb) + (c % A->nb) * (int64_t)hyt_tile_ld(A);
}

/* Conversions LAPACK layout <-> CCRB as tasks (one per tile column). */
HYT_API int hyt_lapack_to_tile_async(hyt_sequence_t *seq, const double *a, int64_t lda,
                                     hyt_desc_t *A);
HYT_API int hyt_tile_to_lapack_async(hyt_sequence_t *seq, const hyt_desc_t *A, double *a,
                                     int64_t lda);
/* Synchronous versions (create a sequence, wait). */
HYT_API int hyt_lapack_to_tile(hyt_context_t *ctx, const double *a, int64_t lda, hyt_desc_t *A);
HYT_API int hyt_tile_to_lapack(hyt_context_t *ctx, const hyt_desc_t *A, double *a, int64_t lda);

/* Host reference of the device-side layout change of one tile (also what the GPU kernels are
 * tested against): CCRB (column-major, ld = nb) <-> CRRB (row-major, row stride nb). */
HYT_API void hyt_ccrb_to_crrb_tile(const double *src, double *dst, int nb);
HYT_API void hyt_crrb_to_ccrb_tile(const double *src, double *dst, int nb);
/* n consecutive tiles (a tile column segment). */
HYT_API void hyt_ccrb_to_crrb(const double *src, double *dst, int nb, int ntiles);
HYT_API void hyt_crrb_to_ccrb(const double *src, double *dst, int nb, int ntiles);

#ifdef __cplusplus
}
#endif
#endif
