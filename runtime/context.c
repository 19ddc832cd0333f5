/*
 * The context: configuration read once, CPU workers pinned with hwloc, devices, OpenBLAS
 * forced to one thread per worker.
 */
#include "rt_internal.h"

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

/* OpenBLAS is not a dependency of the runtime; when the process has it, force one thread per
 * worker (BLAS calls inside tasks must not spawn threads of their own). */
extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));

typedef struct spawn_arg {
    hyt_worker_t *w;
    void *(*start)(void *);
    hwloc_bitmap_t set;
} spawn_arg_t;

static void *trampoline(void *p)
{
    spawn_arg_t a = *(spawn_arg_t *)p;
    free(p);
    hyt_context_t *ctx = a.w->ctx;
    if (a.set) {
        if (hwloc_set_cpubind((hwloc_topology_t)ctx->topology, a.set, HWLOC_CPUBIND_THREAD))
            a.w->core = -1; /* binding refused (container without the right); run unbound */
        hwloc_bitmap_free(a.set);
    }
    return a.start(a.w);
}

int hyt_worker_spawn(hyt_worker_t *w, void *(*start)(void *))
{
    hyt_context_t *ctx = w->ctx;
    spawn_arg_t *a = hyt_rt_calloc(ctx, 1, sizeof *a);
    if (!a)
        return hyt_rt_error(HYT_ERR_NOMEM, "out of memory starting worker %d", w->id);
    a->w = w;
    a->start = start;
    if (w->core >= 0 && ctx->topology) {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index((hwloc_topology_t)ctx->topology,
                                                      (unsigned)w->core);
        if (pu)
            a->set = hwloc_bitmap_dup(pu->cpuset);
    }
    if (pthread_create(&w->thread, NULL, trampoline, a)) {
        if (a->set)
            hwloc_bitmap_free(a->set);
        free(a);
        return hyt_rt_error(HYT_ERR_SYSTEM, "cannot create worker thread %d", w->id);
    }
    return HYT_SUCCESS;
}

/* Chooses the PUs of the workers: one per core of the selected core set. */
static int choose_cores(hyt_context_t *ctx, int *pus, int *n)
{
    hwloc_topology_t topo = ctx->topology;
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (ncores <= 0)
        ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
                                                                             : HWLOC_OBJ_PU;
    if (ncores <= 0)
        return hyt_rt_error(HYT_ERR_SYSTEM, "hwloc found no cores");
    if (ncores > HYT_MAX_WORKERS)
        ncores = HYT_MAX_WORKERS;
    int *list = ctx->core_list;
    char err[128];
    const char *spec = hyt_config_get(ctx->cfg, "runtime.cores", NULL);
    int is_count;
    int cnt = hyt_parse_coreset(spec, list, HYT_MAX_WORKERS, &is_count, err, sizeof err);
    if (cnt < 0)
        return hyt_rt_error(HYT_ERR_CONFIG, "runtime.cores: %s", err);
    if (cnt == 0) {
        for (int i = 0; i < ncores; i++)
            list[i] = i;
        cnt = ncores;
    } else if (is_count && cnt < ncores) {
        /* a count leaves core 0 for last: the OS serves interrupts and other processes there
         * (a panel of 16 threads on cores 0-15 of the 64-core machine was 15-40% slower
         * than on 1-16 or 48-63: one slow rank holds up every barrier) */
        for (int i = 0; i < cnt; i++)
            list[i] = i + 1;
    }
    for (int i = 0; i < cnt; i++) {
        if (list[i] >= ncores)
            return hyt_rt_error(HYT_ERR_CONFIG, "runtime.cores = %s: core %d does not exist "
                                "(this machine has %d cores)", spec, list[i], ncores);
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, type, (unsigned)list[i]);
        int pu = core ? hwloc_bitmap_first(core->cpuset) : -1;
        pus[i] = pu;
    }
    *n = cnt;
    return HYT_SUCCESS;
}

