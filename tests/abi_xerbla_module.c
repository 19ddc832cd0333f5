/*
 * A stand-in for numpy's lapack_lite: a module loaded with RTLD_LOCAL that has its own xerbla_
 * (numpy's raises a Python exception) and calls the LAPACK library.  Used by
 * test_lapack_abi_module.c.
 */
#include <stddef.h>
#include <string.h>

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t len);
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);

int module_xerbla_calls, module_xerbla_info;
char module_xerbla_name[8];

void xerbla_(const char *srname, const int *info, size_t len)
{
    module_xerbla_calls++;
    module_xerbla_info = *info;
    memcpy(module_xerbla_name, srname, len < 7 ? len : 7);
}

/* A bad uplo to the LAPACK library's own dpotrf_: its XERBLA call must reach ours. */
int module_bad_dpotrf(void)
{
    int n = 2, lda = 2, info = 0;
    double a[4] = {4, 1, 1, 4};
    dpotrf_("X", &n, a, &lda, &info, 1);
    return info;
}

/* A bad n to dgesv_ as the module finds it: hytile's when preloaded, else the library's. */
int module_bad_dgesv(void)
{
    double a[4] = {1, 2, 3, 4}, b[2] = {1, 1};
    int ipiv[2], n = 2, one = 1, bad = -1, info = 0;
    dgesv_(&bad, &one, a, &n, ipiv, b, &n, &info);
    return info;
}
