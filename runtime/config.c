/*
 * Configuration: one table of keys, validated text values, each with the source it came from.
 *
 * Environment variables (read by hyt_config_load_env, i.e. once at context creation):
 *   HYT_CONFIG              a config file read before the other HYT_* variables
 *   HYT_NB                  lu.nb
 *   HYT_LOOKAHEAD           lu.lookahead
 *   HYT_PANEL_CORES         lu.panel_cores
 *   HYT_PANEL               lu.panel
 *   HYT_CORES               runtime.cores
 *   HYT_WORKERS             runtime.workers
 *   HYT_DEVICES             runtime.devices
 *   HYT_TRACE               runtime.trace
 *   HYT_WINDOW              runtime.window
 *   HYT_SPIN_US             runtime.spin_us
 *   HYT_GPU_MEMORY_LIMIT    gpu.memory_limit
 *   HYT_PINNED              gpu.pinned
 *   HYT_GPU_PANEL_CTAS      gpu.panel_ctas
 *   HYT_GPU_PANEL_SMS       gpu.panel_sms
 *   HYT_HPL_N               hpl.n
 *   HYT_HPL_SEED            hpl.seed
 *   HYT_HPL_THRESHOLD       hpl.threshold
 *   HYT_HPL_SECONDS         hpl.seconds
 *   HYT_FAULT_TASK          debug.fault_task
 *   HYT_FAULT_ALLOC         debug.fault_alloc
 *   HYT_FAULT_DEVICE        debug.fault_device
 *   HYT_CHAOS               debug.chaos
 *   HYT_ABI_MIN_N           abi.min_n
 * Any other HYT_ variable is rejected, so a misspelt one never goes unnoticed.
 */
#include "rt_internal.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern char **environ;

typedef struct keydef {
    hyt_config_key_t pub;
    hyt_key_type_t type;
    long min, max;   /* integers */
    int allow_auto;  /* integer keys that also accept "auto" */
    int per_call;    /* may change after context creation */
} keydef_t;

