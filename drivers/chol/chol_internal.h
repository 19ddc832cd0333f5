/* Internal interfaces of the Cholesky drivers (drivers/chol/). */
#ifndef HYT_CHOL_INTERNAL_H
#define HYT_CHOL_INTERNAL_H

#include "drv_internal.h"

/* The Cholesky's tunables.  A caller sets the fields it wants and leaves the others "auto"
 * (nb <= 0, lookahead < 0, panel 0); hyt_chol_params fills those in for an n x n problem on
 * ctx's workers and devices from the chol.* keys. */
typedef struct hyt_chol_params {
    int nb;         /* tile size of a LAPACK-layout matrix (a tile matrix has its own) */
    int lookahead;  /* tile columns right of the panel updated at high priority, 0.. */
    char panel;     /* LAPACK layout with devices: 'g' on the devices (dpotrf_devices.c), 'c'
                     * the hybrid (CPU panels), 'n' the CPU workers alone (auto below
                     * gpu.min_n); always 'c' without devices */
} hyt_chol_params_t;
#define HYT_CHOL_PARAMS_AUTO ((hyt_chol_params_t){0, -1, 0})
void hyt_chol_params(hyt_context_t *ctx, int n, hyt_chol_params_t *p);
/* Whether chol.panel asks for GPU panels on ctx: gpu, or auto with CUDA devices (the tile
 * calls' choice; the LAPACK-layout calls' also keeps n < gpu.min_n on the CPU workers). */
int hyt_chol_panel_gpu(hyt_context_t *ctx);

/* hyt_dpotrf (uplo 'L' or 'U', arguments checked) with the caller's parameters, the "auto"
 * ones chosen as hyt_dpotrf chooses them: for tests and benchmarks. */
int hyt_dpotrf_params(hyt_context_t *ctx, char uplo, int n, double *a, int lda,
                      const hyt_chol_params_t *p);

/* hyt_dpotrf (op 'F'), hyt_dposv ('V') and hyt_dpotrs ('S') on the devices
 * (dpotrf_devices.c): the uplo triangle of the LAPACK array streams into a device matrix, is
 * factored there (hyt_pdpotrf_dmat; 'S': it holds the factor already) and streams back a tile
 * column at a time as the panels finish, B ('V', 'S') is solved there when INFO is 0
 * (hyt_pdpotrs_dmat) and streams back ('S': only B; with fewer than gpu.solve_min_nrhs
 * right-hand sides a copy of B is solved on the CPUs instead); the other triangle is neither
 * read nor written, B not with INFO > 0.  nb, la: the device Cholesky's (<= 0, < 0: auto).
 * Arguments checked.  Returns INFO or an error.  A device failure after part of the factor came
 * back is finished on the CPU workers (hyt_chol_resume), and one in the solve solves there:
 * so an error leaves A and B untouched (*written = 0; written may be NULL), unless the CPUs
 * failed too or B's copy back failed twice (*written = 1).  *recovered (recovered may be NULL)
 * is 1 when the CPU workers finished a call the devices failed: the result is right, and
 * hyt_last_error() says why the devices failed.
 * hyt_chol_lapack_on_devices: whether hyt_dpotrf, hyt_dposv and hyt_dpotrs take this path for
 * n. */
int hyt_chol_lapack_devices(hyt_context_t *ctx, char op, char uplo, int n, int nrhs, double *a,
                            int lda, double *b, int ldb, int nb, int la, int *written,
                            int *recovered);
/* The factorization of the LAPACK array a (n x n, uplo 'L' or 'U') finished on the CPU workers
 * after hyt_chol_lapack_devices' devices failed (chol_resume.c): marks[j * mt + i] (mt tile
 * rows of nb) is nonzero for the tiles (i, j) of L (of U^T) already written with the factor,
 * the others hold A's.  Returns an error, or 0 with *info LAPACK's INFO. */
int hyt_chol_resume(hyt_context_t *ctx, char uplo, int n, double *a, int lda, int nb,
                    const unsigned char *marks, int *info);
