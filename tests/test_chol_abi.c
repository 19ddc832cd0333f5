/*
 * The Cholesky's LAPACK ABI: dpotrf_, dpotrs_, dposv_ resolve to libhytile (or replace the
 * BLAS/LAPACK library's with LD_PRELOAD), check arguments in LAPACK's order through XERBLA
 * without writing anything, quick-return on n = 0, take 'U'/'L' in either case, give INFO
 * exactly (the first leading minor that is not positive definite; dposv_ then leaves B alone),
 * and solve correctly (backward error).
 *
 * Usage: test_chol_abi [preload]
 *        test_chol_abi fallback   run with a library fault (HYT_FAULT_*): the CPU LAPACK
 *                                 redoes the calls hytile fails, said once on stderr
 *        test_chol_abi recovered  run on devices with a late device fault: every call right,
 *                                 and hytile's CPU workers finishing the failed call, or the
 *                                 CPU LAPACK redoing it, said once
 */
#include "hyt_test.h"
#include "abi_test.h"
#include "chol_check.h"

#include <dlfcn.h>

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t len);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info, size_t len);
void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
            double *b, const int *ldb, int *info, size_t len);

/* Factor, solve, and factor-and-solve an SPD n x n system through the ABI, uplo as given. */
static void solve_checked(const char *uplo, int n, unsigned long long seed)
{
    int lda = n + 2, ldb = n + 1, nrhs = 3, info = -12345;
    size_t asz = (size_t)lda * n * sizeof(double), bsz = (size_t)ldb * nrhs * sizeof(double);
    double *A0 = malloc(asz), *A = malloc(asz), *B0 = malloc(bsz), *B = malloc(bsz);
    REQUIRE(A0 && A && B0 && B, "malloc");
    fill_random(A0, lda, n, lda, seed + 2);
    chol_matrix(A0, n, lda, 0, seed);
    fill_random(B0, ldb, nrhs, ldb, seed + 1);
    char u = uplo[0] == 'l' || uplo[0] == 'L' ? 'L' : 'U';
    memcpy(A, A0, asz);
    dpotrf_(uplo, &n, A, &lda, &info, 1);
    CHECK(info == 0 && chol_backward_error(u, n, A0, lda, A, lda) < LU_THRESH,
          "dpotrf_ %s n %d: info %d", uplo, n, info);
    memcpy(B, B0, bsz);
    dpotrs_(uplo, &n, &nrhs, A, &lda, B, &ldb, &info, 1);
    CHECK(info == 0 && solve_backward_error('N', n, nrhs, A0, lda, B, ldb, B0, ldb) < LU_THRESH,
          "dpotrs_ %s n %d: info %d", uplo, n, info);
    memcpy(A, A0, asz);
    memcpy(B, B0, bsz);
    dposv_(uplo, &n, &nrhs, A, &lda, B, &ldb, &info, 1);
    CHECK(info == 0 && solve_backward_error('N', n, nrhs, A0, lda, B, ldb, B0, ldb) < LU_THRESH,
          "dposv_ %s n %d: info %d", uplo, n, info);
    free(A0);
    free(A);
    free(B0);
    free(B);
}

/* Under HYT_FAULT_*: every call right, from the CPU LAPACK where hytile failed, one message. */
static void fallback_calls(void)
{
    for (int i = 0; i < 2; i++)
        solve_checked(i ? "U" : "L", 300, 31 + (unsigned)i);
}

static int check_fallback(void)
{
    expect_fallback_said_once(fallback_calls);
    return test_result("test_chol_abi fallback");
}

/* Under a device fault late in a call: every call right and one message, said once: hytile's
 * CPU workers finished the call (the fault came after part of the factor was back in A), or the
 * CPU LAPACK redid it (before: the point a fault number reaches varies from run to run, the
 * library's own sweep, test_chol_hybrid, requires both outcomes). */
