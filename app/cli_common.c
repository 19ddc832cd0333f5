/*
 * Shared pieces of the hytile commands: option parsing, the configuration with its sources and
 * the tuned file, the machine description, output files written whole or not at all, JSON.
 */
#include "cli_common.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* options                                                                                     */

int hyt_cli_next(hyt_cli_args_t *a, const hyt_cli_opt_t *opts, const char **value)
{
    *value = NULL;
    if (a->i >= a->argc)
        return -1;
    const char *arg = a->argv[a->i++];
    if (arg[0] != '-' || arg[1] == '\0') {
        fprintf(stderr, "%s: unexpected argument '%s' (%s --help lists the options)\n", a->cmd,
                arg, a->cmd);
        return -2;
    }
    /* the option's name and an inline value: --name=value, -xvalue */
    size_t len;
    const char *inline_value = NULL;
    if (arg[1] == '-') {
        const char *eq = strchr(arg, '=');
        len = eq ? (size_t)(eq - arg) : strlen(arg);
        inline_value = eq ? eq + 1 : NULL;
    } else {
        len = 2;
        inline_value = arg[2] ? arg + 2 : NULL;
    }
    int k;
    for (k = 0; opts[k].name; k++)
        if (strlen(opts[k].name) == len && strncmp(opts[k].name, arg, len) == 0)
            break;
    if (!opts[k].name) {
        fprintf(stderr, "%s: unknown option '%.*s' (%s --help lists the options)\n", a->cmd,
                (int)len, arg, a->cmd);
        return -2;
    }
    if (!opts[k].has_value) {
        if (inline_value) {
            fprintf(stderr, "%s: option %s takes no value\n", a->cmd, opts[k].name);
            return -2;
        }
        return k;
    }
    if (inline_value) {
        *value = inline_value;
    } else if (a->i < a->argc && strncmp(a->argv[a->i], "--", 2) != 0) {
        *value = a->argv[a->i++];
    } else {
        fprintf(stderr, "%s: option %s needs a value\n", a->cmd, opts[k].name);
        return -2;
    }
    return k;
}

int hyt_cli_int(const char *cmd, const char *opt, const char *text, long min, long max,
                long *out)
{
    const char *p = text + (*text == '-' || *text == '+');
    char *end;
    errno = 0;
    long v = isdigit((unsigned char)*p) ? strtol(text, &end, 10) : 0;
    if (!isdigit((unsigned char)*p) || errno || *end) {
        fprintf(stderr, "%s: %s: '%s' is not a number\n", cmd, opt, text);
        return -1;
    }
    if (v < 0 && min >= 0) {
        fprintf(stderr, "%s: %s: %ld is negative\n", cmd, opt, v);
        return -1;
    }
    if (v < min || v > max) {
        fprintf(stderr, "%s: %s: %ld is out of range %ld..%ld\n", cmd, opt, v, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int hyt_cli_int_list(const char *cmd, const char *opt, const char *text, long min, long max,
                     int *out, int maxn)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        char *item = strndup(p, len);
        if (!item) {
            fprintf(stderr, "%s: out of memory\n", cmd);
            return -1;
        }
        long v;
        int bad = n == maxn || hyt_cli_int(cmd, opt, item, min, max, &v);
        if (n == maxn)
            fprintf(stderr, "%s: %s: more than %d values\n", cmd, opt, maxn);
        free(item);
        if (bad)
            return -1;
        out[n++] = (int)v;
        if (!p[len])
            return n;
        p += len + 1;
    }
}

int hyt_cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

int hyt_cli_set_int(hyt_context_t *ctx, const char *key, long v, const char *cmd)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%ld", v);
    int rc = hyt_context_set(ctx, key, buf);
    if (rc && cmd)
        fprintf(stderr, "%s: %s\n", cmd, hyt_last_error());
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* the machine                                                                                 */

#define MACHINE_LINE_MAX 170 /* the tuned file's comment stays below inih's 200-byte lines */

double hyt_cli_phys_mem(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

/* Value of a "key<blanks>: value" line of /proc/cpuinfo when the line has that key. */
static const char *cpuinfo_value(const char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0)
        return NULL;
    line += n;
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != ':')
        return NULL;
    line++;
    while (*line == ' ' || *line == '\t')
        line++;
    return line;
}

