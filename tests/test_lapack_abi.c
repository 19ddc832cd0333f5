/*
 * The LAPACK ABI entry points: dgetrf_, dgetrs_, dgesv_ resolve to libhytile (or, run with
 * LD_PRELOAD=libhytile.so, replace the ones of the BLAS/LAPACK library the program is linked
 * with), check arguments in LAPACK's order through XERBLA without writing anything, quick-return
 * on empty problems, give INFO exactly, and solve correctly (backward error).
 *
 * Usage: test_lapack_abi [preload]
 *        test_lapack_abi threads W   calls below abi.min_n start no runtime; a large one starts
 *                                    W workers (as the environment asks: OPENBLAS_NUM_THREADS)
 *        test_lapack_abi fork        the runtime after fork(): in the child, and the parent's
 *        test_lapack_abi fallback    run with a library fault (HYT_FAULT_*): the CPU LAPACK
 *                                    redoes the calls hytile fails, from intact arguments, and
 *                                    says so once on stderr
 *        test_lapack_abi gpu_min_n   GPU panels, HYT_GPU_MIN_N=350, HYT_FAULT_TASK=1: smaller
 *                                    calls go to the CPU LAPACK, larger ones to hytile
 *        test_lapack_abi per_worker [solve]
 *                                    no devices, 4 workers, abi.min_n = auto, HYT_FAULT_TASK=1:
 *                                    LUs below 128 per worker (512) go to the CPU LAPACK, larger
 *                                    ones to hytile; with solve, a dgetrs_ at n = 400 to hytile
 */
#include "hyt_test.h"
#include "abi_test.h"
#include "lu_check.h"

#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>

extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));

void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t trans_len);
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);

/* dgesv_ on a random n x n system (seed), checked by backward error; its INFO. */
static int solve_checked(int n, unsigned long long seed, const char *what)
{
    int nrhs = 2, lda = n + 1, info = -12345;
    double *A0 = malloc((size_t)lda * n * sizeof *A0), *A = malloc((size_t)lda * n * sizeof *A);
    double *B0 = malloc((size_t)n * nrhs * sizeof *B0), *B = malloc((size_t)n * nrhs * sizeof *B);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    REQUIRE(A0 && A && B0 && B && ipiv, "malloc");
    fill_random(A0, lda, n, lda, seed);
    fill_random(B0, n, nrhs, n, seed + 1);
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    memcpy(B, B0, (size_t)n * nrhs * sizeof *B);
    dgesv_(&n, &nrhs, A, &lda, ipiv, B, &n, &info);
    double e = solve_backward_error('N', n, nrhs, A0, lda, B, n, B0, n);
    CHECK(info == 0 && e < LU_THRESH, "%s: dgesv_ n = %d: info %d, backward error %g", what, n,
          info, e);
    free(A0);
    free(A);
    free(B0);
    free(B);
    free(ipiv);
    return info;
}

static int count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    REQUIRE(d, "/proc/self/task");
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Small calls go to the next LAPACK (no runtime started); the worker count follows the
 * environment. */
static int check_threads(int workers)
{
    solve_checked(8, 11, "small");
    CHECK(count_threads() == 1, "a call below abi.min_n started %d threads",
          count_threads() - 1);
    solve_checked(300, 12, "large");
    CHECK(count_threads() == 1 + workers, "%d threads, expected 1 + %d workers",
          count_threads(), workers);
    return test_result("test_lapack_abi threads");
}

/* A child process after the parent used the runtime: works, exits; the parent goes on.  A hang
 * fails through alarm(). */
static int check_fork(void)
{
    alarm(240);
    solve_checked(300, 21, "parent before fork");
    for (int call = 0; call < 2; call++) {
        pid_t pid = fork();
        REQUIRE(pid >= 0, "fork");
        if (pid == 0) {
            alarm(60);
            if (call)
                exit(0); /* a plain exit: the inherited context must be left alone */
            solve_checked(300, 22, "child");
            solve_checked(260, 23, "child again");
            exit(test_failures ? 1 : 0);
        }
        int st;
        REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid");
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: %s %d", call,
              WIFEXITED(st) ? "exit status" : "killed by signal",
              WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    }
    solve_checked(300, 24, "parent after fork");
    return test_result("test_lapack_abi fork");
}

