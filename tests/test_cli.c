/*
 * The hytile commands hpl and tune (app/cmd_*.c), called in-process: option errors (exit
 * status 2, nothing written), config file errors naming file:line, HPL.dat reading, the
 * precedence of tuned file < config file < environment < command line, the JSON results (checked
 * to be valid JSON), traces and their SVG, end-to-end runs on CPUs and host devices, tune's
 * file read back by hpl; and two runs of the built hytile program itself ($HYTILE_EXE).
 *
 * Test data: $HYTILE_TEST_DATA (tests/data).  HOME points to a scratch directory so that no
 * real ~/.config/hytile/tuned.ini takes part.
 */
#include "cli_common.h"
#include "hpl_dat.h"
#include "hytile_cli.h"
#include "hyt_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

static char scratch[64];   /* scratch directory */
static const char *data;   /* tests/data */

/* ---- helpers ---------------------------------------------------------------------------- */

static char *path_in(const char *dir, const char *name)
{
    char *p;
    REQUIRE(asprintf(&p, "%s/%s", dir, name) > 0, "asprintf");
    return p;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = 2 * cap + 4096 + 1;
            char *t = realloc(text, cap);
            REQUIRE(t, "realloc");
            text = t;
        }
        size_t got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    text[len] = '\0';
    fclose(f);
    return text;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    REQUIRE(f, "cannot write %s", path);
    fputs(text, f);
    REQUIRE(fclose(f) == 0, "close %s", path);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Runs cmd("hytile-xxx", args..., NULL) with stdout and stderr captured into *out. */
static int run_captured(int (*cmd)(int, char **), char **out, ...)
{
    char *argv[64];
    int argc = 0;
    va_list ap;
    va_start(ap, out);
    argv[argc++] = "cmd";
    const char *a;
    while ((a = va_arg(ap, const char *)) && argc < 63)
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;

    char *log = path_in(scratch, "output.txt");
    fflush(stdout);
    fflush(stderr);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0, "open %s", log);
    int saved1 = dup(1), saved2 = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    int status = cmd(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved1, 1);
    dup2(saved2, 2);
    close(saved1);
    close(saved2);
    *out = read_file(log);
    REQUIRE(*out, "read %s", log);
    unlink(log);
    free(log);
    return status;
}

static int count(const char *text, const char *word)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, word)); p += strlen(word))
        n++;
    return n;
}

/* ---- a JSON syntax check (RFC 8259, no extensions) ------------------------------------- */

static const char *js_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *js_string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    for (; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
                        return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
    }
    return p + 1;
}

static const char *js_value(const char *p)
{
    p = js_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = js_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                p = js_string(js_ws(p));
                if (!p || *(p = js_ws(p)) != ':')
                    return NULL;
                p++;
            }
            if (!(p = js_value(p)))
                return NULL;
            p = js_ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
        }
    }
    if (*p == '"')
        return js_string(p);
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
        char *end;
        strtod(p, &end);
        return end;
    }
    for (const char *const *w = (const char *const[]){"true", "false", "null", NULL}; *w; w++)
        if (strncmp(p, *w, strlen(*w)) == 0)
            return p + strlen(*w);
    return NULL;
}

static int valid_json(const char *text)
{
    const char *end = text ? js_value(text) : NULL;
    return end && *js_ws(end) == '\0';
}

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

