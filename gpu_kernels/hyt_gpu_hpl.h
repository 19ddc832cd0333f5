/*
 * HPL's matrix on the devices: the LCG arithmetic, the launch geometry and the work of one
 * thread of the CUDA generator (gpu_dplghpl.cu) and of the check by regeneration
 * (gpu_hpl_check.cu).  Plain C with __host__ __device__ functions, as hyt_gpu_geometry.h, so
 * that tests/test_gpu_hpl.c runs every thread of small launches on the host: the CUDA kernels'
 * arithmetic and indices are checked bit for bit even where no GPU is present.  Internal.
 *
 * The generator (cpu_kernels/core_dplghpl.c): X(k+1) = a X(k) + 1 mod 2^31, X(0) = seed, entry
 * (r, c) of HPL's n x (n+1) matrix is 0.5 - X(c*n + r + 1) / 2^31, b is its column n.  A map
 * x -> a x + c mod 2^31 is kept in 32-bit unsigned arithmetic: the products wrap mod 2^32, a
 * multiple of 2^31, so masking to 31 bits gives the same numbers as the host's 64-bit code
 * (and a GPU does one 32-bit IMAD instead of an emulated 64-bit product).
 *
 * The device layout is the hybrid LU's (drivers/lu/lu_gpu.h): device `index` of `ndev`
 * holds the tile columns j with j % ndev == index, local column l = j / ndev at cols + l*colsz
 * with colsz = mt*nb*nb, mt = nt = ceil(n/nb): mt CRRB tiles on top of each other, so element
 * (global row R, column c of the tile column) is at cols + l*colsz + R*nb + c.  Padding (rows
 * R >= n, columns j*nb + c >= n of the last tile column) is zero, as the host tiles are
 * (tiles/desc.c): whole-tile GEMMs and copies of the LU never meet garbage.
 */
#ifndef HYT_GPU_HPL_H
#define HYT_GPU_HPL_H

#include "hyt_gpu_geometry.h"

#include <math.h>
#include <stdint.h>

#define HYT_HPL_MASK 0x7fffffffu
/* HPL's multiplier 1284865837 + 2^16 * 1481765933, mod 2^31 */
#define HYT_HPL_MULT ((uint32_t)((1284865837ULL + 65536ULL * 1481765933ULL) & 0x7fffffffULL))

/* Generator: a block is 32 columns (threadIdx.x: consecutive columns of a tile row, so a warp
 * writes 256 contiguous bytes of a CRRB row) x HYT_PLG_BY row chunks; a thread writes
 * HYT_PLG_ROWS consecutive rows of its column, each one LCG step from the one above. */
#define HYT_PLG_BX 32
#define HYT_PLG_BY 8
#define HYT_PLG_ROWS 64
/* Check: one thread per row, 128 rows per block; the norms: one block of HYT_NORMS_BLOCK. */
#define HYT_HPLMV_BLOCK 128
#define HYT_NORMS_BLOCK 256

typedef struct hyt_hpl_lcg {
    uint32_t a, c; /* x -> a x + c (mod 2^31) */
} hyt_hpl_lcg_t;

/* g after f */
HYT_GEOM_FN hyt_hpl_lcg_t hyt_hpl_compose(hyt_hpl_lcg_t f, hyt_hpl_lcg_t g)
{
    hyt_hpl_lcg_t r;
    r.a = (g.a * f.a) & HYT_HPL_MASK;
    r.c = (g.a * f.c + g.c) & HYT_HPL_MASK;
    return r;
}

/* k steps of the generator, by repeated squaring (at most 64 rounds). */
HYT_GEOM_FN hyt_hpl_lcg_t hyt_hpl_jump(uint64_t k)
{
    hyt_hpl_lcg_t r, b;
    r.a = 1;
    r.c = 0;
    b.a = HYT_HPL_MULT;
    b.c = 1;
    while (k) {
        if (k & 1)
            r = hyt_hpl_compose(r, b);
        b = hyt_hpl_compose(b, b);
        k >>= 1;
    }
    return r;
}

HYT_GEOM_FN uint32_t hyt_hpl_apply(hyt_hpl_lcg_t f, uint32_t x)
{
    return (f.a * x + f.c) & HYT_HPL_MASK;
}

/* The entry of state x; exact (x / 2^31 and 0.5 minus it are representable), so any
 * evaluation order or contraction gives the host's bits. */
HYT_GEOM_FN double hyt_hpl_value(uint32_t x) { return 0.5 - (double)x / 2147483648.0; }

/* The distribution of HPL's n x n matrix over the devices, seen from device `index`, with the
 * maps the check steps with. */
