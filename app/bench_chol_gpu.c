/*
 * hytile bench-gpu --chol: hytile's GPU-only Cholesky (hyt_dpotrf_device) against
 * cusolverDnDpotrf on the same SPD matrix, both device-resident on the same GPU in the same
 * run, lower and upper, each result checked before its rate is printed; and the cuBLAS DGEMM
 * rate at the trailing update's shapes, the ceiling both answer to.
 *
 *   hytile bench-gpu --chol N [N...] [--uplo L|U|L,U] [--nb NB[,NB...]] [--lookahead L[,L...]]
 *                    [--leaf W[,W...]] [--reps R] [--gemm] [--devices cuda:0|host:1]
 *                    [--no-peer] [--dmat] [--hybrid] [--mg-block B[,B...]] [--cold]
 *                    [--trace FILE]
 *
 * Per N and uplo: the uplo triangle of A (a_ij = u_ij in [-1, 1), a_ii = n + u_ii: diagonally
 * dominant, so SPD; the same symmetric matrix for both triangles; the other triangle zero) is
 * made once in page-locked host memory; each run copies it to the device (not timed) and
 * factors it there (timed: the call, synchronous, from the matrix on the device to the factor
 * on the device).  After the first run of each code and setting, the factor is checked where
 * it is: b = A x for a probe x (host), z = inv(F F^T) b by two triangular solves on the device
 * (they read the factor's triangle only), and on the host the solve residual
 *   ||b - A z||_oo / (||A||_oo ||z||_oo n eps)  < 16.
 * Rates are n^3 / 3 flops over the best time; the ratio is cuSOLVER's time over hytile's (> 1:
 * hytile faster).  Every combination of nb, lookahead and leaf runs (hyt_dpotrf_device's own
 * choice for those not given).  --gemm adds, per N and block size, cuBLAS DGEMM C -= A B^T
 * ('N', 'T': the lower update's GEMMs) and C -= A^T B ('T', 'N': the upper one's) with
 * M = N = n and n / 2, K = nb.  Exit 0 when every result passed, 1 otherwise, 2 on bad
 * input.  On host devices (--devices host:1) it runs the same task graph on the CPU, without
 * the peers: for checking the benchmark itself.
 *
 * --dmat: hytile's Cholesky of a device matrix instead (hyt_dpotrf_dmat: lower only; on every
 * device of --devices, 1D block-cyclic, e.g. --devices cuda:0,1; tile size --nb, else the
 * device defaults, hyt_chol_params_device's), set from the host before the clock starts; its
 * factor is checked the same way, brought to device 0 first.
 *
 * --hybrid: also hytile's hybrid Cholesky (hyt_dpotrf on the context's devices: diagonal tiles
 * and panels on the CPUs, the trailing update on the devices), timed host to host: the matrix
 * in host memory (LAPACK layout, copied from the original before the clock starts), the clock
 * around the call; its factor checked by the same solve, copied to device 0 first.  A row of
 * its own after the device-resident rows of each nb and lookahead (its nb and lookahead as
 * given, else hyt_dpotrf's own choice; leaf "-"), the ratio the peer's (device-resident) time
 * over its host-to-host time; then hyt_dpotrf with chol.panel = gpu, and hyt_dpotrf_tile on a
 * tile copy of the matrix (made before the clock starts) with chol.panel cpu and gpu, a row
 * each.  On host devices it runs there too (for checking the benchmark).
 *
 * --h2h: the host-to-host rows of the GPU panels alone (hyt_dpotrf with chol.panel = gpu and
 * hyt_dpotrf_tile with GPU panels, as with --hybrid, without the hybrid's rows), against the
 * peer host to host too on one CUDA device (hyt_peer_dpotrf_h2h: the peer's cudaMemcpy of the
 * whole matrix in, cusolverDnDpotrf, the copy out; its time on a "#" line), the ratio of those
 * rows the peer's host-to-host time over theirs.
 *
 * The peer: cusolverDnDpotrf on device 0; with several CUDA devices, when the rows measured
 * use them all (--dmat or --hybrid) and the triangle is lower, cusolverMgPotrf on the same
 * devices instead (hyt_peer_dpotrf_mg: a 1 x ndev grid, column blocks of B, from the host
 * matrix, timed between synchronizations of every device), once per block of --mg-block
 * (default 256 and 512), each block's best time and checked factor (to the host, then to
 * device 0) on a "#" line, the fastest block the one the rows compare with.
 */
#include "cli_common.h"
#include "hytile_cli.h"
#include "bench_common.h"

#include "chol_internal.h"
#include "hyt_gpu_kernels.h"
#include "hytile.h"
#include "peer_chol.h"
#include "peer_cusolver.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- device tasks: copies between page-locked host memory and device 0, the solve ------------ */

typedef struct copy_args {
    void *dst;
    const void *src;
    size_t bytes;
    int d2h;
} copy_args_t;

static int copy_body(const hyt_devctx_t *dc, void *p)
{
    copy_args_t *a = p;
    int rc = a->d2h ? hyt_dev_memcpy_d2h(dc, a->dst, a->src, a->bytes)
                    : hyt_dev_memcpy_h2d(dc, a->dst, a->src, a->bytes);
    if (rc)
        hyt_sequence_fail(dc->seq, rc, "%s", hyt_last_error());
    return rc;
}

static int run_task(hyt_context_t *ctx, const hyt_kernel_t *kern, void *args, size_t size,
                    int stream)
{
    hyt_task_desc_t d = hyt_task_desc(kern, args, size);
    d.device = 0;
    d.stream = stream;
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    return rc ? rc : hyt_sequence_finish(seq, hyt_task_insert(seq, &d));
}

static int copy(hyt_context_t *ctx, void *dst, const void *src, size_t bytes, int d2h)
{
    static const hyt_kernel_t kern = {.name = "copy", .dev = copy_body, .cat = HYT_CAT_DMA};
    copy_args_t a = {dst, src, bytes, d2h};
    return run_task(ctx, &kern, &a, sizeof a, d2h ? HYT_STREAM_D2H : HYT_STREAM_H2D);
}

typedef struct solve_args {
    char uplo;
    int n;
    const double *F;
    double *z;
} solve_args_t;

/* z = inv(F F^T) z (lower: A = L L^T) or inv(F^T F) z (upper: A = U^T U), F the factor in the
 * uplo triangle of the n x n device matrix (leading dimension n). */
