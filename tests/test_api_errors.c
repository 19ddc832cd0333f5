/*
 * Misuse of the public calls: every bad argument of every entry point, in turn, returns its
 * code (-i as in LAPACK for the drivers, HYT_ERR_INVALID for tiles and runtime) with a message
 * that names the call the user made and the argument.  Before each call an unrelated message is
 * set, so a call that fails without a message of its own (leaving a stale one) is caught.
 */
#include "hyt_runtime.h"
#include "hytile.h"
#include "hyt_test.h"

static const char stale[] = "stale message of an earlier call";

/* Checks rc and that the message contains every string of want (NULL-terminated), contains
 * none of avoid, and is not the stale one. */
static void expect(const char *what, int rc, int code, const char *const *want,
                   const char *const *avoid)
{
    const char *msg = hyt_last_error();
    CHECK(rc == code, "%s: returned %d (%s), expected %d; message '%s'", what, rc,
          hyt_strerror(rc), code, msg);
    CHECK(!strstr(msg, stale), "%s: stale message '%s'", what, msg);
    for (int i = 0; want[i]; i++)
        CHECK(strstr(msg, want[i]), "%s: message '%s' does not say '%s'", what, msg, want[i]);
    for (int i = 0; avoid && avoid[i]; i++)
        CHECK(!strstr(msg, avoid[i]), "%s: message '%s' says '%s'", what, msg, avoid[i]);
}

static int set_stale(void) { return hyt_error(HYT_ERR_CONFIG, "%s", stale); }

