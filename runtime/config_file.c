/*
 * The configuration's readers: INI files (through inih, errors naming file:line, a bad file
 * changes nothing) and the environment (HYT_CONFIG, then one HYT_ variable per registered
 * key; any other HYT_ variable is rejected, so a misspelt one never goes unnoticed, except
 * those of a reserved component absent from the program: see hyt_config_reserve).
 */
#include "rt_internal.h"

#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern char **environ;

/* ------------------------------------------------------------------------------------------ */
/* INI files                                                                                   */

#define INI_FILE_MAX (1L << 20) /* bytes: a config file is a few lines; /dev/zero is not */

typedef struct iniparse {
    hyt_config_t *cfg;
    const char *path;
    hyt_source_t src;
    FILE *f;
    long bytes;       /* read so far */
    int line;         /* line last read */
    int bad_line;     /* line number of the first line the reader refused */
    const char *bad;  /* why: too long, a NUL byte, a lone CR, a read error, the file size */
    int read_errno;   /* errno of a read error */
    int rc;           /* first error */
    int rc_line;      /* its line */
    char seen[HYT_CONFIG_MAX_KEYS];
} iniparse_t;

/* inih's line reader: counts lines (for file:line messages), and refuses a line longer than
 * inih's buffer, holding a NUL byte (which would silently cut the value short) or a CR without
 * LF (old Mac line ends), a read error and a file over INI_FILE_MAX.  It stops at the first
 * problem, the reader's or the handler's, so that an endless input (/dev/zero, a FIFO) ends. */
static char *ini_reader_fn(char *str, int num, void *stream)
{
    iniparse_t *p = stream;
    int n = 0, c = EOF;
    const char *bad = NULL;
    if (p->bad || p->rc)
        return NULL;
    while (n < num - 1 && (c = getc(p->f)) != EOF) {
        if (++p->bytes > INI_FILE_MAX) {
            bad = "file larger than 1 MiB";
            break;
        }
        if (c == '\0')
            bad = "NUL byte in the line";
        if (c == '\r') {
            int next = getc(p->f);
            if (next != '\n' && next != EOF)
                bad = "carriage return without a line feed (old Mac line ends?): lines must "
                      "end with LF or CR LF";
            ungetc(next, p->f);
        }
        str[n++] = (char)c;
        if (c == '\n' || bad)
            break;
    }
    if (c == EOF && ferror(p->f)) {
        p->read_errno = errno;
        bad = "read error";
    } else if (!bad && n == num - 1 && str[n - 1] != '\n') {
        bad = "line too long";
    } else if (n == 0 && c == EOF) {
        return NULL;
    }
    p->line++;
    if (bad) {
        p->bad = bad;
        p->bad_line = p->line;
        return NULL;
    }
    str[n] = '\0';
    return str;
}

static int ini_fail(iniparse_t *p, int rc)
{
    p->rc = rc;
    p->rc_line = p->line;
    return 0;
}

static int ini_handler_fn(void *user, const char *section, const char *name, const char *value)
{
    iniparse_t *p = user;
    char key[128], where[4200]; /* the whole path: messages must name the file */
    if (p->rc)
        return 1; /* keep the first error only */
    snprintf(where, sizeof where, "%s:%d", p->path, p->line);
    if (!*section) {
        char sections[512];
        hyt_config_sections(sections, sizeof sections);
        return ini_fail(p, hyt_rt_error(HYT_ERR_CONFIG, "%s: key '%s' outside a section (%s)",
                                        where, name, sections));
    }
    snprintf(key, sizeof key, "%s.%s", section, name);
    int i = hyt_config_key_index(key);
    if (i < 0 && hyt_config_is_reserved(section, NULL))
        return 1; /* a section of a component this program does not have (hytile's [hpl]) */
    if (i < 0) {
        return ini_fail(p, hyt_rt_error(HYT_ERR_CONFIG, "%s: unknown key '%s' in section [%s]",
                                        where, name, section));
    }
    if (p->seen[i]) {
        return ini_fail(p, hyt_rt_error(HYT_ERR_CONFIG, "%s: key '%s' set twice", where, key));
    }
    p->seen[i] = 1;
    int rc = hyt_config_set(p->cfg, key, value, p->src, where);
    return rc ? ini_fail(p, rc) : 1;
}

