/*
 * The HPL run that `hytile hpl` prints and `hytile tune` times: HPL's matrix and right-hand
 * side, the factorization and solve, HPL's scaled residual (hyt_hpl_solve), with a progress
 * line on stderr while it factors; the memory a run needs and the size that takes a given
 * time (moved from cmd_hpl.c).
 */
#include "cli_common.h"
#include "config.h"
#include "hytile_cli.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CMD "hytile hpl"

/* ------------------------------------------------------------------------------------------ */
/* progress on stderr while a run factors                                                      */

typedef struct progress {
    hyt_context_t *ctx;
    double n, t0;
    int tty;
    int shown;          /* a live line is on the terminal */
    double last_plain;  /* elapsed time of the last plain line */
    int stop;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t thread;
} progress_t;

/* "step k/kt  elapsed ...  rate ...  ETA ..." from the panels done: after a fraction f of the
 * steps, the flops left are those of the trailing (n(1-f))^2 matrix. */
static void progress_line(progress_t *p, long k, long kt, double elapsed, char *buf, size_t len)
{
    double total = 2.0 / 3.0 * p->n * p->n * p->n;
    double left_n = p->n * (1.0 - (double)k / (double)kt);
    double left = 2.0 / 3.0 * left_n * left_n * left_n, done = total - left;
    if (done > 0 && elapsed > 0)
        snprintf(buf, len, "step %ld/%ld  elapsed %.1f s  rate %.1f GFLOP/s  ETA %.1f s", k, kt,
                 elapsed, done / elapsed * 1e-9, left / (done / elapsed));
    else
        snprintf(buf, len, "step %ld/%ld  elapsed %.1f s", k, kt, elapsed);
}

static void *progress_main(void *arg)
{
    progress_t *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 500000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cond, &p->lock, &ts);
        if (p->stop)
            break;
        long done, total;
        hyt_progress_get(p->ctx, &done, &total);
        double elapsed = hyt_wtime() - p->t0;
        if (total <= 0)
            continue; /* the factorization has not started counting */
        char line[160];
        progress_line(p, done, total, elapsed, line, sizeof line);
        if (p->tty) {
            fprintf(stderr, "\r  %s\033[K", line);
            p->shown = 1;
        } else if (elapsed - p->last_plain >= 10.0) {
            fprintf(stderr, "%s: N = %.0f: %s\n", CMD, p->n, line);
            p->last_plain = elapsed;
        }
    }
    if (p->shown)
        fputs("\r\033[K", stderr); /* leave the terminal line clean for the results */
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static int progress_start(progress_t *p, hyt_context_t *ctx, int n, double t0)
{
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->n = n;
    p->t0 = t0;
    p->tty = isatty(2);
    hyt_progress_reset(ctx, 0);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    if (pthread_create(&p->thread, NULL, progress_main, p)) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->cond);
        return -1; /* no progress display; the run goes on */
    }
    return 0;
}

static void progress_stop(progress_t *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
}

/* ------------------------------------------------------------------------------------------ */
/* the HPL run                                                                                 */

double hyt_hpl_bytes(int n, int nb)
{
    double mt = ceil((double)n / nb);
    return (mt * mt + mt) * nb * (double)nb * sizeof(double) /* A and B in tiles */
           + (double)n * (3 * sizeof(double) + sizeof(int));  /* b, x, r, ipiv */
}

int hyt_hpl_ws_create(hyt_context_t *ctx, int n, int nb, hyt_hpl_ws_t *ws)
{
    memset(ws, 0, sizeof *ws);
    ws->ctx = ctx;
    ws->n = n;
    ws->nb = nb;
    int rc = hyt_desc_create(ctx, n, n, nb, &ws->A);
    if (!rc)
        rc = hyt_desc_create(ctx, n, 1, nb, &ws->B);
    ws->ipiv = malloc((size_t)n * sizeof *ws->ipiv);
    ws->b = malloc((size_t)n * sizeof *ws->b);
    ws->x = malloc((size_t)n * sizeof *ws->x);
    ws->r = malloc((size_t)n * sizeof *ws->r);
    if (rc || !ws->ipiv || !ws->b || !ws->x || !ws->r) {
        hyt_hpl_ws_destroy(ws);
        return hyt_error(rc == HYT_ERR_TOO_LARGE ? rc : HYT_ERR_NOMEM,
                         "not enough memory for N = %d (%.1f GiB)", n,
                         hyt_hpl_bytes(n, nb) / (1 << 30));
    }
    return 0;
}

void hyt_hpl_ws_destroy(hyt_hpl_ws_t *ws)
{
    hyt_desc_destroy(&ws->A);
    hyt_desc_destroy(&ws->B);
    free(ws->ipiv);
    free(ws->b);
    free(ws->x);
    free(ws->r);
    memset(ws, 0, sizeof *ws);
}

/* The n x 1 tile matrix B into a plain vector. */
static void column_of(const hyt_desc_t *B, double *v)
{
    for (int i = 0; i < B->mt; i++)
        memcpy(v + (size_t)i * B->nb, hyt_tile(B, i, 0), (size_t)hyt_tile_mb(B, i) * sizeof *v);
}

static double max_abs(const double *v, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        if (isnan(v[i]) || fabs(v[i]) > m)
            m = isnan(v[i]) ? v[i] : fabs(v[i]);
    return m;
}

