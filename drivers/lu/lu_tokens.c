/* The hybrid LU's dependency tokens (see lu_tokens.h). */
#include "lu_tokens.h"

/* ---- the LU's tokens: [state ndev][panel ndev*npbuf][order][done ndev*npbuf]
 *      [load ndev*HYT_LU_LOADS_IN_FLIGHT] ------------------------------------------------ */

static size_t own_count(const hyt_lu_tokens_t *t)
{
    return (size_t)(t->ndev * (1 + 2 * t->npbuf + HYT_LU_LOADS_IN_FLIGHT) + 1);
}

int hyt_lu_tokens_init(hyt_lu_tokens_t *t, const hyt_dmat_t *A, int npbuf)
{
    t->A = A;
    t->ndev = A->ndev;
    t->npbuf = npbuf;
    t->nt = A->nt;
    t->own = hyt_tokens_create(own_count(t));
    return t->own ? HYT_SUCCESS : hyt_error(HYT_ERR_NOMEM, "out of memory");
}

void hyt_lu_tokens_destroy(hyt_lu_tokens_t *t)
{
    hyt_tokens_destroy(t->own);
    t->own = NULL;
}

const void *hyt_lu_tok_state(const hyt_lu_tokens_t *t, int g) { return hyt_token(t->own, g); }

const void *hyt_lu_tok_panel(const hyt_lu_tokens_t *t, int g, int k)
{
    return hyt_token(t->own, (size_t)(t->ndev + g * t->npbuf + k % t->npbuf));
}

const void *hyt_lu_tok_col(const hyt_lu_tokens_t *t, int j) { return hyt_dmat_col_key(t->A, j); }

const void *hyt_lu_tok_order(const hyt_lu_tokens_t *t)
{
    return hyt_token(t->own, (size_t)(t->ndev * (1 + t->npbuf)));
}

const void *hyt_lu_tok_done(const hyt_lu_tokens_t *t, int g, int k)
{
    return hyt_token(t->own, (size_t)(t->ndev * (1 + t->npbuf) + 1 + g * t->npbuf + k % t->npbuf));
}

const void *hyt_lu_tok_load(const hyt_lu_tokens_t *t, int g, int l)
{
    return hyt_token(t->own, (size_t)(t->ndev * (1 + 2 * t->npbuf) + 1 +
                                      g * HYT_LU_LOADS_IN_FLIGHT + l % HYT_LU_LOADS_IN_FLIGHT));
}

size_t hyt_lu_tok_count(const hyt_lu_tokens_t *t) { return own_count(t) + (size_t)t->nt; }

const void *hyt_lu_tok_nth(const hyt_lu_tokens_t *t, size_t i)
{
    size_t nown = own_count(t);
    return i < nown ? hyt_token(t->own, i) : hyt_lu_tok_col(t, (int)(i - nown));
}
