/*
 * hytile bench-runtime: the runtime's cost per task, with empty task bodies.
 *   lu-dag       the DAG of a tile LU (panel, swap+trsm per column, gemm per tile) on nt x nt
 *                tiles, every dependency resolved by the runtime
 *   independent  tasks with no dependencies
 * Prints microseconds per task (wall time from the first insertion to the end of the wait,
 * divided by the number of tasks), best of several repetitions; then the cost of one barrier
 * of a gang task (16 threads and all workers), with the counter and the rank-aware barrier.
 */
#include "cli_common.h"
#include "hyt_internal.h"
#include "hytile_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int empty_body(const hyt_task_ctx_t *tc, void *args)
{
    (void)tc;
    (void)args;
    return 0;
}

static const hyt_kernel_t k_panel = {.name = "panel", .cpu = empty_body, .cat = HYT_CAT_PANEL};
static const hyt_kernel_t k_trsm = {.name = "trsm", .cpu = empty_body, .cat = HYT_CAT_UPDATE};
static const hyt_kernel_t k_gemm = {.name = "gemm", .cpu = empty_body, .cat = HYT_CAT_UPDATE};
static const hyt_kernel_t k_empty = {.name = "empty", .cpu = empty_body, .cat = HYT_CAT_OTHER};

/* A gang body that passes `rounds` barriers: the counter one or the rank-aware one. */
typedef struct { long rounds; int ranked; } bar_args_t;
static int barrier_body(const hyt_task_ctx_t *tc, void *args)
{
    const bar_args_t *a = args;
    for (long i = 0; i < a->rounds; i++) {
        if (a->ranked)
            hyt_task_barrier(tc);
        else
            hyt_barrier_wait(tc->barrier);
    }
    return 0;
}
static const hyt_kernel_t k_barrier = {.name = "barrier", .cpu = barrier_body,
                                       .cat = HYT_CAT_OTHER};

/* Nanoseconds per barrier for a gang of k threads (best of reps), or -1. */
static double barrier_ns(hyt_context_t *ctx, int k, int ranked, int reps)
{
    bar_args_t a = {20000, ranked};
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        hyt_sequence_t *seq;
        if (hyt_sequence_create(ctx, &seq))
            return -1;
        hyt_task_desc_t d = hyt_task_desc(&k_barrier, &a, sizeof a);
        d.nthreads = k;
        double t0 = hyt_wtime();
        hyt_task_insert(seq, &d);
        int rc = hyt_sequence_wait(seq);
        double t = hyt_wtime() - t0;
        hyt_sequence_destroy(seq);
        if (rc)
            return -1;
        if (t < best)
            best = t;
    }
    return best / (double)a.rounds * 1e9;
}

static long lu_dag(hyt_sequence_t *seq, char *tiles, int nt, int panel_threads)
{
    long n = 0;
    hyt_dep_t *deps = malloc((size_t)(nt + 2) * sizeof *deps);
#define T(i, j) (tiles + (size_t)(j) * (size_t)nt + (size_t)(i))
    for (int k = 0; k < nt; k++) {
        hyt_task_desc_t d = hyt_task_desc(&k_panel, NULL, 0);
        int nd = 0;
        for (int i = k; i < nt; i++)
            deps[nd++] = (hyt_dep_t){T(i, k), HYT_RW};
        d.deps = deps;
        d.ndeps = nd;
        d.priority = 3;
        d.nthreads = panel_threads;
        hyt_task_insert(seq, &d);
        n++;
        for (int j = k + 1; j < nt; j++) {
            d = hyt_task_desc(&k_trsm, NULL, 0);
            nd = 0;
            deps[nd++] = (hyt_dep_t){T(k, k), HYT_READ};
            for (int i = k; i < nt; i++)
                deps[nd++] = (hyt_dep_t){T(i, j), HYT_RW};
            d.deps = deps;
            d.ndeps = nd;
            d.priority = j == k + 1 ? 2 : 1;
            hyt_task_insert(seq, &d);
            n++;
            for (int i = k + 1; i < nt; i++) {
                hyt_dep_t g[3] = {{T(i, k), HYT_READ}, {T(k, j), HYT_READ}, {T(i, j), HYT_RW}};
                d = hyt_task_desc(&k_gemm, NULL, 0);
                d.deps = g;
                d.ndeps = 3;
                d.priority = j == k + 1 ? 2 : 0;
                hyt_task_insert(seq, &d);
                n++;
            }
        }
    }
#undef T
    free(deps);
    return n;
}

