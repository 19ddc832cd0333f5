/*
 * Fuzz target: the HPL.dat reader, hyt_hpl_dat_read (app/hpl_dat.c).
 *
 * Contract checked on every input (written to an in-memory file):
 *   rejected: HYT_ERR_CONFIG (or HYT_ERR_NOMEM) with a message; a HYT_ERR_CONFIG message starts
 *             with "file:" (hpl_dat.h: "path:line: what is wrong"); nothing left allocated;
 *   accepted: the lists hytile uses have 1..20 values each in HPL's and hytile's ranges
 *             (Ns 1..10^7, NBs 1..4096, DEPTHs 0..64, Ps and Qs >= 1), the threshold is
 *             finite and positive and its text reads back as the same number.
 */
#include "fuzz_common.h"
#include "hpl_dat.h"

static void check_list(const char *what, int count, const int *v, long min, long max)
{
    HYT_FUZZ_CHECK(count >= 1 && count <= HYT_HPL_DAT_MAX, "%s: %d values", what, count);
    for (int i = 0; i < count; i++)
        HYT_FUZZ_CHECK(v[i] >= min && v[i] <= max, "%s[%d] = %d outside %ld..%ld", what, i,
                       v[i], min, max);
}

static int fuzz_hpldat_one(const uint8_t *data, size_t size)
{
    const char *path = hyt_fuzz_input_file(data, size);
    hyt_hpl_dat_t dat;
    hyt_fuzz_clear_error();
    int rc = hyt_hpl_dat_read(path, &dat);
    if (rc) {
        hyt_fuzz_check_rejection(rc, path);
        const char *msg = hyt_last_error();
        HYT_FUZZ_CHECK(dat.threshold_text == NULL, "threshold text left allocated (%s)", msg);
        return 0;
    }
    check_list("Ns", dat.nns, dat.ns, 1, 10000000);
    check_list("NBs", dat.nnbs, dat.nbs, 1, 4096);
    check_list("DEPTHs", dat.ndepths, dat.depths, 0, 64);
    check_list("Ps", dat.ngrids, dat.ps, 1, 2147483647);
    check_list("Qs", dat.ngrids, dat.qs, 1, 2147483647);
    HYT_FUZZ_CHECK(isfinite(dat.threshold) && dat.threshold > 0, "threshold %g", dat.threshold);
    HYT_FUZZ_CHECK(dat.threshold_text && strtod(dat.threshold_text, NULL) == dat.threshold,
                   "threshold text '%s' is not %g",
                   dat.threshold_text ? dat.threshold_text : "(null)", dat.threshold);
    hyt_hpl_dat_free(&dat);
    HYT_FUZZ_CHECK(dat.threshold_text == NULL, "hyt_hpl_dat_free left the threshold text");
    return 1;
}

HYT_FUZZ_TARGET(fuzz_hpldat_one)
