/*
 * Host references of HPL's matrix on the devices (hyt_gpu_kernels.h): the specification the
 * CUDA kernels (gpu_dplghpl.cu, gpu_hpl_check.cu) are tested against, and the kernels of host
 * devices.  Built on the host generator, hyt_core_dplghpl, tile by tile (a tile generated
 * column-major, then transposed in place to CRRB), so they are HPL's numbers by construction.
 * The arguments are assumed valid (the dispatchers in gpu_kernels.c check them).
 */
#include "hyt_core_seq.h" /* hyt_core_dplghpl */
#include "hyt_gpu_kernels.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tile columns and rows of HPL's n x n matrix in tiles of nb, and this device's columns. */
static int tiles_of(int n, int nb) { return (int)(((int64_t)n + nb - 1) / nb); }
static int local_cols(int nt, int ndev, int index)
{
    return index < nt ? (nt - index + ndev - 1) / ndev : 0;
}
static int min_int(int a, int b) { return a < b ? a : b; }

void hyt_ref_dplghpl_crrb(double *cols, int n, int nb, int ndev, int index, int seed, double *b)
{
    int mt = tiles_of(n, nb), ncols = local_cols(mt, ndev, index);
    int64_t tile = (int64_t)nb * nb, colsz = mt * tile;
    for (int l = 0; l < ncols; l++) {
        int j = l * ndev + index, nbj = min_int(nb, n - j * nb);
        for (int i = 0; i < mt; i++) {
            double *t = cols + l * colsz + i * tile;
            int mb = min_int(nb, n - i * nb);
            memset(t, 0, (size_t)tile * sizeof *t); /* the padding of edge tiles */
            hyt_core_dplghpl(n, (int64_t)i * nb, (int64_t)j * nb, mb, nbj, t, nb, seed);
            hyt_ref_transpose_tiles(t, nb, 1);
        }
    }
    if (b && n > 0)
        hyt_core_dplghpl(n, 0, n, n, 1, b, n, seed); /* column n of the n x (n+1) matrix */
}

int hyt_ref_hpl_matvec(int n, int nb, int ndev, int index, int seed, const double *x,
                       double *ax, double *arow)
{
    int mt = tiles_of(n, nb), ncols = local_cols(mt, ndev, index);
    for (int r = 0; r < n; r++)
        ax[r] = arow[r] = 0.0;
    if (!ncols)
        return HYT_SUCCESS;
    double *t = malloc((size_t)nb * nb * sizeof *t);
    if (!t)
        return hyt_error(HYT_ERR_NOMEM, "hyt_ref_hpl_matvec: no memory for a tile of %d x %d",
                         nb, nb);
    /* Row by row, the columns in increasing order, a fresh partial sum per tile column added to
     * the row's total, explicit fma: the order and operations of the CUDA kernel. */
    for (int l = 0; l < ncols; l++) {
        int j = l * ndev + index, nbj = min_int(nb, n - j * nb);
        const double *xj = x + (int64_t)j * nb;
        for (int i = 0; i < mt; i++) {
            int mb = min_int(nb, n - i * nb);
            hyt_core_dplghpl(n, (int64_t)i * nb, (int64_t)j * nb, mb, nbj, t, nb, seed);
            for (int r = 0; r < mb; r++) {
                double st = 0.0, tt = 0.0;
                for (int c = 0; c < nbj; c++) {
                    double a = t[r + (int64_t)c * nb];
                    st = fma(a, xj[c], st);
                    tt += fabs(a);
                }
                ax[(int64_t)i * nb + r] += st;
                arow[(int64_t)i * nb + r] += tt;
            }
        }
    }
    free(t);
    return HYT_SUCCESS;
}

/* max(m, |v|), a NaN winning (as the host check's max_abs) */
static double max_abs_nan(double m, double v)
{
    v = fabs(v);
    return isnan(m) ? m : isnan(v) || v > m ? v : m;
}

void hyt_ref_hpl_norms(int n, int nparts, const double *ax, const double *arow, const double *x,
                       const double *b, double norms[4])
{
    double m[4] = {0, 0, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        double s = ax[i], t = arow[i];
        for (int p = 1; p < nparts; p++) {
            s += ax[(int64_t)p * n + i];
            t += arow[(int64_t)p * n + i];
        }
        m[0] = max_abs_nan(m[0], s - b[i]);
        m[1] = max_abs_nan(m[1], t);
        m[2] = max_abs_nan(m[2], x[i]);
        m[3] = max_abs_nan(m[3], b[i]);
    }
    memcpy(norms, m, sizeof m);
}

double hyt_hpl_scaled_residual(const double norms[4], int n)
{
    return norms[0] / (DBL_EPSILON * (norms[1] * norms[2] + norms[3]) * (double)n);
}
