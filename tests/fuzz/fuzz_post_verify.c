/*
 * fuzz_post_verify.c - libFuzzer target for the native PoSt check
 * (post_verify.h) on what the readers let through unchecked
 * (VANILLA_POST_UNCHECKED), as the daemon runs it.
 *
 * The first byte picks the kind, the indexing and the input: with bit 7
 * clear the rest is a bincode blob of a 2KiB or 32GiB sector proof; with
 * it set, a good sparse 2KiB sector proof (fc_sparse_post_sectors) is
 * altered by the rest, read as (offset u16 little-endian, xor byte)
 * triples, so the check runs on near-valid proofs. Any input must give
 * CUZK_OK, CUZK_EVERIFY with a message naming a sector, or a reader's
 * error; never a crash. The good proof must check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/post_verify.h"

static const uint8_t RANDOMNESS[32] = {1, 2, 3, 4, 5, 6, 7, 8};

/* The good sparse 2KiB proof of kind, encoded (made once per kind). */
static void good_blob(int kind, const post_shape *s, int api, uint8_t **blob, size_t *len)
{
    static uint8_t *cache[2][3];
    static size_t cache_len[2][3];
    if (!cache[kind][api]) {
        vanilla_post_sector v;
        fc_sparse_post g = {.kind = kind,
                            .shape = s,
                            .api_version = api,
                            .randomness = RANDOMNESS,
                            .seed = 1,
                            .sector_id = 42};
        void *b;
        if (fc_sparse_post_sectors(&v, 1, &g, NULL) ||
            vanilla_post_sector_encode(&b, &cache_len[kind][api], &v, NULL))
            abort();
        vanilla_post_sector_free(&v);
        cache[kind][api] = b;
    }
    *len = cache_len[kind][api];
    *blob = malloc(*len);
    if (!*blob) abort();
    memcpy(*blob, cache[kind][api], *len);
}

static void alter(uint8_t *blob, size_t len, const uint8_t *d, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i += 3) {
        size_t off = (size_t)(d[i] | d[i + 1] << 8);
        if (off < len) blob[off] ^= d[i + 2];
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int kind = data[0] & 1, api = (data[0] >> 1) & 1 ? FC_API_V1_2 : FC_API_V1_1;
    bool from_good = data[0] & 0x80;
    uint64_t sector = from_good || !(data[0] & 4) ? 2048 : 32ull << 30;
    post_shape s;
    if (post_shape_for_size(&s, kind, sector, NULL)) abort();
    uint8_t *blob;
    size_t len;
    if (from_good) {
        good_blob(kind, &s, api, &blob, &len);
    } else {
        len = size - 1;
        if (!(blob = malloc(len ? len : 1))) abort();
        memcpy(blob, data + 1, len);
    }
    vanilla_post_sector v;
    cuzk_err err = {0};
    fc_post_request q = {.kind = kind, .shape = &s, .api_version = api, .randomness = RANDOMNESS};
    if (from_good) {
        if (vanilla_post_sector_parse(&v, kind | VANILLA_POST_UNCHECKED, sector, blob, len, NULL) ||
            fc_post_vanilla_verify(&q, &v, 1, NULL))
            abort();
        vanilla_post_sector_free(&v);
        alter(blob, len, data + 1, size - 1);
    }
    if (!vanilla_post_sector_parse(&v, kind | VANILLA_POST_UNCHECKED, sector, blob, len, &err)) {
        int rc = fc_post_vanilla_verify(&q, &v, 1, &err);
        if (rc && (rc != CUZK_EVERIFY || !strstr(err.msg, "PoSt sector 0 (id "))) abort();
        vanilla_post_sector_free(&v);
    } else if (!err.msg[0]) {
        abort();
    }
    free(blob);
    return 0;
}
