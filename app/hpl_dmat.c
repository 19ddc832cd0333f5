/*
 * HPL's run with the matrix on the devices (hyt_hpl_solve_dmat): nothing of A crosses to the
 * host.
 *
 *   generate   each device its columns of A (hyt_gpu_dplghpl, the hybrid LU's layout is the
 *              device matrix's); device 0 also b, scattered into B's CRRB column
 *   timed      hyt_dgetrf_dmat_async + hyt_dgetrs_dmat_async in one sequence (HPL's time is
 *              factor + solve)
 *   check      x from B's column to a plain vector on device 0, copied to the other devices;
 *              each device A x and the row sums of |A| over its columns, A regenerated
 *              (hyt_gpu_hpl_matvec); the parts to device 0, the norms there (hyt_gpu_hpl_norms),
 *              four numbers to the host
 *
 * Work buffers, n doubles each: device 0 holds b, x, the ax and |A| row-sum parts of every
 * device and the norms; another device x, ax and its row sums.
 */
#include "cli_common.h"
#include "hyt_gpu_kernels.h"
#include "hyt_hybrid.h"
#include "hyt_insert.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hpl_dev {
    hyt_dmat_t *A, *B;
    int n, nb, ndev, seed;
    double **work;   /* ndev */
    double *h_norms; /* 4, host */
} hpl_dev_t;

static double *w_b(const hpl_dev_t *h) { return h->work[0]; }
static double *w_x(const hpl_dev_t *h, int g) { return h->work[g] + (g ? 0 : h->n); }
static double *w_ax(const hpl_dev_t *h, int g, int part)
{
    return g ? h->work[g] + h->n : h->work[0] + (int64_t)(2 + part) * h->n;
}
static double *w_arow(const hpl_dev_t *h, int g, int part)
{
    return g ? h->work[g] + 2 * (int64_t)h->n : h->work[0] + (int64_t)(2 + h->ndev + part) * h->n;
}
static double *w_norms(const hpl_dev_t *h)
{
    return h->work[0] + (int64_t)(2 + 2 * h->ndev) * h->n;
}

/* ---- the device tasks: one kernel, the step in the arguments ------------------------------- */

enum { GEN, BSET, XGET, XPEER, MATVEC, GATHER, NORMS };

typedef struct step_args {
    const hpl_dev_t *h;
    int what, g;
} step_args_t;

static int step_body(const hyt_devctx_t *dc, void *p)
{
    const step_args_t *s = p;
    const hpl_dev_t *h = s->h;
    const int n = h->n, nb = h->nb, g = s->g;
    const size_t d = sizeof(double);
    int rc = 0;
    switch (s->what) {
    case GEN:
        return hyt_gpu_dplghpl(dc, h->A->cols[g], n, nb, h->ndev, g, h->seed,
                               g ? NULL : w_b(h));
    case BSET: /* b into B's column: element i at i * nb */
        rc = hyt_dev_memset(dc, h->B->cols[0], 0, (size_t)h->B->colsz * d);
        return rc ? rc : hyt_dev_memcpy2d(dc, h->B->cols[0], nb * d, w_b(h), d, d, n, 2);
    case XGET:
        return hyt_dev_memcpy2d(dc, w_x(h, 0), d, h->B->cols[0], nb * d, d, n, 2);
    case XPEER:
        return hyt_dev_memcpy_d2d(dc, w_x(h, g), w_x(h, 0), n * d);
    case MATVEC:
        return hyt_gpu_hpl_matvec(dc, n, nb, h->ndev, g, h->seed, w_x(h, g), w_ax(h, g, 0),
                                  w_arow(h, g, 0));
    case GATHER:
        rc = hyt_dev_memcpy_d2d(dc, w_ax(h, 0, g), w_ax(h, g, 0), n * d);
        return rc ? rc : hyt_dev_memcpy_d2d(dc, w_arow(h, 0, g), w_arow(h, g, 0), n * d);
    case NORMS:
        rc = hyt_gpu_hpl_norms(dc, n, h->ndev, w_ax(h, 0, 0), w_arow(h, 0, 0), w_x(h, 0),
                               w_b(h), w_norms(h));
        return rc ? rc : hyt_dev_memcpy_d2h(dc, h->h_norms, w_norms(h), 4 * d);
    }
    return HYT_ERR_INVALID;
}

static const hyt_kernel_t step_kernel = {.name = "hpl_dev", .dev = step_body,
                                         .cat = HYT_CAT_GPU};