int hyt_context_create(const hyt_config_t *cfg_in, hyt_context_t **out)
{
    int rc;
    const char *blame = NULL; /* the key whose value a failure comes from */
    if (!out)
        return hyt_rt_error(HYT_ERR_INVALID, "hyt_context_create: NULL output");
    *out = NULL;
    hyt_context_t *ctx = hyt_rt_calloc_aligned(NULL, sizeof *ctx);
    if (!ctx)
        return hyt_rt_error(HYT_ERR_NOMEM, "out of memory creating a context");
    pthread_mutex_init(&ctx->cfg_lock, NULL);
    pthread_mutex_init(&ctx->staging_lock, NULL);
    pthread_mutex_init(&ctx->pinned_lock, NULL);
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->insert_lock, NULL);
    pthread_mutex_init(&ctx->window_lock, NULL);
    pthread_mutex_init(&ctx->trace.note_lock, NULL);
    pthread_cond_init(&ctx->window_cond, NULL);
    atomic_flag_clear(&ctx->pool_lock.f);
    ctx->saved_blas_threads = -1;

    if (cfg_in) {
        rc = hyt_config_copy(cfg_in, &ctx->cfg);
    } else {
        rc = hyt_config_create(&ctx->cfg);
        if (!rc)
            rc = hyt_config_load_env(ctx->cfg);
    }
    if (rc)
        goto fail;

    ctx->window = hyt_config_get_int(ctx->cfg, "runtime.window");
    ctx->spin_ns = hyt_config_get_int(ctx->cfg, "runtime.spin_us") * 1000;
    ctx->fault_task = hyt_config_get_int(ctx->cfg, "debug.fault_task");
    ctx->fault_alloc = hyt_config_get_int(ctx->cfg, "debug.fault_alloc");
    ctx->fault_device = hyt_config_get_int(ctx->cfg, "debug.fault_device");
    ctx->chaos = (uint64_t)hyt_config_get_int(ctx->cfg, "debug.chaos");
    if (hyt_config_get_int(ctx->cfg, "debug.races") && (rc = hyt_races_create(ctx)))
        goto fail;

    /* devices first: they decide how many cores the CPU workers get */
    blame = "runtime.devices";
    hyt_devspec_t spec;
    char err[128];
    if (hyt_parse_devices(hyt_config_get(ctx->cfg, "runtime.devices", NULL), &spec, err,
                          sizeof err)) {
        rc = hyt_rt_error(HYT_ERR_CONFIG, "runtime.devices: %s", err);
        goto fail;
    }

    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
        rc = hyt_rt_error(HYT_ERR_SYSTEM, "hwloc cannot read the machine's topology");
        goto fail;
    }
    ctx->topology = topo;
    int *pus = malloc(HYT_MAX_WORKERS * sizeof *pus);
    ctx->core_list = malloc(HYT_MAX_WORKERS * sizeof *ctx->core_list);
    int npus = 0;
    if (!pus || !ctx->core_list) {
        free(pus);
        rc = hyt_rt_error(HYT_ERR_NOMEM, "out of memory reading the topology");
        goto fail;
    }
    blame = "runtime.cores";
    rc = choose_cores(ctx, pus, &npus);
    if (rc) {
        free(pus);
        goto fail;
    }

    blame = "runtime.devices";
    if ((rc = hyt_devices_create(ctx, &spec))) {
        free(pus);
        goto fail;
    }
    blame = NULL;
    /* One host thread drives each GPU: with every core given to workers, leave it one. */
    int nw = npus;
    hyt_source_t core_src;
    hyt_config_get(ctx->cfg, "runtime.cores", &core_src);
    if (ctx->have_cuda && core_src == HYT_SRC_DEFAULT && nw > ctx->ndevices + 1)
        nw -= ctx->ndevices;
    long want = hyt_config_get_int(ctx->cfg, "runtime.workers");
    int ncoreset = nw;
    if (want > 0)
        nw = (int)want; /* more workers than cores share them round-robin */
    ctx->nworkers = nw;
    ctx->oversubscribed = nw > ncoreset;

    ctx->workers = hyt_rt_calloc_aligned(ctx, (size_t)nw * sizeof *ctx->workers);
    ctx->idle = hyt_rt_calloc(ctx, (size_t)nw, sizeof *ctx->idle);
    ctx->pending_members = hyt_rt_calloc(ctx, (size_t)nw, sizeof *ctx->pending_members);
    ctx->ready.cap = (int)ctx->window + 64;
    ctx->ready.a = hyt_rt_malloc(ctx, (size_t)ctx->ready.cap * sizeof *ctx->ready.a);
    if (!ctx->workers || !ctx->idle || !ctx->pending_members || !ctx->ready.a) {
        free(pus);
        rc = hyt_rt_error(HYT_ERR_NOMEM, "out of memory creating %d workers", nw);
        goto fail;
    }
    for (int i = 0; i < nw; i++) {
        hyt_worker_t *w = &ctx->workers[i];
        w->ctx = ctx;
        w->id = i;
        w->core = pus[i % ncoreset];
        pthread_cond_init(&w->cond, NULL);
        w->rng = ctx->chaos ? hyt_chaos_stream(ctx->chaos, 1024 + (uint64_t)i) : (uint64_t)i;
        w->cache.ctx = ctx;
        /* grows on demand; the overflow heap takes what a queue cannot */
        w->q.heap.cap = 256;
        w->q.heap.a = hyt_rt_malloc(ctx, 256 * sizeof *w->q.heap.a);
        if (!w->q.heap.a) {
            free(pus);
            rc = hyt_rt_error(HYT_ERR_NOMEM, "out of memory creating %d workers", nw);
            goto fail;
        }
    }
    free(pus);
    ctx->ins_cache.ctx = ctx;

    if (openblas_set_num_threads && openblas_get_num_threads) {
        ctx->saved_blas_threads = openblas_get_num_threads();
        openblas_set_num_threads(1);
    }

    const char *tr = hyt_config_get(ctx->cfg, "runtime.trace", NULL);
    if (tr && *tr) {
        snprintf(ctx->trace.path, sizeof ctx->trace.path, "%s", tr);
        hyt_trace_start(ctx, 0);
    }

    if ((rc = hyt_sched_start(ctx)))
        goto fail;
    *out = ctx;
    return HYT_SUCCESS;