/* EXPECT(call, code, "wanted", "strings"): the stale message first, then the call. */
#define EXPECT(call, code, ...)                                                                \
    expect(#call, (set_stale(), (call)), code, (const char *const[]){__VA_ARGS__, NULL}, NULL)
/* The same, and the message must not mention any of avoid (a NULL-terminated list). */
#define EXPECT_NOT(avoid, call, code, ...)                                                     \
    expect(#call, (set_stale(), (call)), code, (const char *const[]){__VA_ARGS__, NULL}, avoid)

static const char *const not_async[] = {"_async", NULL};

static void check_lapack_layout(hyt_context_t *ctx)
{
    double a[16], b[4], a0[16], b0[4];
    int ipiv[4] = {7, 7, 7, 7};
    for (int i = 0; i < 16; i++)
        a[i] = a0[i] = i % 5 + (i % 4 == i / 4 ? 10 : 0);
    for (int i = 0; i < 4; i++)
        b[i] = b0[i] = i;

    EXPECT(hyt_dgetrf(ctx, -1, 4, a, 4, ipiv), -1, "hyt_dgetrf: argument 1 (m) is -1");
    EXPECT(hyt_dgetrf(ctx, 4, -2, a, 4, ipiv), -2, "hyt_dgetrf: argument 2 (n) is -2");
    EXPECT(hyt_dgetrf(ctx, 4, 4, NULL, 4, ipiv), -3, "hyt_dgetrf: argument 3 (a) is NULL");
    EXPECT(hyt_dgetrf(ctx, 4, 4, a, 3, ipiv), -4, "hyt_dgetrf: argument 4 (lda) is 3");
    EXPECT(hyt_dgetrf(ctx, 4, 4, a, 4, NULL), -5, "hyt_dgetrf: argument 5 (ipiv) is NULL");
    EXPECT(hyt_dgetrf(NULL, 4, 4, a, 4, ipiv), HYT_ERR_INVALID, "hyt_dgetrf: NULL context");

    EXPECT(hyt_dgetrs(ctx, 'X', 4, 1, a, 4, ipiv, b, 4), -1,
           "hyt_dgetrs: argument 1 (trans) is 'X'");
    EXPECT(hyt_dgetrs(ctx, '\n', 4, 1, a, 4, ipiv, b, 4), -1,
           "hyt_dgetrs: argument 1 (trans) is character 10");
    EXPECT(hyt_dgetrs(ctx, 'N', -1, 1, a, 4, ipiv, b, 4), -2, "hyt_dgetrs: argument 2 (n)");
    EXPECT(hyt_dgetrs(ctx, 'N', 4, -1, a, 4, ipiv, b, 4), -3, "hyt_dgetrs: argument 3 (nrhs)");
    EXPECT(hyt_dgetrs(ctx, 'N', 4, 1, NULL, 4, ipiv, b, 4), -4,
           "hyt_dgetrs: argument 4 (a) is NULL");
    EXPECT(hyt_dgetrs(ctx, 'N', 4, 1, a, 3, ipiv, b, 4), -5, "hyt_dgetrs: argument 5 (lda)");
    EXPECT(hyt_dgetrs(ctx, 'N', 4, 1, a, 4, NULL, b, 4), -6,
           "hyt_dgetrs: argument 6 (ipiv) is NULL");
    EXPECT(hyt_dgetrs(ctx, 'N', 4, 1, a, 4, ipiv, NULL, 4), -7,
           "hyt_dgetrs: argument 7 (b) is NULL");
    EXPECT(hyt_dgetrs(ctx, 'N', 4, 1, a, 4, ipiv, b, 2), -8, "hyt_dgetrs: argument 8 (ldb) is 2");
    EXPECT(hyt_dgetrs(NULL, 'N', 4, 1, a, 4, ipiv, b, 4), HYT_ERR_INVALID,
           "hyt_dgetrs: NULL context");

    EXPECT(hyt_dgesv(ctx, -1, 1, a, 4, ipiv, b, 4), -1, "hyt_dgesv: argument 1 (n) is -1");
    EXPECT(hyt_dgesv(ctx, 4, -1, a, 4, ipiv, b, 4), -2, "hyt_dgesv: argument 2 (nrhs) is -1");
    EXPECT(hyt_dgesv(ctx, 4, 1, NULL, 4, ipiv, b, 4), -3, "hyt_dgesv: argument 3 (a) is NULL");
    EXPECT(hyt_dgesv(ctx, 4, 1, a, 3, ipiv, b, 4), -4, "hyt_dgesv: argument 4 (lda) is 3");
    EXPECT(hyt_dgesv(ctx, 4, 1, a, 4, NULL, b, 4), -5, "hyt_dgesv: argument 5 (ipiv) is NULL");
    EXPECT(hyt_dgesv(ctx, 4, 1, a, 4, ipiv, NULL, 4), -6, "hyt_dgesv: argument 6 (b) is NULL");
    EXPECT(hyt_dgesv(ctx, 4, 1, a, 4, ipiv, b, 0), -7, "hyt_dgesv: argument 7 (ldb) is 0");
    EXPECT(hyt_dgesv(NULL, 4, 1, a, 4, ipiv, b, 4), HYT_ERR_INVALID, "hyt_dgesv: NULL context");

    CHECK(!memcmp(a, a0, sizeof a) && !memcmp(b, b0, sizeof b), "bad arguments wrote data");
    for (int i = 0; i < 4; i++)
        CHECK(ipiv[i] == 7, "bad arguments wrote ipiv");

    /* a successful call leaves no message behind */
    set_stale();
    CHECK(hyt_dgesv(ctx, 4, 1, a, 4, ipiv, b, 4) == 0, "dgesv: %s", hyt_last_error());
    CHECK(hyt_last_error()[0] == '\0', "message '%s' after a successful call", hyt_last_error());
}

static void check_tile_layout(hyt_context_t *ctx)
{
    hyt_desc_t A, B, Bnb, R, bad;
    int ipiv[4], info;
    REQUIRE(!hyt_desc_create(ctx, 4, 4, 2, &A), "%s", hyt_last_error());
    REQUIRE(!hyt_desc_create(ctx, 4, 1, 2, &B), "%s", hyt_last_error());
    REQUIRE(!hyt_desc_create(ctx, 4, 1, 3, &Bnb), "%s", hyt_last_error());
    REQUIRE(!hyt_desc_create(ctx, 4, 3, 2, &R), "%s", hyt_last_error());
    for (int i = 0; i < 16; i++)
        *hyt_elem(&A, i % 4, i / 4) = i % 4 == i / 4 ? 10 : 1;
    bad = A;
    bad.nb = 0;
    hyt_sequence_t *seq;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());

    EXPECT(hyt_dgetrf_tile(ctx, NULL, ipiv), -1, "hyt_dgetrf_tile: argument 1 (A) is NULL");
    EXPECT(hyt_dgetrf_tile(ctx, &bad, ipiv), -1, "hyt_dgetrf_tile: argument 1 (A) is not");
    EXPECT_NOT(not_async, hyt_dgetrf_tile(ctx, &A, NULL), -2,
               "hyt_dgetrf_tile: argument 2 (ipiv) is NULL");
    EXPECT(hyt_dgetrf_tile(NULL, &A, ipiv), HYT_ERR_INVALID, "hyt_dgetrf_tile: NULL context");
    EXPECT(hyt_dgetrf_tile_async(NULL, &A, ipiv, &info), HYT_ERR_INVALID,
           "hyt_dgetrf_tile_async: NULL sequence");
    EXPECT(hyt_dgetrf_tile_async(seq, NULL, ipiv, &info), -1,
           "hyt_dgetrf_tile_async: argument 1 (A) is NULL");
    EXPECT(hyt_dgetrf_tile_async(seq, &A, NULL, &info), -2,
           "hyt_dgetrf_tile_async: argument 2 (ipiv) is NULL");
    EXPECT(hyt_dgetrf_tile_async(seq, &A, ipiv, NULL), -3,
           "hyt_dgetrf_tile_async: argument 3 (info) is NULL");

    /* the user's report: ipiv = NULL said "shape mismatch" and named the _async call */
    EXPECT_NOT(not_async, hyt_dgetrs_tile(ctx, 'N', &A, NULL, &B), -3,
               "hyt_dgetrs_tile: argument 3 (ipiv) is NULL");
    EXPECT_NOT(not_async, hyt_dgetrs_tile(ctx, 'Z', &A, ipiv, &B), -1,
               "hyt_dgetrs_tile: argument 1 (trans) is 'Z'");
    EXPECT(hyt_dgetrs_tile(ctx, 'N', NULL, ipiv, &B), -2, "hyt_dgetrs_tile: argument 2 (A) is NULL");
    EXPECT(hyt_dgetrs_tile(ctx, 'N', &R, ipiv, &B), -2,
           "hyt_dgetrs_tile: argument 2 (A) is 4 x 3, must be square");
    EXPECT(hyt_dgetrs_tile(ctx, 'N', &A, ipiv, NULL), -4, "hyt_dgetrs_tile: argument 4 (B) is NULL");
    EXPECT(hyt_dgetrs_tile(ctx, 'N', &A, ipiv, &Bnb), -4,
           "hyt_dgetrs_tile: argument 4 (B) has tile size 3, A has 2");
    EXPECT(hyt_dgetrs_tile(NULL, 'N', &A, ipiv, &B), HYT_ERR_INVALID,
           "hyt_dgetrs_tile: NULL context");
    EXPECT(hyt_dgetrs_tile_async(NULL, 'N', &A, ipiv, &B), HYT_ERR_INVALID,
           "hyt_dgetrs_tile_async: NULL sequence");
    EXPECT(hyt_dgetrs_tile_async(seq, 'N', &A, NULL, &B), -3,
           "hyt_dgetrs_tile_async: argument 3 (ipiv) is NULL");
    EXPECT(hyt_dgetrs_tile_async(seq, 'N', &A, ipiv, &Bnb), -4,
           "hyt_dgetrs_tile_async: argument 4 (B) has tile size 3");

    EXPECT(hyt_dgesv_tile(ctx, NULL, ipiv, &B), -1, "hyt_dgesv_tile: argument 1 (A) is NULL");
    EXPECT(hyt_dgesv_tile(ctx, &R, ipiv, &B), -1, "hyt_dgesv_tile: argument 1 (A) is 4 x 3");
    EXPECT(hyt_dgesv_tile(ctx, &A, NULL, &B), -2, "hyt_dgesv_tile: argument 2 (ipiv) is NULL");
    EXPECT(hyt_dgesv_tile(ctx, &A, ipiv, NULL), -3, "hyt_dgesv_tile: argument 3 (B) is NULL");
    EXPECT(hyt_dgesv_tile(ctx, &A, ipiv, &Bnb), -3, "hyt_dgesv_tile: argument 3 (B) has tile");
    EXPECT(hyt_dgesv_tile(NULL, &A, ipiv, &B), HYT_ERR_INVALID, "hyt_dgesv_tile: NULL context");

    CHECK(hyt_sequence_wait(seq) == 0 && hyt_sequence_message(seq)[0] == '\0',
          "bad arguments failed the sequence: %s", hyt_sequence_message(seq));
    hyt_sequence_destroy(seq);
    set_stale();
    CHECK(hyt_dgesv_tile(ctx, &A, ipiv, &B) == 0, "dgesv_tile: %s", hyt_last_error());
    CHECK(hyt_last_error()[0] == '\0', "message '%s' after a successful call", hyt_last_error());
    hyt_desc_destroy(&A);
    hyt_desc_destroy(&B);
    hyt_desc_destroy(&Bnb);
    hyt_desc_destroy(&R);
}

typedef int chol_solve_fn(hyt_context_t *, char, int, int, double *, int, double *, int);

/* hyt_dpotrs through the signature of hyt_dposv (a is const there). */
static int dpotrs_call(hyt_context_t *ctx, char uplo, int n, int nrhs, double *a, int lda,
                       double *b, int ldb)
{
    return hyt_dpotrs(ctx, uplo, n, nrhs, a, lda, b, ldb);
}

/* The Cholesky's calls in LAPACK layout: hyt_dposv checks with the solve's positions and names
 * itself, never the hyt_dpotrf and hyt_dpotrs it is made of. */
static void check_chol_lapack(hyt_context_t *ctx)
{
    double a[16], b[4], a0[16], b0[4];
    for (int i = 0; i < 16; i++)
        a[i] = a0[i] = i % 4 == i / 4 ? 10 : 1;
    for (int i = 0; i < 4; i++)
        b[i] = b0[i] = i;

    EXPECT(hyt_dpotrf(ctx, 'X', 4, a, 4), -1, "hyt_dpotrf: argument 1 (uplo) is 'X'");
    EXPECT(hyt_dpotrf(ctx, '\n', 4, a, 4), -1, "hyt_dpotrf: argument 1 (uplo) is character 10");
    EXPECT(hyt_dpotrf(ctx, 'L', -2, a, 4), -2, "hyt_dpotrf: argument 2 (n) is -2");
    EXPECT(hyt_dpotrf(ctx, 'L', 4, NULL, 4), -3, "hyt_dpotrf: argument 3 (a) is NULL");
    EXPECT(hyt_dpotrf(ctx, 'U', 4, a, 3), -4, "hyt_dpotrf: argument 4 (lda) is 3");
    EXPECT(hyt_dpotrf(NULL, 'L', 4, a, 4), HYT_ERR_INVALID, "hyt_dpotrf: NULL context");

    static const struct {
        const char *name;
        chol_solve_fn *f;
        const char *const avoid[4];
    } calls[] = {{"hyt_dpotrs", dpotrs_call, {"_tile", NULL}},
                 {"hyt_dposv", hyt_dposv, {"hyt_dpotrf", "hyt_dpotrs", "_tile", NULL}}};
    for (int c = 0; c < 2; c++) {
        chol_solve_fn *f = calls[c].f;
        const char *const *avoid = calls[c].avoid;
        char m[7][64], mctx[64];
        static const char *const args[7] = {"1 (uplo) is 'x'", "2 (n) is -1", "3 (nrhs) is -1",
                                            "4 (a) is NULL", "5 (lda) is 3", "6 (b) is NULL",
                                            "7 (ldb) is 2"};
        for (int i = 0; i < 7; i++)
            snprintf(m[i], sizeof m[i], "%s: argument %s", calls[c].name, args[i]);
        snprintf(mctx, sizeof mctx, "%s: NULL context", calls[c].name);
        EXPECT_NOT(avoid, f(ctx, 'x', 4, 1, a, 4, b, 4), -1, m[0]);
        EXPECT_NOT(avoid, f(ctx, 'L', -1, 1, a, 4, b, 4), -2, m[1]);
        EXPECT_NOT(avoid, f(ctx, 'L', 4, -1, a, 4, b, 4), -3, m[2]);
        EXPECT_NOT(avoid, f(ctx, 'L', 4, 1, NULL, 4, b, 4), -4, m[3]);
        EXPECT_NOT(avoid, f(ctx, 'U', 4, 1, a, 3, b, 4), -5, m[4]);
        EXPECT_NOT(avoid, f(ctx, 'L', 4, 1, a, 4, NULL, 4), -6, m[5]);
        EXPECT_NOT(avoid, f(ctx, 'L', 4, 1, a, 4, b, 2), -7, m[6]);
        EXPECT_NOT(avoid, f(NULL, 'L', 4, 1, a, 4, b, 4), HYT_ERR_INVALID, mctx);
    }
    CHECK(!memcmp(a, a0, sizeof a) && !memcmp(b, b0, sizeof b), "bad arguments wrote data");

    set_stale();
    CHECK(hyt_dposv(ctx, 'L', 4, 1, a, 4, b, 4) == 0, "dposv: %s", hyt_last_error());
    CHECK(hyt_last_error()[0] == '\0', "message '%s' after a successful call", hyt_last_error());
}

/* The tile Cholesky (HYT_ERR_INVALID for a bad argument, numbered as in LAPACK): each call
 * names itself, not the _async call or the factorization it is made of. */
static void check_chol_tiles(hyt_context_t *ctx)
{
    static const char *const not_parts[] = {"_async", "hyt_dpotrf", "hyt_dpotrs", NULL};
    hyt_desc_t A, B, Bnb, B3, R;
    int info;
    REQUIRE(!hyt_desc_create(ctx, 4, 4, 2, &A) && !hyt_desc_create(ctx, 4, 1, 2, &B) &&
            !hyt_desc_create(ctx, 4, 1, 3, &Bnb) && !hyt_desc_create(ctx, 3, 1, 2, &B3) &&
            !hyt_desc_create(ctx, 4, 3, 2, &R), "%s", hyt_last_error());
    for (int i = 0; i < 16; i++)
        *hyt_elem(&A, i % 4, i / 4) = i % 4 == i / 4 ? 10 : 1;
    hyt_sequence_t *seq;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());

    EXPECT_NOT(not_async, hyt_dpotrf_tile(ctx, 'Q', &A), -1,
               "hyt_dpotrf_tile: argument 1 (uplo) is 'Q'");
    EXPECT(hyt_dpotrf_tile(ctx, 'L', NULL), -2,
           "hyt_dpotrf_tile: argument 2 (A) is NULL");
    EXPECT(hyt_dpotrf_tile(ctx, 'L', &R), -2,
           "hyt_dpotrf_tile: argument 2 (A) is 4 x 3, must be square");
    EXPECT(hyt_dpotrf_tile(NULL, 'L', &A), HYT_ERR_INVALID, "hyt_dpotrf_tile: NULL context");
    EXPECT(hyt_dpotrf_tile_async(NULL, 'L', &A, &info), HYT_ERR_INVALID,
           "hyt_dpotrf_tile_async: NULL sequence");
    EXPECT(hyt_dpotrf_tile_async(seq, 'L', &A, NULL), -3,
           "hyt_dpotrf_tile_async: argument 3 (info) is NULL");

    EXPECT_NOT(not_async, hyt_dpotrs_tile(ctx, 'L', &A, NULL), -3,
               "hyt_dpotrs_tile: argument 3 (B) is NULL");
    EXPECT(hyt_dpotrs_tile(ctx, 'L', &A, &B3), -3,
           "hyt_dpotrs_tile: argument 3 (B) has 3 rows, A has 4");
    EXPECT(hyt_dpotrs_tile(NULL, 'L', &A, &B), HYT_ERR_INVALID, "hyt_dpotrs_tile: NULL context");
    EXPECT(hyt_dpotrs_tile_async(seq, 'L', &A, &Bnb), -3,
           "hyt_dpotrs_tile_async: argument 3 (B) has tile size 3, A has 2");

    EXPECT_NOT(not_parts, hyt_dposv_tile(ctx, 'Q', &A, &B), -1,
               "hyt_dposv_tile: argument 1 (uplo) is 'Q'");
    EXPECT_NOT(not_parts, hyt_dposv_tile(ctx, 'L', &R, &B), -2,
               "hyt_dposv_tile: argument 2 (A) is 4 x 3");
    EXPECT_NOT(not_parts, hyt_dposv_tile(ctx, 'L', &A, &Bnb), -3,
               "hyt_dposv_tile: argument 3 (B) has tile size 3");
    EXPECT_NOT(not_parts, hyt_dposv_tile(NULL, 'L', &A, &B), HYT_ERR_INVALID,
               "hyt_dposv_tile: NULL context");
    EXPECT(hyt_dposv_tile_async(seq, 'Q', &A, &B, &info), -1,
           "hyt_dposv_tile_async: argument 1 (uplo) is 'Q'");
    EXPECT(hyt_dposv_tile_async(seq, 'L', &A, NULL, &info), -3,
           "hyt_dposv_tile_async: argument 3 (B) is NULL");
    EXPECT(hyt_dposv_tile_async(seq, 'L', &A, &B, NULL), -4,
           "hyt_dposv_tile_async: argument 4 (info) is NULL");

    CHECK(hyt_sequence_wait(seq) == 0 && hyt_sequence_message(seq)[0] == '\0',
          "bad arguments failed the sequence: %s", hyt_sequence_message(seq));
    hyt_sequence_destroy(seq);
    set_stale();
    CHECK(hyt_dposv_tile(ctx, 'L', &A, &B) == 0, "dposv_tile: %s", hyt_last_error());
    CHECK(hyt_last_error()[0] == '\0', "message '%s' after a successful call", hyt_last_error());
    hyt_desc_destroy(&A);
    hyt_desc_destroy(&B);
    hyt_desc_destroy(&Bnb);
    hyt_desc_destroy(&B3);
    hyt_desc_destroy(&R);
}

