/*
 * Reader of HPL's input file HPL.dat (the 31-line format of HPL 2.x), for `hytile hpl --hpl-dat`.
 *
 *   line  1-2   free text                    line 17   NBMINs
 *   line  3     output file name             line 18   # of panels in recursion
 *   line  4     device out (6, 7, file)      line 19   NDIVs
 *   line  5     # of problem sizes (N)       line 20   # of recursive panel fact.
 *   line  6     Ns                           line 21   RFACTs (0..2)
 *   line  7     # of NBs                     line 22   # of broadcast
 *   line  8     NBs                          line 23   BCASTs (0..5)
 *   line  9     PMAP (0, 1)                  line 24   # of lookahead depth
 *   line 10     # of process grids           line 25   DEPTHs
 *   line 11     Ps                           line 26   SWAP (0..2)
 *   line 12     Qs                           line 27   swapping threshold
 *   line 13     threshold                    line 28   L1 form (0, 1)
 *   line 14     # of panel fact              line 29   U form (0, 1)
 *   line 15     PFACTs (0..2)                line 30   Equilibration (0, 1)
 *   line 16     # of recursive stopping      line 31   memory alignment in doubles (> 0)
 *
 * As in HPL only the leading token(s) of a line count: a count line's first token, a list line's
 * first `count` tokens; the rest of the line is the description.  Every line is checked (counts
 * 1..20 as in HPL, every number numeric and in range) even though hytile uses only Ns, NBs,
 * DEPTHs and the threshold.
 */
#ifndef HYT_HPL_DAT_H
#define HYT_HPL_DAT_H

#define HYT_HPL_DAT_MAX 20 /* HPL_MAX_PARAM: most values of one list */

typedef struct hyt_hpl_dat {
    int nns, ns[HYT_HPL_DAT_MAX];         /* problem sizes */
    int nnbs, nbs[HYT_HPL_DAT_MAX];       /* tile sizes */
    int ndepths, depths[HYT_HPL_DAT_MAX]; /* lookahead depths */
    int ngrids, ps[HYT_HPL_DAT_MAX], qs[HYT_HPL_DAT_MAX];
    double threshold;
    char *threshold_text;                 /* as written (malloc'ed) */
} hyt_hpl_dat_t;

/* Line numbers of the values hytile uses, for reports. */
enum { HYT_HPL_DAT_LINE_NS = 6, HYT_HPL_DAT_LINE_NBS = 8, HYT_HPL_DAT_LINE_GRIDS = 11,
       HYT_HPL_DAT_LINE_THRESHOLD = 13, HYT_HPL_DAT_LINE_DEPTHS = 25 };

/* Reads path.  Returns 0, or HYT_ERR_CONFIG with hyt_last_error() = "path:line: what is wrong"
 * (HYT_ERR_NOMEM when out of memory). */
int hyt_hpl_dat_read(const char *path, hyt_hpl_dat_t *dat);
void hyt_hpl_dat_free(hyt_hpl_dat_t *dat);

#endif
