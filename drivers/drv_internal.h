/* Internal interfaces between the drivers. */
#ifndef HYT_DRV_INTERNAL_H
#define HYT_DRV_INTERNAL_H

#include "hyt_cpu_kernels.h"
#include "hyt_internal.h"
#include "hyt_runtime.h"
#include "hytile.h"

#include <stdlib.h>
#include <string.h>

/* The tile LU loop nest on CPUs (pdgetrf.c) and with devices (pdgetrf_hybrid.c): insert tasks
 * only.  A is CCRB or a LAPACK view; ipiv has min(m,n) entries. */
int hyt_pdgetrf(hyt_sequence_t *seq, const hyt_desc_t *A, int *ipiv, int *info,
                const hyt_lu_params_t *p);
int hyt_pdgetrf_hybrid(hyt_sequence_t *seq, const hyt_desc_t *A, int *ipiv, int *info,
                       const hyt_lu_params_t *p);
/* The same on a device matrix, in place (GPU panels whatever p says; no host round trip).
 * arriving: the columns are still being written by tasks inserted before (their tokens,
 * hyt_dmat_col_key): the early steps then work behind them in pieces. */
int hyt_pdgetrf_dmat(hyt_sequence_t *seq, hyt_dmat_t *dA, int *ipiv, int *info,
                     const hyt_lu_params_t *p, int arriving);
/* The solve on the devices (pdgetrs_dmat.c): dA n x n factored, dB n x nrhs, same tile size. */
int hyt_pdgetrs_dmat(hyt_sequence_t *seq, char trans, const hyt_dmat_t *dA, const int *ipiv,
                     hyt_dmat_t *dB);
/* A tile solve through the devices (dmat_solve.c): the part of the n x n CCRB factor A that
 * the solve reads ('A' all of it; 'L' the lower triangle's tiles; 'U' the upper triangle's,
 * as the lower ones of A^T) and the CCRB B (n x nrhs, A's tile size) go to device matrices,
 * solve(seq, dA, dB, arg) inserts the solve there, B's columns come back.  pivots: the solve
 * has an LU's interchanges (for its workspace in the memory check, hyt_dmat_trs_bytes).  The
 * memory is checked and allocated first: HYT_ERR_DEVICE_MEMORY with nothing inserted when it
 * does not fit. */
typedef int (*hyt_dmat_solve_fn)(hyt_sequence_t *seq, const hyt_dmat_t *dA, hyt_dmat_t *dB,
                                 void *arg);
int hyt_dmat_solve_tiles(hyt_sequence_t *seq, const hyt_desc_t *A, char part,
                         const hyt_desc_t *B, int pivots, hyt_dmat_solve_fn solve, void *arg);
/* Whether such a solve applies: devices, A (n > 0) and B CCRB (not LAPACK views), at least
 * gpu.solve_min_nrhs right-hand sides (the caller adds its factorization's GPU-panel rule). */
int hyt_dmat_solve_applies(hyt_context_t *ctx, const hyt_desc_t *A, const hyt_desc_t *B);
/* Its parts for a caller whose factor is on the devices already: B's tile columns to the
 * device matrix dB (a load each, priority prio), and back (tag step k) after the tasks on
 * dB's columns; with stop (may be NULL) also after the task that writes *stop (its region),
 * and nothing copied when *stop is then nonzero. */
int hyt_dmat_insert_b_in(hyt_sequence_t *seq, const hyt_dmat_t *dB, const hyt_desc_t *B, int prio);
int hyt_dmat_insert_b_out(hyt_sequence_t *seq, const hyt_dmat_t *dB, const hyt_desc_t *B, int k,
                          const int *stop);
/* The tile solve (pdgetrs.c): A n x n factored, B n x nrhs. */
int hyt_pdgetrs(hyt_sequence_t *seq, char trans, const hyt_desc_t *A, const int *ipiv,
                const hyt_desc_t *B);

