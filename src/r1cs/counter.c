/*
 * counter.c - the counter backend: sizes, density popcounts and the R1CS
 * fingerprint with nothing stored per constraint, so a 130-million
 * constraint circuit runs in bounded memory (three bits per variable for
 * the densities, the same rule as the prover's: a non-zero merged
 * coefficient in some A, resp. B, combination).
 */
#include "r1cs/cs_internal.h"
#include "r1cs/fingerprint.h"

#include <stdlib.h>
#include <string.h>

typedef struct counter_cs {
    cs_t cs;
    bit_vec a_aux, b_input, b_aux;
    fph hash;
} counter_cs;

static int counter_alloc(cs_t *cs, uint32_t kind, const fr_t *value)
{
    (void)value;
    counter_cs *k = (counter_cs *)cs;
    if (kind == CS_INPUT) return bit_vec_push0(&k->b_input);
    int rc = bit_vec_push0(&k->a_aux);
    return rc ? rc : bit_vec_push0(&k->b_aux);
}

static int hash_lc(fph *h, const cs_lc *lc)
{
    const cs_term *t = lc_terms(lc);
    uint32_t count = 0;
    for (uint32_t i = 0; i < lc->len; i++) count += !fr_is_zero(&t[i].coeff);
    int rc = fph_lc(h, count);
    for (uint32_t i = 0; i < lc->len && !rc; i++)
        if (!fr_is_zero(&t[i].coeff)) rc = fph_term(h, t[i].var.kind, t[i].var.index, &t[i].coeff);
    return rc;
}

static int counter_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    counter_cs *k = (counter_cs *)cs;
    lc_mark_density(a, NULL, k->a_aux.w);
    lc_mark_density(b, k->b_input.w, k->b_aux.w);
    int rc = hash_lc(&k->hash, a);
    if (!rc) rc = hash_lc(&k->hash, b);
    if (!rc) rc = hash_lc(&k->hash, c);
    return rc;
}

static const cs_ops counter_ops = {counter_alloc, counter_enforce};

int cs_count(cs_counts *out, cs_circuit circuit, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    counter_cs *k = calloc(1, sizeof(*k));
    if (!k || fph_init(&k->hash)) {
        free(k);
        return cuzk_errf(err, CUZK_ENOMEM, "counter: out of memory");
    }
    cs_init(&k->cs, &counter_ops, false);
    int rc = cs_run(&k->cs, circuit, err);
    if (!rc) {
        out->num_constraints = k->cs.num_constraints;
        out->num_inputs = k->cs.num_inputs;
        out->num_aux = k->cs.num_aux;
        out->a_aux_density = cs_bits_popcount(k->a_aux.w, k->a_aux.nbits);
        out->b_input_density = cs_bits_popcount(k->b_input.w, k->b_input.nbits);
        out->b_aux_density = cs_bits_popcount(k->b_aux.w, k->b_aux.nbits);
        rc = fph_final(&k->hash, out->num_inputs, out->num_aux, out->num_constraints,
                       out->fingerprint);
        if (rc) cuzk_errf(err, rc, "counter: SHA-256 failed");
    }
    fph_free(&k->hash);
    free(k->a_aux.w), free(k->b_input.w), free(k->b_aux.w);
    free(k);
    return rc;
}