/* A copy of s with control characters as spaces, runs of spaces as one, no blanks at the ends
 * ("Intel(R) Xeon(R) CPU     E5-2680" comes out with single spaces). */
static char *tidy(const char *s)
{
    char *t = malloc(strlen(s) + 1), *q = t;
    if (!t)
        return NULL;
    for (; *s; s++) {
        char c = iscntrl((unsigned char)*s) ? ' ' : *s;
        if (c == ' ' && (q == t || q[-1] == ' '))
            continue;
        *q++ = c;
    }
    while (q > t && q[-1] == ' ')
        q--;
    *q = '\0';
    return t;
}

/* CPU model and the physical cores (distinct physical id / core id pairs) of the processors
 * this process may run on. */
static int read_cpuinfo(hyt_machine_t *m)
{
    cpu_set_t allowed;
    int have_mask = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    long *pairs = NULL;
    int npairs = 0, cappairs = 0, nproc = 0, rc = 0;
    long proc = -1, phys = 0, core = -1;
    char *line = NULL;
    size_t cap = 0;
    for (int done = !f; !done;) {
        ssize_t len = getline(&line, &cap, f);
        const char *v;
        done = len < 0;
        if (done || (v = cpuinfo_value(line, "processor"))) {
            /* the end of a processor's block */
            if (proc >= 0 && (!have_mask || proc >= CPU_SETSIZE || CPU_ISSET(proc, &allowed))) {
                nproc++;
                long key = core >= 0 ? phys * 100000 + core : -1;
                int seen = key < 0;
                for (int i = 0; i < npairs && !seen; i++)
                    seen = pairs[i] == key;
                if (!seen) {
                    if (npairs == cappairs) {
                        cappairs = cappairs ? 2 * cappairs : 64;
                        long *p = realloc(pairs, (size_t)cappairs * sizeof *p);
                        if (!p) {
                            rc = hyt_error(HYT_ERR_NOMEM, "out of memory reading /proc/cpuinfo");
                            break;
                        }
                        pairs = p;
                    }
                    pairs[npairs++] = key;
                }
            }
            if (!done)
                proc = atol(v);
            phys = 0;
            core = -1;
        } else if ((v = cpuinfo_value(line, "physical id"))) {
            phys = atol(v);
        } else if ((v = cpuinfo_value(line, "core id"))) {
            core = atol(v);
        } else if (!m->cpu && (v = cpuinfo_value(line, "model name"))) {
            m->cpu = tidy(v);
            if (!m->cpu)
                rc = hyt_error(HYT_ERR_NOMEM, "out of memory reading /proc/cpuinfo");
        }
    }
    free(line);
    free(pairs);
    if (f)
        fclose(f);
    m->cores = npairs ? npairs : nproc;
    if (m->cores <= 0)
        m->cores = have_mask ? CPU_COUNT(&allowed) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (!rc && !m->cpu && !(m->cpu = strdup("unknown CPU")))
        rc = hyt_error(HYT_ERR_NOMEM, "out of memory");
    return rc;
}

/* GPU models from the CUDA driver, when there is one (libcuda stays loaded: unloading the
 * driver library after cuInit is not safe). */
static int read_gpus(hyt_machine_t *m)
{
    typedef int (*init_fn)(unsigned);
    typedef int (*count_fn)(int *);
    typedef int (*get_fn)(int *, int);
    typedef int (*name_fn)(char *, int, int);
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 0;
    init_fn init = (init_fn)dlsym(h, "cuInit");
    count_fn count = (count_fn)dlsym(h, "cuDeviceGetCount");
    get_fn get = (get_fn)dlsym(h, "cuDeviceGet");
    name_fn name = (name_fn)dlsym(h, "cuDeviceGetName");
    int n = 0;
    if (!init || !count || !get || !name || init(0) != 0 || count(&n) != 0 || n <= 0)
        return 0;
    m->gpus = calloc((size_t)n, sizeof *m->gpus);
    if (!m->gpus)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        char buf[256];
        int dev;
        if (get(&dev, i) != 0 || name(buf, (int)sizeof buf, dev) != 0)
            snprintf(buf, sizeof buf, "unknown GPU");
        buf[sizeof buf - 1] = '\0';
        m->gpus[i] = tidy(buf);
        if (!m->gpus[i])
            return hyt_error(HYT_ERR_NOMEM, "out of memory");
        m->ngpus = i + 1;
    }
    return 0;
}

