/*
 * bench.h - the micro benchmark harness behind `make bench`.
 *
 * Each bench_*.c file defines benchmarks with BENCH(order, name) { ... };
 * they register themselves at start-up, run in `order`, and report rows with
 * bench_report(). main.c prints all rows as one table at the end, each next
 * to its anchor (reference/anchors.md) and goal. `--quick` shrinks sizes so
 * `make run` stays fast; `--filter S` runs only benchmarks whose name has S.
 */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stddef.h>

typedef struct bench_ctx {
    int quick;   /* smaller sizes and fewer repetitions */
    int threads; /* OpenMP threads available */
} bench_ctx;

typedef void (*bench_fn)(const bench_ctx *ctx);

void bench_register(int order, const char *name, bench_fn fn);

/*
 * One table row: figure, our value in unit, the anchor's value in the same
 * unit (0 when none), and the goal as text ("<= 1.0x blst"). The ratio
 * column is ours / anchor.
 */
void bench_report(const char *figure, double value, const char *unit, double anchor,
                  const char *anchor_name, const char *goal);

/* Monotonic clock in seconds. */
double bench_now(void);

/* Runs fn(arg) repeatedly for at least min_seconds (and at least once);
 * returns seconds per call. */
double bench_time(void (*fn)(void *), void *arg, double min_seconds);

#define BENCH(order, name)                                                                       \
    static void name(const bench_ctx *ctx);                                                      \
    __attribute__((constructor)) static void name##_register(void)                              \
    {                                                                                            \
        bench_register(order, #name, name);                                                      \
    }                                                                                            \
    static void name(const bench_ctx *ctx)

#endif