/* The one table of keys.  Keep in sync with the README's configuration section. */
static const keydef_t keys[] = {
    {{"lu.nb", "HYT_NB", "auto",
      "tile size nb (1..4096); auto: 512 with GPU panels (256 below N = 8192), 192 on CPUs "
      "only (less for small matrices; 512 from N = 24576 with 32 workers or more)"},
     HYT_KEY_INT, 1, 4096, 1, 1},
    {{"lu.lookahead", "HYT_LOOKAHEAD", "auto",
      "lookahead depth (0..64): columns updated ahead of the bulk, on the CPUs (CPU panels) or "
      "the GPUs' panel streams (GPU panels); auto: 1 on CPUs only, 4 with GPU panels, 2 with "
      "CPU panels"},
     HYT_KEY_INT, 0, 64, 1, 1},
    {{"lu.panel_cores", "HYT_PANEL_CORES", "auto",
      "cores that factor a panel together (1..workers); auto: a quarter of the workers (at "
      "least 1, at most 16)"},
     HYT_KEY_INT, 1, HYT_MAX_WORKERS, 1, 1},
    {{"lu.panel", "HYT_PANEL", "auto",
      "where panels are factored with devices: cpu, gpu, or auto (gpu with CUDA GPUs, cpu "
      "otherwise)"},
     HYT_KEY_STRING, 0, 0, 0, 1},
    {{"runtime.cores", "HYT_CORES", "all",
      "cores for CPU workers: all, a count (N cores, core 0 last), or a list like 0-7,16"},
     HYT_KEY_STRING, 0, 0, 0, 0},
    {{"runtime.workers", "HYT_WORKERS", "auto",
      "CPU worker threads (1..1024); auto: one per core of runtime.cores (less one per GPU); "
      "more than the cores shares them round-robin"},
     HYT_KEY_INT, 1, HYT_MAX_WORKERS, 1, 0},
    {{"runtime.devices", "HYT_DEVICES", "auto",
      "devices: auto (all CUDA GPUs, none without), none, cuda, cuda:0,2, host:N"},
     HYT_KEY_STRING, 0, 0, 0, 0},
    {{"runtime.trace", "HYT_TRACE", "",
      "write a Chrome/Perfetto trace of every task to this file when the context ends"},
     HYT_KEY_STRING, 0, 0, 0, 0},
    {{"runtime.window", "HYT_WINDOW", "16384",
      "unfinished tasks at most before the inserting thread executes tasks itself"},
     HYT_KEY_INT, 16, 1L << 26, 0, 0},
    {{"runtime.spin_us", "HYT_SPIN_US", "100",
      "microseconds an idle worker spins before it sleeps (0..1000000)"},
     HYT_KEY_INT, 0, 1000000, 0, 0},
    {{"gpu.memory_limit", "HYT_GPU_MEMORY_LIMIT", "0",
      "cap on device memory hytile allocates per device, e.g. 8G (0: no cap)"},
     HYT_KEY_SIZE, 0, 0, 0, 0},
    {{"gpu.pinned", "HYT_PINNED", "1",
      "page-lock host matrices that travel to GPUs (falls back to pageable with a warning)"},
     HYT_KEY_BOOL, 0, 1, 0, 0},
    {{"gpu.panel_ctas", "HYT_GPU_PANEL_CTAS", "0",
      "GPU panels: 0 factors them with cuSOLVER; 1..4096 or auto with hytile's native panel "
      "LU on that many CTAs (fewer where they would not all fit on the GPU or the panel is "
      "short; auto: one per SM)"},
     HYT_KEY_INT, 0, 4096, 1, 1},
    {{"gpu.panel_sms", "HYT_GPU_PANEL_SMS", "0",
      "CUDA GPUs: 0 lets every stream use all SMs; N > 0 gives the panel stream N SMs of its "
      "own (a green context; rounded up to the GPU's granularity) and the other streams the rest"},
     HYT_KEY_INT, 0, 1024, 0, 0},
    {{"hpl.n", "HYT_HPL_N", "auto",
      "hytile hpl problem sizes, comma separated; auto: the largest that fits in memory and "
      "takes about hpl.seconds"},
     HYT_KEY_STRING, 0, 0, 0, 1},
    {{"hpl.seed", "HYT_HPL_SEED", "100", "seed of HPL's matrix generator (HPL uses 100)"},
     HYT_KEY_INT, 0, 2147483647, 0, 1},
    {{"hpl.threshold", "HYT_HPL_THRESHOLD", "16.0",
      "a run passes when HPL's scaled residual is below this"},
     HYT_KEY_DOUBLE, 0, 0, 0, 1},
    {{"hpl.seconds", "HYT_HPL_SECONDS", "60",
      "target duration of one run when hpl.n = auto (1..86400)"},
     HYT_KEY_INT, 1, 86400, 0, 1},
    {{"debug.fault_task", "HYT_FAULT_TASK", "0",
      "testing: make the k-th task of the context fail (0: off)"},
     HYT_KEY_INT, 0, LONG_MAX, 0, 0},
    {{"debug.fault_alloc", "HYT_FAULT_ALLOC", "0",
      "testing: make the k-th runtime allocation fail (0: off)"},
     HYT_KEY_INT, 0, LONG_MAX, 0, 0},
    {{"debug.chaos", "HYT_CHAOS", "0",
      "testing: with a nonzero seed, ready tasks run in random order and device tasks with "
      "random delays, so that a missing dependency shows"},
     HYT_KEY_INT, 0, LONG_MAX, 0, 0},
    {{"debug.fault_device", "HYT_FAULT_DEVICE", "0",
      "testing: make the k-th device (CUDA/cuBLAS/host backend) call fail (0: off)"},
     HYT_KEY_INT, 0, LONG_MAX, 0, 0},
    {{"abi.min_n", "HYT_ABI_MIN_N", "64",
      "LAPACK ABI: calls on matrices smaller than this (max(m, n)) go to the CPU LAPACK the "
      "program would use without hytile, when there is one (0..1000000; 0: none)"},
     HYT_KEY_INT, 0, 1000000, 0, 0},
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))
_Static_assert(sizeof keys / sizeof keys[0] <= HYT_CONFIG_MAX_KEYS, "too many keys");

