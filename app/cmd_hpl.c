/*
 * hytile hpl: HPL's benchmark run with hytile.  Generates HPL's matrix and right-hand side
 * (HPL's generator and seed), factors and solves (CPU only or hybrid, as configured), checks the
 * solution with HPL's scaled residual and prints HPL's own result lines.
 *
 *   hytile hpl [-n N[,N...]] [--nb NB] [--lookahead L] [--panel-cores P] [--devices SPEC]
 *              [--cores SPEC] [--config FILE] [--hpl-dat FILE] [--seed S] [--json FILE]
 *              [--trace FILE] [--quiet]
 *
 * The flow: parse the options, read HPL.dat, build the configuration (command line >
 * environment > config file > tuned file > compiled default), create the context, plan the runs
 * (every N x NB x DEPTH, as HPL) and check that each fits in memory, print the effective
 * configuration, run, write the JSON results.  Bad input of any kind is found before anything
 * runs: exit status 2 and no file written.  Exit status 1 when a run fails its check.
 *
 * This file also holds the HPL run itself (hyt_hpl_solve), which `hytile tune` times too.
 */
#include "cli_common.h"
#include "config.h"
#include "hpl_dat.h"
#include "hytile_cli.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CMD "hytile hpl"
#define MAX_SIZES 64 /* hpl.n's limit */

static const char rule_eq[] =
    "================================================================================";
static const char rule_dash[] =
    "--------------------------------------------------------------------------------";
static const char resid_label[] = "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)";

/* ------------------------------------------------------------------------------------------ */
/* progress on stderr while a run factors                                                      */

typedef struct progress {
    hyt_context_t *ctx;
    double n, t0;
    int tty;
    int shown;          /* a live line is on the terminal */
    double last_plain;  /* elapsed time of the last plain line */
    int stop;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t thread;
} progress_t;

/* "step k/kt  elapsed ...  rate ...  ETA ..." from the panels done: after a fraction f of the
 * steps, the flops left are those of the trailing (n(1-f))^2 matrix. */
static void progress_line(progress_t *p, long k, long kt, double elapsed, char *buf, size_t len)
{
    double total = 2.0 / 3.0 * p->n * p->n * p->n;
    double left_n = p->n * (1.0 - (double)k / (double)kt);
    double left = 2.0 / 3.0 * left_n * left_n * left_n, done = total - left;
    if (done > 0 && elapsed > 0)
        snprintf(buf, len, "step %ld/%ld  elapsed %.1f s  rate %.1f GFLOP/s  ETA %.1f s", k, kt,
                 elapsed, done / elapsed * 1e-9, left / (done / elapsed));
    else
        snprintf(buf, len, "step %ld/%ld  elapsed %.1f s", k, kt, elapsed);
}

static void *progress_main(void *arg)
{
    progress_t *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 500000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cond, &p->lock, &ts);
        if (p->stop)
            break;
        long done, total;
        hyt_progress_get(p->ctx, &done, &total);
        double elapsed = hyt_wtime() - p->t0;
        if (total <= 0)
            continue; /* the factorization has not started counting */
        char line[160];
        progress_line(p, done, total, elapsed, line, sizeof line);
        if (p->tty) {
            fprintf(stderr, "\r  %s\033[K", line);
            p->shown = 1;
        } else if (elapsed - p->last_plain >= 10.0) {
            fprintf(stderr, "%s: N = %.0f: %s\n", CMD, p->n, line);
            p->last_plain = elapsed;
        }
    }
    if (p->shown)
        fputs("\r\033[K", stderr); /* leave the terminal line clean for the results */
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static int progress_start(progress_t *p, hyt_context_t *ctx, int n, double t0)
{
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->n = n;
    p->t0 = t0;
    p->tty = isatty(2);
    hyt_progress_reset(ctx, 0);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    if (pthread_create(&p->thread, NULL, progress_main, p)) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->cond);
        return -1; /* no progress display; the run goes on */
    }
    return 0;
}

static void progress_stop(progress_t *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
}

/* ------------------------------------------------------------------------------------------ */
/* the HPL run                                                                                 */

double hyt_hpl_bytes(int n, int nb)
{
    double mt = ceil((double)n / nb);
    return (mt * mt + mt) * nb * (double)nb * sizeof(double) /* A and B in tiles */
           + (double)n * (3 * sizeof(double) + sizeof(int));  /* b, x, r, ipiv */
}

int hyt_hpl_ws_create(hyt_context_t *ctx, int n, int nb, hyt_hpl_ws_t *ws)
{
    memset(ws, 0, sizeof *ws);
    ws->ctx = ctx;
    ws->n = n;
    ws->nb = nb;
    int rc = hyt_desc_create(ctx, n, n, nb, &ws->A);
    if (!rc)
        rc = hyt_desc_create(ctx, n, 1, nb, &ws->B);
    ws->ipiv = malloc((size_t)n * sizeof *ws->ipiv);
    ws->b = malloc((size_t)n * sizeof *ws->b);
    ws->x = malloc((size_t)n * sizeof *ws->x);
    ws->r = malloc((size_t)n * sizeof *ws->r);
    if (rc || !ws->ipiv || !ws->b || !ws->x || !ws->r) {
        hyt_hpl_ws_destroy(ws);
        return hyt_error(rc == HYT_ERR_TOO_LARGE ? rc : HYT_ERR_NOMEM,
                         "not enough memory for N = %d (%.1f GiB)", n,
                         hyt_hpl_bytes(n, nb) / (1 << 30));
    }
    return 0;
}

