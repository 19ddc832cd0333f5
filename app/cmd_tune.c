/*
 * hytile tune: sweeps nb x lookahead x panel_cores for one problem size on this machine, with
 * HPL's run (every combination's solution checked by HPL's residual; a failing one is reported
 * and excluded), prints a table, and writes the fastest settings to a config file that records
 * the machine, the date and the measured rate:
 *
 *   hytile tune -n N [--nb-list 128,192,256] [--lookahead-list 0,1,2,4]
 *               [--panel-cores-list 1,2,4,8] [--devices SPEC] [--cores SPEC] [--config FILE]
 *               [--output FILE] [--reps R] [--quiet]
 *
 * `hytile hpl` applies the file when it is ~/.config/hytile/tuned.ini (or $HYT_TUNED) and the
 * machine it records is the current one (hyt_machine_describe builds both lines).
 */
#include "cli_common.h"
#include "hytile_cli.h"

#include <stdlib.h>
#include <string.h>

#define CMD "hytile tune"
#define MAX_LIST 64

enum { O_N, O_NB_LIST, O_LA_LIST, O_PC_LIST, O_DEVICES, O_CORES, O_CONFIG, O_OUTPUT, O_REPS,
       O_QUIET, O_HELP, O_H };

static const hyt_cli_opt_t options[] = {
    [O_N] = {"-n", 1},
    [O_NB_LIST] = {"--nb-list", 1},
    [O_LA_LIST] = {"--lookahead-list", 1},
    [O_PC_LIST] = {"--panel-cores-list", 1},
    [O_DEVICES] = {"--devices", 1},
    [O_CORES] = {"--cores", 1},
    [O_CONFIG] = {"--config", 1},
    [O_OUTPUT] = {"--output", 1},
    [O_REPS] = {"--reps", 1},
    [O_QUIET] = {"--quiet", 0},
    [O_HELP] = {"--help", 0},
    [O_H] = {"-h", 0},
    {NULL, 0}};

typedef struct combo {
    int nb, lookahead, panel_cores;
    double seconds, gflops, residual; /* best of the repetitions */
    int passed;
} combo_t;

typedef struct tune {
    long n, reps;
    int nbs[MAX_LIST], las[MAX_LIST], pcs[MAX_LIST];
    int nnbs, nlas, npcs;
    const char *output, *config_file, *devices, *cores;
    int quiet, help;
    int gpus; /* the context has CUDA devices */
    hyt_cli_set_t set[2];
    int nset;
    combo_t *combos;
    int ncombos;
} tune_t;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: hytile tune -n N [options]\n"
        "Times HPL's run for every nb x lookahead x panel_cores and writes the fastest to a\n"
        "config file that records this machine.\n\n"
        "  -n N                     problem size (one run should take a few seconds)\n"
        "  --nb-list L              tile sizes (default 256..1536 with GPU panels, 128..512\n"
        "                           with CPU panels beside GPUs, 96..320 on CPUs alone)\n"
        "  --lookahead-list L       lookahead depths (default 0,1,2,3,4)\n"
        "  --panel-cores-list L     cores per panel (default 1,2,4,... up to workers/2;\n"
        "                           with GPU panels, which do not use it, the automatic one)\n"
        "  --devices SPEC           none, cuda, cuda:0,1, host:N (runtime.devices)\n"
        "  --cores SPEC             all, a count or a list like 0-7,16 (runtime.cores)\n"
        "  --config FILE            configuration file for the runtime settings\n"
        "  --output FILE            where to write the best settings (hytile-tuned.ini)\n"
        "  --reps R                 runs per combination, the best counts (default 1; with\n"
        "                           GPUs each tile size's first combination runs once more,\n"
        "                           untimed: CUDA loads kernels at their first launch)\n"
        "  --quiet                  print only the best settings\n"
        "Lists are comma separated: --nb-list 128,192,256.\n");
}

