/* What the benchmarks share (see bench_common.h). */
#include "bench_common.h"

#include <cblas.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hyt_bench_fill(double *a, int64_t m, int64_t n, int64_t lda, unsigned seed)
{
    for (int64_t c = 0; c < n; c++) {
        unsigned long long s = (unsigned long long)(c + 1) * 0x9e3779b97f4a7c15ULL + seed;
        for (int64_t r = 0; r < m; r++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            a[r + c * lda] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
        }
    }
}

double hyt_bench_residual(int n, const double *A0, const double *x, const double *b)
{
    double *r = malloc((size_t)n * sizeof *r), an = 0, xn = 0, bn = 0, rn = 0;
    double *rowsum = calloc((size_t)n, sizeof *rowsum);
    if (!r || !rowsum) {
        free(r);
        free(rowsum);
        return INFINITY;
    }
    memcpy(r, b, (size_t)n * sizeof *r);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1.0, A0, n, x, 1, 1.0, r, 1);
    for (int64_t j = 0; j < n; j++) /* column by column: A0 is read in its order */
        for (int64_t i = 0; i < n; i++)
            rowsum[i] += fabs(A0[i + j * n]);
    for (int i = 0; i < n; i++) {
        an = fmax(an, rowsum[i]);
        xn = fmax(xn, fabs(x[i]));
        bn = fmax(bn, fabs(b[i]));
        rn = fmax(rn, fabs(r[i]));
    }
    free(r);
    free(rowsum);
    return rn / (DBL_EPSILON * (an * xn + bn) * n);
}

void *hyt_bench_openblas_sym(const char *name, const void *ours, const char **lib)
{
    Dl_info info;
    void *h = NULL, *f = NULL;
    if (lib)
        *lib = NULL;
    if (dladdr((void *)cblas_dgemm, &info) && info.dli_fname)
        h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return NULL;
    f = dlsym(h, name);
    dlclose(h); /* loaded before (NOLOAD): it stays, and f with it */
    if (!f || f == ours)
        return NULL;
    if (lib)
        *lib = info.dli_fname;
    return f;
}

const char *hyt_bench_num(char *buf, size_t size, const char *fmt, double v)
{
    if (!isfinite(v))
        return "-";
    snprintf(buf, size, fmt, v);
    return buf;
}
