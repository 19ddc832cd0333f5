/*
 * Registering configuration keys, as one's own tile algorithm does (hyt_config_register):
 * the new key is read from a config file, from its HYT_ variable and through the API, with the
 * same validation and messages as the library's keys (a bad value named with file:line);
 * malformed or clashing definitions are refused.  Linked without the hytile command: its
 * [hpl] section and HYT_HPL_* variables are ignored here, other unknown ones still rejected.
 */
#include "hyt_runtime.h"
#include "hyt_test.h"

static char path[64];

static void write_file(const char *text) { test_write_tmp(path, sizeof path, text); }

static int check_variant(const char *value, char *err, size_t errlen)
{
    if (strcmp(value, "left") && strcmp(value, "right")) {
        snprintf(err, errlen, "'%.40s': expected left or right", value);
        return -1;
    }
    return 0;
}

static const hyt_config_keydef_t my_keys[] = {
    {{"mygemm.nb", "HYT_MYGEMM_NB", "256", "tile size of my GEMM (8..1024)"},
     HYT_KEY_INT, 8, 1024, 0, 1, NULL},
    {{"mygemm.variant", "HYT_MYGEMM_VARIANT", "left", "left or right looking"},
     HYT_KEY_STRING, 0, 0, 0, 0, check_variant},
};

