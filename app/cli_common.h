/*
 * What the hytile commands `hpl` and `tune` share: option parsing, building the configuration
 * from its sources, the machine description recorded in tuned files, files written whole or not
 * at all, JSON output, the SVG Gantt chart of a trace, and the HPL run itself (generate HPL's
 * system, factor and solve it timed, check HPL's scaled residual).
 *
 * Nothing here exits: functions return 0 or an HYT_ERR_* code with hyt_last_error() saying
 * what is wrong, except the option helpers, which print their message (they are the commands'
 * user interface) and return -1.
 */
#ifndef HYT_CLI_COMMON_H
#define HYT_CLI_COMMON_H

#include "drv_internal.h"

#include <stdio.h>

/* Exit statuses of the commands. */
enum { HYT_EXIT_OK = 0, HYT_EXIT_FAILED = 1, HYT_EXIT_USAGE = 2 };

/* ---------------------------------------------------------------------------------------------
 * Options.  A table of options ends with {NULL}; names are "--long" or "-x".  Accepted forms:
 * "--opt value", "--opt=value", "-x value", "-xvalue".
 */
typedef struct hyt_cli_opt {
    const char *name;
    int has_value;
} hyt_cli_opt_t;

typedef struct hyt_cli_args {
    int argc;
    char **argv;
    int i;            /* next argument to look at (start at 1) */
    const char *cmd;  /* "hytile hpl", for messages */
} hyt_cli_args_t;

/* The next option: its index in opts with *value set (NULL for a flag); -1 when the arguments
 * are all read; -2 after printing a message (unknown option, missing value, a value given to a
 * flag, a stray argument).  A following argument that starts with "--" is not taken as a value
 * ("--json --quiet" is a missing value), one like "-5" is (and then fails as negative). */
int hyt_cli_next(hyt_cli_args_t *a, const hyt_cli_opt_t *opts, const char **value);

/* Integer option value in [min, max] (decimal digits, optional sign); prints "CMD: OPT: ..."
 * and returns -1 otherwise. */
int hyt_cli_int(const char *cmd, const char *opt, const char *text, long min, long max,
                long *out);
/* Comma-separated integers each in [min, max]: the count (1..maxn), or -1 after a message. */
int hyt_cli_int_list(const char *cmd, const char *opt, const char *text, long min, long max,
                     int *out, int maxn);

/* Whether the arguments after the command name include --help or -h: the benchmarks then print
 * their usage to standard output and exit 0, as hpl and tune do. */
int hyt_cli_wants_help(int argc, char **argv);

/* Sets an integer configuration key of a running context (lu.nb, ...): 0, or the library's
 * error code with hyt_last_error() saying why, also printed as "CMD: ..." when cmd is not
 * NULL. */
int hyt_cli_set_int(hyt_context_t *ctx, const char *key, long v, const char *cmd);

/* ---------------------------------------------------------------------------------------------
 * Configuration, from lowest to highest precedence:
 *   compiled default < tuned file < config files < HYT_* environment < command line.
 * The tuned file is $HYT_TUNED or ~/.config/hytile/tuned.ini (when it exists); it is applied
 * only when the machine it records is this machine (otherwise one line says why it is ignored).
 * HYT_CONFIG is read with the environment; --config after it, so that the command line's file
 * wins over the environment's file (both have the source "config file"; HYT_* variables still
 * win over either).
 */
typedef struct hyt_cli_set {
    const char *key;    /* "lu.nb" */
    const char *value;
    const char *where;  /* "command line --nb", for messages */
} hyt_cli_set_t;

typedef struct hyt_cli_config {
    int use_tuned;                /* look for a tuned file */
    const char *config_file;      /* --config FILE or NULL */
    const hyt_cli_set_t *set;     /* command-line settings, applied in order */
    int nset;
    int quiet;                    /* no note about an ignored tuned file */
    char *tuned_path;             /* out: the tuned file applied (malloc'ed) or NULL */
} hyt_cli_config_t;

/* Builds the configuration.  On error *cfg is NULL and hyt_last_error() names the file:line,
 * the variable or the option. */
int hyt_cli_build_config(hyt_cli_config_t *c, hyt_config_t **cfg);
/* Registers the [hpl] keys (app/hpl_keys.c; idempotent, also done when the program loads). */
int hyt_hpl_register_keys(void);

