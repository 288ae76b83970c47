/*
 * hash_lanes.c - Poseidon (neptune's OptimizedStatic, as hash.c's
 * poseidon_hash) on eight independent inputs at once, one per 64-bit lane
 * of AVX-512 registers, multiplying with IFMA (vpmadd52luq/huq: the low
 * and high 52 bits of a 52 x 52-bit product added to a 64-bit lane).
 *
 * Representation: an element is 5 limbs of 52 bits in the Montgomery form
 * of R = 2^260 (x R mod r). Products are accumulated unreduced in 10 limbs
 * (each limb takes at most 10 partial products per multiplication, far
 * below 2^64) and reduced once: a dot product of t terms costs t products
 * and one reduction, and the MDS products are nothing but dot products.
 * Values are kept below 3r, never fully reduced, which R = 2^260 > 32 r
 * allows: a reduction of T gives T / R + r' with r' < r, so
 *   - a product of two values below 3r is below 9 r^2 / R + r < 1.3 r;
 *   - a dot product of t <= LANES_MAX_WIDTH values below 3r with
 *     constants below r is below 3 t r^2 / R + r < 2.03 r;
 *   - S-box outputs (products) plus a round key (below r) stay below 3r;
 *   - the sparse rounds' s[j] + v_j s[0] is brought back below 2r by one
 *     conditional subtraction of 2r.
 * Multiplicands must have limbs below 2^52 (IFMA reads 52 bits), so every
 * sum is normalised (carries propagated) before it is multiplied.
 * Conversions: an fr_t (x 2^256) times 16 is x 2^260; the output, below
 * 2.03 r, is reduced and divided by 16 with one scalar multiplication.
 * A trace (poseidon_lanes_trace) converts each value it records in the
 * lanes: a product with 2^256 mod r (x 2^260 -> x 2^256, below 1.3 r),
 * one conditional subtraction of r, and the 52-bit limbs repacked.
 *
 * Widths above LANES_MAX_WIDTH (arity 11 and below are the ones Filecoin
 * batches) fall back to poseidon_hash, as does a CPU without IFMA. The
 * functions using the instructions carry the target attribute; nothing
 * else in the file is compiled for AVX-512.
 */
#include "poseidon/lanes.h"

#include <stdlib.h>
#include <string.h>

#define M52 ((UINT64_C(1) << 52) - 1)
/* r / R < 0.0284, so a width-12 dot product stays below 2.03 r < 2^256 (from_lane's 4 limbs) and
 * below 3r (a multiplicand); arities 1..11. */
#define LANES_MAX_WIDTH 12

/* One element, 5 x 52-bit limbs, x 2^260 mod r. */
typedef struct lane_fe {
    uint64_t l[5];
} lane_fe;

/* c's preprocessed constants in lane form. */
struct poseidon_lanes {
    lane_fe *keys;       /* compressed_constants */
    lane_fe *mds;        /* t * t */
    lane_fe *pre_sparse; /* t * t */
    lane_fe *w_hat;      /* RP * t */
    lane_fe *v_rest;     /* RP * (t - 1) */
};

static lane_fe split52(const uint64_t v[4])
{
    return (lane_fe){{v[0] & M52, (v[0] >> 52 | v[1] << 12) & M52, (v[1] >> 40 | v[2] << 24) & M52,
                      (v[2] >> 28 | v[3] << 36) & M52, v[3] >> 16}};
}

/* x (Montgomery form x 2^256) as x 2^260: times 16 mod r. */
static lane_fe to_lane(const fr_t *x)
{
    fr_t v = *x;
    for (int i = 0; i < 4; i++) fr_dbl(&v, &v);
    return split52(v.l);
}

static bool geq_modulus(const uint64_t v[4])
{
    for (int i = 3; i >= 0; i--)
        if (v[i] != FR_MODULUS[i]) return v[i] > FR_MODULUS[i];
    return true;
}

/* A lane value below 3r and 2^256 (x 2^260) back to an fr_t (x 2^256). */
static void from_lane(fr_t *out, const uint64_t l[5])
{
    fr_t v = {{l[0] | l[1] << 52, l[1] >> 12 | l[2] << 40, l[2] >> 24 | l[3] << 28,
               l[3] >> 36 | l[4] << 16}};
    while (geq_modulus(v.l)) {
        unsigned __int128 borrow = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 d = (unsigned __int128)v.l[i] - FR_MODULUS[i] - borrow;
            v.l[i] = (uint64_t)d;
            borrow = (d >> 64) & 1;
        }
    }
    static const fr_t sixteenth = {{0, 0, 0, UINT64_C(1) << 60}}; /* 2^252: a 2^252 / 2^256 */
    fr_mul(out, &v, &sixteenth);
}

