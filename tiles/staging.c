/*
 * Copies between a LAPACK array in the program's (pageable) memory and the CRRB tile columns
 * of a device matrix, through a ring of page-locked staging slots (drivers/lu/dgesv_devices.c
 * runs the ring).  A piece is ntiles tiles of one tile column (tile rows i0 .. i0+ntiles-1):
 *
 *   in:   pack (CPU worker)   LAPACK rows -> the slot as CCRB tiles, padding zero
 *         load (H2D stream)   the slot -> the device column, then CCRB -> CRRB there
 *   out:  store (D2H stream)  CRRB -> CCRB on the device, to the slot, back to CRRB (the
 *                             device matrix stays valid, so a failed copy can be redone,
 *                             unless that last transposition failed twice: then *broken is
 *                             set)
 *         unpack (CPU worker) the slot -> LAPACK rows
 *
 * Each task is RW on its slot's token, so a slot is packed, sent and reused in turn while the
 * other slots' pieces are in flight: the copies on the CPUs, the transfers and the device's
 * work overlap.  The pieces of a column are GATHER writers (or readers) of its token.
 *
 * Flags (the Cholesky's triangles):
 *   HYT_PIECE_ROWS  the piece is a row strip: tiles (j, i0) .. (j, i0+ntiles-1) of the LAPACK
 *                   array become tiles i0.. of the device's tile column j, transposed: a
 *                   tile's column-major slot is its transpose's CRRB, so neither load nor
 *                   store transposes on the device (the upper triangle of A as the lower
 *                   triangle of A^T);
 *   HYT_PIECE_TRI   unpack: the piece's first tile is a diagonal tile and only its lower
 *                   (column pieces) or upper (HYT_PIECE_ROWS) triangle is written back.
 */
#include "hyt_staging.h"

#include <stdio.h>
#include <string.h>

typedef struct pack_args {
    double *a;       /* row 0 of the piece's first element column (ROWS: row j nb, column 0) */
    int64_t lda;
    int m, w, nb, i0, ntiles; /* rows of the matrix, width of the tile column (ROWS: columns
                               * of the matrix, height of the tile row) */
    double *slot;
    unsigned flags;
    unsigned char *marks; /* unpack: ntiles flags set to 1 once the tiles are written, or NULL */
} pack_args_t;

/* Tile t of a piece in the array: its first element *h, its rows and columns there (a
 * column piece: tile (i0 + t, j), mb x w; a row strip: tile (j, i0 + t), w x its width). */
static void piece_tile(const pack_args_t *c, int t, double **h, int *rows, int *cols)
{
    const int i = c->i0 + t, ext = c->m - i * c->nb < c->nb ? c->m - i * c->nb : c->nb;
    const int by_rows = c->flags & HYT_PIECE_ROWS;
    *h = c->a + (int64_t)i * c->nb * (by_rows ? c->lda : 1);
    *rows = by_rows ? c->w : ext;
    *cols = by_rows ? ext : c->w;
}

static int pack_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const pack_args_t *c = p;
    const int64_t tile = (int64_t)c->nb * c->nb;
    for (int t = 0; t < c->ntiles; t++) {
        double *h, *s = c->slot + t * tile;
        int rows, cols;
        piece_tile(c, t, &h, &rows, &cols);
        hyt_races_block(h, c->lda, rows, cols, 0, "the array's tile");
        hyt_races_block(s, c->nb, c->nb, c->nb, 1, "the slot's tile");
        for (int col = 0; col < cols; col++) {
            memcpy(s + (int64_t)col * c->nb, h + col * c->lda, (size_t)rows * sizeof *s);
            if (rows < c->nb)
                memset(s + (int64_t)col * c->nb + rows, 0, (size_t)(c->nb - rows) * sizeof *s);
        }
        if (cols < c->nb)
            memset(s + (int64_t)cols * c->nb, 0, (size_t)(c->nb - cols) * c->nb * sizeof *s);
    }
    return 0;
}

static int unpack_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const pack_args_t *c = p;
    const int64_t tile = (int64_t)c->nb * c->nb;
    for (int t = 0; t < c->ntiles; t++) {
        const int tri = t == 0 && (c->flags & HYT_PIECE_TRI);
        const double *s = c->slot + t * tile;
        double *h;
        int rows, cols;
        piece_tile(c, t, &h, &rows, &cols);
        hyt_races_block(s, c->nb, rows, cols, 0, "the slot's tile");
        for (int col = 0; col < cols; col++) {
            /* a diagonal tile: rows col.. (L) or ..col (U, a row strip) */
            int lo = 0, hi = rows;
            if (tri && (c->flags & HYT_PIECE_ROWS))
                hi = col + 1 < rows ? col + 1 : rows;
            else if (tri)
                lo = col < rows ? col : rows;
            hyt_races_block(h + col * c->lda + lo, c->lda, hi - lo, 1, 1, "the array's tile");
            memcpy(h + col * c->lda + lo, s + (int64_t)col * c->nb + lo,
                   (size_t)(hi - lo) * sizeof *s);
        }
    }
    if (c->marks) /* read after the sequence has finished (its end orders the stores) */
        memset(c->marks, 1, (size_t)c->ntiles);
    return 0;
}

static const hyt_kernel_t pack_kernel = {.name = "lapack_pack", .cpu = pack_body,
                                         .cat = HYT_CAT_CONVERT};