/* ---------------------------------------------------------------------------------------------
 * The machine, as recorded in tuned files:
 *   "<CPU model> | <N> cores | <GPUs, e.g. 2 x NVIDIA H100 80GB HBM3, or 'no GPU'>"
 * CPU model from /proc/cpuinfo, cores = physical cores this process may run on, GPUs from the
 * CUDA driver when libcuda is present (whether or not hytile was built with CUDA).
 */
typedef struct hyt_machine {
    char *cpu;                 /* model name */
    int cores;                 /* physical cores in this process's affinity mask */
    int ngpus;
    char **gpus;               /* model of each GPU */
    unsigned long long memory; /* physical memory in bytes */
    char *line;                /* the one-line description above (at most 170 characters) */
} hyt_machine_t;

int hyt_machine_describe(hyt_machine_t *m);
void hyt_machine_free(hyt_machine_t *m);
/* The machine a tuned file records (its "; machine: " line): *machine malloc'ed, or NULL when
 * the file has no such line.  HYT_ERR_CONFIG when the file cannot be read. */
int hyt_tuned_machine(const char *path, char **machine);
/* The context's devices: "gpu0 (NVIDIA H100 ...), gpu1 (...)" or "none (CPU only)", malloc'ed
 * (NULL when out of memory). */
char *hyt_cli_device_names(hyt_context_t *ctx);
/* printf into a malloc'ed string, or NULL when out of memory. */
char *hyt_cli_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Physical memory in bytes (not the available memory: page cache makes that misleading). */
double hyt_cli_phys_mem(void);

/* ---------------------------------------------------------------------------------------------
 * Output files.  The path the user gave is written through: a symlink is followed; a regular
 * file (or a new one) is written under a temporary name beside it and renamed over it when
 * complete, keeping an existing file's permissions, so that a failed or interrupted write never
 * leaves a partial file; a device node or a FIFO (/dev/null, a named pipe) is opened and written
 * in place; "-" is standard output.
 */
typedef struct hyt_cli_file {
    FILE *f;          /* the stream to write (NULL after hyt_cli_file_close) */
    const char *name; /* the file a library writer may write itself (tmp or target) */
    const char *path; /* as given, for messages */
    char *tmp;        /* temporary file renamed over target, or NULL (written in place) */
    char *target;
    int is_stdout;
} hyt_cli_file_t;

int hyt_cli_file_open(hyt_cli_file_t *o, const char *path);
/* Closes the stream only (for a library writer that writes o->name itself). */
int hyt_cli_file_close(hyt_cli_file_t *o);
/* Closes (checking for write errors) and renames; on failure the temporary file is removed. */
int hyt_cli_file_commit(hyt_cli_file_t *o);
void hyt_cli_file_discard(hyt_cli_file_t *o);
/* Whether a file can be written at path, tried (a temporary file created and removed beside a
 * regular file, write permission on a device node), so that a long run does not end with an
 * output that cannot be written. */
int hyt_cli_check_writable(const char *path);
/* A benchmark's trace file (--trace FILE): a file name, not "-" (the trace is not written to
 * standard output), that hyt_cli_check_writable accepts; 0, or -1 after printing
 * "CMD: OPT: ..." (call it before anything runs). */
int hyt_cli_check_trace(const char *cmd, const char *opt, const char *path);
/* Whether writing path again replaces what was written (a regular or new file), unlike
 * standard output, a FIFO or a device, where a second write would follow the first. */
int hyt_cli_file_rewritable(const char *path);

/* For an output written to standard output ("-"): points standard output at standard error,
 * so that the lines meant for people do not mix with the file, and returns the real standard
 * output (-1 when it cannot: then nothing changed); hyt_cli_stdout_restore(saved) puts it back
 * (nothing for -1). */
int hyt_cli_stdout_divert(void);
void hyt_cli_stdout_restore(int saved);

/* JSON values: a string with escapes (null for NULL), a number (null unless finite). */
void hyt_json_str(FILE *f, const char *s);
void hyt_json_num(FILE *f, double v);
/* The current date and time, ISO 8601 in UTC ("2025-01-31T12:00:00Z"); buf of 32 bytes. */
void hyt_cli_date(char *buf, size_t len);