static void test_trace(void)
{
    char *trace = path_in(scratch, "t.json"), *svg = path_in(scratch, "t.svg"), *out;
    int status = run_captured(hyt_cmd_hpl, &out, "-n", "300", "--devices", "host:2", "--trace",
                              trace, "--quiet", NULL);
    CHECK(status == 0, "--trace: %d\n%s", status, out);
    char *text = read_file(trace);
    CHECK(text && valid_json(text) && strstr(text, "traceEvents"), "trace JSON");
    free(text);
    text = read_file(svg);
    CHECK(text && !strncmp(text, "<?xml", 5) && strstr(text, "</svg>\n") &&
          count(text, "<rect") > 5 && strstr(text, "N = 300") && strstr(text, "ms</text>"),
          "SVG:\n%.400s", text ? text : "");
    CHECK(text && count(text, "<svg") == 1 && count(text, "<text") == count(text, "</text>"),
          "SVG tags");
    free(text);
    unlink(trace);
    unlink(svg);
    free(out);
    /* several runs: -N<n> before the extension */
    status = run_captured(hyt_cmd_hpl, &out, "-n", "200,300", "--trace", trace, "--quiet", NULL);
    CHECK(status == 0, "two traces: %d\n%s", status, out);
    static const char *const names[] = {"t-N200.json", "t-N200.svg", "t-N300.json",
                                        "t-N300.svg"};
    for (int i = 0; i < 4; i++) {
        char *p = path_in(scratch, names[i]);
        CHECK(exists(p), "%s not written", p);
        unlink(p);
        free(p);
    }
    free(out);
    free(trace);
    free(svg);

    /* text is escaped */
    hyt_context_t *ctx = test_context(2, "none", NULL);
    hyt_hpl_ws_t ws;
    hyt_hpl_result_t res;
    REQUIRE(!hyt_hpl_ws_create(ctx, 100, 32, &ws), "ws");
    CHECK(!hyt_hpl_solve(&ws, 100, 16.0, HYT_HPL_TRACE, &res) && res.passed, "solve");
    hyt_hpl_ws_destroy(&ws);
    svg = path_in(scratch, "e.svg");
    CHECK(!hyt_write_svg_gantt(ctx, svg, "a<b & \"c\""), "svg: %s", hyt_last_error());
    text = read_file(svg);
    CHECK(text && strstr(text, "a&lt;b &amp; &quot;c&quot;") && !strstr(text, "a<b"),
          "title not escaped");
    free(text);
    unlink(svg);
    free(svg);
    hyt_context_destroy(ctx);
}

static void test_json_helpers(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f, "memstream");
    hyt_json_str(f, "a\"b\\c\n\x01");
    fputc(' ', f);
    hyt_json_num(f, NAN);
    fputc(' ', f);
    hyt_json_num(f, INFINITY);
    fputc(' ', f);
    hyt_json_num(f, 0.5);
    fclose(f);
    CHECK(!strcmp(buf, "\"a\\\"b\\\\c\\n\\u0001\" null null 0.5"), "json '%s'", buf);
    free(buf);
    CHECK(valid_json("{\"a\": [1, -2.5e3, true, null, \"x\\u00e9\"], \"b\": {}}"), "checker");
    CHECK(!valid_json("{\"a\": nan}") && !valid_json("{\"a\": 1,}") && !valid_json("[1] x"),
          "checker accepts bad JSON");
}

/* Bad input of the other kinds writes no result file either. */
static void test_no_file_on_bad_input(void)
{
    char *json = path_in(scratch, "none.json"), *out;
    int status = run_captured(hyt_cmd_hpl, &out, "-n", "300,9000000", "--json", json, NULL);
    CHECK(status == 2 && strstr(out, "N = 9000000 needs") && !strstr(out, "PASSED"),
          "a size too large for memory: %d\n%s", status, out);
    CHECK(!exists(json), "JSON written although a size does not fit");
    free(out);
    char *dir = path_in(scratch, "no/such/dir/r.json");
    status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--json", dir, NULL);
    CHECK(status == 2 && strstr(out, "cannot write") && !strstr(out, "PASSED"),
          "unwritable JSON path: %d\n%s", status, out);
    free(out);
    free(dir);
    setenv("HYT_HPL_SEED", "minus one", 1);
    status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--json", json, NULL);
    CHECK(status == 2 && strstr(out, "HYT_HPL_SEED") && !exists(json), "bad HYT_HPL_SEED");
    unsetenv("HYT_HPL_SEED");
    free(out);
    free(json);
}

static int run_program(const char *args, char **out);

/* ---- output files ----------------------------------------------------------------------- */

/* --json writes through a symlink (the link stays, its target gets the JSON and keeps its mode
 * 600), into a device node in place (it stays a device), and refuses an uncreatable path before
 * running anything. */
