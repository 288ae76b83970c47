/*
 * witness.c - the witness-only backend: variable values and nothing else,
 * for the pre-compiled evaluator path where the matrices recorded once per
 * circuit shape turn the witness into a, b, c. Input values are kept too;
 * there are few of them and the prover needs them.
 *
 * The backend does not read constraints (cs_needs_constraints is false),
 * so the gadgets on the hot paths build no combination at all: they
 * allocate their variables with the prover backend's values and count
 * their constraints (cs_enforce_skip). A gadget that still builds one goes
 * through the core's term check and enforce does nothing. The counts are
 * those of the full R1CS, so a unit's window and the result's
 * num_constraints are exact.
 *
 * Storage is indexed by the core's counts, like the prover's: vectors
 * double unless a hint or cs_run_units reserves them, and
 * cs_synthesize_witness_into starts from an earlier result's assignments
 * (every entry below the counts is written again). The core stores aux
 * values straight into the array while it has room (cs_t aux_direct, kept
 * up to date here as it moves); witness_alloc runs only to grow it and for
 * inputs. Forks (cs_run_units) share the root's storage and write the
 * window the core gives them, so the units of a circuit run on OpenMP
 * threads.
 */
#include "r1cs/cs_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct witness_store {
    fr_t *input, *aux;
    size_t cap_in, cap_aux;
} witness_store;

typedef struct witness_cs {
    cs_t cs;
    witness_store *st; /* &own for the root, the root's for a child */
    witness_store own;
} witness_cs;

static int grow(fr_t **v, size_t *cap, size_t need, bool exact)
{
    return exact ? cs_vec_resize((void **)v, cap, need, sizeof(fr_t))
                 : cs_vec_reserve((void **)v, cap, need, sizeof(fr_t));
}

/* Where the core may store aux values itself: up to the storage's end or
 * the window's, whichever comes first. */
static void direct_set(witness_cs *w)
{
    w->cs.aux_direct = w->st->aux;
    w->cs.aux_direct_end = w->st->cap_aux < w->cs.lim_aux ? w->st->cap_aux : w->cs.lim_aux;
}

static int witness_alloc(cs_t *cs, uint32_t kind, const fr_t *value)
{
    witness_cs *w = (witness_cs *)cs;
    witness_store *s = w->st;
    bool root = s == &w->own; /* a child's window is reserved: it never grows */
    if (kind == CS_INPUT) {
        size_t i = cs->num_inputs;
        if (i >= s->cap_in && (!root || grow(&s->input, &s->cap_in, i + 1, false)))
            return CUZK_ENOMEM;
        s->input[i] = *value;
        return 0;
    }
    size_t i = cs->num_aux;
    if (i >= s->cap_aux) {
        if (!root || grow(&s->aux, &s->cap_aux, i + 1, false)) return CUZK_ENOMEM;
        direct_set(w);
    }
    s->aux[i] = *value;
    return 0;
}

static int witness_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    (void)cs, (void)a, (void)b, (void)c;
    return 0;
}

static const cs_ops witness_ops = {witness_alloc, witness_enforce};

/* ---- forks ---- */

/* Room for `more` variables past the counts; a child has its window
 * already, and `more` must fit in what is left of it. */
static int witness_reserve(cs_t *cs, const cs_capacity *more)
{
    witness_cs *w = (witness_cs *)cs;
    if (w->st != &w->own) {
        bool fits = more->inputs <= cs->lim_inputs - cs->num_inputs &&
                    more->aux <= cs->lim_aux - cs->num_aux &&
                    more->constraints <= cs->lim_constraints - cs->num_constraints;
        return fits ? 0 : CUZK_EINVAL;
    }
    int rc = grow(&w->own.input, &w->own.cap_in, cs->num_inputs + more->inputs, true);
    if (!rc) rc = grow(&w->own.aux, &w->own.cap_aux, cs->num_aux + more->aux, true);
    direct_set(w);
    return rc;
}

static const cs_fork_ops witness_fork_ops;

static cs_t *witness_fork(cs_t *cs, const cs_capacity *at, const cs_capacity *size)
{
    witness_cs *w = calloc(1, sizeof(*w));
    if (!w) return NULL;
    cs_init_child(&w->cs, cs, &witness_ops, at, size);
    w->cs.fork_ops = &witness_fork_ops;
    w->st = ((witness_cs *)cs)->st;
    direct_set(w);
    return &w->cs;
}

static void witness_release(cs_t *child)
{
    free(child);
}

static const cs_fork_ops witness_fork_ops = {witness_reserve, witness_fork, witness_release};

/* ---- the backend ---- */

static void free_assignments(cs_prover *out)
{
    free(out->input_assignment), free(out->aux_assignment);
    out->input_assignment = out->aux_assignment = NULL;
    out->cap_inputs = out->cap_aux = 0;
    out->num_constraints = out->num_inputs = out->num_aux = 0;
}

int cs_synthesize_witness_into(cs_prover *out, cs_circuit circuit, const cs_capacity *hint,
                               cuzk_err *err)
{
    witness_cs w;
    memset(&w, 0, sizeof(w));
    cs_init(&w.cs, &witness_ops, true);
    w.cs.needs_constraints = false;
    w.cs.fork_ops = &witness_fork_ops;
    w.own =
        (witness_store){out->input_assignment, out->aux_assignment, out->cap_inputs, out->cap_aux};
    w.st = &w.own;
    direct_set(&w);
    int rc = 0;
    if (hint && witness_reserve(&w.cs, hint))
        rc = cuzk_errf(err, CUZK_ENOMEM, "witness: cannot reserve %zu inputs, %zu aux",
                       hint->inputs, hint->aux);
    if (!rc) rc = cs_run(&w.cs, circuit, err);
    cs_store_fence(); /* the bits this thread streamed, before the caller passes them on */
    out->input_assignment = w.own.input, out->aux_assignment = w.own.aux;
    out->cap_inputs = w.own.cap_in, out->cap_aux = w.own.cap_aux;
    if (rc) {
        free_assignments(out);
        return rc;
    }
    out->num_constraints = w.cs.num_constraints;
    out->num_inputs = w.cs.num_inputs;
    out->num_aux = w.cs.num_aux;
    return 0;
}

int cs_synthesize_witness(cs_witness *out, cs_circuit circuit, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    cs_prover p;
    memset(&p, 0, sizeof(p));
    int rc = cs_synthesize_witness_into(&p, circuit, NULL, err);
    if (rc) return rc;
    out->num_inputs = p.num_inputs;
    out->num_aux = p.num_aux;
    out->input_assignment = p.input_assignment;
    out->aux_assignment = p.aux_assignment;
    return 0;
}

void cs_witness_free(cs_witness *w)
{
    free(w->input_assignment), free(w->aux_assignment);
    memset(w, 0, sizeof(*w));
}