int hyt_config_load_file(hyt_config_t *cfg, const char *path, hyt_source_t src)
{
    iniparse_t p = {.cfg = cfg, .path = path, .src = src};
    if (!cfg || !path)
        return hyt_rt_error(HYT_ERR_INVALID, "hyt_config_load_file: NULL argument");
    /* Parse into a scratch copy so that a bad file changes nothing. */
    hyt_config_t *tmp;
    int rc = hyt_config_copy(cfg, &tmp);
    if (rc)
        return rc;
    p.cfg = tmp;
    p.f = fopen(path, "r");
    if (!p.f) {
        rc = hyt_rt_error(HYT_ERR_CONFIG, "%s: cannot open config file: %s", path,
                          strerror(errno));
        goto out;
    }
    /* a file, or a FIFO or a device read up to INI_FILE_MAX */
    struct stat st;
    if (fstat(fileno(p.f), &st) || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ||
                                     S_ISCHR(st.st_mode))) {
        rc = hyt_rt_error(HYT_ERR_CONFIG, "%s: cannot read config file: %s", path,
                          S_ISDIR(st.st_mode) ? "it is a directory" : "not a file");
        fclose(p.f);
        goto out;
    }
    int line = ini_parse_stream(ini_reader_fn, &p, ini_handler_fn, &p);
    fclose(p.f);
    /* Report the earliest problem: a line the reader refused, a syntax error (inih's line), or
     * a bad key or value (the handler's line). */
    if (p.bad && (!p.rc || p.bad_line <= p.rc_line) && (line <= 0 || p.bad_line <= line)) {
        rc = hyt_rt_error(HYT_ERR_CONFIG, "%s:%d: %s%s%s", path, p.bad_line, p.bad,
                          p.read_errno ? ": " : "", p.read_errno ? strerror(p.read_errno) : "");
        goto out;
    }
    if (p.rc && (line <= 0 || p.rc_line <= line)) {
        rc = p.rc;
        goto out;
    }
    if (line > 0) {
        rc = hyt_rt_error(HYT_ERR_CONFIG,
                          "%s:%d: syntax error (expected [section] or key = value)", path, line);
        goto out;
    }
    if (line < 0) {
        rc = hyt_rt_error(HYT_ERR_CONFIG, "%s: cannot read config file", path);
        goto out;
    }
    memcpy(cfg, tmp, sizeof *cfg);
    rc = HYT_SUCCESS;
out:
    hyt_config_destroy(tmp);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* environment                                                                                 */

int hyt_config_load_env(hyt_config_t *cfg)
{
    hyt_config_t *tmp;
    int rc = hyt_config_copy(cfg, &tmp);
    if (rc)
        return rc;
    const char *file = getenv("HYT_CONFIG");
    if (file && *file) {
        rc = hyt_config_load_file(tmp, file, HYT_SRC_FILE);
        if (rc)
            goto out;
    }
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "HYT_", 4) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char name[128];
        size_t len = (size_t)(eq - *e);
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, *e, len);
        name[len] = '\0';
        if (strcmp(name, "HYT_CONFIG") == 0 || strcmp(name, "HYT_TUNED") == 0)
            continue;
        int i = hyt_config_env_index(name);
        if (i < 0 && hyt_config_is_reserved(NULL, name))
            continue; /* a variable of a component this program does not have (HYT_HPL_*) */
        if (i < 0) {
            rc = hyt_rt_error(HYT_ERR_CONFIG, "unknown environment variable %s (hytile knows "
                              "HYT_CONFIG, HYT_TUNED and the variables listed in the README)",
                              name);
            goto out;
        }
        rc = hyt_config_set(tmp, hyt_config_keydef(i)->pub.name, eq + 1, HYT_SRC_ENV, name);
        if (rc)
            goto out;
    }
    memcpy(cfg, tmp, sizeof *cfg);
out:
    hyt_config_destroy(tmp);
    return rc;
}
