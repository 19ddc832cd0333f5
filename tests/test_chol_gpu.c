/*
 * The GPU-only Cholesky of a device-resident matrix (hyt_dpotrf_device, drivers/chol/
 * pdpotrf_gpu.c), lower and upper: the matrix copied into device 0's memory (copy tasks),
 * factored there, copied back and checked by backward error ||A - L L^T|| / (||A|| n eps)
 * (or ||A - U^T U||) < 30, the other triangle and the rows beyond n (ldda > n) untouched; sizes
 * that are not multiples of nb, n < nb, n = 0 and 1, trailing parts wide enough for the
 * recursive update (several leaf widths), blocks wider than the fused potf2 (factored in
 * pieces), lookahead 0..2; matrices that are not positive definite (INFO exactly the first
 * failing minor: at the start, inside a block, at both sides of a block boundary, in the second
 * piece of a wide block, at the end); NaN (no hang); +Inf and -Inf on the diagonal (LAPACK's
 * answer, but in the vendor's tail); every bad argument, a context without
 * devices refused; the asynchronous call, two factorizations in one sequence.  The panels' solve
 * both ways (gpu_chol_trsm.c): a TRSM on every panel, then as the defaults choose it, a GEMM
 * with the inverses of the diagonal block's own diagonal blocks on every panel (chol.inv_rows
 * 1: the same cases again), on the first panels only, and on an ill-conditioned matrix
 * against the TRSM.  The tail (chol.tail: the last trailing matrix in one vendor dpotrf; off
 * in the cases above, whose subject is the loop nest, but for the public calls): in the
 * middle, narrower than a block, the whole matrix, after a wide block; INFO before it, at its
 * first column and inside it; NaN in it; the key's values and its default.  The automatic
 * block size and group of the GPU-only nest (1536 from 49152, 512 from 16384; group 2 from
 * 12288, 3 from 24576), and blocks of three potf2 pieces.  Trailing updates that apply the
 * panels of 1..4 steps at once (chol.group): SPD with lookahead 0..2, groups cut short by the
 * tail and by the last step, INFO in every position of a group, NaN; the key's values and its
 * default.
 *
 * Usage: test_chol_gpu          on one host device (the same task graph with the host
 *                               references: quick suite)
 *        test_chol_gpu cuda     on cuda:0 (fused potf2, cuBLAS; exit 77 without a usable GPU)
 */
#include "chol_internal.h"
#include "hytile.h"
#include "hyt_test.h"
#include "hyt_dev_test.h"
#include "chol_check.h"

#include <math.h>

static hyt_context_t *ctx;
static int g_tail; /* the tail of the factorizations by parameters (0: none) */
static int g_lt = -1; /* their trailing GEMMs through cublasLt (1), cublasDgemm (0), auto (-1) */
static int g_group; /* the panels their trailing updates apply at once (0: auto) */

/* Copies host <-> device 0 as tasks (the same calls on both backends). */
static void copy(void *dst, const void *src, size_t bytes, int d2h)
{
    hyt_sequence_t *seq;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());
    int rc = hyt_sequence_finish(seq, insert_copy(seq, dst, src, bytes, d2h));
    REQUIRE(!rc, "copy: %s", hyt_last_error());
}

/* The uplo triangle of A (host, lda) factored on device 0 with nb, la and leaf (<= 0, < 0, <= 0:
 * auto; public: through hyt_dpotrf_device itself); A gets the device's result.  Returns INFO. */
static int factor(char uplo, int n, double *A, int lda, int nb, int la, int leaf, int public)
{
    size_t bytes = ((size_t)lda * n + 1) * sizeof(double);
    double *dA, *h = hmalloc(ctx, bytes / sizeof(double));
    REQUIRE(!hyt_device_malloc(hyt_context_device(ctx, 0), (void **)&dA, bytes), "%s",
            hyt_last_error());
    memcpy(h, A, bytes);
    copy(dA, h, bytes, 0);
    hyt_chol_dev_params_t p = {nb, la, leaf, 0, g_tail, g_lt, g_group};
    int info = public ? hyt_dpotrf_device(ctx, uplo, n, dA, lda)
                      : hyt_dpotrf_device_params(ctx, uplo, n, dA, lda, &p);
    copy(h, dA, bytes, 1);
    memcpy(A, h, bytes);
    hyt_device_free(hyt_context_device(ctx, 0), dA);
    hyt_host_free(ctx, h);
    return info;
}

