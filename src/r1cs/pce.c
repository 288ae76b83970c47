/*
 * pce.c - the pre-compiled evaluator: a circuit recorded once (recorder.c)
 * proves many witnesses by synthesizing values only (witness.c, no linear
 * combination is evaluated there) and multiplying the sparse matrices by
 * the witness here, rows spread over all threads. The density bitmaps are
 * a property of the matrices, not of the witness: a column with an entry
 * in A (resp. B) is dense, since recorded entries are never zero.
 */
#include "r1cs/cs_internal.h"

#include <stdlib.h>
#include <string.h>

/* Bitmaps of the columns present in m: inputs into in_bits (may be NULL),
 * aux into aux_bits. */
static void mark_columns(const cs_matrix *m, size_t num_inputs, uint64_t *in_bits,
                         uint64_t *aux_bits)
{
    for (size_t k = 0; k < m->nnz; k++) {
        size_t col = m->idx[k];
        if (col >= num_inputs)
            bit_set(aux_bits, col - num_inputs);
        else if (in_bits)
            bit_set(in_bits, col);
    }
}

static int new_bitmap(cs_bitmap *b, size_t nbits)
{
    b->nbits = nbits;
    b->words = calloc(nbits / 64 + 1, sizeof(uint64_t));
    return b->words ? 0 : CUZK_ENOMEM;
}

int cs_prover_from_witness(cs_prover *out, const cs_r1cs *r, cs_witness *w, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    int rc = 0;
    if (r->layout != CS_BY_CONSTRAINT)
        rc = cuzk_errf(err, CUZK_EINVAL, "pre-compiled evaluator: matrices must be by constraint");
    else if (w->num_inputs != r->num_inputs || w->num_aux != r->num_aux)
        rc = cuzk_errf(err, CUZK_ELENGTH,
                       "pre-compiled evaluator: witness has %zu inputs and %zu aux, the R1CS %zu "
                       "and %zu",
                       w->num_inputs, w->num_aux, r->num_inputs, r->num_aux);
    size_t n = r->num_constraints;
    out->num_constraints = n, out->num_inputs = r->num_inputs, out->num_aux = r->num_aux;
    out->input_assignment = w->input_assignment, out->aux_assignment = w->aux_assignment;
    memset(w, 0, sizeof(*w));
    if (!rc) {
        out->a = malloc((n ? n : 1) * sizeof(fr_t));
        out->b = malloc((n ? n : 1) * sizeof(fr_t));
        out->c = malloc((n ? n : 1) * sizeof(fr_t));
        if (!out->a || !out->b || !out->c || new_bitmap(&out->a_aux_density, r->num_aux) ||
            new_bitmap(&out->b_input_density, r->num_inputs) ||
            new_bitmap(&out->b_aux_density, r->num_aux))
            rc = cuzk_errf(err, CUZK_ENOMEM, "pre-compiled evaluator: out of memory for %zu rows",
                           n);
    }
    if (rc) {
        cs_prover_free(out);
        return rc;
    }
    cs_r1cs_eval(r, out->input_assignment, out->aux_assignment, out->a, out->b, out->c);
    mark_columns(&r->a, r->num_inputs, NULL, out->a_aux_density.words);
    mark_columns(&r->b, r->num_inputs, out->b_input_density.words, out->b_aux_density.words);
    return 0;
}