/* "<cpu> | <n> cores | <k> x <gpu>, ..." with identical GPUs counted together. */
static int machine_line(hyt_machine_t *m)
{
    char *text = NULL;
    size_t size = 0;
    FILE *s = open_memstream(&text, &size);
    if (!s)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    fprintf(s, "%s | %d cores | ", m->cpu, m->cores);
    if (!m->ngpus)
        fprintf(s, "no GPU");
    for (int i = 0, listed = 0; i < m->ngpus; i++) {
        int first = 1, same = 0;
        for (int j = 0; j < m->ngpus; j++)
            if (strcmp(m->gpus[i], m->gpus[j]) == 0) {
                first &= j >= i;
                same++;
            }
        if (first)
            fprintf(s, "%s%d x %s", listed++ ? ", " : "", same, m->gpus[i]);
    }
    if (fclose(s) || !text) {
        free(text);
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    }
    if (strlen(text) > MACHINE_LINE_MAX)
        text[MACHINE_LINE_MAX] = '\0';
    m->line = text;
    return 0;
}

int hyt_machine_describe(hyt_machine_t *m)
{
    memset(m, 0, sizeof *m);
    int rc = read_cpuinfo(m);
    if (!rc)
        rc = read_gpus(m);
    if (!rc)
        rc = machine_line(m);
    m->memory = (unsigned long long)hyt_cli_phys_mem();
    if (rc)
        hyt_machine_free(m);
    return rc;
}

void hyt_machine_free(hyt_machine_t *m)
{
    free(m->cpu);
    for (int i = 0; i < m->ngpus; i++)
        free(m->gpus[i]);
    free(m->gpus);
    free(m->line);
    memset(m, 0, sizeof *m);
}

int hyt_tuned_machine(const char *path, char **machine)
{
    static const char tag[] = "; machine: ";
    *machine = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return hyt_error(HYT_ERR_CONFIG, "%s: cannot open tuned settings: %s", path,
                         strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (getline(&line, &cap, f) >= 0) {
        if (strncmp(line, tag, sizeof tag - 1) == 0) {
            size_t len = strlen(line);
            while (len > 0 && isspace((unsigned char)line[len - 1]))
                line[--len] = '\0';
            *machine = strdup(line + sizeof tag - 1);
            if (!*machine)
                rc = hyt_error(HYT_ERR_NOMEM, "out of memory");
            break;
        }
    }
    if (!rc && ferror(f))
        rc = hyt_error(HYT_ERR_CONFIG, "%s: read error", path);
    free(line);
    fclose(f);
    return rc;
}

/* printf into a malloc'ed string. */
char *hyt_cli_strdupf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : s;
}

/* The context's devices by name. */
char *hyt_cli_device_names(hyt_context_t *ctx)
{
    char *text = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&text, &len);
    if (!s)
        return NULL;
    int nd = hyt_context_num_devices(ctx);
    for (int d = 0; d < nd; d++)
        fprintf(s, "%s%s", d ? ", " : "", hyt_device_name(hyt_context_device(ctx, d)));
    if (!nd)
        fputs("none (CPU only)", s);
    if (fclose(s)) {
        free(text);
        return NULL;
    }
    return text;
}

/* ------------------------------------------------------------------------------------------ */
/* configuration                                                                               */

