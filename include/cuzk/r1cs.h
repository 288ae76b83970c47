/*
 * r1cs.h - the constraint system every circuit is synthesized through.
 *
 * A circuit is a function that receives an opaque cs_t and calls
 * cs_alloc / cs_alloc_input / cs_enforce over linear combinations (cs_lc).
 * Whether that builds a proof witness, a setup, a count, a recording or only
 * aux values is the backend's business; gadgets do not depend on it for
 * what they allocate, but may skip work nobody reads: values when
 * cs_needs_values() is false, and building combinations when
 * cs_needs_constraints() is false (the witness backend), where they
 * account for each constraint they do not build with cs_enforce_skip, so
 * variables, their values and every count stay those of the full R1CS.
 *
 * Conventions (bellperson's, so the official parameters fit the R1CS):
 * - input variable 0 is the constant ONE (cs_one()), allocated before the
 *   circuit runs;
 * - variables are numbered in allocation order, inputs and aux separately;
 * - after the circuit, one constraint x_i * 0 = 0 is appended for every
 *   input, ONE included, so num_constraints counts them;
 * - a linear combination merges duplicate terms as it is built (like
 *   bellpepper's LinearCombination); a merged coefficient may be zero, and
 *   zero coefficients are skipped everywhere: in evaluation, in density, in
 *   the recorded matrices and in the fingerprint.
 *
 * Errors are sticky: an allocation failure inside a cs_lc or the cs (or a
 * gadget calling cs_fail) marks it failed, later calls do nothing, and the
 * synthesize function returns the first error (CUZK_ENOMEM, ...) through
 * cuzk_err. Gadgets may therefore ignore the int results of the lc_* and
 * cs_* builders and check cs_status() when they want to stop early.
 */
#ifndef CUZK_R1CS_H
#define CUZK_R1CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"

/* ---- variables and linear combinations ---- */

enum cs_kind { CS_INPUT = 0, CS_AUX = 1 };

typedef struct cs_var {
    uint32_t index; /* allocation order within its kind */
    uint32_t kind;  /* CS_INPUT or CS_AUX */
} cs_var;

/* The constant ONE: input 0. */
static inline cs_var cs_one(void)
{
    return (cs_var){0, CS_INPUT};
}

typedef struct cs_term {
    cs_var var;
    fr_t coeff;
} cs_term;

/* Terms kept inside the struct before the first heap allocation. */
#define CS_LC_INLINE 4

/*
 * A linear combination: terms sorted by (kind, index), inputs first, one
 * term per variable. Zero-initialised ({0}) or lc_zero() gives the empty
 * combination. Do not copy the struct by value (the heap part would be
 * shared): use lc_copy. lc_free releases the heap part; lc_clear empties it
 * and keeps the capacity for reuse.
 */
typedef struct cs_lc {
    uint32_t len;
    uint32_t cap;  /* heap capacity; unused while heap is NULL */
    uint32_t hint; /* position of the last insert (bellpepper's last_inserted) */
    int status;    /* CUZK_ENOMEM once a growth failed, sticky */
    cs_term *heap; /* NULL while the terms fit inline */
    cs_term inl[CS_LC_INLINE];
} cs_lc;

void lc_zero(cs_lc *lc);
void lc_clear(cs_lc *lc);
void lc_free(cs_lc *lc);
static inline const cs_term *lc_terms(const cs_lc *lc)
{
    return lc->heap ? lc->heap : lc->inl;
}
static inline size_t lc_len(const cs_lc *lc)
{
    return lc->len;
}

