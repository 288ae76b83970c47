/*
 * gpu_check.h - the GPU tests' soft assertion. CHECK(cond, fmt, ...)
 * prints the failing file and line with its message and counts it in the
 * including file's `failures`; the test goes on, so that one run on a GPU
 * machine shows every failure, and reports the count at its end.
 */
#ifndef CUZK_TESTS_GPU_CHECK_H
#define CUZK_TESTS_GPU_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

#endif