static void test_output_files(void)
{
    char *real = path_in(scratch, "real.json"), *link = path_in(scratch, "link.json"), *out;
    write_text(real, "old");
    REQUIRE(chmod(real, 0600) == 0 && symlink("real.json", link) == 0, "symlink");
    int status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--json", link, "--quiet", NULL);
    CHECK(status == 0, "--json through a symlink: %d\n%s", status, out);
    free(out);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the symlink was replaced");
    CHECK(stat(real, &st) == 0 && (st.st_mode & 07777) == 0600, "mode %o, want 600",
          (unsigned)(st.st_mode & 07777));
    char *text = read_file(real);
    CHECK(text && valid_json(text) && strstr(text, "\"n\": 100"), "target:\n%s",
          text ? text : "");
    free(text);
    /* tune --output too */
    status = run_captured(hyt_cmd_tune, &out, "-n", "100", "--nb-list", "32",
                          "--lookahead-list", "0", "--panel-cores-list", "1", "--output", link,
                          "--quiet", NULL);
    CHECK(status == 0, "tune --output through a symlink: %d\n%s", status, out);
    free(out);
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "tune replaced the symlink");
    CHECK(stat(real, &st) == 0 && (st.st_mode & 07777) == 0600, "tune: mode %o, want 600",
          (unsigned)(st.st_mode & 07777));
    text = read_file(real);
    CHECK(text && strstr(text, "[lu]\nnb = 32\n"), "tuned file:\n%s", text ? text : "");
    free(text);
    unlink(link);
    /* a plain file keeps its mode too */
    status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--json", real, "--quiet", NULL);
    CHECK(status == 0 && stat(real, &st) == 0 && (st.st_mode & 07777) == 0600,
          "--json over a mode-600 file: %d, mode %o\n%s", status,
          (unsigned)(st.st_mode & 07777), out);
    free(out);
    unlink(real);

    char *node = path_in(scratch, "null");
    if (mknod(node, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--json", node, "--quiet", NULL);
        CHECK(status == 0, "--json to a device node: %d\n%s", status, out);
        free(out);
        CHECK(stat(node, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3),
              "the device node became something else");
        unlink(node);
    } else {
        printf("mknod failed (%s): --json to a device node not tested\n", strerror(errno));
    }
    free(node);

    status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--json", "/proc/r.json", NULL);
    CHECK(status == 2 && strstr(out, "cannot write /proc/r.json") && !strstr(out, "PASSED"),
          "--json /proc/r.json: %d\n%s", status, out);
    free(out);
    status = run_captured(hyt_cmd_hpl, &out, "-n", "100", "--trace", "-", NULL);
    CHECK(status == 2 && strstr(out, "--trace -: a trace is two files"), "--trace -: %d\n%s",
          status, out);
    free(out);
    free(real);
    free(link);
}

/* --json - through the program: standard output holds the JSON only, the rest is on stderr;
 * tune --output - likewise. */
static void test_json_stdout(void)
{
    char *out;
    int status = run_program("hpl -n 100,120 --json - 2>/dev/null", &out);
    CHECK(status == 0 && valid_json(out) && strstr(out, "\"n\": 120") &&
          strstr(out, "\"complete\": true"), "hpl --json -: %d\n%s", status, out);
    free(out);
    status = run_program("hpl -n 100 --json - 2>&1 >/dev/null", &out);
    CHECK(status == 0 && strstr(out, "PASSED") && strstr(out, "effective configuration") &&
          !strstr(out, "\"runs\""), "hpl --json -: stderr:\n%s", out);
    free(out);
    status = run_program("tune -n 100 --nb-list 32 --lookahead-list 0 --panel-cores-list 1 "
                         "--output - 2>/dev/null", &out);
    CHECK(status == 0 && !strncmp(out, "; hytile tuned settings", 23) &&
          strstr(out, "[lu]\nnb = 32\n") && !strstr(out, "best:"), "tune --output -:\n%s", out);
    free(out);
}

/* An interrupted sweep keeps the JSON of the runs it finished. */
static void test_json_interrupted(void)
{
    const char *exe = getenv("HYTILE_EXE");
    char *json = path_in(scratch, "sweep.json");
    pid_t pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(exe, exe, "hpl", "-n", "200,6000", "--devices", "none", "--json", json,
              (char *)NULL);
        _exit(127);
    }
    char *text = NULL;
    for (int i = 0; i < 6000 && !text; i++) { /* up to a minute */
        usleep(10000);
        text = exists(json) ? read_file(json) : NULL;
    }
    kill(pid, SIGINT);
    int ws;
    waitpid(pid, &ws, 0);
    CHECK(text, "no JSON after the first run");
    free(text);
    text = read_file(json);
    CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGINT, "hpl was not interrupted (status %#x)",
          (unsigned)ws);
    CHECK(text && valid_json(text) && strstr(text, "\"n\": 200") && !strstr(text, "\"n\": 6000")
          && strstr(text, "\"complete\": false") && count(text, "\"passed\": true") == 1,
          "JSON after SIGINT:\n%s", text ? text : "(none)");
    free(text);
    unlink(json);
    free(json);
}

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

