/*
 * The hybrid Cholesky (drivers/chol/pdpotrf_hybrid.c: diagonal tiles and panels on the CPUs,
 * the trailing tile columns on 1 to 3 devices, every copy a task), checked by backward error
 * ||A - L L^T|| / (||A|| n eps) < 30 and against the CPU-only factorization (the same nb and
 * lookahead; equal to rounding): sizes not multiples of nb, n < nb, lookahead 0..2, both
 * triangles, the LAPACK layout (lda > n; the other triangle and the padding untouched) and
 * CCRB tiles; matrices that are not positive definite (INFO exactly the first failing minor at
 * the start, inside a tile, at both sides of a tile boundary, in a device column, at the end;
 * the final tiles (left of the failing one, down to its row) equal to the CPU-only ones to
 * rounding); NaN (no hang); fault injection (debug.fault_device: an error, or a
 * correct result; debug.fault_alloc, every allocation of an asynchronous call in turn, its
 * tasks held back while it inserts them, so that the failures of its last insertions, the
 * cleanups', are reached in every run).  The tile calls with GPU panels (chol.panel = gpu:
 * every column on the devices, pdpotrf_hybrid.c) by the same checks, and hyt_dposv_tile's
 * solve after them (B untouched when the matrix is not positive definite).  The LAPACK-layout
 * calls through a device matrix (hyt_dpotrf, hyt_dposv with chol.panel = gpu) under a device
 * fault at every k-th call in turn: an error leaves A and B untouched bit for bit, any other
 * outcome is right (INFO, factor, X), also when the fault came after part of the factor was
 * back in A (finished on the CPU workers; some run must be); and that end on the CPUs alone
 * (hyt_chol_resume) on random partly written states, SPD or not.  On CUDA GPUs
 * chol.panel is auto, i.e. gpu, in the sweeps too: there HYT_CHOL_PANEL=cpu runs the hybrid.
 *
 * Usage: test_chol_hybrid          on host:1 .. host:3 (quick suite; HYT_CHAOS applies)
 *        test_chol_hybrid cuda     on 1 to 3 CUDA GPUs (gpu suite; exit 77 without one)
 */
#include "chol_internal.h"
#include "hytile.h"
#include "hyt_runtime.h"
#include "hyt_test.h"
#include "rt_internal.h" /* the context's allocation count, for the gate */
#include "chol_check.h"

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <time.h>

static int use_cuda;

/* A context with ndev devices and debug.fault_device = fault. */
static hyt_context_t *dev_context(int ndev, long fault)
{
    char spec[64], f[24];
    test_device_list(use_cuda, ndev, spec, sizeof spec);
    snprintf(f, sizeof f, "%ld", fault);
    return test_context(2, spec, "debug.fault_device", f, (char *)NULL);
}

/* Factor A (n x n, lda) in place with nb, la: the LAPACK view (tiles = 0) or a CCRB copy through
 * hyt_dpotrf_tile (chol.lookahead = la).  Returns INFO or the error. */
static int factor(hyt_context_t *ctx, char uplo, int n, double *a, int lda, int nb, int la,
                  int tiles)
{
    if (!tiles) {
        hyt_chol_params_t p = {nb, la, 0};
        return hyt_dpotrf_params(ctx, uplo, n, a, lda, &p);
    }
    char b[16];
    snprintf(b, sizeof b, "%d", la);
    REQUIRE(!hyt_context_set(ctx, "chol.lookahead", b), "%s", hyt_last_error());
    hyt_desc_t A;
    REQUIRE(!hyt_desc_create(ctx, n, n, nb, &A), "%s", hyt_last_error());
    REQUIRE(!hyt_lapack_to_tile(ctx, a, lda, &A), "%s", hyt_last_error());
    int info = hyt_dpotrf_tile(ctx, uplo, &A);
    REQUIRE(!hyt_tile_to_lapack(ctx, &A, a, lda), "%s", hyt_last_error());
    hyt_desc_destroy(&A);
    REQUIRE(!hyt_context_set(ctx, "chol.lookahead", "auto"), "%s", hyt_last_error());
    return info;
}

/* max |F - G| over the leading nr x nc block of L (of U^T for 'U'), relative to max |G|
 * there. */
static double tri_diff(char uplo, int nr, int nc, const double *F, const double *G, int lda)
{
    double d = 0, g = 0;
    for (int c = 0; c < nc; c++)
        for (int r = c; r < nr; r++) {
            int64_t at = uplo == 'L' ? r + (int64_t)c * lda : c + (int64_t)r * lda;
            double x = F[at], y = G[at];
            d = fmax(d, fabs(x - y));
            g = fmax(g, fabs(y));
            if (isnan(x) != isnan(y))
                d = INFINITY;
        }
    return g > 0 ? d / g : d;
}

