/*
 * hytile: errors, configuration, the context and sequences: what every user of the library
 * needs (hytile.h includes it).  Writing one's own tile algorithms on the runtime: hyt_runtime.h.
 */
#ifndef HYT_CONTEXT_H
#define HYT_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

/* The library's exported functions; everything else in libhytile.so is hidden. */
#ifndef HYT_API
#define HYT_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Errors.  Library errors are below HYT_ERR_BASE so they never collide with LAPACK's -i
 * (bad argument i) or +i (zero pivot) info values.
 */
enum {
    HYT_SUCCESS = 0,
    HYT_ERR_BASE = -1000,
    HYT_ERR_NOMEM = -1001,        /* host memory allocation failed */
    HYT_ERR_INVALID = -1002,      /* invalid argument to a runtime call */
    HYT_ERR_CONFIG = -1003,       /* bad configuration value, file or environment variable */
    HYT_ERR_DEVICE = -1004,       /* CUDA / cuBLAS / device backend error */
    HYT_ERR_DEVICE_MEMORY = -1005,/* problem does not fit in device memory (or the memory cap) */
    HYT_ERR_CANCELLED = -1006,    /* the sequence was cancelled */
    HYT_ERR_FAULT = -1007,        /* failure injected by HYT_FAULT_* (testing) */
    HYT_ERR_SYSTEM = -1008,       /* thread creation, hwloc, file I/O ... */
    HYT_ERR_TOO_LARGE = -1009,    /* size does not fit in the index types or in host memory */
    HYT_ERR_NOT_AVAILABLE = -1010,/* feature not compiled in (e.g. CUDA) */
    HYT_ERR_TASK = -1011,         /* a task body reported failure */
    HYT_ERR_RACE = -1012          /* the race check (debug.races) found unordered tasks */
};

