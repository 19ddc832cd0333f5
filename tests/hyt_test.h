/* Minimal test helpers: CHECK records a failure with file:line and goes on; tests return
 * test_result() (0 ok, 1 failed) or 77 when skipped. */
#ifndef HYT_TEST_H
#define HYT_TEST_H

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int test_failures;

/* The watchdog's message (test_watchdog). */
static inline const char **test_watchdog_msg(void)
{
    static const char *msg;
    return &msg;
}

static inline void test_watchdog_fire(int sig)
{
    (void)sig;
    const char *msg = *test_watchdog_msg();
    ssize_t w = write(2, msg, strlen(msg));
    (void)w;
    _exit(1);
}

/* After `seconds`, msg on stderr and exit status 1: a hung test fails with a reason instead of
 * waiting for the harness's timeout. */
static inline void test_watchdog(const char *msg, unsigned seconds)
{
    *test_watchdog_msg() = msg;
    signal(SIGALRM, test_watchdog_fire);
    alarm(seconds);
}

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            test_failures++;                                                                   \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);            \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                             \
        }                                                                                      \
    } while (0)

#define REQUIRE(cond, ...)                                                                     \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "%s:%d: REQUIRE(%s) failed: ", __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                             \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* A call's return code and a text its message (hyt_last_error) must hold. */
#define EXPECT_ARG(call, code, text)                                                           \
    do {                                                                                       \
        int rc_ = (call);                                                                      \
        CHECK(rc_ == (code), "%s gave %d (%s)", #call, rc_, hyt_last_error());                 \
        CHECK(strstr(hyt_last_error(), text), "%s: message '%s' lacks '%s'", #call,             \
              hyt_last_error(), text);                                                         \
    } while (0)

static inline int test_result(const char *name)
{
    if (test_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
    else
        printf("%s: all checks passed\n", name);
    return test_failures ? 1 : 0;
}

/* stdout and stderr into a temporary file while a test looks at what a library prints. */
typedef struct { int fd, saved1, saved2; } test_capture_t;
static inline void test_capture_start(test_capture_t *c)
{
    char path[] = "/tmp/hyt_capture_XXXXXX";
    c->fd = mkstemp(path);
    REQUIRE(c->fd >= 0, "mkstemp");
    unlink(path);
    fflush(stdout);
    fflush(stderr);
    c->saved1 = dup(1);
    c->saved2 = dup(2);
    REQUIRE(c->saved1 >= 0 && c->saved2 >= 0 && dup2(c->fd, 1) == 1 && dup2(c->fd, 2) == 2,
            "dup2");
}

/* Ends the capture; text gets what was printed (cut to size - 1 bytes). */
static inline void test_capture_end(test_capture_t *c, char *text, size_t size)
{
    fflush(stdout);
    fflush(stderr);
    dup2(c->saved1, 1);
    dup2(c->saved2, 2);
    close(c->saved1);
    close(c->saved2);
    ssize_t len = pread(c->fd, text, size - 1, 0);
    close(c->fd);
    text[len > 0 ? len : 0] = '\0';
}

/* Writes text to a new temporary file; its name goes to path (at least 32 bytes). */
static inline void test_write_tmp(char *path, size_t len, const char *text)
{
    snprintf(path, len, "/tmp/hyt_test_XXXXXX");
    int fd = mkstemp(path);
    REQUIRE(fd >= 0, "mkstemp");
    REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write");
    close(fd);
}

/* The devices of a test with nd of them: "cuda:0,1,..." or "host:nd". */
static inline void test_device_list(int cuda, int nd, char *buf, size_t len)
{
    if (!cuda) {
        snprintf(buf, len, "host:%d", nd);
        return;
    }
    int n = snprintf(buf, len, "cuda:0");
    for (int g = 1; g < nd && n > 0 && (size_t)n < len; g++)
        n += snprintf(buf + n, len - (size_t)n, ",%d", g);
}

/* The arguments of a test, each one of the words of a NULL-terminated list, in any order: bit i
 * of the result is set when words[i] was given; -1 after printing the usage for anything else
 * (the test exits 2), so that a misspelt "cuda" does not run the host version. */
static inline int test_args(int argc, char **argv, const char *const *words)
{
    int given = 0;
    for (int a = 1; a < argc; a++) {
        int i = 0;
        while (words[i] && strcmp(argv[a], words[i]))
            i++;
        if (!words[i]) {
            fprintf(stderr, "%s: unknown argument '%s'\nusage: %s", argv[0], argv[a], argv[0]);
            for (i = 0; words[i]; i++)
                fprintf(stderr, " [%s]", words[i]);
            fprintf(stderr, "\n");
            return -1;
        }
        given |= 1 << i;
    }
    return given;
}

/* The argument of a test whose one argument is "cuda": 1 when it is given, 0 when there is
 * none; -1 after printing the usage for anything else (the test exits 2). */
static inline int test_cuda_arg(int argc, char **argv)
{
    return test_args(argc, argv, (const char *const[]){"cuda", NULL});
}

/* An error message that says what went wrong: not empty, and not only a code's name after the
 * function's ("hyt_dpotrf_tile_async: HYT_ERR_NOMEM" is what a failure that set no message of
 * its own leaves). */
static inline int test_says_why(const char *msg)
{
    const char *tail = strrchr(msg, ':');
    tail = tail ? tail + 1 : msg;
    while (*tail == ' ')
        tail++;
    return msg[0] && !(!strncmp(tail, "HYT_ERR_", 8) && !strchr(tail, ' '));
}

/* Deterministic 64-bit mixing and a tiny PRNG. */
static inline unsigned long long test_mix(unsigned long long x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

typedef struct { unsigned long long s; } test_rng_t;
static inline unsigned long long test_rand(test_rng_t *r) { return test_mix(r->s += 0x9e3779b97f4a7c15ULL); }
static inline int test_randint(test_rng_t *r, int n) { return (int)(test_rand(r) % (unsigned)n); }
/* uniform in [-1, 1), on a grid of 2^-52 */
static inline double test_uniform(test_rng_t *r)
{
    return (double)(test_rand(r) >> 11) * 0x1p-52 - 1.0;
}

/* A triangle of order n (lda): the uplo triangle well conditioned (diagonal 1 .. 2 with a
 * random sign, off-diagonal entries of size 1 / n), the other triangle and the rows past n NaN,
 * the diagonal NaN when unit (LAPACK reads none of those). */
static inline void test_triangle(test_rng_t *rng, double *A, int n, int lda, char uplo,
                                 char diag)
{
    const int lower = uplo == 'L' || uplo == 'l', unit = diag == 'U' || diag == 'u';
    for (int c = 0; c < n; c++)
        for (int r = 0; r < lda; r++) {
            double *a = A + r + (size_t)c * lda;
            if (r >= n || (lower ? r < c : r > c))
                *a = NAN;
            else if (r == c)
                *a = unit ? NAN
                          : (1.5 + 0.5 * test_uniform(rng)) * (test_uniform(rng) < 0 ? -1 : 1);
            else
                *a = test_uniform(rng) / n;
        }
}

/* Equal, or both NaN: results compared to the bit where NaN's payload may differ. */
static inline int test_same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* LAPACK's pivots (1-based, ipiv[q] - 1 >= r1 + q, < nrows) for rows r1 .. r1 + npiv - 1, in
 * blocks of bs rows from r1: each the row itself, a row below, an earlier pivot row again, a
 * later row of its block, or the last row (again and again). */
static inline void test_lapack_pivots(test_rng_t *rng, int *ipiv, int r1, int npiv, int bs,
                                      int nrows)
{
    for (int q = 0; q < npiv; q++) {
        const int r = r1 + q, end = r1 + (q / bs + 1) * bs;
        int p;
        switch (test_randint(rng, q ? 5 : 2)) {
        case 0: p = r; break;
        case 1: p = r + test_randint(rng, nrows - r); break;
        case 2: p = ipiv[test_randint(rng, q)] - 1; break;
        case 3: p = r + test_randint(rng, end - r); break;
        default: p = nrows - 1; break;
        }
        ipiv[q] = (p < r ? r : p >= nrows ? nrows - 1 : p) + 1;
    }
}

/* A test that runs under a sanitizer or valgrind can ask for smaller sizes. */
static inline int test_scale(void)
{
    const char *s = getenv("HYTILE_TEST_SMALL");
    return s && *s && atoi(s) ? 4 : 1; /* divisor for sizes */
}

/* A context with `workers` CPU workers, the given devices ("none", "host:2", ...) and more
 * key, value pairs ending with NULL; the test fails at once if it cannot be created. */
#ifdef HYT_CONTEXT_H
#include <stdarg.h>
static inline hyt_context_t *test_context(int workers, const char *devices, ...)
{
    hyt_config_t *cfg;
    char buf[16];
    hyt_config_create(&cfg);
    /* HYT_* variables apply (e.g. HYT_CHAOS), below what the test sets */
    REQUIRE(!hyt_config_load_env(cfg), "%s", hyt_last_error());
    snprintf(buf, sizeof buf, "%d", workers);
    REQUIRE(!hyt_config_set(cfg, "runtime.workers", buf, HYT_SRC_API, NULL), "%s",
            hyt_last_error());
    REQUIRE(!hyt_config_set(cfg, "runtime.devices", devices, HYT_SRC_API, NULL), "%s",
            hyt_last_error());
    va_list ap;
    va_start(ap, devices);
    const char *key;
    while ((key = va_arg(ap, const char *))) {
        const char *value = va_arg(ap, const char *);
        REQUIRE(!hyt_config_set(cfg, key, value, HYT_SRC_API, NULL), "%s", hyt_last_error());
    }
    va_end(ap);
    hyt_context_t *ctx;
    REQUIRE(!hyt_context_create(cfg, &ctx), "%s", hyt_last_error());
    hyt_config_destroy(cfg);
    return ctx;
}

/* For the gpu suite: how many CUDA GPUs `devices` ("cuda", "cuda:0") gives, or 0 after saying
 * why the test skips (exit status 77): hytile built without CUDA, or no usable GPU. */
#include "config.h" /* HYT_HAVE_CUDA */
static inline int test_cuda_devices(const char *devices)
{
#if !HYT_HAVE_CUDA
    (void)devices;
    printf("SKIP: hytile was built without CUDA\n");
    return 0;
#else
    hyt_config_t *cfg;
    hyt_context_t *probe;
    hyt_config_create(&cfg);
    hyt_config_set(cfg, "runtime.devices", devices, HYT_SRC_API, NULL);
    int rc = hyt_context_create(cfg, &probe);
    hyt_config_destroy(cfg);
    if (rc) {
        printf("SKIP: no usable CUDA GPU: %s\n", hyt_last_error());
        return 0;
    }
    int n = hyt_context_num_devices(probe);
    hyt_context_destroy(probe);
    return n;
#endif
}

/* How many devices a test that sweeps 1 .. most devices goes up to: `most` host devices, or
 * with cuda the CUDA GPUs there are, at most `most`; 0 after test_cuda_devices said why the
 * test skips (exit status 77). */
static inline int test_max_devices(int cuda, int most)
{
    if (!cuda)
        return most;
    int n = test_cuda_devices("cuda");
    return n < most ? n : most;
}
#endif

#endif
