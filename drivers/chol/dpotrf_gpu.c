/* hyt_dpotrf_device: the Cholesky factorization of a matrix already in the memory of the
 * context's first device (a column-major device pointer, as cusolverDnDpotrf takes it), in
 * place, with no host copy of A: the GPU-only loop nest (pdpotrf_gpu.c).  Synchronous, with
 * LAPACK's argument checks and INFO. */
#include "chol_internal.h"
#include "hyt_gpu_kernels.h"

int hyt_dpotrf_device(hyt_context_t *ctx, char uplo, int n, double *dA, int ldda)
{
    hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
    return hyt_dpotrf_device_params(ctx, uplo, n, dA, ldda, &p);
}

void hyt_chol_params_device(hyt_context_t *ctx, int n, hyt_chol_params_t *p)
{
    const hyt_config_t *cfg = hyt_context_config(ctx);
    long nb = hyt_config_get_int(cfg, "chol.nb"), la = hyt_config_get_int(cfg, "chol.lookahead");
    if (p->nb <= 0)
        p->nb = nb > 0 ? (int)nb : n >= 8192 ? 512 : 256;
    if (p->nb > HYT_DPOTF2_MAX_N)
        p->nb = HYT_DPOTF2_MAX_N;
    if (p->lookahead < 0)
        p->lookahead = la >= 0 ? (int)la : 1;
}

int hyt_dpotrf_device_params(hyt_context_t *ctx, char uplo, int n, double *dA, int ldda,
                             const hyt_chol_params_t *params)
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
    if (u == 'U')
        return hyt_error(HYT_ERR_NOT_AVAILABLE, "%s: uplo 'U' is not supported yet (the device "
                         "Cholesky factors the lower triangle: store A in it and pass 'L')", fn);
    if (hyt_context_num_devices(ctx) < 1)
        return hyt_error(HYT_ERR_NOT_AVAILABLE, "%s: the context has no device (runtime.devices "
                         "= cuda, cuda:N or host:N): dA must be in device 0's memory", fn);
    if (n == 0)
        return 0;
    hyt_chol_params_t p = *params;
    hyt_chol_params_device(ctx, n, &p);
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    const int nt = (n + p.nb - 1) / p.nb;
    hyt_chol_dev_t D = {.device = 0, .n = n, .ld = ldda, .nb = p.nb, .A = dA, .dinfo = NULL};
    hyt_tokens_t *tok = hyt_tokens_create((size_t)nt + 2);
    int *h_info = hyt_host_malloc(ctx, (size_t)nt * sizeof *h_info);
    int rc = tok && h_info ? HYT_SUCCESS : hyt_error(HYT_ERR_NOMEM, "%s: out of memory", fn);
    if (!rc)
        rc = hyt_device_malloc(dev, (void **)&D.dinfo, (size_t)nt * sizeof *D.dinfo);
    hyt_sequence_t *seq;
    if (!rc)
        rc = hyt_sequence_create(ctx, &seq);
    if (!rc)
        rc = hyt_sequence_finish(seq, hyt_pdpotrf_gpu(seq, &D, p.lookahead, tok, h_info));
    /* INFO: the first step whose potf2 failed (every step's potf2 ran and wrote its entry) */
    for (int k = 0; k < nt && !rc; k++)
        if (h_info[k]) {
            rc = k * p.nb + h_info[k];
            break;
        }
    if (D.dinfo)
        hyt_device_free(dev, D.dinfo);
    hyt_host_free(ctx, h_info);
    hyt_tokens_destroy(tok);
    return hyt_error_return(fn, rc);
}
