/*
 * What the tests of the hytile command (test_cli_*.c) share: a scratch directory that HOME
 * points to (so that no real ~/.config/hytile/tuned.ini takes part), the test data
 * ($HYTILE_TEST_DATA: tests/data), running a command in-process or the program itself
 * ($HYTILE_EXE) with its output captured, and a JSON syntax check.  Each test_cli_*.c is one
 * program that includes this header once.
 */
#ifndef HYT_CLI_TEST_H
#define HYT_CLI_TEST_H

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

static inline char *path_in(const char *dir, const char *name)
{
    char *p;
    REQUIRE(asprintf(&p, "%s/%s", dir, name) > 0, "asprintf");
    return p;
}

static inline char *read_file(const char *path)
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

static inline void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    REQUIRE(f, "cannot write %s", path);
    fputs(text, f);
    REQUIRE(fclose(f) == 0, "close %s", path);
}

static inline int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Runs cmd("hytile-xxx", args..., NULL) with stdout and stderr captured into *out. */
static inline int run_captured(int (*cmd)(int, char **), char **out, ...)
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

static inline int count(const char *text, const char *word)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, word)); p += strlen(word))
        n++;
    return n;
}

/* ---- a JSON syntax check (RFC 8259, no extensions) ------------------------------------- */

static inline const char *js_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static inline const char *js_string(const char *p)
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

static inline const char *js_value(const char *p)
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

static inline int valid_json(const char *text)
{
    const char *end = text ? js_value(text) : NULL;
    return end && *js_ws(end) == '\0';
}

/* ---- the program itself ---------------------------------------------------------------------- */

/* Runs hytile with args (a shell's words) and its standard output and error in *out; args
 * that redirect a stream themselves ("2>/dev/null") decide what *out gets. */
static inline int run_program(const char *args, char **out)
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

/* ---- the scratch directory ------------------------------------------------------------------- */

static inline int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Sets the scratch directory and HOME up; returns 0, or 77 (skipped) without the test data. */
static inline int cli_test_begin(void)
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
    return 0;
}

/* Checks that everything the commands wrote went away, removes the scratch directory and
 * returns the test's status. */
static inline int cli_test_end(const char *name)
{
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
    return test_result(name);
}

#endif /* HYT_CLI_TEST_H */
