/* Error codes, the per-thread last-error message, clocks, and allocation with fault injection. */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Thread_local char last_error[1024];

const char *hyt_strerror(int code)
{
    switch (code) {
    case HYT_SUCCESS: return "HYT_SUCCESS";
    case HYT_ERR_NOMEM: return "HYT_ERR_NOMEM";
    case HYT_ERR_INVALID: return "HYT_ERR_INVALID";
    case HYT_ERR_CONFIG: return "HYT_ERR_CONFIG";
    case HYT_ERR_DEVICE: return "HYT_ERR_DEVICE";
    case HYT_ERR_DEVICE_MEMORY: return "HYT_ERR_DEVICE_MEMORY";
    case HYT_ERR_CANCELLED: return "HYT_ERR_CANCELLED";
    case HYT_ERR_FAULT: return "HYT_ERR_FAULT";
    case HYT_ERR_SYSTEM: return "HYT_ERR_SYSTEM";
    case HYT_ERR_TOO_LARGE: return "HYT_ERR_TOO_LARGE";
    case HYT_ERR_NOT_AVAILABLE: return "HYT_ERR_NOT_AVAILABLE";
    case HYT_ERR_TASK: return "HYT_ERR_TASK";
    case HYT_ERR_RACE: return "HYT_ERR_RACE";
    default: return code < 0 && code > HYT_ERR_BASE ? "bad argument" : "unknown error";
    }
}

const char *hyt_last_error(void) { return last_error; }

int hyt_error(int code, const char *fmt, ...)
{
    /* through a copy: a caller may prefix or extend the message it replaces
     * (hyt_error(rc, "%s; ...", hyt_last_error())), and vsnprintf's source and destination
     * must not overlap */
    char msg[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(last_error, msg, sizeof msg);
    return code;
}

void hyt_error_clear(void) { last_error[0] = '\0'; }

int hyt_error_arg(int code, const char *func, int i, const char *name, const char *fmt, ...)
{
    int len = snprintf(last_error, sizeof last_error, "%s: argument %d (%s) ", func, i, name);
    if (len >= 0 && (size_t)len < sizeof last_error) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(last_error + len, sizeof last_error - (size_t)len, fmt, ap);
        va_end(ap);
    }
    return code;
}

int hyt_error_return(const char *func, int rc)
{
    if (rc >= 0)
        return rc;
    size_t n = strlen(func);
    if (!strncmp(last_error, func, n) && last_error[n] == ':' && last_error[n + 1] == ' ')
        return rc; /* the call's own message */
    char beneath[sizeof last_error];
    if (last_error[0])
        memcpy(beneath, last_error, sizeof beneath);
    else if (rc > HYT_ERR_BASE) /* never expected: argument errors come with their message */
        snprintf(beneath, sizeof beneath, "argument %d is invalid", -rc);
    else
        snprintf(beneath, sizeof beneath, "%s", hyt_strerror(rc));
    snprintf(last_error, sizeof last_error, "%s: %s", func, beneath);
    return rc;
}

void hyt_rt_warn(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "hytile: warning: %s\n", buf);
}

uint64_t hyt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double hyt_wtime(void) { return (double)hyt_now_ns() * 1e-9; }

/* The k-th allocation of a context fails when debug.fault_alloc = k. */
int hyt_rt_fault_alloc(hyt_context_t *ctx)
{
    if (!ctx || ctx->fault_alloc <= 0)
        return 0;
    return atomic_fetch_add(&ctx->count_alloc, 1) + 1 == ctx->fault_alloc;
}

void *hyt_rt_malloc(hyt_context_t *ctx, size_t bytes)
{
    if (hyt_rt_fault_alloc(ctx))
        return NULL;
    return malloc(bytes ? bytes : 1);
}

void *hyt_rt_calloc(hyt_context_t *ctx, size_t n, size_t size)
{
    if (hyt_rt_fault_alloc(ctx))
        return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *hyt_rt_realloc(hyt_context_t *ctx, void *p, size_t bytes)
{
    if (hyt_rt_fault_alloc(ctx))
        return NULL;
    return realloc(p, bytes ? bytes : 1);
}

void *hyt_rt_calloc_aligned(hyt_context_t *ctx, size_t bytes)
{
    if (hyt_rt_fault_alloc(ctx))
        return NULL;
    bytes = (bytes + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (p)
        memset(p, 0, bytes);
    return p;
}

int hyt_fault_device_call(hyt_context_t *ctx)
{
    if (!ctx || ctx->fault_device <= 0)
        return 0;
    return atomic_fetch_add(&ctx->count_device, 1) + 1 == ctx->fault_device;
}
