/*
 * The HPL generator against a literal transcription of HPL's own integer arithmetic
 * (HPL_lmul, HPL_ladd, HPL_xjumpm, HPL_setran, HPL_rand with 32-bit wrap-around), entry by
 * entry; and the tile generator against the entry function.
 */
#include "hyt_cpu_kernels.h"
#include "hytile.h"
#include "hyt_test.h"

#include <stdint.h>

/* HPL's routines, with its int overflow made explicit (two's complement wrap-around). */
static int32_t wrap(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }
static void lmul(const int *K, const int *J, int *I)
{
    int32_t ipow30 = 1 << 30, kt, lt;
    kt = wrap((int64_t)K[0] * J[0]);
    if (kt < 0)
        kt = wrap((int64_t)wrap((int64_t)kt + ipow30) + ipow30);
    I[0] = kt - ((kt >> 16) << 16);
    lt = wrap((int64_t)wrap((int64_t)K[0] * J[1]) + wrap((int64_t)K[1] * J[0]));
    if (lt < 0)
        lt = wrap((int64_t)wrap((int64_t)lt + ipow30) + ipow30);
    kt = wrap((int64_t)(kt >> 16) + lt);
    if (kt < 0)
        kt = wrap((int64_t)wrap((int64_t)kt + ipow30) + ipow30);
    I[1] = kt - ((kt >> 15) << 15);
}
static void ladd(const int *J, const int *K, int *I)
{
    int itmp0 = K[0] + J[0], itmp1;
    itmp1 = itmp0 >> 16;
    I[0] = itmp0 - (itmp1 << 16);
    itmp0 = itmp1 + K[1] + J[1];
    I[1] = itmp0 - ((itmp0 >> 15) << 15);
}
static int ias[2], ics[2], irand[2];
static double hpl_rand(void)
{
    int j[2] = {irand[0], irand[1]}, t[2];
    lmul(irand, ias, t);
    ladd(t, ics, irand);
    return 0.5 - ((double)j[0] + 65536.0 * (double)j[1]) / 2147483648.0;
}
static void hpl_dmatgen(int M, int N, double *A, int LDA, int ISEED)
{
    int mult[2] = {1284865837, 1481765933}, iadd[2] = {1, 0}, jseed[2] = {ISEED, 0};
    int iran1[2], j[2];
    /* HPL_xjumpm(1, ...): IAM = MULT, ICM = IADD, IRANM = IRANN * IAM + ICM */
    lmul(jseed, mult, j);
    ladd(j, iadd, iran1);
    irand[0] = iran1[0];
    irand[1] = iran1[1];
    ias[0] = mult[0];
    ias[1] = mult[1];
    ics[0] = iadd[0];
    ics[1] = iadd[1];
    for (int c = 0; c < N; c++)
        for (int r = 0; r < M; r++)
            A[r + (int64_t)c * LDA] = hpl_rand();
}

int main(void)
{
    static const int sizes[][3] = {{1, 2, 100}, {7, 8, 100}, {50, 51, 42}, {129, 130, 1}};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        int m = sizes[t][0], n = sizes[t][1], seed = sizes[t][2];
        double *ref = malloc((size_t)m * n * sizeof *ref), *got = malloc((size_t)m * n * sizeof *got);
        hpl_dmatgen(m, n, ref, m, seed);
        int ok = 1, inrange = 1;
        for (int c = 0; c < n; c++)
            for (int r = 0; r < m; r++) {
                double v = hyt_hpl_entry(m, r, c, seed);
                ok &= v == ref[r + (int64_t)c * m];
                inrange &= v > -0.5 && v <= 0.5;
            }
        CHECK(ok, "m %d n %d seed %d: hyt_hpl_entry differs from HPL's generator", m, n, seed);
        CHECK(inrange, "entries outside (-0.5, 0.5]");
        /* blocks at offsets, as the tile generator calls it */
        hyt_core_dplghpl(m, 3 % m, 1, m - 3 % m, n - 1, got, m, seed);
        ok = 1;
        for (int c = 0; c < n - 1; c++)
            for (int r = 0; r < m - 3 % m; r++)
                ok &= got[r + (int64_t)c * m] == ref[(r + 3 % m) + (int64_t)(c + 1) * m];
        CHECK(ok, "block generator differs");
        free(ref);
        free(got);
    }
    /* tile generator on a CCRB matrix: A is the first n columns, b the last */
    hyt_context_t *ctx = test_context(2, "none", (char *)NULL);
    int n = 300, nb = 64;
    hyt_desc_t A, B;
    hyt_desc_create(ctx, n, n, nb, &A);
    hyt_desc_create(ctx, n, 1, nb, &B);
    hyt_sequence_t *seq;
    hyt_sequence_create(ctx, &seq);
    hyt_dplghpl_tile_async(seq, &A, 0, 100);
    hyt_dplghpl_tile_async(seq, &B, n, 100);
    CHECK(hyt_sequence_wait(seq) == 0, "generate");
    hyt_sequence_destroy(seq);
    double *ref = malloc((size_t)n * (n + 1) * sizeof *ref);
    hpl_dmatgen(n, n + 1, ref, n, 100);
    int ok = 1;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++)
            ok &= *hyt_elem(&A, r, c) == ref[r + (int64_t)c * n];
    for (int r = 0; r < n; r++)
        ok &= *hyt_elem(&B, r, 0) == ref[r + (int64_t)n * n];
    CHECK(ok, "tile generator differs from HPL's [A b]");
    free(ref);
    hyt_desc_destroy(&A);
    hyt_desc_destroy(&B);
    hyt_context_destroy(ctx);
    return test_result("test_hpl_gen");
}