static int parse_args(int argc, char **argv, tune_t *t)
{
    hyt_cli_args_t args = {argc, argv, 1, CMD};
    const char *v;
    int k;
    t->reps = 1;
    t->output = "hytile-tuned.ini";
    while ((k = hyt_cli_next(&args, options, &v)) >= 0) {
        int bad = 0;
        switch (k) {
        case O_N: bad = hyt_cli_int(CMD, "-n", v, 1, 10000000, &t->n); break;
        case O_NB_LIST:
            bad = (t->nnbs = hyt_cli_int_list(CMD, "--nb-list", v, 1, 4096, t->nbs,
                                              MAX_LIST)) < 0;
            break;
        case O_LA_LIST:
            bad = (t->nlas = hyt_cli_int_list(CMD, "--lookahead-list", v, 0, 64, t->las,
                                              MAX_LIST)) < 0;
            break;
        case O_PC_LIST:
            bad = (t->npcs = hyt_cli_int_list(CMD, "--panel-cores-list", v, 1, 1024, t->pcs,
                                              MAX_LIST)) < 0;
            break;
        case O_DEVICES: t->devices = v; break;
        case O_CORES: t->cores = v; break;
        case O_CONFIG: t->config_file = v; break;
        case O_OUTPUT: t->output = v; break;
        case O_REPS: bad = hyt_cli_int(CMD, "--reps", v, 1, 1000, &t->reps); break;
        case O_QUIET: t->quiet = 1; break;
        case O_HELP:
        case O_H: t->help = 1; break;
        }
        if (bad)
            return HYT_EXIT_USAGE;
    }
    if (k == -2)
        return HYT_EXIT_USAGE;
    if (!t->help && t->n <= 0) {
        fprintf(stderr, "%s: -n N is required: the problem size to tune for (one run should "
                "take a few seconds)\n", CMD);
        return HYT_EXIT_USAGE;
    }
    if (t->devices)
        t->set[t->nset++] = (hyt_cli_set_t){"runtime.devices", t->devices,
                                            "command line --devices"};
    if (t->cores)
        t->set[t->nset++] = (hyt_cli_set_t){"runtime.cores", t->cores, "command line --cores"};
    return 0;
}

/* Default lists from the machine: tile sizes by where the panels go (GPU panels: around the
 * LU's own choices, 256 to 1024 by N; CPU panels beside GPUs; CPUs only), lookahead 0..4,
 * panel cores up to half the workers (GPU panels: only the automatic value, which they do not
 * use). */
static void default_lists(tune_t *t, hyt_context_t *ctx)
{
    static const int nb_gpu_panels[6] = {256, 384, 512, 768, 1024, 1536};
    static const int nb_gpu[6] = {128, 192, 256, 320, 384, 512};
    static const int nb_cpu[6] = {96, 128, 160, 192, 256, 320};
    t->gpus = 0;
    for (int d = 0; d < hyt_context_num_devices(ctx); d++)
        t->gpus |= hyt_device_backend(hyt_context_device(ctx, d)) == HYT_BACKEND_CUDA;
    hyt_lu_params_t q;
    const int gpu_panels = !hyt_lu_params(ctx, (int)t->n, (int)t->n, &q) && q.gpu_panel;
    if (!t->nnbs) {
        const int *l = gpu_panels ? nb_gpu_panels : t->gpus ? nb_gpu : nb_cpu;
        int nl = 6;
        for (int i = 0; i < nl; i++)
            if (l[i] <= t->n || t->nnbs == 0)
                t->nbs[t->nnbs++] = l[i]; /* tiles larger than the matrix tell nothing */
    }
    if (!t->nlas)
        for (int l = 0; l <= 4; l++)
            t->las[t->nlas++] = l;
    if (!t->npcs && gpu_panels)
        t->pcs[t->npcs++] = q.panel_cores;
    if (!t->npcs) {
        int half = hyt_context_num_workers(ctx) / 2;
        t->pcs[t->npcs++] = 1;
        for (int p = 2; p <= half && t->npcs < MAX_LIST; p *= 2)
            t->pcs[t->npcs++] = p;
    }
}

static void print_list(const char *label, const int *l, int n)
{
    printf("  %-12s", label);
    for (int i = 0; i < n; i++)
        printf("%s%d", i ? ", " : "", l[i]);
    printf("\n");
}