/* lc += coeff * var (merged into an existing term of the same variable). */
int lc_add_term(cs_lc *lc, cs_var var, const fr_t *coeff);
/* lc -= coeff * var. */
int lc_sub_term(cs_lc *lc, cs_var var, const fr_t *coeff);
/* lc += var, lc -= var (coefficient one). */
int lc_add_var(cs_lc *lc, cs_var var);
int lc_sub_var(cs_lc *lc, cs_var var);
/* lc += other, lc -= other, lc += coeff * other (other may be lc itself). */
int lc_add_lc(cs_lc *lc, const cs_lc *other);
int lc_sub_lc(cs_lc *lc, const cs_lc *other);
int lc_add_scaled_lc(cs_lc *lc, const fr_t *coeff, const cs_lc *other);
/* lc *= coeff (term by term, terms stay even when coeff is zero). */
void lc_scale(cs_lc *lc, const fr_t *coeff);
/* dst := src (dst must be initialised; its storage is reused). */
int lc_copy(cs_lc *dst, const cs_lc *src);
/* The value of lc on an assignment (zero-coefficient terms skipped). */
void lc_eval(fr_t *out, const cs_lc *lc, const fr_t *input, const fr_t *aux);

/* ---- the constraint system seen by circuits ---- */

typedef struct cs cs_t;

/*
 * Allocates an aux (resp. input) variable with its value. value may be NULL
 * when cs_needs_values() is false; a backend that needs values fails the
 * cs (CUZK_EINVAL) when one is missing.
 */
cs_var cs_alloc(cs_t *cs, const fr_t *value);
cs_var cs_alloc_input(cs_t *cs, const fr_t *value);
/* Adds the constraint a * b = c. */
int cs_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c);
/*
 * The same, with the values of a, b and c on the witness given by the
 * caller as small integers (-2 .. 2): the bit gadgets know them, and the
 * prover then stores them instead of evaluating the combinations (it
 * still checks the terms and tracks densities). The values must be right:
 * test_synth_units compares whole circuits with and without them.
 */
int cs_enforce_known(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c, int va, int vb,
                     int vc);
/* Whether the backend reads variable values (prover, witness). */
bool cs_needs_values(const cs_t *cs);
/* Whether the backend reads constraints (all but the witness backend);
 * when false a gadget may call cs_enforce_skip instead of cs_enforce. */
bool cs_needs_constraints(const cs_t *cs);
/*
 * Counts n constraints that a gadget does not build, as n cs_enforce
 * calls would (the window of a unit is checked). Only when
 * cs_needs_constraints() is false: otherwise the cs fails (CUZK_EINVAL).
 * Returns cs_status().
 */
int cs_enforce_skip(cs_t *cs, size_t n);
/*
 * n (<= 64) aux variables holding bits, variable k of value
 * (values >> k) & 1, and `constraints` constraints counted, not built: as n
 * cs_alloc calls and cs_enforce_skip(cs, constraints), in one call (the
 * bit gadgets' witness path). Only when cs_needs_constraints() is false
 * (otherwise the cs fails, CUZK_EINVAL). Returns the first variable; the
 * others follow it.
 */
cs_var cs_alloc_bits(cs_t *cs, uint64_t values, unsigned n, size_t constraints);
/* For a gadget about to build one constraint: true when the backend does
 * not read constraints, the constraint then counted (cs_enforce_skip) and
 * nothing left to build. */