static int solve_body(const hyt_devctx_t *dc, void *p)
{
    const solve_args_t *a = p;
    const int low = a->uplo == 'L';
    int rc = hyt_gpu_dtrsm(dc, 'L', a->uplo, low ? 'N' : 'T', 'N', a->n, 1, 1.0, a->F, a->n,
                           a->z, a->n);
    if (!rc)
        rc = hyt_gpu_dtrsm(dc, 'L', a->uplo, low ? 'T' : 'N', 'N', a->n, 1, 1.0, a->F, a->n,
                           a->z, a->n);
    if (rc)
        hyt_sequence_fail(dc->seq, rc, "%s", hyt_last_error());
    return rc;
}

/* ---- the matrix and the check ---------------------------------------------------------------- */

static double unit(uint64_t i, uint64_t j)
{
    uint64_t s = (i * 0x9e3779b97f4a7c15ULL) ^ (j + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;
    s ^= s >> 31;
    s *= 0x94d049bb133111ebULL;
    s ^= s >> 29;
    return (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Blocks of columns (the matrix) or rows (the row sums) are CPU tasks on the context's
 * workers: on one thread the two take ~23 s at N = 98304 (docs/performance.md). */
enum { SPD_BLOCK = 512 };

typedef struct spd_args {
    double *A;        /* the matrix (make) */
    const double *cA; /* the matrix (row sums) */
    double *r;        /* the row sums */
    int n, lo, hi;    /* columns (make) or rows (row sums) lo..hi-1 */
    char uplo;
} spd_args_t;

/* Columns lo..hi-1 of the uplo triangle of one symmetric matrix (the other triangle zero: never
 * referenced). */
static int spd_make_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const spd_args_t *a = p;
    const int64_t n = a->n;
    for (int64_t c = a->lo; c < a->hi; c++) {
        double *col = a->A + c * n;
        memset(col, 0, (size_t)n * sizeof *col);
        col[c] = n + unit(c, c);
        if (a->uplo == 'L')
            for (int64_t r = c + 1; r < n; r++)
                col[r] = unit(r, c);
        else
            for (int64_t r = 0; r < c; r++)
                col[r] = unit(c, r); /* A(r, c) = A(c, r) of the lower triangle */
    }
    return 0;
}

/* r[i] = sum_j |A(i, j)| of the symmetric matrix for the rows i = lo..hi-1, from its stored
 * triangle: row i's stored part (up to the diagonal for lower, from it for upper) and column
 * i's (below, above the diagonal). */
static int spd_rowsum_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const spd_args_t *a = p;
    const int64_t n = a->n, lo = a->lo, hi = a->hi;
    const double *A = a->cA;
    for (int64_t i = lo; i < hi; i++)
        a->r[i] = 0;
    if (a->uplo == 'L') {
        for (int64_t c = 0; c < hi; c++)
            for (int64_t i = c > lo ? c : lo; i < hi; i++)
                a->r[i] += fabs(A[i + c * n]);
        for (int64_t i = lo; i < hi; i++)
            for (int64_t k = i + 1; k < n; k++)
                a->r[i] += fabs(A[k + i * n]);
    } else {
        for (int64_t c = lo; c < n; c++)
            for (int64_t i = lo; i < hi && i <= c; i++)
                a->r[i] += fabs(A[i + c * n]);
        for (int64_t i = lo; i < hi; i++)
            for (int64_t k = 0; k < i; k++)
                a->r[i] += fabs(A[k + i * n]);
    }
    return 0;
}

static const hyt_kernel_t spd_make_kernel = {.name = "spd_make", .cpu = spd_make_body,
                                             .cat = HYT_CAT_OTHER};
static const hyt_kernel_t spd_rowsum_kernel = {.name = "spd_rowsum", .cpu = spd_rowsum_body,
                                               .cat = HYT_CAT_OTHER};

/* The blocks of n columns or rows, one task each on the context's workers; 0 or the error. */
static int spd_tasks(hyt_context_t *ctx, const hyt_kernel_t *kern, spd_args_t a)
{
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    for (int lo = 0; lo < a.n && !rc; lo += SPD_BLOCK) {
        a.lo = lo;
        a.hi = a.n - lo < SPD_BLOCK ? a.n : lo + SPD_BLOCK;
        hyt_task_desc_t d = hyt_task_desc(kern, &a, sizeof a);
        hyt_dep_t dep = {a.A ? (const void *)(a.A + (int64_t)lo * a.n) : (const void *)(a.r + lo),
                         HYT_WRITE};
        d.deps = &dep;
        d.ndeps = 1;
        rc = hyt_task_insert(seq, &d);
    }
    return hyt_sequence_finish(seq, rc);
}

static int make_spd(hyt_context_t *ctx, double *A, int n, char uplo)
{
    return spd_tasks(ctx, &spd_make_kernel, (spd_args_t){.A = A, .n = n, .uplo = uplo});
}

/* What the check of one (n, uplo) needs, made once: the probe x, b = A x, ||A||_oo. */
typedef struct probe {
    char uplo;
    int n;
    const double *A;
    double *x, *b, *z, *r;
    double anorm;
} probe_t;

static int probe_make(hyt_context_t *ctx, probe_t *q, const double *A, int n, char uplo)
{
    q->uplo = uplo;
    q->n = n;
    q->A = A;
    q->x = malloc((size_t)n * sizeof *q->x);
    q->b = malloc((size_t)n * sizeof *q->b);
    q->z = malloc((size_t)n * sizeof *q->z);
    q->r = calloc((size_t)n, sizeof *q->r);
    if (!q->x || !q->b || !q->z || !q->r)
        return hyt_error(HYT_ERR_NOMEM, "probe vectors of %d doubles", n);
    for (int i = 0; i < n; i++)
        q->x[i] = unit(i, (uint64_t)n + 7);
    cblas_dsymv(CblasColMajor, uplo == 'L' ? CblasLower : CblasUpper, n, 1.0, A, n, q->x, 1,
                0.0, q->b, 1);
    int rc = spd_tasks(ctx, &spd_rowsum_kernel, (spd_args_t){.cA = A, .r = q->r, .n = n,
                                                              .uplo = uplo});
    q->anorm = 0;
    for (int i = 0; i < n; i++)
        q->anorm = fmax(q->anorm, q->r[i]);
    return rc;
}

static void probe_free(probe_t *q)
{
    free(q->x);
    free(q->b);
    free(q->z);
    free(q->r);
}

/* The solve residual of the factor in dF (device, n x n, leading dimension n) through dz (n
 * device doubles), or NaN with rc set on a failure. */
static double residual(hyt_context_t *ctx, probe_t *q, const double *dF, double *dz, int *rc)
{
    static const hyt_kernel_t kern = {.name = "solve", .dev = solve_body, .cat = HYT_CAT_GPU};
    const int n = q->n;
    const size_t bytes = (size_t)n * sizeof(double);
    solve_args_t a = {q->uplo, n, dF, dz};
    *rc = copy(ctx, dz, q->b, bytes, 0);
    if (!*rc)
        *rc = run_task(ctx, &kern, &a, sizeof a, HYT_STREAM_COMPUTE);
    if (!*rc)
        *rc = copy(ctx, q->z, dz, bytes, 1);
    if (*rc)
        return NAN;
    memcpy(q->r, q->b, bytes); /* r = b - A z */
    cblas_dsymv(CblasColMajor, q->uplo == 'L' ? CblasLower : CblasUpper, n, -1.0, q->A, n, q->z,
                1, 1.0, q->r, 1);
    double rn = 0, zn = 0;
    for (int i = 0; i < n; i++) {
        zn = fmax(zn, fabs(q->z[i]));
        rn = isnan(q->r[i]) || isnan(rn) ? NAN : fmax(rn, fabs(q->r[i]));
    }
    return rn / (q->anorm * zn * n * DBL_EPSILON);
}

/* ---- the command --------------------------------------------------------------------------- */

static int usage(FILE *f)
{
    fprintf(f,
            "usage: hytile bench-gpu --chol N [N...] [--uplo L|U|L,U] [--nb NB[,NB...]]\n"
            "                        [--lookahead L[,L...]] [--leaf W[,W...]] [--reps R]\n"
            "                        [--gemm] [--devices cuda:0|host:1] [--no-peer] [--dmat]\n"
            "                        [--hybrid] [--mg-block B[,B...]] [--inv-rows R[,R...]]\n"
            "                        [--tail T[,T...]] [--gemm-lt G[,G...]]\n"
            "                        [--group G[,G...]] [--h2h] [--cold] [--trace FILE]\n"
            "  hytile's GPU-only Cholesky (hyt_dpotrf_device) against cusolverDnDpotrf on the\n"
            "  same SPD matrix, both on the GPU; best of R runs each (after an untimed one\n"
            "  the first time a code runs at an order and triangle; --cold: none), residuals\n"
            "  checked; every combination of the lists; --gemm: cuBLAS DGEMM rates at\n"
            "  M = N = n, n/2, K = nb.\n"
            "  --dmat: hyt_dpotrf_dmat (lower) on a device matrix over every device of\n"
            "  --devices instead.  --hybrid: also hytile's hybrid Cholesky (hyt_dpotrf: CPU\n"
            "  diagonal tiles, device updates), hyt_dpotrf through a device matrix, and\n"
            "  hyt_dpotrf_tile with chol.panel cpu and gpu, timed host to host, a row each.\n"
            "  The peer: cusolverDnDpotrf on device 0; with several CUDA devices and --dmat or\n"
            "  --hybrid (lower), cusolverMgPotrf on them all, each block of --mg-block (default\n"
            "  256,512), the fastest compared.  --inv-rows: chol.inv_rows (rows from which a\n"
            "  panel's solve is a GEMM with the inverse; auto, or a count, 1: always), a row\n"
            "  each.  --tail: chol.tail (the order from which the trailing matrix is factored\n"
            "  by one cusolverDnDpotrf; auto, or a count, 0: never), a row each.  --gemm-lt:\n"
            "  chol.gemm_lt (the trailing update's GEMMs through cublasLt: auto, 0 or 1), a\n"
            "  row each.  --group: chol.group (the panels each trailing update applies at\n"
            "  once: auto, or 1..4), a row each (and the host-to-host rows of --hybrid or\n"
            "  --h2h for each).  --h2h: only the GPU-panel rows of --hybrid, against the\n"
            "  peer host to host (its cudaMemcpy of the matrix in and out around\n"
            "  cusolverDnDpotrf).  --trace FILE: a Chrome trace of hytile's last run (the last\n"
            "  repetition of the last setting), for tools/trace_summary.py.\n");
    return f == stdout ? 0 : 2;
}

/* An option's value that parse_ints, parse_rows or the option's own rule refused: which one,
 * then the usage. */
static int bad_value(const char *opt, const char *value)
{
    fprintf(stderr, "hytile bench-gpu --chol: %s: '%s' is not a valid value\n", opt, value);
    return usage(stderr);
}

/* "1,2,3" or "1" into v (values 0..max); the count, or -1. */
static int parse_ints(const char *t, int *v, int room, long max)
{
    int k = 0;
    while (*t && k < room) {
        char *end;
        long x = strtol(t, &end, 10);
        if (end == t || x < 0 || x > max || (*end && *end != ','))
            return -1;
        v[k++] = (int)x;
        t = *end ? end + 1 : end;
    }
    return *t ? -1 : k;
}

/* "auto,1,16384" into v (auto: auto_value, else min..2^30); the count, or -1. */
static int parse_rows(const char *t, int *v, int room, int auto_value, int min)
{
    int k = 0;
    while (*t && k < room) {
        const char *end = strchr(t, ',');
        size_t len = end ? (size_t)(end - t) : strlen(t);
        if (len == 4 && !strncmp(t, "auto", 4))
            v[k++] = auto_value;
        else {
            char num[16];
            if (len < 1 || len >= sizeof num)
                return -1;
            memcpy(num, t, len);
            num[len] = 0;
            if (parse_ints(num, v + k, 1, 1L << 30) != 1 || v[k] < min)
                return -1;
            k++;
        }
        t = end ? end + 1 : t + len;
    }
    return *t ? -1 : k;
}

/* cuBLAS DGEMM at M = N = n and n / 2, K = nb, both transpositions the Cholesky uses. */
static void gemm_rates(int device, int n, int nb, int reps)
{
    for (int h = 1; h <= 2; h++)
        for (int t = 0; t < 2; t++) {
            const int m = n / h;
            double sec = NAN;
            const char ta = t ? 'T' : 'N', tb = t ? 'N' : 'T';
            if (hyt_peer_dgemm_time(device, ta, tb, m, m, nb, reps, &sec))
                fprintf(stderr, "dgemm %d x %d x %d: %s\n", m, m, nb, hyt_last_error());
            else
                printf("# dgemm %c%c  m = n = %6d  k = %4d | %9.5f s %7.2f TFLOP/s\n", ta, tb, m,
                       nb, sec, 2.0 * m * m * nb / sec * 1e-12);
        }
    fflush(stdout);
}

/* ---- the timed runs: every code the same loop ------------------------------------------------ */

/* The codes (code_t below) that have run at one order and triangle. */
typedef struct warm {
    const struct code *code[8];
    int n;
} warm_t;

/* What the runs of one (n, uplo) work on: the matrix H (page-locked host, n x n); F (page-locked
 * host n x n, or NULL when no code needs it: a factor on its way to device 0, the hybrid's
 * matrix); on device 0 dA (the matrix, then the factor checked) and dz (the solve's vector). */
typedef struct bench {
    hyt_context_t *ctx;
    probe_t *q;
    const double *H;
    double *F, *dA, *dz;
    int reps;
    warm_t *warm; /* the codes that have run at this order and triangle (best_of); NULL:
                   * --cold, every run timed */
    int trace;    /* --trace: record each hytile code's last run (the last one recorded is
                   * written at the end) */
} bench_t;

/* One code, a run in three steps on its parameters p: set its input (not timed; NULL: none);
 * factor it (*info its INFO; first: the run that is checked); after the first run, fetch the
 * factor to dA (NULL: it is there).  peer: NULL for hytile's calls, timed by the clock around
 * factor (synchronous), their negative INFO their error code (the message set); else the
 * peer's name for INFO's message, and factor sets *sec, the peer's call alone. */
typedef struct code {
    const char *peer;
    int (*set)(const bench_t *b, void *p);
    int (*factor)(const bench_t *b, void *p, int first, double *sec, int *info);
    int (*fetch)(const bench_t *b, void *p);
} code_t;

/* Code c with p: best of b->reps runs (*best), the first run's factor checked (*res); stops at
 * the first error.  0 or the error.  The first time c runs at this order and triangle, one
 * run before them is not timed: that run loads the kernels the code launches at these sizes
 * and makes its handles and workspaces (on one H200 it took 1.5-16% longer than the next at n
 * = 40960-65536, 2026-12-02), so that with --reps 1 the first setting of the lists would
 * otherwise lose to the others (--cold: no such run). */
static int best_of(const bench_t *b, const code_t *c, void *p, double *best, double *res)
{
    int rc = 0, warm = b->warm != NULL;
    for (int i = 0; warm && i < b->warm->n; i++)
        warm &= b->warm->code[i] != c;
    if (warm && b->warm->n < (int)(sizeof b->warm->code / sizeof b->warm->code[0]))
        b->warm->code[b->warm->n++] = c;
    for (int r = warm ? -1 : 0; r < b->reps && !rc; r++) {
        double t = NAN;
        int info = 0;
        rc = c->set ? c->set(b, p) : 0;
        const int tr = b->trace && !c->peer && r == b->reps - 1;
        if (tr)
            hyt_trace_start(b->ctx, 0);
        const double t0 = hyt_wtime();
        if (!rc)
            rc = c->factor(b, p, r == 0, &t, &info);
        if (tr)
            hyt_trace_stop(b->ctx);
        if (r < 0 && !rc) /* the warm-up: its errors count, its INFO is the first run's */
            continue;
        if (!c->peer)
            t = hyt_wtime() - t0;
        if (!rc && info && c->peer)
            rc = hyt_error(HYT_ERR_TASK, "%s: info %d", c->peer, info);
        else if (!rc && info)
            rc = info < 0 ? info : hyt_error(HYT_ERR_TASK, "info %d", info);
        if (!rc && r == 0 && c->fetch)
            rc = c->fetch(b, p);
        if (!rc && r == 0)
            *res = residual(b->ctx, b->q, b->dA, b->dz, &rc);
        if (!rc)
            *best = isnan(*best) ? t : fmin(*best, t);
    }
    return rc;
}

static size_t matrix_bytes(const bench_t *b)
{
    return (size_t)b->q->n * b->q->n * sizeof(double);
}

static int set_dA(const bench_t *b, void *p) /* H to dA */
{
    (void)p;
    return copy(b->ctx, b->dA, b->H, matrix_bytes(b), 0);
}

static int set_F(const bench_t *b, void *p) /* H to F */
{
    (void)p;
    memcpy(b->F, b->H, matrix_bytes(b));
    return 0;
}

static int fetch_F(const bench_t *b, void *p) /* F to dA */
{
    (void)p;
    return copy(b->ctx, b->dA, b->F, matrix_bytes(b), 0);
}

/* hytile's GPU-only Cholesky of dA; p: its hyt_chol_dev_params_t. */
static int factor_device(const bench_t *b, void *p, int first, double *sec, int *info)
{
    (void)first, (void)sec;
    *info = hyt_dpotrf_device_params(b->ctx, b->q->uplo, b->q->n, b->dA, b->q->n, p);
    return 0;
}

/* hyt_dpotrf_dmat (lower) on p, the device matrix over all the context's devices. */
static int set_dmat(const bench_t *b, void *p)
{
    return hyt_dmat_set(p, b->H, b->q->n);
}

static int factor_dmat(const bench_t *b, void *p, int first, double *sec, int *info)
{
    (void)first, (void)sec;
    *info = hyt_dpotrf_dmat(b->ctx, p);
    return 0;
}

static int fetch_dmat(const bench_t *b, void *p) /* the factor to dA, column-major */
{
    const int n = b->q->n;
    if (hyt_context_num_devices(b->ctx) == 1)
        return hyt_dmat_get_device(p, b->dA, n);
    int rc = hyt_dmat_get(p, b->F, n);
    return rc ? rc : fetch_F(b, p);
}

/* hytile's hybrid Cholesky (hyt_dpotrf on the context's devices) host to host, on F; p: its
 * hyt_chol_params_t. */
static int factor_hybrid(const bench_t *b, void *p, int first, double *sec, int *info)
{
    (void)first, (void)sec;
    *info = hyt_dpotrf_params(b->ctx, b->q->uplo, b->q->n, b->F, b->q->n, p);
    return 0;
}

/* hyt_dpotrf_tile on p, a CCRB copy of H (run_tile sets the keys); the factor back to F,
 * then to dA. */
static int set_tile(const bench_t *b, void *p)
{
    return hyt_lapack_to_tile(b->ctx, b->H, b->q->n, p);
}

static int factor_tile(const bench_t *b, void *p, int first, double *sec, int *info)
{
    (void)first, (void)sec;
    *info = hyt_dpotrf_tile(b->ctx, b->q->uplo, p);
    return 0;
}

static int fetch_tile(const bench_t *b, void *p)
{
    int rc = hyt_tile_to_lapack(b->ctx, p, b->F, b->q->n);
    return rc ? rc : copy(b->ctx, b->dA, b->F, matrix_bytes(b), 0);
}

/* The peer, cusolverDnDpotrf of dA; p: device 0 (its hyt_device_t). */
static int factor_peer(const bench_t *b, void *p, int first, double *sec, int *info)
{
    (void)first;
    return hyt_peer_dpotrf_uplo(hyt_device_ordinal(p), b->q->uplo, b->q->n, b->dA, b->q->n, sec,
                                info);
}

/* The peer on several GPUs: cusolverMgPotrf of H (lower), the first run's factor to F. */
typedef struct mg_args {
    int ndev;
    const int *ids;
    int block;
} mg_args_t;

static int factor_mg(const bench_t *b, void *p, int first, double *sec, int *info)
{
    const mg_args_t *a = p;
    return hyt_peer_dpotrf_mg(a->ndev, a->ids, b->q->n, a->block, b->H, b->q->n, sec, info,
                              first ? b->F : NULL);
}

static const code_t code_device = {NULL, set_dA, factor_device, NULL};
static const code_t code_dmat = {NULL, set_dmat, factor_dmat, fetch_dmat};
static const code_t code_hybrid = {NULL, set_F, factor_hybrid, fetch_F};
static const code_t code_tile = {NULL, set_tile, factor_tile, fetch_tile};
static const code_t code_peer = {"cusolverDnDpotrf", set_dA, factor_peer, NULL};
static const code_t code_mg = {"cusolverMgPotrf", NULL, factor_mg, fetch_F};

/* chol.lookahead = la (< 0: auto) for the runs that follow. */
static int set_lookahead(hyt_context_t *ctx, int la)
{
    char v[16];
    snprintf(v, sizeof v, "%d", la);
    return hyt_context_set(ctx, "chol.lookahead", la >= 0 ? v : "auto");
}

/* hyt_dpotrf_dmat's runs: a device matrix of block nb, lookahead la (chol.lookahead; < 0:
 * auto) for these runs. */
static int run_dmat(const bench_t *b, int nb, int la, double *best, double *res)
{
    const int n = b->q->n;
    hyt_dmat_t *M = NULL;
    int rc = set_lookahead(b->ctx, la);
    if (!rc)
        rc = hyt_dmat_create(b->ctx, n, n, nb, &M);
    if (!rc)
        rc = best_of(b, &code_dmat, M, best, res);
    hyt_dmat_destroy(M);
    if (!rc)
        rc = set_lookahead(b->ctx, -1);
    return rc;
}

/* hyt_dpotrf_tile's runs: a tile copy of tile size nb, chol.panel = panel and lookahead la
 * (chol.lookahead; < 0: auto) for these runs. */
static int run_tile(const bench_t *b, int nb, int la, const char *panel, double *best,
                    double *res)
{
    hyt_desc_t A;
    int rc = hyt_context_set(b->ctx, "chol.panel", panel);
    if (!rc)
        rc = set_lookahead(b->ctx, la);
    if (!rc && !(rc = hyt_desc_create(b->ctx, b->q->n, b->q->n, nb, &A))) {
        rc = best_of(b, &code_tile, &A, best, res);
        hyt_desc_destroy(&A);
    }
    int rc2 = hyt_context_set(b->ctx, "chol.panel", "auto");
    if (!rc2)
        rc2 = set_lookahead(b->ctx, -1);
    return rc ? rc : rc2;
}

/* The peer on several GPUs (lower): cusolverMgPotrf on the devices ids, for each block of mgs
 * the best of b->reps runs and the first run's factor checked; a "#" line per block.  The
 * fastest block's time, residual and block; *failed set when a block's residual fails.  0, or
 * the last error when no block ran. */
static int run_peer_mg(const bench_t *b, int ndev, const int *ids, const int *mgs, int nmg,
                       double *best, double *res, int *block, int *failed)
{
    const int n = b->q->n;
    int rc = 0;
    for (int m = 0; m < nmg; m++) {
        double tb = NAN, rb = NAN;
        mg_args_t a = {ndev, ids, mgs[m]};
        int brc = best_of(b, &code_mg, &a, &tb, &rb);
        if (brc) {
            fprintf(stderr, "peer: n = %d, cusolverMgPotrf, block %d: %s\n", n, mgs[m],
                    hyt_last_error());
            rc = brc;
            continue;
        }
        printf("# %7d L   peer cusolverMgPotrf (%d GPUs, block %d) | %11.4f %9.2f %7.2f%s\n", n,
               ndev, mgs[m], tb, (double)n * n * n / 3.0 / tb * 1e-12, rb,
               rb < 16 ? "" : "   FAILED (residual)");
        fflush(stdout);
        if (!(rb < 16))
            *failed = 1;
        if (isnan(*best) || tb < *best) {
            *best = tb;
            *res = rb;
            *block = mgs[m];
        }
    }
    return isnan(*best) ? rc : 0;
}

/* One row of the table: a setting's best time th and residual res against the peer's (tp,
 * res_p: NaN when no peer ran); leaf < 0 prints "-"; what ends the row.  Whether it passed. */
static int print_row(int n, char uplo, int nb, int la, int leaf, double th, double res,
                     double tp, double res_p, const char *what)
{
    const double flops = (double)n * n * n / 3.0;
    const int ok = res < 16 && (isnan(tp) || res_p < 16);
    char lf[16] = "-";
    if (leaf >= 0)
        snprintf(lf, sizeof lf, "%d", leaf);
    printf("%9d %c %4d %3d %5s | %9.4f %9.2f %7.2f | %11s %9s %7s | %6s%s%s\n", n, uplo, nb, la,
           lf, th, flops / th * 1e-12, res, HYT_NUM("%.4f", tp),
           HYT_NUM("%.2f", flops / tp * 1e-12), HYT_NUM("%.2f", res_p),
           HYT_NUM("%.3f", tp / th), what, ok ? "" : "   FAILED (residual)");
    fflush(stdout);
    return ok;
}

/* The host-to-host rows of --hybrid (--h2h: only their GPU-panel ones) for nb and la:
 * hyt_dpotrf, the hybrid (CPU panels) then on the devices; hyt_dpotrf_tile on a tile copy,
 * chol.panel cpu (the hybrid's tile size) then gpu (GPU panels, the device matrices' tile size).
 * group >= 0: chol.group for these runs (0: auto), named on the rows.  0, or 1 when a row
 * failed. */
static int h2h_rows(const bench_t *b, int nb, int la, int h2h, int group, double tp,
                    double res_p)
{
    hyt_context_t *ctx = b->ctx;
    const int n = b->q->n;
    const char uplo = b->q->uplo;
    char gv[16] = "auto", gw[32] = "";
    if (group > 0)
        snprintf(gv, sizeof gv, "%d", group);
    if (group >= 0)
        snprintf(gw, sizeof gw, "   group %s", gv);
    if (group >= 0 && hyt_context_set(ctx, "chol.group", gv)) {
        fprintf(stderr, "hytile bench-gpu --chol: chol.group %s: %s\n", gv, hyt_last_error());
        return 1;
    }
    int status = 0;
    char what[128];
    for (int g = h2h; g < 2; g++) {
        hyt_chol_params_t hp = {nb, la, "cg"[g]};
        double th = NAN, res = NAN;
        if (best_of(b, &code_hybrid, &hp, &th, &res)) {
            fprintf(stderr, "hytile bench-gpu --chol --hybrid: n = %d, uplo %c, chol.panel %s: "
                    "%s\n", n, uplo, g ? "gpu" : "cpu", hyt_last_error());
            status = 1;
            continue;
        }
        hyt_chol_dev_params_t dp = {nb, la, 0, 0, -1, -1, 0};
        hyt_chol_params(ctx, n, &hp);
        hyt_chol_params_device(ctx, n, &dp);
        snprintf(what, sizeof what, "%s%s",
                 g ? "   hyt_dpotrf on the devices, host to host" : "   hybrid, host to host",
                 gw);
        if (!print_row(n, uplo, g ? dp.nb : hp.nb, g ? dp.lookahead : hp.lookahead, -1, th, res,
                       tp, res_p, what))
            status = 1;
    }
    for (int g = h2h; g < 2; g++) {
        hyt_chol_params_t hp = {nb, la, 'c'};
        hyt_chol_dev_params_t dp = {nb, la, 0, 0, -1, -1, 0};
        hyt_chol_params(ctx, n, &hp);
        hyt_chol_params_device(ctx, n, &dp);
        double th = NAN, res = NAN;
        if (run_tile(b, g ? dp.nb : hp.nb, la, g ? "gpu" : "cpu", &th, &res)) {
            fprintf(stderr, "hytile bench-gpu --chol --hybrid: n = %d, uplo %c, hyt_dpotrf_tile, "
                    "chol.panel %s: %s\n", n, uplo, g ? "gpu" : "cpu", hyt_last_error());
            status = 1;
            continue;
        }
        snprintf(what, sizeof what, "%s%s",
                 g ? "   hyt_dpotrf_tile, GPU panels, host to host"
                   : "   hyt_dpotrf_tile, hybrid, host to host",
                 gw);
        if (!print_row(n, uplo, g ? dp.nb : hp.nb, g ? dp.lookahead : hp.lookahead, -1, th, res,
                       tp, res_p, what))
            status = 1;
    }
    if (group >= 0 && hyt_context_set(ctx, "chol.group", "auto")) {
        fprintf(stderr, "hytile bench-gpu --chol: chol.group auto: %s\n", hyt_last_error());
        status = 1;
    }
    return status;
}

int hyt_bench_chol_gpu(int argc, char **argv)
{
    int ns[32], nn = 0, nbs[16] = {0}, nnb = 1, las[16] = {-1}, nla = 1, leafs[16] = {0};
    int nleaf = 1, reps = 1, peer = 1, gemm = 0, dmat = 0, hybrid = 0, h2h = 0, cold = 0;
    int mgs[8] = {256, 512};
    int nmg = 2, invs[16] = {0}, ninv = 1, inv_given = 0, tails[16] = {-1}, ntail = 1;
    int tail_given = 0, lts[16] = {-1}, nlt = 1, lt_given = 0, groups[16] = {0}, ngroup = 1;
    int group_given = 0;
    char uplos[2] = {'L'};
    int nuplo = 1;
    const char *devices = "cuda:0", *trace = NULL;
    if (hyt_cli_wants_help(argc, argv))
        return usage(stdout);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--chol")) {
            while (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') {
                int k = parse_ints(argv[++i], ns + nn, 32 - nn, 1 << 20);
                for (int j = 0; j < k; j++)
                    if (ns[nn + j] < 1)
                        k = -1;
                if (k < 1)
                    return bad_value(a, argv[i]);
                nn += k;
            }
        } else if (!strcmp(a, "--no-peer")) {
            peer = 0;
        } else if (!strcmp(a, "--gemm")) {
            gemm = 1;
        } else if (!strcmp(a, "--cold")) {
            cold = 1;
        } else if (!strcmp(a, "--dmat")) {
            dmat = 1;
        } else if (!strcmp(a, "--hybrid")) {
            hybrid = 1;
        } else if (!strcmp(a, "--h2h")) {
            hybrid = h2h = 1;
        } else if (!v) {
            return usage(stderr);
        } else if (!strcmp(a, "--uplo")) {
            nuplo = 0;
            for (const char *t = v; *t; t++) {
                const char u = hyt_norm_uplo(*t);
                if (u && nuplo < 2 && (nuplo == 0 || uplos[0] != u))
                    uplos[nuplo++] = u;
                else if (*t != ',')
                    return bad_value(a, v);
            }
            if (!nuplo)
                return bad_value(a, v);
            i++;
        } else if (!strcmp(a, "--nb")) {
            if ((nnb = parse_ints(v, nbs, 16, 4096)) < 1)
                return bad_value(a, v);
            i++;
        } else if (!strcmp(a, "--lookahead")) {
            if ((nla = parse_ints(v, las, 16, 64)) < 1)
                return bad_value(a, v);
            i++;
        } else if (!strcmp(a, "--leaf")) {
            if ((nleaf = parse_ints(v, leafs, 16, 1 << 20)) < 1)
                return bad_value(a, v);
            i++;
        } else if (!strcmp(a, "--mg-block")) {
            if ((nmg = parse_ints(v, mgs, 8, 1 << 20)) < 1)
                return bad_value(a, v);
            for (int m = 0; m < nmg; m++)
                if (mgs[m] < 1)
                    return bad_value(a, v);
            i++;
        } else if (!strcmp(a, "--inv-rows")) {
            if ((ninv = parse_rows(v, invs, 16, 0, 1)) < 1)
                return bad_value(a, v);
            inv_given = 1;
            i++;
        } else if (!strcmp(a, "--tail")) {
            if ((ntail = parse_rows(v, tails, 16, -1, 0)) < 1)
                return bad_value(a, v);
            tail_given = 1;
            i++;
        } else if (!strcmp(a, "--gemm-lt")) {
            if ((nlt = parse_rows(v, lts, 16, -1, 0)) < 1)
                return bad_value(a, v);
            for (int j = 0; j < nlt; j++)
                if (lts[j] > 1)
                    return bad_value(a, v);
            lt_given = 1;
            i++;
        } else if (!strcmp(a, "--group")) {
            if ((ngroup = parse_rows(v, groups, 16, 0, 1)) < 1)
                return bad_value(a, v);
            for (int j = 0; j < ngroup; j++)
                if (groups[j] > HYT_CHOL_MAX_GROUP)
                    return bad_value(a, v);
            group_given = 1;
            i++;
        } else if (!strcmp(a, "--reps")) {
            if (parse_ints(v, &reps, 1, 1000) != 1 || reps < 1)
                return bad_value(a, v);
            i++;
        } else if (!strcmp(a, "--devices")) {
            devices = v;
            i++;
        } else if (!strcmp(a, "--trace")) {
            trace = v;
            i++;
        } else {
            return usage(stderr);
        }
    }
    if (nn == 0 || (dmat && (nuplo != 1 || uplos[0] != 'L')))
        return usage(stderr);
    if (trace && hyt_cli_check_trace("hytile bench-gpu --chol", "--trace", trace))
        return 2;
    hyt_config_t *cfg;
    hyt_context_t *ctx;
    if (hyt_config_create(&cfg) || hyt_config_load_env(cfg) ||
        hyt_config_set(cfg, "runtime.devices", devices, HYT_SRC_API, "--devices") ||
        hyt_context_create(cfg, &ctx)) {
        fprintf(stderr, "hytile bench-gpu --chol: %s\n", hyt_last_error());
        hyt_config_destroy(cfg);
        return 2;
    }
    hyt_config_destroy(cfg);
    hyt_device_t *dev = hyt_context_num_devices(ctx) ? hyt_context_device(ctx, 0) : NULL;
    if (!dev) {
        fprintf(stderr, "hytile bench-gpu --chol: no device (--devices cuda:0 or host:1)\n");
        hyt_context_destroy(ctx);
        return 2;
    }
    const int cuda = hyt_device_backend(dev) == HYT_BACKEND_CUDA;
    /* cusolverMg on several CUDA devices when hytile's rows use them all (ordinals in ids) */
    const int ndev = hyt_context_num_devices(ctx);
    int ids[64], all_cuda = ndev <= 64;
    for (int g = 0; g < ndev && all_cuda; g++) {
        hyt_device_t *d = hyt_context_device(ctx, g);
        ids[g] = hyt_device_ordinal(d);
        all_cuda = hyt_device_backend(d) == HYT_BACKEND_CUDA;
    }
    const int mg = peer && ndev > 1 && all_cuda && (dmat || hybrid);
    char ver[160], pname[160] = "cusolverDnDpotrf";
    hyt_peer_version(ver, sizeof ver);
    if (mg)
        snprintf(pname, sizeof pname, "cusolverMgPotrf (%d GPUs, the fastest block: '# peer' "
                 "lines)%s", ndev, nuplo > 1 ? ", upper cusolverDnDpotrf" : "");
    printf("# hytile GPU-only Cholesky%s vs %s, device-resident, %s%s (%s); best of %d%s\n",
           dmat ? " (hyt_dpotrf_dmat)" : "", pname, hyt_device_name(dev),
           ndev > 1 ? " and more devices" : "", cuda ? ver : "no peer on a host device", reps,
           cold ? " (--cold: the first runs timed too)"
                : " after an untimed run of each code at each order and triangle");
    if (h2h)
        printf("# rows 'host to host': from host memory to host memory; ratio: the peer's time "
               "host to host ('#' line) over hytile's\n");
    else if (hybrid)
        printf("# rows 'hybrid, host to host': hytile's hybrid Cholesky (hyt_dpotrf: CPU "
               "diagonal tiles and panels, updates on the devices) from host memory to host "
               "memory; ratio: peer s / hybrid s\n");
    printf("#       n u   nb  la  leaf |  hytile s   TFLOP/s   resid |  cusolver s   TFLOP/s "
           "  resid |  ratio\n");
    int status = 0;
    for (int iq = 0; iq < nn; iq++) {
        const int n = ns[iq];
        const size_t bytes = (size_t)n * n * sizeof(double);
        double w[3] = {hyt_wtime(), 0, 0}; /* the benchmark's own time: memory, matrices */
        double *H = hyt_host_malloc(ctx, bytes), *dA = NULL, *dz = NULL, *F = NULL;
        int rc = H ? 0 : hyt_error(HYT_ERR_NOMEM, "%zu bytes of page-locked host memory", bytes);
        /* F: the factor of a dmat or cusolverMg run on its way to device 0; the hybrid's matrix */
        if (!rc && ((dmat && ndev > 1) || mg || hybrid) && !(F = hyt_host_malloc(ctx, bytes)))
            rc = hyt_error(HYT_ERR_NOMEM, "%zu bytes of page-locked host memory", bytes);
        if (!rc)
            rc = hyt_device_malloc(dev, (void **)&dA, bytes);
        if (!rc)
            rc = hyt_device_malloc(dev, (void **)&dz, (size_t)n * sizeof(double));
        w[1] = hyt_wtime() - w[0];
        for (int u = 0; u < nuplo && !rc; u++) {
            const char uplo = uplos[u];
            probe_t q = {0};
            const double m0 = hyt_wtime();
            if ((rc = make_spd(ctx, H, n, uplo)) || (rc = probe_make(ctx, &q, H, n, uplo))) {
                probe_free(&q);
                break;
            }
            w[2] += hyt_wtime() - m0;
            warm_t warmed = {{0}, 0};
            const bench_t bn = {ctx, &q, H, F, dA, dz, reps, cold ? NULL : &warmed, !!trace};
            /* the peer first (once for all settings) */
            double tp = NAN, res_p = NAN;
            int block = 0, failed = 0;
            if (mg && uplo == 'L') {
                if (run_peer_mg(&bn, ndev, ids, mgs, nmg, &tp, &res_p, &block, &failed))
                    fprintf(stderr, "peer: n = %d: %s\n", n, hyt_last_error());
                else
                    printf("# %7d L   peer = cusolverMgPotrf (%d GPUs, block %d)\n", n, ndev,
                           block);
                if (failed)
                    status = 1;
            } else if (peer && cuda && best_of(&bn, &code_peer, dev, &tp, &res_p)) {
                fprintf(stderr, "peer: n = %d, uplo %c: %s\n", n, uplo, hyt_last_error());
                tp = NAN;
            }
            /* --h2h: the peer host to host too, the ratio of the host-to-host rows */
            double tp_h = NAN;
            if (h2h && peer && cuda && !mg) {
                if (hyt_peer_dpotrf_h2h(hyt_device_ordinal(dev), uplo, n, H, reps, &tp_h)) {
                    fprintf(stderr, "peer (host to host): n = %d, uplo %c: %s\n", n, uplo,
                            hyt_last_error());
                    tp_h = NAN;
                    status = 1;
                } else {
                    printf("# %7d %c   peer host to host (cudaMemcpy in, cusolverDnDpotrf, "
                           "cudaMemcpy out): %.4f s\n", n, uplo, tp_h);
                }
            }
            const double tp_rows = h2h ? tp_h : tp;
            for (int b = 0; b < nnb; b++)
                for (int l = 0; l < nla; l++) {
                    for (int f = 0; f < nleaf * ninv * ntail * nlt * ngroup; f++) {
                        hyt_chol_dev_params_t p = {nbs[b], las[l], leafs[f % nleaf],
                                                   invs[f / nleaf % ninv],
                                                   tails[f / (nleaf * ninv) % ntail],
                                                   lts[f / (nleaf * ninv * ntail) % nlt],
                                                   groups[f / (nleaf * ninv * ntail * nlt)]};
                        /* a device matrix's nest keeps the device defaults (its users' tile
                         * size by default), the GPU-only nest has its own */
                        if (dmat)
                            hyt_chol_params_device(ctx, n, &p);
                        else
                            hyt_chol_params_gpu_only(ctx, n, &p);
                        char iv[16] = "auto", what[96] = "";
                        if (p.inv_rows > 0)
                            snprintf(iv, sizeof iv, "%d", p.inv_rows);
                        int wl = 0;
                        if (inv_given)
                            wl = snprintf(what, sizeof what, "   inv_rows %d",
                                          p.inv_rows > 0 ? p.inv_rows : hyt_chol_inv_rows(ctx));
                        if (tail_given && !dmat)
                            wl += snprintf(what + wl, sizeof what - (size_t)wl, "   tail %d",
                                           p.tail >= 0 ? p.tail
                                                       : hyt_chol_tail(ctx, dev, uplo, n));
                        if (lt_given && !dmat)
                            wl += snprintf(what + wl, sizeof what - (size_t)wl, "   gemm_lt %d",
                                           p.gemm_lt >= 0 ? p.gemm_lt
                                                          : hyt_chol_gemm_lt(ctx, dev, uplo));
                        /* the lookahead the nests run: a nonzero one raised to the group */
                        const int grp = p.group > 0 ? p.group : hyt_chol_group(ctx, dev, n);
                        const int la_run = hyt_chol_group_lookahead(p.lookahead, grp);
                        if (group_given)
                            snprintf(what + wl, sizeof what - (size_t)wl, "   group %d", grp);
                        double th = NAN, res = NAN;
                        if (dmat)
                            p.leaf = 0;
                        /* the device matrix takes them from chol.inv_rows and chol.group, for
                         * this run */
                        char gv[16] = "auto";
                        if (p.group > 0)
                            snprintf(gv, sizeof gv, "%d", p.group);
                        const int setinv = dmat && inv_given, setgroup = dmat && group_given;
                        int brc = setinv ? hyt_context_set(ctx, "chol.inv_rows", iv) : 0;
                        if (!brc && setgroup)
                            brc = hyt_context_set(ctx, "chol.group", gv);
                        if (!brc)
                            brc = dmat ? run_dmat(&bn, p.nb, las[l], &th, &res)
                                       : best_of(&bn, &code_device, &p, &th, &res);
                        if (!brc && setinv)
                            brc = hyt_context_set(ctx, "chol.inv_rows", "auto");
                        if (!brc && setgroup)
                            brc = hyt_context_set(ctx, "chol.group", "auto");
                        if (brc) {
                            fprintf(stderr, "hytile bench-gpu --chol: n = %d, uplo %c: %s\n", n,
                                    uplo, hyt_last_error());
                            status = 1;
                            continue;
                        }
                        if (!print_row(n, uplo, p.nb, la_run, p.leaf, th, res, tp, res_p, what))
                            status = 1;
                    }
                    if (!hybrid)
                        continue;
                    /* the host-to-host rows, for each --group (chol.group) */
                    for (int gi = 0; gi < (group_given ? ngroup : 1); gi++)
                        if (h2h_rows(&bn, nbs[b], las[l], h2h, group_given ? groups[gi] : -1,
                                     tp_rows, res_p))
                            status = 1;
                }
            probe_free(&q);
        }
        if (rc) {
            fprintf(stderr, "hytile bench-gpu --chol: n = %d: %s\n", n, hyt_last_error());
            status = 1;
        }
        if (dz)
            hyt_device_free(dev, dz);
        if (dA)
            hyt_device_free(dev, dA);
        hyt_host_free(ctx, H);
        hyt_host_free(ctx, F);
        printf("# %7d: the benchmark's time %.1f s: memory %.1f, the matrices and their checks' "
               "vectors %.1f, the rest (runs, copies, checks) %.1f\n", n, hyt_wtime() - w[0],
               w[1], w[2], hyt_wtime() - w[0] - w[1] - w[2]);
        /* the DGEMM ceiling at this n, with the device matrix freed */
        for (int b = 0; b < nnb && gemm && cuda; b++) {
            hyt_chol_dev_params_t p = {nbs[b], -1, 0, 0, -1, -1, 0};
            hyt_chol_params_gpu_only(ctx, n, &p);
            gemm_rates(hyt_device_ordinal(dev), n, p.nb, reps > 3 ? reps : 3);
        }
    }
    if (trace && hyt_trace_write_json(ctx, trace)) {
        fprintf(stderr, "hytile bench-gpu --chol: %s\n", hyt_last_error());
        status = 1;
    }
    hyt_context_destroy(ctx);
    return status;
}
