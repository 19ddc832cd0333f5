/*
 * Helpers of typed insert wrappers, for every kernel folder and algorithm (not installed): a
 * task's priority and trace tags, a dependency list that grows past its in-place room, and a
 * task descriptor built from them.
 */
#ifndef HYT_INSERT_H
#define HYT_INSERT_H

#include "hyt_runtime.h"

#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Priority and trace tags of an inserted task. */
typedef struct hyt_tag {
    int prio;
    int k, i, j;
} hyt_tag_t;

/* An insert wrapper's dependency list: up to HYT_DEPS_IN_PLACE entries in place, more on the
 * heap.  hyt_task_insert copies the list, so the wrapper frees it right after. */
#define HYT_DEPS_IN_PLACE 128
typedef struct hyt_deps {
    hyt_dep_t *v;
    int n;
    hyt_dep_t in_place[HYT_DEPS_IN_PLACE];
} hyt_deps_t;

/* Room for cap entries: HYT_SUCCESS, or HYT_ERR_NOMEM with its message. */
static inline int hyt_deps_init(hyt_deps_t *l, int cap)
{
    l->n = 0;
    l->v = cap <= HYT_DEPS_IN_PLACE ? l->in_place
                                    : (hyt_dep_t *)malloc((size_t)cap * sizeof *l->v);
    return l->v ? HYT_SUCCESS
                : hyt_error(HYT_ERR_NOMEM, "out of memory for a task's %d dependencies", cap);
}

static inline void hyt_deps_add(hyt_deps_t *l, const void *key, hyt_mode_t mode)
{
    l->v[l->n].key = key;
    l->v[l->n++].mode = mode;
}

static inline void hyt_deps_free(hyt_deps_t *l)
{
    if (l->v != l->in_place)
        free(l->v);
}

/* A task descriptor with dependencies, priority and tags set (for the insert wrappers). */
static inline hyt_task_desc_t hyt_tagged_desc(const hyt_kernel_t *kernel, const void *args,
                                              size_t args_size, const hyt_dep_t *deps, int ndeps,
                                              hyt_tag_t tag)
{
    hyt_task_desc_t d = hyt_task_desc(kernel, args, args_size);
    d.deps = deps;
    d.ndeps = ndeps;
    d.priority = tag.prio;
    d.tag[0] = tag.k;
    d.tag[1] = tag.i;
    d.tag[2] = tag.j;
    return d;
}

/* Inserts a task of device dev on one of its streams (HYT_STREAM_*) with the dependency list
 * deps, then frees the list (for device tasks' insert wrappers). */
static inline int hyt_insert_on_stream(hyt_sequence_t *seq, hyt_tag_t tag,
                                       const hyt_device_t *dev, int stream,
                                       const hyt_kernel_t *kernel, const void *args,
                                       size_t args_size, hyt_deps_t *deps)
{
    hyt_task_desc_t d = hyt_tagged_desc(kernel, args, args_size, deps->v, deps->n, tag);
    d.device = hyt_device_index(dev);
    d.stream = stream;
    int rc = hyt_task_insert(seq, &d);
    hyt_deps_free(deps);
    return rc;
}

#ifdef __cplusplus
}
#endif
#endif /* HYT_INSERT_H */
