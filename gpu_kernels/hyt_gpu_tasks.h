/*
 * Device tasks of the hybrid LU (the seed's section 3, Figure 1): the data a device keeps for
 * the factorization, and typed insert wrappers for the copies (panel broadcast, column load,
 * column return) and the trailing update.  The bodies live in gpu_dma_tiles.c and
 * gpu_dgetrf_update.c; the loop nest that inserts them is drivers/pdgetrf_hybrid.c.
 *
 * A device keeps the tile columns j with j % ndev == dev (1D block-cyclic by columns), each
 * as mt CRRB tiles on top of each other (device row = global row), local column l = j / ndev
 * at cols + l*colsz; a ring of npbuf panel buffers (the panel of step k in slot k % npbuf,
 * tiles at the same offsets as in a column), each with inv(L_kk) (CRRB) and the step's pivots;
 * and a workspace W of one tile per local column for U_kj = inv(L_kk) A_kj.
 */
#ifndef HYT_GPU_TASKS_H
#define HYT_GPU_TASKS_H

#include "hyt_cpu_kernels.h"
#include "hyt_gpu_kernels.h"
#include "hyt_runtime.h"
#include "hyt_tiles.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hyt_gpu_lu {
    hyt_device_t *dev;
    int index, ndev;       /* this device's position among the devices of the factorization */
    int nb, mt;
    int64_t tile, colsz;   /* doubles per tile, per column (mt tiles) */
    int ncols;             /* local columns */
    int npbuf;
    double *cols;          /* ncols * colsz: the device matrix's columns (drivers/hyt_hybrid.h),
                              not allocated or freed with the workspaces below */
    double *pbuf;          /* npbuf * colsz */
    double *linv;          /* npbuf * tile */
    int *piv;              /* npbuf * nb */
    double *work;          /* ncols * tile */
    int per_call_gemm;     /* one cuBLAS call per column instead of a batched call; 0 (the
                              two ran as fast: docs/DESIGN.md, rates) */
    /* GPU panels (lu.panel = gpu) */
    int gpu_panel;
    int panel_ctas;        /* gpu.panel_ctas: CTAs of the native panel LU (< 0: auto), or 0:
                            * cuSOLVER's panel */
    void *solver;          /* cusolverDnHandle_t of cuSOLVER's panel, else NULL */
    double *pwork;         /* the panel LU's workspace, lwork bytes (hyt_gpu_panel_setup) */
    size_t lwork;
    int *dinfo;            /* npbuf */
    double *ident;         /* one tile: the identity */
    const double *h_ident; /* the identity on the host, copied in by the init task */
} hyt_gpu_lu_t;

/* Bytes of device memory the factorization's workspaces need on one device (cols not
 * counted). */
size_t hyt_gpu_lu_bytes(const hyt_gpu_lu_t *g);
/* Allocates the device workspaces (synchronous; not cols); frees what it got on failure. */
int hyt_gpu_lu_alloc(hyt_gpu_lu_t *g);
void hyt_gpu_lu_free(hyt_gpu_lu_t *g);

/* Zero the device workspaces (compute stream); panel_keys: the npbuf slot keys. */
int hyt_insert_gpu_lu_init(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                           const void *state_key, const void *const *panel_keys);

/* Column load: host CCRB tile column j -> device column (CRRB), on the H2D stream; writes the
 * column's token, and gathers into the device's state token when state_key is not NULL. */
int hyt_insert_gpu_column_load(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                               const hyt_desc_t *A, int j, const void *col_key,
                               const void *state_key);

/* Tile row r of all the device's columns back to the host tiles (r, j), on the D2H stream,
 * after after_key (READ). */
int hyt_insert_gpu_tilerow_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                  const hyt_desc_t *A, int r, const void *after_key);

/* Panel broadcast of step k: panel tiles (k..mt-1, k), inv(L_kk) and the pivots of step k
 * (dk of them) to slot k % npbuf, transposed to CRRB, on the H2D stream. */
int hyt_insert_gpu_panel_bcast(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                               const hyt_desc_t *A, int k, int dk, const double *h_linv,
                               const int *ipiv, int *h_piv, const void *panel_key);

