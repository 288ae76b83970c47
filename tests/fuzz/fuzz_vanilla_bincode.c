/*
 * fuzz_vanilla_bincode.c - libFuzzer target for the bincode PoSt and
 * SnapDeals readers and the blob-list reader. The first byte picks the
 * reader (Winning PoSt, Window PoSt, SnapDeals, blob list) and the sector
 * size; the rest is the blob. Any input must give CUZK_OK or an error with
 * a message. bincode is canonical, so an accepted blob must encode back to
 * exactly the input; an accepted SnapDeals partition proof also goes
 * through the native check (update_verify.h), which must answer OK or
 * CUZK_EVERIFY with a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/update_verify.h"
#include "cuzk/filecoin/vanilla.h"

static const uint64_t SIZES[] = {2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};

static void same(const void *blob, size_t len, void *enc, size_t n)
{
    if (n != len || memcmp(blob, enc, n)) abort();
    free(enc);
}

static int post(int kind, uint64_t size, const uint8_t *d, size_t n, cuzk_err *err)
{
    vanilla_post_sector p;
    int rc = vanilla_post_sector_parse(&p, kind, size, d, n, err);
    if (rc) return rc;
    void *enc;
    size_t m;
    if (vanilla_post_sector_encode(&enc, &m, &p, NULL)) abort();
    same(d, n, enc, m);
    vanilla_post_sector_free(&p);
    return CUZK_OK;
}

/* The native check over an accepted partition proof, as every partition
 * of the sector (up to 8MiB: at most 4 x 10 challenges), commitments
 * taken from its roots: CUZK_OK or CUZK_EVERIFY with a message. */
static void update_check(uint64_t size, const vanilla_update_partition *u)
{
    update_shape s;
    if (size > (8ull << 20) || update_shape_for_size(&s, size, NULL)) return;
    vanilla_update_partition parts[4];
    for (unsigned k = 0; k < s.partitions; k++) parts[k] = *u;
    update_public pub = {.h = s.hs[3],
                         .comm_r_old = u->challenges[0].r_old.root,
                         .comm_d_new = u->challenges[0].d_new.root,
                         .comm_r_new = u->challenges[0].r_new.root};
    cuzk_err err = {0};
    int rc = fc_update_verify(&s, &pub, parts, s.partitions, &err);
    if (rc == CUZK_EINVAL &&
        (!vanilla_node_canonical(&pub.comm_r_old) || !vanilla_node_canonical(&pub.comm_d_new) ||
         !vanilla_node_canonical(&pub.comm_r_new)))
        return;
    if ((rc != CUZK_OK && rc != CUZK_EVERIFY) || (rc && !err.msg[0])) abort();
}

static int update(uint64_t size, const uint8_t *d, size_t n, cuzk_err *err)
{
    vanilla_update_partition u;
    int rc = vanilla_update_parse(&u, size, d, n, err);
    if (rc) return rc;
    void *enc;
    size_t m;
    if (vanilla_update_encode(&enc, &m, &u, NULL)) abort();
    same(d, n, enc, m);
    update_check(size, &u);
    vanilla_update_free(&u);
    return CUZK_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int which = data[0] % 4;
    uint64_t sector = SIZES[(data[0] >> 2) % 5];
    cuzk_err err = {0};
    int rc;
    if (which < 2) {
        rc = post(which, sector, data + 1, size - 1, &err);
    } else if (which == 2) {
        rc = update(sector, data + 1, size - 1, &err);
    } else {
        vanilla_blobs b;
        if (!(rc = vanilla_blobs_parse(&b, data + 1, size - 1, &err))) vanilla_blobs_free(&b);
    }
    if (rc && !err.msg[0]) abort();
    return 0;
}