static lane_fe *convert(const fr_t *in, size_t n)
{
    lane_fe *out = malloc((n ? n : 1) * sizeof *out);
    if (out)
        for (size_t i = 0; i < n; i++) out[i] = to_lane(&in[i]);
    return out;
}

void poseidon_lanes_free(poseidon_constants *c)
{
    struct poseidon_lanes *L = c->lanes;
    if (!L) return;
    free(L->keys);
    free(L->mds);
    free(L->pre_sparse);
    free(L->w_hat);
    free(L->v_rest);
    free(L);
    c->lanes = NULL;
}

#if defined(__x86_64__) && defined(__GNUC__)

#include <immintrin.h>

/* The functions using the instructions; the permutation is register
 * arithmetic, left out of address checks (under ASAN its spilled vectors
 * made the native checks 2.5x slower than the scalar hash), its loads and
 * stores are not. */
#define LANES_FN  __attribute__((target("avx512f,avx512ifma")))
#define LANES_HOT __attribute__((target("avx512f,avx512ifma"), no_sanitize_address))
#define VEC       static inline LANES_HOT __attribute__((always_inline))

typedef struct vfe {
    __m512i l[5];
} vfe;

/* A sum of products, 10 limbs unreduced. */
typedef struct vacc {
    __m512i t[10];
} vacc;

static lane_fe modulus52, two_modulus52, one52; /* one52: 2^256 mod r, FR_ONE's limbs */
static uint64_t minv52;                         /* -r^-1 mod 2^52 */
static int lanes_state;                         /* 1: poseidon_hash_batch uses the lanes */

static bool cpu_has_lanes(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
}

/* The modulus in lane form and the CPU's answer, once at start-up (as cpu_x86.c). */
__attribute__((constructor)) static void init_lanes(void)
{
    uint64_t two[4], carry = 0;
    for (int i = 0; i < 4; i++) {
        two[i] = FR_MODULUS[i] << 1 | carry;
        carry = FR_MODULUS[i] >> 63;
    }
    modulus52 = split52(FR_MODULUS);
    two_modulus52 = split52(two);
    one52 = split52(FR_ONE.l);
    uint64_t inv = 1; /* Newton: inv = r^-1 mod 2^64 */
    for (int i = 0; i < 6; i++) inv *= 2 - FR_MODULUS[0] * inv;
    minv52 = (0 - inv) & M52;
    lanes_state = cpu_has_lanes();
}

bool poseidon_lanes_on(void)
{
    return __atomic_load_n(&lanes_state, __ATOMIC_RELAXED);
}

bool poseidon_use_lanes(bool on)
{
    int s = on && cpu_has_lanes();
    __atomic_store_n(&lanes_state, s, __ATOMIC_RELAXED);
    return s;
}

int poseidon_lanes_build(poseidon_constants *c)
{
    c->lanes = NULL;
    if (c->width > LANES_MAX_WIDTH) return 0;
    struct poseidon_lanes *L = calloc(1, sizeof *L);
    if (!L) return CUZK_ENOMEM;
    c->lanes = L;
    size_t t = c->width, rf = c->full_rounds, rp = c->partial_rounds;
    L->keys = convert(c->compressed_constants, rf * t + rp);
    L->mds = convert(c->mds, t * t);
    L->pre_sparse = convert(c->pre_sparse, t * t);
    L->w_hat = convert(c->sparse_w_hat, rp * t);
    L->v_rest = convert(c->sparse_v_rest, rp * (t - 1));
    if (L->keys && L->mds && L->pre_sparse && L->w_hat && L->v_rest) return 0;
    poseidon_lanes_free(c);
    return CUZK_ENOMEM;
}

/* ---- arithmetic on 8 lanes ---- */

VEC __m512i bc(uint64_t x)
{
    return _mm512_set1_epi64((long long)x);
}

VEC void acc_clear(vacc *a)
{
#pragma GCC unroll 10
    for (int k = 0; k < 10; k++) a->t[k] = _mm512_setzero_si512();
}

