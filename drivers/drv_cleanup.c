/*
 * The task that frees an asynchronous call's state (hyt_drv_insert_cleanup, drv_internal.h).
 *
 * A call inserts its tasks and returns before they run, so what they use (device workspaces,
 * tokens, page-locked staging, temporary copies) is freed by one more CPU task, inserted last,
 * whose dependencies are every token and region those tasks touched.  Its kernel is an
 * "always" one: the runtime runs its body also after the sequence failed (and never injects a
 * fault into it), so the state is freed on the error paths too.
 *
 * The runtime does not run that body when the task is not in the graph with all its
 * dependencies: no memory for the dependency list or the task, or an insertion of its
 * dependencies that broke (the task is then in the graph but skipped, hyt_task_insert).
 * Nothing would free the state then, and nothing tells when the tasks are done with it: the
 * sequence is failed with the error (its remaining tasks are skipped; the call fails anyway),
 * waited for, and the state freed here.  So the state is freed exactly once on every path, and
 * the caller never touches it after the call.
 */
#include "drv_internal.h"

typedef struct cleanup_args {
    void (*free_fn)(void *);
    void *state;
} cleanup_args_t;

static int cleanup_body(const hyt_task_ctx_t *tc, void *p)
{
    (void)tc;
    const cleanup_args_t *a = p;
    a->free_fn(a->state);
    return 0;
}

/* One kernel for every call's cleanup: its name is what traces show. */
static const hyt_kernel_t cleanup_kernel = {.name = "cleanup", .cpu = cleanup_body,
                                            .cat = HYT_CAT_OTHER, .always = 1};

int hyt_drv_insert_cleanup(hyt_sequence_t *seq, void (*free_fn)(void *), void *state,
                           const hyt_dep_t *deps, int ndeps)
{
    int rc;
    if (!deps && ndeps > 0) {
        rc = hyt_error(HYT_ERR_NOMEM, "out of memory");
    } else {
        cleanup_args_t a = {free_fn, state};
        hyt_task_desc_t d = hyt_task_desc(&cleanup_kernel, &a, sizeof a);
        d.deps = deps;
        d.ndeps = ndeps;
        rc = hyt_task_insert(seq, &d);
    }
    if (rc) { /* cannot order the cleanup: wait for the sequence and free here */
        hyt_sequence_fail(seq, rc, "%s", hyt_last_error());
        hyt_sequence_wait(seq);
        free_fn(state);
    }
    return rc;
}