/* An n x n matrix (failing minor `fail`, 0: SPD) factored on ctx and on the CPUs (cpu) with the
 * same nb and la: INFO exactly, the same factor to rounding, the backward error when SPD, and
 * the other triangle and the padding untouched (tile matrices too). */
static void check(hyt_context_t *ctx, hyt_context_t *cpu, char uplo, int n, int nb, int la,
                  int fail, int tiles, const char *what)
{
    int lda = n + 3;
    size_t sz = ((size_t)lda * n + 1) * sizeof(double);
    double *A0 = malloc(sz), *A = malloc(sz), *C = malloc(sz);
    fill_random(A0, lda, n, lda, (unsigned long long)n + 5); /* the padding rows */
    chol_matrix(A0, n, lda, fail, (unsigned long long)(n * 31 + fail));
    memcpy(A, A0, sz);
    memcpy(C, A0, sz);
    int info = factor(ctx, uplo, n, A, lda, nb, la, tiles);
    int cinfo = factor(cpu, uplo, n, C, lda, nb, la, tiles);
    CHECK(info == fail && cinfo == fail, "%s: %c n %d nb %d la %d %s: info %d, CPU-only %d, "
          "expected %d (%s)", what, uplo, n, nb, la, tiles ? "tiles" : "lapack", info, cinfo,
          fail, hyt_last_error());
    /* with a failure in tile kf, tiles (i, j), j < kf, i <= kf are final: each version skips
     * the tasks that had not started when the failure was found (the panels' lower tiles of
     * the last steps among them), so the rest is not defined */
    const int kf = fail ? (fail - 1) / nb : 0;
    const int nr = fail ? ((kf + 1) * nb < n ? (kf + 1) * nb : n) : n, nc = fail ? kf * nb : n;
    double d = tri_diff(uplo, nr, nc, A, C, lda);
    CHECK(d < 1e3 * n * DBL_EPSILON, "%s: %c n %d nb %d la %d fail %d: differs from the "
          "CPU-only factor by %g (relative)", what, uplo, n, nb, la, fail, d);
    /* tiles: through the tile matrix and back, so the padding as well */
    CHECK(chol_other_untouched(uplo, n, lda, A, A0),
          "%s: %c n %d nb %d la %d %s: the other triangle or the padding changed",
          what, uplo, n, nb, la, tiles ? "tiles" : "lapack");
    if (!fail) {
        double e = chol_backward_error(uplo, n, A0, lda, A, lda);
        CHECK(e < LU_THRESH, "%s: %c n %d nb %d la %d %s: ||A-LL^T||/(||A|| n eps) = %g", what,
              uplo, n, nb, la, tiles ? "tiles" : "lapack", e);
    }
    free(A0);
    free(A);
    free(C);
}

/* NaN input: returns (no hang), INFO in range, INFO > 0 or NaN in the factor. */
static void check_nan(hyt_context_t *ctx, char uplo, int n, int nb, int la)
{
    double *A = malloc((size_t)n * n * sizeof *A);
    for (int variant = 0; variant < 3; variant++) {
        chol_matrix(A, n, n, 0, 55 + (unsigned long long)variant);
        int r = n - 2, c = n / 3; /* in a device column's rows, lower triangle; or its mirror */
        if (variant == 0)
            A[0] = NAN;
        else if (variant == 1)
            A[uplo == 'L' ? r + (int64_t)c * n : c + (int64_t)r * n] = NAN;
        else
            for (int64_t i = 0; i < (int64_t)n * n; i++)
                A[i] = NAN;
        hyt_chol_params_t p = {nb, la, 0};
        chol_check_nan_result(uplo, n, A, hyt_dpotrf_params(ctx, uplo, n, A, n, &p), variant);
    }
    free(A);
}

/* A context of 2 workers on ndev devices (HYT_* variables apply) with key = fault
 * (debug.fault_device or debug.fault_alloc) and chol.lookahead 1 (the tile calls' lookahead);
 * NULL when the fault hit its creation, whose error must carry a message.  On CUDA devices the
 * creation makes device calls too: a fault there is an error of hyt_context_create, reported
 * like any other. */
static hyt_context_t *fault_context(int ndev, const char *key, long fault)
{
    char spec[64], f[24];
    test_device_list(use_cuda, ndev, spec, sizeof spec);
    snprintf(f, sizeof f, "%ld", fault);
    hyt_config_t *cfg;
    hyt_context_t *ctx = NULL;
    REQUIRE(!hyt_config_create(&cfg) && !hyt_config_load_env(cfg) &&
                !hyt_config_set(cfg, "runtime.workers", "2", HYT_SRC_API, NULL) &&
                !hyt_config_set(cfg, "runtime.devices", spec, HYT_SRC_API, NULL) &&
                !hyt_config_set(cfg, "chol.lookahead", "1", HYT_SRC_API, NULL) &&
                !hyt_config_set(cfg, key, f, HYT_SRC_API, NULL),
            "%s", hyt_last_error());
    int crc = hyt_context_create(cfg, &ctx);
    hyt_config_destroy(cfg);
    if (crc)
        CHECK(crc < -1000 && test_says_why(hyt_last_error()), "%s %ld: context creation gave "
              "%d without a message: '%s'", key, fault, crc, hyt_last_error());
    return crc ? NULL : ctx;
}

