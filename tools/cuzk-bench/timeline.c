/*
 * timeline.c - cuzk-bench timeline LOG: reads the daemon's
 * `TIMELINE,<ms>,<EVENT>,<job>,<detail>` lines and reports, over the span
 * from the first to the last event, how busy the provers were (the union
 * of GPU_START..GPU_END intervals per device, divided by the span: the
 * "GPU busy fraction" of the performance tables), the synthesis busy time,
 * and the mean wait in the GPU queue (GPU_QUEUE..GPU_START). Events are
 * matched by job label and partition.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MAX_DEVICES 16

typedef struct event {
    double ms;
    char kind[16], label[160];
    int partition, device;
} event;

static int parse_line(const char *line, event *ev)
{
    char detail[160] = "";
    if (sscanf(line, "TIMELINE,%lf,%15[^,],%159[^,],%159[^\n]", &ev->ms, ev->kind, ev->label,
               detail) < 3)
        return -1;
    const char *p = strstr(detail, "partition=");
    const char *d = strstr(detail, "device=");
    ev->partition = p ? atoi(p + 10) : -1;
    ev->device = d ? atoi(d + 7) : 0;
    return 0;
}

/* The start event matching an end event, searched backwards. */
static const event *find_start(const event *evs, size_t end, const char *kind)
{
    for (size_t i = end; i-- > 0;)
        if (!strcmp(evs[i].kind, kind) && !strcmp(evs[i].label, evs[end].label) &&
            evs[i].partition == evs[end].partition)
            return &evs[i];
    return NULL;
}

static int by_start(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Length of the union of n [start, end] intervals (sorted in place). */
static double union_length(double (*iv)[2], size_t n)
{
    qsort(iv, n, sizeof *iv, by_start);
    double total = 0, cur_s = 0, cur_e = -1;
    for (size_t i = 0; i < n; i++) {
        if (iv[i][0] > cur_e) {
            if (cur_e > cur_s) total += cur_e - cur_s;
            cur_s = iv[i][0], cur_e = iv[i][1];
        } else if (iv[i][1] > cur_e)
            cur_e = iv[i][1];
    }
    return total + (cur_e > cur_s ? cur_e - cur_s : 0);
}

static size_t read_events(FILE *f, event **out)
{
    size_t n = 0, cap = 0;
    char line[512];
    *out = NULL;
    while (fgets(line, sizeof line, f)) {
        event ev;
        if (strncmp(line, "TIMELINE,", 9) || parse_line(line, &ev)) continue;
        if (n == cap) {
            event *grown = realloc(*out, (cap = cap ? 2 * cap : 1024) * sizeof *grown);
            if (!grown) break;
            *out = grown;
        }
        (*out)[n++] = ev;
    }
    return n;
}

static void report(const event *evs, size_t n)
{
    double(*gpu[MAX_DEVICES])[2] = {0};
    size_t n_gpu[MAX_DEVICES] = {0}, n_wait = 0, n_synth = 0;
    double synth = 0, wait = 0;
    for (size_t i = 0; i < n; i++) {
        const event *s;
        int dev = evs[i].device;
        if (!strcmp(evs[i].kind, "GPU_END") && dev >= 0 && dev < MAX_DEVICES &&
            (s = find_start(evs, i, "GPU_START"))) {
            if (!gpu[dev]) gpu[dev] = calloc(n, sizeof *gpu[dev]);
            if (gpu[dev]) gpu[dev][n_gpu[dev]][0] = s->ms, gpu[dev][n_gpu[dev]++][1] = evs[i].ms;
        } else if (!strcmp(evs[i].kind, "SYNTH_END") && (s = find_start(evs, i, "SYNTH_START")))
            synth += evs[i].ms - s->ms, n_synth++;
        else if (!strcmp(evs[i].kind, "GPU_START") && (s = find_start(evs, i, "GPU_QUEUE")))
            wait += evs[i].ms - s->ms, n_wait++;
    }
    double span = evs[n - 1].ms - evs[0].ms;
    printf("=== Timeline ===\n");
    printf("events:      %zu over %.0f ms\n", n, span);
    printf("synthesis:   %zu items, %.0f ms busy\n", n_synth, synth);
    printf("gpu queue:   mean wait %.0f ms over %zu items\n", n_wait ? wait / (double)n_wait : 0,
           n_wait);
    for (int d = 0; d < MAX_DEVICES; d++) {
        if (!n_gpu[d]) continue;
        double busy = union_length(gpu[d], n_gpu[d]);
        printf("device %d:    %zu items, busy %.0f ms = %.1f%% of the span\n", d, n_gpu[d], busy,
               span > 0 ? 100 * busy / span : 0);
        free(gpu[d]);
    }
}

int bench_timeline(int argc, char **argv)
{
    if (argc != 2) return bench_usage("%s", "timeline needs one LOG file (the daemon's stderr)");
    FILE *f = strcmp(argv[1], "-") ? fopen(argv[1], "r") : stdin;
    if (!f) return fprintf(stderr, "cuzk-bench: cannot open %s\n", argv[1]), BENCH_FAILED;
    event *evs;
    size_t n = read_events(f, &evs);
    if (f != stdin) fclose(f);
    if (!n) {
        free(evs);
        return fprintf(stderr, "cuzk-bench: no TIMELINE lines in %s\n", argv[1]), BENCH_FAILED;
    }
    report(evs, n);
    free(evs);
    return BENCH_OK;
}