/* An SPD matrix (lda = n + 3; the failing minor `fail`, 0: none) factored; the factor by
 * backward error (fail == 0), INFO exactly, the other triangle and the padding untouched. */
static void check_leaf(char uplo, int n, int nb, int la, int leaf, int fail, int public,
                       unsigned long long seed)
{
    int lda = n + 3;
    size_t sz = ((size_t)lda * n + 1) * sizeof(double);
    double *A0 = malloc(sz), *A = malloc(sz);
    fill_random(A0, lda, n, lda, seed + 5); /* the padding rows */
    chol_matrix(A0, n, lda, fail, seed);
    memcpy(A, A0, sz);
    int info = factor(uplo, n, A, lda, nb, la, leaf, public);
    CHECK(info == fail, "%c n %d nb %d la %d: info %d, expected %d (%s)", uplo, n, nb, la, info,
          fail, hyt_last_error());
    CHECK(chol_other_untouched(uplo, n, lda, A, A0), "%c n %d nb %d la %d: the other triangle "
          "or the padding changed", uplo, n, nb, la);
    if (!fail) {
        double e = chol_backward_error(uplo, n, A0, lda, A, lda);
        CHECK(e < LU_THRESH, "%c n %d nb %d la %d leaf %d: backward error %g", uplo, n, nb, la,
              leaf, e);
    } else if (info == fail) {
        /* the columns before the failing block are final: L L^T matches there (before the tail
         * when it fails there: the vendor's blocks are not ours) */
        int c0 = (fail - 1) / (nb > 0 ? nb : n) * (nb > 0 ? nb : n);
        const int t0 = g_tail > 0 && nb > 0 ? hyt_chol_tail_step(n, nb, g_tail) * nb : n;
        if (public)
            c0 = 0;
        if (c0 > t0)
            c0 = t0;
        double e = chol_backward_error(uplo, c0, A0, lda, A, lda);
        CHECK(e < LU_THRESH, "%c n %d nb %d la %d fail %d: the leading %d columns: %g", uplo, n,
              nb, la, fail, c0, e);
    }
    free(A0);
    free(A);
}

static void check(char uplo, int n, int nb, int la, int fail, int public,
                  unsigned long long seed)
{
    check_leaf(uplo, n, nb, la, 0, fail, public, seed);
}

/* NaN at (r, c), r >= c, of the lower triangle (upper: at (c, r)): no hang, no crash; INFO > 0
 * or NaN in the result, INFO 1 for a NaN at (0, 0). */
static void check_nan(char uplo, int n, int nb, int r, int c)
{
    int lda = n;
    double *A = malloc(((size_t)lda * n + 1) * sizeof *A);
    chol_matrix(A, n, lda, 0, 77);
    if (uplo == 'L')
        A[r + (int64_t)c * lda] = NAN;
    else
        A[c + (int64_t)r * lda] = NAN;
    int info = factor(uplo, n, A, lda, nb, 1, 0, 0);
    chol_check_nan_result(uplo, n, A, info, r == 0 && c == 0 ? 0 : 1);
    free(A);
}

/* +Inf or -Inf on the diagonal at (j, j) (chol_check_inf_result: LAPACK's answer), n x n with
 * blocks of nb, lookahead 1; public: through hyt_dpotrf_device itself (automatic parameters).
 * A lower matrix of order up to chol.tail on CUDA is one cusolverDnDpotrf, whose answer to
 * +Inf differs from LAPACK's (on an H100, CUDA 13.0: INFO > 0 and NaN in the factor): there
 * the check is only that the call reports a failing minor. */
