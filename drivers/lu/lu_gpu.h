/*
 * Device tasks of the hybrid LU (the seed's section 3, Figure 1): the data a device keeps for
 * the factorization, and typed insert wrappers for the copies (panel broadcast, column load,
 * column return) and the trailing update.  The bodies live in gpu_dgetrf_dma.c (the copies of
 * tile columns are tiles/dev_columns.c's, for any algorithm), gpu_dgetrf_update.c and
 * gpu_dgetrf_panel.c; the loop nest that inserts them is pdgetrf_hybrid.c.
 *
 * A device keeps the tile columns j with j % ndev == dev (1D block-cyclic by columns), each
 * as mt CRRB tiles on top of each other (device row = global row), local column l = j / ndev
 * at cols + l*colsz; a ring of npbuf panel buffers (the panel of step k in slot k % npbuf,
 * tiles at the same offsets as in a column), each with inv(L_kk) (CRRB) and the step's pivots;
 * and a workspace W of one tile per local column for U_kj = inv(L_kk) A_kj.
 */
#ifndef HYT_LU_GPU_H
#define HYT_LU_GPU_H

#include "hyt_dev_columns.h"
#include "hyt_gpu_kernels.h"
#include "hyt_insert.h"
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
    int *plan;             /* 2 * 3 * nb: the interchanges of the step being applied as one
                              permutation (hyt_gpu_dlaswp_plan), one per stream of the updates
                              (compute, lookahead) */
    double *work;          /* ncols * tile */
    int per_call_gemm;     /* one cuBLAS call per column instead of a batched call; 0 (the
                              two ran as fast: docs/DESIGN.md, rates) */
    /* GPU panels (lu.panel = gpu) */
    int gpu_panel;
    int panel_ctas;        /* gpu.panel_ctas: CTAs of the native panel LU (< 0: auto), or 0:
                            * cuSOLVER's panel */
    int panel_native_rows; /* gpu.panel_native_rows: with panel_ctas != 0, the native panel for
                            * panels of more rows than this, cuSOLVER's for the others */
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

/* The tile-column copies of hyt_dev_columns.h on g's columns (column j at cols + (j / ndev) *
 * colsz; g's share: the columns j with j % ndev == index).
 * Column load: host CCRB tile column j -> device column (CRRB), on the H2D stream; writes the
 * column's token, gathers into the device's state token when state_key is not NULL, and comes
 * after the earlier load that last held order_key (RW; may be NULL). */
int hyt_insert_gpu_column_load(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                               const hyt_desc_t *A, int j, const void *col_key,
                               const void *state_key, const void *order_key);

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
 * Before hyt_gpu_lu_alloc: the panel's workspace size (lwork) and, for cuSOLVER's panel, the
 * device's cuSOLVER handle (made once per context, through hyt_device_handle). */
int hyt_gpu_panel_setup(hyt_gpu_lu_t *g);
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

/* Column return (hyt_insert_dev_column_return on g's column j): device column j back to the
 * host tiles (CCRB), on the D2H stream, after after_key and after_key2 (READ; the second may
 * be NULL): the column's token and / or the device's state. */
int hyt_insert_gpu_column_return(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_gpu_lu_t *g,
                                 const hyt_desc_t *A, int j, const void *after_key,
                                 const void *after_key2);

#ifdef __cplusplus
}
#endif
#endif
