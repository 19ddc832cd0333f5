/*
 * The fused GPU potf2 (gpu_kernels/gpu_dpotf2.cu) against its host reference (hyt_ref_dpotf2),
 * lower and upper: the factor by relative error, INFO exactly, the other triangle and the rows
 * beyond n (lda > n) untouched, over n = 1..512 (multiples of the inner blocking and not),
 * matrices that are not positive definite (the failing minor at the start, inside and at the
 * edges of an inner block, at the end), NaN, +Inf and -Inf on the diagonal (LAPACK's answer:
 * L(j, j) = Inf and 0 below it, or INFO j), matrices scaled to the edges of the exponent range;
 * the kernel's workspace zero again after all of it (the next call relies on it).  Suite gpu:
 * exits 77 without CUDA or a usable GPU.
 *
 * Usage: test_gpu_dpotf2          the test
 *        test_gpu_dpotf2 small    a few cases of each kind (for compute-sanitizer)
 *        test_gpu_dpotf2 bench    prints the time of n x n factorizations, n = 1 .. 512,
 *                                 lower and upper (a measurement, not a test)
 */
#include "hyt_gpu_kernels.h"
#include "hyt_runtime.h"
#include "hyt_test.h"
#include "chol_check.h"

#if HYT_HAVE_CUDA
#include <cuda_runtime.h>

#define CU(call) REQUIRE((call) == cudaSuccess, "%s: %s", #call, cudaGetErrorString(call))

static void *dwork; /* the kernel's workspace (HYT_DPOTF2_WS_BYTES, zeroed once) */