int hyt_chol_lapack_on_devices(hyt_context_t *ctx, int n);
/* LAPACK's LSAME for uplo: 'L' or 'U' in either case, else 0. */
char hyt_norm_uplo(char uplo);

/* The tile Cholesky loop nest (pdpotrf.c): A n x n (CCRB or a LAPACK view) factored in place,
 * the uplo triangle referenced.  *info must be 0 on entry; it becomes LAPACK's INFO, and the
 * tasks after the first failing diagonal tile do nothing.  Inserts tasks only. */
int hyt_pdpotrf(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, int *info,
                const hyt_chol_params_t *p);

/* The tile solve with a Cholesky factor (pdpotrs.c): B (n x nrhs, A's nb) = inv(A) B.  With
 * info (not NULL) the solve waits for every task that writes *info (the factorization inserted
 * before it) and does nothing when *info is nonzero: B is then untouched. */
int hyt_pdpotrs(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, const hyt_desc_t *B,
                const int *info);

/* Argument checks of the public Cholesky calls (func: the call the user made, named in the
 * message; arguments numbered as in LAPACK, the context or sequence not counted).  Each returns
 * 0, or an error code with the message set by hyt_error_arg.
 * uplo, argument 1 of every Cholesky call: 0 or code (-1, or HYT_ERR_INVALID for the tile
 * calls). */
int hyt_chol_check_uplo(const char *func, int code, char uplo);
/* hyt_dpotrs's and hyt_dposv's uplo, n, nrhs, a, lda, b, ldb (arguments 1 to 7, LAPACK's
 * order): 0 or -i. */
int hyt_chol_check_solve(const char *func, char uplo, int n, int nrhs, const double *a, int lda,
                         const double *b, int ldb);
/* The tile calls' uplo (1), A (2: a square tile matrix) and, when solve, B (3: A's rows and
 * tile size): 0 or HYT_ERR_INVALID. */
int hyt_chol_check_tiles(const char *func, char uplo, const hyt_desc_t *A, int solve,
                         const hyt_desc_t *B);

/* The bodies of the calls, after their checks (uplo 'L' or 'U'): they do not check arguments
 * again and leave the message naming the public call to it.
 * hyt_chol_insert_tile: the tasks of hyt_dpotrf_tile_async (*info set to 0 first), and with B
 * (may be NULL) those of hyt_dposv_tile_async;
 * hyt_drv_dpotrs: the tile solve, synchronous; hyt_drv_dpotrs_lapack: the same on LAPACK
 * arrays. */
int hyt_chol_insert_tile(hyt_sequence_t *seq, char uplo, hyt_desc_t *A, hyt_desc_t *B,
                         int *info);
int hyt_drv_dpotrs(hyt_context_t *ctx, char uplo, const hyt_desc_t *A, hyt_desc_t *B);
int hyt_drv_dpotrs_lapack(hyt_context_t *ctx, char uplo, int n, int nrhs, const double *a,
                          int lda, double *b, int ldb);

/* ---- The GPU-only Cholesky (pdpotrf_gpu.c, dpotrf_gpu.c, gpu_dpotrf_tasks.c) ---------------
 * The lower (A = L L^T) or upper (A = U^T U) triangle of an n x n column-major matrix (leading
 * dimension ld) in the memory of one device, factored in place by device tasks on that device
 * (the seed's GPU-only design; docs in pdpotrf_gpu.c; upper is the same loop nest on the
 * transposed view, docs in gpu_dpotrf_tasks.c). */
#define HYT_CHOL_DEV_PIECE 512 /* a diagonal block is factored in pieces this wide (<= the
                                * fused potf2's HYT_DPOTF2_MAX_N) */
/* The pieces of a block of nb columns. */
static inline int hyt_chol_pieces(int nb)
{
    return (nb + HYT_CHOL_DEV_PIECE - 1) / HYT_CHOL_DEV_PIECE;
}
/* LAPACK's INFO from the local INFO e > 0 of piece q of step k (block size nb): the piece
 * starts at column k nb + q HYT_CHOL_DEV_PIECE. */
