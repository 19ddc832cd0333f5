/*
 * Configuration: a registry of keys (each with its type, range, check and help text) and
 * validated text values, each with the source it came from.  The runtime registers its own
 * keys here (runtime.*, gpu.*: device-level, debug.*); algorithms and tools register theirs
 * with hyt_config_register (drivers/lu/lu_params.c: lu.*; app/hpl_keys.c: hpl.*).  The
 * readers of files and the environment are in config_file.c, the value parsers in
 * config_parse.c.
 *
 * Environment variables of the runtime's keys (read by hyt_config_load_env, i.e. once at
 * context creation):
 *   HYT_CONFIG              a config file read before the other HYT_* variables
 *   HYT_CORES               runtime.cores
 *   HYT_WORKERS             runtime.workers
 *   HYT_DEVICES             runtime.devices
 *   HYT_TRACE               runtime.trace
 *   HYT_WINDOW              runtime.window
 *   HYT_SPIN_US             runtime.spin_us
 *   HYT_GPU_MEMORY_LIMIT    gpu.memory_limit
 *   HYT_PINNED              gpu.pinned
 *   HYT_GPU_PANEL_SMS       gpu.panel_sms
 *   HYT_FAULT_TASK          debug.fault_task
 *   HYT_FAULT_ALLOC         debug.fault_alloc
 *   HYT_FAULT_DEVICE        debug.fault_device
 *   HYT_CHAOS               debug.chaos
 *   HYT_RACES               debug.races
 */
#include "rt_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static int check_devices(const char *value, char *err, size_t errlen)
{
    hyt_devspec_t spec;
    char e[128];
    if (hyt_parse_devices(value, &spec, e, sizeof e)) {
        snprintf(err, errlen, "'%s': %s", value, e);
        return -1;
    }
    return 0;
}

static int check_cores(const char *value, char *err, size_t errlen)
{
    int cores[HYT_MAX_WORKERS];
    char e[128];
    if (hyt_parse_coreset(value, cores, HYT_MAX_WORKERS, NULL, e, sizeof e) < 0) {
        snprintf(err, errlen, "'%s': %s", value, e);
        return -1;
    }
    return 0;
}

