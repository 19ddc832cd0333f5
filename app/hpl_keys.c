/*
 * The configuration keys of `hytile hpl` ([hpl] in files, HYT_HPL_* variables), registered
 * before the command creates a configuration (and, with a constructor, before main, so that a
 * program that links the command's code sees them in every configuration).
 */
#include "cli_common.h"
#include "hyt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_sizes(const char *value, char *err, size_t errlen)
{
    int ns[64];
    if (strcmp(value, "auto") != 0 && hyt_parse_sizes(value, ns, 64) < 0) {
        snprintf(err, errlen, "'%.40s': expected auto or up to 64 sizes like 4000,8000 "
                 "(1..10000000)", value);
        return -1;
    }
    return 0;
}

static int check_fraction(const char *value, char *err, size_t errlen)
{
    char *end;
    double f = strtod(value, &end);
    if (!*value || *end || !(f > 0 && f <= 0.95)) {
        snprintf(err, errlen, "'%.40s': expected a fraction above 0, at most 0.95", value);
        return -1;
    }
    return 0;
}

/* Keep in sync with the README's configuration section. */
static const hyt_config_keydef_t hpl_keys[] = {
    {{"hpl.n", "HYT_HPL_N", "auto",
      "hytile hpl problem sizes, comma separated; auto: the largest that fits in memory and "
      "takes about hpl.seconds"},
     HYT_KEY_STRING, 0, 0, 0, 1, check_sizes},
    {{"hpl.seed", "HYT_HPL_SEED", "100", "seed of HPL's matrix generator (HPL uses 100)"},
     HYT_KEY_INT, 0, 2147483647, 0, 1, NULL},
    {{"hpl.threshold", "HYT_HPL_THRESHOLD", "16.0",
      "a run passes when HPL's scaled residual is below this"},
     HYT_KEY_DOUBLE, 0, 0, 0, 1, NULL},
    {{"hpl.seconds", "HYT_HPL_SECONDS", "60",
      "target duration of one run when hpl.n = auto (1..86400)"},
     HYT_KEY_INT, 1, 86400, 0, 1, NULL},
    {{"hpl.memory_fraction", "HYT_HPL_MEMORY_FRACTION", "0.7",
      "hpl.n = auto with CUDA GPUs: the matrix takes at most this fraction of the GPUs' "
      "available memory (0..0.95), and less where the factorization's and the solve's "
      "workspaces would not fit beside it"},
     HYT_KEY_STRING, 0, 0, 0, 1, check_fraction}, /* (the type's check would skip ours) */
};

int hyt_hpl_register_keys(void)
{
    return hyt_config_register(hpl_keys, (int)(sizeof hpl_keys / sizeof hpl_keys[0]));
}

__attribute__((constructor)) static void hpl_keys_at_load(void)
{
    hyt_hpl_register_keys();
}
