/* hyt_dpotrf_device: the Cholesky factorization of a matrix already in the memory of the
 * context's first device (a column-major device pointer, as cusolverDnDpotrf takes it), lower
 * (A = L L^T) or upper (A = U^T U), in place, with no host copy of A: the GPU-only loop nest
 * (pdpotrf_gpu.c).  Synchronous, with LAPACK's argument checks and INFO.
 *
 * Defaults (measured on one H200, docs/performance.md, 2026-11-24 to 2026-12-03): AUTO_NB,
 * AUTO_LEAF and AUTO_WHOLE_LOWER below; lookahead 1.  The GPU-only nest takes its own block size
 * from n = 16384 (AUTO_NB_MID; 512 below it too, from 8192) and from 49152 (AUTO_NB_WIDE), and
 * its own group (chol.group: 2 from 12288, 3 from 24576).  With nb 512 the potf2s, the inverses
 * and solves on the critical path are half as long as with 1024 while the grouped update keeps
 * its GEMMs wide: nb 512 group 3 against the former defaults (nb 1024 group 2; 1536 group 2 at
 * 40960), s:
 *   lower 24576  0.1058 / 0.1077-0.1083     lower 40960  0.4480-0.4508 / 0.4543-0.4591
 *   lower 32768  0.2366-0.2391 / 0.2377-0.2416   upper 32768  0.2406-0.2417 / 0.2424-0.2450
 * (three calls of 2026-12-03, reps 2-3; at 32768 a tie in one of them); at 16384 / 20480 (the
 * panels' solve by GEMMs on every panel, no tail), lower nb 512 group 2 or 3 0.0345-0.0346 /
 * 0.0611-0.0619 s against nb 1024 group 1 or 2 0.0352-0.0365 / 0.0623-0.0629, upper 0.0351-0.0359
 * / 0.0632-0.0635 against 0.0357-0.0362 / 0.0632-0.0639, and group 1 with nb 512 4-10% slower than
 * 2 from 12288 to 20480.  From 49152 the wider panels win: nb 1536 group 3 took 1.818 s at 65536
 * against 1.824-1.831 with 512 (group 3 or 4); 1536 was 0.5-1.3% faster than 1024 at
 * 40960-65536 for lower and 0.8-1.7% for upper at 49152 and 65536 (2026-11-27).  The device
 * matrices' nest (dpotrf_dmat.c, dpotrf_devices.c) keeps hyt_chol_params_device's sizes.
 *
 * The tail (chol.tail): once the trailing matrix is at most `tail` columns, one call of the
 * vendor's dpotrf factors it.  cusolverDnDpotrf runs small lower matrices as a few fused
 * kernels, where each of our steps queues several kernels on the critical path: it is faster
 * than this loop nest at n = 4096 and 8192 (7.3 against 7.7 ms) and ties it at 12288 (17.8
 * against 17.6), so a lower matrix up to 12288 is one cuSOLVER call.  Above it the nest is
 * faster on its own to the end (2026-12-03, with the panels' solve by GEMMs on every panel:
 * 16384 34.5 against cuSOLVER's 35.8 ms, and the whole factorization without a tail 0-0.7%
 * faster than with the last 8192 or 16384 columns in one cuSOLVER call at 16384-65536), so
 * larger ones have no tail.  Its upper Cholesky is slower than ours everywhere (0.368 against
 * 0.238 s at 32768): the upper default has no tail.
 *
 * The trailing update's GEMMs (chol.gemm_lt): through cublasLt's first heuristic algorithm for
 * each shape instead of cublasDgemm.  Measured on one H200 (2026-11-27, three calls): lower
 * 1.2-1.9% faster at 65536 (1.861-1.870 s against 1.888-1.906) and 2.4% at 32768, although
 * alone on the same shapes it is no faster; the lookahead column's narrow GEMMs gain nothing
 * that way, so they stay with cublasDgemm; upper ('T','N') 1.1-1.4% slower at 32768, so its
 * default stays cublasDgemm.
 *
 * The panels a trailing update applies (chol.group): 3 from n = 24576, so that the update's
 * GEMMs have K = 3 nb (1536 for the GPU-only nest's nb 512, 3072 for the tile calls' 1024) while
 * the panels, their inverses and their solves stay nb wide; 1 below 24576 (upper 16384 with nb
 * 1024: 1 / 2 / 3 took 39.6 / 40.9 / 42.2 ms), but 2 from 12288 for the GPU-only nest with its
 * nb 512 (above).  cuBLAS runs
 * the recursive update of a 30720-row trailing matrix at 52.0-52.4 TFLOP/s with K = 3072
 * against 50.5-50.7 with 1536 (55.0-55.4 against 47.8-50.9 at 61440).  Measured on one H200
 * (docs/performance.md, forty-sixth, forty-seventh and fifty-first stops), s:
 *   GPU-only, group 1 / 2 / 3 (nb 1024, 1536 at 65536):
 *     lower 32768   0.2484-0.2497 / 0.2402-0.2418 / 0.2401-0.2430
 *     lower 65536   1.889-1.891   / 1.825-1.851   / 1.811-1.823
 *     upper 32768   0.2489        / 0.2419-0.2432 / 0.2422-0.2450
 *     upper 65536   1.915         / 1.882-1.889   / 1.864-1.874
 *     49152 (nb 1536), group 2 / 3: lower 0.7699-0.7713 / 0.7629-0.7646, upper 0.7838 /
 *     0.7810
 *   GPU-only nb 512, group 2 / 3 / 4: lower 32768 0.2400-0.2416 / 0.2369-0.2391 /
 *     0.2370-0.2381, 40960 0.4593 / 0.4508 / 0.4496, 24576 0.1072 / 0.1058 / 0.1073
 *   hyt_dpotrf_tile, GPU panels, host to host (nb 1024), group 2 / 3: lower 24576 0.1349 /
 *     0.1311, 32768 0.2869-0.2922 / 0.2767-0.2833, 40960 0.5219-0.5290 / 0.5133-0.5152 */
