/*
 * What hytile hpl writes (app/hpl_output.c, app/cli_common.c): the JSON helpers, traces and
 * their SVG, no result file on bad input, output files through symlinks and into device nodes,
 * and with the program itself ($HYTILE_EXE) --json - and an interrupted sweep's JSON.
 */
#include "cli_test.h"

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

int main(void)
{
    int skip = cli_test_begin();
    if (skip)
        return skip;
    test_json_helpers();
    test_no_file_on_bad_input();
    test_trace();
    test_output_files();
    if (getenv("HYTILE_EXE")) {
        test_json_stdout();
        test_json_interrupted();
    }
    return cli_test_end("test_cli_output");
}