/* Factors the uplo triangle of A (n x n, lda) on the GPU in place; returns INFO. */
static int gpu_potf2(hyt_device_t *dev, char uplo, int n, double *A, int lda)
{
    double *dA;
    int *dinfo, info = -99;
    size_t bytes = ((size_t)lda * n + 1) * sizeof *A;
    CU(cudaMalloc((void **)&dA, bytes));
    CU(cudaMalloc((void **)&dinfo, sizeof *dinfo));
    CU(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
    REQUIRE(!hyt_cuda_dpotf2(dev, NULL, uplo, n, dA, lda, dinfo, dwork), "%s", hyt_last_error());
    CU(cudaDeviceSynchronize());
    CU(cudaMemcpy(A, dA, bytes, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(&info, dinfo, sizeof info, cudaMemcpyDeviceToHost));
    CU(cudaFree(dA));
    CU(cudaFree(dinfo));
    return info;
}

/* GPU and reference on the same matrix (the failing minor `fail`, 0: none), scaled as D A D
 * with D = diag(d), d_i = `scale` for i in [s0, s1), 1 elsewhere. */
static void check_scaled(hyt_device_t *dev, char uplo, int n, int fail, unsigned long long seed,
                         double scale, int s0, int s1)
{
    int lda = n + 5;
    size_t sz = ((size_t)lda * n + 1) * sizeof(double);
    double *A0 = malloc(sz), *G = malloc(sz), *R = malloc(sz);
    fill_random(A0, lda, n, lda, seed + 3); /* the padding rows */
    chol_matrix(A0, n, lda, fail, seed);
    for (int c = 0; c < n && scale != 1; c++)
        for (int r = 0; r < n; r++)
            A0[r + (int64_t)c * lda] *= (r >= s0 && r < s1 ? scale : 1) *
                                        (c >= s0 && c < s1 ? scale : 1);
    memcpy(G, A0, sz);
    memcpy(R, A0, sz);
    int ig = gpu_potf2(dev, uplo, n, G, lda), ir = hyt_ref_dpotf2(uplo, n, R, lda);
    CHECK(ig == ir && ig == fail, "%c n %d: GPU info %d, reference %d, expected %d", uplo, n, ig,
          ir, fail);
    /* the factor by relative error; after a failure only INFO is specified (LAPACK's, and the
     * kernel stops at the failing inner block: the rows below it are left unsolved) */
    int cols = fail ? 0 : n;
    double diff = 0, ref = 0;
    int other_ok = 1;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < lda; r++) {
            double g = G[r + (int64_t)c * lda], x = R[r + (int64_t)c * lda];
            if (r >= n || (uplo == 'L' ? r < c : r > c))
                other_ok &= g == A0[r + (int64_t)c * lda];
            else if ((uplo == 'L' ? c : r) < cols)
                diff = fmax(diff, fabs(g - x)), ref = fmax(ref, fabs(x));
        }
    CHECK(other_ok, "%c n %d: the other triangle or the rows beyond n changed", uplo, n);
    CHECK(diff <= 1e3 * DBL_EPSILON * n * ref, "%c n %d fail %d: max |F_gpu - F_ref| = %g "
          "(|F| %g)", uplo, n, fail, diff, ref);
    if (!fail)
        CHECK(chol_backward_error(uplo, n, A0, lda, G, lda) < LU_THRESH, "%c n %d: backward "
              "error", uplo, n);
    free(A0);
    free(G);
    free(R);
}

static void check(hyt_device_t *dev, char uplo, int n, int fail, unsigned long long seed)
{
    check_scaled(dev, uplo, n, fail, seed, 1.0, 0, 0);
}

static void check_nan(hyt_device_t *dev, char uplo, int n)
{
    const int up = uplo == 'U';
    double *A = malloc(((size_t)n * n + 1) * sizeof *A); /* the copies take lda n + 1 */
    for (int v = 0; v < 2; v++) {
        chol_matrix(A, n, n, 0, 9);
        /* v 1: (n - 1, n / 2) in the referenced triangle */
        A[v ? (up ? n / 2 + (int64_t)(n - 1) * n : n - 1 + (int64_t)(n / 2) * n) : 0] = NAN;
        int info = gpu_potf2(dev, uplo, n, A, n);
        int has_nan = 0;
        for (int64_t i = 0; i < (int64_t)n * n; i++)
            has_nan |= isnan(A[i]);
        CHECK(info >= 0 && info <= n && (info > 0 || has_nan) && (v || info == 1),
              "%c NaN %d: info %d, NaN in the result %d", uplo, v, info, has_nan);
    }
    /* NaN in the other triangle, which LAPACK never reads: no effect on the factor */
    chol_matrix(A, n, n, 0, 9);
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++)
            if (up ? r > c : r < c)
                A[r + (int64_t)c * n] = NAN;
    int info = gpu_potf2(dev, uplo, n, A, n), factor_nan = 0;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++)
            if (up ? r <= c : r >= c)
                factor_nan |= isnan(A[r + (int64_t)c * n]);
    CHECK(info == 0 && !factor_nan, "%c: NaN in the other triangle: info %d, NaN in the factor "
          "%d", uplo, info, factor_nan);
    free(A);
}

/* +Inf or -Inf at the diagonal entry j of an SPD n x n matrix: LAPACK's answer
 * (chol_check_inf_result), the reference's INFO. */
static void check_inf(hyt_device_t *dev, char uplo, int n, int j, double inf)
{
    const size_t sz = ((size_t)n * n + 1) * sizeof(double); /* the copies take lda n + 1 */
    double *A0 = malloc(sz), *A = malloc(sz);
    chol_matrix(A0, n, n, 0, 31 + (unsigned long long)j);
    A0[j + (int64_t)j * n] = inf;
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    const int info = gpu_potf2(dev, uplo, n, A, n);
    chol_check_inf_result(uplo, n, 0, A0, A, j, inf, info);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    const int ir = hyt_ref_dpotf2(uplo, n, A, n);
    CHECK(info == ir, "%c n %d, %g at %d: GPU info %d, reference %d", uplo, n, inf, j, info, ir);
    free(A0);
    free(A);
}

