/*
 * A tile solve through the devices, for any factorization whose device-matrix solve exists
 * (the Cholesky's hyt_pdpotrs_dmat, the LU's hyt_pdgetrs_dmat): the host factor's tile
 * columns and B's go to device matrices (1D block-cyclic over the context's devices), the
 * caller's solve runs there, and B's columns come back.  Inserts tasks only; both device
 * matrices are freed by a cleanup task after every task on them.  Used where the CPU
 * workers' solve, memory-bound (two sweeps over the factor), is slower than moving the factor
 * (gpu.solve_min_nrhs right-hand sides and more).
 */
#include "drv_internal.h"
#include "hyt_dev_columns.h"
#include "hyt_hybrid.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct dsolve {
    hyt_dmat_t *dA, *dB;
} dsolve_t;

static void dsolve_free(void *p)
{
    dsolve_t *s = p;
    hyt_dmat_free(s->dA);
    hyt_dmat_free(s->dB);
    free(s);
}

/* Tile column j of D: tiles row0 .. (trans: the host tiles of tile row j, see
 * hyt_dev_columns.h). */
static hyt_dev_column_t column(const hyt_dmat_t *D, int j, int row0, int trans)
{
    return (hyt_dev_column_t){.dev = hyt_context_device(D->ctx, hyt_dmat_owner(D, j)),
                              .dcol = hyt_dmat_col(D, j), .nb = D->nb, .mt = D->mt,
                              .row0 = row0, .trans = trans};
}

int hyt_dmat_solve_applies(hyt_context_t *ctx, const hyt_desc_t *A, const hyt_desc_t *B)
{
    return hyt_context_num_devices(ctx) > 0 && A->n > 0 && A->layout == HYT_LAYOUT_CCRB &&
           B->layout == HYT_LAYOUT_CCRB &&
           B->n >= hyt_config_get_int(hyt_context_config(ctx), "gpu.solve_min_nrhs");
}

int hyt_dmat_insert_b_in(hyt_sequence_t *seq, const hyt_dmat_t *dB, const hyt_desc_t *B, int prio)
{
    int rc = 0;
    for (int j = 0; j < dB->nt && !rc; j++) {
        const hyt_dev_column_t c = column(dB, j, 0, 0);
        rc = hyt_insert_dev_column_load(seq, (hyt_tag_t){prio, -1, -1, j}, &c, B, j,
                                        hyt_dmat_col_key(dB, j), NULL, NULL);
    }
    return rc;
}

int hyt_dmat_insert_b_out(hyt_sequence_t *seq, const hyt_dmat_t *dB, const hyt_desc_t *B, int k,
                          const int *stop)
{
    int rc = 0;
    for (int j = 0; j < dB->nt && !rc; j++) {
        hyt_dev_column_t c = column(dB, j, 0, 0);
        c.stop = stop;
        rc = hyt_insert_dev_column_return(seq, (hyt_tag_t){0, k, -1, j}, &c, B, j,
                                          hyt_dmat_col_key(dB, j), stop);
    }
    return rc;
}

int hyt_dmat_solve_tiles(hyt_sequence_t *seq, const hyt_desc_t *A, char part,
                         const hyt_desc_t *B, int pivots, hyt_dmat_solve_fn solve, void *arg)
{
    hyt_context_t *ctx = hyt_sequence_context(seq);
    const int ndev = hyt_context_num_devices(ctx), n = A->n, nb = A->nb;
    dsolve_t *s = calloc(1, sizeof *s);
    size_t *need = calloc((size_t)ndev, sizeof *need);
    int rc = s && need ? 0 : hyt_error(HYT_ERR_NOMEM, "out of memory");
    /* the memory check counts B's matrix and the solve's workspace with the factor's */
    for (int g = 0; !rc && g < ndev; g++)
        need[g] = hyt_dmat_alloc_bytes(n, B->n, nb, ndev, g) +
                  hyt_dmat_trs_bytes(n, B->n, nb, ndev, g, pivots);
    char what[128];
    snprintf(what, sizeof what, "the solve with a %d x %d factor and %d right-hand sides on the "
             "devices (nb %d, %d devices)", n, n, B->n, nb, ndev);
    if (!rc)
        rc = hyt_dmat_alloc(ctx, n, n, nb, need, what, &s->dA);
    if (!rc)
        rc = hyt_dmat_alloc(ctx, n, B->n, nb, NULL, what, &s->dB);
    free(need);
    if (rc) {
        if (s)
            dsolve_free(s);
        return rc;
    }
    const hyt_dmat_t *dA = s->dA, *dB = s->dB;
    for (int j = 0; j < dA->nt && !rc; j++) {
        const hyt_dev_column_t c = column(dA, j, part == 'A' ? 0 : j, part == 'U');
        rc = hyt_insert_dev_column_load(seq, (hyt_tag_t){dA->nt - j, -1, -1, j}, &c, A, j,
                                        hyt_dmat_col_key(dA, j), NULL, NULL);
    }
    if (!rc)
        rc = hyt_dmat_insert_b_in(seq, dB, B, dA->nt);
    if (!rc)
        rc = solve(seq, s->dA, s->dB, arg);
    if (!rc)
        rc = hyt_dmat_insert_b_out(seq, dB, B, dA->nt, NULL);
    // free both after every task on their columns
    const int nd = dA->nt + dB->nt;
    hyt_dep_t *deps = malloc((size_t)nd * sizeof *deps);
    for (int j = 0; deps && j < nd; j++)
        deps[j] = (hyt_dep_t){j < dA->nt ? hyt_dmat_col_key(dA, j)
                                         : hyt_dmat_col_key(dB, j - dA->nt),
                              HYT_RW};
    int rc2 = hyt_drv_insert_cleanup(seq, dsolve_free, s, deps, nd);
    free(deps);
    return rc ? rc : rc2;
}