typedef struct hyt_hpl_dist {
    int64_t n;              /* global order */
    int nb, ndev, index;
    int mt;                 /* tile rows = tile columns = ceil(n/nb) */
    int ncols;              /* this device's tile columns */
    int64_t colsz;          /* doubles per local column: mt*nb*nb */
    uint32_t seed;          /* seed & HYT_HPL_MASK */
    hyt_hpl_lcg_t right;    /* one column to the right: n steps */
    hyt_hpl_lcg_t skip;     /* from column (j+1)*nb to (j+ndev)*nb: (ndev-1)*nb*n steps */
} hyt_hpl_dist_t;

/* Fills D; returns 0, or -1 when the arguments are invalid (n < 0, nb < 1, ndev < 1, index
 * outside 0..ndev-1) or the local columns overflow 64-bit offsets. */
HYT_GEOM_FN int hyt_hpl_dist_init(int64_t n, int nb, int ndev, int index, int seed,
                                  hyt_hpl_dist_t *D)
{
    if (n < 0 || n > 2147483647LL || nb < 1 || ndev < 1 || index < 0 || index >= ndev)
        return -1;
    int64_t mt = (n + nb - 1) / nb;
    D->n = n;
    D->nb = nb;
    D->ndev = ndev;
    D->index = index;
    D->mt = (int)mt;
    D->ncols = index < mt ? (int)((mt - index + ndev - 1) / ndev) : 0;
    D->colsz = mt * nb * (int64_t)nb; /* mt*nb < n + nb < 2^32, nb < 2^31: no overflow */
    if (D->ncols > 0 && D->colsz > INT64_MAX / D->ncols)
        return -1;
    D->seed = (uint32_t)seed & HYT_HPL_MASK;
    D->right = hyt_hpl_jump((uint64_t)n);
    D->skip = hyt_hpl_jump((uint64_t)(ndev - 1) * (uint64_t)nb * (uint64_t)n);
    return 0;
}

/* The state of entry (r, c) of HPL's n x (n+1) matrix. */
HYT_GEOM_FN uint32_t hyt_hpl_state(const hyt_hpl_dist_t *D, int64_t r, int64_t c)
{
    return hyt_hpl_apply(hyt_hpl_jump((uint64_t)c * (uint64_t)D->n + (uint64_t)r + 1), D->seed);
}

/* ---------------------------------------------------------------------------------------------
 * Generator.  grid.x = (row blocks of HYT_PLG_BY*HYT_PLG_ROWS rows) x (32-column patches of a
 * tile column), patch fastest; grid.y x grid.z = the local columns.  Returns 0 (launch), 1
 * (nothing to do: no local column) or -1 (too large for a grid).
 */
HYT_GEOM_FN int hyt_plg_launch(const hyt_hpl_dist_t *D, hyt_launch_t *L)
{
    if (D->ncols == 0)
        return 1;
    int64_t px = ((int64_t)D->nb + HYT_PLG_BX - 1) / HYT_PLG_BX;
    int64_t rows = (int64_t)D->mt * D->nb, per = HYT_PLG_BY * HYT_PLG_ROWS;
    int64_t ry = (rows + per - 1) / per;
    if (px > HYT_GRID_MAX_X / ry)
        return -1;
    L->grid[0] = (unsigned)(px * ry);
    L->block[0] = HYT_PLG_BX;
    L->block[1] = HYT_PLG_BY;
    L->block[2] = 1;
    return hyt_geom_split_yz(D->ncols, &L->grid[1], &L->grid[2]);
}

/* The work of thread (tx, ty) of block (bx, by, bz) in a grid of gy blocks along y: rows
 * r0..r0+HYT_PLG_ROWS-1 (those below mt*nb) of column c of local column l.  Writes the
 * entries, zeros in the padding.  Returns the number of elements written (0: idle thread). */
HYT_GEOM_FN int hyt_plg_thread(const hyt_hpl_dist_t *D, double *cols, unsigned bx, unsigned by,
                               unsigned bz, unsigned gy, unsigned tx, unsigned ty)
{
    int64_t l = (int64_t)bz * gy + by;
    unsigned px = ((unsigned)D->nb + HYT_PLG_BX - 1) / HYT_PLG_BX;
    int64_t c = (int64_t)(bx % px) * HYT_PLG_BX + tx;
    int64_t r0 = ((int64_t)(bx / px) * HYT_PLG_BY + ty) * HYT_PLG_ROWS;
    int64_t rows = (int64_t)D->mt * D->nb;
    if (l >= D->ncols || c >= D->nb || r0 >= rows)
        return 0;
    int64_t r1 = r0 + HYT_PLG_ROWS < rows ? r0 + HYT_PLG_ROWS : rows;
    int64_t gc = (l * D->ndev + D->index) * D->nb + c; /* global column */
    double *p = cols + l * D->colsz + r0 * D->nb + c;  /* (r0, c): CRRB, row stride nb */
    int64_t rend = gc < D->n ? (r1 < D->n ? r1 : D->n) : r0; /* rows with entries */
    int64_t r = r0;
    if (r < rend) {
        uint32_t x = hyt_hpl_state(D, r0, gc);
        for (; r < rend; r++, p += D->nb) {
            *p = hyt_hpl_value(x);
            x = (HYT_HPL_MULT * x + 1u) & HYT_HPL_MASK;
        }
    }
    for (; r < r1; r++, p += D->nb)
        *p = 0.0;
    return (int)(r1 - r0);
}

