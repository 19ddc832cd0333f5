/*
 * SVG Gantt chart of a recorded trace (hytile hpl --trace): one row per track (CPU workers, the
 * inserting thread, each device's compute / h2d / d2h streams), a box per task coloured by its
 * category, a time axis in milliseconds, a legend.  A plain SVG file any browser shows.
 *
 * Boxes narrower than a couple of pixels would make huge files of invisible slivers, so such a
 * task and the touching (within half a pixel) tasks of its category on its track are drawn as one
 * box; wider boxes get a thin white outline so that consecutive tasks stay apart.  A box of a
 * single task carries a tooltip (<title>) with its kernel, tags and duration.
 */
#include "cli_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1400.0
#define CHAR_PX 6.3  /* width of a character of the 11 px font, about */
#define RIGHT 20.0
#define TOP 64.0     /* title and axis labels */
#define ROW 16.0     /* row height */
#define GAP 3.0      /* between rows */
#define MERGE_PX 0.5
#define MIN_BOX_PX 2.0     /* narrower boxes merge with touching neighbours */
#define MAX_TOOLTIPS 20000 /* above this many tasks boxes get no tooltips (file size) */

static const char *const cat_label[HYT_NUM_CATS] = {
    "other", "panel", "CPU update", "GPU compute", "DMA (host-device copy)", "layout conversion"};
static const char *const cat_color[HYT_NUM_CATS] = {"#9e9e9e", "#d62728", "#1f77b4",
                                                    "#2ca02c", "#ff7f0e", "#8c564b"};

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            /* control characters are not allowed in XML 1.0 */
            fputc((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' ? ' ' : *s, f);
        }
    }
}

