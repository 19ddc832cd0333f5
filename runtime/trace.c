/*
 * Tracing: each track (CPU worker, the inserting thread, each device stream) appends its own
 * records, so recording takes no lock.  Start, stop and write only while no task runs.
 */
#include "rt_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *cat_name[HYT_NUM_CATS] = {"other", "panel", "update", "gpu", "dma", "convert"};
static const char *cat_color[HYT_NUM_CATS] = {"#9e9e9e", "#d62728", "#1f77b4",
                                              "#2ca02c", "#ff7f0e", "#8c564b"};

double hyt_trace_now(const hyt_context_t *ctx)
{
    return (double)(hyt_now_ns() - ctx->trace.t0_ns) * 1e-9;
}

int hyt_trace_num_tracks(hyt_context_t *ctx)
{
    return ctx->nworkers + 1 + HYT_NUM_STREAMS * ctx->ndevices;
}

void hyt_trace_free(hyt_trace_t *tr)
{
    for (int i = 0; i < tr->ntracks; i++)
        free(tr->tracks[i].r);
    free(tr->tracks);
    free(tr->nodes);
    free(tr->edges);
    tr->tracks = NULL;
    tr->nodes = NULL;
    tr->edges = NULL;
    tr->ntracks = 0;
    tr->nnodes = tr->capnodes = tr->nedges = tr->capedges = 0;
}

void hyt_trace_start(hyt_context_t *ctx, int with_dag)
{
    hyt_trace_t *tr = &ctx->trace;
    atomic_store(&tr->on, 0);
    hyt_trace_free(tr);
    tr->ntracks = hyt_trace_num_tracks(ctx);
    tr->tracks = calloc((size_t)tr->ntracks, sizeof *tr->tracks);
    if (!tr->tracks) {
        tr->ntracks = 0;
        hyt_rt_warn("out of memory: tracing disabled");
        return;
    }
    tr->dag = with_dag;
    tr->t0_ns = hyt_now_ns();
    pthread_mutex_lock(&tr->note_lock);
    tr->nnotes = 0;
    pthread_mutex_unlock(&tr->note_lock);
    for (int i = 0; i < ctx->ndevices; i++)
        ctx->devices[i]->ops->trace_sync(ctx->devices[i]);
    atomic_store(&tr->on, 1);
}

void hyt_trace_stop(hyt_context_t *ctx) { atomic_store(&ctx->trace.on, 0); }

/* A note's key or value: 1..HYT_TRACE_NOTE_MAX-1 characters that need no escape in JSON. */
static int note_ok(const char *s)
{
    size_t n = 0;
    for (; s && s[n]; n++)
        if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
              (s[n] >= '0' && s[n] <= '9') || strchr("._:+-", s[n])))
            return 0;
    return n > 0 && n < HYT_TRACE_NOTE_MAX;
}

int hyt_trace_note(hyt_context_t *ctx, const char *key, const char *value)
{
    if (!ctx)
        return hyt_rt_error(HYT_ERR_INVALID, "hyt_trace_note: NULL context");
    if (!note_ok(key) || !note_ok(value))
        return hyt_rt_error(HYT_ERR_INVALID, "hyt_trace_note: key '%s' or value '%s' is empty, "
                            "%d characters or longer, or has characters other than "
                            "[A-Za-z0-9._:+-]", key ? key : "(null)", value ? value : "(null)",
                            HYT_TRACE_NOTE_MAX);
    hyt_trace_t *tr = &ctx->trace;
    if (!atomic_load(&tr->on))
        return HYT_SUCCESS;
    int rc = HYT_SUCCESS;
    pthread_mutex_lock(&tr->note_lock);
    int i = 0;
    while (i < tr->nnotes && strcmp(tr->notes[i].key, key))
        i++;
    if (i == HYT_TRACE_NOTES) {
        rc = hyt_rt_error(HYT_ERR_INVALID, "hyt_trace_note: more than %d keys", HYT_TRACE_NOTES);
    } else {
        strcpy(tr->notes[i].key, key); /* lengths checked above */
        strcpy(tr->notes[i].value, value);
        if (i == tr->nnotes)
            tr->nnotes++;
    }
    pthread_mutex_unlock(&tr->note_lock);
    return rc;
}

