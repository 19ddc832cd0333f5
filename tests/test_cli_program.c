/*
 * The built hytile program itself ($HYTILE_EXE): an hpl run, bad options of hpl and of the
 * benchmarks (bench-cpu, bench-gpu --panel, bench-runtime: exit status 2 before measuring
 * anything), help.
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
    /* bench-cpu stops on a value it cannot use instead of measuring something else */
    static const char *bad_bench[][2] = {{"bench-cpu -n 100 --nb 0", "--nb"},
                                         {"bench-cpu -n abc", "-n"},
                                         {"bench-cpu -n 100 --nb 99999", "lu.nb"},
                                         {"bench-cpu -n 100 --panel-cores 99999", "lu.panel_cores"},
                                         {"bench-cpu --layout foo", "usage"}};
    for (size_t i = 0; i < sizeof bad_bench / sizeof bad_bench[0]; i++) {
        status = run_program(bad_bench[i][0], &out);
        CHECK(status == 2 && strstr(out, bad_bench[i][1]) && !strstr(out, "ratio"),
              "hytile %s: %d\n%s", bad_bench[i][0], status, out);
        free(out);
    }
    /* bench-gpu --panel-sms: only with --panel, a count of SMs; a panel benchmark needs CUDA */
    static const char *bad_gpu[][2] = {{"bench-gpu --panel-sms 64", "usage"},
                                       {"bench-gpu --panel --panel-sms 0", "usage"},
                                       {"bench-gpu --panel --panel-sms abc", "usage"},
                                       {"bench-gpu --panel --panel-sms 8 -n 512 --nb 512 "
                                        "--devices host:1",
                                        "CUDA"}};
    for (size_t i = 0; i < sizeof bad_gpu / sizeof bad_gpu[0]; i++) {
        status = run_program(bad_gpu[i][0], &out);
        CHECK(status == 2 && strstr(out, bad_gpu[i][1]) && !strstr(out, "hyt ms"),
              "hytile %s: %d\n%s", bad_gpu[i][0], status, out);
        free(out);
    }
    status = run_program("bench-runtime --tasks 999999999999", &out);
    CHECK(status == 2 && strstr(out, "--tasks: 999999999999 is out of range"),
          "bench-runtime --tasks 999999999999: %d\n%s", status, out);
    free(out);
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
