/*
 * LAPACK ABI: dgetrf_, dgetrs_, dgesv_ with the Fortran calling convention (32-bit integers
 * by reference, hidden string lengths), so an unmodified program that calls LAPACK uses
 * hytile when libhytile.so comes first at link time or through LD_PRELOAD.
 *
 * Behaviour of reference LAPACK: arguments checked in LAPACK's order, XERBLA called with the
 * position of the first bad one and INFO = -position with nothing written; quick return for
 * empty problems; INFO = i for the first exactly zero U(i,i) with the factorization completed.
 * XERBLA is the program's: libhytile's xerbla_ forwards to it (abi_xerbla.c), so that
 * preloading hytile does not replace it for every other LAPACK routine.
 *
 * The "next" LAPACK is the one the program would call without hytile: the same routine found
 * after libhytile in the lookup order (dlsym RTLD_NEXT), never our own.  When there is one:
 *  - calls on matrices smaller than abi.min_n go to it (hytile cannot win there: the call
 *    overhead of the runtime is tens of microseconds; by default, the LU on CPU workers alone
 *    also below a size that grows with the workers), and so do those that GPU panels leave to
 *    the CPUs for their size (gpu.min_n);
 *  - a failure of hytile itself (HYT_ERR_*: no memory, a device error, an injected fault) is
 *    redone by it and said once on stderr: from a copy of the arguments kept for the purpose
 *    (made by the context's workers when it is large),
 *    or, for the LU's and the Cholesky's calls on devices with GPU panels, from the arguments
 *    themselves, which a failure leaves untouched (drivers/lu/dgesv_devices.c writes them
 *    only after everything else succeeded; drivers/chol/dpotrf_devices.c finishes on the CPU
 *    workers once part of the factor is written; a failure of a final copy back, after a
 *    second attempt, is reported with INFO the HYT_ERR_* code, as without a CPU LAPACK).
 * Without one, small calls run in hytile and a library failure is said on stderr, with INFO the
 * HYT_ERR_* code (< -1000, which LAPACK never returns).
 *
 * The runtime starts on the first call hytile runs itself, with the default configuration
 * adjusted by HYT_* environment variables (if those are invalid, hytile says so on stderr and
 * uses the defaults); without HYT_WORKERS and HYT_CORES, OPENBLAS_NUM_THREADS or else
 * OMP_NUM_THREADS set the number of workers.  OpenBLAS is held at one thread only while hytile
 * runs; the program's setting, read when a call starts, is given back when it ends.
 *
 * fork(): the worker threads of a context do not exist in the child, and a CUDA context must
 * not be used there.  The child abandons the parent's context (never touches it, not even to
 * destroy it) and starts its own on its first call, on CPUs only when the parent had one.
 * These functions never call dgetrf_, dgetrs_ or dgesv_ through the program's symbols.
 */
#include "chol_internal.h"
#include "drv_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));

typedef void dgetrf_fn(const int *m, const int *n, double *a, const int *lda, int *ipiv,
                       int *info);
typedef void dgetrs_fn(const char *trans, const int *n, const int *nrhs, const double *a,
                       const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
                       size_t trans_len);
typedef void dgesv_fn(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                      double *b, const int *ldb, int *info);
typedef void dpotrf_fn(const char *uplo, const int *n, double *a, const int *lda, int *info,
                       size_t uplo_len);
typedef void dpotrs_fn(const char *uplo, const int *n, const int *nrhs, const double *a,
                       const int *lda, double *b, const int *ldb, int *info, size_t uplo_len);
typedef void dposv_fn(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
                      double *b, const int *ldb, int *info, size_t uplo_len);

