/*
 * num.c - bellpepper's AllocatedNum and storage-proofs-core's constraint.rs
 * helpers.
 *
 * to_bits_le_strict walks r - 1 from its top set bit down: a bit where
 * r - 1 has a one is allocated plainly and joins the current run of ones;
 * where r - 1 has a zero, the run (with the previous run's AND appended)
 * is AND-ed into last_run, and the bit is allocated under the condition
 * "false if last_run", so no prefix of the bits can exceed r - 1's.
 */
#include "cuzk/gadgets/num.h"
#include "cuzk/gadgets/multieq.h"

#include <string.h>

static num_var make(cs_var v, const fr_t *value)
{
    num_var n = {v, FR_ZERO};
    if (value) n.value = *value;
    return n;
}

num_var num_alloc(cs_t *cs, const fr_t *value)
{
    return make(cs_alloc(cs, value), value);
}

num_var num_alloc_input(cs_t *cs, const fr_t *value)
{
    return make(cs_alloc_input(cs, value), value);
}

/* (x [+ y]) * ONE = z */
static void enforce_linear(cs_t *cs, cs_var x, const cs_var *y, cs_var z)
{
    if (cs_skip_constraint(cs)) return;
    cs_lc a = {0}, b = {0}, c = {0};
    lc_add_var(&a, x);
    if (y) lc_add_var(&a, *y);
    lc_add_var(&b, cs_one());
    lc_add_var(&c, z);
    cs_enforce(cs, &a, &b, &c);
    lc_free(&a), lc_free(&b), lc_free(&c);
}

/* x * y = z */
static void enforce_product(cs_t *cs, cs_var x, cs_var y, cs_var z)
{
    if (cs_skip_constraint(cs)) return;
    cs_lc a = {0}, b = {0}, c = {0};
    lc_add_var(&a, x), lc_add_var(&b, y), lc_add_var(&c, z);
    cs_enforce(cs, &a, &b, &c);
    lc_free(&a), lc_free(&b), lc_free(&c);
}

void num_inputize(cs_t *cs, const num_var *a)
{
    cs_var in = cs_alloc_input(cs, &a->value);
    enforce_linear(cs, in, NULL, a->var);
}

num_var num_add(cs_t *cs, const num_var *a, const num_var *b)
{
    fr_t v;
    fr_add(&v, &a->value, &b->value);
    num_var r = num_alloc(cs, &v);
    enforce_linear(cs, a->var, &b->var, r.var);
    return r;
}

num_var num_mul(cs_t *cs, const num_var *a, const num_var *b)
{
    fr_t v;
    fr_mul(&v, &a->value, &b->value);
    num_var r = num_alloc(cs, &v);
    enforce_product(cs, a->var, b->var, r.var);
    return r;
}

num_var num_square(cs_t *cs, const num_var *a)
{
    fr_t v;
    fr_sqr(&v, &a->value);
    num_var r = num_alloc(cs, &v);
    enforce_product(cs, a->var, a->var, r.var);
    return r;
}

int num_assert_nonzero(cs_t *cs, const num_var *a)
{
    fr_t inv = FR_ZERO;
    if (cs_needs_values(cs) && !fr_inv(&inv, &a->value))
        return cs_fail(cs, CUZK_EINVAL, "num assert_nonzero: the value is zero");
    cs_var v = cs_alloc(cs, &inv);
    enforce_product(cs, a->var, v, cs_one());
    return cs_status(cs);
}

/* (x - y) * cond = (x - z) */
static void enforce_select(cs_t *cs, cs_var x, cs_var y, bool_var cond, cs_var z)
{
    if (cs_skip_constraint(cs)) return;
    cs_lc a = {0}, b = {0}, c = {0};
    lc_add_var(&a, x), lc_sub_var(&a, y);
    bool_lc_add(&b, cond, &FR_ONE);
    lc_add_var(&c, x), lc_sub_var(&c, z);
    cs_enforce(cs, &a, &b, &c);
    lc_free(&a), lc_free(&b), lc_free(&c);
}

