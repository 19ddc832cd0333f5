/* Host reference of the CCRB <-> CRRB tile transposition (the GPU kernels' specification). */
#include "hyt_runtime.h"

#include <stdint.h>

void hyt_ccrb_to_crrb_tile(const double *src, double *dst, int nb)
{
    /* dst(r,c) at r*nb + c  <-  src(r,c) at r + c*nb */
    for (int c = 0; c < nb; c++)
        for (int r = 0; r < nb; r++)
            dst[(int64_t)r * nb + c] = src[r + (int64_t)c * nb];
}

void hyt_crrb_to_ccrb_tile(const double *src, double *dst, int nb)
{
    for (int c = 0; c < nb; c++)
        for (int r = 0; r < nb; r++)
            dst[r + (int64_t)c * nb] = src[(int64_t)r * nb + c];
}

void hyt_ccrb_to_crrb(const double *src, double *dst, int nb, int ntiles)
{
    int64_t sz = (int64_t)nb * nb;
    for (int t = 0; t < ntiles; t++)
        hyt_ccrb_to_crrb_tile(src + t * sz, dst + t * sz, nb);
}

void hyt_crrb_to_ccrb(const double *src, double *dst, int nb, int ntiles)
{
    int64_t sz = (int64_t)nb * nb;
    for (int t = 0; t < ntiles; t++)
        hyt_crrb_to_ccrb_tile(src + t * sz, dst + t * sz, nb);
}