/* a += x y, y the same constant in every lane. */
VEC void acc_mul_const(vacc *a, const vfe *x, const lane_fe *y)
{
#pragma GCC unroll 10
    for (int i = 0; i < 5; i++) {
        __m512i yi = bc(y->l[i]);
#pragma GCC unroll 10
        for (int j = 0; j < 5; j++) {
            a->t[i + j] = _mm512_madd52lo_epu64(a->t[i + j], x->l[j], yi);
            a->t[i + j + 1] = _mm512_madd52hi_epu64(a->t[i + j + 1], x->l[j], yi);
        }
    }
}

VEC void acc_mul(vacc *a, const vfe *x, const vfe *y)
{
#pragma GCC unroll 10
    for (int i = 0; i < 5; i++)
#pragma GCC unroll 10
        for (int j = 0; j < 5; j++) {
            a->t[i + j] = _mm512_madd52lo_epu64(a->t[i + j], x->l[j], y->l[i]);
            a->t[i + j + 1] = _mm512_madd52hi_epu64(a->t[i + j + 1], x->l[j], y->l[i]);
        }
}

/* out = a / 2^260 mod r, below a / 2^260 + r, normalised. Row i adds q r
 * with q = a_i (-r^-1) mod 2^52, which clears limb i's low 52 bits, and
 * carries the rest of limb i into limb i + 1. */
VEC void acc_reduce(vfe *out, vacc *a)
{
    __m512i minv = bc(minv52), mask = bc(M52);
#pragma GCC unroll 10
    for (int i = 0; i < 5; i++) {
        __m512i q = _mm512_madd52lo_epu64(_mm512_setzero_si512(), a->t[i], minv);
#pragma GCC unroll 10
        for (int j = 0; j < 5; j++) {
            __m512i pj = bc(modulus52.l[j]);
            a->t[i + j] = _mm512_madd52lo_epu64(a->t[i + j], q, pj);
            a->t[i + j + 1] = _mm512_madd52hi_epu64(a->t[i + j + 1], q, pj);
        }
        a->t[i + 1] = _mm512_add_epi64(a->t[i + 1], _mm512_srli_epi64(a->t[i], 52));
    }
#pragma GCC unroll 10
    for (int k = 5; k < 9; k++) {
        a->t[k + 1] = _mm512_add_epi64(a->t[k + 1], _mm512_srli_epi64(a->t[k], 52));
        out->l[k - 5] = _mm512_and_si512(a->t[k], mask);
    }
    out->l[4] = a->t[9];
}

VEC void vmul(vfe *out, const vfe *x, const vfe *y)
{
    vacc a;
    acc_clear(&a);
    acc_mul(&a, x, y);
    acc_reduce(out, &a);
}

VEC void vmul_const(vfe *out, const vfe *x, const lane_fe *y)
{
    vacc a;
    acc_clear(&a);
    acc_mul_const(&a, x, y);
    acc_reduce(out, &a);
}

/* Carries of limbs 0..3 into the next (signed: arithmetic shifts). */
VEC void normalise(vfe *x)
{
    __m512i mask = bc(M52);
#pragma GCC unroll 10
    for (int k = 0; k < 4; k++) {
        x->l[k + 1] = _mm512_add_epi64(x->l[k + 1], _mm512_srai_epi64(x->l[k], 52));
        x->l[k] = _mm512_and_si512(x->l[k], mask);
    }
}

/* x += k (a constant), normalised. */
VEC void add_const(vfe *x, const lane_fe *k)
{
#pragma GCC unroll 10
    for (int i = 0; i < 5; i++) x->l[i] = _mm512_add_epi64(x->l[i], bc(k->l[i]));
    normalise(x);
}

/* x - m where that stays non-negative (m: the modulus or twice it). */
VEC void sub_if_nonneg(vfe *x, const lane_fe *m)
{
    vfe d;
#pragma GCC unroll 10
    for (int i = 0; i < 5; i++) d.l[i] = _mm512_sub_epi64(x->l[i], bc(m->l[i]));
    normalise(&d);
    __mmask8 neg = _mm512_cmplt_epi64_mask(d.l[4], _mm512_setzero_si512());
#pragma GCC unroll 10
    for (int i = 0; i < 5; i++) x->l[i] = _mm512_mask_blend_epi64(neg, d.l[i], x->l[i]);
}

/* x += y for x, y below 2r, then minus 2r where that stays non-negative: below 2r. */
VEC void add_mod2r(vfe *x, const vfe *y)
{
#pragma GCC unroll 10
    for (int i = 0; i < 5; i++) x->l[i] = _mm512_add_epi64(x->l[i], y->l[i]);
    normalise(x);
    sub_if_nonneg(x, &two_modulus52);
}

