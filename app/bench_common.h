/* What the benchmarks share (bench_common.c): the matrices they time and the check of a solve. */
#ifndef HYT_BENCH_COMMON_H
#define HYT_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Uniform(-0.5, 0.5) entries, a xorshift stream per column from seed: the m x n matrix a
 * (leading dimension lda). */
void hyt_bench_fill(double *a, int64_t m, int64_t n, int64_t lda, unsigned seed);
/* HPL's scaled residual ||b - A0 x||_oo / (eps (||A0||_oo ||x||_oo + ||b||_oo) n) of the n x n
 * A0; INFINITY without memory for it. */
double hyt_bench_residual(int n, const double *A0, const double *x, const double *b);

/* OpenBLAS's own symbol `name` (its dgetrf_, dpotrf_, dgesv_: the peer of a hytile routine
 * that the program itself may define too), looked up in the library that defines
 * cblas_dgemm; NULL when there is none or when it is `ours` (hytile's own).  With lib, *lib
 * is that library's path (valid while it is loaded), or NULL. */
void *hyt_bench_openblas_sym(const char *name, const void *ours, const char **lib);

/* v in fmt (one double conversion) in buf, or "-" where it was not measured (NaN or infinite):
 * the tables' columns.  HYT_NUM gives each use a buffer of its own (valid in its statement). */
const char *hyt_bench_num(char *buf, size_t size, const char *fmt, double v);
#define HYT_NUM(fmt, v) hyt_bench_num((char[32]){0}, 32, fmt, v)

#endif
