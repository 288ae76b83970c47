/*
 * prover.c - the prover backend: per constraint the values of A, B and C on
 * the witness, the input and aux assignments, and the density bitmaps the
 * Groth16 MSMs select their bases with.
 *
 * It matches bellperson's ProvingAssignment (groth16/prover/mod.rs and
 * lc.rs eval_with_trackers): A is evaluated with the aux density tracker
 * only (inputs are dense in A because of the x_i * 0 = 0 constraints), B
 * with both trackers, C with none; a term whose merged coefficient is zero
 * is skipped, for the value and for the density, and a coefficient of one
 * is added without a multiplication (minus one, frequent in boolean
 * constraints b * (1 - b) = 0, is subtracted likewise). Vectors grow geometrically unless a
 * capacity hint pre-sizes them.
 */
#include "r1cs/cs_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct prover_cs {
    cs_t cs;
    fr_t minus_one;
    fr_vec a, b, c, input, aux;
    bit_vec a_aux, b_input, b_aux;
} prover_cs;

static int prover_alloc(cs_t *cs, uint32_t kind, const fr_t *value)
{
    prover_cs *p = (prover_cs *)cs;
    if (kind == CS_INPUT) {
        int rc = bit_vec_push0(&p->b_input);
        return rc ? rc : fr_vec_push(&p->input, value);
    }
    int rc = bit_vec_push0(&p->a_aux);
    if (!rc) rc = bit_vec_push0(&p->b_aux);
    return rc ? rc : fr_vec_push(&p->aux, value);
}

/* The value of lc, marking the variables with a non-zero coefficient in
 * input_bits / aux_bits (either may be NULL). */
static void eval_marking(fr_t *out, const cs_lc *lc, const prover_cs *p, uint64_t *input_bits,
                         uint64_t *aux_bits)
{
    fr_t acc = FR_ZERO, tmp;
    const cs_term *t = lc_terms(lc);
    for (uint32_t i = 0; i < lc->len; i++) {
        if (fr_is_zero(&t[i].coeff)) continue;
        uint32_t k = t[i].var.index;
        const fr_t *x;
        if (t[i].var.kind == CS_INPUT) {
            x = &p->input.v[k];
            if (input_bits) bit_set(input_bits, k);
        } else {
            x = &p->aux.v[k];
            if (aux_bits) bit_set(aux_bits, k);
        }
        if (fr_is_one(&t[i].coeff)) {
            fr_add(&acc, &acc, x);
        } else if (fr_eq(&t[i].coeff, &p->minus_one)) {
            fr_sub(&acc, &acc, x);
        } else {
            fr_mul(&tmp, x, &t[i].coeff);
            fr_add(&acc, &acc, &tmp);
        }
    }
    *out = acc;
}

static int prover_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    prover_cs *p = (prover_cs *)cs;
    size_t n = p->a.len;
    if (n == p->a.cap) {
        int rc = cs_vec_reserve((void **)&p->a.v, &p->a.cap, n + 1, sizeof(fr_t));
        if (!rc) rc = cs_vec_reserve((void **)&p->b.v, &p->b.cap, n + 1, sizeof(fr_t));
        if (!rc) rc = cs_vec_reserve((void **)&p->c.v, &p->c.cap, n + 1, sizeof(fr_t));
        if (rc) return rc;
    }
    eval_marking(&p->a.v[n], a, p, NULL, p->a_aux.w);
    eval_marking(&p->b.v[n], b, p, p->b_input.w, p->b_aux.w);
    eval_marking(&p->c.v[n], c, p, NULL, NULL);
    p->a.len = p->b.len = p->c.len = n + 1;
    return 0;
}

static const cs_ops prover_ops = {prover_alloc, prover_enforce};

static void prover_release(prover_cs *p)
{
    free(p->a.v), free(p->b.v), free(p->c.v), free(p->input.v), free(p->aux.v);
    free(p->a_aux.w), free(p->b_input.w), free(p->b_aux.w);
}

/* Pre-sizes every vector to the hint (input constraints included). */
static int reserve_hint(prover_cs *p, const cs_capacity *h)
{
    size_t rows = h->constraints + h->inputs;
    int rc = cs_vec_reserve((void **)&p->a.v, &p->a.cap, rows, sizeof(fr_t));
    if (!rc) rc = cs_vec_reserve((void **)&p->b.v, &p->b.cap, rows, sizeof(fr_t));
    if (!rc) rc = cs_vec_reserve((void **)&p->c.v, &p->c.cap, rows, sizeof(fr_t));
    if (!rc) rc = cs_vec_reserve((void **)&p->input.v, &p->input.cap, h->inputs, sizeof(fr_t));
    if (!rc) rc = cs_vec_reserve((void **)&p->aux.v, &p->aux.cap, h->aux, sizeof(fr_t));
    if (!rc) rc = cs_bits_reserve(&p->b_input, h->inputs);
    if (!rc) rc = cs_bits_reserve(&p->a_aux, h->aux);
    if (!rc) rc = cs_bits_reserve(&p->b_aux, h->aux);
    return rc;
}

static cs_bitmap take_bits(bit_vec *b)
{
    return (cs_bitmap){b->w, b->nbits};
}

int cs_synthesize_prover(cs_prover *out, cs_circuit circuit, const cs_capacity *hint, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    prover_cs p = {0};
    cs_init(&p.cs, &prover_ops, true);
    fr_neg(&p.minus_one, &FR_ONE);
    if (hint && reserve_hint(&p, hint)) {
        prover_release(&p);
        return cuzk_errf(err, CUZK_ENOMEM, "prover: cannot reserve %zu constraints, %zu aux",
                         hint->constraints, hint->aux);
    }
    int rc = cs_run(&p.cs, circuit, err);
    if (rc) {
        prover_release(&p);
        return rc;
    }
    out->num_constraints = p.cs.num_constraints;
    out->num_inputs = p.cs.num_inputs;
    out->num_aux = p.cs.num_aux;
    out->a = p.a.v, out->b = p.b.v, out->c = p.c.v;
    out->input_assignment = p.input.v;
    out->aux_assignment = p.aux.v;
    out->a_aux_density = take_bits(&p.a_aux);
    out->b_input_density = take_bits(&p.b_input);
    out->b_aux_density = take_bits(&p.b_aux);
    return 0;
}

void cs_prover_free(cs_prover *p)
{
    free(p->a), free(p->b), free(p->c), free(p->input_assignment), free(p->aux_assignment);
    free(p->a_aux_density.words), free(p->b_input_density.words), free(p->b_aux_density.words);
    memset(p, 0, sizeof(*p));
}
