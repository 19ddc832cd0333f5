/*
 * The LAPACK ABI against the CPU LAPACK it replaces, to choose abi.min_n and gpu.min_n: dgesv_
 * (or, with --chol, dposv_ 'L' on a symmetric positive definite matrix) with one right-hand
 * side, n = 2 .. 2048 or the sizes given, as a program linked with a BLAS/LAPACK library calls
 * it, from that library and from libhytile preloaded (LD_PRELOAD, where libhytile finds that
 * LAPACK after itself and keeps its copy of A and B for a redo, as in a user's program).  Each
 * side runs in a child process of its own, with this process's environment (HYT_DEVICES,
 * HYT_GPU_MIN_N, ...) and HYT_ABI_MIN_N=0, so that hytile runs every call.  Prints
 * microseconds per call (median of 5 batches) and hytile's time over the library's.  Not a
 * test: measurements only.
 *
 * Usage: bench_abi path/to/libhytile.so [--chol] [N,N,...]
 */
#include "hyt_test.h"

#include <time.h>
#include <unistd.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
            double *b, const int *ldb, int *info, size_t len);

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

static double time_us(int chol, int n, const double *A0, const double *B0)
{
    double *A = malloc((size_t)n * n * sizeof *A), *B = malloc((size_t)n * sizeof *B), t[5];
    int *ipiv = malloc((size_t)n * sizeof *ipiv), one = 1, info;
    int reps = n <= 16 ? 2000 : n <= 128 ? 200 : n <= 512 ? 10 : n <= 4096 ? 3 : 1;
    for (int k = 0; k < 5; k++) {
        double s = 0;
        for (int r = 0; r < reps; r++) {
            memcpy(A, A0, (size_t)n * n * sizeof *A);
            memcpy(B, B0, (size_t)n * sizeof *B);
            double t0 = now();
            if (chol)
                dposv_("L", &n, &one, A, &n, B, &n, &info, 1);
            else
                dgesv_(&n, &one, A, &n, ipiv, B, &n, &info);
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

enum { MAXN = 32 };
static int ns[MAXN] = {2, 4, 8, 16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048};
static int NN = 15;

/* The sizes of a comma-separated list (into ns); 0 if it is not one. */
static int parse_sizes(const char *s)
{
    int k = 0;
    while (*s && k < MAXN) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 46340 || (*end && *end != ','))
            return 0;
        ns[k++] = (int)v;
        s = *end ? end + 1 : end;
    }
    return *s ? 0 : k;
}

/* A child: the times of dgesv_ (dposv_) as this program resolves it, one per n, on stdout. */
static int child(int chol)
{
    for (int i = 0; i < NN; i++) {
        int n = ns[i];
        double *A0 = malloc((size_t)n * n * sizeof *A0), *B0 = malloc((size_t)n * sizeof *B0);
        REQUIRE(A0 && B0, "out of memory");
        for (size_t j = 0; j < (size_t)n * n; j++)
            A0[j] = (double)(test_mix((unsigned long long)j + 1) % 2001) / 1000.0 - 1.0;
        for (size_t j = 0; chol && j < (size_t)n; j++) { /* symmetric, diagonally dominant */
            for (size_t i2 = 0; i2 < j; i2++)
                A0[j + i2 * n] = A0[i2 + j * n];
            A0[j + j * n] += n;
        }
        for (int j = 0; j < n; j++)
            B0[j] = 1.0;
        printf("%.1f\n", time_us(chol, n, A0, B0));
        fflush(stdout);
        free(A0);
        free(B0);
    }
    return 0;
}

/* Runs this program as a child with LD_PRELOAD = preload (NULL: none) and the parent's
 * arguments (args); its times into t. */
static void run_child(const char *self, const char *preload, const char *args, double *t)
{
    char cmd[4096];
    int len = snprintf(cmd, sizeof cmd, "%s%s%s HYT_ABI_MIN_N=0 BENCH_ABI_CHILD=1 '%s' %s",
                       preload ? "LD_PRELOAD='" : "", preload ? preload : "", preload ? "'" : "",
                       self, args);
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
    int chol = 0, i0 = getenv("BENCH_ABI_CHILD") ? 1 : 2;
    char args[256] = "";
    for (int i = i0; i < argc; i++) {
        if (!strcmp(argv[i], "--chol"))
            chol = 1;
        else
            REQUIRE((NN = parse_sizes(argv[i])) > 0, "bad sizes '%s'", argv[i]);
        REQUIRE(strlen(args) + strlen(argv[i]) + 2 < sizeof args, "arguments too long");
        strcat(strcat(args, " "), argv[i]);
    }
    if (i0 == 1)
        return child(chol);
    REQUIRE(argc > 1 && access(argv[1], R_OK) == 0,
            "usage: bench_abi path/to/libhytile.so [--chol] [N,N,...]");
    char self[4096];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    REQUIRE(k > 0, "/proc/self/exe");
    self[k] = 0;
    double tl[MAXN], th[MAXN];
    run_child(self, NULL, args, tl);
    run_child(self, argv[1], args, th);
    printf("%s\n%6s %12s %12s %8s\n", chol ? "dposv_ L" : "dgesv_", "n", "lapack_us", "hytile_us",
           "ratio");
    for (int i = 0; i < NN; i++)
        printf("%6d %12.1f %12.1f %8.2f\n", ns[i], tl[i], th[i], th[i] / tl[i]);
    return 0;
}
