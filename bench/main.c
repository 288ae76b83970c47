/*
 * main.c - runs the registered micro benchmarks (bench.h) and prints one
 * table: figure | ours | anchor | ratio | goal.
 */
#include "bench.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BENCH 128
#define MAX_ROWS 256

static struct {
    int order;
    const char *name;
    bench_fn fn;
} benches[MAX_BENCH];
static int n_benches;

static struct {
    char figure[64], unit[8], anchor_name[32], goal[48];
    double value, anchor;
} rows[MAX_ROWS];
static int n_rows;

void bench_register(int order, const char *name, bench_fn fn)
{
    if (n_benches == MAX_BENCH) {
        fprintf(stderr, "bench: too many benchmarks\n");
        exit(2);
    }
    benches[n_benches].order = order;
    benches[n_benches].name = name;
    benches[n_benches].fn = fn;
    n_benches++;
}

void bench_report(const char *figure, double value, const char *unit, double anchor,
                  const char *anchor_name, const char *goal)
{
    if (n_rows == MAX_ROWS) return;
    snprintf(rows[n_rows].figure, sizeof(rows[0].figure), "%s", figure);
    snprintf(rows[n_rows].unit, sizeof(rows[0].unit), "%s", unit);
    snprintf(rows[n_rows].anchor_name, sizeof(rows[0].anchor_name), "%s", anchor_name ? anchor_name : "");
    snprintf(rows[n_rows].goal, sizeof(rows[0].goal), "%s", goal ? goal : "");
    rows[n_rows].value = value;
    rows[n_rows].anchor = anchor;
    fprintf(stderr, "  %-34s %12.3f %s\n", figure, value, unit);
    n_rows++;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_time(void (*fn)(void *), void *arg, double min_seconds)
{
    fn(arg); /* warm up */
    long calls = 0;
    double start = bench_now(), elapsed;
    do {
        fn(arg);
        calls++;
        elapsed = bench_now() - start;
    } while (elapsed < min_seconds);
    return elapsed / (double)calls;
}

static int by_order(const void *a, const void *b)
{
    const int *x = a, *y = b; /* order is the first member */
    return (*x > *y) - (*x < *y);
}

int main(int argc, char **argv)
{
    bench_ctx ctx = {.quick = 0, .threads = omp_get_max_threads()};
    const char *filter = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) ctx.quick = 1;
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--quick] [--filter SUBSTRING]\n", argv[0]);
            return 2;
        }
    }
    qsort(benches, (size_t)n_benches, sizeof(benches[0]), by_order);
    for (int i = 0; i < n_benches; i++) {
        if (filter && !strstr(benches[i].name, filter)) continue;
        fprintf(stderr, "[%s]\n", benches[i].name);
        benches[i].fn(&ctx);
    }
    printf("\n| figure | ours | anchor | ours / anchor | goal |\n|---|---|---|---|---|\n");
    for (int i = 0; i < n_rows; i++) {
        char anchor[64] = "", ratio[16] = "";
        if (rows[i].anchor > 0) {
            snprintf(anchor, sizeof(anchor), "%.3g %s (%s)", rows[i].anchor, rows[i].unit,
                     rows[i].anchor_name);
            snprintf(ratio, sizeof(ratio), "%.2fx", rows[i].value / rows[i].anchor);
        }
        printf("| %s | %.4g %s | %s | %s | %s |\n", rows[i].figure, rows[i].value, rows[i].unit,
               anchor, ratio, rows[i].goal);
    }
    return 0;
}
