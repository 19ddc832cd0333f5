/*
 * The Cholesky's tunables and their "auto" values (CPU workers; measured on a 2-core VM at
 * N = 4000, docs/performance.md):
 *   nb: 256 from n >= 3000, 128 from 600, else 64 (smaller tiles give idle workers work at the
 *       end of the factorization; larger ones a faster GEMM);
 *   lookahead: 1.
 */
#include "chol_internal.h"

void hyt_chol_params(hyt_context_t *ctx, int n, hyt_chol_params_t *p)
{
    (void)ctx;
    if (p->nb <= 0)
        p->nb = n >= 3000 ? 256 : n >= 600 ? 128 : 64;
    if (p->lookahead < 0)
        p->lookahead = 1;
}

char hyt_norm_uplo(char uplo)
{
    switch (uplo) {
    case 'L': case 'l': return 'L';
    case 'U': case 'u': return 'U';
    default: return 0;
    }
}

int hyt_chol_check_tiles(const char *fn, const hyt_desc_t *A, const hyt_desc_t *B)
{
    if (!A || A->m != A->n || (A->n && !A->mat))
        return hyt_error(HYT_ERR_INVALID, "%s: A must be a square tile matrix", fn);
    if (B && (B->m != A->n || B->nb != A->nb || (B->m && B->n && !B->mat)))
        return hyt_error(HYT_ERR_INVALID, "%s: B must be n x nrhs with A's tile size", fn);
    return HYT_SUCCESS;
}