static int usage(FILE *f)
{
    fprintf(f, "usage: hytile bench-runtime [--nt TILES] [--tasks N] [--reps R]\n"
               "  (cores, workers and window come from the configuration: HYT_*)\n");
    return f == stdout ? 0 : 2;
}

int hyt_cmd_bench_runtime(int argc, char **argv)
{
    /* bounded so that a run ends in minutes: nt^3/3 tasks in the LU DAG, 10^8 independent */
    long nt = 60, reps = 5, nind = 1000000;
    const char *cmd = "hytile bench-runtime";
    if (hyt_cli_wants_help(argc, argv))
        return usage(stdout);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--nt") && i + 1 < argc) {
            if (hyt_cli_int(cmd, "--nt", argv[++i], 1, 300, &nt))
                return 2;
        } else if (!strcmp(argv[i], "--tasks") && i + 1 < argc) {
            if (hyt_cli_int(cmd, "--tasks", argv[++i], 1, 100000000L, &nind))
                return 2;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            if (hyt_cli_int(cmd, "--reps", argv[++i], 1, 1000, &reps))
                return 2;
        } else {
            return usage(stderr);
        }
    }
    hyt_context_t *ctx;
    if (hyt_context_create(NULL, &ctx)) {
        fprintf(stderr, "hytile: %s\n", hyt_last_error());
        return 1;
    }
    int nw = hyt_context_num_workers(ctx);
    char *tiles = calloc((size_t)nt * (size_t)nt, 1);
    printf("runtime overhead, %d workers, empty task bodies\n", nw);
    printf("%-28s %10s %12s %12s\n", "DAG", "tasks", "seconds", "us/task");
    for (int pass = 0; pass < 2; pass++) {
        double best = 1e30;
        long n = 0;
        for (int r = 0; r < reps; r++) {
            hyt_sequence_t *seq;
            hyt_sequence_create(ctx, &seq);
            double t0 = hyt_wtime();
            if (pass == 0) {
                n = lu_dag(seq, tiles, (int)nt, 1);
            } else {
                for (long i = 0; i < nind; i++) {
                    hyt_task_desc_t d = hyt_task_desc(&k_empty, NULL, 0);
                    hyt_task_insert(seq, &d);
                }
                n = nind;
            }
            int rc = hyt_sequence_wait(seq);
            double t = hyt_wtime() - t0;
            hyt_sequence_destroy(seq);
            if (rc) {
                fprintf(stderr, "hytile: %s\n", hyt_strerror(rc));
                return 1;
            }
            if (t < best)
                best = t;
        }
        char name[64];
        if (pass == 0)
            snprintf(name, sizeof name, "tile LU, %ld x %ld tiles", nt, nt);
        else
            snprintf(name, sizeof name, "independent");
        printf("%-28s %10ld %12.4f %12.3f\n", name, n, best, best / (double)n * 1e6);
    }
    int ks[2] = {nw < 16 ? nw : 16, nw};
    for (int i = 0; i < 2 && ks[i] > 1; i++) {
        if (i == 1 && ks[1] == ks[0])
            break;
        printf("gang barrier, %3d threads: counter %8.1f ns   dissemination %8.1f ns\n", ks[i],
               barrier_ns(ctx, ks[i], 0, (int)reps), barrier_ns(ctx, ks[i], 1, (int)reps));
    }
    free(tiles);
    hyt_context_destroy(ctx);
    return 0;
}