void hyt_hpl_ws_destroy(hyt_hpl_ws_t *ws)
{
    hyt_desc_destroy(&ws->A);
    hyt_desc_destroy(&ws->B);
    free(ws->ipiv);
    free(ws->b);
    free(ws->x);
    free(ws->r);
    memset(ws, 0, sizeof *ws);
}

/* The n x 1 tile matrix B into a plain vector. */
static void column_of(const hyt_desc_t *B, double *v)
{
    for (int i = 0; i < B->mt; i++)
        memcpy(v + (size_t)i * B->nb, hyt_tile(B, i, 0), (size_t)hyt_tile_mb(B, i) * sizeof *v);
}

static double max_abs(const double *v, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        if (isnan(v[i]) || fabs(v[i]) > m)
            m = isnan(v[i]) ? v[i] : fabs(v[i]);
    return m;
}

int hyt_hpl_solve(hyt_hpl_ws_t *ws, int seed, double threshold, int flags,
                  hyt_hpl_result_t *res)
{
    hyt_context_t *ctx = ws->ctx;
    const int n = ws->n;
    hyt_sequence_t *seq;
    memset(res, 0, sizeof *res);
    res->residual = NAN;

    // generate A = columns 0..n-1 and b = column n of HPL's n x (n+1) matrix
    int rc = hyt_sequence_create(ctx, &seq);
    if (rc)
        return rc;
    rc = hyt_dplghpl_tile_async(seq, &ws->A, 0, seed);
    if (!rc)
        rc = hyt_dplghpl_tile_async(seq, &ws->B, n, seed);
    if ((rc = hyt_sequence_finish(seq, rc)))
        return rc;
    column_of(&ws->B, ws->b);

    // factor and solve, timed (and traced)
    progress_t prog;
    int show = (flags & HYT_HPL_PROGRESS) != 0;
    int info = 0;
    double t0 = hyt_wtime();
    if (show && progress_start(&prog, ctx, n, t0))
        show = 0;
    if (flags & HYT_HPL_TRACE)
        hyt_trace_start(ctx, 0);
    rc = hyt_sequence_create(ctx, &seq);
    if (!rc) {
        rc = hyt_dgetrf_tile_async(seq, &ws->A, ws->ipiv, &info);
        if (!rc)
            rc = hyt_dgetrs_tile_async(seq, 'N', &ws->A, ws->ipiv, &ws->B);
        rc = hyt_sequence_finish(seq, rc);
    }
    res->seconds = hyt_wtime() - t0;
    if (flags & HYT_HPL_TRACE)
        hyt_trace_stop(ctx);
    if (show)
        progress_stop(&prog);
    if (rc)
        return rc;
    res->info = info;
    double nn = n;
    res->gflops = (2.0 / 3.0 * nn * nn * nn + 1.5 * nn * nn) / res->seconds * 1e-9;
    column_of(&ws->B, ws->x);

    // r = b - A x with A regenerated, ||A||_oo
    memcpy(ws->r, ws->b, (size_t)n * sizeof *ws->r);
    if ((rc = hyt_sequence_create(ctx, &seq)))
        return rc;
    rc = hyt_dplghpl_tile_async(seq, &ws->A, 0, seed);
    if (!rc)
        rc = hyt_dgemv_tile_async(seq, -1.0, &ws->A, ws->x, 1.0, ws->r);
    if (!rc)
        rc = hyt_dlange_tile_async(seq, 'I', &ws->A, &res->anorm);
    if ((rc = hyt_sequence_finish(seq, rc)))
        return rc;
    res->rnorm = max_abs(ws->r, n);
    res->xnorm = max_abs(ws->x, n);
    res->bnorm = max_abs(ws->b, n);
    res->residual = res->rnorm / (DBL_EPSILON * (res->anorm * res->xnorm + res->bnorm) * nn);
    res->passed = info == 0 && res->residual < threshold; /* NaN compares false */
    return 0;
}

void hyt_hpl_tv(char *buf, size_t len, int lookahead, int panel_cores, int ndevices)
{
    snprintf(buf, len, "HYL%dP%dG%d", lookahead, panel_cores, ndevices);
}

int hyt_hpl_auto_n(hyt_context_t *ctx, double seconds, double *gflops_estimate)
{
    int ncuda = 0;
    double devmem = INFINITY;
    for (int d = 0; d < hyt_context_num_devices(ctx); d++) {
        hyt_device_t *dev = hyt_context_device(ctx, d);
        if (hyt_device_backend(dev) != HYT_BACKEND_CUDA)
            continue; /* host devices compute at CPU speed */
        ncuda++;
        double avail = (double)hyt_device_mem_available(dev);
        devmem = avail < devmem ? avail : devmem;
    }
    double rate = ncuda ? 30e12 * ncuda : 25e9 * hyt_context_num_workers(ctx);
    double n = cbrt(1.5 * rate * seconds); /* (2/3) n^3 / rate = seconds */
    /* with CUDA GPUs the matrix lives on them (hyt_hpl_solve_dmat): their memory decides */
    const char *fv = hyt_config_get(hyt_context_config(ctx), "hpl.memory_fraction", NULL);
    double frac = fv ? strtod(fv, NULL) : 0.7; /* checked: 0 < frac <= 0.95 */
    double cap = ncuda ? sqrt(frac * devmem * ncuda / sizeof(double))
                       : sqrt(0.4 * hyt_cli_phys_mem() / sizeof(double));
    cap = fmin(cap, 1e7);
    n = fmin(n, cap);
    long N = (long)(n / 256) * 256;
    if (N < 1000)
        N = cap < 1000 ? (long)cap : 1000;
    if (N < 1)
        N = 1;
    *gflops_estimate = rate * 1e-9;
    return (int)N;
}

/* ------------------------------------------------------------------------------------------ */
/* options                                                                                     */