/* Set once (abi_setup) and the same in a forked child. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static hyt_config_t *abi_cfg;
static long abi_min_n;
static dgetrf_fn *next_dgetrf;
static dgetrs_fn *next_dgetrs;
static dgesv_fn *next_dgesv;
static dpotrf_fn *next_dpotrf;
static dpotrs_fn *next_dpotrs;
static dposv_fn *next_dposv;

/* Under abi_lock. */
static pthread_mutex_t abi_lock = PTHREAD_MUTEX_INITIALIZER;
static hyt_context_t *abi_ctx;
static int abi_ctx_rc;        /* why the context could not be created (0: not tried / ok) */
static int abi_inherited;     /* this process is a fork of one that had a context */
static int abi_active;        /* ABI calls running hytile now */
static int abi_blas_threads = -1;
static _Atomic int abi_fallback_said, abi_recovered_said;
static hyt_context_t *abi_abandoned; /* a parent's, kept reachable: not a leak to checkers */
static void *spare;           /* a mapping for the next call's copy of A (buf_take) */
static size_t spare_len;

static void *self_base(void)
{
    Dl_info me;
    return dladdr((void *)dgesv_, &me) ? me.dli_fbase : NULL;
}

/* A symbol of another object than libhytile, or NULL. */
static void *foreign_sym(void *handle, const char *name)
{
    void *p = dlsym(handle, name);
    Dl_info at;
    if (!p || !dladdr(p, &at) || at.dli_fbase == self_base())
        return NULL;
    return p;
}

static void atfork_prepare(void) { pthread_mutex_lock(&abi_lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&abi_lock); }
static void atfork_child(void)
{
    /* the forking thread holds the lock (prepare): nobody else exists in the child */
    if (abi_ctx) {
        abi_inherited = 1;
        abi_abandoned = abi_ctx;
    }
    abi_ctx = NULL; /* abandoned: its threads are gone, its memory stays as it was */
    abi_ctx_rc = 0;
    abi_active = 0;
    pthread_mutex_unlock(&abi_lock);
}

/* OPENBLAS_NUM_THREADS, else OMP_NUM_THREADS (its first entry): the thread count the program
 * asked its BLAS for, or 0. */
static int env_threads(const char **which)
{
    static const char *const names[] = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"};
    for (int i = 0; i < 2; i++) {
        const char *s = getenv(names[i]);
        char *end;
        long v = s ? strtol(s, &end, 10) : 0;
        if (s && end != s && (*end == '\0' || *end == ',') && v > 0) {
            *which = names[i];
            return v > 1 << 20 ? 1 << 20 : (int)v; /* beyond runtime.workers: ignored */
        }
    }
    return 0;
}