int hyt_hpl_solve(hyt_hpl_ws_t *ws, int seed, double threshold, int flags,
                  hyt_hpl_result_t *res)
{
    hyt_context_t *ctx = ws->ctx;
    const int n = ws->n;
    hyt_sequence_t *seq;
    memset(res, 0, sizeof *res);
    res->residual = NAN;

    // generate A = columns 0..n-1 and b = column n of HPL's n x (n+1) matrix
    int rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    rc = hyt_dplghpl_tile_async(seq, &ws->A, 0, seed);
    if (!rc)
        rc = hyt_dplghpl_tile_async(seq, &ws->B, n, seed);
    if ((rc = hyt_sequence_finish(seq, rc)))
        return rc;
    column_of(&ws->B, ws->b);

    // factor and solve, timed (and traced)
    progress_t prog;
    int show = (flags & HYT_HPL_PROGRESS) != 0;
    int info = 0;
    double t0 = hyt_wtime();
    if (show && progress_start(&prog, ctx, n, t0))
        show = 0;
    if (flags & HYT_HPL_TRACE)
        hyt_trace_start(ctx, 0);
    rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        rc = hyt_dgetrf_tile_async(seq, &ws->A, ws->ipiv, &info);
        if (!rc)
            rc = hyt_dgetrs_tile_async(seq, 'N', &ws->A, ws->ipiv, &ws->B);
        rc = hyt_sequence_finish(seq, rc);
    }
    res->seconds = hyt_wtime() - t0;
    if (flags & HYT_HPL_TRACE)
        hyt_trace_stop(ctx);
    if (show)
        progress_stop(&prog);
    if (rc)
        return rc;
    res->info = info;
    double nn = n;
    res->gflops = (2.0 / 3.0 * nn * nn * nn + 1.5 * nn * nn) / res->seconds * 1e-9;
    column_of(&ws->B, ws->x);

    // r = b - A x with A regenerated, ||A||_oo
    memcpy(ws->r, ws->b, (size_t)n * sizeof *ws->r);
    if ((rc = hyt_sequence_create(ctx, &seq)))
        return rc;
    rc = hyt_dplghpl_tile_async(seq, &ws->A, 0, seed);
    if (!rc)
        rc = hyt_dgemv_tile_async(seq, -1.0, &ws->A, ws->x, 1.0, ws->r);
    if (!rc)
        rc = hyt_dlange_tile_async(seq, 'I', &ws->A, &res->anorm);
    if ((rc = hyt_sequence_finish(seq, rc)))
        return rc;
    res->rnorm = max_abs(ws->r, n);
    res->xnorm = max_abs(ws->x, n);
    res->bnorm = max_abs(ws->b, n);
    res->residual = res->rnorm / (DBL_EPSILON * (res->anorm * res->xnorm + res->bnorm) * nn);
    res->passed = info == 0 && res->residual < threshold; /* NaN compares false */
    return 0;
}

void hyt_hpl_tv(char *buf, size_t len, int lookahead, int panel_cores, int ndevices)
{
    snprintf(buf, len, "HYL%dP%dG%d", lookahead, panel_cores, ndevices);
}

int hyt_hpl_auto_n(hyt_context_t *ctx, double seconds, double *gflops_estimate)
{
    int ncuda = 0;
    double devmem = INFINITY;
    for (int d = 0; d < hyt_context_num_devices(ctx); d++) {
        hyt_device_t *dev = hyt_context_device(ctx, d);
        if (hyt_device_backend(dev) != HYT_BACKEND_CUDA)
            continue; /* host devices compute at CPU speed */
        ncuda++;
        double avail = (double)hyt_device_mem_available(dev);
        devmem = avail < devmem ? avail : devmem;
    }
    double rate = ncuda ? 30e12 * ncuda : 25e9 * hyt_context_num_workers(ctx);
    double n = cbrt(1.5 * rate * seconds); /* (2/3) n^3 / rate = seconds */
    /* with CUDA GPUs the matrix lives on them (hyt_hpl_solve_dmat): their memory decides */
    const char *fv = hyt_config_get(hyt_context_config(ctx), "hpl.memory_fraction", NULL);
    double frac = fv ? strtod(fv, NULL) : 0.7; /* checked: 0 < frac <= 0.95 */
    double cap = ncuda ? sqrt(frac * devmem * ncuda / sizeof(double))
                       : sqrt(0.4 * hyt_cli_phys_mem() / sizeof(double));
    cap = fmin(cap, 1e7);
    n = fmin(n, cap);
    long N = (long)(n / 256) * 256;
    /* and the workspaces beside it: with nb 1024 and lookahead 4, 10 tile columns of N rows on
     * one GPU, 13 on the first of several (189184 did not fit on four 80 GB GPUs at 0.85) */
    if (hyt_hpl_on_devices(ctx) && N >= 1000) {
        long fit = hyt_hpl_dmat_max_n(ctx, (int)N, 256);
        N = fit > 0 ? fit : N;
    }
    if (N < 1000)
        N = cap < 1000 ? (long)cap : 1000;
    if (N < 1)
        N = 1;
    *gflops_estimate = rate * 1e-9;
    return (int)N;
}