static void check_inf(char uplo, int n, int nb, int j, double inf, int public)
{
    const size_t sz = ((size_t)n * n + 1) * sizeof(double); /* the copies take lda n + 1 */
    double *A0 = malloc(sz), *A = malloc(sz);
    chol_matrix(A0, n, n, 0, 91 + (unsigned long long)j);
    A0[j + (int64_t)j * n] = inf;
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    const int info = factor(uplo, n, A, n, nb, 1, 0, public);
    if (public && use_cuda && uplo == 'L' && inf > 0)
        CHECK(info > j && info <= n, "+Inf at %d, the vendor's tail: info %d", j + 1, info);
    else
        chol_check_inf_result(uplo, n, nb, A0, A, j, inf, info);
    free(A0);
    free(A);
}

/* chol.inv_rows for the factorizations that follow ("auto", or a row count). */
static void set_inv_rows(const char *v)
{
    REQUIRE(!hyt_context_set(ctx, "chol.inv_rows", v), "chol.inv_rows %s: %s", v,
            hyt_last_error());
}

/* An SPD matrix whose unit triangle is ill-conditioned, A = L L^T with L = I + 0.3 E (E random
 * in [-1, 1], strictly lower), n = 1024: the panels' solve with the inverse of the diagonal
 * block against the TRSM (chol.inv_rows 1 against a count no panel reaches), nb 256.  Both
 * factors pass the backward-error check (threshold 30), and the solve by the inverses of the
 * block's 128-wide diagonal blocks stays within 8 times the TRSM's error or 0.01 (on the host
 * device: 0.0034 and 0.0038, lower and upper, against 0.0020 and 0.0021; the whole block's
 * inverse gave 0.027 and 0.045).  The floor: the TRSM's own error depends on the order in which
 * the runtime ran the updates, and a run under AddressSanitizer on a loaded 2-core machine gave
 * 0.0003 (upper), where the inverse's 0.0026 was as good as ever (2026-12-04). */
static void check_illcond(char uplo, unsigned long long seed)
{
    enum { N = 1024 };
    const size_t sz = ((size_t)N * N + 1) * sizeof(double);
    double *A0 = malloc(sz), *A = malloc(sz), *L = calloc(1, sz);
    fill_random(L, N, N, N, seed);
    for (int c = 0; c < N; c++)
        for (int r = 0; r <= c; r++)
            L[r + (int64_t)c * N] = r == c ? 1.0 : 0.0;
    for (int64_t i = 0; i < (int64_t)N * N; i++)
        if (i % N > i / N)
            L[i] *= 0.3;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, N, N, N, 1.0, L, N, L, N, 0.0, A0, N);
    for (int c = 0; c < N; c++) /* exactly symmetric */
        for (int r = c + 1; r < N; r++)
            A0[c + (int64_t)r * N] = A0[r + (int64_t)c * N];
    double e[2];
    for (int g = 0; g < 2; g++) {
        set_inv_rows(g ? "1" : "1000000");
        memcpy(A, A0, sz);
        int info = factor(uplo, N, A, N, 256, 1, 0, 0);
        CHECK(info == 0, "%c ill-conditioned, %s: info %d (%s)", uplo, g ? "inverse" : "TRSM",
              info, hyt_last_error());
        e[g] = info ? INFINITY : chol_backward_error(uplo, N, A0, N, A, N);
        CHECK(e[g] < LU_THRESH, "%c ill-conditioned, %s: backward error %g", uplo,
              g ? "inverse" : "TRSM", e[g]);
    }
    CHECK(e[1] <= fmax(8 * e[0], 0.01),
          "%c ill-conditioned: the inverse's backward error %g, the TRSM's %g", uplo, e[1], e[0]);
    set_inv_rows("auto");
    free(A0);
    free(A);
    free(L);
}