enum { O_N, O_NB, O_LOOKAHEAD, O_PANEL_CORES, O_DEVICES, O_CORES, O_SEED, O_CONFIG, O_HPL_DAT,
       O_JSON, O_TRACE, O_QUIET, O_HELP, O_H };

static const hyt_cli_opt_t options[] = {
    [O_N] = {"-n", 1},           [O_NB] = {"--nb", 1},
    [O_LOOKAHEAD] = {"--lookahead", 1}, [O_PANEL_CORES] = {"--panel-cores", 1},
    [O_DEVICES] = {"--devices", 1}, [O_CORES] = {"--cores", 1},
    [O_SEED] = {"--seed", 1},    [O_CONFIG] = {"--config", 1},
    [O_HPL_DAT] = {"--hpl-dat", 1}, [O_JSON] = {"--json", 1},
    [O_TRACE] = {"--trace", 1},  [O_QUIET] = {"--quiet", 0},
    [O_HELP] = {"--help", 0},    [O_H] = {"-h", 0},
    {NULL, 0}};

/* The configuration key and the "where" of each option that sets one. */
static const struct {
    const char *key, *where;
} option_key[] = {
    [O_N] = {"hpl.n", "command line -n"},
    [O_NB] = {"lu.nb", "command line --nb"},
    [O_LOOKAHEAD] = {"lu.lookahead", "command line --lookahead"},
    [O_PANEL_CORES] = {"lu.panel_cores", "command line --panel-cores"},
    [O_DEVICES] = {"runtime.devices", "command line --devices"},
    [O_CORES] = {"runtime.cores", "command line --cores"},
    [O_SEED] = {"hpl.seed", "command line --seed"},
};

static void usage(FILE *f)
{
    fprintf(f,
        "usage: hytile hpl [options]\n"
        "HPL's benchmark with hytile: HPL's matrix and right-hand side, LU factorization and\n"
        "solve, HPL's scaled residual check and result lines.\n\n"
        "  -n N[,N...]          problem sizes (repeatable; default hpl.n, auto: about\n"
        "                       hpl.seconds per run)\n"
        "  --nb NB              tile size (lu.nb; auto by default)\n"
        "  --lookahead L        lookahead depth (lu.lookahead)\n"
        "  --panel-cores P      cores factoring a panel (lu.panel_cores)\n"
        "  --devices SPEC       none, cuda, cuda:0,1, host:N (runtime.devices)\n"
        "  --cores SPEC         all, a count or a list like 0-7,16 (runtime.cores)\n"
        "  --config FILE        configuration file (INI: [lu] nb = 256 ...)\n"
        "  --hpl-dat FILE       read sizes, NBs, DEPTHs and the threshold from an HPL.dat\n"
        "  --seed S             seed of HPL's generator (hpl.seed, HPL uses 100)\n"
        "  --json FILE          write the configuration and results as JSON (after each run;\n"
        "                       - for standard output, the other lines then go to stderr)\n"
        "  --trace FILE         Chrome/Perfetto trace of each run, and an SVG Gantt chart\n"
        "  --quiet              print only HPL's result lines (and errors)\n\n"
        "Precedence: command line > HYT_* environment > config file (--config, HYT_CONFIG) >\n"
        "tuned file ($HYT_TUNED or ~/.config/hytile/tuned.ini, from hytile tune) > default.\n"
        "Exit status: 0 every run passed, 1 a run failed, 2 bad input (nothing run).\n");
}

void hyt_hpl_opts_free(hyt_hpl_opts_t *o)
{
    free(o->set);
    free(o->sizes);
    memset(o, 0, sizeof *o);
}

/* Appends a -n value to o->sizes ("4000" then "8000" gives "4000,8000"). */
static int add_sizes(hyt_hpl_opts_t *o, const char *value)
{
    size_t old = o->sizes ? strlen(o->sizes) : 0;
    char *s = realloc(o->sizes, old + strlen(value) + 2);
    if (!s)
        return -1;
    if (old)
        s[old++] = ',';
    strcpy(s + old, value);
    o->sizes = s;
    return 0;
}

int hyt_hpl_parse_args(int argc, char **argv, hyt_hpl_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->set = calloc((size_t)argc + 1, sizeof *o->set);
    if (!o->set) {
        fprintf(stderr, "%s: out of memory\n", CMD);
        return HYT_EXIT_USAGE;
    }
    hyt_cli_args_t args = {argc, argv, 1, CMD};
    const char *v;
    int k;
    while ((k = hyt_cli_next(&args, options, &v)) >= 0) {
        long num;
        int sizes_tmp[MAX_SIZES];
        switch (k) {
        case O_N:
            /* numbers, not negative (the configuration checks the range) */
            if (strcmp(v, "auto") != 0 &&
                hyt_cli_int_list(CMD, "-n", v, 0, 2147483647L, sizes_tmp, MAX_SIZES) < 0)
                goto usage;
            if (add_sizes(o, v)) {
                fprintf(stderr, "%s: out of memory\n", CMD);
                goto usage;
            }
            break;
        case O_NB:
        case O_LOOKAHEAD:
        case O_PANEL_CORES:
        case O_SEED:
            if (strcmp(v, "auto") != 0 &&
                hyt_cli_int(CMD, options[k].name, v, 0, 2147483647L, &num))
                goto usage;
            o->have_nb |= k == O_NB;
            o->have_lookahead |= k == O_LOOKAHEAD;
            /* fall through */
        case O_DEVICES:
        case O_CORES:
            o->set[o->nset++] = (hyt_cli_set_t){option_key[k].key, v, option_key[k].where};
            break;
        case O_CONFIG: o->config_file = v; break;
        case O_HPL_DAT: o->hpl_dat = v; break;
        case O_JSON: o->json = v; break;
        case O_TRACE:
            if (strcmp(v, "-") == 0) {
                fprintf(stderr, "%s: --trace -: a trace is two files (FILE and FILE.svg), not "
                        "standard output; give a file name\n", CMD);
                goto usage;
            }
            o->trace = v;
            break;
        case O_QUIET: o->quiet = 1; break;
        case O_HELP:
        case O_H: o->help = 1; break;
        }
    }
    if (k == -2)
        goto usage;
    if (o->sizes)
        o->set[o->nset++] = (hyt_cli_set_t){"hpl.n", o->sizes, option_key[O_N].where};
    return 0;
usage:
    hyt_hpl_opts_free(o);
    return HYT_EXIT_USAGE;
}