bool cs_skip_constraint(cs_t *cs);
/* 0 or the first error; once non-zero the cs ignores further calls. */
int cs_status(const cs_t *cs);
/* A gadget reports a failure (e.g. a value out of range); returns code. */
int cs_fail(cs_t *cs, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Counts so far (ONE included in inputs; appended input constraints only
 * once the circuit has returned). */
size_t cs_num_inputs(const cs_t *cs);
size_t cs_num_aux(const cs_t *cs);
size_t cs_num_constraints(const cs_t *cs);

/* A circuit: synthesize(cs, ctx) returns 0 or an error status. */
typedef struct cs_circuit {
    int (*synthesize)(cs_t *cs, void *ctx);
    void *ctx;
} cs_circuit;

/* ---- independent units, synthesized in parallel ---- */

/* Sizes to reserve up front (constraints without the input ones); also
 * the exact size of a unit below. */
typedef struct cs_capacity {
    size_t constraints, inputs, aux;
} cs_capacity;

/* One unit of a circuit: allocates and enforces as a sequential circuit
 * would at that point (k numbers the unit, ctx is the circuit's). */
typedef int (*cs_unit_fn)(cs_t *cs, size_t k, void *ctx);

/*
 * Runs unit(cs, k, ctx) for k = 0 .. n-1 with exactly the result of
 * running them in that order on cs, where every unit allocates exactly
 * *size (inputs, aux, constraints: allocation is deterministic, so units of
 * one shape have one size; cs_unit_size measures it). A unit may use the
 * variables allocated before the call and its own, never another unit's.
 * When the backend can fork (the prover) and several OpenMP threads are
 * available, unit k runs on a fork of cs that writes the window of
 * variables and constraints sequential synthesis would give it, units
 * spread over the threads; otherwise the units run in order on cs. A unit
 * whose size differs fails the cs (CUZK_EINVAL, naming the unit); errors
 * are reported for the lowest failing unit. Returns cs_status(cs).
 */
int cs_run_units(cs_t *cs, size_t n, const cs_capacity *size, cs_unit_fn unit, void *ctx);
/*
 * The size of unit k (inputs, aux, constraints it allocates) run at the
 * current position of cs on a counting fork that stores nothing. With key
 * non-NULL the result is cached process-wide under the key's bytes (at
 * most CS_UNIT_KEY_MAX; the caller's digest of everything the size
 * depends on) and measured only once. Returns 0 or the unit's error (also
 * set on cs).
 */
#define CS_UNIT_KEY_MAX 64
int cs_unit_size(cs_t *cs, cs_capacity *out, const void *key, size_t key_len, cs_unit_fn unit,
                 size_t k, void *ctx);
/*
 * What circuits call: when cs_run_units would run the n units in parallel,
 * their size is measured (cs_unit_size of unit 0 with measure_ctx, a ctx
 * without values, cached under key) and they run through cs_run_units with
 * ctx; otherwise (a backend that cannot fork, one unit, one thread) they
 * simply run in order with ctx, with nothing to measure.
 */
int cs_run_units_auto(cs_t *cs, size_t n, const void *key, size_t key_len, cs_unit_fn unit,
                      void *measure_ctx, void *ctx);

/* ---- prover backend ---- */

typedef struct cs_bitmap {
    uint64_t *words; /* bit i is words[i / 64] >> (i % 64) & 1 */
    size_t nbits;
} cs_bitmap;

static inline bool cs_bitmap_get(const cs_bitmap *m, size_t i)
{
    return (m->words[i / 64] >> (i % 64)) & 1;
}
size_t cs_bitmap_popcount(const cs_bitmap *m);

/*
 * Everything the Groth16 prover needs from one circuit. a, b, c have one
 * entry per constraint (input constraints included); a_aux_density has one
 * bit per aux variable, set iff it has a non-zero coefficient in some A
 * combination; b_input_density / b_aux_density the same for B. (A is dense
 * over inputs because of the x_i * 0 = 0 constraints.)
 */
typedef struct cs_prover {
    size_t num_constraints, num_inputs, num_aux;
    fr_t *a, *b, *c;
    fr_t *input_assignment, *aux_assignment;
    cs_bitmap a_aux_density, b_input_density, b_aux_density;
    /* What the arrays hold room for, set by the prover backend (0 where
     * another producer made them): a, b, c cap_constraints entries, the
     * assignments and their density bitmaps cap_inputs / cap_aux. */
    size_t cap_constraints, cap_inputs, cap_aux;
    /* Non-NULL: the witness-only path. a, b, c were not computed (NULL, or
     * storage whose contents mean nothing): they are this recorded
     * shape's A, B, C times the assignment, which the prover evaluates
     * and checks (cs_shape_eval on the CPU, gpu_shape_eval_dev on the
     * device). Not owned: it outlives the proving. */
    const struct cs_shape *shape;
} cs_prover;

/* Synthesizes one circuit for proving; hint may be NULL. On error *out is
 * left empty. */
int cs_synthesize_prover(cs_prover *out, cs_circuit circuit, const cs_capacity *hint,
                         cuzk_err *err);
/*
 * The same into the storage *out already holds (an earlier result, or an
 * empty cs_prover): arrays with room are written in place, pages already
 * faulted in, and grow only where the circuit needs more. The result is
 * identical to cs_synthesize_prover's, byte for byte over num_* entries
 * and every density word. On error *out is freed and left empty.
 */
int cs_synthesize_prover_into(cs_prover *out, cs_circuit circuit, const cs_capacity *hint,
                              cuzk_err *err);
/* Bytes of *p's storage at its capacities (what keeping it for reuse
 * costs). */
size_t cs_prover_storage_bytes(const cs_prover *p);
/* Shrinks *p's storage of the prover backend to its counts (capacity
 * doubling leaves up to half of it unused), contents unchanged. */
void cs_prover_trim(cs_prover *p);
/* Whether *p's capacities hold a circuit of size (constraints without the
 * input ones, as cs_capacity) without growing. */
bool cs_prover_fits(const cs_prover *p, const cs_capacity *size);
void cs_prover_free(cs_prover *p);

/*
 * Synthesizes n circuits in parallel (OpenMP, one prover backend each) into
 * out[0..n). On error every out[i] is left empty and err names the circuit.
 */
int cs_synthesize_batch(cs_prover *out, const cs_circuit *circuits, size_t n, cuzk_err *err);
/*
 * The same with every prover pre-sized to hint. Kept but off by default:
 * pre-sizing 10 circuits x 32.8 GiB at once was measured as a 12.6%
 * synthesis regression (page-fault storms), so callers use the plain one.
 */
int cs_synthesize_batch_with_hint(cs_prover *out, const cs_circuit *circuits, size_t n,
                                  const cs_capacity *hint, cuzk_err *err);
/* cs_synthesize_batch into the storage out[i] already holds
 * (cs_synthesize_prover_into); on error every out[i] is freed. */
int cs_synthesize_batch_into(cs_prover *out, const cs_circuit *circuits, size_t n, cuzk_err *err);

/* ---- counter backend ---- */

/*
 * Sizes and a SHA-256 fingerprint of the whole R1CS, in bounded memory (one
 * bit per variable for the densities, nothing per constraint). The
 * encoding: for every constraint in order (input constraints included),
 * the canonical encoding of A, B and C: u32 LE count of non-zero terms,
 * then per term u32 LE index, u8 kind (0 input, 1 aux), u8 form (0:
 * coefficient 1, 1: coefficient -1, 2: 32-byte LE canonical coefficient
 * follows). The fingerprint: SHA-256 of the SHA-256 digests of the
 * encoding's blocks of 65536 constraints (the last one shorter), in order,
 * then u64 LE num_inputs, num_aux, num_constraints (blocks, so that a
 * recorded shape hashes them in parallel).
 */
typedef struct cs_counts {
    size_t num_constraints, num_inputs, num_aux;
    size_t a_aux_density, b_input_density, b_aux_density; /* popcounts */
    uint8_t fingerprint[32];
} cs_counts;

int cs_count(cs_counts *out, cs_circuit circuit, cuzk_err *err);

/* ---- recorder and keygen backends ---- */

/*
 * A sparse matrix in compressed rows: row r holds entries ptr[r] ..
 * ptr[r+1]-1, with column idx[k] and value val[k] (never zero). Variables
 * are numbered [inputs || aux]: input i is i, aux j is num_inputs + j.
 */
typedef struct cs_matrix {
    size_t rows, nnz;
    uint64_t *ptr; /* rows + 1 entries */
    uint32_t *idx;
    fr_t *val;
} cs_matrix;

enum cs_layout {
    CS_BY_CONSTRAINT = 0, /* CSR: a row per constraint, columns are variables */
    CS_BY_VARIABLE = 1,   /* CSC: a row per variable, columns are constraints */
};

typedef struct cs_r1cs {
    size_t num_constraints, num_inputs, num_aux;
    int layout;
    cs_matrix a, b, c;
} cs_r1cs;

/* Recorder: the matrices A, B, C by constraint (values are not needed). */
int cs_record(cs_r1cs *out, cs_circuit circuit, cuzk_err *err);
/* Keygen: the same matrices by variable, the QAP columns u_i, v_i, w_i that
 * Groth16 setup evaluates at tau. */
int cs_keygen(cs_r1cs *out, cs_circuit circuit, cuzk_err *err);
void cs_r1cs_free(cs_r1cs *r);
/* a, b, c (num_constraints each) := A, B, C times the assignment; needs
 * CS_BY_CONSTRAINT. Parallel (OpenMP). Returns CUZK_EINVAL on a layout
 * mismatch. */
int cs_r1cs_eval(const cs_r1cs *r, const fr_t *input, const fr_t *aux, fr_t *a, fr_t *b, fr_t *c);
/* The counter's fingerprint computed from recorded matrices (CS_BY_CONSTRAINT). */
int cs_r1cs_fingerprint(const cs_r1cs *r, uint8_t out[32], cuzk_err *err);

/* ---- QAP backend ---- */

/*
 * The QAP columns of Groth16 setup without the matrices: per variable
 * ([inputs || aux], input i at i, aux j at num_inputs + j) u = sum over
 * constraints j of A[j][var] lagrange[j], v the same over B, w over C,
 * accumulated while the circuit is synthesized (units in parallel), so
 * memory is three elements per variable. The values equal those of
 * cs_keygen's matrices through groth16_qap_columns.
 */
typedef struct cs_qap {
    size_t num_constraints, num_inputs, num_aux;
    fr_t *u, *v, *w; /* NULL until cs_qap_eval */
} cs_qap;

/* The sizes only (units in parallel, nothing stored). */
int cs_qap_count(cs_qap *out, cs_circuit circuit, cuzk_err *err);
/* u, v, w of the circuit counted into q, lagrange holding one element per
 * constraint; fails (CUZK_EINVAL) when the synthesis differs from the
 * count. */
int cs_qap_eval(cs_qap *q, cs_circuit circuit, const fr_t *lagrange, cuzk_err *err);
void cs_qap_free(cs_qap *q);

/* ---- witness-only backend ---- */

typedef struct cs_witness {
    size_t num_inputs, num_aux;
    fr_t *input_assignment, *aux_assignment;
} cs_witness;

/*
 * Values only (the pre-compiled evaluator path): the constraints are
 * counted, not built (cs_needs_constraints is false), and the units of
 * cs_run_units run in parallel as on the prover backend. The assignments
 * equal cs_synthesize_prover's byte for byte. On error *out is left empty.
 */
int cs_synthesize_witness(cs_witness *out, cs_circuit circuit, cuzk_err *err);
/*
 * The same into a cs_prover: writes num_constraints, num_inputs, num_aux,
 * input_assignment and aux_assignment, reusing the assignments' storage at
 * cap_inputs / cap_aux as cs_synthesize_prover_into does (growing it only
 * where the circuit needs more; hint, which may be NULL, reserves up
 * front) and setting those caps. It neither reads nor writes a, b, c,
 * cap_constraints or the density bitmaps (the caller fills them from the
 * recorded matrices). On error the assignments are freed (NULL, caps
 * zero), the counts are zero and err says why.
 */
int cs_synthesize_witness_into(cs_prover *out, cs_circuit circuit, const cs_capacity *hint,
                               cuzk_err *err);
void cs_witness_free(cs_witness *w);

/* ---- pre-compiled evaluator ---- */

/*
 * The prover backend's output without running the prover backend: a, b, c
 * by evaluating recorded matrices (CS_BY_CONSTRAINT) on a witness, and the
 * density bitmaps from the matrices' columns (they depend on the R1CS
 * only). Takes w's arrays (w is left empty, also on error). Parallel
 * (OpenMP). The result equals cs_synthesize_prover's for the same circuit.
 */
int cs_prover_from_witness(cs_prover *out, const cs_r1cs *r, cs_witness *w, cuzk_err *err);

/* ---- shape: the matrices recorded compactly, evaluated per witness ---- */

/*
 * A, B and C of a circuit recorded once per circuit shape (values not
 * needed: a blank circuit records the same shape), in about five bytes an
 * entry: a u32 column and a byte coding the coefficient (+-2^k, or an
 * index into a small table of other values), rows grouped by 32 with u16
 * lengths (src/r1cs/shape.h). Recording forks like the prover
 * (cs_run_units). A witness then gives the prover backend's a, b, c and
 * densities without running the prover backend, on the CPU here or on
 * the GPU (gpu_shape_eval_dev, gpu_prove.h). Fails with
 * CUZK_EUNSUPPORTED when a row has more than 65535 non-zero terms or the
 * variables do not fit 31-bit columns.
 */
typedef struct cs_shape cs_shape;

int cs_shape_record(cs_shape **out, cs_circuit circuit, cuzk_err *err);
void cs_shape_free(cs_shape *s);
/* Host memory the shape holds. */
size_t cs_shape_bytes(const cs_shape *s);
/* Counts as the prover backend's (input constraints included). */
size_t cs_shape_num_constraints(const cs_shape *s);
size_t cs_shape_num_inputs(const cs_shape *s);
size_t cs_shape_num_aux(const cs_shape *s);
/* The R1CS fingerprint, equal to cs_count's. */
void cs_shape_fingerprint(const cs_shape *s, uint8_t out[32]);
/*
 * p's density bitmaps (a_aux_density, b_input_density, b_aux_density) from
 * the matrices, allocated or reused (the words of p's cap_inputs / cap_aux
 * variables when that is enough; words past the counts zeroed, as the
 * prover backend leaves them). A bitmap p holds must have the words of
 * p's capacity (as the prover backend and this function leave them):
 * cs_synthesize_for_shape drops those a grown witness outgrew. p's
 * num_inputs / num_aux must equal the shape's (else CUZK_EINVAL naming
 * both).
 */
int cs_shape_densities(const cs_shape *s, cs_prover *p, cuzk_err *err);
/*
 * The witness-only path's synthesis of one circuit of shape s: its
 * witness into *out's storage (cs_synthesize_witness_into, hint as there),
 * the shape's densities (cs_shape_densities) and out->shape = s, so that a
 * prover evaluates a, b, c from s. On error *out is freed and left empty.
 */
int cs_synthesize_for_shape(cs_prover *out, cs_circuit circuit, const cs_shape *s,
                            const cs_capacity *hint, cuzk_err *err);
/*
 * a, b, c (num_constraints each) := A, B, C times [input || aux], then
 * every constraint checked: a_j b_j = c_j, else CUZK_EINVAL "constraint J
 * is not satisfied" naming the first j. Parallel (OpenMP). The values are
 * the prover backend's byte for byte.
 */
int cs_shape_eval(const cs_shape *s, const fr_t *input, const fr_t *aux, fr_t *a, fr_t *b, fr_t *c,
                  cuzk_err *err);

/* ---- a synthetic circuit for benchmarks and tests ---- */

/*
 * A Filecoin-like bit-heavy circuit of about `constraints` constraints:
 * random 64-bit words (from seed), each split into 64 booleans
 * (b * (1 - b) = 0) and packed back (sum 2^i b_i = word), and each word
 * XORed bit by bit with the previous one ((2a) * b = a + b - c). 129
 * constraints and 129 aux per word; the first word is the one public input.
 */
typedef struct cs_synthetic {
    size_t constraints;
    uint64_t seed;
} cs_synthetic;

/* The circuit reading *params (which must outlive its use). */
cs_circuit cs_synthetic_circuit(const cs_synthetic *params);
/* The same R1CS with a witness that fails constraint 130: bit 0 of the
 * first XOR result allocated with the wrong value (tests). */
cs_circuit cs_synthetic_circuit_unsatisfied(const cs_synthetic *params);

#endif