static void check_args(void)
{
    double x[16] = {4, 0, 0, 4}, *dA;
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    REQUIRE(!hyt_device_malloc(dev, (void **)&dA, sizeof x), "%s", hyt_last_error());
    CHECK(hyt_dpotrf_device(ctx, 'X', 2, dA, 2) == -1, "uplo X");
    CHECK(strstr(hyt_last_error(), "hyt_dpotrf_device: argument 1 (uplo)"), "message '%s'",
          hyt_last_error());
    CHECK(hyt_dpotrf_device(ctx, 'L', -1, dA, 2) == -2, "n -1");
    CHECK(hyt_dpotrf_device(ctx, 'L', 2, NULL, 2) == -3, "dA NULL");
    CHECK(hyt_dpotrf_device(ctx, 'L', 2, dA, 1) == -4, "ldda 1");
    CHECK(hyt_dpotrf_device(ctx, 'L', 0, NULL, 1) == 0, "n 0");
    CHECK(hyt_dpotrf_device(ctx, 'l', 0, NULL, 1) == 0, "n 0, 'l'");
    CHECK(hyt_dpotrf_device(NULL, 'L', 2, dA, 2) == HYT_ERR_INVALID, "NULL context");
    CHECK(hyt_dpotrf_device(ctx, 'u', 0, NULL, 1) == 0, "n 0, 'u'");
    CHECK(hyt_dpotrf_device(ctx, 'U', -1, dA, 2) == -2, "U, n -1");
    CHECK(hyt_dpotrf_device(ctx, 'U', 2, dA, 1) == -4, "U, ldda 1");
    hyt_context_t *none;
    REQUIRE(!make_context("none", 0, &none), "%s", hyt_last_error());
    CHECK(hyt_dpotrf_device(none, 'L', 2, dA, 2) == HYT_ERR_NOT_AVAILABLE, "no device accepted");
    CHECK(strstr(hyt_last_error(), "no device"), "message '%s'", hyt_last_error());
    hyt_context_destroy(none);
    hyt_device_free(dev, dA);
}

/* hyt_dpotrf_device_async: two factorizations in one sequence (lower SPD, upper with a failing
 * minor), each *info set when the sequence has finished; its argument checks. */
static void check_async(void)
{
    enum { N = 150 };
    const size_t bytes = (size_t)N * N * sizeof(double);
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    double *A0[2], *A[2], *h[2], *dA[2];
    const char uplo[2] = {'L', 'U'};
    const int fail[2] = {0, 37};
    for (int i = 0; i < 2; i++) {
        A0[i] = malloc(bytes);
        A[i] = malloc(bytes);
        h[i] = hmalloc(ctx, (size_t)N * N);
        chol_matrix(A0[i], N, N, fail[i], 900 + i);
        memcpy(h[i], A0[i], bytes);
        REQUIRE(!hyt_device_malloc(dev, (void **)&dA[i], bytes), "%s", hyt_last_error());
        copy(dA[i], h[i], bytes, 0);
    }
    hyt_sequence_t *seq;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());
    int info[2] = {-99, -99}, bad;
    CHECK(hyt_dpotrf_device_async(seq, 'X', N, dA[0], N, &bad) == -1, "async uplo X");
    CHECK(strstr(hyt_last_error(), "hyt_dpotrf_device_async: argument 1 (uplo)"), "'%s'",
          hyt_last_error());
    CHECK(hyt_dpotrf_device_async(seq, 'L', N, dA[0], N, NULL) == -5, "async info NULL");
    CHECK(strstr(hyt_last_error(), "argument 5 (info) is NULL"), "'%s'", hyt_last_error());
    CHECK(hyt_dpotrf_device_async(NULL, 'L', N, dA[0], N, &bad) == HYT_ERR_INVALID, "no seq");
    for (int i = 0; i < 2; i++)
        CHECK(!hyt_dpotrf_device_async(seq, uplo[i], N, dA[i], N, &info[i]), "insert %d: %s", i,
              hyt_last_error());
    CHECK(!hyt_sequence_wait(seq), "sequence: %s", hyt_last_error());
    hyt_sequence_destroy(seq);
    CHECK(info[0] == 0 && info[1] == fail[1], "async info %d %d, expected 0 %d", info[0],
          info[1], fail[1]);
    copy(h[0], dA[0], bytes, 1);
    memcpy(A[0], h[0], bytes);
    double e = chol_backward_error('L', N, A0[0], N, A[0], N);
    CHECK(e < LU_THRESH, "async lower: backward error %g", e);
    for (int i = 0; i < 2; i++) {
        hyt_device_free(dev, dA[i]);
        hyt_host_free(ctx, h[i]);
        free(A0[i]);
        free(A[i]);
    }
}

