/* Matrix norms: a kernel on one block, and tile-parallel norms of a whole matrix. */
#include "hyt_cpu_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double nan_max(double a, double b) { return isnan(a) || a > b ? a : b; }

double hyt_core_dlange(char norm, int m, int n, const double *a, int64_t lda)
{
    double v = 0.0;
    if (m <= 0 || n <= 0)
        return 0.0;
    switch (norm) {
    case 'M':
        for (int c = 0; c < n; c++)
            for (int r = 0; r < m; r++)
                v = nan_max(fabs(a[r + c * lda]), v);
        return v;
    case '1':
    case 'O':
        for (int c = 0; c < n; c++) {
            double s = 0;
            for (int r = 0; r < m; r++)
                s += fabs(a[r + c * lda]);
            v = nan_max(s, v);
        }
        return v;
    case 'I': {
        double *w = calloc((size_t)m, sizeof *w);
        if (!w)
            return NAN;
        for (int c = 0; c < n; c++)
            for (int r = 0; r < m; r++)
                w[r] += fabs(a[r + c * lda]);
        for (int r = 0; r < m; r++)
            v = nan_max(w[r], v);
        free(w);
        return v;
    }
    case 'F': {
        double scale = 0, ssq = 1; /* LAPACK's dlassq: no overflow for large entries */
        for (int c = 0; c < n; c++)
            for (int r = 0; r < m; r++) {
                double x = fabs(a[r + c * lda]);
                if (x == 0)
                    continue;
                if (isnan(x))
                    return x;
                if (scale < x) {
                    ssq = 1 + ssq * (scale / x) * (scale / x);
                    scale = x;
                } else {
                    ssq += (x / scale) * (x / scale);
                }
            }
        return scale * sqrt(ssq);
    }
    }
    return NAN;
}

/* One task per tile row ('I', 'M') or tile column ('1'); partial results combined by a final
 * task. 'F' uses sums of squares per tile column. */
typedef struct lange_args {
    hyt_desc_t A;
    char norm;
    int idx;         /* tile row or column */
    double *partial; /* one per task */
} lange_args_t;

static int lange_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    lange_args_t *a = p;
    const hyt_desc_t *A = &a->A;
    int ld = hyt_tile_ld(A);
    double v = 0;
    if (a->norm == 'I') {
        int i = a->idx, mb = hyt_tile_mb(A, i);
        double w[4096];
        memset(w, 0, (size_t)mb * sizeof *w);
        for (int j = 0; j < A->nt; j++) {
            const double *t = hyt_tile(A, i, j);
            for (int c = 0; c < hyt_tile_nb(A, j); c++)
                for (int r = 0; r < mb; r++)
                    w[r] += fabs(t[r + (int64_t)c * ld]);
        }
        for (int r = 0; r < mb; r++)
            v = nan_max(w[r], v);
    } else if (a->norm == 'M') {
        int i = a->idx;
        for (int j = 0; j < A->nt; j++)
            v = nan_max(hyt_core_dlange('M', hyt_tile_mb(A, i), hyt_tile_nb(A, j),
                                        hyt_tile(A, i, j), ld), v);
    } else if (a->norm == '1') {
        int j = a->idx, nbj = hyt_tile_nb(A, j);
        double w[4096];
        memset(w, 0, (size_t)nbj * sizeof *w);
        for (int i = 0; i < A->mt; i++) {
            const double *t = hyt_tile(A, i, j);
            for (int c = 0; c < nbj; c++)
                for (int r = 0; r < hyt_tile_mb(A, i); r++)
                    w[c] += fabs(t[r + (int64_t)c * ld]);
        }
        for (int c = 0; c < nbj; c++)
            v = nan_max(w[c], v);
    } else { /* 'F': scaled sum of squares of the tile column, stored as scale^2 * ssq */
        int j = a->idx;
        double s = 0;
        for (int i = 0; i < A->mt; i++) {
            double f = hyt_core_dlange('F', hyt_tile_mb(A, i), hyt_tile_nb(A, j),
                                       hyt_tile(A, i, j), ld);
            s += f * f;
        }
        v = s;
    }
    a->partial[a->idx] = v;
    return 0;
}

typedef struct lange_final {
    char norm;
    int n;
    double *partial;
    double *result;
} lange_final_t;

static int lange_final_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    lange_final_t *a = p;
    double v = 0;
    for (int i = 0; i < a->n; i++)
        v = a->norm == 'F' ? v + a->partial[i] : nan_max(a->partial[i], v);
    *a->result = a->norm == 'F' ? sqrt(v) : v;
    free(a->partial);
    return 0;
}

static const hyt_kernel_t lange_kernel = {.name = "dlange", .cpu = lange_body, .cat = HYT_CAT_OTHER};
/* always: it frees the partials, also when the sequence failed */
static const hyt_kernel_t lange_final_kernel = {.name = "dlange_sum", .cpu = lange_final_body, .cat = HYT_CAT_OTHER, .always = 1};

int hyt_dlange_tile_async(hyt_sequence_t *seq, char norm, const hyt_desc_t *A, double *result)
{
    if (norm == 'O')
        norm = '1';
    if (norm != 'M' && norm != '1' && norm != 'I' && norm != 'F')
        return HYT_ERR_INVALID;
    if (A->nb > 4096)
        return HYT_ERR_INVALID;
    int by_row = norm == 'I' || norm == 'M';
    int ntask = by_row ? A->mt : A->nt;
    if (ntask == 0) {
        *result = 0;
        return HYT_SUCCESS;
    }
    double *partial = calloc((size_t)ntask, sizeof *partial);
    if (!partial)
        return HYT_ERR_NOMEM;
    int cap = (by_row ? A->nt : A->mt) + 1;
    hyt_dep_t *deps = malloc((size_t)(cap > ntask + 1 ? cap : ntask + 1) * sizeof *deps);
    if (!deps) {
        free(partial);
        return HYT_ERR_NOMEM;
    }
    int rc = 0;
    for (int t = 0; t < ntask && !rc; t++) {
        lange_args_t args = {*A, norm, t, partial};
        int nd = 0;
        for (int u = 0; u < (by_row ? A->nt : A->mt); u++)
            deps[nd++] = (hyt_dep_t){by_row ? hyt_tile(A, t, u) : hyt_tile(A, u, t), HYT_READ};
        deps[nd++] = (hyt_dep_t){&partial[t], HYT_WRITE};
        hyt_task_desc_t d = hyt_task_desc(&lange_kernel, &args, sizeof args);
        d.deps = deps;
        d.ndeps = nd;
        rc = hyt_task_insert(seq, &d);
    }
    lange_final_t fin = {norm, ntask, partial, result};
    int nd = 0;
    for (int t = 0; t < ntask; t++)
        deps[nd++] = (hyt_dep_t){&partial[t], HYT_READ};
    deps[nd++] = (hyt_dep_t){result, HYT_WRITE};
    hyt_task_desc_t d = hyt_task_desc(&lange_final_kernel, &fin, sizeof fin);
    d.deps = deps;
    d.ndeps = nd;
    /* inserted even after an error (an "always" task runs in a failed sequence too) */
    int rc2 = hyt_task_insert(seq, &d);
    if (rc2)
        free(partial); /* not inserted */
    free(deps);
    return rc ? rc : rc2;
}
