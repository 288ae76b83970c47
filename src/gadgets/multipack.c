/*
 * multipack.c - bellpepper's multipack, bytes_to_bits and pack_bits.
 *
 * A chunk's combination is sum_j 2^j * bit_j, built the way Num's
 * add_bool_with_coeff builds it (constants and negated bits bring ONE
 * terms), and enforced as (combination) * ONE = packed variable.
 */
#include "cuzk/gadgets/multipack.h"

void multipack_bytes_to_bits(bool *out, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < 8 * n; i++) out[i] = (bytes[i / 8] >> (7 - i % 8)) & 1;
}

void multipack_bytes_to_bits_le(bool *out, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < 8 * n; i++) out[i] = (bytes[i / 8] >> (i % 8)) & 1;
}

size_t multipack_compute(fr_t *out, const bool *bits, size_t nbits)
{
    size_t n = MULTIPACK_LEN(nbits);
    for (size_t i = 0; i < n; i++) {
        out[i] = FR_ZERO;
        for (size_t j = 0; j < FR_CAPACITY && FR_CAPACITY * i + j < nbits; j++)
            if (bits[FR_CAPACITY * i + j]) fr_add(&out[i], &out[i], fr_pow2(j));
    }
    return n;
}

/* lc := sum_j 2^j bits[j] (j < n <= 254), unless cs does not read
 * constraints; *value := its value. */
static void chunk_lc(cs_t *cs, cs_lc *lc, fr_t *value, const bool_var *bits, size_t n)
{
    bool build = cs_needs_constraints(cs);
    *value = FR_ZERO;
    for (size_t j = 0; j < n; j++) {
        if (build) bool_lc_add(lc, bits[j], fr_pow2(j));
        if (bits[j].value) fr_add(value, value, fr_pow2(j));
    }
}

/* lc * ONE = v */
static void enforce_packed(cs_t *cs, const cs_lc *lc, cs_var v)
{
    if (cs_skip_constraint(cs)) return;
    cs_lc one = {0}, c = {0};
    lc_add_var(&one, cs_one());
    lc_add_var(&c, v);
    cs_enforce(cs, lc, &one, &c);
    lc_free(&c);
}

void multipack_pack_into_inputs(cs_t *cs, const bool_var *bits, size_t nbits)
{
    cs_lc lc = {0};
    for (size_t start = 0; start < nbits; start += FR_CAPACITY) {
        size_t n = nbits - start < FR_CAPACITY ? nbits - start : FR_CAPACITY;
        fr_t value;
        lc_clear(&lc);
        chunk_lc(cs, &lc, &value, bits + start, n);
        cs_var input = cs_alloc_input(cs, &value);
        enforce_packed(cs, &lc, input);
    }
    lc_free(&lc);
}

num_var multipack_pack_bits(cs_t *cs, const bool_var *bits, size_t nbits)
{
    cs_lc lc = {0};
    fr_t value;
    chunk_lc(cs, &lc, &value, bits, nbits < FR_CAPACITY ? nbits : FR_CAPACITY);
    num_var r = num_alloc(cs, &value);
    enforce_packed(cs, &lc, r.var);
    lc_free(&lc);
    return r;
}