static hyt_config_key_t pub_keys[NKEYS + 1];
static pthread_once_t pub_once = PTHREAD_ONCE_INIT;
static void pub_init(void)
{
    for (int i = 0; i < NKEYS; i++)
        pub_keys[i] = keys[i].pub;
}

const hyt_config_key_t *hyt_config_keys(void)
{
    pthread_once(&pub_once, pub_init);
    return pub_keys;
}

int hyt_config_key_index(const char *key)
{
    for (int i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].pub.name, key) == 0)
            return i;
    return -1;
}

const char *hyt_source_name(hyt_source_t src)
{
    switch (src) {
    case HYT_SRC_DEFAULT: return "default";
    case HYT_SRC_TUNED: return "tuned";
    case HYT_SRC_FILE: return "config file";
    case HYT_SRC_ENV: return "environment";
    case HYT_SRC_API: return "command line";
    }
    return "?";
}

/* ------------------------------------------------------------------------------------------ */
/* value parsers                                                                               */

static int parse_long(const char *s, long *out)
{
    char *end;
    if (!*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int hyt_parse_size(const char *text, size_t *bytes)
{
    char *end;
    if (!*text || !isdigit((unsigned char)*text))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno)
        return -1;
    unsigned long long mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1ULL << 10; break;
        case 'M': mul = 1ULL << 20; break;
        case 'G': mul = 1ULL << 30; break;
        case 'T': mul = 1ULL << 40; break;
        default: return -1;
        }
        end++;
        if (*end == 'i' || *end == 'I')
            end++;
        if (*end == 'B' || *end == 'b')
            end++;
        if (*end)
            return -1;
    }
    if (v > SIZE_MAX / mul)
        return -1;
    *bytes = (size_t)(v * mul);
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    static const char *t[] = {"1", "true", "yes", "on"}, *f[] = {"0", "false", "no", "off"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, t[i]) == 0) { *out = 1; return 0; }
        if (strcasecmp(s, f[i]) == 0) { *out = 0; return 0; }
    }
    return -1;
}

/* Comma-separated non-negative integers and ranges a-b into ids (max entries).  -1 on error. */
static int parse_idlist(const char *s, int *ids, int max, char *err, size_t errlen)
{
    int n = 0;
    const char *p = s;
    if (!*p) {
        snprintf(err, errlen, "empty list");
        return -1;
    }
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p)) {
            snprintf(err, errlen, "expected a number at '%s'", p);
            return -1;
        }
        long a = strtol(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            p++;
            if (!isdigit((unsigned char)*p)) {
                snprintf(err, errlen, "expected a number after '-'");
                return -1;
            }
            b = strtol(p, &end, 10);
            p = end;
        }
        if (a > 100000 || b > 100000 || b < a) {
            snprintf(err, errlen, "bad range %ld-%ld", a, b);
            return -1;
        }
        for (long v = a; v <= b; v++) {
            for (int i = 0; i < n; i++)
                if (ids[i] == v) {
                    snprintf(err, errlen, "%ld listed twice", v);
                    return -1;
                }
            if (n >= max) {
                snprintf(err, errlen, "more than %d entries", max);
                return -1;
            }
            ids[n++] = (int)v;
        }
        if (*p == ',') {
            p++;
            if (!*p) {
                snprintf(err, errlen, "trailing ','");
                return -1;
            }
        } else if (*p) {
            snprintf(err, errlen, "unexpected '%c'", *p);
            return -1;
        }
    }
    return n;
}

int hyt_parse_sizes(const char *text, int *ns, int max)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p))
            return -1;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (errno || v < 1 || v > 10000000 || n >= max)
            return -1;
        ns[n++] = (int)v;
        p = end;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return -1;
    }
    return n ? n : -1;
}

