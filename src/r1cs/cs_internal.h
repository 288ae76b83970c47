/*
 * cs_internal.h - what the constraint-system backends share: the cs_t core
 * (counts, sticky error, value policy) with its small vtable, the runner
 * that applies bellperson's conventions around a circuit, and growable
 * vectors and bitmaps that grow geometrically and report allocation
 * failure instead of aborting.
 *
 * A backend embeds cs_t as its first member and provides cs_ops; the core
 * numbers the variables, checks every term of every constraint against the
 * variables allocated so far, and turns backend failures into cs_fail
 * messages that name the variable or the constraint.
 */
#ifndef CUZK_R1CS_CS_INTERNAL_H
#define CUZK_R1CS_CS_INTERNAL_H

#include "cuzk/r1cs.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct cs_ops {
    /* Called with the next index of kind (cs->num_inputs or num_aux). */
    int (*alloc)(cs_t *cs, uint32_t kind, const fr_t *value);
    int (*enforce)(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c);
} cs_ops;

/*
 * What a backend that can fork provides (cs->fork_ops; NULL otherwise).
 * A child writes a window of the parent's variables and constraints: its
 * counts start at the window's first index (numbering stays global, so
 * terms and bounds checks are those of sequential synthesis) and the core
 * fails it when it would pass the window's end (cs->lim_*). Children of
 * disjoint windows run concurrently with each other, never with the
 * parent. A child may fork in turn: reserve then checks that its window
 * has the room.
 */
typedef struct cs_fork_ops {
    /* Room for `more` variables and constraints past the current counts. */
    int (*reserve)(cs_t *cs, const cs_capacity *more);
    /* A child for the window of `size` starting `at` past the parent's
     * counts (set up with cs_init_child), or NULL when out of memory. */
    cs_t *(*fork)(cs_t *cs, const cs_capacity *at, const cs_capacity *size);
    void (*release)(cs_t *child);
} cs_fork_ops;

struct cs {
    const cs_ops *ops;
    const cs_fork_ops *fork_ops;
    size_t num_inputs, num_aux, num_constraints;
    /* the counts a window ends at (CS_MAX_VARS / SIZE_MAX outside forks) */
    size_t lim_inputs, lim_aux, lim_constraints;
    bool needs_values;
    /* false for the witness backend: gadgets may skip building
     * combinations and account for them with cs_enforce_skip */
    bool needs_constraints;
    /* optional, for a backend that keeps aux values in an array indexed
     * by the count: the core stores aux i at aux_direct[i] itself, without
     * calling ops->alloc, while i < aux_direct_end (which the backend keeps
     * within its storage and lim_aux as the storage moves); 0: always
     * through ops->alloc */
    fr_t *aux_direct;
    size_t aux_direct_end;
    /* the backend checks the terms itself (cs_check_terms on a bad one) */
    bool checks_terms;
    /* optional: enforce with the values of a, b, c given (-2 .. 2) */
    int (*enforce_known)(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c, const int v[3]);
    int status;
    cuzk_err err;
};

/* cs_var.index is 32 bits and the recorder tags aux columns with bit 31,
 * so each kind holds at most 2^31 variables (a 32 GiB partition has ~2^27). */
#define CS_MAX_VARS ((size_t)1 << 31)

void cs_init(cs_t *cs, const cs_ops *ops, bool needs_values);
/* A child's core: ops, parent's value and constraint policies, counts and
 * limits of the window (fork_ops NULL and aux_direct unset: a backend whose
 * children fork or store directly sets them). */
void cs_init_child(cs_t *child, const cs_t *parent, const cs_ops *ops, const cs_capacity *at,
                   const cs_capacity *size);
/* Whether the prover uses cs_enforce_known's values (true; tests turn it
 * off to compare with full evaluation). Set it before synthesizing. */
extern bool cs_prover_known_values;
/* The core's check of a constraint's terms: 0, or the cs fails with a
 * message naming the first bad term. */
int cs_check_terms(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c);
/*
 * Allocates ONE, runs the circuit, appends x_i * 0 = 0 for every input.
 * Returns 0 or the first error (copied into err).
 */
int cs_run(cs_t *cs, cs_circuit circuit, cuzk_err *err);

/* Ordering key of a variable: inputs before aux, then by index. */
static inline uint64_t cs_var_key(cs_var v)
{
    return ((uint64_t)v.kind << 32) | v.index;
}

/* A growable array of fr_t. */
typedef struct fr_vec {
    fr_t *v;
    size_t len, cap;
} fr_vec;

/* Makes room for need elements of size elem (capacity doubles). */
int cs_vec_reserve(void **p, size_t *cap, size_t need, size_t elem);
/* The same with capacity exactly n when it grows. */
int cs_vec_resize(void **p, size_t *cap, size_t n, size_t elem);
static inline int fr_vec_push(fr_vec *x, const fr_t *e)
{
    if (x->len == x->cap) {
        int rc = cs_vec_reserve((void **)&x->v, &x->cap, x->len + 1, sizeof(fr_t));
        if (rc) return rc;
    }
    x->v[x->len++] = *e;
    return 0;
}

/* A growable bitmap; new bits are zero. */
typedef struct bit_vec {
    uint64_t *w;
    size_t nbits, cap_words;
} bit_vec;

int cs_bits_reserve(bit_vec *b, size_t nbits);
/* Appends a zero bit. */
static inline int bit_vec_push0(bit_vec *b)
{
    if (b->nbits == b->cap_words * 64) {
        int rc = cs_bits_reserve(b, b->nbits + 1);
        if (rc) return rc;
    }
    b->nbits++;
    return 0;
}
static inline void bit_set(uint64_t *w, size_t i)
{
    w[i / 64] |= (uint64_t)1 << (i % 64);
}
size_t cs_bits_popcount(const uint64_t *w, size_t nbits);

/* Marks in bits (inputs) / aux_bits every variable of lc with a non-zero
 * coefficient; either may be NULL. */
void lc_mark_density(const cs_lc *lc, uint64_t *input_bits, uint64_t *aux_bits);

/* Orders the non-temporal stores this thread made (cs_alloc_bits) before
 * what it does next, which may hand them to another thread: called at the
 * end of every unit (units.c) and of a witness synthesis (witness.c). */
static inline void cs_store_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

#endif
