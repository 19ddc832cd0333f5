/*
 * The built hytile program itself ($HYTILE_EXE): an hpl run, bad options of hpl and of the
 * benchmarks (bench-cpu, bench-gpu, bench-runtime: exit status 2 before measuring anything),
 * a bench-gpu run on a host device, every command's --help, help.
 */
#include "cli_test.h"

static void test_program(void)
{
    if (!getenv("HYTILE_EXE")) {
        printf("HYTILE_EXE not set: the program itself is not run\n");
        return;
    }
    char *out;
    int status = run_program("hpl -n 300 --devices none", &out);
    CHECK(status == 0 && strstr(out, "...... PASSED"), "hytile hpl: %d\n%s", status, out);
    free(out);
    status = run_program("hpl --nb=0", &out);
    CHECK(status == 2 && strstr(out, "--nb"), "hytile hpl --nb=0: %d\n%s", status, out);
    free(out);
    /* bench-cpu and bench-gpu --chol stop on a value they cannot use instead of measuring
     * something else */
    static const char *bad_bench[][2] = {{"bench-cpu -n 100 --nb 0", "--nb"},
                                         {"bench-cpu -n abc", "-n"},
                                         {"bench-cpu -n 100 --nb 99999", "lu.nb"},
                                         {"bench-cpu -n 100 --panel-cores 99999", "lu.panel_cores"},
                                         {"bench-cpu --layout foo", "usage"},
                                         {"bench-cpu -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 "
                                          "-n 9 -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 "
                                          "-n 9 -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 -n 9 "
                                          "-n 9 -n 9 -n 9 -n 9 -n 9",
                                          "-n: more than 32 sizes"},
                                         {"bench-cpu -n 100 --trace /nonexistent-dir/t.json",
                                          "--trace: cannot write"},
                                         {"bench-cpu -n 100 --trace -", "--trace -: a trace"},
                                         {"bench-gpu --chol 100 --trace - --devices host:1",
                                          "--trace -: a trace"},
                                         {"bench-gpu --chol 100 --reps 0 --devices host:1",
                                          "--reps: '0' is not a valid value"},
                                         {"bench-gpu --chol 100x --devices host:1",
                                          "--chol: '100x' is not a valid value"},
                                         {"bench-gpu --chol 100,0 --devices host:1",
                                          "--chol: '100,0' is not a valid value"}};
    for (size_t i = 0; i < sizeof bad_bench / sizeof bad_bench[0]; i++) {
        status = run_program(bad_bench[i][0], &out);
        CHECK(status == 2 && strstr(out, bad_bench[i][1]) && !strstr(out, "ratio"),
              "hytile %s: %d\n%s", bad_bench[i][0], status, out);
        free(out);
    }
    /* bench-gpu: every number whole and in range, an output file writable, before anything
     * runs (on host devices, which run the LU's benchmark without a GPU); --panel-sms only
     * with --panel, a count of SMs; a panel benchmark needs CUDA */
    static const char *bad_gpu[][2] = {
        {"bench-gpu --panel-sms 64", "usage"},
        {"bench-gpu --panel --panel-sms 0", "--panel-sms: 0 is out of range"},
        {"bench-gpu --panel --panel-sms abc", "--panel-sms: 'abc' is not a number"},
        {"bench-gpu --panel --panel-sms 8 -n 512 --nb 512 --devices host:1", "CUDA"},
        {"bench-gpu -n 300 --devices host:1 --reps 0", "--reps: 0 is out of range"},
        {"bench-gpu -n 300 --devices host:1 --reps -1", "--reps: -1 is negative"},
        {"bench-gpu -n 300 --devices host:1 --nb abc", "--nb: 'abc' is not a number"},
        {"bench-gpu -n 300 --devices host:1 --nb 100x", "--nb: '100x' is not a number"},
        {"bench-gpu -n 300,x --devices host:1", "-n: 'x' is not a number"},
        {"bench-gpu -n 300 --devices host:1 --lookahead 1,65", "--lookahead: 65 is out of range"},
        {"bench-gpu -n 300 --devices host:1 --lookahead 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
         "--lookahead: more than 16 values"},
        {"bench-gpu -n 300 --devices host:1 --trace /nonexistent-dir/t.json",
         "--trace: cannot write"},
        {"bench-gpu -n 300 --devices host:1 --trace-dev /nonexistent-dir/t.json",
         "--trace-dev: cannot write"},
        {"bench-gpu --panel -n 512 --trace t.json", "not --panel"},
        {"bench-gpu -n 300 --devices host:1 --trace -", "--trace -: a trace is written to a file"},
        {"bench-gpu --abi --reps 5x", "--reps: '5x' is not a number"},
        {"bench-gpu --abi -n 100,x", "-n: 'x' is not a number"},
        {"bench-gpu --abi --solve 0", "--solve: 0 is out of range"}};
    for (size_t i = 0; i < sizeof bad_gpu / sizeof bad_gpu[0]; i++) {
        status = run_program(bad_gpu[i][0], &out);
        CHECK(status == 2 && strstr(out, bad_gpu[i][1]) && !strstr(out, "hyt ms") &&
                  !strstr(out, "residual"),
              "hytile %s: %d\n%s", bad_gpu[i][0], status, out);
        free(out);
    }
    /* and with good values it runs: R timed runs, each result checked */
    status = run_program("bench-gpu -n 300 --nb 100 --reps 2 --no-peer --devices host:1", &out);
    CHECK(status == 0 && strstr(out, "best of 2") && strstr(out, "  300   100 "),
          "hytile bench-gpu on a host device: %d\n%s", status, out);
    free(out);
    status = run_program("bench-runtime --tasks 999999999999", &out);
    CHECK(status == 2 && strstr(out, "--tasks: 999999999999 is out of range"),
          "bench-runtime --tasks 999999999999: %d\n%s", status, out);
    free(out);
    /* every command's --help: its usage, exit 0 */
    static const char *helps[] = {"bench-cpu --help", "bench-gpu --help", "bench-gpu --chol -h",
                                  "bench-gpu --abi --help", "bench-runtime --help", "hpl --help",
                                  "tune --help"};
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++) {
        status = run_program(helps[i], &out);
        CHECK(status == 0 && strstr(out, "usage: hytile "), "hytile %s: %d\n%s",
              helps[i], status, out);
        free(out);
    }
    status = run_program("help", &out);
    CHECK(status == 0 && strstr(out, "hpl") && strstr(out, "tune"), "hytile help:\n%s", out);
    free(out);
}

int main(void)
{
    int skip = cli_test_begin();
    if (skip)
        return skip;
    test_program();
    return cli_test_end("test_cli_program");
}
