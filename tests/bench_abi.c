/*
 * The LAPACK ABI against the CPU LAPACK it replaces, to choose abi.min_n: dgesv_ with one
 * right-hand side, n = 2 .. 1024, from the BLAS/LAPACK library this program is linked with and
 * from libhytile (loaded with dlopen; run with HYT_ABI_MIN_N=0 so that hytile runs every call).
 * Prints microseconds per call (median of 5 batches).  Not a test: measurements only.
 *
 * Usage: HYT_ABI_MIN_N=0 bench_abi path/to/libhytile.so
 */
#include "hyt_test.h"

#include <dlfcn.h>
#include <time.h>

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

int main(int argc, char **argv)
{
    REQUIRE(argc > 1, "usage: HYT_ABI_MIN_N=0 bench_abi path/to/libhytile.so");
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    REQUIRE(h, "%s", dlerror());
    dgesv_fn *hyt = (dgesv_fn *)dlsym(h, "dgesv_");
    REQUIRE(hyt && hyt != dgesv_, "no dgesv_ in %s", argv[1]);
    static const int ns[] = {2, 4, 8, 16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
    printf("%6s %12s %12s %8s\n", "n", "lapack_us", "hytile_us", "ratio");
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        int n = ns[i];
        double *A0 = malloc((size_t)n * n * sizeof *A0), *B0 = malloc((size_t)n * sizeof *B0);
        for (int j = 0; j < n * n; j++)
            A0[j] = (double)(test_mix((unsigned long long)j + 1) % 2001) / 1000.0 - 1.0;
        for (int j = 0; j < n; j++)
            B0[j] = 1.0;
        double tl = time_us(dgesv_, n, A0, B0), th = time_us(hyt, n, A0, B0);
        printf("%6d %12.1f %12.1f %8.2f\n", n, tl, th, th / tl);
        fflush(stdout);
        free(A0);
        free(B0);
    }
    return 0;
}
