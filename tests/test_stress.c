/*
 * Stress (suite large): the hybrid and CPU LU repeated with random sizes, tile sizes,
 * lookaheads, panel placements, worker and device counts, with and without chaos mode, each
 * result checked by backward error.  HYTILE_STRESS_ROUNDS sets the number of rounds (default
 * 300).
 */
#include "hytile.h"
#include "hyt_test.h"
#include "lu_check.h"

int main(void)
{
    const char *r = getenv("HYTILE_STRESS_ROUNDS");
    int rounds = r && atoi(r) > 0 ? atoi(r) : 300;
    test_rng_t rng = {2026};
    int count = 0;
    for (int round = 0; round < rounds; round++) {
        int workers = 1 + test_randint(&rng, 6), ndev = test_randint(&rng, 5);
        int m = 1 + test_randint(&rng, 700), n = 1 + test_randint(&rng, 700);
        if (test_randint(&rng, 2))
            n = m; /* square half of the time */
        char devs[16], nb[16], la[16], pc[16], chaos[24];
        snprintf(devs, sizeof devs, ndev ? "host:%d" : "none", ndev);
        snprintf(nb, sizeof nb, "%d", 4 + test_randint(&rng, 120));
        snprintf(la, sizeof la, "%d", test_randint(&rng, 5));
        snprintf(pc, sizeof pc, "%d", 1 + test_randint(&rng, workers));
        snprintf(chaos, sizeof chaos, "%d", test_randint(&rng, 3) ? 0 : 1 + round);
        const char *panel = test_randint(&rng, 2) ? "gpu" : "cpu";
        hyt_context_t *ctx = test_context(workers, devs, "lu.nb", nb, "lu.lookahead", la,
                                          "lu.panel_cores", pc, "lu.panel", panel,
                                          "debug.chaos", chaos, (char *)NULL);
        int lda = m + test_randint(&rng, 3), mn = m < n ? m : n;
        double *A0 = malloc((size_t)lda * n * sizeof *A0), *A = malloc((size_t)lda * n * sizeof *A);
        int *ipiv = malloc((size_t)mn * sizeof *ipiv);
        fill_random(A0, lda, n, lda, (unsigned long long)round);
        memcpy(A, A0, (size_t)lda * n * sizeof *A);
        int info = hyt_dgetrf(ctx, m, n, A, lda, ipiv);
        double e = info == 0 ? lu_backward_error(m, n, A0, lda, A, lda, ipiv) : -1;
        CHECK(info == 0 && e < LU_THRESH,
              "round %d: %d x %d nb %s la %s workers %d %s panels %s chaos %s: info %d error %g "
              "(%s)", round, m, n, nb, la, workers, devs, panel, chaos, info, e,
              hyt_last_error());
        count++;
        free(A0);
        free(A);
        free(ipiv);
        hyt_context_destroy(ctx);
    }
    printf("%d random factorizations checked\n", count);
    return test_result("test_stress");
}