/* The outcome of a call with an injected fault (key = fault): rc an error (HYT_ERR_*) with a
 * message, or INFO 0 and A (n x n) the factor of A0.  Returns 1 when the fault was reported. */
static int check_outcome(const char *key, long fault, int rc, const char *msg, char uplo, int n,
                         const double *A0, const double *A)
{
    if (rc < -1000) {
        CHECK(test_says_why(msg), "%s %ld: error %d without a message: '%s'", key, fault, rc,
              msg);
        return 1;
    }
    CHECK(rc == 0, "%s %ld: %d, neither INFO 0 nor a library error", key, fault, rc);
    double e = chol_backward_error(uplo, n, A0, n, A, n);
    CHECK(e < LU_THRESH, "%s %ld: no error reported but the backward error is %g", key, fault, e);
    return 0;
}

/* The k-th device call fails: an error (HYT_ERR_*, the message set), or INFO 0 and a correct
 * factor; nothing hangs or leaks. */
static int check_fault(int ndev, long fault, char uplo, int n, int nb)
{
    hyt_context_t *ctx = fault_context(ndev, "debug.fault_device", fault);
    if (!ctx)
        return 1;
    double *A0 = malloc((size_t)n * n * sizeof *A0), *A = malloc((size_t)n * n * sizeof *A);
    chol_matrix(A0, n, n, 0, (unsigned long long)fault);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    hyt_chol_params_t p = {nb, 1, 0};
    int rc = hyt_dpotrf_params(ctx, uplo, n, A, n, &p);
    int failed = check_outcome("debug.fault_device", fault, rc, hyt_last_error(), uplo, n, A0, A);
    free(A0);
    free(A);
    hyt_context_destroy(ctx);
    return failed;
}

/* A CPU task that writes every tile of a matrix and waits until the test opens it, or until
 * the injected allocation fault has happened: the tasks of a factorization inserted after it
 * (its first ones read those tiles) wait for it, so none of them runs, finishes or is freed
 * while the others are inserted, and the insertion's allocations come in the same order in
 * every run (a task freed meanwhile would be reused without one).  Once the fault has happened
 * the order no longer matters, and the insertion may wait for tasks (a call whose cleanup
 * cannot be inserted waits for its sequence; an edge that cannot be recorded waits for its
 * predecessor). */
typedef struct gate_args {
    atomic_int *open;
    hyt_context_t *ctx;
} gate_args_t;

static int gate_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const gate_args_t *g = p;
    const struct timespec pause = {0, 20000};
    while (!atomic_load(g->open) && atomic_load(&g->ctx->count_alloc) < g->ctx->fault_alloc)
        nanosleep(&pause, NULL);
    return 0;
}

static const hyt_kernel_t gate_kernel = {.name = "test_gate", .cpu = gate_body,
                                         .cat = HYT_CAT_OTHER};

/* One call of the LAPACK-layout path through the devices (chol.panel = gpu, nb, lookahead 1)
 * with the k-th device call failing: dposv when solve, else dpotrf, on a matrix
 * whose minor `fail` fails (0: SPD).  The contract: an error (with a message) leaves A and B
 * as they were, bit for bit; otherwise INFO is exact, the factor (SPD) and X right, B untouched
 * when INFO > 0, the other triangle and the padding untouched; after success, a message in
 * hyt_last_error() exactly when a device call failed.  Returns -1 for an error, 1 for a correct
 * result although a device call failed (the call finished without the devices), 0 for a
 * correct result without one (no fault, or one absorbed: a page-locked allocation that fell
 * back to pageable memory); *calls: the device calls the context made. */