int hyt_parse_devices(const char *text, hyt_devspec_t *spec, char *err, size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    if (strcmp(text, "auto") == 0) {
        spec->auto_detect = 1;
        spec->backend = HYT_BACKEND_CUDA;
        spec->count = -1;
        return 0;
    }
    if (strcmp(text, "none") == 0) {
        spec->count = 0;
        return 0;
    }
    if (strcmp(text, "cuda") == 0) {
        spec->backend = HYT_BACKEND_CUDA;
        spec->count = -1;
        return 0;
    }
    if (strncmp(text, "cuda:", 5) == 0) {
        spec->backend = HYT_BACKEND_CUDA;
        int n = parse_idlist(text + 5, spec->ids, 64, err, errlen);
        if (n < 0)
            return -1;
        spec->count = n;
        return 0;
    }
    if (strncmp(text, "host:", 5) == 0) {
        long v;
        if (parse_long(text + 5, &v) || v < 1 || v > 64) {
            snprintf(err, errlen, "host:N needs 1 <= N <= 64");
            return -1;
        }
        spec->backend = HYT_BACKEND_HOST;
        spec->count = (int)v;
        for (int i = 0; i < v; i++)
            spec->ids[i] = i;
        return 0;
    }
    snprintf(err, errlen, "expected auto, none, cuda, cuda:0,1,... or host:N");
    return -1;
}

int hyt_parse_coreset(const char *text, int *cores, int max, int *is_count, char *err,
                      size_t errlen)
{
    long v;
    if (is_count)
        *is_count = 0;
    if (strcmp(text, "all") == 0)
        return 0; /* caller takes all */
    if (parse_long(text, &v) == 0) {
        if (v < 1 || v > max) {
            snprintf(err, errlen, "core count must be 1..%d", max);
            return -1;
        }
        for (int i = 0; i < v; i++)
            cores[i] = i;
        if (is_count)
            *is_count = 1;
        return (int)v;
    }
    return parse_idlist(text, cores, max, err, errlen);
}

