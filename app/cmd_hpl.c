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
 * The HPL run itself (hyt_hpl_solve, which `hytile tune` times too) is in hpl_run.c, what the
 * command prints and writes in hpl_output.c.
 */
#include "cmd_hpl.h"

#include <stdlib.h>
#include <string.h>

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
    h->where_ns = hyt_cli_strdupf("HPL.dat %s:%d", f, HYT_HPL_DAT_LINE_NS);
    h->where_nbs = hyt_cli_strdupf("HPL.dat %s:%d", f, HYT_HPL_DAT_LINE_NBS);
    h->where_las = hyt_cli_strdupf("HPL.dat %s:%d", f, HYT_HPL_DAT_LINE_DEPTHS);
    h->where_threshold = hyt_cli_strdupf("HPL.dat %s:%d", f, HYT_HPL_DAT_LINE_THRESHOLD);
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
            hyt_hpl_show_dat_notes(&h);
        hyt_hpl_show_config(&h);
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
            hyt_hpl_print_run(r, threshold);
            if (!r->res.passed)
                status = HYT_EXIT_FAILED;
            if (o->trace && (rc = hyt_hpl_write_trace(&h, r))) {
                fprintf(stderr, "%s: %s\n", CMD, hyt_last_error());
                status = HYT_EXIT_FAILED;
            }
        }
        if (h.json_each_run)
            hyt_hpl_write_json(&h, i + 1, &status);
    }
    hyt_hpl_ws_destroy(&ws);
    hyt_hpl_print_summary(&h);
    hyt_cli_stdout_restore(h.saved_stdout);
    if (o->json && !h.json_each_run)
        hyt_hpl_write_json(&h, h.nruns, &status);
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