fail:;
    /* a key's value that cannot be used names where it was set (file:line, variable, option) */
    char msg[1024];
    hyt_source_t src = HYT_SRC_DEFAULT;
    int k = blame && ctx->cfg ? hyt_config_key_index(blame) : -1;
    if (k >= 0)
        hyt_config_get(ctx->cfg, blame, &src);
    if (src != HYT_SRC_DEFAULT && (rc == HYT_ERR_CONFIG || rc == HYT_ERR_DEVICE ||
                                   rc == HYT_ERR_NOT_AVAILABLE))
        snprintf(msg, sizeof msg, "%s: %s", ctx->cfg->where[k], hyt_last_error());
    else
        snprintf(msg, sizeof msg, "%s", hyt_last_error());
    ctx->trace.path[0] = '\0';
    hyt_context_destroy(ctx);
    return hyt_rt_error(rc, "%s", msg);
}

void hyt_context_destroy(hyt_context_t *ctx)
{
    if (!ctx)
        return;
    hyt_sched_drain(ctx);
    if (ctx->trace.path[0] && hyt_trace_write_json(ctx, ctx->trace.path))
        hyt_rt_warn("%s", hyt_last_error());
    hyt_sched_stop(ctx);
    if (ctx->workers) {
        for (int i = 0; i < ctx->nworkers; i++) {
            free(ctx->workers[i].scratch);
            hyt_heap_free(&ctx->workers[i].q.heap);
            hyt_tcache_free(&ctx->workers[i].cache);
            if (ctx->workers[i].ctx) /* set up */
                pthread_cond_destroy(&ctx->workers[i].cond);
        }
    }
    free(ctx->core_list);
    /* the table still references finished device tasks, whose events go back to their
     * device: clear it while the devices exist */
    hyt_rtable_clear(&ctx->regions);
    hyt_races_destroy(ctx);
    hyt_host_free(ctx, ctx->staging); /* page-locked: while CUDA is still up */
    hyt_host_cache_free(ctx);
    hyt_devices_destroy(ctx);
    hyt_tcache_free(&ctx->ins_cache);
    while (ctx->pool) {
        hyt_task_t *t = ctx->pool;
        ctx->pool = t->next;
        free(t);
    }
    hyt_heap_free(&ctx->ready);
    hyt_trace_free(&ctx->trace);
    if (ctx->saved_blas_threads > 0 && openblas_set_num_threads)
        openblas_set_num_threads(ctx->saved_blas_threads);
    if (ctx->topology)
        hwloc_topology_destroy((hwloc_topology_t)ctx->topology);
    free(ctx->workers);
    free(ctx->idle);
    free(ctx->pending_members);
    free(ctx->master_scratch);
    hyt_config_destroy(ctx->cfg);
    pthread_mutex_destroy(&ctx->cfg_lock);
    pthread_mutex_destroy(&ctx->staging_lock);
    pthread_mutex_destroy(&ctx->pinned_lock);
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->insert_lock);
    pthread_mutex_destroy(&ctx->window_lock);
    pthread_mutex_destroy(&ctx->trace.note_lock);
    pthread_cond_destroy(&ctx->window_cond);
    free(ctx);
}

