/*
 * Launch geometry of the CUDA kernels in gpu_kernels/: the grid of each launch and the map from
 * (block, thread) to the elements that one thread works on.  It is plain C so that the .cu
 * files (where the functions are __host__ __device__) and tests/test_gpu_kernels.c share it:
 * the test enumerates every thread of small launches and samples huge ones on the host, so the
 * index arithmetic is checked even on machines without a GPU.  Internal: not installed.
 *
 * Grid limits: x up to 2^31-1 blocks, y and z up to 65535.  Every element offset is 64-bit
 * (ntiles*nb*nb and row*nb can pass 2^31).
 */
#ifndef HYT_GPU_GEOMETRY_H
#define HYT_GPU_GEOMETRY_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define HYT_GEOM_FN static inline __host__ __device__
#else
#define HYT_GEOM_FN static inline
#endif
#ifdef __CUDA_ARCH__ /* the device pass of nvcc: loops over a thread's registers unrolled */
#define HYT_GEOM_UNROLL _Pragma("unroll")
#define HYT_GEOM_ROLLED _Pragma("unroll 1")
#else
#define HYT_GEOM_UNROLL
#define HYT_GEOM_ROLLED
#endif

#define HYT_GRID_MAX_X 2147483647LL
#define HYT_GRID_MAX_YZ 65535LL

/* The transposition: a thread block of 32 x 8 threads moves a pair of 32 x 32 blocks of a tile
 * (HYT_TRANSPOSE_B a side), four rows of each a thread. */
#define HYT_TRANSPOSE_B 32
#define HYT_TRANSPOSE_BX 32
#define HYT_TRANSPOSE_BY 8
#if HYT_TRANSPOSE_BX != HYT_TRANSPOSE_B || HYT_TRANSPOSE_B % HYT_TRANSPOSE_BY
#error "a transposition block: a thread per column of a 32 x 32 block, its rows in BY steps"
#endif
/* Most threads per block of the row interchanges (one thread per element of a row). */
#define HYT_LASWP_BLOCK 256

typedef struct hyt_launch {
    unsigned grid[3];
    unsigned block[3];
} hyt_launch_t;

/* Splits `n` work items (tiles, columns) over grid.y x grid.z: item = z*grid.y + y.
 * Returns 0, or -1 when n > 65535^2. */