/* Times every combination; returns HYT_EXIT_FAILED when one failed, or a library error code. */
static int sweep(tune_t *t, hyt_context_t *ctx, int seed, double threshold)
{
    int status = 0, flags = t->quiet ? 0 : HYT_HPL_PROGRESS;
    combo_t *c = t->combos;
    if (!t->quiet)
        printf("%6s %10s %12s %10s %10s %12s\n", "nb", "lookahead", "panel_cores", "time (s)",
               "GFLOP/s", "residual");
    for (int i = 0; i < t->nnbs; i++) {
        hyt_hpl_ws_t ws;
        int rc = hyt_hpl_ws_create(ctx, (int)t->n, t->nbs[i], &ws);
        if (rc)
            return rc;
        for (int l = 0; l < t->nlas; l++)
            for (int p = 0; p < t->npcs; p++, c++) {
                *c = (combo_t){t->nbs[i], t->las[l], t->pcs[p], 0, 0, 0, 1};
                rc = hyt_cli_set_int(ctx, "lu.nb", c->nb, NULL);
                if (!rc)
                    rc = hyt_cli_set_int(ctx, "lu.lookahead", c->lookahead, NULL);
                if (!rc)
                    rc = hyt_cli_set_int(ctx, "lu.panel_cores", c->panel_cores, NULL);
                /* r = -1, with GPUs the first combination of a tile size: not timed (CUDA
                 * loads a kernel at its first launch, and a tile size launches kernels of its
                 * own shapes: ~25-30 ms on an H200, 20% of a run at N = 16384; on CPUs no such
                 * first run was measured, 2-core EPYC at N = 3000) */
                const int warm = t->gpus && l == 0 && p == 0;
                for (int r = warm ? -1 : 0; r < t->reps && !rc; r++) {
                    hyt_hpl_result_t res;
                    rc = hyt_hpl_solve(&ws, seed, threshold, flags, &res);
                    if (rc || r < 0)
                        continue;
                    c->passed &= res.passed;
                    if (r == 0 || res.seconds < c->seconds) {
                        c->seconds = res.seconds;
                        c->gflops = res.gflops;
                    }
                    if (r == 0 || !(res.residual <= c->residual))
                        c->residual = res.residual; /* the worst residual */
                }
                if (rc) {
                    hyt_hpl_ws_destroy(&ws);
                    return rc;
                }
                if (!c->passed)
                    status = HYT_EXIT_FAILED;
                if (!t->quiet || !c->passed)
                    printf("%6d %10d %12d %10.3f %10.2f %12.3e%s\n", c->nb, c->lookahead,
                           c->panel_cores, c->seconds, c->gflops, c->residual,
                           c->passed ? "" : "  FAILED (excluded)");
                fflush(stdout);
            }
        hyt_hpl_ws_destroy(&ws);
    }
    return status;
}

static int write_tuned(const tune_t *t, const combo_t *best, hyt_context_t *ctx)
{
    hyt_machine_t m;
    hyt_cli_file_t out;
    char date[32];
    int rc = hyt_machine_describe(&m);
    if (rc)
        return rc;
    hyt_cli_date(date, sizeof date);
    rc = hyt_cli_file_open(&out, t->output);
    if (!rc) {
        const hyt_config_t *cfg = hyt_context_config(ctx);
        FILE *f = out.f;
        fprintf(f, "; hytile tuned settings, written by hytile tune.  hytile hpl applies them "
                   "when\n; this file is ~/.config/hytile/tuned.ini (or $HYT_TUNED) on the "
                   "machine below;\n; any command can also read it with --config.\n");
        fprintf(f, "; machine: %s\n", m.line);
        fprintf(f, "; tuned: %s, N = %ld, %.2f GFLOP/s\n", date, t->n, best->gflops);
        fprintf(f, "; measured with %d workers (cores %.40s), devices %.60s, best of %ld over "
                   "%d combinations\n", hyt_context_num_workers(ctx),
                hyt_config_get(cfg, "runtime.cores", NULL),
                hyt_config_get(cfg, "runtime.devices", NULL), t->reps, t->ncombos);
        fprintf(f, "[lu]\nnb = %d\nlookahead = %d\npanel_cores = %d\n", best->nb,
                best->lookahead, best->panel_cores);
        rc = hyt_cli_file_commit(&out);
    }
    hyt_machine_free(&m);
    return rc;
}

