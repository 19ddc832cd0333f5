/* hyt_dpotrf_device: the Cholesky factorization of a matrix already in the memory of the
 * context's first device (a column-major device pointer, as cusolverDnDpotrf takes it), lower
 * (A = L L^T) or upper (A = U^T U), in place, with no host copy of A: the GPU-only loop nest
 * (pdpotrf_gpu.c).  Synchronous, with LAPACK's argument checks and INFO.
 *
 * Defaults (measured on one H200, docs/performance.md, 2026-11-24): AUTO_NB, AUTO_LEAF below;
 * lookahead 1. */
#include "chol_internal.h"
#include "hyt_gpu_kernels.h"

/* The device defaults: block size by n and the trailing update's SYRK leaf. */
#define AUTO_NB_LARGE 1024 /* n >= AUTO_NB_LARGE_FROM */
#define AUTO_NB_LARGE_FROM 16384
#define AUTO_NB 512 /* n >= 8192, else 256 */
#define AUTO_LEAF 4096

int hyt_dpotrf_device(hyt_context_t *ctx, char uplo, int n, double *dA, int ldda)
{
    hyt_chol_dev_params_t p = HYT_CHOL_DEV_PARAMS_AUTO;
    return hyt_dpotrf_device_params(ctx, uplo, n, dA, ldda, &p);
}

void hyt_chol_params_device(hyt_context_t *ctx, int n, hyt_chol_dev_params_t *p)
{
    const hyt_config_t *cfg = hyt_context_config(ctx);
    long nb = hyt_config_get_int(cfg, "chol.nb"), la = hyt_config_get_int(cfg, "chol.lookahead");
    if (p->nb <= 0)
        p->nb = nb > 0 ? (int)nb : n >= AUTO_NB_LARGE_FROM ? AUTO_NB_LARGE : n >= 8192 ? AUTO_NB
                                                                                  : 256;
    if (p->lookahead < 0)
        p->lookahead = la >= 0 ? (int)la : 1;
    if (p->leaf <= 0)
        p->leaf = AUTO_LEAF;
}

int hyt_dpotrf_device_params(hyt_context_t *ctx, char uplo, int n, double *dA, int ldda,
                             const hyt_chol_dev_params_t *params)
{
    static const char fn[] = "hyt_dpotrf_device";
    hyt_error_clear();
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
    if (!ctx)
        return hyt_error(HYT_ERR_INVALID, "%s: NULL context", fn);
    if (hyt_context_num_devices(ctx) < 1)
        return hyt_error(HYT_ERR_NOT_AVAILABLE, "%s: the context has no device (runtime.devices "
                         "= cuda, cuda:N or host:N): dA must be in device 0's memory", fn);
    if (n == 0)
        return 0;
    hyt_chol_dev_params_t p = *params;
    hyt_chol_params_device(ctx, n, &p);
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    const int nt = (n + p.nb - 1) / p.nb;
    const int pieces = (p.nb + HYT_CHOL_DEV_PIECE - 1) / HYT_CHOL_DEV_PIECE;
    const size_t ninfo = (size_t)nt * pieces;
    hyt_chol_dev_t D = {.device = 0, .uplo = u, .n = n, .ld = ldda, .nb = p.nb, .leaf = p.leaf,
                        .A = dA, .dinfo = NULL};
    hyt_tokens_t *tok = hyt_tokens_create((size_t)nt + 2);
    int *h_info = hyt_host_malloc(ctx, ninfo * sizeof *h_info);
    int rc = tok && h_info ? HYT_SUCCESS : hyt_error(HYT_ERR_NOMEM, "%s: out of memory", fn);
    if (!rc)
        rc = hyt_device_malloc(dev, (void **)&D.dinfo, ninfo * sizeof *D.dinfo);
    hyt_sequence_t *seq;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc)
        rc = hyt_sequence_finish(seq, hyt_pdpotrf_gpu(seq, &D, p.lookahead, tok, h_info));
    /* INFO: the first piece of the first step whose potf2 failed (every piece ran and wrote its
     * entry; piece q of step k starts at column k nb + q HYT_CHOL_DEV_PIECE) */
    for (size_t e = 0; e < ninfo && !rc; e++)
        if (h_info[e]) {
            rc = (int)(e / pieces) * p.nb + (int)(e % pieces) * HYT_CHOL_DEV_PIECE + h_info[e];
            break;
        }
    if (D.dinfo)
        hyt_device_free(dev, D.dinfo);
    hyt_host_free(ctx, h_info);
    hyt_tokens_destroy(tok);
    return hyt_error_return(fn, rc);
}