/* ------------------------------------------------------------------------------------------ */
/* the command                                                                                 */

typedef struct run {
    int n, nb, lookahead, panel_cores; /* resolved */
    int nb_set, la_set;                /* the value to set for the run, -1: the configuration's */
    char tv[32];
    hyt_hpl_result_t res;
    int error;                         /* did not complete */
    char *message;                     /* its error message */
} run_t;

typedef struct hpl {
    hyt_hpl_opts_t *o;
    hyt_hpl_dat_t dat;
    int have_dat;
    hyt_cli_config_t cc;
    hyt_cli_set_t *set;   /* o->set plus the HPL.dat settings */
    hyt_config_t *cfg;
    hyt_context_t *ctx;
    int ns[MAX_SIZES], nns;
    double auto_rate;     /* hpl.n = auto: the rate assumed (GFLOP/s), else 0 */
    const int *nbs, *las; /* HPL.dat lists, or one value (-1: the configuration's) */
    int nnbs, nlas;
    run_t *runs;
    int nruns;
    char *where_ns, *where_threshold, *where_nbs, *where_las; /* "HPL.dat file:line" */
    char *dat_sizes;      /* HPL.dat's Ns as an hpl.n value */
    int json_each_run;    /* --json is a file rewritten after each run */
    int json_failed;      /* it could not be written (said once) */
    int saved_stdout;     /* --json -: the real standard output, else -1 */
} hpl_t;

static char *strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *strdupf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : s;
}

/* Sets lu.nb and lu.lookahead on the context for a run (the configuration's value where the
 * run has none) and resolves its parameters. */
static int prepare_run(hpl_t *h, run_t *r)
{
    char nb[16], la[16];
    const hyt_config_t *cfg = h->cfg;
    if (r->nb_set > 0)
        snprintf(nb, sizeof nb, "%d", r->nb_set);
    else
        snprintf(nb, sizeof nb, "%s", hyt_config_get(cfg, "lu.nb", NULL));
    if (r->la_set >= 0)
        snprintf(la, sizeof la, "%d", r->la_set);
    else
        snprintf(la, sizeof la, "%s", hyt_config_get(cfg, "lu.lookahead", NULL));
    int rc = hyt_context_set(h->ctx, "lu.nb", nb);
    if (!rc)
        rc = hyt_context_set(h->ctx, "lu.lookahead", la);
    hyt_lu_params_t p;
    if (!rc)
        rc = hyt_lu_params(h->ctx, r->n, r->n, &p);
    if (rc)
        return rc;
    r->nb = p.nb;
    r->lookahead = p.lookahead;
    /* a panel's gang has at most one core per tile row of the panel (hyt_insert_dgetrf_rec):
     * at small N fewer cores than lu.panel_cores factor the panels, and T/V and the display
     * say the number used */
    int mt = (r->n + p.nb - 1) / p.nb;
    r->panel_cores = p.panel_cores < mt ? p.panel_cores : mt > 1 ? mt : 1;
    hyt_hpl_tv(r->tv, sizeof r->tv, p.lookahead, r->panel_cores, p.ndevices);
    return 0;
}

/* Reads HPL.dat and adds its sizes and threshold to the command-line settings (the command
 * line's own -n wins; NBs and DEPTHs are set per run). */
static int read_hpl_dat(hpl_t *h)
{
    hyt_hpl_opts_t *o = h->o;
    h->set = calloc((size_t)o->nset + 2, sizeof *h->set);
    if (!h->set)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    memcpy(h->set, o->set, (size_t)o->nset * sizeof *h->set);
    h->cc.set = h->set;
    h->cc.nset = o->nset;
    if (!o->hpl_dat)
        return 0;
    int rc = hyt_hpl_dat_read(o->hpl_dat, &h->dat);
    if (rc)
        return rc;
    h->have_dat = 1;
    const char *f = o->hpl_dat;
    h->where_ns = strdupf("HPL.dat %s:%d", f, HYT_HPL_DAT_LINE_NS);
    h->where_nbs = strdupf("HPL.dat %s:%d", f, HYT_HPL_DAT_LINE_NBS);
    h->where_las = strdupf("HPL.dat %s:%d", f, HYT_HPL_DAT_LINE_DEPTHS);
    h->where_threshold = strdupf("HPL.dat %s:%d", f, HYT_HPL_DAT_LINE_THRESHOLD);
    /* the sizes as one hpl.n value, "1000,2000" */
    size_t len = 0;
    FILE *s = open_memstream(&h->dat_sizes, &len);
    for (int i = 0; s && i < h->dat.nns; i++)
        fprintf(s, "%s%d", i ? "," : "", h->dat.ns[i]);
    if (!s || fclose(s) || !h->dat_sizes || !h->where_ns || !h->where_nbs || !h->where_las ||
        !h->where_threshold)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    if (!o->sizes)
        h->set[h->cc.nset++] = (hyt_cli_set_t){"hpl.n", h->dat_sizes, h->where_ns};
    h->set[h->cc.nset++] =
        (hyt_cli_set_t){"hpl.threshold", h->dat.threshold_text, h->where_threshold};
    return 0;
}