/* Applies the tuned file when there is one for this machine. */
static int load_tuned(hyt_cli_config_t *c, hyt_config_t *cfg)
{
    const char *env = getenv("HYT_TUNED"), *home = getenv("HOME");
    char *path = NULL;
    if (env && *env) {
        /* named explicitly: it must exist */
        if (access(env, R_OK))
            return hyt_error(HYT_ERR_CONFIG, "HYT_TUNED=%s: cannot read it: %s", env,
                             strerror(errno));
        path = strdup(env);
    } else {
        if (!home || !*home)
            return 0;
        if (asprintf(&path, "%s/.config/hytile/tuned.ini", home) < 0)
            path = NULL;
        else if (access(path, F_OK)) {
            free(path);
            return 0;
        }
    }
    if (!path)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    char *recorded = NULL;
    hyt_machine_t m;
    int rc = hyt_tuned_machine(path, &recorded);
    if (!rc)
        rc = hyt_machine_describe(&m);
    if (rc) {
        free(path);
        free(recorded);
        return rc;
    }
    if (!recorded || strcmp(recorded, m.line) != 0) {
        if (!c->quiet) {
            if (recorded)
                fprintf(stderr, "hytile: ignoring the tuned settings in %s: they were measured "
                        "on \"%s\", this machine is \"%s\"\n", path, recorded, m.line);
            else
                fprintf(stderr, "hytile: ignoring the tuned settings in %s: the file does not "
                        "record the machine (no \"; machine: \" line)\n", path);
        }
        free(path);
    } else {
        rc = hyt_config_load_file(cfg, path, HYT_SRC_TUNED);
        if (rc)
            free(path);
        else
            c->tuned_path = path;
    }
    free(recorded);
    hyt_machine_free(&m);
    return rc;
}

