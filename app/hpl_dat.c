/*
 * HPL.dat reader (hpl_dat.h has the format).  A line may be of any length, but only its first
 * LINE_KEEP bytes are kept (the values come first; the rest is the description) and the file
 * is read up to FILE_MAX bytes, so that /dev/zero or a runaway file is refused quickly and in
 * bounded memory; each line is described once in the table below and checked by its kind.
 */
#include "hpl_dat.h"

#include "hyt_runtime.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NLINES 31
#define MAXN 10000000L /* hpl.n's limit */
#define LINE_KEEP 4096      /* bytes kept of a line: 20 values and more fit */
#define FILE_MAX (1L << 20) /* bytes read at most */

typedef enum {
    L_TEXT,   /* free text, only has to exist */
    L_INT,    /* one integer in [min, max] */
    L_COUNT,  /* number of values of the next line, 1..HYT_HPL_DAT_MAX */
    L_LIST,   /* `count` integers in [min, max], the count on line count_line */
    L_DOUBLE  /* the threshold */
} kind_t;

typedef struct linedef {
    const char *name;
    kind_t kind;
    long min, max;
    int count_line;
} linedef_t;

static const linedef_t lines[NLINES] = {
    {"first free-text line", L_TEXT, 0, 0, 0},
    {"second free-text line", L_TEXT, 0, 0, 0},
    {"output file name", L_TEXT, 0, 0, 0},
    {"device out", L_INT, INT_MIN, INT_MAX, 0},
    {"# of problems sizes (N)", L_COUNT, 1, HYT_HPL_DAT_MAX, 0},
    {"Ns", L_LIST, 1, MAXN, 5},
    {"# of NBs", L_COUNT, 1, HYT_HPL_DAT_MAX, 0},
    {"NBs", L_LIST, 1, 4096, 7},
    {"PMAP process mapping", L_INT, 0, 1, 0},
    {"# of process grids (P x Q)", L_COUNT, 1, HYT_HPL_DAT_MAX, 0},
    {"Ps", L_LIST, 1, INT_MAX, 10},
    {"Qs", L_LIST, 1, INT_MAX, 10},
    {"threshold", L_DOUBLE, 0, 0, 0},
    {"# of panel fact", L_COUNT, 1, HYT_HPL_DAT_MAX, 0},
    {"PFACTs", L_LIST, 0, 2, 14},
    {"# of recursive stopping criterium", L_COUNT, 1, HYT_HPL_DAT_MAX, 0},
    {"NBMINs", L_LIST, 1, INT_MAX, 16},
    {"# of panels in recursion", L_COUNT, 1, HYT_HPL_DAT_MAX, 0},
    {"NDIVs", L_LIST, 2, INT_MAX, 18},
    {"# of recursive panel fact.", L_COUNT, 1, HYT_HPL_DAT_MAX, 0},
    {"RFACTs", L_LIST, 0, 2, 20},
    {"# of broadcast", L_COUNT, 1, HYT_HPL_DAT_MAX, 0},
    {"BCASTs", L_LIST, 0, 5, 22},
    {"# of lookahead depth", L_COUNT, 1, HYT_HPL_DAT_MAX, 0},
    {"DEPTHs", L_LIST, 0, 64, 24},
    {"SWAP", L_INT, 0, 2, 0},
    {"swapping threshold", L_INT, 0, INT_MAX, 0},
    {"L1 form", L_INT, 0, 1, 0},
    {"U form", L_INT, 0, 1, 0},
    {"Equilibration", L_INT, 0, 1, 0},
    {"memory alignment", L_INT, 1, INT_MAX, 0},
};

static const char *const blanks = " \t\r\n\v\f";