#include "chol_internal.h"
#include "hyt_gpu_kernels.h"

/* The device defaults: block size by n and the trailing update's SYRK leaf. */
#define AUTO_NB_LARGE 1024 /* n >= AUTO_NB_LARGE_FROM */
#define AUTO_NB_LARGE_FROM 16384
#define AUTO_NB_MID 512 /* the GPU-only nest (hyt_dpotrf_device), n >= AUTO_NB_MID_FROM */
#define AUTO_NB_MID_FROM 16384
#define AUTO_NB_WIDE 1536 /* the GPU-only nest, n >= AUTO_NB_WIDE_FROM */
#define AUTO_NB_WIDE_FROM 49152
#define AUTO_NB 512 /* n >= 8192, else 256 */
#define AUTO_LEAF 4096
#define AUTO_WHOLE_LOWER 12288 /* lower on CUDA devices up to this order: one vendor call */
#define AUTO_GEMM_LT_LOWER 1 /* lower, CUDA devices; upper: 0 */
#define AUTO_GROUP 3 /* CUDA devices, both triangles, n >= AUTO_GROUP_FROM; else 1 */
#define AUTO_GROUP_FROM 24576
#define AUTO_GROUP_GPU_ONLY_MID 2 /* the GPU-only nest on CUDA devices from 12288 */
#define AUTO_GROUP_GPU_ONLY_MID_FROM 12288

int hyt_dpotrf_device(hyt_context_t *ctx, char uplo, int n, double *dA, int ldda)
{
    hyt_chol_dev_params_t p = HYT_CHOL_DEV_PARAMS_AUTO;
    return hyt_dpotrf_device_params(ctx, uplo, n, dA, ldda, &p);
}

/* The device defaults; gpu_only: the GPU-only nest's (AUTO_NB_MID, AUTO_NB_WIDE, and its
 * group where chol.group is auto). */
static void params(hyt_context_t *ctx, int n, hyt_chol_dev_params_t *p, int gpu_only)
{
    const hyt_config_t *cfg = hyt_context_config(ctx);
    long nb = hyt_config_get_int(cfg, "chol.nb"), la = hyt_config_get_int(cfg, "chol.lookahead");
    if (p->nb <= 0)
        p->nb = nb > 0                               ? (int)nb
                : gpu_only && n >= AUTO_NB_WIDE_FROM ? AUTO_NB_WIDE
                : gpu_only && n >= AUTO_NB_MID_FROM  ? AUTO_NB_MID
                : n >= AUTO_NB_LARGE_FROM            ? AUTO_NB_LARGE
                : n >= 8192                          ? AUTO_NB
                                                     : 256;
    if (p->lookahead < 0)
        p->lookahead = la >= 0 ? (int)la : 1;
    if (p->leaf <= 0)
        p->leaf = AUTO_LEAF;
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    if (gpu_only && p->group <= 0 && dev)
        p->group = hyt_config_get_int(cfg, "chol.group") <= 0 &&
                           hyt_device_backend(dev) == HYT_BACKEND_CUDA &&
                           n >= AUTO_GROUP_GPU_ONLY_MID_FROM && n < AUTO_GROUP_FROM
                       ? AUTO_GROUP_GPU_ONLY_MID
                       : hyt_chol_group(ctx, dev, n);
}

void hyt_chol_params_device(hyt_context_t *ctx, int n, hyt_chol_dev_params_t *p)
{
    params(ctx, n, p, 0);
}

void hyt_chol_params_gpu_only(hyt_context_t *ctx, int n, hyt_chol_dev_params_t *p)
{
    params(ctx, n, p, 1);
}