static void abi_setup(void)
{
    next_dgetrf = (dgetrf_fn *)foreign_sym(RTLD_NEXT, "dgetrf_");
    next_dgetrs = (dgetrs_fn *)foreign_sym(RTLD_NEXT, "dgetrs_");
    next_dgesv = (dgesv_fn *)foreign_sym(RTLD_NEXT, "dgesv_");
    next_dpotrf = (dpotrf_fn *)foreign_sym(RTLD_NEXT, "dpotrf_");
    next_dpotrs = (dpotrs_fn *)foreign_sym(RTLD_NEXT, "dpotrs_");
    next_dposv = (dposv_fn *)foreign_sym(RTLD_NEXT, "dposv_");
    if (hyt_config_create(&abi_cfg))
        return; /* no memory: every call reports it */
    if (hyt_config_load_env(abi_cfg)) {
        fprintf(stderr, "hytile: %s; using the default configuration\n", hyt_last_error());
        hyt_config_destroy(abi_cfg);
        if (hyt_config_create(&abi_cfg))
            return;
    }
    hyt_source_t wsrc, csrc;
    hyt_config_get(abi_cfg, "runtime.workers", &wsrc);
    hyt_config_get(abi_cfg, "runtime.cores", &csrc);
    const char *which;
    int nt = env_threads(&which);
    if (nt && wsrc == HYT_SRC_DEFAULT && csrc == HYT_SRC_DEFAULT) {
        char v[16];
        snprintf(v, sizeof v, "%d", nt);
        hyt_config_set(abi_cfg, "runtime.workers", v, HYT_SRC_ENV, which);
    }
    abi_min_n = hyt_config_get_int(abi_cfg, "abi.min_n");
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* Under abi_lock: the context, created on first use. */
static int abi_context(void)
{
    if (abi_ctx || abi_ctx_rc)
        return abi_ctx_rc;
    if (!abi_cfg)
        return abi_ctx_rc = hyt_error(HYT_ERR_NOMEM, "out of memory reading the configuration");
    hyt_config_t *cfg;
    int rc = hyt_config_copy(abi_cfg, &cfg);
    if (rc)
        return abi_ctx_rc = rc;
    /* the parent's CUDA state is unusable in a forked child: CPUs only */
    const char *dev = hyt_config_get(cfg, "runtime.devices", NULL);
    if (abi_inherited && strncmp(dev, "host", 4) != 0)
        hyt_config_set(cfg, "runtime.devices", "none", HYT_SRC_API, NULL);
    rc = hyt_context_create(cfg, &abi_ctx);
    hyt_config_destroy(cfg);
    if (rc) {
        abi_ctx = NULL;
        abi_ctx_rc = rc;
    }
    return rc;
}

/* Enter / leave a call hytile runs: the context, and OpenBLAS single-threaded meanwhile, with
 * the program's setting of the moment given back at the end.  NULL: *rc says why. */
static hyt_context_t *abi_enter(int *rc)
{
    pthread_mutex_lock(&abi_lock);
    if (abi_active == 0 && openblas_get_num_threads)
        abi_blas_threads = openblas_get_num_threads();
    *rc = abi_context();
    hyt_context_t *ctx = abi_ctx;
    if (ctx && abi_active++ == 0 && openblas_set_num_threads)
        openblas_set_num_threads(1);
    pthread_mutex_unlock(&abi_lock);
    return ctx;
}

static void abi_leave(void)
{
    pthread_mutex_lock(&abi_lock);
    if (--abi_active == 0 && abi_blas_threads > 0 && openblas_set_num_threads)
        openblas_set_num_threads(abi_blas_threads);
    pthread_mutex_unlock(&abi_lock);
}

__attribute__((destructor)) static void abi_fini(void)
{
    /* only a context of this process, and none in use (a thread may still be in a call) */
    pthread_mutex_lock(&abi_lock);
    if (abi_ctx && !abi_active) {
        hyt_context_destroy(abi_ctx);
        abi_ctx = NULL;
    }
    if (spare)
        munmap(spare, spare_len);
    spare = NULL;
    pthread_mutex_unlock(&abi_lock);
    hyt_config_destroy(abi_cfg);
    abi_cfg = NULL;
}

static int max1(int x) { return x > 1 ? x : 1; }

static void bad_arg(const char *name, int *info, int pos)
{
    *info = -pos;
    xerbla_(name, &pos, 6); /* the program's (abi_xerbla.c) */
}

/* One call: the operation and its arguments (checked), for hytile and for the next LAPACK. */
typedef struct abi_call {
    char op;          /* 'f' dgetrf, 's' dgetrs, 'v' dgesv; 'F' dpotrf, 'S' dpotrs, 'V' dposv */
    const char *name;
    int m, n, nrhs;
    char trans;       /* dgetrs's; the Cholesky's uplo */
    double *a;        /* dgetrs, dpotrs: not written */
    int lda;
    int *ipiv;
    double *b;
    int ldb;
} abi_call_t;

static int run_hytile(hyt_context_t *ctx, const abi_call_t *c)
{
    switch (c->op) {
    case 'f':
        return hyt_dgetrf(ctx, c->m, c->n, c->a, c->lda, c->ipiv);
    case 's':
        return hyt_dgetrs(ctx, c->trans, c->n, c->nrhs, c->a, c->lda, c->ipiv, c->b, c->ldb);
    case 'F':
        return hyt_dpotrf(ctx, c->trans, c->n, c->a, c->lda);
    case 'S':
        return hyt_dpotrs(ctx, c->trans, c->n, c->nrhs, c->a, c->lda, c->b, c->ldb);
    case 'V':
        return hyt_dposv(ctx, c->trans, c->n, c->nrhs, c->a, c->lda, c->b, c->ldb);
    default: {
        int rc = hyt_dgetrf(ctx, c->n, c->n, c->a, c->lda, c->ipiv);
        if (rc == 0 && c->nrhs > 0)
            rc = hyt_dgetrs(ctx, 'N', c->n, c->nrhs, c->a, c->lda, c->ipiv, c->b, c->ldb);
        return rc;
    }
    }
}

/* The next LAPACK's routine for c, or NULL. */
static int have_next(const abi_call_t *c)
{
    switch (c->op) {
    case 'f': return next_dgetrf != NULL;
    case 's': return next_dgetrs != NULL;
    case 'F': return next_dpotrf != NULL;
    case 'S': return next_dpotrs != NULL;
    case 'V': return next_dposv != NULL;
    default: return next_dgesv != NULL;
    }
}

static void run_next(const abi_call_t *c, int *info)
{
    switch (c->op) {
    case 'f':
        next_dgetrf(&c->m, &c->n, c->a, &c->lda, c->ipiv, info);
        break;
    case 's':
        next_dgetrs(&c->trans, &c->n, &c->nrhs, c->a, &c->lda, c->ipiv, c->b, &c->ldb, info, 1);
        break;
    case 'F':
        next_dpotrf(&c->trans, &c->n, c->a, &c->lda, info, 1);
        break;
    case 'S':
        next_dpotrs(&c->trans, &c->n, &c->nrhs, c->a, &c->lda, c->b, &c->ldb, info, 1);
        break;
    case 'V':
        next_dposv(&c->trans, &c->n, &c->nrhs, c->a, &c->lda, c->b, &c->ldb, info, 1);
        break;
    default:
        next_dgesv(&c->n, &c->nrhs, c->a, &c->lda, c->ipiv, c->b, &c->ldb, info);
    }
}

/* The copy of A kept for a redo is as large as A.  Allocated afresh for every call, above
 * malloc's mmap threshold (32 MiB at most) each of its pages faults and is zeroed by the kernel:
 * 15% of a dgesv_ at n = 4000 on 2 cores, more than hytile gains there (docs/performance.md).
 * So copies from SPARE_MIN bytes on live in mappings of their own, and the largest one so far
 * up to SPARE_MAX is kept for the next call, marked MADV_FREE in between: the kernel may take
 * its pages back under memory pressure (they come back zeroed, and the copy overwrites them),
 * else the next copy finds them mapped.  Calls running at the same time map their own. */
#define SPARE_MIN ((size_t)1 << 20)
#define SPARE_MAX ((size_t)1 << 30)

static size_t page_round(size_t bytes)
{
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (bytes + pg - 1) / pg * pg;
}

/* A buffer of at least bytes (NULL: no memory); *len its length for buf_give (0: malloc'ed). */
static double *buf_take(size_t bytes, size_t *len)
{
    *len = 0;
    if (bytes < SPARE_MIN)
        return malloc(bytes);
    void *p = NULL;
    pthread_mutex_lock(&abi_lock);
    if (spare && spare_len >= bytes) {
        p = spare;
        *len = spare_len;
        spare = NULL;
    }
    pthread_mutex_unlock(&abi_lock);
    if (!p) {
        *len = page_round(bytes);
        p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            *len = 0;
            return NULL;
        }
    }
    return p;
}

