/*
 * failalloc.h - allocation-failure injection for unit tests.
 *
 * Include it in exactly one source file of a test executable: it replaces
 * malloc, calloc, realloc and free with glibc's own entry points behind a
 * counter, so failalloc_every() can run a function once per allocation it
 * makes with that allocation failing, and check every such run returns 0 or
 * CUZK_ENOMEM and leaves nothing allocated. memalign (libgomp makes a
 * parallel region's team with it and frees it with free) is counted but
 * never failed: libgomp aborts when an allocation fails. Not available
 * under AddressSanitizer, which owns malloc (FAILALLOC_AVAILABLE is then 0
 * and the caller skips).
 */
#ifndef CUZK_TEST_FAILALLOC_H
#define CUZK_TEST_FAILALLOC_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/err.h"

#if defined(__SANITIZE_ADDRESS__)
#define FAILALLOC_AVAILABLE 0
#else
#define FAILALLOC_AVAILABLE 1

/* glibc's own allocator entry points, which the replacements forward to. */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

/* Only touched while `counting` (set by the single-threaded failalloc_run),
 * so allocations from other threads at other times never race on them. */
static bool failalloc_counting;
static long failalloc_countdown; /* the allocation that sees 0 fails; -1: none */
static long failalloc_live, failalloc_calls;

static bool failalloc_fail_now(void)
{
    if (!failalloc_counting) return false;
    failalloc_calls++;
    return failalloc_countdown >= 0 && failalloc_countdown-- == 0;
}

static void *failalloc_counted(void *p, bool is_new)
{
    if (failalloc_counting && p && is_new) failalloc_live++;
    return p;
}

void *malloc(size_t n)
{
    return failalloc_fail_now() ? NULL : failalloc_counted(__libc_malloc(n), true);
}
void *calloc(size_t n, size_t size)
{
    return failalloc_fail_now() ? NULL : failalloc_counted(__libc_calloc(n, size), true);
}
void *realloc(void *q, size_t n)
{
    return failalloc_fail_now() ? NULL : failalloc_counted(__libc_realloc(q, n), !q);
}
void *memalign(size_t align, size_t n)
{
    return failalloc_counted(__libc_memalign(align, n), true);
}
void free(void *p)
{
    if (failalloc_counting && p) failalloc_live--;
    __libc_free(p);
}

/* fn(arg) with the k-th allocation failing (-1: none); its status, after
 * checking nothing is left allocated. */
static int failalloc_run(int (*fn)(void *), void *arg, long k)
{
    failalloc_live = 0, failalloc_calls = 0, failalloc_counting = true, failalloc_countdown = k;
    int rc = fn(arg);
    failalloc_countdown = -1;
    failalloc_counting = false;
    assert_int_equal(failalloc_live, 0);
    return rc;
}

/* Every allocation of fn failing in turn: each run gives 0 (a failure some
 * library absorbed) or CUZK_ENOMEM, and at least one gives CUZK_ENOMEM. */
static void failalloc_every(int (*fn)(void *), void *arg)
{
    assert_int_equal(failalloc_run(fn, arg, -1), 0);
    long total = failalloc_calls, failures = 0;
    for (long k = 0; k < total; k++) {
        int rc = failalloc_run(fn, arg, k);
        assert_true(rc == 0 || rc == CUZK_ENOMEM);
        failures += rc == CUZK_ENOMEM;
    }
    assert_true(failures > 0);
}
#endif

#endif
