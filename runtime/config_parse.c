/*
 * The value parsers of the configuration: integers, booleans, sizes (8G), size lists
 * (4000,8000), device lists (cuda:0,2, host:N) and core sets (0-7,16).
 */
#include "rt_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


int hyt_parse_long(const char *s, long *out)
{
    char *end;
    if (!*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int hyt_parse_size(const char *text, size_t *bytes)
{
    char *end;
    if (!*text || !isdigit((unsigned char)*text))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno)
        return -1;
    unsigned long long mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1ULL << 10; break;
        case 'M': mul = 1ULL << 20; break;
        case 'G': mul = 1ULL << 30; break;
        case 'T': mul = 1ULL << 40; break;
        default: return -1;
        }
        end++;
        if (*end == 'i' || *end == 'I')
            end++;
        if (*end == 'B' || *end == 'b')
            end++;
        if (*end)
            return -1;
    }
    if (v > SIZE_MAX / mul)
        return -1;
    *bytes = (size_t)(v * mul);
    return 0;
}

int hyt_parse_bool(const char *s, int *out)
{
    static const char *t[] = {"1", "true", "yes", "on"}, *f[] = {"0", "false", "no", "off"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, t[i]) == 0) { *out = 1; return 0; }
        if (strcasecmp(s, f[i]) == 0) { *out = 0; return 0; }
    }
    return -1;
}

/* Comma-separated non-negative integers and ranges a-b into ids (max entries).  -1 on error. */
static int parse_idlist(const char *s, int *ids, int max, char *err, size_t errlen)
{
    int n = 0;
    const char *p = s;
    if (!*p) {
        snprintf(err, errlen, "empty list");
        return -1;
    }
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p)) {
            snprintf(err, errlen, "expected a number at '%s'", p);
            return -1;
        }
        long a = strtol(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            p++;
            if (!isdigit((unsigned char)*p)) {
                snprintf(err, errlen, "expected a number after '-'");
                return -1;
            }
            b = strtol(p, &end, 10);
            p = end;
        }
        if (a > 100000 || b > 100000 || b < a) {
            snprintf(err, errlen, "bad range %ld-%ld", a, b);
            return -1;
        }
        for (long v = a; v <= b; v++) {
            for (int i = 0; i < n; i++)
                if (ids[i] == v) {
                    snprintf(err, errlen, "%ld listed twice", v);
                    return -1;
                }
            if (n >= max) {
                snprintf(err, errlen, "more than %d entries", max);
                return -1;
            }
            ids[n++] = (int)v;
        }
        if (*p == ',') {
            p++;
            if (!*p) {
                snprintf(err, errlen, "trailing ','");
                return -1;
            }
        } else if (*p) {
            snprintf(err, errlen, "unexpected '%c'", *p);
            return -1;
        }
    }
    return n;
}

int hyt_parse_sizes(const char *text, int *ns, int max)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p))
            return -1;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (errno || v < 1 || v > 10000000 || n >= max)
            return -1;
        ns[n++] = (int)v;
        p = end;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return -1;
    }
    return n ? n : -1;
}

int hyt_parse_devices(const char *text, hyt_devspec_t *spec, char *err, size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    if (strcmp(text, "auto") == 0) {
        spec->auto_detect = 1;
        spec->backend = HYT_BACKEND_CUDA;
        spec->count = -1;
        return 0;
    }
    if (strcmp(text, "none") == 0) {
        spec->count = 0;
        return 0;
    }
    if (strcmp(text, "cuda") == 0) {
        spec->backend = HYT_BACKEND_CUDA;
        spec->count = -1;
        return 0;
    }
    if (strncmp(text, "cuda:", 5) == 0) {
        spec->backend = HYT_BACKEND_CUDA;
        int n = parse_idlist(text + 5, spec->ids, 64, err, errlen);
        if (n < 0)
            return -1;
        spec->count = n;
        return 0;
    }
    if (strncmp(text, "host:", 5) == 0) {
        long v;
        if (hyt_parse_long(text + 5, &v) || v < 1 || v > 64) {
            snprintf(err, errlen, "host:N needs 1 <= N <= 64");
            return -1;
        }
        spec->backend = HYT_BACKEND_HOST;
        spec->count = (int)v;
        for (int i = 0; i < v; i++)
            spec->ids[i] = i;
        return 0;
    }
    snprintf(err, errlen, "expected auto, none, cuda, cuda:0,1,... or host:N");
    return -1;
}

int hyt_parse_coreset(const char *text, int *cores, int max, int *is_count, char *err,
                      size_t errlen)
{
    long v;
    if (is_count)
        *is_count = 0;
    if (strcmp(text, "all") == 0)
        return 0; /* caller takes all */
    if (hyt_parse_long(text, &v) == 0) {
        if (v < 1 || v > max) {
            snprintf(err, errlen, "core count must be 1..%d", max);
            return -1;
        }
        for (int i = 0; i < v; i++)
            cores[i] = i;
        if (is_count)
            *is_count = 1;
        return (int)v;
    }
    return parse_idlist(text, cores, max, err, errlen);
}

