/*
 * hash.c - the Poseidon permutation out of circuit, two ways that must
 * agree (tests check it):
 *
 * - poseidon_hash_plain: the textbook permutation (neptune's Correct mode):
 *   RF/2 full rounds, RP partial rounds, RF/2 full rounds; each adds the
 *   round's t keys, applies x^5 (to every element, or to element 0 in a
 *   partial round) and multiplies by the MDS matrix.
 * - poseidon_hash: neptune's OptimizedStatic mode on the preprocessed
 *   constants: the first keys are added up front, every S-box is followed
 *   by one compressed key (none after the last round), the last initial
 *   full round multiplies by the pre-sparse matrix and each partial round
 *   by its sparse matrix (2t - 1 multiplications instead of t^2).
 *
 * Products are the state as a row vector times the matrix (poseidon.h).
 * The field operations are field_inline.h's (no call per multiplication).
 */
#include "cuzk/poseidon.h"

#include <string.h>

#include "ff/field_inline.h"
#include "poseidon/lanes.h"

static inline void sbox(fr_t *x)
{
    fr_t x2, x4;
    fr_sqr_inline(&x2, x);
    fr_sqr_inline(&x4, &x2);
    fr_mul_inline(x, x, &x4);
}

static void product_dense(fr_t *s, const fr_t *m, size_t t)
{
    fr_t out[POSEIDON_MAX_WIDTH], tmp;
    for (size_t j = 0; j < t; j++) {
        fr_mul_inline(&out[j], &m[j], &s[0]);
        for (size_t i = 1; i < t; i++) {
            fr_mul_inline(&tmp, &m[i * t + j], &s[i]);
            fr_add_inline(&out[j], &out[j], &tmp);
        }
    }
    memcpy(s, out, t * sizeof(fr_t));
}

/* Sparse M'': s'[0] = sum_i w_hat[i] s[i]; s'[j] = s[j] + v_rest[j-1] s[0]. */
static void product_sparse(fr_t *s, const fr_t *w_hat, const fr_t *v_rest, size_t t)
{
    fr_t s0, tmp;
    fr_mul_inline(&s0, &w_hat[0], &s[0]);
    for (size_t i = 1; i < t; i++) {
        fr_mul_inline(&tmp, &w_hat[i], &s[i]);
        fr_add_inline(&s0, &s0, &tmp);
    }
    for (size_t j = 1; j < t; j++) {
        fr_mul_inline(&tmp, &v_rest[j - 1], &s[0]);
        fr_add_inline(&s[j], &s[j], &tmp);
    }
    s[0] = s0;
}

static void load_state(fr_t *s, const poseidon_constants *c, const fr_t *preimage)
{
    s[0] = c->domain_tag;
    memcpy(&s[1], preimage, c->arity * sizeof(fr_t));
}

/* The optimized permutation's start: the state with the first keys
 * added; the keys that follow. */
static const fr_t *load_keyed(fr_t *s, const poseidon_constants *c, const fr_t *preimage)
{
    const fr_t *k = c->compressed_constants;
    load_state(s, c, preimage);
    for (size_t i = 0; i < c->width; i++) fr_add_inline(&s[i], &s[i], &k[i]);
    return k + c->width;
}

/* ---- optimized ---- */

/* S-boxes of a full round, each followed by its key (keys NULL: none). */
static void full_sboxes(fr_t *s, const fr_t *keys, size_t t)
{
    for (size_t i = 0; i < t; i++) {
        sbox(&s[i]);
        if (keys) fr_add_inline(&s[i], &s[i], &keys[i]);
    }
}

void poseidon_hash(fr_t *out, const poseidon_constants *c, const fr_t *preimage)
{
    size_t t = c->width, half = c->half_full_rounds, rp = c->partial_rounds;
    fr_t s[POSEIDON_MAX_WIDTH];
    const fr_t *k = load_keyed(s, c, preimage);
    for (size_t r = 0; r < half; r++, k += t) {
        full_sboxes(s, k, t);
        product_dense(s, r + 1 == half ? c->pre_sparse : c->mds, t);
    }
    for (size_t r = 0; r < rp; r++, k++) {
        sbox(&s[0]);
        fr_add_inline(&s[0], &s[0], k);
        product_sparse(s, &c->sparse_w_hat[r * t], &c->sparse_v_rest[r * (t - 1)], t);
    }
    for (size_t r = 0; r + 1 < half; r++, k += t) {
        full_sboxes(s, k, t);
        product_dense(s, c->mds, t);
    }
    full_sboxes(s, NULL, t);
    product_dense(s, c->mds, t);
    *out = s[1];
}

/* ---- traced (the circuit's values) ---- */

/* 3 values per S-box but the tag's first; an input per S-box outside the
 * first round; the output. */
size_t poseidon_trace_len(const poseidon_constants *c)
{
    size_t sboxes = (size_t)c->width * c->full_rounds + c->partial_rounds - 1;
    size_t inputs = (size_t)c->width * c->full_rounds + c->partial_rounds - c->arity - 1;
    return 3 * sboxes + inputs + 1;
}

/* x := x^5 + key (key may be NULL), recording [x if asked], x^2, x^4, x. */
static fr_t *trace_sbox(fr_t *out, fr_t *x, bool input, const fr_t *key)
{
    if (input) *out++ = *x;
    fr_sqr_inline(&out[0], x);
    fr_sqr_inline(&out[1], &out[0]);
    fr_mul_inline(x, x, &out[1]);
    if (key) fr_add_inline(x, x, key);
    out[2] = *x;
    return out + 3;
}