void hyt_trace_record(hyt_context_t *ctx, int track, const hyt_task_t *t, double t0, double t1)
{
    hyt_trace_t *tr = &ctx->trace;
    if (track < 0 || track >= tr->ntracks)
        return;
    hyt_tbuf_t *b = &tr->tracks[track];
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        hyt_trec_t *r = realloc(b->r, cap * sizeof *r);
        if (!r)
            return; /* drop the record rather than fail the task */
        b->r = r;
        b->cap = cap;
    }
    hyt_trec_t *r = &b->r[b->n++];
    r->kernel = t->kernel;
    memcpy(r->tag, t->tag, sizeof r->tag);
    r->id = t->id;
    r->t0 = t0;
    r->t1 = t1;
    r->i0 = t->t_issue0;
    r->i1 = t->t_issue1;
}

void hyt_trace_node(hyt_context_t *ctx, const hyt_task_t *t)
{
    hyt_trace_t *tr = &ctx->trace;
    if (tr->nnodes == tr->capnodes) {
        size_t cap = tr->capnodes ? 2 * tr->capnodes : 1024;
        void *p = realloc(tr->nodes, cap * sizeof *tr->nodes);
        if (!p)
            return;
        tr->nodes = p;
        tr->capnodes = cap;
    }
    tr->nodes[tr->nnodes].id = t->id;
    tr->nodes[tr->nnodes].k = t->kernel;
    memcpy(tr->nodes[tr->nnodes].tag, t->tag, sizeof t->tag);
    tr->nodes[tr->nnodes].device = t->device;
    tr->nnodes++;
}

void hyt_trace_edge(hyt_context_t *ctx, uint64_t from, uint64_t to)
{
    hyt_trace_t *tr = &ctx->trace;
    if (tr->nedges == tr->capedges) {
        size_t cap = tr->capedges ? 2 * tr->capedges : 4096;
        void *p = realloc(tr->edges, cap * sizeof *tr->edges);
        if (!p)
            return;
        tr->edges = p;
        tr->capedges = cap;
    }
    tr->edges[tr->nedges][0] = from;
    tr->edges[tr->nedges][1] = to;
    tr->nedges++;
}

void hyt_trace_track_name(hyt_context_t *ctx, int track, char *buf, size_t len)
{
    static const char *sn[HYT_NUM_STREAMS] = {"compute", "h2d", "d2h", "panel",
                                                         "lookahead"};
    if (track < ctx->nworkers) {
        int core = ctx->workers[track].core;
        if (core >= 0)
            snprintf(buf, len, "cpu %d (core %d)", track, core);
        else
            snprintf(buf, len, "cpu %d", track);
    } else if (track == ctx->nworkers) {
        snprintf(buf, len, "inserting thread");
    } else {
        int d = (track - ctx->nworkers - 1) / HYT_NUM_STREAMS;
        int s = (track - ctx->nworkers - 1) % HYT_NUM_STREAMS;
        if (d < ctx->ndevices)
            snprintf(buf, len, "%s %s", ctx->devices[d]->name, sn[s]);
        else
            snprintf(buf, len, "track %d", track);
    }
}

