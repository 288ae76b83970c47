/*
 * prover.c - the prover backend: per constraint the values of A, B and C on
 * the witness, the input and aux assignments, and the density bitmaps the
 * Groth16 MSMs select their bases with.
 *
 * It matches bellperson's ProvingAssignment (groth16/prover/mod.rs and
 * lc.rs eval_with_trackers): A is evaluated with the aux density tracker
 * only (inputs are dense in A because of the x_i * 0 = 0 constraints), B
 * with both trackers, C with none; a term whose merged coefficient is zero
 * is skipped, for the value and for the density.
 *
 * Speed: this is the per-constraint cost of witness synthesis. The field
 * operations are inlined; a coefficient of one or minus one adds or
 * subtracts the value, and any other coefficient (2 in XOR, 2^k in the
 * MultiEq and packing sums) meets mostly bit values, so a value of zero is
 * skipped and a value of one adds the coefficient: a multiplication only
 * for a general value times a general coefficient. The terms are
 * bounds-checked in the same pass (cs->checks_terms; the core's check only
 * runs to word the error). Storage is indexed by the core's counts, so an
 * allocation is one store once capacity is there; vectors double (with
 * transparent huge pages on large blocks, vec.c) unless a hint or
 * cs_run_units reserves them. cs_synthesize_prover_into starts from the
 * storage of an earlier result (the engine's partition pool): every entry
 * below the counts is written again, and the density words are zeroed
 * first, so only pages past the old capacity are new.
 *
 * Constraints of the bit gadgets come with their values (cs_enforce_known,
 * -2 .. 2): their combinations are only checked and marked, and the
 * values stored from a table.
 *
 * Forks (cs_run_units): a child shares the root's storage and writes the
 * window the core gives it; it may fork again inside its window. Density
 * bits of words wholly inside its aux window are its own and set plainly;
 * any other word (window edges, the variables allocated before the units,
 * input bits) is set with an atomic OR, after a plain read that skips
 * bits already set.
 */
#include "ff/field_inline.h"
#include "r1cs/cs_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct prover_store {
    fr_t *a, *b, *c, *input, *aux;
    size_t cap_con, cap_in, cap_aux;
    uint64_t *a_aux, *b_input, *b_aux; /* bits for cap_aux / cap_in variables */
} prover_store;

typedef struct prover_cs {
    cs_t cs;
    prover_store *st;      /* &own for the root, the root's for a child */
    size_t own_lo, own_hi; /* aux density words only this cs writes */
    fr_t small[5];         /* -2 .. 2, the values cs_enforce_known gives */
    prover_store own;
} prover_cs;

bool cs_prover_known_values = true;

/* ---- storage ---- */

static int grow_fr(fr_t **v, size_t *cap, size_t need, bool exact)
{
    return exact ? cs_vec_resize((void **)v, cap, need, sizeof(fr_t))
                 : cs_vec_reserve((void **)v, cap, need, sizeof(fr_t));
}

/* A bitmap for `bits` variables, its new words zero. */
static int grow_bits(uint64_t **w, size_t old_bits, size_t bits)
{
    size_t old = (old_bits + 63) / 64, words = (bits + 63) / 64, cap = old;
    if (words <= old) return 0;
    int rc = cs_vec_resize((void **)w, &cap, words, sizeof(uint64_t));
    if (!rc) memset(*w + old, 0, (words - old) * sizeof(uint64_t));
    return rc;
}

static int grow_aux(prover_store *s, size_t need, bool exact)
{
    size_t old = s->cap_aux, cap = old;
    int rc = grow_fr(&s->aux, &cap, need, exact);
    if (!rc) rc = grow_bits(&s->a_aux, old, cap);
    if (!rc) rc = grow_bits(&s->b_aux, old, cap);
    if (!rc) s->cap_aux = cap;
    return rc;
}

static int grow_inputs(prover_store *s, size_t need, bool exact)
{
    size_t old = s->cap_in, cap = old;
    int rc = grow_fr(&s->input, &cap, need, exact);
    if (!rc) rc = grow_bits(&s->b_input, old, cap);
    if (!rc) s->cap_in = cap;
    return rc;
}

