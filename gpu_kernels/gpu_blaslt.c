/*
 * DGEMM through cublasLt with the first algorithm of cublasLt's heuristic for the shape
 * (hyt_gpu_dgemm_batched's HYT_GEMM_LT).  Measured in the GPU-only lower Cholesky's trailing
 * updates on an H200 (docs/performance.md, 2026-11-27): 1.2-1.9% faster over the whole
 * factorization than cublasDgemm's own pick, though alone on the same shapes it is not faster.
 *
 * One cublasLt handle per device (the runtime's handle slot) with a table of shapes: a shape's
 * descriptors and algorithm are made on its first call (the heuristic costs microseconds, the
 * GEMMs milliseconds) and kept in a slot picked by a hash of the shape; a shape that lands on
 * an occupied slot replaces it.  Every call comes from a device task body, and a device's
 * bodies run on its one thread: no lock.
 */
#include "hyt_gpu_kernels.h"

#include "hyt_cuda_check.h"

#include <cublasLt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LT_SLOTS 256 /* a power of two */

typedef struct lt_key {
    int ta, tb, m, n, k, lda, ldb, ldc, align_a, align_b, align_c;
} lt_key_t;

typedef struct lt_shape {
    lt_key_t key;
    int used; /* descriptors made (even when no algorithm was found) */
    int ok;   /* an algorithm: else cublasDgemm */
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
} lt_shape_t;

typedef struct lt {
    cublasLtHandle_t h;
    lt_shape_t s[LT_SLOTS];
} lt_t;

static void shape_clear(lt_shape_t *s)
{
    if (s->lc)
        cublasLtMatrixLayoutDestroy(s->lc);
    if (s->lb)
        cublasLtMatrixLayoutDestroy(s->lb);
    if (s->la)
        cublasLtMatrixLayoutDestroy(s->la);
    if (s->op)
        cublasLtMatmulDescDestroy(s->op);
    memset(s, 0, sizeof *s);
}

static int lt_create(hyt_device_t *dev, void **out)
{
    lt_t *t = calloc(1, sizeof *t);
    if (!t)
        return hyt_error(HYT_ERR_NOMEM, "cublasLt handle: out of memory");
    cublasStatus_t st = cublasLtCreate(&t->h);
    if (st != CUBLAS_STATUS_SUCCESS) {
        free(t);
        return hyt_cublas_error((int)st, "cublasLtCreate", __FILE__, __LINE__);
    }
    (void)dev;
    *out = t;
    return HYT_SUCCESS;
}

static void lt_destroy(hyt_device_t *dev, void *p)
{
    lt_t *t = p;
    for (int i = 0; i < LT_SLOTS; i++)
        shape_clear(&t->s[i]);
    cublasLtDestroy(t->h);
    free(t);
    (void)dev;
}

static const hyt_device_handle_class_t lt_class = {
    .name = "cublasLt", .create = lt_create, .destroy = lt_destroy};

/* The largest power of two up to 256 that divides the address: cublasLt's algorithms state the
 * alignment they need, and the heuristic offers only those that work with this one. */
static int align_of(const void *p)
{
    const uintptr_t a = (uintptr_t)p;
    int b = 8;
    while (b < 256 && !(a & (uintptr_t)b))
        b *= 2;
    return b;
}

static unsigned key_hash(const lt_key_t *q)
{
    const int v[] = {q->ta, q->tb, q->m, q->n, q->k, q->lda, q->ldb, q->ldc, q->align_a,
                     q->align_b, q->align_c};
    uint32_t h = 2166136261u; /* FNV-1a over the fields */
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        h ^= (uint32_t)v[i];
        h *= 16777619u;
    }
    return h ^ (h >> 16);
}

/* The shape's descriptors and the heuristic's first algorithm; s->ok = 0 when it has none or
 * a descriptor cannot be made (the caller then uses cublasDgemm). */
static void shape_prepare(const lt_t *t, lt_shape_t *s)
{
    const lt_key_t *q = &s->key;
    const cublasOperation_t ta = q->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = q->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    s->used = 1;
    if (cublasLtMatmulDescCreate(&s->op, CUBLAS_COMPUTE_64F, CUDA_R_64F) ||
        cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta) ||
        cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb) ||
        cublasLtMatrixLayoutCreate(&s->la, CUDA_R_64F, (uint64_t)(q->ta ? q->k : q->m),
                                   (uint64_t)(q->ta ? q->m : q->k), q->lda) ||
        cublasLtMatrixLayoutCreate(&s->lb, CUDA_R_64F, (uint64_t)(q->tb ? q->n : q->k),
                                   (uint64_t)(q->tb ? q->k : q->n), q->ldb) ||
        cublasLtMatrixLayoutCreate(&s->lc, CUDA_R_64F, (uint64_t)q->m, (uint64_t)q->n, q->ldc))
        return;
    cublasLtMatmulPreference_t pref;
    if (cublasLtMatmulPreferenceCreate(&pref))
        return;
    const uint64_t ws = 0; /* no workspace: no split-K, nothing to keep per stream */
    const uint32_t aa = (uint32_t)q->align_a, ab = (uint32_t)q->align_b, ac = (uint32_t)q->align_c;
    cublasLtMatmulHeuristicResult_t res;
    int got = 0;
    if (!cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                              sizeof ws) &&
        !cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                                              &aa, sizeof aa) &&
        !cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                              &ab, sizeof ab) &&
        !cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                                              &ac, sizeof ac) &&
        !cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                                              &ac, sizeof ac) &&
        !cublasLtMatmulAlgoGetHeuristic(t->h, s->op, s->la, s->lb, s->lc, s->lc, pref, 1, &res,
                                        &got) &&
        got > 0 && res.state == CUBLAS_STATUS_SUCCESS) {
        s->algo = res.algo;
        s->ok = 1;
    }
    cublasLtMatmulPreferenceDestroy(pref);
}

int hyt_cuda_dgemm_lt(hyt_device_t *dev, void *stream, char transa, char transb, int m, int n,
                      int k, double alpha, const double *A, int lda, const double *B, int ldb,
                      double beta, double *C, int ldc, int *done)
{
    *done = 0;
    if (k == 0) /* C = beta C: cublasDgemm's case */
        return HYT_SUCCESS;
    lt_t *t;
    int rc = hyt_device_handle(dev, &lt_class, (void **)&t);
    if (rc)
        return rc;
    lt_key_t key;
    memset(&key, 0, sizeof key);
    key.ta = transa == 'T' || transa == 't';
    key.tb = transb == 'T' || transb == 't';
    key.m = m, key.n = n, key.k = k, key.lda = lda, key.ldb = ldb, key.ldc = ldc;
    key.align_a = align_of(A), key.align_b = align_of(B), key.align_c = align_of(C);
    lt_shape_t *s = &t->s[key_hash(&key) & (LT_SLOTS - 1)];
    if (!s->used || memcmp(&s->key, &key, sizeof key)) {
        shape_clear(s);
        s->key = key;
        shape_prepare(t, s);
    }
    if (!s->ok)
        return HYT_SUCCESS;
    HYT_CUBLAS_TRY(dev, cublasLtMatmul(t->h, s->op, &alpha, A, s->la, B, s->lb, &beta, C, s->lc,
                                       C, s->lc, &s->algo, NULL, 0, (cudaStream_t)stream));
    *done = 1;
    return HYT_SUCCESS;
}
