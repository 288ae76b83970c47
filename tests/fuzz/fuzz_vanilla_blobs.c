/*
 * fuzz_vanilla_blobs.c - libFuzzer target for the blob-list reader that
 * cuzk-bench and cuzk prove --kind read (vanilla_blobs_parse: a JSON array
 * of base64 strings, as Curio's gen-vanilla writes). Any input must give
 * CUZK_OK or an error with a message. An accepted list is written back
 * (vanilla_blobs_write) and read again: the same blobs, byte for byte, and
 * a second write equal to the first (the writer's output is canonical).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/vanilla.h"

static char *write_list(const vanilla_blobs *b, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) abort();
    if (vanilla_blobs_write(f, b, NULL)) abort();
    fclose(f);
    return buf;
}

static void check_round_trip(const vanilla_blobs *b)
{
    size_t n1, n2;
    char *a = write_list(b, &n1);
    vanilla_blobs back;
    if (vanilla_blobs_parse(&back, a, n1, NULL)) abort();
    if (back.n != b->n) abort();
    for (size_t i = 0; i < b->n; i++)
        if (back.len[i] != b->len[i] || memcmp(back.data[i], b->data[i], b->len[i])) abort();
    char *c = write_list(&back, &n2);
    if (n1 != n2 || memcmp(a, c, n1)) abort();
    vanilla_blobs_free(&back);
    free(a);
    free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vanilla_blobs b;
    cuzk_err err = {0};
    int rc = vanilla_blobs_parse(&b, data, size, &err);
    if (rc && !err.msg[0]) abort(); /* every error carries a message */
    if (!rc) {
        check_round_trip(&b);
        vanilla_blobs_free(&b);
    }
    return 0;
}