/* Under HYT_FAULT_*: every call right, from the CPU LAPACK where hytile failed, one message.
 * n = 800: the copy kept for the redo (5.1 MB) is made by the workers, in a mapping of its own;
 * n = 400: the second call's copy (1.3 MB) is the first one's mapping, kept; n = 300 a
 * malloc'ed one. */
static void fallback_calls(void)
{
    static const int ns[] = {800, 400, 300};
    for (int i = 0; i < 3; i++)
        solve_checked(ns[i], 31 + (unsigned)i, "fallback");
}

static int check_fallback(void)
{
    expect_fallback_said_once(fallback_calls);
    return test_result("test_lapack_abi fallback");
}

/* With GPU panels and HYT_GPU_MIN_N=350, under HYT_FAULT_TASK=1: calls below gpu.min_n go to
 * the CPU LAPACK (hytile runs no task: nothing to redo), the first one from it on fails in
 * hytile and is redone. */
static void calls_below_min_n(void)
{
    solve_checked(300, 41, "below gpu.min_n");
    solve_checked(349, 42, "below gpu.min_n");
}

static void calls_from_min_n(void)
{
    solve_checked(350, 43, "from gpu.min_n");
    solve_checked(400, 44, "from gpu.min_n");
}

static int check_gpu_min_n(void)
{
    expect_fallback_said(calls_below_min_n, 0);
    expect_fallback_said(calls_from_min_n, 1);
    return test_result("test_lapack_abi gpu_min_n");
}

/* Without devices, 4 workers, abi.min_n = auto, under HYT_FAULT_TASK=1: LUs below 512 go to
 * the CPU LAPACK (hytile runs no task: nothing to redo), the first one from 512 on fails in
 * hytile and is redone; a solve alone from 384 on is hytile's (auto keeps 384 for it). */
static void lus_below_per_worker(void)
{
    solve_checked(400, 51, "below 128 per worker");
    solve_checked(511, 52, "below 128 per worker");
}

static void lus_from_per_worker(void)
{
    solve_checked(512, 53, "from 128 per worker");
    solve_checked(600, 54, "from 128 per worker");
}

static void solve_alone(void)
{
    int n = 400, nrhs = 1, info = -1;
    double *A = malloc((size_t)n * n * sizeof *A), *B = malloc((size_t)n * sizeof *B);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    REQUIRE(A && B && ipiv, "malloc");
    fill_random(A, n, n, n, 55);
    fill_random(B, n, 1, n, 56);
    for (int i = 0; i < n; i++) /* a factor as dgetrf_ leaves it: no interchanges */
        ipiv[i] = i + 1, A[i + (int64_t)i * n] += n;
    dgetrs_("N", &n, &nrhs, A, &n, ipiv, B, &n, &info, 1);
    CHECK(info == 0, "dgetrs_ n = %d: info %d", n, info);
    free(A);
    free(B);
    free(ipiv);
}

