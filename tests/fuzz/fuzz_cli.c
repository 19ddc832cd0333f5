/*
 * Fuzz target: the option parser of `hytile hpl`, hyt_hpl_parse_args (app/cmd_hpl.c, with
 * hyt_cli_next / hyt_cli_int / hyt_cli_int_list of app/cli_common.c), then the settings it
 * returns applied to a configuration the way hyt_cli_build_config applies the command line
 * (hyt_config_set with HYT_SRC_API, in order).
 *
 * The input is the argument list: words separated by newline or NUL bytes (a trailing separator
 * ends the last word; empty words are empty arguments), 64 words at most, after argv[0] "hpl".
 *
 * hyt_hpl_parse_args only parses: it allocates o->set and o->sizes (freed by
 * hyt_hpl_opts_free), prints its messages on stderr and runs, opens or creates nothing (the
 * file options are only recorded; --help only sets o->help).  hyt_cli_build_config itself is
 * not called: it reads the environment, the tuned file under $HOME and /proc/cpuinfo, and would
 * open whatever --config names (a fuzzed path like /dev/stdin would hang).
 *
 * Contract:
 *   rejected: status HYT_EXIT_USAGE, a message "hytile hpl: ..." on stderr, nothing allocated;
 *   accepted: nothing printed; one setting per value option, each a known key with a
 *             "command line ..." origin; the numeric options "auto" or 0..2^31-1; the -n values
 *             joined into the last setting; then the configuration either rejects a setting with
 *             a message naming the option, or ends with every option's last value and every key
 *             in its documented range (hyt_fuzz_check_config).
 */
#include "cli_common.h"
#include "fuzz_common.h"

#include <errno.h>

#define FUZZ_CLI_MAX_WORDS 64

/* "auto", or an integer 0..2^31-1 as hyt_cli_int reads it (optional sign, digits). */
static int parser_number(const char *text)
{
    if (strcmp(text, "auto") == 0)
        return 1;
    const char *p = text + (*text == '+' || *text == '-');
    if (*p < '0' || *p > '9')
        return 0;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    return !errno && !*end && v >= 0 && v <= 2147483647L;
}

