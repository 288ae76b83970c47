/*
 * sdr.c - replica_id, challenges, SDR labelling, encoding and column hashes
 * (sdr.h).
 *
 * Labelling is sequential by construction: a node's predecessor is always
 * one of its parents. Each label is one SHA-256 over a 1,248-byte message
 * (64 bytes of header, 37 x 32 bytes of parents: 20 compressions with the
 * padding block), assembled in a buffer and hashed through one reused
 * OpenSSL EVP context, which picks SHA-NI or AVX2 code by CPU.
 */
#include "cuzk/filecoin/sdr.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>

#include "cuzk/fr.h"
#include "cuzk/poseidon.h"
#include "filecoin/blake2b.h"
#include "filecoin/chacha.h"

#define HEADER_BYTES    64 /* replica_id, layer u32 BE, node u64 BE, zero padding to 64 */
#define LABEL_MSG_BYTES (HEADER_BYTES + FC_LABEL_PARENTS * FC_NODE_BYTES) /* 1,248 */

static const char NI_TAG[] = "filecoin.io|PoRep|1|NonInteractive|1";
static const char SYNTH_GEN_TAG[] = "filecoin.io|PoRep|1|Synthetic|1|Generation";
static const char SYNTH_SELECT_TAG[] = "filecoin.io|PoRep|1|Synthetic|1|Selection";
static const uint8_t SYNTH_NONCE[12] = "synth-porep"; /* b"synth-porep\x00" */

void fc_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                   const uint8_t ticket[32], const uint8_t comm_d[32],
                   const uint8_t porep_id[FC_POREP_ID_BYTES])
{
    uint8_t buf[32 + 8 + 32 + 32 + FC_POREP_ID_BYTES];
    memcpy(buf, prover_id, 32);
    for (int i = 0; i < 8; i++) buf[32 + i] = (uint8_t)(sector_id >> (56 - 8 * i));
    memcpy(buf + 40, ticket, 32);
    memcpy(buf + 72, comm_d, 32);
    memcpy(buf + 104, porep_id, FC_POREP_ID_BYTES);
    SHA256(buf, sizeof buf, out);
    out[31] &= 0x3f;
}

void fc_prover_id_from_miner(uint8_t out[32], uint64_t miner_id)
{
    memset(out, 0, 32);
    int i = 0;
    do {
        uint8_t b = miner_id & 0x7f;
        miner_id >>= 7;
        out[i++] = miner_id ? (uint8_t)(b | 0x80) : b;
    } while (miner_id);
}

/* (256-bit little-endian h) mod (nodes - 1) + 1: challenges.rs bigint_to_challenge. */
static uint64_t hash_to_challenge(const uint8_t h[32], uint64_t nodes)
{
    unsigned __int128 r = 0;
    uint64_t m = nodes - 1;
    for (int limb = 3; limb >= 0; limb--) {
        uint64_t w = 0;
        for (int i = 7; i >= 0; i--) w = w << 8 | h[8 * limb + i];
        r = ((r << 64) | w) % m;
    }
    return (uint64_t)r + 1;
}

static void challenges_from(uint64_t *out, unsigned per_partition, unsigned k, uint64_t nodes,
                            uint8_t *msg, size_t prefix)
{
    for (unsigned i = 0; i < per_partition; i++) {
        uint32_t j = per_partition * k + i;
        for (int b = 0; b < 4; b++) msg[prefix + b] = (uint8_t)(j >> (8 * b));
        uint8_t h[32];
        SHA256(msg, prefix + 4, h);
        out[i] = hash_to_challenge(h, nodes);
    }
}

void fc_challenges_interactive(uint64_t *out, unsigned per_partition, unsigned k, uint64_t nodes,
                               const uint8_t replica_id[32], const uint8_t seed[32])
{
    uint8_t msg[68];
    memcpy(msg, replica_id, 32);
    memcpy(msg + 32, seed, 32);
    challenges_from(out, per_partition, k, nodes, msg, 64);
}

void fc_challenges_ni(uint64_t *out, unsigned per_partition, unsigned k, uint64_t nodes,
                      const uint8_t replica_id[32], const uint8_t comm_r[32])
{
    uint8_t msg[sizeof NI_TAG - 1 + 68];
    size_t t = sizeof NI_TAG - 1;
    memcpy(msg, NI_TAG, t);
    memcpy(msg + t, replica_id, 32);
    memcpy(msg + t + 32, comm_r, 32);
    challenges_from(out, per_partition, k, nodes, msg, t + 64);
}

static uint32_t load32_le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * len bytes of the RFC 7539 ChaCha20 keystream (32-bit block counter,
 * 96-bit nonce, as the chacha20 crate) from byte `offset` on. In the djb
 * layout of fc_chacha_block the nonce's first word is the counter's high
 * half: blocks stay below 2^32 here.
 */
