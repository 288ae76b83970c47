/*
 * circuit.c - a circom R1CS as a cs_circuit: public signals (outputs, then
 * public inputs) become our inputs after ONE, the other wires aux, in wire
 * order; each constraint is enforced as written. Our constraint system then
 * appends x_i * 0 = 0 per input, exactly the extra A rows snarkjs adds, so
 * both sides build the same QAP. Values come from a witness when one is
 * given (proving), otherwise none (setup, counting).
 */
#include "cuzk/snarkjs.h"

#include <stdlib.h>

static int build_lc(cs_t *cs, cs_lc *lc, const snarkjs_r1cs *r, const cs_var *vars, uint64_t k)
{
    lc_clear(lc);
    for (uint64_t t = r->off[k]; t < r->off[k + 1]; t++)
        lc_add_term(lc, vars[r->terms[t].wire], &r->terms[t].coef);
    return cs_status(cs);
}

static int r1cs_synthesize(cs_t *cs, void *vctx)
{
    const snarkjs_r1cs_ctx *c = vctx;
    const snarkjs_r1cs *r = c->r;
    bool values = cs_needs_values(cs);
    if (values && (!c->w || c->w->n != r->n_wires))
        return cs_fail(cs, CUZK_EINVAL, "witness has %u values, the r1cs has %u wires",
                       c->w ? c->w->n : 0, r->n_wires);
    cs_var *vars = malloc(sizeof(cs_var) * r->n_wires);
    if (!vars) return cs_fail(cs, CUZK_ENOMEM, "r1cs circuit: out of memory");
    uint32_t n_public = r->n_outputs + r->n_pub_inputs;
    vars[0] = cs_one();
    for (uint32_t i = 1; i < r->n_wires; i++) {
        const fr_t *v = values ? &c->w->values[i] : NULL;
        vars[i] = i <= n_public ? cs_alloc_input(cs, v) : cs_alloc(cs, v);
    }
    cs_lc a = {0}, b = {0}, o = {0};
    for (uint64_t j = 0; j < r->n_constraints && !cs_status(cs); j++) {
        build_lc(cs, &a, r, vars, 3 * j);
        build_lc(cs, &b, r, vars, 3 * j + 1);
        build_lc(cs, &o, r, vars, 3 * j + 2);
        cs_enforce(cs, &a, &b, &o);
    }
    lc_free(&a), lc_free(&b), lc_free(&o);
    free(vars);
    return cs_status(cs);
}

cs_circuit snarkjs_r1cs_circuit(snarkjs_r1cs_ctx *ctx, const snarkjs_r1cs *r, const snarkjs_wtns *w)
{
    ctx->r = r;
    ctx->w = w;
    return (cs_circuit){r1cs_synthesize, ctx};
}