static int check_recovered(void)
{
    test_capture_t cap;
    test_capture_start(&cap);
    fallback_calls();
    char text[4096];
    test_capture_end(&cap, text, sizeof text);
    int said = 0, fell = 0;
    for (const char *p = text; (p = strstr(p, "CPU workers finished this call")); p++)
        said++;
    for (const char *p = text; (p = strstr(p, "done by the CPU LAPACK")); p++)
        fell++;
    CHECK(said + fell == 1, "the recovery said %d times, the fallback %d (one of them once "
          "expected); stderr:\n%s", said, fell, text);
    printf("test_chol_abi recovered: %s\n", said ? "finished on the CPU workers"
                                                  : "redone by the CPU LAPACK");
    return test_result("test_chol_abi recovered");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "fallback"))
        return check_fallback();
    if (argc > 1 && !strcmp(argv[1], "recovered"))
        return check_recovered();
    int preload = argc > 1 && !strcmp(argv[1], "preload");
    Dl_info dl;
    REQUIRE(dladdr((void *)dpotrf_, &dl) && dl.dli_fname, "dladdr");
    CHECK(strstr(dl.dli_fname, "libhytile") != NULL, "dpotrf_ resolves to %s, not libhytile%s",
          dl.dli_fname, preload ? " (LD_PRELOAD)" : "");

    static const char *uplos[] = {"L", "U", "l", "u"};
    for (int u = 0; u < 4; u++)
        solve_checked(uplos[u], 300 + 7 * u, 1 + (unsigned)u);
    solve_checked("L", 1, 9);

    /* INFO: the first leading minor that is not positive definite; dposv_ leaves B alone */
    int n = 300, lda = n + 1, nrhs = 1, info;
    double *A = malloc((size_t)lda * n * sizeof *A), *B = malloc((size_t)n * sizeof *B);
    for (int u = 0; u < 2; u++) {
        chol_matrix(A, n, lda, 78, 5);
        dpotrf_(u ? "u" : "L", &n, A, &lda, &info, 1);
        CHECK(info == 78, "not positive definite, uplo %d: info %d, expected 78", u, info);
        chol_matrix(A, n, lda, 1, 6);
        for (int i = 0; i < n; i++)
            B[i] = i;
        dposv_(u ? "U" : "l", &n, &nrhs, A, &lda, B, &n, &info, 1);
        int same = 1;
        for (int i = 0; i < n; i++)
            same &= B[i] == i;
        CHECK(info == 1 && same, "dposv_ not positive definite: info %d (expected 1), B %s",
              info, same ? "untouched" : "changed");
    }
    free(A);
    free(B);

    /* bad arguments: LAPACK's order, xerbla, nothing written */
    double a[16] = {4, 0, 0, 0, 0, 4, 0, 0, 0, 0, 4, 0, 0, 0, 0, 4}, b[4] = {2}, a0[16], b0[4];
    int m1 = -1, z = 0, one = 1, four = 4, three = 3;
    memcpy(a0, a, sizeof a);
    memcpy(b0, b, sizeof b);
    xcalls = 0;
    dpotrf_("X", &four, a, &four, &info, 1);
    expect_xerbla("DPOTRF", 1, info, "dpotrf_ uplo");
    dpotrf_("L", &m1, a, &four, &info, 1);
    expect_xerbla("DPOTRF", 2, info, "dpotrf_ n");
    dpotrf_("U", &four, a, &three, &info, 1);
    expect_xerbla("DPOTRF", 4, info, "dpotrf_ lda");
    dpotrf_("N", &m1, a, &z, &info, 1); /* several bad: the first is reported */
    expect_xerbla("DPOTRF", 1, info, "dpotrf_ several");
    static const char *names[] = {"DPOTRS", "DPOSV"};
    for (int s = 0; s < 2; s++) {
        char what[32];
#define SOLVE(u, nn, nr, ld_a, ld_b)                                                           \
    (s ? dposv_(u, nn, nr, a, ld_a, b, ld_b, &info, 1)                                         \
       : dpotrs_(u, nn, nr, a, ld_a, b, ld_b, &info, 1))
        snprintf(what, sizeof what, "%s uplo", names[s]);
        SOLVE("T", &four, &one, &four, &four);
        expect_xerbla(names[s], 1, info, what);
        SOLVE("L", &m1, &one, &four, &four);
        expect_xerbla(names[s], 2, info, "n");
        SOLVE("L", &four, &m1, &four, &four);
        expect_xerbla(names[s], 3, info, "nrhs");
        SOLVE("u", &four, &one, &three, &four);
        expect_xerbla(names[s], 5, info, "lda");
        SOLVE("l", &four, &one, &four, &three);
        expect_xerbla(names[s], 7, info, "ldb");
        SOLVE("L", &four, &m1, &z, &z);
        expect_xerbla(names[s], 3, info, "several");
        /* quick return */
        info = 5;
        SOLVE("U", &z, &one, &one, &one);
        CHECK(info == 0 && xcalls == 0, "%s n = 0", names[s]);
#undef SOLVE
    }
    CHECK(!memcmp(a, a0, sizeof a) && !memcmp(b, b0, sizeof b), "bad arguments wrote data");
    info = 5;
    dpotrf_("l", &z, a, &one, &info, 1);
    CHECK(info == 0 && xcalls == 0, "dpotrf_ n = 0");
    info = 5;
    dpotrs_("L", &four, &z, a, &four, b, &four, &info, 1);
    CHECK(info == 0 && xcalls == 0 && !memcmp(b, b0, sizeof b), "dpotrs_ nrhs = 0");
    return test_result(preload ? "test_chol_abi preload" : "test_chol_abi");
}