/* The tail (chol.tail, through the parameters): SPD, not positive definite, NaN. */
static void check_tails(unsigned long long seed)
{
    for (int u = 0; u < 2; u++) {
        const char uplo = "LU"[u];
        static const struct { int n, nb, tail; } t[] = {
            {300, 32, 100},  /* from step 7: 76 columns */
            {300, 32, 20},   /* narrower than a block: the last 12 columns */
            {100, 32, 100},  /* the whole matrix */
            {100, 32, 5000}, /* more than the matrix */
            {1300, 768, 600} /* after a block of two potf2 pieces: 532 columns */
        };
        for (int i = 0; i < (int)(sizeof t / sizeof t[0]); i++)
            for (int la = 0; la <= 2; la++) {
                g_tail = t[i].tail;
                check(uplo, t[i].n, t[i].nb, la, 0, 0, seed++);
            }
        g_tail = 100; /* n 300, nb 32: the tail from column 225 (1-based) */
        static const int fails[] = {1, 100, 224, 225, 226, 250, 300};
        for (int f = 0; f < (int)(sizeof fails / sizeof fails[0]); f++)
            check(uplo, 300, 32, 1, fails[f], 0, seed++);
        g_tail = 600;
        check(uplo, 1300, 768, 1, 600, 0, seed++);
        check(uplo, 1300, 768, 2, 1000, 0, seed++);
        g_tail = 80; /* n 100, nb 32: the tail from column 33 */
        check_nan(uplo, 100, 32, 60, 40);
        check_nan(uplo, 100, 32, 10, 3);
    }
    g_tail = 0;
    CHECK(hyt_context_set(ctx, "chol.tail", "-1") == HYT_ERR_CONFIG &&
              !hyt_context_set(ctx, "chol.tail", "0") &&
              !hyt_context_set(ctx, "chol.tail", "auto"),
          "chol.tail -1 refused, 0 and auto accepted: %s", hyt_last_error());
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    CHECK(hyt_chol_tail(ctx, dev, 'L', 12288) == (use_cuda ? 12288 : 0) &&
              hyt_chol_tail(ctx, dev, 'L', 100) == (use_cuda ? 100 : 0) &&
              hyt_chol_tail(ctx, dev, 'L', 12289) == 0 && hyt_chol_tail(ctx, dev, 'U', 100) == 0,
          "chol.tail auto: the whole of a lower matrix up to 12288 on CUDA devices, else none");
}

/* Trailing updates that apply the panels of several steps (chol.group, by the parameters):
 * groups of 1..4 steps with lookahead 0..2 (a group's lookahead columns are at least its
 * width), the last group cut short by the end or by the tail, INFO at each step of a group
 * (n 100, nb 32: steps of 32 columns), NaN; then the key. */