/* The list of runs: every N x NB x DEPTH (as HPL), each checked against host memory. */
static int plan_runs(hpl_t *h)
{
    static const int config_value = -1;
    const hyt_config_t *cfg = h->cfg;
    const char *sizes = hyt_config_get(cfg, "hpl.n", NULL);
    if (strcmp(sizes, "auto") == 0) {
        h->ns[0] = hyt_hpl_auto_n(h->ctx, (double)hyt_config_get_int(cfg, "hpl.seconds"),
                                  &h->auto_rate);
        h->nns = 1;
    } else {
        h->nns = hyt_parse_sizes(sizes, h->ns, MAX_SIZES);
        if (h->nns < 1) /* the configuration has checked it already */
            return hyt_error(HYT_ERR_CONFIG, "hpl.n = %s: expected sizes like 4000,8000", sizes);
    }
    h->nbs = h->las = &config_value;
    h->nnbs = h->nlas = 1;
    if (h->have_dat && !h->o->have_nb) {
        h->nbs = h->dat.nbs;
        h->nnbs = h->dat.nnbs;
    }
    if (h->have_dat && !h->o->have_lookahead) {
        h->las = h->dat.depths;
        h->nlas = h->dat.ndepths;
    }
    h->nruns = h->nns * h->nnbs * h->nlas;
    h->runs = calloc((size_t)h->nruns, sizeof *h->runs);
    if (!h->runs)
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    run_t *r = h->runs;
    for (int i = 0; i < h->nns; i++)
        for (int j = 0; j < h->nnbs; j++)
            for (int l = 0; l < h->nlas; l++, r++) {
                r->n = h->ns[i];
                r->nb_set = h->nbs[j];
                r->la_set = h->las[l];
                int rc = prepare_run(h, r);
                if (rc)
                    return rc;
                double need = hyt_hpl_bytes(r->n, r->nb), have = hyt_cli_phys_mem();
                if (have > 0 && need > have && !hyt_hpl_on_devices(h->ctx))
                    return hyt_error(HYT_ERR_TOO_LARGE, "N = %d needs %.1f GiB of memory (the "
                                     "matrix in tiles of %d and its vectors), this machine has "
                                     "%.1f GiB: nothing run", r->n, need / (1 << 30), r->nb,
                                     have / (1 << 30));
            }
    return 0;
}

/* "value (source)" of a key, for the configuration display. */
static void show_key(hpl_t *h, const char *label, const char *key, const char *value_text)
{
    hyt_source_t src;
    const char *v = hyt_config_get(h->cfg, key, &src);
    printf("  %-12s= %s (%s)\n", label, value_text ? value_text : v, hyt_source_name(src));
}

/* nb / lookahead / panel_cores: resolved for the first run, "auto" said, or an HPL.dat list. */
static void show_lu(hpl_t *h, const char *label, const char *key, int resolved,
                    const int *list, int nlist, const char *where)
{
    hyt_source_t src;
    const char *v = hyt_config_get(h->cfg, key, &src);
    if (list && nlist > 0 && list[0] >= 0) {
        printf("  %-12s= ", label);
        for (int i = 0; i < nlist; i++)
            printf("%s%d", i ? ", " : "", list[i]);
        printf(" (%s)\n", where);
    } else if (strcmp(v, "auto") == 0) {
        printf("  %-12s= %d (auto for N = %d, %s)\n", label, resolved, h->runs[0].n,
               hyt_source_name(src));
    } else if (atol(v) != resolved && resolved == hyt_context_num_workers(h->ctx)) {
        /* lu.panel_cores above the workers: the LU uses them all */
        printf("  %-12s= %d (clamped from %s to the %d workers; %s)\n", label, resolved, v,
               resolved, hyt_source_name(src));
    } else if (atol(v) != resolved) {
        /* lu.panel_cores above the tile rows of the first panel (prepare_run) */
        printf("  %-12s= %d (clamped from %s: N = %d is %d tile row%s of nb = %d, one core "
               "per tile row; %s)\n", label, resolved, v, h->runs[0].n, resolved,
               resolved > 1 ? "s" : "", h->runs[0].nb, hyt_source_name(src));
    } else {
        printf("  %-12s= %d (%s)\n", label, resolved, hyt_source_name(src));
    }
}

static void show_config(hpl_t *h)
{
    hyt_context_t *ctx = h->ctx;
    const run_t *r0 = &h->runs[0];
    hyt_source_t src;
    printf("%s: effective configuration\n", CMD);
    if (h->cc.tuned_path)
        printf("  %-12s= %s\n", "tuned file", h->cc.tuned_path);
    // sizes
    printf("  %-12s= ", "sizes");
    for (int i = 0; i < h->nns; i++)
        printf("%s%d", i ? ", " : "", h->ns[i]);
    hyt_config_get(h->cfg, "hpl.n", &src);
    if (h->auto_rate > 0)
        printf(" (auto: about %ld s at an estimated %.0f GFLOP/s, %s)\n",
               hyt_config_get_int(h->cfg, "hpl.seconds"), h->auto_rate, hyt_source_name(src));
    else if (h->have_dat && !h->o->sizes)
        printf(" (%s)\n", h->where_ns);
    else
        printf(" (%s)\n", hyt_source_name(src));
    // LU parameters
    show_lu(h, "nb", "lu.nb", r0->nb, h->nbs, h->nnbs, h->where_nbs);
    show_lu(h, "lookahead", "lu.lookahead", r0->lookahead, h->las, h->nlas, h->where_las);
    show_lu(h, "panel_cores", "lu.panel_cores", r0->panel_cores, NULL, 0, NULL);
    // devices and workers
    const char *dev = hyt_config_get(h->cfg, "runtime.devices", &src);
    char *names = hyt_cli_device_names(ctx);
    printf("  %-12s= %s: %s (%s)\n", "devices", dev, names ? names : "?", hyt_source_name(src));
    free(names);
    char workers[32];
    snprintf(workers, sizeof workers, "%d", hyt_context_num_workers(ctx));
    show_key(h, "workers", "runtime.workers", workers);
    show_key(h, "cores", "runtime.cores", NULL);
    // the check
    if (h->have_dat) {
        printf("  %-12s= %s (%s)\n", "threshold", h->dat.threshold_text, h->where_threshold);
    } else {
        show_key(h, "threshold", "hpl.threshold", NULL);
    }
    show_key(h, "seed", "hpl.seed", NULL);
    printf("\n");
}

