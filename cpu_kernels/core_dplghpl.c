/*
 * HPL's matrix generator.  HPL (HPL_pdmatgen, HPL_rand, HPL_lmul, HPL_ladd) draws entries from
 * the 31-bit linear congruential sequence X(n+1) = a X(n) + 1 mod 2^31, X(0) = seed, with
 * a = 1284865837 + 2^16 * 1481765933 (mod 2^31), and returns 0.5 - X(n) / 2^31 for the n-th
 * entry (n = 1, 2, ...) of the matrix generated column by column.  We jump straight to any
 * entry: X(n+k) = A_k X(n) + C_k with (A_k, C_k) by repeated squaring, so every tile is
 * generated independently and in parallel, giving exactly HPL's numbers.
 */
#include "hyt_cpu_kernels.h"

#define LCG_MASK 0x7fffffffULL
#define LCG_A ((1284865837ULL + 65536ULL * 1481765933ULL) & LCG_MASK)

typedef struct lcg {
    uint64_t a, c; /* x -> a x + c (mod 2^31) */
} lcg_t;

/* g after f */
static lcg_t compose(lcg_t f, lcg_t g)
{
    lcg_t r = {(g.a * f.a) & LCG_MASK, (g.a * f.c + g.c) & LCG_MASK};
    return r;
}

static lcg_t jump(uint64_t k)
{
    lcg_t r = {1, 0}, b = {LCG_A, 1};
    while (k) {
        if (k & 1)
            r = compose(r, b);
        b = compose(b, b);
        k >>= 1;
    }
    return r;
}

static inline double value(uint64_t x) { return 0.5 - (double)x / 2147483648.0; }

double hyt_hpl_entry(int64_t m, int64_t r, int64_t c, int seed)
{
    lcg_t j = jump((uint64_t)(c * m + r) + 1);
    return value((j.a * ((uint64_t)seed & LCG_MASK) + j.c) & LCG_MASK);
}

void hyt_core_dplghpl(int64_t m, int64_t r0, int64_t c0, int mb, int nb, double *a, int64_t lda,
                      int seed)
{
    for (int c = 0; c < nb; c++) {
        lcg_t j = jump((uint64_t)((c0 + c) * m + r0) + 1);
        uint64_t x = (j.a * ((uint64_t)seed & LCG_MASK) + j.c) & LCG_MASK;
        double *col = a + c * lda;
        for (int r = 0; r < mb; r++) {
            col[r] = value(x);
            x = (LCG_A * x + 1) & LCG_MASK;
        }
    }
}

typedef struct plg_args {
    hyt_desc_t A;
    int i, j, seed;
    int64_t col0;
} plg_args_t;

static int plg_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    plg_args_t *a = p;
    hyt_races_tile(&a->A, a->i, a->j, 1, "the tile");
    hyt_core_dplghpl(a->A.m, (int64_t)a->i * a->A.nb, a->col0 + (int64_t)a->j * a->A.nb,
                     hyt_tile_mb(&a->A, a->i), hyt_tile_nb(&a->A, a->j), hyt_tile(&a->A, a->i, a->j),
                     hyt_tile_ld(&a->A), a->seed);
    return 0;
}

static const hyt_kernel_t plg_kernel = {.name = "dplghpl", .cpu = plg_body, .cat = HYT_CAT_OTHER};

int hyt_dplghpl_tile_async(hyt_sequence_t *seq, const hyt_desc_t *A, int64_t col0, int seed)
{
    int rc = 0;
    for (int j = 0; j < A->nt && !rc; j++)
        for (int i = 0; i < A->mt && !rc; i++) {
            plg_args_t args = {*A, i, j, seed, col0};
            hyt_dep_t dep = {hyt_tile(A, i, j), HYT_WRITE};
            hyt_task_desc_t d = hyt_task_desc(&plg_kernel, &args, sizeof args);
            d.deps = &dep;
            d.ndeps = 1;
            d.tag[1] = i;
            d.tag[2] = j;
            rc = hyt_task_insert(seq, &d);
        }
    return rc;
}