static int insert_step(hyt_sequence_t *seq, const hpl_dev_t *h, int what, int g, int dev,
                       int stream, const hyt_dep_t *deps, int ndeps)
{
    step_args_t args = {h, what, g};
    hyt_task_desc_t d = hyt_tagged_desc(&step_kernel, &args, sizeof args, deps, ndeps,
                                        (hyt_tag_t){0, what, -1, g});
    d.device = dev;
    d.stream = stream;
    return hyt_task_insert(seq, &d);
}

/* the work buffers of device g as a dependency key */
static const void *wkey(const hpl_dev_t *h, int g) { return &h->work[g]; }

static int insert_generate(hyt_sequence_t *seq, const hpl_dev_t *h)
{
    int rc = 0;
    hyt_dep_t *deps = malloc((size_t)(h->A->nt + 2) * sizeof *deps);
    if (!deps)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    for (int g = 0; g < h->ndev && !rc; g++) {
        int nd = 0;
        for (int j = g; j < h->A->nt; j += h->ndev)
            deps[nd++] = (hyt_dep_t){hyt_dmat_col_key(h->A, j), HYT_WRITE};
        deps[nd++] = (hyt_dep_t){wkey(h, g), HYT_WRITE};
        rc = insert_step(seq, h, GEN, g, g, HYT_STREAM_COMPUTE, deps, nd);
    }
    hyt_dep_t bd[2] = {{wkey(h, 0), HYT_READ}, {hyt_dmat_col_key(h->B, 0), HYT_WRITE}};
    if (!rc)
        rc = insert_step(seq, h, BSET, 0, 0, HYT_STREAM_COMPUTE, bd, 2);
    free(deps);
    return rc;
}

static int insert_check(hyt_sequence_t *seq, const hpl_dev_t *h)
{
    hyt_dep_t xd[2] = {{hyt_dmat_col_key(h->B, 0), HYT_READ}, {wkey(h, 0), HYT_RW}};
    int rc = insert_step(seq, h, XGET, 0, 0, HYT_STREAM_COMPUTE, xd, 2);
    for (int g = 1; g < h->ndev && !rc; g++) {
        hyt_dep_t pd[2] = {{wkey(h, 0), HYT_READ}, {wkey(h, g), HYT_RW}};
        rc = insert_step(seq, h, XPEER, g, g, HYT_STREAM_H2D, pd, 2);
    }
    for (int g = 0; g < h->ndev && !rc; g++) {
        hyt_dep_t md = {wkey(h, g), HYT_RW};
        rc = insert_step(seq, h, MATVEC, g, g, HYT_STREAM_COMPUTE, &md, 1);
    }
    for (int g = 1; g < h->ndev && !rc; g++) {
        hyt_dep_t gd[2] = {{wkey(h, g), HYT_READ}, {wkey(h, 0), HYT_RW}};
        rc = insert_step(seq, h, GATHER, g, 0, HYT_STREAM_H2D, gd, 2);
    }
    hyt_dep_t nd = {wkey(h, 0), HYT_RW};
    if (!rc)
        rc = insert_step(seq, h, NORMS, 0, 0, HYT_STREAM_COMPUTE, &nd, 1);
    return rc;
}

static void hpl_dev_free(hyt_context_t *ctx, hpl_dev_t *h)
{
    for (int g = 0; h->work && g < h->ndev; g++)
        hyt_device_free(hyt_context_device(ctx, g), h->work[g]);
    free(h->work);
    hyt_dmat_destroy(h->A);
    hyt_dmat_destroy(h->B);
}

/* Device g's work buffers (above). */
static size_t work_bytes(int n, int ndev, int g)
{
    return (size_t)n * sizeof(double) * (g ? 3 : 2 + 2 * (size_t)ndev) + 4 * sizeof(double);
}

/* Whether a run of order n, tile size nb fits: on every device A's and B's columns, the work
 * buffers, the LU's workspace and the solve's (allocated while the LU's is: one sequence),
 * with 1/64 of it to spare (allocation granularity). */
static int dmat_fits(hyt_context_t *ctx, int n, int nb, size_t *lu)
{
    const int ndev = hyt_context_num_devices(ctx);
    if (hyt_lu_dmat_workspace(ctx, n, n, nb, lu))
        return 0;
    for (int g = 0; g < ndev; g++) {
        size_t need = hyt_dmat_alloc_bytes(n, n, nb, ndev, g) +
                      hyt_dmat_alloc_bytes(n, 1, nb, ndev, g) +
                      hyt_device_alloc_bytes(work_bytes(n, ndev, g)) + lu[g] +
                      hyt_dmat_trs_bytes(n, 1, nb, ndev, g, 1);
        if (need + need / 64 > hyt_device_mem_available(hyt_context_device(ctx, g)))
            return 0;
    }
    return 1;
}