static int tune_main(tune_t *t)
{
    hyt_cli_config_t cc = {.use_tuned = 0, .config_file = t->config_file, .set = t->set,
                           .nset = t->nset, .quiet = t->quiet};
    hyt_config_t *cfg = NULL;
    hyt_context_t *ctx = NULL;
    int status = HYT_EXIT_USAGE;
    /* --output -: standard output carries only the tuned file, the rest goes to stderr */
    int saved_stdout = strcmp(t->output, "-") == 0 ? hyt_cli_stdout_divert() : -1;
    int rc = hyt_cli_build_config(&cc, &cfg);
    if (!rc)
        rc = hyt_context_create(cfg, &ctx);
    if (!rc)
        rc = hyt_cli_check_writable(t->output);
    if (rc) {
        fprintf(stderr, "%s: %s\n", CMD, hyt_last_error());
        goto out;
    }
    default_lists(t, ctx);
    int nw = hyt_context_num_workers(ctx), maxnb = 0;
    for (int p = 0; p < t->npcs; p++)
        if (t->pcs[p] > nw) {
            fprintf(stderr, "%s: --panel-cores-list: %d is more than the %d workers\n", CMD,
                    t->pcs[p], nw);
            goto out;
        }
    for (int i = 0; i < t->nnbs; i++)
        maxnb = t->nbs[i] > maxnb ? t->nbs[i] : maxnb;
    double need = hyt_hpl_bytes((int)t->n, maxnb), have = hyt_cli_phys_mem();
    if (have > 0 && need > have) {
        fprintf(stderr, "%s: N = %ld needs %.1f GiB of memory, this machine has %.1f GiB\n", CMD,
                t->n, need / (1 << 30), have / (1 << 30));
        goto out;
    }
    t->ncombos = t->nnbs * t->nlas * t->npcs;
    t->combos = calloc((size_t)t->ncombos, sizeof *t->combos);
    if (!t->combos) {
        fprintf(stderr, "%s: out of memory\n", CMD);
        goto out;
    }
    if (!t->quiet) {
        char *names = hyt_cli_device_names(ctx);
        printf("%s: N = %ld, %d CPU workers, devices %s: %s; %d combinations, best of %ld "
               "each\n", CMD, t->n, nw, hyt_config_get(cfg, "runtime.devices", NULL),
               names ? names : "?", t->ncombos, t->reps);
        free(names);
        print_list("nb", t->nbs, t->nnbs);
        print_list("lookahead", t->las, t->nlas);
        print_list("panel_cores", t->pcs, t->npcs);
        printf("\n");
        fflush(stdout);
    }

    rc = sweep(t, ctx, (int)hyt_config_get_int(cfg, "hpl.seed"),
               hyt_config_get_double(cfg, "hpl.threshold"));
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", CMD, hyt_last_error());
        status = HYT_EXIT_FAILED;
        goto out;
    }
    status = rc ? HYT_EXIT_FAILED : HYT_EXIT_OK;
    const combo_t *best = NULL;
    for (int i = 0; i < t->ncombos; i++)
        if (t->combos[i].passed && (!best || t->combos[i].gflops > best->gflops))
            best = &t->combos[i];
    if (!best) {
        fprintf(stderr, "%s: no combination passed HPL's residual check; nothing written\n",
                CMD);
        status = HYT_EXIT_FAILED;
        goto out;
    }
    printf("\nbest: nb = %d, lookahead = %d, panel_cores = %d: %.2f GFLOP/s (%.3f s)\n",
           best->nb, best->lookahead, best->panel_cores, best->gflops, best->seconds);
    if (best->seconds < 1.0)
        printf("note: runs this short (under a second) time noisily and tune for small "
               "problems; a larger -n (and --reps 3) gives settings that carry over to long "
               "runs\n");
    fflush(stdout);
    hyt_cli_stdout_restore(saved_stdout);
    saved_stdout = -1;
    if (write_tuned(t, best, ctx)) {
        fprintf(stderr, "%s: %s\n", CMD, hyt_last_error());
        status = HYT_EXIT_FAILED;
        goto out;
    }
    if (strcmp(t->output, "-") != 0)
        printf("wrote %s.  To use these settings on this machine:\n"
           "  mkdir -p ~/.config/hytile && cp %s ~/.config/hytile/tuned.ini\n"
           "or for one run: hytile hpl --config %s\n", t->output, t->output, t->output);
out:
    hyt_cli_stdout_restore(saved_stdout);
    free(t->combos);
    if (ctx)
        hyt_context_destroy(ctx);
    hyt_config_destroy(cfg);
    return status;
}

int hyt_cmd_tune(int argc, char **argv)
{
    tune_t t = {0};
    int status = parse_args(argc, argv, &t);
    if (status)
        return status;
    if (t.help) {
        usage(stdout);
        return 0;
    }
    return tune_main(&t);
}
