/*
 * HPL's run with the matrix on the devices (app/hpl_dmat.c) against the host run
 * (hyt_hpl_solve) on the same context: both pass HPL's check, with the same ||A||_oo and
 * ||b||_oo and close residual norms; over sizes below, at and above nb and 1 to 3 devices.
 * A memory cap refuses the run before anything runs; under a cap the largest order that
 * hyt_hpl_dmat_max_n (hpl.n = auto's sizing) allows runs, and one tile more is refused or
 * fits only within the sizing's 1/64 margin.  Host devices (quick suite) or CUDA GPUs
 * (argument "cuda": gpu suite, skipped without a GPU).
 *
 * Usage: test_hpl_dmat [cuda]
 */
#include "cli_common.h"
#include "hyt_test.h"

#include <math.h>

int main(int argc, char **argv)
{
    const int cuda = test_cuda_arg(argc, argv);
    if (cuda < 0)
        return 2;
    const int maxdev = test_max_devices(cuda, 3);
    if (!maxdev)
        return 77;
    static const int sizes[] = {1, 5, 32, 100, 257};
    for (int nd = 1; nd <= maxdev; nd++) {
        char devs[32];
        test_device_list(cuda, nd, devs, sizeof devs);
        hyt_context_t *ctx = test_context(3, devs, "lu.lookahead", "2", (char *)NULL);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int n = sizes[s], nb = 32;
            hyt_hpl_result_t d, h;
            int rc = hyt_hpl_solve_dmat(ctx, n, nb, 100 + n, 16.0, HYT_HPL_TRACE, &d);
            CHECK(rc == 0 && d.passed, "%s N %d: rc %d (%s), residual %g", devs, n, rc,
                  hyt_last_error(), d.residual);
            hyt_hpl_ws_t ws = {0};
            REQUIRE(!hyt_hpl_ws_create(ctx, n, nb, &ws), "%s", hyt_last_error());
            CHECK(!hyt_hpl_solve(&ws, 100 + n, 16.0, 0, &h) && h.passed, "host run");
            hyt_hpl_ws_destroy(&ws);
            CHECK(d.anorm == h.anorm && d.bnorm == h.bnorm, "%s N %d: ||A|| %.17g / %.17g, "
                  "||b|| %.17g / %.17g", devs, n, d.anorm, h.anorm, d.bnorm, h.bnorm);
            CHECK(fabs(d.xnorm - h.xnorm) <= 1e-8 * h.xnorm, "%s N %d: ||x|| %g / %g", devs, n,
                  d.xnorm, h.xnorm);
            CHECK(d.seconds > 0 && d.gflops > 0 && d.info == 0, "timing");
        }
        hyt_context_destroy(ctx);
    }
    /* hpl.n = auto's size under a memory cap: the largest order that hyt_hpl_dmat_max_n says
     * fits runs, and one tile more is refused (the sizing counts what the run allocates) */
    for (int nd = 1; nd <= maxdev; nd++) {
        char devs[32];
        test_device_list(cuda, nd, devs, sizeof devs);
        hyt_context_t *ctx = test_context(2, devs, "gpu.memory_limit", "6M", "lu.nb", "64",
                                          "lu.lookahead", "2", (char *)NULL);
        const int n = hyt_hpl_dmat_max_n(ctx, 8192, 64);
        CHECK(n >= 256 && n < 8192 && n % 64 == 0, "%s: largest N %d", devs, n);
        hyt_hpl_result_t r;
        int rc = hyt_hpl_solve_dmat(ctx, n, 64, 100, 16.0, 0, &r);
        CHECK(rc == 0 && r.passed, "%s: N %d, the largest that fits: rc %d (%s)", devs, n, rc,
              hyt_last_error());
        rc = hyt_hpl_solve_dmat(ctx, n + 64, 64, 100, 16.0, 0, &r);
        if (rc == 0) {
            /* one tile more ran: only within the sizing's 1/64 margin, so a cap 1/64 larger
             * lets the sizing take it (seen on two H200s with the native panel's small
             * workspace) */
            hyt_context_t *wide = test_context(2, devs, "gpu.memory_limit",
                                               "6389760" /* 6M + 6M / 64 */, "lu.nb", "64",
                                               "lu.lookahead", "2", (char *)NULL);
            CHECK(hyt_hpl_dmat_max_n(wide, 8192, 64) >= n + 64, "%s: N %d ran beyond the "
                  "sizing's margin", devs, n + 64);
            hyt_context_destroy(wide);
        } else {
            CHECK(rc == HYT_ERR_DEVICE_MEMORY, "%s: N %d: rc %d (%s)", devs, n + 64, rc,
                  hyt_last_error());
        }
        CHECK(hyt_hpl_dmat_max_n(ctx, n + 63, 64) == n && hyt_hpl_dmat_max_n(ctx, 63, 64) == 0,
              "%s: rounding", devs);
        hyt_context_destroy(ctx);
    }
    hyt_context_t *capped = test_context(2, cuda ? "cuda:0" : "host:2", "gpu.memory_limit",
                                         "1M", (char *)NULL);
    hyt_hpl_result_t r;
    int rc = hyt_hpl_solve_dmat(capped, 1000, 64, 100, 16.0, 0, &r);
    CHECK(rc == HYT_ERR_DEVICE_MEMORY && strstr(hyt_last_error(), "GiB"), "capped: %d %s", rc,
          hyt_last_error());
    hyt_context_destroy(capped);
    return test_result(cuda ? "test_hpl_dmat (cuda)" : "test_hpl_dmat");
}
