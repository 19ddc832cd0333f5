/*
 * hytile hpl called in-process (app/cmd_hpl.c): option errors (exit status 2, nothing
 * written), config file errors naming file:line, HPL.dat reading and unreadable inputs, the
 * precedence of tuned file < config file < environment < command line, end-to-end runs on
 * CPUs and host devices (the JSON checked to be valid JSON), HPL.dat's runs.
 */
#include "cli_test.h"

/* ---- option errors ------------------------------------------------------------------------ */

/* hpl with these arguments (and --json) must exit 2 with a message containing `says`, and write
 * nothing. */
static void expect_usage_error(const char *says, const char *a1, const char *a2, const char *a3)
{
    char *json = path_in(scratch, "bad.json"), *out;
    int status = run_captured(hyt_cmd_hpl, &out, "--json", json, a1, a2, a3, NULL);
    CHECK(status == 2, "hpl %s %s %s: status %d, want 2\n%s", a1, a2 ? a2 : "", a3 ? a3 : "",
          status, out);
    CHECK(strstr(out, says) != NULL, "hpl %s %s: message does not say '%s':\n%s", a1,
          a2 ? a2 : "", says, out);
    CHECK(!exists(json), "hpl %s: %s written on bad input", a1, json);
    CHECK(!strstr(out, "PASSED"), "hpl %s ran", a1);
    unlink(json);
    free(json);
    free(out);
}

static void test_options(void)
{
    expect_usage_error("unknown option '--bogus'", "--bogus", NULL, NULL);
    expect_usage_error("unknown option '--nb-size'", "--nb-size=3", NULL, NULL);
    expect_usage_error("--nb needs a value", "-n", "300", "--nb");
    expect_usage_error("--trace needs a value", "--trace", "--quiet", NULL);
    expect_usage_error("--nb: 'abc' is not a number", "--nb", "abc", NULL);
    expect_usage_error("--lookahead: -1 is negative", "--lookahead", "-1", NULL);
    expect_usage_error("--lookahead: -1 is negative", "--lookahead=-1", NULL, NULL);
    expect_usage_error("--seed: -5 is negative", "--seed", "-5", NULL);
    expect_usage_error("--panel-cores: '2x' is not a number", "--panel-cores", "2x", NULL);
    expect_usage_error("command line --nb", "--nb", "0", NULL);
    expect_usage_error("out of range", "--nb", "5000", NULL);
    expect_usage_error("command line --devices", "--devices", "gpu", NULL);
    expect_usage_error("command line --cores", "--cores", "3-1", NULL);
    expect_usage_error("-n: 'x' is not a number", "-n", "300,x", NULL);
    expect_usage_error("-n: -300 is negative", "-n", "-300", NULL);
    expect_usage_error("command line -n", "-n", "0", NULL);
    expect_usage_error("--quiet takes no value", "--quiet=yes", NULL, NULL);
    expect_usage_error("unexpected argument 'extra'", "-n", "300", "extra");

    /* good forms, parsed directly */
    char *argv[] = {"hpl", "-n", "300", "-n1000,2000", "--nb=64", "--lookahead", "2",
                    "--devices=host:2", "--quiet", "--json=out.json", NULL};
    hyt_hpl_opts_t o;
    CHECK(hyt_hpl_parse_args(10, argv, &o) == 0, "good options rejected");
    CHECK(o.sizes && !strcmp(o.sizes, "300,1000,2000"), "sizes '%s'", o.sizes ? o.sizes : "");
    CHECK(o.quiet && o.have_nb && o.have_lookahead && o.json && !strcmp(o.json, "out.json"),
          "flags");
    int found = 0;
    for (int i = 0; i < o.nset; i++)
        found += (!strcmp(o.set[i].key, "lu.nb") && !strcmp(o.set[i].value, "64") &&
                  !strcmp(o.set[i].where, "command line --nb")) ||
                 (!strcmp(o.set[i].key, "runtime.devices") && !strcmp(o.set[i].value, "host:2"));
    CHECK(found == 2, "settings not recorded");
    hyt_hpl_opts_free(&o);

    char *out;
    CHECK(run_captured(hyt_cmd_hpl, &out, "--help", NULL) == 0, "--help");
    CHECK(strstr(out, "usage: hytile hpl"), "help text:\n%s", out);
    free(out);
}

/* ---- configuration files and the environment ---------------------------------------------- */