static int lapack_fault_run(int ndev, long k, char uplo, int n, int nb, int fail, int solve,
                            long *calls)
{
    hyt_context_t *ctx = fault_context(ndev, "debug.fault_device", k);
    if (!ctx)
        return -1;
    char b[16];
    snprintf(b, sizeof b, "%d", nb);
    REQUIRE(!hyt_context_set(ctx, "chol.panel", "gpu") && !hyt_context_set(ctx, "chol.nb", b) &&
                !hyt_context_set(ctx, "gpu.min_n", "1"),
            "%s", hyt_last_error());
    const int lda = n + 2, ldb = n + 1, nrhs = 2;
    const size_t asz = (size_t)lda * n * sizeof(double), bsz = (size_t)ldb * nrhs * 8;
    double *A0 = malloc(asz), *A = malloc(asz), *B0 = malloc(bsz), *B = malloc(bsz);
    REQUIRE(A0 && A && B0 && B, "malloc");
    fill_random(A0, lda, n, lda, (unsigned long long)k + 3); /* the padding, the other half */
    chol_matrix(A0, n, lda, fail, (unsigned long long)k + 7);
    fill_random(B0, ldb, nrhs, ldb, (unsigned long long)k + 11);
    memcpy(A, A0, asz);
    memcpy(B, B0, bsz);
    int rc = solve ? hyt_dposv(ctx, uplo, n, nrhs, A, lda, B, ldb)
                   : hyt_dpotrf(ctx, uplo, n, A, lda);
    /* a fault at a page-locked host allocation falls back to pageable memory: no device
     * failed, so a successful call has no message for it */
    const int fired = atomic_load(&ctx->count_device) >= k,
              failed = fired && !atomic_load(&ctx->fault_absorbed);
    *calls = atomic_load(&ctx->count_device);
    const char *what = solve ? "dposv" : "dpotrf";
    int out;
    if (rc < -1000) {
        CHECK(test_says_why(hyt_last_error()), "%s %c fault %ld: error %d without a message",
              what, uplo, k, rc);
        CHECK(!memcmp(A, A0, asz) && !memcmp(B, B0, bsz), "%s %c fault %ld: an error (%s) "
              "with A or B changed", what, uplo, k, hyt_last_error());
        out = -1;
    } else {
        CHECK(rc == fail, "%s %c fault %ld: info %d, expected %d (%s)", what, uplo, k, rc, fail,
              hyt_last_error());
        /* a call that succeeded says why exactly when a device failed (README) */
        CHECK(failed == (*hyt_last_error() != 0),
              "%s %c fault %ld: succeeded, the fault %s, and the message is '%s'", what, uplo,
              k, failed ? "failed a device call" : fired ? "was absorbed" : "did not fire",
              hyt_last_error());
        CHECK(chol_other_untouched(uplo, n, lda, A, A0),
              "%s %c fault %ld: the other triangle or the padding changed", what, uplo, k);
        if (!fail && !solve) {
            double e = chol_backward_error(uplo, n, A0, lda, A, lda);
            CHECK(e < LU_THRESH, "%s %c fault %ld: backward error %g", what, uplo, k, e);
        } else if (!fail) {
            double e = solve_backward_error('N', n, nrhs, A0, lda, B, ldb, B0, ldb);
            CHECK(e < LU_THRESH, "%s %c fault %ld: solve error %g", what, uplo, k, e);
        } else {
            CHECK(!memcmp(B, B0, bsz), "%s %c fault %ld: B written with INFO %d", what, uplo, k,
                  rc);
        }
        out = failed;
    }
    free(A0);
    free(A);
    free(B0);
    free(B);
    hyt_context_destroy(ctx);
    return out;
}

/* The LAPACK-layout calls through the devices under every k-th device call failing in turn
 * (a stride of them): the factor's tile columns come back as their panels finish, so a fault
 * late in the call finds A partly written, and the CPU workers finish from there
 * (drivers/chol/chol_resume.c).  Some fault must be reported, and some recovered so. */
static void check_lapack_faults(int ndev, int nb)
{
    const int n = 5 * nb + 3;
    long calls = 0;
    /* the device calls of a run without a fault (counted from a fault point never reached) */
    lapack_fault_run(ndev, LONG_MAX, 'L', n, nb, 0, 1, &calls);
    /* every call on host devices (a second each); on GPUs, where each run starts a CUDA
     * context, about 40 of them */
    const long stride = use_cuda && calls / 40 > 1 ? calls / 40 : 1;
    int errors = 0, recovered = 0, runs = 0;
    for (long k = 1; k <= calls + stride; k += stride, runs++) {
        long c;
        const char uplo = "LU"[runs % 2];
        const int fail = runs % 3 == 2 ? 2 * nb + 3 : 0, solve = runs % 4 >= 2;
        int r = lapack_fault_run(ndev, k, uplo, n, nb, fail, solve, &c);
        errors += r < 0;
        recovered += r > 0;
    }
    printf("LAPACK layout through %d device(s), faults at 1..%ld (stride %ld): %d errors with "
           "A and B untouched, %d recovered on the CPUs, %d without a device failure\n", ndev,
           calls, stride, errors, recovered, runs - errors - recovered);
    CHECK(errors > 0 && recovered > 0, "LAPACK-layout faults: %d errors, %d recovered", errors,
          recovered);
}

