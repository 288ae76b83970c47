/*
 * poseidon.c - neptune v11's legacy Poseidon circuit (circuit.rs) walked
 * directly, as neptune's code does it: poseidon_gadget_hash_walk. It is the
 * reference the fast replay (poseidon_replay.c) records once per arity.
 *
 * Walk-through in neptune's order: the state is [tag, x_1..x_arity] with
 * the tag a constant combination and the inputs allocated. Round 0 (full):
 * the tag's S-box is computed as a constant ((tag + k0)^5 + k0'), every
 * other element goes through quintic_s_box_pre_add. Rounds 1..RF/2-1 and
 * the final RF/2 (full): quintic_s_box with the next compressed key, none
 * in the terminal round. Partial rounds: element 0 only. After each round
 * the state is multiplied (as a row vector) by M, by the pre-sparse matrix
 * after round RF/2 - 1, by the sparse matrices in the partial rounds.
 * Every S-box allocates its input first when it is a combination
 * (ensure_allocated: lc * ONE = x). Finally element 1 is allocated.
 *
 * Linear combinations merge duplicate variables like bellpepper's, so the
 * terms (and the R1CS) are the same whatever order they are added in. On a
 * backend that does not read constraints none is built: the values are
 * tracked and the constraints counted.
 */
#include "cuzk/gadgets/poseidon.h"

#include <string.h>

/* neptune's Elt: an allocated number or a combination with its value. */
typedef struct pelt {
    bool allocated;
    num_var num; /* when allocated */
    cs_lc lc;    /* otherwise */
    fr_t value;  /* the combination's value (tracked when values are needed) */
} pelt;

typedef struct pcirc {
    cs_t *cs;
    const poseidon_constants *c;
    bool values;
    bool constraints; /* whether the cs reads them: else none is built */
    size_t width, offset, round;
    pelt *cur, *nxt, spare;
    pelt buf[2][POSEIDON_MAX_WIDTH];
    cs_lc a, b, cc; /* scratch for constraints */
} pcirc;

/* ---- constraints (bellpepper AllocatedNum::square, neptune square_sum / mul_sum) ---- */

/* Enforces (x + add_x) * (y + add_y) = z - sub_z; the constants may be NULL. */
static void enforce_affine(pcirc *p, cs_var x, const fr_t *add_x, cs_var y, const fr_t *add_y,
                           cs_var z, const fr_t *sub_z)
{
    if (!p->constraints) {
        cs_enforce_skip(p->cs, 1);
        return;
    }
    lc_clear(&p->a), lc_clear(&p->b), lc_clear(&p->cc);
    lc_add_var(&p->a, x);
    if (add_x) lc_add_term(&p->a, cs_one(), add_x);
    lc_add_var(&p->b, y);
    if (add_y) lc_add_term(&p->b, cs_one(), add_y);
    lc_add_var(&p->cc, z);
    if (sub_z) lc_sub_term(&p->cc, cs_one(), sub_z);
    cs_enforce(p->cs, &p->a, &p->b, &p->cc);
}

static num_var alloc_value(pcirc *p, const fr_t *v)
{
    return num_alloc(p->cs, p->values ? v : NULL);
}

/* square_sum (add != NULL) or AllocatedNum::square: (x + add)^2. */
static num_var square(pcirc *p, const num_var *x, const fr_t *add)
{
    fr_t v = x->value;
    if (p->values) {
        if (add) fr_add(&v, &v, add);
        fr_sqr(&v, &v);
    }
    num_var r = alloc_value(p, &v);
    enforce_affine(p, x->var, add, x->var, add, r.var, NULL);
    return r;
}