int hyt_chol_tail(hyt_context_t *ctx, hyt_device_t *dev, char uplo, int n)
{
    long t = hyt_config_get_int(hyt_context_config(ctx), "chol.tail");
    if (t >= 0)
        return (int)t;
    return uplo == 'L' && hyt_device_backend(dev) == HYT_BACKEND_CUDA && n <= AUTO_WHOLE_LOWER
               ? n
               : 0;
}

int hyt_chol_gemm_lt(hyt_context_t *ctx, hyt_device_t *dev, char uplo)
{
    long g = hyt_config_get_int(hyt_context_config(ctx), "chol.gemm_lt");
    if (g >= 0)
        return (int)g;
    return uplo == 'L' && hyt_device_backend(dev) == HYT_BACKEND_CUDA ? AUTO_GEMM_LT_LOWER : 0;
}

int hyt_chol_group(hyt_context_t *ctx, hyt_device_t *dev, int n)
{
    long g = hyt_config_get_int(hyt_context_config(ctx), "chol.group");
    if (g > 0)
        return (int)g;
    return hyt_device_backend(dev) == HYT_BACKEND_CUDA && n >= AUTO_GROUP_FROM ? AUTO_GROUP : 1;
}

int hyt_chol_tail_step(int n, int nb, int tail)
{
    const int nt = (n + nb - 1) / nb;
    if (tail <= 0)
        return nt;
    if (tail >= n)
        return 0;
    return (n - tail + nb - 1) / nb; /* the first step with n - k nb <= tail (nt: none) */
}

size_t hyt_chol_dev_ninfo(const hyt_chol_dev_t *D)
{
    const size_t nt = (size_t)(D->n + D->nb - 1) / D->nb;
    const size_t pieces = (size_t)hyt_chol_pieces(D->nb);
    return (size_t)D->tail_k < nt ? (size_t)D->tail_k * pieces + 1 : nt * pieces;
}

/* What the tasks of one call use until its end: freed by its cleanup task. */
typedef struct dev_call {
    hyt_context_t *ctx;
    hyt_device_t *dev;
    hyt_tokens_t *tok;  /* nt + 2 (pdpotrf_gpu.c) */
    size_t ntok;
    int *h_info;        /* page-locked copy of dinfo */
    int *dinfo;
    size_t ninfo;
    double *work;       /* the panels' solve: hyt_chol_trsm_work(nb, n - nb) doubles, when
                         * a panel has inv_rows rows below it */
    size_t lwork;
    int nb, pieces;
    int *info;          /* the caller's */
} dev_call_t;

static void call_free(void *p)
{
    dev_call_t *c = p;
    if (c->dinfo)
        hyt_device_free(c->dev, c->dinfo);
    if (c->work)
        hyt_device_free(c->dev, c->work);
    hyt_host_free(c->ctx, c->h_info);
    hyt_tokens_destroy(c->tok);
    free(c);
}

/* INFO: the first piece of the first step whose potf2 failed (every piece ran and wrote its
 * entry, piece q of step k at k pieces + q; the tail's is piece 0 of its step, the last
 * entry). */
static int info_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const dev_call_t *c = *(dev_call_t *const *)p;
    *c->info = 0;
    for (size_t e = 0; e < c->ninfo; e++)
        if (c->h_info[e]) {
            *c->info = hyt_chol_piece_info((int)(e / c->pieces), (int)(e % c->pieces), c->nb,
                                           c->h_info[e]);
            break;
        }
    return 0;
}

static const hyt_kernel_t info_kernel = {.name = "chol_dev_info", .cpu = info_body,
                                         .cat = HYT_CAT_OTHER};

/* Checks the arguments (positions as LAPACK's, after the context or sequence) and inserts the
 * factorization, *info set by its last task. */
