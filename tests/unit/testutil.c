/* testutil.c - see testutil.h. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void test_rng(cuzk_rng *g)
{
    static uint64_t seed;
    static int printed;
    if (!printed) {
        const char *env = getenv("CUZK_TEST_SEED");
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = env ? strtoull(env, NULL, 0) : (uint64_t)ts.tv_sec * 1000003u + (uint64_t)ts.tv_nsec;
        printf("# test seed: CUZK_TEST_SEED=%llu\n", (unsigned long long)seed);
        printed = 1;
    }
    cuzk_rng_seed(g, seed++);
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t test_hex(uint8_t *out, size_t cap, const char *hex)
{
    if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex += 2;
    size_t len = strlen(hex);
    assert_true(len % 2 == 0 && len / 2 <= cap);
    for (size_t i = 0; i < len / 2; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        assert_true(hi >= 0 && lo >= 0);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return len / 2;
}

void test_text_has(char *text, const char *a, const char *b)
{
    assert_non_null(text);
    if (!strstr(text, a) || !strstr(text, b)) fail_msg("no '%s' or no '%s' in:\n%s", a, b, text);
    free(text);
}
