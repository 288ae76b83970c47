/*
 * boolean.c - bellpepper's AllocatedBit and Boolean gadgets.
 *
 * Every function allocates and enforces in bellpepper's order with
 * bellpepper's linear combinations (cs_lc merges repeated variables the
 * way bellpepper's LinearCombination does, so a + a is one term 2a). The
 * Boolean operations dispatch on the operand kinds in the order of
 * bellpepper's match arms: that order decides which constant folds apply
 * and which operand ends up in A or B, so it is kept arm for arm.
 *
 * On a backend that does not read constraints (cs_needs_constraints
 * false: the witness) every gadget allocates exactly the same bits with
 * the same values and only counts its constraint (cs_skip_constraint),
 * and runs of fresh bits (bool_alloc_bits) are allocated in one call.
 */
#include "cuzk/gadgets/boolean.h"

#include <string.h>

/*
 * Three combinations for one constraint. Boolean constraints have at most
 * four distinct variables per combination, which cs_lc keeps inline, so
 * they are built here directly in the inline array, sorted and merged as
 * lc_add_term would: the fixed-shape AllocatedBit rows are appended in
 * their known order (ONE first, the new bit last), ch / maj / equality
 * rows go through put(). Only the header fields are reset. Zeroing whole
 * structs, lc_free's memset and the general upsert cost a quarter of
 * SHA-256 synthesis before. A fifth variable (never in these gadgets)
 * falls back to lc_add_term, and enforce() frees a heap part if one grew.
 */
typedef struct abc {
    cs_lc a, b, c;
} abc;

/* Montgomery forms (x R mod r, R = 2^256) of -1 and 2, little-endian
 * limbs: -R mod r = r - R and 2R mod r = 2R, with
 * R mod r = 0x1824b159acc5056f998c4fefecbc4ff55884b7fa0003480200000001fffffffe
 * (test_gadgets_bits checks both against fr_neg / fr_dbl of FR_ONE). */
const fr_t BOOL_FR_MINUS_ONE = {
    {0xfffffffd00000003, 0xfb38ec08fffb13fc, 0x99ad88181ce5880f, 0x5bc8f5f97cd877d8}};
const fr_t BOOL_FR_TWO = {
    {0x00000003fffffffc, 0xb1096ff400069004, 0x33189fdfd9789fea, 0x304962b3598a0adf}};

static void abc_init(abc *t)
{
    cs_lc *l[3] = {&t->a, &t->b, &t->c};
    for (int i = 0; i < 3; i++) {
        l[i]->len = l[i]->cap = l[i]->hint = 0;
        l[i]->status = 0;
        l[i]->heap = NULL;
    }
}

/* Enforces t; va, vb, vc are the combinations' values on the witness (the
 * gadgets know them from the Booleans' values; cs_enforce_known). */
static void enforce(cs_t *cs, abc *t, int va, int vb, int vc)
{
    cs_enforce_known(cs, &t->a, &t->b, &t->c, va, vb, vc);
    if (t->a.heap) lc_free(&t->a);
    if (t->b.heap) lc_free(&t->b);
    if (t->c.heap) lc_free(&t->c);
}

static uint64_t key(cs_var v)
{
    return (uint64_t)v.kind << 32 | v.index;
}

/* lc += coeff * v, for combinations that fit inline. */
static void put(cs_lc *lc, cs_var v, const fr_t *coeff)
{
    uint64_t k = key(v);
    uint32_t i = lc->len;
    if (lc->heap) {
        lc_add_term(lc, v, coeff);
        return;
    }
    while (i > 0 && key(lc->inl[i - 1].var) > k) i--;
    if (i > 0 && key(lc->inl[i - 1].var) == k) {
        fr_add(&lc->inl[i - 1].coeff, &lc->inl[i - 1].coeff, coeff);
        return;
    }
    if (lc->len == CS_LC_INLINE) {
        lc_add_term(lc, v, coeff);
        return;
    }
    for (uint32_t j = lc->len; j > i; j--) lc->inl[j] = lc->inl[j - 1];
    lc->inl[i].var = v;
    lc->inl[i].coeff = *coeff;
    lc->len++;
}

/* Appends a term the caller knows to sort after the present ones (the
 * fixed-shape AllocatedBit constraints: ONE first, the new bit last). */
static void term(cs_lc *lc, cs_var v, const fr_t *coeff)
{
    lc->inl[lc->len].var = v;
    lc->inl[lc->len++].coeff = *coeff;
}

static void add(cs_lc *lc, cs_var v)
{
    put(lc, v, &FR_ONE);
}

static void sub(cs_lc *lc, cs_var v)
{
    put(lc, v, &BOOL_FR_MINUS_ONE);
}

