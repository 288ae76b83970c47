/*
 * fuzz_c1_json.c - libFuzzer target for the streaming C1 reader. The first
 * byte picks the format (AUTO, WRAPPED, BARE) and a chunk size (1..64), the
 * rest is fed in chunks of that size. Any input must give CUZK_OK or an
 * error with a message, never a crash, leak or hang. An accepted input is
 * written back (bare) and read again: the second write must equal the
 * first, byte for byte. The daemon's path is fuzzed too: the same bytes
 * read with only the shape checked (VANILLA_C1_UNCHECKED) and, when they
 * pass, the native check of everything the circuit enforces
 * (fc_porep_c1_verify), which must accept or name a fault, never crash.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/vanilla.h"
#include "cuzk/filecoin/vanilla_verify.h"

static char *write_bare(vanilla_c1 *c1, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) abort();
    c1->wrapped = false;
    if (vanilla_c1_write(f, c1, NULL)) abort();
    fclose(f);
    return buf;
}

/* What provider_porep.c does with a request's C1. */
static void check_as_daemon(const uint8_t *data, size_t size, int format)
{
    vanilla_c1 c1;
    cuzk_err err = {0};
    if (vanilla_c1_parse(&c1, data, size, format | VANILLA_C1_UNCHECKED, &err)) {
        if (!err.msg[0]) abort();
        return;
    }
    if (fc_porep_c1_verify(&c1, &err) && !err.msg[0]) abort();
    vanilla_c1_free(&c1);
}

static void check_round_trip(vanilla_c1 *c1)
{
    size_t n1, n2;
    char *a = write_bare(c1, &n1);
    vanilla_c1 back;
    cuzk_err err = {0};
    if (vanilla_c1_parse(&back, a, n1, VANILLA_C1_BARE, &err)) abort();
    char *b = write_bare(&back, &n2);
    if (n1 != n2 || memcmp(a, b, n1)) abort();
    vanilla_c1_free(&back);
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int format = data[0] % 3;
    size_t chunk = 1 + (data[0] >> 2) % 64;
    data++, size--;
    vanilla_c1_reader *r = vanilla_c1_reader_new(format);
    if (!r) abort();
    cuzk_err err = {0};
    int rc = CUZK_OK;
    for (size_t i = 0; i < size && !rc; i += chunk)
        rc = vanilla_c1_reader_feed(r, data + i, size - i < chunk ? size - i : chunk, &err);
    vanilla_c1 c1;
    if (!rc) rc = vanilla_c1_reader_finish(r, &c1, &err);
    vanilla_c1_reader_free(r);
    if (rc && !err.msg[0]) abort(); /* every error carries a message */
    if (!rc) {
        check_round_trip(&c1);
        vanilla_c1_free(&c1);
    }
    check_as_daemon(data, size, format);
    return 0;
}