void num_conditionally_reverse(cs_t *cs, num_var *c, num_var *d, const num_var *a, const num_var *b,
                               bool_var cond)
{
    num_var ra = *a, rb = *b;
    num_var rc = num_alloc(cs, cond.value ? &rb.value : &ra.value);
    enforce_select(cs, ra.var, rb.var, cond, rc.var);
    num_var rd = num_alloc(cs, cond.value ? &ra.value : &rb.value);
    enforce_select(cs, rb.var, ra.var, cond, rd.var);
    *c = rc, *d = rd;
}

/* 0 * 0 = sum_j 2^j bits[j] - a. The terms are added in variable order
 * (cheapest for cs_lc; the combination does not depend on the order). */
static void enforce_packing(cs_t *cs, const bool_var *bits, size_t n, const num_var *a)
{
    if (cs_skip_constraint(cs)) return;
    cs_lc lc = {0}, zero = {0};
    bool down = bits[0].var > bits[n - 1].var;
    for (size_t i = 0; i < n; i++) {
        size_t j = down ? n - 1 - i : i;
        lc_add_term(&lc, bool_cs_var(bits[j]), fr_pow2(j));
    }
    lc_sub_var(&lc, a->var);
    cs_enforce(cs, &zero, &zero, &lc);
    lc_free(&lc);
}

void num_to_bits_le(cs_t *cs, bool_var out[FR_NUM_BITS], const num_var *a)
{
    bool_alloc_fr_le(cs, out, &a->value);
    enforce_packing(cs, out, FR_NUM_BITS, a);
}

/* bellpepper's kary_and: v[0] and v[1] and ... left to right. */
static bool_var kary_and(cs_t *cs, const bool_var *v, size_t n)
{
    bool_var cur = v[0];
    for (size_t i = 1; i < n; i++) cur = bit_and(cs, cur, v[i]);
    return cur;
}

static bool limb_bit(const uint64_t *l, int i)
{
    return (l[i / 64] >> (i % 64)) & 1;
}

void num_to_bits_le_strict(cs_t *cs, bool_var out[FR_NUM_BITS], const num_var *a)
{
    uint64_t rm1[FR_LIMBS], av[FR_LIMBS];
    memcpy(rm1, FR_MODULUS, sizeof(rm1));
    rm1[0] -= 1; /* r is odd */
    fr_to_canonical(av, &a->value);
    bool_var run[FR_NUM_BITS + 1], last = bool_const(0);
    size_t nrun = 0, nres = 0;
    bool have_last = false;
    for (int i = 64 * FR_LIMBS - 1, found = 0; i >= 0; i--) {
        bool b = limb_bit(rm1, i), abit = limb_bit(av, i);
        found |= b;
        if (!found) continue;
        bool_var x;
        if (b) {
            x = run[nrun++] = bit_alloc(cs, abit);
        } else {
            if (nrun) {
                if (have_last) run[nrun++] = last;
                last = kary_and(cs, run, nrun);
                have_last = true, nrun = 0;
            }
            x = bit_alloc_conditionally(cs, abit, last);
        }
        out[FR_NUM_BITS - 1 - nres++] = x;
    }
    enforce_packing(cs, out, FR_NUM_BITS, a);
}

void num_enforce_equal(cs_t *cs, const num_var *a, const num_var *b)
{
    enforce_linear(cs, a->var, NULL, b->var);
}

void num_enforce_sum(cs_t *cs, const num_var *a, const num_var *b, const num_var *sum)
{
    enforce_linear(cs, a->var, &b->var, sum->var);
}

void num_enforce_difference(cs_t *cs, const num_var *a, const num_var *b, const num_var *diff)
{
    enforce_linear(cs, diff->var, &b->var, a->var);
}

num_var num_sub(cs_t *cs, const num_var *a, const num_var *b)
{
    fr_t v;
    fr_sub(&v, &a->value, &b->value);
    num_var r = num_alloc(cs, &v);
    num_enforce_difference(cs, a, b, &r);
    return r;
}