static inline int hyt_chol_piece_info(int k, int q, int nb, int e)
{
    return k * nb + q * HYT_CHOL_DEV_PIECE + e;
}
#define HYT_CHOL_MAX_GROUP 4 /* hyt_chol_dev_t.group's largest value */
/* The lookahead a nest runs with `group` steps' panels an update: a nonzero one at least the
 * group, so that the next group's panels never wait for the bulk update (0 stays 0). */
static inline int hyt_chol_group_lookahead(int la, int group)
{
    return la > 0 && la < group ? group : la;
}
typedef struct hyt_chol_dev {
    int device;      /* the context's device index */
    char uplo;       /* 'L' or 'U' */
    int n, ld, nb;   /* order, leading dimension, block size */
    int leaf;        /* the trailing update's recursion stops at SYRKs this wide */
    double *A;       /* device memory (host memory on host devices) */
    int *dinfo;      /* hyt_chol_dev_ninfo(D) device ints: the potf2 INFO of piece p of step k
                      * at k * pieces + p (pieces = ceil(nb / HYT_CHOL_DEV_PIECE)), the
                      * tail's at tail_k * pieces */
    int inv_rows;    /* the panels' solve is a GEMM with the inverse from this many rows */
    int gemm_lt;     /* the trailing update's GEMMs through cublasLt (HYT_GEMM_LT) */
    int group;       /* 1..HYT_CHOL_MAX_GROUP: each trailing update applies the panels of
                      * this many steps at once (GEMMs of K = group nb; pdpotrf_gpu.c) */
    int tail_k;      /* the tail's step: from it the trailing matrix is factored by one
                      * hyt_gpu_dpotrf (its INFO to dinfo[tail_k * pieces]); nt: no tail */
    double *work;    /* its workspace (hyt_chol_trsm): lwork device doubles, NULL when no
                      * panel reaches inv_rows */
    size_t lwork;
} hyt_chol_dev_t;

/* The solve under a panel's diagonal block on a device (gpu_chol_trsm.c), in a device task on
 * a stream with a cuBLAS handle:
 *   uplo 'L': B (m x kb) = B inv(T)^T, T the kb x kb lower factor (side R, lower, trans T);
 *   uplo 'U': B (kb x m) = inv(T)^T B, T upper (side L, upper, trans T);
 * from min_rows rows (m >= min_rows) as a GEMM with inv(T) through work (lwork doubles of
 * device memory, at least hyt_chol_trsm_work(kb, m); it may be NULL when m < min_rows), else
 * one TRSM.  The tasks that share a workspace must run in order on one stream.
 * hyt_chol_inv_rows: min_rows for a solve of that form, from chol.inv_rows (auto: the
 * measured default, the same for both triangles). */
size_t hyt_chol_trsm_work(int nb, int64_t rows);
int hyt_chol_trsm(const hyt_devctx_t *dc, char uplo, int m, int kb, const double *T, int ldt,
                  double *B, int ldb, int min_rows, double *work, size_t lwork);
int hyt_chol_inv_rows(hyt_context_t *ctx);

/* The device Cholesky's tunables ("auto": nb <= 0, lookahead < 0, leaf <= 0, inv_rows <= 0,
 * tail < 0, gemm_lt < 0, group <= 0). */
typedef struct hyt_chol_dev_params {
    int nb;         /* block size */
    int lookahead;  /* block columns updated on the lookahead stream */
    int leaf;       /* the width of the trailing update's SYRK leaves */
    int inv_rows;   /* the panels' solve is a GEMM with the inverse from this many rows (1:
                     * always) */
    int tail;       /* the last trailing matrix of at most this order is factored by one
                     * hyt_gpu_dpotrf (0: none) */
    int gemm_lt;    /* 1: the trailing update's GEMMs through cublasLt, 0: cublasDgemm */
    int group;      /* the trailing updates apply the panels of this many steps at once
                     * (hyt_chol_dev_t.group) */
} hyt_chol_dev_params_t;
#define HYT_CHOL_DEV_PARAMS_AUTO ((hyt_chol_dev_params_t){0, -1, 0, 0, -1, -1, 0})

