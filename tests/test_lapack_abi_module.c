/*
 * XERBLA overridden by a module loaded with RTLD_LOCAL (as numpy's lapack_lite does): with
 * libhytile preloaded, a bad argument to a LAPACK routine the module calls (OpenBLAS's dpotrf_,
 * and dgesv_, hytile's) reaches the module's xerbla_, as it does without hytile.  Run with and without
 * LD_PRELOAD; argument: the module's path.
 */
#include "hyt_test.h"

#include <dlfcn.h>

int main(int argc, char **argv)
{
    REQUIRE(argc == 2, "usage: test_lapack_abi_module MODULE");
    void *m = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    REQUIRE(m, "dlopen %s: %s", argv[1], dlerror());
    int (*bad_dpotrf)(void) = (int (*)(void))dlsym(m, "module_bad_dpotrf");
    int *calls = dlsym(m, "module_xerbla_calls"), *xinfo = dlsym(m, "module_xerbla_info");
    const char *xname = dlsym(m, "module_xerbla_name");
    REQUIRE(bad_dpotrf && calls && xinfo && xname, "module symbols");

    int info = bad_dpotrf();
    CHECK(info == -1 && *calls == 1 && *xinfo == 1 && !strncmp(xname, "DPOTRF", 6),
          "dpotrf_: info %d, the module's xerbla_ called %d times (info %d, '%.6s')", info,
          *calls, *xinfo, xname);

    /* dgesv_ as the module finds it: hytile's when preloaded, else the LAPACK library's */
    int (*bad_dgesv)(void) = (int (*)(void))dlsym(m, "module_bad_dgesv");
    REQUIRE(bad_dgesv, "module_bad_dgesv");
    info = bad_dgesv();
    CHECK(info == -1 && *calls == 2 && *xinfo == 1 && !strncmp(xname, "DGESV", 5),
          "dgesv_: info %d, the module's xerbla_ called %d times (info %d, '%.6s')", info,
          *calls, *xinfo, xname);
    dlclose(m);
    return test_result("test_lapack_abi_module");
}