/* A whole token that is a decimal integer (optional sign) fitting in a long. */
static int parse_int(const char *tok, long *out)
{
    const char *p = tok + (*tok == '+' || *tok == '-');
    if (*p < '0' || *p > '9')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(tok, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* Checks line number `ln` (1-based, text in `line`, NUL-terminated, may be modified) and stores
 * its values in vals[ln - 1]. */
static int check_line(const char *path, int ln, char *line, int counts[NLINES],
                      int vals[NLINES][HYT_HPL_DAT_MAX], hyt_hpl_dat_t *dat)
{
    const linedef_t *d = &lines[ln - 1];
    char *save = NULL, *tok = strtok_r(line, blanks, &save);
    long v;
    switch (d->kind) {
    case L_TEXT:
        return 0;
    case L_INT:
    case L_COUNT:
        if (!tok)
            return hyt_error(HYT_ERR_CONFIG, "%s:%d: %s: the line is empty, expected a number",
                             path, ln, d->name);
        if (parse_int(tok, &v))
            return hyt_error(HYT_ERR_CONFIG, "%s:%d: %s: '%.60s' is not an integer", path, ln,
                             d->name, tok);
        if (v < d->min || v > d->max)
            return hyt_error(HYT_ERR_CONFIG, "%s:%d: %s: %ld is out of range %ld..%ld", path,
                             ln, d->name, v, d->min, d->max);
        counts[ln - 1] = 1;
        vals[ln - 1][0] = (int)v;
        return 0;
    case L_LIST: {
        int want = vals[d->count_line - 1][0];
        for (int k = 0; k < want; k++, tok = strtok_r(NULL, blanks, &save)) {
            if (!tok)
                return hyt_error(HYT_ERR_CONFIG, "%s:%d: %s: expected %d values (the count on "
                                 "line %d), found %d", path, ln, d->name, want, d->count_line,
                                 k);
            /* the description where a value should be: too few values for the count */
            if (parse_int(tok, &v) && k > 0 && !strchr("+-.0123456789", *tok))
                return hyt_error(HYT_ERR_CONFIG, "%s:%d: %s: expected %d values (the count on "
                                 "line %d), found %d before '%.60s'", path, ln, d->name, want,
                                 d->count_line, k, tok);
            if (parse_int(tok, &v))
                return hyt_error(HYT_ERR_CONFIG, "%s:%d: %s: '%.60s' is not an integer "
                                 "(expected %d values, the count on line %d)", path, ln,
                                 d->name, tok, want, d->count_line);
            if (v < d->min || v > d->max)
                return hyt_error(HYT_ERR_CONFIG, "%s:%d: %s: %ld is out of range %ld..%ld%s",
                                 path, ln, d->name, v, d->min, d->max,
                                 ln == HYT_HPL_DAT_LINE_DEPTHS ? " (hytile's lookahead)" : "");
            vals[ln - 1][k] = (int)v;
        }
        counts[ln - 1] = want;
        return 0;
    }
    case L_DOUBLE: {
        if (!tok)
            return hyt_error(HYT_ERR_CONFIG, "%s:%d: %s: the line is empty, expected a number",
                             path, ln, d->name);
        char *end;
        errno = 0;
        double t = strtod(tok, &end);
        if (errno || *end || !isfinite(t))
            return hyt_error(HYT_ERR_CONFIG, "%s:%d: %s: '%.60s' is not a number", path, ln,
                             d->name, tok);
        if (!(t > 0))
            return hyt_error(HYT_ERR_CONFIG, "%s:%d: %s: %.60s: must be positive (hytile "
                             "always checks the residual; HPL skips the check when it is "
                             "negative)", path, ln, d->name, tok);
        dat->threshold = t;
        dat->threshold_text = strdup(tok);
        if (!dat->threshold_text)
            return hyt_error(HYT_ERR_NOMEM, "out of memory reading %s", path);
        return 0;
    }
    }
    return 0;
}

/* Reads line ln into line[LINE_KEEP + 1] (*bytes: read so far): 0, 1 at the end of the file,
 * or an error in *rc for a read error, a file over FILE_MAX, a NUL byte (a value would end
 * there unseen) or a CR without LF (old Mac line ends: the whole file would be one line). */
static int read_line(FILE *f, const char *path, int ln, char *line, long *bytes, int *rc)
{
    int n = 0, c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (++*bytes > FILE_MAX) {
            *rc = hyt_error(HYT_ERR_CONFIG, "%s:%d: the file is larger than 1 MiB: not an "
                            "HPL.dat", path, ln);
            return 0;
        }
        if (c == '\0') {
            *rc = hyt_error(HYT_ERR_CONFIG, "%s:%d: NUL byte in the line", path, ln);
            return 0;
        }
        if (c == '\r') {
            int next = getc(f);
            if (next != '\n' && next != EOF) {
                *rc = hyt_error(HYT_ERR_CONFIG, "%s:%d: carriage return without a line feed "
                                "(old Mac line ends?): lines must end with LF or CR LF", path,
                                ln);
                return 0;
            }
            ungetc(next, f);
        }
        if (n < LINE_KEEP)
            line[n++] = (char)c;
    }
    line[n] = '\0';
    if (c == EOF && ferror(f))
        *rc = hyt_error(HYT_ERR_CONFIG, "%s:%d: read error: %s", path, ln, strerror(errno));
    return c == EOF && n == 0;
}

int hyt_hpl_dat_read(const char *path, hyt_hpl_dat_t *dat)
{
    memset(dat, 0, sizeof *dat);
    FILE *f = fopen(path, "r");
    if (!f)
        return hyt_error(HYT_ERR_CONFIG, "%s: cannot open HPL.dat: %s", path, strerror(errno));
    /* a file, or a FIFO or a device read up to the 31 lines */
    struct stat st;
    if (fstat(fileno(f), &st) || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ||
                                   S_ISCHR(st.st_mode))) {
        int is_dir = S_ISDIR(st.st_mode);
        fclose(f);
        return hyt_error(HYT_ERR_CONFIG, "%s: cannot read HPL.dat: %s", path,
                         is_dir ? "it is a directory" : "not a file");
    }
    int counts[NLINES] = {0};
    int vals[NLINES][HYT_HPL_DAT_MAX] = {{0}};
    char *line = malloc(LINE_KEEP + 1);
    long bytes = 0;
    int rc = line ? 0 : hyt_error(HYT_ERR_NOMEM, "out of memory reading %s", path), ln;
    for (ln = 1; ln <= NLINES && !rc; ln++) {
        if (read_line(f, path, ln, line, &bytes, &rc) && !rc) {
            rc = hyt_error(HYT_ERR_CONFIG, "%s:%d: missing line (%s): the file ends after "
                           "%d lines, an HPL.dat has %d", path, ln, lines[ln - 1].name,
                           ln - 1, NLINES);
            break;
        }
        if (!rc)
            rc = check_line(path, ln, line, counts, vals, dat);
    }
    free(line);
    fclose(f);
    if (rc) {
        hyt_hpl_dat_free(dat);
        return rc;
    }
    dat->nns = counts[HYT_HPL_DAT_LINE_NS - 1];
    memcpy(dat->ns, vals[HYT_HPL_DAT_LINE_NS - 1], sizeof dat->ns);
    dat->nnbs = counts[HYT_HPL_DAT_LINE_NBS - 1];
    memcpy(dat->nbs, vals[HYT_HPL_DAT_LINE_NBS - 1], sizeof dat->nbs);
    dat->ndepths = counts[HYT_HPL_DAT_LINE_DEPTHS - 1];
    memcpy(dat->depths, vals[HYT_HPL_DAT_LINE_DEPTHS - 1], sizeof dat->depths);
    dat->ngrids = counts[HYT_HPL_DAT_LINE_GRIDS - 1];
    memcpy(dat->ps, vals[HYT_HPL_DAT_LINE_GRIDS - 1], sizeof dat->ps);
    memcpy(dat->qs, vals[HYT_HPL_DAT_LINE_GRIDS], sizeof dat->qs);
    return 0;
}

void hyt_hpl_dat_free(hyt_hpl_dat_t *dat)
{
    free(dat->threshold_text);
    dat->threshold_text = NULL;
}