/* hyt_chol_resume (drivers/chol/chol_resume.c) alone, on the states a failed device call can
 * leave: the factor's tiles written (marked) in every column left of a random one k0, in column
 * k0 the diagonal tile or none, then any of its other tiles, and in later columns (their
 * returns may have run too) any tiles after their diagonal one; A's own tiles elsewhere.  With
 * a failing minor in tile column kf, the marked tiles right of the failing column hold garbage
 * (as the device's do).  The result must be the factor (backward error), INFO exact, the other
 * triangle and the padding untouched. */
static void check_resume(hyt_context_t *cpu, char uplo, int nb, int fail, unsigned long long seed)
{
    const int n = 6 * nb + 5, lda = n + 2, nt = (n + nb - 1) / nb;
    const size_t sz = (size_t)lda * n * sizeof(double);
    double *A0 = malloc(sz), *F = malloc(sz), *A = malloc(sz);
    unsigned char *marks = calloc((size_t)nt * nt, 1);
    REQUIRE(A0 && F && A && marks, "malloc");
    fill_random(A0, lda, n, lda, seed + 1);
    chol_matrix(A0, n, lda, fail, seed);
    memcpy(F, A0, sz);
    hyt_chol_params_t p = {nb, 1, 'n'};
    REQUIRE(hyt_dpotrf_params(cpu, uplo, n, F, lda, &p) == fail, "the reference factor");
    test_rng_t rng = {seed};
    const int kf = fail ? (fail - 1) / nb : nt, k0 = test_randint(&rng, kf < nt ? kf + 1 : nt);
    memcpy(A, A0, sz);
    for (int j = 0; j < nt; j++) {
        const int diag = j < k0 || test_randint(&rng, 2);
        for (int i = j; i < nt && diag; i++) {
            if (j >= k0 && i > j && test_randint(&rng, 2))
                continue;
            marks[(int64_t)j * nt + i] = 1;
            const int r1 = i * nb + nb < n ? i * nb + nb : n;
            const int c1 = j * nb + nb < n ? j * nb + nb : n;
            for (int c = j * nb; c < c1; c++)
                for (int r = i * nb; r < r1; r++) {
                    if (i == j && r < c)
                        continue; /* a diagonal tile: its triangle */
                    const int64_t at = uplo == 'L' ? r + (int64_t)c * lda : c + (int64_t)r * lda;
                    A[at] = j > kf ? test_uniform(&rng) : F[at]; /* garbage past the failure */
                }
        }
    }
    int info = -1;
    int rc = hyt_chol_resume(cpu, uplo, n, A, lda, nb, marks, &info);
    CHECK(rc == 0 && info == fail, "resume %c nb %d fail %d seed %llu (k0 %d): rc %d, info %d "
          "(%s)", uplo, nb, fail, seed, k0, rc, info, hyt_last_error());
    CHECK(chol_other_untouched(uplo, n, lda, A, A0),
          "resume %c seed %llu: the other triangle or the padding changed", uplo, seed);
    if (!fail) {
        double e = chol_backward_error(uplo, n, A0, lda, A, lda);
        CHECK(e < LU_THRESH, "resume %c nb %d seed %llu (k0 %d): backward error %g", uplo, nb,
              seed, k0, e);
    }
    free(A0);
    free(F);
    free(A);
    free(marks);
}

/* The k-th allocation fails (debug.fault_alloc = k) in hyt_dpotrf_tile_async of the upper
 * triangle of a LAPACK view, inserted behind a gate: the hybrid through a lower tile copy
 * (pdpotrf_hybrid.c's via_copy), whose last insertions are the cleanups of the hybrid and of
 * the tile copy (hyt_drv_insert_cleanup); without the gate whether they allocate depends on
 * timing, behind it a sweep of every k reaches their failures.  An error (HYT_ERR_*, the
 * message set), or INFO 0 and a correct factor; nothing hangs or leaks.  Returns 1 when the
 * fault was reported; *fired: whether the k-th allocation came at all; *inserted: the context's
 * allocations until the call returned (its insertion; the same in every run up to the fault). */
