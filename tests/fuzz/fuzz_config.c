/*
 * Fuzz target: the INI configuration reader, hyt_config_load_file (runtime/config.c, through
 * inih), and the value validators behind it (hyt_config_set: sizes, device and core lists,
 * integers, booleans, numbers).
 *
 * Contract checked on every input (written to an in-memory file):
 *   rejected: HYT_ERR_CONFIG (or HYT_ERR_NOMEM) with a message; a HYT_ERR_CONFIG message starts
 *             with the file name ("file:line: ..." or "file: ..."); the configuration is
 *             unchanged (a bad file changes nothing);
 *   accepted: every value validates again and is in its documented range
 *             (hyt_fuzz_check_config), and a key already set from a higher-precedence source
 *             (the environment) kept its value.
 */
#include "fuzz_common.h"

static int fuzz_config_one(const uint8_t *data, size_t size)
{
    const char *path = hyt_fuzz_input_file(data, size);
    hyt_config_t *cfg, *before;
    HYT_FUZZ_CHECK(hyt_config_create(&cfg) == 0, "hyt_config_create: %s", hyt_last_error());
    /* lu.nb from the environment: a file's lu.nb must not replace it */
    HYT_FUZZ_CHECK(hyt_config_set(cfg, "lu.nb", "64", HYT_SRC_ENV, "HYT_NB") == 0,
                   "hyt_config_set: %s", hyt_last_error());
    HYT_FUZZ_CHECK(hyt_config_copy(cfg, &before) == 0, "hyt_config_copy: %s", hyt_last_error());

    hyt_fuzz_clear_error();
    int rc = hyt_config_load_file(cfg, path, HYT_SRC_FILE);
    if (rc) {
        hyt_fuzz_check_rejection(rc, path);
        const char *msg = hyt_last_error();
        HYT_FUZZ_CHECK(memcmp(cfg, before, sizeof *cfg) == 0,
                       "a rejected file changed the configuration (%s)", msg);
    } else {
        hyt_source_t src;
        const char *nb = hyt_config_get(cfg, "lu.nb", &src);
        HYT_FUZZ_CHECK(strcmp(nb, "64") == 0 && src == HYT_SRC_ENV,
                       "the file replaced lu.nb from the environment: '%s' from %s", nb,
                       hyt_source_name(src));
        for (const hyt_config_key_t *k = hyt_config_keys(); k->name; k++) {
            hyt_config_get(cfg, k->name, &src);
            HYT_FUZZ_CHECK(src == HYT_SRC_DEFAULT || src == HYT_SRC_FILE ||
                           (src == HYT_SRC_ENV && strcmp(k->name, "lu.nb") == 0),
                           "%s has source %s", k->name, hyt_source_name(src));
        }
        hyt_fuzz_check_config(cfg);
    }
    hyt_config_destroy(before);
    hyt_config_destroy(cfg);
    return rc == 0;
}

HYT_FUZZ_TARGET(fuzz_config_one)
