/*
 * cs.c - the constraint-system core behind every backend: variable
 * numbering, a check of every term against the variables allocated so far,
 * the sticky error, and the runner that applies bellperson's conventions
 * (ONE allocated as input 0 before the circuit, x_i * 0 = 0 appended for
 * every input after it).
 *
 * For the witness backend (needs_constraints false) it also counts the
 * constraints gadgets do not build (cs_enforce_skip, cs_skip_constraint,
 * cs_alloc_bits) against the same window, and stores aux values straight
 * into the backend's array while it has room (aux_direct), so a bit costs
 * a store and a count.
 */
#include "r1cs/cs_internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* n bits' values (FR_ONE or 0) from `values` into out[0 .. n). The witness
 * is written once and read later by other threads (the prover's staging
 * copy) from memory, so on x86 the lines are streamed without being read
 * first (non-temporal stores: half the memory traffic); the thread fences
 * them once its unit or synthesis is done (cs_store_fence), not here,
 * where a fence per call made the whole witness 2.2x slower. */
static void store_bits(fr_t *out, uint64_t values, unsigned n)
{
#if defined(__SSE2__)
    if (((uintptr_t)out & 15) == 0) {
        for (unsigned k = 0; k < n; k++) {
            long long m = -(long long)((values >> k) & 1);
            __m128i lo = _mm_set_epi64x((long long)FR_ONE.l[1] & m, (long long)FR_ONE.l[0] & m);
            __m128i hi = _mm_set_epi64x((long long)FR_ONE.l[3] & m, (long long)FR_ONE.l[2] & m);
            _mm_stream_si128((__m128i *)(void *)out[k].l, lo);
            _mm_stream_si128((__m128i *)(void *)(out[k].l + 2), hi);
        }
        return;
    }
#endif
    for (unsigned k = 0; k < n; k++) { /* FR_ONE masked by the bit */
        uint64_t m = -((values >> k) & 1);
        out[k] = (fr_t){{FR_ONE.l[0] & m, FR_ONE.l[1] & m, FR_ONE.l[2] & m, FR_ONE.l[3] & m}};
    }
}

void cs_init(cs_t *cs, const cs_ops *ops, bool needs_values)
{
    memset(cs, 0, sizeof(*cs));
    cs->ops = ops;
    cs->needs_values = needs_values;
    cs->needs_constraints = true;
    cs->lim_inputs = cs->lim_aux = CS_MAX_VARS;
    cs->lim_constraints = SIZE_MAX;
}

void cs_init_child(cs_t *child, const cs_t *parent, const cs_ops *ops, const cs_capacity *at,
                   const cs_capacity *size)
{
    cs_init(child, ops, parent->needs_values);
    child->needs_constraints = parent->needs_constraints;
    child->num_inputs = parent->num_inputs + at->inputs;
    child->num_aux = parent->num_aux + at->aux;
    child->num_constraints = parent->num_constraints + at->constraints;
    child->lim_inputs = child->num_inputs + size->inputs;
    child->lim_aux = child->num_aux + size->aux;
    child->lim_constraints = child->num_constraints + size->constraints;
}

int cs_fail(cs_t *cs, int code, const char *fmt, ...)
{
    if (cs->status) return code;
    va_list ap;
    va_start(ap, fmt);
    cs->status = code ? code : CUZK_EINVAL;
    cs->err.code = cs->status;
    vsnprintf(cs->err.msg, sizeof(cs->err.msg), fmt, ap);
    va_end(ap);
    return code;
}

static const char *kind_name(uint32_t kind)
{
    return kind == CS_INPUT ? "input" : "aux";
}

static cs_var alloc_var(cs_t *cs, uint32_t kind, const fr_t *value)
{
    size_t *count = kind == CS_INPUT ? &cs->num_inputs : &cs->num_aux;
    size_t lim = kind == CS_INPUT ? cs->lim_inputs : cs->lim_aux;
    cs_var v = {(uint32_t)(*count < CS_MAX_VARS ? *count : 0), kind};
    if (cs->status) return v;
    if (*count >= lim) {
        if (lim == CS_MAX_VARS)
            cs_fail(cs, CUZK_EUNSUPPORTED, "more than %zu %s variables", CS_MAX_VARS,
                    kind_name(kind));
        else
            cs_fail(cs, CUZK_EINVAL, "%s variable %zu is past the unit's window (ends at %zu)",
                    kind_name(kind), *count, lim);
        return v;
    }
    if (cs->needs_values && !value) {
        cs_fail(cs, CUZK_EINVAL, "%s variable %zu allocated without a value", kind_name(kind),
                *count);
        return v;
    }
    int rc = cs->ops->alloc(cs, kind, value);
    if (rc) {
        cs_fail(cs, rc, "%s variable %zu: %s", kind_name(kind), *count, cuzk_status_str(rc));
        return v;
    }
    (*count)++;
    return v;
}

cs_var cs_alloc(cs_t *cs, const fr_t *value)
{
    size_t i = cs->num_aux;
    if (i < cs->aux_direct_end && value && !cs->status) {
        cs->aux_direct[i] = *value;
        cs->num_aux = i + 1;
        return (cs_var){(uint32_t)i, CS_AUX};
    }
    return alloc_var(cs, CS_AUX, value);
}