/* lc +=/-= b (Boolean::lc with coefficient one). */
static void put_bool(cs_lc *lc, bool_var b, bool negative)
{
    const fr_t *plus = negative ? &BOOL_FR_MINUS_ONE : &FR_ONE,
               *minus = negative ? &FR_ONE : &BOOL_FR_MINUS_ONE;
    if (b.kind == BOOL_IS) {
        put(lc, bool_cs_var(b), plus);
    } else if (b.kind == BOOL_NOT) {
        put(lc, cs_one(), plus);
        put(lc, bool_cs_var(b), minus);
    } else if (b.value) {
        put(lc, cs_one(), plus);
    }
}

static bool_var new_bit(cs_t *cs, bool value)
{
    cs_var v = cs_alloc(cs, value ? &FR_ONE : &FR_ZERO);
    return (bool_var){v.index, BOOL_IS, value};
}

/* The allocated bit under an Is or Not view, with the bit's own value. */
static bool_var bit_of(bool_var b)
{
    return (bool_var){b.var, BOOL_IS, (uint8_t)(b.kind == BOOL_NOT ? !b.value : b.value)};
}

void bool_lc_add(cs_lc *lc, bool_var b, const fr_t *coeff)
{
    if (b.kind == BOOL_IS) {
        lc_add_term(lc, bool_cs_var(b), coeff);
    } else if (b.kind == BOOL_NOT) {
        lc_add_term(lc, cs_one(), coeff);
        lc_sub_term(lc, bool_cs_var(b), coeff);
    } else if (b.value) {
        lc_add_term(lc, cs_one(), coeff);
    }
}

void bool_lc_sub(cs_lc *lc, bool_var b, const fr_t *coeff)
{
    fr_t neg;
    fr_neg(&neg, coeff);
    bool_lc_add(lc, b, &neg);
}

/* ---- AllocatedBit ---- */

bool_var bit_alloc(cs_t *cs, bool value)
{
    bool_var r = new_bit(cs, value);
    if (cs_skip_constraint(cs)) return r;
    abc t;
    abc_init(&t);
    term(&t.a, cs_one(), &FR_ONE), term(&t.a, bool_cs_var(r), &BOOL_FR_MINUS_ONE);
    term(&t.b, bool_cs_var(r), &FR_ONE);
    enforce(cs, &t, 1 - r.value, r.value, 0);
    return r;
}

bool_var bit_alloc_conditionally(cs_t *cs, bool value, bool_var must_be_false)
{
    bool_var r = new_bit(cs, value);
    if (cs_skip_constraint(cs)) return r;
    abc t;
    abc_init(&t);
    term(&t.a, cs_one(), &FR_ONE), term(&t.a, bool_cs_var(must_be_false), &BOOL_FR_MINUS_ONE);
    term(&t.a, bool_cs_var(r), &BOOL_FR_MINUS_ONE);
    term(&t.b, bool_cs_var(r), &FR_ONE);
    enforce(cs, &t, 1 - must_be_false.value - r.value, r.value, 0);
    return r;
}

bool_var bit_xor(cs_t *cs, bool_var a, bool_var b)
{
    bool_var r = new_bit(cs, a.value ^ b.value);
    if (cs_skip_constraint(cs)) return r;
    abc t;
    abc_init(&t);
    term(&t.a, bool_cs_var(a), &BOOL_FR_TWO); /* a + a */
    term(&t.b, bool_cs_var(b), &FR_ONE);
    if (a.var == b.var) {
        term(&t.c, bool_cs_var(a), &BOOL_FR_TWO);
    } else {
        term(&t.c, bool_cs_var(a.var < b.var ? a : b), &FR_ONE);
        term(&t.c, bool_cs_var(a.var < b.var ? b : a), &FR_ONE);
    }
    term(&t.c, bool_cs_var(r), &BOOL_FR_MINUS_ONE);
    enforce(cs, &t, 2 * a.value, b.value, a.value + b.value - r.value);
    return r;
}

bool_var bit_and(cs_t *cs, bool_var a, bool_var b)
{
    bool_var r = new_bit(cs, a.value & b.value);
    if (cs_skip_constraint(cs)) return r;
    abc t;
    abc_init(&t);
    term(&t.a, bool_cs_var(a), &FR_ONE);
    term(&t.b, bool_cs_var(b), &FR_ONE);
    term(&t.c, bool_cs_var(r), &FR_ONE);
    enforce(cs, &t, a.value, b.value, r.value);
    return r;
}