/* What of HPL.dat hytile does not use, said once. */
static void show_hpl_dat_notes(hpl_t *h)
{
    const hyt_hpl_dat_t *d = &h->dat;
    printf("%s: %s: output file, device out, PMAP, process grids, PFACTs, NBMINs, NDIVs, "
           "RFACTs, BCASTs, SWAP, swapping threshold, L1, U, equilibration and alignment are "
           "not applicable to hytile (single process, own panel algorithm)\n", CMD, h->o->hpl_dat);
    int other = 0;
    for (int g = 0; g < d->ngrids; g++)
        other |= d->ps[g] != 1 || d->qs[g] != 1;
    if (other) {
        printf("%s: %s:%d: process grids", CMD, h->o->hpl_dat, HYT_HPL_DAT_LINE_GRIDS);
        for (int g = 0; g < d->ngrids; g++)
            printf("%s %dx%d", g ? "," : "", d->ps[g], d->qs[g]);
        printf(" noted; hytile runs each test once as one process (P = Q = 1)\n");
    }
}

/* Trace file names: FILE, and FILE.svg with .json replaced; with several runs "-N<n>" (and
 * "-NB<nb>", "-L<l>" when those vary) before the extension. */
static int trace_names(hpl_t *h, const run_t *r, char **json, char **svg)
{
    const char *path = h->o->trace, *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    int stem = dot ? (int)(dot - path) : (int)strlen(path);
    const char *ext = dot ? dot : "";
    char suffix[64] = "";
    if (h->nruns > 1) {
        int len = snprintf(suffix, sizeof suffix, "-N%d", r->n);
        if (h->nnbs > 1)
            len += snprintf(suffix + len, sizeof suffix - (size_t)len, "-NB%d", r->nb);
        if (h->nlas > 1)
            snprintf(suffix + len, sizeof suffix - (size_t)len, "-L%d", r->lookahead);
    }
    *json = strdupf("%.*s%s%s", stem, path, suffix, ext);
    if (strcmp(ext, ".json") == 0)
        *svg = strdupf("%.*s%s.svg", stem, path, suffix);
    else
        *svg = strdupf("%.*s%s%s.svg", stem, path, suffix, ext);
    if (!*json || !*svg) {
        free(*json);
        free(*svg);
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    }
    return 0;
}

static int write_trace(hpl_t *h, const run_t *r)
{
    char *json, *svg, *title;
    int rc = trace_names(h, r, &json, &svg);
    if (rc)
        return rc;
    hyt_cli_file_t out;
    rc = hyt_cli_file_open(&out, json);
    if (!rc)
        rc = hyt_cli_file_close(&out);
    if (!rc)
        rc = hyt_trace_write_json(h->ctx, out.name);
    if (!rc)
        rc = hyt_cli_file_commit(&out);
    else
        hyt_cli_file_discard(&out);
    char *devices = hyt_cli_device_names(h->ctx);
    title = devices ? strdupf("hytile hpl: N = %d, nb = %d, lookahead = %d, panel cores = %d, "
                              "%d CPU workers, devices: %s", r->n, r->nb, r->lookahead,
                              r->panel_cores, hyt_context_num_workers(h->ctx), devices)
                    : NULL;
    free(devices);
    if (!rc && !title)
        rc = hyt_error(HYT_ERR_NOMEM, "out of memory");
    if (!rc)
        rc = hyt_write_svg_gantt(h->ctx, svg, title);
    if (!rc && !h->o->quiet)
        printf("trace: %s, Gantt chart: %s\n", json, svg);
    free(title);
    free(json);
    free(svg);
    return rc;
}

/* HPL's lines for one run. */
static void print_run(const run_t *r, double threshold)
{
    const hyt_hpl_result_t *s = &r->res;
    printf("%s\n%s%s\n%s\n", rule_eq, "T/V                N    NB     P     Q",
           "               Time                 Gflops", rule_dash);
    printf("%-8s%12d %5d %5d %5d %18.2f %18.3e\n", r->tv, r->n, r->nb, 1, 1, s->seconds,
           s->gflops);
    printf("%s\n", rule_dash);
    printf("%s= %16.8e ...... %s\n", resid_label, s->residual, s->passed ? "PASSED" : "FAILED");
    if (!s->passed) {
        if (s->info > 0)
            printf("the matrix is singular: U(%d,%d) is exactly zero\n", s->info, s->info);
        printf("||Ax-b||_oo  . . . . . . . . . . . . . . . . . = %18.6f\n", s->rnorm);
        printf("||A||_oo . . . . . . . . . . . . . . . . . . . = %18.6f\n", s->anorm);
        printf("||x||_oo . . . . . . . . . . . . . . . . . . . = %18.6f\n", s->xnorm);
        printf("||b||_oo . . . . . . . . . . . . . . . . . . . = %18.6f\n", s->bnorm);
        printf("threshold  . . . . . . . . . . . . . . . . . . = %18.6f\n", threshold);
    }
    printf("%s\n", rule_eq);
    fflush(stdout);
}

