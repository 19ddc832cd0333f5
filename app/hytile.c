/* hytile: the command.  `hytile help` lists the subcommands. */
#include "config.h"
#include "hytile_cli.h"

#include <stdio.h>
#include <string.h>

typedef struct cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} cmd_t;

static const cmd_t cmds[] = {
    {"bench-cpu", hyt_cmd_bench_cpu, "CPU LU and panel against OpenBLAS dgetrf"},
    {"bench-gpu", hyt_cmd_bench_gpu, "hybrid LU against cuSOLVER / cusolverMg"},
    {"bench-runtime", hyt_cmd_bench_runtime, "runtime cost per task (empty tasks)"},
    {"hpl", hyt_cmd_hpl, "HPL's benchmark: generate, factor, solve, check HPL's residual"},
    {"tune", hyt_cmd_tune, "sweep nb, lookahead, panel cores; write the best to a config file"},
};

static int usage(FILE *f)
{
    fprintf(f, "hytile %s: hybrid multi-CPU, multi-GPU tiled LU\n\nusage: hytile COMMAND "
               "[options]   (hytile COMMAND --help for its options)\n\ncommands:\n",
            HYT_VERSION);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(f, "  %-15s %s\n", cmds[i].name, cmds[i].help);
    return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return usage(stdout);
    if (!strcmp(argv[1], "--version")) {
        printf("hytile %s\n", HYT_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name))
            return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "hytile: unknown command '%s'\n\n", argv[1]);
    return usage(stderr);
}