/* The runtime's keys.  Keep in sync with the README's configuration section. */
static const hyt_config_keydef_t runtime_keys[] = {
    {{"runtime.cores", "HYT_CORES", "all",
      "cores for CPU workers: all, a count (N cores, core 0 last), or a list like 0-7,16"},
     HYT_KEY_STRING, 0, 0, 0, 0, check_cores},
    {{"runtime.workers", "HYT_WORKERS", "auto",
      "CPU worker threads (1..1024); auto: one per core of runtime.cores (less one per GPU); "
      "more than the cores shares them round-robin"},
     HYT_KEY_INT, 1, HYT_MAX_WORKERS, 1, 0, NULL},
    {{"runtime.devices", "HYT_DEVICES", "auto",
      "devices: auto (all CUDA GPUs, none without), none, cuda, cuda:0,2, host:N"},
     HYT_KEY_STRING, 0, 0, 0, 0, check_devices},
    {{"runtime.trace", "HYT_TRACE", "",
      "write a Chrome/Perfetto trace of every task to this file when the context ends"},
     HYT_KEY_STRING, 0, 0, 0, 0, NULL},
    {{"runtime.window", "HYT_WINDOW", "16384",
      "unfinished tasks at most before the inserting thread executes tasks itself"},
     HYT_KEY_INT, 16, 1L << 26, 0, 0, NULL},
    {{"runtime.spin_us", "HYT_SPIN_US", "100",
      "microseconds an idle worker spins before it sleeps (0..1000000)"},
     HYT_KEY_INT, 0, 1000000, 0, 0, NULL},
    {{"gpu.memory_limit", "HYT_GPU_MEMORY_LIMIT", "0",
      "cap on device memory hytile allocates per device, e.g. 8G (0: no cap)"},
     HYT_KEY_SIZE, 0, 0, 0, 0, NULL},
    {{"gpu.pinned", "HYT_PINNED", "1",
      "page-lock host matrices that travel to GPUs (falls back to pageable with a warning)"},
     HYT_KEY_BOOL, 0, 1, 0, 0, NULL},
    {{"gpu.panel_sms", "HYT_GPU_PANEL_SMS", "0",
      "CUDA GPUs: the panel stream's kernels on at most N SMs (a green context; rounded up to "
      "the GPU's granularity), the other streams on every SM; 0: no bound (the LU as fast or "
      "faster on one H200 than with half the SMs); auto: half the SMs"},
     HYT_KEY_INT, 0, 1024, 1, 0, NULL},
    {{"debug.fault_task", "HYT_FAULT_TASK", "0",
      "testing: make the k-th task of the context fail (0: off)"},
     HYT_KEY_INT, 0, LONG_MAX, 0, 0, NULL},
    {{"debug.fault_alloc", "HYT_FAULT_ALLOC", "0",
      "testing: make the k-th runtime allocation fail (0: off)"},
     HYT_KEY_INT, 0, LONG_MAX, 0, 0, NULL},
    {{"debug.chaos", "HYT_CHAOS", "0",
      "testing: with a nonzero seed, ready tasks run in random order and device tasks with "
      "random delays, so that a missing dependency shows; seed % 3 = 1 / 2: a device's "
      "compute / lookahead stream tasks only when no other stream's is ready"},
     HYT_KEY_INT, 0, LONG_MAX, 0, 0, NULL},
    {{"debug.races", "HYT_RACES", "0",
      "testing: 1 records the memory device and CPU kernels touch, and a sequence's wait "
      "fails (HYT_ERR_RACE) when two tasks that may run at once (CPU tasks, device tasks of "
      "different streams or devices) touch the same memory, one writing, and no dependency "
      "orders them"},
     HYT_KEY_INT, 0, 1, 0, 0, NULL},
    {{"debug.fault_device", "HYT_FAULT_DEVICE", "0",
      "testing: make the k-th device (CUDA/cuBLAS/host backend) call fail (0: off)"},
     HYT_KEY_INT, 0, LONG_MAX, 0, 0, NULL},
};

/* ------------------------------------------------------------------------------------------ */
/* the registry                                                                                */

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static const hyt_config_keydef_t *reg[HYT_CONFIG_MAX_KEYS];
static hyt_config_key_t reg_pub[HYT_CONFIG_MAX_KEYS + 1]; /* NULL-terminated */
static atomic_int nreg;                                   /* entries published */
static struct { char section[32], env_prefix[32]; } reserved[8];
static int nreserved;

static int register_locked(const hyt_config_keydef_t *defs, int n);
static int validate(const hyt_config_keydef_t *k, const char *value, char *err, size_t errlen);

static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;
static void register_runtime_keys(void)
{
    pthread_mutex_lock(&reg_lock);
    register_locked(runtime_keys, (int)(sizeof runtime_keys / sizeof runtime_keys[0]));
    pthread_mutex_unlock(&reg_lock);
}
/* The runtime's keys are registered before any other, on first use of the registry. */
static int registry_count(void)
{
    pthread_once(&runtime_once, register_runtime_keys);
    return atomic_load_explicit(&nreg, memory_order_acquire);
}

int hyt_config_num_keys(void) { return registry_count(); }

const hyt_config_keydef_t *hyt_config_keydef(int i)
{
    return i >= 0 && i < registry_count() ? reg[i] : NULL;
}

const hyt_config_key_t *hyt_config_keys(void)
{
    registry_count();
    return reg_pub;
}

int hyt_config_key_index(const char *key)
{
    int n = registry_count();
    for (int i = 0; key && i < n; i++)
        if (strcmp(reg[i]->pub.name, key) == 0)
            return i;
    return -1;
}

int hyt_config_env_index(const char *env)
{
    int n = registry_count();
    for (int i = 0; i < n; i++)
        if (strcmp(reg[i]->pub.env, env) == 0)
            return i;
    return -1;
}

