/*
 * What the three fuzz targets (fuzz_config.c, fuzz_hpldat.c, fuzz_cli.c) share: the contract
 * check that traps, the input written to an in-memory file for the readers that take a path,
 * stderr captured around a call, and the range check of a configuration the library accepted.
 *
 * The targets are built two ways: as libFuzzer programs (tests/fuzz/run-fuzz, clang) and, with
 * HYT_FUZZ_REPLAY defined, included into tests/test_parsers_corpus.c, which replays the seed
 * corpus in the quick suite with the ordinary compiler.  Either way a broken contract prints
 * one line on fd 2 and traps, so that libFuzzer keeps the input as a crash.
 */
#ifndef HYT_FUZZ_COMMON_H
#define HYT_FUZZ_COMMON_H

#include "rt_internal.h" /* hyt_parse_devices, hyt_parse_coreset, HYT_MAX_WORKERS */

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A broken contract: say which (straight to fd 2: stderr may be captured) and trap. */
#define HYT_FUZZ_CHECK(cond, ...)                                                              \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            dprintf(2, "\n%s:%d: fuzz contract broken: %s: ", __FILE__, __LINE__, #cond);      \
            dprintf(2, __VA_ARGS__);                                                           \
            dprintf(2, "\n");                                                                  \
            __builtin_trap();                                                                  \
        }                                                                                      \
    } while (0)

/* A file reader's rejection: a config (or memory) error, with a message naming the file. */
static inline void hyt_fuzz_check_rejection(int rc, const char *path)
{
    const char *msg = hyt_last_error();
    size_t len = strlen(path);
    HYT_FUZZ_CHECK(rc == HYT_ERR_CONFIG || rc == HYT_ERR_NOMEM, "rc %d (%s)", rc, msg);
    HYT_FUZZ_CHECK(msg[0] != '\0', "rejected (rc %d) without a message", rc);
    HYT_FUZZ_CHECK(rc != HYT_ERR_CONFIG || (strncmp(msg, path, len) == 0 && msg[len] == ':'),
                   "message does not start with the file name %s: '%s'", path, msg);
}

/* libFuzzer's entry point, calling FN(data, size) (not in the replay build). */
#ifndef HYT_FUZZ_REPLAY
#define HYT_FUZZ_TARGET(fn)                                                                    \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                              \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                               \
    {                                                                                          \
        fn(data, size);                                                                        \
        return 0;                                                                              \
    }
#else
#define HYT_FUZZ_TARGET(fn)
#endif

/* Forgets the last error message, so that a rejection without a message shows. */
static inline void hyt_fuzz_clear_error(void) { hyt_error(HYT_SUCCESS, "%s", ""); }

/* The input as a file: one memfd (or unlinked temporary file) per process, rewritten each
 * call, named /proc/self/fd/N.  Returns the path (static storage). */
static inline const char *hyt_fuzz_input_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("hytile-fuzz-input", MFD_CLOEXEC);
        if (fd < 0) {
            FILE *f = tmpfile();
            HYT_FUZZ_CHECK(f, "cannot create a scratch file for the input");
            fd = fileno(f); /* kept open for the life of the process */
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    HYT_FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate of the input file");
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        HYT_FUZZ_CHECK(n > 0, "writing the input file");
        done += (size_t)n;
    }
    return path;
}

/* stderr (the FILE, not fd 2) pointed at a buffer around a call: the option parser prints its
 * messages with fprintf(stderr, ...), while sanitizer reports, which write to fd 2, still
 * show.  hyt_fuzz_capture_end returns the captured text (at most 4095 bytes, NUL-terminated). */
static char hyt_fuzz_captured[4096];
static FILE *hyt_fuzz_saved_stderr;

static inline void hyt_fuzz_capture_begin(void)
{
    static FILE *buf;
    if (!buf) {
        buf = fmemopen(hyt_fuzz_captured, sizeof hyt_fuzz_captured, "w");
        HYT_FUZZ_CHECK(buf, "fmemopen");
        setvbuf(buf, NULL, _IONBF, 0);
    }
    memset(hyt_fuzz_captured, 0, sizeof hyt_fuzz_captured);
    rewind(buf);
    hyt_fuzz_saved_stderr = stderr;
    stderr = buf;
}

static inline const char *hyt_fuzz_capture_end(void)
{
    fflush(stderr);
    stderr = hyt_fuzz_saved_stderr;
    hyt_fuzz_captured[sizeof hyt_fuzz_captured - 1] = '\0';
    return hyt_fuzz_captured;
}

/* An integer key's value: "auto" (-1) or min..max. */
static inline void hyt_fuzz_check_int(const hyt_config_t *cfg, const char *key, int allow_auto,
                                      long min, long max)
{
    long v = hyt_config_get_int(cfg, key);
    const char *text = hyt_config_get(cfg, key, NULL);
    HYT_FUZZ_CHECK(text, "key %s missing", key);
    if (allow_auto && strcmp(text, "auto") == 0) {
        HYT_FUZZ_CHECK(v == -1, "%s = auto reads as %ld", key, v);
        return;
    }
    HYT_FUZZ_CHECK(v >= min && v <= max, "%s = '%s' reads as %ld, outside %ld..%ld", key, text,
                   v, min, max);
}

/* Every value of a configuration the library accepted is valid (hyt_config_set takes it again)
 * and in its documented range (README's configuration table, runtime/config.c's key table). */
