/*
 * The Cholesky's tunables, the keys chol.nb and chol.lookahead, and their "auto" values (CPU
 * workers; measured on a 2-core VM at N = 4000, docs/performance.md):
 *   nb: 256 from n >= 3000, 128 from 600, else 64 (smaller tiles give idle workers work at the
 *       end of the factorization; larger ones a faster GEMM);
 *   lookahead: 1;
 *   panel (chol.panel, with devices): auto, gpu with CUDA devices (LAPACK-layout calls from
 *       gpu.min_n on, the CPU workers alone below it; tile calls whatever the size), else cpu;
 *   inv_rows (chol.inv_rows; the device panels' solve): auto, gpu_chol_trsm.c's defaults;
 *   tail (chol.tail; the GPU-only Cholesky's last trailing matrix): auto, dpotrf_gpu.c's;
 *   gemm_lt (chol.gemm_lt; the GPU-only Cholesky's trailing GEMMs): auto, dpotrf_gpu.c's;
 *   group (chol.group; the GPU-only Cholesky's panels per trailing update): auto,
 *       dpotrf_gpu.c's;
 *   overlap_steps (chol.overlap_steps; GPU panels with the columns arriving): auto,
 *       pdpotrf_hybrid.c's early_steps.
 */
#include "chol_internal.h"

#include <ctype.h>
#include <string.h>

/* The Cholesky's keys (read by hyt_chol_params below).  Keep in sync with the README's
 * configuration section. */
static const hyt_config_keydef_t chol_keys[] = {
    {{"chol.nb", "HYT_CHOL_NB", "auto",
      "Cholesky tile size nb (1..4096) of the LAPACK-layout calls; auto: 256 from N = 3000, "
      "128 from 600, else 64 (hyt_dpotrf_device: 1536 from N = 49152, 512 from 8192, else "
      "256)"},
     HYT_KEY_INT, 1, 4096, 1, 1, NULL},
    {{"chol.lookahead", "HYT_CHOL_LOOKAHEAD", "auto",
      "Cholesky lookahead depth (0..64): tile columns updated ahead of the rest; auto: 1 "
      "(with GPU panels a nonzero depth is at least the group of chol.group)"},
     HYT_KEY_INT, 0, 64, 1, 1, NULL},
    {{"chol.inv_rows", "HYT_CHOL_INV_ROWS", "auto",
      "device Cholesky panels (hyt_dpotrf_device, device matrices): the rows below a diagonal "
      "block from which their solve is GEMMs with the inverses of its diagonal blocks instead "
      "of a TRSM (1..2^30, 1: always); auto: 1"},
     HYT_KEY_INT, 1, 1L << 30, 1, 1, NULL},
    {{"chol.tail", "HYT_CHOL_TAIL", "auto",
      "hyt_dpotrf_device: once the trailing matrix is at most this order (0..2^30), it is "
      "factored in one call of the vendor's dpotrf (cusolverDnDpotrf); 0: never; auto: on "
      "CUDA devices the whole of a lower matrix up to 12288, else 0"},
     HYT_KEY_INT, 0, 1L << 30, 1, 1, NULL},
    {{"chol.gemm_lt", "HYT_CHOL_GEMM_LT", "auto",
      "hyt_dpotrf_device: 1: the trailing update's GEMMs through cublasLt (the first algorithm "
      "of its heuristic for each shape), 0: cublasDgemm; auto: 1 for lower on CUDA devices, "
      "else 0"},
     HYT_KEY_INT, 0, 1, 1, 1, NULL},
    {{"chol.group", "HYT_CHOL_GROUP", "auto",
      "hyt_dpotrf_device, device matrices and tile calls with GPU panels: each trailing update "
      "applies the panels of this many steps at once (1..4), so that its GEMMs have K = group x "
      "nb while the panels stay nb wide; auto: on CUDA devices 3 from n = 24576 (and for "
      "hyt_dpotrf_device 2 from 12288), else 1 (the LAPACK-layout calls through the devices on "
      "a lower array: 1)"},
     HYT_KEY_INT, 1, HYT_CHOL_MAX_GROUP, 1, 1, NULL},
    {{"chol.overlap_steps", "HYT_CHOL_OVERLAP_STEPS", "auto",
      "GPU panels, matrix arriving from the host during the factorization (the LAPACK-layout "
      "and tile calls): the first steps whose device updates are cut in pieces of about 4096 "
      "columns, each started as soon as its columns have arrived (0..100000; 0: none); auto: "
      "the steps that can overlap the loads (from the sizes), as many as 16 panel slots allow"},
     HYT_KEY_INT, 0, 100000, 1, 1, NULL},
    {{"chol.panel", "HYT_CHOL_PANEL", "auto",
      "where the Cholesky factors its diagonal tiles and panels with devices: gpu (every step "
      "on the devices: a LAPACK array streamed to a device matrix, a tile matrix's columns "
      "loaded and returned), cpu (the hybrid: CPU panels, updates on the devices), or auto "
      "(gpu with CUDA GPUs, cpu otherwise)"},
     HYT_KEY_STRING, 0, 0, 0, 1, hyt_drv_check_panel},
};