/* The interchanges of that solve (gpu_dgetrs_dmat.c).  B's local columns of one device: ncols
 * CRRB columns colsz doubles apart from bcols.  The interchanges of IPIV (n of them, host) on
 * them, forward or in reverse (P^T), through dpiv (3 n ints of device memory: the pivots, or
 * the interchanges' plans) and work (ncols nb x nb tiles); on the compute stream. */
#define HYT_DMAT_LASWP_INTS(n) (3 * (size_t)(n))
/* hyt_gpu_dlaswp_plan's plans of the blocks of nb interchanges of piv (n of them, LAPACK's:
 * i + 1 <= piv[i] <= n, 1-based global), block r1 / nb's at plans + 3 r1 (3 min(nb, n - r1)
 * ints): the same as hyt_ref_dlaswp_plan(r1, min(nb, n - r1), piv + r1, ...) gives, in O(n)
 * for all of them.  0, or HYT_ERR_NOMEM. */
int hyt_dmat_laswp_plans(int n, int nb, const int *piv, int *plans);
int hyt_insert_gpu_dmat_laswp(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dev,
                              double *bcols, int64_t colsz, int ncols, int nb, int n,
                              const int *ipiv, int *dpiv, double *work, int reverse,
                              const hyt_dep_t *deps, int ndeps);
/* bytes from src (on any device) to dst, on `stream` of dst_dev: src_key READ, dst_key WRITE
 * (dmat_trs.c). */
int hyt_insert_gpu_dmat_copy(hyt_sequence_t *seq, hyt_tag_t tag, hyt_device_t *dst_dev,
                             int stream, double *dst, const double *src, size_t bytes,
                             const void *src_key, const void *dst_key);

/* Triangular sweeps with a factor held in the device matrix A on B's devices (dmat_trs.c; A n x
 * n, B n x nrhs, same tile size): open checks the memory and allocates the slots (several
 * devices) and, with pivots, on each of B's devices an n-int copy of the pivots (dpiv) and the
 * interchanges' workspace (hyt_insert_gpu_dmat_laswp's plan and top, laswp_work); each
 * sweep (uplo 'L' or 'U' of A's CRRB tiles, trans 'N' or 'T', diag: 'U' for a unit L) inserts
 * device g's tasks on all its columns of B; deps lists B's column tokens of device g (RW) and
 * extra when its key is set, in a scratch valid until the next call; close inserts the task
 * that frees it all after every task of the solve and returns rc, or its own error. */
typedef struct hyt_dmat_trs hyt_dmat_trs_t;
int hyt_dmat_trs_open(hyt_sequence_t *seq, const hyt_dmat_t *A, const hyt_dmat_t *B,
                      int pivots, hyt_dmat_trs_t **s);
int *hyt_dmat_trs_dpiv(const hyt_dmat_trs_t *s, int g);
double *hyt_dmat_trs_laswp_work(const hyt_dmat_trs_t *s, int g);
int hyt_dmat_trs_deps(hyt_dmat_trs_t *s, int g, hyt_dep_t extra, const hyt_dep_t **deps);
int hyt_dmat_trs_sweep(hyt_sequence_t *seq, hyt_dmat_trs_t *s, int g, char uplo, char trans,
                       char diag);
int hyt_dmat_trs_close(hyt_sequence_t *seq, hyt_dmat_trs_t *s, int rc);

/* The last task of an asynchronous call (drv_cleanup.c): free_fn(state) in a CPU task after
 * every task on deps (the tokens and regions the call's tasks touched, in the modes given), also
 * after the sequence failed (an "always" task).  deps may be NULL with ndeps > 0: the caller
 * could not allocate the list.  When the task cannot be inserted with all its dependencies,
 * the sequence is failed with the error and waited for, and free_fn(state) called here.  Either
 * way state is freed exactly once and the caller must not touch it after this call.  Returns 0
 * or the insertion's error. */
int hyt_drv_insert_cleanup(hyt_sequence_t *seq, void (*free_fn)(void *), void *state,
                           const hyt_dep_t *deps, int ndeps);