bool_var bit_and_not(cs_t *cs, bool_var a, bool_var b)
{
    bool_var r = new_bit(cs, a.value && !b.value);
    if (cs_skip_constraint(cs)) return r;
    abc t;
    abc_init(&t);
    term(&t.a, bool_cs_var(a), &FR_ONE);
    term(&t.b, cs_one(), &FR_ONE), term(&t.b, bool_cs_var(b), &BOOL_FR_MINUS_ONE);
    term(&t.c, bool_cs_var(r), &FR_ONE);
    enforce(cs, &t, a.value, 1 - b.value, r.value);
    return r;
}

bool_var bit_nor(cs_t *cs, bool_var a, bool_var b)
{
    bool_var r = new_bit(cs, !a.value && !b.value);
    if (cs_skip_constraint(cs)) return r;
    abc t;
    abc_init(&t);
    term(&t.a, cs_one(), &FR_ONE), term(&t.a, bool_cs_var(a), &BOOL_FR_MINUS_ONE);
    term(&t.b, cs_one(), &FR_ONE), term(&t.b, bool_cs_var(b), &BOOL_FR_MINUS_ONE);
    term(&t.c, bool_cs_var(r), &FR_ONE);
    enforce(cs, &t, 1 - a.value, 1 - b.value, r.value);
    return r;
}

/* ---- Boolean ---- */

static bool is_const(bool_var b, bool v)
{
    return b.kind == BOOL_CONST && b.value == v;
}

bool_var bool_xor(cs_t *cs, bool_var a, bool_var b)
{
    if (is_const(a, false)) return b;
    if (is_const(b, false)) return a;
    if (is_const(a, true)) return bool_not(b);
    if (is_const(b, true)) return bool_not(a);
    /* a xor (not b) = not (a xor b), with the Is operand first */
    if (a.kind == BOOL_IS && b.kind == BOOL_NOT) return bool_not(bit_xor(cs, a, bit_of(b)));
    if (a.kind == BOOL_NOT && b.kind == BOOL_IS) return bool_not(bit_xor(cs, b, bit_of(a)));
    /* (not a) xor (not b) = a xor b */
    return bit_xor(cs, bit_of(a), bit_of(b));
}

bool_var bool_and(cs_t *cs, bool_var a, bool_var b)
{
    if (is_const(a, false) || is_const(b, false)) return bool_const(false);
    if (is_const(a, true)) return b;
    if (is_const(b, true)) return a;
    if (a.kind == BOOL_IS && b.kind == BOOL_NOT) return bit_and_not(cs, a, bit_of(b));
    if (a.kind == BOOL_NOT && b.kind == BOOL_IS) return bit_and_not(cs, b, bit_of(a));
    if (a.kind == BOOL_NOT) return bit_nor(cs, bit_of(a), bit_of(b));
    return bit_and(cs, a, b);
}

bool_var bool_or(cs_t *cs, bool_var a, bool_var b)
{
    return bool_not(bool_and(cs, bool_not(a), bool_not(b)));
}

bool_var bool_sha256_ch(cs_t *cs, bool_var a, bool_var b, bool_var c)
{
    bool value = (a.value && b.value) != (!a.value && c.value);
    if (bool_is_const(a) && bool_is_const(b) && bool_is_const(c)) return bool_const(value);
    if (is_const(a, false)) return c;
    if (is_const(b, false)) return bool_and(cs, bool_not(a), c);
    if (is_const(c, false)) return bool_and(cs, a, b);
    if (is_const(c, true)) return bool_not(bool_and(cs, a, bool_not(b)));
    if (is_const(b, true)) return bool_not(bool_and(cs, bool_not(a), bool_not(c)));
    /* a is an allocated bit or the constant true: a (b - c) = ch - c */
    bool_var ch = new_bit(cs, value);
    if (cs_skip_constraint(cs)) return ch;
    abc t;
    abc_init(&t);
    put_bool(&t.a, b, false), put_bool(&t.a, c, true);
    put_bool(&t.b, a, false);
    add(&t.c, bool_cs_var(ch)), put_bool(&t.c, c, true);
    enforce(cs, &t, b.value - c.value, a.value, ch.value - c.value);
    return ch;
}