int hyt_chol_register_keys(void)
{
    return hyt_config_register(chol_keys, (int)(sizeof chol_keys / sizeof chol_keys[0]));
}

int hyt_chol_panel_gpu(hyt_context_t *ctx)
{
    const char *panel = hyt_config_get(hyt_context_config(ctx), "chol.panel", NULL);
    return !strcmp(panel, "gpu") || (!strcmp(panel, "auto") && hyt_drv_cuda(ctx));
}

void hyt_chol_params(hyt_context_t *ctx, int n, hyt_chol_params_t *p)
{
    const hyt_config_t *cfg = hyt_context_config(ctx);
    long nb = hyt_config_get_int(cfg, "chol.nb"), la = hyt_config_get_int(cfg, "chol.lookahead");
    if (p->nb <= 0)
        p->nb = nb > 0 ? (int)nb : n >= 3000 ? 256 : n >= 600 ? 128 : 64;
    if (p->lookahead < 0)
        p->lookahead = la >= 0 ? (int)la : 1;
    const int ndev = hyt_context_num_devices(ctx);
    if (!p->panel) {
        p->panel = hyt_chol_panel_gpu(ctx) ? 'g' : 'c';
        if (p->panel == 'g' && n < hyt_gpu_min_n(ctx, 'C'))
            p->panel = 'n';
    }
    if (!ndev)
        p->panel = 'c';
}

int hyt_chol_lapack_on_devices(hyt_context_t *ctx, int n)
{
    hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
    hyt_chol_params(ctx, n, &p);
    return p.panel == 'g';
}

char hyt_norm_uplo(char uplo)
{
    switch (uplo) {
    case 'L': case 'l': return 'L';
    case 'U': case 'u': return 'U';
    default: return 0;
    }
}

int hyt_chol_check_uplo(const char *func, int code, char uplo)
{
    if (hyt_norm_uplo(uplo))
        return 0;
    if (isprint((unsigned char)uplo))
        return hyt_error_arg(code, func, 1, "uplo", "is '%c', must be 'L' or 'U'", uplo);
    return hyt_error_arg(code, func, 1, "uplo", "is character %d, must be 'L' or 'U'",
                         (unsigned char)uplo);
}

/* A descriptor argument i of a tile call: given, a descriptor, with storage (-i if not, as
 * the LU's tile calls and LAPACK). */
static int check_desc(const char *func, int i, const char *name, const hyt_desc_t *X)
{
    if (!X)
        return hyt_error_arg(-i, func, i, name, "is NULL");
    if (X->m < 0 || X->n < 0 || X->nb < 1)
        return hyt_error_arg(-i, func, i, name, "is not a matrix descriptor (m %d, n %d, nb %d)",
                             X->m, X->n, X->nb);
    if (X->m && X->n && !X->mat)
        return hyt_error_arg(-i, func, i, name, "has no storage (%s->mat is NULL)", name);
    return 0;
}

int hyt_chol_check_tiles(const char *func, char uplo, const hyt_desc_t *A, int solve,
                         const hyt_desc_t *B)
{
    int rc = hyt_chol_check_uplo(func, -1, uplo);
    if (!rc)
        rc = check_desc(func, 2, "A", A);
    if (!rc && A->m != A->n)
        rc = hyt_error_arg(-2, func, 2, "A", "is %d x %d, must be square", A->m, A->n);
    if (rc || !solve)
        return rc;
    rc = check_desc(func, 3, "B", B);
    if (!rc && B->m != A->n)
        rc = hyt_error_arg(-3, func, 3, "B", "has %d rows, A has %d", B->m, A->n);
    if (!rc && B->nb != A->nb)
        rc = hyt_error_arg(-3, func, 3, "B", "has tile size %d, A has %d", B->nb, A->nb);
    return rc;
}