static int device_async(hyt_sequence_t *seq, const char *fn, char uplo, int n, double *dA,
                        int ldda, int *info, const hyt_chol_dev_params_t *params)
{
    if (hyt_chol_check_uplo(fn, -1, uplo))
        return -1;
    const char u = hyt_norm_uplo(uplo);
    if (n < 0)
        return hyt_error_arg(-2, fn, 2, "n", "is %d, must be >= 0", n);
    if (!dA && n > 0)
        return hyt_error_arg(-3, fn, 3, "dA", "is NULL");
    if (ldda < (n > 1 ? n : 1))
        return hyt_error_arg(-4, fn, 4, "ldda", "is %d, must be >= max(1, n) = %d", ldda,
                             n > 1 ? n : 1);
    if (!info)
        return hyt_error_arg(-5, fn, 5, "info", "is NULL");
    hyt_context_t *ctx = hyt_sequence_context(seq);
    if (hyt_context_num_devices(ctx) < 1)
        return hyt_error(HYT_ERR_NOT_AVAILABLE, "%s: the context has no device (runtime.devices "
                         "= cuda, cuda:N or host:N): dA must be in device 0's memory", fn);
    *info = 0;
    if (n == 0)
        return 0;
    hyt_chol_dev_params_t p = *params;
    hyt_chol_params_gpu_only(ctx, n, &p);
    const int nt = (n + p.nb - 1) / p.nb;
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    const int tail_k = hyt_chol_tail_step(n, p.nb, p.tail >= 0 ? p.tail
                                                            : hyt_chol_tail(ctx, dev, u, n));
    dev_call_t *c = calloc(1, sizeof *c);
    if (!c)
        return hyt_error(HYT_ERR_NOMEM, "%s: out of memory", fn);
    *c = (dev_call_t){.ctx = ctx, .dev = dev, .ntok = (size_t)nt + 2, .nb = p.nb,
                      .pieces = hyt_chol_pieces(p.nb),
                      .info = info};
    hyt_chol_dev_t D = {.device = 0, .uplo = u, .n = n, .ld = ldda, .nb = p.nb, .leaf = p.leaf,
                        .A = dA, .tail_k = tail_k,
                        .group = p.group > 0 ? p.group : hyt_chol_group(ctx, dev, n),
                        .gemm_lt = p.gemm_lt >= 0 ? p.gemm_lt : hyt_chol_gemm_lt(ctx, dev, u)};
    c->ninfo = hyt_chol_dev_ninfo(&D);
    c->tok = hyt_tokens_create(c->ntok);
    c->h_info = hyt_host_malloc(ctx, c->ninfo * sizeof *c->h_info);
    int rc = c->tok && c->h_info ? HYT_SUCCESS : hyt_error(HYT_ERR_NOMEM, "%s: out of memory", fn);
    if (!rc)
        rc = hyt_device_malloc(c->dev, (void **)&c->dinfo, c->ninfo * sizeof *c->dinfo);
    const int inv_rows = p.inv_rows > 0 ? p.inv_rows : hyt_chol_inv_rows(ctx);
    /* the first panel has the most rows below it */
    c->lwork = tail_k > 0 && n - p.nb >= inv_rows && n > p.nb ? hyt_chol_trsm_work(p.nb, n - p.nb)
                                                              : 0;
    if (!rc && c->lwork)
        rc = hyt_device_malloc(c->dev, (void **)&c->work, c->lwork * sizeof *c->work);
    if (rc) {
        call_free(c);
        return rc;
    }
    D.dinfo = c->dinfo;
    D.inv_rows = inv_rows;
    D.work = c->work;
    D.lwork = c->lwork;
    rc = hyt_pdpotrf_gpu(seq, &D, p.lookahead, c->tok, c->h_info);
    /* INFO, then the cleanup, each a CPU task after every task on c's tokens (RW on them
     * all); without the list the cleanup reports the error */
    hyt_dep_t *deps = malloc(c->ntok * sizeof *deps);
    for (size_t t = 0; deps && t < c->ntok; t++)
        deps[t] = (hyt_dep_t){hyt_token(c->tok, t), HYT_RW};
    if (!rc && deps) {
        hyt_task_desc_t d = hyt_task_desc(&info_kernel, &c, sizeof c);
        d.deps = deps;
        d.ndeps = (int)c->ntok;
        rc = hyt_task_insert(seq, &d);
    }
    /* the cleanup frees the call's memory also after an error (an "always" task) */
    int rc2 = hyt_drv_insert_cleanup(seq, call_free, c, deps, (int)c->ntok);
    free(deps);
    return rc ? rc : rc2;
}

int hyt_dpotrf_device_async(hyt_sequence_t *seq, char uplo, int n, double *dA, int ldda,
                            int *info)
{
    static const char fn[] = "hyt_dpotrf_device_async";
    hyt_error_clear();
    if (!seq)
        return hyt_error(HYT_ERR_INVALID, "%s: NULL sequence", fn);
    hyt_chol_dev_params_t p = HYT_CHOL_DEV_PARAMS_AUTO;
    return hyt_error_return(fn, device_async(seq, fn, uplo, n, dA, ldda, info, &p));
}

int hyt_dpotrf_device_params(hyt_context_t *ctx, char uplo, int n, double *dA, int ldda,
                             const hyt_chol_dev_params_t *params)
{
    static const char fn[] = "hyt_dpotrf_device";
    hyt_error_clear();
    if (!ctx)
        return hyt_error(HYT_ERR_INVALID, "%s: NULL context", fn);
    hyt_sequence_t *seq;
    int info = 0, rc = hyt_sequence_create(ctx, &seq);
    if (!rc)
        rc = hyt_sequence_finish(seq, device_async(seq, fn, uplo, n, dA, ldda, &info, params));
    return hyt_error_return(fn, rc ? rc : info);
}