static int by_track_then_start(const void *a, const void *b)
{
    const hyt_trace_event_t *x = a, *y = b;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* A tick step of 1, 2 or 5 times a power of ten giving about 10 ticks over `range`. */
static double tick_step(double range)
{
    double raw = range / 10, mag = pow(10, floor(log10(raw)));
    return raw <= mag ? mag : raw <= 2 * mag ? 2 * mag : raw <= 5 * mag ? 5 * mag : 10 * mag;
}

typedef struct box {
    double x0, x1;
    int cat, count;
    const hyt_trace_event_t *first;
} box_t;

static void draw_box(FILE *f, const box_t *b, double y, int tooltips)
{
    double w = b->x1 - b->x0 < 0.3 ? 0.3 : b->x1 - b->x0;
    fprintf(f, "<rect class=\"c%d%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\"",
            b->cat, w >= 3 * MIN_BOX_PX ? " s" : "", b->x0, y, w, ROW);
    if (tooltips && b->count == 1) {
        const hyt_trace_event_t *e = b->first;
        fputs("><title>", f);
        xml_text(f, e->name);
        fprintf(f, " step %d (%d, %d): %.3f ms</title></rect>\n", e->tag[0], e->tag[1],
                e->tag[2], (e->end - e->start) * 1e3);
    } else if (b->count > 1) {
        fprintf(f, "><title>%d tasks</title></rect>\n", b->count);
    } else {
        fputs("/>\n", f);
    }
}

static void write_chart(FILE *f, hyt_context_t *ctx, hyt_trace_event_t *ev, long n,
                        const char *title)
{
    int ntracks = hyt_trace_num_tracks(ctx);
    /* the track names' column: as wide as the longest name */
    double left = 120;
    for (int t = 0; t < ntracks; t++) {
        char name[96];
        hyt_trace_track_name(ctx, t, name, sizeof name);
        if (16 + CHAR_PX * (double)strlen(name) > left)
            left = 16 + CHAR_PX * (double)strlen(name);
    }
    double tmax = 0;
    for (long i = 0; i < n; i++)
        tmax = ev[i].end > tmax ? ev[i].end : tmax;
    double tmax_ms = tmax > 0 ? tmax * 1e3 : 1.0;
    double plot = WIDTH - left - RIGHT;
    double rows_h = ntracks * (ROW + GAP);
    double height = TOP + rows_h + 70;
    double scale = plot / tmax_ms; /* pixels per ms */

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
            WIDTH, height, WIDTH, height);
    fputs("<style>", f);
    for (int c = 0; c < HYT_NUM_CATS; c++)
        fprintf(f, ".c%d{fill:%s}", c, cat_color[c]);
    fputs(".s{stroke:#ffffff;stroke-width:0.6}.grid{stroke:#dddddd;stroke-width:1}"
          ".axis{stroke:#444444;stroke-width:1}</style>\n", f);
    fputs("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", f);

    // title
    fputs("<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", f);
    xml_text(f, title);
    fprintf(f, "</text>\n<text x=\"10\" y=\"40\" fill=\"#555555\">%ld tasks on %d tracks, "
               "%.3f ms</text>\n", n, ntracks, tmax * 1e3);

    // time axis: grid lines and labels in ms
    double step = tick_step(tmax_ms);
    fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", left,
            TOP - 4, left + plot, TOP - 4);
    for (double t = 0; t <= tmax_ms * (1 + 1e-9); t += step) {
        double x = left + t * scale;
        fprintf(f, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>\n", x,
                TOP - 8, x, TOP + rows_h);
        fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x, TOP - 12,
                t);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">ms</text>\n", left - 6,
            TOP - 12);

    // track names
    for (int t = 0; t < ntracks; t++) {
        char name[96];
        hyt_trace_track_name(ctx, t, name, sizeof name);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 6,
                TOP + t * (ROW + GAP) + ROW - 4);
        xml_text(f, name);
        fputs("</text>\n", f);
    }

    // the tasks, track by track, touching boxes of one category merged
    int tooltips = n <= MAX_TOOLTIPS;
    box_t b = {0, 0, -1, 0, NULL};
    int btrack = -1;
    for (long i = 0; i <= n; i++) {
        const hyt_trace_event_t *e = i < n ? &ev[i] : NULL;
        double x0 = e ? left + e->start * 1e3 * scale : 0;
        double x1 = e ? left + e->end * 1e3 * scale : 0;
        int sliver = b.x1 - b.x0 < MIN_BOX_PX || x1 - x0 < MIN_BOX_PX;
        if (e && e->track == btrack && (int)e->cat == b.cat && x0 <= b.x1 + MERGE_PX && sliver) {
            b.x1 = x1 > b.x1 ? x1 : b.x1;
            b.count++;
            continue;
        }
        if (b.count)
            draw_box(f, &b, TOP + btrack * (ROW + GAP), tooltips);
        if (e) {
            b = (box_t){x0, x1, (int)e->cat, 1, e};
            btrack = e->track;
        }
    }
    if (!n)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">no tasks were recorded</text>\n", left + 10,
                TOP + 12);

    // legend
    double y = TOP + rows_h + 24, x = left;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">tasks:</text>\n", left - 6,
            y + 10);
    for (int c = 1; c <= HYT_NUM_CATS; c++) {
        int cat = c % HYT_NUM_CATS; /* "other" last */
        fprintf(f, "<rect class=\"c%d\" x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", cat, x, y, x + 18, y + 10,
                cat_label[cat]);
        x += 30 + 7.0 * (double)strlen(cat_label[cat]);
    }
    fputs("</svg>\n", f);
}

int hyt_write_svg_gantt(hyt_context_t *ctx, const char *path, const char *title)
{
    hyt_trace_event_t *ev;
    long n = hyt_trace_events(ctx, &ev);
    if (n < 0)
        return hyt_error(HYT_ERR_NOMEM, "out of memory reading the trace");
    qsort(ev, (size_t)n, sizeof *ev, by_track_then_start);
    hyt_cli_file_t out;
    int rc = hyt_cli_file_open(&out, path);
    if (!rc) {
        write_chart(out.f, ctx, ev, n, title);
        rc = hyt_cli_file_commit(&out);
    }
    free(ev);
    return rc;
}