static void chacha20_ietf(uint8_t *out, size_t len, const uint8_t key[32], const uint8_t nonce[12],
                          uint64_t offset)
{
    uint32_t k[8], w[16];
    for (int i = 0; i < 8; i++) k[i] = load32_le(key + 4 * i);
    uint64_t hi = (uint64_t)load32_le(nonce) << 32;
    uint64_t stream = load32_le(nonce + 4) | (uint64_t)load32_le(nonce + 8) << 32;
    while (len) {
        uint8_t block[64];
        fc_chacha_block(w, k, (offset / 64) | hi, stream, 20);
        for (int i = 0; i < 64; i++) block[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
        size_t at = (size_t)(offset % 64), n = 64 - at < len ? 64 - at : len;
        memcpy(out, block + at, n);
        out += n;
        len -= n;
        offset += n;
    }
}

/* ChaCha20 key: BLAKE2b-256 keyed with tag over a || b (synthetic.rs chacha20_gen/select). */
static void synth_key(uint8_t key[32], const char *tag, const uint8_t a[32], const uint8_t b[32])
{
    uint8_t msg[64];
    memcpy(msg, a, 32);
    memcpy(msg + 32, b, 32);
    fc_blake2b(key, 32, tag, strlen(tag), msg, sizeof msg);
}

uint64_t fc_synth_challenge(const uint8_t replica_id[32], const uint8_t comm_r[32], uint64_t nodes,
                            uint64_t i)
{
    uint8_t key[32], r[32];
    synth_key(key, SYNTH_GEN_TAG, replica_id, comm_r);
    chacha20_ietf(r, sizeof r, key, SYNTH_NONCE, i * 32);
    return hash_to_challenge(r, nodes);
}

void fc_challenges_synthetic(uint64_t *out, unsigned per_partition, unsigned k, uint64_t nodes,
                             uint64_t num_synth, const uint8_t replica_id[32],
                             const uint8_t comm_r[32], const uint8_t seed[32])
{
    if (!num_synth) num_synth = nodes < FC_SYNTH_CHALLENGES ? nodes : FC_SYNTH_CHALLENGES;
    uint8_t key[32], idx[4];
    synth_key(key, SYNTH_SELECT_TAG, replica_id, seed);
    for (unsigned i = 0; i < per_partition; i++) {
        chacha20_ietf(idx, 4, key, SYNTH_NONCE, 4 * ((uint64_t)k * per_partition + i));
        out[i] = fc_synth_challenge(replica_id, comm_r, nodes, load32_le(idx) % num_synth);
    }
}

void fc_label_parents(uint8_t out[FC_LABEL_PARENTS * FC_NODE_BYTES], unsigned layer,
                      const uint32_t parents[FC_DEGREE], const uint8_t *cur, const uint8_t *prev)
{
    unsigned degree = layer == 1 ? FC_BASE_DEGREE : FC_DEGREE;
    for (unsigned k = 0; k < degree; k++) {
        const uint8_t *src = k < FC_BASE_DEGREE ? cur : prev;
        memcpy(out + FC_NODE_BYTES * k, src + (size_t)parents[k] * FC_NODE_BYTES, FC_NODE_BYTES);
    }
    fc_label_parents_repeat(out, layer);
}

void fc_label_parents_repeat(uint8_t out[FC_LABEL_PARENTS * FC_NODE_BYTES], unsigned layer)
{
    unsigned degree = layer == 1 ? FC_BASE_DEGREE : FC_DEGREE;
    for (unsigned k = degree; k < FC_LABEL_PARENTS; k++)
        memcpy(out + FC_NODE_BYTES * k, out + FC_NODE_BYTES * (k % degree), FC_NODE_BYTES);
}

/* The 64-byte header of a label's preimage: replica_id, layer u32 BE, node u64 BE, zeros. */
static void label_header(uint8_t msg[HEADER_BYTES], const uint8_t replica_id[32], unsigned layer,
                         uint64_t node)
{
    memset(msg, 0, HEADER_BYTES);
    memcpy(msg, replica_id, 32);
    for (int i = 0; i < 4; i++) msg[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++) msg[36 + i] = (uint8_t)(node >> (56 - 8 * i));
}

/* Fills msg with a label's preimage; returns its length. */
static size_t label_message(uint8_t *msg, const uint8_t replica_id[32], unsigned layer,
                            uint64_t node, const uint32_t *parents, const uint8_t *cur,
                            const uint8_t *prev)
{
    label_header(msg, replica_id, layer, node);
    if (node == 0) return HEADER_BYTES;
    fc_label_parents(msg + HEADER_BYTES, layer, parents, cur, prev);
    return LABEL_MSG_BYTES;
}

void fc_label_node(uint8_t out[32], const uint8_t replica_id[32], unsigned layer, uint64_t node,
                   const uint32_t parents[FC_DEGREE], const uint8_t *cur, const uint8_t *prev)
{
    uint8_t msg[LABEL_MSG_BYTES];
    size_t n = label_message(msg, replica_id, layer, node, parents, cur, prev);
    SHA256(msg, n, out);
    out[31] &= 0x3f;
}

void fc_label_from_parents(uint8_t out[32], const uint8_t replica_id[32], unsigned layer,
                           uint64_t node, const uint8_t parents[FC_LABEL_PARENTS * FC_NODE_BYTES])
{
    uint8_t msg[LABEL_MSG_BYTES];
    label_header(msg, replica_id, layer, node);
    memcpy(msg + HEADER_BYTES, parents, LABEL_MSG_BYTES - HEADER_BYTES);
    SHA256(msg, node == 0 ? HEADER_BYTES : LABEL_MSG_BYTES, out);
    out[31] &= 0x3f;
}

/* One layer, node by node, through a reused EVP context. */
static int label_layer(EVP_MD_CTX *ctx, const EVP_MD *md, const fc_graph *g,
                       const uint32_t *parents, const uint8_t replica_id[32], unsigned layer,
                       uint8_t *cur, const uint8_t *prev, fc_progress_fn progress, void *pctx)
{
    static const uint64_t REPORT = 1ULL << 16; /* nodes between progress reports */
    uint8_t msg[LABEL_MSG_BYTES];
    char stage[32];
    snprintf(stage, sizeof stage, "layer %u", layer);
    for (uint64_t v = 0; v < g->nodes; v++) {
        size_t n = label_message(msg, replica_id, layer, v, parents + v * FC_DEGREE, cur, prev);
        uint8_t *out = cur + v * FC_NODE_BYTES;
        unsigned len;
        if (!EVP_DigestInit_ex2(ctx, md, NULL) || !EVP_DigestUpdate(ctx, msg, n) ||
            !EVP_DigestFinal_ex(ctx, out, &len))
            return CUZK_EINVAL;
        out[31] &= 0x3f;
        if (progress && ((v + 1) % REPORT == 0 || v + 1 == g->nodes))
            progress(pctx, stage, v + 1, g->nodes);
    }
    return CUZK_OK;
}

int fc_sdr_labels(const fc_graph *g, const uint32_t *parents, const uint8_t replica_id[32],
                  unsigned layers, uint8_t *labels, fc_progress_fn progress, void *progress_ctx,
                  cuzk_err *err)
{
    EVP_MD *md = EVP_MD_fetch(NULL, "SHA256", NULL);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = md && ctx ? CUZK_OK : CUZK_ENOMEM;
    size_t layer_bytes = (size_t)g->nodes * FC_NODE_BYTES;
    for (unsigned l = 1; rc == CUZK_OK && l <= layers; l++) {
        uint8_t *cur = labels + (l - 1) * layer_bytes;
        const uint8_t *prev = l > 1 ? cur - layer_bytes : NULL;
        rc = label_layer(ctx, md, g, parents, replica_id, l, cur, prev, progress, progress_ctx);
    }
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    if (rc) return cuzk_errf(err, rc, "sdr labels: OpenSSL SHA-256 failed");
    return CUZK_OK;
}

int fc_encode(uint8_t *replica, const uint8_t *data, const uint8_t *key, uint64_t n, cuzk_err *err)
{
    for (uint64_t i = 0; i < n; i++) {
        fr_t d, k;
        if (!fr_from_bytes_le(&d, data + i * FC_NODE_BYTES))
            return cuzk_errf(err, CUZK_ENONCANONICAL,
                             "encode: data node %llu is not a field element (fr32 padding?)",
                             (unsigned long long)i);
        if (!fr_from_bytes_le(&k, key + i * FC_NODE_BYTES))
            return cuzk_errf(err, CUZK_ENONCANONICAL, "encode: label %llu is not canonical",
                             (unsigned long long)i);
        fr_add(&d, &d, &k);
        fr_to_bytes_le(replica + i * FC_NODE_BYTES, &d);
    }
    return CUZK_OK;
}

void fc_column_hash(uint8_t out[32], const uint8_t *labels, uint64_t nodes, unsigned layers,
                    uint64_t node)
{
    fr_t col[POSEIDON_MAX_ARITY];
    for (unsigned l = 0; l < layers; l++)
        fr_from_bytes_le(&col[l], labels + ((size_t)l * nodes + node) * FC_NODE_BYTES);
    fr_t h;
    poseidon_hash(&h, poseidon_std(layers), col);
    fr_to_bytes_le(out, &h);
}
