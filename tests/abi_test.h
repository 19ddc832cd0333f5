/* Shared by the tests of the LAPACK ABI: a program's own XERBLA that records the call instead
 * of printing (LAPACK lets programs replace it), and the check of the fallback's message. */
#ifndef HYT_ABI_TEST_H
#define HYT_ABI_TEST_H

#include "hyt_test.h"

static char xname[8];
static int xinfo, xcalls;
void xerbla_(const char *srname, const int *info, size_t len);
void xerbla_(const char *srname, const int *info, size_t len)
{
    memset(xname, 0, sizeof xname);
    memcpy(xname, srname, len < 7 ? len : 7);
    xinfo = *info;
    xcalls++;
}

/* Exactly one XERBLA call since the last check, by `name`, for argument pos; info = -pos. */
static inline void expect_xerbla(const char *name, int pos, int info, const char *what)
{
    CHECK(xcalls == 1, "%s: xerbla called %d times", what, xcalls);
    CHECK(!strncmp(xname, name, strlen(name)), "%s: xerbla name '%s'", what, xname);
    CHECK(xinfo == pos && info == -pos, "%s: xerbla %d, info %d, expected %d", what, xinfo, info,
          -pos);
    xcalls = 0;
}

/* Runs calls() with stdout and stderr captured: under HYT_FAULT_* the calls hytile fails are
 * redone by the CPU LAPACK, which is said exactly once (times 1), or never when hytile ran no
 * task (times 0). */
static inline void expect_fallback_said(void (*calls)(void), int times)
{
    test_capture_t cap;
    test_capture_start(&cap);
    calls();
    char text[4096];
    test_capture_end(&cap, text, sizeof text);
    int said = 0;
    for (const char *p = text; (p = strstr(p, "done by the CPU LAPACK")); p++)
        said++;
    CHECK(said == times, "the fallback said %d times, expected %d; stderr:\n%s", said, times,
          text);
}

static inline void expect_fallback_said_once(void (*calls)(void))
{
    expect_fallback_said(calls, 1);
}

#endif
