/*
 * poseidon.h - neptune v11's Poseidon over Fr of BLS12-381, out of circuit:
 * the hash Filecoin's trees, column hashes and comm_r use.
 *
 * Parameters (neptune's "Standard" strength, HashType::MerkleTree): width
 * t = arity + 1, state = [domain tag 2^arity - 1, preimage...], S-box x^5,
 * RF = 8 full rounds, RP partial rounds from the Poseidon paper's security
 * inequalities (55 for t = 2, 3; 56 for 4..7; 57 for 8..15; ...), round
 * constants from the Grain LFSR, MDS the Cauchy matrix 1/(i + (t + j)),
 * output state[1]. "Strengthened" adds 25% partial rounds (rounded up).
 *
 * Constants are built once per (arity, strength) on first use and cached
 * for the life of the process (thread-safe); they hold both the plain round
 * constants and neptune's preprocessed ones (compressed round constants, a
 * pre-sparse matrix and RP sparse matrices), which the optimized hash and
 * the circuit (gadgets/poseidon.h) consume. Matrices are row-major and are
 * applied as neptune does, to the state as a row vector: s'[j] = sum_i
 * s[i] m[i][j].
 */
#ifndef CUZK_POSEIDON_H
#define CUZK_POSEIDON_H

#include <stddef.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"

/* neptune's typenum arities U1..U36. */
#define POSEIDON_MAX_ARITY 36
#define POSEIDON_MAX_WIDTH (POSEIDON_MAX_ARITY + 1)

enum poseidon_strength { POSEIDON_STANDARD = 0, POSEIDON_STRENGTHENED = 1 };

typedef struct poseidon_constants {
    unsigned arity, width; /* width = arity + 1 */
    unsigned full_rounds, half_full_rounds, partial_rounds;
    int strength;
    fr_t domain_tag;              /* 2^arity - 1 (HashType::MerkleTree) or a custom tag */
    fr_t *round_constants;        /* (RF + RP) * width, in Grain LFSR order */
    fr_t *compressed_constants;   /* RF * width + RP, neptune's compress_round_constants */
    fr_t *mds;                    /* width * width: 1 / (i + width + j) */
    fr_t *mds_inv;                /* its inverse */
    fr_t *pre_sparse;             /* width * width, applied after the last initial full round */
    fr_t *sparse_w_hat;           /* RP rows of width: first column of each sparse matrix */
    fr_t *sparse_v_rest;          /* RP rows of width - 1: rest of its first row */
    struct poseidon_lanes *lanes; /* the same for poseidon_hash_batch's lanes, or NULL */
} poseidon_constants;

/*
 * The cached constants for arity 1..36 at the given strength; NULL for an
 * unsupported arity or when memory runs out (err says which). Never freed.
 */
const poseidon_constants *poseidon_constants_get(unsigned arity, int strength, cuzk_err *err);
/* Standard strength, as Filecoin uses; aborts on failure (programming error). */
const poseidon_constants *poseidon_std(unsigned arity);
/*
 * Standard strength with neptune's HashType::Custom(CType::Arbitrary(id))
 * domain tag id * 2^40, id in 1..256 (SnapDeals derives its randomness
 * with arity 2, id 1). Cached like the others; NULL on a bad argument or
 * ENOMEM.
 */
const poseidon_constants *poseidon_constants_get_custom(unsigned arity, unsigned id, cuzk_err *err);

/* Builds uncached constants (tests, tools); free with poseidon_constants_free. */
int poseidon_constants_new(poseidon_constants **out, unsigned arity, int strength, cuzk_err *err);
void poseidon_constants_free(poseidon_constants *c);

/* (RF, RP) for width t at the strength (neptune's round_numbers). */
int poseidon_round_numbers(unsigned width, int strength, unsigned *rf, unsigned *rp);
/* The first n Grain LFSR round constants for (t, RF, RP), 255-bit field, x^5. */
void poseidon_grain_constants(fr_t *out, size_t n, unsigned width, unsigned rf, unsigned rp);

/* out = Poseidon(preimage[0..arity)) with the preprocessed constants
 * (neptune's OptimizedStatic, the default). out may alias preimage. */
void poseidon_hash(fr_t *out, const poseidon_constants *c, const fr_t *preimage);
/* The same by the textbook permutation (neptune's Correct mode). */
void poseidon_hash_plain(fr_t *out, const poseidon_constants *c, const fr_t *preimage);

/*
 * out[i] = Poseidon(in[i * arity .. (i + 1) * arity)) for i < n on the
 * calling thread: eight at a time in the lanes of AVX-512 IFMA where the
 * CPU has it and the arity is at most 11 (src/poseidon/hash_lanes.c), one
 * by one with poseidon_hash otherwise. out may not overlap in.
 */
void poseidon_hash_batch(fr_t *out, const poseidon_constants *c, const fr_t *in, size_t n);
/* Turns poseidon_hash_batch's lanes on (when the CPU has them) or off, for
 * tests and benchmarks; returns whether they are on. */
bool poseidon_use_lanes(bool on);
/* Whether the batches use the lanes now. */
bool poseidon_lanes_active(void);

/*
 * The trace of Poseidon(preimage) (neptune's OptimizedStatic order): per
 * S-box its input where neptune's legacy circuit allocates it (not in the
 * first round; never the domain tag's first S-box), x^2, x^4 and x^5 +
 * key (no key in the last round); the output last. These are the values
 * that circuit allocates (gadgets/poseidon.h), poseidon_trace_len of them.
 */
size_t poseidon_trace_len(const poseidon_constants *c);
void poseidon_trace(fr_t *out, const poseidon_constants *c, const fr_t *preimage);
/* out[i * len ..] = the trace of in[i * arity ..] for i < n (len:
 * poseidon_trace_len), eight at a time in the IFMA lanes where
 * poseidon_hash_batch takes them, one by one otherwise. */
void poseidon_trace_batch(fr_t *out, const poseidon_constants *c, const fr_t *in, size_t n);
/* The same for n <= POSEIDON_LANES hashes (one batch of the lanes), hash
 * i's trace at out[i]. */
#define POSEIDON_LANES 8
void poseidon_trace_lanes(fr_t *const *out, const poseidon_constants *c, const fr_t *in, size_t n);

/* out[i] = Poseidon(in[i * arity .. (i + 1) * arity)) for i < n, spread
 * over the OpenMP threads (a tree level, a batch of columns). out may not
 * overlap in. */
void poseidon_hash_many(fr_t *out, const poseidon_constants *c, const fr_t *in, size_t n);

/*
 * filecoin-hashers' hash_md (PoseidonMDArity = 36): acc = in[0], then for
 * each chunk of up to 35 further elements acc = Poseidon-36(acc, chunk,
 * zeros). n >= 2 (CUZK_EINVAL otherwise).
 */
#define POSEIDON_MD_ARITY 36
int poseidon_hash_md(fr_t *out, const fr_t *in, size_t n);

#endif
