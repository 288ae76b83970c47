/*
 * select.c - storage-proofs-core's pick / select / insert gadgets.
 *
 * select halves the candidates once per index bit, most significant bit
 * first. insert into 2, 4 or 8 slots uses the hand-made pick networks of
 * insertion.rs (for 8 slots two shared bits, b0 NOR b1 and b0 AND b1, save
 * picks); any other size picks each output position with select over the
 * column of possible results.
 */
#include "cuzk/gadgets/select.h"

#include <stdlib.h>

num_var num_pick(cs_t *cs, bool_var cond, const num_var *a, const num_var *b)
{
    num_var ra = *a, rb = *b;
    num_var c = num_alloc(cs, cond.value ? &ra.value : &rb.value);
    if (cs_skip_constraint(cs)) return c;
    cs_lc la = {0}, lb = {0}, lc = {0};
    lc_add_var(&la, rb.var), lc_sub_var(&la, ra.var);
    bool_lc_add(&lb, cond, &FR_ONE);
    lc_add_var(&lc, rb.var), lc_sub_var(&lc, c.var);
    cs_enforce(cs, &la, &lb, &lc);
    lc_free(&la), lc_free(&lb), lc_free(&lc);
    return c;
}

num_var num_select(cs_t *cs, const num_var *from, const bool_var *path_bits, size_t nbits)
{
    size_t half = ((size_t)1 << nbits) / 2;
    num_var *state = malloc(2 * half * sizeof(num_var) + sizeof(num_var));
    if (!state) {
        cs_fail(cs, CUZK_ENOMEM, "select: %zu candidates", 2 * half);
        return from[0];
    }
    for (size_t j = 0; j < 2 * half; j++) state[j] = from[j];
    for (size_t i = nbits; i-- > 0; half /= 2)
        for (size_t j = 0; j < half; j++)
            state[j] = num_pick(cs, path_bits[i], &state[half + j], &state[j]);
    num_var r = state[0];
    free(state);
    return r;
}

static void insert_2(cs_t *cs, num_var *out, const num_var *x, const bool_var *bits,
                     const num_var *e)
{
    num_var p0 = num_pick(cs, bits[0], &e[0], x);
    out[1] = num_pick(cs, bits[0], x, &e[0]);
    out[0] = p0;
}

/* pick(cond, a, b) that reads like the witness! lines of insertion.rs */
#define PICK(cond, a, b) num_pick(cs, cond, a, b)

static void insert_4(cs_t *cs, num_var *out, const num_var *a, const bool_var *bits,
                     const num_var *e)
{
    bool_var b0 = bits[0], b1 = bits[1];
    const num_var *b = &e[0], *c = &e[1], *d = &e[2];
    num_var t, p[4];
    t = PICK(b0, b, a), p[0] = PICK(b1, b, &t);
    t = PICK(b0, a, b), p[1] = PICK(b1, c, &t);
    t = PICK(b0, d, a), p[2] = PICK(b1, &t, c);
    t = PICK(b0, a, d), p[3] = PICK(b1, &t, d);
    for (int i = 0; i < 4; i++) out[i] = p[i];
}

static int insert_8(cs_t *cs, num_var *out, const num_var *a, const bool_var *bits,
                    const num_var *e)
{
    bool_var b0 = bits[0], b1 = bits[1], b2 = bits[2];
    if (b0.kind != BOOL_IS || b1.kind != BOOL_IS)
        return cs_fail(cs, CUZK_EINVAL, "insert 8: bits 0 and 1 must be allocated, not negated");
    const num_var *b = &e[0], *c = &e[1], *d = &e[2], *f = &e[4], *g = &e[5], *h = &e[6];
    const num_var *ee = &e[3];
    bool_var nor = bit_nor(cs, b0, b1), and = bit_and(cs, b0, b1);
    num_var t, u, p[8];
    t = PICK(nor, a, b), p[0] = PICK(b2, b, &t);
    t = PICK(b0, a, b), u = PICK(b1, c, &t), p[1] = PICK(b2, c, &u);
    t = PICK(b0, d, a), u = PICK(b1, &t, c), p[2] = PICK(b2, d, &u);
    t = PICK(and, a, d), p[3] = PICK(b2, ee, &t);
    t = PICK(nor, a, f), p[4] = PICK(b2, &t, ee);
    t = PICK(b0, a, f), u = PICK(b1, g, &t), p[5] = PICK(b2, &u, f);
    t = PICK(b0, h, a), u = PICK(b1, &t, g), p[6] = PICK(b2, &u, g);
    t = PICK(and, a, h), p[7] = PICK(b2, &t, h);
    for (int i = 0; i < 8; i++) out[i] = p[i];
    return cs_status(cs);
}

/* The general case: position pos of the result for insertion index k is
 * elements[pos] before k, element at k, elements[pos - 1] after. */
static int insert_general(cs_t *cs, num_var *out, const num_var *x, const bool_var *bits,
                          size_t nbits, const num_var *e)
{
    size_t size = (size_t)1 << nbits;
    num_var *choices = malloc(size * sizeof(num_var)), *res = malloc(size * sizeof(num_var));
    if (!choices || !res) {
        free(choices), free(res);
        return cs_fail(cs, CUZK_ENOMEM, "insert: %zu slots", size);
    }
    for (size_t pos = 0; pos < size; pos++) {
        for (size_t k = 0; k < size; k++)
            choices[k] = pos < k ? e[pos] : pos == k ? *x : e[pos - 1];
        res[pos] = num_select(cs, choices, bits, nbits);
    }
    for (size_t pos = 0; pos < size; pos++) out[pos] = res[pos];
    free(choices), free(res);
    return cs_status(cs);
}

int num_insert(cs_t *cs, num_var *out, const num_var *element, const bool_var *bits, size_t nbits,
               const num_var *elements)
{
    if (nbits == 1) {
        insert_2(cs, out, element, bits, elements);
        return cs_status(cs);
    }
    if (nbits == 2) {
        insert_4(cs, out, element, bits, elements);
        return cs_status(cs);
    }
    if (nbits == 3) return insert_8(cs, out, element, bits, elements);
    return insert_general(cs, out, element, bits, nbits, elements);
}
