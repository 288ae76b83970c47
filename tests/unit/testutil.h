/*
 * testutil.h - shared helpers for the cmocka unit tests: a seeded generator
 * whose seed is printed (and can be replayed with CUZK_TEST_SEED=N), and
 * hex helpers for known vectors, a check of text the engine reports.
 */
#ifndef CUZK_TESTUTIL_H
#define CUZK_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cuzk/rng.h"

/* Seeds g from CUZK_TEST_SEED or the clock, and prints the seed once. */
void test_rng(cuzk_rng *g);
/* Parses a hex string (optional 0x, even length) into out; returns the byte count. */
size_t test_hex(uint8_t *out, size_t cap, const char *hex);
/* text (e.g. engine_metrics or engine_status_json, the caller's to free)
 * holds both a and b: else the test fails showing it; text is freed. */
void test_text_has(char *text, const char *a, const char *b);

#endif