/* Gives back what buf_take returned (NULL with len 0: nothing). */
static void buf_give(double *p, size_t len)
{
    if (!len) {
        free(p);
        return;
    }
    if (len <= SPARE_MAX) {
#ifdef MADV_FREE
        (void)madvise(p, len, MADV_FREE); /* a hint: without it the pages stay */
#endif
        pthread_mutex_lock(&abi_lock);
        if (!spare || spare_len < len) { /* keep the larger */
            void *old = spare;
            size_t old_len = spare_len;
            spare = p;
            spare_len = len;
            p = old;
            len = old_len;
        }
        pthread_mutex_unlock(&abi_lock);
    }
    if (p)
        munmap(p, len);
}

/* The copy for a redo is made by the context's workers from PAR_MIN bytes on, a piece of
 * columns per task: one thread copies at 2.3-3 GB/s on the 16-core Xeon of the H200 machine,
 * 45 ms of a 0.15 s dgesv_ at n = 4096 and 220 ms of 0.8 s at 8192 (docs/performance.md). */
#define PAR_MIN ((size_t)4 << 20)

typedef struct save_args {
    const double *x;
    double *s;
    int m, ld, j0, j1;
} save_args_t;

static int save_cols(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const save_args_t *a = p;
    for (int j = a->j0; j < a->j1; j++)
        memcpy(a->s + (size_t)j * a->m, a->x + (size_t)j * a->ld, (size_t)a->m * sizeof *a->s);
    return 0;
}

