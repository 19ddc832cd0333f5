/*
 * The hybrid LU's dependency tokens (lu_tokens.c): named accessors (device state, panel slots,
 * columns, pivot order, step done) instead of offset arithmetic into one token array; the
 * column tokens are the device matrix's (drivers/hyt_hybrid.h).
 */
#ifndef HYT_LU_TOKENS_H
#define HYT_LU_TOKENS_H

#include "hyt_hybrid.h"

/* ---- the hybrid LU's dependency tokens ------------------------------------------------------ */
typedef struct hyt_lu_tokens {
    hyt_tokens_t *own;     /* state, panel slots, order, step done, load order */
    const hyt_dmat_t *A;   /* the column tokens are the device matrix's */
    int ndev, npbuf, nt;
} hyt_lu_tokens_t;

int hyt_lu_tokens_init(hyt_lu_tokens_t *t, const hyt_dmat_t *A, int npbuf);
void hyt_lu_tokens_destroy(hyt_lu_tokens_t *t);
/* device g's state: its block of columns as a whole (updates in order) */
const void *hyt_lu_tok_state(const hyt_lu_tokens_t *t, int g);
/* device g's panel slot of step k (k % npbuf) */
const void *hyt_lu_tok_panel(const hyt_lu_tokens_t *t, int g, int k);
/* tile column j (the device matrix's token) */
const void *hyt_lu_tok_col(const hyt_lu_tokens_t *t, int j);
/* the pivot tasks' order (INFO is the first zero pivot) */
const void *hyt_lu_tok_order(const hyt_lu_tokens_t *t);
/* all of step k's work on device g, gathered */
const void *hyt_lu_tok_done(const hyt_lu_tokens_t *t, int g, int k);
/* the order of device g's column loads: local column l's load after local column l - W's
 * (W = HYT_LU_LOADS_IN_FLIGHT), so that at most W are submitted at a time */
#define HYT_LU_LOADS_IN_FLIGHT 2
const void *hyt_lu_tok_load(const hyt_lu_tokens_t *t, int g, int l);
/* Every token, i < hyt_lu_tok_count(t): for tasks that wait for everything (cleanup, marks). */
size_t hyt_lu_tok_count(const hyt_lu_tokens_t *t);
const void *hyt_lu_tok_nth(const hyt_lu_tokens_t *t, size_t i);

#endif