bool_var bool_sha256_maj(cs_t *cs, bool_var a, bool_var b, bool_var c)
{
    bool value = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);
    if (bool_is_const(a) && bool_is_const(b) && bool_is_const(c)) return bool_const(value);
    if (is_const(a, false)) return bool_and(cs, b, c);
    if (is_const(b, false)) return bool_and(cs, a, c);
    if (is_const(c, false)) return bool_and(cs, a, b);
    if (is_const(c, true)) return bool_not(bool_and(cs, bool_not(a), bool_not(b)));
    if (is_const(b, true)) return bool_not(bool_and(cs, bool_not(a), bool_not(c)));
    if (is_const(a, true)) return bool_not(bool_and(cs, bool_not(b), bool_not(c)));
    /* maj allocated before bc = b and c; then (2bc - b - c) * a = bc - maj */
    bool_var maj = new_bit(cs, value);
    bool_var bc = bool_and(cs, b, c);
    if (cs_skip_constraint(cs)) return maj;
    abc t;
    abc_init(&t);
    put_bool(&t.a, bc, false), put_bool(&t.a, bc, false);
    put_bool(&t.a, b, true), put_bool(&t.a, c, true);
    put_bool(&t.b, a, false);
    put_bool(&t.c, bc, false), sub(&t.c, bool_cs_var(maj));
    enforce(cs, &t, 2 * bc.value - b.value - c.value, a.value, bc.value - maj.value);
    return maj;
}

int bool_enforce_equal(cs_t *cs, bool_var a, bool_var b)
{
    if (bool_is_const(a) && bool_is_const(b)) {
        if (a.value == b.value) return cs_status(cs);
        return cs_fail(cs, CUZK_EINVAL, "boolean enforce_equal: constants %d and %d differ",
                       a.value, b.value);
    }
    if (cs_skip_constraint(cs)) return cs_status(cs);
    abc t;
    abc_init(&t);
    int vc; /* the value of C */
    if (is_const(a, true) || is_const(b, true)) {
        bool_var other = is_const(a, true) ? b : a;
        add(&t.c, cs_one());
        put_bool(&t.c, other, true);
        vc = 1 - other.value;
    } else if (is_const(a, false) || is_const(b, false)) {
        bool_var other = is_const(a, false) ? b : a;
        put_bool(&t.c, other, false);
        vc = other.value;
    } else {
        put_bool(&t.c, a, false), put_bool(&t.c, b, true);
        vc = a.value - b.value;
    }
    enforce(cs, &t, 0, 0, vc);
    return cs_status(cs);
}

void bool_alloc_bits(cs_t *cs, bool_var *out, uint64_t values, unsigned n)
{
    if (cs_needs_constraints(cs)) {
        for (unsigned i = 0; i < n; i++) out[i] = bit_alloc(cs, (values >> i) & 1);
        return;
    }
    uint32_t first = cs_alloc_bits(cs, values, n, n).index;
    for (unsigned i = 0; i < n; i++)
        out[i] = (bool_var){first + i, BOOL_IS, (uint8_t)((values >> i) & 1)};
}

void bool_alloc_u64_le(cs_t *cs, bool_var out[64], uint64_t value)
{
    bool_alloc_bits(cs, out, value, 64);
}

void bool_alloc_fr_le(cs_t *cs, bool_var out[FR_NUM_BITS], const fr_t *value)
{
    uint64_t limbs[FR_LIMBS] = {0};
    if (value) fr_to_canonical(limbs, value);
    for (int i = 0; i < FR_NUM_BITS; i += 64)
        bool_alloc_bits(cs, out + i, limbs[i / 64], FR_NUM_BITS - i < 64 ? FR_NUM_BITS - i : 64);
}

/* Up to 8 bytes' bits in allocation order (each byte least or most
 * significant bit first). */
static uint64_t bytes_bits(const uint8_t *bytes, size_t n, bool msb_first)
{
    uint64_t v = 0;
    for (size_t i = 0; bytes && i < 8 * n; i++)
        v |= (uint64_t)((bytes[i / 8] >> (msb_first ? 7 - i % 8 : i % 8)) & 1) << i;
    return v;
}

static void alloc_bytes(cs_t *cs, bool_var *out, const uint8_t *bytes, size_t n, bool msb_first)
{
    for (size_t i = 0; i < n; i += 8) {
        size_t k = n - i < 8 ? n - i : 8;
        bool_alloc_bits(cs, out + 8 * i, bytes_bits(bytes ? bytes + i : NULL, k, msb_first),
                        (unsigned)(8 * k));
    }
}

void bool_alloc_bytes_le(cs_t *cs, bool_var *out, const uint8_t *bytes, size_t n)
{
    alloc_bytes(cs, out, bytes, n, false);
}

void bool_alloc_bytes_be(cs_t *cs, bool_var *out, const uint8_t *bytes, size_t n)
{
    alloc_bytes(cs, out, bytes, n, true);
}

size_t bool_reverse_bit_numbering(bool_var *out, const bool_var *in, size_t n)
{
    size_t padded = (n + 7) / 8 * 8;
    for (size_t i = 0; i < padded; i++) {
        size_t src = i / 8 * 8 + (7 - i % 8);
        out[i] = src < n ? in[src] : bool_const(0);
    }
    return padded;
}