static const hyt_kernel_t unpack_kernel = {.name = "lapack_unpack", .cpu = unpack_body,
                                           .cat = HYT_CAT_CONVERT};

typedef struct piece_args {
    double *slot, *dcol; /* dcol: the piece's first tile on the device */
    int nb, ntiles;
    int *broken;         /* store: set when the device tiles could not be put back */
    unsigned flags;      /* HYT_PIECE_ROWS: no transposition on the device */
} piece_args_t;

static int load_body(const hyt_devctx_t *dc, void *p)
{
    const piece_args_t *c = p;
    int rc = hyt_dev_memcpy_h2d(dc, c->dcol, c->slot,
                                (size_t)c->ntiles * c->nb * c->nb * sizeof(double));
    if (rc || (c->flags & HYT_PIECE_ROWS))
        return rc;
    return hyt_gpu_transpose_tiles(dc, c->dcol, c->nb, c->ntiles);
}

static int store_body(const hyt_devctx_t *dc, void *p)
{
    const piece_args_t *c = p;
    const size_t bytes = (size_t)c->ntiles * c->nb * c->nb * sizeof(double);
    if (c->flags & HYT_PIECE_ROWS)
        return hyt_dev_memcpy_d2h(dc, c->slot, c->dcol, bytes);
    int rc = hyt_gpu_transpose_tiles(dc, c->dcol, c->nb, c->ntiles);
    if (rc)
        return rc;
    rc = hyt_dev_memcpy_d2h(dc, c->slot, c->dcol, bytes);
    /* the tiles back to CRRB, so that a failed copy can be redone; a launch refused once is
     * tried again, or one failure would leave the program's arrays partly written */
    int rc2 = hyt_gpu_transpose_tiles(dc, c->dcol, c->nb, c->ntiles);
    if (rc2) {
        char why[512];
        snprintf(why, sizeof why, "%s", hyt_last_error());
        if (hyt_gpu_transpose_tiles(dc, c->dcol, c->nb, c->ntiles))
            *c->broken = 1; /* the tiles stay CCRB: a second copy would be wrong */
        hyt_error(rc2, "%s", why); /* the store still failed: the ring redoes the copy */
    }
    return rc ? rc : rc2;
}

static const hyt_kernel_t load_kernel = {.name = "piece_load", .dev = load_body,
                                         .cat = HYT_CAT_DMA};
static const hyt_kernel_t store_kernel = {.name = "piece_store", .dev = store_body,
                                          .cat = HYT_CAT_DMA};

static int insert_cpu(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_kernel_t *k,
                      const pack_args_t *args, const void *slot_key, const hyt_dep_t *order)
{
    hyt_dep_t deps[2] = {{slot_key, HYT_RW}};
    if (order)
        deps[1] = *order;
    hyt_task_desc_t d = hyt_tagged_desc(k, args, sizeof *args, deps, order ? 2 : 1, tag);
    return hyt_task_insert(seq, &d);
}

static int insert_dev(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_kernel_t *k,
                      hyt_device_t *dev, int stream, const piece_args_t *args,
                      const void *slot_key, const void *col_key)
{
    hyt_dep_t deps[2] = {{slot_key, HYT_RW}, {col_key, HYT_GATHER}};
    hyt_task_desc_t d = hyt_tagged_desc(k, args, sizeof *args, deps, 2, tag);
    d.device = hyt_device_index(dev);
    d.stream = stream;
    return hyt_task_insert(seq, &d);
}

int hyt_insert_lapack_pack(hyt_sequence_t *seq, hyt_tag_t tag, const double *a, int64_t lda,
                           int m, int w, int nb, int i0, int ntiles, double *slot,
                           const void *slot_key, unsigned flags)
{
    pack_args_t args = {(double *)a, lda, m, w, nb, i0, ntiles, slot, flags, NULL};
    return insert_cpu(seq, tag, &pack_kernel, &args, slot_key, NULL);
}

int hyt_insert_lapack_unpack(hyt_sequence_t *seq, hyt_tag_t tag, double *a, int64_t lda, int m,
                             int w, int nb, int i0, int ntiles, const double *slot,
                             const void *slot_key, unsigned flags, unsigned char *marks,
                             const hyt_dep_t *order)
{
    pack_args_t args = {a, lda, m, w, nb, i0, ntiles, (double *)slot, flags, marks};
    return insert_cpu(seq, tag, &unpack_kernel, &args, slot_key, order);
}

int hyt_insert_gpu_piece_load(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dev,
                              const double *slot, double *dcol, int nb, int ntiles,
                              const void *slot_key, const void *col_key, unsigned flags)
{
    piece_args_t args = {(double *)slot, dcol, nb, ntiles, NULL, flags};
    return insert_dev(seq, tag, &load_kernel, dev, HYT_STREAM_H2D, &args, slot_key, col_key);
}

int hyt_insert_gpu_piece_store(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dev,
                               double *slot, double *dcol, int nb, int ntiles,
                               const void *slot_key, const void *col_key, int *broken,
                               unsigned flags)
{
    piece_args_t args = {slot, dcol, nb, ntiles, broken, flags};
    return insert_dev(seq, tag, &store_kernel, dev, HYT_STREAM_D2H, &args, slot_key, col_key);
}