/* "always": never fault-injected, so that debug.fault_task counts the call's own tasks */
static const hyt_kernel_t save_kernel = {"abi_save", save_cols, NULL, HYT_CAT_CONVERT, 1};

/* x (m x n, leading dimension ld) into s (leading dimension m) by ctx's workers: 0, or an
 * error (s then partly written). */
static int save_tasks(hyt_context_t *ctx, const double *x, double *s, int m, int n, int ld)
{
    hyt_sequence_t *seq;
    int rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    const int pieces = 4 * hyt_context_num_workers(ctx), w = (n + pieces - 1) / pieces;
    for (int j0 = 0; !rc && j0 < n; j0 += w) {
        save_args_t a = {x, s, m, ld, j0, n - j0 > w ? j0 + w : n};
        hyt_task_desc_t d = hyt_task_desc(&save_kernel, &a, sizeof a);
        rc = hyt_task_insert(seq, &d);
    }
    return hyt_sequence_finish(seq, rc);
}

/* Copies of the m x n matrix x (leading dimension ld) for a redo: save (NULL: no memory; *len
 * for buf_give; by ctx's workers when ctx is not NULL and the copy large) and restore. */
static double *save(hyt_context_t *ctx, const double *x, int m, int n, int ld, size_t *len)
{
    const size_t bytes = ((size_t)m * (size_t)n + 1) * sizeof(double);
    double *s = buf_take(bytes, len);
    if (s && ctx && bytes >= PAR_MIN && !save_tasks(ctx, x, s, m, n, ld))
        return s;
    for (int j = 0; s && j < n; j++) /* small, or the tasks failed */
        memcpy(s + (size_t)j * m, x + (size_t)j * ld, (size_t)m * sizeof *s);
    return s;
}

static void restore(double *x, const double *s, int m, int n, int ld)
{
    for (int j = 0; j < n; j++)
        memcpy(x + (size_t)j * ld, s + (size_t)j * m, (size_t)m * sizeof *s);
}

/* Whether a call that does not go to the devices stays off them only for its size (GPU panels,
 * below gpu.min_n).  Such calls go to the next LAPACK: on a GPU machine's many cores it is as
 * fast as hytile's CPU workers there or faster, and needs no copy for a redo (16-core Xeon,
 * preloaded dgesv_ at n = 512: OpenBLAS 3.2-3.4 ms, hytile's CPU workers 4.4 ms;
 * docs/performance.md). */
static int below_gpu_min_n(hyt_context_t *ctx, int chol, const abi_call_t *c)
{
    if (chol) {
        hyt_chol_params_t p = HYT_CHOL_PARAMS_AUTO;
        hyt_chol_params(ctx, c->n, &p);
        return p.panel == 'n';
    }
    hyt_lu_params_t p;
    hyt_lu_params(ctx, c->m, c->n, &p);
    return p.gpu_panel; /* with the caller's !on_dev: below gpu.min_n */
}

/* abi.min_n = auto, once the context exists: an LU (dgetrf_, dgesv_; not the solve alone) on
 * CPU workers alone (no devices) below HYT_ABI_MIN_N_PER_WORKER per worker.  With 16 workers
 * the preloaded dgesv_ took 1.12-1.47x OpenBLAS's time (16 threads) up to n = 1536 and tied at
 * 2048; with 8, 1.07x at 768, 0.95x at 1024 (16-core Xeon); with 2 it wins from ~400 (both
 * machines; docs/performance.md).  The Cholesky, faster than OpenBLAS from 512 on 16 workers,
 * keeps HYT_ABI_MIN_N_AUTO, and so does the solve alone (not measured at small n). */
static int below_cpu_min_n(hyt_context_t *ctx, const abi_call_t *c, int size)
{
    return abi_min_n < 0 && (c->op == 'f' || c->op == 'v') &&
           hyt_context_num_devices(ctx) == 0 &&
           size < (long)HYT_ABI_MIN_N_PER_WORKER * hyt_context_num_workers(ctx);
}