VEC void sbox(vfe *x)
{
    vfe x2, x4;
    vmul(&x2, x, x);
    vmul(&x4, &x2, &x2);
    vmul(x, x, &x4);
}

/* ---- the rounds (hash.c's poseidon_hash, lane by lane) ---- */

VEC void product_dense(vfe *s, const lane_fe *m, size_t t)
{
    vfe out[LANES_MAX_WIDTH];
    for (size_t j = 0; j < t; j++) {
        vacc a;
        acc_clear(&a);
        for (size_t i = 0; i < t; i++) acc_mul_const(&a, &s[i], &m[i * t + j]);
        acc_reduce(&out[j], &a);
    }
    memcpy(s, out, t * sizeof *s);
}

VEC void product_sparse(vfe *s, const lane_fe *w_hat, const lane_fe *v_rest, size_t t)
{
    vacc a;
    acc_clear(&a);
    for (size_t i = 0; i < t; i++) acc_mul_const(&a, &s[i], &w_hat[i]);
    for (size_t j = 1; j < t; j++) {
        vfe p;
        vmul_const(&p, &s[0], &v_rest[j - 1]);
        add_mod2r(&s[j], &p);
    }
    acc_reduce(&s[0], &a);
}

VEC void full_sboxes(vfe *s, const lane_fe *keys, size_t t)
{
    for (size_t i = 0; i < t; i++) {
        sbox(&s[i]);
        if (keys) add_const(&s[i], &keys[i]);
    }
}

LANES_HOT static void permute(vfe *s, const poseidon_constants *c, const struct poseidon_lanes *L)
{
    size_t t = c->width, half = c->half_full_rounds, rp = c->partial_rounds;
    const lane_fe *k = L->keys;
    for (size_t i = 0; i < t; i++) add_const(&s[i], &k[i]);
    k += t;
    for (size_t r = 0; r < half; r++, k += t) {
        full_sboxes(s, k, t);
        product_dense(s, r + 1 == half ? L->pre_sparse : L->mds, t);
    }
    for (size_t r = 0; r < rp; r++, k++) {
        sbox(&s[0]);
        add_const(&s[0], k);
        product_sparse(s, &L->w_hat[r * t], &L->v_rest[r * (t - 1)], t);
    }
    for (size_t r = 0; r + 1 < half; r++, k += t) {
        full_sboxes(s, k, t);
        product_dense(s, L->mds, t);
    }
    full_sboxes(s, NULL, t);
    product_dense(s, L->mds, t);
}

/* ---- traced (poseidon_trace's values, lane by lane) ---- */

/* Where the next recorded value of each of n hashes goes: hash k's trace
 * at out[k], value `at`. */
typedef struct vtrace {
    fr_t *const *out;
    size_t at, n;
} vtrace;

/* x (below 3r, x 2^260) recorded as each lane's fr_t (x 2^256, below r). */
LANES_HOT static void record(vtrace *t, const vfe *x)
{
    vfe v;
    vmul_const(&v, x, &one52); /* x 2^260 2^256 / 2^260: below 1.3 r */
    sub_if_nonneg(&v, &modulus52);
    uint64_t limb[5][POSEIDON_LANES];
    for (int i = 0; i < 5; i++) _mm512_storeu_si512(limb[i], v.l[i]);
    for (size_t k = 0; k < t->n; k++) {
        uint64_t *o = t->out[k][t->at].l;
        o[0] = limb[0][k] | limb[1][k] << 52;
        o[1] = limb[1][k] >> 12 | limb[2][k] << 40;
        o[2] = limb[2][k] >> 24 | limb[3][k] << 28;
        o[3] = limb[3][k] >> 36 | limb[4][k] << 16;
    }
    t->at++;
}

/* sbox and its key, recording [x if input], x^2, x^4, x^5 + key. */
LANES_HOT static void trace_sbox(vtrace *t, vfe *x, bool input, const lane_fe *key)
{
    vfe x2, x4;
    if (input) record(t, x);
    vmul(&x2, x, x);
    record(t, &x2);
    vmul(&x4, &x2, &x2);
    record(t, &x4);
    vmul(x, x, &x4);
    if (key) add_const(x, key);
    record(t, x);
}