static void check_groups(unsigned long long seed)
{
    for (int g = 1; g <= HYT_CHOL_MAX_GROUP; g++) {
        g_group = g;
        for (int u = 0; u < 2; u++) {
            const char uplo = "LU"[u];
            static const int ns[] = {31, 64, 100, 161, 300};
            for (int i = 0; i < (int)(sizeof ns / sizeof ns[0]); i++)
                for (int la = 0; la <= 2; la++)
                    check(uplo, ns[i], 32, la, 0, 0, seed++);
            check(uplo, 1300, 96, 1, 0, 0, seed++);
            check(uplo, 1300, 768, 1, 0, 0, seed++);
            check_leaf(uplo, 1500, 128, 2, 512, 0, 0, seed++);
            g_tail = 100; /* n 300, nb 32: the tail from step 7 */
            for (int la = 0; la <= 2; la++)
                check(uplo, 300, 32, la, 0, 0, seed++);
            check(uplo, 300, 32, 1, 200, 0, seed++);
            check(uplo, 300, 32, 2, 250, 0, seed++);
            g_tail = 0;
            static const int fails[] = {1, 32, 33, 64, 65, 90, 97, 100};
            for (int f = 0; f < (int)(sizeof fails / sizeof fails[0]); f++)
                for (int la = 0; la <= 2; la++)
                    check(uplo, 100, 32, la, fails[f], 0, seed++);
            check(uplo, 1300, 128, 1, 1200, 0, seed++);
            check_nan(uplo, 100, 32, 40, 3);
            check_nan(uplo, 100, 32, 99, 70);
        }
    }
    g_group = 0;
    CHECK(hyt_context_set(ctx, "chol.group", "0") == HYT_ERR_CONFIG &&
              hyt_context_set(ctx, "chol.group", "5") == HYT_ERR_CONFIG &&
              !hyt_context_set(ctx, "chol.group", "3"),
          "chol.group 0 and 5 refused, 3 accepted: %s", hyt_last_error());
    hyt_device_t *dev = hyt_context_device(ctx, 0);
    CHECK(hyt_chol_group(ctx, dev, 1000) == 3 && hyt_chol_group(ctx, dev, 65536) == 3,
          "chol.group 3 at every order");
    REQUIRE(!hyt_context_set(ctx, "chol.group", "auto"), "%s", hyt_last_error());
    CHECK(hyt_chol_group(ctx, dev, 24575) == 1 &&
              hyt_chol_group(ctx, dev, 24576) == (use_cuda ? 3 : 1) &&
              hyt_chol_group(ctx, dev, 65536) == (use_cuda ? 3 : 1),
          "chol.group auto: on CUDA devices 3 from n = 24576; else 1");
}

/* The GPU-only nest's automatic block size: 1536 from n = 49152, 512 from 16384, else the
 * device defaults; chol.nb and the caller's nb win.  Its automatic group: on CUDA devices 2 from
 * 12288, 3 from 24576 (else 1); chol.group and the caller's group win. */
static void check_auto_nb(void)
{
    static const struct { int n, nb; } t[] = {
        {49152, 1536}, {65536, 1536}, {49151, 512}, {24576, 512},
        {24575, 512},  {16384, 512},  {16383, 512}, {8191, 256}};
    for (int i = 0; i < (int)(sizeof t / sizeof t[0]); i++) {
        hyt_chol_dev_params_t p = HYT_CHOL_DEV_PARAMS_AUTO;
        hyt_chol_params_gpu_only(ctx, t[i].n, &p);
        CHECK(p.nb == t[i].nb, "auto nb, n = %d: %d, expected %d", t[i].n, p.nb, t[i].nb);
    }
    static const struct { int n, group; } g[] = {{12287, 1}, {12288, 2}, {24575, 2},
                                                 {24576, 3}, {65536, 3}};
    for (int i = 0; i < (int)(sizeof g / sizeof g[0]); i++) {
        hyt_chol_dev_params_t p = HYT_CHOL_DEV_PARAMS_AUTO;
        hyt_chol_params_gpu_only(ctx, g[i].n, &p);
        const int want = use_cuda ? g[i].group : 1;
        CHECK(p.group == want, "auto group, n = %d: %d, expected %d", g[i].n, p.group, want);
    }
    REQUIRE(!hyt_context_set(ctx, "chol.group", "4"), "%s", hyt_last_error());
    hyt_chol_dev_params_t q = HYT_CHOL_DEV_PARAMS_AUTO;
    hyt_chol_params_gpu_only(ctx, 16384, &q);
    CHECK(q.group == 4, "chol.group kept: %d", q.group);
    q = HYT_CHOL_DEV_PARAMS_AUTO;
    q.group = 2;
    hyt_chol_params_gpu_only(ctx, 65536, &q);
    CHECK(q.group == 2, "the caller's group kept: %d", q.group);
    REQUIRE(!hyt_context_set(ctx, "chol.group", "auto"), "%s", hyt_last_error());
    hyt_chol_dev_params_t p = HYT_CHOL_DEV_PARAMS_AUTO;
    p.nb = 768;
    hyt_chol_params_gpu_only(ctx, 65536, &p);
    CHECK(p.nb == 768, "the caller's nb kept: %d", p.nb);
    REQUIRE(!hyt_context_set(ctx, "chol.nb", "640"), "%s", hyt_last_error());
    p = HYT_CHOL_DEV_PARAMS_AUTO;
    hyt_chol_params_gpu_only(ctx, 65536, &p);
    CHECK(p.nb == 640, "chol.nb kept: %d", p.nb);
    REQUIRE(!hyt_context_set(ctx, "chol.nb", "auto"), "%s", hyt_last_error());
}