/* Name of an error code ("HYT_ERR_NOMEM"...). */
HYT_API const char *hyt_strerror(int code);
/* Message of the last error raised on the calling thread (never NULL, "" when none). */
HYT_API const char *hyt_last_error(void);
/* Records a message for hyt_last_error() and returns code (for code built on the runtime). */
HYT_API int hyt_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* For the public calls of code built on the runtime (hytile's drivers and tiles use them), so
 * that every failure's message names the call the user made:
 *   hyt_error_clear()   at the start of the call: forgets the previous message;
 *   hyt_error_arg(code, func, i, name, fmt, ...)   argument i (counted as in LAPACK, the
 *                       context or sequence not counted) is bad: records
 *                       "func: argument i (name) <fmt...>", returns code (-i for calls that
 *                       follow LAPACK's INFO, HYT_ERR_INVALID for the others);
 *   hyt_error_return(func, rc)   at every return: a failure (rc < 0) whose message does not
 *                       begin with "func: " gets it in front (the message of what failed
 *                       beneath follows; with no message at all, the code's name); returns rc. */
HYT_API void hyt_error_clear(void);
HYT_API int hyt_error_arg(int code, const char *func, int i, const char *name, const char *fmt,
                          ...) __attribute__((format(printf, 5, 6)));
HYT_API int hyt_error_return(const char *func, int rc);

/* ---------------------------------------------------------------------------------------------
 * Configuration.  Every key has a compiled default; sources override in this order:
 *   compiled default < tuned default < config file < HYT_* environment < API / command line.
 * A value set from a lower-precedence source never replaces one from a higher source.
 * Keys are "section.key"; the list with documentation is hyt_config_keys().
 */
typedef enum {
    HYT_SRC_DEFAULT = 0,
    HYT_SRC_TUNED = 1,
    HYT_SRC_FILE = 2,
    HYT_SRC_ENV = 3,
    HYT_SRC_API = 4 /* API setters and command line */
} hyt_source_t;

typedef struct hyt_config hyt_config_t;

typedef struct hyt_config_key {
    const char *name;    /* "lu.nb" */
    const char *env;     /* "HYT_NB" */
    const char *deflt;   /* compiled default as text */
    const char *help;    /* one line */
} hyt_config_key_t;

/* NULL-terminated table of all keys registered so far. */
HYT_API const hyt_config_key_t *hyt_config_keys(void);

/* Registering keys.  The runtime registers its own (runtime.*, gpu.*, debug.*), the library its
 * algorithms' (lu.*) when it is loaded, the hytile command its own (hpl.*); one's own tile
 * algorithm registers its keys the same way, before it creates a configuration or a context:
 *
 *     static const hyt_config_keydef_t my_keys[] = {
 *         {{"gemm.nb", "HYT_GEMM_NB", "256", "tile size of my GEMM (8..1024)"},
 *          HYT_KEY_INT, 8, 1024, 0, 1, NULL},
 *     };
 *     hyt_config_register(my_keys, 1);
 *
 * after which "gemm.nb" is read from config files ([gemm] nb = 128), from HYT_GEMM_NB and by
 * hyt_config_set / hyt_context_set, validated the same way, with the same messages. */
typedef enum {
    HYT_KEY_INT,    /* a long in min..max (and "auto" if allow_auto: hyt_config_get_int -1) */
    HYT_KEY_STRING, /* any text of fewer than 256 bytes, then check() */
    HYT_KEY_BOOL,   /* 0/1, true/false, yes/no, on/off */
    HYT_KEY_SIZE,   /* bytes, with K, M, G, T suffixes */
    HYT_KEY_DOUBLE  /* a positive number */
} hyt_key_type_t;

typedef struct hyt_config_keydef {
    hyt_config_key_t pub; /* name "section.key" (lower case, digits, '_'), HYT_ variable,
                           * default (must be valid), help */
    hyt_key_type_t type;
    long min, max;        /* HYT_KEY_INT */
    int allow_auto;       /* HYT_KEY_INT: "auto" accepted too */
    int per_call;         /* may change on a running context (hyt_context_set) */
    /* Further check of a value, after the type's (NULL: none): 0, or -1 with a reason in err
     * (the message adds the key and where the value came from). */
    int (*check)(const char *value, char *err, size_t errlen);
} hyt_config_keydef_t;

/* Adds n keys (the table must outlive the program's use of hytile: static storage).  All or
 * nothing: HYT_ERR_CONFIG for a malformed definition, an invalid default, a name or variable
 * already registered by another table, or more than 64 keys in all.  Registering the same
 * table again is a no-op.  Thread-safe; a configuration created before the registration sees
 * the new keys at their defaults. */
HYT_API int hyt_config_register(const hyt_config_keydef_t *defs, int n);

HYT_API int hyt_config_create(hyt_config_t **cfg);
HYT_API void hyt_config_destroy(hyt_config_t *cfg);
HYT_API int hyt_config_copy(const hyt_config_t *src, hyt_config_t **dst);
/* Set key from text.  where: "file:line" or "HYT_NB" for messages (may be NULL).
 * Returns HYT_ERR_CONFIG for an unknown key or bad value, with hyt_last_error() saying which. */
HYT_API int hyt_config_set(hyt_config_t *cfg, const char *key, const char *value, hyt_source_t src,
                           const char *where);
/* Read an INI file ([lu] nb = 256 ...).  Unknown sections/keys and bad values are errors
 * naming file:line.  src is HYT_SRC_FILE or HYT_SRC_TUNED. */
HYT_API int hyt_config_load_file(hyt_config_t *cfg, const char *path, hyt_source_t src);
/* Apply every HYT_* variable of the environment; unknown HYT_ variables are errors. */
HYT_API int hyt_config_load_env(hyt_config_t *cfg);
/* Current value text and source of a key (NULL if unknown key). */
HYT_API const char *hyt_config_get(const hyt_config_t *cfg, const char *key, hyt_source_t *src);
/* Integer value (-1 for "auto"; sizes in bytes; booleans 0/1); double value. */
HYT_API long hyt_config_get_int(const hyt_config_t *cfg, const char *key);
HYT_API double hyt_config_get_double(const hyt_config_t *cfg, const char *key);
HYT_API const char *hyt_source_name(hyt_source_t src);

/* ---------------------------------------------------------------------------------------------
 * Context: workers, devices, configuration.
 */
typedef struct hyt_context hyt_context_t;
typedef struct hyt_sequence hyt_sequence_t;
typedef struct hyt_device hyt_device_t;

/* cfg may be NULL: defaults, then HYT_CONFIG (a config file) if set, then HYT_* environment.
 * With a cfg, it is used as given (call hyt_config_load_env yourself to honour HYT_*). */
HYT_API int hyt_context_create(const hyt_config_t *cfg, hyt_context_t **ctx);
/* Waits for every task, joins all threads, frees everything. */
HYT_API void hyt_context_destroy(hyt_context_t *ctx);

HYT_API int hyt_context_num_workers(const hyt_context_t *ctx);
HYT_API int hyt_context_num_devices(const hyt_context_t *ctx);
HYT_API hyt_device_t *hyt_context_device(hyt_context_t *ctx, int i);
HYT_API const hyt_config_t *hyt_context_config(const hyt_context_t *ctx);
/* Change a per-call tunable (lu.*) after creation; same validation as hyt_config_set. */
HYT_API int hyt_context_set(hyt_context_t *ctx, const char *key, const char *value);
/* Core (OS index of its first PU) of worker w, -1 when not pinned. */
HYT_API int hyt_context_worker_core(const hyt_context_t *ctx, int w);

/* Progress of a long computation (drivers count panels): reset with the total, add from tasks,
 * read from any thread. */
HYT_API void hyt_progress_reset(hyt_context_t *ctx, long total);
HYT_API void hyt_progress_add(hyt_context_t *ctx, long n);
HYT_API void hyt_progress_get(const hyt_context_t *ctx, long *done, long *total);

/* ---------------------------------------------------------------------------------------------
 * Sequences: a group of tasks with one status.  The first failing task (or a cancel) sets the
 * status; the remaining tasks of the sequence are skipped (their dependencies still resolve, so
 * nothing hangs) and hyt_sequence_wait returns the status.
 */
HYT_API int hyt_sequence_create(hyt_context_t *ctx, hyt_sequence_t **seq);
/* Waits for all tasks of the sequence; returns its status (0 or the first error). */
HYT_API int hyt_sequence_wait(hyt_sequence_t *seq);
/* Marks the sequence cancelled: tasks not yet started are skipped. */
HYT_API void hyt_sequence_cancel(hyt_sequence_t *seq);
HYT_API int hyt_sequence_status(const hyt_sequence_t *seq);
/* Message of the first error ("" when none). */
HYT_API const char *hyt_sequence_message(const hyt_sequence_t *seq);
/* Sets the status (first error wins); for code that detects errors outside tasks. */
HYT_API void hyt_sequence_fail(hyt_sequence_t *seq, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Waits, then frees. */
HYT_API void hyt_sequence_destroy(hyt_sequence_t *seq);
/* The end of a synchronous call: waits, destroys the sequence, and returns rc (the insertion's
 * result) or else the sequence's status, with its message in hyt_last_error(). */
HYT_API int hyt_sequence_finish(hyt_sequence_t *seq, int rc);
HYT_API hyt_context_t *hyt_sequence_context(const hyt_sequence_t *seq);
/* Wall clock in seconds (monotonic). */
HYT_API double hyt_wtime(void);

#ifdef __cplusplus
}
#endif
#endif /* HYT_CONTEXT_H */