int hyt_cli_build_config(hyt_cli_config_t *c, hyt_config_t **out)
{
    hyt_config_t *cfg;
    *out = NULL;
    c->tuned_path = NULL;
    int rc = hyt_hpl_register_keys();
    if (!rc)
        rc = hyt_config_create(&cfg);
    if (rc)
        return rc;
    if (c->use_tuned)
        rc = load_tuned(c, cfg);
    if (!rc)
        rc = hyt_config_load_env(cfg);
    if (!rc && c->config_file)
        rc = hyt_config_load_file(cfg, c->config_file, HYT_SRC_FILE);
    for (int i = 0; i < c->nset && !rc; i++)
        rc = hyt_config_set(cfg, c->set[i].key, c->set[i].value, HYT_SRC_API, c->set[i].where);
    if (rc) {
        hyt_config_destroy(cfg);
        free(c->tuned_path);
        c->tuned_path = NULL;
        return rc;
    }
    *out = cfg;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* output files                                                                                */

/* What a path names, following symlinks: a regular file (or nothing yet: a new file), written
 * under a temporary name in the real file's directory and renamed over it; anything else that
 * is not a directory (a device node, a FIFO) is written in place.  *target: the path to rename
 * over (the symlink's final target), malloc'ed; *mode: the existing file's permissions, or -1. */
static int resolve_target(const char *path, char **target, int *direct, int *mode)
{
    struct stat st;
    *target = NULL;
    *direct = 0;
    *mode = -1;
    if (!*path)
        return hyt_error(HYT_ERR_SYSTEM, "empty output file name");
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return hyt_error(HYT_ERR_SYSTEM, "cannot write %s: it is a directory", path);
        if (S_ISREG(st.st_mode)) {
            *target = realpath(path, NULL);
            *mode = (int)(st.st_mode & 07777);
        } else {
            *target = strdup(path);
            *direct = 1;
        }
    } else if (errno == ENOENT && lstat(path, &st) == 0) {
        /* a symlink to nothing yet: create its target in place */
        *target = strdup(path);
        *direct = 1;
    } else if (errno == ENOENT) {
        *target = strdup(path);
    } else {
        return hyt_error(HYT_ERR_SYSTEM, "cannot write %s: %s", path, strerror(errno));
    }
    if (!*target)
        return hyt_error(HYT_ERR_SYSTEM, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* Creates the temporary file beside target; returns its descriptor or -1 with errno set. */
static int make_tmp(const char *target, char **tmp)
{
    if (asprintf(tmp, "%s.tmp-XXXXXX", target) < 0) {
        *tmp = NULL;
        errno = ENOMEM;
        return -1;
    }
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        int e = errno;
        free(*tmp);
        *tmp = NULL;
        errno = e;
    }
    return fd;
}

static void file_clear(hyt_cli_file_t *o)
{
    free(o->tmp);
    free(o->target);
    memset(o, 0, sizeof *o);
}

int hyt_cli_file_open(hyt_cli_file_t *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        o->is_stdout = 1;
        o->path = path;
        o->name = "/dev/stdout";
        return 0;
    }
    int direct, mode, fd, rc;
    rc = resolve_target(path, &o->target, &direct, &mode);
    if (rc)
        return rc;
    o->path = path;
    if (direct) {
        fd = open(o->target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    } else {
        fd = make_tmp(o->target, &o->tmp);
        if (fd >= 0) {
            /* mkstemp makes 0600: keep the replaced file's permissions, else the umask's */
            mode_t mask = umask(0);
            umask(mask);
            fchmod(fd, mode >= 0 ? (mode_t)mode : 0666 & ~mask);
        }
    }
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        rc = hyt_error(HYT_ERR_SYSTEM, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (o->tmp)
            unlink(o->tmp);
        file_clear(o);
        return rc;
    }
    o->name = o->tmp ? o->tmp : o->target;
    return 0;
}

int hyt_cli_file_close(hyt_cli_file_t *o)
{
    if (!o->f)
        return 0;
    int bad = ferror(o->f);
    if (o->is_stdout)
        bad |= fflush(o->f) != 0;
    else
        bad |= fclose(o->f) != 0;
    o->f = NULL;
    return bad ? hyt_error(HYT_ERR_SYSTEM, "cannot write %s: %s", o->path, strerror(errno)) : 0;
}

int hyt_cli_file_commit(hyt_cli_file_t *o)
{
    int rc = hyt_cli_file_close(o);
    if (!rc && o->tmp && rename(o->tmp, o->target))
        rc = hyt_error(HYT_ERR_SYSTEM, "cannot write %s: %s", o->path, strerror(errno));
    if (rc && o->tmp)
        unlink(o->tmp);
    file_clear(o);
    return rc;
}

void hyt_cli_file_discard(hyt_cli_file_t *o)
{
    if (o->f && !o->is_stdout)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    file_clear(o);
}

int hyt_cli_file_rewritable(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && (stat(path, &st) ? errno == ENOENT : S_ISREG(st.st_mode));
}

int hyt_cli_check_writable(const char *path)
{
    if (strcmp(path, "-") == 0)
        return 0;
    char *target, *tmp = NULL;
    int direct, mode;
    int rc = resolve_target(path, &target, &direct, &mode);
    if (rc)
        return rc;
    if (direct) {
        /* a device node or a FIFO, opened only when written (a FIFO waits for a reader);
         * or a symlink to nothing yet, whose target must be creatable */
        struct stat st;
        int fd = -1;
        if (stat(target, &st) == 0 ? access(target, W_OK) != 0
                                   : (fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                                                0666)) < 0)
            rc = hyt_error(HYT_ERR_SYSTEM, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(target);
        }
    } else {
        /* try it: access() says yes to root in /proc or on a read-only file system */
        int fd = make_tmp(target, &tmp);
        if (fd < 0) {
            char *copy = strdup(target);
            rc = hyt_error(HYT_ERR_SYSTEM, "cannot write %s: directory %s: %s", path,
                           copy ? dirname(copy) : "?", strerror(errno));
            free(copy);
        } else {
            close(fd);
            unlink(tmp);
        }
    }
    free(tmp);
    free(target);
    return rc;
}

int hyt_cli_check_trace(const char *cmd, const char *opt, const char *path)
{
    if (strcmp(path, "-") == 0) {
        fprintf(stderr, "%s: %s -: a trace is written to a file, not standard output; give a "
                "file name\n", cmd, opt);
        return -1;
    }
    if (hyt_cli_check_writable(path)) {
        fprintf(stderr, "%s: %s: %s\n", cmd, opt, hyt_last_error());
        return -1;
    }
    return 0;
}

int hyt_cli_stdout_divert(void)
{
    fflush(stdout);
    int saved = dup(1);
    if (saved >= 0 && dup2(2, 1) < 0) {
        close(saved);
        saved = -1;
    }
    return saved;
}

void hyt_cli_stdout_restore(int saved)
{
    if (saved < 0)
        return;
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
}

/* ------------------------------------------------------------------------------------------ */
/* JSON, dates                                                                                 */

void hyt_json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void hyt_json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputs("null", f);
}

void hyt_cli_date(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, len, "unknown");
}