static void check_tiles(hyt_context_t *ctx)
{
    hyt_desc_t A, L;
    double a[12] = {0};
    /* the user's report: nb = 0 returned -1002 with an earlier call's message */
    EXPECT(hyt_desc_create(ctx, 4, 4, 0, &A), HYT_ERR_INVALID,
           "hyt_desc_create: argument 3 (nb) is 0");
    EXPECT(hyt_desc_create(ctx, -1, 4, 2, &A), HYT_ERR_INVALID,
           "hyt_desc_create: argument 1 (m) is -1");
    EXPECT(hyt_desc_create(ctx, 4, -3, 2, &A), HYT_ERR_INVALID,
           "hyt_desc_create: argument 2 (n) is -3");
    EXPECT(hyt_desc_create(ctx, 4, 4, 2, NULL), HYT_ERR_INVALID,
           "hyt_desc_create: argument 4 (A) is NULL");
    EXPECT(hyt_desc_create(ctx, 1 << 30, 1 << 30, 1024, &A), HYT_ERR_TOO_LARGE,
           "hyt_desc_create: ");
    EXPECT(hyt_desc_lapack(4, 3, 2, a, 3, &L), HYT_ERR_INVALID,
           "hyt_desc_lapack: argument 5 (lda) is 3");
    EXPECT(hyt_desc_lapack(4, 3, 2, NULL, 4, &L), HYT_ERR_INVALID,
           "hyt_desc_lapack: argument 4 (a) is NULL");

    REQUIRE(!hyt_desc_create(ctx, 4, 3, 2, &A), "%s", hyt_last_error());
    REQUIRE(!hyt_desc_lapack(4, 3, 2, a, 4, &L), "%s", hyt_last_error());
    hyt_sequence_t *seq;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());
    EXPECT(hyt_lapack_to_tile(NULL, a, 4, &A), HYT_ERR_INVALID, "hyt_lapack_to_tile: NULL context");
    EXPECT(hyt_lapack_to_tile(ctx, NULL, 4, &A), HYT_ERR_INVALID,
           "hyt_lapack_to_tile: argument 1 (a) is NULL");
    EXPECT(hyt_lapack_to_tile(ctx, a, 2, &A), HYT_ERR_INVALID,
           "hyt_lapack_to_tile: argument 2 (lda) is 2");
    EXPECT(hyt_lapack_to_tile(ctx, a, 4, NULL), HYT_ERR_INVALID,
           "hyt_lapack_to_tile: argument 3 (A) is NULL");
    EXPECT(hyt_lapack_to_tile(ctx, a, 4, &L), HYT_ERR_INVALID,
           "hyt_lapack_to_tile: argument 3 (A) is not a tile (CCRB) matrix");
    EXPECT(hyt_tile_to_lapack(ctx, NULL, a, 4), HYT_ERR_INVALID,
           "hyt_tile_to_lapack: argument 1 (A) is NULL");
    EXPECT(hyt_tile_to_lapack(ctx, &A, NULL, 4), HYT_ERR_INVALID,
           "hyt_tile_to_lapack: argument 2 (a) is NULL");
    EXPECT(hyt_tile_to_lapack(ctx, &A, a, 1), HYT_ERR_INVALID,
           "hyt_tile_to_lapack: argument 3 (lda) is 1");
    EXPECT(hyt_lapack_to_tile_async(NULL, a, 4, &A), HYT_ERR_INVALID,
           "hyt_lapack_to_tile_async: NULL sequence");
    EXPECT(hyt_lapack_to_tile_async(seq, NULL, 4, &A), HYT_ERR_INVALID,
           "hyt_lapack_to_tile_async: argument 1 (a) is NULL");
    EXPECT(hyt_tile_to_lapack_async(seq, &A, a, 0), HYT_ERR_INVALID,
           "hyt_tile_to_lapack_async: argument 3 (lda) is 0");
    CHECK(hyt_sequence_wait(seq) == 0, "bad arguments failed the sequence");
    hyt_sequence_destroy(seq);
    hyt_desc_destroy(&A);
}