/* The device Cholesky's parameters: the caller's where set, else chol.nb and chol.lookahead
 * where set, else the device defaults (dpotrf_gpu.c, measured in docs/performance.md); an
 * "auto" inv_rows or tail stays (hyt_chol_inv_rows and hyt_chol_tail resolve them; the
 * tail by triangle). */
void hyt_chol_params_device(hyt_context_t *ctx, int n, hyt_chol_dev_params_t *p);
/* The same for the GPU-only nest (hyt_dpotrf_device): an "auto" nb is its own from n = 16384,
 * and an "auto" group is resolved, its own from 12288 where chol.group is auto (dpotrf_gpu.c). */
void hyt_chol_params_gpu_only(hyt_context_t *ctx, int n, hyt_chol_dev_params_t *p);
/* chol.tail for the GPU-only Cholesky of order n of the uplo triangle on device dev (auto:
 * dpotrf_gpu.c's defaults, by triangle, order and backend: n where one vendor call is the
 * faster, else 0). */
int hyt_chol_tail(hyt_context_t *ctx, hyt_device_t *dev, char uplo, int n);
/* chol.gemm_lt for the GPU-only Cholesky of the uplo triangle on device dev (auto: 1 for lower
 * on CUDA devices, measured; else 0). */
int hyt_chol_gemm_lt(hyt_context_t *ctx, hyt_device_t *dev, char uplo);
/* chol.group for the GPU-only Cholesky (and the device matrices' nest) of order n on device
 * dev (auto: on CUDA devices 3 from some n on, measured, both triangles; else 1). */
int hyt_chol_group(hyt_context_t *ctx, hyt_device_t *dev, int n);
/* The step of D's tail (hyt_chol_dev_t.tail_k) for a tail of at most `tail` columns. */
int hyt_chol_tail_step(int n, int nb, int tail);
/* The entries of D->dinfo the factorization writes (every piece of the steps before the
 * tail's, then the tail's one). */
size_t hyt_chol_dev_ninfo(const hyt_chol_dev_t *D);

/* hyt_dpotrf_device with the caller's parameters ("auto" ones as hyt_dpotrf_device chooses
 * them): for tests and benchmarks. */
int hyt_dpotrf_device_params(hyt_context_t *ctx, char uplo, int n, double *dA, int ldda,
                             const hyt_chol_dev_params_t *p);

/* The loop nest: inserts the tasks of the factorization of D (D->dinfo gets every step's
 * INFO) and, last, the copy of D->dinfo to h_info (as many host ints, page-locked).  tok: nt + 2
 * tokens. */
int hyt_pdpotrf_gpu(hyt_sequence_t *seq, const hyt_chol_dev_t *D, int lookahead,
                    const hyt_tokens_t *tok, int *h_info);

/* The device tasks (gpu_dpotrf_tasks.c), all on device D->device (in the terms of the lower
 * case; upper: the transposes):
 *   panel k:   potf2 of the diagonal block k in pieces (INFO to D->dinfo), then the solve of
 *              the rows below it (hyt_chol_trsm);
 *   column j:  the update of block columns j0 .. j1-1 (one column, j1 = j0 + 1) by the
 *              panels of steps k0 .. k1 (SYRK of the diagonal block, GEMM of the rows below);
 *   trailing:  the same call for block columns j0 .. nt-1 (A22 -= L L^T on the lower
 *              triangle, cut into large GEMMs and small SYRKs);
 *   info:      D->dinfo (the entries it writes, hyt_chol_dev_ninfo) to h_info.
 * Dependencies and priorities are the caller's (tag, deps). */
