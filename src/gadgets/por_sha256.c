/*
 * por_sha256.c - the SHA-256 node hash of binary (tree-D) Merkle paths:
 * filecoin-hashers' Sha256Function::hash_multi_leaf_circuit, see por.h.
 *
 * Per child: to_bits_le (255 allocated bits and the packing constraint),
 * one constant false bit to fill 256, then each byte's bits reversed so
 * the message is the children's little-endian bytes, most significant bit
 * of each byte first (bellpepper's SHA-256 order). The digest's bits are
 * read back per byte least significant first and the first 254 packed
 * (multipack::pack_bits).
 */
#include "cuzk/gadgets/multipack.h"
#include "cuzk/gadgets/por.h"
#include "cuzk/gadgets/sha256.h"

#define CHILD_BITS 256

/* out[8 i + j] = in[8 i + 7 - j]: little-endian bit order <-> bellpepper's bytes. */
static void reverse_bytes_bits(bool_var *out, const bool_var *in, size_t nbits)
{
    for (size_t i = 0; i < nbits; i++) out[i] = in[(i & ~(size_t)7) + 7 - (i & 7)];
}

static num_var sha256_node(cs_t *cs, void *ctx, const num_var *children, unsigned arity,
                           size_t height)
{
    (void)ctx, (void)height;
    bool_var message[POR_MAX_ARITY * CHILD_BITS], le[CHILD_BITS];
    for (unsigned i = 0; i < arity; i++) {
        num_to_bits_le(cs, le, &children[i]);
        le[FR_NUM_BITS] = bool_const(false);
        reverse_bytes_bits(&message[i * CHILD_BITS], le, CHILD_BITS);
    }
    bool_var digest[256], digest_le[256];
    sha256_gadget(cs, digest, message, (size_t)arity * CHILD_BITS);
    reverse_bytes_bits(digest_le, digest, 256);
    return multipack_pack_bits(cs, digest_le, FR_CAPACITY);
}

por_hasher por_sha256_hasher(void)
{
    return (por_hasher){sha256_node, NULL};
}