/* b (n doubles): one thread per entry, each with its own jump (n jumps: microseconds). */
HYT_GEOM_FN int hyt_plg_rhs_launch(int64_t n, hyt_launch_t *L)
{
    if (n == 0)
        return 1;
    int64_t blocks = (n + HYT_HPLMV_BLOCK - 1) / HYT_HPLMV_BLOCK;
    if (blocks > HYT_GRID_MAX_X)
        return -1;
    L->grid[0] = (unsigned)blocks;
    L->grid[1] = L->grid[2] = 1;
    L->block[0] = HYT_HPLMV_BLOCK;
    L->block[1] = L->block[2] = 1;
    return 0;
}

HYT_GEOM_FN void hyt_plg_rhs_thread(const hyt_hpl_dist_t *D, double *b, unsigned bx, unsigned tx)
{
    int64_t r = (int64_t)bx * HYT_HPLMV_BLOCK + tx;
    if (r < D->n)
        b[r] = hyt_hpl_value(hyt_hpl_state(D, r, D->n));
}

/* ---------------------------------------------------------------------------------------------
 * Check by regeneration: row R of this device's share of A x and of the row sums of |A|.
 * A thread walks along its row: entry (R, c+1) is n generator steps after (R, c) (the map
 * `right`), the next local tile column (ndev-1)*nb columns further (`skip`).  Per tile column
 * a partial sum in a fresh accumulator, added to the row's total: blocked summation (rounding
 * about (nb + n/nb) eps instead of n eps), in the same order as hyt_ref_hpl_matvec, with
 * explicit fma: the host reference gives the same bits.  Launch: hyt_plg_rhs_launch(n).
 */
HYT_GEOM_FN void hyt_hplmv_thread(const hyt_hpl_dist_t *D, const double *xv, double *ax,
                                  double *arow, unsigned bx, unsigned tx)
{
    int64_t R = (int64_t)bx * HYT_HPLMV_BLOCK + tx;
    if (R >= D->n)
        return;
    double s = 0.0, t = 0.0;
    uint32_t x = D->ncols ? hyt_hpl_state(D, R, (int64_t)D->index * D->nb) : 0;
    for (int64_t l = 0; l < D->ncols; l++) {
        int64_t c0 = (l * D->ndev + D->index) * D->nb;
        int64_t c1 = c0 + D->nb < D->n ? c0 + D->nb : D->n;
        double st = 0.0, tt = 0.0;
        for (int64_t c = c0; c < c1; c++) {
            double a = hyt_hpl_value(x);
            st = fma(a, xv[c], st);
            tt += fabs(a);
            x = hyt_hpl_apply(D->right, x);
        }
        s += st;
        t += tt;
        x = hyt_hpl_apply(D->skip, x); /* past the last column: unused */
    }
    ax[R] = s;
    arow[R] = t;
}

/* The largest of |v| as the bits of a nonnegative double: their order as unsigned integers
 * is the numbers' order, and a NaN (sign cleared) is above +Inf, so it wins, as in the host's
 * check (a NaN anywhere makes the residual NaN, which fails). */
HYT_GEOM_FN uint64_t hyt_hpl_absbits(double v)
{
    union {
        double d;
        uint64_t u;
    } x;
    x.d = v;
    return x.u & 0x7fffffffffffffffULL;
}

HYT_GEOM_FN double hyt_hpl_bitsval(uint64_t u)
{
    union {
        double d;
        uint64_t u;
    } x;
    x.u = u;
    return x.d;
}

/* Element i of the norms: |sum_p ax_p[i] - b[i]|, |sum_p arow_p[i]|, |x[i]|, |b[i]| as
 * hyt_hpl_absbits, the parts summed in order p = 0..nparts-1. */
HYT_GEOM_FN void hyt_hpl_norms_elem(int64_t n, int nparts, const double *ax, const double *arow,
                                    const double *x, const double *b, int64_t i, uint64_t m[4])
{
    double s = ax[i], t = arow[i];
    for (int p = 1; p < nparts; p++) {
        s += ax[(int64_t)p * n + i];
        t += arow[(int64_t)p * n + i];
    }
    uint64_t v[4] = {hyt_hpl_absbits(s - b[i]), hyt_hpl_absbits(t), hyt_hpl_absbits(x[i]),
                     hyt_hpl_absbits(b[i])};
    for (int k = 0; k < 4; k++)
        m[k] = v[k] > m[k] ? v[k] : m[k];
}

#endif