/* A macro's value as a string literal (the keys' help texts quote their measured defaults). */
#define HYT_STR_(x) #x
#define HYT_STR(x) HYT_STR_(x)

/* Registration of each algorithm's configuration keys (drv_keys.c calls them). */
int hyt_lu_register_keys(void);
int hyt_abi_register_keys(void);
int hyt_chol_register_keys(void);
/* abi.min_n = auto: calls below HYT_ABI_MIN_N_AUTO go to the program's CPU LAPACK, and so do the
 * LUs on CPU workers alone below HYT_ABI_MIN_N_PER_WORKER per worker: the crossings of the
 * preloaded dgesv_ against OpenBLAS on as many threads, measured with 2 to 16 (2-core EPYC,
 * 16-core Xeon; docs/performance.md, seventeenth stop). */
#define HYT_ABI_MIN_N_AUTO 384
#define HYT_ABI_MIN_N_PER_WORKER 128

/* LAPACK's XERBLA, forwarded to the program's own (abi_xerbla.c). */
void xerbla_(const char *srname, const int *info, size_t srname_len);

/* Dependency keys of the pivots of each step: &ipiv[k*nb] for k < kt (malloc'ed, or NULL
 * with the message set). */
const void **hyt_piv_keys(const int *ipiv, int kt, int nb);

/* LAPACK's LSAME for the trans argument: 'N', 'T' or 'C' in either case, else 0. */
char hyt_norm_trans(char t);

/* Argument checks of the public calls (func: the call the user made, named in the message;
 * i: the argument's number as in LAPACK, the context or sequence not counted).  Each returns
 * 0, or -i with the message set by hyt_error_arg. */
int hyt_drv_check_trans(const char *func, int i, char trans);
int hyt_drv_check_ld(const char *func, int i, const char *name, int ld, int rows);
/* A (argument i) and ipiv (i + 1) of an LU. */
int hyt_drv_check_lu(const char *func, int i, const hyt_desc_t *A, const int *ipiv);
/* A square (argument i), ipiv (i + 1), B (i + 2) with A's rows and tile size, of a solve. */
int hyt_drv_check_solve(const char *func, int i, const hyt_desc_t *A, const int *ipiv,
                        const hyt_desc_t *B);

/* The bodies of the synchronous calls, after their checks: they do not check arguments again
 * and leave the message naming the public call to it.  hyt_drv_dgetrf returns an error or
 * LAPACK's info. */
int hyt_drv_dgetrf(hyt_context_t *ctx, hyt_desc_t *A, int *ipiv);
/* The same with the caller's parameters (nb from A), e.g. hyt_lu_params_lapack's. */
int hyt_drv_dgetrf_params(hyt_context_t *ctx, hyt_desc_t *A, int *ipiv,
                          const hyt_lu_params_t *p);
int hyt_drv_dgetrs(hyt_context_t *ctx, char trans, const hyt_desc_t *A, const int *ipiv,
                   hyt_desc_t *B);
int hyt_drv_dgetrf_lapack(hyt_context_t *ctx, int m, int n, double *a, int lda, int *ipiv);
int hyt_drv_dgetrs_lapack(hyt_context_t *ctx, char trans, int n, int nrhs, const double *a,
                          int lda, const int *ipiv, double *b, int ldb);

/* The LAPACK-layout calls through device matrices (dgesv_devices.c), taken when the context has
 * devices and GPU panels (hyt_drv_lapack_on_devices).  op: 'f' dgetrf (m x n), 's' dgetrs
 * (trans; A n x n not written), 'v' dgesv.  Arguments checked.  Returns an error or LAPACK's
 * INFO.  A and B are written only at the end, after the factorization and the solve
 * succeeded: *written (may be NULL) stays 0 when the call failed before, A and B untouched (a
 * caller can redo the call on them); 1 when copying back failed (A, B partly written).  The
 * phases of the last call, in seconds, for the benchmark: hyt_lapack_dev_last. */
int hyt_drv_lapack_on_devices(hyt_context_t *ctx, int m, int n);
int hyt_drv_lapack_devices(hyt_context_t *ctx, char op, char trans, int m, int n, int nrhs,
                           double *a, int lda, int *ipiv, double *b, int ldb, int *written);