static int cmp_event(const void *a, const void *b)
{
    const hyt_trace_event_t *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

long hyt_trace_events(hyt_context_t *ctx, hyt_trace_event_t **events)
{
    hyt_trace_t *tr = &ctx->trace;
    size_t n = 0;
    for (int i = 0; i < tr->ntracks; i++)
        n += tr->tracks[i].n;
    hyt_trace_event_t *ev = malloc((n ? n : 1) * sizeof *ev);
    if (!ev)
        return -1;
    size_t k = 0;
    for (int i = 0; i < tr->ntracks; i++)
        for (size_t j = 0; j < tr->tracks[i].n; j++) {
            const hyt_trec_t *r = &tr->tracks[i].r[j];
            ev[k].name = r->kernel->name;
            ev[k].cat = r->kernel->cat;
            memcpy(ev[k].tag, r->tag, sizeof r->tag);
            ev[k].track = i;
            ev[k].start = r->t0;
            ev[k].end = r->t1;
            k++;
        }
    qsort(ev, n, sizeof *ev, cmp_event);
    *events = ev;
    return (long)n;
}

int hyt_trace_write_json(hyt_context_t *ctx, const char *path)
{
    hyt_trace_t *tr = &ctx->trace;
    FILE *f = fopen(path, "w");
    if (!f)
        return hyt_rt_error(HYT_ERR_SYSTEM, "cannot write trace %s: %s", path, strerror(errno));
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"CPU\"}}");
    for (int d = 0; d < ctx->ndevices; d++)
        fprintf(f, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":"
                "\"%s\"}}", d + 1, ctx->devices[d]->name);
    for (int i = 0; i < tr->ntracks; i++) {
        char name[96];
        hyt_trace_track_name(ctx, i, name, sizeof name);
        int pid = i <= ctx->nworkers ? 0 : 1 + (i - ctx->nworkers - 1) / HYT_NUM_STREAMS;
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                "\"args\":{\"name\":\"%s\"}}", pid, i, name);
        fprintf(f, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                "\"args\":{\"sort_index\":%d}}", pid, i, i);
    }
    for (int i = 0; i < tr->ntracks; i++) {
        int pid = i <= ctx->nworkers ? 0 : 1 + (i - ctx->nworkers - 1) / HYT_NUM_STREAMS;
        for (size_t j = 0; j < tr->tracks[i].n; j++) {
            const hyt_trec_t *r = &tr->tracks[i].r[j];
            fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
                    "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"step\":%d,\"i\":%d,\"j\":%d,"
                    "\"task\":%llu", r->kernel->name, cat_name[r->kernel->cat], pid, i,
                    r->t0 * 1e6, (r->t1 - r->t0) * 1e6, r->tag[0], r->tag[1], r->tag[2],
                    (unsigned long long)r->id);
            if (r->i1 > 0.0) /* a device task: when and how long the host took to submit it */
                fprintf(f, ",\"issue_ts\":%.3f,\"issue_dur\":%.3f", r->i0 * 1e6,
                        (r->i1 - r->i0) * 1e6);
            fprintf(f, "}}");
        }
    }
    fprintf(f, "\n],\n\"otherData\":{");
    pthread_mutex_lock(&tr->note_lock);
    for (int i = 0; i < tr->nnotes; i++)
        fprintf(f, "%s\"%s\":\"%s\"", i ? "," : "", tr->notes[i].key, tr->notes[i].value);
    pthread_mutex_unlock(&tr->note_lock);
    fprintf(f, "}}\n");
    if (fclose(f))
        return hyt_rt_error(HYT_ERR_SYSTEM, "cannot write trace %s: %s", path, strerror(errno));
    return HYT_SUCCESS;
}

int hyt_trace_write_dot(hyt_context_t *ctx, const char *path)
{
    hyt_trace_t *tr = &ctx->trace;
    FILE *f = fopen(path, "w");
    if (!f)
        return hyt_rt_error(HYT_ERR_SYSTEM, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "digraph hytile {\n  node [style=filled, fontname=\"Helvetica\", fontsize=10];\n");
    for (size_t i = 0; i < tr->nnodes; i++) {
        const hyt_kernel_t *k = tr->nodes[i].k;
        fprintf(f, "  t%llu [label=\"%s", (unsigned long long)tr->nodes[i].id, k->name);
        for (int j = 0; j < 3 && tr->nodes[i].tag[j] >= 0; j++)
            fprintf(f, "%s%d", j ? "," : " ", tr->nodes[i].tag[j]);
        if (tr->nodes[i].device >= 0)
            fprintf(f, " @dev%d", tr->nodes[i].device);
        fprintf(f, "\", fillcolor=\"%s\"];\n", cat_color[k->cat]);
    }
    for (size_t i = 0; i < tr->nedges; i++)
        fprintf(f, "  t%llu -> t%llu;\n", (unsigned long long)tr->edges[i][0],
                (unsigned long long)tr->edges[i][1]);
    fprintf(f, "}\n");
    if (fclose(f))
        return hyt_rt_error(HYT_ERR_SYSTEM, "cannot write %s: %s", path, strerror(errno));
    return HYT_SUCCESS;
}
