/*
 * poseidon_replay.c - the fast form of neptune's legacy Poseidon circuit.
 *
 * The circuit's shape and coefficients depend only on the constants, never
 * on the values, and every constraint follows exactly one allocation. So
 * once per (arity, strength) the walk (poseidon.c) is recorded over
 * `arity` placeholder inputs into a template: constraint k, allocated
 * after variable k, as rows of A, B, C over ONE, the preimage and the
 * internal variables. A hash then allocates variable k with its value and
 * adds row k with the placeholders mapped onto the caller's variables:
 * no field arithmetic on coefficients and no merging of combinations.
 *
 * The values come from a traced native hash (poseidon_trace: neptune's
 * OptimizedStatic order, the same as the circuit's): per S-box the input
 * when it is allocated, x^2, x^4 and x^5 + key (the first round's inputs
 * enter as x + key); the output last. A caller that knows its next
 * hashes' preimages (a sector's Merkle paths: por.h por_ahead_paths) has
 * their traces computed eight at a time in the IFMA lanes
 * (poseidon_trace_lanes) and queued for the calling thread
 * (poseidon_gadget_ahead); each hash takes the one queued for its place
 * if it is its own (same constants and preimage) and traces itself
 * otherwise, so what is queued changes the time, never the values.
 *
 * On a backend that does not read constraints (the witness) only the
 * traced values are allocated and the template's constraints counted.
 *
 * hash_md (filecoin-hashers' chained arity-36 hash) is built on it here.
 */
#include "cuzk/gadgets/poseidon.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ff/field_inline.h"

typedef struct template
{
    size_t arity, n; /* n allocations = n constraints */
    cs_r1cs r;       /* recorded by constraint; column 0 ONE, 1 + j aux j */
}
template;

/* ---- recording ---- */

static int record_synth(cs_t *cs, void *p)
{
    const poseidon_constants *c = p;
    num_var in[POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < c->arity; i++) in[i] = num_alloc(cs, NULL);
    poseidon_gadget_hash_walk(cs, c, in);
    return cs_status(cs);
}

static template *template_build(const poseidon_constants *c, cuzk_err *err)
{
    template *t = calloc(1, sizeof(*t));
    if (!t) {
        cuzk_errf(err, CUZK_ENOMEM, "poseidon circuit template: out of memory");
        return NULL;
    }
    if (cs_record(&t->r, (cs_circuit){record_synth, (void *)c}, err)) {
        free(t);
        return NULL;
    }
    t->arity = c->arity;
    t->n = poseidon_gadget_constraints(c);
    /* The walk's shape: one allocation per constraint, ONE the only input. */
    if (t->r.num_inputs != 1 || t->r.num_aux != t->arity + t->n ||
        t->r.num_constraints != t->n + 1) {
        cuzk_errf(err, CUZK_EINVAL, "poseidon circuit template: unexpected shape");
        cs_r1cs_free(&t->r);
        free(t);
        return NULL;
    }
    return t;
}

static _Atomic(template *) templates[2][POSEIDON_MAX_ARITY + 1];
static pthread_mutex_t templates_lock = PTHREAD_MUTEX_INITIALIZER;

static const template *template_get(const poseidon_constants *c, cuzk_err *err)
{
    _Atomic(template *) *slot = &templates[c->strength][c->arity];
    template *t = atomic_load_explicit(slot, memory_order_acquire);
    if (t) return t;
    pthread_mutex_lock(&templates_lock);
    t = atomic_load_explicit(slot, memory_order_relaxed);
    if (!t) {
        t = template_build(c, err);
        if (t) atomic_store_explicit(slot, t, memory_order_release);
    }
    pthread_mutex_unlock(&templates_lock);
    return t;
}

/* ---- traced native hash ---- */

/* The calling thread's traces computed ahead (poseidon_gadget_ahead). */
static _Thread_local struct {
    const poseidon_ahead *a;
    size_t n, next, taken;
} ahead;

void poseidon_gadget_ahead(const poseidon_ahead *a, size_t n)
{
    ahead.a = n ? a : NULL, ahead.n = n, ahead.next = ahead.taken = 0;
}

size_t poseidon_gadget_ahead_left(void)
{
    return ahead.n - ahead.taken;
}

/* The hash's values (poseidon_trace): the next trace computed ahead, the
 * one queued for this hash's place, when it is this hash's (its constants
 * and preimage; returned as it is), else traced here into *own (NULL when
 * that cannot be allocated); either way the place is used up, so a path
 * whose values were not the ones traced costs only its own hashes. */
static const fr_t *trace_hash(fr_t **own, const poseidon_constants *c, const num_var *preimage)
{
    fr_t pre[POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < c->arity; i++) pre[i] = preimage[i].value;
    if (ahead.next < ahead.n) {
        const poseidon_ahead *a = &ahead.a[ahead.next++];
        if (a->c == c && !memcmp(a->preimage, pre, c->arity * sizeof(fr_t))) {
            ahead.taken++;
            return a->trace;
        }
    }
    if ((*own = malloc(poseidon_trace_len(c) * sizeof(fr_t)))) poseidon_trace(*own, c, pre);
    return *own;
}

