/*
 * Internal to `hytile hpl`: its state (cmd_hpl.c) and its output (hpl_output.c).
 */
#ifndef HYT_CMD_HPL_H
#define HYT_CMD_HPL_H

#include "cli_common.h"
#include "config.h"
#include "hpl_dat.h"
#include "hytile_cli.h"

#define CMD "hytile hpl"
#define MAX_SIZES 64 /* hpl.n's limit */

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

/* The effective configuration, each value with where it came from. */
void hyt_hpl_show_config(hpl_t *h);
/* What of HPL.dat hytile does not use, said once. */
void hyt_hpl_show_dat_notes(hpl_t *h);
/* HPL's lines for one run, and the summary after the last. */
void hyt_hpl_print_run(const run_t *r, double threshold);
void hyt_hpl_print_summary(const hpl_t *h);
/* The run's trace (Chrome JSON) and its SVG Gantt chart beside it. */
int hyt_hpl_write_trace(hpl_t *h, const run_t *r);
/* Writes the JSON of the first `done` runs; a message and status 1 when it cannot (said once:
 * the later writes are skipped). */
void hyt_hpl_write_json(hpl_t *h, int done, int *status);

#endif /* HYT_CMD_HPL_H */
