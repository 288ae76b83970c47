/*
 * post_circuit_inputs.c - the public inputs of the Fallback PoSt circuit,
 * as FallbackPoStCompound::generate_public_inputs computes them
 * (storage-proofs-post fallback/compound.rs, vanilla.rs, utils.rs).
 *
 * For the k-th chunk of `sectors` public sectors: comm_r, then for each
 * challenge n the leaf SHA-256(randomness || id u64 LE || challenge index
 * u64 LE)[0..8] as u64 LE mod nodes, where the challenge index is
 * get_challenge_index(api_version, sector index, challenges, n). A chunk
 * shorter than `sectors` repeats its last sector's inputs.
 */
#include "cuzk/filecoin/post_circuit.h"

#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/porep.h"

static void put_u64_le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                             uint64_t challenge_index, uint64_t nodes)
{
    uint8_t msg[48], h[SHA256_DIGEST_LENGTH];
    memcpy(msg, randomness, 32);
    put_u64_le(msg + 32, sector_id);
    put_u64_le(msg + 40, challenge_index);
    SHA256(msg, sizeof msg, h);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | h[i];
    return v % nodes;
}

/* utils.rs get_challenge_index. */
static uint64_t challenge_index(int api_version, size_t sector_index, size_t challenges, size_t n)
{
    if (api_version == FC_API_V1_2) return n;
    return (uint64_t)(sector_index * challenges + n);
}

int post_public_inputs(fr_t *out, const post_shape *s, int api_version,
                       const uint8_t randomness[32], const post_public_sector *pub, size_t n,
                       size_t partition, cuzk_err *err)
{
    if (api_version < FC_API_V1_0 || api_version > FC_API_V1_2)
        return cuzk_errf(err, CUZK_EINVAL, "post inputs: unknown api version %d", api_version);
    size_t first = partition * s->sectors;
    if (first >= n)
        return cuzk_errf(err, CUZK_EINVAL, "post inputs: partition %zu of %zu sectors (%zu each)",
                         partition, n, s->sectors);
    size_t in_chunk = n - first < s->sectors ? n - first : s->sectors;
    size_t per = 1 + s->challenges;
    for (size_t i = 0; i < in_chunk; i++) {
        const post_public_sector *p = &pub[first + i];
        fr_t *o = out + i * per;
        if (!fr_from_bytes_le(&o[0], p->comm_r.b))
            return cuzk_errf(err, CUZK_ENONCANONICAL, "post inputs: sector %zu: comm_r not below r",
                             first + i);
        for (size_t c = 0; c < s->challenges; c++) {
            uint64_t ci = challenge_index(api_version, first + i, s->challenges, c);
            fr_from_u64(&o[1 + c], post_leaf_challenge(randomness, p->id, ci, s->nodes));
        }
    }
    for (size_t i = in_chunk; i < s->sectors; i++)
        memcpy(out + i * per, out + (in_chunk - 1) * per, per * sizeof(fr_t));
    return 0;
}

int post_winning_public_inputs(fr_t *out, const post_shape *s, int api_version,
                               const uint8_t randomness[32], const post_public_sector *sector,
                               cuzk_err *err)
{
    post_public_sector *rep = malloc(s->sectors * sizeof(*rep));
    if (!rep) return cuzk_errf(err, CUZK_ENOMEM, "post inputs: %zu sectors", s->sectors);
    for (size_t i = 0; i < s->sectors; i++) rep[i] = *sector;
    int rc = post_public_inputs(out, s, api_version, randomness, rep, s->sectors, 0, err);
    free(rep);
    return rc;
}
