/*
 * Replays the fuzzers' seed corpus (tests/fuzz/corpus/{config,hpldat,cli}/) through the same
 * entry points and the same contract as the fuzz targets (tests/fuzz/fuzz_*.c are included
 * here), built with the ordinary compiler, so that the quick suite checks the three parsers on
 * every build without clang or libFuzzer.  A broken contract prints one line and traps.
 *
 * A seed named ok-* must be accepted and one named bad-* rejected; others may go either way.
 *
 *   test_parsers_corpus CORPUS_DIR            every file of CORPUS_DIR/{config,hpldat,cli}
 *   test_parsers_corpus TARGET FILE...        some files through one target (config, hpldat,
 *                                             cli), e.g. a crash kept by tests/fuzz/run-fuzz
 */
#define HYT_FUZZ_REPLAY 1
#include "fuzz/fuzz_cli.c"
#include "fuzz/fuzz_config.c"
#include "fuzz/fuzz_hpldat.c"

#include "hyt_test.h"

#include <dirent.h>

static const struct {
    const char *name;
    int (*one)(const uint8_t *data, size_t size);
} targets[] = {
    {"config", fuzz_config_one},
    {"hpldat", fuzz_hpldat_one},
    {"cli", fuzz_cli_one},
};
#define NTARGETS ((int)(sizeof targets / sizeof targets[0]))

static int replay_file(int t, const char *path, const char *name)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f, "cannot open %s", path);
    uint8_t *data = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *p = realloc(data, cap);
            REQUIRE(p, "out of memory");
            data = p;
        }
        size_t got = fread(data + size, 1, cap - size, f);
        size += got;
        if (got == 0)
            break;
    }
    REQUIRE(!ferror(f), "cannot read %s", path);
    fclose(f);

    printf("%s %s: ", targets[t].name, path);
    fflush(stdout); /* the file's name shows even when the contract traps */
    int accepted = targets[t].one(data, size);
    free(data);
    printf("%s", accepted ? "accepted" : "rejected");
    int cli = strcmp(targets[t].name, "cli") == 0;
    if (!accepted && !cli)
        printf(": %s", hyt_last_error());
    else if (!accepted)
        printf(": %.*s", (int)strcspn(hyt_fuzz_captured, "\n"), hyt_fuzz_captured);
    else if (cli && hyt_last_error()[0])
        printf(" by the parser, rejected by the configuration: %s", hyt_last_error());
    printf("\n");
    CHECK(strncmp(name, "ok-", 3) != 0 || accepted, "%s: an ok- seed was rejected", path);
    CHECK(strncmp(name, "bad-", 4) != 0 || !accepted, "%s: a bad- seed was accepted", path);
    return 1;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR | %s config|hpldat|cli FILE...\n", argv[0],
                argv[0]);
        return 2;
    }
    for (int t = 0; t < NTARGETS; t++)
        if (strcmp(argv[1], targets[t].name) == 0) {
            for (int i = 2; i < argc; i++) {
                const char *slash = strrchr(argv[i], '/');
                replay_file(t, argv[i], slash ? slash + 1 : argv[i]);
            }
            return test_result("parsers_corpus");
        }

    for (int t = 0; t < NTARGETS; t++) {
        char dir[4096];
        struct dirent **names;
        snprintf(dir, sizeof dir, "%s/%s", argv[1], targets[t].name);
        int n = scandir(dir, &names, NULL, by_name), files = 0;
        REQUIRE(n >= 0, "cannot read the corpus directory %s", dir);
        for (int i = 0; i < n; i++) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
            if (names[i]->d_name[0] != '.')
                files += replay_file(t, path, names[i]->d_name);
            free(names[i]);
        }
        free(names);
        CHECK(files > 0, "no seeds in %s", dir);
    }
    return test_result("parsers_corpus");
}