void poseidon_trace(fr_t *out, const poseidon_constants *c, const fr_t *preimage)
{
    size_t t = c->width, half = c->half_full_rounds, rp = c->partial_rounds;
    fr_t s[POSEIDON_MAX_WIDTH];
    const fr_t *k = load_keyed(s, c, preimage);
    sbox(&s[0]); /* the tag's: a constant in the circuit */
    fr_add_inline(&s[0], &s[0], &k[0]);
    for (size_t i = 1; i < t; i++) out = trace_sbox(out, &s[i], false, &k[i]);
    k += t;
    product_dense(s, half == 1 ? c->pre_sparse : c->mds, t);
    for (size_t r = 1; r < half; r++, k += t) {
        for (size_t i = 0; i < t; i++) out = trace_sbox(out, &s[i], true, &k[i]);
        product_dense(s, r + 1 == half ? c->pre_sparse : c->mds, t);
    }
    for (size_t r = 0; r < rp; r++, k++) {
        out = trace_sbox(out, &s[0], true, k);
        product_sparse(s, &c->sparse_w_hat[r * t], &c->sparse_v_rest[r * (t - 1)], t);
    }
    for (size_t r = 0; r + 1 < half; r++, k += t) {
        for (size_t i = 0; i < t; i++) out = trace_sbox(out, &s[i], true, &k[i]);
        product_dense(s, c->mds, t);
    }
    for (size_t i = 0; i < t; i++) out = trace_sbox(out, &s[i], true, NULL);
    product_dense(s, c->mds, t);
    *out = s[1];
}

void poseidon_trace_lanes(fr_t *const *out, const poseidon_constants *c, const fr_t *in, size_t n)
{
    if (!poseidon_lanes_on()) {
        for (size_t i = 0; i < n; i++) poseidon_trace(out[i], c, &in[i * c->arity]);
        return;
    }
    poseidon_lanes_trace(out, c, in, n);
}

void poseidon_trace_batch(fr_t *out, const poseidon_constants *c, const fr_t *in, size_t n)
{
    size_t len = poseidon_trace_len(c);
    for (size_t i = 0; i < n; i += POSEIDON_LANES) {
        size_t k = n - i < POSEIDON_LANES ? n - i : POSEIDON_LANES;
        fr_t *to[POSEIDON_LANES];
        for (size_t j = 0; j < k; j++) to[j] = &out[(i + j) * len];
        poseidon_trace_lanes(to, c, &in[i * c->arity], k);
    }
}

/* ---- plain ---- */

static void add_keys(fr_t *s, const fr_t *keys, size_t t)
{
    for (size_t i = 0; i < t; i++) fr_add_inline(&s[i], &s[i], &keys[i]);
}

void poseidon_hash_plain(fr_t *out, const poseidon_constants *c, const fr_t *preimage)
{
    size_t t = c->width, half = c->half_full_rounds;
    const fr_t *k = c->round_constants;
    fr_t s[POSEIDON_MAX_WIDTH];
    load_state(s, c, preimage);
    for (size_t r = 0; r < c->full_rounds + c->partial_rounds; r++, k += t) {
        add_keys(s, k, t);
        bool full = r < half || r >= half + c->partial_rounds;
        for (size_t i = 0; i < (full ? t : 1); i++) sbox(&s[i]);
        product_dense(s, c->mds, t);
    }
    *out = s[1];
}

/* ---- batches ---- */

bool poseidon_lanes_active(void)
{
    return poseidon_lanes_on();
}

void poseidon_hash_batch(fr_t *out, const poseidon_constants *c, const fr_t *in, size_t n)
{
    if (!poseidon_lanes_on()) {
        for (size_t i = 0; i < n; i++) poseidon_hash(&out[i], c, &in[i * c->arity]);
        return;
    }
    for (size_t i = 0; i < n; i += POSEIDON_LANES) {
        size_t k = n - i < POSEIDON_LANES ? n - i : POSEIDON_LANES;
        poseidon_lanes_hash(&out[i], c, &in[i * c->arity], k);
    }
}

void poseidon_hash_many(fr_t *out, const poseidon_constants *c, const fr_t *in, size_t n)
{
    /* Static chunks of whole lane groups: every hash costs the same. */
    size_t groups = (n + POSEIDON_LANES - 1) / POSEIDON_LANES;
#pragma omp parallel for schedule(static)
    for (size_t g = 0; g < groups; g++) {
        size_t i = g * POSEIDON_LANES, k = n - i < POSEIDON_LANES ? n - i : POSEIDON_LANES;
        poseidon_hash_batch(&out[i], c, &in[i * c->arity], k);
    }
}

/* ---- hash_md ---- */

int poseidon_hash_md(fr_t *out, const fr_t *in, size_t n)
{
    if (n < 2) return CUZK_EINVAL;
    const poseidon_constants *c = poseidon_std(POSEIDON_MD_ARITY);
    fr_t pre[POSEIDON_MD_ARITY];
    fr_t acc = in[0];
    for (size_t i = 1; i < n; i += POSEIDON_MD_ARITY - 1) {
        size_t k = n - i < POSEIDON_MD_ARITY - 1 ? n - i : POSEIDON_MD_ARITY - 1;
        pre[0] = acc;
        memcpy(&pre[1], &in[i], k * sizeof(fr_t));
        for (size_t j = k + 1; j < POSEIDON_MD_ARITY; j++) pre[j] = FR_ZERO;
        poseidon_hash(&acc, c, pre);
    }
    *out = acc;
    return 0;
}