int hyt_context_num_workers(const hyt_context_t *ctx) { return ctx->nworkers; }
int hyt_context_num_devices(const hyt_context_t *ctx) { return ctx->ndevices; }
hyt_device_t *hyt_context_device(hyt_context_t *ctx, int i)
{
    return i >= 0 && i < ctx->ndevices ? ctx->devices[i] : NULL;
}
const hyt_config_t *hyt_context_config(const hyt_context_t *ctx) { return ctx->cfg; }
int hyt_context_worker_core(const hyt_context_t *ctx, int w)
{
    return w >= 0 && w < ctx->nworkers ? ctx->workers[w].core : -1;
}

int hyt_context_set(hyt_context_t *ctx, const char *key, const char *value)
{
    static const char fn[] = "hyt_context_set";
    hyt_error_clear();
    if (!ctx)
        return hyt_error_return(fn, hyt_rt_error(HYT_ERR_INVALID, "%s: the context is NULL", fn));
    if (!key)
        return hyt_error_arg(HYT_ERR_INVALID, fn, 1, "key", "is NULL");
    if (!value)
        return hyt_error_arg(HYT_ERR_INVALID, fn, 2, "value", "is NULL");
    if (hyt_config_key_index(key) >= 0 && !hyt_config_is_per_call(key))
        return hyt_error_return(fn, hyt_rt_error(HYT_ERR_CONFIG,
                                                 "%s is fixed when the context is created", key));
    pthread_mutex_lock(&ctx->cfg_lock);
    int rc = hyt_config_set(ctx->cfg, key, value, HYT_SRC_API, NULL);
    pthread_mutex_unlock(&ctx->cfg_lock);
    return hyt_error_return(fn, rc);
}

void hyt_progress_reset(hyt_context_t *ctx, long total)
{
    atomic_store(&ctx->progress_done, 0);
    atomic_store(&ctx->progress_total, total);
}

void hyt_progress_add(hyt_context_t *ctx, long n) { atomic_fetch_add(&ctx->progress_done, n); }

void hyt_progress_get(const hyt_context_t *ctx, long *done, long *total)
{
    *done = atomic_load(&ctx->progress_done);
    *total = atomic_load(&ctx->progress_total);
}

/* ------------------------------------------------------------------------------------------ */
/* tokens                                                                                      */

struct hyt_tokens {
    size_t n;
    char bytes[];
};

hyt_tokens_t *hyt_tokens_create(size_t n)
{
    hyt_tokens_t *t = malloc(sizeof *t + (n ? n : 1));
    if (t)
        t->n = n;
    return t;
}

const void *hyt_token(const hyt_tokens_t *t, size_t i) { return i < t->n ? &t->bytes[i] : NULL; }

void hyt_tokens_destroy(hyt_tokens_t *t) { free(t); }