/* ---- the program itself ---------------------------------------------------------------------- */

/* Runs hytile with args (a shell's words) and its standard output and error in *out; args
 * that redirect a stream themselves ("2>/dev/null") decide what *out gets. */
static int run_program(const char *args, char **out)
{
    const char *exe = getenv("HYTILE_EXE");
    char *log = path_in(scratch, "program.txt"), *cmd;
    REQUIRE(asprintf(&cmd, "{ '%s' %s ; } > '%s' 2>&1", exe, args, log) > 0, "asprintf");
    int rc = system(cmd);
    *out = read_file(log);
    REQUIRE(*out, "no output");
    unlink(log);
    free(log);
    free(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void test_program(void)
{
    if (!getenv("HYTILE_EXE")) {
        printf("HYTILE_EXE not set: the program itself is not run\n");
        return;
    }
    char *out;
    int status = run_program("hpl -n 300 --devices none", &out);
    CHECK(status == 0 && strstr(out, "...... PASSED"), "hytile hpl: %d\n%s", status, out);
    free(out);
    status = run_program("hpl --nb=0", &out);
    CHECK(status == 2 && strstr(out, "--nb"), "hytile hpl --nb=0: %d\n%s", status, out);
    free(out);
    /* bench-cpu stops on a value it cannot use instead of measuring something else */
    static const char *bad_bench[][2] = {{"bench-cpu -n 100 --nb 0", "--nb"},
                                         {"bench-cpu -n abc", "-n"},
                                         {"bench-cpu -n 100 --nb 99999", "lu.nb"},
                                         {"bench-cpu -n 100 --panel-cores 99999", "lu.panel_cores"},
                                         {"bench-cpu --layout foo", "usage"}};
    for (size_t i = 0; i < sizeof bad_bench / sizeof bad_bench[0]; i++) {
        status = run_program(bad_bench[i][0], &out);
        CHECK(status == 2 && strstr(out, bad_bench[i][1]) && !strstr(out, "ratio"),
              "hytile %s: %d\n%s", bad_bench[i][0], status, out);
        free(out);
    }
    status = run_program("bench-runtime --tasks 999999999999", &out);
    CHECK(status == 2 && strstr(out, "--tasks: 999999999999 is out of range"),
          "bench-runtime --tasks 999999999999: %d\n%s", status, out);
    free(out);
    status = run_program("help", &out);
    CHECK(status == 0 && strstr(out, "hpl") && strstr(out, "tune"), "hytile help:\n%s", out);
    free(out);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(void)
{
    data = getenv("HYTILE_TEST_DATA");
    if (!data) {
        printf("HYTILE_TEST_DATA not set (meson test sets it): skipped\n");
        return 77;
    }
    snprintf(scratch, sizeof scratch, "/tmp/hyt_cli_XXXXXX");
    REQUIRE(mkdtemp(scratch), "mkdtemp");
    setenv("HOME", scratch, 1); /* no real ~/.config/hytile/tuned.ini */
    unsetenv("HYT_TUNED");
    unsetenv("HYT_CONFIG");

    test_json_helpers();
    test_options();
    test_config_errors();
    test_hpl_dat();
    test_reader_limits();
    test_precedence();
    test_no_file_on_bad_input();
    test_runs("none");
    test_runs("host:2");
    test_hpl_dat_run();
    test_trace();
    test_tune();
    test_output_files();
    test_program();
    if (getenv("HYTILE_EXE")) {
        test_json_stdout();
        test_json_interrupted();
    }

    /* everything the commands wrote went away (the CUDA driver may have made its JIT cache,
     * .nv, in HOME) */
    DIR *d = opendir(scratch);
    REQUIRE(d, "opendir %s", scratch);
    for (struct dirent *e; (e = readdir(d));)
        CHECK(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".nv"),
              "%s left in %s", e->d_name, scratch);
    closedir(d);
    char *nv = path_in(scratch, ".nv");
    nftw(nv, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(nv);
    rmdir(scratch);
    return test_result("test_cli");
}