static void expect_config_error(const char *file, const char *where)
{
    char *cfg = path_in(data, file), *want = path_in(data, where), *out;
    int status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--config", cfg, NULL);
    CHECK(status == 2, "--config %s: status %d\n%s", file, status, out);
    CHECK(strstr(out, want), "--config %s: message does not name %s:\n%s", file, want, out);
    free(cfg);
    free(want);
    free(out);
}

static void test_config_errors(void)
{
    expect_config_error("cfg_unknown_key.ini", "cfg_unknown_key.ini:4: unknown key 'colour'");
    expect_config_error("cfg_misspelt_key.ini", "cfg_misspelt_key.ini:3: unknown key 'lookahed'");
    expect_config_error("cfg_bad_value.ini", "cfg_bad_value.ini:5: hpl.seed");
    expect_config_error("no_such_file.ini", "no_such_file.ini: cannot open");

    char *out;
    setenv("HYT_NBB", "128", 1);
    CHECK(run_captured(hyt_cmd_hpl, &out, "-n", "100", NULL) == 2, "HYT_NBB accepted");
    CHECK(strstr(out, "HYT_NBB"), "message does not name HYT_NBB:\n%s", out);
    unsetenv("HYT_NBB");
    free(out);
    setenv("HYT_LOOKAHEAD", "-2", 1);
    CHECK(run_captured(hyt_cmd_hpl, &out, "-n", "100", NULL) == 2, "HYT_LOOKAHEAD=-2 accepted");
    CHECK(strstr(out, "HYT_LOOKAHEAD"), "message does not name HYT_LOOKAHEAD:\n%s", out);
    unsetenv("HYT_LOOKAHEAD");
    free(out);
}

/* ---- HPL.dat ------------------------------------------------------------------------------- */

static void expect_dat_error(const char *file, int line, const char *reason)
{
    char *path = path_in(data, file), where[512];
    hyt_hpl_dat_t dat;
    snprintf(where, sizeof where, "%s:%d:", path, line);
    CHECK(hyt_hpl_dat_read(path, &dat) == HYT_ERR_CONFIG, "%s accepted", file);
    CHECK(strstr(hyt_last_error(), where), "%s: '%s' does not name %s", file, hyt_last_error(),
          where);
    CHECK(strstr(hyt_last_error(), reason), "%s: '%s' does not say '%s'", file,
          hyt_last_error(), reason);
    /* and through the command: status 2, nothing written */
    char *json = path_in(scratch, "dat.json"), *out;
    CHECK(run_captured(hyt_cmd_hpl, &out, "--hpl-dat", path, "--json", json, NULL) == 2,
          "hpl --hpl-dat %s did not fail", file);
    CHECK(strstr(out, where), "hpl --hpl-dat %s: output does not name %s:\n%s", file, where, out);
    CHECK(!exists(json), "%s written", json);
    free(out);
    free(json);
    free(path);
}

/* A copy of tests/data/HPL.dat with line `line` replaced by `text`. */
static char *dat_with_line(int line, const char *text)
{
    char *src = path_in(data, "HPL.dat"), *orig = read_file(src), *dst = path_in(scratch, "x.dat");
    REQUIRE(orig, "read %s", src);
    FILE *f = fopen(dst, "w");
    REQUIRE(f, "write %s", dst);
    int ln = 1;
    for (char *p = orig, *nl; *p; p = nl + 1, ln++) {
        nl = strchr(p, '\n');
        REQUIRE(nl, "HPL.dat ends without a newline");
        if (ln == line)
            fprintf(f, "%s\n", text);
        else
            fwrite(p, 1, (size_t)(nl - p + 1), f);
    }
    fclose(f);
    free(orig);
    free(src);
    return dst;
}

/* Unreadable inputs are refused at once, with a message (a reader once spun on /dev/zero);
 * values that the context cannot use name where they were set; a clamped value says so. */
