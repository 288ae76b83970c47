/*
 * bench.h - the commands of cuzk-bench (main.c has the overview).
 */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "server/rpc.h"

enum bench_exit { BENCH_OK = 0, BENCH_FAILED = 1, BENCH_USAGE = 2 };

int bench_usage(const char *fmt, const char *arg);
/* The usage text on stdout (-h, --help); returns BENCH_OK. */
int bench_help(void);
int bench_single(const char *addr, int argc, char **argv);
int bench_batch(const char *addr, int argc, char **argv);
int bench_status(const char *addr);
int bench_metrics(const char *addr);
int bench_srs(const char *addr, int evict, int argc, char **argv);
int bench_cancel(const char *addr, int argc, char **argv);
int bench_gen_vanilla(int argc, char **argv);
/* gen-vanilla test: a synthetic test-circuit request (daemon --test-circuits). */
int bench_gen_test(int argc, char **argv);
int bench_timeline(int argc, char **argv);
/* plan --sector-size S [--device-memory M] [--batch]: the GPU memory plan
 * of a PoRep partition (plan.c). */
int bench_plan(int argc, char **argv);

/* One unary call with a connection of its own; prints the gRPC error and
 * returns BENCH_FAILED unless the status is OK. */
int bench_call(const char *addr, int method, const uint8_t *req, size_t len, rpc_reply *reply);

#endif