int hyt_insert_gpu_chol_panel(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_dev_t *D,
                              int k, int stream, const hyt_dep_t *deps, int ndeps);
int hyt_insert_gpu_chol_update(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_dev_t *D,
                               int k0, int k1, int j0, int j1, int stream, const hyt_dep_t *deps,
                               int ndeps);
int hyt_insert_gpu_chol_info(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_dev_t *D,
                             int *h_info, int stream, const hyt_dep_t *deps, int ndeps);
/* The tail from step D->tail_k: the trailing matrix factored by hyt_gpu_dpotrf. */
int hyt_insert_gpu_chol_tail(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_dev_t *D,
                             int stream, const hyt_dep_t *deps, int ndeps);

/* ---- The hybrid Cholesky (pdpotrf_hybrid.c, gpu_dpotrf_hybrid_tasks.c, chol_copy.c) ---------
 * The factorization of a host tile matrix on a context with devices: diagonal tiles and panels
 * on the CPUs, the trailing tile columns on the devices (docs at the top of pdpotrf_hybrid.c). */

/* The loop nest the drivers call: hyt_pdpotrf_hybrid on a context with devices, hyt_pdpotrf
 * without or with p->panel 'n' (same arguments and INFO as hyt_pdpotrf); with B (may be
 * NULL) also the solve A X = B, which leaves B untouched when INFO is nonzero (hyt_pdpotrs on
 * the CPU workers; on the devices after GPU panels on host tiles). */
int hyt_chol_insert(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, const hyt_desc_t *B,
                    int *info, const hyt_chol_params_t *p);
/* The hybrid loop nest: A (CCRB or a LAPACK view, 'L' or 'U') factored with the context's
 * devices; a LAPACK view, or an upper triangle with CPU panels, goes through a lower CCRB copy
 * (tasks); B as for hyt_chol_insert. */
int hyt_pdpotrf_hybrid(hyt_sequence_t *seq, char uplo, const hyt_desc_t *A, const hyt_desc_t *B,
                       int *info, const hyt_chol_params_t *p);

/* One device's share of the hybrid Cholesky: the tile columns j with j % ndev == index of the
 * lower n x n matrix, local column l = j / ndev at cols + l colsz, mt CRRB tiles each (device
 * row = global row; the transpose of the host tile column: X_j(c, r) = A(r, j nb + c), an
 * nb x (mt nb) column-major matrix with leading dimension nb); and nslot panel slots of
 * group * colsz doubles, each holding the panels of `group` consecutive steps (GPU panels,
 * chol.group; else 1): the panels of steps k0 .. k0 + group - 1 (k0 a multiple of group) in
 * slot (k0 / group) % nslot as Y(p, r) = L(r, k0 nb + p), column-major with leading dimension
 * group * nb (with group 1: CRRB tiles at a column's offsets). */
typedef struct hyt_chol_hdev {
    hyt_device_t *dev;
    int index, ndev, n, nb, mt, ncols, nslot, group;
    int64_t tile, colsz;
    double *cols;  /* the device matrix's columns (drivers/hyt_hybrid.h) */
    double *slots; /* nslot * group * colsz */
    int *dinfo;    /* GPU panels only: ncols * ceil(nb / HYT_CHOL_DEV_PIECE) device ints, the
                    * potf2 INFO of piece q of the panel of local column l at l * pieces + q */
    int inv_rows;  /* GPU panels only: the panels' solve (hyt_chol_trsm, upper form) is a GEMM
                    * with the inverse from this many rows, through work (lwork doubles,
                    * NULL when no panel reaches inv_rows) */
    double *work;
    size_t lwork;
} hyt_chol_hdev_t;

/* Panel broadcast of step k: host tiles (i0..mt-1, k) of the CCRB matrix A to slot k % nslot of
 * d's device, transposed to CRRB (H2D stream; d->group 1).  Host tiles READ, slot_key WRITE. */