/* Validates value for key i; err gets a reason. */
static int validate(int i, const char *value, char *err, size_t errlen)
{
    const keydef_t *k = &keys[i];
    if (strlen(value) >= HYT_CONFIG_VALUE_MAX) {
        snprintf(err, errlen, "value longer than %d characters", HYT_CONFIG_VALUE_MAX - 1);
        return -1;
    }
    switch (k->type) {
    case HYT_KEY_INT: {
        long v;
        if (k->allow_auto && strcmp(value, "auto") == 0)
            return 0;
        if (parse_long(value, &v)) {
            snprintf(err, errlen, "'%.40s' is not an integer%s", value,
                     k->allow_auto ? " or auto" : "");
            return -1;
        }
        if (v < k->min || v > k->max) {
            snprintf(err, errlen, "%ld is out of range %ld..%ld", v, k->min, k->max);
            return -1;
        }
        return 0;
    }
    case HYT_KEY_BOOL: {
        int b;
        if (parse_bool(value, &b)) {
            snprintf(err, errlen, "'%.40s' is not a boolean (0/1, true/false, yes/no, on/off)",
                     value);
            return -1;
        }
        return 0;
    }
    case HYT_KEY_SIZE: {
        size_t s;
        if (hyt_parse_size(value, &s) || s > (size_t)LONG_MAX) {
            snprintf(err, errlen, "'%.40s' is not a size (bytes, or with K, M, G, T; at most "
                     "8 EiB)", value);
            return -1;
        }
        return 0;
    }
    case HYT_KEY_DOUBLE: {
        char *end;
        errno = 0;
        double v = strtod(value, &end);
        if (!*value || *end || errno || !(v > 0) || v > 1e300) {
            snprintf(err, errlen, "'%.40s' is not a positive number", value);
            return -1;
        }
        return 0;
    }
    case HYT_KEY_STRING:
        if (strcmp(k->pub.name, "hpl.n") == 0 && strcmp(value, "auto") != 0) {
            int ns[64];
            if (hyt_parse_sizes(value, ns, 64) < 0) {
                snprintf(err, errlen, "'%.40s': expected auto or up to 64 sizes like 4000,8000 "
                         "(1..10000000)", value);
                return -1;
            }
            return 0;
        }
        if (strcmp(k->pub.name, "lu.panel") == 0) {
            if (strcmp(value, "cpu") && strcmp(value, "gpu") && strcmp(value, "auto")) {
                snprintf(err, errlen, "'%.40s': expected cpu, gpu or auto", value);
                return -1;
            }
            return 0;
        }
        if (strcmp(k->pub.name, "runtime.devices") == 0) {
            hyt_devspec_t spec;
            char e[128];
            if (hyt_parse_devices(value, &spec, e, sizeof e)) {
                snprintf(err, errlen, "'%s': %s", value, e);
                return -1;
            }
        } else if (strcmp(k->pub.name, "runtime.cores") == 0) {
            int cores[HYT_MAX_WORKERS];
            char e[128];
            if (hyt_parse_coreset(value, cores, HYT_MAX_WORKERS, NULL, e, sizeof e) < 0) {
                snprintf(err, errlen, "'%s': %s", value, e);
                return -1;
            }
        }
        return 0;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

int hyt_config_create(hyt_config_t **cfg)
{
    hyt_config_t *c = calloc(1, sizeof *c);
    if (!c)
        return hyt_rt_error(HYT_ERR_NOMEM, "out of memory creating a configuration");
    for (int i = 0; i < NKEYS; i++) {
        snprintf(c->value[i], HYT_CONFIG_VALUE_MAX, "%s", keys[i].pub.deflt);
        c->source[i] = HYT_SRC_DEFAULT;
        snprintf(c->where[i], sizeof c->where[i], "compiled default");
    }
    *cfg = c;
    return HYT_SUCCESS;
}

void hyt_config_destroy(hyt_config_t *cfg) { free(cfg); }

int hyt_config_copy(const hyt_config_t *src, hyt_config_t **dst)
{
    hyt_config_t *c = malloc(sizeof *c);
    if (!c)
        return hyt_rt_error(HYT_ERR_NOMEM, "out of memory copying a configuration");
    memcpy(c, src, sizeof *c);
    *dst = c;
    return HYT_SUCCESS;
}

int hyt_config_set(hyt_config_t *cfg, const char *key, const char *value, hyt_source_t src,
                   const char *where)
{
    char err[256];
    if (!cfg || !key || !value)
        return hyt_rt_error(HYT_ERR_INVALID, "hyt_config_set: NULL argument");
    int i = hyt_config_key_index(key);
    if (i < 0)
        return hyt_rt_error(HYT_ERR_CONFIG, "%s%sunknown key '%s'", where ? where : "",
                            where ? ": " : "", key);
    if (validate(i, value, err, sizeof err))
        return hyt_rt_error(HYT_ERR_CONFIG, "%s%s%s: %s", where ? where : "", where ? ": " : "",
                            key, err);
    if (src < cfg->source[i])
        return HYT_SUCCESS; /* a higher-precedence source already set it */
    snprintf(cfg->value[i], HYT_CONFIG_VALUE_MAX, "%s", value);
    cfg->source[i] = src;
    snprintf(cfg->where[i], sizeof cfg->where[i], "%s", where ? where : hyt_source_name(src));
    return HYT_SUCCESS;
}

const char *hyt_config_get(const hyt_config_t *cfg, const char *key, hyt_source_t *src)
{
    int i = hyt_config_key_index(key);
    if (i < 0)
        return NULL;
    if (src)
        *src = cfg->source[i];
    return cfg->value[i];
}

/* Integer value of a key; -1 for "auto"; 0 for unknown keys.  Sizes in bytes, bools 0/1. */
long hyt_config_get_int(const hyt_config_t *cfg, const char *key)
{
    int i = hyt_config_key_index(key);
    if (i < 0)
        return 0;
    const char *v = cfg->value[i];
    switch (keys[i].type) {
    case HYT_KEY_INT: {
        long x;
        if (strcmp(v, "auto") == 0)
            return -1;
        return parse_long(v, &x) ? 0 : x;
    }
    case HYT_KEY_BOOL: {
        int b = 0;
        parse_bool(v, &b);
        return b;
    }
    case HYT_KEY_SIZE: {
        size_t s = 0;
        hyt_parse_size(v, &s);
        return (long)s;
    }
    default:
        return 0;
    }
}

double hyt_config_get_double(const hyt_config_t *cfg, const char *key)
{
    int i = hyt_config_key_index(key);
    if (i < 0)
        return 0;
    return strtod(cfg->value[i], NULL);
}

int hyt_config_is_per_call(const char *key)
{
    int i = hyt_config_key_index(key);
    return i >= 0 && keys[i].per_call;
}

/* ------------------------------------------------------------------------------------------ */
/* INI files                                                                                   */

#define INI_FILE_MAX (1L << 20) /* bytes: a config file is a few lines; /dev/zero is not */

typedef struct iniparse {
    hyt_config_t *cfg;
    const char *path;
    hyt_source_t src;
    FILE *f;
    long bytes;       /* read so far */
    int line;         /* line last read */
    int bad_line;     /* line number of the first line the reader refused */
    const char *bad;  /* why: too long, a NUL byte, a lone CR, a read error, the file size */
    int read_errno;   /* errno of a read error */
    int rc;           /* first error */
    int rc_line;      /* its line */
    char seen[HYT_CONFIG_MAX_KEYS];
} iniparse_t;

/* inih's line reader: counts lines (for file:line messages), and refuses a line longer than
 * inih's buffer, holding a NUL byte (which would silently cut the value short) or a CR without
 * LF (old Mac line ends), a read error and a file over INI_FILE_MAX.  It stops at the first
 * problem, the reader's or the handler's, so that an endless input (/dev/zero, a FIFO) ends. */
static char *ini_reader_fn(char *str, int num, void *stream)
{
    iniparse_t *p = stream;
    int n = 0, c = EOF;
    const char *bad = NULL;
    if (p->bad || p->rc)
        return NULL;
    while (n < num - 1 && (c = getc(p->f)) != EOF) {
        if (++p->bytes > INI_FILE_MAX) {
            bad = "file larger than 1 MiB";
            break;
        }
        if (c == '\0')
            bad = "NUL byte in the line";
        if (c == '\r') {
            int next = getc(p->f);
            if (next != '\n' && next != EOF)
                bad = "carriage return without a line feed (old Mac line ends?): lines must "
                      "end with LF or CR LF";
            ungetc(next, p->f);
        }
        str[n++] = (char)c;
        if (c == '\n' || bad)
            break;
    }
    if (c == EOF && ferror(p->f)) {
        p->read_errno = errno;
        bad = "read error";
    } else if (!bad && n == num - 1 && str[n - 1] != '\n') {
        bad = "line too long";
    } else if (n == 0 && c == EOF) {
        return NULL;
    }
    p->line++;
    if (bad) {
        p->bad = bad;
        p->bad_line = p->line;
        return NULL;
    }
    str[n] = '\0';
    return str;
}

static int ini_fail(iniparse_t *p, int rc)
{
    p->rc = rc;
    p->rc_line = p->line;
    return 0;
}

static int ini_handler_fn(void *user, const char *section, const char *name, const char *value)
{
    iniparse_t *p = user;
    char key[128], where[4200]; /* the whole path: messages must name the file */
    if (p->rc)
        return 1; /* keep the first error only */
    snprintf(where, sizeof where, "%s:%d", p->path, p->line);
    if (!*section) {
        return ini_fail(p, hyt_rt_error(HYT_ERR_CONFIG, "%s: key '%s' outside a section ([lu], "
                                        "[runtime], [gpu], [hpl], [debug])", where, name));
    }
    snprintf(key, sizeof key, "%s.%s", section, name);
    int i = hyt_config_key_index(key);
    if (i < 0) {
        return ini_fail(p, hyt_rt_error(HYT_ERR_CONFIG, "%s: unknown key '%s' in section [%s]",
                                        where, name, section));
    }
    if (p->seen[i]) {
        return ini_fail(p, hyt_rt_error(HYT_ERR_CONFIG, "%s: key '%s' set twice", where, key));
    }
    p->seen[i] = 1;
    int rc = hyt_config_set(p->cfg, key, value, p->src, where);
    return rc ? ini_fail(p, rc) : 1;
}

int hyt_config_load_file(hyt_config_t *cfg, const char *path, hyt_source_t src)
{
    iniparse_t p = {.cfg = cfg, .path = path, .src = src};
    if (!cfg || !path)
        return hyt_rt_error(HYT_ERR_INVALID, "hyt_config_load_file: NULL argument");
    /* Parse into a scratch copy so that a bad file changes nothing. */
    hyt_config_t *tmp;
    int rc = hyt_config_copy(cfg, &tmp);
    if (rc)
        return rc;
    p.cfg = tmp;
    p.f = fopen(path, "r");
    if (!p.f) {
        rc = hyt_rt_error(HYT_ERR_CONFIG, "%s: cannot open config file: %s", path,
                          strerror(errno));
        goto out;
    }
    /* a file, or a FIFO or a device read up to INI_FILE_MAX */
    struct stat st;
    if (fstat(fileno(p.f), &st) || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ||
                                     S_ISCHR(st.st_mode))) {
        rc = hyt_rt_error(HYT_ERR_CONFIG, "%s: cannot read config file: %s", path,
                          S_ISDIR(st.st_mode) ? "it is a directory" : "not a file");
        fclose(p.f);
        goto out;
    }
    int line = ini_parse_stream(ini_reader_fn, &p, ini_handler_fn, &p);
    fclose(p.f);
    /* Report the earliest problem: a line the reader refused, a syntax error (inih's line), or
     * a bad key or value (the handler's line). */
    if (p.bad && (!p.rc || p.bad_line <= p.rc_line) && (line <= 0 || p.bad_line <= line)) {
        rc = hyt_rt_error(HYT_ERR_CONFIG, "%s:%d: %s%s%s", path, p.bad_line, p.bad,
                          p.read_errno ? ": " : "", p.read_errno ? strerror(p.read_errno) : "");
        goto out;
    }
    if (p.rc && (line <= 0 || p.rc_line <= line)) {
        rc = p.rc;
        goto out;
    }
    if (line > 0) {
        rc = hyt_rt_error(HYT_ERR_CONFIG,
                          "%s:%d: syntax error (expected [section] or key = value)", path, line);
        goto out;
    }
    if (line < 0) {
        rc = hyt_rt_error(HYT_ERR_CONFIG, "%s: cannot read config file", path);
        goto out;
    }
    memcpy(cfg, tmp, sizeof *cfg);
    rc = HYT_SUCCESS;
out:
    hyt_config_destroy(tmp);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* environment                                                                                 */

int hyt_config_load_env(hyt_config_t *cfg)
{
    hyt_config_t *tmp;
    int rc = hyt_config_copy(cfg, &tmp);
    if (rc)
        return rc;
    const char *file = getenv("HYT_CONFIG");
    if (file && *file) {
        rc = hyt_config_load_file(tmp, file, HYT_SRC_FILE);
        if (rc)
            goto out;
    }
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "HYT_", 4) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char name[128];
        size_t len = (size_t)(eq - *e);
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, *e, len);
        name[len] = '\0';
        if (strcmp(name, "HYT_CONFIG") == 0 || strcmp(name, "HYT_TUNED") == 0)
            continue;
        int i;
        for (i = 0; i < NKEYS; i++)
            if (strcmp(keys[i].pub.env, name) == 0)
                break;
        if (i == NKEYS) {
            rc = hyt_rt_error(HYT_ERR_CONFIG, "unknown environment variable %s (hytile knows "
                              "HYT_CONFIG, HYT_TUNED and the variables listed in the README)",
                              name);
            goto out;
        }
        rc = hyt_config_set(tmp, keys[i].pub.name, eq + 1, HYT_SRC_ENV, name);
        if (rc)
            goto out;
    }
    memcpy(cfg, tmp, sizeof *cfg);
out:
    hyt_config_destroy(tmp);
    return rc;
}
