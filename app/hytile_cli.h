/* The hytile command's subcommands (drivers/hytile.c dispatches). */
#ifndef HYT_CLI_H
#define HYT_CLI_H

#include "hyt_runtime.h"

int hyt_cmd_bench_runtime(int argc, char **argv);
int hyt_cmd_bench_cpu(int argc, char **argv);
int hyt_cmd_bench_gpu(int argc, char **argv);
/* bench-gpu --chol (bench_chol_gpu.c), called by hyt_cmd_bench_gpu with its arguments */
int hyt_bench_chol_gpu(int argc, char **argv);
/* bench-gpu --abi (bench_abi.c): dgesv_ through libhytile.so's symbol against OpenBLAS's */
int hyt_bench_abi(int argc, char **argv);
int hyt_cmd_hpl(int argc, char **argv);
int hyt_cmd_tune(int argc, char **argv);

#endif