static int check_alloc_fault(int ndev, long fault, int n, int nb, int *fired, long *inserted)
{
    *fired = 1;
    *inserted = 0;
    hyt_context_t *ctx = fault_context(ndev, "debug.fault_alloc", fault);
    if (!ctx)
        return 1;
    double *A0 = malloc((size_t)n * n * sizeof *A0), *a = malloc((size_t)n * n * sizeof *a);
    chol_matrix(A0, n, n, 0, (unsigned long long)fault);
    memcpy(a, A0, (size_t)n * n * sizeof *a);
    hyt_desc_t A;
    REQUIRE(!hyt_desc_lapack(n, n, nb, a, n, &A), "%s", hyt_last_error());
    const int ntiles = A.mt * A.nt;
    hyt_dep_t *deps = malloc((size_t)ntiles * sizeof *deps);
    for (int t = 0; t < ntiles; t++)
        deps[t] = (hyt_dep_t){hyt_tile(&A, t % A.mt, t / A.mt), HYT_WRITE};
    atomic_int open = 0;
    gate_args_t g = {&open, ctx};
    hyt_task_desc_t d = hyt_task_desc(&gate_kernel, &g, sizeof g);
    d.deps = deps;
    d.ndeps = ntiles;
    hyt_sequence_t *seq = NULL;
    int info = 0, rc = hyt_sequence_create(ctx, &seq);
    if (!rc && !(rc = hyt_task_insert(seq, &d)))
        rc = hyt_dpotrf_tile_async(seq, 'U', &A, &info);
    *inserted = atomic_load(&ctx->count_alloc);
    /* the message of the first error, before the wait */
    char msg[256];
    snprintf(msg, sizeof msg, "%s", rc ? hyt_last_error() : "");
    atomic_store(&open, 1);
    if (seq) {
        int rc2 = hyt_sequence_wait(seq);
        if (!rc && rc2)
            snprintf(msg, sizeof msg, "%s", hyt_last_error());
        rc = rc ? rc : rc2;
        hyt_sequence_destroy(seq);
    }
    int failed = check_outcome("debug.fault_alloc", fault, rc ? rc : info, msg, 'U', n, A0, a);
    *fired = atomic_load(&ctx->count_alloc) >= fault;
    free(deps);
    free(A0);
    free(a);
    hyt_context_destroy(ctx);
    return failed;
}