int main(void)
{
    hyt_config_t *cfg;
    hyt_source_t src;

    /* a configuration created before the registration sees the new keys at their defaults */
    REQUIRE(!hyt_config_create(&cfg), "create");
    CHECK(hyt_config_get(cfg, "mygemm.nb", NULL) == NULL, "known before registration");
    REQUIRE(!hyt_config_register(my_keys, 2), "register: %s", hyt_last_error());
    CHECK(!hyt_config_register(my_keys, 2), "registering the same table again");
    CHECK(hyt_config_get_int(cfg, "mygemm.nb") == 256, "default in an older configuration");
    CHECK(!hyt_config_set(cfg, "mygemm.nb", "64", HYT_SRC_API, NULL), "%s", hyt_last_error());
    CHECK(hyt_config_get_int(cfg, "mygemm.nb") == 64, "set in an older configuration");
    hyt_config_destroy(cfg);

    /* listed with the others */
    int found = 0;
    for (const hyt_config_key_t *k = hyt_config_keys(); k->name; k++)
        found += !strcmp(k->name, "mygemm.nb") || !strcmp(k->name, "runtime.window");
    CHECK(found == 2, "hyt_config_keys lists %d of the 2", found);

    /* from a file, with file:line for a bad value */
    REQUIRE(!hyt_config_create(&cfg), "create");
    write_file("[runtime]\nwindow = 64\n[mygemm]\nnb = 128\nvariant = right\n");
    CHECK(!hyt_config_load_file(cfg, path, HYT_SRC_FILE), "file: %s", hyt_last_error());
    CHECK(hyt_config_get_int(cfg, "mygemm.nb") == 128, "nb from the file");
    CHECK(!strcmp(hyt_config_get(cfg, "mygemm.variant", &src), "right") && src == HYT_SRC_FILE,
          "variant from the file");
    unlink(path);
    write_file("[mygemm]\nnb = 128\nnb_ = 3\n");
    CHECK(hyt_config_load_file(cfg, path, HYT_SRC_FILE) == HYT_ERR_CONFIG, "unknown key");
    CHECK(strstr(hyt_last_error(), ":3: unknown key"), "%s", hyt_last_error());
    unlink(path);
    write_file("[mygemm]\n\nnb = 4096\n");
    CHECK(hyt_config_load_file(cfg, path, HYT_SRC_FILE) == HYT_ERR_CONFIG, "nb 4096 accepted");
    char want[160];
    snprintf(want, sizeof want, "%s:3: mygemm.nb: 4096 is out of range 8..1024", path);
    CHECK(strstr(hyt_last_error(), want), "'%s' does not say '%s'", hyt_last_error(), want);
    unlink(path);
    write_file("[mygemm]\nvariant = up\n");
    CHECK(hyt_config_load_file(cfg, path, HYT_SRC_FILE) == HYT_ERR_CONFIG, "variant up");
    snprintf(want, sizeof want, "%s:2: mygemm.variant: 'up': expected left or right", path);
    CHECK(strstr(hyt_last_error(), want), "'%s' does not say '%s'", hyt_last_error(), want);
    unlink(path);
    CHECK(hyt_config_get_int(cfg, "mygemm.nb") == 128, "a rejected file changed the value");

    /* from the environment, over the file */
    setenv("HYT_MYGEMM_NB", "32", 1);
    CHECK(!hyt_config_load_env(cfg), "env: %s", hyt_last_error());
    CHECK(hyt_config_get_int(cfg, "mygemm.nb") == 32, "HYT_MYGEMM_NB");
    hyt_config_get(cfg, "mygemm.nb", &src);
    CHECK(src == HYT_SRC_ENV, "source %s", hyt_source_name(src));
    setenv("HYT_MYGEMM_NB", "7", 1);
    CHECK(hyt_config_load_env(cfg) == HYT_ERR_CONFIG, "HYT_MYGEMM_NB=7 accepted");
    CHECK(strstr(hyt_last_error(), "HYT_MYGEMM_NB"), "%s", hyt_last_error());
    unsetenv("HYT_MYGEMM_NB");

    /* the API, over the environment; per-call keys on a running context */
    CHECK(!hyt_config_set(cfg, "mygemm.nb", "512", HYT_SRC_API, NULL), "%s", hyt_last_error());
    CHECK(hyt_config_get_int(cfg, "mygemm.nb") == 512, "api");
    CHECK(hyt_config_set(cfg, "mygemm.nb", "abc", HYT_SRC_API, NULL) == HYT_ERR_CONFIG, "abc");
    CHECK(strstr(hyt_last_error(), "not an integer"), "%s", hyt_last_error());
    CHECK(!hyt_config_set(cfg, "runtime.workers", "2", HYT_SRC_API, NULL), "workers");
    CHECK(!hyt_config_set(cfg, "runtime.devices", "none", HYT_SRC_API, NULL), "devices");
    hyt_context_t *ctx;
    REQUIRE(!hyt_context_create(cfg, &ctx), "context: %s", hyt_last_error());
    CHECK(!hyt_context_set(ctx, "mygemm.nb", "16"), "per-call key: %s", hyt_last_error());
    CHECK(hyt_config_get_int(hyt_context_config(ctx), "mygemm.nb") == 16, "context value");
    CHECK(hyt_context_set(ctx, "mygemm.variant", "right") == HYT_ERR_CONFIG,
          "a key fixed at creation changed");
    hyt_context_destroy(ctx);
    hyt_config_destroy(cfg);

    /* malformed or clashing definitions: nothing registered */
    static const hyt_config_keydef_t bad[][2] = {
        {{{"nodot", "HYT_NODOT", "1", "x"}, HYT_KEY_INT, 0, 9, 0, 0, NULL}},
        {{{"my.Upper", "HYT_UPPER", "1", "x"}, HYT_KEY_INT, 0, 9, 0, 0, NULL}},
        {{{"my.env", "MY_ENV", "1", "x"}, HYT_KEY_INT, 0, 9, 0, 0, NULL}},
        {{{"my.deflt", "HYT_MY_DEFLT", "10", "x"}, HYT_KEY_INT, 0, 9, 0, 0, NULL}},
        {{{"my.nohelp", "HYT_MY_NOHELP", "1", NULL}, HYT_KEY_INT, 0, 9, 0, 0, NULL}},
        {{{"mygemm.nb", "HYT_OTHER_NB", "1", "x"}, HYT_KEY_INT, 0, 9, 0, 0, NULL}},
        {{{"other.nb", "HYT_MYGEMM_NB", "1", "x"}, HYT_KEY_INT, 0, 9, 0, 0, NULL}},
        {{{"my.a", "HYT_MY_A", "1", "x"}, HYT_KEY_INT, 0, 9, 0, 0, NULL},
         {{"my.a", "HYT_MY_A2", "1", "x"}, HYT_KEY_INT, 0, 9, 0, 0, NULL}},
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        int n = bad[i][1].pub.name ? 2 : 1;
        CHECK(hyt_config_register(bad[i], n) == HYT_ERR_CONFIG, "bad definition %d accepted", i);
        CHECK(strstr(hyt_last_error(), "hyt_config_register"), "%s", hyt_last_error());
    }
    REQUIRE(!hyt_config_create(&cfg), "create");
    CHECK(hyt_config_get(cfg, "my.a", NULL) == NULL, "a refused table registered a key");
    hyt_config_destroy(cfg);

    /* without the hytile command: its section and variables are ignored, others rejected */
    REQUIRE(!hyt_config_create(&cfg), "create");
    CHECK(hyt_config_get(cfg, "hpl.n", NULL) == NULL, "hpl.n known without the command");
    write_file("[hpl]\nn = 4000\n[runtime]\nwindow = 64\n");
    CHECK(!hyt_config_load_file(cfg, path, HYT_SRC_FILE), "[hpl]: %s", hyt_last_error());
    CHECK(hyt_config_get_int(cfg, "runtime.window") == 64, "the rest of the file read");
    unlink(path);
    write_file("[hlp]\nn = 4000\n");
    CHECK(hyt_config_load_file(cfg, path, HYT_SRC_FILE) == HYT_ERR_CONFIG, "[hlp] accepted");
    unlink(path);
    setenv("HYT_HPL_N", "4000", 1);
    CHECK(!hyt_config_load_env(cfg), "HYT_HPL_N: %s", hyt_last_error());
    unsetenv("HYT_HPL_N");
    setenv("HYT_HLP_N", "4000", 1);
    CHECK(hyt_config_load_env(cfg) == HYT_ERR_CONFIG, "HYT_HLP_N accepted");
    unsetenv("HYT_HLP_N");
    hyt_config_destroy(cfg);
    return test_result("test_config_register");
}