/* The trailing update's GEMMs through cublasLt and through cublasDgemm (chol.gemm_lt, by the
 * parameters): recursions deep enough to have GEMMs of several shapes, INFO, NaN. */
static void check_gemm_lt(unsigned long long seed)
{
    for (int lt = 0; lt <= 1; lt++) {
        g_lt = lt;
        for (int u = 0; u < 2; u++) {
            const char uplo = "LU"[u];
            check_leaf(uplo, 2100, 100, 2, 600, 0, 0, seed++);
            check_leaf(uplo, 1700, 128, 1, 512, 0, 0, seed++);
            check_leaf(uplo, 1700, 128, 0, 512, 1650, 0, seed++);
            if (use_cuda)
                check(uplo, 4100, 512, 1, 0, 0, seed++);
        }
        check_nan('L', 1300, 96, 1000, 700);
    }
    g_lt = -1;
    CHECK(hyt_context_set(ctx, "chol.gemm_lt", "2") == HYT_ERR_CONFIG &&
              !hyt_context_set(ctx, "chol.gemm_lt", "1") &&
              !hyt_context_set(ctx, "chol.gemm_lt", "0") &&
              !hyt_context_set(ctx, "chol.gemm_lt", "auto"),
          "chol.gemm_lt 2 refused, 0, 1 and auto accepted: %s", hyt_last_error());
    CHECK(hyt_chol_gemm_lt(ctx, hyt_context_device(ctx, 0), 'U') == 0 &&
              hyt_chol_gemm_lt(ctx, hyt_context_device(ctx, 0), 'L') == use_cuda,
          "chol.gemm_lt auto: cublasLt for lower on CUDA devices only");
}

