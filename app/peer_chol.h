/*
 * The vendor peers of the GPU-only Cholesky benchmark (bench_chol_gpu.c): cusolverDnDpotrf on a
 * device-resident matrix, either triangle; cusolverMgPotrf of a host matrix's lower triangle on
 * several GPUs; and the cuBLAS DGEMM rate at the shapes that dominate a Cholesky's trailing
 * update (the ceiling any GPU Cholesky answers to).
 *
 * Plain C: no CUDA types appear here.  Built without CUDA, every call returns
 * HYT_ERR_NOT_AVAILABLE.
 */
#ifndef HYT_PEER_CHOL_H
#define HYT_PEER_CHOL_H

#ifdef __cplusplus
extern "C" {
#endif

/* cusolverDnDpotrf of the uplo ('L' or 'U') triangle of the n x n matrix d_a (leading dimension
 * lda) already in the memory of GPU `device`, in place: *seconds the call alone
 * (cudaDeviceSynchronize before and after, its workspace allocated before), *info its INFO.
 * Returns 0 or an HYT_ERR_* code (hyt_last_error() names the failed call, file and line); the
 * calling thread's current device is restored. */
int hyt_peer_dpotrf_uplo(int device, char uplo, int n, double *d_a, int lda, double *seconds,
                         int *info);

/* One GPU, host to host: cudaMemcpy of the whole n x n host matrix a (leading dimension n; not
 * modified) in, cusolverDnDpotrf of its uplo triangle, cudaMemcpy of the whole matrix out to a
 * page-locked buffer, timed together on one stream, best of reps runs: *seconds (a page-locked
 * for the copies, as the LU's peer does; the workspace made once, outside the clock).  Returns
 * 0, or an HYT_ERR_* code as above (HYT_ERR_INVALID when INFO is not 0). */
int hyt_peer_dpotrf_h2h(int device, char uplo, int n, const double *a, int reps, double *seconds);

/* cusolverMgPotrf of the lower triangle of the n x n host matrix a (leading dimension lda; not
 * modified) on the ndev distinct CUDA devices `devices`: a 1 x ndev grid, column-major mapping,
 * column blocks of mg_block columns (256 when mg_block <= 0; n when larger), block j on
 * devices[j % ndev] (the layout of hyt_peer_dgesv's cusolverMg, peer_cusolver.c).  The matrix
 * is copied to the devices first; *seconds is cusolverMgPotrf alone, between synchronizations
 * of every device (its workspace allocated before); *info its h_info (LAPACK's INFO: > 0, the
 * leading minor of that order is not positive definite).  When f is not NULL the factor comes
 * back to f (n x n, leading dimension n: its lower triangle; the strict upper triangle as the
 * devices hold it).  Peer access this call enables is disabled again.  Returns 0 or an HYT_ERR_*
 * code as above (HYT_ERR_DEVICE_MEMORY when the columns or the workspace do not fit). */
int hyt_peer_dpotrf_mg(int ndev, const int *devices, int n, int mg_block, const double *a,
                       int lda, double *seconds, int *info, double *f);

/* cuBLAS DGEMM C = C - op(A) op(B) with C m x n, inner dimension k, transa / transb 'N' or 'T',
 * on fresh device operands filled with values in [-1, 1) (not zeros: the rate of the tensor
 * cores depends on the data through power), one call to warm up then the best of reps calls,
 * each timed by CUDA events: *seconds.  Returns 0 or an HYT_ERR_* code as above
 * (HYT_ERR_DEVICE_MEMORY when the operands do not fit). */
int hyt_peer_dgemm_time(int device, char transa, char transb, int m, int n, int k, int reps,
                        double *seconds);

#ifdef __cplusplus
}
#endif
#endif /* HYT_PEER_CHOL_H */