/* Runs a checked, nonempty call: in the next LAPACK when it is small (below abi.min_n, or with
 * GPU panels below gpu.min_n), else in hytile, redone by the next LAPACK if hytile fails. */
static void abi_call(const abi_call_t *c, int *info)
{
    pthread_once(&once, abi_setup);
    int next = have_next(c);
    int size = c->m > c->n ? c->m : c->n;
    if (next && size < (abi_min_n < 0 ? HYT_ABI_MIN_N_AUTO : abi_min_n)) {
        run_next(c, info);
        return;
    }
    int rc;
    hyt_context_t *ctx = abi_enter(&rc);
    /* The LU's calls on devices with GPU panels write A and B only after everything else
     * succeeded (drivers/lu/dgesv_devices.c); the Cholesky's write the factor during the
     * factorization, and finish on the CPU workers when the devices fail after that
     * (drivers/chol/dpotrf_devices.c); their solves with few right-hand sides, on the CPUs,
     * solve a copy of B.  A failure of theirs leaves A and B untouched (written = 0), so they
     * need no copy for a redo.  Other calls may write A (not the solves) and B before they
     * fail: a copy of those is kept for the redo. */
    const int chol = strchr("FSV", c->op) != NULL;
    int on_dev = ctx && (chol ? hyt_chol_lapack_on_devices(ctx, c->n)
                              : hyt_drv_lapack_on_devices(ctx, c->m, c->n));
    if (next && ctx && !on_dev &&
        (below_gpu_min_n(ctx, chol, c) || below_cpu_min_n(ctx, c, size))) {
        abi_leave();
        run_next(c, info);
        return;
    }
    int writes_a = c->op != 's' && c->op != 'S', am = writes_a ? c->m : 0, bn = c->b ? c->nrhs : 0;
    double *a_copy = NULL, *b_copy = NULL;
    size_t a_len = 0, b_len = 0;
    if (next && !on_dev) {
        a_copy = save(ctx, c->a, am, c->n, c->lda, &a_len);
        b_copy = save(ctx, c->b, c->n, bn, c->ldb, &b_len);
        if (!a_copy || !b_copy) { /* no memory for a safety net: LAPACK needs none */
            buf_give(a_copy, a_len);
            buf_give(b_copy, b_len);
            if (ctx)
                abi_leave();
            run_next(c, info);
            return;
        }
    }
    int written = 1, recovered = 0;
    if (ctx) {
        if (on_dev) {
            hyt_error_clear();
            rc = chol ? hyt_chol_lapack_devices(ctx, c->op, c->trans, c->n, c->nrhs, c->a, c->lda,
                                                c->b, c->ldb, 0, -1, &written, &recovered)
                      : hyt_drv_lapack_call(ctx, c->op, c->trans, c->m, c->n, c->nrhs, c->a,
                                            c->lda, c->ipiv, c->b, c->ldb, &written);
        } else {
            rc = run_hytile(ctx, c);
        }
        abi_leave();
    }
    if (rc >= 0) {
        *info = rc;
        /* the devices failed after part of the result was written and hytile's CPU workers
         * finished the call: right, but a failing GPU is worth saying (once) */
        if (recovered && !atomic_exchange(&abi_recovered_said, 1))
            fprintf(stderr, "hytile: %s: the devices failed (%s); hytile's CPU workers finished "
                    "this call (said once)\n", c->name, hyt_last_error());
    } else if (next && (a_copy || !written)) {
        if (!atomic_exchange(&abi_fallback_said, 1))
            fprintf(stderr, "hytile: %s failed (%s: %s); this and later failed calls are done "
                    "by the CPU LAPACK instead\n", c->name, hyt_strerror(rc), hyt_last_error());
        if (a_copy) {
            restore(c->a, a_copy, am, c->n, c->lda);
            restore(c->b, b_copy, c->n, bn, c->ldb);
        }
        run_next(c, info);
    } else {
        fprintf(stderr, "hytile: %s failed: %s (%s); %s, INFO = %d\n", c->name,
                hyt_last_error(), hyt_strerror(rc),
                next ? "the arrays were partly overwritten: the CPU LAPACK cannot redo it"
                     : "no CPU LAPACK to fall back to", rc);
        *info = rc;
    }
    buf_give(a_copy, a_len);
    buf_give(b_copy, b_len);
}

