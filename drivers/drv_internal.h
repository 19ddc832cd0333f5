/* Internal interfaces between the drivers. */
#ifndef HYT_DRV_INTERNAL_H
#define HYT_DRV_INTERNAL_H

#include "hyt_cpu_kernels.h"
#include "hyt_internal.h"
#include "hyt_runtime.h"
#include "hytile.h"

/* The tile LU loop nest on CPUs (pdgetrf.c) and with devices (pdgetrf_hybrid.c): insert tasks
 * only.  A is CCRB or a LAPACK view; ipiv has min(m,n) entries. */
int hyt_pdgetrf(hyt_sequence_t *seq, const hyt_desc_t *A, int *ipiv, int *info,
                const hyt_lu_params_t *p);
int hyt_pdgetrf_hybrid(hyt_sequence_t *seq, const hyt_desc_t *A, int *ipiv, int *info,
                       const hyt_lu_params_t *p);
/* The tile solve (pdgetrs.c): A n x n factored, B n x nrhs. */
int hyt_pdgetrs(hyt_sequence_t *seq, char trans, const hyt_desc_t *A, const int *ipiv,
                const hyt_desc_t *B);

/* Registration of each algorithm's configuration keys (drv_keys.c calls them). */
int hyt_lu_register_keys(void);

/* Dependency keys of the pivots of each step: &ipiv[k*nb] for k < kt (malloc'ed, or NULL). */
const void **hyt_piv_keys(const int *ipiv, int kt, int nb);

/* LAPACK's LSAME for the trans argument: 'N', 'T' or 'C' in either case, else 0. */
char hyt_norm_trans(char t);

#endif
