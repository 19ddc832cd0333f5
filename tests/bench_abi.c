/*
 * The LAPACK ABI against the CPU LAPACK it replaces, to choose abi.min_n: dgesv_ with one
 * right-hand side, n = 2 .. 2048, as a program linked with a BLAS/LAPACK library calls it,
 * from that library and from libhytile preloaded (LD_PRELOAD, where libhytile finds that
 * LAPACK after itself and keeps its copy of A and B for a redo, as in a user's program).  Each
 * side runs in a child process of its own; HYT_ABI_MIN_N=0 there, so that hytile runs every
 * call.  Prints microseconds per call (median of 5 batches) and hytile's time over the
 * library's.  Not a test: measurements only.
 *
 * Usage: bench_abi path/to/libhytile.so
 */
#include "hyt_test.h"

#include <time.h>
#include <unistd.h>

typedef void dgesv_fn(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                      double *b, const int *ldb, int *info);
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double time_us(dgesv_fn *f, int n, const double *A0, const double *B0)
{
    double *A = malloc((size_t)n * n * sizeof *A), *B = malloc((size_t)n * sizeof *B), t[5];
    int *ipiv = malloc((size_t)n * sizeof *ipiv), one = 1, info;
    int reps = n <= 16 ? 2000 : n <= 128 ? 200 : n <= 512 ? 10 : 3;
    for (int k = 0; k < 5; k++) {
        double s = 0;
        for (int r = 0; r < reps; r++) {
            memcpy(A, A0, (size_t)n * n * sizeof *A);
            memcpy(B, B0, (size_t)n * sizeof *B);
            double t0 = now();
            f(&n, &one, A, &n, ipiv, B, &n, &info);
            s += now() - t0;
            REQUIRE(info == 0, "info %d", info);
        }
        t[k] = s / reps * 1e6;
    }
    qsort(t, 5, sizeof t[0], cmp);
    free(A);
    free(B);
    free(ipiv);
    return t[2];
}

static const int ns[] = {2, 4, 8, 16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048};
enum { NN = sizeof ns / sizeof ns[0] };

/* A child: the times of dgesv_ as this program resolves it, one per n, on stdout. */
static int child(void)
{
    for (int i = 0; i < NN; i++) {
        int n = ns[i];
        double *A0 = malloc((size_t)n * n * sizeof *A0), *B0 = malloc((size_t)n * sizeof *B0);
        REQUIRE(A0 && B0, "out of memory");
        for (int j = 0; j < n * n; j++)
            A0[j] = (double)(test_mix((unsigned long long)j + 1) % 2001) / 1000.0 - 1.0;
        for (int j = 0; j < n; j++)
            B0[j] = 1.0;
        printf("%.1f\n", time_us(dgesv_, n, A0, B0));
        fflush(stdout);
        free(A0);
        free(B0);
    }
    return 0;
}

/* Runs this program as a child with LD_PRELOAD = preload (NULL: none); its times into t. */
static void run_child(const char *self, const char *preload, double *t)
{
    char cmd[4096];
    int len = snprintf(cmd, sizeof cmd, "%s%s%s HYT_ABI_MIN_N=0 BENCH_ABI_CHILD=1 '%s'",
                       preload ? "LD_PRELOAD='" : "", preload ? preload : "", preload ? "'" : "",
                       self);
    REQUIRE(len > 0 && (size_t)len < sizeof cmd && !strchr(self, '\'') &&
                (!preload || !strchr(preload, '\'')), "paths too long or with a quote");
    FILE *f = popen(cmd, "r");
    REQUIRE(f, "popen %s", cmd);
    for (int i = 0; i < NN; i++)
        REQUIRE(fscanf(f, "%lf", &t[i]) == 1, "no time for n = %d from: %s", ns[i], cmd);
    REQUIRE(pclose(f) == 0, "%s failed", cmd);
}

int main(int argc, char **argv)
{
    if (getenv("BENCH_ABI_CHILD"))
        return child();
    REQUIRE(argc > 1 && access(argv[1], R_OK) == 0, "usage: bench_abi path/to/libhytile.so");
    char self[4096];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    REQUIRE(k > 0, "/proc/self/exe");
    self[k] = 0;
    double tl[NN], th[NN];
    run_child(self, NULL, tl);
    run_child(self, argv[1], th);
    printf("%6s %12s %12s %8s\n", "n", "lapack_us", "hytile_us", "ratio");
    for (int i = 0; i < NN; i++)
        printf("%6d %12.1f %12.1f %8.2f\n", ns[i], tl[i], th[i], th[i] / tl[i]);
    return 0;
}
