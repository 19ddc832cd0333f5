/*
 * Tiles: CCRB addressing and edge tiles, LAPACK <-> CCRB conversion tasks (exact round trip,
 * padding rows of the LAPACK array untouched), the CRRB host reference transposition.
 */
#include "hytile.h"
#include "hyt_test.h"

int main(void)
{
    hyt_context_t *ctx = test_context(3, "none", (char *)NULL);

    static const int dims[][3] = {{1, 1, 1}, {5, 3, 2}, {64, 64, 64}, {100, 37, 16},
                                  {37, 100, 16}, {513, 257, 128}, {0, 4, 8}, {4, 0, 8}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++) {
        int m = dims[t][0], n = dims[t][1], nb = dims[t][2], lda = m + 5;
        hyt_desc_t A;
        REQUIRE(!hyt_desc_create(ctx, m, n, nb, &A), "desc %d %d %d", m, n, nb);
        CHECK(A.mt == (m + nb - 1) / nb && A.nt == (n + nb - 1) / nb, "tile counts");
        if (A.mt)
            CHECK(hyt_tile_mb(&A, A.mt - 1) == m - (A.mt - 1) * nb, "edge rows");
        if (A.nt)
            CHECK(hyt_tile_nb(&A, A.nt - 1) == n - (A.nt - 1) * nb, "edge columns");
        double *a = malloc(((size_t)lda * n + 1) * sizeof *a), *b = malloc(((size_t)lda * n + 1) * sizeof *b);
        for (int64_t i = 0; i < (int64_t)lda * n; i++) {
            a[i] = (double)i + 0.5;
            b[i] = -1;
        }
        CHECK(!hyt_lapack_to_tile(ctx, a, lda, &A), "to tile");
        int ok = 1;
        for (int c = 0; c < n; c++)
            for (int r = 0; r < m; r++) {
                /* tile (r/nb, c/nb) at ((j*mt + i) * nb*nb), element at r%nb + (c%nb)*nb */
                int64_t off = ((int64_t)(c / nb) * A.mt + r / nb) * nb * nb + r % nb + (c % nb) * nb;
                ok &= A.mat[off] == a[r + (int64_t)c * lda] && *hyt_elem(&A, r, c) == A.mat[off];
            }
        CHECK(ok, "%d x %d nb %d: CCRB placement", m, n, nb);
        CHECK(!hyt_tile_to_lapack(ctx, &A, b, lda), "to lapack");
        ok = 1;
        for (int c = 0; c < n; c++)
            for (int r = 0; r < lda; r++)
                ok &= b[r + (int64_t)c * lda] == (r < m ? a[r + (int64_t)c * lda] : -1);
        CHECK(ok, "%d x %d nb %d: round trip not exact or padding rows written", m, n, nb);
        free(a);
        free(b);
        hyt_desc_destroy(&A);
    }
    /* LAPACK views */
    double v[20];
    hyt_desc_t L;
    CHECK(!hyt_desc_lapack(4, 5, 2, v, 4, &L), "view");
    CHECK(hyt_tile(&L, 1, 2) == v + 2 + 4 * 4 && hyt_tile_ld(&L) == 4, "view addressing");
    CHECK(hyt_desc_lapack(4, 5, 2, v, 3, &L) == HYT_ERR_INVALID, "lda < m accepted");
    CHECK(hyt_desc_create(ctx, -1, 5, 2, &L) == HYT_ERR_INVALID, "m < 0 accepted");
    CHECK(hyt_desc_create(ctx, 5, 5, 0, &L) == HYT_ERR_INVALID, "nb 0 accepted");

    /* CRRB reference: (r,c) of a CCRB tile lands at r*nb + c, and back */
    int nb = 7;
    double src[49], dst[49], back[49];
    for (int i = 0; i < 49; i++)
        src[i] = i;
    hyt_ccrb_to_crrb(src, dst, nb, 1);
    int ok = 1;
    for (int r = 0; r < nb; r++)
        for (int c = 0; c < nb; c++)
            ok &= dst[r * nb + c] == src[r + c * nb];
    hyt_crrb_to_ccrb(dst, back, nb, 1);
    CHECK(ok && !memcmp(src, back, sizeof src), "CRRB transposition");
    hyt_context_destroy(ctx);
    return test_result("test_tiles");
}