/* permute, recording poseidon_trace's values. */
LANES_HOT static void permute_traced(vfe *s, const poseidon_constants *c,
                                     const struct poseidon_lanes *L, vtrace *tr)
{
    size_t t = c->width, half = c->half_full_rounds, rp = c->partial_rounds;
    const lane_fe *k = L->keys;
    for (size_t i = 0; i < t; i++) add_const(&s[i], &k[i]);
    k += t;
    sbox(&s[0]); /* the tag's: a constant in the circuit */
    add_const(&s[0], &k[0]);
    for (size_t i = 1; i < t; i++) trace_sbox(tr, &s[i], false, &k[i]);
    k += t;
    product_dense(s, half == 1 ? L->pre_sparse : L->mds, t);
    for (size_t r = 1; r < half; r++, k += t) {
        for (size_t i = 0; i < t; i++) trace_sbox(tr, &s[i], true, &k[i]);
        product_dense(s, r + 1 == half ? L->pre_sparse : L->mds, t);
    }
    for (size_t r = 0; r < rp; r++, k++) {
        trace_sbox(tr, &s[0], true, k);
        product_sparse(s, &L->w_hat[r * t], &L->v_rest[r * (t - 1)], t);
    }
    for (size_t r = 0; r + 1 < half; r++, k += t) {
        for (size_t i = 0; i < t; i++) trace_sbox(tr, &s[i], true, &k[i]);
        product_dense(s, L->mds, t);
    }
    for (size_t i = 0; i < t; i++) trace_sbox(tr, &s[i], true, NULL);
    product_dense(s, L->mds, t);
    record(tr, &s[1]);
}

/* Element i of each lane's input (lanes past n: zero). */
LANES_FN static void load_element(vfe *v, const fr_t *elems, size_t stride, size_t n)
{
    uint64_t limb[5][POSEIDON_LANES] = {{0}};
    for (size_t k = 0; k < n; k++) {
        lane_fe x = to_lane(&elems[k * stride]);
        for (int i = 0; i < 5; i++) limb[i][k] = x.l[i];
    }
    for (int i = 0; i < 5; i++) v->l[i] = _mm512_loadu_si512(limb[i]);
}

/* The lanes' states: the domain tag, then each hash's preimage. */
LANES_FN static void load_states(vfe *s, const poseidon_constants *c, const fr_t *in, size_t n)
{
    fr_t tags[POSEIDON_LANES];
    for (size_t k = 0; k < n; k++) tags[k] = c->domain_tag;
    load_element(&s[0], tags, 1, n);
    for (size_t i = 0; i < c->arity; i++) load_element(&s[i + 1], in + i, c->arity, n);
}

LANES_FN void poseidon_lanes_hash(fr_t *out, const poseidon_constants *c, const fr_t *in, size_t n)
{
    const struct poseidon_lanes *L = c->lanes;
    if (!L) {
        for (size_t k = 0; k < n; k++) poseidon_hash(&out[k], c, &in[k * c->arity]);
        return;
    }
    vfe s[LANES_MAX_WIDTH];
    load_states(s, c, in, n);
    permute(s, c, L);
    uint64_t limb[5][POSEIDON_LANES];
    for (int i = 0; i < 5; i++) _mm512_storeu_si512(limb[i], s[1].l[i]);
    for (size_t k = 0; k < n; k++) {
        uint64_t x[5] = {limb[0][k], limb[1][k], limb[2][k], limb[3][k], limb[4][k]};
        from_lane(&out[k], x);
    }
}

LANES_FN void poseidon_lanes_trace(fr_t *const *out, const poseidon_constants *c, const fr_t *in,
                                   size_t n)
{
    const struct poseidon_lanes *L = c->lanes;
    if (!L) {
        for (size_t k = 0; k < n; k++) poseidon_trace(out[k], c, &in[k * c->arity]);
        return;
    }
    vfe s[LANES_MAX_WIDTH];
    load_states(s, c, in, n);
    vtrace tr = {out, 0, n};
    permute_traced(s, c, L, &tr);
}

#else /* no lanes: poseidon_hash_batch never calls them */

bool poseidon_lanes_on(void)
{
    return false;
}

bool poseidon_use_lanes(bool on)
{
    (void)on;
    return false;
}

int poseidon_lanes_build(poseidon_constants *c)
{
    (void)convert, (void)from_lane;
    c->lanes = NULL;
    return 0;
}

void poseidon_lanes_hash(fr_t *out, const poseidon_constants *c, const fr_t *in, size_t n)
{
    for (size_t k = 0; k < n; k++) poseidon_hash(&out[k], c, &in[k * c->arity]);
}

void poseidon_lanes_trace(fr_t *const *out, const poseidon_constants *c, const fr_t *in, size_t n)
{
    for (size_t k = 0; k < n; k++) poseidon_trace(out[k], c, &in[k * c->arity]);
}

#endif