static int noop_body(const hyt_task_ctx_t *tc, void *args)
{
    (void)tc;
    (void)args;
    return 0;
}
static const hyt_kernel_t noop = {.name = "noop", .cpu = noop_body};
static const hyt_kernel_t no_body = {.name = "no_body"};

static void check_runtime(hyt_context_t *ctx)
{
    hyt_sequence_t *seq;
    int x = 0;
    EXPECT(hyt_sequence_create(NULL, &seq), HYT_ERR_INVALID, "hyt_sequence_create: NULL context");
    EXPECT(hyt_sequence_create(ctx, NULL), HYT_ERR_INVALID,
           "hyt_sequence_create: argument 1 (seq) is NULL");
    REQUIRE(!hyt_sequence_create(ctx, &seq), "%s", hyt_last_error());

    hyt_task_desc_t d = hyt_task_desc(&noop, &x, sizeof x);
    EXPECT(hyt_task_insert(NULL, &d), HYT_ERR_INVALID, "hyt_task_insert: NULL sequence");
    EXPECT(hyt_task_insert(seq, NULL), HYT_ERR_INVALID, "hyt_task_insert: argument 1 (desc) is NULL");
    d.kernel = NULL;
    EXPECT(hyt_task_insert(seq, &d), HYT_ERR_INVALID, "hyt_task_insert: argument 1 (desc) has no kernel");
    d = hyt_task_desc(&noop, &x, sizeof x);
    d.ndeps = -1;
    EXPECT(hyt_task_insert(seq, &d), HYT_ERR_INVALID, "argument 1 (desc) has ndeps -1", "noop");
    d.ndeps = 2;
    EXPECT(hyt_task_insert(seq, &d), HYT_ERR_INVALID, "argument 1 (desc) has ndeps 2 and deps NULL");
    d = hyt_task_desc(&noop, NULL, 8);
    EXPECT(hyt_task_insert(seq, &d), HYT_ERR_INVALID, "hyt_task_insert: argument 1 (desc) has args_size 8");
    d = hyt_task_desc(&noop, &x, sizeof x);
    d.device = 3;
    EXPECT(hyt_task_insert(seq, &d), HYT_ERR_INVALID,
           "hyt_task_insert: argument 1 (desc) asks for device 3, the context has 0");
    d = hyt_task_desc(&no_body, NULL, 0);
    EXPECT(hyt_task_insert(seq, &d), HYT_ERR_INVALID, "kernel no_body has no CPU body");
    /* a bad access mode is refused before the task is in the graph: the sequence stays good */
    hyt_dep_t deps[2] = {{&x, HYT_READ}, {&x, (hyt_mode_t)9}};
    d = hyt_task_desc(&noop, &x, sizeof x);
    d.deps = deps;
    d.ndeps = 2;
    EXPECT(hyt_task_insert(seq, &d), HYT_ERR_INVALID,
           "hyt_task_insert: argument 1 (desc) has deps[1].mode 9");
    CHECK(hyt_sequence_wait(seq) == 0, "a refused task failed the sequence: %s",
          hyt_sequence_message(seq));
    hyt_sequence_destroy(seq);

    EXPECT(hyt_context_set(NULL, "lu.nb", "64"), HYT_ERR_INVALID, "hyt_context_set");
    EXPECT(hyt_context_set(ctx, NULL, "64"), HYT_ERR_INVALID,
           "hyt_context_set: argument 1 (key) is NULL");
    EXPECT(hyt_context_set(ctx, "lu.nb", NULL), HYT_ERR_INVALID,
           "hyt_context_set: argument 2 (value) is NULL");
    EXPECT(hyt_context_set(ctx, "runtime.workers", "2"), HYT_ERR_CONFIG,
           "hyt_context_set: runtime.workers is fixed when the context is created");
    EXPECT(hyt_context_set(ctx, "lu.nb", "banana"), HYT_ERR_CONFIG, "hyt_context_set: ", "lu.nb");
    CHECK(hyt_context_set(ctx, "lu.nb", "64") == 0 && !*hyt_last_error(),
          "a good hyt_context_set left '%s'", hyt_last_error());
}