/* The body of hyt_dgetrf / hyt_dgetrs / hyt_dgesv (op as above) after their checks: through
 * device matrices when hyt_drv_lapack_on_devices (dgetrs only with gpu.solve_min_nrhs
 * right-hand sides or more, else on the CPUs on a copy of B: *written 0 as well), else in place
 * on CPUs or through a host tile copy (CPU panels with devices), where *written is 1 from the
 * start. */
int hyt_drv_lapack_call(hyt_context_t *ctx, char op, char trans, int m, int n, int nrhs,
                        double *a, int lda, int *ipiv, double *b, int ldb, int *written);
typedef struct hyt_lapack_dev_times {
    double in_factor; /* the copies in and the factorization (overlapped) */
    double solve, out, total;
} hyt_lapack_dev_times_t;
extern hyt_lapack_dev_times_t hyt_lapack_dev_last;

/* The solves alone that stay on the CPUs where the context's LAPACK-layout calls would use the
 * devices (fewer than gpu.solve_min_nrhs right-hand sides) solve a copy of B and put it
 * back once they succeeded, so that a failure leaves B as it was, as the device path does:
 * hyt_drv_b_copy gives the n x nrhs block of b (leading dimension ldb) in a new array of
 * leading dimension n (NULL: HYT_ERR_NOMEM, with its message), hyt_drv_b_put copies it back. */
static inline double *hyt_drv_b_copy(const double *b, int n, int nrhs, int ldb)
{
    double *x = malloc((size_t)n * (size_t)nrhs * sizeof *x + 1);
    if (!x) {
        hyt_error(HYT_ERR_NOMEM, "out of memory for a copy of B (%d x %d)", n, nrhs);
        return NULL;
    }
    for (int64_t j = 0; j < nrhs; j++)
        memcpy(x + j * n, b + j * ldb, (size_t)n * sizeof *x);
    return x;
}
static inline void hyt_drv_b_put(double *b, int ldb, const double *x, int n, int nrhs)
{
    for (int64_t j = 0; j < nrhs; j++)
        memcpy(b + j * ldb, x + j * n, (size_t)n * sizeof *x);
}

/* The validator of the panel keys (lu.panel, chol.panel): cpu, gpu or auto. */
int hyt_drv_check_panel(const char *value, char *err, size_t errlen);
/* The tile size of the LAPACK-layout solve on the CPU workers, in every context (with
 * devices hyt_lu_params gives theirs): lu.nb when set, else small tiles for parallelism. */
int hyt_lu_cpu_solve_nb(hyt_context_t *ctx, int n);
/* Whether the context's devices are CUDA GPUs (its first device's backend; 0 without). */
int hyt_drv_cuda(hyt_context_t *ctx);
/* gpu.panel_native_rows (auto resolved: 0): panels with more rows than this use the native
 * panel (when gpu.panel_ctas is not 0). */
int hyt_lu_panel_native_rows(hyt_context_t *ctx);
/* The per-step panel rule, in one place: a GPU panel of `rows` rows is hytile's native one
 * when gpu.panel_ctas (ctas) is not 0 and it has more rows than gpu.panel_native_rows
 * (native_rows, resolved); else cuSOLVER's. */
static inline int hyt_lu_panel_native(long ctas, int native_rows, int64_t rows)
{
    return ctas != 0 && rows > native_rows;
}
/* gpu.min_n for the LU (fact 'L') or the Cholesky ('C'): the order from which the
 * LAPACK-layout calls with GPU panels go to the devices (auto resolved). */
int hyt_gpu_min_n(hyt_context_t *ctx, char fact);
/* hyt_lu_params for a LAPACK-layout call: below gpu.min_n (min(m, n)) as on a context without
 * devices (ndevices 0, the CPU tile size and lookahead). */
int hyt_lu_params_lapack(hyt_context_t *ctx, int m, int n, hyt_lu_params_t *p);

#endif