HYT_GEOM_FN int hyt_geom_split_yz(int64_t n, unsigned *gy, unsigned *gz)
{
    int64_t y = n < HYT_GRID_MAX_YZ ? n : HYT_GRID_MAX_YZ;
    int64_t z = (n + y - 1) / y;
    if (z > HYT_GRID_MAX_YZ)
        return -1;
    *gy = (unsigned)y;
    *gz = (unsigned)z;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Transposition of ntiles square nb x nb tiles, in place.  A tile is cut in 32 x 32 blocks
 * (B = ceil(nb / 32) a side); a thread block swaps one pair of blocks, (I, J) and (J, I) with
 * I <= J, both through shared memory (a diagonal block with itself), so that each global load
 * and store of a warp is 32 consecutive doubles of one row of the tile.  grid.x = the
 * B (B + 1) / 2 pairs of a tile, row I of their triangle first ((I, I) .. (I, B - 1)), grid.y x
 * grid.z = the tiles.
 * Returns 0 (launch), 1 (nothing to do: ntiles == 0 or nb == 1) or -1 (too large for a grid).
 */
HYT_GEOM_FN int hyt_transpose_launch(int nb, int64_t ntiles, hyt_launch_t *L)
{
    if (nb < 1 || ntiles < 0)
        return -1;
    if (ntiles == 0 || nb == 1)
        return 1;
    int64_t b = ((int64_t)nb + HYT_TRANSPOSE_B - 1) / HYT_TRANSPOSE_B, pairs = b * (b + 1) / 2;
    if (pairs > HYT_GRID_MAX_X)
        return -1;
    L->grid[0] = (unsigned)pairs;
    if (hyt_geom_split_yz(ntiles, &L->grid[1], &L->grid[2]))
        return -1;
    L->block[0] = HYT_TRANSPOSE_BX;
    L->block[1] = HYT_TRANSPOSE_BY;
    L->block[2] = 1;
    return 0;
}

/* Block (bx, by, bz) of a grid of gy blocks along y: returns 1 with its tile *t and its pair of
 * 32 x 32 blocks (block row *bi <= block column *bj), or 0 for a block past the last tile (or
 * past the pairs). */
HYT_GEOM_FN int hyt_transpose_block(int nb, int64_t ntiles, unsigned bx, unsigned by,
                                    unsigned bz, unsigned gy, int64_t *t, int *bi, int *bj)
{
    *t = (int64_t)bz * gy + by;
    if (*t >= ntiles)
        return 0;
    int64_t b = ((int64_t)nb + HYT_TRANSPOSE_B - 1) / HYT_TRANSPOSE_B, p = bx, i = 0;
    while (i < b && p >= b - i) { /* row i of the triangle holds b - i pairs */
        p -= b - i;
        i++;
    }
    if (i >= b)
        return 0; /* past the pairs: not in a launch of hyt_transpose_launch */
    *bi = (int)i;
    *bj = (int)(i + p);
    return 1;
}

/* Thread (tx, ty) of the block that swaps blocks (bi, bj) and (bj, bi) of the tile a (nb x nb,
 * offsets r nb + c): its loads of block (bi, bj) into sa and of block (bj, bi) into sb (not
 * when bi == bj), each 32 x 33 doubles of the block's shared memory, row r to sa[r]. */
HYT_GEOM_FN void hyt_transpose_load(const double *a, int nb, int bi, int bj, unsigned tx,
                                    unsigned ty, double (*sa)[HYT_TRANSPOSE_B + 1],
                                    double (*sb)[HYT_TRANSPOSE_B + 1])
{
    for (int r = (int)ty; r < HYT_TRANSPOSE_B; r += HYT_TRANSPOSE_BY) {
        int64_t gr = (int64_t)bi * HYT_TRANSPOSE_B + r, gc = (int64_t)bj * HYT_TRANSPOSE_B + tx;
        if (gr < nb && gc < nb)
            sa[r][tx] = a[gr * nb + gc];
        gr = (int64_t)bj * HYT_TRANSPOSE_B + r;
        gc = (int64_t)bi * HYT_TRANSPOSE_B + tx;
        if (bi != bj && gr < nb && gc < nb)
            sb[r][tx] = a[gr * nb + gc];
    }
}

/* After the block's barrier, the same thread's stores: element (r, c) of block (bi, bj) becomes
 * (c, r) of block (bj, bi) (of block (bi, bi) itself on the diagonal) and the other way round. */
HYT_GEOM_FN void hyt_transpose_store(double *a, int nb, int bi, int bj, unsigned tx,
                                     unsigned ty, double (*sa)[HYT_TRANSPOSE_B + 1],
                                     double (*sb)[HYT_TRANSPOSE_B + 1])
{
    for (int r = (int)ty; r < HYT_TRANSPOSE_B; r += HYT_TRANSPOSE_BY) {
        int64_t gr = (int64_t)bi * HYT_TRANSPOSE_B + r, gc = (int64_t)bj * HYT_TRANSPOSE_B + tx;
        if (gr < nb && gc < nb)
            a[gr * nb + gc] = bi == bj ? sa[tx][r] : sb[tx][r];
        gr = (int64_t)bj * HYT_TRANSPOSE_B + r;
        gc = (int64_t)bi * HYT_TRANSPOSE_B + tx;
        if (bi != bj && gr < nb && gc < nb)
            a[gr * nb + gc] = sa[tx][r];
    }
}

/* ---------------------------------------------------------------------------------------------
 * Row interchanges on ncols CRRB columns: one thread per (column b, element c of a row);
 * grid.x x block.x covers the nb elements, grid.y x grid.z the columns.  Consecutive threads
 * take consecutive elements of a row: every access of a warp is one contiguous segment.
 * Returns 0 (launch), 1 (nothing to do) or -1 (too large).
 */
HYT_GEOM_FN int hyt_laswp_launch(int nb, int ncols, int npiv, hyt_launch_t *L)
{
    if (nb < 1 || ncols < 0 || npiv < 0)
        return -1;
    if (ncols == 0 || npiv == 0)
        return 1;
    int64_t bx = ((int64_t)nb + 31) / 32 * 32;
    if (bx > HYT_LASWP_BLOCK)
        bx = HYT_LASWP_BLOCK;
    L->block[0] = (unsigned)bx;
    L->block[1] = L->block[2] = 1;
    L->grid[0] = (unsigned)(((int64_t)nb + bx - 1) / bx);
    return hyt_geom_split_yz(ncols, &L->grid[1], &L->grid[2]);
}

/* The interchanges as one permutation (hyt_gpu_dlaswp_plan): with pivots as LAPACK's dgetrf
 * makes them (row r1+q interchanged with a row >= r1+q; sp: the 0-based pivot rows), row
 * x >= r1+t is touched before interchange t only as a pivot row, so the original row whose
 * content row x holds just before interchange t is found by walking back: the last t' < t
 * with pivot x gave x what row r1+t' held just before t'.  A backward search per link: O(t)
 * for distinct pivots, as the LU's mostly are.  Shared by the CUDA kernel and the reference. */
HYT_GEOM_FN int hyt_laswp_content_before(const int *sp, int r1, int x, int t)
{
    for (;;) {
        int u = t - 1;
        while (u >= 0 && sp[u] != x)
            u--;
        if (u < 0)
            return x;
        x = r1 + u;
        t = u;
    }
}

/* Column b and element c of thread tx of block (bx, by, bz) (block of bdx threads, grid of gy
 * blocks along y): returns 1, or 0 for an idle thread. */
HYT_GEOM_FN int hyt_laswp_thread(int nb, int ncols, unsigned bx, unsigned by, unsigned bz,
                                 unsigned gy, unsigned bdx, unsigned tx, int *b, int *c)
{
    int64_t col = (int64_t)bz * gy + by;
    int64_t e = (int64_t)bx * bdx + tx;
    if (col >= ncols || e >= nb)
        return 0;
    *b = (int)col;
    *c = (int)e;
    return 1;
}

/* ---------------------------------------------------------------------------------------------
 * The native panel LU (gpu_dgetrf_leaf.cu, gpu_dgetrf_crrb.c): leaves of HYT_PANEL_LEAF_W
 * columns, each one launch of CTAs of HYT_PANEL_LEAF_THREADS threads.  A leaf of R rows with
 * several rows a thread takes at most ceil(R / (warps * 4)) of the nctas CTAs it may have (at
 * least 4 rows per warp: fewer CTAs, a cheaper grid barrier).
 */
#define HYT_PANEL_LEAF_W 32
#define HYT_PANEL_LEAF_THREADS 512
#define HYT_PANEL_LEAF_RPT_MAX 16
#define HYT_PANEL_CTAS_MAX 4096

HYT_GEOM_FN int hyt_panel_leaf_ctas(int64_t rows, int nctas)
{
    const int64_t per_cta = (HYT_PANEL_LEAF_THREADS / 32) * 4;
    int64_t c = (rows + per_cta - 1) / per_cta;
    if (c > nctas)
        c = nctas;
    return c < 1 ? 1 : (int)c;
}

/* For a leaf of more than one row a thread on ctas CTAs: the rows per thread, rounded up to a
 * power of two, when they are at most HYT_PANEL_LEAF_RPT_MAX (a thread per row, the rows in
 * registers, the columns in sub-blocks of 32 / rpt), else 0 (the tall kernel: every column a
 * pass over a column-major copy in global memory). */
HYT_GEOM_FN int hyt_panel_leaf_rpt(int64_t rows, int ctas)
{
    const int64_t tt = (int64_t)ctas * HYT_PANEL_LEAF_THREADS;
    int64_t need = (rows + tt - 1) / tt;
    int rpt = 1;
    while (rpt < need && rpt < HYT_PANEL_LEAF_RPT_MAX)
        rpt *= 2;
    return need > HYT_PANEL_LEAF_RPT_MAX ? 0 : rpt;
}

/* The interchanges of pivots q < cnt (row r0 + q with piv[q], panel rows) applied in order:
 * *xa and *xb, two panel rows, become the rows whose contents end up there (traced back from
 * the last interchange; two at once, for leaf_compose's lanes, hyt_gpu_leaf.cuh). */
HYT_GEOM_FN void hyt_panel_trace_back(const int *piv, int r0, int cnt, int *xa, int *xb)
{
    int a_ = *xa, b_ = *xb;
    for (int q = cnt - 1; q >= 0; q--) {
        const int a = r0 + q, p = piv[q];
        a_ = a_ == a ? p : a_ == p ? a : a_;
        b_ = b_ == a ? p : b_ == p ? a : b_;
    }
    *xa = a_;
    *xb = b_;
}

/* The grid leaf kernel's tagged words (gpu_dgetrf_leaf.cu), per parity: for each CTA,
 * HYT_PANEL_GRID_KEY words of key (high, low, logical row) and HYT_PANEL_GRID_ROW of its row
 * (two a double), then HYT_PANEL_GRID_ROW of the diagonal row. */
#define HYT_PANEL_GRID_KEY 3
#define HYT_PANEL_GRID_ROW (2 * HYT_PANEL_LEAF_W)

/* Bytes of those words for leaves of at most `rows` rows, on one CTA per
 * HYT_PANEL_LEAF_THREADS rows (at most HYT_PANEL_CTAS_MAX). */
HYT_GEOM_FN size_t hyt_panel_leaf_grid_bytes(int64_t rows)
{
    int64_t p = (rows + HYT_PANEL_LEAF_THREADS - 1) / HYT_PANEL_LEAF_THREADS;
    p = p < 1 ? 1 : p > HYT_PANEL_CTAS_MAX ? HYT_PANEL_CTAS_MAX : p;
    return (size_t)(2 * p * (HYT_PANEL_GRID_KEY + HYT_PANEL_GRID_ROW) + 2 * HYT_PANEL_GRID_ROW) *
           sizeof(unsigned long long);
}

/* Bytes of the leaves' publication slots for panels of at most `rows` rows: those of the most
 * CTAs a leaf of that many rows launches (hyt_panel_leaf_ctas), or the grid kernel's words
 * when more, rounded up to 256 bytes. */
HYT_GEOM_FN size_t hyt_panel_leaf_slots_bytes(int64_t rows)
{
    size_t c = (size_t)hyt_panel_leaf_ctas(rows, HYT_PANEL_CTAS_MAX);
    size_t b = (2 * c * 33 + 64) * sizeof(double) + 2 * c * sizeof(int);
    if (b < hyt_panel_leaf_grid_bytes(rows))
        b = hyt_panel_leaf_grid_bytes(rows);
    return (b + 255) / 256 * 256;
}

/* The grid leaf's column loop in passes (gpu_dgetrf_leaf.cu, hyt_dgetrf_leaf_grid_kernel): the
 * leaf's columns in passes of HYT_PANEL_LEAF_PASS (U), the loop over the passes not unrolled,
 * the U columns of a pass unrolled, so that the kernel holds U columns' machine code instead of
 * HYT_PANEL_LEAF_W's.  A thread's row x (HYT_PANEL_LEAF_W entries, registers in the kernel)
 * holds its logical entry g + i in x[i] during the pass of columns g .. g + U - 1, for
 * i < HYT_PANEL_LEAF_W - g (the entries of the columns done before g follow), so that every
 * index is a constant of the unrolled pass; each pass ends with hyt_leaf_pass_rotate, and
 * hyt_leaf_pass_finish turns the row on to its logical order after the last.
 * tests/test_gpu_kernels.c factors leaves this way on the host against dgetf2, bit for bit. */
#define HYT_PANEL_LEAF_PASS 8
#if HYT_PANEL_LEAF_W % HYT_PANEL_LEAF_PASS
#error "a leaf in passes of whole columns"
#endif

/* The row rotated by U places: the next pass's columns to x[0 ..]. */
HYT_GEOM_FN void hyt_leaf_pass_rotate(double *x)
{
    enum { U = HYT_PANEL_LEAF_PASS, W = HYT_PANEL_LEAF_W };
    double y[U];
    HYT_GEOM_UNROLL
    for (int i = 0; i < U; i++)
        y[i] = x[i];
    HYT_GEOM_UNROLL
    for (int i = 0; i + U < W; i++)
        x[i] = x[i + U];
    HYT_GEOM_UNROLL
    for (int i = 0; i < U; i++)
        x[W - U + i] = y[i];
}

/* After the last pass of a leaf of w columns (each pass rotated the row by U places): the
 * rotations on to a whole turn, the logical order again. */
HYT_GEOM_FN void hyt_leaf_pass_finish(double *x, int w)
{
    enum { U = HYT_PANEL_LEAF_PASS, W = HYT_PANEL_LEAF_W };
    HYT_GEOM_ROLLED
    for (int g = (w + U - 1) / U * U; g < W; g += U)
        hyt_leaf_pass_rotate(x);
}

/* The update of a row's entries x[i], q < i < W - g, with multiplier l and the pivot row u (by
 * logical entry), in blocks of U registers that run whole or not at all (g is a multiple of U);
 * q may be U (after the pass's last column: its entries from x[U + 1] on). */
HYT_GEOM_FN void hyt_leaf_pass_row_rest(double *x, int q, int g, double l, const double *u)
{
    enum { U = HYT_PANEL_LEAF_PASS, W = HYT_PANEL_LEAF_W };
    HYT_GEOM_UNROLL
    for (int b = 0; b < W / U; b++)
        if (b * U < W - g)
            HYT_GEOM_UNROLL
            for (int i = b * U; i < b * U + U; i++)
                if (i > q)
                    x[i] = fma(-l, u[g + i], x[i]);
}

/* Column jj = g + q of a row below the pivot, in the pass's places: its entry x[q] scaled by
 * the pivot pv (unscaled when pv is 0: INFO; by the reciprocal unless |pv| < DBL_MIN), then the
 * next column's entry x[q + 1] updated with the pivot row u (by logical entry); the multiplier
 * returned.  The rest of the column's update (hyt_leaf_pass_row_rest) may wait until the next
 * column's pivot search is under way: that search needs only entry jj + 1.  The two touch
 * different entries; both before the next column's updates give dgetf2's FMAs in its order. */
HYT_GEOM_FN double hyt_leaf_pass_row_next(double *x, int q, int g, double pv, const double *u)
{
    enum { W = HYT_PANEL_LEAF_W };
    double l = x[q];
    if (pv != 0.0)
        l = fabs(pv) >= DBL_MIN ? l * (1.0 / pv) : l / pv;
    x[q] = l;
    if (q + 1 < W - g)
        x[q + 1] = fma(-l, u[g + q + 1], x[q + 1]);
    return l;
}

/* The row's entries from column jj = g + q on into buf by logical entry (buf[g + i] = x[i]). */
HYT_GEOM_FN void hyt_leaf_pass_row_out(const double *x, int q, int g, double *buf)
{
    enum { U = HYT_PANEL_LEAF_PASS, W = HYT_PANEL_LEAF_W };
    HYT_GEOM_UNROLL
    for (int b = 0; b < W / U; b++)
        if (b * U < W - g)
            HYT_GEOM_UNROLL
            for (int i = b * U; i < b * U + U; i++)
                if (i >= q)
                    buf[g + i] = x[i];
}

/* Bytes of the leaves' workspace for panels of at most `rows` rows: the slots, then a
 * column-major copy of a tall leaf (rows x HYT_PANEL_LEAF_W doubles) or the short-panel
 * kernel's copies of its leaves' L (at most HYT_PANEL_LEAF_THREADS rows and columns). */
HYT_GEOM_FN size_t hyt_panel_leaf_ws_bytes(int64_t rows)
{
    const int64_t r = rows > 0 ? rows : 0;
    const int64_t s = r < HYT_PANEL_LEAF_THREADS ? r : HYT_PANEL_LEAF_THREADS;
    const int64_t copy = r * HYT_PANEL_LEAF_W > s * s ? r * HYT_PANEL_LEAF_W : s * s;
    return hyt_panel_leaf_slots_bytes(rows) + (size_t)copy * sizeof(double);
}

#endif