/* mul_sum: a * (b + pre) + post, enforced as (b + pre) * a = r - post. */
static num_var mul_sum(pcirc *p, const num_var *a, const num_var *b, const fr_t *pre,
                       const fr_t *post)
{
    fr_t v = b->value;
    if (p->values) {
        if (pre) fr_add(&v, &v, pre);
        fr_mul(&v, &v, &a->value);
        if (post) fr_add(&v, &v, post);
    }
    num_var r = alloc_value(p, &v);
    enforce_affine(p, b->var, pre, a->var, NULL, r.var, post);
    return r;
}

/* Elt::ensure_allocated(enforce = true): x = alloc(lc), lc * ONE = x. */
static void ensure_allocated(pcirc *p, pelt *e)
{
    if (e->allocated) return;
    e->num = alloc_value(p, &e->value);
    if (!p->constraints) {
        cs_enforce_skip(p->cs, 1);
        e->allocated = true;
        return;
    }
    lc_clear(&p->b), lc_clear(&p->cc);
    lc_add_var(&p->b, cs_one());
    lc_add_var(&p->cc, e->num.var);
    cs_enforce(p->cs, &e->lc, &p->b, &p->cc);
    e->allocated = true;
    lc_clear(&e->lc);
}

static void set_allocated(pelt *e, num_var n)
{
    e->allocated = true;
    e->num = n;
    lc_clear(&e->lc);
}

/* quintic_s_box: x^5 + post (post may be NULL). */
static void sbox(pcirc *p, pelt *e, const fr_t *post)
{
    ensure_allocated(p, e);
    num_var l = e->num;
    num_var l2 = square(p, &l, NULL);
    num_var l4 = square(p, &l2, NULL);
    set_allocated(e, mul_sum(p, &l4, &l, NULL, post));
}

/* quintic_s_box_pre_add: (x + pre)^5 + post. */
static void sbox_pre_add(pcirc *p, pelt *e, const fr_t *pre, const fr_t *post)
{
    ensure_allocated(p, e);
    num_var l = e->num;
    num_var l2 = square(p, &l, pre);
    num_var l4 = square(p, &l2, NULL);
    set_allocated(e, mul_sum(p, &l4, &l, pre, post));
}

/* constant_quintic_s_box_pre_add_tag: the tag's first S-box, a constant. */
static void sbox_constant_tag(pelt *e, const fr_t *tag, const fr_t *pre, const fr_t *post)
{
    fr_t x, x4;
    fr_add(&x, tag, pre);
    fr_sqr(&x4, &x);
    fr_sqr(&x4, &x4);
    fr_mul(&x, &x, &x4);
    fr_add(&x, &x, post);
    lc_clear(&e->lc);
    lc_add_term(&e->lc, cs_one(), &x);
    e->value = x;
}

/* ---- linear layers ---- */

/* acc += coeff * e (Elt::scale then Num::add). */
static void accumulate(pcirc *p, pelt *acc, const fr_t *coeff, const pelt *e)
{
    if (p->constraints && e->allocated)
        lc_add_term(&acc->lc, e->num.var, coeff);
    else if (p->constraints)
        lc_add_scaled_lc(&acc->lc, coeff, &e->lc);
    if (p->values) {
        fr_t t;
        fr_mul(&t, coeff, e->allocated ? &e->num.value : &e->value);
        fr_add(&acc->value, &acc->value, &t);
    }
}

static void reset_num(pelt *e)
{
    e->allocated = false;
    lc_clear(&e->lc);
    e->value = FR_ZERO;
}

/* scalar_product: out = sum_i coeffs[i * stride] cur[i]. */
static void scalar_product(pcirc *p, pelt *out, const fr_t *coeffs, size_t stride)
{
    reset_num(out);
    for (size_t i = 0; i < p->width; i++) accumulate(p, out, &coeffs[i * stride], &p->cur[i]);
}

/* product_mds_with_matrix: cur := cur * m (column j of m for element j). */
static void product_dense(pcirc *p, const fr_t *m)
{
    for (size_t j = 0; j < p->width; j++) scalar_product(p, &p->nxt[j], &m[j], p->width);
    pelt *t = p->cur;
    p->cur = p->nxt;
    p->nxt = t;
}