/* Update of local columns [l1, l2) by step k: swaps, U = inv(L_kk) A_kj (GEMM), A_ij -= L_ik
 * U_kj for the rows below; plus the swaps of step k on the finished local columns [0, lf)
 * (the swaps to the left, when the columns stay on the device).  On `stream`.  Keys: panel
 * READ, state RW (may be NULL), col RW (a column's token, or NULL). */
int hyt_insert_gpu_dgetrf_update(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                 int k, int dk, int l1, int l2, int lf, int stream,
                                 const void *panel_key, const void *state_key,
                                 const void *col_key);
/* The same with the dependencies given. */
int hyt_insert_gpu_dgetrf_update_deps(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                      int k, int dk, int l1, int l2, int lf, int stream,
                                      const hyt_dep_t *deps, int ndeps);

/* ---- GPU panels (gpu_dgetrf_panel.c) -------------------------------------------------------
 * Before hyt_gpu_lu_alloc: the panel's workspace size (lwork) and, for cuSOLVER's panel, its
 * handle (synchronous); teardown after hyt_gpu_lu_free. */
int hyt_gpu_panel_setup(hyt_gpu_lu_t *g);
void hyt_gpu_panel_teardown(hyt_gpu_lu_t *g);
/* Panel k (m rows, n columns) factored on its owner g: column k RW, g's slot of step k WRITE;
 * pivots (1-based in the panel) and INFO staged in h_piv / h_info (page-locked host). */
int hyt_insert_gpu_panel(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g, int k, int m,
                         int n, int *h_piv, int *h_info, const void *col_key,
                         const void *slot_key, const void *done_key);
/* LAPACK's IPIV and INFO of step k from the staging (CPU task, after the panel). */
int hyt_insert_gpu_panel_pivots(hyt_sequence_t *seq, hyt_tag_t tag, int k, int dk, int nb,
                                const int *h_piv, const int *h_info, int *ipiv, int *info,
                                const void *order_key);
/* The factored panel of step k, inv(L_kk) and the pivots from src's slot to dst's (on dst's
 * H2D stream; GPU to GPU). */
int hyt_insert_gpu_panel_peer(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *dst,
                              const hyt_gpu_lu_t *src, int k, int dk, const void *src_slot_key,
                              const void *dst_slot_key);

/* Column return: device column j back to the host tiles (CCRB), on the D2H stream, after
 * after_key and after_key2 (READ; the second may be NULL): the column's token and / or the
 * device's state. */
int hyt_insert_gpu_column_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                 const hyt_desc_t *A, int j, const void *after_key,
                                 const void *after_key2);

/* ---- a LAPACK array <-> a device matrix's columns through page-locked staging slots
 * (gpu_dma_lapack.c).  A piece: ntiles tiles of one tile column from tile row i0; a: the
 * column's first element (row 0), m rows, w columns wide; slot: ntiles*nb*nb doubles. */
/* CPU: the piece's rows of a -> slot (CCRB tiles, padding zero); RW on slot_key. */
int hyt_insert_lapack_pack(hyt_sequence_t *seq, hyt_tag_t tag, const double *a, int64_t lda,
                           int m, int w, int nb, int i0, int ntiles, double *slot,
                           const void *slot_key);
/* CPU: slot (CCRB tiles) -> the piece's rows of a; RW on slot_key. */
int hyt_insert_lapack_unpack(hyt_sequence_t *seq, hyt_tag_t tag, double *a, int64_t lda, int m,
                             int w, int nb, int i0, int ntiles, const double *slot,
                             const void *slot_key);
/* H2D stream: slot -> dcol (the piece's first device tile), then to CRRB; RW on slot_key,
 * GATHER on col_key. */
int hyt_insert_gpu_piece_load(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dev,
                              const double *slot, double *dcol, int nb, int ntiles,
                              const void *slot_key, const void *col_key);
/* D2H stream: dcol (CRRB) -> slot as CCRB tiles, the device tiles left as they were (*broken
 * set to 1 when they could not be). */
int hyt_insert_gpu_piece_store(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dev,
                               double *slot, double *dcol, int nb, int ntiles,
                               const void *slot_key, const void *col_key, int *broken);

#ifdef __cplusplus
}
#endif
#endif