static int grow_constraints(prover_store *s, size_t need, bool exact)
{
    size_t ca = s->cap_con, cb = ca, cc = ca;
    int rc = grow_fr(&s->a, &ca, need, exact);
    if (!rc) rc = grow_fr(&s->b, &cb, need, exact);
    if (!rc) rc = grow_fr(&s->c, &cc, need, exact);
    if (!rc) s->cap_con = ca < cb ? (ca < cc ? ca : cc) : (cb < cc ? cb : cc);
    return rc;
}

static void store_free(prover_store *s)
{
    free(s->a), free(s->b), free(s->c), free(s->input), free(s->aux);
    free(s->a_aux), free(s->b_input), free(s->b_aux);
    memset(s, 0, sizeof(*s));
}

/* ---- allocation and evaluation ---- */

static int prover_alloc(cs_t *cs, uint32_t kind, const fr_t *value)
{
    prover_cs *p = (prover_cs *)cs;
    prover_store *s = p->st;
    bool root = s == &p->own; /* a child's window is reserved: it never grows */
    if (kind == CS_INPUT) {
        size_t i = cs->num_inputs;
        if (i >= s->cap_in && (!root || grow_inputs(s, i + 1, false))) return CUZK_ENOMEM;
        s->input[i] = *value;
        return 0;
    }
    size_t i = cs->num_aux;
    if (i >= s->cap_aux && (!root || grow_aux(s, i + 1, false))) return CUZK_ENOMEM;
    s->aux[i] = *value;
    return 0;
}

static inline bool limbs_eq(const fr_t *x, const fr_t *y)
{
    return !((x->l[0] ^ y->l[0]) | (x->l[1] ^ y->l[1]) | (x->l[2] ^ y->l[2]) | (x->l[3] ^ y->l[3]));
}

static inline bool limbs_zero(const fr_t *x)
{
    return !(x->l[0] | x->l[1] | x->l[2] | x->l[3]);
}

/* Sets bit k; plainly when its word is in [lo, hi), atomically otherwise. */
static inline void mark(uint64_t *w, size_t k, size_t lo, size_t hi)
{
    size_t i = k / 64;
    uint64_t bit = (uint64_t)1 << (k % 64);
    if (i - lo < hi - lo)
        w[i] |= bit;
    else if (!(__atomic_load_n(&w[i], __ATOMIC_RELAXED) & bit))
        __atomic_fetch_or(&w[i], bit, __ATOMIC_RELAXED);
}

/* acc += c x (c non-zero). A bit value times a general coefficient adds c
 * masked by the bit, without a branch on the (random) bit. */
static inline void add_term(fr_t *acc, const fr_t *x, const fr_t *c, const fr_t *minus_one)
{
    fr_t t;
    if (limbs_eq(c, &FR_ONE)) {
        fr_add_inline(acc, acc, x);
    } else if (limbs_eq(c, minus_one)) {
        fr_sub_inline(acc, acc, x);
    } else if ((int)limbs_zero(x) | (int)limbs_eq(x, &FR_ONE)) {
        uint64_t m = -(uint64_t)!limbs_zero(x);
        t = (fr_t){{c->l[0] & m, c->l[1] & m, c->l[2] & m, c->l[3] & m}};
        fr_add_inline(acc, acc, &t);
    } else {
        fr_mul_inline(&t, x, c);
        fr_add_inline(acc, acc, &t);
    }
}

/* What one evaluation reads and marks. */
typedef struct eval_ctx {
    const prover_store *s;
    const fr_t *minus_one;
    size_t n_in, n_aux; /* allocated so far: terms must be below */
    size_t lo, hi;      /* aux words owned (see mark) */
    size_t in_hi;       /* input words owned: all for the root, none for a child */
} eval_ctx;

/* The value of lc, marking its non-zero terms in in_bits / aux_bits (either
 * may be NULL); false on a term past the allocated variables. The sum
 * accumulates in *out itself: a local copied out at the end was read back
 * in 16-byte halves of 8-byte stores, a store-forwarding stall per call. */
