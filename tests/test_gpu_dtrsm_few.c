/*
 * The triangular solve for few right-hand sides (gpu_kernels/gpu_dtrsm_few.cu, the dispatcher
 * hyt_gpu_dtrsm's path for them):
 *   - its host reference hyt_ref_dtrsm_few against CBLAS's dtrsm, every (side, uplo, transa,
 *     diag), orders 1 .. HYT_TRSM_FEW_MAX_N around multiples of 32, 1 .. HYT_TRSM_FEW_RHS
 *     right-hand sides, alpha 1, -2.5 and 0; the triangle LAPACK does not read (and a unit
 *     diagonal) filled with NaN, B's rows beyond m (ldb > m) checked untouched;
 *   - with the argument "cuda", the CUDA kernel against the reference: the same operations in
 *     the same order, so equal to the bit (NaN where the reference has NaN), the same cases.
 * Usage: test_gpu_dtrsm_few [cuda | bench] (HYTILE_TEST_SMALL=1: orders up to 100); bench
 * (cuda): the kernel's time against cuBLAS's DTRSM on the device solve's shapes, and cuBLAS's
 * GEMM against its GEMV for the solve's one-row update (a measurement, not a test).
 */
#include "hyt_gpu_kernels.h"
#include "hyt_runtime.h"
#include "hyt_test.h"

#include <cblas.h>
#include <math.h>
#include <stdint.h>

#if HYT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#define CU(call) REQUIRE((call) == cudaSuccess, "%s: %s", #call, cudaGetErrorString(call))
#endif

typedef struct tcase {
    char side, uplo, trans, diag;
    int m, n, lda, ldb;
    double alpha;
} tcase_t;

static const int orders[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 511, 1000, 1024, 1057, 2048};
static const int rhss[] = {1, 2, 7, HYT_TRSM_FEW_RHS};
static const double alphas[] = {1.0, -2.5, 0.0};

/* the i-th case of the sweep (count: cases(NULL)) */
static int cases(tcase_t *out, int i)
{
    int k = 0;
    for (int s = 0; s < 2; s++)
        for (int u = 0; u < 2; u++)
            for (int t = 0; t < 2; t++)
                for (int d = 0; d < 2; d++)
                    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++)
                        for (size_t r = 0; r < sizeof rhss / sizeof rhss[0]; r++) {
                            if (orders[o] > 100 && test_scale() > 1)
                                continue; /* HYTILE_TEST_SMALL: orders up to 100 */
                            /* alpha 0 and -2.5 on one order each, to keep the sweep short */
                            const int na = o == 2 ? 3 : o == 8 ? 2 : 1;
                            for (int a = 0; a < na; a++, k++) {
                                if (!out || k != i)
                                    continue;
                                const int ord = orders[o], nr = rhss[r], left = s == 0;
                                *out = (tcase_t){"LR"[s], "LUlu"[u + 2 * (t & d)], "NTnt"[t],
                                                 "NUnu"[d],  left ? ord : nr, left ? nr : ord,
                                                 ord + 3,    (left ? ord : nr) + 2,
                                                 alphas[a]};
                            }
                        }
    return k;
}

/* The case's A and B (B's padding rows random too: they must come back unchanged). */
static void case_data(const tcase_t *c, int seed, double **A, double **B)
{
    test_rng_t rng = {(unsigned long long)seed * 7919 + 1};
    const int order = c->side == 'L' ? c->m : c->n;
    *A = malloc((size_t)c->lda * order * sizeof **A);
    *B = malloc((size_t)c->ldb * c->n * sizeof **B);
    REQUIRE(*A && *B, "out of memory");
    test_triangle(&rng, *A, order, c->lda, c->uplo, c->diag);
    for (size_t i = 0; i < (size_t)c->ldb * c->n; i++)
        (*B)[i] = test_uniform(&rng);
}

static void label(const tcase_t *c, char *buf, size_t len)
{
    snprintf(buf, len, "side %c uplo %c trans %c diag %c m %d n %d alpha %g", c->side, c->uplo,
             c->trans, c->diag, c->m, c->n, c->alpha);
}