/* "section.key": lower case letters, digits and '_' on either side of one dot. */
static int good_name(const char *name)
{
    const char *dot = name ? strchr(name, '.') : NULL;
    if (!dot || dot == name || !dot[1] || strlen(name) >= 64)
        return 0;
    for (const char *p = name; *p; p++)
        if (p != dot && !(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
            return 0;
    return 1;
}

static int register_locked(const hyt_config_keydef_t *defs, int n)
{
    int have = atomic_load_explicit(&nreg, memory_order_relaxed);
    char err[256];
    if (n > 0 && have > 0) {
        for (int i = 0; i < have; i++)
            if (reg[i] == &defs[0])
                return HYT_SUCCESS; /* this table again */
    }
    if (have + n > HYT_CONFIG_MAX_KEYS)
        return hyt_rt_error(HYT_ERR_CONFIG, "hyt_config_register: more than %d keys in all",
                            HYT_CONFIG_MAX_KEYS);
    for (int j = 0; j < n; j++) {
        const hyt_config_keydef_t *d = &defs[j];
        const char *name = d->pub.name ? d->pub.name : "(null)";
        if (!good_name(d->pub.name) || !d->pub.env || strncmp(d->pub.env, "HYT_", 4) ||
            !d->pub.env[4] || strlen(d->pub.env) >= 64 || !d->pub.deflt || !d->pub.help ||
            (unsigned)d->type > HYT_KEY_DOUBLE || (d->type == HYT_KEY_INT && d->min > d->max))
            return hyt_rt_error(HYT_ERR_CONFIG, "hyt_config_register: key '%s': needs a name "
                                "'section.key' (a-z, 0-9, _), a HYT_ variable, a default, a "
                                "help text, a type (and min <= max)", name);
        for (int i = 0; i < have + j; i++) {
            const hyt_config_keydef_t *o = i < have ? reg[i] : &defs[i - have];
            if (!strcmp(o->pub.name, d->pub.name) || !strcmp(o->pub.env, d->pub.env))
                return hyt_rt_error(HYT_ERR_CONFIG, "hyt_config_register: key '%s' (%s) is "
                                    "registered already", name, d->pub.env);
        }
        if (validate(d, d->pub.deflt, err, sizeof err))
            return hyt_rt_error(HYT_ERR_CONFIG, "hyt_config_register: default of %s: %s", name,
                                err);
    }
    for (int j = 0; j < n; j++) {
        reg[have + j] = &defs[j];
        reg_pub[have + j] = defs[j].pub;
    }
    atomic_store_explicit(&nreg, have + n, memory_order_release);
    return HYT_SUCCESS;
}

int hyt_config_register(const hyt_config_keydef_t *defs, int n)
{
    if (!defs || n < 1)
        return hyt_rt_error(HYT_ERR_INVALID, "hyt_config_register: no keys");
    registry_count();
    pthread_mutex_lock(&reg_lock);
    int rc = register_locked(defs, n);
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

int hyt_config_is_per_call(const char *key)
{
    int i = hyt_config_key_index(key);
    return i >= 0 && reg[i]->per_call;
}

void hyt_config_sections(char *buf, size_t len)
{
    int n = registry_count();
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *name = reg[i]->pub.name;
        int sec = (int)(strchr(name, '.') - name), dup = 0;
        for (int j = 0; j < i && !dup; j++)
            dup = !strncmp(reg[j]->pub.name, name, (size_t)sec + 1);
        if (!dup && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s[%.*s]", used ? ", " : "", sec,
                                     name);
    }
}

void hyt_config_reserve(const char *section, const char *env_prefix)
{
    pthread_mutex_lock(&reg_lock);
    int dup = 0;
    for (int i = 0; i < nreserved; i++)
        dup |= !strcmp(reserved[i].section, section);
    if (!dup && nreserved < (int)(sizeof reserved / sizeof reserved[0])) {
        snprintf(reserved[nreserved].section, sizeof reserved[0].section, "%s", section);
        snprintf(reserved[nreserved].env_prefix, sizeof reserved[0].env_prefix, "%s",
                 env_prefix);
        nreserved++;
    }
    pthread_mutex_unlock(&reg_lock);
}

/* A reservation holds while no registered key uses its section or its variable prefix. */
int hyt_config_is_reserved(const char *section, const char *env)
{
    int n = registry_count(), hit = 0;
    pthread_mutex_lock(&reg_lock);
    for (int r = 0; r < nreserved && !hit; r++) {
        const char *sec = reserved[r].section, *pre = reserved[r].env_prefix;
        size_t ls = strlen(sec), lp = strlen(pre);
        if (section ? strcmp(section, sec) != 0 : strncmp(env, pre, lp) != 0)
            continue;
        hit = 1;
        for (int i = 0; i < n && hit; i++)
            if ((!strncmp(reg[i]->pub.name, sec, ls) && reg[i]->pub.name[ls] == '.') ||
                !strncmp(reg[i]->pub.env, pre, lp))
                hit = 0;
    }
    pthread_mutex_unlock(&reg_lock);
    return hit;
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
/* values                                                                                      */

/* Validates a value for key k; err gets a reason. */
static int validate(const hyt_config_keydef_t *k, const char *value, char *err, size_t errlen)
{
    if (strlen(value) >= HYT_CONFIG_VALUE_MAX) {
        snprintf(err, errlen, "value longer than %d characters", HYT_CONFIG_VALUE_MAX - 1);
        return -1;
    }
    switch (k->type) {
    case HYT_KEY_INT: {
        long v;
        if (k->allow_auto && strcmp(value, "auto") == 0)
            return 0;
        if (hyt_parse_long(value, &v)) {
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
        if (hyt_parse_bool(value, &b)) {
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
        break;
    }
    return k->check ? k->check(value, err, errlen) : 0;
}

/* Keys registered after cfg was created get their defaults. */
static void catch_up(hyt_config_t *c)
{
    int n = registry_count();
    for (int i = c->nkeys; i < n; i++) {
        snprintf(c->value[i], HYT_CONFIG_VALUE_MAX, "%s", reg[i]->pub.deflt);
        c->source[i] = HYT_SRC_DEFAULT;
        snprintf(c->where[i], sizeof c->where[i], "compiled default");
    }
    if (c->nkeys < n)
        c->nkeys = n;
}

/* The value text of key i (its default when the key is newer than cfg). */
static const char *value_of(const hyt_config_t *cfg, int i, hyt_source_t *src)
{
    if (i >= cfg->nkeys) {
        if (src)
            *src = HYT_SRC_DEFAULT;
        return reg[i]->pub.deflt;
    }
    if (src)
        *src = cfg->source[i];
    return cfg->value[i];
}

int hyt_config_create(hyt_config_t **cfg)
{
    hyt_config_t *c = calloc(1, sizeof *c);
    if (!c)
        return hyt_rt_error(HYT_ERR_NOMEM, "out of memory creating a configuration");
    catch_up(c);
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
    if (validate(reg[i], value, err, sizeof err))
        return hyt_rt_error(HYT_ERR_CONFIG, "%s%s%s: %s", where ? where : "", where ? ": " : "",
                            key, err);
    catch_up(cfg);
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
    return value_of(cfg, i, src);
}

/* Integer value of a key; -1 for "auto"; 0 for unknown keys.  Sizes in bytes, bools 0/1. */
long hyt_config_get_int(const hyt_config_t *cfg, const char *key)
{
    int i = hyt_config_key_index(key);
    if (i < 0)
        return 0;
    const char *v = value_of(cfg, i, NULL);
    switch (reg[i]->type) {
    case HYT_KEY_INT: {
        long x;
        if (strcmp(v, "auto") == 0)
            return -1;
        return hyt_parse_long(v, &x) ? 0 : x;
    }
    case HYT_KEY_BOOL: {
        int b = 0;
        hyt_parse_bool(v, &b);
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
    return strtod(value_of(cfg, i, NULL), NULL);
}
