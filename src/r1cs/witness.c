/*
 * witness.c - the witness-only backend: variable values and nothing else
 * (enforce does no work), for the pre-compiled evaluator path where the
 * recorded matrices turn the witness into a, b, c. Input values are kept
 * too; there are few of them and the prover needs them.
 */
#include "r1cs/cs_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct witness_cs {
    cs_t cs;
    fr_vec input, aux;
} witness_cs;

static int witness_alloc(cs_t *cs, uint32_t kind, const fr_t *value)
{
    witness_cs *w = (witness_cs *)cs;
    return fr_vec_push(kind == CS_INPUT ? &w->input : &w->aux, value);
}

static int witness_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    (void)cs, (void)a, (void)b, (void)c;
    return 0;
}

static const cs_ops witness_ops = {witness_alloc, witness_enforce};

int cs_synthesize_witness(cs_witness *out, cs_circuit circuit, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    witness_cs w = {0};
    cs_init(&w.cs, &witness_ops, true);
    int rc = cs_run(&w.cs, circuit, err);
    if (rc) {
        free(w.input.v), free(w.aux.v);
        return rc;
    }
    out->num_inputs = w.cs.num_inputs;
    out->num_aux = w.cs.num_aux;
    out->input_assignment = w.input.v;
    out->aux_assignment = w.aux.v;
    return 0;
}

void cs_witness_free(cs_witness *w)
{
    free(w->input_assignment), free(w->aux_assignment);
    memset(w, 0, sizeof(*w));
}
