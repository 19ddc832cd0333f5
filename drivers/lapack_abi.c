/*
 * LAPACK ABI: dgetrf_, dgetrs_, dgesv_ with the Fortran calling convention (32-bit integers
 * by reference, hidden string lengths), so an unmodified program that calls LAPACK uses
 * hytile when libhytile.so comes first at link time or through LD_PRELOAD.
 *
 * Behaviour of reference LAPACK: arguments checked in LAPACK's order, XERBLA called with the
 * position of the first bad one and INFO = -position with nothing written; quick return for
 * empty problems; INFO = i for the first exactly zero U(i,i) with the factorization completed.
 *
 * The runtime starts on the first call with the default configuration, adjusted by HYT_*
 * environment variables (if those are invalid, hytile says so on stderr and uses the defaults).
 * OpenBLAS is held at one thread only while a call runs.  These functions never call dgetrf_,
 * dgetrs_ or dgesv_ themselves.
 */
#include "drv_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

extern void xerbla_(const char *srname, const int *info, size_t srname_len);
extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));

static pthread_once_t once = PTHREAD_ONCE_INIT;
static hyt_context_t *abi_ctx;
static int abi_blas_threads = -1;
static pthread_mutex_t abi_lock = PTHREAD_MUTEX_INITIALIZER;
static int abi_active;

static void abi_init(void)
{
    int before = openblas_get_num_threads ? openblas_get_num_threads() : -1;
    if (hyt_context_create(NULL, &abi_ctx)) {
        fprintf(stderr, "hytile: %s; using the default configuration\n", hyt_last_error());
        hyt_config_t *cfg;
        if (!hyt_config_create(&cfg)) {
            if (hyt_context_create(cfg, &abi_ctx)) {
                fprintf(stderr, "hytile: cannot start: %s\n", hyt_last_error());
                abi_ctx = NULL;
            }
            hyt_config_destroy(cfg);
        }
    }
    /* the context forced OpenBLAS to one thread: give the program its setting back between
     * calls */
    abi_blas_threads = before;
    if (before > 0 && openblas_set_num_threads)
        openblas_set_num_threads(before);
}

/* Enter / leave an ABI call: the context, and OpenBLAS single-threaded while hytile runs. */
static hyt_context_t *abi_enter(void)
{
    pthread_once(&once, abi_init);
    if (!abi_ctx)
        return NULL;
    pthread_mutex_lock(&abi_lock);
    if (abi_active++ == 0 && openblas_set_num_threads)
        openblas_set_num_threads(1);
    pthread_mutex_unlock(&abi_lock);
    return abi_ctx;
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
    if (abi_ctx && !abi_active) {
        hyt_context_destroy(abi_ctx);
        abi_ctx = NULL;
    }
}

static int max1(int x) { return x > 1 ? x : 1; }

static void bad_arg(const char *name, int *info, int pos)
{
    *info = -pos;
    xerbla_(name, &pos, 6);
}

/* A library failure has no LAPACK INFO: report it and return a value no LAPACK caller takes
 * for success or a pivot. */
static int lib_failure(const char *name, int rc)
{
    fprintf(stderr, "hytile: %s failed: %s (%s)\n", name, hyt_last_error(), hyt_strerror(rc));
    return rc;
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
    hyt_context_t *ctx = abi_enter();
    if (!ctx) {
        *info = lib_failure("DGETRF", HYT_ERR_SYSTEM);
        return;
    }
    int rc = hyt_dgetrf(ctx, *m, *n, a, *lda, ipiv);
    abi_leave();
    *info = rc >= 0 ? rc : lib_failure("DGETRF", rc);
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
    hyt_context_t *ctx = abi_enter();
    if (!ctx) {
        *info = lib_failure("DGETRS", HYT_ERR_SYSTEM);
        return;
    }
    int rc = hyt_dgetrs(ctx, t, *n, *nrhs, a, *lda, ipiv, b, *ldb);
    abi_leave();
    *info = rc >= 0 ? rc : lib_failure("DGETRS", rc);
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
    hyt_context_t *ctx = abi_enter();
    if (!ctx) {
        *info = lib_failure("DGESV", HYT_ERR_SYSTEM);
        return;
    }
    int rc = hyt_dgetrf(ctx, *n, *n, a, *lda, ipiv);
    if (rc == 0 && *nrhs > 0)
        rc = hyt_dgetrs(ctx, 'N', *n, *nrhs, a, *lda, ipiv, b, *ldb);
    abi_leave();
    *info = rc >= 0 ? rc : lib_failure("DGESV", rc);
}