/* the reference against CBLAS: relative error per right-hand side, padding unchanged */
static void test_reference(void)
{
    const int nc = cases(NULL, 0);
    for (int i = 0; i < nc; i++) {
        tcase_t c;
        cases(&c, i);
        double *A, *B;
        case_data(&c, i, &A, &B);
        const size_t len = (size_t)c.ldb * c.n;
        double *R = malloc(len * sizeof *R);
        REQUIRE(R, "out of memory");
        memcpy(R, B, len * sizeof *R);
        hyt_ref_dtrsm_few(c.side, c.uplo, c.trans, c.diag, c.m, c.n, c.alpha, A, c.lda, B, c.ldb);
        const int lo = c.uplo == 'L' || c.uplo == 'l', nt = c.trans == 'N' || c.trans == 'n';
        const int un = c.diag == 'U' || c.diag == 'u';
        /* CBLAS reads the other triangle's NaN nowhere either; its unit diagonal is not read */
        cblas_dtrsm(CblasColMajor, c.side == 'L' ? CblasLeft : CblasRight,
                    lo ? CblasLower : CblasUpper, nt ? CblasNoTrans : CblasTrans,
                    un ? CblasUnit : CblasNonUnit, c.m, c.n, c.alpha, A, c.lda, R, c.ldb);
        double err = 0, norm = 0;
        int pad_ok = 1;
        for (int col = 0; col < c.n; col++)
            for (int r = 0; r < c.ldb; r++) {
                const size_t e = r + (size_t)col * c.ldb;
                if (r >= c.m) {
                    pad_ok &= B[e] == R[e];
                    continue;
                }
                err = fmax(err, fabs(B[e] - R[e]));
                norm = fmax(norm, fabs(R[e]));
                if (isnan(B[e]) || isnan(R[e]))
                    err = INFINITY;
            }
        char buf[128];
        label(&c, buf, sizeof buf);
        const int order = c.side == 'L' ? c.m : c.n;
        CHECK(err <= 8.0 * order * 0x1p-52 * fmax(norm, 1e-300) || (norm == 0 && err == 0),
              "%s: reference differs from CBLAS by %.3g (|X| %.3g)", buf, err, norm);
        CHECK(pad_ok, "%s: the reference wrote B's rows beyond m", buf);
        free(A);
        free(B);
        free(R);
    }
}

