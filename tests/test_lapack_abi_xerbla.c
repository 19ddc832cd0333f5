/*
 * A program without its own XERBLA, linked with libhytile: a bad argument to the LAPACK ABI
 * gets LAPACK's message (from the BLAS library's XERBLA: OpenBLAS's prints on stdout; or
 * hytile's own text on stderr when there is none) and INFO = -i, and the program goes on.
 */
#include "hyt_test.h"

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);

int main(void)
{
    test_capture_t cap;
    test_capture_start(&cap);
    double a[4] = {1, 2, 3, 4}, b[2] = {1, 1};
    int ipiv[2], n = 2, one = 1, bad = -1, info = 0;
    dgesv_(&bad, &one, a, &n, ipiv, b, &n, &info);
    int info1 = info;
    dgesv_(&n, &one, a, &one, ipiv, b, &n, &info);
    char text[1024];
    test_capture_end(&cap, text, sizeof text);
    CHECK(info1 == -1 && info == -4, "info %d and %d, expected -1 and -4", info1, info);
    CHECK(strstr(text, "On entry to DGESV") && strstr(text, "parameter number  1 had an illegal")
              && strstr(text, "parameter number  4 had an illegal"), "output:\n%s", text);
    return test_result("test_lapack_abi_xerbla");
}
