/*
 * The hybrid LU (panels on CPUs, trailing update on devices, copies as tasks) by backward
 * error, over sweeps of sizes (multiples of nb and not, n < nb, m != n), nb, lookahead 0..4
 * (with GPU panels: the early steps' updates in pieces, lu.overlap_steps 1, 2, auto) and 1 to
 * 4 devices: host devices (CI, no GPU) or CUDA GPUs (argument "cuda": the gpu suite,
 * skipped when no GPU is usable).  Also: the memory cap refuses a problem up front, and the
 * result does not depend on the number of devices (pivots identical to the CPU-only run on
 * matrices whose LU is exact in floating point).
 *
 * Usage: test_hybrid [cuda] [large]
 */
#include "hytile.h"
#include "hyt_test.h"
#include "lu_check.h"

static int check(hyt_context_t *ctx, int m, int n, int nb, int la, int tile_api,
                 unsigned long long seed, const char *what)
{
    char b[2][16];
    snprintf(b[0], 16, "%d", nb);
    snprintf(b[1], 16, "%d", la);
    hyt_context_set(ctx, "lu.nb", b[0]);
    hyt_context_set(ctx, "lu.lookahead", b[1]);
    int lda = m + 1, mn = m < n ? m : n;
    double *A0 = malloc(((size_t)lda * n + 1) * sizeof *A0), *F = malloc(((size_t)lda * n + 1) * sizeof *F);
    int *ipiv = malloc(((size_t)mn + 1) * sizeof *ipiv);
    fill_random(A0, lda, n, lda, seed);
    memcpy(F, A0, (size_t)lda * n * sizeof *F);
    int info;
    if (tile_api) {
        hyt_desc_t A;
        REQUIRE(!hyt_desc_create(ctx, m, n, nb, &A), "desc");
        hyt_lapack_to_tile(ctx, F, lda, &A);
        info = hyt_dgetrf_tile(ctx, &A, ipiv);
        hyt_tile_to_lapack(ctx, &A, F, lda);
        hyt_desc_destroy(&A);
    } else {
        info = hyt_dgetrf(ctx, m, n, F, lda, ipiv);
    }
    int bad = 0;
    CHECK(info == 0, "%s: %d x %d nb %d la %d: info %d (%s)", what, m, n, nb, la, info,
          hyt_last_error());
    bad |= info != 0;
    double e = info == 0 ? lu_backward_error(m, n, A0, lda, F, lda, ipiv) : 0;
    CHECK(e < LU_THRESH, "%s: %d x %d nb %d la %d %s: ||PA-LU||/(||A|| n eps) = %g", what, m,
          n, nb, la, tile_api ? "tiles" : "lapack", e);
    bad |= !(e < LU_THRESH);
    free(A0);
    free(F);
    free(ipiv);
    return bad;
}

/* A row-permuted, strongly diagonally dominant matrix: every pivot is chosen by a wide margin
 * (Schur complements stay dominant), so the pivots must be the same whatever runs the update:
 * CPUs only or any number of devices. */