int hyt_insert_gpu_chol_bcast(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_hdev_t *d,
                              const hyt_desc_t *A, int k, int i0, const void *slot_key);
/* GPU panels: the panel of step k (its tiles k .. mt-1, at src on the owner of column k) to
 * its place in its slot on d's device, on `stream`.  src_key READ, slot_key WRITE. */
int hyt_insert_gpu_chol_slot_copy(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_hdev_t *d,
                                  int k, const double *src, int stream, const void *src_key,
                                  const void *slot_key);
/* The update of d's local columns [l1, l2) by the panels of steps k0 .. k1 (one slot's: k0 / group
 * = k1 / group) at once: SYRK of each column's diagonal tile (its lower triangle), GEMM of the
 * tiles below, K = the panels' width.  Skipped once *stop (the factorization's INFO) is
 * nonzero.  On `stream`; dependencies the caller's. */
int hyt_insert_gpu_chol_cols(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_hdev_t *d,
                             int k0, int k1, int l1, int l2, int stream, const int *stop,
                             const hyt_dep_t *deps, int ndeps);
/* GPU panels (hyt_pdpotrf_dmat): the panel of step k on d's device (the owner of column k),
 * in place in its column: potf2 of the diagonal tile in pieces of HYT_CHOL_DEV_PIECE (INFO to
 * d->dinfo), then the solve of the tiles below (hyt_chol_trsm, through d->work: every panel of
 * d's device on the same stream).  On `stream`; dependencies the caller's. */
int hyt_insert_gpu_chol_dpanel(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_hdev_t *d,
                               int k, int stream, const hyt_dep_t *deps, int ndeps);
/* d->dinfo (all its d->ncols * pieces entries) to h_info (page-locked), on the D2H stream. */
int hyt_insert_gpu_chol_dinfo(hyt_sequence_t *seq, hyt_tag_t tag, const hyt_chol_hdev_t *d,
                              int *h_info, const hyt_dep_t *deps, int ndeps);
/* What a caller inserts after the panel of step k and its copies, the last tasks that read
 * column k (dpotrf_devices.c: the column's return to the program's array; fn may be NULL), and
 * whether the columns are still arriving. */
typedef struct hyt_chol_after {
    int (*fn)(hyt_sequence_t *seq, void *arg, int k);
    void *arg;
    int arriving; /* the columns arrive during the factorization (streamed in by tasks
                   * inserted before it): its early steps' updates in pieces */
    char uplo;    /* the caller's triangle, 'L' or 'U' (0: 'L'), which picks chol.group's
                   * auto for streamed columns (pdpotrf_hybrid.c, panel_group) */
} hyt_chol_after_t;
/* The Cholesky of a device matrix in place, every step on the devices (GPU panels; docs at the
 * top of pdpotrf_hybrid.c): dA square, n > 0, its lower triangle factored, la the lookahead,
 * after (NULL: none) called at each step.  *info (0 on entry) is set by the last task:
 * LAPACK's INFO. */
int hyt_pdpotrf_dmat(hyt_sequence_t *seq, hyt_dmat_t *dA, int *info, int la,
                     const hyt_chol_after_t *after);
/* A X = B with the factor L of hyt_pdpotrf_dmat in dA, on B's devices (pdpotrs_dmat.c): dB n x
 * nrhs with dA's tile size, X overwrites it.  Inserts tasks only. */
int hyt_pdpotrs_dmat(hyt_sequence_t *seq, const hyt_dmat_t *dA, hyt_dmat_t *dB);
/* CPU copy of the uplo triangle of tile column j of the lower CCRB matrix T from A (back = 0:
 * T(i,j) = A(i,j) for 'L', A(j,i)^T for 'U', i >= j) or to A (back = 1, the inverse), the
 * diagonal tile's triangle only: the other triangle of A is never written. */
int hyt_insert_chol_copy(hyt_sequence_t *seq, hyt_tag_t tag, char uplo, const hyt_desc_t *A,
                         const hyt_desc_t *T, int j, int back);

#endif
