/*
 * sha256.c - bellpepper's SHA-256 circuit.
 *
 * The message schedule and the 64 rounds are the textbook ones over
 * UInt32 gadgets, in bellpepper's order of operations. Like bellpepper,
 * the additions that produce the next a and e are deferred: a round only
 * records the operands (temp1 + temp2, temp1 + d) and the next round adds
 * them with one addmany when it first reads the value, and the last a and
 * e are added together with the incoming state words. All additions of one
 * compression share one MultiEq, whose last batch is emitted at the end.
 */
#include "cuzk/gadgets/sha256.h"

#include <openssl/sha.h>
#include <string.h>

/* FIPS 180-4, 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
static const uint32_t round_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* FIPS 180-4, 5.3.3: the first 32 bits of the fractional parts of the
 * square roots of the first 8 primes. */
static const uint32_t iv_words[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

void sha256_gadget_iv(u32_var iv[8])
{
    for (int i = 0; i < 8; i++) u32_const(&iv[i], iv_words[i]);
}

/* bellpepper's Maybe: a word already computed, or the operands of its sum.
 * At most 7 deferred operands plus one state word at the end. */
typedef struct maybe {
    size_t n; /* 0: concrete, value in ops[0] */
    u32_var ops[8];
} maybe;

static void maybe_concrete(maybe *m, const u32_var *v)
{
    m->n = 0;
    m->ops[0] = *v;
}

/* Maybe::compute(others): the value, adding the deferred operands and
 * `extra` (may be NULL) with one addmany. */
static void maybe_compute(multieq *me, u32_var *out, maybe *m, const u32_var *extra)
{
    if (m->n == 0) {
        *out = m->ops[0];
        return;
    }
    size_t n = m->n;
    if (extra) m->ops[n++] = *extra;
    u32_addmany(me, out, m->ops, n);
}

/* sigma(x) = rotr(x, r1) xor rotr(x, r2) xor (shift ? shr : rotr)(x, r3) */
static void sigma(cs_t *cs, u32_var *r, const u32_var *x, unsigned r1, unsigned r2, unsigned r3,
                  int shift)
{
    u32_var t, u;
    u32_rotr(&t, x, r1);
    u32_rotr(&u, x, r2);
    u32_xor(cs, &t, &t, &u);
    if (shift)
        u32_shr(&u, x, r3);
    else
        u32_rotr(&u, x, r3);
    u32_xor(cs, r, &t, &u);
}

static void schedule(cs_t *cs, multieq *me, u32_var w[64], const bool_var input[512])
{
    for (int i = 0; i < 16; i++) u32_from_bits_be(&w[i], input + 32 * i);
    for (int i = 16; i < 64; i++) {
        u32_var ops[4];
        ops[0] = w[i - 16];
        sigma(cs, &ops[1], &w[i - 15], 7, 18, 3, 1);
        ops[2] = w[i - 7];
        sigma(cs, &ops[3], &w[i - 2], 17, 19, 10, 1);
        u32_addmany(me, &w[i], ops, 4);
    }
}

/* Working variables: a and e deferred, the others concrete. */
typedef struct rounds_state {
    maybe a, e;
    u32_var b, c, d, f, g, h;
} rounds_state;

static void round_fn(cs_t *cs, multieq *me, rounds_state *s, const u32_var *w, uint32_t k)
{
    u32_var new_e, new_a, temp1[5], temp2[2];
    maybe_compute(me, &new_e, &s->e, NULL);
    temp1[0] = s->h;
    sigma(cs, &temp1[1], &new_e, 6, 11, 25, 0);
    u32_sha256_ch(cs, &temp1[2], &new_e, &s->f, &s->g);
    u32_const(&temp1[3], k);
    temp1[4] = *w;
    maybe_compute(me, &new_a, &s->a, NULL);
    sigma(cs, &temp2[0], &new_a, 2, 13, 22, 0);
    u32_sha256_maj(cs, &temp2[1], &new_a, &s->b, &s->c);

    s->h = s->g, s->g = s->f, s->f = new_e;
    memcpy(s->e.ops, temp1, sizeof(temp1));
    s->e.ops[5] = s->d, s->e.n = 6;
    s->d = s->c, s->c = s->b, s->b = new_a;
    memcpy(s->a.ops, temp1, sizeof(temp1));
    memcpy(s->a.ops + 5, temp2, sizeof(temp2));
    s->a.n = 7;
}

/* h_i := state_i + word, in bellpepper's order of the final additions. */
static void add_state(multieq *me, u32_var out[8], const u32_var state[8], rounds_state *s)
{
    u32_var r[8], pair[2];
    const u32_var *plain[8] = {NULL, &s->b, &s->c, &s->d, NULL, &s->f, &s->g, &s->h};
    for (int i = 0; i < 8; i++) {
        if (i == 0 || i == 4) {
            maybe_compute(me, &r[i], i == 0 ? &s->a : &s->e, &state[i]);
            continue;
        }
        pair[0] = state[i], pair[1] = *plain[i];
        u32_addmany(me, &r[i], pair, 2);
    }
    memcpy(out, r, sizeof(r));
}

void sha256_gadget_compress(cs_t *cs, u32_var out[8], const bool_var input[512],
                            const u32_var state[8])
{
    u32_var w[64];
    multieq me;
    multieq_init(&me, cs);
    schedule(cs, &me, w, input);
    rounds_state s;
    maybe_concrete(&s.a, &state[0]);
    s.b = state[1], s.c = state[2], s.d = state[3];
    maybe_concrete(&s.e, &state[4]);
    s.f = state[5], s.g = state[6], s.h = state[7];
    for (int i = 0; i < 64; i++) round_fn(cs, &me, &s, &w[i], round_k[i]);
    add_state(&me, out, state, &s);
    multieq_finish(&me);
}

static void state_bits(bool_var out[256], const u32_var state[8])
{
    for (int i = 0; i < 8; i++) u32_into_bits_be(out + 32 * i, &state[i]);
}

void sha256_gadget_block(cs_t *cs, bool_var out[256], const bool_var input[512])
{
    u32_var state[8];
    sha256_gadget_iv(state);
    sha256_gadget_compress(cs, state, input, state);
    state_bits(out, state);
}

/* Bit p of the padded message: the input, a one, zeros, the 64-bit length. */
static bool_var padded_bit(const bool_var *input, size_t nbits, size_t total, size_t p)
{
    if (p < nbits) return input[p];
    if (p == nbits) return bool_const(1);
    if (p < total - 64) return bool_const(0);
    return bool_const(((uint64_t)nbits >> (63 - (p - (total - 64)))) & 1);
}

int sha256_gadget(cs_t *cs, bool_var out[256], const bool_var *input, size_t nbits)
{
    if (nbits % 8)
        return cs_fail(cs, CUZK_EINVAL, "sha256 gadget: %zu bits is not whole bytes", nbits);
    size_t total = (nbits + 1 + 64 + 511) / 512 * 512;
    u32_var state[8];
    bool_var block[512];
    sha256_gadget_iv(state);
    for (size_t b = 0; b < total / 512 && !cs_status(cs); b++) {
        for (size_t i = 0; i < 512; i++) block[i] = padded_bit(input, nbits, total, 512 * b + i);
        sha256_gadget_compress(cs, state, block, state);
    }
    state_bits(out, state);
    return cs_status(cs);
}

void sha256_native(uint8_t out[32], const void *data, size_t len)
{
    SHA256(data, len, out);
}