/* SVG Gantt chart of the context's recorded trace: one row per track, a box per task coloured
 * by category, a time axis in ms, a legend and the title. */
int hyt_write_svg_gantt(hyt_context_t *ctx, const char *path, const char *title);

/* ---------------------------------------------------------------------------------------------
 * The HPL run (hpl_run.c).  HPL's n x (n+1) system [A b] of a seed, A in tiles of nb.
 */
typedef struct hyt_hpl_ws {
    hyt_context_t *ctx;
    int n, nb;
    hyt_desc_t A, B;   /* B: n x 1, b then x */
    int *ipiv;
    double *b, *x, *r; /* copy of b, the solution, the residual */
} hyt_hpl_ws_t;

typedef struct hyt_hpl_result {
    double seconds;    /* factorization + solve */
    double gflops;     /* HPL's count: (2/3 n^3 + 3/2 n^2) / seconds */
    double residual;   /* ||Ax-b||_oo / (eps (||A||_oo ||x||_oo + ||b||_oo) n); NaN if none */
    double rnorm, anorm, xnorm, bnorm;
    int info;          /* > 0: U(info,info) is exactly zero (singular) */
    int passed;        /* residual < threshold (NaN fails) and info == 0 */
} hyt_hpl_result_t;

enum { HYT_HPL_PROGRESS = 1, HYT_HPL_TRACE = 2 };

/* Host bytes a run of size n with tiles of nb allocates. */
double hyt_hpl_bytes(int n, int nb);
int hyt_hpl_ws_create(hyt_context_t *ctx, int n, int nb, hyt_hpl_ws_t *ws);
void hyt_hpl_ws_destroy(hyt_hpl_ws_t *ws);
/* One run with the context's LU parameters (lu.*): generates the system, factors and solves it
 * (timed; traced with HYT_HPL_TRACE; progress on stderr with HYT_HPL_PROGRESS), regenerates A
 * and computes HPL's residual.  Returns 0 when the run completed (see res->passed), else the
 * library's error code with hyt_last_error() saying what went wrong. */
int hyt_hpl_solve(hyt_hpl_ws_t *ws, int seed, double threshold, int flags,
                  hyt_hpl_result_t *res);
/* The same run with A and b generated, factored, solved and checked on the context's devices
 * (hpl_dmat.c): no host copy of A; the LU's parameters from lu.* with panels on the devices. */
int hyt_hpl_solve_dmat(hyt_context_t *ctx, int n, int nb, int seed, double threshold, int flags,
                       hyt_hpl_result_t *res);
/* The largest order, a multiple of step and at most n, whose run that way fits in the devices'
 * available memory with the tile size hyt_lu_params gives for it (0: none). */
int hyt_hpl_dmat_max_n(hyt_context_t *ctx, int n, int step);
/* Whether hytile hpl runs that way: with CUDA GPUs (host devices and CPUs keep the host run). */
int hyt_hpl_on_devices(hyt_context_t *ctx);
/* HPL's T/V column: "HYL<lookahead>P<panel cores>G<devices>". */
void hyt_hpl_tv(char *buf, size_t len, int lookahead, int panel_cores, int ndevices);

/* The commands, with their argument parsing exposed for the tests. */
typedef struct hyt_hpl_opts {
    hyt_cli_set_t *set;      /* command-line settings (argc entries at most) */
    int nset;
    char *sizes;             /* the -n values joined with ',' (malloc'ed) or NULL */
    int have_nb, have_lookahead;
    const char *config_file, *hpl_dat, *json, *trace;
    int quiet, help;
} hyt_hpl_opts_t;
/* 0, or HYT_EXIT_USAGE after a message. */
int hyt_hpl_parse_args(int argc, char **argv, hyt_hpl_opts_t *o);
void hyt_hpl_opts_free(hyt_hpl_opts_t *o);
/* hpl.n = auto: the size that takes about `seconds` at the estimated rate (GFLOP/s out) and fits
 * in host memory (40%) or, with CUDA GPUs, in their memory (the matrix at most
 * hpl.memory_fraction of the smallest device's available memory, over the devices; and the
 * factorization's and the solve's workspaces beside it: hyt_hpl_dmat_max_n). */
int hyt_hpl_auto_n(hyt_context_t *ctx, double seconds, double *gflops_estimate);

#endif