static inline bool eval(fr_t *out, const cs_lc *lc, const eval_ctx *e, uint64_t *in_bits,
                        uint64_t *aux_bits)
{
    fr_t *acc = out;
    acc->l[0] = acc->l[1] = acc->l[2] = acc->l[3] = 0;
    const cs_term *t = lc_terms(lc);
    for (uint32_t i = 0; i < lc->len; i++) {
        uint32_t k = t[i].var.index;
        const fr_t *x;
        if (t[i].var.kind == CS_AUX) {
            if (k >= e->n_aux) return false;
            if (limbs_zero(&t[i].coeff)) continue;
            x = &e->s->aux[k];
            if (aux_bits) mark(aux_bits, k, e->lo, e->hi);
        } else {
            if (t[i].var.kind != CS_INPUT || k >= e->n_in) return false;
            if (limbs_zero(&t[i].coeff)) continue;
            x = &e->s->input[k];
            if (in_bits) mark(in_bits, k, 0, e->in_hi);
        }
        add_term(acc, x, &t[i].coeff, e->minus_one);
    }
    return true;
}

static int prover_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    /* -1 in Montgomery form, -R mod r (as BOOL_FR_MINUS_ONE in boolean.c) */
    static const fr_t minus_one = {
        {0xfffffffd00000003, 0xfb38ec08fffb13fc, 0x99ad88181ce5880f, 0x5bc8f5f97cd877d8}};
    prover_cs *p = (prover_cs *)cs;
    prover_store *s = p->st;
    size_t n = cs->num_constraints;
    if (a->status | b->status | c->status) return cs_check_terms(cs, a, b, c);
    if (n >= s->cap_con && (s != &p->own || grow_constraints(s, n + 1, false))) return CUZK_ENOMEM;
    eval_ctx e = {s,
                  &minus_one,
                  cs->num_inputs,
                  cs->num_aux,
                  p->own_lo,
                  p->own_hi,
                  s == &p->own ? SIZE_MAX : 0};
    if (!eval(&s->a[n], a, &e, NULL, s->a_aux) || !eval(&s->b[n], b, &e, s->b_input, s->b_aux) ||
        !eval(&s->c[n], c, &e, NULL, NULL))
        return cs_check_terms(cs, a, b, c);
    return 0;
}

/* The terms of lc checked and marked as eval does, without the values. */
static inline bool mark_only(const cs_lc *lc, const eval_ctx *e, uint64_t *in_bits,
                             uint64_t *aux_bits)
{
    const cs_term *t = lc_terms(lc);
    for (uint32_t i = 0; i < lc->len; i++) {
        uint32_t k = t[i].var.index;
        if (t[i].var.kind == CS_AUX) {
            if (k >= e->n_aux) return false;
            if (aux_bits && !limbs_zero(&t[i].coeff)) mark(aux_bits, k, e->lo, e->hi);
        } else {
            if (t[i].var.kind != CS_INPUT || k >= e->n_in) return false;
            if (in_bits && !limbs_zero(&t[i].coeff)) mark(in_bits, k, 0, e->in_hi);
        }
    }
    return true;
}

static int prover_enforce_known(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c,
                                const int v[3])
{
    prover_cs *p = (prover_cs *)cs;
    prover_store *s = p->st;
    size_t n = cs->num_constraints;
    if (!cs_prover_known_values) return prover_enforce(cs, a, b, c);
    if (a->status | b->status | c->status) return cs_check_terms(cs, a, b, c);
    if (n >= s->cap_con && (s != &p->own || grow_constraints(s, n + 1, false))) return CUZK_ENOMEM;
    eval_ctx e = {
        s, NULL, cs->num_inputs, cs->num_aux, p->own_lo, p->own_hi, s == &p->own ? SIZE_MAX : 0};
    if (!mark_only(a, &e, NULL, s->a_aux) || !mark_only(b, &e, s->b_input, s->b_aux) ||
        !mark_only(c, &e, NULL, NULL))
        return cs_check_terms(cs, a, b, c);
    s->a[n] = p->small[v[0] + 2];
    s->b[n] = p->small[v[1] + 2];
    s->c[n] = p->small[v[2] + 2];
    return 0;
}

static const cs_ops prover_ops = {prover_alloc, prover_enforce};

