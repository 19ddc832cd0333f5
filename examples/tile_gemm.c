/*
 * A tile algorithm of one's own on hytile's runtime: C = C + A B on tiles, one task per tile
 * GEMM, written with the public runtime header alone.
 *
 *     cc -O2 tile_gemm.c $(pkg-config --cflags --libs hytile openblas) && ./a.out
 *
 * The algorithm is its serial loop nest; each kernel call becomes a task that names the tiles
 * it reads and writes.  The runtime runs a task once the tasks it depends on have finished:
 * here the k loop's tasks on one tile C_ij run one after another (each reads and writes C_ij),
 * and tasks on different tiles of C run in parallel on the CPU workers.
 *
 * Checked against OpenBLAS's dgemm on the whole matrices: exit status 0 when
 * ||C - C_ref||_F / (||A||_F ||B||_F k eps) is below 10, 1 otherwise.
 */
#include <hyt_runtime.h>

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- the kernel: described once, inserted through a typed wrapper ------------------------ */

typedef struct gemm_args {
    int m, n, k, ld;
    const double *a, *b;
    double *c;
} gemm_args_t;

/* C_ij += A_ik B_kj on one tile (every CCRB tile has leading dimension nb). */
static int gemm_body(const hyt_task_ctx_t *tc, void *args)
{
    const gemm_args_t *g = args;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k, 1.0, g->a, g->ld,
                g->b, g->ld, 1.0, g->c, g->ld);
    return 0;
}

static const hyt_kernel_t gemm_kernel = {.name = "dgemm", .cpu = gemm_body,
                                         .cat = HYT_CAT_UPDATE};

static int insert_gemm(hyt_sequence_t *seq, const hyt_desc_t *A, const hyt_desc_t *B,
                       hyt_desc_t *C, int i, int j, int k)
{
    gemm_args_t g = {hyt_tile_mb(C, i), hyt_tile_nb(C, j), hyt_tile_nb(A, k), hyt_tile_ld(C),
                     hyt_tile(A, i, k), hyt_tile(B, k, j), hyt_tile(C, i, j)};
    hyt_dep_t deps[3] = {{g.a, HYT_READ}, {g.b, HYT_READ}, {g.c, HYT_RW}};
    hyt_task_desc_t d = hyt_task_desc(&gemm_kernel, &g, sizeof g); /* args are copied */
    d.deps = deps;
    d.ndeps = 3;
    d.tag[0] = k; /* shown in traces */
    d.tag[1] = i;
    d.tag[2] = j;
    return hyt_task_insert(seq, &d);
}

/* ---- the algorithm: the serial loop nest ---------------------------------------------------- */

static int tile_gemm_async(hyt_sequence_t *seq, const hyt_desc_t *A, const hyt_desc_t *B,
                           hyt_desc_t *C)
{
    for (int k = 0; k < A->nt; k++)
        for (int j = 0; j < C->nt; j++)
            for (int i = 0; i < C->mt; i++) {
                int rc = insert_gemm(seq, A, B, C, i, j, k);
                if (rc)
                    return rc; /* not inserted: stop, the caller waits for the rest */
            }
    return 0;
}

/* ---- a check against OpenBLAS ---------------------------------------------------------------- */

static double frobenius(int m, int n, const double *a)
{
    double s = 0;
    for (long p = 0; p < (long)m * n; p++)
        s += a[p] * a[p];
    return sqrt(s);
}

int main(void)
{
    const int m = 300, n = 250, k = 200, nb = 64; /* not multiples of nb: edge tiles */
    double *a = malloc(sizeof(double) * m * k), *b = malloc(sizeof(double) * k * n);
    double *c = calloc((size_t)m * n, sizeof(double)), *ref = calloc((size_t)m * n, sizeof(double));
    if (!a || !b || !c || !ref)
        return 1;
    srand(1);
    for (long p = 0; p < (long)m * k; p++)
        a[p] = 2.0 * rand() / RAND_MAX - 1.0;
    for (long p = 0; p < (long)k * n; p++)
        b[p] = 2.0 * rand() / RAND_MAX - 1.0;

    hyt_context_t *ctx; /* the default configuration, HYT_CONFIG and HYT_* variables */
    hyt_desc_t A = {0}, B = {0}, C = {0};
    hyt_sequence_t *seq;
    int rc = hyt_context_create(NULL, &ctx);
    if (rc) {
        fprintf(stderr, "tile_gemm: %s\n", hyt_last_error());
        return 1;
    }
    if (!(rc = hyt_desc_create(ctx, m, k, nb, &A)) && !(rc = hyt_desc_create(ctx, k, n, nb, &B)) &&
        !(rc = hyt_desc_create(ctx, m, n, nb, &C)) && !(rc = hyt_lapack_to_tile(ctx, a, m, &A)) &&
        !(rc = hyt_lapack_to_tile(ctx, b, k, &B)) && !(rc = hyt_lapack_to_tile(ctx, c, m, &C)) &&
        !(rc = hyt_sequence_create(ctx, &seq))) {
        rc = tile_gemm_async(seq, &A, &B, &C);
        rc = hyt_sequence_finish(seq, rc); /* waits; the first error of the sequence */
        if (!rc)
            rc = hyt_tile_to_lapack(ctx, &C, c, m);
    }
    if (rc)
        fprintf(stderr, "tile_gemm: %s: %s\n", hyt_strerror(rc), hyt_last_error());
    hyt_desc_destroy(&A); /* also when it was never created */
    hyt_desc_destroy(&B);
    hyt_desc_destroy(&C);
    hyt_context_destroy(ctx);
    if (rc)
        return 1;

    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, m, b, k, 0.0, ref, m);
    for (long p = 0; p < (long)m * n; p++)
        ref[p] -= c[p];
    double err = frobenius(m, n, ref) / (frobenius(m, k, a) * frobenius(k, n, b) * k * DBL_EPSILON);
    printf("tile_gemm: %d x %d x %d, nb %d: ||C - C_ref|| / (||A|| ||B|| k eps) = %.3g"
           " (< 10: %s)\n", m, n, k, nb, err, err < 10 ? "PASSED" : "FAILED");
    free(a);
    free(b);
    free(c);
    free(ref);
    return err < 10 ? 0 : 1;
}