/* Best of many single launches (CUDA events around the call, a fresh copy of the matrix
 * before each, outside the timed interval), n = 1 .. 512. */
static void bench(hyt_device_t *dev)
{
    int nmax = HYT_DPOTF2_MAX_N, reps = 300;
    double *A = malloc((size_t)nmax * nmax * sizeof *A), *dA, *dW;
    int *dinfo;
    CU(cudaMalloc((void **)&dA, (size_t)nmax * nmax * sizeof *A));
    CU(cudaMalloc((void **)&dW, (size_t)nmax * nmax * sizeof *A));
    CU(cudaMalloc((void **)&dinfo, sizeof *dinfo));
    cudaEvent_t e0, e1;
    CU(cudaEventCreate(&e0));
    CU(cudaEventCreate(&e1));
    printf("| uplo | n | best of %d (ms) | median (ms) | GFLOP/s (best) |\n"
           "|---|---|---|---|---|\n", reps);
    for (int u = 0; u < 2; u++) {
        static const int bn[] = {1, 32, 64, 100, 128, 256, 384, 500, 512};
        for (int bi = 0; bi < (int)(sizeof bn / sizeof bn[0]); bi++) {
            const int n = bn[bi];
            size_t bytes = (size_t)n * n * sizeof *A;
            chol_matrix(A, n, n, 0, 1);
            CU(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
            float *ms = malloc(reps * sizeof *ms);
            for (int r = 0; r < reps; r++) {
                CU(cudaMemcpy(dW, dA, bytes, cudaMemcpyDeviceToDevice));
                CU(cudaEventRecord(e0, 0));
                REQUIRE(!hyt_cuda_dpotf2(dev, NULL, "LU"[u], n, dW, n, dinfo, dwork), "%s",
                        hyt_last_error());
                CU(cudaEventRecord(e1, 0));
                CU(cudaEventSynchronize(e1));
                CU(cudaEventElapsedTime(&ms[r], e0, e1));
            }
            for (int r = 1; r < reps; r++) /* insertion sort, for the median */
                for (int q = r; q > 0 && ms[q] < ms[q - 1]; q--) {
                    float w = ms[q];
                    ms[q] = ms[q - 1];
                    ms[q - 1] = w;
                }
            printf("| %c | %d | %.4f | %.4f | %.1f |\n", "LU"[u], n, ms[0], ms[reps / 2],
                   (double)n * n * n / 3.0 / (ms[0] * 1e-3) * 1e-9);
            free(ms);
        }
    }
    cudaFree(dA);
    cudaFree(dW);
    cudaFree(dinfo);
    free(A);
}
#endif

int main(int argc, char **argv)
{
#if !HYT_HAVE_CUDA
    (void)argc;
    (void)argv;
    printf("SKIP: hytile was built without CUDA\n");
    return 77;
#else
    if (!test_cuda_devices("cuda:0"))
        return 77;
    hyt_context_t *ctx = test_context(1, "cuda:0", (char *)NULL);
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    CU(cudaMalloc(&dwork, HYT_DPOTF2_WS_BYTES));
    CU(cudaMemset(dwork, 0, HYT_DPOTF2_WS_BYTES));
    if (argc > 1 && !strcmp(argv[1], "bench")) {
        bench(dev);
        cudaFree(dwork);
        hyt_context_destroy(ctx);
        return 0;
    }
    static const int ns[] = {1, 2, 5, 31, 32, 33, 63, 64, 65, 96, 97, 100, 255, 256, 257, 383,
                             450, 480, 481, 500, 511, 512};
    static const int fails[] = {1, 2, 17, 31, 32, 33, 64, 65, 200, 480, 481, 496, 511, 512};
    const int small = argc > 1 && !strcmp(argv[1], "small");
    for (int u = 0; u < 2 && small; u++) {
        check(dev, "LU"[u], 100, 0, 1);
        check(dev, "LU"[u], 300, 0, 2);
        check(dev, "LU"[u], 200, 33, 3);
        check_scaled(dev, "LU"[u], 100, 0, 4, 1e80, 30, 32);
        check_inf(dev, "LU"[u], 100, 40, INFINITY);
    }
    for (int u = 0; u < 2 && !small; u++) {
        const char uplo = "LU"[u];
        for (int i = 0; i < (int)(sizeof ns / sizeof ns[0]); i++)
            check(dev, uplo, ns[i], 0, 100 + (unsigned long long)i);
        for (int i = 0; i < (int)(sizeof fails / sizeof fails[0]); i++)
            check(dev, uplo, 512, fails[i], 200 + (unsigned long long)i);
        check(dev, uplo, 40, 40, 7);
        check(dev, uplo, 33, 33, 8); /* in a ragged last tile */
        check(dev, uplo, 100, 97, 9);
        check(dev, uplo, 500, 481, 10);
        check(dev, uplo, 500, 500, 11);
        check_nan(dev, uplo, 300);
        check_nan(dev, uplo, 33);
        /* +-Inf on the diagonal: the first column, a pair's first and second, a tile's last
         * and the next tile's first, the last */
        static const int infs[] = {0, 16, 17, 31, 32, 299};
        for (int i = 0; i < (int)(sizeof infs / sizeof infs[0]); i++)
            for (int s = 0; s < 2; s++)
                check_inf(dev, uplo, 300, infs[i], s ? -INFINITY : INFINITY);
        /* 2 x 2 pivot blocks whose determinants underflow (entries ~1e-160: det ~1e-320) or
         * overflow (1e160): the kernel's fast factor hands such tiles to its careful one.  The
         * whole matrix, and only the last pair of a tile (columns 30 and 31), where no later
         * pivot of the tile would see what a wrong pair left */
        check_scaled(dev, uplo, 300, 0, 12, 1e-80, 0, 300);
        check_scaled(dev, uplo, 300, 0, 13, 1e80, 0, 300);
        check_scaled(dev, uplo, 300, 250, 14, 1e-80, 0, 300);
        check_scaled(dev, uplo, 300, 0, 15, 1e-80, 30, 32);
        check_scaled(dev, uplo, 300, 0, 16, 1e80, 30, 32);
        check_scaled(dev, uplo, 300, 0, 17, 1e80, 94, 96);
    }
    /* the workspace is left zeroed (the failing and NaN calls included), ready for the next */
    unsigned char ws[HYT_DPOTF2_WS_BYTES];
    CU(cudaMemcpy(ws, dwork, sizeof ws, cudaMemcpyDeviceToHost));
    int ws_clean = 1;
    for (int i = 0; i < (int)sizeof ws; i++)
        ws_clean &= ws[i] == 0;
    CHECK(ws_clean, "the workspace is not zero after the calls");
    /* invalid arguments: refused, nothing launched */
    int *dinfo;
    CU(cudaMalloc((void **)&dinfo, sizeof *dinfo));
    CHECK(hyt_cuda_dpotf2(dev, NULL, 'L', 513, (double *)dinfo, 513, dinfo, dwork) ==
          HYT_ERR_INVALID, "n 513 accepted");
    CHECK(hyt_cuda_dpotf2(dev, NULL, 'X', 1, (double *)dinfo, 1, dinfo, dwork) ==
          HYT_ERR_INVALID, "uplo X accepted");
    CHECK(hyt_cuda_dpotf2(dev, NULL, 'L', 1, (double *)dinfo, 1, dinfo, NULL) ==
          HYT_ERR_INVALID, "no workspace accepted");
    CHECK(hyt_cuda_dpotf2(dev, NULL, 'U', 0, NULL, 1, dinfo, dwork) == 0, "n 0");
    CU(cudaFree(dinfo));
    CU(cudaFree(dwork));
    hyt_context_destroy(ctx);
    return test_result("test_gpu_dpotf2");
#endif
}