static void print_summary(const hpl_t *h)
{
    int passed = 0, failed = 0, errors = 0;
    for (int i = 0; i < h->nruns; i++) {
        const run_t *r = &h->runs[i];
        passed += !r->error && r->res.passed;
        failed += !r->error && !r->res.passed;
        errors += r->error;
    }
    printf("\nFinished %6d tests with the following results:\n", h->nruns);
    printf("         %6d tests completed and passed residual checks,\n", passed);
    printf("         %6d tests completed and failed residual checks,\n", failed);
    printf("         %6d tests skipped because of illegal input values.\n", 0);
    if (errors)
        printf("         %6d tests did not complete (errors above).\n", errors);
    printf("%s\n\nEnd of Tests.\n%s\n", rule_dash, rule_eq);
}

/* Whether the value of key comes from HPL.dat. */
static int from_hpl_dat(const hpl_t *h, const char *key)
{
    if (!h->have_dat)
        return 0;
    return (!strcmp(key, "hpl.n") && !h->o->sizes) || !strcmp(key, "hpl.threshold") ||
           (!strcmp(key, "lu.nb") && !h->o->have_nb) ||
           (!strcmp(key, "lu.lookahead") && !h->o->have_lookahead);
}

/* The JSON of the first `done` runs ("complete": false while runs are left). */
static void write_json_body(hpl_t *h, FILE *f, const hyt_machine_t *m, int done)
{
    static const char *const srckeys[][2] = {
        {"nb", "lu.nb"}, {"lookahead", "lu.lookahead"}, {"panel_cores", "lu.panel_cores"},
        {"devices", "runtime.devices"}, {"workers", "runtime.workers"},
        {"cores", "runtime.cores"}, {"n", "hpl.n"}, {"seed", "hpl.seed"},
        {"threshold", "hpl.threshold"}};
    const run_t *r0 = &h->runs[0];
    hyt_context_t *ctx = h->ctx;
    char date[32];
    fprintf(f, "{\n  \"config\": {\"nb\": %d, \"lookahead\": %d, \"panel_cores\": %d, "
               "\"devices\": ", r0->nb, r0->lookahead, r0->panel_cores);
    hyt_json_str(f, hyt_config_get(h->cfg, "runtime.devices", NULL));
    fprintf(f, ", \"device_names\": [");
    for (int d = 0; d < hyt_context_num_devices(ctx); d++) {
        fprintf(f, "%s", d ? ", " : "");
        hyt_json_str(f, hyt_device_name(hyt_context_device(ctx, d)));
    }
    fprintf(f, "], \"workers\": %d, \"cores\": ", hyt_context_num_workers(ctx));
    hyt_json_str(f, hyt_config_get(h->cfg, "runtime.cores", NULL));
    fprintf(f, ", \"seed\": %ld, \"threshold\": ", hyt_config_get_int(h->cfg, "hpl.seed"));
    hyt_json_num(f, hyt_config_get_double(h->cfg, "hpl.threshold"));
    fprintf(f, ", \"tuned_file\": ");
    hyt_json_str(f, h->cc.tuned_path);
    fprintf(f, ",\n             \"sources\": {");
    for (size_t i = 0; i < sizeof srckeys / sizeof srckeys[0]; i++) {
        hyt_source_t src;
        hyt_config_get(h->cfg, srckeys[i][1], &src);
        fprintf(f, "%s\"%s\": ", i ? ", " : "", srckeys[i][0]);
        hyt_json_str(f, from_hpl_dat(h, srckeys[i][1]) ? "HPL.dat" : hyt_source_name(src));
    }
    fprintf(f, "}},\n  \"runs\": [");
    for (int i = 0; i < done; i++) {
        const run_t *r = &h->runs[i];
        fprintf(f, "%s\n    {\"n\": %d, \"nb\": %d, \"lookahead\": %d, \"panel_cores\": %d, "
                   "\"tv\": ", i ? "," : "", r->n, r->nb, r->lookahead, r->panel_cores);
        hyt_json_str(f, r->tv);
        fprintf(f, ", \"seconds\": ");
        hyt_json_num(f, r->error ? NAN : r->res.seconds);
        fprintf(f, ", \"gflops\": ");
        hyt_json_num(f, r->error ? NAN : r->res.gflops);
        fprintf(f, ", \"residual\": ");
        hyt_json_num(f, r->error ? NAN : r->res.residual);
        fprintf(f, ", \"passed\": %s", !r->error && r->res.passed ? "true" : "false");
        if (r->res.info > 0)
            fprintf(f, ", \"singular\": true");
        if (r->error) {
            fprintf(f, ", \"error\": ");
            hyt_json_str(f, r->message ? r->message : "error");
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"complete\": %s,\n  \"machine\": {\"description\": ",
            done == h->nruns ? "true" : "false");
    hyt_json_str(f, m->line);
    fprintf(f, ", \"cpu\": ");
    hyt_json_str(f, m->cpu);
    fprintf(f, ", \"cores\": %d, \"memory_bytes\": %llu, \"gpus\": [", m->cores, m->memory);
    for (int g = 0; g < m->ngpus; g++) {
        fprintf(f, "%s", g ? ", " : "");
        hyt_json_str(f, m->gpus[g]);
    }
    hyt_cli_date(date, sizeof date);
    fprintf(f, "]},\n  \"date\": \"%s\",\n  \"hytile\": \"%s\"\n}\n", date, HYT_VERSION);
}

/* Writes the JSON of the first `done` runs; a message and status 1 when it cannot (said once:
 * the later writes are skipped). */
static void write_json(hpl_t *h, int done, int *status)
{
    hyt_machine_t m;
    hyt_cli_file_t out;
    if (h->json_failed)
        return;
    int rc = hyt_machine_describe(&m);
    if (!rc) {
        rc = hyt_cli_file_open(&out, h->o->json);
        if (!rc) {
            write_json_body(h, out.f, &m, done);
            rc = hyt_cli_file_commit(&out);
        }
        hyt_machine_free(&m);
    }
    if (rc) {
        fprintf(stderr, "%s: %s\n", CMD, hyt_last_error());
        *status = HYT_EXIT_FAILED;
        h->json_failed = 1;
    }
}

/* Everything that can be wrong with the input, before anything runs.  Returns 0 or
 * HYT_EXIT_USAGE after a message. */
static int setup(hpl_t *h)
{
    hyt_hpl_opts_t *o = h->o;
    h->cc = (hyt_cli_config_t){.use_tuned = 1, .config_file = o->config_file, .quiet = o->quiet};
    int rc = read_hpl_dat(h);
    if (!rc)
        rc = hyt_cli_build_config(&h->cc, &h->cfg);
    if (!rc)
        rc = hyt_context_create(h->cfg, &h->ctx);
    if (!rc)
        rc = plan_runs(h);
    if (!rc && o->json)
        rc = hyt_cli_check_writable(o->json);
    if (!rc && o->trace)
        rc = hyt_cli_check_writable(o->trace);
    if (rc) {
        fprintf(stderr, "%s: %s\n", CMD, hyt_last_error());
        return HYT_EXIT_USAGE;
    }
    return 0;
}

static void cleanup(hpl_t *h)
{
    for (int i = 0; h->runs && i < h->nruns; i++)
        free(h->runs[i].message);
    free(h->runs);
    if (h->ctx)
        hyt_context_destroy(h->ctx);
    hyt_config_destroy(h->cfg);
    free(h->set);
    free(h->dat_sizes);
    free(h->cc.tuned_path);
    free(h->where_ns);
    free(h->where_nbs);
    free(h->where_las);
    free(h->where_threshold);
    hyt_hpl_dat_free(&h->dat);
}

static int hpl_main(hyt_hpl_opts_t *o)
{
    hpl_t h = {.o = o, .saved_stdout = -1};
    int status = setup(&h);
    if (status) {
        cleanup(&h);
        return status;
    }
    /* A regular file gets the JSON after each run, so that an interrupted sweep keeps the
     * runs it finished; standard output, a FIFO or a device get it once, at the end.  With
     * --json - standard output carries only the JSON: the rest goes to standard error. */
    h.json_each_run = o->json && hyt_cli_file_rewritable(o->json);
    if (o->json && strcmp(o->json, "-") == 0)
        h.saved_stdout = hyt_cli_stdout_divert();
    if (!o->quiet) {
        if (h.have_dat)
            show_hpl_dat_notes(&h);
        show_config(&h);
        fflush(stdout);
    }

    const int seed = (int)hyt_config_get_int(h.cfg, "hpl.seed");
    const double threshold = hyt_config_get_double(h.cfg, "hpl.threshold");
    int flags = (o->quiet ? 0 : HYT_HPL_PROGRESS) | (o->trace ? HYT_HPL_TRACE : 0);
    hyt_hpl_ws_t ws = {0};
    for (int i = 0; i < h.nruns; i++) {
        run_t *r = &h.runs[i];
        int rc = prepare_run(&h, r);
        /* with CUDA GPUs: the matrix on them, no host copy */
        if (!rc && hyt_hpl_on_devices(h.ctx))
            rc = hyt_hpl_solve_dmat(h.ctx, r->n, r->nb, seed, threshold, flags, &r->res);
        /* else one allocation for the runs of one N and nb */
        else if (!rc && (ws.n != r->n || ws.nb != r->nb)) {
            hyt_hpl_ws_destroy(&ws);
            rc = hyt_hpl_ws_create(h.ctx, r->n, r->nb, &ws);
        }
        if (!rc && !hyt_hpl_on_devices(h.ctx))
            rc = hyt_hpl_solve(&ws, seed, threshold, flags, &r->res);
        if (rc) {
            r->error = 1;
            r->message = strdup(hyt_last_error());
            fprintf(stderr, "%s: N = %d, nb = %d: %s\n", CMD, r->n, r->nb, hyt_last_error());
            status = HYT_EXIT_FAILED;
        } else {
            print_run(r, threshold);
            if (!r->res.passed)
                status = HYT_EXIT_FAILED;
            if (o->trace && (rc = write_trace(&h, r))) {
                fprintf(stderr, "%s: %s\n", CMD, hyt_last_error());
                status = HYT_EXIT_FAILED;
            }
        }
        if (h.json_each_run)
            write_json(&h, i + 1, &status);
    }
    hyt_hpl_ws_destroy(&ws);
    print_summary(&h);
    hyt_cli_stdout_restore(h.saved_stdout);
    if (o->json && !h.json_each_run)
        write_json(&h, h.nruns, &status);
    if (o->json && !h.json_failed && !o->quiet && h.saved_stdout < 0)
        printf("results: %s\n", o->json);
    cleanup(&h);
    return status;
}

int hyt_cmd_hpl(int argc, char **argv)
{
    hyt_hpl_opts_t o;
    int status = hyt_hpl_parse_args(argc, argv, &o);
    if (status)
        return status;
    if (o.help)
        usage(stdout);
    else
        status = hpl_main(&o);
    hyt_hpl_opts_free(&o);
    return status;
}