void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info)
{
    if (*m < 0)
        return bad_arg("DGETRF", info, 1);
    if (*n < 0)
        return bad_arg("DGETRF", info, 2);
    if (*lda < max1(*m))
        return bad_arg("DGETRF", info, 4);
    *info = 0;
    if (*m == 0 || *n == 0)
        return;
    abi_call(&(abi_call_t){'f', "DGETRF", *m, *n, 0, 'N', a, *lda, ipiv, NULL, 1}, info);
}

void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t trans_len)
{
    (void)trans_len;
    char t = hyt_norm_trans(*trans);
    if (!t)
        return bad_arg("DGETRS", info, 1);
    if (*n < 0)
        return bad_arg("DGETRS", info, 2);
    if (*nrhs < 0)
        return bad_arg("DGETRS", info, 3);
    if (*lda < max1(*n))
        return bad_arg("DGETRS", info, 5);
    if (*ldb < max1(*n))
        return bad_arg("DGETRS", info, 8);
    *info = 0;
    if (*n == 0 || *nrhs == 0)
        return;
    abi_call(&(abi_call_t){'s', "DGETRS", *n, *n, *nrhs, t, (double *)a, *lda, (int *)ipiv, b,
                           *ldb}, info);
}

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info)
{
    if (*n < 0)
        return bad_arg("DGESV ", info, 1);
    if (*nrhs < 0)
        return bad_arg("DGESV ", info, 2);
    if (*lda < max1(*n))
        return bad_arg("DGESV ", info, 4);
    if (*ldb < max1(*n))
        return bad_arg("DGESV ", info, 7);
    *info = 0;
    if (*n == 0)
        return;
    abi_call(&(abi_call_t){'v', "DGESV", *n, *n, *nrhs, 'N', a, *lda, ipiv, b, *ldb}, info);
}

/* The Cholesky: DPOTRF, DPOTRS, DPOSV ('U' or 'L' in either case; the other triangle of A is
 * not referenced). */
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info,
             size_t uplo_len)
{
    (void)uplo_len;
    const char u = hyt_norm_uplo(*uplo);
    if (!u)
        return bad_arg("DPOTRF", info, 1);
    if (*n < 0)
        return bad_arg("DPOTRF", info, 2);
    if (*lda < max1(*n))
        return bad_arg("DPOTRF", info, 4);
    *info = 0;
    if (*n == 0)
        return;
    abi_call(&(abi_call_t){'F', "DPOTRF", *n, *n, 0, u, a, *lda, NULL, NULL, 1}, info);
}

/* DPOTRS's and DPOSV's checks (the same positions): 0, or the bad argument reported. */
static int chol_solve_args(const char *name, char u, int n, int nrhs, int lda, int ldb,
                           int *info)
{
    int pos = !u ? 1 : n < 0 ? 2 : nrhs < 0 ? 3 : lda < max1(n) ? 5 : ldb < max1(n) ? 7 : 0;
    if (pos)
        bad_arg(name, info, pos);
    else
        *info = 0;
    return pos;
}

void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info, size_t uplo_len)
{
    (void)uplo_len;
    const char u = hyt_norm_uplo(*uplo);
    if (chol_solve_args("DPOTRS", u, *n, *nrhs, *lda, *ldb, info) || *n == 0 || *nrhs == 0)
        return;
    abi_call(&(abi_call_t){'S', "DPOTRS", *n, *n, *nrhs, u, (double *)a, *lda, NULL, b, *ldb},
             info);
}

void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
            double *b, const int *ldb, int *info, size_t uplo_len)
{
    (void)uplo_len;
    const char u = hyt_norm_uplo(*uplo);
    if (chol_solve_args("DPOSV ", u, *n, *nrhs, *lda, *ldb, info) || *n == 0)
        return;
    abi_call(&(abi_call_t){'V', "DPOSV", *n, *n, *nrhs, u, a, *lda, NULL, b, *ldb}, info);
}