/*
 * product_mds_with_sparse_matrix: [w_hat . cur, cur_j + v_j cur_0]. In a
 * partial round elements 1.. are combinations (no S-box touched them since
 * the last product), so cur_j is extended in place.
 */
static void product_sparse(pcirc *p, const fr_t *w_hat, const fr_t *v_rest)
{
    scalar_product(p, &p->spare, w_hat, 1);
    for (size_t j = 1; j < p->width; j++) accumulate(p, &p->cur[j], &v_rest[j - 1], &p->cur[0]);
    pelt t = p->cur[0];
    p->cur[0] = p->spare;
    p->spare = t;
}

/* round_product_mds: which matrix follows round p->round. */
static void product_mds(pcirc *p)
{
    const poseidon_constants *c = p->c;
    size_t half = c->half_full_rounds, r = p->round++;
    if (r + 1 == half)
        product_dense(p, c->pre_sparse);
    else if (r >= half && r < half + c->partial_rounds)
        product_sparse(p, &c->sparse_w_hat[(r - half) * p->width],
                       &c->sparse_v_rest[(r - half) * (p->width - 1)]);
    else
        product_dense(p, c->mds);
}

/* ---- rounds ---- */

static void first_round(pcirc *p)
{
    const fr_t *pre = &p->c->compressed_constants[0], *post = pre + p->width;
    sbox_constant_tag(&p->cur[0], &p->c->domain_tag, &pre[0], &post[0]);
    for (size_t i = 1; i < p->width; i++) sbox_pre_add(p, &p->cur[i], &pre[i], &post[i]);
    p->offset = 2 * p->width;
    product_mds(p);
}

static void full_round(pcirc *p, bool last)
{
    const fr_t *keys = &p->c->compressed_constants[p->offset];
    for (size_t i = 0; i < p->width; i++) sbox(p, &p->cur[i], last ? NULL : &keys[i]);
    if (!last) p->offset += p->width;
    product_mds(p);
}

static void partial_round(pcirc *p)
{
    sbox(p, &p->cur[0], &p->c->compressed_constants[p->offset++]);
    product_mds(p);
}

static void pcirc_init(pcirc *p, cs_t *cs, const poseidon_constants *c, const num_var *preimage)
{
    memset(p, 0, sizeof(*p));
    p->cs = cs;
    p->c = c;
    p->values = cs_needs_values(cs);
    p->constraints = cs_needs_constraints(cs);
    p->width = c->width;
    p->cur = p->buf[0];
    p->nxt = p->buf[1];
    for (size_t i = 1; i < p->width; i++) set_allocated(&p->cur[i], preimage[i - 1]);
}

static void pcirc_free(pcirc *p)
{
    for (size_t i = 0; i < p->width; i++) lc_free(&p->buf[0][i].lc), lc_free(&p->buf[1][i].lc);
    lc_free(&p->spare.lc);
    lc_free(&p->a), lc_free(&p->b), lc_free(&p->cc);
}

num_var poseidon_gadget_hash_walk(cs_t *cs, const poseidon_constants *c, const num_var *preimage)
{
    pcirc p;
    pcirc_init(&p, cs, c, preimage);
    first_round(&p);
    for (size_t r = 1; r < c->half_full_rounds; r++) full_round(&p, false);
    for (size_t r = 0; r < c->partial_rounds; r++) partial_round(&p);
    for (size_t r = 1; r < c->half_full_rounds; r++) full_round(&p, false);
    full_round(&p, true);
    ensure_allocated(&p, &p.cur[1]);
    num_var out = p.cur[1].num;
    pcirc_free(&p);
    return out;
}

size_t poseidon_gadget_constraints(const poseidon_constants *c)
{
    return poseidon_trace_len(c); /* one constraint per allocation, one allocation a value */
}