static void check_accepted(int argc, const hyt_hpl_opts_t *o, const char *printed)
{
    HYT_FUZZ_CHECK(printed[0] == '\0', "accepted, but printed '%s'", printed);
    HYT_FUZZ_CHECK(o->nset >= 0 && o->nset <= argc, "%d settings from %d arguments", o->nset,
                   argc);
    int nb = 0, la = 0;
    for (int i = 0; i < o->nset; i++) {
        const hyt_cli_set_t *s = &o->set[i];
        HYT_FUZZ_CHECK(s->key && s->value && s->where, "setting %d incomplete", i);
        HYT_FUZZ_CHECK(hyt_config_key_index(s->key) >= 0, "unknown key %s", s->key);
        HYT_FUZZ_CHECK(strncmp(s->where, "command line ", 13) == 0, "origin '%s'", s->where);
        nb += strcmp(s->key, "lu.nb") == 0;
        la += strcmp(s->key, "lu.lookahead") == 0;
        if (!strcmp(s->key, "lu.nb") || !strcmp(s->key, "lu.lookahead") ||
            !strcmp(s->key, "lu.panel_cores") || !strcmp(s->key, "hpl.seed"))
            HYT_FUZZ_CHECK(parser_number(s->value), "%s: '%s' passed the parser", s->where,
                           s->value);
        if (!strcmp(s->key, "hpl.n")) {
            HYT_FUZZ_CHECK(i == o->nset - 1 && o->sizes && s->value == o->sizes,
                           "hpl.n is not the last setting, or not o->sizes");
            char *copy = strdup(s->value), *save = NULL;
            HYT_FUZZ_CHECK(copy, "strdup");
            int items = 0;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                HYT_FUZZ_CHECK(parser_number(t), "-n: '%s' passed the parser in '%s'", t,
                               s->value);
                items++;
            }
            HYT_FUZZ_CHECK(items >= 1, "-n: empty list '%s'", s->value);
            free(copy);
        }
    }
    HYT_FUZZ_CHECK(!o->sizes || (o->nset > 0 && o->set[o->nset - 1].value == o->sizes),
                   "o->sizes '%s' not among the settings", o->sizes);
    HYT_FUZZ_CHECK(!!o->have_nb == !!nb && !!o->have_lookahead == !!la,
                   "have_nb %d / have_lookahead %d with %d / %d settings", o->have_nb,
                   o->have_lookahead, nb, la);

    /* the command line's step of hyt_cli_build_config */
    hyt_config_t *cfg;
    HYT_FUZZ_CHECK(hyt_config_create(&cfg) == 0, "hyt_config_create: %s", hyt_last_error());
    for (int i = 0; i < o->nset; i++) {
        const hyt_cli_set_t *s = &o->set[i];
        hyt_fuzz_clear_error();
        int rc = hyt_config_set(cfg, s->key, s->value, HYT_SRC_API, s->where);
        if (rc) {
            const char *msg = hyt_last_error();
            HYT_FUZZ_CHECK(rc == HYT_ERR_CONFIG, "rc %d (%s)", rc, msg);
            HYT_FUZZ_CHECK(strncmp(msg, s->where, strlen(s->where)) == 0,
                           "%s = '%s' rejected with a message not naming %s: '%s'", s->key,
                           s->value, s->where, msg);
            hyt_config_destroy(cfg);
            return;
        }
    }
    for (int i = 0; i < o->nset; i++) {
        int last = 1;
        for (int j = i + 1; j < o->nset; j++)
            last &= strcmp(o->set[j].key, o->set[i].key) != 0;
        hyt_source_t src;
        const char *v = hyt_config_get(cfg, o->set[i].key, &src);
        HYT_FUZZ_CHECK(!last || (src == HYT_SRC_API && strcmp(v, o->set[i].value) == 0),
                       "%s: '%s' (%s), the command line said '%s'", o->set[i].key, v,
                       hyt_source_name(src), o->set[i].value);
    }
    hyt_fuzz_check_config(cfg);
    hyt_config_destroy(cfg);
}

static int fuzz_cli_one(const uint8_t *data, size_t size)
{
    hyt_fuzz_clear_error();
    char *text = malloc(size + 1);
    HYT_FUZZ_CHECK(text, "malloc");
    memcpy(text, data, size);
    text[size] = '\0';

    char *argv[FUZZ_CLI_MAX_WORDS + 2];
    int argc = 0;
    argv[argc++] = "hpl";
    size_t start = 0;
    for (size_t i = 0; i <= size && argc <= FUZZ_CLI_MAX_WORDS; i++) {
        if (i < size && text[i] != '\n' && text[i] != '\0')
            continue;
        if (i == size && start == size && size > 0)
            break; /* a trailing separator ends the last word */
        text[i] = '\0';
        argv[argc++] = text + start;
        start = i + 1;
    }
    if (size == 0)
        argc = 1; /* no arguments at all */
    argv[argc] = NULL;

    hyt_hpl_opts_t o;
    hyt_fuzz_capture_begin();
    int rc = hyt_hpl_parse_args(argc, argv, &o);
    const char *printed = hyt_fuzz_capture_end();
    if (rc) {
        HYT_FUZZ_CHECK(rc == HYT_EXIT_USAGE, "status %d", rc);
        HYT_FUZZ_CHECK(strncmp(printed, "hytile hpl: ", 12) == 0 && printed[12],
                       "rejected with the message '%s'", printed);
        HYT_FUZZ_CHECK(!o.set && !o.sizes && !o.nset, "rejected, but settings remain");
    } else {
        check_accepted(argc, &o, printed);
        hyt_hpl_opts_free(&o);
    }
    free(text);
    return rc == 0;
}

HYT_FUZZ_TARGET(fuzz_cli_one)