#if HYT_HAVE_CUDA
/* the kernel against the reference, to the bit; also with NaN and Inf in B */
static void test_kernel(hyt_device_t *dev)
{
    const int nc = cases(NULL, 0);
    for (int i = 0; i < nc; i++) {
        tcase_t c;
        cases(&c, i);
        double *A, *B, *dA, *dB;
        case_data(&c, i, &A, &B);
        if (i % 5 == 1 && c.m * c.n > 2) { /* a NaN and an Inf in B */
            B[1] = NAN;
            B[c.ldb * (c.n - 1) + c.m - 1] = INFINITY;
        }
        const int order = c.side == 'L' ? c.m : c.n;
        const size_t alen = (size_t)c.lda * order, blen = (size_t)c.ldb * c.n;
        double *R = malloc(blen * sizeof *R);
        REQUIRE(R, "out of memory");
        CU(cudaMalloc((void **)&dA, alen * sizeof *A));
        CU(cudaMalloc((void **)&dB, blen * sizeof *B));
        CU(cudaMemcpy(dA, A, alen * sizeof *A, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(dB, B, blen * sizeof *B, cudaMemcpyHostToDevice));
        int rc = hyt_cuda_dtrsm_few(dev, NULL, c.side, c.uplo, c.trans, c.diag, c.m, c.n,
                                    c.alpha, dA, c.lda, dB, c.ldb);
        REQUIRE(!rc, "%s", hyt_last_error());
        CU(cudaMemcpy(R, dB, blen * sizeof *R, cudaMemcpyDeviceToHost));
        hyt_ref_dtrsm_few(c.side, c.uplo, c.trans, c.diag, c.m, c.n, c.alpha, A, c.lda, B, c.ldb);
        size_t bad = 0, first = 0;
        for (size_t e = 0; e < blen; e++)
            if (!test_same(B[e], R[e]) && !bad++)
                first = e;
        char buf[128];
        label(&c, buf, sizeof buf);
        CHECK(!bad, "%s: %zu elements differ from the reference, first (%zu, %zu): %.17g "
              "against %.17g", buf, bad, first % c.ldb, first / c.ldb, R[first], B[first]);
        cudaFree(dA);
        cudaFree(dB);
        free(A);
        free(B);
        free(R);
    }
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* CUDA events around one call, best and median of reps (ms); the call is a statement using
 * the variable `rep`. */
#define TIME(best, med, reps, call)                                                            \
    do {                                                                                       \
        float ms_[64];                                                                         \
        for (int rep = 0; rep < (reps); rep++) {                                               \
            CU(cudaEventRecord(e0, 0));                                                        \
            call;                                                                              \
            CU(cudaEventRecord(e1, 0));                                                        \
            CU(cudaEventSynchronize(e1));                                                      \
            CU(cudaEventElapsedTime(&ms_[rep], e0, e1));                                       \
        }                                                                                      \
        qsort(ms_, (size_t)(reps), sizeof ms_[0], cmp_float);                                  \
        best = ms_[0];                                                                         \
        med = ms_[(reps) / 2];                                                                 \
    } while (0)

/* The device solve's shapes: X (m rows of B^T, ld nb) times the inverse of an nb x nb triangle
 * (its transpose, V, in a tile of ld nb) on the right, as drivers/dmat_trs.c calls it. */
static void bench(hyt_device_t *dev)
{
    const int reps = 21, nb = 1024, rows = 65536;
    cublasHandle_t h;
    REQUIRE(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
    double *dA, *dB, *dC;
    test_rng_t rng = {5};
    double *A = malloc((size_t)nb * nb * sizeof *A);
    test_triangle(&rng, A, nb, nb, 'U', 'N');
    for (size_t i = 0; i < (size_t)nb * nb; i++)
        if (isnan(A[i]))
            A[i] = 0.0;
    CU(cudaMalloc((void **)&dA, (size_t)nb * rows * sizeof *A));
    CU(cudaMalloc((void **)&dB, (size_t)nb * nb * sizeof *A));
    CU(cudaMalloc((void **)&dC, (size_t)nb * rows * sizeof *A));
    CU(cudaMemset(dA, 0, (size_t)nb * rows * sizeof *A));
    CU(cudaMemset(dC, 0, (size_t)nb * rows * sizeof *A));
    CU(cudaMemcpy(dA, A, (size_t)nb * nb * sizeof *A, cudaMemcpyHostToDevice));
    CU(cudaMemset(dB, 0, (size_t)nb * nb * sizeof *A));
    cudaEvent_t e0, e1;
    CU(cudaEventCreate(&e0));
    CU(cudaEventCreate(&e1));
    const double one = 1.0, mone = -1.0;
    printf("| solve, nb %d | rhs | hytile best / median (ms) | cuBLAS DTRSM best / median |\n"
           "|---|---|---|---|\n", nb);
    static const int ms[] = {1, 4, 16, 32};
    static const char *what[] = {"R U N U (forward L)", "R L N N (backward U)",
                                 "R L T N (trans T, forward U^T)"};
    for (int w = 0; w < 3; w++)
        for (int q = 0; q < 4; q++) {
            const int m = ms[q];
            const char uplo = w ? 'L' : 'U', diag = w ? 'N' : 'U', tr = w == 2 ? 'T' : 'N';
            float b0, m0, b1, m1;
            TIME(b0, m0, reps,
                 REQUIRE(!hyt_cuda_dtrsm_few(dev, NULL, 'R', uplo, tr, diag, m, nb, 1.0, dA, nb,
                                             dB, nb),
                         "%s", hyt_last_error()));
            TIME(b1, m1, reps,
                 REQUIRE(cublasDtrsm(h, CUBLAS_SIDE_RIGHT, w ? CUBLAS_FILL_MODE_LOWER
                                                            : CUBLAS_FILL_MODE_UPPER,
                                     w == 2 ? CUBLAS_OP_T : CUBLAS_OP_N,
                                     w ? CUBLAS_DIAG_NON_UNIT : CUBLAS_DIAG_UNIT, m,
                                     nb, &one, dA, nb, dB, nb) == CUBLAS_STATUS_SUCCESS,
                         "cublasDtrsm"));
            printf("| %s | %d | %.4f / %.4f | %.4f / %.4f |\n", what[w], m, b0, m0, b1, m1);
        }
    printf("\n| update, k = nb | columns | GEMM m = 1 best / median (ms) | GEMV best / median |"
           "\n|---|---|---|---|\n");
    static const int cols[] = {64512, 32768, 8192, 1024};
    for (int q = 0; q < 4; q++) {
        const int nc = cols[q];
        float b0, m0, b1, m1;
        TIME(b0, m0, reps,
             REQUIRE(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, nc, nb, &mone, dB, nb, dA, nb,
                                 &one, dC, nb) == CUBLAS_STATUS_SUCCESS, "cublasDgemm"));
        TIME(b1, m1, reps,
             REQUIRE(cublasDgemv(h, CUBLAS_OP_T, nb, nc, &mone, dA, nb, dB, nb, &one, dC, nb) ==
                         CUBLAS_STATUS_SUCCESS, "cublasDgemv"));
        printf("| 1 x %d x %d | %d | %.4f / %.4f | %.4f / %.4f |\n", nc, nb, nc, b0, m0, b1, m1);
    }
    cublasDestroy(h);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(A);
}
#endif

int main(int argc, char **argv)
{
    const int cuda = argc > 1 && (!strcmp(argv[1], "cuda") || !strcmp(argv[1], "bench"));
    if (!cuda) {
        test_reference();
        return test_result("test_gpu_dtrsm_few (reference)");
    }
    if (!test_cuda_devices("cuda:0")) /* says why: no CUDA in this build, or no GPU */
        return 77;
#if HYT_HAVE_CUDA
    hyt_context_t *ctx = test_context(1, "cuda:0", (char *)NULL);
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    if (!strcmp(argv[1], "bench"))
        bench(dev);
    else
        test_kernel(dev);
    hyt_context_destroy(ctx);
#endif
    return test_result("test_gpu_dtrsm_few (cuda:0)");
}
