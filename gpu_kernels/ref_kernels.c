/*
 * Host references of the device kernels (hyt_gpu_kernels.h): the specification the CUDA
 * versions are tested against, and the kernels of the "host" device backend, which lets
 * machines without a GPU run the whole hybrid algorithm.  Plain C, always compiled.  The
 * arguments are assumed valid (the dispatchers in gpu_kernels.c check them).
 */
#include "hyt_core_seq.h" /* the sequential panel and Cholesky the references build on */
#include "hyt_gpu_geometry.h"
#include "hyt_gpu_kernels.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

void hyt_ref_transpose_tiles(double *tiles, int nb, int64_t ntiles)
{
    int64_t sz = (int64_t)nb * nb;
    for (int64_t t = 0; t < ntiles; t++) {
        double *a = tiles + t * sz;
        for (int64_t r = 0; r < nb; r++)
            for (int64_t c = r + 1; c < nb; c++) {
                double x = a[r * nb + c];
                a[r * nb + c] = a[c * nb + r];
                a[c * nb + r] = x;
            }
    }
}

void hyt_ref_dlaswp_plan(int r1, int npiv, const int *ipiv, int *plan)
{
    int *sp = plan + 2 * (size_t)npiv; /* the pivots, 0-based, until the last entries are set */
    for (int q = 0; q < npiv; q++)
        sp[q] = ipiv[q] - 1 < r1 + q ? r1 + q : ipiv[q] - 1;
    for (int q = 0; q < npiv; q++)
        plan[q] = hyt_laswp_content_before(sp, r1, sp[q], q);
    for (int q = 0; q < npiv; q++) {
        const int p = sp[q];
        int u = q + 1;
        while (u < npiv && sp[u] != p)
            u++;
        plan[npiv + q] = p >= r1 + npiv && u == npiv ? p : -1;
    }
    /* plan[2 npiv + q] last, from the highest q down: the walk for q reads sp[0 .. q) */
    for (int q = npiv - 1; q >= 0; q--)
        plan[2 * npiv + q] =
            plan[npiv + q] >= 0 ? hyt_laswp_content_before(sp, r1, r1 + q, q) : 0;
}

void hyt_ref_dlaswp_gather(const double *col0, int64_t colstride, int ncols, int nb, int npiv,
                           const int *plan, double *top, int64_t topstride)
{
    for (int b = 0; b < ncols; b++)
        for (int q = 0; q < npiv; q++)
            memcpy(top + b * topstride + (int64_t)q * nb,
                   col0 + b * colstride + (int64_t)plan[q] * nb, (size_t)nb * sizeof *top);
}

void hyt_ref_dlaswp_scatter(double *col0, int64_t colstride, int ncols, int nb, int npiv,
                            const int *plan)
{
    for (int b = 0; b < ncols; b++)
        for (int q = 0; q < npiv; q++)
            if (plan[npiv + q] >= 0)
                memcpy(col0 + b * colstride + (int64_t)plan[npiv + q] * nb,
                       col0 + b * colstride + (int64_t)plan[2 * npiv + q] * nb,
                       (size_t)nb * sizeof *col0);
}

void hyt_ref_dlaswp_crrb(double *col0, int64_t colstride, int ncols, int nb, int r1, int npiv,
                         const int *ipiv)
{
    for (int b = 0; b < ncols; b++) {
        double *col = col0 + (int64_t)b * colstride;
        for (int q = 0; q < npiv; q++) {
            /* row r of a CRRB column: (r/nb)*nb*nb + (r%nb)*nb = r*nb, nb contiguous doubles */
            int64_t r = (int64_t)r1 + q, p = (int64_t)ipiv[q] - 1;
            if (p == r || p < 0) /* p < 0: invalid pivot, ignored as by the CUDA kernel */
                continue;
            double *x = col + r * nb, *y = col + p * nb;
            for (int c = 0; c < nb; c++) {
                double t = x[c];
                x[c] = y[c];
                y[c] = t;
            }
        }
    }
}

static enum CBLAS_TRANSPOSE cblas_trans(char t)
{
    return t == 'N' || t == 'n' ? CblasNoTrans : CblasTrans;
}

void hyt_ref_dgemm_batched(char transa, char transb, int m, int n, int k, double alpha,
                           const double *A, int lda, int64_t strideA, const double *B, int ldb,
                           int64_t strideB, double beta, double *C, int ldc, int64_t strideC,
                           int batch)
{
    if (m <= 0 || n <= 0)
        return;
    for (int b = 0; b < batch; b++) {
        /* with k == 0, A and B are never read and may be NULL: no arithmetic on them then */
        const double *Ab = k ? A + b * strideA : A, *Bb = k ? B + b * strideB : B;
        cblas_dgemm(CblasColMajor, cblas_trans(transa), cblas_trans(transb), m, n, k, alpha, Ab,
                    lda, Bb, ldb, beta, C + b * strideC, ldc);
    }
}

