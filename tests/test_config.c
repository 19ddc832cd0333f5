/*
 * Configuration: validation of every key type, INI files (errors name file:line and change
 * nothing), the environment (unknown HYT_ variables rejected), precedence of sources.  With
 * the hytile command's keys (hpl.*) registered, as the command does.
 */
#include "cli_common.h"
#include "hyt_runtime.h"
#include "hyt_test.h"

#include <sys/stat.h>

static char path[64];

static void write_file(const char *text) { test_write_tmp(path, sizeof path, text); }

/* The file must be rejected with "path:line" and a word of the reason; cfg unchanged. */
static void expect_file_error(const char *text, int line, const char *reason)
{
    hyt_config_t *cfg;
    hyt_config_create(&cfg);
    write_file(text);
    int rc = hyt_config_load_file(cfg, path, HYT_SRC_FILE);
    char where[96];
    snprintf(where, sizeof where, "%s:%d", path, line);
    CHECK(rc == HYT_ERR_CONFIG, "accepted: %s", text);
    CHECK(strstr(hyt_last_error(), where) != NULL, "'%s' does not name %s", hyt_last_error(),
          where);
    CHECK(strstr(hyt_last_error(), reason) != NULL, "'%s' does not say '%s'", hyt_last_error(),
          reason);
    hyt_source_t src;
    hyt_config_get(cfg, "lu.nb", &src);
    CHECK(src == HYT_SRC_DEFAULT, "a rejected file changed lu.nb");
    unlink(path);
    hyt_config_destroy(cfg);
}