int main(int argc, char **argv)
{
    const char *devices;
    int rc = dev_test_start(argc, argv, "test_chol_gpu", &devices, &ctx);
    if (rc >= 0)
        return rc;
    printf("test_chol_gpu on %s\n", devices);
    check_args();
    check_async();
    static const int ns[] = {0, 1, 2, 7, 31, 32, 33, 64, 95, 100, 161};
    static const int nbs[] = {16, 32, 64};
    static const int fails[] = {1, 2, 20, 32, 33, 64, 65, 90, 100};
    unsigned long long seed = 1;
    /* the panels' solve: pass 0 a TRSM on every panel (chol.inv_rows above every panel's
     * rows), pass 1 as the defaults choose it: a GEMM with the inverses of the block's diagonal
     * blocks on every panel (chol.inv_rows 1; the small sizes with lookahead 1 only) */
    for (int pass = 0; pass < 2; pass++)
    for (int u = 0; u < 2; u++) {
        const char uplo = "LU"[u];
        set_inv_rows(pass ? "auto" : "1000000");
        /* SPD: sizes around the block size, n < nb, 0 and 1, lookahead 0..2 */
        for (int i = 0; i < (int)(sizeof ns / sizeof ns[0]); i++)
            for (int b = 0; b < 3; b++)
                for (int la = pass; la <= 2 - pass; la++)
                    check(uplo, ns[i], nbs[b], la, 0, 0, seed++);
        /* the largest block the fused potf2 takes, and wider ones (in pieces of 512) */
        check(uplo, 600, 512, 1, 0, 0, seed++);
        check(uplo, 700, 1000, 2, 0, 0, seed++);
        check(uplo, 1300, 768, 1, 0, 0, seed++);
        /* trailing parts wider than the recursive update's leaf (default 1024, and 512) */
        check(uplo, 1300, 96, 0, 0, 0, seed++);
        check(uplo, 1300, 96, 1, 0, 0, seed++);
        if (!pass) { /* the trailing update's recursion: the same either way */
            check(uplo, 2100, 200, 2, 0, 0, seed++);
            check_leaf(uplo, 1500, 128, 1, 512, 0, 0, seed++);
            check_leaf(uplo, 2100, 100, 2, 2048, 0, 0, seed++);
        }
        /* the public call, automatic parameters */
        check(uplo, 300, 0, -1, 0, 1, seed++);
        check(uplo, 1, 0, -1, 0, 1, seed++);
        /* not positive definite: start, inside a block, both sides of a boundary, the end */
        for (int f = 0; f < (int)(sizeof fails / sizeof fails[0]); f++)
            for (int la = 0; la <= 2; la++)
                check(uplo, 100, 32, la, fails[f], 0, seed++);
        check(uplo, 1300, 128, 1, 1200, 0, seed++);
        check(uplo, 1300, 128, 2, 1300, 0, seed++);
        check(uplo, 600, 0, -1, 257, 1, seed++);
        /* in the second piece of a wide block (step 0: 513..768), in the last, short piece */
        check(uplo, 1300, 768, 1, 600, 0, seed++);
        check(uplo, 1300, 768, 2, 1290, 0, seed++);
        check(uplo, 1300, 768, 0, 513, 0, seed++);
        /* three pieces (nb 1536, the default from n = 49152): INFO in the third */
        check(uplo, 1700, 1536, 1, 0, 0, seed++);
        check(uplo, 1700, 1536, 1, 1100, 0, seed++);
        /* a last block narrower than one piece: its second INFO entry is written empty */
        check(uplo, 1000, 768, 1, 0, 0, seed++);
        check(uplo, 1000, 768, 1, 900, 0, seed++);
        check(uplo, 300, 600, 0, 0, 0, seed++);
        /* NaN: on the diagonal, below it, in the last block */
        check_nan(uplo, 100, 32, 0, 0);
        check_nan(uplo, 100, 32, 40, 3);
        check_nan(uplo, 100, 32, 99, 99);
        /* +-Inf on the diagonal: in the first block, inside one, at a block's first column */
        for (int s = 0; s < 2; s++) {
            check_inf(uplo, 100, 32, 0, s ? -INFINITY : INFINITY, 0);
            check_inf(uplo, 100, 32, 45, s ? -INFINITY : INFINITY, 0);
            check_inf(uplo, 100, 32, 64, s ? -INFINITY : INFINITY, 0);
        }
        check_inf(uplo, 600, 512, 300, INFINITY, 0);
        check_inf(uplo, 300, 0, 150, INFINITY, 1);
        check_inf(uplo, 300, 0, 150, -INFINITY, 1);
        if (use_cuda) /* the GPU's own block size and a large trailing update */
            check(uplo, 4100, 512, 1, 0, 0, seed++);
        if (pass)
            continue;
        /* the inverse on the first panels only (more than 600 rows below them), then TRSMs */
        set_inv_rows("600");
        check(uplo, 1300, 96, 1, 0, 0, seed++);
        check(uplo, 1300, 128, 2, 1200, 0, seed++);
        check_illcond(uplo, seed++);
    }
    set_inv_rows("auto");
    check_tails(seed);
    check_gemm_lt(seed + 1000);
    check_groups(seed + 2000);
    check_auto_nb();
    /* the key: a count from 1, or auto */
    CHECK(hyt_context_set(ctx, "chol.inv_rows", "0") == HYT_ERR_CONFIG &&
              hyt_context_set(ctx, "chol.inv_rows", "-3") == HYT_ERR_CONFIG &&
              !hyt_context_set(ctx, "chol.inv_rows", "auto"),
          "chol.inv_rows 0 and -3 refused, auto accepted: %s", hyt_last_error());
    CHECK(hyt_chol_inv_rows(ctx) == 1,
          "chol.inv_rows auto: the inverse on every panel");
    hyt_context_destroy(ctx);
    return test_result("test_chol_gpu");
}