static void test_reader_limits(void)
{
    char *dir = path_in(scratch, "cfgdir"), *mac = path_in(scratch, "mac.ini");
    char *cores = path_in(scratch, "cores.ini"), *dev = path_in(scratch, "dev.ini");
    char *dat = path_in(scratch, "nul.dat"), *out;
    REQUIRE(mkdir(dir, 0700) == 0, "mkdir");
    write_text(mac, "[lu]\rnb = 64\r");
    write_text(cores, "[runtime]\ncores = 999\n");
    write_text(dev, "[runtime]\ndevices = cuda\n");
    const struct {
        const char *opt, *file, *says;
    } bad[] = {
        {"--config", "/dev/zero", "/dev/zero:1: NUL byte in the line"},
        {"--config", dir, "cannot read config file: it is a directory"},
        {"--config", mac, "mac.ini:1: carriage return without a line feed"},
        {"--config", cores, "cores.ini:2: runtime.cores = 999"},
        {"--hpl-dat", "/dev/zero", "/dev/zero:1: NUL byte in the line"},
        {"--hpl-dat", dir, "cannot read HPL.dat: it is a directory"},
        {"--hpl-dat", mac, "mac.ini:1: carriage return without a line feed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int status = run_captured(hyt_cmd_hpl, &out, "-n", "100", bad[i].opt, bad[i].file, NULL);
        CHECK(status == 2 && strstr(out, bad[i].says), "%s %s: %d\n%s", bad[i].opt,
              bad[i].file, status, out);
        free(out);
    }
    /* no usable GPU (or no CUDA): the message names the file and line */
    int status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--config", dev, NULL);
    CHECK(status == 0 || strstr(out, "dev.ini:2: runtime.devices"), "devices = cuda: %d\n%s",
          status, out);
    free(out);
    /* a NUL byte in a value: "10\0" must not become N = 10 (or 1) */
    char *src = dat_with_line(6, "1000         Ns"), *text = read_file(src);
    REQUIRE(text, "read");
    char *v = strstr(text, "1000         Ns");
    REQUIRE(v, "Ns line");
    v[2] = '\0';
    FILE *f = fopen(dat, "w");
    REQUIRE(f, "write %s", dat);
    fwrite(text, 1, strlen(text) + strlen(v + 3) + 1, f);
    fclose(f);
    hyt_hpl_dat_t d;
    CHECK(hyt_hpl_dat_read(dat, &d) == HYT_ERR_CONFIG && strstr(hyt_last_error(), ":6: NUL byte"),
          "NUL in Ns: %s", hyt_last_error());
    free(text);
    unlink(src);
    free(src);
    status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--panel-cores", "100", NULL);
    CHECK(status == 0 && strstr(out, "clamped from 100 to the "), "--panel-cores 100: %d\n%s",
          status, out);
    free(out);
    /* a panel has one core per tile row at most: N = nb = 100 factors on one core, and both
     * the display and T/V say so */
    status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--nb", "100", "--panel-cores", "2",
                          NULL);
    CHECK(status == 0 && strstr(out, "panel_cores = 1 (clamped from 2") && strstr(out, "HYL1P1G"),
          "--panel-cores 2 at N = nb: %d\n%s", status, out);
    free(out);
    unlink(dat);
    unlink(mac);
    unlink(cores);
    unlink(dev);
    rmdir(dir);
    free(dat);
    free(mac);
    free(cores);
    free(dev);
    free(dir);
}

