/*
 * hytile tune called in-process (app/cmd_tune.c): its table and its file, read back by hpl.
 */
#include "cli_test.h"

/* ---- tune ------------------------------------------------------------------------------------ */

static void test_tune(void)
{
    char *ini = path_in(scratch, "tuned-out.ini"), *out;
    int status = run_captured(hyt_cmd_tune, &out, "-n", "300", "--nb-list", "64,100",
                              "--lookahead-list", "0,1", "--panel-cores-list", "1", "--devices",
                              "none", "--output", ini, NULL);
    CHECK(status == 0, "tune: %d\n%s", status, out);
    CHECK(strstr(out, "best: nb = ") && strstr(out, "cp ") && strstr(out, "--config"),
          "tune output:\n%s", out);
    free(out);
    char *text = read_file(ini);
    hyt_machine_t m;
    REQUIRE(!hyt_machine_describe(&m), "machine");
    char want[256];
    snprintf(want, sizeof want, "; machine: %s\n", m.line);
    CHECK(text && strstr(text, want) && strstr(text, "; tuned: ") &&
          strstr(text, ", N = 300, ") && strstr(text, " GFLOP/s\n") && strstr(text, "[lu]\n"),
          "tuned file:\n%s", text ? text : "");
    free(text);
    hyt_machine_free(&m);
    hyt_config_t *cfg;
    hyt_config_create(&cfg);
    CHECK(!hyt_config_load_file(cfg, ini, HYT_SRC_TUNED), "tuned file: %s", hyt_last_error());
    long nb = hyt_config_get_int(cfg, "lu.nb"), la = hyt_config_get_int(cfg, "lu.lookahead");
    CHECK((nb == 64 || nb == 100) && (la == 0 || la == 1) &&
          hyt_config_get_int(cfg, "lu.panel_cores") == 1, "tuned values");
    hyt_config_destroy(cfg);
    /* hpl applies it through HYT_TUNED */
    char *json = path_in(scratch, "tuned.json");
    setenv("HYT_TUNED", ini, 1);
    status = run_captured(hyt_cmd_hpl, &out, "-n", "300", "--json", json, NULL);
    unsetenv("HYT_TUNED");
    CHECK(status == 0 && strstr(out, "(tuned)") && strstr(out, "tuned file"),
          "hpl with the tuned file:\n%s", out);
    free(out);
    text = read_file(json);
    CHECK(text && strstr(text, "\"nb\": \"tuned\""), "JSON sources:\n%s", text ? text : "");
    free(text);
    unlink(json);
    free(json);
    unlink(ini);

    /* errors: status 2, nothing written */
    static const char *const bad[][4] = {
        {"--nb-list", "64", NULL, "-n N is required"},
        {"-n", "300", "--nb-list=64,0", "0 is out of range"},
        {"-n", "300", "--reps=x", "--reps: 'x' is not a number"},
        {"-n", "-300", NULL, "-n: -300 is negative"},
        {"-n", "300", "--panel-cores-list=99", "more than the"},
        {"-n", "300", "--devices=gpu", "command line --devices"},
        {"-n", "300", "--frobnicate", "unknown option"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        status = run_captured(hyt_cmd_tune, &out, "--output", ini, "--lookahead-list", "0",
                              bad[i][0], bad[i][1], bad[i][2], NULL);
        CHECK(status == 2 && strstr(out, bad[i][3]), "tune %s %s %s: %d\n%s", bad[i][0],
              bad[i][1], bad[i][2] ? bad[i][2] : "", status, out);
        CHECK(!exists(ini), "tune wrote %s on bad input", ini);
        free(out);
    }
    free(ini);
}

/* The default lists: with GPU panels (on a host device, lu.panel = gpu) tile sizes around the
 * LU's own (256 to 1536, those up to N) and one panel-cores value (GPU panels do not use it);
 * on CPUs alone 96 to 320 and panel cores 1, 2, ... up to half the workers. */
static void test_tune_lists(void)
{
    char *ini = path_in(scratch, "tuned-lists.ini"), *out;
    setenv("HYT_PANEL", "gpu", 1);
    int status = run_captured(hyt_cmd_tune, &out, "-n", "1100", "--lookahead-list", "1",
                              "--devices", "host:1", "--output", ini, NULL);
    unsetenv("HYT_PANEL");
    CHECK(status == 0 && strstr(out, "  nb          256, 384, 512, 768, 1024\n") &&
          strstr(out, "5 combinations"), "tune with GPU panels: %d\n%s", status, out);
    free(out);
    status = run_captured(hyt_cmd_tune, &out, "-n", "1100", "--lookahead-list", "1",
                          "--devices", "none", "--output", ini, NULL);
    CHECK(status == 0 && strstr(out, "  nb          96, 128, 160, 192, 256, 320\n"),
          "tune on CPUs: %d\n%s", status, out);
    free(out);
    unlink(ini);
    free(ini);
}

int main(void)
{
    int skip = cli_test_begin();
    if (skip)
        return skip;
    test_tune();
    test_tune_lists();
    return cli_test_end("test_cli_tune");
}