/* The core fields every prover cs (root or child) sets. */
static void prover_setup(prover_cs *p, const fr_t small[5])
{
    p->cs.checks_terms = true;
    p->cs.enforce_known = prover_enforce_known;
    memcpy(p->small, small, sizeof(p->small));
}

/* ---- forks ---- */

/* Room for `more` past the counts, and for the input constraints the
 * runner appends after the circuit; a child has its window already, and
 * `more` must fit in what is left of it. */
static int prover_reserve(cs_t *cs, const cs_capacity *more)
{
    prover_store *s = ((prover_cs *)cs)->st;
    if (s != &((prover_cs *)cs)->own) {
        bool fits = more->inputs <= cs->lim_inputs - cs->num_inputs &&
                    more->aux <= cs->lim_aux - cs->num_aux &&
                    more->constraints <= cs->lim_constraints - cs->num_constraints;
        return fits ? 0 : CUZK_EINVAL;
    }
    size_t inputs = cs->num_inputs + more->inputs;
    int rc = grow_inputs(s, inputs, true);
    if (!rc) rc = grow_aux(s, cs->num_aux + more->aux, true);
    if (!rc) rc = grow_constraints(s, cs->num_constraints + more->constraints + inputs, true);
    return rc;
}

static const cs_fork_ops prover_fork_ops;

/* A child of the root or of a child (its window inside the parent's). */
static cs_t *prover_fork(cs_t *cs, const cs_capacity *at, const cs_capacity *size)
{
    prover_cs *parent = (prover_cs *)cs, *p = calloc(1, sizeof(*p));
    if (!p) return NULL;
    cs_init_child(&p->cs, cs, &prover_ops, at, size);
    p->cs.fork_ops = &prover_fork_ops;
    prover_setup(p, parent->small);
    p->st = parent->st;
    p->own_lo = (p->cs.num_aux + 63) / 64;
    p->own_hi = p->cs.lim_aux / 64;
    if (p->own_hi < p->own_lo) p->own_hi = p->own_lo;
    return &p->cs;
}

static void prover_release_child(cs_t *child)
{
    free(child);
}

static const cs_fork_ops prover_fork_ops = {prover_reserve, prover_fork, prover_release_child};

/* ---- the backend ---- */

static cs_bitmap bitmap(uint64_t **w, size_t nbits)
{
    cs_bitmap m = {*w, nbits};
    *w = NULL;
    return m;
}

/* The storage *out holds, taken into s with every density word zeroed
 * (the words past num_* as well: a fresh bitmap's are zero too). */
static void store_take(prover_store *s, cs_prover *out)
{
    *s = (prover_store){.a = out->a,
                        .b = out->b,
                        .c = out->c,
                        .input = out->input_assignment,
                        .aux = out->aux_assignment,
                        .cap_con = out->cap_constraints,
                        .cap_in = out->cap_inputs,
                        .cap_aux = out->cap_aux,
                        .a_aux = out->a_aux_density.words,
                        .b_input = out->b_input_density.words,
                        .b_aux = out->b_aux_density.words};
    size_t aux_words = (s->cap_aux + 63) / 64, in_words = (s->cap_in + 63) / 64;
    if (s->a_aux) memset(s->a_aux, 0, aux_words * sizeof(uint64_t));
    if (s->b_aux) memset(s->b_aux, 0, aux_words * sizeof(uint64_t));
    if (s->b_input) memset(s->b_input, 0, in_words * sizeof(uint64_t));
    memset(out, 0, sizeof(*out));
}