/* Failures beneath a call (an injected task failure) name the call the user made, not the
 * internal call that failed. */
static void check_library_errors(void)
{
    static const char *const not_inner[] = {"hyt_dgetrf", "_async", NULL};
    double a[16], b[4];
    int ipiv[4] = {1, 2, 3, 4};
    for (int i = 0; i < 16; i++)
        a[i] = i % 4 == i / 4 ? 10 : 1;
    for (int i = 0; i < 4; i++)
        b[i] = 1;
    hyt_context_t *ctx = test_context(2, "none", "debug.fault_task", "1", (char *)NULL);
    EXPECT_NOT(not_inner, hyt_dgesv(ctx, 4, 1, a, 4, ipiv, b, 4), HYT_ERR_FAULT, "hyt_dgesv: ");
    CHECK(!strncmp(hyt_last_error(), "hyt_dgesv: ", 11), "'%s'", hyt_last_error());
    hyt_context_destroy(ctx);

    ctx = test_context(2, "none", "debug.fault_task", "1", (char *)NULL);
    hyt_desc_t A, B;
    REQUIRE(!hyt_desc_create(ctx, 4, 4, 2, &A) && !hyt_desc_create(ctx, 4, 1, 2, &B), "%s",
            hyt_last_error());
    EXPECT_NOT(not_async, hyt_dgetrs_tile(ctx, 'N', &A, ipiv, &B), HYT_ERR_FAULT,
               "hyt_dgetrs_tile: ");
    CHECK(!strncmp(hyt_last_error(), "hyt_dgetrs_tile: ", 17), "'%s'", hyt_last_error());
    hyt_desc_destroy(&A);
    hyt_desc_destroy(&B);
    hyt_context_destroy(ctx);

    /* the Cholesky's: hyt_dposv is a factorization and a solve, named as the call made */
    static const char *const not_chol_parts[] = {"hyt_dpotrf", "hyt_dpotrs", "_tile", NULL};
    for (int i = 0; i < 16; i++)
        a[i] = i % 4 == i / 4 ? 10 : 1;
    ctx = test_context(2, "none", "debug.fault_task", "1", (char *)NULL);
    EXPECT_NOT(not_chol_parts, hyt_dposv(ctx, 'L', 4, 1, a, 4, b, 4), HYT_ERR_FAULT,
               "hyt_dposv: ");
    CHECK(!strncmp(hyt_last_error(), "hyt_dposv: ", 11), "'%s'", hyt_last_error());
    hyt_context_destroy(ctx);

    static const char *const not_posv_parts[] = {"hyt_dpotrf", "hyt_dpotrs", "_async", NULL};
    ctx = test_context(2, "none", "debug.fault_task", "1", (char *)NULL);
    REQUIRE(!hyt_desc_create(ctx, 4, 4, 2, &A) && !hyt_desc_create(ctx, 4, 1, 2, &B), "%s",
            hyt_last_error());
    for (int i = 0; i < 16; i++)
        *hyt_elem(&A, i % 4, i / 4) = i % 4 == i / 4 ? 10 : 1;
    EXPECT_NOT(not_posv_parts, hyt_dposv_tile(ctx, 'L', &A, &B), HYT_ERR_FAULT,
               "hyt_dposv_tile: ");
    CHECK(!strncmp(hyt_last_error(), "hyt_dposv_tile: ", 16), "'%s'", hyt_last_error());
    hyt_desc_destroy(&A);
    hyt_desc_destroy(&B);
    hyt_context_destroy(ctx);
}

int main(void)
{
    hyt_context_t *ctx = test_context(2, "none", (char *)NULL);
    check_lapack_layout(ctx);
    check_tile_layout(ctx);
    check_chol_lapack(ctx);
    check_chol_tiles(ctx);
    check_tiles(ctx);
    check_runtime(ctx);
    hyt_context_destroy(ctx);
    check_library_errors();
    return test_result("test_api_errors");
}