int hyt_hpl_dmat_max_n(hyt_context_t *ctx, int n, int step)
{
    const int ndev = hyt_context_num_devices(ctx);
    size_t *lu = ndev > 0 && step > 0 ? calloc((size_t)ndev, sizeof *lu) : NULL;
    hyt_lu_params_t p;
    n -= lu ? n % step : n;
    while (n > 0 && (hyt_lu_params(ctx, n, n, &p) || !dmat_fits(ctx, n, p.nb, lu)))
        n -= step;
    free(lu);
    return n > 0 ? n : 0;
}

int hyt_hpl_solve_dmat(hyt_context_t *ctx, int n, int nb, int seed, double threshold, int flags,
                       hyt_hpl_result_t *res)
{
    memset(res, 0, sizeof *res);
    res->residual = NAN;
    const int ndev = hyt_context_num_devices(ctx);
    if (ndev < 1 || n < 1)
        return hyt_error(HYT_ERR_INVALID, "HPL on the devices: %d devices, N = %d", ndev, n);
    double norms[4] = {NAN, NAN, NAN, NAN};
    hpl_dev_t h = {.n = n, .nb = nb, .ndev = ndev, .seed = seed, .h_norms = norms};
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    size_t *need = calloc((size_t)ndev, sizeof *need);
    h.work = calloc((size_t)ndev, sizeof *h.work);
    int rc = ipiv && need && h.work ? 0 : hyt_error(HYT_ERR_NOMEM, "out of memory");
    // the matrices, then the work buffers (checked first)
    if (!rc)
        rc = hyt_dmat_create(ctx, n, n, nb, &h.A);
    if (!rc)
        rc = hyt_dmat_create(ctx, n, 1, nb, &h.B);
    for (int g = 0; g < ndev && need; g++)
        need[g] = work_bytes(n, ndev, g);
    char what[96];
    snprintf(what, sizeof what, "HPL's check of N = %d on the devices", n);
    if (!rc)
        rc = hyt_hybrid_check_memory(ctx, ndev, need, what);
    for (int g = 0; g < ndev && !rc; g++)
        rc = hyt_device_malloc(hyt_context_device(ctx, g), (void **)&h.work[g], need[g]);
    free(need);
    hyt_sequence_t *seq = NULL;
    if (!rc && !(rc = hyt_sequence_create(ctx, &seq)))
        rc = hyt_sequence_finish(seq, insert_generate(seq, &h));

    // factor and solve, timed
    int info = 0;
    double t0 = hyt_wtime();
    if (!rc && (flags & HYT_HPL_TRACE))
        hyt_trace_start(ctx, 0);
    if (!rc && !(rc = hyt_sequence_create(ctx, &seq))) {
        int r2 = hyt_dgetrf_dmat_async(seq, h.A, ipiv, &info);
        if (!r2)
            r2 = hyt_dgetrs_dmat_async(seq, 'N', h.A, ipiv, h.B);
        rc = hyt_sequence_finish(seq, r2);
    }
    res->seconds = hyt_wtime() - t0;
    if (flags & HYT_HPL_TRACE)
        hyt_trace_stop(ctx);

    // the check by regeneration, on the devices
    if (!rc && !(rc = hyt_sequence_create(ctx, &seq)))
        rc = hyt_sequence_finish(seq, insert_check(seq, &h));
    hpl_dev_free(ctx, &h);
    free(ipiv);
    if (rc)
        return rc;
    double nn = n;
    res->info = info;
    res->gflops = (2.0 / 3.0 * nn * nn * nn + 1.5 * nn * nn) / res->seconds * 1e-9;
    res->rnorm = norms[0];
    res->anorm = norms[1];
    res->xnorm = norms[2];
    res->bnorm = norms[3];
    res->residual = hyt_hpl_scaled_residual(norms, n);
    res->passed = info == 0 && res->residual < threshold; /* NaN compares false */
    return 0;
}

int hyt_hpl_on_devices(hyt_context_t *ctx)
{
    return hyt_context_num_devices(ctx) > 0 &&
           hyt_device_backend(hyt_context_device(ctx, 0)) == HYT_BACKEND_CUDA;
}
