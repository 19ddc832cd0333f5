/*
 * hytile hpl's output: the effective configuration, the notes on HPL.dat, HPL's result lines
 * and summary, the trace files and the JSON results (moved from cmd_hpl.c, which calls them).
 */
#include "cmd_hpl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char rule_eq[] =
    "================================================================================";
static const char rule_dash[] =
    "--------------------------------------------------------------------------------";
static const char resid_label[] = "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)";

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

void hyt_hpl_show_config(hpl_t *h)
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
void hyt_hpl_show_dat_notes(hpl_t *h)
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
    *json = hyt_cli_strdupf("%.*s%s%s", stem, path, suffix, ext);
    if (strcmp(ext, ".json") == 0)
        *svg = hyt_cli_strdupf("%.*s%s.svg", stem, path, suffix);
    else
        *svg = hyt_cli_strdupf("%.*s%s%s.svg", stem, path, suffix, ext);
    if (!*json || !*svg) {
        free(*json);
        free(*svg);
        return hyt_error(HYT_ERR_NOMEM, "out of memory");
    }
    return 0;
}

int hyt_hpl_write_trace(hpl_t *h, const run_t *r)
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
    title = devices ? hyt_cli_strdupf("hytile hpl: N = %d, nb = %d, lookahead = %d, panel cores "
                                      "= %d, %d CPU workers, devices: %s", r->n, r->nb,
                                      r->lookahead, r->panel_cores,
                                      hyt_context_num_workers(h->ctx), devices)
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
void hyt_hpl_print_run(const run_t *r, double threshold)
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

void hyt_hpl_print_summary(const hpl_t *h)
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
void hyt_hpl_write_json(hpl_t *h, int done, int *status)
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