int cs_synthesize_prover_into(cs_prover *out, cs_circuit circuit, const cs_capacity *hint,
                              cuzk_err *err)
{
    prover_cs p;
    memset(&p, 0, sizeof(p));
    cs_init(&p.cs, &prover_ops, true);
    p.cs.fork_ops = &prover_fork_ops;
    fr_t small[5];
    fr_neg(&small[1], &FR_ONE), small[2] = FR_ZERO, small[3] = FR_ONE;
    fr_dbl(&small[4], &FR_ONE), fr_neg(&small[0], &small[4]);
    prover_setup(&p, small);
    store_take(&p.own, out);
    p.st = &p.own;
    p.own_hi = SIZE_MAX;
    if (hint && prover_reserve(&p.cs, hint)) {
        store_free(&p.own);
        return cuzk_errf(err, CUZK_ENOMEM, "prover: cannot reserve %zu constraints, %zu aux",
                         hint->constraints, hint->aux);
    }
    int rc = cs_run(&p.cs, circuit, err);
    if (rc) {
        store_free(&p.own);
        return rc;
    }
    out->num_constraints = p.cs.num_constraints;
    out->num_inputs = p.cs.num_inputs;
    out->num_aux = p.cs.num_aux;
    out->cap_constraints = p.own.cap_con;
    out->cap_inputs = p.own.cap_in;
    out->cap_aux = p.own.cap_aux;
    out->a = p.own.a, out->b = p.own.b, out->c = p.own.c;
    out->input_assignment = p.own.input;
    out->aux_assignment = p.own.aux;
    out->a_aux_density = bitmap(&p.own.a_aux, out->num_aux);
    out->b_input_density = bitmap(&p.own.b_input, out->num_inputs);
    out->b_aux_density = bitmap(&p.own.b_aux, out->num_aux);
    return 0;
}

int cs_synthesize_prover(cs_prover *out, cs_circuit circuit, const cs_capacity *hint, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    return cs_synthesize_prover_into(out, circuit, hint, err);
}

size_t cs_prover_storage_bytes(const cs_prover *p)
{
    size_t words = 2 * ((p->cap_aux + 63) / 64) + (p->cap_inputs + 63) / 64;
    return (3 * p->cap_constraints + p->cap_inputs + p->cap_aux) * sizeof(fr_t) +
           words * sizeof(uint64_t);
}

/* *p (cap elements of elem bytes) shrunk to n; cap is what it holds after
 * (unchanged where realloc refuses). */
static void shrink(void **p, size_t *cap, size_t n, size_t elem)
{
    if (!*p || n >= *cap) return;
    void *q = realloc(*p, n * elem);
    if (q) *p = q, *cap = n;
}

static size_t min_size(size_t x, size_t y)
{
    return x < y ? x : y;
}

/* An assignment of cap variables and its bitmaps (w2 may be NULL) shrunk
 * to n variables; returns the variables all of them hold. */
static size_t trim_vars(fr_t **v, uint64_t **w1, uint64_t **w2, size_t cap, size_t n)
{
    if (!n) n = 1;
    size_t held = cap, words = (cap + 63) / 64, k1 = words, k2 = words;
    shrink((void **)v, &held, n, sizeof(fr_t));
    shrink((void **)w1, &k1, (n + 63) / 64, sizeof(uint64_t));
    if (w2) shrink((void **)w2, &k2, (n + 63) / 64, sizeof(uint64_t));
    return min_size(held, min_size(k1, k2) * 64);
}

void cs_prover_trim(cs_prover *p)
{
    if (!p->cap_constraints) return; /* not the prover backend's storage */
    size_t n = p->num_constraints ? p->num_constraints : 1;
    size_t ca = p->cap_constraints, cb = ca, cc = ca;
    shrink((void **)&p->a, &ca, n, sizeof(fr_t));
    shrink((void **)&p->b, &cb, n, sizeof(fr_t));
    shrink((void **)&p->c, &cc, n, sizeof(fr_t));
    p->cap_constraints = min_size(ca, min_size(cb, cc));
    p->cap_inputs = trim_vars(&p->input_assignment, &p->b_input_density.words, NULL, p->cap_inputs,
                              p->num_inputs);
    p->cap_aux = trim_vars(&p->aux_assignment, &p->a_aux_density.words, &p->b_aux_density.words,
                           p->cap_aux, p->num_aux);
}

bool cs_prover_fits(const cs_prover *p, const cs_capacity *size)
{
    return p->cap_inputs >= size->inputs && p->cap_aux >= size->aux &&
           p->cap_constraints >= size->inputs &&
           p->cap_constraints - size->inputs >= size->constraints;
}

void cs_prover_free(cs_prover *p)
{
    free(p->a), free(p->b), free(p->c), free(p->input_assignment), free(p->aux_assignment);
    free(p->a_aux_density.words), free(p->b_input_density.words), free(p->b_aux_density.words);
    memset(p, 0, sizeof(*p));
}