int main(void)
{
    hyt_config_t *cfg;
    REQUIRE(!hyt_hpl_register_keys(), "hpl keys: %s", hyt_last_error());
    REQUIRE(!hyt_config_create(&cfg), "create");

    /* values */
    CHECK(!hyt_config_set(cfg, "lu.nb", "256", HYT_SRC_API, NULL), "nb 256");
    CHECK(hyt_config_get_int(cfg, "lu.nb") == 256, "nb value");
    CHECK(!hyt_config_set(cfg, "lu.nb", "auto", HYT_SRC_API, NULL), "nb auto");
    CHECK(hyt_config_get_int(cfg, "lu.nb") == -1, "auto is -1");
    static const char *bad_nb[] = {"0", "-5", "4097", "12x", "", " 12", "1e3", "0x10", NULL};
    for (int i = 0; bad_nb[i]; i++)
        CHECK(hyt_config_set(cfg, "lu.nb", bad_nb[i], HYT_SRC_API, NULL) == HYT_ERR_CONFIG,
              "nb '%s' accepted", bad_nb[i]);
    CHECK(hyt_config_set(cfg, "lu.nbb", "8", HYT_SRC_API, NULL) == HYT_ERR_CONFIG,
          "unknown key accepted");
    CHECK(strstr(hyt_last_error(), "lu.nbb"), "message %s", hyt_last_error());
    CHECK(hyt_config_set(cfg, "lu.lookahead", "-1", HYT_SRC_API, NULL) == HYT_ERR_CONFIG,
          "negative lookahead");
    CHECK(!hyt_config_set(cfg, "lu.lookahead", "0", HYT_SRC_API, NULL), "lookahead 0");
    static const char *good_dev[] = {"none", "auto", "cuda", "cuda:0", "cuda:0,2", "cuda:1-3",
                                     "host:1", "host:4", NULL};
    static const char *bad_dev[] = {"gpu", "cuda:", "cuda:a", "cuda:1,1", "host:0", "host:",
                                    "host:x", "cuda:0,", "host:65", NULL};
    for (int i = 0; good_dev[i]; i++)
        CHECK(!hyt_config_set(cfg, "runtime.devices", good_dev[i], HYT_SRC_API, NULL),
              "devices '%s' rejected: %s", good_dev[i], hyt_last_error());
    for (int i = 0; bad_dev[i]; i++)
        CHECK(hyt_config_set(cfg, "runtime.devices", bad_dev[i], HYT_SRC_API, NULL) ==
                  HYT_ERR_CONFIG, "devices '%s' accepted", bad_dev[i]);
    CHECK(!hyt_config_set(cfg, "runtime.cores", "0-3,8", HYT_SRC_API, NULL), "cores list");
    CHECK(hyt_config_set(cfg, "runtime.cores", "3-1", HYT_SRC_API, NULL), "bad range");
    CHECK(!hyt_config_set(cfg, "gpu.memory_limit", "8G", HYT_SRC_API, NULL), "size 8G");
    CHECK(hyt_config_get_int(cfg, "gpu.memory_limit") == 8L << 30, "8G value");
    CHECK(hyt_config_set(cfg, "gpu.memory_limit", "8X", HYT_SRC_API, NULL), "size 8X");
    CHECK(hyt_config_set(cfg, "gpu.memory_limit", "-1", HYT_SRC_API, NULL), "size -1");
    CHECK(!hyt_config_set(cfg, "hpl.n", "4000,8000,4000,200000", HYT_SRC_API, NULL), "sizes");
    CHECK(!hyt_config_set(cfg, "hpl.n", "auto", HYT_SRC_API, NULL), "sizes auto");
    static const char *bad_n[] = {"", "0", "-5", "4000,", ",4000", "4000,,8", "4e3", "x",
                                  "20000000", NULL};
    for (int i = 0; bad_n[i]; i++)
        CHECK(hyt_config_set(cfg, "hpl.n", bad_n[i], HYT_SRC_API, NULL) == HYT_ERR_CONFIG,
              "hpl.n '%s' accepted", bad_n[i]);
    CHECK(!hyt_config_set(cfg, "hpl.threshold", "16.0", HYT_SRC_API, NULL), "threshold");
    CHECK(hyt_config_get_double(cfg, "hpl.threshold") == 16.0, "threshold value");
    static const char *bad_t[] = {"", "0", "-1", "abc", "1e999", "nan", "16x", NULL};
    for (int i = 0; bad_t[i]; i++)
        CHECK(hyt_config_set(cfg, "hpl.threshold", bad_t[i], HYT_SRC_API, NULL) ==
                  HYT_ERR_CONFIG, "threshold '%s' accepted", bad_t[i]);
    CHECK(hyt_config_get_int(cfg, "abi.min_n") == -1, "abi.min_n default (auto)");
    CHECK(!hyt_config_set(cfg, "abi.min_n", "384", HYT_SRC_API, NULL) &&
              hyt_config_get_int(cfg, "abi.min_n") == 384, "abi.min_n 384");
    CHECK(!hyt_config_set(cfg, "abi.min_n", "0", HYT_SRC_API, NULL), "abi.min_n 0");
    static const char *bad_min_n[] = {"-1", "1000001", "Auto", "", "64k", NULL};
    for (int i = 0; bad_min_n[i]; i++)
        CHECK(hyt_config_set(cfg, "abi.min_n", bad_min_n[i], HYT_SRC_API, NULL) ==
                  HYT_ERR_CONFIG, "abi.min_n '%s' accepted", bad_min_n[i]);
    setenv("HYT_ABI_MIN_N", "200", 1);
    CHECK(!hyt_config_load_env(cfg) && hyt_config_get_int(cfg, "abi.min_n") == 0,
          "HYT_ABI_MIN_N beat the API");
    unsetenv("HYT_ABI_MIN_N");
    CHECK(!hyt_config_set(cfg, "gpu.pinned", "off", HYT_SRC_API, NULL), "bool off");
    CHECK(hyt_config_get_int(cfg, "gpu.pinned") == 0, "bool value");
    CHECK(hyt_config_set(cfg, "gpu.pinned", "maybe", HYT_SRC_API, NULL), "bool maybe");
    CHECK(hyt_config_get_int(cfg, "gpu.panel_ctas") == 16, "panel_ctas default 16");
    CHECK(!hyt_config_set(cfg, "gpu.panel_ctas", "66", HYT_SRC_API, NULL), "panel_ctas 66");
    CHECK(hyt_config_get_int(cfg, "gpu.panel_ctas") == 66, "panel_ctas value");
    CHECK(hyt_config_set(cfg, "gpu.panel_ctas", "-1", HYT_SRC_API, NULL), "panel_ctas -1");
    CHECK(hyt_config_set(cfg, "gpu.panel_ctas", "4097", HYT_SRC_API, NULL), "panel_ctas 4097");
    CHECK(!hyt_config_set(cfg, "gpu.panel_ctas", "auto", HYT_SRC_API, NULL), "panel_ctas auto");
    CHECK(hyt_config_get_int(cfg, "gpu.panel_ctas") == -1, "panel_ctas auto value");
    CHECK(!hyt_config_set(cfg, "gpu.panel_ctas", "0", HYT_SRC_API, NULL), "panel_ctas 0");
    CHECK(hyt_config_get_int(cfg, "gpu.panel_native_rows") == -1, "panel_native_rows auto");
    CHECK(!hyt_config_set(cfg, "gpu.panel_native_rows", "32768", HYT_SRC_API, NULL),
          "panel_native_rows 32768");
    CHECK(hyt_config_get_int(cfg, "gpu.panel_native_rows") == 32768, "panel_native_rows value");
    CHECK(hyt_config_set(cfg, "gpu.panel_native_rows", "-1", HYT_SRC_API, NULL),
          "panel_native_rows -1");
    CHECK(!hyt_config_set(cfg, "gpu.panel_native_rows", "0", HYT_SRC_API, NULL),
          "panel_native_rows 0");
    hyt_config_destroy(cfg);

    /* precedence: a lower source never replaces a higher one */
    hyt_config_create(&cfg);
    hyt_source_t src;
    CHECK(!hyt_config_set(cfg, "lu.nb", "100", HYT_SRC_ENV, "HYT_NB"), "env");
    CHECK(!hyt_config_set(cfg, "lu.nb", "200", HYT_SRC_FILE, "x.ini:3"), "file");
    CHECK(!strcmp(hyt_config_get(cfg, "lu.nb", &src), "100") && src == HYT_SRC_ENV,
          "file overrode environment");
    CHECK(!hyt_config_set(cfg, "lu.nb", "300", HYT_SRC_API, NULL), "api");
    CHECK(!strcmp(hyt_config_get(cfg, "lu.nb", &src), "300") && src == HYT_SRC_API,
          "api did not override");
    CHECK(!hyt_config_set(cfg, "lu.lookahead", "3", HYT_SRC_TUNED, "tuned.ini:2"), "tuned");
    CHECK(!hyt_config_set(cfg, "lu.lookahead", "4", HYT_SRC_FILE, "x.ini:4"), "file2");
    CHECK(hyt_config_get_int(cfg, "lu.lookahead") == 4, "file must beat tuned");
    hyt_config_destroy(cfg);

    /* files */
    hyt_config_create(&cfg);
    write_file("; comment\n# comment\n[lu]\nnb = 320\nlookahead=3 ; inline\n\n[runtime]\n"
               "devices = host:2\ncores = all\n");
    CHECK(!hyt_config_load_file(cfg, path, HYT_SRC_FILE), "good file: %s", hyt_last_error());
    CHECK(hyt_config_get_int(cfg, "lu.nb") == 320, "nb from file");
    CHECK(hyt_config_get_int(cfg, "lu.lookahead") == 3, "lookahead from file");
    CHECK(!strcmp(hyt_config_get(cfg, "runtime.devices", &src), "host:2") &&
              src == HYT_SRC_FILE, "devices from file");
    unlink(path);
    CHECK(hyt_config_load_file(cfg, "/nonexistent/x.ini", HYT_SRC_FILE) == HYT_ERR_CONFIG,
          "missing file");
    CHECK(strstr(hyt_last_error(), "/nonexistent/x.ini"), "%s", hyt_last_error());
    hyt_config_destroy(cfg);

    expect_file_error("[lu]\nnb = 256\nlookahed = 2\n", 3, "unknown key");
    expect_file_error("[lu]\nnb = -4\n", 2, "out of range");
    expect_file_error("[lu]\nnb = abc\n", 2, "not an integer");
    expect_file_error("[lu]\nnb = 256\nnb = 128\n", 3, "twice");
    expect_file_error("nb = 256\n", 1, "outside a section");
    expect_file_error("[lu]\nnb 256\n", 2, "syntax error");
    expect_file_error("[lu\nnb = 256\n", 1, "syntax error");
    expect_file_error("[gpus]\nmemory_limit = 1G\n", 2, "unknown key");
    expect_file_error("[runtime]\ndevices = cuda:x\n", 2, "devices");
    /* found by fuzzing: sizes that do not fit a long, NUL bytes cutting values short */
    expect_file_error("[gpu]\nmemory_limit = 13371215493478744062\n", 2, "8 EiB");
    {
        static const char text[] = "[lu]\nnb = 9\0006\n";
        hyt_config_t *c;
        hyt_config_create(&c);
        snprintf(path, sizeof path, "/tmp/hyt_cfg_XXXXXX");
        int fd = mkstemp(path);
        REQUIRE(fd >= 0 && write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1), "w");
        close(fd);
        CHECK(hyt_config_load_file(c, path, HYT_SRC_FILE) == HYT_ERR_CONFIG, "NUL accepted");
        CHECK(strstr(hyt_last_error(), ":2: NUL byte"), "%s", hyt_last_error());
        unlink(path);
        hyt_config_destroy(c);
    }
    {
        /* a long path is named whole in messages */
        char dir[] = "/tmp/hyt_cfg_dir_XXXXXX", sub[512], file[600];
        REQUIRE(mkdtemp(dir), "mkdtemp");
        snprintf(sub, sizeof sub, "%s/%0100d", dir, 0);
        REQUIRE(mkdir(sub, 0700) == 0, "mkdir");
        snprintf(file, sizeof file, "%s/my.ini", sub);
        FILE *f = fopen(file, "w");
        REQUIRE(f, "fopen");
        fputs("[lu]\nnb = 0\n", f);
        fclose(f);
        hyt_config_t *c;
        hyt_config_create(&c);
        CHECK(hyt_config_load_file(c, file, HYT_SRC_FILE) == HYT_ERR_CONFIG, "nb 0 accepted");
        char want[700];
        snprintf(want, sizeof want, "%s:2:", file);
        CHECK(strstr(hyt_last_error(), want), "'%s' does not name %s", hyt_last_error(), want);
        hyt_config_destroy(c);
        unlink(file);
        rmdir(sub);
        rmdir(dir);
    }
    {
        char longline[600];
        memset(longline, 'x', sizeof longline);
        memcpy(longline, "[lu]\nnb = 1", 11);
        longline[sizeof longline - 2] = '\n';
        longline[sizeof longline - 1] = '\0';
        expect_file_error(longline, 2, "too long");
    }

    /* environment */
    hyt_config_create(&cfg);
    setenv("HYT_NB", "128", 1);
    setenv("HYT_LOOKAHEAD", "2", 1);
    CHECK(!hyt_config_load_env(cfg), "env: %s", hyt_last_error());
    CHECK(hyt_config_get_int(cfg, "lu.nb") == 128, "HYT_NB");
    setenv("HYT_LOOKAHAED", "2", 1);
    CHECK(hyt_config_load_env(cfg) == HYT_ERR_CONFIG, "misspelt variable accepted");
    CHECK(strstr(hyt_last_error(), "HYT_LOOKAHAED"), "%s", hyt_last_error());
    unsetenv("HYT_LOOKAHAED");
    setenv("HYT_NB", "zero", 1);
    CHECK(hyt_config_load_env(cfg) == HYT_ERR_CONFIG, "bad HYT_NB accepted");
    CHECK(strstr(hyt_last_error(), "HYT_NB"), "%s", hyt_last_error());
    unsetenv("HYT_NB");
    unsetenv("HYT_LOOKAHEAD");
    /* HYT_CONFIG names a file read before the variables */
    write_file("[lu]\nnb = 96\nlookahead = 1\n");
    setenv("HYT_CONFIG", path, 1);
    setenv("HYT_LOOKAHEAD", "5", 1);
    hyt_config_destroy(cfg);
    hyt_config_create(&cfg);
    CHECK(!hyt_config_load_env(cfg), "HYT_CONFIG: %s", hyt_last_error());
    CHECK(hyt_config_get_int(cfg, "lu.nb") == 96, "nb from HYT_CONFIG file");
    CHECK(hyt_config_get_int(cfg, "lu.lookahead") == 5, "environment beats the file");
    unsetenv("HYT_CONFIG");
    unsetenv("HYT_LOOKAHEAD");
    unlink(path);
    hyt_config_destroy(cfg);

    /* every key documented */
    int n = 0;
    for (const hyt_config_key_t *k = hyt_config_keys(); k->name; k++, n++)
        CHECK(k->env && k->help && k->deflt && !strncmp(k->env, "HYT_", 4), "key %s", k->name);
    CHECK(n >= 10, "%d keys", n);
    return test_result("test_config");
}