cs_var cs_alloc_bits(cs_t *cs, uint64_t values, unsigned n, size_t constraints)
{
    size_t i = cs->num_aux;
    cs_var first = {(uint32_t)(i < CS_MAX_VARS ? i : 0), CS_AUX};
    if (cs->status) return first;
    if (n > 64 || cs->needs_constraints) {
        cs_fail(cs, CUZK_EINVAL, "aux variable %zu: %u bits with %zu constraints counted %s", i, n,
                constraints, n > 64 ? "(at most 64)" : "on a backend that needs constraints");
        return first;
    }
    if (i <= cs->aux_direct_end && n <= cs->aux_direct_end - i &&
        constraints <= cs->lim_constraints - cs->num_constraints) {
        store_bits(cs->aux_direct + i, values, n);
        cs->num_aux = i + n;
        cs->num_constraints += constraints;
        return first;
    }
    for (unsigned k = 0; k < n; k++) alloc_var(cs, CS_AUX, (values >> k) & 1 ? &FR_ONE : &FR_ZERO);
    cs_enforce_skip(cs, constraints);
    return first;
}

cs_var cs_alloc_input(cs_t *cs, const fr_t *value)
{
    return alloc_var(cs, CS_INPUT, value);
}

/* Every term must name an allocated variable and the lc must be intact. */
static int check_lc(cs_t *cs, const cs_lc *lc, char which)
{
    if (lc->status)
        return cs_fail(cs, lc->status, "constraint %zu: %c combination: %s", cs->num_constraints,
                       which, cuzk_status_str(lc->status));
    const cs_term *t = lc_terms(lc);
    for (uint32_t i = 0; i < lc->len; i++) {
        size_t n = t[i].var.kind == CS_INPUT ? cs->num_inputs : cs->num_aux;
        if (t[i].var.kind > CS_AUX || t[i].var.index >= n)
            return cs_fail(cs, CUZK_EINVAL,
                           "constraint %zu: %c uses %s variable %u but %zu are allocated",
                           cs->num_constraints, which, kind_name(t[i].var.kind), t[i].var.index, n);
    }
    return 0;
}

int cs_check_terms(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    if (check_lc(cs, a, 'A') || check_lc(cs, b, 'B') || check_lc(cs, c, 'C')) return cs->status;
    return 0;
}

/* One constraint, through enforce_known when the caller gave values (v)
 * and the backend takes them. */
static int enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c, const int *v)
{
    if (cs->status) return cs->status;
    if (cs->num_constraints >= cs->lim_constraints)
        return cs_fail(cs, CUZK_EINVAL, "constraint %zu is past the unit's window (ends at %zu)",
                       cs->num_constraints, cs->lim_constraints);
    if (!cs->checks_terms && cs_check_terms(cs, a, b, c)) return cs->status;
    int rc =
        v && cs->enforce_known ? cs->enforce_known(cs, a, b, c, v) : cs->ops->enforce(cs, a, b, c);
    if (rc) return cs_fail(cs, rc, "constraint %zu: %s", cs->num_constraints, cuzk_status_str(rc));
    cs->num_constraints++;
    return 0;
}

int cs_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    return enforce(cs, a, b, c, NULL);
}

int cs_enforce_known(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c, int va, int vb,
                     int vc)
{
    if (va < -2 || va > 2 || vb < -2 || vb > 2 || vc < -2 || vc > 2)
        return cs_fail(cs, CUZK_EINVAL, "constraint %zu: known values %d, %d, %d out of -2..2",
                       cs->num_constraints, va, vb, vc);
    int v[3] = {va, vb, vc};
    return enforce(cs, a, b, c, v);
}

int cs_enforce_skip(cs_t *cs, size_t n)
{
    if (cs->status) return cs->status;
    if (cs->needs_constraints)
        return cs_fail(cs, CUZK_EINVAL,
                       "constraint %zu: %zu skipped on a backend that needs constraints",
                       cs->num_constraints, n);
    if (n > cs->lim_constraints - cs->num_constraints)
        return cs_fail(cs, CUZK_EINVAL,
                       "constraints %zu .. %zu are past the unit's window (ends at %zu)",
                       cs->num_constraints, cs->num_constraints + n - 1, cs->lim_constraints);
    cs->num_constraints += n;
    return 0;
}

bool cs_skip_constraint(cs_t *cs)
{
    if (cs->needs_constraints) return false;
    if (!cs->status && cs->num_constraints < cs->lim_constraints)
        cs->num_constraints++;
    else
        cs_enforce_skip(cs, 1); /* fails the cs, or it had failed */
    return true;
}

bool cs_needs_values(const cs_t *cs)
{
    return cs->needs_values;
}
bool cs_needs_constraints(const cs_t *cs)
{
    return cs->needs_constraints;
}
int cs_status(const cs_t *cs)
{
    return cs->status;
}
size_t cs_num_inputs(const cs_t *cs)
{
    return cs->num_inputs;
}
size_t cs_num_aux(const cs_t *cs)
{
    return cs->num_aux;
}
size_t cs_num_constraints(const cs_t *cs)
{
    return cs->num_constraints;
}

static void append_input_constraints(cs_t *cs)
{
    if (!cs->needs_constraints) {
        cs_enforce_skip(cs, cs->num_inputs);
        return;
    }
    cs_lc x = {0}, zero = {0};
    for (size_t i = 0; i < cs->num_inputs && !cs->status; i++) {
        lc_clear(&x);
        lc_add_var(&x, (cs_var){(uint32_t)i, CS_INPUT});
        cs_enforce(cs, &x, &zero, &zero);
    }
}

int cs_run(cs_t *cs, cs_circuit circuit, cuzk_err *err)
{
    cs_alloc_input(cs, &FR_ONE);
    if (!cs->status) {
        int rc = circuit.synthesize(cs, circuit.ctx);
        if (rc && !cs->status) cs_fail(cs, rc, "circuit failed: %s", cuzk_status_str(rc));
    }
    if (!cs->status) append_input_constraints(cs);
    if (cs->status && err) *err = cs->err;
    return cs->status;
}
