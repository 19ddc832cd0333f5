/* hytile bench-gpu --panel (bench_panel.c): the panel LU alone, hytile's native GPU panel
 * against cusolverDnDgetrf, alone and beside a large DGEMM; prints a table.  sms > 0: the
 * panels on a green context of that many SMs, the DGEMMs on one of the others (gemm_all: on
 * every SM).  0, or 1 / 2 on a failure (message printed). */
#ifndef HYT_BENCH_PANEL_H
#define HYT_BENCH_PANEL_H

#include "hytile.h"

int hyt_bench_panel(hyt_context_t *ctx, const int *ms, int nm, const int *nbs, int nnb, int reps,
                    int nctas, int sms, int gemm_all);

#endif
