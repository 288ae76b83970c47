/*
 * post_circuit.h - the Fallback PoSt circuit of storage-proofs-post
 * (fallback/circuit.rs, Winning and Window PoSt), allocation for
 * allocation and constraint for constraint, and its public inputs computed
 * natively as FallbackPoStCompound::generate_public_inputs does.
 *
 * The circuit is a list of `sectors` sector circuits, each with
 * `challenges` tree-R inclusion proofs. Per sector: comm_r_last, comm_c and
 * comm_r allocated, comm_r made a public input (1 constraint), comm_r *
 * ONE = Poseidon-2(comm_c, comm_r_last) (311 + 1); per challenge a
 * PoRCircuit over tree-R with the leaf allocated, comm_r_last as its
 * (private) root and the challenged position packed into one public input
 * (levels x 530 + 2 constraints for the 8-ary Poseidon trees: the
 * packing and the root equality). So Winning 2KiB is 66 x (313 + 1,062)
 * = 90,750 constraints and Window 32GiB 2349 x (313 + 10 x 5,302) =
 * 125,279,217.
 *
 * The shapes are filecoin-proofs' (parameters.rs): Window PoSt is
 * sector_count = WINDOW_POST_SECTOR_COUNT (2349 for 32GiB) sectors of 10
 * challenges; Winning PoSt's 66 challenges over one sector become, by
 * winning_post_setup_params, 66 circuit sectors of ONE challenge each
 * (sector_count = 66 / 1, challenge_count = 66 / 66): the single vanilla
 * sector proof is unrolled, one inclusion proof per circuit sector, and
 * the public sector (id, comm_r) is repeated 66 times. Hence 1 + 66 x 2 =
 * 133 public inputs.
 *
 * Public inputs (after ONE), per sector: comm_r, then per challenge the
 * challenged leaf index (one input: a path has fewer than 254 bits).
 * Shorter partitions repeat their last sector, in the circuit and in the
 * inputs.
 */
#ifndef CUZK_FILECOIN_POST_CIRCUIT_H
#define CUZK_FILECOIN_POST_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/vanilla.h"
#include "cuzk/fr.h"
#include "cuzk/gadgets/por.h"
#include "cuzk/r1cs.h"

/* filecoin-proofs constants.rs: WINNING_POST_CHALLENGE_COUNT = 66 over
 * WINNING_POST_SECTOR_COUNT = 1 sector; WINDOW_POST_CHALLENGE_COUNT = 10. */
#define POST_WINNING_SECTORS    66
#define POST_WINNING_CHALLENGES 1
#define POST_WINDOW_CHALLENGES  10

typedef struct post_shape {
    uint64_t nodes;    /* tree-R leaves: sector_size / 32 */
    size_t sectors;    /* sector_count: circuit sectors per partition */
    size_t challenges; /* challenge_count: inclusion proofs per circuit sector */
    por_shape tree;    /* tree-R: 8-ary Poseidon, optional sub and top levels */
} post_shape;

/* The circuit shape of Winning (VANILLA_POST_WINNING) or Window PoSt for a
 * Filecoin sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB). */
int post_shape_for_size(post_shape *s, int kind, uint64_t sector_size, cuzk_err *err);
/*
 * Any shape (rust-fil-proofs' test shapes): nodes a power of two equal to
 * base_arity^k x sub_arity x top_arity (0 for an absent level), at least
 * one sector and one challenge.
 */
int post_shape_make(post_shape *s, uint64_t nodes, unsigned base_arity, unsigned sub_arity,
                    unsigned top_arity, size_t sectors, size_t challenges, cuzk_err *err);
/* Public inputs of one partition, ONE excluded: sectors x (1 + challenges). */
size_t post_num_public_inputs(const post_shape *s);

/*
 * One partition's circuit. vanilla == NULL builds it without values
 * (setup, counting). Otherwise circuit sector j is, for Window PoSt,
 * vanilla[min(j, n_vanilla - 1)] with its `challenges` proofs and, for
 * Winning PoSt, inclusion proof min(j, n_proofs - 1) of vanilla[0] (with
 * its commitments).
 */
typedef struct post_circuit {
    post_shape shape;
    int kind;                           /* enum vanilla_post_kind */
    const vanilla_post_sector *vanilla; /* must outlive the circuit's use */
    size_t n_vanilla;
} post_circuit;

/* Checks the vanilla proofs against the shape (counts, path geometry,
 * canonical values) and builds the circuit over them. */
int post_circuit_init(post_circuit *pc, int kind, const post_shape *s,
                      const vanilla_post_sector *vanilla, size_t n_vanilla, cuzk_err *err);
/* The blank circuit (every value missing). */
void post_circuit_blank(post_circuit *pc, const post_shape *s);
/* The cs_circuit reading *pc (which must outlive its use). */
cs_circuit post_circuit_get(post_circuit *pc);

/* storage-proofs-post PublicSector. */
typedef struct post_public_sector {
    uint64_t id;
    vanilla_node comm_r;
} post_public_sector;

/*
 * generate_public_inputs for partition k: the k-th chunk of `sectors`
 * sectors of pub[0..n) (its last sector's inputs repeated up to the
 * shape's count), comm_r and the leaf challenges of each, the challenge
 * being SHA-256(randomness || sector id u64 LE || challenge index u64 LE)
 * read as a u64 LE modulo nodes, challenge index = sector index x
 * challenges + n (api_version FC_API_V1_0 / FC_API_V1_1) or n
 * (FC_API_V1_2), sector index = k x sectors + i. out holds
 * post_num_public_inputs(s) elements.
 */
int post_public_inputs(fr_t *out, const post_shape *s, int api_version,
                       const uint8_t randomness[32], const post_public_sector *pub, size_t n,
                       size_t partition, cuzk_err *err);
/* Winning PoSt: the one challenged sector repeated s->sectors times, as
 * generate_winning_post_with_vanilla builds its public inputs. */
int post_winning_public_inputs(fr_t *out, const post_shape *s, int api_version,
                               const uint8_t randomness[32], const post_public_sector *sector,
                               cuzk_err *err);
/* The leaf challenged by (randomness, sector id, challenge index). */
uint64_t post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                             uint64_t challenge_index, uint64_t nodes);

#endif