static void check_same_pivots(hyt_context_t *cpu, hyt_context_t *dev, int n, int nb)
{
    double *A = malloc((size_t)n * n * sizeof *A), *F1 = malloc((size_t)n * n * sizeof *F1);
    double *F2 = malloc((size_t)n * n * sizeof *F2);
    int *p1 = malloc((size_t)n * sizeof *p1), *p2 = malloc((size_t)n * sizeof *p2);
    int *perm = malloc((size_t)n * sizeof *perm);
    test_rng_t r = {7};
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = test_randint(&r, i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    fill_random(A, n, n, n, 11);
    for (int j = 0; j < n; j++)
        A[perm[j] + (int64_t)j * n] = (test_rand(&r) & 1 ? 4.0 : -4.0) * n;
    char b[16];
    snprintf(b, 16, "%d", nb);
    hyt_context_set(cpu, "lu.nb", b);
    hyt_context_set(dev, "lu.nb", b);
    memcpy(F1, A, (size_t)n * n * sizeof *A);
    memcpy(F2, A, (size_t)n * n * sizeof *A);
    int i1 = hyt_dgetrf(cpu, n, n, F1, n, p1), i2 = hyt_dgetrf(dev, n, n, F2, n, p2);
    CHECK(i1 == 0 && i2 == 0, "info %d / %d", i1, i2);
    CHECK(!memcmp(p1, p2, (size_t)n * sizeof *p1), "pivots differ between CPUs and devices");
    /* the interchanges undo the permutation: row perm[k] comes to position k */
    int *rows = malloc((size_t)n * sizeof *rows), ok = 1;
    for (int i = 0; i < n; i++)
        rows[i] = i;
    for (int k = 0; k < n; k++) {
        int t = rows[k];
        rows[k] = rows[p2[k] - 1];
        rows[p2[k] - 1] = t;
        ok &= rows[k] == perm[k];
    }
    CHECK(ok, "pivots do not recover the row permutation");
    double e2 = lu_backward_error(n, n, A, n, F2, n, p2);
    CHECK(e2 < LU_THRESH, "permuted dominant matrix: error %g", e2);
    free(rows);
    free(perm);
    free(A);
    free(F1);
    free(F2);
    free(p1);
    free(p2);
}

int main(int argc, char **argv)
{
    const int args = test_args(argc, argv, (const char *const[]){"cuda", "large", NULL});
    if (args < 0)
        return 2;
    const int cuda = args & 1, large = args & 2;
    const int maxdev = test_max_devices(cuda, 4);
    if (!maxdev)
        return 77;
    int small = test_scale() > 1;
    int count = 0;
    hyt_context_t *cpu = test_context(3, "none", (char *)NULL);
    for (int nd = 1; nd <= maxdev; nd++) {
        if (cuda && nd == 3 && maxdev == 4)
            continue; /* 1, 2 and 4 GPUs */
        char devs[32];
        test_device_list(cuda, nd, devs, sizeof devs);
        hyt_context_t *ctx = test_context(3, devs, "lu.panel_cores", "2", (char *)NULL);
        CHECK(hyt_context_num_devices(ctx) == nd, "%s: %d devices", devs,
              hyt_context_num_devices(ctx));
        /* sizes: multiples of nb and not, n < nb, m != n both ways */
        static const int shapes[][3] = {{1, 1, 8},     {5, 5, 8},     {40, 40, 8},
                                        {64, 64, 16},  {100, 100, 16}, {203, 203, 32},
                                        {257, 129, 32}, {129, 257, 32}, {300, 300, 64},
                                        {500, 500, 48}, {1000, 1000, 96}, {1200, 700, 128},
                                        /* a tile wider than 256, not a power of two */
                                        {1100, 900, 320}};
        int nsh = (int)(sizeof shapes / sizeof shapes[0]);
        for (int s = 0; s < nsh; s++) {
            int m = shapes[s][0], n = shapes[s][1], nb = shapes[s][2];
            if (small && m * n > 300 * 300)
                continue;
            for (int la = 0; la <= 4; la++) {
                if ((s + la) % 2 && la != 0 && la != 4 && !large)
                    continue; /* a sample of the lookaheads per shape */
                /* the early steps' updates in pieces: only the first, two, or auto (all
                 * of them for these sizes) */
                static const char *const ov[] = {"1", "2", "auto"};
                hyt_context_set(ctx, "lu.overlap_steps", ov[(s + la + nd) % 3]);
                check(ctx, m, n, nb, la, (s + la + nd) % 2, 1000u * nd + 10u * s + la, devs);
                count++;
            }
        }
        if (large && cuda) {
            check(ctx, 8000, 8000, 256, 2, 1, 8000, devs);
            check(ctx, 12345, 12345, 384, 3, 1, 12345, devs);
            count += 2;
        }
        check_same_pivots(cpu, ctx, small ? 120 : 300, 32);
        hyt_context_destroy(ctx);
    }

    /* the memory cap refuses the problem before anything runs */
    hyt_context_t *capped =
        test_context(2, cuda ? "cuda:0" : "host:2", "gpu.memory_limit", "1M", (char *)NULL);
    hyt_context_set(capped, "lu.nb", "64");
    double *A = malloc((size_t)800 * 800 * sizeof *A);
    int *ipiv = malloc(800 * sizeof *ipiv);
    fill_random(A, 800, 800, 800, 3);
    int rc = hyt_dgetrf(capped, 800, 800, A, 800, ipiv);
    CHECK(rc == HYT_ERR_DEVICE_MEMORY, "capped device memory: %d", rc);
    CHECK(strstr(hyt_last_error(), "GiB"), "message: %s", hyt_last_error());
    /* and the context is still usable with a small problem */
    hyt_context_set(capped, "lu.nb", "16");
    CHECK(hyt_dgetrf(capped, 20, 20, A, 20, ipiv) == 0, "after refusal: %s", hyt_last_error());
    free(A);
    free(ipiv);
    hyt_context_destroy(capped);
    hyt_context_destroy(cpu);
    printf("%d hybrid factorizations checked\n", count);
    return test_result("test_hybrid");
}