static void test_hpl_dat(void)
{
    hyt_hpl_dat_t dat;
    char *path = path_in(data, "hpl_standard.dat");
    CHECK(!hyt_hpl_dat_read(path, &dat), "HPL's own HPL.dat: %s", hyt_last_error());
    CHECK(dat.nns == 4 && dat.ns[0] == 29 && dat.ns[1] == 30 && dat.ns[2] == 34 &&
          dat.ns[3] == 35, "Ns");
    CHECK(dat.nnbs == 4 && dat.nbs[0] == 1 && dat.nbs[3] == 4, "NBs");
    CHECK(dat.ndepths == 1 && dat.depths[0] == 0, "DEPTHs");
    CHECK(dat.threshold == 16.0 && !strcmp(dat.threshold_text, "16.0"), "threshold");
    CHECK(dat.ngrids == 3 && dat.ps[0] == 2 && dat.qs[0] == 2 && dat.ps[1] == 1 &&
          dat.qs[1] == 4 && dat.ps[2] == 4 && dat.qs[2] == 1, "grids");
    hyt_hpl_dat_free(&dat);
    free(path);

    path = path_in(data, "HPL.dat");
    CHECK(!hyt_hpl_dat_read(path, &dat), "HPL.dat: %s", hyt_last_error());
    CHECK(dat.nns == 2 && dat.ns[0] == 1000 && dat.ns[1] == 2000, "Ns");
    CHECK(dat.nnbs == 2 && dat.nbs[0] == 128 && dat.nbs[1] == 192, "NBs");
    CHECK(dat.ndepths == 1 && dat.depths[0] == 1, "DEPTHs");
    hyt_hpl_dat_free(&dat);
    free(path);

    expect_dat_error("hpl_truncated.dat", 21, "missing line");
    expect_dat_error("hpl_wrong_count.dat", 8, "expected 3 values");
    expect_dat_error("hpl_bad_n.dat", 6, "'2OOO' is not an integer");
    expect_dat_error("hpl_nb0.dat", 8, "0 is out of range");
    CHECK(hyt_hpl_dat_read("/nonexistent/HPL.dat", &dat) == HYT_ERR_CONFIG &&
          strstr(hyt_last_error(), "/nonexistent/HPL.dat: cannot open"), "missing HPL.dat");

    /* generated variants: a line of any length is fine, bad values name their line */
    size_t big = 100000;
    char *longline = malloc(big + 32);
    REQUIRE(longline, "malloc");
    snprintf(longline, 32, "2            ");
    memset(longline + strlen(longline), 'x', big);
    longline[big] = '\0';
    char *p = dat_with_line(7, longline);
    CHECK(!hyt_hpl_dat_read(p, &dat), "a 100000-character line: %s", hyt_last_error());
    hyt_hpl_dat_free(&dat);
    free(p);
    free(longline);
    static const struct {
        int line;
        const char *text, *reason;
    } bad[] = {
        {5, "0            # of problems sizes (N)", "out of range"},
        {5, "21           # of problems sizes (N)", "out of range"},
        {6, "1000 0       Ns", "0 is out of range"},
        {6, "1000 -5      Ns", "-5 is out of range"},
        {6, "", "expected 2 values"},
        {13, "abc          threshold", "not a number"},
        {13, "-16.0        threshold", "must be positive"},
        {25, "-1           DEPTHs (>=0)", "out of range"},
        {25, "65           DEPTHs (>=0)", "out of range"},
        {9, "2            PMAP", "out of range"},
        {11, "0            Ps", "out of range"},
        {23, "9            BCASTs", "out of range"},
        {31, "0            memory alignment", "out of range"},
        {31, "", "empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char where[600];
        p = dat_with_line(bad[i].line, bad[i].text);
        snprintf(where, sizeof where, "%s:%d:", p, bad[i].line);
        CHECK(hyt_hpl_dat_read(p, &dat) == HYT_ERR_CONFIG, "line %d '%s' accepted",
              bad[i].line, bad[i].text);
        CHECK(strstr(hyt_last_error(), where) && strstr(hyt_last_error(), bad[i].reason),
              "line %d '%s': message '%s'", bad[i].line, bad[i].text, hyt_last_error());
        free(p);
    }
    /* grids other than 1x1 are noted, not an error */
    p = dat_with_line(11, "2            Ps");
    CHECK(!hyt_hpl_dat_read(p, &dat), "P = 2: %s", hyt_last_error());
    hyt_hpl_dat_free(&dat);
    free(p);
}

/* ---- precedence ---------------------------------------------------------------------------- */

/* lu.nb's value and source after building the configuration with these sources. */
static long nb_from(const char *config_file, const char *cmdline_nb, hyt_source_t *src,
                    char **tuned_used)
{
    hyt_cli_set_t set = {"lu.nb", cmdline_nb, "command line --nb"};
    hyt_cli_config_t cc = {.use_tuned = 1, .config_file = config_file, .set = &set,
                           .nset = cmdline_nb != NULL, .quiet = 1};
    hyt_config_t *cfg;
    int rc = hyt_cli_build_config(&cc, &cfg);
    CHECK(rc == 0, "build_config: %s", hyt_last_error());
    if (rc)
        return -2;
    hyt_config_get(cfg, "lu.nb", src);
    long nb = hyt_config_get_int(cfg, "lu.nb");
    hyt_config_destroy(cfg);
    if (tuned_used)
        *tuned_used = cc.tuned_path;
    else
        free(cc.tuned_path);
    return nb;
}

static void test_precedence(void)
{
    hyt_machine_t m;
    REQUIRE(!hyt_machine_describe(&m), "machine: %s", hyt_last_error());
    CHECK(m.cores >= 1 && m.cpu && m.line && strlen(m.line) <= 170, "machine '%s'", m.line);
    printf("machine: %s\n", m.line);
    char *tuned = path_in(scratch, "tuned.ini"), *file = path_in(scratch, "file.ini");
    char *text;
    REQUIRE(asprintf(&text, "; machine: %s\n; tuned: now\n[lu]\nnb = 100\n[hpl]\nseed = 7\n",
                     m.line) > 0, "asprintf");
    write_text(tuned, text);
    free(text);
    write_text(file, "[lu]\nnb = 120\n");
    hyt_source_t src;
    char *used;

    setenv("HYT_TUNED", tuned, 1);
    setenv("HYT_NB", "140", 1);
    CHECK(nb_from(file, "160", &src, NULL) == 160 && src == HYT_SRC_API, "command line");
    CHECK(nb_from(file, NULL, &src, NULL) == 140 && src == HYT_SRC_ENV, "environment");
    unsetenv("HYT_NB");
    CHECK(nb_from(file, NULL, &src, NULL) == 120 && src == HYT_SRC_FILE, "config file");
    CHECK(nb_from(NULL, NULL, &src, &used) == 100 && src == HYT_SRC_TUNED, "tuned");
    CHECK(used && !strcmp(used, tuned), "tuned path not reported");
    free(used);

    /* HYT_CONFIG and --config: both config files, --config (the command line's) wins */
    char *envfile = path_in(scratch, "env.ini");
    write_text(envfile, "[lu]\nnb = 130\nlookahead = 3\n");
    setenv("HYT_CONFIG", envfile, 1);
    CHECK(nb_from(file, NULL, &src, NULL) == 120 && src == HYT_SRC_FILE, "--config < HYT_CONFIG");
    CHECK(nb_from(NULL, NULL, &src, NULL) == 130 && src == HYT_SRC_FILE, "HYT_CONFIG");
    unsetenv("HYT_CONFIG");

    /* a tuned file of another machine is ignored, with a note */
    write_text(tuned, "; machine: Imaginary CPU | 1 cores | no GPU\n[lu]\nnb = 100\n");
    CHECK(nb_from(NULL, NULL, &src, &used) == -1 && src == HYT_SRC_DEFAULT && !used,
          "another machine's tuned file applied");
    char *out;
    CHECK(run_captured(hyt_cmd_hpl, &out, "-n", "64", "--devices", "none", NULL) == 0,
          "run with a foreign tuned file:\n%s", out);
    CHECK(count(out, "ignoring the tuned settings") == 1 && strstr(out, "Imaginary CPU"),
          "no note about the ignored tuned file:\n%s", out);
    free(out);
    write_text(tuned, "[lu]\nnb = 100\n");
    CHECK(nb_from(NULL, NULL, &src, NULL) == -1, "tuned file without machine applied");
    /* HYT_TUNED naming a missing file is an error */
    setenv("HYT_TUNED", "/nonexistent/tuned.ini", 1);
    CHECK(run_captured(hyt_cmd_hpl, &out, "-n", "64", NULL) == 2, "missing HYT_TUNED accepted");
    CHECK(strstr(out, "HYT_TUNED"), "%s", out);
    free(out);
    unsetenv("HYT_TUNED");
    /* ~/.config/hytile/tuned.ini by default */
    char *dir = path_in(scratch, ".config"), *dir2 = path_in(dir, "hytile");
    char *home_tuned = path_in(dir2, "tuned.ini");
    mkdir(dir, 0700);
    mkdir(dir2, 0700);
    REQUIRE(asprintf(&text, "; machine: %s\n[lu]\nnb = 88\n", m.line) > 0, "asprintf");
    write_text(home_tuned, text);
    free(text);
    CHECK(nb_from(NULL, NULL, &src, NULL) == 88 && src == HYT_SRC_TUNED, "~/.config tuned");
    /* a bad key in a matching tuned file is an error naming it */
    REQUIRE(asprintf(&text, "; machine: %s\n[lu]\nnbs = 88\n", m.line) > 0, "asprintf");
    write_text(home_tuned, text);
    free(text);
    CHECK(run_captured(hyt_cmd_hpl, &out, "-n", "64", NULL) == 2, "bad tuned file accepted");
    CHECK(strstr(out, "tuned.ini:3"), "%s", out);
    free(out);
    unlink(home_tuned);
    rmdir(dir2);
    rmdir(dir);
    free(home_tuned);
    free(dir2);
    free(dir);
    unlink(tuned);
    unlink(file);
    unlink(envfile);
    free(envfile);
    free(tuned);
    free(file);
    hyt_machine_free(&m);
}

/* ---- runs ------------------------------------------------------------------------------------ */

static void test_runs(const char *devices)
{
    char *json = path_in(scratch, "runs.json"), *out;
    int status = run_captured(hyt_cmd_hpl, &out, "-n", "300", "-n", "1000", "--devices",
                              devices, "--json", json, NULL);
    CHECK(status == 0, "hpl -n 300 -n 1000 --devices %s: status %d\n%s", devices, status, out);
    CHECK(count(out, "...... PASSED") == 2 && !strstr(out, "FAILED"), "not 2 PASSED:\n%s", out);
    CHECK(strstr(out, "effective configuration") && strstr(out, "(command line)"),
          "no configuration shown:\n%s", out);
    CHECK(strstr(out, "T/V                N    NB     P     Q"), "no HPL table:\n%s", out);
    char *text = read_file(json);
    CHECK(text && valid_json(text), "%s is not valid JSON:\n%s", json, text ? text : "");
    if (text) {
        static const char *const keys[] = {"\"config\"", "\"runs\"", "\"machine\"", "\"date\"",
                                           "\"nb\"", "\"lookahead\"", "\"panel_cores\"",
                                           "\"devices\"", "\"workers\"", "\"gflops\"",
                                           "\"residual\"", "\"seconds\""};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            CHECK(strstr(text, keys[i]), "%s missing in the JSON", keys[i]);
        CHECK(count(text, "\"passed\": true") == 2, "passed:\n%s", text);
        CHECK(strstr(text, "\"n\": 300") && strstr(text, "\"n\": 1000"), "sizes:\n%s", text);
        char want[64];
        snprintf(want, sizeof want, "\"devices\": \"%s\"", devices);
        CHECK(strstr(text, want), "%s missing:\n%s", want, text);
    }
    free(text);
    unlink(json);
    free(json);
    free(out);

    /* --quiet: the result block only */
    status = run_captured(hyt_cmd_hpl, &out, "-n", "200", "--devices", devices, "--quiet", NULL);
    CHECK(status == 0 && strstr(out, "PASSED") && !strstr(out, "effective configuration"),
          "--quiet:\n%s", out);
    free(out);
}

static void test_hpl_dat_run(void)
{
    char *dat = dat_with_line(6, "300 500      Ns"), *json = path_in(scratch, "dat.json"), *out;
    int status = run_captured(hyt_cmd_hpl, &out, "--hpl-dat", dat, "--json", json, NULL);
    CHECK(status == 0, "--hpl-dat: status %d\n%s", status, out);
    /* 2 Ns x 2 NBs x 1 DEPTH */
    CHECK(count(out, "PASSED") == 4, "not 4 runs:\n%s", out);
    CHECK(strstr(out, "not applicable to hytile") && strstr(out, "HPL.dat"), "notes:\n%s", out);
    CHECK(strstr(out, "HYL1P"), "lookahead from DEPTHs:\n%s", out);
    char *text = read_file(json);
    CHECK(text && valid_json(text) && count(text, "\"passed\": true") == 4 &&
          strstr(text, "\"nb\": 192"), "JSON:\n%s", text ? text : "");
    free(text);
    free(out);
    /* the command line's --nb and -n win over HPL.dat's */
    status = run_captured(hyt_cmd_hpl, &out, "--hpl-dat", dat, "--nb", "64", "-n", "200",
                          "--json", json, NULL);
    CHECK(status == 0 && count(out, "PASSED") == 1 && strstr(out, "200    64"),
          "command line over HPL.dat:\n%s", out);
    free(out);
    /* P x Q other than 1 x 1: noted */
    free(dat);
    dat = dat_with_line(11, "2            Ps");
    char *dat2 = path_in(scratch, "y.dat");
    rename(dat, dat2);
    status = run_captured(hyt_cmd_hpl, &out, "--hpl-dat", dat2, "-n", "100", NULL);
    CHECK(status == 0 && strstr(out, "process grids 2x1 noted"), "grid note:\n%s", out);
    free(out);
    unlink(dat2);
    unlink(json);
    free(dat2);
    free(dat);
    free(json);
}

int main(void)
{
    int skip = cli_test_begin();
    if (skip)
        return skip;
    test_options();
    test_config_errors();
    test_hpl_dat();
    test_reader_limits();
    test_precedence();
    test_runs("none");
    test_runs("host:2");
    test_hpl_dat_run();
    return cli_test_end("test_cli_hpl");
}