static int check_per_worker(int solve)
{
    if (solve) { /* a process of its own: the message is said once */
        expect_fallback_said(solve_alone, 1);
    } else {
        expect_fallback_said(lus_below_per_worker, 0);
        expect_fallback_said(lus_from_per_worker, 1);
    }
    return test_result("test_lapack_abi per_worker");
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "threads"))
        return check_threads(atoi(argv[2]));
    if (argc > 1 && !strcmp(argv[1], "fork"))
        return check_fork();
    if (argc > 1 && !strcmp(argv[1], "fallback"))
        return check_fallback();
    if (argc > 1 && !strcmp(argv[1], "gpu_min_n"))
        return check_gpu_min_n();
    if (argc > 1 && !strcmp(argv[1], "per_worker"))
        return check_per_worker(argc > 2 && !strcmp(argv[2], "solve"));
    int preload = argc > 1 && !strcmp(argv[1], "preload");
    Dl_info dl;
    REQUIRE(dladdr((void *)dgetrf_, &dl) && dl.dli_fname, "dladdr");
    CHECK(strstr(dl.dli_fname, "libhytile") != NULL, "dgetrf_ resolves to %s, not libhytile%s",
          dl.dli_fname, preload ? " (LD_PRELOAD)" : "");

    int n = 300, nrhs = 3, lda = n + 2, ldb = n + 1, info;
    double *A0 = malloc((size_t)lda * n * sizeof *A0), *A = malloc((size_t)lda * n * sizeof *A);
    double *B0 = malloc((size_t)ldb * nrhs * sizeof *B0), *B = malloc((size_t)ldb * nrhs * sizeof *B);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    fill_random(A0, lda, n, lda, 1);
    fill_random(B0, ldb, nrhs, ldb, 2);

    /* factor + solve both ways */
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    dgetrf_(&n, &n, A, &lda, ipiv, &info);
    CHECK(info == 0, "dgetrf_ info %d", info);
    CHECK(lu_backward_error(n, n, A0, lda, A, lda, ipiv) < LU_THRESH, "dgetrf_ backward error");
    for (int t = 0; t < 3; t++) {
        char trans = "NTC"[t];
        memcpy(B, B0, (size_t)ldb * nrhs * sizeof *B);
        dgetrs_(&trans, &n, &nrhs, A, &lda, ipiv, B, &ldb, &info, 1);
        CHECK(info == 0, "dgetrs_ %c info %d", trans, info);
        double e = solve_backward_error(trans == 'N' ? 'N' : 'T', n, nrhs, A0, lda, B, ldb, B0, ldb);
        CHECK(e < LU_THRESH, "dgetrs_ %c backward error %g", trans, e);
    }
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    memcpy(B, B0, (size_t)ldb * nrhs * sizeof *B);
    dgesv_(&n, &nrhs, A, &lda, ipiv, B, &ldb, &info);
    CHECK(info == 0, "dgesv_ info %d", info);
    CHECK(solve_backward_error('N', n, nrhs, A0, lda, B, ldb, B0, ldb) < LU_THRESH,
          "dgesv_ backward error");
    /* rectangular, both ways */
    int m2 = 200, n2 = 130;
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    dgetrf_(&m2, &n2, A, &lda, ipiv, &info);
    CHECK(info == 0 && lu_backward_error(m2, n2, A0, lda, A, lda, ipiv) < LU_THRESH, "200x130");
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    dgetrf_(&n2, &m2, A, &lda, ipiv, &info);
    CHECK(info == 0 && lu_backward_error(n2, m2, A0, lda, A, lda, ipiv) < LU_THRESH, "130x200");

    /* the program's OpenBLAS thread count, as it is at each call, is given back */
    if (openblas_set_num_threads && openblas_get_num_threads) {
        for (int t = 2; t >= 1; t--) {
            openblas_set_num_threads(t);
            int want = openblas_get_num_threads();
            memcpy(A, A0, (size_t)lda * n * sizeof *A);
            dgetrf_(&n, &n, A, &lda, ipiv, &info);
            CHECK(openblas_get_num_threads() == want, "OpenBLAS threads %d after a call, the "
                  "program had set %d", openblas_get_num_threads(), want);
        }
    }

    /* INFO for a singular matrix: first exactly zero pivot, factorization completed */
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    memset(A + (int64_t)77 * lda, 0, (size_t)n * sizeof *A);
    double *As = malloc((size_t)lda * n * sizeof *As);
    memcpy(As, A, (size_t)lda * n * sizeof *A);
    dgetrf_(&n, &n, A, &lda, ipiv, &info);
    CHECK(info == 78, "singular: info %d, expected 78", info);
    CHECK(lu_backward_error(n, n, As, lda, A, lda, ipiv) < LU_THRESH, "singular: not completed");
    memcpy(A, As, (size_t)lda * n * sizeof *A);
    memcpy(B, B0, (size_t)ldb * nrhs * sizeof *B);
    dgesv_(&n, &nrhs, A, &lda, ipiv, B, &ldb, &info);
    CHECK(info == 78 && !memcmp(B, B0, (size_t)ldb * nrhs * sizeof *B),
          "dgesv_ singular: info %d, B must be untouched", info);

    /* bad arguments: LAPACK's order, xerbla, nothing written */
    double a[16] = {1}, b[4] = {2}, a0[16], b0[4];
    int p[4] = {9, 9, 9, 9}, m1 = -1, z = 0, one = 1, four = 4, three = 3;
    memcpy(a0, a, sizeof a);
    memcpy(b0, b, sizeof b);
    xcalls = 0;
    dgetrf_(&m1, &four, a, &four, p, &info);
    expect_xerbla("DGETRF", 1, info, "dgetrf_ m");
    dgetrf_(&four, &m1, a, &four, p, &info);
    expect_xerbla("DGETRF", 2, info, "dgetrf_ n");
    dgetrf_(&four, &four, a, &three, p, &info);
    expect_xerbla("DGETRF", 4, info, "dgetrf_ lda");
    dgetrf_(&m1, &m1, a, &z, p, &info); /* several bad: the first is reported */
    expect_xerbla("DGETRF", 1, info, "dgetrf_ several");
    dgetrs_("X", &four, &one, a, &four, p, b, &four, &info, 1);
    expect_xerbla("DGETRS", 1, info, "dgetrs_ trans");
    dgetrs_("N", &m1, &one, a, &four, p, b, &four, &info, 1);
    expect_xerbla("DGETRS", 2, info, "dgetrs_ n");
    dgetrs_("N", &four, &m1, a, &four, p, b, &four, &info, 1);
    expect_xerbla("DGETRS", 3, info, "dgetrs_ nrhs");
    dgetrs_("N", &four, &one, a, &three, p, b, &four, &info, 1);
    expect_xerbla("DGETRS", 5, info, "dgetrs_ lda");
    dgetrs_("N", &four, &one, a, &four, p, b, &three, &info, 1);
    expect_xerbla("DGETRS", 8, info, "dgetrs_ ldb");
    dgesv_(&m1, &one, a, &four, p, b, &four, &info);
    expect_xerbla("DGESV", 1, info, "dgesv_ n");
    dgesv_(&four, &m1, a, &four, p, b, &four, &info);
    expect_xerbla("DGESV", 2, info, "dgesv_ nrhs");
    dgesv_(&four, &one, a, &three, p, b, &four, &info);
    expect_xerbla("DGESV", 4, info, "dgesv_ lda");
    dgesv_(&four, &one, a, &four, p, b, &three, &info);
    expect_xerbla("DGESV", 7, info, "dgesv_ ldb");
    CHECK(!memcmp(a, a0, sizeof a) && !memcmp(b, b0, sizeof b) && p[0] == 9,
          "bad arguments wrote data");
    /* quick returns */
    info = 5;
    dgetrf_(&z, &four, a, &one, p, &info);
    CHECK(info == 0 && xcalls == 0 && p[0] == 9, "dgetrf_ m = 0");
    info = 5;
    dgetrs_("n", &four, &z, a, &four, p, b, &four, &info, 1);
    CHECK(info == 0 && xcalls == 0, "dgetrs_ nrhs = 0 (lower-case trans)");
    info = 5;
    dgesv_(&z, &one, a, &one, p, b, &one, &info);
    CHECK(info == 0 && xcalls == 0, "dgesv_ n = 0");
    free(A0);
    free(A);
    free(As);
    free(B0);
    free(B);
    free(ipiv);
    return test_result("test_lapack_abi");
}