/* ---- replay ---- */

/* lc := row k of m, columns mapped: 0 ONE, 1 + j < 1 + arity the preimage,
 * beyond that the internal variables. */
static void map_row(cs_lc *lc, const cs_matrix *m, size_t k, const template *t,
                    const num_var *preimage, const cs_var *vars)
{
    lc_clear(lc);
    for (uint64_t e = m->ptr[k]; e < m->ptr[k + 1]; e++) {
        size_t col = m->idx[e];
        cs_var v = col == 0          ? cs_one()
                   : col <= t->arity ? preimage[col - 1].var
                                     : vars[col - 1 - t->arity];
        lc_add_term(lc, v, &m->val[e]);
    }
}

/* The hash's variables on a backend that does not read constraints: the
 * values allocated in order, the n constraints counted. */
static num_var replay_values(cs_t *cs, const template *t, const fr_t *values)
{
    cs_var out = cs_one();
    for (size_t k = 0; k < t->n; k++) out = cs_alloc(cs, values ? &values[k] : NULL);
    cs_enforce_skip(cs, t->n);
    if (cs_status(cs)) return (num_var){cs_one(), FR_ZERO};
    return (num_var){out, values ? values[t->n - 1] : FR_ZERO};
}

static num_var replay(cs_t *cs, const template *t, const num_var *preimage, const fr_t *values,
                      cs_var *vars)
{
    if (!cs_needs_constraints(cs)) return replay_values(cs, t, values);
    cs_lc a = {0}, b = {0}, c = {0};
    size_t k = 0;
    for (; k < t->n && !cs_status(cs); k++) {
        vars[k] = cs_alloc(cs, values ? &values[k] : NULL);
        map_row(&a, &t->r.a, k, t, preimage, vars);
        map_row(&b, &t->r.b, k, t, preimage, vars);
        map_row(&c, &t->r.c, k, t, preimage, vars);
        cs_enforce(cs, &a, &b, &c);
    }
    lc_free(&a), lc_free(&b), lc_free(&c);
    if (k < t->n) return (num_var){cs_one(), FR_ZERO}; /* the cs failed */
    return (num_var){vars[t->n - 1], values ? values[t->n - 1] : FR_ZERO};
}

/* Whether c carries the Merkle-tree tag 2^arity - 1 (templates are cached
 * per arity and strength for that tag only). */
static bool merkle_tag(const poseidon_constants *c)
{
    fr_t tag;
    fr_from_u64(&tag, (UINT64_C(1) << c->arity) - 1);
    return fr_eq(&tag, &c->domain_tag);
}

num_var poseidon_gadget_hash(cs_t *cs, const poseidon_constants *c, const num_var *preimage)
{
    if (!merkle_tag(c))
        return poseidon_gadget_hash_walk(cs, c, preimage); /* rare: SnapDeals' phi */
    cuzk_err err;
    const template *t = template_get(c, &err);
    bool constraints = cs_needs_constraints(cs), values = cs_needs_values(cs);
    fr_t *own = NULL;
    const fr_t *vals = t && values ? trace_hash(&own, c, preimage) : NULL;
    cs_var *vars = t && constraints ? malloc(t->n * sizeof(cs_var)) : NULL; /* else none mapped */
    num_var out = {cs_one(), FR_ZERO};
    if (!t)
        cs_fail(cs, err.code, "poseidon circuit: %s", err.msg);
    else if ((constraints && !vars) || (values && !vals))
        cs_fail(cs, CUZK_ENOMEM, "poseidon circuit: out of memory");
    else
        out = replay(cs, t, preimage, vals, vars);
    free(own);
    free(vars);
    return out;
}

num_var poseidon_gadget_hash_md(cs_t *cs, const num_var *elements, size_t n)
{
    if (n < 2) {
        cs_fail(cs, CUZK_EINVAL, "poseidon hash_md circuit: %zu elements (at least 2)", n);
        return elements[0];
    }
    const poseidon_constants *c = poseidon_std(POSEIDON_MD_ARITY);
    num_var pre[POSEIDON_MD_ARITY], acc = elements[0];
    fr_t zero = FR_ZERO;
    for (size_t i = 1; i < n && !cs_status(cs); i += POSEIDON_MD_ARITY - 1) {
        size_t k = n - i < POSEIDON_MD_ARITY - 1 ? n - i : POSEIDON_MD_ARITY - 1;
        pre[0] = acc;
        memcpy(&pre[1], &elements[i], k * sizeof(num_var));
        for (size_t j = k + 1; j < POSEIDON_MD_ARITY; j++) pre[j] = num_alloc(cs, &zero);
        acc = poseidon_gadget_hash(cs, c, pre);
    }
    return acc;
}