static inline void hyt_fuzz_check_config(const hyt_config_t *cfg)
{
    hyt_config_t *again;
    HYT_FUZZ_CHECK(hyt_config_create(&again) == 0, "hyt_config_create: %s", hyt_last_error());
    for (const hyt_config_key_t *k = hyt_config_keys(); k->name; k++) {
        const char *text = hyt_config_get(cfg, k->name, NULL);
        HYT_FUZZ_CHECK(text, "key %s has no value", k->name);
        HYT_FUZZ_CHECK(strlen(text) < HYT_CONFIG_VALUE_MAX, "%s: value of %zu bytes", k->name,
                       strlen(text));
        HYT_FUZZ_CHECK(hyt_config_set(again, k->name, text, HYT_SRC_API, NULL) == 0,
                       "accepted %s = '%s' fails validation: %s", k->name, text,
                       hyt_last_error());
    }
    hyt_config_destroy(again);

    hyt_fuzz_check_int(cfg, "lu.nb", 1, 1, 4096);
    hyt_fuzz_check_int(cfg, "lu.lookahead", 1, 0, 64);
    hyt_fuzz_check_int(cfg, "lu.panel_cores", 1, 1, HYT_MAX_WORKERS);
    hyt_fuzz_check_int(cfg, "runtime.workers", 1, 1, HYT_MAX_WORKERS);
    hyt_fuzz_check_int(cfg, "runtime.window", 0, 16, 1L << 26);
    hyt_fuzz_check_int(cfg, "runtime.spin_us", 0, 0, 1000000);
    hyt_fuzz_check_int(cfg, "gpu.memory_limit", 0, 0, LONG_MAX); /* a size in bytes */
    hyt_fuzz_check_int(cfg, "gpu.pinned", 0, 0, 1);
    hyt_fuzz_check_int(cfg, "hpl.seed", 0, 0, 2147483647);
    hyt_fuzz_check_int(cfg, "hpl.seconds", 0, 1, 86400);
    hyt_fuzz_check_int(cfg, "debug.fault_task", 0, 0, LONG_MAX);
    hyt_fuzz_check_int(cfg, "debug.fault_alloc", 0, 0, LONG_MAX);
    hyt_fuzz_check_int(cfg, "debug.fault_device", 0, 0, LONG_MAX);
    hyt_fuzz_check_int(cfg, "debug.chaos", 0, 0, LONG_MAX);

    const char *panel = hyt_config_get(cfg, "lu.panel", NULL); /* NULL: no such key yet */
    HYT_FUZZ_CHECK(!panel || !strcmp(panel, "auto") || !strcmp(panel, "cpu") ||
                   !strcmp(panel, "gpu"), "lu.panel = '%s'", panel);

    double t = hyt_config_get_double(cfg, "hpl.threshold");
    HYT_FUZZ_CHECK(isfinite(t) && t > 0, "hpl.threshold = '%s' reads as %g",
                   hyt_config_get(cfg, "hpl.threshold", NULL), t);

    const char *n = hyt_config_get(cfg, "hpl.n", NULL);
    if (strcmp(n, "auto") != 0) {
        int ns[64];
        int count = hyt_parse_sizes(n, ns, 64);
        HYT_FUZZ_CHECK(count >= 1 && count <= 64, "hpl.n = '%s': %d sizes", n, count);
        for (int i = 0; i < count; i++)
            HYT_FUZZ_CHECK(ns[i] >= 1 && ns[i] <= 10000000, "hpl.n = '%s': size %d", n, ns[i]);
    }

    char err[256] = "";
    const char *dev = hyt_config_get(cfg, "runtime.devices", NULL);
    hyt_devspec_t spec;
    HYT_FUZZ_CHECK(hyt_parse_devices(dev, &spec, err, sizeof err) == 0,
                   "runtime.devices = '%s' does not parse: %s", dev, err);
    HYT_FUZZ_CHECK(spec.count >= -1 && spec.count <= 64, "runtime.devices = '%s': count %d",
                   dev, spec.count);
    for (int i = 0; i < spec.count; i++)
        for (int j = 0; j <= i; j++)
            HYT_FUZZ_CHECK(spec.ids[i] >= 0 && spec.ids[i] <= 100000 &&
                           (j == i || spec.ids[j] != spec.ids[i]),
                           "runtime.devices = '%s': device %d out of range or listed twice",
                           dev, spec.ids[i]);

    /* core indices: distinct, and at most 100000 (runtime/config.c's parse_idlist) */
    const char *cores = hyt_config_get(cfg, "runtime.cores", NULL);
    static int ids[HYT_MAX_WORKERS];
    static unsigned char seen[100001];
    err[0] = '\0';
    int ncores = hyt_parse_coreset(cores, ids, HYT_MAX_WORKERS, NULL, err, sizeof err);
    HYT_FUZZ_CHECK(ncores >= 0 && ncores <= HYT_MAX_WORKERS, "runtime.cores = '%s': %d (%s)",
                   cores, ncores, err);
    for (int i = 0; i < ncores; i++) {
        HYT_FUZZ_CHECK(ids[i] >= 0 && ids[i] <= 100000 && !seen[ids[i]],
                       "runtime.cores = '%s': core %d out of range or listed twice", cores,
                       ids[i]);
        seen[ids[i]] = 1;
    }
    for (int i = 0; i < ncores; i++)
        seen[ids[i]] = 0;
}

#endif