int main(int argc, char **argv)
{
    if ((use_cuda = test_cuda_arg(argc, argv)) < 0)
        return 2;
    const int maxdev = test_max_devices(use_cuda, 3);
    if (!maxdev)
        return 77;
    const int small = test_scale() > 1;
    hyt_context_t *cpu = test_context(2, "none", (char *)NULL);
    hyt_context_t *dev[3] = {NULL, NULL, NULL};
    for (int g = 0; g < maxdev; g++)
        dev[g] = dev_context(g + 1, 0);
    int count = 0;

    /* SPD: sizes not multiples of nb and n < nb, lookahead 0..2, 1..3 devices, both triangles,
     * LAPACK layout and tiles */
    const int nbs[] = {16, 24};
    for (int b = 0; b < 2; b++) {
        const int nb = use_cuda ? 8 * nbs[b] : nbs[b];
        const int ns[] = {nb - 5, 3 * nb + 7, 5 * nb, 7 * nb + 13};
        for (int s = 0; s < 4; s++)
            for (int la = 0; la <= 2; la++)
                for (int g = 0; g < maxdev; g++)
                    for (int v = 0; v < 4; v++) {
                        if (small && (v + la + g + s) % 2)
                            continue;
                        check(dev[g], cpu, "LU"[v % 2], ns[s], nb, la, 0, v / 2, "SPD");
                        count++;
                    }
    }

    /* larger: a few tiles per device; the public calls with automatic parameters (hyt_dposv:
     * the hybrid factorization, then the solve on the CPUs) */
    if (!small) {
        check(dev[maxdev - 1], cpu, 'L', 1000, use_cuda ? 256 : 96, 1, 0, 0, "n 1000");
        check(dev[maxdev - 1], cpu, 'U', 777, use_cuda ? 128 : 64, 2, 0, 1, "n 777");
        count += 2;
    }
    for (int u = 0; u < 2; u++) {
        const int np = 700, nrhs = 3;
        double *A0 = malloc((size_t)np * np * sizeof *A0), *A = malloc((size_t)np * np * sizeof *A);
        double *B0 = malloc((size_t)np * nrhs * sizeof *B0);
        double *X = malloc((size_t)np * nrhs * sizeof *X);
        chol_matrix(A0, np, np, 0, 700 + (unsigned long long)u);
        fill_random(B0, np, nrhs, np, 701);
        memcpy(A, A0, (size_t)np * np * sizeof *A);
        memcpy(X, B0, (size_t)np * nrhs * sizeof *X);
        int info = hyt_dposv(dev[maxdev - 1], "LU"[u], np, nrhs, A, np, X, np);
        CHECK(info == 0, "dposv %c: info %d (%s)", "LU"[u], info, hyt_last_error());
        double e = chol_backward_error("LU"[u], np, A0, np, A, np);
        double es = solve_backward_error('N', np, nrhs, A0, np, X, np, B0, np);
        CHECK(e < LU_THRESH && es < LU_THRESH, "dposv %c: factor error %g, solve error %g",
              "LU"[u], e, es);
        free(A0);
        free(A);
        free(B0);
        free(X);
        count++;
    }

    /* not positive definite: minor 1, inside tile 0, both sides of the boundary of tiles 0 and
     * 1, inside a device column, the boundary of two device columns, the last minor */
    const int nb = use_cuda ? 64 : 16, n = 6 * nb + 5;
    const int fails[] = {1, nb / 2, nb, nb + 1, 3 * nb + 7, 4 * nb, 4 * nb + 1, n};
    for (int f = 0; f < (int)(sizeof fails / sizeof fails[0]); f++)
        for (int la = 0; la <= 2; la++)
            for (int u = 0; u < 2; u++) {
                int g = (f + la + u) % maxdev;
                check(dev[g], cpu, "LU"[u], n, nb, la, fails[f], (f + u) % 2, "not PD");
                count++;
            }

    for (int u = 0; u < 2; u++)
        for (int g = 0; g < maxdev; g++)
            check_nan(dev[g], "LU"[u], 5 * nb + 3, nb, g % 3);

    /* the tile calls with GPU panels (chol.panel = gpu): every tile column loaded onto the
     * devices, factored there, returned; the same checks, INFO included; hyt_dposv_tile's
     * solve waits for that INFO (the solve of a matrix that is not PD leaves B untouched) */
    for (int g = 0; g < maxdev; g++)
        REQUIRE(!hyt_context_set(dev[g], "chol.panel", "gpu"), "%s", hyt_last_error());
    for (int s = 0; s < 3; s++)
        for (int la = 0; la <= 2; la++)
            for (int u = 0; u < 2; u++) {
                const int ng[] = {nb - 5, 3 * nb + 7, 7 * nb + 13};
                check(dev[(s + la + u) % maxdev], cpu, "LU"[u], ng[s], nb, la, 0, 1,
                      "GPU panels");
                count++;
            }
    for (int f = 0; f < (int)(sizeof fails / sizeof fails[0]); f++) {
        const int u = f % 2, la = f % 3;
        check(dev[f % maxdev], cpu, "LU"[u], n, nb, la, fails[f], 1, "GPU panels, not PD");
        count++;
    }
    /* the panels of several steps a slot and a device update (chol.group 2..4), through the
     * LAPACK layout (the columns arriving: early updates in pieces, each column returned after
     * its panel) and tiles: lookahead 0..2 (raised to the group), the last group cut short,
     * INFO at each step of a group */
    for (int G = 2; G <= 4; G++) {
        char v[8];
        snprintf(v, sizeof v, "%d", G);
        for (int g = 0; g < maxdev; g++)
            REQUIRE(!hyt_context_set(dev[g], "chol.group", v), "%s", hyt_last_error());
        for (int la = 0; la <= 2; la++)
            for (int t = 0; t < 2; t++) {
                check(dev[(G + la + t) % maxdev], cpu, "LU"[(la + t) % 2], 7 * nb + 13, nb, la,
                      0, t, "GPU panels, groups");
                count++;
            }
        for (int f = 0; f < (int)(sizeof fails / sizeof fails[0]); f++) {
            if (small && (f + G) % 2)
                continue;
            check(dev[(f + G) % maxdev], cpu, "LU"[f % 2], n, nb, (f + G) % 3, fails[f],
                  (f + G) % 2, "GPU panels, groups, not PD");
            count++;
        }
    }
    for (int g = 0; g < maxdev; g++)
        REQUIRE(!hyt_context_set(dev[g], "chol.group", "auto"), "%s", hyt_last_error());
    /* the solve on the devices where the factor is: both triangles, B of one and of two tile
     * columns, on 1 to maxdev devices; B a LAPACK view (solved on the CPUs) */
    for (int v = 0; v < 10; v++) {
        const int fail = v % 2, u = (v / 2) % 2, np = 5 * nb + 3, nrhs = v / 4 ? nb + 3 : 2;
        const char uplo = "LU"[u];
        hyt_context_t *c = dev[v % maxdev];
        double *A0 = malloc((size_t)np * np * sizeof *A0), *B0 = malloc((size_t)np * nrhs * 8);
        double *X = malloc((size_t)np * nrhs * sizeof *X);
        chol_matrix(A0, np, np, fail ? 2 * nb + 3 : 0, 900 + (unsigned long long)fail);
        fill_random(B0, np, nrhs, np, 901);
        const int view = v >= 8;
        hyt_desc_t A, B;
        REQUIRE(!hyt_desc_create(c, np, np, nb, &A), "%s", hyt_last_error());
        if (view) {
            memcpy(X, B0, (size_t)np * nrhs * sizeof *X);
            REQUIRE(!hyt_desc_lapack(np, nrhs, nb, X, np, &B), "%s", hyt_last_error());
        } else {
            REQUIRE(!hyt_desc_create(c, np, nrhs, nb, &B), "%s", hyt_last_error());
            REQUIRE(!hyt_lapack_to_tile(c, B0, np, &B), "%s", hyt_last_error());
        }
        REQUIRE(!hyt_lapack_to_tile(c, A0, np, &A), "%s", hyt_last_error());
        int info = hyt_dposv_tile(c, uplo, &A, &B);
        if (!view)
            REQUIRE(!hyt_tile_to_lapack(c, &B, X, np), "%s", hyt_last_error());
        if (fail) {
            CHECK(info == 2 * nb + 3 && !memcmp(X, B0, (size_t)np * nrhs * sizeof *X),
                  "dposv_tile %c nrhs %d%s, GPU panels, not PD: info %d (expected %d), B %s",
                  uplo, nrhs, view ? " (a LAPACK view)" : "", info, 2 * nb + 3,
                  memcmp(X, B0, (size_t)np * nrhs * sizeof *X) ? "CHANGED" : "kept");
        } else {
            double es = solve_backward_error('N', np, nrhs, A0, np, X, np, B0, np);
            CHECK(info == 0 && es < LU_THRESH, "dposv_tile %c nrhs %d%s, GPU panels: info %d "
                  "(%s), solve error %g", uplo, nrhs, view ? " (a LAPACK view)" : "", info,
                  hyt_last_error(), es);
        }
        hyt_desc_destroy(&A);
        hyt_desc_destroy(&B);
        free(A0);
        free(B0);
        free(X);
        count++;
    }
    for (int g = 0; g < maxdev; g++)
        REQUIRE(!hyt_context_set(dev[g], "chol.panel", "auto"), "%s", hyt_last_error());

    /* the end on the CPUs of a factorization partly written back, on random states */
    for (int t = 0; t < 40; t++)
        check_resume(cpu, "LU"[t % 2], t % 3 ? 8 : 5, t % 4 == 3 ? 3 * (t % 3 ? 8 : 5) + 2 : 0,
                     1000 + (unsigned long long)t);
    /* the LAPACK-layout path through the devices: a fault after part of the factor came back */
    check_lapack_faults(maxdev < 2 ? 1 : 2, use_cuda ? 64 : 16);

    /* fault injection: the k-th device call fails, on 2 devices (1 for a single GPU) */
    int failed = 0, nf = 0;
    for (long fault = 1; fault <= 400; fault = fault * 3 / 2 + 1, nf++)
        failed += check_fault(maxdev < 2 ? 1 : 2, fault, "LU"[nf % 2], 5 * nb + 3, nb);
    printf("fault injection: %d of %d runs reported the fault, the others were correct\n",
           failed, nf);
    CHECK(failed > 0, "no injected fault was reported");
    /* every allocation of the call, one at a time: on host:2 today the 234th to 238th are the
     * insertion of the hybrid's cleanup, the 250th and 251st that of the tile copy's, of 251
     * (each failure makes the call wait for its sequence and free the state itself, the path
     * of hyt_drv_insert_cleanup that no other sweep reaches for them); on GPUs a sample (each k
     * creates CUDA contexts) and the insertion's last 24, where the cleanups are */
    int fired = 1;
    long inserted = 0;
    failed = nf = 0;
    for (long fault = 1; fault <= 300; fault += use_cuda ? 13 : 1, nf++)
        failed += check_alloc_fault(maxdev < 2 ? 1 : 2, fault, 5 * nb + 3, nb, &fired, &inserted);
    CHECK(use_cuda || !fired, "the allocation-fault sweep stops before the call's last "
          "allocation: make it longer");
    if (use_cuda) {
        /* on GPUs every one of the insertion's last 24 allocations too (the cleanups'), counted
         * from a run without a fault; the one after the last must not come during it */
        check_alloc_fault(maxdev < 2 ? 1 : 2, 1L << 30, 5 * nb + 3, nb, &fired, &inserted);
        const long last = inserted;
        for (long fault = last - 23; fault <= last + 1; fault++, nf++) {
            failed += check_alloc_fault(maxdev < 2 ? 1 : 2, fault, 5 * nb + 3, nb, &fired,
                                        &inserted);
            CHECK(fault > last || inserted >= fault, "allocation %ld of %ld did not come during "
                  "the insertion", fault, last);
            CHECK(fault <= last || inserted < fault, "%ld allocations during the insertion, %ld "
                  "in the run without a fault", inserted, last);
        }
    }
    printf("allocation faults: %d of %d runs reported the fault, the others were correct\n",
           failed, nf);
    CHECK(failed > 0, "no injected allocation fault was reported");

    for (int g = 0; g < maxdev; g++)
        hyt_context_destroy(dev[g]);
    hyt_context_destroy(cpu);
    printf("%d hybrid Cholesky factorizations checked on %d %s device(s)\n", count, maxdev,
           use_cuda ? "CUDA" : "host");
    return test_result("test_chol_hybrid");
}