void hyt_ref_transpose_tiles_strided(double *tiles, int nb, int64_t ntiles, int64_t stride)
{
    for (int64_t t = 0; t < ntiles; t++)
        hyt_ref_transpose_tiles(tiles + t * stride, nb, 1);
}

int hyt_ref_dgetrf_crrb(double *A, int m, int n, int nb, int *ipiv, double *work)
{
    for (int64_t r = 0; r < m; r++)
        for (int64_t c = 0; c < n; c++)
            work[r + c * m] = A[c + r * nb];
    int info = hyt_core_dgetrf_seq(m, n, work, m > 1 ? m : 1, ipiv);
    for (int64_t r = 0; r < m; r++)
        for (int64_t c = 0; c < n; c++)
            A[c + r * nb] = work[r + c * m];
    return info;
}

int hyt_ref_dpotf2(char uplo, int n, double *a, int lda)
{
    return hyt_core_dpotrf(uplo, n, a, lda);
}

void hyt_ref_dtrsm_few(char side, char uplo, char transa, char diag, int m, int n, double alpha,
                       const double *A, int lda, double *B, int ldb)
{
    const int left = side == 'L' || side == 'l', nrhs = left ? n : m, order = left ? m : n;
    const int notrans = transa == 'N' || transa == 'n', lower = uplo == 'L' || uplo == 'l';
    const int unit = diag == 'U' || diag == 'u';
    /* M = op(A)^T ('R') or op(A) ('L'), read transposed (ta) or not; reversed when upper */
    const int ta = left ? !notrans : notrans, rev = lower == ta;
    const int64_t xoff = left ? ldb : 1, xinc = left ? 1 : ldb;
#define IDX(i) ((int64_t)(rev ? order - 1 - (i) : (i)))
#define M(i, j) (ta ? A[IDX(j) + IDX(i) * lda] : A[IDX(i) + IDX(j) * lda])
#define Y(i) x[IDX(i) * xinc]
    for (int b = 0; b < nrhs; b++) {
        double *x = B + b * xoff;
        for (int i = 0; i < order; i++)
            x[i * xinc] = alpha == 0.0 ? 0.0 : alpha * x[i * xinc];
        if (alpha == 0.0)
            continue;
        for (int j0 = 0; j0 < order; j0 += 32) { /* the kernel's blocks */
            const int j1 = order - j0 < 32 ? order : j0 + 32;
            for (int j = j0; j < j1; j++) {
                if (!unit) {
                    const double d = M(j, j), ad = fabs(d);
                    Y(j) = ad >= 0x1p-1022 && ad <= 0x1p1021 ? Y(j) * (1.0 / d) : Y(j) / d;
                }
                for (int i = j + 1; i < j1; i++)
                    Y(i) = fma(-M(i, j), Y(j), Y(i));
            }
            for (int i = j1; i < order; i++) { /* below the block (a whole one) */
                if (!ta) {
                    for (int j = j0; j < j1; j++)
                        Y(i) = fma(-M(i, j), Y(j), Y(i));
                    continue;
                }
                double p[8];
                for (int g = 0; g < 8; g++) {
                    p[g] = 0.0;
                    for (int c = 0; c < 4; c++)
                        p[g] = fma(M(i, j0 + g + 8 * c), Y(j0 + g + 8 * c), p[g]);
                }
                Y(i) = Y(i) - (((p[0] + p[4]) + (p[2] + p[6])) + ((p[1] + p[5]) + (p[3] + p[7])));
            }
        }
    }
#undef Y
#undef M
#undef IDX
}

void hyt_ref_dtrtri_diag(char uplo, int n, int bs, const double *T, int ldt, double *W, int ldw)
{
    const int upper = uplo == 'U' || uplo == 'u';
    /* M(i, k) of block q0 (M = T_qq, or T_qq^T where T is upper), and W's X(i, j) */
#define M(i, k)                                                                                 \
    (upper ? T[q0 + (k) + (int64_t)(q0 + (i)) * ldt] : T[q0 + (i) + (int64_t)(q0 + (k)) * ldt])
#define X(i, j)                                                                                 \
    (*(upper ? &W[q0 + (j) + (int64_t)(q0 + (i)) * ldw] : &W[q0 + (i) + (int64_t)(q0 + (j)) * ldw]))
    for (int q0 = 0; q0 < n; q0 += bs) {
        const int w = n - q0 < bs ? n - q0 : bs;
        for (int j = 0; j < w; j++) {
            const int o = j / 32 * 32; /* the first column of the kernel's CTA */
            for (int i = 0; i < w; i++) {
                if (i < j) {
                    X(i, j) = 0.0;
                    continue;
                }
                const double r = 1.0 / M(i, i);
                double p[4];
                for (int t = 0; t < 4; t++) {
                    p[t] = 0.0;
                    for (int k = o + t; k < i; k += 4)
                        p[t] = fma(M(i, k), X(k, j), p[t]);
                }
                X(i, j) = ((i == j ? 1.0 : 0.0) - ((p[0] + p[1]) + (p[2] + p[3]))) * r;
            }
        }
    }
#undef M
#undef X
}
